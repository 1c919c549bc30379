//! Vector scaling, matrix scaling and Dirichlet calibration with ODIR against the
//! authors' package, dirichletcal 0.5.3, from `tests/refs/dirichlet_peers.json`
//! (data and reference fits written by `bash bench/peers_dirichlet.sh
//! --update-refs`; `CALIBSCOPE_DIRICHLET_PEERS` points at a fresh run's file
//! instead). The file must be there: a missing file fails the test.
//!
//! The reference solves each fit with its own Newton method (K <= 36), which stops
//! when the loss changes by less than 1e-12 over five iterations; the core solves
//! the same objective (the same reference row, the same ODIR normalisation) by
//! L-BFGS to a gradient norm of 1e-10. Parameters (`[W | b]`, last row 0) and the
//! probabilities of held-out query rows agree within 1e-6.

use calibscope_core::recal::scaling::{fit_scaling, Odir, ScalingFit, ScalingKind, FINAL};
use serde_json::Value;

fn refs() -> Value {
    let path = std::env::var("CALIBSCOPE_DIRICHLET_PEERS").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/refs/dirichlet_peers.json"
        )
        .to_string()
    });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn matrix(v: &Value) -> Vec<Vec<f64>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect()
}

/// `[W | b]` of our fit as the reference writes it (K rows of K + 1, the last row
/// subtracted from every row: vector scaling's row r is `v_r e_r - v_{K-1} e_{K-1}`).
fn reference_form(fit: &ScalingFit) -> Vec<Vec<f64>> {
    let k = fit.k;
    let full: Vec<Vec<f64>> = (0..k)
        .map(|r| {
            let mut row = fit.w[r * k..(r + 1) * k].to_vec();
            row.push(fit.b[r]);
            row
        })
        .collect();
    let last = full[k - 1].clone();
    full.iter()
        .map(|row| row.iter().zip(&last).map(|(a, b)| a - b).collect())
        .collect()
}

const TOL: f64 = 1e-6;

#[test]
fn scaling_maps_equal_dirichletcal() {
    let refs = refs();
    let cases = refs["cases"].as_array().unwrap();
    assert!(cases.len() >= 4, "every case of the script");
    let (mut worst_w, mut worst_p) = (0.0f64, 0.0f64);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let k = case["k"].as_u64().unwrap() as usize;
        let s = case["strength"].as_f64().unwrap();
        let labels: Vec<u32> = case["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect();
        let flat = |key: &str, ln: bool| -> Vec<f64> {
            matrix(&case[key])
                .into_iter()
                .flatten()
                .map(|v| if ln { v.ln() } else { v })
                .collect()
        };
        for (key, kind, input, query) in [
            (
                "dirichlet",
                ScalingKind::Dirichlet,
                flat("probs", true),
                flat("query_probs", true),
            ),
            (
                "matrix",
                ScalingKind::Matrix,
                flat("logits", false),
                flat("query_logits", false),
            ),
            (
                "vector",
                ScalingKind::Vector,
                flat("logits", false),
                flat("query_logits", false),
            ),
        ] {
            let odir = Odir { lambda: s, mu: s };
            let fit = fit_scaling(kind, k, &input, &labels, odir, None, FINAL)
                .unwrap_or_else(|| panic!("{name} {key}: no fit"));
            assert!(fit.converged, "{name} {key}: {} iterations", fit.iterations);
            let theirs = matrix(&case[key]["weights"]);
            for (r, (a, b)) in reference_form(&fit).iter().zip(&theirs).enumerate() {
                for (c, (x, t)) in a.iter().zip(b).enumerate() {
                    worst_w = worst_w.max((x - t).abs());
                    assert!(
                        (x - t).abs() <= TOL,
                        "{name} {key}: [{r}][{c}] = {x} against dirichletcal's {t}"
                    );
                }
            }
            let want = matrix(&case[key]["query_p"]);
            let mut out = vec![0.0; k];
            for (j, (row, t)) in query.chunks_exact(k).zip(&want).enumerate() {
                fit.predict(row, &mut out);
                for (x, t) in out.iter().zip(t) {
                    worst_p = worst_p.max((x - t).abs());
                    assert!(
                        (x - t).abs() <= TOL,
                        "{name} {key}: query row {j}: {x} against dirichletcal's {t}"
                    );
                }
            }
        }
    }
    eprintln!("largest gaps: parameters {worst_w:e}, probabilities {worst_p:e}");
}
