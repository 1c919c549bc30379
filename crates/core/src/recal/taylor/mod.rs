//! Local expansions of the temperature NLL for a narrow bracket ("windows").
//!
//! Once the golden-section bracket is narrow, every later probe `beta = 1/tau` lies in
//! `[beta_lo, beta_hi]`; around its midpoint `beta0`, with `h = beta - beta0`, the NLL's
//! log part is rewritten as a convergent series whose per-sample sums are taken ONCE.
//! Each later evaluation then costs O(n) (multiclass) or O(1) (binary) instead of
//! `n k` exponentials. This is a reordering of finite/convergent sums, truncated where
//! the remainder is below `2^-60` relative; it is accurate to ~1e-16 like the direct
//! kernel (the unit tests compare the two), so the golden-section procedure and its
//! outcome are those of the contract.
//!
//! **Multiclass.** Per row, with `x_j = d_j - d2 <= 0` (`d_j = z_ij - m_i`, `d2` the
//! largest `d_j` off the argmax): `r_i(beta) = e^{d2 beta} sum_j e^{x_j beta}` and
//! `sum_j e^{x_j (beta0 + h)} = sum_m h^m c_m`, `c_m = sum_j x_j^m e^{x_j beta0} / m!`
//! (exact: the exponential series, summed over `j` first). Terms with
//! `x_j beta_lo < -50` are dropped (each below `e^-50` of the row sum, which is `>= 1`);
//! the kept ones have `|x_j| <= x_bound = min(50 / beta_lo, x_max)` (`x_max` the
//! largest row range of the logits), and the window is built once `Y = x_bound h <=
//! 1`, with the smallest order whose remainder `Y^(M+1) / (M+1)! e^(2Y)` is below
//! `2^-62` (at most 19 terms past the first). `e^{d2 beta}` is evaluated exactly per
//! row.
//!
//! Once `x_max h <= 1/4` (`x_max` the largest row range), a re-centred multiclass
//! window becomes a single power series in `h` like the binary one: each row's
//! `ln(1 + r_i)` is a cumulant generating function of a distribution on an interval
//! of width `<= x_max`, analytic for `|h| < pi / x_max`, so its series, summed over
//! the rows once, converges like `(1 / (4 pi))^m` (see `log_series.rs`); later
//! evaluations cost O(1) instead of O(n).
//!
//! **Binary.** `ln(1 + e^{-a (beta0 + h)}) = g_i + K_i(-a h)` with `g_i = ln(1 +
//! e^{-a beta0})` and `K_i` the cumulant generating function of a Bernoulli(`s_i`),
//! `s_i = sigmoid(-a beta0)`: `K(t) = sum_m kappa_m(s) t^m / m!`, `kappa_1 = s`,
//! `kappa_{m+1} = s (1 - s) d kappa_m / ds`, which is a polynomial in `w = s (1 - s)`
//! (even `m`) or `q = 1 - 2 s` times one (odd `m`). So the sums `sum_i a_i^m w_i^l`
//! and `sum_i a_i^m q_i w_i^l` (all terms `>= 0`) are all that is needed. The series
//! converges for `|a h| < pi`; with `|a h| <= 1/4` and 17 terms the remainder is below
//! `(1/(4 pi))^17 < 2^-60`. Samples whose term cannot matter (`e^{-a beta_lo}` below
//! `2^-61` of the mean NLL) keep their `g_i` and drop their variation.

#[cfg(target_arch = "x86_64")]
use super::kernel::uses_fma;
use super::kernel::{exp2_nonpos, fmadd, ln1p_nonneg, transpose_block, RowStats, LOG2_E, TB, W};
use crate::data::Real;
use crate::sum::Sum;

mod cumulant;
mod log_series;
#[cfg(test)]
mod tests;

pub(crate) use cumulant::binary_window;

/// Terms `x beta_lo < -MC_DROP` are dropped (multiclass).
const MC_DROP: f64 = 50.0;
/// Multiclass expansion order (`|x h| <= 1`: remainder `< e / 20!`).
const MC_ORDER: usize = 19;
/// Multiclass windows only from this many classes (below, the direct kernel is as fast).
const MC_MIN_K: usize = 8;
/// Largest coefficient table of a multiclass window, in bytes.
const MC_MAX_BYTES: usize = 1 << 29;
/// Binary window: `|a h| <= BIN_Y` for every relevant sample.
const BIN_Y: f64 = 0.25;
/// Binary expansion order (`(BIN_Y / pi)^17 < 2^-60`).
const BIN_ORDER: usize = 16;
/// Samples per block of the binary window's moment pass.
const BIN_BLOCK: usize = 128;

/// Why no window was built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoWindow {
    /// The bracket is not narrow enough yet (decided without touching the data).
    NotYet,
    /// Never for this objective (too few classes, too much memory).
    Never,
    /// Tried on the data and failed (the NLL estimate was off); retry narrower.
    Failed,
}

/// A built window (either kind), valid for `beta` in `[beta_lo, beta_hi]`.
#[derive(Clone, Debug)]
pub struct Window {
    beta0: f64,
    beta_lo: f64,
    beta_hi: f64,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    /// `c[m * n + i]` for `m <= order`, `d2[i]`; every kept `|x| <= x_bound`.
    Multiclass {
        n: usize,
        order: usize,
        x_bound: f64,
        /// The largest row range of the logits (see [`multiclass_window`]).
        x_max: f64,
        c: Vec<f64>,
        d2: Vec<f64>,
    },
    /// `g0 + sum_{m>=1} coef[m] h^m`: the binary window, and a multiclass window once
    /// narrow enough for the rows' log series ([`log_series::multiclass`]).
    Binary { g0: f64, coef: [f64; BIN_ORDER + 1] },
}

fn inverse_factorials<const N: usize>() -> [f64; N] {
    let mut f = [1.0; N];
    for m in 1..N {
        f[m] = f[m - 1] / m as f64;
    }
    f
}

impl Window {
    /// True when `beta` lies in the window (up to rounding of `1 / tau`).
    pub(crate) fn contains(&self, beta: f64) -> bool {
        beta >= self.beta_lo * (1.0 - 1e-12) && beta <= self.beta_hi * (1.0 + 1e-12)
    }

    /// The log part of `n NLL` at `beta` (as the direct kernel's sum).
    pub(crate) fn log_sum(&self, beta: f64) -> f64 {
        let h = beta - self.beta0;
        match &self.kind {
            Kind::Binary { g0, coef } => {
                let mut p = coef[BIN_ORDER];
                for m in (1..BIN_ORDER).rev() {
                    p = p * h + coef[m];
                }
                g0 + p * h
            }
            Kind::Multiclass {
                n, order, c, d2, ..
            } => {
                #[cfg(target_arch = "x86_64")]
                if uses_fma() {
                    // SAFETY: the CPU supports AVX2 and FMA (checked above).
                    return unsafe { mc_eval_avx2(*n, *order, c, d2, h, beta * LOG2_E) };
                }
                mc_eval::<false>(*n, *order, c, d2, h, beta * LOG2_E)
            }
        }
    }

    /// Half-width of the window in `beta`.
    pub(crate) fn half_width(&self) -> f64 {
        0.5 * (self.beta_hi - self.beta_lo)
    }

    /// Re-centres a multiclass window on the narrower `[beta_lo, beta_hi]` (inside the
    /// current one), lowering its order to what the new width needs: the polynomial in
    /// `h` is re-expanded exactly around the new midpoint (`c'_m = sum_{p >= m} C(p, m)
    /// delta^(p - m) c_p`) and truncated where the dropped terms are below `2^-62`.
    /// Binary windows are O(1) per evaluation and are left as they are.
    pub(crate) fn recenter(&mut self, beta_lo: f64, beta_hi: f64) {
        let Some((beta1, h)) = bracket(beta_lo, beta_hi) else {
            return;
        };
        if beta_lo < self.beta_lo || beta_hi > self.beta_hi {
            return;
        }
        let Kind::Multiclass {
            n,
            order,
            x_bound,
            x_max,
            c,
            d2,
        } = &mut self.kind
        else {
            return;
        };
        let delta = beta1 - self.beta0;
        let n = *n;
        (self.beta0, self.beta_lo, self.beta_hi) = (beta1, beta_lo, beta_hi);
        if *x_max * h <= BIN_Y {
            let (g0, coef) = log_series::multiclass(n, *order, c, d2, delta, beta1);
            self.kind = Kind::Binary { g0, coef };
            return;
        }
        let new_order = mc_order(*x_bound * h).min(*order);
        let mut out = vec![0.0; (new_order + 1) * n];
        for m in 0..=new_order {
            // Horner in delta: sum_{p=m}^{order} C(p, m) c_p delta^(p - m)
            let dst = &mut out[m * n..(m + 1) * n];
            let top = binomial(*order, m);
            for (d, &v) in dst.iter_mut().zip(&c[*order * n..(*order + 1) * n]) {
                *d = top * v;
            }
            for p in (m..*order).rev() {
                let w = binomial(p, m);
                for (d, &v) in dst.iter_mut().zip(&c[p * n..(p + 1) * n]) {
                    // plain operations: this runs outside the FMA-dispatched kernels
                    *d = *d * delta + w * v;
                }
            }
        }
        *c = out;
        *order = new_order;
    }
}

/// `C(p, m)` (exact in f64 for the orders used here); 0 for `m > p`.
pub(super) fn binomial(p: usize, m: usize) -> f64 {
    if m > p {
        return 0.0;
    }
    (0..m).fold(1.0, |acc, i| acc * (p - i) as f64 / (i + 1) as f64)
}

/// The smallest multiclass order whose remainder `Y^(M+1) / (M+1)! e^(2Y)` is below
/// `2^-62`, for `Y = max |x h|` (at most `MC_ORDER`).
fn mc_order(y: f64) -> usize {
    let bound = (2.0 * y).exp() * 2f64.powi(62);
    let mut term = y; // Y^(M+1) / (M+1)! for M = 0
    for m in 0..MC_ORDER {
        if term * bound <= 1.0 {
            return m;
        }
        term *= y / (m + 2) as f64;
    }
    MC_ORDER
}

fn bracket(beta_lo: f64, beta_hi: f64) -> Option<(f64, f64)> {
    (beta_lo > 0.0 && beta_hi >= beta_lo && beta_hi.is_finite())
        .then_some((0.5 * (beta_lo + beta_hi), 0.5 * (beta_hi - beta_lo)))
}

/// Builds the multiclass window for `[beta_lo, beta_hi]`; `x_max` bounds every row's
/// range `max_j z_ij - min_j z_ij` (so every `|x_j| <= x_max`). The kept terms have
/// `|x| <= x_bound = min(MC_DROP / beta_lo, x_max)`; the window needs `x_bound h <= 1`
/// and takes the order [`mc_order`] of `x_bound h` (a narrow range of logits gives a
/// wider window of a lower order).
pub(crate) fn multiclass_window<T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    x_max: f64,
    beta_lo: f64,
    beta_hi: f64,
) -> Result<Window, NoWindow> {
    if k < MC_MIN_K || stats.n.saturating_mul((MC_ORDER + 1) * 8) > MC_MAX_BYTES {
        return Err(NoWindow::Never);
    }
    let (beta0, h) = bracket(beta_lo, beta_hi).ok_or(NoWindow::Never)?;
    let x_bound = (MC_DROP / beta_lo).min(x_max);
    let y = x_bound * h;
    if y.is_nan() || y > 1.0 {
        return Err(NoWindow::NotYet);
    }
    let order = mc_order(y);
    let mut c = vec![0.0; (order + 1) * stats.n];
    let mut d2 = vec![0.0; stats.n];
    #[cfg(target_arch = "x86_64")]
    if uses_fma() {
        // SAFETY: the CPU supports AVX2 and FMA (checked above).
        unsafe { mc_build_avx2(data, k, stats, order, beta0, beta_lo, &mut c, &mut d2) };
    } else {
        mc_build::<false, T>(data, k, stats, order, beta0, beta_lo, &mut c, &mut d2);
    }
    #[cfg(not(target_arch = "x86_64"))]
    mc_build::<false, T>(data, k, stats, order, beta0, beta_lo, &mut c, &mut d2);
    Ok(Window {
        beta0,
        beta_lo,
        beta_hi,
        kind: Kind::Multiclass {
            n: stats.n,
            order,
            x_bound,
            x_max,
            c,
            d2,
        },
    })
}

/// The moments `c_0..c_order` of the multiclass window, on transposed blocks of rows
/// (lanes across rows): for each class column, `p = e^{x beta0}` then `c_m += p,
/// p *= x`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn mc_build<const FMA: bool, T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    order: usize,
    beta0: f64,
    beta_lo: f64,
    c: &mut [f64],
    d2_out: &mut [f64],
) {
    let n = stats.n;
    let inv_fact = inverse_factorials::<{ MC_ORDER + 1 }>();
    let b0 = beta0 * LOG2_E;
    let mut tb = vec![0.0f64; k * TB];
    let mut acc = [[0.0f64; TB]; MC_ORDER + 1];
    let mut p = [0.0f64; TB];
    let mut xs = [0.0f64; TB];
    let mut i0 = 0;
    while i0 < n {
        let len = TB.min(n - i0);
        transpose_block(data, k, stats, i0, len, &mut tb, |i, z, m, a| {
            // the largest d_j off the argmax
            let mut d2 = f64::NEG_INFINITY;
            for (j, v) in z.iter().enumerate() {
                let d = v.to_f64() - m;
                if j != a && d > d2 {
                    d2 = d;
                }
            }
            d2_out[i] = d2;
            d2
        });
        let acc = &mut acc[..=order];
        for row in acc.iter_mut() {
            row.fill(0.0);
        }
        for col in tb.chunks_exact(TB) {
            for r in 0..TB {
                let x = col[r];
                let keep = x * beta_lo >= -MC_DROP;
                xs[r] = if keep { x } else { 0.0 };
                p[r] = if keep {
                    exp2_nonpos::<FMA>(x * b0)
                } else {
                    0.0
                };
            }
            for row in acc.iter_mut() {
                for r in 0..TB {
                    row[r] += p[r];
                    p[r] *= xs[r];
                }
            }
        }
        for (m, row) in acc.iter().enumerate() {
            for (dst, v) in c[m * n + i0..m * n + i0 + len].iter_mut().zip(row) {
                *dst = v * inv_fact[m];
            }
        }
        i0 += len;
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,fma")]
unsafe fn mc_build_avx2<T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    order: usize,
    beta0: f64,
    beta_lo: f64,
    c: &mut [f64],
    d2: &mut [f64],
) {
    mc_build::<true, T>(data, k, stats, order, beta0, beta_lo, c, d2)
}

#[inline(always)]
fn mc_eval<const FMA: bool>(n: usize, order: usize, c: &[f64], d2: &[f64], h: f64, b2: f64) -> f64 {
    const B: usize = 256;
    let mut total = Sum::new();
    let mut tmp = [0.0f64; B];
    let mut start = 0;
    while start < n {
        let len = B.min(n - start);
        let t = &mut tmp[..len];
        t.copy_from_slice(&c[order * n + start..order * n + start + len]);
        for m in (0..order).rev() {
            let row = &c[m * n + start..m * n + start + len];
            for (v, &cm) in t.iter_mut().zip(row) {
                *v = fmadd::<FMA>(*v, h, cm);
            }
        }
        for (v, &d) in t.iter_mut().zip(&d2[start..start + len]) {
            *v = ln1p_nonneg::<FMA>(exp2_nonpos::<FMA>(d * b2) * *v);
        }
        let mut acc = [0.0; W];
        let mut chunks = t.chunks_exact(W);
        for ch in &mut chunks {
            for l in 0..W {
                acc[l] += ch[l];
            }
        }
        for v in acc.into_iter().chain(chunks.remainder().iter().copied()) {
            total.add(v);
        }
        start += len;
    }
    total.value()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn mc_eval_avx2(n: usize, order: usize, c: &[f64], d2: &[f64], h: f64, b2: f64) -> f64 {
    mc_eval::<true>(n, order, c, d2, h, b2)
}
