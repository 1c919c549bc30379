//! An aggregate (`calibscope-bins/1`, issue 31) opened in the worker: the summary
//! and one audit document per model, filled with the values the aggregate gives
//! (calibscope-bins' [`metrics::audit`], the CLI's `calibscope audit AGGREGATE`),
//! and the reliability explorer's tables from the cells placed whole in the bins.
//!
//! Each audit document carries an `aggregate` object: `values` maps every value's
//! path (`binning_free.auc_per_class.0`, as the page's `data-metric`) to `null`
//! (exact) or its bound (the value is within it of the audit of the rows), and
//! `unavailable` lists what an aggregate cannot give, with the reason. A table the
//! explorer asks for carries `bound.ece` in its metrics when it is bounded (then it
//! holds the ECE only).

use std::collections::BTreeMap;

use calibscope_audit::{binned_metrics_json, default_m_values};
use calibscope_bins::metrics::{self, GridReading, UNAVAILABLE};
use calibscope_bins::table::{is_aggregate, kind_name, parse};
use calibscope_bins::{ModelAggregate, ReadingKey, FORMAT, GRID};
use calibscope_core::beyond::RiskAccumulator;
use calibscope_core::binning::Binning;
use calibscope_core::reliability::DEFAULT_ALPHA;
use calibscope_core::{Kind, Source};
use serde_json::{json, Map, Value};

use crate::proto::{Reading, Summary};
use crate::{Session, TableAnswer, M_SLIDER_MAX};

/// The overview's bin count for an aggregate: 16 divides the grid, so every
/// equal-width value of the overview is exact.
pub const M_OVERVIEW_AGGREGATE: usize = 16;

/// The metric key of a bounded table's ECE bound (in [`FromWorker::Computed`]'s
/// `metrics`).
pub const BOUND_KEY: &str = "bound.ece";

/// Why an aggregate has no verdict and no bootstrap intervals (the second stage).
pub const NO_VERDICT: &str = "The verdict and the bootstrap intervals are not available for an aggregate: the calibration test orders the individual predictions and the bootstrap resamples them, and an aggregate keeps only sums over 65,536 cells of the forecast.";

/// Why an aggregate has no smooth or cumulative diagrams.
pub const NO_DIAGRAMS: &str = "The smooth and cumulative diagrams are not available for an aggregate: they follow the individual predictions, and an aggregate keeps only sums over 65,536 cells of the forecast.";

/// Whether equal-width tables at `m` bins are exact whatever the data (`m`
/// divides the grid).
pub fn divides(m: usize) -> bool {
    metrics::divides_grid(m)
}

/// Whether the first bytes of a file hold an aggregate (JSON or the engine's table).
pub fn looks_like_aggregate(head: &[u8]) -> bool {
    is_aggregate(head)
}

/// The models of an opened aggregate, each reading's cells in order.
pub struct AggregateState {
    models: Vec<ModelAggregate>,
    grids: Vec<BTreeMap<ReadingKey, GridReading>>,
}

/// Sets `value` at the dotted `path` of `doc` (`name[i]` segments are arrays).
fn set_path(doc: &mut Value, path: &str, value: Value) {
    let mut at = doc;
    let segments: Vec<&str> = path.split('.').collect();
    for (j, seg) in segments.iter().enumerate() {
        let last = j + 1 == segments.len();
        let (name, index) = match seg.split_once('[') {
            Some((name, rest)) => (name, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (*seg, None),
        };
        if !at.is_object() {
            *at = Value::Object(Map::new());
        }
        let slot = at
            .as_object_mut()
            .expect("made an object")
            .entry(name)
            .or_insert(Value::Null);
        at = match index {
            None => slot,
            Some(i) => {
                if !slot.is_array() {
                    *slot = Value::Array(Vec::new());
                }
                let a = slot.as_array_mut().expect("made an array");
                if a.len() <= i {
                    a.resize(i + 1, Value::Null);
                }
                &mut a[i]
            }
        };
        if last {
            *at = value.clone();
        }
    }
}

/// The page's `data-metric` form of a value's path (`a[0].b` → `a.0.b`).
pub fn metric_path(path: &str) -> String {
    path.replace('[', ".").replace(']', "")
}

/// The audit document of one model's aggregate at `m_values`.
fn audit_document(m: &ModelAggregate, file: &str, m_values: &[usize]) -> Value {
    let a = metrics::audit(m, m_values, M_OVERVIEW_AGGREGATE, DEFAULT_ALPHA);
    let mut doc = json!({
        "input": {"file": file, "format": FORMAT, "n": m.n(), "k": m.k, "kind": kind_name(m.kind)},
        "m_values": m_values,
    });
    let mut marks = Map::new();
    for v in a.values() {
        if v.path == "input.n" || v.path == "input.k" {
            continue;
        }
        set_path(&mut doc, &v.path, json!(v.value));
        marks.insert(metric_path(&v.path), json!(v.bound));
    }
    for (binning, rows) in a.reliability() {
        let key = format!(
            "reliability.confidence.{}_{M_OVERVIEW_AGGREGATE}",
            binning.name()
        );
        set_path(
            &mut doc,
            &key,
            serde_json::to_value(rows).expect("rows serialise"),
        );
    }
    doc["aggregate"] = json!({
        "format": FORMAT,
        "grid": GRID,
        "values": marks,
        "unavailable": UNAVAILABLE.iter().map(|(w, r)| json!({"what": w, "reason": r})).collect::<Vec<_>>(),
    });
    doc
}

impl Session {
    /// The session of an aggregate file `file` (its bytes): errors name the file and
    /// what is wrong.
    pub fn from_aggregate(file: &str, bytes: &[u8]) -> Result<Session, String> {
        let agg = parse(bytes).map_err(|e| format!("{file}: {e}"))?;
        let models: Vec<ModelAggregate> = agg.models.into_values().collect();
        let first = models
            .first()
            .ok_or_else(|| format!("{file}: the aggregate holds no model"))?;
        let n = first.n() as usize;
        let m_max = n.clamp(1, M_SLIDER_MAX);
        let m_overview = M_OVERVIEW_AGGREGATE.min(n).max(1);
        let mut m_values: Vec<usize> = default_m_values(n)
            .into_iter()
            .filter(|&m| m <= m_max)
            .collect();
        if !m_values.contains(&m_overview) {
            m_values.push(m_overview);
            m_values.sort_unstable();
        }
        let audits: Vec<Value> = models
            .iter()
            .map(|m| audit_document(m, file, &m_values))
            .collect();
        let grids = models
            .iter()
            .map(|m| {
                m.readings
                    .iter()
                    .map(|(k, cells)| (*k, GridReading::new(cells)))
                    .collect()
            })
            .collect();
        let name = file
            .rsplit_once('.')
            .map_or(file, |(stem, _)| stem)
            .to_string();
        let summary = Summary {
            name,
            files: vec![file.to_string()],
            format: FORMAT.to_string(),
            kind: first.kind,
            source: match first.kind {
                Kind::TopLabel => Source::TopLabel,
                _ => Source::Probs,
            },
            n,
            k: first.k,
            models: models.iter().map(|m| m.model.clone()).collect(),
            class_names: (0..first.k).map(|r| r.to_string()).collect(),
            m_overview,
            m_max,
            m_values,
            ..Summary::default()
        };
        let mut session = Session::new(calibscope_io::Dataset {
            name: summary.name.clone(),
            files: summary.files.clone(),
            format: calibscope_io::Format::Csv,
            models: Vec::new(),
            ids: None,
            class_names: summary.class_names.clone(),
            detection: Default::default(),
            groups: None,
        });
        session.summary = summary;
        let _ = session.audits.set(audits);
        session.aggregate = Some(Box::new(AggregateState { models, grids }));
        Ok(session)
    }
}

impl AggregateState {
    /// The answer to a [`crate::proto::ToWorker::Compute`] from the cells: the table and
    /// ECE family when exact, else the placed bins' table and the ECE with
    /// [`BOUND_KEY`].
    pub fn table(
        &self,
        model: usize,
        reading: Reading,
        binning: Binning,
        m: usize,
    ) -> Result<TableAnswer, String> {
        let Some(md) = self.models.get(model) else {
            return Err(format!("no model {model}"));
        };
        let n = md.n() as usize;
        if m == 0 || m > M_SLIDER_MAX.max(2 * n) {
            return Err(format!("bin count {m} is outside 1..{M_SLIDER_MAX}"));
        }
        let key = match reading {
            Reading::Confidence => ReadingKey::Confidence,
            Reading::Positive if md.kind == Kind::Binary => ReadingKey::Class(1),
            Reading::Positive => return Err("the positive-class reading needs binary data".into()),
            Reading::Class(r) => ReadingKey::Class(r as u32),
        };
        let Some(grid) = self.grids[model].get(&key) else {
            return Err(format!(
                "the aggregate has no {} reading for model '{}'",
                reading.name(),
                md.model
            ));
        };
        let (rows, t, bound) = grid.table(binning, m, DEFAULT_ALPHA);
        let metrics = match bound {
            None => {
                let accuracy = RiskAccumulator::from_sums(&md.globals.risk).finish().acc;
                let corrected = (key == ReadingKey::Confidence).then(|| {
                    calibscope_core::truthful::confce_corrected(
                        t.lince,
                        grid.n() as usize,
                        accuracy,
                    )
                });
                binned_metrics_json(&t, grid.brier(), corrected)
                    .into_iter()
                    .map(|(k, v)| (k, v.as_f64()))
                    .collect()
            }
            Some(b) => {
                BTreeMap::from([("ece".to_string(), t.ece), (BOUND_KEY.to_string(), Some(b))])
            }
        };
        Ok((rows, metrics, t.nonempty_bins))
    }
}

#[cfg(test)]
#[path = "aggregate_tests.rs"]
mod tests;
