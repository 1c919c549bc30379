//! The Slices view's worker side on a grouped file (issue 32): the table (first
//! request of a model, then a bin count change), the second part (the permutation
//! test and each group's verdict, then the test alone, the verdicts kept), and brushing
//! (a bin's first page, p50/p95 over every bin), single-threaded as in the worker.
//!
//! `cargo run --release -p calibscope-engine --example slices_bench -- FILE COLUMN`

use calibscope_core::binning::Binning;
use calibscope_engine::proto::slices::{BrushRequest, SlicesRequest};
use calibscope_engine::proto::{FromWorker, Reading};
use calibscope_engine::Session;
use calibscope_io::{read_path, ColumnMapping, Options};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (file, column) = (&args[1], &args[2]);
    let options = Options {
        mapping: ColumnMapping {
            groups: vec![column.clone()],
            ..ColumnMapping::default()
        },
        ..Options::default()
    };
    let ds = read_path(std::path::Path::new(file), &options).expect("a grouped file");
    let mut s = Session::new(ds);
    let request = |m: usize| SlicesRequest {
        model: 0,
        binning: Binning::Width,
        m,
        min_size: 30,
        permutations: 1000,
        seed: 0,
    };
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let first = s.slices(1, 1, &request(15), false);
    println!("table, first request: {:.1} ms", ms(t));
    let FromWorker::Slices { answer, .. } = first else {
        panic!("no table")
    };
    println!(
        "groups: {}, worst: {:?}",
        answer.groups.len(),
        answer.worst.map(|w| &answer.groups[w].group)
    );
    let t = Instant::now();
    s.slices(1, 2, &request(20), false);
    println!("table, another bin count: {:.1} ms", ms(t));
    let t = Instant::now();
    let FromWorker::Slices { answer, .. } = s.slices(1, 3, &request(15), true) else {
        panic!("no test")
    };
    println!(
        "with the permutation test (1,000, one thread) and the groups' verdicts (1,000 replicates each): {:.1} ms, p = {:?}",
        ms(t),
        answer.p_value
    );
    let t = Instant::now();
    s.slices(1, 4, &request(20), true);
    println!(
        "the same at another bin count (the verdicts kept): {:.1} ms",
        ms(t)
    );
    let mut times = Vec::new();
    for (i, bin) in (0..15).cycle().take(60).enumerate() {
        let r = BrushRequest {
            model: 0,
            reading: Reading::Confidence,
            binning: Binning::Width,
            m: if i == 0 { 15 } else { 15 + (i % 2) * 5 },
            bin,
            group: None,
            offset: 0,
            limit: 50,
            csv: false,
        };
        let t = Instant::now();
        s.brush(1, 1, &r);
        times.push(ms(t));
    }
    times.sort_by(f64::total_cmp);
    println!(
        "brush a bin's first page (1M rows, bin counts alternating 15/20 so each brush re-indexes): p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        times[times.len() / 2],
        times[times.len() * 95 / 100],
        times[times.len() - 1]
    );
}
