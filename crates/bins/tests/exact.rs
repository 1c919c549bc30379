//! An aggregate's audit against the core's in-memory audit: every value marked exact
//! within 1e-12 relative (plus 1e-14 absolute, for values that cancel to ~0, such as
//! RES), every bounded value within its bound; on every fixture file and on random
//! sets (binary, multiclass probabilities and logits, top-label).

use calibscope_bins::metrics::audit as agg_audit;
use calibscope_bins::{aggregate_set, ReadingKey};
use calibscope_core::audit::{Audit, AuditSettings, ReadingReport};
use calibscope_core::binning::Binning;
use calibscope_core::{PredictionSet, Scores, Source, Values};
use std::path::Path;

const M: [usize; 12] = [1, 2, 4, 15, 16, 10, 20, 64, 100, 1024, 2000, 65536];

fn close(a: Option<f64>, b: Option<f64>, what: &str) {
    match (a, b) {
        (Some(a), Some(b)) => {
            let tol = 1e-12 * a.abs().max(b.abs()) + 1e-14;
            assert!(
                (a - b).abs() <= tol || (a.is_nan() && b.is_nan()),
                "{what}: aggregate {a} vs in-memory {b} (diff {})",
                (a - b).abs()
            );
        }
        (None, None) => {}
        _ => panic!("{what}: aggregate {a:?} vs in-memory {b:?}"),
    }
}

fn compare_reading(
    got: &ReadingReport,
    want: &ReadingReport,
    bounds: &dyn Fn(Binning, usize) -> Option<f64>,
    what: &str,
) -> (usize, usize) {
    close(got.brier, want.brier, &format!("{what} brier"));
    let (mut exact, mut bounded) = (0, 0);
    for (b, m, t) in &got.tables {
        let w = want.at(*b, *m).expect("same tables");
        let bound = bounds(*b, *m);
        let at = format!("{what} {} m={m}", b.name());
        if let Some(bound) = bound {
            bounded += 1;
            let (e, we) = (t.ece.unwrap(), w.ece.unwrap());
            assert!(
                (e - we).abs() <= bound * (1.0 + 1e-9) + 1e-14,
                "{at}: ece {e} vs {we}, bound {bound}"
            );
        } else {
            exact += 1;
            assert_eq!(t.nonempty_bins, w.nonempty_bins, "{at} bins");
            close(t.ece, w.ece, &format!("{at} ece"));
            close(t.mce, w.mce, &format!("{at} mce"));
            close(t.rmsce, w.rmsce, &format!("{at} rmsce"));
            close(t.lince, w.lince, &format!("{at} lince"));
            close(t.cal, w.cal, &format!("{at} cal"));
            close(t.refinement, w.refinement, &format!("{at} ref"));
        }
    }
    for ((b, rows), (wb, wrows)) in got.reliability.iter().zip(&want.reliability) {
        if b != wb {
            continue;
        }
        assert_eq!(rows.len(), wrows.len(), "{what} reliability {}", b.name());
        for (r, w) in rows.iter().zip(wrows) {
            assert_eq!((r.bin, r.n, r.successes), (w.bin, w.n, w.successes));
            close(Some(r.conf), Some(w.conf), "reliability conf");
            close(Some(r.cp_lower), Some(w.cp_lower), "cp lower");
            close(Some(r.cp_upper), Some(w.cp_upper), "cp upper");
            close(Some(r.lower), Some(w.lower), "row lower");
            close(Some(r.upper), Some(w.upper), "row upper");
        }
    }
    (exact, bounded)
}

/// Compares everything; returns (exact tables, bounded tables).
fn check(set: &PredictionSet, name: &str) -> (usize, usize) {
    let settings = AuditSettings {
        m_values: M.to_vec(),
        reliability_bins: 16,
        ..AuditSettings::default()
    };
    let want = Audit::compute(set, &settings);
    let agg = aggregate_set(name, set);
    let got = agg_audit(&agg, &M, 16, settings.alpha);
    let a = &got.audit;
    close(Some(a.n as f64), Some(want.n as f64), &format!("{name} n"));
    close(a.accuracy, want.accuracy, &format!("{name} accuracy"));
    close(a.l_conf, want.l_conf, &format!("{name} l_conf"));
    close(a.nll, want.nll, &format!("{name} nll"));
    close(
        a.brier_multiclass,
        want.brier_multiclass,
        &format!("{name} brier_mc"),
    );
    let (r, w) = (&a.risk, &want.risk);
    for (what, x, y) in [
        ("csr", r.csr, w.csr),
        ("sigma", r.sigma_csr, w.sigma_csr),
        ("zscore", r.zscore, w.zscore),
        ("p_risk", r.p_risk, w.p_risk),
        ("cwa", r.cwa, w.cwa),
        ("gain", r.gain, w.gain),
    ] {
        close(x, y, &format!("{name} {what}"));
    }
    let bounds = &got.bounds;
    let bounds_of = |key: ReadingKey| move |b: Binning, m: usize| bounds[&(key, b, m)];
    let (mut exact, mut bounded) = compare_reading(
        &a.confidence,
        &want.confidence,
        &bounds_of(ReadingKey::Confidence),
        &format!("{name} confidence"),
    );
    assert_eq!(a.classes.len(), want.classes.len(), "{name} classes");
    for (r, (c, wc)) in a.classes.iter().zip(&want.classes).enumerate() {
        let (e, b) = compare_reading(
            &c.reading,
            &wc.reading,
            &bounds_of(ReadingKey::Class(r as u32)),
            &format!("{name} class {r}"),
        );
        exact += e;
        bounded += b;
        match (c.auc, wc.auc, got.auc_bounds[r]) {
            (Some(x), Some(y), Some(bound)) => assert!(
                (x - y).abs() <= bound + 1e-12,
                "{name} class {r} auc {x} vs {y}, bound {bound}"
            ),
            (None, None, None) => {}
            other => panic!("{name} class {r} auc {other:?}"),
        }
    }
    for m in M {
        for b in Binning::ALL {
            let all_exact = (0..a.classes.len())
                .all(|r| got.bounds[&(ReadingKey::Class(r as u32), b, m)].is_none());
            if let (true, Some(x), Some(y)) = (all_exact, a.classwise(b, m), want.classwise(b, m)) {
                close(x.cwece, y.cwece, "cwece");
                close(x.lince_cw, y.lince_cw, "lince_cw");
                close(x.res_sum, y.res_sum, "res_sum");
            }
        }
    }
    assert_eq!(a.confusion.len(), want.confusion.len());
    for ((cw, ct), (wcw, wct)) in a.confusion.iter().zip(&want.confusion) {
        assert_eq!(ct, wct, "{name} counts");
        for (x, y) in [
            (cw.tp, wcw.tp),
            (cw.fp, wcw.fp),
            (cw.fn_, wcw.fn_),
            (cw.tn, wcw.tn),
        ] {
            close(Some(x), Some(y), &format!("{name} cw confusion"));
        }
    }
    (exact, bounded)
}

fn fixture_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            fixture_files(&p, out);
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let pair_member = name.ends_with(".logits.npy") || name.ends_with(".probs.npy");
        let data = name.ends_with(".csv") || name.ends_with(".npz") || name.ends_with(".npy");
        if data && !pair_member && !name.contains("invalid") {
            out.push(p);
        }
    }
}

#[test]
fn every_fixture_matches_the_in_memory_audit() {
    let mut files = Vec::new();
    fixture_files(&calibscope_test_support::fixtures(), &mut files);
    files.sort();
    assert!(
        files.len() >= 30,
        "found only {} fixture files",
        files.len()
    );
    let (mut sets, mut exact, mut bounded) = (0, 0, 0);
    for f in &files {
        let paths = if f.to_string_lossy().ends_with(".labels.npy") {
            let stem = f
                .to_string_lossy()
                .trim_end_matches(".labels.npy")
                .to_string();
            let partner = ["logits", "probs"]
                .iter()
                .map(|s| std::path::PathBuf::from(format!("{stem}.{s}.npy")))
                .find(|p| p.exists())
                .unwrap_or_else(|| panic!("{}: no partner", f.display()));
            vec![f.clone(), partner]
        } else {
            vec![f.clone()]
        };
        let ds = calibscope_io::open_paths(&paths, &calibscope_io::Options::default())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for (name, set) in &ds.models {
            assert!(set.validate().is_empty(), "{}: invalid", f.display());
            let (e, b) = check(set, &format!("{}:{name}", f.display()));
            exact += e;
            bounded += b;
            sets += 1;
        }
    }
    eprintln!("{sets} sets: {exact} exact tables, {bounded} bounded");
    assert!(sets >= 30 && exact > 0);
}

/// A SplitMix64 step (deterministic random sets).
fn next(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

/// Random sets of several shapes, some with forecasts on a coarse decimal grid
/// (many ties and edge values), some large enough that cells hold many samples.
fn random_set(seed: u64, shape: usize, n: usize) -> PredictionSet {
    let mut s = seed;
    let coarse = seed % 2 == 0;
    let draw = |s: &mut u64| {
        let u = next(s);
        if coarse {
            (u * 100.0).round() / 100.0
        } else {
            u
        }
    };
    match shape {
        0 => {
            let p: Vec<f64> = (0..n).map(|_| draw(&mut s)).collect();
            let labels = p
                .iter()
                .map(|&u| (next(&mut s) < u * 0.9 + 0.05) as u32)
                .collect();
            PredictionSet {
                labels,
                scores: Scores::Column {
                    values: Values::F64(p),
                    source: Source::Probs,
                },
                k: 2,
            }
        }
        1 | 2 => {
            let k = 3 + (seed % 4) as usize;
            let logits = shape == 2;
            let mut values = Vec::with_capacity(n * k);
            let mut labels = Vec::with_capacity(n);
            for _ in 0..n {
                let raw: Vec<f64> = (0..k).map(|_| draw(&mut s) * 4.0).collect();
                if logits {
                    values.extend(&raw);
                } else {
                    let t: f64 = raw.iter().sum::<f64>().max(1e-9);
                    values.extend(raw.iter().map(|x| x / t));
                }
                labels.push((next(&mut s) * k as f64) as u32 % k as u32);
            }
            PredictionSet {
                labels,
                scores: Scores::Matrix {
                    values: Values::F64(values),
                    k,
                    source: if logits {
                        Source::Logits
                    } else {
                        Source::Probs
                    },
                },
                k,
            }
        }
        _ => {
            let conf: Vec<f64> = (0..n).map(|_| 0.2 + 0.8 * draw(&mut s)).collect();
            let labels: Vec<u32> = (0..n).map(|_| (next(&mut s) * 4.0) as u32).collect();
            let predicted: Vec<u32> = labels
                .iter()
                .zip(&conf)
                .map(|(&y, &c)| if next(&mut s) < c { y } else { (y + 1) % 4 })
                .collect();
            PredictionSet::top_label(labels, predicted, Values::F64(conf))
        }
    }
}

#[test]
fn random_sets_match_the_in_memory_audit() {
    let (mut exact, mut bounded) = (0, 0);
    for seed in 0..24u64 {
        let n = [7, 300, 5_000, 150_000][(seed % 4) as usize];
        let set = random_set(seed, (seed / 4 % 4) as usize, n);
        assert!(
            set.validate().is_empty(),
            "seed {seed}: {:?}",
            set.validate()
        );
        let (e, b) = check(&set, &format!("random seed {seed} n {n}"));
        exact += e;
        bounded += b;
    }
    eprintln!("random: {exact} exact tables, {bounded} bounded");
    assert!(bounded > 0, "no bounded table was exercised");
}
