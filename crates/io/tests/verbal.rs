//! Verbalised confidence with abstention (`src/verbal.rs`): detected from the header,
//! fractions and percents ("85", "85%") read to the same predictions, abstentions
//! (empty or NaN) counted and left out of the answered set, and located errors for a
//! mixed column, a bad correctness and a value out of range.

use calibscope_core::data::Scores;
use calibscope_io::{parse_bytes, Dataset, ErrorCode, Options, ParseErrors};
use std::path::Path;

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/verbal")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read(name: &str) -> Result<Dataset, ParseErrors> {
    parse_bytes(name, &data(name), &Options::default())
}

fn inline(text: &str) -> Result<Dataset, ParseErrors> {
    parse_bytes("v.csv", text.as_bytes(), &Options::default())
}

#[test]
fn fractions_and_percents_read_to_the_same_answered_set() {
    let a = read("verbal_fraction.csv").unwrap();
    let b = read("verbal_percent.csv").unwrap();
    assert_eq!(a.models[0].1, b.models[0].1);
    let sel = a.detection.selective.as_ref().unwrap();
    assert_eq!((sel.total, sel.abstained.len(), a.n()), (60, 14, 46));
    assert!(!sel.percent);
    assert!(b.detection.selective.as_ref().unwrap().percent);
    assert_eq!(
        sel.abstained,
        b.detection.selective.as_ref().unwrap().abstained
    );
    let note = |d: &Dataset| {
        let g = d
            .detection
            .guesses
            .iter()
            .find(|g| g.about == "format")
            .unwrap();
        format!("{} | {}", g.chose, g.why)
    };
    assert!(
        note(&a).contains("read as fractions in [0, 1]"),
        "{}",
        note(&a)
    );
    assert!(
        note(&b).contains("read as percent (divided by 100)"),
        "{}",
        note(&b)
    );
    assert!(note(&a).contains("answered 46 of 60 questions (14 abstentions)"));
    // the top-label outcome is the correctness column
    let set = &a.models[0].1;
    let Scores::TopLabel {
        predicted,
        confidence,
    } = &set.scores
    else {
        panic!("a top-label set")
    };
    assert_eq!(confidence.get(0), 0.6);
    assert_eq!(
        (set.labels[0] == predicted[0], set.labels[1] == predicted[1]),
        (false, true)
    );
}

#[test]
fn a_table_with_a_label_column_is_not_read_as_verbalised() {
    let d = inline("label,confidence,pred,correct\n0,0.9,0,1\n1,0.8,0,0\n");
    assert!(d.map_or(true, |d| d.detection.selective.is_none()));
}

fn only_error(text: &str) -> calibscope_io::ParseError {
    let errs = inline(text).expect_err("an error");
    assert_eq!(errs.errors.len(), 1, "{:#?}", errs.errors);
    errs.errors.into_iter().next().unwrap()
}

#[test]
fn a_column_mixing_percent_signs_and_fractions_is_a_located_error() {
    let e = only_error("confidence,correct\n85%,1\n0.5,0\n90%,1\n");
    assert_eq!(e.code, ErrorCode::BadNumber);
    assert_eq!(e.location.row, Some(1));
    assert_eq!(e.location.column.as_deref(), Some("confidence"));
    assert!(
        e.message.contains("write every confidence the same way"),
        "{}",
        e.message
    );
}

#[test]
fn bad_correctness_and_out_of_range_confidence_are_located() {
    let e = only_error("confidence,correct\n0.5,1\n0.7,maybe\n");
    assert_eq!((e.code, e.location.row), (ErrorCode::BadLabel, Some(1)));
    assert_eq!(
        e.message,
        "row 1: correctness \"maybe\" is not 0, 1, true or false"
    );
    let e = only_error("confidence,correct\n0.5,1\n140,0\n");
    assert_eq!((e.code, e.location.row), (ErrorCode::BadNumber, Some(1)));
    let e = only_error("confidence,correct\n,\nNaN,\n");
    assert!(
        e.message.contains("abstained on all 2 questions"),
        "{}",
        e.message
    );
}

/// The fraction fixture with its two columns renamed (and `;`-delimited).
fn renamed() -> String {
    String::from_utf8(data("verbal_fraction.csv"))
        .unwrap()
        .replacen(
            "id,question,verbalized_confidence,correct",
            "id,question,stated,graded",
            1,
        )
}

fn with_mapping(
    text: &str,
    request: calibscope_io::MappingRequest,
) -> Result<Dataset, ParseErrors> {
    let options = Options {
        mapping: request.to_mapping().expect("a valid request"),
        ..Options::default()
    };
    parse_bytes("v.csv", text.as_bytes(), &options)
}

/// Columns named otherwise are read when the mapping names them (the CLI's
/// `--verbalised stated,graded`, the page's form), to the same set as the detected
/// fixture; a missing name is a located error naming the columns there are.
#[test]
fn the_mapping_names_the_two_columns_whatever_they_are_called() {
    let detected = read("verbal_fraction.csv").unwrap();
    // without the mapping the renamed table is not verbalised: no label column
    assert!(inline(&renamed()).is_err());
    let request = calibscope_io::MappingRequest {
        verbalised: vec!["stated".into(), "graded".into()],
        ..Default::default()
    };
    let mapped = with_mapping(&renamed(), request.clone()).unwrap();
    assert_eq!(mapped.models[0].1, detected.models[0].1);
    assert_eq!(mapped.detection.selective, detected.detection.selective);
    // whatever delimiter the header is written with
    let semicolons = "id;stated;graded\n0;60%;false\n1;;\n2;85%;true\n";
    let mapped = with_mapping(semicolons, request.clone()).unwrap();
    assert_eq!(mapped.n(), 2);
    assert_eq!(mapped.detection.selective.as_ref().unwrap().abstained, [1]);
    // a name the header lacks
    let wrong = calibscope_io::MappingRequest {
        verbalised: vec!["stated".into(), "grade".into()],
        ..Default::default()
    };
    let e = with_mapping(&renamed(), wrong).unwrap_err();
    assert_eq!(e.errors.len(), 1);
    assert_eq!(e.errors[0].code, ErrorCode::MappingColumnMissing);
    assert_eq!(e.errors[0].location.column.as_deref(), Some("grade"));
    assert!(
        e.errors[0]
            .message
            .contains("(columns: id, question, stated, graded)"),
        "{}",
        e.errors[0].message
    );
    // the request round-trips, and refuses one column or a label beside it
    let m = request.to_mapping().unwrap();
    assert_eq!(calibscope_io::MappingRequest::from_mapping(&m), request);
    for bad in [
        calibscope_io::MappingRequest {
            verbalised: vec!["stated".into()],
            ..Default::default()
        },
        calibscope_io::MappingRequest {
            verbalised: vec!["stated".into(), "graded".into()],
            label: Some("y".into()),
            ..Default::default()
        },
    ] {
        assert!(bad.to_mapping().is_err(), "{bad:?}");
    }
}

/// A grouping column of a verbalised table: each answered row's group, the
/// abstentions left out; a grouping column the table lacks is a located error.
#[test]
fn verbalised_answers_can_be_grouped() {
    let text = "subject,confidence,correct\nmath,0.9,1\nmath,,\nlaw,0.6,0\nlaw,0.7,1\nmath,80%,1\n"
        .replace("80%", "0.8");
    let request = calibscope_io::MappingRequest {
        groups: vec!["subject".into()],
        ..Default::default()
    };
    let ds = with_mapping(&text, request).unwrap();
    assert_eq!(ds.n(), 4);
    let g = ds.groups.as_ref().expect("grouped");
    assert_eq!(g.columns, ["subject"]);
    assert_eq!(g.names, ["law", "math"]);
    assert_eq!(g.codes, [1, 0, 0, 1]);
    assert_eq!(ds.detection.selective.as_ref().unwrap().abstained, [1]);
    let missing = calibscope_io::MappingRequest {
        groups: vec!["topic".into()],
        ..Default::default()
    };
    let e = with_mapping(&text, missing).unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::MappingColumnMissing);
    assert_eq!(e.errors[0].location.column.as_deref(), Some("topic"));
}

/// The same tables as JSON Lines (nulls and `NaN` for abstentions, booleans for
/// correctness) and as a JSON array of records (percent strings): read to the same
/// answered set and abstentions as the CSV, as JSON.
#[test]
fn verbalised_json_records_read_as_the_csv() {
    for (json, csv) in [
        ("verbal_fraction.jsonl", "verbal_fraction.csv"),
        ("verbal_percent.json", "verbal_percent.csv"),
    ] {
        let j = read(json).unwrap_or_else(|e| panic!("{json}: {e:?}"));
        let c = read(csv).unwrap();
        assert_eq!(j.models[0].1, c.models[0].1, "{json}");
        assert_eq!(j.detection.selective, c.detection.selective, "{json}");
        assert_eq!(j.format, calibscope_io::Format::Json);
        assert_eq!(j.groups, c.groups);
    }
    // located by record and key, without the made-up text's line numbers
    let bad =
        "{\"confidence\": 0.7, \"correct\": true}\n{\"confidence\": [0.2], \"correct\": false}\n";
    let e = parse_bytes("v.jsonl", bad.as_bytes(), &Options::default()).unwrap_err();
    assert_eq!(e.errors[0].location.row, Some(1), "{:?}", e.errors);
    assert_eq!(e.errors[0].location.column.as_deref(), Some("confidence"));
    assert_eq!(e.errors[0].location.line, None);
    // the mapping names the keys
    let renamed = "{\"stated\": 0.7, \"graded\": 1}\n{\"stated\": null, \"graded\": null}\n";
    let request = calibscope_io::MappingRequest {
        verbalised: vec!["stated".into(), "graded".into()],
        ..Default::default()
    };
    let options = Options {
        mapping: request.to_mapping().unwrap(),
        ..Options::default()
    };
    let d = parse_bytes("v.jsonl", renamed.as_bytes(), &options).unwrap();
    assert_eq!(d.n(), 1);
    assert_eq!(d.detection.selective.as_ref().unwrap().total, 2);
}

/// The last row without a line break, ending in an empty field, is read whole: an
/// abstention is counted, an answer with an empty correctness is a located error
/// (before, the row lost its last field).
#[test]
fn a_last_row_ending_in_an_empty_field_is_read_whole() {
    let d = inline("confidence,correct\n0.7,true\n,").unwrap();
    let sel = d.detection.selective.as_ref().unwrap();
    assert_eq!((sel.total, sel.abstained.clone(), d.n()), (2, vec![1], 1));
    let e = inline("confidence,correct\n0.7,true\n0.5,").unwrap_err();
    assert_eq!(e.errors[0].code, ErrorCode::BadLabel);
    assert_eq!(e.errors[0].location.row, Some(1));
    assert_eq!(e.errors[0].location.column.as_deref(), Some("correct"));
}
