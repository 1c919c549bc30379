//! The tables of a record beyond its audit documents (`tables`): what the reports
//! draw (the reliability tables at [`REPORT_M`] bins, the binning-free diagrams'
//! data, each group's reliability rows) and the ranking-flips section.

use crate::record::REPORT_M;
use calibscope_core::binning::{Binning, SortedReading};
use calibscope_core::reading;
use calibscope_core::reliability::{reliability_table, DEFAULT_ALPHA};
use calibscope_core::PredictionSet;
use calibscope_io::Dataset;
use serde_json::{json, Map, Value};

/// The tables of a record beyond the audit document: the [`report_tables`] and, for
/// two or more models with `flips` settings, the ranking-flips section
/// ([`crate::flips_section`]) under `flips`. The CLI's `audit --record`, the app's
/// records and [`reverify`] all make their tables here.
pub fn record_tables(
    dataset: &Dataset,
    flips: Option<&crate::FlipsSettings>,
) -> Result<Map<String, Value>, String> {
    record_tables_with(dataset, flips, None)
}

/// [`record_tables`] with the tables of METRICS.md §8 when `bootstrap` (the audit
/// document's bootstrap settings) is given: the binning-free diagrams' data
/// (`binning_free`, [`crate::beyond_binning::diagram_tables`]; per model under
/// `models.<name>`) and the flips section's noise
/// ([`crate::flips_noise::flips_section_with_noise`]).
pub fn record_tables_with(
    dataset: &Dataset,
    flips: Option<&crate::FlipsSettings>,
    bootstrap: Option<&calibscope_core::bootstrap::BootstrapSettings>,
) -> Result<Map<String, Value>, String> {
    record_tables_grouped(dataset, flips, bootstrap, None)
}

/// [`record_tables_with`] with, for a grouped data set and the audit document's
/// group settings (`groups`), each group's reliability rows at those settings
/// ([`crate::groups::reliability_tables`]) under `groups` (per model under
/// `models.<name>`): the report's per-group diagrams.
pub fn record_tables_grouped(
    dataset: &Dataset,
    flips: Option<&crate::FlipsSettings>,
    bootstrap: Option<&calibscope_core::bootstrap::BootstrapSettings>,
    groups: Option<&calibscope_core::groups::GroupSettings>,
) -> Result<Map<String, Value>, String> {
    let models = dataset.models.as_slice();
    let mut out = report_tables(models, REPORT_M);
    if bootstrap.is_some() {
        insert_per_model(&mut out, models, "binning_free", |set| {
            crate::beyond_binning::diagram_tables(set)
        });
    }
    if let (Some(settings), Some(grouping)) = (groups, dataset.groups.as_ref()) {
        insert_per_model(&mut out, models, "groups", |set| {
            crate::groups::reliability_tables(set, grouping, settings)
        });
    }
    let positions_differ = dataset
        .detection
        .ragged
        .as_ref()
        .map(|r| r.why_positions_differ());
    if let (Some(settings), true) = (flips, models.len() >= 2) {
        out.insert(
            "flips".into(),
            crate::flips_noise::flips_section_with_noise(
                models,
                settings,
                bootstrap,
                positions_differ.as_deref(),
            )?,
        );
    }
    Ok(out)
}

/// Inserts `make(set)` under `key`: at the top of `tables` for one model, in each
/// model's entry (`models.<name>`, made by [`report_tables`]) for several.
fn insert_per_model(
    tables: &mut Map<String, Value>,
    models: &[(String, PredictionSet)],
    key: &str,
    make: impl Fn(&PredictionSet) -> Value,
) {
    match models {
        [(_, set)] => {
            tables.insert(key.into(), make(set));
        }
        many => {
            if let Some(Value::Object(per)) = tables.get_mut("models") {
                for (name, set) in many {
                    if let Some(Value::Object(model)) = per.get_mut(name) {
                        model.insert(key.into(), make(set));
                    }
                }
            }
        }
    }
}

/// Removes the recomputed group tables (`groups`, per model `models.<name>.groups`)
/// that the recorded tables do not have; whether any was removed.
pub(crate) fn strip_unrecorded_group_tables(
    recorded: &Map<String, Value>,
    recomputed: &mut Map<String, Value>,
) -> bool {
    let mut removed = false;
    if !recorded.contains_key("groups") {
        removed |= recomputed.remove("groups").is_some();
    }
    if let Some(Value::Object(models)) = recomputed.get_mut("models") {
        for (name, model) in models.iter_mut() {
            let has = recorded
                .get("models")
                .and_then(|m| m.get(name))
                .is_some_and(|m| m.get("groups").is_some());
            if let (false, Some(model)) = (has, model.as_object_mut()) {
                removed |= model.remove("groups").is_some();
            }
        }
    }
    removed
}

/// The tables a report draws beyond the audit document: the reliability table of
/// the confidence reading at `m` bins, equal-width and equal-mass, under the app's
/// `data-metric` paths (`reliability.confidence.width_15`; `models.<name>.` first
/// when there are several models).
pub fn report_tables(models: &[(String, PredictionSet)], m: usize) -> Map<String, Value> {
    let one = |set: &PredictionSet| {
        let sorted = SortedReading::new(&reading::top_labels(set).pairs());
        let mut conf = Map::new();
        for binning in [Binning::Width, Binning::Mass] {
            conf.insert(
                format!("{}_{m}", binning.name()),
                sorted_rows(&sorted, binning, m),
            );
        }
        json!({"confidence": conf})
    };
    let mut out = Map::new();
    match models {
        [(_, set)] => {
            out.insert("reliability".into(), one(set));
        }
        many => {
            let per: Map<String, Value> = many
                .iter()
                .map(|(name, set)| (name.clone(), json!({"reliability": one(set)})))
                .collect();
            out.insert("models".into(), Value::Object(per));
        }
    }
    out
}

/// The reliability rows (JSON) of sorted confidences at `m` bins of `binning`, with
/// 95% Clopper–Pearson intervals.
fn sorted_rows(sorted: &SortedReading, binning: Binning, m: usize) -> Value {
    let rows = reliability_table(sorted, binning, m, DEFAULT_ALPHA);
    crate::sections::reliability_rows(binning, &rows)
}

/// The reliability rows (JSON) of a set's confidence reading at `m` bins of
/// `binning`, as [`report_tables`] writes them.
pub(crate) fn confidence_rows(set: &PredictionSet, binning: Binning, m: usize) -> Value {
    sorted_rows(
        &SortedReading::new(&reading::top_labels(set).pairs()),
        binning,
        m,
    )
}
