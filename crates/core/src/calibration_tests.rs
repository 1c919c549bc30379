//! Statistical tests of calibration (METRICS.md §8.6) for a binary outcome `o`
//! against its forecast `u`: Spiegelhalter's z, Hosmer–Lemeshow's H on equal-mass
//! groups, and the cumulative-differences statistics of Tygert (2021) and
//! Arrieta-Ibarra et al. (2022) with the Brownian-motion p-value; plus the
//! chi-square tail and the `sup |W|` tail they need.

use crate::binning::{Binning, SortedReading};
use crate::special::normal_cdf;
use crate::sum::Sum;

/// Spiegelhalter's test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spiegelhalter {
    /// `Z = sum (o_i - u_i)(1 - 2u_i) / sqrt(sum (1 - 2u_i)² u_i (1 - u_i))`.
    pub z: f64,
    /// Two-sided `p = 2 (1 - Phi(|Z|))`, computed as `2 Phi(-|Z|)`.
    pub p: f64,
}

/// Spiegelhalter's z-test of calibration:
/// `Z = sum (o_i - u_i)(1 - 2u_i) / sqrt(sum (1 - 2u_i)² u_i (1 - u_i))`,
/// `p = 2 (1 - Phi(|Z|))`.
///
/// `None` (undefined) when the pairs are empty, hold a NaN, or the denominator is 0
/// (every `u_i` in `{0, 1/2, 1}`). A single class is defined. Panics when the lengths
/// differ.
pub fn spiegelhalter(u: &[f64], o: &[bool]) -> Option<Spiegelhalter> {
    assert_eq!(u.len(), o.len(), "one outcome per forecast");
    let mut num = Sum::new();
    let mut den = Sum::new();
    for (&ui, &oi) in u.iter().zip(o) {
        let a = 1.0 - 2.0 * ui;
        num.add((oi as u8 as f64 - ui) * a);
        den.add(a * a * ui * (1.0 - ui));
    }
    let den = den.value();
    if den <= 0.0 || !den.is_finite() {
        return None;
    }
    let z = num.value() / den.sqrt();
    if z.is_nan() {
        return None;
    }
    Some(Spiegelhalter {
        z,
        p: (2.0 * normal_cdf(-z.abs())).min(1.0),
    })
}

/// Hosmer–Lemeshow's test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HosmerLemeshow {
    /// `H = sum_g (O_g - E_g)² / (E_g (1 - E_g / n_g))`.
    pub h: f64,
    /// `p = 1 - F_chi2(H; groups - 2)`.
    pub p: f64,
    /// Number of (non-empty) groups used.
    pub groups: usize,
}

/// The default number of Hosmer–Lemeshow groups.
pub const HL_GROUPS: usize = 10;

/// Hosmer–Lemeshow on `g` equal-mass groups of the sorted reading (METRICS.md §2's
/// rule, sorted position `j` in group `floor(j g / n)`): `O_g = sum o`, `E_g = sum u`,
/// `H = sum_g (O_g - E_g)² / (E_g (1 - E_g / n_g))`, `p = 1 - F_chi2(H; g - 2)`.
/// With `g > n` some groups are empty; they are omitted and `g` counts the non-empty
/// ones (the result's `groups`).
///
/// `None` (undefined) when the reading is empty, fewer than 3 groups are non-empty,
/// or a group's denominator `E_g (1 - E_g/n_g)` is 0 (a group whose forecasts are all
/// 0 or all 1).
pub fn hosmer_lemeshow(sorted: &SortedReading, g: usize) -> Option<HosmerLemeshow> {
    let mut h = Sum::new();
    let mut groups = 0usize;
    let mut zero = false;
    sorted.for_each_bin(Binning::Mass, g, |bin| {
        let e = bin.sum_forecast;
        let den = e * (1.0 - e / bin.count() as f64);
        if den > 0.0 {
            let d = bin.successes as f64 - e;
            h.add(d * d / den);
        } else {
            zero = true;
        }
        groups += 1;
    });
    if zero || groups < 3 {
        return None;
    }
    let h = h.value();
    Some(HosmerLemeshow {
        h,
        p: chi2_sf(h, (groups - 2) as u64),
        groups,
    })
}

/// The cumulative-differences statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cumulative {
    /// `KS = max_k |C_k| / sigma`.
    pub ks: f64,
    /// `Kuiper = (max_k C_k - min_k C_k) / sigma`.
    pub kuiper: f64,
    /// `P(sup_{0<=t<=1} |W_t| >= KS)` for standard Brownian motion ([`sup_abs_bm_sf`]).
    pub p_ks: f64,
    /// `sigma = sqrt(sum u_i (1 - u_i)) / n`.
    pub sigma: f64,
}

/// The cumulative differences `C_0 = 0, C_k = (1/n) sum_{j<=k} (o_j - u_j)`,
/// `k = 1..n`, over the pairs sorted by forecast (ties by row order): the
/// cumulative reliability diagram plots `C_k` against `k/n`. Length `n + 1`; an empty
/// reading gives `[0]`.
pub fn cumulative_differences(sorted: &SortedReading) -> Vec<f64> {
    let n = sorted.len();
    let mut out = Vec::with_capacity(n + 1);
    out.push(0.0);
    let mut acc = Sum::new();
    for (k, &u) in sorted.sorted_forecasts().iter().enumerate() {
        let o = sorted.bin(0, k, k + 1).successes as f64;
        acc.add(o - u);
        out.push(acc.value() / n as f64);
    }
    out
}

/// The cumulative-differences test (Tygert 2021; Arrieta-Ibarra et al. 2022): with
/// `C_k` of [`cumulative_differences`] and `sigma = sqrt(sum u_i (1 - u_i)) / n`,
/// `KS = max_k |C_k| / sigma`, `Kuiper = (max_k C_k - min_k C_k) / sigma` (both over
/// `k = 0..n`), `p_KS = P(sup |W| >= KS)`.
///
/// `None` (undefined) when the reading is empty, holds a NaN, or `sigma = 0` (every
/// forecast 0 or 1). A single class is defined.
pub fn cumulative_test(sorted: &SortedReading) -> Option<Cumulative> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let var: Sum = sorted
        .sorted_forecasts()
        .iter()
        .map(|&u| u * (1.0 - u))
        .collect();
    let sigma = var.value().sqrt() / n as f64;
    if sigma <= 0.0 || !sigma.is_finite() {
        return None;
    }
    let c = cumulative_differences(sorted);
    let (mut lo, mut hi, mut abs) = (0.0f64, 0.0f64, 0.0f64);
    for &v in &c {
        lo = lo.min(v);
        hi = hi.max(v);
        abs = abs.max(v.abs());
    }
    let ks = abs / sigma;
    Some(Cumulative {
        ks,
        kuiper: (hi - lo) / sigma,
        p_ks: sup_abs_bm_sf(ks),
        sigma,
    })
}

/// Where [`sup_abs_bm_sf`] switches from the small-`x` to the large-`x` series (both
/// converge in a handful of terms there; `tests` compares them across `[0.3, 3]`).
const KS_SWITCH: f64 = 1.2;

/// `P(sup_{0<=t<=1} |W_t| >= x)` for standard Brownian motion by the small-`x`
/// series: `1 - (4/pi) sum_{m>=0} (-1)^m/(2m+1) exp(-pi² (2m+1)² / (8 x²))`.
pub fn sup_abs_bm_sf_small(x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let mut s = 0.0;
    for m in 0..200u32 {
        let k = (2 * m + 1) as f64;
        let term = (-std::f64::consts::PI.powi(2) * k * k / (8.0 * x * x)).exp() / k;
        s += if m % 2 == 0 { term } else { -term };
        if term < 1e-18 {
            break;
        }
    }
    1.0 - 4.0 / std::f64::consts::PI * s
}

/// The same tail by the large-`x` series, `P(sup |W| < x) = sum_{m in Z} (-1)^m
/// [Phi((2m+1)x) - Phi((2m-1)x)]`, rearranged as
/// `P(sup |W| >= x) = 4 sum_{k>=0} (-1)^k (1 - Phi((2k+1) x))` (full relative
/// accuracy in the far tail).
pub fn sup_abs_bm_sf_large(x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let mut s = 0.0;
    for k in 0..10_000u32 {
        let term = normal_cdf(-((2 * k + 1) as f64) * x);
        s += if k % 2 == 0 { term } else { -term };
        if term < 1e-18 * s.abs().max(1e-300) || term == 0.0 {
            break;
        }
    }
    (4.0 * s).min(1.0)
}

/// `P(sup_{0<=t<=1} |W_t| >= x)` for standard Brownian motion, accurate to 1e-12
/// absolute (and to a few ulps relative in the far tail): the small-`x` series
/// ([`sup_abs_bm_sf_small`]) below `x = 1.2`, the large-`x` series
/// ([`sup_abs_bm_sf_large`]) above. `x <= 0` gives 1, `+inf` gives 0, NaN gives NaN.
pub fn sup_abs_bm_sf(x: f64) -> f64 {
    if x.is_nan() {
        f64::NAN
    } else if x < KS_SWITCH {
        sup_abs_bm_sf_small(x)
    } else {
        sup_abs_bm_sf_large(x)
    }
}

/// The chi-square survival function `1 - F_chi2(x; dof)` for an integer `dof >= 1`,
/// by the closed forms of the regularised upper incomplete gamma `Q(dof/2, x/2)`
/// (`h = x/2`): even `dof = 2k`: `e^-h sum_{j<k} h^j / j!`; odd `dof = 2k + 1`:
/// `erfc(sqrt h) + e^-h sum_{j<k} h^(j+1/2) / Gamma(j + 3/2)`. Sums of positive terms,
/// so the tail keeps its relative accuracy (within ~1e-14 relative for `h < 700`, the
/// terms summed in log space beyond).
///
/// `x <= 0` gives 1, `+inf` gives 0; NaN or `dof = 0` gives NaN.
pub fn chi2_sf(x: f64, dof: u64) -> f64 {
    if x.is_nan() || dof == 0 {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    let h = x / 2.0;
    let k = dof / 2;
    let odd = dof % 2 == 1;
    let base = if odd { libm::erfc(h.sqrt()) } else { 0.0 };
    // term_0 = e^-h (even) or e^-h sqrt(h) / Gamma(3/2) (odd); term_j = term_{j-1} h / d_j
    // with d_j = j (even) or j + 1/2 (odd)
    let first_ln = if odd {
        -h + 0.5 * h.ln() - libm::lgamma(1.5)
    } else {
        -h
    };
    let step = |j: u64| if odd { j as f64 + 0.5 } else { j as f64 };
    let count = k; // dof = 2k or 2k + 1: k terms beside the erfc
    if count == 0 {
        return base;
    }
    let mut sum = Sum::new();
    if h < 700.0 {
        let mut term = first_ln.exp();
        for j in 0..count {
            if j > 0 {
                term *= h / step(j);
            }
            sum.add(term);
        }
        return (base + sum.value()).min(1.0);
    }
    // log space: ln term_j = first_ln + sum_{i<=j} ln(h / d_i)
    let ln_h = h.ln();
    let mut ln_terms = Vec::with_capacity(count as usize);
    let mut ln_term = first_ln;
    for j in 0..count {
        if j > 0 {
            ln_term += ln_h - step(j).ln();
        }
        ln_terms.push(ln_term);
    }
    let top = ln_terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    for &l in &ln_terms {
        sum.add((l - top).exp());
    }
    (base + top.exp() * sum.value()).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scipy 1.17.1, `scipy.stats.chi2.sf(x, k)`, printed by
    /// `python -c "from scipy.stats import chi2; print(float(chi2.sf(x, k)))"` in a
    /// throwaway venv (`pip install scipy`).
    const SCIPY_CHI2_SF: [(f64, u64, f64); 20] = [
        (0.5, 1, 0.47950012218695337),
        (3.84, 1, 0.05004352124870519),
        (10.0, 1, 0.001565402258002549),
        (50.0, 1, 1.537459794428033e-12),
        (200.0, 1, 2.0884875837625688e-45),
        (1.0, 2, 0.6065306597126334),
        (7.5, 3, 0.0575584519726364),
        (8.0, 8, 0.43347012036670896),
        (15.507, 8, 0.05000521928328078),
        (40.0, 8, 3.203719780476998e-06),
        (120.0, 8, 3.3153025398645396e-22),
        (2.0, 8, 0.9810118431238462),
        (0.1, 8, 0.9999997497860527),
        (5.0, 17, 0.9977708373513542),
        (60.0, 17, 1.050903345239846e-06),
        (300.0, 17, 1.125735645108784e-53),
        (900.0, 100, 6.929916559119848e-129),
        (1500.0, 1000, 1.0454640385980825e-22),
        (0.001, 3, 0.9999915920809419),
        (1000.0, 8, 1.4932281660406468e-210),
    ];

    #[test]
    fn chi2_against_scipy() {
        for (x, k, want) in SCIPY_CHI2_SF {
            let got = chi2_sf(x, k);
            let rel = (got - want).abs() / want;
            assert!(
                rel < 1e-12,
                "chi2.sf({x}, {k}) = {got:e}, scipy {want:e}, rel {rel:e}"
            );
        }
        assert_eq!(chi2_sf(0.0, 3), 1.0);
        assert_eq!(chi2_sf(f64::INFINITY, 3), 0.0);
        assert!(chi2_sf(f64::NAN, 3).is_nan() && chi2_sf(1.0, 0).is_nan());
    }

    /// The lower regularised gamma by its own power series,
    /// `P(a, h) = h^a e^-h sum_n h^n / Gamma(a + n + 1)`: an independent evaluation.
    fn chi2_cdf_series(x: f64, dof: u64) -> f64 {
        let (a, h) = (dof as f64 / 2.0, x / 2.0);
        let mut term = (a * h.ln() - h - libm::lgamma(a + 1.0)).exp();
        let mut s = 0.0;
        for n in 1..100_000 {
            s += term;
            term *= h / (a + n as f64);
            if term < 1e-20 * s {
                break;
            }
        }
        s
    }

    #[test]
    fn chi2_against_direct_series() {
        for dof in 1..40u64 {
            for i in 1..60 {
                let x = i as f64 * 0.25 * (1.0 + dof as f64 / 4.0);
                let (sf, cdf) = (chi2_sf(x, dof), chi2_cdf_series(x, dof));
                assert!(
                    (sf + cdf - 1.0).abs() < 1e-13,
                    "dof {dof} x {x}: {sf} + {cdf}"
                );
            }
        }
    }

    #[test]
    fn bm_series_agree_on_their_overlap() {
        for i in 0..=270 {
            let x = 0.3 + i as f64 * 0.01;
            let (a, b) = (sup_abs_bm_sf_small(x), sup_abs_bm_sf_large(x));
            assert!((a - b).abs() < 1e-14, "x {x}: {a} vs {b}");
        }
        assert_eq!(sup_abs_bm_sf(0.0), 1.0);
        assert_eq!(sup_abs_bm_sf(f64::INFINITY), 0.0);
        // far tail: 4 (1 - Phi(x)) to first order
        let x = 8.0;
        assert!((sup_abs_bm_sf(x) / (4.0 * normal_cdf(-x)) - 1.0).abs() < 1e-12);
        // monotone decreasing
        let mut prev = 1.0;
        for i in 1..800 {
            let p = sup_abs_bm_sf(i as f64 * 0.01);
            assert!(p <= prev, "at {}", i as f64 * 0.01);
            prev = p;
        }
    }

    #[test]
    fn tests_undefined_cases() {
        assert!(spiegelhalter(&[], &[]).is_none());
        assert!(spiegelhalter(&[0.5, 0.5], &[true, false]).is_none());
        assert!(spiegelhalter(&[0.0, 1.0], &[false, true]).is_none());
        let s = SortedReading::from_parts(&[0.0, 1.0, 1.0], &[false, true, true]);
        assert!(cumulative_test(&s).is_none());
        assert!(hosmer_lemeshow(&s, 10).is_none());
        let e = SortedReading::from_parts(&[], &[]);
        assert!(cumulative_test(&e).is_none() && hosmer_lemeshow(&e, 10).is_none());
        let two = SortedReading::from_parts(&[0.2, 0.4], &[false, true]);
        assert!(hosmer_lemeshow(&two, 10).is_none(), "two non-empty groups");
    }
}
