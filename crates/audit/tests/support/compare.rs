//! Compares a computed audit with a fixture's `.expected.json` under the fixtures
//! README's tolerance rules (longest matching tolerance key, `abs_field`/`rel_field`
//! looked up in the nearest enclosing object, `not_compared`, the per-file
//! `sensitive` map, the `at_bracket_end` exception). Shared by the audit and CLI tests.

use serde_json::{Map, Value};

/// One mismatch: the JSON path and what differed.
#[derive(Debug)]
pub struct Mismatch {
    pub path: String,
    pub detail: String,
}

struct Rules<'a> {
    tolerance: &'a Map<String, Value>,
    not_compared: Vec<&'a str>,
    sensitive: Option<&'a Map<String, Value>>,
}

/// Every mismatch between `got` and `expected` (fields of `expected` only; extra
/// fields of `got` are allowed). Top-level `schema`, `tolerance` and `sensitive` are
/// metadata and skipped.
pub fn compare(got: &Value, expected: &Value) -> Vec<Mismatch> {
    let empty = Map::new();
    let tolerance = expected
        .get("tolerance")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let not_compared = tolerance
        .get("not_compared")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let rules = Rules {
        tolerance,
        not_compared,
        sensitive: expected.get("sensitive").and_then(Value::as_object),
    };
    let mut out = Vec::new();
    let mut path = Vec::new();
    let mut parents = Vec::new();
    walk(&rules, got, expected, &mut path, &mut parents, &mut out);
    out
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn path_string(path: &[Step]) -> String {
    path.iter()
        .map(|s| match s {
            Step::Key(k) => k.clone(),
            Step::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

fn walk<'a>(
    rules: &Rules<'a>,
    got: &Value,
    expected: &'a Value,
    path: &mut Vec<Step>,
    parents: &mut Vec<&'a Map<String, Value>>,
    out: &mut Vec<Mismatch>,
) {
    let joined = path_string(path);
    let sensitive = rules.sensitive.and_then(|s| s.get(&joined));
    if sensitive.and_then(Value::as_str) == Some("any") {
        return;
    }
    let sensitive_abs = sensitive
        .and_then(|s| s.get("abs"))
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let fail = |out: &mut Vec<Mismatch>, detail: String| {
        out.push(Mismatch {
            path: joined.clone(),
            detail,
        })
    };
    match expected {
        Value::Object(map) => {
            let Some(got_map) = got.as_object() else {
                return fail(out, format!("expected an object, got {got}"));
            };
            parents.push(map);
            for (key, value) in map {
                if path.is_empty() && matches!(key.as_str(), "schema" | "tolerance" | "sensitive") {
                    continue;
                }
                if rules.not_compared.contains(&key.as_str()) {
                    continue;
                }
                path.push(Step::Key(key.clone()));
                match got_map.get(key) {
                    Some(g) => walk(rules, g, value, path, parents, out),
                    None => out.push(Mismatch {
                        path: path_string(path),
                        detail: "missing".into(),
                    }),
                }
                path.pop();
            }
            parents.pop();
        }
        Value::Array(items) => {
            let Some(got_items) = got.as_array() else {
                return fail(out, format!("expected an array, got {got}"));
            };
            if got_items.len() != items.len() {
                return fail(
                    out,
                    format!("length {} != expected {}", got_items.len(), items.len()),
                );
            }
            for (i, (g, e)) in got_items.iter().zip(items).enumerate() {
                path.push(Step::Index(i));
                walk(rules, g, e, path, parents, out);
                path.pop();
            }
        }
        Value::Number(e) if e.is_f64() => {
            let Some(g) = got.as_f64() else {
                return fail(out, format!("expected {e}, got {got}"));
            };
            let e = e.as_f64().unwrap();
            let (abs, rel) = tolerance_for(rules, path, parents);
            let abs = abs.max(sensitive_abs);
            if (g - e).abs() > abs + rel * e.abs() || g.is_nan() {
                fail(
                    out,
                    format!(
                        "got {g:e}, expected {e:e} (diff {:e}, abs {abs:e}, rel {rel:e})",
                        g - e
                    ),
                );
            }
        }
        Value::Number(e) => {
            if got.as_f64() != e.as_f64() {
                fail(out, format!("got {got}, expected {e} (exact)"));
            }
        }
        Value::Bool(_) if last_key(path) == Some("at_bracket_end") => {
            if got != expected && !at_bracket_end_ambiguous(parents) {
                fail(out, format!("got {got}, expected {expected}"));
            }
        }
        _ => {
            if got != expected {
                fail(out, format!("got {got}, expected {expected}"));
            }
        }
    }
}

fn last_key(path: &[Step]) -> Option<&str> {
    match path.last()? {
        Step::Key(k) => Some(k),
        Step::Index(_) => None,
    }
}

fn at_bracket_end_ambiguous(parents: &[&Map<String, Value>]) -> bool {
    let Some(temp) = parents.last() else {
        return false;
    };
    let (Some(tau), Some(tol)) = (
        temp.get("tau").and_then(Value::as_f64),
        temp.get("tau_tolerance").and_then(Value::as_f64),
    ) else {
        return false;
    };
    ((tau - 0.05).min(20.0 - tau) - 1e-6).abs() <= tol
}

/// `(abs, rel)` for the value at `path`: the longest matching tolerance key.
fn tolerance_for(rules: &Rules<'_>, path: &[Step], parents: &[&Map<String, Value>]) -> (f64, f64) {
    let keys: Vec<&str> = path
        .iter()
        .filter_map(|s| match s {
            Step::Key(k) => Some(k.as_str()),
            Step::Index(_) => None,
        })
        .collect();
    let mut best: Option<(usize, &Map<String, Value>)> = None;
    for (name, spec) in rules.tolerance {
        let Some(spec) = spec.as_object() else {
            continue;
        };
        if matches!(name.as_str(), "default" | "rule" | "not_compared") {
            continue;
        }
        let parts: Vec<&str> = name.split('.').collect();
        let leading = parts.len() <= keys.len() && keys[..parts.len()] == parts[..];
        let field = parts.len() == 1 && keys.last() == Some(&parts[0]);
        if (leading || field) && best.is_none_or(|(len, _)| parts.len() > len) {
            best = Some((parts.len(), spec));
        }
    }
    let spec = best
        .map(|(_, s)| s)
        .or_else(|| rules.tolerance.get("default").and_then(Value::as_object));
    let Some(spec) = spec else {
        return (1e-10, 1e-9);
    };
    let lookup = |field: &str| -> f64 {
        parents
            .iter()
            .rev()
            .find_map(|p| p.get(field).and_then(Value::as_f64))
            .unwrap_or_else(|| panic!("tolerance field {field} not found for {keys:?}"))
    };
    let abs = match spec.get("abs_field").and_then(Value::as_str) {
        Some(f) => lookup(f),
        None => spec.get("abs").and_then(Value::as_f64).unwrap_or(0.0),
    };
    let rel = match spec.get("rel_field").and_then(Value::as_str) {
        Some(f) => lookup(f),
        None => spec.get("rel").and_then(Value::as_f64).unwrap_or(0.0),
    };
    (abs, rel)
}
