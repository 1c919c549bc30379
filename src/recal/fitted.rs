//! The Recalibrate view's fitted part: the split's class counts, the temperature
//! fit (trace, verdict, τ curve), the ledger, the checks, the diagrams and maps,
//! and the downloads, drawn from the worker's latest answer ([`Answer`]).

use crate::shared::chart::SizedSvg;
use crate::shared::numfmt::{data_value, display};
use crate::shared::slider;
use calibscope_audit::Method;
use calibscope_core::binning::Binning;
use calibscope_core::Kind;
use leptos::prelude::*;
use serde_json::Value;

use crate::page::store::Store;
use crate::recal::drawn::{diagrams, maps_view, timing_view};
use crate::recal::state::{f64_at, Answer, RecalState, Want};
use crate::recal::{best, ledger};
use crate::shared::widgets::count_view as int_view;
use crate::shared::widgets::{get_path, num_view};

#[component]
pub(crate) fn Fitted(answer: Answer) -> impl IntoView {
    let store = expect_context::<Store>();
    let r = expect_context::<RecalState>();
    let prefix = store.prefix(answer.model);
    let sec = answer.section.clone();
    let vd = answer.view.clone();
    let binary = store
        .summary
        .with_untracked(|s| s.as_ref().is_some_and(|s| s.kind == Kind::Binary));
    let p = |k: &str| format!("{prefix}recalibration.{k}");
    let n_cal = get_path(&sec, "split.n_cal").and_then(Value::as_u64);
    let n_eval = get_path(&sec, "split.n_eval").and_then(Value::as_u64);
    // class counts and shares
    let names = &vd.class_names;
    let counts = |c: &[usize]| -> Vec<u64> { c.iter().map(|&c| c as u64).collect() };
    let (cal_c, eval_c) = (
        counts(&vd.class_counts.calibration),
        counts(&vd.class_counts.evaluation),
    );
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
    let curve = &vd.tau_curve;
    let tau_points = (!curve.is_empty()).then(|| curve.clone());
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
    let ledger_l = vd.ledger.clone();
    let prefix_l = prefix.clone();
    let prefix_t = prefix.clone();
    let prefix_m = prefix.clone();
    let maps = maps_view(&vd, binary);
    let offered = crate::recal::state::offered(&vd);
    let left_out = vd.left_out.clone();
    view! {
        <section class="recal-split" aria-label="Split">
            <h3>"Split: " {int_view(p("split.n_cal"), n_cal)} " calibration / " {int_view(p("split.n_eval"), n_eval)} " evaluation rows"
                " (seed " <span data-metric=p("split.seed") data-value=answer.seed.to_string()>{answer.seed.to_string()}</span>
                ", f = " <span data-metric=p("split.f") data-value=data_value(Some(answer.fraction))>{display(Some(answer.fraction))}</span> ")"</h3>
            <div class="scroll" tabindex="0"><table class="class-split" id="recal-class-split">
                <thead><tr><th scope="col">"class"</th><th scope="col">"calibration"</th><th scope="col">"share"</th><th scope="col">"evaluation"</th><th scope="col">"share"</th></tr></thead>
                <tbody>{class_rows}</tbody>
            </table></div>
        </section>
        {left_out.map(|why| view! { <p class="notice" role="note" id="recal-left-out">"Only temperature scaling is fitted: " {why} "."</p> })}
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
                            <details class="impl-details" id="recal-trace-details">
                                <summary>"Details: how τ* was searched"</summary>
                                <table class="trace" id="recal-trace">
                                    <caption>"Golden-section search over [0.05, 20], 80 iterations"</caption>
                                    <thead><tr><th scope="col">"iter"</th><th scope="col">"bracket width"</th><th scope="col">"best τ"</th><th scope="col">"best NLL"</th></tr></thead>
                                    <tbody>{trace_rows}</tbody>
                                </table>
                            </details>
                        </div>
                        <figure class="tau-curve" id="recal-tau-curve">
                            <div role="img" aria-label="Calibration NLL against τ on a log axis; the dot marks τ*">
                                <SizedSvg class="svg" fallback=calibscope_charts::recal::W draw=move |w| tau_points.as_ref().map(|c| calibscope_charts::recal::tau_curve_sized(w, c, tau, nll_t)).unwrap_or_default()/>
                            </div>
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
                    <select id="recal-after" prop:value=move || r.after.get().name()
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            if let Some(m) = Method::from_name(&v) {
                                r.after.set(m);
                            }
                        }>
                        {offered.iter().map(|m| view! { <option value=m.name()>{m.title()}</option> }).collect_view()}
                    </select>
                </label>
                <fieldset class="toggle">
                    <legend>"Binning"</legend>
                    <label><input type="radio" name="recal-binning" id="recal-binning-width" prop:checked=move || r.binning.get() == Binning::Width on:change=move |_| r.binning.set(Binning::Width)/>"equal-width"</label>
                    <label><input type="radio" name="recal-binning" id="recal-binning-mass" prop:checked=move || r.binning.get() == Binning::Mass on:change=move |_| r.binning.set(Binning::Mass)/>"equal-mass"</label>
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
            {move || r.tables.get().map(|t| diagrams(&prefix, &t, r.after.get()))}
        </section>
        {crate::recal::multiclass::multiclass_section(&prefix_m, &answer)}
        <section class="recal-ledger" aria-labelledby="recal-ledger-title">
            <h3 id="recal-ledger-title">"Ledger"</h3>
            {move || ledger::ledger(&prefix_l, &ledger_l, r.tables.get().as_ref())}
        </section>
        <section class="recal-checks" aria-labelledby="recal-checks-title">
            <h3 id="recal-checks-title">"Invariance checks, computed from the data"</h3>
            {ledger::invariants(&store.prefix(answer.model), &sec, &vd, binary)}
        </section>
        <section class="recal-risk" aria-labelledby="recal-risk-title">
            <h3 id="recal-risk-title">"Risk"</h3>
            {ledger::risk_warnings(&store.prefix(answer.model), &vd.ledger)}
        </section>
        <section class="recal-best" aria-labelledby="recal-best-title">
            <h3 id="recal-best-title">"Which method is best here?"</h3>
            {best::summary(&store.prefix(answer.model), &sec)}
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
                {offered.iter().map(|&method| (method, method.name())).map(|(method, m)| view! {
                    <div class="download-group">
                        <strong>{m}</strong>
                        <button id=format!("recal-download-csv-{m}") on:click=move |_| r.export(method, Want::Csv)>"predictions (CSV)"</button>
                        <button id=format!("recal-download-json-{m}") on:click=move |_| r.export(method, Want::Json)>"parameters (JSON)"</button>
                    </div>
                }).collect_view()}
            </div>
            <p class="sub" role="status" id="recal-export-status">{move || r.export_status.get()}</p>
        </section>
    }
}
