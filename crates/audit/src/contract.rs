//! Records across versions of the metric contract. A record says which version of
//! the contract its numbers were computed under (`"contract": 3`; a record without
//! the field was written before version 3, under version 2). When a record written
//! under an earlier version is verified, a value that moved only because a
//! definition changed since is told apart from a real difference
//! ([`Status::DefinitionChanged`]): it is counted as verified and shown with the
//! change that moved it.
//!
//! The changes known here (`../shared/METRICS.md`, "Changes"):
//! - version 3: `P_risk = 0` when `CSR <= 1` (it was `Φ(zscore)` for every CSR).

use crate::record::{compare, Check, Status};
use calibscope_core::special::normal_cdf;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The version of the metric contract this release computes under (written in
/// every record).
pub const CONTRACT: u32 = 3;

/// The version of a record that does not name one: records gained the field in
/// version 3.
pub const CONTRACT_OF_UNVERSIONED: u32 = 2;

/// A definition that changed in a version of the contract.
struct Change {
    /// The version that changed it.
    version: u32,
    /// The key of the values it moved, in any object of a record's documents.
    key: &'static str,
    /// The change, in a few words.
    what: &'static str,
    /// Whether the recorded value is the earlier definition's and the recomputed
    /// one the new definition's, given both objects holding the key.
    earlier: fn(recorded: &Map<String, Value>, recomputed: &Map<String, Value>) -> bool,
}

const CHANGES: [Change; 1] = [Change {
    version: 3,
    key: "p_risk",
    what: "P_risk is 0 when CSR ≤ 1",
    earlier: p_risk_was_phi,
}];

/// Whether two values verify (identical, or equal up to rounding).
fn same(a: &Value, b: &Value) -> bool {
    matches!(
        compare(a, b),
        Status::Identical { .. } | Status::Rounding { .. }
    )
}

/// `P_risk` before version 3 was `Φ(zscore)` for every CSR; since, it is 0 when
/// `CSR <= 1`. The recorded value is the earlier definition's when: the recomputed
/// value is 0 with a recomputed CSR of at most 1 that the record holds too (so the
/// data and the CSR are the same), and the recorded value is `Φ` of the recomputed
/// z-score where the object holds one (`beyond_ece`), up to rounding; where it holds
/// none (the recalibration ledger, the multi-model rows), a value `Φ(z)` takes for
/// `CSR <= 1`, in `(0, 0.5]`.
fn p_risk_was_phi(recorded: &Map<String, Value>, recomputed: &Map<String, Value>) -> bool {
    let (Some(old), Some(new)) = (recorded["p_risk"].as_f64(), recomputed["p_risk"].as_f64())
    else {
        return false;
    };
    let csr_verifies = match (recorded.get("csr"), recomputed.get("csr")) {
        (Some(a), Some(b)) => same(a, b) && b.as_f64().is_some_and(|c| c <= 1.0),
        _ => false,
    };
    if new != 0.0 || !csr_verifies {
        return false;
    }
    match (recorded.get("zscore"), recomputed.get("zscore")) {
        (Some(a), Some(b)) => {
            let Some(z) = b.as_f64() else { return false };
            same(a, b) && same(&recorded["p_risk"], &serde_json::json!(normal_cdf(z)))
        }
        _ => old > 0.0 && old <= 0.5,
    }
}

/// The paths (as [`crate::verify`] writes them) of the values a definition change
/// moved, with the change, for a record computed under `contract`.
fn moved(
    contract: u32,
    path: &str,
    recorded: &Value,
    recomputed: &Value,
    out: &mut HashMap<String, &'static Change>,
) {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match (recorded, recomputed) {
        (Value::Object(x), Value::Object(y)) => {
            for change in CHANGES.iter().filter(|c| c.version > contract) {
                if x.contains_key(change.key)
                    && y.contains_key(change.key)
                    && (change.earlier)(x, y)
                {
                    out.insert(join(change.key), change);
                }
            }
            for (k, a) in x {
                if let Some(b) = y.get(k) {
                    moved(contract, &join(k), a, b, out);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (a, b)) in x.iter().zip(y).enumerate() {
                moved(contract, &join(&i.to_string()), a, b, out);
            }
        }
        _ => {}
    }
}

/// Marks the differing checks of a record computed under `contract` whose value
/// moved only because a definition changed since ([`Status::DefinitionChanged`]);
/// `recorded` and `recomputed` are the compared documents. Nothing changes for a
/// record of the current version.
pub(crate) fn explain(contract: u32, recorded: &Value, recomputed: &Value, checks: &mut [Check]) {
    if contract >= CONTRACT {
        return;
    }
    let mut changes = HashMap::new();
    for key in ["audits", "tables"] {
        if let (Some(a), Some(b)) = (recorded.get(key), recomputed.get(key)) {
            moved(contract, key, a, b, &mut changes);
        }
    }
    for check in checks {
        let Status::Differs {
            recorded,
            recomputed,
        } = &check.status
        else {
            continue;
        };
        if let Some(change) = changes.get(&check.path) {
            check.status = Status::DefinitionChanged {
                recorded: recorded.clone(),
                recomputed: recomputed.clone(),
                contract: change.version,
                change: change.what,
            };
        }
    }
}

/// A number as Rust writes an `f64` (`0`, not JSON's `0.0`), anything else as JSON.
fn plain(v: &Value) -> String {
    match v.as_f64() {
        Some(x) => x.to_string(),
        None => v.to_string(),
    }
}

impl Status {
    /// The sentence of a value moved by a definition change, e.g. "definition changed
    /// in contract v3 (P_risk is 0 when CSR ≤ 1): recorded 0.3695, now 0"; `None`
    /// for every other status. The CLI and the app both show it.
    pub fn definition_sentence(&self) -> Option<String> {
        match self {
            Status::DefinitionChanged {
                recorded,
                recomputed,
                contract,
                change,
            } => Some(format!(
                "definition changed in contract v{contract} ({change}): recorded {}, now {}",
                plain(recorded),
                plain(recomputed)
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(path: &str, recorded: Value, recomputed: Value) -> Check {
        Check {
            path: path.into(),
            status: Status::Differs {
                recorded,
                recomputed,
            },
        }
    }

    #[test]
    fn only_the_earlier_definitions_value_is_explained() {
        let z = -0.3322;
        let phi = normal_cdf(z);
        let doc = |p: f64, csr: f64| {
            json!({"audits": [{"beyond_ece": {"csr": csr, "zscore": z, "p_risk": p},
                               "recalibration": {"before": {"csr": csr, "p_risk": p}}}]})
        };
        let recomputed = doc(0.0, 0.95);
        let paths = [
            "audits.0.beyond_ece.p_risk",
            "audits.0.recalibration.before.p_risk",
        ];
        let run = |recorded: &Value, contract: u32| {
            let mut checks: Vec<Check> = paths
                .iter()
                .map(|p| check(p, json!(phi), json!(0.0)))
                .collect();
            explain(contract, recorded, &recomputed, &mut checks);
            checks
                .iter()
                .map(|c| matches!(c.status, Status::DefinitionChanged { contract: 3, .. }))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(&doc(phi, 0.95), 2), [true, true]);
        // a record of this version: a difference is a difference
        assert_eq!(run(&doc(phi, 0.95), 3), [false, false]);
        // not the earlier definition's value: Φ(z) is checked where z is recorded
        assert_eq!(run(&doc(phi + 1e-6, 0.95), 2), [false, true]);
        assert_eq!(run(&doc(0.7, 0.95), 2), [false, false]);
        // the CSR itself moved: the data differ
        assert_eq!(run(&doc(phi, 0.951), 2), [false, false]);
        let sentence = Status::DefinitionChanged {
            recorded: json!(0.3695),
            recomputed: json!(0.0),
            contract: 3,
            change: CHANGES[0].what,
        }
        .definition_sentence();
        assert_eq!(
            sentence.as_deref(),
            Some("definition changed in contract v3 (P_risk is 0 when CSR ≤ 1): recorded 0.3695, now 0")
        );
    }
}
