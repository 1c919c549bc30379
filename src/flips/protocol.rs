//! The ranking-flips view's pieces for seed 000's protocol: the "temperature-scale
//! each model first" switch and the source paper's preset, the fitted τ of each
//! model, the explanatory text computed from the matrices on screen
//! (`crate::flips::finding`), and the source paper's own numbers, attributed to it.

use crate::flips::finding::{finding, Segment};
use crate::shared::numfmt::{data_value, display};
use calibscope_audit::flips_summary::{PAPER, PAPER_CLAIM, PAPER_SETTING, PAPER_SPEARMAN};
use leptos::prelude::*;

use crate::flips::state::FlipsState;
use crate::page::store::Store;
use crate::shared::widgets::num_view;

/// The switch and the preset.
#[component]
pub fn ProtocolControls() -> impl IntoView {
    let st = expect_context::<FlipsState>();
    view! {
        <div class="controls" role="group" aria-label="The source paper's protocol">
            <label><input type="checkbox" id="flips-temperature-first"
                prop:checked=move || st.temperature_first.get()
                on:change=move |ev| st.temperature_first.set(event_target_checked(&ev))/>
                " Temperature-scale each model first"</label>
            <button id="flips-paper-protocol" on:click=move |_| st.paper_protocol()>
                "The source paper's protocol"</button>
            <span class="status" id="flips-protocol-help">
                "Scaling first fits one temperature per model on half of the samples (drawn per class, as in the Recalibrate view at start) and ranks every model on the other half. "
                "The preset also sets equal-mass bins and compares m = 5, 20 and 2000."</span>
        </div>
    }
}

/// The fitted τ of each model, when the models were scaled first.
#[component]
pub fn Taus() -> impl IntoView {
    let st = expect_context::<FlipsState>();
    let store = expect_context::<Store>();
    move || {
        let x = st.matrices.get()?;
        if let Some(why) = &x.unavailable {
            return Some(
                view! { <p class="notice unavailable" id="flips-temperature-unavailable">{format!("{why}.")}</p> }
                    .into_any(),
            );
        }
        let t = x.temperature?;
        let names = store
            .summary
            .with(|s| s.as_ref().map(|s| s.models.clone()).unwrap_or_default());
        let rows = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let tau = t.tau.get(i).copied();
                let mut notes = Vec::new();
                if t.at_bracket_end.get(i).copied().unwrap_or(false) {
                    notes.push("τ at an end of the search range [0.05, 20]");
                }
                if t.exact_zero_one.get(i).copied().unwrap_or(false) {
                    notes.push("its probabilities hold exact 0s or 1s, whose logarithm is a made-up value: the fit is less reliable");
                }
                view! {
                    <tr data-model=name.clone()><th scope="row">{name.clone()}</th>
                        <td>{num_view(format!("flips.temperature.tau.{i}"), tau, "no fit")}</td>
                        <td>{notes.join("; ")}</td></tr>
                }
            })
            .collect_view();
        Some(
            view! {
                <section class="flips-taus" aria-labelledby="flips-taus-title">
                    <h3 id="flips-taus-title">"Temperature-scaled first"</h3>
                    <p>"Each model's temperature τ was fitted on "
                        <span class="num" data-metric="flips.temperature.n_calibration" data-value=t.n_calibration.to_string()>{t.n_calibration}</span>
                        " samples; every number of this view is read on the other "
                        <span class="num" data-metric="flips.temperature.n_evaluation" data-value=t.n_evaluation.to_string()>{t.n_evaluation}</span>
                        " samples, the same ones for every model."</p>
                    <table id="flips-taus" class="metrics">
                        <thead><tr><th scope="col">"model"</th><th scope="col">"τ"</th><th scope="col">"note"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </section>
            }
            .into_any(),
        )
    }
}

/// One segment of the explanatory text.
fn segment(s: Segment) -> AnyView {
    match s {
        Segment::Text(t) => t.into_any(),
        Segment::Count { path, table, value } => view! {
            <span class="num" data-metric=path data-table=table data-value=value.to_string()>{value}</span>
        }
        .into_any(),
        Segment::Rho { path, table, value } => {
            let shown = value.map_or("undefined".to_string(), |v| display(Some(v)));
            view! {
                <span class="num" data-metric=path data-table=table data-value=data_value(value)>{shown}</span>
            }
            .into_any()
        }
    }
}

/// What the matrices on screen show, in sentences, then the source paper's numbers.
#[component]
pub fn Finding() -> impl IntoView {
    let st = expect_context::<FlipsState>();
    let store = expect_context::<Store>();
    let text = move || {
        let x = st.matrices.get()?;
        x.unavailable.is_none().then_some(())?;
        let models = store
            .summary
            .with(|s| s.as_ref().map_or(0, |s| s.models.len()));
        let sentences = finding(&x, models)
            .into_iter()
            .map(|s| view! { <p>{s.into_iter().map(segment).collect_view()}</p> })
            .collect_view();
        Some(view! { <div id="flips-finding" class="finding" aria-live="polite">{sentences}</div> })
    };
    // the paper's printed mean (before "±") as the data-value
    let quoted = |path: String, printed: &'static str| {
        let mean = printed.split(' ').next().unwrap_or("").replace('−', "-");
        view! { <span class="num" data-metric=path data-value=mean>{printed}</span> }
    };
    let rows = PAPER_SPEARMAN
        .iter()
        .enumerate()
        .map(|(i, (metric, what, within, across))| {
            view! {
                <tr><th scope="row">{crate::flips::state::label(metric)}</th><td>{*what}</td>
                    <td>{quoted(format!("paper.spearman.{i}.within"), within)}</td>
                    <td>{quoted(format!("paper.spearman.{i}.across"), across)}</td></tr>
            }
        })
        .collect_view();
    view! {
        <section class="flips-finding" aria-labelledby="flips-finding-title">
            <h3 id="flips-finding-title">"What these models show"</h3>
            {text}
            <details id="flips-paper">
                <summary>"What the source paper reports (its models, not yours)"</summary>
                <p>"The source paper, " {PAPER} ", " {PAPER_SETTING}</p>
                <table class="metrics paper">
                    <thead><tr><th scope="col">"metric"</th><th scope="col">"Spearman ρ of"</th>
                        <th scope="col">"within one architecture"</th><th scope="col">"across architectures"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
                <p>{PAPER_CLAIM}" These are the paper's numbers on its CIFAR-100 models; the sentences above count what happens on the models open here."</p>
            </details>
        </section>
    }
}
