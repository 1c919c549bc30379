//! The aggregation query on a real engine (issue 31). Runs only with
//! `CALIBSCOPE_SQL_ENGINES=1` (it installs DuckDB from PyPI into a throwaway virtual
//! environment, bench/sql_engines.sh); with the variable set, a missing Python, pip
//! or engine FAILS the test. For every CSV fixture, `calibscope audit` of the
//! engine's result must give every value of `calibscope audit` of the file: those
//! marked exact within 1e-12 relative (plus 1e-14 absolute; the gain
//! `(cwA - acc)/(1 - min)` within its conditioning, 1e-12 / (1 - acc)), those with a
//! bound within it. DuckDB also queries each file converted to Parquet and writes
//! its result as Parquet, which `calibscope audit` opens as it is. Also run without
//! an engine: `calibscope aggregate` of each file through the same comparison.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const BINS: &str = "1,2,15,16,100,1024";

fn cli() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_calibscope"))
}

fn run_json(args: &[&str]) -> Value {
    let out = Command::new(cli())
        .args(args)
        .output()
        .expect("run calibscope");
    assert!(
        out.status.success(),
        "calibscope {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn csv_fixtures() -> Vec<PathBuf> {
    let root = calibscope_test_support::fixtures();
    let mut out = Vec::new();
    for dir in ["real", "synthetic", "edge", "multi"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if name.ends_with(".csv") && !name.contains("invalid") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 30, "only {} CSV fixtures", out.len());
    out
}

/// `doc` at `path` (`a.b[2].c`), or None.
fn lookup<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = doc;
    for part in path.split('.') {
        let (key, index) = match part.find('[') {
            Some(i) => (
                &part[..i],
                part[i + 1..part.len() - 1].parse::<usize>().ok(),
            ),
            None => (part, None),
        };
        v = v.get(key)?;
        if let Some(i) = index {
            v = v.get(i)?;
        }
    }
    Some(v)
}

/// Compares an aggregate's audit with the file's; returns (compared, problems).
fn compare(agg: &Value, file_doc: &Value, what: &str) -> (usize, Vec<String>) {
    let mut problems = Vec::new();
    let mut compared = 0;
    let models = agg["models"].as_array().expect("models");
    let multi = file_doc["models"].is_object();
    for m in models {
        let name = m["model"].as_str().unwrap();
        let base = if multi {
            &file_doc["models"][name]
        } else {
            file_doc
        };
        assert!(
            !base.is_null(),
            "{what}: model {name} not in the file's audit"
        );
        for v in m["values"].as_array().unwrap() {
            let path = v["path"].as_str().unwrap();
            let Some(want) = lookup(base, path) else {
                if !multi {
                    problems.push(format!("{what} {name} {path}: not in the file's audit"));
                }
                continue;
            };
            compared += 1;
            let (got, want) = (v["value"].as_f64(), want.as_f64());
            let ok = match (got, want, v["bound"].as_f64()) {
                (Some(a), Some(b), Some(bound)) => (a - b).abs() <= bound * (1.0 + 1e-9) + 1e-12,
                (Some(a), Some(b), None) => {
                    let tol = if path.ends_with(".gain") {
                        let acc = lookup(base, "beyond_ece.acc")
                            .and_then(Value::as_f64)
                            .unwrap_or(0.0);
                        1e-12 / (1.0 - acc).max(1e-300) * 4.0
                    } else {
                        1e-12 * a.abs().max(b.abs()) + 1e-14
                    };
                    (a - b).abs() <= tol
                }
                (None, None, _) => true,
                _ => false,
            };
            if !ok {
                problems.push(format!(
                    "{what} {name} {path}: aggregate {got:?} vs file {want:?} (bound {})",
                    v["bound"]
                ));
            }
        }
    }
    (compared, problems)
}

fn file_audit(file: &Path) -> Value {
    run_json(&[
        "audit",
        file.to_str().unwrap(),
        "--json",
        "--bootstrap",
        "0",
        "--no-recalibration",
        "--bins",
        BINS,
    ])
}

fn agg_audit(agg: &Path) -> Value {
    let v = run_json(&["audit", agg.to_str().unwrap(), "--json", "--bins", BINS]);
    assert_eq!(
        v["format"],
        "calibscope-bins-audit/1",
        "{}: not read as an aggregate",
        agg.display()
    );
    v
}

#[test]
fn calibscope_aggregate_of_each_fixture_audits_like_the_file() {
    let dir = std::env::temp_dir().join(format!("calibscope_agg_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut compared, mut problems) = (0, Vec::new());
    for file in csv_fixtures() {
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        for (form, ext) in [(None, "json"), (Some("--csv"), "csv")] {
            let out = dir.join(format!("{stem}.agg.{ext}"));
            let mut args = vec![
                "aggregate",
                file.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ];
            args.extend(form);
            let status = Command::new(cli()).args(&args).status().unwrap();
            assert!(status.success(), "aggregate {}", file.display());
            let (c, p) = compare(
                &agg_audit(&out),
                &file_audit(&file),
                &format!("{stem}.{ext}"),
            );
            compared += c;
            problems.extend(p);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(compared > 5000, "only {compared} values compared");
    eprintln!("{compared} values compared");
}

/// `CALIBSCOPE_SQL_ENGINES`: `1` (DuckDB) or a list, e.g. `duckdb,datafusion`.
#[test]
fn engines_run_the_query_and_their_results_audit_like_the_file() {
    let engines = match std::env::var("CALIBSCOPE_SQL_ENGINES").as_deref() {
        Ok("1") => "duckdb".to_string(),
        Ok(list) if !list.is_empty() => list.to_string(),
        _ => {
            eprintln!("not run: set CALIBSCOPE_SQL_ENGINES=1 (DuckDB) or duckdb,datafusion");
            return;
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::env::temp_dir().join("calibscope_sql_engines");
    let files = csv_fixtures();
    let status = Command::new("bash")
        .arg(root.join("bench/sql_engines.sh"))
        .arg(&out)
        .args(&files)
        .env("CALIBSCOPE_CLI", cli())
        .env("ENGINES", &engines)
        .status()
        .expect("bash");
    assert!(
        status.success(),
        "bench/sql_engines.sh failed (is python3 with venv and pip available?)"
    );
    let (mut compared, mut problems) = (0, Vec::new());
    // DuckDB also runs the query over the file as Parquet and writes Parquet
    let mut results: Vec<(&str, &str)> = engines.split(',').map(|e| (e, "csv")).collect();
    if results.iter().any(|(e, _)| *e == "duckdb") {
        results.push(("duckdb-parquet", "parquet"));
    }
    for (engine, ext) in results {
        for file in &files {
            let stem = file.file_stem().unwrap().to_string_lossy().to_string();
            let result = out.join(format!("{stem}.{engine}.{ext}"));
            let (c, p) = compare(
                &agg_audit(&result),
                &file_audit(file),
                &format!("{engine} {stem}"),
            );
            compared += c;
            problems.extend(p);
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(compared > 2000, "only {compared} values compared");
    eprintln!(
        "{engines}: {compared} values compared on {} files",
        files.len()
    );
}
