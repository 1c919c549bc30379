//! The stable radix sort behind every sorted reading.
//!
//! Items are `u64`s with a 32-bit sort key in the high half and a 32-bit payload (a
//! sample index, possibly with a flag bit) in the low half. An LSD radix sort on the
//! key (10-bit digits, one histogram pass for all of them, digits that put every
//! item in one bucket skipped: keys of forecasts in `[0, 1]` have a constant top
//! digit, so three passes) keeps equal keys in input order, so items built in
//! sample order come out with ties by index. The scratch buffer lives in a
//! [`RadixSorter`] so repeated sorts (one per class) reuse it.
//!
//! The key of a forecast is its value rounded to `f32` ([`order_key`]): rounding is
//! monotone, so the sort is exact except that scores closer than an `f32` ulp share a
//! key; [`for_each_key_run`] visits those runs so callers re-order them by the exact
//! value.

/// Bits per digit (1024 buckets: faster than 2048 at a million items, measured).
const DIGIT: u32 = 10;
/// Digits of a 32-bit key.
const DIGITS: usize = 4;
/// Buckets per digit.
const BUCKETS: usize = 1 << DIGIT;
/// Below this many items a comparison sort is faster than three histograms.
const SMALL: usize = 512;

/// Items per call of a pass's loop. In a browser a WebAssembly function runs in
/// V8's baseline tier until its next call (the optimised code replaces no running
/// call), so one call over all the items of a 4.75M-row reading ran its first sort
/// at ~60 % of the speed of the next one; in parts, the parts after the first few
/// run optimised. Natively the extra calls cost nothing measurable.
const CALL_ITEMS: usize = 1 << 16;

/// A sortable key for a finite score: the bit pattern of `u` rounded to `f32`, made
/// monotone, `-0.0` folded onto `+0.0`.
#[inline(always)]
pub fn order_key(u: f64) -> u32 {
    let bits = ((u as f32) + 0.0).to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | (1 << 31)
    }
}

/// An item: `key` in the high half, `payload` in the low half.
#[inline(always)]
pub fn item(key: u32, payload: u32) -> u64 {
    ((key as u64) << 32) | payload as u64
}

/// The key of an item.
#[inline(always)]
pub fn key_of(item: u64) -> u32 {
    (item >> 32) as u32
}

/// The payload of an item.
#[inline(always)]
pub fn payload_of(item: u64) -> u32 {
    item as u32
}

/// A stable LSD radix sort of items by key, with a reusable scratch buffer.
#[derive(Clone, Debug, Default)]
pub struct RadixSorter {
    scratch: Vec<u64>,
}

impl RadixSorter {
    /// A sorter with no scratch allocated yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sorts `items` by their keys (the high 32 bits), stably.
    pub fn sort(&mut self, items: &mut Vec<u64>) {
        let n = items.len();
        if n < SMALL {
            items.sort_by_key(|&x| key_of(x));
            return;
        }
        let mut hist = vec![[0u32; BUCKETS]; DIGITS];
        for part in items.chunks(CALL_ITEMS) {
            count_digits(part, &mut hist);
        }
        if self.scratch.len() < n {
            self.scratch.resize(n, 0);
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.truncate(n);
        let mut in_items = true;
        for (pass, counts) in hist.iter().enumerate() {
            if counts.iter().any(|&c| c as usize == n) {
                continue; // every item has the same digit: the pass would copy
            }
            let mut offsets = [0u32; BUCKETS];
            let mut total = 0u32;
            for (o, &c) in offsets.iter_mut().zip(counts) {
                *o = total;
                total += c;
            }
            let shift = 32 + pass as u32 * DIGIT;
            let (src, dst) = if in_items {
                (&items[..], &mut scratch[..])
            } else {
                (&scratch[..], &mut items[..])
            };
            debug_assert_eq!(src.len(), dst.len());
            for part in src.chunks(CALL_ITEMS) {
                scatter(part, dst, &mut offsets, shift);
            }
            in_items = !in_items;
        }
        if !in_items {
            std::mem::swap(items, &mut scratch);
        }
        self.scratch = scratch;
    }
}

/// Adds the digits of `items` to the histograms of the four digits.
#[inline(never)]
fn count_digits(items: &[u64], hist: &mut [[u32; BUCKETS]]) {
    for &x in items {
        let k = key_of(x) as usize;
        hist[0][k & (BUCKETS - 1)] += 1;
        hist[1][(k >> DIGIT) & (BUCKETS - 1)] += 1;
        hist[2][(k >> (2 * DIGIT)) & (BUCKETS - 1)] += 1;
        hist[3][k >> (3 * DIGIT)] += 1;
    }
}

/// Moves each item of `src` (a part of the pass's input) to its digit's next
/// position in `dst`.
#[inline(never)]
fn scatter(src: &[u64], dst: &mut [u64], offsets: &mut [u32; BUCKETS], shift: u32) {
    for &x in src {
        let d = ((x >> shift) as usize) & (BUCKETS - 1);
        let o = offsets[d] as usize;
        // `o < dst.len()`: the offsets are the prefix sums of this digit's histogram
        dst[o] = x;
        offsets[d] += 1;
    }
}

/// Visits every run of two or more items sharing a key: `fix(run)`, in order, so
/// the caller can re-order the run by the exact scores.
#[inline]
pub fn for_each_key_run(items: &mut [u64], mut fix: impl FnMut(&mut [u64])) {
    let n = items.len();
    let mut start = 0;
    while start < n {
        let key = key_of(items[start]);
        let mut end = start + 1;
        while end < n && key_of(items[end]) == key {
            end += 1;
        }
        if end - start > 1 {
            fix(&mut items[start..end]);
        }
        start = end;
    }
}

/// Re-orders a run of equal-key items by `(exact score, index)`, where `index` and
/// `score` read an item's payload; a run already in that order (exact ties, the
/// common case) is left alone.
#[inline]
pub fn fix_run(run: &mut [u64], index: impl Fn(u32) -> u32, score: impl Fn(u32) -> f64) {
    let exact = |a: &u64, b: &u64| {
        let (pa, pb) = (payload_of(*a), payload_of(*b));
        (score(pa) + 0.0)
            .total_cmp(&(score(pb) + 0.0))
            .then(index(pa).cmp(&index(pb)))
    };
    if !run.windows(2).all(|w| exact(&w[0], &w[1]).is_le()) {
        run.sort_unstable_by(exact);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_by_key() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        for &n in &[0usize, 1, 5, 511, 512, 3000, 70_000] {
            for spread in [3u32, 1 << 12, u32::MAX] {
                let items: Vec<u64> = (0..n as u32)
                    .map(|i| item(next() % spread.max(1), i))
                    .collect();
                let mut expected = items.clone();
                expected.sort_by_key(|&x| key_of(x));
                let mut got = items.clone();
                RadixSorter::new().sort(&mut got);
                assert_eq!(got, expected, "n = {n}, spread = {spread}");
            }
        }
    }

    #[test]
    fn keys_are_monotone() {
        let xs = [-1.0, -1e-30, -0.0, 0.0, 1e-45, 1e-30, 0.25, 0.5, 1.0, 3.0];
        for w in xs.windows(2) {
            assert!(order_key(w[0]) <= order_key(w[1]), "{w:?}");
        }
        assert_eq!(order_key(-0.0), order_key(0.0));
    }
}
