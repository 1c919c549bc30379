//! calibscope in the browser: the page (src/app/) and its helpers. The worker's
//! computations are calibscope-engine's, the messages between the two
//! calibscope-proto's, the worker's message loop and the wasm binary crates/web's.
//!
//! - [`proto`]: the worker protocol (calibscope-proto; [`flips`] and [`labs`] are its
//!   requests and answers of those views);
//! - [`numfmt`]: how numbers are shown and written into `data-value`.

/// The page's views (Leptos): they run in a browser, and compile (and are linted)
/// on the host too.
pub mod app;
pub mod calib_badges;
pub mod flips_finding;
pub mod numfmt;
pub use calibscope_proto as proto;
pub use calibscope_proto::{flips, labs, packed};
pub mod share_state;
pub mod slider;
pub mod table_rows;
pub mod table_window;
pub mod text;
