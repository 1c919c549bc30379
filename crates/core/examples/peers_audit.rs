//! calibscope's side of `bench/run_peers.sh`: the full audit (m = 15, both binnings,
//! AUC, cwAUC, CSR/cwA, classwise; one thread) of the .npy inputs that
//! `bench/peers.py generate` wrote, timed (median of `repeat` runs), with the
//! numbers the peers also compute, for a cross-check. Writes `OUT/calibscope.json`.
//!
//! `cargo run --release -p calibscope-core --example peers_audit -- bench/out [repeat]`

use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::binning::Binning;
use calibscope_core::{PredictionSet, Scores, Source, Values};
use serde_json::{json, Map, Value};
use std::path::Path;
use std::time::Instant;

/// A little-endian .npy array of `f4` or `u4`/`i8`/`u8` (C order): `(shape, f64 or u32 data)`.
enum Npy {
    F32(Vec<f32>),
    U32(Vec<u32>),
}

fn read_npy(path: &Path) -> (Vec<usize>, Npy) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        &bytes[..6],
        b"\x93NUMPY",
        "{}: not a .npy file",
        path.display()
    );
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        _ => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
    };
    let header = std::str::from_utf8(&bytes[start..start + header_len]).unwrap();
    assert!(header.contains("'fortran_order': False"), "C order only");
    let descr = header
        .split("'descr': '")
        .nth(1)
        .unwrap()
        .split('\'')
        .next()
        .unwrap();
    let shape: Vec<usize> = header
        .split("'shape': (")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap()
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let data = &bytes[start + header_len..];
    let values = match descr {
        "<f4" => Npy::F32(
            data.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        "<u4" => Npy::U32(
            data.chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        "<i8" | "<u8" => Npy::U32(
            data.chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()) as u32)
                .collect(),
        ),
        other => panic!("{}: dtype {other} not supported", path.display()),
    };
    (shape, values)
}

fn floats(v: Npy) -> Vec<f32> {
    match v {
        Npy::F32(v) => v,
        Npy::U32(_) => panic!("expected float32"),
    }
}

fn labels(v: Npy) -> Vec<u32> {
    match v {
        Npy::U32(v) => v,
        Npy::F32(_) => panic!("expected integer labels"),
    }
}

fn time(set: &PredictionSet, settings: &AuditSettings, repeat: usize) -> (f64, Audit) {
    let mut audit = Audit::compute(set, settings); // warm-up
    let mut times = Vec::with_capacity(repeat);
    for _ in 0..repeat {
        let t = Instant::now();
        audit = Audit::compute(set, settings);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], audit)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out = Path::new(args.get(1).map(String::as_str).unwrap_or("bench/out"));
    let repeat: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let settings = AuditSettings {
        m_values: vec![15],
        ..AuditSettings::default()
    };
    let mut sets = Map::new();

    let (_, u) = read_npy(&out.join("binary_p.npy"));
    let (_, y) = read_npy(&out.join("binary_y.npy"));
    let binary = PredictionSet {
        labels: labels(y),
        scores: Scores::Column {
            values: Values::F32(floats(u)),
            source: Source::Probs,
        },
        k: 2,
    };
    let (ms, a) = time(&binary, &settings, repeat);
    println!(
        "binary n={}: full audit {ms:.1} ms (median of {repeat})",
        a.n
    );
    let w = |r: &calibscope_core::audit::ReadingReport, b| *r.at(b, 15).unwrap();
    let (pos, conf) = (&a.classes[1].reading, &a.confidence);
    sets.insert(
        "binary_1m".into(),
        json!({
            "ms": ms,
            "check": {
                "positive-class ECE/MCE/RMSCE width (l1)": w(pos, Binning::Width).ece,
                "positive-class ECE/MCE/RMSCE width (max)": w(pos, Binning::Width).mce,
                "positive-class ECE/MCE/RMSCE width (l2)": w(pos, Binning::Width).rmsce,
                "confidence reading width (l1)": w(conf, Binning::Width).ece,
                "positive-class reading ECE/MCE/RMSCE mass": w(pos, Binning::Mass).ece,
                "confidence reading ECE/MCE/RMSCE mass": w(conf, Binning::Mass).ece,
                "Brier (positive class)": pos.brier,
                "Brier (confidence reading)": conf.brier,
                "log loss (NLL)": a.nll,
                "ROC AUC": a.classes[1].auc,
                "cwAUC (AUC with confidence weights)": a.classes[1].cwauc,
                "accuracy": a.accuracy,
                "CSR, sigma_CSR, cwA": a.risk.csr,
            }
        }),
    );

    let (shape, z) = read_npy(&out.join("logits_z.npy"));
    let (_, y) = read_npy(&out.join("logits_y.npy"));
    let k = shape[1];
    let logits = PredictionSet {
        labels: labels(y),
        scores: Scores::Matrix {
            values: Values::F32(floats(z)),
            k,
            source: Source::Logits,
        },
        k,
    };
    let (ms, a) = time(&logits, &settings, repeat);
    println!(
        "logits n={} k={k}: full audit {ms:.1} ms (median of {repeat})",
        a.n
    );
    let conf = &a.confidence;
    let cw = |b| a.classwise(b, 15).unwrap();
    sets.insert(
        "logits_100k_x_100".into(),
        json!({
            "ms": ms,
            "check": {
                "confidence reading width (l1)": w(conf, Binning::Width).ece,
                "confidence reading width (max)": w(conf, Binning::Width).mce,
                "confidence reading width (l2)": w(conf, Binning::Width).rmsce,
                "confidence reading ECE/MCE/RMSCE mass": w(conf, Binning::Mass).ece,
                "classwise width, 100 class readings (l1)": cw(Binning::Width).cwece,
                "classwise mass, 100 class readings": cw(Binning::Mass).cwece,
                "Brier (multiclass)": a.brier_multiclass,
                "Brier (confidence reading)": conf.brier,
                "log loss (NLL)": a.nll,
                "accuracy": a.accuracy,
                "CSR, sigma_CSR, cwA": a.risk.csr,
            }
        }),
    );

    let report = json!({ "repeat": repeat, "sets": Value::Object(sets) });
    let path = out.join("calibscope.json");
    std::fs::write(&path, serde_json::to_string_pretty(&report).unwrap()).unwrap();
    println!("wrote {}", path.display());
}
