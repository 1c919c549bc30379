//! The Recalibrate view's maps of every class at once (vector scaling, matrix
//! scaling, Dirichlet calibration): fitted on request, with progress and a cancel
//! button, then their L-BFGS runs and Dirichlet's penalty search.

use calibscope_audit::Method;
use leptos::prelude::*;
use serde_json::Value;

use crate::recal::state::{has_multiclass, multiclass_offered, Answer, RecalState};
use crate::shared::widgets::{count_view, get_path, num_view};

/// The section (nothing for binary input or a ragged log).
pub(crate) fn multiclass_section(prefix: &str, answer: &Answer) -> Option<AnyView> {
    let r = expect_context::<RecalState>();
    if !multiclass_offered(&answer.view) {
        return None;
    }
    let k = answer.view.class_counts.calibration.len();
    let params = (k - 1) * (k + 1);
    let fitted = has_multiclass(answer);
    let body = if fitted {
        fitted_runs(prefix, &answer.section).into_any()
    } else {
        view! {
            {move || (!r.multiclass.pending.get()).then(|| view! {
                <button id="recal-multiclass-fit" on:click=move |_| r.fit_multiclass()>
                    "Fit vector, matrix and Dirichlet scaling"
                </button>
            })}
            {move || r.multiclass.pending.get().then(|| view! {
                <p id="recal-multiclass-progress" role="status">
                    {move || match r.multiclass_progress.get() {
                        Some((done, total)) => view! {
                            <label>"Fitting the maps: "
                                <progress max=total.to_string() value=done.to_string()>{format!("{done}/{total}")}</progress>
                            </label>
                            " " {format!("{done} of {total} fits")}
                        }.into_any(),
                        None => view! { "Fitting the maps…" }.into_any(),
                    }}
                    " "
                    <button id="recal-multiclass-cancel" on:click=move |_| r.cancel_multiclass()>"Cancel"</button>
                </p>
            })}
        }
        .into_any()
    };
    Some(view! {
        <section class="recal-multiclass" aria-labelledby="recal-multiclass-title">
            <h3 id="recal-multiclass-title">"Maps of every class at once"</h3>
            <p class="sub">
                "Vector scaling rescales each class's logit and adds a bias, softmax(v ⊙ z + b). Matrix scaling mixes the logits through a full matrix, softmax(W z + b). Dirichlet calibration does the same on the log-probabilities, softmax(W ln p + b), with a penalty that pulls the off-diagonal weights and the biases towards zero; its strength is chosen by 5-fold cross-validation on the calibration split. With "
                {k} " classes, matrix scaling and Dirichlet calibration fit " {params}
                " parameters each, and the penalty search alone takes 25 fits, so these maps are fitted when you ask. Once fitted they join the ledger, the After diagram, the checks and the downloads."
            </p>
            {body}
        </section>
    }
    .into_any())
}

/// Each map's L-BFGS run and Dirichlet calibration's penalty search.
fn fitted_runs(prefix: &str, sec: &Value) -> impl IntoView {
    let p = |k: &str| format!("{prefix}recalibration.{k}");
    let rows = Method::MULTICLASS
        .iter()
        .map(|m| {
            let name = m.name();
            let title = m.title();
            if let Some(why) = get_path(sec, &format!("{name}.undefined")).and_then(Value::as_str) {
                return view! { <tr><th scope="row">{title}</th><td colspan="3">"undefined: " {why.to_string()}</td></tr> }.into_any();
            }
            let converged = get_path(sec, &format!("{name}.l_bfgs.converged")).and_then(Value::as_bool);
            view! {
                <tr><th scope="row">{title}</th>
                    <td>{count_view(p(&format!("{name}.l_bfgs.iterations")), get_path(sec, &format!("{name}.l_bfgs.iterations")).and_then(Value::as_u64))}</td>
                    <td><span data-metric=p(&format!("{name}.l_bfgs.converged")) data-value=converged.map_or("null".into(), |c| c.to_string())
                        class=if converged == Some(false) { "badge warn" } else { "badge ok" }>
                        {match converged { Some(true) => "yes", Some(false) => "no: stopped at the iteration cap", None => "—" }}</span></td>
                    <td>{num_view(p(&format!("{name}.l_bfgs.objective")), get_path(sec, &format!("{name}.l_bfgs.objective")).and_then(Value::as_f64), "")}</td>
                </tr>
            }
            .into_any()
        })
        .collect_view();
    let candidates = get_path(sec, "dirichlet.odir_search.candidates")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let chosen = get_path(sec, "dirichlet.odir_search.chosen").and_then(Value::as_f64);
    let search = (!candidates.is_empty()).then(|| {
        let rows = candidates
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let strength = c["strength"].as_f64();
                let mark = (strength.is_some() && strength == chosen).then_some(" ← chosen");
                view! { <tr>
                    <td>{num_view(p(&format!("dirichlet.odir_search.candidates.{i}.strength")), strength, "")}</td>
                    <td>{num_view(p(&format!("dirichlet.odir_search.candidates.{i}.nll")), c["nll"].as_f64(), "")}{mark}</td>
                </tr> }
            })
            .collect_view();
        view! {
            <table id="recal-odir-search">
                <caption>"Dirichlet calibration's penalty (λ = μ), by 5-fold cross-validation: held-out NLL per calibration row"</caption>
                <thead><tr><th scope="col">"strength"</th><th scope="col">"held-out NLL"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        }
    });
    view! {
        <div class="scroll" tabindex="0"><table id="recal-multiclass-runs">
            <caption>"L-BFGS on the calibration split (mean NLL plus penalty at the end)"</caption>
            <thead><tr><th scope="col">"map"</th><th scope="col">"iterations"</th><th scope="col">"converged"</th><th scope="col">"objective"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table></div>
        {search}
    }
}
