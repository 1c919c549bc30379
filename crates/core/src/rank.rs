//! Ranking statistics for the "ranking flips" view (METRICS.md §4.1).

use crate::sum::Sum;

/// Average ranks, 1 = smallest; tied values share the mean of their positions.
/// NaN values are ranked last (they should not occur: metrics are finite).
///
/// ```
/// use calibscope_core::rank::average_ranks;
/// assert_eq!(average_ranks(&[0.3, 0.1, 0.3, 0.2]), vec![3.5, 1.0, 3.5, 2.0]);
/// ```
pub fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let rank = (start + end + 1) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        start = end;
    }
    ranks
}

/// Pearson's correlation; `None` with fewer than 3 values or a constant input.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 3 || y.len() != n {
        return None;
    }
    let mx = crate::sum::sum(x.iter().copied()) / n as f64;
    let my = crate::sum::sum(y.iter().copied()) / n as f64;
    let (mut sxy, mut sxx, mut syy) = (Sum::new(), Sum::new(), Sum::new());
    for (&a, &b) in x.iter().zip(y) {
        sxy.add((a - mx) * (b - my));
        sxx.add((a - mx) * (a - mx));
        syy.add((b - my) * (b - my));
    }
    let d = (sxx.value() * syy.value()).sqrt();
    (d > 0.0).then(|| sxy.value() / d)
}

/// Spearman's ρ: Pearson's correlation of the average ranks of `x` and `y`.
/// `None` with fewer than 3 values or when either ranking is constant.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    pearson(&average_ranks(x), &average_ranks(y))
}

/// The pairs `(i, j)`, `i < j`, whose order is strictly reversed between the two
/// rankings (Kendall's discordant pairs): `(a_i - a_j)(b_i - b_j) < 0`.
pub fn discordant_pairs(a: &[f64], b: &[f64]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            if (a[i] - a[j]) * (b[i] - b[j]) < 0.0 {
                out.push((i, j));
            }
        }
    }
    out
}

/// A pair of model indices `(i, j)`, `i < j`.
pub type ModelPair = (usize, usize);

/// Rankings of several models by one metric at several bin counts (METRICS.md §4.1).
#[derive(Clone, Debug, PartialEq)]
pub struct RankingSweep {
    /// Per bin count, the average rank of each model (1 = smallest metric).
    pub ranks: Vec<Vec<f64>>,
    /// Spearman's ρ between the rankings at each pair of bin counts.
    pub spearman: Vec<Vec<Option<f64>>>,
    /// Number of flips (discordant model pairs) between each pair of bin counts.
    pub flips: Vec<Vec<usize>>,
    /// For each pair of bin counts `(a, b)`, `a < b` by position, with at least one
    /// flip: the flipped model pairs `(i, j)`, `i < j`.
    pub flip_pairs: Vec<((usize, usize), Vec<ModelPair>)>,
    /// Per bin count, Spearman's ρ of the metric against the classification error.
    pub spearman_vs_error: Vec<Option<f64>>,
}

/// Ranks models at each bin count and compares the rankings. `values[j][i]` is model
/// `i`'s metric at the `j`-th bin count; `error[i]` its classification error.
/// Spearman is `None` with fewer than 3 models or a constant ranking.
pub fn ranking_sweep(values: &[Vec<f64>], error: &[f64]) -> RankingSweep {
    let ranks: Vec<Vec<f64>> = values.iter().map(|v| average_ranks(v)).collect();
    let count = ranks.len();
    let mut rho = vec![vec![None; count]; count];
    let mut flips = vec![vec![0; count]; count];
    let mut flip_pairs = Vec::new();
    for a in 0..count {
        for b in 0..count {
            rho[a][b] = pearson(&ranks[a], &ranks[b]);
            let pairs = discordant_pairs(&ranks[a], &ranks[b]);
            flips[a][b] = pairs.len();
            if a < b && !pairs.is_empty() {
                flip_pairs.push(((a, b), pairs));
            }
        }
    }
    let spearman_vs_error = values.iter().map(|v| spearman(v, error)).collect();
    RankingSweep {
        ranks,
        spearman: rho,
        flips,
        flip_pairs,
        spearman_vs_error,
    }
}
