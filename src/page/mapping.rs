//! The mapping panel: what was read, the choices detection made, and the controls
//! that read the files again with another mapping (every field of the CLI's
//! mapping flags: the same [`MappingOverride`] type).

use crate::proto::{ErrorItem, MappingOverride, Summary};
use leptos::prelude::*;

use crate::page::opening::Opening;
use crate::page::store::Store;

/// The value of a select meaning "detect" for the optional columns (model, id),
/// whose "none" is the empty string.
const AUTO: &str = "*auto*";

fn field(name: &'static str, label: &'static str, value: String) -> impl IntoView {
    view! {
        <div class="field">
            <dt>{label}</dt>
            <dd data-field=name data-metric=format!("input.{name}") data-value=value.clone()>{value.clone()}</dd>
        </div>
    }
}

/// `<option>`s of the columns.
fn column_options(columns: &[String]) -> impl IntoView {
    columns
        .iter()
        .map(|c| view! { <option value=c.clone()>{c.clone()}</option> })
        .collect_view()
}

/// A comma-separated list as entered (`a, b ,c` → `[a, b, c]`).
fn list(text: &str) -> Vec<String> {
    text.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The panel: what was read (or, for a file that failed, what could be read of it)
/// and the mapping form.
/// The one question asked when the labels contradict the reading detection
/// guessed: the error's sentence and a button per mapping that would fit.
fn question_view(item: ErrorItem) -> impl IntoView {
    let opening = expect_context::<Opening>();
    let buttons = item
        .candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mapping = c.mapping.clone();
            view! {
                <button class="candidate" data-candidate=i.to_string()
                    on:click=move |_| opening.remap(mapping.clone())>
                    "Read it as " {c.says.clone()}
                </button>
            }
        })
        .collect_view();
    let none = item.candidates.is_empty().then(|| {
        view! { <p class="note">"Say below which columns hold the labels and the scores."</p> }
    });
    view! {
        <div class="question" id="mapping-question" role="group" aria-labelledby="mapping-question-text">
            <p id="mapping-question-text"><strong>"How should this file be read? "</strong> {item.message.clone()}</p>
            <div class="controls">{buttons}</div>
            {none}
        </div>
    }
}

#[component]
pub fn MappingPanel() -> impl IntoView {
    let store = expect_context::<Store>();
    let opening = expect_context::<Opening>();
    move || {
        let question = store.error.with(|e| {
            e.as_ref().and_then(|e| {
                e.errors
                    .iter()
                    .find(|it| it.code == "mapping_guess")
                    .cloned()
            })
        });
        // a header that could not be mapped: offer its columns
        let unmapped = store.error.with(|e| {
            e.as_ref()
                .map(|e| e.columns.clone())
                .filter(|c| !c.is_empty())
        });
        if let Some(columns) = unmapped {
            let files = opening
                .files()
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(" + ");
            return Some(
                view! {
                    <section class="mapping failed" id="mapping" aria-labelledby="mapping-title">
                        <h2 id="mapping-title">"Map the columns of " {files}</h2>
                        {question.clone().map(question_view)}
                        {question.is_none().then(|| view! { <p class="note">"Its columns were not recognised by name. Say which column holds the labels and which hold the scores, then read it again."</p> })}
                        <p>"Columns: " <span data-field="columns">{columns.join(", ")}</span></p>
                        <MappingForm columns=columns grouped_by=Vec::new() open=true/>
                    </section>
                }
                .into_any(),
            );
        }
        let failed = store.failed.get();
        let is_failed = failed.is_some();
        failed
            .or_else(|| store.summary.get())
            .map(|s| detected_view(s, is_failed, question).into_any())
    }
}

fn detected_view(s: Summary, is_failed: bool, question: Option<ErrorItem>) -> impl IntoView {
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
    let class_names = if s.class_names.is_empty() {
        "—".to_string()
    } else {
        s.class_names.join(", ")
    };
    // one line (the verdict and the diagram come first on a screen); the rest behind
    // a disclosure, open when the file failed
    let kind = match s.multilabel {
        Some(labels) => format!("multilabel, {labels} labels per row: binary pairs"),
        None => s.kind.name().to_string(),
    };
    let line = format!(
        "{} · {} · n = {} · {} · {}{}",
        s.files.join(" + "),
        s.format,
        s.n,
        kind,
        s.source.name(),
        if s.models.len() > 1 {
            format!(" · {} models", s.models.len())
        } else {
            String::new()
        }
    );
    view! {
        <section class="mapping" id="mapping" aria-labelledby="mapping-title" class:failed=is_failed>
            <div class="read-line">
                <h2 id="mapping-title">{if is_failed { "What was read from the file that failed" } else { "What was read" }}</h2>
                <span class="read-summary">{line}</span>
            </div>
            {question.map(question_view)}
            {is_failed.then(|| view! { <p class="note">"Not loaded because of the errors above; correct the mapping below if a column was taken for the wrong thing."</p> })}
            <details class="read-details" open=is_failed>
            <summary>"Columns, classes, models and how the file was read"</summary>
            <dl class="detected">
                {field("file", "File", s.files.join(" + "))}
                {field("format", "Format", s.format.clone())}
                {field("n", "Samples n", s.n.to_string())}
                {field("k", "Classes k", s.k.to_string())}
                {field("kind", "Kind", s.kind.name().to_string())}
                {field("source", "Scores are", s.source.name().to_string())}
                {field("label", "Label column", s.label_column.clone().unwrap_or_else(|| "—".into()))}
                {field("scores", "Score columns", s.score_columns.clone())}
                {field("class_names", "Class names", class_names)}
                {field("models", "Models", models)}
                {field("model_column", "Model column", s.model_column.clone().unwrap_or_else(|| "none".into()))}
                {field("id_column", "Id column", s.id_column.clone().unwrap_or_else(|| "none".into()))}
                {field("groups", "Grouping columns", if s.group_columns.is_empty() { "none".into() } else { s.group_columns.join(" × ") })}
                {field("ignored", "Ignored columns", if s.ignored.is_empty() { "none".into() } else { s.ignored.join(", ") })}
            </dl>
            {(!s.guesses.is_empty()).then(|| view! { <h3 class="read-choices">"Choices made while reading"</h3><ul>{guesses}</ul> })}
            </details>
            <MappingForm columns=s.all_columns.clone() grouped_by=s.group_columns.clone() open=is_failed/>
        </section>
    }
}

/// The form that reads the last files again with a mapping, prefilled with the
/// mapping of the last read. `grouped_by`: the grouping the last read used (an
/// lm-evaluation-harness log's own subject when the mapping named none); clearing
/// every box then asks for no grouping at all.
#[component]
fn MappingForm(columns: Vec<String>, grouped_by: Vec<String>, open: bool) -> impl IntoView {
    let opening = expect_context::<Opening>();
    let m = opening.mapping();
    let delimiter = RwSignal::new(m.delimiter.clone().unwrap_or_default());
    let label = RwSignal::new(m.label.clone().unwrap_or_default());
    let source = RwSignal::new(m.source.clone().unwrap_or_default());
    let scores = RwSignal::new(m.scores.join(", "));
    let predicted = RwSignal::new(m.top_label.first().cloned().unwrap_or_default());
    let confidence = RwSignal::new(m.top_label.get(1).cloned().unwrap_or_default());
    let stated = RwSignal::new(m.verbalised.first().cloned().unwrap_or_default());
    let correct = RwSignal::new(m.verbalised.get(1).cloned().unwrap_or_default());
    let class_names = RwSignal::new(m.class_names.join(", "));
    let multilabel = RwSignal::new(m.multilabel.join(", "));
    let optional = |v: &Option<String>| v.clone().unwrap_or_else(|| AUTO.to_string());
    let model_col = RwSignal::new(optional(&m.model_column));
    let id_col = RwSignal::new(optional(&m.id_column));
    let asked_none = m.groups.len() == 1 && m.groups[0].eq_ignore_ascii_case("none");
    let groups = RwSignal::new(match (asked_none, m.groups.is_empty()) {
        (true, _) => Vec::new(),
        (false, true) => grouped_by.clone(),
        (false, false) => m.groups.clone(),
    });
    // an empty grouping means "detect": after a grouped or a "none" read, no box
    // ticked means none
    let none_when_empty = asked_none || !grouped_by.is_empty();
    // what is wrong with the form, checked here before anything is read again
    let problem = RwSignal::new(None::<String>);
    let apply = move |_| {
        let text = |s: RwSignal<String>| Some(s.get_untracked()).filter(|v| !v.is_empty());
        let pick = |s: RwSignal<String>| Some(s.get_untracked()).filter(|v| v != AUTO);
        let top_label = match (predicted.get_untracked(), confidence.get_untracked()) {
            (p, c) if p.is_empty() && c.is_empty() => Vec::new(),
            (p, c) => vec![p, c],
        };
        let verbalised = match (stated.get_untracked(), correct.get_untracked()) {
            (c, z) if c.is_empty() && z.is_empty() => Vec::new(),
            (c, z) => vec![c, z],
        };
        let request = MappingOverride {
            delimiter: text(delimiter),
            label: text(label),
            source: text(source),
            scores: list(&scores.get_untracked()),
            top_label,
            class_names: list(&class_names.get_untracked()),
            model_column: pick(model_col),
            id_column: pick(id_col),
            groups: match groups.get_untracked() {
                g if g.is_empty() && none_when_empty => vec!["none".to_string()],
                g => g,
            },
            verbalised,
            multilabel: list(&multilabel.get_untracked()),
        };
        match request.to_mapping() {
            Err(message) => problem.set(Some(message)),
            Ok(_) => {
                problem.set(None);
                opening.remap(request);
            }
        }
    };
    let example = columns
        .iter()
        .skip(1)
        .take(3)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    let group_boxes = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (c1, c2) = (c.clone(), c.clone());
            view! {
                <label><input type="checkbox" class="map-group" id=format!("map-group-{i}") value=c.clone()
                    prop:checked=move || groups.with(|g| g.contains(&c1))
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        groups.update(|g| {
                            g.retain(|x| x != &c2);
                            if on {
                                g.push(c2.clone());
                            }
                        });
                    }/>{c.clone()}</label>
            }
        })
        .collect_view();
    let select = move |id: &'static str,
                       text: &'static str,
                       signal: RwSignal<String>,
                       first: &'static [(&'static str, &'static str)]| {
        let fixed = first
            .iter()
            .map(|(v, l)| view! { <option value=*v>{*l}</option> })
            .collect_view();
        let cols = column_options(&columns);
        view! {
            <label>{text} " "
                <select id=id prop:value=move || signal.get() on:change=move |ev| signal.set(event_target_value(&ev))>
                    {fixed}
                    {cols}
                </select>
            </label>
        }
    };
    view! {
        <details class="correct" open=open>
            <summary>"Correct the mapping"</summary>
            <div class="controls mapping-form">
                {select("map-label", "Label column", label, &[("", "detect")])}
                <label>"Scores are "
                    <select id="map-source" prop:value=move || source.get() on:change=move |ev| source.set(event_target_value(&ev))>
                        <option value="">"detect"</option>
                        <option value="probs">"probabilities"</option>
                        <option value="logits">"logits"</option>
                    </select>
                </label>
                <label>"Score columns "
                    <input id="map-scores" type="text" size="28" placeholder=format!("detect (e.g. {example})")
                        prop:value=move || scores.get() on:change=move |ev| scores.set(event_target_value(&ev))
                        aria-describedby="map-scores-help"/>
                </label>
                <span class="hint" id="map-scores-help">"one binary column, or one per class in class order, separated by commas"</span>
                {select("map-predicted", "Top-label: predicted class", predicted, &[("", "—")])}
                {select("map-confidence", "confidence", confidence, &[("", "—")])}
                {select("map-stated", "Verbalised: stated confidence", stated, &[("", "—")])}
                {select("map-correct", "correctness", correct, &[("", "—")])}
                <span class="hint">"verbalised confidence: the confidence a model stated (0.85, 85 or 85%; empty when it did not answer) and whether its answer was right (1/0, true/false)"</span>
                <label>"Multilabel pairs "
                    <input id="map-multilabel" type="text" size="28" placeholder="detect (e.g. has_cat:p_cat, has_dog:p_dog)"
                        prop:value=move || multilabel.get() on:change=move |ev| multilabel.set(event_target_value(&ev))
                        aria-describedby="map-multilabel-help"/>
                </label>
                <span class="hint" id="map-multilabel-help">"multilabel: each label's 0/1 column and its score column, joined by a colon; every (row, label) pair is then one prediction, and each label a group"</span>
                <label>"Class names "
                    <input id="map-classes" type="text" size="24" placeholder="detect (e.g. cat, dog, bird)"
                        prop:value=move || class_names.get() on:change=move |ev| class_names.set(event_target_value(&ev))/>
                </label>
                <label>"Delimiter "
                    <select id="map-delimiter" prop:value=move || delimiter.get() on:change=move |ev| delimiter.set(event_target_value(&ev))>
                        <option value="">"detect"</option>
                        <option value=",">"comma ,"</option>
                        <option value=";">"semicolon ;"</option>
                        <option value="tab">"tab"</option>
                        <option value="|">"pipe |"</option>
                    </select>
                </label>
                {select("map-model", "Model column", model_col, &[(AUTO, "detect"), ("", "none (one model)")])}
                {select("map-id", "Id column", id_col, &[(AUTO, "detect"), ("", "none")])}
                <fieldset class="map-groups" id="map-groups" aria-describedby="map-groups-help">
                    <legend>"Group by (Slices view)"</legend>
                    {group_boxes}
                    <span class="hint" id="map-groups-help">"columns the mapping does not use otherwise (a subject, a site, a binarised feature); several: their combinations; none ticked: no groups"</span>
                </fieldset>
                <button id="map-apply" on:click=apply>"Read again"</button>
                <button id="map-reset" on:click=move |_| opening.remap(MappingOverride::default())>"Detect everything"</button>
            </div>
            {move || problem.get().map(|p| view! { <p class="map-error" id="map-error" role="alert">"This mapping cannot be used: " {p}</p> })}
        </details>
    }
}
