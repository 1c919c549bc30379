//! `calibscope recalibrate --method beta|histogram|venn-abers`: every row written in
//! input order with its split (the same split as the other methods), the values equal
//! to the core's fits on the calibration rows the CSV marks, Venn–Abers' interval
//! columns, `--bins N|auto` with cross-fitting, and located errors for bad flags.

use crate::support;
use calibscope_core::recal::beta::fit_beta;
use calibscope_core::recal::histogram::fit_histogram;
use calibscope_core::recal::sigmoid;
use calibscope_core::recal::venn_abers::fit_venn_abers;
use serde_json::Value;
use std::path::PathBuf;
use support::{calibscope, shared};

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("calibscope-recal-methods-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn fixture(rel: &str) -> String {
    shared()
        .join("fixtures")
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

/// Runs `recalibrate` and returns the CSV's header and rows (split into fields).
fn run(args: &[&str], out: &PathBuf) -> (Vec<String>, Vec<Vec<String>>) {
    let mut all = vec!["recalibrate"];
    all.extend(args);
    all.extend(["--out", out.to_str().unwrap()]);
    let o = calibscope(&all);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("| accuracy |"));
    let text = std::fs::read_to_string(out).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

fn split_of(rows: &[Vec<String>], column: usize) -> Vec<bool> {
    rows.iter().map(|r| r[column] == "calibration").collect()
}

#[test]
fn binary_methods_write_every_row_with_the_core_fits_values() {
    let file = fixture("real/breast_cancer_logreg_logit.csv");
    let input = std::fs::read_to_string(&file).unwrap();
    let (labels, s): (Vec<u32>, Vec<f64>) = input
        .lines()
        .skip(1)
        .map(|l| {
            let (a, b) = l.split_once(',').unwrap();
            (a.parse::<u32>().unwrap(), b.parse::<f64>().unwrap())
        })
        .unzip();
    let (_, temperature) = run(&[&file, "--method", "temperature"], &tmp("t.csv"));
    let cal = split_of(&temperature, 1);
    let u: Vec<f64> = s.iter().map(|&v| sigmoid(v)).collect();
    let u_cal: Vec<f64> = (0..u.len()).filter(|&i| cal[i]).map(|i| u[i]).collect();
    let y_cal: Vec<u32> = (0..u.len())
        .filter(|&i| cal[i])
        .map(|i| labels[i])
        .collect();
    for method in ["beta", "histogram", "venn-abers"] {
        let (header, rows) = run(&[&file, "--method", method], &tmp(&format!("{method}.csv")));
        let want_header: &[&str] = if method == "venn-abers" {
            &["label", "split", "p", "p_lower", "p_upper"]
        } else {
            &["label", "split", "p"]
        };
        assert_eq!(header, want_header, "{method}");
        assert_eq!(rows.len(), labels.len(), "{method}: every row");
        assert_eq!(
            split_of(&rows, 1),
            cal,
            "{method}: the same split as temperature"
        );
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(r[0], labels[i].to_string(), "{method} row {i}: label kept");
            let p: f64 = r[2].parse().unwrap();
            let want = match method {
                "beta" => fit_beta(&u_cal, &y_cal).unwrap().predict(u[i]),
                "histogram" => fit_histogram(&u_cal, &y_cal, 15).unwrap().predict(u[i]),
                _ => {
                    let v = fit_venn_abers(&u_cal, &y_cal).unwrap().predict(u[i]);
                    let (lo, hi): (f64, f64) = (r[3].parse().unwrap(), r[4].parse().unwrap());
                    assert!((lo - v.p0).abs() < 1e-12, "row {i}: p_lower");
                    assert!((hi - v.p1).abs() < 1e-12, "row {i}: p_upper");
                    assert!(v.p0 <= p && p <= v.p1);
                    v.p
                }
            };
            // sigma(s) here, the audit's probability view in the CLI: equal to rounding
            assert!((p - want).abs() < 1e-12, "{method} row {i}: {p} vs {want}");
        }
    }
}

#[test]
fn multiclass_methods_are_one_vs_rest_rows_summing_to_one() {
    let file = fixture("real/digits_rf_probs.csv");
    let n = std::fs::read_to_string(&file).unwrap().lines().count() - 1;
    let classes: Vec<String> = (0..10).map(|r| r.to_string()).collect();
    for method in ["beta", "histogram", "venn-abers"] {
        let (header, rows) = run(
            &[&file, "--method", method],
            &tmp(&format!("mc_{method}.csv")),
        );
        let mut want: Vec<String> = vec!["label".into(), "split".into()];
        want.extend(classes.iter().map(|c| format!("p_{c}")));
        if method == "venn-abers" {
            for c in &classes {
                want.push(format!("p_lower_{c}"));
                want.push(format!("p_upper_{c}"));
            }
        }
        assert_eq!(header, want, "{method}");
        assert_eq!(rows.len(), n);
        for (i, r) in rows.iter().enumerate() {
            let p: Vec<f64> = r[2..12].iter().map(|v| v.parse().unwrap()).collect();
            let sum: f64 = p.iter().sum();
            assert!((sum - 1.0).abs() < 1e-9, "{method} row {i}: sum {sum}");
            if method == "venn-abers" {
                for c in 0..10 {
                    let (lo, hi): (f64, f64) = (
                        r[12 + 2 * c].parse().unwrap(),
                        r[13 + 2 * c].parse().unwrap(),
                    );
                    assert!(
                        (0.0..=1.0).contains(&lo) && lo <= hi && hi <= 1.0,
                        "row {i}"
                    );
                }
            }
        }
    }
}

#[test]
fn histogram_bins_fixed_or_cross_fitted_in_the_parameters() {
    let file = fixture("real/breast_cancer_logreg_logit.csv");
    let params = tmp("params.json");
    let read = |args: &[&str]| -> Value {
        run(args, &tmp("h.csv"));
        serde_json::from_str(&std::fs::read_to_string(&params).unwrap()).unwrap()
    };
    let p = params.to_str().unwrap();
    let fixed = read(&[&file, "--method", "histogram", "--bins", "7", "--params", p]);
    assert_eq!(fixed["method"], "histogram");
    assert_eq!(fixed["bins"], 7);
    assert!(fixed.get("cross_fit").is_none());
    assert!(fixed["fits"][0]["estimates"].as_array().unwrap().len() <= 7);
    let auto = read(&[
        &file,
        "--method",
        "histogram",
        "--bins",
        "auto",
        "--folds",
        "4",
        "--params",
        p,
    ]);
    let cf = &auto["cross_fit"];
    assert_eq!(cf["folds"], 4);
    let candidates = cf["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 9);
    let best = candidates
        .iter()
        .min_by(|a, b| {
            a["brier"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["brier"].as_f64().unwrap())
        })
        .unwrap();
    assert_eq!(cf["chosen"], best["bins"]);
    assert_eq!(auto["bins"], cf["chosen"]);
    let beta = read(&[&file, "--method", "beta", "--params", p]);
    let fit = &beta["fits"][0];
    assert_eq!(fit["class"], 1);
    for key in ["a", "b", "c", "m"] {
        assert!(fit[key].is_number(), "beta {key}");
    }
    let va = read(&[&file, "--method", "venn-abers", "--params", p]);
    let f = &va["fits"][0];
    assert_eq!(
        f["p0"].as_array().unwrap().len(),
        f["values"].as_array().unwrap().len() + 1,
        "p0 at every gap"
    );
}

#[test]
fn bad_flags_are_usage_errors_that_name_the_flag() {
    let file = fixture("real/breast_cancer_logreg_logit.csv");
    let out = tmp("bad.csv");
    let o = out.to_str().unwrap();
    for (args, says) in [
        (vec!["--method", "histogram", "--bins", "0"], "--bins '0'"),
        (
            vec!["--method", "histogram", "--bins", "many"],
            "--bins 'many'",
        ),
        (
            vec!["--method", "beta", "--bins", "10"],
            "--method histogram only",
        ),
        (
            vec!["--method", "venn-abers", "--folds", "3"],
            "--method histogram only",
        ),
        (
            vec!["--method", "histogram", "--bins", "auto", "--folds", "1"],
            "--folds 1",
        ),
        (
            vec!["--method", "histogram", "--folds", "3"],
            "--folds needs --bins auto",
        ),
        (
            vec!["--method", "histogram", "--bins", "12", "--folds", "3"],
            "--folds needs --bins auto",
        ),
        (vec!["--method", "spline"], "venn-abers"),
    ] {
        let mut all = vec!["recalibrate", file.as_str(), "--out", o];
        all.extend(&args);
        let r = calibscope(&all);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // one class in the calibration split: beta is undefined (exit 1, with the reason)
    let one = tmp("one_class.csv");
    std::fs::write(&one, "label,p\n0,0.1\n0,0.2\n0,0.3\n0,0.4\n1,0.9\n").unwrap();
    let r = calibscope(&[
        "recalibrate",
        one.to_str().unwrap(),
        "--method",
        "beta",
        "--out",
        o,
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(err.contains("lacks the positive class"), "{err}");
}
