//! Recalibrating a prediction set end to end (METRICS.md §6): split, fit each method
//! on the calibration split, apply it to the evaluation split, and check the
//! invariants temperature scaling must keep.
//!
//! The recalibrated evaluation sets are ordinary [`PredictionSet`]s, so every
//! "after" number comes from the same audit code as every "before" number:
//! temperature gives scaled logits (its NLL is then computed from logits, §3),
//! Platt and isotonic give probabilities.

use super::prob_maps::ProbOutcome;
use super::{
    fit_isotonic, fit_platt, logit_clipped, renormalize_rows, two_column_score, IsotonicFit,
    PlattFit, TemperatureFit,
};
use crate::data::{Kind, PredictionSet, Real, Scores, Source, Values};
use crate::split::Split;

pub use super::staged::{
    temperature_checks, temperature_finish, temperature_fit, temperature_start,
    temperature_top_label_checks, PendingInvariants, TemperatureFitted, TemperatureStart,
};

/// The scores the fits work on: the binary score `s` (a logit) per sample, or the
/// multiclass logit matrix `z` (given, or `ln p` of probability input, clipped).
#[derive(Clone, Debug, PartialEq)]
pub enum FitScores {
    /// The binary score `s` of each sample.
    Binary(Vec<f64>),
    /// The `n × k` logits (`ln p` of probability input).
    Multiclass {
        /// Row-major logits.
        logits: Values,
        /// Number of classes.
        k: usize,
    },
}

impl FitScores {
    /// The section-6 scores of `set`: binary `s` (a logit column as is, `logit(u)` of
    /// a probability column, `z_1 - z_0` / `ln p_1 - ln p_0` of two columns), or the
    /// multiclass logits. `None` for top-label sets.
    pub fn of(set: &PredictionSet) -> Option<FitScores> {
        match &set.scores {
            Scores::TopLabel { .. } => None,
            Scores::Column { values, source } => Some(FitScores::Binary(
                (0..set.n())
                    .map(|i| match source {
                        Source::Logits => values.get(i),
                        _ => logit_clipped(values.get(i)),
                    })
                    .collect(),
            )),
            Scores::Matrix {
                values,
                k: 2,
                source,
            } => Some(FitScores::Binary(
                (0..set.n())
                    .map(|i| {
                        let (a, b) = (values.get(2 * i), values.get(2 * i + 1));
                        match source {
                            Source::Logits => b - a,
                            _ => two_column_score(a, b),
                        }
                    })
                    .collect(),
            )),
            Scores::Matrix { values, k, source } => Some(FitScores::Multiclass {
                logits: match source {
                    Source::Logits => values.clone(),
                    _ => Values::F64(crate::with_values!(values, |v| super::ln_clipped_all(v))),
                },
                k: *k,
            }),
        }
    }

    /// The one-vs-rest score of class `r` for row `i` (binary: `s` for class 1).
    fn class_score(&self, i: usize, r: usize) -> f64 {
        match self {
            FitScores::Binary(s) => s[i],
            FitScores::Multiclass { logits, k } => logits.get(i * k + r),
        }
    }

    /// The rows `rows` scaled by a temperature: logits `s/τ` (binary) or `z/τ`.
    pub fn temperature_scaled(&self, labels: &[u32], tau: f64, rows: &[usize]) -> PredictionSet {
        self.view().temperature_scaled(labels, tau, rows)
    }

    fn view(&self) -> ScoresView<'_> {
        match self {
            FitScores::Binary(s) => ScoresView::Binary(s),
            FitScores::Multiclass { logits, k } => ScoresView::Multiclass(logits, *k),
        }
    }

    /// The rows `rows` mapped through fitted one-vs-rest maps (`maps[0]` applied to
    /// `s` for binary input; `maps[r]` to `z_r` otherwise, rows renormalised, an
    /// all-zero row made uniform). Returns the set and how many rows were made uniform.
    pub fn mapped<F: ScoreMap>(
        &self,
        labels: &[u32],
        maps: &[&F],
        rows: &[usize],
    ) -> (PredictionSet, usize) {
        let labels = rows.iter().map(|&i| labels[i]).collect();
        match self {
            FitScores::Binary(s) => {
                let x: Vec<f64> = rows.iter().map(|&i| s[i]).collect();
                let mut u = vec![0.0; rows.len()];
                maps[0].map_many(&x, &mut u);
                let set = PredictionSet {
                    labels,
                    scores: Scores::Column {
                        values: Values::F64(u),
                        source: Source::Probs,
                    },
                    k: 2,
                };
                (set, 0)
            }
            FitScores::Multiclass { k, .. } => {
                let k = *k;
                let mut p = vec![0.0; rows.len() * k];
                let mut x = vec![0.0; rows.len()];
                let mut col = vec![0.0; rows.len()];
                for (r, map) in maps.iter().enumerate().take(k) {
                    for (v, &i) in x.iter_mut().zip(rows) {
                        *v = self.class_score(i, r);
                    }
                    map.map_many(&x, &mut col);
                    for (j, &v) in col.iter().enumerate() {
                        p[j * k + r] = v;
                    }
                }
                let zero_rows = renormalize_rows(&mut p, k);
                let set = PredictionSet {
                    labels,
                    scores: Scores::Matrix {
                        values: Values::F64(p),
                        k,
                        source: Source::Probs,
                    },
                    k,
                };
                (set, zero_rows)
            }
        }
    }
}

/// The scores of temperature scaling, borrowed: from a [`FitScores`], or straight
/// from a set's own logit matrix (which [`FitScores::of`] would copy).
#[derive(Clone, Copy)]
pub(super) enum ScoresView<'a> {
    Binary(&'a [f64]),
    Multiclass(&'a Values, usize),
}

impl ScoresView<'_> {
    /// The scores of `set` as [`FitScores::of`] gives them, borrowed when `set` holds
    /// a multiclass logit matrix (`kept` holds the computed scores otherwise).
    pub(super) fn of<'a>(
        set: &'a PredictionSet,
        kept: &'a mut Option<FitScores>,
    ) -> Option<ScoresView<'a>> {
        match &set.scores {
            Scores::Matrix {
                values,
                k,
                source: Source::Logits,
            } if *k != 2 => Some(ScoresView::Multiclass(values, *k)),
            _ => {
                *kept = FitScores::of(set);
                kept.as_ref().map(FitScores::view)
            }
        }
    }

    /// [`ScoresView::of`] once `kept` holds what it computed: no recomputation.
    pub(super) fn borrowed<'a>(
        set: &'a PredictionSet,
        kept: &'a Option<FitScores>,
    ) -> Option<ScoresView<'a>> {
        match (&set.scores, kept) {
            (
                Scores::Matrix {
                    values,
                    k,
                    source: Source::Logits,
                },
                _,
            ) if *k != 2 => Some(ScoresView::Multiclass(values, *k)),
            (_, kept) => kept.as_ref().map(FitScores::view),
        }
    }

    /// See [`FitScores::temperature_scaled`].
    pub(super) fn temperature_scaled(
        self,
        labels: &[u32],
        tau: f64,
        rows: &[usize],
    ) -> PredictionSet {
        let labels = rows.iter().map(|&i| labels[i]).collect();
        match self {
            ScoresView::Binary(s) => PredictionSet {
                labels,
                scores: Scores::Column {
                    values: Values::F64(rows.iter().map(|&i| s[i] / tau).collect()),
                    source: Source::Logits,
                },
                k: 2,
            },
            ScoresView::Multiclass(logits, k) => {
                let mut scaled = Vec::with_capacity(rows.len() * k);
                crate::with_values!(logits, |z| for &i in rows {
                    scaled.extend(z[i * k..(i + 1) * k].iter().map(|v| v.to_f64() / tau));
                });
                PredictionSet {
                    labels,
                    scores: Scores::Matrix {
                        values: Values::F64(scaled),
                        k,
                        source: Source::Logits,
                    },
                    k,
                }
            }
        }
    }
}

/// Why a fit is undefined.
#[derive(Clone, Debug, PartialEq)]
pub enum Undefined {
    /// The calibration split has no rows.
    EmptyCalibrationSplit,
    /// A one-vs-rest fit lacks the positive (or negative) class on the calibration split.
    MissingClass {
        /// The class of the one-vs-rest fit.
        class: usize,
        /// True when the positive class is missing, false for the negative.
        positive: bool,
    },
    /// Top-label input has no scores to recalibrate.
    TopLabel,
    /// Not fitted yet ([`recalibrate_temperature`] before [`fit_maps`]).
    NotComputed,
    /// Not asked for: a temperature-only run ([`recalibrate_temperature_only`]).
    NotAsked,
    /// A multiclass map (vector, matrix, Dirichlet) asked of binary input.
    NotMulticlass,
    /// A calibration row holds a NaN or infinite score.
    NonFiniteScores,
    /// The rows' class positions are different answers (questions with different
    /// numbers of choices, an lm-evaluation-harness log of a task like ARC): a map
    /// fitted per position (one-vs-rest) or mixing positions (vector, matrix,
    /// Dirichlet) has no meaning, and would give padding choices probability.
    ClassPositions,
}

impl std::fmt::Display for Undefined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undefined::EmptyCalibrationSplit => write!(f, "empty calibration split"),
            Undefined::MissingClass { class, positive } => write!(
                f,
                "class {class}: calibration split lacks the {} class of this fit",
                if *positive { "positive" } else { "negative" }
            ),
            Undefined::TopLabel => write!(f, "top-label input has no scores to recalibrate"),
            Undefined::NotComputed => write!(f, "not computed yet"),
            Undefined::NotAsked => write!(f, "not asked for (temperature scaling only)"),
            Undefined::NotMulticlass => write!(
                f,
                "a multiclass method: it needs three classes or more (for two classes, beta calibration and Platt scaling are its two-class forms)"
            ),
            Undefined::NonFiniteScores => {
                write!(f, "a calibration row holds a NaN or infinite score")
            }
            Undefined::ClassPositions => write!(
                f,
                "the questions have different numbers of choices, so a class position (choice 1, choice 2, …) is a different answer in each question; a map fitted per position does not apply (temperature scaling treats every choice alike)"
            ),
        }
    }
}

/// Temperature scaling's fit, its recalibrated evaluation set and its checks.
#[derive(Clone, Debug, PartialEq)]
pub struct TemperatureOutcome {
    /// τ, the NLL at 1 and at τ, and the search trace.
    pub fit: TemperatureFit,
    /// The evaluation split after scaling (logits `s/τ` or `z/τ`).
    pub after: PredictionSet,
    /// The invariance checks on the evaluation split.
    pub invariants: TemperatureInvariants,
}

/// What temperature scaling must keep (asserted by the contract; `true` when it
/// held on the evaluation split) and what it need not (informational).
#[derive(Clone, Debug, PartialEq)]
pub struct TemperatureInvariants {
    /// Every row's predicted class is unchanged.
    pub argmax_identical: bool,
    /// Accuracy is unchanged.
    pub accuracy_identical: bool,
    /// The fitted calibration NLL is not above the NLL at `τ = 1`.
    pub nll_cal_not_above_tau1: bool,
    /// Binary: the stable order of `s/τ` equals that of `s`.
    pub score_order_identical: Option<bool>,
    /// Binary: AUC on `s/τ` equals AUC on `s`, exactly.
    pub score_auc_identical: Option<bool>,
    /// Binary: AUC of `s` and of `s/τ`.
    pub score_auc: Option<(Option<f64>, Option<f64>)>,
    /// Per probability column, whether its stable order is unchanged.
    pub prob_argsort_identical_per_class: Vec<bool>,
    /// Per class, AUC of `p^(r)` after minus before (`None` where undefined).
    pub prob_auc_change_per_class: Vec<Option<f64>>,
    /// Macro AUC after minus before.
    pub prob_auc_macro_change: Option<f64>,
    /// Every probability-level check (the fields above come from it).
    pub checks: super::checks::ProbChecks,
}

/// Platt's or isotonic's per-class fits and the recalibrated evaluation set.
#[derive(Clone, Debug, PartialEq)]
pub struct MapOutcome<F> {
    /// One fit for binary input, one per class (one-vs-rest) otherwise; `None` where
    /// the calibration split lacks a class.
    pub fits: Vec<Option<F>>,
    /// The evaluation split after recalibration, or why it is undefined.
    pub after: Result<PredictionSet, Undefined>,
    /// Multiclass: rows whose one-vs-rest outputs were all 0 and were made uniform.
    pub zero_rows_made_uniform: usize,
}

/// A fitted one-vs-rest map from a score to a probability (Platt, isotonic).
pub trait ScoreMap {
    /// The recalibrated probability of score `s`.
    fn map(&self, s: f64) -> f64;

    /// `out[i] = self.map(xs[i])` (the same values; a map may batch the work).
    fn map_many(&self, xs: &[f64], out: &mut [f64]) {
        for (o, &x) in out.iter_mut().zip(xs) {
            *o = self.map(x);
        }
    }
}

impl ScoreMap for PlattFit {
    fn map(&self, s: f64) -> f64 {
        self.predict(s)
    }
}

impl ScoreMap for IsotonicFit {
    fn map(&self, s: f64) -> f64 {
        self.predict(s)
    }

    fn map_many(&self, xs: &[f64], out: &mut [f64]) {
        self.predict_many(xs, out)
    }
}

impl<F: ScoreMap> MapOutcome<F> {
    /// The fitted maps (one per class, or one for binary input), or why they are
    /// undefined.
    pub fn maps(&self) -> Result<Vec<&F>, Undefined> {
        if let Err(reason) = &self.after {
            return Err(reason.clone());
        }
        Ok(self
            .fits
            .iter()
            .map(|f| f.as_ref().expect("defined when after is"))
            .collect())
    }

    /// The rows `rows` of the scores recalibrated by these maps.
    pub fn apply(
        &self,
        scores: &FitScores,
        labels: &[u32],
        rows: &[usize],
    ) -> Result<PredictionSet, Undefined> {
        Ok(scores.mapped(labels, &self.maps()?, rows).0)
    }
}

/// Everything of a recalibration run.
#[derive(Clone, Debug, PartialEq)]
pub struct Recalibration {
    /// The calibration / evaluation split.
    pub split: Split,
    /// The evaluation split as given ("before").
    pub before: PredictionSet,
    /// Temperature scaling, or why it is undefined.
    pub temperature: Result<TemperatureOutcome, Undefined>,
    /// Platt scaling, or why it is undefined.
    pub platt: Result<MapOutcome<PlattFit>, Undefined>,
    /// Isotonic regression, or why it is undefined.
    pub isotonic: Result<MapOutcome<IsotonicFit>, Undefined>,
    /// Beta calibration ([`super::prob_maps`]; [`Undefined::NotComputed`] until
    /// [`super::prob_maps::fit_prob_maps`]).
    pub beta: Result<ProbOutcome, Undefined>,
    /// Histogram binning, likewise.
    pub histogram: Result<ProbOutcome, Undefined>,
    /// Inductive Venn–Abers, likewise.
    pub venn_abers: Result<ProbOutcome, Undefined>,
    /// Vector scaling ([`super::scaling_map`]), likewise (fitted on request only).
    pub vector: Result<ProbOutcome, Undefined>,
    /// Matrix scaling, likewise.
    pub matrix: Result<ProbOutcome, Undefined>,
    /// Dirichlet calibration with ODIR, likewise.
    pub dirichlet: Result<ProbOutcome, Undefined>,
    /// Probability input holding exact 0s or 1s: `ln 1e-15` becomes a fake logit and
    /// temperature scaling is ill-posed.
    pub exact_zero_one_probabilities: bool,
}

impl Recalibration {
    /// The outcome slot of a probability map (beta, histogram, Venn–Abers) or a
    /// multiclass map (vector, matrix, Dirichlet).
    pub fn prob_map_mut(
        &mut self,
        method: super::prob_maps::ProbMethod,
    ) -> &mut Result<ProbOutcome, Undefined> {
        use super::prob_maps::ProbMethod;
        match method {
            ProbMethod::Beta => &mut self.beta,
            ProbMethod::Histogram => &mut self.histogram,
            ProbMethod::VennAbers => &mut self.venn_abers,
            ProbMethod::Vector => &mut self.vector,
            ProbMethod::Matrix => &mut self.matrix,
            ProbMethod::Dirichlet => &mut self.dirichlet,
        }
    }
}

/// Splits `set` (stratified, SplitMix64 `seed`, calibration `fraction`), fits
/// temperature, Platt and isotonic on the calibration split and applies them to the
/// evaluation split. Top-label sets are undefined throughout.
pub fn recalibrate(set: &PredictionSet, seed: u64, fraction: f64) -> Recalibration {
    let mut run = recalibrate_temperature(set, seed, fraction);
    fit_maps(set, &mut run);
    run
}

/// [`recalibrate`] without Platt and isotonic (they stay [`Undefined::NotAsked`], or
/// the temperature's own reason when it is undefined): the work of a
/// temperature-scaling pipeline.
pub fn recalibrate_temperature_only(
    set: &PredictionSet,
    seed: u64,
    fraction: f64,
) -> Recalibration {
    let mut run = recalibrate_temperature(set, seed, fraction);
    mark_maps_not_asked(&mut run);
    run
}

/// Platt and isotonic of a temperature-only run: [`Undefined::NotAsked`] where they
/// were [`Undefined::NotComputed`] (an undefined temperature's reason stays).
pub fn mark_maps_not_asked(run: &mut Recalibration) {
    mark_platt_isotonic(run, Undefined::NotAsked);
}

/// Platt and isotonic undefined for `reason` where they were
/// [`Undefined::NotComputed`] (an undefined temperature's reason stays), e.g.
/// [`Undefined::ClassPositions`] for rows whose class positions differ.
pub fn mark_platt_isotonic(run: &mut Recalibration, reason: Undefined) {
    if matches!(run.platt, Err(Undefined::NotComputed)) {
        run.platt = Err(reason.clone());
    }
    if matches!(run.isotonic, Err(Undefined::NotComputed)) {
        run.isotonic = Err(reason);
    }
}

/// The first part of [`recalibrate`]: the split and temperature scaling only (the
/// fast part); Platt and isotonic are [`Undefined::NotComputed`] until [`fit_maps`].
pub fn recalibrate_temperature(set: &PredictionSet, seed: u64, fraction: f64) -> Recalibration {
    recalibrate_temperature_clocked(set, seed, fraction, None).0
}

/// [`recalibrate_temperature`], also returning how long the temperature fit itself
/// took (objective and golden-section search, by the clock `now`; `None` without a
/// clock or a fit). The three stages one after the other: [`temperature_start`],
/// [`temperature_fit`], then [`temperature_checks`] and [`temperature_finish`].
pub fn recalibrate_temperature_clocked(
    set: &PredictionSet,
    seed: u64,
    fraction: f64,
    now: Option<fn() -> f64>,
) -> (Recalibration, Option<f64>) {
    let start = temperature_start(set, seed, fraction);
    let before = start.before(set);
    let fitted = temperature_fit(set, &start, now);
    let checks = temperature_checks(set, &start, &before, &fitted);
    let fit_time = fitted.fit_time;
    (temperature_finish(start, before, fitted, checks), fit_time)
}

/// The second part of [`recalibrate`]: fits Platt and isotonic on `run`'s
/// calibration split (`run` from [`recalibrate_temperature`] of the same `set`) and
/// applies them to its evaluation split. Nothing to do when the run is undefined.
pub fn fit_maps(set: &PredictionSet, run: &mut Recalibration) {
    if let Some((platt, isotonic)) = fit_maps_on(set, &run.split) {
        run.platt = Ok(platt);
        run.isotonic = Ok(isotonic);
    }
}

/// Platt and isotonic fitted one-vs-rest on `split`'s calibration rows and applied to
/// its evaluation rows; `None` for top-label sets and an empty calibration split.
pub fn fit_maps_on(
    set: &PredictionSet,
    split: &Split,
) -> Option<(MapOutcome<PlattFit>, MapOutcome<IsotonicFit>)> {
    let scores = FitScores::of(set)?;
    if split.calibration.is_empty() {
        return None;
    }
    Some((
        one_vs_rest(set, &scores, split, fit_platt),
        one_vs_rest(set, &scores, split, fit_isotonic),
    ))
}

/// Platt alone, as [`fit_maps_on`] fits it (for a caller that times each map).
pub fn fit_platt_on(set: &PredictionSet, split: &Split) -> Option<MapOutcome<PlattFit>> {
    let scores = FitScores::of(set)?;
    (!split.calibration.is_empty()).then(|| one_vs_rest(set, &scores, split, fit_platt))
}

/// Isotonic alone, as [`fit_maps_on`] fits it.
pub fn fit_isotonic_on(set: &PredictionSet, split: &Split) -> Option<MapOutcome<IsotonicFit>> {
    let scores = FitScores::of(set)?;
    (!split.calibration.is_empty()).then(|| one_vs_rest(set, &scores, split, fit_isotonic))
}

/// Fits `fit` one-vs-rest (binary: once, on `s`) on the calibration split and maps
/// the evaluation split through the fits; multiclass rows are renormalised.
fn one_vs_rest<F: ScoreMap>(
    set: &PredictionSet,
    scores: &FitScores,
    split: &Split,
    fit: impl Fn(&[f64], &[bool]) -> Option<F>,
) -> MapOutcome<F> {
    let binary = set.kind() == Kind::Binary;
    let classes: Vec<usize> = if binary {
        vec![1]
    } else {
        (0..set.k).collect()
    };
    let mut fits = Vec::with_capacity(classes.len());
    let mut missing = None;
    for &r in &classes {
        let s: Vec<f64> = split
            .calibration
            .iter()
            .map(|&i| scores.class_score(i, r))
            .collect();
        let y: Vec<bool> = split
            .calibration
            .iter()
            .map(|&i| set.labels[i] as usize == r)
            .collect();
        let f = fit(&s, &y);
        if f.is_none() && missing.is_none() {
            missing = Some(Undefined::MissingClass {
                class: r,
                positive: !y.iter().any(|&v| v),
            });
        }
        fits.push(f);
    }
    if let Some(reason) = missing {
        return MapOutcome {
            fits,
            after: Err(reason),
            zero_rows_made_uniform: 0,
        };
    }
    let fitted: Vec<&F> = fits.iter().map(|f| f.as_ref().expect("checked")).collect();
    let (after, zero_rows) = scores.mapped(&set.labels, &fitted, &split.evaluation);
    MapOutcome {
        fits,
        after: Ok(after),
        zero_rows_made_uniform: zero_rows,
    }
}
