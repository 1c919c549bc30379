//! An lm-evaluation-harness log whose questions have 3 to 5 choices
//! (`crates/io/tests/data/lm_eval/samples_arc_like.jsonl`, written by the harness's
//! own tracker in bench/lm_eval_fixtures.sh), audited as the padded logit matrix:
//! the confidence reading, accuracy, NLL, multiclass Brier, CSR and the temperature
//! fit equal naive formulas on each question's own log-likelihoods
//! (`arc_like_choices.csv`); the classwise values are absent and `input` says why.

use calibscope_audit::{audit_document, AuditOptions};
use calibscope_io::{read_path, Options};
use serde_json::Value;
use std::path::PathBuf;

fn lm_eval(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../io/tests/data/lm_eval")
        .join(name)
}

/// Each question's label and own log-likelihoods.
fn questions() -> Vec<(usize, Vec<f64>)> {
    let text = std::fs::read_to_string(lm_eval("arc_like_choices.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let k: usize = f[2].parse().unwrap();
            let ll = f[3..3 + k].iter().map(|v| v.parse().unwrap()).collect();
            (f[1].parse().unwrap(), ll)
        })
        .collect()
}

/// softmax(z / tau) of one question's own choices.
fn softmax(z: &[f64], tau: f64) -> Vec<f64> {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|x| ((x - m) / tau).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|x| x / s).collect()
}

/// (top class (lowest index on ties), its probability).
fn top(p: &[f64]) -> (usize, f64) {
    p.iter()
        .enumerate()
        .fold((0, p[0]), |b, (j, &x)| if x > b.1 { (j, x) } else { b })
}

fn audit() -> Value {
    let parsed = read_path(&lm_eval("samples_arc_like.jsonl"), &Options::default());
    let n = parsed.as_ref().unwrap().n();
    audit_document(&parsed, "samples_arc_like.jsonl", &AuditOptions::for_n(n))
}

fn close(got: &Value, want: f64, what: &str) {
    let got = got.as_f64().unwrap_or_else(|| panic!("{what}: {got}"));
    assert!(
        (got - want).abs() <= 1e-12 * want.abs().max(1.0),
        "{what}: {got} vs naive {want}"
    );
}

#[test]
fn the_confidence_reading_nll_brier_and_csr_are_those_of_each_questions_own_choices() {
    let doc = audit();
    let qs = questions();
    let n = qs.len() as f64;
    let (mut nll, mut brier, mut acc, mut csr) = (0.0, 0.0, 0.0, 0.0);
    let mut pairs = Vec::new();
    for (y, z) in &qs {
        let p = softmax(z, 1.0);
        let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let lse = m + z.iter().map(|x| (x - m).exp()).sum::<f64>().ln();
        nll += lse - z[*y];
        brier += p
            .iter()
            .enumerate()
            .map(|(j, pj)| (pj - (j == *y) as u8 as f64).powi(2))
            .sum::<f64>();
        let (r, c) = top(&p);
        let right = (r == *y) as u8 as f64;
        acc += right;
        if right == 0.0 {
            csr += 1.0 / (1.0 - c.clamp(1e-8, 1.0 - 1e-8));
        }
        pairs.push((c, right));
    }
    close(&doc["binning_free"]["nll"], nll / n, "NLL");
    close(&doc["binning_free"]["brier_multiclass"], brier / n, "Brier");
    close(&doc["binning_free"]["accuracy"], acc / n, "accuracy");
    close(&doc["beyond_ece"]["csr"], csr / n, "CSR");
    // ECE over 15 equal-width bins of the confidence
    let mut bins = vec![(0.0, 0.0, 0usize); 15];
    for (c, o) in &pairs {
        let b = ((c * 15.0).floor() as usize).min(14);
        bins[b].0 += c;
        bins[b].1 += o;
        bins[b].2 += 1;
    }
    let ece: f64 = bins.iter().map(|(c, o, _)| (o - c).abs()).sum::<f64>() / n;
    close(
        &doc["readings"]["confidence"]["width"]["15"]["ece"],
        ece,
        "ECE_15",
    );
}

#[test]
fn temperature_scaling_fits_the_questions_own_choices() {
    let doc = audit();
    let qs = questions();
    let t = &doc["recalibration"]["temperature"];
    let cal: Vec<usize> = doc["recalibration"]["split"]["calibration_indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_u64().unwrap() as usize)
        .collect();
    let nll = |tau: f64| {
        cal.iter()
            .map(|&i| -softmax(&qs[i].1, tau)[qs[i].0].ln())
            .sum::<f64>()
            / cal.len() as f64
    };
    // golden-section search of the naive NLL on the contract's bracket
    let (mut a, mut b) = (0.05f64, 20.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..200 {
        let (c, d) = (b - g * (b - a), a + g * (b - a));
        if nll(c) < nll(d) {
            b = d;
        } else {
            a = c;
        }
    }
    let tau = (a + b) / 2.0;
    let got = t["tau"].as_f64().unwrap();
    assert!((got - tau).abs() < 1e-6, "tau {got} vs naive {tau}");
    close(&t["nll_cal_tau1"], nll(1.0), "NLL at tau 1");
    close(&t["nll_cal_tau"], nll(got), "NLL at the fitted tau");
}

/// Platt and isotonic are fitted per class position, which names a different
/// answer in each question: they are undefined, and say why; temperature scaling
/// is defined.
#[test]
fn maps_fitted_per_class_position_are_undefined_and_say_why() {
    let doc = audit();
    let r = &doc["recalibration"];
    assert!(r["temperature"]["tau"].as_f64().is_some());
    for map in ["platt", "isotonic"] {
        let why = r[map]["undefined"]
            .as_str()
            .unwrap_or_else(|| panic!("{map}: {}", r[map]));
        assert!(why.contains("different numbers of choices"), "{map}: {why}");
        assert!(why.contains("temperature scaling"), "{map}: {why}");
        assert!(r[map].get("after").is_none(), "{map} has no after set");
    }
}

#[test]
fn classwise_values_are_absent_and_the_input_says_why() {
    let doc = audit();
    let text = doc.to_string();
    for key in [
        "\"classwise\"",
        "\"cwauc\"",
        "\"auc_macro\"",
        "\"cw_confusion\"",
        "\"cwa\"",
    ] {
        assert!(!text.contains(key), "{key} is in the ragged audit");
    }
    assert_eq!(doc["input"]["choices"]["min"], 3);
    assert_eq!(doc["input"]["choices"]["max"], 5);
    assert_eq!(
        doc["input"]["classwise_unavailable"],
        "Classwise readings are not available: the questions have between 3 and 5 choices, so a choice position (\"choice 5\") is not the same class from one question to the next. The confidence reading, NLL, Brier score, CSR and temperature scaling use each question's own choices; the recalibration maps fitted per choice position (Platt, isotonic and the others) are left out."
    );
    // an input whose questions all have 4 choices keeps them
    let parsed = read_path(
        &lm_eval("samples_hellaswag_like.jsonl"),
        &Options::default(),
    );
    let doc = audit_document(&parsed, "h", &AuditOptions::for_n(300));
    assert!(doc["readings"]["classwise"].is_object());
    assert!(doc["input"].get("classwise_unavailable").is_none());
}
