//! The two files of a recalibration, written alike by the CLI (`calibscope
//! recalibrate --out ... --params ...`) and by the web worker (the page's downloads):
//! the recalibrated predictions of every row (CSV, input order, ids kept, split column)
//! and the fitted parameters (JSON).

use crate::num;
use crate::RecalibrationSettings;
use calibscope_core::reading::ProbView;
use calibscope_core::recal::apply::{FitScores, Recalibration, Undefined};
use calibscope_core::{Kind, PredictionSet};
use calibscope_io::Ids;
use serde_json::{json, Value};

/// A recalibration method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// `softmax(z / tau)` (binary `sigmoid(s / tau)`).
    Temperature,
    /// `sigmoid(a s + b)`, one-vs-rest for multiclass input.
    Platt,
    /// Pool-adjacent-violators, one-vs-rest for multiclass input.
    Isotonic,
}

impl Method {
    /// Every method, in the ledger's column order.
    pub const ALL: [Method; 3] = [Method::Temperature, Method::Platt, Method::Isotonic];

    /// The name used in the audit JSON (`recalibration.<name>`), files and requests.
    pub fn name(self) -> &'static str {
        match self {
            Method::Temperature => "temperature",
            Method::Platt => "platt",
            Method::Isotonic => "isotonic",
        }
    }

    /// Parses [`Method::name`].
    pub fn from_name(s: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// The evaluation split after `method` (the set the ledger measures), or why it is
/// undefined.
pub fn evaluation_after(run: &Recalibration, method: Method) -> Result<&PredictionSet, Undefined> {
    let after = match method {
        Method::Temperature => run.temperature.as_ref().map(|t| &t.after),
        Method::Platt => run.platt.as_ref().and_then(|p| p.after.as_ref()),
        Method::Isotonic => run.isotonic.as_ref().and_then(|p| p.after.as_ref()),
    };
    after.map_err(Clone::clone)
}

/// Every row of `set` (both splits, input order) recalibrated by `method` as fitted in
/// `run` (which must be `recalibrate(set, ..)`), or why it is undefined.
pub fn recalibrate_rows(
    set: &PredictionSet,
    run: &Recalibration,
    method: Method,
) -> Result<PredictionSet, Undefined> {
    let scores = FitScores::of(set).ok_or(Undefined::TopLabel)?;
    let rows: Vec<usize> = (0..set.n()).collect();
    match method {
        Method::Temperature => {
            let t = run.temperature.as_ref().map_err(Clone::clone)?;
            Ok(scores.temperature_scaled(&set.labels, t.fit.tau, &rows))
        }
        Method::Platt => {
            run.platt
                .as_ref()
                .map_err(Clone::clone)?
                .apply(&scores, &set.labels, &rows)
        }
        Method::Isotonic => {
            run.isotonic
                .as_ref()
                .map_err(Clone::clone)?
                .apply(&scores, &set.labels, &rows)
        }
    }
}

/// The recalibrated predictions of every row, in input order: `id` (when the input
/// had one), `label` (its class name), `split` (`calibration` / `evaluation`) and the
/// probabilities (`p` = P(y = 1) for binary input, `p_<class>` otherwise), written as
/// the shortest decimals that read back to the same `f64`. `calibration` lists the
/// calibration rows (ascending).
pub fn recalibrated_csv(
    recalibrated: &PredictionSet,
    ids: Option<&Ids>,
    class_names: &[String],
    calibration: &[usize],
) -> String {
    let view = ProbView::new(recalibrated).expect("recalibrated sets have probabilities");
    let k = recalibrated.k;
    let binary = recalibrated.kind() == Kind::Binary;
    let mut out = String::with_capacity(recalibrated.n() * (24 + if binary { 20 } else { 20 * k }));
    if ids.is_some() {
        out.push_str("id,");
    }
    out.push_str("label,split");
    if binary {
        out.push_str(",p");
    } else {
        for r in 0..k {
            let name = class_names.get(r).cloned().unwrap_or_else(|| r.to_string());
            out.push(',');
            out.push_str(&crate::csv::field(&format!("p_{name}")));
        }
    }
    out.push('\n');
    let mut cal = calibration.iter().peekable();
    for i in 0..recalibrated.n() {
        match ids {
            Some(Ids::Int(v)) => out.push_str(&format!("{},", v[i])),
            Some(Ids::Text(v)) => out.push_str(&format!("{},", crate::csv::field(&v[i]))),
            None => {}
        }
        let label = recalibrated.labels[i] as usize;
        match class_names.get(label) {
            Some(name) => out.push_str(&crate::csv::field(name)),
            None => out.push_str(&label.to_string()),
        }
        let in_cal = cal.next_if(|&&c| c == i).is_some();
        out.push_str(if in_cal {
            ",calibration"
        } else {
            ",evaluation"
        });
        if binary {
            out.push_str(&format!(",{}", view.prob(i, 1)));
        } else {
            for r in 0..k {
                out.push_str(&format!(",{}", view.prob(i, r)));
            }
        }
        out.push('\n');
    }
    out
}

/// The fitted parameters of `method` as JSON (`calibscope-recalibration/1`): the
/// method, `tau` (with `at_bracket_end`), Platt's `(a, b)` per fit or isotonic's knots
/// `x`/`y` per fit (binary: one fit, for class 1; otherwise one per class,
/// one-vs-rest), the split's seed, fraction and sizes, and `version` (the app's or
/// CLI's). `kind`/`source` describe the input. Undefined fits give their reason.
pub fn fitted_params_json(
    set: &PredictionSet,
    run: &Recalibration,
    method: Method,
    settings: &RecalibrationSettings,
    version: &str,
) -> Value {
    let binary = set.kind() == Kind::Binary;
    let class_of = |j: usize| if binary { 1 } else { j };
    let fitted = match method {
        Method::Temperature => run.temperature.as_ref().map(|t| {
            json!({
                "tau": t.fit.tau,
                "at_bracket_end": t.fit.at_bracket_end,
                "nll_cal_tau1": t.fit.nll_tau1,
                "nll_cal_tau": t.fit.nll_tau,
            })
        }),
        Method::Platt => run.platt.as_ref().map(|p| {
            let fits: Vec<Value> = p
                .fits
                .iter()
                .enumerate()
                .map(|(j, f)| match f {
                    Some(f) => json!({"class": class_of(j), "a": f.a, "b": f.b, "status": f.status.code()}),
                    None => json!({"class": class_of(j), "undefined": "the calibration split lacks a class of this fit"}),
                })
                .collect();
            json!({ "fits": fits })
        }),
        Method::Isotonic => run.isotonic.as_ref().map(|p| {
            let fits: Vec<Value> = p
                .fits
                .iter()
                .enumerate()
                .map(|(j, f)| match f {
                    Some(f) => {
                        let (x, y) = f.knots();
                        let x: Vec<Value> = x.iter().map(|&v| num(Some(v))).collect();
                        let y: Vec<Value> = y.iter().map(|&v| num(Some(v))).collect();
                        json!({"class": class_of(j), "x": x, "y": y})
                    }
                    None => json!({"class": class_of(j), "undefined": "the calibration split lacks a class of this fit"}),
                })
                .collect();
            json!({ "fits": fits, "out_of_bounds": "clip" })
        }),
    };
    let mut o = json!({
        "schema": "calibscope-recalibration/1",
        "method": method.name(),
        "version": version,
        "input": {"kind": set.kind().name(), "source": set.source().name(), "n": set.n(), "k": set.k},
        "scores": if binary { "binary score s (logit; logit(u) or ln p_1 - ln p_0 of probabilities, clipped to [1e-15, 1 - 1e-15])" } else { "logits z (ln p of probabilities, clipped to [1e-15, 1 - 1e-15]); one-vs-rest maps then rows renormalised" },
        "split": {
            "seed": settings.seed,
            "f": settings.fraction,
            "n_cal": run.split.calibration.len(),
            "n_eval": run.split.evaluation.len(),
            "procedure": "METRICS.md §6: stratified, SplitMix64 Fisher-Yates per class",
        },
    });
    match fitted {
        Ok(v) => {
            for (key, value) in v.as_object().expect("an object") {
                o[key] = value.clone();
            }
        }
        Err(reason) => o["undefined"] = json!(reason.to_string()),
    }
    o
}
