//! The fast path's audit of a score matrix, in stages: one pass over the rows
//! ([`MatrixStage::new`]: softmax row, top label, NLL, the confidence reading), then
//! the class readings ([`MatrixStage::classes`], any ranges of classes, each with
//! buffers of its own, so ranges can run on several threads), then
//! [`MatrixStage::finish`]. [`Audit::compute`] runs them one after the other with
//! no copy ([`MatrixStage::finish_alone`]); the result is the same, bit for bit,
//! however the classes are cut.

use super::fast::{
    assemble, confidence_reading, outcome_of, payload, plans, sq, takes, visit_sorted, ClassPass,
    ConfidenceSums, Parts, CHUNK, INDEX,
};
use super::{Audit, AuditSettings, ClassReport, ReadingReport, NLL_CLIP};
use crate::auc::Roc;
use crate::beyond::{self, ConfusionAccumulator};
use crate::binning::BinPlan;
use crate::data::{PredictionSet, Real, Scores, Source};
use crate::math::exp;
use crate::radix::{self, RadixSorter};
use crate::reading::{self, ProbView};
use crate::recal::checks::OrderWalk;
use crate::sum::Sum;
use std::ops::Range;

mod subset;
use subset::{Subset, SubsetRows};

/// Whether [`MatrixStage`] takes `set`: a matrix set the fast path takes.
pub(super) fn stages(set: &PredictionSet) -> bool {
    takes(set) && matches!(set.scores, Scores::Matrix { .. })
}

/// The sample-order sums of a matrix set.
struct MatrixSums {
    confidence: ConfidenceSums,
    confusion: ConfusionAccumulator,
    nll: Sum,
}

impl MatrixSums {
    fn new(k: usize) -> Self {
        MatrixSums {
            confidence: ConfidenceSums::default(),
            confusion: ConfusionAccumulator::new(k),
            nll: Sum::new(),
        }
    }

    /// Adds sample `i` (top label `r`, confidence `c`, label `y`) and returns its
    /// sort item in the confidence reading.
    #[inline(always)]
    fn add(&mut self, i: usize, r: u32, c: f64, y: u32, nll_term: f64) -> u64 {
        let z = r == y;
        self.confidence.add(c, z);
        self.confusion.add(r, c, y);
        self.nll.add(nll_term);
        radix::item(radix::order_key(c), payload(i, z))
    }
}

/// A matrix audit after its pass over the rows; see the module docs.
///
/// Per sample it keeps `(p, s)`: a slot for the probability of the class being
/// read (the sorted pass gathers it with `s`, one cache miss per sample) and, for
/// logits, the row's `Σ exp(z - max)` (the top-label confidence is
/// `exp(max - max) / sum = 1 / sum`: the top class holds the max logit, and for
/// `k = 2` the prediction `p1 >= 0.5` picks it too) or, for probabilities, the
/// clipped confidence; for logits also the row's max (a stored scalar, widened to
/// `f64` so the class passes read it without a branch). 24 bytes a sample, 40 with
/// the sort items and their scratch while one range of classes is read in place
/// (as [`Audit::compute`] does); each [`MatrixStage::classes`] call copies the
/// 16-byte state for its own range.
pub struct MatrixStage<'a> {
    set: &'a PredictionSet,
    settings: &'a AuditSettings,
    sums: MatrixSums,
    confidence: ReadingReport,
    state: Vec<(f64, f64)>,
    maxima: Option<Vec<f64>>,
    plans: (BinPlan, BinPlan),
    subset: Option<Subset<'a>>,
}

/// The class readings of one range of classes ([`MatrixStage::classes`]).
pub struct ClassChunk {
    classes: Range<usize>,
    reports: Vec<ClassReport>,
    roc_class1: Option<Roc>,
    orders: Vec<bool>,
    /// The subset's class readings of the same range.
    subset: Option<(Vec<ClassReport>, Option<Roc>)>,
}

/// What [`MatrixStage::finish`] gives.
pub struct Finished {
    /// The audit.
    pub audit: Audit,
    /// The order checks of the class readings (empty without a reference).
    pub orders: Vec<bool>,
    /// The audit of the subset, when the stage had one.
    pub subset: Option<Audit>,
}

impl<'a> MatrixStage<'a> {
    /// The pass over the rows and the confidence reading of `set`, a matrix set the
    /// fast path takes (at least one sample, fewer than `2^31`). Panics on other
    /// sets.
    pub(super) fn new(set: &'a PredictionSet, settings: &'a AuditSettings) -> Self {
        Self::with_subset(set, settings, None)
    }

    /// [`MatrixStage::new`], and with `subset = (rows, its set, its settings)` the
    /// audit of the subset of the rows `rows` (ascending; `its set` being
    /// [`reading::subset`] of `set` and `rows`, not empty) in the same passes: its
    /// result is `Audit::compute(its set, its settings)`, bit for bit. Panics when
    /// the rows are not ascending or do not match the subset's size and `k`.
    pub(super) fn with_subset(
        set: &'a PredictionSet,
        settings: &'a AuditSettings,
        subset: Option<(&[usize], &'a PredictionSet, &'a AuditSettings)>,
    ) -> Self {
        assert!(stages(set), "not a matrix set the fast path takes");
        let Scores::Matrix { values, source, .. } = &set.scores else {
            unreachable!("a matrix set")
        };
        if let Some((rows, sub, _)) = subset {
            assert!(stages(sub) && sub.n() == rows.len() && sub.k == set.k);
            assert!(rows.windows(2).all(|w| w[0] < w[1]) && rows.last() < Some(&set.n()));
        }
        match source {
            Source::Logits => {
                crate::with_values!(values, |v| Self::logits(set, v, settings, subset))
            }
            _ => Self::probabilities(set, settings, subset),
        }
    }

    fn logits<T: Real>(
        set: &'a PredictionSet,
        v: &[T],
        settings: &'a AuditSettings,
        subset: Option<(&[usize], &'a PredictionSet, &'a AuditSettings)>,
    ) -> Self {
        let (n, k, labels) = (set.n(), set.k, &set.labels);
        let (class_plan, reliability_plan) = plans(n, settings);
        let mut sums = MatrixSums::new(k);
        let mut state: Vec<(f64, f64)> = Vec::with_capacity(n);
        let mut maxima: Vec<f64> = Vec::with_capacity(n);
        let mut items = Vec::with_capacity(n);
        let mut sub = SubsetRows::new(subset, k);
        for (i, (row, &y)) in v.chunks_exact(k).zip(labels).enumerate() {
            let (max, sum) = reading::softmax_row(row);
            let stored_max = row
                .iter()
                .copied()
                .fold(row[0], |a, b| if b > a { b } else { a });
            debug_assert_eq!(stored_max.to_f64(), max);
            state.push((0.0, sum));
            maxima.push(stored_max.to_f64());
            // as ProbView::top and ProbView::log_sum_exp
            let (r, c) = if k == 2 {
                let p1 = exp(row[1].to_f64() - max) / sum;
                if p1 >= 0.5 {
                    (1, p1)
                } else {
                    (0, exp(row[0].to_f64() - max) / sum)
                }
            } else {
                reading::top_of_logit_row(row, max, sum)
            };
            debug_assert_eq!(c, 1.0 / sum);
            let nll = (max + sum.ln()) - row[y as usize].to_f64();
            items.push(sums.add(i, r, c, y, nll));
            sub.add(i, r, c, y, nll);
        }
        let mut sorter = RadixSorter::new();
        let confidence = confidence_reading(
            &mut sorter,
            &mut items,
            |i| 1.0 / state[i].1,
            &reliability_plan,
            settings,
        );
        drop(items);
        let subset = sub.finish(subset, &mut sorter, |i| 1.0 / state[i].1, n);
        MatrixStage {
            set,
            settings,
            sums,
            confidence,
            state,
            maxima: Some(maxima),
            plans: (class_plan, reliability_plan),
            subset,
        }
    }

    fn probabilities(
        set: &'a PredictionSet,
        settings: &'a AuditSettings,
        subset: Option<(&[usize], &'a PredictionSet, &'a AuditSettings)>,
    ) -> Self {
        let (n, k, labels) = (set.n(), set.k, &set.labels);
        let (class_plan, reliability_plan) = plans(n, settings);
        let view = ProbView::new(set).expect("a matrix has probabilities");
        let mut sums = MatrixSums::new(k);
        let mut confidence = Vec::with_capacity(n);
        let mut items = Vec::with_capacity(n);
        let mut sub = SubsetRows::new(subset, k);
        for (i, &y) in labels.iter().enumerate() {
            let (r, c) = view.top(i);
            let p = view.prob(i, y as usize).clamp(NLL_CLIP, 1.0 - NLL_CLIP);
            confidence.push(c);
            items.push(sums.add(i, r, c, y, -p.ln()));
            sub.add(i, r, c, y, -p.ln());
        }
        let mut sorter = RadixSorter::new();
        let confidence_report = confidence_reading(
            &mut sorter,
            &mut items,
            |i| confidence[i],
            &reliability_plan,
            settings,
        );
        drop(items);
        let subset = sub.finish(subset, &mut sorter, |i| confidence[i], n);
        let state = confidence
            .iter()
            .map(|&c| (0.0, beyond::clip_confidence(c)))
            .collect();
        MatrixStage {
            set,
            settings,
            sums,
            confidence: confidence_report,
            state,
            maxima: None,
            plans: (class_plan, reliability_plan),
            subset,
        }
    }

    /// Number of classes.
    pub fn k(&self) -> usize {
        self.set.k
    }

    /// The class readings of `classes` (a range within `0..k`), with buffers of
    /// their own (a copy of the per-sample state: 16 bytes a sample, plus the sort
    /// items and scratch), so several ranges can be read at once. With a
    /// `reference` view of the same rows, also whether each class's sorted order
    /// is the reference's (see [`Audit::compute_with_orders`]).
    pub fn classes(&self, classes: Range<usize>, reference: Option<&ProbView<'_>>) -> ClassChunk {
        let mut state = self.state.clone();
        self.classes_with(&mut state, classes, reference)
    }

    fn classes_with(
        &self,
        state: &mut [(f64, f64)],
        classes: Range<usize>,
        reference: Option<&ProbView<'_>>,
    ) -> ClassChunk {
        assert!(classes.end <= self.k(), "classes out of range");
        if let Some(reference) = reference {
            let other = reference.set();
            assert!(other.n() == self.set.n() && other.k == self.set.k);
        }
        let Scores::Matrix { values, .. } = &self.set.scores else {
            unreachable!("a matrix stage has a matrix")
        };
        let mut chunk = ClassChunk {
            classes: classes.clone(),
            reports: Vec::with_capacity(classes.len()),
            roc_class1: None,
            orders: Vec::with_capacity(if reference.is_some() {
                classes.len()
            } else {
                0
            }),
            subset: self.subset.as_ref().map(|_| (Vec::new(), None)),
        };
        let mut visit = |reports: (ClassReport, Option<ClassReport>),
                         roc: (Option<Roc>, Option<Roc>),
                         order: Option<bool>| {
            chunk.roc_class1 = roc.0.or(chunk.roc_class1.take());
            chunk.reports.push(reports.0);
            chunk.orders.extend(order);
            if let (Some((sub_reports, sub_roc)), Some(report)) = (&mut chunk.subset, reports.1) {
                *sub_roc = roc.1.or(sub_roc.take());
                sub_reports.push(report);
            }
        };
        let reading = ClassRange {
            classes,
            plans: &self.plans,
            settings: self.settings,
            reference,
            subset: self.subset.as_ref(),
        };
        match &self.maxima {
            Some(maxima) => crate::with_values!(values, |v| reading.run(
                v,
                &self.set.labels,
                state,
                Some(maxima),
                |s| (s.0, beyond::clip_confidence(1.0 / s.1)),
                &mut visit,
            )),
            None => crate::with_values!(values, |v| reading.run(
                v,
                &self.set.labels,
                state,
                None,
                |&s| s,
                &mut visit,
            )),
        }
        chunk
    }

    /// The audit from the class readings of `chunks`, which must cover `0..k` in
    /// order, and the order checks they made (empty without a reference). Panics
    /// otherwise.
    pub fn finish(self, chunks: Vec<ClassChunk>) -> Finished {
        let mut next = 0;
        let (mut classes, mut orders, mut roc_class1) = (Vec::new(), Vec::new(), None);
        let (mut sub_classes, mut sub_roc) = (Vec::new(), None);
        for chunk in chunks {
            assert_eq!(
                chunk.classes.start, next,
                "chunks cover the classes in order"
            );
            next = chunk.classes.end;
            classes.extend(chunk.reports);
            orders.extend(chunk.orders);
            roc_class1 = roc_class1.or(chunk.roc_class1);
            if let Some((reports, roc)) = chunk.subset {
                sub_classes.extend(reports);
                sub_roc = sub_roc.or(roc);
            }
        }
        assert_eq!(next, self.k(), "chunks cover every class");
        let subset = self
            .subset
            .map(|sub| assembled(sub.set, sub.sums, sub.confidence, sub_classes, sub_roc));
        Finished {
            audit: assembled(self.set, self.sums, self.confidence, classes, roc_class1),
            orders,
            subset,
        }
    }

    /// Every class read on this thread in the stage's own state (no copy), then
    /// [`MatrixStage::finish`].
    pub(super) fn finish_alone(mut self, reference: Option<&ProbView<'_>>) -> Finished {
        let mut state = std::mem::take(&mut self.state);
        let chunk = self.classes_with(&mut state, 0..self.k(), reference);
        drop(state);
        self.finish(vec![chunk])
    }
}

/// The audit of a matrix set from its sums, confidence reading and class readings.
fn assembled(
    set: &PredictionSet,
    sums: MatrixSums,
    confidence: ReadingReport,
    classes: Vec<ClassReport>,
    roc_class1: Option<Roc>,
) -> Audit {
    assemble(
        set,
        Parts {
            sums: sums.confidence,
            confidence,
            classes,
            confusion: sums.confusion.finish(),
            nll: Some(sums.nll.value() / set.n() as f64),
            roc_class1,
        },
    )
}

/// Rows per block of a class's pass over the rows: the block's probabilities are
/// computed in a loop of their own, then stored, summed and pushed.
const ROW_BLOCK: usize = 64;

/// What a range of class readings needs besides the scores and the state.
struct ClassRange<'s, 'r> {
    classes: Range<usize>,
    plans: &'s (BinPlan, BinPlan),
    settings: &'s AuditSettings,
    reference: Option<&'r ProbView<'r>>,
    subset: Option<&'s Subset<'s>>,
}

impl<'s> ClassRange<'s, '_> {
    /// The class readings of the range, in class order: `visit(report, roc,
    /// order)`. Per sample `i`, the score `z` of class `r` becomes its probability
    /// (kept in the state's slot): `exp(z - maxima[i]) / state[i].1` for logits (the
    /// row maxima given), `z` itself for probabilities (`None`); `fetch` returns
    /// `(probability, weight)` from the state for the pass in sorted order (one
    /// cache miss per sample). With a reference view of the same rows, `order` is
    /// whether the class's sorted order is also the order of the reference's
    /// column: checked in the same walk, asking the reference for a score only
    /// until the first step down ([`OrderWalk`]).
    fn run<T: Real>(
        &self,
        v: &[T],
        labels: &[u32],
        state: &mut [(f64, f64)],
        maxima: Option<&[f64]>,
        fetch: impl Fn(&(f64, f64)) -> (f64, f64),
        visit: &mut impl FnMut(
            (ClassReport, Option<ClassReport>),
            (Option<Roc>, Option<Roc>),
            Option<bool>,
        ),
    ) {
        let n = labels.len();
        let k = v.len() / n;
        let positive = |r: usize| k == 2 && r == 1;
        let pass = |plans: &'s (BinPlan, BinPlan), settings: &AuditSettings, r: usize| {
            let plan = if positive(r) { &plans.1 } else { &plans.0 };
            ClassPass::new(plan, positive(r), positive(r) && settings.roc_curve)
        };
        let mut sorter = RadixSorter::new();
        let mut items = Vec::with_capacity(n);
        let mut buffer = Vec::with_capacity(CHUNK);
        let mut block = [0.0; ROW_BLOCK];
        for r in self.classes.clone() {
            items.clear();
            let (mut brier, mut sub_brier) = (Sum::new(), Sum::new());
            for start in (0..n).step_by(ROW_BLOCK) {
                let end = (start + ROW_BLOCK).min(n);
                let block = &mut block[..end - start];
                let scores = v[start * k..end * k].chunks_exact(k);
                match maxima {
                    // p = softmax(z)_r as ProbView::class_column: a loop of its own
                    // (no branch, so the exponentials of several rows overlap)
                    Some(maxima) => {
                        let rows = scores.zip(&state[start..end]).zip(&maxima[start..end]);
                        for (p, ((z, s), &max)) in block.iter_mut().zip(rows) {
                            *p = exp(z[r].to_f64() - max) / s.1;
                        }
                    }
                    None => {
                        for (p, z) in block.iter_mut().zip(scores) {
                            *p = z[r].to_f64();
                        }
                    }
                }
                let rows = (start..end)
                    .zip(&mut state[start..end])
                    .zip(&labels[start..end]);
                for (&u, ((i, s), &y)) in block.iter().zip(rows) {
                    // the next block's scores, while this one is stored
                    reading::prefetch_once(v, (i + ROW_BLOCK) * k + r);
                    s.0 = u;
                    let o = y as usize == r;
                    brier.add(sq(u, o));
                    if self.subset.is_some_and(|sub| sub.has(i)) {
                        sub_brier.add(sq(u, o));
                    }
                    items.push(radix::item(radix::order_key(u), payload(i, o)));
                }
            }
            let mut whole = pass(self.plans, self.settings, r);
            let mut part = self.subset.map(|sub| pass(&sub.plans, sub.settings, r));
            let mut walk = OrderWalk::default();
            visit_sorted(
                &mut sorter,
                &mut items,
                &mut buffer,
                |i| fetch(&state[i]),
                |p, u, w| {
                    whole.push(u, outcome_of(p), w);
                    let i = p & INDEX;
                    if let (Some(part), Some(sub)) = (&mut part, self.subset) {
                        if sub.has(i as usize) {
                            part.push(u, outcome_of(p), w);
                        }
                    }
                    if let Some(reference) = self.reference {
                        walk.push(i, || reference.prob(i as usize, r));
                    }
                },
            );
            let (report, roc) = whole.finish(Some(brier.value() / n as f64), self.settings);
            let (sub_report, sub_roc) = match (part, self.subset) {
                (Some(part), Some(sub)) => {
                    let n_sub = sub.set.n() as f64;
                    let (report, roc) = part.finish(Some(sub_brier.value() / n_sub), sub.settings);
                    (Some(report), roc)
                }
                _ => (None, None),
            };
            visit(
                (report, sub_report),
                (roc, sub_roc),
                self.reference.map(|_| walk.identical()),
            );
        }
    }
}

/// [`super::fast::compute`] of a matrix set (`None` for other sets, or when the
/// fast path does not take it) and per class whether its sorted order is
/// `reference`'s (see [`Audit::compute_with_orders`]).
pub(super) fn compute_with_orders(
    set: &PredictionSet,
    settings: &AuditSettings,
    reference: &ProbView<'_>,
) -> Option<(Audit, Vec<bool>)> {
    if !stages(set) {
        return None;
    }
    let done = MatrixStage::new(set, settings).finish_alone(Some(reference));
    Some((done.audit, done.orders))
}
