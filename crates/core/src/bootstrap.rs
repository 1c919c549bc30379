//! The seeded, paired bootstrap of METRICS.md §8.5.
//!
//! Replicate `r = 0..B-1` draws the rows `i_{r,j} = floor(U(r n + j) n)`,
//! `j = 0..n-1`, with `U(t) = (x_t >> 11) 2^-53` and `x_t` the `t`-th output (0-based)
//! of SplitMix64 seeded with `seed`: `x_t = mix(seed + (t + 1) 0x9E3779B97F4A7C15)`,
//! computed directly, so replicates are independent of each other and of the thread
//! that computes them.
//!
//! A replicate is a multiset of rows: it is held as a count per row, in the order of
//! the reading's sorted index ([`BootReading`]), never as `n` materialised rows.
//! The multiset, laid out in that order (forecast ascending, ties by original row,
//! the copies of a row adjacent), is the resample its metrics see: equal-width bins
//! are the original bins with their rows counted with multiplicity; equal-mass bins
//! are recomputed on the resample's `n` positions (a row's copies may straddle a bin
//! edge). Models evaluated on the same samples share the draws (paired).

use crate::binning::{Binning, SortedReading};

mod counter;
mod resample;
mod sliced;

pub use resample::{BlockIndex, Resampled};
pub use sliced::SlicedReplicates;

/// SplitMix64's increment.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The default number of replicates `B`.
pub const DEFAULT_REPLICATES: usize = 1000;

/// `x_t`, the `t`-th output (0-based) of SplitMix64 seeded with `seed`, computed
/// directly from its state `seed + (t + 1) * 0x9E3779B97F4A7C15` (mod 2^64): equals
/// the `(t + 1)`-th call of [`crate::split::SplitMix64::next_u64`].
#[inline(always)]
pub fn splitmix64_at(seed: u64, t: u64) -> u64 {
    let mut z = seed.wrapping_add(t.wrapping_add(1).wrapping_mul(GAMMA));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The row of draw `j` of replicate `r` over `n` rows: `floor(U(r n + j) n)` with
/// `U(t) = (x_t >> 11) 2^-53`, in f64 (the product rounds once; it stays below `n`).
/// Panics when `n = 0` (there is no row to draw).
#[inline(always)]
pub fn draw(seed: u64, r: u64, j: u64, n: usize) -> usize {
    let x = splitmix64_at(seed, r.wrapping_mul(n as u64).wrapping_add(j));
    let u = (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    ((u * n as f64) as usize).min(n - 1)
}

/// The rows of draws `t0 .. t0 + out.len()` of the stream over `n` rows:
/// `out[k] = floor(U(t0 + k) n)` (see [`draw`]).
#[inline(always)]
fn fill_rows_generic(seed: u64, t0: u64, n: usize, out: &mut [u32]) {
    // floor(x) for 0 <= x < 2^32 without a saturating cast (which does not
    // vectorise): x + 2^52 rounds x to the nearest integer in the low mantissa bits;
    // one less when that rounded up.
    const MAGIC: f64 = 4_503_599_627_370_496.0; // 2^52
    let nf = n as f64;
    let top = (n - 1) as u64;
    for (k, row) in out.iter_mut().enumerate() {
        let x = splitmix64_at(seed, t0.wrapping_add(k as u64));
        let v = (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64) * nf;
        let nearest = (v + MAGIC).to_bits() - MAGIC.to_bits();
        let floor = nearest - ((nearest as f64 > v) as u64);
        *row = floor.min(top) as u32;
    }
}

/// [`fill_rows_generic`] compiled for AVX-512 (8 draws per instruction: 64-bit
/// multiplies and u64/f64 conversions), chosen at run time where the CPU has it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn fill_rows_avx512(seed: u64, t0: u64, n: usize, out: &mut [u32]) {
    fill_rows_generic(seed, t0, n, out)
}

/// `out[k] = floor(U(t0 + k) n)`, the same bits on every path.
fn fill_rows(seed: u64, t0: u64, n: usize, out: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vl")
    {
        // SAFETY: the CPU supports the features the function is compiled for.
        return unsafe { fill_rows_avx512(seed, t0, n, out) };
    }
    fill_rows_generic(seed, t0, n, out)
}

/// How to bootstrap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BootstrapSettings {
    /// Number of replicates `B` (default 1000).
    pub replicates: usize,
    /// The SplitMix64 seed (default 0).
    pub seed: u64,
    /// Intervals at level `1 - alpha` (default 0.05).
    pub alpha: f64,
    /// Worker threads (default: the machine's parallelism, 1 where threads are not
    /// available, e.g. wasm). Results do not depend on it.
    pub threads: usize,
}

impl Default for BootstrapSettings {
    fn default() -> Self {
        BootstrapSettings {
            replicates: DEFAULT_REPLICATES,
            seed: 0,
            alpha: 0.05,
            threads: default_threads(),
        }
    }
}

/// The machine's available parallelism, 1 when unknown or on wasm.
pub fn default_threads() -> usize {
    if cfg!(target_arch = "wasm32") {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// One reading's sorted index for resampling: forecasts and outcomes in sorted order
/// (ties by original row) and each row's sorted position. 17 bytes per row.
#[derive(Clone, Debug)]
pub struct BootReading {
    sorted: SortedReading,
    forecast: Vec<f64>,
    outcome: Vec<bool>,
    /// `u - o` in sorted order.
    residual: Vec<f64>,
    /// The row at each sorted position.
    order: Vec<u32>,
}

impl BootReading {
    /// Indexes the pairs `(u_i, o_i)`. An empty reading is allowed (every metric on
    /// it is `None`, and [`bootstrap_metrics`] returns `None`); forecasts are validated
    /// before (a NaN sorts last and makes the metrics that read it NaN). A single class
    /// is fine. Panics when the lengths differ or `n >= 2^32`.
    pub fn new(u: &[f64], o: &[bool]) -> Self {
        assert_eq!(u.len(), o.len(), "one outcome per forecast");
        assert!(u.len() < u32::MAX as usize, "at most 2^32 - 1 rows");
        let order = crate::auc::sort_order(u);
        let forecast = crate::auc::gather(u, &order);
        let outcome = crate::auc::gather(o, &order);
        let residual = forecast
            .iter()
            .zip(&outcome)
            .map(|(&u, &o)| u - o as u8 as f64)
            .collect();
        BootReading {
            sorted: SortedReading::from_sorted(forecast.clone(), &outcome),
            forecast,
            outcome,
            residual,
            order,
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.forecast.len()
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.forecast.is_empty()
    }

    /// The row at sorted position `p`.
    pub fn row_at(&self, p: usize) -> usize {
        self.order[p] as usize
    }

    /// The original data's sorted index (for point estimates).
    pub fn sorted(&self) -> &SortedReading {
        &self.sorted
    }

    /// The original data as a replicate (every count 1).
    fn identity_counts(&self) -> Vec<u32> {
        vec![1; self.len()]
    }
}

/// A metric the bootstrap recomputes on every replicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BootMetric {
    /// `d = mean(u) - mean(o)` ([`Resampled::mean_gap`]).
    MeanGap,
    /// `ECE_m` on a binning.
    Ece(Binning, usize),
}

impl BootMetric {
    /// The metric on one replicate (or on the data, with every count 1).
    pub fn on(self, sample: &Resampled<'_>) -> Option<f64> {
        match self {
            BootMetric::MeanGap => sample.mean_gap(),
            BootMetric::Ece(binning, m) => sample.binned(binning, m).ece,
        }
    }

    /// The metric on the original data.
    pub fn point(self, reading: &BootReading) -> Option<f64> {
        let counts = reading.identity_counts();
        self.on(&Resampled::new(reading, &counts))
    }
}

/// Runs `evaluate(r, replicates)` for every replicate `r = 0..B-1`, each given one
/// [`Resampled`] per reading (same draws: paired), on `settings.threads` threads
/// (contiguous blocks of replicates; the results are in replicate order and do not
/// depend on the thread count). Every reading must have the same `n >= 1`.
pub fn bootstrap_map<T, F>(
    readings: &[&BootReading],
    settings: &BootstrapSettings,
    evaluate: F,
) -> Vec<T>
where
    T: Send,
    F: Fn(usize, &[Resampled<'_>]) -> T + Sync,
{
    assert!(!readings.is_empty(), "at least one reading");
    let n = readings[0].len();
    assert!(n > 0, "the bootstrap needs at least one row");
    assert!(
        readings.iter().all(|r| r.len() == n),
        "paired readings have the same rows"
    );
    let b = settings.replicates;
    let run = |range: std::ops::Range<usize>| -> Vec<T> {
        bootstrap_map_range(readings, settings.seed, range, &evaluate)
    };
    let threads = settings.threads.clamp(1, b.max(1));
    if threads == 1 {
        return run(0..b);
    }
    let per = b.div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let range = (t * per).min(b)..((t + 1) * per).min(b);
                let run = &run;
                scope.spawn(move || run(range))
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a bootstrap worker panicked"))
            .collect()
    })
}

/// [`bootstrap_map`] on the replicates `range` only, in order, on the calling thread:
/// for a caller that must yield between slices of the work (the browser's worker runs
/// a thousand replicates in slices of a few milliseconds). Replicate `r` is drawn from
/// `(seed, r, n)` alone, so the values are those `bootstrap_map` gives for the same
/// replicates. Every reading must have the same `n >= 1`; an empty range gives nothing.
pub fn bootstrap_map_range<T, F>(
    readings: &[&BootReading],
    seed: u64,
    range: std::ops::Range<usize>,
    evaluate: F,
) -> Vec<T>
where
    F: Fn(usize, &[Resampled<'_>]) -> T,
{
    if range.is_empty() {
        return Vec::new();
    }
    assert!(!readings.is_empty(), "at least one reading");
    let n = readings[0].len();
    assert!(n > 0, "the bootstrap needs at least one row");
    assert!(
        readings.iter().all(|r| r.len() == n),
        "paired readings have the same rows"
    );
    let mut counter = counter::Counter::new(n, readings.len());
    let mut out = Vec::with_capacity(range.len());
    let mut r = range.start;
    while r < range.end {
        let k = counter::PAIR.min(range.end - r);
        counter.count(readings, seed, r, k);
        for slot in 0..k {
            out.push(evaluate(r + slot, &counter.samples(readings, slot)));
        }
        r += k;
    }
    out
}

/// A percentile interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The `alpha/2` quantile of the defined replicate values (`None` when none is).
    pub lo: Option<f64>,
    /// The `1 - alpha/2` quantile.
    pub hi: Option<f64>,
    /// Replicates on which the metric was undefined (skipped).
    pub skipped: usize,
}

/// numpy's `quantile(v, q, method="linear")` of sorted values: virtual index
/// `g = q (k - 1)`, `i = floor(g)`, `t = g - i`, `a + t (b - a)` with numpy's
/// rounding choice (`b - (b - a)(1 - t)` when `t >= 1/2`). `None` when empty.
pub fn quantile_linear(sorted: &[f64], q: f64) -> Option<f64> {
    let k = sorted.len();
    if k == 0 {
        return None;
    }
    let g = q * (k - 1) as f64;
    let i = (g.floor() as usize).min(k - 1);
    let t = g - i as f64;
    let a = sorted[i];
    let b = sorted[(i + 1).min(k - 1)];
    let diff = b - a;
    Some(if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    })
}

/// The percentile interval at level `1 - alpha` of replicate values (`None` =
/// undefined on that replicate, skipped and counted): the `alpha/2` and
/// `1 - alpha/2` quantiles with linear interpolation ([`quantile_linear`]).
pub fn percentile_interval(values: &[Option<f64>], alpha: f64) -> Interval {
    let mut defined: Vec<f64> = values.iter().flatten().copied().collect();
    defined.sort_by(f64::total_cmp);
    Interval {
        lo: quantile_linear(&defined, alpha / 2.0),
        hi: quantile_linear(&defined, 1.0 - alpha / 2.0),
        skipped: values.len() - defined.len(),
    }
}

/// For a ranking of paired models: the share of replicates in which models `a` and
/// `b` keep the order of their point estimates (`a < b` on the data: the share of
/// replicates with `a_r < b_r`; `a > b`: with `a_r > b_r`), over the replicates where
/// both are defined. `None` (undefined) when the point estimates tie or are
/// undefined, or no replicate defines both. Panics when the replicate lists differ in
/// length.
pub fn pair_order_share(
    point: (Option<f64>, Option<f64>),
    a: &[Option<f64>],
    b: &[Option<f64>],
) -> Option<f64> {
    assert_eq!(a.len(), b.len(), "paired replicates");
    let (pa, pb) = (point.0?, point.1?);
    let below = match pa.partial_cmp(&pb)? {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => return None,
    };
    let (mut kept, mut both) = (0usize, 0usize);
    for (x, y) in a.iter().zip(b) {
        if let (Some(x), Some(y)) = (x, y) {
            both += 1;
            kept += if below { x < y } else { x > y } as usize;
        }
    }
    (both > 0).then(|| kept as f64 / both as f64)
}

/// Bootstraps `metrics` on one reading: per metric, its replicate values in
/// replicate order. `None` when the reading is empty.
pub fn bootstrap_metrics(
    reading: &BootReading,
    metrics: &[BootMetric],
    settings: &BootstrapSettings,
) -> Option<Vec<Vec<Option<f64>>>> {
    if reading.is_empty() {
        return None;
    }
    let per_replicate = bootstrap_map(&[reading], settings, |_, s| {
        metrics.iter().map(|m| m.on(&s[0])).collect::<Vec<_>>()
    });
    Some(
        (0..metrics.len())
            .map(|k| per_replicate.iter().map(|v| v[k]).collect())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_shares() {
        let a = [Some(1.0), Some(2.0), None, Some(3.0), Some(0.5)];
        let b = [Some(2.0), Some(1.0), Some(1.0), Some(3.0), Some(0.7)];
        // a < b on the data: kept in replicates 0 and 4 of the 4 defined ones
        assert_eq!(pair_order_share((Some(0.9), Some(1.1)), &a, &b), Some(0.5));
        assert_eq!(pair_order_share((Some(1.1), Some(0.9)), &a, &b), Some(0.25));
        assert_eq!(pair_order_share((Some(1.0), Some(1.0)), &a, &b), None);
        assert_eq!(pair_order_share((None, Some(1.0)), &a, &b), None);
        assert_eq!(
            pair_order_share((Some(0.0), Some(1.0)), &[None], &[Some(1.0)]),
            None
        );
    }

    #[test]
    fn block_draws_equal_single_draws() {
        for n in [1usize, 2, 3, 10, 1000, 1_000_003, (1 << 31) + 7] {
            for seed in [0u64, 9, u64::MAX] {
                let mut out = vec![0u32; 777];
                let t0 = 5 * n as u64 + 11;
                fill_rows(seed, t0, n, &mut out);
                let mut generic = vec![0u32; 777];
                fill_rows_generic(seed, t0, n, &mut generic);
                assert_eq!(out, generic);
                for (k, &row) in out.iter().enumerate() {
                    let j = 11 + k as u64;
                    assert_eq!(row as usize, draw(seed, 5, j, n), "n {n} seed {seed} k {k}");
                }
            }
        }
    }
}
