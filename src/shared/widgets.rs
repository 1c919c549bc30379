//! Small pieces every view uses: numbers with their `data-metric`/`data-value`,
//! paths into the audit JSON, and headings with a one-line explanation.

use crate::shared::numfmt::{count, data_value, display};
use crate::shared::{slider, text};
use calibscope_core::binning::Binning;
use leptos::prelude::*;

use crate::page::store::Store;

/// A whole number (a count) with its `data-metric` path and exact `data-value`,
/// shown with thin-space thousands separators; `undefined` when `None`.
pub fn count_view(path: String, v: Option<u64>) -> AnyView {
    view! { <span class="num" data-metric=path data-value=v.map_or("null".into(), |v| v.to_string())>{v.map_or("undefined".into(), count)}</span> }.into_any()
}

/// A number with its `data-metric` path and full-precision `data-value`.
pub fn num_view(path: String, value: Option<f64>, why_undefined: &'static str) -> AnyView {
    // an aggregate's numbers carry their mark (exact or bounded)
    if let Some(v) = crate::page::aggregate::num_view(&path, value) {
        return v;
    }
    let shown = display(value);
    let dv = data_value(value);
    if value.is_some() {
        view! { <span class="num" data-metric=path data-value=dv>{shown}</span> }.into_any()
    } else {
        view! {
            <span class="num undefined" data-metric=path data-value=dv title=why_undefined tabindex="0">
                "undefined"<span class="why">{format!(" ({why_undefined})")}</span>
            </span>
        }
        .into_any()
    }
}

/// The value at a dotted path of an audit or record document (`None` when absent).
pub use calibscope_audit::summary::get_dotted as get_path;

/// The model choice of a multi-model data set (`None` for one model): a labelled
/// select bound to the store's model, with element id `id`.
pub fn model_select(store: Store, models: &[String], id: &'static str) -> Option<AnyView> {
    (models.len() > 1).then(|| {
        let options = models
            .iter()
            .enumerate()
            .map(|(i, name)| view! { <option value=i.to_string()>{name.clone()}</option> })
            .collect_view();
        view! {
            <label>"Model "
                <select id=id prop:value=move || store.model.get().to_string()
                    on:change=move |ev| store.model.set(event_target_value(&ev).parse().unwrap_or(0))>
                    {options}
                </select>
            </label>
        }
        .into_any()
    })
}

/// A column header with a one-line explanation on hover and focus, hidden while
/// `hidden` is true (a column the user did not choose).
pub fn help_header(key: &'static str, hidden: Signal<bool>) -> impl IntoView {
    let d = text::metric(key);
    let id = format!("help-{key}");
    let described = id.clone();
    view! {
        <th scope="col" hidden=move || hidden.get()>
            <span class="tip" tabindex="0" aria-describedby=described>
                {d.label}
                <span class="tiptext" role="tooltip" id=id>{d.help}</span>
            </span>
        </th>
    }
}

/// A bin-count slider over log-spaced `steps` ([`slider::steps`]) setting `m`;
/// `data-steps` lists the bin counts of its positions (for tests and benchmarks).
pub fn m_slider(id: &'static str, m: RwSignal<usize>, steps: Memo<Vec<usize>>) -> impl IntoView {
    view! {
        <input id=id type="range" min="0"
            max=move || (steps.with(|s| s.len()) - 1).to_string()
            data-steps=move || steps.with(|s| s.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(","))
            prop:value=move || steps.with(|s| slider::position(s, m.get())).to_string()
            aria-valuetext=move || format!("{} bins", m.get())
            on:input=move |ev| {
                let i: usize = event_target_value(&ev).parse().unwrap_or(0);
                if let Some(v) = steps.with_untracked(|s| s.get(i).copied()) {
                    m.set(v);
                }
            }/>
    }
}

/// The equal-width / equal-mass radio pair setting `binning`; ids `<id>-width` and
/// `<id>-mass`, radio group name `<id>`.
pub fn binning_toggle(id: &'static str, binning: RwSignal<Binning>) -> impl IntoView {
    let radio = move |b: Binning, label: &'static str| {
        let value = b.name();
        view! {
            <label><input type="radio" name=id id=format!("{id}-{value}") value=value
                prop:checked=move || binning.get() == b
                on:change=move |_| binning.set(b)/>{label}</label>
        }
    };
    view! {
        <fieldset class="toggle">
            <legend>"Binning"</legend>
            {radio(Binning::Width, "equal-width")}
            {radio(Binning::Mass, "equal-mass")}
        </fieldset>
    }
}

/// Writes `text` to the clipboard and says in `status` how it went: emptied at once,
/// so each copy announces its own outcome (a screen reader stays silent when a
/// status keeps the same text), then `done`; or, when the browser refuses, its
/// reason (a `DOMException` such as "NotAllowedError: Document is not focused.")
/// followed by what `on_refusal` offers instead.
pub fn copy_to_clipboard(
    text: String,
    status: RwSignal<String>,
    done: &'static str,
    on_refusal: impl FnOnce() -> &'static str + 'static,
) {
    use wasm_bindgen::JsCast;
    status.set(String::new());
    let clipboard = window().navigator().clipboard();
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = wasm_bindgen_futures::JsFuture::from(clipboard.write_text(&text)).await;
        status.set(match outcome {
            Ok(_) => done.into(),
            Err(reason) => {
                let reason = match reason.dyn_ref::<js_sys::Error>() {
                    Some(e) => format!("{}: {}", String::from(e.name()), String::from(e.message())),
                    None => reason
                        .as_string()
                        .unwrap_or_else(|| "no reason given".into()),
                };
                format!(
                    "The browser refused the clipboard ({reason}).{}",
                    on_refusal()
                )
            }
        });
    });
}
