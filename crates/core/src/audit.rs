//! The full audit of one prediction set: every binning-free metric, every reading's
//! ECE family at the requested bin counts for both binnings, reliability tables,
//! beyond-ECE metrics, confidence-weighted confusion and AUCs (METRICS.md §1–5).
//!
//! Work is organised so each reading is sorted once: per class, one stable sort of
//! `p^(r)` feeds its AUC, its cwAUC and its prefix-sum index, and the index answers
//! every bin count.

use crate::auc;
use crate::beyond::{self, Confusion, RiskMetrics};
use crate::binning::{self, BinnedMetrics, Binning, SortedReading};
use crate::data::{Kind, PredictionSet, Scores, Source};
use crate::reading::{self, ProbView};
use crate::reliability::{self, ReliabilityRow};
use crate::sum::Sum;

mod fast;
mod matrix;

pub use matrix::{ClassChunk, Finished, MatrixStage};

/// An audit in stages ([`Audit::staged`]). One is made per audit: its variants'
/// sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub enum Staged<'a> {
    /// A matrix set after its pass over the rows: its class readings are to be
    /// read ([`MatrixStage::classes`]) and assembled ([`MatrixStage::finish`]).
    Matrix(MatrixStage<'a>),
    /// Any other set, audited (and its subset, when one was asked for).
    Done(Audit, Option<Audit>),
}

/// What to compute.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditSettings {
    /// Bin counts for the ECE-family tables (each ≥ 1).
    pub m_values: Vec<usize>,
    /// Bin count of the reliability tables (both binnings).
    pub reliability_bins: usize,
    /// Clopper–Pearson level `1 - alpha`.
    pub alpha: f64,
    /// Also compute the ROC/cwROC curve of class 1 (binary sets).
    pub roc_curve: bool,
}

impl Default for AuditSettings {
    fn default() -> Self {
        AuditSettings {
            m_values: vec![15],
            reliability_bins: 10,
            alpha: reliability::DEFAULT_ALPHA,
            roc_curve: false,
        }
    }
}

/// The ECE family of one reading at every requested `(binning, m)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadingReport {
    /// The reading's Brier score `(1/n) Σ (u - o)²`.
    pub brier: Option<f64>,
    /// `(binning, m) → metrics`, in the order of `Binning::ALL × m_values`.
    pub tables: Vec<(Binning, usize, BinnedMetrics)>,
    /// Reliability tables at `reliability_bins`, width then mass.
    pub reliability: Vec<(Binning, Vec<ReliabilityRow>)>,
}

impl ReadingReport {
    /// The metrics at `(binning, m)` if they were computed.
    pub fn at(&self, binning: Binning, m: usize) -> Option<&BinnedMetrics> {
        self.tables
            .iter()
            .find(|(b, mm, _)| *b == binning && *mm == m)
            .map(|(_, _, t)| t)
    }
}

/// One class's one-vs-rest reading `(p^(r), 1[y = r])`.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassReport {
    /// The ECE family of `(p^(r), 1[y = r])`.
    pub reading: ReadingReport,
    /// AUC of `p^(r)`; `None` when the class has no positive or no negative.
    pub auc: Option<f64>,
    /// cwAUC of `p^(r)` weighted by the clipped top-label confidences.
    pub cwauc: Option<f64>,
}

/// Every number of a single-model audit.
#[derive(Clone, Debug, PartialEq)]
pub struct Audit {
    /// Number of samples.
    pub n: usize,
    /// Number of classes.
    pub k: usize,
    /// Binary, multiclass or top-label.
    pub kind: Kind,
    /// Probabilities, logits or top-label.
    pub source: Source,
    /// Score columns as given (1, k or 0).
    pub columns: usize,
    /// Argmax accuracy (binary: predict 1 iff `u >= 0.5`).
    pub accuracy: Option<f64>,
    /// Mean `l_conf`.
    pub l_conf: Option<f64>,
    /// NLL (`None` for top-label sets).
    pub nll: Option<f64>,
    /// Multiclass Brier in `[0, 2]` (`None` for top-label sets).
    pub brier_multiclass: Option<f64>,
    /// The confidence (top-label) reading.
    pub confidence: ReadingReport,
    /// One report per class (empty for top-label sets). For binary sets class 1 is
    /// the positive-class reading.
    pub classes: Vec<ClassReport>,
    /// CSR, σ_CSR, P_risk, cwA and gain of the confidence reading.
    pub risk: RiskMetrics,
    /// `(confidence-weighted, counts)` per class (empty for top-label sets).
    pub confusion: Vec<(Confusion, Confusion)>,
    /// ROC / cwROC of class 1 (binary sets, when asked): `Some(None)` when the curve is
    /// undefined (class 1 has no positive or no negative sample, see [`auc::roc`]).
    pub roc_class1: Option<auc::Roc>,
}

impl Audit {
    /// Computes the audit of `set` (which must be valid: see
    /// [`PredictionSet::validate`]). An empty set yields `None` metrics throughout.
    ///
    /// Runs the fast path (module `fast`: one sort per reading, or a single sort for
    /// binary one-column sets, prefix sums kept at the needed bin starts only);
    /// its results are those of [`Audit::compute_general`] bit for bit (property
    /// tests hold them equal).
    pub fn compute(set: &PredictionSet, settings: &AuditSettings) -> Audit {
        fast::compute(set, settings).unwrap_or_else(|| Self::compute_general(set, settings))
    }

    /// The audit of `set` in stages, for a caller that reads a matrix's classes in
    /// ranges on several threads ([`MatrixStage`]); any other set (and an empty
    /// one, or one too large for the fast path) comes back audited. Either way the
    /// result is [`Audit::compute`]'s, bit for bit.
    pub fn staged<'a>(set: &'a PredictionSet, settings: &'a AuditSettings) -> Staged<'a> {
        Self::staged_with_subset(set, settings, None)
    }

    /// [`Audit::staged`], and with `subset = (rows, its set, its settings)` the audit
    /// of the subset of the rows `rows` (ascending; `its set` being
    /// [`reading::subset`] of `set` and `rows`): `Audit::compute(its set, its
    /// settings)`, bit for bit, made in the whole set's passes when both are matrix
    /// sets the fast path takes (no sort, no pass over the rows of its own: the
    /// evaluation split's "before" ledger beside the audit of the whole set), on
    /// its own otherwise. Panics when `rows` is not ascending or does not match.
    pub fn staged_with_subset<'a>(
        set: &'a PredictionSet,
        settings: &'a AuditSettings,
        subset: Option<(&[usize], &'a PredictionSet, &'a AuditSettings)>,
    ) -> Staged<'a> {
        // (wasm32 has no fused subsets: see `matrix::Subset`)
        let fused = subset
            .is_none_or(|(_, sub, _)| matrix::stages(sub) && cfg!(not(target_arch = "wasm32")));
        if matrix::stages(set) && fused {
            Staged::Matrix(MatrixStage::with_subset(set, settings, subset))
        } else {
            Staged::Done(
                Self::compute(set, settings),
                subset.map(|(_, sub, s)| Self::compute(sub, s)),
            )
        }
    }

    /// [`Audit::compute`] of `set`, and per class `r` whether `set`'s column `r` sorts
    /// the samples as `reference`'s column `r` does (ascending, ties by index: the
    /// `argsort_identical_per_class` of [`crate::recal::checks::order_checks`] of
    /// `reference`'s set before and `set` after a map). On the fast path of a matrix
    /// the order is checked in each class's sorted walk, which the audit makes
    /// anyway, asking `reference` for scores only until the first change (no sort of
    /// its own); other sets are compared by [`crate::recal::checks::class_orders`].
    /// Top-label sets have no classes: the list is empty. Panics when `reference`
    /// has another `n` or `k`.
    pub fn compute_with_orders(
        set: &PredictionSet,
        settings: &AuditSettings,
        reference: &ProbView<'_>,
    ) -> (Audit, Vec<bool>) {
        let other = reference.set();
        assert!(
            other.n() == set.n() && other.k == set.k,
            "the reference views the same rows"
        );
        matrix::compute_with_orders(set, settings, reference).unwrap_or_else(|| {
            let orders = ProbView::new(set)
                .map(|view| crate::recal::checks::class_orders(reference, &view))
                .unwrap_or_default();
            (Self::compute(set, settings), orders)
        })
    }

    /// The audit by the general path: every reading materialised as pairs, sorted
    /// on its own and indexed with full prefix sums. The reference the fast path is
    /// tested against; [`Audit::compute`] is the one to call.
    pub fn compute_general(set: &PredictionSet, settings: &AuditSettings) -> Audit {
        let top = reading::top_labels(set);
        let confidence = reading_report(&top.pairs(), settings, None);
        let risk = beyond::risk_metrics(&top);
        let view = ProbView::new(set);
        let weights: Vec<f64> = top
            .confidence
            .iter()
            .map(|&c| beyond::clip_confidence(c))
            .collect();
        let mut roc_class1 = None;
        let classes = match &view {
            None => Vec::new(),
            Some(view) => (0..set.k)
                .map(|r| {
                    let pairs = reading::class_pairs(view, r);
                    let column = auc::SortedColumn::new(&pairs.forecast, &pairs.outcome, &weights);
                    let positive_reading = set.kind() == Kind::Binary && r == 1;
                    if positive_reading && settings.roc_curve {
                        roc_class1 = Some(auc::roc(&column));
                    }
                    ClassReport {
                        auc: auc::auc(&column),
                        cwauc: auc::weighted_auc(&column),
                        reading: reading_report(&pairs, settings, Some((column, positive_reading))),
                    }
                })
                .collect(),
        };
        let confusion = match view {
            None => Vec::new(),
            Some(_) => beyond::confusion_per_class(&top, &set.labels, set.k),
        };
        Audit {
            n: set.n(),
            k: set.k,
            kind: set.kind(),
            source: set.source(),
            columns: set.columns(),
            accuracy: crate::truthful::accuracy(&top),
            l_conf: crate::truthful::l_conf(&top),
            nll: nll(set),
            // Σ_r of the class readings' Brier scores is the multiclass Brier score
            brier_multiclass: brier_sum(&classes),
            confidence,
            classes,
            risk,
            confusion,
            roc_class1,
        }
    }

    /// The positive-class reading (binary sets).
    pub fn positive(&self) -> Option<&ReadingReport> {
        (self.kind == Kind::Binary).then(|| &self.classes[1].reading)
    }

    /// Macro one-vs-rest AUC over the classes where it is defined.
    pub fn auc_macro(&self) -> Option<f64> {
        let v: Vec<_> = self.classes.iter().map(|c| c.auc).collect();
        auc::macro_average(&v)
    }

    /// Macro cwAUC over the classes where it is defined.
    pub fn cwauc_macro(&self) -> Option<f64> {
        let v: Vec<_> = self.classes.iter().map(|c| c.cwauc).collect();
        auc::macro_average(&v)
    }

    /// ConfCE^corr at `(binning, m)`.
    pub fn confce_corr(&self, binning: Binning, m: usize) -> Option<f64> {
        let t = self.confidence.at(binning, m)?;
        crate::truthful::confce_corrected(t.lince, self.n, self.accuracy_of_confidence())
    }

    /// Mean correctness of the confidence reading (= `accuracy`).
    pub fn accuracy_of_confidence(&self) -> Option<f64> {
        self.risk.acc
    }

    /// Classwise averages at `(binning, m)` over all k classes (see [`Classwise`]).
    pub fn classwise(&self, binning: Binning, m: usize) -> Option<Classwise> {
        if self.classes.is_empty() {
            return None;
        }
        let per: Vec<&BinnedMetrics> = self
            .classes
            .iter()
            .map(|c| c.reading.at(binning, m))
            .collect::<Option<_>>()?;
        let mean = |f: &dyn Fn(&BinnedMetrics) -> Option<f64>| -> Option<f64> {
            let v: Option<Vec<f64>> = per.iter().map(|t| f(t)).collect();
            Some(crate::sum::sum(v?) / per.len() as f64)
        };
        let total = |f: &dyn Fn(usize) -> Option<f64>| -> Option<f64> {
            let v: Option<Vec<f64>> = (0..per.len()).map(f).collect();
            Some(crate::sum::sum(v?))
        };
        Some(Classwise {
            cwece: mean(&|t| t.ece),
            lince_cw: mean(&|t| t.lince),
            cwmce_mean: mean(&|t| t.mce),
            cwrmsce_mean: mean(&|t| t.rmsce),
            brier_sum: total(&|r| self.classes[r].reading.brier),
            cal_sum: total(&|r| per[r].cal),
            ref_sum: total(&|r| per[r].refinement),
            res_sum: total(&|r| per[r].res(self.classes[r].reading.brier)),
        })
    }
}

/// Classwise averages over all k classes (classes that never occur included):
/// `cwECE = (1/k) Σ_r ECE(class r)`, `LinCE^cw = (1/k) Σ_r LinCE(class r)`, the mean
/// MCE and RMSCE, and the sums of the per-class Brier decompositions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Classwise {
    /// `(1/k) Σ_r ECE_r`.
    pub cwece: Option<f64>,
    /// `(1/k) Σ_r LinCE_r`.
    pub lince_cw: Option<f64>,
    /// `(1/k) Σ_r MCE_r`.
    pub cwmce_mean: Option<f64>,
    /// `(1/k) Σ_r RMSCE_r`.
    pub cwrmsce_mean: Option<f64>,
    /// `Σ_r Brier_r` (= multiclass Brier).
    pub brier_sum: Option<f64>,
    /// `Σ_r CAL_r`.
    pub cal_sum: Option<f64>,
    /// `Σ_r REF_r`.
    pub ref_sum: Option<f64>,
    /// `Σ_r RES_r`.
    pub res_sum: Option<f64>,
}

/// The ECE family of one reading; `sorted` is the reading already sorted and
/// whether to add reliability tables (the confidence reading always has them).
fn reading_report(
    pairs: &reading::Pairs,
    settings: &AuditSettings,
    sorted: Option<(auc::SortedColumn, bool)>,
) -> ReadingReport {
    let (sorted, with_reliability) = match sorted {
        Some((column, reliability)) => (
            SortedReading::from_sorted(column.forecast, &column.positive),
            reliability,
        ),
        None => (SortedReading::new(pairs), true),
    };
    fast::reading_report(&sorted, binning::brier(pairs), settings, with_reliability)
}

/// Clip applied to the probability of the true class before `-ln` (METRICS.md §3).
pub const NLL_CLIP: f64 = 1e-15;

/// The negative log-likelihood (METRICS.md §3): the mean of [`nll_terms`]. `None`
/// for top-label sets and empty sets.
pub fn nll(set: &PredictionSet) -> Option<f64> {
    let n = set.n();
    if n == 0 {
        return None;
    }
    let mut total = Sum::new();
    nll_terms(set, |t| total.add(t))?;
    Some(total.value() / n as f64)
}

/// Calls `visit` with each row's negative log-likelihood term, in row order: from
/// logits, `logsumexp(z_i) - z_i^(y_i)` (binary one-column: `softplus(-y± s)`); from
/// probabilities, `-ln clip(p_i^(y_i), 1e-15, 1 - 1e-15)`. `None` (nothing visited)
/// for top-label sets.
pub fn nll_terms(set: &PredictionSet, mut visit: impl FnMut(f64)) -> Option<()> {
    match &set.scores {
        Scores::TopLabel { .. } => return None,
        Scores::Column {
            values,
            source: Source::Logits,
        } => {
            for (i, &y) in set.labels.iter().enumerate() {
                let sign = if y == 1 { 1.0 } else { -1.0 };
                visit(reading::softplus(-sign * values.get(i)));
            }
        }
        Scores::Matrix {
            values,
            k,
            source: Source::Logits,
        } => {
            let view = ProbView::new(set)?;
            for (i, &y) in set.labels.iter().enumerate() {
                visit(view.log_sum_exp(i)? - values.get(i * k + y as usize));
            }
        }
        _ => {
            let view = ProbView::new(set)?;
            for (i, &y) in set.labels.iter().enumerate() {
                let p = view.prob(i, y as usize).clamp(NLL_CLIP, 1.0 - NLL_CLIP);
                visit(-p.ln());
            }
        }
    }
    Some(())
}

/// Multiclass Brier from the class readings ([`crate::truthful::brier_multiclass`]).
fn brier_sum(classes: &[ClassReport]) -> Option<f64> {
    crate::truthful::brier_multiclass(classes.iter().map(|c| c.reading.brier))
}
