//! The Learn tour: eight short steps through the three source documents, each with a
//! live widget computed by the worker and a "try it on your data" link to the view
//! that shows the same thing on the loaded file. Nothing is stored: the step lives
//! in a signal only.
//!
//! `data-metric` paths: `learn.forecaster.<ece|top_ece|brier|cal|ref|res>`,
//! `learn.table.<bin>.<n|conf|acc|gap|cp_lower|cp_upper>`, `learn.interval.<lower|upper>`,
//! `learn.noise.ece.mean|se`, `learn.temperature.<tau|nll_before|nll_after|auc_before|auc_after|acc_before|acc_after|ece_before|ece_after>`,
//! and in steps 7 and 8 the labs' own paths (`lab.truth.*`, `lab.beyond.counter.*`).

pub mod steps;

use crate::proto::labs::{LabAnswer, LabRequest};
use crate::proto::Row;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::labs::ui::{self, choice, mc, num, number};
use crate::learn::steps::{forecaster, math};
use crate::page::store::{Store, View};
use crate::shared::chart;

/// The steps: `(title, view id of "try it on your data")`.
pub const STEPS: [(&str, &str); 8] = [
    ("The forecaster", "audit"),
    ("The promise", "audit"),
    ("The reliability table", "audit"),
    ("ECE and its bias", "audit"),
    ("Brier = calibration + refinement", "audit"),
    ("Temperature scaling", "recalibrate"),
    ("Truthfulness", "flips"),
    ("Risk beyond ECE", "audit"),
];

/// A button that opens view `id` on the user's data (disabled when this build has
/// no such view yet).
pub fn try_it(id: &'static str) -> impl IntoView {
    let store = expect_context::<Store>();
    let target = View::from_id(id);
    let text = match target {
        Some(v) => format!("Try it on your data: open {}", v.title()),
        None => format!("Try it on your data (the \u{201c}{id}\u{201d} view is not in this build)"),
    };
    view! {
        <p class="try"><button type="button" class="linklike" data-target=id disabled=target.is_none()
            on:click=move |_| if let Some(v) = target { store.view.set(v) }>{text}</button></p>
    }
}

/// The reliability diagram of `rows`, drawn at its figure's width.
pub fn diagram(rows: &[Row], x_label: &'static str) -> impl IntoView {
    let rows = rows.to_vec();
    let draw = move |width| {
        chart::reliability_with(
            &rows,
            &chart::Options {
                width,
                x_label,
                ..chart::Options::default()
            },
        )
        .svg
    };
    view! { <figure class="chart lab-fig"><chart::SizedSvg class="svg" draw=draw/></figure> }
}

fn step_forecaster() -> impl IntoView {
    let sharpness = RwSignal::new(1.0);
    let days = RwSignal::new(100.0);
    let call =
        ui::call().auto(move || forecaster(days.get() as usize, 10, sharpness.get(), false, 1));
    view! {
        <p>"A forecaster says \u{201c}70% chance of rain\u{201d}. We cannot check one forecast, but we can \
            count: of all the days it said about 70%, did it rain on about 70%? Below, a simulated forecaster \
            knows the true chance of rain and then bends it with a dial: 1 is honest, above 1 it exaggerates \
            (overconfident), below 1 it hedges (underconfident). Its reliability diagram sorts the days into \
            ten bins by forecast and plots how often it rained in each; add days and watch it fill in."</p>
        <div class="controls">
            {number("learn-sharpness", "dial (1 = honest) ", sharpness, 0.25, 4.0, 0.05)}
            {number("learn-days", "days observed ", days, 10.0, 10_000.0, 10.0)}
        </div>
        {call.status("computing")}
        {move || match call.answer.get() {
            Some(LabAnswer::Forecaster { rows, ece, .. }) => view! {
                <p>"ECE of these forecasts: " {num("learn.forecaster.ece", ece)}</p>
                {diagram(&rows, "forecast probability of rain")}
            }.into_any(),
            _ => ().into_any(),
        }}
    }
}

const PROMISE: &str = r#"<math display="block"><mrow><mi>P</mi><mo>(</mo><mi>Y</mi><mo>=</mo><mn>1</mn><mo>∣</mo><mi>f</mi><mo>=</mo><mi>p</mi><mo>)</mo><mo>=</mo><mi>p</mi><mspace width="2em"/><mi>P</mi><mo>(</mo><mi>Y</mi><mo>=</mo><mover><mi>y</mi><mo>^</mo></mover><mo>∣</mo><mi>c</mi><mo>=</mo><mi>p</mi><mo>)</mo><mo>=</mo><mi>p</mi></mrow></math>"#;

fn step_promise() -> impl IntoView {
    let sharpness = RwSignal::new(2.0);
    let call = ui::call().auto(move || forecaster(2000, 10, sharpness.get(), false, 1));
    view! {
        <p>"Calibration is a promise about frequencies: among the cases given probability p, the event \
            happens a fraction p of the time. For a yes/no question we read the forecast of \u{201c}yes\u{201d} \
            (left). For a classifier we usually read the top label: the predicted class ŷ and its confidence \
            c, which is never below 1/2 for two classes (right). The same forecasts can keep one promise and \
            break the other, so every number in calibscope names its reading."</p>
        {math(PROMISE)}
        {number("learn-promise-sharpness", "dial ", sharpness, 0.25, 4.0, 0.05)}
        {call.status("computing")}
        {move || match call.answer.get() {
            Some(LabAnswer::Forecaster { rows, top_rows, ece, top_ece, .. }) => view! {
                <div class="lab-charts">
                    <div><p>"Positive class: ECE " {num("learn.forecaster.ece", ece)}</p>{diagram(&rows, "forecast of rain")}</div>
                    <div><p>"Top label: ECE " {num("learn.forecaster.top_ece", top_ece)}</p>{diagram(&top_rows, "confidence in the predicted class")}</div>
                </div>
            }.into_any(),
            _ => ().into_any(),
        }}
    }
}

fn table(rows: &[Row]) -> impl IntoView {
    let body = rows
        .iter()
        .map(|r| {
            let b = r.bin;
            let cell = |k: &str, v: f64| num(format!("learn.table.{b}.{k}"), Some(v));
            view! { <tr><td>{b}</td><td>{cell("n", r.n as f64)}</td><td>{cell("conf", r.conf)}</td>
            <td>{cell("acc", r.acc)}</td><td>{cell("gap", r.gap)}</td>
            <td>{cell("cp_lower", r.cp_lower)} " – " {cell("cp_upper", r.cp_upper)}</td></tr> }
        })
        .collect_view();
    view! {
        <div class="scroll" tabindex="0"><table class="lab-table">
            <thead><tr><th scope="col">"bin"</th><th scope="col">"count"</th><th scope="col">"mean forecast"</th>
                <th scope="col">"observed frequency"</th><th scope="col">"gap"</th><th scope="col">"95% interval"</th></tr></thead>
            <tbody>{body}</tbody>
        </table></div>
    }
}

fn step_table() -> impl IntoView {
    let n = RwSignal::new(200.0);
    let call = ui::call().auto(move || forecaster(n.get() as usize, 10, 1.5, false, 1));
    let (successes, trials, alpha) = (RwSignal::new(7.0), RwSignal::new(7.0), RwSignal::new(0.10));
    let interval = ui::call().auto(move || LabRequest::Interval {
        successes: successes.get() as u64,
        n: trials.get() as u64,
        alpha: alpha.get(),
    });
    view! {
        <p>"The table behind the diagram: ten equal-width bins of the forecast; per bin the count, the mean \
            forecast (conf), the observed frequency (acc) and the gap acc − conf. A gap means little without \
            its count, so each row carries an exact Clopper–Pearson interval for the frequency. With few days \
            the intervals are wide; raise n and watch them shrink."</p>
        {number("learn-table-n", "days n ", n, 20.0, 20_000.0, 10.0)}
        {call.status("computing")}
        {move || match call.answer.get() {
            Some(LabAnswer::Forecaster { rows, .. }) => table(&rows).into_any(),
            _ => ().into_any(),
        }}
        <p>"How little a perfect record proves: 7 rain days out of 7 forecasts certifies, at the 90% level, \
            only that the frequency is above about 0.65."</p>
        <div class="controls">
            {number("learn-ci-x", "successes ", successes, 0.0, 1000.0, 1.0)}
            {number("learn-ci-n", "of n ", trials, 1.0, 1000.0, 1.0)}
            {number("learn-ci-alpha", "α ", alpha, 0.01, 0.5, 0.01)}
        </div>
        {interval.status("computing")}
        {move || match interval.answer.get() {
            Some(LabAnswer::Interval { lower, upper }) => view! {
                <p>"Interval: " {num("learn.interval.lower", Some(lower))} " to " {num("learn.interval.upper", Some(upper))}</p>
            }.into_any(),
            _ => ().into_any(),
        }}
    }
}

const ECE_MATH: &str = r#"<math display="block"><mrow><msub><mi>ECE</mi><mi>m</mi></msub><mo>=</mo><munder><mo>∑</mo><mi>B</mi></munder><mfrac><msub><mi>n</mi><mi>B</mi></msub><mi>n</mi></mfrac><mo>|</mo><msub><mi>acc</mi><mi>B</mi></msub><mo>−</mo><msub><mi>conf</mi><mi>B</mi></msub><mo>|</mo></mrow></math>"#;

fn step_noise() -> impl IntoView {
    let n = RwSignal::new(500.0);
    let m = RwSignal::new(15.0);
    let dial = RwSignal::new(1.0);
    let call = ui::call()
        .auto(move || forecaster(n.get() as usize, m.get() as usize, dial.get(), false, 50));
    view! {
        <p>"ECE averages the gaps, weighted by the bins' counts. It has two biases. Inside a bin, over- and \
            under-confident cases cancel, which pulls it down. Sampling noise makes every observed frequency \
            miss its true value, and the absolute value turns that noise into a positive error, which pushes it \
            up. Here the forecaster is perfectly calibrated, so the true ECE is 0; the mean over 50 fresh data \
            sets is not. More bins or fewer samples make it worse. Now turn the dial to 3 and set m = 1: \
            the overconfident forecaster scores almost 0, because its errors above and below the middle \
            cancel inside the single bin."</p>
        {math(ECE_MATH)}
        <div class="controls">
            {number("learn-noise-n", "n ", n, 50.0, 100_000.0, 50.0)}
            {number("learn-noise-m", "bins m ", m, 1.0, 200.0, 1.0)}
            {number("learn-noise-dial", "dial (1 = calibrated) ", dial, 0.25, 4.0, 0.05)}
        </div>
        {call.status("computing")}
        {move || match call.answer.get() {
            Some(LabAnswer::Forecaster { ece_reps: Some(e), .. }) => view! {
                <p>"Mean ECE over 50 data sets: " {mc("learn.noise.ece", e.mean, e.se)}</p>
            }.into_any(),
            _ => ().into_any(),
        }}
    }
}

fn step_brier() -> impl IntoView {
    let which = RwSignal::new("honest".to_string());
    let call = ui::call().auto(move || forecaster(5000, 10, 1.0, which.get() == "base", 1));
    view! {
        <p>"The Brier score, the mean of (forecast − outcome)², splits over the bins into calibration \
            (CAL: the squared gaps) plus refinement (REF: how mixed the outcomes are inside each bin), \
            plus a residual RES that vanishes only when all forecasts in a bin are equal. A forecaster \
            that always says the base rate is perfectly calibrated (CAL = 0) and useless: all its Brier \
            is refinement. Calibration alone is not skill."</p>
        {choice("learn-brier-who", "forecaster ", vec![("honest", "honest (knows each day's chance)"), ("base", "always the base rate")], which)}
        {call.status("computing")}
        {move || match call.answer.get() {
            Some(LabAnswer::Forecaster { brier, cal, refinement, res, .. }) => view! {
                <p class="eq">"Brier " {num("learn.forecaster.brier", brier)} " = CAL " {num("learn.forecaster.cal", cal)}
                    " + REF " {num("learn.forecaster.ref", refinement)} " + RES " {num("learn.forecaster.res", res)}</p>
            }.into_any(),
            _ => ().into_any(),
        }}
    }
}

/// The tour.
#[component]
pub fn Learn() -> impl IntoView {
    let step = RwSignal::new(0usize);
    let go_to = move |i: usize| {
        step.set(i.min(STEPS.len() - 1));
        if let Some(el) = document().get_element_by_id("learn-step-title") {
            let _ = el.unchecked_into::<web_sys::HtmlElement>().focus();
        }
    };
    let list = STEPS
        .iter()
        .enumerate()
        .map(|(i, (title, _))| {
            view! { <li><button type="button" class="step" id=format!("learn-step-{}", i + 1)
            aria-current=move || (step.get() == i).then_some("step")
            on:click=move |_| go_to(i)>{format!("{}. {title}", i + 1)}</button></li> }
        })
        .collect_view();
    let body = move || match step.get() {
        0 => step_forecaster().into_any(),
        1 => step_promise().into_any(),
        2 => step_table().into_any(),
        3 => step_noise().into_any(),
        4 => step_brier().into_any(),
        5 => steps::temperature().into_any(),
        6 => steps::truthfulness().into_any(),
        _ => steps::risk().into_any(),
    };
    view! {
        <section class="learn" id="learn" aria-labelledby="learn-h">
            <h2 id="learn-h">"Learn: what calibration means and how to measure it"</h2>
            <p class="detail">"Sources: \u{201c}Calibration: Confidence That Means Something\u{201d}; \u{201c}Truthful \
                Calibration Errors for Multi-Class Prediction\u{201d}; \u{201c}Beyond ECE: Calibrated Size Ratio, Risk \
                Assessment, and Confidence-Weighted Metrics\u{201d}. The text is ours; every number is computed live."</p>
            <nav aria-label="Tour steps"><ol class="steps">{list}</ol></nav>
            <article class="step-body" data-step=move || (step.get() + 1).to_string()>
                <h3 id="learn-step-title" tabindex="-1">{move || format!("Step {} of {}: {}", step.get() + 1, STEPS.len(), STEPS[step.get()].0)}</h3>
                {body}
                {move || try_it(STEPS[step.get()].1)}
                <div class="step-nav">
                    <button type="button" id="learn-prev" disabled=move || step.get() == 0
                        on:click=move |_| go_to(step.get_untracked().saturating_sub(1))>"Previous"</button>
                    <button type="button" id="learn-next" disabled=move || step.get() + 1 == STEPS.len()
                        on:click=move |_| go_to(step.get_untracked() + 1)>"Next"</button>
                </div>
            </article>
        </section>
    }
}
