//! The recalibration drawings: the τ curve and the fitted maps draw every finite
//! point, mark what they say they mark, take their colours from the palette, and
//! stay a valid drawing on empty or broken input. Snapshots (`tests/snapshots/`)
//! pin the whole SVG, so any change of a drawing is seen in review
//! (`cargo insta review`, or `INSTA_UPDATE=always` to accept).

use calibscope_charts::palette::{GAP, POINT, SERIES};
use calibscope_charts::recal::{fitted_map, tau_curve, H, W};
use calibscope_charts::{hex, reliability, Bin};

/// A calibration-NLL curve with its minimum at `tau = 1.5`.
fn nll_curve() -> Vec<[f64; 2]> {
    (0..=40)
        .map(|i| {
            let tau = 0.05f64 * (400f64).powf(i as f64 / 40.0);
            [tau, 0.3 + 0.05 * (tau.ln() - 1.5f64.ln()).powi(2)]
        })
        .collect()
}

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

#[test]
fn the_tau_curve_marks_the_fitted_tau_and_tau_one() {
    let svg = tau_curve(&nll_curve(), Some(1.5), Some(0.3));
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains(&format!("viewBox=\"0 0 {W} {H}\"")));
    assert_eq!(count(&svg, "<circle"), 1, "one mark, at the fitted tau");
    assert!(svg.to_lowercase().contains(&hex(GAP).to_lowercase()));
    assert!(svg.contains("calibration NLL") && svg.contains("τ (log scale)"));
    assert!(!svg.contains("NaN") && !svg.contains("could not be drawn"));
}

#[test]
fn the_tau_curve_survives_no_points_and_non_finite_values() {
    for points in [
        vec![],
        vec![[1.0, f64::NAN]],
        vec![[0.5, f64::INFINITY], [2.0, 0.4]],
    ] {
        let svg = tau_curve(&points, None, None);
        assert!(svg.starts_with("<svg"), "{points:?}");
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{points:?}");
        assert_eq!(count(&svg, "<circle"), 0);
    }
}

#[test]
fn fitted_maps_draw_each_class_in_its_palette_colour() {
    let curve = |shift: f64| -> Vec<[f64; 2]> {
        (0..=20)
            .map(|i| {
                let x = -4.0 + 8.0 * i as f64 / 20.0;
                [x, 1.0 / (1.0 + (-(x - shift)).exp())]
            })
            .collect()
    };
    let svg = fitted_map("logit", &[(0, curve(0.0)), (1, curve(1.0))], &[]);
    for colour in &SERIES[..2] {
        let h = hex(*colour);
        assert!(
            svg.to_lowercase().contains(&h.to_lowercase()),
            "{h} missing"
        );
    }
    assert_eq!(count(&svg, "<circle"), 0, "no scatter asked");
    let scatter = [[0.1, 0.2], [0.5, 0.4], [0.9, 0.95]];
    let svg = fitted_map("probability", &[(0, curve(0.0))], &scatter);
    assert_eq!(
        count(&svg, "<circle"),
        scatter.len() + 1,
        "a dot per point, one in the legend"
    );
    assert!(svg.contains(">evaluation rows</text>") && svg.contains(">no change</text>"));
    assert!(svg.to_lowercase().contains(&hex(POINT).to_lowercase()));
    assert!(svg.contains("recalibrated probability") && svg.contains("probability"));
}

#[test]
fn fitted_maps_survive_empty_and_degenerate_input() {
    let svg = fitted_map("logit", &[], &[]);
    assert!(svg.starts_with("<svg") && !svg.contains("NaN"));
    let svg = fitted_map("logit", &[(0, vec![[1.0, 0.5]])], &[]);
    assert!(svg.starts_with("<svg") && !svg.contains("NaN"));
}

#[test]
fn snapshots() {
    insta::assert_snapshot!("tau_curve", tau_curve(&nll_curve(), Some(1.5), Some(0.3)));
    let map: Vec<[f64; 2]> = (0..=10)
        .map(|i| {
            let x = i as f64 / 10.0;
            [x, x * x]
        })
        .collect();
    insta::assert_snapshot!(
        "fitted_map",
        fitted_map(
            "probability",
            &[(0, map.clone())],
            &[[0.2, 0.1], [0.7, 0.5]]
        )
    );
    let bins: Vec<Bin> = (0..5)
        .map(|i| {
            let lower = i as f64 / 5.0;
            let acc = 0.1 + 0.18 * i as f64;
            Bin {
                lower,
                upper: lower + 0.2,
                conf: lower + 0.1,
                acc,
                cp_lower: (acc - 0.08).max(0.0),
                cp_upper: (acc + 0.08).min(1.0),
                n: 10 * (i + 1),
            }
        })
        .collect();
    insta::assert_snapshot!("reliability", reliability(&bins, "confidence").svg);
}
