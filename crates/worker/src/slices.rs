//! What the worker's long jobs on the open data set share (the audit's bootstrap,
//! the flips against noise): starting one, and sizing its slices so that a
//! cancellation or another question waits at most a few tens of milliseconds.

use super::{engine, now_ms, post, yield_now, State, STATE};
use calibscope_engine::Session;
use calibscope_proto::{codes, FromWorker};

/// The job `start` makes of the open data set for request `id`; `None` after
/// posting the error when no data set is open (`NO_DATASET`) or `start` refuses the
/// request (`BAD_PARAMETERS`, with its message).
pub(super) fn start_job<J>(
    id: u64,
    start: impl FnOnce(&mut Session) -> Result<J, String>,
) -> Option<J> {
    let job = STATE.with(|s| s.borrow_mut().session.as_mut().map(start));
    match job {
        None => {
            post(&engine::worker_error(
                id,
                codes::NO_DATASET,
                "no data set is open",
            ));
            None
        }
        Some(Err(e)) => {
            post(&engine::worker_error(id, codes::BAD_PARAMETERS, e));
            None
        }
        Some(Ok(job)) => Some(job),
    }
}

/// The size of the next slice: as many steps as ran `per_slice` in `took_ms`
/// would fill `target_ms`, within `1..=1000`.
pub(super) fn next_slice(per_slice: usize, took_ms: f64, target_ms: f64) -> usize {
    let rate = per_slice as f64 / took_ms.max(0.1);
    ((rate * target_ms) as usize).clamp(1, 1000)
}

/// A long job on the open data set, run a slice at a time.
pub(super) trait SlicedJob {
    /// The request it answers.
    fn request(&self) -> u64;
    /// Runs the next `count` units; returns (done, in all).
    fn run(&mut self, count: usize) -> (usize, usize);
}

impl SlicedJob for engine::beyond::BeyondJob {
    fn request(&self) -> u64 {
        self.id
    }
    fn run(&mut self, count: usize) -> (usize, usize) {
        self.step(count)
    }
}

impl SlicedJob for engine::slices::SlicesJob {
    fn request(&self) -> u64 {
        self.id()
    }
    fn run(&mut self, count: usize) -> (usize, usize) {
        self.step(count)
    }
}

/// Runs the job kept in `slot` of the worker's state (put there for request `id`)
/// in slices of ~`slice_ms` (each slice's size from the last one's time, `round`ed),
/// posting the units done after each and then `finish`'s answer; answers
/// `Cancelled` when request `id` is cancelled or its job replaced (latest wins: a
/// newer request or a new data set clears the slot).
pub(super) fn run_in_slices<J: SlicedJob + 'static>(
    id: u64,
    slot: fn(&mut State) -> &mut Option<J>,
    slice_ms: f64,
    round: fn(usize) -> usize,
    finish: fn(&mut Session, J) -> FromWorker,
) {
    wasm_bindgen_futures::spawn_local(async move {
        let mut per_slice = round(1);
        loop {
            yield_now().await;
            let cancelled = STATE.with(|s| {
                let mut s = s.borrow_mut();
                let ours = slot(&mut s).as_ref().is_some_and(|j| j.request() == id);
                let cancelled = s.cancelled.remove(&id) || !ours;
                if cancelled && ours {
                    *slot(&mut s) = None;
                }
                cancelled
            });
            if cancelled {
                return post(&FromWorker::Cancelled { id });
            }
            let start = now_ms();
            let (done, total) = STATE.with(|s| {
                let mut s = s.borrow_mut();
                slot(&mut s).as_mut().expect("checked above").run(per_slice)
            });
            per_slice = round(next_slice(per_slice, now_ms() - start, slice_ms));
            if done >= total {
                let answer = STATE.with(|s| {
                    let mut s = s.borrow_mut();
                    let job = slot(&mut s).take().expect("checked above");
                    match s.session.as_mut() {
                        Some(session) => finish(session, job),
                        None => engine::worker_error(id, codes::NO_DATASET, "no data set is open"),
                    }
                });
                return post(&answer);
            }
            post(&FromWorker::LabProgress { id, done, total });
        }
    });
}
