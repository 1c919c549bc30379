//! Undefined values reach the audit JSON as `null`: the MCC of a class
//! that every sample is predicted as, and the ROC curve of class 1 when one class
//! never occurs (the curve as a whole, not points with null rates).

use calibscope_audit::{audit_document, AuditOptions};
use serde_json::Value;

fn audit_of(csv: &str) -> Value {
    let mut parser = calibscope_io::Parser::new("t.csv", calibscope_io::Options::default());
    let _ = parser.push(csv.as_bytes());
    let parsed = parser.finish();
    let dataset = parsed.as_ref().expect("parses");
    audit_document(&parsed, "t.csv", &AuditOptions::for_n(dataset.n()))
}

/// A confidence that is not a short binary fraction.
fn spread(i: usize, lo: f64) -> f64 {
    lo + 0.3 * ((i as f64 + 1.0) * 0.618_033_988_749_894_9).fract()
}

#[test]
fn a_constant_prediction_writes_a_null_mcc() {
    let mut csv = String::from("label,p_0,p_1,p_2\n");
    for i in 0..120 {
        let c = spread(i, 0.5);
        let rest = 1.0 - c;
        csv.push_str(&format!(
            "{},{c},{},{}\n",
            i % 3,
            rest * 0.4,
            rest - rest * 0.4
        ));
    }
    let doc = audit_of(&csv);
    let classes = doc["cw_confusion"].as_array().expect("cw_confusion");
    assert_eq!(classes.len(), 3);
    for class in classes {
        for table in ["cw", "counts"] {
            assert_eq!(class[table]["mcc"], Value::Null, "{class}");
        }
    }
    // class 0 is always predicted: its true negatives are exactly 0
    assert_eq!(classes[0]["cw"]["tn"].as_f64(), Some(0.0));
    assert_eq!(classes[0]["cw"]["fn"].as_f64(), Some(0.0));
}

#[test]
fn a_roc_curve_without_negatives_is_null() {
    for label in [0, 1] {
        let mut csv = String::from("label,p\n");
        for i in 0..50 {
            csv.push_str(&format!("{label},{}\n", spread(i, 0.2)));
        }
        let doc = audit_of(&csv);
        assert!(doc.get("roc_class1").is_some(), "asked for (n <= 300)");
        assert_eq!(doc["roc_class1"], Value::Null, "all labels {label}");
        assert_eq!(doc["binning_free"]["auc"], Value::Null);
    }
    // both classes: points with every rate defined
    let doc = audit_of("label,p\n0,0.2\n1,0.7\n0,0.7\n1,0.9\n");
    let points = doc["roc_class1"].as_array().expect("a curve");
    assert_eq!(points.len(), 4);
    for p in points {
        for key in ["fpr", "tpr", "cwfpr", "cwtpr"] {
            assert!(p[key].is_f64(), "{p}");
        }
    }
}
