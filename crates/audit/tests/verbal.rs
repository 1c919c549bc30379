//! A verbalised-confidence table with abstentions (`crates/io/tests/data/verbal`):
//! the audit is of the answered questions, and the document carries the coverage and
//! the risk–coverage curve, whose area is recomputed here from its definition.

use calibscope_audit::{audit_document, AuditOptions};
use calibscope_io::{read_path, Options};
use std::path::PathBuf;

#[test]
fn coverage_and_the_risk_coverage_area_of_the_answered_questions() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../io/tests/data/verbal/verbal_percent.csv");
    let parsed = read_path(&path, &Options::default());
    let doc = audit_document(&parsed, "verbal_percent.csv", &AuditOptions::for_n(46));
    assert_eq!(doc["input"]["n"], 46);
    assert_eq!(doc["answered"], 46);
    assert_eq!(doc["total"], 60);
    assert_eq!(doc["coverage"].as_f64(), Some(46.0 / 60.0));
    // the answered rows as (confidence, correct), from the file itself
    let text = std::fs::read_to_string(&path).unwrap();
    let answered: Vec<(f64, bool)> = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let c = f[1].trim_end_matches('%');
            (!c.is_empty()).then(|| (c.parse::<f64>().unwrap() / 100.0, f[2] == "1"))
        })
        .collect();
    // AURC by its definition: each answer adds the risk of the answers at least as
    // confident as it, over the 60 questions
    let area: f64 = answered
        .iter()
        .map(|&(c, _)| {
            let kept: Vec<_> = answered.iter().filter(|x| x.0 >= c).collect();
            kept.iter().filter(|x| !x.1).count() as f64 / kept.len() as f64
        })
        .sum::<f64>()
        / 60.0;
    let got = doc["risk_coverage"]["area"].as_f64().unwrap();
    assert!((got - area).abs() < 1e-12, "{got} vs {area}");
    let points = doc["risk_coverage"]["points"].as_array().unwrap();
    assert_eq!(
        points.last().unwrap()["coverage"].as_f64(),
        Some(46.0 / 60.0)
    );
    let acc = answered.iter().filter(|x| x.1).count() as f64 / 46.0;
    assert!((doc["binning_free"]["accuracy"].as_f64().unwrap() - acc).abs() < 1e-15);
}
