//! A bootstrap worker's buffers and its one pass per replicate pair: draw and count
//! the rows of two replicates, then walk every reading's sorted index once, laying
//! out both replicates' counts in sorted order and summing them per block of
//! [`INDEX_BLOCK`] positions ([`Blocks`], the sums [`super::BlockIndex`] reads).
//!
//! Why pairs: after the `n` draws, a replicate's cost is the random increments of
//! its counts, their gather into sorted order (a random read per position) and the
//! pass over the forecasts for its block sums (8 bytes a position, more than the
//! caches hold at 1M rows). Two replicates counted in one byte per row (a nibble
//! each: the same memory as one replicate's byte) share the gather and the pass: one
//! random read gives both counts and each block's forecasts are read once. Each
//! replicate's counts and block sums are exactly those of a replicate counted alone
//! (the same integers, the same [`range_sums`] over the same block), so the values
//! do not depend on the pairing, the thread count or where a slice starts.

use super::resample::{range_sums, Blocks, Resampled, INDEX_BLOCK};
use super::{fill_rows, BootReading};

/// Replicates counted together.
pub(super) const PAIR: usize = 2;

/// One worker's buffers, reused from replicate pair to pair (no allocation per
/// replicate).
pub(super) struct Counter {
    /// Each row's count in the pair's replicates, slot `s` in bits `4s .. 4s + 4` (so
    /// the random increments and the gather touch `n` bytes; a row drawn 16 times or
    /// more in a replicate, about once in 10^14 rows at `n` draws over `n` rows, is
    /// carried in `overflow`, once per 16).
    per_row: Vec<u8>,
    /// `(slot, row)` once per 16 draws of `row` in the pair's replicate `slot`.
    overflow: Vec<(usize, u32)>,
    rows: Vec<u32>,
    /// Per slot, per reading: the counts in sorted order.
    sorted: [Vec<Vec<u8>>; PAIR],
    /// Per slot, per reading: the block sums of `sorted`.
    blocks: [Vec<Blocks>; PAIR],
    /// Per slot: the `u32` counts per reading, only when a row of that replicate was
    /// drawn 16 times or more (empty otherwise).
    wide: [Vec<Vec<u32>>; PAIR],
}

impl Counter {
    pub(super) fn new(n: usize, readings: usize) -> Self {
        let sorted = || (0..readings).map(|_| vec![0u8; n]).collect();
        let blocks = || (0..readings).map(|_| Blocks::with_len(n)).collect();
        Counter {
            per_row: vec![0; n],
            overflow: Vec::new(),
            rows: vec![0; 4096.min(n)],
            sorted: [sorted(), sorted()],
            blocks: [blocks(), blocks()],
            wide: [Vec::new(), Vec::new()],
        }
    }

    /// Counts the draws of replicates `r0 .. r0 + k` (`1 <= k <= PAIR`) and lays them
    /// out in each reading's sorted order with their block sums (the paired draws).
    pub(super) fn count(&mut self, readings: &[&BootReading], seed: u64, r0: usize, k: usize) {
        debug_assert!((1..=PAIR).contains(&k));
        let n = self.per_row.len();
        for slot in 0..k {
            self.draw(seed, r0 + slot, slot, n);
        }
        self.lay_out_all(readings, k);
    }

    /// After the draws of slots `0..k`: the counts in sorted order, their block sums
    /// and, for a slot with an overflow, its `u32` counts; then clears the counts.
    fn lay_out_all(&mut self, readings: &[&BootReading], k: usize) {
        for (i, reading) in readings.iter().enumerate() {
            self.lay_out(reading, i, k);
        }
        for slot in 0..PAIR {
            self.wide[slot].clear();
        }
        let overflow = std::mem::take(&mut self.overflow);
        for slot in 0..k {
            if overflow.iter().any(|&(s, _)| s == slot) {
                self.widen(readings, slot, &overflow);
            }
        }
        self.overflow = overflow;
        self.overflow.clear();
        self.per_row.iter_mut().for_each(|c| *c = 0);
    }

    /// Draws replicate `r` and counts its rows in `per_row[..][slot]`.
    fn draw(&mut self, seed: u64, r: usize, slot: usize, n: usize) {
        let mut j = 0usize;
        while j < n {
            let len = self.rows.len().min(n - j);
            let t0 = (r as u64).wrapping_mul(n as u64).wrapping_add(j as u64);
            fill_rows(seed, t0, n, &mut self.rows[..len]);
            for &row in &self.rows[..len] {
                add(&mut self.per_row, &mut self.overflow, slot, row);
            }
            j += len;
        }
    }

    /// Reading `i`'s counts in sorted order for slots `0..k`, and their block sums,
    /// block by block (the block's counts and forecasts are still in cache when its
    /// sums are taken).
    fn lay_out(&mut self, reading: &BootReading, i: usize, k: usize) {
        let n = reading.len();
        let per_row = &self.per_row;
        let [s0, s1] = &mut self.sorted;
        let (s0, s1) = (&mut s0[i][..], &mut s1[i][..]);
        let mut lo = 0usize;
        while lo < n {
            let hi = (lo + INDEX_BLOCK).min(n);
            let order = &reading.order[lo..hi];
            if k == PAIR {
                for ((a, b), &row) in s0[lo..hi].iter_mut().zip(&mut s1[lo..hi]).zip(order) {
                    let c = per_row[row as usize];
                    (*a, *b) = (c & 0xF, c >> 4);
                }
            } else {
                for (a, &row) in s0[lo..hi].iter_mut().zip(order) {
                    *a = per_row[row as usize] & 0xF;
                }
            }
            let b = lo / INDEX_BLOCK;
            self.blocks[0][i].set(b, range_sums(reading, s0, lo, hi));
            if k == PAIR {
                self.blocks[1][i].set(b, range_sums(reading, s1, lo, hi));
            }
            lo = hi;
        }
        for slot in 0..k {
            self.blocks[slot][i].finish();
        }
    }

    /// The `u32` counts of slot `slot`'s replicate, whose rows in `overflow` were
    /// drawn 16 times more than their nibble says (once per entry).
    fn widen(&mut self, readings: &[&BootReading], slot: usize, overflow: &[(usize, u32)]) {
        for (reading, sorted) in readings.iter().zip(&self.sorted[slot]) {
            let mut wide: Vec<u32> = sorted.iter().map(|&c| c as u32).collect();
            for &(_, row) in overflow.iter().filter(|&&(s, _)| s == slot) {
                let p = reading.order.iter().position(|&i| i == row).expect("a row");
                wide[p] += 16;
            }
            self.wide[slot].push(wide);
        }
    }

    /// Slot `slot`'s replicate just counted, one [`Resampled`] per reading.
    pub(super) fn samples<'a>(
        &'a self,
        readings: &[&'a BootReading],
        slot: usize,
    ) -> Vec<Resampled<'a>> {
        if self.wide[slot].is_empty() {
            readings
                .iter()
                .zip(&self.sorted[slot])
                .zip(&self.blocks[slot])
                .map(|((reading, c), b)| Resampled::narrow(reading, c, b))
                .collect()
        } else {
            readings
                .iter()
                .zip(&self.wide[slot])
                .map(|(reading, c)| Resampled::new(reading, c))
                .collect()
        }
    }
}

/// Counts one draw of `row` in slot `slot` of `per_row`: its nibble plus one, or back
/// to 0 with the 16 carried in `overflow` when it holds 15.
#[inline(always)]
fn add(per_row: &mut [u8], overflow: &mut Vec<(usize, u32)>, slot: usize, row: u32) {
    let shift = 4 * slot as u32;
    let c = &mut per_row[row as usize];
    if (*c >> shift) & 0xF == 0xF {
        overflow.push((slot, row));
        *c &= !(0xF << shift);
    } else {
        *c += 1 << shift;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row drawn 16 times or more in a replicate (which the draws practically never
    /// give): its count carried through `overflow` into the `u32` counts, the other
    /// slot's nibble untouched.
    #[test]
    fn counts_past_a_nibble_are_carried() {
        let u: Vec<f64> = (0..300).map(|i| ((i * 37) % 300) as f64 / 300.0).collect();
        let o: Vec<bool> = (0..300).map(|i| i % 3 == 0).collect();
        let reading = BootReading::new(&u, &o);
        let mut counter = Counter::new(300, 1);
        let mut want = [vec![0u32; 300], vec![0u32; 300]];
        for (slot, row, times) in [(0usize, 5u32, 40u32), (1, 5, 3), (1, 7, 16), (0, 9, 15)] {
            for _ in 0..times {
                add(&mut counter.per_row, &mut counter.overflow, slot, row);
            }
            let p = (0..300)
                .position(|p| reading.row_at(p) == row as usize)
                .unwrap();
            want[slot][p] += times;
        }
        counter.lay_out_all(&[&reading], PAIR);
        for (slot, want) in want.iter().enumerate() {
            let samples = counter.samples(&[&reading], slot);
            let got: Vec<u32> = (0..300).map(|p| samples[0].count_at(p) as u32).collect();
            assert_eq!(&got, want, "slot {slot}");
            let total = want.iter().sum::<u32>() as usize;
            assert_eq!(
                (samples[0].len(), samples[0].block_index().len()),
                (total, total)
            );
        }
        assert!(counter.per_row.iter().all(|&c| c == 0));
    }
}
