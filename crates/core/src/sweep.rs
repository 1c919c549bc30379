//! Bin-count sweeps: a model's readings indexed once, then any metric at any bin
//! count in O(m) (equal-mass) or O(m log n) (equal-width). The bin-count slider and
//! the ranking-flips view (METRICS.md §4.1) stand on this.

use crate::binning::{Binning, SortedReading};
use crate::data::PredictionSet;
use crate::reading::{self, ProbView};

/// A binned metric that can be swept over the bin count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SweepMetric {
    /// ConfECE: the ECE of the confidence reading (ℓ1, the usual ECE).
    ConfEce,
    /// ConfCE: the squared binned error of the confidence reading (= its LinCE).
    ConfCe,
    /// ConfCE^corr = ConfCE + (1/n)(1 - acc), truthful.
    ConfCeCorr,
    /// RMSCE of the confidence reading.
    RmsceConf,
    /// LinCE^cw: the mean over classes of each class reading's LinCE, truthful.
    LinceCw,
    /// cwECE: the mean over classes of each class reading's ECE.
    CwEce,
}

impl SweepMetric {
    /// All sweepable metrics, in the audit's order.
    pub const ALL: [SweepMetric; 6] = [
        SweepMetric::ConfEce,
        SweepMetric::ConfCe,
        SweepMetric::ConfCeCorr,
        SweepMetric::LinceCw,
        SweepMetric::CwEce,
        SweepMetric::RmsceConf,
    ];

    /// The audit JSON name (`confece`, `confce`, `confce_corr`, `lince_cw`, `cwece`,
    /// `rmsce_conf`).
    pub fn name(self) -> &'static str {
        match self {
            SweepMetric::ConfEce => "confece",
            SweepMetric::ConfCe => "confce",
            SweepMetric::ConfCeCorr => "confce_corr",
            SweepMetric::RmsceConf => "rmsce_conf",
            SweepMetric::LinceCw => "lince_cw",
            SweepMetric::CwEce => "cwece",
        }
    }

    /// Parses a name of [`SweepMetric::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether the metric needs full probability vectors (not available for
    /// top-label input).
    pub fn is_classwise(self) -> bool {
        matches!(self, SweepMetric::LinceCw | SweepMetric::CwEce)
    }
}

/// One model's readings, each sorted once with prefix sums.
#[derive(Clone, Debug)]
pub struct ModelIndex {
    n: usize,
    accuracy: Option<f64>,
    confidence: SortedReading,
    /// Per class reading; empty for top-label sets, or when not asked for.
    classes: Vec<SortedReading>,
}

impl ModelIndex {
    /// Indexes `set`'s confidence reading and, when `classwise` and the set has
    /// probability vectors, every class reading.
    pub fn new(set: &PredictionSet, classwise: bool) -> Self {
        let top = reading::top_labels(set);
        let accuracy = crate::truthful::accuracy(&top);
        let confidence = SortedReading::from_parts(&top.confidence, &top.correct);
        let classes = match ProbView::new(set) {
            Some(view) if classwise => (0..set.k)
                .map(|r| {
                    let pairs = reading::class_pairs(&view, r);
                    SortedReading::new(&pairs)
                })
                .collect(),
            _ => Vec::new(),
        };
        ModelIndex {
            n: set.n(),
            accuracy,
            confidence,
            classes,
        }
    }

    /// Number of samples.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Classification error `1 - accuracy`.
    pub fn error(&self) -> Option<f64> {
        self.accuracy.map(|a| 1.0 - a)
    }

    /// The confidence reading's index.
    pub fn confidence(&self) -> &SortedReading {
        &self.confidence
    }

    /// The class readings' indices (empty when not built).
    pub fn classes(&self) -> &[SortedReading] {
        &self.classes
    }

    /// `metric` at `(binning, m)`; `None` when undefined (empty set, or a classwise
    /// metric without class readings).
    pub fn metric(&self, metric: SweepMetric, binning: Binning, m: usize) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let nf = self.n as f64;
        let lince = |index: &SortedReading| {
            index.sum_over_bins(binning, m, |b| b.sum_residual() * b.sum_residual()) / (nf * nf)
        };
        let ece = |index: &SortedReading| {
            index.sum_over_bins(binning, m, |b| b.sum_residual().abs()) / nf
        };
        match metric {
            SweepMetric::ConfEce => Some(ece(&self.confidence)),
            SweepMetric::ConfCe => Some(lince(&self.confidence)),
            SweepMetric::RmsceConf => self.confidence.metrics(binning, m).rmsce,
            SweepMetric::ConfCeCorr => crate::truthful::confce_corrected(
                Some(lince(&self.confidence)),
                self.n,
                self.accuracy,
            ),
            SweepMetric::LinceCw | SweepMetric::CwEce => {
                if self.classes.is_empty() {
                    return None;
                }
                let per: Option<Vec<f64>> = self
                    .classes
                    .iter()
                    .map(|c| {
                        Some(if metric == SweepMetric::LinceCw {
                            lince(c)
                        } else {
                            ece(c)
                        })
                    })
                    .collect();
                Some(crate::sum::sum(per?) / self.classes.len() as f64)
            }
        }
    }
}

/// `metric` for every model at every bin count: `result[j][i]` is model `i` at
/// `m_values[j]` (the layout [`crate::rank::ranking_sweep`] takes).
pub fn sweep(
    models: &[ModelIndex],
    metric: SweepMetric,
    binning: Binning,
    m_values: &[usize],
) -> Vec<Vec<Option<f64>>> {
    // model-major: one model's prefix sums stay in cache across all bin counts
    let per_model: Vec<Vec<Option<f64>>> = models
        .iter()
        .map(|x| {
            m_values
                .iter()
                .map(|&m| x.metric(metric, binning, m))
                .collect()
        })
        .collect();
    (0..m_values.len())
        .map(|j| per_model.iter().map(|v| v[j]).collect())
        .collect()
}
