//! Inductive Venn–Abers predictors (Vovk & Petej, "Venn-Abers predictors", UAI 2014;
//! the fast algorithm of Vovk, Petej & Fedorova, "Large-scale probabilistic
//! predictors with and without guarantees of validity", NeurIPS 2015).
//!
//! For a query score `s`, `p0` is the isotonic regression's value at `s` fitted on the
//! calibration pairs plus `(s, 0)`, and `p1` the same with `(s, 1)`; `p0 <= p1`, and
//! `[p0, p1]` is the predictor's multiprobability interval. The single probability
//! reported is `p = p1 / (1 - p0 + p1)` (the log-loss-minimax merge of the two).
//!
//! Nothing is refitted per query. The calibration scores are sorted and tied scores
//! merged into `k` distinct values `v_1 < ... < v_k` with counts `w_i` and positives
//! `c_i`; the cumulative sum diagram is `P_j = (w_1 + ... + w_j, c_1 + ... + c_j)`,
//! `P_0 = (0, 0)`. Adding the query after the first `g` distinct values adds the point
//! `(1, label)` to every `P_j`, `j >= g`; the isotonic value at the query is the slope
//! of the greatest convex minorant across the query, i.e. of the lower common tangent
//! (bridge) of the lower hull of `P_0 .. P_g` and the lower hull of `P_g .. P_k`
//! shifted by `(1, label)`. Both hulls exist for every `g` at once as trees of
//! predecessor / successor pointers (one stack pass each way), and the bridge is
//! found by walking from the gap outwards. So the preparation computes `p0` and `p1`
//! for all `k + 1` gaps (`O(n log n)` for the sort, then about linear: the walks are
//! as long as the isotonic blocks around the gaps), and a query is two binary searches.
//!
//! Ties: a query equal to `v_t` takes `p1` at the gap before `v_t` and `p0` at the
//! gap after it, which equals merging the query into the tied group (a 1 placed just
//! before the group, or a 0 just after, is always pooled with it); the oracle test
//! checks this against pool-adjacent-violators with ties merged.

use super::BinaryLabel;

/// A fitted inductive Venn–Abers predictor.
#[derive(Clone, Debug, PartialEq)]
pub struct VennAbersFit {
    /// The distinct calibration scores, ascending.
    pub values: Vec<f64>,
    /// `p0` at each gap: `p0[g]` for a query after the first `g` distinct values.
    pub p0: Vec<f64>,
    /// `p1` at each gap.
    pub p1: Vec<f64>,
}

/// One query's Venn–Abers output.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VennAbersPrediction {
    /// The interval's lower end: the isotonic value with the query labelled 0.
    pub p0: f64,
    /// The interval's upper end: the isotonic value with the query labelled 1.
    pub p1: f64,
    /// The merged probability `p1 / (1 - p0 + p1)`.
    pub p: f64,
}

impl VennAbersFit {
    /// The interval and merged probability of score `s` (all NaN for NaN).
    pub fn predict(&self, s: f64) -> VennAbersPrediction {
        if s.is_nan() {
            return VennAbersPrediction {
                p0: f64::NAN,
                p1: f64::NAN,
                p: f64::NAN,
            };
        }
        let below = self.values.partition_point(|&v| v < s);
        let up_to = self.values.partition_point(|&v| v <= s);
        let (p0, p1) = (self.p0[up_to], self.p1[below]);
        VennAbersPrediction {
            p0,
            p1,
            p: p1 / (1.0 - p0 + p1),
        }
    }
}

/// A point of the cumulative sum diagram (integer counts, exact in f64 up to 2^53).
#[derive(Clone, Copy, Debug)]
struct Point {
    x: f64,
    y: f64,
}

/// `(b - o) x (c - o)`: positive when `o -> b -> c` turns left (counter-clockwise).
#[inline]
fn cross(o: Point, b: Point, c: Point) -> f64 {
    (b.x - o.x) * (c.y - o.y) - (b.y - o.y) * (c.x - o.x)
}

/// Fits the predictor on calibration scores and outcomes. `None` (undefined) when the
/// split is empty or a score is NaN. A single class is allowed (then `p0 = 0` or `p1
/// = 1` everywhere and the other end follows the data). Panics when the lengths
/// differ.
pub fn fit_venn_abers<L: BinaryLabel>(scores: &[f64], labels: &[L]) -> Option<VennAbersFit> {
    assert_eq!(scores.len(), labels.len(), "one label per score");
    if scores.is_empty() || scores.iter().any(|s| s.is_nan()) {
        return None;
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let mut values: Vec<f64> = Vec::new();
    let mut csd = vec![Point { x: 0.0, y: 0.0 }];
    for &i in &order {
        let positive = f64::from(u8::from(labels[i].is_positive()));
        let last = *csd.last().unwrap();
        if values.last() == Some(&scores[i]) {
            let top = csd.last_mut().unwrap();
            top.x += 1.0;
            top.y += positive;
        } else {
            values.push(scores[i]);
            csd.push(Point {
                x: last.x + 1.0,
                y: last.y + positive,
            });
        }
    }
    let k = values.len();
    // prev[j]: the vertex before P_j on the lower hull of P_0..P_j
    let mut prev = vec![usize::MAX; k + 1];
    let mut stack: Vec<usize> = Vec::with_capacity(k + 1);
    for j in 0..=k {
        while stack.len() >= 2
            && cross(
                csd[stack[stack.len() - 2]],
                csd[stack[stack.len() - 1]],
                csd[j],
            ) <= 0.0
        {
            stack.pop();
        }
        prev[j] = stack.last().copied().unwrap_or(usize::MAX);
        stack.push(j);
    }
    // next[j]: the vertex after P_j on the lower hull of P_j..P_k
    let mut next = vec![usize::MAX; k + 1];
    stack.clear();
    for j in (0..=k).rev() {
        while stack.len() >= 2
            && cross(
                csd[j],
                csd[stack[stack.len() - 1]],
                csd[stack[stack.len() - 2]],
            ) <= 0.0
        {
            stack.pop();
        }
        next[j] = stack.last().copied().unwrap_or(usize::MAX);
        stack.push(j);
    }
    let bridge = |g: usize, label: f64| -> f64 {
        let shifted = |j: usize| Point {
            x: csd[j].x + 1.0,
            y: csd[j].y + label,
        };
        let (mut a, mut b) = (g, g);
        loop {
            let (pa, pb) = (csd[a], shifted(b));
            // a hull vertex below the line through the two ends: not yet the bridge
            if prev[a] != usize::MAX && cross(pa, pb, csd[prev[a]]) < 0.0 {
                a = prev[a];
                continue;
            }
            if next[b] != usize::MAX && cross(pa, pb, shifted(next[b])) < 0.0 {
                b = next[b];
                continue;
            }
            return (pb.y - pa.y) / (pb.x - pa.x);
        }
    };
    let p0 = (0..=k).map(|g| bridge(g, 0.0)).collect();
    let p1 = (0..=k).map(|g| bridge(g, 1.0)).collect();
    Some(VennAbersFit { values, p0, p1 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::SplitMix64;

    /// Isotonic regression by pool-adjacent-violators with tied scores merged, read at
    /// score `s`.
    fn pava_at(points: &[(f64, u8)], s: f64) -> f64 {
        let mut sorted = points.to_vec();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        // (score, weight, sum)
        let mut blocks: Vec<(f64, f64, f64)> = Vec::new();
        for &(x, y) in &sorted {
            match blocks.last_mut() {
                Some(last) if last.0 == x => {
                    last.1 += 1.0;
                    last.2 += f64::from(y);
                }
                _ => blocks.push((x, 1.0, f64::from(y))),
            }
        }
        // pools: (first score, last score, weight, sum)
        let mut pools: Vec<(f64, f64, f64, f64)> = Vec::new();
        for (x, w, sum) in blocks {
            pools.push((x, x, w, sum));
            while pools.len() >= 2 {
                let (b, a) = (pools[pools.len() - 1], pools[pools.len() - 2]);
                if a.3 / a.2 > b.3 / b.2 {
                    pools.pop();
                    pools.pop();
                    pools.push((a.0, b.1, a.2 + b.2, a.3 + b.3));
                } else {
                    break;
                }
            }
        }
        let pool = pools.iter().find(|p| p.0 <= s && s <= p.1).unwrap();
        pool.3 / pool.2
    }

    #[test]
    fn equals_refitting_with_the_query_added_on_random_data_with_ties() {
        let mut rng = SplitMix64::new(33);
        for round in 0..300 {
            let n = 1 + (rng.next_u64() % 40) as usize;
            let levels = 2 + rng.next_u64() % 12;
            let cal: Vec<(f64, u8)> = (0..n)
                .map(|_| {
                    let s = (rng.next_u64() % levels) as f64 / levels as f64;
                    let y = u8::from(rng.next_f64() < 0.2 + 0.6 * s);
                    (s, y)
                })
                .collect();
            let (s, y): (Vec<f64>, Vec<u8>) = cal.iter().copied().unzip();
            let fit = fit_venn_abers(&s, &y).unwrap();
            // on the calibration values (ties), between them, and outside them
            let queries = (0..=levels + 1).flat_map(|j| {
                let v = j as f64 / levels as f64;
                [v, v + 0.5 / levels as f64, v - 1.0]
            });
            for query in queries {
                let got = fit.predict(query);
                for (label, value) in [(0u8, got.p0), (1u8, got.p1)] {
                    let mut with = cal.clone();
                    with.push((query, label));
                    let want = pava_at(&with, query);
                    assert!(
                        (value - want).abs() <= 1e-12,
                        "round {round}: query {query} label {label}: {value} against {want} ({cal:?})"
                    );
                }
                assert!(got.p0 <= got.p1 + 1e-15);
                assert!(got.p0 <= got.p && got.p <= got.p1 + 1e-15);
            }
        }
    }

    #[test]
    fn undefined_and_one_class() {
        assert!(fit_venn_abers::<u8>(&[], &[]).is_none());
        assert!(fit_venn_abers(&[0.1, f64::NAN], &[0u8, 1]).is_none());
        let fit = fit_venn_abers(&[0.2, 0.4, 0.6], &[1u8, 1, 1]).unwrap();
        let p = fit.predict(0.5);
        assert_eq!(p.p1, 1.0);
        assert!(p.p0 > 0.0 && p.p0 < 1.0);
        assert!(fit.predict(f64::NAN).p.is_nan());
    }
}
