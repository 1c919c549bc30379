//! The Slices view's second part, run in slices by the worker: the permutation test
//! of "the groups differ more than chance", then each group's verdict (its rows
//! alone, 1000 bootstrap replicates, seed 0, α = 0.05: what `calibscope audit
//! --group` gives each group). The permutations come first: each costs a pass over
//! every eligible sample, a verdict replicate only over its group's, so the slice
//! size, learnt from the last slice's time, only grows across the change.

use calibscope_audit::beyond_binning::staged::Staged;
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::groups::{GroupCalibration, PermutationTest};
use calibscope_core::reading;
use calibscope_core::PredictionSet;
use serde_json::Value;

use super::{GroupVerdict, SlicesAnswer, SlicesRequest};
use crate::proto::FromWorker;
use crate::Session;

/// A second part in progress ([`Session::slices_start`]).
pub struct SlicesJob {
    id: u64,
    gen: u64,
    model: usize,
    answer: SlicesAnswer,
    cal: GroupCalibration,
    test: Option<PermutationTest>,
    permutations_done: usize,
    exceed: usize,
    /// Each group's verdict: kept from an earlier part, or made as its stage ends.
    verdicts: Vec<Option<GroupVerdict>>,
    /// The groups' rows to bootstrap, in group order (empty when the verdicts are
    /// kept from an earlier part); the first `next` are done.
    subsets: Vec<PredictionSet>,
    next: usize,
    /// The bootstrap of group `next`, made when its turn comes (each sorts its
    /// group's reading: made at once they would hold the worker for a while).
    current: Option<Staged>,
    /// Whether `verdicts` were made here (to keep for the next part).
    made: bool,
}

impl SlicesJob {
    /// The request it answers.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Units done and in all: a permutation, or a bootstrap replicate of a group
    /// (every group counts the replicates asked for).
    pub fn progress(&self) -> (usize, usize) {
        let replicates = verdict_settings().replicates;
        let perms = self.test.as_ref().map_or(0, PermutationTest::permutations);
        let current = self.current.as_ref().map_or(0, |s| s.progress().0);
        (
            self.permutations_done + self.next * replicates + current,
            perms + self.subsets.len() * replicates,
        )
    }

    /// Runs the next `count` units (fewer at the end); returns [`Self::progress`].
    pub fn step(&mut self, count: usize) -> (usize, usize) {
        let mut left = count;
        if let Some(test) = &self.test {
            let end = self
                .permutations_done
                .saturating_add(left)
                .min(test.permutations());
            self.exceed += test.exceed_in(self.permutations_done..end);
            left -= end - self.permutations_done;
            self.permutations_done = end;
        }
        while left > 0 && self.next < self.subsets.len() {
            let stage = match &mut self.current {
                Some(stage) => stage,
                None => match Staged::new(&[&self.subsets[self.next]], &[], &verdict_settings()) {
                    Ok(stage) => self.current.insert(stage),
                    // the default settings are always accepted; no verdict otherwise
                    Err(_) => {
                        self.next += 1;
                        continue;
                    }
                },
            };
            let (done, total) = stage.progress();
            let k = left.min(total - done);
            stage.step(k);
            // a step of at least one unit each turn, so that an empty group ends
            left -= k.max(1);
            if stage.progress().0 >= total {
                let mut doc = Value::Object(Default::default());
                let staged = self.current.take().expect("set above");
                staged.finish(std::slice::from_mut(&mut doc));
                self.verdicts[self.next] = serde_json::from_value(doc["verdict"].take()).ok();
                self.next += 1;
            }
        }
        self.progress()
    }
}

/// The bootstrap of each group's verdict (the CLI's default).
fn verdict_settings() -> BootstrapSettings {
    BootstrapSettings {
        threads: 1,
        ..BootstrapSettings::default()
    }
}

impl Session {
    /// Starts the second part of `r` (request `id`, generation `gen`): the
    /// permutation test, and the groups' verdicts unless an earlier part of the same
    /// model made them. `None`: the data set has no groups (nothing to test); `Err`:
    /// why the request cannot be answered.
    pub fn slices_start(
        &mut self,
        id: u64,
        gen: u64,
        r: &SlicesRequest,
    ) -> Result<Option<SlicesJob>, String> {
        let Some((answer, cal, test)) = self.slices_table(r, true)? else {
            return Ok(None);
        };
        let groups = self.slices.groups.len();
        let (verdicts, subsets, made) = match &self.slices.verdicts {
            Some(v) => (v.clone(), Vec::new(), false),
            None => {
                let set: &PredictionSet = &self.models[r.model].set;
                let subsets = self
                    .slices
                    .groups
                    .iter()
                    .map(|d| {
                        let rows: Vec<usize> = d.rows.iter().map(|&i| i as usize).collect();
                        reading::subset(set, &rows)
                    })
                    .collect::<Vec<_>>();
                (vec![None; groups], subsets, true)
            }
        };
        Ok(Some(SlicesJob {
            id,
            gen,
            model: r.model,
            answer,
            cal,
            test,
            permutations_done: 0,
            exceed: 0,
            verdicts,
            subsets,
            next: 0,
            current: None,
            made,
        }))
    }

    /// The complete answer of `job` (runs anything left), keeping the groups'
    /// verdicts for the next part of the same model.
    pub fn slices_finish(&mut self, mut job: SlicesJob) -> FromWorker {
        job.step(usize::MAX);
        if let Some(test) = &job.test {
            test.finish(&mut job.cal, job.exceed);
        }
        if job.made
            && self
                .slices
                .top
                .as_ref()
                .is_some_and(|(m, _)| *m == job.model)
        {
            self.slices.verdicts = Some(job.verdicts.clone());
        }
        let mut answer = job.answer;
        for (g, v) in answer.groups.iter_mut().zip(job.verdicts) {
            g.verdict = v;
        }
        answer.tested = true;
        answer.p_value = job.cal.p_value;
        answer.exceed = job.cal.exceed;
        answer.permutations = job.cal.permutations;
        FromWorker::Slices {
            id: job.id,
            gen: job.gen,
            complete: true,
            answer,
        }
    }
}
