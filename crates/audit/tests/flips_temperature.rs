//! The ranking-flips section with every model temperature-scaled first (seed 000's
//! protocol): each τ is the Recalibrate view's fit on the same split, bit for bit;
//! every value is an audit of the scaled evaluation rows; a record holding such a
//! section carries the switch and the taus and verifies value by value. Run on the
//! multi-model fixture and on both real-world CIFAR zoos (`shared/real-world`, which
//! must exist: the test fails when it does not).

use calibscope_audit::*;
use calibscope_core::recal::apply::recalibrate_temperature;
use calibscope_io::Dataset;
use calibscope_share::{file_ref, ViewState};
use calibscope_test_support::{shared, shared_path};
use serde_json::{json, Value};
use std::path::PathBuf;

/// The multi-model fixture, and the two CIFAR zoos (three .npz files each).
fn zoos() -> Vec<(String, Vec<PathBuf>)> {
    let fixture = shared().join("fixtures/multi/digits_zoo_probs.csv");
    let mut out = vec![("digits_zoo_probs".to_string(), vec![fixture])];
    for zoo in ["cifar10", "cifar100"] {
        let dir = shared_path("real-world");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy();
                name.starts_with(&format!("{zoo}_")) && name.ends_with(".npz")
            })
            .collect();
        files.sort();
        assert_eq!(files.len(), 3, "{zoo}: three models in {}", dir.display());
        out.push((zoo.to_string(), files));
    }
    out
}

/// The files read as the CLI reads them.
fn dataset(files: &[PathBuf]) -> Dataset {
    calibscope_io::open_paths(files, &Default::default()).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

#[test]
fn taus_are_the_recalibrate_fits_and_values_an_audit_of_the_evaluation_rows() {
    for (zoo, files) in zoos() {
        let ds = dataset(&files);
        let names: Vec<&str> = ds.models.iter().map(|(n, _)| n.as_str()).collect();
        // the Recalibrate view's fit of each model on its default split
        let runs: Vec<_> = ds
            .models
            .iter()
            .map(|(_, s)| recalibrate_temperature(s, 0, 0.5).temperature.unwrap())
            .collect();
        let scaled = scaled_first(&ds.models, true).unwrap().unwrap();
        for (i, run) in runs.iter().enumerate() {
            assert_eq!(
                scaled.fits[i].tau.to_bits(),
                run.fit.tau.to_bits(),
                "{zoo} {i}"
            );
            assert_eq!(
                scaled.scaled[i], run.after,
                "{zoo}: model {i}'s evaluation rows"
            );
        }
        // the audit of the scaled evaluation rows, as a data set of its own
        let n_eval = scaled.n_evaluation();
        let bins = [5, 20, 2000.min(n_eval)];
        let eval = Dataset {
            models: ds
                .models
                .iter()
                .zip(&scaled.scaled)
                .map(|((n, _), s)| (n.clone(), s.clone()))
                .collect(),
            ..ds.clone()
        };
        let options = AuditOptions {
            m_values: bins.to_vec(),
            recalibration: None,
            roc_max_n: 0,
        };
        let audit = audit_document(&Ok(eval), "eval", &options);
        let mut compared = 0;
        for metric in [
            "confece",
            "confce",
            "confce_corr",
            "lince_cw",
            "cwece",
            "rmsce_conf",
        ] {
            let settings = FlipsSettings {
                metric: metric.into(),
                m: bins[0],
                m_ref: bins[2],
                bins: bins.to_vec(),
                temperature_first: true,
                ..FlipsSettings::default()
            };
            let section = flips_section(&ds.models, &settings).unwrap();
            let t = &section["temperature"];
            assert_eq!(t["n_evaluation"], json!(n_eval));
            assert_eq!(t["seed"], json!(0));
            assert_eq!(t["fraction"], json!(0.5));
            for (i, run) in runs.iter().enumerate() {
                assert_eq!(
                    t["tau"][i].as_f64().unwrap().to_bits(),
                    run.fit.tau.to_bits()
                );
            }
            for m in [bins[0], bins[2]] {
                for (i, name) in names.iter().enumerate() {
                    let got = section["ranking"]["values"][m.to_string()][i]
                        .as_f64()
                        .unwrap();
                    let want = audit["models"][name]["metrics"][metric]["mass"][m.to_string()]
                        .as_f64()
                        .unwrap_or_else(|| panic!("{zoo} {name} {metric} {m}: {audit:#}"));
                    assert!(
                        close(got, want),
                        "{zoo} {name} {metric} m={m}: {got} vs {want}"
                    );
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 6 * 2 * names.len());
        // the classification error is the evaluation rows'
        let section = flips_section(
            &ds.models,
            &FlipsSettings {
                temperature_first: true,
                ..FlipsSettings::default()
            },
        )
        .unwrap();
        for (i, name) in names.iter().enumerate() {
            let want = audit["models"][name]["binning_free"]["error"].as_f64();
            assert_eq!(section["error"][i].as_f64(), want, "{zoo} {name}");
        }
        // without the switch nothing is scaled and there is no temperature object
        let plain = flips_section(&ds.models, &FlipsSettings::default()).unwrap();
        assert!(plain.get("temperature").is_none());
        assert_eq!(plain["settings"]["temperature_first"], json!(false));
        assert_ne!(plain["error"], section["error"]);
    }
}

#[test]
fn a_temperature_first_record_carries_the_switch_and_taus_and_verifies() {
    let (_, files) = zoos().remove(2);
    let ds = dataset(&files);
    let inputs: Vec<_> = files
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            file_ref(&name, &std::fs::read(p).unwrap())
        })
        .collect();
    let settings = FlipsSettings {
        metric: "confce_corr".into(),
        temperature_first: true,
        ..FlipsSettings::default()
    };
    let options = AuditOptions {
        m_values: vec![15],
        recalibration: None,
        roc_max_n: 0,
    };
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
        audits: vec![audit_document(&Ok(ds.clone()), &ds.name, &options)],
        tables: record_tables(&ds, Some(&settings)).unwrap(),
    }
    .to_json();
    let text = serde_json::to_string(&record).unwrap();
    let back: Value = serde_json::from_str(&text).unwrap();
    let section = &back["tables"]["flips"];
    assert_eq!(section["settings"]["temperature_first"], json!(true));
    assert_eq!(section["temperature"]["tau"].as_array().unwrap().len(), 3);
    assert_eq!(
        flips_settings_of(section).unwrap(),
        settings.effective(5000)
    );
    let check = |rec: &Value| {
        let (_, checks, notes) = reverify(
            rec,
            &Ok(ds.clone()),
            &ds.name,
            inputs.clone(),
            producer.clone(),
        )
        .unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        checks
    };
    let checks = check(&back);
    assert!(
        checks.iter().all(|c| c.ok()),
        "{:?}",
        checks.iter().find(|c| !c.ok())
    );
    for path in [
        "tables.flips.temperature.tau.0",
        "tables.flips.temperature.n_evaluation",
        "tables.flips.matrices.lince_cw.spearman.0.2",
    ] {
        assert!(checks.iter().any(|c| c.path == path), "{path}");
    }
    // the Markdown summary says the models were scaled first, with each τ
    let md = record_markdown(&back, 15, calibscope_core::binning::Binning::Mass);
    assert!(md.contains("every model temperature-scaled first"), "{md}");
    let tau0 = section["temperature"]["tau"][0].as_f64().unwrap();
    let shown = calibscope_audit::summary::fmt(&json!(tau0));
    assert!(md.contains(&format!("{} {shown}", ds.models[0].0)), "{md}");
    // a tampered τ is flagged
    let mut tampered = back.clone();
    tampered["tables"]["flips"]["temperature"]["tau"][1] = json!(1.5);
    let bad: Vec<Check> = check(&tampered).into_iter().filter(|c| !c.ok()).collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].path, "tables.flips.temperature.tau.1");
    // the switch is what the section is recomputed with: turned off, values differ
    let mut off = back.clone();
    off["tables"]["flips"]["settings"]["temperature_first"] = json!(false);
    assert!(check(&off).iter().any(|c| !c.ok()));
    // a record written before the switch existed reads it as off
    let mut old = back.clone();
    old["tables"]["flips"]["settings"]
        .as_object_mut()
        .unwrap()
        .remove("temperature_first");
    assert!(
        !flips_settings_of(&old["tables"]["flips"])
            .unwrap()
            .temperature_first
    );
}
