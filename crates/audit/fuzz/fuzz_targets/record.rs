#![no_main]
//! `cargo +nightly fuzz run record` (from crates/audit): reading a dropped record or
//! HTML report never panics; what reads verifies against itself.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    calibscope_audit::record_fuzz_check(data);
});
