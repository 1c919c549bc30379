//! Which recalibrated set is best on the evaluation split, and whether the
//! difference is beyond noise: the paired bootstrap of [`crate::bootstrap`] on the
//! same evaluation rows for every set (every method's output and the input itself).
//!
//! Three criteria, each a number of one set (lower is better):
//!
//! - `Nll`: the mean negative log-likelihood ([`crate::audit::nll_terms`]);
//! - `Ece`: the top-label ECE at 15 equal-width bins (the ledger's first row);
//! - `Risk`: P_risk of "Beyond ECE" (2026): `CSR = (1/n) Σ_wrong 1/(1 - c)`,
//!   `σ = sqrt(Σ c/(1 - c)) / n` (confidences clipped to `[1e-8, 1 - 1e-8]`), `P_risk =
//!   Φ((CSR - 1)/σ)` when `CSR > 1`, else 0.
//!
//! Each replicate draws the evaluation rows once and every set is measured on that
//! draw (paired). The means (NLL, CSR's and σ's sums) are read as the bootstrap's
//! `mean(u) - mean(o)` of a reading whose `u` is the row's term and whose `o` is 0
//! (the same weighted mean, no second resampler); ECE is the bootstrap's own.
//!
//! For each criterion the best set is the lowest point estimate (the first on a tie),
//! the runner-up the next; [`Ranking::share`] is the share of replicates in which
//! the best stays below the runner-up ([`crate::bootstrap::pair_order_share`]).
//! Undefined: a set without probabilities, an empty evaluation split (no ranking), a
//! tie of the two lowest (no share).

use crate::beyond::clip_confidence;
use crate::binning::Binning;
use crate::bootstrap::{
    bootstrap_map, pair_order_share, BootMetric, BootReading, BootstrapSettings, Resampled,
};
use crate::data::PredictionSet;
use crate::reading::top_labels;

/// A criterion of [`compare_sets`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Criterion {
    /// Mean negative log-likelihood.
    Nll,
    /// Top-label ECE, 15 equal-width bins.
    Ece,
    /// P_risk (module docs).
    Risk,
}

impl Criterion {
    /// Every criterion, in display order.
    pub const ALL: [Criterion; 3] = [Criterion::Nll, Criterion::Ece, Criterion::Risk];

    /// Its key (`nll`, `ece`, `risk`).
    pub fn name(self) -> &'static str {
        match self {
            Criterion::Nll => "nll",
            Criterion::Ece => "ece",
            Criterion::Risk => "risk",
        }
    }
}

/// One criterion's ranking of the sets.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    /// What is compared.
    pub criterion: Criterion,
    /// Each set's point estimate (`None`: undefined).
    pub points: Vec<Option<f64>>,
    /// The set with the lowest point estimate.
    pub best: Option<usize>,
    /// The set with the next lowest.
    pub runner_up: Option<usize>,
    /// The share of replicates in which `best` stays below `runner_up`.
    pub share: Option<f64>,
}

/// The readings of one set: NLL terms, the top-label reading, CSR's and σ's terms.
struct SetReadings {
    nll: Option<BootReading>,
    conf: BootReading,
    wrong: BootReading,
    odds: BootReading,
}

fn readings(set: &PredictionSet) -> SetReadings {
    let n = set.n();
    let zeros = vec![false; n];
    let mut terms = Vec::with_capacity(n);
    let nll =
        crate::audit::nll_terms(set, |t| terms.push(t)).map(|()| BootReading::new(&terms, &zeros));
    let top = top_labels(set);
    let c: Vec<f64> = top.confidence.iter().map(|&c| clip_confidence(c)).collect();
    let wrong: Vec<f64> = c
        .iter()
        .zip(&top.correct)
        .map(|(&c, &z)| if z { 0.0 } else { 1.0 / (1.0 - c) })
        .collect();
    let odds: Vec<f64> = c.iter().map(|&c| c / (1.0 - c)).collect();
    SetReadings {
        nll,
        conf: BootReading::new(&top.confidence, &top.correct),
        wrong: BootReading::new(&wrong, &zeros),
        odds: BootReading::new(&odds, &zeros),
    }
}

const ECE: BootMetric = BootMetric::Ece(Binning::Width, 15);

/// P_risk from the means of CSR's and σ's terms over `n` rows.
fn p_risk(csr: Option<f64>, odds_mean: Option<f64>, n: usize) -> Option<f64> {
    let (csr, odds) = (csr?, odds_mean?);
    if csr <= 1.0 {
        return Some(0.0);
    }
    let sigma = (odds / n as f64).sqrt();
    Some(crate::special::normal_cdf((csr - 1.0) / sigma))
}

/// The three criteria of one set on one replicate (or the data).
fn measure(r: &SetReadings, s: &[Resampled<'_>], n: usize) -> [Option<f64>; 3] {
    // s: [nll?, conf, wrong, odds] as laid out by `compare_sets`
    let (nll, rest) = if r.nll.is_some() {
        (s[0].mean_gap(), &s[1..])
    } else {
        (None, s)
    };
    [
        nll,
        ECE.on(&rest[0]),
        p_risk(rest[1].mean_gap(), rest[2].mean_gap(), n),
    ]
}

/// Ranks `sets` (the same evaluation rows, the same labels) by each criterion, with
/// the paired bootstrap's share for the best against the runner-up (module docs).
/// `None` when the rows are empty or the sets' row counts differ.
pub fn compare_sets(sets: &[&PredictionSet], settings: &BootstrapSettings) -> Option<Vec<Ranking>> {
    let n = sets.first()?.n();
    if n == 0 || sets.iter().any(|s| s.n() != n) {
        return None;
    }
    let per_set: Vec<SetReadings> = sets.iter().map(|s| readings(s)).collect();
    let mut all: Vec<&BootReading> = Vec::new();
    let mut spans = Vec::new();
    for r in &per_set {
        let start = all.len();
        all.extend(r.nll.as_ref());
        all.extend([&r.conf, &r.wrong, &r.odds]);
        spans.push(start..all.len());
    }
    let identity: Vec<u32> = vec![1; n];
    let points: Vec<[Option<f64>; 3]> = per_set
        .iter()
        .zip(&spans)
        .map(|(r, span)| {
            let s: Vec<Resampled<'_>> = all[span.clone()]
                .iter()
                .map(|reading| Resampled::new(reading, &identity))
                .collect();
            measure(r, &s, n)
        })
        .collect();
    let replicates: Vec<Vec<[Option<f64>; 3]>> = bootstrap_map(&all, settings, |_, s| {
        per_set
            .iter()
            .zip(&spans)
            .map(|(r, span)| measure(r, &s[span.clone()], n))
            .collect()
    });
    Some(
        Criterion::ALL
            .iter()
            .enumerate()
            .map(|(c, &criterion)| {
                let pts: Vec<Option<f64>> = points.iter().map(|p| p[c]).collect();
                let mut order: Vec<usize> = (0..pts.len()).filter(|&i| pts[i].is_some()).collect();
                order.sort_by(|&a, &b| pts[a].unwrap().total_cmp(&pts[b].unwrap()));
                let (best, runner_up) = (order.first().copied(), order.get(1).copied());
                let share = match (best, runner_up) {
                    (Some(b), Some(r)) => {
                        let reps = |i: usize| -> Vec<Option<f64>> {
                            replicates.iter().map(|v| v[i][c]).collect()
                        };
                        pair_order_share((pts[b], pts[r]), &reps(b), &reps(r))
                    }
                    _ => None,
                };
                Ranking {
                    criterion,
                    points: pts,
                    best,
                    runner_up,
                    share,
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::beyond::RiskAccumulator;
    use crate::data::{Scores, Source, Values};

    fn binary(p: Vec<f64>, y: Vec<u32>) -> PredictionSet {
        PredictionSet {
            labels: y,
            scores: Scores::Column {
                values: Values::F64(p),
                source: Source::Probs,
            },
            k: 2,
        }
    }

    #[test]
    fn points_equal_the_audit_and_a_clear_winner_is_beyond_noise() {
        let n = 2_000;
        let y: Vec<u32> = (0..n).map(|i| u32::from(i % 3 != 0)).collect();
        // calibrated: 2/3 positives at 0.667; overconfident: 0.99
        let good = binary(vec![2.0 / 3.0; n], y.clone());
        let bad = binary(vec![0.99; n], y.clone());
        let settings = BootstrapSettings {
            replicates: 200,
            threads: 1,
            ..BootstrapSettings::default()
        };
        let r = compare_sets(&[&bad, &good], &settings).unwrap();
        for ranking in &r {
            assert_eq!(ranking.best, Some(1), "{:?}", ranking.criterion);
        }
        let nll = &r[0];
        assert!((nll.points[1].unwrap() - crate::audit::nll(&good).unwrap()).abs() < 1e-12);
        assert!(nll.share.unwrap() > 0.99);
        // P_risk equals the risk accumulator's on the data
        let top = top_labels(&bad);
        let mut acc = RiskAccumulator::default();
        for (&c, &z) in top.confidence.iter().zip(&top.correct) {
            acc.add(c, z);
        }
        let want = acc.finish().p_risk.unwrap();
        assert!(
            (r[2].points[0].unwrap() - want).abs() < 1e-9,
            "{:?} {want}",
            r[2].points[0]
        );
    }

    #[test]
    fn equal_sets_tie_and_undefined_cases() {
        let y: Vec<u32> = (0..50).map(|i| i % 2).collect();
        let a = binary((0..50).map(|i| 0.3 + 0.01 * i as f64).collect(), y.clone());
        let settings = BootstrapSettings {
            replicates: 50,
            threads: 1,
            ..BootstrapSettings::default()
        };
        let r = compare_sets(&[&a, &a.clone()], &settings).unwrap();
        assert_eq!(r[0].best, Some(0), "the first on a tie");
        assert_eq!(r[0].share, None, "tied points: no share");
        let empty = binary(Vec::new(), Vec::new());
        assert!(compare_sets(&[&empty], &settings).is_none());
        assert!(compare_sets(&[&a, &binary(vec![0.5], vec![1])], &settings).is_none());
    }
}
