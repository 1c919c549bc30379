//! Every supported input form, on small inline inputs.

use crate::common;
use common::inline::*;

use calibscope_core::{Kind, Scores, Values};
use calibscope_io::{parse_bytes, ColumnMapping, Format, Ids, Options, Pick, ScoreColumns, Source};

#[test]
fn csv_dialects_give_the_same_dataset() {
    let base = ok(
        "a.csv",
        b"label,p_0,p_1,p_2\n0,0.7,0.2,0.1\n2,.1,1e-1,0.8\n1,0,1,-0\n",
    );
    let variants: Vec<(&str, Vec<u8>)> = vec![
        ("bom+crlf", b"\xef\xbb\xbflabel,p_0,p_1,p_2\r\n0,0.7,0.2,0.1\r\n2,.1,1e-1,0.8\r\n1,0,1,-0\r\n".to_vec()),
        ("tsv", b"label\tp_0\tp_1\tp_2\n0\t0.7\t0.2\t0.1\n2\t.1\t1e-1\t0.8\n1\t0\t1\t-0\n".to_vec()),
        ("semicolon", b"label;p_0;p_1;p_2\n0;0.7;0.2;0.1\n2;.1;1e-1;0.8\n1;0;1;-0\n".to_vec()),
        ("quoted", b"\"label\",\"p_0\",\"p_1\",\"p_2\"\n\"0\",\"0.7\",0.2,0.1\n2,.1,1e-1,\"0.8\"\n1,0,1,-0".to_vec()),
        ("blank trailing", b"label,p_0,p_1,p_2\n0,0.7,0.2,0.1\n2,.1,1e-1,0.8\n1,0,1,-0\n\n\n  \n".to_vec()),
        ("spaces", b"Label , P_0 , P_1 , P_2\n 0 , 0.7 , 0.2 , 0.1 \n2,.1,1e-1,0.8\n1,0,1,-0\n".to_vec()),
        ("reordered", b"p_2,p_1,label,p_0\n0.1,0.2,0,0.7\n0.8,1e-1,2,.1\n-0,1,1,0\n".to_vec()),
    ];
    for (what, bytes) in variants {
        let ds = ok("a.csv", &bytes);
        assert_eq!(ds.models[0].1.labels, base.models[0].1.labels, "{what}");
        assert_eq!(scores(&ds), scores(&base), "{what}");
        assert_eq!(ds.models[0].1.k, 3, "{what}");
    }
    assert_eq!(
        scores(&base),
        vec![0.7, 0.2, 0.1, 0.1, 0.1, 0.8, 0.0, 1.0, -0.0]
    );
    assert!(matches!(
        &base.models[0].1.scores,
        Scores::Matrix {
            values: Values::F64(_),
            k: 3,
            source: Source::Probs
        }
    ));
}

#[test]
fn csv_forms() {
    // binary p
    let d = ok("b.csv", b"y,p\n1,0.9\n0,0.2\n");
    assert_eq!(d.models[0].1.kind(), Kind::Binary);
    assert_eq!(d.models[0].1.columns(), 1);
    // binary logit
    let d = ok("b.csv", b"target,logit\n1,2.5\n0,-1\n");
    assert_eq!(d.models[0].1.source(), Source::Logits);
    // score: decided by value
    let d = ok("b.csv", b"label,score\n1,2.5\n0,-1\n");
    assert_eq!(d.models[0].1.source(), Source::Logits);
    assert!(d.detection.guesses.iter().any(|g| g.about == "source"));
    let d = ok("b.csv", b"label,score\n1,0.5\n0,0.1\n");
    assert_eq!(d.models[0].1.source(), Source::Probs);
    // booleans as labels
    let d = ok("b.csv", b"label,p\nTrue,0.9\nFalse,0.2\n");
    assert_eq!(d.models[0].1.labels, vec![1, 0]);
    // logits z_
    let d = ok("b.csv", b"class,z_0,z_1,z_2\n1,0.5,3,-2\n");
    assert_eq!(d.models[0].1.source(), Source::Logits);
    assert_eq!(d.models[0].1.kind(), Kind::Multiclass);
    // top-label
    let d = ok("t.csv", b"label,yhat,conf\n0,0,0.9\n3,1,0.4\n");
    assert_eq!(d.models[0].1.kind(), Kind::TopLabel);
    assert_eq!(d.models[0].1.k, 4);
    let d = ok("t.csv", b"y_true,pred,confidence\n0,0,0.9\n1,1,0.4\n");
    assert_eq!(d.models[0].1.kind(), Kind::TopLabel);
    // named classes, labels by name
    let d = ok(
        "n.csv",
        b"label,prob_cat,prob_dog\ncat,0.9,0.1\ndog,0.3,0.7\n",
    );
    assert_eq!(d.class_names, ["cat", "dog"]);
    assert_eq!(d.models[0].1.labels, vec![0, 1]);
    // named classes, integer labels are positions
    let d = ok(
        "n.csv",
        b"label,proba_cat,proba_dog,proba_eel\n2,0.1,0.1,0.8\n",
    );
    assert_eq!(d.models[0].1.labels, vec![2]);
    // 1-based class columns: labels matched by name
    let d = ok(
        "n.csv",
        b"label,p_1,p_2,p_3\n1,0.8,0.1,0.1\n3,0.1,0.1,0.8\n",
    );
    assert_eq!(d.models[0].1.labels, vec![0, 2]);
    assert_eq!(d.class_names, ["1", "2", "3"]);
    // ids
    let d = ok("i.csv", b"id,label,p\n10,1,0.9\n11,0,0.2\n");
    assert_eq!(d.ids, Some(Ids::Int(vec![10, 11])));
    let d = ok("i.csv", b"id,label,p\na,1,0.9\nb,0,0.2\n");
    assert_eq!(d.ids, Some(Ids::Text(vec!["a".into(), "b".into()])));
    // extra columns are ignored and listed
    let d = ok("x.csv", b"label,p,notes\n1,0.9,hello\n");
    assert_eq!(d.detection.ignored, ["notes"]);
    // no trailing newline, quoted field with a comma and a newline
    let d = ok("q.csv", b"label,p,notes\n1,0.9,\"a, b\nc\"\n0,0.1,x");
    assert_eq!(d.n(), 2);
    // logits preferred over probabilities, with a guess
    let d = ok("g.csv", b"label,p_0,p_1,logit_0,logit_1\n1,0.2,0.8,0,1.4\n");
    assert_eq!(d.models[0].1.source(), Source::Logits);
    assert!(d.detection.guesses.iter().any(|g| g.about == "scores"));
}

#[test]
fn mapping_overrides_detection() {
    let csv = b"truth,a,b,c,other\n0,0.2,0.3,0.5,0.9\n1,0.5,0.4,0.1,0.1\n";
    let opts = Options {
        mapping: ColumnMapping {
            label: Some("truth".into()),
            scores: Some(ScoreColumns::Matrix(vec![
                "a".into(),
                "b".into(),
                "c".into(),
            ])),
            ..Default::default()
        },
        ..Default::default()
    };
    let d = parse_bytes("m.csv", csv, &opts).unwrap();
    assert_eq!(d.models[0].1.k, 3);
    assert_eq!(d.class_names, ["a", "b", "c"]);
    // the detection's mapping, passed back, gives the same result
    let opts2 = Options {
        mapping: d.detection.mapping.clone(),
        ..Default::default()
    };
    assert_eq!(parse_bytes("m.csv", csv, &opts2).unwrap(), d);
    // --logits
    let opts = Options {
        mapping: ColumnMapping {
            source: Some(Source::Logits),
            ..Default::default()
        },
        ..Default::default()
    };
    let d = parse_bytes("m.csv", b"label,p_0,p_1\n1,3,4\n", &opts).unwrap();
    assert_eq!(d.models[0].1.source(), Source::Logits);
    // model column switched off
    let opts = Options {
        mapping: ColumnMapping {
            model: Pick::Absent,
            ..Default::default()
        },
        ..Default::default()
    };
    let d = parse_bytes("m.csv", b"model,label,p\na,1,0.9\nb,1,0.8\n", &opts).unwrap();
    assert_eq!(d.models.len(), 1);
    assert_eq!(d.n(), 2);
    // top-label by mapping, delimiter override
    let opts = Options {
        mapping: ColumnMapping {
            delimiter: Some(b'|'),
            label: Some("gold".into()),
            scores: Some(ScoreColumns::TopLabel {
                predicted: "guess".into(),
                confidence: "sure".into(),
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let d = parse_bytes("m.csv", b"gold|guess|sure\n1|1|0.8\n", &opts).unwrap();
    assert_eq!(d.models[0].1.kind(), Kind::TopLabel);
    // a mapping naming a missing column
    let opts = Options {
        mapping: ColumnMapping {
            label: Some("nope".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let e = parse_bytes("m.csv", b"label,p\n1,0.5\n", &opts).unwrap_err();
    assert_eq!(e.codes(), ["mapping_column_missing"]);
}

#[test]
fn long_format() {
    let csv = b"model,id,label,p\na,0,1,0.9\na,1,0,0.2\nb,0,1,0.7\nb,1,0,0.4\n";
    let d = ok("l.csv", csv);
    assert_eq!(d.format, Format::CsvLong);
    assert_eq!(
        d.models.iter().map(|m| m.0.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert_eq!(d.ids, Some(Ids::Int(vec![0, 1])));
    // interleaved rows are fine
    let d2 = ok(
        "l.csv",
        b"model,id,label,p\na,0,1,0.9\nb,0,1,0.7\na,1,0,0.2\nb,1,0,0.4\n",
    );
    assert_eq!(d2.models, d.models);
    // label mismatch names the first differing row
    let e = err(
        "l.csv",
        b"model,label,p\na,1,0.9\na,0,0.2\nb,1,0.7\nb,1,0.4\n",
    );
    assert_eq!(e.codes(), ["model_label_mismatch"]);
    assert_eq!(e.errors[0].location.row, Some(3));
    assert_eq!(e.errors[0].location.sample, Some(1));
    assert!(e.errors[0].message.contains("sample 1"), "{}", e.errors[0]);
    // length mismatch
    let e = err("l.csv", b"model,label,p\na,1,0.9\na,0,0.2\nb,1,0.7\n");
    assert_eq!(e.codes(), ["model_length_mismatch"]);
    // input errors carry model and file row
    let e = err(
        "l.csv",
        b"model,label,p\na,1,0.9\na,0,0.2\nb,1,1.7\nb,0,0.4\n",
    );
    assert_eq!(
        e.input_errors(),
        [(2, calibscope_core::InputErrorKind::ProbOutOfRange)]
    );
    assert_eq!(e.errors[0].location.model.as_deref(), Some("b"));
}

#[test]
fn json_forms() {
    let want = ok(
        "a.csv",
        b"label,p_0,p_1,p_2\n0,0.7,0.2,0.1\n2,0.1,0.1,0.8\n",
    );
    let forms: Vec<(&str, &[u8])> = vec![
        ("records", br#"[{"label": 0, "p_0": 0.7, "p_1": 0.2, "p_2": 0.1}, {"label": 2, "p_0": 0.1, "p_1": 0.1, "p_2": 0.8}]"#),
        ("records, vector", br#"[{"label": 0, "probs": [0.7, 0.2, 0.1]}, {"label": 2, "probs": [0.1, 0.1, 0.8]}]"#),
        ("jsonl", b"{\"label\": 0, \"probs\": [0.7, 0.2, 0.1]}\n{\"label\": 2, \"probs\": [0.1, 0.1, 0.8]}\n"),
        ("columns", br#"{"label": [0, 2], "probs": [[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]]}"#),
        ("columns flat", br#"{"label": [0, 2], "p_0": [0.7, 0.1], "p_1": [0.2, 0.1], "p_2": [0.1, 0.8]}"#),
        ("wrapped", br#"{"data": [{"label": 0, "p_0": 0.7, "p_1": 0.2, "p_2": 0.1}, {"label": 2, "p_0": 0.1, "p_1": 0.1, "p_2": 0.8}]}"#),
        ("bom + whitespace", b"\xef\xbb\xbf \n[{\"label\": 0, \"p_0\": 0.7, \"p_1\": 0.2, \"p_2\": 0.1},\n {\"p_0\": 0.1, \"label\": 2, \"p_1\": 0.1, \"p_2\": 0.8}]\n"),
    ];
    for (what, bytes) in forms {
        let d = ok("a.json", bytes);
        assert_eq!(d.format, Format::Json, "{what}");
        assert_eq!(d.models[0].1.labels, want.models[0].1.labels, "{what}");
        assert_eq!(scores(&d), scores(&want), "{what}");
    }
    let d = ok(
        "a.json",
        br#"{"label": [1, 0], "logits": [[0, 2], [1, -1]]}"#,
    );
    assert_eq!(d.models[0].1.source(), Source::Logits);
    assert_eq!(d.models[0].1.kind(), Kind::Binary);
    // class-keyed objects and string labels
    let d = ok("a.json", br#"[{"label": "B", "probs": {"A": 0.25, "B": 0.75}}, {"label": "A", "probs": {"A": 0.5, "B": 0.5}}]"#);
    assert_eq!(d.class_names, ["A", "B"]);
    assert_eq!(d.models[0].1.labels, vec![1, 0]);
    // long format in JSON
    let d = ok(
        "a.json",
        br#"[{"model": "m1", "label": 1, "p": 0.9}, {"model": "m2", "label": 1, "p": 0.6}]"#,
    );
    assert_eq!(d.models.len(), 2);
    // NaN from Python's json.dumps is an input error, not a syntax error
    let e = err(
        "a.json",
        br#"[{"label": 1, "p": NaN}, {"label": 0, "p": Infinity}]"#,
    );
    assert_eq!(e.codes(), ["nan_or_inf"]);
    assert_eq!(e.errors.len(), 2);
    let e = err(
        "a.json",
        br#"[{"label": 1, "p": 0.5}, {"label": 0, "p": 0.5"#,
    );
    assert_eq!(e.codes(), ["json_syntax"]);
    let e = err(
        "a.json",
        br#"[{"label": 1, "probs": [0.5, 0.5]}, {"label": 0, "probs": [0.2, 0.3, 0.5]}]"#,
    );
    assert_eq!(e.codes(), ["ragged_row"]);
    assert_eq!(e.errors[0].location.row, Some(1));
}

#[test]
fn several_files_combine() {
    let a = ok("a.csv", b"label,p\n1,0.9\n0,0.2\n");
    let b = ok("b.csv", b"label,p\n1,0.6\n0,0.5\n");
    let d = calibscope_io::combine(vec![a.clone(), b]).unwrap();
    assert_eq!(d.format, Format::MultiFile);
    assert_eq!(
        d.models.iter().map(|m| m.0.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    let c = ok("c.csv", b"label,p\n1,0.6\n1,0.5\n");
    let e = calibscope_io::combine(vec![a, c]).unwrap_err();
    assert_eq!(e.codes(), ["model_label_mismatch"]);
    assert_eq!(e.errors[0].location.row, Some(1));
}

/// Error lines are the lines the records start on, with CRLF, blank lines, quoted
/// line breaks and lone CRs; whatever the slice boundaries.
#[test]
fn csv_error_lines() {
    let lines = |bytes: &[u8]| -> Vec<(Option<u64>, Option<u64>)> {
        let e = err("l.csv", bytes);
        let want: Vec<_> = e
            .errors
            .iter()
            .map(|e| (e.location.row, e.location.line))
            .collect();
        for n in [1, 2, 3, 7] {
            let mut p = calibscope_io::Parser::new("l.csv", Options::default());
            for c in bytes.chunks(n) {
                let _ = p.push(c);
            }
            let got: Vec<_> = match p.finish() {
                Ok(_) => Vec::new(),
                Err(e) => e
                    .errors
                    .iter()
                    .map(|e| (e.location.row, e.location.line))
                    .collect(),
            };
            assert_eq!(got, want, "slices of {n}");
        }
        want
    };
    let s = |r: u64, l: u64| (Some(r), Some(l));
    assert_eq!(lines(b"label,p\n1,0.5\n0,x\n1,2\n"), [s(1, 3), s(2, 4)]);
    assert_eq!(
        lines(b"label,p\r\n1,0.5\r\n0,x\r\n1,2\r\n"),
        [s(1, 3), s(2, 4)]
    );
    assert_eq!(lines(b"\nlabel,p\n\n1,0.5\n0,x\n1,2"), [s(1, 5), s(2, 6)]);
    // a blank line between rows: later rows keep their own lines
    assert_eq!(
        lines(b"label,p\n1,0.5\n\n0,x\r\n1,x\r0,\"x\ny\"\n1,x"),
        [s(1, 4), s(2, 5), s(3, 5), s(4, 7)]
    );
}

#[test]
fn unmappable_headers_list_their_columns_and_a_request_maps_them() {
    let text = b"truth;sa;sb;sc\n0;0.7;0.2;0.1\n1;0.1;0.8;0.1\n2;0.2;0.2;0.6\n";
    let e = err("odd.csv", text);
    assert_eq!(e.columns, ["truth", "sa", "sb", "sc"]);
    let json = err(
        "odd.json",
        br#"{"truth": [0, 1], "s": [[0.5, 0.5], [0.2, 0.8]]}"#,
    );
    // a 2-D value is listed (and mapped) by its columns
    assert_eq!(json.columns, ["truth", "s_0", "s_1"]);
    let json_request = calibscope_io::MappingRequest {
        label: Some("truth".into()),
        scores: json.columns[1..].to_vec(),
        ..Default::default()
    };
    let json_options = Options {
        mapping: json_request.to_mapping().unwrap(),
        ..Options::default()
    };
    let ds = parse_bytes(
        "odd.json",
        br#"{"truth": [0, 1], "s": [[0.5, 0.5], [0.2, 0.8]]}"#,
        &json_options,
    )
    .unwrap();
    assert_eq!(ds.models[0].1.n(), 2);
    // errors that are not about the header list none
    assert!(err("bad.csv", b"label,p\n0,2\n").columns.is_empty());
    let request = calibscope_io::MappingRequest {
        delimiter: Some(";".into()),
        label: Some("truth".into()),
        scores: vec!["sa".into(), "sb".into(), "sc".into()],
        class_names: vec!["cat".into(), "dog".into(), "owl".into()],
        ..Default::default()
    };
    let options = Options {
        mapping: request.to_mapping().unwrap(),
        ..Options::default()
    };
    let ds = parse_bytes("odd.csv", text, &options).unwrap();
    assert_eq!(ds.class_names, ["cat", "dog", "owl"]);
    assert_eq!(ds.models[0].1.k, 3);
}
