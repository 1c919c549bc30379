//! The sparse index of a reading: the bin counts an audit asks ([`BinPlan`]) and the
//! prefix sums kept only where one of their bins starts ([`SparseReading`], built in
//! one sorted pass by [`SparseBuilder`]).

use super::*;

/// The bin counts an audit asks of one reading, turned into the sorted positions
/// and forecast thresholds where some bin of either binning starts, so one pass
/// over the sorted reading ([`SparseBuilder`]) can keep the prefix sums at those
/// positions only, instead of all `n + 1` of a [`SortedReading`].
#[derive(Clone, Debug, PartialEq)]
pub struct BinPlan {
    n: usize,
    /// The bin counts covered, ascending, without 0.
    ms: Vec<usize>,
    /// Sorted positions where an equal-mass bin starts: 0 first (so the first
    /// forecast is recorded), then the bin starts in `1..n`, ascending, deduplicated.
    mass_starts: Vec<usize>,
    /// Ascending, deduplicated: the smallest forecast of every equal-width bin
    /// `b >= 1` ([`width_threshold`]); a forecast at or above one starts a new run.
    thresholds: Vec<f64>,
}

/// The smallest `u >= 0` with `width_bin(u, m) >= b`, for `1 <= b < m`: a binary
/// search over the bit patterns of `[0, 1]` (ordered like the values). `width_bin`
/// is monotone, so a sorted reading's equal-width bin changes exactly where a
/// forecast first reaches one of these thresholds.
pub fn width_threshold(m: usize, b: usize) -> f64 {
    debug_assert!(1 <= b && b < m);
    // width_bin(0, m) = 0 < b and width_bin(1, m) = m - 1 >= b
    let (mut lo, mut hi) = (0u64, 1.0f64.to_bits());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if width_bin(f64::from_bits(mid), m) >= b {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    f64::from_bits(hi)
}

impl BinPlan {
    /// The plan for `ms` bin counts (both binnings) over `n` sorted forecasts in
    /// `[0, 1]`.
    pub fn new(n: usize, ms: &[usize]) -> Self {
        let mut ms: Vec<usize> = ms.iter().copied().filter(|&m| m > 0).collect();
        ms.sort_unstable();
        ms.dedup();
        let mut mass_starts = vec![0];
        let mut thresholds = Vec::new();
        for &m in &ms {
            for_each_mass_bin(n, m, |_, start, _| mass_starts.push(start));
            thresholds.extend((1..m).map(|b| width_threshold(m, b)));
        }
        mass_starts.sort_unstable();
        mass_starts.dedup();
        thresholds.sort_by(f64::total_cmp);
        thresholds.dedup();
        BinPlan {
            n,
            ms,
            mass_starts,
            thresholds,
        }
    }

    /// Number of samples planned for.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Whether `m` bins of either binning can be answered.
    pub fn covers(&self, m: usize) -> bool {
        m == 0 || self.ms.binary_search(&m).is_ok()
    }

    /// `Σ m` over the planned bin counts: the size of the plan (a [`SparseReading`]
    /// answers a width binning in time proportional to it).
    pub fn size(&self) -> usize {
        self.ms.iter().sum()
    }
}

/// A sorted reading's prefix sums at the bin starts of a [`BinPlan`] only: answers
/// the planned bin counts exactly like a [`SortedReading`] (same prefix sums, same
/// bins, bit for bit) in O(Σ m) memory instead of 24 bytes per sample.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseReading {
    n: usize,
    ms: Vec<usize>,
    /// Recorded positions in `1..n`, ascending: every bin start of the plan.
    positions: Vec<usize>,
    /// Per recorded position: the prefix up to it, the forecast before it and at it.
    marks: Vec<(Prefix, f64, f64)>,
    /// The prefix over all samples.
    total: Prefix,
    first: f64,
    last: f64,
}

impl SparseReading {
    /// The prefix up to sorted position `pos`, which must be 0, `n` or recorded.
    #[inline]
    fn prefix(&self, pos: usize) -> Prefix {
        if pos == 0 {
            Prefix::default()
        } else if pos == self.n {
            self.total
        } else {
            self.marks[self.mark(pos)].0
        }
    }

    #[inline]
    fn mark(&self, pos: usize) -> usize {
        self.positions
            .binary_search(&pos)
            .expect("SparseReading: position outside the plan")
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when the reading has no samples.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Calls `visit` for every non-empty bin of `binning` with `m` bins (a bin count
    /// of the plan), in bin order; the same bins as [`SortedReading::for_each_bin`].
    pub fn for_each_bin(&self, binning: Binning, m: usize, mut visit: impl FnMut(Bin)) {
        let n = self.n;
        if m == 0 || n == 0 {
            return;
        }
        assert!(
            self.ms.binary_search(&m).is_ok(),
            "SparseReading: m = {m} is not in the plan"
        );
        match binning {
            Binning::Mass => for_each_mass_bin(n, m, |b, start, end| {
                visit(self.prefix(start).bin_to(self.prefix(end), b, start, end))
            }),
            Binning::Width => {
                // the recorded positions cut the reading into runs inside which no
                // forecast crosses a threshold: each run lies in one bin; a bin is a
                // maximal sequence of runs with the same bin number.
                let (mut start, mut start_prefix) = (0, Prefix::default());
                let mut b = width_bin(self.first, m);
                for (&pos, &(prefix, _, at)) in self.positions.iter().zip(&self.marks) {
                    let next = width_bin(at, m);
                    if next != b {
                        visit(start_prefix.bin_to(prefix, b, start, pos));
                        (start, start_prefix, b) = (pos, prefix, next);
                    }
                }
                visit(start_prefix.bin_to(self.total, b, start, n));
            }
        }
    }

    /// The binned metrics of the ECE family at `m` bins (a bin count of the plan).
    pub fn metrics(&self, binning: Binning, m: usize) -> BinnedMetrics {
        let mut acc = BinnedAccumulator::default();
        self.for_each_bin(binning, m, |b| acc.add(&b));
        acc.finish(self.n)
    }
}

impl BinSource for SparseReading {
    fn samples(&self) -> usize {
        self.n
    }
    fn visit_bins(&self, binning: Binning, m: usize, visit: &mut dyn FnMut(Bin)) {
        self.for_each_bin(binning, m, visit)
    }
    fn forecast_range(&self, bin: &Bin) -> (f64, f64) {
        let lowest = if bin.start == 0 {
            self.first
        } else {
            self.marks[self.mark(bin.start)].2
        };
        let highest = if bin.end == self.n {
            self.last
        } else {
            self.marks[self.mark(bin.end)].1
        };
        (lowest, highest)
    }
}

/// Builds a [`SparseReading`] in one pass over a reading in sorted order (forecasts
/// ascending, ties by sample index): [`SparseBuilder::push`] each `(u, o)`.
#[derive(Clone, Debug)]
pub struct SparseBuilder<'p> {
    plan: &'p BinPlan,
    j: usize,
    acc: Sum,
    successes: u32,
    /// Index of the next planned mass start, and its position (`usize::MAX` when none).
    next_start: usize,
    start_at: usize,
    /// Index of the next threshold, and its value (`+∞` when none).
    next_threshold: usize,
    threshold: f64,
    last: f64,
    out: SparseReading,
}

impl<'p> SparseBuilder<'p> {
    /// A builder for `plan.n()` samples.
    pub fn new(plan: &'p BinPlan) -> Self {
        let mut b = SparseBuilder {
            plan,
            j: 0,
            acc: Sum::new(),
            successes: 0,
            next_start: 0,
            start_at: 0,
            next_threshold: 0,
            threshold: f64::INFINITY,
            last: f64::NAN,
            out: SparseReading {
                n: plan.n,
                ms: plan.ms.clone(),
                positions: Vec::new(),
                marks: Vec::new(),
                total: Prefix::default(),
                first: f64::NAN,
                last: f64::NAN,
            },
        };
        b.start_at = plan.mass_starts.first().copied().unwrap_or(usize::MAX);
        b.threshold = plan.thresholds.first().copied().unwrap_or(f64::INFINITY);
        b
    }

    /// Adds the next forecast in sorted order and its outcome.
    #[inline(always)]
    pub fn push(&mut self, u: f64, o: bool) {
        if self.j == self.start_at || u >= self.threshold {
            self.mark(u);
        }
        self.acc.add(u);
        self.successes += o as u32;
        self.last = u;
        self.j += 1;
    }

    #[cold]
    #[inline(never)]
    fn mark(&mut self, u: f64) {
        let j = self.j;
        let plan = self.plan;
        while self.start_at <= j {
            self.next_start += 1;
            self.start_at = plan
                .mass_starts
                .get(self.next_start)
                .copied()
                .unwrap_or(usize::MAX);
        }
        while u >= self.threshold {
            self.next_threshold += 1;
            self.threshold = plan
                .thresholds
                .get(self.next_threshold)
                .copied()
                .unwrap_or(f64::INFINITY);
        }
        if j == 0 {
            self.out.first = u;
        } else {
            self.out.positions.push(j);
            self.out
                .marks
                .push((Prefix::of(&self.acc, self.successes), self.last, u));
        }
    }

    /// The index; `plan.n()` forecasts must have been pushed.
    pub fn finish(mut self) -> SparseReading {
        assert_eq!(
            self.j, self.plan.n,
            "SparseBuilder: wrong number of samples"
        );
        self.out.total = Prefix::of(&self.acc, self.successes);
        self.out.last = self.last;
        self.out
    }
}
