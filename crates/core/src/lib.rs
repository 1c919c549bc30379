//! # calibscope-core
//!
//! The calibration core of calibscope: every quantity of the metric contract
//! (`METRICS.md`), computed exactly and fast, with no web dependencies. Every number
//! the app, the CLI and the reports show comes from here.
//!
//! Undefined results (a class with no positives, 0/0 in a confusion metric, an empty
//! calibration split) are `None` or a typed reason, never 0, 0.5 or NaN.

pub mod data;
pub mod recal;
pub mod sum;

pub use data::{InputError, InputErrorKind, Kind, PredictionSet, Real, Scores, Source, Values};
