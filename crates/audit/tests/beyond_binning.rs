//! METRICS.md §8 in the audit document and the record: every value equals the core
//! function that defines it, the bootstrap does not depend on the thread count, a
//! record holding them verifies and a tampered interval, verdict or flips share is
//! caught, and the flips noise follows its stated rule.

use calibscope_audit::beyond_binning::{bootstrap_of, diagram_tables};
use calibscope_audit::flips_noise::{stable_share, within_noise};
use calibscope_audit::*;
use calibscope_core::binning::{Binning, SortedReading};
use calibscope_core::bootstrap::{
    bootstrap_metrics, percentile_interval, BootMetric, BootReading, BootstrapSettings,
};
use calibscope_core::calibration_tests::{cumulative_test, hosmer_lemeshow, spiegelhalter};
use calibscope_core::estimators::{caldist, ece_l2_debiased, ece_sweep};
use calibscope_core::reading::top_labels;
use calibscope_core::smece::smece;
use calibscope_core::verdict::verdict;
use calibscope_io::Dataset;
use calibscope_share::{file_ref, DataSource, ViewState};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn golden(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(file)
}

fn open(file: &str) -> Dataset {
    calibscope_io::open_paths(&[golden(file)], &calibscope_io::Options::default())
        .unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn settings(threads: usize) -> BootstrapSettings {
    BootstrapSettings {
        replicates: 200,
        seed: 7,
        alpha: 0.1,
        threads,
    }
}

fn options(m: &[usize]) -> AuditOptions {
    AuditOptions {
        m_values: m.to_vec(),
        recalibration: None,
        roc_max_n: 0,
    }
}

fn doc_of(ds: &Dataset, m: &[usize], s: &BootstrapSettings) -> Value {
    audit_document_with(
        &Ok(ds.clone()),
        "t",
        &options(m),
        Sections::Sequential,
        Some(s),
    )
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number, got {v}"))
}

#[test]
fn single_model_values_equal_the_core_functions() {
    let ds = open("breast_cancer_logreg_logit.csv");
    let s = settings(2);
    let m = [5usize, 15];
    let doc = doc_of(&ds, &m, &s);
    let set = &ds.models[0].1;
    let pairs = top_labels(set).pairs();
    let (u, o) = (&pairs.forecast, &pairs.outcome);
    let sorted = SortedReading::new(&pairs);
    let conf = &doc["readings"]["confidence"];
    let sm = smece(u, o).unwrap();
    assert_eq!(f(&conf["smece"]), sm.smece);
    assert_eq!(f(&conf["smece_sigma"]), sm.sigma);
    assert_eq!(doc["binning_free"]["smece"], conf["smece"]);
    assert_eq!(doc["binning_free"]["smece_sigma"], conf["smece_sigma"]);
    assert_eq!(f(&doc["binning_free"]["caldist"]), caldist(u, o).unwrap());
    let sw = ece_sweep(&sorted).unwrap();
    assert_eq!(
        conf["ece_sweep"],
        json!({"b": sw.b, "ece": sw.ece, "rmsce": sw.rmsce})
    );
    let sp = spiegelhalter(u, o).unwrap();
    assert_eq!(
        conf["tests"]["spiegelhalter"],
        json!({"z": sp.z, "p": sp.p})
    );
    let hl = hosmer_lemeshow(&sorted, 10).unwrap();
    assert_eq!(
        conf["tests"]["hosmer_lemeshow"],
        json!({"h": hl.h, "p": hl.p, "groups": hl.groups})
    );
    let cu = cumulative_test(&sorted).unwrap();
    assert_eq!(
        conf["tests"]["cumulative"],
        json!({"ks": cu.ks, "kuiper": cu.kuiper, "p_ks": cu.p_ks})
    );
    for binning in Binning::ALL {
        for mm in m {
            let got = &conf[binning.name()][mm.to_string()];
            assert_eq!(
                f(&got["ece_l2_debiased"]),
                ece_l2_debiased(&sorted, binning, mm).unwrap()
            );
            // the existing values are still there
            assert!(got["ece"].is_number());
        }
    }
    // intervals: the core's bootstrap of the same metrics, the same quantiles
    let reading = BootReading::new(u, o);
    let metrics = [
        BootMetric::MeanGap,
        BootMetric::Ece(Binning::Width, 15),
        BootMetric::Ece(Binning::Mass, 5),
    ];
    let reps = bootstrap_metrics(&reading, &metrics, &s).unwrap();
    for (path, values) in ["d", "width.15.ece", "mass.5.ece"].iter().zip(&reps) {
        // the audit reads the replicates' bins from block sums: equal up to the
        // order of the additions
        let i = percentile_interval(values, s.alpha);
        let got = &conf["intervals"][*path];
        for (g, w) in [(f(&got[0]), i.lo.unwrap()), (f(&got[1]), i.hi.unwrap())] {
            assert!((g - w).abs() <= 1e-13, "{path}: {g} vs {w}");
        }
        assert_eq!(conf["intervals"]["skipped"][*path], json!(i.skipped));
    }
    let intervals = conf["intervals"].as_object().unwrap();
    assert_eq!(
        intervals.len(),
        1 + 2 * 2 * 6 + 1,
        "d, 2 binnings × 2 m × 6, skipped"
    );
    for (path, v) in intervals.iter().filter(|(k, _)| *k != "skipped") {
        let (lo, hi) = (f(&v[0]), f(&v[1]));
        assert!(lo <= hi, "{path}: {lo} > {hi}");
    }
    // the verdict: the core rule on d, its interval (the core's bootstrap, up to the
    // order of additions) and p_KS
    let d = f(&conf["d"]);
    let di = percentile_interval(&reps[0], s.alpha);
    let doc_di = &doc["verdict"]["d_interval"];
    let (lo, hi) = (f(&doc_di[0]), f(&doc_di[1]));
    assert!((lo - di.lo.unwrap()).abs() <= 1e-13 && (hi - di.hi.unwrap()).abs() <= 1e-13);
    assert_eq!(doc_di, &conf["intervals"]["d"]);
    let v = verdict(d, Some((lo, hi)), Some(cu.p_ks), s.alpha, set.n()).unwrap();
    assert_eq!(doc["verdict"]["text"], json!(v.to_string()));
    assert_eq!(doc["verdict"]["kind"], json!(v.kind.name()));
    assert_eq!(doc["verdict"]["p"], json!(cu.p_ks));
    assert_eq!(doc["verdict"]["n"], json!(set.n()));
    assert!((d - BootMetric::MeanGap.point(&reading).unwrap()).abs() < 1e-15);
    // the binary set's positive reading has the point values, no intervals
    let pos = &doc["readings"]["positive"];
    assert!(pos["smece"].is_number() && pos["tests"]["cumulative"]["p_ks"].is_number());
    assert!(pos.get("intervals").is_none());
    let back = bootstrap_of(&doc).unwrap().unwrap();
    assert_eq!(
        (back.replicates, back.seed, back.alpha),
        (s.replicates, s.seed, s.alpha)
    );
}

#[test]
fn the_bootstrap_does_not_depend_on_threads_and_zero_replicates_give_no_interval() {
    let ds = open("digits_zoo3_head60_probs.csv");
    assert!(ds.models.len() >= 2);
    let one = doc_of(&ds, &[15], &settings(1));
    let three = doc_of(&ds, &[15], &settings(3));
    assert_eq!(one, three);
    for (name, _) in &ds.models {
        let model = &one["models"][name];
        assert!(model["binning_free"]["smece"].is_number(), "{name}");
        assert!(
            model["readings"]["confidence"]["intervals"]["d"].is_array(),
            "{name}"
        );
        assert!(model["verdict"]["text"].is_string(), "{name}");
    }
    let none = doc_of(
        &ds,
        &[15],
        &BootstrapSettings {
            replicates: 0,
            ..settings(1)
        },
    );
    let model = &none["models"][ds.models[0].0.as_str()];
    assert!(model["readings"]["confidence"]["intervals"].is_null());
    assert!(model["verdict"].is_null());
    assert!(model["readings"]["confidence"]["smece"].is_number());
}

#[test]
fn bad_bootstrap_settings_in_a_document_are_refused() {
    assert_eq!(bootstrap_of(&json!({})), Ok(None));
    for bad in [
        json!({"bootstrap": {"replicates": 10, "seed": 0, "alpha": 2.0}}),
        json!({"bootstrap": {"replicates": -1, "seed": 0, "alpha": 0.05}}),
        json!({"bootstrap": {"replicates": 10, "seed": 0}}),
    ] {
        assert!(bootstrap_of(&bad).is_err(), "{bad}");
    }
}

fn record(ds: &Dataset, files: &[&str], s: &BootstrapSettings) -> Record {
    let inputs: Vec<_> = files
        .iter()
        .map(|f| file_ref(f, &std::fs::read(golden(f)).unwrap()))
        .collect();
    let flips = FlipsSettings {
        bins: vec![2, 5, 20, 60],
        m: 2,
        m_ref: 60,
        ..FlipsSettings::default()
    };
    Record {
        contract: CONTRACT,
        producer: Producer {
            name: "test".into(),
            version: "0".into(),
            build: "b".into(),
        },
        inputs: inputs.clone(),
        settings: ViewState {
            data: DataSource::Files { files: inputs },
            ..ViewState::default()
        },
        options: options(&[15]),
        audits: vec![doc_of(ds, &[15], s)],
        tables: record_tables_with(ds, Some(&flips), Some(s)).unwrap(),
    }
}

fn reverify_of(recorded: &Value, file: &str) -> Vec<Check> {
    let parsed = calibscope_io::open_paths(&[golden(file)], &calibscope_io::Options::default());
    let inputs = vec![file_ref(file, &std::fs::read(golden(file)).unwrap())];
    let producer = Producer {
        name: "t".into(),
        version: "0".into(),
        build: "b".into(),
    };
    let (_, checks, notes) = reverify(recorded, &parsed, file, inputs, producer).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    checks
}

#[test]
fn a_record_with_section_8_verifies_and_tampering_is_caught() {
    let file = "digits_zoo3_head60_probs.csv";
    let ds = open(file);
    let recorded = record(&ds, &[file], &settings(2)).to_json();
    let name = ds.models[0].0.clone();
    // the record holds every new path
    let model = &recorded["audits"][0]["models"][&name];
    assert!(model["readings"]["confidence"]["tests"]["hosmer_lemeshow"].is_object());
    assert!(
        recorded["tables"]["models"][&name]["binning_free"]["confidence"]["smooth"]["t"].is_array()
    );
    assert!(recorded["tables"]["flips"]["noise"]["pair_order"].is_object());
    let checks = reverify_of(&recorded, file);
    let bad: Vec<_> = checks.iter().filter(|c| !c.ok()).collect();
    assert!(bad.is_empty(), "{bad:?}");
    let under = |p: &str| checks.iter().filter(|c| c.path.contains(p)).count();
    assert!(under(".intervals.") > 20 && under(".verdict.") > 5 && under("noise.pair_order") > 5);

    let tamper = |edit: &dyn Fn(&mut Value), path: &str| {
        let mut t = recorded.clone();
        edit(&mut t);
        let checks = reverify_of(&t, file);
        let bad: Vec<&Check> = checks.iter().filter(|c| !c.ok()).collect();
        assert_eq!(bad.len(), 1, "{path}: {bad:?}");
        assert_eq!(bad[0].path, path);
        assert!(matches!(bad[0].status, Status::Differs { .. }));
    };
    let n = name.clone();
    tamper(
        &|t| {
            let lo = &mut t["audits"][0]["models"][&n]["readings"]["confidence"]["intervals"]
                ["width.15.ece"][0];
            *lo = json!(f(lo) * 0.9);
        },
        &format!("audits.0.models.{name}.readings.confidence.intervals.width.15.ece.0"),
    );
    tamper(
        &|t| t["audits"][0]["models"][&n]["verdict"]["p"] = json!(0.5),
        &format!("audits.0.models.{name}.verdict.p"),
    );
    tamper(
        &|t| t["tables"]["flips"]["noise"]["pair_order"]["60"][0][1] = json!(0.123),
        "tables.flips.noise.pair_order.60.0.1",
    );
}

#[test]
fn flips_noise_follows_its_rule() {
    let file = "digits_zoo3_head60_probs.csv";
    let ds = open(file);
    let s = settings(2);
    let tables = record_tables_with(
        &ds,
        Some(&FlipsSettings {
            bins: vec![1, 2, 3, 5, 10, 20, 60],
            m: 2,
            m_ref: 60,
            ..FlipsSettings::default()
        }),
        Some(&s),
    )
    .unwrap();
    let noise = &tables["flips"]["noise"];
    assert_eq!(f(&noise["stable_share"]), stable_share(s.alpha));
    let k = ds.models.len();
    for (m, matrix) in noise["pair_order"].as_object().unwrap() {
        for a in 0..k {
            assert!(matrix[a][a].is_null());
            for b in 0..k {
                assert_eq!(matrix[a][b], matrix[b][a], "m {m}");
                if let Some(x) = matrix[a][b].as_f64() {
                    assert!((0.0..=1.0).contains(&x));
                }
            }
        }
    }
    let mut flips = 0;
    for list in noise["flips"].as_object().unwrap().values() {
        for flip in list.as_array().unwrap() {
            flips += 1;
            let sh = (flip["shares"][0].as_f64(), flip["shares"][1].as_f64());
            assert_eq!(flip["within_noise"], json!(within_noise(sh, s.alpha)));
        }
    }
    // the same flipped pairs as the section's own matrix
    let matrix = &tables["flips"]["matrices"]["confece"]["flip_pairs"];
    let listed: usize = matrix
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_array().unwrap().len())
        .sum();
    assert_eq!(flips, listed);
    // a binning-free ranked metric has no noise section but says why
    let t = record_tables_with(
        &ds,
        Some(&FlipsSettings {
            metric: "error".into(),
            ..FlipsSettings::default()
        }),
        Some(&s),
    )
    .unwrap();
    assert!(t["flips"]["noise"]["unavailable"]
        .as_str()
        .unwrap()
        .contains("bin count"));
}

#[test]
fn diagram_tables_hold_the_curves() {
    let ds = open("breast_cancer_logreg_logit.csv");
    let set = &ds.models[0].1;
    let t = diagram_tables(set);
    let pairs = top_labels(set).pairs();
    let sm = smece(&pairs.forecast, &pairs.outcome).unwrap();
    let smooth = &t["confidence"]["smooth"];
    assert_eq!(smooth["t"].as_array().unwrap().len(), sm.curve.t.len());
    assert_eq!(f(&smooth["sigma"]), sm.sigma);
    let cum = &t["confidence"]["cumulative"];
    let points = cum["points"].as_array().unwrap();
    assert_eq!(points.len(), set.n() + 1, "every point up to 1000 samples");
    assert_eq!(points[0], json!([0.0, 0.0]));
    assert_eq!(f(&points[set.n()][0]), 1.0);
}
