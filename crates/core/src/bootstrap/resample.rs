//! One bootstrap replicate of one reading, as counts per sorted position, and the
//! metrics' passes over it (METRICS.md §8.5): `d`, and the bins of either binning
//! recomputed on the resample.

use super::BootReading;
use crate::binning::{mass_bin_start, Bin, BinnedAccumulator, BinnedMetrics, Binning};
use std::borrow::Cow;

/// One replicate of one reading: the count of each row, in sorted order.
#[derive(Clone, Copy, Debug)]
pub struct Resampled<'a> {
    reading: &'a BootReading,
    counts: Counts<'a>,
    /// The block sums of `counts`, when the bootstrap took them while laying the
    /// counts out ([`Resampled::block_index`] then reads them instead of a new pass).
    blocks: Option<&'a Blocks>,
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
            blocks: None,
        }
    }

    /// A replicate given its one-byte counts per sorted position and their block
    /// sums ([`Blocks`] of exactly these counts).
    pub(super) fn narrow(reading: &'a BootReading, counts: &'a [u8], blocks: &'a Blocks) -> Self {
        Resampled {
            reading,
            counts: Counts::Narrow(counts),
            blocks: Some(blocks),
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

    /// The copies of sorted position `p`.
    #[cfg(test)]
    pub(super) fn count_at(&self, p: usize) -> u64 {
        with_counts!(self.counts, c => c[p].into())
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

    /// The block sums of the resample ([`BlockIndex`]): one pass over the counts, after
    /// which every bin of either binning costs two partial blocks and a sum over whole
    /// blocks. Worth it when several binnings or bin counts are read.
    pub fn block_index(&self) -> BlockIndex<'a> {
        let blocks = match self.blocks {
            Some(b) => Cow::Borrowed(b),
            None => Cow::Owned(with_counts!(self.counts, c => Blocks::of(self.reading, c))),
        };
        BlockIndex {
            sample: *self,
            blocks,
        }
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
pub(super) fn range_sums<C: Copy + Into<u64>>(
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

/// A replicate's sums over sorted positions, read by [`walk_bins`]: straight from the
/// counts ([`PlainSums`]) or from block sums ([`BlockIndex`]); the same bins either way.
trait SortedSums {
    /// `(copies, Σ c u, Σ c o)` over sorted positions `lo..hi`.
    fn range(&self, lo: usize, hi: usize) -> (u64, f64, u64);
    /// The copies of sorted position `q`.
    fn copies(&self, q: usize) -> usize;
    /// `(q, C(q))`: the sorted position holding resample index `e` (`C(q) <= e <
    /// C(q + 1)`, `C` the copies before a position), or `(len, n)` for `e = n`.
    /// `from` is a known answer for an index `<= e` (`(0, 0)` at the start): the
    /// search resumes there when it is past the block `e` falls in, so a walk over
    /// increasing indices scans each position once however many bins it cuts.
    fn locate(&self, e: usize, from: (usize, usize)) -> (usize, usize);
    /// Rows of the resample (`n`).
    fn total(&self) -> usize;
}

/// The counts themselves, with the copies before every [`PLAIN_BLOCK`]-th position
/// (built only for equal-mass bins, where resample indices are located).
struct PlainSums<'c, C> {
    reading: &'c BootReading,
    counts: &'c [C],
    before: Vec<usize>,
}

/// Positions per cumulative-count entry of [`PlainSums`].
const PLAIN_BLOCK: usize = 64;

impl<'c, C: Copy + Into<u64>> PlainSums<'c, C> {
    fn new(reading: &'c BootReading, counts: &'c [C], binning: Binning) -> Self {
        let mut before = Vec::new();
        if binning == Binning::Mass {
            before.reserve(counts.len() / PLAIN_BLOCK + 2);
            let mut total = 0usize;
            before.push(0usize);
            for chunk in counts.chunks(PLAIN_BLOCK) {
                total += chunk.iter().map(|&c| Into::<u64>::into(c)).sum::<u64>() as usize;
                before.push(total);
            }
        }
        PlainSums {
            reading,
            counts,
            before,
        }
    }
}

impl<C: Copy + Into<u64>> SortedSums for PlainSums<'_, C> {
    fn range(&self, lo: usize, hi: usize) -> (u64, f64, u64) {
        range_sums(self.reading, self.counts, lo, hi)
    }

    fn copies(&self, q: usize) -> usize {
        Into::<u64>::into(self.counts[q]) as usize
    }

    fn locate(&self, e: usize, from: (usize, usize)) -> (usize, usize) {
        locate_in(&self.before, PLAIN_BLOCK, self.counts.len(), e, from, |q| {
            self.copies(q)
        })
    }

    fn total(&self) -> usize {
        *self.before.last().unwrap_or(&0)
    }
}

/// [`SortedSums::locate`] from the copies before every `block`-th position: a binary
/// search for the block, then a scan from the block's start or from `from` (the
/// answer for an index `<= e`, hence at or before this one), whichever is later.
fn locate_in(
    before: &[usize],
    block: usize,
    len: usize,
    e: usize,
    from: (usize, usize),
    copies: impl Fn(usize) -> usize,
) -> (usize, usize) {
    let k = before.partition_point(|&c| c <= e) - 1;
    let (mut q, mut ahead) = ((k * block).min(len), before[k]);
    if from.0 > q {
        (q, ahead) = from;
    }
    while q < len && ahead + copies(q) <= e {
        ahead += copies(q);
        q += 1;
    }
    (q, ahead)
}

/// [`Resampled::for_each_bin`] over counts of either width.
fn bins_of<C: Copy + Into<u64>>(
    reading: &BootReading,
    counts: &[C],
    binning: Binning,
    m: usize,
    visit: &mut dyn FnMut(Bin),
) {
    let sums = PlainSums::new(reading, counts, binning);
    walk_bins(reading, &sums, binning, m, visit)
}

/// Calls `visit` with every non-empty bin of `binning` with `m` bins of the resample
/// whose sums `sums` reads: equal-width bins are the sorted reading's own bins
/// (positions with no copy dropped); equal-mass bins cut the resample's `n` rows at
/// the contract's positions, a position's copies split where a cut falls inside them.
fn walk_bins(
    r: &BootReading,
    sums: &impl SortedSums,
    binning: Binning,
    m: usize,
    visit: &mut dyn FnMut(Bin),
) {
    if m == 0 || r.is_empty() {
        return;
    }
    match binning {
        Binning::Width => {
            let mut pos = 0usize;
            r.sorted.for_each_bin(Binning::Width, m, |b| {
                let (count, sum, succ) = sums.range(b.start, b.end);
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
            let n = sums.total();
            let len = r.len();
            let mut start = 0usize;
            let (mut qs, mut cs) = sums.locate(0, (0, 0));
            for b in 0..m {
                let end = mass_bin_start(b + 1, n, m);
                if end == start {
                    continue;
                }
                let (qe, ce) = sums.locate(end, (qs, cs));
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
                    add(qs, cs + sums.copies(qs) - start);
                    if qe < len {
                        add(qe, end - ce);
                    }
                    let (_, s, k) = sums.range(qs + 1, qe);
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

/// Positions per block of a [`BlockIndex`].
pub(super) const INDEX_BLOCK: usize = 256;

/// A replicate's sums per block of [`INDEX_BLOCK`] sorted positions: block `b`'s
/// `(copies, Σ c u, Σ c o)` is [`range_sums`] over positions `b B .. min((b + 1) B, n)`,
/// and `before` the copies before each block.
#[derive(Clone, Debug, Default)]
pub(super) struct Blocks {
    count: Vec<u64>,
    sum: Vec<f64>,
    succ: Vec<u64>,
    /// Copies before each block (`blocks + 1` entries; the last is `n`).
    before: Vec<usize>,
}

impl Blocks {
    /// Room for the blocks of `n` positions (every sum 0 until [`Blocks::set`]).
    pub(super) fn with_len(n: usize) -> Self {
        let blocks = n.div_ceil(INDEX_BLOCK);
        Blocks {
            count: vec![0; blocks],
            sum: vec![0.0; blocks],
            succ: vec![0; blocks],
            before: vec![0; blocks + 1],
        }
    }

    /// The block sums of `counts` (one per sorted position of `r`).
    fn of<C: Copy + Into<u64>>(r: &BootReading, counts: &[C]) -> Self {
        let mut out = Blocks::with_len(counts.len());
        for b in 0..out.count.len() {
            let lo = b * INDEX_BLOCK;
            let hi = (lo + INDEX_BLOCK).min(counts.len());
            out.set(b, range_sums(r, counts, lo, hi));
        }
        out.finish();
        out
    }

    /// Sets block `b`'s sums.
    #[inline]
    pub(super) fn set(&mut self, b: usize, (c, u, o): (u64, f64, u64)) {
        self.count[b] = c;
        self.sum[b] = u;
        self.succ[b] = o;
    }

    /// Fills `before` from the blocks' copies, once every block is set.
    pub(super) fn finish(&mut self) {
        let mut total = 0usize;
        for (b, &c) in self.count.iter().enumerate() {
            total += c as usize;
            self.before[b + 1] = total;
        }
    }
}

/// One replicate's sums per block of [`INDEX_BLOCK`] sorted positions (copies, `Σ c u`,
/// `Σ c o`), made in one pass: the bins of either binning at any bin count are then
/// read from two partial blocks and the whole blocks between them, and `d` from the
/// totals, instead of a pass over all positions per binning (METRICS.md §8.5: the same
/// bins, the same counts; sums in another order, so values may differ from
/// [`Resampled::for_each_bin`] in the last bits).
#[derive(Clone, Debug)]
pub struct BlockIndex<'a> {
    sample: Resampled<'a>,
    /// The bootstrap's block sums of this replicate, or sums taken for it.
    blocks: Cow<'a, Blocks>,
}

impl<'a> BlockIndex<'a> {
    /// Number of rows of the resample (`n`).
    pub fn len(&self) -> usize {
        *self.blocks.before.last().unwrap_or(&0)
    }

    /// True when the resample has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `d = mean(u) - mean(o)` over the resample (block totals); `None` when empty.
    pub fn mean_gap(&self) -> Option<f64> {
        let n = self.len();
        let sum: f64 = self.blocks.sum.iter().sum();
        let succ: u64 = self.blocks.succ.iter().sum();
        (n > 0).then(|| (sum - succ as f64) / n as f64)
    }

    /// Calls `visit` with every non-empty bin of `binning` with `m` bins of the
    /// resample, as [`Resampled::for_each_bin`] (the same bins and counts).
    pub fn for_each_bin(&self, binning: Binning, m: usize, mut visit: impl FnMut(Bin)) {
        walk_bins(self.sample.reading, self, binning, m, &mut visit)
    }

    /// The ECE family of [`BinnedMetrics`] on the resample.
    pub fn binned(&self, binning: Binning, m: usize) -> BinnedMetrics {
        let mut acc = BinnedAccumulator::default();
        self.for_each_bin(binning, m, |b| acc.add(&b));
        acc.finish(self.len())
    }
}

impl SortedSums for BlockIndex<'_> {
    fn range(&self, lo: usize, hi: usize) -> (u64, f64, u64) {
        if lo >= hi {
            return (0, 0.0, 0);
        }
        let (bl, bh) = (lo / INDEX_BLOCK, (hi - 1) / INDEX_BLOCK);
        let part = |a: usize, b: usize| -> (u64, f64, u64) {
            with_counts!(self.sample.counts, c => range_sums(self.sample.reading, c, a, b))
        };
        if bl == bh {
            return part(lo, hi);
        }
        let head = part(lo, (bl + 1) * INDEX_BLOCK);
        let tail = part(bh * INDEX_BLOCK, hi);
        let mid = bl + 1..bh;
        let b = &*self.blocks;
        let count = head.0 + b.count[mid.clone()].iter().sum::<u64>() + tail.0;
        let sum = head.1 + b.sum[mid.clone()].iter().sum::<f64>() + tail.1;
        let succ = head.2 + b.succ[mid].iter().sum::<u64>() + tail.2;
        (count, sum, succ)
    }

    fn copies(&self, q: usize) -> usize {
        with_counts!(self.sample.counts, c => Into::<u64>::into(c[q]) as usize)
    }

    fn locate(&self, e: usize, from: (usize, usize)) -> (usize, usize) {
        let len = self.sample.reading.len();
        locate_in(&self.blocks.before, INDEX_BLOCK, len, e, from, |q| {
            self.copies(q)
        })
    }

    fn total(&self) -> usize {
        self.len()
    }
}
