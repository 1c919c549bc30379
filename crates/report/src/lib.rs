//! # calibscope-report
//!
//! The self-contained HTML report of a `calibscope-record/1` record: one file with
//! inline CSS, the reliability diagrams as inline SVG (drawn by
//! `calibscope-charts`, as in the app), the summary tables of the Markdown summary
//! (`calibscope_audit::summary`), and the record itself embedded as inert JSON. It
//! needs no script, makes no request (its own Content-Security-Policy forbids every
//! fetch) and escapes every name it shows. Every number carries `data-metric` (its
//! path: in the audit document, or in the record's `tables` for the 15-bin
//! reliability tables) and `data-value` (full precision), as in the app.

pub mod binning_free;
mod exports;
mod flips;
mod groups;
mod html;

pub use exports::{csv_files, svg_files};
/// HTML escaping of text and attribute values (the app's markup built as strings uses it too).
pub use html::esc;

use calibscope_audit::summary::{self, lookup, model_names};
use calibscope_charts::Bin;
use calibscope_core::binning::Binning;
use html::{num, table, Out};
use serde_json::Value;

/// The bin count of the report's diagrams and reliability tables.
pub const REPORT_M: usize = 15;

/// The Content-Security-Policy of every report: nothing may load, styles are inline.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const CSS: &str = include_str!("report.css");

/// The report of a record (`calibscope_audit::Record::to_json`).
pub fn html_report(record: &Value) -> String {
    let empty = Value::Null;
    let audits: Vec<&Value> = record["audits"].as_array().into_iter().flatten().collect();
    let first = audits.first().copied().unwrap_or(&empty);
    let file = first["file"].as_str().unwrap_or("input");
    let title = format!("Calibration audit of {}", base_name(file));
    let mut o = Out::default();
    o.raw(&format!(
        "<!doctype html>\n<html lang=\"en\"{}>\n<head>\n<meta charset=\"utf-8\">\n",
        theme_attribute(record)
    ));
    o.raw(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
    ));
    o.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    o.raw(&format!("<title>{}</title>\n", esc(&title)));
    o.raw(&format!(
        "<style>\n{CSS}</style>\n</head>\n<body>\n<main>\n"
    ));
    o.raw(&format!("<h1>{}</h1>\n", esc(&title)));
    producer(&mut o, record);
    inputs(&mut o, record);
    let tables = &record["tables"];
    for doc in audits {
        if doc["input_error"] == Value::Bool(true) {
            input_errors(&mut o, doc);
        } else if doc.get("models").is_some() {
            multi(&mut o, doc, tables);
        } else {
            single(&mut o, doc, tables, &[]);
        }
    }
    flips::section(&mut o, record);
    settings(&mut o, record);
    o.raw("<section>\n<h2>The record</h2>\n<p>This report carries its audit record inside it: the data files' names, sizes and fingerprints (SHA-256), the settings and every number. Drop the report into calibscope together with the data files, or run <code>calibscope verify</code> on the report and the data files, and every number is recomputed and compared.</p>\n</section>\n");
    o.raw(&format!(
        "<script type=\"application/json\" id=\"{}\">",
        calibscope_audit::RECORD_ELEMENT_ID
    ));
    o.raw(&inert_json(record));
    o.raw("</script>\n</main>\n</body>\n</html>\n");
    o.0
}

/// The `data-theme` attribute of an explicit Light or Dark theme in the record's
/// settings (`settings.theme`); none for System (the reader's system theme).
pub fn theme_attribute(record: &Value) -> &'static str {
    match record["settings"]["theme"].as_str() {
        Some("light") => " data-theme=\"light\"",
        Some("dark") => " data-theme=\"dark\"",
        _ => "",
    }
}

/// JSON that cannot end the `<script>` element it sits in, nor start markup:
/// `<`, `>` and `&` (which only occur inside JSON strings) as `\u003c` etc.
pub fn inert_json(v: &Value) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|_| "null".into())
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// The last component of a path (`/a/b/preds.csv` → `preds.csv`).
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn producer(o: &mut Out, record: &Value) {
    let p = &record["producer"];
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    o.raw(&format!(
        "<p class=\"meta\">Written by {} {} (build {}). Everything below comes from the embedded record; this page runs no script and loads nothing.</p>\n",
        esc(&s(&p["name"])),
        esc(&s(&p["version"])),
        esc(&s(&p["build"]))
    ));
}

fn inputs(o: &mut Out, record: &Value) {
    o.raw("<section>\n<h2>Input files</h2>\n<div class=\"scroll\" tabindex=\"0\">\n<table>\n<thead><tr><th scope=\"col\">file</th><th scope=\"col\">bytes</th><th scope=\"col\">SHA-256</th></tr></thead>\n<tbody>\n");
    for (i, f) in record["inputs"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = f["name"].as_str().unwrap_or("");
        let sha = f["sha256"].as_str().unwrap_or("");
        o.raw(&format!(
            "<tr><th scope=\"row\">{}</th><td>{}</td><td><code data-field=\"inputs.{i}.sha256\">{}</code></td></tr>\n",
            esc(name),
            num(&format!("inputs.{i}.size"), &f["size"]),
            esc(sha)
        ));
    }
    o.raw("</tbody>\n</table>\n</div>\n</section>\n");
}

fn input_errors(o: &mut Out, doc: &Value) {
    o.raw("<section>\n<h2>The input cannot be audited</h2>\n<ul>\n");
    for e in doc["errors"].as_array().into_iter().flatten() {
        let msg = e["message"].as_str().unwrap_or("error");
        o.raw(&format!("<li>{}</li>\n", esc(msg)));
    }
    o.raw("</ul>\n</section>\n");
}

fn single(o: &mut Out, doc: &Value, tables: &Value, prefix: &[&str]) {
    // the answer first: the verdict, its tests and the binning-free diagrams
    binning_free::section(o, doc, &[], tables, prefix);
    let input = &doc["input"];
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    o.raw(&format!(
        "<section>\n<h2>Overview</h2>\n<p>{} input ({}, {}), n = {}, k = {}.</p>\n",
        esc(&s(&input["kind"])),
        esc(&s(&input["source"])),
        esc(&s(&input["format"])),
        num("input.n", &input["n"]),
        num("input.k", &input["k"])
    ));
    multilabel_note(o, input);
    table(o, doc, &summary::overview(doc, REPORT_M));
    if summary::overconfident(doc) {
        o.raw("<p class=\"warning\"><strong>Overconfidence risk</strong>: P_risk &gt; 0.95 — the wrong answers carry more confidence than a calibrated model's would.</p>\n");
    }
    o.raw("</section>\n");
    diagrams(o, tables, prefix);
    if doc.get("recalibration").is_some() {
        let recal = &doc["recalibration"];
        let split = &recal["split"];
        o.raw(&format!(
            "<section>\n<h2>Recalibration</h2>\n<p>Fitted on {} calibration rows, measured on {} evaluation rows (seed {}, f = {}).</p>\n",
            num("recalibration.split.n_cal", &split["n_cal"]),
            num("recalibration.split.n_eval", &split["n_eval"]),
            num("recalibration.split.seed", &split["seed"]),
            num("recalibration.split.f", &split["f"])
        ));
        table(o, doc, &summary::recalibration(doc, &[]));
        if let Some(best) = summary::recalibration_best(doc, &[]) {
            table(o, doc, &best);
        }
        for w in recal["warnings"].as_array().into_iter().flatten() {
            o.raw(&format!(
                "<p class=\"warning\"><strong>Warning</strong>: {}</p>\n",
                esc(w.as_str().unwrap_or(""))
            ));
        }
        o.raw("</section>\n");
    }
    groups::section(o, doc, tables, prefix);
}

/// What a multilabel audit's numbers are (nothing for other inputs).
fn multilabel_note(o: &mut Out, input: &Value) {
    if let Some(m) = calibscope_audit::multilabel::sentence(input, num, esc) {
        o.raw(&format!("<p id=\"multilabel\">{m}</p>\n"));
    }
}

fn multi(o: &mut Out, doc: &Value, tables: &Value) {
    let names = model_names(doc);
    o.raw(&format!(
        "<section>\n<h2>Overview</h2>\n<p>{} models on the same {} samples.</p>\n",
        names.len(),
        num("input.n", &doc["input"]["n"])
    ));
    multilabel_note(o, &doc["input"]);
    table(o, doc, &summary::models(doc, REPORT_M));
    o.raw("</section>\n");
    for name in &names {
        o.raw(&format!("<h2 class=\"model\">Model {}</h2>\n", esc(name)));
        binning_free::section(
            o,
            doc,
            &["models", name.as_str()],
            tables,
            &["models", name.as_str()],
        );
        diagrams(o, tables, &["models", name.as_str()]);
        groups::section(o, doc, tables, &["models", name.as_str()]);
    }
}

/// The path of the reliability rows of one binning, under `prefix` (segments).
fn rows_path(prefix: &[&str], binning: Binning) -> (String, Vec<String>) {
    let path = format!("reliability.confidence.{}_{REPORT_M}", binning.name());
    let mut segments: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
    segments.extend(path.split('.').map(String::from));
    (path, segments)
}

/// The width the report's charts are drawn at, in SVG units.
pub const REPORT_CHART_W: u32 = 400;

/// The reliability diagrams (SVG) of the confidence reading at [`REPORT_M`] bins,
/// equal-width then equal-mass, from the record's tables.
pub fn charts(tables: &Value, prefix: &[&str]) -> Vec<(&'static str, String)> {
    [Binning::Width, Binning::Mass]
        .into_iter()
        .map(|binning| {
            let (_, segments) = rows_path(prefix, binning);
            let bins = bins_of(lookup(tables, &segments), binning);
            // drawn 400 units wide: ~1.1x on a desktop's two-column figures,
            // ~0.85x on a phone, so its 13-unit text stays above 11 CSS px
            let opt = calibscope_charts::Options {
                width: REPORT_CHART_W,
                ..calibscope_charts::Options::default()
            };
            (
                binning.name(),
                calibscope_charts::reliability_with(&bins, &opt).svg,
            )
        })
        .collect()
}

/// The reliability diagrams and tables of the confidence reading at [`REPORT_M`]
/// bins, both binnings, from the record's tables.
fn diagrams(o: &mut Out, tables: &Value, prefix: &[&str]) {
    // under a model's own heading when there are several
    let h = if prefix.is_empty() { "h2" } else { "h3" };
    o.raw(&format!(
        "<section>\n<{h}>Reliability (top-label confidence, {REPORT_M} bins)</{h}>\n<div class=\"figures\">\n"
    ));
    for ((_, svg), title) in charts(tables, prefix)
        .into_iter()
        .zip(["equal-width", "equal-mass"])
    {
        o.raw(&format!(
            "<figure>\n<figcaption>{title} bins: accuracy against confidence, with 95% Clopper–Pearson intervals; the strip counts the samples per bin</figcaption>\n{svg}\n</figure>\n"
        ));
    }
    o.raw("</div>\n");
    for binning in [Binning::Width, Binning::Mass] {
        let (path, _) = rows_path(prefix, binning);
        table(
            o,
            tables,
            &summary::reliability(tables, prefix, &path, binning),
        );
    }
    o.raw("</section>\n");
}

/// The chart's bins from JSON reliability rows.
pub fn bins_of(rows: &Value, binning: Binning) -> Vec<Bin> {
    let (lo, hi) = match binning {
        Binning::Width => ("lower_edge", "upper_edge"),
        Binning::Mass => ("u_min", "u_max"),
    };
    let f = |r: &Value, k: &str| r[k].as_f64().unwrap_or(f64::NAN);
    rows.as_array()
        .into_iter()
        .flatten()
        .map(|r| Bin {
            lower: f(r, lo),
            upper: f(r, hi),
            conf: f(r, "conf"),
            acc: f(r, "acc"),
            cp_lower: f(r, "cp_lower"),
            cp_upper: f(r, "cp_upper"),
            n: r["n"].as_u64().unwrap_or(0) as usize,
        })
        .collect()
}

fn settings(o: &mut Out, record: &Value) {
    let s = &record["settings"];
    let opts = &record["options"];
    o.raw("<section>\n<h2>Settings</h2>\n<dl class=\"settings\">\n");
    let mut item = |k: &str, v: String| {
        o.raw(&format!("<dt>{}</dt><dd>{}</dd>\n", esc(k), esc(&v)));
    };
    item("bin counts of the ECE tables", opts["m_values"].to_string());
    item(
        "recalibration split",
        match &opts["recalibration"] {
            Value::Null => "off".into(),
            r => format!("seed {}, fraction {}", r["seed"], r["fraction"]),
        },
    );
    item(
        "summary binning",
        s["binning"].as_str().unwrap_or("").into(),
    );
    let mapping = &record["mapping"];
    let shown = match mapping.as_object() {
        Some(m) if !m.is_empty() => mapping.to_string(),
        _ => "detected".into(),
    };
    item("column mapping", shown);
    o.raw("</dl>\n</section>\n");
}
