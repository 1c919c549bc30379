#![no_main]
//! `cargo +nightly fuzz run arrow` (from crates/io): the Arrow IPC reader (file and stream) never panics nor
//! asks for more memory than the limits allow, and gives the same result whatever
//! the slice boundaries.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    calibscope_io::fuzz::check(calibscope_io::fuzz::Target::Arrow, data);
});
