//! Multilabel tables: detection by name, the pairs' values sample-major, the
//! labels as a grouping, located errors, JSON lists, gzip.

use super::*;
use crate::{parse_bytes, ErrorCode, Options};
use calibscope_core::data::{Scores, Values};

fn names(h: &str) -> Vec<String> {
    h.split(',').map(str::to_string).collect()
}

fn detected(h: &str) -> Option<Vec<(String, String, String)>> {
    pairs_of(&names(h)).map(|(pairs, labels)| {
        pairs
            .into_iter()
            .zip(labels)
            .map(|(p, l)| (p.label, p.score, l))
            .collect()
    })
}

fn pair(label: &str, score: &str, name: &str) -> (String, String, String) {
    (label.into(), score.into(), name.into())
}

#[test]
fn pairs_are_found_by_name_and_only_when_every_score_column_has_its_label() {
    assert_eq!(
        detected("id,toxic,obscene,p_toxic,p_obscene"),
        Some(vec![
            pair("toxic", "p_toxic", "toxic"),
            pair("obscene", "p_obscene", "obscene")
        ])
    );
    assert_eq!(
        detected("y_0,y_1,y_2,p_0,p_1,p_2"),
        Some(vec![
            pair("y_0", "p_0", "0"),
            pair("y_1", "p_1", "1"),
            pair("y_2", "p_2", "2")
        ])
    );
    assert_eq!(
        detected("Spam_True,Spam_Prob,Ham_True,Ham_Prob"),
        Some(vec![
            pair("Spam_True", "Spam_Prob", "Spam"),
            pair("Ham_True", "Ham_Prob", "Ham")
        ])
    );
    assert_eq!(
        detected("label_a,label_b,logit_a,logit_b,Unnamed: 0"),
        Some(vec![
            pair("label_a", "logit_a", "a"),
            pair("label_b", "logit_b", "b")
        ])
    );
    // a single label column: multiclass (p_0..) or binary, not multilabel
    assert_eq!(detected("label,p_0,p_1,p_2"), None);
    assert_eq!(detected("y_true,y_0,y_1,p_0,p_1"), None);
    // one label is a binary table
    assert_eq!(detected("toxic,p_toxic"), None);
    // a score column without its label column
    assert_eq!(detected("a,b,p_a,p_b,p_c"), None);
    // a label with two label columns is ambiguous
    assert_eq!(detected("a,y_a,b,p_a,p_b"), None);
    // top-label tables
    assert_eq!(detected("pred,confidence,y_a,p_a,y_b,p_b"), None);
}

const TABLE: &str = "\
id,toxic,obscene,p_toxic,p_obscene,split
a,1,0,0.9,0.2,train
b,0,0,0.3,0.1,test
c,true,TRUE,0.6,0.75,test
";

#[test]
fn each_row_and_label_is_one_binary_prediction_grouped_by_label() {
    let ds = parse_bytes("tox.csv", TABLE.as_bytes(), &Options::default()).unwrap();
    assert_eq!(ds.models.len(), 1);
    let set = &ds.models[0].1;
    assert_eq!(set.k, 2);
    assert_eq!(set.labels, vec![1, 0, 0, 0, 1, 1]);
    match &set.scores {
        Scores::Column {
            values: Values::F64(v),
            source,
        } => {
            assert_eq!(v, &vec![0.9, 0.2, 0.3, 0.1, 0.6, 0.75]);
            assert_eq!(*source, Source::Probs);
        }
        other => panic!("{other:?}"),
    }
    let g = ds.groups.as_ref().expect("labels are groups");
    assert_eq!(g.columns, vec!["label"]);
    // groups sort by their names: obscene before toxic
    assert_eq!(g.names, vec!["obscene", "toxic"]);
    assert_eq!(g.codes, vec![1, 0, 1, 0, 1, 0]);
    assert_eq!(
        ds.ids,
        Some(Ids::Text(
            ["a", "a", "b", "b", "c", "c"].map(String::from).to_vec()
        ))
    );
    let m = ds.detection.multilabel.as_ref().unwrap();
    assert_eq!(m.labels, vec!["toxic", "obscene"]);
    assert_eq!(m.samples, 3);
    assert_eq!(ds.detection.ignored, vec!["split"]);
    assert_eq!(
        ds.detection.mapping.multilabel.as_ref().unwrap()[1],
        LabelPair {
            label: "obscene".into(),
            score: "p_obscene".into()
        }
    );
    let format = &ds.detection.guesses[0];
    assert!(
        format.chose.starts_with("multilabel: 2 labels"),
        "{format:?}"
    );
    assert!(format.why.contains("3 × 2 = 6 pairs"), "{format:?}");
}

#[test]
fn a_grouping_column_splits_every_label_and_none_turns_the_labels_off() {
    let mut opts = Options::default();
    opts.mapping.set_groups(&["split".to_string()]);
    let ds = parse_bytes("tox.csv", TABLE.as_bytes(), &opts).unwrap();
    let g = ds.groups.unwrap();
    assert_eq!(g.columns, vec!["label", "split"]);
    assert_eq!(
        g.names,
        vec![
            "obscene · test",
            "obscene · train",
            "toxic · test",
            "toxic · train"
        ]
    );
    assert_eq!(g.codes, vec![3, 1, 2, 0, 2, 0]);
    // `label` names the labels' own grouping (a record of the table says so)
    let mut opts = Options::default();
    opts.mapping
        .set_groups(&["label".to_string(), "split".to_string()]);
    let again = parse_bytes("tox.csv", TABLE.as_bytes(), &opts).unwrap();
    assert_eq!(again.groups.unwrap(), g);
    let mut opts = Options::default();
    opts.mapping.set_groups(&["none".to_string()]);
    let ds = parse_bytes("tox.csv", TABLE.as_bytes(), &opts).unwrap();
    assert_eq!(ds.groups, None);
    assert_eq!(ds.n(), 6);
}

#[test]
fn without_an_id_column_a_pair_carries_its_rows_number() {
    let text = "y_0,y_1,p_0,p_1\n1,0,0.8,0.4\n0,1,0.1,0.7\n";
    let ds = parse_bytes("m.csv", text.as_bytes(), &Options::default()).unwrap();
    assert_eq!(ds.ids, Some(Ids::Int(vec![1, 1, 2, 2])));
    assert_eq!(ds.groups.unwrap().names, vec!["0", "1"]);
}

#[test]
fn logit_columns_are_logits_and_a_mix_is_refused() {
    let text = "y_a,y_b,logit_a,logit_b\n1,0,2.5,-7\n0,1,-1,3\n";
    let ds = parse_bytes("m.csv", text.as_bytes(), &Options::default()).unwrap();
    assert_eq!(ds.models[0].1.source(), Source::Logits);
    let text = "y_a,y_b,logit_a,p_b\n1,0,2.5,0.1\n";
    let e = parse_bytes("m.csv", text.as_bytes(), &Options::default()).unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::InvalidMapping);
    assert!(e.errors[0].message.contains("the same way"), "{e:?}");
}

#[test]
fn bad_cells_are_located_by_row_line_and_column() {
    let text = "y_a,y_b,p_a,p_b\n1,0,0.5,0.5\n2,0,0.5,0.5\n1,0,1.5,\n1,0\n0,1,x,0.2\n";
    let e = parse_bytes("m.csv", text.as_bytes(), &Options::default()).unwrap_err();
    type Located = (ErrorCode, Option<u64>, Option<u64>, Option<String>);
    let got: Vec<Located> = e
        .errors
        .iter()
        .map(|e| {
            (
                e.code,
                e.location.row,
                e.location.line,
                e.location.column.clone(),
            )
        })
        .collect();
    let col = |c: &str| Some(c.to_string());
    assert_eq!(
        got,
        vec![
            (ErrorCode::BadLabel, Some(1), Some(3), col("y_a")),
            (ErrorCode::ProbOutOfRange, Some(2), Some(4), col("p_a")),
            (ErrorCode::NanOrInf, Some(2), Some(4), col("p_b")),
            (ErrorCode::RaggedRow, Some(3), Some(5), None),
            (ErrorCode::BadNumber, Some(4), Some(6), col("p_a")),
        ]
    );
    assert!(e.errors[0].message.contains("\"2\" is not 0 or 1"));
}

#[test]
fn a_header_without_rows_and_a_mapping_naming_missing_columns_are_refused() {
    let e = parse_bytes("m.csv", b"y_a,y_b,p_a,p_b\n", &Options::default()).unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::HeaderOnly);
    let mut opts = Options::default();
    opts.mapping.multilabel = Some(vec![
        LabelPair {
            label: "has_cat".into(),
            score: "cat_score".into(),
        },
        LabelPair {
            label: "has_dog".into(),
            score: "dog".into(),
        },
    ]);
    let e = parse_bytes(
        "m.csv",
        b"has_cat,has_dog,cat_score,dog_p\n1,0,.5,.5\n",
        &opts,
    )
    .unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::MappingColumnMissing);
    assert_eq!(e.errors[0].location.column.as_deref(), Some("dog"));
}

#[test]
fn the_mapping_names_pairs_whatever_their_names() {
    let mut opts = Options::default();
    opts.mapping.multilabel = Some(vec![
        LabelPair {
            label: "has_cat".into(),
            score: "cat_score".into(),
        },
        LabelPair {
            label: "has_dog".into(),
            score: "dogginess".into(),
        },
    ]);
    let text = "has_dog;has_cat;dogginess;cat_score\n1;0;0.9;0.2\n";
    let ds = parse_bytes("m.csv", text.as_bytes(), &opts).unwrap();
    assert_eq!(ds.models[0].1.labels, vec![0, 1]);
    assert_eq!(
        ds.detection.multilabel.unwrap().labels,
        vec!["has_cat", "has_dog"]
    );
}

#[test]
fn json_records_with_list_values_pair_by_index() {
    let text = r#"[{"id": 7, "y": [0, 1, 1], "probs": [0.2, 0.9, 0.7]},
                   {"id": 8, "y": [1, 0, 0], "probs": [0.6, 0.1, 0.3]}]"#;
    let ds = parse_bytes("m.json", text.as_bytes(), &Options::default()).unwrap();
    assert_eq!(ds.format, Format::Json);
    assert_eq!(ds.models[0].1.labels, vec![0, 1, 1, 1, 0, 0]);
    assert_eq!(ds.ids, Some(Ids::Int(vec![7, 7, 7, 8, 8, 8])));
    // JSON Lines whose values are all lists (no id): records, not an object of columns
    let lines = "{\"y\": [1, 0], \"probs\": [0.9, 0.2]}\n{\"y\": [1, 1], \"probs\": [0.8, 0.6]}\n";
    let ds = parse_bytes("m.jsonl", lines.as_bytes(), &Options::default()).unwrap();
    assert_eq!(ds.models[0].1.labels, vec![1, 0, 1, 1]);
    let flat = "{\"y_a\": 1, \"y_b\": 0, \"p_a\": 0.9, \"p_b\": 1.5}\n";
    let e = parse_bytes("m.jsonl", flat.as_bytes(), &Options::default()).unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::ProbOutOfRange);
    assert_eq!(e.errors[0].location.line, None);
    assert_eq!(e.errors[0].location.row, Some(0));
}

#[test]
fn a_gzipped_table_reads_as_the_plain_one() {
    let plain = parse_bytes("tox.csv", TABLE.as_bytes(), &Options::default()).unwrap();
    let packed = crate::fuzz::gzip(TABLE.as_bytes());
    let ds = parse_bytes("tox.csv.gz", &packed, &Options::default()).unwrap();
    assert_eq!(ds.models, plain.models);
    assert_eq!(ds.groups, plain.groups);
}
