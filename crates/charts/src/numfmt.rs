//! How numbers are written for people, in the page, its charts and the reports: one
//! formatter, so a value reads the same everywhere.
//!
//! - four significant digits below 1,000 (`0.02346`, `12.35`, `0.0001234`), whole
//!   numbers from 1,000 (`1235`), grouped by thin spaces from 10,000 (`123 457`);
//! - no e-notation for magnitudes in `[1e-4, 1e6)`;
//! - below `1e-4` (not zero): `< 1e-4`, or `> -1e-4` for a negative value (the sign is
//!   kept); exact zero is `0`;
//! - from `1e6`: `5.901 million`, `1.2 billion` (4 significant digits), and
//!   e-notation (`1.234e15`) from `1e12`;
//! - undefined (`None`, NaN, ±∞): `undefined`.
//!
//! Units go with [`with_unit`]. The full precision of a value is never lost: the page
//! keeps it in `data-value` and the exports write the raw value.

use std::fmt::Write;

/// The smallest magnitude written with digits; below it a value reads `< 1e-4`.
pub const TINY: f64 = 1e-4;

/// The text of `x` (see the module's rules).
pub fn display(x: Option<f64>) -> String {
    let Some(v) = x.filter(|v| v.is_finite()) else {
        return "undefined".into();
    };
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if a < TINY {
        return if v > 0.0 { "< 1e-4" } else { "> -1e-4" }.into();
    }
    if a >= 1e12 {
        return exponent(v);
    }
    if a >= 1e6 {
        // 4 significant digits of the millions or billions
        let (unit, name) = if a >= 1e9 {
            (1e9, "billion")
        } else {
            (1e6, "million")
        };
        let s = fixed(v / unit);
        // 999.96 million rounds to 1000 million: say 1 billion
        if s.trim_start_matches('-') == "1000" && unit == 1e6 {
            return format!("{}1 billion", if v < 0.0 { "-" } else { "" });
        }
        return format!("{s} {name}");
    }
    let s = fixed(v);
    group(&s)
}

/// The text of `x` followed by its unit (`12.35 %`, `3 points`, `41 ms`); a value
/// already multiplied into the unit (a percentage as `12.3`, not `0.123`).
/// Undefined stays `undefined`, with no unit.
pub fn with_unit(x: Option<f64>, unit: &str) -> String {
    let s = display(x);
    if s == "undefined" {
        s
    } else {
        format!("{s}\u{a0}{unit}")
    }
}

/// A fraction `x` as a percentage: `0.1234` → `12.34 %`.
pub fn percent(x: Option<f64>) -> String {
    with_unit(x.map(|v| v * 100.0), "%")
}

/// `v` (magnitude in `[1e-4, 1e6]`, a little past it after rounding) with four
/// significant digits or as a whole number, trailing zeros removed.
fn fixed(v: f64) -> String {
    let a = v.abs();
    let digits = (3 - a.log10().floor() as i32).clamp(0, 7) as usize;
    let s = format!("{v:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// Whole numbers of five or more digits grouped by thin spaces: `123457` →
/// `123 457`; shorter ones and decimals as they are.
fn group(s: &str) -> String {
    let (sign, digits) = s.strip_prefix('-').map_or(("", s), |d| ("-", d));
    if digits.contains('.') || digits.len() < 5 {
        return s.to_string();
    }
    let mut out = String::from(sign);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push('\u{2009}');
        }
        out.push(ch);
    }
    out
}

/// `1.234e15`: 4 significant digits, trailing zeros removed.
fn exponent(v: f64) -> String {
    let s = format!("{v:.3e}");
    let Some((mant, exp)) = s.split_once('e') else {
        return s;
    };
    let mant = mant.trim_end_matches('0').trim_end_matches('.');
    let mut out = String::new();
    let _ = write!(out, "{mant}e{exp}");
    out
}

/// A count with thin separators (`12 345`).
pub fn count(n: u64) -> String {
    let s = n.to_string();
    if s.len() < 5 {
        return s;
    }
    group(&s)
}

/// The value a displayed text stands for and the half-width of the rounding it shows
/// (`"0.02346"` → `(0.02346, 0.000005)`); `None` for `undefined` and the bounds
/// `< 1e-4`. For tests and readers of the page's text.
pub fn parse_shown(s: &str) -> Option<(f64, f64)> {
    let s = s.replace('\u{2009}', "");
    let (num, scale) = if let Some(n) = s.strip_suffix(" million") {
        (n.to_string(), 1e6)
    } else if let Some(n) = s.strip_suffix(" billion") {
        (n.to_string(), 1e9)
    } else {
        (s, 1.0)
    };
    let value: f64 = num.parse().ok()?;
    let mant = num.split('e').next()?;
    let decimals = mant.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
    let exp: i32 = num.split_once('e').map_or(Ok(0), |(_, e)| e.parse()).ok()?;
    let half = 0.5 * 10f64.powi(exp - decimals) * scale;
    Some((value * scale, half))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples() {
        assert_eq!(display(Some(0.0234567)), "0.02346");
        assert_eq!(display(Some(0.5)), "0.5");
        assert_eq!(display(Some(1.0)), "1");
        assert_eq!(display(Some(12.3456)), "12.35");
        assert_eq!(display(Some(1234.567)), "1235");
        assert_eq!(display(Some(123456.7)), "123\u{2009}457");
        assert_eq!(display(Some(-0.001571)), "-0.001571");
        assert_eq!(display(Some(0.0001)), "0.0001");
        assert_eq!(display(Some(0.00001234)), "< 1e-4");
        assert_eq!(display(Some(-4.987e-18)), "> -1e-4");
        assert_eq!(display(Some(0.0)), "0");
        assert_eq!(display(Some(-0.0)), "0");
        assert_eq!(display(Some(5.901e6)), "5.901 million");
        assert_eq!(display(Some(999_999.9)), "1\u{2009}000\u{2009}000");
        assert_eq!(display(Some(999_400_000.0)), "999.4 million");
        assert_eq!(display(Some(999_999_999.0)), "1 billion");
        assert_eq!(display(Some(2.5e15)), "2.5e15");
        assert_eq!(display(None), "undefined");
        assert_eq!(display(Some(f64::NAN)), "undefined");
        assert_eq!(percent(Some(0.1234)), "12.34\u{a0}%");
        assert_eq!(with_unit(None, "ms"), "undefined");
        assert_eq!(count(1234567), "1\u{2009}234\u{2009}567");
        assert_eq!(count(1234), "1234");
        assert_eq!(count(12), "12");
    }

    #[test]
    fn parse_shown_reads_the_rounding() {
        assert_eq!(parse_shown("0.02346"), Some((0.02346, 0.5e-5)));
        assert_eq!(parse_shown("12\u{2009}345"), Some((12345.0, 0.5)));
        assert_eq!(parse_shown("< 1e-4"), None);
    }
}
