//! The integration tests of the calibscope CLI, one test binary (each module was its own
//! binary, each linking the io, audit and engine crates: minutes of the test command).
//! Run one module with `cargo test -p calibscope-cli --test cli <module>::`.

mod beyond_binning;
mod columnar;
mod commands;
#[path = "../../audit/tests/support/compare.rs"]
mod compare;
mod flips_temperature;
mod golden_records;
mod groups;
mod interchange;
mod llm_logs;
mod multilabel;
mod recal_methods;
mod recal_scaling;
mod share;
mod sklearn;
mod sql_engines;
#[allow(dead_code)] // each module uses part of it
mod support;
