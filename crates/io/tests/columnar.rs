//! Parquet and Arrow IPC files written by the real producers (pandas + pyarrow,
//! polars, pyarrow; `bench/columnar_fixtures.sh`) read to the same prediction sets
//! as the canonical `label,p_<class>` CSV holding the same numbers; and the bad
//! files are refused with a located message saying what to do.

use std::path::Path;

use calibscope_core::Values;
use calibscope_io::{
    parse_bytes, read_path, ColumnMapping, Dataset, ErrorCode, Format, Ids, Options, Parser, Pick,
    ScoreColumns,
};

fn path(dir: &str, name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(dir)
        .join(name)
}

fn read(dir: &str, name: &str, opts: &Options) -> Dataset {
    let bytes = std::fs::read(path(dir, name)).unwrap();
    parse_bytes(name, &bytes, opts).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn canonical(name: &str) -> Dataset {
    read("sklearn", name, &Options::default())
}

/// Same labels, classes and scores (as f64, bit for bit) in every model.
fn same_sets(a: &Dataset, b: &Dataset) {
    assert_eq!(a.class_names, b.class_names);
    assert_eq!(a.models.len(), b.models.len());
    for ((_, x), (_, y)) in a.models.iter().zip(&b.models) {
        assert_eq!(x.labels, y.labels);
        assert_eq!(x.k, y.k);
        assert_eq!(as_f64(x), as_f64(y));
    }
}

fn as_f64(set: &calibscope_core::PredictionSet) -> Vec<f64> {
    let values = match &set.scores {
        calibscope_core::Scores::Column { values, .. }
        | calibscope_core::Scores::Matrix { values, .. } => values,
        other => panic!("unexpected scores {other:?}"),
    };
    match values {
        Values::F64(v) => v.clone(),
        Values::F32(v) => v.iter().map(|&x| x as f64).collect(),
    }
}

#[test]
fn every_producer_and_codec_reads_as_the_canonical_csv() {
    let digits = canonical("digits_canonical.csv");
    for name in [
        "digits_pandas.parquet",
        "digits_pandas_index.parquet",
        "digits_zstd.parquet",
        "digits_gzip.parquet",
        "digits_lz4.parquet",
        "digits_none.parquet",
        "digits_row_groups.parquet",
        "digits_polars_list.parquet",
    ] {
        let ds = read("columnar", name, &Options::default());
        same_sets(&ds, &digits);
        assert_eq!(ds.format, Format::Parquet, "{name}");
        assert_eq!(ds.format.name(), "parquet");
        assert_eq!(ds.models[0].0, name.trim_end_matches(".parquet"));
    }
    for name in ["digits.feather", "digits.arrows"] {
        let ds = read("columnar", name, &Options::default());
        same_sets(&ds, &digits);
        assert_eq!(ds.format, Format::ArrowIpc, "{name}");
    }
    let cancer = read("columnar", "cancer_pandas.parquet", &Options::default());
    same_sets(&cancer, &canonical("cancer_canonical.csv"));
    assert_eq!(cancer.models[0].1.k, 2);
}

#[test]
fn float32_lists_keep_their_precision() {
    let digits = canonical("digits_canonical.csv");
    let ds = read("columnar", "digits_fixed_f32.parquet", &Options::default());
    assert!(matches!(
        &ds.models[0].1.scores,
        calibscope_core::Scores::Matrix {
            values: Values::F32(_),
            k: 10,
            ..
        }
    ));
    assert_eq!(ds.models[0].1.labels, digits.models[0].1.labels);
    let want: Vec<f64> = as_f64(&digits.models[0].1)
        .iter()
        .map(|&x| x as f32 as f64)
        .collect();
    assert_eq!(as_f64(&ds.models[0].1), want);
}

#[test]
fn class_names_from_dictionary_encoded_labels() {
    let ds = read("columnar", "iris_category.parquet", &Options::default());
    let csv = read("sklearn", "iris_classes.csv", &Options::default());
    same_sets(&ds, &csv);
    assert_eq!(ds.class_names, ["setosa", "versicolor", "virginica"]);
}

#[test]
fn struct_fields_by_dotted_names_and_text_ids() {
    let digits = canonical("digits_canonical.csv");
    let opts = Options {
        mapping: ColumnMapping {
            label: Some("target".into()),
            scores: Some(ScoreColumns::Column("model_response.scores".into())),
            ..ColumnMapping::default()
        },
        ..Options::default()
    };
    let ds = read("columnar", "digits_struct.parquet", &opts);
    same_sets(&ds, &digits);
    match &ds.ids {
        Some(Ids::Text(ids)) => {
            assert_eq!(ids.len(), digits.n());
            assert_eq!(ids[3], "q3");
        }
        other => panic!("ids {other:?}"),
    }
    assert_eq!(
        ds.detection.columns,
        [
            "id",
            "target",
            "model_response.scores",
            "model_response.argmax"
        ]
    );
    // without the mapping, the error lists the dotted names
    let bytes = std::fs::read(path("columnar", "digits_struct.parquet")).unwrap();
    let e = parse_bytes("digits_struct.parquet", &bytes, &Options::default()).unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::MissingScoreColumns);
    assert!(e.errors[0].message.contains("model_response.scores"));
}

#[test]
fn long_format_gives_one_model_per_value() {
    let ds = read("columnar", "digits_long.parquet", &Options::default());
    let names: Vec<&str> = ds.models.iter().map(|m| m.0.as_str()).collect();
    assert_eq!(names, ["lr", "lr_sharp"]);
    assert_eq!(ds.format, Format::Parquet);
    assert_eq!(ds.detection.mapping.model, Pick::Column("model".into()));
    let lr = canonical("digits_canonical.csv");
    let sharp = read(
        "columnar",
        "digits_sharp_canonical.csv",
        &Options::default(),
    );
    assert_eq!(as_f64(&ds.models[0].1), as_f64(&lr.models[0].1));
    assert_eq!(as_f64(&ds.models[1].1), as_f64(&sharp.models[0].1));
    assert_eq!(ds.models[1].1.labels, sharp.models[0].1.labels);
}

#[test]
fn slices_and_paths_give_the_same_dataset() {
    let name = "digits_row_groups.parquet";
    let bytes = std::fs::read(path("columnar", name)).unwrap();
    let whole = parse_bytes(name, &bytes, &Options::default()).unwrap();
    for size in [1, 4096, 1 << 20] {
        let mut p = Parser::new(name, Options::default());
        for c in bytes.chunks(size) {
            p.push(c).unwrap();
        }
        assert_eq!(p.finish().unwrap(), whole);
    }
    let from_path = read_path(&path("columnar", name), &Options::default()).unwrap();
    assert_eq!(from_path.models, whole.models);
}

#[test]
fn bad_files_say_what_is_wrong_and_where() {
    // (file, code, row, column, the message says)
    type Case<'a> = (&'a str, ErrorCode, Option<u64>, Option<&'a str>, &'a str);
    let cases: &[Case] = &[
        (
            "parquet_truncated.parquet",
            ErrorCode::ColumnarBad,
            None,
            None,
            "truncated or damaged",
        ),
        (
            "parquet_magic.parquet",
            ErrorCode::ColumnarBad,
            None,
            None,
            "Corrupt footer",
        ),
        (
            "parquet_brotli.parquet",
            ErrorCode::ColumnarUnsupported,
            None,
            None,
            "compression='zstd'",
        ),
        (
            "parquet_text_scores.parquet",
            ErrorCode::BadNumber,
            None,
            Some("p_3"),
            "holds text",
        ),
        (
            "parquet_ragged_list.parquet",
            ErrorCode::RaggedRow,
            Some(7),
            Some("probs"),
            "has 9 values but the first row's has 10",
        ),
        (
            "parquet_null_label.parquet",
            ErrorCode::BadLabel,
            Some(5),
            Some("label"),
            "missing",
        ),
    ];
    for &(name, code, row, column, says) in cases {
        let bytes = std::fs::read(path("../corpus/bad", name)).unwrap();
        let e = parse_bytes(name, &bytes, &Options::default()).unwrap_err();
        let first = &e.errors[0];
        assert_eq!(first.code, code, "{name}: {first:?}");
        assert_eq!(first.file, name);
        assert_eq!(first.location.row, row, "{name}");
        assert_eq!(first.location.column.as_deref(), column, "{name}");
        assert!(first.message.contains(says), "{name}: {}", first.message);
    }
    // a Feather file cut in half
    let name = "arrow_truncated.feather";
    let bytes = std::fs::read(path("../corpus/bad", name)).unwrap();
    let e = parse_bytes(name, &bytes, &Options::default()).unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::ColumnarBad);
    assert!(e.errors[0]
        .message
        .contains("Arrow IPC (Feather) file cannot be read"));
    // UTF-32 text is not mistaken for an Arrow stream (both start with 0xFF)
    let e = parse_bytes("u.csv", b"\xff\xfe\0\0l\0\0\0", &Options::default()).unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::UnknownFormat);
}

#[test]
fn limits_hold_before_decoding() {
    let name = "digits_pandas.parquet";
    let bytes = std::fs::read(path("columnar", name)).unwrap();
    let opts = Options {
        max_cells: 1000,
        ..Options::default()
    };
    let e = parse_bytes(name, &bytes, &opts).unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::TooManyCells);
    let opts = Options {
        max_file_bytes: 1000,
        ..Options::default()
    };
    let e = parse_bytes(name, &bytes, &opts).unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::FileTooLarge);
}

#[test]
fn a_flat_table_as_csv_reads_back_to_the_same_numbers() {
    let name = "digits_pandas.parquet";
    let bytes = std::fs::read(path("columnar", name)).unwrap();
    let csv = calibscope_io::table_as_csv(name, bytes).unwrap();
    assert!(csv.starts_with("label,p_0,p_1,"), "{}", &csv[..40]);
    let back = parse_bytes("back.csv", csv.as_bytes(), &Options::default()).unwrap();
    same_sets(&back, &canonical("digits_canonical.csv"));
    // text with a comma is quoted; a list column is refused by name
    let iris = std::fs::read(path("columnar", "iris_category.parquet")).unwrap();
    let csv = calibscope_io::table_as_csv("iris.parquet", iris).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + read("columnar", "iris_category.parquet", &Options::default()).n()
    );
    let list = std::fs::read(path("columnar", "digits_polars_list.parquet")).unwrap();
    let e = calibscope_io::table_as_csv("l.parquet", list).unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::ColumnarUnsupported);
    assert!(e.errors[0].message.contains("\"probs\" holds lists"));
    // the names come from the footer alone
    assert_eq!(
        calibscope_io::column_names(&path("columnar", "digits_struct.parquet")).unwrap(),
        [
            "id",
            "target",
            "model_response.scores",
            "model_response.argmax"
        ]
    );
    assert_eq!(
        calibscope_io::column_names(&path("columnar", "digits.feather")).unwrap()[0],
        "label"
    );
    assert!(calibscope_io::column_names(&path("sklearn", "digits_canonical.csv")).is_none());
}

/// A long-format file's errors are located at the file's rows and name the model;
/// a model column the mapping names but the file lacks is an error, not ignored.
#[test]
fn long_format_errors_point_at_the_file_row() {
    let name = "parquet_long_label_out_of_range.parquet";
    let bytes = std::fs::read(path("../corpus/bad", name)).unwrap();
    let e = parse_bytes(name, &bytes, &Options::default()).unwrap_err();
    let first = &e.errors[0];
    assert_eq!(first.code, ErrorCode::LabelOutOfRange, "{first:?}");
    assert_eq!(first.location.row, Some(629 + 5));
    assert_eq!(first.location.model.as_deref(), Some("lr_sharp"));
    let bytes = std::fs::read(path("columnar", "digits_pandas.parquet")).unwrap();
    let opts = Options {
        mapping: ColumnMapping {
            model: Pick::Column("system".into()),
            ..ColumnMapping::default()
        },
        ..Options::default()
    };
    let e = parse_bytes("d.parquet", &bytes, &opts).unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::MappingColumnMissing);
    assert!(e.errors[0]
        .message
        .contains("\"system\" is not in the file"));
}
