//! The integration tests of calibscope-report, one test binary (one link instead of four).
//! Run one module with `cargo test -p calibscope-report --test report <module>::`.

mod binning_free;
mod flips;
mod groups;
mod html;
mod support;
