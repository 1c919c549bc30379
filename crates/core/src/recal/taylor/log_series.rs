//! A narrow multiclass window as one power series (see the parent module's docs).
//!
//! Around `beta1`, row `i`'s log part is `ln P_i(h)` with `P_i(h) = 1 + e^{d2 (beta1 +
//! h)} sum_m c'_m h^m` (the window's moments re-expanded around `beta1`: `c'_m =
//! sum_{p >= m} C(p, m) delta^(p - m) c_p`, `delta = beta1 - beta0`). `P_i` is a sum of
//! positive weights times `e^{d_j h}` with every `d_j` in an interval of width at most
//! `x_max` (the row's range), so it has no zero for `|Im h| < pi / x_max`: `ln P_i` is
//! a cumulant generating function, analytic in the disc `|h| < pi / x_max`, and its
//! Taylor coefficients fall like `(x_max / pi)^m`. With `|h| <= 1/4 / x_max` the 17
//! terms kept leave a remainder of order `(1 / (4 pi))^17 < 2^-60` of the row's
//! variation, as for the binary window. The coefficients come from the moments by
//! exact recurrences (the re-expansion, a product of series, then the logarithm
//! `P Q' = P'`), computed for `B` rows at a time in lanes, summed over the rows with
//! compensated sums; every later evaluation is a polynomial of degree 16.

use super::{binomial, inverse_factorials, BIN_ORDER};
use crate::sum::Sum;

/// Rows per block (lanes).
const B: usize = 8;
/// Series order.
const M: usize = BIN_ORDER;

/// `(g0, coef)` with `sum_i ln(1 + r_i(beta1 + h)) = g0 + sum_{m=1}^{16} coef[m] h^m`
/// (to the accuracy above) from the window's moments `c[m n + i]` (`m <= order`)
/// around `beta1 - delta` and the rows' `d2`.
pub(super) fn multiclass(
    n: usize,
    order: usize,
    c: &[f64],
    d2: &[f64],
    delta: f64,
    beta1: f64,
) -> (f64, [f64; M + 1]) {
    let inv_fact = inverse_factorials::<{ M + 1 }>();
    let top = order.min(M);
    // binomials C(p, m), m <= top, p <= order
    let binom: Vec<Vec<f64>> = (0..=top)
        .map(|m| (0..=order).map(|p| binomial(p, m)).collect())
        .collect();
    let mut g0 = Sum::new();
    let mut sums = [Sum::new(); M + 1];
    let mut cm = [[0.0f64; B]; M + 1];
    let mut e = [[0.0f64; B]; M + 1];
    let mut p = [[0.0f64; B]; M + 1];
    let mut q = [[0.0f64; B]; M + 1];
    let mut i0 = 0;
    while i0 < n {
        let len = B.min(n - i0);
        let lane = |r: usize| i0 + r.min(len - 1);
        // c'_m, Horner in delta
        for (m, dst) in cm.iter_mut().enumerate().take(top + 1) {
            for (r, v) in dst.iter_mut().enumerate() {
                let i = lane(r);
                let mut acc = binom[m][order] * c[order * n + i];
                for q in (m..order).rev() {
                    acc = acc * delta + binom[m][q] * c[q * n + i];
                }
                *v = acc;
            }
        }
        // e^{d2 h} = sum_m d2^m / m! h^m, and the scale e^{d2 beta1}
        let mut power = [1.0f64; B];
        let d: [f64; B] = std::array::from_fn(|r| d2[lane(r)]);
        for m in 0..=M {
            for r in 0..B {
                e[m][r] = power[r] * inv_fact[m];
                power[r] *= d[r];
            }
        }
        let scale: [f64; B] = std::array::from_fn(|r| (d[r] * beta1).exp());
        // p_m = scale sum_j e_j c'_{m-j}
        for m in 0..=M {
            let mut v = [0.0f64; B];
            for j in m.saturating_sub(top)..=m {
                for r in 0..B {
                    v[r] += e[j][r] * cm[m - j][r];
                }
            }
            for r in 0..B {
                p[m][r] = scale[r] * v[r];
            }
        }
        // ln P: m q_m p0 = m p_m - sum_{j=1}^{m-1} j q_j p_{m-j}, p0 = 1 + p_0
        let p0: [f64; B] = std::array::from_fn(|r| 1.0 + p[0][r]);
        for m in 1..=M {
            let mut t = [0.0f64; B];
            for r in 0..B {
                t[r] = m as f64 * p[m][r];
            }
            for j in 1..m {
                for r in 0..B {
                    t[r] -= j as f64 * q[j][r] * p[m - j][r];
                }
            }
            for r in 0..B {
                q[m][r] = t[r] / (m as f64 * p0[r]);
            }
        }
        for v in &p[0][..len] {
            g0.add(v.ln_1p());
        }
        for m in 1..=M {
            let block: f64 = q[m][..len].iter().sum();
            sums[m].add(block);
        }
        i0 += len;
    }
    let mut coef = [0.0; M + 1];
    for m in 1..=M {
        coef[m] = sums[m].value();
    }
    (g0.value(), coef)
}
