use super::*;

fn run_ok(r: &LabRequest) -> LabAnswer {
    let mut last = (0, 0);
    let a = run(r, &mut |d, t| last = (d, t)).unwrap();
    assert_eq!(last.0, last.1, "progress reaches its total");
    a
}

fn truth(p_star: Vec<f64>, reps: usize) -> LabRequest {
    LabRequest::Truth {
        p_star,
        temperature: 0.5,
        grid: 4,
        n: 100,
        m: 10,
        binning: Binning::Width,
        reps,
        seed: 1,
    }
}

#[test]
fn truth_lab_shows_the_source_claim() {
    let LabAnswer::Truth { rows, share, reps } =
        run_ok(&truth(vec![0.5, 1.0 / 3.0, 1.0 / 6.0], 2000))
    else {
        panic!("wrong answer")
    };
    assert_eq!((share, reps), (1.0, 2000));
    let h = &rows[0];
    let u = &rows[1];
    assert_eq!((h.key.as_str(), u.key.as_str()), ("honest", "uniform"));
    // analytic: uncorrected rewards uniform, corrected rewards honest
    assert!(u.expected_confce < h.expected_confce);
    assert!(h.expected_confce_corr < u.expected_confce_corr);
    // and the simulation agrees with the analytic values
    for r in &rows {
        for (sim, e) in [
            (r.sim_confce, r.expected_confce),
            (r.sim_confce_corr, r.expected_confce_corr),
        ] {
            assert!(
                (sim.mean - e).abs() <= 4.0 * sim.se + 1e-12,
                "{}: {sim:?} vs {e}",
                r.key
            );
        }
    }
    // the request travels as JSON
    let text = serde_json::to_string(&truth(vec![0.5, 0.5], 3)).unwrap();
    assert!(text.starts_with("{\"truth\":{"), "{text}");
    assert_eq!(
        serde_json::from_str::<LabRequest>(&text).unwrap(),
        truth(vec![0.5, 0.5], 3)
    );
}

#[test]
fn bad_requests_are_errors() {
    let mut p = |_, _| {};
    assert!(run(&truth(vec![0.7, 0.7], 10), &mut p).is_err());
    assert!(run(&truth(vec![0.5, 0.5], 0), &mut p).is_err());
    let gen = |dist: &str, n| LabRequest::Generate {
        dist: dist.into(),
        mode: "perfect".into(),
        n,
        m: 15,
        seed: 0,
    };
    assert!(run(&gen("nope", 100), &mut p).is_err());
    assert!(run(&gen("uniform", 0), &mut p).is_err());
    assert!(run(&gen("uniform", MAX_N + 1), &mut p).is_err());
    let ce = LabRequest::Counterexample {
        n: 1,
        lambda: 3.0,
        p: 0.5,
        m: 15,
    };
    assert!(run(&ce, &mut p).is_err());
    let ci = LabRequest::Interval {
        successes: 8,
        n: 7,
        alpha: 0.1,
    };
    assert!(run(&ci, &mut p).is_err());
    let fc = LabRequest::Forecaster {
        n: 10,
        m: 5,
        sharpness: -1.0,
        base_rate: false,
        reps: 1,
        seed: 0,
    };
    assert!(run(&fc, &mut p).is_err());
}

#[test]
fn generator_run_and_repeat() {
    let LabAnswer::Generate {
        hist,
        rows,
        ece,
        risk,
        auc,
        cwauc,
        roc,
    } = run_ok(&LabRequest::Generate {
        dist: "uniform".into(),
        mode: "perfect".into(),
        n: 5000,
        m: 15,
        seed: 3,
    })
    else {
        panic!()
    };
    assert_eq!(hist.iter().sum::<u64>(), 5000);
    assert_eq!(rows.iter().map(|r| r.n).sum::<usize>(), 5000);
    assert!(ece.unwrap() < 0.05);
    assert!((risk.csr.unwrap() - 1.0).abs() < 4.0 * risk.sigma_csr.unwrap());
    // calibrated P(y = 1) ~ U(0, 1): AUC = ∫∫_{x>y} 2x · 2(1 - y) = 5/6 in expectation
    assert!((auc.unwrap() - 5.0 / 6.0).abs() < 0.02, "{auc:?}");
    assert!(cwauc.unwrap() > 0.5 && cwauc.unwrap() < 1.0);
    assert!(roc.len() <= ROC_POINTS && roc.len() > 10);
    assert_eq!((roc[0].fpr, roc[0].tpr), (0.0, 0.0));
    let last = roc.last().unwrap();
    assert_eq!((last.fpr, last.tpr, last.cw_tpr), (1.0, 1.0, 1.0));

    let LabAnswer::Repeat { summary, paper } = run_ok(&LabRequest::Repeat {
        dist: "uniform".into(),
        mode: "perfect".into(),
        n: 10_000,
        reps: 100,
        seed: 1,
    }) else {
        panic!()
    };
    assert_eq!(summary.reps, 100);
    assert!((summary.csr.mean - 1.0).abs() <= 3.0 * summary.csr.se);
    assert!((summary.cwa.mean - 2.0 / 3.0).abs() < 0.01);
    let paper = paper.expect("Table 5 has Perfect/Uniform at N = 10,000");
    assert_eq!(paper[1], 0.6671);
    let LabAnswer::Repeat { paper, .. } = run_ok(&LabRequest::Repeat {
        dist: "uniform".into(),
        mode: "overconf_half".into(),
        n: 100,
        reps: 3,
        seed: 1,
    }) else {
        panic!()
    };
    assert!(paper.is_none());
}

#[test]
fn counterexample_and_interval() {
    let LabAnswer::Counterexample { n, ece, risk, .. } = run_ok(&LabRequest::Counterexample {
        n: 500,
        lambda: 10.0,
        p: 0.8,
        m: 15,
    }) else {
        panic!()
    };
    assert!(ece.unwrap() < 1.0 / n as f64);
    assert!(risk.csr.unwrap() > 10.0);
    let LabAnswer::Interval { lower, upper } = run_ok(&LabRequest::Interval {
        successes: 7,
        n: 7,
        alpha: 0.10,
    }) else {
        panic!()
    };
    assert!((lower - 0.05f64.powf(1.0 / 7.0)).abs() < 1e-9);
    assert_eq!(upper, 1.0);
}

#[test]
fn forecaster_dial_and_temperature() {
    let fc = |sharpness, base_rate, reps| LabRequest::Forecaster {
        n: 20_000,
        m: 10,
        sharpness,
        base_rate,
        reps,
        seed: 4,
    };
    let LabAnswer::Forecaster {
        ece,
        temperature,
        brier,
        cal,
        refinement,
        res,
        ..
    } = run_ok(&fc(3.0, false, 1))
    else {
        panic!()
    };
    let t = temperature.unwrap();
    // the fitted temperature undoes the dial; order, AUC and accuracy are kept
    assert!((t.tau - 3.0).abs() < 0.3, "{}", t.tau);
    assert!(t.order_identical && t.auc_before == t.auc_after && t.acc_before == t.acc_after);
    assert!(t.nll_after <= t.nll_before && t.ece_after.unwrap() < ece.unwrap());
    let sum = cal.unwrap() + refinement.unwrap() + res.unwrap();
    assert!((sum - brier.unwrap()).abs() < 1e-12);
    // the base-rate forecaster: calibrated (CAL = 0) and useless (REF = Brier)
    let LabAnswer::Forecaster {
        cal,
        refinement,
        brier,
        temperature,
        ece_reps,
        ..
    } = run_ok(&fc(1.0, true, 3))
    else {
        panic!()
    };
    assert!(cal.unwrap() < 1e-20 && temperature.is_none());
    assert!((refinement.unwrap() - brier.unwrap()).abs() < 1e-12);
    assert!(ece_reps.is_some());
}

#[test]
fn lab_messages_round_trip() {
    use crate::proto::{FromWorker, ToWorker};
    let to = ToWorker::Lab {
        id: 4,
        request: LabRequest::Interval {
            successes: 7,
            n: 7,
            alpha: 0.1,
        },
    };
    let text = serde_json::to_string(&to).unwrap();
    assert_eq!(serde_json::from_str::<ToWorker>(&text).unwrap(), to);
    let answer = run_ok(&LabRequest::Counterexample {
        n: 20,
        lambda: 2.0,
        p: 0.5,
        m: 10,
    });
    for from in [
        FromWorker::LabResult { id: 4, answer },
        FromWorker::LabProgress {
            id: 4,
            done: 3,
            total: 9,
        },
    ] {
        assert_eq!(
            serde_json::from_str::<FromWorker>(&from.to_json()).unwrap(),
            from
        );
    }
}

#[test]
fn table_for_every_distribution() {
    let LabAnswer::RepeatTable { rows } = run_ok(&LabRequest::RepeatTable {
        mode: "perfect".into(),
        n: 100,
        reps: 20,
        seed: 1,
    }) else {
        panic!()
    };
    assert_eq!(rows.len(), 10);
    assert!(rows
        .iter()
        .all(|r| r.paper.is_some() && r.summary.reps == 20));
    // under perfect calibration cwA exceeds accuracy in every distribution (Table 5)
    assert!(rows.iter().all(|r| r.summary.cwa.mean > r.summary.acc.mean));
    let mut p = |_, _| {};
    let bad = LabRequest::RepeatTable {
        mode: "nope".into(),
        n: 100,
        reps: 2,
        seed: 1,
    };
    assert!(run(&bad, &mut p).is_err());
}

#[test]
fn one_bin_hides_a_symmetric_miscalibration() {
    let ece = |m| {
        let LabAnswer::Forecaster { ece_reps, .. } = run_ok(&LabRequest::Forecaster {
            n: 2000,
            m,
            sharpness: 3.0,
            base_rate: false,
            reps: 20,
            seed: 1,
        }) else {
            panic!()
        };
        ece_reps.unwrap().mean
    };
    let (one, fifteen) = (ece(1), ece(15));
    assert!(
        one < 0.02 && fifteen > 0.1,
        "m = 1: {one}, m = 15: {fifteen}"
    );
}

#[test]
fn reproduction_of_the_paper_s_tables() {
    use calibscope_core::lab_repro::{AGREE_SE, CANNOT_AGREE, PAPER_ROUNDING};
    let LabAnswer::Reproduce { seed, reps, rows } = run_ok(&LabRequest::Reproduce { seed: 1 })
    else {
        panic!("not a reproduction");
    };
    assert_eq!((seed, reps, rows.len()), (1, 100, 100));
    let (mut agree, mut listed) = (0, 0);
    for r in &rows {
        assert_eq!(r.cells.len(), 8);
        for c in &r.cells {
            let within = (c.ours - c.paper).abs() <= AGREE_SE * c.se + PAPER_ROUNDING;
            match (&c.reason, c.verdict.as_str()) {
                (None, "agrees") => {
                    assert!(within);
                    agree += 1
                }
                (None, v) => panic!("{} {} {}: {v}", r.table, r.dist, r.mode),
                (Some(reason), v) => {
                    assert_eq!(reason.label, v);
                    assert!(!reason.text.is_empty() && !reason.evidence.is_empty());
                    listed += 1
                }
            }
        }
    }
    // the native reproduction's outcome (crates/core/tests/lab_repro.rs)
    assert_eq!(
        (agree, listed),
        (800 - CANNOT_AGREE.len(), CANNOT_AGREE.len())
    );
    let answer = LabAnswer::Reproduce { seed, reps, rows };
    let json = serde_json::to_string(&answer).unwrap();
    assert_eq!(serde_json::from_str::<LabAnswer>(&json).unwrap(), answer);
}
