//! Windowing of long tables: only the rows in view (plus overscan) are put in the
//! page, between paddings that keep the scroll height of the whole table.

/// Height of one row in CSS pixels, fixed by the stylesheet
/// (`#reliability-table tbody tr { height: 33px }`, a little more than a row's text
/// and padding take, so that every row is this high and the paddings standing for
/// the rows not in the page match them).
pub const ROW_PX: usize = 33;

/// Rows in the page at once: a box of 32rem shows 15 below its header (16 when
/// scrolled to part of a row); the rest is overscan below, so a scroll of a few rows keeps the same window.
/// Each row in the page costs a slider step ~0.1 ms of layout alone at m = 2000
/// (BENCHMARKS.md): 20 rather than 48.
pub const WINDOW_ROWS: usize = 20;

/// Rows a window moves by: windows start at multiples of this.
const STRIDE: usize = 4;

/// The rows `[first, end)` to put in the page for a box scrolled to `scroll_top`
/// pixels over a table of `total` rows. The window starts at the multiple of the
/// stride at or above the first visible row, and never past the last full window; an
/// empty table gives `(0, 0)`; a negative or NaN offset counts as 0.
pub fn row_window(scroll_top: f64, total: usize) -> (usize, usize) {
    let top = if scroll_top.is_finite() {
        scroll_top.max(0.0)
    } else {
        0.0
    };
    let at = (top / ROW_PX as f64) as usize;
    let first = (at / STRIDE * STRIDE).min(total.saturating_sub(WINDOW_ROWS.min(total)));
    (first, (first + WINDOW_ROWS).min(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_holds_the_visible_rows() {
        assert_eq!(row_window(0.0, 0), (0, 0));
        assert_eq!(row_window(0.0, 10), (0, 10));
        assert_eq!(row_window(1e9, 10), (0, 10));
        assert_eq!(row_window(f64::NAN, 100), (0, WINDOW_ROWS));
        assert_eq!(row_window(-5.0, 100), (0, WINDOW_ROWS));
        for total in [1, 47, 48, 49, 100, 1000, 2000] {
            for px in (0..total * ROW_PX).step_by(7) {
                let (first, end) = row_window(px as f64, total);
                let visible_first = px / ROW_PX;
                // 512 px: at most 16 rows of 33 px, 17 when the first is partly
                // scrolled away
                let visible_end = (visible_first + 17).min(total);
                assert!(
                    first <= visible_first.min(total.saturating_sub(1)),
                    "{total} {px}"
                );
                assert!(end >= visible_end, "{total} {px}: {first}..{end}");
                assert!(end - first <= WINDOW_ROWS);
                assert!(first % STRIDE == 0 || first + WINDOW_ROWS == total);
            }
        }
    }
}
