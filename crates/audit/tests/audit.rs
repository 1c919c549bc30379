//! The integration tests of calibscope-audit, one test binary (each module was its
//! own binary, each linking the Parquet and Arrow crates through calibscope-io).
//! Run one module with `cargo test -p calibscope-audit --test audit <module>::`.

mod beyond_binning;
mod beyond_staged;
mod fixtures;
mod flips_record;
mod flips_temperature;
mod fuzz_replay;
mod golden;
mod groups;
mod ragged;
mod record;
mod support;
mod undefined_json;
mod verbal;
