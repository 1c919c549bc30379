//! The Recalibrate view's multiclass maps on the worker's side (issue 33): the
//! recalibration, then vector scaling, matrix scaling and Dirichlet calibration
//! with its penalty search, the job run one fit at a time as the worker runs it;
//! the native counterpart of the page's `recalibration.timing.multiclass_ms`.
//! Natively the objective uses every core (the worker has one).
//!
//! `cargo run --release -p calibscope-engine --example multiclass_maps_bench -- FILE`

use calibscope_engine::proto::FromWorker;
use calibscope_engine::Session;
use calibscope_io::{read_path, Options};
use std::time::Instant;

fn main() {
    let file = std::env::args()
        .nth(1)
        .expect("a file of three classes or more");
    let ds = read_path(std::path::Path::new(&file), &Options::default()).expect("a data set");
    let mut s = Session::new(ds);
    let t = Instant::now();
    if let FromWorker::Recalibrated {
        complete: false, ..
    } = s.recalibrate(1, 1, 0, 0, 0.5)
    {
        s.recalibrate_maps(1, 1);
    }
    println!(
        "recalibration (both parts): {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let mut job = s.recal_multiclass_start(2, 1).expect("a multiclass fit");
    let (mut done, mut total) = (0, 1);
    while done < total {
        (done, total) = job.step(1);
    }
    let FromWorker::Recalibrated { view, .. } = s.recal_multiclass_finish(job) else {
        panic!("no answer")
    };
    println!(
        "vector, matrix and Dirichlet ({total} fits) and the answer: {:.0} ms; ledger columns: {}",
        t.elapsed().as_secs_f64() * 1e3,
        view.ledger.sets.len()
    );
}
