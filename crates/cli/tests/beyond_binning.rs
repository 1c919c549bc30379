//! `calibscope audit --bootstrap B --seed S --alpha A` and `flips` with the same
//! flags: the binning-free values, intervals and verdict in the JSON, the flags'
//! errors, the same seed giving the same intervals, a record that verifies and a
//! tampered interval caught by `verify`, and the two new SVG diagrams.

use crate::support;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;
use support::{calibscope, shared};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("calibscope-beyond-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn json_of(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn golden(file: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../audit/tests/golden")
        .join(file)
        .display()
        .to_string()
}

#[test]
fn bad_flag_values_are_usage_errors_with_a_clear_message() {
    let data = golden("breast_cancer_logreg_logit.csv");
    for (flag, value, says) in [
        ("--alpha", "2", "not strictly between 0 and 1"),
        ("--alpha", "0", "not strictly between 0 and 1"),
        ("--alpha", "x", "not a number"),
        ("--bootstrap", "many", "not a whole number"),
        ("--bootstrap", "1000001", "at most 100000"),
        ("--seed", "x3", "--seed"),
    ] {
        for command in ["audit", "flips"] {
            let out = calibscope(&[command, &data, flag, value]);
            assert_eq!(out.status.code(), Some(2), "{command} {flag} {value}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(says), "{command} {flag} {value}: {err}");
        }
    }
}

#[test]
fn audit_json_holds_section_8_and_the_seed_fixes_the_intervals() {
    let data = golden("breast_cancer_logreg_logit.csv");
    let run = |extra: &[&str]| {
        let mut args = vec!["audit", "--json", "--no-recalibration", data.as_str()];
        args.extend_from_slice(extra);
        json_of(&calibscope(&args))
    };
    let doc = run(&[]);
    assert_eq!(
        doc["bootstrap"],
        serde_json::json!({"replicates": 1000, "seed": 0, "alpha": 0.05})
    );
    let conf = &doc["readings"]["confidence"];
    for key in ["smece", "smece_sigma", "caldist", "d"] {
        assert!(conf[key].is_number(), "{key}");
    }
    for key in ["smece", "smece_sigma", "caldist"] {
        assert_eq!(doc["binning_free"][key], conf[key], "{key}");
    }
    assert!(conf["width"]["15"]["ece_l2_debiased"].is_number());
    assert!(conf["ece_sweep"]["b"].is_u64());
    assert!(conf["tests"]["cumulative"]["p_ks"].is_number());
    assert!(conf["intervals"]["mass.15.ece"].is_array());
    assert!(doc["verdict"]["text"].as_str().unwrap().contains("n = 171"));
    // same seed, same threads or not: same document; another seed: other intervals
    assert_eq!(run(&["--threads", "1"]), doc);
    let other = run(&["--seed", "5", "--bootstrap", "300", "--alpha", "0.1"]);
    assert_eq!(other["bootstrap"]["replicates"], 300);
    assert_ne!(
        other["readings"]["confidence"]["intervals"],
        conf["intervals"]
    );
    assert_eq!(other["readings"]["confidence"]["smece"], conf["smece"]);
    assert!(other["verdict"]["text"]
        .as_str()
        .unwrap()
        .contains("90 % CI"));
    let none = run(&["--bootstrap", "0"]);
    assert!(none["verdict"].is_null() && none["readings"]["confidence"]["intervals"].is_null());
}

#[test]
fn a_record_verifies_a_tampered_interval_fails_and_the_svgs_are_written() {
    let dir = tmp("record");
    let data = golden("digits_zoo3_head60_probs.csv");
    let record = dir.join("r.json");
    let svg = dir.join("svg");
    let out = calibscope(&[
        "audit",
        &data,
        "--bootstrap",
        "200",
        "--record",
        record.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
        "--html",
        dir.join("r.html").to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ok = calibscope(&["verify", "--failures-only", record.to_str().unwrap(), &data]);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
    let mut r: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert!(r["tables"]["flips"]["noise"]["pair_order"].is_object());
    let model = r["audits"][0]["input"]["models"][0]
        .as_str()
        .unwrap()
        .to_string();
    let d = &mut r["audits"][0]["models"][&model]["readings"]["confidence"]["intervals"]["d"][1];
    *d = serde_json::json!(d.as_f64().unwrap() + 0.01);
    let tampered = dir.join("t.json");
    std::fs::write(&tampered, serde_json::to_string(&r).unwrap()).unwrap();
    let bad = calibscope(&[
        "verify",
        "--failures-only",
        tampered.to_str().unwrap(),
        &data,
    ]);
    assert_eq!(bad.status.code(), Some(1));
    let text = String::from_utf8_lossy(&bad.stdout);
    assert!(
        text.contains(&format!(
            "audits.0.models.{model}.readings.confidence.intervals.d.1"
        )),
        "{text}"
    );
    let names: Vec<String> = std::fs::read_dir(&svg)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for kind in ["smooth", "cumulative"] {
        let n = names
            .iter()
            .filter(|f| f.ends_with(&format!("_{kind}_confidence.svg")))
            .count();
        assert_eq!(n, 3, "{kind}: {names:?}");
    }
    let html = std::fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(html.contains("how sure are we") && html.contains("σ* ="));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn flips_reports_each_flip_against_noise() {
    let file = shared().join("fixtures/multi/digits_zoo_probs.csv");
    let file = file.to_str().unwrap();
    let args = [
        "flips",
        "--metric",
        "confece",
        "--bins",
        "2,5,20",
        "--bootstrap",
        "200",
        file,
    ];
    let mut json_args = args.to_vec();
    json_args.insert(1, "--json");
    let doc = json_of(&calibscope(&json_args));
    let noise = &doc["noise"];
    assert_eq!(noise["stable_share"], 0.975);
    assert!(noise["pair_order"]["5"].is_array());
    let flips: usize = doc["flip_pairs"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_array().unwrap().len())
        .sum();
    let marked: usize = noise["flips"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_array().unwrap().len())
        .sum();
    assert_eq!(flips, marked);
    let text = calibscope(&args);
    assert_eq!(text.status.code(), Some(0));
    let text = String::from_utf8_lossy(&text.stdout);
    if flips > 0 {
        assert!(
            text.contains("flips against noise") && text.contains("of replicates"),
            "{text}"
        );
    }
}

#[test]
fn the_markdown_summary_opens_with_the_verdict() {
    let data = golden("breast_cancer_logreg_logit.csv");
    let out = calibscope(&["audit", "--no-recalibration", "--bootstrap", "200", &data]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().find(|l| l.starts_with("**")).unwrap_or("");
    assert!(
        first.contains("n = 171") && first.contains("cumulative-differences test"),
        "{text}"
    );
    let out = calibscope(&["audit", "--bootstrap", "0", &data]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("cumulative-differences test"));
}
