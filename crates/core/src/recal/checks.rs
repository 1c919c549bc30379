//! What a recalibration map kept and what it changed on the evaluation split,
//! measured on the probabilities (METRICS.md §6, "Invariants"): the same checks for
//! temperature scaling (which must keep the decisions), Platt scaling (which can move
//! the threshold) and isotonic regression (which keeps the order but creates ties).

use crate::auc::{self, SortedColumn};
use crate::data::PredictionSet;
use crate::reading::{self, ProbView};

/// The probability-level comparison of a set before and after a recalibration map.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbChecks {
    /// Rows whose predicted class (argmax, ties to the lowest index) changed.
    pub argmax_changed_rows: usize,
    /// Accuracy before and after (`None` on an empty set).
    pub accuracy: (Option<f64>, Option<f64>),
    /// Per probability column, whether its stable sort order is unchanged.
    pub argsort_identical_per_class: Vec<bool>,
    /// Per class, one-vs-rest AUC of `p^(r)` after minus before (`None` where undefined).
    pub auc_change_per_class: Vec<Option<f64>>,
    /// Macro AUC after minus before.
    pub auc_macro_change: Option<f64>,
    /// Distinct values of the reading the page plots (binary: `p^(1)`; otherwise the
    /// top-label confidence), before and after: fewer after means the map made ties.
    pub distinct_values: (usize, usize),
}

impl ProbChecks {
    /// True when no predicted class changed.
    pub fn argmax_identical(&self) -> bool {
        self.argmax_changed_rows == 0
    }
}

/// Number of distinct values of `v` (NaN counted once).
pub fn distinct_count(v: &[f64]) -> usize {
    let mut s = v.to_vec();
    s.sort_unstable_by(f64::total_cmp);
    s.dedup_by(|a, b| a.total_cmp(b).is_eq() || (a.is_nan() && b.is_nan()));
    s.len()
}

/// Compares `before` and `after`, two prediction sets of the same rows and labels
/// (with scores; panics on top-label sets). Empty sets: nothing changed, accuracies
/// and AUCs undefined.
pub fn prob_checks(before: &PredictionSet, after: &PredictionSet) -> ProbChecks {
    let (top_before, top_after) = (reading::top_labels(before), reading::top_labels(after));
    let argmax_changed_rows = top_before
        .predicted
        .iter()
        .zip(&top_after.predicted)
        .filter(|(a, b)| a != b)
        .count();
    let (vb, va) = (
        ProbView::new(before).expect("scores"),
        ProbView::new(after).expect("scores"),
    );
    let k = before.k;
    let ones = vec![1.0; before.n()];
    let mut argsort = Vec::with_capacity(k);
    let mut change = Vec::with_capacity(k);
    let (mut auc_before, mut auc_after) = (Vec::new(), Vec::new());
    for r in 0..k {
        let (pb, pa) = (vb.class_column(r), va.class_column(r));
        argsort.push(auc::sort_order(&pb) == auc::sort_order(&pa));
        let outcome: Vec<bool> = before.labels.iter().map(|&y| y as usize == r).collect();
        let b = auc::auc(&SortedColumn::new(&pb, &outcome, &ones));
        let a = auc::auc(&SortedColumn::new(&pa, &outcome, &ones));
        auc_before.push(b);
        auc_after.push(a);
        change.push(a.zip(b).map(|(a, b)| a - b));
    }
    let auc_macro_change = auc::macro_average(&auc_after)
        .zip(auc::macro_average(&auc_before))
        .map(|(a, b)| a - b);
    let distinct_values = if k == 2 {
        (
            distinct_count(&vb.class_column(1)),
            distinct_count(&va.class_column(1)),
        )
    } else {
        (
            distinct_count(&top_before.confidence),
            distinct_count(&top_after.confidence),
        )
    };
    let accuracy = |t: &reading::TopLabels| crate::truthful::accuracy(t);
    ProbChecks {
        argmax_changed_rows,
        accuracy: (accuracy(&top_before), accuracy(&top_after)),
        argsort_identical_per_class: argsort,
        auc_change_per_class: change,
        auc_macro_change,
        distinct_values,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Scores, Source, Values};

    fn binary(p: &[f64], y: &[u32]) -> PredictionSet {
        PredictionSet {
            labels: y.to_vec(),
            scores: Scores::Column {
                values: Values::F64(p.to_vec()),
                source: Source::Probs,
            },
            k: 2,
        }
    }

    #[test]
    fn ties_and_threshold_moves_are_seen() {
        let y = [0, 1, 0, 1];
        let before = binary(&[0.1, 0.4, 0.6, 0.9], &y);
        // a shift across 0.5 and a tie
        let after = binary(&[0.3, 0.6, 0.6, 0.9], &y);
        let c = prob_checks(&before, &after);
        assert_eq!(c.argmax_changed_rows, 1);
        assert!(!c.argmax_identical());
        assert_eq!(c.accuracy, (Some(0.5), Some(0.75)));
        assert_eq!(c.distinct_values, (4, 3));
        // AUC before 3/4, after: pairs (1,0),(1,2 tie),(3,0),(3,2) = 3.5/4
        assert_eq!(c.auc_change_per_class[1], Some(0.875 - 0.75));
        assert_eq!(c.argsort_identical_per_class, vec![false, true]);
        let same = prob_checks(&before, &before);
        assert!(same.argmax_identical());
        assert_eq!(same.auc_macro_change, Some(0.0));
        assert_eq!(distinct_count(&[f64::NAN, f64::NAN, 1.0]), 2);
        let empty = binary(&[], &[]);
        let e = prob_checks(&empty, &empty);
        assert_eq!(e.accuracy, (None, None));
        assert_eq!(e.auc_change_per_class, vec![None, None]);
    }
}
