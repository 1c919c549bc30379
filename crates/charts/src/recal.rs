//! The recalibration drawings: the τ curve (calibration NLL against τ, log axis) and
//! the fitted maps (raw score to recalibrated probability). Colours come from
//! [`crate::palette`]; the web app's CSS restyles them for the dark theme.

use crate::frame::{self, house_mesh, Item, Swatch};
use crate::palette::{GAP, POINT, SERIES};
use plotters::prelude::*;

/// Width of these drawings in SVG user units (the page scales them).
pub const W: u32 = 560;
/// Height of these drawings in SVG user units.
pub const H: u32 = 340;

/// The height of a drawing `w` units wide: the default proportions, at least 240.
pub fn height(w: u32) -> u32 {
    (w * H / W).max(240)
}

fn err(e: &dyn std::fmt::Debug) -> String {
    format!("{e:?}")
}

/// The calibration NLL at each `(tau, nll)` of `points` (a log-scaled tau axis over
/// the bracket `[0.05, 20]`), with `tau*` marked and `tau = 1` dashed.
pub fn tau_curve(points: &[[f64; 2]], tau: Option<f64>, nll_tau: Option<f64>) -> String {
    tau_curve_sized(W, points, tau, nll_tau)
}

/// [`tau_curve`], `w` SVG units wide (the CSS pixels it is shown at).
pub fn tau_curve_sized(
    w: u32,
    points: &[[f64; 2]],
    tau: Option<f64>,
    nll_tau: Option<f64>,
) -> String {
    let w = crate::frame::width(w);
    let h = height(w);
    let mut svg = String::new();
    let drawn = (|| -> Result<(), String> {
        let finite: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p[1].is_finite())
            .map(|p| (p[0], p[1]))
            .collect();
        let (lo, hi) = finite
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.1), b.max(p.1))
            });
        let (lo, hi) = if lo < hi { (lo, hi) } else { (0.0, 1.0) };
        let pad = (hi - lo) * 0.05;
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((0.05f64..20f64).log_scale(), (lo - pad)..(hi + pad))
            .map_err(|e| err(&e))?;
        house_mesh(
            chart
                .configure_mesh()
                .x_desc("τ (log scale)")
                .y_desc("calibration NLL")
                .x_labels(if w < 480 { 5 } else { 8 })
                .y_labels(6)
                .x_label_formatter(&|v| format!("{v}"))
                .y_label_formatter(&|v| format!("{v:.3}")),
        )
        .draw()
        .map_err(|e| err(&e))?;
        chart
            .draw_series(LineSeries::new(
                [(1.0, lo - pad), (1.0, hi + pad)],
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(|e| err(&e))?;
        chart
            .draw_series(LineSeries::new(finite, POINT.stroke_width(2)))
            .map_err(|e| err(&e))?;
        if let (Some(t), Some(v)) = (tau, nll_tau) {
            chart
                .draw_series([Circle::new((t, v), 5, GAP.filled())])
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))
    })();
    match drawn {
        Ok(()) => svg,
        Err(e) => crate::failed_svg(w, h, &e),
    }
}

/// One fitted map: each curve (`(class, points)`) as a line, `scatter` as dots,
/// over `x_label` (the raw score) against the recalibrated probability.
pub fn fitted_map(
    x_label: &str,
    curves: &[(usize, Vec<[f64; 2]>)],
    scatter: &[[f64; 2]],
) -> String {
    fitted_map_sized(W, x_label, curves, scatter)
}

/// [`fitted_map`], `w` SVG units wide (the CSS pixels it is shown at), with a legend
/// of its classes (when more than one) and of the diagonal (with `scatter`).
pub fn fitted_map_sized(
    w: u32,
    x_label: &str,
    curves: &[(usize, Vec<[f64; 2]>)],
    scatter: &[[f64; 2]],
) -> String {
    let w = crate::frame::width(w);
    let h = height(w);
    let names: Vec<String> = curves.iter().map(|c| format!("class {}", c.0)).collect();
    let mut items: Vec<Item> = Vec::new();
    if curves.len() > 1 {
        items.extend(names.iter().enumerate().map(|(i, n)| Item {
            swatch: Swatch::Line("cs-series", SERIES[i % SERIES.len()], false),
            label: n,
        }));
    }
    if !scatter.is_empty() {
        items.push(Item {
            swatch: Swatch::Dot("cs-scatter", POINT),
            label: "evaluation rows",
        });
        items.push(Item {
            swatch: Swatch::Line("cs-diagonal", RGBColor(0, 0, 0), true),
            label: "no change",
        });
    }
    let legend_h = frame::legend_height(&items, (w - 16) as f64).ceil() as u32;
    let h = h + legend_h;
    let mut svg = String::new();
    let drawn = (|| -> Result<(), String> {
        let xs = curves
            .iter()
            .flat_map(|c| c.1.iter())
            .chain(scatter)
            .map(|p| p[0])
            .filter(|v| v.is_finite());
        let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        let (lo, hi) = if lo < hi { (lo, hi) } else { (0.0, 1.0) };
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        let (_, area) = root.split_vertically(legend_h);
        let mut chart = ChartBuilder::on(&area)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(52)
            .build_cartesian_2d(lo..hi, 0f64..1f64)
            .map_err(|e| err(&e))?;
        house_mesh(
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc("recalibrated probability")
                .x_labels(if w < 480 { 5 } else { 7 })
                .y_labels(6)
                .x_label_formatter(&|v| format!("{v:.2}"))
                .y_label_formatter(&|v| format!("{v:.1}")),
        )
        .draw()
        .map_err(|e| err(&e))?;
        for (i, (_, points)) in curves.iter().enumerate() {
            let colour = SERIES[i % SERIES.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|p| (p[0], p[1])),
                    colour.stroke_width(2),
                ))
                .map_err(|e| err(&e))?;
        }
        if !scatter.is_empty() {
            chart
                .draw_series(DashedLineSeries::new(
                    [(lo, lo), (hi, hi)],
                    6,
                    4,
                    BLACK.stroke_width(1),
                ))
                .map_err(|e| err(&e))?;
            chart
                .draw_series(
                    scatter
                        .iter()
                        .map(|p| Circle::new((p[0], p[1]), 2, POINT.mix(0.6).filled())),
                )
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))
    })();
    match drawn {
        Ok(()) => {
            let (legend, _) = frame::legend(&items, 10.0, 4.0, (w - 16) as f64);
            let at = svg.rfind("</svg>").unwrap_or(svg.len());
            svg.insert_str(at, &legend);
            svg
        }
        Err(e) => crate::failed_svg(w, h, &e),
    }
}
