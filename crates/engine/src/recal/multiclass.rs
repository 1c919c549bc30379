//! The Recalibrate view's multiclass maps, fitted on request after the complete
//! answer: vector scaling, matrix scaling and Dirichlet calibration with its ODIR
//! search (calibscope-core's `ScalingSteps`, the very fits `calibscope recalibrate
//! --method vector|matrix|dirichlet` runs), one L-BFGS fit per unit of work so that
//! the worker can report progress and yield between fits.

use super::{clock, since, RecalState};
use crate::proto::FromWorker;
use crate::Session;
use calibscope_audit::Method;
use calibscope_core::recal::apply::{FitScores, Undefined};
use calibscope_core::recal::prob_maps::DEFAULT_FOLDS;
use calibscope_core::recal::scaling_map::ScalingSteps;

/// The multiclass maps of one recalibration, fitted a unit at a time.
pub struct MulticlassJob {
    id: u64,
    /// The recalibration's generation (its answer is dropped if another came).
    gen: u64,
    /// Each map's fits (or why it is undefined), in [`Method::MULTICLASS`] order.
    maps: Vec<(Method, Result<ScalingSteps, Undefined>)>,
    /// Each map's fit time so far (worker milliseconds; `None` without a clock).
    ms: Vec<Option<f64>>,
    start: Option<f64>,
}

impl MulticlassJob {
    /// The request it answers.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Runs up to `count` fits; returns (fits done, in all).
    pub fn step(&mut self, count: usize) -> (usize, usize) {
        for _ in 0..count {
            let Some((i, steps)) =
                self.maps.iter_mut().enumerate().find_map(|(i, (_, s))| {
                    s.as_mut().ok().filter(|s| !s.is_done()).map(|s| (i, s))
                })
            else {
                break;
            };
            let t = clock();
            steps.step();
            if let Some(ms) = since(t) {
                *self.ms[i].get_or_insert(0.0) += ms;
            }
        }
        self.progress()
    }

    /// (fits done, in all).
    fn progress(&self) -> (usize, usize) {
        self.maps
            .iter()
            .filter_map(|(_, s)| s.as_ref().ok())
            .fold((0, 0), |(d, t), s| (d + s.done(), t + s.units()))
    }
}

/// Why the multiclass maps are not offered for a recalibration, if they are not.
fn refusal(state: &RecalState, set: &calibscope_core::PredictionSet) -> Option<String> {
    if state.settings.class_positions_differ {
        return Some(Undefined::ClassPositions.to_string());
    }
    if set.k < 3 || set.kind() == calibscope_core::Kind::Binary {
        return Some(Undefined::NotMulticlass.to_string());
    }
    None
}

impl Session {
    /// Starts a [`crate::proto::ToWorker::RecalMulticlass`]: the job of the
    /// recalibration of generation `gen`, or why there is none (no complete
    /// recalibration of that generation, binary input, a ragged log).
    pub fn recal_multiclass_start(&self, id: u64, gen: u64) -> Result<MulticlassJob, String> {
        let Some(state) = self.recal.as_ref().filter(|s| s.gen == gen) else {
            return Err("this recalibration was replaced by a newer one; fit again".into());
        };
        if state.run.platt == Err(Undefined::NotComputed) {
            return Err("the recalibration is not complete yet".into());
        }
        let set = &self.models[state.model].set;
        if let Some(why) = refusal(state, set) {
            return Err(format!(
                "vector, matrix and Dirichlet scaling are undefined here: {why}"
            ));
        }
        let start = clock();
        let maps = Method::MULTICLASS
            .into_iter()
            .map(|m| {
                let steps = ScalingSteps::new(
                    set,
                    &state.run.split,
                    m.prob_method().expect("a multiclass map"),
                    DEFAULT_FOLDS,
                );
                (m, steps)
            })
            .collect();
        Ok(MulticlassJob {
            id,
            gen,
            maps,
            ms: vec![None; Method::MULTICLASS.len()],
            start,
        })
    }

    /// The answer of a finished [`MulticlassJob`]: the recalibration answer with the
    /// multiclass maps in its section, ledger, checks and maps; `Cancelled` when a
    /// newer recalibration replaced the one it extends.
    pub fn recal_multiclass_finish(&mut self, job: MulticlassJob) -> FromWorker {
        let id = job.id;
        let Some(mut state) = self.recal.take_if(|s| s.gen == job.gen) else {
            return FromWorker::Cancelled { id };
        };
        let set = &self.models[state.model].set;
        let scores = FitScores::of(set).expect("checked by the first part");
        let split = state.run.split.clone();
        for ((method, steps), ms) in job.maps.into_iter().zip(job.ms) {
            let outcome = steps.and_then(|s| s.finish(set, &split));
            *state
                .run
                .prob_map_mut(method.prob_method().expect("a multiclass map")) = outcome;
            if let Some(ms) = ms {
                state.fit_ms.set(method, ms);
            }
        }
        state.comparison = calibscope_audit::comparison_of(&state.run);
        state.timing.multiclass_ms = since(job.start);
        self.recal_answer(id, state, scores, None)
    }
}

#[cfg(test)]
#[path = "multiclass_tests.rs"]
mod tests;
