//! The report's binning-free section: the verdict comes first, with its numbers'
//! paths, the tests and the smooth and cumulative diagrams drawn from the record's
//! tables; a record without the section (no bootstrap settings) shows none of it;
//! `svg_files` exports both diagrams.

use calibscope_audit::{
    audit_document_with, parse_options, record_tables_with, AuditOptions, Producer, Record,
    Sections,
};
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_report::{html_report, svg_files};
use calibscope_share::{file_ref, DataSource, MappingState, ViewState};
use serde_json::Value;

fn record(bootstrap: Option<&BootstrapSettings>, csv: &str) -> Value {
    let mapping = MappingState::default();
    let mut parser = calibscope_io::Parser::new("p.csv", parse_options(&mapping).unwrap());
    let _ = parser.push(csv.as_bytes());
    let parsed = parser.finish();
    let dataset = parsed.as_ref().expect("parses");
    let options = AuditOptions {
        m_values: vec![15],
        recalibration: None,
        roc_max_n: 0,
    };
    let inputs = vec![file_ref("p.csv", csv.as_bytes())];
    Record {
        contract: calibscope_audit::CONTRACT,
        producer: Producer {
            name: "t".into(),
            version: "0".into(),
            build: "b".into(),
        },
        inputs: inputs.clone(),
        settings: ViewState {
            data: DataSource::Files { files: inputs },
            mapping,
            ..ViewState::default()
        },
        audits: vec![audit_document_with(
            &parsed,
            "p.csv",
            &options,
            Sections::Sequential,
            bootstrap,
        )],
        tables: record_tables_with(dataset, None, bootstrap).unwrap(),
        options,
    }
    .to_json()
}

fn csv() -> String {
    let mut csv = String::from("label,p\n");
    for i in 0..300 {
        let p = (i as f64 + 0.5) / 300.0;
        // overconfident: the outcome rate is pulled towards 1/2
        let y = u8::from(((i * 7919) % 300) as f64 / 300.0 < 0.25 + 0.5 * p);
        csv.push_str(&format!("{y},{p}\n"));
    }
    csv
}

#[test]
fn the_verdict_and_both_diagrams_come_first() {
    let s = BootstrapSettings {
        replicates: 200,
        ..BootstrapSettings::default()
    };
    let r = record(Some(&s), &csv());
    let html = html_report(&r);
    let verdict = html
        .find("data-metric=\"verdict.text\"")
        .expect("the verdict");
    let overview = html.find("<h2>Overview</h2>").expect("the overview");
    assert!(verdict < overview, "the verdict opens the report");
    let text = r["audits"][0]["verdict"]["text"].as_str().unwrap();
    assert!(html.contains(text), "{text}");
    for path in [
        "verdict.d",
        "verdict.d_interval.0",
        "readings.confidence.tests.cumulative.p_ks",
    ] {
        assert!(html.contains(&format!("data-metric=\"{path}\"")), "{path}");
    }
    // drawn at the report's width, the cumulative chart's caption is the short one
    // (its figure caption names the diagram)
    assert!(html.contains("σ* =") && html.contains("KS = "));
    let files: Vec<String> = svg_files(&r).into_iter().map(|(name, _)| name).collect();
    assert!(
        files.contains(&"smooth_confidence.svg".to_string()),
        "{files:?}"
    );
    assert!(
        files.contains(&"cumulative_confidence.svg".to_string()),
        "{files:?}"
    );
}

#[test]
fn a_record_without_the_section_shows_none_of_it() {
    let r = record(None, &csv());
    let html = html_report(&r);
    assert!(!html.contains("how sure are we") && !html.contains("σ* ="));
    assert_eq!(svg_files(&r).len(), 2, "the two reliability diagrams only");
}

#[test]
fn flipped_pairs_say_whether_they_are_within_noise() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../audit/tests/golden/digits_zoo3_head60_probs.csv");
    let parsed = calibscope_io::open_paths(&[path], &calibscope_io::Options::default());
    let ds = parsed.as_ref().unwrap();
    let s = BootstrapSettings {
        replicates: 200,
        ..BootstrapSettings::default()
    };
    let flips = calibscope_audit::FlipsSettings {
        m: 2,
        m_ref: 60,
        bins: vec![2, 60],
        ..Default::default()
    };
    let tables = record_tables_with(ds, Some(&flips), Some(&s)).unwrap();
    let mut record = record(Some(&s), &csv());
    record["tables"] = serde_json::json!(tables);
    let html = html_report(&record);
    let flipped = tables["flips"]["ranking"]["flip_pairs"]
        .as_object()
        .map_or(0, |m| m.values().map(|v| v.as_array().unwrap().len()).sum());
    let marked = html
        .matches("of the paired bootstrap replicates at m = ")
        .count();
    assert_eq!(
        marked, flipped,
        "every flipped pair of the ranking is marked"
    );
}

/// The `width` attribute of an SVG's root element.
fn svg_width(svg: &str) -> String {
    let root = &svg[svg.find("<svg").expect("an svg")..];
    let at = root.find(" width=\"").expect("a width") + 8;
    root[at..at + root[at..].find('"').unwrap()].to_string()
}

#[test]
fn the_smooth_and_cumulative_diagrams_are_as_wide_as_the_reliability_diagrams() {
    let s = BootstrapSettings {
        replicates: 50,
        ..BootstrapSettings::default()
    };
    let r = record(Some(&s), &csv());
    let files = svg_files(&r);
    let width = |name: &str| {
        let (_, svg) = files.iter().find(|(n, _)| n == name).expect(name);
        svg_width(svg)
    };
    let reliability = width("reliability_confidence_width_15.svg");
    assert_eq!(reliability, calibscope_report::REPORT_CHART_W.to_string());
    assert_eq!(width("smooth_confidence.svg"), reliability);
    assert_eq!(width("cumulative_confidence.svg"), reliability);
    // the report's figures are those drawings
    let html = html_report(&r);
    let widths: Vec<String> = html
        .match_indices("<svg")
        .map(|(i, _)| svg_width(&html[i..]))
        .collect();
    assert!(widths.len() >= 4, "{widths:?}");
    assert!(widths.iter().all(|w| *w == reliability), "{widths:?}");
}

/// Whether `text` is a number written the way people read it: no e-notation
/// between 1e-4 and 1e6 (the one formatter's rules).
fn readable(text: &str) -> bool {
    !text.contains('e')
        || text == "undefined"
        || text.starts_with("< 1e-4")
        || text.starts_with("> -1e-4")
}

#[test]
fn the_report_and_the_markdown_write_numbers_with_the_pages_formatter() {
    let s = BootstrapSettings {
        replicates: 50,
        ..BootstrapSettings::default()
    };
    let r = record(Some(&s), &csv());
    let html = html_report(&r);
    let mut checked = 0;
    for (i, _) in html.match_indices("<span class=\"num\" data-metric=\"") {
        let span = &html[i..];
        let value = &span[span.find("data-value=\"").unwrap() + 12..];
        let value: Value = serde_json::from_str(&value[..value.find('"').unwrap()]).unwrap();
        let text = &span[span.find('>').unwrap() + 1..span.find("</span>").unwrap()];
        let text = &text.replace("&lt;", "<").replace("&gt;", ">");
        let want = match value.as_u64() {
            Some(n) => calibscope_charts::numfmt::count(n),
            None => calibscope_charts::numfmt::display(value.as_f64()),
        };
        assert_eq!(*text, want, "{value}");
        assert!(readable(text), "{text}");
        checked += 1;
    }
    assert!(checked > 50, "{checked} numbers");
    // a value of the test's order 1e-5 in the old e-notation reads `< 1e-4` now
    assert_eq!(
        calibscope_audit::summary::fmt(&serde_json::json!(4.987e-18)),
        "< 1e-4"
    );
    assert_eq!(
        calibscope_audit::summary::fmt(&serde_json::json!(-1.571e-3)),
        "-0.001571"
    );
    let md = calibscope_audit::record_markdown(&r, 15, calibscope_core::binning::Binning::Mass);
    for cell in md.split('|').map(str::trim) {
        if cell.parse::<f64>().is_ok() || cell.contains("e-") {
            assert!(
                readable(cell) || !cell.chars().next().unwrap().is_ascii_digit(),
                "{cell}"
            );
        }
    }
}
