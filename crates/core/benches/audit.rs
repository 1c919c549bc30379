//! Core hot paths (issue 2's targets). Run: `cargo bench -p calibscope-core --bench audit`

mod data;

use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::binning::{Binning, SortedReading};
use calibscope_core::reading;
use calibscope_core::sweep::{sweep, ModelIndex, SweepMetric};
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
#[divan::bench(args = [10, 15, 100], sample_count = 200)]
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
