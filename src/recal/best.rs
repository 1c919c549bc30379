//! The Recalibrate view's "best by NLL / by ECE / by risk" summary: the section's
//! `comparison` (computed in the worker by calibscope-audit's `comparison_json`: the
//! paired bootstrap on the evaluation rows), drawn with every number's path.

use crate::shared::numfmt::{data_value, display};
use crate::shared::widgets::get_path;
use calibscope_audit::Method;
use leptos::prelude::*;
use serde_json::Value;

/// The title of a set key (`before`, or a method's name).
fn title(key: &str) -> String {
    Method::from_name(key).map_or_else(|| key.to_string(), |m| m.title().to_string())
}

/// The summary, or a status line while the comparison is not computed yet.
pub fn summary(prefix: &str, section: &Value) -> AnyView {
    let Some(c) = section.get("comparison") else {
        return view! { <p class="sub" id="recal-best-pending">"The comparison follows once every method is fitted."</p> }.into_any();
    };
    let base = format!("{prefix}recalibration.comparison");
    let replicates = c.get("replicates").and_then(Value::as_u64).unwrap_or(0);
    let alpha = c.get("alpha").and_then(Value::as_f64).unwrap_or(0.05);
    let rows = [
        ("nll", "NLL", "lowest mean negative log-likelihood"),
        ("ece", "ECE", "lowest ECE (confidence, 15 equal-width bins)"),
        ("risk", "risk", "lowest P_risk (probability of being overconfident on wrong answers)"),
    ]
    .into_iter()
    .map(|(key, label, what)| {
        let e = &c[key];
        let best = e["best"].as_str().map(str::to_string);
        let runner = e["runner_up"].as_str().map(str::to_string);
        let share = e["share"].as_f64();
        let within = e["within_noise"].as_bool().unwrap_or(true);
        let point = best
            .as_ref()
            .and_then(|b| get_path(e, &format!("points.{b}")).and_then(Value::as_f64));
        let verdict = match (&best, &runner) {
            (None, _) => "undefined: no set has this number".to_string(),
            (Some(_), None) => "the only set with this number".to_string(),
            (Some(_), Some(r)) if within => format!(
                "within noise: the difference to {} is not stable across resamples of the evaluation rows",
                title(r)
            ),
            (Some(_), Some(r)) => format!("beyond noise: better than {} in the resamples", title(r)),
        };
        view! {
            <tr data-criterion=key>
                <th scope="row">{format!("best by {label}")}<span class="sub">{format!(" ({what})")}</span></th>
                <td><span class="name" data-metric=format!("{base}.{key}.best") data-value=best.clone().map_or("null".into(), |b| format!("\"{b}\""))>{best.as_deref().map_or("undefined".to_string(), title)}</span></td>
                <td><span class="num" data-metric=format!("{base}.{key}.points.{}", best.clone().unwrap_or_default()) data-value=data_value(point)>{display(point)}</span></td>
                <td><span class="num" data-metric=format!("{base}.{key}.share") data-value=data_value(share)>{share.map_or("undefined".to_string(), |s| format!("{:.1}%", 100.0 * s))}</span></td>
                <td class:within=within><span data-metric=format!("{base}.{key}.within_noise") data-value=within.to_string()>{verdict}</span></td>
            </tr>
        }
    })
    .collect_view();
    let chosen = get_path(section, "histogram.cross_fit.chosen").and_then(Value::as_u64);
    let folds = get_path(section, "histogram.cross_fit.folds").and_then(Value::as_u64);
    let note = chosen.map(|m| {
        view! {
            <p class="sub" id="recal-histogram-bins">"Histogram binning uses "
                <span class="num" data-metric=format!("{prefix}recalibration.histogram.cross_fit.chosen") data-value=m.to_string()>{m.to_string()}</span>
                {format!(" equal-mass bins, chosen among 2 to 100 by {}-fold cross-fitting on the calibration split (each candidate fitted on {} folds and scored by the Brier score on the held-out one), so that the evaluation split never picks its own winner.", folds.unwrap_or(5), folds.unwrap_or(5).saturating_sub(1))}
            </p>
        }
    });
    view! {
        {note}
        <div class="scroll" tabindex="0">
            <table class="best" id="recal-best">
                <caption>{format!("Every method and the input on the same evaluation rows. Share: how often, over {replicates} bootstrap resamples of those rows (paired: every method on the same resample), the best stays ahead of the runner-up; a difference counts as beyond noise at {:.1}% or more.", 100.0 * (1.0 - alpha / 2.0))}</caption>
                <thead><tr><th scope="col">"criterion"</th><th scope="col">"best"</th><th scope="col">"its value"</th><th scope="col">"share ahead"</th><th scope="col">"verdict"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}
