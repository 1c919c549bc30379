//! What the Recalibrate view draws beside the audit's `recalibration` section: the
//! split's class counts, the τ curve, every method's probability checks, the fitted
//! maps and the worker's timing ([`RecalView`], in [`crate::FromWorker::Recalibrated`]).

use calibscope_audit::ledger::Ledger;
use calibscope_audit::Method;
use calibscope_core::recal::checks::ProbChecks;
use serde::{Deserialize, Serialize};

/// The view's part of a recalibration answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecalView {
    pub timing: Timing,
    pub class_counts: ClassCounts,
    pub class_names: Vec<String>,
    /// The calibration NLL at log-spaced τ in `[0.05, 20]` (`[τ, nll]`; empty when the
    /// calibration split is).
    pub tau_curve: Vec<[f64; 2]>,
    /// Each method's probability checks on the evaluation split (`None`: the method
    /// is undefined or not fitted yet).
    pub checks: PerMethod<Checks>,
    /// Each method's fitted map (`None`: undefined or not fitted yet).
    pub maps: PerMethod<FittedMap>,
    /// The ledger of the answer's `recalibration` section (calibscope-audit's
    /// `ledger`, the rows the Markdown summary and the report print too).
    #[serde(default)]
    pub ledger: Ledger,
    /// Each method's fit in worker milliseconds (`None`: no clock, or not fitted).
    #[serde(default)]
    pub fit_ms: PerMethod<f64>,
    /// Why every map but temperature scaling is left out of this data set (a
    /// ragged log's class positions), if it is; the ledger then has no column for
    /// them.
    #[serde(default)]
    pub left_out: Option<String>,
}

/// One value per recalibration method.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PerMethod<T> {
    pub temperature: Option<T>,
    pub platt: Option<T>,
    pub isotonic: Option<T>,
    #[serde(default)]
    pub beta: Option<T>,
    #[serde(default)]
    pub histogram: Option<T>,
    #[serde(default)]
    pub venn_abers: Option<T>,
    #[serde(default)]
    pub vector: Option<T>,
    #[serde(default)]
    pub matrix: Option<T>,
    #[serde(default)]
    pub dirichlet: Option<T>,
}

impl<T> Default for PerMethod<T> {
    fn default() -> Self {
        PerMethod {
            temperature: None,
            platt: None,
            isotonic: None,
            beta: None,
            histogram: None,
            venn_abers: None,
            vector: None,
            matrix: None,
            dirichlet: None,
        }
    }
}

impl<T> PerMethod<T> {
    /// The value of `method`.
    pub fn get(&self, method: Method) -> Option<&T> {
        match method {
            Method::Temperature => self.temperature.as_ref(),
            Method::Platt => self.platt.as_ref(),
            Method::Isotonic => self.isotonic.as_ref(),
            Method::Beta => self.beta.as_ref(),
            Method::Histogram => self.histogram.as_ref(),
            Method::VennAbers => self.venn_abers.as_ref(),
            Method::Vector => self.vector.as_ref(),
            Method::Matrix => self.matrix.as_ref(),
            Method::Dirichlet => self.dirichlet.as_ref(),
        }
    }

    /// Sets the value of `method`.
    pub fn set(&mut self, method: Method, value: T) {
        let slot = match method {
            Method::Temperature => &mut self.temperature,
            Method::Platt => &mut self.platt,
            Method::Isotonic => &mut self.isotonic,
            Method::Beta => &mut self.beta,
            Method::Histogram => &mut self.histogram,
            Method::VennAbers => &mut self.venn_abers,
            Method::Vector => &mut self.vector,
            Method::Matrix => &mut self.matrix,
            Method::Dirichlet => &mut self.dirichlet,
        };
        *slot = Some(value);
    }

    /// Whether `method` has a value.
    pub fn has(&self, method: Method) -> bool {
        self.get(method).is_some()
    }
}

/// The worker's milliseconds for the parts of the answer (`None`: no clock, or the
/// part did not run in this answer's session).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// The temperature fit itself (objective and golden-section search).
    pub fit_ms: Option<f64>,
    /// Split, temperature fit and its checks.
    pub temperature_ms: Option<f64>,
    /// The first answer (split and temperature scaling).
    pub first_ms: Option<f64>,
    /// The Platt and isotonic fits.
    pub maps_ms: Option<f64>,
    /// The second, complete answer.
    pub full_ms: Option<f64>,
    /// The multiclass maps (vector, matrix, Dirichlet), asked for after the
    /// complete answer: the job from request to answer.
    #[serde(default)]
    pub multiclass_ms: Option<f64>,
}

/// Rows of each class in the calibration and the evaluation split.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassCounts {
    pub calibration: Vec<usize>,
    pub evaluation: Vec<usize>,
}

/// The probability-level checks of one method on the evaluation split
/// (calibscope-core's `ProbChecks`, flattened).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Checks {
    /// Rows whose predicted class changed.
    pub argmax_changed_rows: usize,
    pub argmax_identical: bool,
    /// Accuracy before and after (`None` on an empty split).
    pub accuracy_before: Option<f64>,
    pub accuracy_after: Option<f64>,
    pub accuracy_identical: bool,
    /// Per probability column, whether its stable sort order is unchanged.
    pub argsort_identical_per_class: Vec<bool>,
    /// Per class, one-vs-rest AUC after minus before (`None` where undefined).
    pub auc_change_per_class: Vec<Option<f64>>,
    /// Macro AUC after minus before.
    pub auc_macro_change: Option<f64>,
    /// Distinct values of the plotted reading before and after (fewer after: ties).
    pub distinct_before: usize,
    pub distinct_after: usize,
}

impl From<&ProbChecks> for Checks {
    fn from(c: &ProbChecks) -> Checks {
        Checks {
            argmax_changed_rows: c.argmax_changed_rows,
            argmax_identical: c.argmax_identical(),
            accuracy_before: c.accuracy.0,
            accuracy_after: c.accuracy.1,
            accuracy_identical: c.accuracy.0 == c.accuracy.1,
            argsort_identical_per_class: c.argsort_identical_per_class.clone(),
            auc_change_per_class: c.auc_change_per_class.clone(),
            auc_macro_change: c.auc_macro_change,
            distinct_before: c.distinct_values.0,
            distinct_after: c.distinct_values.1,
        }
    }
}

/// What a fitted map's x axis holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MapAxis {
    /// The binary raw score `s` (a logit).
    #[default]
    S,
    /// A one-vs-rest raw logit `z_r`.
    ZR,
    /// The raw top-label confidence (temperature scaling of multiclass input).
    Confidence,
}

/// One fitted map: curves of score → recalibrated probability, or (temperature
/// scaling of multiclass input, which has no single score map) a scatter of
/// evaluation rows, raw confidence → recalibrated probability of the same class.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FittedMap {
    pub x: MapAxis,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<MapCurve>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scatter: Vec<[f64; 2]>,
    /// The number of classes (one-vs-rest maps: only the first few are drawn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classes_total: Option<usize>,
}

/// One class's curve of a fitted map (`[x, p]` points).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MapCurve {
    pub class: usize,
    pub points: Vec<[f64; 2]>,
}
