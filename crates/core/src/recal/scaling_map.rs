//! Vector scaling, matrix scaling and Dirichlet calibration ([`super::scaling`]) on
//! a prediction set's calibration split, applied to any rows: their inputs, ODIR's
//! strength chosen by K-fold cross-validation on the calibration split, and the
//! outcome as a [`ProbOutcome`] beside the one-vs-rest probability maps.
//!
//! Inputs: vector and matrix scaling read the logits `z` (probability input: `ln p`,
//! clipped to `[1e-15, 1 - 1e-15]`); Dirichlet calibration reads `ln p` of the
//! audit's class probabilities (logit input: `ln softmax(z)`), clipped likewise.
//!
//! ODIR's strength: `λ = μ`, one strength among [`STRENGTHS`], chosen by K-fold
//! cross-validation on the calibration split ([`choose_odir`]); vector and matrix
//! scaling are fitted unregularised, as Guo et al. define them.

use super::apply::{FitScores, Undefined};
use super::ln_clipped;
use super::prob_maps::{class_probabilities, folds, ProbMethod, ProbOutcome};
use super::scaling::{fit_scaling, parameters, Odir, ScalingFit, ScalingKind, Stopping, FINAL};
use crate::data::{Kind, PredictionSet, Scores, Source, Values};
use crate::split::Split;

/// The ODIR strengths `λ = μ` cross-validation compares.
pub const STRENGTHS: [f64; 5] = [10.0, 1.0, 0.1, 0.01, 0.001];

/// The cross-validation fits' stopping rule (looser than the final fit's: they
/// only rank the strengths).
const SEARCH: Stopping = Stopping {
    max_iters: 200,
    grad_tol: 1e-6,
    cost_tol: 1e-12,
};

/// What K-fold cross-validation found for ODIR's strength.
#[derive(Clone, Debug, PartialEq)]
pub struct OdirSearch {
    /// Number of folds.
    pub folds: usize,
    /// Each strength `λ = μ` and its held-out NLL (mean over the scored calibration
    /// rows).
    pub scores: Vec<(f64, f64)>,
    /// The chosen strength: the lowest held-out NLL (the stronger on a tie).
    pub chosen: f64,
    /// Folds left out of the comparison because their training part lacked a class.
    pub folds_skipped: usize,
}

/// The map of a method (`None` for the one-vs-rest maps).
pub fn kind_of(method: ProbMethod) -> Option<ScalingKind> {
    match method {
        ProbMethod::Vector => Some(ScalingKind::Vector),
        ProbMethod::Matrix => Some(ScalingKind::Matrix),
        ProbMethod::Dirichlet => Some(ScalingKind::Dirichlet),
        _ => None,
    }
}

/// The inputs of `kind` for `rows` of `set`, row-major `rows.len() × k` (module
/// docs); `None` for top-label sets.
pub fn inputs(set: &PredictionSet, rows: &[usize], kind: ScalingKind) -> Option<Vec<f64>> {
    let k = set.k;
    if kind.reads_log_probabilities() {
        let (p, columns) = class_probabilities(set, rows);
        (columns == k).then(|| p.into_iter().map(ln_clipped).collect())
    } else {
        match FitScores::of(set)? {
            FitScores::Multiclass { logits, k } => Some(
                rows.iter()
                    .flat_map(|&i| (0..k).map(move |r| (i, r)))
                    .map(|(i, r)| logits.get(i * k + r))
                    .collect(),
            ),
            FitScores::Binary(_) => None,
        }
    }
}

/// Chooses ODIR's strength among [`STRENGTHS`] by K-fold cross-validation on the
/// calibration rows (`x_cal`, `y_cal`, positions into `split.calibration`): for each
/// fold, Dirichlet calibration is fitted on the other folds at every strength
/// (strongest first, each fit starting from the previous one's parameters) and
/// scored on the fold by its NLL; a fold whose training part lacks a class is left
/// out for every strength. The folds are the histogram's ([`folds`], seed 0).
/// `folds_k` is clamped to `2..=n_cal`; with fewer than 2 calibration rows (or no
/// fold scored) the strongest strength is kept, without scores.
pub fn choose_odir(
    x_cal: &[f64],
    k: usize,
    labels: &[u32],
    split: &Split,
    folds_k: usize,
) -> OdirSearch {
    let cal = &split.calibration;
    let n = cal.len();
    let kk = folds_k.clamp(2, n.max(2));
    let y_cal: Vec<u32> = cal.iter().map(|&i| labels[i]).collect();
    let mut totals = vec![0.0; STRENGTHS.len()];
    let mut scored = 0usize;
    let mut skipped = 0usize;
    let parts = if n < 2 {
        Vec::new()
    } else {
        folds(labels, k, cal, 0, kk)
    };
    let mut held_mask = vec![false; n];
    for held in &parts {
        if held.is_empty() {
            continue;
        }
        held_mask.fill(false);
        for &j in held {
            held_mask[j] = true;
        }
        let train: Vec<usize> = (0..n).filter(|&j| !held_mask[j]).collect();
        let gather = |rows: &[usize]| -> (Vec<f64>, Vec<u32>) {
            let x = rows
                .iter()
                .flat_map(|&j| x_cal[j * k..(j + 1) * k].iter().copied())
                .collect();
            (x, rows.iter().map(|&j| y_cal[j]).collect())
        };
        let (xt, yt) = gather(&train);
        let (xh, yh) = gather(held);
        let mut start = None;
        let mut fold_scores = Vec::with_capacity(STRENGTHS.len());
        for &s in &STRENGTHS {
            let odir = Odir { lambda: s, mu: s };
            let Some(fit) = fit_scaling(ScalingKind::Dirichlet, k, &xt, &yt, odir, start, SEARCH)
            else {
                break;
            };
            fold_scores.push(held_out_nll(&fit, &xh, &yh));
            start = Some(parameters(&fit));
        }
        if fold_scores.len() < STRENGTHS.len() {
            skipped += 1;
            continue;
        }
        for (t, v) in totals.iter_mut().zip(fold_scores) {
            *t += v;
        }
        scored += held.len();
    }
    if scored == 0 {
        return OdirSearch {
            folds: kk,
            scores: Vec::new(),
            chosen: STRENGTHS[0],
            folds_skipped: skipped,
        };
    }
    let scores: Vec<(f64, f64)> = STRENGTHS
        .iter()
        .zip(&totals)
        .map(|(&s, &t)| (s, t / scored as f64))
        .collect();
    // strongest first: a later strength must be strictly better
    let chosen = scores
        .iter()
        .fold(None::<(f64, f64)>, |best, &(s, v)| match best {
            Some((_, b)) if b <= v => best,
            _ => Some((s, v)),
        })
        .map_or(STRENGTHS[0], |(s, _)| s);
    OdirSearch {
        folds: kk,
        scores,
        chosen,
        folds_skipped: skipped,
    }
}

/// The summed NLL of `fit` on rows `x` with labels `y` (`-ln q_y`, from the
/// log-sum-exp: finite however small `q_y` is).
fn held_out_nll(fit: &ScalingFit, x: &[f64], y: &[u32]) -> f64 {
    let k = fit.k;
    let mut s = vec![0.0; k];
    let mut total = 0.0;
    for (row, &c) in x.chunks_exact(k).zip(y) {
        fit.scores(row, &mut s);
        let m = s.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v));
        let lse = m + s.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
        total += lse - s[c as usize];
    }
    total
}

/// Fits `method` (vector, matrix or Dirichlet; ODIR's strength by `folds`-fold
/// cross-validation) on `split`'s calibration rows and applies it to its evaluation
/// rows (module docs; [`super::scaling`] for the undefined cases).
pub fn fit_scaling_map(
    set: &PredictionSet,
    split: &Split,
    method: ProbMethod,
    folds_k: usize,
) -> Result<ProbOutcome, Undefined> {
    let kind = kind_of(method).expect("a scaling method");
    FitScores::of(set).ok_or(Undefined::TopLabel)?;
    if set.kind() == Kind::Binary || set.k < 3 {
        return Err(Undefined::NotMulticlass);
    }
    if split.calibration.is_empty() {
        return Err(Undefined::EmptyCalibrationSplit);
    }
    let k = set.k;
    let x = inputs(set, &split.calibration, kind).ok_or(Undefined::TopLabel)?;
    let y: Vec<u32> = split.calibration.iter().map(|&i| set.labels[i]).collect();
    if x.iter().any(|v| !v.is_finite()) {
        return Err(Undefined::NonFiniteScores);
    }
    if let Some(class) = (0..k).find(|&c| !y.contains(&(c as u32))) {
        return Err(Undefined::MissingClass {
            class,
            positive: true,
        });
    }
    let search =
        (kind == ScalingKind::Dirichlet).then(|| choose_odir(&x, k, &set.labels, split, folds_k));
    let strength = search.as_ref().map_or(0.0, |s| s.chosen);
    let odir = Odir {
        lambda: strength,
        mu: strength,
    };
    let fit =
        fit_scaling(kind, k, &x, &y, odir, None, FINAL).ok_or(Undefined::EmptyCalibrationSplit)?;
    Ok(ProbOutcome {
        method,
        bins: None,
        cross_fit: None,
        fits: Vec::new(),
        after: apply_scaling_fit(set, &split.evaluation, &fit),
        scaling: Some(fit),
        odir_search: search,
        zero_rows_made_uniform: 0,
    })
}

/// The rows `rows` of `set` recalibrated by `fit` (probabilities, `k` columns).
pub fn apply_scaling_fit(set: &PredictionSet, rows: &[usize], fit: &ScalingFit) -> PredictionSet {
    let k = fit.k;
    let x = inputs(set, rows, fit.kind).unwrap_or_else(|| vec![f64::NAN; rows.len() * k]);
    let mut p = vec![0.0; rows.len() * k];
    for (out, row) in p.chunks_exact_mut(k).zip(x.chunks_exact(k)) {
        fit.predict(row, out);
    }
    PredictionSet {
        labels: rows.iter().map(|&i| set.labels[i]).collect(),
        scores: Scores::Matrix {
            values: Values::F64(p),
            k,
            source: Source::Probs,
        },
        k: set.k,
    }
}
