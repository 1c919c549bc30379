//! The bad-input corpus: every file under tests/corpus/bad/ (written by
//! tests/corpus/make_bad.py) gives exactly the errors in its `.expected` sibling, one
//! line per error: `code key=value ... | message`. Parsed whole and in random slices,
//! with the same result. `CALIBSCOPE_BLESS=1` rewrites the expectations (review them!).

use std::path::PathBuf;

use calibscope_io::{parse_bytes, Options, ParseErrors, Parser};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/bad")
}

fn render(e: &ParseErrors) -> String {
    let mut s = String::new();
    for e in &e.errors {
        s.push_str(e.code.code());
        let l = &e.location;
        if let Some(r) = l.row {
            s.push_str(&format!(" row={r}"));
        }
        if let Some(r) = l.line {
            s.push_str(&format!(" line={r}"));
        }
        if let Some(m) = &l.model {
            s.push_str(&format!(" model={m}"));
        }
        if let Some(r) = l.sample {
            s.push_str(&format!(" sample={r}"));
        }
        if let Some(c) = &l.column {
            s.push_str(&format!(" column={c}"));
        }
        if let Some(m) = &l.member {
            s.push_str(&format!(" member={m}"));
        }
        if let Some(o) = l.offset {
            s.push_str(&format!(" offset={o}"));
        }
        s.push_str(" | ");
        s.push_str(&e.message);
        s.push('\n');
    }
    if e.more > 0 {
        s.push_str(&format!("... {} more\n", e.more));
    }
    s
}

fn parse_split(name: &str, bytes: &[u8], seed: u64) -> Result<calibscope_io::Dataset, ParseErrors> {
    let mut p = Parser::new(name, Options::default());
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut pos = 0;
    while pos < bytes.len() {
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51afd7ed558ccd);
        x ^= x >> 29;
        let len = 1 + (x % 97) as usize * if x % 5 == 0 { 100 } else { 1 };
        let end = (pos + len).min(bytes.len());
        if p.push(&bytes[pos..end]).is_err() {
            break;
        }
        pos = end;
    }
    p.finish()
}

#[test]
fn every_bad_input_gives_its_expected_errors() {
    let bless = std::env::var("CALIBSCOPE_BLESS").is_ok();
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_none_or(|e| e != "expected"))
        .collect();
    files.sort();
    assert!(files.len() >= 40, "{} bad inputs", files.len());
    let mut failures = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(f).unwrap();
        let got = match parse_bytes(&name, &bytes, &Options::default()) {
            Ok(d) => format!("OK {d:?}"),
            Err(e) => render(&e),
        };
        let exp_path = f.with_file_name(format!("{name}.expected"));
        if bless {
            std::fs::write(&exp_path, &got).unwrap();
        }
        let mut want = std::fs::read_to_string(&exp_path).unwrap_or_default();
        // a build without the Parquet / Arrow reader (the web page's) refuses those
        // files whole, saying where they are read
        let columnar = bytes.starts_with(b"PAR1")
            || bytes.starts_with(b"ARROW1")
            || bytes.starts_with(b"\xff\xff\xff\xff");
        if columnar && !cfg!(feature = "columnar") {
            assert!(
                got.starts_with("columnar_unsupported | this is "),
                "{name}: {got}"
            );
            assert!(
                got.contains("calibscope command-line tool"),
                "{name}: {got}"
            );
            want = got.clone();
        }
        if got != want {
            failures.push(format!("{name}:\n  got:\n{got}  want:\n{want}"));
        }
        // the same in random slices
        for seed in 0..4 {
            let split = match parse_split(&name, &bytes, seed) {
                Ok(d) => format!("OK {d:?}"),
                Err(e) => render(&e),
            };
            if split != got {
                failures.push(format!("{name} split {seed}:\n{split}\nvs whole:\n{got}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ten_megabyte_single_line() {
    let mut bytes = b"label,p,".to_vec();
    bytes.resize(10 << 20, b'x');
    let e = parse_bytes("long.csv", &bytes, &Options::default()).unwrap_err();
    assert_eq!(render(&e), "record_too_long line=1 | a record longer than 8 MiB (no line break found); is this really a CSV file?\n");
    // a 10 MB data line after a good header
    let mut bytes = b"label,p\n0,".to_vec();
    bytes.resize(10 << 20, b'7');
    let e = parse_bytes("long.csv", &bytes, &Options::default()).unwrap_err();
    assert_eq!(e.codes(), ["record_too_long"]);
    assert_eq!(e.errors[0].location.line, Some(2));
}

#[test]
fn at_most_100_errors_are_kept() {
    let mut s = String::from("label,p\n");
    for i in 0..250 {
        s.push_str(&format!(
            "{},{}\n",
            i % 2,
            if i % 2 == 0 { "x" } else { "1.5" }
        ));
    }
    let e = parse_bytes("many.csv", s.as_bytes(), &Options::default()).unwrap_err();
    assert_eq!(e.errors.len(), 100);
    assert_eq!(e.more, 150);
    // in row order, both kinds interleaved
    assert_eq!(e.errors[0].code.code(), "bad_number");
    assert_eq!(e.errors[1].code.code(), "prob_out_of_range");
    assert!(e
        .errors
        .windows(2)
        .all(|w| w[0].location.row <= w[1].location.row));
    let opts = Options {
        max_errors: 5,
        ..Default::default()
    };
    let e = parse_bytes("many.csv", s.as_bytes(), &opts).unwrap_err();
    assert_eq!((e.errors.len(), e.more), (5, 245));
}

#[test]
fn errors_read_as_sentences() {
    let e = parse_bytes(
        "run.csv",
        b"label,p_0,p_1,p_2\n0,0.5,0.3,0.2\n1,0.47,0.2,0.2\n",
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "run.csv: line 3, row 1: probabilities sum to 0.87; expected 1 ± 0.001 (are these logits? pass --logits) [row_sum]"
    );
}
