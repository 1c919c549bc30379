//! The `calibscope` binary as a user runs it: every fixture through `audit --json`,
//! exit codes, standard input, recalibrated output files, flips and synth.

use crate::compare;

use crate::support;
use serde_json::{json, Value};
use std::process::{Command, Output, Stdio};
use support::{calibscope, shared};

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// Every fixture of every directory through `calibscope audit --json --bins <m_values>`.
#[test]
fn audit_json_matches_every_fixture() {
    let mut failures = Vec::new();
    let mut count = 0;
    for dir in ["real", "edge", "synthetic", "multi"] {
        let dir = shared().join("fixtures").join(dir);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names.iter().filter(|n| n.ends_with(".expected.json")) {
            let stem = name.trim_end_matches(".expected.json");
            let data: Vec<String> = names
                .iter()
                .filter(|n| {
                    !n.ends_with(".json")
                        && n.strip_prefix(stem)
                            .is_some_and(|r| r.starts_with('.') && r.matches('.').count() <= 2)
                })
                .map(|n| dir.join(n).to_string_lossy().into_owned())
                .collect();
            let expected: Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap();
            let bins: Vec<String> = expected["m_values"]
                .as_array()
                .map_or(vec!["15".into()], |a| {
                    a.iter().map(|v| v.to_string()).collect()
                });
            let bins = bins.join(",");
            let mut args = vec!["audit", "--json", "--bins", &bins];
            args.extend(data.iter().map(String::as_str));
            let out = calibscope(&args);
            let invalid = expected["input_error"] == json!(true);
            assert_eq!(
                out.status.code(),
                Some(if invalid { 1 } else { 0 }),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            if invalid {
                assert!(!out.stderr.is_empty(), "{name}: input errors go to stderr");
            }
            for m in compare::compare(&stdout_json(&out), &expected) {
                failures.push(format!("{name}: {}: {}", m.path, m.detail));
            }
            count += 1;
        }
    }
    assert_eq!(count, 45);
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(40)].join("\n")
    );
}

#[test]
fn exit_codes_and_messages() {
    let out = calibscope(&["audit"]);
    assert_eq!(out.status.code(), Some(2), "missing file is a usage error");
    let out = calibscope(&["audit", "x.csv", "--bins", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let out = calibscope(&["synth", "--dist", "nope", "--mode", "perfect"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown --dist"));
    let out = calibscope(&["audit", "/nonexistent/preds.csv"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("preds.csv"));
    let bad = shared().join("fixtures/edge/edge_invalid_rowsum_probs.csv");
    let out = calibscope(&["audit", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("row 1: probabilities sum to 1.002"),
        "{stderr}"
    );
    assert!(stderr.contains("pass --logits"), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "no audit printed for an invalid file"
    );
    for command in ["audit", "recalibrate", "flips", "synth"] {
        let out = calibscope(&[command, "--help"]);
        assert_eq!(out.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&out.stdout).contains("Usage"));
    }
}

#[test]
fn standard_input_gives_the_same_audit() {
    let path = shared().join("fixtures/real/digits_rf_probs.csv");
    let from_file = calibscope(&["audit", "--json", path.to_str().unwrap()]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_calibscope"))
        .args(["audit", "--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        &std::fs::read(&path).unwrap(),
    )
    .unwrap();
    let from_stdin = child.wait_with_output().unwrap();
    assert_eq!(from_stdin.status.code(), Some(0));
    let (mut a, mut b) = (stdout_json(&from_file), stdout_json(&from_stdin));
    a["file"] = Value::Null;
    b["file"] = Value::Null;
    assert_eq!(a, b);
    // deterministic output
    assert_eq!(
        from_file.stdout,
        calibscope(&["audit", "--json", path.to_str().unwrap()]).stdout
    );
}

#[test]
fn recalibrate_keeps_every_row_in_order_with_its_id() {
    let dir = std::env::temp_dir().join(format!("calibscope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // a long-format fixture's first model, with its id column, as its own file
    let zoo =
        std::fs::read_to_string(shared().join("fixtures/multi/digits_zoo_probs.csv")).unwrap();
    let mut lines = zoo.lines();
    let header = lines.next().unwrap().replacen("model,", "", 1);
    let rows: Vec<String> = lines
        .filter(|l| l.starts_with("mlp,"))
        .map(|l| l.replacen("mlp,", "", 1))
        .collect();
    let input = dir.join("mlp.csv");
    std::fs::write(&input, format!("{header}\n{}\n", rows.join("\n"))).unwrap();
    for method in ["temperature", "platt", "isotonic"] {
        let out_path = dir.join(format!("{method}.csv"));
        let out = calibscope(&[
            "recalibrate",
            input.to_str().unwrap(),
            "--method",
            method,
            "--out",
            out_path.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{method}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ledger = String::from_utf8_lossy(&out.stderr);
        assert!(ledger.contains("| accuracy |"), "{ledger}");
        let written = std::fs::read_to_string(&out_path).unwrap();
        let mut lines = written.lines();
        assert_eq!(
            lines.next().unwrap(),
            "id,label,split,p_0,p_1,p_2,p_3,p_4,p_5,p_6,p_7,p_8,p_9"
        );
        let body: Vec<&str> = lines.collect();
        assert_eq!(body.len(), rows.len());
        for (i, (line, original)) in body.iter().zip(&rows).enumerate() {
            let fields: Vec<&str> = line.split(',').collect();
            let orig: Vec<&str> = original.split(',').collect();
            assert_eq!(fields[0], orig[0], "row {i}: id kept");
            assert_eq!(fields[1], orig[1], "row {i}: label kept");
            assert!(fields[2] == "calibration" || fields[2] == "evaluation");
            let sum: f64 = fields[3..].iter().map(|v| v.parse::<f64>().unwrap()).sum();
            assert!(
                (sum - 1.0).abs() < 1e-9,
                "row {i}: probabilities sum to {sum}"
            );
        }
        // the written file audits again
        let again = calibscope(&[
            "audit",
            "--json",
            "--no-recalibration",
            out_path.to_str().unwrap(),
        ]);
        assert_eq!(
            again.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&again.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The binned metrics of the fixtures' ranking section.
const BINNED: [&str; 6] = [
    "confece",
    "confce",
    "confce_corr",
    "lince_cw",
    "cwece",
    "rmsce_conf",
];

/// A fixture's `m_values` as a `--bins` argument.
fn bins_arg(expected: &Value) -> String {
    let bins: Vec<String> = expected["m_values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.to_string())
        .collect();
    bins.join(",")
}

/// `calibscope recalibrate --params` writes the fixture's fitted numbers (tau within
/// `tau_tolerance`, Platt's `(a, b)` within theirs, isotonic's knot count) and the CSV's
/// split column marks exactly the fixture's calibration indices.
#[test]
fn recalibrate_params_match_the_fixtures() {
    let dir = std::env::temp_dir().join(format!("calibscope-cli-params-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in [
        "real/breast_cancer_logreg_logit",
        "real/digits_logreg_C1_logits",
    ] {
        let input = shared().join(format!("fixtures/{name}.csv"));
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(shared().join(format!("fixtures/{name}.expected.json")))
                .unwrap(),
        )
        .unwrap();
        let want = &expected["recalibration"];
        for method in ["temperature", "platt", "isotonic"] {
            let (out_path, params_path) = (dir.join("out.csv"), dir.join("params.json"));
            let out = calibscope(&[
                "recalibrate",
                input.to_str().unwrap(),
                "--method",
                method,
                "--out",
                out_path.to_str().unwrap(),
                "--params",
                params_path.to_str().unwrap(),
            ]);
            assert_eq!(out.status.code(), Some(0), "{name} {method}");
            let params: Value =
                serde_json::from_str(&std::fs::read_to_string(&params_path).unwrap()).unwrap();
            assert_eq!(params["method"], method);
            assert_eq!(params["split"]["seed"], 0);
            assert_eq!(params["split"]["f"], 0.5);
            assert_eq!(params["split"]["n_cal"], want["split"]["n_cal"]);
            match method {
                "temperature" => {
                    let t = &want["temperature"];
                    let (got, tau) = (params["tau"].as_f64().unwrap(), t["tau"].as_f64().unwrap());
                    assert!((got - tau).abs() <= t["tau_tolerance"].as_f64().unwrap());
                }
                "platt" => {
                    let fits = params["fits"].as_array().unwrap();
                    let wants = want["platt"]["params"].as_array().unwrap();
                    assert_eq!(fits.len(), wants.len());
                    for (f, w) in fits.iter().zip(wants) {
                        for (key, tol) in [("a", "tolerance_a"), ("b", "tolerance_b")] {
                            let (g, e) = (f[key].as_f64().unwrap(), w[key].as_f64().unwrap());
                            let t = w[tol].as_f64().unwrap().max(1e-12 + 1e-10 * e.abs());
                            assert!((g - e).abs() <= t, "{name} platt {key}: {g} vs {e}");
                        }
                    }
                }
                _ => {
                    let fits = params["fits"].as_array().unwrap();
                    let knots: Vec<Value> = fits
                        .iter()
                        .map(|f| json!(f["x"].as_array().unwrap().len()))
                        .collect();
                    let want_knots = &want["isotonic"]["knots"];
                    match want_knots.as_array() {
                        Some(w) => assert_eq!(&knots, w),
                        None => assert_eq!(&knots[0], want_knots),
                    }
                }
            }
            let csv = std::fs::read_to_string(&out_path).unwrap();
            let cal: Vec<Value> = csv
                .lines()
                .skip(1)
                .enumerate()
                .filter(|(_, l)| l.split(',').nth(1) == Some("calibration"))
                .map(|(i, _)| json!(i))
                .collect();
            assert_eq!(&json!(cal), &want["split"]["calibration_indices"], "{name}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `calibscope flips --json` equals the multi fixtures' ranking section.
#[test]
fn flips_json_matches_the_ranking_fixtures() {
    for name in ["digits_zoo_probs", "digits_mlp_trajectory_logits"] {
        let path = shared().join(format!("fixtures/multi/{name}.csv"));
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expected.json")).unwrap(),
        )
        .unwrap();
        let bins = bins_arg(&expected);
        for metric in BINNED {
            for binning in ["width", "mass"] {
                // the fixtures hold the point rankings; the noise section (its own
                // tests) is left out here: its bootstrap dominates the run time
                let out = calibscope(&[
                    "flips",
                    "--json",
                    "--metric",
                    metric,
                    "--binning",
                    binning,
                    "--bins",
                    &bins,
                    "--bootstrap",
                    "0",
                    path.to_str().unwrap(),
                ]);
                assert_eq!(out.status.code(), Some(0));
                let want = json!({"tolerance": expected["tolerance"], "r": expected["ranking"]["metrics"][metric][binning]});
                let mismatches = compare::compare(&json!({"r": stdout_json(&out)}), &want);
                assert!(
                    mismatches.is_empty(),
                    "{name} {metric} {binning}: {mismatches:?}"
                );
            }
        }
        let text = calibscope(&["flips", path.to_str().unwrap()]);
        assert_eq!(text.status.code(), Some(0));
        assert!(
            String::from_utf8_lossy(&text.stdout).contains("Spearman against classification error")
        );
    }
}

#[test]
fn synth_writes_deterministic_files_that_audit() {
    let a = calibscope(&[
        "synth",
        "--dist",
        "bimodal",
        "--mode",
        "overconf_half",
        "-n",
        "500",
        "--seed",
        "3",
        "--form",
        "binary",
    ]);
    let b = calibscope(&[
        "synth",
        "--dist",
        "bimodal",
        "--mode",
        "overconf_half",
        "-n",
        "500",
        "--seed",
        "3",
        "--form",
        "binary",
    ]);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
    let text = String::from_utf8(a.stdout).unwrap();
    assert!(text.starts_with("label,p\n"));
    assert_eq!(text.lines().count(), 501);
    let path = std::env::temp_dir().join(format!("calibscope-synth-{}.csv", std::process::id()));
    let out = calibscope(&[
        "synth",
        "--dist",
        "uniform",
        "--mode",
        "perfect",
        "-n",
        "2000",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let audit = calibscope(&["audit", "--json", path.to_str().unwrap()]);
    assert_eq!(audit.status.code(), Some(0));
    let doc = stdout_json(&audit);
    assert_eq!(doc["input"]["kind"], "toplabel");
    assert_eq!(doc["input"]["n"], 2000);
    std::fs::remove_file(&path).ok();
}

/// Column mapping flags override detection: a file whose columns have no
/// recognised names is read once they are named.
#[test]
fn mapping_flags_override_detection() {
    let dir = std::env::temp_dir().join(format!("calibscope-map-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let odd = dir.join("odd.csv");
    std::fs::write(
        &odd,
        "truth;cat;dog;bird\n0;0.7;0.2;0.1\n2;0.1;0.3;0.6\n1;0.2;0.5;0.3\n",
    )
    .unwrap();
    let plain = calibscope(&["audit", "--json", odd.to_str().unwrap()]);
    assert_eq!(
        plain.status.code(),
        Some(1),
        "no label column is recognised"
    );
    let mapped = calibscope(&[
        "audit",
        "--json",
        "--label",
        "truth",
        "--scores",
        "cat,dog,bird",
        "--delimiter",
        ";",
        "--class-names",
        "cat,dog,bird",
        odd.to_str().unwrap(),
    ]);
    assert_eq!(
        mapped.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&mapped.stderr)
    );
    let doc = stdout_json(&mapped);
    assert_eq!(doc["input"]["k"], 3);
    assert_eq!(doc["binning_free"]["accuracy"], 1.0);
    let top = dir.join("top.csv");
    std::fs::write(&top, "y,guess,certainty\n0,0,0.9\n1,0,0.6\n1,1,0.8\n").unwrap();
    let out = calibscope(&[
        "audit",
        "--json",
        "--label",
        "y",
        "--top-label",
        "guess,certainty",
        top.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout_json(&out)["input"]["kind"], "toplabel");
    let bad = calibscope(&["audit", "--top-label", "guess", top.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// `calibscope flips --metric all` gives every metric's tables, the same as the app's
/// matrices: the binned metrics equal the fixtures' ranking section, the references'
/// Spearman against the error equals `binning_free_spearman_vs_error`, and the text
/// lists each metric's flipped pairs.
#[test]
fn flips_all_metrics_match_the_ranking_fixtures() {
    let path = shared().join("fixtures/multi/digits_zoo_probs.csv");
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(path.with_extension("expected.json")).unwrap(),
    )
    .unwrap();
    let bins = bins_arg(&expected);
    let file = path.to_str().unwrap();
    for binning in ["width", "mass"] {
        // 100 replicates: every metric's noise section is computed, at a tenth of
        // the default's time
        let out = calibscope(&[
            "flips",
            "--json",
            "--metric",
            "all",
            "--binning",
            binning,
            "--bins",
            &bins,
            "--bootstrap",
            "100",
            file,
        ]);
        assert_eq!(out.status.code(), Some(0));
        let doc = stdout_json(&out);
        for metric in BINNED {
            let want = json!({"tolerance": expected["tolerance"], "r": expected["ranking"]["metrics"][metric][binning]});
            let mismatches = compare::compare(&json!({"r": doc["metrics"][metric]}), &want);
            assert!(mismatches.is_empty(), "{metric} {binning}: {mismatches:?}");
        }
        for key in ["brier_over_k", "l_conf"] {
            let got = doc["metrics"][key]["spearman_vs_error"]["5"]
                .as_f64()
                .unwrap();
            let want = expected["ranking"]["binning_free_spearman_vs_error"][key]
                .as_f64()
                .unwrap();
            assert!((got - want).abs() < 1e-12, "{key}: {got} vs {want}");
            assert!(doc["metrics"][key]["flip_pairs"]
                .as_object()
                .unwrap()
                .is_empty());
        }
    }
    // the text: a section per metric, bin counts clipped to n, the flipped pairs
    let text = calibscope(&["flips", "--metric", "all", file]);
    assert_eq!(text.status.code(), Some(0));
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("bin counts compared: 5, 20, 450"));
    for metric in [
        "confece",
        "confce_corr",
        "lince_cw",
        "error",
        "brier_over_k",
        "l_conf",
    ] {
        assert!(text.contains(&format!("\n## {metric}\n")), "{metric}");
    }
    let pairs = expected["ranking"]["metrics"]["confece"]["mass"]["flip_pairs"]["5|450"]
        .as_array()
        .unwrap();
    let line: Vec<String> = pairs
        .iter()
        .map(|p| format!("{} ↔ {}", p[0].as_str().unwrap(), p[1].as_str().unwrap()))
        .collect();
    let section = &text[text.find("## confece\n").unwrap()..text.find("## confce\n").unwrap()];
    assert!(
        section.contains(&format!(
            "flips between m = 5 and m = 450: {}\n",
            line.join(", ")
        )),
        "{section}"
    );
    // top-label input: the classwise metrics say why they are missing
    let toplabel = shared().join("fixtures/synthetic/syn_uniform_perfect_n2000_s1_toplabel.csv");
    let out = calibscope(&["flips", "--metric", "all", toplabel.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("not computable: lince_cw needs full probability vectors"));
    assert!(text.contains("undefined (fewer than 3 models)"));
    let out = calibscope(&["flips", "--metric", "lince_cw", toplabel.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
}
