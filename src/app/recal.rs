//! The Recalibrate view: split controls, the temperature fit (trace,
//! verdict, τ curve), BEFORE/AFTER reliability diagrams on the evaluation split, the
//! ledger, the invariance checks, risk warnings, the fitted maps and the downloads.
//! Everything is computed in the worker (`engine::recal`); this module asks, keeps
//! the latest answers and draws them.
//!
//! `data-metric` paths: the audit JSON's `recalibration.*` (as in the fixtures), plus
//! for what it lacks: `recalibration.split.class_counts.{calibration,evaluation}.<r>`
//! and `.class_share.…`, `recalibration.temperature.trace.<i>.{iteration,width,
//! best_tau,best_nll}` (list index, iterations 10, 20, …),
//! `recalibration.<set>.binned.<reading>.<binning>.<m>.{ece,cal,ref,rows.<i>.<key>}`
//! (`<set>`: before, temperature, platt, isotonic), `recalibration.<method>.checks.
//! <key>` (probability checks of every method) and `recalibration.timing.<part>_ms`.

use crate::numfmt::count;
use crate::proto::{FromWorker, Reading, RecalTable, RecalView, ToWorker};
use calibscope_audit::Method;
use calibscope_core::binning::Binning;
use calibscope_core::Kind;
use leptos::prelude::*;
use serde_json::Value;

use super::call::{Call, Mode};
use super::client::{Client, Reply, Request};
use super::download::save_text;
use super::recal_fitted::Fitted;
use super::store::Store;
use super::widgets::{get_path, model_select};

/// The latest fit the worker sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub(super) model: usize,
    pub(super) seed: u64,
    pub(super) fraction: f64,
    pub(super) section: Value,
    pub(super) view: RecalView,
}

/// The latest tables answer: the evaluation split before and after each method.
#[derive(Clone, Debug, PartialEq)]
pub struct Tables {
    pub binning: Binning,
    pub reading: Reading,
    pub m: usize,
    pub tables: Vec<RecalTable>,
}

/// Split model `model` with `seed` and `fraction`, fit every method.
struct Fit {
    model: usize,
    seed: u64,
    fraction: f64,
}

impl Request for Fit {
    type Answer = Answer;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Recalibrate {
            id,
            gen: id,
            model: self.model,
            seed: self.seed,
            fraction: self.fraction,
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<Answer>> {
        match msg {
            FromWorker::Recalibrated {
                model,
                seed,
                fraction,
                complete,
                section,
                view,
                ..
            } => {
                let answer = Answer {
                    model,
                    seed,
                    fraction,
                    section,
                    view,
                };
                // the first part (split, temperature) is followed by the second
                Some(if complete {
                    Reply::Done(answer)
                } else {
                    Reply::Part(answer)
                })
            }
            _ => None,
        }
    }
}

/// The before/after tables of the last fit at `(binning, m)`.
struct TablesAt {
    binning: Binning,
    m: usize,
}

impl Request for TablesAt {
    type Answer = Tables;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::RecalTables {
            id,
            gen: id,
            binning: self.binning,
            m: self.m,
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<Tables>> {
        match msg {
            FromWorker::RecalTables {
                binning,
                m,
                reading,
                tables,
                ..
            } => Some(Reply::Done(Tables {
                binning,
                reading,
                m,
                tables,
            })),
            _ => None,
        }
    }
}

/// Which file of a method's export to save.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Want {
    Csv,
    Json,
}

/// The last fit's files for `method`.
struct ExportOf {
    method: Method,
    want: Want,
}

/// A file to save: `(name, text, MIME type)` and the method it is of.
#[derive(Clone, Debug, PartialEq)]
struct Export {
    name: String,
    text: String,
    mime: &'static str,
    method: Method,
}

impl Request for ExportOf {
    type Answer = Export;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::RecalExport {
            id,
            method: self.method,
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<Export>> {
        match msg {
            FromWorker::RecalExport {
                method,
                stem,
                csv,
                params,
                ..
            } => Some(Reply::Done(match self.want {
                Want::Json => Export {
                    name: format!("{stem}_params.json"),
                    text: params,
                    mime: "application/json",
                    method,
                },
                Want::Csv => Export {
                    name: format!("{stem}.csv"),
                    text: csv,
                    mime: "text/csv",
                    method,
                },
            })),
            _ => None,
        }
    }
}

/// The settings a permalink carries: seed, fraction, binning, m and the AFTER method.
#[derive(Clone, Copy)]
pub struct Settings {
    pub seed: RwSignal<u64>,
    pub fraction: RwSignal<f64>,
    pub binning: RwSignal<Binning>,
    pub m: RwSignal<usize>,
    /// The method of the AFTER diagram.
    pub after: RwSignal<Method>,
}

/// The view's state (created once, with the page, and kept while other views are
/// shown).
#[derive(Clone, Copy)]
pub struct RecalState {
    pub(super) seed: RwSignal<u64>,
    pub(super) fraction: RwSignal<f64>,
    pub(super) binning: RwSignal<Binning>,
    pub(super) m: RwSignal<usize>,
    pub(super) after: RwSignal<Method>,
    pub(super) answer: RwSignal<Option<Answer>>,
    pub(super) tables: RwSignal<Option<Tables>>,
    pub(super) error: RwSignal<Option<String>>,
    pub(super) export_status: RwSignal<String>,
    fit: Call<Fit>,
    tables_at: Call<TablesAt>,
    export: Call<ExportOf>,
}

impl RecalState {
    /// Creates the view's state (call once, from the App; provided as context): a
    /// recalibration is forgotten when another data set is opened.
    pub fn new(store: Store, client: Client) -> RecalState {
        let answer = RwSignal::new(None);
        let tables = RwSignal::new(None);
        let error = RwSignal::new(None);
        let export_status = RwSignal::new(String::new());
        let fit = Call::handled(client, Mode::Latest, move |reply| match reply {
            Reply::Part(a) | Reply::Done(a) => {
                error.set(None);
                answer.set(Some(a));
            }
            Reply::Failed(f) => error.set(Some(f.message)),
            _ => {}
        });
        let tables_at = Call::handled(client, Mode::Latest, move |reply| match reply {
            Reply::Done(t) => tables.set(Some(t)),
            Reply::Failed(f) => error.set(Some(f.message)),
            _ => {}
        });
        let export = Call::handled(
            client,
            Mode::Every,
            move |reply: Reply<Export>| match reply {
                Reply::Done(e) => export_status.set(match save_text(&e.name, e.mime, &e.text) {
                    Ok(()) => format!("Saved {} ({}).", e.name, e.method.name()),
                    Err(err) => format!("The download failed: {err:?}"),
                }),
                Reply::Failed(f) => {
                    export_status.set(format!("The file could not be made: {}", f.message))
                }
                _ => {}
            },
        );
        let r = RecalState {
            seed: RwSignal::new(0),
            fraction: RwSignal::new(0.5),
            binning: RwSignal::new(Binning::Width),
            m: RwSignal::new(15),
            after: RwSignal::new(Method::Temperature),
            answer,
            tables,
            error,
            export_status,
            fit,
            tables_at,
            export,
        };
        Effect::new(move |_| {
            store.summary.track();
            r.answer.set(None);
            r.tables.set(None);
            r.error.set(None);
        });
        r
    }

    /// The settings a permalink carries.
    pub fn settings(self) -> Settings {
        Settings {
            seed: self.seed,
            fraction: self.fraction,
            binning: self.binning,
            m: self.m,
            after: self.after,
        }
    }

    fn fit(self, model: usize, seed: u64, fraction: f64) {
        self.fit.elapsed.set(None);
        self.fit.first.set(None);
        self.fit.send(Fit {
            model,
            seed,
            fraction,
        });
    }

    /// Whether a fit is in flight (or its second part).
    pub(super) fn fitting(self) -> bool {
        self.fit.pending.get()
    }

    /// Saves the last fit's `want` file of `method`.
    pub(super) fn export(self, method: Method, want: Want) {
        self.export_status.set("Preparing the file…".into());
        self.export.send(ExportOf { method, want });
    }
}

pub(super) fn f64_at(v: &Value, path: &str) -> Option<f64> {
    get_path(v, path).and_then(Value::as_f64)
}

pub(super) fn int_view(path: String, v: Option<u64>) -> AnyView {
    view! { <span class="num" data-metric=path data-value=v.map_or("null".into(), |v| v.to_string())>{v.map_or("undefined".into(), count)}</span> }.into_any()
}

#[component]
pub fn Recalibrate() -> impl IntoView {
    let store = expect_context::<Store>();
    let r = expect_context::<RecalState>();
    // fit on opening the view and on every change of model, seed or fraction
    Effect::new(move |_| {
        let Some(kind) = store.summary.with(|s| s.as_ref().map(|s| s.kind)) else {
            return;
        };
        let (model, seed, fraction) = (store.model.get(), r.seed.get(), r.fraction.get());
        if kind == Kind::TopLabel {
            return;
        }
        let cached = r.answer.with_untracked(|a| {
            a.as_ref()
                .is_some_and(|a| a.model == model && a.seed == seed && a.fraction == fraction)
        });
        if !cached {
            r.fit(model, seed, fraction);
        }
    });
    // the before/after tables at the chosen bins
    Effect::new(move |_| {
        let has = r.answer.with(|a| a.is_some());
        let (binning, m) = (r.binning.get(), r.m.get());
        if has {
            r.tables_at.send(TablesAt { binning, m });
        }
    });
    move || {
        let s = store.summary.get()?;
        if s.kind == Kind::TopLabel {
            return Some(view! {
                <section class="recal" id="recalibrate"><h2>"Recalibrate"</h2>
                <p class="notice" id="recal-undefined">"Top-label input (predicted class + confidence) has no scores to recalibrate: give probabilities or logits."</p></section>
            }.into_any());
        }
        Some(view! {
            <section class="recal" id="recalibrate" aria-labelledby="recal-title"
                data-answer-ms=move || r.fit.elapsed.get().map(|v| format!("{v:.1}")).unwrap_or_default()
                data-first-ms=move || r.fit.first.get().map(|v| format!("{v:.1}")).unwrap_or_default()>
                <h2 id="recal-title">"Recalibrate"</h2>
                <p class="sub">"Fit on the calibration split, measure on the evaluation split, so that no number is judged on the rows it was fitted to. Temperature scaling divides every logit by one τ; Platt fits σ(a·s + b); isotonic fits a non-decreasing step map."</p>
                <SplitControls/>
                {move || r.error.get().map(|e| view! { <p class="notice error" role="alert" id="recal-error">{e}</p> })}
                {move || r.fitting().then(|| view! { <p class="sub" role="status" id="recal-fitting">{if r.answer.with(|a| a.is_some()) { "Fitting Platt and isotonic…" } else { "Fitting…" }}</p> })}
                {move || r.answer.get().map(|a| view! { <Fitted answer=a/> })}
            </section>
        }.into_any())
    }
}

#[component]
fn SplitControls() -> impl IntoView {
    let store = expect_context::<Store>();
    let r = expect_context::<RecalState>();
    // several models: recalibrate one at a time (the same choice as the explorer's)
    let models = store
        .summary
        .with_untracked(|s| s.as_ref().map(|s| s.models.clone()).unwrap_or_default());
    let model_select = model_select(store, &models, "recal-model");
    view! {
        <div class="controls" role="group" aria-label="Calibration / evaluation split">
            {model_select}
            <label>"Calibration fraction "
                <input id="recal-fraction" type="number" min="0.05" max="0.95" step="0.05"
                    prop:value=move || r.fraction.get().to_string()
                    on:change=move |ev| {
                        match event_target_value(&ev).parse::<f64>() {
                            Ok(f) if f > 0.0 && f < 1.0 => r.fraction.set(f),
                            _ => r.error.set(Some("The calibration fraction must lie strictly between 0 and 1.".into())),
                        }
                    }/>
            </label>
            <label>"Split seed "
                <input id="recal-seed" type="number" min="0" step="1"
                    prop:value=move || r.seed.get().to_string()
                    on:change=move |ev| {
                        match event_target_value(&ev).trim().parse::<u64>() {
                            Ok(v) => r.seed.set(v),
                            Err(_) => r.error.set(Some("The seed must be a whole number from 0 to 18446744073709551615.".into())),
                        }
                    }/>
            </label>
            <span class="sub">"Stratified by class: each class's rows are shuffled with the seed, and the first ⌊n_class · f⌋ of each class calibrate. The same seed always gives the same split, here, in the command line tool and in shared links."</span>
        </div>
    }
}
