//! Times the pieces of `calibscope audit --temperature-only` on one file, one thread:
//! the parse, the whole set's audit, the split and evaluation subset, the temperature
//! fit, the rest of the temperature run (scaled evaluation rows, invariant checks),
//! the invariant checks alone (with their own AUCs, and the checks the CLI's task
//! graph runs: the top labels' checks, each class's order riding in the "after"
//! ledger's audit), and the two ledgers.
//! `cargo run --release -p calibscope-audit --example profile_recal -- FILE...`

use calibscope_core::audit::{Audit, AuditSettings, Staged};
use calibscope_core::reading::ProbView;
use calibscope_core::recal::apply::recalibrate_temperature_clocked;
use calibscope_core::recal::checks::{order_checks, prob_checks, top_label_checks};
use calibscope_core::split::stratified_split;

use std::time::Instant;

fn now() -> f64 {
    thread_local!(static START: Instant = Instant::now());
    START.with(|s| s.elapsed().as_secs_f64())
}

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    println!("{what:<40} {:>8.1} ms", t.elapsed().as_secs_f64() * 1e3);
    out
}

fn main() {
    let paths: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    let options = calibscope_io::Options {
        threads: 1,
        ..Default::default()
    };
    let dataset = timed("parse (one thread)", || {
        calibscope_io::open_paths(&paths, &options).expect("valid input")
    });
    let set = &dataset.models[0].1;
    timed("audit of the whole set", || {
        Audit::compute(set, &AuditSettings::default())
    });
    let split = timed("split", || stratified_split(&set.labels, set.k, 0, 0.5));
    let before = timed("evaluation subset", || {
        calibscope_core::reading::subset(set, &split.evaluation)
    });
    let ledger = AuditSettings {
        m_values: vec![10, 15],
        ..AuditSettings::default()
    };
    let whole = AuditSettings::default();
    timed(
        "audit of the whole set + ledger before (the CLI's)",
        || match Audit::staged_with_subset(set, &whole, Some((&split.evaluation, &before, &ledger)))
        {
            Staged::Matrix(stage) => {
                let k = stage.k();
                let chunk = stage.classes(0..k, None);
                stage.finish(vec![chunk]).subset
            }
            Staged::Done(_, subset) => subset,
        },
    );
    timed("ledger before's audit alone", || {
        Audit::compute(&before, &ledger)
    });
    let (run, fit) = timed("split + subset + temperature run", || {
        recalibrate_temperature_clocked(set, 0, 0.5, Some(now))
    });
    println!(
        "{:<40} {:>8.1} ms",
        "  of which the fit",
        fit.unwrap_or(f64::NAN) * 1e3
    );
    let after = &run.temperature.as_ref().expect("fitted").after;
    // CHECKS=N repeats the checks (a target for `perf record`)
    let repeat: usize = std::env::var("CHECKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for _ in 0..repeat {
        timed("invariant checks alone", || prob_checks(&run.before, after));
        timed("order checks alone (sorts each class)", || {
            order_checks(&run.before, after)
        });
        let view = ProbView::new(&run.before).expect("scores");
        timed("top-label checks (the CLI's)", || {
            top_label_checks(&view, &ProbView::new(after).expect("scores"))
        });
        timed("audit after + class orders (the CLI's)", || {
            Audit::compute_with_orders(
                after,
                &AuditSettings {
                    m_values: vec![10, 15],
                    ..AuditSettings::default()
                },
                &view,
            )
        });
    }
    timed("ledger before", || {
        calibscope_audit::ledger_json(&run.before)
    });
    timed("ledger after", || calibscope_audit::ledger_json(after));
}
