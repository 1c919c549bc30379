//! The small charts of the labs: every series is drawn with its legend entry and
//! class, non-finite points are skipped, log axes place their ticks, the histogram
//! draws a bar per count, and text is escaped. The snapshots pin the whole SVG.

use calibscope_charts::palette::Ink;
use calibscope_charts::small::{histogram, histogram_sized, lines, lines_sized, Axis, Series};

fn roc() -> Vec<Series<'static>> {
    let pts = |k: f64| -> Vec<(f64, f64)> {
        (0..=10)
            .map(|i| {
                let x = i as f64 / 10.0;
                (x, x.powf(k))
            })
            .collect()
    };
    vec![
        Series {
            ink: Ink::A,
            dotted: false,
            legend: "ROC",
            points: pts(0.5),
        },
        Series {
            ink: Ink::B,
            dotted: false,
            legend: "cwROC",
            points: pts(0.3),
        },
    ]
}

fn roc_svg(series: &[Series]) -> String {
    lines(
        series,
        Axis::UNIT,
        Axis::UNIT,
        ("false-positive rate (class 1)", "true-positive rate"),
        (&[0.0, 0.5, 1.0], &[0.0, 0.5, 1.0]),
    )
}

/// The path data of every series line (not the legend swatches, `h18`).
fn series_paths(svg: &str) -> Vec<(String, String)> {
    svg.split("<path class='series ")
        .skip(1)
        .filter_map(|rest| {
            let (class, rest) = rest.split_once("' d='")?;
            let d = rest.split('\'').next()?;
            (!d.ends_with("h18")).then(|| (class.to_owned(), d.to_owned()))
        })
        .collect()
}

#[test]
fn every_series_has_its_line_class_and_legend() {
    let svg = roc_svg(&roc());
    assert!(svg.starts_with("<svg class='lab-chart'") && svg.ends_with("</svg>"));
    assert!(svg.contains("aria-label='true-positive rate against false-positive rate (class 1)'"));
    let paths = series_paths(&svg);
    assert_eq!(paths.len(), 2, "{paths:?}");
    assert_eq!(paths[0].0, "a");
    assert_eq!(paths[1].0, "b");
    for (_, d) in &paths {
        assert_eq!(d.matches('M').count(), 1);
        assert_eq!(d.matches('L').count(), 10, "{d}");
    }
    assert_eq!(
        svg.matches(" h18'/>").count(),
        2,
        "a legend swatch per series"
    );
    assert!(svg.contains(">ROC</text>") && svg.contains(">cwROC</text>"));
}

#[test]
fn dotted_series_and_log_axes() {
    let n = [10.0, 100.0, 1000.0, 10_000.0];
    let series = [
        Series {
            ink: Ink::A,
            dotted: false,
            legend: "exact",
            points: n.iter().map(|&n| (n, 1.0 / n)).collect(),
        },
        Series {
            ink: Ink::C,
            dotted: true,
            legend: "simulated",
            points: n.iter().map(|&n| (n, 1.1 / n)).collect(),
        },
    ];
    let log = |lo, hi| Axis { lo, hi, log: true };
    let svg = lines(
        &series,
        log(10.0, 10_000.0),
        log(0.0001, 0.1),
        ("n (log scale)", "expected ECE (log scale)"),
        (&n, &[0.001, 0.01]),
    );
    let paths = series_paths(&svg);
    assert_eq!(paths[1].0, "c dots");
    // equally spaced on the log axis: 10 at the left end, 10^4 at the right
    assert!(paths[0].1.starts_with("M48.0 "), "{}", paths[0].1);
    assert!(paths[0].1.contains("L396.0 "), "{}", paths[0].1);
    for t in ["10\u{2009}000", "0.001", "0.01"] {
        assert!(svg.contains(&format!(">{t}</text>")), "{t}");
    }
}

#[test]
fn non_finite_points_are_skipped_and_empty_series_keep_their_legend() {
    let mut series = roc();
    series[0].points[3].1 = f64::NAN;
    series[1].points.clear();
    let svg = roc_svg(&series);
    let paths = series_paths(&svg);
    assert_eq!(paths.len(), 2);
    assert_eq!(paths[0].1.matches('L').count(), 9);
    assert_eq!(paths[1].1, "");
    assert!(!svg.contains("NaN"));
    assert!(svg.contains(">cwROC</text>"));
}

#[test]
fn text_is_escaped() {
    let mut series = roc();
    series[0].legend = "a<b & c's";
    let svg = lines(&series, Axis::UNIT, Axis::UNIT, ("x<1", "y'"), (&[], &[]));
    assert!(svg.contains(">a&lt;b &amp; c&#39;s</text>"));
    assert!(svg.contains("aria-label='y&#39; against x&lt;1'"));
    assert!(histogram(&[1], "p<q").contains("histogram of p&lt;q"));
}

#[test]
fn the_histogram_draws_a_bar_per_count() {
    let counts = [0, 5, 20, 10];
    let svg = histogram(&counts, "confidence c");
    assert_eq!(svg.matches("<rect class='bar'").count(), counts.len());
    assert!(svg.contains("max 20</text>") && svg.contains("histogram of confidence c"));
    // the tallest bar fills the plot height (232), the empty one is flat
    assert!(svg.contains("height='232.0'/>") && svg.contains("height='0.0'/>"));
    let empty = histogram(&[], "confidence c");
    assert_eq!(empty.matches("<rect").count(), 0);
    assert!(empty.contains("max 1</text>") && !empty.contains("NaN"));
}

#[test]
fn drawn_at_the_width_shown() {
    // a phone's card: the drawing is as wide as the card, so its 13 px text stays 13 px
    let svg = lines_sized(
        330,
        &roc(),
        Axis::UNIT,
        Axis::UNIT,
        ("x", "y"),
        (&[0.5], &[0.5]),
    );
    assert!(svg.contains("viewBox='0 0 330 236'"), "{}", &svg[..120]);
    let h = histogram_sized(100, &[1, 2], "c");
    assert!(h.contains("viewBox='0 0 280 220'"), "{}", &h[..120]);
}

#[test]
fn snapshots() {
    insta::assert_snapshot!("roc", roc_svg(&roc()));
    insta::assert_snapshot!(
        "histogram",
        histogram(&[3, 9, 27, 12, 4, 1], "confidence c")
    );
}
