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
/// Every field is `None` on an empty reading.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RiskMetrics {
    /// `acc = (1/n) Σ z_i`.
    pub acc: Option<f64>,
    /// `CSR = (1/n) Σ_{i: z_i = 0} 1 / (1 - c_i)` (1 for a calibrated model in expectation).
    pub csr: Option<f64>,
    /// `σ_CSR = sqrt((1/n²) Σ_i c_i / (1 - c_i))`.
    pub sigma_csr: Option<f64>,
    /// `(CSR - 1) / σ_CSR`.
    pub zscore: Option<f64>,
    /// `P_risk = Φ(zscore)`.
    pub p_risk: Option<f64>,
    /// `cwA = Σ c_i z_i / Σ c_i`.
    pub cwa: Option<f64>,
    /// `gain = (cwA - acc) / (1 - min(cwA, acc))`; `None` when `min(cwA, acc) = 1`.
    pub gain: Option<f64>,
}

/// Computes [`RiskMetrics`] from the top-label predictions (confidences clipped).
pub fn risk_metrics(top: &TopLabels) -> RiskMetrics {
    let n = top.confidence.len();
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
    let mut wrong_ratio = Sum::new();
    let mut odds = Sum::new();
    let mut weighted_correct = Sum::new();
    let mut weight = Sum::new();
    let mut correct = 0usize;
    for (&c, &z) in top.confidence.iter().zip(&top.correct) {
        let c = clip_confidence(c);
        let one_minus = 1.0 - c;
        if z {
            correct += 1;
            weighted_correct.add(c);
        } else {
            wrong_ratio.add(1.0 / one_minus);
        }
        odds.add(c / one_minus);
        weight.add(c);
    }
    let acc = correct as f64 / nf;
    let csr = wrong_ratio.value() / nf;
    let sigma = odds.value().sqrt() / nf;
    let zscore = (csr - 1.0) / sigma;
    let cwa = weighted_correct.value() / weight.value();
    let floor = cwa.min(acc);
    RiskMetrics {
        acc: Some(acc),
        csr: Some(csr),
        sigma_csr: Some(sigma),
        zscore: Some(zscore),
        p_risk: Some(crate::special::normal_cdf(zscore)),
        cwa: Some(cwa),
        gain: (floor < 1.0).then(|| (cwa - acc) / (1.0 - floor)),
    }
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
    /// marginal is 0.
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
    let mut cw = vec![[Sum::new(); 4]; k];
    let mut counts = vec![[0u64; 4]; k];
    let mut total_weight = Sum::new();
    let mut n = 0u64;
    for ((&yhat, &c), &y) in top.predicted.iter().zip(&top.confidence).zip(labels) {
        let w = clip_confidence(c);
        total_weight.add(w);
        n += 1;
        // cell 0 = tp, 1 = fp, 2 = fn; tn is the remainder
        if yhat == y {
            cw[y as usize][0].add(w);
            counts[y as usize][0] += 1;
        } else {
            if (yhat as usize) < k {
                cw[yhat as usize][1].add(w);
                counts[yhat as usize][1] += 1;
            }
            cw[y as usize][2].add(w);
            counts[y as usize][2] += 1;
        }
    }
    let total_weight = total_weight.value();
    (0..k)
        .map(|r| {
            let [tp, fp, fn_, _] = cw[r];
            let (tp, fp, fn_) = (tp.value(), fp.value(), fn_.value());
            let mut tn = Sum::new();
            tn.add(total_weight);
            tn.add(-tp);
            tn.add(-fp);
            tn.add(-fn_);
            let [ctp, cfp, cfn, _] = counts[r];
            (
                Confusion {
                    tp,
                    fp,
                    fn_,
                    tn: tn.value(),
                },
                Confusion {
                    tp: ctp as f64,
                    fp: cfp as f64,
                    fn_: cfn as f64,
                    tn: (n - ctp - cfp - cfn) as f64,
                },
            )
        })
        .collect()
}
