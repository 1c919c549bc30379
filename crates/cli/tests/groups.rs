//! `calibscope audit --group` (issue 32): the JSON's `groups` and `worst_group`, the
//! Markdown per-group table, records that carry the grouping and `verify` that
//! recomputes it, and a located error for a column that is not there.

use crate::support;
use serde_json::Value;
use std::path::PathBuf;
use support::calibscope;

fn data(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../audit/tests/data/groups")
        .join(name);
    assert!(
        p.exists(),
        "{} is missing: run bash bench/groups_fixtures.sh",
        p.display()
    );
    p.display().to_string()
}

fn stdout(args: &[&str]) -> String {
    let out = calibscope(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn json_and_markdown_name_the_overconfident_group() {
    let file = data("synthetic_groups.csv");
    let args = [
        "audit",
        &file,
        "--group",
        "cohort",
        "--bootstrap",
        "50",
        "--group-permutations",
        "200",
    ];
    let doc: Value = serde_json::from_str(&stdout(&[&args[..], &["--json"]].concat())).unwrap();
    assert_eq!(doc["worst_group"]["group"], "overconfident");
    assert_eq!(doc["groups"]["columns"][0], "cohort");
    assert_eq!(doc["groups"]["values"].as_array().unwrap().len(), 3);
    assert_eq!(doc["groups"]["test"]["p_value"].as_f64(), Some(1.0 / 201.0));
    let md = stdout(&args);
    assert!(
        md.contains("## Calibration per group (cohort; ECE at 15 bins, width)"),
        "{md}"
    );
    assert!(md.contains("| overconfident | 1000 |"), "{md}");
    assert!(
        md.contains("Worst-calibrated group: overconfident (ECE "),
        "{md}"
    );
    assert!(
        md.contains("\"the groups differ more than chance\": p = 0.004975 (200 permutations"),
        "{md}"
    );
    // without --group, no group keys
    let plain: Value =
        serde_json::from_str(&stdout(&["audit", &file, "--bootstrap", "0", "--json"])).unwrap();
    assert!(plain.get("groups").is_none() && plain.get("worst_group").is_none());
}

#[test]
fn records_carry_the_grouping_and_verify_recomputes_it() {
    let file = data("breast_cancer_groups.csv");
    let dir = std::env::temp_dir().join(format!("calibscope_cli_groups_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join("audit.json");
    let record = record.to_str().unwrap();
    stdout(&[
        "audit",
        &file,
        "--group",
        "radius",
        "--bootstrap",
        "50",
        "--group-permutations",
        "100",
        "--seed",
        "3",
        "--record",
        record,
    ]);
    let text = std::fs::read_to_string(record).unwrap();
    let rec: Value = serde_json::from_str(&text).unwrap();
    let groups = &rec["audits"][0]["groups"];
    assert_eq!(groups["columns"][0], "radius");
    assert_eq!(groups["settings"]["seed"], 3);
    assert_eq!(groups["settings"]["permutations"], 100);
    let out = calibscope(&["verify", record, &file]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("groups.values"),
        "the groups are checked: {said}"
    );
    // a changed group value is found
    let mut broken = rec.clone();
    broken["audits"][0]["worst_group"]["group"] = Value::from("no such group");
    let broken_path = dir.join("broken.json");
    std::fs::write(&broken_path, serde_json::to_string(&broken).unwrap()).unwrap();
    let out = calibscope(&["verify", broken_path.to_str().unwrap(), &file]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_missing_group_column_is_a_located_input_error() {
    let file = data("synthetic_groups.csv");
    let out = calibscope(&["audit", &file, "--group", "hospital"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("synthetic_groups.csv"), "{err}");
    assert!(err.contains("the grouping names \"hospital\""), "{err}");
    assert!(err.contains("columns: label, p, cohort"), "{err}");
    assert!(err.contains("mapping does not use: cohort"), "{err}");
}
