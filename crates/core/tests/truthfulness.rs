//! Seed 000's three-class example, computed exactly by enumerating every outcome:
//! uncorrected ConfCE rewards reporting the uniform distribution, ConfCE^corr
//! rewards honest reporting.
//!
//! The source breaks the uniform report's tie towards a class whose true posterior
//! is 1/3; the contract breaks ties towards the lowest index, so the true posterior
//! is written with that class first: p* = (1/3, 1/2, 1/6) (the source's (1/2, 1/3,
//! 1/6) with its first two classes swapped).

use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::binning::Binning;
use calibscope_core::{PredictionSet, Scores, Source, Values};

const TRUE_POSTERIOR: [f64; 3] = [1.0 / 3.0, 1.0 / 2.0, 1.0 / 6.0];

/// Expected (ConfCE, ConfCE^corr) of reporting `report` for every one of `n` samples
/// whose labels are drawn from `TRUE_POSTERIOR`, by enumerating all 3^n label vectors.
fn expected_confce(report: [f64; 3], n: usize, binning: Binning, m: usize) -> (f64, f64) {
    let settings = AuditSettings {
        m_values: vec![m],
        ..AuditSettings::default()
    };
    let (mut confce, mut corrected) = (0.0, 0.0);
    for code in 0..3usize.pow(n as u32) {
        let mut labels = Vec::with_capacity(n);
        let mut c = code;
        let mut probability = 1.0;
        for _ in 0..n {
            labels.push((c % 3) as u32);
            probability *= TRUE_POSTERIOR[c % 3];
            c /= 3;
        }
        let set = PredictionSet {
            labels,
            scores: Scores::Matrix {
                values: Values::F64(report.repeat(n)),
                k: 3,
                source: Source::Probs,
            },
            k: 3,
        };
        let audit = Audit::compute(&set, &settings);
        confce += probability * audit.confidence.at(binning, m).unwrap().lince.unwrap();
        corrected += probability * audit.confce_corr(binning, m).unwrap();
    }
    (confce, corrected)
}

#[test]
fn honest_reporting_wins_only_with_the_correction() {
    let honest = TRUE_POSTERIOR;
    let uniform = [1.0 / 3.0; 3];
    for n in 1..=7 {
        for (binning, m) in [
            (Binning::Mass, 1),
            (Binning::Mass, 15),
            (Binning::Width, 15),
        ] {
            let (h, h_corr) = expected_confce(honest, n, binning, m);
            let (u, u_corr) = expected_confce(uniform, n, binning, m);
            // the closed forms of the source: q(1-q)/n and (1-q²)/n
            let nf = n as f64;
            assert!((h - 0.25 / nf).abs() < 1e-12, "honest ConfCE {h}");
            assert!((u - (2.0 / 9.0) / nf).abs() < 1e-12, "uniform ConfCE {u}");
            assert!((h_corr - 0.75 / nf).abs() < 1e-12);
            assert!((u_corr - (8.0 / 9.0) / nf).abs() < 1e-12);
            assert!(u < h, "uncorrected ConfCE rewards the uniform report");
            assert!(h_corr < u_corr, "ConfCE^corr rewards the honest report");
        }
    }
}
