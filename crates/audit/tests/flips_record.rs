//! The ranking-flips section of records: its numbers against the multi-model
//! fixtures' `ranking` section (under the fixtures' tolerance rules), and a record
//! holding it verifies value by value, a tampered flips value flagged.

use crate::support;

use calibscope_audit::*;
use calibscope_core::sweep::RankedMetric;
use calibscope_share::{file_ref, ViewState};
use serde_json::{json, Value};

use calibscope_test_support::shared;

fn fixture(name: &str) -> (Vec<u8>, calibscope_io::Dataset, Value) {
    let dir = shared().join("fixtures/multi");
    let bytes = std::fs::read(dir.join(format!("{name}.csv"))).unwrap();
    let ds =
        calibscope_io::parse_bytes(&format!("{name}.csv"), &bytes, &Default::default()).unwrap();
    let want: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("{name}.expected.json"))).unwrap(),
    )
    .unwrap();
    (bytes, ds, want)
}

fn m_values(want: &Value) -> Vec<usize> {
    want["m_values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect()
}

#[test]
fn flips_sections_equal_the_multi_fixtures_ranking() {
    for name in ["digits_zoo_probs", "digits_mlp_trajectory_logits"] {
        let (_, ds, want) = fixture(name);
        let bins = m_values(&want);
        let names: Vec<String> = ds.models.iter().map(|(n, _)| n.clone()).collect();
        for binning in ["width", "mass"] {
            for (j, &m) in bins.iter().enumerate() {
                let m_ref = bins[(j + 3) % bins.len()];
                let metric = ["confece", "confce_corr", "cwece", "lince_cw"][j % 4];
                let settings = FlipsSettings {
                    metric: metric.into(),
                    binning: binning.into(),
                    m,
                    m_ref,
                    bins: bins.clone(),
                    temperature_first: false,
                };
                let got = flips_section(&ds.models, &settings).unwrap();
                assert_eq!(got["settings"]["m"], json!(m));
                assert_eq!(got["models"], json!(names));
                // every metric's matrices, as the fixture's ranking section
                let mut expected = json!({"tolerance": want["tolerance"], "sensitive": want["sensitive"], "ranking": {"metrics": {}}});
                let mut compared = json!({"ranking": {"metrics": {}}});
                for metric in want["ranking"]["metrics"].as_object().unwrap().keys() {
                    expected["ranking"]["metrics"][metric][binning] =
                        want["ranking"]["metrics"][metric][binning].clone();
                    compared["ranking"]["metrics"][metric][binning] =
                        got["matrices"][metric].clone();
                }
                let mismatches: Vec<String> = support::compare::compare(&compared, &expected)
                    .into_iter()
                    .map(|m| format!("{}: {}", m.path, m.detail))
                    .collect();
                assert!(mismatches.is_empty(), "{name} {binning}: {mismatches:?}");
                // the ranking at m against the reference
                let r = &got["ranking"];
                let fx = &want["ranking"]["metrics"][metric][binning];
                for at in [m, m_ref] {
                    let key = at.to_string();
                    assert_eq!(r["ranks"][&key], fx["ranks"][&key], "{name} {metric} {at}");
                    let rho = (r["spearman_vs_error"][&key].as_f64().unwrap()
                        - fx["spearman_vs_error"][&key].as_f64().unwrap())
                    .abs();
                    assert!(rho <= 1e-10, "{name} {metric} {at}");
                    for (i, n) in names.iter().enumerate() {
                        let w = want["models"][n]["metrics"][metric][binning][&key]
                            .as_f64()
                            .unwrap();
                        let g = r["values"][&key][i].as_f64().unwrap();
                        assert!((g - w).abs() <= 1e-10 + 1e-9 * w.abs(), "{name} {n} {at}");
                        let change = r["rank_change"][i].as_f64().unwrap();
                        let want_change = fx["ranks"][m_ref.to_string()][i].as_f64().unwrap()
                            - fx["ranks"][m.to_string()][i].as_f64().unwrap();
                        assert_eq!(change, want_change);
                    }
                }
                let (lo, hi) = (m.min(m_ref), m.max(m_ref));
                if lo != hi {
                    let key = format!("{lo}|{hi}");
                    let pairs = &r["flip_pairs"][format!("{m_ref}|{m}")];
                    let fx_pairs = fx["flip_pairs"].get(&key).cloned().unwrap_or(json!([]));
                    let sorted = |v: &Value| {
                        let mut p: Vec<String> = v
                            .as_array()
                            .map(|a| a.iter().map(|x| x.to_string()).collect())
                            .unwrap_or_default();
                        p.sort();
                        p
                    };
                    assert_eq!(sorted(pairs), sorted(&fx_pairs), "{name} {metric} {key}");
                }
            }
        }
    }
}

#[test]
fn top_label_input_says_which_metrics_it_cannot_rank() {
    let csv = "model,label,yhat,conf\na,1,1,0.9\na,0,1,0.6\na,1,0,0.7\nb,1,1,0.8\nb,0,0,0.9\nb,1,1,0.55\n";
    let ds = calibscope_io::parse_bytes("t.csv", csv.as_bytes(), &Default::default());
    let ds = ds.expect("a long-format top-label file");
    assert_eq!(ds.models.len(), 2);
    let got = flips_section(&ds.models, &FlipsSettings::default()).unwrap();
    for metric in RankedMetric::ALL {
        let why = got["matrices"][metric.name()]["unavailable"].as_str();
        assert_eq!(why.is_some(), metric.needs_vectors(), "{}", metric.name());
    }
    let bad = FlipsSettings {
        metric: "nope".into(),
        ..FlipsSettings::default()
    };
    assert!(flips_section(&ds.models, &bad).is_err());
}

#[test]
fn a_record_with_its_flips_section_verifies_and_flags_a_tampered_flips_value() {
    let (bytes, ds, _) = fixture("digits_zoo_probs");
    let name = "digits_zoo_probs.csv";
    let inputs = vec![file_ref(name, &bytes)];
    let settings = FlipsSettings {
        metric: "confce_corr".into(),
        m: 20,
        m_ref: 100,
        ..FlipsSettings::default()
    };
    let options = AuditOptions::for_n(ds.n());
    let producer = Producer {
        name: "test".into(),
        version: "0".into(),
        build: "b".into(),
    };
    let record = Record {
        contract: calibscope_audit::CONTRACT,
        producer: producer.clone(),
        inputs: inputs.clone(),
        settings: ViewState::default(),
        options: options.clone(),
        audits: vec![audit_document(&Ok(ds.clone()), name, &options)],
        tables: record_tables(&ds, Some(&settings)).unwrap(),
    }
    .to_json();
    // one model: no flips section
    let mut first = ds.clone();
    first.models.truncate(1);
    let one = record_tables(&first, Some(&settings)).unwrap();
    assert!(one.get("flips").is_none());
    let json = serde_json::to_string(&record).unwrap();
    let back = Record::from_json(&serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(back.to_json(), record, "a record with flips round-trips");
    let check = |rec: &Value| {
        let (_, checks, notes) =
            reverify(rec, &Ok(ds.clone()), name, inputs.clone(), producer.clone()).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        checks
    };
    let checks = check(&record);
    let flips: Vec<&Check> = checks
        .iter()
        .filter(|c| c.path.starts_with("tables.flips."))
        .collect();
    // values, ranks, changes, pairs, both Spearman kinds, for every ranked metric
    assert!(flips.len() > 500, "{} flips checks", flips.len());
    assert!(checks.iter().all(|c| c.status
        == Status::Identical {
            value: match &c.status {
                Status::Identical { value } => value.clone(),
                _ => Value::Null,
            }
        }));
    assert!(!flips
        .iter()
        .any(|c| c.path.starts_with("tables.flips.settings")));
    for path in [
        "tables.flips.ranking.ranks.20.3",
        "tables.flips.ranking.values.100.0",
        "tables.flips.ranking.rank_change.9",
        "tables.flips.matrices.confece.spearman.0.2",
        "tables.flips.matrices.cwece.spearman_vs_error.20",
    ] {
        assert!(flips.iter().any(|c| c.path == path), "{path}");
    }
    let mut tampered = record.clone();
    let v = &mut tampered["tables"]["flips"]["matrices"]["confece"]["spearman"][0][1];
    let real = v.as_f64().unwrap();
    *v = json!(real - 0.01);
    let bad: Vec<Check> = check(&tampered).into_iter().filter(|c| !c.ok()).collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].path, "tables.flips.matrices.confece.spearman.0.1");
    assert_eq!(
        bad[0].status,
        Status::Differs {
            recorded: json!(real - 0.01),
            recomputed: json!(real)
        }
    );
    // other settings in the record are recomputed with those settings
    let mut other = record.clone();
    other["tables"]["flips"]["settings"]["m"] = json!(5);
    assert!(check(&other).iter().any(|c| !c.ok()));
}

#[test]
fn the_markdown_summary_of_a_record_shows_its_ranking_and_flips() {
    let (bytes, ds, _) = fixture("digits_zoo_probs");
    let name = "digits_zoo_probs.csv";
    let settings = FlipsSettings {
        m: 5,
        m_ref: 100,
        ..FlipsSettings::default()
    };
    let options = AuditOptions::for_n(ds.n());
    let doc = audit_document(&Ok(ds.clone()), name, &options);
    let record = Record {
        contract: calibscope_audit::CONTRACT,
        producer: Producer {
            name: "test".into(),
            version: "0".into(),
            build: "b".into(),
        },
        inputs: vec![file_ref(name, &bytes)],
        settings: ViewState::default(),
        options,
        audits: vec![doc.clone()],
        tables: record_tables(&ds, Some(&settings)).unwrap(),
    }
    .to_json();
    let binning = calibscope_core::binning::Binning::Width;
    let md = record_markdown(&record, 15, binning);
    // the audit's summary, then the section
    let audit = markdown(&doc, 15, binning);
    assert!(md.starts_with(&audit));
    let flips = &md[audit.len()..];
    let r = &record["tables"]["flips"]["ranking"];
    let count = r["flips"][0][1].as_u64().unwrap();
    assert!(flips.contains("## Ranking flips"));
    assert!(flips.contains(&format!("{count} flips between m = 100 and m = 5")));
    // one table row per model, in rank order at m = 5, with its rank and value
    let rows: Vec<Vec<&str>> = flips
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| model"))
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect();
    let names: Vec<String> = ds.models.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(rows.len(), names.len());
    let mut last = 0.0;
    for row in &rows {
        let i = names.iter().position(|n| n == row[0]).unwrap();
        let rank = r["ranks"]["5"][i].as_f64().unwrap();
        assert_eq!(row[1], rank.to_string());
        assert!(rank >= last);
        last = rank;
        assert_eq!(row[2], summary::fmt(&r["values"]["5"][i]));
        let flipped = r["flip_pairs"]["100|5"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p[0] == row[0] || p[1] == row[0]);
        assert_eq!(row[7] == "flipped", flipped, "{}", row[0]);
    }
    // a record without the section: the audit's summary alone
    let mut one = record.clone();
    one["tables"].as_object_mut().unwrap().remove("flips");
    assert_eq!(record_markdown(&one, 15, binning), audit);
}
