//! Multilabel files written by the real producers (`bench/multilabel_fixtures.sh`:
//! scikit-learn's digits tagged with four traits, pandas' to_csv and to_parquet,
//! polars' list columns, JSON Lines with lists, gzip) read to the same numbers as
//! the plain binary CSVs holding them: the pooled pairs, and each trait's own.

use std::path::Path;

use calibscope_core::{PredictionSet, Scores, Values};
use calibscope_io::{parse_bytes, Dataset, Format, Ids, Options};

fn read(name: &str, opts: &Options) -> Dataset {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/multilabel")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_bytes(name, &bytes, opts).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn scores(set: &PredictionSet) -> Vec<f64> {
    match &set.scores {
        Scores::Column {
            values: Values::F64(v),
            ..
        } => v.clone(),
        other => panic!("a binary column of f64, not {other:?}"),
    }
}

const TRAITS: [&str; 4] = ["even", "above_4", "prime", "loop"];

#[test]
fn every_producer_reads_to_the_pooled_pairs_grouped_by_trait() {
    let pooled = read("traits_pooled.csv", &Options::default());
    let pooled = &pooled.models[0].1;
    for (name, format, labels) in [
        ("traits.csv", Format::Csv, TRAITS.map(String::from).to_vec()),
        (
            "traits.csv.gz",
            Format::Csv,
            TRAITS.map(String::from).to_vec(),
        ),
        (
            "traits.parquet",
            Format::Parquet,
            TRAITS.map(String::from).to_vec(),
        ),
        (
            "traits_polars_list.parquet",
            Format::Parquet,
            (0..4).map(|j| j.to_string()).collect(),
        ),
        (
            "traits_lists.jsonl",
            Format::Json,
            (0..4).map(|j| j.to_string()).collect(),
        ),
    ] {
        let ds = read(name, &Options::default());
        assert_eq!(ds.format, format, "{name}");
        let set = &ds.models[0].1;
        assert_eq!(set.labels, pooled.labels, "{name}");
        assert_eq!(scores(set), scores(pooled), "{name}: bit for bit");
        let m = ds.detection.multilabel.as_ref().unwrap();
        assert_eq!((m.labels.clone(), m.samples), (labels, 629), "{name}");
        let g = ds.groups.as_ref().unwrap();
        assert_eq!(g.columns, ["label"], "{name}");
        assert_eq!(g.len(), 4, "{name}");
        // pair i·4 + j is trait j of image i
        for (i, &code) in g.codes.iter().enumerate() {
            assert_eq!(g.names[code as usize], m.labels[i % 4], "{name} pair {i}");
        }
        // pandas' index column is ignored, not read as a label or an id
        let ids = ds.ids.as_ref().unwrap();
        let want = if name.ends_with(".jsonl") {
            Ids::Int((100..729).flat_map(|i| [i; 4]).collect())
        } else {
            Ids::Int((1..=629).flat_map(|i| [i; 4]).collect())
        };
        assert_eq!(ids, &want, "{name}");
    }
}

#[test]
fn each_traits_group_is_its_binary_file() {
    let ds = read("traits.csv", &Options::default());
    let g = ds.groups.as_ref().unwrap();
    let rows = g.rows();
    let set = &ds.models[0].1;
    let all = scores(set);
    for t in TRAITS {
        let own = read(&format!("traits_{t}.csv"), &Options::default());
        let own = &own.models[0].1;
        let at = g.names.iter().position(|n| n == t).unwrap();
        let labels: Vec<u32> = rows[at].iter().map(|&i| set.labels[i]).collect();
        let values: Vec<f64> = rows[at].iter().map(|&i| all[i]).collect();
        assert_eq!(labels, own.labels, "{t}");
        assert_eq!(values, scores(own), "{t}");
    }
}
