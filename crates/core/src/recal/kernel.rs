//! Vectorisable `exp2` / `log1p` and the two temperature-scaling NLL kernels.
//!
//! The kernels are written as plain Rust over fixed-width lane arrays (`[f64; W]`), with
//! no branches in the element loops, so LLVM vectorises them. They are compiled twice on
//! x86-64: once for the baseline target and once inside a `#[target_feature(enable =
//! "avx2,fma")]` wrapper (fused multiply-adds in the polynomials), chosen at run time.
//! Both variants are accurate to a couple of ulps per term; the FMA variant's results
//! are identical on every FMA-capable machine (the lane order is fixed by the arrays,
//! not by the register width).
//!
//! Accuracy (checked in the unit tests against `std`): `exp2_nonpos` within 2 ulp,
//! `ln1p_nonneg` within 2 ulp, for every argument of their domains.

use crate::data::Real;
use crate::sum::Sum;

/// Lanes per chunk.
pub(crate) const W: usize = 4;
/// Columns per piece of a row in the multiclass kernel (a multiple of `W`).
const PIECE: usize = 64;
/// Rows per batch of the vectorised `log1p` in the multiclass kernel.
const RB: usize = 8;
/// Elements per block of the binary kernel: each of the `W` lanes sums `BLOCK / W`
/// terms in plain `f64` before they enter the compensated sum (plain-summation error
/// at most `BLOCK / W * eps` relative).
const BLOCK: usize = 128;

/// `1.5 * 2^52`: adding it rounds an `|x| < 2^51` to an integer (ties to even) and
/// leaves that integer in the low mantissa bits.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;
/// `2^-60`.
const TWO_M60: f64 = 8.673_617_379_884_035e-19;

/// Coefficients of `2^f` on `[-1/2, 1/2]` (degree 11, Chebyshev-economised Taylor
/// series; relative approximation error 1.9e-17).
const EXP2_C: [f64; 12] = [
    1.0,
    std::f64::consts::LN_2,
    0.240_226_506_959_101_58,
    0.055_504_108_664_821_7,
    0.009_618_129_107_587_253,
    0.001_333_355_814_639_035,
    0.000_154_035_304_637_279_82,
    1.525_273_385_629_557_4e-5,
    1.321_543_253_425_411_8e-6,
    1.017_805_119_211_784_7e-7,
    7.074_194_562_613_105e-9,
    4.456_675_463_639_861e-10,
];

/// fdlibm's `log` polynomial: `R(z) ~ Lg1 z + ... + Lg7 z^7`, `z = s^2`,
/// `s = f / (2 + f)`, `|s| <= 0.1716` (error < 2^-58.45).
const LG: [f64; 7] = [
    0.666_666_666_666_673_5,
    0.399_999_999_994_094_2,
    0.285_714_287_436_623_9,
    0.222_221_984_321_497_84,
    0.181_835_721_616_180_5,
    0.153_138_376_992_093_73,
    0.147_981_986_051_165_86,
];
const LN2_HI: f64 = 0.693_147_180_369_123_8;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
/// `log2(e)`.
pub(crate) const LOG2_E: f64 = std::f64::consts::LOG2_E;

#[inline(always)]
pub(crate) fn fmadd<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `2^x` for `x <= 0` (`-inf` gives 0; NaN gives garbage: callers reject NaN); gradual underflow is rounded
/// correctly, results below `2^-1075` are 0.
#[inline(always)]
pub(crate) fn exp2_nonpos<const FMA: bool>(x: f64) -> f64 {
    // a select, not f64::max: LLVM emits one `maxpd`
    let x = if x < -1080.0 { -1080.0 } else { x };
    let t = x + ROUND_MAGIC;
    let n = t - ROUND_MAGIC;
    let f = x - n; // exact, in [-1/2, 1/2]
                   // Estrin's scheme: the dependency chain is 5 operations deep instead of 11
    let c = &EXP2_C;
    let (f2, p01, p23, p45) = (
        f * f,
        fmadd::<FMA>(c[1], f, c[0]),
        fmadd::<FMA>(c[3], f, c[2]),
        fmadd::<FMA>(c[5], f, c[4]),
    );
    let (f4, p67, p89, p1011) = (
        f2 * f2,
        fmadd::<FMA>(c[7], f, c[6]),
        fmadd::<FMA>(c[9], f, c[8]),
        fmadd::<FMA>(c[11], f, c[10]),
    );
    let p03 = fmadd::<FMA>(p23, f2, p01);
    let p47 = fmadd::<FMA>(p67, f2, p45);
    let p811 = fmadd::<FMA>(p1011, f2, p89);
    let p = fmadd::<FMA>(fmadd::<FMA>(p811, f4, p47), f4, p03);
    // p * 2^(n + 60) is normal for n >= -1080; the final * 2^-60 rounds once
    let e = (t.to_bits() as i64).wrapping_sub(ROUND_MAGIC.to_bits() as i64 - 60);
    let scaled = (p.to_bits() as i64).wrapping_add(e << 52);
    f64::from_bits(scaled as u64) * TWO_M60
}

/// `ln(1 + r)` for `r >= 0` (finite), accurate to ~1 ulp also for tiny `r`.
#[inline(always)]
pub(crate) fn ln1p_nonneg<const FMA: bool>(r: f64) -> f64 {
    let w = 1.0 + r;
    // w = 2^k m with m in [sqrt(2)/2, sqrt(2)) (musl's reduction); k = 0 iff w < sqrt(2)
    const SQRT_HALF_BITS: i64 = 0x3fe6_a09e_667f_3bcd;
    let u = (w.to_bits() as i64).wrapping_add(0x3ff0_0000_0000_0000 - SQRT_HALF_BITS);
    let k_bits = (u >> 52).wrapping_sub(0x3ff);
    let m = f64::from_bits(((u & 0x000f_ffff_ffff_ffff) + SQRT_HALF_BITS) as u64);
    // k as f64 without a (non-vectorisable on AVX2) i64 -> f64 conversion
    let k =
        f64::from_bits((ROUND_MAGIC.to_bits() as i64).wrapping_add(k_bits) as u64) - ROUND_MAGIC;
    let k0 = w < std::f64::consts::SQRT_2;
    // k = 0: m = w, and r itself is the exact f = w - 1 of the unrounded w;
    // k >= 1: f = m - 1 is exact, the rounding error c of w enters as + c / w
    let f = if k0 { r } else { m - 1.0 };
    let c = if k0 { 0.0 } else { r - (w - 1.0) };
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    // R(z) = z (Lg1 + Lg2 z + ... + Lg7 z^6), Estrin's scheme
    let z2 = z * z;
    let q03 = fmadd::<FMA>(
        fmadd::<FMA>(LG[3], z, LG[2]),
        z2,
        fmadd::<FMA>(LG[1], z, LG[0]),
    );
    let q46 = fmadd::<FMA>(LG[6], z2, fmadd::<FMA>(LG[5], z, LG[4]));
    let r_poly = fmadd::<FMA>(q46, z2 * z2, q03) * z;
    let ln_w = fmadd::<FMA>(
        k,
        LN2_HI,
        -((hfsq - fmadd::<FMA>(s, hfsq + r_poly, k * LN2_LO)) - f),
    );
    // |c / w| <= 2^-53 and ln w >= 0.34 here: 1/w from the bit trick and one Newton
    // step (0.3 %) is plenty
    let y0 = f64::from_bits(0x7fde_6238_22fc_16e6_u64.wrapping_sub(w.to_bits()));
    let y1 = y0 * fmadd::<FMA>(-w, y0, 2.0);
    fmadd::<FMA>(c, y1, ln_w)
}

/// Adds `v` to `total` as `W` plain lane sums (each over `v.len() / W` terms) folded
/// into the compensated sum. `v.len()` must be a multiple of `W`.
#[inline(always)]
fn lane_sum(v: &[f64]) -> [f64; W] {
    let mut acc = [0.0f64; W];
    for c in v.chunks_exact(W) {
        for l in 0..W {
            acc[l] += c[l];
        }
    }
    acc
}

/// The binary kernel: for each `beta` (already multiplied by `log2(e)`), the
/// compensated sum over `a` of `ln(1 + 2^(-a * beta))` (`a >= 0`).
///
/// Element work is a plain map loop over a block (what LLVM's loop vectoriser handles
/// best), followed by a lane sum of the block.
#[inline(always)]
fn binary_body<const FMA: bool, const NT: usize>(a: &[f64], beta2: [f64; NT]) -> [f64; NT] {
    let mut total = [Sum::new(); NT];
    let mut tmp = [[0.0f64; BLOCK]; NT];
    for block in a.chunks(BLOCK) {
        let m = block.len();
        let mp = m.div_ceil(W) * W;
        for (j, &x) in block.iter().enumerate() {
            // the NT evaluations are independent chains in one iteration
            for t in 0..NT {
                tmp[t][j] = ln1p_nonneg::<FMA>(exp2_nonpos::<FMA>(-x * beta2[t]));
            }
        }
        for t in 0..NT {
            tmp[t][m..mp].fill(0.0);
            for v in lane_sum(&tmp[t][..mp]) {
                total[t].add(v);
            }
        }
    }
    total.map(|s| s.value())
}

/// Per-row data of the multiclass kernel, precomputed once.
pub(crate) struct RowStats<'a> {
    /// Original row index of each calibration row (`None`: rows `0..n`).
    pub rows: Option<&'a [usize]>,
    /// Number of calibration rows.
    pub n: usize,
    /// Row maximum `m_i`.
    pub max: Vec<f64>,
    /// Column of the first maximum.
    pub argmax: Vec<u32>,
}

/// Below this many classes the multiclass kernel works on blocks of rows transposed
/// (lanes across rows); from it on, along each row (lanes across classes).
pub(crate) const TRANSPOSE_BELOW_K: usize = 16;
/// Rows per transposed block (a multiple of `W`).
pub(crate) const TB: usize = 64;

/// Fills the transposed block `tb[j * TB + r] = z_{i0+r, j} - m_{i0+r} - shift(row)`
/// for the `len` rows of a block (`-inf` at the first maximum and in the padding
/// rows `len..TB`); `shift` sees the row's values and its maximum and argmax.
#[inline(always)]
pub(crate) fn transpose_block<T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    i0: usize,
    len: usize,
    tb: &mut [f64],
    mut shift: impl FnMut(usize, &[T], f64, usize) -> f64,
) {
    for r in 0..TB {
        if r < len {
            let i = i0 + r;
            let row = stats.rows.map_or(i, |rows| rows[i]);
            let z = &data[row * k..row * k + k];
            let (m, a) = (stats.max[i], stats.argmax[i] as usize);
            let d2 = shift(i, z, m, a);
            for (j, v) in z.iter().enumerate() {
                tb[j * TB + r] = (v.to_f64() - m) - d2;
            }
            tb[a * TB + r] = f64::NEG_INFINITY;
        } else {
            for j in 0..k {
                tb[j * TB + r] = f64::NEG_INFINITY;
            }
        }
    }
}

/// The multiclass kernel for few classes: blocks of `TB` rows, transposed, so that
/// the lanes run across rows.
#[inline(always)]
fn multiclass_body_t<const FMA: bool, const NT: usize, T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    beta2: [f64; NT],
) -> [f64; NT] {
    let mut tb = vec![0.0f64; k * TB];
    let mut total = [Sum::new(); NT];
    let mut acc = [[0.0f64; TB]; NT];
    let mut i0 = 0;
    while i0 < stats.n {
        let len = TB.min(stats.n - i0);
        transpose_block(data, k, stats, i0, len, &mut tb, |_, _, _, _| 0.0);
        for a in acc.iter_mut() {
            a.fill(0.0);
        }
        for col in tb.chunks_exact(TB) {
            for (r, &d) in col.iter().enumerate() {
                for t in 0..NT {
                    acc[t][r] += exp2_nonpos::<FMA>(d * beta2[t]);
                }
            }
        }
        for t in 0..NT {
            for v in acc[t].iter_mut() {
                *v = ln1p_nonneg::<FMA>(*v);
            }
            for v in lane_sum(&acc[t]) {
                total[t].add(v);
            }
        }
        i0 += len;
    }
    total.map(|s| s.value())
}

/// The multiclass kernel: for each `beta` (times `log2(e)`), the compensated sum over
/// rows of `ln(sum_{j != argmax} 2^((z_ij - m_i) beta) + 1)`.
#[inline(always)]
fn multiclass_body<const FMA: bool, const NT: usize, T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    beta2: [f64; NT],
) -> [f64; NT] {
    if k < TRANSPOSE_BELOW_K {
        return multiclass_body_t::<FMA, NT, T>(data, k, stats, beta2);
    }
    let kp = k.div_ceil(W) * W;
    // the row's deltas; the first maximum and the padding are -inf (exp2 -> 0)
    let mut buf = vec![f64::NEG_INFINITY; kp];
    let mut e = [[0.0f64; PIECE]; NT];
    let mut total = [Sum::new(); NT];
    let mut batch = [[0.0f64; RB]; NT];
    let mut filled = 0;
    for i in 0..stats.n {
        let r = stats.rows.map_or(i, |rows| rows[i]);
        let z = &data[r * k..r * k + k];
        let m = stats.max[i];
        for (d, &v) in buf.iter_mut().zip(z) {
            *d = v.to_f64() - m;
        }
        buf[stats.argmax[i] as usize] = f64::NEG_INFINITY;
        let mut acc = [[0.0f64; W]; NT];
        for piece in buf.chunks(PIECE) {
            let m = piece.len();
            assert!(m <= PIECE);
            for (j, &d) in piece.iter().enumerate() {
                // the NT evaluations are independent chains in one iteration
                for t in 0..NT {
                    e[t][j] = exp2_nonpos::<FMA>(d * beta2[t]);
                }
            }
            for t in 0..NT {
                let s = lane_sum(&e[t][..m]);
                for l in 0..W {
                    acc[t][l] += s[l];
                }
            }
        }
        for t in 0..NT {
            let a = acc[t];
            batch[t][filled] = (a[0] + a[1]) + (a[2] + a[3]);
        }
        filled += 1;
        if filled == RB || i + 1 == stats.n {
            for t in 0..NT {
                for v in batch[t].iter_mut() {
                    *v = ln1p_nonneg::<FMA>(*v);
                }
                for &v in &batch[t][..filled] {
                    total[t].add(v);
                }
            }
            filled = 0;
        }
    }
    total.map(|s| s.value())
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn binary_avx2<const NT: usize>(a: &[f64], beta2: [f64; NT]) -> [f64; NT] {
    binary_body::<true, NT>(a, beta2)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn multiclass_avx2<const NT: usize, T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    beta2: [f64; NT],
) -> [f64; NT] {
    multiclass_body::<true, NT, T>(data, k, stats, beta2)
}

/// True when the FMA variant runs on this machine.
pub fn uses_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `sum_i ln(1 + exp(-a_i / tau))` for each `tau` (given as `beta2 = log2(e) / tau`).
pub(crate) fn binary_sums<const NT: usize>(a: &[f64], beta2: [f64; NT]) -> [f64; NT] {
    #[cfg(target_arch = "x86_64")]
    if uses_fma() {
        // SAFETY: the CPU supports AVX2 and FMA (checked above).
        return unsafe { binary_avx2::<NT>(a, beta2) };
    }
    binary_body::<false, NT>(a, beta2)
}

/// `sum_i ln(sum_{j != argmax} exp((z_ij - m_i) / tau) + 1)` for each `tau`.
pub(crate) fn multiclass_sums<const NT: usize, T: Real>(
    data: &[T],
    k: usize,
    stats: &RowStats<'_>,
    beta2: [f64; NT],
) -> [f64; NT] {
    #[cfg(target_arch = "x86_64")]
    if uses_fma() {
        // SAFETY: the CPU supports AVX2 and FMA (checked above).
        return unsafe { multiclass_avx2::<NT, T>(data, k, stats, beta2) };
    }
    multiclass_body::<false, NT, T>(data, k, stats, beta2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> f64 {
        if a == b {
            return 0.0;
        }
        let ulp = f64::EPSILON * b.abs().max(f64::MIN_POSITIVE);
        (a - b).abs() / ulp
    }

    fn check_exp<const FMA: bool>() {
        let mut worst: f64 = 0.0;
        let mut x = 0.0f64;
        while x > -1100.0 {
            let got = exp2_nonpos::<FMA>(x);
            let want = x.exp2();
            if want >= f64::MIN_POSITIVE {
                worst = worst.max(ulps(got, want));
            } else {
                assert!((got - want).abs() <= 2.0 * 4.9e-324, "{x}: {got} {want}");
            }
            x -= 0.000_731_3;
        }
        eprintln!("exp2 FMA={FMA}: worst {worst} ulps");
        assert!(worst <= 2.0, "exp2 worst {worst} ulps");
        assert_eq!(exp2_nonpos::<FMA>(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp2_nonpos::<FMA>(0.0), 1.0);
    }

    fn check_ln1p<const FMA: bool>() {
        let mut worst: f64 = 0.0;
        let mut r = 1e-300f64;
        while r < 1e6 {
            for x in [r, r * 1.000_000_7, r * 1.3, r * 1.9] {
                let got = ln1p_nonneg::<FMA>(x);
                worst = worst.max(ulps(got, x.ln_1p()));
            }
            r *= 1.01;
        }
        let mut u = 0.0f64;
        while u <= 1.0 {
            worst = worst.max(ulps(ln1p_nonneg::<FMA>(u), u.ln_1p()));
            u += 1.0 / 65_537.0;
        }
        eprintln!("ln1p FMA={FMA}: worst {worst} ulps");
        assert!(worst <= 2.0, "ln1p worst {worst} ulps");
        assert_eq!(ln1p_nonneg::<FMA>(0.0), 0.0);
    }

    #[test]
    fn exp2_accuracy() {
        check_exp::<false>();
        check_exp::<true>();
    }

    #[test]
    fn ln1p_accuracy() {
        check_ln1p::<false>();
        check_ln1p::<true>();
    }
}
