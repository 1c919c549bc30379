//! Path data of many bins drawn as few shapes, the same picture with less markup.
//!
//! At 2000 bins a reliability diagram's series were one subpath per bin (~1,800 bars,
//! gaps, whiskers and points, 195 KB of SVG) that the browser parsed, laid out and
//! painted on every slider step, although the chart is ~560 pixels wide: most bins
//! share their pixel columns. Coordinates are whole SVG units (plotters' backend
//! coordinates), and each series is one `<path>` of one colour, which the browser
//! fills or strokes as the union of its subpaths; so the union can be written
//! directly:
//! - bars standing on a common baseline become their skyline, one polygon per run of
//!   covered columns ([`skyline`]);
//! - vertical strokes at the same `x` whose spans overlap or touch become one stroke
//!   per `x` and span ([`vertical_runs`]);
//! - points drawn twice at the same place are drawn once, as round dots ([`dots`]).

use std::fmt::Write;

/// The path data of the union of the bars `(x0, x1, top)` (columns `x0..x1`, from
/// `top` down to `base`; `top <= base` in SVG coordinates): for each maximal run of
/// covered columns, one polygon along the tallest bar of each column. Bars of no
/// width or no height cover nothing; an empty list gives an empty string.
pub fn skyline(bars: &[(i32, i32, i32)], base: i32) -> String {
    let bars: Vec<(i32, i32, i32)> = bars
        .iter()
        .copied()
        .filter(|&(x0, x1, top)| x1 > x0 && top < base)
        .collect();
    let (Some(lo), Some(hi)) = (
        bars.iter().map(|b| b.0).min(),
        bars.iter().map(|b| b.1).max(),
    ) else {
        return String::new();
    };
    // the top of each column `lo + i` (`base` where no bar covers it)
    let mut tops = vec![base; (hi - lo) as usize];
    for &(x0, x1, top) in &bars {
        for t in &mut tops[(x0 - lo) as usize..(x1 - lo) as usize] {
            *t = (*t).min(top);
        }
    }
    let mut d = String::new();
    let mut run: Option<i32> = None; // the top of the column before, inside a run
    for (i, &top) in tops.iter().enumerate() {
        let x = lo + i as i32;
        match (run, top < base) {
            (None, true) => {
                let _ = write!(d, "M{x} {base}V{top}");
            }
            (Some(prev), true) if prev != top => {
                let _ = write!(d, "H{x}V{top}");
            }
            (Some(_), false) => {
                let _ = write!(d, "H{x}V{base}Z");
            }
            _ => {}
        }
        run = (top < base).then_some(top);
    }
    if run.is_some() {
        let _ = write!(d, "H{hi}V{base}Z");
    }
    d
}

/// The path data of the vertical strokes `(x, y0, y1)`, those at the same `x` whose
/// spans overlap or touch joined into one: `M{x} {top}V{bottom}` each, by `x` then
/// `top`. (Butt-capped strokes of touching spans cover what the joined span covers.)
pub fn vertical_runs(segments: &[(i32, i32, i32)]) -> String {
    let mut spans: Vec<(i32, i32, i32)> = segments
        .iter()
        .map(|&(x, a, b)| (x, a.min(b), a.max(b)))
        .collect();
    // by `x` then `top` (the order the joining needs), on one integer key: the
    // page's size-optimised wasm sorted the tuples through a comparison call each
    // (2.85 ms for the ~3,400 strokes of 2000 bins)
    let key = |v: i32| u64::from(v as u32 ^ 0x8000_0000); // i32 order as u32 order
    spans.sort_unstable_by_key(|&(x, top, _)| key(x) << 32 | key(top));
    let mut d = String::new();
    let mut cur: Option<(i32, i32, i32)> = None;
    for (x, top, bottom) in spans {
        match cur {
            Some((cx, ct, cb)) if cx == x && top <= cb => cur = Some((cx, ct, cb.max(bottom))),
            _ => {
                if let Some((cx, ct, cb)) = cur {
                    let _ = write!(d, "M{cx} {ct}V{cb}");
                }
                cur = Some((x, top, bottom));
            }
        }
    }
    if let Some((cx, ct, cb)) = cur {
        let _ = write!(d, "M{cx} {ct}V{cb}");
    }
    d
}

/// The path data of dots at the points `(cx, cy)`, each place once (in the order
/// first drawn): a zero-length segment `M{cx} {cy}h0` each, which a stroke of width
/// `2r` with round caps paints as a disc of radius `r` (SVG's rule for zero-length
/// subpaths): a quarter of the markup of two arcs a point.
pub fn dots(points: &[(i32, i32)]) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut d = String::new();
    for &(cx, cy) in points {
        if seen.insert((cx, cy)) {
            let _ = write!(d, "M{cx} {cy}h0");
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed polygons of path data made of `M x y`, `H x`, `V y` and `Z`.
    fn polygons(d: &str) -> Vec<Vec<(f64, f64)>> {
        let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
        let mut at = (0.0, 0.0);
        let mut rest = d;
        while let Some(c) = rest.chars().next() {
            let end = rest[1..]
                .find(|ch: char| ch.is_ascii_alphabetic())
                .map_or(rest.len(), |i| i + 1);
            let args: Vec<f64> = rest[1..end]
                .split(' ')
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            match c {
                'M' => {
                    at = (args[0], args[1]);
                    out.push(vec![at]);
                }
                'H' => at.0 = args[0],
                'V' => at.1 = args[0],
                'Z' => {}
                _ => panic!("unexpected {c}"),
            }
            if c == 'H' || c == 'V' {
                out.last_mut().unwrap().push(at);
            }
            rest = &rest[end..];
        }
        out
    }

    /// Even-odd point-in-polygon.
    fn inside(poly: &[(f64, f64)], (x, y): (f64, f64)) -> bool {
        let mut odd = false;
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            if (a.1 > y) != (b.1 > y) && x < a.0 + (y - a.1) / (b.1 - a.1) * (b.0 - a.0) {
                odd = !odd;
            }
        }
        odd
    }

    /// A small deterministic generator (no dependency for tests).
    fn lcg(seed: &mut u64, below: i32) -> i32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 33) % below as u64) as i32
    }

    #[test]
    fn the_skyline_covers_exactly_the_union_of_the_bars() {
        let mut seed = 7;
        for case in 0..200 {
            let base = 60;
            let n = 1 + lcg(&mut seed, 40);
            let bars: Vec<(i32, i32, i32)> = (0..n)
                .map(|_| {
                    let x0 = lcg(&mut seed, 50);
                    (x0, x0 + lcg(&mut seed, 6), base - lcg(&mut seed, 30))
                })
                .collect();
            let polys = polygons(&skyline(&bars, base));
            // whole-unit coordinates: the unit cells' centres decide the union
            for x in -2..60 {
                for y in 0..base + 2 {
                    let p = (x as f64 + 0.5, y as f64 + 0.5);
                    let want = bars
                        .iter()
                        .any(|&(x0, x1, top)| x >= x0 && x < x1 && y >= top && y < base);
                    let got = polys.iter().filter(|q| inside(q, p)).count();
                    assert_eq!(got, usize::from(want), "case {case} at {p:?}: {bars:?}");
                }
            }
        }
        assert_eq!(skyline(&[], 10), "");
        assert_eq!(
            skyline(&[(3, 3, 0), (4, 6, 10)], 10),
            "",
            "no width, no height"
        );
        assert_eq!(skyline(&[(0, 2, 5), (1, 3, 3)], 10), "M0 10V5H1V3H3V10Z");
        assert_eq!(
            skyline(&[(0, 1, 5), (2, 3, 5)], 10),
            "M0 10V5H1V10ZM2 10V5H3V10Z"
        );
    }

    #[test]
    fn vertical_runs_cover_the_union_of_the_strokes() {
        let mut seed = 11;
        for case in 0..200 {
            let n = 1 + lcg(&mut seed, 30);
            let segs: Vec<(i32, i32, i32)> = (0..n)
                .map(|_| (lcg(&mut seed, 5), lcg(&mut seed, 40), lcg(&mut seed, 40)))
                .collect();
            let d = vertical_runs(&segs);
            let runs: Vec<(i32, i32, i32)> = d
                .split('M')
                .skip(1)
                .map(|s| {
                    let (xy, y1) = s.split_once('V').unwrap();
                    let (x, y0) = xy.split_once(' ').unwrap();
                    (x.parse().unwrap(), y0.parse().unwrap(), y1.parse().unwrap())
                })
                .collect();
            for x in 0..5 {
                // the stroked spans (butt caps) at x, sampled at every half unit
                for h in 0..80 {
                    let y = h as f64 / 2.0;
                    let covers = |&(sx, a, b): &(i32, i32, i32)| {
                        sx == x && (a.min(b) as f64) <= y && y <= a.max(b) as f64
                    };
                    assert_eq!(
                        segs.iter().any(covers),
                        runs.iter().any(covers),
                        "case {case}: x {x} y {y}"
                    );
                }
                // joined: the runs at one x neither overlap nor touch
                let mut at: Vec<&(i32, i32, i32)> = runs.iter().filter(|r| r.0 == x).collect();
                at.sort();
                assert!(at.windows(2).all(|w| w[0].2 < w[1].1), "case {case}: {d}");
            }
        }
        assert_eq!(
            vertical_runs(&[(3, 9, 2), (3, 2, 5), (1, 0, 1)]),
            "M1 0V1M3 2V9"
        );
    }

    #[test]
    fn each_dot_is_drawn_once() {
        assert_eq!(dots(&[(10, 20), (12, 20), (10, 20)]), "M10 20h0M12 20h0");
        assert_eq!(dots(&[]), "");
    }
}
