//! The worker's side of the Recalibrate view: split and fit (calibscope-core's
//! `recalibrate`), the audit JSON's `recalibration` section (calibscope-audit, the
//! same as the CLI's and the fixtures'), what the view draws (class counts, the tau
//! curve, probability checks, fitted maps), the before/after reliability tables at
//! the slider's bins, and the two files (shared with `calibscope recalibrate`).

use calibscope_audit::comparison_of;
use calibscope_audit::ledger::{Ledger, LedgerCell, LedgerLine};
use calibscope_audit::{
    evaluation_after, fitted_params_json, recalibrate_rows_with_intervals, recalibrated_csv,
    recalibration_json_of, Method, RecalibrationSettings,
};
use calibscope_core::binning::Binning;
use calibscope_core::reading::{self, ProbView};
use calibscope_core::recal::apply::{
    fit_isotonic_on, fit_platt_on, mark_platt_isotonic, recalibrate_temperature_clocked, FitScores,
    Recalibration, Undefined,
};
use calibscope_core::recal::checks::prob_checks;
use calibscope_core::recal::prob_maps::{fit_prob_map, Bins, DEFAULT_FOLDS};
use calibscope_core::recal::{BinaryNll, MulticlassNll, TemperatureObjective};
use calibscope_core::reliability::{IntervalCache, DEFAULT_ALPHA};
use calibscope_core::{Kind, PredictionSet, Scores, Source, Values};

use super::{table, worker_error, Indexed, Session, M_SLIDER_MAX};
use crate::proto::recal::{Checks, ClassCounts, PerMethod, RecalView, Timing};
use crate::proto::{codes, FromWorker, Reading, RecalTable};

/// Points of the tau curve (log-spaced over the golden-section bracket).
pub const TAU_CURVE_POINTS: usize = 61;

thread_local! {
    /// A millisecond clock for the answers' `timing` (the worker installs
    /// `performance.now()`; none natively).
    static CLOCK: std::cell::Cell<Option<fn() -> f64>> = const { std::cell::Cell::new(None) };
}

/// Installs the clock of the answers' `view.timing` (milliseconds).
pub fn set_clock(now: fn() -> f64) {
    CLOCK.with(|c| c.set(Some(now)));
}

fn clock() -> Option<f64> {
    CLOCK.with(|c| c.get()).map(|now| now())
}

/// Milliseconds since `start` (`None` without a clock).
fn since(start: Option<f64>) -> Option<f64> {
    Some(clock()? - start?)
}

/// The worker's temperature fit ([`recalibrate_temperature_clocked`], the very
/// function a request runs) on small synthetic sets — 24-class `f32` logits, 10-class
/// probabilities, binary probabilities — run once by the worker while it is idle after
/// the first file: browsers run a wasm function's first calls in a baseline compiler
/// and switch to optimised code only for later calls, so without this the user's first
/// fit would run its kernels (screening, windows, series) unoptimised. Deterministic;
/// returns the fitted taus (so that nothing is optimised away).
pub fn warm_up() -> [f64; 3] {
    warm_up_sets().map(|set| warm_up_fit(&set))
}

/// One of [`warm_up`]'s fits (the worker runs them as separate tasks, so that a
/// request arriving meanwhile waits for one fit only, ~20–60 ms).
pub fn warm_up_fit(set: &PredictionSet) -> f64 {
    let (run, _) = recalibrate_temperature_clocked(set, 0, 0.5, None);
    run.temperature.map_or(f64::NAN, |t| t.fit.tau)
}

/// [`warm_up`]'s data sets: 24-class logits, 10-class probabilities, binary
/// probabilities.
pub fn warm_up_sets() -> [PredictionSet; 3] {
    let n = WARM_UP_ROWS;
    // a scrambled grid in [0, 1)
    let grid = |i: usize| ((i as u64 * 2_654_435_761) % 1_000) as f64 / 1_000.0;
    // the label: the row's top class in 3 rows of 4
    let labels = |k: usize, value: &dyn Fn(usize) -> f64| -> Vec<u32> {
        (0..n)
            .map(|i| {
                let top = (0..k).fold(0, |a, j| {
                    if value(i * k + j) > value(i * k + a) {
                        j
                    } else {
                        a
                    }
                });
                (if i % 4 == 0 { i % k } else { top }) as u32
            })
            .collect()
    };
    let logits = |i: usize| 10.0 * grid(i) - 5.0;
    let logit_set = PredictionSet {
        labels: labels(24, &logits),
        scores: Scores::Matrix {
            values: Values::F32((0..n * 24).map(|i| logits(i) as f32).collect()),
            k: 24,
            source: Source::Logits,
        },
        k: 24,
    };
    let mut probs: Vec<f64> = (0..n * 10).map(|i| 0.05 + grid(i)).collect();
    for row in probs.chunks_mut(10) {
        let total: f64 = row.iter().sum();
        row.iter_mut().for_each(|p| *p /= total);
    }
    let prob_set = PredictionSet {
        labels: labels(10, &|i| probs[i]),
        scores: Scores::Matrix {
            values: Values::F64(probs.clone()),
            k: 10,
            source: Source::Probs,
        },
        k: 10,
    };
    // binary samples are cheap: more of them, for the kernels to run long enough
    let column: Vec<f64> = (0..20 * n).map(|i| 0.02 + 0.96 * grid(i)).collect();
    let binary_set = PredictionSet {
        labels: (0..20 * n)
            .map(|i| u32::from((column[i] > 0.5) ^ (i % 5 == 0)))
            .collect(),
        scores: Scores::Column {
            values: Values::F64(column),
            source: Source::Probs,
        },
        k: 2,
    };
    [logit_set, prob_set, binary_set]
}

/// Rows of [`warm_up`]'s multiclass sets (its binary set has 20 times as many).
const WARM_UP_ROWS: usize = 3_000;

/// A set's sorted reading and its accuracy (for ConfCE^corr).
type IndexedSet = (Indexed, Option<f64>);

/// A recalibration kept for the view's tables and files.
pub struct RecalState {
    model: usize,
    /// The generation of the request that made it.
    gen: u64,
    settings: RecalibrationSettings,
    run: Recalibration,
    /// The reading of the tables: positive (binary) or confidence.
    reading: Reading,
    /// Per set (`before`, then each method): its sorted reading, or why undefined.
    indexed: Vec<(&'static str, Result<IndexedSet, String>)>,
    /// Each method's probability checks, as computed.
    checks: PerMethod<Checks>,
    /// The tau curve (`[[tau, nll], ...]`).
    tau_curve: Vec<[f64; 2]>,
    /// Worker milliseconds of the parts (`view.timing`).
    timing: Timing,
    /// Each method's fit, in worker milliseconds (`view.fit_ms`).
    fit_ms: PerMethod<f64>,
    /// The section's `comparison` (after the second part).
    comparison: Option<serde_json::Value>,
}

fn index_of(set: &PredictionSet, positive: bool) -> IndexedSet {
    let top = reading::top_labels(set);
    let accuracy = calibscope_core::truthful::accuracy(&top);
    let pairs = if positive {
        reading::class_pairs(&ProbView::new(set).expect("scores"), 1)
    } else {
        top.pairs()
    };
    (Indexed::new(&pairs), accuracy)
}

/// `n` log-spaced points from `lo` to `hi` (both included).
fn log_grid(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let (a, b) = (lo.ln(), hi.ln());
    (0..n)
        .map(|i| (a + (b - a) * i as f64 / (n - 1) as f64).exp())
        .collect()
}

/// The calibration NLL at [`TAU_CURVE_POINTS`] log-spaced `tau` in `[0.05, 20]`
/// (`[[tau, nll], ...]`; empty when the split is).
pub fn tau_curve(scores: &FitScores, labels: &[u32], calibration: &[usize]) -> Vec<[f64; 2]> {
    let taus = log_grid(0.05, 20.0, TAU_CURVE_POINTS);
    let mut out = vec![f64::NAN; taus.len()];
    let done = match scores {
        FitScores::Binary(s) => BinaryNll::new(s, labels, Some(calibration))
            .map(|o| o.nll_many(&taus, &mut out))
            .is_some(),
        FitScores::Multiclass { logits, k } => calibscope_core::with_values!(logits, |z| {
            MulticlassNll::new(z, *k, labels, Some(calibration))
                .map(|o| o.nll_many(&taus, &mut out))
                .is_some()
        }),
    };
    if !done {
        return Vec::new();
    }
    taus.into_iter().zip(out).map(|(t, v)| [t, v]).collect()
}

/// Platt, isotonic and the probability maps fitted on `run`'s calibration split,
/// each timed into `ms` (histogram binning's bin count by 5-fold cross-fitting).
fn fit_maps_timed(set: &PredictionSet, run: &mut Recalibration, ms: &mut PerMethod<f64>) {
    let timed = |f: &mut dyn FnMut()| {
        let t = clock();
        f();
        since(t)
    };
    if let Some(t) = timed(&mut || {
        if let Some(p) = fit_platt_on(set, &run.split) {
            run.platt = Ok(p);
        }
    }) {
        ms.set(Method::Platt, t);
    }
    if let Some(t) = timed(&mut || {
        if let Some(p) = fit_isotonic_on(set, &run.split) {
            run.isotonic = Ok(p);
        }
    }) {
        ms.set(Method::Isotonic, t);
    }
    let cross_fit = Bins::CrossFit {
        folds: DEFAULT_FOLDS,
    };
    for method in Method::PROB_MAPS {
        let kind = method.prob_method().expect("a probability map");
        let t =
            timed(&mut || *run.prob_map_mut(kind) = fit_prob_map(set, &run.split, kind, cross_fit));
        if let Some(t) = t {
            ms.set(method, t);
        }
    }
}

/// The second part's fits ([`fit_maps_timed`]; for a ragged log none: every map
/// but temperature scaling is [`Undefined::ClassPositions`]) and the comparison of
/// every set ([`calibscope_audit::comparison_of`]).
fn fit_rest(set: &PredictionSet, state: &mut RecalState) {
    let run = &mut state.run;
    let mut ms = PerMethod::default();
    if state.settings.class_positions_differ {
        // a ragged log: every map but temperature scaling reads class positions
        mark_platt_isotonic(run, Undefined::ClassPositions);
        for map in [&mut run.beta, &mut run.histogram, &mut run.venn_abers] {
            *map = Err(Undefined::ClassPositions);
        }
    } else {
        fit_maps_timed(set, run, &mut ms);
    }
    state.comparison = comparison_of(run);
    if let Some(t) = state.timing.fit_ms {
        ms.set(Method::Temperature, t);
    }
    state.fit_ms = ms;
}

/// The calibration and evaluation counts of each class.
fn class_counts(set: &PredictionSet, run: &Recalibration) -> ClassCounts {
    let count = |rows: &[usize]| {
        let mut c = vec![0usize; set.k];
        for &i in rows {
            if let Some(v) = c.get_mut(set.labels[i] as usize) {
                *v += 1;
            }
        }
        c
    };
    ClassCounts {
        calibration: count(&run.split.calibration),
        evaluation: count(&run.split.evaluation),
    }
}

/// The section's ledger ([`calibscope_audit::ledger::ledger`]) with a last line: each
/// method's fit time in worker milliseconds (path `<method>.fit_ms`; none for
/// `before`, nothing is fitted).
fn ledger_with_times(section: &serde_json::Value, binary: bool, ms: &PerMethod<f64>) -> Ledger {
    let mut l = calibscope_audit::ledger::ledger(section, binary);
    let cells = l
        .sets
        .iter()
        .map(|set| LedgerCell {
            path: format!("{}.fit_ms", set.key),
            value: Method::from_name(&set.key).and_then(|m| ms.get(m).copied()),
            worse: false,
        })
        .collect();
    l.lines.push(LedgerLine {
        key: "fit_ms".into(),
        label: "fit time (ms, this browser)".into(),
        help: "fit_ms".into(),
        can_tau: "—".into(),
        cells,
    });
    l
}

impl Session {
    /// Answers a [`crate::proto::ToWorker::Recalibrate`].
    pub fn recalibrate(
        &mut self,
        id: u64,
        gen: u64,
        model: usize,
        seed: u64,
        fraction: f64,
    ) -> FromWorker {
        let bad = |msg: String| worker_error(id, codes::BAD_PARAMETERS, msg);
        if !(fraction > 0.0 && fraction < 1.0) {
            return bad(format!(
                "the calibration fraction must lie strictly between 0 and 1 (got {fraction})"
            ));
        }
        let Some(md) = self.models.get(model) else {
            return bad(format!("no model {model}"));
        };
        let set = &md.set;
        let Some(scores) = FitScores::of(set) else {
            return bad(
                "top-label input (predicted class + confidence) has no scores to recalibrate; give probabilities or logits"
                    .into(),
            );
        };
        let settings = RecalibrationSettings {
            seed,
            fraction,
            platt_and_isotonic: true,
            class_positions_differ: self.dataset.detection.ragged.is_some(),
            // the view fits them in parts, and adds its comparison itself
            more_methods: Vec::new(),
        };
        let start = clock();
        let now = CLOCK.with(|c| c.get());
        let (run, fit_ms) = recalibrate_temperature_clocked(set, seed, fraction, now);
        let part_ms = since(start);
        let binary = set.kind() == Kind::Binary;
        let state = RecalState {
            model,
            gen,
            settings,
            run,
            reading: if binary {
                Reading::Positive
            } else {
                Reading::Confidence
            },
            indexed: Vec::new(),
            checks: PerMethod::default(),
            tau_curve: tau_curve(&scores, &set.labels, &[]),
            timing: Timing {
                fit_ms,
                temperature_ms: part_ms,
                ..Timing::default()
            },
            fit_ms: PerMethod::default(),
            comparison: None,
        };
        let mut state = state;
        let settings_ragged = state.settings.class_positions_differ;
        if state.run.platt != Err(Undefined::NotComputed) || settings_ragged {
            // nothing for a second part (temperature scaling is undefined here, or
            // the only map of a ragged log): the other maps say why they are
            // undefined in this one answer
            fit_rest(set, &mut state);
        }
        self.recal_answer(id, state, scores, start)
    }

    /// The second part of a [`crate::proto::ToWorker::Recalibrate`] answer: Platt and
    /// isotonic fitted and measured (the first part answers with temperature scaling
    /// alone). [`FromWorker::Cancelled`] when a newer fit (or another data set) came
    /// in between, or nothing is left to fit.
    pub fn recalibrate_maps(&mut self, id: u64, gen: u64) -> FromWorker {
        let Some(mut state) = self
            .recal
            .take_if(|s| s.gen == gen && s.run.platt == Err(Undefined::NotComputed))
        else {
            return FromWorker::Cancelled { id };
        };
        let set = &self.models[state.model].set;
        let scores = FitScores::of(set).expect("checked by the first part");
        let start = clock();
        fit_rest(set, &mut state);
        state.timing.maps_ms = since(start);
        self.recal_answer(id, state, scores, start)
    }

    /// Builds the answer of `state` (keeping what an earlier part computed) and keeps
    /// the state for the tables and files.
    fn recal_answer(
        &mut self,
        id: u64,
        mut state: RecalState,
        scores: FitScores,
        start: Option<f64>,
    ) -> FromWorker {
        let set = &self.models[state.model].set;
        let run = &state.run;
        let binary = set.kind() == Kind::Binary;
        let mut section = recalibration_json_of(set, &state.settings, run);
        if let Some(c) = &state.comparison {
            section["comparison"] = c.clone();
        }
        if let Some(r) = &self.dataset.detection.ragged {
            // as the audit's section: no value that reads a class position
            calibscope_audit::ragged::mark(&mut section, r);
        }
        if state.indexed.is_empty() {
            state
                .indexed
                .push(("before", Ok(index_of(&run.before, binary))));
            state.tau_curve = tau_curve(&scores, &set.labels, &run.split.calibration);
        }
        for method in Method::EVERY {
            let name = method.name();
            let done = state.indexed.iter().any(|(n, ix)| *n == name && ix.is_ok());
            let asked = !matches!(
                method.prob_map(run),
                Some(Err(Undefined::NotComputed | Undefined::NotAsked))
            ) || Method::ALL.contains(&method);
            if done || !asked {
                continue;
            }
            state.indexed.retain(|(n, _)| *n != name);
            let after = evaluation_after(run, method);
            let checks = match (&run.temperature, &after) {
                (Ok(t), _) if method == Method::Temperature => {
                    Some(Checks::from(&t.invariants.checks))
                }
                (_, Ok(after)) => Some(Checks::from(&prob_checks(&run.before, after))),
                _ => None,
            };
            if let Some(c) = checks {
                state.checks.set(method, c);
            }
            state.indexed.push((
                name,
                after
                    .map(|a| index_of(a, binary))
                    .map_err(|e| e.to_string()),
            ));
        }
        let complete = run.platt != Err(Undefined::NotComputed);
        if complete {
            // the first complete answer's (the multiclass maps' answer keeps it)
            state.timing.full_ms = state.timing.full_ms.or_else(|| since(start));
        } else {
            state.timing.first_ms = since(start);
        }
        let left_out = state
            .settings
            .class_positions_differ
            .then(|| Undefined::ClassPositions.to_string());
        let mut ledger = ledger_with_times(&section, binary, &state.fit_ms);
        if let Some(why) = &left_out {
            ledger = ledger.without_sets_undefined_for(why);
        }
        let view = RecalView {
            timing: state.timing,
            class_counts: class_counts(set, run),
            class_names: self.dataset.class_names.clone(),
            tau_curve: state.tau_curve.clone(),
            checks: state.checks.clone(),
            maps: maps_of(run, &scores),
            ledger,
            fit_ms: state.fit_ms.clone(),
            left_out,
        };
        let answer = FromWorker::Recalibrated {
            id,
            gen: state.gen,
            model: state.model,
            seed: state.settings.seed,
            fraction: state.settings.fraction,
            complete,
            section,
            view,
        };
        self.recal = Some(state);
        answer
    }

    /// Answers a [`crate::proto::ToWorker::RecalTables`].
    pub fn recal_tables(&self, id: u64, gen: u64, binning: Binning, m: usize) -> FromWorker {
        let Some(state) = &self.recal else {
            return worker_error(id, codes::NO_DATASET, "nothing was recalibrated yet");
        };
        if m == 0 || m > M_SLIDER_MAX {
            return worker_error(
                id,
                codes::BAD_PARAMETERS,
                format!("bin count {m} is outside 1..{M_SLIDER_MAX}"),
            );
        }
        let n = state.run.split.evaluation.len();
        let mut intervals = IntervalCache::new(DEFAULT_ALPHA);
        let tables = state
            .indexed
            .iter()
            .map(|(name, ix)| match ix {
                Ok((index, accuracy)) => {
                    let conf = (state.reading == Reading::Confidence).then_some(*accuracy);
                    let (rows, metrics, nonempty_bins) =
                        table(index, binning, m, n, conf, &mut intervals);
                    RecalTable {
                        set: name.to_string(),
                        rows,
                        metrics,
                        nonempty_bins,
                        undefined: None,
                    }
                }
                Err(why) => RecalTable {
                    set: name.to_string(),
                    undefined: Some(why.clone()),
                    ..RecalTable::default()
                },
            })
            .collect();
        FromWorker::RecalTables {
            id,
            gen,
            binning,
            m,
            reading: state.reading,
            tables,
        }
    }

    /// Answers a [`crate::proto::ToWorker::RecalExport`]: the files `calibscope
    /// recalibrate --out --params` writes for the same input, split and method.
    pub fn recal_export(&self, id: u64, method: Method, version: &str) -> FromWorker {
        let Some(state) = &self.recal else {
            return worker_error(id, codes::NO_DATASET, "nothing was recalibrated yet");
        };
        let md = &self.models[state.model];
        let (all, intervals) = match recalibrate_rows_with_intervals(&md.set, &state.run, method) {
            Ok(all) => all,
            Err(why) => {
                return worker_error(
                    id,
                    codes::BAD_PARAMETERS,
                    format!("{} is undefined: {why}", method.name()),
                )
            }
        };
        let csv = recalibrated_csv(
            &all,
            self.dataset.ids.as_ref(),
            &self.dataset.class_names,
            &state.run.split.calibration,
            intervals.as_deref(),
        );
        let params = fitted_params_json(&md.set, &state.run, method, &state.settings, version);
        let stem = if self.models.len() > 1 {
            format!("{}_{}", md.name, method.name())
        } else {
            format!("{}_{}", self.dataset.name, method.name())
        };
        FromWorker::RecalExport {
            id,
            method,
            stem,
            csv,
            params: serde_json::to_string_pretty(&params).expect("JSON of a Value") + "\n",
        }
    }
}

mod maps;
use maps::maps_of;
mod multiclass;
pub use multiclass::MulticlassJob;

#[cfg(test)]
mod tests;
