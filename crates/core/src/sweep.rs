//! Bin-count sweeps: a model's readings indexed once, then any metric at any bin
//! count in O(m), and a whole equal-width curve `m = 1..M` in one pass over its bin
//! edges ([`crate::width`]). The bin-count slider and
//! the ranking-flips view (METRICS.md §4.1) stand on this.

use crate::binning::{width_edge_test_applies, Bin, BinnedAccumulator, Binning, SortedReading};
use crate::data::PredictionSet;
use crate::reading::{self, ProbView};
use crate::sum::Sum;
use crate::width::{fold_all_counts, WidthEdges};
pub use crate::width::{GriddedReading, WidthGrid};

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

/// A metric models are ranked by in the ranking-flips view: a binned metric, or one
/// of its binning-free references (classification error and the proper losses
/// associated with the truthful errors, METRICS.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RankedMetric {
    /// A metric of the bin count.
    Binned(SweepMetric),
    /// Classification error `1 - accuracy`.
    Error,
    /// Multiclass Brier / k (needs probability vectors).
    BrierOverK,
    /// Mean `l_conf`.
    LConf,
}

impl From<SweepMetric> for RankedMetric {
    fn from(m: SweepMetric) -> Self {
        RankedMetric::Binned(m)
    }
}

impl RankedMetric {
    /// The names of [`RankedMetric::ALL`], comma-separated (for error messages).
    pub fn names() -> String {
        Self::ALL.map(|m| m.name()).join(", ")
    }

    /// Every ranked metric: the binned ones in the audit's order, then the references.
    pub const ALL: [RankedMetric; 9] = [
        RankedMetric::Binned(SweepMetric::ConfEce),
        RankedMetric::Binned(SweepMetric::ConfCe),
        RankedMetric::Binned(SweepMetric::ConfCeCorr),
        RankedMetric::Binned(SweepMetric::LinceCw),
        RankedMetric::Binned(SweepMetric::CwEce),
        RankedMetric::Binned(SweepMetric::RmsceConf),
        RankedMetric::Error,
        RankedMetric::BrierOverK,
        RankedMetric::LConf,
    ];

    /// The audit JSON name: [`SweepMetric::name`], or `error`, `brier_over_k`,
    /// `l_conf` (the multi-model audit's `binning_free` names).
    pub fn name(self) -> &'static str {
        match self {
            RankedMetric::Binned(m) => m.name(),
            RankedMetric::Error => "error",
            RankedMetric::BrierOverK => "brier_over_k",
            RankedMetric::LConf => "l_conf",
        }
    }

    /// Parses a name of [`RankedMetric::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether the value depends on the bin count.
    pub fn is_binned(self) -> bool {
        matches!(self, RankedMetric::Binned(_))
    }

    /// Whether the metric needs full probability vectors (not available for
    /// top-label input).
    pub fn needs_vectors(self) -> bool {
        match self {
            RankedMetric::Binned(m) => m.is_classwise(),
            RankedMetric::BrierOverK => true,
            RankedMetric::Error | RankedMetric::LConf => false,
        }
    }
}

/// The bin counts a metric is asked at: one `(binning, m)`, or every equal-width
/// count `1..=M` at once (one pass over the forecasts, see [`fold_all_counts`]).
#[derive(Clone, Copy, Debug)]
pub enum Counts<'a> {
    /// One bin count.
    One(Binning, usize),
    /// Equal-width, every count `1..=edges.max_m()`.
    AllWidth(&'a WidthEdges),
}

impl Counts<'_> {
    /// How many values an answer holds.
    pub fn len(&self) -> usize {
        match self {
            Counts::One(..) => 1,
            Counts::AllWidth(edges) => edges.max_m(),
        }
    }

    /// True when no count is asked (`AllWidth` of `M = 0`).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One accumulator per asked count, each fed the non-empty bins of `index` at that
/// count in bin order (equal-width through its grid or its edges).
fn fold_bins<A: Default + Clone>(
    index: &GriddedReading,
    counts: Counts,
    mut add: impl FnMut(&mut A, Bin),
) -> Vec<A> {
    match counts {
        Counts::One(binning, m) => {
            let mut acc = A::default();
            index.for_each_bin(binning, m, |b| add(&mut acc, b));
            vec![acc]
        }
        Counts::AllWidth(edges) => fold_all_counts(index.reading(), edges, add),
    }
}

/// One model's readings, each sorted once with prefix sums.
#[derive(Clone, Debug)]
pub struct ModelIndex {
    n: usize,
    accuracy: Option<f64>,
    confidence: GriddedReading,
    /// Per class reading; empty for top-label sets, or when not asked for.
    classes: Vec<GriddedReading>,
    /// Multiclass Brier / k (`None` for top-label sets).
    brier_over_k: Option<f64>,
    /// Mean `l_conf`.
    l_conf: Option<f64>,
}

impl ModelIndex {
    /// Indexes `set`'s confidence reading and, when `classwise` and the set has
    /// probability vectors, every class reading.
    pub fn new(set: &PredictionSet, classwise: bool) -> Self {
        // one softmax for the top labels, the Brier score and the class readings
        let view = ProbView::new(set);
        let top = match &view {
            Some(view) => reading::top_labels_of(view),
            None => reading::top_labels(set),
        };
        let accuracy = crate::truthful::accuracy(&top);
        let confidence = SortedReading::from_parts(&top.confidence, &top.correct);
        let brier_over_k = view.as_ref().and_then(|view| {
            let per_class =
                (0..set.k).map(|r| crate::binning::brier(&reading::class_pairs(view, r)));
            crate::truthful::brier_multiclass(per_class).map(|b| b / set.k as f64)
        });
        let mut index = ModelIndex {
            n: set.n(),
            accuracy,
            confidence: GriddedReading::new(confidence),
            classes: Vec::new(),
            brier_over_k,
            l_conf: crate::truthful::l_conf(&top),
        };
        if let (true, Some(view)) = (classwise, &view) {
            index.set_classes(view);
        }
        index
    }

    fn set_classes(&mut self, view: &ProbView) {
        self.classes = (0..view.k())
            .map(|r| GriddedReading::new(SortedReading::new(&reading::class_pairs(view, r))))
            .collect();
    }

    /// Indexes every class reading of `set` (the set this index was built from),
    /// once; nothing for top-label sets.
    pub fn add_classes(&mut self, set: &PredictionSet) {
        if !self.classes.is_empty() {
            return;
        }
        if let Some(view) = ProbView::new(set) {
            self.set_classes(&view);
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

    /// Multiclass Brier / k, the proper loss of LinCE^cw (`None` for top-label sets).
    pub fn brier_over_k(&self) -> Option<f64> {
        self.brier_over_k
    }

    /// Mean `l_conf`, the proper loss of ConfCE^corr (`None` when empty).
    pub fn l_conf(&self) -> Option<f64> {
        self.l_conf
    }

    /// `metric` at `(binning, m)`: a binned metric, or a binning-free reference
    /// (the same at every `(binning, m)`); `None` when undefined.
    pub fn ranked(&self, metric: RankedMetric, binning: Binning, m: usize) -> Option<f64> {
        match metric {
            RankedMetric::Binned(b) => self.metric(b, binning, m),
            _ => self.binning_free(metric),
        }
    }

    /// A binning-free reference metric (`None` for binned ones, and when undefined).
    fn binning_free(&self, metric: RankedMetric) -> Option<f64> {
        match metric {
            RankedMetric::Binned(_) => None,
            RankedMetric::Error => self.error(),
            RankedMetric::BrierOverK => self.brier_over_k,
            RankedMetric::LConf => self.l_conf,
        }
    }

    /// The confidence reading's index.
    pub fn confidence(&self) -> &GriddedReading {
        &self.confidence
    }

    /// The class readings' indices (empty when not built).
    pub fn classes(&self) -> &[GriddedReading] {
        &self.classes
    }

    /// `metric` at `(binning, m)`; `None` when undefined (empty set, or a classwise
    /// metric without class readings).
    pub fn metric(&self, metric: SweepMetric, binning: Binning, m: usize) -> Option<f64> {
        self.metric_at(metric, Counts::One(binning, m))[0]
    }

    /// `metric` at each of `counts` (`result[i]` at the `i`-th count); `None` where
    /// undefined (empty set, or a classwise metric without class readings):
    /// - ConfECE `= Σ_B |Σ_{i∈B} (u_i - o_i)| / n`, ConfCE `= Σ_B (Σ_{i∈B} (u_i - o_i))² / n²`
    ///   over the confidence reading's bins; ConfCE^corr adds `(1 - acc) / n`;
    ///   RMSCE from the bins' [`BinnedAccumulator`];
    /// - LinCE^cw and cwECE: the mean over class readings of their ConfCE / ECE.
    pub fn metric_at(&self, metric: SweepMetric, counts: Counts) -> Vec<Option<f64>> {
        let len = counts.len();
        if self.n == 0 {
            return vec![None; len];
        }
        let nf = self.n as f64;
        // Σ_B term(B) / scale at every count
        let sums = |index: &GriddedReading, squared: bool| -> Vec<f64> {
            let scale = if squared { nf * nf } else { nf };
            fold_bins(index, counts, |total: &mut Sum, b| {
                let r = b.sum_residual();
                total.add(if squared { r * r } else { r.abs() })
            })
            .iter()
            .map(|total| total.value() / scale)
            .collect()
        };
        let conf = &self.confidence;
        match metric {
            SweepMetric::ConfEce => sums(conf, false).into_iter().map(Some).collect(),
            SweepMetric::ConfCe => sums(conf, true).into_iter().map(Some).collect(),
            SweepMetric::RmsceConf => {
                fold_bins(conf, counts, |acc: &mut BinnedAccumulator, b| acc.add(&b))
                    .iter()
                    .map(|acc| acc.finish(self.n).rmsce)
                    .collect()
            }
            SweepMetric::ConfCeCorr => sums(conf, true)
                .into_iter()
                .map(|l| crate::truthful::confce_corrected(Some(l), self.n, self.accuracy))
                .collect(),
            SweepMetric::LinceCw | SweepMetric::CwEce => {
                if self.classes.is_empty() {
                    return vec![None; len];
                }
                let squared = metric == SweepMetric::LinceCw;
                let per_class: Vec<Vec<f64>> =
                    self.classes.iter().map(|c| sums(c, squared)).collect();
                let k = self.classes.len() as f64;
                (0..len)
                    .map(|i| Some(crate::sum::sum(per_class.iter().map(|v| v[i])) / k))
                    .collect()
            }
        }
    }

    /// `metric` at every count of `counts`: a binned metric, or a binning-free
    /// reference repeated.
    fn ranked_at(&self, metric: RankedMetric, counts: Counts) -> Vec<Option<f64>> {
        match metric {
            RankedMetric::Binned(b) => self.metric_at(b, counts),
            _ => vec![self.binning_free(metric); counts.len()],
        }
    }
}

/// `metric` for every model at every bin count: `result[j][i]` is model `i` at
/// `m_values[j]` (the layout [`crate::rank::ranking_sweep`] takes).
pub fn sweep(
    models: &[ModelIndex],
    metric: impl Into<RankedMetric>,
    binning: Binning,
    m_values: &[usize],
) -> Vec<Vec<Option<f64>>> {
    let metric = metric.into();
    // every equal-width count 1..=M: one pass per reading over the edges
    let dense_width = binning == Binning::Width
        && m_values.len() >= DENSE_WIDTH_MIN
        && m_values.iter().enumerate().all(|(i, &m)| m == i + 1)
        && width_edge_test_applies(m_values.len());
    let edges = dense_width.then(|| WidthEdges::new(m_values.len()));
    // model-major: one model's prefix sums stay in cache across all bin counts
    let per_model: Vec<Vec<Option<f64>>> = models
        .iter()
        .map(|x| match &edges {
            Some(edges) => x.ranked_at(metric, Counts::AllWidth(edges)),
            None => m_values
                .iter()
                .map(|&m| x.ranked(metric, binning, m))
                .collect(),
        })
        .collect();
    (0..m_values.len())
        .map(|j| per_model.iter().map(|v| v[j]).collect())
        .collect()
}

/// From this many equal-width counts `1..=M` on, [`sweep`] folds them all in one
/// pass ([`fold_all_counts`]) instead of count by count.
const DENSE_WIDTH_MIN: usize = 16;

/// The bin counts of a ranking comparison: each clipped to `1..=n` (the sliders'
/// range ends at `min(n, 2000)`; the app and the CLI compare the same counts),
/// sorted and unique.
///
/// ```
/// use calibscope_core::sweep::clip_bins;
/// assert_eq!(clip_bins(&[2000, 5, 20, 5], 450), vec![5, 20, 450]);
/// ```
pub fn clip_bins(bins: &[usize], n: usize) -> Vec<usize> {
    let mut out: Vec<usize> = bins.iter().map(|&m| m.clamp(1, n.max(1))).collect();
    out.sort_unstable();
    out.dedup();
    out
}
