//! Brushing: the rows of one bin of a reliability diagram (of the whole set in the
//! Audit view, of one group in the Slices view), a page at a time, and all of them
//! as a CSV download. The worker holds the data set and finds the rows
//! ([`BrushOf`]); nothing leaves the page.

use leptos::prelude::*;

use crate::client::call::{Call, Mode};
use crate::client::{Client, Reply, Request};
use crate::proto::slices::{BrushAnswer, BrushRequest};
use crate::proto::{FromWorker, Reading, ToWorker};
use crate::shared::download::download_text;
use crate::shared::numfmt::{data_value, display};
use calibscope_core::binning::Binning;

/// Rows per page.
pub const PAGE: usize = 50;

/// A bin to list: which diagram and which of its bins.
#[derive(Clone, Debug, PartialEq)]
pub struct BrushTarget {
    pub model: usize,
    pub reading: Reading,
    pub binning: Binning,
    pub m: usize,
    pub bin: usize,
    pub group: Option<usize>,
    /// What the panel's title says the bin is ("bin 3 of group a").
    pub label: String,
}

/// The rows of a bin (a page, or all of them as CSV).
pub struct BrushOf(pub BrushRequest);

impl Request for BrushOf {
    type Answer = BrushAnswer;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Brush {
            id,
            gen: id,
            request: self.0.clone(),
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<BrushAnswer>> {
        match msg {
            FromWorker::Brushed { answer, .. } => Some(Reply::Done(answer)),
            _ => None,
        }
    }
}

fn request(t: &BrushTarget, offset: usize, csv: bool) -> BrushRequest {
    BrushRequest {
        model: t.model,
        reading: t.reading,
        binning: t.binning,
        m: t.m,
        bin: t.bin,
        group: t.group,
        offset,
        limit: PAGE,
        csv,
    }
}

/// The panel of the rows of `target`'s bin (nothing while it is `None`).
#[component]
pub fn BrushPanel(target: RwSignal<Option<BrushTarget>>, id: &'static str) -> impl IntoView {
    let client = expect_context::<Client>();
    let call = Call::<BrushOf>::new(client, Mode::Latest);
    let offset = RwSignal::new(0usize);
    let csv_call = Call::<BrushOf>::handled(client, Mode::Every, move |reply| {
        if let Reply::Done(a) = reply {
            if let Some(text) = a.csv {
                let group = a.group.map_or(String::new(), |g| format!("_group{g}"));
                let name = format!("bin{}{group}_rows.csv", a.bin);
                download_text(&name, "text/csv", &text);
            }
        }
    });
    Effect::new(move |_| {
        if let Some(t) = target.get() {
            call.send(BrushOf(request(&t, offset.get(), false)));
        }
    });
    // a new bin starts at its first page
    Effect::new(move |prev: Option<Option<BrushTarget>>| {
        let t = target.get();
        if prev.is_some_and(|p| p != t) {
            offset.set(0);
        }
        t
    });
    move || {
        let t = target.get()?;
        let answer = call.answer.get().filter(|a| {
            a.bin == t.bin && a.group == t.group && a.m == t.m && a.binning == Some(t.binning)
        });
        let body = match answer {
            None => view! { <p class="pending">"Finding the rows…"</p> }.into_any(),
            Some(a) => rows_view(a, t.reading).into_any(),
        };
        let off = offset.get();
        let at_end = call
            .answer
            .with(|a| a.as_ref().is_none_or(|a| off + PAGE >= a.total));
        let t2 = t.clone();
        Some(view! {
            <section class="brush" id=id aria-label="Rows of the selected bin" data-bin=t.bin.to_string()>
                <div class="table-head">
                    <h3>"Rows in " {t.label.clone()}</h3>
                    <button class="brush-prev" disabled=off == 0
                        on:click=move |_| offset.set(off.saturating_sub(PAGE))>"Previous rows"</button>
                    <button class="brush-next" disabled=at_end
                        on:click=move |_| offset.set(off + PAGE)>"Next rows"</button>
                    <button class="brush-csv" on:click=move |_| csv_call.send(BrushOf(request(&t2, 0, true)))>"Download these rows as CSV"</button>
                    <button class="brush-close" on:click=move |_| target.set(None)>"Close"</button>
                </div>
                {body}
            </section>
        })
    }
}

fn rows_view(a: BrushAnswer, reading: Reading) -> impl IntoView {
    let forecast = match reading {
        Reading::Confidence => "confidence".to_string(),
        Reading::Positive => "P(y = 1)".to_string(),
        Reading::Class(r) => format!("P(class {r})"),
    };
    let heads = a
        .group_columns
        .iter()
        .map(|c| view! { <th scope="col">{c.clone()}</th> })
        .collect_view();
    let has_id = a.has_id;
    let rows = a
        .rows
        .iter()
        .map(|r| {
            let groups = r
                .groups
                .iter()
                .map(|v| view! { <td>{v.clone()}</td> })
                .collect_view();
            view! {
                <tr data-row=r.row.to_string()>
                    <td>{r.row}</td>
                    {has_id.then(|| view! { <td class="brush-id">{r.id.clone().unwrap_or_default()}</td> })}
                    <td>{r.label.clone()}</td>
                    <td>{r.prediction.clone()}</td>
                    <td class="num" data-value=data_value(Some(r.forecast))>{display(Some(r.forecast))}</td>
                    {groups}
                </tr>
            }
        })
        .collect_view();
    let last = a.offset + a.rows.len();
    view! {
        <p class="brush-count" data-total=a.total.to_string()>
            {if a.total == 0 { "No rows.".to_string() } else { format!("Rows {}–{} of {} (in sample order; row 1 is the first data row).", a.offset + 1, last, a.total) }}
        </p>
        <div class="scroll">
            <table class="brush-rows">
                <thead><tr>
                    <th scope="col">"row"</th>
                    {has_id.then(|| view! { <th scope="col">"id"</th> })}
                    <th scope="col">"label"</th>
                    <th scope="col">"prediction"</th>
                    <th scope="col">{forecast}</th>
                    {heads}
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
