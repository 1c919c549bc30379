//! Every fixture under shared/fixtures/{real,edge,multi,synthetic} parses to the
//! kind / source / n / k / columns / format of its `.expected.json`, and the invalid
//! ones give exactly their `errors` lists.

use crate::common;

use calibscope_io::{open_paths, Options};

#[test]
fn every_fixture_parses_as_expected() {
    let files = common::expected_files();
    assert!(
        files.len() >= 40,
        "fixtures not found under {:?}",
        common::fixtures()
    );
    let mut checked = 0;
    for exp in files {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&exp).unwrap()).unwrap();
        let data = common::data_files(&exp, &json);
        let res = open_paths(&data, &Options::default());
        let input = &json["input"];
        let what = exp.file_name().unwrap().to_string_lossy().to_string();
        if json["input_error"].as_bool().unwrap() {
            let errs = res.expect_err(&what);
            let want: Vec<(u64, String)> = json["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    (
                        e["row"].as_u64().unwrap(),
                        e["kind"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            let got: Vec<(u64, String)> = errs
                .errors
                .iter()
                .map(|e| (e.location.row.unwrap(), e.code.code().to_string()))
                .collect();
            assert_eq!(got, want, "{what}: {errs}");
            assert!(
                errs.dataset.is_some(),
                "{what}: value errors keep the dataset"
            );
            for e in &errs.errors {
                eprintln!("  {e}");
            }
            checked += 1;
            continue;
        }
        let ds = res.unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(
            ds.format.name(),
            input["format"].as_str().unwrap(),
            "{what} format"
        );
        let n = input["n"].as_u64().unwrap() as usize;
        let k = input["k"].as_u64().unwrap() as usize;
        if let Some(models) = input.get("models") {
            let names: Vec<&str> = models
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect();
            let got: Vec<&str> = ds.models.iter().map(|m| m.0.as_str()).collect();
            assert_eq!(got, names, "{what} models");
        } else {
            assert_eq!(ds.models.len(), 1, "{what}");
            assert_eq!(
                ds.models[0].0,
                json["file"]
                    .as_str()
                    .unwrap()
                    .trim_end_matches(".csv")
                    .trim_end_matches(".npz")
                    .trim_end_matches(".npy")
            );
        }
        for (name, set) in &ds.models {
            assert_eq!(set.n(), n, "{what} {name} n");
            assert_eq!(set.k, k, "{what} {name} k");
            assert_eq!(
                set.kind().name(),
                input["kind"].as_str().unwrap(),
                "{what} {name} kind"
            );
            assert_eq!(
                set.source().name(),
                input["source"].as_str().unwrap(),
                "{what} {name} source"
            );
            if let Some(c) = input.get("columns") {
                assert_eq!(
                    set.columns() as u64,
                    c.as_u64().unwrap(),
                    "{what} {name} columns"
                );
            }
            assert!(set.validate().is_empty(), "{what} {name}");
        }
        assert_eq!(ds.class_names.len(), k, "{what} class names");
        if let Some(files) = json.get("files") {
            let want: Vec<&str> = files
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap())
                .collect();
            assert_eq!(ds.files, want, "{what} files");
            assert_eq!(ds.name, json["file"].as_str().unwrap());
        }
        checked += 1;
    }
    eprintln!("{checked} fixtures checked");
}
