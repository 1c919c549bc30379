//! `calibscope_core::lab::PAPER_TABLE5` against its source: the Perfect rows of
//! Table 5 at N = 100 and N = 10,000 as printed in `shared/seeds/002_*.txt`
//! ("Beyond ECE"), percentages divided by 100.

use calibscope_core::lab::PAPER_TABLE5;
use calibscope_core::synth::Distribution;

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

#[test]
fn table5_transcription_matches_the_seed() {
    let dir = shared().join("seeds");
    let file = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().starts_with("002_"))
        .expect("seed 002 is present");
    let text = std::fs::read_to_string(file.path()).unwrap();
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
        let values: Vec<f64> = cells[2..10]
            .iter()
            .map(|c| match c.strip_suffix('%') {
                Some(p) => p.parse::<f64>().unwrap() / 100.0,
                None => c.parse::<f64>().unwrap(),
            })
            .collect();
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
