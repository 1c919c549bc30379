//! The overview's two badges, from numbers the overview shows: the overconfidence
//! risk read from P_risk, and a separate calibration indication from the signed
//! difference between mean confidence and accuracy (with the ECE beside it). Pure,
//! natively tested; the rules are stated in the help texts of `p_risk` and
//! `conf_gap` (`src/text.rs`). Neither is a statistical test: they describe the
//! numbers, without intervals.

use serde_json::Value;

/// P_risk at or above this is a high overconfidence risk.
pub const RISK_HIGH: f64 = 0.95;
/// P_risk at or above this (and below [`RISK_HIGH`]) is a moderate risk.
pub const RISK_MODERATE: f64 = 0.5;
/// `|mean confidence − accuracy|` from which a model is called over- or
/// underconfident (2 points).
pub const GAP: f64 = 0.02;
/// The ECE from which a model whose mean confidence matches its accuracy is called
/// mixed rather than close to calibrated.
pub const ECE_MIXED: f64 = 0.05;

/// The risk badge of `p_risk`: `(css class, words)`.
pub fn risk_badge(p_risk: f64) -> (&'static str, &'static str) {
    if p_risk >= RISK_HIGH {
        ("badge risk", "overconfidence risk: high (P_risk ≥ 0.95)")
    } else if p_risk >= RISK_MODERATE {
        (
            "badge maybe",
            "overconfidence risk: moderate (P_risk ≥ 0.5)",
        )
    } else {
        ("badge neutral", "overconfidence risk: low (P_risk < 0.5)")
    }
}

/// The mean confidence of a reliability table's rows (`[{n, conf, ...}, ...]` of the
/// audit JSON): `Σ n · conf / Σ n`, which is the mean of the confidences because each
/// row's `conf` is its bin's mean. `None` when the rows are missing or empty.
pub fn mean_confidence(rows: &Value) -> Option<f64> {
    let rows = rows.as_array()?;
    let mut n = 0.0;
    let parts = rows.iter().map(|r| {
        let count = r.get("n")?.as_f64()?;
        n += count;
        Some(count * r.get("conf")?.as_f64()?)
    });
    let total = calibscope_core::sum::sum(parts.collect::<Option<Vec<f64>>>()?);
    (n > 0.0).then(|| total / n)
}

/// The calibration indication.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Calibration {
    /// Mean confidence below accuracy by this much (a positive fraction).
    Under(f64),
    /// Mean confidence above accuracy by this much.
    Over(f64),
    /// Mean confidence within [`GAP`] of accuracy, but ECE at least [`ECE_MIXED`]:
    /// some bins over-, others underconfident.
    Mixed,
    /// Mean confidence within [`GAP`] of accuracy and ECE below [`ECE_MIXED`].
    Close,
}

/// The indication for `gap = mean confidence − accuracy` and the ECE shown (`None`
/// when the gap is undefined; an undefined ECE counts as not small).
pub fn calibration(gap: Option<f64>, ece: Option<f64>) -> Option<Calibration> {
    let g = gap?;
    Some(if g <= -GAP {
        Calibration::Under(-g)
    } else if g >= GAP {
        Calibration::Over(g)
    } else if ece.is_some_and(|e| e < ECE_MIXED) {
        Calibration::Close
    } else {
        Calibration::Mixed
    })
}

/// The badge of an indication: `(css class, words)`.
pub fn calibration_badge(c: Calibration) -> (&'static str, String) {
    let points = |d: f64| format!("{:.0} points", d * 100.0);
    match c {
        Calibration::Under(d) => ("badge maybe", format!("underconfident by {}", points(d))),
        Calibration::Over(d) => ("badge risk", format!("overconfident by {}", points(d))),
        Calibration::Mixed => (
            "badge maybe",
            "mixed: average matches, bins do not (ECE ≥ 0.05)".into(),
        ),
        Calibration::Close => ("badge ok", "close to calibrated".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn risk_levels() {
        assert_eq!(risk_badge(0.99).0, "badge risk");
        assert_eq!(risk_badge(0.95).0, "badge risk");
        assert_eq!(risk_badge(0.6).0, "badge maybe");
        // low risk is never the green "fine" badge: it says nothing of underconfidence
        assert_eq!(risk_badge(0.0).0, "badge neutral");
        assert!(risk_badge(0.0).1.contains("overconfidence risk: low"));
    }

    #[test]
    fn mean_confidence_of_rows() {
        let rows = json!([{"n": 3, "conf": 0.2}, {"n": 1, "conf": 0.6}]);
        assert!((mean_confidence(&rows).unwrap() - 0.3).abs() < 1e-15);
        assert_eq!(mean_confidence(&json!([])), None);
        assert_eq!(mean_confidence(&json!([{"n": 1}])), None);
        assert_eq!(mean_confidence(&Value::Null), None);
    }

    #[test]
    fn indications() {
        let under = calibration(Some(-0.12), Some(0.2)).unwrap();
        assert_eq!(under, Calibration::Under(0.12));
        assert_eq!(calibration_badge(under).1, "underconfident by 12 points");
        assert_eq!(
            calibration_badge(calibration(Some(0.05), None).unwrap()).1,
            "overconfident by 5 points"
        );
        assert_eq!(
            calibration(Some(0.01), Some(0.02)),
            Some(Calibration::Close)
        );
        assert_eq!(
            calibration(Some(-0.01), Some(0.08)),
            Some(Calibration::Mixed)
        );
        assert_eq!(calibration(Some(0.0), None), Some(Calibration::Mixed));
        assert_eq!(calibration(None, Some(0.0)), None);
        // an underconfident model is never "close to calibrated"
        assert_ne!(calibration_badge(under).0, "badge ok");
    }
}
