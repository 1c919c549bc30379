//! Smooth ECE (Błasiok & Nakkiran 2023) exactly as relplot 1.0.3 computes it
//! (`relplot.smECE(f, y)` with its defaults; METRICS.md §8.1), and the smooth
//! reliability curve it implies.
//!
//! With residuals `r_i = u_i - o_i`, `S(sigma)` spreads `r` and `1` linearly onto a
//! grid of `G = floor(max(2000, round(20/sigma)) / 2) + 1` points, convolves both
//! grids with a Gaussian kernel after reflecting them at both ends, interpolates the
//! smoothed grids at `T = max(round(10/sigma), 200)` points `t` and returns
//! `sum |rs| dens / sum dens` with `dens = smooth(1) + 1e-4`, `rs = smooth(r) / dens`.
//! The bandwidth `sigma*` is relplot's `search_param`; `smECE = S(sigma*)`.
//!
//! Speed: the kernel is truncated where it falls below `1e-20` of its peak (the
//! dropped mass changes `S` by far less than 1e-12 relative; see [`KERNEL_CUTOFF`]),
//! so a convolution costs `G` times about `19 sigma G` taps, and the grids of one
//! `G` are built once per call (every `sigma >= 0.01` shares `G = 1001`).

use crate::sum::Sum;

/// Taps of the kernel below `KERNEL_CUTOFF` times its peak are dropped: `exp(-x²/2)
/// < 1e-20` beyond `|x| = 9.6` standard deviations. A dropped tap moves a smoothed
/// value by at most `1e-20 K_max sum |v|`, against smoothed densities of order `n`:
/// a relative change below `1e-20 / (sqrt(2 pi) sigma)`, i.e. < 1e-16 for every
/// bandwidth the search visits (`sigma >= 2^-10`).
pub const KERNEL_CUTOFF: f64 = 1e-20;

/// relplot's `eps` of `BaseKernelMixin.smooth`, added to the smoothed density.
const DENSITY_EPS: f64 = 1e-4;

/// relplot's `smECE` bandwidth floor: any `alpha < 0.001` is accepted.
const SIGMA_FLOOR: f64 = 0.001;

/// Bisection steps of relplot's `search_param`.
const REFINE: usize = 10;

/// The smooth reliability curve at one bandwidth, on relplot's evaluation points.
#[derive(Clone, Debug, PartialEq)]
pub struct SmoothCurve {
    /// The bandwidth `sigma`.
    pub sigma: f64,
    /// Evaluation points `t = linspace(0, 1, T)`, `T = max(round(10/sigma), 200)`.
    pub t: Vec<f64>,
    /// The smoothed mean outcome `t - rs(t)` (the curve to draw against `t`).
    pub mean_outcome: Vec<f64>,
    /// The smoothed density `dens(t) = smooth(1)(t) + 1e-4` (a sum of kernel
    /// weights, of order `n`), for the density band.
    pub density: Vec<f64>,
}

/// smECE with its bandwidth and its curve (see [`smece`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SmoothEce {
    /// `smECE = S(sigma*)`.
    pub smece: f64,
    /// The bandwidth `sigma*` of relplot's search.
    pub sigma: f64,
    /// The smooth reliability curve at `sigma*`.
    pub curve: SmoothCurve,
}

/// Python's `round` (ties to even) as an integer.
fn py_round(x: f64) -> usize {
    x.round_ties_even() as usize
}

/// numpy's `linspace(0, 1, num)`: `j * (1 / (num - 1))`, the last point exactly 1.
fn linspace01(num: usize) -> Vec<f64> {
    if num == 1 {
        return vec![0.0];
    }
    let step = 1.0 / (num - 1) as f64;
    let mut t: Vec<f64> = (0..num).map(|j| j as f64 * step).collect();
    t[num - 1] = 1.0;
    t
}

/// relplot's grid size for `sigma`: `floor(max(2000, round(20/sigma)) / 2) + 1`.
pub fn grid_points(sigma: f64) -> usize {
    py_round(20.0 / sigma).max(2000) / 2 + 1
}

/// relplot's evaluation points for `sigma`: `max(round(10/sigma), 200)`.
pub fn eval_points(sigma: f64) -> usize {
    py_round(10.0 / sigma).max(200)
}

/// relplot's `smooth_round_to_grid` of both `r_i = u_i - o_i` and `1`, on `g` points:
/// `b = clip(trunc(u (g-1)), 0, g-2)`, `w = u (g-1) - b`; `(1-w) v` at `b`, `w v` at
/// `b + 1`. Returns `(grid of r, grid of 1)`.
fn spread(u: &[f64], o: &[bool], g: usize) -> (Vec<f64>, Vec<f64>) {
    let mut vr = vec![0.0; g];
    let mut v1 = vec![0.0; g];
    let scale = (g - 1) as f64;
    let top = (g - 2) as f64;
    for (&ui, &oi) in u.iter().zip(o) {
        let x = ui * scale;
        // numpy astype(int) truncates toward zero; then clip to [0, g-2]
        let b = x.trunc().clamp(0.0, top);
        let w = x - b;
        let bi = b as usize;
        let r = ui - oi as u8 as f64;
        vr[bi] += (1.0 - w) * r;
        vr[bi + 1] += w * r;
        v1[bi] += 1.0 - w;
        v1[bi + 1] += w;
    }
    (vr, v1)
}

/// relplot's `GaussianKernel.kernel_ev(g)`: `exp(-(t_j - 1/2)² / (2 sigma²)) /
/// (sqrt(2 pi) sigma)` at `t = linspace(0, 1, g)`.
fn kernel(sigma: f64, g: usize) -> Vec<f64> {
    let var = sigma * sigma;
    let norm = (2.0 * std::f64::consts::PI).sqrt() * sigma;
    linspace01(g)
        .into_iter()
        .map(|t| (-(t - 0.5) * (t - 0.5) / (2.0 * var)).exp() / norm)
        .collect()
}

/// relplot's `ReflectedGaussianKernel.convolve` of the two grids `a`, `b` (length
/// `g`) with kernel `k`: `ext = [flip(v)[:-1], v, flip(v)[1:]]`,
/// `convolve(ext, k, "valid")[g//2 : g//2 + g]`, i.e.
/// `out[i] = sum_j k[j] ext[g//2 + i + g - 1 - j]`, over the taps `j` whose kernel
/// value is at least [`KERNEL_CUTOFF`] of the peak.
fn reflect_convolve(a: &[f64], b: &[f64], k: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let g = a.len();
    let extend = |v: &[f64]| -> Vec<f64> {
        let mut ext = Vec::with_capacity(3 * g - 2);
        ext.extend(v[1..].iter().rev());
        ext.extend_from_slice(v);
        ext.extend(v[..g - 1].iter().rev());
        ext
    };
    let (ea, eb) = (extend(a), extend(b));
    let peak = k.iter().cloned().fold(0.0, f64::max);
    let keep = |j: &usize| k[*j] >= KERNEL_CUTOFF * peak;
    let (Some(jlo), Some(jhi)) = ((0..g).find(keep), (0..g).rev().find(keep)) else {
        return (vec![0.0; g], vec![0.0; g]);
    };
    let (mut oa, mut ob) = (vec![0.0; g], vec![0.0; g]);
    let base = g / 2 + g - 1;
    // out[i] += k[j] ext[base - j + i]: an axpy over i per tap (vectorises)
    for (j, &kj) in k.iter().enumerate().take(jhi + 1).skip(jlo) {
        let start = base - j;
        let (sa, sb) = (&ea[start..start + g], &eb[start..start + g]);
        for ((x, y), (&p, &q)) in oa.iter_mut().zip(ob.iter_mut()).zip(sa.iter().zip(sb)) {
            *x += kj * p;
            *y += kj * q;
        }
    }
    (oa, ob)
}

/// relplot's `interpolate(t, y)`: `i = clip(trunc(t (g-1)), 0, g-2)`,
/// `w = (t - i h) / h` with `h = 1/(g-1)`, `y[i] (1-w) + y[i+1] w`.
fn interpolate(t: f64, y: &[f64]) -> f64 {
    let g = y.len();
    let h = 1.0 / (g - 1) as f64;
    let i = (t * (g - 1) as f64).trunc().clamp(0.0, (g - 2) as f64) as usize;
    let w = (t - i as f64 * h) / h;
    y[i] * (1.0 - w) + y[i + 1] * w
}

/// The grids of one `G`, built once per call and shared by every bandwidth with
/// that `G`.
#[derive(Default)]
struct Grids {
    built: Vec<(usize, Vec<f64>, Vec<f64>)>,
}

impl Grids {
    fn get(&mut self, u: &[f64], o: &[bool], g: usize) -> (&[f64], &[f64]) {
        let at = match self.built.iter().position(|(size, _, _)| *size == g) {
            Some(at) => at,
            None => {
                let (vr, v1) = spread(u, o, g);
                self.built.push((g, vr, v1));
                self.built.len() - 1
            }
        };
        let (_, vr, v1) = &self.built[at];
        (vr, v1)
    }
}

/// `(t, rs, dens)` at bandwidth `sigma` (relplot's `ReflectedGaussianKernel.smooth`).
fn smooth(u: &[f64], o: &[bool], sigma: f64, grids: &mut Grids) -> SmoothCurve {
    let g = grid_points(sigma);
    let (vr, v1) = grids.get(u, o, g);
    let (sr, s1) = reflect_convolve(vr, v1, &kernel(sigma, g));
    let t = linspace01(eval_points(sigma));
    let mut rs = Vec::with_capacity(t.len());
    let mut density = Vec::with_capacity(t.len());
    for &ti in &t {
        let dens = interpolate(ti, &s1) + DENSITY_EPS;
        rs.push(interpolate(ti, &sr) / dens);
        density.push(dens);
    }
    SmoothCurve {
        sigma,
        mean_outcome: t.iter().zip(&rs).map(|(&ti, &r)| ti - r).collect(),
        t,
        density,
    }
}

/// `S(sigma) = sum_t |rs(t)| dens(t) / sum_t dens(t)` of a curve, from its
/// `mean_outcome = t - rs`.
fn smooth_error(curve: &SmoothCurve) -> f64 {
    let mut num = Sum::new();
    let mut den = Sum::new();
    for ((&t, &y), &d) in curve.t.iter().zip(&curve.mean_outcome).zip(&curve.density) {
        num.add((t - y).abs() * d);
        den.add(d);
    }
    num.value() / den.value()
}

fn valid(u: &[f64], o: &[bool]) -> bool {
    assert_eq!(u.len(), o.len(), "one outcome per forecast");
    !u.is_empty() && u.iter().all(|x| !x.is_nan())
}

/// `S(sigma)`, relplot's `smECE_sigma(f, y, sigma)`: the smooth ECE at a fixed
/// bandwidth (module docs). Forecasts are expected in `[0, 1]` (values outside are
/// clipped into the end grid cells, as relplot does).
///
/// `None` when `u` is empty, holds a NaN, or `sigma` is not a positive finite
/// number. A single class is fine (the residuals are then all `u` or all `u - 1`).
/// Panics when `u.len() != o.len()`.
pub fn smooth_ece_at(u: &[f64], o: &[bool], sigma: f64) -> Option<f64> {
    smooth_curve(u, o, sigma).map(|c| smooth_error(&c))
}

/// The smooth reliability curve at bandwidth `sigma`: `t`, `t - rs(t)` and
/// `dens(t)` (see [`SmoothCurve`]). `None` as [`smooth_ece_at`].
pub fn smooth_curve(u: &[f64], o: &[bool], sigma: f64) -> Option<SmoothCurve> {
    if !valid(u, o) || !sigma.is_finite() || sigma <= 0.0 {
        return None;
    }
    Some(smooth(u, o, sigma, &mut Grids::default()))
}

/// smECE exactly as relplot 1.0.3's `smECE(f, y)` (METRICS.md §8.1): the bandwidth
/// search accepts `alpha` when `alpha < 0.001` or `alpha < S(alpha)`; `sigma* = 1`
/// when 1 is accepted, else bisection `start = 1, end = 0` ten times (`mid = (start
/// + end)/2`, accepted: `end = mid`, else `start = mid`) and `sigma* = start`;
/// `smECE = S(sigma*)`, returned with `sigma*` and the curve at `sigma*`.
///
/// `None` when `u` is empty or holds a NaN (relplot returns NaN or 0 there). A single
/// class is defined. Panics when `u.len() != o.len()`.
///
/// ```
/// use calibscope_core::smece::smece;
/// let u = [0.1, 0.4, 0.8, 0.9];
/// let o = [false, true, true, true];
/// let s = smece(&u, &o).unwrap();
/// assert!(s.smece > 0.0 && s.smece < 1.0 && s.sigma > 0.0 && s.sigma <= 1.0);
/// assert!(smece(&[], &[]).is_none());
/// ```
pub fn smece(u: &[f64], o: &[bool]) -> Option<SmoothEce> {
    if !valid(u, o) {
        return None;
    }
    let mut grids = Grids::default();
    let accepted = |alpha: f64, grids: &mut Grids| {
        alpha < SIGMA_FLOOR || alpha < smooth_error(&smooth(u, o, alpha, grids))
    };
    let sigma = if accepted(1.0, &mut grids) {
        1.0
    } else {
        let (mut start, mut end) = (1.0f64, 0.0f64);
        for _ in 0..REFINE {
            let mid = (start + end) / 2.0;
            if accepted(mid, &mut grids) {
                end = mid;
            } else {
                start = mid;
            }
        }
        start
    };
    let curve = smooth(u, o, sigma, &mut grids);
    let value = smooth_error(&curve);
    Some(SmoothEce {
        smece: value,
        sigma,
        curve,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_match_numpy() {
        assert_eq!(grid_points(1.0), 1001);
        assert_eq!(grid_points(0.001), 10001);
        assert_eq!(grid_points(1.0 / 1024.0), 10241);
        assert_eq!(eval_points(0.5), 200);
        assert_eq!(eval_points(1.0 / 1024.0), 10240);
        assert_eq!(py_round(2.5), 2);
        assert_eq!(py_round(3.5), 4);
        let t = linspace01(5);
        assert_eq!(t, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        // interpolation reproduces the grid at its points
        let y = [1.0, 3.0, 2.0];
        assert_eq!(interpolate(0.0, &y), 1.0);
        assert_eq!(interpolate(0.5, &y), 3.0);
        assert_eq!(interpolate(1.0, &y), 2.0);
        assert_eq!(interpolate(0.25, &y), 2.0);
    }

    #[test]
    fn undefined_inputs() {
        assert!(smece(&[], &[]).is_none());
        assert!(smece(&[0.2, f64::NAN], &[true, false]).is_none());
        assert!(smooth_ece_at(&[0.2], &[true], 0.0).is_none());
        assert!(smooth_ece_at(&[0.2], &[true], f64::NAN).is_none());
        // one class is defined
        assert!(smece(&[0.2, 0.3], &[false, false]).unwrap().smece > 0.0);
    }
}
