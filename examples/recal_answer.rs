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

use calibscope_app::engine::Session;
use calibscope_core::recal::apply::recalibrate;
use calibscope_core::recal::{BinaryNll, MulticlassNll, TemperatureObjective, TemperatureOptions};
use calibscope_core::split::stratified_split;
use calibscope_core::{PredictionSet, Scores, Source, Values};
use calibscope_io::{Dataset, Detection, Format};
use std::time::Instant;

struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform().max(1e-300), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// 100k x 100 f32 logits: N(0, 3^2) noise, the true class boosted by 6 in 80 % of rows.
fn multiclass() -> PredictionSet {
    let (n, k) = (100_000, 100);
    let mut rng = Rng(7);
    let mut z = Vec::with_capacity(n * k);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let label = (rng.next_u64() % k as u64) as usize;
        let boost = if rng.uniform() < 0.8 { 6.0 } else { 0.0 };
        for r in 0..k {
            let b = if r == label { boost } else { 0.0 };
            z.push((3.0 * rng.normal() + b) as f32);
        }
        y.push(label as u32);
    }
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
    let mut rng = Rng(11);
    let y: Vec<u32> = (0..1_000_000)
        .map(|_| (rng.next_u64() & 1) as u32)
        .collect();
    let s = y
        .iter()
        .map(|&v| 4.0 * (2.0 * v as f64 - 1.0) + 3.0 * rng.normal())
        .collect();
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
            std::hint::black_box(session.recal_tables(2, 1, "width", 15));
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
