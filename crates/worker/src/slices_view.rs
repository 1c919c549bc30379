//! The Slices view in the worker (see [`start_slices`]).

use super::slices::{run_in_slices, start_job};
use super::{engine, post, STATE};
use calibscope_proto::slices::SlicesRequest;
use calibscope_proto::{codes, FromWorker};

/// How long one slice of the second part may hold the worker (a brush, a
/// cancellation or another view's question waits at most this long).
const SLICES_SLICE_MS: f64 = 25.0;

/// The Slices view's table at once; then the permutation test and the groups'
/// verdicts in slices of ~[`SLICES_SLICE_MS`], posting the units done after each,
/// until the complete answer; stops when cancelled or replaced (a newer request or
/// a new data set).
pub(super) fn start_slices(id: u64, gen: u64, request: SlicesRequest) {
    let first = STATE.with(|s| match s.borrow_mut().session.as_mut() {
        None => engine::worker_error(id, codes::NO_DATASET, "no data set is open"),
        Some(session) => session.slices(id, gen, &request, false),
    });
    post(&first);
    if !matches!(
        first,
        FromWorker::Slices {
            complete: false,
            ..
        }
    ) {
        return;
    }
    // (a data set without groups was answered complete above)
    let Some(Some(job)) = start_job(id, |session| session.slices_start(id, gen, &request)) else {
        return;
    };
    STATE.with(|s| s.borrow_mut().slices_part = Some(job));
    run_in_slices(
        id,
        |s| &mut s.slices_part,
        SLICES_SLICE_MS,
        |n| n,
        |session, job| session.slices_finish(job),
    );
}
