//! The worker's side of the Learn tour and the two labs: one request type, one answer
//! type, and [`run`], which turns a request into an answer with the core
//! (`calibscope_core::lab`, `synth`, `beyond`, `binning`, `auc`, `recal`). Pure and
//! natively tested; the worker only posts what it returns.

use calibscope_core::auc::{self, SortedColumn};
use calibscope_core::beyond::{clip_confidence, RiskAccumulator, RiskMetrics};
use calibscope_core::binning::{Binning, SortedReading};
use calibscope_core::lab::{self, Strategy};
use calibscope_core::reliability::{reliability_table, DEFAULT_ALPHA};
use calibscope_core::synth::{self, Distribution, Mode};

pub use calibscope_proto::labs::*;

use crate::proto::Row;

/// Largest sample size a lab accepts.
pub const MAX_N: usize = 1_000_000;
/// Largest `n × repetitions` of one request (keeps a request within seconds).
pub const MAX_WORK: usize = 50_000_000;
/// Points kept of a ROC curve (evenly spaced by index).
pub const ROC_POINTS: usize = 201;
/// Bins of the confidence histogram.
pub const HIST_BINS: usize = 20;

/// The paper's row of `(d, mode, n)` (Perfect only).
fn paper_of(d: Distribution, mode: Mode, n: usize) -> Option<[f64; 8]> {
    (mode == Mode::Perfect)
        .then(|| lab::paper_row(d, n).map(|r| r.values))
        .flatten()
}

fn cell_of(dist: &str, mode: &str) -> Result<(Distribution, Mode), String> {
    Ok((
        Distribution::from_name(dist).ok_or_else(|| format!("unknown distribution {dist:?}"))?,
        Mode::from_name(mode).ok_or_else(|| format!("unknown calibration mode {mode:?}"))?,
    ))
}

fn check_size(n: usize, m: usize, reps: usize) -> Result<(), String> {
    if n == 0 || n > MAX_N {
        return Err(format!("N must be between 1 and {MAX_N}, got {n}"));
    }
    if m == 0 || m > 10_000 {
        return Err(format!("m must be between 1 and 10000, got {m}"));
    }
    if reps == 0 || n.saturating_mul(reps) > MAX_WORK {
        return Err(format!(
            "repetitions must be at least 1 and N × repetitions at most {MAX_WORK}"
        ));
    }
    Ok(())
}

pub(crate) fn rows_of(sorted: &SortedReading, binning: Binning, m: usize) -> Vec<Row> {
    reliability_table(sorted, binning, m, DEFAULT_ALPHA)
}

/// Runs `request`; `progress(done, total)` reports repetitions as they finish.
pub fn run(
    request: &LabRequest,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<LabAnswer, String> {
    match request {
        LabRequest::Truth {
            p_star,
            temperature,
            grid,
            n,
            m,
            binning,
            reps,
            seed,
        } => {
            check_size(*n, *m, *reps)?;
            let binning = *binning;
            let strategies = [
                ("honest", Strategy::Honest),
                ("uniform", Strategy::Uniform),
                ("temperature", Strategy::Temperature(*temperature)),
                ("coarse", Strategy::Coarse(*grid)),
            ];
            let list: Vec<Strategy> = strategies.iter().map(|s| s.1).collect();
            let design = lab::Design {
                n: *n,
                binning,
                m: *m,
                reps: *reps,
                seed: *seed,
            };
            let sims = lab::simulate_truth(p_star, &list, design, |r| progress(r, *reps))?;
            let share = lab::tied_bin_share(binning, *n, *m);
            let rows = strategies
                .iter()
                .zip(sims)
                .map(|((key, s), sim)| {
                    let report = lab::top_report(p_star, *s)?;
                    let e = lab::expected(report, *n, share).ok_or("n must be at least 1")?;
                    Ok(TruthRow {
                        key: key.to_string(),
                        confidence: report.confidence,
                        q: report.q,
                        expected_confce: e.confce,
                        expected_confce_corr: e.confce_corr,
                        sim_confce: sim.confce.into(),
                        sim_confce_corr: sim.confce_corr.into(),
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            Ok(LabAnswer::Truth {
                rows,
                share,
                reps: *reps,
            })
        }
        LabRequest::ExactConditioning { ns, m, reps, seed } => {
            if ns.is_empty() || ns.len() > 40 {
                return Err("give 1 to 40 sample sizes".into());
            }
            let total: usize = ns.iter().sum();
            check_size(*ns.iter().max().unwrap_or(&0), *m, 1)?;
            if ns.contains(&0) || total.saturating_mul(*reps) > MAX_WORK || *reps == 0 {
                return Err("sample sizes and repetitions must be positive and small".into());
            }
            let mut points = Vec::with_capacity(ns.len());
            for (i, &n) in ns.iter().enumerate() {
                let (truthful, constant) =
                    lab::exact_conditioning(n).ok_or("n must be at least 1")?;
                let sim =
                    lab::simulate_exact_conditioning(n, *m, *reps, seed.wrapping_add(i as u64))
                        .ok_or("n must be at least 1")?;
                points.push(EcPoint {
                    n,
                    truthful,
                    constant,
                    sim_truthful: sim.truthful.into(),
                    sim_constant: sim.constant.into(),
                    sim_binned: sim.binned.into(),
                });
                progress(i + 1, ns.len());
            }
            Ok(LabAnswer::ExactConditioning { points })
        }
        LabRequest::Generate {
            dist,
            mode,
            n,
            m,
            seed,
        } => {
            check_size(*n, *m, 1)?;
            let (d, md) = cell_of(dist, mode)?;
            Ok(generate(d, md, *n, *m, *seed))
        }
        LabRequest::Repeat {
            dist,
            mode,
            n,
            reps,
            seed,
        } => {
            check_size(*n, 1, *reps)?;
            let (d, md) = cell_of(dist, mode)?;
            let s = lab::cell_summary(d, md, *n, *reps, *seed, |r| progress(r, *reps))
                .ok_or("N and the repetitions must be at least 1")?;
            Ok(LabAnswer::Repeat {
                summary: s.into(),
                paper: paper_of(d, md, *n),
            })
        }
        LabRequest::RepeatTable {
            mode,
            n,
            reps,
            seed,
        } => {
            check_size(*n, 1, reps.saturating_mul(Distribution::ALL.len()))?;
            let (_, md) = cell_of("uniform", mode)?;
            let total = reps * Distribution::ALL.len();
            let mut rows = Vec::with_capacity(Distribution::ALL.len());
            for (i, d) in Distribution::ALL.into_iter().enumerate() {
                let s =
                    lab::cell_summary(d, md, *n, *reps, *seed, |r| progress(i * reps + r, total))
                        .ok_or("N and the repetitions must be at least 1")?;
                rows.push(TableRow {
                    dist: d.name().to_string(),
                    summary: s.into(),
                    paper: paper_of(d, md, *n),
                });
            }
            Ok(LabAnswer::RepeatTable { rows })
        }
        LabRequest::Reproduce { seed } => Ok(LabAnswer::Reproduce {
            seed: *seed,
            reps: crate::labs_repro::REPS,
            rows: crate::labs_repro::reproduce(*seed, progress),
        }),
        LabRequest::Counterexample { n, lambda, p, m } => {
            check_size(*n, *m, 1)?;
            let c = lab::counterexample(*n, *lambda, *p)?;
            let sorted = SortedReading::from_parts(&c.confidence, &c.correct);
            Ok(LabAnswer::Counterexample {
                n: *n,
                delta: c.delta,
                flat: c.flat,
                ece: sorted.metrics(Binning::Width, *m).ece,
                risk: risk_of(&c.confidence, &c.correct),
                rows: rows_of(&sorted, Binning::Width, *m),
            })
        }
        LabRequest::Forecaster {
            n,
            m,
            sharpness,
            base_rate,
            reps,
            seed,
        } => {
            check_size(*n, *m, *reps)?;
            if !(sharpness.is_finite() && *sharpness > 0.0 && *sharpness <= 20.0) {
                return Err("the sharpness must be in (0, 20]".into());
            }
            Ok(crate::labs_tour::forecaster(
                *n, *m, *sharpness, *base_rate, *reps, *seed,
            ))
        }
        LabRequest::Interval {
            successes,
            n,
            alpha,
        } => {
            if !(*alpha > 0.0 && *alpha < 1.0) {
                return Err("alpha must be in (0, 1)".into());
            }
            let (lower, upper) = calibscope_core::special::clopper_pearson(*successes, *n, *alpha)
                .ok_or("the successes must be between 0 and n, n at least 1")?;
            Ok(LabAnswer::Interval { lower, upper })
        }
    }
}

/// The risk metrics of `(confidence, correct)` pairs.
pub fn risk_of(confidence: &[f64], correct: &[bool]) -> RiskMetrics {
    let mut acc = RiskAccumulator::default();
    for (&c, &z) in confidence.iter().zip(correct) {
        acc.add(c, z);
    }
    acc.finish()
}

/// The ROC and cwROC of `column`, thinned to at most [`ROC_POINTS`] points (the first
/// and last kept).
pub fn roc_points(column: &SortedColumn) -> Vec<RocXY> {
    let all = auc::roc_curve(column);
    let len = all.len();
    let keep = ROC_POINTS.min(len);
    (0..keep)
        .map(|j| {
            let p = &all[if keep > 1 {
                j * (len - 1) / (keep - 1)
            } else {
                0
            }];
            RocXY {
                fpr: p.fpr.unwrap_or(f64::NAN),
                tpr: p.tpr.unwrap_or(f64::NAN),
                cw_fpr: p.cw_fpr.unwrap_or(f64::NAN),
                cw_tpr: p.cw_tpr.unwrap_or(f64::NAN),
            }
        })
        .filter(|p| p.fpr.is_finite() && p.tpr.is_finite())
        .collect()
}

/// One generator run: confidence histogram, reliability table of the confidence
/// reading, ECE, the risk metrics, and AUC / cwAUC with ROC / cwROC of class 1.
fn generate(d: Distribution, md: Mode, n: usize, m: usize, seed: u64) -> LabAnswer {
    let s = synth::generate(d, md, n, seed);
    let correct: Vec<bool> = s
        .predicted
        .iter()
        .zip(&s.labels)
        .map(|(a, b)| a == b)
        .collect();
    let mut hist = vec![0u64; HIST_BINS];
    for &c in &s.confidence {
        hist[calibscope_core::binning::width_bin(c, HIST_BINS)] += 1;
    }
    let sorted = SortedReading::from_parts(&s.confidence, &correct);
    let p1 = synth::to_binary_p(&s);
    let positive: Vec<bool> = s.labels.iter().map(|&y| y == 1).collect();
    let weight: Vec<f64> = s.confidence.iter().map(|&c| clip_confidence(c)).collect();
    let column = SortedColumn::new(&p1, &positive, &weight);
    LabAnswer::Generate {
        hist,
        rows: rows_of(&sorted, Binning::Width, m),
        ece: sorted.metrics(Binning::Width, m).ece,
        risk: risk_of(&s.confidence, &correct),
        auc: auc::auc(&column),
        cwauc: auc::weighted_auc(&column),
        roc: roc_points(&column),
    }
}

#[cfg(test)]
#[path = "labs_tests.rs"]
mod tests;
