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

use std::cell::RefCell;
use std::collections::HashMap;

use crate::numfmt::count;
use crate::proto::{FromWorker, RecalTable, ToWorker};
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::client;
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
    pub(super) view: Value,
}

/// `(binning, reading, m, tables)` of the latest tables answer.
pub type Tables = (String, String, usize, Vec<RecalTable>);

/// The view's signals (created once, with the page).
#[derive(Clone, Copy)]
pub(super) struct RecalStore {
    pub(super) seed: RwSignal<u64>,
    pub(super) fraction: RwSignal<f64>,
    pub(super) binning: RwSignal<String>,
    pub(super) m: RwSignal<usize>,
    /// The method of the AFTER diagram.
    pub(super) after: RwSignal<String>,
    pub(super) answer: RwSignal<Option<Answer>>,
    pub(super) tables: RwSignal<Option<Tables>>,
    pub(super) error: RwSignal<Option<String>>,
    pub(super) fitting: RwSignal<bool>,
    pub(super) export_status: RwSignal<String>,
    /// Milliseconds from the latest fit request to its answer (page clock; for the
    /// browser benchmark, `data-answer-ms`).
    pub(super) answer_ms: RwSignal<Option<f64>>,
    /// The same for the first part of the answer (split and temperature scaling).
    pub(super) first_ms: RwSignal<Option<f64>>,
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Want {
    Csv,
    Json,
}

#[derive(Default)]
struct Requests {
    fit_gen: u64,
    /// When the latest fit was asked (`performance.now()`).
    fit_sent: f64,
    tables_gen: u64,
    /// Fit and table requests in flight.
    ours: Vec<u64>,
    /// Export requests in flight and the file each one is for.
    exports: HashMap<u64, Want>,
}

thread_local! {
    static RS: RefCell<Option<RecalStore>> = const { RefCell::new(None) };
    static REQ: RefCell<Requests> = RefCell::new(Requests::default());
}

pub(super) fn rs() -> RecalStore {
    RS.with(|r| r.borrow().expect("recal::init ran"))
}

/// The settings a permalink carries: seed, fraction, binning, m and the AFTER method.
pub type Settings = (
    RwSignal<u64>,
    RwSignal<f64>,
    RwSignal<String>,
    RwSignal<usize>,
    RwSignal<String>,
);

pub fn settings() -> Settings {
    let r = rs();
    (r.seed, r.fraction, r.binning, r.m, r.after)
}

/// Creates the view's signals (call once, from the App) and forgets a recalibration
/// when another data set is opened.
pub fn init(store: Store) {
    let r = RecalStore {
        seed: RwSignal::new(0),
        fraction: RwSignal::new(0.5),
        binning: RwSignal::new("width".into()),
        m: RwSignal::new(15),
        after: RwSignal::new("temperature".into()),
        answer: RwSignal::new(None),
        tables: RwSignal::new(None),
        error: RwSignal::new(None),
        fitting: RwSignal::new(false),
        export_status: RwSignal::new(String::new()),
        answer_ms: RwSignal::new(None),
        first_ms: RwSignal::new(None),
    };
    RS.with(|s| *s.borrow_mut() = Some(r));
    Effect::new(move |_| {
        store.summary.track();
        r.answer.set(None);
        r.tables.set(None);
        r.error.set(None);
    });
}

fn fit(model: usize, seed: u64, fraction: f64) {
    let gen = REQ.with(|q| {
        let mut q = q.borrow_mut();
        q.fit_gen += 1;
        q.fit_sent = now();
        q.fit_gen
    });
    let r = rs();
    r.fitting.set(true);
    r.answer_ms.set(None);
    r.first_ms.set(None);
    let id = client::request(|id| ToWorker::Recalibrate {
        id,
        gen,
        model,
        seed,
        fraction,
    });
    REQ.with(|q| q.borrow_mut().ours.push(id));
}

fn ask_tables(binning: String, m: usize) {
    let gen = REQ.with(|q| {
        let mut q = q.borrow_mut();
        q.tables_gen += 1;
        q.tables_gen
    });
    let id = client::request(|id| ToWorker::RecalTables {
        id,
        gen,
        binning,
        m,
    });
    REQ.with(|q| q.borrow_mut().ours.push(id));
}

/// An answer of the worker to one of this view's requests (from the client).
pub fn answer(msg: FromWorker) {
    let r = rs();
    let (fit_gen, tables_gen) = REQ.with(|q| {
        let q = q.borrow();
        (q.fit_gen, q.tables_gen)
    });
    match msg {
        FromWorker::Recalibrated {
            id,
            gen,
            model,
            seed,
            fraction,
            complete,
            section,
            view,
        } => {
            if complete {
                forget(id);
            }
            if gen == fit_gen {
                let sent = REQ.with(|q| q.borrow().fit_sent);
                let ms = Some(now() - sent);
                if complete {
                    r.answer_ms.set(ms);
                } else {
                    r.first_ms.set(ms);
                }
                r.fitting.set(!complete);
                r.error.set(None);
                r.answer.set(Some(Answer {
                    model,
                    seed,
                    fraction,
                    section,
                    view,
                }));
            }
        }
        FromWorker::RecalTables {
            id,
            gen,
            binning,
            m,
            reading,
            tables,
        } => {
            forget(id);
            if gen == tables_gen {
                r.tables.set(Some((binning, reading, m, tables)));
            }
        }
        FromWorker::RecalExport {
            id,
            method,
            stem,
            csv,
            params,
        } => {
            let want = REQ.with(|q| q.borrow_mut().exports.remove(&id));
            let (name, text, mime) = match want {
                Some(Want::Json) => (format!("{stem}_params.json"), params, "application/json"),
                _ => (format!("{stem}.csv"), csv, "text/csv"),
            };
            r.export_status.set(match download(&name, &text, mime) {
                Ok(()) => format!("Saved {name} ({method})."),
                Err(e) => format!("The download failed: {e:?}"),
            });
        }
        _ => {}
    }
}

fn now() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

fn forget(id: u64) {
    REQ.with(|q| q.borrow_mut().ours.retain(|&x| x != id));
}

/// An error answer: shown in the view when it answers one of its requests.
pub fn failed(id: u64, message: &str) {
    let (ours, export) = REQ.with(|q| {
        let mut q = q.borrow_mut();
        let ours = q.ours.contains(&id);
        q.ours.retain(|&x| x != id);
        (ours, q.exports.remove(&id).is_some())
    });
    let Some(r) = RS.with(|s| *s.borrow()) else {
        return;
    };
    if ours {
        r.fitting.set(false);
        r.error.set(Some(message.to_string()));
    }
    if export {
        r.export_status
            .set(format!("The file could not be made: {message}"));
    }
}

/// Saves `text` as a file through a Blob and an object URL (same origin).
fn download(name: &str, text: &str, mime: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?;
    let url_api = js_sys::Reflect::get(&window(), &"URL".into())?;
    let create: js_sys::Function =
        js_sys::Reflect::get(&url_api, &"createObjectURL".into())?.dyn_into()?;
    let revoke: js_sys::Function =
        js_sys::Reflect::get(&url_api, &"revokeObjectURL".into())?.dyn_into()?;
    let url = create.call1(&url_api, &blob)?;
    let doc = document();
    let a = doc.create_element("a")?;
    a.set_attribute("href", &url.as_string().unwrap_or_default())?;
    a.set_attribute("download", name)?;
    a.set_attribute("hidden", "")?;
    doc.body().ok_or("no body")?.append_child(&a)?;
    a.unchecked_ref::<web_sys::HtmlElement>().click();
    a.remove();
    // revoke once the browser has taken the file
    let revoke_later = Closure::once_into_js(move || {
        let _ = revoke.call1(&url_api, &url);
    });
    window().set_timeout_with_callback_and_timeout_and_arguments_0(
        revoke_later.unchecked_ref(),
        60_000,
    )?;
    Ok(())
}

pub(super) fn export(method: String, want: Want) {
    rs().export_status.set("Preparing the file…".into());
    let id = client::request(|id| ToWorker::RecalExport { id, method });
    REQ.with(|q| q.borrow_mut().exports.insert(id, want));
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
    let r = rs();
    // fit on opening the view and on every change of model, seed or fraction
    Effect::new(move |_| {
        let Some(kind) = store.summary.with(|s| s.as_ref().map(|s| s.kind.clone())) else {
            return;
        };
        let (model, seed, fraction) = (store.model.get(), r.seed.get(), r.fraction.get());
        if kind == "toplabel" {
            return;
        }
        let cached = r.answer.with_untracked(|a| {
            a.as_ref()
                .is_some_and(|a| a.model == model && a.seed == seed && a.fraction == fraction)
        });
        if !cached {
            fit(model, seed, fraction);
        }
    });
    // the before/after tables at the chosen bins
    Effect::new(move |_| {
        let has = r.answer.with(|a| a.is_some());
        let (binning, m) = (r.binning.get(), r.m.get());
        if has {
            ask_tables(binning, m);
        }
    });
    move || {
        let s = store.summary.get()?;
        if s.kind == "toplabel" {
            return Some(view! {
                <section class="recal" id="recalibrate"><h2>"Recalibrate"</h2>
                <p class="notice" id="recal-undefined">"Top-label input (predicted class + confidence) has no scores to recalibrate: give probabilities or logits."</p></section>
            }.into_any());
        }
        Some(view! {
            <section class="recal" id="recalibrate" aria-labelledby="recal-title"
                data-answer-ms=move || r.answer_ms.get().map(|v| format!("{v:.1}")).unwrap_or_default()
                data-first-ms=move || r.first_ms.get().map(|v| format!("{v:.1}")).unwrap_or_default()>
                <h2 id="recal-title">"Recalibrate"</h2>
                <p class="sub">"Fit on the calibration split, measure on the evaluation split, so that no number is judged on the rows it was fitted to. Temperature scaling divides every logit by one τ; Platt fits σ(a·s + b); isotonic fits a non-decreasing step map."</p>
                <SplitControls/>
                {move || r.error.get().map(|e| view! { <p class="notice error" role="alert" id="recal-error">{e}</p> })}
                {move || r.fitting.get().then(|| view! { <p class="sub" role="status" id="recal-fitting">{if r.answer.with(|a| a.is_some()) { "Fitting Platt and isotonic…" } else { "Fitting…" }}</p> })}
                {move || r.answer.get().map(|a| view! { <Fitted answer=a/> })}
            </section>
        }.into_any())
    }
}

#[component]
fn SplitControls() -> impl IntoView {
    let store = expect_context::<Store>();
    let r = rs();
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
