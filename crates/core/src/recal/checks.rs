//! What a recalibration map kept and what it changed on the evaluation split,
//! measured on the probabilities (METRICS.md §6, "Invariants"): the same checks for
//! temperature scaling (which must keep the decisions), Platt scaling (which can move
//! the threshold) and isotonic regression (which keeps the order but creates ties).

use crate::auc::{self, AucBuilder};
use crate::data::PredictionSet;
use crate::radix::{self, RadixSorter};
use crate::reading::{self, ProbView};

/// The probability-level comparison of a set before and after a recalibration map.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbChecks {
    /// Rows whose predicted class (argmax, ties to the lowest index) changed.
    pub argmax_changed_rows: usize,
    /// Accuracy before and after (`None` on an empty set).
    pub accuracy: (Option<f64>, Option<f64>),
    /// Per probability column, whether its stable sort order is unchanged.
    pub argsort_identical_per_class: Vec<bool>,
    /// Per class, one-vs-rest AUC of `p^(r)` after minus before (`None` where undefined).
    pub auc_change_per_class: Vec<Option<f64>>,
    /// Macro AUC after minus before.
    pub auc_macro_change: Option<f64>,
    /// Distinct values of the reading the page plots (binary: `p^(1)`; otherwise the
    /// top-label confidence), before and after: fewer after means the map made ties.
    pub distinct_values: (usize, usize),
}

impl ProbChecks {
    /// True when no predicted class changed.
    pub fn argmax_identical(&self) -> bool {
        self.argmax_changed_rows == 0
    }
}

/// Number of distinct values of `v` (bit patterns of the IEEE total order, so `-0.0`
/// and `0.0` are two values; every NaN counted as one). Sorts integer keys: about
/// twice as fast as a comparison sort of the floats.
pub fn distinct_count(v: &[f64]) -> usize {
    let mut keys: Vec<u64> = v
        .iter()
        .map(|x| if x.is_nan() { u64::MAX } else { x.to_bits() })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.len()
}

/// Samples whose scores a walk in sorted order gathers at a time: a loop of
/// independent loads (cache misses overlap) before the dependent work.
const GATHER: usize = 1024;

/// Classes whose columns [`prob_checks`] extracts per pass over the rows.
const CLASS_BLOCK: usize = 16;

/// The sample index in a sort item's payload; the top bit is the outcome.
const INDEX: u32 = 0x7fff_ffff;

/// Whether a sequence of samples, visited in one exact order, is also in ascending
/// order of another score: the samples `(i, b_i)` pushed must rank strictly upwards
/// by `(b + 0.0, i)` (IEEE total order, `-0.0` as `0.0`, ties by index), which is the
/// order [`auc::sort_order`] gives. Two such orders of the same samples are the same
/// permutation exactly when the walk in one of them never goes down in the other,
/// so the walk stops asking for scores at the first step down. An empty or
/// one-sample walk is identical.
#[derive(Clone, Copy, Debug, Default)]
pub struct OrderWalk {
    broken: bool,
    previous: Option<(f64, u32)>,
}

impl OrderWalk {
    /// Visits sample `i` next; `score()` is its score in the other order (not called
    /// once the walk has gone down).
    #[inline(always)]
    pub fn push(&mut self, i: u32, score: impl FnOnce() -> f64) {
        if self.broken {
            return;
        }
        let b = score();
        if let Some((b0, i0)) = self.previous {
            self.broken = !(b0 + 0.0).total_cmp(&(b + 0.0)).then(i0.cmp(&i)).is_lt();
        }
        self.previous = Some((b, i));
    }

    /// True while every step so far went up in the other order.
    #[inline(always)]
    pub fn identical(&self) -> bool {
        !self.broken
    }
}

/// Per class `r`, whether `before`'s and `after`'s columns `r` sort the samples the
/// same way ([`order_checks`]' `argsort_identical_per_class`): one sort per class
/// (the column before) and a walk that stops at its first change. Panics when the
/// views differ in `n` or `k`.
pub fn class_orders(before: &ProbView<'_>, after: &ProbView<'_>) -> Vec<bool> {
    per_class(before, after, false).0
}

/// Per class: whether its order is unchanged and, with `with_auc`, its AUC before
/// and after ([`order_and_auc_with`]), the columns extracted [`CLASS_BLOCK`] classes
/// per pass over the rows.
#[allow(clippy::type_complexity)]
fn per_class(
    before: &ProbView<'_>,
    after: &ProbView<'_>,
    with_auc: bool,
) -> (Vec<bool>, Vec<Option<f64>>, Vec<Option<f64>>) {
    let (set_b, set_a) = (before.set(), after.set());
    assert!(
        set_b.n() == set_a.n() && set_b.k == set_a.k,
        "two views of the same rows"
    );
    let (n, k, labels) = (set_b.n(), set_b.k, &set_b.labels);
    let mut argsort = Vec::with_capacity(k);
    let (mut auc_before, mut auc_after) = (Vec::with_capacity(k), Vec::with_capacity(k));
    let (mut block_before, mut block_after) = (Vec::new(), Vec::new());
    let mut scratch = Scratch::default();
    for start in (0..k).step_by(CLASS_BLOCK) {
        let classes = start..(start + CLASS_BLOCK).min(k);
        before.class_columns(classes.clone(), &mut block_before);
        after.class_columns(classes.clone(), &mut block_after);
        for (j, r) in classes.enumerate() {
            let column = j * n..(j + 1) * n;
            let (identical, b, a) = order_and_auc_with(
                &mut scratch,
                &block_before[column.clone()],
                &block_after[column],
                |i| labels[i] as usize == r,
                with_auc,
            );
            argsort.push(identical);
            auc_before.push(b);
            auc_after.push(a);
        }
    }
    (argsort, auc_before, auc_after)
}

/// The buffers of [`order_and_auc`], reused across the classes.
#[derive(Default)]
struct Scratch {
    sorter: RadixSorter,
    items: Vec<u64>,
    /// `(before, after)` scores of a chunk of items, gathered.
    gathered: Vec<(f64, f64)>,
}

impl Scratch {
    /// Fills `items` with the sort items of `scores` (payload: index, outcome in the
    /// top bit) in exact ascending order, ties by index: the order of
    /// [`auc::sort_order`].
    fn sort(&mut self, scores: &[f64], positive: impl Fn(usize) -> bool) {
        self.items.clear();
        self.items.extend(scores.iter().enumerate().map(|(i, &u)| {
            radix::item(radix::order_key(u), i as u32 | (positive(i) as u32) << 31)
        }));
        self.sorter.sort(&mut self.items);
        radix::for_each_key_run(&mut self.items, |run| {
            radix::fix_run(run, |p| p & INDEX, |p| scores[(p & INDEX) as usize])
        });
    }
}

/// One reading before and after a map: whether its stable sort order is unchanged
/// (`sort_order(before) == sort_order(after)`) and its AUC before and after (outcome
/// `positive(i)`). One sort when the order is unchanged: the order before gives the
/// AUC before and, in the same pass, is checked against the scores after (the
/// order [`auc::sort_order`] gives ranks by `(score, index)`, a strict total order,
/// so it is unchanged exactly when each position ranks strictly below the next
/// after the map too) and gives the AUC after ([`AucBuilder`], identical bit for
/// bit to [`auc::auc`]); otherwise the scores after are sorted as well. Empty
/// columns: unchanged, AUCs `None`. Panics when the lengths differ or there are
/// `2^31` samples or more.
pub fn order_and_auc(
    before: &[f64],
    after: &[f64],
    positive: impl Fn(usize) -> bool + Copy,
) -> (bool, Option<f64>, Option<f64>) {
    order_and_auc_with(&mut Scratch::default(), before, after, positive, true)
}

/// [`order_and_auc`]; without `with_auc` only the order is checked (the walk stops
/// at its first change, nothing is sorted twice) and both AUCs are `None`.
fn order_and_auc_with(
    scratch: &mut Scratch,
    before: &[f64],
    after: &[f64],
    positive: impl Fn(usize) -> bool + Copy,
    with_auc: bool,
) -> (bool, Option<f64>, Option<f64>) {
    assert_eq!(before.len(), after.len());
    assert!(before.len() <= INDEX as usize, "too many samples");
    let push = |b: &mut AucBuilder<false>, u: f64, p: u32| b.push(u, p >> 31 == 1, 1.0);
    let (mut auc_before, mut auc_after) = (AucBuilder::default(), AucBuilder::default());
    let mut walk = OrderWalk::default();
    scratch.sort(before, positive);
    let Scratch {
        items, gathered, ..
    } = &mut *scratch;
    for chunk in items.chunks(GATHER) {
        if !(walk.identical() || with_auc) {
            break;
        }
        gathered.clear();
        gathered.extend(chunk.iter().map(|&x| {
            let i = (radix::payload_of(x) & INDEX) as usize;
            (before[i], after[i])
        }));
        for (&x, &(b, a)) in chunk.iter().zip(gathered.iter()) {
            let p = radix::payload_of(x);
            let i = p & INDEX;
            push(&mut auc_before, b, p);
            if walk.identical() {
                walk.push(i, || a);
                push(&mut auc_after, a, p);
            }
        }
    }
    let identical = walk.identical();
    if !with_auc {
        return (identical, None, None);
    }
    if !identical {
        auc_after = AucBuilder::default();
        scratch.sort(after, positive);
        let Scratch {
            items, gathered, ..
        } = &mut *scratch;
        for chunk in items.chunks(GATHER) {
            gathered.clear();
            gathered.extend(chunk.iter().map(|&x| {
                let i = (radix::payload_of(x) & INDEX) as usize;
                (after[i], 0.0)
            }));
            for (&x, &(a, _)) in chunk.iter().zip(gathered.iter()) {
                push(&mut auc_after, a, radix::payload_of(x));
            }
        }
    }
    (identical, auc_before.finish().0, auc_after.finish().0)
}

/// Compares `before` and `after`, two prediction sets of the same rows and labels
/// (with scores; panics on top-label sets). Empty sets: nothing changed, accuracies
/// and AUCs undefined.
///
/// One softmax per set (the views serve the top labels and the columns), the class
/// columns extracted `CLASS_BLOCK` classes per pass over the rows, and one sort
/// per class when its order is kept ([`order_and_auc`]).
pub fn prob_checks(before: &PredictionSet, after: &PredictionSet) -> ProbChecks {
    let (order, aucs) = compare(before, after, true);
    let (auc_before, auc_after) = aucs.expect("asked for");
    order.with_aucs(&auc_before, &auc_after)
}

/// [`prob_checks`] but the AUCs: what did and did not change in each class's order
/// and in the top labels. Faster: one sort per class, and its walk stops at the first
/// change. [`OrderChecks::with_aucs`] completes it from AUCs computed elsewhere.
pub fn order_checks(before: &PredictionSet, after: &PredictionSet) -> OrderChecks {
    compare(before, after, false).0
}

/// [`order_checks`] of the two views' sets but the per-class orders
/// (`argsort_identical_per_class` is left empty): the top labels' checks, for a
/// caller that learns each class's order elsewhere (the audit of `after` walks every
/// class in its sorted order anyway:
/// [`crate::audit::Audit::compute_with_orders`]) and completes them with
/// [`OrderChecks::with_class_orders`]. Panics when the views differ in `n`.
pub fn top_label_checks(before: &ProbView<'_>, after: &ProbView<'_>) -> OrderChecks {
    let (top_before, top_after) = (
        reading::top_labels_of(before),
        reading::top_labels_of(after),
    );
    assert_eq!(top_before.predicted.len(), top_after.predicted.len());
    let argmax_changed_rows = top_before
        .predicted
        .iter()
        .zip(&top_after.predicted)
        .filter(|(a, b)| a != b)
        .count();
    let distinct_values = if before.k() == 2 {
        (
            distinct_count(&before.class_column(1)),
            distinct_count(&after.class_column(1)),
        )
    } else {
        (
            distinct_count(&top_before.confidence),
            distinct_count(&top_after.confidence),
        )
    };
    let accuracy = |t: &reading::TopLabels| crate::truthful::accuracy(t);
    OrderChecks {
        argmax_changed_rows,
        accuracy: (accuracy(&top_before), accuracy(&top_after)),
        argsort_identical_per_class: Vec::new(),
        distinct_values,
    }
}

/// [`ProbChecks`] without the AUC changes (see [`order_checks`]).
#[derive(Clone, Debug, PartialEq)]
pub struct OrderChecks {
    /// See [`ProbChecks::argmax_changed_rows`].
    pub argmax_changed_rows: usize,
    /// See [`ProbChecks::accuracy`].
    pub accuracy: (Option<f64>, Option<f64>),
    /// See [`ProbChecks::argsort_identical_per_class`].
    pub argsort_identical_per_class: Vec<bool>,
    /// See [`ProbChecks::distinct_values`].
    pub distinct_values: (usize, usize),
}

impl OrderChecks {
    /// These checks with each class's order, `argsort_identical_per_class` (see
    /// [`top_label_checks`]).
    pub fn with_class_orders(self, argsort_identical_per_class: Vec<bool>) -> OrderChecks {
        OrderChecks {
            argsort_identical_per_class,
            ..self
        }
    }

    /// The checks with the one-vs-rest AUC of each class before and after: the
    /// `auc` of each class report of [`crate::audit::Audit::compute`] of the two
    /// sets, which is what [`prob_checks`] computes itself, bit for bit (both are
    /// [`AucBuilder`] over the exact sorted order). Panics when a slice is shorter
    /// than the number of classes.
    pub fn with_aucs(self, before: &[Option<f64>], after: &[Option<f64>]) -> ProbChecks {
        let k = self.argsort_identical_per_class.len();
        let (before, after) = (&before[..k], &after[..k]);
        let auc_change_per_class = after
            .iter()
            .zip(before)
            .map(|(a, b)| a.zip(*b).map(|(a, b)| a - b))
            .collect();
        let auc_macro_change = auc::macro_average(after)
            .zip(auc::macro_average(before))
            .map(|(a, b)| a - b);
        ProbChecks {
            argmax_changed_rows: self.argmax_changed_rows,
            accuracy: self.accuracy,
            argsort_identical_per_class: self.argsort_identical_per_class,
            auc_change_per_class,
            auc_macro_change,
            distinct_values: self.distinct_values,
        }
    }
}

/// The order checks, and with `with_auc` each class's AUC before and after.
#[allow(clippy::type_complexity)]
fn compare(
    before: &PredictionSet,
    after: &PredictionSet,
    with_auc: bool,
) -> (OrderChecks, Option<(Vec<Option<f64>>, Vec<Option<f64>>)>) {
    let (vb, va) = (
        ProbView::new(before).expect("scores"),
        ProbView::new(after).expect("scores"),
    );
    let (argsort, auc_before, auc_after) = per_class(&vb, &va, with_auc);
    let order = top_label_checks(&vb, &va).with_class_orders(argsort);
    (order, with_auc.then_some((auc_before, auc_after)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Scores, Source, Values};

    fn binary(p: &[f64], y: &[u32]) -> PredictionSet {
        PredictionSet {
            labels: y.to_vec(),
            scores: Scores::Column {
                values: Values::F64(p.to_vec()),
                source: Source::Probs,
            },
            k: 2,
        }
    }

    #[test]
    fn ties_and_threshold_moves_are_seen() {
        let y = [0, 1, 0, 1];
        let before = binary(&[0.1, 0.4, 0.6, 0.9], &y);
        // a shift across 0.5 and a tie
        let after = binary(&[0.3, 0.6, 0.6, 0.9], &y);
        let c = prob_checks(&before, &after);
        assert_eq!(c.argmax_changed_rows, 1);
        assert!(!c.argmax_identical());
        assert_eq!(c.accuracy, (Some(0.5), Some(0.75)));
        assert_eq!(c.distinct_values, (4, 3));
        // AUC before 3/4, after: pairs (1,0),(1,2 tie),(3,0),(3,2) = 3.5/4
        assert_eq!(c.auc_change_per_class[1], Some(0.875 - 0.75));
        assert_eq!(c.argsort_identical_per_class, vec![false, true]);
        let same = prob_checks(&before, &before);
        assert!(same.argmax_identical());
        assert_eq!(same.auc_macro_change, Some(0.0));
        assert_eq!(distinct_count(&[f64::NAN, f64::NAN, 1.0]), 2);
        let empty = binary(&[], &[]);
        let e = prob_checks(&empty, &empty);
        assert_eq!(e.accuracy, (None, None));
        assert_eq!(e.auc_change_per_class, vec![None, None]);
    }
}

#[cfg(test)]
mod oracle {
    use super::*;
    use crate::auc::SortedColumn;
    use crate::data::{Scores, Source, Values};
    use crate::split::SplitMix64;

    /// The reference: two full sorts and `auc` on gathered columns.
    fn reference(b: &[f64], a: &[f64], y: &[bool]) -> (bool, Option<f64>, Option<f64>) {
        let ones = vec![1.0; b.len()];
        (
            auc::sort_order(b) == auc::sort_order(a),
            auc::auc(&SortedColumn::new(b, y, &ones)),
            auc::auc(&SortedColumn::new(a, y, &ones)),
        )
    }

    #[test]
    fn order_and_auc_matches_two_sorts() {
        let mut rng = SplitMix64::new(7);
        let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        for n in [0usize, 1, 2, 7, 600, 5000] {
            for case in 0..6 {
                // coarse values make ties; -0.0 sorts with +0.0
                let b: Vec<f64> = (0..n)
                    .map(|i| match case % 3 {
                        0 => (unit() * 20.0).floor() / 20.0,
                        1 if i % 5 == 0 => -0.0,
                        _ => unit(),
                    })
                    .collect();
                let a: Vec<f64> = match case {
                    // monotone maps keep the order, a rounding one creates ties
                    0 | 1 => b.iter().map(|v| v * 0.5 + 0.1).collect(),
                    2 => b.iter().map(|v| (v * 4.0).round()).collect(),
                    3 => b.iter().map(|v| 1.0 - v).collect(),
                    _ => b.iter().map(|_| unit()).collect(),
                };
                let y: Vec<bool> = (0..n).map(|_| unit() < 0.3).collect();
                let got = order_and_auc(&b, &a, |i| y[i]);
                assert_eq!(got, reference(&b, &a, &y), "n {n} case {case}");
            }
        }
    }

    #[test]
    fn class_blocks_match_the_columns() {
        let mut rng = SplitMix64::new(3);
        let (n, k) = (50, 37);
        let z: Vec<f32> = (0..n * k)
            .map(|_| ((rng.next_u64() >> 40) as f32 / 1e5) - 80.0)
            .collect();
        let set = PredictionSet {
            labels: (0..n as u32).map(|i| i % k as u32).collect(),
            scores: Scores::Matrix {
                values: Values::F32(z),
                k,
                source: Source::Logits,
            },
            k,
        };
        let view = ProbView::new(&set).unwrap();
        let mut block = Vec::new();
        view.class_columns(5..26, &mut block);
        for (j, r) in (5..26).enumerate() {
            let column: Vec<f64> = (0..n).map(|i| view.prob(i, r)).collect();
            assert_eq!(&block[j * n..(j + 1) * n], column.as_slice());
        }
        // the blocked checks (k = 37: a partial last block) equal the reference
        let Scores::Matrix { values, .. } = &set.scores else {
            unreachable!()
        };
        let scaled = (0..n * k).map(|j| values.get(j) / 0.37).collect();
        let after = PredictionSet {
            scores: Scores::Matrix {
                values: Values::F64(scaled),
                k,
                source: Source::Logits,
            },
            ..set.clone()
        };
        let c = prob_checks(&set, &after);
        let view_after = ProbView::new(&after).unwrap();
        for r in 0..k {
            let y: Vec<bool> = set.labels.iter().map(|&l| l as usize == r).collect();
            let (same, b, a) = reference(&view.class_column(r), &view_after.class_column(r), &y);
            assert_eq!(c.argsort_identical_per_class[r], same, "class {r}");
            assert_eq!(c.auc_change_per_class[r], a.zip(b).map(|(a, b)| a - b));
        }
    }
}
