//! The size limits: a file over `max_file_bytes` and data over `max_cells` are
//! refused with a clear message before their memory is reserved.

use crate::common;
use common::build::*;

use calibscope_io::{parse_bytes, ErrorCode, Options, ParseErrors, Parser};

fn limited(max_file_bytes: u64, max_cells: u64) -> Options {
    Options {
        max_file_bytes,
        max_cells,
        ..Options::default()
    }
}

fn table(rows: usize) -> Vec<u8> {
    let mut s = String::from("label,p_0,p_1,p_2\n");
    for i in 0..rows {
        s.push_str(&format!("{},0.5,0.25,0.25\n", i % 3));
    }
    s.into_bytes()
}

fn codes(e: &ParseErrors) -> Vec<ErrorCode> {
    e.errors.iter().map(|e| e.code).collect()
}

#[test]
fn a_file_over_the_size_limit_is_refused_before_it_is_read() {
    let bytes = table(100);
    // the size is known up front (a browser File, a file on disk)
    let e = parse_bytes("big.csv", &bytes, &limited(1000, u64::MAX)).unwrap_err();
    assert_eq!(codes(&e), [ErrorCode::FileTooLarge]);
    assert_eq!(
        e.errors[0].message,
        format!(
            "the file is {}.{} kB, more than the limit of 1.0 kB",
            bytes.len() / 1000,
            bytes.len() % 1000 / 100
        )
    );
    // a stream of unknown size is stopped when it passes the limit
    let mut p = Parser::new("stream.csv", limited(1000, u64::MAX));
    let mut refused_at = None;
    for (i, chunk) in bytes.chunks(256).enumerate() {
        if p.push(chunk).is_err() {
            refused_at = Some(i);
            break;
        }
    }
    assert_eq!(
        refused_at,
        Some(3),
        "the fourth 256-byte slice passes 1000 bytes"
    );
    assert_eq!(codes(&p.finish().unwrap_err()), [ErrorCode::FileTooLarge]);
    // at the limit exactly, the file is read
    assert!(parse_bytes("ok.csv", &bytes, &limited(bytes.len() as u64, u64::MAX)).is_ok());
}

#[test]
fn a_npy_over_the_cell_limit_is_refused_from_its_header() {
    // 1000 x 10 float32 declared, only the header and a few bytes present: the
    // refusal comes from the header, not from running out of data
    let full = npy("<f4", &[1000, 10], false, &le_f32(&vec![0.1; 10_000]), 1);
    let head = &full[..200];
    let mut p = Parser::new("logits.npy", limited(u64::MAX, 9_999));
    let err = p.push(head).unwrap_err();
    assert_eq!(codes(&err), [ErrorCode::TooManyCells]);
    assert!(
        err.errors[0].message.contains("10000 values"),
        "{}",
        err.errors[0].message
    );
    // at the limit, it reads (as an unpaired array: the limit is not the error)
    let e = parse_bytes("logits.npy", &full, &limited(u64::MAX, 10_000));
    if let Err(e) = e {
        assert!(!codes(&e).contains(&ErrorCode::TooManyCells));
    }
    // an .npz member too
    let z = zip(
        &[
            ("labels.npy", &labels_npy(&[0; 1000])),
            ("logits.npy", &full),
        ],
        false,
    );
    let e = parse_bytes("m.npz", &z, &limited(u64::MAX, 9_999)).unwrap_err();
    assert!(codes(&e).contains(&ErrorCode::TooManyCells), "{e}");
}

#[test]
fn a_table_over_the_cell_limit_is_refused_once() {
    let bytes = table(3000);
    // without a size: when the rows pass the limit (3 values a row)
    let mut p = Parser::new("t.csv", limited(u64::MAX, 5000));
    for chunk in bytes.chunks(4096) {
        if p.push(chunk).is_err() {
            break;
        }
    }
    let e = p.finish().unwrap_err();
    assert_eq!(
        codes(&e),
        [ErrorCode::TooManyCells],
        "one error, not one per row"
    );
    assert_eq!(
        e.errors[0].location.line,
        Some(1668),
        "row 1667 (line 1668) makes 5001 values"
    );
    assert!(
        e.errors[0].message.contains("5001 values"),
        "{}",
        e.errors[0].message
    );
    // with the size known: from the estimate after 1024 rows, before reserving
    let e = parse_bytes("t.csv", &bytes, &limited(u64::MAX, 5000)).unwrap_err();
    assert_eq!(codes(&e), [ErrorCode::TooManyCells]);
    assert_eq!(e.errors[0].location.line, Some(1025), "at row 1024");
    assert!(
        e.errors[0].message.contains("about"),
        "{}",
        e.errors[0].message
    );
    // under the limit (with room for the estimate's error), nothing changes
    let ds = parse_bytes("t.csv", &bytes, &limited(u64::MAX, 9100)).unwrap();
    assert_eq!(ds.models[0].1.n(), 3000);
}
