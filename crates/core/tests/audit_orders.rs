//! `Audit::compute_with_orders` is `Audit::compute` (bit for bit, through `Debug`)
//! plus each class's order check, which equals `order_checks`'
//! `argsort_identical_per_class` (a sort of each column before and a walk): on
//! matrices the check rides in the audit's sorted walks, elsewhere it falls back to
//! the column comparison. The "after" sets are the "before" sets scaled (the orders
//! of some classes change, of others not), identical (every order kept), or
//! perturbed in a few entries, with ties and values sharing an `f32` sort key.
//! Also: `Audit::staged_with_subset` gives the whole set's audit and a subset's,
//! however its class readings are cut in ranges.

use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::reading::ProbView;
use calibscope_core::recal::checks::order_checks;
use calibscope_core::{PredictionSet, Scores, Source, Values};
use proptest::prelude::*;

fn store(values: Vec<f64>, f32_storage: bool) -> Values {
    if f32_storage {
        Values::F32(values.iter().map(|&v| v as f32).collect())
    } else {
        Values::F64(values)
    }
}

/// How the "after" scores come from the "before" ones.
#[derive(Clone, Copy, Debug)]
enum Change {
    Scale(f64),
    Same,
    /// Entry `j % len` is moved by `delta`.
    Nudge(usize, f64),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        prop::sample::select(vec![0.37, 2.5, 1.0 / 3.0, 7.0]).prop_map(Change::Scale),
        Just(Change::Same),
        (0usize..1000, prop_oneof![Just(1e-9), Just(-0.5), Just(3.0)])
            .prop_map(|(j, d)| Change::Nudge(j, d)),
    ]
}

fn apply(values: &[f64], change: Change, probabilities: bool) -> Vec<f64> {
    let mut out: Vec<f64> = match change {
        Change::Scale(tau) if probabilities => values.iter().map(|p| p.powf(1.0 / tau)).collect(),
        Change::Scale(tau) => values.iter().map(|z| z / tau).collect(),
        _ => values.to_vec(),
    };
    if let Change::Nudge(j, delta) = change {
        if !out.is_empty() {
            let j = j % out.len();
            out[j] = if probabilities {
                (out[j] + delta).clamp(0.0, 1.0)
            } else {
                out[j] + delta
            };
        }
    }
    out
}

fn check(
    before: &PredictionSet,
    after: &PredictionSet,
    settings: &AuditSettings,
) -> Result<(), TestCaseError> {
    let view = ProbView::new(before).expect("scores");
    let (audit, orders) = Audit::compute_with_orders(after, settings, &view);
    prop_assert_eq!(
        format!("{:?}", audit),
        format!("{:?}", Audit::compute(after, settings))
    );
    prop_assert_eq!(
        orders,
        order_checks(before, after).argsort_identical_per_class
    );
    Ok(())
}

fn settings() -> impl Strategy<Value = AuditSettings> {
    (prop::collection::vec(1usize..=30, 1..3), 0usize..=12).prop_map(
        |(m_values, reliability_bins)| AuditSettings {
            m_values,
            reliability_bins,
            ..AuditSettings::default()
        },
    )
}

/// A matrix set's parts: `k`, labels, scores (logits, or rows of probabilities with
/// the same ties, renormalised), their source and whether they are stored as `f32`.
#[derive(Clone, Debug)]
struct Matrix {
    k: usize,
    labels: Vec<u32>,
    values: Vec<f64>,
    source: Source,
    f32_storage: bool,
}

impl Matrix {
    fn set(&self, values: Vec<f64>) -> PredictionSet {
        PredictionSet {
            labels: self.labels.clone(),
            scores: Scores::Matrix {
                values: store(values, self.f32_storage),
                k: self.k,
                source: self.source,
            },
            k: self.k,
        }
    }
}

fn matrix() -> impl Strategy<Value = Matrix> {
    let entry = prop_oneof![
        (-3i32..3).prop_map(|z| z as f64),
        (0u32..4).prop_map(|b| 0.3 + b as f64 * 1e-12),
        -30.0f64..30.0,
    ];
    (
        2usize..7,
        prop::collection::vec((prop::collection::vec(entry, 7), 0u32..7), 0..90),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(k, rows, logits, f32_storage)| {
            let mut values: Vec<f64> = rows.iter().flat_map(|r| r.0[..k].to_vec()).collect();
            if !logits {
                for row in values.chunks_mut(k) {
                    let total: f64 = row.iter().map(|v| v.abs()).sum();
                    for v in row.iter_mut() {
                        *v = if total > 0.0 {
                            v.abs() / total
                        } else {
                            1.0 / k as f64
                        };
                    }
                }
            }
            Matrix {
                k,
                labels: rows.iter().map(|r| r.1 % k as u32).collect(),
                values,
                source: if logits {
                    Source::Logits
                } else {
                    Source::Probs
                },
                f32_storage,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn matrix_orders(m in matrix(), change in change(), settings in settings()) {
        let after = apply(&m.values, change, m.source == Source::Probs);
        check(&m.set(m.values.clone()), &m.set(after), &settings)?;
    }

    #[test]
    fn column_orders_fall_back(
        rows in prop::collection::vec(((0u32..=20).prop_map(|a| a as f64 / 20.0), any::<bool>()), 0..90),
        logits in any::<bool>(),
        change in change(),
        settings in settings(),
    ) {
        let labels: Vec<u32> = rows.iter().map(|r| r.1 as u32).collect();
        let values: Vec<f64> = rows
            .iter()
            .map(|r| if logits { 8.0 * r.0 - 4.0 } else { r.0 })
            .collect();
        let source = if logits { Source::Logits } else { Source::Probs };
        let after_values = apply(&values, change, !logits);
        let set = |v: Vec<f64>| PredictionSet {
            labels: labels.clone(),
            scores: Scores::Column { values: Values::F64(v), source },
            k: 2,
        };
        check(&set(values), &set(after_values), &settings)?;
    }
}

#[test]
fn top_label_sets_have_no_classes() {
    let set = PredictionSet::top_label(
        vec![0, 1, 1],
        vec![0, 1, 0],
        Values::F64(vec![0.9, 0.6, 0.7]),
    );
    // a top-label set has no probability view; its own scores serve as the
    // reference's rows through a matrix of the same n and k
    let reference = PredictionSet {
        labels: set.labels.clone(),
        scores: Scores::Matrix {
            values: Values::F64(vec![0.5; 3 * set.k]),
            k: set.k,
            source: Source::Probs,
        },
        k: set.k,
    };
    let view = ProbView::new(&reference).unwrap();
    let (audit, orders) = Audit::compute_with_orders(&set, &AuditSettings::default(), &view);
    assert!(orders.is_empty());
    assert_eq!(
        format!("{audit:?}"),
        format!("{:?}", Audit::compute(&set, &AuditSettings::default()))
    );
}

/// A large set: the walk crosses many gather chunks; one class keeps its order (a
/// column scaled together with the others by a positive factor keeps the order
/// only by chance, so this set is built with one column that is the same in both).
#[test]
fn a_kept_order_is_seen_across_chunks() {
    let (n, k) = (5000, 4);
    let mut rng = calibscope_core::split::SplitMix64::new(11);
    let mut next = move || rng.next_f64();
    let labels: Vec<u32> = (0..n).map(|_| (next() * k as f64) as u32).collect();
    let before: Vec<f64> = (0..n * k).map(|_| next()).collect();
    let mut after = before.clone();
    for (j, v) in after.iter_mut().enumerate() {
        if j % k == 3 {
            *v = v.sqrt();
        }
    }
    let set = |v: Vec<f64>| PredictionSet {
        labels: labels.clone(),
        scores: Scores::Matrix {
            values: Values::F64(v),
            k,
            source: Source::Probs,
        },
        k,
    };
    let (before, after) = (set(before), set(after));
    let view = ProbView::new(&before).unwrap();
    let (_, orders) = Audit::compute_with_orders(&after, &AuditSettings::default(), &view);
    assert_eq!(orders, vec![true, true, true, true]);
    assert_eq!(
        orders,
        order_checks(&before, &after).argsort_identical_per_class
    );
    let mut shuffled = after.clone();
    if let Scores::Matrix {
        values: Values::F64(v),
        ..
    } = &mut shuffled.scores
    {
        v.swap(4 * 10 + 1, 4 * 4000 + 1);
    }
    let (_, orders) = Audit::compute_with_orders(&shuffled, &AuditSettings::default(), &view);
    assert_eq!(
        orders,
        order_checks(&before, &shuffled).argsort_identical_per_class
    );
    assert!(!orders[1]);
}

/// `Audit::staged_with_subset`: the whole set's audit and the subset's, its class
/// readings cut in ranges in any way, are the two audits made on their own.
fn staged_subset_is_the_audits(
    set: &PredictionSet,
    keep: &[bool],
    cuts: &[usize],
    settings: &AuditSettings,
    sub_settings: &AuditSettings,
) -> Result<(), TestCaseError> {
    use calibscope_core::audit::Staged;
    let rows: Vec<usize> = (0..set.n()).filter(|&i| keep[i % keep.len()]).collect();
    let sub = calibscope_core::reading::subset(set, &rows);
    let (whole, part) =
        match Audit::staged_with_subset(set, settings, Some((&rows, &sub, sub_settings))) {
            Staged::Done(whole, part) => (whole, part),
            Staged::Matrix(stage) => {
                let k = stage.k();
                let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (k + 1)).collect();
                bounds.extend([0, k]);
                bounds.sort_unstable();
                let chunks = bounds
                    .windows(2)
                    .map(|w| stage.classes(w[0]..w[1], None))
                    .collect();
                let done = stage.finish(chunks);
                (done.audit, done.subset)
            }
        };
    prop_assert_eq!(
        format!("{:?}", whole),
        format!("{:?}", Audit::compute(set, settings))
    );
    prop_assert_eq!(
        format!("{:?}", part.expect("asked for")),
        format!("{:?}", Audit::compute(&sub, sub_settings))
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn matrix_subsets(
        m in matrix(),
        keep in prop::collection::vec(any::<bool>(), 1..9),
        cuts in prop::collection::vec(0usize..8, 0..4),
        settings in settings(),
        sub_settings in settings(),
        roc in any::<bool>(),
    ) {
        let set = m.set(m.values.clone());
        let sub_settings = AuditSettings { roc_curve: roc, ..sub_settings };
        staged_subset_is_the_audits(&set, &keep, &cuts, &settings, &sub_settings)?;
    }

    #[test]
    fn column_subsets(
        rows in prop::collection::vec(((0u32..=20).prop_map(|a| a as f64 / 20.0), any::<bool>()), 0..90),
        keep in prop::collection::vec(any::<bool>(), 1..9),
        settings in settings(),
    ) {
        let set = PredictionSet {
            labels: rows.iter().map(|r| r.1 as u32).collect(),
            scores: Scores::Column {
                values: Values::F64(rows.iter().map(|r| r.0).collect()),
                source: Source::Probs,
            },
            k: 2,
        };
        staged_subset_is_the_audits(&set, &keep, &[], &settings, &settings)?;
    }
}
