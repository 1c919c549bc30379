//! Recalibration fits against the shared fixtures (`recalibration` blocks of the
//! expected JSON, schema calibscope-expected/2) and the golden-section vector.
//!
//! Reads CSV and `.npy` fixtures directly (the core cannot depend on calibscope-io);
//! the calibration split is checked against the JSON's `recalibration.split`. Besides the fitted parameters, the evaluation-split
//! `accuracy`, `nll` and `brier_multiclass` after each map are recomputed here as an
//! end-to-end check of the `predict` / renormalisation helpers.

use calibscope_core::recal::{
    self, fit_isotonic, fit_platt, golden_section, BinaryNll, GoldenProcedure, MulticlassNll,
    TemperatureObjective, TemperatureOptions,
};
use calibscope_core::Values;
use serde_json::Value;
use std::path::PathBuf;

use crate::recal_support;

use recal_support::{
    calibration_split, expected, fixtures, load_csv, load_npy_pair, load_structured, Set,
};

// ---------------------------------------------------------------- comparisons

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[track_caller]
fn close(what: &str, got: f64, want: f64, abs: f64, rel: f64) {
    if std::env::var_os("RECAL_REPORT").is_some() {
        let tol = abs + rel * want.abs();
        eprintln!("{what}: |diff| / tol = {:.3e}", (got - want).abs() / tol);
    }
    assert!(
        (got - want).abs() <= abs + rel * want.abs(),
        "{what}: got {got:e}, want {want:e} (diff {:e}, tol abs {abs:e} rel {rel:e})",
        (got - want).abs()
    );
}

/// Evaluation-split accuracy, NLL (clipped probabilities) and multiclass Brier of
/// probability rows `p` (`k` per row).
fn ledger(p: &[f64], k: usize, labels: &[u32], binary: bool) -> (f64, f64, f64) {
    let n = labels.len();
    let (mut acc, mut nll, mut brier) = (0.0, 0.0, 0.0);
    for (row, &y) in p.chunks_exact(k).zip(labels) {
        let pred = if binary {
            (row[1] >= 0.5) as usize
        } else {
            (0..k).fold(0, |b, r| if row[r] > row[b] { r } else { b })
        };
        acc += (pred == y as usize) as u32 as f64;
        nll -= recal::clip_probability(row[y as usize]).ln();
        brier += row
            .iter()
            .enumerate()
            .map(|(r, &v)| (v - (r == y as usize) as u32 as f64).powi(2))
            .sum::<f64>();
    }
    (acc / n as f64, nll / n as f64, brier / n as f64)
}

#[track_caller]
fn check_ledger(what: &str, got: (f64, f64, f64), after: &Value, tol: f64) {
    close(
        &format!("{what}.accuracy"),
        got.0,
        f(&after["accuracy"]),
        tol,
        tol,
    );
    close(&format!("{what}.nll"), got.1, f(&after["nll"]), tol, tol);
    close(
        &format!("{what}.brier_multiclass"),
        got.2,
        f(&after["brier_multiclass"]),
        tol,
        tol,
    );
}

// ---------------------------------------------------------------- the check

fn check(name: &str, set: &Set, exp: &Value) {
    let rc = &exp["recalibration"];
    let n = set.labels.len();
    let k = f(&exp["input"]["k"]) as usize;
    let binary = k == 2;
    // split
    let cal = calibration_split(&set.labels, k, 0, 0.5);
    let split = &rc["split"];
    assert_eq!(cal.len() as f64, f(&split["n_cal"]), "{name}: n_cal");
    if let Some(idx) = split["calibration_indices"].as_array() {
        let want: Vec<usize> = idx.iter().map(|v| f(v) as usize).collect();
        assert_eq!(cal, want, "{name}: calibration indices");
    } else {
        let sum: usize = cal.iter().sum();
        let sq: usize = cal.iter().map(|i| i * i).sum();
        assert_eq!(sum as f64, f(&split["calibration_index_sum"]), "{name}");
        assert_eq!(
            sq as f64,
            f(&split["calibration_index_sum_squares"]),
            "{name}"
        );
    }
    let mut is_cal = vec![false; n];
    cal.iter().for_each(|&i| is_cal[i] = true);
    let eval: Vec<usize> = (0..n).filter(|&i| !is_cal[i]).collect();
    let eval_labels: Vec<u32> = eval.iter().map(|&i| set.labels[i]).collect();
    let get = |j: usize| set.values.get(j);

    // the section-6 scores: binary s, multiclass logit matrix z (f64 unless stored)
    let s: Vec<f64> = if !binary {
        Vec::new()
    } else if set.cols == 1 {
        (0..n)
            .map(|i| {
                if set.probs {
                    recal::logit_clipped(get(i))
                } else {
                    get(i)
                }
            })
            .collect()
    } else if set.probs {
        (0..n)
            .map(|i| recal::two_column_score(get(2 * i), get(2 * i + 1)))
            .collect()
    } else {
        (0..n).map(|i| get(2 * i + 1) - get(2 * i)).collect()
    };
    let z_owned: Option<Vec<f64>> = (!binary && set.probs).then(|| match &set.values {
        Values::F32(v) => recal::ln_clipped_all(v),
        Values::F64(v) => recal::ln_clipped_all(v),
    });
    let z = |i: usize, r: usize| match &z_owned {
        Some(z) => z[i * k + r],
        None => get(i * k + r),
    };

    // temperature
    let t = &rc["temperature"];
    let fit_with = |opts: &TemperatureOptions| {
        if binary {
            match (&set.values, set.cols == 1 && !set.probs) {
                (Values::F32(v), true) => BinaryNll::new(v, &set.labels, Some(&cal)),
                _ => BinaryNll::new(&s, &set.labels, Some(&cal)),
            }
            .map(|o| o.fit(opts))
        } else {
            match (&z_owned, &set.values) {
                (Some(zo), _) => {
                    MulticlassNll::new(zo, k, &set.labels, Some(&cal)).map(|o| o.fit(opts))
                }
                (None, Values::F32(v)) => {
                    MulticlassNll::new(v, k, &set.labels, Some(&cal)).map(|o| o.fit(opts))
                }
                (None, Values::F64(v)) => {
                    MulticlassNll::new(v, k, &set.labels, Some(&cal)).map(|o| o.fit(opts))
                }
            }
        }
    };
    let contract = TemperatureOptions::default();
    let variants = [
        ("", contract),
        (
            " (direct)",
            TemperatureOptions {
                expansion: false,
                screening: false,
                ..contract
            },
        ),
        (
            " (no screening)",
            TemperatureOptions {
                screening: false,
                ..contract
            },
        ),
        (
            " (reuse)",
            TemperatureOptions {
                procedure: GoldenProcedure::REUSE_1E9,
                ..contract
            },
        ),
    ];
    if t["tau"].is_null() {
        assert!(
            fit_with(&contract).is_none(),
            "{name}: temperature must be undefined"
        );
        assert!(rc["platt"]["params"].is_null() && rc["isotonic"]["knots"].is_null());
        let xs: Vec<f64> = cal.iter().map(|&i| get(i * set.cols)).collect();
        let ys: Vec<bool> = cal.iter().map(|&i| set.labels[i] == 1).collect();
        assert!(fit_platt(&xs, &ys).is_none() && fit_isotonic(&xs, &ys).is_none());
        return;
    }
    let tau = f(&t["tau"]);
    let tau_tol = f(&t["tau_tolerance"]);
    let mut fits = Vec::new();
    for (variant, opts) in &variants {
        let fit = fit_with(opts).unwrap_or_else(|| panic!("{name}: temperature undefined"));
        let name = format!("{name}{variant}");
        close(&format!("{name}: tau"), fit.tau, tau, tau_tol, 0.0);
        close(
            &format!("{name}: nll_cal_tau1"),
            fit.nll_tau1,
            f(&t["nll_cal_tau1"]),
            1e-10,
            1e-9,
        );
        let nll_tol = f(&t["nll_cal_tau_tolerance"]);
        close(
            &format!("{name}: nll_cal_tau"),
            fit.nll_tau,
            f(&t["nll_cal_tau"]),
            nll_tol,
            0.0,
        );
        if ((tau - 0.05).min(20.0 - tau) - 1e-6).abs() > tau_tol {
            let want = t["at_bracket_end"].as_bool().unwrap();
            assert_eq!(fit.at_bracket_end, want, "{name}");
        }
        fits.push(fit);
    }
    // screening changes the cost, never a decision: same tau, bit for bit, and the
    // same trace as the search without it
    assert_eq!(
        fits[0].tau.to_bits(),
        fits[2].tau.to_bits(),
        "{name}: screening"
    );
    assert_eq!(fits[0].trace, fits[2].trace, "{name}: screening, trace");
    let fit = fits.swap_remove(0);
    let traced: Vec<usize> = fit.trace.iter().map(|s| s.iteration).collect();
    assert_eq!(traced, (1..=8).map(|i| 10 * i).collect::<Vec<_>>());
    // after: softmax(z / tau) on the evaluation split
    let mut p_after = vec![0.0; eval.len() * k];
    for (e, &i) in eval.iter().enumerate() {
        let row = &mut p_after[e * k..e * k + k];
        if binary {
            let u = recal::sigmoid(s[i] / fit.tau);
            row.copy_from_slice(&[1.0 - u, u]);
        } else {
            let zi: Vec<f64> = (0..k).map(|r| z(i, r)).collect();
            recal::softmax_scaled(&zi, fit.tau, row);
        }
    }
    let (acc, _, brier) = ledger(&p_after, k, &eval_labels, binary);
    // NLL after temperature scaling is computed from the scaled logits (METRICS.md §3)
    let nll = if binary {
        let o = BinaryNll::new(&s, &set.labels, Some(&eval)).unwrap();
        o.nll(fit.tau)
    } else {
        let zm: Vec<f64> = (0..n * k).map(|j| z(j / k, j % k)).collect();
        MulticlassNll::new(&zm, k, &set.labels, Some(&eval))
            .unwrap()
            .nll(fit.tau)
    };
    check_ledger(
        &format!("{name}: temperature.after"),
        (acc, nll, brier),
        &t["after"],
        f(&t["after_tolerance"]),
    );

    // Platt and isotonic: binary on s, multiclass one-vs-rest on z_r
    let classes: Vec<usize> = if binary { vec![1] } else { (0..k).collect() };
    let platt = &rc["platt"];
    let iso = &rc["isotonic"];
    let mut p_platt = vec![0.0; eval.len() * k];
    let mut p_iso = vec![0.0; eval.len() * k];
    let mut platt_defined = true;
    for (c, &r) in classes.iter().enumerate() {
        let score = |i: usize| if binary { s[i] } else { z(i, r) };
        let xs: Vec<f64> = cal.iter().map(|&i| score(i)).collect();
        let ys: Vec<bool> = cal.iter().map(|&i| set.labels[i] as usize == r).collect();
        let want = &platt["params"][c];
        let got = fit_platt(&xs, &ys);
        match got {
            None => {
                assert!(want.is_null(), "{name}: Platt class {r} must be defined");
                platt_defined = false;
            }
            Some(g) => {
                let what = format!("{name}: platt[{c}]");
                assert_eq!(g.status.code(), want["status"].as_str().unwrap(), "{what}");
                close(
                    &format!("{what}.a"),
                    g.a,
                    f(&want["a"]),
                    f(&want["tolerance_a"]),
                    0.0,
                );
                close(
                    &format!("{what}.b"),
                    g.b,
                    f(&want["b"]),
                    f(&want["tolerance_b"]),
                    0.0,
                );
                close(
                    &format!("{what}.nll_cal"),
                    g.nll_cal,
                    f(&want["nll_cal"]),
                    1e-12,
                    1e-10,
                );
                for (e, &i) in eval.iter().enumerate() {
                    p_platt[e * k + r] = g.predict(score(i));
                }
            }
        }
        let g = fit_isotonic(&xs, &ys).unwrap();
        let want_knots = if binary {
            &iso["knots"]
        } else {
            &iso["knots"][c]
        };
        assert_eq!(
            g.n_knots() as f64,
            f(want_knots),
            "{name}: isotonic[{c}] knots"
        );
        if binary {
            assert_eq!(
                g.distinct_values() as f64,
                f(&iso["distinct_values"]),
                "{name}"
            );
        }
        for (e, &i) in eval.iter().enumerate() {
            p_iso[e * k + r] = g.predict(score(i));
        }
    }
    if binary {
        for row in p_platt.chunks_exact_mut(2).chain(p_iso.chunks_exact_mut(2)) {
            row[0] = 1.0 - row[1];
        }
    } else {
        if platt_defined {
            recal::renormalize_rows(&mut p_platt, k);
        }
        let uniform = recal::renormalize_rows(&mut p_iso, k);
        assert_eq!(
            uniform as f64,
            f(&iso["zero_rows_made_uniform"]),
            "{name}: zero rows"
        );
    }
    if platt_defined {
        let tol = f(&platt["after_tolerance"]);
        check_ledger(
            &format!("{name}: platt.after"),
            ledger(&p_platt, k, &eval_labels, binary),
            &platt["after"],
            tol,
        );
    } else {
        assert!(platt["undefined"].is_string(), "{name}");
    }
    let got = ledger(&p_iso, k, &eval_labels, binary);
    check_ledger(
        &format!("{name}: isotonic.after"),
        got,
        &iso["after"],
        1e-10,
    );
}

fn has_recalibration(exp: &Value) -> bool {
    !exp["recalibration"].is_null()
}

#[test]
fn csv_fixtures() {
    let mut checked = 0;
    for dir in ["real", "edge", "synthetic"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "csv"))
            .filter(|p| !p.to_string_lossy().ends_with("_toplabel.csv"))
            .collect();
        files.sort();
        for path in files {
            let exp = expected(&PathBuf::from(
                path.to_string_lossy().trim_end_matches(".csv"),
            ));
            if !has_recalibration(&exp) {
                continue;
            }
            let set = load_csv(&path);
            check(&path.file_name().unwrap().to_string_lossy(), &set, &exp);
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} fixtures checked");
}

#[test]
fn npy_fixtures() {
    let real = fixtures().join("real");
    for stem in ["digits_logreg_C100", "breast_cancer_mlp"] {
        let set = load_npy_pair(&real, stem);
        check(stem, &set, &expected(&real.join(stem)));
    }
    for stem in ["breast_cancer_hgb_logit", "mc_binary_hgb_logit"] {
        let set = load_structured(&real.join(format!("{stem}.npy")));
        check(stem, &set, &expected(&real.join(stem)));
    }
}

#[test]
fn golden_section_vector() {
    let path = fixtures().join("vectors/golden_section.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (abs, rel) = (f(&v["tolerance"]["abs"]), f(&v["tolerance"]["rel"]));
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 4);
    for case in cases {
        let name = case["f"].as_str().unwrap();
        let func: fn(f64) -> f64 = match name {
            "(tau-1.4172)^2" => |t| (t - 1.4172) * (t - 1.4172),
            "(1/tau - 0.5)^2" => |t| (1.0 / t - 0.5) * (1.0 / t - 0.5),
            s if s.starts_with("tau ") => |t| t,
            s if s.starts_with("-tau ") => |t| -t,
            s => panic!("unknown function {s}"),
        };
        let g = golden_section(func, 0.05, 20.0, 80);
        close(name, g.x, f(&case["tau"]), abs, rel);
        for (it, w) in case["bracket_width_after"].as_object().unwrap() {
            let step = &g.trace[it.parse::<usize>().unwrap() - 1];
            close(
                &format!("{name} width after {it}"),
                step.width,
                f(w),
                abs,
                rel,
            );
            assert_eq!(step.width, f(w), "{name}: width after {it} (exact)");
        }
        let g2 = recal::golden_section_reuse(func, 0.05, 20.0, 1e-9, 200);
        let tol = (1e-9 * g.x).max(abs);
        close(
            &format!("{name} (reuse variant)"),
            g2.x,
            f(&case["tau"]),
            tol,
            rel,
        );
    }
}
