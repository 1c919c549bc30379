//! Fixture reading for the recalibration tests: paths, a private copy of the
//! METRICS.md §6 split, CSV and `.npy` loaders.

use calibscope_core::Values;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub use calibscope_test_support::fixtures;

// ---------------------------------------------------------------- split

/// Calibration indices (ascending) of the stratified split, METRICS.md §6 (the
/// core's split; tests/vectors.rs checks it against the split vectors).
pub fn calibration_split(labels: &[u32], k: usize, seed: u64, f: f64) -> Vec<usize> {
    calibscope_core::split::stratified_split(labels, k, seed, f).calibration
}

// ---------------------------------------------------------------- loading

/// A prediction set as the fixture stores it.
pub struct Set {
    pub labels: Vec<u32>,
    /// Row-major scores, `cols` per row.
    pub values: Values,
    pub cols: usize,
    pub probs: bool,
}

pub fn load_csv(path: &Path) -> Set {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[0], "label", "{path:?}");
    let cols = header.len() - 1;
    let probs = header[1].starts_with('p');
    let (mut labels, mut values) = (Vec::new(), Vec::new());
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let mut fields = line.split(',');
        labels.push(fields.next().unwrap().trim().parse().unwrap());
        values.extend(fields.map(|v| v.trim().parse::<f64>().unwrap()));
    }
    Set {
        labels,
        values: Values::F64(values),
        cols,
        probs,
    }
}

/// A minimal `.npy` reader: (descr, fortran_order, shape, data bytes).
pub fn read_npy(path: &Path) -> (String, bool, Vec<usize>, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    let (len, start) = if bytes[6] == 1 {
        (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10)
    } else {
        (
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
            12,
        )
    };
    let header = std::str::from_utf8(&bytes[start..start + len])
        .unwrap()
        .to_string();
    let descr = header
        [header.find("'descr':").unwrap() + 8..header.find("'fortran_order'").unwrap()]
        .trim()
        .trim_end_matches(',')
        .to_string();
    let fortran = header.contains("'fortran_order': True");
    let shape_s = &header[header.find("'shape': (").unwrap() + 10..];
    let shape = shape_s[..shape_s.find(')').unwrap()]
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse().unwrap())
        .collect();
    (descr, fortran, shape, bytes[start + len..].to_vec())
}

pub fn floats(descr: &str, data: &[u8]) -> Values {
    match descr {
        "'<f4'" => Values::F32(
            data.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        "'<f8'" => Values::F64(
            data.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        d => panic!("dtype {d}"),
    }
}

/// A NumPy pair `<stem>.labels.npy` + `<stem>.{logits,probs}.npy`.
pub fn load_npy_pair(dir: &Path, stem: &str) -> Set {
    let (d, _, _, data) = read_npy(&dir.join(format!("{stem}.labels.npy")));
    assert_eq!(d, "'<i8'");
    let labels = data
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()) as u32)
        .collect();
    let probs = dir.join(format!("{stem}.probs.npy")).exists();
    let file = dir.join(format!(
        "{stem}.{}.npy",
        if probs { "probs" } else { "logits" }
    ));
    let (descr, fortran, shape, data) = read_npy(&file);
    let cols = if shape.len() == 2 { shape[1] } else { 1 };
    let mut values = floats(&descr, &data);
    if fortran && cols > 1 {
        let n = shape[0];
        fn t<V: Copy>(v: &[V], n: usize, cols: usize) -> Vec<V> {
            (0..n * cols)
                .map(|i| v[(i % cols) * n + i / cols])
                .collect()
        }
        values = match &values {
            Values::F32(v) => Values::F32(t(v, n, cols)),
            Values::F64(v) => Values::F64(t(v, n, cols)),
        };
    }
    Set {
        labels,
        values,
        cols,
        probs,
    }
}

/// A structured `.npy` with fields `label` (`<i8`) and `logit` (`<f4` or `<f8`).
pub fn load_structured(path: &Path) -> Set {
    let (descr, _, shape, data) = read_npy(path);
    let f32_logit = descr.contains("('logit', '<f4')");
    assert!(descr.contains("('label', '<i8')"), "{descr}");
    let rec = if f32_logit { 12 } else { 16 };
    let mut labels = Vec::new();
    let (mut v32, mut v64) = (Vec::new(), Vec::new());
    for r in data.chunks_exact(rec).take(shape[0]) {
        labels.push(i64::from_le_bytes(r[..8].try_into().unwrap()) as u32);
        if f32_logit {
            v32.push(f32::from_le_bytes(r[8..12].try_into().unwrap()));
        } else {
            v64.push(f64::from_le_bytes(r[8..16].try_into().unwrap()));
        }
    }
    let values = if f32_logit {
        Values::F32(v32)
    } else {
        Values::F64(v64)
    };
    Set {
        labels,
        values,
        cols: 1,
        probs: false,
    }
}

/// `<stem>.expected.json` next to `<stem>` (stems may contain dots).
pub fn expected(stem: &Path) -> Value {
    let p = PathBuf::from(format!("{}.expected.json", stem.display()));
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}
