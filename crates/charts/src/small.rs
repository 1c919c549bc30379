//! The small charts of the Learn tour and the labs: line charts (ROC and
//! confidence-weighted ROC, expected ECE against n) and histograms, written as SVG
//! by hand (a few dozen elements, no plotters). They carry classes, not colours
//! (`lab-chart`, `axis`, `tick`, `label`, `series <ink> [dots]`, `bar`): the page's
//! stylesheet colours them from the theme's variables ([`Ink`]) and sets their text
//! at 13 and 14 CSS pixels; drawn at the width they are shown at
//! ([`lines_sized`], [`histogram_sized`]), a unit is a pixel.

use crate::numfmt::display;
use crate::palette::Ink;
use std::fmt::Write;

/// Width and height of the small charts, in SVG units.
pub const CW: f64 = 420.0;
pub const CH: f64 = 300.0;
/// The margin left of and under the plot area (axis labels and ticks).
const PAD: f64 = 48.0;

/// The size of a chart `w` units wide: the default proportions, at least 220 tall.
fn size(w: u32) -> (f64, f64) {
    let w = crate::frame::width(w) as f64;
    (w, (w * CH / CW).max(220.0).round())
}

/// An axis: the range `[lo, hi]` spans the plot area, on a log10 scale when `log`
/// (then `lo` and `hi` must be positive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
}

impl Axis {
    /// A linear axis over `[0, 1]`.
    pub const UNIT: Axis = Axis {
        lo: 0.0,
        hi: 1.0,
        log: false,
    };

    /// The position of `v` along the axis: 0 at `lo`, 1 at `hi`.
    fn t(&self, v: f64) -> f64 {
        let f = |x: f64| if self.log { x.log10() } else { x };
        (f(v) - f(self.lo)) / (f(self.hi) - f(self.lo))
    }
}

/// One line of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series<'a> {
    /// Its colour (a CSS class).
    pub ink: Ink,
    /// Drawn dotted (class `dots`): a simulated or estimated companion of a line.
    pub dotted: bool,
    /// Its name in the legend.
    pub legend: &'a str,
    /// Its points `(x, y)`, joined in order.
    pub points: Vec<(f64, f64)>,
}

impl Series<'_> {
    fn class(&self) -> String {
        if self.dotted {
            format!("{} dots", self.ink.class())
        } else {
            self.ink.class().to_owned()
        }
    }
}

/// Escapes text for SVG markup (`&`, `<`; attributes are single-quoted, so `'` too).
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('\'', "&#39;")
}

/// A line chart of `series` over the axes `x` and `y`, titled by `labels`
/// (`(x label, y label)`, also the chart's aria label "y against x"), with `ticks`
/// (`(x ticks, y ticks)`) labelled on each axis, and a legend of the series in order
/// at the top left. Points with a non-finite coordinate are skipped (the line joins
/// its neighbours); a series with no finite point draws an empty path, so every
/// series keeps its legend entry. Returns SVG markup.
pub fn lines(
    series: &[Series],
    x: Axis,
    y: Axis,
    labels: (&str, &str),
    ticks: (&[f64], &[f64]),
) -> String {
    lines_sized(CW as u32, series, x, y, labels, ticks)
}

/// [`lines`], `w` SVG units wide (the CSS pixels it is shown at; see
/// [`crate::frame`]), the height in the default proportions (at least 220).
pub fn lines_sized(
    w: u32,
    series: &[Series],
    x: Axis,
    y: Axis,
    labels: (&str, &str),
    ticks: (&[f64], &[f64]),
) -> String {
    let (cw, ch) = size(w);
    let px = |v: f64| PAD + x.t(v) * (cw - PAD - 24.0);
    let py = |v: f64| ch - PAD - y.t(v) * (ch - PAD - 10.0);
    let mut s = format!(
        "<svg class='lab-chart' viewBox='0 0 {cw} {ch}' font-family='sans-serif' role='img' aria-label='{}'>",
        esc(&format!("{} against {}", labels.1, labels.0))
    );
    let _ = write!(
        s,
        "<path class='axis' d='M{PAD} 10 V{} H{}'/>",
        ch - PAD,
        cw - 10.0
    );
    for &t in ticks.0 {
        let _ = write!(
            s,
            "<text class='tick' x='{:.1}' y='{}' text-anchor='middle'>{}</text>",
            px(t),
            ch - PAD + 18.0,
            display(Some(t))
        );
    }
    for &t in ticks.1 {
        let _ = write!(
            s,
            "<text class='tick' x='{}' y='{:.1}' text-anchor='end'>{}</text>",
            PAD - 4.0,
            py(t) + 4.0,
            display(Some(t))
        );
    }
    let _ = write!(
        s,
        "<text class='label' x='{}' y='{}' text-anchor='middle'>{}</text>",
        (PAD + cw) / 2.0,
        ch - 6.0,
        esc(labels.0)
    );
    let _ = write!(
        s,
        "<text class='label' x='12' y='{}' text-anchor='middle' transform='rotate(-90 12 {})'>{}</text>",
        ch / 2.0,
        ch / 2.0,
        esc(labels.1)
    );
    for (i, line) in series.iter().enumerate() {
        let class = line.class();
        let d: Vec<String> = line
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .enumerate()
            .map(|(j, p)| {
                format!(
                    "{}{:.1} {:.1}",
                    if j == 0 { "M" } else { "L" },
                    px(p.0),
                    py(p.1)
                )
            })
            .collect();
        let _ = write!(s, "<path class='series {class}' d='{}'/>", d.join(" "));
        let ly = 20.0 + 18.0 * i as f64;
        let _ = write!(
            s,
            "<path class='series {class}' d='M{} {ly} h18'/><text class='tick' x='{}' y='{}'>{}</text>",
            PAD + 10.0,
            PAD + 32.0,
            ly + 4.0,
            esc(line.legend)
        );
    }
    s + "</svg>"
}

/// A histogram of `counts` (equal-width bins over `[0, 1]`, in order), the bars
/// scaled to the largest count (shown as "max N" at the top right), the x axis
/// titled `x_label` and ticked at 0, 0.5 and 1. No counts draws the axes alone;
/// all-zero counts draw zero-height bars.
pub fn histogram(counts: &[u64], x_label: &str) -> String {
    histogram_sized(CW as u32, counts, x_label)
}

/// [`histogram`], `w` SVG units wide (the CSS pixels it is shown at).
pub fn histogram_sized(w: u32, counts: &[u64], x_label: &str) -> String {
    let (cw, ch) = size(w);
    let max = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let w = (cw - PAD - 10.0) / counts.len().max(1) as f64;
    let mut s = format!(
        "<svg class='lab-chart' viewBox='0 0 {cw} {ch}' font-family='sans-serif' role='img' aria-label='histogram of {}'>",
        esc(x_label)
    );
    let _ = write!(
        s,
        "<path class='axis' d='M{PAD} 10 V{} H{}'/>",
        ch - PAD,
        cw - 10.0
    );
    for (i, &c) in counts.iter().enumerate() {
        let h = c as f64 / max * (ch - PAD - 20.0);
        let _ = write!(
            s,
            "<rect class='bar' x='{:.1}' y='{:.1}' width='{:.1}' height='{:.1}'/>",
            PAD + i as f64 * w + 1.0,
            ch - PAD - h,
            (w - 2.0).max(1.0),
            h
        );
    }
    for t in [0.0, 0.5, 1.0] {
        let _ = write!(
            s,
            "<text class='tick' x='{:.1}' y='{}' text-anchor='middle'>{}</text>",
            PAD + t * (cw - PAD - 10.0),
            ch - PAD + 18.0,
            display(Some(t))
        );
    }
    let _ = write!(
        s,
        "<text class='label' x='{}' y='{}' text-anchor='middle'>{}</text><text class='tick' x='{}' y='20' text-anchor='end'>max {}</text></svg>",
        (PAD + cw) / 2.0,
        ch - 6.0,
        esc(x_label),
        cw - 12.0,
        display(Some(max))
    );
    s
}
