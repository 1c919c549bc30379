//! The Recalibrate view (issue 6): split controls, the temperature fit (trace,
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

use calibscope_app::numfmt::{count, data_value, display};
use calibscope_app::proto::{FromWorker, RecalTable, ToWorker};
use calibscope_app::slider;
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::recal_views::{diagrams, maps_view, timing_view};
use super::store::Store;
use super::widgets::{get_path, model_select, num_view};
use super::{client, recal_chart, recal_ledger};

/// The latest fit the worker sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    model: usize,
    seed: u64,
    fraction: f64,
    section: Value,
    view: Value,
}

/// `(binning, reading, m, tables)` of the latest tables answer.
pub type Tables = (String, String, usize, Vec<RecalTable>);

/// The view's signals (created once, with the page).
#[derive(Clone, Copy)]
struct RecalStore {
    seed: RwSignal<u64>,
    fraction: RwSignal<f64>,
    binning: RwSignal<String>,
    m: RwSignal<usize>,
    /// The method of the AFTER diagram.
    after: RwSignal<String>,
    answer: RwSignal<Option<Answer>>,
    tables: RwSignal<Option<Tables>>,
    error: RwSignal<Option<String>>,
    fitting: RwSignal<bool>,
    export_status: RwSignal<String>,
    /// Milliseconds from the latest fit request to its answer (page clock; for the
    /// browser benchmark, `data-answer-ms`).
    answer_ms: RwSignal<Option<f64>>,
    /// The same for the first part of the answer (split and temperature scaling).
    first_ms: RwSignal<Option<f64>>,
}

#[derive(Clone, Copy, PartialEq)]
enum Want {
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

fn rs() -> RecalStore {
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

fn export(method: String, want: Want) {
    rs().export_status.set("Preparing the file…".into());
    let id = client::request(|id| ToWorker::RecalExport { id, method });
    REQ.with(|q| q.borrow_mut().exports.insert(id, want));
}

pub(super) fn f64_at(v: &Value, path: &str) -> Option<f64> {
    get_path(v, path).and_then(Value::as_f64)
}

fn int_view(path: String, v: Option<u64>) -> AnyView {
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
                <p class="sub">"Fit on the calibration split, measure on the evaluation split (METRICS.md §6). Temperature scaling divides every logit by one τ; Platt fits σ(a·s + b); isotonic fits a non-decreasing step map."</p>
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
            <span class="sub">"Stratified by class: SplitMix64 Fisher–Yates per class; the first ⌊n_class · f⌋ of each shuffled class calibrate."</span>
        </div>
    }
}

#[component]
fn Fitted(answer: Answer) -> impl IntoView {
    let store = expect_context::<Store>();
    let r = rs();
    let prefix = store.prefix(answer.model);
    let sec = answer.section.clone();
    let vd = answer.view.clone();
    let binary = store
        .summary
        .with_untracked(|s| s.as_ref().is_some_and(|s| s.kind == "binary"));
    let p = |k: &str| format!("{prefix}recalibration.{k}");
    let n_cal = get_path(&sec, "split.n_cal").and_then(Value::as_u64);
    let n_eval = get_path(&sec, "split.n_eval").and_then(Value::as_u64);
    // class counts and shares
    let names: Vec<String> = get_path(&vd, "class_names")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    let counts = |which: &str| -> Vec<u64> {
        get_path(&vd, &format!("class_counts.{which}"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default()
    };
    let (cal_c, eval_c) = (counts("calibration"), counts("evaluation"));
    let share = |c: u64, total: Option<u64>| total.filter(|&t| t > 0).map(|t| c as f64 / t as f64);
    let class_rows = cal_c
        .iter()
        .zip(&eval_c)
        .enumerate()
        .map(|(i, (&c, &e))| {
            let name = names.get(i).cloned().unwrap_or_else(|| i.to_string());
            view! {
                <tr><th scope="row">{name}</th>
                    <td>{int_view(p(&format!("split.class_counts.calibration.{i}")), Some(c))}</td>
                    <td>{num_view(p(&format!("split.class_share.calibration.{i}")), share(c, n_cal), "empty split")}</td>
                    <td>{int_view(p(&format!("split.class_counts.evaluation.{i}")), Some(e))}</td>
                    <td>{num_view(p(&format!("split.class_share.evaluation.{i}")), share(e, n_eval), "empty split")}</td>
                </tr>
            }
        })
        .collect_view();
    // temperature
    let tau = f64_at(&sec, "temperature.tau");
    let nll1 = f64_at(&sec, "temperature.nll_cal_tau1");
    let nll_t = f64_at(&sec, "temperature.nll_cal_tau");
    let undefined_t = get_path(&sec, "temperature.undefined")
        .and_then(Value::as_str)
        .map(str::to_string);
    let verdict = get_path(&sec, "temperature.verdict")
        .and_then(Value::as_str)
        .unwrap_or("")
        .replace("tau", "τ");
    let at_end = get_path(&sec, "temperature.at_bracket_end").and_then(Value::as_bool);
    let trace = get_path(&sec, "temperature.trace")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let trace_rows = trace
        .iter()
        .enumerate()
        .filter(|(_, s)| s["iteration"].as_u64().is_some_and(|i| i % 10 == 0))
        .map(|(i, s)| {
            view! { <tr>
                <td>{int_view(p(&format!("temperature.trace.{i}.iteration")), s["iteration"].as_u64())}</td>
                <td>{num_view(p(&format!("temperature.trace.{i}.width")), s["width"].as_f64(), "")}</td>
                <td>{num_view(p(&format!("temperature.trace.{i}.best_tau")), s["best_tau"].as_f64(), "")}</td>
                <td>{num_view(p(&format!("temperature.trace.{i}.best_nll")), s["best_nll"].as_f64(), "")}</td>
            </tr> }
        })
        .collect_view();
    let curve: Vec<[f64; 2]> = get_path(&vd, "tau_curve")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| Some([p.get(0)?.as_f64()?, p.get(1)?.as_f64()?]))
                .collect()
        })
        .unwrap_or_default();
    let tau_svg = (!curve.is_empty()).then(|| recal_chart::tau_curve(&curve, tau, nll_t));
    let warnings = get_path(&sec, "warnings")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|w| w.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let eval_m_max = (n_eval.unwrap_or(1) as usize).clamp(1, 2000);
    let steps = slider::steps(eval_m_max, &[10, 15]);
    if r.m.get_untracked() > eval_m_max {
        r.m.set(eval_m_max);
    }
    let steps2 = steps.clone();
    let max_pos = (steps.len() - 1).to_string();
    let steps_attr = steps
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let sec_l = sec.clone();
    let prefix_l = prefix.clone();
    let prefix_t = prefix.clone();
    let maps = maps_view(&vd, binary);
    view! {
        <section class="recal-split" aria-label="Split">
            <h3>"Split: " {int_view(p("split.n_cal"), n_cal)} " calibration / " {int_view(p("split.n_eval"), n_eval)} " evaluation rows"
                " (seed " <span data-metric=p("split.seed") data-value=answer.seed.to_string()>{answer.seed.to_string()}</span>
                ", f = " <span data-metric=p("split.f") data-value=data_value(Some(answer.fraction))>{display(Some(answer.fraction))}</span> ")"</h3>
            <div class="scroll"><table class="class-split" id="recal-class-split">
                <thead><tr><th scope="col">"class"</th><th scope="col">"calibration"</th><th scope="col">"share"</th><th scope="col">"evaluation"</th><th scope="col">"share"</th></tr></thead>
                <tbody>{class_rows}</tbody>
            </table></div>
        </section>
        {(!warnings.is_empty()).then(|| view! { <div class="notice warn" role="note" id="recal-warnings">{warnings.into_iter().map(|w| view! { <p>"Warning: " {w}</p> }).collect_view()}</div> })}
        <section class="recal-fit" aria-labelledby="recal-fit-title">
            <h3 id="recal-fit-title">"Temperature fit on the calibration split"</h3>
            {match undefined_t {
                Some(why) => view! { <p class="notice">"Temperature scaling is undefined: " <span data-metric=p("temperature.tau") data-value="null">{why}</span></p> }.into_any(),
                None => view! {
                    <div class="fit-grid">
                        <div>
                            <p class="tau">"τ* = " {num_view(p("temperature.tau"), tau, "")}</p>
                            <p class="verdict" id="recal-verdict">{verdict}</p>
                            <p>"NLL on the calibration split: " {num_view(p("temperature.nll_cal_tau1"), nll1, "")} " (τ = 1) → " {num_view(p("temperature.nll_cal_tau"), nll_t, "")} " (τ*)"</p>
                            <p>"At bracket end: " <span class=if at_end == Some(true) { "badge warn" } else { "badge ok" } id="recal-bracket-end"
                                data-metric=p("temperature.at_bracket_end") data-value=at_end.map_or("null".into(), |b| b.to_string())>
                                {if at_end == Some(true) { "yes" } else { "no" }}</span>
                                {(at_end == Some(true)).then(|| view! { <span class="sub">" τ* lies within 1e-6 of 0.05 or 20: τ → 0.05 means the calibration split is separable by the scores (the NLL keeps falling as they sharpen); τ → 20 means the scores carry no information about the labels."</span> })}
                            </p>
                            <table class="trace" id="recal-trace">
                                <caption>"Golden-section search over [0.05, 20], 80 iterations"</caption>
                                <thead><tr><th scope="col">"iter"</th><th scope="col">"bracket width"</th><th scope="col">"best τ"</th><th scope="col">"best NLL"</th></tr></thead>
                                <tbody>{trace_rows}</tbody>
                            </table>
                        </div>
                        <figure class="tau-curve" id="recal-tau-curve">
                            <div class="svg" role="img" aria-label="Calibration NLL against τ on a log axis; the dot marks τ*" inner_html=tau_svg.unwrap_or_default()></div>
                            <figcaption class="legend">"Calibration NLL against τ (log axis); the dot marks τ*, the grey line τ = 1."</figcaption>
                        </figure>
                    </div>
                }.into_any(),
            }}
        </section>
        <section class="recal-diagrams" aria-labelledby="recal-diagrams-title">
            <h3 id="recal-diagrams-title">"Before and after, on the evaluation split"</h3>
            <div class="controls" role="group" aria-label="Before/after diagram settings">
                <label>"After "
                    <select id="recal-after" prop:value=move || r.after.get() on:change=move |ev| r.after.set(event_target_value(&ev))>
                        <option value="temperature">"temperature"</option>
                        <option value="platt">"Platt"</option>
                        <option value="isotonic">"isotonic"</option>
                    </select>
                </label>
                <fieldset class="toggle">
                    <legend>"Binning"</legend>
                    <label><input type="radio" name="recal-binning" id="recal-binning-width" prop:checked=move || r.binning.get() == "width" on:change=move |_| r.binning.set("width".into())/>"equal-width"</label>
                    <label><input type="radio" name="recal-binning" id="recal-binning-mass" prop:checked=move || r.binning.get() == "mass" on:change=move |_| r.binning.set("mass".into())/>"equal-mass"</label>
                </fieldset>
                <div class="slider">
                    <label for="recal-m-slider">"Bins m = " <output id="recal-m-value">{move || r.m.get()}</output></label>
                    <input id="recal-m-slider" type="range" min="0" max=max_pos
                        data-steps=steps_attr
                        prop:value=move || slider::position(&steps2, r.m.get()).to_string()
                        aria-valuetext=move || format!("{} bins", r.m.get())
                        on:input=move |ev| {
                            let i: usize = event_target_value(&ev).parse().unwrap_or(0);
                            if let Some(&m) = steps.get(i) { r.m.set(m); }
                        }/>
                </div>
            </div>
            {move || r.tables.get().map(|t| diagrams(&prefix, &t, &r.after.get()))}
        </section>
        <section class="recal-ledger" aria-labelledby="recal-ledger-title">
            <h3 id="recal-ledger-title">"Ledger"</h3>
            {move || recal_ledger::ledger(&prefix_l, &sec_l, binary, r.tables.get().as_ref())}
        </section>
        <section class="recal-checks" aria-labelledby="recal-checks-title">
            <h3 id="recal-checks-title">"Invariance checks, computed from the data"</h3>
            {recal_ledger::invariants(&store.prefix(answer.model), &sec, &vd, binary)}
        </section>
        <section class="recal-risk" aria-labelledby="recal-risk-title">
            <h3 id="recal-risk-title">"Risk"</h3>
            {recal_ledger::risk_warnings(&store.prefix(answer.model), &sec)}
        </section>
        <section class="recal-maps" aria-labelledby="recal-maps-title">
            <h3 id="recal-maps-title">"The fitted maps"</h3>
            {maps}
        </section>
        {timing_view(&prefix_t, &vd)}
        <section class="recal-downloads" aria-labelledby="recal-downloads-title">
            <h3 id="recal-downloads-title">"Downloads"</h3>
            <p class="sub">"Every input row in input order (ids kept), with a split column; the same files as "<code>"calibscope recalibrate --out FILE --params FILE"</code>"."</p>
            <div class="downloads">
                {["temperature", "platt", "isotonic"].into_iter().map(|m| view! {
                    <div class="download-group">
                        <strong>{m}</strong>
                        <button id=format!("recal-download-csv-{m}") on:click=move |_| export(m.into(), Want::Csv)>"predictions (CSV)"</button>
                        <button id=format!("recal-download-json-{m}") on:click=move |_| export(m.into(), Want::Json)>"parameters (JSON)"</button>
                    </div>
                }).collect_view()}
            </div>
            <p class="sub" role="status" id="recal-export-status">{move || r.export_status.get()}</p>
        </section>
    }
}
