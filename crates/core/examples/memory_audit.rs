//! Peak heap memory of the full audit, measured with a counting global allocator.
//! `cargo run --release -p calibscope-core --example memory_audit -- binary 1000000`
//! `cargo run --release -p calibscope-core --example memory_audit -- logits 100000 100`
//! `GENERAL=1` measures the general path (`Audit::compute_general`) instead.
//!
//! Prints the input size (labels + scores), the peak of live heap bytes during the
//! audit above what was live before it (the input, mostly), per sample, and the
//! issue's target `input + 40 bytes per sample`.

use calibscope_core::audit::{Audit, AuditSettings};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "../benches/data.rs"]
mod data;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let live = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map(String::as_str).unwrap_or("binary");
    let n: usize = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let set = match kind {
        "binary" => data::binary(n, 42),
        _ => {
            let k: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
            data::logits(n, k, 42)
        }
    };
    let settings = AuditSettings {
        m_values: vec![15],
        ..AuditSettings::default()
    };
    let general = std::env::var_os("GENERAL").is_some();
    let input = set.byte_size();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let audit = if general {
        Audit::compute_general(&set, &settings)
    } else {
        Audit::compute(&set, &settings)
    };
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let kept = LIVE.load(Ordering::Relaxed) - before;
    std::hint::black_box(&audit);
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    println!(
        "{kind} n={n} ({} path): input {:.1} MiB; audit peak {:.1} MiB above the input = {:.1} bytes/sample \
         (target: 40 bytes/sample = {:.1} MiB) -> {}; result kept {:.1} KiB",
        if general { "general" } else { "fast" },
        mib(input),
        mib(peak),
        peak as f64 / n as f64,
        mib(40 * n),
        if peak <= 40 * n { "meets" } else { "misses" },
        kept as f64 / 1024.0
    );
}
