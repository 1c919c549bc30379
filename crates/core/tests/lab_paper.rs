//! `calibscope_core::lab::PAPER_TABLE5` and `PAPER_TABLES_8_9` against their source:
//! the Perfect rows of Table 5 at N = 100 and N = 10,000, and every row of Tables 8
//! and 9, as printed in `shared/seeds/002_*.txt` ("Beyond ECE"), percentages divided
//! by 100.

use calibscope_core::lab::{PAPER_TABLE5, PAPER_TABLES_8_9};
use calibscope_core::synth::{Distribution, Mode};

use calibscope_test_support::shared;

fn dist_of(label: &str) -> Option<Distribution> {
    let names = [
        ("Uniform", Distribution::Uniform),
        ("Skew High", Distribution::SkewHigh),
        ("Skew Low", Distribution::SkewLow),
        ("Bimodal", Distribution::Bimodal),
        ("Tight Hi", Distribution::TightHi),
        ("Tight Lo", Distribution::TightLo),
        ("Normal", Distribution::Normal),
        ("Log-Uniform Low", Distribution::LogUniformLow),
        ("Log-Uniform High", Distribution::LogUniformHigh),
        ("Bell", Distribution::Bell),
    ];
    names.iter().find(|(n, _)| *n == label).map(|(_, d)| *d)
}

fn mode_of(label: &str) -> Option<Mode> {
    let names = [
        ("Random 0.5", Mode::Random05),
        ("Perfect", Mode::Perfect),
        ("Underconf $0.2+0.8c$", Mode::UnderconfLinear),
        ("Underconf $\\sqrt{c}$", Mode::UnderconfSqrt),
        ("Random over c", Mode::RandomOver),
        ("Overconf $1-\\sqrt{1-c}$", Mode::OverconfSqrt),
        ("Overconf $0.5c$", Mode::OverconfHalf),
        ("Random under c", Mode::RandomUnder),
    ];
    names.iter().find(|(n, _)| *n == label).map(|(_, m)| *m)
}

fn seed_text() -> String {
    let dir = shared().join("seeds");
    let file = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().starts_with("002_"))
        .expect("seed 002 is present");
    std::fs::read_to_string(file.path()).unwrap()
}

/// A printed cell as a fraction (`12.34%` -> 0.1234).
fn value(cell: &str) -> f64 {
    match cell.strip_suffix('%') {
        Some(p) => p.parse::<f64>().unwrap() / 100.0,
        None => cell.parse::<f64>().unwrap(),
    }
}

#[test]
fn tables_8_and_9_transcription_matches_the_seed() {
    let text = seed_text();
    let mut found = 0;
    for caption in ["Table 8: Results for all", "Table 9: Results for all"] {
        let start = text.find(caption).expect(caption);
        assert!(text[start..].lines().next().unwrap().contains("N = 1000"));
        let mut rows = 0;
        for line in text[start..].lines().skip(1) {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            if cells.len() < 11 {
                if rows > 0 && line.trim().is_empty() {
                    break;
                }
                continue;
            }
            let (Some(d), Some(m)) = (dist_of(cells[1]), mode_of(cells[2])) else {
                assert!(
                    dist_of(cells[1]).is_none(),
                    "unknown mode {:?} in {line}",
                    cells[2]
                );
                continue;
            };
            let values: Vec<f64> = cells[3..11].iter().map(|c| value(c)).collect();
            let row = PAPER_TABLES_8_9
                .iter()
                .find(|r| r.dist == d && r.mode == m)
                .unwrap_or_else(|| panic!("{d:?} {m:?} is missing"));
            for (got, want) in row.values.iter().zip(&values) {
                assert!(
                    (got - want).abs() < 1e-12,
                    "{d:?} {m:?}: {:?} vs {values:?}",
                    row.values
                );
            }
            rows += 1;
        }
        found += rows;
    }
    assert_eq!(found, 80);
    assert_eq!(PAPER_TABLES_8_9.len(), 80);
}

#[test]
fn table5_transcription_matches_the_seed() {
    let text = seed_text();
    let start = text
        .find("Table 5: Results on calibrated")
        .expect("Table 5");
    let mut n = None;
    let mut found = 0;
    for line in text[start..].lines().skip(1) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 3 {
            if found > 0 && line.trim().is_empty() {
                break;
            }
            continue;
        }
        let label = cells[1];
        if let Some(rest) = label.strip_prefix("N = ") {
            let digits: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ',')
                .collect();
            n = Some(digits.replace(',', "").parse::<usize>().unwrap());
            continue;
        }
        let (Some(n), Some(d)) = (n, dist_of(label)) else {
            continue;
        };
        let values: Vec<f64> = cells[2..10].iter().map(|c| value(c)).collect();
        let Some(row) = PAPER_TABLE5.iter().find(|r| r.n == n && r.dist == d) else {
            assert_eq!(n, 100_000, "a row of N = {n} is missing");
            continue;
        };
        for (got, want) in row.values.iter().zip(&values) {
            assert!(
                (got - want).abs() < 1e-12,
                "{d:?} N = {n}: {:?} vs {values:?}",
                row.values
            );
        }
        found += 1;
    }
    assert_eq!(found, PAPER_TABLE5.len());
}
