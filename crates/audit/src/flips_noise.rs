//! Ranking flips with their noise (METRICS.md §8.5, "the share of replicates in which
//! each pair keeps its order"): for a ranked binned metric, every pair of models gets
//! at each bin count the share of paired bootstrap replicates in which the order of
//! its point estimates holds ([`pair_order_share`]), and every flip between two bin
//! counts is marked within noise or not.
//!
//! **Rule.** A pair's order at `m` is *stable* when it holds in at least `1 - alpha/2`
//! of the replicates (0.975 at the default `alpha = 0.05`): the share of replicates
//! on the other side is then below `alpha/2`, i.e. the paired difference's
//! `1 - alpha` percentile interval (§8.5) lies on the side of the point estimate (up
//! to the interpolation between two replicate values). A flip between `m1` and `m2`
//! is *within noise* unless the pair's order is stable at both bin counts: a reversal
//! that one of its two orders does not support beyond noise is not evidence that the
//! bin count changed the ranking. An undefined share (tied point estimates, or no
//! replicate defining both values) is not stable.
//!
//! ```json
//! "noise": {"bootstrap": {"replicates": 1000, "seed": 0, "alpha": 0.05},
//!           "metric": "confece", "binning": "mass", "stable_share": 0.975,
//!           "bins": [5, 20, 2000],
//!           "pair_order": {"5": [[null, 0.99, 0.61], [0.99, null, 0.7], [0.61, 0.7, null]], …},
//!           "flips": {"5|2000": [{"pair": ["a", "c"], "shares": [0.99, 0.58], "within_noise": true}]}}
//! ```
//!
//! `pair_order.<m>[i][j]` is symmetric (the share for the pair `{i, j}`), `null` on
//! the diagonal and where undefined; `flips` is keyed as the sweep's `flip_pairs` over
//! the sorted bin counts (`<smaller m>|<larger m>`), `shares` in the key's order. Binning-free metrics
//! (`error`, `brier_over_k`, `l_conf`) do not change with the bin count, so they have
//! no flips and no noise section (`{"unavailable": …}`).

mod staged;

pub use staged::{BinReplicates, NoiseStaged};

use crate::beyond_binning::bootstrap_json;
use calibscope_core::binning::Binning;
use calibscope_core::bootstrap::{pair_order_share, BlockIndex, BootstrapSettings};
use calibscope_core::rank::ranking_sweep;
use calibscope_core::sweep::{RankedMetric, SweepMetric};
use calibscope_core::PredictionSet;
use serde_json::{json, Map, Value};

/// One metric's replicate values, `[model][bin count][replicate]`.
type Reps = Vec<Vec<Vec<Option<f64>>>>;

/// The share at or above which a pair's order is stable at level `alpha`:
/// `1 - alpha/2` (module docs).
pub fn stable_share(alpha: f64) -> f64 {
    1.0 - alpha / 2.0
}

/// Whether a flip is within noise given the pair's order shares at its two bin
/// counts (module docs: not stable at both).
pub fn within_noise(shares: (Option<f64>, Option<f64>), alpha: f64) -> bool {
    let stable = |s: Option<f64>| s.is_some_and(|s| s >= stable_share(alpha));
    !(stable(shares.0) && stable(shares.1))
}

/// One replicate's binned metrics of a reading at one bin count, from one pass: the
/// ECE family and the number of successes (from the replicate's block sums).
fn binned_with_successes(
    sample: &BlockIndex<'_>,
    binning: Binning,
    m: usize,
) -> (calibscope_core::binning::BinnedMetrics, u64) {
    let mut acc = calibscope_core::binning::BinnedAccumulator::default();
    let mut successes = 0u64;
    sample.for_each_bin(binning, m, |b| {
        successes += b.successes;
        acc.add(&b);
    });
    (acc.finish(sample.len()), successes)
}

/// Binned metrics on one replicate of a model's readings (`samples[0]` the confidence
/// reading, then the class readings) at one bin count, as `calibscope_core::sweep`
/// defines them: ConfECE, ConfCE (`lince`), ConfCE^corr (`+ (1 - acc)/n`), RMSCE of
/// the confidence reading; LinCE^cw and cwECE the mean over the class readings. One
/// pass per reading serves every metric.
fn metrics_on(
    samples: &[BlockIndex<'_>],
    metrics: &[SweepMetric],
    binning: Binning,
    m: usize,
) -> Vec<Option<f64>> {
    let n = samples[0].len();
    let (conf, successes) = binned_with_successes(&samples[0], binning, m);
    let classes = &samples[1..];
    let per_class: Vec<calibscope_core::binning::BinnedMetrics> = classes
        .iter()
        .map(|c| binned_with_successes(c, binning, m).0)
        .collect();
    let class_mean = |f: &dyn Fn(&calibscope_core::binning::BinnedMetrics) -> Option<f64>| {
        if per_class.is_empty() {
            return None;
        }
        let values: Option<Vec<f64>> = per_class.iter().map(f).collect();
        Some(calibscope_core::sum::sum(values?) / per_class.len() as f64)
    };
    metrics
        .iter()
        .map(|metric| match metric {
            SweepMetric::ConfEce => conf.ece,
            SweepMetric::ConfCe => conf.lince,
            SweepMetric::RmsceConf => conf.rmsce,
            SweepMetric::ConfCeCorr => {
                let acc = (n > 0).then(|| successes as f64 / n as f64);
                calibscope_core::truthful::confce_corrected(conf.lince, n, acc)
            }
            SweepMetric::LinceCw => class_mean(&|t| t.lince),
            SweepMetric::CwEce => class_mean(&|t| t.ece),
        })
        .collect()
}

/// The noise sections of a ranking of `sets` (two or more, on the same `n >= 1`
/// samples) at `bins`, one per `(metric, values)` of `ranked` whose point values are
/// `values[j][i]` (model `i` at `bins[j]`, as [`crate::ranked_values`] gives them);
/// see the module docs. One paired bootstrap of every model serves every metric, on
/// `settings.threads` threads ([`NoiseStaged`] runs the same in slices).
pub fn noise_sections(
    sets: &[&PredictionSet],
    names: &[&str],
    ranked: &[(RankedMetric, &[Vec<f64>])],
    binning: Binning,
    bins: &[usize],
    settings: &BootstrapSettings,
) -> Vec<Value> {
    NoiseStaged::new(sets, names, ranked, binning, bins, settings, &|_, _| None)
        .finish()
        .0
}

/// The sections of `ranked` given the replicates `reps[q][model][bin][replicate]` of
/// its `q`-th binned metric (`empty`: no replicate could run).
fn sections(
    names: &[String],
    ranked: &[(RankedMetric, Vec<Vec<f64>>)],
    binning: Binning,
    bins: &[usize],
    settings: &BootstrapSettings,
    reps: Option<Vec<Reps>>,
) -> Vec<Value> {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut reps = reps.map(Vec::into_iter);
    ranked
        .iter()
        .map(|(metric, values)| {
            if !metric.is_binned() {
                return json!({"unavailable": format!(
                    "{} does not depend on the bin count: it has no flips between bin counts",
                    metric.name()
                )});
            }
            match reps.as_mut().and_then(Iterator::next) {
                None => json!({"unavailable": "no bootstrap replicates"}),
                Some(reps) => one_noise(&names, *metric, binning, bins, values, &reps, settings),
            }
        })
        .collect()
}

/// [`noise_sections`] of one metric.
pub fn noise_json(
    sets: &[&PredictionSet],
    names: &[&str],
    metric: RankedMetric,
    binning: Binning,
    bins: &[usize],
    values: &[Vec<f64>],
    settings: &BootstrapSettings,
) -> Value {
    noise_sections(sets, names, &[(metric, values)], binning, bins, settings)
        .pop()
        .expect("one section")
}

/// The noise section of one metric given its replicates `[model][bin][replicate]`.
fn one_noise(
    names: &[&str],
    metric: RankedMetric,
    binning: Binning,
    bins: &[usize],
    values: &[Vec<f64>],
    reps: &[Vec<Vec<Option<f64>>>],
    settings: &BootstrapSettings,
) -> Value {
    let k = names.len();
    // shares[j][a][b]
    let shares: Vec<Vec<Vec<Option<f64>>>> = (0..bins.len())
        .map(|j| {
            (0..k)
                .map(|a| {
                    (0..k)
                        .map(|b| {
                            (a != b)
                                .then(|| {
                                    pair_order_share(
                                        (Some(values[j][a]), Some(values[j][b])),
                                        &reps[a][j],
                                        &reps[b][j],
                                    )
                                })
                                .flatten()
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let pair_order: Map<String, Value> = bins
        .iter()
        .zip(&shares)
        .map(|(m, s)| (m.to_string(), json!(s)))
        .collect();
    let sweep = ranking_sweep(values, &vec![f64::NAN; k]);
    let flips: Map<String, Value> = sweep
        .flip_pairs
        .iter()
        .map(|&((a, b), ref pairs)| {
            let list: Vec<Value> = pairs
                .iter()
                .map(|&(i, j)| {
                    let s = (shares[a][i][j], shares[b][i][j]);
                    json!({
                        "pair": [names[i], names[j]],
                        "shares": [s.0, s.1],
                        "within_noise": within_noise(s, settings.alpha),
                    })
                })
                .collect();
            (format!("{}|{}", bins[a], bins[b]), Value::Array(list))
        })
        .collect();
    json!({
        "bootstrap": bootstrap_json(settings),
        "metric": metric.name(),
        "binning": binning.name(),
        "stable_share": stable_share(settings.alpha),
        "bins": bins,
        "pair_order": pair_order,
        "flips": flips,
    })
}

/// [`crate::flips_section`] with its `noise` (module docs) for the section's metric
/// over its bin counts and `m`, `m_ref`, when `bootstrap` is given: the record's
/// `tables.flips` (the models temperature-scaled first when the settings say so;
/// `positions_differ` as [`crate::flips_section_in`]'s).
pub fn flips_section_with_noise(
    models: &[(String, PredictionSet)],
    settings: &crate::FlipsSettings,
    bootstrap: Option<&BootstrapSettings>,
    positions_differ: Option<&str>,
) -> Result<Value, String> {
    let mut section = crate::flips_section_in(models, settings, positions_differ)?;
    let Some(bootstrap) = bootstrap else {
        return Ok(section);
    };
    // flips_section accepted the names
    let metric = RankedMetric::from_name(&settings.metric).expect("a checked metric");
    let binning = Binning::from_name(&settings.binning).expect("a checked binning");
    let scaled = crate::scaled_first(models, settings.temperature_first)?;
    let sets = crate::sets_to_rank(models, scaled.as_ref());
    let n = sets.first().map_or(0, |s| s.n());
    let s = settings.effective(n);
    let mut bins = s.bins.clone();
    bins.extend([s.m, s.m_ref]);
    bins.sort_unstable();
    bins.dedup();
    let names: Vec<&str> = models.iter().map(|(n, _)| n.as_str()).collect();
    let readings = crate::ClassReadings::of(sets.first().map(|s| s.kind()), positions_differ);
    let index: Vec<calibscope_core::sweep::ModelIndex> = sets
        .iter()
        .map(|set| calibscope_core::sweep::ModelIndex::new(set, readings.vectors()))
        .collect();
    section["noise"] = match crate::ranked_values(&index, &readings, metric, binning, &bins) {
        Ok(values) => noise_json(&sets, &names, metric, binning, &bins, &values, bootstrap),
        Err(why) => json!({ "unavailable": why }),
    };
    Ok(section)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule() {
        assert_eq!(stable_share(0.05), 0.975);
        assert!(!within_noise((Some(0.98), Some(0.975)), 0.05));
        assert!(within_noise((Some(0.98), Some(0.97)), 0.05));
        assert!(within_noise((None, Some(1.0)), 0.05));
        assert!(within_noise((Some(0.6), Some(0.6)), 0.05));
    }
}
