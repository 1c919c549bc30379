#![allow(dead_code)]
pub mod build;
pub mod inline;
use std::path::PathBuf;

/// `shared/` (fixtures): `$CALIBSCOPE_SHARED`, else the repository root's sibling.
#[allow(unused_imports)] // not every test binary that includes this module uses both
pub use calibscope_test_support::{fixtures, shared};

/// Every `*.expected.json` under the four data directories, sorted.
pub fn expected_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["real", "edge", "multi", "synthetic"] {
        let d = fixtures().join(dir);
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.to_string_lossy().ends_with(".expected.json") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// The data files of one expected file.
pub fn data_files(expected: &std::path::Path, json: &serde_json::Value) -> Vec<PathBuf> {
    let dir = expected.parent().unwrap();
    match json.get("files").and_then(|f| f.as_array()) {
        Some(files) => files
            .iter()
            .map(|f| dir.join(f.as_str().unwrap()))
            .collect(),
        None => vec![dir.join(json["file"].as_str().unwrap())],
    }
}
