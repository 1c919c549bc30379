//! Calibration per group (issue 32) on the fixtures of `bench/groups_fixtures.sh`:
//! each group's audit in the grouped document is the audit of its rows given as a
//! file of their own, the worst group is the one made overconfident, the test is
//! deterministic per seed, and a data set read without a grouping gives the
//! document it gave before.

use calibscope_audit::groups::{group_columns_of, group_settings_of};
use calibscope_audit::{audit_document_grouped, audit_document_with, AuditOptions, Sections};
use calibscope_core::binning::Binning;
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::groups::GroupSettings;
use calibscope_io::{read_path, ColumnMapping, Dataset, Options, ParseErrors};
use serde_json::Value;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/groups")
        .join(name)
}

fn read(name: &str, groups: &[&str]) -> Result<Dataset, ParseErrors> {
    let options = Options {
        mapping: ColumnMapping {
            groups: groups.iter().map(|g| g.to_string()).collect(),
            ..ColumnMapping::default()
        },
        ..Options::default()
    };
    let path = data(name);
    assert!(
        path.exists(),
        "{} is missing: run bash bench/groups_fixtures.sh",
        path.display()
    );
    read_path(&path, &options)
}

fn options() -> AuditOptions {
    AuditOptions {
        m_values: vec![10, 15],
        ..AuditOptions::for_n(100)
    }
}

fn bootstrap() -> BootstrapSettings {
    BootstrapSettings {
        replicates: 100,
        seed: 4,
        alpha: 0.05,
        threads: 2,
    }
}

fn settings(binning: Binning) -> GroupSettings {
    GroupSettings {
        binning,
        m: 15,
        min_size: 30,
        permutations: 500,
        seed: 9,
        threads: 2,
    }
}

fn grouped(name: &str, column: &str, binning: Binning) -> Value {
    audit_document_grouped(
        &read(name, &[column]),
        name,
        &options(),
        Sections::Sequential,
        Some(&bootstrap()),
        Some(&settings(binning)),
    )
}

/// Each group's `audit` equals the audit of the file holding only its rows (the
/// same options; only `file` names the grouped file), and its summary numbers are
/// that audit's.
fn groups_are_their_files(name: &str, column: &str) -> Value {
    let doc = grouped(name, column, Binning::Width);
    let values = doc["groups"]["values"].as_array().unwrap();
    assert!(values.len() >= 2);
    for v in values {
        let group = v["group"].as_str().unwrap();
        let file = name.replace(".csv", &format!(".{group}.csv"));
        let alone = audit_document_with(
            &read(&file, &[]),
            &file,
            &options(),
            Sections::Sequential,
            Some(&bootstrap()),
        );
        let mut audit = v["audit"].clone();
        audit["file"] = alone["file"].clone();
        assert_eq!(audit, alone, "group {group} of {name}");
        assert_eq!(v["n"], alone["input"]["n"]);
        assert_eq!(v["accuracy"], alone["beyond_ece"]["acc"]);
        assert_eq!(v["csr"], alone["beyond_ece"]["csr"]);
        // the ECE of the worst-group statement is the audit's
        let ece = alone["readings"]["confidence"]["width"]["15"]["ece"]
            .as_f64()
            .unwrap();
        let mine = v["ece"].as_f64().unwrap();
        assert!(
            (ece - mine).abs() <= 1e-15 * ece.abs().max(1.0),
            "{ece} vs {mine}"
        );
    }
    doc
}

#[test]
fn breast_cancer_groups_are_their_rows_alone() {
    let doc = groups_are_their_files("breast_cancer_groups.csv", "radius");
    assert_eq!(group_columns_of(&doc), ["radius"]);
    let names: Vec<&str> = doc["groups"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["group"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["large", "small"]);
    assert_eq!(doc["groups"]["test"]["eligible_groups"], 2);
    assert!(doc["groups"]["test"]["p_value"].is_number());
}

#[test]
fn the_overconfident_group_is_the_worst_and_the_test_says_so() {
    let doc = groups_are_their_files("synthetic_groups.csv", "cohort");
    assert_eq!(doc["worst_group"]["group"], "overconfident");
    assert_eq!(doc["worst_group"]["m"], 15);
    let p = doc["groups"]["test"]["p_value"].as_f64().unwrap();
    assert_eq!(
        p,
        1.0 / 501.0,
        "no permutation reaches the constructed spread"
    );
    for binning in [Binning::Width, Binning::Mass] {
        let d = grouped("synthetic_groups.csv", "cohort", binning);
        assert_eq!(d["worst_group"]["group"], "overconfident", "{binning:?}");
        assert_eq!(d["worst_group"]["binning"], binning.name());
    }
    // the settings are recorded and read back (for verify)
    let s = group_settings_of(&doc).unwrap().unwrap();
    assert_eq!((s.m, s.min_size, s.permutations, s.seed), (15, 30, 500, 9));
}

/// The two calibrated groups alone do not differ more than chance; the p-value is
/// the same on one thread and several.
#[test]
fn calibrated_groups_do_not_differ_and_the_test_is_deterministic() {
    let parsed = read("synthetic_groups.csv", &["cohort"]).unwrap();
    let keep: Vec<usize> = (0..parsed.n())
        .filter(|&i| parsed.groups.as_ref().unwrap().codes[i] != 2)
        .collect();
    let set = calibscope_core::reading::subset(&parsed.models[0].1, &keep);
    let codes: Vec<u32> = keep
        .iter()
        .map(|&i| parsed.groups.as_ref().unwrap().codes[i])
        .collect();
    let pairs = calibscope_core::reading::top_labels(&set).pairs();
    let one = calibscope_core::groups::group_calibration(
        &pairs,
        &codes,
        2,
        &GroupSettings {
            threads: 1,
            ..settings(Binning::Width)
        },
    );
    let many =
        calibscope_core::groups::group_calibration(&pairs, &codes, 2, &settings(Binning::Width));
    assert_eq!(one, many);
    assert!(one.p_value.unwrap() > 0.05, "{:?}", one.p_value);
}

/// Too-small groups are listed and flagged, and make no statement.
#[test]
fn too_small_groups_are_reported_not_hidden() {
    let doc = audit_document_grouped(
        &read("breast_cancer_groups.csv", &["radius"]),
        "breast_cancer_groups.csv",
        &options(),
        Sections::Sequential,
        None,
        Some(&GroupSettings {
            min_size: 140,
            ..settings(Binning::Width)
        }),
    );
    let values = doc["groups"]["values"].as_array().unwrap();
    assert_eq!(values.len(), 2);
    assert_eq!(values[0]["too_small"], true);
    assert_eq!(values[1]["too_small"], false);
    assert_eq!(doc["worst_group"]["group"], "small");
    assert!(doc["groups"]["test"]["p_value"].is_null());
    assert_eq!(doc["groups"]["test"]["eligible_groups"], 1);
}

/// Without a grouping the document is the one it was: no `groups`, no
/// `worst_group`, the same bytes.
#[test]
fn no_grouping_no_change() {
    let parsed = read("synthetic_groups.csv", &[]);
    assert!(parsed.as_ref().unwrap().groups.is_none());
    let before = audit_document_with(
        &parsed,
        "synthetic_groups.csv",
        &options(),
        Sections::Sequential,
        Some(&bootstrap()),
    );
    let after = audit_document_grouped(
        &parsed,
        "synthetic_groups.csv",
        &options(),
        Sections::Sequential,
        Some(&bootstrap()),
        Some(&settings(Binning::Width)),
    );
    assert_eq!(
        serde_json::to_string(&before).unwrap(),
        serde_json::to_string(&after).unwrap()
    );
    assert!(after.get("groups").is_none() && after.get("worst_group").is_none());
}

/// The record's per-group reliability rows (the report's small multiples) are the
/// rows of each group's file alone at the group settings' m and binning; a data set
/// without a grouping, or no group settings, adds none.
#[test]
fn each_groups_reliability_rows_are_its_files() {
    use calibscope_audit::{record_tables, record_tables_grouped};
    for binning in [Binning::Width, Binning::Mass] {
        let s = GroupSettings {
            m: 7,
            ..settings(binning)
        };
        let parsed = read("synthetic_groups.csv", &["cohort"]).unwrap();
        let tables = record_tables_grouped(&parsed, None, None, Some(&s)).unwrap();
        let names = &parsed.groups.as_ref().unwrap().names;
        let values = tables["groups"]["values"].as_array().unwrap();
        assert_eq!(values.len(), names.len());
        let key = format!("{}_7", binning.name());
        for (name, v) in names.iter().zip(values) {
            let file = format!("synthetic_groups.{name}.csv");
            let alone = calibscope_audit::report_tables(&read(&file, &[]).unwrap().models, 7);
            let rows = &v["reliability"]["confidence"][&key];
            let bins = rows.as_array().unwrap().len();
            assert!(
                (4..=7).contains(&bins),
                "{name} {key}: {bins} non-empty bins"
            );
            assert_eq!(
                rows, &alone["reliability"]["confidence"][&key],
                "{name} {key}"
            );
        }
        let without = record_tables(&parsed, None).unwrap();
        assert!(without.get("groups").is_none());
        let ungrouped = read("synthetic_groups.csv", &[]).unwrap();
        let t = record_tables_grouped(&ungrouped, None, None, Some(&s)).unwrap();
        assert!(t.get("groups").is_none());
    }
}

/// The Markdown summary's per-group section: the table (too-small groups named as
/// such), the worst group and the test, every number the document's.
#[test]
fn markdown_lists_every_group_and_the_worst() {
    let doc = audit_document_grouped(
        &read("breast_cancer_groups.csv", &["radius"]),
        "breast_cancer_groups.csv",
        &options(),
        Sections::Sequential,
        Some(&bootstrap()),
        Some(&GroupSettings {
            min_size: 140,
            ..settings(Binning::Width)
        }),
    );
    let md = calibscope_audit::markdown(&doc, 15, Binning::Width);
    assert!(
        md.contains("## Calibration per group (radius; ECE at 15 bins, width)"),
        "{md}"
    );
    assert!(
        md.contains("| large (too small: fewer than 140) | "),
        "{md}"
    );
    let worst = calibscope_audit::summary::fmt(&doc["worst_group"]["ece"]);
    assert!(
        md.contains(&format!("Worst-calibrated group: small (ECE {worst}, n = ")),
        "{md}"
    );
    assert!(md.contains("No test of the groups: only one group"), "{md}");
    let verdict = doc["groups"]["values"][1]["audit"]["verdict"]["kind"]
        .as_str()
        .unwrap();
    let words = calibscope_core::verdict::VerdictKind::from_name(verdict)
        .unwrap()
        .words();
    assert!(md.contains(&format!(" | {words} |")), "{md}");
}

/// A grouped record: its per-group diagrams' rows verify, a tampered row is
/// flagged, and a record made before they were recorded (no `tables.groups`)
/// verifies with a note instead of failing.
#[test]
fn group_tables_verify_and_older_records_without_them_still_do() {
    use calibscope_audit::{record_tables_grouped, reverify, Producer, Record, CONTRACT};
    use calibscope_share::{file_ref, DataSource, ViewState};
    let name = "breast_cancer_groups.csv";
    let parsed = read(name, &["radius"]);
    let s = settings(Binning::Mass);
    let doc = audit_document_grouped(
        &parsed,
        name,
        &options(),
        Sections::Sequential,
        None,
        Some(&s),
    );
    let inputs = vec![file_ref(name, &std::fs::read(data(name)).unwrap())];
    let producer = Producer {
        name: "test".into(),
        version: "0".into(),
        build: "b".into(),
    };
    let record = Record {
        contract: CONTRACT,
        producer: producer.clone(),
        inputs: inputs.clone(),
        settings: ViewState {
            data: DataSource::Files {
                files: inputs.clone(),
            },
            ..ViewState::default()
        },
        options: options(),
        audits: vec![doc],
        tables: record_tables_grouped(parsed.as_ref().unwrap(), None, None, Some(&s)).unwrap(),
    }
    .to_json();
    let check = |recorded: &Value| {
        let (_, checks, notes) =
            reverify(recorded, &parsed, name, inputs.clone(), producer.clone()).unwrap();
        (checks, notes)
    };
    let (checks, notes) = check(&record);
    assert!(notes.is_empty(), "{notes:?}");
    let group_rows = checks
        .iter()
        .filter(|c| {
            c.path
                .starts_with("tables.groups.values.1.reliability.confidence.mass_15.")
        })
        .count();
    assert!(
        group_rows > 15 * 8,
        "{group_rows} group table values compared"
    );
    assert!(checks.iter().all(|c| c.ok()));
    // a tampered count is flagged
    let mut tampered = record.clone();
    tampered["tables"]["groups"]["values"][0]["reliability"]["confidence"]["mass_15"][3]["n"] =
        Value::from(1);
    let (checks, _) = check(&tampered);
    let bad: Vec<&str> = checks
        .iter()
        .filter(|c| !c.ok())
        .map(|c| c.path.as_str())
        .collect();
    assert_eq!(
        bad,
        ["tables.groups.values.0.reliability.confidence.mass_15.3.n"]
    );
    // an older grouped record without the group tables: verified, with a note
    let mut older = record.clone();
    older["tables"].as_object_mut().unwrap().remove("groups");
    let (checks, notes) = check(&older);
    assert!(checks.iter().all(|c| c.ok()));
    assert!(!checks.iter().any(|c| c.path.starts_with("tables.groups")));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].starts_with("tables.groups: "), "{notes:?}");
}
