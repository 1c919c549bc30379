//! "Temperature-scale each model first": the protocol of seed 000's ranking
//! experiment (METRICS.md §4.1 with §6). Every model of a set evaluated on the same
//! samples is temperature-scaled on one stratified calibration split (METRICS.md §6:
//! SplitMix64 `seed`, calibration `fraction`; the Recalibrate view's defaults are
//! [`DEFAULT_SEED`] and [`DEFAULT_FRACTION`]) and every metric is then read on the
//! evaluation split, the same rows for every model.
//!
//! The split and each fit are those of [`super::apply::recalibrate_temperature`]
//! (the same stages, [`temperature_start`] and [`temperature_fit`]), so each τ equals
//! the Recalibrate view's τ for that model, split and seed, bit for bit. The ranking
//! flips view, `calibscope flips --temperature-first` and records' flips sections all
//! call [`temperature_first`].

use super::apply::{temperature_fit, temperature_start};
use super::TemperatureFit;
use crate::data::{Kind, PredictionSet};
use crate::split::Split;

/// The split seed of the Recalibrate view at start.
pub const DEFAULT_SEED: u64 = 0;

/// The calibration fraction of the Recalibrate view at start.
pub const DEFAULT_FRACTION: f64 = 0.5;

/// The models scaled on one calibration split, ready to be ranked on its evaluation
/// split.
#[derive(Clone, Debug, PartialEq)]
pub struct TemperatureFirst {
    /// The split seed.
    pub seed: u64,
    /// The calibration fraction.
    pub fraction: f64,
    /// The split (the same for every model: they share their labels).
    pub split: Split,
    /// Per model, its fit on the calibration split (τ, the NLL at 1 and at τ,
    /// whether τ is at an end of the bracket).
    pub fits: Vec<TemperatureFit>,
    /// Per model, probability input holding an exact 0 or 1 (ln 1e-15 becomes a
    /// fake logit: the fit is ill-posed there, see METRICS.md §6).
    pub exact_zero_one: Vec<bool>,
    /// Per model, its evaluation rows scaled by its τ (logits `z/τ`, binary `s/τ`).
    pub scaled: Vec<PredictionSet>,
}

impl TemperatureFirst {
    /// The fitted τ of each model.
    pub fn taus(&self) -> Vec<f64> {
        self.fits.iter().map(|f| f.tau).collect()
    }

    /// The number of evaluation rows every metric is read on.
    pub fn n_evaluation(&self) -> usize {
        self.split.evaluation.len()
    }
}

/// Splits the shared samples of `models` (stratified, SplitMix64 `seed`, calibration
/// `fraction`), fits each model's τ on the calibration rows and scales its
/// evaluation rows.
///
/// Errors, located and worded for a person: no models; top-label input (no scores
/// to scale); models whose labels differ (they must be evaluated on the same
/// samples); a `fraction` outside `(0, 1)`; an empty calibration or evaluation split
/// (too few samples per class, e.g. n = 1).
pub fn temperature_first(
    models: &[&PredictionSet],
    seed: u64,
    fraction: f64,
) -> Result<TemperatureFirst, String> {
    let first = models
        .first()
        .ok_or("temperature scaling first needs at least one model")?;
    if !(fraction > 0.0 && fraction < 1.0) {
        return Err(format!(
            "the calibration fraction must lie strictly between 0 and 1 (got {fraction})"
        ));
    }
    if let Some(i) = models.iter().position(|s| s.kind() == Kind::TopLabel) {
        return Err(format!(
            "model {} is top-label input (predicted class and confidence): it has no scores to temperature-scale",
            i + 1
        ));
    }
    if let Some(i) = models
        .iter()
        .position(|s| s.labels != first.labels || s.k != first.k)
    {
        return Err(format!(
            "model {} has other labels (or classes) than model 1: temperature scaling first needs every model on the same samples",
            i + 1
        ));
    }
    let mut out = TemperatureFirst {
        seed,
        fraction,
        split: Split::default(),
        fits: Vec::with_capacity(models.len()),
        exact_zero_one: Vec::with_capacity(models.len()),
        scaled: Vec::with_capacity(models.len()),
    };
    for (i, set) in models.iter().enumerate() {
        let start = temperature_start(set, seed, fraction);
        if start.split.evaluation.is_empty() {
            return Err(format!(
                "the evaluation split is empty ({} samples): nothing to rank the models on",
                set.n()
            ));
        }
        out.exact_zero_one.push(start.exact_zero_one_probabilities);
        let (fit, scaled) = temperature_fit(set, &start, None)
            .into_result()
            .map_err(|why| format!("model {}: temperature scaling is undefined: {why}", i + 1))?;
        out.fits.push(fit);
        out.scaled.push(scaled);
        // the labels are shared, so is the split
        out.split = start.split;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Scores, Source, Values};

    fn set(labels: Vec<u32>, probs: Vec<f64>, k: usize) -> PredictionSet {
        PredictionSet {
            labels,
            scores: Scores::Matrix {
                values: Values::F64(probs),
                k,
                source: Source::Probs,
            },
            k,
        }
    }

    #[test]
    fn errors_are_worded() {
        assert!(temperature_first(&[], 0, 0.5).is_err());
        let a = set(
            vec![0, 1, 0, 1],
            vec![0.8, 0.2, 0.3, 0.7, 0.6, 0.4, 0.4, 0.6],
            2,
        );
        let b = set(
            vec![1, 1, 0, 1],
            vec![0.8, 0.2, 0.3, 0.7, 0.6, 0.4, 0.4, 0.6],
            2,
        );
        let e = temperature_first(&[&a, &b], 0, 0.5).unwrap_err();
        assert!(e.contains("model 2") && e.contains("same samples"), "{e}");
        let e = temperature_first(&[&a], 0, 1.0).unwrap_err();
        assert!(e.contains("fraction"), "{e}");
        let one = set(vec![0], vec![0.8, 0.2], 2);
        assert!(temperature_first(&[&one], 0, 0.5).is_err());
        let ok = temperature_first(&[&a, &a], 0, 0.5).unwrap();
        assert_eq!(ok.split.calibration.len() + ok.n_evaluation(), 4);
        assert_eq!(ok.taus()[0], ok.taus()[1]);
        assert_eq!(ok.scaled[0].n(), ok.n_evaluation());
    }
}
