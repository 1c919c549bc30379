//! The overview: one row per model with the headline metrics.

use crate::audit::badges;
use crate::shared::text;
use calibscope_core::Kind;
use leptos::prelude::*;

use crate::page::store::Store;
use crate::shared::widgets::{get_path, help_header, num_view};

/// The overview's columns: (metric doc key, path in the audit, shown as extra).
fn overview_paths(kind: Kind, m: usize) -> Vec<(&'static str, String)> {
    let brier = match kind {
        Kind::Binary => (
            "readings.positive.brier".to_string(),
            format!("readings.positive.width.{m}."),
            ["cal", "ref", "res"],
        ),
        Kind::Multiclass => (
            "binning_free.brier_multiclass".to_string(),
            format!("readings.classwise.width.{m}."),
            ["cal_sum", "ref_sum", "res_sum"],
        ),
        Kind::TopLabel => (
            "readings.confidence.brier".to_string(),
            format!("readings.confidence.width.{m}."),
            ["cal", "ref", "res"],
        ),
    };
    vec![
        ("accuracy", "binning_free.accuracy".into()),
        ("ece_width", format!("readings.confidence.width.{m}.ece")),
        ("ece_mass", format!("readings.confidence.mass.{m}.ece")),
        ("mce", format!("readings.confidence.width.{m}.mce")),
        ("brier", brier.0),
        ("cal", format!("{}{}", brier.1, brier.2[0])),
        ("ref", format!("{}{}", brier.1, brier.2[1])),
        ("res", format!("{}{}", brier.1, brier.2[2])),
        ("nll", "binning_free.nll".into()),
        (
            "auc",
            if kind == Kind::Binary {
                "binning_free.auc".into()
            } else {
                "binning_free.auc_macro".into()
            },
        ),
        ("lince_cw", format!("readings.classwise.width.{m}.lince_cw")),
        (
            "confce_corr",
            format!("readings.confidence.width.{m}.confce_corr"),
        ),
        ("csr", "beyond_ece.csr".into()),
        ("p_risk", "beyond_ece.p_risk".into()),
        // not in the audit: mean confidence (from the confidence reliability table)
        // minus accuracy, with the calibration badge
        ("conf_gap", CONF_GAP.into()),
        ("smece", "readings.confidence.smece".into()),
        (
            "ece_l2",
            format!("readings.confidence.width.{m}.ece_l2_debiased"),
        ),
        ("cwa", "beyond_ece.cwa".into()),
        ("gain", "beyond_ece.gain".into()),
        (
            "cwauc",
            if kind == Kind::Binary {
                "cwauc.class1".into()
            } else {
                "cwauc.macro".into()
            },
        ),
    ]
}

/// The columns shown until the user chooses others: what answers "is it calibrated,
/// and how well does it rank" (every other column stays in the table, hidden).
const DEFAULT_COLUMNS: [&str; 6] = ["accuracy", "conf_gap", "ece_width", "smece", "brier", "auc"];

/// Values of the audit's second stage: absent (not undefined) until it arrives.
const SECOND_STAGE: [&str; 2] = ["smece", "ece_l2"];

/// The bootstrap interval of the value at `path` (a confidence reading's binned
/// metric), as `(data-metric path, [lo, hi])`: the reading's `intervals` object is
/// keyed by the path below the reading (`width.15.ece`), so the data-metric is
/// `readings.confidence.intervals.width.15.ece` and its data-value the JSON pair.
fn interval_of<'a>(
    audit: &'a serde_json::Value,
    path: &str,
) -> Option<(String, &'a serde_json::Value)> {
    let key = path.strip_prefix("readings.confidence.")?;
    let pair = audit["readings"]["confidence"]["intervals"].get(key)?;
    Some((format!("readings.confidence.intervals.{key}"), pair))
}

/// The interval after a number: `[lo, hi]` in small type, the level on hover.
fn interval_view(prefix: &str, audit: &serde_json::Value, path: &str) -> Option<AnyView> {
    let (metric, pair) = interval_of(audit, path)?;
    let (lo, hi) = (pair[0].as_f64(), pair[1].as_f64());
    let text = match (lo, hi) {
        (Some(lo), Some(hi)) => format!(
            "[{}, {}]",
            crate::shared::numfmt::display(Some(lo)),
            crate::shared::numfmt::display(Some(hi))
        ),
        _ => "[undefined]".into(),
    };
    Some(
        view! {
            <span class="ci" data-metric=format!("{prefix}{metric}") data-value=pair.to_string()
                title="95 % bootstrap interval (1,000 resamples of the rows)">{text}</span>
        }
        .into_any(),
    )
}

/// The `data-metric` path of the overview's mean confidence − accuracy (derived by
/// the page from the audit's numbers, see `calibscope_app::calib_badges`).
const CONF_GAP: &str = "derived.conf_minus_acc";

/// Mean confidence − accuracy of `audit`: the mean confidence of its 10-bin
/// equal-width confidence reliability table less its accuracy.
fn conf_gap(audit: &serde_json::Value) -> Option<f64> {
    let rows = get_path(audit, "reliability.confidence.width_10")?;
    let acc = get_path(audit, "binning_free.accuracy")?.as_f64()?;
    Some(badges::mean_confidence(rows)? - acc)
}

#[component]
pub fn Overview() -> impl IntoView {
    let store = expect_context::<Store>();
    let shown = RwSignal::new(DEFAULT_COLUMNS.to_vec());
    let is_shown = move |key: &'static str| shown.with(|s| s.contains(&key));
    move || {
        let s = store.summary.get()?;
        let m = s.m_overview;
        let cols = overview_paths(s.kind, m);
        let headers = cols
            .iter()
            .map(|(k, _)| {
                let k = *k;
                help_header(k, Signal::derive(move || !is_shown(k)))
            })
            .collect_view();
        let chooser = cols
            .iter()
            .map(|(k, _)| {
                let k = *k;
                let toggle = move |_| {
                    shown.update(|s| {
                        if let Some(i) = s.iter().position(|x| *x == k) {
                            s.remove(i);
                        } else {
                            s.push(k);
                        }
                    })
                };
                view! {
                    <label class="column-choice">
                        <input type="checkbox" data-column=k prop:checked=move || is_shown(k) on:change=toggle/>
                        " " {text::metric(k).label}
                    </label>
                }
            })
            .collect_view();
        // read in place: no copy of every model's audit JSON on each render
        let rows = store.audits.with(|audits| {
                audits
                .iter()
                .enumerate()
                .map(|(i, audit)| {
                    let prefix = store.prefix(i);
                    let name = s.models.get(i).cloned().unwrap_or_default();
                    let cells = cols
                        .iter()
                        .map(|(key, path)| {
                            let d = text::metric(key);
                            let v = if *key == "conf_gap" {
                                conf_gap(audit)
                            } else {
                                get_path(audit, path).and_then(|v| v.as_f64())
                            };
                            let pending = SECOND_STAGE.contains(key) && get_path(audit, path).is_none() && !crate::page::aggregate::is_open();
                            let cell = if pending {
                                view! { <span class="pending" title="computed with the bootstrap, in a moment">"…"</span> }.into_any()
                            } else {
                                num_view(format!("{prefix}{path}"), v, d.undefined)
                            };
                            let extra = match *key {
                                "csr" => {
                                    let sp = "beyond_ece.sigma_csr";
                                    let sv = get_path(audit, sp).and_then(|v| v.as_f64());
                                    Some(view! { <span class="pm">" ± " {num_view(format!("{prefix}{sp}"), sv, "undefined without samples")}</span> }.into_any())
                                }
                                "p_risk" => v.map(|p| {
                                    let (class, label) = badges::risk_badge(p);
                                    view! { <span class=class data-badge=label>{label}</span> }.into_any()
                                }),
                                "conf_gap" => {
                                    let ece = get_path(audit, &format!("readings.confidence.width.{m}.ece")).and_then(|v| v.as_f64());
                                    badges::calibration(v, ece).map(|c| {
                                        let (class, label) = badges::calibration_badge(c);
                                        let text = label.clone();
                                        // the badge's points, at full precision
                                        let points = match c {
                                            badges::Calibration::Under(d) | badges::Calibration::Over(d) => Some(d * 100.0),
                                            _ => None,
                                        };
                                        let metric = points.map(|_| format!("{prefix}derived.conf_minus_acc_points"));
                                        let value = points.map(|p| crate::shared::numfmt::data_value(Some(p)));
                                        view! { <span class=class data-badge=label data-metric=metric data-value=value>{text}</span> }.into_any()
                                    })
                                }
                                _ => interval_view(&prefix, audit, path),
                            };
                            let key = *key;
                            view! { <td hidden=move || !is_shown(key)>{cell}{extra}</td> }
                        })
                        .collect_view();
                    let select = move |_| {
                        store.model.set(i);
                    };
                    view! {
                        <tr class:selected=move || store.model.get() == i data-model=name.clone()>
                            <th scope="row">
                                <button class="linklike" on:click=select title="Explore this model's reliability">{name.clone()}</button>
                            </th>
                            {cells}
                        </tr>
                    }
                })
                .collect_view()
        });
        Some(view! {
            <section class="overview" id="overview" aria-labelledby="overview-title">
                <h2 id="overview-title">"Overview"</h2>
                <p class="note">"Binned metrics on the confidence reading at m = " {m} " bins (Brier parts: " {match s.kind { Kind::Binary => "positive class", Kind::Multiclass => "sum over classes", Kind::TopLabel => "confidence reading" }} "); "
                    {if crate::page::aggregate::is_open() { "no bootstrap intervals: an aggregate holds counts per cell, not the rows a resample draws. " } else { "in brackets, 95 % bootstrap intervals. " }}
                    "Hover or focus a heading for its meaning."</p>
                <details class="columns">
                    <summary>"Choose columns"</summary>
                    <div class="column-choices">{chooser}</div>
                </details>
                <div class="scroll" tabindex="0">
                    <table class="metrics">
                        <thead><tr><th scope="col">"Model"</th>{headers}</tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </section>
        })
    }
}
