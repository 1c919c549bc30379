//! The audit's second stage in the worker (answers
//! [`crate::proto::ToWorker::Bootstrap`]): the `Opened` audits with the binning-free
//! estimators, the calibration tests, the seeded paired bootstrap's intervals and the
//! verdicts of every model, computed by calibscope-audit's
//! [`Staged`] (the CLI's `audit --bootstrap` values, replicate for replicate) in
//! slices the worker runs between its other tasks.

use calibscope_audit::beyond_binning::{diagram_tables, staged::Staged};
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::PredictionSet;

use crate::proto::FromWorker;
use crate::Session;

/// A second stage in progress: the staged bootstrap and the request it answers.
pub struct BeyondJob {
    pub id: u64,
    staged: Staged,
}

impl BeyondJob {
    /// Runs the next part of the point values when one is left, else the next
    /// `count` replicates; returns the replicates `(done, total)`.
    pub fn step(&mut self, count: usize) -> (usize, usize) {
        self.staged.step(count);
        self.progress()
    }

    /// Replicates done and in all.
    pub fn progress(&self) -> (usize, usize) {
        self.staged.progress()
    }

    /// Whether every replicate has run.
    pub fn is_finished(&self) -> bool {
        {
            let (done, total) = self.staged.progress();
            done >= total
        }
    }
}

impl Session {
    /// Starts the second stage with `replicates`, `seed` and `alpha` (computes
    /// nothing yet: [`BeyondJob::step`] computes the point values a part at a time,
    /// then runs the replicates). Errors on unusable
    /// settings (alpha outside (0, 1), more than 100,000 replicates).
    pub fn beyond_start(
        &self,
        id: u64,
        replicates: usize,
        seed: u64,
        alpha: f64,
    ) -> Result<BeyondJob, String> {
        if self.aggregate.is_some() {
            return Err(crate::aggregate::NO_VERDICT.to_string());
        }
        let settings = BootstrapSettings {
            replicates,
            seed,
            alpha,
            ..BootstrapSettings::default()
        };
        let sets: Vec<&PredictionSet> = self.models.iter().map(|m| &m.set).collect();
        let staged = Staged::new(&sets, &self.m_values(), &settings)?;
        Ok(BeyondJob { id, staged })
    }

    /// The binning-free diagrams' data of model `model` (answers
    /// [`crate::proto::ToWorker::Diagrams`]).
    pub fn diagrams(&self, id: u64, model: usize) -> FromWorker {
        if self.aggregate.is_some() {
            return crate::worker_error(
                id,
                crate::proto::codes::BAD_PARAMETERS,
                crate::aggregate::NO_DIAGRAMS,
            );
        }
        match self.models.get(model) {
            None => crate::worker_error(
                id,
                crate::proto::codes::BAD_PARAMETERS,
                format!("there is no model {model}"),
            ),
            Some(m) => FromWorker::Diagrams {
                id,
                model,
                tables: diagram_tables(&m.set),
            },
        }
    }

    /// The answer of a second stage: the `Opened` audits with its values in place
    /// (runs any replicate left).
    pub fn beyond_finish(&self, job: BeyondJob) -> FromWorker {
        let mut audits = self.audits();
        job.staged.finish(&mut audits);
        FromWorker::Bootstrapped { id: job.id, audits }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use calibscope_audit::{audit_document_with, AuditOptions, Sections};
    use calibscope_io::{Options, Parser};

    fn session(name: &str) -> (Session, calibscope_io::Dataset) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../audit/tests/golden");
        let bytes = std::fs::read(dir.join(name)).expect("the golden data");
        let mut p = Parser::new(name.to_string(), Options::default());
        let _ = p.push(&bytes);
        let parsed = vec![(name.to_string(), p.finish_any())];
        let ds = calibscope_io::assemble(parsed, &Options::default()).unwrap();
        (Session::new(ds.clone()), ds)
    }

    /// The CLI's document (`audit --json --bootstrap`) of the same file.
    fn cli(ds: &calibscope_io::Dataset, m: &[usize], s: &BootstrapSettings) -> serde_json::Value {
        let options = AuditOptions {
            m_values: m.to_vec(),
            recalibration: None,
            roc_max_n: 0,
        };
        audit_document_with(
            &Ok(ds.clone()),
            "t",
            &options,
            Sections::Sequential,
            Some(s),
        )
    }

    #[test]
    fn the_second_stage_in_slices_gives_the_clis_values() {
        let (session, ds) = session("breast_cancer_logreg_logit.csv");
        let mut job = session.beyond_start(9, 120, 5, 0.1).unwrap();
        assert_eq!(job.progress(), (0, 120));
        // the point values first, one part per step whatever the count (the worker
        // answers the page between parts): for a binary set, the confidence
        // reading's index, its five parts and the verdict's p-value, then the
        // positive reading's sorting and its five parts
        for _ in 0..13 {
            assert_eq!(job.step(1000), (0, 120));
        }
        assert_eq!(job.step(50), (50, 120));
        assert!(!job.is_finished());
        assert_eq!(job.step(100), (120, 120));
        assert!(job.is_finished());
        let FromWorker::Bootstrapped { id, audits } = session.beyond_finish(job) else {
            panic!("bootstrapped")
        };
        assert_eq!(id, 9);
        let settings = BootstrapSettings {
            replicates: 120,
            seed: 5,
            alpha: 0.1,
            threads: 1,
        };
        let want = cli(&ds, &session.m_values(), &settings);
        let got = &audits[0];
        for key in ["verdict", "bootstrap", "binning_free"] {
            assert_eq!(got[key], want[key], "{key}");
        }
        assert!(got["verdict"]["text"].is_string());
        assert_eq!(
            got["readings"]["confidence"]["intervals"],
            want["readings"]["confidence"]["intervals"]
        );
        // the first stage is unchanged beside it
        let first = &session.audits()[0];
        assert!(first.get("verdict").is_none());
        assert_eq!(
            first["readings"]["confidence"]["brier"],
            got["readings"]["confidence"]["brier"]
        );
    }

    #[test]
    fn every_model_gets_its_verdict_paired_and_bad_settings_are_refused() {
        let (session, _) = session("digits_zoo3_head60_probs.csv");
        let job = session.beyond_start(1, 40, 0, 0.05).unwrap();
        let FromWorker::Bootstrapped { audits, .. } = session.beyond_finish(job) else {
            panic!("bootstrapped")
        };
        assert_eq!(audits.len(), 3);
        assert!(audits.iter().all(|a| a["verdict"]["text"].is_string()));
        let err = session.beyond_start(2, 10, 0, 0.0).err().unwrap();
        assert!(err.contains("alpha"), "{err}");
        // the diagrams of a model are the record's tables of it
        let FromWorker::Diagrams { tables, model, .. } = session.diagrams(3, 2) else {
            panic!("diagrams")
        };
        assert_eq!(model, 2);
        assert_eq!(tables, diagram_tables(&session.models[2].set));
        assert!(tables["confidence"]["smooth"]["t"].is_array());
        assert!(tables["confidence"]["cumulative"]["points"].is_array());
        assert!(matches!(
            session.diagrams(4, 3),
            FromWorker::Error { code, .. } if code == crate::proto::codes::BAD_PARAMETERS
        ));
    }
}
