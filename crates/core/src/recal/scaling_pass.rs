//! The objective's pass over rows ([`RowPass`]): one chunk's NLL and gradient
//! sums, rows four at a time for the full maps, compiled for AVX2 where the
//! processor has it; the same bits whichever path runs.

use super::{affine, ScalingKind};

/// Rows per chunk of the objective's pass (each chunk's sums are kept apart and
/// added in chunk order, whatever the number of threads).
pub(super) const CHUNK_ROWS: usize = 2048;

/// One chunk's sums: the NLL, and the gradients of the full `W` (row-major) and `b`.
#[derive(Clone)]
pub(super) struct Partial {
    pub(super) nll: f64,
    pub(super) gw: Vec<f64>,
    pub(super) gb: Vec<f64>,
}

/// The pass over rows at one point: `(W, Wᵀ, b)`.
pub(super) struct RowPass<'p> {
    pub(super) kind: ScalingKind,
    pub(super) k: usize,
    pub(super) w: &'p [f64],
    pub(super) wt: &'p [f64],
    pub(super) b: &'p [f64],
}

impl RowPass<'_> {
    /// The sums of rows `x` (row-major) with labels `y`; on x86-64 processors
    /// with AVX2 the same loops compiled for it (the same operations in the same
    /// order, so the same numbers: no fused multiply-add).
    pub(super) fn run(&self, x: &[f64], y: &[u32]) -> Partial {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above)
            return unsafe { self.run_avx2(x, y) };
        }
        self.run_plain(x, y)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_avx2(&self, x: &[f64], y: &[u32]) -> Partial {
        self.run_plain(x, y)
    }

    /// The pass: rows in blocks of [`BLOCK`] for matrix scaling and Dirichlet
    /// calibration (each column of `Wᵀ` and each row of the gradient loaded once per
    /// block), one at a time otherwise; every sum in the same order as row by row.
    #[inline(always)]
    pub(super) fn run_plain(&self, x: &[f64], y: &[u32]) -> Partial {
        let k = self.k;
        let mut part = Partial {
            nll: 0.0,
            gw: vec![0.0; k * k],
            gb: vec![0.0; k],
        };
        let whole = if self.kind == ScalingKind::Vector {
            0
        } else {
            y.len() / BLOCK * BLOCK
        };
        let mut s = vec![0.0; BLOCK * k];
        for (xb, yb) in x[..whole * k]
            .chunks_exact(BLOCK * k)
            .zip(y[..whole].chunks_exact(BLOCK))
        {
            self.block(xb, yb, &mut s, &mut part);
        }
        self.rows(&x[whole * k..], &y[whole..], &mut part);
        part
    }

    /// [`BLOCK`] rows of matrix scaling or Dirichlet calibration into `part` (`s`:
    /// scratch of `BLOCK × K`).
    #[inline(always)]
    fn block(&self, x: &[f64], y: &[u32], s: &mut [f64], part: &mut Partial) {
        let k = self.k;
        for row in s.chunks_exact_mut(k) {
            row.copy_from_slice(self.b);
        }
        {
            let (s0, rest) = s.split_at_mut(k);
            let (s1, rest) = rest.split_at_mut(k);
            let (s2, s3) = rest.split_at_mut(k);
            for (c, col) in self.wt.chunks_exact(k).enumerate() {
                let (x0, x1, x2, x3) = (x[c], x[k + c], x[2 * k + c], x[3 * k + c]);
                for j in 0..k {
                    let v = col[j];
                    s0[j] += x0 * v;
                    s1[j] += x1 * v;
                    s2[j] += x2 * v;
                    s3[j] += x3 * v;
                }
            }
        }
        for (row, &label) in s.chunks_exact_mut(k).zip(y) {
            softmax_residual(row, label as usize, part);
        }
        let (d0, rest) = s.split_at(k);
        let (d1, rest) = rest.split_at(k);
        let (d2, d3) = rest.split_at(k);
        let (x0, rest) = x.split_at(k);
        let (x1, rest) = rest.split_at(k);
        let (x2, x3) = rest.split_at(k);
        for j in 0..k - 1 {
            let g = &mut part.gw[j * k..(j + 1) * k];
            let (a, b, c, d) = (d0[j], d1[j], d2[j], d3[j]);
            for i in 0..k {
                // the four rows in order, as row by row
                let mut t = g[i];
                t += a * x0[i];
                t += b * x1[i];
                t += c * x2[i];
                t += d * x3[i];
                g[i] = t;
            }
        }
    }

    /// Rows one at a time into `part`.
    #[inline(always)]
    pub(super) fn rows(&self, x: &[f64], y: &[u32], part: &mut Partial) {
        let k = self.k;
        let vector = self.kind == ScalingKind::Vector;
        let mut s = vec![0.0; k];
        for (x, &y) in x.chunks_exact(k).zip(y) {
            if vector {
                affine(self.kind, k, self.w, self.b, x, &mut s);
            } else {
                s.copy_from_slice(self.b);
                for (&xc, col) in x.iter().zip(self.wt.chunks_exact(k)) {
                    for (o, &v) in s.iter_mut().zip(col) {
                        *o += xc * v;
                    }
                }
            }
            softmax_residual(&mut s, y as usize, part);
            if vector {
                for j in 0..k {
                    part.gw[j * k + j] += s[j] * x[j];
                }
            } else {
                for (j, &d) in s.iter().enumerate().take(k - 1) {
                    for (g, &xc) in part.gw[j * k..(j + 1) * k].iter_mut().zip(x) {
                        *g += d * xc;
                    }
                }
            }
        }
    }
}

/// Rows per block of the pass (matrix scaling, Dirichlet calibration).
const BLOCK: usize = 4;

/// One row's scores `s` (`W x + b`) turned into its residual `softmax(s) - e_y`
/// in place, its `-ln q_y` added to `part.nll` and the residual to `part.gb`.
#[inline(always)]
fn softmax_residual(s: &mut [f64], y: usize, part: &mut Partial) {
    let m = s.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v));
    let mut sum = 0.0;
    for v in s.iter_mut() {
        *v = (*v - m).exp();
        sum += *v;
    }
    // -ln q_y = ln sum - (s_y - m), with s_y - m = ln e_y
    part.nll += sum.ln() - s[y].ln();
    for v in s.iter_mut() {
        *v /= sum;
    }
    s[y] -= 1.0;
    for (gb, &d) in part.gb.iter_mut().zip(s.iter()) {
        *gb += d;
    }
}
