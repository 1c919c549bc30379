//! Decimal text to `f64`, fast for the forms numeric exports write.
//!
//! `pandas.to_csv`, `numpy.savetxt` (`%.18e`), `printf("%.17g")` and Python's `repr`
//! write scores as `[-]digits[.digits][e±dd]` with at most 19 significant digits.
//! [`parse_prefix_with`] reads such a number sixteen bytes at a time (SSSE3, x86-64) or
//! eight (other native targets; not in wasm, where fast-float2 alone measured faster)
//! and converts it exactly; anything else
//! (digits beyond 2^64, more than 27 after the point, exponents beyond ±27 after the
//! point is moved or of more than 3 digits, `inf`, `nan`, text within 8–16 bytes of
//! the end of the buffer) goes to fast-float2, so the result is always the correctly
//! rounded `f64` (round half to even), the same bits `str::parse::<f64>` gives.
//! Against fast-float2 alone: 19.5 → 12.5 ns a number on the 17-digit scores of
//! `bench/out/multi_1e2mb.csv` (BENCHMARKS.md).
//!
//! The conversion of `w × 10^q` (`w` < 2^64, |q| ≤ 27):
//! - `q ≥ 0`: `w × 5^q` is an exact `u128`; its cast to `f64` rounds once, and the
//!   factor `2^q` is exact.
//! - `q < 0`: `w / 10^k` (k = −q) is `w / 5^k × 2^−k`. With `W = w × 2^lz` normalised
//!   to 64 bits and `R = ⌊2^(127+L) / 5^k⌋` (L the bit length of `5^k`, so R has 128
//!   bits), the 192-bit product `W × R` falls short of the exact `W × 2^(127+L) / 5^k`
//!   by less than 2^64. Its top 54 bits give the mantissa and the rounding bit; the
//!   bits between 2^64 and the rounding bit say whether that shortfall could matter
//!   (all ones: a carry could reach the rounding bit; all zeros with the rounding bit
//!   set: it could be an exact tie). Only then — about never, except for exact
//!   ties — [`settle`] decides by exact integer comparisons with the midpoints
//!   `(2M ± 1) × 2^(E−1) × 10^k`.

// the wasm worker uses fast-float2 alone (see `parse_prefix_with`)
#![cfg_attr(target_arch = "wasm32", allow(dead_code))]

/// `10^i` as exact `f64`s (exact up to 10^22).
const POW10_F64: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The largest `|q|` converted here: `5^27` < 2^63, so `(2M + 1) × 5^27` < 2^118.
const MAX_EXP10: i32 = 27;

/// `5^i` for `i ≤ 27`.
const POW5: [u64; 28] = {
    let mut t = [1u64; 28];
    let mut i = 1;
    while i < 28 {
        t[i] = t[i - 1] * 5;
        i += 1;
    }
    t
};

/// `⌊2^(127 + L) / 5^k⌋` for `k ≤ 27`, `L` the bit length of `5^k`: the reciprocal of
/// `5^k` with 128 significant bits (the top bit set), by long division.
const RECIP5: [u128; 28] = {
    let mut t = [0u128; 28];
    let mut k = 1;
    while k < 28 {
        let d = POW5[k] as u128;
        let bits = 127 + (128 - d.leading_zeros());
        let mut rem = 1u128;
        let mut quotient = 0u128;
        let mut i = 0;
        while i < bits {
            rem <<= 1;
            quotient <<= 1;
            if rem >= d {
                rem -= d;
                quotient |= 1;
            }
            i += 1;
        }
        t[k] = quotient;
        k += 1;
    }
    t
};

/// `10^i` for `i ≤ 8` (the digits of one word).
const POW10_U64: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// Reads a number at the start of `s` and returns it with the number of bytes it
/// used, like `fast_float2::parse_partial` (which it falls back to); `None`: `s`
/// does not start with a number. `VECTOR`: sixteen bytes at a time, which only a
/// function compiled for SSSE3 (x86-64), after checking for it, may ask for.
#[inline(always)]
pub(crate) fn parse_prefix_with<const VECTOR: bool>(s: &[u8]) -> Option<(f64, usize)> {
    // in wasm the eight-byte reader was slower than fast-float2 alone (the parse of
    // the 127 MB + 22 MB CSVs: 210–218 against 185–189 ms, `bench/wasm_core.mjs
    // --parse`, alternated), so the worker keeps fast-float2
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(r) = parse_plain_with::<VECTOR>(s) {
        return Some(r);
    }
    fast_float2::parse_partial::<f64, _>(s).ok()
}

/// Eight bytes of `s` from `at`, the first in the lowest byte.
#[inline(always)]
fn word(s: &[u8], at: usize) -> Option<u64> {
    let b = s.get(at..at + 8)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

/// How many of the word's bytes, from the first, are ASCII digits (0–8).
///
/// A byte `b` is a digit when neither `b + 0x46` nor `b − 0x30` has its top bit set;
/// carries and borrows only leave non-digit bytes, so they can only disturb the
/// bytes after the first non-digit.
#[inline(always)]
fn digit_run(v: u64) -> usize {
    let non_digit = (v.wrapping_add(0x4646_4646_4646_4646) | v.wrapping_sub(0x3030_3030_3030_3030))
        & 0x8080_8080_8080_8080;
    (non_digit.trailing_zeros() / 8) as usize
}

/// The value of the first `n` (0–8) digit bytes of `v`.
#[inline(always)]
fn word_value(v: u64, n: usize) -> u64 {
    // move the n digits to the top bytes and fill the bytes below them with '0'
    let shift = 8 * (8 - n as u32);
    let v = v.checked_shl(shift).unwrap_or(0)
        | 0x3030_3030_3030_3030u64
            .checked_shr(64 - shift)
            .unwrap_or(0);
    let v = v - 0x3030_3030_3030_3030;
    // pairs of digits in bytes 0, 2, 4, 6 (the first digit is the lowest byte)
    let v = (v * 10 + (v >> 8)) & 0x00ff_00ff_00ff_00ff;
    // four digits in each 32-bit half
    let v = (v * 100 + (v >> 16)) & 0x0000_ffff_0000_ffff;
    (v * 10_000 + (v >> 32)) & 0xffff_ffff
}

/// The run of ASCII digits at `s[pos..]`, appended to `w`: `(w × 10^n + run, n)`.
/// `None` when the run does not end at least 8 bytes before the end of `s` (so the
/// byte after it exists) or `w` would overflow. Eight bytes a step.
#[inline(always)]
fn digits_by_word(s: &[u8], mut pos: usize, mut w: u64) -> Option<(u64, usize)> {
    let start = pos;
    loop {
        let v = word(s, pos)?;
        let n = digit_run(v);
        w = w.checked_mul(POW10_U64[n])?.checked_add(word_value(v, n))?;
        pos += n;
        if n < 8 {
            return Some((w, pos - start));
        }
    }
}

/// A mantissa `digits[.digits]` at `s[pos..]`: `(w, integer digits, fraction
/// digits, the position after it)`, eight bytes a step.
#[inline(always)]
fn mantissa_by_word(s: &[u8], mut pos: usize) -> Option<(u64, usize, usize, usize)> {
    let (mut w, int_digits) = digits_by_word(s, pos, 0)?;
    pos += int_digits;
    let mut frac_digits = 0;
    if s[pos] == b'.' {
        (w, frac_digits) = digits_by_word(s, pos + 1, w)?;
        pos += 1 + frac_digits;
    }
    Some((w, int_digits, frac_digits, pos))
}

/// [`mantissa_by_word`] reading the first sixteen bytes with SSSE3: the digits and
/// the point are found by comparisons, the integer digits are moved one byte up
/// over the point, the digits are right-aligned by one shuffle and summed in pairs,
/// fours and eights by multiply-adds. `None` when the integer part fills the
/// sixteen bytes (or fewer remain): [`mantissa_by_word`] then reads it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
#[inline]
fn mantissa_by_vector(s: &[u8], pos: usize) -> Option<(u64, usize, usize, usize)> {
    use std::arch::x86_64::*;
    let bytes: &[u8; 16] = s.get(pos..pos + 16)?.try_into().ok()?;
    // SAFETY: `bytes` is 16 readable bytes; the load has no alignment requirement.
    let chunk = unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) };
    let d = _mm_sub_epi8(chunk, _mm_set1_epi8(b'0' as i8));
    let is_digit = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
    let digit_bits = _mm_movemask_epi8(is_digit) as u32;
    let int_digits = (!digit_bits).trailing_zeros() as usize; // 0–16
    if int_digits == 16 {
        return None;
    }
    if bytes[int_digits] != b'.' {
        let w = sum_digits(_mm_shuffle_epi8(d, RIGHT_ALIGN[int_digits]));
        return Some((w, int_digits, 0, pos + int_digits));
    }
    // digits after the point, within the sixteen bytes
    let frac_in = (!(digit_bits >> (int_digits + 1))).trailing_zeros() as usize;
    let len = int_digits + 1 + frac_in; // ≤ 16
                                        // bytes 0..=int_digits take their left neighbour (byte 0 a zero): the point is gone
    let index = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let before_point = _mm_cmpgt_epi8(_mm_set1_epi8(int_digits as i8 + 1), index);
    let closed = _mm_or_si128(
        _mm_and_si128(before_point, _mm_slli_si128::<1>(d)),
        _mm_andnot_si128(before_point, d),
    );
    let w = sum_digits(_mm_shuffle_epi8(closed, RIGHT_ALIGN[len]));
    if len < 16 {
        return Some((w, int_digits, frac_in, pos + len));
    }
    let (w, more) = digits_by_word(s, pos + 16, w)?;
    Some((w, int_digits, frac_in + more, pos + 16 + more))
}

/// The value of sixteen digit bytes (0–9 each, the most significant first).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
#[inline]
fn sum_digits(v: std::arch::x86_64::__m128i) -> u64 {
    use std::arch::x86_64::*;
    let pairs = _mm_maddubs_epi16(
        v,
        _mm_setr_epi8(10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1),
    );
    let fours = _mm_madd_epi16(pairs, _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1));
    let fours = _mm_packs_epi32(fours, fours); // ≤ 9999: fits i16
    let eights = _mm_madd_epi16(
        fours,
        _mm_setr_epi16(10_000, 1, 10_000, 1, 10_000, 1, 10_000, 1),
    );
    let high = _mm_cvtsi128_si32(eights) as u32 as u64;
    let low = _mm_cvtsi128_si32(_mm_srli_si128::<4>(eights)) as u32 as u64;
    high * 100_000_000 + low
}

/// Shuffles that move the first `n` bytes to the end of a vector, zeros before.
#[cfg(target_arch = "x86_64")]
static RIGHT_ALIGN: [std::arch::x86_64::__m128i; 17] = {
    let mut t = [[0u8; 16]; 17];
    let mut n = 0;
    while n < 17 {
        let mut j = 0;
        while j < 16 {
            // output byte j takes input byte j − (16 − n), or zero (top bit set)
            t[n][j] = if j + n >= 16 {
                (j + n - 16) as u8
            } else {
                0x80
            };
            j += 1;
        }
        n += 1;
    }
    // SAFETY: [u8; 16] and __m128i have the same size, and every bit pattern is valid.
    unsafe { std::mem::transmute::<[[u8; 16]; 17], [std::arch::x86_64::__m128i; 17]>(t) }
};

/// The plain forms, converted exactly; `None` for anything else. `VECTOR`: read
/// the mantissa with [`mantissa_by_vector`] (the caller checked for SSSE3).
#[inline(always)]
fn parse_plain_with<const VECTOR: bool>(s: &[u8]) -> Option<(f64, usize)> {
    let (negative, pos) = match *s.first()? {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    #[cfg(target_arch = "x86_64")]
    let read = if VECTOR {
        // SAFETY: VECTOR is only set when SSSE3 was detected.
        unsafe { mantissa_by_vector(s, pos) }
    } else {
        None
    };
    #[cfg(not(target_arch = "x86_64"))]
    let read = None;
    let (w, int_digits, frac_digits, mut pos) = match read {
        Some(m) => m,
        None => mantissa_by_word(s, pos)?,
    };
    if int_digits + frac_digits == 0 || frac_digits > MAX_EXP10 as usize {
        return None;
    }
    let mut q = -(frac_digits as i32);
    if let b'e' | b'E' = s[pos] {
        let (e, used) = exponent(s, pos + 1)?;
        q += e;
        pos += 1 + used;
    }
    let magnitude = to_f64(w, q)?;
    Some((if negative { -magnitude } else { magnitude }, pos))
}

/// The exponent after an `e` at `pos`: `[+-]?d{1,3}`, and its length. `None` for
/// anything else (fast-float2 then decides, e.g. that `1e` is the number 1).
#[inline]
fn exponent(s: &[u8], pos: usize) -> Option<(i32, usize)> {
    let (negative, sign) = match *s.get(pos)? {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    let digits = pos + sign;
    let mut at = digits;
    let mut e = 0i32;
    while let Some(&b) = s.get(at) {
        if !b.is_ascii_digit() {
            break;
        }
        if at - digits == 3 {
            return None;
        }
        e = e * 10 + (b - b'0') as i32;
        at += 1;
    }
    if at == digits {
        return None;
    }
    Some((if negative { -e } else { e }, at - pos))
}

/// `w × 10^q` correctly rounded; `None` when `|q|` > 27 (the caller falls back).
#[inline(always)]
fn to_f64(w: u64, q: i32) -> Option<f64> {
    if w == 0 {
        return Some(0.0);
    }
    if !(-MAX_EXP10..=MAX_EXP10).contains(&q) {
        return None;
    }
    if q >= 0 {
        let exact = w as u128 * POW5[q as usize] as u128;
        return Some(exact as f64 * (1u64 << q) as f64);
    }
    let k = (-q) as usize;
    if let Some(v) = reciprocal_product(w, k) {
        return Some(v);
    }
    let guess = if k <= 22 {
        w as f64 / POW10_F64[k]
    } else {
        w as f64 / POW10_F64[22] / POW10_F64[k - 22]
    };
    settle(w, k, guess)
}

/// `w / 10^k` (1 ≤ k ≤ 27, w ≥ 1) from the top bits of `W × RECIP5[k]`, or `None`
/// when those bits cannot decide the rounding (see the module's documentation).
#[inline(always)]
fn reciprocal_product(w: u64, k: usize) -> Option<f64> {
    let lz = w.leading_zeros();
    let big = (w << lz) as u128;
    let r = RECIP5[k];
    let high = big * (r >> 64);
    let low = big * (r as u64 as u128);
    // the product's top 128 bits: high + the carry of low's top half
    let top = high + (low >> 64);
    let (top_hi, top_lo) = ((top >> 64) as u64, top as u64);
    let upper = (top_hi >> 63) as u32; // 1: the product has 192 bits, 0: 191
                                       // 54 bits: the mantissa and the rounding bit; below them (down to bit 64 of the
                                       // product) the bits that decide whether the shortfall matters
    let shift = 9 + upper;
    let m54 = top_hi >> shift;
    let mask = (1u64 << shift) - 1;
    let (below_hi, below_lo) = (top_hi & mask, top_lo);
    if (below_hi == mask && below_lo == u64::MAX) || (below_hi | below_lo == 0 && m54 & 1 == 1) {
        return None;
    }
    let mantissa = (m54 + 1) >> 1; // 2^52 ..= 2^53
                                   // top ≈ W × 2^(63 + L) / 5^k = x × 2^(lz + k + 63 + L), and x ≈ mantissa × 2^exp2
    let exp2 = shift as i32 + 65 - lz as i32 - RECIP5_SHIFT[k];
    // a mantissa of 2^53 carries into the exponent field, as it should
    let biased = (exp2 + 52 + 1023) as u64;
    Some(f64::from_bits((biased << 52) + (mantissa - (1 << 52))))
}

/// `k + 63 + L` for [`RECIP5`]`[k]` (`L` the bit length of `5^k`).
const RECIP5_SHIFT: [i32; 28] = {
    let mut t = [0i32; 28];
    let mut k = 0;
    while k < 28 {
        t[k] = k as i32 + 63 + (64 - POW5[k].leading_zeros()) as i32;
        k += 1;
    }
    t
};

/// Steps from `guess` (a positive normal `f64` within a few ulps of `w / 10^k`) to
/// the correctly rounded value.
#[cold]
fn settle(w: u64, k: usize, mut guess: f64) -> Option<f64> {
    for _ in 0..8 {
        let bits = guess.to_bits();
        let m = (bits & ((1 << 52) - 1)) | (1 << 52);
        let e = ((bits >> 52) & 0x7ff) as i32 - 1075;
        // midpoint with the next float up: (2m + 1) × 2^(e-1)
        let up = compare(w, k, 2 * m + 1, e - 1);
        if up == std::cmp::Ordering::Greater || (up.is_eq() && m & 1 == 1) {
            guess = f64::from_bits(bits + 1);
            continue;
        }
        // midpoint with the next float down (a quarter ulp below a power of two)
        let down = if m == 1 << 52 {
            compare(w, k, 4 * m - 1, e - 2)
        } else {
            compare(w, k, 2 * m - 1, e - 1)
        };
        if down == std::cmp::Ordering::Less || (down.is_eq() && m & 1 == 1) {
            guess = f64::from_bits(bits - 1);
            continue;
        }
        return Some(guess);
    }
    None
}

/// `w / 10^k` against `a × 2^b`, exactly: `w` against `a × 5^k × 2^(b + k)`.
#[inline]
fn compare(w: u64, k: usize, a: u64, b: i32) -> std::cmp::Ordering {
    let rhs = a as u128 * POW5[k] as u128;
    let shift = b + k as i32;
    let lhs = w as u128;
    if shift >= 0 {
        if rhs.leading_zeros() <= shift as u32 {
            return std::cmp::Ordering::Less; // rhs × 2^shift ≥ 2^128 > w
        }
        lhs.cmp(&(rhs << shift))
    } else {
        let left = (-shift) as u32;
        if lhs.leading_zeros() <= left {
            return std::cmp::Ordering::Greater; // w × 2^left ≥ 2^128 > rhs
        }
        (lhs << left).cmp(&rhs)
    }
}

#[cfg(test)]
mod tests;
