//! The calibscope page (Leptos, client-side rendering). Built for
//! wasm32-unknown-unknown by `cargo xtask dist`; see src/app/.

#[cfg(target_arch = "wasm32")]
mod app;

#[cfg(target_arch = "wasm32")]
fn main() {
    app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the calibscope page runs in a browser: bash tools/run.sh");
}
