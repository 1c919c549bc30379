//! The integration tests of calibscope-charts, one test binary (one link instead of six).
//! Run one module with `cargo test -p calibscope-charts --test charts <module>::`.

mod binning_free;
mod flips;
mod numfmt;
mod recal;
mod reliability;
mod small;
