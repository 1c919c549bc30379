//! `PredictionSet::validate` on logit matrices: the all-finite fast path reports
//! exactly what the per-element check reports.

use calibscope_core::{InputErrorKind, PredictionSet, Scores, Source, Values};

fn logits(values: Values, labels: Vec<u32>, k: usize) -> PredictionSet {
    PredictionSet {
        labels,
        scores: Scores::Matrix {
            values,
            k,
            source: Source::Logits,
        },
        k,
    }
}

#[test]
fn clean_logits_report_only_labels() {
    let n = 5000;
    let k = 3;
    let z: Vec<f32> = (0..n * k).map(|i| (i as f32 * 0.37).sin() * 40.0).collect();
    let mut labels: Vec<u32> = (0..n as u32).map(|i| i % 3).collect();
    labels[4321] = 3; // out of range
    for values in [
        Values::F32(z.clone()),
        Values::F64(z.iter().map(|&x| x as f64).collect()),
    ] {
        let e = logits(values, labels.clone(), k).validate();
        assert_eq!(e.len(), 1);
        assert_eq!(
            (e[0].row, e[0].kind),
            (4321, InputErrorKind::LabelOutOfRange)
        );
    }
}

#[test]
fn non_finite_logits_are_reported_per_element() {
    let n = 10_000; // more than one 4096-scalar block
    let k = 2;
    let mut z: Vec<f64> = (0..n * k).map(|i| i as f64 * 1e-3 - 5.0).collect();
    z[2 * 9000 + 1] = f64::NAN;
    z[2 * 17] = f64::INFINITY;
    z[2 * 9999] = f64::NEG_INFINITY;
    let labels: Vec<u32> = (0..n as u32).map(|i| i % 2).collect();
    for values in [
        Values::F32(z.iter().map(|&x| x as f32).collect()),
        Values::F64(z.clone()),
    ] {
        let e = logits(values, labels.clone(), k).validate();
        let got: Vec<(usize, InputErrorKind, Option<usize>)> =
            e.iter().map(|e| (e.row, e.kind, e.column)).collect();
        assert_eq!(
            got,
            vec![
                (17, InputErrorKind::NanOrInf, Some(0)),
                (9000, InputErrorKind::NanOrInf, Some(1)),
                (9999, InputErrorKind::NanOrInf, Some(0)),
            ]
        );
    }
}
