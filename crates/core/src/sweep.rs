//! Bin-count sweeps: a model's readings indexed once, then any metric at any bin
//! count in O(m) (equal-mass) or O(m log n) (equal-width). The bin-count slider and
//! the ranking-flips view (METRICS.md §4.1) stand on this.

use crate::binning::{width_bin, Bin, BinnedAccumulator, Binning, SortedReading, EDGE_TOLERANCE};
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

/// A sorted reading's equal-width bins for any bin count in O(m): a uniform grid of
/// `G` cells over `[0, 1]` holds the first sorted position of each cell, so the
/// position where bin `b` starts is found between the cells around `b / m` (a few
/// forecasts at most) instead of by a binary search over all `n`. A sweep over
/// `m = 1..2000` visits ~2M bins per reading; see [`WidthGrid::for_each_bin`].
#[derive(Clone, Debug)]
pub struct WidthGrid {
    /// `starts[g]`: the first sorted position with `u >= g / G`; `G + 1` entries.
    starts: Vec<u32>,
}

/// The grid's finest cell, 2^-16, is wider than the edge tolerance (`|u - b/m| <=
/// 1e-7` moves a forecast to bin `b`), so one cell either side of an edge's cell
/// holds every forecast whose bin the tolerance can change.
const _: () = assert!(EDGE_TOLERANCE * 65536.0 < 0.5);

impl WidthGrid {
    /// The grid of `reading`: `G` = the power of two at or above `n`, at most 2^16.
    pub fn new(reading: &SortedReading) -> Self {
        let sorted = reading.sorted_forecasts();
        let cells = sorted.len().next_power_of_two().clamp(1, 1 << 16);
        let mut starts = Vec::with_capacity(cells + 1);
        let mut p = 0;
        for g in 0..=cells {
            let edge = g as f64 / cells as f64;
            while p < sorted.len() && sorted[p] < edge {
                p += 1;
            }
            starts.push(p as u32);
        }
        WidthGrid { starts }
    }

    /// Calls `visit` for every non-empty equal-width bin of `reading` (the reading
    /// this grid was built from) with `m` bins, in bin order: the same bins as
    /// [`SortedReading::for_each_bin`] with [`Binning::Width`], bin for bin.
    pub fn for_each_bin(&self, reading: &SortedReading, m: usize, mut visit: impl FnMut(Bin)) {
        let sorted = reading.sorted_forecasts();
        let n = sorted.len();
        if m == 0 || n == 0 {
            return;
        }
        let cells = (self.starts.len() - 1) as u64;
        let m64 = m as u64;
        let mut start = 0;
        while start < n {
            let b = width_bin(sorted[start], m);
            // the first position of bin b + 1: between the cells around its edge
            // (b+1)/m, widened by one cell each side (more than the margin)
            let end = if b + 1 == m {
                n
            } else {
                let e = (b as u64 + 1) * cells;
                let lo_cell = (e / m64).saturating_sub(1) as usize;
                let hi_cell = (e.div_ceil(m64) + 1).min(cells) as usize;
                let lo = (self.starts[lo_cell] as usize).max(start + 1);
                let hi = (self.starts[hi_cell] as usize).max(lo);
                lo + sorted[lo..hi].partition_point(|&u| width_bin(u, m) <= b)
            };
            visit(reading.bin(b, start, end));
            start = end;
        }
    }
}

/// `Σ_B f(B)` over the non-empty bins of `index` (equal-width through its grid).
fn sum_bins(
    index: &SortedReading,
    grid: &WidthGrid,
    binning: Binning,
    m: usize,
    f: impl Fn(&Bin) -> f64,
) -> f64 {
    match binning {
        Binning::Mass => index.sum_over_bins(binning, m, f),
        Binning::Width => {
            let mut total = crate::sum::Sum::new();
            grid.for_each_bin(index, m, |b| total.add(f(&b)));
            total.value()
        }
    }
}

/// One model's readings, each sorted once with prefix sums.
#[derive(Clone, Debug)]
pub struct ModelIndex {
    n: usize,
    accuracy: Option<f64>,
    confidence: SortedReading,
    confidence_grid: WidthGrid,
    /// Per class reading and its grid; empty for top-label sets, or when not asked for.
    classes: Vec<SortedReading>,
    class_grids: Vec<WidthGrid>,
    /// Multiclass Brier / k (`None` for top-label sets).
    brier_over_k: Option<f64>,
    /// Mean `l_conf`.
    l_conf: Option<f64>,
}

impl ModelIndex {
    /// Indexes `set`'s confidence reading and, when `classwise` and the set has
    /// probability vectors, every class reading.
    pub fn new(set: &PredictionSet, classwise: bool) -> Self {
        let top = reading::top_labels(set);
        let accuracy = crate::truthful::accuracy(&top);
        let confidence = SortedReading::from_parts(&top.confidence, &top.correct);
        let brier_over_k = ProbView::new(set).and_then(|view| {
            let per_class =
                (0..set.k).map(|r| crate::binning::brier(&reading::class_pairs(&view, r)));
            crate::truthful::brier_multiclass(per_class).map(|b| b / set.k as f64)
        });
        let mut index = ModelIndex {
            n: set.n(),
            accuracy,
            confidence_grid: WidthGrid::new(&confidence),
            confidence,
            classes: Vec::new(),
            class_grids: Vec::new(),
            brier_over_k,
            l_conf: crate::truthful::l_conf(&top),
        };
        if classwise {
            index.add_classes(set);
        }
        index
    }

    /// Indexes every class reading of `set` (the set this index was built from),
    /// once; nothing for top-label sets.
    pub fn add_classes(&mut self, set: &PredictionSet) {
        if !self.classes.is_empty() {
            return;
        }
        if let Some(view) = ProbView::new(set) {
            self.classes = (0..set.k)
                .map(|r| SortedReading::new(&reading::class_pairs(&view, r)))
                .collect();
            self.class_grids = self.classes.iter().map(WidthGrid::new).collect();
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
            RankedMetric::Error => self.error(),
            RankedMetric::BrierOverK => self.brier_over_k,
            RankedMetric::LConf => self.l_conf,
        }
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
        let lince = |index: &SortedReading, grid: &WidthGrid| {
            sum_bins(index, grid, binning, m, |b| {
                b.sum_residual() * b.sum_residual()
            }) / (nf * nf)
        };
        let ece = |index: &SortedReading, grid: &WidthGrid| {
            sum_bins(index, grid, binning, m, |b| b.sum_residual().abs()) / nf
        };
        let conf = (&self.confidence, &self.confidence_grid);
        match metric {
            SweepMetric::ConfEce => Some(ece(conf.0, conf.1)),
            SweepMetric::ConfCe => Some(lince(conf.0, conf.1)),
            SweepMetric::RmsceConf => {
                let mut acc = BinnedAccumulator::default();
                match binning {
                    Binning::Mass => conf.0.for_each_bin(binning, m, |b| acc.add(&b)),
                    Binning::Width => conf.1.for_each_bin(conf.0, m, |b| acc.add(&b)),
                }
                acc.finish(self.n).rmsce
            }
            SweepMetric::ConfCeCorr => crate::truthful::confce_corrected(
                Some(lince(conf.0, conf.1)),
                self.n,
                self.accuracy,
            ),
            SweepMetric::LinceCw | SweepMetric::CwEce => {
                if self.classes.is_empty() {
                    return None;
                }
                let per = self.classes.iter().zip(&self.class_grids).map(|(c, g)| {
                    if metric == SweepMetric::LinceCw {
                        lince(c, g)
                    } else {
                        ece(c, g)
                    }
                });
                Some(crate::sum::sum(per) / self.classes.len() as f64)
            }
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
    // model-major: one model's prefix sums stay in cache across all bin counts
    let per_model: Vec<Vec<Option<f64>>> = models
        .iter()
        .map(|x| {
            m_values
                .iter()
                .map(|&m| x.ranked(metric, binning, m))
                .collect()
        })
        .collect();
    (0..m_values.len())
        .map(|j| per_model.iter().map(|v| v[j]).collect())
        .collect()
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reading::Pairs;

    /// The grid's equal-width bins are the reading's own, bin for bin, on forecasts
    /// on and a hair off the edges (the 1e-7 tolerance), at 0 and 1, and random.
    #[test]
    fn width_grid_bins_equal_the_readings() {
        let mut state = 7u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for n in [1usize, 2, 17, 300, 5000] {
            let mut forecast = Vec::new();
            for i in 0..n {
                let u = match i % 5 {
                    0 => next(),
                    1 => (1 + (next() * 40.0) as usize) as f64 / 40.0, // an edge of m = 40, 20, 10, …
                    2 => {
                        // within the tolerance of an edge (of m = 7, or of a grid cell)
                        let e = [3.0 / 7.0, 0.5, 0.25, 0.75, 5.0 / 8.0][(next() * 5.0) as usize];
                        e + (next() - 0.5) * 4e-7
                    }
                    3 => [0.0, 1.0, 0.29, 0.7][(next() * 4.0) as usize],
                    _ => (0.5 + next() * 1e-3).min(1.0),
                };
                forecast.push(u);
            }
            let outcome: Vec<bool> = (0..n).map(|_| next() < 0.5).collect();
            let reading = SortedReading::new(&Pairs { forecast, outcome });
            let grid = WidthGrid::new(&reading);
            for m in (1..=120).chain([7 * 40, 999, 2000, 2 * n + 1]) {
                let want = reading.bins(Binning::Width, m);
                let mut got = Vec::new();
                grid.for_each_bin(&reading, m, |b| got.push(b));
                assert_eq!(got, want, "n = {n}, m = {m}");
            }
        }
    }
}
