//! The Recalibrate view: split controls, the temperature fit (trace,
//! verdict, τ curve), BEFORE/AFTER reliability diagrams on the evaluation split, the
//! ledger, the invariance checks, risk warnings, the fitted maps and the downloads.
//! Everything is computed in the worker (calibscope-engine); `recal_state` asks and
//! keeps the latest answers, this module draws them.
//!
//! `data-metric` paths: the audit JSON's `recalibration.*` (as in the fixtures), plus
//! for what it lacks: `recalibration.split.class_counts.{calibration,evaluation}.<r>`
//! and `.class_share.…`, `recalibration.temperature.trace.<i>.{iteration,width,
//! best_tau,best_nll}` (list index, iterations 10, 20, …),
//! `recalibration.<set>.binned.<reading>.<binning>.<m>.{ece,cal,ref,rows.<i>.<key>}`
//! (`<set>`: before and every method), `recalibration.<method>.checks.
//! <key>` (probability checks of every method) and `recalibration.timing.<part>_ms`.

pub mod best;
pub mod drawn;
pub mod fitted;
pub mod ledger;
pub mod multiclass;
pub mod state;

use calibscope_core::Kind;
use leptos::prelude::*;

use crate::page::store::Store;
use crate::recal::fitted::Fitted;
use crate::recal::state::RecalState;
use crate::shared::widgets::model_select;

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
            r.ask_tables(binning, m);
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
                data-answer-ms=move || r.answer_ms().0.map(|v| format!("{v:.1}")).unwrap_or_default()
                data-first-ms=move || r.answer_ms().1.map(|v| format!("{v:.1}")).unwrap_or_default()>
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
