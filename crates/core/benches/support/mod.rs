//! Data the benches share.

use calibscope_core::synth::{generate, Distribution, Mode};

/// `n` confidence pairs `(c, correct)` of the synthetic generator's Skew High
/// confidences, overconfident by `1 - sqrt(1 - c)`, seeded.
pub fn overconfident_pairs(n: usize, seed: u64) -> (Vec<f64>, Vec<bool>) {
    let s = generate(Distribution::SkewHigh, Mode::OverconfSqrt, n, seed);
    let o = s
        .predicted
        .iter()
        .zip(&s.labels)
        .map(|(a, b)| a == b)
        .collect();
    (s.confidence, o)
}
