//! The deterministic stratified calibration/evaluation split of METRICS.md §6, and the
//! SplitMix64 generator that drives it (and the synthetic generators, [`crate::synth`]).
//!
//! Both are frozen: shared audits depend on reproducing the same split from the same
//! labels, seed and fraction (`/work/shared/fixtures/vectors/splitmix64.json`).

/// The SplitMix64 generator (Steele, Lea & Flood 2014; Vigna's reference code):
/// `state += 0x9E3779B97F4A7C15; z = state; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
/// z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31)` (wrapping arithmetic).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose state is `seed` (every `u64` is a valid seed, 0 included).
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next output: `mix(state += 0x9E3779B97F4A7C15)` (see the type's docs).
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform double in `[0, 1)` from the top 53 bits: `(next_u64() >> 11) * 2^-53`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// A calibration/evaluation split: sample indices, each list ascending.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Split {
    /// Indices of the calibration split (fitting), ascending.
    pub calibration: Vec<usize>,
    /// Indices of the evaluation split (every "after" number), ascending.
    pub evaluation: Vec<usize>,
}

/// The stratified split of METRICS.md §6. One [`SplitMix64`] seeded with `seed`
/// continues across classes; for each class `r` in ascending order, its indices
/// `idx` (in original order, `len` of them) are shuffled by Fisher–Yates: for `i` from
/// `len - 1` down to 1, `j = next_u64() % (i + 1)`, swap `idx[i]`, `idx[j]`. The first
/// `floor(len * fraction)` (computed in f64) shuffled indices go to calibration, the
/// rest to evaluation; both outputs are sorted ascending (original order).
///
/// Edge cases: empty `labels` gives two empty lists; a class with 0 or 1 samples draws
/// no random number (a singleton goes to evaluation unless `fraction >= 1`); labels
/// `>= k` are not dropped: the classes visited are `0..max(k, max label + 1)`, so every
/// index lands in exactly one list; `floor(len * fraction)` is clamped to `0..=len`
/// (a NaN or negative `fraction` sends everything to evaluation, `fraction >= 1`
/// everything to calibration). `k` itself never changes the result otherwise (empty
/// classes draw nothing).
pub fn stratified_split(labels: &[u32], k: usize, seed: u64, fraction: f64) -> Split {
    let n_classes = labels
        .iter()
        .map(|&y| y as usize + 1)
        .max()
        .unwrap_or(0)
        .max(k);
    // Counting sort of the indices by class, stable (original order inside a class).
    let mut start = vec![0usize; n_classes + 1];
    for &y in labels {
        start[y as usize + 1] += 1;
    }
    for r in 0..n_classes {
        start[r + 1] += start[r];
    }
    let mut by_class = vec![0usize; labels.len()];
    let mut fill = start.clone();
    for (i, &y) in labels.iter().enumerate() {
        by_class[fill[y as usize]] = i;
        fill[y as usize] += 1;
    }

    let mut rng = SplitMix64::new(seed);
    let mut in_calibration = vec![false; labels.len()];
    for r in 0..n_classes {
        let idx = &mut by_class[start[r]..start[r + 1]];
        let len = idx.len();
        for i in (1..len).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            idx.swap(i, j);
        }
        let take = calibration_count(len, fraction);
        for &i in &idx[..take] {
            in_calibration[i] = true;
        }
    }
    let mut split = Split::default();
    for (i, &cal) in in_calibration.iter().enumerate() {
        if cal {
            split.calibration.push(i);
        } else {
            split.evaluation.push(i);
        }
    }
    split
}

/// `floor(len * fraction)` in f64, clamped to `0..=len` (NaN gives 0).
fn calibration_count(len: usize, fraction: f64) -> usize {
    let m = (len as f64 * fraction).floor();
    if m >= len as f64 {
        len
    } else if m > 0.0 {
        m as usize
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_seed_0() {
        // Vigna's splitmix64.c, seed 0.
        let mut g = SplitMix64::new(0);
        assert_eq!(g.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(g.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn uniform_is_in_unit_interval() {
        let mut g = SplitMix64::new(1);
        for _ in 0..1000 {
            let u = g.next_f64();
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(stratified_split(&[], 2, 0, 0.5), Split::default());
        let s = stratified_split(&[0, 0, 1], 2, 0, f64::NAN);
        assert_eq!(s.calibration, Vec::<usize>::new());
        let s = stratified_split(&[0, 0, 1], 2, 0, 2.0);
        assert_eq!(s.calibration, vec![0, 1, 2]);
        // label >= k is kept
        let s = stratified_split(&[0, 5, 5, 5], 2, 0, 0.5);
        assert_eq!(s.calibration.len() + s.evaluation.len(), 4);
        assert_eq!(s.calibration.len(), 1);
    }
}
