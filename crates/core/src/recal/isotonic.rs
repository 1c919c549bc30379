//! Isotonic regression (METRICS.md §6; scikit-learn
//! `IsotonicRegression(out_of_bounds="clip")`).
//!
//! Pool-adjacent-violators on the calibration pairs `(s_i, o_i)` sorted by score, equal
//! scores pooled first. Block values are compared exactly (integer cross-products), and
//! each block's value is `positives / count` (one division). The knots are all the
//! distinct calibration scores, each with its block's value; [`IsotonicFit::predict`]
//! interpolates them exactly as `np.interp` does.

use super::BinaryLabel;

/// A fitted isotonic map: knots `x_0 < x_1 < ...` with non-decreasing values.
#[derive(Clone, Debug, PartialEq)]
pub struct IsotonicFit {
    x: Vec<f64>,
    y: Vec<f64>,
    distinct_values: usize,
}

impl IsotonicFit {
    /// The knots: distinct calibration scores (increasing) and their values
    /// (non-decreasing, each `positives / count` of its PAV block).
    pub fn knots(&self) -> (&[f64], &[f64]) {
        (&self.x, &self.y)
    }

    /// Number of knots (= distinct calibration scores).
    pub fn n_knots(&self) -> usize {
        self.x.len()
    }

    /// Number of distinct knot values (= PAV blocks, since adjacent blocks with equal
    /// values are merged).
    pub fn distinct_values(&self) -> usize {
        self.distinct_values
    }

    /// The map at `x`, with `np.interp`'s arithmetic bit for bit: below the first knot
    /// the first value, above the last knot the last value (clip); at a knot exactly its
    /// value; between knots `x_j < x < x_{j+1}`,
    /// `slope * (x - x_j) + y_j` with `slope = (y_{j+1} - y_j) / (x_{j+1} - x_j)` (no
    /// fused multiply-add; if that is NaN, `slope * (x - x_{j+1}) + y_{j+1}`, then `y_j`
    /// when `y_j == y_{j+1}`). NaN gives NaN.
    pub fn predict(&self, x: f64) -> f64 {
        let (xp, fp) = (&self.x, &self.y);
        let last = xp.len() - 1;
        if x.is_nan() {
            return x;
        }
        if last == 0 {
            return fp[0];
        }
        if x > xp[last] {
            return fp[last];
        }
        if x < xp[0] {
            return fp[0];
        }
        // the largest j with xp[j] <= x
        self.value_at(xp.partition_point(|&v| v <= x) - 1, x)
    }

    /// `out[i] = self.predict(xs[i])`, bit for bit, for many queries: sorted once and
    /// walked along the knots (a binary search per query costs cache misses on large
    /// fits). Panics when the lengths differ.
    pub fn predict_many(&self, xs: &[f64], out: &mut [f64]) {
        assert_eq!(xs.len(), out.len());
        let xp = &self.x;
        if xs.len() < 64 || xp.len() < 2 {
            for (o, &x) in out.iter_mut().zip(xs) {
                *o = self.predict(x);
            }
            return;
        }
        let mut j = 0;
        for i in crate::auc::sort_order(xs) {
            let (i, x) = (i as usize, xs[i as usize]);
            out[i] = if x.is_nan() || x < xp[0] {
                self.predict(x)
            } else {
                // non-NaN queries come in ascending order: j only moves forward
                while j + 1 < xp.len() && xp[j + 1] <= x {
                    j += 1;
                }
                self.value_at(j, x)
            };
        }
    }

    /// The map at `x` given `j`, the largest index with `x_j <= x` (`predict`'s
    /// interpolation).
    fn value_at(&self, j: usize, x: f64) -> f64 {
        let (xp, fp) = (&self.x, &self.y);
        let last = xp.len() - 1;
        if j == last || xp[j] == x {
            return fp[j];
        }
        let slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
        let mut r = slope * (x - xp[j]) + fp[j];
        if r.is_nan() {
            r = slope * (x - xp[j + 1]) + fp[j + 1];
            if r.is_nan() && fp[j] == fp[j + 1] {
                r = fp[j];
            }
        }
        r
    }
}

/// A PAV block: positives, count and the number of distinct scores it spans.
#[derive(Clone, Copy)]
struct Block {
    pos: u64,
    count: u64,
    knots: usize,
}

impl Block {
    /// `self.value() >= other.value()`, exactly.
    fn not_below(&self, other: &Block) -> bool {
        self.pos as u128 * other.count as u128 >= other.pos as u128 * self.count as u128
    }
}

/// Fits isotonic regression on calibration scores `scores` (logits; probability input
/// as `logit(clip(u))`, multiclass one-vs-rest as `z_r` with labels `y == r`) and their
/// outcomes `labels` ([`BinaryLabel::is_positive`]): the non-decreasing step map of
/// least squares, by pool-adjacent-violators over the distinct scores (equal scores
/// pooled first; a block is merged into its predecessor while the predecessor's value
/// is `>=`, so block values are strictly increasing). O(n log n).
///
/// `None` (undefined) when the calibration split is empty or holds a NaN or infinite
/// score. A single distinct score gives one knot (a constant map); one class only gives
/// a constant 0 or 1 map. Panics when `scores.len() != labels.len()`.
pub fn fit_isotonic<L: BinaryLabel>(scores: &[f64], labels: &[L]) -> Option<IsotonicFit> {
    assert_eq!(scores.len(), labels.len(), "one label per score");
    if scores.is_empty() || scores.iter().any(|s| !s.is_finite()) {
        return None;
    }
    let mut pairs: Vec<(f64, bool)> = scores
        .iter()
        .zip(labels)
        .map(|(&s, y)| (s, y.is_positive()))
        .collect();
    pairs.sort_unstable_by(|p, q| p.0.total_cmp(&q.0));
    let mut x: Vec<f64> = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    let mut i = 0;
    while i < pairs.len() {
        // pool equal scores (-0.0 == 0.0 are adjacent in the total order)
        let s = pairs[i].0;
        let mut cur = Block {
            pos: 0,
            count: 0,
            knots: 1,
        };
        while i < pairs.len() && pairs[i].0 == s {
            cur.pos += pairs[i].1 as u64;
            cur.count += 1;
            i += 1;
        }
        x.push(if s == 0.0 { 0.0 } else { s });
        while let Some(prev) = blocks.last() {
            if !prev.not_below(&cur) {
                break;
            }
            cur = Block {
                pos: prev.pos + cur.pos,
                count: prev.count + cur.count,
                knots: prev.knots + cur.knots,
            };
            blocks.pop();
        }
        blocks.push(cur);
    }
    let mut y = Vec::with_capacity(x.len());
    for b in &blocks {
        let v = b.pos as f64 / b.count as f64;
        y.extend(std::iter::repeat_n(v, b.knots));
    }
    Some(IsotonicFit {
        x,
        y,
        distinct_values: blocks.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooling_and_interpolation() {
        let s = [0.0, 1.0, 1.0, 2.0, 3.0, 4.0];
        let y = [0u8, 1, 0, 0, 1, 1];
        let fit = fit_isotonic(&s, &y).unwrap();
        // distinct scores 0,1,2,3,4: values 0, then (1+0)/2 and 0 pooled to 1/3, 1, 1
        let (kx, ky) = fit.knots();
        assert_eq!(kx, &[0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(ky, &[0.0, 1.0 / 3.0, 1.0 / 3.0, 1.0, 1.0]);
        assert_eq!(fit.distinct_values(), 3);
        assert_eq!(fit.predict(-5.0), 0.0);
        assert_eq!(fit.predict(9.0), 1.0);
        assert_eq!(fit.predict(1.0), 1.0 / 3.0);
        assert_eq!(fit.predict(0.5), (1.0 / 3.0) * 0.5);
        assert_eq!(fit.predict(2.5), (1.0 - 1.0 / 3.0) * 0.5 + 1.0 / 3.0);
        assert!(fit.predict(f64::NAN).is_nan());
        assert!(fit_isotonic::<u8>(&[], &[]).is_none());
        let one = fit_isotonic(&[2.0, 2.0], &[true, false]).unwrap();
        assert_eq!(
            (one.n_knots(), one.predict(-1.0), one.predict(7.0)),
            (1, 0.5, 0.5)
        );
    }

    #[test]
    fn many_queries_equal_one_by_one() {
        let mut rng = crate::split::SplitMix64::new(3);
        let s: Vec<f64> = (0..500)
            .map(|_| (rng.next_f64() * 8.0).round() - 4.0)
            .collect();
        let y: Vec<bool> = s
            .iter()
            .map(|&v| rng.next_f64() < 1.0 / (1.0 + (-v).exp()))
            .collect();
        let fit = fit_isotonic(&s, &y).unwrap();
        let mut q: Vec<f64> = (0..1000).map(|_| rng.next_f64() * 12.0 - 6.0).collect();
        q.extend([
            f64::NAN,
            -0.0,
            0.0,
            -4.0,
            4.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -f64::NAN,
        ]);
        q.extend(s.iter().copied());
        let mut out = vec![0.0; q.len()];
        fit.predict_many(&q, &mut out);
        for (x, o) in q.iter().zip(&out) {
            let want = fit.predict(*x);
            assert!(want.to_bits() == o.to_bits(), "{x}: {o} vs {want}");
        }
    }
}
