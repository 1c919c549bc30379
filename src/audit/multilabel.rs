//! What a multilabel file's numbers are (its audit's `input.multilabel`:
//! `calibscope_audit::multilabel`): every (row, label) pair is one prediction, the
//! numbers pool them, and the Slices view audits each label on its own. The
//! numbers' paths are the document's `input` (one for every model of a file).

use leptos::prelude::*;

use crate::page::store::Store;
use crate::shared::widgets::count_view;

/// The multilabel note of the model shown, when its file is multilabel.
#[component]
pub fn MultilabelNote() -> impl IntoView {
    let store = expect_context::<Store>();
    move || {
        let i = store.model.get();
        let audit = store.audits.with(|a| a.get(i).cloned())?;
        let m = audit["input"].get("multilabel")?.clone();
        let labels: Vec<String> = m["labels"]
            .as_array()?
            .iter()
            .filter_map(|l| l.as_str().map(str::to_string))
            .collect();
        let at = |key: &str| count_view(format!("input.multilabel.{key}"), m[key].as_u64());
        Some(view! {
            <p id="multilabel-note" class="multilabel-note">
                "This file is multilabel: " {at("n_labels")} " labels ("
                <span id="multilabel-labels">{labels.join(", ")}</span>
                ") on " {at("samples")} " rows, each label a 0/1 column with its own score column. "
                "Every (row, label) pair is one prediction, so the numbers here pool all "
                {at("pairs")} " pairs: the micro-averaged reading, where frequent labels weigh more. "
                "The Slices view audits each label on its own, side by side."
            </p>
        })
    }
}
