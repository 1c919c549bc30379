//! METRICS.md §8 in the audit document: smooth ECE, CalDist, the debiased L2 error,
//! ECE_sweep, the three calibration tests, the seeded paired bootstrap's percentile
//! intervals and the verdict. One place for the CLI, the worker and `verify`: every
//! number comes from `calibscope_core` (`smece`, `estimators`, `calibration_tests`,
//! `bootstrap`, `verdict`); this module only places them.
//!
//! Where the values go (a single-model document; `null` = undefined):
//!
//! ```json
//! {"bootstrap": {"replicates": 1000, "seed": 0, "alpha": 0.05},
//!  "binning_free": {…, "smece": 0.041, "smece_sigma": 0.0625, "caldist": 0.038},
//!  "readings": {"confidence": {
//!     "brier": …, "width": {"15": {…, "ece_l2_debiased": 0.043}}, "mass": {…},
//!     "d": 0.039, "smece": 0.041, "smece_sigma": 0.0625, "caldist": 0.038,
//!     "ece_sweep": {"b": 23, "ece": 0.04, "rmsce": 0.05},
//!     "tests": {"spiegelhalter": {"z": -4.1, "p": 4e-5},
//!               "hosmer_lemeshow": {"h": 31.2, "p": 1e-4, "groups": 10},
//!               "cumulative": {"ks": 5.2, "kuiper": 5.3, "p_ks": 4e-7}},
//!     "intervals": {"d": [0.031, 0.047], "width.15.ece": [0.035, 0.05], …,
//!                   "skipped": {"d": 0, "width.15.ece": 0, …}}},
//!   "positive": {… the same point values, no intervals …}},
//!  "verdict": {"text": "Overconfident: …", "kind": "overconfident", "d": 0.039,
//!              "d_interval": [0.031, 0.047], "test": "cumulative-differences test",
//!              "p": 4e-7, "alpha": 0.05, "n": 10000}}
//! ```
//!
//! A multi-model document holds the same under `models.<name>` (`binning_free`'s three
//! values, `readings.confidence` with the keys above, `verdict`). Models on the same
//! samples are resampled with the same rows (the draws depend on the seed, the
//! replicate and `n` only), so their intervals are paired.
//!
//! Intervals are on the confidence reading (the verdict's), keyed by the path of the
//! value relative to the reading: `d`, and per binning and bin count `ece`, `mce`,
//! `rmsce`, `confce`, `confce_corr`, `ece_l2_debiased`. Every replicate recomputes its
//! bins (§8.5); a value undefined on a replicate is skipped and counted under
//! `skipped`. smECE, CalDist and the tests have no interval (a bandwidth search or an
//! isotonic fit per replicate would cost a thousand times the audit).
//! With `replicates = 0` there are no intervals (`intervals` is `null`) and the verdict,
//! which needs `d`'s interval, is `null`.
//!
//! The `bootstrap` object is what the values were computed with: `verify` reads it
//! from the recorded document and recomputes with it (the bootstrap is deterministic
//! per seed and does not depend on the thread count). A document without it (written
//! before these values existed) is recomputed without them.

use crate::num;
use calibscope_core::binning::{Binning, SortedReading};
use calibscope_core::bootstrap::{
    bootstrap_map, percentile_interval, BlockIndex, BootReading, BootstrapSettings, Resampled,
};
use calibscope_core::calibration_tests::cumulative_test;
use calibscope_core::reading::top_labels;
use calibscope_core::smece::smece;
use calibscope_core::verdict::{verdict, VERDICT_TEST};
use calibscope_core::PredictionSet;
use serde_json::{json, Map, Value};

mod points;
pub mod staged;

pub(crate) use points::{ModelPoints, PendingPoints};

/// The key of the settings object in an audit document.
pub const BOOTSTRAP_KEY: &str = "bootstrap";

/// The most replicates a document may ask for (a guard against a typo costing hours).
pub const MAX_REPLICATES: usize = 100_000;

/// The binned metrics bootstrapped per binning and bin count, in path order.
pub const INTERVAL_METRICS: [&str; 6] = [
    "ece",
    "mce",
    "rmsce",
    "confce",
    "confce_corr",
    "ece_l2_debiased",
];

/// Why bootstrap settings are not usable: `alpha` must lie strictly between 0 and 1,
/// and at most [`MAX_REPLICATES`] replicates.
pub fn check_bootstrap(s: &BootstrapSettings) -> Result<(), String> {
    if !(s.alpha > 0.0 && s.alpha < 1.0) {
        return Err(format!(
            "alpha must lie strictly between 0 and 1 (e.g. 0.05 for 95 % intervals); got {}",
            s.alpha
        ));
    }
    if s.replicates > MAX_REPLICATES {
        return Err(format!(
            "at most {MAX_REPLICATES} bootstrap replicates; got {}",
            s.replicates
        ));
    }
    Ok(())
}

/// `{"replicates", "seed", "alpha"}` (the thread count does not change a value).
pub fn bootstrap_json(s: &BootstrapSettings) -> Value {
    json!({"replicates": s.replicates, "seed": s.seed, "alpha": s.alpha})
}

/// The settings of a document's `bootstrap` object: `Ok(None)` when the document has
/// none (it holds no §8 values), `Err` when it is malformed.
pub fn bootstrap_of(doc: &Value) -> Result<Option<BootstrapSettings>, String> {
    let b = match doc.get(BOOTSTRAP_KEY) {
        None | Some(Value::Null) => return Ok(None),
        Some(b) => b,
    };
    let replicates = b["replicates"]
        .as_u64()
        .ok_or("bootstrap.replicates must be a whole number")? as usize;
    let seed = b["seed"]
        .as_u64()
        .ok_or("bootstrap.seed must be a whole number")?;
    let alpha = b["alpha"]
        .as_f64()
        .ok_or("bootstrap.alpha must be a number")?;
    let s = BootstrapSettings {
        replicates,
        seed,
        alpha,
        ..BootstrapSettings::default()
    };
    check_bootstrap(&s).map_err(|e| format!("bootstrap: {e}"))?;
    Ok(Some(s))
}

/// The values of [`INTERVAL_METRICS`] on one replicate at `(binning, m)`, from one
/// visit of its bins: the ECE family of `calibscope_core::binning`, ConfCE^corr
/// (`ConfCE + (1/n)(1 - acc)`, METRICS.md §4) and the debiased L2 error (§8.2).
fn replicate_binned(
    sample: &BlockIndex<'_>,
    binning: Binning,
    m: usize,
    out: &mut Vec<Option<f64>>,
) {
    let mut acc = calibscope_core::binning::BinnedAccumulator::default();
    let mut debiased = calibscope_core::sum::Sum::new();
    let (mut n, mut successes) = (0usize, 0u64);
    sample.for_each_bin(binning, m, |bin| {
        acc.add(&bin);
        let count = bin.count();
        n += count;
        successes += bin.successes;
        if count > 1 {
            let (a, gap) = (bin.acc(), bin.gap());
            debiased.add(count as f64 * (gap * gap - a * (1.0 - a) / (count - 1) as f64));
        }
    });
    let t = acc.finish(n);
    let nf = n as f64;
    let corrected = t
        .lince
        .filter(|_| n > 0)
        .map(|l| l + (1.0 - successes as f64 / nf) / nf);
    out.extend([
        t.ece,
        t.mce,
        t.rmsce,
        t.lince,
        corrected,
        (n > 0).then(|| (debiased.value() / nf).max(0.0).sqrt()),
    ]);
}

/// The interval paths of a reading, in the order [`replicate_values`] returns them.
pub fn interval_paths(m_values: &[usize]) -> Vec<String> {
    let mut paths = vec!["d".to_string()];
    for binning in Binning::ALL {
        for m in m_values {
            for metric in INTERVAL_METRICS {
                paths.push(format!("{}.{m}.{metric}", binning.name()));
            }
        }
    }
    paths
}

/// Every interval value of one replicate (see [`interval_paths`]).
///
/// One pass over the replicate's counts builds its block sums
/// ([`Resampled::block_index`]); `d` and every binning's bins are read from them.
pub fn replicate_values(sample: &Resampled<'_>, m_values: &[usize]) -> Vec<Option<f64>> {
    let index = sample.block_index();
    let mut out = Vec::with_capacity(1 + 12 * m_values.len());
    out.push(index.mean_gap());
    for binning in Binning::ALL {
        for &m in m_values {
            replicate_binned(&index, binning, m, &mut out);
        }
    }
    out
}

/// Per metric, its value on each replicate (`None`: undefined there).
pub type Replicates = Vec<Vec<Option<f64>>>;

/// The bootstrap of one reading: per interval path, its replicate values in
/// replicate order. `None` when the reading is empty or `replicates = 0`.
pub fn replicates_of(
    reading: &BootReading,
    m_values: &[usize],
    settings: &BootstrapSettings,
) -> Option<(Vec<String>, Replicates)> {
    if reading.is_empty() || settings.replicates == 0 {
        return None;
    }
    let paths = interval_paths(m_values);
    let rows = bootstrap_map(&[reading], settings, |_, s| {
        replicate_values(&s[0], m_values)
    });
    let columns = (0..paths.len())
        .map(|k| rows.iter().map(|r| r[k]).collect())
        .collect();
    Some((paths, columns))
}

/// `{<path>: [lo, hi], …, "skipped": {<path>: count, …}}` of the replicate values at
/// level `1 - alpha`; a path defined on no replicate has `null`.
fn intervals_json(
    paths: &[String],
    columns: &[Vec<Option<f64>>],
    alpha: f64,
) -> (Value, Option<(f64, f64)>) {
    let mut out = Map::new();
    let mut skipped = Map::new();
    let mut d = None;
    for (path, values) in paths.iter().zip(columns) {
        let i = percentile_interval(values, alpha);
        let pair = i.lo.zip(i.hi);
        if path == "d" {
            d = pair;
        }
        out.insert(
            path.clone(),
            pair.map_or(Value::Null, |(lo, hi)| {
                json!([num(Some(lo)), num(Some(hi))])
            }),
        );
        skipped.insert(path.clone(), json!(i.skipped));
    }
    out.insert("skipped".into(), Value::Object(skipped));
    (Value::Object(out), d)
}

/// §8 of one model: the confidence reading's values (with intervals when asked),
/// the positive reading's for a binary set, and the verdict.
pub(crate) struct ModelBeyond {
    confidence: Map<String, Value>,
    positive: Option<Map<String, Value>>,
    verdict: Value,
}

/// §8 of one model from its point values and its bootstrap (`None`: no replicates,
/// so no intervals and no verdict).
pub(crate) fn model_beyond_with(
    points: ModelPoints,
    replicates: Option<(Vec<String>, Replicates)>,
    settings: &BootstrapSettings,
) -> ModelBeyond {
    let mut confidence = points.confidence;
    let mut verdict_json = Value::Null;
    match replicates {
        None => {
            confidence.insert("intervals".into(), Value::Null);
        }
        Some((paths, columns)) => {
            let (intervals, d_interval) = intervals_json(&paths, &columns, settings.alpha);
            confidence.insert("intervals".into(), intervals);
            let d = confidence["d"].as_f64();
            let v = d.and_then(|d| verdict(d, d_interval, points.p_ks, settings.alpha, points.n));
            if let Some(v) = v {
                verdict_json = json!({
                    "text": v.to_string(),
                    "kind": v.kind.name(),
                    "d": num(Some(v.d)),
                    "d_interval": [num(Some(v.d_interval.0)), num(Some(v.d_interval.1))],
                    "test": VERDICT_TEST,
                    "p": num(Some(v.p)),
                    "alpha": v.alpha,
                    "n": v.n,
                });
            }
        }
    }
    ModelBeyond {
        confidence,
        positive: points.positive,
        verdict: verdict_json,
    }
}

fn model_beyond(
    set: &PredictionSet,
    m_values: &[usize],
    settings: &BootstrapSettings,
) -> ModelBeyond {
    let (points, reading) = PendingPoints::new(set, m_values).run();
    model_beyond_with(
        points,
        replicates_of(&reading, m_values, settings),
        settings,
    )
}

/// Merges `values` into the reading object `reading`: the per-binning tables'
/// `ece_l2_debiased` into `<binning>.<m>`, every other key beside the reading's
/// values.
fn merge_reading(reading: &mut Map<String, Value>, values: Map<String, Value>) {
    for (key, value) in values {
        match (reading.get_mut(&key), value) {
            (Some(Value::Object(tables)), Value::Object(per_m))
                if Binning::from_name(&key).is_some() =>
            {
                for (m, entry) in per_m {
                    if let (Some(Value::Object(table)), Value::Object(extra)) =
                        (tables.get_mut(&m), entry)
                    {
                        table.extend(extra);
                    }
                }
            }
            (_, value) => {
                reading.insert(key, value);
            }
        }
    }
}

/// The three binning-free values of the confidence reading, for `binning_free`.
fn headline(confidence: &Map<String, Value>, binning_free: &mut Map<String, Value>) {
    for key in ["smece", "smece_sigma", "caldist"] {
        binning_free.insert(key.into(), confidence[key].clone());
    }
}

fn object<'a>(v: &'a mut Value, key: &str) -> &'a mut Map<String, Value> {
    if !v[key].is_object() {
        v[key] = Value::Object(Map::new());
    }
    v[key].as_object_mut().expect("an object")
}

/// Adds §8 to a single-model audit document of `set` (see the module docs).
/// `doc` must be the document [`crate::audit_json`] made of `set` with `m_values`.
pub fn insert_single(
    doc: &mut Value,
    set: &PredictionSet,
    m_values: &[usize],
    settings: &BootstrapSettings,
) {
    apply_single(doc, model_beyond(set, m_values, settings), settings);
}

/// Places one model's §8 values `b` in its single-model document `doc`.
pub(crate) fn apply_single(doc: &mut Value, b: ModelBeyond, settings: &BootstrapSettings) {
    doc[BOOTSTRAP_KEY] = bootstrap_json(settings);
    headline(&b.confidence, object(doc, "binning_free"));
    let readings = object(doc, "readings");
    merge_reading(object_in(readings, "confidence"), b.confidence);
    if let Some(positive) = b.positive {
        merge_reading(object_in(readings, "positive"), positive);
    }
    doc["verdict"] = b.verdict;
}

fn object_in<'a>(map: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    let v = map
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !v.is_object() {
        *v = Value::Object(Map::new());
    }
    v.as_object_mut().expect("an object")
}

/// Adds §8 to a multi-model audit document: per model under `models.<name>`
/// (`binning_free`'s three values, `readings.confidence`, `verdict`), the models
/// computed as `sections` says.
pub fn insert_multi(
    doc: &mut Value,
    models: &[(String, PredictionSet)],
    m_values: &[usize],
    settings: &BootstrapSettings,
    sections: crate::Sections,
) {
    let all = sections.map(models, |(_, set)| model_beyond(set, m_values, settings));
    doc[BOOTSTRAP_KEY] = bootstrap_json(settings);
    let per = object(doc, "models");
    for ((name, _), b) in models.iter().zip(all) {
        let model = object_in(per, name);
        headline(&b.confidence, object_in(model, "binning_free"));
        let readings = object_in(model, "readings");
        merge_reading(object_in(readings, "confidence"), b.confidence);
        model.insert("verdict".into(), b.verdict);
    }
}

/// The most points of a cumulative-differences curve kept in a record.
pub const CUMULATIVE_POINTS: usize = 1000;

/// The binning-free diagrams' data of the confidence reading, for a record's tables
/// (`binning_free.confidence`; the report and the CLI's SVG export draw them):
/// `smooth {sigma, smece, t, mean_outcome, density}` (smECE's curve at `sigma*`,
/// `calibscope_core::smece`) and `cumulative {n, sigma, ks, kuiper, p_ks, points}`
/// with `points` the `[k/n, C_k]` of `calibscope_core::calibration_tests` at
/// `k = floor(j n / P)`, `j = 0..=P`, `P = min(n, 1000)` (every point up to 1000
/// samples). Undefined parts are `null`.
pub fn diagram_tables(set: &PredictionSet) -> Value {
    let pairs = top_labels(set).pairs();
    let sorted = SortedReading::new(&pairs);
    let smooth = smece(&pairs.forecast, &pairs.outcome).map_or(Value::Null, |s| {
        let finite = |v: &[f64]| v.iter().map(|&x| num(Some(x))).collect::<Vec<_>>();
        json!({
            "sigma": s.sigma, "smece": num(Some(s.smece)),
            "t": finite(&s.curve.t), "mean_outcome": finite(&s.curve.mean_outcome),
            "density": finite(&s.curve.density),
        })
    });
    let n = sorted.len();
    let cumulative = cumulative_test(&sorted).map_or(Value::Null, |t| {
        let c = calibscope_core::calibration_tests::cumulative_differences(&sorted);
        let p = n.min(CUMULATIVE_POINTS);
        let points: Vec<Value> = (0..=p)
            .map(|j| {
                let k = j * n / p;
                json!([k as f64 / n as f64, num(Some(c[k]))])
            })
            .collect();
        json!({
            "n": n, "sigma": num(Some(t.sigma)), "ks": num(Some(t.ks)),
            "kuiper": num(Some(t.kuiper)), "p_ks": num(Some(t.p_ks)), "points": points,
        })
    });
    json!({"confidence": {"smooth": smooth, "cumulative": cumulative}})
}
