#![no_main]
//! `cargo +nightly fuzz run decode` (from crates/share): `decode` never panics, and
//! a link it accepts re-encodes to one that decodes to the same view.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    calibscope_share::fuzz_check(data);
});
