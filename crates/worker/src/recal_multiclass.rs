//! The Recalibrate view's multiclass maps in the worker (see
//! [`start_recal_multiclass`]).

use super::slices::{run_in_slices, start_job, SlicedJob};
use super::{engine, STATE};

/// How long one slice may hold the worker; one L-BFGS fit is the smallest unit,
/// so a slice of a large data set (a fit of many classes) runs longer.
const MULTICLASS_SLICE_MS: f64 = 40.0;

impl SlicedJob for engine::recal::MulticlassJob {
    fn request(&self) -> u64 {
        self.id()
    }
    fn run(&mut self, count: usize) -> (usize, usize) {
        self.step(count)
    }
}

/// Fits vector scaling, matrix scaling and Dirichlet calibration on the split of
/// recalibration `gen`, a fit or more per slice, posting the fits done after each;
/// stops when cancelled or replaced (a newer recalibration, or a new data set).
pub(super) fn start_recal_multiclass(id: u64, gen: u64) {
    let Some(job) = start_job(id, |session| session.recal_multiclass_start(id, gen)) else {
        return;
    };
    STATE.with(|s| s.borrow_mut().recal_multiclass = Some(job));
    run_in_slices(
        id,
        |s| &mut s.recal_multiclass,
        MULTICLASS_SLICE_MS,
        |n| n,
        |session, job| session.recal_multiclass_finish(job),
    );
}
