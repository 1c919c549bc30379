//! The exact law of CSR and σ_CSR for a synthetic generator cell (METRICS.md §5 and
//! §7), in closed form, for the distributions whose weight near `c = 1` makes these
//! two metrics heavy-tailed: Uniform, Skew High, Bimodal, Tight Hi and Log-Uniform
//! High. The Beyond-ECE lab uses it as evidence where a 100-run mean cannot be
//! judged by its own standard error.
//!
//! With `u = 1 − c` and the confidence clip `m = max(u, δ)`, `δ = 1e-8`
//! ([`crate::beyond::CONFIDENCE_CLIP`]), each sample adds `w = 1[wrong] / m` to
//! `N · CSR` and `(1 − m) / m` to `N² σ_CSR²`. The samples are independent, so
//! `E[CSR] = E[w]`, `sd(CSR) = √((E[w²] − E[w]²) / N)` and
//! `E[σ_CSR²] = (E[1/m] − 1) / N`, with `P(wrong | c) = q(u)` set by the mode.
//! The low clip `c ≥ δ` is ignored (it moves these numbers by less than 1e-7
//! relative).

use crate::beyond::CONFIDENCE_CLIP;
use crate::synth::{Distribution, Mode};

/// The law of one cell's CSR and σ_CSR per run of `N` samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Law {
    /// `E[CSR]` (`None` for a mode whose `q(u)` has no closed form here).
    pub csr_mean: Option<f64>,
    /// The standard deviation of one run's CSR.
    pub csr_sd: Option<f64>,
    /// `E[σ_CSR²]`; its square root bounds `E[σ_CSR]` (Jensen) and the standard
    /// deviation of one run's σ_CSR.
    pub sigma_sq_mean: f64,
}

/// `P(wrong | u)` of `mode` as `Σ coef · u^e` (`None`: Underconf √c, whose
/// `1 − √(1 − u)` is not such a sum). The random modes average over their draw:
/// Random over c is wrong with probability `u/2`, Random under c `(1 + u)/2`.
fn wrong_terms(mode: Mode) -> Option<&'static [(f64, f64)]> {
    Some(match mode {
        Mode::Random05 => &[(0.5, 0.0)],
        Mode::Perfect => &[(1.0, 1.0)],
        Mode::UnderconfLinear => &[(0.8, 1.0)],
        Mode::UnderconfSqrt => return None,
        Mode::RandomOver => &[(0.5, 1.0)],
        Mode::OverconfSqrt => &[(1.0, 0.5)],
        Mode::OverconfHalf | Mode::RandomUnder => &[(0.5, 0.0), (0.5, 1.0)],
    })
}

/// `∫_lo^hi u^e du` (`lo > 0` when `e <= -1`).
fn power_integral(e: f64, lo: f64, hi: f64) -> f64 {
    if hi <= lo {
        0.0
    } else if e == -1.0 {
        (hi / lo).ln()
    } else {
        (hi.powf(e + 1.0) - lo.powf(e + 1.0)) / (e + 1.0)
    }
}

/// `E[u^k · 1[lo <= u < hi]]` for `u = 1 − c` of `dist`; `None` for a distribution
/// without a closed form here. `lo > 0` when `k <= -1`.
fn partial_moment(dist: Distribution, k: f64, lo: f64, hi: f64) -> Option<f64> {
    Some(match dist {
        Distribution::Uniform => power_integral(k, lo, hi.min(1.0)),
        Distribution::TightHi => 5.0 * power_integral(k, lo, hi.min(0.2)),
        // u ~ Beta(0.5, 3): density (15/16) u^(-1/2) (1 - u)^2
        Distribution::SkewHigh => {
            let hi = hi.min(1.0);
            15.0 / 16.0
                * (power_integral(k - 0.5, lo, hi) - 2.0 * power_integral(k + 0.5, lo, hi)
                    + power_integral(k + 1.5, lo, hi))
        }
        Distribution::Bimodal => {
            0.5 * partial_moment(Distribution::SkewHigh, k, lo, hi)?
                + 0.5 * skew_low_moment(k, lo, hi)
        }
        // u = e^v, v ~ U(ln 1e-6, ln 0.9)
        Distribution::LogUniformHigh => {
            let (l, h) = (1e-6f64.ln(), 0.9f64.ln());
            let (a, b) = (l.max(lo.ln()), h.min(hi.ln()));
            if b <= a {
                0.0
            } else if k == 0.0 {
                (b - a) / (h - l)
            } else {
                ((k * b).exp() - (k * a).exp()) / (k * (h - l))
            }
        }
        _ => return None,
    })
}

/// `E[u^k · 1[lo <= u < hi]]` for `u ~ Beta(3, 0.5)` (`u = 1 − c`, `c` of Skew Low),
/// `k > -3`, for the two ranges the law uses: `[0, δ)` (where `(1 − u)^(-1/2)` is 1
/// to 1e-8, so the integral is that of `u^(k+2) / B(3, 0.5)`) and `[δ, 1)` (the whole
/// moment `B(3 + k, 0.5) / B(3, 0.5)` less the first part).
fn skew_low_moment(k: f64, lo: f64, hi: f64) -> f64 {
    let b = 16.0 / 15.0; // B(3, 0.5)
    let near = |h: f64| power_integral(k + 2.0, 0.0, h) / b;
    if hi <= CONFIDENCE_CLIP {
        near(hi) - near(lo)
    } else {
        let g = libm::tgamma;
        let whole = g(3.0 + k) * g(3.5) / (g(3.5 + k) * g(3.0));
        whole - near(lo)
    }
}

/// `E[u^e / m^j]` with `m = max(u, δ)`.
fn clipped(dist: Distribution, e: f64, j: i32) -> Option<f64> {
    let d = CONFIDENCE_CLIP;
    Some(partial_moment(dist, e - j as f64, d, 1.0)? + partial_moment(dist, e, 0.0, d)? / d.powi(j))
}

/// The law of CSR and σ_CSR for `(dist, mode)` at `N = n` (see the module docs);
/// `None` for a distribution without a closed form here, or `n = 0`.
pub fn law(dist: Distribution, mode: Mode, n: usize) -> Option<Law> {
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let sigma_sq_mean = (clipped(dist, 0.0, 1)? - 1.0) / nf;
    let (csr_mean, csr_sd) = match wrong_terms(mode) {
        Some(terms) => {
            let mut w = 0.0;
            let mut w2 = 0.0;
            for &(coef, e) in terms {
                w += coef * clipped(dist, e, 1)?;
                w2 += coef * clipped(dist, e, 2)?;
            }
            (Some(w), Some(((w2 - w * w).max(0.0) / nf).sqrt()))
        }
        None => (None, None),
    };
    Some(Law {
        csr_mean,
        csr_sd,
        sigma_sq_mean,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::cell_runs;

    #[test]
    fn closed_forms() {
        // Uniform: E[1/m] = ln(1/δ) + 1
        let l = law(Distribution::Uniform, Mode::Random05, 1).unwrap();
        let want = (1e8f64).ln() + 1.0;
        assert!((l.sigma_sq_mean - (want - 1.0)).abs() < 1e-9 * want);
        assert!((l.csr_mean.unwrap() - 0.5 * want).abs() < 1e-9 * want);
        // Perfect: E[CSR] = P(u >= δ) + E[u/δ; u < δ], 1 - 1.25e-4 for Skew High
        // (P(u < δ) = (15/16) 2√δ, E[u/δ; u < δ] = (15/16) (2/3) √δ)
        for d in [
            Distribution::Uniform,
            Distribution::SkewHigh,
            Distribution::Bimodal,
            Distribution::TightHi,
            Distribution::LogUniformHigh,
        ] {
            let l = law(d, Mode::Perfect, 1000).unwrap();
            assert!(
                (l.csr_mean.unwrap() - 1.0).abs() <= 1.25e-4 + 1e-12,
                "{d:?} {l:?}"
            );
        }
        // Skew High, Random 0.5: (1/2)(15/16)(4/√δ) = 18,750 to O(1)
        let l = law(Distribution::SkewHigh, Mode::Random05, 1000).unwrap();
        assert!((l.csr_mean.unwrap() - 18_750.0).abs() < 5.0, "{l:?}");
        assert!(law(Distribution::Bell, Mode::Perfect, 10).is_none());
        assert!(law(Distribution::Uniform, Mode::Perfect, 0).is_none());
        assert!(law(Distribution::Uniform, Mode::UnderconfSqrt, 10)
            .unwrap()
            .csr_mean
            .is_none());
    }

    #[test]
    fn light_cells_match_simulation() {
        // where the tails are light enough (the terms bounded, or the wrong
        // predictions vanishing near c = 1), 2000 runs' mean CSR and σ² are within
        // 5 SE; σ² is light only for Log-Uniform High, whose 1/u stops at 1e6
        for (d, mode) in [
            (Distribution::TightHi, Mode::UnderconfLinear),
            (Distribution::LogUniformHigh, Mode::OverconfHalf),
            (Distribution::Uniform, Mode::RandomOver),
        ] {
            let n = 200;
            let l = law(d, mode, n).unwrap();
            let runs = cell_runs(d, mode, n, 2000, 7, |_| {}).unwrap();
            let s = runs.summary();
            let sq: Vec<f64> = runs.columns[4].iter().map(|s| s * s).collect();
            let sq = crate::lab::mc_mean(&sq).unwrap();
            assert!(
                (s.csr.mean - l.csr_mean.unwrap()).abs() < 5.0 * s.csr.se,
                "{d:?} {mode:?}: {s:?} {l:?}"
            );
            if d == Distribution::LogUniformHigh {
                assert!(
                    (sq.mean - l.sigma_sq_mean).abs() < 5.0 * sq.se,
                    "{sq:?} {l:?}"
                );
            }
        }
    }
}
