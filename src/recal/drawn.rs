//! The Recalibrate view's drawn parts: BEFORE/AFTER diagrams with their tables, the
//! fitted maps and the worker's timing (from the worker's answers; no maths here).

use crate::proto::recal::MapAxis;
use crate::proto::{Reading, RecalView, Row};
use crate::shared::numfmt::{count, data_value, display};
use calibscope_audit::Method;
use calibscope_core::binning::Binning;
use leptos::prelude::*;

use crate::recal::state::Tables;
use crate::shared::chart;
use crate::shared::widgets::num_view;

/// The worker's time for the parts of the answer (`view.timing`).
pub fn timing_view(prefix: &str, vd: &RecalView) -> AnyView {
    let t = vd.timing;
    let items = [
        ("fit_ms", "temperature fit", t.fit_ms),
        ("temperature_ms", "split + temperature fit and checks", t.temperature_ms),
        ("first_ms", "first answer", t.first_ms),
        ("maps_ms", "Platt + isotonic fits", t.maps_ms),
        ("full_ms", "second answer", t.full_ms),
        ("multiclass_ms", "vector, matrix and Dirichlet fits", t.multiclass_ms),
    ]
    .into_iter()
    .filter_map(|(k, label, v)| {
        let v = v?;
        Some(view! { <span class="pc">{label} " " <span class="num" data-metric=format!("{prefix}recalibration.timing.{k}") data-value=data_value(Some(v))>{format!("{v:.0}")}</span>" ms"</span> })
    })
    .collect_view();
    view! { <p class="sub timing" id="recal-timing">"Worker time: " {items}</p> }.into_any()
}

/// BEFORE and AFTER diagrams side by side (same bins, same axes) and both tables.
pub fn diagrams(prefix: &str, t: &Tables, after: Method) -> AnyView {
    let Tables {
        binning,
        reading,
        m,
        tables,
    } = t;
    let (binning, reading, m) = (*binning, *reading, *m);
    let label = if reading == Reading::Positive {
        "P(y = 1)"
    } else {
        "confidence (top label)"
    };
    let one = |set: &str, title: &str| {
        let Some(tab) = tables.iter().find(|x| x.set == set) else {
            return view! { <div></div> }.into_any();
        };
        if let Some(why) = &tab.undefined {
            return view! { <div class="half"><h4>{title.to_string()}</h4><p class="notice">"undefined: " {why.clone()}</p></div> }.into_any();
        }
        let rows = tab.rows.clone();
        let base = format!(
            "{prefix}recalibration.{set}.binned.{}.{}.{m}",
            reading.name(),
            binning.name()
        );
        let ece = tab.metrics.get("ece").copied().flatten();
        view! {
            <div class="half" data-set=set.to_string()>
                <h4>{title.to_string()} " · ECE " {num_view(format!("{base}.ece"), ece, "undefined without samples")}</h4>
                <div class="chart" role="img" id=format!("recal-chart-{set}")
                    aria-label=format!("Reliability diagram {title} with {m} {} bins", binning.name())>
                    <chart::SizedSvg class="svg" draw=move |width| chart::reliability_with(&rows, &chart::Options { width, x_label: label, y_label: chart::y_label(reading), counts: chart::CountScale::Auto }).svg/>
                </div>
                {table_view(&base, binning, &tab.rows, set)}
            </div>
        }
        .into_any()
    };
    let after_title = format!("AFTER ({})", after.title());
    view! {
        <div class="before-after">
            {one("before", "BEFORE")}
            {one(after.name(), &after_title)}
        </div>
        <p class="legend">"Same evaluation rows, same bins and axes; bars: accuracy per bin · dots: (mean forecast, accuracy) · red: gap to the diagonal · whiskers: 95% Clopper–Pearson interval · strip: samples per bin."</p>
    }
    .into_any()
}

/// Rows of each before/after table shown.
const TABLE_ROWS: usize = 100;

fn table_view(base: &str, binning: Binning, rows: &[Row], set: &str) -> AnyView {
    let (lo_key, hi_key) = if binning == Binning::Width {
        ("lower_edge", "upper_edge")
    } else {
        ("u_min", "u_max")
    };
    let body = rows
        .iter()
        .take(TABLE_ROWS)
        .enumerate()
        .map(|(i, r)| {
            let p = |k: &str| format!("{base}.rows.{i}.{k}");
            let c = |k: &str, v: f64| view! { <td><span class="num" data-metric=p(k) data-value=data_value(Some(v))>{display(Some(v))}</span></td> };
            view! { <tr>
                {c(lo_key, r.lower)}{c(hi_key, r.upper)}
                <td><span class="num" data-metric=p("n") data-value=r.n.to_string()>{count(r.n as u64)}</span></td>
                {c("conf", r.conf)}{c("acc", r.acc)}{c("gap", r.gap)}
            </tr> }
        })
        .collect_view();
    let more = (rows.len() > TABLE_ROWS).then(|| view! { <p class="more-rows">{format!("First {TABLE_ROWS} of {} non-empty bins.", rows.len())}</p> });
    view! {
        <div class="scroll small" tabindex="0">
            <table class="recal-table" id=format!("recal-table-{set}") data-rows=rows.len().to_string()>
                <thead><tr><th scope="col">"from"</th><th scope="col">"to"</th><th scope="col">"count"</th><th scope="col">"conf"</th><th scope="col">"acc"</th><th scope="col">"gap"</th></tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
        {more}
    }
    .into_any()
}

/// The fitted map of each method, drawn from the worker's curves.
pub fn maps_view(vd: &RecalView, binary: bool) -> AnyView {
    let offered = crate::recal::state::offered(vd);
    let figs = [Method::Temperature, Method::Platt, Method::Isotonic]
        .into_iter()
        .chain(Method::MULTICLASS)
        .filter(|method| offered.contains(method))
        .map(|method| {
            let title = method.title();
            let Some(map) = vd.maps.get(method) else {
                return view! { <figure class="map"><figcaption>{title}": undefined"</figcaption></figure> }.into_any();
            };
            let curves: Vec<(usize, Vec<[f64; 2]>)> =
                map.curves.iter().map(|c| (c.class, c.points.clone())).collect();
            let scatter = &map.scatter;
            let x = match map.x {
                MapAxis::S => "raw score s (logit)",
                MapAxis::ZR => "raw logit z_r (one-vs-rest)",
                MapAxis::Confidence => "raw top-label confidence",
            };
            let (curves_d, scatter_d) = (curves.clone(), scatter.clone());
            let draw = move |w| calibscope_charts::recal::fitted_map_sized(w, x, &curves_d, &scatter_d);
            let note = if binary {
                String::new()
            } else if scatter.is_empty() {
                format!(" — classes {} shown (colours cycle), before renormalisation", curves.iter().map(|c| c.0.to_string()).collect::<Vec<_>>().join(", "))
            } else {
                let map = match method {
                    Method::Vector => "softmax(v ⊙ z + b)",
                    Method::Matrix => "softmax(W z + b)",
                    Method::Dirichlet => "softmax(W ln p + b)",
                    _ => "softmax(z/τ)",
                };
                format!(" — evaluation rows: raw confidence → recalibrated probability of the same class (no single score map exists for {map})")
            };
            let m = method.name();
            view! {
                <figure class="map" id=format!("recal-map-{m}")>
                    <div role="img" aria-label=format!("Fitted map of {title}")>
                        <chart::SizedSvg class="svg" fallback=calibscope_charts::recal::W draw=draw/>
                    </div>
                    <figcaption>{title}{note}</figcaption>
                </figure>
            }
            .into_any()
        })
        .collect_view();
    view! { <div class="maps">{figs}</div> }.into_any()
}
