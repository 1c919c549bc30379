//! How numbers are written in the page: `data-value` carries the shortest string
//! that reads back to the same `f64` (or `null`); the visible text is rounded.

/// The `data-value` of a number: the shortest round-trip decimal (JSON's form), or
/// `null` when undefined or not finite.
pub fn data_value(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => serde_json::Number::from_f64(v)
            .map(|n| n.to_string())
            .unwrap_or_else(|| "null".into()),
        _ => "null".into(),
    }
}

/// The visible text of a number: 4 significant digits, exponent form below 1e-3 or
/// from 1e6, `undefined` when undefined.
pub fn display(x: Option<f64>) -> String {
    let Some(v) = x.filter(|v| v.is_finite()) else {
        return "undefined".into();
    };
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        let s = format!("{v:.3e}");
        // 1.230e-5 -> 1.23e-5
        if let Some((mant, exp)) = s.split_once('e') {
            let mant = if mant.contains('.') {
                mant.trim_end_matches('0').trim_end_matches('.')
            } else {
                mant
            };
            return format!("{mant}e{exp}");
        }
        return s;
    }
    let digits = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A count with thin separators (`12 345`).
pub fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push('\u{2009}');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_values_round_trip() {
        for v in [0.1, 1.0 / 3.0, 1e-300, 0.0, -2.5e-17, 123456789.123, 1.0] {
            let s = data_value(Some(v));
            assert_eq!(s.parse::<f64>().unwrap(), v, "{s}");
        }
        assert_eq!(data_value(None), "null");
        assert_eq!(data_value(Some(f64::NAN)), "null");
        assert_eq!(data_value(Some(0.1)), "0.1");
    }

    #[test]
    fn display_rounds() {
        assert_eq!(display(Some(0.0234567)), "0.02346");
        assert_eq!(display(Some(0.5)), "0.5");
        assert_eq!(display(Some(1.0)), "1");
        assert_eq!(display(Some(12.3456)), "12.35");
        assert_eq!(display(Some(0.00001234)), "1.234e-5");
        assert_eq!(display(Some(0.0)), "0");
        assert_eq!(display(None), "undefined");
        assert_eq!(count(1234567), "1\u{2009}234\u{2009}567");
        assert_eq!(count(12), "12");
    }
}
