//! The ranking-flips curves draw one path per model in its palette colour (and none
//! for a model without a defined value), place every bin count on the x axis for the
//! page's markers, export those markers into the SVG, and stay a valid drawing on
//! empty, constant or non-positive input. The snapshots pin the whole SVG.

use calibscope_charts::flips::{curves, with_markers, YScale, H, H_RHO, W};
use calibscope_charts::hex;
use calibscope_charts::palette::{model, MODELS};

/// Three models over `m = 1..=m_max`: rising, falling, and one undefined at m = 3.
fn three(m_max: usize) -> Vec<Vec<Option<f64>>> {
    (0..3)
        .map(|i| {
            (1..=m_max)
                .map(|m| {
                    let x = (m as f64).ln();
                    match i {
                        0 => Some(0.02 + 0.01 * x),
                        1 => Some(0.08 - 0.008 * x),
                        _ => (m != 3).then_some(0.05 + 0.002 * x * x),
                    }
                })
                .collect()
        })
        .collect()
}

fn fmt(v: f64) -> String {
    format!("{v:.3}")
}

fn paths(svg: &str) -> Vec<&str> {
    svg.lines().filter(|l| l.contains("data-model=")).collect()
}

#[test]
fn every_model_gets_its_path_in_its_colour() {
    let lines = three(50);
    let drawn = curves(50, &lines, "ECE", YScale::Log, H, &fmt);
    assert!(drawn.svg.starts_with("<svg") && drawn.svg.trim_end().ends_with("</svg>"));
    assert!(drawn.svg.contains(&format!("viewBox=\"0 0 {W} {H}\"")));
    let p = paths(&drawn.svg);
    assert_eq!(p.len(), lines.len(), "one path per model: {p:?}");
    for (i, line) in p.iter().enumerate() {
        assert!(line.contains(&format!("data-model=\"{i}\"")), "{line}");
        assert!(
            line.contains(&format!("stroke=\"{}\"", hex(model(i)))),
            "{line}"
        );
    }
    assert!(drawn.svg.contains("bins m (log scale)") && drawn.svg.contains("ECE"));
    assert!(!drawn.svg.contains("NaN") && !drawn.svg.contains("could not be drawn"));
    // every m has an x, left to right, inside the drawing; the plot area is inside it
    assert_eq!(drawn.x_of_m.len(), 50);
    assert!(drawn.x_of_m.windows(2).all(|w| w[0] <= w[1]));
    assert!(drawn.x_of_m[0] > 0.0 && drawn.x_of_m[49] < W as f64);
    assert!(0.0 < drawn.y_top && drawn.y_top < drawn.y_bottom && drawn.y_bottom < H as f64);
    assert_eq!(drawn.h, H);
}

#[test]
fn models_past_ten_reuse_the_palette() {
    assert_eq!(model(10), MODELS[0]);
    let lines: Vec<Vec<Option<f64>>> = (0..12)
        .map(|i| (1..=20).map(|m| Some(0.01 * (i + m) as f64)).collect())
        .collect();
    let drawn = curves(20, &lines, "ECE", YScale::Linear, H, &fmt);
    let p = paths(&drawn.svg);
    assert_eq!(p.len(), 12);
    assert!(p[11].contains(&hex(MODELS[1])));
}

#[test]
fn a_model_without_values_draws_no_path_and_gaps_are_skipped() {
    let lines = vec![
        vec![Some(0.1), None, Some(0.3), Some(f64::NAN), Some(0.2)],
        vec![None; 5],
    ];
    let drawn = curves(5, &lines, "ECE", YScale::Linear, H, &fmt);
    let p = paths(&drawn.svg);
    assert_eq!(p.len(), 1, "{p:?}");
    // the three defined points, four per column
    let d = p[0]
        .split("d=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(d.matches('M').count(), 1);
    assert_eq!(d.matches('L').count(), 11);
    assert!(!drawn.svg.contains("NaN"));
}

#[test]
fn degenerate_input_still_draws() {
    for (m_max, lines, scale) in [
        (0, vec![], YScale::Log),
        (1, vec![vec![Some(0.5)]], YScale::Log),
        (
            4,
            vec![vec![Some(0.0), Some(-0.1), None, Some(0.2)]],
            YScale::Log,
        ),
        (4, vec![vec![Some(0.3); 4]], YScale::Linear),
        (3, vec![vec![Some(2.0); 3]], YScale::Fixed(-1.05, 1.05)),
    ] {
        let drawn = curves(m_max, &lines, "Spearman", scale, H_RHO, &fmt);
        assert!(drawn.svg.starts_with("<svg"), "{m_max} {lines:?}");
        assert!(!drawn.svg.contains("NaN") && !drawn.svg.contains("inf"));
        assert!(!drawn.svg.contains("could not be drawn"), "{}", drawn.svg);
        assert_eq!(drawn.x_of_m.len(), m_max);
        assert_eq!(drawn.h, H_RHO);
    }
}

#[test]
fn markers_are_drawn_into_the_export() {
    let drawn = curves(50, &three(50), "ECE", YScale::Log, H, &fmt);
    let svg = with_markers(&drawn, 15, 5).unwrap();
    assert!(svg.trim_end().ends_with("</svg>"));
    let marks: Vec<&str> = svg.matches("<line x1=").collect();
    assert_eq!(marks.len(), 2);
    assert_eq!(svg.matches("stroke-dasharray=\"5 4\"").count(), 1);
    let x15 = drawn.x_of_m[14];
    assert!(svg.contains(&format!("<line x1=\"{x15}\" x2=\"{x15}\"")));
    // a bin count outside the curve has no marker
    let svg = with_markers(&drawn, 0, 51).unwrap();
    assert_eq!(svg, drawn.svg);
}

#[test]
fn snapshots() {
    let lines = three(30);
    insta::assert_snapshot!(
        "flips_log",
        curves(30, &lines, "ECE", YScale::Log, H, &fmt).svg
    );
    let rho = vec![(1..=30)
        .map(|m| Some(1.0 - 0.05 * m as f64))
        .collect::<Vec<_>>()];
    let drawn = curves(
        30,
        &rho,
        "Spearman vs error",
        YScale::Fixed(-1.05, 1.05),
        H_RHO,
        &fmt,
    );
    insta::assert_snapshot!("flips_rho_marked", with_markers(&drawn, 10, 2).unwrap());
}
