//! Paired replicates run a slice at a time, for a caller that must stay responsive
//! while the bootstrap runs (the browser's worker: one thread, and it must hear a
//! cancellation between slices).

use super::{bootstrap_map, bootstrap_map_range, BootReading, BootstrapSettings, Resampled};

/// The replicates `0..total` of `evaluate` on paired resamples of the same readings,
/// run by [`SlicedReplicates::step`] a slice at a time (or all at once on several
/// threads by [`SlicedReplicates::run_all`]). Replicate `r` draws the same rows
/// whichever slice runs it, so the rows equal [`bootstrap_map`]'s with the same seed.
/// With `total == 0` (no replicates asked, or nothing to resample) nothing runs.
pub struct SlicedReplicates<T> {
    readings: Vec<BootReading>,
    settings: BootstrapSettings,
    total: usize,
    rows: Vec<T>,
}

impl<T: Send> SlicedReplicates<T> {
    /// Replicates `0..total` of `readings` (all with the same rows) drawn with
    /// `settings`' seed (its thread count serves [`SlicedReplicates::run_all`]).
    pub fn new(
        readings: Vec<BootReading>,
        settings: &BootstrapSettings,
        total: usize,
    ) -> SlicedReplicates<T> {
        SlicedReplicates {
            readings,
            settings: *settings,
            total,
            rows: Vec::new(),
        }
    }

    /// Replicates run so far.
    pub fn done(&self) -> usize {
        self.rows.len()
    }

    /// Replicates to run in all.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Replicates run so far and to run in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.done(), self.total)
    }

    /// Whether every replicate has run.
    pub fn is_finished(&self) -> bool {
        self.done() >= self.total
    }

    /// The values of the replicates run so far, in replicate order.
    pub fn rows(&self) -> &[T] {
        &self.rows
    }

    /// Runs the next `count` replicates (fewer at the end) on the calling thread.
    pub fn step(&mut self, count: usize, evaluate: impl Fn(&[Resampled<'_>]) -> T) {
        let start = self.done();
        let end = start.saturating_add(count).min(self.total);
        let refs: Vec<&BootReading> = self.readings.iter().collect();
        let rows = bootstrap_map_range(&refs, self.settings.seed, start..end, |_, s| evaluate(s));
        self.rows.extend(rows);
    }

    /// Runs every replicate left: on the settings' threads when none has run yet,
    /// else on the calling thread.
    pub fn run_all(&mut self, evaluate: impl Fn(&[Resampled<'_>]) -> T + Sync) {
        if self.done() == 0 && self.total > 0 {
            let refs: Vec<&BootReading> = self.readings.iter().collect();
            let settings = BootstrapSettings {
                replicates: self.total,
                ..self.settings
            };
            self.rows = bootstrap_map(&refs, &settings, |_, s| evaluate(s));
        } else {
            self.step(self.total - self.done(), evaluate);
        }
    }
}
