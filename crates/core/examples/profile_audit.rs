//! Times the full audit on generated data; a target for `perf record` too.
//! `cargo run --release -p calibscope-core --example profile_audit -- binary 1000000`
//! `cargo run --release -p calibscope-core --example profile_audit -- logits 100000 100`

use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::{PredictionSet, Scores, Source, Values};
use std::time::Instant;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map(String::as_str).unwrap_or("binary");
    let n: usize = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let k: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
    let mut rng = Lcg(42);
    let set = match kind {
        "binary" => {
            let u: Vec<f32> = (0..n).map(|_| rng.next() as f32).collect();
            let labels = u
                .iter()
                .map(|&p| (rng.next() < (p as f64).powf(1.3)) as u32)
                .collect();
            PredictionSet {
                labels,
                scores: Scores::Column {
                    values: Values::F32(u),
                    source: Source::Probs,
                },
                k: 2,
            }
        }
        _ => {
            let labels: Vec<u32> = (0..n).map(|_| (rng.next() * k as f64) as u32).collect();
            let mut z = Vec::with_capacity(n * k);
            for &y in &labels {
                for r in 0..k {
                    z.push(
                        (rng.next() * 4.0 + if r as u32 == y { 3.0 * rng.next() } else { 0.0 })
                            as f32,
                    );
                }
            }
            PredictionSet {
                labels,
                scores: Scores::Matrix {
                    values: Values::F32(z),
                    k,
                    source: Source::Logits,
                },
                k,
            }
        }
    };
    let settings = AuditSettings {
        m_values: vec![15],
        ..AuditSettings::default()
    };
    for _ in 0..3 {
        let t = Instant::now();
        let audit = Audit::compute(&set, &settings);
        println!(
            "{kind} n={n}: full audit {:.1} ms (ece {:?})",
            t.elapsed().as_secs_f64() * 1e3,
            audit
                .confidence
                .at(calibscope_core::binning::Binning::Width, 15)
                .unwrap()
                .ece
        );
    }
}
