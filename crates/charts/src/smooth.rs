//! The smooth reliability diagram (Błasiok & Nakkiran 2023, relplot's drawing): the
//! kernel-smoothed mean outcome against the forecast at the bandwidth `sigma*` of
//! smooth ECE, the diagonal of perfect calibration, and the smoothed density of the
//! forecasts as a band along the bottom; `sigma*` and smECE are stated on the chart.
//! Colours come from [`crate::palette`].

use crate::frame::{house_mesh, titled, DESC};
use crate::numfmt::display;
use crate::palette::{POINT, STRIP};
use plotters::prelude::*;

/// Width of the drawing in SVG user units (the page scales it).
pub const W: u32 = 560;
/// Height of the drawing in SVG user units.
pub const H: u32 = 420;

/// The curve to draw, as `calibscope_core::smece::SmoothCurve` holds it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SmoothCurve<'a> {
    /// Evaluation points `t` in `[0, 1]`, ascending.
    pub t: &'a [f64],
    /// The smoothed mean outcome at each `t` (clipped into `[0, 1]` for drawing).
    pub mean_outcome: &'a [f64],
    /// The smoothed density at each `t` (any positive scale; drawn relative to its
    /// maximum, as a band of up to a fifth of the height).
    pub density: &'a [f64],
    /// The bandwidth `sigma*`.
    pub sigma: f64,
    /// smECE at `sigma*`.
    pub smece: f64,
}

pub(crate) fn failed(w: u32, h: u32, e: String) -> String {
    format!(
        "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {w} {h}'><text x='20' y='40'>the chart could not be drawn: {}</text></svg>",
        e.replace('<', "&lt;")
    )
}

pub(crate) fn err(e: &dyn std::fmt::Debug) -> String {
    format!("{e:?}")
}

/// Draws the smooth reliability diagram of `curve` over `x_label` (the reading's
/// forecast). Points with a non-finite value are left out; with none left, the axes,
/// the diagonal and the caption are still drawn.
pub fn smooth_reliability(curve: &SmoothCurve<'_>, x_label: &str) -> String {
    smooth_reliability_sized(W, curve, x_label)
}

/// [`smooth_reliability`], `w` SVG units wide (the CSS pixels it is shown at; see
/// [`crate::frame`]); the height keeps the default proportions, at least 280.
pub fn smooth_reliability_sized(w: u32, curve: &SmoothCurve<'_>, x_label: &str) -> String {
    let w = crate::frame::width(w);
    let h = (w * H / W).max(280);
    let mut svg = String::new();
    let drawn = (|| -> Result<(), String> {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        let caption = format!(
            "smooth ECE {}, bandwidth σ* = {}",
            display(Some(curve.smece)),
            display(Some(curve.sigma))
        );
        let area = titled(&root, 12, &caption, DESC).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&area)
            .x_label_area_size(40)
            .y_label_area_size(52)
            .build_cartesian_2d(0f64..1f64, 0f64..1f64)
            .map_err(|e| err(&e))?;
        house_mesh(
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc("smoothed mean outcome")
                .x_labels(6)
                .y_labels(6)
                .x_label_formatter(&|v| format!("{v:.1}"))
                .y_label_formatter(&|v| format!("{v:.1}")),
        )
        .draw()
        .map_err(|e| err(&e))?;
        let peak = curve
            .density
            .iter()
            .copied()
            .filter(|d| d.is_finite())
            .fold(0.0f64, f64::max);
        if peak > 0.0 {
            let mut band: Vec<(f64, f64)> = vec![(curve.t.first().copied().unwrap_or(0.0), 0.0)];
            band.extend(
                curve
                    .t
                    .iter()
                    .zip(curve.density)
                    .filter(|(t, d)| t.is_finite() && d.is_finite())
                    .map(|(&t, &d)| (t, 0.2 * d / peak)),
            );
            band.push((curve.t.last().copied().unwrap_or(1.0), 0.0));
            chart
                .draw_series([Polygon::new(band, STRIP.mix(0.45).filled())])
                .map_err(|e| err(&e))?;
        }
        chart
            .draw_series(LineSeries::new([(0.0, 0.0), (1.0, 1.0)], BLACK.mix(0.5)))
            .map_err(|e| err(&e))?;
        chart
            .draw_series(LineSeries::new(
                curve
                    .t
                    .iter()
                    .zip(curve.mean_outcome)
                    .filter(|(t, y)| t.is_finite() && y.is_finite())
                    .map(|(&t, &y)| (t, y.clamp(0.0, 1.0))),
                POINT.stroke_width(2),
            ))
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))
    })();
    match drawn {
        Ok(()) => svg,
        Err(e) => failed(w, h, e),
    }
}
