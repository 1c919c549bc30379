//! The report's Ranking flips section and CSV files of a multi-model record (the
//! `multi/` fixtures): every number shown is the record's `tables.flips` value at
//! its path, the ranking is in rank order with its flipped models marked, the CSV
//! files parse back to the record's values; the record's explicit theme is honoured;
//! the report still has no script and its CSP.

use crate::support;

use calibscope_audit::{
    audit_document, flips_summary, record_tables, AuditOptions, FlipsSettings, Producer, Record,
};
use calibscope_report::{csv_files, html_report, CSP};
use calibscope_share::{file_ref, ViewState};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use support::{cell, fields, numbers, shared};

/// The record of `bytes` (named `name`) with its flips section under `settings`.
fn record_of(name: &str, bytes: &[u8], settings: &FlipsSettings) -> Value {
    let ds = calibscope_io::parse_bytes(name, bytes, &Default::default()).unwrap();
    let options = AuditOptions::for_n(ds.n());
    Record {
        contract: calibscope_audit::CONTRACT,
        producer: Producer {
            name: "test".into(),
            version: "0".into(),
            build: "b".into(),
        },
        inputs: vec![file_ref(name, bytes)],
        settings: ViewState::default(),
        options: options.clone(),
        audits: vec![audit_document(&Ok(ds.clone()), name, &options)],
        tables: record_tables(&ds, Some(settings)).unwrap(),
    }
    .to_json()
}

fn zoo() -> Value {
    let name = "digits_zoo_probs.csv";
    let bytes = std::fs::read(shared().join("fixtures/multi").join(name)).unwrap();
    let settings = FlipsSettings {
        metric: "confece".into(),
        binning: "mass".into(),
        m: 5,
        m_ref: 100,
        bins: vec![5, 20, 100],
        temperature_first: false,
    };
    record_of(name, &bytes, &settings)
}

/// The value at a dotted record path (map keys such as `100|5` hold no dots).
fn at<'a>(record: &'a Value, path: &str) -> &'a Value {
    calibscope_audit::summary::lookup(
        record,
        &path.split('.').map(String::from).collect::<Vec<_>>(),
    )
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn the_flips_section_shows_the_records_numbers() {
    let record = zoo();
    let flips = &record["tables"]["flips"];
    assert!(flips.is_object(), "the record has its flips section");
    let html = html_report(&record);
    assert!(html.contains("<h2>Ranking flips</h2>"));
    assert!(html.contains(flips_summary::FLIPS_NOTE));
    // every number of the section is the record's, at its path
    let shown: BTreeMap<String, Value> = numbers(&html)
        .into_iter()
        .filter(|(p, _)| p.starts_with("tables.flips."))
        .collect();
    for (path, got) in &shown {
        assert_eq!(got, at(&record, path), "{path}");
    }
    let names: Vec<&str> = model_names(flips);
    assert_eq!(names.len(), 10);
    for i in 0..names.len() {
        for p in [
            format!("ranking.ranks.5.{i}"),
            format!("ranking.ranks.100.{i}"),
            format!("ranking.values.5.{i}"),
            format!("ranking.values.100.{i}"),
            format!("ranking.rank_change.{i}"),
            format!("error.{i}"),
        ] {
            assert!(
                shown.contains_key(&format!("tables.flips.{p}")),
                "{p} shown"
            );
        }
    }
    let (_, _, _, _, bins) = flips_summary::settings(flips);
    for metric in flips["matrices"].as_object().unwrap().keys() {
        for a in 0..bins.len() {
            for c in 0..bins.len() {
                for kind in ["spearman", "flips"] {
                    let p = format!("tables.flips.matrices.{metric}.{kind}.{a}.{c}");
                    assert!(shown.contains_key(&p), "{p} shown");
                }
            }
            let p = format!(
                "tables.flips.matrices.{metric}.spearman_vs_error.{}",
                bins[a]
            );
            assert!(shown.contains_key(&p), "{p} shown");
        }
    }
    for p in [
        "settings.m",
        "settings.m_ref",
        "settings.bins.2",
        "ranking.flips.0.1",
        "ranking.spearman.0.1",
        "ranking.spearman_vs_error.5",
    ] {
        assert!(
            shown.contains_key(&format!("tables.flips.{p}")),
            "{p} shown"
        );
    }
    // the ranking table lists the models by their rank at m
    let ranking = &html[html.find("<caption>Ranking at m = 5").unwrap()..];
    let ranking = &ranking[..ranking.find("</table>").unwrap()];
    let rows: Vec<&str> = ranking.split("<th scope=\"row\">").skip(1).collect();
    let ranks: Vec<f64> = rows
        .iter()
        .map(|row| {
            let name = &row[..row.find('<').unwrap()];
            let i = names.iter().position(|n| *n == name).unwrap();
            f(&flips["ranking"]["ranks"]["5"][i])
        })
        .collect();
    assert_eq!(rows.len(), names.len());
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
    // the flipped models' rows carry the class, the pairs are listed
    let pairs = flips["ranking"]["flip_pairs"]["100|5"].as_array().unwrap();
    let flips_count = f(&flips["ranking"]["flips"][0][1]) as usize;
    assert_eq!(pairs.len(), flips_count);
    assert!(
        flips_count > 0,
        "ConfECE flips between 5 and 100 bins on this zoo"
    );
    let mut flipped: Vec<&str> = pairs
        .iter()
        .flat_map(|p| p.as_array().unwrap())
        .map(|v| v.as_str().unwrap())
        .collect();
    flipped.sort();
    flipped.dedup();
    assert_eq!(
        ranking.matches("<tr class=\"flipped\">").count(),
        flipped.len()
    );
    assert_eq!(html.matches("<li class=\"flipped\"").count(), flips_count);
    for (j, pair) in pairs.iter().enumerate() {
        assert_eq!(
            &shown[&format!("tables.flips.ranking.flip_pairs.100|5.{j}")],
            pair
        );
    }
    // still no executable script, and its CSP
    assert_eq!(html.matches("<script").count(), 1);
    assert!(html.contains("<script type=\"application/json\" id=\"calibscope-record\">"));
    assert!(html.contains(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
    )));
}

#[test]
fn a_single_model_record_has_no_flips_section() {
    let name = "breast_cancer_rf_p.csv";
    let bytes = std::fs::read(shared().join("fixtures/real").join(name)).unwrap();
    let record = record_of(name, &bytes, &FlipsSettings::default());
    assert!(record["tables"].get("flips").is_none());
    let html = html_report(&record);
    assert!(!html.contains("Ranking flips"));
    assert!(!csv_files(&record)
        .iter()
        .any(|(n, _)| n.starts_with("flips_")));
}

/// Two top-label models with names CSV must quote: no classwise metric, no Spearman
/// (fewer than 3 models).
fn two_top_label() -> Value {
    let mut csv = String::from("model,label,yhat,conf\n");
    for (i, (y, c)) in [(1, 0.9), (0, 0.6), (1, 0.7), (2, 0.8), (2, 0.55), (0, 0.95)]
        .iter()
        .enumerate()
    {
        csv.push_str(&format!(
            "\"a, \"\"quoted\"\"\",{y},{},{c}\n",
            (y + i % 2) % 3
        ));
        csv.push_str(&format!("b<i>,{y},{y},{}\n", c * 0.9));
    }
    record_of(
        "two.csv",
        csv.as_bytes(),
        &FlipsSettings {
            m: 2,
            m_ref: 3,
            bins: vec![1, 2, 3],
            ..FlipsSettings::default()
        },
    )
}

#[test]
fn unavailable_metrics_and_undefined_spearman_say_why() {
    let record = two_top_label();
    let html = html_report(&record);
    assert!(html.contains("<strong>LinCE^cw (truthful, classwise)</strong>: not computable: lince_cw needs full probability vectors"));
    assert!(html.contains("Spearman ρ is undefined with fewer than 3 models"));
    assert!(html.contains(
        "data-metric=\"tables.flips.ranking.spearman.0.1\" data-value=\"null\">undefined"
    ));
    assert!(html.contains("b&lt;i&gt;") && !html.contains("b<i>"));
}

#[test]
fn csv_files_hold_the_flips_tables() {
    for record in [zoo(), two_top_label()] {
        let flips = &record["tables"]["flips"];
        let (_, _, m, m_ref, bins) = flips_summary::settings(flips);
        let files: BTreeMap<String, String> = csv_files(&record).into_iter().collect();
        let names: Vec<&str> = model_names(flips);
        // the ranking: one row per model, every number the record's
        let text = &files["flips_ranking.csv"];
        let mut lines = text.lines();
        let header = fields(lines.next().unwrap());
        assert_eq!(
            header[..3],
            [
                "model".to_string(),
                format!("rank at m = {m}"),
                format!("value at m = {m}")
            ]
        );
        let mut seen = Vec::new();
        for line in lines {
            let row = fields(line);
            assert_eq!(row.len(), header.len(), "{line}");
            let i = names
                .iter()
                .position(|n| *n == row[0])
                .unwrap_or_else(|| panic!("{} is no model", row[0]));
            let r = &flips["ranking"];
            assert_eq!(cell(&row[1]), r["ranks"][m.to_string()][i]);
            assert_eq!(cell(&row[2]), r["values"][m.to_string()][i]);
            assert_eq!(cell(&row[3]), r["ranks"][m_ref.to_string()][i]);
            assert_eq!(cell(&row[4]), r["values"][m_ref.to_string()][i]);
            assert_eq!(cell(&row[5]), r["rank_change"][i]);
            assert_eq!(cell(&row[6]), flips["error"][i]);
            seen.push(i);
        }
        seen.sort();
        assert_eq!(seen, (0..names.len()).collect::<Vec<_>>());
        // the matrices of every metric that has one
        for (metric, x) in flips["matrices"].as_object().unwrap() {
            let name = format!("flips_spearman_{metric}.csv");
            if x.get("unavailable").is_some() {
                assert!(!files.contains_key(&name), "{name}");
                continue;
            }
            for (kind, key) in [("spearman", "spearman"), ("flips", "flips")] {
                let text = &files[&format!("flips_{kind}_{metric}.csv")];
                let rows: Vec<Vec<String>> = text.lines().map(fields).collect();
                let want: Vec<String> = std::iter::once("m".to_string())
                    .chain(bins.iter().map(|b| b.to_string()))
                    .collect();
                assert_eq!(rows[0], want);
                for (a, row) in rows[1..=bins.len()].iter().enumerate() {
                    assert_eq!(row[0], bins[a].to_string());
                    for c in 0..bins.len() {
                        assert_eq!(cell(&row[c + 1]), x[key][a][c], "{metric} {kind} {a} {c}");
                    }
                }
                if kind == "spearman" {
                    let last = &rows[bins.len() + 1];
                    assert_eq!(last[0], "ρ vs error");
                    for (j, b) in bins.iter().enumerate() {
                        assert_eq!(cell(&last[j + 1]), x["spearman_vs_error"][b.to_string()]);
                    }
                }
            }
        }
    }
}

#[test]
fn the_records_theme_is_honoured_without_script() {
    let mut record = zoo();
    let html = html_report(&record);
    assert!(
        html.contains("<html lang=\"en\">"),
        "System: the reader's theme"
    );
    for css in [
        ":root[data-theme=\"dark\"] { color-scheme: dark; }",
        ":root[data-theme=\"light\"] { color-scheme: light; }",
        "light-dark(",
    ] {
        assert!(html.contains(css), "{css}");
    }
    for theme in ["light", "dark"] {
        record["settings"]["theme"] = json!(theme);
        let html = html_report(&record);
        assert!(
            html.contains(&format!("<html lang=\"en\" data-theme=\"{theme}\">")),
            "{theme}"
        );
        assert_eq!(html.matches("<script").count(), 1);
    }
    record["settings"]["theme"] = json!("\"><script>");
    assert!(html_report(&record).contains("<html lang=\"en\">"));
}

/// A model name a spreadsheet would run as a formula is written with a leading `'`
/// in the CSV exports; a name that is a number (`-1`) is written as it is.
#[test]
fn formula_names_are_defused_in_csv_exports() {
    let mut record = zoo();
    let formula = "=HYPERLINK(\"http://example.invalid\",\"x\")";
    record["tables"]["flips"]["models"][0] = formula.into();
    record["tables"]["flips"]["models"][1] = "-1".into();
    let files: BTreeMap<String, String> = csv_files(&record).into_iter().collect();
    let text = &files["flips_ranking.csv"];
    let names: Vec<String> = text.lines().skip(1).map(|l| fields(l)[0].clone()).collect();
    assert!(names.contains(&format!("'{formula}")), "{names:?}");
    assert!(names.contains(&"-1".to_string()), "{names:?}");
    assert!(!text.lines().any(|l| l.starts_with('=')), "{text}");
}

/// The model names of a record's flips section.
fn model_names(flips: &Value) -> Vec<&str> {
    flips["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}
