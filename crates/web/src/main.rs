//! The calibscope web app's one wasm module: the Leptos page (calibscope-app's
//! `app`) and the Web Worker that runs the core (calibscope-worker: its message
//! loop, answering with calibscope-engine). Both
//! load the same `app_bg.wasm`, built for wasm32-unknown-unknown by `cargo xtask
//! dist`: `main` mounts the page where there is a `window`; in the worker,
//! `worker_loader.js` calls the exported `workerStart` instead.

#[cfg(target_arch = "wasm32")]
fn main() {
    if web_sys::window().is_some() {
        calibscope_app::app::start();
    }
}

/// The worker's entry point (see `calibscope_worker::worker_start`).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = workerStart)]
pub fn worker_start() {
    calibscope_worker::worker_start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the calibscope page runs in a browser: bash tools/run.sh");
}
