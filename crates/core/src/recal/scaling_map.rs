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
/// fold scored) the strongest strength is kept, without scores. The search run
/// whole: [`OdirSteps`] runs it one fit at a time.
pub fn choose_odir(
    x_cal: &[f64],
    k: usize,
    labels: &[u32],
    split: &Split,
    folds_k: usize,
) -> OdirSearch {
    let mut steps = OdirSteps::new(k, labels, split, folds_k);
    while !steps.is_done() {
        steps.step(x_cal);
    }
    steps.finish()
}

/// [`choose_odir`]'s search as units of work, one L-BFGS fit each (a fold at one
/// strength), so that a caller can yield between them (the web worker) and report
/// progress; the same fits in the same order, so the same choice.
#[derive(Clone, Debug)]
pub struct OdirSteps {
    y_cal: Vec<u32>,
    k: usize,
    folds_k: usize,
    /// The non-empty held-out parts (positions into the calibration rows).
    parts: Vec<Vec<usize>>,
    /// The fold in progress and its next strength.
    fold: usize,
    strength: usize,
    /// The fold in progress: training and held-out rows, and the last fit's
    /// parameters (the next strength starts there).
    data: Option<FoldData>,
    start: Option<Vec<f64>>,
    fold_scores: Vec<f64>,
    totals: Vec<f64>,
    scored: usize,
    skipped: usize,
}

/// One fold's rows: `(x_train, y_train, x_held, y_held)`.
type FoldData = (Vec<f64>, Vec<u32>, Vec<f64>, Vec<u32>);

impl OdirSteps {
    /// The search on the calibration rows of `split` (their inputs are passed to
    /// each [`OdirSteps::step`]).
    pub fn new(k: usize, labels: &[u32], split: &Split, folds_k: usize) -> Self {
        let cal = &split.calibration;
        let n = cal.len();
        let kk = folds_k.clamp(2, n.max(2));
        let parts = if n < 2 {
            Vec::new()
        } else {
            folds(labels, k, cal, 0, kk)
        };
        OdirSteps {
            y_cal: cal.iter().map(|&i| labels[i]).collect(),
            k,
            folds_k: kk,
            parts: parts.into_iter().filter(|p| !p.is_empty()).collect(),
            fold: 0,
            strength: 0,
            data: None,
            start: None,
            fold_scores: Vec::with_capacity(STRENGTHS.len()),
            totals: vec![0.0; STRENGTHS.len()],
            scored: 0,
            skipped: 0,
        }
    }

    /// Fits in all: one per fold and strength.
    pub fn units(&self) -> usize {
        self.parts.len() * STRENGTHS.len()
    }

    /// Fits done (a fold left out counts all its strengths as done).
    pub fn done(&self) -> usize {
        self.fold * STRENGTHS.len() + self.strength
    }

    /// Whether every fold has been scored or left out.
    pub fn is_done(&self) -> bool {
        self.fold >= self.parts.len()
    }

    /// Runs the next fit (nothing when done) on the calibration rows' inputs `x_cal`
    /// (row-major, `split.calibration.len() × k`, the same at every step).
    pub fn step(&mut self, x_cal: &[f64]) {
        let Some(held) = self.parts.get(self.fold) else {
            return;
        };
        let k = self.k;
        let (xt, yt, xh, yh) = self.data.get_or_insert_with(|| {
            let mut held_mask = vec![false; self.y_cal.len()];
            for &j in held {
                held_mask[j] = true;
            }
            let train: Vec<usize> = (0..self.y_cal.len()).filter(|&j| !held_mask[j]).collect();
            let gather = |rows: &[usize]| -> (Vec<f64>, Vec<u32>) {
                let x = rows
                    .iter()
                    .flat_map(|&j| x_cal[j * k..(j + 1) * k].iter().copied())
                    .collect();
                (x, rows.iter().map(|&j| self.y_cal[j]).collect())
            };
            let (xt, yt) = gather(&train);
            let (xh, yh) = gather(held);
            (xt, yt, xh, yh)
        });
        let s = STRENGTHS[self.strength];
        let odir = Odir { lambda: s, mu: s };
        let start = self.start.take();
        match fit_scaling(ScalingKind::Dirichlet, k, xt, yt, odir, start, SEARCH) {
            Some(fit) => {
                self.fold_scores.push(held_out_nll(&fit, xh, yh));
                self.start = Some(parameters(&fit));
                self.strength += 1;
                if self.strength == STRENGTHS.len() {
                    for (t, v) in self.totals.iter_mut().zip(&self.fold_scores) {
                        *t += v;
                    }
                    self.scored += held.len();
                    self.next_fold();
                }
            }
            None => {
                // the training part lacks a class: the fold is left out
                self.skipped += 1;
                self.next_fold();
            }
        }
    }

    fn next_fold(&mut self) {
        self.fold += 1;
        self.strength = 0;
        self.data = None;
        self.start = None;
        self.fold_scores.clear();
    }

    /// The search's outcome (call when [`OdirSteps::is_done`]).
    pub fn finish(self) -> OdirSearch {
        assert!(self.is_done(), "the search has fits left");
        if self.scored == 0 {
            return OdirSearch {
                folds: self.folds_k,
                scores: Vec::new(),
                chosen: STRENGTHS[0],
                folds_skipped: self.skipped,
            };
        }
        let scores: Vec<(f64, f64)> = STRENGTHS
            .iter()
            .zip(&self.totals)
            .map(|(&s, &t)| (s, t / self.scored as f64))
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
            folds: self.folds_k,
            scores,
            chosen,
            folds_skipped: self.skipped,
        }
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
/// rows (module docs; [`super::scaling`] for the undefined cases). Run whole:
/// [`ScalingSteps`] runs it one fit at a time.
pub fn fit_scaling_map(
    set: &PredictionSet,
    split: &Split,
    method: ProbMethod,
    folds_k: usize,
) -> Result<ProbOutcome, Undefined> {
    ScalingSteps::new(set, split, method, folds_k)?.finish(set, split)
}

/// [`fit_scaling_map`] as units of work, one L-BFGS fit each: Dirichlet
/// calibration's cross-validation fits ([`OdirSteps`]) and then the final fit
/// (vector and matrix scaling: the final fit alone). The same fits in the same
/// order as [`fit_scaling_map`], so the same outcome.
#[derive(Clone, Debug)]
pub struct ScalingSteps {
    method: ProbMethod,
    kind: ScalingKind,
    k: usize,
    /// The calibration rows' inputs and labels.
    x: Vec<f64>,
    y: Vec<u32>,
    search: Option<OdirSteps>,
    /// The search's outcome, once its fits are done.
    searched: Option<OdirSearch>,
    /// The search's fits (0 without a search).
    search_units: usize,
    fit: Option<ScalingFit>,
}

impl ScalingSteps {
    /// The fit of `method` on `split` of `set`, checked: undefined for top-label or
    /// binary input, fewer than 3 classes, an empty calibration split, non-finite
    /// inputs or a class without calibration rows.
    pub fn new(
        set: &PredictionSet,
        split: &Split,
        method: ProbMethod,
        folds_k: usize,
    ) -> Result<Self, Undefined> {
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
        let search = (kind == ScalingKind::Dirichlet)
            .then(|| OdirSteps::new(k, &set.labels, split, folds_k));
        let search_units = search.as_ref().map_or(0, OdirSteps::units);
        Ok(ScalingSteps {
            method,
            kind,
            k,
            x,
            y,
            search,
            searched: None,
            search_units,
            fit: None,
        })
    }

    /// Fits in all: the search's and the final one.
    pub fn units(&self) -> usize {
        self.search_units + 1
    }

    /// Fits done.
    pub fn done(&self) -> usize {
        let searched = self
            .search
            .as_ref()
            .map_or(self.search_units, OdirSteps::done);
        searched + usize::from(self.fit.is_some())
    }

    /// Whether the final fit is made.
    pub fn is_done(&self) -> bool {
        self.fit.is_some()
    }

    /// Runs the next fit (nothing when done).
    pub fn step(&mut self) {
        if self.fit.is_some() {
            return;
        }
        if let Some(search) = self.search.as_mut() {
            if !search.is_done() {
                search.step(&self.x);
                return;
            }
            self.searched = self.search.take().map(OdirSteps::finish);
        }
        let strength = self.searched.as_ref().map_or(0.0, |s| s.chosen);
        let odir = Odir {
            lambda: strength,
            mu: strength,
        };
        self.fit = fit_scaling(self.kind, self.k, &self.x, &self.y, odir, None, FINAL);
        debug_assert!(self.fit.is_some(), "checked by new");
    }

    /// The outcome on `split`'s evaluation rows of `set` (the set and split of
    /// [`ScalingSteps::new`]); the fits not yet run are run first.
    pub fn finish(mut self, set: &PredictionSet, split: &Split) -> Result<ProbOutcome, Undefined> {
        while !self.is_done() {
            self.step();
        }
        let fit = self.fit.take().ok_or(Undefined::EmptyCalibrationSplit)?;
        Ok(ProbOutcome {
            method: self.method,
            bins: None,
            cross_fit: None,
            fits: Vec::new(),
            after: apply_scaling_fit(set, &split.evaluation, &fit),
            scaling: Some(fit),
            odir_search: self.searched,
            zero_rows_made_uniform: 0,
        })
    }
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

#[cfg(test)]
#[path = "scaling_map_tests.rs"]
mod tests;
