//! The maths of the teaching labs: closed-form expectations of the truthful
//! calibration errors in the three-class example of seed 000 ("truthful calibration
//! errors"), their Monte-Carlo check, the "exact conditioning" example, and the
//! repeated-run summaries and counterexample of seed 002 (beyond ECE).
//!
//! Every metric is computed by the functions of this crate that the audit uses
//! ([`crate::binning`], [`crate::truthful`], [`crate::beyond`], [`crate::auc`]); this
//! module only builds worlds, strategies and expectations around them.

use crate::beyond::RiskAccumulator;
use crate::binning::{for_each_mass_bin, Binning, SortedReading};
use crate::split::SplitMix64;
use crate::sum::Sum;
use crate::synth::{Distribution, Mode};

pub use crate::lab_tables::{
    paper_cell, paper_row, PaperCell, PaperRow, PAPER_REPS, PAPER_TABLE5, PAPER_TABLES_8_9,
    TABLES_8_9_N,
};

/// How a forecaster turns the true posterior `p*` into its report (seed 000's
/// strategic reports).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Strategy {
    /// Report `p*` itself.
    Honest,
    /// Report `(1/k, ..., 1/k)` whatever `p*` is. In the lab's world (below) this is
    /// also the constant base-rate report, since every class has base rate `1/k`.
    Uniform,
    /// Report `softmax(ln p* / T)`: `T < 1` sharpens, `T > 1` flattens (`T > 0`).
    Temperature(f64),
    /// Report the honest top class with its confidence rounded to the nearest
    /// multiple of `1/g` (`g >= 1`): a coarse forecaster.
    Coarse(u32),
}

/// What a strategy's top-label reading looks like in the lab's world: every sample
/// has confidence `confidence`, and is correct with probability `q`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TopReport {
    /// The reported top-label confidence `c`.
    pub confidence: f64,
    /// `q = P(z = 1)`, the true probability of the reported top class.
    pub q: f64,
}

/// Checks `p*`: at least 2 classes, finite non-negative entries summing to 1 within
/// `1e-6`. The error says what is wrong.
pub fn check_posterior(p_star: &[f64]) -> Result<(), String> {
    if p_star.len() < 2 || p_star.len() > 10 {
        return Err(format!("p* needs 2 to 10 classes, got {}", p_star.len()));
    }
    if p_star.iter().any(|p| !p.is_finite() || *p < 0.0) {
        return Err("p* must be finite and non-negative".into());
    }
    let s: f64 = p_star.iter().sum();
    if (s - 1.0).abs() > 1e-6 {
        return Err(format!("p* must sum to 1 (it sums to {s})"));
    }
    Ok(())
}

/// The top-label report of `strategy` in the lab's world.
///
/// The world (our construction, so that the example of seed 000 does not depend on a
/// tie rule): every sample's posterior is `p*` with its classes in a uniformly random
/// order, known to the honest forecaster. A report that follows `p*` (honest,
/// temperature, coarse) picks the true top class, so `q = max p*`; the uniform
/// report's tie rule (lowest index) picks a fixed class, whose true probability is
/// `1/k` on average over the random order, so `q = 1/k` and `c = 1/k`.
pub fn top_report(p_star: &[f64], strategy: Strategy) -> Result<TopReport, String> {
    check_posterior(p_star)?;
    let k = p_star.len() as f64;
    let top = p_star.iter().cloned().fold(0.0, f64::max);
    Ok(match strategy {
        Strategy::Honest => TopReport {
            confidence: top,
            q: top,
        },
        Strategy::Uniform => TopReport {
            confidence: 1.0 / k,
            q: 1.0 / k,
        },
        Strategy::Temperature(t) => {
            if !(t.is_finite() && t > 0.0) {
                return Err(format!("the temperature must be positive, got {t}"));
            }
            // (p_j / p_max)^(1/T), normalised; zeros stay zero
            let total: f64 = p_star.iter().map(|&p| (p / top).powf(1.0 / t)).sum();
            TopReport {
                confidence: 1.0 / total,
                q: top,
            }
        }
        Strategy::Coarse(g) => {
            if g == 0 {
                return Err("the grid needs at least one step".into());
            }
            TopReport {
                confidence: (top * g as f64).round() / g as f64,
                q: top,
            }
        }
    })
}

/// `Σ_B (n_B / n)²` for `n` samples that all report the same confidence: 1 for
/// equal-width binning (one bin holds them all); for equal-mass binning, whose bins
/// split tied forecasts by row order (METRICS.md §2), the sizes of its `m` bins.
/// 0 when `n = 0` or `m = 0`.
pub fn tied_bin_share(binning: Binning, n: usize, m: usize) -> f64 {
    if n == 0 || m == 0 {
        return 0.0;
    }
    match binning {
        Binning::Width => 1.0,
        Binning::Mass => {
            let mut s = Sum::new();
            for_each_mass_bin(n, m, |_, a, b| {
                let f = (b - a) as f64 / n as f64;
                s.add(f * f)
            });
            s.value()
        }
    }
}

/// Expected ConfCE and ConfCE^corr of one strategy, in closed form.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Expected {
    /// `E[ConfCE] = (c - q)² S + q(1 - q)/n`.
    pub confce: f64,
    /// `E[ConfCE^corr] = (c - q)² S + (1 - q²)/n`.
    pub confce_corr: f64,
}

/// The expectations of ConfCE and ConfCE^corr (METRICS.md §4) when `n` samples all
/// report confidence `c` and are correct independently with probability `q`, binned
/// with share `S = Σ_B (n_B/n)²` ([`tied_bin_share`]).
///
/// Per bin, `Σ_{i∈B} (c - z_i)` has mean `n_B (c - q)` and variance `n_B q(1 - q)`,
/// so `E[(Σ_{i∈B} (c - z_i))²] = n_B² (c - q)² + n_B q(1 - q)`; dividing by `n²` and
/// summing over bins gives `E[ConfCE] = (c - q)² S + q(1 - q)/n`. The correction
/// `(1/n)(1 - mean z)` adds `(1 - q)/n`, and `q(1 - q) + 1 - q = 1 - q²`: the
/// sampling term becomes `(1 - q²)/n`, decreasing in `q` (seed 000's argument), so a
/// forecaster lowers it only by picking the truly likeliest class. `None` when
/// `n = 0`.
pub fn expected(report: TopReport, n: usize, share: f64) -> Option<Expected> {
    (n > 0).then(|| {
        let (c, q, nf) = (report.confidence, report.q, n as f64);
        let bias = (c - q) * (c - q) * share;
        Expected {
            confce: bias + q * (1.0 - q) / nf,
            confce_corr: bias + (1.0 - q * q) / nf,
        }
    })
}

/// A Monte-Carlo mean with its standard error `sd / sqrt(R)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct McMean {
    /// Mean over the repetitions.
    pub mean: f64,
    /// Standard error of that mean (0 with one repetition).
    pub se: f64,
}

/// Mean and standard error of `values`; `None` when empty.
pub fn mc_mean(values: &[f64]) -> Option<McMean> {
    let r = values.len();
    let mean = crate::sum::mean(values.iter().copied())?;
    let var = if r > 1 {
        crate::sum::sum(values.iter().map(|v| (v - mean) * (v - mean))) / (r - 1) as f64
    } else {
        0.0
    };
    Some(McMean {
        mean,
        se: (var / r as f64).sqrt(),
    })
}

/// Simulated ConfCE and ConfCE^corr of one strategy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Simulated {
    /// ConfCE over the repetitions.
    pub confce: McMean,
    /// ConfCE^corr over the repetitions.
    pub confce_corr: McMean,
}

/// How [`simulate_truth`] samples: `reps` data sets of `n` samples, binned with `m`
/// bins of `binning`, from the stream seeded with `seed`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Design {
    /// Samples per data set.
    pub n: usize,
    /// The binning of ConfCE.
    pub binning: Binning,
    /// Its bin count.
    pub m: usize,
    /// Number of data sets.
    pub reps: usize,
    /// Seed of the SplitMix64 stream.
    pub seed: u64,
}

/// Simulates the lab's world `reps` times with `n` samples (seeded), and computes each
/// strategy's ConfCE (the core's binned LinCE of the confidence reading) and
/// ConfCE^corr ([`crate::truthful::confce_corrected`]). All strategies see the same
/// draws (common random numbers). Per sample: a uniformly random order of `p*`'s
/// classes (Fisher-Yates), then the label from the reordered `p*`. `progress(r)` is
/// called after each repetition. Errors on a bad `p*` or strategy, or a zero size.
pub fn simulate_truth(
    p_star: &[f64],
    strategies: &[Strategy],
    design: Design,
    mut progress: impl FnMut(usize),
) -> Result<Vec<Simulated>, String> {
    let Design {
        n,
        binning,
        m,
        reps,
        seed,
    } = design;
    let reports = strategies
        .iter()
        .map(|&s| top_report(p_star, s))
        .collect::<Result<Vec<_>, _>>()?;
    if n == 0 || m == 0 || reps == 0 {
        return Err("n, m and the repetitions must be at least 1".into());
    }
    let k = p_star.len();
    let mut rng = SplitMix64::new(seed);
    let mut values = vec![(Vec::with_capacity(reps), Vec::with_capacity(reps)); reports.len()];
    let mut follows = vec![false; n]; // z of a report that follows p*
    let mut fixed = vec![false; n]; // z of the uniform report (class 0)
    let mut order: Vec<usize> = (0..k).collect();
    for r in 0..reps {
        for i in 0..n {
            for j in (1..k).rev() {
                order.swap(j, (rng.next_u64() % (j as u64 + 1)) as usize);
            }
            // class c has probability p*[order[c]]; the top class is the lowest c
            // whose order[c] is an argmax of p*
            let u = rng.next_f64();
            let mut acc = 0.0;
            let mut label = k - 1;
            for (c, &o) in order.iter().enumerate() {
                acc += p_star[o];
                if u < acc {
                    label = c;
                    break;
                }
            }
            let top = (0..k)
                .reduce(|a, b| {
                    if p_star[order[b]] > p_star[order[a]] {
                        b
                    } else {
                        a
                    }
                })
                .unwrap_or(0);
            follows[i] = label == top;
            fixed[i] = label == 0;
        }
        for ((report, strategy), out) in reports.iter().zip(strategies).zip(values.iter_mut()) {
            let z = if *strategy == Strategy::Uniform {
                &fixed
            } else {
                &follows
            };
            let sorted = SortedReading::from_sorted(vec![report.confidence; n], z);
            let confce = sorted.metrics(binning, m).lince;
            let acc = Some(sorted.total_successes() as f64 / n as f64);
            let corr = crate::truthful::confce_corrected(confce, n, acc);
            out.0.push(confce.unwrap_or(f64::NAN));
            out.1.push(corr.unwrap_or(f64::NAN));
        }
        progress(r + 1);
    }
    Ok(values
        .iter()
        .map(|(a, b)| Simulated {
            confce: mc_mean(a).unwrap_or_default(),
            confce_corr: mc_mean(b).unwrap_or_default(),
        })
        .collect())
}

/// The "exact conditioning" example of seed 000 in closed form: forecasts `p_i ~
/// U(0, 1)`, labels `y_i ~ Bernoulli(p_i)`, and the ECE computed with one bin per
/// distinct forecast. Returns `(truthful, constant)`:
/// * the truthful forecaster reports `p_i`; its bins are single samples, so
///   `E[ECE] = E|p - y| = E[2p(1 - p)] = 1/3`, whatever `n`: O(1);
/// * the constant forecaster reports the base rate `1/2`; one bin, so
///   `ECE = |S/n - 1/2|` with `S ~ Binomial(n, 1/2)`, whose mean (summed exactly
///   over the binomial law) is about `sqrt(1/(2πn))`: O(1/√n).
///
/// `None` when `n = 0`.
pub fn exact_conditioning(n: usize) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let ln_half = -(2f64.ln());
    let mut ln_choose = 0.0; // ln C(n, s)
    let mut total = Sum::new();
    for s in 0..=n {
        if s > 0 {
            ln_choose += ((n - s + 1) as f64 / s as f64).ln();
        }
        let pmf = (ln_choose + nf * ln_half).exp();
        total.add(pmf * (s as f64 / nf - 0.5).abs());
    }
    Some((1.0 / 3.0, total.value()))
}

/// Simulated ECEs of the exact-conditioning example (see [`exact_conditioning`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactSim {
    /// The truthful forecaster with `n` equal-mass bins: one sample per bin, which is
    /// exact conditioning for distinct forecasts.
    pub truthful: McMean,
    /// The constant forecaster (one bin).
    pub constant: McMean,
    /// The truthful forecaster with `m` equal-width bins: the noise it pays falls
    /// like `sqrt(m/n)` instead of staying O(1).
    pub binned: McMean,
}

/// Simulates the exact-conditioning example `reps` times with `n` samples (see
/// [`ExactSim`]). `None` when `n`, `m` or `reps` is 0.
pub fn simulate_exact_conditioning(n: usize, m: usize, reps: usize, seed: u64) -> Option<ExactSim> {
    if n == 0 || m == 0 || reps == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut cols: [Vec<f64>; 3] = Default::default();
    let mut p = vec![0.0; n];
    let mut y = vec![false; n];
    for _ in 0..reps {
        for i in 0..n {
            p[i] = rng.next_f64();
            y[i] = rng.next_f64() < p[i];
        }
        let sorted = SortedReading::from_parts(&p, &y);
        cols[0].push(sorted.metrics(Binning::Mass, n).ece?);
        let flat = SortedReading::from_sorted(vec![0.5; n], &y);
        cols[1].push(flat.metrics(Binning::Width, 1).ece?);
        cols[2].push(sorted.metrics(Binning::Width, m).ece?);
    }
    Some(ExactSim {
        truthful: mc_mean(&cols[0])?,
        constant: mc_mean(&cols[1])?,
        binned: mc_mean(&cols[2])?,
    })
}

/// The Table 5 style summary of one generator cell over repetitions (seed 002).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CellSummary {
    /// Repetitions run.
    pub reps: usize,
    /// Mean accuracy.
    pub acc: McMean,
    /// Mean cwA.
    pub cwa: McMean,
    /// Mean gain (a fraction; undefined repetitions are left out).
    pub gain: McMean,
    /// Mean CSR.
    pub csr: McMean,
    /// Mean σ_CSR.
    pub sigma_csr: McMean,
    /// Fraction of repetitions with `CSR > 1 + σ_CSR`.
    pub beyond_1sigma: f64,
    /// Fraction of repetitions with `CSR > 1 + 3 σ_CSR`.
    pub beyond_3sigma: f64,
    /// Mean P_risk.
    pub p_risk: McMean,
}

/// The per-repetition values behind a [`CellSummary`], in Table 5's column order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CellRuns {
    /// Repetitions run.
    pub reps: usize,
    /// One list per column, one value per repetition: Acc, cwA, gain (repetitions
    /// where it is undefined are left out), CSR, σ_CSR, `1[CSR > 1 + σ]` and
    /// `1[CSR > 1 + 3σ]` (as 0 or 1), P_risk.
    pub columns: [Vec<f64>; 8],
}

impl CellRuns {
    /// Means and standard errors of the columns; the two shares are plain fractions.
    pub fn summary(&self) -> CellSummary {
        let m = |i: usize| mc_mean(&self.columns[i]).unwrap_or_default();
        CellSummary {
            reps: self.reps,
            acc: m(0),
            cwa: m(1),
            gain: m(2),
            csr: m(3),
            sigma_csr: m(4),
            beyond_1sigma: m(5).mean,
            beyond_3sigma: m(6).mean,
            p_risk: m(7),
        }
    }
}

/// Runs the generator `(dist, mode)` `reps` times with `n` samples (repetition `r`
/// seeded with `seed + r`) and keeps each repetition's [`crate::beyond::RiskMetrics`]
/// in Table 5's columns. `progress(r)` after each repetition. `None` when `n` or
/// `reps` is 0.
pub fn cell_runs(
    dist: Distribution,
    mode: Mode,
    n: usize,
    reps: usize,
    seed: u64,
    mut progress: impl FnMut(usize),
) -> Option<CellRuns> {
    if n == 0 || reps == 0 {
        return None;
    }
    let mut columns: [Vec<f64>; 8] = Default::default();
    for r in 0..reps {
        let s = crate::synth::generate(dist, mode, n, seed.wrapping_add(r as u64));
        let mut acc = RiskAccumulator::default();
        for ((&c, &yhat), &y) in s.confidence.iter().zip(&s.predicted).zip(&s.labels) {
            acc.add(c, yhat == y);
        }
        let m = acc.finish();
        let (csr, sigma) = (m.csr?, m.sigma_csr?);
        let over1 = Some((csr > 1.0 + sigma) as u8 as f64);
        let over3 = Some((csr > 1.0 + 3.0 * sigma) as u8 as f64);
        let row = [
            m.acc,
            m.cwa,
            m.gain,
            m.csr,
            m.sigma_csr,
            over1,
            over3,
            m.p_risk,
        ];
        for (col, v) in columns.iter_mut().zip(row) {
            col.extend(v.filter(|v| v.is_finite()));
        }
        progress(r + 1);
    }
    Some(CellRuns { reps, columns })
}

/// [`cell_runs`] summarised as the seed's Table 5 does (means over the repetitions,
/// with their standard errors). `None` when `n` or `reps` is 0.
pub fn cell_summary(
    dist: Distribution,
    mode: Mode,
    n: usize,
    reps: usize,
    seed: u64,
    progress: impl FnMut(usize),
) -> Option<CellSummary> {
    cell_runs(dist, mode, n, reps, seed, progress).map(|r| r.summary())
}

/// A top-label data set built by [`counterexample`].
#[derive(Clone, Debug, PartialEq)]
pub struct Counterexample {
    /// Confidence of each sample.
    pub confidence: Vec<f64>,
    /// Whether each sample is correct.
    pub correct: Vec<bool>,
    /// The flat confidence `a/(N-1)` of the first `N - 1` samples.
    pub flat: f64,
    /// `δ`: the last (wrong) sample's confidence is `1 - δ`.
    pub delta: f64,
}

/// The counterexample of seed 002 ("ECE < 1/N and CSR > Λ"), built as follows: `N - 1`
/// samples share the confidence `a/(N-1)` with exactly `a = round(p (N-1))` of them
/// correct (their residual cancels exactly inside any equal-width bin), and one wrong
/// sample has confidence `1 - δ` with `δ = 1/(N (Λ + 1))`. Then
/// `ECE = (1 - δ)/N < 1/N` for every equal-width binning, and
/// `CSR = (N - 1 - a)/(N (1 - a/(N-1))) + 1/(N δ) = (N - 1)/N + Λ + 1 > Λ`.
/// Errors when `N < 2`, `p` is outside `[0, 1)`, `Λ` is not positive, or `δ` would be
/// below the clip `1e-8` of METRICS.md §5 (then CSR would be capped).
pub fn counterexample(n: usize, lambda: f64, p: f64) -> Result<Counterexample, String> {
    if n < 2 {
        return Err("the counterexample needs N >= 2".into());
    }
    if !(0.0..1.0).contains(&p) {
        return Err(format!("the flat confidence must be in [0, 1), got {p}"));
    }
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(format!("Λ must be positive, got {lambda}"));
    }
    let delta = 1.0 / (n as f64 * (lambda + 1.0));
    if delta < 1e-7 {
        return Err(format!(
            "N (Λ + 1) = {} is too large: 1 - δ would hit the confidence clip 1 - 1e-8",
            n as f64 * (lambda + 1.0)
        ));
    }
    let rest = n - 1;
    let a = (p * rest as f64).round() as usize;
    let flat = a as f64 / rest as f64;
    let mut confidence = vec![flat; rest];
    let mut correct: Vec<bool> = (0..rest).map(|i| i < a).collect();
    confidence.push(1.0 - delta);
    correct.push(false);
    Ok(Counterexample {
        confidence,
        correct,
        flat,
        delta,
    })
}

#[cfg(test)]
#[path = "lab_tests.rs"]
mod tests;
