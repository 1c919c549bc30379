//! Beta calibration (Kull, Silva Filho & Flach, "Beta calibration: a well-founded and
//! easily implemented improvement on logistic calibration for binary classifiers",
//! AISTATS 2017), the three-parameter `abm` form, as the authors' package `betacal`
//! 1.1.0 fits it.
//!
//! On a probability `s` clipped to `[eps, 1 - eps]` (`eps` = f64 machine epsilon, as
//! the reference clips), the map is
//!
//! `p(s) = sigmoid(c + a ln s - b ln(1 - s))`,
//!
//! i.e. a logistic regression of the outcome on the two features `x1 = ln s` and
//! `x2 = -ln(1 - s)`. The reference fits it with scikit-learn's `LogisticRegression(C =
//! 99999999999)`: the summed log-loss plus `||w||^2 / (2 C)` on the two weights (the
//! intercept is not penalised). When the fitted `a` is negative it
//! refits on `x2` alone and sets `a = 0`; else when `b` is negative it refits on `x1`
//! alone and sets `b = 0`, so that the map is monotone (the refitted weight is kept
//! as fitted, even when it is negative too: the reference does not check it again). `m`, the score the map sends to
//! 1/2 (`a ln m - b ln(1 - m) + c = 0`), is reported as the authors do.
//!
//! Here the same objective is minimised exactly, by Newton's method with step
//! halving (two or three parameters: the Hessian is solved directly), instead of the
//! reference's L-BFGS that stops at a gradient tolerance of 1e-4: parameters agree
//! with the reference to about 1e-4 relative, calibrated probabilities closer.

use super::{sigmoid, BinaryLabel};
use crate::sum::Sum;

/// The reference's `C`: the weights' penalty is `||w||^2 / (2 C)`.
pub const C: f64 = 99_999_999_999.0;

/// Newton iterations before the fit is reported as not converged.
pub const MAX_ITERATIONS: usize = 200;

/// A beta calibration map `p(s) = sigmoid(c + a ln s - b ln(1 - s))`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BetaFit {
    /// Weight of `ln s` (0 when the full fit gave a negative one).
    pub a: f64,
    /// Weight of `-ln(1 - s)` (0 when the full fit gave a negative one).
    pub b: f64,
    /// Intercept.
    pub c: f64,
    /// The score sent to 1/2, in `[0, 1]` (NaN when `a = b = 0`: the map is constant).
    pub m: f64,
    /// Newton iterations of the final fit.
    pub iterations: usize,
    /// False when [`MAX_ITERATIONS`] were reached (reported, not hidden).
    pub converged: bool,
}

impl BetaFit {
    /// The calibrated probability of score `s` (clipped to `[eps, 1 - eps]`; NaN for
    /// NaN).
    pub fn predict(&self, s: f64) -> f64 {
        let (x1, x2) = features(s);
        sigmoid(self.c + self.a * x1 + self.b * x2)
    }
}

/// `(ln s, -ln(1 - s))` of `s` clipped to `[eps, 1 - eps]`.
#[inline]
fn features(s: f64) -> (f64, f64) {
    let s = s.clamp(f64::EPSILON, 1.0 - f64::EPSILON);
    (s.ln(), -(-s).ln_1p())
}

/// Fits beta calibration on calibration probabilities `scores` (of the positive
/// class) and their outcomes. `None` (undefined) when the split is empty, holds only
/// one class (the intercept has no finite optimum), or a score is NaN. Panics when
/// the lengths differ.
pub fn fit_beta<L: BinaryLabel>(scores: &[f64], labels: &[L]) -> Option<BetaFit> {
    assert_eq!(scores.len(), labels.len(), "one label per score");
    let n_pos = labels.iter().filter(|y| y.is_positive()).count();
    if n_pos == 0 || n_pos == labels.len() || scores.iter().any(|s| s.is_nan()) {
        return None;
    }
    let x: Vec<(f64, f64)> = scores.iter().map(|&s| features(s)).collect();
    let y: Vec<bool> = labels.iter().map(|l| l.is_positive()).collect();
    let full = newton(&x, &y, [true, true]);
    let (fit, used) = if full.w[0] < 0.0 {
        (newton(&x, &y, [false, true]), [false, true])
    } else if full.w[1] < 0.0 {
        (newton(&x, &y, [true, false]), [true, false])
    } else {
        (full, [true, true])
    };
    let a = if used[0] { fit.w[0] } else { 0.0 };
    let b = if used[1] { fit.w[1] } else { 0.0 };
    Some(BetaFit {
        a,
        b,
        c: fit.w[2],
        m: midpoint(a, b, fit.w[2]),
        iterations: fit.iterations,
        converged: fit.converged,
    })
}

/// The score the map sends to 1/2: the root of `g(m) = a ln m - b ln(1 - m) + c` in
/// `(0, 1)`, by bisection to the last bit (g is monotone: both weights have one sign
/// after the refit, or one is 0); without a sign change, the end of `[0, 1]` where
/// `|g|` is smaller (the reference minimises `|g|` over `[0, 1]`); NaN when `a = b =
/// 0`.
fn midpoint(a: f64, b: f64, c: f64) -> f64 {
    if a == 0.0 && b == 0.0 {
        return f64::NAN;
    }
    let g = |m: f64| a * m.ln() - b * (-m).ln_1p() + c;
    let (g_lo, g_hi) = (g(f64::MIN_POSITIVE), g(1.0 - f64::EPSILON / 2.0));
    if g_lo.signum() == g_hi.signum() || g_lo == 0.0 || g_hi == 0.0 {
        return if g_lo.abs() <= g_hi.abs() { 0.0 } else { 1.0 };
    }
    let rising = g_hi > 0.0;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    loop {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            return mid;
        }
        if (g(mid) < 0.0) == rising {
            lo = mid;
        } else {
            hi = mid;
        }
    }
}

struct Fitted {
    /// `[weight of x1, weight of x2, intercept]` (unused weights stay 0).
    w: [f64; 3],
    iterations: usize,
    converged: bool,
}

/// The data part of the objective at `w` and its derivatives, from one pass over the
/// rows (one `exp` and one `ln_1p` per row): `loss = sum_i [softplus(f_i) - y_i f_i]`,
/// `f_i = w1 x1 + w2 x2 + c`, its gradient (with the sum of the terms' absolute values,
/// the scale of the convergence test) and its Hessian.
struct Pass {
    loss: f64,
    grad: [f64; 3],
    scale: [f64; 3],
    hessian: [[f64; 3]; 3],
}

fn pass(x: &[(f64, f64)], y: &[bool], w: &[f64; 3]) -> Pass {
    let mut loss = Sum::new();
    let mut g = [Sum::new(), Sum::new(), Sum::new()];
    let mut h = [[0.0f64; 3]; 3];
    let mut scale = [0.0f64; 3];
    for (&(x1, x2), &yi) in x.iter().zip(y) {
        let f = w[0] * x1 + w[1] * x2 + w[2];
        // e = exp(-|f|): sigmoid(f) and sigmoid(-f) without cancellation, and
        // softplus(f) - y f = softplus(-f) for a positive, softplus(f) for a negative,
        // both max(g, 0) + ln(1 + e) with |g| = |f|
        let e = (-f.abs()).exp();
        let inv = 1.0 / (1.0 + e);
        let (p, q) = if f >= 0.0 {
            (inv, e * inv)
        } else {
            (e * inv, inv)
        };
        let gi = if yi { -f } else { f };
        loss.add(gi.max(0.0) + e.ln_1p());
        let d = if yi { -q } else { p };
        let curvature = p * q;
        let v = [x1, x2, 1.0];
        for j in 0..3 {
            g[j].add(d * v[j]);
            scale[j] += (d * v[j]).abs();
            for k in j..3 {
                h[j][k] += curvature * v[j] * v[k];
            }
        }
    }
    // the lower triangle from the upper one (symmetric)
    h[1][0] = h[0][1];
    h[2][0] = h[0][2];
    h[2][1] = h[1][2];
    Pass {
        loss: loss.value(),
        grad: [g[0].value(), g[1].value(), g[2].value()],
        scale,
        hessian: h,
    }
}

/// The weights' penalty `(w1^2 + w2^2) / (2 C)`.
fn penalty(w: &[f64; 3]) -> f64 {
    (w[0] * w[0] + w[1] * w[1]) / (2.0 * C)
}

/// Newton's method with step halving on `loss + penalty` over the weights marked in
/// `active` and the intercept, from zero. Each iteration is one [`pass`] at the
/// candidate point (its loss decides the step, its derivatives give the next one).
fn newton(x: &[(f64, f64)], y: &[bool], active: [bool; 2]) -> Fitted {
    let mut w = [0.0f64; 3];
    let mut at = pass(x, y, &w);
    let mut fx = at.loss + penalty(&w);
    // indices of the free parameters (active weights, then the intercept)
    let free: Vec<usize> = (0..2).filter(|&j| active[j]).chain([2]).collect();
    for iteration in 0..MAX_ITERATIONS {
        let mut grad = at.grad;
        let mut h = at.hessian;
        for j in 0..2 {
            grad[j] += w[j] / C;
            h[j][j] += 1.0 / C;
        }
        if free
            .iter()
            .all(|&j| grad[j].abs() <= 1e-13 * at.scale[j].max(f64::MIN_POSITIVE))
        {
            return Fitted {
                w,
                iterations: iteration,
                converged: true,
            };
        }
        let Some(step) = solve(&h, &grad, &free) else {
            return Fitted {
                w,
                iterations: iteration,
                converged: true,
            };
        };
        let mut t = 1.0;
        loop {
            let mut next = w;
            for (&j, s) in free.iter().zip(&step) {
                next[j] = w[j] - t * s;
            }
            let candidate = pass(x, y, &next);
            let f_next = candidate.loss + penalty(&next);
            if f_next <= fx {
                let moved = free
                    .iter()
                    .any(|&j| (next[j] - w[j]).abs() > 1e-15 * (1.0 + w[j].abs()));
                w = next;
                fx = f_next;
                at = candidate;
                if !moved {
                    return Fitted {
                        w,
                        iterations: iteration + 1,
                        converged: true,
                    };
                }
                break;
            }
            t *= 0.5;
            if t < 1e-12 {
                // no decrease along the Newton direction: at the rounding floor
                return Fitted {
                    w,
                    iterations: iteration + 1,
                    converged: true,
                };
            }
        }
    }
    Fitted {
        w,
        iterations: MAX_ITERATIONS,
        converged: false,
    }
}

/// Solves `H[free, free] step = grad[free]` by Gaussian elimination with partial
/// pivoting; `None` when the system is singular.
fn solve(h: &[[f64; 3]; 3], grad: &[f64; 3], free: &[usize]) -> Option<Vec<f64>> {
    let d = free.len();
    let mut a: Vec<Vec<f64>> = free
        .iter()
        .map(|&r| {
            let mut row: Vec<f64> = free.iter().map(|&c| h[r][c]).collect();
            row.push(grad[r]);
            row
        })
        .collect();
    for col in 0..d {
        let pivot = (col..d).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        let pivot_value = a[pivot][col];
        if pivot_value == 0.0 || !pivot_value.is_finite() {
            return None;
        }
        a.swap(col, pivot);
        let pivot_row = a[col].clone();
        for row in a.iter_mut().skip(col + 1) {
            let f = row[col] / pivot_row[col];
            for (v, p) in row.iter_mut().zip(&pivot_row).skip(col) {
                *v -= f * p;
            }
        }
    }
    let mut x = vec![0.0; d];
    for r in (0..d).rev() {
        let s: f64 = (r + 1..d).map(|c| a[r][c] * x[c]).sum();
        x[r] = (a[r][d] - s) / a[r][r];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_calibrated_beta_family_is_recovered() {
        // outcomes drawn from p = sigmoid(c + a ln s - b ln(1-s)) with a = 2, b = 0.5, c = 0.3
        let mut rng = crate::split::SplitMix64::new(7);
        let n = 200_000;
        let (mut s, mut y) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let u = rng.next_f64().clamp(1e-6, 1.0 - 1e-6);
            let p = sigmoid(0.3 + 2.0 * u.ln() + 0.5 * (-(-u).ln_1p()));
            s.push(u);
            y.push(rng.next_f64() < p);
        }
        let fit = fit_beta(&s, &y).unwrap();
        assert!(fit.converged);
        assert!((fit.a - 2.0).abs() < 0.05, "{fit:?}");
        assert!((fit.b - 0.5).abs() < 0.05, "{fit:?}");
        assert!((fit.c - 0.3).abs() < 0.05, "{fit:?}");
        assert!((fit.predict(fit.m) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_negative_weight_is_refitted_without_its_feature() {
        // outcomes decrease in ln s near 0 but increase near 1: the full fit's `a` < 0
        let s = [0.01, 0.02, 0.05, 0.3, 0.5, 0.7, 0.9, 0.95, 0.99, 0.999];
        let y = [
            true, true, false, false, false, true, false, true, true, true,
        ];
        let fit = fit_beta(&s, &y).unwrap();
        assert!(fit.a == 0.0 || fit.b == 0.0, "{fit:?}");
        let rising = fit.predict(0.999) >= fit.predict(0.001);
        for w in s.windows(2) {
            assert_eq!(fit.predict(w[0]) <= fit.predict(w[1]), rising, "monotone");
        }
    }

    #[test]
    fn one_class_empty_and_nan_are_undefined() {
        assert!(fit_beta::<bool>(&[], &[]).is_none());
        assert!(fit_beta(&[0.2, 0.8], &[true, true]).is_none());
        assert!(fit_beta(&[0.2, f64::NAN], &[true, false]).is_none());
    }
}
