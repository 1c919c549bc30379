//! The shared unit-test vectors (`shared/fixtures/vectors/`): normal CDF,
//! Clopper–Pearson, SplitMix64 and the stratified split; plus the split of every
//! fixture that records one (`recalibration.split`), read from its CSV labels.

use std::path::{Path, PathBuf};

use calibscope_core::special::{clopper_pearson, normal_cdf};
use calibscope_core::split::{stratified_split, SplitMix64};
use serde_json::Value;

/// `shared/` beside the repository (`crates/core` → repo root → its parent), or
/// `$CALIBSCOPE_SHARED` when set.
use calibscope_test_support::shared;

fn load(rel: &str) -> Value {
    let path = shared().join(rel);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn within(got: f64, want: f64, abs: f64, rel: f64) -> bool {
    (got - want).abs() <= abs + rel * want.abs()
}

#[test]
fn normal_cdf_vectors() {
    let v = load("fixtures/vectors/normal_cdf.json");
    let (abs, rel) = (f(&v["tolerance"]["abs"]), f(&v["tolerance"]["rel"]));
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 20);
    for c in cases {
        let (z, want) = (f(&c["z"]), f(&c["phi"]));
        let got = normal_cdf(z);
        assert!(
            within(got, want, abs, rel),
            "Phi({z}) = {got:e}, want {want:e}"
        );
        // Relative accuracy deep in the lower tail. The vectors themselves are off by
        // up to 1.1e-13 relative there (at z = -37: the 120-bit value is
        // 5.725571222524577e-300), so 1e-12 is the check against them.
        if z < 0.0 && want > 0.0 {
            assert!(
                ((got - want) / want).abs() <= 1e-12,
                "Phi({z}) = {got:e}, want {want:e} (relative)"
            );
        }
    }
}

#[test]
fn normal_cdf_deep_tail_is_relatively_exact() {
    // Correctly rounded values (mpmath, 200 bits).
    let cases = [
        (-37.0, 5.725571222524577e-300),
        (-30.0, 4.906713927148187e-198),
        (-20.0, 2.7536241186062337e-89),
        (-10.0, 7.619853024160525e-24),
        (-5.0, 2.866515718791939e-07),
        (-1.0, 0.15865525393145705),
    ];
    for (z, want) in cases {
        let got = normal_cdf(z);
        assert!(
            ((got - want) / want).abs() <= 2e-15,
            "Phi({z}) = {got:e}, want {want:e}"
        );
    }
}

#[test]
fn clopper_pearson_vectors() {
    let v = load("fixtures/vectors/clopper_pearson.json");
    let (abs, rel) = (f(&v["tolerance"]["abs"]), f(&v["tolerance"]["rel"]));
    for c in v["cases"].as_array().unwrap() {
        let x = c["x"].as_u64().unwrap();
        let n = c["n"].as_u64().unwrap();
        let alpha = f(&c["alpha"]);
        let (lo, hi) = clopper_pearson(x, n, alpha).expect("defined for n > 0");
        let (want_lo, want_hi) = (f(&c["lower"]), f(&c["upper"]));
        assert!(
            within(lo, want_lo, abs, rel),
            "{x}/{n} a={alpha}: lower {lo:e} vs {want_lo:e}"
        );
        assert!(
            within(hi, want_hi, abs, rel),
            "{x}/{n} a={alpha}: upper {hi:e} vs {want_hi:e}"
        );
    }
    // The contract's own check (METRICS.md §2).
    let (lo, _) = clopper_pearson(7, 7, 0.10).unwrap();
    assert!((lo - 0.05f64.powf(1.0 / 7.0)).abs() <= 1e-15);
    assert_eq!(clopper_pearson(0, 0, 0.05), None);
}

#[test]
fn splitmix64_streams() {
    let v = load("fixtures/vectors/splitmix64.json");
    let streams = v["next_u64"].as_object().unwrap();
    assert!(streams.len() >= 5);
    for (seed, outputs) in streams {
        let mut g = SplitMix64::new(seed.parse().unwrap());
        for (i, want) in outputs.as_array().unwrap().iter().enumerate() {
            let want: u64 = want.as_str().unwrap().parse().unwrap();
            assert_eq!(g.next_u64(), want, "seed {seed}, output {i}");
        }
    }
}

fn indices(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_u64().unwrap() as usize)
        .collect()
}

#[test]
fn split_vectors() {
    let v = load("fixtures/vectors/splitmix64.json");
    let cases = v["splits"].as_array().unwrap();
    assert!(!cases.is_empty());
    for c in cases {
        let labels: Vec<u32> = indices(&c["labels"])
            .into_iter()
            .map(|y| y as u32)
            .collect();
        let k = c["k"].as_u64().unwrap() as usize;
        let seed = c["seed"].as_u64().unwrap();
        let frac = f(&c["f"]);
        let s = stratified_split(&labels, k, seed, frac);
        assert_eq!(s.calibration, indices(&c["calibration"]), "{c}");
        assert_eq!(s.evaluation, indices(&c["evaluation"]), "{c}");
    }
}

/// The `label` column of a fixture CSV.
fn csv_labels(path: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|h| h.trim() == "label").unwrap();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(',').nth(col).unwrap().trim().parse().unwrap())
        .collect()
}

/// Every `*.expected.json` with `recalibration.split` whose data file is a CSV: the
/// split of its labels must match (`calibration_indices`, or the head, sum and sum of
/// squares for large files). NumPy files are skipped (their labels equal those of a
/// CSV sibling for every real data set except `mc5_*`).
#[test]
fn fixture_splits() {
    let mut checked = 0;
    for dir in ["real", "edge", "synthetic"] {
        let dir = shared().join("fixtures").join(dir);
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".expected.json"))
            .collect();
        entries.sort();
        for path in entries {
            let exp: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let split = &exp["recalibration"]["split"];
            if !split.is_object() || exp["input"]["format"] != "csv" {
                continue;
            }
            let csv = dir.join(exp["file"].as_str().unwrap());
            let labels = csv_labels(&csv);
            let k = exp["input"]["k"].as_u64().unwrap() as usize;
            let seed = split["seed"].as_u64().unwrap();
            let frac = f(&split["f"]);
            let s = stratified_split(&labels, k, seed, frac);
            let name = path.display();
            assert_eq!(
                s.calibration.len() as u64,
                split["n_cal"].as_u64().unwrap(),
                "{name}"
            );
            assert_eq!(
                s.evaluation.len() as u64,
                split["n_eval"].as_u64().unwrap(),
                "{name}"
            );
            if split["calibration_indices"].is_array() {
                assert_eq!(
                    s.calibration,
                    indices(&split["calibration_indices"]),
                    "{name}"
                );
            } else {
                let head = indices(&split["calibration_indices_head"]);
                assert_eq!(s.calibration[..head.len()], head[..], "{name}");
            }
            let sum: u64 = s.calibration.iter().map(|&i| i as u64).sum();
            let sum_sq: u64 = s.calibration.iter().map(|&i| (i as u64) * (i as u64)).sum();
            assert_eq!(
                sum,
                split["calibration_index_sum"].as_u64().unwrap(),
                "{name}"
            );
            assert_eq!(
                sum_sq,
                split["calibration_index_sum_squares"].as_u64().unwrap(),
                "{name}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} fixture splits found");
}

/// vectors/equal_width_bins.json: every (u, m) lands in its bin, whether the decimal
/// was stored as f64 or as its float32 neighbour; the tolerance-free rule differs
/// where the file says it does.
#[test]
fn equal_width_bin_vectors() {
    use calibscope_core::binning::{width_bin, Binning, SortedReading};
    let v = load("fixtures/vectors/equal_width_bins.json");
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() > 50);
    for case in cases {
        let (u, m) = (f(&case["u"]), case["m"].as_u64().unwrap() as usize);
        let want = case["bin"].as_u64().unwrap() as usize;
        assert_eq!(width_bin(u, m), want, "{case}");
        if case["stored_as"] == "f32" {
            assert_eq!(
                u, u as f32 as f64,
                "{case}: the f32 case holds an f32 value"
            );
        }
        let plain = ((u * m as f64).floor() as usize).min(m - 1);
        assert_eq!(
            plain,
            case["bin_without_tolerance"].as_u64().unwrap() as usize,
            "{case}"
        );
        // the sorted index puts the forecast in the same bin
        let index = SortedReading::from_parts(&[u], &[true]);
        assert_eq!(index.bins(Binning::Width, m)[0].index, want, "{case}");
    }
}
