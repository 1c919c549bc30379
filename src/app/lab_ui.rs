//! Pieces the Learn tour and the labs share: a lab request whose latest answer
//! wins, labelled numeric controls, a progress bar, numbers with their documented
//! `data-metric` paths, and small hand-drawn SVG charts (classes only, styled by
//! CSS for both themes).

use crate::labs::{LabAnswer, LabRequest};
use leptos::prelude::*;

use super::client::{self, LabEvent};
use super::share::Share;
use super::widgets::num_view;

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

/// A lab request in flight and its latest answer. While one request runs, newer ones
/// wait and only the newest is sent when it finishes (the worker computes
/// synchronously, so a dragged slider must not queue a backlog there).
#[derive(Clone, Copy)]
pub struct Call {
    pub answer: RwSignal<Option<LabAnswer>>,
    pub error: RwSignal<Option<String>>,
    pub progress: RwSignal<Option<(usize, usize)>>,
    /// Milliseconds from sending to the answer, measured on the page.
    pub elapsed: RwSignal<Option<f64>>,
    latest: StoredValue<u64>,
    busy: StoredValue<bool>,
    queued: StoredValue<Option<LabRequest>>,
}

fn now() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

impl Call {
    pub fn new() -> Call {
        Call {
            answer: RwSignal::new(None),
            error: RwSignal::new(None),
            progress: RwSignal::new(None),
            elapsed: RwSignal::new(None),
            latest: StoredValue::new(0),
            busy: StoredValue::new(false),
            queued: StoredValue::new(None),
        }
    }

    /// Sends `request` (or queues it behind the one in flight, replacing any
    /// request queued before it).
    pub fn send(self, request: LabRequest) {
        if self.busy.get_value() {
            self.queued.set_value(Some(request));
            return;
        }
        self.busy.set_value(true);
        let gen = self.latest.get_value() + 1;
        self.latest.set_value(gen);
        let started = now();
        self.progress.set(None);
        client::lab(request, move |ev| {
            // a view switched away has disposed of this call: drop the answer
            if self.latest.try_get_value() != Some(gen) {
                return;
            }
            if !matches!(ev, LabEvent::Progress(..)) {
                self.busy.set_value(false);
                if let Some(next) = self.queued.try_update_value(|q| q.take()).flatten() {
                    self.send(next);
                    return;
                }
            }
            match ev {
                LabEvent::Progress(done, total) => self.progress.set(Some((done, total))),
                LabEvent::Done(answer) => {
                    self.progress.set(None);
                    self.error.set(None);
                    self.elapsed.set(Some(now() - started));
                    self.answer.set(Some(*answer));
                }
                LabEvent::Failed(message) => {
                    self.progress.set(None);
                    self.error.set(Some(message));
                }
            }
        });
    }

    /// Sends `make()` now and whenever a signal it reads changes.
    pub fn auto(self, make: impl Fn() -> LabRequest + 'static) -> Call {
        Effect::new(move |_| self.send(make()));
        self
    }

    /// The error line and progress bar of this call.
    pub fn status(self, label: &'static str) -> impl IntoView {
        view! {
            {move || self.error.get().map(|e| view! { <p class="lab-error" role="alert">{e}</p> })}
            // the bar floats over the results it is about to replace (style/app.css):
            // nothing below it moves, so a click in flight still lands where aimed
            <div class="lab-progress-slot">
                {move || self.progress.get().map(|(done, total)| view! {
                    <p class="lab-progress">
                        <label>{label} " "
                            <progress max=total.to_string() value=done.to_string()>{format!("{done}/{total}")}</progress>
                        </label>
                        " " {format!("{done} of {total}")}
                    </p>
                })}
            </div>
        }
    }
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

/// Plot area of the small charts, in SVG units.
const CW: f64 = 420.0;
const CH: f64 = 300.0;
const PAD: f64 = 44.0;

/// An axis mapping.
#[derive(Clone, Copy)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
}

impl Axis {
    fn t(&self, v: f64) -> f64 {
        let f = |x: f64| if self.log { x.log10() } else { x };
        (f(v) - f(self.lo)) / (f(self.hi) - f(self.lo))
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;")
}

/// One line of a chart: CSS class, legend, points.
pub type Series<'a> = (&'a str, &'a str, Vec<(f64, f64)>);

/// A line chart of `series` (`(css class, legend, points)`), axes `x`, `y`, with
/// `ticks` labelled on each axis. Returns SVG markup.
pub fn lines(
    series: &[Series],
    x: Axis,
    y: Axis,
    labels: (&str, &str),
    ticks: (&[f64], &[f64]),
) -> String {
    let px = |v: f64| PAD + x.t(v) * (CW - PAD - 24.0);
    let py = |v: f64| CH - PAD - y.t(v) * (CH - PAD - 10.0);
    let mut s = format!(
        "<svg class='lab-chart' viewBox='0 0 {CW} {CH}' role='img' aria-label='{}'>",
        esc(&format!("{} against {}", labels.1, labels.0))
    );
    s += &format!(
        "<path class='axis' d='M{PAD} 10 V{} H{}'/>",
        CH - PAD,
        CW - 10.0
    );
    for &t in ticks.0 {
        s += &format!(
            "<text class='tick' x='{:.1}' y='{}' text-anchor='middle'>{}</text>",
            px(t),
            CH - PAD + 16.0,
            t
        );
    }
    for &t in ticks.1 {
        s += &format!(
            "<text class='tick' x='{}' y='{:.1}' text-anchor='end'>{}</text>",
            PAD - 4.0,
            py(t) + 4.0,
            t
        );
    }
    s += &format!(
        "<text class='label' x='{}' y='{}' text-anchor='middle'>{}</text>",
        (PAD + CW) / 2.0,
        CH - 6.0,
        esc(labels.0)
    );
    s += &format!(
        "<text class='label' x='12' y='{}' text-anchor='middle' transform='rotate(-90 12 {})'>{}</text>",
        CH / 2.0,
        CH / 2.0,
        esc(labels.1)
    );
    for (i, (class, legend, pts)) in series.iter().enumerate() {
        let d: Vec<String> = pts
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .enumerate()
            .map(|(j, p)| {
                format!(
                    "{}{:.1} {:.1}",
                    if j == 0 { "M" } else { "L" },
                    px(p.0),
                    py(p.1)
                )
            })
            .collect();
        s += &format!("<path class='series {class}' d='{}'/>", d.join(" "));
        let ly = 20.0 + 16.0 * i as f64;
        s += &format!(
            "<path class='series {class}' d='M{} {ly} h18'/><text class='tick' x='{}' y='{}'>{}</text>",
            PAD + 10.0,
            PAD + 32.0,
            ly + 4.0,
            esc(legend)
        );
    }
    s + "</svg>"
}

/// A histogram of `counts` over `[0, 1]`.
pub fn histogram(counts: &[u64], x_label: &str) -> String {
    let max = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let w = (CW - PAD - 10.0) / counts.len().max(1) as f64;
    let mut s = format!(
        "<svg class='lab-chart' viewBox='0 0 {CW} {CH}' role='img' aria-label='histogram of {}'>",
        esc(x_label)
    );
    s += &format!(
        "<path class='axis' d='M{PAD} 10 V{} H{}'/>",
        CH - PAD,
        CW - 10.0
    );
    for (i, &c) in counts.iter().enumerate() {
        let h = c as f64 / max * (CH - PAD - 20.0);
        s += &format!(
            "<rect class='bar' x='{:.1}' y='{:.1}' width='{:.1}' height='{:.1}'/>",
            PAD + i as f64 * w + 1.0,
            CH - PAD - h,
            (w - 2.0).max(1.0),
            h
        );
    }
    for t in [0.0, 0.5, 1.0] {
        s += &format!(
            "<text class='tick' x='{:.1}' y='{}' text-anchor='middle'>{t}</text>",
            PAD + t * (CW - PAD - 10.0),
            CH - PAD + 16.0
        );
    }
    s += &format!(
        "<text class='label' x='{}' y='{}' text-anchor='middle'>{}</text><text class='tick' x='{}' y='20' text-anchor='end'>max {max}</text></svg>",
        (PAD + CW) / 2.0,
        CH - 6.0,
        esc(x_label),
        CW - 12.0
    );
    s
}

/// A chart container (the markup is ours, never the user's).
pub fn chart(svg: impl Fn() -> String + Send + Sync + 'static) -> impl IntoView {
    view! { <div class="lab-svg" inner_html=svg></div> }
}
