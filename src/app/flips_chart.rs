//! The ranking-flips chart: a metric against the bin count `m` (log axis), one line
//! per model, drawn with plotters' SVG backend (axes, labels, grid) and one `<path>`
//! per model, thinned to at most two points per pixel column so the SVG stays
//! small at 2000 bin counts. The slider's marker is an overlay of the page (a
//! slider step does not redraw the chart).

use calibscope_app::flips::FlipsCurve;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::fmt::Write;

/// Size of the drawing in SVG user units.
pub const W: u32 = 720;
pub const H: u32 = 420;

/// The drawing, and the x position of every bin count `m = 1..=m_max` (index `m - 1`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CurveDrawn {
    pub svg: String,
    pub x_of_m: Vec<f64>,
    /// The plotting area's top and bottom, for the marker lines.
    pub y_top: f64,
    pub y_bottom: f64,
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

/// Draws `curve` (a label for the y axis: `y_label`); `log_y` asks for a log y axis
/// (used when every value is positive).
pub fn draw_curve(curve: &FlipsCurve, y_label: &str, log_y: bool) -> CurveDrawn {
    let values = || curve.values.iter().flatten().filter_map(|v| *v);
    let lo = values().fold(f64::INFINITY, f64::min);
    let hi = values().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let x_hi = (curve.m_max.max(2)) as f64;
    let mut svg = String::new();
    let result = if log_y && lo > 0.0 {
        let (a, b) = if hi > lo {
            (lo, hi)
        } else {
            (lo * 0.9, hi * 1.1)
        };
        draw(
            &mut svg,
            curve,
            y_label,
            x_hi,
            (a / 1.15..b * 1.15).log_scale(),
        )
    } else {
        let pad = if hi > lo {
            (hi - lo) * 0.05
        } else {
            hi.abs().max(1e-3) * 0.1
        };
        draw(&mut svg, curve, y_label, x_hi, lo - pad..hi + pad)
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
            }
        }
        Err(e) => CurveDrawn {
            svg: format!(
                "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {W} {H}'><text x='20' y='40'>the chart could not be drawn: {}</text></svg>",
                e.replace('<', "&lt;")
            ),
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
    y_range: Y,
) -> Result<Drawn, String>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
    let root = SVGBackend::with_string(svg, (W, H)).into_drawing_area();
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
        .y_label_formatter(&|v| calibscope_app::numfmt::display(Some(*v)))
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
