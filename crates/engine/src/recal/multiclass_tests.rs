//! The multiclass maps asked for after a complete recalibration answer.

use super::super::tests::{full, session};
use super::*;
use calibscope_audit::recalibration_json_of;
use calibscope_core::binning::Binning;
use calibscope_core::recal::prob_maps::{fit_prob_map, Bins};
use calibscope_test_support::shared;

/// Fitted a unit at a time with progress, vector scaling, matrix scaling and
/// Dirichlet calibration equal `calibscope recalibrate --method …`'s fits (the core's
/// whole run on the same split), and the answer's section, ledger, tables, checks
/// and maps hold them beside the six maps every fit has.
#[test]
fn multiclass_maps_on_request_equal_the_cli_s_fits() {
    let mut s = session(&shared().join("fixtures/real/digits_logreg_C1_logits.csv"));
    assert!(matches!(
        full(&mut s),
        FromWorker::Recalibrated { complete: true, .. }
    ));
    let mut job = s.recal_multiclass_start(10, 9).expect("a 10-class fit");
    assert_eq!(job.id(), 10);
    let mut seen = vec![job.progress()];
    loop {
        let (done, total) = job.step(1);
        seen.push((done, total));
        if done >= total {
            break;
        }
    }
    // vector 1, matrix 1, Dirichlet 5 folds × 5 strengths + the final fit
    let total = 1 + 1 + 26;
    assert_eq!(
        seen,
        (0..=total).map(|d| (d, total)).collect::<Vec<_>>(),
        "one fit per step"
    );
    let FromWorker::Recalibrated {
        id: 10,
        gen: 9,
        complete: true,
        section,
        view,
        ..
    } = s.recal_multiclass_finish(job)
    else {
        panic!("the answer")
    };
    // the CLI's fits on the same split
    let state = s.recal.as_ref().expect("kept");
    let set = &s.models[0].set;
    let mut run = state.run.clone();
    for m in Method::MULTICLASS {
        let kind = m.prob_method().expect("a multiclass map");
        let folds = Bins::CrossFit {
            folds: DEFAULT_FOLDS,
        };
        *run.prob_map_mut(kind) = fit_prob_map(set, &run.split, kind, folds);
        assert!(run.prob_map_mut(kind).is_ok(), "{m:?}");
    }
    let want = recalibration_json_of(set, &state.settings, &run);
    for m in Method::MULTICLASS {
        assert_eq!(section[m.name()], want[m.name()], "{m:?}");
        assert!(section[m.name()]["after"]["nll"].is_number());
        assert!(view.checks.has(m) && view.maps.has(m), "{m:?}");
        assert!(section["comparison"]["sets"]
            .as_array()
            .unwrap()
            .contains(&m.name().into()));
    }
    let keys: Vec<&str> = view.ledger.sets.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(
        keys,
        ["before"]
            .into_iter()
            .chain(Method::EVERY.iter().map(|m| m.name()))
            .collect::<Vec<_>>()
    );
    let FromWorker::RecalTables { tables, .. } = s.recal_tables(11, 9, Binning::Width, 15) else {
        panic!("tables")
    };
    assert_eq!(tables.len(), 1 + Method::EVERY.len());
    assert!(tables.iter().all(|t| t.undefined.is_none()));
    // the downloads of a multiclass map are the CLI's
    let FromWorker::RecalExport { csv, params, .. } = s.recal_export(12, Method::Dirichlet, "test")
    else {
        panic!("export")
    };
    assert!(csv.lines().count() > set.n());
    assert!(params.contains("\"dirichlet\""));
    // asked again, the maps are fitted again from scratch (same numbers)
    let job = s.recal_multiclass_start(13, 9).expect("again");
    let FromWorker::Recalibrated { section: again, .. } = s.recal_multiclass_finish(job) else {
        panic!("again")
    };
    assert_eq!(again["dirichlet"], section["dirichlet"]);
}

/// Binary input and a recalibration replaced by a newer one are refused or
/// cancelled, with reasons.
#[test]
fn refusals_and_cancellation() {
    let mut s = session(&shared().join("fixtures/real/breast_cancer_logreg_logit.csv"));
    full(&mut s);
    let why = s.recal_multiclass_start(10, 9).err().expect("binary");
    assert!(
        why.contains("three classes or more") || why.contains("multiclass"),
        "{why}"
    );
    let mut s = session(&shared().join("fixtures/real/digits_logreg_C1_logits.csv"));
    full(&mut s);
    assert!(
        s.recal_multiclass_start(10, 8).is_err(),
        "an older generation"
    );
    let job = s.recal_multiclass_start(10, 9).expect("fit");
    // a newer recalibration (another seed) replaces the one the job extends
    s.recalibrate(11, 11, 0, 1, 0.5);
    assert!(matches!(
        s.recal_multiclass_finish(job),
        FromWorker::Cancelled { id: 10 }
    ));
}

/// The page's record carries every method its Recalibrate view shows, number for
/// number: beta, histogram binning and Venn–Abers always, the multiclass maps when
/// the view asked for them, and the comparison of all of them.
#[test]
fn the_record_carries_every_method_the_view_shows() {
    use calibscope_share::{ViewState, RECAL_MULTICLASS};
    let mut s = session(&shared().join("fixtures/real/digits_logreg_C1_logits.csv"));
    let FromWorker::Recalibrated { section: six, .. } = full(&mut s) else {
        panic!("the answer")
    };
    let record_section = |s: &Session, multiclass: bool| {
        let mut settings = ViewState::default();
        if multiclass {
            settings
                .lab
                .insert(RECAL_MULTICLASS.into(), serde_json::Value::Bool(true));
        }
        let FromWorker::Record { record, .. } = s.record(1, settings, Vec::new(), None, "test")
        else {
            panic!("a record")
        };
        let record: serde_json::Value = serde_json::from_str(&record).unwrap();
        record["audits"][0]["recalibration"].clone()
    };
    let same = |got: &serde_json::Value, want: &serde_json::Value, keys: &[&str]| {
        for key in keys {
            assert!(!want[key].is_null(), "{key} in the view");
            assert_eq!(got[key], want[key], "{key}");
        }
    };
    let six_keys: Vec<&str> = ["before", "comparison"]
        .into_iter()
        .chain(Method::ALL.iter().map(|m| m.name()))
        .collect();
    let recorded = record_section(&s, false);
    same(&recorded, &six, &six_keys);
    assert!(recorded.get("vector").is_none(), "not asked for");
    let job = s.recal_multiclass_start(10, 9).expect("a 10-class fit");
    let FromWorker::Recalibrated { section: every, .. } = s.recal_multiclass_finish(job) else {
        panic!("the answer")
    };
    let recorded = record_section(&s, true);
    same(&recorded, &every, &six_keys);
    same(&recorded, &every, &["vector", "matrix", "dirichlet"]);
    assert_eq!(
        recorded["comparison"]["sets"].as_array().unwrap().len(),
        1 + Method::EVERY.len()
    );
}
