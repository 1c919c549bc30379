//! The ranking-flips view's questions and answers (METRICS.md §4.1): curves of a
//! metric over the bin count, the ranking at a bin count against a pinned
//! reference, and the Spearman and flip matrices over a set of bin counts (the
//! worker's `impl Session` in calibscope-engine answers them).

pub use calibscope_audit::FlipsTemperature;
use calibscope_core::binning::Binning;
use serde::{Deserialize, Serialize};

/// A question of the ranking-flips view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlipsRequest {
    /// `metric` at every `m = 1..=min(n, 2000)` for every model.
    Curve { metric: String, binning: Binning },
    /// The ranking at `m` and at the pinned reference `m_ref`.
    Rank {
        metric: String,
        binning: Binning,
        m: usize,
        m_ref: usize,
    },
    /// Spearman and flip matrices of every ranked metric over `bins`.
    Matrices { binning: Binning, bins: Vec<usize> },
    /// The same question asked of the models temperature-scaled first, ranked on the
    /// evaluation split.
    TemperatureFirst(Box<FlipsRequest>),
}

impl FlipsRequest {
    /// Which kind of question (answers of each kind keep their latest generation).
    pub fn slot(&self) -> usize {
        match self {
            FlipsRequest::Curve { .. } => 0,
            FlipsRequest::Rank { .. } => 1,
            FlipsRequest::Matrices { .. } => 2,
            FlipsRequest::TemperatureFirst(inner) => inner.slot(),
        }
    }

    /// `self` asked of the models temperature-scaled first when `on`.
    pub fn scaled_first(self, on: bool) -> FlipsRequest {
        match self {
            FlipsRequest::TemperatureFirst(_) => self,
            _ if on => FlipsRequest::TemperatureFirst(Box::new(self)),
            _ => self,
        }
    }
}

/// The curve of one metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlipsCurve {
    pub metric: String,
    pub binning: Binning,
    /// The curve runs over `m = 1..=m_max`.
    pub m_max: usize,
    /// Per model, the value at `m = 1..=m_max` (`null` where undefined); empty when
    /// the metric is unavailable.
    pub values: Vec<Vec<Option<f64>>>,
    /// Spearman of the metric against the classification error at each `m`.
    pub spearman_vs_error: Vec<Option<f64>>,
    /// Why the metric cannot be computed for this input.
    pub unavailable: Option<String>,
    /// The models were temperature-scaled first, so.
    pub temperature: Option<FlipsTemperature>,
}

/// The ranking at the slider's bin count against the pinned reference.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlipsRanking {
    pub metric: String,
    pub binning: Binning,
    pub m: usize,
    pub m_ref: usize,
    pub values: Vec<Option<f64>>,
    pub values_ref: Vec<Option<f64>>,
    /// Average ranks, 1 = smallest value.
    pub ranks: Vec<f64>,
    pub ranks_ref: Vec<f64>,
    /// Rank at `m_ref` minus rank at `m` (positive: the model moved up).
    pub rank_change: Vec<f64>,
    /// Model pairs `(i, j)`, `i < j`, ordered oppositely at `m` and `m_ref`.
    pub flip_pairs: Vec<(usize, usize)>,
    /// Spearman between the rankings at `m_ref` and `m`.
    pub spearman: Option<f64>,
    /// Spearman against the classification error at `m` and at `m_ref`.
    pub spearman_vs_error: Option<f64>,
    pub spearman_vs_error_ref: Option<f64>,
    pub unavailable: Option<String>,
    /// The models were temperature-scaled first, so.
    pub temperature: Option<FlipsTemperature>,
}

/// The flipped model pairs between bin counts `bins[a]` and `bins[b]`, `a < b`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlipPairs {
    pub a: usize,
    pub b: usize,
    pub pairs: Vec<(usize, usize)>,
}

/// One metric's comparison of rankings across bin counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricMatrix {
    pub metric: String,
    pub spearman: Vec<Vec<Option<f64>>>,
    pub flips: Vec<Vec<usize>>,
    pub flip_pairs: Vec<FlipPairs>,
    pub spearman_vs_error: Vec<Option<f64>>,
    pub unavailable: Option<String>,
}

/// Every ranked metric's matrices over the same bin counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlipsMatrices {
    pub binning: Binning,
    /// The bin counts compared: the request's, clipped to `1..=n`, sorted, unique.
    pub bins: Vec<usize>,
    pub metrics: Vec<MetricMatrix>,
    /// The models were temperature-scaled first, so.
    pub temperature: Option<FlipsTemperature>,
    /// Why the models could not be temperature-scaled first (then `metrics` is empty).
    pub unavailable: Option<String>,
}

/// An answer of the ranking-flips view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlipsAnswer {
    Curve(FlipsCurve),
    Rank(FlipsRanking),
    Matrices(FlipsMatrices),
}

impl FlipsAnswer {
    /// The slot of the question answered (see [`FlipsRequest::slot`]).
    pub fn slot(&self) -> usize {
        match self {
            FlipsAnswer::Curve(_) => 0,
            FlipsAnswer::Rank(_) => 1,
            FlipsAnswer::Matrices(_) => 2,
        }
    }
}

/// The flips against noise of the ranking-flips view: for each ranked metric, the
/// share of paired bootstrap replicates in which each pair of models keeps its order
/// at each bin count, and whether each flip between two bin counts is within noise
/// (`calibscope_audit::flips_noise`, as `calibscope flips --json`'s `noise`). The
/// bootstrap has the CLI's defaults (1000 replicates, seed 0, alpha 0.05); answered
/// by progress messages (replicates done) and one [`FlipsNoise`], or `Cancelled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlipsNoiseRequest {
    /// Ranked metrics (`RankedMetric::name`); the binning-free ones get
    /// `{"unavailable": …}`.
    pub metrics: Vec<String>,
    pub binning: Binning,
    /// Bin counts (clipped to `1..=n`, sorted, unique, as the matrices').
    pub bins: Vec<usize>,
    /// Of the models temperature-scaled first, ranked on the evaluation split.
    #[serde(default)]
    pub temperature_first: bool,
}

/// The answer to a [`FlipsNoiseRequest`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlipsNoise {
    pub binning: Binning,
    /// The bin counts used.
    pub bins: Vec<usize>,
    /// Of the models temperature-scaled first (as asked).
    #[serde(default)]
    pub temperature_first: bool,
    /// Per metric asked, its name and its noise section (the CLI's `noise` object:
    /// `stable_share`, `pair_order`, `flips.<a>|<b>[k]` with `pair`, `shares`,
    /// `within_noise`), or `{"unavailable": why}`.
    pub metrics: Vec<(String, serde_json::Value)>,
}
