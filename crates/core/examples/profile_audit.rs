//! Times the full audit on generated data; a target for `perf record` too.
//! `cargo run --release -p calibscope-core --example profile_audit -- binary 1000000 [iters]`
//! `cargo run --release -p calibscope-core --example profile_audit -- logits 100000 100 [iters]`
//!
//! `CHECK=1` also compares the result with the general path (`Audit::compute_general`)
//! bit for bit; `GENERAL=1` times the general path instead.
//!
//! Prints every iteration's wall time and on-CPU time (from
//! `/proc/thread-self/schedstat`, so time spent waiting for a core on a loaded
//! machine is excluded), then the minimum and the median of each.

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
    let (set, k, rest) = match kind {
        "binary" => (data::binary(n, 42), 2, 3),
        _ => {
            let k: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
            (data::logits(n, k, 42), k, 4)
        }
    };
    let iters: usize = args.get(rest).and_then(|s| s.parse().ok()).unwrap_or(5);
    let settings = AuditSettings {
        m_values: vec![15],
        ..AuditSettings::default()
    };
    if std::env::var_os("CHECK").is_some() {
        let fast = format!("{:?}", Audit::compute(&set, &settings));
        let general = format!("{:?}", Audit::compute_general(&set, &settings));
        assert!(fast == general, "fast and general paths differ");
        println!("fast path == general path (bit for bit)");
    }
    let general = std::env::var_os("GENERAL").is_some();
    let (mut times, mut cpu_times) = (Vec::new(), Vec::new());
    for _ in 0..iters {
        let (t, c) = (Instant::now(), cpu_ns());
        let audit = if general {
            Audit::compute_general(&set, &settings)
        } else {
            Audit::compute(&set, &settings)
        };
        let cpu = (cpu_ns() - c) as f64 * 1e-6;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        times.push(ms);
        cpu_times.push(cpu);
        println!(
            "{kind} n={n} k={k}: full audit {ms:.1} ms wall, {cpu:.1} ms on-CPU (ece {:?})",
            audit
                .confidence
                .at(calibscope_core::binning::Binning::Width, 15)
                .unwrap()
                .ece
        );
    }
    times.sort_by(f64::total_cmp);
    cpu_times.sort_by(f64::total_cmp);
    println!(
        "{kind} n={n} k={k}: wall min {:.1} ms, median {:.1} ms; on-CPU min {:.1} ms, median {:.1} ms ({iters} runs)",
        times[0],
        times[times.len() / 2],
        cpu_times[0],
        cpu_times[cpu_times.len() / 2]
    );
}

/// Nanoseconds this thread has spent on a CPU (Linux; 0 elsewhere).
pub fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
