//! Shared by the cargo-fuzz targets (`crates/io/fuzz`) and the stable-Rust corpus
//! replay test: parse an input whole and in slices, check that nothing panics and
//! that the results agree.

use crate::{parse_bytes_any, Options, Parser};
#[cfg(not(target_family = "wasm"))]
use crate::{ParseErrors, Parsed};

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
    #[cfg(not(target_family = "wasm"))]
    if target == Target::Csv {
        check_parallel(name, &bytes, seed);
    }
}

/// The parallel read of a text table equals the serial read: the input (its lines
/// after the first repeated until it passes the 4 KiB sniffing window, so that
/// there is something to cut; an input of one line is left as it is) cut every few hundred bytes and after every 29th
/// line break, read by two threads.
#[cfg(not(target_family = "wasm"))]
fn check_parallel(name: &str, bytes: &[u8], seed: u64) {
    let mut big = bytes.to_vec();
    let body = memchr::memchr(b'\n', bytes).map_or(&b""[..], |i| &bytes[i + 1..]);
    while !body.is_empty() && big.len() <= 4096 + 200 {
        big.extend_from_slice(body);
    }
    let whole = format!("{:?}", parse_bytes_any(name, &big, &options()));
    let step = (seed % 500) as usize + 400;
    let mut splits: Vec<u64> = (1..big.len() / step).map(|i| (i * step) as u64).collect();
    splits.extend(
        memchr::memchr_iter(b'\n', &big)
            .skip(1)
            .step_by(29)
            .map(|i| i as u64 + 1),
    );
    splits.sort_unstable();
    splits.dedup();
    let slice = (seed % 64) as usize + 61;
    let (par, _) = parse_parallel(name, &big, &options(), 4096, &splits, 2, slice);
    assert_eq!(
        whole,
        format!("{par:?}"),
        "the parallel read gives another result"
    );
}

/// Parses `bytes` as [`crate::read_path`] reads a large CSV file in parallel:
/// `head` bytes pushed first (in slices of `slice` bytes), then the rest cut into
/// parts at `splits` (increasing byte offsets after `head`), read by `threads`
/// threads and joined. Returns the result and how many parts had to be read again
/// serially. Whatever the cuts, the result is the serial read's.
#[cfg(not(target_family = "wasm"))]
pub fn parse_parallel(
    name: &str,
    bytes: &[u8],
    options: &Options,
    head: usize,
    splits: &[u64],
    threads: usize,
    slice: usize,
) -> (Result<Parsed, ParseErrors>, usize) {
    let mut opts = options.clone();
    opts.size_hint.get_or_insert(bytes.len() as u64);
    let mut p = Parser::new(name, opts);
    let head = head.min(bytes.len());
    let mut again = 0;
    if bytes[..head]
        .chunks(slice.max(1))
        .all(|c| p.push(c).is_ok())
    {
        let splits: Vec<u64> = splits
            .iter()
            .copied()
            .filter(|&s| s > head as u64 && s < bytes.len() as u64)
            .collect();
        let size = (head as u64, bytes.len() as u64);
        let mut buf = vec![0u8; slice.max(1)];
        again = crate::csv::parallel::run(&mut p, &bytes, size, &splits, threads, &mut buf)
            .expect("memory does not fail to read");
    }
    (p.finish_any(), again)
}
