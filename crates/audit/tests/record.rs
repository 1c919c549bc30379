//! The audit record: JSON round trip, verification of an honest recomputation, and
//! every kind of tampering flagged with both values.

use calibscope_audit::*;
use calibscope_share::{file_ref, DataSource, MappingState, ViewState};
use serde_json::{json, Map, Value};

const CSV: &[u8] =
    b"label,p\n1,0.9\n0,0.2\n1,0.65\n0,0.4\n1,0.8\n0,0.55\n1,0.3\n0,0.1\n1,0.99\n0,0.7\n";

fn record_of(bytes: &[u8], mapping: &MappingState) -> Record {
    let options = parse_options(mapping).unwrap();
    let mut parser = calibscope_io::Parser::new("tiny.csv", options);
    let _ = parser.push(bytes);
    let parsed = parser.finish();
    let audit_options = AuditOptions::for_n(10);
    let doc = audit_document(&parsed, "tiny.csv", &audit_options);
    let inputs = vec![file_ref("tiny.csv", bytes)];
    let mut tables = Map::new();
    tables.insert("extra".into(), json!({"rho": [1.0, null, 0.5]}));
    Record {
        contract: calibscope_audit::CONTRACT,
        producer: Producer {
            name: "test".into(),
            version: "0".into(),
            build: "b".into(),
        },
        inputs: inputs.clone(),
        settings: ViewState {
            m: 10,
            data: DataSource::Files { files: inputs },
            mapping: mapping.clone(),
            ..ViewState::default()
        },
        options: audit_options,
        audits: vec![doc],
        tables,
    }
}

fn mapping() -> MappingState {
    MappingState {
        label: Some("label".into()),
        scores: vec!["p".into()],
        source: Some("probs".into()),
        ..MappingState::default()
    }
}

#[test]
fn round_trip() {
    let r = record_of(CSV, &mapping());
    let json = r.to_json();
    assert_eq!(json["schema"], RECORD_SCHEMA);
    let text = serde_json::to_string(&json).unwrap();
    let back = Record::from_json(&serde_json::from_str(&text).unwrap()).unwrap();
    assert_eq!(back, r);
}

#[test]
fn honest_recomputation_verifies() {
    let recorded = record_of(CSV, &mapping()).to_json();
    let again = record_of(CSV, &mapping()).to_json();
    let checks = verify(&recorded, &again);
    assert!(checks.len() > 200, "{} checks", checks.len());
    assert!(checks.iter().all(Check::ok));
    // every number of the audit is compared
    let acc = recorded["audits"][0]["binning_free"]["accuracy"].clone();
    assert!(checks
        .iter()
        .any(|c| c.path == "audits.0.binning_free.accuracy"
            && c.status == Status::Identical { value: acc.clone() }));
}

#[test]
fn a_tampered_value_is_flagged_with_both_values() {
    let honest = record_of(CSV, &mapping()).to_json();
    let mut tampered = honest.clone();
    let ece = &mut tampered["audits"][0]["readings"]["confidence"]["width"]["10"]["ece"];
    let real = ece.clone();
    *ece = json!(real.as_f64().unwrap() + 1e-12);
    tampered["tables"]["extra"]["rho"][1] = json!(0.25);
    tampered["audits"][0]["binning_free"]
        .as_object_mut()
        .unwrap()
        .remove("nll");
    let bad: Vec<Check> = verify(&tampered, &honest)
        .into_iter()
        .filter(|c| !c.ok())
        .collect();
    let paths: Vec<&str> = bad.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "audits.0.binning_free.nll",
            "audits.0.readings.confidence.width.10.ece",
            "tables.extra.rho.1"
        ]
    );
    assert!(matches!(
        &bad[0].status,
        Status::Missing {
            in_record: false,
            ..
        }
    ));
    assert_eq!(
        bad[1].status,
        Status::Differs {
            recorded: json!(real.as_f64().unwrap() + 1e-12),
            recomputed: real
        }
    );
    assert_eq!(
        bad[2].status,
        Status::Differs {
            recorded: json!(0.25),
            recomputed: Value::Null
        }
    );
}

#[test]
fn other_data_is_flagged_by_its_fingerprint() {
    let recorded = record_of(CSV, &mapping()).to_json();
    let mut other = CSV.to_vec();
    other.extend_from_slice(b"1,0.5\n");
    let checks = verify(&recorded, &record_of(&other, &mapping()).to_json());
    let bad: Vec<&str> = checks
        .iter()
        .filter(|c| !c.ok())
        .map(|c| c.path.as_str())
        .collect();
    assert!(bad.contains(&"inputs.0.sha256") && bad.contains(&"inputs.0.size"));
    assert!(bad.contains(&"audits.0.input.n"));
}

#[test]
fn bad_records_are_refused_with_a_reason() {
    let r = record_of(CSV, &mapping()).to_json();
    let mut other = r.clone();
    other["schema"] = json!("calibscope-record/9");
    assert!(Record::from_json(&other)
        .unwrap_err()
        .contains("calibscope-record/9"));
    assert!(Record::from_json(&json!({"x": 1}))
        .unwrap_err()
        .contains("no schema"));
    let mut broken = r.clone();
    broken["options"]["m_values"] = json!("15");
    assert!(Record::from_json(&broken).unwrap_err().contains("m_values"));
    let bad_mapping = MappingState {
        delimiter: Some("ab".into()),
        ..MappingState::default()
    };
    assert!(parse_options(&bad_mapping)
        .unwrap_err()
        .contains("one character"));
}

#[test]
fn records_are_read_from_json_or_from_a_report() {
    let r = record_of(CSV, &mapping()).to_json();
    let text = serde_json::to_string_pretty(&r).unwrap();
    assert_eq!(record_json_of(&text).unwrap(), r);
    assert_eq!(record_json_of(&format!("\u{feff}\n{text}")).unwrap(), r);
    let html = format!(
        "<!doctype html><p>x</p><script type=\"application/json\" id=\"{RECORD_ELEMENT_ID}\">{}</script>",
        serde_json::to_string(&r).unwrap().replace('<', "\\u003c")
    );
    assert_eq!(record_json_of(&html).unwrap(), r);
    assert!(record_json_of("label,p\n1,0.5\n")
        .unwrap_err()
        .contains("neither"));
    let open = format!("<script id=\"{RECORD_ELEMENT_ID}\">{{");
    assert!(record_json_of(&open).unwrap_err().contains("not closed"));
    assert!(record_json_of("{\"a\": ")
        .unwrap_err()
        .contains("not valid JSON"));
}

/// The paths of every number of the audits and tables (segments).
fn number_paths(v: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        Value::Object(o) => o.iter().for_each(|(k, v)| {
            path.push(k.clone());
            number_paths(v, path, out);
            path.pop();
        }),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, v)| {
            path.push(i.to_string());
            number_paths(v, path, out);
            path.pop();
        }),
        Value::Number(_) => out.push(path.clone()),
        _ => {}
    }
}

fn at_mut<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(v, |v, k| match v {
        Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
        v => &mut v[k.as_str()],
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// Any one number changed anywhere in the audits or tables is the one flagged.
    #[test]
    fn any_tampered_number_is_flagged_alone(pick in 0usize..100_000, delta in 1e-9f64..10.0) {
        let honest = record_of(CSV, &mapping()).to_json();
        let mut paths = Vec::new();
        for key in ["audits", "tables"] {
            number_paths(&honest[key], &mut vec![key.to_string()], &mut paths);
        }
        proptest::prop_assert!(paths.len() > 200);
        let path = &paths[pick % paths.len()];
        let mut tampered = honest.clone();
        let cell = at_mut(&mut tampered, path);
        let x = cell.as_f64().unwrap();
        *cell = json!(x + delta.max(x.abs() * 1e-9));
        proptest::prop_assume!(*cell != *at_mut(&mut honest.clone(), path));
        let bad: Vec<String> = verify(&tampered, &honest)
            .into_iter()
            .filter(|c| !c.ok())
            .map(|c| c.path)
            .collect();
        proptest::prop_assert_eq!(bad, vec![path.join(".")]);
    }
}
