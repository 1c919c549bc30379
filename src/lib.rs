//! calibscope in the browser: the page, one folder per view. The worker's
//! computations are calibscope-engine's, the messages between the two
//! calibscope-proto's ([`proto`]), the worker's message loop and the wasm binary
//! crates/web's.
//!
//! - [`app`]: the root (creates every view's state, the navigation);
//! - `client`: the worker link, a router that hands each reply to the request that
//!   asked (`client::call::Call`: latest wins, written once);
//! - `page`: the frame (shared signals, opening files, the panels, the theme);
//! - [`shared`]: widgets, the reliability chart, downloads, number formatting, texts;
//! - the views: `audit`, `flips`, `recal`, `learn`, `labs`, and `sharing` (links,
//!   exports, records).
//!
//! The page runs in a browser, and compiles (and is linted) on the host too.

pub use calibscope_proto as proto;

pub mod app;
mod audit;
mod client;
mod flips;
mod labs;
mod learn;
mod page;
mod recal;
pub mod shared;
mod sharing;
mod slices;
