//! Times the full audit on generated data; a target for `perf record` too.
//! `cargo run --release -p calibscope-core --example profile_audit -- binary 1000000`
//! `cargo run --release -p calibscope-core --example profile_audit -- logits 100000 100`

use calibscope_core::audit::{Audit, AuditSettings};
use std::time::Instant;

#[path = "../benches/data.rs"]
mod data;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map(String::as_str).unwrap_or("binary");
    let n: usize = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let k: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
    let set = match kind {
        "binary" => data::binary(n, 42),
        _ => data::logits(n, k, 42),
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
