//! The binning-free part of the report (METRICS.md §8): the verdict sentence, the
//! tests, and the smooth and cumulative reliability diagrams drawn from the record's
//! `tables.binning_free` (per model under `tables.models.<name>`). Absent from records
//! written without the bootstrap settings.

use crate::html::{esc, num, Out};
use calibscope_audit::summary::lookup;
use calibscope_charts::cumulative::{cumulative_differences_sized, Cumulative, W as CUMULATIVE_W};
use calibscope_charts::smooth::{smooth_reliability_sized, SmoothCurve, W as SMOOTH_W};
use serde_json::Value;

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|x| x.as_f64().unwrap_or(f64::NAN))
        .collect()
}

fn at<'a>(tables: &'a Value, prefix: &[&str], path: &str) -> &'a Value {
    let mut segments: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
    segments.extend(path.split('.').map(String::from));
    lookup(tables, &segments)
}

/// The smooth and cumulative diagrams (SVG) of the confidence reading under
/// `prefix` in the record's tables: `("smooth", svg)`, `("cumulative", svg)`, each
/// present when its data is; drawn as wide as the report's reliability diagrams
/// ([`crate::REPORT_CHART_W`]).
pub fn charts(tables: &Value, prefix: &[&str]) -> Vec<(&'static str, String)> {
    charts_sized(tables, prefix, Some(crate::REPORT_CHART_W))
}

/// [`charts`] drawn `width` user units wide (the page draws them at their box's
/// width), or at the charts' default width for `None`.
pub fn charts_sized(
    tables: &Value,
    prefix: &[&str],
    width: Option<u32>,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let s = at(tables, prefix, "binning_free.confidence.smooth");
    if s.is_object() {
        let (t, y, d) = (
            floats(&s["t"]),
            floats(&s["mean_outcome"]),
            floats(&s["density"]),
        );
        let curve = SmoothCurve {
            t: &t,
            mean_outcome: &y,
            density: &d,
            sigma: s["sigma"].as_f64().unwrap_or(f64::NAN),
            smece: s["smece"].as_f64().unwrap_or(f64::NAN),
        };
        out.push((
            "smooth",
            smooth_reliability_sized(width.unwrap_or(SMOOTH_W), &curve, "confidence"),
        ));
    }
    let c = at(tables, prefix, "binning_free.confidence.cumulative");
    if c.is_object() {
        let points: Vec<[f64; 2]> = c["points"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                let f = |i: usize| p[i].as_f64().unwrap_or(f64::NAN);
                [f(0), f(1)]
            })
            .collect();
        let f = |k: &str| c[k].as_f64().unwrap_or(f64::NAN);
        out.push((
            "cumulative",
            cumulative_differences_sized(
                width.unwrap_or(CUMULATIVE_W),
                &Cumulative {
                    points: &points,
                    sigma: f("sigma"),
                    ks: f("ks"),
                    p_ks: f("p_ks"),
                },
            ),
        ));
    }
    out
}

/// The verdict, the tests and the two diagrams of one model (`doc_prefix`: its path
/// in the audit document, `table_prefix`: in the record's tables).
pub fn section(
    o: &mut Out,
    doc: &Value,
    doc_prefix: &[&str],
    tables: &Value,
    table_prefix: &[&str],
) {
    let verdict = at(doc, doc_prefix, "verdict");
    let figures = charts(tables, table_prefix);
    if !verdict.is_object() && figures.is_empty() {
        return;
    }
    let h = if table_prefix.is_empty() { "h2" } else { "h3" };
    let path = |p: &str| {
        let mut full: Vec<&str> = doc_prefix.to_vec();
        full.push(p);
        full.join(".")
    };
    o.raw(&format!(
        "<section>\n<{h}>Is the model calibrated, and how sure are we?</{h}>\n"
    ));
    if let Some(text) = verdict["text"].as_str() {
        o.raw(&format!(
            "<p class=\"verdict\" data-metric=\"{}\" data-value=\"{}\"><strong>{}</strong></p>\n",
            esc(&path("verdict.text")),
            esc(&serde_json::to_string(text).unwrap_or_default()),
            esc(text)
        ));
        o.raw(&format!(
            "<p>Confidence minus accuracy d = {} (interval {} to {}), from {} bootstrap replicates.</p>\n",
            num(&path("verdict.d"), &verdict["d"]),
            num(&path("verdict.d_interval.0"), &verdict["d_interval"][0]),
            num(&path("verdict.d_interval.1"), &verdict["d_interval"][1]),
            num("bootstrap.replicates", &doc["bootstrap"]["replicates"]),
        ));
    }
    let tests = at(doc, doc_prefix, "readings.confidence.tests");
    if tests.is_object() {
        let t = |p: &str| {
            num(
                &path(&format!("readings.confidence.tests.{p}")),
                &tests_at(tests, p),
            )
        };
        o.raw(&format!(
            "<p>Tests of calibration on the confidence reading: cumulative differences KS = {} (p = {}); Spiegelhalter z = {} (p = {}); Hosmer–Lemeshow H = {} on {} groups (p = {}).</p>\n",
            t("cumulative.ks"), t("cumulative.p_ks"), t("spiegelhalter.z"), t("spiegelhalter.p"),
            t("hosmer_lemeshow.h"), t("hosmer_lemeshow.groups"), t("hosmer_lemeshow.p"),
        ));
    }
    if !figures.is_empty() {
        o.raw("<div class=\"figures\">\n");
        for (kind, svg) in figures {
            let caption = match kind {
                "smooth" => "Smooth reliability diagram: the mean outcome smoothed with the bandwidth σ* of smooth ECE (no bins), the diagonal of perfect calibration, and the density of the confidences along the bottom (where the band is thin, few samples support the curve)",
                _ => "Cumulative differences: accuracy minus confidence summed over the samples sorted by confidence; a steady slope is miscalibration there, and the dashed lines at ±σ show the size expected from noise alone",
            };
            o.raw(&format!(
                "<figure>\n<figcaption>{caption}</figcaption>\n{svg}\n</figure>\n"
            ));
        }
        o.raw("</div>\n");
    }
    o.raw("</section>\n");
}

fn tests_at(tests: &Value, p: &str) -> Value {
    let mut v = tests;
    for k in p.split('.') {
        v = &v[k];
    }
    v.clone()
}
