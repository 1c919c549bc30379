//! The Slices view's numbers equal the grouped audit's (`audit --group`'s
//! `groups` and `worst_group`), and a brushed bin's rows equal a direct filter of
//! the samples.

use super::*;
use calibscope_audit::groups::groups_json;
use calibscope_audit::{AuditOptions, FileInfo, Sections};
use calibscope_core::binning::width_bin;
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_io::{read_path, ColumnMapping, Options};
use serde_json::Value;

fn dataset(name: &str, groups: &[&str]) -> calibscope_io::Dataset {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../audit/tests/data/groups")
        .join(name);
    let options = Options {
        mapping: ColumnMapping {
            groups: groups.iter().map(|g| g.to_string()).collect(),
            ..ColumnMapping::default()
        },
        ..Options::default()
    };
    read_path(&path, &options).unwrap()
}

fn request(binning: Binning, m: usize, permutations: usize) -> SlicesRequest {
    SlicesRequest {
        model: 0,
        binning,
        m,
        min_size: 30,
        permutations,
        seed: 7,
    }
}

fn answer(msg: FromWorker) -> (bool, SlicesAnswer) {
    match msg {
        FromWorker::Slices {
            complete, answer, ..
        } => (complete, answer),
        other => panic!("not a Slices answer: {other:?}"),
    }
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

#[test]
fn the_groups_equal_the_grouped_audit() {
    for (file, column, worst) in [
        ("synthetic_groups.csv", "cohort", Some("overconfident")),
        ("breast_cancer_groups.csv", "radius", None),
    ] {
        let ds = dataset(file, &[column]);
        let set = ds.models[0].1.clone();
        let groups = ds.groups.clone().unwrap();
        let mut s = Session::new(ds);
        assert_eq!(s.summary().group_columns, [column]);
        for binning in [Binning::Width, Binning::Mass] {
            let (complete, first) = answer(s.slices(1, 1, &request(binning, 15, 200), false));
            assert!(!complete && !first.tested && first.p_value.is_none());
            let (complete, page) = answer(s.slices(1, 1, &request(binning, 15, 200), true));
            assert!(complete && page.tested);
            let settings = GroupSettings {
                binning,
                m: 15,
                min_size: 30,
                permutations: 200,
                seed: 7,
                threads: 2,
            };
            // the default bootstrap: each group's verdict as the page gives it
            let bootstrap = BootstrapSettings::default();
            let (doc, worst_doc) = groups_json(
                &set,
                &groups,
                &FileInfo {
                    file: file.into(),
                    files: Vec::new(),
                    format: "csv".into(),
                },
                &AuditOptions {
                    m_values: vec![15],
                    recalibration: None,
                    roc_max_n: 0,
                },
                Sections::Sequential,
                Some(&bootstrap),
                &settings,
            );
            let values = doc["values"].as_array().unwrap();
            assert_eq!(values.len(), page.groups.len());
            for (g, v) in page.groups.iter().zip(values) {
                assert_eq!(g.group, v["group"].as_str().unwrap());
                assert_eq!(g.n as u64, v["n"].as_u64().unwrap());
                assert_eq!(g.too_small, v["too_small"].as_bool().unwrap());
                assert_eq!(g.ece, num(&v["ece"]), "{file} {binning:?} ece");
                assert_eq!(g.accuracy, num(&v["accuracy"]));
                assert_eq!(g.csr, num(&v["csr"]));
                assert_eq!(g.p_risk, num(&v["p_risk"]));
                assert_eq!(g.smece, num(&v["audit"]["binning_free"]["smece"]));
                // the small multiple is the group audit's reliability table
                let rows = &v["audit"]["readings"]["confidence"][binning.name()]["15"];
                assert_eq!(g.ece, num(&rows["ece"]));
                assert_eq!(g.rows.iter().map(|r| r.n).sum::<usize>(), g.n);
                // the verdict of the group's rows alone
                let want = &v["audit"]["verdict"];
                let got = g.verdict.as_ref().expect("a verdict with the test");
                assert_eq!(
                    got.text,
                    want["text"].as_str().unwrap(),
                    "{file} {}",
                    g.group
                );
                assert_eq!(got.kind, want["kind"].as_str().unwrap());
                assert_eq!(got.d, num(&want["d"]));
                assert_eq!(
                    got.d_interval,
                    [num(&want["d_interval"][0]), num(&want["d_interval"][1])]
                );
                assert_eq!(got.p, num(&want["p"]));
            }
            assert!(
                first.groups.iter().all(|g| g.verdict.is_none()),
                "not before the test"
            );
            let test = &doc["test"];
            assert_eq!(page.spread, num(&test["spread"]));
            assert_eq!(page.p_value, num(&test["p_value"]));
            assert_eq!(page.exceed as u64, test["exceed"].as_u64().unwrap());
            assert_eq!(
                page.worst.map(|w| page.groups[w].group.clone()),
                worst_doc["group"].as_str().map(str::to_string)
            );
            if let Some(w) = worst {
                assert_eq!(page.groups[page.worst.unwrap()].group, w);
            }
        }
    }
}

#[test]
fn brushed_rows_are_the_bins_samples() {
    let ds = dataset("synthetic_groups.csv", &["cohort"]);
    let set = ds.models[0].1.clone();
    let codes = ds.groups.as_ref().unwrap().codes.clone();
    let top = reading::top_labels(&set);
    let mut s = Session::new(ds);
    let m = 10;
    for group in [None, Some(2)] {
        for bin in 0..m {
            let want: Vec<usize> = (0..set.n())
                .filter(|&i| group.is_none_or(|g| codes[i] == g as u32))
                .filter(|&i| width_bin(top.confidence[i], m) == bin)
                .map(|i| i + 1)
                .collect();
            let mut got = Vec::new();
            let mut offset = 0;
            loop {
                let r = BrushRequest {
                    model: 0,
                    reading: Reading::Confidence,
                    binning: Binning::Width,
                    m,
                    bin,
                    group,
                    offset,
                    limit: 37,
                    csv: false,
                };
                let FromWorker::Brushed { answer, .. } = s.brush(1, 1, &r) else {
                    panic!("not brushed")
                };
                assert_eq!(answer.total, want.len());
                if answer.rows.is_empty() {
                    break;
                }
                for row in &answer.rows {
                    let i = row.row - 1;
                    assert_eq!(row.forecast, top.confidence[i]);
                    assert_eq!(row.groups.len(), 1);
                }
                got.extend(answer.rows.iter().map(|r| r.row));
                offset += answer.rows.len();
            }
            assert_eq!(got, want, "{group:?} bin {bin}");
            // the CSV holds the same rows
            let r = BrushRequest {
                model: 0,
                reading: Reading::Confidence,
                binning: Binning::Width,
                m,
                bin,
                group,
                offset: 0,
                limit: 1,
                csv: true,
            };
            let FromWorker::Brushed { answer, .. } = s.brush(1, 1, &r) else {
                panic!("not brushed")
            };
            let csv = answer.csv.unwrap();
            let mut lines = csv.lines();
            assert_eq!(lines.next(), Some("row,label,prediction,confidence,cohort"));
            let rows: Vec<usize> = lines
                .map(|l| l.split(',').next().unwrap().parse().unwrap())
                .collect();
            assert_eq!(rows, want);
        }
    }
    // a bin that does not exist is an error, not a panic
    let r = BrushRequest {
        model: 0,
        reading: Reading::Confidence,
        binning: Binning::Width,
        m,
        bin: m,
        group: None,
        offset: 0,
        limit: 10,
        csv: false,
    };
    assert!(matches!(s.brush(1, 1, &r), FromWorker::Error { .. }));
}

/// The second part run in slices of any size (as the worker runs it) answers what
/// it answers in one piece; a second part at another bin count keeps the verdicts
/// (nothing to bootstrap again) and tests again.
#[test]
fn the_second_part_in_slices_is_the_same() {
    let ds = dataset("synthetic_groups.csv", &["cohort"]);
    let mut whole = Session::new(ds.clone());
    let want = answer(whole.slices(1, 1, &request(Binning::Width, 15, 300), true)).1;
    let mut s = Session::new(ds);
    let mut job = s
        .slices_start(2, 2, &request(Binning::Width, 15, 300))
        .unwrap()
        .unwrap();
    let (_, total) = job.progress();
    assert_eq!(
        total,
        300 + 3 * 1000,
        "the permutations, then 1000 replicates per group"
    );
    let mut steps = 0;
    for size in [1, 3, 50, 299, 7, 1000].into_iter().cycle() {
        let (done, total) = job.step(size);
        steps += 1;
        if done >= total {
            break;
        }
    }
    assert!(steps > 6);
    let got = answer(s.slices_finish(job)).1;
    assert_eq!(got, want);
    assert!(got.groups.iter().all(|g| g.verdict.is_some()));
    // another bin count: the test runs again, the verdicts are kept
    let job = s
        .slices_start(3, 3, &request(Binning::Mass, 10, 300))
        .unwrap()
        .unwrap();
    assert_eq!(job.progress(), (0, 300));
    let again = answer(s.slices_finish(job)).1;
    let verdicts = |a: &SlicesAnswer| {
        a.groups
            .iter()
            .map(|g| g.verdict.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts(&again), verdicts(&got));
    assert!(again.tested && again.p_value.is_some());
}
