//! The ranking-flips view's worker answers, timed natively (issue 5's target: the
//! full curve m = 1..2000 of one metric for 10 models × 100k samples in ≤ 300 ms).
//!
//! Builds a long-format `model,label,p` file of 10 binary models on the same 100k
//! samples (deterministic), reads it through calibscope-io as the worker does, and
//! times `Session::flips` — the curve, a ranking (one slider step) and the Spearman
//! matrices — including the answer's JSON text (what the worker posts).
//!
//! `cargo run --release --example flips_worker [-- --write FILE]` (`--write` also
//! saves the file, the input of bench/flips_browser.mjs).

use calibscope_app::proto::flips::FlipsRequest;
use calibscope_core::binning::Binning;
use calibscope_engine::Session;
use std::fmt::Write;
use std::time::Instant;

const MODELS: usize = 10;
const N: usize = 100_000;

/// SplitMix64 as a uniform `[0, 1)` source.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// 10 models on the same samples: a true probability per sample, each model a
/// noisier, more or less over-confident report of it (6 decimals).
fn long_csv() -> String {
    let mut rng = Rng(5);
    let truth: Vec<f64> = (0..N).map(|_| rng.next()).collect();
    let labels: Vec<u8> = truth.iter().map(|&q| (rng.next() < q) as u8).collect();
    let mut out = String::with_capacity(MODELS * N * 24);
    out.push_str("model,label,p\n");
    for m in 0..MODELS {
        let sharp = 0.6 + 0.1 * m as f64;
        let noise = 0.02 * (m % 4) as f64;
        for i in 0..N {
            let logit = (truth[i] / (1.0 - truth[i])).ln().clamp(-12.0, 12.0);
            let z = sharp * logit + noise * (rng.next() - 0.5) * 8.0;
            let p = 1.0 / (1.0 + (-z).exp());
            let _ = writeln!(out, "m{m:02},{},{p:.6}", labels[i]);
        }
    }
    out
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn time(label: &str, runs: usize, mut f: impl FnMut() -> usize) {
    let mut ms = Vec::new();
    let mut bytes = 0;
    for _ in 0..runs {
        let t = Instant::now();
        bytes = f();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let fastest = ms.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "{label}: median {:.1} ms, fastest {:.1} ms ({runs} runs; answer {bytes} bytes of JSON)",
        median(ms),
        fastest
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let csv = long_csv();
    if let Some(i) = args.iter().position(|a| a == "--write") {
        std::fs::write(&args[i + 1], &csv).expect("write the file");
        println!("wrote {} ({} bytes)", args[i + 1], csv.len());
    }
    let t = Instant::now();
    let ds = calibscope_io::parse_bytes("flips_10x100k.csv", csv.as_bytes(), &Default::default())
        .expect("the file reads");
    let mut s = Session::new(ds);
    println!(
        "read + indexed {} models × {} samples in {:.0} ms",
        s.summary().models.len(),
        s.n(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut ask = |request: FlipsRequest| s.flips(1, 1, &request).to_json().len();
    let curve = |metric: &str, binning: &str| FlipsRequest::Curve {
        metric: metric.into(),
        binning: Binning::from_name(binning).expect("a binning"),
    };
    // the first curve also builds the models' indices (once per data set)
    time("first curve (indices built)", 1, || {
        ask(curve("confce_corr", "mass"))
    });
    for (metric, binning) in [
        ("confce_corr", "mass"),
        ("confece", "mass"),
        ("confce_corr", "width"),
        ("lince_cw", "mass"),
    ] {
        time(&format!("curve {metric} {binning}, m = 1..2000"), 5, || {
            ask(curve(metric, binning))
        });
    }
    time("ranking at m = 20 vs 2000 (slider step)", 20, || {
        ask(FlipsRequest::Rank {
            metric: "confce_corr".into(),
            binning: Binning::Mass,
            m: 20,
            m_ref: 2000,
        })
    });
    time("Spearman matrices {5, 20, 2000}, every metric", 5, || {
        ask(FlipsRequest::Matrices {
            binning: Binning::Mass,
            bins: vec![5, 20, 2000],
        })
    });
}
