//! The reliability diagram: a bar per non-empty bin (its accuracy over its range), a
//! dot at each bin's (mean confidence, accuracy), the gap from the dot to the
//! diagonal, the Clopper–Pearson whisker beside it, the dashed diagonal labelled
//! "perfect calibration", a legend, and under it the strip of samples per bin
//! (linear or log scale). When the bins are narrower than [`DENSE_PX`] (e.g. 450
//! bins on a 1,300 px card) dots, gaps and whiskers would be a barcode: the diagram
//! keeps the bars and says so in its legend.

use crate::frame::{self, house_mesh, Item, Swatch, TICK};
use crate::merge;
use crate::palette::{BAR, DOT, GAP, STRIP, WHISKER};
use crate::{hex, path, Bin, BinPx, Drawn};
use plotters::prelude::*;
use std::fmt::Write;

/// Below this many SVG units (CSS pixels) per bin the diagram draws bars only.
pub const DENSE_PX: f64 = 8.0;
/// Height of the count strip, in SVG units.
const STRIP_H: f64 = 84.0;
/// Room left of the plot for tick labels and the axis title.
const LEFT: u32 = 60;

/// The scale of the count strip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CountScale {
    Linear,
    /// Log scale, so bins with a few samples stay visible next to full ones.
    Log,
    /// Log when the largest bin holds more than 20 times the smallest, else linear.
    #[default]
    Auto,
}

/// How to draw a reliability diagram.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options<'a> {
    /// The drawing's width in SVG units, the CSS pixels it is shown at (clamped to
    /// [`frame::MIN_W`]..[`frame::MAX_W`]); its height follows.
    pub width: u32,
    /// The x axis title (the reading's forecast).
    pub x_label: &'a str,
    /// The y axis title: "accuracy" for the confidence reading, "frequency of the
    /// class" for a class reading.
    pub y_label: &'a str,
    pub counts: CountScale,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            width: crate::W,
            x_label: "confidence",
            y_label: "accuracy",
            counts: CountScale::Auto,
        }
    }
}

/// The height of the main plot at width `w`: about 0.6 of the width, within
/// 220..=460 units, so a phone keeps a readable plot and a wide card stays on screen.
pub fn main_height(w: u32) -> u32 {
    ((w as f64 * 0.6).round() as u32).clamp(220, 460)
}

/// The legend of a diagram of `dense` bins (bars only) or not, in the words of
/// its y axis (`bar`: the bars' entry, `dot`: the dots').
fn items<'a>(dense: bool, bar: &'a str, dot: &'a str) -> Vec<Item<'a>> {
    let mut v = vec![Item {
        swatch: Swatch::Fill("cs-bar", BAR),
        label: bar,
    }];
    if !dense {
        v.push(Item {
            swatch: Swatch::Dot("cs-point", DOT),
            label: dot,
        });
        v.push(Item {
            swatch: Swatch::Line("cs-gap", GAP, false),
            label: "gap to the diagonal",
        });
        v.push(Item {
            swatch: Swatch::Line("cs-whisker", WHISKER, false),
            label: "95% interval",
        });
    }
    v.push(Item {
        swatch: Swatch::Line("cs-diagonal", RGBColor(0, 0, 0), true),
        label: "perfect calibration",
    });
    v
}

/// Draws the reliability diagram of `rows` (non-empty bins) as `opt` says.
pub fn draw(rows: &[Bin], opt: &Options) -> Drawn {
    let w = frame::width(opt.width);
    let plot_w = (w - LEFT - 18) as f64;
    let dense = !rows.is_empty() && {
        // the typical bin: the median width of the bars in units
        let mut widths: Vec<f64> = rows
            .iter()
            .map(|r| (r.upper - r.lower).clamp(0.0, 1.0) * plot_w)
            .filter(|v| v.is_finite())
            .collect();
        widths.sort_by(f64::total_cmp);
        widths.get(widths.len() / 2).is_none_or(|m| *m < DENSE_PX)
    };
    // "accuracy of the bin" for the confidence reading, else in the y axis' words
    let (bar, dot) = if opt.y_label == "accuracy" {
        (
            "accuracy of the bin".to_string(),
            "mean confidence, accuracy".to_string(),
        )
    } else {
        (
            format!("{} in the bin", opt.y_label),
            format!("mean forecast, {}", opt.y_label),
        )
    };
    let mut legend_items = items(dense, &bar, &dot);
    let note;
    if dense {
        note = format!(
            "{} bins: dots and whiskers left out (fewer bins show them)",
            rows.len()
        );
        legend_items.push(Item {
            swatch: Swatch::None,
            label: &note,
        });
    }
    let legend_h = frame::legend_height(&legend_items, (w - 16) as f64).ceil() as u32;
    let main_h = main_height(w);
    let h = legend_h + 8 + main_h + STRIP_H as u32 + 12;
    let mut svg = String::new();
    let result = plot(&mut svg, rows, opt, (w, h), (legend_h + 8, main_h), dense);
    match result {
        Ok((bins, layer, (y_top, y_bottom))) => {
            let (legend, _) = frame::legend(&legend_items, 10.0, 4.0, (w - 16) as f64);
            let at = svg.rfind("</svg>").unwrap_or(svg.len());
            svg.insert_str(at, &(layer + &legend));
            Drawn {
                svg,
                bins,
                w,
                h,
                y_top,
                y_bottom,
            }
        }
        Err(e) => Drawn {
            svg: crate::failed_svg(w, h, &e),
            w,
            h,
            ..Drawn::default()
        },
    }
}

type Plotted = (Vec<BinPx>, String, (f64, f64));

/// Axes by plotters, series as paths (see `merge`), the count strip by hand.
fn plot(
    svg: &mut String,
    rows: &[Bin],
    opt: &Options,
    (w, h): (u32, u32),
    (top_h, main_h): (u32, u32),
    dense: bool,
) -> Result<Plotted, String> {
    let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
    let root = SVGBackend::with_string(svg, (w, h)).into_drawing_area();
    let (_, rest) = root.split_vertically(top_h);
    let (top, _) = rest.split_vertically(main_h);
    let mut chart = ChartBuilder::on(&top)
        .margin_top(6)
        .margin_right(18)
        .x_label_area_size(44)
        .y_label_area_size(LEFT)
        .build_cartesian_2d(0f64..1f64, 0f64..1f64)
        .map_err(|e| err(&e))?;
    let ticks = if w < 420 { 6 } else { 11 };
    house_mesh(
        chart
            .configure_mesh()
            .x_desc(opt.x_label)
            .y_desc(opt.y_label)
            .x_labels(ticks)
            .y_labels(6)
            .x_label_formatter(&|v| format!("{v:.1}"))
            .y_label_formatter(&|v| format!("{v:.1}")),
    )
    .draw()
    .map_err(|e| err(&e))?;
    let plot_w = chart.plotting_area().get_pixel_range().0;
    // a bar of at least ~2 units so narrow equal-mass bins stay visible
    let min_w = 2.0 / (plot_w.end - plot_w.start).max(1) as f64;
    let span = |r: &Bin| {
        let (mut lo, mut hi) = (r.lower.clamp(0.0, 1.0), r.upper.clamp(0.0, 1.0));
        if hi - lo < min_w {
            let mid = (lo + hi) / 2.0;
            lo = (mid - min_w / 2.0).max(0.0);
            hi = (lo + min_w).min(1.0);
        }
        (lo, hi)
    };
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
        &format!("class=\"cs-bar\" fill=\"{}\" stroke=\"none\"", hex(BAR)),
    );
    // the diagonal, dashed, labelled along itself near the top right
    let ((dx0, dy0), (dx1, dy1)) = (px(0.0, 0.0), px(1.0, 1.0));
    let _ = writeln!(
        layer,
        "<path class=\"cs-diagonal\" d=\"M{dx0} {dy0}L{dx1} {dy1}\" fill=\"none\" stroke=\"#000000\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>"
    );
    let angle = -((dy0 - dy1) as f64).atan2((dx1 - dx0) as f64).to_degrees();
    let (lx, ly) = px(0.30, 0.30);
    let _ = writeln!(
        layer,
        "<text class=\"cs-diagonal-label\" x=\"{lx}\" y=\"{}\" transform=\"rotate({angle:.1} {lx} {ly})\" font-family=\"sans-serif\" font-size=\"{TICK}\" fill=\"#000000\">perfect calibration</text>",
        ly - 6
    );
    if !dense {
        // the gap: from the diagonal to the dot, 4 units left of the dot, over a
        // halo of the background so it reads on a bar; the whisker through the dot
        let at_conf = |from: fn(&Bin) -> f64, to: fn(&Bin) -> f64, dx: i32| {
            rows.iter()
                .map(|r| {
                    let (x, y0) = px(r.conf, from(r));
                    (x + dx, y0, px(r.conf, to(r)).1)
                })
                .collect::<Vec<_>>()
        };
        let gaps = merge::vertical_runs(&at_conf(|r| r.conf, |r| r.acc, -4));
        path(
            &mut layer,
            &gaps,
            "class=\"cs-halo\" fill=\"none\" stroke=\"#FFFFFF\" stroke-width=\"5\"",
        );
        path(
            &mut layer,
            &gaps,
            &format!(
                "class=\"cs-gap\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\"",
                hex(GAP)
            ),
        );
        let whiskers = at_conf(|r| r.cp_lower, |r| r.cp_upper, 0);
        let mut d = merge::vertical_runs(&whiskers);
        for &(x, y0, y1) in &whiskers {
            let _ = write!(d, "M{} {y0}h8M{} {y1}h8", x - 4, x - 4);
        }
        path(
            &mut layer,
            &d,
            &format!(
                "class=\"cs-whisker\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\"",
                hex(WHISKER)
            ),
        );
        let points: Vec<(i32, i32)> = rows.iter().map(|r| px(r.conf, r.acc)).collect();
        path(
            &mut layer,
            &merge::dots(&points),
            &format!(
                "class=\"cs-point\" fill=\"none\" stroke=\"{}\" stroke-width=\"9\" stroke-linecap=\"round\"",
                hex(DOT)
            ),
        );
    }
    let bins: Vec<BinPx> = rows
        .iter()
        .map(|r| {
            let (lo, hi) = span(r);
            let (cx, cy) = px(r.conf, r.acc);
            BinPx {
                x0: px(lo, 0.0).0 as f64,
                x1: px(hi, 0.0).0 as f64,
                cx: cx as f64,
                cy: cy as f64,
            }
        })
        .collect();
    let area = chart.plotting_area().get_pixel_range();
    let y_range = (area.1.start as f64, area.1.end as f64);
    // the count strip under the plot, on the plot's x axis
    let strip_top = (top_h + main_h) as f64 + 8.0;
    let strip_base = strip_top + STRIP_H - 16.0;
    strip(
        &mut layer,
        rows,
        opt.counts,
        (strip_top, strip_base),
        (area.0.start as f64, area.0.end as f64),
        &|lo, hi| (px(lo, 0.0).0, px(hi, 0.0).0),
        &span,
    );
    root.present().map_err(|e| err(&e))?;
    Ok((bins, layer, y_range))
}

/// The strip of samples per bin between `top` and `base`, its axis at `x_left`.
fn strip(
    out: &mut String,
    rows: &[Bin],
    scale: CountScale,
    (top, base): (f64, f64),
    (x_left, x_right): (f64, f64),
    xs: &dyn Fn(f64, f64) -> (i32, i32),
    span: &dyn Fn(&Bin) -> (f64, f64),
) {
    let max_n = rows.iter().map(|r| r.n).max().unwrap_or(1).max(1) as f64;
    let min_n = rows
        .iter()
        .map(|r| r.n)
        .filter(|&n| n > 0)
        .min()
        .unwrap_or(1) as f64;
    let log = match scale {
        CountScale::Log => true,
        CountScale::Linear => false,
        CountScale::Auto => max_n > 20.0 * min_n,
    };
    // log: heights by log10 of the count over [0.5, max]: one sample is ~10% tall
    let hgt = |n: f64| -> f64 {
        let t = if log {
            ((n.max(0.5) / 0.5).log10() / (max_n / 0.5).log10()).max(0.0)
        } else {
            n / max_n
        };
        t * (base - top)
    };
    let bars: Vec<(i32, i32, i32)> = rows
        .iter()
        .map(|r| {
            let (lo, hi) = span(r);
            let (x0, x1) = xs(lo, hi);
            (x0, x1, (base - hgt(r.n as f64)).round() as i32)
        })
        .collect();
    path(
        out,
        &merge::skyline(&bars, base.round() as i32),
        &format!("class=\"cs-strip\" fill=\"{}\" stroke=\"none\"", hex(STRIP)),
    );
    let _ = write!(
        out,
        "<path d=\"M{x_left} {top}V{base}H{x_right}\" fill=\"none\" stroke=\"#000000\" stroke-width=\"1\"/>"
    );
    let mut ticks = vec![if log { 1.0 } else { 0.0 }];
    if log {
        let mut t = 10.0;
        while t < max_n * 0.8 {
            ticks.push(t);
            t *= 10.0;
        }
    }
    ticks.push(max_n);
    // from the top down: the largest count, then each tick with room for its label
    let mut last_y = f64::NEG_INFINITY;
    for t in ticks.into_iter().rev() {
        let y = base - hgt(t);
        if y - last_y < TICK + 2.0 {
            continue;
        }
        let _ = write!(
            out,
            "<path d=\"M{} {y:.1}h5\" stroke=\"#000000\" stroke-width=\"1\"/>",
            x_left - 5.0
        );
        frame::text(
            out,
            x_left - 8.0,
            y + TICK * 0.35,
            "end",
            &crate::numfmt::count(t as u64),
        );
        last_y = y;
    }
    let title = if log { "samples (log)" } else { "samples" };
    frame::text(out, x_left + 6.0, base + TICK + 2.0, "start", title);
}
