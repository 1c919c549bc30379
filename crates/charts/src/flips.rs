//! The ranking-flips curves: a metric against the bin count `m = 1..=m_max` (log
//! axis), one line per model, drawn with plotters' SVG backend (axes, labels, grid)
//! and one `<path>` per model (`data-model="<i>"`, in the model's colour
//! [`palette::model`](crate::palette::model)), thinned to at most four points per
//! pixel column (first, lowest, highest, last) so the SVG stays small at 2000 bin
//! counts. The same function draws the Spearman of the metric against the
//! classification error (one line, a fixed range). The page draws the slider's
//! markers as an overlay (a slider step does not redraw the chart); [`with_markers`]
//! draws them into the SVG for export.

use crate::frame::house_mesh;
use crate::palette::model;
use crate::{failed_svg, hex};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::fmt::Write;

/// Width of the drawings in SVG user units.
pub const W: u32 = 720;
/// Height of the metric's chart.
pub const H: u32 = 420;
/// Height of the Spearman chart.
pub const H_RHO: u32 = 200;

/// The y axis of a chart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum YScale {
    /// Logarithmic when every value is positive, else linear.
    Log,
    /// Linear over the values, padded by 5% of their range (10% of the value, at
    /// least 1e-4, when all values are equal).
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
    /// The drawing's width and height in SVG units.
    pub w: u32,
    pub h: u32,
}

/// [`curves_sized`] at the default width [`W`].
pub fn curves(
    m_max: usize,
    lines: &[Vec<Option<f64>>],
    y_label: &str,
    scale: YScale,
    h: u32,
    y_fmt: &dyn Fn(f64) -> String,
) -> CurveDrawn {
    curves_sized(W, m_max, lines, y_label, scale, h, y_fmt)
}

/// Draws, `w` SVG units wide (the CSS pixels it is shown at; see [`crate::frame`]),
/// one line per entry of `lines` (`lines[i][m - 1]` is model `i`'s value at
/// bin count `m`; `None` where undefined, which breaks the line) over
/// `m = 1..=m_max`, at height `h`, the y axis titled `y_label` with tick labels
/// written by `y_fmt`. Non-finite values are treated as undefined. With no defined
/// value the y range is `[0, 1]`; `m_max < 2` draws the x axis over `[1, 2]`. On a
/// drawing error the SVG says so in text and `x_of_m` is empty.
pub fn curves_sized(
    w: u32,
    m_max: usize,
    lines: &[Vec<Option<f64>>],
    y_label: &str,
    scale: YScale,
    h: u32,
    y_fmt: &dyn Fn(f64) -> String,
) -> CurveDrawn {
    let w = crate::frame::width(w);
    let values = || {
        lines
            .iter()
            .flatten()
            .filter_map(|v| *v)
            .filter(|v| v.is_finite())
    };
    let lo = values().fold(f64::INFINITY, f64::min);
    let hi = values().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let x_hi = (m_max.max(2)) as f64;
    let plot = Plot {
        w,
        m_max,
        lines,
        y_label,
        x_hi,
        h,
        y_fmt,
    };
    let mut svg = String::new();
    let result = match scale {
        YScale::Log if lo > 0.0 => {
            let (a, b) = if hi > lo {
                (lo, hi)
            } else {
                (lo * 0.9, hi * 1.1)
            };
            plot.draw(&mut svg, (a / 1.15..b * 1.15).log_scale())
        }
        YScale::Fixed(a, b) => plot.draw(&mut svg, a..b),
        _ => {
            let pad = if hi > lo {
                (hi - lo) * 0.05
            } else {
                hi.abs().max(1e-3) * 0.1
            };
            plot.draw(&mut svg, lo - pad..hi + pad)
        }
    };
    match result {
        Ok((x_of_m, y_top, y_bottom, layer)) => {
            let at = svg.rfind("</svg>").unwrap_or(svg.len());
            svg.insert_str(at, &layer);
            CurveDrawn {
                svg,
                w,
                x_of_m,
                y_top,
                y_bottom,
                h,
            }
        }
        Err(e) => CurveDrawn {
            svg: failed_svg(w, h, &e),
            w,
            h,
            ..CurveDrawn::default()
        },
    }
}

/// The drawing's SVG with the marker at bin count `m` (solid) and at the reference
/// `m_ref` (dashed) drawn in, as the page overlays them; a marker whose bin count is
/// outside `1..=m_max` is left out. `None` when the drawing failed.
pub fn with_markers(drawn: &CurveDrawn, m: usize, m_ref: usize) -> Option<String> {
    let line = |m: usize, dash: &str| {
        drawn.x_of_m.get(m.wrapping_sub(1)).map_or(String::new(), |x| {
            format!(
                "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#333333\" stroke-width=\"1.5\"{dash}/>",
                drawn.y_top, drawn.y_bottom
            )
        })
    };
    let lines = line(m, "") + &line(m_ref, " stroke-dasharray=\"5 4\"");
    let at = drawn.svg.rfind("</svg>")?;
    Some(format!("{}{lines}{}", &drawn.svg[..at], &drawn.svg[at..]))
}

/// What [`Plot::draw`] returns: the x of every m, the plotting area's top and
/// bottom, and the data layer.
type Drawn = (Vec<f64>, f64, f64, String);

/// One chart to draw.
struct Plot<'a> {
    w: u32,
    m_max: usize,
    lines: &'a [Vec<Option<f64>>],
    y_label: &'a str,
    x_hi: f64,
    h: u32,
    y_fmt: &'a dyn Fn(f64) -> String,
}

impl Plot<'_> {
    fn draw<Y>(&self, svg: &mut String, y_range: Y) -> Result<Drawn, String>
    where
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
        let root = SVGBackend::with_string(svg, (self.w, self.h)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin_top(12)
            .margin_right(18)
            .margin_left(8)
            .x_label_area_size(42)
            .y_label_area_size(70)
            .build_cartesian_2d((1f64..self.x_hi).log_scale(), y_range)
            .map_err(|e| err(&e))?;
        house_mesh(
            chart
                .configure_mesh()
                .x_desc("bins m (log scale)")
                .y_desc(self.y_label)
                .x_labels(if self.w < 480 { 5 } else { 8 })
                .y_labels(if self.h < 260 { 4 } else { 6 })
                .x_label_formatter(&|v| format!("{v:.0}"))
                .y_label_formatter(&|v| (self.y_fmt)(*v)),
        )
        .draw()
        .map_err(|e| err(&e))?;
        let x_of_m: Vec<f64> = (1..=self.m_max)
            .map(|m| chart.backend_coord(&(m as f64, 0.0)).0 as f64)
            .collect();
        let area = chart.plotting_area().get_pixel_range();
        let mut layer = String::new();
        for (i, line) in self.lines.iter().enumerate() {
            let d = thinned(line, |m, v| chart.backend_coord(&(m, v)));
            if !d.is_empty() {
                let _ = writeln!(
                    layer,
                    "<path d=\"{d}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\" data-model=\"{i}\"/>",
                    hex(model(i))
                );
            }
        }
        root.present().map_err(|e| err(&e))?;
        Ok((x_of_m, area.1.start as f64, area.1.end as f64, layer))
    }
}

/// The path data of one line (`line[j]` at `m = j + 1`, mapped to pixels by `px`):
/// per pixel column, the first, lowest, highest and last point in m order; an
/// undefined or non-finite value is skipped (it ends the column's run, and the line
/// goes on from the next defined value).
fn thinned(line: &[Option<f64>], px: impl Fn(f64, f64) -> (i32, i32)) -> String {
    let mut d = String::new();
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
        let Some(v) = v.filter(|v| v.is_finite()) else {
            flush(&mut column, &mut d);
            continue;
        };
        let p = px((j + 1) as f64, v);
        if column.first().is_some_and(|c| c.0 != p.0) {
            flush(&mut column, &mut d);
        }
        column.push(p);
    }
    flush(&mut column, &mut d);
    d
}
