//! Multiclass linear maps on a score vector, fitted jointly on every class: vector
//! and matrix scaling (Guo et al. 2017, "On Calibration of Modern Neural Networks")
//! on the logits, and Dirichlet calibration with ODIR regularisation (Kull et al.
//! 2019, "Beyond temperature scaling: Obtaining well-calibrated multiclass
//! probabilities with Dirichlet calibration") on the log-probabilities.
//!
//! Each map sends a row's input `x ∈ R^K` to `q = softmax(W x + b)`:
//!
//! - vector scaling: `x = z` (the logits), `W = diag(v)`: `2K` parameters;
//! - matrix scaling: `x = z`, `W` any `K × K` matrix;
//! - Dirichlet calibration: `x = ln p` (the clipped log-probabilities), `W` any
//!   `K × K` matrix (a matrix scaling on `ln p`).
//!
//! `softmax` does not change when the same row is added to every row of `[W | b]`,
//! so the parameters are kept with the last class as the reference, as the authors'
//! `dirichletcal` does (`ref_row=True`): the last row of `[W | b]` is 0 (for vector
//! scaling: `b_{K-1} = 0`, every `v_r` free). The fit minimises
//!
//! `L(W, b) = (1/n) Σ_i [ln Σ_j exp(W x_i + b)_j - (W x_i + b)_{y_i}]
//!            + λ/(K(K-1)) Σ_{i≠j} W_ij² + μ/K Σ_j b_j²`
//!
//! (the mean negative log-likelihood plus, for Dirichlet calibration, the
//! off-diagonal and intercept regularisation ODIR, normalised by the number of
//! entries as in the paper; `λ = μ = 0` for vector and matrix scaling) by L-BFGS
//! with a More–Thuente line search (the `argmin` crate), from the identity map
//! (`W = I`, `b = 0`). The gradient is `(1/n) Σ_i (q_i - e_{y_i}) [x_i; 1]^T` plus
//! the penalty's `2λ/(K(K-1)) W_ij` (`i ≠ j`) and `2μ/K b_j`.
//!
//! Undefined: fewer than 3 classes (these are multiclass maps; binary input has
//! beta calibration and Platt scaling, their two-class forms), a class with no
//! calibration row (its intercept would go to `-∞`), an empty calibration split,
//! and non-finite inputs (NaN or infinite logits) on the calibration rows: the
//! objective would not be finite. Applying a fit to a row with a NaN gives NaNs.

use argmin::core::{CostFunction, Executor, Gradient, State, TerminationStatus};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use std::cell::RefCell;

/// Which linear map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalingKind {
    /// `softmax(v ⊙ z + b)`.
    Vector,
    /// `softmax(W z + b)`.
    Matrix,
    /// `softmax(W ln p + b)` with ODIR.
    Dirichlet,
}

impl ScalingKind {
    /// Whether the map reads `ln p` (Dirichlet) rather than the logits.
    pub fn reads_log_probabilities(self) -> bool {
        self == ScalingKind::Dirichlet
    }
}

/// ODIR's strengths `λ` (off-diagonal entries of `W`) and `μ` (intercepts), before
/// the normalisation by `K(K-1)` and `K`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Odir {
    /// Off-diagonal strength `λ`.
    pub lambda: f64,
    /// Intercept strength `μ`.
    pub mu: f64,
}

/// When L-BFGS stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stopping {
    /// At most this many iterations.
    pub max_iters: u64,
    /// Stop when the gradient's Euclidean norm is below this.
    pub grad_tol: f64,
    /// Stop when an iteration lowers the objective by less than this.
    pub cost_tol: f64,
}

/// The final fit's stopping rule: tight, so that the parameters are those of the
/// optimum to about `1e-7` on well-conditioned problems (an objective step of
/// `1e-15` is near the rounding of a mean NLL of order 1).
pub const FINAL: Stopping = Stopping {
    max_iters: 1_000,
    grad_tol: 1e-9,
    cost_tol: 1e-15,
};

/// A fitted map.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingFit {
    /// Which map.
    pub kind: ScalingKind,
    /// Number of classes `K`.
    pub k: usize,
    /// `W`, `K × K` row-major (diagonal for vector scaling), last row 0 for
    /// matrix scaling and Dirichlet calibration.
    pub w: Vec<f64>,
    /// `b`, `K` entries, the last 0.
    pub b: Vec<f64>,
    /// ODIR's strengths (0 for vector and matrix scaling).
    pub odir: Odir,
    /// L-BFGS iterations.
    pub iterations: u64,
    /// Whether L-BFGS met its gradient tolerance (or could not decrease further at
    /// the optimum) rather than its iteration cap.
    pub converged: bool,
    /// The objective `L` at the fit (NLL plus penalty, calibration rows).
    pub objective: f64,
}

impl ScalingFit {
    /// `out = softmax(W x + b)` of one row (`x`, `out` of length `K`; a NaN in `x`
    /// gives NaNs).
    pub fn predict(&self, x: &[f64], out: &mut [f64]) {
        self.scores(x, out);
        let m = out.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v));
        if m.is_nan() || out.iter().any(|v| v.is_nan()) {
            out.fill(f64::NAN);
            return;
        }
        let mut sum = 0.0;
        for o in out.iter_mut() {
            *o = (*o - m).exp();
            sum += *o;
        }
        for o in out.iter_mut() {
            *o /= sum;
        }
    }
}

impl ScalingFit {
    /// `out = W x + b` of one row, before the softmax.
    pub fn scores(&self, x: &[f64], out: &mut [f64]) {
        affine(self.kind, self.k, &self.w, &self.b, x, out);
    }
}

/// `out = W x + b` (vector scaling: `W` diagonal).
fn affine(kind: ScalingKind, k: usize, w: &[f64], b: &[f64], x: &[f64], out: &mut [f64]) {
    out.copy_from_slice(b);
    if kind == ScalingKind::Vector {
        for j in 0..k {
            out[j] += w[j * k + j] * x[j];
        }
        return;
    }
    for (j, o) in out.iter_mut().enumerate() {
        let row = &w[j * k..(j + 1) * k];
        *o += row.iter().zip(x).map(|(a, b)| a * b).sum::<f64>();
    }
}

/// The objective of one fit: the rows `x` (row-major `n × K`) with labels `y`.
pub struct Objective<'a> {
    kind: ScalingKind,
    k: usize,
    x: &'a [f64],
    y: &'a [u32],
    odir: Odir,
    /// The last `(params, cost, gradient)` (L-BFGS asks for cost and gradient at the
    /// same point one after the other: one pass over the rows answers both).
    cache: RefCell<Option<Evaluated>>,
    /// Threads of a pass over the rows (the numbers do not depend on it).
    threads: usize,
}

/// Parameters, the objective there and its gradient.
type Evaluated = (Vec<f64>, f64, Vec<f64>);

#[path = "scaling_pass.rs"]
mod pass;
use pass::{Partial, RowPass, CHUNK_ROWS};

impl<'a> Objective<'a> {
    /// The objective of `kind` on rows `x` (`y.len()` rows of `k`) with ODIR `odir`.
    pub fn new(kind: ScalingKind, k: usize, x: &'a [f64], y: &'a [u32], odir: Odir) -> Self {
        assert_eq!(x.len(), y.len() * k);
        Objective {
            kind,
            k,
            x,
            y,
            odir,
            cache: RefCell::new(None),
            threads: crate::bootstrap::default_threads(),
        }
    }

    /// The same objective evaluated on `threads` threads (the machine's available
    /// parallelism by default, 1 on wasm); the numbers are the same on any count.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Number of free parameters: `2K - 1` (vector: `v`, `b` without its last), or
    /// `(K - 1)(K + 1)` (the first `K - 1` rows of `[W | b]`).
    pub fn dim(&self) -> usize {
        match self.kind {
            ScalingKind::Vector => 2 * self.k - 1,
            _ => (self.k - 1) * (self.k + 1),
        }
    }

    /// The identity map's parameters (`W = I`, `b = 0`).
    pub fn identity(&self) -> Vec<f64> {
        let k = self.k;
        let mut p = vec![0.0; self.dim()];
        match self.kind {
            ScalingKind::Vector => p[..k].fill(1.0),
            _ => {
                // row r of [W | b] minus the last row (e_{K-1}): e_r - e_{K-1}
                for r in 0..k - 1 {
                    p[r * (k + 1) + r] = 1.0;
                    p[r * (k + 1) + k - 1] = -1.0;
                }
            }
        }
        p
    }

    /// `(W, b)` of the parameters, full size (last row / intercept 0).
    pub fn unpack(&self, p: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let k = self.k;
        let mut w = vec![0.0; k * k];
        let mut b = vec![0.0; k];
        match self.kind {
            ScalingKind::Vector => {
                for j in 0..k {
                    w[j * k + j] = p[j];
                }
                b[..k - 1].copy_from_slice(&p[k..]);
            }
            _ => {
                for r in 0..k - 1 {
                    let row = &p[r * (k + 1)..(r + 1) * (k + 1)];
                    w[r * k..(r + 1) * k].copy_from_slice(&row[..k]);
                    b[r] = row[k];
                }
            }
        }
        (w, b)
    }

    /// `(L, ∇L)` at `p` (module docs).
    pub fn evaluate(&self, p: &[f64]) -> (f64, Vec<f64>) {
        if let Some((q, c, g)) = self.cache.borrow().as_ref() {
            if q.as_slice() == p {
                return (*c, g.clone());
            }
        }
        let k = self.k;
        let (w, b) = self.unpack(p);
        // W transposed: `W x` as a sum of columns `x_c W[:, c]` (no reduction in the
        // inner loop, which the compiler vectorises)
        let mut wt = vec![0.0; k * k];
        for r in 0..k {
            for c in 0..k {
                wt[c * k + r] = w[r * k + c];
            }
        }
        let rows = RowPass {
            kind: self.kind,
            k,
            w: &w,
            wt: &wt,
            b: &b,
        };
        // fixed chunks of rows, summed in chunk order: the same numbers on any
        // number of threads (the page's worker has one)
        let chunks: Vec<(&[f64], &[u32])> = self
            .x
            .chunks(CHUNK_ROWS * k)
            .zip(self.y.chunks(CHUNK_ROWS))
            .collect();
        let threads = self.threads.min(chunks.len()).max(1);
        let partials: Vec<Partial> = if threads == 1 {
            chunks.iter().map(|&(x, y)| rows.run(x, y)).collect()
        } else {
            let mut out: Vec<Option<Partial>> = vec![None; chunks.len()];
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        let (chunks, rows) = (&chunks, &rows);
                        scope.spawn(move || {
                            (t..chunks.len())
                                .step_by(threads)
                                .map(|i| (i, rows.run(chunks[i].0, chunks[i].1)))
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                for h in handles {
                    for (i, part) in h.join().expect("a scaling worker panicked") {
                        out[i] = Some(part);
                    }
                }
            });
            out.into_iter().map(|p| p.expect("every chunk")).collect()
        };
        let mut nll = 0.0;
        let mut gw = vec![0.0; k * k];
        let mut gb = vec![0.0; k];
        for part in &partials {
            nll += part.nll;
            for (a, v) in gw.iter_mut().zip(&part.gw) {
                *a += v;
            }
            for (a, v) in gb.iter_mut().zip(&part.gb) {
                *a += v;
            }
        }
        let n = self.y.len().max(1) as f64;
        let (lam, mu) = self.penalties();
        let mut cost = nll / n;
        let mut grad = vec![0.0; self.dim()];
        match self.kind {
            ScalingKind::Vector => {
                for j in 0..k {
                    grad[j] = gw[j * k + j] / n;
                }
                for j in 0..k - 1 {
                    grad[k + j] = gb[j] / n;
                }
            }
            _ => {
                for r in 0..k - 1 {
                    for c in 0..k {
                        let v = w[r * k + c];
                        let mut g = gw[r * k + c] / n;
                        if r != c {
                            cost += lam * v * v;
                            g += 2.0 * lam * v;
                        }
                        grad[r * (k + 1) + c] = g;
                    }
                    cost += mu * b[r] * b[r];
                    grad[r * (k + 1) + k] = gb[r] / n + 2.0 * mu * b[r];
                }
            }
        }
        *self.cache.borrow_mut() = Some((p.to_vec(), cost, grad.clone()));
        (cost, grad)
    }

    /// `(λ/(K(K-1)), μ/K)`.
    fn penalties(&self) -> (f64, f64) {
        let k = self.k as f64;
        (self.odir.lambda / (k * (k - 1.0)), self.odir.mu / k)
    }
}

impl CostFunction for &Objective<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, p: &Self::Param) -> Result<f64, argmin::core::Error> {
        Ok(self.evaluate(p).0)
    }
}

impl Gradient for &Objective<'_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, p: &Self::Param) -> Result<Vec<f64>, argmin::core::Error> {
        Ok(self.evaluate(p).1)
    }
}

/// L-BFGS's memory (pairs kept).
const MEMORY: usize = 10;

/// The gradient norm below which a stopped fit counts as converged.
pub const CONVERGED_GRAD: f64 = 1e-5;

/// Minimises `objective` from `start` by L-BFGS: `(parameters, iterations,
/// converged, objective)`; converged when neither the iteration cap stopped it nor
/// is the gradient norm at the returned point above [`CONVERGED_GRAD`] (a line
/// search that finds no decrease ends the run where it is, as an error from the
/// solver ends it at the start).
pub fn minimise(
    objective: &Objective,
    start: Vec<f64>,
    stop: Stopping,
) -> (Vec<f64>, u64, bool, f64) {
    let fallback = start.clone();
    let linesearch = MoreThuenteLineSearch::new();
    let run = LBFGS::new(linesearch, MEMORY)
        .with_tolerance_grad(stop.grad_tol)
        .and_then(|s| s.with_tolerance_cost(stop.cost_tol))
        .and_then(|solver| {
            Executor::new(objective, solver)
                .configure(|state| state.param(start).max_iters(stop.max_iters))
                .timer(false)
                .run()
        });
    let norm = |p: &[f64]| {
        let g = objective.evaluate(p).1;
        g.iter().map(|v| v * v).sum::<f64>().sqrt()
    };
    match run {
        Ok(res) => {
            let state = res.state();
            let iterations = state.get_iter();
            let best = state
                .get_best_param()
                .cloned()
                .unwrap_or_else(|| fallback.clone());
            // a line search that finds no decrease also ends the run: only a small
            // gradient at the returned point counts as converged
            let converged = match state.get_termination_status() {
                TerminationStatus::Terminated(r) => {
                    !matches!(r, argmin::core::TerminationReason::MaxItersReached)
                        && norm(&best) < CONVERGED_GRAD
                }
                TerminationStatus::NotTerminated => false,
            };
            let cost = objective.evaluate(&best).0;
            (best, iterations, converged, cost)
        }
        Err(_) => {
            // the line search found no decrease: the start (or where it stalled) is
            // as good as f64 allows
            let cost = objective.evaluate(&fallback).0;
            let converged = norm(&fallback) < CONVERGED_GRAD;
            (fallback, 0, converged, cost)
        }
    }
}

/// Fits `kind` on rows `x` (`y.len()` rows of `k` inputs: logits, or `ln p` for
/// Dirichlet) with ODIR `odir` (ignored, taken as 0, for vector and matrix scaling),
/// from `start` (the identity when `None`). `None` when `k < 3`, `y` is empty, a
/// class has no row, or an input is not finite (module docs).
pub fn fit_scaling(
    kind: ScalingKind,
    k: usize,
    x: &[f64],
    y: &[u32],
    odir: Odir,
    start: Option<Vec<f64>>,
    stop: Stopping,
) -> Option<ScalingFit> {
    if k < 3 || y.is_empty() || x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut seen = vec![false; k];
    for &c in y {
        *seen.get_mut(c as usize)? = true;
    }
    if seen.contains(&false) {
        return None;
    }
    let odir = if kind == ScalingKind::Dirichlet {
        odir
    } else {
        Odir {
            lambda: 0.0,
            mu: 0.0,
        }
    };
    let objective = Objective::new(kind, k, x, y, odir);
    let start = start.unwrap_or_else(|| objective.identity());
    let (p, iterations, converged, cost) = minimise(&objective, start, stop);
    let (w, b) = objective.unpack(&p);
    Some(ScalingFit {
        kind,
        k,
        w,
        b,
        odir,
        iterations,
        converged,
        objective: cost,
    })
}

/// The free parameters of a fit (to start another fit from it).
pub fn parameters(fit: &ScalingFit) -> Vec<f64> {
    let k = fit.k;
    match fit.kind {
        ScalingKind::Vector => {
            let mut p: Vec<f64> = (0..k).map(|j| fit.w[j * k + j]).collect();
            p.extend_from_slice(&fit.b[..k - 1]);
            p
        }
        _ => (0..k - 1)
            .flat_map(|r| fit.w[r * k..(r + 1) * k].iter().copied().chain([fit.b[r]]))
            .collect(),
    }
}

#[cfg(test)]
#[path = "scaling_tests.rs"]
mod tests;
