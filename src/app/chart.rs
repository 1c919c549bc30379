//! The reliability diagram, drawn with plotters' SVG backend on the main thread
//! (plotters measures text through `window`, which a worker lacks). The SVG is put
//! into the page as markup; its colours are restyled by CSS for the dark theme.

use calibscope_app::proto::Row;
use plotters::prelude::*;

/// Size of the drawing in SVG user units (the page scales it).
pub const W: u32 = 640;
pub const H: u32 = 500;
const MAIN_H: u32 = 390;

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

const BAR: RGBColor = RGBColor(0x4c, 0x78, 0xa8);
const POINT: RGBColor = RGBColor(0x1f, 0x4e, 0x79);
const WHISKER: RGBColor = RGBColor(0x33, 0x33, 0x33);
const GAP: RGBColor = RGBColor(0xd6, 0x27, 0x28);
const STRIP: RGBColor = RGBColor(0x72, 0x9e, 0xce);

/// Draws the reliability diagram of `rows` (non-empty bins) and the strip of bin
/// counts under it.
pub fn reliability(rows: &[Row], x_label: &str) -> Drawn {
    let mut svg = String::new();
    let bins = match draw(&mut svg, rows, x_label) {
        Ok(b) => b,
        Err(e) => {
            return Drawn {
                svg: format!(
                    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {W} {H}'><text x='20' y='40'>the chart could not be drawn: {}</text></svg>",
                    e.replace('<', "&lt;")
                ),
                bins: Vec::new(),
            }
        }
    };
    Drawn { svg, bins }
}

fn draw(svg: &mut String, rows: &[Row], x_label: &str) -> Result<Vec<BinPx>, String> {
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
    let span = |r: &Row| {
        let (mut lo, mut hi) = (r.lower.clamp(0.0, 1.0), r.upper.clamp(0.0, 1.0));
        if hi - lo < min_w {
            let mid = (lo + hi) / 2.0;
            lo = (mid - min_w / 2.0).max(0.0);
            hi = (lo + min_w).min(1.0);
        }
        (lo, hi)
    };
    chart
        .draw_series(rows.iter().map(|r| {
            let (lo, hi) = span(r);
            Rectangle::new([(lo, 0.0), (hi, r.acc)], BAR.mix(0.35).filled())
        }))
        .map_err(|e| err(&e))?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.0, 0.0), (1.0, 1.0)],
            BLACK.mix(0.6).stroke_width(1),
        )))
        .map_err(|e| err(&e))?;
    // gap from the diagonal, Clopper–Pearson whisker, and the point
    chart
        .draw_series(rows.iter().map(|r| {
            PathElement::new(vec![(r.conf, r.conf), (r.conf, r.acc)], GAP.stroke_width(2))
        }))
        .map_err(|e| err(&e))?;
    // whisker caps only while bins are wide enough to show them (past 200 bins they
    // are a few pixels over a crowded chart, and two more SVG elements per bin)
    let cap = 0.006;
    let caps = rows.len() <= 200;
    chart
        .draw_series(rows.iter().flat_map(|r| {
            let whisker = PathElement::new(
                vec![(r.conf, r.cp_lower), (r.conf, r.cp_upper)],
                WHISKER.stroke_width(1),
            );
            let caps = caps.then(|| {
                [
                    PathElement::new(
                        vec![(r.conf - cap, r.cp_lower), (r.conf + cap, r.cp_lower)],
                        WHISKER.stroke_width(1),
                    ),
                    PathElement::new(
                        vec![(r.conf - cap, r.cp_upper), (r.conf + cap, r.cp_upper)],
                        WHISKER.stroke_width(1),
                    ),
                ]
            });
            std::iter::once(whisker).chain(caps.into_iter().flatten())
        }))
        .map_err(|e| err(&e))?;
    let radius = if rows.len() > 200 { 2 } else { 4 };
    chart
        .draw_series(
            rows.iter()
                .map(|r| Circle::new((r.conf, r.acc), radius, POINT.filled())),
        )
        .map_err(|e| err(&e))?;
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
    strip
        .draw_series(rows.iter().map(|r| {
            let (lo, hi) = span(r);
            Rectangle::new([(lo, 0.0), (hi, r.n as f64)], STRIP.filled())
        }))
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(bins)
}
