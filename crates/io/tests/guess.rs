//! A detected reading the labels contradict is one `mapping_guess` error with the
//! candidate mappings, whatever the file's size, its slices, or the number of
//! threads that read it; and the candidate reads the file.

use calibscope_io::{parse_bytes, read_path, ColumnMapping, ErrorCode, Options, ScoreColumns};

/// `label,p_1..p_k` with 0-based labels (1-based column names), `rows` rows.
fn one_based(rows: usize, k: usize) -> Vec<u8> {
    let mut t = format!(
        "label,{}\n",
        (1..=k)
            .map(|i| format!("p_{i}"))
            .collect::<Vec<_>>()
            .join(",")
    )
    .into_bytes();
    for r in 0..rows {
        let y = (r * 7 + r / 3) % k;
        let rest = 0.5 / (k - 1) as f64;
        let cells: Vec<String> = (0..k)
            .map(|j| {
                if j == y {
                    "0.5".to_string()
                } else {
                    rest.to_string()
                }
            })
            .collect();
        t.extend(format!("{y},{}\n", cells.join(",")).bytes());
    }
    t
}

#[test]
fn one_question_serial_and_parallel() {
    let text = one_based(120_000, 10);
    assert!(text.len() > 9 << 20);
    let serial = parse_bytes("big.csv", &text, &Options::default()).unwrap_err();
    assert_eq!(serial.errors.len(), 1, "{serial}");
    assert_eq!(serial.more, 0);
    let e = &serial.errors[0];
    assert_eq!(e.code, ErrorCode::MappingGuess);
    assert_eq!(e.location.row, Some(0));
    let zeros = (0..120_000).filter(|r| (r * 7 + r / 3) % 10 == 0).count();
    let says = format!("{zeros} labels are not among these names");
    assert!(e.message.contains(&says), "{e}");
    assert_eq!(e.candidates.len(), 1);
    // the value errors are gone with the question: the dataset is still there
    assert!(serial.dataset.is_some());

    let dir = std::env::temp_dir().join(format!("calibscope_guess_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.csv");
    std::fs::write(&path, &text).unwrap();
    let opts = Options {
        threads: 2,
        ..Default::default()
    };
    let parallel = read_path(&path, &opts).unwrap_err();
    assert_eq!(format!("{parallel:?}"), format!("{serial:?}"));

    // the candidate reads it: label i is the i-th column
    let read = read_path(
        &path,
        &Options {
            mapping: e.candidates[0].mapping.clone(),
            ..opts
        },
    )
    .unwrap();
    assert_eq!(read.models[0].1.k, 10);
    assert_eq!(read.class_names[0], "0");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A mapping that names the score columns is no guess: its errors stay per row.
#[test]
fn a_given_mapping_keeps_its_row_errors() {
    let text = one_based(50, 3);
    let mapping = ColumnMapping {
        scores: Some(ScoreColumns::Matrix(vec![
            "p_1".into(),
            "p_2".into(),
            "p_3".into(),
        ])),
        ..Default::default()
    };
    let e = parse_bytes(
        "t.csv",
        &text,
        &Options {
            mapping,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(e.errors.len() > 1);
    assert!(e
        .errors
        .iter()
        .all(|e| e.code == ErrorCode::LabelOutOfRange && e.candidates.is_empty()));
}

/// pandas' `label,p0..p9` (no underscore, the index column first) is 10 classes,
/// not a binary `p1`; a lone `p1` is still binary.
#[test]
fn p0_to_p9_is_ten_classes() {
    let mut t = String::from(",label,p0,p1,p2,p3,p4,p5,p6,p7,p8,p9\n");
    for r in 0..30 {
        let y = r % 10;
        let cells: Vec<&str> = (0..10)
            .map(|j| if j == y { "0.91" } else { "0.01" })
            .collect();
        t.push_str(&format!("{r},{y},{}\n", cells.join(",")));
    }
    let d = parse_bytes("p.csv", t.as_bytes(), &Options::default()).unwrap();
    assert_eq!(d.models[0].1.k, 10);
    assert_eq!(
        d.class_names,
        (0..10).map(|i| i.to_string()).collect::<Vec<_>>()
    );
    assert_eq!(d.detection.ignored, [""]);
    assert!(d.detection.guesses.iter().any(|g| g.about == "index"));
    let d = parse_bytes("b.csv", b"y,p1\n0,0.2\n1,0.7\n", &Options::default()).unwrap();
    assert_eq!(d.models[0].1.k, 2);
    assert!(matches!(
        d.detection.mapping.scores,
        Some(ScoreColumns::Column(ref c)) if c == "p1"
    ));
}
