//! The Recalibrate view's tables: the ledger (seed 001's table, extended: before and
//! after each method on the evaluation split, with "can τ move it?"; its rows built
//! once, in calibscope-audit's `ledger`, sent by the worker, only drawn here), the invariance
//! checks as badges computed from the data (METRICS.md §6) and the risk warnings
//! (source 002). Every number comes from the worker's answer; paths are the audit
//! JSON's `recalibration` paths (and, for what the audit JSON lacks,
//! `recalibration.<method>.checks.<key>` and `recalibration.<set>.binned.<reading>.
//! <binning>.<m>.<key>`).

use crate::proto::recal::Checks;
use crate::proto::RecalView;
use crate::shared::numfmt::{data_value, display};
use crate::shared::text;
use calibscope_audit::ledger::{self, Better, Ledger};
use calibscope_audit::Method;
use leptos::prelude::*;
use serde_json::Value;

use crate::recal::state::Tables;
use crate::shared::widgets::{get_path, num_view};

/// A ledger cell: its value (or its set's reason to be undefined), "(worse)" when worse than
/// before.
fn cell(
    path: String,
    v: Option<f64>,
    worse: bool,
    undefined: Option<&str>,
    why: &'static str,
) -> AnyView {
    if let Some(reason) = undefined {
        return view! { <td class="undef"><span class="num undefined" data-metric=path data-value="null">"undefined"<span class="why">{format!(" ({reason})")}</span></span></td> }.into_any();
    }
    view! {
        <td class:worse=worse>
            {num_view(path, v, why)}
            {worse.then(|| view! { <span class="regress" title="worse than before on the evaluation split">" (worse)"</span> })}
        </td>
    }
    .into_any()
}

/// The ledger the worker built (one row per metric, one column per set, regressions
/// marked), with Brier's CAL and REF at the diagrams' bins after the Brier row.
pub fn ledger(prefix: &str, l: &Ledger, tables: Option<&Tables>) -> AnyView {
    let mut body: Vec<AnyView> = Vec::new();
    for line in &l.lines {
        let doc = text::metric(&line.help);
        let cells = l
            .sets
            .iter()
            .zip(&line.cells)
            .map(|(set, c)| {
                if line.key == "fit_ms" && set.key == "before" {
                    return view! { <td class="none">"—"</td> }.into_any();
                }
                let why = if line.key == "fit_ms" {
                    "no clock, or not fitted"
                } else {
                    doc.undefined
                };
                cell(
                    format!("{prefix}recalibration.{}", c.path),
                    c.value,
                    c.worse,
                    set.undefined.as_deref(),
                    why,
                )
            })
            .collect_view();
        body.push(
            view! {
                <tr data-row=line.key.clone()>
                    <th scope="row"><span class="tip" tabindex="0">{line.label.clone()}<span class="tiptext" role="tooltip">{doc.help}</span></span></th>
                    {cells}
                    <td class="can-tau">{line.can_tau.clone()}</td>
                </tr>
            }
            .into_any(),
        );
        if line.help == "brier" {
            if let Some(t) = tables {
                body.extend(brier_parts(prefix, l, t));
            }
        }
    }
    let heads = l
        .sets
        .iter()
        .map(|s| view! { <th scope="col">{s.title.clone()}</th> })
        .collect_view();
    view! {
        <div class="scroll" tabindex="0">
            <table class="ledger" id="recal-ledger">
                <caption>"Evaluation split: before and after each method (fitted on the calibration split only). “(worse)” marks a regression, shown, not hidden."</caption>
                <thead><tr><th scope="col">"metric"</th>{heads}<th scope="col">"can τ move it?"</th></tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
    .into_any()
}

/// Brier's CAL and REF of every set at the diagrams' bins (the tables' answer).
fn brier_parts(prefix: &str, l: &Ledger, t: &Tables) -> Vec<AnyView> {
    let Tables {
        binning,
        reading,
        m,
        tables,
    } = t;
    [
        ("cal", "Brier CAL", "yes: the target"),
        ("ref", "Brier REF", "yes, either direction"),
    ]
    .into_iter()
    .map(|(key, label, can)| {
        let get = |set: &str| {
            tables
                .iter()
                .find(|t| t.set == set)
                .and_then(|t| t.metrics.get(key))
                .copied()
                .flatten()
        };
        let before = get("before");
        let cells = l
            .sets
            .iter()
            .map(|set| {
                let path = format!(
                    "{prefix}recalibration.{}.binned.{}.{}.{m}.{key}",
                    set.key,
                    reading.name(),
                    binning.name()
                );
                let v = get(&set.key);
                let regress = set.key != "before"
                    && matches!((before, v), (Some(b), Some(a)) if ledger::worse(Better::Lower, b, a));
                cell(path, v, regress, set.undefined.as_deref(), text::metric(key).undefined)
            })
            .collect_view();
        view! {
            <tr data-row=key>
                <th scope="row">{label} <span class="sub">{format!(" ({}, {m} {} bins)", reading.name(), binning.name())}</span></th>
                {cells}
                <td class="can-tau">{can}</td>
            </tr>
        }
        .into_any()
    })
    .collect()
}

/// A pass/fail badge of a boolean found at `path` of `section` (`recalibration.` +
/// `path` as its data-metric).
fn badge(
    prefix: &str,
    section: &Value,
    path: &str,
    holds: &'static str,
    fails: &'static str,
) -> AnyView {
    let v = get_path(section, path).and_then(Value::as_bool);
    let (class, label) = match v {
        Some(true) => ("badge ok", holds),
        Some(false) => ("badge fail", fails),
        None => ("badge na", "not measured"),
    };
    let dv = v.map_or("null".to_string(), |b| b.to_string());
    view! { <span class=class data-metric=format!("{prefix}recalibration.{path}") data-value=dv>{label}</span> }.into_any()
}

fn signed(path: String, v: Option<f64>) -> AnyView {
    let shown = match v {
        Some(x) if x > 0.0 => format!("+{}", display(Some(x))),
        other => display(other),
    };
    view! { <span class="num" data-metric=path data-value=data_value(v)>{shown}</span> }.into_any()
}

/// The invariance checks of temperature scaling (what must hold, what may not) and
/// the same checks for Platt and isotonic.
pub fn invariants(prefix: &str, section: &Value, view_data: &RecalView, binary: bool) -> AnyView {
    let t = "temperature";
    let must = {
        let mut items = vec![
            (
                format!("{t}.invariants.argmax_identical"),
                "per-row argmax (predicted class) identical",
            ),
            (
                format!("{t}.invariants.accuracy_identical"),
                "accuracy identical",
            ),
            (
                format!("{t}.invariants.nll_cal_not_above_tau1"),
                "fitted calibration NLL ≤ NLL at τ = 1",
            ),
        ];
        if binary {
            items.push((
                format!("{t}.invariants.score_order_identical"),
                "order of the scores s/τ identical to s",
            ));
            items.push((
                format!("{t}.invariants.score_auc_identical"),
                "AUC on the scores s/τ identical",
            ));
        }
        items
            .into_iter()
            .map(|(path, what)| view! { <li>{badge(prefix, section, &path, "holds", "FAILS")}" "{what}</li> })
            .collect_view()
    };
    let score_auc = binary.then(|| {
        let g = |k: &str| get_path(section, &format!("{t}.score_auc.{k}")).and_then(Value::as_f64);
        view! {
            <p class="sub">"AUC of s: " {num_view(format!("{prefix}recalibration.{t}.score_auc.before"), g("before"), "undefined: one class is absent")}
            " → of s/τ: " {num_view(format!("{prefix}recalibration.{t}.score_auc.after"), g("after"), "undefined: one class is absent")}</p>
        }
    });
    let argsort = get_path(
        section,
        &format!("{t}.informational.prob_argsort_identical_per_class"),
    )
    .and_then(Value::as_array)
    .cloned()
    .unwrap_or_default();
    let argsort_view = argsort
        .iter()
        .enumerate()
        .map(|(r, v)| {
            let ok = v.as_bool() == Some(true);
            view! {
                <span class=if ok { "badge ok" } else { "badge warn" }
                    data-metric=format!("{prefix}recalibration.{t}.informational.prob_argsort_identical_per_class.{r}")
                    data-value=ok.to_string()>{format!("p^({r}): {}", if ok { "identical" } else { "changed" })}</span>
            }
        })
        .collect_view();
    let auc_change = if binary {
        let path = format!("{t}.informational.prob_auc_change");
        let v = get_path(section, &path).and_then(Value::as_f64);
        view! { <li>"AUC of the probabilities, after − before: " {signed(format!("{prefix}recalibration.{path}"), v)}
            " (can move when σ(s/τ) saturates to exactly 0 or 1 in f64: ties appear)"</li> }
        .into_any()
    } else {
        let per = get_path(
            section,
            &format!("{t}.informational.prob_auc_change_per_class"),
        )
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
        let cells = per
            .iter()
            .enumerate()
            .map(|(r, v)| view! { <span class="pc">{format!("class {r}: ")}{signed(format!("{prefix}recalibration.{t}.informational.prob_auc_change_per_class.{r}"), v.as_f64())}</span> })
            .collect_view();
        let mac = get_path(section, &format!("{t}.informational.prob_auc_macro_change"))
            .and_then(Value::as_f64);
        view! {
            <li>"Per-class AUC, after − before: " {cells}</li>
            <li>"Macro AUC, after − before: " {signed(format!("{prefix}recalibration.{t}.informational.prob_auc_macro_change"), mac)}</li>
            <li class="why">"Why it moves for k ≥ 3: softmax(z/τ)_r depends on every logit of the row, so dividing by τ can reorder two samples' p_r (a row with one dominant rival and a row with many weak ones change differently): per-class AUC is not a temperature invariant."</li>
        }
        .into_any()
    };
    view! {
        <div class="checks" id="recal-invariants">
            <h4>"Must hold (temperature scaling)"</h4>
            <ul class="badges">{must}</ul>
            {score_auc}
            <h4>"Claimed by the seed chapter, but the data may contradict it"</h4>
            <ul class="badges">
                <li>"Stable order of each probability column: " {argsort_view}</li>
                {auc_change}
            </ul>
            {method_checks(prefix, view_data, binary)}
        </div>
    }
    .into_any()
}

/// The same probability-level checks for every method, side by side.
fn method_checks(prefix: &str, view_data: &RecalView, binary: bool) -> AnyView {
    let methods: Vec<(Method, &str)> = crate::recal::state::offered(view_data)
        .into_iter()
        .map(|m| (m, m.title()))
        .collect();
    let checks = &view_data.checks;
    let path = |m: Method, k: &str| format!("{prefix}recalibration.{}.checks.{k}", m.name());
    let bool_row = |key: &'static str,
                    label: &'static str,
                    holds: &'static str,
                    breaks: &'static str,
                    get: fn(&Checks) -> bool| {
        let cells = methods
            .iter()
            .map(|&(m, _)| match checks.get(m).map(get) {
                Some(b) => view! { <td><span class=if b { "badge ok" } else { "badge warn" } data-metric=path(m, key) data-value=b.to_string()>{if b { holds } else { breaks }}</span></td> }.into_any(),
                None => view! { <td><span class="badge na" data-metric=path(m, key) data-value="null">"undefined"</span></td> }.into_any(),
            })
            .collect_view();
        view! { <tr><th scope="row">{label}</th>{cells}</tr> }
    };
    let count_row = |key: &'static str, label: &'static str, get: fn(&Checks) -> usize| {
        let cells = methods
            .iter()
            .map(|&(m, _)| {
                let v = checks.get(m).map(get);
                view! { <td><span class="num" data-metric=path(m, key) data-value=v.map_or("null".into(), |v| v.to_string())>{v.map_or("undefined".into(), |v| v.to_string())}</span></td> }
            })
            .collect_view();
        view! { <tr><th scope="row">{label}</th>{cells}</tr> }
    };
    let auc_key = if binary {
        "auc_change_per_class.1"
    } else {
        "auc_macro_change"
    };
    let auc = |c: &Checks| {
        if binary {
            c.auc_change_per_class.get(1).copied().flatten()
        } else {
            c.auc_macro_change
        }
    };
    let auc_cells = methods
        .iter()
        .map(|&(m, _)| view! { <td>{signed(path(m, auc_key), checks.get(m).and_then(auc))}</td> })
        .collect_view();
    let heads = methods
        .iter()
        .map(|(_, t)| view! { <th scope="col">{*t}</th> })
        .collect_view();
    view! {
        <h4>"The same checks for every method (evaluation split, probabilities)"</h4>
        <div class="scroll" tabindex="0">
            <table class="method-checks" id="recal-method-checks">
                <thead><tr><th scope="col">"check"</th>{heads}</tr></thead>
                <tbody>
                    {bool_row("argmax_identical", "decisions (argmax) unchanged", "unchanged", "moved", |c| c.argmax_identical)}
                    {count_row("argmax_changed_rows", "rows whose decision moved", |c| c.argmax_changed_rows)}
                    {bool_row("accuracy_identical", "accuracy unchanged", "unchanged", "changed", |c| c.accuracy_identical)}
                    {count_row("distinct_before", if binary { "distinct values of p before" } else { "distinct confidences before" }, |c| c.distinct_before)}
                    {count_row("distinct_after", "distinct values after (fewer: ties created)", |c| c.distinct_after)}
                    <tr><th scope="row">{if binary { "AUC change (p)" } else { "macro AUC change" }}</th>{auc_cells}</tr>
                </tbody>
            </table>
        </div>
        <p class="sub">"Platt fits σ(a·s + b): b ≠ 0 moves the 0.5 threshold, so decisions can move. Isotonic keeps the order but pools scores into flat blocks: distinct scores become ties. Beta calibration fits σ(c + a·ln p − b·ln(1 − p)), monotone, so it keeps the order of p but can move the threshold. Histogram binning replaces p by its bin's share of positives: every row of a bin ties. Venn–Abers merges two isotonic fits (the row added as a 0, then as a 1): ties like isotonic, never exactly 0 or 1. For more than two classes the last three are fitted per class on its probability and the rows renormalised, so decisions can move. Vector scaling, matrix scaling and Dirichlet calibration map every class at once, softmax(W x + b): different weights per class can move decisions and reorder a class's probabilities across rows."</p>
    }
    .into_any()
}

/// A warning for every set whose P_risk on the evaluation split exceeds 0.95 (the
/// ledger's P_risk and CSR cells).
pub fn risk_warnings(prefix: &str, l: &Ledger) -> AnyView {
    let line = |key: &str| l.lines.iter().find(|x| x.key == key);
    let (Some(p_risk), Some(csr)) = (line("p_risk"), line("csr")) else {
        return ().into_any();
    };
    let items = l
        .sets
        .iter()
        .zip(p_risk.cells.iter().zip(&csr.cells))
        .filter_map(|(set, (p, c))| {
            let v = p.value?;
            (v > 0.95).then(|| {
                view! {
                    <li data-risk=set.key.clone()><strong>{set.title.clone()}</strong>": P_risk = "
                        {num_view(format!("{prefix}recalibration.{}", p.path), Some(v), "")}
                        ", CSR = " {num_view(format!("{prefix}recalibration.{}", c.path), c.value, "undefined without samples")}
                    </li>
                }
            })
        })
        .collect::<Vec<_>>();
    if items.is_empty() {
        return view! { <p class="sub" id="recal-risk-none">"No set has P_risk above 0.95 on the evaluation split."</p> }.into_any();
    }
    view! {
        <div class="risk-warning" role="alert" id="recal-risk">
            <p><strong>"Risk: likely overconfident on wrong answers."</strong></p>
            <ul>{items}</ul>
            <p>"The paper “Beyond ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics” (2026) reports that isotonic calibration, while it reduces ECE, can put high confidence on wrong predictions: 11 of its 15 data sets became risky after it, several with CSR > 10^5. Why: a top or bottom isotonic plateau that holds only positives or only negatives of the calibration split is assigned exactly 1 or 0, so a wrong answer can be given with confidence 1, and CSR = (1/n) Σ_wrong 1/(1 − c) explodes. Histogram binning does the same with a bin of one class. A temperature at the end of its search range (τ = 0.05) does the same by saturating σ(s/τ)."</p>
        </div>
    }
    .into_any()
}
