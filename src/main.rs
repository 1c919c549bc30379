//! The calibscope web app's one wasm module: the Leptos page (client-side
//! rendering, src/app/) and the Web Worker that runs the core (src/worker.rs). Both
//! load the same `app_bg.wasm`, built for wasm32-unknown-unknown by `cargo xtask
//! dist`: `main` mounts the page where there is a `window`; in the worker,
//! `worker_loader.js` calls the exported `workerStart` instead.

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod worker;

#[cfg(target_arch = "wasm32")]
fn main() {
    if web_sys::window().is_some() {
        app::start();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the calibscope page runs in a browser: bash tools/run.sh");
}
