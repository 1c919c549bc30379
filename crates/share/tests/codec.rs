//! The permalink codec: round trip (proptest), the pinned default link, golden links
//! that must decode forever, and the error of every kind of bad link.

use calibscope_share::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{0,12}",
        any::<String>(),
        Just("<img src=x onerror=alert(1)>".to_string()),
    ]
}

fn lab_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|v| json!(v)),
        (-1e300f64..1e300).prop_map(|v| json!(v)),
        text().prop_map(Value::String),
        proptest::collection::vec(0u32..1000, 0..4).prop_map(|v| json!(v)),
    ]
}

fn data_source() -> impl Strategy<Value = DataSource> {
    let file = (text(), any::<u64>(), "[0-9a-f]{64}").prop_map(|(name, size, sha256)| FileRef {
        name,
        size,
        sha256,
    });
    prop_oneof![
        Just(DataSource::None),
        text().prop_map(|id| DataSource::Example { id }),
        proptest::collection::vec(file, 0..3).prop_map(|files| DataSource::Files { files }),
        (text(), proptest::collection::vec(any::<u8>(), 0..200)).prop_map(|(name, bytes)| {
            DataSource::Embedded {
                files: vec![EmbeddedFile::new(&name, &bytes)],
            }
        }),
    ]
}

fn mapping() -> impl Strategy<Value = MappingState> {
    (
        proptest::option::of(text()),
        proptest::collection::vec(text(), 0..3),
        proptest::option::of(prop_oneof![
            Just("probs".to_string()),
            Just("logits".into())
        ]),
        proptest::collection::vec(text(), 0..3),
    )
        .prop_map(|(label, scores, source, class_names)| MappingState {
            label,
            scores,
            source,
            class_names,
            ..MappingState::default()
        })
}

fn state() -> impl Strategy<Value = ViewState> {
    let view = prop_oneof![
        Just(ViewId::Audit),
        Just(ViewId::Flips),
        Just(ViewId::Recalibrate),
        Just(ViewId::Learn),
        Just(ViewId::LabTruth),
        Just(ViewId::LabBeyond),
        Just(ViewId::Slices),
    ];
    let method = prop_oneof![
        Just(MethodId::Temperature),
        Just(MethodId::Platt),
        Just(MethodId::Isotonic)
    ];
    let theme = prop_oneof![Just(Theme::System), Just(Theme::Light), Just(Theme::Dark)];
    let binning = prop_oneof![Just(BinningId::Width), Just(BinningId::Mass)];
    (
        (view, 0usize..50, text(), binning, 1usize..100_000),
        (
            proptest::option::of(1usize..5000),
            text(),
            proptest::collection::vec(1usize..5000, 0..6),
        ),
        (any::<u64>(), 0.0f64..1.0, method, theme),
        (
            proptest::collection::btree_map("[a-z_]{1,8}", lab_value(), 0..4),
            data_source(),
            mapping(),
        ),
    )
        .prop_map(
            |(
                (view, model, reading, binning, m),
                (pinned_m, metric, spearman_bins),
                (split_seed, cal_fraction, method, theme),
                (lab, data, mapping),
            )| ViewState {
                view,
                model,
                reading,
                binning,
                m,
                pinned_m,
                metric,
                spearman_bins,
                split_seed,
                cal_fraction,
                method,
                lab,
                theme,
                data,
                mapping,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn round_trip(s in state()) {
        let link = encode(&s);
        prop_assert!(link.starts_with("a1="));
        prop_assert!(link.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_=".contains(&b)));
        prop_assert_eq!(decode(&link).unwrap(), s.clone());
        prop_assert_eq!(decode(&format!("#{link}")).unwrap(), s);
    }

    #[test]
    fn arbitrary_text_never_panics(t in any::<String>()) {
        let _ = decode(&t);
        let _ = decode(&format!("a1={t}"));
    }
}

#[test]
fn default_link_is_pinned() {
    // `{}` deflated: the default view names no field
    assert_eq!(encode(&ViewState::default()), "a1=q64FAA");
    assert_eq!(decode("#a1=q64FAA").unwrap(), ViewState::default());
    assert_eq!(decode("a1=q64FAA").unwrap(), ViewState::default());
}

#[test]
fn only_changed_fields_are_written() {
    let s = ViewState {
        m: 20,
        theme: Theme::Dark,
        ..ViewState::default()
    };
    let d = diff_json(&s);
    assert_eq!(Value::Object(d), json!({"m": 20, "theme": "dark"}));
}

fn link_of(json: &str) -> String {
    let z = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 6);
    use base64::Engine;
    format!(
        "a1={}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(z)
    )
}

#[test]
fn unknown_fields_are_ignored_and_missing_ones_default() {
    let s = decode(&link_of(r#"{"m": 7, "from_the_future": {"x": 1}}"#)).unwrap();
    assert_eq!(s.m, 7);
    assert_eq!(s.binning, BinningId::Width);
}

#[test]
fn every_bad_link_has_its_error() {
    type Expect = fn(&LinkError) -> bool;
    let cases: Vec<(String, Expect)> = vec![
        ("".into(), |e| *e == LinkError::NotALink),
        ("#".into(), |e| *e == LinkError::NotALink),
        ("section-2".into(), |e| *e == LinkError::NotALink),
        (
            "a2=q64FAA".into(),
            |e| matches!(e, LinkError::UnknownVersion(v) if v == "a2"),
        ),
        ("a1=q*YA".into(), |e| matches!(e, LinkError::Base64(_))),
        ("a1=q64FAA==".into(), |e| matches!(e, LinkError::Base64(_))),
        ("a1=AAAA".into(), |e| matches!(e, LinkError::Deflate(_))),
        (link_of("[1,2]"), |e| matches!(e, LinkError::Json(_))),
        (link_of("{\"m\": -1}"), |e| matches!(e, LinkError::Json(_))),
        (link_of("{\"view\": \"nope\"}"), |e| {
            matches!(e, LinkError::Json(_))
        }),
        (link_of("{\"m\": 1"), |e| matches!(e, LinkError::Json(_))),
        ("a1=".to_string() + &"A".repeat(MAX_LINK_CHARS), |e| {
            matches!(e, LinkError::TooLarge(_))
        }),
    ];
    for (link, ok) in cases {
        let e = decode(&link).expect_err(&link[..link.len().min(40)]);
        assert!(ok(&e), "{}: {e:?}", &link[..link.len().min(40)]);
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn deflate_bombs_are_refused() {
    // 4 MB of spaces inside a JSON object compress to a few KB
    let json = format!("{{\"reading\": \"confidence\"{}}}", " ".repeat(4 << 20));
    let e = decode(&link_of(&json)).unwrap_err();
    assert!(matches!(e, LinkError::TooLarge(_)), "{e:?}");
}

#[test]
fn embedded_files_round_trip_and_are_capped() {
    for bytes in [b"label,p\n1,0.9\n".to_vec(), vec![0xff, 0, 1, 2]] {
        let f = embed("x.csv", &bytes).unwrap();
        assert_eq!(f.bytes().unwrap(), bytes);
    }
    // incompressible bytes past the cap
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let noise: Vec<u8> = (0..40_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    assert!(embed("noise.bin", &noise).unwrap_err().contains("at most"));
}

#[test]
fn sha256_matches_known_vectors_and_is_incremental() {
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    // FIPS 180-2's million "a": longer than one call of the compression function
    // (the hasher splits its input into calls of HASH_CALL_BYTES)
    let million = vec![b'a'; 1_000_000];
    assert!(million.len() > 10 * calibscope_share::HASH_CALL_BYTES);
    assert_eq!(
        sha256_hex(&million),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    );
    let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7) as u8).collect();
    let mut h = Sha256Hasher::new();
    for chunk in data.chunks(4097) {
        h.update(chunk);
    }
    assert_eq!(h.finish_hex(), sha256_hex(&data));
    let r = file_ref("a.csv", &data);
    assert_eq!((r.size, r.sha256.len()), (100_000, 64));
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Golden links (tests/golden/<name>.link) and the full state each must decode to
/// (<name>.json). They are never regenerated: a change that breaks one breaks links
/// that people have shared.
#[test]
fn golden_links_decode_forever() {
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(golden_dir()).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) != Some("link") {
            continue;
        }
        let link = std::fs::read_to_string(&p).unwrap();
        let want: ViewState =
            serde_json::from_str(&std::fs::read_to_string(p.with_extension("json")).unwrap())
                .unwrap();
        assert_eq!(decode(link.trim()).unwrap(), want, "{}", p.display());
        n += 1;
    }
    assert!(n >= 5, "only {n} golden links");
}

/// Writes the golden files of the states below when they do not exist yet
/// (`CALIBSCOPE_WRITE_GOLDEN=1 cargo test -p calibscope-share golden`).
#[test]
fn write_missing_golden_links() {
    if std::env::var_os("CALIBSCOPE_WRITE_GOLDEN").is_none() {
        return;
    }
    let mut states: Vec<(&str, ViewState)> = vec![("default", ViewState::default())];
    let mut s = ViewState {
        view: ViewId::Audit,
        binning: BinningId::Mass,
        m: 20,
        pinned_m: Some(15),
        theme: Theme::Dark,
        data: DataSource::Example {
            id: "cifar10-resnet".into(),
        },
        ..ViewState::default()
    };
    states.push(("example-mass-20", s.clone()));
    s.view = ViewId::Flips;
    s.metric = "lince_cw".into();
    s.spearman_bins = vec![5, 15, 100, 2000];
    s.model = 2;
    s.data = DataSource::Files {
        files: vec![FileRef {
            name: "preds <v2>.csv".into(),
            size: 12_400_000,
            sha256: "3fa2".to_string() + &"0".repeat(60),
        }],
    };
    s.mapping = MappingState {
        label: Some("y".into()),
        scores: vec!["cat".into(), "dog".into()],
        source: Some("logits".into()),
        delimiter: Some(";".into()),
        ..MappingState::default()
    };
    states.push(("flips-user-file", s.clone()));
    s.view = ViewId::Recalibrate;
    s.method = MethodId::Isotonic;
    s.split_seed = 42;
    s.cal_fraction = 0.3;
    s.reading = "classwise".into();
    states.push(("recalibrate-isotonic", s.clone()));
    let mut lab = BTreeMap::new();
    lab.insert("n".into(), json!(5000));
    lab.insert("mode".into(), json!("overconf_sqrt"));
    lab.insert("noise".into(), json!(0.125));
    let lab_state = ViewState {
        view: ViewId::LabBeyond,
        lab,
        theme: Theme::Light,
        data: DataSource::Embedded {
            files: vec![EmbeddedFile::new("tiny.csv", b"label,p\n1,0.9\n0,0.2\n")],
        },
        ..ViewState::default()
    };
    states.push(("lab-embedded", lab_state));
    states.push((
        "learn",
        ViewState {
            view: ViewId::Learn,
            ..ViewState::default()
        },
    ));
    for (name, state) in states {
        let link = golden_dir().join(format!("{name}.link"));
        if link.exists() {
            continue;
        }
        std::fs::write(&link, encode(&state) + "\n").unwrap();
        let json = serde_json::to_string_pretty(&state).unwrap();
        std::fs::write(link.with_extension("json"), json + "\n").unwrap();
    }
}

#[test]
fn lenient_decoding_keeps_what_it_understands() {
    let link = link_of(r#"{"m": 20, "view": "zoo-of-the-future", "theme": 7, "binning": "mass"}"#);
    assert!(decode(&link).is_err());
    let d = decode_lenient(&link).unwrap();
    assert_eq!(d.state.m, 20);
    assert_eq!(d.state.binning, BinningId::Mass);
    assert_eq!(d.state.view, ViewId::Audit);
    assert_eq!(d.state.theme, Theme::System);
    assert_eq!(d.ignored.len(), 2, "{:?}", d.ignored);
    assert!(d.ignored[0].starts_with("theme: ") && d.ignored[1].starts_with("view: "));
    // transport errors stay errors
    assert_eq!(
        decode_lenient("a2=x").unwrap_err(),
        LinkError::UnknownVersion("a2".into())
    );
    // a golden link reads the same both ways
    let text = std::fs::read_to_string(golden_dir().join("flips-user-file.link")).unwrap();
    let lenient = decode_lenient(text.trim()).unwrap();
    assert_eq!(lenient.state, decode(text.trim()).unwrap());
    assert!(lenient.ignored.is_empty());
}

#[test]
fn numbers_json_cannot_hold_fall_back_to_defaults() {
    for x in [f64::NAN, f64::INFINITY] {
        let s = ViewState {
            cal_fraction: x,
            m: 30,
            ..ViewState::default()
        };
        let back = decode(&encode(&s)).unwrap();
        assert_eq!(back.cal_fraction, 0.5);
        assert_eq!(back.m, 30);
    }
}
