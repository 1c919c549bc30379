#![no_main]
//! `cargo +nightly fuzz run parquet` (from crates/io): the Parquet reader never panics nor
//! asks for more memory than the limits allow, and gives the same result whatever
//! the slice boundaries.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    calibscope_io::fuzz::check(calibscope_io::fuzz::Target::Parquet, data);
});
