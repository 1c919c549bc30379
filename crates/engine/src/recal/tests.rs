//! Native tests of the Recalibrate answers against the fixtures.

use super::*;
use crate::compare;
use std::path::{Path, PathBuf};

use calibscope_test_support::shared;
use serde_json::{json, Value};

pub(super) fn session(path: &Path) -> Session {
    let ds = calibscope_io::open_paths(&[path.to_path_buf()], &Default::default())
        .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    Session::new(ds)
}

/// Every CSV fixture with a recalibration section: the worker's answer equals it
/// under the fixtures' tolerance rules (tau within `tau_tolerance`, ledgers within
/// `after_tolerance`, split indices exactly), and its files agree with it.
#[test]
fn answers_equal_the_fixtures_recalibration_sections() {
    let shared = shared();
    let mut checked = 0;
    let mut failures = Vec::new();
    for dir in ["real", "edge", "synthetic"] {
        let dir = shared.join("fixtures").join(dir);
        let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "csv"))
            .collect();
        names.sort();
        for csv in names {
            let exp_path = csv.with_extension("expected.json");
            let Ok(text) = std::fs::read_to_string(&exp_path) else {
                continue;
            };
            let expected: Value = serde_json::from_str(&text).unwrap();
            let Some(want) = expected.get("recalibration").filter(|v| v.is_object()) else {
                continue;
            };
            if expected
                .get("input_error")
                .is_some_and(|v| v != &json!(false) && !v.is_null())
            {
                continue;
            }
            let mut s = session(&csv);
            // the first part: split, before and temperature as in the fixture
            let FromWorker::Recalibrated {
                section, complete, ..
            } = s.recalibrate(1, 1, 0, 0, 0.5)
            else {
                failures.push(format!("{}: no answer", csv.display()));
                continue;
            };
            let partial = json!({
                "split": want["split"], "before": want["before"], "temperature": want["temperature"],
            });
            let mut parts = vec![(section, partial)];
            // the second part: everything
            match s.recalibrate_maps(1, 1) {
                FromWorker::Recalibrated {
                    section,
                    complete: true,
                    ..
                } => parts.push((section, want.clone())),
                FromWorker::Cancelled { .. } => assert!(complete, "{}", csv.display()),
                other => panic!("{}: {other:?}", csv.display()),
            }
            for (section, want) in parts {
                let got = json!({ "recalibration": section });
                let exp = json!({
                    "tolerance": expected["tolerance"],
                    "sensitive": expected.get("sensitive").cloned().unwrap_or(json!({})),
                    "recalibration": want,
                });
                for m in compare::compare(&got, &exp) {
                    failures.push(format!("{}: {}: {}", csv.display(), m.path, m.detail));
                }
            }
            let view = match s.recalibrate_maps(1, 1) {
                FromWorker::Cancelled { .. } => {
                    // nothing left to fit: the last answer stays; ask again for its view
                    let FromWorker::Recalibrated { view, .. } = full(&mut s) else {
                        panic!("answer")
                    };
                    view
                }
                other => panic!("a second maps request is cancelled: {other:?}"),
            };
            checked += 1;
            // the tables answer for every set, before first
            let FromWorker::RecalTables { tables, .. } = s.recal_tables(2, 1, Binning::Width, 15)
            else {
                panic!("tables")
            };
            // before, then every method (the probability maps too)
            assert_eq!(tables.len(), 1 + Method::ALL.len());
            assert_eq!(tables[0].set, "before");
            // the view's ledger: a column per set, the fit times last
            assert_eq!(view.ledger.sets.len(), 1 + Method::ALL.len());
            assert_eq!(
                view.ledger.lines.last().map(|l| l.key.as_str()),
                Some("fit_ms")
            );
            for line in &view.ledger.lines {
                assert_eq!(line.cells.len(), view.ledger.sets.len(), "{}", line.key);
            }
            let n_eval = want["split"]["n_eval"].as_u64().unwrap() as usize;
            if n_eval > 0 {
                assert_eq!(
                    tables[0].rows.iter().map(|r| r.n).sum::<usize>(),
                    n_eval,
                    "{}",
                    csv.display()
                );
            }
            // the tau curve has its minimum near tau*
            if let Some(tau) = want["temperature"]["tau"].as_f64() {
                let curve = &view.tau_curve;
                assert_eq!(curve.len(), TAU_CURVE_POINTS);
                let nll_star = want["temperature"]["nll_cal_tau"].as_f64().unwrap();
                let min = curve.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
                assert!(
                    min >= nll_star - 1e-9,
                    "{}: {min} < {nll_star}",
                    csv.display()
                );
                // the export: n rows, the split column, tau in the parameters
                let FromWorker::RecalExport {
                    csv: text, params, ..
                } = s.recal_export(3, Method::Temperature, "test")
                else {
                    panic!("export")
                };
                let cal: Vec<Value> = text
                    .lines()
                    .skip(1)
                    .enumerate()
                    .filter(|(_, l)| l.contains(",calibration"))
                    .map(|(i, _)| json!(i))
                    .collect();
                assert_eq!(text.lines().count() - 1, s.n());
                if let Some(idx) = want["split"].get("calibration_indices") {
                    assert_eq!(&json!(cal), idx, "{}", csv.display());
                }
                let params: Value = serde_json::from_str(&params).unwrap();
                let tol = want["temperature"]["tau_tolerance"].as_f64().unwrap();
                assert!((params["tau"].as_f64().unwrap() - tau).abs() <= tol);
            }
        }
    }
    let shown: Vec<&str> = failures.iter().take(40).map(String::as_str).collect();
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        shown.join("\n")
    );
    assert!(checked >= 20, "only {checked} fixtures checked");
}

/// Both parts of an answer, the last one returned.
pub(super) fn full(s: &mut Session) -> FromWorker {
    match s.recalibrate(9, 9, 0, 0, 0.5) {
        FromWorker::Recalibrated { complete: true, .. } => s.recalibrate(9, 9, 0, 0, 0.5),
        FromWorker::Recalibrated { .. } => s.recalibrate_maps(9, 9),
        other => other,
    }
}

#[test]
fn a_newer_fit_cancels_the_maps_of_the_older() {
    let shared = shared();
    let mut s = session(&shared.join("fixtures/real/breast_cancer_logreg_logit.csv"));
    let FromWorker::Recalibrated {
        complete, section, ..
    } = s.recalibrate(1, 1, 0, 0, 0.5)
    else {
        panic!("answer")
    };
    assert!(!complete);
    assert_eq!(section["platt"]["undefined"], "not computed yet");
    assert!(matches!(
        s.recalibrate(2, 2, 0, 3, 0.5),
        FromWorker::Recalibrated { .. }
    ));
    assert!(matches!(
        s.recalibrate_maps(1, 1),
        FromWorker::Cancelled { id: 1 }
    ));
    assert!(matches!(
        s.recalibrate_maps(2, 2),
        FromWorker::Recalibrated {
            complete: true,
            seed: 3,
            ..
        }
    ));
}

#[test]
fn bad_requests_are_errors() {
    let shared = shared();
    let mut s = session(&shared.join("fixtures/real/breast_cancer_logreg_logit.csv"));
    let is_error = |m: FromWorker| matches!(m, FromWorker::Error { .. });
    // nothing recalibrated yet
    assert!(is_error(s.recal_tables(1, 1, Binning::Width, 10)));
    assert!(is_error(s.recal_export(1, Method::Temperature, "x")));
    for (model, f) in [(0, 0.0), (0, 1.0), (0, f64::NAN), (3, 0.5)] {
        assert!(is_error(s.recalibrate(1, 1, model, 0, f)));
    }
    assert!(!is_error(s.recalibrate(1, 1, 0, 7, 0.3)));
    assert!(is_error(s.recal_tables(1, 1, Binning::Mass, 0)));
    // an unknown binning or method is refused when the request is decoded
    for bad in [
        r#"{"recal_tables":{"id":1,"gen":1,"binning":"weird","m":10}}"#,
        r#"{"recal_export":{"id":1,"method":"nope"}}"#,
    ] {
        assert!(
            serde_json::from_str::<crate::proto::ToWorker>(bad).is_err(),
            "{bad}"
        );
    }
    let top = shared.join("fixtures/synthetic/syn_uniform_perfect_n2000_s1_toplabel.csv");
    assert!(matches!(
        session(&top).recalibrate(1, 1, 0, 0, 0.5),
        FromWorker::Error { .. }
    ));
}

/// The warm-up's fits take the paths of real ones: interior optima (screening, then
/// the windows), not a bracket end.
#[test]
fn warm_up_fits_are_interior() {
    for tau in super::warm_up() {
        assert!(tau > 0.06 && tau < 19.0, "{tau}");
    }
}

/// A ragged lm-evaluation-harness log: temperature scaling is fitted and every map
/// that reads class positions is undefined in the first (and only) answer, with
/// the reason, as in `calibscope audit`'s section.
#[test]
fn a_ragged_log_fits_temperature_scaling_alone() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../io/tests/data/lm_eval/samples_arc_like.jsonl");
    let mut s = session(&path);
    let FromWorker::Recalibrated {
        section, complete, ..
    } = s.recalibrate(1, 1, 0, 0, 0.5)
    else {
        panic!("no answer");
    };
    assert!(complete, "nothing is left for a second part");
    assert!(section["temperature"]["tau"].as_f64().is_some());
    for map in ["platt", "isotonic", "beta", "histogram", "venn_abers"] {
        let why = section[map]["undefined"]
            .as_str()
            .unwrap_or_else(|| panic!("{map}: {}", section[map]));
        assert!(why.contains("different numbers of choices"), "{map}: {why}");
    }
    let cli = calibscope_audit::audit_document(
        &calibscope_io::open_paths(std::slice::from_ref(&path), &Default::default()),
        "samples_arc_like.jsonl",
        &calibscope_audit::AuditOptions::for_n(240),
    );
    for key in ["split", "temperature", "platt", "isotonic"] {
        assert_eq!(section[key], cli["recalibration"][key], "{key}");
    }
}
