//! Speed of the sharing primitives: `cargo run --release -p calibscope-share --example bench`.
//! SHA-256 throughput over 1 MiB slices (as the worker hashes while reading), and
//! link encode / decode of a typical view and of a link with 20 KB of embedded CSV.

use calibscope_share::*;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let data: Vec<u8> = (0..256u32 << 20)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let runs: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let mut h = Sha256Hasher::new();
            for chunk in data.chunks(1 << 20) {
                h.update(chunk);
            }
            std::hint::black_box(h.finish_hex());
            data.len() as f64 / t.elapsed().as_secs_f64() / 1e6
        })
        .collect();
    println!(
        "sha256: {:.0} MB/s (median of 5 over 256 MiB)",
        median(runs)
    );

    let typical = ViewState {
        view: ViewId::Flips,
        binning: BinningId::Mass,
        m: 20,
        pinned_m: Some(15),
        data: DataSource::Files {
            files: vec![file_ref("preds.csv", b"label,p\n1,0.9\n")],
        },
        ..ViewState::default()
    };
    let mut csv = String::from("label,p\n");
    let mut i = 0u64;
    while csv.len() < 20_000 {
        i += 1;
        csv.push_str(&format!(
            "{},{:.4}\n",
            i % 2,
            (i * 7919 % 10_000) as f64 / 1e4
        ));
    }
    let embedded = ViewState {
        data: DataSource::Embedded {
            files: vec![embed("small.csv", csv.as_bytes()).unwrap()],
        },
        ..typical.clone()
    };
    for (name, s) in [
        ("typical view", &typical),
        ("20 KB embedded CSV", &embedded),
    ] {
        let link = encode(s);
        let n = 2000;
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(encode(s));
        }
        let enc = t.elapsed().as_secs_f64() / n as f64 * 1e6;
        let t = Instant::now();
        for _ in 0..n {
            std::hint::black_box(decode(&link).unwrap());
        }
        let dec = t.elapsed().as_secs_f64() / n as f64 * 1e6;
        println!(
            "{name}: link {} chars, encode {enc:.1} µs, decode {dec:.1} µs",
            link.len()
        );
    }
}
