//! The flips noise in slices, for a caller that must stay responsive while the
//! bootstrap runs (the browser's worker, which has one thread and must hear a
//! cancellation): [`NoiseStaged::new`] takes the models' readings,
//! [`NoiseStaged::step`] runs the next replicates of every model at once (paired: the
//! same rows), and [`NoiseStaged::finish`] gives the noise sections exactly as
//! [`super::noise_sections`] does (which runs the same object on all its threads).

use calibscope_core::binning::Binning;
use calibscope_core::bootstrap::{
    BlockIndex, BootReading, BootstrapSettings, Resampled, SlicedReplicates,
};
use calibscope_core::reading::{class_pairs, top_labels, ProbView};
use calibscope_core::sweep::{RankedMetric, SweepMetric};
use calibscope_core::PredictionSet;
use serde_json::Value;
use std::ops::Range;

use super::{metrics_on, sections, Reps};

/// One replicate's values: `[model][bin][binned metric]`.
type Row = Vec<Vec<Vec<Option<f64>>>>;

/// The noise of a ranking, run in slices of replicates.
pub struct NoiseStaged {
    names: Vec<String>,
    ranked: Vec<(RankedMetric, Vec<Vec<f64>>)>,
    /// The binned metrics of `ranked`, in order.
    binned: Vec<SweepMetric>,
    binning: Binning,
    bins: Vec<usize>,
    settings: BootstrapSettings,
    /// Model `i`'s readings among the replicates' (every model's, one after the
    /// other, the confidence reading first).
    spans: Vec<Range<usize>>,
    /// The replicates to run: `settings.replicates`, or none when no replicate can
    /// run (no binned metric, no samples, or no replicates asked).
    replicates: SlicedReplicates<Row>,
}

/// A model's bootstrap readings: its confidence reading, then (`classwise`) one per
/// class when it has probability vectors.
fn model_readings(set: &PredictionSet, classwise: bool) -> Vec<BootReading> {
    let pairs = top_labels(set).pairs();
    let mut readings = vec![BootReading::new(&pairs.forecast, &pairs.outcome)];
    if classwise {
        if let Some(view) = ProbView::new(set) {
            for r in 0..view.k() {
                let p = class_pairs(&view, r);
                readings.push(BootReading::new(&p.forecast, &p.outcome));
            }
        }
    }
    readings
}

impl NoiseStaged {
    /// The noise of `ranked` (each metric with its point values `values[j][i]`, model
    /// `i` at `bins[j]`) for `sets` named `names` (two or more, on the same samples).
    pub fn new(
        sets: &[&PredictionSet],
        names: &[&str],
        ranked: &[(RankedMetric, &[Vec<f64>])],
        binning: Binning,
        bins: &[usize],
        settings: &BootstrapSettings,
    ) -> NoiseStaged {
        let binned: Vec<SweepMetric> = ranked
            .iter()
            .filter_map(|(m, _)| match m {
                RankedMetric::Binned(b) => Some(*b),
                _ => None,
            })
            .collect();
        let empty = settings.replicates == 0
            || binned.is_empty()
            || sets.first().is_none_or(|s| s.n() == 0);
        let classwise = binned.iter().any(|m| m.is_classwise());
        let (mut readings, mut spans) = (Vec::new(), Vec::new());
        if !empty {
            for set in sets {
                let start = readings.len();
                readings.extend(model_readings(set, classwise));
                spans.push(start..readings.len());
            }
        }
        let total = if empty { 0 } else { settings.replicates };
        NoiseStaged {
            names: names.iter().map(|s| s.to_string()).collect(),
            ranked: ranked.iter().map(|(m, v)| (*m, v.to_vec())).collect(),
            binned,
            binning,
            bins: bins.to_vec(),
            settings: *settings,
            spans,
            replicates: SlicedReplicates::new(readings, settings, total),
        }
    }

    /// Replicates run so far and to run in all.
    pub fn progress(&self) -> (usize, usize) {
        self.replicates.progress()
    }

    /// Runs the next `count` replicates (fewer at the end) on the calling thread.
    pub fn step(&mut self, count: usize) {
        let (spans, bins, binned) = (&self.spans, &self.bins, &self.binned);
        let binning = self.binning;
        self.replicates
            .step(count, |s| row(spans, bins, binned, binning, s));
    }

    /// Runs every replicate left, on `settings.threads` threads when none has run.
    pub fn run_all(&mut self) {
        let (spans, bins, binned) = (&self.spans, &self.bins, &self.binned);
        let binning = self.binning;
        self.replicates
            .run_all(|s| row(spans, bins, binned, binning, s));
    }

    /// The noise sections, one per metric of `ranked` (running any replicate left
    /// first).
    pub fn finish(mut self) -> Vec<Value> {
        self.run_all();
        let rows = self.replicates.rows();
        let reps: Option<Vec<Reps>> = (self.replicates.total() > 0).then(|| {
            (0..self.binned.len())
                .map(|q| {
                    (0..self.spans.len())
                        .map(|i| {
                            (0..self.bins.len())
                                .map(|j| rows.iter().map(|r| r[i][j][q]).collect())
                                .collect()
                        })
                        .collect()
                })
                .collect()
        });
        sections(
            &self.names,
            &self.ranked,
            self.binning,
            &self.bins,
            &self.settings,
            reps,
        )
    }
}

/// One replicate's values of every model: model `i`'s readings are
/// `samples[spans[i]]`, its values `[bin][binned metric]` at `bins`.
fn row(
    spans: &[Range<usize>],
    bins: &[usize],
    binned: &[SweepMetric],
    binning: Binning,
    samples: &[Resampled<'_>],
) -> Row {
    spans
        .iter()
        .map(|span| {
            let index: Vec<BlockIndex<'_>> = samples[span.clone()]
                .iter()
                .map(|r| r.block_index())
                .collect();
            bins.iter()
                .map(|&m| metrics_on(&index, binned, binning, m))
                .collect()
        })
        .collect()
}
