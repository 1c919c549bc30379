//! Language-model evaluation files through the CLI: an lm-evaluation-harness log
//! whose questions have 3 to 5 choices, a verbalised-confidence table with
//! abstentions, and a HELM per_instance_stats.json. The Markdown audit prints what
//! the JSON holds: why there are no classwise readings, the coverage and the area
//! under the risk–coverage curve; HELM reads as its plain CSV.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../io/tests/data")
        .join(rel)
}

fn calibscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_calibscope"))
        .args(args)
        .output()
        .expect("runs")
}

fn run(args: &[&str]) -> String {
    let out = calibscope(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn audit_json(file: &Path) -> Value {
    serde_json::from_str(&run(&[
        "audit",
        "--json",
        "--no-recalibration",
        file.to_str().unwrap(),
    ]))
    .unwrap()
}

#[test]
fn a_ragged_log_says_why_no_classwise_readings() {
    let file = data("lm_eval/samples_arc_like.jsonl");
    let doc = audit_json(&file);
    let why = doc["input"]["classwise_unavailable"].as_str().unwrap();
    let md = run(&["audit", "--no-recalibration", file.to_str().unwrap()]);
    assert!(md.contains(why), "{md}");
    assert!(!md.contains("LinCE^cw"), "{md}");
}

#[test]
fn a_ragged_log_is_not_fitted_by_maps_that_read_class_positions() {
    let file = data("lm_eval/samples_arc_like.jsonl");
    let dir = std::env::temp_dir().join(format!("calibscope-ragged-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_csv = dir.join("out.csv");
    let (out_s, file_s) = (out_csv.to_str().unwrap(), file.to_str().unwrap());
    let fit = |method| calibscope(&["recalibrate", "--method", method, "--out", out_s, file_s]);
    for method in [
        "platt",
        "isotonic",
        "beta",
        "histogram",
        "venn-abers",
        "vector",
        "matrix",
        "dirichlet",
    ] {
        let out = fit(method);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{method}: {err}");
        assert!(err.contains("3 to 5 choices"), "{method}: {err}");
        assert!(err.contains("--method temperature"), "{method}: {err}");
        assert!(!out_csv.exists(), "{method}: nothing written");
    }
    // temperature scaling keeps each question's own choices: it runs
    let out = fit("temperature");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_verbalised_table_prints_its_coverage_and_risk_coverage_area() {
    let file = data("verbal/verbal_fraction.csv");
    let doc = audit_json(&file);
    assert_eq!(doc["coverage"].as_f64(), Some(46.0 / 60.0));
    let area = &doc["risk_coverage"]["area"];
    assert!(area.is_f64());
    let md = run(&["audit", "--no-recalibration", file.to_str().unwrap()]);
    // rounded by the one number formatter, as every number of the summary
    assert!(
        md.contains("answered 46 of 60 questions (76.67\u{a0}%)"),
        "{md}"
    );
    let shown = calibscope_audit::summary::fmt(area);
    assert_eq!(shown, "0.1308");
    assert!(md.contains(&format!("(AURC): {shown}\n")), "{md}");
}

#[test]
fn helm_per_instance_stats_audit_as_their_plain_csv() {
    let mut a = audit_json(&data("helm/per_instance_stats.json"));
    let mut b = audit_json(&data("helm/per_instance_stats.csv"));
    for d in [&mut a, &mut b] {
        let o = d.as_object_mut().unwrap();
        o.remove("file");
        o["input"].as_object_mut().unwrap().remove("format");
    }
    assert_eq!(a, b);
    assert_eq!(a["input"]["kind"], "toplabel");
}

/// An MMLU-like log is audited per subject by itself; `--group none` turns that
/// off, and the whole-log numbers stay the same.
#[test]
fn an_mmlu_log_is_grouped_by_subject_unless_told_none() {
    let file = data("lm_eval/samples_mmlu_like.jsonl");
    let audit = |extra: &[&str]| -> Value {
        let mut args = vec!["audit", "--json", "--no-recalibration", "--bootstrap", "0"];
        args.extend_from_slice(extra);
        args.push(file.to_str().unwrap());
        serde_json::from_str(&run(&args)).unwrap()
    };
    let grouped = audit(&[]);
    assert_eq!(grouped["groups"]["columns"], serde_json::json!(["subject"]));
    let names: Vec<&str> = grouped["groups"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["anatomy", "astronomy", "college_physics", "virology"]
    );
    for none in ["none", "None"] {
        let plain = audit(&["--group", none]);
        assert!(plain.get("groups").is_none(), "{none}: {plain}");
        assert!(plain.get("worst_group").is_none());
        assert_eq!(plain["reliability"], grouped["reliability"]);
    }
}

/// Two models' ragged logs: the ranking flips and the multi-model audit rank only
/// the metrics that read each question's own choices; the classwise ones say why.
#[test]
fn ragged_logs_of_two_models_rank_no_classwise_metric() {
    let a = data("lm_eval/samples_arc_like.jsonl");
    let dir = std::env::temp_dir().join(format!("calibscope-ragged2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let b = dir.join("samples_arc_like_b.jsonl");
    std::fs::copy(&a, &b).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let flips: Value = serde_json::from_str(&run(&[
        "flips",
        "--metric",
        "all",
        "--bootstrap",
        "0",
        "--json",
        a,
        b,
    ]))
    .unwrap();
    for metric in ["lince_cw", "cwece", "brier_over_k"] {
        let why = flips["metrics"][metric]["unavailable"]
            .as_str()
            .unwrap_or_else(|| panic!("{metric}: {}", flips["metrics"][metric]));
        assert!(why.contains("between 3 and 5 choices"), "{metric}: {why}");
    }
    for metric in ["confece", "confce_corr", "l_conf"] {
        assert!(
            flips["metrics"][metric].get("unavailable").is_none(),
            "{metric}"
        );
        assert!(flips["metrics"][metric]["ranks"].is_object(), "{metric}");
    }
    let out = calibscope(&["flips", "--metric", "lince_cw", "--bootstrap", "0", a, b]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("needs every row to have the same classes"),
        "{err}"
    );
    let audit: Value = serde_json::from_str(&run(&[
        "audit",
        "--json",
        "--bootstrap",
        "0",
        "--no-recalibration",
        a,
        b,
    ]))
    .unwrap();
    let ranked: Vec<&String> = audit["ranking"]["metrics"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(ranked, ["confce", "confce_corr", "confece", "rmsce_conf"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--verbalised CONF,CORRECT` reads a table whose columns are named otherwise to
/// the audit of the detected fixture; with `--group`, each group's answered rows;
/// a wrong name is a usage-level error naming the columns there are, exit code 1.
#[test]
fn verbalised_columns_named_on_the_command_line() {
    let fixture = data("verbal/verbal_fraction.csv");
    let text = std::fs::read_to_string(&fixture).unwrap().replacen(
        "id,question,verbalized_confidence,correct",
        "id,question,stated,graded",
        1,
    );
    let dir = std::env::temp_dir().join(format!("calibscope_verbal_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let renamed = dir.join("verbal_fraction.csv");
    std::fs::write(&renamed, &text).unwrap();
    let renamed = renamed.to_str().unwrap();
    let json = |extra: &[&str]| -> Value {
        let args = [
            &["audit", "--json", "--no-recalibration", "--bootstrap", "40"][..],
            extra,
        ]
        .concat();
        serde_json::from_str(&run(&args)).unwrap()
    };
    let mut a = json(&[fixture.to_str().unwrap()]);
    let mut b = json(&["--verbalised", "stated,graded", renamed]);
    for d in [&mut a, &mut b] {
        d.as_object_mut().unwrap().remove("file");
    }
    assert_eq!(a, b);
    assert_eq!(b["coverage"].as_f64(), Some(46.0 / 60.0));
    // a wrong column name
    let out = calibscope(&["audit", "--verbalised", "stated,grade", renamed]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\"grade\""), "{err}");
    assert!(
        err.contains("(columns: id, question, stated, graded)"),
        "{err}"
    );
    // grouped: the groups' answered rows add up to the answered rows
    let grouped = json(&[
        "--verbalised",
        "stated,graded",
        "--group",
        "id",
        "--group-min-size",
        "1",
        renamed,
    ]);
    let values = grouped["groups"]["values"].as_array().unwrap();
    assert_eq!(values.len(), 46, "one group per answered question id");
    let n: u64 = values.iter().map(|v| v["n"].as_u64().unwrap()).sum();
    assert_eq!(n, 46);
    std::fs::remove_dir_all(&dir).ok();
}
