//! Reliability tables (METRICS.md §2): per non-empty bin, count, mean confidence,
//! accuracy, gap and an exact Clopper–Pearson interval for the accuracy.

use crate::binning::{Bin, BinSource, BinnedAccumulator, BinnedMetrics, Binning, SortedReading};

/// Default two-sided level of the Clopper–Pearson intervals: `1 - alpha`, `alpha = 0.05`.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// One row of a reliability table: the audit JSON's row (`n` and the edges), the
/// app's wire row (calibscope-proto's `Row`; `serde` feature) and what the page
/// draws, one type.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ReliabilityRow {
    /// Bin number in `0..m`.
    pub bin: usize,
    /// `n_B`.
    pub n: usize,
    /// `conf_B`, mean forecast.
    pub conf: f64,
    /// `acc_B`, mean outcome.
    pub acc: f64,
    /// `acc_B - conf_B`.
    pub gap: f64,
    /// `x = Σ o` in the bin.
    pub successes: u64,
    /// Clopper–Pearson lower bound: `BetaInv(α/2; x, n_B - x + 1)`, 0 when `x = 0`.
    pub cp_lower: f64,
    /// Clopper–Pearson upper bound: `BetaInv(1 - α/2; x + 1, n_B - x)`, 1 when `x = n_B`.
    pub cp_upper: f64,
    /// Equal-width: the bin's edges `b/m` and `(b+1)/m`; equal-mass: the smallest and
    /// largest forecast in the bin.
    pub lower: f64,
    /// See `lower`.
    pub upper: f64,
}

impl ReliabilityRow {
    /// The row of `bin` (a bin of `binning` with `m` bins over `sorted`).
    pub fn new(sorted: &SortedReading, binning: Binning, m: usize, bin: &Bin, alpha: f64) -> Self {
        Self::of_bin(sorted, binning, m, bin, alpha)
    }

    /// The row of `bin` (a bin of `binning` with `m` bins of `source`).
    pub fn of_bin<S: BinSource + ?Sized>(
        source: &S,
        binning: Binning,
        m: usize,
        bin: &Bin,
        alpha: f64,
    ) -> Self {
        Self::with_interval(source, binning, m, bin, interval(bin, alpha))
    }

    /// The row of `bin` with its Clopper–Pearson interval `(cp_lower, cp_upper)`
    /// already known (see [`IntervalCache`]).
    fn with_interval<S: BinSource + ?Sized>(
        source: &S,
        binning: Binning,
        m: usize,
        bin: &Bin,
        (cp_lower, cp_upper): (f64, f64),
    ) -> Self {
        let (lower, upper) = match binning {
            Binning::Width => (
                bin.index as f64 / m as f64,
                (bin.index + 1) as f64 / m as f64,
            ),
            Binning::Mass => source.forecast_range(bin),
        };
        ReliabilityRow {
            bin: bin.index,
            n: bin.count(),
            conf: bin.conf(),
            acc: bin.acc(),
            gap: bin.gap(),
            successes: bin.successes,
            cp_lower,
            cp_upper,
            lower,
            upper,
        }
    }
}

/// The Clopper–Pearson interval of a bin's accuracy at level `1 - alpha`
/// ([`crate::special::clopper_pearson`]); `(0, 1)` where it is undefined (an empty bin
/// or a NaN `alpha`).
fn interval(bin: &Bin, alpha: f64) -> (f64, f64) {
    crate::special::clopper_pearson(bin.successes, bin.count() as u64, alpha).unwrap_or((0.0, 1.0))
}

/// Clopper–Pearson intervals at one level, remembered by `(successes, count)`.
///
/// An interval costs two Beta quantiles (Newton iterations on the incomplete Beta
/// function, a few microseconds each); a table of 2000 bins asks for thousands, and
/// at large bin counts the same `(successes, count)` pairs recur, within a table and
/// between the tables of neighbouring bin counts (a slider's steps). The cache gives
/// the very values [`reliability_table`] computes. It grows by one entry per distinct
/// pair asked (at most `n` pairs per count `n`); [`IntervalCache::clear`] empties it.
#[derive(Clone, Debug)]
pub struct IntervalCache {
    alpha: f64,
    known: std::collections::HashMap<(u64, usize), (f64, f64)>,
}

impl IntervalCache {
    /// An empty cache of intervals at level `1 - alpha`.
    pub fn new(alpha: f64) -> Self {
        IntervalCache {
            alpha,
            known: std::collections::HashMap::new(),
        }
    }

    /// The interval of `bin` (computed once per `(successes, count)`).
    pub fn of(&mut self, bin: &Bin) -> (f64, f64) {
        let alpha = self.alpha;
        *self
            .known
            .entry((bin.successes, bin.count()))
            .or_insert_with(|| interval(bin, alpha))
    }

    /// Number of intervals held.
    pub fn len(&self) -> usize {
        self.known.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    /// Forgets every interval.
    pub fn clear(&mut self) {
        self.known.clear();
    }
}

/// [`reliability_table`] with its intervals taken from (and added to) `cache`, at
/// the cache's level, and the binned metrics of the same bins
/// ([`BinSource::binned_metrics`]): the same rows and metrics from one pass over the
/// bins instead of two.
pub fn reliability_table_cached<S: BinSource + ?Sized>(
    sorted: &S,
    binning: Binning,
    m: usize,
    cache: &mut IntervalCache,
) -> (Vec<ReliabilityRow>, BinnedMetrics) {
    let mut metrics = BinnedAccumulator::default();
    let mut rows = Vec::new();
    sorted.visit_bins(binning, m, &mut |bin| {
        metrics.add(&bin);
        rows.push(ReliabilityRow::with_interval(
            sorted,
            binning,
            m,
            &bin,
            cache.of(&bin),
        ));
    });
    (rows, metrics.finish(sorted.samples()))
}

/// The reliability table of `binning` with `m` bins: one row per non-empty bin, in
/// bin order, intervals at level `1 - alpha`. Empty for an empty reading.
pub fn reliability_table<S: BinSource + ?Sized>(
    sorted: &S,
    binning: Binning,
    m: usize,
    alpha: f64,
) -> Vec<ReliabilityRow> {
    sorted
        .bin_list(binning, m)
        .iter()
        .map(|bin| ReliabilityRow::of_bin(sorted, binning, m, bin, alpha))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_tables_are_the_tables() {
        // 20k forecasts in clumps with outcomes of varied rates, so that bins of
        // neighbouring bin counts share (successes, count) pairs
        // (Weyl sequences: deterministic, well spread)
        let frac = |x: f64| x - x.floor();
        let (mut f, mut o) = (Vec::new(), Vec::new());
        for i in 0..20_000 {
            let i = i as f64;
            let p = (frac(i * 0.618_033_988_749_894_9) * 40.0).floor() / 40.0
                + frac(i * 0.754_877_666_246_693) * 0.01;
            f.push(p.min(1.0));
            o.push(frac(i * std::f64::consts::SQRT_2) < p);
        }
        let sorted = SortedReading::from_parts(&f, &o);
        let mut cache = IntervalCache::new(DEFAULT_ALPHA);
        for binning in [Binning::Width, Binning::Mass] {
            for m in [1, 15, 2000, 1972, 1945, 2000, 7] {
                let want = reliability_table(&sorted, binning, m, DEFAULT_ALPHA);
                let (rows, metrics) = reliability_table_cached(&sorted, binning, m, &mut cache);
                assert_eq!(rows, want);
                assert_eq!(metrics, sorted.metrics(binning, m));
            }
        }
        assert!(!cache.is_empty() && cache.len() < 2 * 6000);
        cache.clear();
        assert!(cache.is_empty());
        // another level gives that level's intervals
        let mut other = IntervalCache::new(0.1);
        assert_eq!(
            reliability_table_cached(&sorted, Binning::Mass, 50, &mut other).0,
            reliability_table(&sorted, Binning::Mass, 50, 0.1)
        );
    }
}
