//! Multi-model audits and the ranking-flips section.
use serde_json::Value;

/// The metrics ranked across models.
pub const RANKING_METRICS: [&str; 6] = [
    "confece",
    "confce",
    "confce_corr",
    "lince_cw",
    "cwece",
    "rmsce_conf",
];

/// TODO(multi): filled in next.
pub fn multi_model_json() -> Value {
    Value::Null
}
