//! Reliability tables (METRICS.md §2): per non-empty bin, count, mean confidence,
//! accuracy, gap and an exact Clopper–Pearson interval for the accuracy.

use crate::binning::{Bin, BinSource, Binning, SortedReading};

/// Default two-sided level of the Clopper–Pearson intervals: `1 - alpha`, `alpha = 0.05`.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// One row of a reliability table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReliabilityRow {
    /// Bin number in `0..m`.
    pub bin: usize,
    /// `n_B`.
    pub count: usize,
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
        let (cp_lower, cp_upper) =
            crate::special::clopper_pearson(bin.successes, bin.count() as u64, alpha)
                .unwrap_or((0.0, 1.0));
        let (lower, upper) = match binning {
            Binning::Width => (
                bin.index as f64 / m as f64,
                (bin.index + 1) as f64 / m as f64,
            ),
            Binning::Mass => source.forecast_range(bin),
        };
        ReliabilityRow {
            bin: bin.index,
            count: bin.count(),
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
