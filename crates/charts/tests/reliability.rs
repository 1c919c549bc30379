//! The reliability diagram: one path per data series (each with its class, coloured
//! by the page's stylesheet in either theme), a position per bin inside the plot, a
//! legend and a labelled diagonal, a count strip whose smallest bins stay visible,
//! bars only when the bins are too narrow for dots, and no panic on empty or broken
//! input.

use calibscope_charts::{reliability, reliability_with, Bin, CountScale, Options, W};

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

fn bins(m: usize, n: impl Fn(usize) -> usize) -> Vec<Bin> {
    (0..m)
        .map(|i| {
            bin(
                i as f64 / m as f64,
                (i + 1) as f64 / m as f64,
                0.05 + 0.9 * i as f64 / m as f64,
                n(i),
            )
        })
        .collect()
}

/// The classes of the data layer's paths (`<path d="…" class="…"`), in order.
fn series(svg: &str) -> Vec<String> {
    svg.split("<path d=\"")
        .skip(1)
        .filter_map(|p| {
            let tag = &p[..p.find("/>")?];
            let at = tag.find("class=\"")? + 7;
            Some(tag[at..at + tag[at..].find('"')?].to_string())
        })
        .collect()
}

/// The height of the strip's bar at x `x` (the strip's path is a skyline: `V` after
/// `M x base` or `H x`).
fn strip_path(svg: &str) -> String {
    let at = svg.find("class=\"cs-strip\"").unwrap();
    let start = svg[..at].rfind("<path d=\"").unwrap() + 9;
    svg[start..start + svg[start..].find('"').unwrap()].to_string()
}

#[test]
fn one_path_per_series_and_a_position_per_bin() {
    let rows = bins(10, |i| 10 + i);
    let d = reliability(&rows, "confidence");
    assert!(d.svg.starts_with("<svg"));
    assert_eq!(d.w, W);
    assert!(d.svg.contains(&format!("viewBox=\"0 0 {W} {}\"", d.h)));
    assert_eq!(
        series(&d.svg),
        [
            "cs-bar",
            "cs-halo",
            "cs-gap",
            "cs-whisker",
            "cs-point",
            "cs-strip"
        ],
        "{}",
        d.svg
    );
    assert!(d.svg.contains("confidence") && d.svg.contains("accuracy"));
    // a legend, and the diagonal says what it is
    for entry in [
        "accuracy of the bin",
        "mean confidence, accuracy",
        "gap to the diagonal",
        "95% interval",
    ] {
        assert!(d.svg.contains(entry), "{entry}");
    }
    assert_eq!(d.svg.matches(">perfect calibration</text>").count(), 2);
    assert_eq!(d.bins.len(), 10);
    assert!(d.y_top < d.y_bottom && d.y_bottom < d.h as f64);
    for px in &d.bins {
        assert!(px.x0 < px.x1 && px.x0 >= 0.0 && px.x1 <= W as f64);
        assert!(px.cy >= d.y_top && px.cy <= d.y_bottom);
    }
    // left to right with the confidence, higher on the page with the accuracy
    assert!(d
        .bins
        .windows(2)
        .all(|w| w[0].cx < w[1].cx && w[0].cy > w[1].cy));
}

#[test]
fn drawn_at_the_width_it_is_shown_at_with_readable_text() {
    let rows = bins(15, |i| 1 + 30 * i);
    for width in [200, 330, 390, 640, 1300, 5000] {
        let d = reliability_with(
            &rows,
            &Options {
                width,
                ..Options::default()
            },
        );
        let w = width.clamp(280, 1800);
        assert_eq!(d.w, w);
        assert!(d.svg.contains(&format!("viewBox=\"0 0 {w} {}\"", d.h)));
        // every text 11 px or more: units are CSS pixels at this width
        for size in d.svg.split("font-size=\"").skip(1) {
            let v: f64 = size[..size.find('"').unwrap()].parse().unwrap();
            assert!(v >= 11.0, "font-size {v} at width {width}");
        }
        assert!(d.bins.iter().all(|b| b.x1 <= w as f64));
    }
}

#[test]
fn a_class_reading_says_frequency_not_accuracy() {
    let d = reliability_with(
        &bins(5, |_| 10),
        &Options {
            y_label: "frequency of the class",
            x_label: "class cat probability",
            ..Options::default()
        },
    );
    assert!(d.svg.contains("frequency of the class") && d.svg.contains("class cat probability"));
    assert!(!d.svg.contains("accuracy"), "{}", d.svg);
    assert!(d.svg.contains(">frequency of the class in the bin</text>"));
}

#[test]
fn the_log_count_strip_keeps_one_sample_bins_visible() {
    // bins of 1..4 samples beside bins of 400
    let rows = bins(12, |i| if i < 4 { i + 1 } else { 400 });
    let heights = |counts| {
        let d = reliability_with(
            &rows,
            &Options {
                counts,
                ..Options::default()
            },
        );
        // the skyline's tops: each `V` after a horizontal move, relative to the base
        let p = strip_path(&d.svg);
        let base: f64 = p[1..].split(['V', ' ']).nth(1).unwrap().parse().unwrap();
        let tops: Vec<f64> = p
            .split('V')
            .skip(1)
            .map(|t| t.split(['H', 'Z']).next().unwrap().parse::<f64>().unwrap())
            .filter(|&t| t < base)
            .map(|t| base - t)
            .collect();
        (d.svg, tops)
    };
    let (log_svg, log) = heights(CountScale::Log);
    let (_, linear) = heights(CountScale::Linear);
    let smallest = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(smallest(&log) >= 5.0, "log strip: {log:?}");
    assert!(
        smallest(&linear) < 1.0 || linear.len() < log.len(),
        "{linear:?}"
    );
    assert!(log_svg.contains("samples (log)"));
    // automatic: log when the counts differ more than 20-fold
    let (auto_svg, _) = heights(CountScale::Auto);
    assert!(auto_svg.contains("samples (log)"));
    let even = reliability(&bins(5, |_| 50), "confidence");
    assert!(even.svg.contains(">samples<"));
}

#[test]
fn many_bins_draw_bars_without_dots() {
    let rows = bins(450, |i| 1 + i % 7);
    let d = reliability_with(
        &rows,
        &Options {
            width: 1300,
            ..Options::default()
        },
    );
    assert_eq!(series(&d.svg), ["cs-bar", "cs-strip"]);
    assert!(d.svg.contains("450 bins: dots and whiskers left out"));
    assert_eq!(d.bins.len(), 450, "hover still finds every bin");
    // 40 bins on a wide card keep them
    let d = reliability_with(
        &bins(40, |_| 9),
        &Options {
            width: 1300,
            ..Options::default()
        },
    );
    assert!(series(&d.svg).contains(&"cs-point".to_string()));
}

#[test]
fn empty_and_broken_input_draw_without_panic() {
    let empty = reliability(&[], "confidence");
    assert!(empty.svg.contains("<svg") && empty.bins.is_empty());
    let nan = reliability(&[bin(f64::NAN, 2.0, f64::NAN, 0)], "x");
    assert!(nan.svg.contains("</svg>"));
}
