//! The audit's second stage in the worker: the bootstrap run in slices (see
//! [`start_bootstrap`]).

use super::slices::{next_slice, start_job};
use super::{engine, now_ms, post, yield_now, State, STATE};
use calibscope_proto::{codes, FromWorker};

/// How long one slice of the bootstrap may hold the worker (a cancellation or a
/// slider step waits at most this long).
const BOOTSTRAP_SLICE_MS: f64 = 30.0;

/// Runs the audit's second stage in slices of ~[`BOOTSTRAP_SLICE_MS`], posting the
/// replicates done after each; stops when cancelled or replaced.
pub(super) fn start_bootstrap(id: u64, replicates: usize, seed: u64, alpha: f64) {
    let Some(job) = start_job(id, |session| {
        session.beyond_start(id, replicates, seed, alpha)
    }) else {
        return;
    };
    STATE.with(|s| s.borrow_mut().beyond = Some(job));
    wasm_bindgen_futures::spawn_local(async move {
        // replicates per slice, from the time the last slice took; even, since the
        // core counts replicates in pairs (one pass over the data for two)
        let mut per_slice = 2usize;
        loop {
            yield_now().await;
            let ours = |s: &State| s.beyond.as_ref().is_some_and(|j| j.id == id);
            let cancelled = STATE.with(|s| {
                let mut s = s.borrow_mut();
                let cancelled = s.cancelled.remove(&id) || !ours(&s);
                if cancelled && ours(&s) {
                    s.beyond = None;
                }
                cancelled
            });
            if cancelled {
                return post(&FromWorker::Cancelled { id });
            }
            let start = now_ms();
            let (done, total) = STATE.with(|s| {
                let mut s = s.borrow_mut();
                let job = s.beyond.as_mut().expect("checked above");
                job.step(per_slice)
            });
            per_slice =
                next_slice(per_slice, now_ms() - start, BOOTSTRAP_SLICE_MS).next_multiple_of(2);
            if done >= total {
                let answer = STATE.with(|s| {
                    let mut s = s.borrow_mut();
                    let job = s.beyond.take().expect("checked above");
                    match s.session.as_ref() {
                        Some(session) => session.beyond_finish(job),
                        None => engine::worker_error(id, codes::NO_DATASET, "no data set is open"),
                    }
                });
                return post(&answer);
            }
            post(&FromWorker::LabProgress { id, done, total });
        }
    });
}
