//! The ranking-flips view's side of the worker (METRICS.md §4.1): its protocol
//! messages and the [`Session`]'s answers. Every model is indexed once
//! ([`ModelIndex`]: sorted readings with prefix sums); the curve of a metric over
//! `m = 1..=min(n, 2000)`, the ranking at the slider's `m` against a pinned
//! reference, and the Spearman matrices over a set of bin counts are read off it.
//!
//! `data-metric` paths of the view (aligned with the multi-model audit's `ranking`
//! section, so tests compare them with the fixtures directly):
//! - `ranking.metrics.<metric>.<binning>.ranks.<m>.<i>`: rank of model `i` at `m`;
//! - `models.<name>.metrics.<metric>.<binning>.<m>`: its value (binning-free
//!   references: `models.<name>.binning_free.<metric>`);
//! - `ranking.metrics.<metric>.<binning>.rank_change.<m_ref>|<m>.<i>`: rank at
//!   `m_ref` minus rank at `m` (positive: the model moved up);
//! - `ranking.metrics.<metric>.<binning>.flip_count.<a>|<b>` and
//!   `….flip_pairs.<a>|<b>.<j>` (`a < b`, data-value `name_i|name_j`): the flips
//!   between the reference and the current bin count;
//! - `ranking.metrics.<metric>.<binning>.spearman.<a>.<b>` and `….flips.<a>.<b>`:
//!   the matrices, `a`, `b` positions in the bin counts shown (`data-bins`);
//! - `ranking.metrics.<metric>.<binning>.spearman_vs_error.<m>`;
//! - `ranking.binning_free_spearman_vs_error.<metric>` for the references;
//! - `flips.temperature.tau.<i>`: model `i`'s τ when the models are temperature-scaled
//!   first ([`FlipsRequest::TemperatureFirst`]).
//!
//! Temperature first (seed 000's protocol): every model is scaled on the stratified
//! calibration split of the Recalibrate view's defaults and every number is read on
//! the evaluation split (`calibscope_audit::scaled_first`, as `calibscope flips
//! --temperature-first` and records); bin counts above that split's `min(n, 2000)`
//! are lowered to it, and the answers say which were used.

use calibscope_audit::{complete_values, rank_change, unranked, ClassReadings};
use calibscope_core::binning::Binning;
use calibscope_core::rank::{discordant_pairs, ranking_sweep, spearman};
use calibscope_core::recal::first::{temperature_first, DEFAULT_FRACTION, DEFAULT_SEED};
use calibscope_core::sweep::{clip_bins, sweep, ModelIndex, RankedMetric};
use calibscope_core::PredictionSet;

pub use calibscope_proto::flips::*;

use crate::proto::{codes, FromWorker};
use crate::{worker_error, Session, M_SLIDER_MAX};

/// The view's models, indexed on first use (class readings when a classwise
/// metric is first asked for); the temperature-scaled ones likewise.
#[derive(Default)]
pub struct FlipsCache {
    models: Option<Vec<ModelIndex>>,
    scaled: Option<Result<Scaled, String>>,
}

/// The models temperature-scaled first: their evaluation rows and indices.
struct Scaled {
    info: FlipsTemperature,
    sets: Vec<PredictionSet>,
    models: Vec<ModelIndex>,
}

/// A metric's values by bin count (`[j][i]`: model `i` at the `j`-th bin count).
type ByM = Vec<Vec<Option<f64>>>;

impl Session {
    /// The models' indices (with class readings when asked), built on first use: as
    /// given, or temperature-scaled first (`tf`), with how they were scaled. `Err`:
    /// why the models cannot be scaled.
    fn flips_models(
        &mut self,
        classwise: bool,
        tf: bool,
    ) -> Result<(&[ModelIndex], Option<FlipsTemperature>), String> {
        let (sets, cache) = self.flips_parts();
        if !tf {
            let models = cache
                .models
                .get_or_insert_with(|| sets.iter().map(|s| ModelIndex::new(s, false)).collect());
            if classwise {
                for (index, set) in models.iter_mut().zip(&sets) {
                    index.add_classes(set);
                }
            }
            return Ok((models, None));
        }
        let scaled = cache.scaled.get_or_insert_with(|| {
            temperature_first(&sets, DEFAULT_SEED, DEFAULT_FRACTION)
                .map(|t| Scaled {
                    info: FlipsTemperature::of(&t),
                    models: t.scaled.iter().map(|s| ModelIndex::new(s, false)).collect(),
                    sets: t.scaled,
                })
                .map_err(|why| format!("cannot temperature-scale the models first: {why}"))
        });
        let scaled = scaled.as_mut().map_err(|why| why.clone())?;
        if classwise {
            for (index, set) in scaled.models.iter_mut().zip(&scaled.sets) {
                index.add_classes(set);
            }
        }
        Ok((&scaled.models, Some(scaled.info.clone())))
    }

    /// The models' prediction sets as ranked: as given, or temperature-scaled first
    /// (`tf`, their evaluation rows). `Err`: why the models cannot be scaled.
    pub(crate) fn flips_sets(&mut self, tf: bool) -> Result<Vec<&PredictionSet>, String> {
        if tf {
            self.flips_models(false, true)?;
        }
        let (sets, cache) = self.flips_parts();
        match (tf, &cache.scaled) {
            (false, _) => Ok(sets),
            (true, Some(Ok(scaled))) => Ok(scaled.sets.iter().collect()),
            (true, Some(Err(why))) => Err(why.clone()),
            (true, None) => unreachable!("scaled by flips_models above"),
        }
    }

    /// The number of samples ranked: all, or the evaluation split's when `tf`.
    pub(crate) fn flips_n(&mut self, tf: bool) -> Result<usize, String> {
        if !tf {
            return Ok(self.n());
        }
        let (_, info) = self.flips_models(false, true)?;
        Ok(info.map_or(0, |t| t.n_evaluation))
    }

    /// What the models give the classwise metrics: probability vectors, top-label
    /// input, or a ragged log's class positions.
    fn class_readings(&mut self) -> ClassReadings {
        let positions_differ = self
            .dataset
            .detection
            .ragged
            .as_ref()
            .map(|r| r.why_positions_differ());
        let (sets, _) = self.flips_parts();
        ClassReadings::of(sets.first().map(|s| s.kind()), positions_differ.as_deref())
    }

    /// Answers a ranking-flips question of request `id`.
    pub fn flips(&mut self, id: u64, gen: u64, request: &FlipsRequest) -> FromWorker {
        let (request, tf) = match request {
            FlipsRequest::TemperatureFirst(inner) => (inner.as_ref(), true),
            other => (other, false),
        };
        let bad = |msg: String| worker_error(id, codes::BAD_PARAMETERS, msg);
        let metric_of = |name: &str| {
            RankedMetric::from_name(name).ok_or_else(|| format!("unknown metric {name:?}"))
        };
        // the slider's range is that of all samples; the scaled models' evaluation
        // split may be smaller: its bin counts are lowered to it
        let m_max = self.n().clamp(1, M_SLIDER_MAX);
        // (when the models cannot be scaled, the answer says why)
        let n = self.flips_n(tf).unwrap_or_else(|_| self.n());
        let fit_max = n.clamp(1, M_SLIDER_MAX);
        let answer = match request {
            FlipsRequest::TemperatureFirst(_) => {
                return bad("a question is asked of the scaled models once, not twice".into())
            }
            FlipsRequest::Curve { metric, binning } => match metric_of(metric) {
                Ok(metric) => FlipsAnswer::Curve(self.flips_curve(metric, *binning, fit_max, tf)),
                Err(e) => return bad(e),
            },
            FlipsRequest::Rank {
                metric,
                binning,
                m,
                m_ref,
            } => {
                if !(1..=m_max).contains(m) || !(1..=m_max).contains(m_ref) {
                    return bad(format!(
                        "bin counts {m_ref} and {m} must lie in 1..={m_max}"
                    ));
                }
                let (m, m_ref) = ((*m).min(fit_max), (*m_ref).min(fit_max));
                match metric_of(metric) {
                    Ok(metric) => {
                        FlipsAnswer::Rank(self.flips_rank(metric, *binning, m, m_ref, tf))
                    }
                    Err(e) => return bad(e),
                }
            }
            FlipsRequest::Matrices { binning, bins } => {
                if bins.is_empty() {
                    return bad("no bin counts to compare".into());
                }
                FlipsAnswer::Matrices(self.flips_matrices(*binning, &clip_bins(bins, n), tf))
            }
        };
        FromWorker::Flips { id, gen, answer }
    }

    /// `metric` for every model at `m_values` (`result[j][i]`: model `i` at the
    /// `j`-th bin count) with how the models were scaled, or why it is unavailable.
    pub(crate) fn flips_values(
        &mut self,
        metric: RankedMetric,
        binning: Binning,
        m_values: &[usize],
        tf: bool,
    ) -> Result<(ByM, Option<FlipsTemperature>), String> {
        if let Some(why) = unranked(metric, &self.class_readings()) {
            return Err(why);
        }
        let (models, info) = self.flips_models(metric.needs_vectors(), tf)?;
        Ok((sweep(models, metric, binning, m_values), info))
    }

    /// The classification error of each model (on the evaluation split when `tf`).
    fn error_vector(&mut self, tf: bool) -> Vec<f64> {
        match self.flips_models(false, tf) {
            Ok((models, _)) => models
                .iter()
                .map(|m| m.error().unwrap_or(f64::NAN))
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The curve of `metric` over `m = 1..=m_max`.
    pub fn flips_curve(
        &mut self,
        metric: RankedMetric,
        binning: Binning,
        m_max: usize,
        tf: bool,
    ) -> FlipsCurve {
        let mut out = FlipsCurve {
            metric: metric.name().into(),
            binning,
            m_max,
            ..FlipsCurve::default()
        };
        let m_values: Vec<usize> = if metric.is_binned() {
            (1..=m_max).collect()
        } else {
            vec![1]
        };
        let by_m = match self.flips_values(metric, binning, &m_values, tf) {
            Ok((v, info)) => {
                out.temperature = info;
                v
            }
            Err(why) => {
                out.unavailable = Some(why);
                return out;
            }
        };
        let error = self.error_vector(tf);
        let rho: Vec<Option<f64>> = by_m
            .iter()
            .map(|row| {
                let row: Option<Vec<f64>> = row.iter().copied().collect();
                spearman(&row?, &error)
            })
            .collect();
        let models = by_m.first().map_or(0, Vec::len);
        // binning-free references are the same at every m
        let at = |j: usize| if metric.is_binned() { j } else { 0 };
        out.values = (0..models)
            .map(|i| (0..m_max).map(|j| by_m[at(j)][i]).collect())
            .collect();
        out.spearman_vs_error = (0..m_max).map(|j| rho[at(j)]).collect();
        out
    }

    /// The ranking at `m` against the reference `m_ref`.
    pub fn flips_rank(
        &mut self,
        metric: RankedMetric,
        binning: Binning,
        m: usize,
        m_ref: usize,
        tf: bool,
    ) -> FlipsRanking {
        let mut out = FlipsRanking {
            metric: metric.name().into(),
            binning,
            m,
            m_ref,
            ..FlipsRanking::default()
        };
        let by_m = match self.flips_values(metric, binning, &[m_ref, m], tf) {
            Ok((v, info)) => {
                out.temperature = info;
                v
            }
            Err(why) => {
                out.unavailable = Some(why);
                return out;
            }
        };
        out.values_ref = by_m[0].clone();
        out.values = by_m[1].clone();
        let values = match complete_values(metric, by_m) {
            Ok(v) => v,
            Err(why) => {
                out.unavailable = Some(why);
                return out;
            }
        };
        let error = self.error_vector(tf);
        let sweep = ranking_sweep(&values, &error);
        out.ranks_ref = sweep.ranks[0].clone();
        out.ranks = sweep.ranks[1].clone();
        out.rank_change = rank_change(&out.ranks_ref, &out.ranks);
        out.flip_pairs = discordant_pairs(&sweep.ranks[0], &sweep.ranks[1]);
        out.spearman = sweep.spearman[0][1];
        out.spearman_vs_error_ref = sweep.spearman_vs_error[0];
        out.spearman_vs_error = sweep.spearman_vs_error[1];
        out
    }

    /// Every ranked metric's Spearman and flip matrices over `bins`.
    pub fn flips_matrices(&mut self, binning: Binning, bins: &[usize], tf: bool) -> FlipsMatrices {
        let mut out = FlipsMatrices {
            binning,
            bins: bins.to_vec(),
            ..FlipsMatrices::default()
        };
        match self.flips_models(false, tf) {
            Ok((_, info)) => out.temperature = info,
            Err(why) => {
                out.unavailable = Some(why);
                return out;
            }
        }
        let error = self.error_vector(tf);
        out.metrics = RankedMetric::ALL
            .into_iter()
            .map(|metric| {
                let mut out = MetricMatrix {
                    metric: metric.name().into(),
                    ..MetricMatrix::default()
                };
                let values = self
                    .flips_values(metric, binning, bins, tf)
                    .and_then(|(v, _)| complete_values(metric, v));
                match values {
                    Err(why) => out.unavailable = Some(why),
                    Ok(values) => {
                        let sweep = ranking_sweep(&values, &error);
                        out.spearman = sweep.spearman;
                        out.flips = sweep.flips;
                        out.flip_pairs = sweep
                            .flip_pairs
                            .into_iter()
                            .map(|((a, b), pairs)| FlipPairs { a, b, pairs })
                            .collect();
                        out.spearman_vs_error = sweep.spearman_vs_error;
                    }
                }
                out
            })
            .collect();
        out
    }
}

#[cfg(test)]
#[path = "flips_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "flips_tf_tests.rs"]
mod tf_tests;
