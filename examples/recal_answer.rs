//! Times the worker's Recalibrate answer natively (issue 6 targets: the fit in the
//! worker <= 300 ms for 100k x 100 logits, <= 100 ms for 1M binary), on the inputs of
//! `crates/core/benches/temperature.rs` (same generators), split f = 0.5, seed 0:
//!
//! - the temperature fit alone on the calibration split (the contract's search);
//! - calibscope-core's `recalibrate` (split, temperature, Platt, isotonic, invariants);
//! - the worker's first answer `Session::recalibrate` (split, temperature, the
//!   before/temperature ledgers, tau curve, checks, JSON) and both answers (+
//!   `Session::recalibrate_maps`: Platt, isotonic and their ledgers, checks, maps);
//! - one before/after tables answer (`Session::recal_tables`, m = 15).
//!
//! `cargo run --release --example recal_answer [-- binary|multiclass] [reps]`
//! (minimum wall time of `reps` runs, default 3).

use calibscope_core::recal::apply::recalibrate;
use calibscope_core::recal::{BinaryNll, MulticlassNll, TemperatureObjective, TemperatureOptions};
use calibscope_core::split::stratified_split;
use calibscope_core::synth;
use calibscope_core::{PredictionSet, Scores, Source, Values};
use calibscope_engine::Session;
use calibscope_io::{Dataset, Detection, Format};
use std::time::Instant;

/// 100k x 100 f32 logits: N(0, 3^2) noise, the true class boosted by 6 in 80 % of rows.
fn multiclass() -> PredictionSet {
    let (n, k) = (100_000, 100);
    let (z, y) = synth::boosted_logits(n, k, 7);
    PredictionSet {
        labels: y,
        scores: Scores::Matrix {
            values: Values::F32(z),
            k,
            source: Source::Logits,
        },
        k,
    }
}

/// 1M binary logits `s = 4 (2y - 1) + N(0, 3^2)`.
fn binary() -> PredictionSet {
    let (s, y) = synth::separated_logits(1_000_000, 11);
    let y = y.into_iter().map(u32::from).collect();
    PredictionSet {
        labels: y,
        scores: Scores::Column {
            values: Values::F64(s),
            source: Source::Logits,
        },
        k: 2,
    }
}

fn min_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().map_or("both", String::as_str);
    let reps: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(3);
    for (name, make) in [
        (
            "multiclass 100k x 100 f32",
            multiclass as fn() -> PredictionSet,
        ),
        ("binary 1M", binary),
    ] {
        if which != "both" && !name.starts_with(which) {
            continue;
        }
        let set = make();
        let split = stratified_split(&set.labels, set.k, 0, 0.5);
        let cal = Some(split.calibration.as_slice());
        let opts = TemperatureOptions::default();
        let fit = min_ms(reps, || match &set.scores {
            Scores::Column {
                values: Values::F64(s),
                ..
            } => {
                std::hint::black_box(BinaryNll::new(s, &set.labels, cal).unwrap().fit(&opts));
            }
            Scores::Matrix {
                values: Values::F32(z),
                k,
                ..
            } => {
                std::hint::black_box(
                    MulticlassNll::new(z, *k, &set.labels, cal)
                        .unwrap()
                        .fit(&opts),
                );
            }
            _ => unreachable!(),
        });
        let tau = match &set.scores {
            Scores::Column {
                values: Values::F64(s),
                ..
            } => BinaryNll::new(s, &set.labels, cal).unwrap().fit(&opts).tau,
            Scores::Matrix {
                values: Values::F32(z),
                k,
                ..
            } => {
                MulticlassNll::new(z, *k, &set.labels, cal)
                    .unwrap()
                    .fit(&opts)
                    .tau
            }
            _ => unreachable!(),
        };
        let core = min_ms(reps, || {
            std::hint::black_box(recalibrate(&set, 0, 0.5));
        });
        let dataset = Dataset {
            name: "bench".into(),
            files: vec!["bench.csv".into()],
            format: Format::Csv,
            models: vec![("bench".into(), set)],
            ids: None,
            class_names: Vec::new(),
            detection: Detection::default(),
            groups: None,
        };
        let mut session = Session::new(dataset);
        let first = min_ms(reps, || {
            std::hint::black_box(session.recalibrate(1, 1, 0, 0, 0.5));
        });
        let answer = min_ms(reps, || {
            std::hint::black_box(session.recalibrate(1, 1, 0, 0, 0.5));
            std::hint::black_box(session.recalibrate_maps(1, 1));
        });
        let tables = min_ms(reps, || {
            std::hint::black_box(session.recal_tables(
                2,
                1,
                calibscope_core::binning::Binning::Width,
                15,
            ));
        });
        println!(
            "{name} (n_cal = {}, tau* = {tau:.6}):",
            split.calibration.len()
        );
        println!("  temperature fit on the calibration split  {fit:>9.1} ms");
        println!("  core recalibrate (3 methods + checks)     {core:>9.1} ms");
        println!("  worker, first answer (split, temperature) {first:>9.1} ms");
        println!("  worker, both answers (+ Platt, isotonic)  {answer:>9.1} ms");
        println!("  before/after tables (m = 15)              {tables:>9.1} ms");
    }
}
