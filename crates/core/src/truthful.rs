//! Truthful calibration errors and their proper losses (METRICS.md §4, seed 000).
//!
//! The binned quantities themselves (LinCE, ConfCE = LinCE of the confidence
//! reading, ConfECE = ECE of the confidence reading) come from
//! [`crate::binning::BinnedMetrics`]; this module adds the bias correction and the
//! associated proper losses.

use crate::reading::TopLabels;

/// `ConfCE^corr = ConfCE + (1/n)(1 - acc)` with `acc = (1/n) Σ z_i`: the correction
/// that makes the binned squared error truthful (its expectation is minimised by
/// honest reporting). `None` when `n = 0` or ConfCE is undefined.
pub fn confce_corrected(confce: Option<f64>, n: usize, accuracy: Option<f64>) -> Option<f64> {
    (n > 0).then_some(())?;
    Some(confce? + (1.0 - accuracy?) / n as f64)
}

/// `l_conf = (1/n) Σ_i [1 - z_i + (c_i - z_i)²]` with `c_i` the (unclipped) top-label
/// probability and `z_i` its correctness; the proper loss associated with ConfCE.
/// `None` when empty.
pub fn l_conf(top: &TopLabels) -> Option<f64> {
    crate::sum::mean(top.confidence.iter().zip(&top.correct).map(|(&c, &z)| {
        let z = z as u8 as f64;
        1.0 - z + (c - z) * (c - z)
    }))
}

/// [`l_conf`] from sums over the confidence reading (an aggregate's): `n` samples,
/// `correct = Σ z_i` and `sum_sq = Σ (c_i - z_i)²`, as `((n - correct) + sum_sq) / n`.
/// `None` when `n = 0`.
pub fn l_conf_from_sums(n: u64, correct: u64, sum_sq: f64) -> Option<f64> {
    (n > 0).then(|| ((n - correct) as f64 + sum_sq) / n as f64)
}

/// Accuracy `(1/n) Σ z_i` of the top-label predictions; `None` when empty.
pub fn accuracy(top: &TopLabels) -> Option<f64> {
    let n = top.correct.len();
    (n > 0).then(|| top.correct.iter().filter(|&&z| z).count() as f64 / n as f64)
}

/// Multiclass Brier `(1/n) Σ_i Σ_r (p_i^(r) - 1[y_i = r])²` from the class
/// readings' Brier scores: `Σ_r Brier(class r)`. `None` when there is no class
/// reading (top-label or empty sets) or any part is undefined.
pub fn brier_multiclass(per_class: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let parts: Option<Vec<f64>> = per_class.into_iter().collect();
    let parts = parts?;
    (!parts.is_empty()).then(|| crate::sum::sum(parts))
}
