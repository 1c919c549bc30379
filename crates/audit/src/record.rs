//! The audit record `calibscope-record/1`: what was audited (file fingerprints),
//! how (parse options, column mapping, every setting) and every number (the
//! `calibscope-audit/1` documents and any view tables), so that anyone holding the
//! same files can recompute it and [`verify`] the numbers one by one.
//!
//! ```json
//! {"schema": "calibscope-record/1", "contract": 3,
//!  "producer": {"name": "calibscope-cli", "version": "0.2.1", "build": "…"},
//!  "inputs": [{"name": "preds.csv", "size": 1234, "sha256": "3fa2…"}],
//!  "mapping": {…}, "options": {"m_values": [15], "recalibration": {"seed": 0, "fraction": 0.5,
//!    "platt_and_isotonic": true, "more_methods": ["beta", …]}, "roc_max_n": 300},
//!  "settings": {… the full view state …},
//!  "audits": [{… calibscope-audit/1 …}], "tables": {"name": …}}
//! ```

use crate::{AuditOptions, Method, RecalibrationSettings};
use calibscope_io::Options;
use calibscope_share::{FileRef, MappingState, ViewState};
use serde_json::{json, Map, Value};

/// The schema name written in every record.
pub const RECORD_SCHEMA: &str = "calibscope-record/1";

/// Who wrote a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Producer {
    /// `calibscope-cli` or `calibscope-app`.
    pub name: String,
    pub version: String,
    /// The build id (a commit or a build stamp; `dev` when unknown).
    pub build: String,
}

/// Everything a record holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub producer: Producer,
    /// The version of the metric contract the numbers were computed under
    /// ([`crate::CONTRACT`] for a record written by this release; a record without
    /// the field is of version 2, see [`crate::contract`]).
    pub contract: u32,
    /// The input files' fingerprints, in the order they were read.
    pub inputs: Vec<FileRef>,
    /// The settings of the view (its `mapping` is the column mapping used).
    pub settings: ViewState,
    /// The options of the audit documents.
    pub options: AuditOptions,
    /// The `calibscope-audit/1` documents.
    pub audits: Vec<Value>,
    /// Further tables of the view (name → JSON), e.g. a ranking-flips sweep.
    pub tables: Map<String, Value>,
}

/// The options as JSON.
pub fn options_json(o: &AuditOptions) -> Value {
    json!({
        "m_values": o.m_values,
        "recalibration": o.recalibration.as_ref().map(|r| {
            let mut v = json!({"seed": r.seed, "fraction": r.fraction, "platt_and_isotonic": r.platt_and_isotonic});
            if !r.more_methods.is_empty() {
                v["more_methods"] = r.more_methods.iter().map(|m| m.name()).collect();
            }
            v
        }),
        "roc_max_n": o.roc_max_n,
    })
}

fn options_of(v: &Value) -> Result<AuditOptions, String> {
    let m_values = serde_json::from_value::<Vec<usize>>(v["m_values"].clone())
        .map_err(|e| format!("options.m_values: {e}"))?;
    let recalibration = match &v["recalibration"] {
        Value::Null => None,
        r => Some(RecalibrationSettings {
            seed: r["seed"]
                .as_u64()
                .ok_or("options.recalibration.seed must be an integer")?,
            fraction: r["fraction"]
                .as_f64()
                .ok_or("options.recalibration.fraction must be a number")?,
            // absent in records written before the choice existed: both maps
            platt_and_isotonic: match &r["platt_and_isotonic"] {
                Value::Null => true,
                v => v
                    .as_bool()
                    .ok_or("options.recalibration.platt_and_isotonic must be true or false")?,
            },
            // read from the data again when the record is verified
            class_positions_differ: false,
            // absent in records written before the choice existed: none
            more_methods: more_methods_of(&r["more_methods"])?,
        }),
    };
    let roc_max_n = v["roc_max_n"]
        .as_u64()
        .ok_or("options.roc_max_n must be an integer")? as usize;
    Ok(AuditOptions {
        m_values,
        recalibration,
        roc_max_n,
    })
}

/// The `options.recalibration.more_methods` of a record: names of methods beyond
/// temperature, Platt and isotonic, each once (absent: none).
fn more_methods_of(v: &Value) -> Result<Vec<Method>, String> {
    let Some(names) = v.as_array() else {
        return match v {
            Value::Null => Ok(Vec::new()),
            _ => Err("options.recalibration.more_methods must be a list of method names".into()),
        };
    };
    let mut methods = Vec::new();
    for name in names {
        let method = name
            .as_str()
            .and_then(Method::from_name)
            .filter(|m| m.prob_method().is_some())
            .ok_or_else(|| {
                format!(
                    "options.recalibration.more_methods: {name} is not one of beta, histogram, venn_abers, vector, matrix, dirichlet"
                )
            })?;
        if !methods.contains(&method) {
            methods.push(method);
        }
    }
    methods.sort_by_key(|m| Method::EVERY.iter().position(|e| e == m));
    Ok(methods)
}

impl Record {
    /// The record as `calibscope-record/1` JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "schema": RECORD_SCHEMA,
            "contract": self.contract,
            "producer": {
                "name": self.producer.name,
                "version": self.producer.version,
                "build": self.producer.build,
            },
            "inputs": self.inputs,
            "mapping": self.settings.mapping,
            "options": options_json(&self.options),
            "settings": self.settings,
            "audits": self.audits,
            "tables": self.tables,
        })
    }

    /// Reads a record, or says why it is not one.
    pub fn from_json(v: &Value) -> Result<Record, String> {
        match v["schema"].as_str() {
            Some(RECORD_SCHEMA) => {}
            Some(other) => {
                return Err(format!(
                    "the record has schema {other}; this calibscope reads {RECORD_SCHEMA}"
                ))
            }
            None => return Err(format!("not a {RECORD_SCHEMA} document (no schema)")),
        }
        let p = &v["producer"];
        let text = |x: &Value| x.as_str().unwrap_or("").to_string();
        let contract = match &v["contract"] {
            Value::Null => crate::contract::CONTRACT_OF_UNVERSIONED,
            c => c
                .as_u64()
                .and_then(|c| u32::try_from(c).ok())
                .filter(|&c| c >= 1)
                .ok_or_else(|| {
                    format!("record contract: {c} is not a version of the metric contract (a whole number, 1 or more)")
                })?,
        };
        Ok(Record {
            contract,
            producer: Producer {
                name: text(&p["name"]),
                version: text(&p["version"]),
                build: text(&p["build"]),
            },
            inputs: field(v, "inputs")?,
            settings: field(v, "settings")?,
            options: options_of(&v["options"])?,
            audits: field(v, "audits")?,
            tables: match &v["tables"] {
                Value::Null => Map::new(),
                _ => field(v, "tables")?,
            },
        })
    }
}

fn field<T: serde::de::DeserializeOwned>(v: &Value, key: &str) -> Result<T, String> {
    serde_json::from_value(v[key].clone()).map_err(|e| format!("record {key}: {e}"))
}

/// The id of the element of an HTML report that holds its record.
pub const RECORD_ELEMENT_ID: &str = "calibscope-record";

/// The record JSON of a dropped or given document: a record itself, or an HTML
/// report holding one in `<script type="application/json" id="calibscope-record">`.
pub fn record_json_of(text: &str) -> Result<Value, String> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let json = if trimmed.starts_with('{') {
        trimmed
    } else {
        let open = format!("id=\"{RECORD_ELEMENT_ID}\">");
        let start = text
            .find(&open)
            .map(|i| i + open.len())
            .ok_or("neither a calibscope record (JSON) nor a calibscope HTML report holding one")?;
        let end = text[start..]
            .find("</script>")
            .ok_or("the report's record element is not closed")?;
        &text[start..start + end]
    };
    serde_json::from_str(json).map_err(|e| format!("the record is not valid JSON: {e}"))
}

/// The parser options of a column mapping, or why the mapping is impossible.
pub fn parse_options(m: &MappingState) -> Result<Options, String> {
    Ok(Options {
        mapping: m.to_mapping()?,
        ..Options::default()
    })
}

/// The outcome of one compared value.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// The same value (numbers: the same `f64`, bit for bit as JSON writes it).
    Identical { value: Value },
    /// Numbers equal up to floating-point rounding: at most [`MAX_ROUNDING_ULPS`]
    /// representable doubles apart (another platform's maths library: the browser's
    /// wasm build and a native build may round `exp`, `ln`, `powf` differently in the
    /// last bit). Counted as verified, and shown as such.
    Rounding {
        recorded: Value,
        recomputed: Value,
        ulps: u64,
    },
    /// Different values: the recorded one and the recomputed one.
    Differs { recorded: Value, recomputed: Value },
    /// The value exists in the record only (`in_record`) or in the recomputation only.
    Missing { in_record: bool, value: Value },
    /// A value of a record computed under an earlier version of the metric contract
    /// that moved only because a definition changed in version `contract`: the
    /// recorded value is the earlier definition's on the same data (see
    /// [`crate::contract`]). Counted as verified; shown with its
    /// [`Status::definition_sentence`].
    DefinitionChanged {
        recorded: Value,
        recomputed: Value,
        contract: u32,
        change: &'static str,
    },
}

/// One compared value, by its path (`audits.0.binning_free.accuracy`).
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub path: String,
    pub status: Status,
}

impl Check {
    /// Verified: identical, equal up to floating-point rounding, or moved only by a
    /// definition change of the contract since the record was written.
    pub fn ok(&self) -> bool {
        matches!(
            self.status,
            Status::Identical { .. } | Status::Rounding { .. } | Status::DefinitionChanged { .. }
        )
    }
}

/// The most units in the last place two recomputed numbers may differ by and still
/// verify (see [`Status::Rounding`]); a changed value is thousands of ulps away.
pub const MAX_ROUNDING_ULPS: u64 = 16;

/// How many representable doubles lie between `a` and `b` (both finite).
fn ulps_apart(a: f64, b: f64) -> Option<u64> {
    if !a.is_finite() || !b.is_finite() {
        return None;
    }
    let ordered = |x: f64| {
        let bits = x.to_bits() as i64;
        if bits < 0 {
            i64::MIN.wrapping_sub(bits)
        } else {
            bits
        }
    };
    Some(ordered(a).abs_diff(ordered(b)))
}

/// The status of two values found at the same path.
pub(crate) fn compare(x: &Value, y: &Value) -> Status {
    if x == y {
        return Status::Identical { value: x.clone() };
    }
    let integers = |v: &Value| v.is_u64() || v.is_i64();
    if let (Some(a), Some(b)) = (x.as_f64(), y.as_f64()) {
        // `1` and `1.0` are the same number (a record re-saved by another JSON tool)
        if a == b && !(integers(x) && integers(y)) {
            return Status::Identical { value: x.clone() };
        }
        if let Some(ulps) = ulps_apart(a, b).filter(|&u| u <= MAX_ROUNDING_ULPS) {
            if !(integers(x) && integers(y)) {
                return Status::Rounding {
                    recorded: x.clone(),
                    recomputed: y.clone(),
                    ulps,
                };
            }
        }
    }
    Status::Differs {
        recorded: x.clone(),
        recomputed: y.clone(),
    }
}

/// [`compare`] for a point of the smooth reliability curve, `t - rs(t)` with `t` in
/// `[0, 1]`: its rounding is that of numbers near 1, so a value near 0 recomputed on
/// another platform (another `exp`) may be many of its own ulps away. Two such values
/// differing by at most [`MAX_ROUNDING_ULPS`] ulps of 1 are equal up to rounding.
fn compare_at_unit_scale(x: &Value, y: &Value) -> Status {
    match compare(x, y) {
        Status::Differs { .. } if x.is_f64() && y.is_f64() => {
            let (a, b) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            let scale = a.abs().max(b.abs()).max(1.0) * f64::EPSILON;
            let ulps = ((a - b).abs() / scale).ceil();
            if ulps <= MAX_ROUNDING_ULPS as f64 {
                Status::Rounding {
                    recorded: x.clone(),
                    recomputed: y.clone(),
                    ulps: ulps as u64,
                }
            } else {
                compare(x, y)
            }
        }
        status => status,
    }
}

/// Keys that name things rather than measure them (a file's path may differ between
/// machines; its fingerprint is checked under `inputs`).
const NAMES: [&str; 2] = ["file", "files"];

fn walk(path: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Vec<Check>) {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                if path.starts_with("audits.") && NAMES.contains(&k.as_str()) {
                    continue;
                }
                // what the flips section was computed with, not a result
                if path == "tables.flips" && k == "settings" {
                    continue;
                }
                walk(&join(k), x.get(k), y.get(k), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                walk(&join(&i.to_string()), x.get(i), y.get(i), out);
            }
        }
        (Some(x), Some(y)) => out.push(Check {
            path: path.to_string(),
            status: if path.contains(".smooth.mean_outcome.") {
                compare_at_unit_scale(x, y)
            } else {
                compare(x, y)
            },
        }),
        (Some(x), None) | (None, Some(x)) => out.push(Check {
            path: path.to_string(),
            status: Status::Missing {
                in_record: a.is_some(),
                value: x.clone(),
            },
        }),
        (None, None) => {}
    }
}

/// Compares a record with its recomputation, value by value: the input fingerprints
/// (size and SHA-256), every value of the audit documents (file names aside) and of
/// the view tables. Producer, settings and options are what the recomputation was
/// made with, so they are not compared.
pub fn verify(record: &Value, recomputed: &Value) -> Vec<Check> {
    let mut out = Vec::new();
    let empty = Vec::new();
    let inputs = |v: &Value| v["inputs"].as_array().unwrap_or(&empty).clone();
    let (ra, rb) = (inputs(record), inputs(recomputed));
    for i in 0..ra.len().max(rb.len()) {
        for key in ["size", "sha256"] {
            let (a, b) = (ra.get(i).map(|v| &v[key]), rb.get(i).map(|v| &v[key]));
            walk(&format!("inputs.{i}.{key}"), a, b, &mut out);
        }
    }
    for key in ["audits", "tables"] {
        walk(key, record.get(key), recomputed.get(key), &mut out);
    }
    out
}

/// The bin count of the reports' reliability tables (`tables.reliability…_15`).
pub const REPORT_M: usize = 15;

/// A record's recomputation from its data (`parsed`, read with the record's
/// mapping, from the files fingerprinted in `inputs`), compared with the record value
/// by value: what `calibscope verify` and the app's "Verify a record" both do.
/// Returns the checks and a note per recorded table of a view that is not
/// recomputed (named, not compared). A record computed under an earlier version of
/// the metric contract is recomputed under this one; its values that moved only by a
/// definition change are [`Status::DefinitionChanged`].
pub fn reverify(
    recorded: &Value,
    parsed: &Result<calibscope_io::Dataset, calibscope_io::ParseErrors>,
    name: &str,
    inputs: Vec<FileRef>,
    producer: Producer,
) -> Result<(Record, Vec<Check>, Vec<String>), String> {
    let record = Record::from_json(recorded)?;
    // a recorded flips section is recomputed with the settings it names
    let flips = match record.tables.get("flips") {
        Some(section) => Some(crate::flips_record::flips_settings_of(section)?),
        None => None,
    };
    // the values of METRICS.md §8 are recomputed with the recorded bootstrap settings
    let bootstrap = match recorded["audits"].get(0) {
        Some(doc) => {
            crate::beyond_binning::bootstrap_of(doc).map_err(|e| format!("audits.0.{e}"))?
        }
        None => None,
    };
    // and the groups with the recorded group settings
    let groups = match recorded["audits"].get(0) {
        Some(doc) => crate::groups::group_settings_of(doc).map_err(|e| format!("audits.0.{e}"))?,
        None => None,
    };
    let mut tables = match parsed {
        Ok(d) => {
            crate::record_tables_grouped(d, flips.as_ref(), bootstrap.as_ref(), groups.as_ref())?
        }
        Err(_) => Map::new(),
    };
    // records made before the groups' diagrams were recorded have no tables of them
    let mut notes = Vec::new();
    if crate::record_tables::strip_unrecorded_group_tables(&record.tables, &mut tables) {
        notes.push("tables.groups: the record has no per-group diagrams (made before they were recorded); the groups' numbers are compared under audits.0.groups".to_string());
    }
    let recomputed = Record {
        producer,
        contract: crate::CONTRACT,
        inputs,
        audits: vec![crate::audit_document_grouped(
            parsed,
            name,
            &record.options,
            crate::Sections::available(),
            bootstrap.as_ref(),
            groups.as_ref(),
        )],
        tables,
        ..record.clone()
    };
    let recomputed = recomputed.to_json();
    let mut compared = recorded.clone();
    if let Some(tables) = compared["tables"].as_object_mut() {
        tables.retain(|key, _| {
            let known = recomputed["tables"].get(key).is_some();
            if !known {
                notes.push(format!("tables.{key}: not recomputed"));
            }
            known
        });
    }
    let mut checks = verify(&compared, &recomputed);
    crate::contract::explain(record.contract, &compared, &recomputed, &mut checks);
    Ok((record, checks, notes))
}

/// The fuzz check of the record reader (the `record` target of crates/audit/fuzz,
/// replayed on stable by tests/fuzz_replay.rs): any bytes, read as a dropped record
/// or HTML report, give a record or an error, never a panic; a record that reads
/// verifies against itself with every value identical, and re-reads from its own
/// JSON to the same record.
#[doc(hidden)]
pub fn fuzz_check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(json) = record_json_of(&text) else {
        return;
    };
    let Ok(record) = Record::from_json(&json) else {
        return;
    };
    let again = record.to_json();
    let checks = verify(&again, &again);
    assert!(
        checks.iter().all(Check::ok),
        "a record must verify against itself"
    );
    let reread = Record::from_json(&again).expect("a written record reads back");
    assert_eq!(reread.to_json(), again, "a record re-reads to itself");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_smooth_curve_point_near_zero_rounds_at_the_scale_of_one() {
        // recomputed in a browser (its own exp): 28 ulps of the value, < 1 ulp of 1
        let (rec, again) = (json!(0.004038404063757356), json!(0.004038404063757384));
        assert!(matches!(compare(&rec, &again), Status::Differs { .. }));
        assert!(matches!(
            compare_at_unit_scale(&rec, &again),
            Status::Rounding { ulps: 1, .. }
        ));
        // a change stays a change
        assert!(matches!(
            compare_at_unit_scale(&rec, &json!(0.0040384040638)),
            Status::Differs { .. }
        ));
        let mut out = Vec::new();
        walk(
            "t.smooth.mean_outcome.48",
            Some(&rec),
            Some(&again),
            &mut out,
        );
        walk("t.smooth.density.48", Some(&rec), Some(&again), &mut out);
        assert!(out[0].ok() && !out[1].ok());
    }

    #[test]
    fn rounding_is_told_apart_from_a_change() {
        let x = 0.7131106033327793f64;
        let next = f64::from_bits(x.to_bits() + 1);
        assert!(matches!(
            compare(&json!(x), &json!(next)),
            Status::Rounding { ulps: 1, .. }
        ));
        assert!(matches!(
            compare(&json!(x), &json!(x + 1e-12)),
            Status::Differs { .. }
        ));
        assert!(matches!(
            compare(&json!(1), &json!(1.0)),
            Status::Identical { .. }
        ));
        assert!(matches!(
            compare(&json!(-0.0), &json!(0.0)),
            Status::Identical { .. }
        ));
        // integers (sizes, counts) are exact
        assert!(matches!(
            compare(&json!(1120), &json!(1121)),
            Status::Differs { .. }
        ));
        assert!(matches!(
            compare(&json!("a"), &json!("b")),
            Status::Differs { .. }
        ));
        assert_eq!(ulps_apart(-1e-300, 1e-300).map(|u| u > 16), Some(true));
    }
}
