//! Screening: the temperature NLL in `f32`, with a rigorous error bound, for the early
//! golden-section comparisons.
//!
//! While the bracket is wide, the two probes of an iteration have NLLs that differ by
//! far more than `1e-6`; deciding `f(c) < f(d)` needs no 16 digits. These kernels
//! compute the NLL's log part in `f32` (twice the SIMD lanes of `f64` and half the
//! polynomial degree) together with a bound `B` on `|computed - exact|`; the search
//! takes the comparison from the screened values only when the intervals
//! `value ± bound` do not overlap, so its decisions are those of the exact kernel (see
//! [`super::golden`]). Nothing screened is ever reported: trace values and the result
//! are exact evaluations.
//!
//! **The bound.** For a term `t = 2^(beta2 d)` (`d <= 0`, `beta2 = log2(e) / tau`) the
//! kernel forms `u = fl32(fl32(beta2) fl32(d))`, so `u = beta2 d (1 + e1)` with
//! `|e1| <= ETA = 3.01 * 2^-24`, and `2^u` with a relative error `<= RHO` (polynomial
//! and its `f32` roundings; measured in the tests, with a factor 4 of margin). So
//! `|fl(2^u) - t| <= t (ln2 |u| ETA + RHO)` to first order (the second-order terms are
//! below `1e-9` relative for `|u| <= 150`, covered by the factor `SAFETY`).
//! Underflowed terms (`u < -126`) carry at most `2^-126` absolute each.
//!
//! - Multiclass, per row, `S = sum_{j != argmax} 2^(beta2 d_j)` summed in `f32` lanes
//!   (each lane `ceil(k / L)` terms, relative error `<= ceil(k / L) 2^-24`); the row's
//!   log part `ln(1 + S)` is taken in `f64`, so its error is `|dS| / (1 + S)`:
//!   `B_row = SAFETY (ln2 ETA U + (RHO + GAMMA) S + k 2^-126) / (1 + S)` with
//!   `U = sum_j 2^u_j |u_j| <= U0 S + (k - 1) U0 2^-U0` (`2^u |u| <= U0 2^u` while
//!   `|u| <= U0`, and it decreases beyond `U0 = 24 > 1 / ln2`), so only `S` is summed.
//! - Binary, per sample `L = ln(1 + e)`, `e = 2^u <= 1`, through `s = e / (2 + e)`,
//!   `L = 2 atanh(s)` in `f32` (relative error `<= SIGMA`): `|dL| <= |de| + SIGMA L`,
//!   summed: `B = SAFETY (ln2 ETA sum e |u| + RHO sum e + (SIGMA + GAMMA) sum L + n
//!   2^-126)`.
//!
//! Then the NLL bound is `B / n` plus a relative `1e-12` for the exact kernel's own
//! rounding (the decision must match the `f64` kernel, not the real number).

use super::kernel::{ln1p_nonneg, RowStats};
use crate::data::Real;

/// `f32` lanes.
const L: usize = 8;
/// Rows per batch of the row-wise `f64` tail (log and bound).
const RB: usize = 16;
/// `1.5 * 2^23`: adding it rounds an `|x| < 2^22` to an integer in the low bits.
const MAGIC: f32 = 12_582_912.0;
/// `2^-64`.
const TWO_M64: f32 = f32::from_bits(0x1f80_0000);
/// Relative error of `fl32(fl32(beta2) fl32(d))` (three roundings).
const ETA: f64 = 3.01 * F32_EPS_HALF;
/// Relative error bound of [`exp2f_nonpos`] (measured worst ~2.7e-7; see the tests).
const RHO: f64 = 1.2e-6;
/// Relative error bound of [`ln1p_small_f32`] on `[0, 1]` (measured worst ~2.8e-7).
const SIGMA: f64 = 1.2e-6;
/// Margin on the first-order bound.
const SAFETY: f64 = 1.01;
/// `2^-24`.
const F32_EPS_HALF: f64 = 5.960_464_477_539_063e-8;
/// See `U` in the module docs.
const U0: f64 = 24.0;
/// Smallest normal `f32`: absolute error of an underflowed term.
const TINY: f64 = 1.175_494_4e-38;

/// `2^f`, `|f| <= 1/2`: degree 5, fitted to the relative error (Lawson's weighted
/// least squares on Chebyshev nodes, coefficients rounded to `f32`): `< 1.6e-7`.
const EXP2_C: [f32; 6] = [
    1.0,
    0.693_146_94,
    0.240_221_2,
    0.055_507_13,
    0.009_675_541,
    0.001_327_647_1,
];

#[inline(always)]
fn fmaddf<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `2^u` in `f32` for `u <= 0` (below `-150`, including `-inf`, as at `-150`: 0).
#[inline(always)]
pub(crate) fn exp2f_nonpos<const FMA: bool>(u: f32) -> f32 {
    let u = if u < -150.0 { -150.0 } else { u };
    let t = u + MAGIC;
    let n = t - MAGIC;
    let f = u - n;
    let c = &EXP2_C;
    let f2 = f * f;
    let p01 = fmaddf::<FMA>(c[1], f, c[0]);
    let p23 = fmaddf::<FMA>(c[3], f, c[2]);
    let p45 = fmaddf::<FMA>(c[5], f, c[4]);
    let p = fmaddf::<FMA>(fmaddf::<FMA>(p45, f2, p23), f2, p01);
    // p * 2^(n + 64) is normal for n >= -150; the final * 2^-64 rounds once
    let e = (t.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32 - 64);
    f32::from_bits((p.to_bits() as i32).wrapping_add(e << 23) as u32) * TWO_M64
}

/// `ln(1 + e)` in `f32` for `e` in `[0, 1]`: `2 atanh(s)`, `s = e / (2 + e) <= 1/3`,
/// series to `s^13` (truncation `< 2e-8` relative).
#[inline(always)]
pub(crate) fn ln1p_small_f32<const FMA: bool>(e: f32) -> f32 {
    let s = e / (2.0 + e);
    let z = s * s;
    let z2 = z * z;
    let q01 = fmaddf::<FMA>(1.0 / 3.0, z, 1.0);
    let q23 = fmaddf::<FMA>(1.0 / 7.0, z, 1.0 / 5.0);
    let q45 = fmaddf::<FMA>(1.0 / 11.0, z, 1.0 / 9.0);
    let q = fmaddf::<FMA>(
        fmaddf::<FMA>(1.0 / 13.0, z2, q45),
        z2 * z2,
        fmaddf::<FMA>(q23, z2, q01),
    );
    2.0 * s * q
}

/// Lane sums of `2^u` over a row of deltas (`u = d b`); `d.len()` a multiple of `L`.
/// With AVX2 + FMA and on wasm with `simd128`, written with the intrinsics
/// ([`avx2::row_lanes`], [`wasm::row_lanes`]: the same operations in the same order;
/// LLVM leaves parts of the plain version scalar).
#[inline(always)]
fn row_lanes<const FMA: bool>(d: &[f32], b: f32) -> [f32; L] {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if !FMA {
        return wasm::row_lanes(d, b);
    }
    #[cfg(target_arch = "x86_64")]
    if FMA {
        // SAFETY: FMA = true is only instantiated behind `uses_fma()` (AVX2 + FMA).
        return unsafe { avx2::row_lanes(d, b) };
    }
    let mut s = [0.0f32; L];
    for ch in d.chunks_exact(L) {
        let ch: &[f32; L] = ch.try_into().expect("L lanes");
        for l in 0..L {
            s[l] += exp2f_nonpos::<FMA>(ch[l] * b);
        }
    }
    s
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{EXP2_C, L, MAGIC, TWO_M64};
    use core::arch::x86_64::*;

    /// [`super::exp2f_nonpos`] (with FMA) on eight lanes.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn exp2f8(u: __m256) -> __m256 {
        let c = |i: usize| _mm256_set1_ps(EXP2_C[i]);
        let magic = _mm256_set1_ps(MAGIC);
        let u = _mm256_max_ps(u, _mm256_set1_ps(-150.0));
        let t = _mm256_add_ps(u, magic);
        let n = _mm256_sub_ps(t, magic);
        let f = _mm256_sub_ps(u, n);
        let f2 = _mm256_mul_ps(f, f);
        let p01 = _mm256_fmadd_ps(c(1), f, c(0));
        let p23 = _mm256_fmadd_ps(c(3), f, c(2));
        let p45 = _mm256_fmadd_ps(c(5), f, c(4));
        let p = _mm256_fmadd_ps(_mm256_fmadd_ps(p45, f2, p23), f2, p01);
        let bias = _mm256_set1_epi32(MAGIC.to_bits() as i32 - 64);
        let e = _mm256_sub_epi32(_mm256_castps_si256(t), bias);
        let scaled = _mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32::<23>(e));
        _mm256_mul_ps(_mm256_castsi256_ps(scaled), _mm256_set1_ps(TWO_M64))
    }

    /// [`super::row_lanes`] with FMA.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn row_lanes(d: &[f32], b: f32) -> [f32; L] {
        let bv = _mm256_set1_ps(b);
        let mut s = _mm256_setzero_ps();
        for ch in d.chunks_exact(L) {
            let x = _mm256_loadu_ps(ch.as_ptr());
            s = _mm256_add_ps(s, exp2f8(_mm256_mul_ps(x, bv)));
        }
        let mut out = [0.0f32; L];
        _mm256_storeu_ps(out.as_mut_ptr(), s);
        out
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
    use super::{EXP2_C, L, MAGIC, TWO_M64};
    use core::arch::wasm32::*;

    /// [`super::exp2f_nonpos`] (without FMA) on four lanes.
    #[inline(always)]
    fn exp2f4(u: v128) -> v128 {
        let c = |i: usize| f32x4_splat(EXP2_C[i]);
        let magic = f32x4_splat(MAGIC);
        // pmax(u, -150) = if u < -150 { -150 } else { u }
        let u = f32x4_pmax(u, f32x4_splat(-150.0));
        let t = f32x4_add(u, magic);
        let n = f32x4_sub(t, magic);
        let f = f32x4_sub(u, n);
        let f2 = f32x4_mul(f, f);
        let p01 = f32x4_add(f32x4_mul(c(1), f), c(0));
        let p23 = f32x4_add(f32x4_mul(c(3), f), c(2));
        let p45 = f32x4_add(f32x4_mul(c(5), f), c(4));
        let p = f32x4_add(f32x4_mul(f32x4_add(f32x4_mul(p45, f2), p23), f2), p01);
        let e = i32x4_sub(t, i32x4_splat(MAGIC.to_bits() as i32 - 64));
        let scaled = i32x4_add(p, i32x4_shl(e, 23));
        f32x4_mul(scaled, f32x4_splat(TWO_M64))
    }

    /// [`super::row_lanes`] without FMA: lanes 0-3 and 4-7 of each chunk of 8.
    #[inline(always)]
    pub(super) fn row_lanes(d: &[f32], b: f32) -> [f32; L] {
        let bv = f32x4_splat(b);
        let (mut s0, mut s1) = (f32x4_splat(0.0), f32x4_splat(0.0));
        for ch in d.chunks_exact(L) {
            // SAFETY: `ch` holds 8 f32 (32 bytes); unaligned loads are allowed.
            let (x0, x1) = unsafe {
                (
                    v128_load(ch.as_ptr() as *const v128),
                    v128_load(ch.as_ptr().add(4) as *const v128),
                )
            };
            s0 = f32x4_add(s0, exp2f4(f32x4_mul(x0, bv)));
            s1 = f32x4_add(s1, exp2f4(f32x4_mul(x1, bv)));
        }
        [
            f32x4_extract_lane::<0>(s0),
            f32x4_extract_lane::<1>(s0),
            f32x4_extract_lane::<2>(s0),
            f32x4_extract_lane::<3>(s0),
            f32x4_extract_lane::<0>(s1),
            f32x4_extract_lane::<1>(s1),
            f32x4_extract_lane::<2>(s1),
            f32x4_extract_lane::<3>(s1),
        ]
    }
}

/// Screened multiclass log part for each `beta2` (`log2(e) / tau`): `(sum_i ln(1 +
/// S_i), bound)`. Rows are read along the classes (lanes across classes).
#[inline(always)]
fn multiclass_body<const FMA: bool, const NT: usize, T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    beta2: [f64; NT],
) -> [(f64, f64); NT] {
    let kp = k.div_ceil(L) * L;
    let b32 = beta2.map(|b| b as f32);
    let mut buf = vec![f32::NEG_INFINITY; kp];
    let gamma = (kp / L) as f64 * F32_EPS_HALF;
    let mut total = [(0.0f64, 0.0f64); NT];
    let tiny = k as f64 * TINY;
    let u_tail = (k - 1) as f64 * U0 * (-U0).exp2();
    let mut sums = [[0.0f64; RB]; NT];
    let mut filled = 0;
    for i in 0..stats.n {
        let r = stats.rows.map_or(i, |rows| rows[i]);
        let z = &data[r * k..r * k + k];
        let m = stats.max[i];
        for (d, &v) in buf.iter_mut().zip(z) {
            *d = v.delta_f32(m);
        }
        buf[stats.argmax[i] as usize] = f32::NEG_INFINITY;
        for t in 0..NT {
            sums[t][filled] = row_lanes::<FMA>(&buf, b32[t])
                .iter()
                .map(|&v| f64::from(v))
                .sum();
        }
        filled += 1;
        if filled == RB || i + 1 == stats.n {
            for t in 0..NT {
                // padding rows (sum 0) add ln 1 = 0 and a zero bound but for TINY
                sums[t][filled..].fill(0.0);
                let (mut v, mut b) = (0.0, 0.0);
                for &sum in &sums[t] {
                    v += ln1p_nonneg::<FMA>(sum);
                    let u_sum = U0 * sum + u_tail;
                    b += (std::f64::consts::LN_2 * ETA * u_sum + (RHO + gamma) * sum + tiny)
                        / (1.0 + sum);
                }
                total[t].0 += v;
                total[t].1 += SAFETY * b;
            }
            filled = 0;
        }
    }
    total.map(|(v, b)| (v, b + row_sum_rounding(stats.n, v)))
}

/// A bound on the rounding of a plain `f64` sum of `n` non-negative terms totalling
/// `total`: `(n - 1) 2^-53 total`.
fn row_sum_rounding(n: usize, total: f64) -> f64 {
    n as f64 * 1.12e-16 * total
}

/// Screened binary log part `sum_i ln(1 + 2^(-a_i beta2))` with its bound.
#[inline(always)]
fn binary_body<const FMA: bool, const NT: usize>(a: &[f64], beta2: [f64; NT]) -> [(f64, f64); NT] {
    const BLOCK: usize = 256;
    let b32 = beta2.map(|b| -(b as f32));
    let gamma = (BLOCK / L) as f64 * F32_EPS_HALF;
    let mut sums = [[0.0f64; 3]; NT];
    let mut x = [0.0f32; BLOCK];
    for block in a.chunks(BLOCK) {
        let m = block.len();
        for (dst, &v) in x.iter_mut().zip(block) {
            *dst = v as f32;
        }
        x[m..].fill(f32::INFINITY);
        let mut acc = [[[0.0f32; L]; 3]; NT];
        for ch in x.chunks_exact(L) {
            for t in 0..NT {
                for l in 0..L {
                    let u = ch[l] * b32[t];
                    let u = if u < -150.0 { -150.0 } else { u };
                    let e = exp2f_nonpos::<FMA>(u);
                    acc[t][0][l] += ln1p_small_f32::<FMA>(e);
                    acc[t][1][l] += e;
                    acc[t][2][l] = fmaddf::<FMA>(e, -u, acc[t][2][l]);
                }
            }
        }
        for t in 0..NT {
            for q in 0..3 {
                sums[t][q] += acc[t][q].iter().map(|&v| f64::from(v)).sum::<f64>();
            }
        }
    }
    let n = a.len() as f64;
    sums.map(|[l, e, eu]| {
        let bound =
            SAFETY * (std::f64::consts::LN_2 * ETA * eu + RHO * e + (SIGMA + gamma) * l + n * TINY);
        (l, bound + row_sum_rounding(a.len() / BLOCK + 1, l))
    })
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn multiclass_avx2<const NT: usize, T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    beta2: [f64; NT],
) -> [(f64, f64); NT] {
    multiclass_body::<true, NT, T>(data, k, stats, beta2)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn binary_avx2<const NT: usize>(a: &[f64], beta2: [f64; NT]) -> [(f64, f64); NT] {
    binary_body::<true, NT>(a, beta2)
}

/// Screened `sum_i ln(sum_{j != argmax} exp((z_ij - m_i) / tau) + 1)` for each `tau`
/// (as `beta2 = log2(e) / tau`), with a bound on its error.
pub(crate) fn multiclass_sums<const NT: usize, T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    beta2: [f64; NT],
) -> [(f64, f64); NT] {
    #[cfg(target_arch = "x86_64")]
    if super::kernel::uses_fma() {
        // SAFETY: the CPU supports AVX2 and FMA (checked above).
        return unsafe { multiclass_avx2::<NT, T>(data, k, stats, beta2) };
    }
    multiclass_body::<false, NT, T>(data, k, stats, beta2)
}

/// Screened `sum_i ln(1 + exp(-a_i / tau))` for each `tau` (as `beta2`), with a bound.
pub(crate) fn binary_sums<const NT: usize>(a: &[f64], beta2: [f64; NT]) -> [(f64, f64); NT] {
    #[cfg(target_arch = "x86_64")]
    if super::kernel::uses_fma() {
        // SAFETY: the CPU supports AVX2 and FMA (checked above).
        return unsafe { binary_avx2::<NT>(a, beta2) };
    }
    binary_body::<false, NT>(a, beta2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(got: f32, want: f64) -> f64 {
        ((got as f64 - want) / want).abs()
    }

    fn check_exp<const FMA: bool>() -> f64 {
        let mut worst: f64 = 0.0;
        // every f32 in [-1, 0] with a step of 2^-20, then the whole range sparser
        let mut u = 0.0f32;
        while u >= -1.0 {
            worst = worst.max(rel(exp2f_nonpos::<FMA>(u), (u as f64).exp2()));
            u -= 1.0 / 1_048_576.0;
        }
        let mut u = 0.0f32;
        while u > -126.0 {
            worst = worst.max(rel(exp2f_nonpos::<FMA>(u), (u as f64).exp2()));
            u = u - 0.000_123_7 - u.abs() * 1e-6;
        }
        assert_eq!(exp2f_nonpos::<FMA>(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp2f_nonpos::<FMA>(0.0), 1.0);
        for u in [-126.5f32, -140.0, -149.0, -150.0, -1000.0] {
            let got = exp2f_nonpos::<FMA>(u) as f64;
            assert!((got - (u as f64).exp2()).abs() <= TINY, "{u}: {got}");
        }
        worst
    }

    fn check_ln1p<const FMA: bool>() -> f64 {
        let mut worst: f64 = 0.0;
        let mut e = 1.0f32;
        while e > 1e-38 {
            worst = worst.max(rel(ln1p_small_f32::<FMA>(e), (e as f64).ln_1p()));
            e *= 0.999_9;
        }
        assert_eq!(ln1p_small_f32::<FMA>(0.0), 0.0);
        worst
    }

    #[test]
    fn kernels_are_within_their_stated_bounds_with_margin() {
        for worst in [check_exp::<false>(), check_exp::<true>()] {
            eprintln!("exp2f worst relative error {worst:e}");
            assert!(4.0 * worst <= RHO, "{worst}");
        }
        for worst in [check_ln1p::<false>(), check_ln1p::<true>()] {
            eprintln!("ln1p f32 worst relative error {worst:e}");
            assert!(4.0 * worst <= SIGMA, "{worst}");
        }
    }
}

#[cfg(test)]
mod timing {
    use super::*;

    /// `cargo test --release -p calibscope-core --lib screen_timing -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn screen_timing() {
        let (n, k) = (50_000usize, 100usize);
        let mut x = 1u64;
        let z: Vec<f32> = (0..n * k)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 40) as f32 / 16_777_216.0 - 0.5) * 12.0
            })
            .collect();
        let mut max = Vec::new();
        let mut argmax = Vec::new();
        for i in 0..n {
            let row = &z[i * k..i * k + k];
            let a = (0..k).fold(0, |a, j| if row[j] > row[a] { j } else { a });
            max.push(row[a] as f64);
            argmax.push(a as u32);
        }
        let stats = RowStats {
            rows: None,
            n,
            max,
            argmax,
        };
        let time = |f: &mut dyn FnMut()| {
            (0..15)
                .map(|_| {
                    let t = std::time::Instant::now();
                    f();
                    t.elapsed().as_secs_f64() * 1e3
                })
                .fold(f64::INFINITY, f64::min)
        };
        let b = [1.3, 1.4];
        eprintln!(
            "screen  NT=2 {:.2} ms",
            time(&mut || {
                std::hint::black_box(multiclass_sums(&z, k, &stats, b));
            })
        );
        eprintln!(
            "direct  NT=2 {:.2} ms",
            time(&mut || {
                std::hint::black_box(super::super::kernel::multiclass_sums(&z, k, &stats, b));
            })
        );
        eprintln!(
            "screen  NT=1 {:.2} ms",
            time(&mut || {
                std::hint::black_box(multiclass_sums(&z, k, &stats, [1.3]));
            })
        );
        eprintln!(
            "direct  NT=1 {:.2} ms",
            time(&mut || {
                std::hint::black_box(super::super::kernel::multiclass_sums(&z, k, &stats, [1.3]));
            })
        );
        let a: Vec<f64> = z[..1_000_000]
            .iter()
            .map(|v| v.abs() as f64 * 2.0)
            .collect();
        eprintln!(
            "bin screen NT=2 {:.2} ms",
            time(&mut || {
                std::hint::black_box(binary_sums(&a, b));
            })
        );
        eprintln!(
            "bin direct NT=2 {:.2} ms",
            time(&mut || {
                std::hint::black_box(super::super::kernel::binary_sums(&a, b));
            })
        );
    }
}
