//! The integration tests of calibscope-io, one test binary (each module was its own
//! binary, and each linked the Parquet and Arrow crates: minutes of the test command).
//! Run one module with `cargo test -p calibscope-io --test io <module>::`.

mod bad_corpus;
mod columnar;
mod common;
mod compressed;
mod fixtures;
mod formats;
mod fuzz_replay;
mod groups;
mod guess;
mod helm;
mod limits;
mod lm_eval;
mod multilabel;
mod numpy_forms;
mod parallel;
mod split;
mod structured_runs;
mod verbal;
