//! Calibration per group in the report and the exports (issue 32): the per-group
//! table with every number's path and value, the worst group and the test, one
//! diagram per group drawn from the record's rows; `groups.csv` and each group's
//! reliability CSV at full precision; each group's SVG the report's drawing. A
//! record made before the group rows were recorded says it has no diagrams.

use calibscope_audit::{
    audit_document_grouped, record_tables_grouped, AuditOptions, Producer, Record, Sections,
};
use calibscope_core::binning::Binning;
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::groups::GroupSettings;
use calibscope_io::{read_path, ColumnMapping, Options};
use calibscope_report::{csv_files, html_report, svg_files};
use calibscope_share::{file_ref, DataSource, ViewState};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use support::{cell, fields};

use crate::support;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../audit/tests/data/groups")
        .join(name)
}

/// The record of a grouped file, with each group's verdict (50 replicates).
fn grouped_record(name: &str, column: &str, min_size: usize) -> Value {
    let options = Options {
        mapping: ColumnMapping {
            groups: vec![column.to_string()],
            ..ColumnMapping::default()
        },
        ..Options::default()
    };
    let path = data(name);
    assert!(path.exists(), "{} is missing", path.display());
    let parsed = read_path(&path, &options);
    let dataset = parsed.as_ref().expect("parses");
    let audit_options = AuditOptions::for_n(dataset.n());
    let bootstrap = BootstrapSettings {
        replicates: 50,
        seed: 1,
        alpha: 0.05,
        threads: 2,
    };
    let settings = GroupSettings {
        binning: Binning::Width,
        m: 12,
        min_size,
        permutations: 200,
        seed: 3,
        threads: 2,
    };
    let doc = audit_document_grouped(
        &parsed,
        name,
        &audit_options,
        Sections::Sequential,
        Some(&bootstrap),
        Some(&settings),
    );
    let inputs = vec![file_ref(name, &std::fs::read(&path).unwrap())];
    Record {
        contract: calibscope_audit::CONTRACT,
        producer: Producer {
            name: "test".into(),
            version: "0".into(),
            build: "b".into(),
        },
        inputs: inputs.clone(),
        settings: ViewState {
            data: DataSource::Files { files: inputs },
            ..ViewState::default()
        },
        options: audit_options,
        audits: vec![doc],
        tables: record_tables_grouped(dataset, None, Some(&bootstrap), Some(&settings)).unwrap(),
    }
    .to_json()
}

fn at<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(root, |v, k| match v {
        Value::Array(a) => a.get(k.parse::<usize>().ok()?),
        Value::Object(o) => o.get(k),
        _ => None,
    })
}

/// The report's section of the groups: from its heading to the next section.
fn groups_section(html: &str) -> &str {
    let start = html
        .find("<section class=\"groups\">")
        .expect("a per-group section");
    let end = start + html[start..].find("</section>").unwrap();
    &html[start..end]
}

#[test]
fn the_report_shows_every_group_its_numbers_and_its_diagram() {
    let record = grouped_record("synthetic_groups.csv", "cohort", 30);
    let doc = &record["audits"][0];
    let html = html_report(&record);
    let section = groups_section(&html);
    let mut paths = Vec::new();
    for (path, got) in support::numbers(section) {
        let want = at(doc, &path).unwrap_or_else(|| panic!("{path} is not in the document"));
        assert_eq!(&got, want, "{path}");
        paths.push(path);
    }
    for i in 0..3 {
        for key in [
            "n",
            "accuracy",
            "ece",
            "audit.binning_free.smece",
            "csr",
            "p_risk",
        ] {
            let path = format!("groups.values.{i}.{key}");
            assert!(paths.contains(&path), "{path} shown");
        }
    }
    for path in [
        "worst_group.ece",
        "groups.test.p_value",
        "groups.test.spread",
    ] {
        assert!(paths.iter().any(|p| p == path), "{path} shown");
    }
    assert!(section.contains("Worst-calibrated group: overconfident (ECE "));
    assert!(section.contains("Calibration per group (cohort; ECE at 12 bins, width)"));
    // each group's verdict: in words in the table, its sentence under its diagram
    assert_eq!(section.matches("<td>overconfident</td>").count(), 1);
    let text = doc["groups"]["values"][2]["audit"]["verdict"]["text"]
        .as_str()
        .unwrap();
    assert!(section.contains(&calibscope_report::esc(text)));
    // one diagram per group, each the one drawn from that group's recorded rows
    assert_eq!(section.matches("<svg ").count(), 3);
    let svgs: BTreeMap<String, String> = svg_files(&record).into_iter().collect();
    for (i, name) in ["calibrated_a", "calibrated_b", "overconfident"]
        .iter()
        .enumerate()
    {
        let file = format!("group{i}_{name}_reliability_confidence_width_12.svg");
        let svg = svgs
            .get(&file)
            .unwrap_or_else(|| panic!("{file}: {:?}", svgs.keys()));
        assert!(
            section.contains(svg.as_str()),
            "{file} is the report's diagram"
        );
    }
    // the group diagrams differ: the overconfident group's is not the others'
    assert_ne!(
        svgs["group0_calibrated_a_reliability_confidence_width_12.svg"],
        svgs["group2_overconfident_reliability_confidence_width_12.svg"]
    );
}

#[test]
fn the_csv_files_hold_each_group_at_full_precision() {
    let record = grouped_record("synthetic_groups.csv", "cohort", 30);
    let doc = &record["audits"][0];
    let files: BTreeMap<String, String> = csv_files(&record).into_iter().collect();
    let text = files.get("groups.csv").expect("groups.csv");
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "cohort,n,too_small,accuracy,ece_width_12,smece,csr,p_risk,verdict"
    );
    let values = doc["groups"]["values"].as_array().unwrap();
    let rows: Vec<Vec<String>> = lines.map(fields).collect();
    assert_eq!(rows.len(), values.len());
    for (row, v) in rows.iter().zip(values) {
        assert_eq!(row[0], v["group"].as_str().unwrap());
        for (cell_text, key) in row[1..5].iter().zip(["n", "too_small", "accuracy", "ece"]) {
            assert_eq!(cell(cell_text), v[key], "{key}");
        }
        assert_eq!(cell(&row[5]), v["audit"]["binning_free"]["smece"]);
        assert!(row[5].parse::<f64>().is_ok(), "smece {}", row[5]);
        assert_eq!(cell(&row[6]), v["csr"]);
        assert_eq!(cell(&row[7]), v["p_risk"]);
        assert_eq!(row[8], v["audit"]["verdict"]["kind"].as_str().unwrap());
    }
    // each group's reliability rows, every field
    for (i, v) in values.iter().enumerate() {
        let name = format!(
            "group{i}_{}_reliability_confidence_width_12.csv",
            v["group"].as_str().unwrap()
        );
        let text = files
            .get(&name)
            .unwrap_or_else(|| panic!("{name}: {:?}", files.keys()));
        let table =
            &record["tables"]["groups"]["values"][i]["reliability"]["confidence"]["width_12"];
        let table = table.as_array().unwrap();
        // the non-empty bins (a binary confidence lies in [0.5, 1])
        assert!((6..=12).contains(&table.len()), "{}", table.len());
        let header = fields(text.lines().next().unwrap());
        for (line, row) in text.lines().skip(1).zip(table) {
            for (k, value) in header.iter().zip(fields(line)) {
                assert_eq!(cell(&value), row[k], "{name} {k}");
            }
        }
        assert_eq!(text.lines().count(), table.len() + 1);
    }
}

#[test]
fn too_small_groups_are_marked_and_an_older_record_says_it_has_no_diagrams() {
    let mut record = grouped_record("breast_cancer_groups.csv", "radius", 140);
    let html = html_report(&record);
    let section = groups_section(&html);
    assert!(section.contains(
        "<tr class=\"too-small\"><th scope=\"row\">large (too small: fewer than 140)</th>"
    ));
    assert!(section.contains("No test of the groups: only one group is large enough"));
    assert_eq!(section.matches("<svg ").count(), 2);
    let files: BTreeMap<String, String> = csv_files(&record).into_iter().collect();
    assert!(files["groups.csv"].contains("\nlarge,"));
    // without the recorded rows: the table stays, the diagrams are said to be absent
    record["tables"].as_object_mut().unwrap().remove("groups");
    let html = html_report(&record);
    let section = groups_section(&html);
    assert_eq!(section.matches("<svg ").count(), 0);
    assert!(section.contains("holds no per-group reliability rows"));
    assert!(section.contains("data-metric=\"groups.values.0.ece\""));
    assert!(!svg_files(&record)
        .iter()
        .any(|(n, _)| n.starts_with("group")));
}
