//! The audit's fast path equals the general path bit for bit (compared through
//! `Debug`, which prints every float exactly and tells -0.0 from 0.0), on inputs
//! built to hit its corner cases: exact ties, values that `1 - u` rounds together,
//! `u` at and around 0.5, 0 and 1, scores sharing an `f32` sort key, tiny
//! probabilities, both storage precisions, all four score layouts, empty and
//! one-sample sets, bin counts from 1 to past the sparse-index limit.

use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::binning::width_threshold;
use calibscope_core::{PredictionSet, Scores, Source, Values};
use proptest::prelude::*;

/// Forecasts in [0, 1] with many ties and rounding collisions.
fn forecast() -> impl Strategy<Value = f64> {
    prop_oneof![
        // values whose 1 - u collide, and the 0.5 boundary
        prop::sample::select(vec![
            0.0,
            1.0,
            0.5,
            0.5 - f64::EPSILON / 4.0, // 1 - u rounds to 0.5
            0.5 - f64::EPSILON / 2.0,
            0.5 + f64::EPSILON / 2.0,
            0.25,
            0.75,
            1e-300,
            1e-20,
            2e-20, // 1 - u = 1 for both
            1.0 - f64::EPSILON / 2.0,
            1.0 - f64::EPSILON,
            0.1,
            0.9,
            0.3,
            0.7,
        ]),
        // distinct f64 values sharing an f32 key
        (0u32..40, 0u32..4).prop_map(|(a, b)| 0.3 + a as f64 * 1e-3 + b as f64 * 1e-12),
        // a coarse grid: many exact ties
        (0u32..=20).prop_map(|a| a as f64 / 20.0),
        // exactly at an equal-width bin edge (with its tolerance), or one ulp below
        (2usize..=25, 1usize..25, any::<bool>()).prop_map(|(m, b, below)| {
            let t = width_threshold(m, 1 + b % (m - 1));
            if below {
                f64::from_bits(t.to_bits() - 1)
            } else {
                t
            }
        }),
        0.0f64..=1.0,
    ]
}

fn settings() -> impl Strategy<Value = AuditSettings> {
    (
        prop::collection::vec(
            prop_oneof![1usize..=20, 1usize..=200, Just(0usize), 2000usize..3000],
            1..4,
        ),
        0usize..=25,
        any::<bool>(),
    )
        .prop_map(|(m_values, reliability_bins, roc_curve)| AuditSettings {
            m_values,
            reliability_bins,
            roc_curve,
            ..AuditSettings::default()
        })
}

fn store(values: Vec<f64>, f32_storage: bool) -> Values {
    if f32_storage {
        Values::F32(values.iter().map(|&v| v as f32).collect())
    } else {
        Values::F64(values)
    }
}

fn same(set: &PredictionSet, settings: &AuditSettings) -> Result<(), TestCaseError> {
    let fast = format!("{:?}", Audit::compute(set, settings));
    let general = format!("{:?}", Audit::compute_general(set, settings));
    prop_assert!(fast == general, "fast:    {fast}\ngeneral: {general}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn binary_probabilities(
        rows in prop::collection::vec((forecast(), any::<bool>()), 0..120),
        f32_storage in any::<bool>(),
        settings in settings(),
    ) {
        let set = PredictionSet {
            labels: rows.iter().map(|r| r.1 as u32).collect(),
            scores: Scores::Column {
                values: store(rows.iter().map(|r| r.0).collect(), f32_storage),
                source: Source::Probs,
            },
            k: 2,
        };
        same(&set, &settings)?;
    }

    #[test]
    fn binary_logits(
        rows in prop::collection::vec((prop_oneof![-40.0f64..40.0, (-8i32..8).prop_map(|s| s as f64), Just(0.0), Just(-0.0), Just(38.0), Just(-745.0)], any::<bool>()), 0..120),
        f32_storage in any::<bool>(),
        settings in settings(),
    ) {
        let set = PredictionSet {
            labels: rows.iter().map(|r| r.1 as u32).collect(),
            scores: Scores::Column {
                values: store(rows.iter().map(|r| r.0).collect(), f32_storage),
                source: Source::Logits,
            },
            k: 2,
        };
        same(&set, &settings)?;
    }

    #[test]
    fn matrix_logits(
        k in 2usize..6,
        rows in prop::collection::vec((prop::collection::vec(prop_oneof![(-3i32..3).prop_map(|z| z as f64), -30.0f64..30.0], 6), 0u32..6), 0..80),
        f32_storage in any::<bool>(),
        settings in settings(),
    ) {
        let labels = rows.iter().map(|r| r.1 % k as u32).collect();
        let values = rows.iter().flat_map(|r| r.0[..k].to_vec()).collect();
        let set = PredictionSet {
            labels,
            scores: Scores::Matrix { values: store(values, f32_storage), k, source: Source::Logits },
            k,
        };
        same(&set, &settings)?;
    }

    #[test]
    fn matrix_probabilities(
        k in 2usize..6,
        rows in prop::collection::vec((prop::collection::vec(prop_oneof![(0u32..4).prop_map(|a| a as f64), 0.0f64..1.0], 6), 0u32..6), 0..80),
        f32_storage in any::<bool>(),
        settings in settings(),
    ) {
        let labels = rows.iter().map(|r| r.1 % k as u32).collect();
        let values = rows
            .iter()
            .flat_map(|r| {
                let total: f64 = r.0[..k].iter().sum::<f64>();
                let row: Vec<f64> = if total > 0.0 {
                    r.0[..k].iter().map(|p| p / total).collect()
                } else {
                    vec![1.0 / k as f64; k]
                };
                row
            })
            .collect();
        let set = PredictionSet {
            labels,
            scores: Scores::Matrix { values: store(values, f32_storage), k, source: Source::Probs },
            k,
        };
        same(&set, &settings)?;
    }

    #[test]
    fn top_label(
        rows in prop::collection::vec((forecast(), 0u32..4, 0u32..4), 0..120),
        f32_storage in any::<bool>(),
        settings in settings(),
    ) {
        let set = PredictionSet::top_label(
            rows.iter().map(|r| r.1).collect(),
            rows.iter().map(|r| r.2).collect(),
            store(rows.iter().map(|r| r.0).collect(), f32_storage),
        );
        same(&set, &settings)?;
    }
}

/// Larger sets: many more ties and key collisions than the small cases reach.
#[test]
fn larger_sets_agree() {
    let mut state = 3u64;
    let mut uniform = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let settings = AuditSettings {
        m_values: vec![1, 7, 15, 100],
        roc_curve: true,
        ..AuditSettings::default()
    };
    for n in [1usize, 2, 600, 20_000] {
        // coarse forecasts (ties), f32 forecasts, and near-0.5 forecasts
        let u: Vec<f64> = (0..n)
            .map(|i| match i % 3 {
                0 => (uniform() * 50.0).floor() / 50.0,
                1 => uniform() as f32 as f64,
                _ => 0.5 + (uniform() - 0.5) * 1e-15,
            })
            .collect();
        let labels: Vec<u32> = u.iter().map(|&p| (uniform() < p) as u32).collect();
        for f32_storage in [false, true] {
            let set = PredictionSet {
                labels: labels.clone(),
                scores: Scores::Column {
                    values: store(u.clone(), f32_storage),
                    source: Source::Probs,
                },
                k: 2,
            };
            assert_eq!(
                format!("{:?}", Audit::compute(&set, &settings)),
                format!("{:?}", Audit::compute_general(&set, &settings)),
                "n = {n}"
            );
        }
        // more classes than one block of the class-major copy, a partial last block
        for (k, f32_storage) in [(7, true), (19, false), (19, true)] {
            let z: Vec<f64> = (0..n * k).map(|_| (uniform() * 6.0).floor()).collect();
            let y: Vec<u32> = (0..n).map(|_| (uniform() * k as f64) as u32).collect();
            let probs: Vec<f64> = z
                .chunks_exact(k)
                .flat_map(|row| {
                    let total: f64 = row.iter().map(|z| z + 1.0).sum();
                    row.iter().map(move |z| (z + 1.0) / total)
                })
                .collect();
            for (values, source) in [(z, Source::Logits), (probs, Source::Probs)] {
                let set = PredictionSet {
                    labels: y.clone(),
                    scores: Scores::Matrix {
                        values: store(values, f32_storage),
                        k,
                        source,
                    },
                    k,
                };
                assert_eq!(
                    format!("{:?}", Audit::compute(&set, &settings)),
                    format!("{:?}", Audit::compute_general(&set, &settings)),
                    "n = {n}, k = {k}, {source:?}"
                );
            }
        }
    }
}
