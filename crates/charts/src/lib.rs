//! # calibscope-charts
//!
//! The charts of calibscope as SVG, drawn with plotters' SVG backend: the web app
//! puts them into the page (where its CSS restyles the colours for the dark theme),
//! the CLI into its HTML report and SVG files, so both draw with the same code.
//! Axes, labels and grid come from plotters; each data series is one `<path>`.
//! Every chart takes its colours from [`palette`].
//!
//! - [`reliability()`], [`reliability_with`]: the reliability diagram and its strip of
//!   bin counts (module [`reliability`](mod@reliability));
//! - [`frame`]: text sizes, widths and legends every chart shares (charts are drawn
//!   at the width they are shown at, so their text is [`frame::TICK`] CSS pixels);
//! - [`numfmt`]: the one number formatter (tick labels, the page, reports);
//! - [`recal::tau_curve`], [`recal::fitted_map`]: the recalibration drawings;
//! - [`flips::curves`]: the ranking-flips curves (a metric against the bin count);
//! - [`small::lines`], [`small::histogram`]: the small charts of the Learn tour and
//!   the labs (ROC and confidence-weighted ROC, expected ECE against n, histograms),
//!   hand-written SVG whose colours are CSS classes ([`palette::Ink`]);
//! - [`smooth::smooth_reliability`], [`cumulative::cumulative_differences`]: the
//!   binning-free diagrams (smooth ECE's curve, the cumulative differences).

pub mod cumulative;
pub mod flips;
pub mod frame;
mod merge;
pub mod numfmt;
pub mod palette;
pub mod recal;
pub mod reliability;
pub mod small;
pub mod smooth;

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

/// The default width of the reliability diagram in SVG units (reports and exports;
/// the page draws at its card's width, see [`reliability_with`]).
pub const W: u32 = 640;
/// A height for a drawing whose size is unknown (a fallback for exports; a drawing
/// states its own in [`Drawn::h`]).
pub const H: u32 = 500;

/// Where a bin was drawn, in SVG units, for hover and focus.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinPx {
    pub x0: f64,
    pub x1: f64,
    /// The point `(conf, acc)`.
    pub cx: f64,
    pub cy: f64,
}

/// The drawing, its size and its bins' positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawn {
    pub svg: String,
    pub bins: Vec<BinPx>,
    /// The drawing's size in SVG units (its `viewBox`).
    pub w: u32,
    pub h: u32,
    /// The main plot's top and bottom, in SVG units.
    pub y_top: f64,
    pub y_bottom: f64,
}

pub use palette::{BAR, DOT, GAP, POINT, STRIP, WHISKER};
pub use reliability::{CountScale, Options};

/// Draws the reliability diagram of `rows` (non-empty bins) and the strip of bin
/// counts under it, at the default width [`W`] with the y axis "accuracy" and the
/// count scale chosen by the counts ([`CountScale::Auto`]).
pub fn reliability(rows: &[Bin], x_label: &str) -> Drawn {
    reliability::draw(
        rows,
        &Options {
            x_label,
            ..Options::default()
        },
    )
}

/// Draws the reliability diagram of `rows` as `opt` says (width, axis titles, count
/// scale); see [`reliability::draw`].
pub fn reliability_with(rows: &[Bin], opt: &Options) -> Drawn {
    reliability::draw(rows, opt)
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
