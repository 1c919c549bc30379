//! Binnings and the sorted prefix-sum index that makes re-binning cheap (METRICS.md §2).
//!
//! A [`SortedReading`] sorts one reading's forecasts once (ties by original index, a
//! stable order) and keeps compensated prefix sums of the forecasts and prefix counts
//! of the outcomes in that order. Every bin of either binning is a contiguous run of
//! sorted positions, so a new bin count costs O(m) (equal-mass) or O(m log n)
//! (equal-width) and never touches the n samples again. Memory: 24 bytes per sample.

use crate::reading::Pairs;
use crate::sum::Sum;

mod sparse;

pub use sparse::{width_threshold, BinPlan, SparseBuilder, SparseReading};

/// Edge tolerance of equal-width binning: a forecast within `1e-7` of an edge `b/m`
/// (`|u m - round(u m)| <= 1e-7 m`) counts as on the edge.
pub const EDGE_TOLERANCE: f64 = 1e-7;

/// The two binnings of the contract.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Binning {
    /// `m` equal-width bins on `[0, 1]` with the edge tolerance (the default: the
    /// audit's summary binning).
    #[default]
    Width,
    /// `m` bins of equal mass by sorted position (sizes differ by at most one).
    Mass,
}

impl Binning {
    /// Both binnings, width first.
    pub const ALL: [Binning; 2] = [Binning::Width, Binning::Mass];

    /// `width` or `mass` (the audit JSON's keys).
    pub fn name(self) -> &'static str {
        match self {
            Binning::Width => "width",
            Binning::Mass => "mass",
        }
    }

    /// Parses `width` / `mass` (also `equal-width`, `equal-mass`, `quantile`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "width" | "equal-width" | "uniform" => Some(Binning::Width),
            "mass" | "equal-mass" | "quantile" => Some(Binning::Mass),
            _ => None,
        }
    }
}

/// The equal-width bin of forecast `u` among `m` bins:
/// `x = u m` (f64); `round(x)` when `|x - round(x)| <= 1e-7 m`, else `floor(x)`,
/// clamped to `[0, m - 1]`. So an interior edge goes to the upper bin and `u = 1`
/// to the last. NaN maps to bin 0 (inputs are validated before binning).
///
/// ```
/// use calibscope_core::binning::width_bin;
/// assert_eq!(width_bin(0.29, 100), 29); // 0.29 * 100 = 28.999999999999996
/// assert_eq!(width_bin(1.0, 10), 9);
/// assert_eq!(width_bin(0.05, 10), 0);
/// ```
#[inline]
pub fn width_bin(u: f64, m: usize) -> usize {
    let mf = m as f64;
    let x = u * mf;
    let r = x.round();
    let b = if (x - r).abs() <= EDGE_TOLERANCE * mf {
        r
    } else {
        x.floor()
    };
    if b.is_nan() || b < 0.0 {
        0
    } else {
        (b as usize).min(m - 1)
    }
}

/// `width_bin(u, m) <= b` for an interior bin `b` (`b + 1 < m`), without rounding
/// calls: true when `(b + 1) - u m > fl(1e-7 m)` (or `u m` is NaN, bin 0).
///
/// Why it is the same test: `x = u m` is below the edge `b + 1` by more than the
/// tolerance `T` exactly when `width_bin` floors it into a bin `<= b`; within `T`
/// below, on or above the edge it is rounded (or floored) to `>= b + 1`. The
/// difference `(b + 1) - x` is exact where it matters (Sterbenz: `x` within a factor
/// 2 of `b + 1`), and anywhere else it is far from `T`. Valid while `T < 1/2`
/// (`m < 5e6`); callers check [`width_edge_test_applies`].
#[inline]
pub fn width_bin_at_most(u: f64, m: usize, b: usize) -> bool {
    let mf = m as f64;
    let below_edge = (b + 1) as f64 - u * mf;
    below_edge > EDGE_TOLERANCE * mf || below_edge.is_nan()
}

/// Whether [`width_bin_at_most`] equals `width_bin(u, m) <= b` for every `u` at
/// this `m` (the tolerance band is narrower than half a bin).
#[inline]
pub fn width_edge_test_applies(m: usize) -> bool {
    EDGE_TOLERANCE * (m as f64) < 0.5
}

/// First sorted position of equal-mass bin `b` of `m` over `n` samples:
/// `ceil(b n / m)`.
#[inline]
pub fn mass_bin_start(b: usize, n: usize, m: usize) -> usize {
    match (b as u64).checked_mul(n as u64) {
        Some(product) => product.div_ceil(m as u64) as usize,
        None => ((b as u128 * n as u128).div_ceil(m as u128)) as usize,
    }
}

/// `xs.partition_point(pred)` (`pred` true, then false, along `xs`), found by galloping from the start: probes at 1, 2, 4, … then a binary search
/// between the last two. The same position as a binary search over all of `xs`, in
/// `O(log k)` probes near the start for a partition point `k` instead of `O(log n)`
/// probes spread over the slice: a bin of a long sorted reading is a short run, and
/// at 2000 bins over a million forecasts the spread probes were mostly cache misses.
pub fn gallop<T>(xs: &[T], mut pred: impl FnMut(&T) -> bool) -> usize {
    let mut hi = 1;
    while hi < xs.len() && pred(&xs[hi]) {
        hi *= 2;
    }
    let lo = hi / 2;
    let hi = hi.min(xs.len());
    if lo >= hi {
        return hi;
    }
    lo + xs[lo..hi].partition_point(pred)
}

/// One non-empty bin: a contiguous run `start..end` of sorted positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bin {
    /// Bin number `b` in `0..m`.
    pub index: usize,
    /// First sorted position.
    pub start: usize,
    /// One past the last sorted position.
    pub end: usize,
    /// `Σ u` over the bin.
    pub sum_forecast: f64,
    /// `Σ o` over the bin.
    pub successes: u64,
}

impl Bin {
    /// `n_B`.
    #[inline]
    pub fn count(&self) -> usize {
        self.end - self.start
    }
    /// `conf_B = mean u`.
    #[inline]
    pub fn conf(&self) -> f64 {
        self.sum_forecast / self.count() as f64
    }
    /// `acc_B = mean o`.
    #[inline]
    pub fn acc(&self) -> f64 {
        self.successes as f64 / self.count() as f64
    }
    /// `gap_B = acc_B - conf_B`.
    #[inline]
    pub fn gap(&self) -> f64 {
        self.acc() - self.conf()
    }
    /// `Σ_{i∈B} (u_i - o_i)`.
    #[inline]
    pub fn sum_residual(&self) -> f64 {
        self.sum_forecast - self.successes as f64
    }
}

/// One reading sorted once, with prefix sums for O(m) re-binning.
#[derive(Clone, Debug, PartialEq)]
pub struct SortedReading {
    /// Forecasts ascending; ties keep the original sample order.
    sorted: Vec<f64>,
    /// Prefix sums in sorted order, length n + 1 (one cache line per bin edge).
    cum: Vec<Prefix>,
}

/// The prefix sums up to one sorted position: `Σ u` as a compensated pair (the
/// residual kept in `f32`, ample for a term below one ulp of `hi`) and `Σ o`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Prefix {
    hi: f64,
    lo: f32,
    successes: u32,
}

impl Prefix {
    /// The prefix after a running compensated sum `acc` of forecasts and `successes`.
    #[inline(always)]
    pub(crate) fn of(acc: &Sum, successes: u32) -> Self {
        let value = acc.value();
        let (hi, lo) = acc.parts();
        Prefix {
            hi: value,
            lo: ((hi - value) + lo) as f32,
            successes,
        }
    }

    /// The bin covering sorted positions `start..end`, `self` being the prefix at
    /// `start` and `end_prefix` the one at `end`.
    #[inline]
    fn bin_to(self, end_prefix: Prefix, index: usize, start: usize, end: usize) -> Bin {
        let (e, s) = (end_prefix, self);
        Bin {
            index,
            start,
            end,
            sum_forecast: (e.hi - s.hi) + (e.lo as f64 - s.lo as f64),
            successes: (e.successes - s.successes) as u64,
        }
    }
}

/// Calls `visit(b, start, end)` for every non-empty equal-mass bin of `m` bins over
/// `n` sorted positions: bin `b` ends at `ceil((b + 1) n / m)`.
#[inline]
pub fn for_each_mass_bin(n: usize, m: usize, mut visit: impl FnMut(usize, usize, usize)) {
    if m == 0 || n == 0 {
        return;
    }
    // track (b+1) n = q m + r without dividing per bin.
    let (step_q, step_r) = (n / m, n % m);
    let (mut q, mut r) = (0usize, 0usize);
    let mut start = 0;
    for b in 0..m {
        q += step_q;
        r += step_r;
        if r >= m {
            q += 1;
            r -= m;
        }
        let end = q + (r > 0) as usize;
        if end > start {
            visit(b, start, end);
        }
        start = end;
    }
}

impl SortedReading {
    /// Sorts `pairs` by forecast (stable: ties by original index) and builds the
    /// prefix sums. O(n) time (radix sort), 24 bytes per sample.
    pub fn new(pairs: &Pairs) -> Self {
        Self::from_parts(&pairs.forecast, &pairs.outcome)
    }

    /// As [`SortedReading::new`], from the two columns.
    pub fn from_parts(forecast: &[f64], outcome: &[bool]) -> Self {
        let order = crate::auc::sort_order(forecast);
        Self::from_sorted(
            crate::auc::gather(forecast, &order),
            &crate::auc::gather(outcome, &order),
        )
    }

    /// Builds the index from columns already in sorted order (forecasts ascending,
    /// ties by original index), e.g. a [`crate::auc::SortedColumn`]'s, so callers
    /// that also need AUC and cwAUC sort once.
    pub fn from_sorted(sorted: Vec<f64>, outcome: &[bool]) -> Self {
        assert_eq!(sorted.len(), outcome.len());
        let n = sorted.len();
        let mut cum = Vec::with_capacity(n + 1);
        let mut acc = Sum::new();
        let mut successes = 0u32;
        cum.push(Prefix::default());
        for (&u, &o) in sorted.iter().zip(outcome) {
            acc.add(u);
            successes += o as u32;
            cum.push(Prefix::of(&acc, successes));
        }
        SortedReading { sorted, cum }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// True when the reading has no samples.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// The forecasts in sorted order.
    pub fn sorted_forecasts(&self) -> &[f64] {
        &self.sorted
    }

    /// `Σ o` over all samples.
    pub fn total_successes(&self) -> u64 {
        self.cum.last().map_or(0, |p| p.successes as u64)
    }

    /// The bin covering sorted positions `start..end`.
    #[inline]
    pub fn bin(&self, index: usize, start: usize, end: usize) -> Bin {
        self.cum[start].bin_to(self.cum[end], index, start, end)
    }

    /// Calls `visit` for every non-empty bin of `binning` with `m` bins, in bin
    /// order. `m = 0` visits nothing.
    pub fn for_each_bin(&self, binning: Binning, m: usize, mut visit: impl FnMut(Bin)) {
        let n = self.len();
        if m == 0 || n == 0 {
            return;
        }
        match binning {
            Binning::Mass => {
                for_each_mass_bin(n, m, |b, start, end| visit(self.bin(b, start, end)))
            }
            Binning::Width => {
                let edge_test = width_edge_test_applies(m);
                let mut start = 0;
                while start < n {
                    let b = width_bin(self.sorted[start], m);
                    // the first position whose bin exceeds b (width_bin is monotone):
                    // all of the rest for the last bin, else by the exact edge test
                    // (no rounding calls) where it applies
                    let rest = &self.sorted[start..];
                    let end = start
                        + if b + 1 == m {
                            rest.len()
                        } else if edge_test {
                            gallop(rest, |&u| width_bin_at_most(u, m, b))
                        } else {
                            gallop(rest, |&u| width_bin(u, m) <= b)
                        };
                    visit(self.bin(b, start, end));
                    start = end;
                }
            }
        }
    }

    /// The non-empty bins of `binning` with `m` bins, in bin order.
    pub fn bins(&self, binning: Binning, m: usize) -> Vec<Bin> {
        let mut out = Vec::new();
        self.for_each_bin(binning, m, |b| out.push(b));
        out
    }

    /// `Σ_B f(bin)` over the non-empty bins, compensated: the fast path of sweeps
    /// that need one quantity (e.g. `Σ_B (Σ_{i∈B} (u_i - o_i))²` for ConfCE).
    pub fn sum_over_bins(&self, binning: Binning, m: usize, f: impl Fn(&Bin) -> f64) -> f64 {
        let mut total = Sum::new();
        self.for_each_bin(binning, m, |b| total.add(f(&b)));
        total.value()
    }

    /// The binned metrics of the ECE family at `m` bins (see [`BinnedMetrics`]).
    pub fn metrics(&self, binning: Binning, m: usize) -> BinnedMetrics {
        let mut acc = BinnedAccumulator::default();
        self.for_each_bin(binning, m, |b| acc.add(&b));
        acc.finish(self.len())
    }
}

/// What a reliability table or an ECE table needs of a binned reading: its bins and
/// the smallest and largest forecast of a bin. Implemented by the full index
/// ([`SortedReading`], any bin count) and by the audit's [`SparseReading`] (the bin
/// counts of its [`BinPlan`] only).
pub trait BinSource {
    /// Number of samples.
    fn samples(&self) -> usize;
    /// Calls `visit` for every non-empty bin of `binning` with `m` bins, in bin order.
    fn visit_bins(&self, binning: Binning, m: usize, visit: &mut dyn FnMut(Bin));
    /// The smallest and the largest forecast of `bin` (a bin of this reading).
    fn forecast_range(&self, bin: &Bin) -> (f64, f64);

    /// The non-empty bins of `binning` with `m` bins, in bin order.
    fn bin_list(&self, binning: Binning, m: usize) -> Vec<Bin> {
        let mut out = Vec::new();
        self.visit_bins(binning, m, &mut |b| out.push(b));
        out
    }

    /// The binned metrics of the ECE family at `m` bins (see [`BinnedMetrics`]).
    fn binned_metrics(&self, binning: Binning, m: usize) -> BinnedMetrics {
        let mut acc = BinnedAccumulator::default();
        self.visit_bins(binning, m, &mut |b| acc.add(&b));
        acc.finish(self.samples())
    }
}

impl BinSource for SortedReading {
    fn samples(&self) -> usize {
        self.len()
    }
    fn visit_bins(&self, binning: Binning, m: usize, visit: &mut dyn FnMut(Bin)) {
        self.for_each_bin(binning, m, visit)
    }
    fn forecast_range(&self, bin: &Bin) -> (f64, f64) {
        (self.sorted[bin.start], self.sorted[bin.end - 1])
    }
}

/// The ECE family over one binning of one reading (METRICS.md §3–4). With
/// `n` samples and non-empty bins `B`:
///
/// * `ece = (1/n) Σ_B |Σ_{i∈B} (o_i - u_i)|` (= ConfECE on the confidence reading)
/// * `mce = max_B |acc_B - conf_B|`
/// * `rmsce = sqrt(Σ_B (n_B/n) (acc_B - conf_B)²)`
/// * `lince = (1/n²) Σ_B (Σ_{i∈B} (u_i - o_i))²` (= ConfCE on the confidence reading)
/// * `cal = Σ_B (n_B/n)(conf_B - acc_B)²`, `ref = Σ_B (n_B/n) acc_B (1 - acc_B)`
///
/// An empty reading (n = 0) has every value `None`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinnedMetrics {
    /// Number of samples.
    pub n: usize,
    /// Number of non-empty bins.
    pub nonempty_bins: usize,
    /// Expected calibration error.
    pub ece: Option<f64>,
    /// Maximum calibration error.
    pub mce: Option<f64>,
    /// Root-mean-square calibration error.
    pub rmsce: Option<f64>,
    /// The (squared, truthful-family) LinCE.
    pub lince: Option<f64>,
    /// Calibration term of the Brier decomposition.
    pub cal: Option<f64>,
    /// Refinement term of the Brier decomposition (`REF`).
    pub refinement: Option<f64>,
}

impl BinnedMetrics {
    /// The exactness residual `RES = Brier - CAL - REF` given the reading's Brier score.
    pub fn res(&self, brier: Option<f64>) -> Option<f64> {
        Some(brier? - self.cal? - self.refinement?)
    }
}

/// Accumulates [`BinnedMetrics`] bin by bin.
#[derive(Clone, Copy, Debug, Default)]
pub struct BinnedAccumulator {
    nonempty: usize,
    abs_residual: Sum,
    sq_residual: Sum,
    weighted_sq_gap: Sum,
    weighted_variance: Sum,
    max_gap: f64,
}

impl BinnedAccumulator {
    /// Adds one non-empty bin.
    #[inline]
    pub fn add(&mut self, bin: &Bin) {
        let count = bin.count() as f64;
        let residual = bin.sum_residual();
        let gap = bin.gap();
        let acc = bin.acc();
        self.nonempty += 1;
        self.abs_residual.add(residual.abs());
        self.sq_residual.add(residual * residual);
        self.weighted_sq_gap.add(count * gap * gap);
        self.weighted_variance.add(count * acc * (1.0 - acc));
        self.max_gap = self.max_gap.max(gap.abs());
    }

    /// The metrics over `n` samples.
    pub fn finish(&self, n: usize) -> BinnedMetrics {
        if n == 0 {
            return BinnedMetrics {
                n,
                nonempty_bins: 0,
                ece: None,
                mce: None,
                rmsce: None,
                lince: None,
                cal: None,
                refinement: None,
            };
        }
        let nf = n as f64;
        let cal = self.weighted_sq_gap.value() / nf;
        BinnedMetrics {
            n,
            nonempty_bins: self.nonempty,
            ece: Some(self.abs_residual.value() / nf),
            mce: Some(self.max_gap),
            rmsce: Some(cal.sqrt()),
            lince: Some(self.sq_residual.value() / (nf * nf)),
            cal: Some(cal),
            refinement: Some(self.weighted_variance.value() / nf),
        }
    }
}

/// The Brier score of a reading, `(1/n) Σ (u_i - o_i)²`; `None` when empty.
pub fn brier(pairs: &Pairs) -> Option<f64> {
    crate::sum::mean(
        pairs
            .forecast
            .iter()
            .zip(&pairs.outcome)
            .map(|(&u, &o)| (u - o as u8 as f64).powi(2)),
    )
}

#[cfg(test)]
mod gallop_tests {
    use super::gallop;

    #[test]
    fn gallop_is_the_partition_point() {
        for n in 0..70usize {
            let xs: Vec<usize> = (0..n).collect();
            for k in 0..=n {
                assert_eq!(gallop(&xs, |&x| x < k), k, "n {n} k {k}");
                assert_eq!(gallop(&xs, |&x| x < k), xs.partition_point(|&x| x < k));
            }
        }
        let big: Vec<usize> = (0..1_000_003).collect();
        for k in [0, 1, 2, 3, 500, 65_536, 65_537, 999_999, 1_000_003] {
            assert_eq!(gallop(&big, |&x| x < k), k);
        }
    }
}
