//! gzip- and zstd-compressed text reads as the same text uncompressed: pandas'
//! `to_csv` output (crates/io/tests/data/sklearn), several gzip members, several
//! zstd frames with a skippable one, JSON Lines, in slices of any size, and from a
//! path (the parallel CSV reader is not used for compressed files).

use std::path::Path;

use calibscope_io::fuzz::{gzip, zstd_raw};
use calibscope_io::{parse_bytes, read_path, Dataset, Options, Parser};

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/sklearn")
            .join(name),
    )
    .unwrap()
}

fn same(a: &Dataset, b: &Dataset) {
    assert_eq!(a.models, b.models);
    assert_eq!(a.class_names, b.class_names);
    assert_eq!(a.format, b.format);
    assert_eq!(a.detection, b.detection);
}

fn in_slices(name: &str, bytes: &[u8], size: usize) -> Dataset {
    let mut p = Parser::new(name, Options::default());
    for c in bytes.chunks(size) {
        p.push(c).unwrap();
    }
    p.finish().unwrap()
}

#[test]
fn pandas_gzip_and_zstd_read_as_the_plain_csv() {
    let plain = parse_bytes(
        "digits_canonical.csv",
        &data("digits_canonical.csv"),
        &Options::default(),
    )
    .unwrap();
    for name in ["digits_canonical.csv.gz", "digits_canonical.csv.zst"] {
        let bytes = data(name);
        let whole = parse_bytes(name, &bytes, &Options::default()).unwrap();
        same(&whole, &plain);
        assert_eq!(whole.name, "digits_canonical");
        for size in [1, 7, 4096, 1 << 20] {
            same(&in_slices(name, &bytes, size), &plain);
        }
    }
}

#[test]
fn members_frames_and_json_lines() {
    let text = data("iris_canonical.csv");
    let plain = parse_bytes("iris.csv", &text, &Options::default()).unwrap();
    let cut = text.len() / 3;
    // two gzip members, as `cat a.gz b.gz` makes
    let mut two = gzip(&text[..cut]);
    two.extend(gzip(&text[cut..]));
    same(
        &parse_bytes("iris.csv.gz", &two, &Options::default()).unwrap(),
        &plain,
    );
    // zstd: a skippable frame, then two frames of small raw blocks
    let mut frames = vec![0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3];
    frames.extend(zstd_raw(&text[..cut], 100));
    frames.extend(zstd_raw(&text[cut..], 1000));
    for size in [1, 13, 1 << 16] {
        same(&in_slices("iris.csv.zst", &frames, size), &plain);
    }
    // JSON Lines
    let jsonl = b"{\"label\": 0, \"probs\": [0.9, 0.1]}\n{\"label\": 1, \"probs\": [0.3, 0.7]}\n";
    let plain = parse_bytes("a.jsonl", jsonl, &Options::default()).unwrap();
    same(
        &parse_bytes("a.jsonl.gz", &gzip(jsonl), &Options::default()).unwrap(),
        &plain,
    );
    same(
        &parse_bytes("a.jsonl.zst", &zstd_raw(jsonl, 10), &Options::default()).unwrap(),
        &plain,
    );
}

/// A compressed file of more than the parallel reader's 8 MiB, read from its path
/// on two threads: the serial streaming read of its text.
#[test]
fn a_large_compressed_file_from_a_path() {
    let mut text = b"label,p_0,p_1,p_2\n".to_vec();
    for i in 0..400_000u32 {
        let a = (i % 89) as f64 / 300.0;
        let b = (i % 53) as f64 / 300.0;
        text.extend(format!("{},{a},{b},{}\n", i % 3, 1.0 - a - b).bytes());
    }
    let dir = std::env::temp_dir().join(format!("calibscope_gz_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plain = parse_bytes("big.csv", &text, &Options::default()).unwrap();
    let packed = zstd_raw(&text, 128 * 1024);
    assert!(packed.len() > 8 << 20);
    let path = dir.join("big.csv.zst");
    std::fs::write(&path, &packed).unwrap();
    let opts = Options {
        threads: 2,
        ..Default::default()
    };
    same(&read_path(&path, &opts).unwrap(), &plain);
    std::fs::write(dir.join("big.csv.gz"), gzip(&text)).unwrap();
    same(&read_path(&dir.join("big.csv.gz"), &opts).unwrap(), &plain);
    std::fs::remove_dir_all(&dir).unwrap();
}
