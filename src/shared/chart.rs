//! The charts of the page, drawn on the main thread (plotters measures text through
//! `window`, which a worker lacks) by `calibscope-charts`, the drawing code the CLI's
//! reports share. The SVG is put into the page as markup; its colours are restyled
//! by CSS for the dark theme (classes `cs-*`, style/app.css).
//!
//! Every chart is drawn at the width its box is shown at ([`drawn_width`],
//! [`SizedSvg`]): one SVG unit is one CSS pixel, so the charts' text is 13–14 px on a
//! phone as on a desktop (the legibility test, tests/e2e/legibility.test.mjs).

use crate::proto::Row;
use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub use calibscope_charts::{BinPx, CountScale, Drawn, Options, H, W};

fn bins(rows: &[Row]) -> Vec<calibscope_charts::Bin> {
    rows.iter()
        .map(|r| calibscope_charts::Bin {
            lower: r.lower,
            upper: r.upper,
            conf: r.conf,
            acc: r.acc,
            cp_lower: r.cp_lower,
            cp_upper: r.cp_upper,
            n: r.n,
        })
        .collect()
}

/// Draws the reliability diagram of `rows` (non-empty bins) and the strip of bin
/// counts under it, at the default width.
pub fn reliability(rows: &[Row], x_label: &str) -> Drawn {
    calibscope_charts::reliability(&bins(rows), x_label)
}

/// Draws the reliability diagram of `rows` as `opt` says (width, axis titles, count
/// scale).
pub fn reliability_with(rows: &[Row], opt: &Options) -> Drawn {
    calibscope_charts::reliability_with(&bins(rows), opt)
}

/// The y axis title of the reliability diagram of a reading: "accuracy" for the
/// confidence (top label) reading, the frequency of the class for a class reading
/// (and of `y = 1` for a binary positive reading).
pub fn y_label(reading: crate::proto::Reading) -> &'static str {
    use crate::proto::Reading;
    match reading {
        Reading::Confidence => "accuracy",
        Reading::Positive => "frequency of y = 1",
        Reading::Class(_) => "frequency of the class",
    }
}

/// The width in CSS pixels to draw into the element of `node` at: its content width,
/// kept up to date by a `ResizeObserver` (a chart is redrawn when its card changes
/// width); `fallback` until the element is in the page (and its last width while it
/// is hidden).
pub fn drawn_width(node: NodeRef<Div>, fallback: u32) -> Signal<u32> {
    let width = RwSignal::new(0u32);
    Effect::new(move |_| {
        let Some(el) = node.get() else {
            return;
        };
        let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let w = entries
                .get(0)
                .dyn_into::<web_sys::ResizeObserverEntry>()
                .map(|e| e.content_rect().width())
                .unwrap_or(0.0)
                .floor() as u32;
            if w > 0 && width.try_get_untracked() != Some(w) {
                width.try_set(w);
            }
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) {
            observer.observe(&el);
        }
        // the observer lives as long as its element; the callback with it
        on_resize.forget();
    });
    Signal::derive(move || match width.get() {
        0 => fallback,
        w => w,
    })
}

/// A chart box (`<div class=class>`) whose SVG `draw(width)` is drawn at the box's
/// width in CSS pixels ([`drawn_width`]; `fallback` before it is measured).
#[component]
pub fn SizedSvg<F>(
    #[prop(into)] class: String,
    #[prop(optional, into)] id: Option<String>,
    #[prop(default = W)] fallback: u32,
    draw: F,
) -> impl IntoView
where
    F: Fn(u32) -> String + Send + Sync + 'static,
{
    let node = NodeRef::<Div>::new();
    let width = drawn_width(node, fallback);
    view! { <div class=class id=id node_ref=node inner_html=move || draw(width.get())></div> }
}
