//! What the worker's long jobs on the open data set share (the audit's bootstrap,
//! the flips against noise): starting one, and sizing its slices so that a
//! cancellation or another question waits at most a few tens of milliseconds.

use super::{engine, post, STATE};
use calibscope_engine::Session;
use calibscope_proto::codes;

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
