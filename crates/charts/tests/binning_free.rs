//! The binning-free diagrams: the smooth reliability diagram states σ* and smECE and
//! draws its curve, the diagonal and the density band; the cumulative-differences
//! plot draws its curve and the ±σ band and states KS and p. Both stay valid drawings
//! on empty or broken input. Snapshots pin the whole SVG (`INSTA_UPDATE=always` to
//! accept a deliberate change).

use calibscope_charts::cumulative::{cumulative_differences, Cumulative};
use calibscope_charts::hex;
use calibscope_charts::palette::{GAP, POINT, STRIP};
use calibscope_charts::smooth::{smooth_reliability, SmoothCurve};

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

fn has_colour(svg: &str, c: calibscope_charts::RGBColor) -> bool {
    svg.to_lowercase().contains(&hex(c).to_lowercase())
}

fn curve() -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let t: Vec<f64> = (0..=200).map(|i| i as f64 / 200.0).collect();
    let y = t.iter().map(|&x| x * x).collect();
    let d = t
        .iter()
        .map(|&x| 50.0 * (-(x - 0.8f64).powi(2) / 0.02).exp() + 1e-4)
        .collect();
    (t, y, d)
}

#[test]
fn the_smooth_diagram_states_its_bandwidth() {
    let (t, y, d) = curve();
    let svg = smooth_reliability(
        &SmoothCurve {
            t: &t,
            mean_outcome: &y,
            density: &d,
            sigma: 0.0625,
            smece: 0.1234,
        },
        "confidence",
    );
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(
        svg.contains("σ* = 0.0625") && svg.contains("smooth ECE 0.1234"),
        "{svg}"
    );
    assert!(has_colour(&svg, POINT) && has_colour(&svg, STRIP));
    assert_eq!(count(&svg, "<polygon"), 1, "the density band");
    assert!(!svg.contains("NaN") && !svg.contains("could not be drawn"));
    insta::assert_snapshot!("smooth_reliability", svg);
}

#[test]
fn the_cumulative_plot_draws_its_band() {
    let n = 400;
    let points: Vec<[f64; 2]> = (0..=n)
        .map(|k| {
            let x = k as f64 / n as f64;
            [x, -0.03 * x * x]
        })
        .collect();
    let svg = cumulative_differences(&Cumulative {
        points: &points,
        sigma: 0.01,
        ks: 3.0,
        p_ks: 0.0054,
    });
    assert!(svg.contains("KS = 3 σ, p = 0.0054"), "{svg}");
    assert!(has_colour(&svg, GAP) && has_colour(&svg, POINT));
    assert!(!svg.contains("NaN") && !svg.contains("could not be drawn"));
    insta::assert_snapshot!("cumulative_differences", svg);
    let tiny = cumulative_differences(&Cumulative {
        points: &points,
        sigma: 0.01,
        ks: 9.0,
        p_ks: 1e-9,
    });
    // the text is escaped in the SVG
    assert!(tiny.contains("p &lt; 1e-6"), "{tiny}");
}

#[test]
fn both_survive_empty_and_broken_input() {
    let nan = [f64::NAN, 0.5];
    let svg = smooth_reliability(
        &SmoothCurve {
            t: &nan,
            mean_outcome: &nan,
            density: &nan,
            sigma: f64::NAN,
            smece: f64::NAN,
        },
        "confidence",
    );
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(!svg.contains("could not be drawn"));
    let svg = smooth_reliability(&SmoothCurve::default(), "x");
    assert!(svg.starts_with("<svg") && !svg.contains("could not be drawn"));
    for points in [vec![], vec![[f64::NAN, 1.0], [0.5, f64::INFINITY]]] {
        let svg = cumulative_differences(&Cumulative {
            points: &points,
            sigma: f64::NAN,
            ks: f64::NAN,
            p_ks: f64::NAN,
        });
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{svg}"
        );
        assert!(!svg.contains("could not be drawn"), "{svg}");
    }
}
