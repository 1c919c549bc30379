//! The worker's answer to an `Open`, timed natively (issue 9): the files are pushed
//! through calibscope-io's push parser in 32 MiB slices as the worker does, assembled,
//! indexed (`Session::new`) and audited (`Session::opened`, the answer's JSON
//! included). Prints each phase's wall and thread CPU time.
//!
//! Then one slider step's answer at the largest bin count (`Session::compute` for the
//! confidence reading, both binnings), its JSON and the page's decoding of it.
//!
//! `cargo run --release --example open_worker -- FILE...`
//! (e.g. the inputs of `node bench/gen_scale.mjs bench/out/scale`)

use calibscope_app::proto::{Limits, MappingOverride, Reading};
use calibscope_core::binning::Binning;
use calibscope_engine::{self as engine, Session};
use calibscope_io::{Options, Parser};
use std::io::Read;
use std::time::Instant;

/// Thread CPU time in ms (`/proc/thread-self/schedstat`: on-CPU nanoseconds).
fn cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns / 1e6)
}

fn phase<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let (t, c) = (Instant::now(), cpu_ms());
    let out = f();
    eprintln!(
        "{name}: {:.1} ms wall, {:.1} ms CPU",
        t.elapsed().as_secs_f64() * 1e3,
        cpu_ms() - c
    );
    out
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: open_worker FILE...");
        std::process::exit(2);
    }
    let opts = engine::options(&MappingOverride::default(), Limits::default(), None)
        .expect("default mapping");
    let parsed = phase("read + parse", || {
        paths
            .iter()
            .map(|p| {
                let mut file = std::fs::File::open(p).expect("open");
                let size = file.metadata().map(|m| m.len()).ok();
                let name = std::path::Path::new(p)
                    .file_name()
                    .map_or(p.clone(), |n| n.to_string_lossy().into_owned());
                let mut parser = Parser::new(
                    name.clone(),
                    Options {
                        size_hint: size,
                        ..opts.clone()
                    },
                );
                let mut buf = vec![0u8; 32 << 20];
                loop {
                    let got = file.read(&mut buf).expect("read");
                    if got == 0 || parser.push(&buf[..got]).is_err() {
                        break;
                    }
                }
                (name, parser.finish_any())
            })
            .collect::<Vec<_>>()
    });
    let dataset = phase("assemble", || engine::assemble(parsed, &opts)).unwrap_or_else(|e| {
        eprintln!("{}", e.errors.first().map_or("", |e| e.message.as_str()));
        std::process::exit(1)
    });
    let mut session = phase("Session::new", || Session::new(dataset));
    let json = phase("opened (audits + JSON)", || session.opened(1).to_json());
    eprintln!(
        "answer: {} bytes; m values {:?}",
        json.len(),
        session.m_values()
    );
    // the scale benchmark's large steps (End, then three steps back): the first
    // computes every interval, the others find many in the session's cache
    let m_max = session.n().min(2000);
    let steps = calibscope_app::shared::slider::steps(m_max, &session.m_values());
    let large: Vec<usize> = steps.iter().rev().take(4).copied().collect();
    for (binning, m) in Binning::ALL
        .into_iter()
        .flat_map(|b| large.iter().map(move |&m| (b, m)))
    {
        let answer = phase(&format!("compute {} m = {m}", binning.name()), || {
            session.compute(2, 2, 0, Reading::Confidence, binning, m)
        });
        let json = phase("  its JSON", || answer.to_json());
        let back = phase("  decoded (serde_json, as the page)", || {
            serde_json::from_str::<calibscope_app::proto::FromWorker>(&json)
        });
        eprintln!("  {} bytes; decoded: {}", json.len(), back.is_ok());
    }
}
