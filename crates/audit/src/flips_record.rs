//! The ranking-flips section of an audit record (`tables.flips`, data sets of two
//! or more models): the numbers of the app's "Ranking flips" view and of
//! `calibscope flips`, with the settings that produced them, so that a record holds
//! every number the view shows and [`crate::reverify`] recomputes them.
//!
//! ```json
//! {"settings": {"metric": "confece", "binning": "mass", "m": 5, "m_ref": 450, "bins": [5, 20, 450],
//!               "temperature_first": false},
//!  "models": ["a", "b", "c"], "error": [0.1, 0.2, 0.15],
//!  "ranking": {"values": {"5": […], "450": […]}, "rank_change": […],
//!              "ranks": {"5": […], "450": […]}, "spearman": [[…]], "flips": [[…]],
//!              "flip_pairs": {"450|5": [["a", "b"]]}, "spearman_vs_error": {"5": …, "450": …}},
//!  "matrices": {"confece": {ranks, spearman, flips, flip_pairs, spearman_vs_error}, …,
//!               "lince_cw": {"unavailable": "…"}}}
//! ```
//!
//! `ranking` compares the reference bin count `m_ref` (first) with `m` (second) for
//! the chosen metric (flip pairs keyed `m_ref|m`; rank change: rank at `m_ref` minus
//! rank at `m`, positive when the model moved up); `matrices` has every ranked metric over `bins`, in the shape of
//! the multi-model audit's `ranking.metrics.<metric>.<binning>` ([`sweep_json`]).
//! All numbers come from `calibscope_core::sweep` and `calibscope_core::rank`.
//!
//! With `temperature_first` (seed 000's protocol) every model is first
//! temperature-scaled on the stratified calibration split of the Recalibrate view's
//! defaults (`calibscope_core::recal::first`) and every number is read on the
//! evaluation split; the section then also holds
//! `"temperature": {"seed", "fraction", "n_calibration", "n_evaluation", "tau": […],
//! "at_bracket_end": […], "exact_zero_one": […]}` ([`temperature_json`]), and `error`
//! is the evaluation split's.

use crate::multi::sweep_json;
use calibscope_core::binning::Binning;
use calibscope_core::rank::ranking_sweep;
use calibscope_core::recal::first::{
    temperature_first, TemperatureFirst, DEFAULT_FRACTION, DEFAULT_SEED,
};
use calibscope_core::sweep::{clip_bins, sweep, ModelIndex, RankedMetric};
use calibscope_core::{Kind, PredictionSet};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The largest bin count of the flips view's slider (the app's `M_SLIDER_MAX`).
pub const FLIPS_M_MAX: usize = 2000;

/// What a flips section was computed with (the view's controls).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FlipsSettings {
    /// The ranked metric (`RankedMetric::name`).
    pub metric: String,
    /// `width` or `mass`.
    pub binning: String,
    /// The slider's bin count.
    pub m: usize,
    /// The pinned reference bin count.
    pub m_ref: usize,
    /// The bin counts of the Spearman matrices.
    pub bins: Vec<usize>,
    /// Temperature-scale each model first and read every number on the evaluation
    /// split (seed 000's protocol; false in records written before it existed).
    pub temperature_first: bool,
}

impl Default for FlipsSettings {
    /// The view's controls at start.
    fn default() -> Self {
        FlipsSettings {
            metric: "confece".into(),
            binning: "mass".into(),
            m: 5,
            m_ref: FLIPS_M_MAX,
            bins: vec![5, 20, FLIPS_M_MAX],
            temperature_first: false,
        }
    }
}

impl FlipsSettings {
    /// The settings as the view applies them to `n` samples: `m` and `m_ref` within
    /// `1..=min(n, 2000)`, the matrices' bin counts clipped to `1..=n`, sorted, unique.
    pub fn effective(&self, n: usize) -> FlipsSettings {
        let max = n.clamp(1, FLIPS_M_MAX);
        FlipsSettings {
            m: self.m.clamp(1, max),
            m_ref: self.m_ref.clamp(1, max),
            bins: clip_bins(&self.bins, n),
            ..self.clone()
        }
    }
}

/// What the models' rows give the classwise metrics (LinCE^cw, cwECE), which read
/// each class position across rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClassReadings {
    /// Full probability vectors over the same classes: every metric ranks.
    Vectors,
    /// Top-label input: the confidence reading only.
    TopLabel,
    /// Rows whose class positions are different answers (a ragged log), and why.
    PositionsDiffer(String),
}

impl ClassReadings {
    /// The readings of models whose first set is of `kind`; `positions_differ`: why
    /// their class positions name no class across rows, if they do not (the data
    /// set's `Ragged::why_positions_differ`).
    pub fn of(kind: Option<Kind>, positions_differ: Option<&str>) -> ClassReadings {
        match (positions_differ, kind) {
            (Some(why), _) => ClassReadings::PositionsDiffer(why.to_string()),
            (None, Some(k)) if k != Kind::TopLabel => ClassReadings::Vectors,
            (None, _) => ClassReadings::TopLabel,
        }
    }

    /// Whether the classwise metrics rank (and class readings are worth indexing).
    pub fn vectors(&self) -> bool {
        *self == ClassReadings::Vectors
    }
}

/// `metric` of every model at each of `bins` (`[j][i]`: model `i` at `bins[j]`), or
/// why it cannot be computed (a classwise metric without class readings; undefined
/// for some model).
pub fn ranked_values(
    models: &[ModelIndex],
    readings: &ClassReadings,
    metric: RankedMetric,
    binning: Binning,
    bins: &[usize],
) -> Result<Vec<Vec<f64>>, String> {
    if let Some(why) = unranked(metric, readings) {
        return Err(why);
    }
    complete_values(metric, sweep(models, metric, binning, bins))
}

/// Why `metric` cannot be ranked on models with these class `readings`, if it
/// cannot: the classwise metrics need full probability vectors whose positions are
/// the same classes in every row.
pub fn unranked(metric: RankedMetric, readings: &ClassReadings) -> Option<String> {
    if !metric.needs_vectors() {
        return None;
    }
    match readings {
        ClassReadings::Vectors => None,
        ClassReadings::TopLabel => Some(format!(
            "{} needs full probability vectors; top-label input has only the confidence reading",
            metric.name()
        )),
        ClassReadings::PositionsDiffer(why) => Some(format!(
            "{} needs every row to have the same classes, and {why}",
            metric.name()
        )),
    }
}

/// The values of a sweep (`[j][i]`: model `i` at the `j`-th bin count) with every
/// model defined at every bin count, or why not.
pub fn complete_values(
    metric: RankedMetric,
    by_m: Vec<Vec<Option<f64>>>,
) -> Result<Vec<Vec<f64>>, String> {
    by_m.into_iter()
        .map(|row| row.into_iter().collect())
        .collect::<Option<Vec<Vec<f64>>>>()
        .ok_or_else(|| format!("{} is undefined for some model", metric.name()))
}

/// Rank at the reference bin count minus rank at the other, per model (positive:
/// the model moved up when the bin count changed from the reference). Both are
/// average ranks (1 = smallest value), so every difference is finite.
pub fn rank_change(ranks_ref: &[f64], ranks: &[f64]) -> Vec<f64> {
    ranks_ref.iter().zip(ranks).map(|(a, b)| a - b).collect()
}

/// How the models were temperature-scaled first: the split and each model's fit
/// (a flips section's `temperature`, `calibscope flips --temperature-first`'s, and
/// the app's flips answers').
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlipsTemperature {
    pub seed: u64,
    pub fraction: f64,
    pub n_calibration: usize,
    /// The rows every number is read on.
    pub n_evaluation: usize,
    /// Per model, τ.
    pub tau: Vec<f64>,
    /// Per model, τ at an end of the bracket `[0.05, 20]`.
    pub at_bracket_end: Vec<bool>,
    /// Per model, probability input holding exact 0s or 1s (ill-posed fit).
    pub exact_zero_one: Vec<bool>,
}

impl FlipsTemperature {
    /// The split and fits of models temperature-scaled first.
    pub fn of(t: &TemperatureFirst) -> FlipsTemperature {
        FlipsTemperature {
            seed: t.seed,
            fraction: t.fraction,
            n_calibration: t.split.calibration.len(),
            n_evaluation: t.n_evaluation(),
            tau: t.taus(),
            at_bracket_end: t.fits.iter().map(|f| f.at_bracket_end).collect(),
            exact_zero_one: t.exact_zero_one.clone(),
        }
    }
}

fn unavailable(why: String) -> Value {
    json!({ "unavailable": why })
}

/// The models temperature-scaled first on the Recalibrate view's default split
/// (seed [`DEFAULT_SEED`], fraction [`DEFAULT_FRACTION`]), when `on`; `Ok(None)`
/// when not. `Err`: why the models cannot be scaled (top-label input, different
/// labels, too few samples).
pub fn scaled_first(
    models: &[(String, PredictionSet)],
    on: bool,
) -> Result<Option<TemperatureFirst>, String> {
    if !on {
        return Ok(None);
    }
    let sets: Vec<&PredictionSet> = models.iter().map(|(_, s)| s).collect();
    temperature_first(&sets, DEFAULT_SEED, DEFAULT_FRACTION)
        .map(Some)
        .map_err(|why| format!("cannot temperature-scale the models first: {why}"))
}

/// The sets to rank: the scaled evaluation rows of `scaled`, else the models as given.
pub fn sets_to_rank<'a>(
    models: &'a [(String, PredictionSet)],
    scaled: Option<&'a TemperatureFirst>,
) -> Vec<&'a PredictionSet> {
    match scaled {
        Some(t) => t.scaled.iter().collect(),
        None => models.iter().map(|(_, s)| s).collect(),
    }
}

/// The `temperature` object of a section (and of `calibscope flips
/// --temperature-first --json`): the split's seed, fraction and sizes, and per model
/// τ, whether it is at an end of the bracket `[0.05, 20]`, and whether its
/// probabilities hold an exact 0 or 1 (the fit is ill-posed there).
pub fn temperature_json(t: &TemperatureFirst) -> Value {
    serde_json::to_value(FlipsTemperature::of(t)).expect("JSON of numbers and flags")
}

/// The flips section of `models` (two or more, on the same samples, whose class
/// positions are the same classes in every row) under `settings`, or why the
/// settings are not valid (unknown metric or binning, no bin counts).
pub fn flips_section(
    models: &[(String, PredictionSet)],
    settings: &FlipsSettings,
) -> Result<Value, String> {
    flips_section_in(models, settings, None)
}

/// [`flips_section`]; `positions_differ`: why the rows' class positions name no
/// class across rows (a ragged log's), if they do not: the classwise metrics are
/// then unavailable, saying so.
pub fn flips_section_in(
    models: &[(String, PredictionSet)],
    settings: &FlipsSettings,
    positions_differ: Option<&str>,
) -> Result<Value, String> {
    let metric = RankedMetric::from_name(&settings.metric).ok_or_else(|| {
        format!(
            "unknown ranked metric {:?}; choose one of {}",
            settings.metric,
            RankedMetric::names()
        )
    })?;
    let binning = Binning::from_name(&settings.binning)
        .ok_or_else(|| format!("unknown binning {:?}", settings.binning))?;
    let scaled = scaled_first(models, settings.temperature_first)?;
    let sets = sets_to_rank(models, scaled.as_ref());
    let n = sets.first().map_or(0, |s| s.n());
    let s = settings.effective(n);
    if s.bins.is_empty() {
        return Err("no bin counts to compare".into());
    }
    let readings = ClassReadings::of(sets.first().map(|s| s.kind()), positions_differ);
    let index: Vec<ModelIndex> = sets
        .iter()
        .map(|set| ModelIndex::new(set, readings.vectors()))
        .collect();
    let names: Vec<&str> = models.iter().map(|(n, _)| n.as_str()).collect();
    let error: Vec<f64> = index
        .iter()
        .map(|m| m.error().unwrap_or(f64::NAN))
        .collect();
    let pair = [s.m_ref, s.m];
    let ranking = match ranked_values(&index, &readings, metric, binning, &pair) {
        Err(why) => unavailable(why),
        Ok(values) => {
            let mut out = sweep_json(&values, &error, &pair, &names);
            let by_m: Map<String, Value> = pair
                .iter()
                .zip(&values)
                .map(|(m, v)| (m.to_string(), json!(v)))
                .collect();
            let ranks = ranking_sweep(&values, &error).ranks;
            out["values"] = Value::Object(by_m);
            out["rank_change"] = json!(rank_change(&ranks[0], &ranks[1]));
            out
        }
    };
    let matrices: Map<String, Value> = RankedMetric::ALL
        .into_iter()
        .map(|metric| {
            let v = match ranked_values(&index, &readings, metric, binning, &s.bins) {
                Ok(values) => sweep_json(&values, &error, &s.bins, &names),
                Err(why) => unavailable(why),
            };
            (metric.name().to_string(), v)
        })
        .collect();
    let mut section = json!({
        "settings": s,
        "models": names,
        "error": error,
        "ranking": ranking,
        "matrices": matrices,
    });
    if let Some(t) = &scaled {
        section["temperature"] = temperature_json(t);
    }
    Ok(section)
}

/// The settings a recorded flips section was computed with.
pub fn flips_settings_of(section: &Value) -> Result<FlipsSettings, String> {
    serde_json::from_value(section["settings"].clone())
        .map_err(|e| format!("tables.flips.settings: {e}"))
}
