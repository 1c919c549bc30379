//! The decompressor streams: what has arrived is parsed before the rest comes.

use super::*;
use crate::fuzz::{gzip, zstd_raw};

fn table(rows: usize) -> Vec<u8> {
    let mut t = b"label,p_0,p_1\n".to_vec();
    for i in 0..rows {
        let p = (i % 97) as f64 / 97.0;
        t.extend(format!("{},{p},{}\n", i % 2, 1.0 - p).bytes());
    }
    t
}

/// Half of the compressed bytes pushed: the text before them is parsed already
/// (less the 1 MiB window zstd holds back), and the decompressor holds no more
/// than a block of the input.
#[test]
fn half_the_input_is_parsed_before_the_rest_arrives() {
    let plain = table(200_000);
    for (codec, packed) in [
        (Codec::Gzip, gzip(&plain)),
        (Codec::Zstd, zstd_raw(&plain, 100_000)),
    ] {
        let mut d = Decompress::new(codec, "t.csv", &Options::default());
        let half = packed.len() / 2;
        for c in packed[..half].chunks(64 * 1024) {
            d.push(c);
            assert!(d.buf.len() <= ZSTD_BLOCK_MAX + 64 * 1024, "{codec:?}");
        }
        let seen = d.inner.bytes_read();
        assert!(
            seen as f64 > 0.5 * plain.len() as f64 - (1 << 20) as f64 - 300_000.0,
            "{codec:?}: {seen} of {} bytes parsed",
            plain.len()
        );
        d.push(&packed[half..]);
        let ds = d.finish_any().unwrap();
        let crate::Parsed::Dataset(ds) = ds else {
            panic!("a table")
        };
        assert_eq!(ds.n(), 200_000);
    }
}

/// More decompressed bytes than `max_decompressed`: refused as a compression bomb.
#[test]
fn the_decompressed_size_is_limited() {
    let plain = table(10_000);
    let opts = Options {
        max_decompressed: 50_000,
        ..Default::default()
    };
    let mut p = Parser::new("bomb.csv.gz", opts);
    let _ = p.push(&gzip(&plain));
    let e = p.finish().unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::CompressedBad);
    assert!(e.errors[0].message.contains("compression bomb"), "{e}");
}
