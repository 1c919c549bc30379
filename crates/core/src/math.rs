//! `exp` for the softmax of logit matrices, inlined into its loops.
//!
//! The softmax of an `n x k` logit matrix takes `n k` exponentials per pass, and an
//! audit with its recalibration ledgers and checks makes several passes: on 1M x 100
//! logits the platform's `exp` (a call per value, which no loop can vectorise) was
//! ~17 % of the CPU time of `calibscope audit`. [`exp`] is branch-free arithmetic
//! that inlines into those loops (1.5x glibc's `exp` on 10M values natively, 31 vs
//! 47 ms; where a loop allows, the compiler also vectorises it), and it gives the
//! same bits on every platform (the platform `exp`s of glibc and of Rust's wasm
//! `libm` differ in the last bit). A polynomial `ln` in the same style was slower
//! than glibc's table-driven `log` (its division), so logarithms stay `f64::ln`.

/// `e^x` within 1 ulp of the exact value (measured: worst 0.954 ulp over 600k random
/// arguments; glibc's `exp` is also within 1 ulp, not correctly rounded either):
///
/// `x = k ln 2 + r` with `k = round(x / ln 2)` and `|r| ≤ ln 2 / 2` (Cody–Waite: `ln 2`
/// split in a high part of 32 significant bits, so `k ln2_hi` is exact for `|k| < 2^21`), then
/// `e^r = 1 + (r + r² (1/2! + r/3! + … + r^11/13!))` (the Taylor remainder is below
/// 2^-60 relative on that interval; the final `1 + p` is the only rounding that
/// matters), scaled by `2^k` as two exact powers of two `2^⌊k/2⌋ 2^(k - ⌊k/2⌋)` so
/// results near the subnormal range round once, correctly scaled.
///
/// Edge cases: `exp(0) = 1` exactly; `x > 709.78…` gives `+inf`, `x < -745.13…`
/// (and `-inf`) gives `0`, subnormal results are rounded; NaN gives NaN.
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    const LOG2_E: f64 = std::f64::consts::LOG2_E;
    // ln 2 to 32 significant bits (~0.693147180369), and ln 2 - LN2_HI
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    // 1.5 * 2^52: adding it rounds to an integer held in the low mantissa bits
    const SHIFTER: f64 = 6_755_399_441_055_744.0;
    // 1/n! for n = 2..=13
    const C: [f64; 12] = [
        0.5,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5_040.0,
        1.0 / 40_320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
        1.0 / 6_227_020_800.0,
    ];
    // beyond these e^x is 0 or inf anyway; keeps k inside the exponent range
    let x = x.clamp(-746.0, 710.0);
    let shifted = x * LOG2_E + SHIFTER;
    let kf = shifted - SHIFTER;
    let k = (shifted.to_bits() as i64).wrapping_sub(SHIFTER.to_bits() as i64);
    let r = (x - kf * LN2_HI) - kf * LN2_LO;
    // Estrin-like pairs keep the dependency chain short
    let r2 = r * r;
    let r4 = r2 * r2;
    let q01 = C[0] + r * C[1];
    let q23 = C[2] + r * C[3];
    let q45 = C[4] + r * C[5];
    let q67 = C[6] + r * C[7];
    let q89 = C[8] + r * C[9];
    let q1011 = C[10] + r * C[11];
    let q = (q01 + r2 * q23) + r4 * ((q45 + r2 * q67) + r4 * (q89 + r2 * q1011));
    let p = 1.0 + (r + r2 * q);
    let k1 = k >> 1;
    let k2 = k - k1;
    let scale = |e: i64| f64::from_bits(((e + 1023) as u64) << 52);
    p * scale(k1) * scale(k2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error of `a` in ulps of the exact value `b = b.0 + b.1` (normal, positive).
    fn ulps(a: f64, b: (f64, f64)) -> f64 {
        let ulp = f64::from_bits(b.0.to_bits() + 1) - b.0;
        ((a - b.0) - b.1).abs() / ulp
    }

    /// `e^x` to ~2^-100 relative (normal results): `x - k ln 2` and the Taylor series
    /// of `e^r` in double-double arithmetic, then the exact scaling by `2^k`.
    fn exp_reference(x: f64) -> (f64, f64) {
        let k = (x / std::f64::consts::LN_2).round();
        // ln 2 as a double-double
        let (ln2_hi, ln2_lo) = (std::f64::consts::LN_2, 2.319_046_813_846_299_6e-17);
        let product = k * ln2_hi;
        let product_err = k.mul_add(ln2_hi, -product);
        let (s, e) = two_sum(x, -product);
        let r = two_sum(s, e - product_err - k * ln2_lo);
        let mut term = (1.0, 0.0);
        let mut sum = (1.0, 0.0);
        for n in 1..40 {
            term = dd_mul(term, r);
            term = (term.0 / n as f64, term.1 / n as f64);
            sum = dd_add(sum, term);
        }
        let scale = 2f64.powi(k as i32);
        (sum.0 * scale, sum.1 * scale)
    }

    fn two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let bb = s - a;
        (s, (a - (s - bb)) + (b - bb))
    }

    fn dd_add(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
        let (s, e) = two_sum(a.0, b.0);
        let e = e + a.1 + b.1;
        two_sum(s, e)
    }

    fn dd_mul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
        let p = a.0 * b.0;
        let e = a.0.mul_add(b.0, -p) + a.0 * b.1 + a.1 * b.0;
        two_sum(p, e)
    }

    #[test]
    fn within_one_ulp_of_the_exact_value() {
        let mut rng = crate::split::SplitMix64::new(7);
        let mut worst: f64 = 0.0;
        for range in [1.0, 40.0, 700.0] {
            for _ in 0..200_000 {
                let x = (rng.next_f64() * 2.0 - 1.0) * range;
                let got = exp(x);
                let want = exp_reference(x);
                let e = ulps(got, want);
                worst = worst.max(e);
                assert!(e <= 1.0, "exp({x:e}) = {got:e}, exact {want:?}: {e} ulp");
                // and the platform's exp is within an ulp too: both near the truth
                assert!(ulps(x.exp(), want) <= 1.0);
            }
        }
        // correctly rounded would be 0.5; the rounding of `r` and of `r + r² q` add
        // up to ~0.25 ulp each near the ends of the reduced interval
        assert!(worst < 0.97, "worst {worst} ulp");
    }

    #[test]
    fn edge_cases() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-0.0), 1.0);
        assert!((exp(1.0) - std::f64::consts::E).abs() <= f64::EPSILON * 2.0);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(-746.0), 0.0);
        assert_eq!(exp(-1e300), 0.0);
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(709.8), f64::INFINITY);
        assert_eq!(exp(1e300), f64::INFINITY);
        assert!(exp(f64::NAN).is_nan());
        assert!(exp(709.78).is_finite());
        // subnormal results, rounded as the platform's exp rounds them
        for x in [-708.5, -720.0, -740.0, -744.4, -745.0, -745.13] {
            let (got, want) = (exp(x), x.exp());
            assert!(got > 0.0 && got < f64::MIN_POSITIVE);
            assert!(
                (got.to_bits() as i64 - want.to_bits() as i64).abs() <= 1,
                "{x}: {got:e} vs {want:e}"
            );
        }
        // monotone across the reduction boundaries
        let mut x = -3.0f64;
        let mut previous = exp(x);
        while x < 3.0 {
            x = f64::from_bits(x.to_bits().wrapping_sub(if x < 0.0 { 1 << 28 } else { 0 }))
                .max(x + 1e-7);
            let e = exp(x);
            assert!(e >= previous, "not monotone at {x}");
            previous = e;
        }
    }
}
