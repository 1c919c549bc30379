//! Calibration-error estimators beyond the plug-in ECE (METRICS.md §8.2–8.4): the
//! debiased L2 error of Kumar, Liang & Ma (2019), the monotone sweep of Roelofs et
//! al. (2022) and CalDist (seed 002, Table 7). All on the bins of
//! [`crate::binning`]; none re-implements a bin rule.

use crate::binning::{BinSource, Binning, SortedReading};
use crate::recal::fit_isotonic;
use crate::sum::Sum;

/// The debiased L2 calibration error (Kumar et al. 2019; uncertainty-calibration's
/// `get_calibration_error(..., debias=True)` on the same bins):
/// `sqrt(max(0, sum_B (n_B/n) [(acc_B - conf_B)² - acc_B (1 - acc_B) / (n_B - 1)]))`,
/// a bin with `n_B = 1` contributing 0.
///
/// `None` (undefined) when the reading is empty or `m = 0`. A single class is defined
/// (its bins have `acc_B` 0 or 1 and no variance correction). Forecasts are validated
/// before binning; a NaN lands in bin 0 and makes the result NaN.
pub fn ece_l2_debiased<S: BinSource + ?Sized>(
    source: &S,
    binning: Binning,
    m: usize,
) -> Option<f64> {
    let n = source.samples();
    if n == 0 || m == 0 {
        return None;
    }
    let mut total = Sum::new();
    source.visit_bins(binning, m, &mut |bin| {
        let count = bin.count();
        if count > 1 {
            let (acc, gap) = (bin.acc(), bin.gap());
            let term = gap * gap - acc * (1.0 - acc) / (count - 1) as f64;
            total.add(count as f64 * term);
        }
    });
    Some((total.value() / n as f64).max(0.0).sqrt())
}

/// The result of the monotone sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EceSweep {
    /// `b*`, the largest equal-mass bin count before the first non-monotone one.
    pub b: usize,
    /// `ECE_{b*}` (equal-mass).
    pub ece: f64,
    /// `RMSCE_{b*}` (equal-mass).
    pub rmsce: f64,
}

/// Whether the non-empty equal-mass bins of `b` bins have non-decreasing `acc_B`
/// in bin order (compared exactly, as integer cross-products).
fn monotone(sorted: &SortedReading, b: usize) -> bool {
    let mut prev: Option<(u64, u64)> = None;
    let mut ok = true;
    sorted.for_each_bin(Binning::Mass, b, |bin| {
        let cur = (bin.successes, bin.count() as u64);
        if let Some((ps, pc)) = prev {
            // ps/pc > s/c  <=>  ps c > s pc
            if ps as u128 * cur.1 as u128 > cur.0 as u128 * pc as u128 {
                ok = false;
            }
        }
        prev = Some(cur);
    });
    ok
}

/// ECE_sweep (Roelofs et al. 2022), equal-mass: for `b = 1, 2, ...` (at most `n`),
/// stop at the first `b` whose non-empty bins' `acc_B`, in bin order, are not
/// non-decreasing; `b* = b - 1` (or `n` if none fails). Reports `b*`, `ECE_{b*}` and
/// `RMSCE_{b*}`.
///
/// Cost: `O(b*²)` bin look-ups on the sorted index (a few microseconds for the usual
/// `b*` of tens); when the outcomes in sorted order are already non-decreasing every
/// bin count is monotone and `b* = n` is found in one pass.
///
/// `None` (undefined) when the reading is empty. A single class gives `b* = n`
/// (every `acc_B` is equal).
pub fn ece_sweep(sorted: &SortedReading) -> Option<EceSweep> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let b = if monotone(sorted, n) {
        n
    } else {
        // b = n fails, so the first failure is at most n
        (2..=n).find(|&b| !monotone(sorted, b)).unwrap_or(n + 1) - 1
    };
    let metrics = sorted.metrics(Binning::Mass, b);
    Some(EceSweep {
        b,
        ece: metrics.ece?,
        rmsce: metrics.rmsce?,
    })
}

/// CalDist (seed 002, Table 7): `(1/n) sum |u_i - iso(u_i)|`, with `iso` the isotonic
/// fit of METRICS.md §6 ([`fit_isotonic`], pool-adjacent-violators with equal
/// forecasts pooled) on all pairs of the reading, the forecasts serving as scores
/// (isotonic regression depends on the scores' order only, so this equals the fit
/// on `logit(u)`).
///
/// `None` (undefined) when the pairs are empty or hold a NaN or infinite forecast. A
/// single class is defined (the fit is constant 0 or 1). Panics when the lengths
/// differ.
pub fn caldist(u: &[f64], o: &[bool]) -> Option<f64> {
    let fit = fit_isotonic(u, o)?;
    let mut fitted = vec![0.0; u.len()];
    fit.predict_many(u, &mut fitted);
    let total: Sum = u
        .iter()
        .zip(&fitted)
        .map(|(&x, &f)| (x - f).abs())
        .collect();
    Some(total.value() / u.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debiased_l2_by_hand() {
        // one bin of 4: conf 0.5, acc 0.75: 0.0625 - 0.1875/3 = 0 -> 0
        let s = SortedReading::from_parts(&[0.5; 4], &[true, true, true, false]);
        assert_eq!(ece_l2_debiased(&s, Binning::Mass, 1), Some(0.0));
        // n_B = 1 bins contribute 0
        let s = SortedReading::from_parts(&[0.1, 0.9], &[true, false]);
        assert_eq!(ece_l2_debiased(&s, Binning::Mass, 2), Some(0.0));
        assert_eq!(ece_l2_debiased(&s, Binning::Mass, 0), None);
        let e = SortedReading::from_parts(&[], &[]);
        assert_eq!(ece_l2_debiased(&e, Binning::Width, 10), None);
    }

    #[test]
    fn sweep_cases() {
        // outcomes sorted: every binning monotone
        let s = SortedReading::from_parts(&[0.1, 0.2, 0.3, 0.4], &[false, false, true, true]);
        assert_eq!(ece_sweep(&s).unwrap().b, 4);
        // 1, 0, 1, 1: two bins {0,1},{2,3} (1/2, 1) and three bins {0,1},{2},{3}
        // (1/2, 1, 1) are monotone; four bins (1, 0, 1, 1) are not
        let s = SortedReading::from_parts(&[0.1, 0.2, 0.3, 0.4], &[true, false, true, true]);
        let sw = ece_sweep(&s).unwrap();
        assert_eq!(sw.b, 3);
        assert_eq!(Some(sw.ece), s.metrics(Binning::Mass, 3).ece);
        assert_eq!(Some(sw.rmsce), s.metrics(Binning::Mass, 3).rmsce);
        assert!(ece_sweep(&SortedReading::from_parts(&[], &[])).is_none());
    }

    #[test]
    fn caldist_cases() {
        assert_eq!(caldist(&[], &[]), None);
        assert_eq!(caldist(&[f64::NAN], &[true]), None);
        // increasing outcomes: iso = o, distance = mean |u - o|
        let d = caldist(&[0.2, 0.8], &[false, true]).unwrap();
        assert!((d - 0.2).abs() < 1e-15);
        // a violation pools: iso = 1/2 for both
        let d = caldist(&[0.2, 0.8], &[true, false]).unwrap();
        assert!((d - 0.3).abs() < 1e-15);
    }
}
