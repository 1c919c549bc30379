//! # calibscope-charts
//!
//! The charts of calibscope as SVG, drawn with plotters' SVG backend: the web app
//! puts them into the page (where its CSS restyles the colours for the dark theme),
//! the CLI into its HTML report and SVG files, so both draw with the same code.
//! Axes, labels and grid come from plotters; each data series is one `<path>`.
//! Every chart takes its colours from [`palette`].
//!
//! - [`reliability`]: the reliability diagram and its strip of bin counts;
//! - [`recal::tau_curve`], [`recal::fitted_map`]: the recalibration drawings;
//! - [`flips::curves`]: the ranking-flips curves (a metric against the bin count);
//! - [`small::lines`], [`small::histogram`]: the small charts of the Learn tour and
//!   the labs (ROC and confidence-weighted ROC, expected ECE against n, histograms),
//!   hand-written SVG whose colours are CSS classes ([`palette::Ink`]);
//! - [`smooth::smooth_reliability`], [`cumulative::cumulative_differences`]: the
//!   binning-free diagrams (smooth ECE's curve, the cumulative differences).

pub mod cumulative;
pub mod flips;
mod merge;
pub mod numfmt;
pub mod palette;
pub mod recal;
pub mod small;
pub mod smooth;

use plotters::prelude::*;
pub use plotters::style::RGBColor;
use std::fmt::Write;

/// One non-empty bin of a reliability diagram.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bin {
    /// The bin's edges on the confidence axis.
    pub lower: f64,
    pub upper: f64,
    /// Mean confidence and accuracy of its samples.
    pub conf: f64,
    pub acc: f64,
    /// The Clopper–Pearson interval of the accuracy.
    pub cp_lower: f64,
    pub cp_upper: f64,
    /// Its number of samples.
    pub n: usize,
}

/// Size of the drawing in SVG user units (the page scales it).
pub const W: u32 = 640;
pub const H: u32 = 500;
pub const MAIN_H: u32 = 390;

/// Where a bin was drawn, in SVG units, for hover and focus.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinPx {
    pub x0: f64,
    pub x1: f64,
    /// The point `(conf, acc)`.
    pub cx: f64,
    pub cy: f64,
}

/// The drawing and its bins' positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawn {
    pub svg: String,
    pub bins: Vec<BinPx>,
}

pub use palette::{BAR, GAP, POINT, STRIP, WHISKER};

/// Draws the reliability diagram of `rows` (non-empty bins) and the strip of bin
/// counts under it.
pub fn reliability(rows: &[Bin], x_label: &str) -> Drawn {
    let mut svg = String::new();
    let bins = match draw(&mut svg, rows, x_label) {
        Ok((b, layer)) => {
            // the data layer goes last, before the closing tag
            let at = svg.rfind("</svg>").unwrap_or(svg.len());
            svg.insert_str(at, &layer);
            b
        }
        Err(e) => {
            return Drawn {
                svg: failed_svg(W, H, &e),
                bins: Vec::new(),
            }
        }
    };
    Drawn { svg, bins }
}

/// Draws into `svg` with plotters (axes, labels, grid) and returns the bins'
/// positions and the data layer (the per-bin series as paths) to add on top.
fn draw(svg: &mut String, rows: &[Bin], x_label: &str) -> Result<(Vec<BinPx>, String), String> {
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
    let root = SVGBackend::with_string(svg, (W, H)).into_drawing_area();
    let (top, bottom) = root.split_vertically(MAIN_H);
    let mut chart = ChartBuilder::on(&top)
        .margin_top(14)
        .margin_right(18)
        .margin_left(8)
        .x_label_area_size(40)
        .y_label_area_size(52)
        .build_cartesian_2d(0f64..1f64, 0f64..1f64)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc("accuracy")
        .x_labels(6)
        .y_labels(6)
        .x_label_formatter(&|v| format!("{v:.1}"))
        .y_label_formatter(&|v| format!("{v:.1}"))
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .axis_desc_style(("sans-serif", 15))
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(|e| err(&e))?;
    // a bar of width at least ~2 px so narrow equal-mass bins stay visible
    let min_w = 2.0 / (W as f64 - 80.0);
    let span = |r: &Bin| {
        let (mut lo, mut hi) = (r.lower.clamp(0.0, 1.0), r.upper.clamp(0.0, 1.0));
        if hi - lo < min_w {
            let mid = (lo + hi) / 2.0;
            lo = (mid - min_w / 2.0).max(0.0);
            hi = (lo + min_w).min(1.0);
        }
        (lo, hi)
    };
    // The per-bin series are drawn here as one `<path>` each (plotters' SVG backend
    // writes one element per bar, line and circle: ~7 per bin, a 486 KB SVG at
    // 1000 bins that the browser parses, styles, lays out and paints on every slider
    // step), each written as the union it paints (`merge`: at 2000 bins most bins
    // share their pixel columns). Plotters still draws the axes, labels and grid;
    // these are added after them, in the order bars, diagonal, gap, whiskers, points
    // (the strip's bars last).
    let px = |x: f64, y: f64| chart.backend_coord(&(x, y));
    let mut layer = String::new();
    let base = px(0.0, 0.0).1;
    let bars: Vec<(i32, i32, i32)> = rows
        .iter()
        .map(|r| {
            let (lo, hi) = span(r);
            (px(lo, 0.0).0, px(hi, 0.0).0, px(hi, r.acc).1)
        })
        .collect();
    path(
        &mut layer,
        &merge::skyline(&bars, base),
        &format!("fill=\"{}\" opacity=\"0.35\" stroke=\"none\"", hex(BAR)),
    );
    let ((dx0, dy0), (dx1, dy1)) = (px(0.0, 0.0), px(1.0, 1.0));
    let _ = writeln!(
        layer,
        "<polyline fill=\"none\" opacity=\"0.6\" stroke=\"#000000\" stroke-width=\"1\" points=\"{dx0},{dy0} {dx1},{dy1} \"/>"
    );
    // gap from the diagonal, Clopper–Pearson whisker, and the point: vertical
    // strokes at each bin's mean confidence, between two heights
    let at_conf = |from: fn(&Bin) -> f64, to: fn(&Bin) -> f64| -> Vec<(i32, i32, i32)> {
        rows.iter()
            .map(|r| {
                let (x, y0) = px(r.conf, from(r));
                (x, y0, px(r.conf, to(r)).1)
            })
            .collect()
    };
    path(
        &mut layer,
        &merge::vertical_runs(&at_conf(|r| r.conf, |r| r.acc)),
        &format!("fill=\"none\" stroke=\"{}\" stroke-width=\"2\"", hex(GAP)),
    );
    let whiskers = at_conf(|r| r.cp_lower, |r| r.cp_upper);
    let mut d = merge::vertical_runs(&whiskers);
    // whisker caps only while bins are wide enough to show them (past 200 bins they
    // are a few pixels over a crowded chart)
    let cap = 0.006;
    if rows.len() <= 200 {
        for (r, &(_, y0, y1)) in rows.iter().zip(&whiskers) {
            let (c0, _) = px(r.conf - cap, 0.0);
            let (c1, _) = px(r.conf + cap, 0.0);
            let _ = write!(d, "M{c0} {y0}H{c1}M{c0} {y1}H{c1}");
        }
    }
    path(
        &mut layer,
        &d,
        &format!(
            "fill=\"none\" stroke=\"{}\" stroke-width=\"1\"",
            hex(WHISKER)
        ),
    );
    let radius: i32 = if rows.len() > 200 { 2 } else { 4 };
    let points: Vec<(i32, i32)> = rows.iter().map(|r| px(r.conf, r.acc)).collect();
    path(
        &mut layer,
        &merge::dots(&points),
        &format!(
            "fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" stroke-linecap=\"round\"",
            hex(POINT),
            2 * radius
        ),
    );
    let bins: Vec<BinPx> = rows
        .iter()
        .map(|r| {
            let (lo, hi) = span(r);
            let (x0, _) = chart.backend_coord(&(lo, 0.0));
            let (x1, _) = chart.backend_coord(&(hi, 0.0));
            let (cx, cy) = chart.backend_coord(&(r.conf, r.acc));
            BinPx {
                x0: x0 as f64,
                x1: x1 as f64,
                cx: cx as f64,
                cy: cy as f64,
            }
        })
        .collect();
    // the histogram strip: samples per bin
    let max_n = rows.iter().map(|r| r.n).max().unwrap_or(1).max(1) as f64;
    let mut strip = ChartBuilder::on(&bottom)
        .margin_right(18)
        .margin_left(8)
        .margin_bottom(8)
        .x_label_area_size(0)
        .y_label_area_size(52)
        .build_cartesian_2d(0f64..1f64, 0f64..max_n)
        .map_err(|e| err(&e))?;
    strip
        .configure_mesh()
        .disable_x_mesh()
        .disable_x_axis()
        .y_labels(3)
        .y_desc("count")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .axis_desc_style(("sans-serif", 13))
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(|e| err(&e))?;
    let strip_base = strip.backend_coord(&(0.0, 0.0)).1;
    let strip_bars: Vec<(i32, i32, i32)> = rows
        .iter()
        .map(|r| {
            let (lo, hi) = span(r);
            let (x0, _) = strip.backend_coord(&(lo, 0.0));
            let (x1, y1) = strip.backend_coord(&(hi, r.n as f64));
            (x0, x1, y1)
        })
        .collect();
    let d = merge::skyline(&strip_bars, strip_base);
    path(
        &mut layer,
        &d,
        &format!("fill=\"{}\" stroke=\"none\"", hex(STRIP)),
    );
    root.present().map_err(|e| err(&e))?;
    Ok((bins, layer))
}

/// A drawing of size `w` x `h` that says, in text, why the chart could not be drawn.
pub(crate) fn failed_svg(w: u32, h: u32, why: &str) -> String {
    format!(
        "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {w} {h}'><text x='20' y='40'>the chart could not be drawn: {}</text></svg>",
        why.replace('<', "&lt;")
    )
}

/// `#RRGGBB`, as plotters writes colours (the page's CSS matches on it).
pub fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// Appends one `<path>` of the data `d` (nothing when it is empty).
pub fn path(out: &mut String, d: &str, attrs: &str) {
    if !d.is_empty() {
        let _ = writeln!(out, "<path d=\"{d}\" {attrs}/>");
    }
}
