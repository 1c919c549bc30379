//! `decimal::parse_prefix_with` against the standard library's parser, with each
//! reader this machine has (eight bytes a step; sixteen with SSSE3).

use super::*;

type Reader = fn(&[u8]) -> Option<(f64, usize)>;

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
fn by_vector(s: &[u8]) -> Option<(f64, usize)> {
    parse_prefix_with::<true>(s)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
fn plain_by_vector(s: &[u8]) -> Option<(f64, usize)> {
    parse_plain_with::<true>(s)
}

/// (name, the reader, its exact part without the fast-float2 fallback).
fn readers() -> Vec<(&'static str, Reader, Reader)> {
    let mut all: Vec<(&'static str, Reader, Reader)> = vec![(
        "by word",
        parse_prefix_with::<false>,
        parse_plain_with::<false>,
    )];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY (both): SSSE3 is present.
        all.push((
            "by vector",
            |s| unsafe { by_vector(s) },
            |s| unsafe { plain_by_vector(s) },
        ));
    }
    all
}

#[test]
#[cfg(target_arch = "x86_64")]
fn both_readers_are_tested_here() {
    assert_eq!(
        readers().len(),
        2,
        "no SSSE3: the vector reader is not tested"
    );
}

/// The reference: the standard library's correctly rounded parser, on the
/// number's text (`s` up to the first byte that is not part of it).
fn check(s: &str) {
    let padded = format!("{s},0,0,0,0,0,0,0,0");
    let want: f64 = s.parse().unwrap();
    for (name, read, plain) in readers() {
        let (v, n) = read(padded.as_bytes()).unwrap_or_else(|| panic!("{s}: no number ({name})"));
        assert_eq!(n, s.len(), "{s}: length ({name})");
        assert_eq!(
            v.to_bits(),
            want.to_bits(),
            "{s}: {v:e} != {want:e} ({name})"
        );
        if let Some((v, n)) = plain(padded.as_bytes()) {
            assert_eq!(
                (v.to_bits(), n),
                (want.to_bits(), s.len()),
                "{s}: exact part ({name})"
            );
        }
    }
}

#[test]
fn plain_forms() {
    for s in [
        "0",
        "-0",
        "+0",
        "1",
        "0.5",
        ".5",
        "-.5",
        "5.",
        "1e-3",
        "1E3",
        "1e+3",
        "-1.5e-07",
        "0.048927459888700044",
        "0.0067166221645533208",
        "0.71216453641116695",
        "1",
        "0.99999999999999999999",
        "9007199254740993",
        "9007199254740993.0",
        "18446744073709551615",
        "18446744073709551616",
        "1.234567890123456789e-01",
        "4.940656458412465e-324",
        "1.7976931348623157e308",
        "2.2250738585072014e-308",
        "123456789012345678901234567890",
        "0.000000000000000000000000001",
        "0.0000000000000000000000000001",
        "1e27",
        "1e28",
        "7e-27",
        "7e-28",
        "0.30000000000000004",
        "0.1",
        "0.2",
        "12345678.12345678",
        "00000000000.5",
    ] {
        check(s);
    }
}

#[test]
fn the_common_forms_take_the_fast_path() {
    for s in [
        "0.048927459888700044",
        "0.0067166221645533208",
        "0.4565744285212352",
        "1",
        "-3.25",
        "1.234567890123456789e-01",
        "7e-27",
        "0.5e+12",
        "1234567",
        "12345678",
        "123456789.5",
        "0.12345678901234567",
        "-1234567890123456.25",
    ] {
        let padded = format!("{s},0,0,0,0,0,0,0,0");
        for (name, _, plain) in readers() {
            assert!(plain(padded.as_bytes()).is_some(), "{s} ({name})");
        }
    }
    for s in [
        "0.12345678901234567890123",
        "123456789012345678901",
        "1e1000",
        "inf",
        "1e-28",
    ] {
        let padded = format!("{s},0,0,0,0,0,0,0,0");
        for (name, _, plain) in readers() {
            assert!(plain(padded.as_bytes()).is_none(), "{s} ({name})");
        }
    }
}

#[test]
fn stops_where_the_number_stops() {
    for (name, read, _) in readers() {
        assert_eq!(read(b"0.25\n1,0.5,0,0,0"), Some((0.25, 4)), "{name}");
        assert_eq!(read(b"1e,xxxxxxxxx"), Some((1.0, 1)), "{name}");
        assert_eq!(read(b"1e+,xxxxxxxx"), Some((1.0, 1)), "{name}");
        assert_eq!(read(b"2e1234,xxxxxxxx"), Some((f64::INFINITY, 6)), "{name}");
        assert_eq!(read(b".,xxxxxxxxxx"), None, "{name}");
        assert_eq!(read(b"-,xxxxxxxxxx"), None, "{name}");
        assert_eq!(read(b"abc,xxxxxxxxx"), None, "{name}");
        assert!(read(b"nan,xxxxxxxx").unwrap().0.is_nan(), "{name}");
        assert_eq!(
            read(b"0.5"),
            Some((0.5, 3)),
            "short input: fast-float2 ({name})"
        );
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `w` written with `k` digits after the point (and `pad` leading zeros).
fn decimal(w: u64, k: usize, pad: usize) -> String {
    let digits = format!("{}{w:0>width$}", "0".repeat(pad), width = k + 1);
    let (int, frac) = digits.split_at(digits.len() - k);
    if k == 0 {
        int.to_string()
    } else {
        format!("{int}.{frac}")
    }
}

#[test]
fn random_decimals_match_std() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..400_000 {
        let digits = 1 + rng.below(20) as u32;
        let w = rng.next() % 10u64.saturating_pow(digits).max(1);
        let k = rng.below(30) as usize;
        let s = decimal(w, k, rng.below(3) as usize);
        check(&s);
        let e = rng.below(61) as i32 - 30;
        check(&format!("{s}e{e}"));
    }
}

#[test]
fn printed_floats_match_std() {
    let mut rng = Rng(7);
    for _ in 0..200_000 {
        // uniform in [0, 1), like scores, and random magnitudes
        let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        let x = f64::from_bits(rng.next() >> 2);
        for v in [u, x, u * 1e-6] {
            if !v.is_finite() {
                continue;
            }
            check(&format!("{v}"));
            check(&format!("{v:.17}"));
            check(&format!("{v:.16e}"));
            check(&format!("{v:.18e}"));
            check(&format!("{:.17}", -v));
        }
    }
}

/// Decimals next to the midpoint between two floats, and the exact midpoints
/// that fit 19 digits: where a wrong rounding would show. Powers of two are
/// probed from both sides (the float below one is half an ulp closer).
#[test]
fn near_midpoints_match_std() {
    let mut rng = Rng(11);
    let mut exact_ties = 0;
    for i in 0..300_000 {
        let k = 1 + rng.below(27) as usize;
        // a float below 10^(19-k), so that its midpoints × 10^k have ≤ 19 digits
        let scale = 10f64.powi(19 - k as i32);
        let x = if i % 4 == 0 {
            // a power of two
            let top = scale.log2().floor() as i32;
            2f64.powi(top - rng.below(40) as i32)
        } else {
            (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * scale
        };
        if x == 0.0 {
            continue;
        }
        // the midpoints above x and above the float below x
        for below in [x, f64::from_bits(x.to_bits() - 1)] {
            let bits = below.to_bits();
            let m = (bits & ((1 << 52) - 1)) | (1 << 52);
            let e = ((bits >> 52) & 0x7ff) as i32 - 1075;
            // the midpoint × 10^k: (2m + 1) × 5^k × 2^(e - 1 + k)
            let r = (2 * m + 1) as u128 * POW5[k] as u128;
            let shift = e - 1 + k as i32;
            let (floor, exact) = if shift >= 0 {
                (r << shift, true)
            } else {
                let s = (-shift) as u32;
                (r >> s, r & ((1 << s) - 1) == 0)
            };
            if exact {
                exact_ties += 1;
            }
            for w in [floor.saturating_sub(1), floor, floor + 1] {
                if let Ok(w) = u64::try_from(w) {
                    check(&decimal(w, k, 0));
                }
            }
        }
    }
    assert!(exact_ties > 0, "no exact tie was tried");
}

/// Any text, well formed or not: the same answer as fast-float2's `parse_partial`
/// (the reader it replaces in the row reader), value bits and length.
#[test]
fn any_text_reads_as_fast_float2_reads_it() {
    let mut rng = Rng(23);
    let alphabet = b"0123456789012345678901234567890123456789..eE+-,\n x";
    for _ in 0..300_000 {
        let len = rng.below(34) as usize;
        let mut text: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
            .collect();
        // sometimes nothing after it, sometimes a row's worth
        if rng.below(2) == 0 {
            text.extend_from_slice(b",0.5,0.25,0.125\n");
        }
        let want = fast_float2::parse_partial::<f64, _>(&text)
            .ok()
            .map(|(v, n)| (v.to_bits(), n));
        for (name, read, _) in readers() {
            let got = read(&text).map(|(v, n)| (v.to_bits(), n));
            assert_eq!(got, want, "{:?} ({name})", String::from_utf8_lossy(&text));
        }
    }
}
