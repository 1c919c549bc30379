//! The Recalibrate view's fitted maps ([`maps_of`]): each method's curves of raw
//! score → recalibrated probability, or a scatter of evaluation rows where no single
//! score map exists.

use calibscope_audit::Method;
use calibscope_core::reading::{self, ProbView};
use calibscope_core::recal::apply::{FitScores, Recalibration, ScoreMap};
use calibscope_core::recal::sigmoid;
use calibscope_core::PredictionSet;

use crate::proto::recal::{FittedMap, MapAxis, MapCurve, PerMethod};

/// Points of each fitted-map curve.
const MAP_POINTS: usize = 201;
/// Classes whose one-vs-rest maps are drawn (multiclass).
const MAP_CLASSES: usize = 10;
/// Evaluation rows drawn in the multiclass scatter maps (evenly spaced).
const MAP_SAMPLES: usize = 400;

/// `n` evenly spaced points from `lo` to `hi`.
fn lin_grid(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| lo + (hi - lo) * i as f64 / (n - 1) as f64)
        .collect()
}

/// The range of `scores` over `rows` (finite values), widened when it is one point.
fn range(scores: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = scores
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo > hi {
        return None;
    }
    Some(if lo == hi {
        (lo - 1.0, hi + 1.0)
    } else {
        (lo, hi)
    })
}

/// Fit `j` (binary: the only one; otherwise class `j`) of Platt or isotonic.
fn fitted_map(run: &Recalibration, method: Method, j: usize) -> Option<&dyn ScoreMap> {
    match method {
        Method::Platt => Some(run.platt.as_ref().ok()?.fits.get(j)?.as_ref()? as &dyn ScoreMap),
        Method::Isotonic => {
            Some(run.isotonic.as_ref().ok()?.fits.get(j)?.as_ref()? as &dyn ScoreMap)
        }
        _ => None,
    }
}

fn curve(class: usize, xs: &[f64], f: impl Fn(f64) -> f64) -> MapCurve {
    MapCurve {
        class,
        points: xs.iter().map(|&x| [x, f(x)]).collect(),
    }
}

/// Evaluation rows (at most [`MAP_SAMPLES`], evenly spaced): the raw top-label
/// confidence against the recalibrated probability of the same class.
fn confidence_scatter(before: &PredictionSet, after: &PredictionSet) -> FittedMap {
    let b = ProbView::new(before).expect("scores");
    let a = ProbView::new(after).expect("scores");
    let top = reading::top_labels(before);
    let n = before.n();
    let step = n.div_ceil(MAP_SAMPLES).max(1);
    let points: Vec<[f64; 2]> = (0..n)
        .step_by(step)
        .map(|i| {
            let r = top.predicted[i] as usize;
            [b.prob(i, r), a.prob(i, r)]
        })
        .collect();
    FittedMap {
        x: MapAxis::Confidence,
        scatter: points,
        ..FittedMap::default()
    }
}

/// The fitted maps drawn in the view: binary input, each method as raw score `s` →
/// recalibrated probability over the calibration scores' range; multiclass, Platt's
/// and isotonic's one-vs-rest maps `z_r → p` of the first classes, and temperature
/// scaling and the multiclass maps (vector, matrix, Dirichlet) as a scatter of
/// evaluation rows ([`confidence_scatter`]: no single score map exists).
pub(super) fn maps_of(run: &Recalibration, scores: &FitScores) -> PerMethod<FittedMap> {
    let cal = &run.split.calibration;
    let mut out = PerMethod::default();
    let curves_of = |x: MapAxis, curves: Vec<MapCurve>| FittedMap {
        x,
        curves,
        ..FittedMap::default()
    };
    match scores {
        FitScores::Binary(s) => {
            let Some((lo, hi)) = range(cal.iter().map(|&i| s[i])) else {
                return out;
            };
            let xs = lin_grid(lo, hi, MAP_POINTS);
            if let Ok(t) = &run.temperature {
                let tau = t.fit.tau;
                out.set(
                    Method::Temperature,
                    curves_of(MapAxis::S, vec![curve(1, &xs, |x| sigmoid(x / tau))]),
                );
            }
            for method in [Method::Platt, Method::Isotonic] {
                if let Some(c) = fitted_map(run, method, 0) {
                    out.set(
                        method,
                        curves_of(MapAxis::S, vec![curve(1, &xs, |x| c.map(x))]),
                    );
                }
            }
        }
        FitScores::Multiclass { k, .. } => {
            // the maps of every class at once have no single score map: a scatter
            // of evaluation rows, raw confidence → recalibrated probability of the
            // same class
            let joint = std::iter::once((
                Method::Temperature,
                run.temperature.as_ref().ok().map(|t| &t.after),
            ))
            .chain(Method::MULTICLASS.into_iter().map(|m| {
                let after = m.prob_map(run).and_then(Result::ok).map(|p| &p.after);
                (m, after)
            }));
            for (method, after) in joint {
                if let Some(after) = after {
                    out.set(method, confidence_scatter(&run.before, after));
                }
            }
            for method in [Method::Platt, Method::Isotonic] {
                let mut curves = Vec::new();
                for r in 0..(*k).min(MAP_CLASSES) {
                    let Some(c) = fitted_map(run, method, r) else {
                        continue;
                    };
                    let z = |i: usize| match scores {
                        FitScores::Multiclass { logits, k } => logits.get(i * k + r),
                        FitScores::Binary(_) => unreachable!(),
                    };
                    if let Some((lo, hi)) = range(cal.iter().map(|&i| z(i))) {
                        curves.push(curve(r, &lin_grid(lo, hi, MAP_POINTS), |x| c.map(x)));
                    }
                }
                if !curves.is_empty() {
                    out.set(
                        method,
                        FittedMap {
                            classes_total: Some(*k),
                            ..curves_of(MapAxis::ZR, curves)
                        },
                    );
                }
            }
        }
    }
    out
}
