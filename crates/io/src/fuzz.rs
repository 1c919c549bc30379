//! Shared by the cargo-fuzz targets (`crates/io/fuzz`) and the stable-Rust corpus
//! replay test: parse an input whole and in slices, check that nothing panics and
//! that the results agree.

use crate::{parse_bytes_any, Options, Parser};

/// Which parser a fuzz input is steered to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Text tables (anything that sniffs as CSV).
    Csv,
    /// JSON (a `[` is prepended when the input starts otherwise).
    Json,
    /// `.npy` (the magic is prepended when missing).
    Npy,
    /// `.npz` (a local-header signature is prepended when missing).
    Npz,
}

/// Options with small limits, so a fuzzer cannot ask for gigabytes.
pub fn options() -> Options {
    Options {
        max_record_bytes: 1 << 20,
        max_decompressed: 64 << 20,
        max_json_bytes: 16 << 20,
        ..Default::default()
    }
}

/// The bytes actually parsed for a fuzz input.
pub fn input(target: Target, data: &[u8]) -> Vec<u8> {
    let prefix: &[u8] = match target {
        Target::Csv => b"",
        Target::Json if data.first().is_some_and(|&b| b == b'[' || b == b'{') => b"",
        Target::Json => b"[",
        Target::Npy if data.starts_with(b"\x93NUMPY") => b"",
        Target::Npy => b"\x93NUMPY",
        Target::Npz if data.starts_with(b"PK") => b"",
        Target::Npz => b"PK\x03\x04",
    };
    let mut v = prefix.to_vec();
    v.extend_from_slice(data);
    v
}

/// Parses `data` whole and in slices of several sizes; panics when the results
/// differ (they are compared through `Debug`, where NaN equals NaN).
pub fn check(target: Target, data: &[u8]) {
    let bytes = input(target, data);
    let name = match target {
        Target::Csv => "fuzz.csv",
        Target::Json => "fuzz.json",
        Target::Npy => "fuzz.npy",
        Target::Npz => "fuzz.npz",
    };
    let whole = format!("{:?}", parse_bytes_any(name, &bytes, &options()));
    let seed = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    for sizes in [
        [1usize, 1, 1],
        [(seed % 13) as usize + 1, 64, 3],
        [4096, 1, 17],
    ] {
        let mut p = Parser::new(name, options());
        let mut pos = 0;
        let mut i = 0;
        while pos < bytes.len() {
            let end = (pos + sizes[i % 3]).min(bytes.len());
            i += 1;
            if p.push(&bytes[pos..end]).is_err() {
                break;
            }
            pos = end;
        }
        let split = format!("{:?}", p.finish_any());
        assert_eq!(whole, split, "slices {sizes:?} give another result");
        if bytes.len() > 4096 {
            break;
        }
    }
}
