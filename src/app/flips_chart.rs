//! The ranking-flips chart: a metric against the bin count `m` (log axis), one line
//! per model, drawn with plotters' SVG backend (axes, labels, grid) and one `<path>`
//! per model, thinned to at most two points per pixel column so the SVG stays
//! small at 2000 bin counts. The slider's marker is an overlay of the page (a
//! slider step does not redraw the chart). Under it, the metric's Spearman against
//! the classification error at every m, on the same axis.

use crate::flips::FlipsCurve;
use leptos::prelude::*;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::fmt::Write;

use super::flips::label;
use super::flips_export as export;
use super::flips_state::FlipsState;
use super::store::Store;

/// Width of the drawings in SVG user units; heights of the metric's chart and of
/// the Spearman chart.
pub const W: u32 = 720;
pub const H: u32 = 420;
pub const H_RHO: u32 = 200;

/// The y axis of a chart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum YScale {
    /// Logarithmic when every value is positive, else linear.
    Log,
    Linear,
    /// A fixed linear range.
    Fixed(f64, f64),
}

/// The drawing, and the x position of every bin count `m = 1..=m_max` (index `m - 1`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CurveDrawn {
    pub svg: String,
    pub x_of_m: Vec<f64>,
    /// The plotting area's top and bottom, for the marker lines.
    pub y_top: f64,
    pub y_bottom: f64,
    /// The drawing's height.
    pub h: u32,
}

/// The line colours (Tableau 10), cycled past ten models.
pub const PALETTE: [&str; 10] = [
    "#4E79A7", "#F28E2B", "#E15759", "#76B7B2", "#59A14F", "#EDC948", "#B07AA1", "#FF9DA7",
    "#9C755F", "#BAB0AC",
];

/// The colour of model `i`.
pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Draws `curve` (a label for the y axis: `y_label`) at height `h`.
pub fn draw_curve(curve: &FlipsCurve, y_label: &str, scale: YScale, h: u32) -> CurveDrawn {
    let values = || curve.values.iter().flatten().filter_map(|v| *v);
    let lo = values().fold(f64::INFINITY, f64::min);
    let hi = values().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let x_hi = (curve.m_max.max(2)) as f64;
    let mut svg = String::new();
    let result = match scale {
        YScale::Log if lo > 0.0 => {
            let (a, b) = if hi > lo {
                (lo, hi)
            } else {
                (lo * 0.9, hi * 1.1)
            };
            let range = (a / 1.15..b * 1.15).log_scale();
            draw(&mut svg, curve, y_label, x_hi, h, range)
        }
        YScale::Fixed(a, b) => draw(&mut svg, curve, y_label, x_hi, h, a..b),
        _ => {
            let pad = if hi > lo {
                (hi - lo) * 0.05
            } else {
                hi.abs().max(1e-3) * 0.1
            };
            draw(&mut svg, curve, y_label, x_hi, h, lo - pad..hi + pad)
        }
    };
    match result {
        Ok((x_of_m, y_top, y_bottom, layer)) => {
            let at = svg.rfind("</svg>").unwrap_or(svg.len());
            svg.insert_str(at, &layer);
            CurveDrawn {
                svg,
                x_of_m,
                y_top,
                y_bottom,
                h,
            }
        }
        Err(e) => CurveDrawn {
            svg: format!(
                "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {W} {h}'><text x='20' y='40'>the chart could not be drawn: {}</text></svg>",
                e.replace('<', "&lt;")
            ),
            h,
            ..CurveDrawn::default()
        },
    }
}

type Drawn = (Vec<f64>, f64, f64, String);

fn draw<Y>(
    svg: &mut String,
    curve: &FlipsCurve,
    y_label: &str,
    x_hi: f64,
    h: u32,
    y_range: Y,
) -> Result<Drawn, String>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
    let root = SVGBackend::with_string(svg, (W, h)).into_drawing_area();
    let mut chart = ChartBuilder::on(&root)
        .margin_top(12)
        .margin_right(18)
        .margin_left(8)
        .x_label_area_size(42)
        .y_label_area_size(70)
        .build_cartesian_2d((1f64..x_hi).log_scale(), y_range)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("bins m (log scale)")
        .y_desc(y_label)
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| crate::numfmt::display(Some(*v)))
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .axis_desc_style(("sans-serif", 15))
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(|e| err(&e))?;
    let x_of_m: Vec<f64> = (1..=curve.m_max)
        .map(|m| chart.backend_coord(&(m as f64, 0.0)).0 as f64)
        .collect();
    let area = chart.plotting_area().get_pixel_range();
    let mut layer = String::new();
    for (i, line) in curve.values.iter().enumerate() {
        let mut d = String::new();
        // per pixel column, the first, lowest, highest and last point (in m order)
        let mut column: Vec<(i32, i32)> = Vec::new();
        let flush = |column: &mut Vec<(i32, i32)>, d: &mut String| {
            if column.is_empty() {
                return;
            }
            let first = column[0];
            let last = column[column.len() - 1];
            let min = *column.iter().min_by_key(|p| p.1).unwrap_or(&first);
            let max = *column.iter().max_by_key(|p| p.1).unwrap_or(&first);
            for (x, y) in [first, min, max, last] {
                let cmd = if d.is_empty() { 'M' } else { 'L' };
                let _ = write!(d, "{cmd}{x} {y}");
            }
            column.clear();
        };
        for (j, v) in line.iter().enumerate() {
            let Some(v) = v else {
                flush(&mut column, &mut d);
                continue;
            };
            let p = chart.backend_coord(&((j + 1) as f64, *v));
            if column.first().is_some_and(|c| c.0 != p.0) {
                flush(&mut column, &mut d);
            }
            column.push(p);
        }
        flush(&mut column, &mut d);
        if !d.is_empty() {
            let _ = writeln!(
                layer,
                "<path d=\"{d}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\" data-model=\"{i}\"/>",
                colour(i)
            );
        }
    }
    root.present().map_err(|e| err(&e))?;
    Ok((x_of_m, area.1.start as f64, area.1.end as f64, layer))
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
    let h = move || drawn.with(|d| d.as_ref().map_or(H, |d| d.h));
    view! {
        <div class="chart" id=id role="img" tabindex="0" aria-label=move || label.get()>
            <div class="svg" inner_html=move || drawn.with(|d| d.as_ref().map(|d| d.svg.clone()).unwrap_or_default())></div>
            <svg class="overlay" viewBox=move || format!("0 0 {W} {}", h()) aria-hidden="true">
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
    let drawn = Memo::new(move |_| {
        let scale = if st.log_y.get() {
            YScale::Log
        } else {
            YScale::Linear
        };
        st.curve.with(|c| {
            let c = c.as_ref()?;
            c.unavailable
                .is_none()
                .then(|| draw_curve(c, label(&c.metric), scale, H))
        })
    });
    let rho = Memo::new(move |_| {
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
                H_RHO,
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
            export::download_png(&file_name(st, "png"), &svg, W, H);
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
        <div class="chart-wrap flips-chart">
            <MarkedChart id="flips-chart" drawn=drawn label=main_label/>
            <ul class="flips-legend" aria-label="Models">
                {move || store.summary.with(|s| s.as_ref().map(|s| s.models.clone()).unwrap_or_default()).into_iter().enumerate().map(|(i, name)| view! {
                    <li><svg width="18" height="8" aria-hidden="true"><rect width="18" height="4" y="2" fill=colour(i)></rect></svg>" " {name}</li>
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
        st.binning.get_untracked()
    )
}

/// The chart's SVG with the two markers drawn in, for export.
fn with_markers(drawn: Memo<Option<CurveDrawn>>, st: FlipsState) -> Option<String> {
    drawn.with_untracked(|d| {
        let d = d.as_ref()?;
        let line = |m: usize, dash: &str| {
            d.x_of_m.get(m.wrapping_sub(1)).map_or(String::new(), |x| {
                format!(
                    "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#333333\" stroke-width=\"1.5\"{dash}/>",
                    d.y_top, d.y_bottom
                )
            })
        };
        let (m, m_ref) = (st.clamp(st.m.get_untracked()), st.clamp(st.m_ref.get_untracked()));
        let lines = line(m, "") + &line(m_ref, " stroke-dasharray=\"5 4\"");
        let at = d.svg.rfind("</svg>")?;
        Some(format!("{}{lines}{}", &d.svg[..at], &d.svg[at..]))
    })
}
