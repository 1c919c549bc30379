//! Platt scaling with Platt's (1999) smoothed targets (METRICS.md §6; scikit-learn
//! `CalibratedClassifierCV(method="sigmoid")`).
//!
//! `p = sigmoid(a s + b)`, `(a, b)` minimising the cross-entropy against the smoothed
//! targets `t+ = (N+ + 1) / (N+ + 2)` (positives) and `t- = 1 / (N- + 2)` (negatives):
//!
//! `L(a, b) = (1/n) sum_i [ t_i softplus(-f_i) + (1 - t_i) softplus(f_i) ]`,
//! `f_i = a s_i + b`,
//!
//! which is strictly convex with a finite minimiser whenever the scores are not all
//! equal (the targets are never 0 or 1). Newton's method with step halving from the
//! intercept-only start `(0, logit(mean t))`, sums compensated, until the gradient is
//! at the rounding floor (`|grad| <= 1e-14 x` the sum of its terms' magnitudes) or a
//! step no longer moves any `f_i` by more than `1e-15 (1 + |f_i|)`.

use super::{sigmoid, BinaryLabel};
use crate::sum::Sum;

/// Newton iterations before giving up (never reached on finite data in practice:
/// convergence is quadratic and takes ~5-15 iterations).
pub const MAX_ITERATIONS: usize = 200;

/// How a Platt fit ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlattStatus {
    /// The gradient reached the rounding floor.
    Converged,
    /// Every calibration score is equal: the optimum is not unique; the intercept-only
    /// start `a = 0, b = logit(mean t)` is reported (it minimises `L` along `b`).
    ConstantScores,
    /// [`MAX_ITERATIONS`] Newton steps without convergence (not expected; reported
    /// rather than hidden).
    IterationLimit,
}

impl PlattStatus {
    /// The fixtures' name (`converged`, `constant_scores`, `iteration_limit`).
    pub fn code(self) -> &'static str {
        match self {
            PlattStatus::Converged => "converged",
            PlattStatus::ConstantScores => "constant_scores",
            PlattStatus::IterationLimit => "iteration_limit",
        }
    }
}

/// A Platt fit `p = sigmoid(a s + b)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlattFit {
    /// Slope.
    pub a: f64,
    /// Intercept.
    pub b: f64,
    /// How the fit ended.
    pub status: PlattStatus,
    /// The fit objective at `(a, b)`: the mean cross-entropy against the smoothed
    /// targets, `L(a, b)` above (the fixtures' `nll_cal`; NOT the NLL of the hard
    /// labels, which is smaller).
    pub nll_cal: f64,
    /// Newton iterations taken.
    pub iterations: usize,
    /// Positives `N+` and negatives `N-` of the calibration split.
    pub n_pos: usize,
    /// Negatives `N-`.
    pub n_neg: usize,
}

impl PlattFit {
    /// `sigmoid(a s + b)` (overflow-free; NaN for NaN).
    #[inline]
    pub fn predict(&self, s: f64) -> f64 {
        sigmoid(self.a * s + self.b)
    }
}

/// `softplus(x) = ln(1 + e^x)`, stable.
#[inline]
fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

struct Problem<'a, L> {
    s: &'a [f64],
    y: &'a [L],
    /// `t+` and `1 - t+`, `t-` and `1 - t-`.
    t_pos: (f64, f64),
    t_neg: (f64, f64),
}

impl<L: BinaryLabel> Problem<'_, L> {
    fn target(&self, i: usize) -> (f64, f64) {
        if self.y[i].is_positive() {
            self.t_pos
        } else {
            self.t_neg
        }
    }

    /// `n L(a, b)`.
    fn objective(&self, a: f64, b: f64) -> f64 {
        let mut sum = Sum::new();
        for (i, &s) in self.s.iter().enumerate() {
            let f = a * s + b;
            let (t, u) = self.target(i);
            sum.add(t * softplus(-f) + u * softplus(f));
        }
        sum.value()
    }

    /// Gradient, Hessian and the magnitude scale of the gradient's terms.
    fn derivatives(&self, a: f64, b: f64) -> ([f64; 2], [f64; 3], [f64; 2]) {
        let (mut ga, mut gb) = (Sum::new(), Sum::new());
        let (mut haa, mut hab, mut hbb) = (Sum::new(), Sum::new(), Sum::new());
        let (mut sa, mut sb) = (0.0, 0.0);
        for (i, &s) in self.s.iter().enumerate() {
            let f = a * s + b;
            let p = sigmoid(f);
            let q = sigmoid(-f);
            // p - t, from the closer of the two complements
            let d = if self.y[i].is_positive() {
                self.t_pos.1 - q
            } else {
                p - self.t_neg.0
            };
            let w = p * q;
            ga.add(d * s);
            gb.add(d);
            haa.add(w * s * s);
            hab.add(w * s);
            hbb.add(w);
            sa += (d * s).abs();
            sb += d.abs();
        }
        (
            [ga.value(), gb.value()],
            [haa.value(), hab.value(), hbb.value()],
            [sa, sb],
        )
    }
}

/// Fits Platt scaling `p = sigmoid(a s + b)` on calibration scores `scores` (logits;
/// probability input as `s = logit(clip(u))`, multiclass one-vs-rest as `s = z_r` with
/// labels `y == r`) and their outcomes `labels` (positive: [`BinaryLabel::is_positive`]),
/// by Newton's method with step halving on the smoothed-target cross-entropy (module
/// docs), from `(0, logit(mean t))`, `mean t = (N+ t+ + N- t-) / n`.
///
/// `None` (undefined) when the calibration split is empty, has no positive or no
/// negative, or holds a NaN or infinite score. All scores equal: status
/// [`PlattStatus::ConstantScores`] with the start `(0, logit(mean t))`. Panics when
/// `scores.len() != labels.len()`.
pub fn fit_platt<L: BinaryLabel>(scores: &[f64], labels: &[L]) -> Option<PlattFit> {
    assert_eq!(scores.len(), labels.len(), "one label per score");
    let n = scores.len();
    let n_pos = labels.iter().filter(|y| y.is_positive()).count();
    let n_neg = n - n_pos;
    if n_pos == 0 || n_neg == 0 || scores.iter().any(|s| !s.is_finite()) {
        return None;
    }
    let (np, nn) = (n_pos as f64, n_neg as f64);
    let problem = Problem {
        s: scores,
        y: labels,
        t_pos: ((np + 1.0) / (np + 2.0), 1.0 / (np + 2.0)),
        t_neg: (1.0 / (nn + 2.0), (nn + 1.0) / (nn + 2.0)),
    };
    let mean_t = (np * problem.t_pos.0 + nn * problem.t_neg.0) / n as f64;
    let b0 = (mean_t / (1.0 - mean_t)).ln();
    let (mut a, mut b) = (0.0, b0);
    let mut fx = problem.objective(a, b);
    let finish = |a: f64, b: f64, fx: f64, status, iterations| PlattFit {
        a,
        b,
        status,
        nll_cal: fx / n as f64,
        iterations,
        n_pos,
        n_neg,
    };
    if scores.iter().all(|&s| s == scores[0]) {
        return Some(finish(a, b, fx, PlattStatus::ConstantScores, 0));
    }
    let s_max = scores.iter().fold(0.0f64, |m, s| m.max(s.abs()));
    for iteration in 0..MAX_ITERATIONS {
        let (g, h, scale) = problem.derivatives(a, b);
        if g[0].abs() <= 1e-14 * scale[0] && g[1].abs() <= 1e-14 * scale[1] {
            return Some(finish(a, b, fx, PlattStatus::Converged, iteration));
        }
        let det = h[0] * h[2] - h[1] * h[1];
        let (da, db) = if det > 0.0 && det.is_finite() {
            (
                -(h[2] * g[0] - h[1] * g[1]) / det,
                -(h[0] * g[1] - h[1] * g[0]) / det,
            )
        } else if h[2] > 0.0 {
            // numerically singular Hessian: a Newton step in b alone
            (0.0, -g[1] / h[2])
        } else {
            return Some(finish(a, b, fx, PlattStatus::Converged, iteration));
        };
        let mut step = 1.0;
        let (na, nb, nfx) = loop {
            let (na, nb) = (a + step * da, b + step * db);
            let nfx = problem.objective(na, nb);
            if nfx <= fx {
                break (na, nb, nfx);
            }
            step *= 0.5;
            if step < 1e-12 {
                // no descent left at the rounding floor
                return Some(finish(a, b, fx, PlattStatus::Converged, iteration + 1));
            }
        };
        let moved = (na - a).abs() * s_max + (nb - b).abs();
        let size = 1.0 + na.abs() * s_max + nb.abs();
        (a, b, fx) = (na, nb, nfx);
        if moved <= 1e-15 * size {
            return Some(finish(a, b, fx, PlattStatus::Converged, iteration + 1));
        }
    }
    Some(finish(
        a,
        b,
        fx,
        PlattStatus::IterationLimit,
        MAX_ITERATIONS,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undefined_and_constant() {
        assert!(fit_platt::<bool>(&[], &[]).is_none());
        assert!(fit_platt(&[1.0, 2.0], &[true, true]).is_none());
        assert!(fit_platt(&[1.0, f64::NAN], &[true, false]).is_none());
        let fit = fit_platt(&[0.3, 0.3, 0.3], &[1u32, 0, 0]).unwrap();
        assert_eq!(fit.status, PlattStatus::ConstantScores);
        assert_eq!(fit.a, 0.0);
        // mean t = (2/3 + 2 * 1/4) / 3 = 7/18
        assert!((fit.b - (7.0f64 / 11.0).ln()).abs() < 1e-15);
    }

    #[test]
    fn separable_data_has_a_finite_optimum() {
        let s = [-2.0, -1.0, 1.0, 2.0];
        let y = [false, false, true, true];
        let fit = fit_platt(&s, &y).unwrap();
        assert_eq!(fit.status, PlattStatus::Converged);
        assert!(fit.a > 0.0 && fit.a.is_finite());
        assert!(fit.b.abs() < 1e-12, "symmetric data: b = {}", fit.b);
        // the optimum matches the smoothed targets: sigmoid(2a) ~ 3/4-ish region
        let (g, _, _) = Problem {
            s: &s,
            y: &y,
            t_pos: (0.75, 0.25),
            t_neg: (0.25, 0.75),
        }
        .derivatives(fit.a, fit.b);
        assert!(g[0].abs() < 1e-14 && g[1].abs() < 1e-14);
    }
}
