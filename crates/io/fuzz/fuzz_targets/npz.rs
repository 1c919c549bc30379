#![no_main]
//! `cargo +nightly fuzz run npz` (from crates/io): the npz parser never panics and
//! gives the same result whatever the slice boundaries.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    calibscope_io::fuzz::check(calibscope_io::fuzz::Target::Npz, data);
});
