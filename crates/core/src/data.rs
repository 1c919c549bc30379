//! Prediction sets: the columnar input of every metric (METRICS.md §1).
//!
//! Storage is columnar and compact: one contiguous row-major score matrix in the
//! precision the file had (`f32` for frameworks' float32 exports, `f64` for decimal
//! text), plus `u32` labels. All accumulation downstream is in `f64`. Nothing here
//! makes an `n × k` `f64` copy: probabilities of logit input are produced on demand
//! from a per-row log-sum-exp (see [`crate::reading::ProbView`]).

use std::fmt;

/// A stored score: `f32` or `f64`, widened to `f64` on read.
pub trait Real: Copy + Send + Sync + PartialOrd + fmt::Debug + 'static {
    /// The value as `f64` (exact for both `f32` and `f64`).
    fn to_f64(self) -> f64;
    /// `self - m` rounded once to `f32`, for an `m` that is a value of this type (so
    /// the `f64` difference is exact): in `f32` arithmetic for `f32` (vectorises).
    fn delta_f32(self, m: f64) -> f32;
    /// Stored values of this type.
    fn into_values(v: Vec<Self>) -> Values;
}
impl Real for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn delta_f32(self, m: f64) -> f32 {
        self - m as f32
    }
    fn into_values(v: Vec<Self>) -> Values {
        Values::F32(v)
    }
}
impl Real for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn delta_f32(self, m: f64) -> f32 {
        (self - m) as f32
    }
    fn into_values(v: Vec<Self>) -> Values {
        Values::F64(v)
    }
}

/// Scores in the precision the input had.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Single precision, as frameworks' float32 exports.
    F32(Vec<f32>),
    /// Double precision, as decimal text.
    F64(Vec<f64>),
}

impl Values {
    /// Number of stored scalars.
    pub fn len(&self) -> usize {
        match self {
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
        }
    }
    /// True when no scalar is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Scalar `j` widened to `f64`.
    #[inline]
    pub fn get(&self, j: usize) -> f64 {
        match self {
            Values::F32(v) => v[j] as f64,
            Values::F64(v) => v[j],
        }
    }
    /// True when every scalar is finite (a branch-free pass over blocks, which
    /// vectorises; stops at the first block holding a NaN or an infinity).
    pub fn all_finite(&self) -> bool {
        fn all<T: Copy>(v: &[T], finite: impl Fn(T) -> bool) -> bool {
            v.chunks(4096)
                .all(|c| c.iter().fold(true, |ok, &x| ok & finite(x)))
        }
        match self {
            Values::F32(v) => all(v, f32::is_finite),
            Values::F64(v) => all(v, f64::is_finite),
        }
    }
    /// Bytes held by the scalars.
    pub fn byte_size(&self) -> usize {
        match self {
            Values::F32(v) => v.len() * 4,
            Values::F64(v) => v.len() * 8,
        }
    }
}

/// Runs `$body` with `$slice` bound to the typed slice of a [`Values`], so hot loops
/// are monomorphised instead of matching per element.
#[macro_export]
macro_rules! with_values {
    ($values:expr, |$slice:ident| $body:expr) => {
        match $values {
            $crate::data::Values::F32($slice) => {
                let $slice: &[f32] = $slice;
                $body
            }
            $crate::data::Values::F64($slice) => {
                let $slice: &[f64] = $slice;
                $body
            }
        }
    };
}

/// What the score columns hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Source {
    /// Probabilities (`P(y=1)` for one column, a probability vector for k columns).
    Probs,
    /// Logits (a binary logit `s` for one column, `z` with `p = softmax(z)` for k).
    Logits,
    /// Top-label only: predicted class and its confidence, no vector.
    TopLabel,
}

impl Source {
    /// The name used in audit JSON (`probs`, `logits`, `toplabel`).
    pub fn name(self) -> &'static str {
        match self {
            Source::Probs => "probs",
            Source::Logits => "logits",
            Source::TopLabel => "toplabel",
        }
    }
}

/// The kind of prediction problem (METRICS.md §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Kind {
    /// k = 2, given as one column or two.
    Binary,
    /// k ≥ 3 probability or logit vectors.
    Multiclass,
    /// Predicted class + confidence only.
    TopLabel,
}

impl Kind {
    /// The name used in audit JSON (`binary`, `multiclass`, `toplabel`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Binary => "binary",
            Kind::Multiclass => "multiclass",
            Kind::TopLabel => "toplabel",
        }
    }
}

/// The scores of a prediction set.
#[derive(Clone, Debug, PartialEq)]
pub enum Scores {
    /// One column per sample: `P(y=1)` (`source = Probs`) or a logit `s` (`Logits`).
    /// Always binary (k = 2).
    Column {
        /// One value per sample.
        values: Values,
        /// `Probs` or `Logits`.
        source: Source,
    },
    /// `n × k` row-major matrix of probabilities or logits.
    Matrix {
        /// `n × k` values, row-major.
        values: Values,
        /// Number of columns (= classes).
        k: usize,
        /// `Probs` or `Logits`.
        source: Source,
    },
    /// Top-label form: predicted class and its confidence.
    TopLabel {
        /// The predicted class of each sample.
        predicted: Vec<u32>,
        /// Its confidence in `[0, 1]`.
        confidence: Values,
    },
}

/// One model's predictions on `n` samples with their labels.
#[derive(Clone, Debug, PartialEq)]
pub struct PredictionSet {
    /// True labels, `0..k`.
    pub labels: Vec<u32>,
    /// The scores.
    pub scores: Scores,
    /// Number of classes (≥ 2).
    pub k: usize,
}

/// A kind of invalid input (the fixtures README's `kind` strings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InputErrorKind {
    /// A NaN or infinite score.
    NanOrInf,
    /// A probability outside `[0, 1]`.
    ProbOutOfRange,
    /// A probability row that does not sum to 1 within `1e-3`.
    RowSum,
    /// A label outside `0..k`.
    LabelOutOfRange,
}

impl InputErrorKind {
    /// Stable code used in JSON and by the UI.
    pub fn code(self) -> &'static str {
        match self {
            InputErrorKind::NanOrInf => "nan_or_inf",
            InputErrorKind::ProbOutOfRange => "prob_out_of_range",
            InputErrorKind::RowSum => "row_sum",
            InputErrorKind::LabelOutOfRange => "label_out_of_range",
        }
    }
}

/// One located input error found by [`PredictionSet::validate`].
#[derive(Clone, Debug, PartialEq)]
pub struct InputError {
    /// 0-based data row.
    pub row: usize,
    /// What is wrong.
    pub kind: InputErrorKind,
    /// 0-based score column (within the score columns) when one column is at fault.
    pub column: Option<usize>,
    /// The offending value (the row sum for `RowSum`, the label for `LabelOutOfRange`).
    pub value: f64,
}

/// Tolerance on probability row sums (METRICS.md §1).
pub const ROW_SUM_TOLERANCE: f64 = 1e-3;

impl PredictionSet {
    /// Number of samples.
    pub fn n(&self) -> usize {
        self.labels.len()
    }

    /// The problem kind: binary for k = 2 in any form, top-label, else multiclass.
    pub fn kind(&self) -> Kind {
        match &self.scores {
            Scores::TopLabel { .. } => Kind::TopLabel,
            _ if self.k == 2 => Kind::Binary,
            _ => Kind::Multiclass,
        }
    }

    /// What the scores hold.
    pub fn source(&self) -> Source {
        match &self.scores {
            Scores::Column { source, .. } | Scores::Matrix { source, .. } => *source,
            Scores::TopLabel { .. } => Source::TopLabel,
        }
    }

    /// Number of score columns as the input gave them: 1 for `p`/`logit`, k for a
    /// matrix, 0 for top-label.
    pub fn columns(&self) -> usize {
        match &self.scores {
            Scores::Column { .. } => 1,
            Scores::Matrix { k, .. } => *k,
            Scores::TopLabel { .. } => 0,
        }
    }

    /// Bytes held by labels and scores.
    pub fn byte_size(&self) -> usize {
        self.labels.len() * 4
            + match &self.scores {
                Scores::Column { values, .. } | Scores::Matrix { values, .. } => values.byte_size(),
                Scores::TopLabel {
                    predicted,
                    confidence,
                } => predicted.len() * 4 + confidence.byte_size(),
            }
    }

    /// Builds a top-label set; `k = max(label, yhat) + 1`, at least 2 (METRICS.md §1).
    pub fn top_label(labels: Vec<u32>, predicted: Vec<u32>, confidence: Values) -> Self {
        let max = labels
            .iter()
            .chain(predicted.iter())
            .copied()
            .max()
            .unwrap_or(0) as usize;
        PredictionSet {
            labels,
            scores: Scores::TopLabel {
                predicted,
                confidence,
            },
            k: (max + 1).max(2),
        }
    }

    /// Whether [`PredictionSet::validate`] would find nothing, by passes without a
    /// branch per element (they vectorise; each stops at the first block that
    /// fails): every label below k, every score finite, probabilities in `[0, 1]`
    /// and probability rows summing to 1 within [`ROW_SUM_TOLERANCE`] (summed in
    /// `f64` in column order, as `validate` does). `false` sends `validate` to its
    /// detailed pass, which finds the rows.
    fn nothing_to_report(&self) -> bool {
        fn blocks<T: Copy>(v: &[T], width: usize, ok: impl Fn(&[T]) -> bool) -> bool {
            v.chunks(width * 512)
                .all(|block| block.chunks_exact(width).fold(true, |all, x| all & ok(x)))
        }
        fn probability(x: f64) -> bool {
            (0.0..=1.0).contains(&x)
        }
        fn probabilities<T: Copy + Into<f64>>(v: &[T]) -> bool {
            blocks(v, 1, |x| probability(x[0].into()))
        }
        fn unit_rows<T: Copy + Into<f64>>(v: &[T], k: usize) -> bool {
            blocks(v, k, |row| {
                let (inside, sum) = row.iter().fold((true, 0.0f64), |(inside, sum), &x| {
                    let x: f64 = x.into();
                    (inside & probability(x), sum + x)
                });
                inside & ((sum - 1.0).abs() <= ROW_SUM_TOLERANCE)
            })
        }
        let k = self.k;
        if k == 0 || matches!(&self.scores, Scores::Matrix { k: 0, .. }) {
            return false;
        }
        let labels_ok = match &self.scores {
            Scores::TopLabel { .. } => true,
            _ => blocks(&self.labels, 1, |l| (l[0] as usize) < k),
        };
        labels_ok
            && match &self.scores {
                Scores::Column {
                    values,
                    source: Source::Probs,
                }
                | Scores::TopLabel {
                    confidence: values, ..
                } => {
                    with_values!(values, |v| probabilities(v))
                }
                Scores::Matrix {
                    values,
                    k,
                    source: Source::Probs,
                } => {
                    with_values!(values, |v| unit_rows(v, *k))
                }
                Scores::Column { values, .. } | Scores::Matrix { values, .. } => {
                    values.all_finite()
                }
            }
    }

    /// Every input error of the set, sorted by row then kind (METRICS.md §1):
    /// NaN/inf scores, probabilities outside `[0,1]`, probability rows whose sum is
    /// off 1 by more than `1e-3` (checked only when the row has no other error), and
    /// labels outside `0..k`. A valid set returns an empty list; nothing is repaired.
    pub fn validate(&self) -> Vec<InputError> {
        if self.nothing_to_report() {
            return Vec::new();
        }
        let mut errors = Vec::new();
        let n = self.n();
        let k = self.k;
        let push = |errors: &mut Vec<InputError>, row, kind, column, value| {
            errors.push(InputError {
                row,
                kind,
                column,
                value,
            })
        };
        // a logit matrix without NaN or infinity (the usual case) has nothing to report
        // per score: one vectorised pass instead of a check per element (0.28 s of
        // the 0.29 s of validating 1M × 100 f32 logits)
        let clean_logits = matches!(&self.scores,
            Scores::Matrix { values, source: Source::Logits, .. } if values.all_finite());
        for row in 0..n {
            match &self.scores {
                Scores::Matrix { .. } if clean_logits => {}
                Scores::Column { values, source } => {
                    let v = values.get(row);
                    if !v.is_finite() {
                        push(&mut errors, row, InputErrorKind::NanOrInf, Some(0), v);
                    } else if *source == Source::Probs && !(0.0..=1.0).contains(&v) {
                        push(&mut errors, row, InputErrorKind::ProbOutOfRange, Some(0), v);
                    }
                }
                Scores::TopLabel { confidence, .. } => {
                    let v = confidence.get(row);
                    if !v.is_finite() {
                        push(&mut errors, row, InputErrorKind::NanOrInf, Some(0), v);
                    } else if !(0.0..=1.0).contains(&v) {
                        push(&mut errors, row, InputErrorKind::ProbOutOfRange, Some(0), v);
                    }
                }
                Scores::Matrix { values, k, source } => {
                    let mut bad = false;
                    let mut sum = 0.0;
                    for r in 0..*k {
                        let v = values.get(row * k + r);
                        if !v.is_finite() {
                            push(&mut errors, row, InputErrorKind::NanOrInf, Some(r), v);
                            bad = true;
                        } else if *source == Source::Probs && !(0.0..=1.0).contains(&v) {
                            push(&mut errors, row, InputErrorKind::ProbOutOfRange, Some(r), v);
                            bad = true;
                        }
                        sum += v;
                    }
                    if *source == Source::Probs && !bad && (sum - 1.0).abs() > ROW_SUM_TOLERANCE {
                        push(&mut errors, row, InputErrorKind::RowSum, None, sum);
                    }
                }
            }
            let label = self.labels[row] as usize;
            let label_limit = match &self.scores {
                // top-label sets derive k from the labels; nothing can be out of range
                Scores::TopLabel { .. } => usize::MAX,
                _ => k,
            };
            if label >= label_limit {
                push(
                    &mut errors,
                    row,
                    InputErrorKind::LabelOutOfRange,
                    None,
                    label as f64,
                );
            }
        }
        errors.sort_by_key(|a| (a.row, a.kind));
        errors
    }
}

impl From<Vec<f32>> for Values {
    fn from(v: Vec<f32>) -> Self {
        Values::F32(v)
    }
}

impl From<Vec<f64>> for Values {
    fn from(v: Vec<f64>) -> Self {
        Values::F64(v)
    }
}
