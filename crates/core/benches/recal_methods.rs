//! The added recalibration methods at scale: fit on 1M binary calibration rows and
//! predict 1M evaluation rows (beta calibration, histogram binning with 15 bins,
//! inductive Venn–Abers with its interval for every evaluation row).
//!
//! `cargo bench -p calibscope-core --bench recal_methods`

use calibscope_core::recal::beta::fit_beta;
use calibscope_core::recal::histogram::fit_histogram;
use calibscope_core::recal::venn_abers::fit_venn_abers;
use divan::{black_box, Bencher};

fn main() {
    divan::main();
}

mod support;

/// Forecasts of the positive class (Skew High, overconfident) and outcomes.
fn data(n: usize, seed: u64) -> (Vec<f64>, Vec<bool>) {
    support::overconfident_pairs(n, seed)
}

#[divan::bench(sample_count = 5)]
fn beta_fit_and_predict_1m(bencher: Bencher) {
    let (s, y) = data(1_000_000, 1);
    let (q, _) = data(1_000_000, 2);
    bencher.bench(|| {
        let fit = fit_beta(black_box(&s), black_box(&y)).unwrap();
        q.iter().map(|&x| fit.predict(x)).sum::<f64>()
    });
}

#[divan::bench(sample_count = 5)]
fn histogram_fit_and_predict_1m(bencher: Bencher) {
    let (s, y) = data(1_000_000, 1);
    let (q, _) = data(1_000_000, 2);
    bencher.bench(|| {
        let fit = fit_histogram(black_box(&s), black_box(&y), 15).unwrap();
        q.iter().map(|&x| fit.predict(x)).sum::<f64>()
    });
}

#[divan::bench(sample_count = 5)]
fn venn_abers_fit_and_intervals_1m(bencher: Bencher) {
    let (s, y) = data(1_000_000, 1);
    let (q, _) = data(1_000_000, 2);
    bencher.bench(|| {
        let fit = fit_venn_abers(black_box(&s), black_box(&y)).unwrap();
        q.iter().map(|&x| fit.predict(x).p).sum::<f64>()
    });
}
