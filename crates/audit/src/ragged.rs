//! Audits of inputs whose rows have different numbers of choices (an
//! lm-evaluation-harness log of a task like ARC; [`calibscope_io::Ragged`]).
//!
//! The padded logit matrix gives each row's padding choices probability exactly 0,
//! so every reading of a row's own distribution is that of its own choices: the
//! confidence (top-label) reading, accuracy, NLL, the multiclass Brier score (a
//! padding choice adds `(0 − 0)² = 0`), CSR and the rest of the confidence-based
//! risk metrics, and temperature scaling (`crates/audit/tests/ragged.rs` checks them
//! against naive formulas on each question's own log-likelihoods). What reads one
//! class position across rows does not survive: "choice 3" is a different answer in
//! every question and missing from some, so the classwise readings, the per-class
//! AUCs and their macro average (and temperature scaling's per-class order checks
//! and AUC changes), the classwise confusion counts and the classwise
//! accuracy (cwA and its gain) are removed from the document, as is `Brier/k` (k is
//! not one number), and `input` says why
//! (`input.classwise_unavailable`) with the choice counts (`input.choices`).
//! Platt, isotonic and the other maps fitted per class position are undefined
//! (`RecalibrationSettings::class_positions_differ`).

use calibscope_io::Ragged;
use serde_json::{json, Value};

/// The keys that read a class position across rows (anywhere in the document:
/// the audit, the recalibration's before/after, the models of a multi-model audit).
const CLASSWISE_KEYS: [&str; 16] = [
    "classwise",
    // the classwise metrics' rankings of a multi-model audit (`ranking.metrics`)
    "cwece",
    "lince_cw",
    "prob_argsort_identical_per_class",
    "prob_auc_change_per_class",
    "prob_auc_macro_change",
    "cw_confusion",
    "cw_identity",
    "cwauc",
    "auc_per_class",
    "auc_macro",
    "cwece_width_15",
    "lince_cw_mass_15",
    "cwa",
    "gain",
    "brier_over_k",
];

/// Removes the classwise values from an audit document of ragged rows and records
/// why in every `input` object (see the module docs).
pub fn mark(doc: &mut Value, ragged: &Ragged) {
    let why = ragged.why_no_classwise();
    strip(doc, &why, ragged);
}

fn strip(v: &mut Value, why: &str, ragged: &Ragged) {
    match v {
        Value::Object(o) => {
            for key in CLASSWISE_KEYS {
                o.remove(key);
            }
            if let Some(Value::Object(input)) = o.get_mut("input") {
                input.insert(
                    "choices".into(),
                    json!({"min": ragged.min, "max": ragged.max}),
                );
                input.insert("classwise_unavailable".into(), json!(why));
            }
            for (key, child) in o.iter_mut() {
                if key != "input" {
                    strip(child, why, ragged);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|c| strip(c, why, ragged)),
        _ => {}
    }
}
