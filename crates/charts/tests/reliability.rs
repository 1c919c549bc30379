//! The reliability diagram: a scalable SVG with one path per data series, a
//! position per bin inside the plot, and no panic on empty or broken input.

use calibscope_charts::{reliability, Bin, H, W};

fn bin(lower: f64, upper: f64, acc: f64, n: usize) -> Bin {
    let conf = (lower + upper) / 2.0;
    Bin {
        lower,
        upper,
        conf,
        acc,
        cp_lower: (acc - 0.1).max(0.0),
        cp_upper: (acc + 0.1).min(1.0),
        n,
    }
}

#[test]
fn one_path_per_series_and_a_position_per_bin() {
    let bins: Vec<Bin> = (0..10)
        .map(|i| {
            bin(
                i as f64 / 10.0,
                (i + 1) as f64 / 10.0,
                0.05 + i as f64 / 11.0,
                10 + i,
            )
        })
        .collect();
    let d = reliability(&bins, "confidence");
    assert!(d.svg.starts_with("<svg"));
    assert!(d.svg.contains(&format!("viewBox=\"0 0 {W} {H}\"")));
    // bars, gaps, whiskers, points, strip
    assert_eq!(d.svg.matches("<path d=").count(), 5, "{}", d.svg);
    assert!(d.svg.contains("confidence") && d.svg.contains("accuracy"));
    assert_eq!(d.bins.len(), 10);
    for px in &d.bins {
        assert!(px.x0 < px.x1 && px.x0 >= 0.0 && px.x1 <= W as f64);
        assert!(px.cy >= 0.0 && px.cy <= H as f64);
    }
    // left to right with the confidence, higher on the page with the accuracy
    assert!(d
        .bins
        .windows(2)
        .all(|w| w[0].cx < w[1].cx && w[0].cy > w[1].cy));
}

#[test]
fn empty_and_broken_input_draw_without_panic() {
    let empty = reliability(&[], "confidence");
    assert!(empty.svg.contains("<svg") && empty.bins.is_empty());
    let nan = reliability(&[bin(f64::NAN, 2.0, f64::NAN, 0)], "x");
    assert!(nan.svg.contains("</svg>"));
}
