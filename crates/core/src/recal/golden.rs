//! Golden-section search (METRICS.md §6), with a per-iteration trace.
//!
//! [`golden_section`] is the contract's procedure: each iteration recomputes both
//! probes from the bracket `[a, b]`, `c = b - phi (b - a)`, `d = a + phi (b - a)`,
//! `phi = (sqrt 5 - 1) / 2`, and keeps `[a, d]` if `f(c) < f(d)`, else `[c, b]`; the
//! result is the midpoint of the final bracket. A probe equal (bit for bit) to one
//! already evaluated is not evaluated again: `f` must be a pure function, and the
//! outcome is identical to evaluating it every time.
//!
//! An evaluator may also *screen* (see `screen.rs`): return cheap values with a bound
//! on their distance to the exact ones. A comparison is then taken from the screened
//! values only when the intervals `value ± bound` are disjoint, which gives the same
//! decision as the exact values; otherwise the probes are evaluated exactly. The best
//! probe of a trace row is always settled on exact values, so screening changes the
//! cost, never a decision, a trace value or the result.
//!
//! [`golden_section_reuse`] is the common variant the fixtures README also accepts:
//! it keeps the surviving probe (one new evaluation per iteration) and stops once the
//! bracket width is `<= rel_width x midpoint`.

/// `phi = (sqrt 5 - 1) / 2`.
pub const PHI: f64 = 0.618_033_988_749_894_9;

/// Relative distance under which a recorded probe's screened value may serve a new
/// probe (the recomputed probes of the golden section differ from the surviving
/// ones by a few ulps).
const NEAR: f64 = 1e-12;

/// Distance to a bracket end under which [`at_bracket_end`] holds.
pub const BRACKET_END_TOLERANCE: f64 = 1e-6;

/// One row of the search trace (after `iteration` iterations).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GoldenStep {
    /// Iterations done (1-based).
    pub iteration: usize,
    /// The bracket after this iteration.
    pub lo: f64,
    /// The bracket after this iteration.
    pub hi: f64,
    /// `hi - lo`.
    pub width: f64,
    /// The probe with the smallest `f` seen so far (the first one on ties).
    pub best_x: f64,
    /// `f(best_x)`.
    pub best_f: f64,
}

/// The result of a golden-section search.
#[derive(Clone, Debug, PartialEq)]
pub struct GoldenSearch {
    /// The midpoint of the final bracket.
    pub x: f64,
    /// The final bracket.
    pub lo: f64,
    /// The final bracket.
    pub hi: f64,
    /// `x` lies within 1e-6 of the initial `lo` or `hi` (see [`at_bracket_end`]).
    pub at_bracket_end: bool,
    /// One entry per traced iteration (every iteration for [`golden_section`]).
    pub trace: Vec<GoldenStep>,
    /// Number of exact evaluations of `f` (probes repeated bit for bit are not
    /// re-evaluated).
    pub evaluations: usize,
    /// Number of screened evaluations (see `screen.rs`): cheap values with an error
    /// bound that decided a comparison without an exact value.
    pub screened: usize,
}

/// `x` lies within `1e-6` of `lo` or of `hi` (`|x - lo| <= 1e-6 || |hi - x| <= 1e-6`).
/// NaN gives `false`.
pub fn at_bracket_end(x: f64, lo: f64, hi: f64) -> bool {
    (x - lo).abs() <= BRACKET_END_TOLERANCE || (hi - x).abs() <= BRACKET_END_TOLERANCE
}

/// An objective evaluated one or two points at a time, told the current bracket
/// `(a, b)` (every later probe lies in it) and an estimate of the smallest value seen.
pub(crate) trait Evaluator {
    /// `f(xs[i])` into `out[i]` (`xs.len()` in {1, 2}).
    fn eval(&mut self, xs: &[f64], bracket: (f64, f64), best: f64, out: &mut [f64]);

    /// The exact values of probes first seen (and screened) at an earlier, wider
    /// bracket: as [`Evaluator::eval`] would have given them then (default: `eval`).
    fn eval_screened(&mut self, xs: &[f64], bracket: (f64, f64), best: f64, out: &mut [f64]) {
        self.eval(xs, bracket, best, out)
    }

    /// A bound on `|f(to) - f(from)|` for two nearby points while the evaluator screens
    /// at this bracket (`None`: it does not screen, or has no such bound). Lets a
    /// screened (or exact) value serve, with its bound widened, a probe that differs
    /// from it by rounding only, as the golden section's recomputed probes do.
    fn screen_step(
        &mut self,
        _from: f64,
        _to: f64,
        _bracket: (f64, f64),
        _best: f64,
    ) -> Option<f64> {
        None
    }

    /// Screened values: `out[i] = (v, e)` with `|v - f(xs[i])| <= e` for the `f` of
    /// [`Evaluator::eval`] (its rounded values, not the real numbers), or `false` when
    /// screening does not apply at this bracket (then `out` is unspecified).
    fn screen(
        &mut self,
        _xs: &[f64],
        _bracket: (f64, f64),
        _best: f64,
        _out: &mut [(f64, f64)],
    ) -> bool {
        false
    }
}

/// Adapts `eval(xs, out)`.
struct Plain<F>(F);

impl<F: FnMut(&[f64], &mut [f64])> Evaluator for Plain<F> {
    fn eval(&mut self, xs: &[f64], _: (f64, f64), _: f64, out: &mut [f64]) {
        (self.0)(xs, out)
    }
}

/// A probe's value: exact (`bound == 0`) or screened (`|f - exact| <= bound`).
#[derive(Clone, Copy, Debug)]
struct Probe {
    bits: u64,
    f: f64,
    bound: f64,
}

/// Bookkeeping shared by both procedures: the probes in the order they were recorded
/// (`c` before `d`, repeats included) and the evaluation counts.
struct Probes {
    seen: Vec<Probe>,
    /// The smallest value recorded (screened or exact): the evaluator's estimate.
    estimate: f64,
    /// The best probe (smallest exact `f`, the first one on ties), as of the last
    /// [`Probes::settle_best`] (or every record when nothing is screened).
    best_x: f64,
    best_f: f64,
    evaluations: usize,
    screened: usize,
    /// Set at the first comparison the screened values could not decide: the bracket
    /// is then too narrow for screening to pay, and it is not tried again.
    screening_off: bool,
}

impl Probes {
    fn new() -> Self {
        Probes {
            seen: Vec::new(),
            estimate: f64::INFINITY,
            best_x: f64::NAN,
            best_f: f64::INFINITY,
            evaluations: 0,
            screened: 0,
            screening_off: false,
        }
    }

    fn lookup(&self, x: f64) -> Option<(f64, f64)> {
        let bits = x.to_bits();
        self.seen
            .iter()
            .rev()
            .find(|p| p.bits == bits)
            .map(|p| (p.f, p.bound))
    }

    fn record(&mut self, x: f64, (fx, bound): (f64, f64)) {
        self.seen.push(Probe {
            bits: x.to_bits(),
            f: fx,
            bound,
        });
        if fx < self.estimate {
            self.estimate = fx;
        }
        // the first probe of an equal pair (c before d) wins ties
        if bound == 0.0 && (fx < self.best_f || self.best_x.is_nan()) {
            self.best_x = x;
            self.best_f = fx;
        }
    }

    /// Replaces the screened value of `x` (every record of it) by its exact value.
    fn set_exact(&mut self, x: f64, fx: f64) {
        let bits = x.to_bits();
        for p in self.seen.iter_mut().filter(|p| p.bits == bits) {
            (p.f, p.bound) = (fx, 0.0);
        }
    }

    /// Exact values of the points `xs` (1 or 2, distinct), one call of `eval`.
    fn exact(&mut self, xs: &[f64], ab: (f64, f64), eval: &mut impl Evaluator) -> [f64; 2] {
        let mut out = [0.0; 2];
        eval.eval(xs, ab, self.estimate, &mut out[..xs.len()]);
        self.evaluations += xs.len();
        out
    }

    /// Exact values of screened points (1 or 2, distinct), which then replace their
    /// screened values.
    fn unscreen(&mut self, xs: &[f64], ab: (f64, f64), eval: &mut impl Evaluator) -> [f64; 2] {
        let mut out = [0.0; 2];
        eval.eval_screened(xs, ab, self.estimate, &mut out[..xs.len()]);
        self.evaluations += xs.len();
        for (&x, &fx) in xs.iter().zip(&out) {
            self.set_exact(x, fx);
        }
        out
    }

    /// Values of the new points `xs` (1 or 2, distinct): screened when the evaluator
    /// screens at this bracket — from a recorded probe a few ulps away when there is
    /// one (its value, the bound widened by [`Evaluator::screen_step`]), else by a
    /// screening pass — otherwise exact.
    fn fresh(&mut self, xs: &[f64], ab: (f64, f64), eval: &mut impl Evaluator) -> [(f64, f64); 2] {
        let mut out = [(0.0, 0.0); 2];
        if !self.screening_off {
            let mut rest = [0.0; 2];
            let mut rest_at = [0usize; 2];
            let mut m = 0;
            for (i, &x) in xs.iter().enumerate() {
                let near = self
                    .seen
                    .iter()
                    .rev()
                    .find(|p| (f64::from_bits(p.bits) - x).abs() <= NEAR * x.abs())
                    .copied();
                let step = near.and_then(|p| {
                    let from = f64::from_bits(p.bits);
                    eval.screen_step(from, x, ab, self.estimate).map(|e| (p, e))
                });
                match step {
                    Some((p, e)) if p.f.is_finite() => {
                        out[i] = (p.f, p.bound + e);
                        self.screened += 1;
                    }
                    _ => {
                        rest[m] = x;
                        rest_at[m] = i;
                        m += 1;
                    }
                }
            }
            if m == 0 {
                return out;
            }
            let mut v = [(0.0, 0.0); 2];
            if eval.screen(&rest[..m], ab, self.estimate, &mut v[..m]) {
                self.screened += m;
                for j in 0..m {
                    out[rest_at[j]] = v[j];
                }
                return out;
            }
            if m < xs.len() {
                // reused one, the evaluator no longer screens the other: exact
                let e = self.exact(&rest[..m], ab, eval);
                out[rest_at[0]] = (e[0], 0.0);
                return out;
            }
        }
        let v = self.exact(xs, ab, eval);
        [(v[0], 0.0), (v[1], 0.0)]
    }

    /// Whether `f(c) < f(d)`, exactly as with exact values: screened values decide
    /// only when their intervals are disjoint; otherwise the screened ones are
    /// evaluated exactly. Records `c` then `d`.
    fn pair(&mut self, c: f64, d: f64, ab: (f64, f64), eval: &mut impl Evaluator) -> bool {
        let same = c.to_bits() == d.to_bits();
        let (mut vc, mut vd) = (self.lookup(c), self.lookup(d));
        match (vc, vd) {
            (None, None) if same => {
                vc = Some(self.fresh(&[c], ab, eval)[0]);
                vd = vc;
            }
            (None, None) => {
                let [a, b] = self.fresh(&[c, d], ab, eval);
                (vc, vd) = (Some(a), Some(b));
            }
            (None, Some(_)) => vc = Some(self.fresh(&[c], ab, eval)[0]),
            (Some(_), None) => vd = Some(self.fresh(&[d], ab, eval)[0]),
            (Some(_), Some(_)) => {}
        }
        let (mut vc, mut vd) = (vc.unwrap_or_default(), vd.unwrap_or_default());
        let c_less = if same {
            false // f(c) < f(c) is false, NaN or not
        } else if vc.0 + vc.1 < vd.0 - vd.1 {
            true
        } else if vc.0 - vc.1 > vd.0 + vd.1 || (vc.1 == 0.0 && vd.1 == 0.0) {
            false
        } else {
            self.screening_off = true;
            let xs: Vec<f64> = [(c, vc.1), (d, vd.1)]
                .iter()
                .filter(|p| p.1 != 0.0)
                .map(|p| p.0)
                .collect();
            let v = self.unscreen(&xs, ab, eval);
            for (x, fx) in xs.iter().zip(v) {
                if x.to_bits() == c.to_bits() {
                    vc = (fx, 0.0);
                } else {
                    vd = (fx, 0.0);
                }
            }
            vc.0 < vd.0
        };
        self.record(c, vc);
        self.record(d, vd);
        c_less
    }

    /// Makes `best_x` / `best_f` exact over every recorded probe: the probes whose
    /// screened interval could hold the smallest value are evaluated exactly (two per
    /// call), then the records are scanned in order with the rule of [`Probes::record`].
    fn settle_best(&mut self, ab: (f64, f64), eval: &mut impl Evaluator) {
        let min_upper = self
            .seen
            .iter()
            .filter(|p| !p.f.is_nan())
            .map(|p| p.f + p.bound)
            .fold(f64::INFINITY, f64::min);
        let mut todo: Vec<f64> = Vec::new();
        for p in &self.seen {
            let candidate = p.f.is_nan() || p.f - p.bound <= min_upper;
            if p.bound != 0.0 && candidate && !todo.iter().any(|x| x.to_bits() == p.bits) {
                todo.push(f64::from_bits(p.bits));
            }
        }
        for xs in todo.chunks(2) {
            self.unscreen(xs, ab, eval);
        }
        // screened probes left are above the exact minimum: they never end up best
        let (mut best_x, mut best_f) = (f64::NAN, f64::INFINITY);
        for p in &self.seen {
            if p.f < best_f || best_x.is_nan() {
                (best_x, best_f) = (f64::from_bits(p.bits), p.f);
            }
        }
        (self.best_x, self.best_f) = (best_x, best_f);
    }

    /// The trace row after `iteration` iterations with the bracket `(a, b)`.
    fn step(&self, iteration: usize, (a, b): (f64, f64)) -> GoldenStep {
        GoldenStep {
            iteration,
            lo: a,
            hi: b,
            width: b - a,
            best_x: self.best_x,
            best_f: self.best_f,
        }
    }

    fn one(&mut self, x: f64, ab: (f64, f64), eval: &mut impl Evaluator) -> f64 {
        self.exact(&[x], ab, eval)[0]
    }
}

/// Golden-section minimisation of `f` on `[lo, hi]`, the contract's procedure
/// (METRICS.md §6), `iterations` iterations.
///
/// Each iteration: `c = b - phi (b - a)`, `d = a + phi (b - a)`; `[a, b] <- [a, d]` if
/// `f(c) < f(d)`, else `[c, b]`. Returns the midpoint `(a + b) / 2` of the final bracket,
/// the flag [`at_bracket_end`] relative to the initial `lo`, `hi`, and one trace row per
/// iteration (bracket, width, best probe so far). The bracket width after `i`
/// iterations is `(hi - lo) phi^i` up to rounding.
///
/// Degenerate input: `iterations = 0` returns the midpoint of `[lo, hi]` with an empty
/// trace; `f` returning NaN makes `f(c) < f(d)` false (the search keeps `[c, b]`);
/// `lo > hi` or non-finite bounds are not checked (the arithmetic runs as written).
pub fn golden_section(
    mut f: impl FnMut(f64) -> f64,
    lo: f64,
    hi: f64,
    iterations: usize,
) -> GoldenSearch {
    golden_section_batch(
        |xs, out| {
            for (o, &x) in out.iter_mut().zip(xs) {
                *o = f(x);
            }
        },
        lo,
        hi,
        iterations,
    )
}

/// [`golden_section`] with an objective that evaluates one or two points per call
/// (`eval(xs, out)` writes `f(xs[i])` to `out[i]`, `xs.len()` in {1, 2}), so that both
/// probes of an iteration can share one pass over the data. Same procedure and result.
pub fn golden_section_batch(
    eval: impl FnMut(&[f64], &mut [f64]),
    lo: f64,
    hi: f64,
    iterations: usize,
) -> GoldenSearch {
    golden_contract(&mut Plain(eval), lo, hi, iterations, 1)
}

/// The contract's procedure with a bracket-aware (and possibly screening) evaluator;
/// the trace holds the iterations that are multiples of `trace_every` (and the last).
pub(crate) fn golden_contract(
    eval: &mut impl Evaluator,
    lo: f64,
    hi: f64,
    iterations: usize,
    trace_every: usize,
) -> GoldenSearch {
    let (mut a, mut b) = (lo, hi);
    let mut probes = Probes::new();
    let mut trace = Vec::with_capacity(iterations);
    for iteration in 1..=iterations {
        let c = b - PHI * (b - a);
        let d = a + PHI * (b - a);
        if probes.pair(c, d, (a, b), eval) {
            b = d;
        } else {
            a = c;
        }
        if iteration % trace_every.max(1) == 0 || iteration == iterations {
            if probes.screened > 0 {
                probes.settle_best((a, b), eval);
            }
            trace.push(probes.step(iteration, (a, b)));
        }
    }
    let x = 0.5 * (a + b);
    GoldenSearch {
        x,
        lo: a,
        hi: b,
        at_bracket_end: at_bracket_end(x, lo, hi),
        trace,
        evaluations: probes.evaluations,
        screened: probes.screened,
    }
}

/// Golden-section minimisation reusing the surviving probe (one new evaluation per
/// iteration), stopping once `b - a <= rel_width * (a + b) / 2` or after
/// `max_iterations` iterations. The fixtures README accepts it with `rel_width = 1e-9`
/// (its `tau` is within `tau_tolerance` of the contract's); `bracket_width_after` of the
/// golden-section vector does not apply to it.
///
/// Same return value and degenerate-input behaviour as [`golden_section`]; with
/// `rel_width <= 0` it runs `max_iterations` iterations.
pub fn golden_section_reuse(
    mut f: impl FnMut(f64) -> f64,
    lo: f64,
    hi: f64,
    rel_width: f64,
    max_iterations: usize,
) -> GoldenSearch {
    let eval = |xs: &[f64], out: &mut [f64]| {
        for (o, &x) in out.iter_mut().zip(xs) {
            *o = f(x);
        }
    };
    golden_reuse(&mut Plain(eval), lo, hi, rel_width, max_iterations)
}

/// The reuse-the-surviving-probe procedure with a bracket-aware evaluator.
pub(crate) fn golden_reuse(
    eval: &mut impl Evaluator,
    lo: f64,
    hi: f64,
    rel_width: f64,
    max_iterations: usize,
) -> GoldenSearch {
    let (mut a, mut b) = (lo, hi);
    let mut probes = Probes::new();
    let mut c = b - PHI * (b - a);
    let mut d = a + PHI * (b - a);
    let (mut fc, mut fd) = (0.0, 0.0);
    if max_iterations > 0 {
        let v = probes.exact(&[c, d], (a, b), eval);
        (fc, fd) = (v[0], v[1]);
        probes.record(c, (fc, 0.0));
        probes.record(d, (fd, 0.0));
    }
    let mut trace = Vec::new();
    for iteration in 1..=max_iterations {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - PHI * (b - a);
            fc = probes.one(c, (a, b), eval);
            probes.record(c, (fc, 0.0));
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + PHI * (b - a);
            fd = probes.one(d, (a, b), eval);
            probes.record(d, (fd, 0.0));
        }
        trace.push(probes.step(iteration, (a, b)));
        if b - a <= rel_width * 0.5 * (a + b) {
            break;
        }
    }
    let x = 0.5 * (a + b);
    GoldenSearch {
        x,
        lo: a,
        hi: b,
        at_bracket_end: at_bracket_end(x, lo, hi),
        trace,
        evaluations: probes.evaluations,
        screened: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phi_is_the_golden_ratio_conjugate() {
        assert_eq!(PHI, (5f64.sqrt() - 1.0) / 2.0);
    }

    #[test]
    fn quadratic_and_monotone() {
        let g = golden_section(|t| (t - 1.4172) * (t - 1.4172), 0.05, 20.0, 80);
        assert_eq!(g.x, 1.4172000000000007);
        assert_eq!(g.trace.len(), 80);
        assert!(!g.at_bracket_end);
        assert!(g.evaluations < 160);
        let g = golden_section(|t| t, 0.05, 20.0, 80);
        assert!(g.at_bracket_end);
        let g = golden_section(|t| -t, 0.05, 20.0, 80);
        assert_eq!(g.x, 20.0);
        let g = golden_section(|t| t, 0.05, 20.0, 0);
        assert_eq!(g.x, 10.025);
        assert!(g.trace.is_empty());
    }

    #[test]
    fn reuse_variant_lands_close() {
        for m in [0.3, 1.4172, 7.0, 19.0] {
            let g = golden_section_reuse(|t| (t - m) * (t - m), 0.05, 20.0, 1e-9, 200);
            assert!((g.x - m).abs() <= 1e-6 * m, "{m} {}", g.x);
            assert!(g.hi - g.lo <= 1e-9 * g.x);
            assert_eq!(g.evaluations, g.trace.len() + 2);
        }
    }
}
