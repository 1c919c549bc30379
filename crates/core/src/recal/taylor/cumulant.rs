//! The binary window: Bernoulli cumulants (see the parent module's docs).

use super::{bracket, inverse_factorials, Kind, NoWindow, Window, BIN_BLOCK, BIN_ORDER, BIN_Y};
#[cfg(target_arch = "x86_64")]
use crate::recal::kernel::uses_fma;
use crate::recal::kernel::{exp2_nonpos, fmadd, ln1p_nonneg, LOG2_E, W};
use crate::sum::Sum;

/// The cumulant polynomials: `kappa_m = A_m(w)` (even `m`), `q B_m(w)` (odd `m >= 3`);
/// entry `l` is the coefficient of `w^l`.
pub(super) fn cumulant_polynomials() -> Vec<Vec<f64>> {
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
/// `positive_part` their sign-folded linear part, `nll_estimate` a recent NLL value,
/// which enters only through its power of two (rounded down: more samples count as
/// relevant, never fewer), so that estimates a few ulps or a screened bound apart
/// build the same window.
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
    let nll_estimate = 2f64.powi(nll_estimate.log2().floor() as i32);
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
