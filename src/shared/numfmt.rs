//! How numbers are written in the page: `data-value` carries the shortest string
//! that reads back to the same `f64` (or `null`); the visible text is rounded by the
//! one formatter (`calibscope_charts::numfmt`, also used by the charts' tick labels
//! and the reports).

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

/// The visible text of a number, by the one formatter of the page, its charts and
/// reports ([`calibscope_charts::numfmt`]): four significant digits, no e-notation
/// between 1e-4 and 1e6, `< 1e-4` below, `undefined` when undefined.
pub use calibscope_charts::numfmt::{count, display, percent, with_unit};

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
        assert_eq!(display(Some(0.00001234)), "< 1e-4");
        assert_eq!(display(Some(5.901e6)), "5.901 million");
        assert_eq!(display(Some(0.0)), "0");
        assert_eq!(display(None), "undefined");
        assert_eq!(count(1234567), "1\u{2009}234\u{2009}567");
        assert_eq!(count(12), "12");
    }
}
