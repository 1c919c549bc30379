//! Ranking metrics: AUC (Mann–Whitney), confidence-weighted AUC, ROC and cwROC
//! curves (METRICS.md §3 and §5.5). All in O(n log n) through one stable sort.

use crate::radix::{self, RadixSorter};
use crate::sum::Sum;

/// The stable ascending order of `scores` (ties keep the original index order):
/// `order[j]` is the sample at sorted position `j`. `-0.0` sorts with `+0.0`.
///
/// Two steps: an LSD radix sort ([`crate::radix`]) on the monotone bit pattern of
/// each score rounded to `f32` (three 11-bit passes over 8-byte items; rounding is
/// monotone, so it only merges scores closer than an `f32` ulp), then each run of
/// equal `f32` keys that is not already in exact order is re-sorted by the exact
/// `f64` score and index. O(n) for the forecasts this crate sorts; exact ties are
/// runs already in order.
pub fn sort_order(scores: &[f64]) -> Vec<u32> {
    let mut items: Vec<u64> = scores
        .iter()
        .enumerate()
        .map(|(i, &u)| radix::item(radix::order_key(u), i as u32))
        .collect();
    RadixSorter::new().sort(&mut items);
    radix::for_each_key_run(&mut items, |run| {
        radix::fix_run(run, |i| i, |i| scores[i as usize])
    });
    items.into_iter().map(radix::payload_of).collect()
}

/// `values` permuted into `order`.
pub fn gather<T: Copy>(values: &[T], order: &[u32]) -> Vec<T> {
    order.iter().map(|&i| values[i as usize]).collect()
}

/// One reading gathered into sorted order: forecasts ascending (stable), with the
/// outcome and weight of each position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SortedColumn {
    /// Scores, ascending (ties in original order).
    pub forecast: Vec<f64>,
    /// Whether the sample at each position is a positive.
    pub positive: Vec<bool>,
    /// The weight of the sample at each position (cwAUC, cwROC).
    pub weight: Vec<f64>,
}

impl SortedColumn {
    /// Sorts `forecast` once and gathers the outcome and weight columns alongside.
    pub fn new(forecast: &[f64], positive: &[bool], weight: &[f64]) -> Self {
        let order = sort_order(forecast);
        SortedColumn {
            forecast: gather(forecast, &order),
            positive: gather(positive, &order),
            weight: gather(weight, &order),
        }
    }
}

/// Visits the runs of equal values of a sorted slice: `visit(start, end)`.
fn for_each_tie_group(sorted: &[f64], mut visit: impl FnMut(usize, usize)) {
    let mut start = 0;
    while start < sorted.len() {
        let s = sorted[start];
        let mut end = start + 1;
        while end < sorted.len() && sorted[end] == s {
            end += 1;
        }
        visit(start, end);
        start = end;
    }
}

/// The Mann–Whitney AUC: over pairs of a positive `i` and a negative `j`,
/// `1[s_i > s_j] + ½·1[s_i = s_j]`, averaged. Computed exactly in integers (twice
/// the pair count) and divided once, so the result is correctly rounded.
/// `column` holds the scores sorted ascending. `None` (undefined, not 0.5) when there
/// is no positive or no negative. NaN scores must be rejected before.
///
/// ```
/// use calibscope_core::auc::{auc, SortedColumn};
/// let s = [0.1, 0.4, 0.35, 0.8];
/// let y = [false, false, true, true];
/// assert_eq!(auc(&SortedColumn::new(&s, &y, &[1.0; 4])), Some(0.75));
/// ```
pub fn auc(column: &SortedColumn) -> Option<f64> {
    let positive = &column.positive;
    let mut negatives_below = 0u64;
    let mut twice_wins = 0u128;
    let mut positives = 0u64;
    for_each_tie_group(&column.forecast, |start, end| {
        let pos = positive[start..end].iter().filter(|&&p| p).count() as u64;
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
pub fn weighted_auc(column: &SortedColumn) -> Option<f64> {
    let (positive, weights) = (&column.positive, &column.weight);
    let mut neg_below = Sum::new();
    let mut wins = Sum::new();
    let mut pos_total = Sum::new();
    let mut any_pos = false;
    let mut any_neg = false;
    for_each_tie_group(&column.forecast, |start, end| {
        let mut pos = Sum::new();
        let mut neg = Sum::new();
        for i in start..end {
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

/// [`auc`] and (when `WEIGHTED`) [`weighted_auc`] accumulated in one pass over a
/// column in sorted order, without gathering it: the same tie groups and the same
/// sums in the same order, so the results are identical bit for bit (for finite,
/// positive weights, such as the audit's clipped confidences: a group of one
/// sample skips the additions of an exact `0.0`, which only a sum holding `-0.0`
/// or an infinity would notice).
#[derive(Clone, Debug)]
pub struct AucBuilder<const WEIGHTED: bool> {
    /// The current tie group's score (NaN before the first push).
    value: f64,
    group_pos: u64,
    group_neg: u64,
    /// The group's first sample: its weight and outcome (its weight enters the
    /// group sums only when a second sample joins).
    first_weight: f64,
    first_positive: bool,
    group_w_pos: Sum,
    group_w_neg: Sum,
    negatives_below: u64,
    twice_wins: u128,
    positives: u64,
    w_neg_below: Sum,
    w_wins: Sum,
    w_pos_total: Sum,
}

impl<const WEIGHTED: bool> Default for AucBuilder<WEIGHTED> {
    fn default() -> Self {
        AucBuilder {
            value: f64::NAN,
            group_pos: 0,
            group_neg: 0,
            first_weight: 0.0,
            first_positive: false,
            group_w_pos: Sum::new(),
            group_w_neg: Sum::new(),
            negatives_below: 0,
            twice_wins: 0,
            positives: 0,
            w_neg_below: Sum::new(),
            w_wins: Sum::new(),
            w_pos_total: Sum::new(),
        }
    }
}

impl<const WEIGHTED: bool> AucBuilder<WEIGHTED> {
    /// Adds the next score in ascending order, its outcome and weight.
    #[inline(always)]
    pub fn push(&mut self, score: f64, positive: bool, weight: f64) {
        debug_assert!(!WEIGHTED || (weight > 0.0 && weight.is_finite()));
        if score != self.value {
            self.flush();
            self.value = score;
        }
        if WEIGHTED {
            match self.group_pos + self.group_neg {
                0 => {
                    self.first_weight = weight;
                    self.first_positive = positive;
                }
                1 => {
                    self.add_to_group(self.first_positive, self.first_weight);
                    self.add_to_group(positive, weight);
                }
                _ => self.add_to_group(positive, weight),
            }
        }
        self.group_pos += positive as u64;
        self.group_neg += !positive as u64;
    }

    #[inline(always)]
    fn add_to_group(&mut self, positive: bool, weight: f64) {
        if positive {
            self.group_w_pos.add(weight);
        } else {
            self.group_w_neg.add(weight);
        }
    }

    #[inline(always)]
    fn flush(&mut self) {
        let (pos, neg) = (self.group_pos, self.group_neg);
        if pos + neg == 0 {
            return;
        }
        self.twice_wins += pos as u128 * (2 * self.negatives_below + neg) as u128;
        self.negatives_below += neg;
        self.positives += pos;
        self.group_pos = 0;
        self.group_neg = 0;
        if WEIGHTED {
            if pos + neg == 1 {
                // the group sums would be (w, 0) or (0, w)
                let w = self.first_weight;
                if pos == 1 {
                    self.w_wins.add(w * self.w_neg_below.value());
                    self.w_pos_total.add(w);
                } else {
                    self.w_neg_below.add(w);
                }
                return;
            }
            let (wp, wn) = (self.group_w_pos.value(), self.group_w_neg.value());
            self.w_wins.add(wp * (self.w_neg_below.value() + 0.5 * wn));
            self.w_neg_below.add(wn);
            self.w_pos_total.add(wp);
            self.group_w_pos = Sum::new();
            self.group_w_neg = Sum::new();
        }
    }

    /// `(AUC, cwAUC)`; cwAUC is `None` unless `WEIGHTED`.
    pub fn finish(mut self) -> (Option<f64>, Option<f64>) {
        self.flush();
        let (positives, negatives) = (self.positives, self.negatives_below);
        if positives == 0 || negatives == 0 {
            return (None, None);
        }
        let auc = self.twice_wins as f64 / (2.0 * positives as f64 * negatives as f64);
        if !WEIGHTED {
            return (Some(auc), None);
        }
        let denominator = self.w_pos_total.value() * self.w_neg_below.value();
        (
            Some(auc),
            (denominator != 0.0).then(|| self.w_wins.value() / denominator),
        )
    }
}

/// One point of a ROC curve at threshold `t` (predict positive when `s >= t`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RocPoint {
    /// The threshold; `None` for the start point (nothing predicted positive).
    pub threshold: Option<f64>,
    /// False-positive rate `#{neg: s >= t} / #neg`.
    pub fpr: Option<f64>,
    /// True-positive rate `#{pos: s >= t} / #pos`.
    pub tpr: Option<f64>,
    /// False-positive rate weighting each sample by its weight (cwROC).
    pub cw_fpr: Option<f64>,
    /// True-positive rate weighting each sample by its weight (cwROC).
    pub cw_tpr: Option<f64>,
}

/// A ROC/cwROC curve: its points, or `None` where it is undefined (see [`roc`]).
pub type Roc = Option<Vec<RocPoint>>;

/// ROC and weighted ROC curves: a start point `(0, 0)` with no threshold, then one
/// point per distinct score, descending: `TPR(t) = #{pos: s >= t} / #pos`,
/// `FPR(t) = #{neg: s >= t} / #neg`, and the same with each sample weighted by
/// `weights[i]` (cwROC). `None` — the curve is undefined as a whole, not a list of
/// undefined rates — when the column has no positive or no negative (an empty column
/// included); otherwise `fpr` and `tpr` are defined at every point, and a weighted
/// rate is `None` only if its class's total weight is 0 (never with the clipped
/// confidences the audit uses as weights).
pub fn roc(column: &SortedColumn) -> Roc {
    let (scores, positive, weights) = (&column.forecast, &column.positive, &column.weight);
    let positives = positive.iter().filter(|&&p| p).count();
    if positives == 0 || positives == positive.len() {
        return None;
    }
    let total_pos = positives as f64;
    let total_neg = (positive.len() - positives) as f64;
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
    for_each_tie_group(scores, |start, end| groups.push((start, end)));
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
        for i in start..end {
            if positive[i] {
                tp += 1;
                cw_tp.add(weights[i]);
            } else {
                fp += 1;
                cw_fp.add(weights[i]);
            }
        }
        points.push(RocPoint {
            threshold: Some(scores[start]),
            fpr: rate(fp as f64, total_neg),
            tpr: rate(tp as f64, total_pos),
            cw_fpr: rate(cw_fp.value(), w_neg_total),
            cw_tpr: rate(cw_tp.value(), w_pos_total),
        });
    }
    Some(points)
}

/// The points of [`roc`]; none when the curve is undefined (a chart then draws
/// nothing).
pub fn roc_curve(column: &SortedColumn) -> Vec<RocPoint> {
    roc(column).unwrap_or_default()
}

/// The macro average of the defined values; `None` when none is defined.
pub fn macro_average(values: &[Option<f64>]) -> Option<f64> {
    crate::sum::mean(values.iter().flatten().copied())
}
