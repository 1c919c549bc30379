//! The ranking-flips view's flips against noise: the worker's paired bootstrap
//! (`crate::proto::flips::FlipsNoiseRequest`, the defaults of `calibscope flips`)
//! marks every flip "within noise" or "beyond noise" with the shares of replicates in
//! which the pair keeps its order at the two bin counts. `data-metric` paths are
//! those of `calibscope flips --metric all --json` (documented in the engine's
//! `flips_noise` module).

use crate::proto::flips::{FlipsMatrices, FlipsNoise, FlipsNoiseRequest};
use crate::proto::{FromWorker, ToWorker};
use crate::shared::numfmt::{data_value, percent};
use calibscope_audit::flips_noise::stable_share;
use calibscope_core::bootstrap::{BootstrapSettings, DEFAULT_REPLICATES};
use leptos::prelude::*;
use serde_json::Value;

use crate::client::{Reply, Request};
use crate::flips::state::FlipsState;

impl Request for FlipsNoiseRequest {
    type Answer = FlipsNoise;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::FlipsNoise {
            id,
            request: self.clone(),
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<FlipsNoise>> {
        match msg {
            FromWorker::FlipsNoise { answer, .. } => Some(Reply::Done(answer)),
            _ => None,
        }
    }

    const CANCELLABLE: bool = true;
}

/// Whether `noise` answers the matrices `x` as shown (their binning and bin counts,
/// with or without `temperature_first`): an answer for other settings is stale.
pub fn answers(noise: &FlipsNoise, x: &FlipsMatrices, temperature_first: bool) -> bool {
    noise.binning == x.binning
        && noise.bins == x.bins
        && noise.temperature_first == temperature_first
}

/// The noise section of `metric` in `noise`, when it has one.
pub fn section<'a>(noise: &'a FlipsNoise, metric: &str) -> Option<&'a Value> {
    noise
        .metrics
        .iter()
        .find(|(m, _)| m == metric)
        .map(|(_, v)| v)
        .filter(|v| v["flips"].is_object())
}

/// A share of replicates as a percentage, with its path and full precision.
fn share_view(path: String, share: &Value) -> AnyView {
    let v = share.as_f64();
    match v {
        Some(_) => view! { <span class="num" data-metric=path data-value=data_value(v)>{percent(v)}</span> }.into_any(),
        None => view! {
            <span class="num undefined" data-metric=path data-value="null" title="the two values tie, or no replicate defines both" tabindex="0">"undefined"</span>
        }
        .into_any(),
    }
}

/// The mark of the flip of models `pair` between bin counts `lo < hi` of `metric`
/// in its noise section: "within noise" or "beyond noise" and the two shares.
/// `None` when the section does not list that flip.
pub fn flip_mark(
    section: &Value,
    metric: &str,
    (lo, hi): (usize, usize),
    pair: (&str, &str),
) -> Option<AnyView> {
    let key = format!("{lo}|{hi}");
    let list = section["flips"][&key].as_array()?;
    let (k, flip) = list.iter().enumerate().find(|(_, f)| {
        let (a, b) = (f["pair"][0].as_str(), f["pair"][1].as_str());
        (a, b) == (Some(pair.0), Some(pair.1)) || (a, b) == (Some(pair.1), Some(pair.0))
    })?;
    let path = format!("metrics.{metric}.noise.flips.{key}.{k}");
    let within = flip["within_noise"].as_bool().unwrap_or(true);
    let (class, said) = if within {
        ("noise within", "within noise")
    } else {
        ("noise beyond", "beyond noise")
    };
    Some(
        view! {
            <span class="noise-mark">" — "
                <span class=class data-metric=format!("{path}.within_noise") data-value=within.to_string()>{said}</span>
                ": order kept in " {share_view(format!("{path}.shares.0"), &flip["shares"][0])}
                " of resamples at m = " {lo} " and " {share_view(format!("{path}.shares.1"), &flip["shares"][1])}
                " at m = " {hi}
            </span>
        }
        .into_any(),
    )
}

/// What is shown beside a flip while its noise is computed.
pub fn pending_mark() -> impl IntoView {
    view! { <span class="noise-mark pending">" — checking against noise…"</span> }
}

/// The rule in a sentence, the bootstrap's settings and the computation's progress.
#[component]
pub fn NoiseNote() -> impl IntoView {
    let st = expect_context::<FlipsState>();
    let progress = move || {
        let calls = [st.noise_ranking, st.noise_matrices];
        let busy = calls.iter().any(|c| c.pending.get());
        let (done, total) = calls
            .iter()
            .filter_map(|c| c.progress.get())
            .fold((0, 0), |(d, t), p| (d + p.done, t + p.total));
        busy.then(|| {
            let text = if total > 0 {
                format!("Checking the flips against noise: {done} of {total} resamples done…")
            } else {
                "Checking the flips against noise…".to_string()
            };
            view! { <p class="status" id="flips-noise-status" role="status">{text}</p> }
        })
    };
    let error = move || {
        [st.noise_ranking, st.noise_matrices]
            .iter()
            .find_map(|c| c.error.get())
            .map(|e| view! { <p class="notice error" role="alert" id="flips-noise-error">{format!("The flips could not be checked against noise: {}", e.message)}</p> })
    };
    let replicates = crate::shared::numfmt::count(DEFAULT_REPLICATES as u64);
    let stable = percent(Some(stable_share(BootstrapSettings::default().alpha)));
    view! {
        <p class="note" id="flips-noise-rule">
            "Is a flip more than noise? The samples are drawn again with replacement " {replicates} " times, the same rows for every model (a paired bootstrap; Efron, “Bootstrap methods: another look at the jackknife”, 1979), "
            "and each pair of models is checked for how often it keeps its order. An order is stable at a bin count when it holds in at least " {stable} " of the resamples. "
            "A flip is marked beyond noise only when the pair's order is stable at both bin counts; otherwise it is within noise: at one of them the data cannot tell the two models apart."
        </p>
        {progress}
        {error}
    }
}
