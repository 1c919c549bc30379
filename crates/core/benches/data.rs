//! Generated prediction sets for benchmarks and profiling (deterministic).
#![allow(dead_code)]

use calibscope_core::{PredictionSet, Scores, Source, Values};

/// A 64-bit LCG: fast, deterministic, good enough for benchmark inputs.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` binary forecasts `P(y=1)` stored as f32, slightly overconfident.
pub fn binary(n: usize, seed: u64) -> PredictionSet {
    let mut rng = Lcg(seed);
    let u: Vec<f32> = (0..n).map(|_| rng.uniform() as f32).collect();
    let labels = u
        .iter()
        .map(|&p| (rng.uniform() < (p as f64).powf(1.3)) as u32)
        .collect();
    PredictionSet {
        labels,
        scores: Scores::Column {
            values: Values::F32(u),
            source: Source::Probs,
        },
        k: 2,
    }
}

/// `n` binary logits `s = logit(u)` stored as f32, labels drawn as in [`binary`].
pub fn binary_logits(n: usize, seed: u64) -> PredictionSet {
    let mut set = binary(n, seed);
    if let Scores::Column {
        values: Values::F32(u),
        source,
    } = &mut set.scores
    {
        for x in u.iter_mut() {
            let p = (*x as f64).clamp(1e-7, 1.0 - 1e-7);
            *x = (p / (1.0 - p)).ln() as f32;
        }
        *source = Source::Logits;
    }
    set
}

/// `n × k` float32 logits, the true class boosted.
pub fn logits(n: usize, k: usize, seed: u64) -> PredictionSet {
    let mut rng = Lcg(seed);
    let labels: Vec<u32> = (0..n).map(|_| (rng.uniform() * k as f64) as u32).collect();
    let mut z = Vec::with_capacity(n * k);
    for &y in &labels {
        for r in 0..k {
            let boost = if r as u32 == y {
                3.0 * rng.uniform()
            } else {
                0.0
            };
            z.push((rng.uniform() * 4.0 + boost) as f32);
        }
    }
    PredictionSet {
        labels,
        scores: Scores::Matrix {
            values: Values::F32(z),
            k,
            source: Source::Logits,
        },
        k,
    }
}

/// `models` multiclass models (k = 10) on the same `n` samples, of varying quality.
pub fn model_zoo(models: usize, n: usize, seed: u64) -> Vec<PredictionSet> {
    let base = logits(n, 10, seed);
    (0..models)
        .map(|j| {
            let mut set = base.clone();
            if let Scores::Matrix {
                values: Values::F32(z),
                ..
            } = &mut set.scores
            {
                let scale = 0.5 + 0.25 * j as f32;
                let mut rng = Lcg(seed + j as u64 + 1);
                for v in z.iter_mut() {
                    *v = *v * scale + rng.uniform() as f32;
                }
            }
            set
        })
        .collect()
}
