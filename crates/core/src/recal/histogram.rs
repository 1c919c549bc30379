//! Histogram binning (Zadrozny & Elkan, "Obtaining calibrated probability estimates
//! from decision trees and naive Bayesian classifiers", ICML 2001) on equal-mass bins.
//!
//! Fit on calibration scores `s` (any monotone score: a probability or a logit) with
//! `m` bins:
//!
//! 1. order the scores ascending (stable); the contract's equal-mass rule puts sorted
//!    position `j` in bin `floor(j m / n)`, so bin `b` starts at sorted position
//!    `ceil(b n / m)`;
//! 2. the thresholds are the scores at those starts, `t_b = s_(ceil(b n / m))` for
//!    `b = 1 .. m-1`, keeping only distinct values above the smallest score (ties
//!    stay in one bin, so the map is a function of the score);
//! 3. a score `x` belongs to bin `#{t : t <= x}` (a score equal to a threshold opens
//!    the upper bin), and the bin's estimate is the share of positives among the
//!    calibration scores that belong to it.
//!
//! Every bin holds at least one calibration score. The calibrated probability of a
//! new score is its bin's estimate (0 or 1 for a bin of one class: histogram binning
//! does not smooth, which the risk warnings of the ledger show).

use super::BinaryLabel;

/// A fitted histogram-binning map.
#[derive(Clone, Debug, PartialEq)]
pub struct HistogramFit {
    /// Ascending, distinct thresholds: bin `b` holds `t_b <= x < t_{b+1}`.
    pub thresholds: Vec<f64>,
    /// Per bin: the share of positives (`thresholds.len() + 1` bins).
    pub estimates: Vec<f64>,
    /// Per bin: calibration scores in it.
    pub counts: Vec<usize>,
}

impl HistogramFit {
    /// The bin of score `x` (the last bin for NaN).
    pub fn bin(&self, x: f64) -> usize {
        if x.is_nan() {
            return self.thresholds.len();
        }
        self.thresholds.partition_point(|&t| t <= x)
    }

    /// The calibrated probability of score `x` (NaN for NaN).
    pub fn predict(&self, x: f64) -> f64 {
        if x.is_nan() {
            return f64::NAN;
        }
        self.estimates[self.bin(x)]
    }
}

/// Fits histogram binning with `m` equal-mass bins (module docs). `None` (undefined)
/// when the split is empty, `m = 0`, or a score is NaN. With one class only, every
/// estimate is 0 or 1. Panics when the lengths differ.
pub fn fit_histogram<L: BinaryLabel>(
    scores: &[f64],
    labels: &[L],
    m: usize,
) -> Option<HistogramFit> {
    assert_eq!(scores.len(), labels.len(), "one label per score");
    let n = scores.len();
    if n == 0 || m == 0 || scores.iter().any(|s| s.is_nan()) {
        return None;
    }
    let mut sorted = scores.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut thresholds: Vec<f64> = Vec::with_capacity(m.saturating_sub(1));
    // the sorted positions that start a bin: every position when m >= n
    let starts: Box<dyn Iterator<Item = usize>> = if m >= n {
        Box::new(1..n)
    } else {
        Box::new((1..m).map(|b| (b * n).div_ceil(m)))
    };
    for start in starts {
        let t = sorted[start];
        if t > sorted[0] && thresholds.last().is_none_or(|&last| t > last) {
            thresholds.push(t);
        }
    }
    let bins = thresholds.len() + 1;
    let (mut counts, mut positives) = (vec![0usize; bins], vec![0usize; bins]);
    let fit = HistogramFit {
        thresholds,
        estimates: Vec::new(),
        counts: Vec::new(),
    };
    for (&s, y) in scores.iter().zip(labels) {
        let b = fit.bin(s);
        counts[b] += 1;
        positives[b] += usize::from(y.is_positive());
    }
    let estimates = counts
        .iter()
        .zip(&positives)
        .map(|(&c, &p)| p as f64 / c as f64)
        .collect();
    Some(HistogramFit {
        estimates,
        counts,
        ..fit
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_mass_bins_and_their_shares() {
        // 10 scores, 5 bins of 2: thresholds at sorted positions 2, 4, 6, 8
        let s = [0.9, 0.1, 0.3, 0.2, 0.5, 0.4, 0.7, 0.6, 0.8, 1.0];
        let y = [1, 0, 0, 1, 1, 0, 1, 0, 1, 1];
        let fit = fit_histogram(&s, &y, 5).unwrap();
        assert_eq!(fit.thresholds, vec![0.3, 0.5, 0.7, 0.9]);
        assert_eq!(fit.counts, vec![2; 5]);
        assert_eq!(fit.estimates, vec![0.5, 0.0, 0.5, 1.0, 1.0]);
        assert_eq!(fit.predict(0.0), 0.5);
        assert_eq!(fit.predict(0.9), 1.0, "a threshold opens the upper bin");
        assert_eq!(fit.predict(0.65), 0.5);
    }

    #[test]
    fn ties_stay_in_one_bin_and_every_bin_is_nonempty() {
        let s = [0.5; 7]
            .iter()
            .chain(&[0.6, 0.7, 0.8])
            .copied()
            .collect::<Vec<_>>();
        let y = [1, 0, 1, 0, 1, 0, 1, 1, 1, 0];
        let fit = fit_histogram(&s, &y, 5).unwrap();
        assert_eq!(fit.thresholds, vec![0.7]);
        assert_eq!(fit.counts, vec![8, 2]);
        assert!(fit.counts.iter().all(|&c| c > 0));
        assert_eq!(fit.predict(0.5), 5.0 / 8.0);
    }

    #[test]
    fn more_bins_than_scores_and_undefined_cases() {
        let fit = fit_histogram(&[0.2, 0.4, 0.6], &[0, 1, 1], 10).unwrap();
        assert_eq!(fit.thresholds, vec![0.4, 0.6]);
        assert_eq!(fit.estimates, vec![0.0, 1.0, 1.0]);
        assert!(fit_histogram::<u8>(&[], &[], 5).is_none());
        assert!(fit_histogram(&[0.1], &[1u8], 0).is_none());
        assert!(fit_histogram(&[0.1, f64::NAN], &[1u8, 0], 2).is_none());
        assert!(fit.predict(f64::NAN).is_nan());
    }
}
