//! The recalibration section: split, before/after ledgers on the evaluation split,
//! temperature (fit, trace, invariants), Platt and isotonic (METRICS.md §6), and the
//! probability maps (beta, histogram binning, Venn–Abers) where they were fitted.

use crate::recal_more::{comparison_of, fit_more_methods};
use crate::tasks::{self, SplitAudit, Task};
use crate::Method;
use crate::{num, Sections};
use calibscope_core::audit::{Audit, AuditSettings};
use calibscope_core::binning::Binning;
use calibscope_core::reading::ProbView;
use calibscope_core::recal::apply::{
    fit_maps_on, mark_maps_not_asked, mark_platt_isotonic, recalibrate, recalibrate_temperature,
    temperature_finish, temperature_fit, temperature_start, temperature_top_label_checks,
    MapOutcome, Recalibration, TemperatureOutcome, TemperatureStart, Undefined,
};
use calibscope_core::recal::prob_maps::ProbOutcome;
use calibscope_core::recal::{IsotonicFit, PlattFit};
use calibscope_core::{Kind, PredictionSet};
use serde_json::{json, Map, Value};
use std::sync::OnceLock;

/// Split and fit settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RecalibrationSettings {
    /// SplitMix64 seed of the stratified split.
    pub seed: u64,
    /// Calibration fraction `f`.
    pub fraction: f64,
    /// Fit Platt and isotonic too (`false`: temperature scaling only, the two maps
    /// reported as not asked for).
    pub platt_and_isotonic: bool,
    /// The rows' class positions are different answers (a ragged log, read from the
    /// data, not a choice: records do not hold it): temperature scaling only, Platt
    /// and isotonic undefined ([`Undefined::ClassPositions`]).
    pub class_positions_differ: bool,
    /// The methods fitted beyond temperature scaling, Platt and isotonic (beta,
    /// histogram binning, Venn–Abers, vector, matrix, Dirichlet; in
    /// [`Method::EVERY`] order): with any of them the section also holds the
    /// `comparison` of every set ([`crate::recal_more`]).
    pub more_methods: Vec<Method>,
}

impl RecalibrationSettings {
    /// Whether Platt and isotonic are fitted.
    pub fn fits_maps(&self) -> bool {
        self.platt_and_isotonic && !self.class_positions_differ
    }

    /// The maps of a run that did not fit them: not asked for, or undefined because
    /// the class positions differ.
    pub fn mark_maps_left_out(&self, run: &mut Recalibration) {
        if self.class_positions_differ {
            mark_platt_isotonic(run, Undefined::ClassPositions);
        } else {
            mark_maps_not_asked(run);
        }
    }
}

impl Default for RecalibrationSettings {
    fn default() -> Self {
        RecalibrationSettings {
            seed: 0,
            fraction: 0.5,
            platt_and_isotonic: true,
            class_positions_differ: false,
            more_methods: Vec::new(),
        }
    }
}

/// Largest `n` whose calibration indices are listed in full.
const FULL_INDEX_LIST: usize = 2000;
/// How many calibration indices are listed beyond that.
const INDEX_HEAD: usize = 50;

/// The ledger of one prediction set (the evaluation split before or after a method):
/// the metrics of seed 001's table, extended.
pub fn ledger_json(set: &PredictionSet) -> Value {
    ledger_json_of(&ledger_audit(set))
}

/// The settings of the audit a ledger reads (bins 10 and 15).
fn ledger_settings() -> AuditSettings {
    AuditSettings {
        m_values: vec![10, 15],
        ..AuditSettings::default()
    }
}

/// The audit a ledger reads.
fn ledger_audit(set: &PredictionSet) -> Audit {
    Audit::compute(set, &ledger_settings())
}

/// The one-vs-rest AUC of each class of an audit.
fn class_aucs(audit: &Audit) -> Vec<Option<f64>> {
    audit.classes.iter().map(|c| c.auc).collect()
}

/// [`ledger_json`] of the set `audit` is the [`ledger_audit`] of.
fn ledger_json_of(audit: &Audit) -> Value {
    let conf = |b: Binning, m: usize| audit.confidence.at(b, m).copied();
    let mut o = Map::new();
    o.insert("n".into(), json!(audit.n));
    o.insert("accuracy".into(), num(audit.accuracy));
    o.insert("nll".into(), num(audit.nll));
    o.insert("brier_multiclass".into(), num(audit.brier_multiclass));
    o.insert(
        "brier_over_k".into(),
        num(audit.brier_multiclass.map(|b| b / audit.k as f64)),
    );
    o.insert("l_conf".into(), num(audit.l_conf));
    o.insert(
        "ece_conf_width_10".into(),
        num(conf(Binning::Width, 10).and_then(|t| t.ece)),
    );
    o.insert(
        "mce_conf_width_10".into(),
        num(conf(Binning::Width, 10).and_then(|t| t.mce)),
    );
    o.insert(
        "ece_conf_width_15".into(),
        num(conf(Binning::Width, 15).and_then(|t| t.ece)),
    );
    o.insert(
        "ece_conf_mass_15".into(),
        num(conf(Binning::Mass, 15).and_then(|t| t.ece)),
    );
    o.insert(
        "confce_corr_mass_15".into(),
        num(audit.confce_corr(Binning::Mass, 15)),
    );
    if let Some(positive) = audit.positive() {
        let pos = |b: Binning, m: usize| positive.at(b, m).and_then(|t| t.ece);
        o.insert("brier_positive".into(), num(positive.brier));
        o.insert("ece_pos_width_10".into(), num(pos(Binning::Width, 10)));
        o.insert("ece_pos_width_15".into(), num(pos(Binning::Width, 15)));
        o.insert("auc".into(), num(audit.classes[1].auc));
    } else {
        o.insert(
            "auc_per_class".into(),
            audit.classes.iter().map(|c| num(c.auc)).collect(),
        );
        o.insert("auc_macro".into(), num(audit.auc_macro()));
    }
    let cw15 = audit.classwise(Binning::Width, 15);
    let cw_mass15 = audit.classwise(Binning::Mass, 15);
    o.insert("cwece_width_15".into(), num(cw15.and_then(|c| c.cwece)));
    o.insert(
        "lince_cw_mass_15".into(),
        num(cw_mass15.and_then(|c| c.lince_cw)),
    );
    o.insert("csr".into(), num(audit.risk.csr));
    o.insert("p_risk".into(), num(audit.risk.p_risk));
    o.insert("cwa".into(), num(audit.risk.cwa));
    Value::Object(o)
}

fn split_json(r: &Recalibration, settings: &RecalibrationSettings, n: usize) -> Value {
    let cal = &r.split.calibration;
    let mut o = Map::new();
    o.insert("seed".into(), json!(settings.seed));
    o.insert("f".into(), json!(settings.fraction));
    o.insert("n_cal".into(), json!(cal.len()));
    o.insert("n_eval".into(), json!(r.split.evaluation.len()));
    o.insert(
        "calibration_index_sum".into(),
        json!(cal.iter().map(|&i| i as u64).sum::<u64>()),
    );
    o.insert(
        "calibration_index_sum_squares".into(),
        json!(cal.iter().map(|&i| (i as u64) * (i as u64)).sum::<u64>()),
    );
    if n <= FULL_INDEX_LIST {
        o.insert("calibration_indices".into(), json!(cal));
    } else {
        o.insert(
            "calibration_indices_head".into(),
            json!(cal[..cal.len().min(INDEX_HEAD)]),
        );
    }
    Value::Object(o)
}

fn temperature_json(t: &TemperatureOutcome, kind: Kind, after: Value) -> Value {
    let inv = &t.invariants;
    let mut invariants = Map::new();
    invariants.insert("argmax_identical".into(), json!(inv.argmax_identical));
    invariants.insert("accuracy_identical".into(), json!(inv.accuracy_identical));
    invariants.insert(
        "nll_cal_not_above_tau1".into(),
        json!(inv.nll_cal_not_above_tau1),
    );
    let mut informational = Map::new();
    informational.insert(
        "prob_argsort_identical_per_class".into(),
        json!(inv.prob_argsort_identical_per_class),
    );
    let mut o = Map::new();
    if kind == Kind::Binary {
        invariants.insert(
            "score_order_identical".into(),
            json!(inv.score_order_identical),
        );
        invariants.insert("score_auc_identical".into(), json!(inv.score_auc_identical));
        let (before, after) = inv.score_auc.unwrap_or((None, None));
        o.insert(
            "score_auc".into(),
            json!({"before": num(before), "after": num(after)}),
        );
        informational.insert(
            "prob_auc_change".into(),
            num(inv.prob_auc_change_per_class[1]),
        );
    } else {
        informational.insert(
            "prob_auc_change_per_class".into(),
            inv.prob_auc_change_per_class
                .iter()
                .map(|&v| num(v))
                .collect(),
        );
        informational.insert(
            "prob_auc_macro_change".into(),
            num(inv.prob_auc_macro_change),
        );
    }
    let fit = &t.fit;
    o.insert("tau".into(), json!(fit.tau));
    o.insert("at_bracket_end".into(), json!(fit.at_bracket_end));
    o.insert("nll_cal_tau1".into(), json!(fit.nll_tau1));
    o.insert("nll_cal_tau".into(), json!(fit.nll_tau));
    o.insert(
        "verdict".into(),
        json!(if fit.tau > 1.0 {
            "tau > 1: the raw scores were overconfident"
        } else if fit.tau < 1.0 {
            "tau < 1: the raw scores were underconfident"
        } else {
            "tau = 1: the raw scores were already calibrated in NLL"
        }),
    );
    o.insert(
        "trace".into(),
        fit.trace
            .iter()
            .map(|s| json!({"iteration": s.iteration, "width": s.width, "best_tau": s.best_x, "best_nll": s.best_f}))
            .collect(),
    );
    o.insert("after".into(), after);
    o.insert("invariants".into(), Value::Object(invariants));
    o.insert("informational".into(), Value::Object(informational));
    Value::Object(o)
}

fn undefined(reason: &Undefined) -> Value {
    json!({"undefined": reason.to_string()})
}

fn platt_json(p: &MapOutcome<PlattFit>) -> Value {
    let params: Vec<Value> = p
        .fits
        .iter()
        .map(|f| match f {
            Some(f) => json!({"a": f.a, "b": f.b, "status": f.status.code(), "nll_cal": f.nll_cal}),
            None => Value::Null,
        })
        .collect();
    let mut o = Map::new();
    o.insert("params".into(), json!(params));
    match &p.after {
        Ok(after) => {
            o.insert("after".into(), ledger_json(after));
        }
        Err(reason) => {
            o.insert("undefined".into(), json!(reason.to_string()));
        }
    }
    Value::Object(o)
}

fn isotonic_json(p: &MapOutcome<IsotonicFit>, kind: Kind) -> Value {
    let mut o = Map::new();
    let knots = |f: &Option<IsotonicFit>| f.as_ref().map(|f| f.n_knots());
    if kind == Kind::Binary {
        o.insert("knots".into(), json!(knots(&p.fits[0])));
        o.insert(
            "distinct_values".into(),
            json!(p.fits[0].as_ref().map(|f| f.distinct_values())),
        );
    } else {
        o.insert(
            "knots".into(),
            p.fits.iter().map(|f| json!(knots(f))).collect(),
        );
        o.insert(
            "zero_rows_made_uniform".into(),
            json!(p.zero_rows_made_uniform),
        );
    }
    match &p.after {
        Ok(after) => {
            o.insert("after".into(), ledger_json(after));
        }
        Err(reason) => {
            o.insert("undefined".into(), json!(reason.to_string()));
        }
    }
    Value::Object(o)
}

/// The `recalibration` section of a (non-top-label) prediction set.
pub fn recalibration_json(set: &PredictionSet, settings: &RecalibrationSettings) -> Value {
    let mut r = if settings.fits_maps() {
        recalibrate(set, settings.seed, settings.fraction)
    } else {
        let mut r = recalibrate_temperature(set, settings.seed, settings.fraction);
        settings.mark_maps_left_out(&mut r);
        r
    };
    fit_more_methods(set, settings, &mut r);
    section_json(set, settings, &r)
}

/// The audit of the whole set (`settings`) and its `recalibration` section, their
/// pieces run as a task graph on `sections` ([`crate::tasks`]): the split, the
/// temperature fit (the longest chain on few classes) and its checks; the audit of
/// the whole set; the "before" rows and their ledger; the "after" ledger; Platt and
/// isotonic when asked for. The result is [`Audit::compute`] and
/// [`recalibration_json`], value for value, however the tasks were scheduled.
pub(crate) fn audit_and_recalibration(
    set: &PredictionSet,
    settings: &AuditSettings,
    recal: &RecalibrationSettings,
    sections: Sections,
) -> (Audit, Value) {
    let kind = set.kind();
    let (start, fitted) = (OnceLock::new(), OnceLock::new());
    let (before, before_view) = (OnceLock::new(), OnceLock::new());
    let (after_ledger, checks, maps) = (OnceLock::new(), OnceLock::new(), OnceLock::new());
    fn got<T>(cell: &OnceLock<T>) -> &T {
        cell.get().expect("a task's input")
    }
    // the "before" ledger is made in the passes of the whole set's audit
    let ledger = ledger_settings();
    let audit = SplitAudit::new(set, settings, sections).with_subset(
        || {
            let start: &TemperatureStart = got(&start);
            (&start.split.evaluation[..], got(&before))
        },
        &ledger,
    );
    fn take<T>(cell: OnceLock<T>) -> T {
        cell.into_inner().expect("every task ran")
    }
    // listed longest chain first: a free thread takes the first task that is ready
    const SPLIT: usize = 0;
    const FIT: usize = 1;
    const AUDIT: usize = 2;
    const BEFORE: usize = 3;
    const BEFORE_VIEW: usize = 4;
    let mut graph = vec![
        Task::new(&[], || {
            let _ = start.set(temperature_start(set, recal.seed, recal.fraction));
        }),
        Task::new(&[SPLIT], || {
            let _ = fitted.set(temperature_fit(set, got(&start), None));
        }),
        // the audit of the whole set and of the "before" rows (its ledger): the pass
        // over the rows here, the class readings in ranges after the other tasks (a
        // free core takes a range)
        audit.head(&[SPLIT, BEFORE]),
        Task::new(&[SPLIT], || {
            let _ = before.set(got(&start).before(set));
        }),
        Task::new(&[BEFORE], || {
            let _ = before_view.set(ProbView::new(got(&before)));
        }),
        // the "after" ledger's sorted walks of each class also check that class's
        // order against the "before" scores: no sort of its own for the checks
        Task::new(&[FIT, BEFORE_VIEW], || {
            let _ = after_ledger.set(got(&fitted).after().map(|after| match got(&before_view) {
                Some(view) => Audit::compute_with_orders(after, &ledger, view),
                None => (ledger_audit(after), Vec::new()),
            }));
        }),
        Task::new(&[FIT, BEFORE_VIEW], || {
            let _ = checks.set(got(&before_view).as_ref().and_then(|view| {
                temperature_top_label_checks(set, got(&start), view, got(&fitted))
            }));
        }),
        Task::new(&[SPLIT], || {
            let _ = maps.set(
                recal
                    .fits_maps()
                    .then(|| fit_maps_on(set, &got(&start).split)),
            );
        }),
    ];
    graph.extend(audit.ranges(AUDIT));
    tasks::run(sections, graph);
    drop(before_view);
    let (whole, before_ledger) = audit.finish();
    let before_ledger = before_ledger.expect("asked for");
    let after_ledger = take(after_ledger);
    // the checks' orders come from the "after" ledger's walks, their AUC changes from
    // the ledgers' audits (the same numbers)
    let checks = take(checks).map(|pending| {
        let (after, orders) = after_ledger
            .as_ref()
            .expect("a defined fit has its after set");
        pending
            .with_class_orders(orders.clone())
            .with_aucs(&class_aucs(&before_ledger), &class_aucs(after))
    });
    let after_ledger = after_ledger.map(|(audit, _)| audit);
    let mut r = temperature_finish(take(start), take(before), take(fitted), checks);
    match take(maps) {
        Some(Some((platt, isotonic))) => {
            r.platt = Ok(platt);
            r.isotonic = Ok(isotonic);
        }
        // asked for but undefined: temperature's own reason stays
        Some(None) => {}
        None => recal.mark_maps_left_out(&mut r),
    }
    fit_more_methods(set, recal, &mut r);
    let (platt, isotonic) = sections.join(
        || platt_section(&r.platt),
        || isotonic_section(&r.isotonic, kind),
    );
    let pieces = Pieces {
        before: ledger_json_of(&before_ledger),
        temperature_after: after_ledger.as_ref().map(ledger_json_of),
        platt,
        isotonic,
    };
    (whole, assemble(set, recal, &r, pieces))
}

/// The `recalibration` section of `set` from its recalibration `r` (which must be
/// `recalibrate(set, settings.seed, settings.fraction)`): for callers that keep the
/// run (the web worker's Recalibrate view).
pub fn recalibration_json_of(
    set: &PredictionSet,
    settings: &RecalibrationSettings,
    r: &Recalibration,
) -> Value {
    section_json(set, settings, r)
}

/// The parts of a `recalibration` section that take an audit each.
struct Pieces {
    before: Value,
    temperature_after: Option<Value>,
    platt: Value,
    isotonic: Value,
}

fn section_json(set: &PredictionSet, settings: &RecalibrationSettings, r: &Recalibration) -> Value {
    let pieces = Pieces {
        before: ledger_json(&r.before),
        temperature_after: r.temperature.as_ref().ok().map(|t| ledger_json(&t.after)),
        platt: platt_section(&r.platt),
        isotonic: isotonic_section(&r.isotonic, set.kind()),
    };
    assemble(set, settings, r, pieces)
}

fn platt_section(platt: &Result<MapOutcome<PlattFit>, Undefined>) -> Value {
    match platt {
        Ok(p) => platt_json(p),
        Err(reason) => json!({"params": null, "undefined": reason.to_string()}),
    }
}

fn isotonic_section(isotonic: &Result<MapOutcome<IsotonicFit>, Undefined>, kind: Kind) -> Value {
    match isotonic {
        Ok(p) => isotonic_json(p, kind),
        Err(reason) => undefined(reason),
    }
}

/// A probability map's entry: its evaluation ledger (`after`), histogram binning's
/// bin count with its cross-fitting when chosen so, and a multiclass map's L-BFGS
/// run (`l_bfgs`: iterations, converged, final objective) and ODIR search.
fn prob_map_section(p: &ProbOutcome) -> Value {
    let mut o = Map::new();
    if let Some(m) = p.bins {
        o.insert("bins".into(), json!(m));
    }
    if let Some(cf) = &p.cross_fit {
        o.insert("cross_fit".into(), crate::cross_fit_json(cf));
    }
    if let Some(search) = &p.odir_search {
        o.insert("odir_search".into(), crate::odir_search_json(search));
    }
    if let Some(f) = &p.scaling {
        o.insert(
            "l_bfgs".into(),
            json!({"iterations": f.iterations, "converged": f.converged, "objective": num(Some(f.objective))}),
        );
    }
    if p.zero_rows_made_uniform > 0 {
        o.insert(
            "zero_rows_made_uniform".into(),
            json!(p.zero_rows_made_uniform),
        );
    }
    o.insert("after".into(), ledger_json(&p.after));
    Value::Object(o)
}

fn assemble(
    set: &PredictionSet,
    settings: &RecalibrationSettings,
    r: &Recalibration,
    pieces: Pieces,
) -> Value {
    let temperature = match (&r.temperature, pieces.temperature_after) {
        (Ok(t), Some(after)) => temperature_json(t, set.kind(), after),
        (Err(reason), _) => json!({"tau": null, "undefined": reason.to_string()}),
        (Ok(_), None) => unreachable!("a defined fit has its after ledger"),
    };
    let mut o = Map::new();
    o.insert("split".into(), split_json(r, settings, set.n()));
    o.insert("before".into(), pieces.before);
    o.insert("temperature".into(), temperature);
    o.insert("platt".into(), pieces.platt);
    o.insert("isotonic".into(), pieces.isotonic);
    // the probability maps, where they were fitted (the web page's Recalibrate
    // view; an audit asked for them, `more_methods`)
    for (key, outcome) in [
        ("beta", &r.beta),
        ("histogram", &r.histogram),
        ("venn_abers", &r.venn_abers),
        ("vector", &r.vector),
        ("matrix", &r.matrix),
        ("dirichlet", &r.dirichlet),
    ] {
        match outcome {
            Err(Undefined::NotComputed | Undefined::NotAsked) => {}
            Ok(p) => {
                o.insert(key.into(), prob_map_section(p));
            }
            Err(reason) => {
                o.insert(key.into(), undefined(reason));
            }
        }
    }
    if !settings.more_methods.is_empty() {
        if let Some(c) = comparison_of(r) {
            o.insert("comparison".into(), c);
        }
    }
    if r.exact_zero_one_probabilities {
        o.insert(
            "warnings".into(),
            json!(["probability input holds exact 0s or 1s: their logits are the clip value ln(1e-15), so temperature scaling of these rows is ill-posed"]),
        );
    }
    Value::Object(o)
}

#[cfg(test)]
#[path = "recalibration_tests.rs"]
mod tests;
