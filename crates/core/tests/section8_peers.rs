//! METRICS.md §8 against its peers on every fixture file: smECE and sigma* against
//! relplot 1.0.3 (1e-9 relative) and the debiased L2 error against
//! uncertainty-calibration's `unbiased_l2_ce` on the contract's bins (1e-9 relative
//! plus 1e-12 absolute), from `tests/refs/section8_peers.json`, which
//! `bash bench/peers_section8.sh --update-refs` wrote. Every valid fixture prediction set
//! (each model of the multi-model files) must be listed there, and every listed set
//! must exist.

use calibscope_core::binning::{Binning, SortedReading};
use calibscope_core::estimators::ece_l2_debiased;
use calibscope_core::reading::{class_pairs, top_labels, Pairs, ProbView};
use calibscope_core::smece::smece;
use calibscope_core::{PredictionSet, Scores, Source, Values};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

use crate::recal_support;

use recal_support::{fixtures, floats, load_csv, load_npy_pair, load_structured, Set};

fn set_of(s: Set) -> PredictionSet {
    let source = if s.probs {
        Source::Probs
    } else {
        Source::Logits
    };
    let scores = if s.cols == 1 {
        Scores::Column {
            values: s.values,
            source,
        }
    } else {
        Scores::Matrix {
            values: s.values,
            k: s.cols,
            source,
        }
    };
    PredictionSet {
        labels: s.labels,
        scores,
        k: s.cols.max(2),
    }
}

/// The `.npy` members of an uncompressed `.npz` (zip, stored): name -> bytes.
fn npz_members(path: &Path) -> Vec<(String, Vec<u8>)> {
    let bytes = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    let mut at = 0;
    while at + 30 <= bytes.len() && bytes[at..at + 4] == [0x50, 0x4b, 0x03, 0x04] {
        let u16_at = |o: usize| u16::from_le_bytes([bytes[at + o], bytes[at + o + 1]]) as usize;
        let u32_at = |o: usize| u32::from_le_bytes(bytes[at + o..at + o + 4].try_into().unwrap());
        assert_eq!(
            u16_at(8),
            0,
            "{}: only stored (uncompressed) members",
            path.display()
        );
        let (name_len, extra_len) = (u16_at(26), u16_at(28));
        let mut size = u32_at(18) as usize;
        if size == u32::MAX as usize {
            // zip64 (numpy writes it): the size is in the extra field's 0x0001 record,
            // uncompressed then compressed size (u64 each)
            let extra = &bytes[at + 30 + name_len..at + 30 + name_len + extra_len];
            assert_eq!(&extra[..2], &[1, 0], "{}: zip64 record", path.display());
            size = u64::from_le_bytes(extra[12..20].try_into().unwrap()) as usize;
        }
        let name = String::from_utf8(bytes[at + 30..at + 30 + name_len].to_vec()).unwrap();
        let data_at = at + 30 + name_len + extra_len;
        out.push((name, bytes[data_at..data_at + size].to_vec()));
        at = data_at + size;
    }
    out
}

/// (descr, shape, data) of `.npy` bytes (C order).
fn parse_npy(bytes: &[u8]) -> (String, Vec<usize>, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("section8_npy_{}", std::process::id()));
    std::fs::write(&dir, bytes).unwrap();
    let (descr, fortran, shape, data) = recal_support::read_npy(&dir);
    std::fs::remove_file(&dir).ok();
    assert!(!fortran);
    (descr, shape, data)
}

fn load_npz(path: &Path) -> PredictionSet {
    let (mut labels, mut values, mut cols, mut probs) = (Vec::new(), None, 1, true);
    for (name, bytes) in npz_members(path) {
        let (descr, shape, data) = parse_npy(&bytes);
        match name.as_str() {
            "labels.npy" => {
                assert_eq!(descr, "'<i8'");
                labels = data
                    .chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap()) as u32)
                    .collect();
            }
            "probs.npy" | "logits.npy" => {
                probs = name == "probs.npy";
                cols = if shape.len() == 2 { shape[1] } else { 1 };
                values = Some(floats(&descr, &data));
            }
            other => panic!("{}: unexpected member {other}", path.display()),
        }
    }
    set_of(Set {
        labels,
        values: values.expect("a score array"),
        cols,
        probs,
    })
}

/// The fixture's readings by key: `sub/file` or `multi/file#model`.
fn readings(key: &str) -> Vec<(&'static str, Pairs)> {
    let root = fixtures();
    let (file, model) = match key.split_once('#') {
        Some((f, m)) => (f, Some(m)),
        None => (key, None),
    };
    let path = root.join(file);
    let set = if let Some(model) = model {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let (mut labels, mut values) = (Vec::new(), Vec::new());
        for line in lines.filter(|l| l.split(',').next() == Some(model)) {
            let fields: Vec<&str> = line.split(',').collect();
            labels.push(fields[2].parse().unwrap());
            values.extend(fields[3..].iter().map(|v| v.parse::<f64>().unwrap()));
        }
        assert!(!labels.is_empty(), "{key}: no rows");
        set_of(Set {
            labels,
            values: Values::F64(values),
            cols: header.len() - 3,
            probs: header[3].starts_with('p'),
        })
    } else if file.ends_with(".npz") {
        load_npz(&path)
    } else if file.ends_with(".npy") {
        set_of(load_structured(&path))
    } else if file.ends_with(".csv") {
        let text = std::fs::read_to_string(&path).unwrap();
        if text.starts_with("label,yhat,conf") {
            let (mut labels, mut yhat, mut conf) = (Vec::new(), Vec::new(), Vec::new());
            for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
                let f: Vec<&str> = line.split(',').collect();
                labels.push(f[0].trim().parse().unwrap());
                yhat.push(f[1].trim().parse().unwrap());
                conf.push(f[2].trim().parse::<f64>().unwrap());
            }
            PredictionSet::top_label(labels, yhat, Values::F64(conf))
        } else {
            set_of(load_csv(&path))
        }
    } else {
        // a NumPy pair, keyed by its stem
        let (dir, stem) = (path.parent().unwrap(), path.file_name().unwrap());
        set_of(load_npy_pair(dir, stem.to_str().unwrap()))
    };
    let mut out = vec![("confidence", top_labels(&set).pairs())];
    if set.k == 2 && !matches!(set.scores, Scores::TopLabel { .. }) {
        out.push(("positive", class_pairs(&ProbView::new(&set).unwrap(), 1)));
    }
    out
}

/// The keys every valid fixture prediction set should have in the refs.
fn fixture_keys() -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for sub in ["real", "synthetic", "edge", "multi"] {
        for entry in std::fs::read_dir(fixtures().join(sub)).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let Some(_) = name.strip_suffix(".expected.json") else {
                continue;
            };
            let exp: Value = serde_json::from_str(
                &std::fs::read_to_string(fixtures().join(sub).join(&name)).unwrap(),
            )
            .unwrap();
            if exp["input_error"] == Value::Bool(true) {
                continue;
            }
            let file = exp["file"].as_str().unwrap();
            match exp["input"]["models"].as_array() {
                Some(models) => {
                    for m in models {
                        keys.insert(format!("{sub}/{file}#{}", m.as_str().unwrap()));
                    }
                }
                None => {
                    keys.insert(format!("{sub}/{file}"));
                }
            }
        }
    }
    keys
}

#[test]
fn smece_and_debiased_l2_equal_the_peers_on_every_fixture() {
    let refs: Value = serde_json::from_str(include_str!("refs/section8_peers.json")).unwrap();
    let sets = refs["sets"].as_object().unwrap();
    let listed: BTreeSet<String> = sets.keys().cloned().collect();
    assert_eq!(
        listed,
        fixture_keys(),
        "refs and fixtures list different sets"
    );
    let (mut compared, mut worst_smece, mut worst_l2) = (0, 0.0f64, 0.0f64);
    for (key, entry) in sets {
        let got_readings = readings(key);
        assert_eq!(
            got_readings.len(),
            entry.as_object().unwrap().len(),
            "{key}: readings"
        );
        for (reading, pairs) in got_readings {
            let want = &entry[reading];
            assert_eq!(
                want["n"].as_u64(),
                Some(pairs.len() as u64),
                "{key} {reading}"
            );
            let got = smece(&pairs.forecast, &pairs.outcome).unwrap();
            let (ws, wsig) = (
                want["smece"].as_f64().unwrap(),
                want["smece_sigma"].as_f64().unwrap(),
            );
            assert_eq!(got.sigma, wsig, "{key} {reading}: sigma*");
            let rel = (got.smece - ws).abs() / ws.abs().max(f64::MIN_POSITIVE);
            assert!(
                rel <= 1e-9,
                "{key} {reading}: smECE {} vs relplot {ws} (rel {rel:e})",
                got.smece
            );
            worst_smece = worst_smece.max(rel);
            let sorted = SortedReading::new(&pairs);
            for (binning, per_m) in want["ece_l2_debiased"].as_object().unwrap() {
                for (m, w) in per_m.as_object().unwrap() {
                    let w = w.as_f64().unwrap();
                    let g = ece_l2_debiased(
                        &sorted,
                        Binning::from_name(binning).unwrap(),
                        m.parse().unwrap(),
                    )
                    .unwrap();
                    let excess = (g - w).abs() / (1e-12 + 1e-9 * w.abs());
                    assert!(excess <= 1.0, "{key} {reading} {binning} {m}: {g} vs {w}");
                    worst_l2 = worst_l2.max(excess);
                }
            }
            compared += 1;
        }
    }
    eprintln!(
        "{compared} readings; worst smECE rel diff {worst_smece:e}; worst L2 diff/tol {worst_l2:e}"
    );
    assert!(compared >= 80, "only {compared} readings compared");
}
