//! Core hot paths (their targets are in BENCHMARKS.md). Run: `cargo bench -p calibscope-core --bench audit`

mod data;

use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::binning::{Binning, SortedReading};
use calibscope_core::reading;
use calibscope_core::recal::{
    fit_temperature_binary, fit_temperature_values, BinaryNll, GoldenProcedure,
    TemperatureObjective, TemperatureOptions,
};
use calibscope_core::sweep::{sweep, ModelIndex, SweepMetric};
use calibscope_core::{Scores, Values};
use divan::Bencher;

fn main() {
    divan::main();
}

fn settings() -> AuditSettings {
    AuditSettings {
        m_values: vec![15],
        ..AuditSettings::default()
    }
}

/// Full audit (all readings at m = 15, both binnings, AUC, CSR/cwA, cwAUC, classwise) of 1M binary.
#[divan::bench(sample_count = 10)]
fn full_audit_binary_1m(b: Bencher) {
    let set = data::binary(1_000_000, 1);
    b.bench(|| Audit::compute(&set, &settings()));
}

/// The same for 100k samples × 100 classes of float32 logits.
#[divan::bench(sample_count = 5)]
fn full_audit_logits_100k_x_100(b: Bencher) {
    let set = data::logits(100_000, 100, 2);
    b.bench(|| Audit::compute(&set, &settings()));
}

/// Re-binning a built index of 1M forecasts at a new m.
#[divan::bench(args = [10, 15, 100, 2000], sample_count = 200)]
fn rebin_1m(b: Bencher, m: usize) {
    let set = data::binary(1_000_000, 3);
    let index = SortedReading::new(&reading::top_labels(&set).pairs());
    b.bench(|| {
        (
            index.metrics(Binning::Width, m),
            index.metrics(Binning::Mass, m),
        )
    });
}

/// The flips sweep: ConfCE^corr at m = 1..2000 for 10 models × 100k samples (indices built once).
#[divan::bench(sample_count = 5)]
fn flips_sweep_10_models_100k(b: Bencher) {
    let models: Vec<ModelIndex> = data::model_zoo(10, 100_000, 4)
        .iter()
        .map(|s| ModelIndex::new(s, false))
        .collect();
    let m_values: Vec<usize> = (1..=2000).collect();
    b.bench(|| sweep(&models, SweepMetric::ConfCeCorr, Binning::Mass, &m_values));
}

/// Temperature fit (contract procedure: 80 golden-section iterations on [0.05, 20])
/// of 100k × 100 float32 logits, every row calibration.
#[divan::bench(sample_count = 5)]
fn temperature_fit_logits_100k_x_100(b: Bencher) {
    let set = data::logits(100_000, 100, 5);
    let Scores::Matrix { values, k, .. } = &set.scores else {
        unreachable!()
    };
    b.bench(|| {
        fit_temperature_values(
            values,
            *k,
            &set.labels,
            None,
            &TemperatureOptions::default(),
        )
    });
}

/// The same with the fixtures README's alternative search (probe reused, stop at
/// relative width 1e-9).
#[divan::bench(sample_count = 5)]
fn temperature_fit_logits_100k_x_100_reuse(b: Bencher) {
    let set = data::logits(100_000, 100, 5);
    let Scores::Matrix { values, k, .. } = &set.scores else {
        unreachable!()
    };
    let options = TemperatureOptions {
        procedure: GoldenProcedure::REUSE_1E9,
        ..TemperatureOptions::default()
    };
    b.bench(|| fit_temperature_values(values, *k, &set.labels, None, &options));
}

/// Temperature fit (contract procedure) of 1M binary float32 logits.
#[divan::bench(sample_count = 10)]
fn temperature_fit_binary_1m(b: Bencher) {
    let set = data::binary_logits(1_000_000, 6);
    let Scores::Column {
        values: Values::F32(s),
        ..
    } = &set.scores
    else {
        unreachable!()
    };
    b.bench(|| fit_temperature_binary(s, &set.labels, None));
}

/// The same with the fixtures README's alternative search.
#[divan::bench(sample_count = 10)]
fn temperature_fit_binary_1m_reuse(b: Bencher) {
    let set = data::binary_logits(1_000_000, 6);
    let Scores::Column {
        values: Values::F32(s),
        ..
    } = &set.scores
    else {
        unreachable!()
    };
    let options = TemperatureOptions {
        procedure: GoldenProcedure::REUSE_1E9,
        ..TemperatureOptions::default()
    };
    b.bench(|| BinaryNll::new(s, &set.labels, None).map(|nll| nll.fit(&options)));
}

/// The radix sort of one class reading's items: `n` keys of class probabilities of
/// a 100-class softmax (mostly small values, a few near 1), in sample order.
#[divan::bench(args = [100_000, 500_000, 1_000_000], sample_count = 20)]
fn radix_sort_class_items(b: Bencher, n: usize) {
    use calibscope_core::radix::{item, order_key, RadixSorter};
    let set = data::logits(n, 100, 3);
    let view = reading::ProbView::new(&set).expect("scores");
    let items: Vec<u64> = (0..n)
        .map(|i| item(order_key(view.prob(i, 7)), i as u32))
        .collect();
    let mut sorter = RadixSorter::new();
    b.with_inputs(|| items.clone())
        .bench_local_refs(|v| sorter.sort(v));
}
