//! The recalibration ledger, defined once: which metrics it shows (seed 001's table,
//! extended), which way each is better, whether a temperature can move it, and the
//! ledger of a `recalibration` section as typed rows — one cell per set (`before`,
//! then each method's evaluation split after it), each with its value, its path in
//! the section and whether it regressed. The web page renders [`Ledger`] as the
//! worker sends it; the Markdown summary and the HTML report print the same rows
//! ([`crate::summary::recalibration`]).

use crate::Method;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which way a metric is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Lower,
    Higher,
    /// Closer to 1 (CSR).
    One,
}

/// One metric of the ledger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowSpec {
    /// The key in a ledger object of the section (`nll`, `csr`, …).
    pub key: &'static str,
    /// The label for people.
    pub label: &'static str,
    /// The metric's help entry (the page's glossary key).
    pub help: &'static str,
    pub better: Better,
    /// Whether a temperature can move it, and why.
    pub can_tau: &'static str,
}

const fn spec(
    key: &'static str,
    label: &'static str,
    help: &'static str,
    better: Better,
    can_tau: &'static str,
) -> RowSpec {
    RowSpec {
        key,
        label,
        help,
        better,
        can_tau,
    }
}

/// The ledger's metrics, in order, for binary (`brier_positive`, `auc`) or
/// multiclass input (`brier_multiclass`, `auc_macro`).
pub fn rows(binary: bool) -> Vec<RowSpec> {
    use Better::*;
    let mut v = vec![
        spec(
            "ece_conf_width_15",
            "ECE (confidence, 15 equal-width bins)",
            "ece",
            Lower,
            "yes: the target",
        ),
        spec(
            "ece_conf_mass_15",
            "ECE (confidence, 15 equal-mass bins)",
            "ece",
            Lower,
            "yes: the target",
        ),
        spec("nll", "NLL", "nll", Lower, "yes: the fitting objective"),
    ];
    v.push(if binary {
        spec(
            "brier_positive",
            "Brier",
            "brier",
            Lower,
            "yes, either direction",
        )
    } else {
        spec(
            "brier_multiclass",
            "Brier (multiclass)",
            "brier",
            Lower,
            "yes, either direction",
        )
    });
    v.push(spec(
        "accuracy",
        "accuracy",
        "accuracy",
        Higher,
        if binary {
            "never: sign-preserving"
        } else {
            "never: order-preserving (argmax)"
        },
    ));
    v.push(if binary {
        spec(
            "auc",
            "AUC",
            "auc",
            Higher,
            "never: order-preserving (of s/τ; see the checks)",
        )
    } else {
        spec(
            "auc_macro",
            "AUC (macro one-vs-rest)",
            "auc",
            Higher,
            "yes, either direction (k ≥ 3: per-class AUC is not invariant)",
        )
    });
    v.extend([
        spec(
            "confce_corr_mass_15",
            "ConfCE^corr (15 equal-mass)",
            "confce_corr",
            Lower,
            "yes, either direction",
        ),
        spec(
            "lince_cw_mass_15",
            "LinCE^cw (15 equal-mass)",
            "lince_cw",
            Lower,
            "yes, either direction",
        ),
        spec("csr", "CSR", "csr", One, "yes, either direction"),
        spec("p_risk", "P_risk", "p_risk", Lower, "yes, either direction"),
        spec("cwa", "cwA", "cwa", Higher, "yes, either direction"),
    ]);
    v
}

/// The ledger's sets of `section`, in column order: `(key in the section, title)`,
/// `before` first, then every method of [`Method::EVERY`] the section holds (a web
/// page's section holds the probability maps too, and the multiclass maps once they
/// are asked for; an audit's the first three).
pub fn sets(section: &Value) -> Vec<(&'static str, String)> {
    let mut v = vec![("before", "before".to_string())];
    v.extend(
        Method::EVERY
            .iter()
            .filter(|m| section.get(m.name()).is_some())
            .map(|m| (m.name(), format!("after {}", m.title()))),
    );
    v
}

/// The section path of a ledger value of `set` (`before.nll`, `platt.after.nll`).
pub fn path(set: &str, key: &str) -> String {
    if set == "before" {
        format!("before.{key}")
    } else {
        format!("{set}.after.{key}")
    }
}

/// True when `after` is worse than `before` beyond rounding (a relative 1e-12).
pub fn worse(better: Better, before: f64, after: f64) -> bool {
    let eps = 1e-12 * before.abs().max(after.abs()).max(1.0);
    match better {
        Better::Lower => after > before + eps,
        Better::Higher => after < before - eps,
        Better::One => (after - 1.0).abs() > (before - 1.0).abs() + eps,
    }
}

/// The ledger of a `recalibration` section.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// The columns: `before`, then each method.
    pub sets: Vec<LedgerSet>,
    /// One line per metric of [`rows`].
    pub lines: Vec<LedgerLine>,
}

impl Ledger {
    /// The ledger without the columns undefined for `reason`, and without the
    /// lines then undefined in every column (a ragged log's: before and temperature
    /// scaling, no line that reads a class position).
    pub fn without_sets_undefined_for(self, reason: &str) -> Ledger {
        let keep: Vec<bool> = self
            .sets
            .iter()
            .map(|s| s.undefined.as_deref() != Some(reason))
            .collect();
        let kept = |v: Vec<LedgerCell>| -> Vec<LedgerCell> {
            v.into_iter()
                .zip(&keep)
                .filter(|(_, &k)| k)
                .map(|(c, _)| c)
                .collect()
        };
        let lines = self
            .lines
            .into_iter()
            .map(|l| LedgerLine {
                cells: kept(l.cells),
                ..l
            })
            .filter(|l| l.cells.iter().any(|c| c.value.is_some()))
            .collect();
        let sets = self
            .sets
            .into_iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(s, _)| s)
            .collect();
        Ledger { sets, lines }
    }
}

/// A column of the ledger.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LedgerSet {
    /// Its key in the section (`before`, `temperature`, …).
    pub key: String,
    pub title: String,
    /// Why the method is undefined (every cell of the column is then empty).
    pub undefined: Option<String>,
}

/// A metric's line of the ledger.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LedgerLine {
    pub key: String,
    pub label: String,
    pub help: String,
    pub can_tau: String,
    /// One cell per set, in [`Ledger::sets`] order.
    pub cells: Vec<LedgerCell>,
}

/// A value of the ledger.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LedgerCell {
    /// Its path in the section ([`path`]).
    pub path: String,
    /// `None`: undefined (or the set is).
    pub value: Option<f64>,
    /// Worse than before ([`worse`]); never for `before` itself.
    pub worse: bool,
}

/// The value at a dotted path of `v`.
fn at(v: &Value, dotted: &str) -> Option<f64> {
    dotted
        .split('.')
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_f64)
}

/// The ledger of `section` (an audit's `recalibration`): every metric of
/// [`rows`]`(binary)` for every set of [`sets`]. A method whose entry says
/// `undefined` gets that reason and empty cells; a missing value is `None` and never
/// marked worse.
pub fn ledger(section: &Value, binary: bool) -> Ledger {
    let sets: Vec<LedgerSet> = sets(section)
        .into_iter()
        .map(|(key, title)| LedgerSet {
            key: key.to_string(),
            title,
            undefined: section
                .get(key)
                .and_then(|s| s.get("undefined"))
                .and_then(Value::as_str)
                .map(String::from),
        })
        .collect();
    let lines = rows(binary)
        .into_iter()
        .map(|r| {
            let before = at(section, &path("before", r.key));
            let cells = sets
                .iter()
                .map(|set| {
                    let path = path(&set.key, r.key);
                    let value = if set.undefined.is_some() {
                        None
                    } else {
                        at(section, &path)
                    };
                    let worse = set.key != "before"
                        && matches!((before, value), (Some(b), Some(a)) if worse(r.better, b, a));
                    LedgerCell { path, value, worse }
                })
                .collect();
            LedgerLine {
                key: r.key.into(),
                label: r.label.into(),
                help: r.help.into(),
                can_tau: r.can_tau.into(),
                cells,
            }
        })
        .collect();
    Ledger { sets, lines }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn regressions_undefined_sets_and_missing_values() {
        let section = json!({
            "before": {"nll": 0.5, "csr": 2.0, "accuracy": 0.9},
            "temperature": {"after": {"nll": 0.4, "csr": 0.5, "accuracy": 0.9}},
            "platt": {"after": {"nll": 0.6, "csr": 1.5, "accuracy": 0.8}},
            "isotonic": {"undefined": "the calibration split lacks class 1"},
        });
        let l = ledger(&section, true);
        assert_eq!(l.sets.len(), 4);
        let mut with_beta = section.clone();
        with_beta["beta"] = json!({"after": {"nll": 0.3}});
        let titles: Vec<String> = ledger(&with_beta, true)
            .sets
            .into_iter()
            .map(|s| s.title)
            .collect();
        assert_eq!(
            titles,
            [
                "before",
                "after temperature",
                "after Platt",
                "after isotonic",
                "after beta"
            ]
        );
        assert_eq!(
            l.sets[3].undefined.as_deref(),
            Some("the calibration split lacks class 1")
        );
        let line = |k: &str| l.lines.iter().find(|x| x.key == k).unwrap();
        let worse: Vec<bool> = line("nll").cells.iter().map(|c| c.worse).collect();
        assert_eq!(worse, [false, false, true, false]);
        // CSR: 0.5 and 1.5 are both closer to 1 than 2.0: neither is worse
        let csr: Vec<bool> = line("csr").cells.iter().map(|c| c.worse).collect();
        assert_eq!(csr, [false, false, false, false]);
        assert!(line("accuracy").cells[2].worse);
        assert_eq!(line("accuracy").cells[2].path, "platt.after.accuracy");
        assert_eq!(line("auc").cells[1].value, None);
        assert!(l
            .lines
            .iter()
            .all(|x| x.cells[3].value.is_none() && !x.cells[3].worse));
    }

    #[test]
    fn binary_and_multiclass_rows() {
        let keys = |b| rows(b).iter().map(|r| r.key).collect::<Vec<_>>();
        assert!(keys(true).contains(&"brier_positive") && keys(true).contains(&"auc"));
        assert!(keys(false).contains(&"brier_multiclass") && keys(false).contains(&"auc_macro"));
        assert_eq!(keys(true).len(), keys(false).len());
    }
}
