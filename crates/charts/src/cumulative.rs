//! The cumulative reliability diagram (Tygert 2021; Arrieta-Ibarra et al. 2022): the
//! cumulative differences `C_k = (1/n) Σ_{j<=k} (o_j - u_j)` over the pairs sorted by
//! forecast, against `k/n`. Its slope over a range is the miscalibration there
//! (accuracy minus confidence); the dashed lines at `±sigma`, `sigma = sqrt(Σ u(1-u))/n`,
//! show the size of a deviation expected from noise alone. The caption states the
//! Kolmogorov–Smirnov statistic `max |C_k| / sigma` and its p-value.

use crate::frame::{house_mesh, titled, DESC};
use crate::numfmt::display;
use crate::palette::{GAP, POINT};
use crate::smooth::{err, failed};
use plotters::prelude::*;

/// Width of the drawing in SVG user units (the page scales it).
pub const W: u32 = 560;
/// Height of the drawing in SVG user units.
pub const H: u32 = 420;

/// What the diagram draws.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cumulative<'a> {
    /// `(k/n, C_k)` points in ascending `k/n` (all of them, or a subsample that keeps
    /// the first and last).
    pub points: &'a [[f64; 2]],
    /// `sigma = sqrt(Σ u_i (1 - u_i)) / n`.
    pub sigma: f64,
    /// `KS = max_k |C_k| / sigma`.
    pub ks: f64,
    /// `P(sup |W| >= KS)`.
    pub p_ks: f64,
}

/// Draws the cumulative reliability diagram. Non-finite points are left out; the
/// vertical range covers the curve and the band.
pub fn cumulative_differences(c: &Cumulative<'_>) -> String {
    cumulative_differences_sized(W, c)
}

/// [`cumulative_differences`], `w` SVG units wide (the CSS pixels it is shown at; see
/// [`crate::frame`]); the height keeps the default proportions, at least 280.
pub fn cumulative_differences_sized(w: u32, c: &Cumulative<'_>) -> String {
    let w = crate::frame::width(w);
    let h = (w * H / W).max(280);
    let mut svg = String::new();
    let drawn = (|| -> Result<(), String> {
        let finite: Vec<(f64, f64)> = c
            .points
            .iter()
            .filter(|p| p[0].is_finite() && p[1].is_finite())
            .map(|p| (p[0], p[1]))
            .collect();
        let sigma = if c.sigma.is_finite() {
            c.sigma.abs()
        } else {
            0.0
        };
        let reach = finite
            .iter()
            .fold(sigma, |a, p| a.max(p.1.abs()))
            .max(1e-12);
        let pad = reach * 1.1;
        let p_text = if c.p_ks < 1e-6 {
            "p < 1e-6".to_string()
        } else {
            format!("p = {}", display(Some(c.p_ks)))
        };
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        let title = format!(
            "{}KS = {} σ, {p_text}",
            if w < 480 {
                ""
            } else {
                "cumulative differences: "
            },
            display(Some(c.ks))
        );
        let area = titled(&root, 12, &title, DESC).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&area)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..1f64, -pad..pad)
            .map_err(|e| err(&e))?;
        house_mesh(
            chart
                .configure_mesh()
                .x_desc("share of samples, by increasing confidence (k/n)")
                .y_desc("accuracy − confidence, cumulated (C_k)")
                .x_labels(6)
                .y_labels(7)
                .x_label_formatter(&|v| format!("{v:.1}"))
                .y_label_formatter(&|v| display(Some(*v))),
        )
        .draw()
        .map_err(|e| err(&e))?;
        chart
            .draw_series(LineSeries::new([(0.0, 0.0), (1.0, 0.0)], BLACK.mix(0.5)))
            .map_err(|e| err(&e))?;
        for s in [sigma, -sigma] {
            chart
                .draw_series(DashedLineSeries::new(
                    [(0.0, s), (1.0, s)],
                    6,
                    4,
                    GAP.stroke_width(1),
                ))
                .map_err(|e| err(&e))?;
        }
        chart
            .draw_series(LineSeries::new(finite, POINT.stroke_width(2)))
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))
    })();
    match drawn {
        Ok(()) => svg,
        Err(e) => failed(w, h, e),
    }
}
