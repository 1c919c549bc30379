//! Beyond-ECE metrics on the confidence reading (METRICS.md §5, seed 002): the
//! Calibrated Size Ratio and its overconfidence risk, confidence-weighted accuracy
//! and the confidence-weighted confusion metrics.

use crate::reading::TopLabels;
use crate::sum::Sum;

/// Confidences are clipped to `[1e-8, 1 - 1e-8]` in every use of this section.
pub const CONFIDENCE_CLIP: f64 = 1e-8;

/// `c` clipped to `[1e-8, 1 - 1e-8]`.
#[inline]
pub fn clip_confidence(c: f64) -> f64 {
    c.clamp(CONFIDENCE_CLIP, 1.0 - CONFIDENCE_CLIP)
}

/// CSR, its standard deviation, the overconfidence risk and cwA (METRICS.md §5.1–5.3).
/// Every field is `None` on an empty reading. With the `serde` feature it crosses
/// the page↔worker boundary as an object of these field names.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RiskMetrics {
    /// `acc = (1/n) Σ z_i`.
    pub acc: Option<f64>,
    /// `CSR = (1/n) Σ_{i: z_i = 0} 1 / (1 - c_i)` (1 for a calibrated model in expectation).
    pub csr: Option<f64>,
    /// `σ_CSR = sqrt((1/n²) Σ_i c_i / (1 - c_i))`.
    pub sigma_csr: Option<f64>,
    /// `(CSR - 1) / σ_CSR`.
    pub zscore: Option<f64>,
    /// Overconfidence risk, read from the upper tail only: `P_risk = Φ(zscore)` when
    /// `CSR > 1`, and `0` when `CSR <= 1` (a model that does not overshoot the
    /// calibrated size carries no overconfidence risk; under perfect calibration the
    /// mean of `P_risk` is about 0.375, not 0.5).
    pub p_risk: Option<f64>,
    /// `cwA = Σ c_i z_i / Σ c_i`.
    pub cwa: Option<f64>,
    /// `gain = (cwA - acc) / (1 - min(cwA, acc))`; `None` when `min(cwA, acc) = 1`.
    pub gain: Option<f64>,
}

/// Computes [`RiskMetrics`] from the top-label predictions (confidences clipped).
pub fn risk_metrics(top: &TopLabels) -> RiskMetrics {
    let mut acc = RiskAccumulator::default();
    for (&c, &z) in top.confidence.iter().zip(&top.correct) {
        acc.add(c, z);
    }
    acc.finish()
}

/// Accumulates [`RiskMetrics`] sample by sample (in sample order, so the sums are
/// those of [`risk_metrics`], bit for bit).
#[derive(Clone, Copy, Debug, Default)]
pub struct RiskAccumulator {
    n: usize,
    correct: usize,
    wrong_ratio: Sum,
    odds: Sum,
    weighted_correct: Sum,
    weight: Sum,
}

impl RiskAccumulator {
    /// Adds a sample with (unclipped) top-label confidence `c` and correctness `z`.
    #[inline(always)]
    pub fn add(&mut self, c: f64, z: bool) {
        let c = clip_confidence(c);
        let one_minus = 1.0 - c;
        if z {
            self.correct += 1;
            self.weighted_correct.add(c);
        } else {
            self.wrong_ratio.add(1.0 / one_minus);
        }
        self.odds.add(c / one_minus);
        self.weight.add(c);
        self.n += 1;
    }

    /// The accumulator holding these sums (an aggregate's, `calibscope-bins/1`): `n`
    /// samples, `correct = Σ z`, `wrong_ratio = Σ_{z=0} 1/(1-c)`, `odds = Σ c/(1-c)`,
    /// `weighted_correct = Σ c z`, `weight = Σ c`, each `c` clipped as in [`Self::add`].
    /// [`Self::finish`] then gives the metrics from the sums, one formula for rows and
    /// aggregates.
    pub fn from_sums(sums: &RiskSums) -> Self {
        let one = |x: f64| {
            let mut s = Sum::new();
            s.add(x);
            s
        };
        RiskAccumulator {
            n: sums.n as usize,
            correct: sums.correct as usize,
            wrong_ratio: one(sums.wrong_ratio),
            odds: one(sums.odds),
            weighted_correct: one(sums.weighted_correct),
            weight: one(sums.weight),
        }
    }

    /// The sums accumulated so far (see [`Self::from_sums`]).
    pub fn sums(&self) -> RiskSums {
        RiskSums {
            n: self.n as u64,
            correct: self.correct as u64,
            wrong_ratio: self.wrong_ratio.value(),
            odds: self.odds.value(),
            weighted_correct: self.weighted_correct.value(),
            weight: self.weight.value(),
        }
    }

    /// The metrics; every field `None` when no sample was added.
    pub fn finish(&self) -> RiskMetrics {
        let n = self.n;
        if n == 0 {
            return RiskMetrics {
                acc: None,
                csr: None,
                sigma_csr: None,
                zscore: None,
                p_risk: None,
                cwa: None,
                gain: None,
            };
        }
        let nf = n as f64;
        let acc = self.correct as f64 / nf;
        let csr = self.wrong_ratio.value() / nf;
        let sigma = self.odds.value().sqrt() / nf;
        let zscore = (csr - 1.0) / sigma;
        let cwa = self.weighted_correct.value() / self.weight.value();
        let floor = cwa.min(acc);
        RiskMetrics {
            acc: Some(acc),
            csr: Some(csr),
            sigma_csr: Some(sigma),
            zscore: Some(zscore),
            p_risk: Some(if csr > 1.0 {
                crate::special::normal_cdf(zscore)
            } else {
                0.0
            }),
            cwa: Some(cwa),
            gain: (floor < 1.0).then(|| (cwa - acc) / (1.0 - floor)),
        }
    }
}

/// The sums behind [`RiskMetrics`] (see [`RiskAccumulator::from_sums`]); they add
/// up over shards of the rows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RiskSums {
    /// Number of samples.
    pub n: u64,
    /// `Σ z`.
    pub correct: u64,
    /// `Σ_{z=0} 1/(1-c)` (clipped `c`).
    pub wrong_ratio: f64,
    /// `Σ c/(1-c)`.
    pub odds: f64,
    /// `Σ c z`.
    pub weighted_correct: f64,
    /// `Σ c`.
    pub weight: f64,
}

/// A 2×2 confusion table (counts, or sums of confidence weights).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Confusion {
    /// True positives.
    pub tp: f64,
    /// False positives.
    pub fp: f64,
    /// False negatives.
    pub fn_: f64,
    /// True negatives.
    pub tn: f64,
}

fn ratio(num: f64, den: f64) -> Option<f64> {
    (den != 0.0).then(|| num / den)
}

impl Confusion {
    /// `tp / (tp + fp)`; `None` on 0/0.
    pub fn precision(&self) -> Option<f64> {
        ratio(self.tp, self.tp + self.fp)
    }
    /// `tp / (tp + fn)`; `None` on 0/0.
    pub fn recall(&self) -> Option<f64> {
        ratio(self.tp, self.tp + self.fn_)
    }
    /// `tn / (tn + fp)`; `None` on 0/0.
    pub fn specificity(&self) -> Option<f64> {
        ratio(self.tn, self.tn + self.fp)
    }
    /// `2 tp / (2 tp + fp + fn)` (the harmonic mean of precision and recall);
    /// `None` on 0/0.
    pub fn f1(&self) -> Option<f64> {
        ratio(2.0 * self.tp, 2.0 * self.tp + self.fp + self.fn_)
    }
    /// `(tp tn - fp fn) / sqrt((tp+fp)(tp+fn)(tn+fp)(tn+fn))`; `None` when a
    /// marginal is 0 (a class never predicted, never true, always predicted or
    /// always true: every cell of a zero marginal is exactly 0, see
    /// [`ConfusionAccumulator::finish`]).
    pub fn mcc(&self) -> Option<f64> {
        let d =
            (self.tp + self.fp) * (self.tp + self.fn_) * (self.tn + self.fp) * (self.tn + self.fn_);
        ratio(self.tp * self.tn - self.fp * self.fn_, d.sqrt())
    }
    /// `(tp + tn) / (tp + fp + fn + tn)`; `None` on 0/0.
    pub fn accuracy(&self) -> Option<f64> {
        ratio(self.tp + self.tn, self.tp + self.fp + self.fn_ + self.tn)
    }
}

/// Per class `r`, the confidence-weighted confusion (each sample weighted by its
/// clipped top-label confidence `c_i`) and the plain counts (METRICS.md §5.4):
/// `TP = Σ w 1[ŷ = y = r]`, `FN = Σ w 1[ŷ ≠ y, y = r]`, `FP = Σ w 1[ŷ = r, y ≠ r]`,
/// `TN = Σ w 1[ŷ ≠ r, y ≠ r]`. Returns `(weighted, counts)` for `r` in `0..k`.
pub fn confusion_per_class(
    top: &TopLabels,
    labels: &[u32],
    k: usize,
) -> Vec<(Confusion, Confusion)> {
    let mut acc = ConfusionAccumulator::new(k);
    for ((&yhat, &c), &y) in top.predicted.iter().zip(&top.confidence).zip(labels) {
        acc.add(yhat, c, y);
    }
    acc.finish()
}

/// Accumulates [`confusion_per_class`] sample by sample (in sample order: the same
/// sums, bit for bit).
#[derive(Clone, Debug)]
pub struct ConfusionAccumulator {
    /// Per class: weighted tp, fp, fn.
    cw: Vec<[Sum; 3]>,
    counts: Vec<[u64; 3]>,
    total_weight: Sum,
    n: u64,
}

impl ConfusionAccumulator {
    /// An empty accumulator for `k` classes.
    pub fn new(k: usize) -> Self {
        ConfusionAccumulator {
            cw: vec![[Sum::new(); 3]; k],
            counts: vec![[0u64; 3]; k],
            total_weight: Sum::new(),
            n: 0,
        }
    }

    /// Adds a sample: predicted class `yhat`, (unclipped) confidence `c`, label `y`.
    #[inline(always)]
    pub fn add(&mut self, yhat: u32, c: f64, y: u32) {
        let k = self.cw.len();
        let w = clip_confidence(c);
        self.total_weight.add(w);
        self.n += 1;
        // cell 0 = tp, 1 = fp, 2 = fn; tn is the remainder
        if yhat == y {
            self.cw[y as usize][0].add(w);
            self.counts[y as usize][0] += 1;
        } else {
            if (yhat as usize) < k {
                self.cw[yhat as usize][1].add(w);
                self.counts[yhat as usize][1] += 1;
            }
            self.cw[y as usize][2].add(w);
            self.counts[y as usize][2] += 1;
        }
    }

    /// The accumulator holding these sums (an aggregate's): per class the weighted
    /// and counted `[tp, fp, fn]` (weights clipped as in [`Self::add`]), the total
    /// weight `Σ c` and the number of samples. [`Self::finish`] then gives the tables.
    pub fn from_sums(cw: &[[f64; 3]], counts: &[[u64; 3]], total_weight: f64, n: u64) -> Self {
        let one = |x: f64| {
            let mut s = Sum::new();
            s.add(x);
            s
        };
        ConfusionAccumulator {
            cw: cw.iter().map(|c| c.map(one)).collect(),
            counts: counts.to_vec(),
            total_weight: one(total_weight),
            n,
        }
    }

    /// `(weighted, counts)` per class. The weighted tn is the total weight minus
    /// tp, fp and fn (a compensated sum), and exactly 0 when no sample of the class
    /// is a true negative, so that a zero marginal is exactly 0 and the MCC undefined.
    pub fn finish(&self) -> Vec<(Confusion, Confusion)> {
        let total_weight = self.total_weight.value();
        let n = self.n;
        self.cw
            .iter()
            .zip(&self.counts)
            .map(|(cw, counts)| {
                let [tp, fp, fn_] = cw;
                let (tp, fp, fn_) = (tp.value(), fp.value(), fn_.value());
                let [ctp, cfp, cfn] = *counts;
                let ctn = n - ctp - cfp - cfn;
                // Every weight is at least the clip 1e-8, so the weighted tn is 0
                // exactly when no sample is a true negative; the remainder below would
                // leave a rounding residue there (~1e-16 of the total weight, which
                // made the MCC of a constant prediction ~1e-8 instead of undefined).
                let tn = if ctn == 0 {
                    0.0
                } else {
                    let mut tn = Sum::new();
                    tn.add(total_weight);
                    tn.add(-tp);
                    tn.add(-fp);
                    tn.add(-fn_);
                    tn.value()
                };
                (
                    Confusion { tp, fp, fn_, tn },
                    Confusion {
                        tp: ctp as f64,
                        fp: cfp as f64,
                        fn_: cfn as f64,
                        tn: ctn as f64,
                    },
                )
            })
            .collect()
    }
}
