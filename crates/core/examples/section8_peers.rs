//! calibscope's side of `bench/peers_section8.sh` on the CIFAR files: reads
//! `DIR/<name>.labels.npy` + `DIR/<name>.probs.npy` (what the script decompressed from
//! `shared/real-world/<name>.npz`), computes the confidence reading, smECE (with
//! sigma*) and the debiased L2 error on the contract's bins, and compares them with
//! the peers' values in `DIR/peers.json`: smECE within 1e-9 relative, the debiased L2
//! error within 1e-9 relative + 1e-12 absolute. Prints a table; exits with status 1
//! on any failure.
//!
//! `cargo run --release -p calibscope-core --example section8_peers -- target/peers_section8/real`

use calibscope_core::binning::{Binning, SortedReading};
use calibscope_core::estimators::ece_l2_debiased;
use calibscope_core::reading::top_labels;
use calibscope_core::smece::smece;
use calibscope_core::{PredictionSet, Scores, Source, Values};
use serde_json::Value;
use std::path::Path;
use std::time::Instant;

/// A little-endian, C-order `.npy`: (descr, shape, data bytes).
fn read_npy(path: &Path) -> (String, Vec<usize>, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        &bytes[..6],
        b"\x93NUMPY",
        "{}: not a .npy file",
        path.display()
    );
    let (len, start) = if bytes[6] == 1 {
        (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10)
    } else {
        (
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
            12,
        )
    };
    let header = std::str::from_utf8(&bytes[start..start + len]).unwrap();
    assert!(
        header.contains("'fortran_order': False"),
        "{}: C order only",
        path.display()
    );
    let descr = header
        .split("'descr': '")
        .nth(1)
        .unwrap()
        .split('\'')
        .next()
        .unwrap();
    let shape = header
        .split("'shape': (")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let shape = shape
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse().unwrap())
        .collect();
    (descr.to_owned(), shape, bytes[start + len..].to_vec())
}

fn load(dir: &Path, name: &str) -> PredictionSet {
    let (descr, _, data) = read_npy(&dir.join(format!("{name}.labels.npy")));
    assert_eq!(descr, "<i8", "{name}: labels dtype");
    let labels: Vec<u32> = data
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()) as u32)
        .collect();
    let (descr, shape, data) = read_npy(&dir.join(format!("{name}.probs.npy")));
    assert_eq!(descr, "<f4", "{name}: probs dtype");
    let values: Vec<f32> = data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    PredictionSet {
        labels,
        scores: Scores::Matrix {
            values: Values::F32(values),
            k: shape[1],
            source: Source::Probs,
        },
        k: shape[1],
    }
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: section8_peers DIR (see bench/peers_section8.sh)");
    let dir = Path::new(&dir);
    let peers: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("peers.json")).unwrap()).unwrap();
    let sets = peers["sets"].as_object().expect("peers.json: sets");
    assert!(!sets.is_empty(), "peers.json lists no sets");
    println!(
        "{:<28} {:>7} {:>20} {:>20} {:>9} {:>9} {:>9}  result",
        "file (confidence reading)",
        "n",
        "smECE calibscope",
        "smECE relplot",
        "rel diff",
        "sigma*",
        "ms"
    );
    let mut failures = 0;
    for (name, entry) in sets {
        let want = &entry["confidence"];
        let set = load(dir, name);
        let pairs = top_labels(&set).pairs();
        let start = Instant::now();
        let got = smece(&pairs.forecast, &pairs.outcome).expect("smECE defined");
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let want_s = want["smece"].as_f64().unwrap();
        let rel = (got.smece - want_s).abs() / want_s.abs();
        let sigma_ok = got.sigma == want["smece_sigma"].as_f64().unwrap();
        let mut ok = rel <= 1e-9 && sigma_ok && want["n"].as_u64() == Some(pairs.len() as u64);
        let sorted = SortedReading::new(&pairs);
        let mut worst_l2 = 0.0f64;
        for (binning, per_m) in want["ece_l2_debiased"].as_object().unwrap() {
            let binning = Binning::from_name(binning).unwrap();
            for (m, v) in per_m.as_object().unwrap() {
                let w = v.as_f64().unwrap();
                let g = ece_l2_debiased(&sorted, binning, m.parse().unwrap()).unwrap();
                let excess = (g - w).abs() / (1e-12 + 1e-9 * w.abs());
                worst_l2 = worst_l2.max(excess);
            }
        }
        ok &= worst_l2 <= 1.0;
        failures += !ok as usize;
        println!(
            "{name:<28} {:>7} {:>20.17} {:>20.17} {rel:>9.1e} {:>9.7} {ms:>9.2}  {} (L2 diff/tol {worst_l2:.1e})",
            pairs.len(),
            got.smece,
            want_s,
            got.sigma,
            if ok { "pass" } else { "FAIL" }
        );
    }
    if failures > 0 {
        eprintln!("{failures} set(s) differ from the peers");
        std::process::exit(1);
    }
    println!(
        "all {} sets agree with relplot 1.0.3 and uncertainty-calibration",
        sets.len()
    );
}
