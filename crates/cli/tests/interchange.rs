//! Records of the app and of the CLI are interchangeable, both ways, with the
//! ranking-flips section of a multi-model input: a record written by the app's worker
//! code verifies with `calibscope verify`, and one written by `calibscope audit
//! --record` verifies with the app's "Verify a record" code, every value identical.

use crate::support;
use calibscope_audit::FlipsSettings;
use calibscope_engine::record::verified;
use calibscope_engine::Session;
use calibscope_io::{Options, Parser};
use calibscope_proto::{CheckStatus, FromWorker};
use calibscope_share::{file_ref, ViewState};
use serde_json::{json, Value};
use support::{calibscope, shared};

const NAME: &str = "digits_zoo_probs.csv";

fn data() -> (std::path::PathBuf, Vec<u8>) {
    let path = shared().join("fixtures/multi").join(NAME);
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "calibscope-interchange-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn flips_checks(out: &str, mark: &str) -> usize {
    out.lines()
        .filter(|l| l.starts_with(&format!("{mark} tables.flips.")))
        .count()
}

#[test]
fn an_app_record_with_flips_verifies_with_the_cli() {
    let (path, bytes) = data();
    let ds = calibscope_io::parse_bytes(NAME, &bytes, &Default::default()).unwrap();
    let session = Session::new(ds);
    let flips = FlipsSettings {
        metric: "cwece".into(),
        binning: "width".into(),
        m: 15,
        m_ref: 2000,
        bins: vec![2, 15, 100],
        temperature_first: false,
    };
    let settings = ViewState {
        m: 20,
        ..ViewState::default()
    };
    let inputs = vec![file_ref(NAME, &bytes)];
    let FromWorker::Record { record, .. } =
        session.record(1, settings, inputs, Some(flips), "test")
    else {
        panic!("a record")
    };
    let record: Value = serde_json::from_str(&record).unwrap();
    assert_eq!(record["producer"]["name"], "calibscope-app");
    assert_eq!(record["tables"]["flips"]["settings"]["m_ref"], json!(450));
    let dir = tmp("app");
    let rec = dir.join("app.json");
    std::fs::write(&rec, serde_json::to_string(&record).unwrap()).unwrap();
    let ok = calibscope(&["verify", rec.to_str().unwrap(), path.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&ok.stdout).to_string();
    assert_eq!(ok.status.code(), Some(0), "{out}");
    assert!(flips_checks(&out, "✓") > 500, "{out}");
    assert!(!out.contains("not recomputed"), "{out}");
    // a tampered rank is flagged with both values
    let mut tampered = record.clone();
    tampered["tables"]["flips"]["ranking"]["ranks"]["15"][2] = json!(99.0);
    std::fs::write(&rec, serde_json::to_string(&tampered).unwrap()).unwrap();
    let bad = calibscope(&[
        "verify",
        "--failures-only",
        rec.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&bad.stdout).to_string();
    assert_eq!(bad.status.code(), Some(1), "{out}");
    assert_eq!(flips_checks(&out, "✗"), 1, "{out}");
    assert!(out.contains("✗ tables.flips.ranking.ranks.15.2: recorded 99.0, recomputed"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_cli_record_with_flips_verifies_in_the_app() {
    let (path, bytes) = data();
    let dir = tmp("cli");
    let rec = dir.join("cli.json");
    let out = calibscope(&[
        "audit",
        "--record",
        rec.to_str().unwrap(),
        "--flips-metric",
        "lince_cw",
        "--flips-m",
        "20",
        "--flips-ref",
        "100",
        "--flips-bins",
        "1,5,20,2000",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let record: Value = serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let section = &record["tables"]["flips"];
    assert_eq!(
        section["settings"],
        json!({"metric": "lince_cw", "binning": "mass", "m": 20, "m_ref": 100, "bins": [1, 5, 20, 450],
               "temperature_first": false})
    );
    let verify = |rec: &Value| {
        let mut parser = Parser::new(NAME.to_string(), Options::default());
        let _ = parser.push(&bytes);
        let parsed = vec![(NAME.to_string(), parser.finish_any())];
        let inputs = vec![file_ref(NAME, &bytes)];
        match verified(2, "cli.json", rec, parsed, &Options::default(), inputs, "b") {
            FromWorker::Verified { checks, notes, .. } => {
                assert!(notes.is_empty(), "{notes:?}");
                checks
            }
            other => panic!("{other:?}"),
        }
    };
    let checks = verify(&record);
    let flips = checks
        .iter()
        .filter(|c| c.path.starts_with("tables.flips."))
        .count();
    assert!(flips > 500, "{flips} flips checks");
    let odd: Vec<_> = checks
        .iter()
        .filter(|c| c.status != CheckStatus::Identical)
        .collect();
    assert!(odd.is_empty(), "{odd:?}");
    // a flip pair swapped for another model is flagged
    let mut tampered = record.clone();
    let pairs = tampered["tables"]["flips"]["matrices"]["confece"]["flip_pairs"]
        .as_object_mut()
        .unwrap();
    let (key, list) = pairs.iter_mut().next().expect("confece flips somewhere");
    let key = key.clone();
    list[0][0] = json!("not-a-model");
    let bad: Vec<_> = verify(&tampered)
        .into_iter()
        .filter(|c| c.status != CheckStatus::Identical)
        .collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(
        bad[0].path,
        format!("tables.flips.matrices.confece.flip_pairs.{key}.0.0")
    );
    assert_eq!(bad[0].status, CheckStatus::Differs);
    std::fs::remove_dir_all(&dir).ok();
}
