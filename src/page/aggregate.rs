//! An opened aggregate (`calibscope-bins/1`): which numbers on the page are exact
//! and which are bounded, the note that says why, and the views that need rows.
//!
//! The worker's audit documents of an aggregate carry `aggregate.values`: each
//! value's `data-metric` path with `null` (exact) or its bound. [`load`] keeps them
//! (with the model prefix of a multi-model set) when a data set is shown; every
//! number drawn by `num_view` then carries `data-exact="true"` or `data-bound` and a
//! visible mark, and a value the aggregate cannot give says so instead of
//! "undefined".

use std::collections::HashMap;

use leptos::prelude::*;
use serde_json::Value;

use crate::proto::{Metrics, Summary};
use crate::shared::numfmt::{data_value, display};

/// The metric key of a bounded table's ECE bound in a computed table's metrics
/// (calibscope-engine's `aggregate::BOUND_KEY`).
const BOUND_KEY: &str = "bound.ece";

/// `data-metric` path → `None` (exact) or `Some(bound)`.
type Marks = HashMap<String, Option<f64>>;

/// The marks of the aggregate shown (none when rows are shown): created with the
/// page's store (which [`AggregateMarks::load`]s them with each data set) and
/// provided as context to the views that draw numbers. Not reactive: the views
/// that read it are redrawn when the data set changes.
#[derive(Clone, Copy)]
pub struct AggregateMarks {
    /// `data-metric` path → mark, while an aggregate is shown; `None` otherwise.
    marks: StoredValue<Option<Marks>, LocalStorage>,
    /// What an aggregate cannot give, with the reasons (from the first audit).
    unavailable: StoredValue<Vec<(String, String)>, LocalStorage>,
}

impl Default for AggregateMarks {
    fn default() -> Self {
        Self::new()
    }
}

impl AggregateMarks {
    pub fn new() -> AggregateMarks {
        AggregateMarks {
            marks: StoredValue::new_local(None),
            unavailable: StoredValue::new_local(Vec::new()),
        }
    }

    /// Keeps the marks of `audits` (the models `models`) when they are an
    /// aggregate's; forgets them otherwise. Called before the data set is shown.
    pub fn load(&self, models: &[String], audits: &[Value]) {
        let is_aggregate = audits.first().is_some_and(|a| a.get("aggregate").is_some());
        let marks = is_aggregate.then(|| {
            let mut marks = HashMap::new();
            for (i, audit) in audits.iter().enumerate() {
                let prefix = match models.get(i) {
                    Some(name) if models.len() > 1 => format!("models.{name}."),
                    _ => String::new(),
                };
                if let Some(values) = audit["aggregate"]["values"].as_object() {
                    for (path, bound) in values {
                        marks.insert(format!("{prefix}{path}"), bound.as_f64());
                    }
                }
            }
            marks
        });
        let unavailable = audits
            .first()
            .and_then(|a| a["aggregate"]["unavailable"].as_array())
            .map(|items| {
                items
                    .iter()
                    .map(|x| {
                        let text = |k: &str| x[k].as_str().unwrap_or_default().to_string();
                        (text("what"), text("reason"))
                    })
                    .collect()
            })
            .unwrap_or_default();
        self.marks.set_value(marks);
        self.unavailable.set_value(unavailable);
    }

    /// Whether the data set shown is an aggregate.
    pub fn is_open(&self) -> bool {
        self.marks.with_value(Option::is_some)
    }
}

/// The page's marks (context provided by the app), when there is a page.
fn current() -> Option<AggregateMarks> {
    use_context::<AggregateMarks>()
}

/// Whether the data set shown is an aggregate (in a view: the page's context).
pub fn is_open() -> bool {
    current().is_some_and(|a| a.is_open())
}

/// Notes the mark of the explorer's value at `path` (metric `key` of a table with
/// `metrics`): every value of an exact table is exact; a bounded table gives its
/// ECE within its bound and nothing else.
pub fn note_table(path: &str, key: &str, metrics: &Metrics) {
    let Some(a) = current() else { return };
    a.marks.update_value(|m| {
        let Some(marks) = m.as_mut() else { return };
        match metrics.get(BOUND_KEY).copied().flatten() {
            None => {
                marks.insert(path.to_string(), None);
            }
            Some(b) if key == "ece" => {
                marks.insert(path.to_string(), Some(b));
            }
            Some(_) => {
                marks.remove(path);
            }
        }
    });
}

/// The mark of the value at `path` while an aggregate is shown: `Some(None)` exact,
/// `Some(Some(b))` within `b`, `None` not a value of the aggregate (or no
/// aggregate shown).
pub fn mark(path: &str) -> Option<Option<f64>> {
    current()?
        .marks
        .with_value(|m| m.as_ref().and_then(|marks| marks.get(path).copied()))
}

/// The sentence of why a value is missing from an aggregate.
const NOT_FROM_CELLS: &str = "not available from an aggregate: it needs the individual rows, and an aggregate keeps only sums over 65,536 cells of the forecast";

/// A number of an aggregate (or `None` when no aggregate is shown): the value with
/// its mark, or "not available" when the aggregate does not give it.
pub fn num_view(path: &str, value: Option<f64>) -> Option<AnyView> {
    if !is_open() {
        return None;
    }
    let dv = data_value(value);
    let path = path.to_string();
    Some(match (mark(&path), value) {
        (Some(None), Some(_)) => view! {
            <span class="num" data-metric=path data-value=dv data-exact="true">{display(value)}</span>
            <span class="agg-mark exact" title="Exact: equal to the audit of the rows">" exact"</span>
        }
        .into_any(),
        (Some(Some(b)), Some(_)) => {
            let bound = data_value(Some(b));
            let title = format!(
                "Bounded: within {} of the audit of the rows (a bin edge cuts a cell of the grid, whose rows cannot be told apart)",
                display(Some(b))
            );
            view! {
                <span class="num" data-metric=path data-value=dv data-bound=bound.clone()>{display(value)}</span>
                <span class="agg-mark bounded" data-bound=bound title=title>{format!(" ± {}", display(Some(b)))}</span>
            }
            .into_any()
        }
        (Some(_), None) => view! {
            <span class="num undefined" data-metric=path data-value=dv data-exact="true" tabindex="0" title="undefined on these data">
                "undefined"<span class="why">" (undefined on these data)"</span>
            </span>
        }
        .into_any(),
        (None, _) => view! {
            <span class="num unavailable" data-metric=path data-value="null" data-unavailable="true" tabindex="0" title=NOT_FROM_CELLS>
                "not available"<span class="why">{format!(" ({NOT_FROM_CELLS})")}</span>
            </span>
        }
        .into_any(),
    })
}

/// The note above the audit of an aggregate: what it is, what exact and bounded
/// mean, and what cannot be computed from it.
#[component]
pub fn AggregateNote(
    /// What was read of the data set shown.
    summary: RwSignal<Option<Summary>>,
) -> impl IntoView {
    let aggregate = expect_context::<AggregateMarks>();
    move || {
        let s = summary.get()?;
        if !aggregate.is_open() {
            return None;
        }
        let missing = aggregate.unavailable.with_value(|u| {
            u.iter()
                .map(|(what, why)| view! { <li><strong>{what.clone()}</strong>": " {why.clone()}</li> })
                .collect_view()
        });
        Some(view! {
            <section class="aggregate-note" id="aggregate-note" aria-labelledby="aggregate-title" data-aggregate="true">
                <h2 id="aggregate-title">"An aggregate, not rows"</h2>
                <p>"This file is an aggregate: the "
                    <span class="num" data-metric="input.n" data-value=s.n.to_string()>{crate::shared::numfmt::count(s.n as u64)}</span>
                    " predictions of each model were summarised, where they are stored, into 65,536 fine cells of the forecast (a count and sums per cell). "
                    "Every value computed from whole cells is marked exact: it equals the audit of the rows. "
                    "Where a bin edge cuts through a cell (bin counts that do not divide 65,536, equal-mass bins, the AUC) the value is marked with ± and the largest distance it can have from the audit of the rows. "
                    "What needs the individual predictions cannot be computed from cells:"</p>
                <ul class="aggregate-missing">{missing}</ul>
            </section>
        })
    }
}

/// In place of a view that needs rows, for an aggregate: what it is and why it is
/// not available (`None` when no aggregate is shown).
pub fn unavailable_view(title: &'static str, why: &'static str) -> Option<AnyView> {
    is_open().then(|| {
        view! {
            <section class="aggregate-unavailable" data-unavailable="true">
                <h2>{title}</h2>
                <p>{why}</p>
            </section>
        }
        .into_any()
    })
}

/// Why the Recalibrate view is not available for an aggregate.
pub const NO_RECALIBRATION: &str = "Recalibration is not available for an aggregate: fitting temperature, Platt or isotonic scaling needs each row's scores, and an aggregate keeps only sums over 65,536 cells of the forecast. Audit the prediction file itself to recalibrate.";

/// Why the ranking-flips view is not available for an aggregate.
pub const NO_FLIPS: &str = "Ranking flips are not available for an aggregate yet: the view compares every model's binned metrics at every bin count, and from cells only the bin counts that divide 65,536 are exact. Audit the prediction file itself to compare the models across bin counts.";
