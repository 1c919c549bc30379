//! `calibscope flips --temperature-first` (seed 000's protocol) on the real-world
//! CIFAR zoos of `shared/real-world` (which must exist: the test fails when it does
//! not): the taus equal those of `calibscope audit`'s recalibration section on the
//! same split, the text names them, the JSON carries them, `audit --record
//! --flips-temperature-first` writes a section that `verify` confirms, and top-label
//! input is refused with a located reason.

use crate::support;

use calibscope_test_support::shared_path;
use serde_json::Value;
use support::{calibscope, shared};

fn zoo(prefix: &str) -> Vec<String> {
    let dir = shared_path("real-world");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(prefix) && name.ends_with(".npz")
        })
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "three {prefix} models in {}", dir.display());
    files
}

fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn taus_equal_the_audits_recalibration_and_are_printed() {
    for prefix in ["cifar10_", "cifar100_"] {
        let files = zoo(prefix);
        // the noise section's bootstrap (its own tests) is left out: on CIFAR-100's
        // classwise readings it takes minutes
        let mut args = vec![
            "flips",
            "--metric",
            "all",
            "--temperature-first",
            "--bootstrap",
            "0",
            "--json",
        ];
        args.extend(files.iter().map(String::as_str));
        let doc = json_of(&calibscope(&args));
        let t = &doc["temperature"];
        assert_eq!(t["n_evaluation"], 5000, "{prefix}");
        assert_eq!(t["n_calibration"], 5000, "{prefix}");
        assert_eq!(doc["m_values"], serde_json::json!([5, 20, 2000]));
        for (i, file) in files.iter().enumerate() {
            // the audit's temperature fit (default split: seed 0, fraction 0.5)
            let audit = json_of(&calibscope(&[
                "audit",
                file,
                "--bins",
                "15",
                "--temperature-only",
                "--json",
            ]));
            let tau = audit["recalibration"]["temperature"]["tau"]
                .as_f64()
                .unwrap_or_else(|| panic!("{file}: {:#}", audit["recalibration"]));
            assert_eq!(
                t["tau"][i].as_f64().unwrap().to_bits(),
                tau.to_bits(),
                "{file}"
            );
        }
        for metric in ["confece", "confce_corr", "lince_cw"] {
            let m = &doc["metrics"][metric];
            assert!(m["spearman"].is_array(), "{prefix} {metric}: {m}");
        }
        // the text names each τ and the evaluation split
        let mut args = vec![
            "flips",
            "--metric",
            "confece",
            "--temperature-first",
            "--bootstrap",
            "0",
        ];
        args.extend(files.iter().map(String::as_str));
        let out = calibscope(&args);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("temperature-scaled first"), "{text}");
        assert!(
            text.contains("every metric on the other 5000 samples"),
            "{text}"
        );
        assert_eq!(
            text.lines().filter(|l| l.starts_with("tau ")).count(),
            3,
            "{text}"
        );
        // without the switch: all 10,000 samples, no τ
        let mut args = vec!["flips", "--metric", "confece", "--bootstrap", "0", "--json"];
        args.extend(files.iter().map(String::as_str));
        let plain = json_of(&calibscope(&args));
        assert!(plain.get("temperature").is_none());
    }
}

#[test]
fn a_record_written_with_the_switch_verifies() {
    let files = zoo("cifar10_");
    let dir = std::env::temp_dir().join(format!("calibscope-tf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join("record.json");
    let record_s = record.to_string_lossy().into_owned();
    let html = dir.join("report.html");
    let html_s = html.to_string_lossy().into_owned();
    let mut args = vec![
        "audit",
        "--bins",
        "15",
        "--temperature-only",
        "--record",
        &record_s,
        "--html",
        &html_s,
        "--flips-metric",
        "lince_cw",
        "--flips-temperature-first",
    ];
    args.extend(files.iter().map(String::as_str));
    let out = calibscope(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let section = &rec["tables"]["flips"];
    assert_eq!(section["settings"]["temperature_first"], true);
    assert_eq!(section["temperature"]["tau"].as_array().unwrap().len(), 3);
    // the report says the models were scaled first, each τ with its path
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("every model temperature-scaled first"),
        "report"
    );
    for i in 0..3 {
        assert!(
            page.contains(&format!("tables.flips.temperature.tau.{i}\"")),
            "τ {i} in the report"
        );
    }
    let mut args = vec!["verify", record_s.as_str()];
    args.extend(files.iter().map(String::as_str));
    let out = calibscope(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("tables.flips.temperature.tau.0"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn top_label_input_is_refused_with_a_reason() {
    let file = shared().join("fixtures/multi/digits_zoo_probs.csv");
    // read as top-label input (predicted class and confidence only): nothing to scale
    let text = std::fs::read_to_string(&file).unwrap();
    let dir = std::env::temp_dir().join(format!("calibscope-tf-top-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rows = text.lines();
    let header: Vec<&str> = rows.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (model, label) = (col("model"), col("label"));
    let probs: Vec<usize> = (0..header.len())
        .filter(|&i| header[i].starts_with("p_") || header[i].starts_with("prob"))
        .collect();
    assert!(!probs.is_empty(), "{header:?}");
    let mut out = String::from("model,label,pred,confidence\n");
    for row in rows {
        let v: Vec<&str> = row.split(',').collect();
        let (best, conf) = probs
            .iter()
            .enumerate()
            .map(|(r, &i)| (r, v[i].parse::<f64>().unwrap()))
            .fold((0, -1.0), |a, b| if b.1 > a.1 { b } else { a });
        out.push_str(&format!("{},{},{best},{conf}\n", v[model], v[label]));
    }
    let path = dir.join("top.csv");
    std::fs::write(&path, out).unwrap();
    let p = path.to_string_lossy().into_owned();
    let out = calibscope(&["flips", "--metric", "confece", "--temperature-first", &p]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot temperature-scale the models first") && err.contains("top-label"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
