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

use crate::binning::{
    mass_bin_start, Bin, BinnedAccumulator, BinnedMetrics, Binning, SortedReading,
};

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
#[inline(always)]
pub fn draw(seed: u64, r: u64, j: u64, n: usize) -> usize {
    let x = splitmix64_at(seed, r.wrapping_mul(n as u64).wrapping_add(j));
    let u = (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    ((u * n as f64) as usize).min(n - 1)
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
    position: Vec<u32>,
}

impl BootReading {
    /// Indexes the pairs `(u_i, o_i)`. Panics when the lengths differ or `n >= 2^32`.
    pub fn new(u: &[f64], o: &[bool]) -> Self {
        assert_eq!(u.len(), o.len(), "one outcome per forecast");
        assert!(u.len() < u32::MAX as usize, "at most 2^32 - 1 rows");
        let order = crate::auc::sort_order(u);
        let forecast = crate::auc::gather(u, &order);
        let outcome = crate::auc::gather(o, &order);
        let mut position = vec![0u32; u.len()];
        for (p, &i) in order.iter().enumerate() {
            position[i as usize] = p as u32;
        }
        BootReading {
            sorted: SortedReading::from_sorted(forecast.clone(), &outcome),
            forecast,
            outcome,
            position,
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

    /// The original data's sorted index (for point estimates).
    pub fn sorted(&self) -> &SortedReading {
        &self.sorted
    }

    /// The original data as a replicate (every count 1).
    fn identity_counts(&self) -> Vec<u32> {
        vec![1; self.len()]
    }
}

/// One replicate of one reading: the count of each row, in sorted order.
#[derive(Clone, Copy, Debug)]
pub struct Resampled<'a> {
    reading: &'a BootReading,
    counts: &'a [u32],
}

impl<'a> Resampled<'a> {
    /// A replicate given its counts per sorted position (they must sum to `n`).
    pub fn new(reading: &'a BootReading, counts: &'a [u32]) -> Self {
        assert_eq!(reading.len(), counts.len());
        Resampled { reading, counts }
    }

    /// `d = mean(u) - mean(o)` over the resample ("confidence minus accuracy" on the
    /// confidence reading); `None` when empty.
    pub fn mean_gap(&self) -> Option<f64> {
        let r = self.reading;
        let mut s = 0.0;
        let mut n = 0u64;
        for ((&c, &u), &o) in self.counts.iter().zip(&r.forecast).zip(&r.outcome) {
            s += c as f64 * (u - o as u8 as f64);
            n += c as u64;
        }
        (n > 0).then(|| s / n as f64)
    }

    /// Calls `visit` with every non-empty bin of `binning` with `m` bins of the
    /// resample (see the module docs); `start`/`end` are resample positions.
    pub fn for_each_bin(&self, binning: Binning, m: usize, mut visit: impl FnMut(Bin)) {
        let r = self.reading;
        if m == 0 || r.is_empty() {
            return;
        }
        match binning {
            Binning::Width => {
                let mut pos = 0usize;
                r.sorted.for_each_bin(Binning::Width, m, |b| {
                    let (mut count, mut sum, mut succ) = (0u64, 0.0, 0u64);
                    for p in b.start..b.end {
                        let c = self.counts[p];
                        count += c as u64;
                        sum += c as f64 * r.forecast[p];
                        succ += if r.outcome[p] { c as u64 } else { 0 };
                    }
                    if count > 0 {
                        visit(Bin {
                            index: b.index,
                            start: pos,
                            end: pos + count as usize,
                            sum_forecast: sum,
                            successes: succ,
                        });
                    }
                    pos += count as usize;
                });
            }
            Binning::Mass => {
                let n: usize = self.counts.iter().map(|&c| c as usize).sum();
                let mut b = 0usize;
                let mut start = 0usize;
                let mut end = mass_bin_start(1, n, m);
                let (mut pos, mut sum, mut succ) = (0usize, 0.0, 0u64);
                let mut close = |b: usize, start: usize, end: usize, sum: f64, succ: u64| {
                    if end > start {
                        visit(Bin {
                            index: b,
                            start,
                            end,
                            sum_forecast: sum,
                            successes: succ,
                        })
                    }
                };
                for ((&c, &u), &o) in self.counts.iter().zip(&r.forecast).zip(&r.outcome) {
                    let mut c = c as usize;
                    while c > 0 {
                        while end <= pos {
                            // the bin ending here is complete (or empty): next bin
                            close(b, start, end, sum, succ);
                            (sum, succ) = (0.0, 0);
                            b += 1;
                            start = end;
                            end = mass_bin_start(b + 1, n, m);
                        }
                        let k = c.min(end - pos);
                        sum += k as f64 * u;
                        succ += if o { k as u64 } else { 0 };
                        pos += k;
                        c -= k;
                    }
                }
                if pos > start {
                    close(b, start, pos, sum, succ);
                }
            }
        }
    }

    /// The ECE family of [`BinnedMetrics`] on the resample.
    pub fn binned(&self, binning: Binning, m: usize) -> BinnedMetrics {
        let mut acc = BinnedAccumulator::default();
        self.for_each_bin(binning, m, |b| acc.add(&b));
        acc.finish(self.counts.iter().map(|&c| c as usize).sum())
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

/// Adds the counts of replicate `r` to `counts` (per sorted position of each
/// reading; one buffer per reading, all of length `n`): the paired draws.
fn count_replicate(readings: &[&BootReading], counts: &mut [Vec<u32>], seed: u64, r: usize) {
    let n = readings[0].len();
    for c in counts.iter_mut() {
        c.iter_mut().for_each(|x| *x = 0);
    }
    const CHUNK: usize = 1024;
    let mut rows = [0u32; CHUNK];
    let mut j = 0usize;
    while j < n {
        let len = CHUNK.min(n - j);
        for (k, row) in rows[..len].iter_mut().enumerate() {
            *row = draw(seed, r as u64, (j + k) as u64, n) as u32;
        }
        for (reading, c) in readings.iter().zip(counts.iter_mut()) {
            for &row in &rows[..len] {
                c[reading.position[row as usize] as usize] += 1;
            }
        }
        j += len;
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
        let mut counts: Vec<Vec<u32>> = readings.iter().map(|_| vec![0u32; n]).collect();
        range
            .map(|r| {
                count_replicate(readings, &mut counts, settings.seed, r);
                let samples: Vec<Resampled<'_>> = readings
                    .iter()
                    .zip(&counts)
                    .map(|(reading, c)| Resampled::new(reading, c))
                    .collect();
                evaluate(r, &samples)
            })
            .collect()
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
