//! Reading many rows at once ([`crate::table::TableBuilder::fast_rows`], past the
//! 1024th row) gives what reading them one by one gives: the same dataset, or the
//! same errors at the same rows and lines, whatever the rows after the 1024th hold
//! and wherever the slices are cut.

use proptest::prelude::*;

use crate::table::ROW_BY_ROW;
use crate::{Options, ParseErrors, Parsed, Parser};

/// A line that is not a plain row of `label,score…`, or one that is but differs.
fn odd_line(kind: u8, width: usize) -> String {
    let scores = |s: &str| vec![s; width].join(",");
    match kind % 16 {
        0 => String::new(),                                       // a blank line
        1 => format!("1,{}\r", scores("0.25")),                   // CRLF (with the `\n` below)
        2 => format!("0,{}\r0,{}", scores("0.5"), scores("0.5")), // a lone CR
        3 => format!("\"1\",{}", scores("0.5")),                  // quoted
        4 => format!("1,{}", scores("nan")),
        5 => format!("7,{}", scores("0.5")), // label out of range
        6 => format!("1,{},9", scores("0.5")), // a field too many
        7 => format!("1,{}", scores(" 0.5")), // a space
        8 => format!("cat,{}", scores("0.5")), // a class name
        9 => format!("1,{}", scores("1.5")), // not a probability
        10 => format!("1,{}", scores("5e-1")),
        11 => format!("0001,{}", scores("0.123456789012345678901234567")),
        12 => format!("1,{}", scores("-0")),
        13 => format!("1,{}", scores("")), // empty fields
        14 => "1".to_string(),             // too few fields
        _ => format!("1,{}", scores(&"9".repeat(40))),
    }
}

/// `rows` plain rows of `width` scores after a header, with `odd` lines put in
/// at the given positions.
fn table(width: usize, rows: usize, odd: &[(usize, u8)], crlf: bool) -> Vec<u8> {
    let header = if width == 1 {
        "label,p".to_string()
    } else {
        let cols: Vec<String> = (0..width).map(|j| format!("p_{j}")).collect();
        format!("label,{}", cols.join(","))
    };
    let eol = if crlf { "\r\n" } else { "\n" };
    let mut text = header + eol;
    for i in 0..rows {
        for &(at, kind) in odd {
            if at == i {
                text += &odd_line(kind, width);
                text += eol;
            }
        }
        let label = i % width.max(2);
        let score = |j: usize| {
            let x = ((i * 31 + j * 17) % 1000) as f64 / 1000.0;
            if width == 1 {
                format!("{x}")
            } else if j == label {
                format!("{}", 1.0 - (width - 1) as f64 * 0.001)
            } else {
                "0.001".to_string()
            }
        };
        let scores: Vec<String> = (0..width).map(score).collect();
        text += &format!("{label},{}{eol}", scores.join(","));
    }
    text.into_bytes()
}

fn read(
    bytes: &[u8],
    slices: &[usize],
    options: &Options,
    row_by_row: bool,
) -> Result<Parsed, ParseErrors> {
    ROW_BY_ROW.set(row_by_row);
    let mut p = Parser::new("t.csv", options.clone());
    let mut pos = 0;
    for &n in slices.iter().cycle() {
        if pos >= bytes.len() {
            break;
        }
        let end = (pos + n.max(1)).min(bytes.len());
        if p.push(&bytes[pos..end]).is_err() {
            break;
        }
        pos = end;
    }
    let r = p.finish_any();
    ROW_BY_ROW.set(false);
    r
}

/// The two outcomes as text (NaN scores compare equal that way), or where they
/// first differ.
fn differ(a: &Result<Parsed, ParseErrors>, b: &Result<Parsed, ParseErrors>) -> Option<String> {
    let (a, b) = (format!("{a:?}"), format!("{b:?}"));
    let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y);
    match at {
        None if a.len() == b.len() => None,
        _ => {
            let at = at.unwrap_or(a.len().min(b.len())).saturating_sub(200);
            let cut = |s: &str| s.get(at..(at + 600).min(s.len())).unwrap_or("").to_string();
            Some(format!("at once: …{}\nby row:  …{}", cut(&a), cut(&b)))
        }
    }
}

#[test]
fn a_plain_file_reads_the_same_both_ways() {
    let bytes = table(1, 3000, &[], false);
    let a = read(&bytes, &[1 << 20], &Options::default(), false);
    let b = read(&bytes, &[1 << 20], &Options::default(), true);
    assert_eq!(differ(&a, &b), None);
    let Ok(Parsed::Dataset(d)) = a else {
        panic!("a dataset")
    };
    assert_eq!(d.n(), 3000);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]
    #[test]
    fn many_rows_at_once_equal_row_by_row(
        width in prop_oneof![Just(1usize), Just(3usize)],
        rows in 1000usize..2600,
        odd in prop::collection::vec((0usize..2600, any::<u8>()), 0..6),
        crlf in any::<bool>(),
        slices in prop::collection::vec(prop_oneof![1usize..64, 1usize..5000, Just(1usize << 20)], 1..6),
        max_cells in prop_oneof![Just(u64::MAX), 1500u64..8000],
        hint in any::<bool>(),
    ) {
        let bytes = table(width, rows, &odd, crlf);
        let options = Options {
            max_cells,
            size_hint: hint.then_some(bytes.len() as u64),
            ..Options::default()
        };
        let at_once = read(&bytes, &slices, &options, false);
        let by_row = read(&bytes, &slices, &options, true);
        let d = differ(&at_once, &by_row);
        prop_assert!(d.is_none(), "{}", d.unwrap_or_default());
    }
}
