//! Ranking metrics: AUC (Mann–Whitney), confidence-weighted AUC, ROC and cwROC
//! curves (METRICS.md §3 and §5.5). All in O(n log n) through one stable sort.

use crate::sum::Sum;

/// The stable ascending order of `scores` (ties keep the original index order):
/// `order[j]` is the sample at sorted position `j`. `-0.0` sorts with `+0.0`.
pub fn sort_order(scores: &[f64]) -> Vec<u32> {
    let mut keys: Vec<(u64, u32)> = scores
        .iter()
        .enumerate()
        .map(|(i, &u)| (crate::binning::order_key(u), i as u32))
        .collect();
    keys.sort_unstable();
    keys.into_iter().map(|(_, i)| i).collect()
}

/// Visits the runs of equal scores in ascending order: `visit(start, end)` over
/// positions of `order`.
fn for_each_tie_group(scores: &[f64], order: &[u32], mut visit: impl FnMut(usize, usize)) {
    let mut start = 0;
    while start < order.len() {
        let s = scores[order[start] as usize];
        let mut end = start + 1;
        while end < order.len() && scores[order[end] as usize] == s {
            end += 1;
        }
        visit(start, end);
        start = end;
    }
}

/// The Mann–Whitney AUC: over pairs of a positive `i` and a negative `j`,
/// `1[s_i > s_j] + ½·1[s_i = s_j]`, averaged. Computed exactly in integers (twice
/// the pair count) and divided once, so the result is correctly rounded.
/// `order` is [`sort_order`] of `scores`. `None` (undefined, not 0.5) when there is
/// no positive or no negative. NaN scores must be rejected before.
///
/// ```
/// use calibscope_core::auc::{auc, sort_order};
/// let s = [0.1, 0.4, 0.35, 0.8];
/// let y = [false, false, true, true];
/// assert_eq!(auc(&s, &y, &sort_order(&s)), Some(0.75));
/// ```
pub fn auc(scores: &[f64], positive: &[bool], order: &[u32]) -> Option<f64> {
    let mut negatives_below = 0u64;
    let mut twice_wins = 0u128;
    let mut positives = 0u64;
    for_each_tie_group(scores, order, |start, end| {
        let pos = order[start..end]
            .iter()
            .filter(|&&i| positive[i as usize])
            .count() as u64;
        let neg = (end - start) as u64 - pos;
        twice_wins += pos as u128 * (2 * negatives_below + neg) as u128;
        negatives_below += neg;
        positives += pos;
    });
    let negatives = negatives_below;
    if positives == 0 || negatives == 0 {
        return None;
    }
    Some(twice_wins as f64 / (2.0 * positives as f64 * negatives as f64))
}

/// The weighted AUC `Σ w_i w_j s_ij / Σ w_i w_j` over pairs of a positive `i` and a
/// negative `j`, `s_ij = 1[s_i > s_j] + ½·1[=]` (cwAUC with `w` the clipped
/// top-label confidences). `None` when there is no positive or no negative, or the
/// weights of either side sum to 0.
pub fn weighted_auc(
    scores: &[f64],
    positive: &[bool],
    weights: &[f64],
    order: &[u32],
) -> Option<f64> {
    let mut neg_below = Sum::new();
    let mut wins = Sum::new();
    let mut pos_total = Sum::new();
    let mut any_pos = false;
    let mut any_neg = false;
    for_each_tie_group(scores, order, |start, end| {
        let mut pos = Sum::new();
        let mut neg = Sum::new();
        for &i in &order[start..end] {
            let i = i as usize;
            if positive[i] {
                pos.add(weights[i]);
                any_pos = true;
            } else {
                neg.add(weights[i]);
                any_neg = true;
            }
        }
        let (pos, neg) = (pos.value(), neg.value());
        wins.add(pos * (neg_below.value() + 0.5 * neg));
        neg_below.add(neg);
        pos_total.add(pos);
    });
    let denominator = pos_total.value() * neg_below.value();
    if !any_pos || !any_neg || denominator == 0.0 {
        return None;
    }
    Some(wins.value() / denominator)
}

/// One point of a ROC curve at threshold `t` (predict positive when `s >= t`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RocPoint {
    /// The threshold; `None` for the start point (nothing predicted positive).
    pub threshold: Option<f64>,
    pub fpr: Option<f64>,
    pub tpr: Option<f64>,
    /// False-positive rate weighting each sample by its weight (cwROC).
    pub cw_fpr: Option<f64>,
    /// True-positive rate weighting each sample by its weight (cwROC).
    pub cw_tpr: Option<f64>,
}

/// ROC and weighted ROC curves: a start point `(0, 0)` with no threshold, then one
/// point per distinct score, descending: `TPR(t) = #{pos: s >= t} / #pos`,
/// `FPR(t) = #{neg: s >= t} / #neg`, and the same with each sample weighted by
/// `weights[i]`. A rate whose denominator is 0 is `None`.
pub fn roc_curve(
    scores: &[f64],
    positive: &[bool],
    weights: &[f64],
    order: &[u32],
) -> Vec<RocPoint> {
    let total_pos = positive.iter().filter(|&&p| p).count() as f64;
    let total_neg = positive.len() as f64 - total_pos;
    let mut w_pos_total = Sum::new();
    let mut w_neg_total = Sum::new();
    for (i, &p) in positive.iter().enumerate() {
        if p {
            w_pos_total.add(weights[i]);
        } else {
            w_neg_total.add(weights[i]);
        }
    }
    let (w_pos_total, w_neg_total) = (w_pos_total.value(), w_neg_total.value());
    let rate = |x: f64, d: f64| (d > 0.0).then(|| x / d);
    let mut groups = Vec::new();
    for_each_tie_group(scores, order, |start, end| groups.push((start, end)));
    let mut points = Vec::with_capacity(groups.len() + 1);
    points.push(RocPoint {
        threshold: None,
        fpr: rate(0.0, total_neg),
        tpr: rate(0.0, total_pos),
        cw_fpr: rate(0.0, w_neg_total),
        cw_tpr: rate(0.0, w_pos_total),
    });
    let (mut tp, mut fp) = (0u64, 0u64);
    let (mut cw_tp, mut cw_fp) = (Sum::new(), Sum::new());
    for &(start, end) in groups.iter().rev() {
        for &i in &order[start..end] {
            let i = i as usize;
            if positive[i] {
                tp += 1;
                cw_tp.add(weights[i]);
            } else {
                fp += 1;
                cw_fp.add(weights[i]);
            }
        }
        points.push(RocPoint {
            threshold: Some(scores[order[start] as usize]),
            fpr: rate(fp as f64, total_neg),
            tpr: rate(tp as f64, total_pos),
            cw_fpr: rate(cw_fp.value(), w_neg_total),
            cw_tpr: rate(cw_tp.value(), w_pos_total),
        });
    }
    points
}

/// The macro average of the defined values; `None` when none is defined.
pub fn macro_average(values: &[Option<f64>]) -> Option<f64> {
    crate::sum::mean(values.iter().flatten().copied())
}
