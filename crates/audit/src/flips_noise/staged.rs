//! The flips noise in slices, for a caller that must stay responsive while the
//! bootstrap runs (the browser's worker, which has one thread and must hear a
//! cancellation): [`NoiseStaged::new`] takes the models' readings,
//! [`NoiseStaged::step`] runs the next replicates of every model at once (paired: the
//! same rows), and [`NoiseStaged::finish`] gives the noise sections exactly as
//! [`super::noise_sections`] does (which runs the same object on all its threads).
//!
//! A replicate's value at one bin count does not depend on the other bin counts
//! asked (the draws are the seed's), so a caller that kept a bin count's replicates
//! (from [`NoiseStaged::finish`]) gives them back ([`NoiseStaged::new`]) and only
//! the other bin counts run: the flips view's slider moves `m` against a pinned
//! reference whose replicates are then computed once.

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

/// One replicate's values: `[model][bin count computed][binned metric]`.
type Row = Vec<Vec<Vec<Option<f64>>>>;

/// A binned metric's replicate values at one bin count, `[model][replicate]`.
pub type BinReplicates = Vec<Vec<Option<f64>>>;

/// The noise of a ranking, run in slices of replicates.
pub struct NoiseStaged {
    names: Vec<String>,
    ranked: Vec<(RankedMetric, Vec<Vec<f64>>)>,
    /// The binned metrics of `ranked`, in order.
    binned: Vec<SweepMetric>,
    binning: Binning,
    bins: Vec<usize>,
    /// Per bin count of `bins`, the caller's replicates of every binned metric
    /// (`[metric][model][replicate]`), or `None`: run here.
    known: Vec<Option<Vec<BinReplicates>>>,
    /// The bin counts run here (those of `bins` without `known`), in order.
    todo: Vec<usize>,
    /// No replicate can be had (no binned metric, no samples, or none asked).
    empty: bool,
    settings: BootstrapSettings,
    /// Model `i`'s readings among the replicates' (every model's, one after the
    /// other, the confidence reading first).
    spans: Vec<Range<usize>>,
    /// The replicates to run: `settings.replicates`, or none when `empty` or every
    /// bin count is known.
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
    /// `i` at `bins[j]`) for `sets` named `names` (two or more, on the same samples),
    /// given `known(metric, m)`: replicates of `metric` at bin count `m` that the
    /// caller kept from a run on the same models, binning and bootstrap settings (the
    /// second part of [`NoiseStaged::finish`]; `&|_, _| None` when it kept none). A
    /// bin count runs here unless every binned metric of `ranked` is known there
    /// (with one row per model and `settings.replicates` values each).
    pub fn new(
        sets: &[&PredictionSet],
        names: &[&str],
        ranked: &[(RankedMetric, &[Vec<f64>])],
        binning: Binning,
        bins: &[usize],
        settings: &BootstrapSettings,
        known: &dyn Fn(SweepMetric, usize) -> Option<BinReplicates>,
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
        let shaped = |r: &BinReplicates| {
            r.len() == sets.len() && r.iter().all(|v| v.len() == settings.replicates)
        };
        let known: Vec<Option<Vec<BinReplicates>>> = bins
            .iter()
            .map(|&m| {
                let all: Option<Vec<BinReplicates>> = binned
                    .iter()
                    .map(|&metric| known(metric, m).filter(|r| shaped(r)))
                    .collect();
                all.filter(|_| !empty)
            })
            .collect();
        let todo: Vec<usize> = bins
            .iter()
            .zip(&known)
            .filter(|(_, k)| k.is_none())
            .map(|(&m, _)| m)
            .collect();
        let run = !empty && !todo.is_empty();
        let classwise = binned.iter().any(|m| m.is_classwise());
        let (mut readings, mut spans) = (Vec::new(), Vec::new());
        for set in sets {
            let start = readings.len();
            if run {
                readings.extend(model_readings(set, classwise));
            }
            spans.push(start..readings.len());
        }
        let total = if run { settings.replicates } else { 0 };
        NoiseStaged {
            names: names.iter().map(|s| s.to_string()).collect(),
            ranked: ranked.iter().map(|(m, v)| (*m, v.to_vec())).collect(),
            binned,
            binning,
            bins: bins.to_vec(),
            known,
            todo,
            empty,
            settings: *settings,
            spans,
            replicates: SlicedReplicates::new(readings, settings, total),
        }
    }

    /// Replicates run so far and to run in all.
    pub fn progress(&self) -> (usize, usize) {
        self.replicates.progress()
    }

    /// The bin counts whose replicates run here (none known).
    pub fn running(&self) -> &[usize] {
        if self.empty {
            &[]
        } else {
            &self.todo
        }
    }

    /// Runs the next `count` replicates (fewer at the end) on the calling thread.
    pub fn step(&mut self, count: usize) {
        let (spans, bins, binned) = (&self.spans, &self.todo, &self.binned);
        let binning = self.binning;
        self.replicates
            .step(count, |s| row(spans, bins, binned, binning, s));
    }

    /// Runs every replicate left, on `settings.threads` threads when none has run.
    pub fn run_all(&mut self) {
        let (spans, bins, binned) = (&self.spans, &self.todo, &self.binned);
        let binning = self.binning;
        self.replicates
            .run_all(|s| row(spans, bins, binned, binning, s));
    }

    /// The noise sections, one per metric of `ranked` (running any replicate left
    /// first), and the replicates run here, `(metric, m, [model][replicate])` for each
    /// binned metric at each bin count that was not known (to give back to
    /// [`NoiseStaged::new`] later).
    pub fn finish(mut self) -> (Vec<Value>, Vec<(SweepMetric, usize, BinReplicates)>) {
        self.run_all();
        let reps: Option<Vec<Reps>> = (!self.empty).then(|| {
            (0..self.binned.len())
                .map(|q| {
                    (0..self.spans.len())
                        .map(|i| {
                            (0..self.bins.len())
                                .map(|j| self.replicates_at(q, i, j))
                                .collect()
                        })
                        .collect()
                })
                .collect()
        });
        let mut computed = Vec::new();
        if let Some(reps) = &reps {
            for (j, &m) in self.bins.iter().enumerate() {
                if self.known[j].is_some() {
                    continue;
                }
                for (metric, reps) in self.binned.iter().zip(reps) {
                    let by_model = reps.iter().map(|model| model[j].clone()).collect();
                    computed.push((*metric, m, by_model));
                }
            }
        }
        let sections = sections(
            &self.names,
            &self.ranked,
            self.binning,
            &self.bins,
            &self.settings,
            reps,
        );
        (sections, computed)
    }

    /// Binned metric `q`'s replicates of model `i` at `bins[j]`: the caller's, or
    /// those run here.
    fn replicates_at(&self, q: usize, i: usize, j: usize) -> Vec<Option<f64>> {
        match &self.known[j] {
            Some(known) => known[q][i].clone(),
            None => {
                let t = self.known[..j].iter().filter(|k| k.is_none()).count();
                let rows = self.replicates.rows();
                rows.iter().map(|r| r[i][t][q]).collect()
            }
        }
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
