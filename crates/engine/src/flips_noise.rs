//! The ranking-flips view's flips against noise (answers
//! [`crate::proto::ToWorker::FlipsNoise`]): for each ranked metric, the share of
//! paired bootstrap replicates in which each pair of models keeps its order at each
//! bin count, and whether each flip is within noise, computed by calibscope-audit's
//! [`NoiseStaged`] (the values of `calibscope flips --json`'s `noise`, replicate for
//! replicate, with the CLI's default bootstrap) in slices the worker runs between its
//! other tasks.
//!
//! `data-metric` paths of the view (those of `calibscope flips --metric all --json`):
//! `metrics.<metric>.noise.flips.<a>|<b>.<k>.shares.<0|1>` (the share at `a`, at
//! `b`), `….within_noise`, `metrics.<metric>.noise.pair_order.<m>.<i>.<j>` and
//! `metrics.<metric>.noise.stable_share`.

use calibscope_audit::complete_values;
use calibscope_audit::flips_noise::{BinReplicates, NoiseStaged};
use calibscope_core::binning::Binning;
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::sweep::{clip_bins, RankedMetric, SweepMetric};
use calibscope_proto::flips::{FlipsNoise, FlipsNoiseRequest};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use crate::Session;

/// What a bin count's replicates are kept under: the metric, the binning, whether
/// the models were temperature-scaled first, and the bin count (the bootstrap is
/// always the default one).
type NoiseKey = (SweepMetric, Binning, bool, usize);

/// The bin counts' replicates of the data set's finished noise runs, newest last, at
/// most [`NoiseMemory::CAPACITY`] (a slider step then runs only the new bin count,
/// not the pinned reference again). A job holds the memory of the session that
/// started it, so a job finishing after another data set was opened keeps its
/// replicates in the old session's memory, which nothing reads.
#[derive(Clone, Default)]
pub struct NoiseMemory(Rc<RefCell<VecDeque<(NoiseKey, BinReplicates)>>>);

impl NoiseMemory {
    /// Bin counts kept (a metric's replicates of 12 models are ~200 KB).
    const CAPACITY: usize = 48;

    fn get(&self, key: &NoiseKey) -> Option<BinReplicates> {
        let kept = self.0.borrow();
        kept.iter().find(|(k, _)| k == key).map(|(_, r)| r.clone())
    }

    fn keep(&self, key: NoiseKey, replicates: BinReplicates) {
        let mut kept = self.0.borrow_mut();
        kept.retain(|(k, _)| *k != key);
        if kept.len() == Self::CAPACITY {
            kept.pop_front();
        }
        kept.push_back((key, replicates));
    }
}

/// A flips-noise computation in progress: the staged bootstrap and what to answer.
pub struct NoiseJob {
    pub id: u64,
    staged: NoiseStaged,
    /// Where the bin counts run here are kept when the job finishes.
    memory: NoiseMemory,
    binning: Binning,
    answer: FlipsNoise,
    /// Per metric asked, why it has no values (`None`: it is in the staged run).
    unavailable: Vec<Option<String>>,
}

impl NoiseJob {
    /// Runs the next `count` replicates; returns `(done, total)`.
    pub fn step(&mut self, count: usize) -> (usize, usize) {
        self.staged.step(count);
        self.progress()
    }

    /// Replicates done and in all.
    pub fn progress(&self) -> (usize, usize) {
        self.staged.progress()
    }

    /// The bin counts whose replicates this job runs (the others were kept).
    pub fn running(&self) -> &[usize] {
        self.staged.running()
    }

    /// The answer (runs any replicate left); the replicates run are kept for later
    /// requests of the same session.
    pub fn finish(self) -> FlipsNoise {
        let (sections, computed) = self.staged.finish();
        let tf = self.answer.temperature_first;
        for (metric, m, reps) in computed {
            self.memory.keep((metric, self.binning, tf, m), reps);
        }
        let mut sections = sections.into_iter();
        let mut answer = self.answer;
        answer.metrics = answer
            .metrics
            .into_iter()
            .zip(self.unavailable)
            .map(|((name, _), why)| {
                let section = match why {
                    Some(why) => json!({ "unavailable": why }),
                    None => sections.next().unwrap_or(Value::Null),
                };
                (name, section)
            })
            .collect();
        answer
    }
}

impl Session {
    /// Starts the flips noise of `request` with the CLI's default bootstrap (the
    /// replicates are run by [`NoiseJob::step`]; bin counts kept from earlier runs
    /// of this session are not run again). Errors on an unknown metric, no bin
    /// count, or models that cannot be temperature-scaled first.
    pub fn flips_noise_start(
        &mut self,
        id: u64,
        request: &FlipsNoiseRequest,
    ) -> Result<NoiseJob, String> {
        if request.bins.is_empty() {
            return Err("no bin counts to compare".into());
        }
        let tf = request.temperature_first;
        let n = self.flips_n(tf)?;
        let bins = clip_bins(&request.bins, n);
        let binning = request.binning;
        let mut ranked: Vec<(RankedMetric, Vec<Vec<f64>>)> = Vec::new();
        let mut unavailable = Vec::new();
        for name in &request.metrics {
            let metric =
                RankedMetric::from_name(name).ok_or_else(|| format!("unknown metric {name:?}"))?;
            let values = self
                .flips_values(metric, binning, &bins, tf)
                .and_then(|(v, _)| complete_values(metric, v));
            match values {
                Ok(values) => {
                    ranked.push((metric, values));
                    unavailable.push(None);
                }
                Err(why) => unavailable.push(Some(why)),
            }
        }
        let names: Vec<String> = self.models.iter().map(|m| m.name.clone()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let ranked: Vec<(RankedMetric, &[Vec<f64>])> =
            ranked.iter().map(|(m, v)| (*m, v.as_slice())).collect();
        let memory = self.noise_memory.clone();
        let sets = self.flips_sets(tf)?;
        let staged = NoiseStaged::new(
            &sets,
            &names,
            &ranked,
            binning,
            &bins,
            &BootstrapSettings::default(),
            &|metric, m| memory.get(&(metric, binning, tf, m)),
        );
        Ok(NoiseJob {
            id,
            staged,
            memory,
            binning,
            answer: FlipsNoise {
                binning,
                bins,
                temperature_first: tf,
                metrics: request
                    .metrics
                    .iter()
                    .map(|m| (m.clone(), Value::Null))
                    .collect(),
            },
            unavailable,
        })
    }
}

#[cfg(test)]
#[path = "flips_noise_tests.rs"]
mod tests;
