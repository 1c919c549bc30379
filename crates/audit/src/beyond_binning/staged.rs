//! METRICS.md §8 in slices, for a caller that must stay responsive while the
//! bootstrap runs (the browser's worker, which has one thread and must hear a
//! cancellation): [`Staged::new`] computes every model's point values, [`Staged::step`]
//! runs the next replicates of all models at once (paired: the same rows), and
//! [`Staged::finish`] places the values in each model's single-model document exactly
//! as [`super::insert_single`] does (`tests/beyond_staged.rs` holds the two equal).

use calibscope_core::bootstrap::{BootReading, BootstrapSettings, SlicedReplicates};
use calibscope_core::reading::top_labels;
use calibscope_core::PredictionSet;
use serde_json::Value;

use super::{
    apply_single, check_bootstrap, interval_paths, model_beyond_with, model_points,
    replicate_values, ModelPoints, Replicates,
};

/// A §8 computation of several models on the same samples, run in slices.
pub struct Staged {
    points: Vec<ModelPoints>,
    m_values: Vec<usize>,
    settings: BootstrapSettings,
    /// Per replicate, per model, the values at [`interval_paths`]: the replicates to
    /// run are `settings.replicates`, or none when a reading is empty (the documents
    /// then get no intervals and no verdict, as with no replicates).
    replicates: SlicedReplicates<Vec<Vec<Option<f64>>>>,
}

impl Staged {
    /// Computes the point values of `sets` (one model each, all with the same rows)
    /// for bin counts `m_values`; the bootstrap is left to [`Staged::step`]. Errors
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
        let mut readings = Vec::with_capacity(sets.len());
        let mut points = Vec::with_capacity(sets.len());
        for set in sets {
            let pairs = top_labels(set).pairs();
            let reading = BootReading::new(&pairs.forecast, &pairs.outcome);
            points.push(model_points(set, &pairs, &reading, m_values));
            readings.push(reading);
        }
        let empty = readings.is_empty() || readings.iter().any(BootReading::is_empty);
        let total = if empty { 0 } else { settings.replicates };
        Ok(Staged {
            points,
            m_values: m_values.to_vec(),
            settings: *settings,
            replicates: SlicedReplicates::new(readings, settings, total),
        })
    }

    /// Replicates run so far and to run in all.
    pub fn progress(&self) -> (usize, usize) {
        self.replicates.progress()
    }

    /// Runs the next `count` replicates (fewer at the end).
    pub fn step(&mut self, count: usize) {
        let m_values = &self.m_values;
        self.replicates.step(count, |samples| {
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
        if !self.replicates.is_finished() {
            self.step(usize::MAX);
        }
        let paths = interval_paths(&self.m_values);
        let total = self.replicates.total();
        let Staged {
            points,
            settings,
            replicates,
            ..
        } = self;
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
