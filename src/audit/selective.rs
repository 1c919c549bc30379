//! Answers and abstentions: for a model that may decline to answer (a table of
//! verbalised confidences, where an empty or NaN confidence is an abstention), how
//! many questions it answered, and the risk–coverage curve of answering only its
//! most confident ones (Geifman & El-Yaniv, 2017) with the area under it. Shown only
//! when the audit document has them (`coverage`, `answered`, `total`,
//! `risk_coverage`: `calibscope_audit::selective`); `data-metric` paths are those
//! of `calibscope audit --json`.

use calibscope_charts::palette::Ink;
use calibscope_charts::small::{self, Axis, Series};
use leptos::prelude::*;
use serde_json::Value;

use crate::page::store::Store;
use crate::shared::chart::SizedSvg;
use crate::shared::numfmt::{data_value, percent};
use crate::shared::widgets::{count_view, num_view};

/// A share shown as a percentage, with its path and full precision.
fn percent_view(path: String, v: Option<f64>) -> AnyView {
    view! { <span class="num" data-metric=path data-value=data_value(v)>{percent(v)}</span> }
        .into_any()
}

/// The risk–coverage chart of the `points` of an audit's `risk_coverage`: risk
/// against coverage, a step per point, from the most confident answers on.
fn chart(points: &[Value], width: u32) -> String {
    let mut line = Vec::with_capacity(2 * points.len() + 1);
    let mut last = 0.0;
    for p in points {
        let (Some(c), Some(r)) = (p["coverage"].as_f64(), p["risk"].as_f64()) else {
            continue;
        };
        // the risk holds over each step of coverage (the area's step function)
        line.push((last, r));
        line.push((c, r));
        last = c;
    }
    // the y axis ends at the first round value above the highest risk
    let highest = line.iter().map(|&(_, r)| r).fold(0.0f64, f64::max);
    let top = [0.05, 0.1, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0]
        .into_iter()
        .find(|&t| t >= highest)
        .unwrap_or(1.0);
    small::lines_sized(
        width,
        &[Series {
            ink: Ink::A,
            dotted: false,
            legend: "risk of the answers kept",
            points: line,
        }],
        Axis::UNIT,
        Axis {
            lo: 0.0,
            hi: top,
            log: false,
        },
        ("coverage", "risk"),
        (&[0.0, 0.25, 0.5, 0.75, 1.0], &[0.0, top / 2.0, top]),
    )
}

/// The answers-and-abstentions section of the model shown, when its audit has one.
#[component]
pub fn Selective() -> impl IntoView {
    let store = expect_context::<Store>();
    move || {
        let i = store.model.get();
        let prefix = store.prefix(i);
        let audit = store.audits.with(|a| a.get(i).cloned())?;
        let total = audit["total"].as_u64()?;
        let answered = audit["answered"].as_u64()?;
        let coverage = audit["coverage"].as_f64();
        let area = audit["risk_coverage"]["area"].as_f64();
        let points = audit["risk_coverage"]["points"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let rows = points
            .iter()
            .enumerate()
            .map(|(j, p)| {
                let at = |k: &str| format!("{prefix}risk_coverage.points.{j}.{k}");
                view! {
                    <tr>
                        <td>{num_view(at("threshold"), p["threshold"].as_f64(), "no answer")}</td>
                        <td>{percent_view(at("coverage"), p["coverage"].as_f64())}</td>
                        <td>{percent_view(at("risk"), p["risk"].as_f64())}</td>
                    </tr>
                }
            })
            .collect_view();
        let has_curve = !points.is_empty();
        let draw = move |w| chart(&points, w);
        Some(view! {
            <section class="selective" id="selective" aria-labelledby="selective-title">
                <h2 id="selective-title">"Answers and abstentions"</h2>
                <p id="selective-coverage">"The model answered "
                    {count_view(format!("{prefix}answered"), Some(answered))} " of "
                    {count_view(format!("{prefix}total"), Some(total))} " questions (coverage "
                    {percent_view(format!("{prefix}coverage"), coverage)} ") and declined the rest (an empty or NaN confidence). "
                    "The verdict, the diagram and the tables of this view are about the answered questions only."</p>
                {has_curve.then(|| view! {
                    <p>"Would it be right more often if it answered only what it is surest of? Keep the answers whose confidence is at least a threshold: "
                        "the share of all questions still answered is the coverage, and the share of those answers that are wrong is the risk. "
                        "A confidence that orders answers well keeps the risk low at low coverage. The area under this curve (AURC; Geifman and El-Yaniv, 2017) is "
                        {num_view(format!("{prefix}risk_coverage.area"), area, "no answer")}
                        ": lower is better, and a model that declines more has a shorter curve."</p>
                    <figure>
                        <SizedSvg class="lab-svg" id="selective-chart" fallback=420 draw=draw/>
                        <figcaption>"Risk against coverage, from the most confident answers on."</figcaption>
                    </figure>
                    <details>
                        <summary>"The curve's points"</summary>
                        <table class="metrics" id="selective-points">
                            <thead><tr><th scope="col">"answers with confidence ≥"</th><th scope="col">"coverage"</th><th scope="col">"risk"</th></tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </details>
                })}
            </section>
        })
    }
}
