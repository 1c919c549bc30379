//! The recalibration section: the task graph gives the section of one run.

use super::*;
use calibscope_core::synth::boosted_logits;
use calibscope_core::{Scores, Source, Values};

/// Logits, their softmax rounded to 3 decimals (ties, renormalised within the
/// contract's tolerance), and two-class versions of both.
fn sets(n: usize, k: usize, seed: u64) -> Vec<PredictionSet> {
    let (z, y) = boosted_logits(n, k, seed);
    let matrix = |values: Values, source| PredictionSet {
        labels: y.clone(),
        scores: Scores::Matrix { values, k, source },
        k,
    };
    let mut p = Vec::with_capacity(z.len());
    for row in z.chunks_exact(k) {
        let max = row.iter().fold(f32::MIN, |a, &b| a.max(b)) as f64;
        let e: Vec<f64> = row.iter().map(|&v| (v as f64 - max).exp()).collect();
        let sum: f64 = e.iter().sum();
        let rounded: Vec<f64> = e.iter().map(|v| (v / sum * 1e3).round() / 1e3).collect();
        let total: f64 = rounded.iter().sum();
        p.extend(rounded.iter().map(|v| v / total));
    }
    vec![
        matrix(Values::F32(z), Source::Logits),
        matrix(Values::F64(p), Source::Probs),
    ]
}

/// The task graph (checks completed with the ledgers' AUCs) and the one-run
/// section (checks computing their AUCs) agree value for value, on threads or not.
#[test]
fn the_task_graph_gives_the_one_run_section() {
    for (k, seed) in [(2, 1), (3, 2), (10, 3), (40, 4)] {
        for set in sets(3_000, k, seed) {
            for platt_and_isotonic in [false, true] {
                let recal = RecalibrationSettings {
                    platt_and_isotonic,
                    ..RecalibrationSettings::default()
                };
                let alone = recalibration_json(&set, &recal);
                for sections in [Sections::Sequential, Sections::Threads] {
                    let (audit, section) =
                        audit_and_recalibration(&set, &AuditSettings::default(), &recal, sections);
                    assert_eq!(section, alone, "k = {k}, {:?}", set.source());
                    assert_eq!(audit, Audit::compute(&set, &AuditSettings::default()));
                }
            }
        }
    }
}
