//! What every chart shares: text sizes, the drawing width, the legend.
//!
//! Charts are drawn at the width they are shown at (the page measures its card and
//! passes the width in CSS pixels), so one SVG unit is one CSS pixel and a text of
//! [`TICK`] units is [`TICK`] pixels on a phone as on a desktop. Reports and exports
//! draw at each chart's default width.
//!
//! Colours: every series carries a class (`cs-bar`, `cs-point`, `cs-gap`,
//! `cs-whisker`, `cs-strip`, `cs-halo`) beside its light-theme colour, and the page's
//! stylesheet gives each class its colour in either theme (style/app.css).

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::{
    Color, DrawingArea, DrawingAreaErrorKind, DrawingBackend, IntoFont, TextStyle, BLACK,
    TRANSPARENT,
};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::RGBColor;
use std::fmt::Write;

/// Tick labels and legend text, in CSS pixels.
pub const TICK: f64 = 13.0;
/// Axis titles, in CSS pixels.
pub const DESC: f64 = 14.0;
/// The narrowest and widest drawing, in SVG units: a phone's card is ~330 px.
pub const MIN_W: u32 = 280;
pub const MAX_W: u32 = 1800;

/// The size to give plotters for a text of `px` CSS pixels (its SVG backend writes
/// `font-size` as the size divided by 1.24).
pub fn pt(px: f64) -> f64 {
    px * 1.24
}

/// The chart area of `area` inside a margin of `margin` units, under `title` drawn
/// centred at the top in a text of `px` CSS pixels: what plotters'
/// `ChartBuilder::margin(margin).caption(title, …)` lays out, without measuring the
/// text. In a browser plotters measures text with a styled `<span>`, which the
/// page's Content Security Policy forbids; the title's height here is plotters' own
/// estimate elsewhere (`em = size / 1.24²`, height `round(em) + round(0.24 em)`), so
/// the page, the CLI and reports draw the same SVG.
pub fn titled<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    margin: i32,
    title: &str,
    px: f64,
) -> Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    let inner = area.margin(margin, margin, margin, margin);
    // whole pixels, as plotters takes the size of a `(family, size)` text style
    let size = pt(px).trunc();
    let em = size / 1.24 / 1.24;
    let text_h = em.round() as i32 + (em * 0.24).round() as i32;
    let pad = (text_h / 2).min(5);
    let (w, _) = inner.dim_in_pixel();
    let style =
        TextStyle::from(("sans-serif", size).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    inner.draw_text(title, &style, (w as i32 / 2, pad))?;
    Ok(inner.split_vertically(pad * 2 + text_h).1)
}

/// `w` kept within [`MIN_W`, `MAX_W`].
pub fn width(w: u32) -> u32 {
    w.clamp(MIN_W, MAX_W)
}

/// Escapes text for SVG markup.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The width a text of `n` characters takes at `size` pixels in a sans-serif font
/// (a generous average, so labels laid out by it do not overlap).
pub fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.58
}

/// How a legend entry is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Swatch {
    /// A filled square of a class and colour.
    Fill(&'static str, RGBColor),
    /// A line of a class and colour; dashed when `true`.
    Line(&'static str, RGBColor, bool),
    /// A dot of a class and colour.
    Dot(&'static str, RGBColor),
    /// No mark: a note in the legend.
    None,
}

/// One entry of a legend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Item<'a> {
    pub swatch: Swatch,
    pub label: &'a str,
}

/// Height of one legend row.
pub const ROW: f64 = 20.0;

/// The markup of a legend laid out in rows from `(x0, y0)` (top left) within
/// `max_w` units, and the height it takes (`0` with no items). Entries flow left to
/// right and wrap; an entry wider than the row gets a row of its own.
pub fn legend(items: &[Item], x0: f64, y0: f64, max_w: f64) -> (String, f64) {
    if items.is_empty() {
        return (String::new(), 0.0);
    }
    let mut s = String::from("<g class=\"cs-legend\">");
    let (mut x, mut row) = (x0, 0usize);
    for it in items {
        let need = 22.0 + text_width(it.label, TICK) + 16.0;
        if x > x0 && x + need > x0 + max_w {
            x = x0;
            row += 1;
        }
        let cy = y0 + ROW * row as f64 + ROW / 2.0;
        let _ = match it.swatch {
            Swatch::Fill(class, c) => write!(
                s,
                "<rect class=\"{class}\" x=\"{x}\" y=\"{}\" width=\"16\" height=\"12\" fill=\"{}\"/>",
                cy - 6.0,
                crate::hex(c)
            ),
            Swatch::Line(class, c, dashed) => write!(
                s,
                "<path class=\"{class}\" d=\"M{x} {cy}h16\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>",
                crate::hex(c),
                if dashed { " stroke-dasharray=\"5 3\"" } else { "" }
            ),
            Swatch::Dot(class, c) => write!(
                s,
                "<circle class=\"{class}\" cx=\"{}\" cy=\"{cy}\" r=\"5\" fill=\"{}\"/>",
                x + 8.0,
                crate::hex(c)
            ),
            Swatch::None => Ok(()),
        };
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" font-family=\"sans-serif\" font-size=\"{TICK}\" fill=\"#000000\">{}</text>",
            x + 22.0,
            cy + TICK * 0.35,
            esc(it.label)
        );
        x += need;
    }
    s.push_str("</g>");
    (s, ROW * (row + 1) as f64 + 4.0)
}

/// The number of legend rows `items` take within `max_w` (the layout of
/// [`legend`]), so a chart can reserve their height before drawing.
pub fn legend_height(items: &[Item], max_w: f64) -> f64 {
    legend(items, 0.0, 0.0, max_w).1
}

/// A text of [`TICK`] pixels at `(x, y)` (baseline), anchored `anchor`.
pub fn text(out: &mut String, x: f64, y: f64, anchor: &str, s: &str) {
    let _ = write!(
        out,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" font-family=\"sans-serif\" font-size=\"{TICK}\" fill=\"#000000\">{}</text>",
        esc(s)
    );
}

/// Every chart's mesh in the house style: faint major grid lines, no minor ones, axis
/// titles of [`DESC`] and tick labels of [`TICK`] pixels.
pub fn house_mesh<'m, 'a, 'b, X, Y, XT, YT, DB>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
    DB: DrawingBackend,
{
    mesh.bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .axis_desc_style(("sans-serif", pt(DESC)))
        .label_style(("sans-serif", pt(TICK)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::palette::BAR;

    #[test]
    fn legends_wrap_within_their_width() {
        let items = [
            Item {
                swatch: Swatch::Fill("cs-bar", BAR),
                label: "accuracy per bin",
            },
            Item {
                swatch: Swatch::Line("cs-gap", BAR, false),
                label: "gap to the diagonal",
            },
        ];
        assert_eq!(legend_height(&items, 1000.0), ROW + 4.0);
        assert_eq!(legend_height(&items, 200.0), 2.0 * ROW + 4.0);
        assert_eq!(legend_height(&[], 200.0), 0.0);
        let (s, _) = legend(&items, 0.0, 0.0, 200.0);
        assert_eq!(s.matches("<text").count(), 2);
        assert!(s.contains("font-size=\"13\""));
    }
}
