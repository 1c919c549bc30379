//! The push interface gives the identical result whatever the slice boundaries:
//! every fixture file (and a few synthesized inputs) pushed in random slices.

use crate::common;
use common::build::*;

use calibscope_io::{parse_bytes_any, Options, ParseErrors, Parsed, Parser};
use proptest::prelude::*;

fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for exp in common::expected_files() {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&exp).unwrap()).unwrap();
        for f in common::data_files(&exp, &json) {
            v.push((
                f.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read(&f).unwrap(),
            ));
        }
    }
    assert!(v.len() > 40);
    let lab = labels_npy(&[0, 2, 1, 1]);
    let probs = npy(
        "<f4",
        &[4, 3],
        false,
        &le_f32(&[0.7, 0.2, 0.1, 0.1, 0.1, 0.8, 0.25, 0.5, 0.25, 0.0, 1.0, 0.0]),
        2,
    );
    v.push((
        "deflated.npz".into(),
        zip(&[("labels.npy", &lab), ("probs.npy", &probs)], true),
    ));
    v.push((
        "json.json".into(),
        br#"[{"label": 0, "probs": [0.7, 0.2, 0.1]}, {"label": 2, "probs": [0.1, 0.1, 0.8]}]"#
            .to_vec(),
    ));
    v.push((
        "jsonl.json".into(),
        b"{\"label\": 1, \"p\": 0.9}\n{\"label\": 0, \"p\": 0.2}\n".to_vec(),
    ));
    v.push((
        "bom.csv".into(),
        b"\xef\xbb\xbflabel;p\r\n1;0,9\r\n0;.2\r\n".to_vec(),
    ));
    v.push((
        "quoted.csv".into(),
        b"label,p,note\n1,0.9,\"a,\nb\"\n0,0.2,\"\"\"\"\n".to_vec(),
    ));
    v
}

fn parse_chunks(name: &str, bytes: &[u8], sizes: &[usize]) -> Result<Parsed, ParseErrors> {
    let mut p = Parser::new(name, Options::default());
    let mut pos = 0;
    let mut i = 0;
    while pos < bytes.len() {
        let n = sizes[i % sizes.len()].max(1);
        i += 1;
        let end = (pos + n).min(bytes.len());
        if p.push(&bytes[pos..end]).is_err() {
            break;
        }
        pos = end;
    }
    p.finish_any()
}

fn whole(name: &str, bytes: &[u8]) -> Result<Parsed, ParseErrors> {
    // without a size hint, as the worker pushing slices would
    let mut p = Parser::new(name, Options::default());
    let _ = p.push(bytes);
    p.finish_any()
}

#[test]
fn one_byte_slices() {
    for (name, bytes) in inputs().iter().filter(|(_, b)| b.len() < 100_000) {
        assert_eq!(
            parse_chunks(name, bytes, &[1]),
            whole(name, bytes),
            "{name}"
        );
    }
}

#[test]
fn size_hint_does_not_change_the_result() {
    for (name, bytes) in inputs() {
        assert_eq!(
            parse_bytes_any(&name, &bytes, &Options::default()),
            whole(&name, &bytes),
            "{name}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn random_slices_give_the_same_dataset(
        pick in any::<prop::sample::Index>(),
        sizes in prop::collection::vec(prop_oneof![1usize..8, 1usize..300, 1usize..70_000], 1..20),
    ) {
        let inputs = INPUTS.with(|i| i.clone());
        let (name, bytes) = &inputs[pick.index(inputs.len())];
        let got = parse_chunks(name, bytes, &sizes);
        prop_assert_eq!(got, whole(name, bytes), "{}", name);
    }
}

thread_local! {
    static INPUTS: Vec<(String, Vec<u8>)> = inputs();
}
