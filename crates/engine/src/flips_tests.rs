//! The worker's ranking-flips answers against the multi-model fixtures' `ranking`
//! section (ranks, Spearman, flips, flip pairs, Spearman against the error) and
//! per-model values, under the fixtures' tolerance rules.

use super::*;
use crate::compare;
use calibscope_core::sweep::SweepMetric;
use serde_json::{json, Map, Value};

use calibscope_test_support::shared;

fn session(path: &std::path::Path) -> Session {
    let bytes = std::fs::read(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy();
    let ds = calibscope_io::parse_bytes(&name, &bytes, &Default::default()).unwrap();
    Session::new(ds)
}

fn answer(s: &mut Session, request: FlipsRequest) -> FlipsAnswer {
    match s.flips(1, 1, &request) {
        FromWorker::Flips { answer, .. } => answer,
        other => panic!("not an answer: {other:?}"),
    }
}

/// The curve of `metric` over the bin counts, equal-mass.
fn mass_curve(s: &mut Session, metric: &str) -> crate::proto::flips::FlipsCurve {
    match answer(
        s,
        FlipsRequest::Curve {
            metric: metric.into(),
            binning: Binning::Mass,
        },
    ) {
        FlipsAnswer::Curve(c) => c,
        other => panic!("not a curve: {other:?}"),
    }
}

/// The worker's answers in the shape of the fixture's `ranking` and `models`.
fn as_fixture(s: &mut Session, names: &[String], m_values: &[usize]) -> Value {
    let mut metrics = Map::new();
    let mut models = Map::new();
    for metric in SweepMetric::ALL {
        let mut by_binning = Map::new();
        for binning in Binning::ALL {
            let mut ranks = Map::new();
            for (j, &m) in m_values.iter().enumerate() {
                // the rank answer at m (reference: the previous bin count)
                let m_ref = m_values[j.saturating_sub(1)];
                let FlipsAnswer::Rank(r) = answer(
                    s,
                    FlipsRequest::Rank {
                        metric: metric.name().into(),
                        binning,
                        m,
                        m_ref,
                    },
                ) else {
                    panic!("rank")
                };
                ranks.insert(m.to_string(), json!(r.ranks));
                for (i, name) in names.iter().enumerate() {
                    let path = format!("/{name}/metrics/{}/{}/{m}", metric.name(), binning.name());
                    *ensure(&mut models, &path) = json!(r.values[i]);
                }
            }
            let FlipsAnswer::Matrices(mx) = answer(
                s,
                FlipsRequest::Matrices {
                    binning,
                    bins: m_values.to_vec(),
                },
            ) else {
                panic!("matrices")
            };
            assert_eq!(mx.bins, m_values);
            let x = mx
                .metrics
                .iter()
                .find(|x| x.metric == metric.name())
                .unwrap();
            let pairs: Map<String, Value> = x
                .flip_pairs
                .iter()
                .map(|p| {
                    let list: Vec<Value> = p
                        .pairs
                        .iter()
                        .map(|&(i, j)| json!([names[i], names[j]]))
                        .collect();
                    (format!("{}|{}", m_values[p.a], m_values[p.b]), json!(list))
                })
                .collect();
            let vs_error: Map<String, Value> = m_values
                .iter()
                .zip(&x.spearman_vs_error)
                .map(|(m, v)| (m.to_string(), json!(v)))
                .collect();
            by_binning.insert(
                binning.name().into(),
                json!({"ranks": ranks, "spearman": x.spearman, "flips": x.flips,
                       "flip_pairs": pairs, "spearman_vs_error": vs_error}),
            );
        }
        metrics.insert(metric.name().into(), Value::Object(by_binning));
    }
    json!({"ranking": {"metrics": metrics}, "models": models})
}

/// The JSON value at a `/`-separated path, created as objects on the way.
fn ensure<'a>(root: &'a mut Map<String, Value>, path: &str) -> &'a mut Value {
    let mut parts = path.trim_start_matches('/').split('/');
    let first = parts.next().unwrap();
    let mut v = root.entry(first).or_insert_with(|| json!({}));
    for p in parts {
        v = v
            .as_object_mut()
            .unwrap()
            .entry(p)
            .or_insert_with(|| json!({}));
    }
    v
}

#[test]
fn flips_answers_match_the_multi_fixtures() {
    let shared = shared();
    for name in ["digits_zoo_probs", "digits_mlp_trajectory_logits"] {
        let dir = shared.join("fixtures/multi");
        let want: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.expected.json"))).unwrap(),
        )
        .unwrap();
        let mut s = session(&dir.join(format!("{name}.csv")));
        let names: Vec<String> = s.summary().models;
        let m_values: Vec<usize> = want["m_values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        let mut got = as_fixture(&mut s, &names, &m_values);
        // what the fixture has of these: ranking.metrics and models.*.metrics
        let mut expected = json!({"tolerance": want["tolerance"], "ranking": {"metrics": want["ranking"]["metrics"]}, "models": {}});
        for n in &names {
            expected["models"][n] = json!({"metrics": want["models"][n]["metrics"]});
        }
        // the binning-free references: curve values and Spearman against the error
        let FlipsAnswer::Matrices(mx) = answer(
            &mut s,
            FlipsRequest::Matrices {
                binning: Binning::Mass,
                bins: vec![5, 20, 2000],
            },
        ) else {
            panic!()
        };
        assert_eq!(mx.bins, [5, 20, 450], "2000 is clipped to n");
        for key in ["brier_over_k", "l_conf"] {
            let x = mx.metrics.iter().find(|x| x.metric == key).unwrap();
            got["ranking"]["binning_free_spearman_vs_error"][key] = json!(x.spearman_vs_error[0]);
            expected["ranking"]["binning_free_spearman_vs_error"][key] =
                want["ranking"]["binning_free_spearman_vs_error"][key].clone();
            // a binning-free ranking never flips
            assert!(x.flips.iter().flatten().all(|&f| f == 0), "{key}");
        }
        for key in ["error", "brier_over_k", "l_conf"] {
            let FlipsAnswer::Curve(c) = answer(
                &mut s,
                FlipsRequest::Curve {
                    metric: key.into(),
                    binning: Binning::Width,
                },
            ) else {
                panic!()
            };
            assert_eq!(c.m_max, 450);
            for (i, n) in names.iter().enumerate() {
                assert_eq!(c.values[i].len(), 450);
                got["models"][n]["binning_free"][key] = json!(c.values[i][449]);
                expected["models"][n]["binning_free"][key] =
                    want["models"][n]["binning_free"][key].clone();
            }
        }
        // the curve of a binned metric at the fixture's bin counts
        let c = mass_curve(&mut s, "confce_corr");
        for (i, n) in names.iter().enumerate() {
            for &m in &m_values {
                let w = want["models"][n]["metrics"]["confce_corr"]["mass"][m.to_string()]
                    .as_f64()
                    .unwrap();
                let g = c.values[i][m - 1].unwrap();
                assert!((g - w).abs() <= 1e-10 + 1e-9 * w.abs(), "{name} {n} {m}");
            }
        }
        for &m in &m_values {
            let w = &want["ranking"]["metrics"]["confce_corr"]["mass"]["spearman_vs_error"]
                [m.to_string()];
            let g = c.spearman_vs_error[m - 1];
            assert!(
                (g.unwrap() - w.as_f64().unwrap()).abs() <= 1e-10,
                "{name} curve vs error at {m}"
            );
        }
        let mismatches = compare::compare(&got, &expected);
        assert!(mismatches.is_empty(), "{name}: {mismatches:?}");
    }
}

#[test]
fn flips_say_what_top_label_input_cannot_give() {
    let shared = shared();
    let p = shared.join("fixtures/synthetic/syn_uniform_perfect_n2000_s1_toplabel.csv");
    let mut s = session(&p);
    for metric in ["lince_cw", "cwece", "brier_over_k"] {
        let c = mass_curve(&mut s, metric);
        assert!(c.unavailable.unwrap().contains("full probability vectors"));
        assert!(c.values.is_empty());
    }
    // the confidence metrics work; one model: Spearman undefined, no flips
    let FlipsAnswer::Rank(r) = answer(
        &mut s,
        FlipsRequest::Rank {
            metric: "confce_corr".into(),
            binning: Binning::Mass,
            m: 20,
            m_ref: 2000,
        },
    ) else {
        panic!()
    };
    assert_eq!(r.ranks, [1.0]);
    assert_eq!(r.spearman, None);
    assert!(r.flip_pairs.is_empty());
    // bad questions are errors, not panics
    for request in [
        FlipsRequest::Curve {
            metric: "nope".into(),
            binning: Binning::Mass,
        },
        FlipsRequest::Rank {
            metric: "confece".into(),
            binning: Binning::Mass,
            m: 0,
            m_ref: 5,
        },
        FlipsRequest::Matrices {
            binning: Binning::Mass,
            bins: vec![],
        },
    ] {
        assert!(matches!(s.flips(1, 1, &request), FromWorker::Error { .. }));
    }
}

#[test]
fn flips_messages_round_trip() {
    let msg = crate::proto::ToWorker::Flips {
        id: 3,
        gen: 2,
        request: FlipsRequest::Matrices {
            binning: Binning::Mass,
            bins: vec![5, 20, 2000],
        },
    };
    let text = serde_json::to_string(&msg).unwrap();
    assert_eq!(
        serde_json::from_str::<crate::proto::ToWorker>(&text).unwrap(),
        msg
    );
    let ans = FromWorker::Flips {
        id: 3,
        gen: 2,
        answer: FlipsAnswer::Rank(FlipsRanking {
            ranks: vec![1.5, 1.5],
            spearman: None,
            ..FlipsRanking::default()
        }),
    };
    assert_eq!(
        serde_json::from_str::<FromWorker>(&ans.to_json()).unwrap(),
        ans
    );
}

/// Two models' ragged logs (questions with 3 to 5 choices): the classwise metrics
/// say why they do not rank; the confidence metrics rank.
#[test]
fn flips_of_ragged_logs_say_why_no_classwise_metric_ranks() {
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../io/tests/data/lm_eval/samples_arc_like.jsonl");
    let bytes = std::fs::read(&log).unwrap();
    let parse = |name| calibscope_io::parse_bytes(name, &bytes, &Default::default()).unwrap();
    let ds = calibscope_io::combine(vec![parse("a.jsonl"), parse("b.jsonl")]).unwrap();
    assert!(ds.detection.ragged.is_some() && ds.models.len() == 2);
    let mut s = Session::new(ds);
    for metric in ["lince_cw", "cwece", "brier_over_k"] {
        let c = mass_curve(&mut s, metric);
        let why = c.unavailable.unwrap();
        assert!(why.contains("between 3 and 5 choices"), "{metric}: {why}");
    }
    let c = mass_curve(&mut s, "confce_corr");
    assert!(c.unavailable.is_none());
    assert!(!c.values.is_empty());
}
