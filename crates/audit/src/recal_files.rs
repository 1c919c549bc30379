//! The two files of a recalibration, written alike by the CLI (`calibscope
//! recalibrate --out ... --params ...`) and by the web worker (the page's downloads):
//! the recalibrated predictions of every row (CSV, input order, ids kept, split column)
//! and the fitted parameters (JSON).

use crate::num;
use crate::RecalibrationSettings;
use calibscope_core::reading::ProbView;
use calibscope_core::recal::apply::{FitScores, Recalibration, Undefined};
use calibscope_core::recal::prob_maps::{ProbFit, ProbMethod, ProbOutcome};
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
    /// Beta calibration (`abm`), one-vs-rest on the class probabilities.
    Beta,
    /// Histogram binning on equal-mass bins, one-vs-rest on the class probabilities.
    Histogram,
    /// Inductive Venn–Abers (merged probability, interval beside it), one-vs-rest on
    /// the class probabilities.
    #[serde(rename = "venn_abers")]
    VennAbers,
    /// Vector scaling (Guo et al. 2017) on the logits, multiclass.
    Vector,
    /// Matrix scaling (Guo et al. 2017) on the logits, multiclass.
    Matrix,
    /// Dirichlet calibration with ODIR (Kull et al. 2019) on `ln p`, multiclass.
    Dirichlet,
}

impl Method {
    /// Every method, in the ledger's column order.
    pub const ALL: [Method; 6] = [
        Method::Temperature,
        Method::Platt,
        Method::Isotonic,
        Method::Beta,
        Method::Histogram,
        Method::VennAbers,
    ];

    /// The multiclass maps fitted on request (`calibscope recalibrate --method`,
    /// `audit --methods`, the page's "fit the multiclass maps" button): not in
    /// [`Method::ALL`], the six the page's Recalibrate view always fits (an audit
    /// fits the first three unless asked for more).
    pub const MULTICLASS: [Method; 3] = [Method::Vector, Method::Matrix, Method::Dirichlet];

    /// Every method: [`Method::ALL`], then [`Method::MULTICLASS`] (the ledger's and
    /// the comparison's order when a section holds them).
    pub const EVERY: [Method; 9] = {
        let (a, m) = (Method::ALL, Method::MULTICLASS);
        [a[0], a[1], a[2], a[3], a[4], a[5], m[0], m[1], m[2]]
    };

    /// The methods that read a probability (calibscope-core's `prob_maps`).
    pub const PROB_MAPS: [Method; 3] = [Method::Beta, Method::Histogram, Method::VennAbers];

    /// The name used in the audit JSON (`recalibration.<name>`), files and requests.
    pub fn name(self) -> &'static str {
        match self {
            Method::Temperature => "temperature",
            Method::Platt => "platt",
            Method::Isotonic => "isotonic",
            Method::Beta => "beta",
            Method::Histogram => "histogram",
            Method::VennAbers => "venn_abers",
            Method::Vector => "vector",
            Method::Matrix => "matrix",
            Method::Dirichlet => "dirichlet",
        }
    }

    /// The name for people (`Venn–Abers`).
    pub fn title(self) -> &'static str {
        match self {
            Method::Temperature => "temperature",
            Method::Platt => "Platt",
            Method::Isotonic => "isotonic",
            Method::Beta => "beta",
            Method::Histogram => "histogram",
            Method::VennAbers => "Venn–Abers",
            Method::Vector => "vector scaling",
            Method::Matrix => "matrix scaling",
            Method::Dirichlet => "Dirichlet",
        }
    }

    /// A probability map's outcome in `run`, or why it is undefined (`None` for
    /// temperature, Platt and isotonic).
    pub fn prob_map(self, run: &Recalibration) -> Option<Result<&ProbOutcome, &Undefined>> {
        let r = match self {
            Method::Beta => &run.beta,
            Method::Histogram => &run.histogram,
            Method::VennAbers => &run.venn_abers,
            Method::Vector => &run.vector,
            Method::Matrix => &run.matrix,
            Method::Dirichlet => &run.dirichlet,
            _ => return None,
        };
        Some(r.as_ref())
    }

    /// The probability map of calibscope-core this method is (`None` for
    /// temperature, Platt and isotonic).
    pub fn prob_method(self) -> Option<ProbMethod> {
        Some(match self {
            Method::Beta => ProbMethod::Beta,
            Method::Histogram => ProbMethod::Histogram,
            Method::VennAbers => ProbMethod::VennAbers,
            Method::Vector => ProbMethod::Vector,
            Method::Matrix => ProbMethod::Matrix,
            Method::Dirichlet => ProbMethod::Dirichlet,
            _ => return None,
        })
    }

    /// Every method beyond temperature, Platt and isotonic that data of `k` classes
    /// allows: [`Method::PROB_MAPS`], and [`Method::MULTICLASS`] for `k` ≥ 3.
    pub fn more_for(k: usize) -> Vec<Method> {
        let mut v = Method::PROB_MAPS.to_vec();
        if k >= 3 {
            v.extend(Method::MULTICLASS);
        }
        v
    }

    /// Parses [`Method::name`].
    pub fn from_name(s: &str) -> Option<Method> {
        Method::EVERY.into_iter().find(|m| m.name() == s)
    }
}

/// The evaluation split after `method` (the set the ledger measures), or why it is
/// undefined.
pub fn evaluation_after(run: &Recalibration, method: Method) -> Result<&PredictionSet, Undefined> {
    let after = match method {
        Method::Temperature => run.temperature.as_ref().map(|t| &t.after),
        Method::Platt => run.platt.as_ref().and_then(|p| p.after.as_ref()),
        Method::Isotonic => run.isotonic.as_ref().and_then(|p| p.after.as_ref()),
        Method::Beta => run.beta.as_ref().map(|p| &p.after),
        Method::Histogram => run.histogram.as_ref().map(|p| &p.after),
        Method::VennAbers => run.venn_abers.as_ref().map(|p| &p.after),
        Method::Vector => run.vector.as_ref().map(|p| &p.after),
        Method::Matrix => run.matrix.as_ref().map(|p| &p.after),
        Method::Dirichlet => run.dirichlet.as_ref().map(|p| &p.after),
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
    recalibrate_rows_with_intervals(set, run, method).map(|(set, _)| set)
}

/// Venn–Abers' `[p_lower, p_upper]` per row and fitted class (row-major).
pub type Intervals = Vec<[f64; 2]>;

/// [`recalibrate_rows`] and, for Venn–Abers, every row's `[p_lower, p_upper]` per
/// fitted class (row-major: one per row for binary input, `k` per row otherwise).
pub fn recalibrate_rows_with_intervals(
    set: &PredictionSet,
    run: &Recalibration,
    method: Method,
) -> Result<(PredictionSet, Option<Intervals>), Undefined> {
    let scores = FitScores::of(set).ok_or(Undefined::TopLabel)?;
    let rows: Vec<usize> = (0..set.n()).collect();
    if let Some(outcome) = method.prob_map(run) {
        let applied = outcome.map_err(Clone::clone)?.apply(set, &rows)?;
        return Ok((applied.set, applied.intervals));
    }
    let without = |r: Result<PredictionSet, Undefined>| r.map(|s| (s, None));
    without(match method {
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
        _ => unreachable!("prob maps above"),
    })
}

/// The recalibrated predictions of every row, in input order: `id` (when the input
/// had one), `label` (its class name), `split` (`calibration` / `evaluation`) and the
/// probabilities (`p` = P(y = 1) for binary input, `p_<class>` otherwise), written as
/// the shortest decimals that read back to the same `f64`. `calibration` lists the
/// calibration rows (ascending). With Venn–Abers' `intervals` ([`recalibrate_rows_with_intervals`]),
/// `p_lower`, `p_upper` follow (binary), or `p_lower_<class>`, `p_upper_<class>` per
/// class (multiclass: each class's one-vs-rest interval, before the rows are
/// renormalised).
pub fn recalibrated_csv(
    recalibrated: &PredictionSet,
    ids: Option<&Ids>,
    class_names: &[String],
    calibration: &[usize],
    intervals: Option<&[[f64; 2]]>,
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
    let columns = if binary { 1 } else { k };
    if intervals.is_some() {
        if binary {
            out.push_str(",p_lower,p_upper");
        } else {
            for r in 0..k {
                let name = class_names.get(r).cloned().unwrap_or_else(|| r.to_string());
                for end in ["lower", "upper"] {
                    out.push(',');
                    out.push_str(&crate::csv::field(&format!("p_{end}_{name}")));
                }
            }
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
        if let Some(iv) = intervals {
            for [lo, hi] in &iv[i * columns..(i + 1) * columns] {
                out.push_str(&format!(",{lo},{hi}"));
            }
        }
        out.push('\n');
    }
    out
}

/// A probability map's fits: beta's `(a, b, c, m)`, histogram binning's bin count
/// (with its cross-fitting, when chosen so), thresholds, estimates and counts,
/// Venn–Abers' distinct calibration values with `p0` and `p1` at every gap.
fn prob_map_json(p: &ProbOutcome, binary: bool) -> Value {
    let class_of = |j: usize| if binary { 1 } else { j };
    let nums = |v: &[f64]| v.iter().map(|&x| num(Some(x))).collect::<Vec<Value>>();
    let fits: Vec<Value> = p
        .fits
        .iter()
        .enumerate()
        .map(|(j, f)| match f {
            ProbFit::Beta(f) => json!({"class": class_of(j), "a": f.a, "b": f.b, "c": f.c, "m": num(Some(f.m)), "iterations": f.iterations, "converged": f.converged}),
            ProbFit::Histogram(f) => json!({"class": class_of(j), "thresholds": nums(&f.thresholds), "estimates": nums(&f.estimates), "counts": f.counts}),
            ProbFit::VennAbers(f) => json!({"class": class_of(j), "values": nums(&f.values), "p0": nums(&f.p0), "p1": nums(&f.p1)}),
        })
        .collect();
    let mut o = json!({ "fits": fits });
    if let Some(f) = &p.scaling {
        o = scaling_json(f);
    }
    if let Some(search) = &p.odir_search {
        o["odir_search"] = odir_search_json(search);
    }
    if let Some(m) = p.bins {
        o["bins"] = json!(m);
    }
    if let Some(cf) = &p.cross_fit {
        o["cross_fit"] = cross_fit_json(cf);
    }
    o
}

/// A joint multiclass map's parameters: `W` (K rows of K, last row 0 but for vector
/// scaling's diagonal), `b`, ODIR's `lambda` and `mu`, the L-BFGS iterations.
fn scaling_json(f: &calibscope_core::recal::scaling::ScalingFit) -> Value {
    let k = f.k;
    let rows: Vec<Vec<Value>> = (0..k)
        .map(|r| {
            f.w[r * k..(r + 1) * k]
                .iter()
                .map(|&v| num(Some(v)))
                .collect()
        })
        .collect();
    json!({
        "map": "softmax(W x + b)",
        "input": if f.kind.reads_log_probabilities() { "ln p (clipped to [1e-15, 1 - 1e-15])" } else { "logits z (ln p of probabilities, clipped)" },
        "W": rows,
        "b": f.b.iter().map(|&v| num(Some(v))).collect::<Vec<_>>(),
        "lambda": f.odir.lambda,
        "mu": f.odir.mu,
        "iterations": f.iterations,
        "converged": f.converged,
        "objective": num(Some(f.objective)),
    })
}

/// Dirichlet calibration's cross-validation of ODIR's strength as JSON.
pub fn odir_search_json(s: &calibscope_core::recal::scaling_map::OdirSearch) -> Value {
    json!({
        "folds": s.folds,
        "criterion": "held-out NLL (mean over the calibration rows), lambda = mu",
        "candidates": s.scores.iter().map(|&(v, nll)| json!({"strength": v, "nll": num(Some(nll))})).collect::<Vec<_>>(),
        "chosen": s.chosen,
        "folds_skipped": s.folds_skipped,
    })
}

/// K-fold cross-fitting of histogram binning's bin count as JSON.
pub fn cross_fit_json(cf: &calibscope_core::recal::prob_maps::CrossFit) -> Value {
    json!({
        "folds": cf.folds,
        "criterion": "held-out Brier score of the one-vs-rest probabilities (mean over the calibration rows)",
        "candidates": cf.scores.iter().map(|&(m, b)| json!({"bins": m, "brier": num(Some(b))})).collect::<Vec<_>>(),
        "chosen": cf.chosen,
    })
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
        _ => method
            .prob_map(run)
            .expect("a probability map")
            .map(|p| prob_map_json(p, binary)),
    };
    let mut o = json!({
        "schema": "calibscope-recalibration/1",
        "method": method.name(),
        "version": version,
        "input": {"kind": set.kind().name(), "source": set.source().name(), "n": set.n(), "k": set.k},
        "scores": if Method::MULTICLASS.contains(&method) { "vector and matrix scaling: the logits z (ln p of probabilities, clipped to [1e-15, 1 - 1e-15]); Dirichlet calibration: ln p of the class probabilities, clipped likewise; one map of every class at once" } else if method.prob_map(run).is_some() { if binary { "the probability of class 1, sigma(s) of the binary score s (a probability column read back through its clipped logit)" } else { "the class probabilities softmax(z) (p itself for probability input); one-vs-rest maps then rows renormalised" } } else if binary { "binary score s (logit; logit(u) or ln p_1 - ln p_0 of probabilities, clipped to [1e-15, 1 - 1e-15])" } else { "logits z (ln p of probabilities, clipped to [1e-15, 1 - 1e-15]); one-vs-rest maps then rows renormalised" },
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
