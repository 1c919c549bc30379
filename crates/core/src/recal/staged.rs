//! Temperature scaling of a prediction set in stages (METRICS.md §6): the split, the
//! fit and the scaled evaluation rows, the invariance checks, and the assembled
//! [`Recalibration`]. [`super::apply::recalibrate_temperature_clocked`] runs them one
//! after the other; the CLI runs independent work beside each (the audit of the whole
//! set, which makes the "before" ledger in its passes, while τ is fitted; the "after"
//! ledger, whose sorted walks check each class's order, beside the top labels'
//! checks), and completes the checks with the orders and AUCs its ledgers computed.

use super::apply::{
    FitScores, Recalibration, ScoresView, TemperatureInvariants, TemperatureOutcome, Undefined,
};
use super::{TemperatureFit, TemperatureObjective, TemperatureOptions};
use crate::data::{PredictionSet, Real, Scores, Source};
use crate::reading::{self, ProbView};
use crate::split::{stratified_split, Split};

/// The first stage of a temperature run: the split and the scan for exact 0/1
/// probabilities. The stages exist so a caller can run independent work beside each
/// (the CLI audits the whole set and makes the "before" rows and their ledger while
/// τ is fitted, and the "after" ledger beside the checks).
#[derive(Clone, Debug)]
pub struct TemperatureStart {
    /// The calibration / evaluation split.
    pub split: Split,
    /// See [`Recalibration::exact_zero_one_probabilities`].
    pub exact_zero_one_probabilities: bool,
}

impl TemperatureStart {
    /// The evaluation split of `set` as given ("before").
    pub fn before(&self, set: &PredictionSet) -> PredictionSet {
        reading::subset(set, &self.split.evaluation)
    }
}

/// The second stage: τ fitted on the calibration split and the evaluation split
/// scaled by it, or why temperature scaling is undefined.
#[derive(Clone, Debug)]
pub struct TemperatureFitted {
    result: Result<(TemperatureFit, PredictionSet), Undefined>,
    /// The scores [`FitScores::of`] computed when the set's own could not be borrowed.
    kept: Option<FitScores>,
    /// How long the fit took by the clock given to [`temperature_fit`].
    pub fit_time: Option<f64>,
}

impl TemperatureFitted {
    /// The evaluation split after scaling (logits `s/τ` or `z/τ`), when defined.
    pub fn after(&self) -> Option<&PredictionSet> {
        self.result.as_ref().ok().map(|(_, after)| after)
    }

    /// The fit and the scaled evaluation split, or why temperature scaling is
    /// undefined (consumes the stage).
    pub fn into_result(self) -> Result<(TemperatureFit, PredictionSet), Undefined> {
        self.result
    }
}

/// See [`TemperatureStart`].
pub fn temperature_start(set: &PredictionSet, seed: u64, fraction: f64) -> TemperatureStart {
    let split = stratified_split(&set.labels, set.k, seed, fraction);
    let exact_zero_one_probabilities = set.source() == Source::Probs
        && match &set.scores {
            Scores::Column { values, .. } | Scores::Matrix { values, .. } => {
                crate::with_values!(values, |v| v.iter().any(|x| {
                    let x = x.to_f64();
                    x == 0.0 || x == 1.0
                }))
            }
            Scores::TopLabel { .. } => false,
        };
    TemperatureStart {
        split,
        exact_zero_one_probabilities,
    }
}

/// See [`TemperatureFitted`]; `now` times the fit.
pub fn temperature_fit(
    set: &PredictionSet,
    start: &TemperatureStart,
    now: Option<fn() -> f64>,
) -> TemperatureFitted {
    let mut kept = None;
    let mut fit_time = None;
    let result = match ScoresView::of(set, &mut kept) {
        None => Err(Undefined::TopLabel),
        Some(_) if start.split.calibration.is_empty() => Err(Undefined::EmptyCalibrationSplit),
        Some(scores) => {
            let (fit, after, time) = temperature(set, scores, &start.split, now);
            fit_time = time;
            Ok((fit, after))
        }
    };
    TemperatureFitted {
        result,
        kept,
        fit_time,
    }
}

/// The third stage: the invariance checks of a defined fit (`None` otherwise),
/// `before` being [`TemperatureStart::before`].
pub fn temperature_checks(
    set: &PredictionSet,
    start: &TemperatureStart,
    before: &PredictionSet,
    fitted: &TemperatureFitted,
) -> Option<TemperatureInvariants> {
    let (after, scores) = defined(set, start, before, fitted)?;
    Some(scores.with(super::checks::prob_checks(before, after)))
}

/// A defined fit's evaluation set after scaling and the checks on its scores.
fn defined<'a>(
    set: &PredictionSet,
    start: &TemperatureStart,
    before: &PredictionSet,
    fitted: &'a TemperatureFitted,
) -> Option<(&'a PredictionSet, ScoreChecks)> {
    let (fit, after) = fitted.result.as_ref().ok()?;
    let scores = ScoresView::borrowed(set, &fitted.kept)?;
    Some((after, score_checks(scores, &start.split, fit, before)))
}

/// [`temperature_checks`] without the per-class AUCs and orders of the
/// probabilities (the costly part on many classes: sorts of each column): the checks
/// of the top labels and the scores, `before` being a view of
/// [`TemperatureStart::before`]. For a caller whose audit of the "after" set checks
/// each class's order in its sorted walks
/// ([`crate::audit::Audit::compute_with_orders`] with `before` as the reference),
/// which saves a sort per class; [`PendingInvariants::with_class_orders`] takes
/// those orders.
pub fn temperature_top_label_checks(
    set: &PredictionSet,
    start: &TemperatureStart,
    before: &ProbView<'_>,
    fitted: &TemperatureFitted,
) -> Option<PendingInvariants> {
    let (after, scores) = defined(set, start, before.set(), fitted)?;
    let after = ProbView::new(after).expect("a fitted set has scores");
    Some(PendingInvariants {
        order: super::checks::top_label_checks(before, &after),
        scores,
    })
}

/// Temperature's invariance checks awaiting the order and the AUCs of each class
/// (see [`temperature_top_label_checks`]).
#[derive(Clone, Debug)]
pub struct PendingInvariants {
    order: super::checks::OrderChecks,
    scores: ScoreChecks,
}

impl PendingInvariants {
    /// These checks with each class's order (see [`temperature_top_label_checks`]).
    pub fn with_class_orders(self, argsort_identical_per_class: Vec<bool>) -> Self {
        PendingInvariants {
            order: self.order.with_class_orders(argsort_identical_per_class),
            ..self
        }
    }

    /// The checks, given the one-vs-rest AUC of each class of the evaluation split
    /// before and after scaling as [`crate::audit::Audit::compute`] reports them
    /// (see [`super::checks::OrderChecks::with_aucs`]).
    pub fn with_aucs(self, before: &[Option<f64>], after: &[Option<f64>]) -> TemperatureInvariants {
        self.scores.with(self.order.with_aucs(before, after))
    }
}

/// The checks on the scores themselves (binary: order and AUC of `s` and `s/τ`) and
/// on the fit.
#[derive(Clone, Debug)]
struct ScoreChecks {
    nll_cal_not_above_tau1: bool,
    score_order_identical: Option<bool>,
    score_auc_identical: Option<bool>,
    score_auc: Option<(Option<f64>, Option<f64>)>,
}

fn score_checks(
    scores: ScoresView<'_>,
    split: &Split,
    fit: &TemperatureFit,
    before: &PredictionSet,
) -> ScoreChecks {
    let (score_order_identical, score_auc_identical, score_auc) = match scores {
        ScoresView::Binary(s) => {
            let s_eval: Vec<f64> = split.evaluation.iter().map(|&i| s[i]).collect();
            let scaled: Vec<f64> = s_eval.iter().map(|v| v / fit.tau).collect();
            let (identical, b, a) =
                super::checks::order_and_auc(&s_eval, &scaled, |i| before.labels[i] == 1);
            (Some(identical), Some(a == b), Some((b, a)))
        }
        ScoresView::Multiclass(..) => (None, None, None),
    };
    ScoreChecks {
        nll_cal_not_above_tau1: fit.nll_tau <= fit.nll_tau1,
        score_order_identical,
        score_auc_identical,
        score_auc,
    }
}

impl ScoreChecks {
    fn with(self, checks: super::checks::ProbChecks) -> TemperatureInvariants {
        TemperatureInvariants {
            argmax_identical: checks.argmax_identical(),
            accuracy_identical: checks.accuracy.0 == checks.accuracy.1,
            nll_cal_not_above_tau1: self.nll_cal_not_above_tau1,
            score_order_identical: self.score_order_identical,
            score_auc_identical: self.score_auc_identical,
            score_auc: self.score_auc,
            prob_argsort_identical_per_class: checks.argsort_identical_per_class.clone(),
            prob_auc_change_per_class: checks.auc_change_per_class.clone(),
            prob_auc_macro_change: checks.auc_macro_change,
            checks,
        }
    }
}

/// The run of the three stages, `checks` being [`temperature_checks`] of them. Platt
/// and isotonic are [`Undefined::NotComputed`] (or temperature's own reason), the
/// probability maps [`Undefined::NotComputed`] (only
/// [`super::prob_maps::fit_prob_maps`] sets them, with their own reasons).
pub fn temperature_finish(
    start: TemperatureStart,
    before: PredictionSet,
    fitted: TemperatureFitted,
    checks: Option<TemperatureInvariants>,
) -> Recalibration {
    let temperature = fitted.result.map(|(fit, after)| TemperatureOutcome {
        fit,
        after,
        invariants: checks.expect("the checks of a defined fit"),
    });
    let pending = match &temperature {
        Err(reason) => reason.clone(),
        Ok(_) => Undefined::NotComputed,
    };
    Recalibration {
        split: start.split,
        before,
        temperature,
        platt: Err(pending.clone()),
        isotonic: Err(pending),
        beta: Err(Undefined::NotComputed),
        histogram: Err(Undefined::NotComputed),
        venn_abers: Err(Undefined::NotComputed),
        vector: Err(Undefined::NotComputed),
        matrix: Err(Undefined::NotComputed),
        dirichlet: Err(Undefined::NotComputed),
        exact_zero_one_probabilities: start.exact_zero_one_probabilities,
    }
}

fn temperature(
    set: &PredictionSet,
    scores: ScoresView<'_>,
    split: &Split,
    now: Option<fn() -> f64>,
) -> (TemperatureFit, PredictionSet, Option<f64>) {
    let start = now.map(|f| f());
    let cal = Some(split.calibration.as_slice());
    let options = TemperatureOptions::default();
    let fit = match scores {
        ScoresView::Binary(s) => super::BinaryNll::new(s, &set.labels, cal)
            .expect("non-empty split")
            .fit(&options),
        ScoresView::Multiclass(logits, k) => {
            super::fit_temperature_values(logits, k, &set.labels, cal, &options)
                .expect("non-empty split")
        }
    };
    let fit_time = now.zip(start).map(|(f, t)| f() - t);
    let after = scores.temperature_scaled(&set.labels, fit.tau, &split.evaluation);
    (fit, after, fit_time)
}
