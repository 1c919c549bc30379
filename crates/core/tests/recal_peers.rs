//! The recalibration methods against their authors' packages, from
//! `tests/refs/recal_peers.json` (data and reference fits written by `bash
//! bench/peers_recal.sh --update-refs`; `CALIBSCOPE_RECAL_PEERS` points at a fresh
//! run's file instead).
//!
//! Beta calibration against betacal 1.1.0: the reference fits its logistic
//! regression with scikit-learn's L-BFGS at its default tolerance (1e-4), which on
//! these cases stops up to 1.3 % away from the optimum (case `underconfident`), and
//! finds `m` with a bounded scalar search (tolerance 1e-5). The core solves the same
//! objective to the rounding floor. So the core is checked twice: against the same
//! procedure solved tightly by scikit-learn's newton-cholesky solver (tol 1e-14):
//! parameters within 1e-8 relative; and against betacal itself: the same refit
//! decisions, parameters within 2e-2 relative and calibrated probabilities within
//! 2e-3 (the largest gaps are printed).
//!
//! Venn–Abers against venn-abers 1.5.4: both compute slopes of the same integer
//! cumulative sum diagram, so `p0`, `p1` and the merged probability agree within
//! 1e-12, ties included.

use calibscope_core::recal::beta::fit_beta;
use calibscope_core::recal::venn_abers::fit_venn_abers;
use serde_json::Value;

fn refs() -> Value {
    let path = std::env::var("CALIBSCOPE_RECAL_PEERS").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/refs/recal_peers.json").to_string()
    });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn close(ours: f64, theirs: f64, rel: f64, abs: f64) -> bool {
    (ours - theirs).abs() <= rel * theirs.abs() + abs
}

#[test]
fn beta_calibration_equals_betacal() {
    let refs = refs();
    let cases = refs["cases"].as_array().unwrap();
    assert!(cases.len() >= 6, "every case of the script");
    let mut refits = 0;
    let (mut worst_param, mut worst_p) = (0.0f64, 0.0f64);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let scores = floats(&case["scores"]);
        let labels: Vec<u8> = case["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u8)
            .collect();
        let theirs = &case["betacal"];
        let fit = fit_beta(&scores, &labels).unwrap_or_else(|| panic!("{name}: no fit"));
        assert!(fit.converged, "{name}");
        let tight = &case["beta_tight"];
        for (what, ours) in [("a", fit.a), ("b", fit.b), ("c", fit.c)] {
            let t = tight[what].as_f64().unwrap();
            assert!(
                close(ours, t, 1e-8, 1e-12),
                "{name}: {what} = {ours} against the tight solution's {t}"
            );
        }
        for (what, ours, theirs) in [
            ("a", fit.a, theirs["a"].as_f64().unwrap()),
            ("b", fit.b, theirs["b"].as_f64().unwrap()),
            ("c", fit.c, theirs["c"].as_f64().unwrap()),
        ] {
            worst_param = worst_param.max((ours - theirs).abs() / theirs.abs().max(1e-3));
            assert!(
                close(ours, theirs, 2e-2, 1e-6),
                "{name}: {what} = {ours} against betacal's {theirs}"
            );
            if theirs == 0.0 {
                assert_eq!(ours, 0.0, "{name}: {what} refitted away");
            }
        }
        if fit.a == 0.0 || fit.b == 0.0 {
            refits += 1;
        }
        let m = theirs["m"].as_f64().unwrap();
        assert!(
            (fit.m - m).abs() <= 2e-2,
            "{name}: m = {} against {m}",
            fit.m
        );
        for (q, p) in floats(&case["queries"])
            .iter()
            .zip(floats(&theirs["predict"]))
        {
            worst_p = worst_p.max((fit.predict(*q) - p).abs());
            assert!(
                (fit.predict(*q) - p).abs() <= 2e-3,
                "{name}: p({q}) = {} against betacal's {p}",
                fit.predict(*q)
            );
        }
    }
    assert!(refits >= 2, "the cases exercise both refits");
    println!("against betacal: parameters within {worst_param:.2e} relative, probabilities within {worst_p:.2e}");
}

fn case_data(case: &Value) -> (&str, Vec<f64>, Vec<u8>) {
    let name = case["name"].as_str().unwrap();
    let scores = floats(&case["scores"]);
    let labels = case["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u8)
        .collect();
    (name, scores, labels)
}

#[test]
fn venn_abers_equals_the_venn_abers_package() {
    let refs = refs();
    let mut queries_on_calibration_values = 0;
    for case in refs["cases"].as_array().unwrap() {
        let (name, scores, labels) = case_data(case);
        let fit = fit_venn_abers(&scores, &labels).unwrap();
        let theirs = &case["venn_abers"];
        let (p0, p1, p) = (
            floats(&theirs["p0"]),
            floats(&theirs["p1"]),
            floats(&theirs["p"]),
        );
        let queries = floats(&case["queries"]);
        assert_eq!(queries.len(), p.len(), "{name}");
        for (i, q) in queries.iter().enumerate() {
            let ours = fit.predict(*q);
            queries_on_calibration_values += usize::from(scores.contains(q));
            for (what, a, b) in [
                ("p0", ours.p0, p0[i]),
                ("p1", ours.p1, p1[i]),
                ("p", ours.p, p[i]),
            ] {
                assert!(
                    (a - b).abs() <= 1e-12,
                    "{name}: {what}({q}) = {a} against venn-abers' {b}"
                );
            }
        }
    }
    assert!(queries_on_calibration_values >= 50, "ties are exercised");
}
