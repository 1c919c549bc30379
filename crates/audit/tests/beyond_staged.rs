//! The worker's staged §8 (`beyond_binning::staged::Staged`) gives the documents
//! `insert_single` gives, byte for byte, however the replicates are sliced; several
//! models are bootstrapped with the same rows as one model at a time.

use calibscope_audit::beyond_binning::{insert_single, staged::Staged};
use calibscope_audit::*;
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::PredictionSet;
use serde_json::Value;
use std::path::Path;

fn models(file: &str) -> Vec<(String, PredictionSet)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(file);
    calibscope_io::open_paths(&[path], &calibscope_io::Options::default())
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .models
}

fn plain(set: &PredictionSet, m: &[usize]) -> Value {
    let info = FileInfo {
        file: "t".into(),
        files: Vec::new(),
        format: "csv".into(),
    };
    let options = AuditOptions {
        m_values: m.to_vec(),
        recalibration: None,
        roc_max_n: 0,
    };
    audit_json(set, &info, &options)
}

fn settings() -> BootstrapSettings {
    BootstrapSettings {
        replicates: 150,
        seed: 11,
        alpha: 0.05,
        threads: 2,
    }
}

fn check(file: &str, m: &[usize], slices: &[usize]) {
    let models = models(file);
    let s = settings();
    let expected: Vec<Value> = models
        .iter()
        .map(|(_, set)| {
            let mut doc = plain(set, m);
            insert_single(&mut doc, set, m, &s);
            doc
        })
        .collect();
    let sets: Vec<&PredictionSet> = models.iter().map(|(_, s)| s).collect();
    let mut staged = Staged::new(&sets, m, &s).unwrap();
    assert_eq!(staged.progress(), (0, 150));
    for &k in slices {
        staged.step(k);
    }
    assert!(staged.progress().0 <= 150);
    let mut docs: Vec<Value> = models.iter().map(|(_, set)| plain(set, m)).collect();
    staged.finish(&mut docs);
    for (got, want) in docs.iter().zip(&expected) {
        assert!(want["verdict"].is_object(), "{file}: a verdict");
        assert_eq!(
            serde_json::to_string(got).unwrap(),
            serde_json::to_string(want).unwrap(),
            "{file}"
        );
    }
}

#[test]
fn staged_equals_insert_single_for_one_model() {
    check(
        "breast_cancer_logreg_logit.csv",
        &[1, 5, 15, 100],
        &[1, 7, 50],
    );
    check("digits_rf_probs.csv", &[15, 20], &[149, 1, 300]);
}

#[test]
fn staged_equals_insert_single_for_models_on_the_same_samples() {
    check("digits_zoo3_head60_probs.csv", &[2, 15], &[40, 40]);
}

#[test]
fn staged_refuses_bad_settings_and_unequal_samples() {
    let a = models("breast_cancer_logreg_logit.csv");
    let b = models("digits_rf_probs.csv");
    let bad = BootstrapSettings {
        alpha: 1.5,
        ..settings()
    };
    assert!(Staged::new(&[&a[0].1], &[15], &bad)
        .err()
        .unwrap()
        .contains("alpha"));
    assert!(Staged::new(&[&a[0].1, &b[0].1], &[15], &settings())
        .err()
        .unwrap()
        .contains("same samples"));
    // no replicates: no intervals and no verdict, as insert_single
    let none = BootstrapSettings {
        replicates: 0,
        ..settings()
    };
    let staged = Staged::new(&[&a[0].1], &[15], &none).unwrap();
    assert_eq!(staged.progress(), (0, 0));
    let mut docs = vec![plain(&a[0].1, &[15])];
    staged.finish(&mut docs);
    assert!(docs[0]["verdict"].is_null());
    assert!(docs[0]["readings"]["confidence"]["intervals"].is_null());
}
