//! The maps that read a probability: beta calibration ([`super::beta`]), histogram
//! binning ([`super::histogram`]) and inductive Venn–Abers ([`super::venn_abers`]),
//! fitted one-vs-rest on the calibration split and applied to any rows.
//!
//! Each map is binary. Its input is the one-vs-rest probability of a class, as the
//! audit reads it: probability input as given (binary `p_1`, multiclass `p_r`),
//! logits through `σ(s)` / `softmax(z)_r` ([`class_probabilities`]). Multiclass input gets one map per class
//! (class `r` against the rest) and each row's outputs are renormalised to sum to 1
//! (a row whose outputs are all 0 becomes uniform, and is counted).
//!
//! Venn–Abers also gives each row its interval `[p0, p1]` (per class, before the
//! renormalisation); the other maps' intervals are their point.
//!
//! Undefined: top-label input, an empty calibration split; beta calibration when a
//! class's one-vs-rest fit has one outcome only on the calibration split (its
//! intercept has no finite optimum). Histogram binning and Venn–Abers accept a
//! single outcome (their estimates are then 0 or 1).
//!
//! Histogram binning's bin count is given, or chosen by K-fold cross-fitting on the
//! calibration split ([`choose_bins`]).

use super::apply::{FitScores, Undefined};
use super::beta::{fit_beta, BetaFit};
use super::histogram::{fit_histogram, HistogramFit};
use super::renormalize_rows;
use super::scaling::ScalingFit;
use super::scaling_map::{apply_scaling_fit, fit_scaling_map, OdirSearch};
use super::venn_abers::{fit_venn_abers, VennAbersFit};
use crate::data::{Kind, PredictionSet, Scores, Source, Values};
use crate::reading::ProbView;
use crate::split::{stratified_split, Split};

/// Which probability map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProbMethod {
    /// Beta calibration, `abm` form.
    Beta,
    /// Histogram binning on equal-mass bins.
    Histogram,
    /// Inductive Venn–Abers (merged probability; the interval beside it).
    VennAbers,
    /// Vector scaling on the logits ([`super::scaling_map`], multiclass only).
    Vector,
    /// Matrix scaling on the logits (multiclass only).
    Matrix,
    /// Dirichlet calibration with ODIR on `ln p` (multiclass only).
    Dirichlet,
}

/// Histogram binning's bin count: given, or chosen by cross-fitting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bins {
    /// This many equal-mass bins.
    Fixed(usize),
    /// Chosen among [`BIN_CANDIDATES`] by [`choose_bins`] with this many folds.
    CrossFit {
        /// Number of folds `K` (at least 2).
        folds: usize,
    },
}

/// The default bin count (the and the CLI's).
pub const DEFAULT_BINS: usize = 15;
/// The default number of cross-fitting folds.
pub const DEFAULT_FOLDS: usize = 5;
/// The bin counts cross-fitting compares.
pub const BIN_CANDIDATES: [usize; 9] = [2, 5, 10, 15, 20, 30, 50, 75, 100];

/// One fitted one-vs-rest map.
#[derive(Clone, Debug, PartialEq)]
pub enum ProbFit {
    /// Beta calibration's map.
    Beta(BetaFit),
    /// Histogram binning's bins and estimates.
    Histogram(HistogramFit),
    /// Venn–Abers' `p0`/`p1` at every gap.
    VennAbers(VennAbersFit),
}

impl ProbFit {
    /// `(p, lower, upper)` of a one-vs-rest probability `u`: Venn–Abers' merged
    /// probability and interval, the other maps' value three times.
    pub fn predict(&self, u: f64) -> (f64, f64, f64) {
        match self {
            ProbFit::Beta(f) => {
                let p = f.predict(u);
                (p, p, p)
            }
            ProbFit::Histogram(f) => {
                let p = f.predict(u);
                (p, p, p)
            }
            ProbFit::VennAbers(f) => {
                let v = f.predict(u);
                (v.p, v.p0, v.p1)
            }
        }
    }
}

/// What K-fold cross-fitting found for histogram binning.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossFit {
    /// Number of folds.
    pub folds: usize,
    /// Each candidate bin count and its held-out Brier score (mean over the
    /// calibration rows, summed over the one-vs-rest classes).
    pub scores: Vec<(usize, f64)>,
    /// The chosen bin count: the lowest held-out Brier score (the fewer bins on a tie).
    pub chosen: usize,
}

/// A fitted probability map and the evaluation split after it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbOutcome {
    /// Which map.
    pub method: ProbMethod,
    /// Histogram binning's bin count (`None` for the others).
    pub bins: Option<usize>,
    /// Histogram binning's cross-fitting, when the bin count was chosen so.
    pub cross_fit: Option<CrossFit>,
    /// One fit for binary input (class 1), one per class otherwise (empty for the
    /// joint maps: vector, matrix, Dirichlet).
    pub fits: Vec<ProbFit>,
    /// Vector or matrix scaling's or Dirichlet calibration's fit (one map of every
    /// class at once; `None` for the one-vs-rest maps).
    pub scaling: Option<ScalingFit>,
    /// Dirichlet calibration's choice of ODIR's strength by cross-validation.
    pub odir_search: Option<OdirSearch>,
    /// The evaluation split after the map.
    pub after: PredictionSet,
    /// Multiclass: evaluation rows whose outputs were all 0 and were made uniform.
    pub zero_rows_made_uniform: usize,
}

/// Rows recalibrated by a [`ProbOutcome`].
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// The recalibrated rows (probabilities).
    pub set: PredictionSet,
    /// Venn–Abers: per row and fitted class, `[lower, upper]` (row-major, one entry
    /// per class of `fits`); `None` for the other maps.
    pub intervals: Option<Vec<[f64; 2]>>,
    /// Rows made uniform (multiclass).
    pub zero_rows_made_uniform: usize,
}

/// The one-vs-rest probabilities of `rows` of `set`: `(values, columns)`, row-major
/// with one column (`p_1`) for binary input or `k` otherwise, read through the
/// audit's probability view (probability input as given, so tied probabilities stay
/// tied; logits through their softmax / sigmoid). Empty for top-label sets.
pub fn class_probabilities(set: &PredictionSet, rows: &[usize]) -> (Vec<f64>, usize) {
    let Some(view) = ProbView::new(set) else {
        return (Vec::new(), 0);
    };
    if set.kind() == Kind::Binary {
        return (rows.iter().map(|&i| view.prob(i, 1)).collect(), 1);
    }
    let k = set.k;
    let mut out = Vec::with_capacity(rows.len() * k);
    for &i in rows {
        out.extend((0..k).map(|r| view.prob(i, r)));
    }
    (out, k)
}

/// Whether row `i` is positive for column `c` of [`class_probabilities`].
fn positive(labels: &[u32], i: usize, c: usize, columns: usize) -> bool {
    let class = if columns == 1 { 1 } else { c };
    labels[i] as usize == class
}

/// Fits `method` on the columns of `u` (rows `rows` of the set, labels `labels`),
/// one map per column; the first column lacking an outcome beta needs is the error.
fn fit_columns(
    method: ProbMethod,
    bins: usize,
    u: &[f64],
    columns: usize,
    labels: &[u32],
    rows: &[usize],
) -> Result<Vec<ProbFit>, Undefined> {
    (0..columns)
        .map(|c| {
            let x: Vec<f64> = (0..rows.len()).map(|j| u[j * columns + c]).collect();
            let y: Vec<bool> = rows
                .iter()
                .map(|&i| positive(labels, i, c, columns))
                .collect();
            let class = if columns == 1 { 1 } else { c };
            let missing = || Undefined::MissingClass {
                class,
                positive: !y.iter().any(|&v| v),
            };
            match method {
                ProbMethod::Beta => fit_beta(&x, &y).map(ProbFit::Beta).ok_or_else(missing),
                ProbMethod::Histogram => fit_histogram(&x, &y, bins)
                    .map(ProbFit::Histogram)
                    .ok_or(Undefined::EmptyCalibrationSplit),
                ProbMethod::VennAbers => fit_venn_abers(&x, &y)
                    .map(ProbFit::VennAbers)
                    .ok_or(Undefined::EmptyCalibrationSplit),
                ProbMethod::Vector | ProbMethod::Matrix | ProbMethod::Dirichlet => {
                    unreachable!("the joint maps are fitted by scaling_map")
                }
            }
        })
        .collect()
}

/// Applies `fits` (one per column) to one-vs-rest probabilities `u` of `labels.len()`
/// rows.
fn apply_columns(fits: &[ProbFit], u: &[f64], labels: Vec<u32>, k: usize) -> Applied {
    let columns = fits.len();
    let n = labels.len();
    let mut p = vec![0.0; n * columns];
    let venn = matches!(fits.first(), Some(ProbFit::VennAbers(_)));
    let mut intervals = venn.then(|| vec![[0.0; 2]; n * columns]);
    for (j, row) in p.chunks_exact_mut(columns).enumerate() {
        for (c, (out, fit)) in row.iter_mut().zip(fits).enumerate() {
            let (v, lo, hi) = fit.predict(u[j * columns + c]);
            *out = v;
            if let Some(iv) = intervals.as_mut() {
                iv[j * columns + c] = [lo, hi];
            }
        }
    }
    let (scores, zero_rows) = if columns == 1 {
        let scores = Scores::Column {
            values: Values::F64(p),
            source: Source::Probs,
        };
        (scores, 0)
    } else {
        let zero_rows = renormalize_rows(&mut p, columns);
        let scores = Scores::Matrix {
            values: Values::F64(p),
            k: columns,
            source: Source::Probs,
        };
        (scores, zero_rows)
    };
    Applied {
        set: PredictionSet { labels, scores, k },
        intervals,
        zero_rows_made_uniform: zero_rows,
    }
}

/// Fits `method` one-vs-rest on `split`'s calibration rows of `set` and applies it to
/// its evaluation rows (module docs for the inputs and the undefined cases).
pub fn fit_prob_map(
    set: &PredictionSet,
    split: &Split,
    method: ProbMethod,
    bins: Bins,
) -> Result<ProbOutcome, Undefined> {
    if matches!(
        method,
        ProbMethod::Vector | ProbMethod::Matrix | ProbMethod::Dirichlet
    ) {
        let folds = match bins {
            Bins::CrossFit { folds } => folds,
            Bins::Fixed(_) => DEFAULT_FOLDS,
        };
        return fit_scaling_map(set, split, method, folds);
    }
    FitScores::of(set).ok_or(Undefined::TopLabel)?;
    if split.calibration.is_empty() {
        return Err(Undefined::EmptyCalibrationSplit);
    }
    let (u_cal, columns) = class_probabilities(set, &split.calibration);
    let (bins, cross_fit) = match (method, bins) {
        (ProbMethod::Histogram, Bins::Fixed(m)) => (Some(m), None),
        (ProbMethod::Histogram, Bins::CrossFit { folds }) => {
            let cf = choose_bins(&u_cal, columns, &set.labels, split, folds);
            (Some(cf.chosen), Some(cf))
        }
        _ => (None, None),
    };
    let m = bins.unwrap_or(DEFAULT_BINS);
    if m == 0 {
        return Err(Undefined::EmptyCalibrationSplit);
    }
    let fits = fit_columns(method, m, &u_cal, columns, &set.labels, &split.calibration)?;
    let outcome = ProbOutcome {
        method,
        bins,
        cross_fit,
        fits,
        scaling: None,
        odir_search: None,
        after: PredictionSet {
            labels: Vec::new(),
            scores: Scores::Column {
                values: Values::F64(Vec::new()),
                source: Source::Probs,
            },
            k: set.k,
        },
        zero_rows_made_uniform: 0,
    };
    let applied = outcome.apply_with(set, &split.evaluation);
    Ok(ProbOutcome {
        after: applied.set,
        zero_rows_made_uniform: applied.zero_rows_made_uniform,
        ..outcome
    })
}

impl ProbOutcome {
    /// The rows `rows` of `set` (the set it was fitted on) recalibrated by the map.
    pub fn apply(&self, set: &PredictionSet, rows: &[usize]) -> Result<Applied, Undefined> {
        FitScores::of(set).ok_or(Undefined::TopLabel)?;
        Ok(self.apply_with(set, rows))
    }

    fn apply_with(&self, set: &PredictionSet, rows: &[usize]) -> Applied {
        if let Some(fit) = &self.scaling {
            return Applied {
                set: apply_scaling_fit(set, rows, fit),
                intervals: None,
                zero_rows_made_uniform: 0,
            };
        }
        let (u, _) = class_probabilities(set, rows);
        let labels = rows.iter().map(|&i| set.labels[i]).collect();
        apply_columns(&self.fits, &u, labels, set.k)
    }
}

/// The `K` cross-fitting folds of the calibration rows: the contract's stratified
/// split of the calibration rows' labels (seed `seed`) taken at fractions `j / K`,
/// fold `j` being the rows added between `j / K` and `(j + 1) / K`. The split shuffles
/// each class once (its draws do not depend on the fraction), so the folds are
/// consecutive pieces of each class's shuffled order: disjoint, covering every
/// calibration row, stratified (each class's rows dealt as evenly as `floor` allows).
/// Returned as positions into `calibration`, each fold ascending.
pub fn folds(
    labels: &[u32],
    k: usize,
    calibration: &[usize],
    seed: u64,
    folds: usize,
) -> Vec<Vec<usize>> {
    let y: Vec<u32> = calibration.iter().map(|&i| labels[i]).collect();
    let mut previous = vec![false; y.len()];
    (1..=folds)
        .map(|j| {
            let upto = if j == folds {
                vec![true; y.len()]
            } else {
                let mut m = vec![false; y.len()];
                for i in stratified_split(&y, k, seed, j as f64 / folds as f64).calibration {
                    m[i] = true;
                }
                m
            };
            let fold = (0..y.len()).filter(|&i| upto[i] && !previous[i]).collect();
            previous = upto;
            fold
        })
        .collect()
}

/// Chooses histogram binning's bin count by K-fold cross-fitting on the calibration
/// split: for each candidate of [`BIN_CANDIDATES`] and each fold, the map is fitted
/// on the other folds and scored on the fold by the Brier score of its one-vs-rest
/// probabilities (a proper score that stays finite when a bin's estimate is exactly 0
/// or 1, which NLL would not); the candidate with the lowest mean over every
/// calibration row wins, the fewer bins on a tie. `folds` is clamped to `2..=n_cal`;
/// with fewer than 2 calibration rows the default [`DEFAULT_BINS`] is kept (no
/// score). `u_cal` are the calibration rows' one-vs-rest probabilities (`columns`
/// per row, in `split.calibration` order). The folds are [`folds`] with seed 0: the
/// same calibration rows always give the same folds.
pub fn choose_bins(
    u_cal: &[f64],
    columns: usize,
    labels: &[u32],
    split: &Split,
    folds_k: usize,
) -> CrossFit {
    let cal = &split.calibration;
    let n = cal.len();
    let kk = folds_k.clamp(2, n.max(2));
    if n < 2 {
        return CrossFit {
            folds: kk,
            scores: Vec::new(),
            chosen: DEFAULT_BINS,
        };
    }
    let k_classes = labels.iter().map(|&y| y as usize + 1).max().unwrap_or(0);
    let parts = folds(labels, k_classes, cal, 0, kk);
    let mut fold_of = vec![0usize; n];
    for (f, part) in parts.iter().enumerate() {
        for &j in part {
            fold_of[j] = f;
        }
    }
    let scores: Vec<(usize, f64)> = BIN_CANDIDATES
        .iter()
        .map(|&m| {
            let mut total = 0.0;
            for (f, held) in parts.iter().enumerate() {
                if held.is_empty() {
                    continue;
                }
                let train: Vec<usize> = (0..n).filter(|&j| fold_of[j] != f).collect();
                for c in 0..columns {
                    let x: Vec<f64> = train.iter().map(|&j| u_cal[j * columns + c]).collect();
                    let y: Vec<bool> = train
                        .iter()
                        .map(|&j| positive(labels, cal[j], c, columns))
                        .collect();
                    let Some(fit) = fit_histogram(&x, &y, m) else {
                        continue;
                    };
                    for &j in held {
                        let t = f64::from(u8::from(positive(labels, cal[j], c, columns)));
                        let d = fit.predict(u_cal[j * columns + c]) - t;
                        total += d * d;
                    }
                }
            }
            (m, total / n as f64)
        })
        .collect();
    let chosen = scores
        .iter()
        .fold(None::<(usize, f64)>, |best, &(m, s)| match best {
            Some((_, b)) if b <= s => best,
            _ => Some((m, s)),
        })
        .map_or(DEFAULT_BINS, |(m, _)| m);
    CrossFit {
        folds: kk,
        scores,
        chosen,
    }
}

/// Fits beta calibration, histogram binning (`bins`) and Venn–Abers on `run`'s
/// calibration split (`run` from [`super::apply::recalibrate_temperature`] of the
/// same `set`) and applies them to its evaluation split; each is set to its outcome
/// or to why it is undefined.
pub fn fit_prob_maps(set: &PredictionSet, run: &mut super::apply::Recalibration, bins: Bins) {
    run.beta = fit_prob_map(set, &run.split, ProbMethod::Beta, bins);
    run.histogram = fit_prob_map(set, &run.split, ProbMethod::Histogram, bins);
    run.venn_abers = fit_prob_map(set, &run.split, ProbMethod::VennAbers, bins);
}

#[cfg(test)]
#[path = "prob_maps_tests.rs"]
mod tests;
