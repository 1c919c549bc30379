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

use crate::{audit_json_with, num, AuditOptions, FileInfo, Sections};
use calibscope_core::binning::Binning;
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::groups::{group_calibration, GroupSettings};
use calibscope_core::reading::{subset, top_labels};
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

/// The Markdown section of a document's groups (none without `groups.values`): a
/// table per group (n, accuracy, ECE at the settings' m and binning, CSR, P_risk),
/// the worst group and the test's p-value, every number the document's.
pub fn markdown_section(out: &mut String, doc: &Value) {
    use crate::summary::fmt;
    use std::fmt::Write;
    let g = &doc["groups"];
    let Some(values) = g["values"].as_array() else {
        return;
    };
    let s = &g["settings"];
    let columns: Vec<&str> = g["columns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let _ = writeln!(
        out,
        "\n## Calibration per group ({}; ECE at {} bins, {})\n",
        columns.join(" × "),
        s["m"],
        s["binning"].as_str().unwrap_or("")
    );
    let _ = writeln!(
        out,
        "| group | n | accuracy | ECE | CSR | P_risk |\n|---|---|---|---|---|---|"
    );
    for v in values {
        let name = v["group"].as_str().unwrap_or("");
        let shown = if name.is_empty() { "(empty)" } else { name };
        let small = if v["too_small"] == Value::Bool(true) {
            format!(" (too small: fewer than {})", s["min_size"])
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| {}{small} | {} | {} | {} | {} | {} |",
            shown.replace('|', "\\|"),
            v["n"],
            fmt(&v["accuracy"]),
            fmt(&v["ece"]),
            fmt(&v["csr"]),
            fmt(&v["p_risk"])
        );
    }
    let worst = &doc["worst_group"];
    let test = &g["test"];
    out.push('\n');
    if let Some(name) = worst["group"].as_str() {
        let _ = writeln!(
            out,
            "Worst group: **{}** (ECE {}, n = {}).",
            if name.is_empty() { "(empty)" } else { name },
            fmt(&worst["ece"]),
            worst["n"]
        );
    }
    match test["p_value"].as_f64() {
        Some(_) => {
            let _ = writeln!(
                out,
                "Spread of the groups' ECE: {}; permutation test p = {} ({} permutations, seed {}).",
                fmt(&test["spread"]),
                fmt(&test["p_value"]),
                test["permutations"],
                s["seed"]
            );
        }
        None => {
            let _ = writeln!(
                out,
                "No test of the groups: {}.",
                test["note"].as_str().unwrap_or("")
            );
        }
    }
}
