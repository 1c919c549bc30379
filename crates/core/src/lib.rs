//! # calibscope-core
//!
//! The calibration core of calibscope: every quantity of the metric contract
//! (`METRICS.md`), computed exactly and fast, with no web dependencies. Every number
//! the app, the CLI and the reports show comes from here.
//!
//! Undefined results (a class with no positives, 0/0 in a confusion metric, an empty
//! calibration split) are `None` or a typed reason, never 0, 0.5 or NaN.

#![cfg_attr(not(test), warn(missing_docs))]

pub mod auc;
pub mod audit;
pub mod beyond;
pub mod binning;
pub mod bootstrap;
pub mod calibration_tests;
pub mod data;
pub mod estimators;
pub mod groups;
pub mod lab;
pub mod lab_law;
pub mod lab_repro;
mod lab_tables;
pub mod math;
pub mod radix;
pub mod rank;
pub mod reading;
pub mod recal;
pub mod reliability;
pub mod selective;
pub mod smece;
pub mod special;
pub mod split;
pub mod sum;
pub mod sweep;
pub mod synth;
pub mod truthful;
pub mod verdict;
pub mod width;

pub use data::{InputError, InputErrorKind, Kind, PredictionSet, Real, Scores, Source, Values};
