//! A Markdown summary of an audit document (the CLI's default output and
//! `--markdown`): read from the `calibscope-audit/1` JSON, so it shows exactly the
//! numbers of the JSON.

use crate::flips_summary as flips;
use crate::summary::{self, fmt, Cell, Line, Table};
use calibscope_charts::numfmt;
use calibscope_core::binning::Binning;
use serde_json::Value;
use std::fmt::Write;

/// One Markdown table row: the label, then each column's cells as text.
fn row(out: &mut String, doc: &Value, line: &Line) {
    let _ = write!(out, "| {} |", line.label.replace('|', "\\|"));
    for column in &line.columns {
        let _ = write!(out, " {} |", text(doc, column));
    }
    out.push('\n');
}

/// Cells as text, their numbers read from `doc`.
fn text(doc: &Value, cells: &[Cell]) -> String {
    cells.iter().map(|c| c.show(doc)).collect()
}

fn table(out: &mut String, doc: &Value, t: &Table) {
    let _ = writeln!(
        out,
        "| {} |\n|{}",
        t.headers.join(" | "),
        "---|".repeat(t.headers.len())
    );
    for line in &t.lines {
        row(out, doc, line);
    }
}

/// The summary of an audit, input-error or multi-model document.
pub fn markdown(doc: &Value, m: usize, binning: Binning) -> String {
    let mut out = String::new();
    let file = doc["file"].as_str().unwrap_or("input");
    if doc["input_error"] == Value::Bool(true) {
        let _ = writeln!(out, "# {file}: the input cannot be audited\n");
        for e in doc["errors"].as_array().into_iter().flatten() {
            let _ = writeln!(out, "- {}", e["message"].as_str().unwrap_or("error"));
        }
        if let Some(more) = doc["more_errors"].as_u64().filter(|&m| m > 0) {
            let _ = writeln!(out, "- … and {more} more");
        }
        return out;
    }
    if doc.get("models").is_some() {
        return multi(doc, m, file);
    }
    let input = &doc["input"];
    let _ = writeln!(
        out,
        "# Calibration audit of {file}\n\n{} input ({}), n = {}, k = {}\n",
        input["kind"].as_str().unwrap_or(""),
        input["source"].as_str().unwrap_or(""),
        input["n"],
        input["k"]
    );
    if let Some(why) = input["classwise_unavailable"].as_str() {
        let _ = writeln!(out, "{why}\n");
    }
    if let Some(m) = crate::multilabel::sentence(input, |_, v| v.to_string(), str::to_string) {
        let _ = writeln!(out, "{m}\n");
    }
    if let Some(coverage) = doc["coverage"].as_f64() {
        let n = |k: &str| numfmt::count(doc[k].as_u64().unwrap_or(0));
        let _ = writeln!(
            out,
            "Coverage: answered {} of {} questions ({}); the audit is of the answered ones. Area under the risk–coverage curve (AURC): {}\n",
            n("answered"),
            n("total"),
            numfmt::percent(Some(coverage)),
            fmt(&doc["risk_coverage"]["area"])
        );
    }
    verdicts(&mut out, doc);
    table(&mut out, doc, &summary::overview(doc, m));
    if summary::overconfident(doc) {
        let _ = writeln!(
            out,
            "\n**Overconfidence risk**: P_risk > 0.95 — the wrong answers carry more confidence than a calibrated model's would."
        );
    }
    let path = format!("reliability.confidence.{}_10", binning.name());
    let t = summary::reliability(doc, &[], &path, binning);
    let _ = writeln!(out, "\n## {}\n", t.title);
    table(&mut out, doc, &t);
    if doc.get("recalibration").is_some() {
        recalibration(&mut out, doc);
    }
    groups(&mut out, doc, &[]);
    out
}

fn recalibration(out: &mut String, recal_doc: &Value) {
    let recal = &recal_doc["recalibration"];
    let split = &recal["split"];
    let _ = writeln!(
        out,
        "\n## Recalibration (fit on {} calibration rows, measured on {} evaluation rows; seed {}, f = {})\n",
        split["n_cal"], split["n_eval"], split["seed"], split["f"]
    );
    let tau = &recal["temperature"]["tau"];
    if !tau.is_null() {
        let _ = writeln!(
            out,
            "τ = {} — {}\n",
            fmt(tau),
            recal["temperature"]["verdict"].as_str().unwrap_or("")
        );
    }
    table(out, recal_doc, &summary::recalibration(recal_doc, &[]));
    // why a map's column reads "undefined" (one line when both maps share a reason)
    let why = |key: &str| recal[key]["undefined"].as_str();
    match (why("platt"), why("isotonic")) {
        (Some(a), Some(b)) if a == b => {
            let _ = writeln!(out, "\nPlatt and isotonic are undefined: {a}.");
        }
        (a, b) => {
            for (name, reason) in [("Platt", a), ("Isotonic", b)] {
                if let Some(reason) = reason {
                    let _ = writeln!(out, "\n{name} is undefined: {reason}.");
                }
            }
        }
    }
    if let Some(best) = summary::recalibration_best(recal_doc, &[]) {
        let _ = writeln!(out, "\n{}\n", best.title);
        table(out, recal_doc, &best);
    }
    for w in recal["warnings"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "\n**Warning**: {}", w.as_str().unwrap_or(""));
    }
}

fn multi(doc: &Value, m: usize, file: &str) -> String {
    let mut out = String::new();
    let input = &doc["input"];
    let _ = writeln!(
        out,
        "# Calibration audit of {file}: {} models on the same {} samples\n",
        input["models"].as_array().map_or(0, Vec::len),
        input["n"]
    );
    if let Some(m) = crate::multilabel::sentence(input, |_, v| v.to_string(), str::to_string) {
        let _ = writeln!(out, "{m}\n");
    }
    verdicts(&mut out, doc);
    table(&mut out, doc, &summary::models(doc, m));
    for (name, model) in doc["models"].as_object().into_iter().flatten() {
        if model.get("groups").is_some() {
            let _ = writeln!(out, "\n## {name}");
            groups(&mut out, doc, &["models", name.as_str()]);
        }
    }
    out
}

/// The per-group section (none without groups): its table and sentences.
fn groups(out: &mut String, doc: &Value, prefix: &[&str]) {
    let Some(t) = crate::groups::table(doc, prefix) else {
        return;
    };
    let _ = writeln!(out, "\n## {}\n", t.title);
    table(out, doc, &t);
    out.push('\n');
    for sentence in crate::groups::statements(doc, prefix) {
        let _ = writeln!(out, "{}", text(doc, &sentence));
    }
}

/// The verdict sentence of each model (METRICS.md §8.7), first, when the document
/// holds the binning-free section.
fn verdicts(out: &mut String, doc: &Value) {
    if let Some(text) = doc["verdict"]["text"].as_str() {
        let _ = writeln!(
            out,
            "**{text}**
"
        );
    }
    for (name, model) in doc["models"].as_object().into_iter().flatten() {
        if let Some(text) = model["verdict"]["text"].as_str() {
            let _ = writeln!(out, "- {name}: **{text}**");
        }
    }
    if doc["models"]
        .as_object()
        .is_some_and(|m| m.values().any(|v| v["verdict"].is_object()))
    {
        out.push('\n');
    }
}

/// The summary of a record (`calibscope-record/1`): its audit's summary, then for
/// two or more models the ranking-flips section (`tables.flips`): the ranking at m
/// against the reference and the number of flips.
pub fn record_markdown(record: &Value, m: usize, binning: Binning) -> String {
    let mut out = markdown(&record["audits"][0], m, binning);
    let section = &record["tables"]["flips"];
    if section.is_object() {
        let _ = writeln!(
            out,
            "\n## Ranking flips\n\n{}.\n",
            text(record, &flips::settings_cells(section))
        );
        match flips::ranking(section) {
            Err(why) => {
                let _ = writeln!(out, "No ranking: {why}.");
            }
            Ok(t) => {
                let _ = writeln!(out, "{}\n", text(record, &flips::ranking_sentence(section)));
                table(&mut out, record, &t);
                let (_, pairs) = flips::flip_pairs(section);
                let pairs: Vec<String> = pairs.iter().map(|(a, b)| format!("{a} ↔ {b}")).collect();
                if !pairs.is_empty() {
                    let _ = writeln!(out, "\nPairs whose order reversed: {}.", pairs.join(", "));
                }
            }
        }
    }
    out
}
