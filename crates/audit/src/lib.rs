//! # calibscope-audit
//!
//! The audit of a prediction file as `calibscope-audit/1` JSON — the schema of the
//! fixtures README (`calibscope-expected/2`), with every section for the input's
//! kind. The CLI prints it, the web worker sends it, reports embed it; all numbers
//! come from `calibscope-core`, this crate only arranges them.

pub mod beyond_binning;
pub mod contract;
pub mod csv;
pub mod flips_noise;
mod flips_record;
pub mod flips_summary;
pub mod groups;
pub mod ledger;
mod markdown;
mod multi;
pub mod multilabel;
mod parallel;
pub mod ragged;
mod recal_compare;
mod recal_files;
mod recal_more;
mod recalibration;
mod record;
mod record_tables;
mod sections;
pub mod selective;
pub mod summary;
mod tasks;

use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::PredictionSet;
use calibscope_io::{Dataset, ParseErrors};
use recalibration::audit_and_recalibration;
use serde_json::{json, Map, Value};

pub use contract::{CONTRACT, CONTRACT_OF_UNVERSIONED};
pub use flips_record::{
    complete_values, flips_section, flips_section_in, flips_settings_of, rank_change,
    ranked_values, scaled_first, sets_to_rank, temperature_json, unranked, ClassReadings,
    FlipsSettings, FlipsTemperature, FLIPS_M_MAX,
};
pub use markdown::{markdown, record_markdown};
pub use multi::{multi_model_json, ranking_metric, sweep_json};
pub use parallel::Sections;
pub use recal_compare::comparison_json;
pub use recal_files::{
    cross_fit_json, evaluation_after, fitted_params_json, odir_search_json, recalibrate_rows,
    recalibrate_rows_with_intervals, recalibrated_csv, Method,
};
pub use recal_more::{comparison_of, comparison_settings, fit_more_methods, COMPARE_REPLICATES};
pub use recalibration::{
    ledger_json, recalibration_json, recalibration_json_of, RecalibrationSettings,
};
pub use record::{
    fuzz_check as record_fuzz_check, options_json, parse_options, record_json_of, reverify, verify,
    Check, Producer, Record, Status, MAX_ROUNDING_ULPS, RECORD_ELEMENT_ID, RECORD_SCHEMA, REPORT_M,
};
pub use record_tables::{record_tables, record_tables_grouped, record_tables_with, report_tables};
pub use sections::binned_metrics_json;

/// The schema name written in every audit.
pub const SCHEMA: &str = "calibscope-audit/1";

/// Where a prediction set came from, as shown in the audit's `file` / `input`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileInfo {
    /// The data file's name (for a NumPy pair, the common stem).
    pub file: String,
    /// The files read, when more than one made the set (NumPy pairs).
    pub files: Vec<String>,
    /// `csv`, `csv-long`, `json`, `npy`, `npz`, `npy-pair`.
    pub format: String,
}

/// The bin counts the fixtures use for a set of `n` samples:
/// `{1, 2, 5, 10, 15, 20, 100, n}` restricted to `m <= n`, plus `2n` when `n <= 300`.
///
/// ```
/// assert_eq!(calibscope_audit::default_m_values(171), vec![1, 2, 5, 10, 15, 20, 100, 171, 342]);
/// assert_eq!(calibscope_audit::default_m_values(1), vec![1, 2]);
/// ```
pub fn default_m_values(n: usize) -> Vec<usize> {
    let mut m: Vec<usize> = [1, 2, 5, 10, 15, 20, 100]
        .into_iter()
        .filter(|&m| m <= n)
        .collect();
    if n >= 1 && !m.contains(&n) {
        m.push(n);
    }
    if (1..=300).contains(&n) {
        m.push(2 * n);
    }
    m
}

/// Options of a full single-model audit.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditOptions {
    /// Bin counts of the ECE-family tables.
    pub m_values: Vec<usize>,
    /// Recalibration settings; `None` skips the section.
    pub recalibration: Option<RecalibrationSettings>,
    /// Include the ROC curve of class 1 for binary sets up to this many samples.
    pub roc_max_n: usize,
}

impl AuditOptions {
    /// The fixtures' defaults for `n` samples: [`default_m_values`], recalibration on
    /// the default split, the ROC curve for n ≤ 300.
    pub fn for_n(n: usize) -> Self {
        AuditOptions {
            m_values: default_m_values(n),
            recalibration: Some(RecalibrationSettings::default()),
            roc_max_n: 300,
        }
    }
}

/// A JSON number, or `null` for an undefined value (never NaN).
pub(crate) fn num(x: Option<f64>) -> Value {
    match x {
        Some(v) if v.is_finite() => json!(v),
        _ => Value::Null,
    }
}

/// The `input` object of a single-model audit.
pub fn input_json(set: &PredictionSet, info: &FileInfo) -> Value {
    json!({
        "format": info.format,
        "kind": set.kind().name(),
        "source": set.source().name(),
        "columns": set.columns(),
        "n": set.n(),
        "k": set.k,
    })
}

/// The full audit of one valid prediction set as `calibscope-audit/1` JSON.
pub fn audit_json(set: &PredictionSet, info: &FileInfo, options: &AuditOptions) -> Value {
    audit_json_in(set, info, options, Sections::Sequential)
}

/// [`audit_json`], its independent sections (the audit of the whole set, the
/// recalibration section, the ledgers within it) run as `sections` says.
pub fn audit_json_in(
    set: &PredictionSet,
    info: &FileInfo,
    options: &AuditOptions,
    sections: Sections,
) -> Value {
    audit_json_with(set, info, options, sections, None)
}

/// [`audit_json_in`], with the values of METRICS.md §8 (binning-free estimators,
/// tests, the bootstrap's intervals and the verdict; [`beyond_binning`]) when
/// `bootstrap` is given.
pub fn audit_json_with(
    set: &PredictionSet,
    info: &FileInfo,
    options: &AuditOptions,
    sections: Sections,
    bootstrap: Option<&BootstrapSettings>,
) -> Value {
    let settings = AuditSettings {
        m_values: options.m_values.clone(),
        roc_curve: set.n() <= options.roc_max_n,
        ..AuditSettings::default()
    };
    let recalibration = options
        .recalibration
        .as_ref()
        .filter(|_| set.kind() != calibscope_core::Kind::TopLabel);
    let (audit, recalibration) = match recalibration {
        Some(recal) => {
            let (audit, section) = audit_and_recalibration(set, &settings, recal, sections);
            (audit, Some(section))
        }
        None => (tasks::SplitAudit::run(set, &settings, sections), None),
    };
    let mut out = Map::new();
    out.insert("schema".into(), json!(SCHEMA));
    out.insert("file".into(), json!(info.file));
    if !info.files.is_empty() {
        out.insert("files".into(), json!(info.files));
    }
    out.insert("input".into(), input_json(set, info));
    out.insert("input_error".into(), json!(false));
    out.insert("m_values".into(), json!(options.m_values));
    sections::insert_all(&mut out, &audit, &options.m_values);
    if let Some(recalibration) = recalibration {
        out.insert("recalibration".into(), recalibration);
    }
    let mut doc = Value::Object(out);
    if let Some(b) = bootstrap {
        beyond_binning::insert_single(&mut doc, set, &options.m_values, b);
    }
    doc
}

/// The `input_error` document of an input that could not be audited:
/// `{"input_error": true, "errors": [{"row", "kind", "column", "message", "line", ...}]}`,
/// `kind` being the contract's input-error kind (`nan_or_inf`, `row_sum`, ...) or the
/// parser's stable code, every error located and explained.
pub fn input_error_json(file: &str, errors: &ParseErrors) -> Value {
    let list: Vec<Value> = errors
        .errors
        .iter()
        .map(|e| {
            let loc = &e.location;
            let mut o = Map::new();
            o.insert("row".into(), json!(loc.row));
            o.insert("kind".into(), json!(e.code.code()));
            o.insert("column".into(), json!(loc.column));
            o.insert("message".into(), json!(e.to_string()));
            for (key, value) in [("line", json!(loc.line)), ("offset", json!(loc.offset))] {
                if !value.is_null() {
                    o.insert(key.into(), value);
                }
            }
            for (key, value) in [("member", &loc.member), ("model", &loc.model)] {
                if let Some(v) = value {
                    o.insert(key.into(), json!(v));
                }
            }
            Value::Object(o)
        })
        .collect();
    let first_file = errors.errors.first().map_or(file, |e| e.file.as_str());
    json!({
        "schema": SCHEMA,
        "file": first_file,
        "input": {"format": errors.dataset.as_ref().map(|d| d.format.name())},
        "input_error": true,
        "errors": list,
        "more_errors": errors.more,
    })
}

/// The audit document of a parsed input: a single-model audit, a multi-model audit
/// (several models on the same samples), or the input-error document.
pub fn audit_document(
    parsed: &Result<Dataset, ParseErrors>,
    name: &str,
    options: &AuditOptions,
) -> Value {
    audit_document_in(parsed, name, options, Sections::Sequential)
}

/// [`audit_document`], a single model's independent sections (see [`audit_json_in`])
/// or several models' audits run as `sections` says.
pub fn audit_document_in(
    parsed: &Result<Dataset, ParseErrors>,
    name: &str,
    options: &AuditOptions,
    sections: Sections,
) -> Value {
    audit_document_with(parsed, name, options, sections, None)
}

/// [`audit_document_in`], with the values of METRICS.md §8 ([`beyond_binning`]) for
/// every model when `bootstrap` is given (an input-error document has none).
pub fn audit_document_with(
    parsed: &Result<Dataset, ParseErrors>,
    name: &str,
    options: &AuditOptions,
    sections: Sections,
    bootstrap: Option<&BootstrapSettings>,
) -> Value {
    audit_document_grouped(parsed, name, options, sections, bootstrap, None)
}

/// [`audit_document_with`], with `groups` and `worst_group` ([`groups`]) when the
/// data set is grouped, computed with `group_settings` (default: the
/// [`calibscope_core::groups::GroupSettings`] defaults at the first bin count). A
/// data set without groups gives [`audit_document_with`]'s document unchanged.
pub fn audit_document_grouped(
    parsed: &Result<Dataset, ParseErrors>,
    name: &str,
    options: &AuditOptions,
    sections: Sections,
    bootstrap: Option<&BootstrapSettings>,
    group_settings: Option<&calibscope_core::groups::GroupSettings>,
) -> Value {
    let mut doc = audit_document_ungrouped(parsed, name, options, sections, bootstrap);
    if let (Ok(dataset), Some(groups)) =
        (parsed, parsed.as_ref().ok().and_then(|d| d.groups.as_ref()))
    {
        let settings =
            group_settings
                .copied()
                .unwrap_or_else(|| calibscope_core::groups::GroupSettings {
                    m: options.m_values.first().copied().unwrap_or(15),
                    ..Default::default()
                });
        let info = FileInfo {
            file: doc["file"].as_str().unwrap_or(name).to_string(),
            files: if dataset.files.len() > 1 && dataset.models.len() == 1 {
                dataset.files.clone()
            } else {
                Vec::new()
            },
            format: dataset.format.name().to_string(),
        };
        let per_model = |set: &PredictionSet| {
            groups::groups_json(set, groups, &info, options, sections, bootstrap, &settings)
        };
        let o = doc.as_object_mut().expect("an audit document is an object");
        if dataset.models.len() == 1 {
            let (section, worst) = per_model(&dataset.models[0].1);
            o.insert("groups".into(), section);
            o.insert("worst_group".into(), worst);
        } else {
            // every model's groups in its entry; the grouping and settings once
            for (model, set) in &dataset.models {
                let (section, worst) = per_model(set);
                if let Some(entry) = o
                    .get_mut("models")
                    .and_then(|m| m.get_mut(model.as_str()))
                    .and_then(Value::as_object_mut)
                {
                    entry.insert("groups".into(), section);
                    entry.insert("worst_group".into(), worst);
                }
            }
            o.insert(
                "groups".into(),
                json!({"columns": groups.columns, "settings": groups::settings_json(&settings)}),
            );
        }
    }
    if let Ok(d) = parsed {
        let single = match d.models.as_slice() {
            [(_, set)] => Some(set),
            _ => None,
        };
        mark_detection(&mut doc, &d.detection, single);
    }
    doc
}

/// Adds to an audit document what the reading of its file found: a ragged log's
/// missing classwise readings ([`ragged::mark`]), a multilabel table's labels
/// ([`multilabel::mark`]), and, for the single model `single` (the audit's set),
/// a verbalised table's coverage ([`selective::insert`]).
pub fn mark_detection(
    doc: &mut Value,
    detection: &calibscope_io::Detection,
    single: Option<&PredictionSet>,
) {
    if let Some(r) = &detection.ragged {
        ragged::mark(doc, r);
    }
    if let Some(m) = &detection.multilabel {
        multilabel::mark(doc, m);
    }
    if let (Some(sel), Some(set)) = (&detection.selective, single) {
        selective::insert(doc, set, sel);
    }
}

fn audit_document_ungrouped(
    parsed: &Result<Dataset, ParseErrors>,
    name: &str,
    options: &AuditOptions,
    sections: Sections,
    bootstrap: Option<&BootstrapSettings>,
) -> Value {
    let dataset = match parsed {
        Ok(d) => d,
        Err(errors) => return input_error_json(name, errors),
    };
    let file = match dataset.files.as_slice() {
        [one] => one.clone(),
        _ => dataset.name.clone(),
    };
    // a ragged log's class positions are different answers: temperature scaling only
    let ragged_options;
    let options = match (&options.recalibration, &dataset.detection.ragged) {
        (Some(r), Some(_)) => {
            ragged_options = AuditOptions {
                recalibration: Some(RecalibrationSettings {
                    class_positions_differ: true,
                    ..r.clone()
                }),
                ..options.clone()
            };
            &ragged_options
        }
        _ => options,
    };
    if dataset.models.len() == 1 {
        let info = FileInfo {
            file,
            files: if dataset.files.len() > 1 {
                dataset.files.clone()
            } else {
                Vec::new()
            },
            format: dataset.format.name().to_string(),
        };
        audit_json_with(&dataset.models[0].1, &info, options, sections, bootstrap)
    } else {
        let mut doc = multi::multi_model_json_in(
            &dataset.models,
            dataset.format.name(),
            &file,
            &options.m_values,
            sections,
        );
        if let Some(b) = bootstrap {
            beyond_binning::insert_multi(&mut doc, &dataset.models, &options.m_values, b, sections);
        }
        doc
    }
}

/// Keeps `Audit` reachable for callers that want the typed numbers.
pub type TypedAudit = Audit;
