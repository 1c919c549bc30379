//! Calibration per group (issue 32) in the audit document: `groups` and
//! `worst_group`, added to a single model's `calibscope-audit/1` document when its
//! data set is grouped ([`calibscope_io::Groups`], the mapping's grouping columns).
//!
//! ```json
//! "groups": {
//!   "columns": ["site"],
//!   "settings": {"binning": "width", "m": 15, "min_size": 30, "permutations": 1000, "seed": 0},
//!   "values": [{"group": "a", "values": ["a"], "n": 120, "too_small": false,
//!               "accuracy": .., "ece": .., "csr": .., "p_risk": .., "audit": {..}}, ..],
//!   "test": {"statistic": "spread", "spread": .., "p_value": .., "permutations": 1000,
//!            "exceed": 3, "eligible_groups": 2, "note": ".."}
//! },
//! "worst_group": {"group": "b", "values": ["b"], "n": 80, "ece": .., "binning": "width", "m": 15}
//! ```
//!
//! Each group's `audit` is the full audit document of its rows alone (the same
//! options, recalibration and bootstrap settings; `file` is the grouped file's), so
//! it equals auditing a file holding only those rows. `ece` is the confidence
//! reading's ECE at the settings' m and binning, `accuracy`, `csr` and `p_risk` are
//! the group audit's (`beyond_ece`). The worst group, the spread and the
//! permutation test are [`calibscope_core::groups`]' (formula, null and the
//! too-small / single-group / empty cases in its docs). Groups smaller than
//! `min_size` are listed with `too_small: true` and take no part in `worst_group` or
//! the test.

use crate::summary::{lookup, Cell, Line, Table};
use crate::{audit_json_with, num, AuditOptions, FileInfo, Sections};
use calibscope_core::binning::Binning;
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::groups::{group_calibration, GroupSettings};
use calibscope_core::reading::{subset, top_labels};
use calibscope_core::verdict::VerdictKind;
use calibscope_core::PredictionSet;
use calibscope_io::{Groups, Options};
use serde_json::{json, Value};

/// The settings as JSON (`groups.settings`).
pub(crate) fn settings_json(s: &GroupSettings) -> Value {
    json!({
        "binning": s.binning.name(),
        "m": s.m,
        "min_size": s.min_size,
        "permutations": s.permutations,
        "seed": s.seed,
    })
}

/// The group settings recorded in an audit document (`groups.settings`), or `None`
/// when it has no groups; `Err` names the field that is wrong.
pub fn group_settings_of(doc: &Value) -> Result<Option<GroupSettings>, String> {
    let s = match doc.get("groups") {
        None | Some(Value::Null) => return Ok(None),
        Some(g) => &g["settings"],
    };
    let int = |key: &str| -> Result<u64, String> {
        s[key]
            .as_u64()
            .ok_or_else(|| format!("groups.settings.{key} must be a whole number"))
    };
    let binning = s["binning"]
        .as_str()
        .and_then(Binning::from_name)
        .ok_or("groups.settings.binning must be \"width\" or \"mass\"")?;
    Ok(Some(GroupSettings {
        binning,
        m: int("m")? as usize,
        min_size: int("min_size")? as usize,
        permutations: int("permutations")? as usize,
        seed: int("seed")?,
        threads: calibscope_core::bootstrap::default_threads(),
    }))
}

/// The grouping columns of an audit document (`groups.columns`; empty without
/// groups): what a record's data must be read with to recompute it.
pub fn group_columns_of(doc: &Value) -> Vec<String> {
    doc["groups"]["columns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c.as_str().map(str::to_string))
        .collect()
}

/// The parser options to recompute a record: its column mapping and the grouping
/// columns of its first audit (`verify`, the app's "Verify a record").
pub fn record_parse_options(
    record: &Value,
    mapping: &calibscope_io::MappingRequest,
) -> Result<Options, String> {
    let mut options = crate::parse_options(mapping)?;
    options.mapping.groups = group_columns_of(&record["audits"][0]);
    Ok(options)
}

/// `groups` and `worst_group` of `set` grouped by `groups` (see the module docs).
pub fn groups_json(
    set: &PredictionSet,
    groups: &Groups,
    info: &FileInfo,
    options: &AuditOptions,
    sections: Sections,
    bootstrap: Option<&BootstrapSettings>,
    settings: &GroupSettings,
) -> (Value, Value) {
    let top = top_labels(set);
    let calibration = group_calibration(&top.pairs(), &groups.codes, groups.len(), settings);
    let rows = groups.rows();
    let mut values = Vec::with_capacity(groups.len());
    for (g, rows) in rows.iter().enumerate() {
        let audit = audit_json_with(&subset(set, rows), info, options, sections, bootstrap);
        values.push(json!({
            "group": groups.names[g],
            "values": groups.values[g],
            "n": rows.len(),
            "too_small": !calibration.eligible[g],
            "accuracy": audit["beyond_ece"]["acc"],
            "ece": num(calibration.ece[g]),
            "csr": audit["beyond_ece"]["csr"],
            "p_risk": audit["beyond_ece"]["p_risk"],
            "audit": audit,
        }));
    }
    let eligible = calibration.eligible.iter().filter(|&&e| e).count();
    let note = match (eligible, calibration.p_value) {
        (0, _) => format!(
            "no group has {} samples or more: no group is large enough for a statement",
            settings.min_size
        ),
        (1, _) => "only one group is large enough: there is nothing to compare it with".to_string(),
        (_, None) => "no permutations were asked for".to_string(),
        (_, Some(_)) => format!(
            "spread = largest minus smallest ECE ({} bins, {}) of the groups of {} samples or more; p = (1 + permutations whose spread reached it) / (1 + permutations), the groups' samples reassigned at random with their sizes kept",
            settings.m,
            settings.binning.name(),
            settings.min_size
        ),
    };
    let section = json!({
        "columns": groups.columns,
        "settings": settings_json(settings),
        "values": values,
        "test": {
            "statistic": "spread",
            "spread": num(calibration.spread),
            "p_value": num(calibration.p_value),
            "permutations": calibration.permutations,
            "exceed": calibration.exceed,
            "eligible_groups": eligible,
            "note": note,
        },
    });
    let worst = match calibration.worst {
        Some(g) => json!({
            "group": groups.names[g],
            "values": groups.values[g],
            "n": calibration.n[g],
            "ece": num(calibration.ece[g]),
            "binning": settings.binning.name(),
            "m": settings.m,
        }),
        None => Value::Null,
    };
    (section, worst)
}

/// The segments of `path` (dotted) under `prefix`.
pub fn under(prefix: &[&str], path: &str) -> Vec<String> {
    prefix
        .iter()
        .map(|s| s.to_string())
        .chain(path.split('.').map(String::from))
        .collect()
}

/// A group's name as shown: `(empty)` for the empty value, and a too-small group
/// marked as such.
fn shown_name(group: &Value, settings: &Value) -> String {
    let name = group["group"].as_str().unwrap_or("");
    let name = if name.is_empty() { "(empty)" } else { name };
    if group["too_small"] == Value::Bool(true) {
        format!("{name} (too small: fewer than {})", settings["min_size"])
    } else {
        name.to_string()
    }
}

/// The per-group table of a document's groups (under `prefix`: `["models", name]`
/// for one model of several; `None` without `groups.values`): per group n, accuracy,
/// ECE at the settings' m and binning, smooth ECE (when the groups' audits hold the
/// binning-free values), CSR, P_risk and, when they hold verdicts, each verdict in
/// words. Too-small groups are listed, marked (row
/// class `too-small`). The Markdown summary, the HTML report and the CSV exports
/// all print it.
pub fn table(doc: &Value, prefix: &[&str]) -> Option<Table> {
    let g = lookup(doc, &under(prefix, "groups"));
    let values = g["values"].as_array()?;
    let s = &g["settings"];
    let kind = |v: &Value| {
        v["audit"]["verdict"]["kind"]
            .as_str()
            .and_then(VerdictKind::from_name)
    };
    let verdicts = values.iter().any(|v| kind(v).is_some());
    // smooth ECE, when the groups' audits hold the binning-free values
    let smooth = values
        .iter()
        .any(|v| v["audit"]["binning_free"]["smece"].is_number());
    let lines = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let num = |key: &str| vec![Cell::num_in(prefix, &format!("groups.values.{i}.{key}"))];
            let mut columns = vec![num("n"), num("accuracy"), num("ece")];
            if smooth {
                columns.push(num("audit.binning_free.smece"));
            }
            columns.extend([num("csr"), num("p_risk")]);
            if verdicts {
                columns.push(vec![Cell::text(kind(v).map_or("undefined", |k| k.words()))]);
            }
            Line {
                label: shown_name(v, s),
                columns,
                class: if v["too_small"] == Value::Bool(true) {
                    "too-small"
                } else {
                    ""
                },
            }
        })
        .collect();
    let (m, binning) = (&s["m"], s["binning"].as_str().unwrap_or(""));
    let mut headers: Vec<String> = ["group", "n", "accuracy"]
        .into_iter()
        .map(String::from)
        .collect();
    headers.push(format!("ECE ({binning}, {m})"));
    if smooth {
        headers.push("smooth ECE".into());
    }
    headers.extend(["CSR".into(), "P_risk".into()]);
    if verdicts {
        headers.push("verdict".into());
    }
    let columns: Vec<&str> = g["columns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    Some(Table {
        title: format!(
            "Calibration per group ({}; ECE at {m} bins, {binning})",
            columns.join(" × ")
        ),
        headers,
        lines,
    })
}

/// The sentences under the per-group table (under `prefix`, as [`table`]): the
/// worst-calibrated group, then the test of "the groups differ more than chance",
/// or why there is none; each a list of cells whose numbers are the document's.
pub fn statements(doc: &Value, prefix: &[&str]) -> Vec<Vec<Cell>> {
    let g = lookup(doc, &under(prefix, "groups"));
    if g["values"].as_array().is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let worst = lookup(doc, &under(prefix, "worst_group"));
    if let Some(name) = worst["group"].as_str() {
        out.push(vec![
            Cell::text(&format!(
                "Worst-calibrated group: {} (ECE ",
                if name.is_empty() { "(empty)" } else { name }
            )),
            Cell::num_in(prefix, "worst_group.ece"),
            Cell::text(", n = "),
            Cell::num_in(prefix, "worst_group.n"),
            Cell::text(")."),
        ]);
    }
    let test = &g["test"];
    if test["p_value"].is_number() {
        out.push(vec![
            Cell::text("Spread of the groups' ECE (largest minus smallest): "),
            Cell::num_in(prefix, "groups.test.spread"),
            Cell::text("; permutation test of \"the groups differ more than chance\": p = "),
            Cell::num_in(prefix, "groups.test.p_value"),
            Cell::text(" ("),
            Cell::num_in(prefix, "groups.test.permutations"),
            Cell::text(" permutations, seed "),
            Cell::num_in(prefix, "groups.settings.seed"),
            Cell::text(")."),
        ]);
    } else {
        out.push(vec![Cell::text(&format!(
            "No test of the groups: {}.",
            test["note"].as_str().unwrap_or("")
        ))]);
    }
    out
}

/// The reliability rows of each group's confidence reading at the settings' m and
/// binning, in `groups.values` order, under the record's tables
/// (`tables.groups.values.<i>.reliability.confidence.<binning>_<m>`; per model
/// under `tables.models.<name>.groups`): the HTML report's small multiples.
pub fn reliability_tables(set: &PredictionSet, groups: &Groups, settings: &GroupSettings) -> Value {
    let values: Vec<Value> = groups
        .rows()
        .iter()
        .map(|rows| {
            let rows = crate::record_tables::confidence_rows(
                &subset(set, rows),
                settings.binning,
                settings.m,
            );
            let key = format!("{}_{}", settings.binning.name(), settings.m);
            json!({"reliability": {"confidence": {key: rows}}})
        })
        .collect();
    json!({ "values": values })
}
