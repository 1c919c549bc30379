//! The Learn tour's forecaster: a simulated rain forecaster whose probabilities are
//! calibrated before a dial bends them, audited with the core's reliability table,
//! ECE, Brier decomposition and temperature fit.

use calibscope_core::auc::{self, SortedColumn};
use calibscope_core::binning::{self, Binning, SortedReading};
use calibscope_core::reading::{sigmoid, Pairs};
use calibscope_core::recal::logit_clipped;
use calibscope_core::recal::temperature::fit_temperature_binary;
use calibscope_core::synth::{self, Distribution, Mode};

use crate::labs::{LabAnswer, Mc, TempFit};

/// The forecaster's data: the calibrated probability of rain `p ~ U(0, 1)` (the
/// generator's Uniform/Perfect cell read as `P(y = 1)`), the outcome, and the
/// forecaster's logit `sharpness · logit(p)`.
fn data(n: usize, sharpness: f64, seed: u64) -> (Vec<f64>, Vec<bool>) {
    let s = synth::generate(Distribution::Uniform, Mode::Perfect, n, seed);
    let scores = synth::to_binary_p(&s)
        .into_iter()
        .map(|p| sharpness * logit_clipped(p))
        .collect();
    (scores, s.labels.iter().map(|&y| y == 1).collect())
}

fn forecasts(scores: &[f64], y: &[bool], tau: f64, base_rate: bool) -> Vec<f64> {
    if base_rate {
        let rate = y.iter().filter(|&&o| o).count() as f64 / y.len().max(1) as f64;
        vec![rate; y.len()]
    } else {
        scores.iter().map(|&s| sigmoid(s / tau)).collect()
    }
}

fn accuracy(scores: &[f64], y: &[bool]) -> f64 {
    let hits = scores
        .iter()
        .zip(y)
        .filter(|(&s, &o)| (s >= 0.0) == o)
        .count();
    hits as f64 / y.len().max(1) as f64
}

/// See [`crate::labs::LabRequest::Forecaster`]. Sizes are checked by the caller.
pub fn forecaster(
    n: usize,
    m: usize,
    sharpness: f64,
    base_rate: bool,
    reps: usize,
    seed: u64,
) -> LabAnswer {
    let (scores, y) = data(n, sharpness, seed);
    let f = forecasts(&scores, &y, 1.0, base_rate);
    let sorted = SortedReading::from_parts(&f, &y);
    let t = sorted.metrics(Binning::Width, m);
    let brier = binning::brier(&Pairs {
        forecast: f.clone(),
        outcome: y.clone(),
    });
    // the top-label reading of the same forecasts
    let c: Vec<f64> = f.iter().map(|&u| u.max(1.0 - u)).collect();
    let z: Vec<bool> = f.iter().zip(&y).map(|(&u, &o)| (u >= 0.5) == o).collect();
    let top = SortedReading::from_parts(&c, &z);
    let ece_reps = (reps > 1).then(|| {
        let eces: Vec<f64> = (0..reps)
            .map(|r| {
                let (s, y) = data(n, sharpness, seed.wrapping_add(r as u64));
                let f = forecasts(&s, &y, 1.0, base_rate);
                let sorted = SortedReading::from_parts(&f, &y);
                sorted.metrics(Binning::Width, m).ece.unwrap_or(f64::NAN)
            })
            .collect();
        Mc::from(calibscope_core::lab::mc_mean(&eces).unwrap_or_default())
    });
    let temperature = if base_rate {
        None
    } else {
        fit_temperature_binary(&scores, &y, None).map(|fit| {
            let tau = fit.tau;
            let scaled: Vec<f64> = scores.iter().map(|s| s / tau).collect();
            let ones = vec![1.0; n];
            let after = forecasts(&scores, &y, tau, false);
            TempFit {
                tau,
                nll_before: fit.nll_tau1,
                nll_after: fit.nll_tau,
                auc_before: auc::auc(&SortedColumn::new(&scores, &y, &ones)),
                auc_after: auc::auc(&SortedColumn::new(&scaled, &y, &ones)),
                order_identical: auc::sort_order(&scores) == auc::sort_order(&scaled),
                acc_before: accuracy(&scores, &y),
                acc_after: accuracy(&scaled, &y),
                ece_after: SortedReading::from_parts(&after, &y)
                    .metrics(Binning::Width, m)
                    .ece,
            }
        })
    };
    LabAnswer::Forecaster {
        rows: crate::labs::rows_of(&sorted, Binning::Width, m),
        top_rows: crate::labs::rows_of(&top, Binning::Width, m),
        ece: t.ece,
        top_ece: top.metrics(Binning::Width, m).ece,
        brier,
        cal: t.cal,
        refinement: t.refinement,
        res: t.res(brier),
        ece_reps,
        temperature,
    }
}
