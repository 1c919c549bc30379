//! Pieces the Learn tour and the labs share: a lab request whose latest answer
//! wins, labelled numeric controls, a progress bar, numbers with their documented
//! `data-metric` paths, and the container of the small SVG charts that
//! `calibscope_charts::small` draws (classes only, styled by CSS for both themes).

use crate::proto::labs::{LabAnswer, LabRequest};
use leptos::prelude::*;

use crate::proto::{FromWorker, ToWorker};

use crate::client::call::Mode;
use crate::client::{Client, Reply, Request};
use crate::shared::widgets::num_view;
use crate::sharing::Share;

/// Keeps a lab control's value in the link (`Share::lab`, under the control's `id`):
/// restored from it when the control is made (when `accept` takes the linked value),
/// written to it as the control changes (removed again at the control's default, so
/// a link names only the settings that differ).
pub fn keep<T>(id: &'static str, value: RwSignal<T>, accept: impl Fn(T) -> Option<T>)
where
    T: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
{
    let Some(sh) = use_context::<Share>() else {
        return;
    };
    let default = value.with_untracked(|v| serde_json::to_value(v).ok());
    let linked = sh.lab.with_untracked(|l| l.get(id).cloned());
    if let Some(v) = linked
        .and_then(|v| serde_json::from_value::<T>(v).ok())
        .and_then(accept)
    {
        value.set(v);
    }
    Effect::new(move |_| {
        let Ok(v) = value.with(|v| serde_json::to_value(v)) else {
            return;
        };
        if default.as_ref() == Some(&v) {
            if sh.lab.with_untracked(|l| l.contains_key(id)) {
                sh.lab.update(|l| {
                    l.remove(id);
                });
            }
        } else if sh.lab.with_untracked(|l| l.get(id) != Some(&v)) {
            sh.lab.update(|l| {
                l.insert(id.into(), v);
            });
        }
    });
}

/// A lab request in flight and its latest answer: a [`crate::client::call::Call`] that
/// queues (while one request runs, only the newest waits).
pub type Call = crate::client::call::Call<LabRequest>;

impl Request for LabRequest {
    type Answer = LabAnswer;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Lab {
            id,
            request: self.clone(),
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<LabAnswer>> {
        match msg {
            FromWorker::LabResult { answer, .. } => Some(Reply::Done(answer)),
            _ => None,
        }
    }
}

/// A new lab call of the current view (dropped with it).
pub fn call() -> Call {
    Call::new(expect_context::<Client>(), Mode::Queue)
}

/// A labelled range slider with a number field beside it, both bound to `value`
/// (`id` is the number field's id; the slider is `<id>-range`).
pub fn number(
    id: &'static str,
    label: &'static str,
    value: RwSignal<f64>,
    min: f64,
    max: f64,
    step: f64,
) -> impl IntoView {
    // A value equal to the current one (a field left after Enter, a value clamped to
    // the one already set) is not set again: it would recompute the lab for nothing.
    // The field is written back, so it shows the value in force.
    let set = move |ev: leptos::ev::Event| {
        let text = event_target_value(&ev);
        let parsed = text.trim().parse::<f64>().ok().filter(|v| v.is_finite());
        match parsed.map(|v| v.clamp(min, max)) {
            Some(v) if v != value.get_untracked() => value.set(v),
            _ => {
                let field = event_target::<web_sys::HtmlInputElement>(&ev);
                field.set_value(&value.get_untracked().to_string());
            }
        }
    };
    keep(id, value, move |v: f64| {
        v.is_finite().then(|| v.clamp(min, max))
    });
    let range_id = format!("{id}-range");
    view! {
        <span class="lab-num">
            <label for=id>{label}</label>
            <input type="range" id=range_id aria-label=label min=min.to_string() max=max.to_string()
                step=step.to_string() prop:value=move || value.get().to_string()
                on:input=set/>
            <input type="number" id=id min=min.to_string() max=max.to_string() step=step.to_string()
                prop:value=move || value.get().to_string()
                on:change=set/>
        </span>
    }
}

/// A `<select>` over `(value, text)` options bound to `value`.
pub fn choice(
    id: &'static str,
    label: &'static str,
    options: Vec<(&'static str, &'static str)>,
    value: RwSignal<String>,
) -> impl IntoView {
    let known: Vec<&'static str> = options.iter().map(|o| o.0).collect();
    keep(id, value, move |v: String| {
        known.contains(&v.as_str()).then_some(v)
    });
    let opts = options
        .into_iter()
        .map(|(v, t)| view! { <option value=v selected=move || value.get() == v>{t}</option> })
        .collect_view();
    view! {
        <span class="lab-num">
            <label for=id>{label}</label>
            <select id=id on:change=move |ev| value.set(event_target_value(&ev))>{opts}</select>
        </span>
    }
}

/// A number with its documented `data-metric` path.
pub fn num(path: impl Into<String>, value: Option<f64>) -> AnyView {
    num_view(path.into(), value, "not defined for these data")
}

/// A value `± standard error`, both with paths (`<path>.mean`, `<path>.se`).
pub fn mc(path: &str, mean: f64, se: f64) -> AnyView {
    view! {
        <span class="mc">{num(format!("{path}.mean"), Some(mean))} " ± " {num(format!("{path}.se"), Some(se))}</span>
    }
    .into_any()
}

/// A chart container (the markup is ours, never the user's), `svg(width)` drawn at
/// the container's width in CSS pixels.
pub fn chart(svg: impl Fn(u32) -> String + Send + Sync + 'static) -> impl IntoView {
    view! { <crate::shared::chart::SizedSvg class="lab-svg" fallback=420 draw=svg/> }
}
