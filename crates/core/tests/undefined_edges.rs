//! The contract's "undefined, not 0" in two degenerate cases:
//! - a constant prediction (every sample predicted as one class): that class's
//!   "not predicted" marginal is exactly 0, so its MCC, weighted and counted, is
//!   undefined (a weighted true-negative cell taken as a remainder used to leave a
//!   rounding residue and an MCC of ~1e-8);
//! - the ROC/cwROC curve of a class with no negative (or no positive) sample is
//!   undefined as a whole, not a list of points with undefined rates.

use calibscope_core::auc::{self, SortedColumn};
use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::beyond::{clip_confidence, confusion_per_class, ConfusionAccumulator};
use calibscope_core::reading;
use calibscope_core::sum::{sum, Sum};
use calibscope_core::{PredictionSet, Scores, Source, Values};

/// A confidence in `[lo, lo + 0.3)` that is not a short binary fraction.
fn spread(i: usize, lo: f64) -> f64 {
    lo + 0.3 * ((i as f64 + 1.0) * 0.618_033_988_749_894_9).fract()
}

/// `k = 3` probabilities whose argmax is always class 0; labels cycle 0, 1, 2.
fn constant_multiclass(n: usize) -> PredictionSet {
    let mut values = Vec::with_capacity(3 * n);
    for i in 0..n {
        let c = spread(i, 0.5);
        let rest = 1.0 - c;
        values.extend([c, rest * 0.4, rest - rest * 0.4]);
    }
    PredictionSet {
        labels: (0..n).map(|i| (i % 3) as u32).collect(),
        scores: Scores::Matrix {
            values: Values::F64(values),
            k: 3,
            source: Source::Probs,
        },
        k: 3,
    }
}

/// `P(y = 1)` in `[0.55, 0.85)` for every sample (always predicted 1) with `labels`.
fn binary(labels: Vec<u32>) -> PredictionSet {
    let p = (0..labels.len()).map(|i| spread(i, 0.55)).collect();
    PredictionSet {
        labels,
        scores: Scores::Column {
            values: Values::F64(p),
            source: Source::Probs,
        },
        k: 2,
    }
}

fn settings() -> AuditSettings {
    AuditSettings {
        roc_curve: true,
        ..AuditSettings::default()
    }
}

/// Both audit paths (the fast one and its reference).
fn audits(set: &PredictionSet) -> [Audit; 2] {
    [
        Audit::compute(set, &settings()),
        Audit::compute_general(set, &settings()),
    ]
}

#[test]
fn a_constant_prediction_has_an_undefined_mcc_for_its_class() {
    let set = constant_multiclass(200);
    let top = reading::top_labels(&set);
    assert!(top.predicted.iter().all(|&p| p == 0), "constant prediction");
    // the data do exercise the residue: the remainder of the weighted table, taken
    // by subtraction as before, is not 0 here
    let table = &confusion_per_class(&top, &set.labels, 3)[0].0;
    let mut remainder = Sum::new();
    remainder.add(sum(top.confidence.iter().map(|&c| clip_confidence(c))));
    for cell in [table.tp, table.fp, table.fn_] {
        remainder.add(-cell);
    }
    assert_ne!(
        remainder.value(),
        0.0,
        "these data leave a rounding residue"
    );
    for audit in audits(&set) {
        let (cw, counts) = &audit.confusion[0];
        assert_eq!((cw.tn, cw.fn_), (0.0, 0.0), "{cw:?}");
        assert_eq!((counts.tn, counts.fn_), (0.0, 0.0));
        assert_eq!(cw.mcc(), None, "weighted MCC of the constant class");
        assert_eq!(counts.mcc(), None, "count MCC of the constant class");
        // specificity has 0/0 too; precision and accuracy stay defined
        assert_eq!(cw.specificity(), Some(0.0));
        assert!(cw.precision().is_some() && cw.accuracy().is_some());
        // the other classes are never predicted: their other marginal is 0
        for (cw, counts) in &audit.confusion[1..] {
            assert_eq!((cw.tp, cw.fp), (0.0, 0.0));
            assert_eq!((cw.mcc(), counts.mcc()), (None, None));
        }
    }
}

#[test]
fn the_accumulator_gives_an_exact_zero_cell() {
    let mut acc = ConfusionAccumulator::new(2);
    for i in 0..97 {
        acc.add(1, spread(i, 0.6), (i % 2) as u32);
    }
    let tables = acc.finish();
    assert_eq!(tables[1].0.tn, 0.0);
    assert_eq!(tables[1].0.mcc(), None);
    // an ordinary table keeps its remainder and a defined MCC
    let mut mixed = ConfusionAccumulator::new(2);
    for i in 0..97 {
        mixed.add((i % 3 == 0) as u32, spread(i, 0.6), (i % 2) as u32);
    }
    let tables = mixed.finish();
    assert!(tables[1].0.tn > 0.0 && tables[1].0.mcc().is_some());
}

#[test]
fn a_binary_constant_prediction_has_undefined_mccs() {
    let set = binary((0..150).map(|i| (i % 4 != 0) as u32).collect());
    for audit in audits(&set) {
        for (cw, counts) in &audit.confusion {
            assert_eq!((cw.mcc(), counts.mcc()), (None, None), "{cw:?}");
        }
        assert_eq!(audit.confusion[1].0.tn, 0.0);
        // both classes occur, so the ROC curve is defined, every rate too
        let Some(Some(points)) = &audit.roc_class1 else {
            panic!("a defined ROC curve")
        };
        assert!(points.iter().all(|p| p.fpr.is_some()
            && p.tpr.is_some()
            && p.cw_fpr.is_some()
            && p.cw_tpr.is_some()));
        let last = points.last().unwrap();
        assert_eq!((last.fpr, last.tpr), (Some(1.0), Some(1.0)));
    }
}

#[test]
fn the_roc_curve_of_a_class_without_negatives_or_positives_is_undefined() {
    for label in [0u32, 1] {
        let set = binary(vec![label; 40]);
        for audit in audits(&set) {
            assert_eq!(
                audit.roc_class1,
                Some(None),
                "all labels {label}: asked for, and undefined as a whole"
            );
            assert_eq!(audit.classes[1].auc, None);
        }
    }
    // not asked for: absent
    let set = binary(vec![1; 40]);
    assert_eq!(
        Audit::compute(&set, &AuditSettings::default()).roc_class1,
        None
    );
    // the core function itself, on an empty column too
    let column = SortedColumn::new(&[0.2, 0.7, 0.7], &[true; 3], &[0.8, 0.7, 0.7]);
    assert_eq!(auc::roc(&column), None);
    assert!(auc::roc_curve(&column).is_empty());
    assert_eq!(auc::roc(&SortedColumn::default()), None);
    let column = SortedColumn::new(&[0.2, 0.7, 0.7], &[false, true, false], &[0.8, 0.7, 0.7]);
    let points = auc::roc(&column).expect("both classes occur");
    assert_eq!(points.len(), 3, "start point and two distinct scores");
    assert_eq!((points[1].fpr, points[1].tpr), (Some(0.5), Some(1.0)));
}
