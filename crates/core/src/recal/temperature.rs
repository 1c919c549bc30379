//! Temperature scaling (METRICS.md §6): the calibration-split NLL as a function of
//! `tau` and its golden-section fit.
//!
//! Both objectives are prepared once from the calibration rows (no `n x k` copy: the
//! multiclass one keeps a reference to the logit matrix, in its stored precision, plus
//! a row maximum and argmax per row) and then evaluated at any `tau` by the
//! vectorised kernels of [`super::kernel`], in `f64` with compensated sums across rows:
//!
//! - binary, `t_i = -y±_i s_i`: `NLL(tau) = (1/n) [ (sum_i max(t_i, 0)) / tau +
//!   sum_i ln(1 + exp(-|t_i| / tau)) ]`, which is `mean softplus(-y± s / tau)` with the
//!   positive parts summed once;
//! - multiclass, `m_i = max_j z_ij`, `a_i` its first index:
//!   `NLL(tau) = (1/n) [ (sum_i (m_i - z_{i,y_i})) / tau + sum_i ln(1 +
//!   sum_{j != a_i} exp((z_ij - m_i) / tau)) ]`, which is
//!   `mean(logsumexp(z_i / tau) - z_{i,y_i} / tau)`: both parts are non-negative, so
//!   nothing cancels.
//!
//! Each term is within ~2 ulp of its exact value, so the NLL is accurate to ~1e-16
//! relative, far inside the fixtures' `nll_cal_tau_tolerance` and `tau_tolerance`.
//!
//! **Speed.** The contract's search asks for up to 160 NLL values (80 iterations, both
//! probes recomputed; a probe equal bit for bit to an earlier one is not re-evaluated,
//! which leaves ~110). Three things keep the passes over the data few:
//!
//! - *Screening* (`screen.rs`, [`TemperatureOptions::screening`]): while the bracket is
//!   wide, both probes are evaluated in one `f32` pass (twice the SIMD lanes, a
//!   degree-5 `exp2`) with a rigorous bound on the error; a comparison whose intervals
//!   are disjoint is decided by them, which is the exact kernel's decision.
//! - *Expansion* ([`TemperatureOptions::expansion`], `taylor.rs`): once the bracket is
//!   narrow enough (relative to the largest row range of the logits, or to the binary
//!   scores), every later probe comes from a local series built in one pass (per-row
//!   moments, then, narrower, one series for the whole sum: O(1) per probe).
//! - The trace keeps every tenth iteration (as the seed chapter prints them), so at
//!   most the best probe of iteration 10 needs an exact pass of its own; the NLL at
//!   `tau = 1` rides along in any single-probe direct pass (or takes one at the end).
//!
//! Outcome, trace and reported NLLs are exact evaluations (`f64`, ~1e-16 relative),
//! whatever the path. Single-threaded on the development machine (thread CPU time, see
//! `benches/temperature.rs`), the calibration half of 100k x 100 f32 logits fits in
//! ~0.13 s natively and ~0.23 s as wasm in V8 (`node bench/wasm_core.mjs`); 1M binary
//! scores (half) ~0.03 s / ~0.06 s.

use super::golden::{golden_contract, golden_reuse, Evaluator, GoldenStep};
use super::kernel::{self, RowStats, LOG2_E};
use super::screen;
use super::taylor::{binary_window, multiclass_window, NoWindow, Window};
use super::BinaryLabel;
use crate::data::{Real, Values};
use crate::sum::Sum;

mod nll;

pub use nll::{BinaryNll, MulticlassNll};

/// Lower end of the contract's bracket for `tau`.
pub const TAU_LO: f64 = 0.05;
/// Upper end of the contract's bracket for `tau`.
pub const TAU_HI: f64 = 20.0;
/// The contract's number of golden-section iterations.
pub const TAU_ITERATIONS: usize = 80;

/// How the golden-section search runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GoldenProcedure {
    /// The contract's procedure: both probes recomputed each iteration (the default,
    /// 80 iterations).
    Contract {
        /// Number of iterations (80 in the contract).
        iterations: usize,
    },
    /// The surviving probe reused, stop at width `<= rel_width x midpoint` (accepted
    /// by the fixtures README with `rel_width = 1e-9`): about 45 NLL evaluations
    /// instead of up to 160.
    ReuseProbe {
        /// Stop once the bracket width is at most this times its midpoint.
        rel_width: f64,
        /// Iteration cap.
        max_iterations: usize,
    },
}

impl GoldenProcedure {
    /// The fixtures README's alternative: `rel_width = 1e-9`, at most 200 iterations.
    pub const REUSE_1E9: GoldenProcedure = GoldenProcedure::ReuseProbe {
        rel_width: 1e-9,
        max_iterations: 200,
    };
}

/// Options of a temperature fit. `Default` is the contract: `[0.05, 20]`, 80
/// iterations of the contract's golden-section procedure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TemperatureOptions {
    /// Bracket for `tau`.
    pub lo: f64,
    /// Bracket for `tau`.
    pub hi: f64,
    /// The search procedure.
    pub procedure: GoldenProcedure,
    /// Once the bracket is narrow, evaluate the NLL through a local series expansion
    /// around the bracket (exact to ~1e-16 like the direct sum, see the module docs);
    /// `false`: every probe by the direct kernel. Same procedure either way.
    pub expansion: bool,
    /// Before the expansion applies, decide comparisons on `f32` values with a
    /// rigorous error bound when their intervals are disjoint (`screen.rs`), and
    /// evaluate exactly only the others and the trace's best probes. Same decisions,
    /// trace and result as without.
    pub screening: bool,
}

impl Default for TemperatureOptions {
    fn default() -> Self {
        TemperatureOptions {
            lo: TAU_LO,
            hi: TAU_HI,
            procedure: GoldenProcedure::Contract {
                iterations: TAU_ITERATIONS,
            },
            expansion: true,
            screening: true,
        }
    }
}

/// The temperature fit's trace holds every `TRACE_EVERY`-th iteration (the seed
/// chapter prints iterations 10, 20, ...).
pub const TRACE_EVERY: usize = 10;

/// A fitted temperature.
#[derive(Clone, Debug, PartialEq)]
pub struct TemperatureFit {
    /// The midpoint of the final bracket.
    pub tau: f64,
    /// Calibration-split NLL at `tau = 1`.
    pub nll_tau1: f64,
    /// Calibration-split NLL at `tau`.
    pub nll_tau: f64,
    /// `tau` within 1e-6 of either end of the bracket.
    pub at_bracket_end: bool,
    /// Iterations 10, 20, ... ([`TRACE_EVERY`]; with [`GoldenProcedure::ReuseProbe`],
    /// every iteration): bracket, width, best probe and its exact NLL so far (the
    /// seed chapter prints iterations 10, 20, ...: width and best NLL).
    pub trace: Vec<GoldenStep>,
    /// Exact NLL evaluations of the search (probes repeated bit for bit are evaluated
    /// once), not counting the two of `nll_tau1` and `nll_tau`.
    pub evaluations: usize,
    /// Screened (`f32`, bounded) evaluations that decided a comparison on their own.
    pub screened_evaluations: usize,
    /// How many of `evaluations` came from the local expansion (no pass over the data).
    pub expansion_evaluations: usize,
    /// Number of calibration rows.
    pub n: usize,
}

/// A calibration-split NLL as a function of `tau`.
pub trait TemperatureObjective {
    /// Number of calibration rows (at least 1).
    fn len(&self) -> usize;

    /// Never true: an objective is only built from a non-empty calibration split.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `out[i] = NLL(taus[i])` (direct kernel). Non-positive or non-finite `tau` gives
    /// NaN. Panics when the lengths differ.
    fn nll_many(&self, taus: &[f64], out: &mut [f64]);

    /// `NLL(tau)`; NaN for a non-positive or non-finite `tau`.
    fn nll(&self, tau: f64) -> f64 {
        let mut out = [0.0];
        self.nll_many(&[tau], &mut out);
        out[0]
    }

    /// Fits `tau` by minimising the NLL with golden-section search (`options`; the
    /// default is the contract's), and evaluates the NLL (direct kernel) at 1 and at the
    /// fitted `tau`.
    fn fit(&self, options: &TemperatureOptions) -> TemperatureFit;
}

/// What the fit needs from an objective besides the public methods.
trait Inner {
    fn n(&self) -> usize;
    /// The direct kernel's log part of `n NLL` at each (valid) `tau`, two per pass.
    fn log_sums(&self, taus: &[f64], out: &mut [f64]);
    /// `NLL(tau)` from its log part.
    fn finish(&self, tau: f64, log_sum: f64) -> f64;
    /// A local expansion valid for `beta` in `[beta_lo, beta_hi]`.
    fn window(&self, beta_lo: f64, beta_hi: f64, nll_estimate: f64) -> Result<Window, NoWindow>;
    /// A bound on `|dNLL/dbeta|` (`beta = 1/tau`) over every `beta > 0`.
    fn lipschitz_beta(&self) -> f64;
    /// Screened log parts `(value, bound)` of one or two `tau`s (`screen.rs`); `false`
    /// when this objective has no screening kernel.
    fn screen_log_sums(&self, _taus: &[f64], _out: &mut [(f64, f64)]) -> bool {
        false
    }
}

fn nll_direct(obj: &impl Inner, taus: &[f64], out: &mut [f64]) {
    assert_eq!(taus.len(), out.len());
    let mut i = 0;
    while i < taus.len() {
        if !valid_tau(taus[i]) {
            out[i] = f64::NAN;
            i += 1;
            continue;
        }
        let two = i + 1 < taus.len() && valid_tau(taus[i + 1]);
        let m = if two { 2 } else { 1 };
        obj.log_sums(&taus[i..i + m], &mut out[i..i + m]);
        for j in i..i + m {
            out[j] = obj.finish(taus[j], out[j]);
        }
        i += m;
    }
}

/// The golden-section evaluator: direct kernel, then the expansion once it applies.
struct Eval<'a, O> {
    obj: &'a O,
    enabled: bool,
    window: Option<Window>,
    never: bool,
    retry_below: f64,
    expansion_evaluations: usize,
    screening: bool,
    /// The NLL at `tau = 1`, once a direct pass computed it alongside a probe.
    nll_tau1: Option<f64>,
}

impl<O: Inner> Eval<'_, O> {
    /// The direct kernel; a pass for one `tau` also computes the NLL at `tau = 1`
    /// (which the fit reports) when it is not known yet: a second `tau` in the same
    /// pass costs far less than a pass of its own, and gives the same bits (the lanes
    /// of the kernel are independent).
    fn direct(&mut self, xs: &[f64], out: &mut [f64]) {
        if xs.len() == 1 && self.nll_tau1.is_none() && xs[0] != 1.0 {
            let mut two = [0.0; 2];
            nll_direct(self.obj, &[xs[0], 1.0], &mut two);
            out[0] = two[0];
            self.nll_tau1 = Some(two[1]);
        } else {
            nll_direct(self.obj, xs, out);
        }
    }

    /// Builds the expansion once the bracket allows it, and re-centres it as the
    /// bracket shrinks.
    fn prepare(&mut self, (a, b): (f64, f64), best: f64) {
        if self.enabled
            && self.window.is_none()
            && !self.never
            && b - a < self.retry_below
            && a > 0.0
        {
            match self.obj.window(1.0 / b, 1.0 / a, best) {
                Ok(w) => self.window = Some(w),
                Err(NoWindow::Never) => self.never = true,
                Err(NoWindow::NotYet) => {}
                Err(NoWindow::Failed) => self.retry_below = 0.5 * (b - a),
            }
        }
        if let Some(w) = &mut self.window {
            if a > 0.0 && 0.5 * (1.0 / a - 1.0 / b) <= 0.125 * w.half_width() {
                w.recenter(1.0 / b, 1.0 / a);
            }
        }
    }
}

impl<O: Inner> Evaluator for Eval<'_, O> {
    fn eval(&mut self, xs: &[f64], ab: (f64, f64), best: f64, out: &mut [f64]) {
        self.prepare(ab, best);
        let mut rest = [0.0; 2];
        let mut rest_idx = [0usize; 2];
        let mut m = 0;
        for (i, &x) in xs.iter().enumerate() {
            match &self.window {
                Some(w) if valid_tau(x) && w.contains(1.0 / x) => {
                    out[i] = self.obj.finish(x, w.log_sum(1.0 / x));
                    self.expansion_evaluations += 1;
                }
                _ => {
                    rest[m] = x;
                    rest_idx[m] = i;
                    m += 1;
                }
            }
        }
        let mut vals = [0.0; 2];
        self.direct(&rest[..m], &mut vals[..m]);
        for j in 0..m {
            out[rest_idx[j]] = vals[j];
        }
    }

    /// Screened probes were first seen before any expansion existed: the direct
    /// kernel, as the search without screening evaluated them.
    fn eval_screened(&mut self, xs: &[f64], _: (f64, f64), _: f64, out: &mut [f64]) {
        self.direct(xs, out)
    }

    /// `L |1/from - 1/to|` with `L` = [`Inner::lipschitz_beta`], while screening.
    fn screen_step(&mut self, from: f64, to: f64, ab: (f64, f64), best: f64) -> Option<f64> {
        if !self.screening || !valid_tau(from) || !valid_tau(to) {
            return None;
        }
        self.prepare(ab, best);
        if self.window.is_some() {
            return None;
        }
        Some(self.obj.lipschitz_beta() * (1.0 / from - 1.0 / to).abs() * (1.0 + 1e-12))
    }

    /// Screens only while no expansion covers the probes (the expansion is exact and
    /// cheaper) and every probe is a valid `tau`.
    fn screen(&mut self, xs: &[f64], ab: (f64, f64), best: f64, out: &mut [(f64, f64)]) -> bool {
        if !self.screening || !xs.iter().all(|&x| valid_tau(x)) {
            return false;
        }
        self.prepare(ab, best);
        if self.window.is_some() || !self.obj.screen_log_sums(xs, out) {
            return false;
        }
        for (o, &x) in out.iter_mut().zip(xs) {
            let n = self.obj.n() as f64;
            let v = self.obj.finish(x, o.0);
            // the exact kernel's own rounding (~1e-16 relative) with a wide margin
            *o = (v, o.1 / n + 1e-12 * v.abs());
        }
        true
    }
}

fn fit_objective(obj: &impl Inner, options: &TemperatureOptions) -> TemperatureFit {
    let mut eval = Eval {
        obj,
        enabled: options.expansion,
        window: None,
        never: false,
        retry_below: f64::INFINITY,
        expansion_evaluations: 0,
        screening: options.screening,
        nll_tau1: None,
    };
    let search = match options.procedure {
        GoldenProcedure::Contract { iterations } => {
            golden_contract(&mut eval, options.lo, options.hi, iterations, TRACE_EVERY)
        }
        GoldenProcedure::ReuseProbe {
            rel_width,
            max_iterations,
        } => golden_reuse(&mut eval, options.lo, options.hi, rel_width, max_iterations),
    };
    // NLL at tau: through the expansion when it covers tau (as exact as the direct
    // kernel); at tau = 1: from an earlier pass, else in the same pass
    let x = search.x;
    let from_window = eval
        .window
        .as_ref()
        .filter(|w| valid_tau(x) && w.contains(1.0 / x))
        .map(|w| obj.finish(x, w.log_sum(1.0 / x)));
    let mut at = [f64::NAN; 2];
    match (eval.nll_tau1, from_window) {
        (Some(t1), Some(v)) => at = [t1, v],
        (Some(t1), None) => {
            at[0] = t1;
            nll_direct(obj, &[x], &mut at[1..]);
        }
        (None, Some(v)) => {
            nll_direct(obj, &[1.0], &mut at[..1]);
            at[1] = v;
        }
        (None, None) => nll_direct(obj, &[1.0, x], &mut at),
    }
    TemperatureFit {
        tau: search.x,
        nll_tau1: at[0],
        nll_tau: at[1],
        at_bracket_end: search.at_bracket_end,
        trace: search.trace,
        evaluations: search.evaluations,
        screened_evaluations: search.screened,
        expansion_evaluations: eval.expansion_evaluations,
        n: obj.n(),
    }
}

fn valid_tau(tau: f64) -> bool {
    tau > 0.0 && tau.is_finite()
}

/// Fits the temperature of a binary score column (METRICS.md §6) with the contract's
/// search: `tau = argmin NLL(tau)` on `[0.05, 20]`, `NLL(tau) = mean softplus(-y± s /
/// tau)` over the calibration rows `rows` (`None`: every row).
///
/// `None` (undefined) when the calibration split is empty or a used score is NaN or
/// infinite. Separable calibration data drive `tau` to 0.05, label-independent scores
/// to 20 (`at_bracket_end`). Panics as [`BinaryNll::new`].
pub fn fit_temperature_binary<T: Real, L: BinaryLabel>(
    scores: &[T],
    labels: &[L],
    rows: Option<&[usize]>,
) -> Option<TemperatureFit> {
    Some(BinaryNll::new(scores, labels, rows)?.fit(&TemperatureOptions::default()))
}

/// Fits the temperature of a row-major `n x k` logit matrix (METRICS.md §6) with the
/// contract's search: `tau = argmin NLL(tau)` on `[0.05, 20]`, `NLL(tau) =
/// mean(logsumexp(z_i / tau) - z_{i,y_i} / tau)` over the calibration rows `rows`
/// (`None`: every row).
///
/// `None` (undefined) when the calibration split is empty, a used logit is NaN or
/// infinite, or a used label is `>= k`. Panics as [`MulticlassNll::new`].
pub fn fit_temperature_multiclass<T: Real>(
    logits: &[T],
    k: usize,
    labels: &[u32],
    rows: Option<&[usize]>,
) -> Option<TemperatureFit> {
    Some(MulticlassNll::new(logits, k, labels, rows)?.fit(&TemperatureOptions::default()))
}

/// [`fit_temperature_multiclass`] on stored [`Values`] (`f32` or `f64`) with explicit
/// `options`: `tau = argmin NLL(tau)` on `[options.lo, options.hi]` of the row-major
/// `n x k` logits over the rows `rows` (`None`: every row).
///
/// `None` (undefined) when the calibration split is empty, a used logit is NaN or
/// infinite, a used label is `>= k`, or `k = 0`. Panics as [`MulticlassNll::new`].
pub fn fit_temperature_values(
    logits: &Values,
    k: usize,
    labels: &[u32],
    rows: Option<&[usize]>,
    options: &TemperatureOptions,
) -> Option<TemperatureFit> {
    crate::with_values!(logits, |z| Some(
        MulticlassNll::new(z, k, labels, rows)?.fit(options)
    ))
}
