//! Equal-width bins at many bin counts: one bin count through a [`WidthGrid`] in
//! O(m), or every bin count `1..=M` at once in one forward pass over the sorted
//! forecasts ([`WidthEdges`], [`fold_all_counts`]).
//!
//! Both give exactly the bins of [`SortedReading::for_each_bin`] with
//! [`Binning::Width`] (same bins, same order, so sums over them are bit for bit the
//! same); the unit tests check it on forecasts on, around and inside the tolerance
//! band of bin edges.

use crate::binning::{
    width_bin_at_most, width_edge_test_applies, Bin, BinSource, Binning, SortedReading,
    EDGE_TOLERANCE,
};

/// A sorted reading's equal-width bins for any bin count in O(m): a uniform grid of
/// `G` cells over `[0, 1]` holds the first sorted position of each cell, so the
/// position where bin `b` ends is found between the cells around `(b + 1) / m` (a
/// few forecasts at most) instead of by a binary search over all `n`.
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
    ///
    /// Each bin's end is found from its edge alone (the cells around `(b + 1) / m`),
    /// not from the previous bin's end, so the loads of consecutive bins overlap
    /// instead of forming a chain of cache misses; the search inside the cells uses
    /// [`width_bin_at_most`], which needs no rounding calls.
    pub fn for_each_bin(&self, reading: &SortedReading, m: usize, mut visit: impl FnMut(Bin)) {
        let sorted = reading.sorted_forecasts();
        let n = sorted.len();
        if m == 0 || n == 0 {
            return;
        }
        if !width_edge_test_applies(m) {
            return reading.for_each_bin(Binning::Width, m, visit);
        }
        let cells = self.starts.len() - 1;
        // (b + 1) * cells = q * m + r, kept without dividing per bin
        let (step_q, step_r) = (cells / m, cells % m);
        let (mut q, mut r) = (0usize, 0usize);
        let mut start = 0;
        for b in 0..m {
            let end = if b + 1 == m {
                n
            } else {
                q += step_q;
                r += step_r;
                if r >= m {
                    q += 1;
                    r -= m;
                }
                // the edge (b + 1) / m lies in cell q (or on its start when r = 0);
                // one more cell either side is wider than the edge tolerance
                let lo = self.starts[q.saturating_sub(1)] as usize;
                let hi = self.starts[(q + 1 + (r > 0) as usize).min(cells)] as usize;
                lo + sorted[lo..hi].partition_point(|&u| width_bin_at_most(u, m, b))
            };
            if end > start {
                visit(reading.bin(b, start, end));
                start = end;
            }
        }
    }
}

/// A sorted reading with its [`WidthGrid`]: a [`BinSource`] for any bin count whose
/// equal-width bins are found in O(m) through the grid (equal-mass bins need no
/// search). The same bins, in the same order, as the reading alone; what it saves is
/// the reading's chain of dependent probes per bin (a slider step at m = 2000 over
/// 1M forecasts: ~1 ms natively with cold caches, ~0.16 ms through the grid).
#[derive(Clone, Debug)]
pub struct GriddedReading {
    reading: SortedReading,
    grid: WidthGrid,
}

impl GriddedReading {
    /// Builds the grid of `reading` (one pass over its forecasts).
    pub fn new(reading: SortedReading) -> Self {
        let grid = WidthGrid::new(&reading);
        GriddedReading { reading, grid }
    }

    /// The sorted reading.
    pub fn reading(&self) -> &SortedReading {
        &self.reading
    }

    /// Calls `visit` for every non-empty bin of `binning` with `m` bins, in bin order
    /// (those of [`SortedReading::for_each_bin`]).
    pub fn for_each_bin(&self, binning: Binning, m: usize, visit: impl FnMut(Bin)) {
        match binning {
            Binning::Mass => self.reading.for_each_bin(binning, m, visit),
            Binning::Width => self.grid.for_each_bin(&self.reading, m, visit),
        }
    }
}

impl BinSource for GriddedReading {
    fn samples(&self) -> usize {
        self.reading.len()
    }
    fn visit_bins(&self, binning: Binning, m: usize, visit: &mut dyn FnMut(Bin)) {
        self.for_each_bin(binning, m, visit)
    }
    fn forecast_range(&self, bin: &Bin) -> (f64, f64) {
        self.reading.forecast_range(bin)
    }
}

/// The interior bin edges of every bin count `1..=M`, in increasing order: the Farey
/// sequence of order `M` between 0 and 1 (exclusive), each fraction `a / c` in
/// lowest terms standing for the edges `j a / (j c)` of the bin counts `m = j c`.
/// About `0.3 M²` fractions (1.2 M for `M = 2000`) for `M² / 2` edges.
#[derive(Clone, Debug)]
pub struct WidthEdges {
    max_m: usize,
    /// `(a, c)` with `0 < a < c <= M`, `gcd(a, c) = 1`, increasing `a / c`.
    fractions: Vec<(u32, u32)>,
}

impl WidthEdges {
    /// The edges of the bin counts `1..=max_m` (`max_m < 5e6`, where
    /// [`width_bin_at_most`] holds; larger counts are clamped there).
    pub fn new(max_m: usize) -> Self {
        let max_m = max_m.min(4_999_999);
        let mut fractions = Vec::new();
        if max_m >= 2 {
            // the successor of a/b, c/d in the Farey sequence: k = (M + b) / d,
            // (k c - a) / (k d - b)
            let big = max_m as u64;
            let (mut a, mut b, mut c, mut d) = (0u64, 1u64, 1u64, big);
            while c < d {
                fractions.push((c as u32, d as u32));
                let k = (big + b) / d;
                (a, b, c, d) = (c, d, k * c - a, k * d - b);
            }
        }
        WidthEdges { max_m, fractions }
    }

    /// The largest bin count.
    pub fn max_m(&self) -> usize {
        self.max_m
    }
}

/// Folds the non-empty equal-width bins of `reading` for every bin count
/// `m = 1..=edges.max_m()` into one accumulator per count, each count's bins in bin
/// order (so `result[m - 1]` is what folding `reading.for_each_bin(Width, m, …)`
/// gives, bit for bit).
///
/// One forward pass over the edges in increasing order: two pointers move through
/// the sorted forecasts (the first forecast within 4e-7 below an edge, the first
/// beyond 4e-7 above it; only forecasts between them can fall on either side of the
/// edge, decided by the exact test [`width_bin_at_most`] for each count), and each
/// count keeps the start of its open bin. The prefix sums are read in increasing
/// position, so the pass streams through memory instead of jumping.
/// Empty reading: every accumulator stays at its default.
pub fn fold_all_counts<A: Default + Clone>(
    reading: &SortedReading,
    edges: &WidthEdges,
    mut add: impl FnMut(&mut A, Bin),
) -> Vec<A> {
    let max_m = edges.max_m;
    let mut acc = vec![A::default(); max_m];
    let sorted = reading.sorted_forecasts();
    let n = sorted.len();
    if n == 0 {
        return acc;
    }
    // open[m]: the first position of the bin count m's open bin
    let mut open = vec![0u32; max_m + 1];
    const MARGIN: f64 = 4.0 * EDGE_TOLERANCE;
    let (mut below, mut beyond) = (0usize, 0usize);
    for &(a, c) in &edges.fractions {
        let (a, c) = (a as usize, c as usize);
        let edge = a as f64 / c as f64;
        while below < n && sorted[below] < edge - MARGIN {
            below += 1;
        }
        beyond = beyond.max(below);
        while beyond < n && sorted[beyond] <= edge + MARGIN {
            beyond += 1;
        }
        let band = &sorted[below..beyond];
        for j in 1..=max_m / c {
            let (m, b) = (j * c, j * a - 1);
            let end = if band.is_empty() {
                below
            } else {
                below + band.partition_point(|&u| width_bin_at_most(u, m, b))
            };
            let start = open[m] as usize;
            if end > start {
                add(&mut acc[m - 1], reading.bin(b, start, end));
                open[m] = end as u32;
            }
        }
    }
    // the last bin of every count ends at n
    for m in 1..=max_m {
        let start = open[m] as usize;
        if n > start {
            add(&mut acc[m - 1], reading.bin(m - 1, start, n));
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reading::Pairs;

    /// The rounding-free edge test is `width_bin(u, m) <= b` on, one ulp around and
    /// just inside or outside the tolerance band of every edge, for m up to 5000.
    #[test]
    fn edge_test_equals_width_bin() {
        use crate::binning::width_bin;
        let mut checked = 0u64;
        for m in (1..=300).chain([997, 1000, 1999, 2000, 4999, 5000]) {
            assert!(width_edge_test_applies(m));
            let tol = EDGE_TOLERANCE; // in u: the band is 1e-7 m in u m
            for edge in 1..m {
                let e = edge as f64 / m as f64;
                let mut near = vec![e, e.next_up(), e.next_down()];
                for d in [tol, tol * 0.999_999, tol * 1.000_001, 0.5 / m as f64] {
                    for v in [e - d, e + d] {
                        near.extend([v, v.next_up(), v.next_down()]);
                    }
                }
                for u in near {
                    let u = u.clamp(0.0, 1.0);
                    for b in edge.saturating_sub(2)..(edge + 2).min(m - 1) {
                        assert_eq!(
                            width_bin_at_most(u, m, b),
                            width_bin(u, m) <= b,
                            "u = {u:e}, m = {m}, b = {b}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1_000_000, "{checked}");
        assert!(!width_edge_test_applies(5_000_000));
    }

    /// Forecasts on and a hair off the edges (the 1e-7 tolerance), at 0 and 1, in a
    /// narrow cluster, and random; random outcomes.
    fn edge_heavy_reading(n: usize, seed: u64) -> SortedReading {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
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
        SortedReading::new(&Pairs { forecast, outcome })
    }

    /// The equal-width bins of `reading` by `width_bin` of each forecast: the runs of
    /// equal bin numbers along the sorted forecasts.
    fn naive_width_bins(reading: &SortedReading, m: usize) -> Vec<Bin> {
        use crate::binning::width_bin;
        let u = reading.sorted_forecasts();
        let mut bins = Vec::new();
        let mut start = 0;
        for i in 1..=u.len() {
            if i == u.len() || width_bin(u[i], m) != width_bin(u[start], m) {
                bins.push(reading.bin(width_bin(u[start], m), start, i));
                start = i;
            }
        }
        bins
    }

    /// The grid's equal-width bins, the reading's own and the gridded reading's are
    /// those of `width_bin` per forecast, bin for bin.
    #[test]
    fn width_grid_bins_equal_the_readings() {
        for n in [1usize, 2, 17, 300, 5000] {
            let reading = edge_heavy_reading(n, 7);
            let grid = WidthGrid::new(&reading);
            let gridded = GriddedReading::new(reading.clone());
            for m in (1..=120).chain([7 * 40, 999, 2000, 2 * n + 1]) {
                let want = naive_width_bins(&reading, m);
                assert_eq!(reading.bins(Binning::Width, m), want, "n = {n}, m = {m}");
                let mut got = Vec::new();
                grid.for_each_bin(&reading, m, |b| got.push(b));
                assert_eq!(got, want, "n = {n}, m = {m}");
                assert_eq!(
                    gridded.bin_list(Binning::Width, m),
                    want,
                    "n = {n}, m = {m}"
                );
                assert_eq!(
                    gridded.bin_list(Binning::Mass, m),
                    reading.bins(Binning::Mass, m)
                );
            }
        }
    }

    /// The one-pass fold over every count gives each count's bins, bin for bin.
    #[test]
    fn fold_all_counts_equals_each_count() {
        for (n, max_m) in [
            (0usize, 5usize),
            (1, 1),
            (2, 3),
            (17, 40),
            (300, 700),
            (5000, 420),
        ] {
            let reading = edge_heavy_reading(n, 11 + n as u64);
            let edges = WidthEdges::new(max_m);
            let folded = fold_all_counts(&reading, &edges, |bins: &mut Vec<Bin>, b| bins.push(b));
            assert_eq!(folded.len(), max_m);
            for m in 1..=max_m {
                assert_eq!(
                    folded[m - 1],
                    reading.bins(Binning::Width, m),
                    "n = {n}, m = {m}"
                );
            }
        }
    }

    /// The edges are the Farey sequence: increasing, in lowest terms, and as many as
    /// `Σ_{c=2..M} φ(c)`.
    #[test]
    fn edges_are_the_farey_sequence() {
        fn gcd(a: u32, b: u32) -> u32 {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        for max_m in [0usize, 1, 2, 3, 10, 97, 500] {
            let edges = WidthEdges::new(max_m);
            let f = &edges.fractions;
            assert!(f
                .windows(2)
                .all(|w| (w[0].0 as u64) * (w[1].1 as u64) < (w[1].0 as u64) * (w[0].1 as u64)));
            assert!(f
                .iter()
                .all(|&(a, c)| a > 0 && a < c && c as usize <= max_m && gcd(a, c) == 1));
            let phi_sum: usize = (2..=max_m as u32)
                .map(|c| (1..c).filter(|&a| gcd(a, c) == 1).count())
                .sum();
            assert_eq!(f.len(), phi_sum, "M = {max_m}");
        }
    }
}
