//! The ranking-flips view's explanatory text, computed from the Spearman matrices
//! on screen (never a finding stated in advance): how many model pairs each binned
//! metric reversed between the smallest and the largest bin count shown, and a
//! comparison of the metrics by those counts, worded by the counts themselves.
//!
//! The text is a list of sentences made of [`Segment`]s; every number is a segment
//! carrying its own `data-metric` path (`flips.finding.…`) and the path of the table
//! cell it repeats (`data-table`, a path of `crate::proto::flips`), so a test can check the
//! text against the table.

use crate::proto::flips::{FlipsMatrices, MetricMatrix};

/// A piece of a sentence.
#[derive(Clone, Debug, PartialEq)]
pub enum Segment {
    Text(String),
    /// A flip count, repeated from the table cell `table`.
    Count {
        path: String,
        table: String,
        value: usize,
    },
    /// A Spearman ρ (undefined: `None`), repeated from the table cell `table`.
    Rho {
        path: String,
        table: String,
        value: Option<f64>,
    },
}

/// The binned metrics the text counts, in the view's order.
pub const COUNTED: [&str; 6] = [
    "confece",
    "confce",
    "confce_corr",
    "lince_cw",
    "cwece",
    "rmsce_conf",
];

/// The truthful errors compared with the usual ECE (ConfECE).
const TRUTHFUL: [&str; 2] = ["confce_corr", "lince_cw"];

/// A metric's short name in sentences.
pub fn short_name(metric: &str) -> &str {
    match metric {
        "confece" => "ConfECE",
        "confce" => "ConfCE",
        "confce_corr" => "ConfCE^corr",
        "lince_cw" => "LinCE^cw",
        "cwece" => "cwECE",
        "rmsce_conf" => "RMSCE",
        other => other,
    }
}

/// One metric's reversals between the first and the last bin count shown.
struct Counted<'a> {
    metric: &'a str,
    flips: usize,
    rho: Option<f64>,
}

fn text(s: impl Into<String>) -> Segment {
    Segment::Text(s.into())
}

/// `pair` or `pairs`.
fn pairs_word(n: usize) -> &'static str {
    if n == 1 {
        "pair"
    } else {
        "pairs"
    }
}

/// The explanatory sentences for matrices `x` over `models` models (see the module
/// docs). Fewer than two bin counts or two models: one sentence saying what is
/// needed. Metrics that cannot be computed (top-label input, undefined values) are
/// named as such.
pub fn finding(x: &FlipsMatrices, models: usize) -> Vec<Vec<Segment>> {
    if models < 2 {
        return vec![vec![text("Reversals need at least 2 models.")]];
    }
    let (Some(&lo), Some(&hi)) = (x.bins.first(), x.bins.last()) else {
        return vec![vec![text("Choose bin counts to compare.")]];
    };
    if x.bins.len() < 2 {
        return vec![vec![text(format!(
            "Only one bin count is compared (m = {lo}): add another to count reversals."
        ))]];
    }
    let last = x.bins.len() - 1;
    let base = |m: &MetricMatrix| format!("ranking.metrics.{}.{}", m.metric, x.binning.name());
    let table_flips = |m: &MetricMatrix| format!("{}.flips.0.{last}", base(m));
    let table_rho = |m: &MetricMatrix| format!("{}.spearman.0.{last}", base(m));
    let shown: Vec<&MetricMatrix> = COUNTED
        .iter()
        .filter_map(|k| x.metrics.iter().find(|m| m.metric == *k))
        .collect();
    let counted: Vec<Counted> = shown
        .iter()
        .filter(|m| m.unavailable.is_none())
        .map(|m| Counted {
            metric: &m.metric,
            flips: m
                .flips
                .first()
                .and_then(|r| r.get(last))
                .copied()
                .unwrap_or(0),
            rho: m
                .spearman
                .first()
                .and_then(|r| r.get(last))
                .copied()
                .flatten(),
        })
        .collect();
    let matrix_of = |metric: &str| shown.iter().find(|m| m.metric == metric).copied();
    let count_seg = |c: &Counted, tag: &str| Segment::Count {
        path: format!("flips.finding.{tag}.{}.flips", c.metric),
        table: matrix_of(c.metric).map(table_flips).unwrap_or_default(),
        value: c.flips,
    };
    let total = models * (models - 1) / 2;
    let scaled = if x.temperature.is_some() {
        "temperature-scaled first, "
    } else {
        ""
    };
    let binning = if x.binning == calibscope_core::binning::Binning::Width {
        "equal-width"
    } else {
        "equal-mass"
    };
    // 1. the counts
    let mut first = vec![text(format!(
        "On these {models} models ({scaled}{total} {} of models, {binning} bins), between m = {lo} and m = {hi}: ",
        pairs_word(total)
    ))];
    for (j, c) in counted.iter().enumerate() {
        if j > 0 {
            first.push(text(if j + 1 == counted.len() {
                " and "
            } else {
                ", "
            }));
        }
        first.push(text(format!("{} reversed ", short_name(c.metric))));
        first.push(count_seg(c, "counts"));
        first.push(text(format!(" {} (Spearman ρ ", pairs_word(c.flips))));
        first.push(Segment::Rho {
            path: format!("flips.finding.counts.{}.spearman", c.metric),
            table: matrix_of(c.metric).map(table_rho).unwrap_or_default(),
            value: c.rho,
        });
        first.push(text(")"));
    }
    if counted.is_empty() {
        first.push(text("no binned metric can be computed."));
    } else {
        first.push(text("."));
    }
    let missing: Vec<&str> = shown
        .iter()
        .filter(|m| m.unavailable.is_some())
        .map(|m| short_name(&m.metric))
        .collect();
    if !missing.is_empty() {
        first.push(text(format!(
            " {} cannot be computed on this input.",
            missing.join(", ")
        )));
    }
    let mut out = vec![first];
    // 2. the comparison, worded by the counts
    if !counted.is_empty() {
        out.push(compare(&counted, lo, hi, &count_seg));
    }
    if models == 3 {
        out.push(vec![text(
            "With 3 models a Spearman ρ takes only the values −1, −0.5, 0.5 and 1, and one reversed pair moves it by 0.5 or 1: read the counts.",
        )]);
    }
    out
}

/// The comparison sentence: the truthful errors against ConfECE, then the fewest and
/// the most reversals; every comparison word follows from the counts.
fn compare(
    counted: &[Counted],
    lo: usize,
    hi: usize,
    count_seg: &dyn Fn(&Counted, &str) -> Segment,
) -> Vec<Segment> {
    if counted.iter().all(|c| c.flips == 0) {
        return vec![text(format!(
            "No metric reversed any pair between m = {lo} and m = {hi}: on these models the bin count changed no ranking."
        ))];
    }
    let mut out = Vec::new();
    let ece = counted.iter().find(|c| c.metric == "confece");
    if let Some(ece) = ece {
        for t in counted.iter().filter(|c| TRUTHFUL.contains(&c.metric)) {
            let word = match t.flips.cmp(&ece.flips) {
                std::cmp::Ordering::Less => "fewer pairs than",
                std::cmp::Ordering::Equal => "as many pairs as",
                std::cmp::Ordering::Greater => "more pairs than",
            };
            out.push(text(format!(
                "{}{} reversed {word} ConfECE (",
                if out.is_empty() { "Here " } else { " " },
                short_name(t.metric)
            )));
            out.push(count_seg(t, "compare"));
            out.push(text(" against "));
            out.push(count_seg(ece, &format!("compare_{}", t.metric)));
            out.push(text(")."));
        }
    }
    let min = counted.iter().map(|c| c.flips).min().unwrap_or(0);
    let max = counted.iter().map(|c| c.flips).max().unwrap_or(0);
    let names = |v: usize| {
        counted
            .iter()
            .filter(|c| c.flips == v)
            .map(|c| short_name(c.metric))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if counted.len() > 1 && min < max {
        out.push(text(format!(
            "{}Fewest reversals: {} ({min}); most: {} ({max}).",
            if out.is_empty() { "" } else { " " },
            names(min),
            names(max)
        )));
    } else if counted.len() > 1 {
        out.push(text(format!(
            "{}Every metric reversed the same number of pairs ({min}).",
            if out.is_empty() { "" } else { " " }
        )));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::flips::{FlipsMatrices, MetricMatrix};

    fn matrix(metric: &str, flips: usize, rho: Option<f64>) -> MetricMatrix {
        MetricMatrix {
            metric: metric.into(),
            spearman: vec![vec![Some(1.0), rho], vec![rho, Some(1.0)]],
            flips: vec![vec![0, flips], vec![flips, 0]],
            ..MetricMatrix::default()
        }
    }

    fn plain(segments: &[Segment]) -> String {
        segments
            .iter()
            .map(|s| match s {
                Segment::Text(t) => t.clone(),
                Segment::Count { value, .. } => value.to_string(),
                Segment::Rho { value, .. } => value.map_or("undefined".into(), |v| v.to_string()),
            })
            .collect()
    }

    fn x(metrics: Vec<MetricMatrix>) -> FlipsMatrices {
        FlipsMatrices {
            binning: calibscope_core::binning::Binning::Mass,
            bins: vec![5, 450],
            metrics,
            ..FlipsMatrices::default()
        }
    }

    #[test]
    fn the_words_follow_the_counts() {
        let m = x(vec![
            matrix("confece", 4, Some(0.95)),
            matrix("confce_corr", 11, Some(0.7)),
            matrix("lince_cw", 2, Some(0.98)),
        ]);
        let s = finding(&m, 10);
        let first = plain(&s[0]);
        assert!(first.contains("On these 10 models (45 pairs of models, equal-mass bins), between m = 5 and m = 450: ConfECE reversed 4 pairs (Spearman ρ 0.95), ConfCE^corr reversed 11 pairs"), "{first}");
        let second = plain(&s[1]);
        assert!(
            second.contains("ConfCE^corr reversed more pairs than ConfECE (11 against 4)"),
            "{second}"
        );
        assert!(
            second.contains("LinCE^cw reversed fewer pairs than ConfECE (2 against 4)"),
            "{second}"
        );
        assert!(
            second.contains("Fewest reversals: LinCE^cw (2); most: ConfCE^corr (11)"),
            "{second}"
        );
        // every number points at its table cell
        for seg in s.iter().flatten() {
            if let Segment::Count { table, value, .. } = seg {
                let metric = table.split('.').nth(2).unwrap();
                let want = m
                    .metrics
                    .iter()
                    .find(|mm| mm.metric == metric)
                    .unwrap()
                    .flips[0][1];
                assert_eq!(*value, want);
                assert!(table.ends_with(".mass.flips.0.1"), "{table}");
            }
        }
    }

    #[test]
    fn ties_zeros_and_small_sets() {
        let m = x(vec![
            matrix("confece", 0, Some(1.0)),
            matrix("lince_cw", 0, Some(1.0)),
        ]);
        let s = finding(&m, 3);
        assert!(plain(&s[1]).starts_with("No metric reversed any pair"));
        assert!(plain(&s[2]).contains("3 models"));
        let m = x(vec![
            matrix("confece", 1, None),
            matrix("confce_corr", 1, None),
        ]);
        let s = plain(&finding(&m, 3)[1]);
        assert!(s.contains("as many pairs as ConfECE (1 against 1)"), "{s}");
        assert!(
            s.contains("Every metric reversed the same number of pairs (1)"),
            "{s}"
        );
        let mut lin = matrix("lince_cw", 0, None);
        lin.unavailable = Some("top-label".into());
        let s = plain(&finding(&x(vec![matrix("confece", 1, None), lin]), 2)[0]);
        assert!(s.contains("LinCE^cw cannot be computed"), "{s}");
        assert!(s.contains("1 pair of models"), "{s}");
        let one = FlipsMatrices {
            bins: vec![5],
            ..x(vec![])
        };
        assert!(plain(&finding(&one, 4)[0]).contains("Only one bin count"));
    }
}
