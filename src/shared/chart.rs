//! The charts of the page, drawn on the main thread (plotters measures text through
//! `window`, which a worker lacks) by `calibscope-charts`, the drawing code the CLI's
//! reports share. The SVG is put into the page as markup; its colours are restyled
//! by CSS for the dark theme.

use crate::proto::Row;
// the drawing helpers and colours, for this module's charts; the public API
#[allow(unused_imports)]
use calibscope_charts::{hex, path, BAR, GAP, MAIN_H, POINT, STRIP, WHISKER};
#[allow(unused_imports)]
pub use calibscope_charts::{BinPx, Drawn, H, W};

/// Draws the reliability diagram of `rows` (non-empty bins) and the strip of bin
/// counts under it.
pub fn reliability(rows: &[Row], x_label: &str) -> Drawn {
    let bins: Vec<calibscope_charts::Bin> = rows
        .iter()
        .map(|r| calibscope_charts::Bin {
            lower: r.lower,
            upper: r.upper,
            conf: r.conf,
            acc: r.acc,
            cp_lower: r.cp_lower,
            cp_upper: r.cp_upper,
            n: r.n,
        })
        .collect();
    calibscope_charts::reliability(&bins, x_label)
}
