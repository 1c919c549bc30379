//! Clopper–Pearson intervals (two Beta quantiles each): the reliability table's
//! cost per non-empty bin, which dominates a slider step at large m.
//!
//! `cargo bench -p calibscope-core --bench special`

use calibscope_core::special::clopper_pearson;
use divan::black_box;

fn main() {
    divan::main();
}

/// 1000 intervals of bins with `n` samples and successes spread over `0..=n`.
#[divan::bench(args = [10, 100, 1000, 100_000])]
fn clopper_pearson_1000_bins(n: u64) -> f64 {
    let mut acc = 0.0;
    for i in 0..1000u64 {
        let s = (i * 7919) % (n + 1);
        let (l, u) = clopper_pearson(black_box(s), black_box(n), 0.05).unwrap();
        acc += l + u;
    }
    acc
}
