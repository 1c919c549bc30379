#![no_main]
//! `cargo +nightly fuzz run gzip` (from crates/io): gzip-compressed text never panics,
//! gives the same result whatever the slice boundaries, and text compressed by the
//! target reads as it does uncompressed.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    calibscope_io::fuzz::check(calibscope_io::fuzz::Target::Gzip, data);
});
