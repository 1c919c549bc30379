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

/// The contract's checks (METRICS.md §1) written out per element, as the oracle.
fn oracle(set: &PredictionSet) -> Vec<(usize, InputErrorKind, Option<usize>)> {
    let mut out = Vec::new();
    let n = set.labels.len();
    for row in 0..n {
        let (values, k, probs, toplabel) = match &set.scores {
            Scores::Column { values, source } => (values, 1, *source == Source::Probs, false),
            Scores::Matrix { values, k, source } => (values, *k, *source == Source::Probs, false),
            Scores::TopLabel { confidence, .. } => (confidence, 1, true, true),
        };
        let mut bad = false;
        let mut sum = 0.0;
        for r in 0..k {
            let v = values.get(row * k + r);
            if !v.is_finite() {
                out.push((row, InputErrorKind::NanOrInf, Some(r)));
                bad = true;
            } else if probs && !(0.0..=1.0).contains(&v) {
                out.push((row, InputErrorKind::ProbOutOfRange, Some(r)));
                bad = true;
            }
            sum += v;
        }
        if probs && k > 1 && !bad && (sum - 1.0).abs() > 1e-3 {
            out.push((row, InputErrorKind::RowSum, None));
        }
        if !toplabel && set.labels[row] as usize >= set.k {
            out.push((row, InputErrorKind::LabelOutOfRange, None));
        }
    }
    out.sort_by_key(|a| (a.0, a.1));
    out
}

/// Every form of set, clean or with a few errors of each kind (sums just inside
/// and just outside the tolerance included): `validate` reports what the oracle
/// reports, whether its all-clear pass or its per-element pass answers.
#[test]
fn validate_matches_the_per_element_oracle() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut clean = 0;
    for case in 0..600 {
        let n = 1 + (next() % 3000) as usize;
        let form = case % 5;
        let k = if form < 2 {
            2 + (next() % 5) as usize
        } else {
            2
        };
        let cols = if form < 2 { k } else { 1 };
        let mut v: Vec<f64> = Vec::with_capacity(n * cols);
        for _ in 0..n {
            let raw: Vec<f64> = (0..cols).map(|_| (next() % 1000 + 1) as f64).collect();
            let total: f64 = raw.iter().sum();
            v.extend(
                raw.iter()
                    .map(|x| if cols > 1 { x / total } else { x / 1001.0 }),
            );
        }
        let mut labels: Vec<u32> = (0..n).map(|_| (next() % k as u64) as u32).collect();
        let errors = next() % 4; // 0: clean
        for _ in 0..errors {
            let i = (next() as usize) % (n * cols);
            v[i] = match next() % 7 {
                0 => f64::NAN,
                1 => f64::INFINITY,
                2 => -0.25,
                3 => 1.5,
                4 => v[i] + 1.1e-3, // a row sum just outside
                5 => v[i] + 0.9e-3, // just inside
                _ => {
                    labels[i / cols] = k as u32 + 1;
                    v[i]
                }
            };
        }
        let values = if case % 2 == 0 {
            Values::F64(v)
        } else {
            Values::F32(v.iter().map(|&x| x as f32).collect())
        };
        let set = match form {
            0 | 1 => PredictionSet {
                labels,
                scores: Scores::Matrix {
                    values,
                    k,
                    source: if form == 0 {
                        Source::Probs
                    } else {
                        Source::Logits
                    },
                },
                k,
            },
            2 | 3 => PredictionSet {
                labels,
                scores: Scores::Column {
                    values,
                    source: if form == 2 {
                        Source::Probs
                    } else {
                        Source::Logits
                    },
                },
                k: 2,
            },
            _ => PredictionSet {
                scores: Scores::TopLabel {
                    predicted: labels.iter().map(|&l| l % 2).collect(),
                    confidence: values,
                },
                labels,
                k: 4,
            },
        };
        let want = oracle(&set);
        clean += want.is_empty() as usize;
        let got: Vec<(usize, InputErrorKind, Option<usize>)> = set
            .validate()
            .iter()
            .map(|e| (e.row, e.kind, e.column))
            .collect();
        assert_eq!(got, want, "case {case}");
    }
    assert!(clean > 100 && clean < 550, "{clean} clean sets of 600");
}
