//! Readings: turning a prediction set into forecast/outcome pairs (METRICS.md §1).
//!
//! [`ProbView`] gives `p_i^(r)` for any row and class without materialising an
//! `n × k` probability matrix: logit rows keep only their max and the sum of
//! `exp(z - max)` (two `f64` per row).

use crate::data::{PredictionSet, Real, Scores, Source, Values};
use crate::math::exp;

/// `sigmoid(s) = 1 / (1 + exp(-s))`, evaluated without overflow for either sign.
/// NaN in gives NaN out.
#[inline]
pub fn sigmoid(s: f64) -> f64 {
    if s >= 0.0 {
        1.0 / (1.0 + (-s).exp())
    } else {
        let e = s.exp();
        e / (1.0 + e)
    }
}

/// `softplus(x) = ln(1 + exp(x))`, stable for large `|x|`.
#[inline]
pub fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// Per-sample probabilities of a prediction set, computed on demand.
///
/// * one column `u` (probabilities): `p = (1 - u, u)`;
/// * one column `s` (logit): `p = (1 - sigmoid(s), sigmoid(s))`;
/// * a probability matrix: the values as given (not renormalised);
/// * a logit matrix: `softmax(z)` with the max-subtraction trick,
///   `p_r = exp(z_r - max) / Σ_j exp(z_j - max)`.
///
/// Top-label sets have no probability vector; [`ProbView::new`] returns `None`.
#[derive(Debug)]
pub struct ProbView<'a> {
    set: &'a PredictionSet,
    /// For logit matrices: per row `(max, Σ exp(z - max))`.
    softmax: Option<Vec<(f64, f64)>>,
}

impl<'a> ProbView<'a> {
    /// A view of `set`'s probabilities; `None` for top-label sets.
    pub fn new(set: &'a PredictionSet) -> Option<Self> {
        let softmax = match &set.scores {
            Scores::TopLabel { .. } => return None,
            Scores::Matrix {
                values,
                k,
                source: Source::Logits,
            } => Some(crate::with_values!(values, |v| softmax_rows(v, *k))),
            _ => None,
        };
        Some(ProbView { set, softmax })
    }

    /// The prediction set viewed.
    pub fn set(&self) -> &'a PredictionSet {
        self.set
    }

    /// Number of classes.
    pub fn k(&self) -> usize {
        self.set.k
    }

    /// `p_i^(r)`.
    #[inline]
    pub fn prob(&self, i: usize, r: usize) -> f64 {
        match &self.set.scores {
            Scores::Column { values, source } => {
                let u = match source {
                    Source::Logits => sigmoid(values.get(i)),
                    _ => values.get(i),
                };
                if r == 1 {
                    u
                } else {
                    1.0 - u
                }
            }
            Scores::Matrix { values, k, .. } => {
                let z = values.get(i * k + r);
                match &self.softmax {
                    Some(rows) => {
                        let (max, sum) = rows[i];
                        exp(z - max) / sum
                    }
                    None => z,
                }
            }
            Scores::TopLabel { .. } => unreachable!("ProbView::new refuses top-label sets"),
        }
    }

    /// The positive-class forecast `P(y = 1)` (binary sets).
    #[inline]
    pub fn positive(&self, i: usize) -> f64 {
        self.prob(i, 1)
    }

    /// The top-label prediction `(r_i, c_i)`: argmax with ties to the lowest index;
    /// binary sets (one column or two) instead predict 1 iff `p^(1) >= 0.5`.
    #[inline]
    pub fn top(&self, i: usize) -> (u32, f64) {
        let k = self.set.k;
        if k == 2 {
            let p1 = self.prob(i, 1);
            return if p1 >= 0.5 {
                (1, p1)
            } else {
                (0, self.prob(i, 0))
            };
        }
        if let (Some(rows), Scores::Matrix { values, .. }) = (&self.softmax, &self.set.scores) {
            let (max, sum) = rows[i];
            return crate::with_values!(values, |v| top_of_logit_row(
                &v[i * k..(i + 1) * k],
                max,
                sum
            ));
        }
        let mut best = 0usize;
        let mut best_p = self.prob(i, 0);
        for r in 1..k {
            let p = self.prob(i, r);
            if p > best_p {
                best = r;
                best_p = p;
            }
        }
        (best as u32, best_p)
    }

    /// Per row `(max, Σ exp(z - max))` of a logit matrix (`None` for other inputs):
    /// `p_i^(r) = exp(z_i^(r) - max_i) / sum_i`.
    pub fn softmax_rows(&self) -> Option<&[(f64, f64)]> {
        self.softmax.as_deref()
    }

    /// `log Σ_r exp(z_r)` of row `i` of a logit matrix (`None` for other inputs).
    #[inline]
    pub fn log_sum_exp(&self, i: usize) -> Option<f64> {
        let (max, sum) = self.softmax.as_ref()?[i];
        Some(max + sum.ln())
    }

    /// The column of class `r`'s forecasts, `p_·^(r)`.
    pub fn class_column(&self, r: usize) -> Vec<f64> {
        let mut out = Vec::new();
        self.class_columns(r..r + 1, &mut out);
        out
    }

    /// The columns of the classes `classes`, one after the other (column-major:
    /// `out[(r - classes.start) * n + i] = p_i^(r)`), from one pass over the rows: a
    /// row-major matrix is read once for the block, not once per class (the row
    /// stride defeats the cache and the hardware prefetcher). `out` is cleared
    /// first. Panics when a class is `>= k`.
    pub fn class_columns(&self, classes: std::ops::Range<usize>, out: &mut Vec<f64>) {
        let (n, width) = (self.set.n(), classes.len());
        assert!(
            classes.is_empty() || classes.end <= self.set.k,
            "class out of range"
        );
        out.clear();
        out.resize(n * width, 0.0);
        match (&self.set.scores, &self.softmax) {
            (Scores::Matrix { values, k, .. }, Some(rows)) => crate::with_values!(values, |v| {
                for (i, (row, &(max, sum))) in v.chunks_exact(*k).zip(rows).enumerate() {
                    let ahead = (i + PREFETCH_ROWS) * k;
                    prefetch(v, ahead + classes.start);
                    prefetch(v, ahead + classes.end - 1);
                    for (j, z) in row[classes.clone()].iter().enumerate() {
                        out[j * n + i] = exp(z.to_f64() - max) / sum;
                    }
                }
            }),
            (Scores::Matrix { values, k, .. }, None) => crate::with_values!(values, |v| {
                for (i, row) in v.chunks_exact(*k).enumerate() {
                    let ahead = (i + PREFETCH_ROWS) * k;
                    prefetch(v, ahead + classes.start);
                    prefetch(v, ahead + classes.end - 1);
                    for (j, p) in row[classes.clone()].iter().enumerate() {
                        out[j * n + i] = p.to_f64();
                    }
                }
            }),
            _ => {
                for (j, r) in classes.enumerate() {
                    for (i, o) in out[j * n..(j + 1) * n].iter_mut().enumerate() {
                        *o = self.prob(i, r);
                    }
                }
            }
        }
    }
}

/// How many rows ahead a pass down the columns of a matrix prefetches: rows are `k`
/// scalars apart, a stride the hardware prefetchers do not follow.
pub(crate) const PREFETCH_ROWS: usize = 16;

/// Hints the cache line of `v[at]` into L1 (no-op past the end, and on other
/// architectures).
#[inline(always)]
pub(crate) fn prefetch<T>(v: &[T], at: usize) {
    prefetch_line::<false, T>(v, at)
}

/// [`prefetch`] for a line read once and not again soon (a column read down a
/// large matrix): non-temporal, so it does not push the data the pass reuses out
/// of the outer caches.
#[inline(always)]
pub(crate) fn prefetch_once<T>(v: &[T], at: usize) {
    prefetch_line::<true, T>(v, at)
}

#[inline(always)]
fn prefetch_line<const ONCE: bool, T>(v: &[T], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = v.get(at) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_NTA, _MM_HINT_T0};
        let line = x as *const T as *const i8;
        // SAFETY: prefetching has no effect on memory or on program state (and the
        // address is inside `v` anyway); SSE is part of the x86-64 baseline.
        unsafe {
            if ONCE {
                _mm_prefetch::<_MM_HINT_NTA>(line)
            } else {
                _mm_prefetch::<_MM_HINT_T0>(line)
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, at);
}

fn softmax_rows<T: crate::data::Real>(values: &[T], k: usize) -> Vec<(f64, f64)> {
    values.chunks_exact(k).map(softmax_row).collect()
}

/// `(max, Σ exp(z - max))` of one logit row (see [`ProbView`]), with [`exp`] and the sum
/// taken in four interleaved partial sums (`z_0 + z_4 + …`, `z_1 + z_5 + …`, …) added
/// pairwise. An empty row gives `(-inf, 0)`; a NaN logit makes the sum NaN.
#[inline]
pub(crate) fn softmax_row<T: crate::data::Real>(row: &[T]) -> (f64, f64) {
    let max = row
        .iter()
        .map(|z| z.to_f64())
        .fold(f64::NEG_INFINITY, f64::max);
    // four partial sums, so that the exponentials of a row vectorise
    let mut lanes = [0.0f64; 4];
    let mut chunks = row.chunks_exact(4);
    for chunk in &mut chunks {
        for (lane, z) in lanes.iter_mut().zip(chunk) {
            *lane += exp(z.to_f64() - max);
        }
    }
    for (lane, z) in lanes.iter_mut().zip(chunks.remainder()) {
        *lane += exp(z.to_f64() - max);
    }
    (max, (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
}

/// The top label `(r, p^(r))` of a logit row of `k != 2` classes from its
/// [`softmax_row`]: argmax with ties to the lowest index. softmax is monotone, so
/// the largest logit holds the largest probability; only an exactly equal
/// *probability* at a lower index (logits within rounding of each other) can take
/// the tie, so only those are evaluated.
#[inline]
pub(crate) fn top_of_logit_row<T: crate::data::Real>(row: &[T], max: f64, sum: f64) -> (u32, f64) {
    let mut best = row.iter().position(|z| z.to_f64() == max).unwrap_or(0);
    let best_p = exp(row[best].to_f64() - max) / sum;
    for (r, z) in row[..best].iter().enumerate() {
        let z = z.to_f64();
        if max - z < 1e-9 * max.abs().max(1.0) && exp(z - max) / sum == best_p {
            best = r;
            break;
        }
    }
    (best as u32, best_p)
}

/// Forecast/outcome pairs `(u_i, o_i)` of one reading, in sample order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pairs {
    /// Forecasts in `[0, 1]`.
    pub forecast: Vec<f64>,
    /// Outcomes.
    pub outcome: Vec<bool>,
}

impl Pairs {
    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.forecast.len()
    }
    /// True when there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.forecast.is_empty()
    }
}

/// The top-label predictions of every sample: predicted class, confidence and
/// correctness (`z_i = 1[y_i = r_i]`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TopLabels {
    /// `r_i`, the predicted class.
    pub predicted: Vec<u32>,
    /// `c_i = p_i^(r_i)`, unclipped.
    pub confidence: Vec<f64>,
    /// `z_i = 1[y_i = r_i]`.
    pub correct: Vec<bool>,
}

impl TopLabels {
    /// The confidence reading `(c_i, z_i)`.
    pub fn pairs(&self) -> Pairs {
        Pairs {
            forecast: self.confidence.clone(),
            outcome: self.correct.clone(),
        }
    }
}

/// The confidence (top-label) reading of any prediction set (METRICS.md §1).
pub fn top_labels(set: &PredictionSet) -> TopLabels {
    let n = set.n();
    let mut out = TopLabels {
        predicted: Vec::with_capacity(n),
        confidence: Vec::with_capacity(n),
        correct: Vec::with_capacity(n),
    };
    match (&set.scores, ProbView::new(set)) {
        (
            Scores::TopLabel {
                predicted,
                confidence,
            },
            _,
        ) => {
            for (i, (&yhat, &y)) in predicted.iter().zip(&set.labels).enumerate() {
                out.predicted.push(yhat);
                out.confidence.push(confidence.get(i));
                out.correct.push(yhat == y);
            }
        }
        (_, Some(view)) => return top_labels_of(&view),
        (_, None) => unreachable!("only top-label sets lack a probability view"),
    }
    out
}

/// [`top_labels`] of a set with probability vectors, through a view already built
/// (so a caller that needs the view for more does not compute the softmax twice).
pub fn top_labels_of(view: &ProbView<'_>) -> TopLabels {
    let labels = &view.set().labels;
    let mut out = TopLabels {
        predicted: Vec::with_capacity(labels.len()),
        confidence: Vec::with_capacity(labels.len()),
        correct: Vec::with_capacity(labels.len()),
    };
    for (i, &y) in labels.iter().enumerate() {
        let (r, c) = view.top(i);
        out.predicted.push(r);
        out.confidence.push(c);
        out.correct.push(r == y);
    }
    out
}

/// The class-`r` reading `(p_i^(r), 1[y_i = r])`; for binary sets `r = 1` is the
/// positive-class reading.
pub fn class_pairs(view: &ProbView<'_>, r: usize) -> Pairs {
    let set = view.set();
    Pairs {
        forecast: view.class_column(r),
        outcome: set.labels.iter().map(|&y| y as usize == r).collect(),
    }
}

/// Gathers the rows `rows` of `set` into a new prediction set (same storage
/// precision); used for the calibration and evaluation splits.
pub fn subset(set: &PredictionSet, rows: &[usize]) -> PredictionSet {
    fn gather_values(values: &Values, rows: &[usize], width: usize) -> Values {
        crate::with_values!(values, |v| {
            let mut out = Vec::with_capacity(rows.len() * width);
            for &i in rows {
                out.extend_from_slice(&v[i * width..(i + 1) * width]);
            }
            out.into()
        })
    }
    let labels = rows.iter().map(|&i| set.labels[i]).collect();
    let scores = match &set.scores {
        Scores::Column { values, source } => Scores::Column {
            values: gather_values(values, rows, 1),
            source: *source,
        },
        Scores::Matrix { values, k, source } => Scores::Matrix {
            values: gather_values(values, rows, *k),
            k: *k,
            source: *source,
        },
        Scores::TopLabel {
            predicted,
            confidence,
        } => Scores::TopLabel {
            predicted: rows.iter().map(|&i| predicted[i]).collect(),
            confidence: gather_values(confidence, rows, 1),
        },
    };
    PredictionSet {
        labels,
        scores,
        k: set.k,
    }
}
