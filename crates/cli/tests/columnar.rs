//! Parquet and Arrow IPC files (crates/io/tests/data/columnar/, written by pandas,
//! polars and pyarrow through bench/columnar_fixtures.sh) audit to the same numbers
//! as the canonical CSV of the same predictions: the whole audit JSON is equal but
//! for the input's format. A damaged file exits with a located, actionable message.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../io/tests")
        .join(dir)
        .join(name)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calibscope"))
        .args(args)
        .output()
        .expect("runs")
}

/// `calibscope audit --json FILE --bootstrap 200` without the file's name and format.
fn audit(file: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "audit",
        "--json",
        file.to_str().unwrap(),
        "--bootstrap",
        "200",
    ];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v.as_object_mut().unwrap().remove("file");
    v["input"].as_object_mut().unwrap().remove("format");
    v
}

fn assert_same(got: &Value, want: &Value, what: &str) {
    if got != want {
        let (g, w) = (got.as_object().unwrap(), want.as_object().unwrap());
        let differ: Vec<&String> = g.keys().filter(|key| g.get(*key) != w.get(*key)).collect();
        panic!("{what}: sections {differ:?} differ");
    }
}

#[test]
fn parquet_and_feather_audit_as_the_canonical_csv() {
    let want = audit(&data("data/sklearn", "digits_canonical.csv"), &[]);
    for name in [
        "digits_pandas.parquet",
        "digits_zstd.parquet",
        "digits_row_groups.parquet",
        "digits_polars_list.parquet",
        "digits.feather",
        "digits.arrows",
    ] {
        assert_same(&audit(&data("data/columnar", name), &[]), &want, name);
    }
    let out = run(&[
        "audit",
        "--json",
        data("data/columnar", "digits_pandas.parquet")
            .to_str()
            .unwrap(),
        "--bootstrap",
        "0",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["input"]["format"], "parquet");
    // a struct field named on the command line
    let got = audit(
        &data("data/columnar", "digits_struct.parquet"),
        &["--label", "target", "--scores", "model_response.scores"],
    );
    assert_eq!(got["input"]["n"], want["input"]["n"]);
    assert_eq!(got["readings"], want["readings"]);
}

#[test]
fn a_long_parquet_is_a_model_comparison() {
    let out = run(&[
        "audit",
        "--json",
        data("data/columnar", "digits_long.parquet")
            .to_str()
            .unwrap(),
        "--bootstrap",
        "0",
        "--no-recalibration",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&String> = v["models"].as_object().expect("models").keys().collect();
    assert_eq!(names, ["lr", "lr_sharp"]);
    assert_eq!(v["input"]["format"], "parquet");
    assert_eq!(v["input"]["models"], serde_json::json!(["lr", "lr_sharp"]));
}

#[test]
fn damaged_files_exit_with_a_located_message() {
    for (name, says) in [
        ("parquet_truncated.parquet", "[columnar_bad]"),
        ("parquet_brotli.parquet", "compression='zstd'"),
        ("parquet_ragged_list.parquet", "row 7, column \"probs\""),
    ] {
        let out = run(&["audit", data("corpus/bad", name).to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with(name), "{err}");
        assert!(err.contains(says), "{name}: {err}");
    }
}

/// `calibscope aggregate` reads Parquet like CSV: the same aggregate, model name
/// aside; and an aggregate table written as Parquet opens in `calibscope audit`
/// (the engines' test, sql_engines.rs, checks its values against the rows').
#[test]
fn aggregates_of_parquet_equal_those_of_csv() {
    let agg = |file: PathBuf| -> Value {
        let out = run(&["aggregate", file.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["models"][0]["model"] = Value::Null;
        v
    };
    assert_eq!(
        agg(data("data/columnar", "digits_pandas.parquet")),
        agg(data("data/sklearn", "digits_canonical.csv"))
    );
}

/// An aggregate sums each model on its own: models of a long-format file scored on
/// different rows (different samples, counts and labels) aggregate, each as the
/// file of its own rows would, where `calibscope audit` of the same file refuses
/// to compare them.
#[test]
fn models_scored_on_different_rows_aggregate_each_on_its_own() {
    let dir = std::env::temp_dir().join(format!("calibscope_unaligned_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut long, mut a, mut b) = (
        String::from("model,label,p\n"),
        String::from("label,p\n"),
        String::from("label,p\n"),
    );
    // a scores samples 0..300, b samples 100..500, interleaved as a log writes them
    for i in 0..500u64 {
        let u = ((i * 7919) % 1000) as f64 / 1000.0;
        let label = u64::from((i * 104_729) % 1000 < (u * 1000.0) as u64);
        if i < 300 {
            long.push_str(&format!("a,{label},{u}\n"));
            a.push_str(&format!("{label},{u}\n"));
        }
        if i >= 100 {
            let v = (u * 0.8 + 0.1).min(1.0);
            long.push_str(&format!("b,{label},{v}\n"));
            b.push_str(&format!("{label},{v}\n"));
        }
    }
    let file = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let (long, a, b) = (
        file("long.csv", &long),
        file("a.csv", &a),
        file("b.csv", &b),
    );
    let agg = |p: &PathBuf| -> Value {
        let out = run(&["aggregate", p.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let both = agg(&long);
    let models = both["models"].as_array().unwrap();
    assert_eq!(models.len(), 2);
    for (i, own) in [agg(&a), agg(&b)].into_iter().enumerate() {
        let mut mine = models[i].clone();
        let mut own = own["models"][0].clone();
        mine["model"] = Value::Null;
        own["model"] = Value::Null;
        assert_eq!(mine, own, "model {i}");
    }
    let refused = run(&["audit", long.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        refused.status.code(),
        Some(1),
        "the audit compares models, which needs the same rows"
    );
}
