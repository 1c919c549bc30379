//! The verdict (METRICS.md §8.7): the sentence a user reads first, from
//! `d = mean(u) - mean(o)` on the confidence reading ("confidence minus accuracy")
//! with its bootstrap interval, and the cumulative-differences test's `p_KS`.

use std::fmt;

/// What the verdict says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VerdictKind {
    /// `p_KS >= alpha`: no evidence of miscalibration at this sample size.
    NoEvidence,
    /// `p_KS < alpha` and `d`'s interval lies above 0.
    Overconfident,
    /// `p_KS < alpha` and `d`'s interval lies below 0.
    Underconfident,
    /// `p_KS < alpha` and `d`'s interval contains 0.
    MiscalibratedInPlaces,
}

impl VerdictKind {
    /// A stable name for records (`no_evidence`, `overconfident`, `underconfident`,
    /// `miscalibrated_in_places`).
    pub fn name(self) -> &'static str {
        match self {
            VerdictKind::NoEvidence => "no_evidence",
            VerdictKind::Overconfident => "overconfident",
            VerdictKind::Underconfident => "underconfident",
            VerdictKind::MiscalibratedInPlaces => "miscalibrated_in_places",
        }
    }

    /// The kind in a few words, for a table's column (the sentence says the rest).
    pub fn words(self) -> &'static str {
        match self {
            VerdictKind::NoEvidence => "no evidence of miscalibration",
            VerdictKind::Overconfident => "overconfident",
            VerdictKind::Underconfident => "underconfident",
            VerdictKind::MiscalibratedInPlaces => "miscalibrated in places",
        }
    }
}

/// A verdict with the numbers it rests on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// The rule's outcome.
    pub kind: VerdictKind,
    /// `d = mean(u) - mean(o)` on the data.
    pub d: f64,
    /// `d`'s percentile interval at level `1 - alpha`.
    pub d_interval: (f64, f64),
    /// `p_KS` of the cumulative-differences test.
    pub p: f64,
    /// The level of the rule and of the interval.
    pub alpha: f64,
    /// Number of samples.
    pub n: usize,
}

/// The test the verdict uses, as the sentence names it.
pub const VERDICT_TEST: &str = "cumulative-differences test";

/// The verdict rule of METRICS.md §8.7 at level `alpha`: `p_KS >= alpha` →
/// [`VerdictKind::NoEvidence`]; else `d`'s interval above 0 (`lo > 0`) →
/// overconfident, below 0 (`hi < 0`) → underconfident, otherwise miscalibrated in
/// places, not on average.
///
/// `None` (undefined) when `p_ks` or the interval is undefined, or any input is NaN.
pub fn verdict(
    d: f64,
    d_interval: Option<(f64, f64)>,
    p_ks: Option<f64>,
    alpha: f64,
    n: usize,
) -> Option<Verdict> {
    let (lo, hi) = d_interval?;
    let p = p_ks?;
    if [d, lo, hi, p, alpha].iter().any(|v| v.is_nan()) {
        return None;
    }
    let kind = if p >= alpha {
        VerdictKind::NoEvidence
    } else if lo > 0.0 {
        VerdictKind::Overconfident
    } else if hi < 0.0 {
        VerdictKind::Underconfident
    } else {
        VerdictKind::MiscalibratedInPlaces
    };
    Some(Verdict {
        kind,
        d,
        d_interval: (lo, hi),
        p,
        alpha,
        n,
    })
}

/// `n` with thousands separators: `10,000`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let lead = digits.len() % 3;
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && i % 3 == lead {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A p-value for a sentence: `p < 1e-6` below one in a million, else two significant
/// digits (`p = 0.042`, `p = 0.31`).
fn p_text(p: f64) -> String {
    if p < 1e-6 {
        "p < 1e-6".to_owned()
    } else if p >= 0.1 {
        format!("p = {p:.2}")
    } else {
        let decimals = (-p.log10()).ceil() as usize + 1;
        format!("p = {p:.decimals$}")
    }
}

/// A level as a percentage: `95`, `99.9`.
fn level_text(alpha: f64) -> String {
    let level = (1.0 - alpha) * 100.0;
    let text = format!("{level:.1}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A piece of the verdict's sentence: words, or one of the verdict's values as the
/// sentence shows it (`key` names the value: `d`, `d_interval.0`, `d_interval.1`,
/// `alpha`, `p`, `n`), so a page can mark each number with the value it shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Words between the numbers.
    Words(String),
    /// A number as shown.
    Value {
        /// The verdict value it shows.
        key: &'static str,
        /// Its text in the sentence.
        text: String,
    },
}

impl VerdictKind {
    /// The kind of a stable [`VerdictKind::name`].
    pub fn from_name(name: &str) -> Option<VerdictKind> {
        [
            VerdictKind::NoEvidence,
            VerdictKind::Overconfident,
            VerdictKind::Underconfident,
            VerdictKind::MiscalibratedInPlaces,
        ]
        .into_iter()
        .find(|k| k.name() == name)
    }
}

impl Verdict {
    /// The sentence in pieces (their texts joined are [`fmt::Display`]'s sentence).
    /// Points are `100 d`; an underconfident verdict shows `-d` and its interval
    /// `(-hi, -lo)`, so its first interval number is the value `d_interval.1`.
    pub fn pieces(&self) -> Vec<Piece> {
        let words = |s: &str| Piece::Words(s.to_owned());
        let value = |key: &'static str, text: String| Piece::Value { key, text };
        let pts = |v: f64| format!("{:.1}", v * 100.0);
        let (lo, hi) = self.d_interval;
        let level = value("alpha", level_text(self.alpha));
        let mut out = match self.kind {
            VerdictKind::Overconfident => vec![
                words("Overconfident: confidence exceeds accuracy by "),
                value("d", pts(self.d)),
                words(" points ("),
                level,
                words(" % CI "),
                value("d_interval.0", pts(lo)),
                words("–"),
                value("d_interval.1", pts(hi)),
                words(")"),
            ],
            VerdictKind::Underconfident => vec![
                words("Underconfident: accuracy exceeds confidence by "),
                value("d", pts(-self.d)),
                words(" points ("),
                level,
                words(" % CI "),
                value("d_interval.1", pts(-hi)),
                words("–"),
                value("d_interval.0", pts(-lo)),
                words(")"),
            ],
            VerdictKind::NoEvidence | VerdictKind::MiscalibratedInPlaces => vec![
                words(if self.kind == VerdictKind::NoEvidence {
                    "No evidence of miscalibration at this sample size: confidence minus \
                     accuracy is "
                } else {
                    "Miscalibrated in places, not on average: confidence minus accuracy is "
                }),
                value("d", pts(self.d)),
                words(" points ("),
                level,
                words(" % CI "),
                value("d_interval.0", pts(lo)),
                words(" to "),
                value("d_interval.1", pts(hi)),
                words(")"),
            ],
        };
        out.extend([
            words(&format!("; {VERDICT_TEST} ")),
            value("p", p_text(self.p)),
            words("; n = "),
            value("n", grouped(self.n)),
        ]);
        out
    }
}

impl fmt::Display for Verdict {
    /// Plain English, e.g. "Overconfident: confidence exceeds accuracy by 6.2 points
    /// (95 % CI 5.1–7.3); cumulative-differences test p < 1e-6; n = 10,000".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for piece in self.pieces() {
            match piece {
                Piece::Words(t) | Piece::Value { text: t, .. } => f.write_str(&t)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_in_words_for_a_table_column() {
        assert_eq!(
            VerdictKind::NoEvidence.words(),
            "no evidence of miscalibration"
        );
        assert_eq!(
            VerdictKind::MiscalibratedInPlaces.words(),
            "miscalibrated in places"
        );
    }

    #[test]
    fn pieces_name_the_values_they_show() {
        let v = verdict(-0.031, Some((-0.042, -0.02)), Some(0.0123), 0.05, 1234).unwrap();
        let values: Vec<(&str, String)> = v
            .pieces()
            .into_iter()
            .filter_map(|p| match p {
                Piece::Value { key, text } => Some((key, text)),
                Piece::Words(_) => None,
            })
            .collect();
        let want = [
            ("d", "3.1"),
            ("alpha", "95"),
            ("d_interval.1", "2.0"),
            ("d_interval.0", "4.2"),
            ("p", "p = 0.012"),
            ("n", "1,234"),
        ];
        assert_eq!(values.len(), want.len());
        for ((k, t), (wk, wt)) in values.iter().zip(want) {
            assert_eq!((*k, t.as_str()), (wk, wt));
        }
        for kind in [
            VerdictKind::NoEvidence,
            VerdictKind::Overconfident,
            VerdictKind::Underconfident,
            VerdictKind::MiscalibratedInPlaces,
        ] {
            assert_eq!(VerdictKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(VerdictKind::from_name("calibrated"), None);
    }

    #[test]
    fn rule_and_sentences() {
        let v = verdict(0.062, Some((0.051, 0.073)), Some(1e-9), 0.05, 10_000).unwrap();
        assert_eq!(v.kind, VerdictKind::Overconfident);
        assert_eq!(
            v.to_string(),
            "Overconfident: confidence exceeds accuracy by 6.2 points (95 % CI 5.1–7.3); \
             cumulative-differences test p < 1e-6; n = 10,000"
        );
        let v = verdict(-0.031, Some((-0.042, -0.02)), Some(0.0123), 0.05, 1234).unwrap();
        assert_eq!(v.kind, VerdictKind::Underconfident);
        assert_eq!(
            v.to_string(),
            "Underconfident: accuracy exceeds confidence by 3.1 points (95 % CI 2.0–4.2); \
             cumulative-differences test p = 0.012; n = 1,234"
        );
        let v = verdict(0.004, Some((-0.003, 0.011)), Some(0.42), 0.05, 999).unwrap();
        assert_eq!(v.kind, VerdictKind::NoEvidence);
        assert!(v.to_string().starts_with("No evidence of miscalibration"));
        assert!(v.to_string().ends_with("p = 0.42; n = 999"), "{v}");
        let v = verdict(0.004, Some((-0.003, 0.011)), Some(0.001), 0.05, 1_000_000).unwrap();
        assert_eq!(v.kind, VerdictKind::MiscalibratedInPlaces);
        assert!(v.to_string().ends_with("p = 0.0010; n = 1,000,000"), "{v}");
        // p exactly alpha is no evidence; an interval touching 0 is not above it
        assert_eq!(
            verdict(0.01, Some((0.0, 0.02)), Some(0.05), 0.05, 10)
                .unwrap()
                .kind,
            VerdictKind::NoEvidence
        );
        assert_eq!(
            verdict(0.01, Some((0.0, 0.02)), Some(0.01), 0.05, 10)
                .unwrap()
                .kind,
            VerdictKind::MiscalibratedInPlaces
        );
        assert!(verdict(0.01, None, Some(0.01), 0.05, 10).is_none());
        assert!(verdict(0.01, Some((0.0, 0.1)), None, 0.05, 10).is_none());
        assert!(verdict(f64::NAN, Some((0.0, 0.1)), Some(0.5), 0.05, 10).is_none());
        assert_eq!(level_text(0.001), "99.9");
    }
}
