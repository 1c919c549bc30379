//! The two calibration NLLs the temperature fit minimises, prepared once from the
//! calibration rows and evaluated at any `tau` ([`BinaryNll`], [`MulticlassNll`]).

use super::*;

/// The binary calibration NLL `mean softplus(-y± s / tau)` (prepared: `|t_i|` and the
/// sum of the positive parts, `t_i = -y± s_i`).
#[derive(Clone, Debug)]
pub struct BinaryNll {
    abs_t: Vec<f64>,
    positive_part: f64,
    a_max: f64,
}

impl BinaryNll {
    /// Prepares the NLL of the rows `rows` (original indices into `scores` and
    /// `labels`; `None`: every row) of a binary score column `s` (logits; probability
    /// input is first turned into `s = ln(u / (1 - u))`, see
    /// [`crate::recal::logit_clipped`]). A label is positive when [`BinaryLabel::is_positive`].
    ///
    /// `None` when there is no row, or when a used score is NaN or infinite (an input
    /// error the caller reports; nothing is repaired). Panics when
    /// `scores.len() != labels.len()` or a row index is out of range.
    pub fn new<T: Real, L: BinaryLabel>(
        scores: &[T],
        labels: &[L],
        rows: Option<&[usize]>,
    ) -> Option<Self> {
        assert_eq!(scores.len(), labels.len(), "one label per score");
        let n = rows.map_or(scores.len(), <[usize]>::len);
        if n == 0 {
            return None;
        }
        let mut abs_t = Vec::with_capacity(n);
        let mut positive = Sum::new();
        for i in 0..n {
            let r = rows.map_or(i, |rows| rows[i]);
            let s = scores[r].to_f64();
            if !s.is_finite() {
                return None;
            }
            let t = if labels[r].is_positive() { -s } else { s };
            if t > 0.0 {
                positive.add(t);
            }
            abs_t.push(t.abs());
        }
        let a_max = abs_t.iter().fold(0.0f64, |m, &a| m.max(a));
        Some(BinaryNll {
            abs_t,
            positive_part: positive.value(),
            a_max,
        })
    }
}

impl Inner for BinaryNll {
    fn n(&self) -> usize {
        self.abs_t.len()
    }

    fn log_sums(&self, taus: &[f64], out: &mut [f64]) {
        match taus {
            [t] => out[0] = kernel::binary_sums(&self.abs_t, [LOG2_E / t])[0],
            [t0, t1] => {
                let [s0, s1] = kernel::binary_sums(&self.abs_t, [LOG2_E / t0, LOG2_E / t1]);
                (out[0], out[1]) = (s0, s1);
            }
            _ => unreachable!("one or two taus per pass"),
        }
    }

    fn finish(&self, tau: f64, log_sum: f64) -> f64 {
        (self.positive_part / tau + log_sum) / self.abs_t.len() as f64
    }

    /// `NLL(beta) = (beta P + sum_i ln(1 + e^{-a_i beta})) / n`: its slope lies in
    /// `[(P - sum_i a_i) / n, P / n]`, so `(P + n a_max) / n` bounds it.
    fn lipschitz_beta(&self) -> f64 {
        let n = self.abs_t.len() as f64;
        (self.positive_part + n * self.a_max) / n
    }

    fn screen_log_sums(&self, taus: &[f64], out: &mut [(f64, f64)]) -> bool {
        match taus {
            [t] => out[0] = screen::binary_sums(&self.abs_t, [LOG2_E / t])[0],
            [t0, t1] => {
                let [s0, s1] = screen::binary_sums(&self.abs_t, [LOG2_E / t0, LOG2_E / t1]);
                (out[0], out[1]) = (s0, s1);
            }
            _ => return false,
        }
        true
    }

    fn window(&self, beta_lo: f64, beta_hi: f64, nll_estimate: f64) -> Result<Window, NoWindow> {
        binary_window(
            &self.abs_t,
            self.a_max,
            self.positive_part,
            beta_lo,
            beta_hi,
            nll_estimate,
        )
    }
}

impl TemperatureObjective for BinaryNll {
    fn len(&self) -> usize {
        self.abs_t.len()
    }

    fn nll_many(&self, taus: &[f64], out: &mut [f64]) {
        nll_direct(self, taus, out)
    }

    fn fit(&self, options: &TemperatureOptions) -> TemperatureFit {
        fit_objective(self, options)
    }
}

/// The multiclass calibration NLL `mean(logsumexp(z_i / tau) - z_{i,y_i} / tau)` of a
/// row-major `n x k` logit matrix (prepared: per-row maximum and argmax; the matrix is
/// borrowed, in its stored precision).
pub struct MulticlassNll<'a, T: Real> {
    logits: &'a [T],
    k: usize,
    stats: RowStats<'a>,
    margin: f64,
    /// The largest row range `max_j z_ij - min_j z_ij`.
    x_max: f64,
}

impl<T: Real> std::fmt::Debug for MulticlassNll<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MulticlassNll")
            .field("n", &self.stats.n)
            .field("k", &self.k)
            .field("margin", &self.margin)
            .finish()
    }
}

impl<'a, T: Real> MulticlassNll<'a, T> {
    /// Prepares the NLL of the rows `rows` (original row indices; `None`: every row) of
    /// the row-major `n x k` matrix `logits` (`n = labels.len()`) with labels `0..k`.
    /// Probability input is first turned into `z = ln p` (clipped, see
    /// [`crate::recal::ln_clipped`]); `k = 2` is the binary case (`softmax(z / tau)` is
    /// `sigmoid((z_1 - z_0) / tau)`): prefer [`BinaryNll`] on `s = z_1 - z_0` there (same
    /// NLL, cheaper, and it has the binary expansion).
    ///
    /// `None` when there is no row, `k = 0`, a used logit is NaN or infinite, or a used
    /// label is `>= k` (input errors the caller reports). Panics when
    /// `logits.len() != labels.len() * k` or a row index is out of range.
    pub fn new(
        logits: &'a [T],
        k: usize,
        labels: &[u32],
        rows: Option<&'a [usize]>,
    ) -> Option<Self> {
        if k == 0 {
            return None;
        }
        assert_eq!(
            logits.len(),
            labels.len() * k,
            "logits must be labels.len() x k"
        );
        let n = rows.map_or(labels.len(), <[usize]>::len);
        if n == 0 {
            return None;
        }
        let mut max = Vec::with_capacity(n);
        let mut argmax = Vec::with_capacity(n);
        let mut margin = Sum::new();
        let mut x_max = 0.0f64;
        for i in 0..n {
            let r = rows.map_or(i, |rows| rows[i]);
            let y = labels[r] as usize;
            if y >= k {
                return None;
            }
            let z = &logits[r * k..r * k + k];
            let (mut m, mut a, mut lo) = (f64::NEG_INFINITY, 0usize, f64::INFINITY);
            for (j, v) in z.iter().enumerate() {
                let v = v.to_f64();
                if !v.is_finite() {
                    return None;
                }
                if v > m {
                    m = v;
                    a = j;
                }
                lo = lo.min(v);
            }
            x_max = x_max.max(m - lo);
            max.push(m);
            argmax.push(a as u32);
            margin.add(m - z[y].to_f64());
        }
        Some(MulticlassNll {
            logits,
            k,
            stats: RowStats {
                rows,
                n,
                max,
                argmax,
            },
            margin: margin.value(),
            x_max,
        })
    }
}

impl<T: Real> Inner for MulticlassNll<'_, T> {
    fn n(&self) -> usize {
        self.stats.n
    }

    fn log_sums(&self, taus: &[f64], out: &mut [f64]) {
        let (z, k, st) = (self.logits, self.k, &self.stats);
        match taus {
            [t] => out[0] = kernel::multiclass_sums(z, k, st, [LOG2_E / t])[0],
            [t0, t1] => {
                let [s0, s1] = kernel::multiclass_sums(z, k, st, [LOG2_E / t0, LOG2_E / t1]);
                (out[0], out[1]) = (s0, s1);
            }
            _ => unreachable!("one or two taus per pass"),
        }
    }

    fn finish(&self, tau: f64, log_sum: f64) -> f64 {
        (self.margin / tau + log_sum) / self.stats.n as f64
    }

    /// `NLL(beta) = (beta M + sum_i ln(1 + sum_j e^{beta d_ij})) / n` (`M` the margin
    /// sum, `-x_max <= d_ij <= 0`): its slope lies in `[M / n - x_max, M / n]`.
    fn lipschitz_beta(&self) -> f64 {
        self.margin / self.stats.n as f64 + self.x_max
    }

    /// Screening along the rows (from [`kernel::TRANSPOSE_BELOW_K`] classes).
    fn screen_log_sums(&self, taus: &[f64], out: &mut [(f64, f64)]) -> bool {
        let (z, k, st) = (self.logits, self.k, &self.stats);
        if k < kernel::TRANSPOSE_BELOW_K {
            return false;
        }
        match taus {
            [t] => out[0] = screen::multiclass_sums(z, k, st, [LOG2_E / t])[0],
            [t0, t1] => {
                let [s0, s1] = screen::multiclass_sums(z, k, st, [LOG2_E / t0, LOG2_E / t1]);
                (out[0], out[1]) = (s0, s1);
            }
            _ => return false,
        }
        true
    }

    fn window(&self, beta_lo: f64, beta_hi: f64, _: f64) -> Result<Window, NoWindow> {
        multiclass_window(
            self.logits,
            self.k,
            &self.stats,
            self.x_max,
            beta_lo,
            beta_hi,
        )
    }
}

impl<T: Real> TemperatureObjective for MulticlassNll<'_, T> {
    fn len(&self) -> usize {
        self.stats.n
    }

    fn nll_many(&self, taus: &[f64], out: &mut [f64]) {
        nll_direct(self, taus, out)
    }

    fn fit(&self, options: &TemperatureOptions) -> TemperatureFit {
        fit_objective(self, options)
    }
}
