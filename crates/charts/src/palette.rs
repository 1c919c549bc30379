//! The one palette of calibscope's charts (light theme). The web app's CSS maps each
//! colour to its dark-theme counterpart by its hex value, so a chart keeps its
//! meaning in both themes; a new colour needs a rule there too (style/app.css).

use plotters::style::RGBColor;

/// The bars of the reliability diagram (each bin's accuracy).
pub const BAR: RGBColor = RGBColor(0x4c, 0x78, 0xa8);
/// Data points and the main curve of a chart (a bin's `(conf, acc)`, the τ curve).
pub const POINT: RGBColor = RGBColor(0x1f, 0x4e, 0x79);
/// Clopper–Pearson whiskers.
pub const WHISKER: RGBColor = RGBColor(0x33, 0x33, 0x33);
/// Gaps from the diagonal, and the chosen value on a curve (the fitted τ).
pub const GAP: RGBColor = RGBColor(0xd6, 0x27, 0x28);
/// The strip of bin counts.
pub const STRIP: RGBColor = RGBColor(0x72, 0x9e, 0xce);
/// One colour per series when a chart draws several (cycled): the fitted maps' classes.
pub const SERIES: [RGBColor; 5] = [
    POINT,
    GAP,
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
];
