//! The ranking-flips view's flips against noise in the worker: the paired bootstrap
//! run in slices (see [`start_flips_noise`]).

use super::{engine, now_ms, post, yield_now, STATE};
use calibscope_proto::flips::FlipsNoiseRequest;
use calibscope_proto::{codes, FromWorker};

/// How long one slice may hold the worker (a cancellation, a slider step or
/// another view's question waits at most this long).
const NOISE_SLICE_MS: f64 = 25.0;

/// Starts the flips noise of `request` and runs its replicates in slices of
/// ~[`NOISE_SLICE_MS`], posting the replicates done after each; stops when request
/// `id` is cancelled (the view asked a newer question) or the data set is closed.
pub(super) fn start_flips_noise(id: u64, request: FlipsNoiseRequest) {
    let job = STATE.with(|s| {
        s.borrow_mut()
            .session
            .as_mut()
            .map(|session| session.flips_noise_start(id, &request))
    });
    let mut job = match job {
        None => {
            return post(&engine::worker_error(
                id,
                codes::NO_DATASET,
                "no data set is open",
            ))
        }
        Some(Err(e)) => return post(&engine::worker_error(id, codes::BAD_PARAMETERS, e)),
        Some(Ok(job)) => job,
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
            let took = (now_ms() - start).max(0.1);
            per_slice = ((per_slice as f64 / took * NOISE_SLICE_MS) as usize).clamp(1, 1000);
            post(&FromWorker::LabProgress { id, done, total });
        }
    });
}
