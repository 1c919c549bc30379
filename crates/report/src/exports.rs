//! The record's tables as CSV files and its charts as SVG files (`calibscope audit
//! --csv DIR --svg DIR`). Numbers are written at full precision (as JSON writes
//! them); undefined values are empty cells.

use crate::{charts, REPORT_M};
use calibscope_audit::flips_summary::{self, MatrixCells};
use calibscope_audit::summary::{self, lookup, model_names, Cell, Table};
use serde_json::Value;

/// A file to write: its name (safe on every system) and its text.
pub type File = (String, String);

use calibscope_audit::csv;

fn value(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => csv::label(s),
        v => v.to_string(),
    }
}

/// A file-name piece of a model name: letters, digits, `-`, `_` and `.` kept.
fn safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A summary table as CSV: wide (one value per column) when every column holds at
/// most one number (a column without a number gives its text), else long
/// (`row,path,value`).
fn table_csv(doc: &Value, t: &Table) -> String {
    let numbers = |c: &[Cell]| c.iter().filter(|c| c.path().is_some()).count();
    let wide = t
        .lines
        .iter()
        .all(|l| l.columns.iter().all(|c| numbers(c) <= 1));
    let mut out = String::new();
    if wide {
        let header: Vec<String> = t.headers.iter().map(|h| csv::label(h)).collect();
        out.push_str(&(header.join(",") + "\n"));
    } else {
        out.push_str(&format!("{},path,value\n", csv::label(&t.headers[0])));
    }
    for line in &t.lines {
        if wide {
            out.push_str(&csv::label(&line.label));
            for column in &line.columns {
                let cell = match column.iter().find_map(Cell::path) {
                    Some(path) => value(lookup(doc, path)),
                    None => csv::label(&column.iter().map(|c| c.show(doc)).collect::<String>()),
                };
                out.push_str(&format!(",{cell}"));
            }
            out.push('\n');
            continue;
        }
        for path in line.columns.iter().flatten().filter_map(Cell::path) {
            let v = value(lookup(doc, path));
            let p = csv::label(&path.join("."));
            out.push_str(&format!("{},{p},{v}\n", csv::label(&line.label)));
        }
    }
    out
}

/// The ranking-flips section's tables (`tables.flips`): the ranking at m against the
/// reference, and per ranked metric its Spearman and flips matrices over the bin
/// counts.
fn flips_files(record: &Value, out: &mut Vec<File>) {
    let section = &record["tables"]["flips"];
    if !section.is_object() {
        return;
    }
    if let Ok(t) = flips_summary::ranking(section) {
        out.push(("flips_ranking.csv".into(), table_csv(record, &t)));
    }
    for metric in flips_summary::matrix_metrics(section) {
        for (kind, cells) in [
            ("spearman", MatrixCells::Spearman),
            ("flips", MatrixCells::Flips),
        ] {
            if let Ok(t) = flips_summary::matrix(section, metric, cells) {
                out.push((
                    format!("flips_{kind}_{}.csv", safe(metric)),
                    table_csv(record, &t),
                ));
            }
        }
    }
}

/// Reliability rows (JSON) as CSV, every field.
fn rows_csv(rows: &Value) -> String {
    const ORDER: [&str; 12] = [
        "bin",
        "lower_edge",
        "upper_edge",
        "u_min",
        "u_max",
        "n",
        "conf",
        "acc",
        "gap",
        "successes",
        "cp_lower",
        "cp_upper",
    ];
    let rows: Vec<&Value> = rows.as_array().into_iter().flatten().collect();
    let keys: Vec<&str> = ORDER
        .into_iter()
        .filter(|k| rows.iter().any(|r| r.get(*k).is_some()))
        .collect();
    let mut out = keys.join(",") + "\n";
    for r in rows {
        let cells: Vec<String> = keys.iter().map(|k| value(&r[*k])).collect();
        out.push_str(&(cells.join(",") + "\n"));
    }
    out
}

/// `reliability_<reading>_<binning>_<m>.csv` of every table under `tree`
/// (`{reading: {binning_m: rows}}`).
fn reliability_files(tree: &Value, stem: &str, out: &mut Vec<File>) {
    for (reading, tables) in tree.as_object().into_iter().flatten() {
        for (key, rows) in tables.as_object().into_iter().flatten() {
            out.push((
                format!("{stem}reliability_{}_{}.csv", safe(reading), safe(key)),
                rows_csv(rows),
            ));
        }
    }
}

/// Every number of a document as `path,value` (the complete audit, flat).
fn numbers_csv(doc: &Value) -> String {
    fn walk(path: &str, v: &Value, out: &mut String) {
        let join = |k: &str| {
            if path.is_empty() {
                k.to_string()
            } else {
                format!("{path}.{k}")
            }
        };
        match v {
            Value::Object(o) => o.iter().for_each(|(k, v)| walk(&join(k), v, out)),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, v)| walk(&join(&i.to_string()), v, out)),
            Value::Number(_) | Value::Null => {
                out.push_str(&format!("{},{}\n", csv::label(path), value(v)));
            }
            _ => {}
        }
    }
    let mut out = String::from("path,value\n");
    walk("", doc, &mut out);
    out
}

/// The groups of a document under `prefix` as CSV (none without groups): one row
/// per group with its value of each grouping column, n, whether it is too small for
/// a statement, accuracy, ECE at the groups' m and binning, smooth ECE, CSR, P_risk
/// and its verdict's kind (empty cells for what the audit did not compute).
fn groups_csv(doc: &Value, prefix: &[&str]) -> Option<String> {
    let segments = |path: &str| -> Vec<String> {
        prefix
            .iter()
            .map(|s| s.to_string())
            .chain(path.split('.').map(String::from))
            .collect()
    };
    let g = lookup(doc, &segments("groups"));
    let values = g["values"].as_array()?;
    let s = &g["settings"];
    let mut header: Vec<String> = g["columns"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| csv::label(c.as_str().unwrap_or("")))
        .collect();
    let ece = format!("ece_{}_{}", s["binning"].as_str().unwrap_or(""), s["m"]);
    header.extend(
        [
            "n",
            "too_small",
            "accuracy",
            &ece,
            "smece",
            "csr",
            "p_risk",
            "verdict",
        ]
        .map(String::from),
    );
    let mut out = header.join(",") + "\n";
    for v in values {
        let mut cells: Vec<String> = v["values"]
            .as_array()
            .into_iter()
            .flatten()
            .map(value)
            .collect();
        for key in ["n", "too_small", "accuracy", "ece"] {
            cells.push(value(&v[key]));
        }
        cells.push(value(&v["audit"]["binning_free"]["smece"]));
        for key in ["csr", "p_risk"] {
            cells.push(value(&v[key]));
        }
        cells.push(value(&v["audit"]["verdict"]["kind"]));
        out.push_str(&(cells.join(",") + "\n"));
    }
    Some(out)
}

/// The per-group files of the document's groups under `prefix`: `groups.csv` and
/// each group's reliability rows from the record's tables, named `stem` first.
fn group_files(doc: &Value, tables: &Value, prefix: &[&str], stem: &str, out: &mut Vec<File>) {
    let Some(text) = groups_csv(doc, prefix) else {
        return;
    };
    out.push((format!("{stem}groups.csv"), text));
    let mut path: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
    path.extend(["groups".to_string(), "values".to_string()]);
    let names = lookup(doc, &path);
    for (i, g) in lookup(tables, &path)
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = names[i]["group"].as_str().unwrap_or("");
        reliability_files(
            &g["reliability"],
            &format!("{stem}group{i}_{}_", safe(name)),
            out,
        );
    }
}

/// Every table of a record as CSV files.
pub fn csv_files(record: &Value) -> Vec<File> {
    let mut out = Vec::new();
    let tables = &record["tables"];
    let audits: Vec<&Value> = record["audits"].as_array().into_iter().flatten().collect();
    for (i, doc) in audits.iter().enumerate() {
        let stem = if audits.len() > 1 {
            format!("audit{i}_")
        } else {
            String::new()
        };
        if doc["input_error"] == Value::Bool(true) {
            continue;
        }
        out.push((format!("{stem}numbers.csv"), numbers_csv(doc)));
        if doc.get("models").is_some() {
            out.push((
                format!("{stem}models.csv"),
                table_csv(doc, &summary::models(doc, REPORT_M)),
            ));
            for (j, name) in model_names(doc).iter().enumerate() {
                let model = format!("{stem}model{j}_{}_", safe(name));
                reliability_files(&tables["models"][name]["reliability"], &model, &mut out);
                group_files(doc, tables, &["models", name.as_str()], &model, &mut out);
            }
            flips_files(record, &mut out);
            continue;
        }
        out.push((
            format!("{stem}overview.csv"),
            table_csv(doc, &summary::overview(doc, REPORT_M)),
        ));
        reliability_files(&doc["reliability"], &stem, &mut out);
        reliability_files(&tables["reliability"], &stem, &mut out);
        if doc.get("recalibration").is_some() {
            out.push((
                format!("{stem}recalibration.csv"),
                table_csv(doc, &summary::recalibration(doc, &[])),
            ));
        }
        group_files(doc, tables, &[], &stem, &mut out);
    }
    out
}

/// The report's charts as SVG files.
pub fn svg_files(record: &Value) -> Vec<File> {
    let tables = &record["tables"];
    let mut out = Vec::new();
    let one_model = tables.get("reliability").is_some();
    if one_model {
        for (binning, svg) in charts(tables, &[]) {
            out.push((
                format!("reliability_confidence_{binning}_{REPORT_M}.svg"),
                svg,
            ));
        }
        for (kind, svg) in crate::binning_free::charts(tables, &[]) {
            out.push((format!("{kind}_confidence.svg"), svg));
        }
        for doc in record["audits"].as_array().into_iter().flatten() {
            group_svgs(doc, tables, &[], "", &mut out);
        }
    }
    let docs = record["audits"].as_array().into_iter().flatten();
    for doc in docs.filter(|d| d.get("models").is_some()) {
        for (j, name) in model_names(doc).iter().enumerate() {
            for (binning, svg) in charts(tables, &["models", name.as_str()]) {
                out.push((
                    format!(
                        "model{j}_{}_reliability_confidence_{binning}_{REPORT_M}.svg",
                        safe(name)
                    ),
                    svg,
                ));
            }
            for (kind, svg) in crate::binning_free::charts(tables, &["models", name.as_str()]) {
                out.push((
                    format!("model{j}_{}_{kind}_confidence.svg", safe(name)),
                    svg,
                ));
            }
            let stem = format!("model{j}_{}_", safe(name));
            group_svgs(doc, tables, &["models", name.as_str()], &stem, &mut out);
        }
    }
    out
}

/// The per-group diagrams of the document's groups under `prefix` as SVG files
/// (`group<i>_<name>_reliability_confidence_<binning>_<m>.svg`, `stem` first).
fn group_svgs(doc: &Value, tables: &Value, prefix: &[&str], stem: &str, out: &mut Vec<File>) {
    let mut path: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
    path.push("groups".into());
    let g = lookup(doc, &path);
    let key = format!(
        "{}_{}",
        g["settings"]["binning"].as_str().unwrap_or(""),
        g["settings"]["m"]
    );
    for (i, svg) in crate::groups::charts(doc, tables, prefix) {
        let name = g["values"][i]["group"].as_str().unwrap_or("");
        out.push((
            format!(
                "{stem}group{i}_{}_reliability_confidence_{key}.svg",
                safe(name)
            ),
            svg,
        ));
    }
}
