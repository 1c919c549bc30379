//! The audit's second stage in the worker: the bootstrap run in slices (see
//! [`start_bootstrap`]).

use super::slices::{run_in_slices, start_job};
use super::STATE;

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
    // replicates per slice even: the core counts replicates in pairs (one pass over
    // the data for two)
    run_in_slices(
        id,
        |s| &mut s.beyond,
        BOOTSTRAP_SLICE_MS,
        |n| n.next_multiple_of(2),
        |session, job| session.beyond_finish(job),
    );
}
