//! Every fixture under ../shared/fixtures (CSV, long-format CSV, .npy, .npz, NumPy
//! pairs), read by calibscope-io and audited, compared with its `.expected.json`
//! under the fixtures README's tolerance rules.

use crate::support;

use calibscope_audit::{
    audit_document, audit_document_in, recalibration_json, AuditOptions, Sections,
};
use serde_json::Value;
use std::path::PathBuf;

use calibscope_test_support::shared;

/// `(expected.json, data files)` for every fixture of `dir`.
fn fixtures(dir: &str) -> Vec<(PathBuf, Vec<PathBuf>)> {
    let dir = shared().join("fixtures").join(dir);
    let mut out = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in &names {
        let Some(stem) = name.strip_suffix(".expected.json") else {
            continue;
        };
        let data: Vec<PathBuf> = names
            .iter()
            .filter(|n| {
                !n.ends_with(".expected.json")
                    && (n.strip_prefix(stem).is_some_and(|rest| {
                        matches!(
                            rest,
                            ".csv" | ".npz" | ".npy" | ".labels.npy" | ".probs.npy" | ".logits.npy"
                        )
                    }))
            })
            .map(|n| dir.join(n))
            .collect();
        assert!(!data.is_empty(), "no data file for {name}");
        out.push((dir.join(name), data));
    }
    out
}

fn check_dir(dir: &str) -> usize {
    let mut failures = Vec::new();
    let all = fixtures(dir);
    for (expected_path, data) in &all {
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(expected_path).unwrap()).unwrap();
        let parsed = calibscope_io::open_paths(data, &calibscope_io::Options::default());
        let mut options = AuditOptions::for_n(parsed.as_ref().map_or(0, |d| d.n()));
        if let Some(m) = expected.get("m_values").and_then(Value::as_array) {
            options.m_values = m.iter().map(|v| v.as_u64().unwrap() as usize).collect();
        }
        let name = expected_path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let got = audit_document(&parsed, &name, &options);
        // the CLI's way (sections on two threads) gives the same document, value for value
        let threaded = audit_document_in(&parsed, &name, &options, Sections::Threads);
        if threaded != got {
            failures.push(format!(
                "{name}: the document differs with Sections::Threads"
            ));
        }
        // the worker's way (one recalibration run, its checks computing the AUCs
        // themselves) gives the same recalibration section as the task graph, which
        // takes the AUC changes from the ledgers' audits
        if let (Ok(dataset), Some(recal)) = (&parsed, &options.recalibration) {
            let set = &dataset.models[0].1;
            if dataset.models.len() == 1 && set.kind() != calibscope_core::Kind::TopLabel {
                let alone = recalibration_json(set, recal);
                if got.get("recalibration") != Some(&alone) {
                    failures.push(format!(
                        "{name}: the recalibration section differs from recalibration_json"
                    ));
                }
            }
        }
        for m in support::compare::compare(&got, &expected) {
            failures.push(format!("{name}: {}: {}", m.path, m.detail));
        }
    }
    let shown: Vec<&str> = failures.iter().take(60).map(String::as_str).collect();
    assert!(
        failures.is_empty(),
        "{} mismatches in {dir}/:\n{}",
        failures.len(),
        shown.join("\n")
    );
    all.len()
}

#[test]
fn real_fixtures() {
    assert_eq!(check_dir("real"), 18);
}

#[test]
fn edge_fixtures() {
    assert_eq!(check_dir("edge"), 13);
}

#[test]
fn synthetic_fixtures() {
    assert_eq!(check_dir("synthetic"), 12);
}

#[test]
fn multi_model_fixtures() {
    assert_eq!(check_dir("multi"), 2);
}
