//! The recalibration section.
use calibscope_core::PredictionSet;
use serde_json::Value;

/// Split and fit settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RecalibrationSettings {
    pub seed: u64,
    pub fraction: f64,
}

impl Default for RecalibrationSettings {
    fn default() -> Self {
        RecalibrationSettings {
            seed: 0,
            fraction: 0.5,
        }
    }
}

/// TODO(recal): filled in when the fits land.
pub fn recalibration_json(_set: &PredictionSet, _settings: &RecalibrationSettings) -> Value {
    Value::Null
}
