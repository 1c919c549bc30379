//! The protocol's round trips.

use super::*;

#[test]
fn every_answer_names_its_request() {
    assert_eq!(FromWorker::Cancelled { id: 3 }.id(), Some(3));
    let progress = FromWorker::LabProgress {
        id: 4,
        done: 1,
        total: 2,
    };
    assert_eq!(progress.id(), Some(4));
    let ready = FromWorker::Ready {
        proto: PROTOCOL,
        build: "dev".into(),
    };
    assert_eq!(ready.id(), None);
    let panic = FromWorker::Panic {
        message: "x".into(),
    };
    assert_eq!(panic.id(), None);
}

#[test]
fn messages_round_trip() {
    let msgs = vec![
        ToWorker::Open {
            id: 1,
            mapping: MappingOverride::default(),
            limits: Limits::default(),
        },
        ToWorker::Compute {
            id: 2,
            gen: 7,
            model: 0,
            reading: Reading::Class(3),
            binning: Binning::Mass,
            m: 15,
        },
        ToWorker::Cancel { id: 1 },
    ];
    for m in msgs {
        let text = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<ToWorker>(&text).unwrap(), m);
    }
    let open: ToWorker = serde_json::from_str(r#"{"open":{"id":3}}"#).unwrap();
    assert_eq!(
        open,
        ToWorker::Open {
            id: 3,
            mapping: MappingOverride::default(),
            limits: Limits::default(),
        }
    );
    let mut metrics = Metrics::new();
    metrics.insert("ece".into(), Some(0.125));
    metrics.insert("confce".into(), None);
    let computed = FromWorker::Computed {
        id: 4,
        gen: 9,
        model: 1,
        reading: Reading::Confidence,
        binning: Binning::Width,
        m: 2000,
        rows: vec![
            Row {
                bin: 3,
                n: 7,
                conf: 0.1 + 0.2,
                acc: 6.0 / 7.0,
                gap: 6.0 / 7.0 - (0.1 + 0.2),
                successes: 6,
                cp_lower: 0.42128027143061,
                cp_upper: 0.996390080516,
                lower: 0.0015,
                upper: 0.002,
            },
            Row::default(),
        ],
        metrics,
        nonempty_bins: 2,
    };
    let (text, bytes) = computed.to_wire();
    assert!(!text.contains("rows"), "rows beside the JSON: {text}");
    let bytes = bytes.expect("rows as bytes");
    assert_eq!(bytes.len(), 2 * 80);
    assert_eq!(
        FromWorker::from_wire(&text, Some(&bytes)).unwrap(),
        computed
    );
    assert!(FromWorker::from_wire(&text, Some(&bytes[..79])).is_err());
    let ready = FromWorker::Ready {
        proto: PROTOCOL,
        build: "x".into(),
    };
    assert!(FromWorker::from_wire(&ready.to_json(), Some(&bytes)).is_err());
    assert_eq!(ready.to_wire(), (ready.to_json(), None));
    let ready = FromWorker::Ready {
        proto: PROTOCOL,
        build: "x".into(),
    };
    assert_eq!(
        serde_json::from_str::<FromWorker>(&ready.to_json()).unwrap(),
        ready
    );
    assert!(serde_json::from_str::<ToWorker>(r#"{"nope":{"id":3}}"#).is_err());
}

#[test]
fn the_out_of_memory_message_is_a_panic_message() {
    let msg: FromWorker = serde_json::from_str(OUT_OF_MEMORY).unwrap();
    assert!(matches!(msg, FromWorker::Panic { message } if message.starts_with("out of memory")));
}

#[test]
fn readings_parse() {
    assert_eq!(Reading::parse("confidence"), Some(Reading::Confidence));
    assert_eq!(Reading::parse("class:12"), Some(Reading::Class(12)));
    assert_eq!(Reading::parse("class:x"), None);
    assert_eq!(Reading::Class(4).name(), "class:4");
}
