//! The engine's aggregate path against the in-memory audit of the same rows: every
//! value marked exact within 1e-12 relative, every bounded one within its bound, and
//! the explorer's tables (exact at m dividing the grid, bounded elsewhere).

use super::*;
use crate::proto::FromWorker;
use crate::Session;
use calibscope_audit::{audit_json, AuditOptions, FileInfo};
use calibscope_bins::table::{to_csv, to_json};
use calibscope_bins::{aggregate_set, Aggregate};
use calibscope_io::{assemble, Options, Parser};
use calibscope_test_support::shared;

fn dataset(relative: &str) -> calibscope_io::Dataset {
    let path = shared().join(relative);
    let bytes = std::fs::read(&path).expect("the fixture");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut p = Parser::new(name.clone(), Options::default());
    p.push(&bytes).unwrap();
    assemble(vec![(name, p.finish_any())], &Options::default()).unwrap()
}

fn aggregate_of(ds: &calibscope_io::Dataset) -> Aggregate {
    let mut agg = Aggregate::new();
    for (name, set) in &ds.models {
        agg.models.insert(name.clone(), aggregate_set(name, set));
    }
    agg
}

fn get<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    calibscope_audit::summary::get_dotted(doc, path)
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-12 * want.abs().max(1e-300) || got == want
}

/// Every value of the aggregate's audit document against the rows' audit.
fn check_document(doc: &Value, truth: &Value, what: &str) -> (usize, usize) {
    let marks = doc["aggregate"]["values"].as_object().expect("marks");
    let (mut exact, mut bounded) = (0, 0);
    for (path, bound) in marks {
        let got = get(doc, path).and_then(Value::as_f64);
        let want = get(truth, path).and_then(Value::as_f64);
        match (got, want, bound.as_f64()) {
            (Some(g), Some(w), None) => {
                assert!(close(g, w), "{what} {path}: {g} vs {w}");
                exact += 1;
            }
            (Some(g), Some(w), Some(b)) => {
                assert!(
                    (g - w).abs() <= b * (1.0 + 1e-9) + 1e-15,
                    "{what} {path}: {g} vs {w} ± {b}"
                );
                bounded += 1;
            }
            (None, None, _) => {}
            (g, w, _) => panic!("{what} {path}: {g:?} vs {w:?}"),
        }
    }
    (exact, bounded)
}

#[test]
fn an_aggregate_opens_with_the_audit_of_its_rows() {
    for fixture in [
        "fixtures/real/breast_cancer_rf_p.csv",
        "fixtures/real/digits_logreg_C1_logits.csv",
        "fixtures/synthetic/syn_uniform_perfect_n2000_s1_toplabel.csv",
    ] {
        let ds = dataset(fixture);
        let agg = aggregate_of(&ds);
        let json = serde_json::to_string(&to_json(&agg)).unwrap();
        let csv = to_csv(&agg);
        for (form, bytes) in [("json", json.as_bytes()), ("csv", csv.as_bytes())] {
            assert!(looks_like_aggregate(bytes), "{fixture} {form}");
            let mut s = Session::from_aggregate("agg.csv", bytes).unwrap();
            let summary = s.summary();
            assert_eq!(summary.format, FORMAT);
            assert_eq!(summary.n, ds.n());
            assert_eq!(summary.m_overview, M_OVERVIEW_AGGREGATE);
            let options = AuditOptions {
                m_values: summary.m_values.clone(),
                recalibration: None,
                roc_max_n: 0,
            };
            let set = &ds.models[0].1;
            let info = FileInfo {
                file: "x".into(),
                files: Vec::new(),
                format: "csv".into(),
            };
            let truth = audit_json(set, &info, &options);
            let doc = &s.audits()[0];
            let (exact, _) = check_document(doc, &truth, &format!("{fixture} {form}"));
            assert!(exact > 20, "{fixture}: {exact} exact values");
            // the overview's equal-width values at m = 16 are exact
            let marks = &doc["aggregate"]["values"];
            assert!(marks["readings.confidence.width.16.ece"].is_null());
            // the explorer: exact at 16 and 1024, bounded (ECE only) at 15 and mass
            let mut rows_session = Session::new(ds.clone());
            for (binning, m) in [
                (Binning::Width, 16),
                (Binning::Width, 1024),
                (Binning::Width, 15),
                (Binning::Mass, 15),
            ] {
                let FromWorker::Computed { metrics, rows, .. } =
                    s.compute(1, 1, 0, Reading::Confidence, binning, m)
                else {
                    panic!("an aggregate table")
                };
                let FromWorker::Computed {
                    metrics: want,
                    rows: want_rows,
                    ..
                } = rows_session.compute(1, 1, 0, Reading::Confidence, binning, m)
                else {
                    panic!("a table of the rows")
                };
                match metrics.get(BOUND_KEY).copied().flatten() {
                    None => {
                        assert_eq!(rows.len(), want_rows.len(), "{fixture} {m}");
                        for (k, v) in &want {
                            match (metrics[k], v) {
                                (Some(g), Some(w)) => {
                                    assert!(close(g, *w), "{fixture} {m} {k}: {g} vs {w}")
                                }
                                (g, w) => assert_eq!(g, *w, "{fixture} {m} {k}"),
                            }
                        }
                    }
                    Some(b) => {
                        let (g, w) = (metrics["ece"].unwrap(), want["ece"].unwrap());
                        assert!(
                            (g - w).abs() <= b * (1.0 + 1e-9),
                            "{fixture} {m}: {g} vs {w} ± {b}"
                        );
                        assert!(
                            !metrics.contains_key("mce"),
                            "a bounded table gives its ECE only"
                        );
                    }
                }
                if binning == Binning::Width && crate::aggregate::divides(m) {
                    assert!(
                        !metrics.contains_key(BOUND_KEY),
                        "{fixture} m = {m} divides the grid"
                    );
                }
            }
            // the second stage is refused with the reason, not run on nothing
            assert_eq!(
                s.beyond_start(2, 10, 0, 0.05).err().as_deref(),
                Some(NO_VERDICT)
            );
        }
    }
}

#[test]
fn a_broken_aggregate_is_a_located_error() {
    let bad = b"format,model\ncalibscope-bins/1,a\n";
    let e = Session::from_aggregate("bad.csv", bad)
        .err()
        .expect("an error");
    assert!(e.starts_with("bad.csv: "), "{e}");
    assert!(e.contains("no column"), "{e}");
}
