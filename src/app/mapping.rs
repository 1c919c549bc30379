//! The mapping panel: what was read, the choices detection made, and the controls
//! that read the files again with another mapping.

use calibscope_app::proto::MappingOverride;
use leptos::prelude::*;

use super::client;
use super::store::Store;

fn field(name: &'static str, label: &'static str, value: String) -> impl IntoView {
    view! {
        <div class="field">
            <dt>{label}</dt>
            <dd data-field=name data-metric=format!("input.{name}") data-value=value.clone()>{value.clone()}</dd>
        </div>
    }
}

#[component]
pub fn MappingPanel() -> impl IntoView {
    let store = expect_context::<Store>();
    move || {
        let failed = store.failed.get();
        let is_failed = failed.is_some();
        failed.or_else(|| store.summary.get()).map(|s| {
            let mapping = client::current_mapping();
            let label = RwSignal::new(mapping.label.clone().unwrap_or_default());
            let source = RwSignal::new(mapping.source.clone().unwrap_or_default());
            let model_col = RwSignal::new(match &mapping.model {
                None => "*auto*".to_string(),
                Some(c) => c.clone(),
            });
            let apply = move |_| {
                let m = model_col.get_untracked();
                client::remap(MappingOverride {
                    label: Some(label.get_untracked()).filter(|l| !l.is_empty()),
                    source: Some(source.get_untracked()).filter(|l| !l.is_empty()),
                    model: if m == "*auto*" { None } else { Some(m) },
                });
            };
            let cols = s.all_columns.clone();
            let label_options = cols
                .iter()
                .map(|c| view! { <option value=c.clone()>{c.clone()}</option> })
                .collect_view();
            let model_options = cols
                .iter()
                .map(|c| view! { <option value=c.clone()>{c.clone()}</option> })
                .collect_view();
            let guesses = s
                .guesses
                .iter()
                .map(|g| view! { <li><strong>{g.about.clone()}</strong> ": " {g.chose.clone()} " — " {g.why.clone()}</li> })
                .collect_view();
            let models = if s.models.len() > 1 {
                format!("{} models: {}", s.models.len(), s.models.join(", "))
            } else {
                s.models.join(", ")
            };
            view! {
                <section class="mapping" id="mapping" aria-labelledby="mapping-title" class:failed=is_failed>
                    <h2 id="mapping-title">{if is_failed { "What was read from the file that failed" } else { "What was read" }}</h2>
                    {is_failed.then(|| view! { <p class="note">"Not loaded because of the errors above; correct the mapping below if a column was taken for the wrong thing."</p> })}
                    <dl class="detected">
                        {field("file", "File", s.files.join(" + "))}
                        {field("format", "Format", s.format.clone())}
                        {field("n", "Samples n", s.n.to_string())}
                        {field("k", "Classes k", s.k.to_string())}
                        {field("kind", "Kind", s.kind.clone())}
                        {field("source", "Scores are", s.source.clone())}
                        {field("label", "Label column", s.label_column.clone().unwrap_or_else(|| "—".into()))}
                        {field("scores", "Score columns", s.score_columns.clone())}
                        {field("models", "Models", models)}
                        {field("model_column", "Model column", s.model_column.clone().unwrap_or_else(|| "none".into()))}
                        {field("ignored", "Ignored columns", if s.ignored.is_empty() { "none".into() } else { s.ignored.join(", ") })}
                    </dl>
                    {(!s.guesses.is_empty()).then(|| view! { <details><summary>"Choices made while reading"</summary><ul>{guesses}</ul></details> })}
                    <details class="correct" open=is_failed>
                        <summary>"Correct the mapping"</summary>
                        <div class="controls">
                            <label>"Label column "
                                <select id="map-label" prop:value=move || label.get() on:change=move |ev| label.set(event_target_value(&ev))>
                                    <option value="">"detect"</option>
                                    {label_options}
                                </select>
                            </label>
                            <label>"Scores are "
                                <select id="map-source" prop:value=move || source.get() on:change=move |ev| source.set(event_target_value(&ev))>
                                    <option value="">"detect"</option>
                                    <option value="probs">"probabilities"</option>
                                    <option value="logits">"logits"</option>
                                </select>
                            </label>
                            <label>"Model column "
                                <select id="map-model" prop:value=move || model_col.get() on:change=move |ev| model_col.set(event_target_value(&ev))>
                                    <option value="*auto*">"detect"</option>
                                    <option value="">"none (one model)"</option>
                                    {model_options}
                                </select>
                            </label>
                            <button id="map-apply" on:click=apply>"Read again"</button>
                        </div>
                    </details>
                </section>
            }
        })
    }
}
