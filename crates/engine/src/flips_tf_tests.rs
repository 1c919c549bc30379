//! The worker's ranking-flips answers with every model temperature-scaled first:
//! the same numbers as the record's section (`calibscope_audit::flips_section`,
//! which `calibscope flips --temperature-first` and records use), each τ that of the
//! Recalibrate view, the bin counts lowered to the evaluation split, and top-label
//! input answered with the reason.

use super::*;
use calibscope_audit::{flips_section, FlipsSettings};
use serde_json::json;

use calibscope_test_support::shared;

fn session(path: &std::path::Path) -> (Session, calibscope_io::Dataset) {
    let bytes = std::fs::read(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy();
    let ds = calibscope_io::parse_bytes(&name, &bytes, &Default::default()).unwrap();
    (Session::new(ds.clone()), ds)
}

fn answer(s: &mut Session, request: FlipsRequest) -> FlipsAnswer {
    match s.flips(1, 1, &request.scaled_first(true)) {
        FromWorker::Flips { answer, .. } => answer,
        other => panic!("not an answer: {other:?}"),
    }
}

#[test]
fn scaled_answers_equal_the_records_section() {
    let (mut s, ds) = session(&shared().join("fixtures/multi/digits_zoo_probs.csv"));
    let n = ds.n();
    for metric in ["confece", "confce_corr", "lince_cw"] {
        let settings = FlipsSettings {
            metric: metric.into(),
            m: 5,
            m_ref: 2000,
            bins: vec![5, 20, 2000],
            temperature_first: true,
            ..FlipsSettings::default()
        };
        let section = flips_section(&ds.models, &settings).unwrap();
        let n_eval = section["temperature"]["n_evaluation"].as_u64().unwrap() as usize;
        assert!(n_eval < n);
        // the slider's reference (2000, clipped to all n) is lowered to the split's
        let FlipsAnswer::Rank(r) = answer(
            &mut s,
            FlipsRequest::Rank {
                metric: metric.into(),
                binning: Binning::Mass,
                m: 5,
                m_ref: n.min(2000),
            },
        ) else {
            panic!("rank")
        };
        assert_eq!(r.m_ref, n_eval.min(2000));
        let t = r.temperature.as_ref().unwrap();
        assert_eq!(json!(t.tau), section["temperature"]["tau"]);
        assert_eq!(t.n_evaluation, n_eval);
        let key = r.m_ref.to_string();
        assert_eq!(json!(r.values_ref), section["ranking"]["values"][&key]);
        assert_eq!(json!(r.values), section["ranking"]["values"]["5"]);
        assert_eq!(json!(r.ranks), section["ranking"]["ranks"]["5"]);
        let FlipsAnswer::Matrices(x) = answer(
            &mut s,
            FlipsRequest::Matrices {
                binning: Binning::Mass,
                bins: vec![5, 20, 2000],
            },
        ) else {
            panic!("matrices")
        };
        assert_eq!(x.bins, vec![5, 20, n_eval.min(2000)]);
        assert!(x.temperature.is_some() && x.unavailable.is_none());
        for mm in &x.metrics {
            let want = &section["matrices"][&mm.metric];
            assert_eq!(json!(mm.flips), want["flips"], "{}", mm.metric);
            assert_eq!(json!(mm.spearman), want["spearman"], "{}", mm.metric);
        }
        let FlipsAnswer::Curve(c) = answer(
            &mut s,
            FlipsRequest::Curve {
                metric: metric.into(),
                binning: Binning::Mass,
            },
        ) else {
            panic!("curve")
        };
        assert_eq!(c.m_max, n_eval.min(2000));
        assert_eq!(c.values[0][4], r.values[0], "the curve at m = 5");
    }
    // each τ is the Recalibrate view's fit of that model (seed 0, fraction 0.5)
    let FlipsAnswer::Matrices(x) = answer(
        &mut s,
        FlipsRequest::Matrices {
            binning: Binning::Mass,
            bins: vec![5],
        },
    ) else {
        panic!("matrices")
    };
    for (i, (_, set)) in ds.models.iter().enumerate() {
        let run = calibscope_core::recal::apply::recalibrate_temperature(set, 0, 0.5);
        let tau = run.temperature.unwrap().fit.tau;
        assert_eq!(
            x.temperature.as_ref().unwrap().tau[i].to_bits(),
            tau.to_bits()
        );
    }
    // without the switch, nothing is scaled
    let FromWorker::Flips {
        answer: FlipsAnswer::Matrices(plain),
        ..
    } = s.flips(
        1,
        1,
        &FlipsRequest::Matrices {
            binning: Binning::Mass,
            bins: vec![5],
        },
    )
    else {
        panic!("matrices")
    };
    assert!(plain.temperature.is_none());
}

#[test]
fn top_label_input_says_why_it_cannot_be_scaled() {
    let (mut s, _) =
        session(&shared().join("fixtures/synthetic/syn_uniform_perfect_n2000_s1_toplabel.csv"));
    let FlipsAnswer::Matrices(x) = answer(
        &mut s,
        FlipsRequest::Matrices {
            binning: Binning::Mass,
            bins: vec![5, 20],
        },
    ) else {
        panic!("matrices")
    };
    let why = x.unavailable.unwrap();
    assert!(why.contains("top-label"), "{why}");
    assert!(x.metrics.is_empty());
    // asked twice is a bad request, not a panic
    let twice = FlipsRequest::TemperatureFirst(Box::new(FlipsRequest::TemperatureFirst(Box::new(
        FlipsRequest::Matrices {
            binning: Binning::Mass,
            bins: vec![5],
        },
    ))));
    assert!(matches!(s.flips(1, 1, &twice), FromWorker::Error { .. }));
}
