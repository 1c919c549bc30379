//! The single-model sections of the audit JSON.

use crate::num;
use calibscope_core::audit::{Audit, ReadingReport};
use calibscope_core::beyond::Confusion;
use calibscope_core::binning::{BinnedMetrics, Binning};
use calibscope_core::reliability::ReliabilityRow;
use calibscope_core::Kind;
use serde_json::{json, Map, Value};

/// Inserts every single-model section that applies to the audit's kind.
pub(crate) fn insert_all(out: &mut Map<String, Value>, audit: &Audit, m_values: &[usize]) {
    out.insert("binning_free".into(), binning_free(audit));
    out.insert("readings".into(), readings(audit, m_values));
    out.insert("reliability".into(), reliability(audit));
    out.insert("beyond_ece".into(), beyond_ece(audit));
    if audit.kind != Kind::TopLabel {
        out.insert("cw_confusion".into(), cw_confusion(audit));
        out.insert("cw_identity".into(), cw_identity(audit));
        out.insert("cwauc".into(), cwauc(audit));
    }
    // asked for: the points, or null when the curve is undefined (no positive or no
    // negative sample)
    if let Some(curve) = &audit.roc_class1 {
        out.insert(
            "roc_class1".into(),
            curve.as_ref().map_or(Value::Null, |points| {
                points
                    .iter()
                    .map(|p| {
                        json!({"t": num(p.threshold), "fpr": num(p.fpr), "tpr": num(p.tpr),
                               "cwfpr": num(p.cw_fpr), "cwtpr": num(p.cw_tpr)})
                    })
                    .collect()
            }),
        );
    }
}

fn binning_free(audit: &Audit) -> Value {
    let mut o = Map::new();
    o.insert("accuracy".into(), num(audit.accuracy));
    o.insert("l_conf".into(), num(audit.l_conf));
    if audit.kind != Kind::TopLabel {
        o.insert("nll".into(), num(audit.nll));
        o.insert("brier_multiclass".into(), num(audit.brier_multiclass));
        o.insert(
            "brier_over_k".into(),
            num(audit.brier_multiclass.map(|b| b / audit.k as f64)),
        );
        o.insert(
            "auc_per_class".into(),
            audit.classes.iter().map(|c| num(c.auc)).collect(),
        );
        o.insert("auc_macro".into(), num(audit.auc_macro()));
    }
    if audit.kind == Kind::Binary {
        o.insert("auc".into(), num(audit.classes[1].auc));
        o.insert("brier_positive".into(), num(audit.classes[1].reading.brier));
    }
    Value::Object(o)
}

/// `{ece, mce, rmsce, lince, brier, cal, ref, res}` of one reading at one binning,
/// plus `{confce, confce_corr, confece}` when `confce_corr` is given (the confidence
/// reading). The audit's tables and the worker's slider answers share it.
pub fn binned_metrics_json(
    t: &BinnedMetrics,
    brier: Option<f64>,
    confce_corr: Option<Option<f64>>,
) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("ece".into(), num(t.ece));
    o.insert("mce".into(), num(t.mce));
    o.insert("rmsce".into(), num(t.rmsce));
    o.insert("lince".into(), num(t.lince));
    o.insert("brier".into(), num(brier));
    o.insert("cal".into(), num(t.cal));
    o.insert("ref".into(), num(t.refinement));
    o.insert("res".into(), num(t.res(brier)));
    if let Some(corrected) = confce_corr {
        o.insert("confce".into(), num(t.lince));
        o.insert("confce_corr".into(), num(corrected));
        o.insert("confece".into(), num(t.ece));
    }
    o
}

/// [`binned_metrics_json`] of the audit's table at `(binning, m)` with `nonempty_bins`.
fn binned_entry(
    audit: &Audit,
    report: &ReadingReport,
    binning: Binning,
    m: usize,
    confidence: bool,
) -> Value {
    let Some(t) = report.at(binning, m) else {
        return Value::Null;
    };
    let corrected = confidence.then(|| audit.confce_corr(binning, m));
    let mut o = binned_metrics_json(t, report.brier, corrected);
    o.insert("nonempty_bins".into(), json!(t.nonempty_bins));
    Value::Object(o)
}

fn reading_json(
    audit: &Audit,
    report: &ReadingReport,
    m_values: &[usize],
    confidence: bool,
) -> Value {
    let mut o = Map::new();
    o.insert("brier".into(), num(report.brier));
    for binning in Binning::ALL {
        let per_m: Map<String, Value> = m_values
            .iter()
            .map(|&m| {
                (
                    m.to_string(),
                    binned_entry(audit, report, binning, m, confidence),
                )
            })
            .collect();
        o.insert(binning.name().into(), Value::Object(per_m));
    }
    Value::Object(o)
}

fn classwise_json(audit: &Audit, m_values: &[usize]) -> Value {
    let mut o = Map::new();
    for binning in Binning::ALL {
        let mut per_m = Map::new();
        for &m in m_values {
            let Some(cw) = audit.classwise(binning, m) else {
                continue;
            };
            let mut e = Map::new();
            e.insert("cwece".into(), num(cw.cwece));
            e.insert("lince_cw".into(), num(cw.lince_cw));
            e.insert("cwmce_mean".into(), num(cw.cwmce_mean));
            e.insert("cwrmsce_mean".into(), num(cw.cwrmsce_mean));
            e.insert("brier_sum".into(), num(cw.brier_sum));
            e.insert("cal_sum".into(), num(cw.cal_sum));
            e.insert("ref_sum".into(), num(cw.ref_sum));
            e.insert("res_sum".into(), num(cw.res_sum));
            if audit.k <= 10 {
                let column = |f: &dyn Fn(&ReadingReport) -> Option<f64>| -> Value {
                    audit.classes.iter().map(|c| num(f(&c.reading))).collect()
                };
                let at = |r: &ReadingReport| r.at(binning, m).copied();
                e.insert(
                    "per_class".into(),
                    json!({
                        "ece": column(&|r| at(r)?.ece),
                        "mce": column(&|r| at(r)?.mce),
                        "rmsce": column(&|r| at(r)?.rmsce),
                        "lince": column(&|r| at(r)?.lince),
                        "cal": column(&|r| at(r)?.cal),
                        "ref": column(&|r| at(r)?.refinement),
                        "res": column(&|r| at(r)?.res(r.brier)),
                    }),
                );
            }
            per_m.insert(m.to_string(), Value::Object(e));
        }
        o.insert(binning.name().into(), Value::Object(per_m));
    }
    Value::Object(o)
}

fn readings(audit: &Audit, m_values: &[usize]) -> Value {
    let mut o = Map::new();
    o.insert(
        "confidence".into(),
        reading_json(audit, &audit.confidence, m_values, true),
    );
    if let Some(positive) = audit.positive() {
        o.insert(
            "positive".into(),
            reading_json(audit, positive, m_values, false),
        );
    }
    if audit.kind != Kind::TopLabel {
        o.insert("classwise".into(), classwise_json(audit, m_values));
    }
    Value::Object(o)
}

/// One reliability table as JSON rows.
pub fn reliability_rows(binning: Binning, rows: &[ReliabilityRow]) -> Value {
    rows.iter()
        .map(|r| {
            let mut o = Map::new();
            o.insert("bin".into(), json!(r.bin));
            o.insert("n".into(), json!(r.n));
            o.insert("conf".into(), json!(r.conf));
            o.insert("acc".into(), json!(r.acc));
            o.insert("gap".into(), json!(r.gap));
            o.insert("successes".into(), json!(r.successes));
            o.insert("cp_lower".into(), json!(r.cp_lower));
            o.insert("cp_upper".into(), json!(r.cp_upper));
            let (lo, hi) = match binning {
                Binning::Width => ("lower_edge", "upper_edge"),
                Binning::Mass => ("u_min", "u_max"),
            };
            o.insert(lo.into(), json!(r.lower));
            o.insert(hi.into(), json!(r.upper));
            Value::Object(o)
        })
        .collect()
}

fn reliability_of(report: &ReadingReport, bins: usize) -> Value {
    let mut o = Map::new();
    for (binning, rows) in &report.reliability {
        o.insert(
            format!("{}_{bins}", binning.name()),
            reliability_rows(*binning, rows),
        );
    }
    Value::Object(o)
}

fn reliability(audit: &Audit) -> Value {
    let bins = 10;
    let mut o = Map::new();
    o.insert("confidence".into(), reliability_of(&audit.confidence, bins));
    if let Some(positive) = audit.positive() {
        o.insert("positive".into(), reliability_of(positive, bins));
    }
    Value::Object(o)
}

fn beyond_ece(audit: &Audit) -> Value {
    let r = &audit.risk;
    json!({
        "acc": num(r.acc), "csr": num(r.csr), "sigma_csr": num(r.sigma_csr),
        "zscore": num(r.zscore), "p_risk": num(r.p_risk), "cwa": num(r.cwa), "gain": num(r.gain),
    })
}

fn confusion_json(c: &Confusion) -> Value {
    json!({
        "tp": c.tp, "fp": c.fp, "fn": c.fn_, "tn": c.tn,
        "precision": num(c.precision()), "recall": num(c.recall()),
        "specificity": num(c.specificity()), "f1": num(c.f1()), "mcc": num(c.mcc()),
        "accuracy": num(c.accuracy()),
    })
}

fn cw_confusion(audit: &Audit) -> Value {
    audit
        .confusion
        .iter()
        .enumerate()
        .map(|(r, (cw, counts))| {
            json!({"class": r, "cw": confusion_json(cw), "counts": confusion_json(counts)})
        })
        .collect()
}

fn cw_identity(audit: &Audit) -> Value {
    let sum: Option<Vec<f64>> = audit
        .confusion
        .iter()
        .map(|(cw, _)| cw.accuracy())
        .collect();
    json!({
        "sum_cwacc": num(sum.map(calibscope_core::sum::sum)),
        "k_minus_2_plus_2cwa": num(audit.risk.cwa.map(|a| (audit.k as f64 - 2.0) + 2.0 * a)),
    })
}

fn cwauc(audit: &Audit) -> Value {
    if audit.kind == Kind::Binary {
        json!({"class1": num(audit.classes[1].cwauc)})
    } else {
        json!({
            "per_class": audit.classes.iter().map(|c| num(c.cwauc)).collect::<Vec<_>>(),
            "macro": num(audit.cwauc_macro()),
        })
    }
}
