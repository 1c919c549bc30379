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
//! the kept ones have `|x_j h| <= 50 h / beta_lo <= 1`, so 20 terms leave a remainder
//! below `e / 20! < 2^-60`. `e^{d2 beta}` is evaluated exactly per row.
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

use super::kernel::{exp2_nonpos, fmadd, ln1p_nonneg, uses_fma, RowStats, LOG2_E, W};
use crate::data::Real;
use crate::sum::Sum;

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
        c: Vec<f64>,
        d2: Vec<f64>,
    },
    /// `g0 + sum_{m>=1} coef[m] h^m`.
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
            c,
            ..
        } = &mut self.kind
        else {
            return;
        };
        let new_order = mc_order(*x_bound * h).min(*order);
        let delta = beta1 - self.beta0;
        let n = *n;
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
        self.beta0 = beta1;
        self.beta_lo = beta_lo;
        self.beta_hi = beta_hi;
    }
}

/// `C(p, m)` (exact in f64 for the orders used here).
fn binomial(p: usize, m: usize) -> f64 {
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

/// Builds the multiclass window for `[beta_lo, beta_hi]`.
pub(crate) fn multiclass_window<T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    beta_lo: f64,
    beta_hi: f64,
) -> Result<Window, NoWindow> {
    if k < MC_MIN_K || stats.n.saturating_mul((MC_ORDER + 1) * 8) > MC_MAX_BYTES {
        return Err(NoWindow::Never);
    }
    let (beta0, h) = bracket(beta_lo, beta_hi).ok_or(NoWindow::Never)?;
    if MC_DROP * h > beta_lo {
        return Err(NoWindow::NotYet);
    }
    let mut c = vec![0.0; (MC_ORDER + 1) * stats.n];
    let mut d2 = vec![0.0; stats.n];
    #[cfg(target_arch = "x86_64")]
    if uses_fma() {
        // SAFETY: the CPU supports AVX2 and FMA (checked above).
        unsafe { mc_build_avx2(data, k, stats, beta0, beta_lo, &mut c, &mut d2) };
    } else {
        mc_build::<false, T>(data, k, stats, beta0, beta_lo, &mut c, &mut d2);
    }
    #[cfg(not(target_arch = "x86_64"))]
    mc_build::<false, T>(data, k, stats, beta0, beta_lo, &mut c, &mut d2);
    Ok(Window {
        beta0,
        beta_lo,
        beta_hi,
        kind: Kind::Multiclass {
            n: stats.n,
            order: MC_ORDER,
            x_bound: MC_DROP / beta_lo,
            c,
            d2,
        },
    })
}

#[inline(always)]
fn mc_build<const FMA: bool, T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    beta0: f64,
    beta_lo: f64,
    c: &mut [f64],
    d2_out: &mut [f64],
) {
    let n = stats.n;
    let kp = k.div_ceil(W) * W;
    let inv_fact = inverse_factorials::<{ MC_ORDER + 1 }>();
    let b0 = beta0 * LOG2_E;
    let mut x = vec![f64::NEG_INFINITY; kp];
    let mut xs = vec![0.0; kp];
    let mut e = vec![0.0; kp];
    for i in 0..n {
        let r = stats.rows.map_or(i, |rows| rows[i]);
        let z = &data[r * k..r * k + k];
        let (m, a) = (stats.max[i], stats.argmax[i] as usize);
        let mut d2 = f64::NEG_INFINITY;
        for (j, v) in z.iter().enumerate() {
            let d = v.to_f64() - m;
            if j != a && d > d2 {
                d2 = d;
            }
        }
        for (xj, v) in x.iter_mut().zip(z) {
            *xj = (v.to_f64() - m) - d2;
        }
        x[a] = f64::NEG_INFINITY;
        for ((xj, sj), ej) in x.iter().zip(xs.iter_mut()).zip(e.iter_mut()) {
            let keep = *xj * beta_lo >= -MC_DROP;
            *sj = if keep { *xj } else { 0.0 };
            *ej = if keep {
                exp2_nonpos::<FMA>(*xj * b0)
            } else {
                0.0
            };
        }
        for (order, f) in inv_fact.iter().enumerate() {
            let mut acc = [0.0; W];
            for ch in e.chunks_exact(W) {
                for l in 0..W {
                    acc[l] += ch[l];
                }
            }
            c[order * n + i] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) * f;
            for (ej, sj) in e.iter_mut().zip(&xs) {
                *ej *= *sj;
            }
        }
        d2_out[i] = d2;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn mc_build_avx2<T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    beta0: f64,
    beta_lo: f64,
    c: &mut [f64],
    d2: &mut [f64],
) {
    mc_build::<true, T>(data, k, stats, beta0, beta_lo, c, d2)
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

/// The cumulant polynomials: `kappa_m = A_m(w)` (even `m`), `q B_m(w)` (odd `m >= 3`);
/// entry `l` is the coefficient of `w^l`.
fn cumulant_polynomials() -> Vec<Vec<f64>> {
    // A_1 = 1/2, B_1 = -1/2; A_{m+1} = w ((1 - 4w) B_m' - 2 B_m), B_{m+1} = w A_m'
    let deriv = |p: &[f64]| -> Vec<f64> { (1..p.len()).map(|l| l as f64 * p[l]).collect() };
    let (mut a, mut b) = (vec![0.5], vec![-0.5]);
    let mut out = vec![Vec::new(), Vec::new()];
    for _ in 2..=BIN_ORDER {
        let (da, db) = (deriv(&a), deriv(&b));
        let mut na = vec![0.0; db.len() + 3];
        for (l, v) in db.iter().enumerate() {
            na[l + 1] += v;
            na[l + 2] -= 4.0 * v;
        }
        for (l, v) in b.iter().enumerate() {
            na[l + 1] -= 2.0 * v;
        }
        let mut nb = vec![0.0; da.len() + 1];
        for (l, v) in da.iter().enumerate() {
            nb[l + 1] += v;
        }
        (a, b) = (na, nb);
        let even = out.len() % 2 == 0;
        let p = if even { &a } else { &b };
        let mut p = p.clone();
        while p.len() > 1 && p[p.len() - 1] == 0.0 {
            p.pop();
        }
        out.push(p);
    }
    out
}

/// Builds the binary window for `[beta_lo, beta_hi]`: `abs_t` are the `|t_i|`,
/// `positive_part` their sign-folded linear part, `nll_estimate` a recent NLL value.
pub(crate) fn binary_window(
    abs_t: &[f64],
    a_max: f64,
    positive_part: f64,
    beta_lo: f64,
    beta_hi: f64,
    nll_estimate: f64,
) -> Result<Window, NoWindow> {
    let (beta0, h) = bracket(beta_lo, beta_hi).ok_or(NoWindow::Never)?;
    if !(nll_estimate > 0.0 && nll_estimate.is_finite()) {
        return Err(NoWindow::NotYet);
    }
    // relevant samples: e^{-a beta_lo} > 2^-61 nll_estimate / 2
    let cut = 62.0 * std::f64::consts::LN_2 - nll_estimate.ln();
    let a_cut = cut / beta_lo;
    if a_max.min(a_cut) * h > BIN_Y {
        if a_max < a_cut {
            return Err(NoWindow::NotYet);
        }
        // samples beyond the cut exist: the largest relevant |t| decides (one scan)
        let a_rel = abs_t
            .iter()
            .fold(0.0f64, |m, &a| if a < a_cut && a > m { a } else { m });
        if a_rel * h > BIN_Y {
            return Err(NoWindow::NotYet);
        }
    }
    #[cfg(target_arch = "x86_64")]
    let (g0, sums) = if uses_fma() {
        // SAFETY: the CPU supports AVX2 and FMA (checked above).
        unsafe { bin_build_avx2(abs_t, beta0, a_cut) }
    } else {
        bin_build::<false>(abs_t, beta0, a_cut)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let (g0, sums) = bin_build::<false>(abs_t, beta0, a_cut);
    let n = abs_t.len() as f64;
    if (positive_part * beta0 + g0) / n < 0.5 * nll_estimate {
        return Err(NoWindow::Failed);
    }
    let polys = cumulant_polynomials();
    let inv_fact = inverse_factorials::<{ BIN_ORDER + 1 }>();
    let mut coef = [0.0; BIN_ORDER + 1];
    for m in 1..=BIN_ORDER {
        let kappa_sum = if m == 1 {
            sums.first
        } else {
            let mut s = Sum::new();
            for (l, &p) in polys[m].iter().enumerate().skip(1) {
                s.add(p * sums.get(m, l));
            }
            s.value()
        };
        let sign = if m % 2 == 0 { 1.0 } else { -1.0 };
        coef[m] = sign * kappa_sum * inv_fact[m];
    }
    Ok(Window {
        beta0,
        beta_lo,
        beta_hi,
        kind: Kind::Binary { g0, coef },
    })
}

/// `sum a s` and the sums `sum a^m w^l` (even m) / `sum a^m q w^l` (odd m).
struct MomentSums {
    first: f64,
    /// `table[m][l]`, `1 <= l <= m / 2`.
    table: Vec<Vec<f64>>,
}

impl MomentSums {
    fn get(&self, m: usize, l: usize) -> f64 {
        self.table[m][l]
    }
}

#[inline(always)]
fn lanes(v: &[f64]) -> [f64; W] {
    let mut acc = [0.0; W];
    for ch in v.chunks_exact(W) {
        for l in 0..W {
            acc[l] += ch[l];
        }
    }
    acc
}

#[inline(always)]
fn bin_build<const FMA: bool>(abs_t: &[f64], beta0: f64, a_cut: f64) -> (f64, MomentSums) {
    const HALF: usize = BIN_ORDER / 2;
    let b0 = beta0 * LOG2_E;
    let mut g0 = Sum::new();
    let mut first = Sum::new();
    let mut table: Vec<Vec<Sum>> = (0..=BIN_ORDER)
        .map(|m| vec![Sum::new(); m / 2 + 1])
        .collect();
    let mut g = [0.0f64; BIN_BLOCK];
    let mut am = [0.0f64; BIN_BLOCK]; // a (0 for irrelevant samples)
    let mut pw = [0.0f64; BIN_BLOCK]; // a^m
    let mut t = [0.0f64; BIN_BLOCK];
    let mut wp = [[0.0f64; BIN_BLOCK]; HALF + 1]; // w^l
    let mut qp = [[0.0f64; BIN_BLOCK]; HALF + 1]; // q w^l
    for block in abs_t.chunks(BIN_BLOCK) {
        let len = block.len();
        let lp = len.div_ceil(W) * W;
        for (j, &a) in block.iter().enumerate() {
            let u = exp2_nonpos::<FMA>(-a * b0);
            g[j] = ln1p_nonneg::<FMA>(u);
            let rel = a < a_cut;
            let inv = 1.0 / (1.0 + u);
            let s = u * inv; // sigmoid(-a beta0)
            let w = s * inv; // s (1 - s)
            let q = (1.0 - u) * inv; // 1 - 2 s
            am[j] = if rel { a } else { 0.0 };
            t[j] = if rel { a * s } else { 0.0 };
            wp[1][j] = if rel { w } else { 0.0 };
            qp[1][j] = if rel { q * w } else { 0.0 };
        }
        for j in len..lp {
            (g[j], am[j], t[j], wp[1][j], qp[1][j]) = (0.0, 0.0, 0.0, 0.0, 0.0);
        }
        lanes(&g[..lp]).into_iter().for_each(|v| g0.add(v));
        lanes(&t[..lp]).into_iter().for_each(|v| first.add(v));
        for l in 2..=HALF {
            for j in 0..lp {
                wp[l][j] = wp[l - 1][j] * wp[1][j];
                qp[l][j] = qp[l - 1][j] * wp[1][j];
            }
        }
        pw[..lp].copy_from_slice(&am[..lp]);
        for (m, row) in table.iter_mut().enumerate().skip(2) {
            for j in 0..lp {
                pw[j] *= am[j];
            }
            for (l, cell) in row.iter_mut().enumerate().skip(1) {
                let src = if m % 2 == 0 { &wp[l] } else { &qp[l] };
                let mut acc = [0.0; W];
                for (pc, wc) in pw[..lp].chunks_exact(W).zip(src[..lp].chunks_exact(W)) {
                    for i in 0..W {
                        acc[i] = fmadd::<FMA>(pc[i], wc[i], acc[i]);
                    }
                }
                for v in acc {
                    cell.add(v);
                }
            }
        }
    }
    let table = table
        .into_iter()
        .map(|row| row.into_iter().map(|s| s.value()).collect())
        .collect();
    (
        g0.value(),
        MomentSums {
            first: first.value(),
            table,
        },
    )
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn bin_build_avx2(abs_t: &[f64], beta0: f64, a_cut: f64) -> (f64, MomentSums) {
    bin_build::<true>(abs_t, beta0, a_cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulants_of_a_bernoulli() {
        let p = cumulant_polynomials();
        assert_eq!(p[2], vec![0.0, 1.0]); // w
        assert_eq!(p[3], vec![0.0, 1.0]); // q w
        assert_eq!(p[4], vec![0.0, 1.0, -6.0]); // w (1 - 6 w)
        assert_eq!(p[5], vec![0.0, 1.0, -12.0]); // q w (1 - 12 w)
        assert_eq!(p[6], vec![0.0, 1.0, -30.0, 120.0]);
    }
}

#[cfg(test)]
mod window_tests {
    use super::*;
    use crate::recal::kernel::{binary_sums, multiclass_sums};

    /// A deterministic pseudo-random stream in [0, 1).
    fn stream(seed: u64) -> impl FnMut() -> f64 {
        let mut x = seed;
        move || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn multiclass_window_matches_the_direct_sum() {
        let mut worst: f64 = 0.0;
        let mut u = stream(3);
        let (n, k) = (300, 12);
        let mut z: Vec<f64> = (0..n * k).map(|_| 8.0 * (u() - 0.5)).collect();
        // a few extreme rows: huge spreads (dropped terms), ties, a confident row
        z[5 * k + 3] = -400.0;
        z[6 * k + 1] = z[6 * k];
        z[7 * k] = 90.0;
        let mut max = vec![];
        let mut argmax = vec![];
        for row in z.chunks(k) {
            let (mut m, mut a) = (f64::NEG_INFINITY, 0);
            for (j, &v) in row.iter().enumerate() {
                if v > m {
                    (m, a) = (v, j);
                }
            }
            max.push(m);
            argmax.push(a as u32);
        }
        let stats = RowStats {
            rows: None,
            n,
            max,
            argmax,
        };
        for (lo, hi) in [(0.5, 0.505), (1.0, 1.0399), (0.1, 0.10399), (19.0, 19.759)] {
            let w = multiclass_window(&z, k, &stats, lo, hi).expect("narrow enough");
            for i in 0..=20 {
                let beta = lo + (hi - lo) * i as f64 / 20.0;
                let direct = multiclass_sums(&z, k, &stats, [LOG2_E * beta])[0];
                let got = w.log_sum(beta);
                worst = worst.max(rel(got, direct));
                assert!(rel(got, direct) < 4e-16, "beta {beta}: {got} vs {direct}");
            }
        }
        // re-centred windows: narrower brackets inside, lower orders
        let mut w = multiclass_window(&z, k, &stats, 1.0, 1.0399).unwrap();
        let (mut lo, mut hi) = (1.0, 1.0399);
        for step in 0..12 {
            // shrink towards a point off-centre, as the golden-section bracket does
            let target = 1.0 + 0.0399 * 0.7;
            (lo, hi) = (lo + 0.4 * (target - lo), hi - 0.4 * (hi - target));
            w.recenter(lo, hi);
            for i in 0..=10 {
                let beta = lo + (hi - lo) * i as f64 / 10.0;
                let direct = multiclass_sums(&z, k, &stats, [LOG2_E * beta])[0];
                let got = w.log_sum(beta);
                worst = worst.max(rel(got, direct));
                assert!(
                    rel(got, direct) < 4e-16,
                    "step {step}, beta {beta}: {got} vs {direct}"
                );
            }
        }
        eprintln!("multiclass window: worst relative difference {worst:e}");
        assert_eq!(
            multiclass_window(&z, k, &stats, 1.0, 1.1).unwrap_err(),
            NoWindow::NotYet
        );
    }

    #[test]
    fn binary_window_matches_the_direct_sum() {
        let mut worst: f64 = 0.0;
        let mut u = stream(5);
        let mut a: Vec<f64> = (0..1000).map(|_| 12.0 * u() * u()).collect();
        a[10] = 0.0;
        a[11] = 3000.0; // irrelevant: variation dropped, value kept
        let a_max_rel = 12.0;
        for (lo, hi) in [(0.9, 0.93), (1.0, 1.0416), (10.0, 10.05), (0.05, 0.06)] {
            let direct0 = binary_sums(&a, [LOG2_E * lo])[0];
            let est = direct0 / a.len() as f64;
            let w = binary_window(&a, 3000.0, 0.0, lo, hi, est);
            let w = match w {
                Ok(w) => w,
                Err(e) => panic!(
                    "[{lo}, {hi}]: {e:?} (a h = {})",
                    a_max_rel * (hi - lo) / 2.0
                ),
            };
            for i in 0..=20 {
                let beta = lo + (hi - lo) * i as f64 / 20.0;
                let direct = binary_sums(&a, [LOG2_E * beta])[0];
                let got = w.log_sum(beta);
                worst = worst.max(rel(got, direct));
                assert!(rel(got, direct) < 4e-16, "beta {beta}: {got} vs {direct}");
            }
        }
        eprintln!("binary window: worst relative difference {worst:e}");
    }
}
