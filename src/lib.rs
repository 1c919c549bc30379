//! calibscope in the browser: what the page (src/app/) and the worker
//! (src/worker.rs) share, free of browser types so it is tested natively.
//!
//! - [`proto`]: the worker protocol (handshake, request ids, generations, error codes);
//! - [`engine`]: the worker's data set, readings and answers (core + io + audit);
//! - [`numfmt`]: how numbers are shown and written into `data-value`.

/// The page's views (Leptos): they run in a browser, and compile (and are linted)
/// on the host too.
pub mod app;
pub mod calib_badges;
pub mod engine;
pub mod flips;
pub mod flips_finding;
pub mod labs;
pub mod labs_repro;
pub mod labs_tour;
pub mod numfmt;
pub use calibscope_proto as proto;
pub use calibscope_proto::packed;
pub mod share_state;
pub mod slider;
pub mod table_rows;
pub mod table_window;
pub mod text;
/// The Web Worker's message loop, browser only.
#[cfg(target_arch = "wasm32")]
pub mod worker;

/// The fixtures' comparison rules (the audit tests' own code), for the engine's
/// fixture tests.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../crates/audit/tests/support/compare.rs"]
mod compare;
