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
    /// gzip-compressed text: an input that starts with the gzip magic is parsed as
    /// it is (the header, deflate and trailer readers); any other is compressed
    /// first ([`gzip`]) and must read as the same input uncompressed does.
    Gzip,
    /// zstd-compressed text: an input that starts with the zstd magic is parsed as
    /// it is; any other is wrapped in a frame of raw blocks ([`zstd_raw`]) when its
    /// first byte is odd (and must read as it does uncompressed), else the magic is
    /// prepended (the frame and block readers on arbitrary bytes).
    Zstd,
    /// Parquet (the `columnar` feature): an input that starts with `PAR1` is parsed
    /// as it is; any other is put between `PAR1` magics (the footer reader on
    /// arbitrary bytes).
    #[cfg(feature = "columnar")]
    Parquet,
    /// Arrow IPC, file or stream (the `columnar` feature): an input that starts with
    /// `ARROW1` or the stream's `FF FF FF FF` is parsed as it is; any other is put
    /// between the file format's magics.
    #[cfg(feature = "columnar")]
    Arrow,
}

/// `data` as one gzip member (deflate level 1, no name), as `gzip -1` writes it.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut v = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    v.extend(miniz_oxide::deflate::compress_to_vec(data, 1));
    v.extend(crc32fast::hash(data).to_le_bytes());
    v.extend((data.len() as u32).to_le_bytes());
    v
}

/// `data` as one zstd frame of raw (stored) blocks of at most `block` bytes, with
/// no checksum.
pub fn zstd_raw(data: &[u8], block: usize) -> Vec<u8> {
    // magic, frame header: no single segment, no content size; window 1 MiB
    let mut v = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50];
    let block = block.clamp(1, 128 * 1024);
    let mut chunks: Vec<&[u8]> = data.chunks(block).collect();
    if chunks.is_empty() {
        chunks.push(&[]);
    }
    for (i, c) in chunks.iter().enumerate() {
        let last = u32::from(i + 1 == chunks.len());
        let h = last | ((c.len() as u32) << 3);
        v.extend(&h.to_le_bytes()[..3]);
        v.extend_from_slice(c);
    }
    v
}

/// Whether a fuzz input is compressed here (and must read as it does plain).
fn wrapped(target: Target, data: &[u8]) -> bool {
    match target {
        Target::Gzip => !data.starts_with(b"\x1f\x8b"),
        Target::Zstd => {
            !data.starts_with(b"\x28\xb5\x2f\xfd") && data.first().is_some_and(|b| b & 1 == 1)
        }
        _ => false,
    }
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
        Target::Gzip if wrapped(target, data) => return gzip(data),
        Target::Gzip => b"",
        Target::Zstd if wrapped(target, data) => return zstd_raw(data, 1 + data.len() / 3),
        Target::Zstd if data.starts_with(b"\x28\xb5\x2f\xfd") => b"",
        Target::Zstd => b"\x28\xb5\x2f\xfd",
        #[cfg(feature = "columnar")]
        Target::Parquet if data.starts_with(b"PAR1") => b"",
        #[cfg(feature = "columnar")]
        Target::Parquet => return [b"PAR1", data, b"PAR1"].concat(),
        #[cfg(feature = "columnar")]
        Target::Arrow if data.starts_with(b"ARROW1") || data.starts_with(b"\xff\xff\xff\xff") => {
            b""
        }
        #[cfg(feature = "columnar")]
        Target::Arrow => return [b"ARROW1\0\0", data, b"ARROW1"].concat(),
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
        Target::Gzip => "fuzz.csv.gz",
        Target::Zstd => "fuzz.csv.zst",
        #[cfg(feature = "columnar")]
        Target::Parquet => "fuzz.parquet",
        #[cfg(feature = "columnar")]
        Target::Arrow => "fuzz.arrow",
    };
    let whole = format!("{:?}", parse_bytes_any(name, &bytes, &options()));
    if wrapped(target, data) {
        // what was compressed here reads as it does plain (but for the words that
        // say the content was decompressed)
        let plain = format!("{:?}", parse_bytes_any(name, data, &options()));
        let codec = if target == Target::Gzip {
            "gzip"
        } else {
            "zstd"
        };
        let said = format!("after {codec} decompression, ");
        assert_eq!(
            whole.replace(&said, ""),
            plain,
            "compressed and plain differ"
        );
    }
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
