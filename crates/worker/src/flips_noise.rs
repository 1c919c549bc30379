//! The ranking-flips view's flips against noise in the worker: the paired bootstrap
//! run in slices (see [`start_flips_noise`]).

use super::slices::{next_slice, start_job};
use super::{now_ms, post, yield_now, STATE};
use calibscope_proto::flips::FlipsNoiseRequest;
use calibscope_proto::FromWorker;

/// How long one slice may hold the worker (a cancellation, a slider step or
/// another view's question waits at most this long).
const NOISE_SLICE_MS: f64 = 25.0;

/// Starts the flips noise of `request` and runs its replicates in slices of
/// ~[`NOISE_SLICE_MS`], posting the replicates done after each; stops when request
/// `id` is cancelled (the view asked a newer question) or the data set is closed.
pub(super) fn start_flips_noise(id: u64, request: FlipsNoiseRequest) {
    let Some(mut job) = start_job(id, |session| session.flips_noise_start(id, &request)) else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        let mut per_slice = 1usize;
        loop {
            yield_now().await;
            let stop = STATE.with(|s| {
                let mut s = s.borrow_mut();
                s.cancelled.remove(&id) || s.session.is_none()
            });
            if stop {
                return post(&FromWorker::Cancelled { id });
            }
            let start = now_ms();
            let (done, total) = job.step(per_slice);
            if done >= total {
                return post(&FromWorker::FlipsNoise {
                    id,
                    answer: job.finish(),
                });
            }
            per_slice = next_slice(per_slice, now_ms() - start, NOISE_SLICE_MS);
            post(&FromWorker::LabProgress { id, done, total });
        }
    });
}
