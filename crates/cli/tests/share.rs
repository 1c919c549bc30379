//! Sharing from the terminal: `audit --record` then `verify` (honest, tampered and
//! other data), and the HTML report's safety (`audit --html`).

use crate::support;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;
use support::{calibscope, shared};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("calibscope-share-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_cli_record_verifies_against_its_file_and_flags_tampering() {
    let dir = tmp("record");
    let data = shared().join("fixtures/real/breast_cancer_gnb_p.csv");
    let data = data.to_str().unwrap();
    let rec = dir.join("r.json");
    let out = calibscope(&[
        "audit",
        "--bins",
        "15,20",
        "--record",
        rec.to_str().unwrap(),
        data,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(out.stdout.is_empty(), "--record alone prints nothing");
    let record: Value = serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    assert_eq!(record["schema"], "calibscope-record/1");
    assert_eq!(record["inputs"][0]["name"], "breast_cancer_gnb_p.csv");
    assert_eq!(
        record["inputs"][0]["size"],
        std::fs::metadata(data).unwrap().len()
    );
    // the record's audit is the --json document
    let json = calibscope(&["audit", "--json", "--bins", "15,20", data]);
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(record["audits"][0], doc);

    // the same file, under another path, verifies
    let copy = dir.join("copy.csv");
    std::fs::copy(data, &copy).unwrap();
    let ok = calibscope(&["verify", rec.to_str().unwrap(), copy.to_str().unwrap()]);
    let report = text(&ok);
    assert_eq!(ok.status.code(), Some(0), "{report}");
    assert!(report.contains("✓ audits.0.binning_free.accuracy = "));
    assert!(!report.contains('✗'));

    // a tampered number is flagged with both values
    let mut tampered = record.clone();
    let real = tampered["audits"][0]["readings"]["confidence"]["mass"]["20"]["ece"].clone();
    tampered["audits"][0]["readings"]["confidence"]["mass"]["20"]["ece"] = 0.5.into();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, serde_json::to_string(&tampered).unwrap()).unwrap();
    let out = calibscope(&["verify", "--failures-only", bad.to_str().unwrap(), data]);
    let report = text(&out);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(
        report.contains(&format!(
            "✗ audits.0.readings.confidence.mass.20.ece: recorded 0.5, recomputed {real}"
        )),
        "{report}"
    );
    assert_eq!(report.matches('✗').count(), 1, "{report}");

    // a table of an app view the CLI does not compute is named, not failed
    let mut app = record.clone();
    app["tables"]["a_future_view"] = serde_json::json!({"spearman": [[1.0]]});
    let app_path = dir.join("app.json");
    std::fs::write(&app_path, serde_json::to_string(&app).unwrap()).unwrap();
    let out = calibscope(&[
        "verify",
        "--failures-only",
        app_path.to_str().unwrap(),
        data,
    ]);
    let report = text(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(
        report.contains("· tables.a_future_view: not recomputed by the CLI"),
        "{report}"
    );

    // other data: the fingerprint differs
    let other = shared().join("fixtures/real/breast_cancer_rf_p.csv");
    let out = calibscope(&[
        "verify",
        "--failures-only",
        rec.to_str().unwrap(),
        other.to_str().unwrap(),
    ]);
    let report = text(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(report.contains("✗ inputs.0.sha256: recorded"), "{report}");

    // standard input cannot be fingerprinted
    let out = calibscope(&["audit", "--record", rec.to_str().unwrap(), "-"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_multi_model_record_verifies() {
    let dir = tmp("multi");
    let real = shared().join("fixtures/real");
    let a = real.join("breast_cancer_gnb_p.csv");
    let b = real.join("breast_cancer_rf_p.csv");
    let rec = dir.join("r.json");
    let files = [a.to_str().unwrap(), b.to_str().unwrap()];
    let out = calibscope(&[
        "audit",
        "--record",
        rec.to_str().unwrap(),
        files[0],
        files[1],
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let ok = calibscope(&["verify", rec.to_str().unwrap(), files[0], files[1]]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    // swapped files are other data
    let swapped = calibscope(&["verify", rec.to_str().unwrap(), files[1], files[0]]);
    assert_eq!(swapped.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn two_models_report_csv_and_summary_hold_the_ranking_flips() {
    let dir = tmp("flips");
    let real = shared().join("fixtures/real");
    let a = real.join("breast_cancer_gnb_p.csv");
    let b = real.join("breast_cancer_rf_p.csv");
    let (rec, html, csv) = (dir.join("r.json"), dir.join("r.html"), dir.join("csv"));
    let out = calibscope(&[
        "audit",
        "--markdown",
        "--record",
        rec.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--flips-m",
        "20",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let record: Value = serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let flips = &record["tables"]["flips"];
    assert_eq!(flips["settings"]["m"], 20);
    let report = std::fs::read_to_string(&html).unwrap();
    assert!(report.contains("<h2>Ranking flips</h2>"));
    // the ranking's numbers in the report are the record's
    let mut shown = 0;
    for piece in report.split("data-metric=\"tables.flips.").skip(1) {
        let path = &piece[..piece.find('"').unwrap()];
        let rest = &piece[piece.find("data-value=\"").unwrap() + 12..];
        let value = rest[..rest.find('"').unwrap()].replace("&quot;", "\"");
        let got: Value = serde_json::from_str(&value).unwrap();
        let want = path.split('.').fold(flips, |v, k| match v {
            Value::Array(a) => &a[k.parse::<usize>().unwrap()],
            v => &v[k],
        });
        assert_eq!(&got, want, "{path}");
        shown += 1;
    }
    assert!(shown > 100, "{shown} flips numbers");
    let m_ref = &flips["settings"]["m_ref"];
    for i in 0..2 {
        for key in [
            "ranks.20".into(),
            "values.20".into(),
            format!("ranks.{m_ref}"),
            format!("values.{m_ref}"),
        ] {
            let p = format!("data-metric=\"tables.flips.ranking.{key}.{i}\"");
            assert!(report.contains(&p), "{p}");
        }
    }
    assert_eq!(report.matches("<script").count(), 1);
    let ranking = std::fs::read_to_string(csv.join("flips_ranking.csv")).unwrap();
    assert_eq!(ranking.lines().count(), 3);
    assert!(ranking.starts_with("model,rank at m = 20,value at m = 20,"));
    assert!(csv.join("flips_spearman_confce_corr.csv").exists());
    let md = text(&out);
    assert!(md.contains("## Ranking flips"), "{md}");
    let count = flips["ranking"]["flips"][0][1].as_u64().unwrap();
    assert!(md.contains(&format!("{count} flips between m = ")), "{md}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn csv_and_svg_exports_are_written() {
    let dir = tmp("exports");
    let data = shared().join("fixtures/real/breast_cancer_gnb_p.csv");
    let (csv, svg, html) = (dir.join("csv"), dir.join("svg"), dir.join("r.html"));
    let out = calibscope(&[
        "audit",
        "--csv",
        csv.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        data.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report = std::fs::read_to_string(&html).unwrap();
    for b in ["width", "mass"] {
        let chart = std::fs::read_to_string(svg.join(format!("reliability_confidence_{b}_15.svg")))
            .unwrap();
        assert!(report.contains(&chart), "the {b} chart is the report's");
        let table = std::fs::read_to_string(csv.join(format!("reliability_confidence_{b}_15.csv")))
            .unwrap();
        assert!(table.starts_with("bin,"));
    }
    // the report verifies like the record it holds
    let ok = calibscope(&[
        "verify",
        "--failures-only",
        html.to_str().unwrap(),
        data.to_str().unwrap(),
    ]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    let overview = std::fs::read_to_string(csv.join("overview.csv")).unwrap();
    assert!(overview.starts_with("metric,path,value\naccuracy,binning_free.accuracy,"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn links_of_records_round_trip() {
    let dir = tmp("link");
    let data = shared().join("fixtures/real/breast_cancer_gnb_p.csv");
    let rec = dir.join("r.json");
    let r = rec.to_str().unwrap();
    let out = calibscope(&[
        "audit",
        "--binning",
        "mass",
        "--bins",
        "20",
        "--record",
        r,
        data.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let link = calibscope(&["link", "--from-record", r]);
    assert_eq!(link.status.code(), Some(0), "{}", text(&link));
    let fragment = String::from_utf8(link.stdout).unwrap();
    assert!(fragment.starts_with("#a1="), "{fragment}");
    let url = format!("https://example.invalid/calibscope/{}", fragment.trim());
    let view = calibscope(&["link", &url]);
    assert_eq!(view.status.code(), Some(0), "{}", text(&view));
    let state: Value = serde_json::from_slice(&view.stdout).unwrap();
    let record: Value = serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    assert_eq!(state, record["settings"]);
    assert_eq!(state["m"], 20);
    assert_eq!(state["binning"], "mass");
    assert_eq!(
        state["data"]["files"][0]["sha256"],
        record["inputs"][0]["sha256"]
    );
    // back to a link from the JSON view
    let json = dir.join("view.json");
    std::fs::write(&json, &view.stdout).unwrap();
    let again = calibscope(&["link", "--from-json", json.to_str().unwrap()]);
    assert_eq!(String::from_utf8(again.stdout).unwrap(), fragment);
    // a damaged link is an input error with its reason
    let bad = calibscope(&["link", "#a1=%%%"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad).contains("not base64url"), "{}", text(&bad));
    std::fs::remove_dir_all(&dir).ok();
}

/// `--temperature-only`: the temperature section is the full run's, Platt and
/// isotonic say they were not asked for, and the record keeps the choice (its
/// verification recomputes the same section).
#[test]
fn temperature_only_keeps_the_temperature_and_verifies() {
    let dir = tmp("temperature-only");
    let data = shared().join("fixtures/real/digits_logreg_C1_logits.csv");
    let data = data.to_str().unwrap();
    let run = |extra: &[&str]| -> Value {
        let mut args = vec!["audit", "--json", data];
        args.extend_from_slice(extra);
        let out = calibscope(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let full = run(&[]);
    let only = run(&["--temperature-only"]);
    let (f, o) = (&full["recalibration"], &only["recalibration"]);
    assert!(f["temperature"]["tau"].as_f64().is_some());
    assert_eq!(o["temperature"], f["temperature"]);
    assert_eq!(o["split"], f["split"]);
    assert_eq!(o["before"], f["before"]);
    for map in ["platt", "isotonic"] {
        assert!(
            f[map]["undefined"].is_null(),
            "{map} fitted in the full run"
        );
        assert_eq!(
            o[map]["undefined"],
            "not asked for (temperature scaling only)"
        );
    }
    let conflict = calibscope(&["audit", data, "--temperature-only", "--no-recalibration"]);
    assert_eq!(conflict.status.code(), Some(2), "{}", text(&conflict));

    let rec = dir.join("r.json");
    let out = calibscope(&[
        "audit",
        "--temperature-only",
        "--record",
        rec.to_str().unwrap(),
        data,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let record: Value = serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    assert_eq!(
        record["options"]["recalibration"]["platt_and_isotonic"],
        false
    );
    assert_eq!(record["audits"][0]["recalibration"], only["recalibration"]);
    let ok = calibscope(&["verify", rec.to_str().unwrap(), data]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    assert!(!text(&ok).contains('✗'));
}

/// The record's `--flips-*` options: a bin count of 0 and an unknown metric are
/// usage errors that say what to give, before anything is written.
#[test]
fn bad_flips_options_are_usage_errors() {
    let dir = tmp("bad-flips");
    let data = shared().join("fixtures/multi/digits_zoo_probs.csv");
    let rec = dir.join("r.json");
    for (extra, says) in [
        (vec!["--flips-m", "0"], "at least 1"),
        (vec!["--flips-ref", "0"], "at least 1"),
        (vec!["--flips-bins", "0,5"], "at least 1"),
        (
            vec!["--flips-metric", "nope"],
            "choose one of confece, confce, confce_corr",
        ),
    ] {
        let mut args = vec![
            "audit",
            data.to_str().unwrap(),
            "--record",
            rec.to_str().unwrap(),
        ];
        args.extend_from_slice(&extra);
        let out = calibscope(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", text(&out));
        assert!(text(&out).contains(says), "{extra:?}: {}", text(&out));
        assert!(!rec.exists(), "{extra:?} wrote a record");
    }
}

/// `audit --methods`: the methods asked for are fitted on the same split, compared,
/// written in the record and its HTML report, and verified; `all` is every method
/// the data allows; a multiclass map of binary data says why it is undefined.
#[test]
fn more_methods_are_recorded_reported_and_verified() {
    let dir = tmp("more-methods");
    let digits = shared().join("fixtures/real/digits_logreg_C1_logits.csv");
    let (rec, html) = (dir.join("r.json"), dir.join("r.html"));
    let out = calibscope(&[
        "audit",
        "--methods",
        "all",
        "--record",
        rec.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        digits.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let record: Value = serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let every = [
        "beta",
        "histogram",
        "venn_abers",
        "vector",
        "matrix",
        "dirichlet",
    ];
    assert_eq!(
        record["options"]["recalibration"]["more_methods"],
        serde_json::json!(every)
    );
    let section = &record["audits"][0]["recalibration"];
    for m in every {
        assert!(section[m]["after"]["nll"].is_number(), "{m}");
    }
    assert_eq!(section["comparison"]["sets"].as_array().unwrap().len(), 10);
    assert!(section["dirichlet"]["odir_search"].is_object());
    let report = std::fs::read_to_string(&html).unwrap();
    for title in ["after Venn–Abers", "after Dirichlet", "best by NLL"] {
        assert!(report.contains(title), "the report shows {title}");
    }
    let ok = calibscope(&["verify", rec.to_str().unwrap(), digits.to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    assert!(!text(&ok).contains('✗'));

    // binary data: `all` is the three probability maps; a multiclass map asked by
    // name is undefined, with the reason
    let binary = shared().join("fixtures/real/breast_cancer_logreg_logit.csv");
    let run = |methods: &str| -> Value {
        let out = calibscope(&[
            "audit",
            "--json",
            "--methods",
            methods,
            binary.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let all = run("all");
    let section = &all["recalibration"];
    assert!(section["venn_abers"]["after"]["nll"].is_number());
    assert!(section.get("vector").is_none());
    assert_eq!(section["comparison"]["sets"].as_array().unwrap().len(), 7);
    let asked = run("beta,dirichlet");
    assert!(asked["recalibration"]["dirichlet"]["undefined"]
        .as_str()
        .unwrap()
        .contains("three classes or more"));
    assert!(asked["recalibration"].get("histogram").is_none());
    let conflict = calibscope(&[
        "audit",
        "--methods",
        "beta",
        "--temperature-only",
        binary.to_str().unwrap(),
    ]);
    assert_eq!(conflict.status.code(), Some(2), "{}", text(&conflict));
    let unknown = calibscope(&[
        "audit",
        "--methods",
        "beta,platypus",
        binary.to_str().unwrap(),
    ]);
    assert_eq!(unknown.status.code(), Some(2), "{}", text(&unknown));
    assert!(text(&unknown).contains("\"platypus\" is not one of beta, histogram, venn-abers"));
}
