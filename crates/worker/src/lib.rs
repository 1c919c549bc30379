//! calibscope's Web Worker: its message loop ([`worker_start`]), browser only. The
//! wasm binary (crates/web) exports it as `workerStart`.

#[cfg(target_arch = "wasm32")]
mod worker;
#[cfg(target_arch = "wasm32")]
pub use worker::worker_start;
