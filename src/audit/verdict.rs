//! The audit's answer first: one sentence per model saying whether its confidence
//! can be trusted, with the interval and the test it rests on. The audit arrives in
//! two stages: the point estimates with the opened data set, then this view's own
//! request ([`Bootstrap`]), the binning-free estimators, the tests and the
//! bootstrap's intervals, which the worker computes in slices (progress shown,
//! cancelled by a newer data set: latest wins) and which replace the audits in the
//! store once they arrive.

use calibscope_core::verdict::{Piece, Verdict, VerdictKind};
use leptos::prelude::*;
use serde_json::Value;

use crate::client::call::{Call, Mode};
use crate::client::{Client, Reply, Request};
use crate::page::store::Store;
use crate::proto::{FromWorker, ToWorker};
use crate::shared::widgets::get_path;

/// The bootstrap's replicates, seed and level: the command line's defaults, so the
/// page's numbers are `calibscope audit --bootstrap 1000 --seed 0 --alpha 0.05`'s.
pub const REPLICATES: usize = 1000;
pub const SEED: u64 = 0;
pub const ALPHA: f64 = 0.05;

/// Verdicts listed on a narrow screen before "show the others" (the selected
/// model's is always shown).
const SHOWN_ON_PHONES: usize = 3;

/// The second stage of the audit of the open data set.
pub struct Bootstrap {
    pub replicates: usize,
    pub seed: u64,
    pub alpha: f64,
}

impl Request for Bootstrap {
    type Answer = Vec<Value>;
    const CANCELLABLE: bool = true;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Bootstrap {
            id,
            replicates: self.replicates,
            seed: self.seed,
            alpha: self.alpha,
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<Vec<Value>>> {
        match msg {
            FromWorker::Bootstrapped { audits, .. } => Some(Reply::Done(audits)),
            _ => None,
        }
    }
}

/// The second stage's request and its state (a context value, made once by the
/// page's opening).
#[derive(Clone, Copy)]
pub struct SecondStage {
    call: Call<Bootstrap>,
    /// Whether the data set shown is an aggregate (no verdict from cells).
    aggregate: crate::page::aggregate::AggregateMarks,
    /// Replicates done and in all, while the bootstrap runs.
    pub progress: RwSignal<Option<(u64, u64)>>,
    pub error: RwSignal<Option<String>>,
    /// Milliseconds from asking to the answer (page clock), for the benchmark.
    pub elapsed: RwSignal<Option<f64>>,
}

impl SecondStage {
    /// The stage of `store`'s data set.
    pub fn new(store: Store, client: Client) -> SecondStage {
        let progress = RwSignal::new(None);
        let error = RwSignal::new(None);
        let call = Call::handled(
            client,
            Mode::Latest,
            move |reply: Reply<Vec<Value>>| match reply {
                Reply::Progress(p) => progress.set(Some((p.done, p.total))),
                Reply::Part(_) => {}
                Reply::Done(audits) => {
                    progress.set(None);
                    // the same models as shown (a newer data set cancels this request)
                    if audits.len() == store.audits.with_untracked(Vec::len) {
                        store.audits.set(audits);
                    }
                }
                Reply::Failed(f) => {
                    progress.set(None);
                    error.set(Some(f.message));
                }
                Reply::Cancelled => progress.set(None),
            },
        );
        SecondStage {
            call,
            aggregate: store.aggregate,
            progress,
            error,
            elapsed: call.elapsed,
        }
    }

    /// Asks for the second stage of the data set just shown.
    pub fn start(self) {
        self.error.set(None);
        if self.aggregate.is_open() {
            return; // no verdict from an aggregate (its note says why)
        }
        self.progress.set(Some((0, REPLICATES as u64)));
        self.call.send(Bootstrap {
            replicates: REPLICATES,
            seed: SEED,
            alpha: ALPHA,
        });
    }

    /// Stops the stage in flight (a new data set is being read).
    pub fn cancel(self) {
        self.call.cancel();
        self.progress.set(None);
    }
}

/// The verdict of an audit document's `verdict` object.
fn verdict_of(v: &Value) -> Option<Verdict> {
    let f = |k: &str| v[k].as_f64();
    Some(Verdict {
        kind: VerdictKind::from_name(v["kind"].as_str()?)?,
        d: f("d")?,
        d_interval: (v["d_interval"][0].as_f64()?, v["d_interval"][1].as_f64()?),
        p: f("p")?,
        alpha: f("alpha")?,
        n: v["n"].as_u64()? as usize,
    })
}

/// The sentence of `verdict` (the object at `{prefix}verdict` of `audit`), each
/// number marked with the value it shows.
fn sentence(audit: &Value, prefix: &str) -> AnyView {
    let v = &audit["verdict"];
    let Some(verdict) = verdict_of(v) else {
        return view! {
            <span class="verdict-none" data-metric=format!("{prefix}verdict") data-value="null">
                "No verdict: the test or the interval is undefined on these data (for example a single sample, or forecasts that are all 0 or 1)."
            </span>
        }
        .into_any();
    };
    let pieces = verdict
        .pieces()
        .into_iter()
        .map(|piece| match piece {
            Piece::Words(t) => view! { <span>{t}</span> }.into_any(),
            Piece::Value { key, text } => {
                let value = get_path(audit, &format!("verdict.{key}"))
                    .map_or_else(|| "null".to_string(), Value::to_string);
                view! { <span class="num" data-metric=format!("{prefix}verdict.{key}") data-value=value>{text}</span> }
                    .into_any()
            }
        })
        .collect_view();
    let text = v["text"].as_str().unwrap_or_default().to_string();
    let kind = verdict.kind.name();
    view! {
        <span class="verdict-text" data-kind=kind data-metric=format!("{prefix}verdict.text") data-value=text>{pieces}</span>
    }
    .into_any()
}

/// The verdicts of the models shown, or the second stage's progress.
#[component]
pub fn Verdicts() -> impl IntoView {
    let store = expect_context::<Store>();
    let stage = expect_context::<SecondStage>();
    // on a phone, many verdicts would push the diagram off the first screen: the
    // first few and the selected model's are shown, the rest on request
    let show_all = RwSignal::new(false);
    move || {
        let s = store.summary.get()?;
        if crate::page::aggregate::is_open() {
            return None;
        }
        let several = s.models.len() > 1;
        let ready = store
            .audits
            .with(|a| a.first().is_some_and(|a| a.get("verdict").is_some()));
        let items = store.audits.with(|audits| {
            audits
                .iter()
                .enumerate()
                .map(|(i, audit)| {
                    let name = s.models.get(i).cloned().unwrap_or_default();
                    let prefix = store.prefix(i);
                    let body = if audit.get("verdict").is_some() {
                        sentence(audit, &prefix)
                    } else {
                        view! { <span class="pending">"Testing calibration and bootstrapping the intervals…"</span> }.into_any()
                    };
                    let select = move |_| store.model.set(i);
                    let more = i >= SHOWN_ON_PHONES;
                    view! {
                        <li data-model=name.clone() class:selected=move || several && store.model.get() == i
                            class:more=more>
                            {several.then(|| view! {
                                <button class="linklike model-name" on:click=select title="Explore this model's reliability">{name.clone()}</button>
                                ": "
                            })}
                            {body}
                        </li>
                    }
                })
                .collect_view()
        });
        let progress = move || {
            stage.progress.get().map(|(done, total)| {
                view! {
                    <p class="verdict-progress">
                        <label>"Bootstrap "
                            <progress max=total.to_string() value=done.to_string()>{format!("{done}/{total}")}</progress>
                        </label>
                        " " {format!("{done} of {total} resamples")}
                    </p>
                }
            })
        };
        let error = move || {
            stage
                .error
                .get()
                .map(|e| view! { <p class="lab-error" role="alert">{e}</p> })
        };
        let how = ready.then(|| view! {
            <details class="verdict-how">
                <summary>"How this is decided"</summary>
                <p>"Confidence minus accuracy is the mean confidence of the top-label predictions less the share of them that are right. Its interval is the middle 95 % of its values over "
                    {REPLICATES} " resamples of the rows drawn with replacement (seed " {SEED} "; every model of a file is resampled with the same rows)."</p>
                <p>"The test is the cumulative-differences test (Tygert 2021; Arrieta-Ibarra et al. 2022): it sorts the predictions by confidence, adds up outcome minus confidence, and asks whether that running sum strays further from zero than chance allows. Below p = 0.05 the model is called over- or underconfident when the whole interval lies on one side of zero, and miscalibrated in places otherwise; at or above it there is no evidence of miscalibration at this sample size."</p>
            </details>
        });
        Some(view! {
            <section class="verdicts" id="verdict" aria-labelledby="verdict-title"
                data-stage-ms=move || stage.elapsed.get().map(|ms| format!("{ms:.0}"))>
                <h2 id="verdict-title">"Can the confidence be trusted?"</h2>
                <ul class="verdict-list" class:all=move || show_all.get() aria-live="polite">{items}</ul>
                {(s.models.len() > SHOWN_ON_PHONES).then(|| {
                    let hidden = s.models.len() - SHOWN_ON_PHONES;
                    view! {
                        <button type="button" class="linklike verdict-more" id="verdict-more"
                            aria-expanded=move || show_all.get().to_string()
                            on:click=move |_| show_all.update(|a| *a = !*a)>
                            {move || if show_all.get() { "Show fewer verdicts".to_string() } else { format!("Show the other {hidden} models' verdicts") }}
                        </button>
                    }
                })}
                {progress}
                {error}
                {how}
            </section>
        })
    }
}
