//! Multi-model audits: per-model binning-free metrics and ranking metrics, and the
//! ranking-flips section (METRICS.md §4.1).

use crate::{num, Sections};
use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::binning::Binning;
use calibscope_core::rank::{ranking_sweep, spearman};
use calibscope_core::sweep::SweepMetric;
use calibscope_core::PredictionSet;
use serde_json::{json, Map, Value};

/// Binning-free metrics compared with the classification error across models.
const BINNING_FREE_RANKED: [&str; 6] = [
    "nll",
    "brier_multiclass",
    "brier_over_k",
    "l_conf",
    "csr",
    "cwa",
];

/// One ranking metric of an audit at `(binning, m)`; `None` where undefined (e.g.
/// the classwise metrics of a top-label set).
pub fn ranking_metric(
    audit: &Audit,
    metric: SweepMetric,
    binning: Binning,
    m: usize,
) -> Option<f64> {
    let conf = audit.confidence.at(binning, m)?;
    match metric {
        SweepMetric::ConfEce => conf.ece,
        SweepMetric::ConfCe => conf.lince,
        SweepMetric::ConfCeCorr => audit.confce_corr(binning, m),
        SweepMetric::RmsceConf => conf.rmsce,
        SweepMetric::LinceCw => audit.classwise(binning, m)?.lince_cw,
        SweepMetric::CwEce => audit.classwise(binning, m)?.cwece,
    }
}

fn binning_free(audit: &Audit) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("accuracy".into(), num(audit.accuracy));
    o.insert("error".into(), num(audit.accuracy.map(|a| 1.0 - a)));
    o.insert("nll".into(), num(audit.nll));
    o.insert("brier_multiclass".into(), num(audit.brier_multiclass));
    o.insert(
        "brier_over_k".into(),
        num(audit.brier_multiclass.map(|b| b / audit.k as f64)),
    );
    o.insert("l_conf".into(), num(audit.l_conf));
    o.insert("auc_macro".into(), num(audit.auc_macro()));
    o.insert("csr".into(), num(audit.risk.csr));
    o.insert("p_risk".into(), num(audit.risk.p_risk));
    o.insert("cwa".into(), num(audit.risk.cwa));
    o
}

/// The multi-model audit: `input.models`, `models.<name>` and `ranking`, for models
/// evaluated on the same samples (the caller checks that the labels agree).
pub fn multi_model_json(
    models: &[(String, PredictionSet)],
    format: &str,
    file: &str,
    m_values: &[usize],
) -> Value {
    multi_model_json_in(models, format, file, m_values, Sections::Sequential)
}

/// [`multi_model_json`], the models audited as `sections` says (two at a time on
/// threads, or one after the other).
pub(crate) fn multi_model_json_in(
    models: &[(String, PredictionSet)],
    format: &str,
    file: &str,
    m_values: &[usize],
    sections: Sections,
) -> Value {
    let settings = AuditSettings {
        m_values: m_values.to_vec(),
        ..AuditSettings::default()
    };
    let audits: Vec<Audit> = sections.map(models, |(_, s)| Audit::compute(s, &settings));
    let names: Vec<&str> = models.iter().map(|(n, _)| n.as_str()).collect();
    let first = &models[0].1;
    let mut per_model = Map::new();
    let mut free: Vec<Map<String, Value>> = Vec::new();
    for (audit, (name, _)) in audits.iter().zip(models) {
        let bf = binning_free(audit);
        let mut metrics = Map::new();
        for metric in SweepMetric::ALL {
            let mut by_binning = Map::new();
            for binning in Binning::ALL {
                let per_m: Map<String, Value> = m_values
                    .iter()
                    .map(|&m| {
                        (
                            m.to_string(),
                            num(ranking_metric(audit, metric, binning, m)),
                        )
                    })
                    .collect();
                by_binning.insert(binning.name().into(), Value::Object(per_m));
            }
            metrics.insert(metric.name().into(), Value::Object(by_binning));
        }
        per_model.insert(
            name.clone(),
            json!({"binning_free": bf.clone(), "metrics": metrics}),
        );
        free.push(bf);
    }
    let error: Vec<f64> = audits
        .iter()
        .map(|a| 1.0 - a.accuracy.unwrap_or(f64::NAN))
        .collect();
    let mut ranking_metrics = Map::new();
    for metric in SweepMetric::ALL {
        let mut by_binning = Map::new();
        for binning in Binning::ALL {
            let values: Option<Vec<Vec<f64>>> = m_values
                .iter()
                .map(|&m| {
                    audits
                        .iter()
                        .map(|a| ranking_metric(a, metric, binning, m))
                        .collect()
                })
                .collect();
            let Some(values) = values else {
                by_binning.insert(binning.name().into(), Value::Null);
                continue;
            };
            by_binning.insert(
                binning.name().into(),
                sweep_json(&values, &error, m_values, &names),
            );
        }
        ranking_metrics.insert(metric.name().into(), Value::Object(by_binning));
    }
    let binning_free_spearman: Map<String, Value> = BINNING_FREE_RANKED
        .iter()
        .map(|&key| {
            let values: Option<Vec<f64>> = free
                .iter()
                .map(|f| f.get(key).and_then(Value::as_f64))
                .collect();
            (
                key.to_string(),
                num(values.and_then(|v| spearman(&v, &error))),
            )
        })
        .collect();
    json!({
        "schema": crate::SCHEMA,
        "file": file,
        "input": {
            "format": format, "kind": first.kind().name(), "source": first.source().name(),
            "n": first.n(), "k": first.k, "models": names,
        },
        "input_error": false,
        "m_values": m_values,
        "models": per_model,
        "ranking": {
            "error": error,
            "metrics": ranking_metrics,
            "binning_free_spearman_vs_error": binning_free_spearman,
        },
    })
}

/// `{ranks, spearman, flips, flip_pairs, spearman_vs_error}` of one metric and binning.
pub fn sweep_json(values: &[Vec<f64>], error: &[f64], m_values: &[usize], names: &[&str]) -> Value {
    let sweep = ranking_sweep(values, error);
    let key = |j: usize| m_values[j].to_string();
    let ranks: Map<String, Value> = sweep
        .ranks
        .iter()
        .enumerate()
        .map(|(j, r)| (key(j), json!(r)))
        .collect();
    let spearman: Vec<Vec<Value>> = sweep
        .spearman
        .iter()
        .map(|row| row.iter().map(|&v| num(v)).collect())
        .collect();
    let flip_pairs: Map<String, Value> = sweep
        .flip_pairs
        .iter()
        .map(|&((a, b), ref pairs)| {
            (
                format!("{}|{}", m_values[a], m_values[b]),
                pairs
                    .iter()
                    .map(|&(i, j)| json!([names[i], names[j]]))
                    .collect(),
            )
        })
        .collect();
    let vs_error: Map<String, Value> = sweep
        .spearman_vs_error
        .iter()
        .enumerate()
        .map(|(j, &v)| (key(j), num(v)))
        .collect();
    json!({
        "ranks": ranks, "spearman": spearman, "flips": sweep.flips,
        "flip_pairs": flip_pairs, "spearman_vs_error": vs_error,
    })
}
