//! METRICS.md §8 at scale: smECE (relplot's bandwidth search) on 1M forecasts, and
//! the seeded paired bootstrap (B = 1000) of `d = mean(u) - mean(o)` and ECE_15
//! (equal-width and equal-mass) on 1M binary rows, on 2 threads.
//!
//! `cargo bench -p calibscope-core --bench section8`

use calibscope_core::binning::Binning;
use calibscope_core::bootstrap::{bootstrap_metrics, BootMetric, BootReading, BootstrapSettings};
use calibscope_core::calibration_tests::cumulative_test;
use calibscope_core::smece::smece;
use calibscope_core::synth::{generate, Distribution, Mode};
use divan::{black_box, Bencher};

fn main() {
    divan::main();
}

mod support;

/// 1M confidence pairs (Skew High confidences, overconfident by `1 - sqrt(1 - c)`).
fn data(n: usize) -> (Vec<f64>, Vec<bool>) {
    support::overconfident_pairs(n, 1)
}

#[divan::bench(sample_count = 10)]
fn smece_1m(bencher: Bencher) {
    let (u, o) = data(1_000_000);
    bencher.bench(|| smece(black_box(&u), black_box(&o)).unwrap().smece);
}

/// smECE of 1M calibrated pairs: a small sigma*, so the search visits several grid
/// sizes (each spreads the 1M forecasts again).
#[divan::bench(sample_count = 10)]
fn smece_1m_calibrated(bencher: Bencher) {
    let s = generate(Distribution::Uniform, Mode::Perfect, 1_000_000, 2);
    let o: Vec<bool> = s
        .predicted
        .iter()
        .zip(&s.labels)
        .map(|(a, b)| a == b)
        .collect();
    bencher.bench(|| {
        smece(black_box(&s.confidence), black_box(&o))
            .unwrap()
            .sigma
    });
}

#[divan::bench(sample_count = 10)]
fn boot_reading_index_1m(bencher: Bencher) {
    let (u, o) = data(1_000_000);
    bencher.bench(|| BootReading::new(black_box(&u), black_box(&o)).len());
}

#[divan::bench(sample_count = 10)]
fn cumulative_test_1m(bencher: Bencher) {
    let (u, o) = data(1_000_000);
    let reading = BootReading::new(&u, &o);
    bencher.bench(|| cumulative_test(black_box(reading.sorted())).unwrap().p_ks);
}

/// B = 1000 replicates of d, ECE_15 width and ECE_15 mass, on 1 or 2 threads.
#[divan::bench(sample_count = 3, args = [1, 2])]
fn bootstrap_1000_d_ece15_1m(bencher: Bencher, threads: usize) {
    let (u, o) = data(1_000_000);
    let reading = BootReading::new(&u, &o);
    let metrics = [
        BootMetric::MeanGap,
        BootMetric::Ece(Binning::Width, 15),
        BootMetric::Ece(Binning::Mass, 15),
    ];
    let settings = BootstrapSettings {
        threads,
        ..BootstrapSettings::default()
    };
    bencher.bench(|| {
        bootstrap_metrics(&reading, &metrics, &settings)
            .unwrap()
            .len()
    });
}

/// The audit's replicate (`calibscope_audit::beyond_binning::replicate_values` reads
/// the same way): one pass to the block sums, then d and ECE_15 of both binnings from
/// them; B = 1000 on 1 or 2 threads.
#[divan::bench(sample_count = 3, args = [1, 2])]
fn bootstrap_1000_block_index_d_ece15_1m(bencher: Bencher, threads: usize) {
    use calibscope_core::bootstrap::bootstrap_map;
    let (u, o) = data(1_000_000);
    let reading = BootReading::new(&u, &o);
    let settings = BootstrapSettings {
        threads,
        ..BootstrapSettings::default()
    };
    bencher.bench(|| {
        bootstrap_map(&[&reading], &settings, |_, s| {
            let index = s[0].block_index();
            (
                index.mean_gap(),
                index.binned(Binning::Width, 15).ece,
                index.binned(Binning::Mass, 15).ece,
            )
        })
        .len()
    });
}

/// B = 1000 replicates drawn and counted only (no metric): the floor of any bootstrap
/// of 1M rows under the contract's draws.
#[divan::bench(sample_count = 3, args = [1])]
fn bootstrap_1000_draw_and_count_only_1m(bencher: Bencher, threads: usize) {
    use calibscope_core::bootstrap::bootstrap_map;
    let (u, o) = data(1_000_000);
    let reading = BootReading::new(&u, &o);
    let settings = BootstrapSettings {
        threads,
        ..BootstrapSettings::default()
    };
    bencher.bench(|| bootstrap_map(&[&reading], &settings, |r, _| r).len());
}
