//! The one palette of calibscope's charts (light theme). The web app's CSS maps each
//! colour to its dark-theme counterpart by its hex value, so a chart keeps its
//! meaning in both themes; a new colour needs a rule there too (style/app.css).
//! Two exceptions: the models' colours ([`MODELS`]) stay as they are in both themes,
//! and the small hand-written charts carry a class ([`Ink`]) instead of a colour.

use plotters::style::RGBColor;

/// The bars of the reliability diagram (each bin's accuracy) and its count strip:
/// 3.8:1 against white (WCAG AA for graphics; the dark theme's is set by the page's
/// stylesheet through the class `cs-bar`).
pub const BAR: RGBColor = RGBColor(0x5b, 0x86, 0xb8);
/// The reliability diagram's dots, 4:1 against [`BAR`] and 15:1 against white.
pub const DOT: RGBColor = RGBColor(0x0b, 0x25, 0x45);
/// Data points and the main curve of a chart (a bin's `(conf, acc)`, the τ curve).
pub const POINT: RGBColor = RGBColor(0x1f, 0x4e, 0x79);
/// Clopper–Pearson whiskers.
pub const WHISKER: RGBColor = RGBColor(0x33, 0x33, 0x33);
/// Gaps from the diagonal, and the chosen value on a curve (the fitted τ).
pub const GAP: RGBColor = RGBColor(0xd6, 0x27, 0x28);
/// The strip of bin counts (the bars' colour).
pub const STRIP: RGBColor = BAR;
/// One colour per series when a chart draws several (cycled): the fitted maps' classes.
pub const SERIES: [RGBColor; 5] = [
    POINT,
    GAP,
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
];
/// One colour per model in the ranking-flips curves and their legend (Tableau 10),
/// cycled past ten models; the same in both themes (each stands for a model, not a
/// meaning, and all ten read on both backgrounds).
pub const MODELS: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];

/// The colour of model `i` ([`MODELS`], cycled).
pub fn model(i: usize) -> RGBColor {
    MODELS[i % MODELS.len()]
}

/// The inks of the small hand-written charts ([`crate::small`]): a class on each
/// series, whose colour the stylesheet takes from the theme's variables
/// (style/app.css: `.lab-chart .series.a` etc.), so these charts follow the theme
/// without a colour in their markup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ink {
    /// The accent colour (`--accent`): the main series.
    A,
    /// The risk colour (`--risk`): the series compared against it.
    B,
    /// The "ok" colour (`--ok`): a third series.
    C,
}

impl Ink {
    /// The series' CSS class.
    pub fn class(self) -> &'static str {
        match self {
            Ink::A => "a",
            Ink::B => "b",
            Ink::C => "c",
        }
    }
}
