//! The Slices view in the worker (see [`start_slices`]).

use super::slices::{next_slice, start_job};
use super::{engine, now_ms, post, yield_now, State, STATE};
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
    wasm_bindgen_futures::spawn_local(async move {
        let mut per_slice = 1usize;
        loop {
            yield_now().await;
            let ours = |s: &State| s.slices_part.as_ref().is_some_and(|j| j.id() == id);
            let cancelled = STATE.with(|s| {
                let mut s = s.borrow_mut();
                let cancelled = s.cancelled.remove(&id) || !ours(&s);
                if cancelled && ours(&s) {
                    s.slices_part = None;
                }
                cancelled
            });
            if cancelled {
                return post(&FromWorker::Cancelled { id });
            }
            let start = now_ms();
            let (done, total) = STATE.with(|s| {
                let mut s = s.borrow_mut();
                s.slices_part
                    .as_mut()
                    .expect("checked above")
                    .step(per_slice)
            });
            per_slice = next_slice(per_slice, now_ms() - start, SLICES_SLICE_MS);
            if done >= total {
                let answer = STATE.with(|s| {
                    let mut s = s.borrow_mut();
                    let job = s.slices_part.take().expect("checked above");
                    match s.session.as_mut() {
                        Some(session) => session.slices_finish(job),
                        None => engine::worker_error(id, codes::NO_DATASET, "no data set is open"),
                    }
                });
                return post(&answer);
            }
            post(&FromWorker::LabProgress { id, done, total });
        }
    });
}
