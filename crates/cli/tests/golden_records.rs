//! `calibscope verify` on the golden records of `crates/audit/tests/golden` (records
//! written by released CLIs, committed with their data): a record of this contract
//! verifies with every value identical; a record written before contract v3 exits 0
//! and names each P_risk moved by the definition change (Δ) instead of a ✗; a real
//! difference in an old record still fails.

// the golden records and their data are in this repository: no fixture locator
use crate::support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use support::calibscope;

const NAMES: [&str; 3] = [
    "breast_cancer_logreg_logit",
    "digits_rf_probs",
    "digits_zoo3_head60_probs",
];

fn golden(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../audit/tests/golden")
        .join(file)
}

fn verify(record: &Path, data: &Path) -> (Option<i32>, String) {
    let out = calibscope(&[
        "verify",
        "--failures-only",
        record.to_str().unwrap(),
        data.to_str().unwrap(),
    ]);
    (out.status.code(), String::from_utf8(out.stdout).unwrap())
}

/// The number of P_risk values whose CSR is at most 1 and recorded value not 0.
fn moved(v: &Value) -> usize {
    match v {
        Value::Object(o) => {
            let here = match (
                o.get("csr").and_then(Value::as_f64),
                o.get("p_risk").and_then(Value::as_f64),
            ) {
                (Some(csr), Some(p)) => usize::from(csr <= 1.0 && p != 0.0),
                _ => 0,
            };
            here + o.values().map(moved).sum::<usize>()
        }
        Value::Array(a) => a.iter().map(moved).sum(),
        _ => 0,
    }
}

#[test]
fn golden_records_verify_across_contract_versions() {
    for name in NAMES {
        let data = golden(&format!("{name}.csv"));
        // this contract: nothing but the summary line
        let (code, out) = verify(&golden(&format!("{name}.record.json")), &data);
        assert_eq!(code, Some(0), "{name}: {out}");
        assert_eq!(out.lines().count(), 1, "{name}: {out}");
        assert!(
            out.contains(", 0 differ or are missing") && out.ends_with("metric contract v3)\n"),
            "{out}"
        );
        // before contract 3: exit 0, the moved P_risk values named
        let old = golden(&format!("{name}.contract2.record.json"));
        let (code, out) = verify(&old, &data);
        assert_eq!(code, Some(0), "{name}: {out}");
        let recorded: Value =
            serde_json::from_str(&std::fs::read_to_string(&old).unwrap()).unwrap();
        let expected = moved(&recorded["audits"]);
        let named: Vec<&str> = out.lines().filter(|l| l.starts_with("Δ ")).collect();
        assert!(expected > 0);
        assert_eq!(named.len(), expected, "{name}: {out}");
        for line in &named {
            assert!(
                line.contains(".p_risk: definition changed in contract v3 (P_risk is 0 when CSR ≤ 1): recorded 0.")
                    && line.ends_with(", now 0"),
                "{line}"
            );
        }
        assert!(!out.contains('✗'), "{out}");
        assert!(
            out.contains(&format!(
                "{expected} of them moved only because a definition changed"
            )) && out.contains("build dev, metric contract v2; this calibscope computes v3)"),
            "{out}"
        );
    }
}

#[test]
fn a_real_difference_in_an_old_record_still_fails() {
    let old = golden("breast_cancer_logreg_logit.contract2.record.json");
    let mut recorded: Value = serde_json::from_str(&std::fs::read_to_string(old).unwrap()).unwrap();
    recorded["audits"][0]["beyond_ece"]["p_risk"] = json!(0.3);
    let path = std::env::temp_dir().join(format!("calibscope-golden-{}.json", std::process::id()));
    std::fs::write(&path, serde_json::to_string(&recorded).unwrap()).unwrap();
    let (code, out) = verify(&path, &golden("breast_cancer_logreg_logit.csv"));
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("✗ audits.0.beyond_ece.p_risk: recorded 0.3, recomputed 0.0"),
        "{out}"
    );
    assert!(out.contains(", 1 differ or are missing"), "{out}");
}
