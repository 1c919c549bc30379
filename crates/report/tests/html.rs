//! The HTML report: hostile names appear only as text, the embedded record is inert
//! and parses back, every number carries its path and full-precision value, and the
//! page declares its CSP and has no executable script.

use calibscope_audit::{
    audit_document, parse_options, report_tables, AuditOptions, Producer, Record,
};
use calibscope_report::{html_report, inert_json, REPORT_M};
use calibscope_share::{file_ref, DataSource, MappingState, ViewState};
use serde_json::{json, Map, Value};
use support::{fields, shared};

use crate::support;

const IMG: &str = "<img src=x onerror=alert(1)>";
const BREAKOUT: &str = "\"><script>alert(1)</script>";

fn record_of(name: &str, bytes: &[u8]) -> Value {
    let mapping = MappingState::default();
    let mut parser = calibscope_io::Parser::new(name, parse_options(&mapping).unwrap());
    let _ = parser.push(bytes);
    let parsed = parser.finish();
    let dataset = parsed.as_ref().expect("parses");
    let options = AuditOptions::for_n(dataset.n());
    let doc = audit_document(&parsed, name, &options);
    let inputs = vec![file_ref(name, bytes)];
    Record {
        contract: calibscope_audit::CONTRACT,
        producer: Producer {
            name: format!("test {IMG}"),
            version: "0".into(),
            build: BREAKOUT.into(),
        },
        inputs: inputs.clone(),
        settings: ViewState {
            data: DataSource::Files { files: inputs },
            mapping,
            ..ViewState::default()
        },
        options,
        audits: vec![doc],
        tables: report_tables(&dataset.models, REPORT_M),
    }
    .to_json()
}

fn hostile() -> (Value, String) {
    let q = BREAKOUT.replace('"', "\"\"");
    let mut csv = String::from("model,id,label,p\n");
    for (i, (y, p)) in [(1, 0.9), (0, 0.3), (1, 0.6), (0, 0.45)].iter().enumerate() {
        csv.push_str(&format!("\"{q}\",{i},{y},{p}\n"));
        csv.push_str(&format!("{IMG},{i},{y},{}\n", p * 0.9));
    }
    let record = record_of(&format!("{IMG}.csv"), csv.as_bytes());
    let html = html_report(&record);
    (record, html)
}

#[test]
fn hostile_names_appear_only_as_text() {
    let (_, html) = hostile();
    assert!(!html.contains("<img"), "an <img> element");
    assert_eq!(
        html.matches("<script").count(),
        1,
        "one script element: the record"
    );
    assert!(html.contains("<script type=\"application/json\" id=\"calibscope-record\">"));
    assert!(!html.contains("alert(1)</script>"));
    // the names are shown, escaped
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(html.contains("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    // every attribute value is quoted and free of raw quotes from the data: each
    // data-metric holding a model name holds it escaped
    assert!(html.contains("data-metric=\"models.&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;.binning_free.accuracy\""));
}

#[test]
fn the_embedded_record_is_inert_and_parses_back() {
    let (record, html) = hostile();
    let start = html.find("id=\"calibscope-record\">").unwrap() + "id=\"calibscope-record\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    let embedded = &html[start..end];
    assert!(!embedded.contains('<') && !embedded.contains('>') && !embedded.contains('&'));
    let back: Value = serde_json::from_str(embedded).unwrap();
    assert_eq!(back, record);
    // the report can be given back instead of the record
    assert_eq!(calibscope_audit::record_json_of(&html).unwrap(), record);
    assert_eq!(
        inert_json(&json!({"a": "</script><b>&"})),
        r#"{"a":"\u003c/script\u003e\u003cb\u003e\u0026"}"#
    );
}

fn lookup<'a>(record: &'a Value, path: &str) -> Option<&'a Value> {
    // paths are in the audit document, or in the record's tables; model names
    // hold no dots in this test
    let get = |root: &'a Value| {
        path.split('.').try_fold(root, |v, k| match v {
            Value::Array(a) => a.get(k.parse::<usize>().ok()?),
            Value::Object(o) => o.get(k),
            _ => None,
        })
    };
    get(&record["audits"][0])
        .or_else(|| get(&record["tables"]))
        .or_else(|| get(record))
}

#[test]
fn every_number_carries_its_path_and_value() {
    let record = rf_record();
    let html = html_report(&record);
    assert!(html.contains(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        calibscope_report::CSP
    )));
    let mut n = 0;
    let mut seen = Map::new();
    for (path, got) in support::numbers(&html) {
        let want = lookup(&record, &path).unwrap_or_else(|| panic!("{path} is not in the record"));
        assert_eq!(&got, want, "{path}");
        seen.insert(path, got);
        n += 1;
    }
    // overview, both 15-bin tables, recalibration ledger
    assert!(n > 150, "{n} numbers");
    assert!(seen.contains_key("binning_free.accuracy"));
    assert!(seen.contains_key("reliability.confidence.mass_15.14.cp_upper"));
    assert!(seen.contains_key("recalibration.isotonic.after.nll"));
    // two charts, each the shared drawing code's SVG
    assert_eq!(html.matches("<svg ").count(), 2);
}

fn rf_record() -> Value {
    let data = std::fs::read(shared().join("fixtures/real/breast_cancer_rf_p.csv")).unwrap();
    record_of("rf.csv", &data)
}

#[test]
fn csv_files_hold_every_number_at_full_precision() {
    let record = rf_record();
    let files: std::collections::BTreeMap<String, String> =
        calibscope_report::csv_files(&record).into_iter().collect();
    for name in [
        "numbers.csv",
        "overview.csv",
        "recalibration.csv",
        "reliability_confidence_width_10.csv",
        "reliability_confidence_mass_15.csv",
    ] {
        assert!(
            files.contains_key(name),
            "{name} missing: {:?}",
            files.keys()
        );
    }
    // numbers.csv: every number of the audit, by path
    let audit = &record["audits"][0];
    let mut n = 0;
    for line in files["numbers.csv"].lines().skip(1) {
        let f = fields(line);
        let want = lookup(audit, &f[0]).unwrap();
        let got: Value = if f[1].is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&f[1]).unwrap()
        };
        assert_eq!(&got, want, "{}", f[0]);
        n += 1;
    }
    assert!(n > 1000, "{n} numbers");
    // a reliability table: every row and field
    let rows = record["tables"]["reliability"]["confidence"]["mass_15"]
        .as_array()
        .unwrap();
    let text = &files["reliability_confidence_mass_15.csv"];
    let header = fields(text.lines().next().unwrap());
    for (line, row) in text.lines().skip(1).zip(rows) {
        for (k, v) in header.iter().zip(fields(line)) {
            assert_eq!(serde_json::from_str::<Value>(&v).unwrap(), row[k], "{k}");
        }
    }
    assert_eq!(text.lines().count(), rows.len() + 1);
}

#[test]
fn svg_files_are_the_report_charts() {
    let record = rf_record();
    let html = html_report(&record);
    let svgs = calibscope_report::svg_files(&record);
    assert_eq!(svgs.len(), 2);
    for (name, svg) in &svgs {
        assert!(name.ends_with("_15.svg"));
        assert!(
            svg.starts_with("<svg") && html.contains(svg.as_str()),
            "{name}"
        );
    }
}
