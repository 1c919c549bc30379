//! Golden-section search (METRICS.md §6), with a per-iteration trace.
//!
//! [`golden_section`] is the contract's procedure: each iteration recomputes both
//! probes from the bracket `[a, b]`, `c = b - phi (b - a)`, `d = a + phi (b - a)`,
//! `phi = (sqrt 5 - 1) / 2`, and keeps `[a, d]` if `f(c) < f(d)`, else `[c, b]`; the
//! result is the midpoint of the final bracket. A probe equal (bit for bit) to one
//! already evaluated is not evaluated again: `f` must be a pure function, and the
//! outcome is identical to evaluating it every time.
//!
//! [`golden_section_reuse`] is the common variant the fixtures README also accepts:
//! it keeps the surviving probe (one new evaluation per iteration) and stops once the
//! bracket width is `<= rel_width x midpoint`.

/// `phi = (sqrt 5 - 1) / 2`.
pub const PHI: f64 = 0.618_033_988_749_894_9;

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
    /// One entry per iteration.
    pub trace: Vec<GoldenStep>,
    /// Number of calls of `f` (probes repeated bit for bit are not re-evaluated).
    pub evaluations: usize,
}

/// `x` lies within `1e-6` of `lo` or of `hi` (`|x - lo| <= 1e-6 || |hi - x| <= 1e-6`).
/// NaN gives `false`.
pub fn at_bracket_end(x: f64, lo: f64, hi: f64) -> bool {
    (x - lo).abs() <= BRACKET_END_TOLERANCE || (hi - x).abs() <= BRACKET_END_TOLERANCE
}

/// An objective evaluated one or two points at a time, told the current bracket
/// `(a, b)` (every later probe lies in it) and the best value seen so far.
pub(crate) trait Evaluator {
    fn eval(&mut self, xs: &[f64], bracket: (f64, f64), best: f64, out: &mut [f64]);
}

/// Adapts `eval(xs, out)`.
struct Plain<F>(F);

impl<F: FnMut(&[f64], &mut [f64])> Evaluator for Plain<F> {
    fn eval(&mut self, xs: &[f64], _: (f64, f64), _: f64, out: &mut [f64]) {
        (self.0)(xs, out)
    }
}

/// Bookkeeping shared by both procedures: the memo of evaluated probes and the best.
struct Probes {
    seen: Vec<(u64, f64)>,
    best_x: f64,
    best_f: f64,
    evaluations: usize,
}

impl Probes {
    fn new() -> Self {
        Probes {
            seen: Vec::new(),
            best_x: f64::NAN,
            best_f: f64::INFINITY,
            evaluations: 0,
        }
    }

    fn lookup(&self, x: f64) -> Option<f64> {
        let bits = x.to_bits();
        self.seen.iter().rev().find(|p| p.0 == bits).map(|p| p.1)
    }

    fn record(&mut self, x: f64, fx: f64) {
        self.seen.push((x.to_bits(), fx));
        // the first probe of an equal pair (c before d) wins ties
        if fx < self.best_f || self.best_x.is_nan() {
            self.best_x = x;
            self.best_f = fx;
        }
    }

    /// `f(c)` and `f(d)`, evaluating (through `eval`, 1 or 2 points at once) only the
    /// probes not seen before.
    fn pair(&mut self, c: f64, d: f64, ab: (f64, f64), eval: &mut impl Evaluator) -> (f64, f64) {
        let (fc, fd) = match (self.lookup(c), self.lookup(d)) {
            (Some(fc), Some(fd)) => (fc, fd),
            (Some(fc), None) => (fc, self.one(d, ab, eval)),
            (None, Some(fd)) => (self.one(c, ab, eval), fd),
            (None, None) if c.to_bits() == d.to_bits() => {
                let v = self.one(c, ab, eval);
                (v, v)
            }
            (None, None) => {
                let mut out = [0.0; 2];
                eval.eval(&[c, d], ab, self.best_f, &mut out);
                self.evaluations += 2;
                (out[0], out[1])
            }
        };
        self.record(c, fc);
        self.record(d, fd);
        (fc, fd)
    }

    fn one(&mut self, x: f64, ab: (f64, f64), eval: &mut impl Evaluator) -> f64 {
        let mut out = [0.0];
        eval.eval(&[x], ab, self.best_f, &mut out);
        self.evaluations += 1;
        out[0]
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
    golden_contract(&mut Plain(eval), lo, hi, iterations)
}

/// The contract's procedure with a bracket-aware evaluator.
pub(crate) fn golden_contract(
    eval: &mut impl Evaluator,
    lo: f64,
    hi: f64,
    iterations: usize,
) -> GoldenSearch {
    let (mut a, mut b) = (lo, hi);
    let mut probes = Probes::new();
    let mut trace = Vec::with_capacity(iterations);
    for iteration in 1..=iterations {
        let c = b - PHI * (b - a);
        let d = a + PHI * (b - a);
        let (fc, fd) = probes.pair(c, d, (a, b), eval);
        if fc < fd {
            b = d;
        } else {
            a = c;
        }
        trace.push(GoldenStep {
            iteration,
            lo: a,
            hi: b,
            width: b - a,
            best_x: probes.best_x,
            best_f: probes.best_f,
        });
    }
    let x = 0.5 * (a + b);
    GoldenSearch {
        x,
        lo: a,
        hi: b,
        at_bracket_end: at_bracket_end(x, lo, hi),
        trace,
        evaluations: probes.evaluations,
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
    let (mut fc, mut fd) = if max_iterations > 0 {
        probes.pair(c, d, (a, b), eval)
    } else {
        (0.0, 0.0)
    };
    let mut trace = Vec::new();
    for iteration in 1..=max_iterations {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - PHI * (b - a);
            fc = probes.one(c, (a, b), eval);
            probes.record(c, fc);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + PHI * (b - a);
            fd = probes.one(d, (a, b), eval);
            probes.record(d, fd);
        }
        trace.push(GoldenStep {
            iteration,
            lo: a,
            hi: b,
            width: b - a,
            best_x: probes.best_x,
            best_f: probes.best_f,
        });
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
