//! Files as scikit-learn and pandas users write them (crates/io/tests/data/sklearn/,
//! made by bench/sklearn_fixtures.sh with pandas' `to_csv`): each is read without
//! flags to the same audit as the same numbers written as a canonical
//! `label,p_<class>` CSV — every number bit-identical, since the floats parse to the
//! same bits. A guessed reading that the labels contradict is one question with the
//! flags that would fit, and those flags read it.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../io/tests/data/sklearn")
        .join(name)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calibscope"))
        .args(args)
        .output()
        .expect("runs")
}

/// `calibscope audit --json FILE` without the file's name.
fn audit(file: &Path, extra: &[&str]) -> Value {
    let path = file.to_str().unwrap();
    let mut args = vec!["audit", "--json", path];
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
    v
}

#[test]
fn pandas_and_sklearn_files_read_as_their_canonical_csv() {
    let cases: &[(&str, &str, &str, u64)] = &[
        // (variant, canonical, kind, k)
        (
            "digits_classes.csv",
            "digits_canonical.csv",
            "multiclass",
            10,
        ),
        ("digits_p.csv", "digits_canonical.csv", "multiclass", 10),
        ("digits_proba.csv", "digits_canonical.csv", "multiclass", 10),
        (
            "digits_p_reread.csv",
            "digits_canonical.csv",
            "multiclass",
            10,
        ),
        (
            "digits_canonical.csv.gz",
            "digits_canonical.csv",
            "multiclass",
            10,
        ),
        (
            "digits_canonical.csv.zst",
            "digits_canonical.csv",
            "multiclass",
            10,
        ),
        ("iris_classes.csv", "iris_canonical.csv", "multiclass", 3),
        ("cancer_classes.csv", "cancer_canonical.csv", "binary", 2),
        (
            "cancer_negpos.csv",
            "cancer_negpos_canonical.csv",
            "binary",
            2,
        ),
    ];
    for &(variant, canonical, kind, k) in cases {
        let want = audit(&data(canonical), &[]);
        let got = audit(&data(variant), &[]);
        assert_eq!(got["input"]["kind"], kind, "{variant}");
        assert_eq!(got["input"]["k"], k, "{variant}");
        assert!(got["readings"].is_object() || got["readings"].is_array());
        if got != want {
            let (g, w) = (got.as_object().unwrap(), want.as_object().unwrap());
            let differ: Vec<&String> = g.keys().filter(|key| g[*key] != w[*key]).collect();
            panic!("{variant} vs {canonical}: sections {differ:?} differ");
        }
    }
}

/// `label,p_1..p_10` with labels 0..9: one question, with the flags that read it,
/// and those flags read it as the same numbers under `p_0..p_9`.
#[test]
fn a_contradicted_guess_is_one_question_with_its_flags() {
    let dir = std::env::temp_dir().join(format!("calibscope_sklearn_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let canonical = std::fs::read_to_string(data("digits_canonical.csv")).unwrap();
    let (header, body) = canonical.split_once('\n').unwrap();
    assert!(header.starts_with("label,p_0,"));
    let shifted: Vec<String> = (1..=10).map(|i| format!("p_{i}")).collect();
    let file = dir.join("one_based.csv");
    std::fs::write(&file, format!("label,{}\n{body}", shifted.join(","))).unwrap();

    let out = run(&["audit", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("[mapping_guess]").count(), 1, "{err}");
    assert!(!err.contains("[label_out_of_range]"), "{err}");
    assert!(
        err.contains("did you mean label i = the i-th score column (p_1 for 0, …, p_10 for 9)?"),
        "{err}"
    );
    let flags = format!(
        "--scores {} --class-names 0,1,2,3,4,5,6,7,8,9",
        shifted.join(",")
    );
    assert!(err.contains(&flags), "{err}");

    let mut args: Vec<&str> = vec!["--scores"];
    let scores = shifted.join(",");
    args.push(&scores);
    args.extend(["--class-names", "0,1,2,3,4,5,6,7,8,9"]);
    assert_eq!(
        audit(&file, &args),
        audit(&data("digits_canonical.csv"), &[])
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
