//! The ranking-flips chart of the page: the curves are drawn by
//! `calibscope_charts::flips` (a metric against the bin count, one line per model,
//! and under it the metric's Spearman against the classification error at every m);
//! this module puts them into the page with the slider's markers as an overlay (a
//! slider step does not redraw the chart), the models' legend and the exports.

use crate::proto::flips::FlipsCurve;
use calibscope_charts::flips::{
    curves_sized, with_markers as marked, CurveDrawn, YScale, H, H_RHO, W,
};
use calibscope_charts::{hex, palette};
use leptos::prelude::*;

use crate::flips::export;
use crate::flips::state::{label, FlipsState};
use crate::page::store::Store;

/// Draws `curve` (a label for the y axis: `y_label`) `w` CSS pixels wide (the
/// chart box's width) at height `h` (scaled down with a narrow box), its y ticks
/// written as the page writes numbers.
fn draw_curve(curve: &FlipsCurve, y_label: &str, scale: YScale, (w, h): (u32, u32)) -> CurveDrawn {
    let h = if w < W { (h * w / W).max(h * 2 / 3) } else { h };
    curves_sized(w, curve.m_max, &curve.values, y_label, scale, h, &|v| {
        crate::shared::numfmt::display(Some(v))
    })
}

/// A drawn chart with the slider's marker (solid) and the reference's (dashed) on top.
#[component]
fn MarkedChart(
    id: &'static str,
    drawn: Memo<Option<CurveDrawn>>,
    #[prop(into)] label: Signal<String>,
) -> impl IntoView {
    let st = expect_context::<FlipsState>();
    let marker = move |m: usize, class: &'static str| {
        let (x, top, bottom) = drawn.with(|d| {
            let d = d.as_ref()?;
            Some((*d.x_of_m.get(m.wrapping_sub(1))?, d.y_top, d.y_bottom))
        })?;
        Some(
            view! { <line class=class x1=x.to_string() x2=x.to_string() y1=top.to_string() y2=bottom.to_string()></line> },
        )
    };
    let size = move || drawn.with(|d| d.as_ref().map_or((W, H), |d| (d.w, d.h)));
    view! {
        <div class="chart" id=id role="img" tabindex="0" aria-label=move || label.get()>
            <div class="svg" inner_html=move || drawn.with(|d| d.as_ref().map(|d| d.svg.clone()).unwrap_or_default())></div>
            <svg class="overlay" viewBox=move || { let (w, h) = size(); format!("0 0 {w} {h}") } aria-hidden="true">
                {move || marker(st.ref_at(), "ref-marker")}
                {move || marker(st.m_at(), "m-marker")}
            </svg>
        </div>
    }
}

/// The metric's chart, its Spearman against the error, the legend and the exports.
#[component]
pub fn FlipsCharts() -> impl IntoView {
    let st = expect_context::<FlipsState>();
    let store = expect_context::<Store>();
    // both charts are drawn at the width of their box (CSS px)
    let wrap = NodeRef::<leptos::html::Div>::new();
    let width = crate::shared::chart::drawn_width(wrap, W);
    let drawn = Memo::new(move |_| {
        let w = width.get();
        let scale = if st.log_y.get() {
            YScale::Log
        } else {
            YScale::Linear
        };
        st.curve.with(|c| {
            let c = c.as_ref()?;
            c.unavailable
                .is_none()
                .then(|| draw_curve(c, label(&c.metric), scale, (w, H)))
        })
    });
    let rho = Memo::new(move |_| {
        let w = width.get();
        st.curve.with(|c| {
            let c = c.as_ref().filter(|c| c.unavailable.is_none())?;
            let line = FlipsCurve {
                m_max: c.m_max,
                values: vec![c.spearman_vs_error.clone()],
                ..FlipsCurve::default()
            };
            Some(draw_curve(
                &line,
                "Spearman vs error",
                YScale::Fixed(-1.05, 1.05),
                (w, H_RHO),
            ))
        })
    });
    let export_svg = move |_| {
        if let Some(svg) = with_markers(drawn, st) {
            export::download_text(&file_name(st, "svg"), "image/svg+xml", &svg);
        }
    };
    let export_png = move |_| {
        if let Some(svg) = with_markers(drawn, st) {
            let (w, h) = drawn.with_untracked(|d| d.as_ref().map_or((W, H), |d| (d.w, d.h)));
            export::download_png(&file_name(st, "png"), &svg, w, h);
        }
    };
    let main_label = Signal::derive(move || {
        format!(
            "{} against the number of bins for every model; marker at m = {}, reference at m = {}",
            label(&st.metric.get()),
            st.m_at(),
            st.ref_at()
        )
    });
    let rho_label = Signal::derive(move || {
        format!(
            "Spearman correlation between the ranking by {} and the ranking by classification error, at every number of bins",
            label(&st.metric.get())
        )
    });
    view! {
        {move || st.curve.with(|c| c.as_ref().and_then(|c| c.unavailable.clone())).map(|why| view! {
            <p class="notice unavailable" role="status" id="flips-unavailable">{format!("{} cannot be computed for this input: {why}.", label(&st.metric.get()))}</p>
        })}
        <div class="chart-wrap flips-chart" node_ref=wrap>
            <MarkedChart id="flips-chart" drawn=drawn label=main_label/>
            <ul class="flips-legend" aria-label="Models">
                {move || store.summary.with(|s| s.as_ref().map(|s| s.models.clone()).unwrap_or_default()).into_iter().enumerate().map(|(i, name)| view! {
                    <li><svg width="18" height="8" aria-hidden="true"><rect width="18" height="4" y="2" fill=hex(palette::model(i))></rect></svg>" " {name}</li>
                }).collect_view()}
                <li class="marker-key">"solid: m · dashed: reference"</li>
            </ul>
            <p class="exports">
                <button id="flips-export-svg" on:click=export_svg>"Chart as SVG"</button>" "
                <button id="flips-export-png" on:click=export_png>"Chart as PNG"</button>
            </p>
            <h3 class="rho-title">"Spearman against classification error, at every m"</h3>
            <MarkedChart id="flips-rho-chart" drawn=rho label=rho_label/>
        </div>
    }
}

fn file_name(st: FlipsState, ext: &str) -> String {
    format!(
        "calibscope-flips-{}-{}.{ext}",
        st.metric.get_untracked(),
        st.binning.get_untracked().name()
    )
}

/// The chart's SVG with the two markers drawn in, for export.
fn with_markers(drawn: Memo<Option<CurveDrawn>>, st: FlipsState) -> Option<String> {
    drawn.with_untracked(|d| {
        let (m, m_ref) = (
            st.clamp(st.m.get_untracked()),
            st.clamp(st.m_ref.get_untracked()),
        );
        marked(d.as_ref()?, m, m_ref)
    })
}
