//! The synthetic generators of METRICS.md §7 (seed paper 002, Table 4): ten confidence
//! distributions times eight calibration modes, for binary top-label predictions.
//!
//! Everything is driven by one [`SplitMix64`] stream seeded with the caller's seed, with
//! samplers written here (no `rand` dependency), so a given
//! `(distribution, mode, n, seed)` always yields the same data within one version of
//! the project. Per sample, in this order: the confidence `c` (as many draws as its
//! sampler needs), the predicted class `yhat` (the top bit of one `next_u64`), the
//! random modes' `p_true(c)` (one uniform), and `correct = (U < p_true(c))` (one
//! uniform); `label = yhat` if correct else `1 - yhat`. Uniform doubles are
//! `(next_u64() >> 11) * 2^-53` in `[0, 1)`.

use crate::split::SplitMix64;

/// The confidence distributions of METRICS.md §7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// `U(0, 1)`.
    Uniform,
    /// `Beta(3, 0.5)`.
    SkewHigh,
    /// `Beta(0.5, 3)`.
    SkewLow,
    /// `1/2 Beta(0.5, 3) + 1/2 Beta(3, 0.5)`.
    Bimodal,
    /// `U(0.8, 1)`.
    TightHi,
    /// `U(0, 0.2)`.
    TightLo,
    /// `N(0.7, 0.1^2)` truncated to `[0, 1)` (by rejection).
    Normal,
    /// `exp(v)`, `v ~ U(ln 1e-4, ln(1 - 1e-6))`.
    LogUniformLow,
    /// `1 - exp(v)`, `v ~ U(ln 1e-6, ln 0.9)`.
    LogUniformHigh,
    /// `Beta(5, 5)`.
    Bell,
}

impl Distribution {
    /// Every distribution, in the order of the contract.
    pub const ALL: [Distribution; 10] = [
        Distribution::Uniform,
        Distribution::SkewHigh,
        Distribution::SkewLow,
        Distribution::Bimodal,
        Distribution::TightHi,
        Distribution::TightLo,
        Distribution::Normal,
        Distribution::LogUniformLow,
        Distribution::LogUniformHigh,
        Distribution::Bell,
    ];

    /// The snake-case id used in fixture names and `synthetic_moments.json`
    /// (`"uniform"`, `"skew_high"`, ..., `"log_uniform_high"`, `"bell"`).
    pub fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::SkewHigh => "skew_high",
            Distribution::SkewLow => "skew_low",
            Distribution::Bimodal => "bimodal",
            Distribution::TightHi => "tight_hi",
            Distribution::TightLo => "tight_lo",
            Distribution::Normal => "normal",
            Distribution::LogUniformLow => "log_uniform_low",
            Distribution::LogUniformHigh => "log_uniform_high",
            Distribution::Bell => "bell",
        }
    }

    /// The distribution whose [`name`](Self::name) is `name` (exact match); `None` for
    /// any other string.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.name() == name)
    }

    fn sample(self, s: &mut Sampler) -> f64 {
        match self {
            Distribution::Uniform => s.uniform(),
            Distribution::SkewHigh => s.beta(3.0, 0.5),
            Distribution::SkewLow => s.beta(0.5, 3.0),
            Distribution::Bimodal => {
                if s.uniform() < 0.5 {
                    s.beta(0.5, 3.0)
                } else {
                    s.beta(3.0, 0.5)
                }
            }
            Distribution::TightHi => 0.8 + 0.2 * s.uniform(),
            Distribution::TightLo => 0.2 * s.uniform(),
            Distribution::Normal => loop {
                let c = 0.7 + 0.1 * s.normal();
                if (0.0..1.0).contains(&c) {
                    break c;
                }
            },
            Distribution::LogUniformLow => {
                let (lo, hi) = (1e-4f64.ln(), (-1e-6f64).ln_1p());
                (lo + (hi - lo) * s.uniform()).exp()
            }
            Distribution::LogUniformHigh => {
                let (lo, hi) = (1e-6f64.ln(), 0.9f64.ln());
                -(lo + (hi - lo) * s.uniform()).exp_m1()
            }
            Distribution::Bell => s.beta(5.0, 5.0),
        }
    }
}

/// The calibration modes `p_true(c)` of METRICS.md §7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// `0.5`.
    Random05,
    /// `c`.
    Perfect,
    /// `0.2 + 0.8 c`.
    UnderconfLinear,
    /// `sqrt(c)`.
    UnderconfSqrt,
    /// `U(c, 1)`.
    RandomOver,
    /// `1 - sqrt(1 - c)`.
    OverconfSqrt,
    /// `0.5 c`.
    OverconfHalf,
    /// `U(0, c)`.
    RandomUnder,
}

impl Mode {
    /// Every mode, in the order of the contract.
    pub const ALL: [Mode; 8] = [
        Mode::Random05,
        Mode::Perfect,
        Mode::UnderconfLinear,
        Mode::UnderconfSqrt,
        Mode::RandomOver,
        Mode::OverconfSqrt,
        Mode::OverconfHalf,
        Mode::RandomUnder,
    ];

    /// The snake-case id used in fixture names and `synthetic_moments.json`
    /// (`"random_0.5"`, `"perfect"`, `"underconf_linear"`, `"underconf_sqrt"`,
    /// `"random_over_c"`, `"overconf_sqrt"`, `"overconf_half"`, `"random_under_c"`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Random05 => "random_0.5",
            Mode::Perfect => "perfect",
            Mode::UnderconfLinear => "underconf_linear",
            Mode::UnderconfSqrt => "underconf_sqrt",
            Mode::RandomOver => "random_over_c",
            Mode::OverconfSqrt => "overconf_sqrt",
            Mode::OverconfHalf => "overconf_half",
            Mode::RandomUnder => "random_under_c",
        }
    }

    /// The mode whose [`name`](Self::name) is `name` (exact match); `None` for any
    /// other string.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    fn p_true(self, c: f64, s: &mut Sampler) -> f64 {
        match self {
            Mode::Random05 => 0.5,
            Mode::Perfect => c,
            Mode::UnderconfLinear => 0.2 + 0.8 * c,
            Mode::UnderconfSqrt => c.sqrt(),
            Mode::RandomOver => c + (1.0 - c) * s.uniform(),
            Mode::OverconfSqrt => 1.0 - (1.0 - c).sqrt(),
            Mode::OverconfHalf => 0.5 * c,
            Mode::RandomUnder => c * s.uniform(),
        }
    }
}

/// A synthetic binary prediction set in top-label form: `predicted[i]` in `{0, 1}`
/// with confidence `confidence[i]` in `[0, 1]`, and the true `labels[i]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Synthetic {
    /// True classes, `0` or `1`.
    pub labels: Vec<u32>,
    /// Predicted classes `yhat`, `0` or `1`.
    pub predicted: Vec<u32>,
    /// Confidence `c` in the predicted class.
    pub confidence: Vec<f64>,
}

/// `n` samples of `(distribution, mode)` from the stream seeded with `seed`:
/// `c ~ distribution`, `yhat ~ U{0, 1}`, `correct ~ Bernoulli(p_true(c))`,
/// `label = yhat` if correct else `1 - yhat` (see the module docs for the draw order).
///
/// Deterministic for `(dist, mode, n, seed)`, and a prefix of a longer run with the
/// same seed. `n = 0` gives empty vectors. Confidences lie in `[0, 1]`; the Beta
/// distributions can return exactly 0 or 1 (with tiny probability), the others stay
/// inside their supports (`Normal` and the uniforms in `[.., 1)`).
pub fn generate(dist: Distribution, mode: Mode, n: usize, seed: u64) -> Synthetic {
    let mut s = Sampler::new(seed);
    let mut out = Synthetic {
        labels: Vec::with_capacity(n),
        predicted: Vec::with_capacity(n),
        confidence: Vec::with_capacity(n),
    };
    for _ in 0..n {
        let c = dist.sample(&mut s);
        let yhat = (s.rng.next_u64() >> 63) as u32;
        let p = mode.p_true(c, &mut s);
        let correct = s.uniform() < p;
        out.confidence.push(c);
        out.predicted.push(yhat);
        out.labels.push(if correct { yhat } else { 1 - yhat });
    }
    out
}

/// The `label,p` form of a synthetic set: `P(y = 1) = c` if `yhat = 1` else `1 - c`.
/// Empty input gives an empty vector; the result has `confidence.len()` entries.
pub fn to_binary_p(s: &Synthetic) -> Vec<f64> {
    s.confidence
        .iter()
        .zip(&s.predicted)
        .map(|(&c, &yhat)| if yhat == 1 { c } else { 1.0 - c })
        .collect()
}

/// Samplers on one SplitMix64 stream.
struct Sampler {
    rng: SplitMix64,
    /// The second normal of the last polar-method pair, not yet used.
    spare: Option<f64>,
}

impl Sampler {
    fn new(seed: u64) -> Self {
        Sampler {
            rng: SplitMix64::new(seed),
            spare: None,
        }
    }

    /// `U[0, 1)`.
    fn uniform(&mut self) -> f64 {
        self.rng.next_f64()
    }

    /// `U(0, 1]` (safe for `ln` and powers).
    fn uniform_pos(&mut self) -> f64 {
        1.0 - self.rng.next_f64()
    }

    /// Standard normal, Marsaglia's polar method (two per accepted pair).
    fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        loop {
            let u = 2.0 * self.uniform() - 1.0;
            let v = 2.0 * self.uniform() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                let f = (-2.0 * s.ln() / s).sqrt();
                self.spare = Some(v * f);
                return u * f;
            }
        }
    }

    /// `Gamma(shape, 1)`: Marsaglia & Tsang (2000); for `shape < 1`,
    /// `Gamma(shape + 1) * U^(1/shape)`.
    fn gamma(&mut self, shape: f64) -> f64 {
        if shape < 1.0 {
            let g = self.gamma(shape + 1.0);
            return g * self.uniform_pos().powf(1.0 / shape);
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.normal();
            let v = 1.0 + c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = self.uniform_pos();
            let x2 = x * x;
            if u < 1.0 - 0.0331 * x2 * x2 || u.ln() < 0.5 * x2 + d * (1.0 - v + v.ln()) {
                return d * v;
            }
        }
    }

    /// `Beta(a, b) = X / (X + Y)`, `X ~ Gamma(a)`, `Y ~ Gamma(b)`.
    fn beta(&mut self, a: f64, b: f64) -> f64 {
        loop {
            let x = self.gamma(a);
            let y = self.gamma(b);
            let sum = x + y;
            if sum > 0.0 {
                return x / sum;
            }
        }
    }
}

/// The benchmarks' reference multiclass workload (`benches/temperature.rs`,
/// `examples/recal_answer.rs`, `bench/wasm_core`): `n x k` row-major `f32` logits,
/// N(0, 3^2) noise per class with the true class boosted by 6 in 80 % of the rows
/// (overconfident: the fitted tau is ~2), and the labels. Per row, from one
/// [`SplitMix64`] seeded with `seed`: the label (`next_u64 % k`), the boost (one
/// uniform), then `k` Box–Muller normals. Not a METRICS.md generator.
pub fn boosted_logits(n: usize, k: usize, seed: u64) -> (Vec<f32>, Vec<u32>) {
    let mut rng = SplitMix64::new(seed);
    let mut z = Vec::with_capacity(n * k);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let label = (rng.next_u64() % k as u64) as usize;
        let boost = if rng.next_f64() < 0.8 { 6.0 } else { 0.0 };
        for r in 0..k {
            let b = if r == label { boost } else { 0.0 };
            z.push((3.0 * box_muller(&mut rng) + b) as f32);
        }
        y.push(label as u32);
    }
    (z, y)
}

/// The benchmarks' reference binary workload: `n` labels (the low bit of `next_u64`),
/// then the logits `s = 4 (2y - 1) + N(0, 3^2)` (Box–Muller), from one [`SplitMix64`]
/// seeded with `seed`. Not a METRICS.md generator.
pub fn separated_logits(n: usize, seed: u64) -> (Vec<f64>, Vec<u8>) {
    let mut rng = SplitMix64::new(seed);
    let y: Vec<u8> = (0..n).map(|_| (rng.next_u64() & 1) as u8).collect();
    let s = y
        .iter()
        .map(|&v| 4.0 * (2.0 * f64::from(v) - 1.0) + 3.0 * box_muller(&mut rng))
        .collect();
    (s, y)
}

/// One standard normal from two uniforms (Box–Muller's cosine branch).
fn box_muller(rng: &mut SplitMix64) -> f64 {
    let (u, v) = (rng.next_f64().max(1e-300), rng.next_f64());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in Distribution::ALL {
            assert_eq!(Distribution::from_name(d.name()), Some(d));
        }
        for m in Mode::ALL {
            assert_eq!(Mode::from_name(m.name()), Some(m));
        }
        assert_eq!(Distribution::from_name("Uniform"), None);
        assert_eq!(Mode::from_name(""), None);
    }

    #[test]
    fn deterministic_and_prefix_stable() {
        let a = generate(Distribution::Bimodal, Mode::RandomOver, 500, 9);
        let b = generate(Distribution::Bimodal, Mode::RandomOver, 500, 9);
        assert_eq!(a, b);
        let c = generate(Distribution::Bimodal, Mode::RandomOver, 200, 9);
        assert_eq!(c.confidence[..], a.confidence[..200]);
        assert_eq!(
            generate(Distribution::Bell, Mode::Perfect, 0, 1),
            Synthetic::default()
        );
    }

    #[test]
    fn supports_and_binary_form() {
        for d in Distribution::ALL {
            let s = generate(d, Mode::Perfect, 2000, 3);
            assert!(
                s.confidence.iter().all(|c| (0.0..=1.0).contains(c)),
                "{d:?}"
            );
            assert!(s.labels.iter().chain(&s.predicted).all(|&y| y <= 1));
            let p = to_binary_p(&s);
            for ((&pi, &c), &yhat) in p.iter().zip(&s.confidence).zip(&s.predicted) {
                assert_eq!(pi, if yhat == 1 { c } else { 1.0 - c });
            }
        }
        let t = generate(Distribution::TightHi, Mode::Perfect, 1000, 0);
        assert!(t.confidence.iter().all(|&c| (0.8..1.0).contains(&c)));
        let t = generate(Distribution::LogUniformLow, Mode::Perfect, 1000, 0);
        assert!(t
            .confidence
            .iter()
            .all(|&c| (1e-4 * 0.999_999..=1.0 - 1e-6).contains(&c)));
    }
}
