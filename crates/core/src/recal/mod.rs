//! Post-hoc recalibration (METRICS.md §6): pure fitting routines on plain slices.
//!
//! The caller splits the prediction set (calibration / evaluation, see the split in
//! METRICS.md §6), fits here on the calibration rows and applies the fitted maps to the
//! evaluation rows:
//!
//! - [`temperature`]: `p = softmax(z / tau)` (binary `sigmoid(s / tau)`), `tau` fitted by
//!   golden-section search ([`golden`]) on the calibration NLL; the objectives borrow
//!   the score matrix and take the calibration row indices, so nothing is copied;
//! - [`platt`]: `sigmoid(a s + b)` with Platt's smoothed targets (binary, or one-vs-rest
//!   on `z_r`);
//! - [`isotonic`]: pool-adjacent-violators with `np.interp` prediction (binary, or
//!   one-vs-rest on `z_r`);
//! - [`prob_maps`]: beta calibration ([`beta`]), histogram binning ([`histogram`],
//!   its bin count given or chosen by K-fold cross-fitting) and inductive Venn–Abers
//!   ([`venn_abers`]) on the one-vs-rest probabilities;
//! - [`scaling`] / [`scaling_map`]: vector and matrix scaling on the logits and
//!   Dirichlet calibration with ODIR on `ln p`, multiclass maps fitted jointly by
//!   L-BFGS, ODIR's strength chosen by K-fold cross-validation;
//! - helpers: the clipped logit / log of probability input ([`logit_clipped`],
//!   [`ln_clipped`]), [`sigmoid`], [`softmax_scaled`] and the multiclass
//!   one-vs-rest row renormalisation [`renormalize_rows`].
//!
//! Every fit is `None` (undefined) on an empty calibration split.

pub mod apply;
pub mod beta;
pub mod checks;
pub mod compare;
pub mod first;
pub mod golden;
pub mod histogram;
pub mod isotonic;
pub mod kernel;
pub mod platt;
pub mod prob_maps;
pub mod scaling;
pub mod scaling_map;
mod screen;
mod staged;
mod taylor;
pub mod temperature;
pub mod venn_abers;

pub use golden::{
    at_bracket_end, golden_section, golden_section_batch, golden_section_reuse, GoldenSearch,
    GoldenStep,
};
pub use isotonic::{fit_isotonic, IsotonicFit};
pub use platt::{fit_platt, PlattFit, PlattStatus};
pub use temperature::{
    fit_temperature_binary, fit_temperature_multiclass, fit_temperature_values, BinaryNll,
    GoldenProcedure, MulticlassNll, TemperatureFit, TemperatureObjective, TemperatureOptions,
};

use crate::data::Real;
use crate::sum::Sum;

/// A binary outcome: `bool`, or an integer label where nonzero is positive.
pub trait BinaryLabel: Copy {
    /// True for the positive class.
    fn is_positive(self) -> bool;
}

impl BinaryLabel for bool {
    #[inline(always)]
    fn is_positive(self) -> bool {
        self
    }
}

macro_rules! int_label {
    ($($t:ty),*) => {$(
        impl BinaryLabel for $t {
            #[inline(always)]
            fn is_positive(self) -> bool {
                self != 0
            }
        }
    )*};
}
int_label!(u8, u16, u32, u64, usize, i32, i64);

/// Probabilities are clipped to `[CLIP, 1 - CLIP]` before `ln` / `logit` (§6).
pub const CLIP: f64 = 1e-15;

/// `u` clipped to `[1e-15, 1 - 1e-15]` (NaN stays NaN).
#[inline]
pub fn clip_probability(u: f64) -> f64 {
    u.clamp(CLIP, 1.0 - CLIP)
}

/// The binary score of probability input, `s = ln(u / (1 - u))` after clipping `u` to
/// `[1e-15, 1 - 1e-15]` (METRICS.md §6): finite for every `u` in `[0, 1]`, about
/// `-34.5 ... 34.5`; NaN for NaN.
#[inline]
pub fn logit_clipped(u: f64) -> f64 {
    let u = clip_probability(u);
    (u / (1.0 - u)).ln()
}

/// The logit of multiclass probability input, `z = ln p` after clipping `p` to
/// `[1e-15, 1 - 1e-15]` (METRICS.md §6); NaN for NaN.
#[inline]
pub fn ln_clipped(p: f64) -> f64 {
    clip_probability(p).ln()
}

/// The binary score of a two-column probability row `(p_0, p_1)`:
/// `s = ln p_1 - ln p_0`, each clipped (METRICS.md §1), so that
/// `softmax(z / tau)_1 = sigmoid(s / tau)`.
#[inline]
pub fn two_column_score(p0: f64, p1: f64) -> f64 {
    ln_clipped(p1) - ln_clipped(p0)
}

/// `ln p` (clipped, [`ln_clipped`]) of every entry of a probability matrix, as `f64`:
/// the logit matrix of probability input for [`MulticlassNll`].
pub fn ln_clipped_all<T: Real>(p: &[T]) -> Vec<f64> {
    p.iter().map(|v| ln_clipped(v.to_f64())).collect()
}

pub use crate::reading::sigmoid;

/// `out = softmax(z / tau)` of one row, with the max subtraction:
/// `out_j = e_j / sum e`, `e_j = exp((z_j - max z) / tau)`, the sum compensated.
/// Panics when `out.len() != z.len()`. An empty row does nothing; a NaN in `z` or a
/// non-positive `tau` gives NaNs.
pub fn softmax_scaled<T: Real>(z: &[T], tau: f64, out: &mut [f64]) {
    assert_eq!(z.len(), out.len());
    let m = z
        .iter()
        .map(|v| v.to_f64())
        .fold(
            f64::NEG_INFINITY,
            |m, v| if v > m || v.is_nan() { v } else { m },
        );
    let mut sum = Sum::new();
    for (o, v) in out.iter_mut().zip(z) {
        *o = ((v.to_f64() - m) / tau).exp();
        sum.add(*o);
    }
    let sum = sum.value();
    for o in out.iter_mut() {
        *o /= sum;
    }
}

/// Renormalises each row of the row-major `n x k` matrix `p` in place: `p_ij /=
/// sum_j p_ij` (compensated sum, one division per entry, as scikit-learn's
/// one-vs-rest calibrators), and makes a row whose sum is 0 uniform (`1/k` each).
/// Returns the number of rows made uniform. (Argmax ties then go to the lowest index:
/// nothing to do here.)
///
/// `k = 0` or an empty matrix: nothing to do, returns 0. Panics when `p.len()` is not a
/// multiple of `k`. Rows holding NaN stay NaN (their sum is NaN, not 0); negative
/// entries are not checked.
pub fn renormalize_rows(p: &mut [f64], k: usize) -> usize {
    if k == 0 || p.is_empty() {
        return 0;
    }
    assert_eq!(p.len() % k, 0, "p must be n x k");
    let mut uniform = 0;
    for row in p.chunks_exact_mut(k) {
        let sum = row.iter().copied().collect::<Sum>().value();
        if sum == 0.0 {
            row.fill(1.0 / k as f64);
            uniform += 1;
        } else {
            for v in row.iter_mut() {
                *v /= sum;
            }
        }
    }
    uniform
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(logit_clipped(0.5), 0.0);
        assert!((logit_clipped(0.0) - (1e-15f64 / (1.0 - 1e-15)).ln()).abs() < 1e-12);
        // 1 - 1e-15 rounds: the clipped logit is not symmetric in f64
        assert_eq!(
            logit_clipped(1.0),
            ((1.0 - 1e-15) / (1.0 - (1.0 - 1e-15f64))).ln()
        );
        assert_eq!(ln_clipped(0.0), 1e-15f64.ln());
        assert_eq!(sigmoid(0.0), 0.5);
        assert_eq!(sigmoid(-1000.0), 0.0);
        assert_eq!(sigmoid(1000.0), 1.0);
        let mut p = vec![0.2, 0.2, 0.0, 0.0, 0.0, 0.0, 1.0, 3.0, 0.0];
        assert_eq!(renormalize_rows(&mut p, 3), 1);
        assert_eq!(&p[..6], &[0.5, 0.5, 0.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0]);
        assert_eq!(&p[6..], &[0.25, 0.75, 0.0]);
        let mut out = [0.0; 3];
        softmax_scaled(&[1.0f32, 1.0, 1.0], 2.0, &mut out);
        assert_eq!(out, [1.0 / 3.0; 3]);
    }
}
