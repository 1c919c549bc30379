//! `calibscope audit` on multilabel tables (`bench/multilabel_fixtures.sh`:
//! scikit-learn's digits tagged with four traits): each label's group audit is the
//! audit of that label's binary file, key for key; the data set's audit is the
//! audit of the pooled pairs; `--multilabel` names pairs whatever their names;
//! records verify; a bad cell is a located error.

use crate::support;
use serde_json::Value;
use std::path::PathBuf;
use support::calibscope;

fn data(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../io/tests/data/multilabel")
        .join(name);
    assert!(
        p.exists(),
        "{} is missing: run bash bench/multilabel_fixtures.sh",
        p.display()
    );
    p.display().to_string()
}

fn audit(file: &str, more: &[&str]) -> Value {
    let out = calibscope(&[&["audit", file, "--json", "--bootstrap", "40"], more].concat());
    assert!(
        out.status.success(),
        "{file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The paths where two documents differ (keys missing on one side included).
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => differences(u, v, &p, out),
                    _ => out.push(p),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                differences(u, v, &format!("{path}.{i}"), out);
            }
        }
        _ if a != b => out.push(path.to_string()),
        _ => {}
    }
}

fn diff(a: &Value, b: &Value) -> Vec<String> {
    let mut out = Vec::new();
    differences(a, b, "", &mut out);
    out
}

#[test]
fn each_labels_audit_is_its_binary_files_and_the_whole_is_the_pooled_pairs() {
    let doc = audit(&data("traits.csv"), &[]);
    assert_eq!(doc["input"]["multilabel"]["pairs"], 2516);
    assert_eq!(doc["groups"]["columns"][0], "label");
    let groups = doc["groups"]["values"].as_array().unwrap();
    assert_eq!(groups.len(), 4);
    for t in ["even", "above_4", "prime", "loop"] {
        let own = audit(&data(&format!("traits_{t}.csv")), &[]);
        let group = groups.iter().find(|g| g["group"] == t).unwrap();
        assert_eq!(diff(&group["audit"], &own), [".file"], "{t}");
    }
    let pooled = audit(&data("traits_pooled.csv"), &[]);
    let mut d = diff(&doc, &pooled);
    d.sort();
    assert_eq!(
        d,
        [".file", ".groups", ".input.multilabel", ".worst_group"],
        "only the file's name, the labels and their groups differ"
    );
}

#[test]
fn named_pairs_read_any_names_and_records_verify() {
    let text = std::fs::read_to_string(data("traits.csv")).unwrap();
    let renamed = text.replacen(
        ",even,above_4,prime,loop,p_even,p_above_4,p_prime,p_loop",
        ",E,A,P,L,sE,sA,sP,sL",
        1,
    );
    assert_ne!(renamed, text);
    let dir = std::env::temp_dir().join(format!("calibscope_cli_ml_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("renamed.csv");
    std::fs::write(&file, renamed).unwrap();
    let file = file.to_str().unwrap();
    // not pairs by name: refused as a table without a label column
    let out = calibscope(&["audit", file]);
    assert_eq!(out.status.code(), Some(1));
    let pairs = "E:sE,A:sA,P:sP,L:sL";
    let named = audit(file, &["--multilabel", pairs]);
    let detected = audit(&data("traits.csv"), &[]);
    let mut d = diff(&named, &detected);
    d.retain(|p| {
        ![
            ".file",
            ".groups",
            ".worst_group",
            ".input.multilabel.labels",
        ]
        .iter()
        .any(|k| p.starts_with(k))
    });
    assert_eq!(d, Vec::<String>::new());
    // the labels are named after their label columns; each has its audit
    assert_eq!(named["input"]["multilabel"]["labels"][0], "E");
    let group = |doc: &Value, name: &str| {
        doc["groups"]["values"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["group"] == name)
            .unwrap()["audit"]
            .clone()
    };
    for (short, long) in [
        ("E", "even"),
        ("A", "above_4"),
        ("P", "prime"),
        ("L", "loop"),
    ] {
        assert_eq!(
            diff(&group(&named, short), &group(&detected, long)),
            [".file"]
        );
    }
    let record = dir.join("audit.json");
    let record = record.to_str().unwrap();
    let out = calibscope(&[
        "audit",
        file,
        "--multilabel",
        pairs,
        "--bootstrap",
        "20",
        "--record",
        record,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_str(&std::fs::read_to_string(record).unwrap()).unwrap();
    assert_eq!(
        rec["mapping"]["multilabel"][0], "E:sE",
        "{}",
        rec["mapping"]
    );
    let out = calibscope(&["verify", record, file]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let bad = calibscope(&["audit", file, "--multilabel", "E:sE"]);
    assert_eq!(bad.status.code(), Some(2), "one pair is a usage error");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_label_cell_is_located() {
    let dir = std::env::temp_dir().join(format!("calibscope_cli_mlbad_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.csv");
    std::fs::write(&file, "y_a,y_b,p_a,p_b\n1,0,0.9,0.2\n0,2,0.1,0.3\n").unwrap();
    let out = calibscope(&["audit", file.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.csv"), "{err}");
    assert!(err.contains("line 3"), "{err}");
    assert!(err.contains("column \"y_b\""), "{err}");
    assert!(err.contains("\"2\" is not 0 or 1"), "{err}");
}
