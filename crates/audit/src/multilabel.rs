//! Audits of multilabel tables ([`calibscope_io::multilabel`]): every (row, label)
//! pair is one binary prediction, so the document's numbers pool the pairs (the
//! micro-averaged reading) and each label's own audit is its group (the grouping
//! `label`, in `groups`). `input.multilabel` says so: `labels` (their names, in the
//! file's order), `n_labels`, `samples` (the table's rows) and `pairs`
//! (`samples × n_labels`, the audit's n).

use calibscope_io::multilabel::{Multilabel, LABEL_GROUP};
use serde_json::{json, Value};

/// Adds `input.multilabel` to an audit document (single- or multi-model).
pub fn mark(doc: &mut Value, m: &Multilabel) {
    if let Some(input) = doc.get_mut("input").and_then(Value::as_object_mut) {
        input.insert(
            "multilabel".into(),
            json!({
                "labels": m.labels,
                "n_labels": m.labels.len(),
                "samples": m.samples,
                "pairs": m.samples * m.labels.len(),
            }),
        );
    }
}

/// What a multilabel audit's numbers are, in a sentence, from its `input`
/// (`None` for other inputs): the labels, rows and pairs, and where each label's
/// own audit is. `number(path, value)` writes a number of the document (`path`
/// from the document's root), `text` a label's name (escaped for HTML, say).
pub fn sentence(
    input: &Value,
    number: impl Fn(&str, &Value) -> String,
    text: impl Fn(&str) -> String,
) -> Option<String> {
    let m = input.get("multilabel")?;
    let labels: Vec<String> = m["labels"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .map(text)
        .collect();
    let shown = match labels.as_slice() {
        [a, b, c, d, _, ..] => format!("{a}, {b}, {c}, {d}, …"),
        all => all.join(", "),
    };
    let at = |key: &str| number(&format!("input.multilabel.{key}"), &m[key]);
    Some(format!(
        "Multilabel: {} labels ({shown}) on {} rows, each label a 0/1 column with its own score column. The numbers pool all {} (row, label) pairs, the micro-averaged reading; each label's own audit is its group in the grouping \"{LABEL_GROUP}\".",
        at("n_labels"),
        at("samples"),
        at("pairs"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_names_the_labels_rows_and_pairs() {
        let mut doc = json!({"input": {"kind": "binary"}});
        mark(
            &mut doc,
            &Multilabel {
                labels: ["a", "b", "c", "d", "e"].map(String::from).to_vec(),
                samples: 10,
                ..Default::default()
            },
        );
        assert_eq!(doc["input"]["multilabel"]["pairs"], 50);
        let plain = |_: &str, v: &Value| v.to_string();
        let s = sentence(&doc["input"], plain, str::to_string).unwrap();
        assert!(
            s.starts_with("Multilabel: 5 labels (a, b, c, d, …) on 10 rows"),
            "{s}"
        );
        assert!(s.contains("all 50 (row, label) pairs"), "{s}");
        assert_eq!(
            sentence(&json!({"kind": "binary"}), plain, str::to_string),
            None
        );
        let tagged = sentence(&doc["input"], |p, v| format!("<{p}={v}>"), str::to_string).unwrap();
        assert!(tagged.contains("<input.multilabel.pairs=50>"), "{tagged}");
    }
}
