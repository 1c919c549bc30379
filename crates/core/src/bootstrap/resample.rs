//! One bootstrap replicate of one reading, as counts per sorted position, and the
//! metrics' passes over it (METRICS.md §8.5): `d`, and the bins of either binning
//! recomputed on the resample.

use super::BootReading;
use crate::binning::{mass_bin_start, Bin, BinnedAccumulator, BinnedMetrics, Binning};

/// One replicate of one reading: the count of each row, in sorted order.
#[derive(Clone, Copy, Debug)]
pub struct Resampled<'a> {
    reading: &'a BootReading,
    counts: Counts<'a>,
}

/// Counts per sorted position: one byte each (the bootstrap's layout, a fifth of the
/// memory traffic of `u32`) or `u32` (a row drawn more than 255 times).
#[derive(Clone, Copy, Debug)]
enum Counts<'a> {
    Narrow(&'a [u8]),
    Wide(&'a [u32]),
}

/// Runs `$body` with `$c` bound to the counts slice, whatever its width.
macro_rules! with_counts {
    ($counts:expr, $c:ident => $body:expr) => {
        match $counts {
            Counts::Narrow($c) => $body,
            Counts::Wide($c) => $body,
        }
    };
}

impl<'a> Resampled<'a> {
    /// A replicate given its counts per sorted position (they must sum to `n`).
    pub fn new(reading: &'a BootReading, counts: &'a [u32]) -> Self {
        assert_eq!(reading.len(), counts.len());
        Resampled {
            reading,
            counts: Counts::Wide(counts),
        }
    }

    pub(super) fn narrow(reading: &'a BootReading, counts: &'a [u8]) -> Self {
        Resampled {
            reading,
            counts: Counts::Narrow(counts),
        }
    }

    /// Number of rows of the resample (`n`).
    pub fn len(&self) -> usize {
        with_counts!(self.counts, c => c.iter().map(|&x| u64::from(x)).sum::<u64>() as usize)
    }

    /// True when the resample has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `d = mean(u) - mean(o)` over the resample ("confidence minus accuracy" on the
    /// confidence reading); `None` when empty.
    pub fn mean_gap(&self) -> Option<f64> {
        with_counts!(self.counts, c => mean_gap_of(c, &self.reading.residual))
    }

    /// Calls `visit` with every non-empty bin of `binning` with `m` bins of the
    /// resample (see the module docs); `start`/`end` are resample positions.
    pub fn for_each_bin(&self, binning: Binning, m: usize, mut visit: impl FnMut(Bin)) {
        with_counts!(self.counts, c => bins_of(self.reading, c, binning, m, &mut visit))
    }

    /// The ECE family of [`BinnedMetrics`] on the resample.
    pub fn binned(&self, binning: Binning, m: usize) -> BinnedMetrics {
        let mut acc = BinnedAccumulator::default();
        self.for_each_bin(binning, m, |b| acc.add(&b));
        acc.finish(self.len())
    }
}

/// `sum c_p r_p / sum c_p` with four accumulators.
fn mean_gap_of<C: Copy + Into<u64>>(counts: &[C], residual: &[f64]) -> Option<f64> {
    let mut s = [0.0f64; 4];
    let mut n = 0u64;
    let split = counts.len() / 4 * 4;
    for (c, r) in counts[..split]
        .chunks_exact(4)
        .zip(residual[..split].chunks_exact(4))
    {
        for k in 0..4 {
            let ck: u64 = c[k].into();
            s[k] += ck as f64 * r[k];
            n += ck;
        }
    }
    for (&c, &r) in counts[split..].iter().zip(&residual[split..]) {
        let c: u64 = c.into();
        s[0] += c as f64 * r;
        n += c;
    }
    (n > 0).then(|| ((s[0] + s[1]) + (s[2] + s[3])) / n as f64)
}

/// `(sum c_p, sum c_p u_p, sum c_p o_p)` over sorted positions `lo..hi`, with four
/// partial sums (the additions of one chain would bound the loop by their latency).
fn range_sums<C: Copy + Into<u64>>(
    r: &BootReading,
    counts: &[C],
    lo: usize,
    hi: usize,
) -> (u64, f64, u64) {
    let (c, u, o) = (&counts[lo..hi], &r.forecast[lo..hi], &r.outcome[lo..hi]);
    let mut sum = [0.0f64; 4];
    let (mut count, mut succ) = (0u64, 0u64);
    let split = c.len() / 4 * 4;
    for ((c4, u4), o4) in c[..split]
        .chunks_exact(4)
        .zip(u[..split].chunks_exact(4))
        .zip(o[..split].chunks_exact(4))
    {
        for k in 0..4 {
            let ck: u64 = c4[k].into();
            count += ck;
            sum[k] += ck as f64 * u4[k];
            succ += ck * o4[k] as u64;
        }
    }
    for ((&ck, &uk), &ok) in c[split..].iter().zip(&u[split..]).zip(&o[split..]) {
        let ck: u64 = ck.into();
        count += ck;
        sum[0] += ck as f64 * uk;
        succ += ck * ok as u64;
    }
    (count, (sum[0] + sum[1]) + (sum[2] + sum[3]), succ)
}

/// [`Resampled::for_each_bin`] over counts of either width.
fn bins_of<C: Copy + Into<u64>>(
    reading: &BootReading,
    counts: &[C],
    binning: Binning,
    m: usize,
    visit: &mut dyn FnMut(Bin),
) {
    let r = reading;
    if m == 0 || r.is_empty() {
        return;
    }
    match binning {
        Binning::Width => {
            let mut pos = 0usize;
            r.sorted.for_each_bin(Binning::Width, m, |b| {
                let (count, sum, succ) = range_sums(r, counts, b.start, b.end);
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
            let len = counts.len();
            let count = |p: usize| -> usize { Into::<u64>::into(counts[p]) as usize };
            // cumulative counts at every BLOCK-th position, so the position holding a
            // resample index is found by a binary search and a short scan
            const BLOCK: usize = 64;
            let mut blocks = Vec::with_capacity(len / BLOCK + 2);
            let mut total = 0usize;
            blocks.push(0usize);
            for chunk in counts.chunks(BLOCK) {
                total += chunk.iter().map(|&c| Into::<u64>::into(c)).sum::<u64>() as usize;
                blocks.push(total);
            }
            let n = total;
            // (q, C(q)): the position q holding resample index e (C(q) <= e < C(q+1)),
            // or (len, n) for e = n
            let locate = |e: usize| -> (usize, usize) {
                let k = blocks.partition_point(|&c| c <= e) - 1;
                let (mut q, mut before) = ((k * BLOCK).min(len), blocks[k]);
                while q < len && before + count(q) <= e {
                    before += count(q);
                    q += 1;
                }
                (q, before)
            };
            let mut start = 0usize;
            let (mut qs, mut cs) = locate(0);
            for b in 0..m {
                let end = mass_bin_start(b + 1, n, m);
                if end == start {
                    continue;
                }
                let (qe, ce) = locate(end);
                let (mut sum, mut succ) = (0.0, 0u64);
                let mut add = |q: usize, copies: usize| {
                    sum += copies as f64 * r.forecast[q];
                    succ += if r.outcome[q] { copies as u64 } else { 0 };
                };
                if qs == qe {
                    add(qs, end - start);
                } else {
                    // the copies of qs from `start`, whole positions, the copies of qe
                    // before `end`
                    add(qs, cs + count(qs) - start);
                    if qe < len {
                        add(qe, end - ce);
                    }
                    let (_, s, k) = range_sums(r, counts, qs + 1, qe);
                    sum += s;
                    succ += k;
                }
                visit(Bin {
                    index: b,
                    start,
                    end,
                    sum_forecast: sum,
                    successes: succ,
                });
                start = end;
                (qs, cs) = (qe, ce);
            }
        }
    }
}
