//! The number formatter's properties: never e-notation for magnitudes in
//! `[1e-4, 1e6)`, the digits shown read back to the value within their rounding, the
//! sign is kept, and below `1e-4` a bound is shown.

use calibscope_charts::numfmt::{display, parse_shown, TINY};
use proptest::prelude::*;

/// True when `s` contains e-notation (a digit, `e`, an optional sign, a digit).
fn has_exponent(s: &str) -> bool {
    let b = s.as_bytes();
    (1..b.len()).any(|i| {
        b[i] == b'e' && b[i - 1].is_ascii_digit() && {
            let j = if matches!(b.get(i + 1), Some(b'-' | b'+')) {
                i + 2
            } else {
                i + 1
            };
            b.get(j).is_some_and(u8::is_ascii_digit)
        }
    })
}

/// A magnitude spread evenly in log scale over `[10^lo, 10^hi)`, with a sign.
fn magnitude(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo..hi, any::<bool>()).prop_map(|(e, neg)| {
        let v = 10f64.powf(e);
        if neg {
            -v
        } else {
            v
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn no_exponent_in_range_and_the_digits_read_back(v in magnitude(-4.0, 6.0)) {
        prop_assume!(v.abs() >= TINY);
        let s = display(Some(v));
        prop_assert!(!has_exponent(&s), "{v} shown as {s}");
        let (shown, half) = parse_shown(&s).expect("a number");
        prop_assert!((shown - v).abs() <= half * (1.0 + 1e-9), "{v} shown as {s}");
        // four significant digits: the rounding is at most 5e-4 of the value
        prop_assert!(half <= 5e-4 * v.abs() * (1.0 + 1e-9) || half <= 0.5, "{v} shown as {s}");
        prop_assert_eq!(s.starts_with('-'), v < 0.0, "{} shown as {}", v, s);
    }

    #[test]
    fn large_values_read_back(v in magnitude(6.0, 300.0)) {
        let s = display(Some(v));
        let (shown, half) = parse_shown(&s).expect("a number");
        prop_assert!((shown - v).abs() <= half * (1.0 + 1e-9), "{v} shown as {s}");
        prop_assert_eq!(s.starts_with('-'), v < 0.0, "{} shown as {}", v, s);
    }

    #[test]
    fn below_the_floor_a_bound_with_its_sign(v in magnitude(-320.0, -4.0)) {
        prop_assume!(v.abs() < TINY && v != 0.0);
        let s = display(Some(v));
        prop_assert_eq!(s, if v > 0.0 { "< 1e-4" } else { "> -1e-4" });
    }

    #[test]
    fn any_finite_value_is_shown(v in any::<f64>()) {
        let s = display(Some(v));
        if v.is_finite() {
            prop_assert_ne!(s.as_str(), "undefined");
            if v.abs() >= TINY {
                let (shown, half) = parse_shown(&s).expect("a number");
                prop_assert!((shown - v).abs() <= half * (1.0 + 1e-9), "{v} shown as {s}");
            }
        } else {
            prop_assert_eq!(s.as_str(), "undefined");
        }
    }
}

#[test]
fn zero_is_zero_and_undefined_is_undefined() {
    assert_eq!(display(Some(0.0)), "0");
    assert_eq!(display(Some(-0.0)), "0");
    assert_eq!(display(None), "undefined");
    assert_eq!(display(Some(f64::INFINITY)), "undefined");
    assert!(
        has_exponent("1.2e-5")
            && has_exponent("3e7")
            && !has_exponent("< e")
            && !has_exponent("12.5")
    );
}
