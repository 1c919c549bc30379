//! METRICS.md §8 in slices, for a caller that must stay responsive while the
//! bootstrap runs (the browser's worker, which has one thread and must hear a
//! cancellation): [`Staged::step`] computes the models' point values a part at a
//! time, then runs the next replicates of all models at once (paired: the same rows), and
//! [`Staged::finish`] places the values in each model's single-model document exactly
//! as [`super::insert_single`] does (`tests/beyond_staged.rs` holds the two equal).

use calibscope_core::bootstrap::{BootReading, BootstrapSettings, SlicedReplicates};
use calibscope_core::PredictionSet;
use serde_json::Value;

use super::{
    apply_single, check_bootstrap, interval_paths, model_beyond_with, replicate_values,
    ModelPoints, PendingPoints, Replicates,
};

/// Per replicate, per model, the values at [`interval_paths`].
type ReplicateRows = SlicedReplicates<Vec<Vec<Option<f64>>>>;

/// A §8 computation of several models on the same samples, run in slices.
pub struct Staged {
    /// The models whose point values are not all computed yet, in order.
    pending: std::collections::VecDeque<PendingPoints>,
    points: Vec<ModelPoints>,
    readings: Vec<BootReading>,
    m_values: Vec<usize>,
    settings: BootstrapSettings,
    /// The replicates to run: `settings.replicates`, or none when a reading is empty
    /// (the documents then get no intervals and no verdict, as with no replicates).
    total: usize,
    /// Made once every model's point values are computed.
    replicates: Option<ReplicateRows>,
}

impl Staged {
    /// The §8 values of `sets` (one model each, all with the same rows) for bin
    /// counts `m_values`, none computed yet: [`Staged::step`] computes them. Errors
    /// when the settings are not usable ([`check_bootstrap`]) or the sets' sample
    /// counts differ.
    pub fn new(
        sets: &[&PredictionSet],
        m_values: &[usize],
        settings: &BootstrapSettings,
    ) -> Result<Staged, String> {
        check_bootstrap(settings)?;
        if sets.windows(2).any(|w| w[0].n() != w[1].n()) {
            return Err("the models of a bootstrap must have the same samples".into());
        }
        let pending: std::collections::VecDeque<PendingPoints> = sets
            .iter()
            .map(|set| PendingPoints::new(set, m_values))
            .collect();
        let empty = pending.is_empty() || pending.iter().any(PendingPoints::is_empty);
        Ok(Staged {
            points: Vec::with_capacity(sets.len()),
            readings: Vec::with_capacity(sets.len()),
            pending,
            m_values: m_values.to_vec(),
            settings: *settings,
            total: if empty { 0 } else { settings.replicates },
            replicates: None,
        })
    }

    /// Replicates run so far and to run in all (`(0, total)` while point values are
    /// computed).
    pub fn progress(&self) -> (usize, usize) {
        match &self.replicates {
            Some(r) => r.progress(),
            None => (0, self.total),
        }
    }

    /// Runs the next part of a model's point values when one is left (whatever
    /// `count`), else the next `count` replicates (fewer at the end).
    pub fn step(&mut self, count: usize) {
        if let Some(model) = self.pending.front_mut() {
            model.step();
            if model.is_done() {
                let (points, reading) = self.pending.pop_front().expect("a front").run();
                self.points.push(points);
                self.readings.push(reading);
            }
            return;
        }
        let m_values = &self.m_values;
        let (readings, settings, total) = (&mut self.readings, &self.settings, self.total);
        let replicates = self.replicates.get_or_insert_with(|| {
            SlicedReplicates::new(std::mem::take(readings), settings, total)
        });
        replicates.step(count, |samples| {
            samples
                .iter()
                .map(|s| replicate_values(s, m_values))
                .collect::<Vec<_>>()
        });
    }

    /// Places the §8 values in `docs`, the single-model documents of the models in
    /// the order given to [`Staged::new`] (made with the same `m_values`), running any
    /// replicate left first.
    pub fn finish(mut self, docs: &mut [Value]) {
        while !self.pending.is_empty() {
            self.step(0);
        }
        if self.replicates.as_ref().is_none_or(|r| !r.is_finished()) {
            self.step(usize::MAX);
        }
        let paths = interval_paths(&self.m_values);
        let Staged {
            points,
            settings,
            replicates,
            total,
            ..
        } = self;
        let replicates = replicates.expect("made by the step above");
        let rows = replicates.rows();
        for (k, (points, doc)) in points.into_iter().zip(docs.iter_mut()).enumerate() {
            let replicates = (total > 0).then(|| {
                let columns: Replicates = (0..paths.len())
                    .map(|c| rows.iter().map(|r| r[k][c]).collect())
                    .collect();
                (paths.clone(), columns)
            });
            apply_single(
                doc,
                model_beyond_with(points, replicates, &settings),
                &settings,
            );
        }
    }
}
