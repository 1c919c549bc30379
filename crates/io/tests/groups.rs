//! Grouping columns (issue 32): every reader path returns the same per-sample group
//! codes and group names — CSV through the in-place fast path, the general reader
//! and csv-core (quoted values), read in slices and in parallel; JSON records and
//! lm-evaluation-harness logs; `.npy` structured fields — and a grouping that cannot
//! be used is a located error saying what to do.

use crate::common;
use common::build::npy;

use calibscope_io::fuzz::parse_parallel;
use calibscope_io::{parse_bytes, read_path, ColumnMapping, Dataset, Options, Parsed};

/// The options of `--group` with these names (`none`: no grouping at all).
fn grouped(cols: &[&str]) -> Options {
    let mut mapping = ColumnMapping::default();
    mapping.set_groups(&cols.iter().map(|c| c.to_string()).collect::<Vec<_>>());
    Options {
        mapping,
        ..Options::default()
    }
}

/// The group name of every sample.
fn names_of(d: &Dataset) -> Vec<String> {
    let g = d.groups.as_ref().expect("groups");
    g.codes
        .iter()
        .map(|&c| g.names[c as usize].clone())
        .collect()
}

#[test]
fn csv_groups_by_one_column_and_by_intersections() {
    let csv = b"label,p,site,adult\n1,0.9,b,true\n0,0.2,a,false\n1,0.7,b,false\n0,0.4,a,false\n";
    let d = parse_bytes("g.csv", csv, &grouped(&["site"])).unwrap();
    let g = d.groups.as_ref().unwrap();
    assert_eq!(g.columns, ["site"]);
    assert_eq!(g.names, ["a", "b"]);
    assert_eq!(g.codes, [1, 0, 1, 0]);
    assert_eq!(d.detection.mapping.groups, ["site"]);
    assert_eq!(d.detection.ignored, ["adult"]);
    let d = parse_bytes("g.csv", csv, &grouped(&["Site", "adult"])).unwrap();
    let g = d.groups.as_ref().unwrap();
    assert_eq!(g.columns, ["site", "adult"]);
    assert_eq!(g.names, ["a · false", "b · false", "b · true"]);
    assert_eq!(g.codes, [2, 0, 1, 0]);
    // without a grouping there are no groups, and the columns are only ignored
    let d = parse_bytes("g.csv", csv, &Options::default()).unwrap();
    assert!(d.groups.is_none());
    assert_eq!(d.detection.ignored, ["site", "adult"]);
}

/// Integer values are ordered as integers; empty cells are the value "".
#[test]
fn values_are_ordered_and_empty_cells_kept() {
    let csv = b"label,p,g\n1,0.9,10\n0,0.2,9\n1,0.7,\n0,0.4, 10 \n";
    let d = parse_bytes("g.csv", csv, &grouped(&["g"])).unwrap();
    // "" is not an integer: byte order
    assert_eq!(d.groups.as_ref().unwrap().names, ["", "10", "9"]);
    assert_eq!(names_of(&d), ["10", "9", "", "10"]);
    let csv = b"label,p,g\n1,0.9,10\n0,0.2,9\n1,0.7,-3\n";
    let d = parse_bytes("g.csv", csv, &grouped(&["g"])).unwrap();
    assert_eq!(d.groups.as_ref().unwrap().names, ["-3", "9", "10"]);
}

/// A table of `rows` rows whose rows take the fast path, the general reader
/// (spaces) and csv-core (quotes) by turns.
fn table(rows: usize) -> (Vec<u8>, Vec<String>) {
    let mut csv = b"label,p_0,p_1,subject,flag\n".to_vec();
    let mut expect = Vec::new();
    let subjects = ["algebra", "law", "medicine, clinical", "physics"];
    for i in 0..rows {
        let s = subjects[(i * 7 + i / 3) % 4];
        let flag = i % 3 == 0;
        let p = (i % 97) as f64 / 97.0;
        let line = match (s.contains(','), i % 5) {
            (true, _) => format!("{},{},{},\"{s}\",{flag}\n", i % 2, p, 1.0 - p),
            (false, 0) => format!("{},{},{}, {s} ,{flag}\n", i % 2, p, 1.0 - p),
            _ => format!("{},{},{},{s},{flag}\n", i % 2, p, 1.0 - p),
        };
        csv.extend_from_slice(line.as_bytes());
        expect.push(format!("{s} · {flag}"));
    }
    (csv, expect)
}

#[test]
fn every_csv_path_gives_the_same_groups() {
    let (csv, expect) = table(5000);
    let opts = grouped(&["subject", "flag"]);
    let whole = parse_bytes("t.csv", &csv, &opts).unwrap();
    assert_eq!(names_of(&whole), expect);
    let distinct: std::collections::BTreeSet<&String> = expect.iter().collect();
    assert_eq!(whole.groups.as_ref().unwrap().len(), distinct.len());
    assert!(distinct.len() >= 4);
    // pushed in slices of any size
    for slice in [1, 7, 4096] {
        let mut p = calibscope_io::Parser::new("t.csv", opts.clone());
        for c in csv.chunks(slice) {
            p.push(c).unwrap();
        }
        assert_eq!(p.finish().unwrap(), whole, "slices of {slice}");
    }
    // parts read on their own and joined (their value codes are translated)
    let n = csv.len() as u64;
    let splits: Vec<u64> = (1..16).map(|i| i * n / 16).collect();
    let (parsed, _) = parse_parallel("t.csv", &csv, &opts, 100, &splits, 2, 4096);
    match parsed.unwrap() {
        Parsed::Dataset(d) => assert_eq!(d, whole),
        Parsed::Array(_) => panic!("a dataset"),
    }
}

/// A file of more than 8 MiB read from its path in parallel and serially.
#[test]
fn a_large_file_read_in_parallel_has_the_serial_groups() {
    let (csv, expect) = table(300_000);
    assert!(csv.len() > 8 << 20, "{} bytes", csv.len());
    let dir = std::env::temp_dir().join(format!("calibscope_groups_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.csv");
    std::fs::write(&path, &csv).unwrap();
    let opts = grouped(&["subject", "flag"]);
    let serial = read_path(
        &path,
        &Options {
            threads: 1,
            ..opts.clone()
        },
    )
    .unwrap();
    let parallel = read_path(&path, &Options { threads: 4, ..opts }).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(names_of(&serial), expect);
    assert_eq!(parallel, serial);
    // every group has samples (a value cut by a slice's end is no group)
    let g = serial.groups.as_ref().unwrap();
    assert!(g.rows().iter().all(|r| !r.is_empty()), "{:?}", g.names);
}

/// The fast path's rows cut by the end of a pushed slice: no value is kept from a
/// cut field.
#[test]
fn values_cut_by_slices_are_not_groups() {
    let mut csv = b"label,p_0,p_1,subject\n".to_vec();
    for i in 0..5000 {
        csv.extend_from_slice(format!("{},0.25,0.75,s{}\n", i % 2, i % 50).as_bytes());
    }
    let opts = grouped(&["subject"]);
    for slice in [3, 1000, 65536] {
        let mut p = calibscope_io::Parser::new("t.csv", opts.clone());
        for c in csv.chunks(slice) {
            p.push(c).unwrap();
        }
        let d = p.finish().unwrap();
        assert_eq!(d.groups.as_ref().unwrap().len(), 50, "slices of {slice}");
    }
}

#[test]
fn long_format_groups_must_agree_across_models() {
    let csv = b"model,label,p,g\na,1,0.9,x\na,0,0.2,y\nb,1,0.8,x\nb,0,0.3,y\n";
    let d = parse_bytes("l.csv", csv, &grouped(&["g"])).unwrap();
    assert_eq!(d.models.len(), 2);
    assert_eq!(names_of(&d), ["x", "y"]);
    let csv = b"model,label,p,g\na,1,0.9,x\na,0,0.2,y\nb,1,0.8,x\nb,0,0.3,x\n";
    let e = parse_bytes("l.csv", csv, &grouped(&["g"])).unwrap_err();
    let m = e.errors[0].to_string();
    assert!(
        m.contains("sample 1 of model \"b\" is in group \"x\""),
        "{m}"
    );
}

#[test]
fn json_records_and_columns_carry_groups() {
    let recs = br#"[{"label": 1, "p": 0.9, "lang": "fr", "ok": true},
                    {"label": 0, "p": 0.3, "lang": "en", "ok": false},
                    {"label": 1, "p": 0.6, "lang": null, "ok": true}]"#;
    let d = parse_bytes("r.json", recs, &grouped(&["lang", "ok"])).unwrap();
    assert_eq!(names_of(&d), ["fr · true", "en · false", " · true"]);
    let cols = br#"{"label": [1, 0, 1], "p": [0.9, 0.3, 0.6], "bucket": [2, 10, 2]}"#;
    let d = parse_bytes("c.json", cols, &grouped(&["bucket"])).unwrap();
    assert_eq!(d.groups.as_ref().unwrap().names, ["2", "10"]);
    assert_eq!(names_of(&d), ["2", "10", "2"]);
}

fn sample(doc_id: usize, subject: Option<&str>, target: usize) -> String {
    let doc = match subject {
        Some(s) => format!(r#"{{"question": "q", "subject": "{s}", "choices": ["a", "b"]}}"#),
        None => r#"{"question": "q"}"#.to_string(),
    };
    format!(
        r#"{{"doc_id": {doc_id}, "doc": {doc}, "target": "{target}", "arguments": {{}}, "filtered_resps": [["-1.5", "False"], ["-0.5", "True"]], "acc": {}}}"#,
        if target == 1 { "1.0" } else { "0.0" }
    )
}

/// MMLU-style logs: `doc.subject` is the log's grouping; a log without subjects has
/// none; a grouping the caller names wins; `none` turns it off and says so.
#[test]
fn lm_eval_logs_are_grouped_by_subject() {
    let log: String = [
        sample(0, Some("anatomy"), 1),
        sample(1, Some("astronomy"), 0),
        sample(2, Some("anatomy"), 1),
    ]
    .join("\n");
    let d = parse_bytes("samples_mmlu.jsonl", log.as_bytes(), &Options::default()).unwrap();
    assert_eq!(d.groups.as_ref().unwrap().columns, ["subject"]);
    assert_eq!(names_of(&d), ["anatomy", "astronomy", "anatomy"]);
    assert!(d.detection.guesses.iter().any(|g| g.about == "groups"));
    for none in ["none", " None "] {
        let d = parse_bytes("samples_mmlu.jsonl", log.as_bytes(), &grouped(&[none])).unwrap();
        assert!(d.groups.is_none(), "{none:?}");
        assert!(d.detection.mapping.groups.is_empty());
        let said = d
            .detection
            .guesses
            .iter()
            .find(|g| g.about == "groups")
            .unwrap();
        assert_eq!(said.chose, "none");
        assert!(said.why.contains("not grouped"), "{}", said.why);
        assert_eq!(d.n(), 3);
    }
    let plain: String = [sample(0, None, 1), sample(1, None, 0)].join("\n");
    let d = parse_bytes("samples_piqa.jsonl", plain.as_bytes(), &Options::default()).unwrap();
    assert!(d.groups.is_none());
    assert!(!d.detection.guesses.iter().any(|g| g.about == "groups"));
    let e = parse_bytes(
        "samples_piqa.jsonl",
        plain.as_bytes(),
        &grouped(&["subject"]),
    )
    .unwrap_err();
    assert_eq!(e.codes(), ["mapping_column_missing"]);
    let d = parse_bytes("samples_piqa.jsonl", plain.as_bytes(), &grouped(&["none"])).unwrap();
    assert!(d.groups.is_none());
    let csv = b"label,p,none\n1,0.9,a\n0,0.2,b\n";
    let d = parse_bytes("runs.csv", csv, &grouped(&["none"])).unwrap();
    assert!(
        d.groups.is_none(),
        "none is no grouping, even beside a column called none"
    );
}

#[test]
fn npy_structured_fields_carry_groups() {
    let descr = "[('label', '<i8'), ('p', '<f8'), ('site', '<i4'), ('flag', '|b1')]";
    let mut data = Vec::new();
    for (l, p, site, flag) in [(1i64, 0.9f64, 3i32, 1u8), (0, 0.2, 1, 0), (1, 0.6, 3, 0)] {
        data.extend_from_slice(&l.to_le_bytes());
        data.extend_from_slice(&p.to_le_bytes());
        data.extend_from_slice(&site.to_le_bytes());
        data.push(flag);
    }
    let bytes = npy(descr, &[3], false, &data, 1);
    let d = parse_bytes("s.npy", &bytes, &grouped(&["site", "flag"])).unwrap();
    assert_eq!(names_of(&d), ["3 · 1", "1 · 0", "3 · 0"]);
    assert_eq!(
        d.groups.as_ref().unwrap().names,
        ["1 · 0", "3 · 0", "3 · 1"]
    );
}

/// A grouping that cannot be used: which file, which columns exist, what to do.
#[test]
fn unusable_groupings_are_located_errors() {
    let csv = b"label,p,site\n1,0.9,a\n0,0.2,b\n";
    let e = parse_bytes("runs.csv", csv, &grouped(&["hospital"])).unwrap_err();
    assert_eq!(e.codes(), ["mapping_column_missing"]);
    let m = e.errors[0].to_string();
    assert!(m.starts_with("runs.csv"), "{m}");
    assert!(m.contains("\"hospital\""), "{m}");
    assert!(m.contains("columns: label, p, site"), "{m}");
    assert!(
        m.contains("group by one of the columns the mapping does not use: site"),
        "{m}"
    );
    let e = parse_bytes("runs.csv", csv, &grouped(&["p"])).unwrap_err();
    assert_eq!(e.codes(), ["invalid_mapping"]);
    assert!(
        e.errors[0].to_string().contains("is the score column"),
        "{e}"
    );
    // an identifier is no grouping
    let mut csv = b"label,p,row\n".to_vec();
    for i in 0..1500 {
        csv.extend_from_slice(format!("{},0.5,r{i}\n", i % 2).as_bytes());
    }
    let e = parse_bytes("ids.csv", &csv, &grouped(&["row"])).unwrap_err();
    assert!(
        e.errors[0].to_string().contains("more than 1000 groups"),
        "{e}"
    );
    // a NumPy pair has no other column
    let e = parse_bytes(
        "s.npy",
        &npy(
            "[('label', '<i8'), ('p', '<f8')]",
            &[1],
            false,
            &[0u8; 16],
            1,
        ),
        &grouped(&["site"]),
    )
    .unwrap_err();
    assert_eq!(e.codes(), ["mapping_column_missing"]);
}
