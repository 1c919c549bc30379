//! The Slices view (issue 32): calibration per group of a grouped data set — per
//! group n, accuracy, ECE at the view's bins, smooth ECE, CSR and P_risk, a small
//! reliability diagram per group on one scale, the worst-calibrated group and the
//! permutation test of the spread between groups — and the rows of a group's bin
//! ([`brush`]). Every number is the worker's (calibscope-engine's `slices`, the
//! CLI's `audit --group` values), carried with its path in the audit JSON.

pub mod brush;

use leptos::prelude::*;

use crate::client::call::{Call, Mode};
use crate::client::{Client, Reply, Request};
use crate::page::store::Store;
use crate::proto::slices::{SliceGroup, SlicesAnswer, SlicesRequest};
use crate::proto::{FromWorker, Reading, ToWorker};
use crate::shared::chart;
use crate::shared::numfmt::{data_value, display};
use brush::{BrushPanel, BrushTarget};

/// Groups smaller than this are too small for a statement (the CLI's default).
const MIN_SIZE: usize = 30;
/// Permutations of the test (the CLI's default), seeded by [`SEED`].
const PERMUTATIONS: usize = 1000;
const SEED: u64 = 0;

/// The groups of a model at the view's bins.
struct SlicesOf(SlicesRequest);

impl Request for SlicesOf {
    type Answer = SlicesAnswer;
    const CANCELLABLE: bool = true;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Slices {
            id,
            gen: id,
            request: self.0.clone(),
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<SlicesAnswer>> {
        match msg {
            FromWorker::Slices {
                complete, answer, ..
            } => Some(if complete {
                Reply::Done(answer)
            } else {
                Reply::Part(answer)
            }),
            _ => None,
        }
    }
}

/// A column of the table (sort key).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Col {
    Group,
    N,
    Accuracy,
    Ece,
    Smece,
    Csr,
    PRisk,
}

impl Col {
    const ALL: [Col; 7] = [
        Col::Group,
        Col::N,
        Col::Accuracy,
        Col::Ece,
        Col::Smece,
        Col::Csr,
        Col::PRisk,
    ];
    fn key(self) -> &'static str {
        match self {
            Col::Group => "group",
            Col::N => "n",
            Col::Accuracy => "accuracy",
            Col::Ece => "ece",
            Col::Smece => "smece",
            Col::Csr => "csr",
            Col::PRisk => "p_risk",
        }
    }
    fn title(self) -> &'static str {
        match self {
            Col::Group => "group",
            Col::N => "n",
            Col::Accuracy => "accuracy",
            Col::Ece => "ECE",
            Col::Smece => "smooth ECE",
            Col::Csr => "CSR",
            Col::PRisk => "P_risk",
        }
    }
    fn value(self, g: &SliceGroup) -> Option<f64> {
        match self {
            Col::Group => None,
            Col::N => Some(g.n as f64),
            Col::Accuracy => g.accuracy,
            Col::Ece => g.ece,
            Col::Smece => g.smece,
            Col::Csr => g.csr,
            Col::PRisk => g.p_risk,
        }
    }
    /// Its path under `groups.values.<i>.` in the audit JSON.
    fn path(self) -> &'static str {
        match self {
            Col::Smece => "audit.binning_free.smece",
            c => c.key(),
        }
    }
}

/// The groups shown: filtered by name (`filter`, any part, any case) and by size,
/// sorted by `col` (`desc`), as indices into `groups`.
fn shown(
    groups: &[SliceGroup],
    filter: &str,
    large_only: bool,
    col: Col,
    desc: bool,
) -> Vec<usize> {
    let f = filter.trim().to_lowercase();
    let mut idx: Vec<usize> = (0..groups.len())
        .filter(|&i| f.is_empty() || groups[i].group.to_lowercase().contains(&f))
        .filter(|&i| !large_only || !groups[i].too_small)
        .collect();
    idx.sort_by(|&a, &b| {
        let o = match col {
            Col::Group => groups[a].group.cmp(&groups[b].group),
            c => {
                let (x, y) = (c.value(&groups[a]), c.value(&groups[b]));
                // undefined values last either way
                match (x, y) {
                    (Some(x), Some(y)) => x.total_cmp(&y),
                    (Some(_), None) => return std::cmp::Ordering::Less,
                    (None, Some(_)) => return std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                }
            }
        };
        if desc {
            o.reverse()
        } else {
            o
        }
    });
    idx
}

fn num(path: String, v: Option<f64>) -> impl IntoView {
    view! { <span class="num" data-metric=path data-value=data_value(v)>{display(v)}</span> }
}

/// The view.
#[component]
pub fn Slices() -> impl IntoView {
    let store = expect_context::<Store>();
    let client = expect_context::<Client>();
    let call = Call::<SlicesOf>::new(client, Mode::Latest);
    let grouped = Memo::new(move |_| {
        store
            .summary
            .with(|s| s.as_ref().is_some_and(|s| !s.group_columns.is_empty()))
    });
    Effect::new(move |_| {
        if grouped.get() {
            call.send(SlicesOf(SlicesRequest {
                model: store.model.get(),
                binning: store.binning.get(),
                m: store.m.get(),
                min_size: MIN_SIZE,
                permutations: PERMUTATIONS,
                seed: SEED,
            }));
        }
    });
    let filter = RwSignal::new(String::new());
    let large_only = RwSignal::new(false);
    let sort = RwSignal::new((Col::Ece, true));
    let target = RwSignal::new(None::<BrushTarget>);
    move || {
        if !grouped.get() {
            return view! {
                <section class="slices" id="slices" aria-labelledby="slices-title">
                    <h2 id="slices-title">"Slices: calibration per group"</h2>
                    <p class="notice" id="slices-ungrouped">"This data set is not grouped. Choose one or more grouping columns under “Correct the mapping” above (any column the mapping does not use: a subject, a site, a language, a binarised feature); several columns group by their combinations."</p>
                </section>
            }
            .into_any();
        }
        let Some(a) = call.answer.get() else {
            return view! { <section class="slices" id="slices"><p class="pending" id="slices-pending">"Computing the groups…"</p></section> }.into_any();
        };
        let prefix = store.prefix(a.model);
        // the second part brings the test and the groups' verdicts
        let complete = a.tested;
        view! {
            <section class="slices" id="slices" aria-labelledby="slices-title"
                data-complete=complete.to_string()>
                <h2 id="slices-title">"Slices: calibration per group (" {a.columns.join(" × ")} ")"</h2>
                {summary_view(&a, &prefix)}
                {call.status("Permutations and bootstrap replicates run")}
                {explanation(a.min_size)}
                <div class="controls" role="group" aria-label="Filter the groups">
                    <label>"Group contains "
                        <input id="slices-filter" type="search" prop:value=move || filter.get()
                            on:input=move |ev| filter.set(event_target_value(&ev))/>
                    </label>
                    <label><input id="slices-large-only" type="checkbox" prop:checked=move || large_only.get()
                        on:change=move |ev| large_only.set(event_target_checked(&ev))/>
                        " only groups large enough for a statement"</label>
                </div>
                {table_view(a.clone(), prefix.clone(), filter, large_only, sort)}
                <BrushPanel target=target id="slices-brush"/>
                {multiples_view(a, prefix, filter, large_only, sort, target)}
            </section>
        }
        .into_any()
    }
}

/// A verdict's kind in words (the table's column; the sentence is under the
/// group's diagram).
fn verdict_words(kind: &str) -> &'static str {
    calibscope_core::verdict::VerdictKind::from_name(kind)
        .map_or("no evidence of miscalibration", |k| k.words())
}

fn summary_view(a: &SlicesAnswer, prefix: &str) -> impl IntoView {
    let worst = a.worst.map(|w| {
        let g = &a.groups[w];
        view! {
            <p id="slices-worst">"Worst-calibrated group: "
                <strong data-metric=format!("{prefix}worst_group.group") data-value=g.group.clone()>{g.group.clone()}</strong>
                " (ECE " {num(format!("{prefix}worst_group.ece"), g.ece)} ", n = "
                <span class="num" data-metric=format!("{prefix}worst_group.n") data-value=g.n.to_string()>{g.n}</span> ")."</p>
        }
    });
    let test = match (a.spread, a.tested, a.p_value) {
        (None, _, _) => view! { <p id="slices-test">"No comparison: fewer than two groups have " {a.min_size} " samples or more."</p> }.into_any(),
        (Some(spread), false, _) => view! {
            <p id="slices-test">"Largest gap between groups (largest minus smallest ECE): " {num(format!("{prefix}groups.test.spread"), Some(spread))}
                ". The permutation test and the groups' verdicts are being computed…"</p>
        }.into_any(),
        (Some(spread), true, p) => view! {
            <p id="slices-test">"Largest gap between groups (largest minus smallest ECE): " {num(format!("{prefix}groups.test.spread"), Some(spread))}
                "; permutation test p = " {num(format!("{prefix}groups.test.p_value"), p)}
                " (" <span class="num" data-metric=format!("{prefix}groups.test.permutations") data-value=a.permutations.to_string()>{a.permutations}</span>
                " random reassignments, seed " {a.seed} "; " <span class="num" data-metric=format!("{prefix}groups.test.exceed") data-value=a.exceed.to_string()>{a.exceed}</span>
                " reached the observed gap). "
                {if p.is_some_and(|p| p < 0.05) { "The groups differ more than chance would make them: at least one group is calibrated differently." } else { "A gap this large is what chance alone often gives groups of these sizes: no evidence that the groups are calibrated differently." }}</p>
        }.into_any(),
    };
    view! { <div class="slices-summary">{worst}{test}</div> }
}

fn explanation(min_size: usize) -> impl IntoView {
    view! {
        <details class="explain" id="slices-explain">
            <summary>"What the gap and the test mean"</summary>
            <p>"A model can be calibrated on average and still be overconfident for one group (a language, a hospital, a subject) and underconfident for another: the errors cancel in the average. Calibration within groups — among the samples of each group, a confidence of 0.8 is right 8 times in 10 — is also a fairness criterion (Kleinberg, Mullainathan & Raghavan, “Inherent Trade-Offs in the Fair Determination of Risk Scores”, 2017; Pleiss et al., “On Fairness and Calibration”, 2017)."</p>
            <p>"The gap is the largest group ECE minus the smallest. Some gap always appears, because ECE is measured on a sample and is larger, on average, in small groups. The permutation test asks whether the observed gap is larger than chance explains: it deals the same samples out to groups of the same sizes at random many times and counts how often the random groups show a gap at least as large. The p-value is (1 + that count) / (1 + the number of deals): a small p (below 0.05) means random groups rarely differ this much. The deals are seeded, so the same data give the same p-value, here and on the command line."</p>
            <p>"Groups with fewer than " {min_size} " samples are listed and marked “too small”: their numbers are shown, but they are too noisy for a statement, so they take no part in the worst group or the test."</p>
        </details>
    }
}

fn table_view(
    a: SlicesAnswer,
    prefix: String,
    filter: RwSignal<String>,
    large_only: RwSignal<bool>,
    sort: RwSignal<(Col, bool)>,
) -> impl IntoView {
    let heads = Col::ALL
        .iter()
        .map(|&c| {
            let aria = move || match sort.get() {
                (s, true) if s == c => "descending",
                (s, false) if s == c => "ascending",
                _ => "none",
            };
            view! {
                <th scope="col" aria-sort=aria>
                    <button class="sort" data-sort=c.key()
                        on:click=move |_| sort.update(|s| *s = if s.0 == c { (c, !s.1) } else { (c, c != Col::Group) })>
                        {c.title()}
                    </button>
                </th>
            }
        })
        .collect_view();
    let worst = a.worst;
    let tested = a.tested;
    let rows = move || {
        let (col, desc) = sort.get();
        shown(&a.groups, &filter.get(), large_only.get(), col, desc)
            .into_iter()
            .map(|i| {
                let g = &a.groups[i];
                let base = format!("{prefix}groups.values.{i}.");
                let cells = Col::ALL[1..]
                    .iter()
                    .map(|&c| view! { <td>{num(format!("{base}{}", c.path()), c.value(g))}</td> })
                    .collect_view();
                let status = if g.too_small {
                    format!("too small for a statement (fewer than {MIN_SIZE})")
                } else if Some(i) == worst {
                    "worst calibrated".to_string()
                } else {
                    String::new()
                };
                let verdict = match &g.verdict {
                    Some(v) => view! { <span data-metric=format!("{base}audit.verdict.kind") data-value=v.kind.clone() title=v.text.clone()>{verdict_words(&v.kind)}</span> }.into_any(),
                    None if !tested => view! { <span class="pending">"testing…"</span> }.into_any(),
                    None => view! { <span class="pending">"—"</span> }.into_any(),
                };
                view! {
                    <tr data-group=g.group.clone() data-index=i.to_string() class:worst=Some(i) == worst class:too-small=g.too_small>
                        <th scope="row" data-metric=format!("{base}group") data-value=g.group.clone()>{if g.group.is_empty() { "(empty)".to_string() } else { g.group.clone() }}</th>
                        {cells}
                        <td class="verdict-kind">{verdict}</td>
                        <td class="status" data-too-small=g.too_small.to_string()>{status}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <div class="scroll">
            <table id="slices-table">
                <thead><tr>{heads}<th scope="col">"verdict"</th><th scope="col">"status"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p class="legend">"ECE at " {a.m} " " {a.binning.map_or("", |b| b.name())} " bins (the Audit view's setting); accuracy, CSR and P_risk of the confidence; smooth ECE without bins; the verdict of each group's rows alone, as the Audit view decides it (its sentence is under the group's diagram). Sort by a column with its header's button; press it again to reverse."</p>
    }
}

/// Small reliability diagrams, one per group, on one scale (both axes 0 to 1); each
/// bin of a group can be listed (brushing).
fn multiples_view(
    a: SlicesAnswer,
    prefix: String,
    filter: RwSignal<String>,
    large_only: RwSignal<bool>,
    sort: RwSignal<(Col, bool)>,
    target: RwSignal<Option<BrushTarget>>,
) -> impl IntoView {
    let Some(binning) = a.binning else {
        return ().into_any();
    };
    let cards = move || {
        let (col, desc) = sort.get();
        shown(&a.groups, &filter.get(), large_only.get(), col, desc)
            .into_iter()
            .map(|i| {
                let g = a.groups[i].clone();
                let svg = chart::reliability_with(
                    &g.rows,
                    &chart::Options {
                        width: 260,
                        x_label: "confidence",
                        y_label: "accuracy",
                        counts: chart::CountScale::Auto,
                    },
                )
                .svg;
                let (model, m) = (a.model, a.m);
                let bins = g
                    .rows
                    .iter()
                    .map(|r| {
                        let (bin, n, name) = (r.bin, r.n, g.group.clone());
                        view! {
                            <button class="bin" data-group-index=i.to_string() data-bin=bin.to_string()
                                aria-label=format!("List the {n} rows of bin {bin} of group {name}")
                                on:click=move |_| target.set(Some(BrushTarget {
                                    model, reading: Reading::Confidence, binning, m, bin, group: Some(i),
                                    label: format!("bin {bin} of group {name}"),
                                }))>
                                {bin} " (" {n} ")"
                            </button>
                        }
                    })
                    .collect_view();
                let sentence = g.verdict.as_ref().map(|v| view! {
                    <p class="verdict-text" data-metric=format!("{prefix}groups.values.{i}.audit.verdict.text") data-value=v.text.clone()>{v.text.clone()}</p>
                });
                view! {
                    <figure class="multiple" data-group=g.group.clone() class:too-small=g.too_small>
                        <figcaption>{g.group.clone()} " · n = " {g.n} {g.too_small.then_some(" · too small")}</figcaption>
                        <div class="svg" role="img" aria-label=format!("Reliability diagram of group {}", g.group) inner_html=svg></div>
                        {sentence}
                        <div class="bins" role="group" aria-label=format!("Bins of group {} (list their rows)", g.group)>{bins}</div>
                    </figure>
                }
            })
            .collect_view()
    };
    view! {
        <h3>"Reliability per group"</h3>
        <p class="legend">"One diagram per group, all on the same axes (confidence and accuracy from 0 to 1). The buttons under each diagram list the rows of a bin (its number and count)."</p>
        <div class="multiples" id="slices-multiples">{cards}</div>
    }
    .into_any()
}
