//! Golden records (`tests/golden/`, see its README): records written by released
//! calibscope CLIs with their data, verified by every later version.
//! - `<name>.record.json`: written under this metric contract (v3); every value
//!   verifies, identical or equal up to floating-point rounding.
//! - `<name>.app.record.json`: written by the web app (wasm) under contract v3.
//! - `<name>.contract2.record.json`: written by the CLI of the commit before
//!   contract v3 (no `contract` field): every value verifies, and exactly the P_risk
//!   values of a CSR at most 1 (recorded `Φ(zscore)`, now 0) are reported as moved
//!   by the definition change; tampering is still caught.

use calibscope_audit::*;
use calibscope_core::special::normal_cdf;
use calibscope_share::file_ref;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const NAMES: [&str; 3] = [
    "breast_cancer_logreg_logit",
    "digits_rf_probs",
    "digits_zoo3_head60_probs",
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn load(file: &str) -> Value {
    let path = dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (the golden records are committed)", path.display()));
    record_json_of(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// `reverify` of a record against its data files in the golden folder, as
/// `calibscope verify` does it.
fn reverify_golden(recorded: &Value) -> (Record, Vec<Check>, Vec<String>) {
    let record = Record::from_json(recorded).expect("a record");
    let paths: Vec<PathBuf> = record.inputs.iter().map(|f| dir().join(&f.name)).collect();
    let inputs = paths
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            file_ref(&p.file_name().unwrap().to_string_lossy(), &bytes)
        })
        .collect();
    let options = parse_options(&record.settings.mapping).expect("the record's mapping");
    let parsed = calibscope_io::open_paths(&paths, &options);
    let producer = Producer {
        name: "golden test".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        build: "test".into(),
    };
    let name = paths[0].display().to_string();
    reverify(recorded, &parsed, &name, inputs, producer).expect("reverifies")
}

fn not_ok(checks: &[Check]) -> Vec<&Check> {
    checks.iter().filter(|c| !c.ok()).collect()
}

#[test]
fn records_of_this_release_verify() {
    for name in NAMES {
        let recorded = load(&format!("{name}.record.json"));
        assert_eq!(recorded["contract"], json!(CONTRACT), "{name}");
        let (record, checks, notes) = reverify_golden(&recorded);
        assert_eq!(record.contract, CONTRACT);
        assert_eq!(record.producer.name, "calibscope-cli");
        assert!(notes.is_empty(), "{name}: {notes:?}");
        assert!(checks.len() > 1000, "{name}: {} checks", checks.len());
        assert!(not_ok(&checks).is_empty(), "{name}: {:?}", not_ok(&checks));
        let odd: Vec<_> = checks
            .iter()
            .filter(|c| !matches!(c.status, Status::Identical { .. } | Status::Rounding { .. }))
            .collect();
        assert!(odd.is_empty(), "{name}: {odd:?}");
    }
}

/// Records the web app wrote (its wasm build, "Download record") verify natively:
/// every value for the binary and the multi-model file. For the multiclass file the
/// temperature and Platt fits end elsewhere natively (exp and ln differ in the last
/// bit between the wasm and the native maths libraries, and the fits' last
/// comparisons amplify that: τ 0.2745145442796678 in wasm, 0.27451454109936824
/// natively), so the values of those two fits differ; everything else verifies.
#[test]
fn records_of_the_app_verify_natively() {
    for name in NAMES {
        let recorded = load(&format!("{name}.app.record.json"));
        let (record, checks, notes) = reverify_golden(&recorded);
        assert_eq!(record.producer.name, "calibscope-app");
        assert_eq!(record.contract, CONTRACT);
        assert!(notes.is_empty(), "{name}: {notes:?}");
        assert!(checks.len() > 1000, "{name}: {} checks", checks.len());
        let bad = not_ok(&checks);
        if name == "digits_rf_probs" {
            assert!(
                bad.iter().all(
                    |c| c.path.starts_with("audits.0.recalibration.temperature.")
                        || c.path.starts_with("audits.0.recalibration.platt.")
                ),
                "{name}: {bad:?}"
            );
        } else {
            assert!(bad.is_empty(), "{name}: {bad:?}");
        }
    }
}

/// The paths (as `verify` writes them) of every `p_risk` of an object whose CSR is
/// at most 1 and whose recorded P_risk is not 0: the values contract v3 moved.
fn moved_p_risks(path: &str, v: &Value, out: &mut BTreeSet<String>) {
    let join = |k: &str| format!("{path}.{k}");
    match v {
        Value::Object(o) => {
            let csr = o.get("csr").and_then(Value::as_f64);
            let p = o.get("p_risk").and_then(Value::as_f64);
            if let (Some(csr), Some(p)) = (csr, p) {
                if csr <= 1.0 && p != 0.0 {
                    out.insert(join("p_risk"));
                    // the recorded value is the earlier definition's, Φ(zscore)
                    if let Some(z) = o.get("zscore").and_then(Value::as_f64) {
                        assert_eq!(p, normal_cdf(z), "{path}: recorded Φ(z)");
                    }
                }
            }
            for (k, x) in o {
                moved_p_risks(&join(k), x, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                moved_p_risks(&join(&i.to_string()), x, out);
            }
        }
        _ => {}
    }
}

#[test]
fn records_before_contract_3_verify_with_the_definition_change_named() {
    let mut seen = 0;
    for name in NAMES {
        let recorded = load(&format!("{name}.contract2.record.json"));
        assert!(
            recorded.get("contract").is_none(),
            "{name}: written before v3"
        );
        let (record, checks, _) = reverify_golden(&recorded);
        assert_eq!(record.contract, CONTRACT_OF_UNVERSIONED);
        assert!(checks.len() > 1000, "{name}: {} checks", checks.len());
        assert!(not_ok(&checks).is_empty(), "{name}: {:?}", not_ok(&checks));
        let mut expected = BTreeSet::new();
        moved_p_risks("audits", &recorded["audits"], &mut expected);
        let changed: BTreeSet<String> = checks
            .iter()
            .filter(|c| matches!(c.status, Status::DefinitionChanged { .. }))
            .map(|c| c.path.clone())
            .collect();
        assert!(!expected.is_empty(), "{name}: a CSR at most 1 somewhere");
        assert_eq!(changed, expected, "{name}");
        seen += changed.len();
        for c in &checks {
            match &c.status {
                Status::DefinitionChanged {
                    recorded,
                    recomputed,
                    contract,
                    ..
                } => {
                    assert_eq!((recomputed, *contract), (&json!(0.0), 3), "{}", c.path);
                    let sentence = c.status.definition_sentence().unwrap();
                    assert_eq!(
                        sentence,
                        format!(
                            "definition changed in contract v3 (P_risk is 0 when CSR ≤ 1): recorded {}, now 0",
                            recorded.as_f64().unwrap()
                        )
                    );
                }
                Status::Identical { .. } | Status::Rounding { .. } => {}
                other => panic!("{name}: {}: {other:?}", c.path),
            }
        }
    }
    // the three records: beyond_ece and the ledgers (binary, multiclass), the
    // multi-model rows
    assert!(seen >= 9, "{seen} values moved");
}

#[test]
fn a_record_before_contract_3_still_shows_real_differences() {
    let recorded = load("breast_cancer_logreg_logit.contract2.record.json");
    let status_of = |doc: &Value, path: &str| {
        let (_, checks, _) = reverify_golden(doc);
        checks
            .into_iter()
            .find(|c| c.path == path)
            .unwrap_or_else(|| panic!("{path} compared"))
            .status
    };
    let beyond = "audits.0.beyond_ece.p_risk";
    // a P_risk of CSR <= 1 that is not Φ(z): a difference
    let mut tampered = recorded.clone();
    tampered["audits"][0]["beyond_ece"]["p_risk"] = json!(0.3);
    assert!(matches!(
        status_of(&tampered, beyond),
        Status::Differs { .. }
    ));
    // the CSR itself changed: the P_risk is not explained away either
    let mut tampered = recorded.clone();
    let csr = recorded["audits"][0]["beyond_ece"]["csr"].as_f64().unwrap();
    tampered["audits"][0]["beyond_ece"]["csr"] = json!(csr * 1.001);
    assert!(matches!(
        status_of(&tampered, beyond),
        Status::Differs { .. }
    ));
    // any other value: a difference
    let mut tampered = recorded.clone();
    tampered["audits"][0]["binning_free"]["auc"] = json!(0.5);
    assert!(matches!(
        status_of(&tampered, "audits.0.binning_free.auc"),
        Status::Differs { .. }
    ));
    // the same record claiming contract 3: its old P_risk is a plain difference
    let mut claimed = recorded.clone();
    claimed["contract"] = json!(3);
    assert!(matches!(
        status_of(&claimed, beyond),
        Status::Differs { .. }
    ));
    // an impossible version is refused
    claimed["contract"] = json!("three");
    assert!(Record::from_json(&claimed)
        .unwrap_err()
        .contains("not a version of the metric contract"));
}
