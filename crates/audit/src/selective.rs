//! Coverage and the risk–coverage curve of a model that abstained on some questions
//! (a verbalised-confidence table, [`calibscope_io::verbal::Selective`]): the audit
//! is of the answered questions; these say how many were answered and how the
//! accuracy changes when only the most confident answers are kept
//! ([`calibscope_core::selective`], after Geifman & El-Yaniv, "Selective
//! classification for deep neural networks", 2017).
//!
//! Written into the document: `coverage` (answered / total), `answered`, `total`,
//! and `risk_coverage` = `{"points": [{threshold, coverage, accuracy, risk}],
//! "area": AURC}` (`null` when nothing was answered).

use calibscope_core::data::{PredictionSet, Scores};
use calibscope_core::selective::risk_coverage;
use calibscope_io::verbal::Selective;
use serde_json::{json, Value};

/// Adds the coverage and the risk–coverage curve of `set` (the answered questions,
/// a top-label set) among `sel.total` questions to a single-model document.
pub fn insert(doc: &mut Value, set: &PredictionSet, sel: &Selective) {
    let Scores::TopLabel {
        predicted,
        confidence,
    } = &set.scores
    else {
        return;
    };
    let pairs: Vec<(f64, bool)> = (0..set.n())
        .map(|i| (confidence.get(i), set.labels[i] == predicted[i]))
        .collect();
    let Some(o) = doc.as_object_mut() else { return };
    let rc = risk_coverage(&pairs, sel.total);
    o.insert("answered".into(), json!(pairs.len()));
    o.insert("total".into(), json!(sel.total));
    o.insert(
        "coverage".into(),
        json!(pairs.len() as f64 / sel.total.max(1) as f64),
    );
    o.insert(
        "risk_coverage".into(),
        rc.map_or(Value::Null, |rc| {
            json!({
                "points": rc.points.iter().map(|p| json!({
                    "threshold": p.threshold, "coverage": p.coverage,
                    "accuracy": p.accuracy, "risk": p.risk,
                })).collect::<Vec<_>>(),
                "area": rc.area,
            })
        }),
    );
}
