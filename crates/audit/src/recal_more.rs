//! The methods an audit fits beyond temperature scaling, Platt and isotonic when
//! asked ([`RecalibrationSettings::more_methods`]: the page's Recalibrate view,
//! `calibscope audit --methods`): beta calibration, histogram binning and
//! Venn–Abers (one-vs-rest on the class probabilities), and vector, matrix and
//! Dirichlet scaling (multiclass), each fitted on the same calibration split and
//! measured on the same evaluation split; and the section's `comparison` of every
//! set then defined ([`comparison_json`] at [`comparison_settings`]).
//!
//! Histogram binning's bin count and the Dirichlet penalty are chosen by
//! [`DEFAULT_FOLDS`]-fold cross-fitting on the calibration split, as in the page.

use crate::{comparison_json, Method, RecalibrationSettings};
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::recal::apply::{Recalibration, Undefined};
use calibscope_core::recal::prob_maps::{fit_prob_map, Bins, DEFAULT_FOLDS};
use calibscope_core::reliability::DEFAULT_ALPHA;
use calibscope_core::PredictionSet;
use serde_json::Value;

/// The most replicates of a comparison.
pub const COMPARE_REPLICATES: usize = 200;
/// Row visits of a comparison's bootstrap (replicates × rows × readings × sets,
/// the six sets every page recalibration fits counted whether defined or not).
const COMPARE_BUDGET: usize = 100_000_000;

/// Fits each of `settings.more_methods` that is a probability map on `run`'s split
/// of `set` (`run` from the same `set`, seed and fraction). A ragged log's maps are
/// [`Undefined::ClassPositions`]; a multiclass map of binary input is
/// [`Undefined::NotMulticlass`]; temperature, Platt and isotonic are left as they are.
pub fn fit_more_methods(
    set: &PredictionSet,
    settings: &RecalibrationSettings,
    run: &mut Recalibration,
) {
    let bins = Bins::CrossFit {
        folds: DEFAULT_FOLDS,
    };
    for method in settings.more_methods.iter().filter_map(|m| m.prob_method()) {
        let outcome = if settings.class_positions_differ {
            Err(Undefined::ClassPositions)
        } else {
            fit_prob_map(set, &run.split, method, bins)
        };
        *run.prob_map_mut(method) = outcome;
    }
}

/// The settings of `run`'s comparison: seed 0, α = 0.05, at most
/// [`COMPARE_REPLICATES`] replicates, fewer on large evaluation splits so that the
/// work stays near [`COMPARE_BUDGET`] row visits (never below 50); one thread (the
/// numbers do not depend on it).
pub fn comparison_settings(run: &Recalibration) -> BootstrapSettings {
    let n = run.before.n().max(1);
    let multiclass = Method::MULTICLASS
        .iter()
        .filter(|&&m| crate::evaluation_after(run, m).is_ok())
        .count();
    let sets = 1 + Method::ALL.len() + multiclass;
    BootstrapSettings {
        replicates: (COMPARE_BUDGET / (n * 4 * sets)).clamp(50, COMPARE_REPLICATES),
        seed: 0,
        alpha: DEFAULT_ALPHA,
        threads: 1,
    }
}

/// The comparison of every set defined in `run` at [`comparison_settings`].
pub fn comparison_of(run: &Recalibration) -> Option<Value> {
    comparison_json(run, &comparison_settings(run))
}
