//! The audit's fast path: the same numbers as the general path
//! ([`Audit::compute_general`]), bit for bit, with less work.
//!
//! * One pass over the samples in sample order feeds every sample-order sum (Brier
//!   of each reading, NLL, `l_conf`, accuracy, CSR/cwA, the confusion tables) and
//!   builds the sort items; nothing is computed twice and no `TopLabels`/`Pairs`
//!   copies are made.
//! * Each reading is sorted once ([`crate::radix`], buffers reused across classes)
//!   and then visited once in sorted order: AUC and cwAUC accumulate as the tie
//!   groups go by ([`AucBuilder`]) and the prefix sums are kept only at the bin
//!   starts the settings ask for ([`SparseBuilder`]), not at all `n + 1` positions.
//! * Binary one-column sets sort only the positive-class forecasts `u`: the class-0
//!   reading `1 - u` is that order reversed, and the confidence reading
//!   `max(u, 1 - u)` is a merge of its two halves. `1 - u` can round distinct `u`
//!   onto one value, and reversing turns index-ordered ties around, so every run of
//!   equal `1 - u` is put back in index order (exact, not approximate).
//! * Matrices: one pass over the rows (softmax row, top label, NLL), then one pass
//!   per class down the columns with software prefetch (the row stride defeats the
//!   hardware prefetcher); the sorted pass gathers in chunks, from one array of
//!   per-sample state, so each sample costs one cache miss.
//!
//! The outcome of a sample rides in the top bit of its sort item's payload, so
//! passes in sorted order gather only the forecast.
//!
//! Memory beyond the input, per sample: binary one-column sets 32 bytes at the
//! peak (forecasts, sort items and scratch, sorted forecasts), `f32` logit
//! matrices 36 (`(p, sum)`, the row max, sort items, scratch; 40 for `f64`),
//! probability matrices 32 (`(p, w)`, sort items, scratch), plus O(bins + chunk)
//! (measured by `examples/memory_audit.rs`).

use super::matrix::MatrixStage;
use super::{brier_sum, Audit, AuditSettings, ClassReport, ReadingReport, NLL_CLIP};
use crate::auc::{self, AucBuilder, SortedColumn};
use crate::beyond::{self, ConfusionAccumulator, RiskAccumulator};
use crate::binning::{BinPlan, BinSource, Binning, SortedReading, SparseBuilder};
use crate::data::{PredictionSet, Real, Scores, Source, Values};
use crate::radix::{self, RadixSorter};
use crate::reading;
use crate::reliability;
use crate::sum::Sum;

/// The sample index in a sort item's payload; the top bit is the outcome.
pub(super) const INDEX: u32 = 0x7fff_ffff;
/// A plan larger than this (`Σ m` over the bin counts) keeps full prefix sums
/// instead: answering a width binning from a sparse index costs O(Σ m).
const SPARSE_LIMIT: usize = 4096;

/// The audit of `set` by the fast path; `None` when the general path must do it
/// (an empty set, or more samples than a 31-bit index holds).
pub(super) fn compute(set: &PredictionSet, settings: &AuditSettings) -> Option<Audit> {
    if !takes(set) {
        return None;
    }
    Some(match &set.scores {
        Scores::Column { values, source } => binary_column(set, values, *source, settings),
        Scores::Matrix { .. } => MatrixStage::new(set, settings).finish_alone(None).audit,
        Scores::TopLabel {
            predicted,
            confidence,
        } => top_label(set, predicted, confidence, settings),
    })
}

/// Whether the fast path audits `set`: not empty, and fewer samples than a 31-bit
/// index holds.
pub(super) fn takes(set: &PredictionSet) -> bool {
    set.n() > 0 && set.n() <= INDEX as usize
}

#[inline(always)]
pub(super) fn payload(i: usize, outcome: bool) -> u32 {
    i as u32 | (outcome as u32) << 31
}

#[inline(always)]
fn index_of(payload: u32) -> usize {
    (payload & INDEX) as usize
}

#[inline(always)]
pub(super) fn outcome_of(payload: u32) -> bool {
    payload >> 31 == 1
}

#[inline(always)]
pub(super) fn sq(u: f64, o: bool) -> f64 {
    (u - o as u8 as f64).powi(2)
}

/// Sorts `items` and gathers `sorted[j] = score(payload j)`, then puts every run of
/// items sharing an `f32` key in exact order (ascending score, ties by index), so
/// `(items[j], sorted[j])` is the reading in sorted order. The gather is a loop of
/// its own: its loads are independent, so many cache misses overlap (inside the
/// per-sample passes they would not).
fn sort_and_gather(
    sorter: &mut RadixSorter,
    items: &mut Vec<u64>,
    sorted: &mut Vec<f64>,
    score: impl Fn(u32) -> f64,
) {
    sorter.sort(items);
    sorted.clear();
    sorted.extend(items.iter().map(|&x| score(radix::payload_of(x))));
    let n = items.len();
    let mut j = 0;
    while j + 1 < n {
        let key = radix::key_of(items[j]);
        if radix::key_of(items[j + 1]) != key {
            j += 1;
            continue;
        }
        let mut end = j + 2;
        while end < n && radix::key_of(items[end]) == key {
            end += 1;
        }
        let exact = |a: &(f64, u64), b: &(f64, u64)| {
            (a.0 + 0.0)
                .total_cmp(&(b.0 + 0.0))
                .then((a.1 as u32 & INDEX).cmp(&(b.1 as u32 & INDEX)))
        };
        let in_order = (j + 1..end)
            .all(|t| exact(&(sorted[t - 1], items[t - 1]), &(sorted[t], items[t])).is_le());
        if !in_order {
            let mut run: Vec<(f64, u64)> = (j..end).map(|t| (sorted[t], items[t])).collect();
            run.sort_unstable_by(exact);
            for (t, (u, x)) in (j..end).zip(run) {
                sorted[t] = u;
                items[t] = x;
            }
        }
        j = end;
    }
}

/// Samples gathered per chunk by [`visit_sorted`].
pub(super) const CHUNK: usize = 1024;

/// Sorts `items` and calls `visit(payload, score, extra)` for every sample in exact
/// sorted order (ascending score, ties by index), where `fetch(index)` gives a
/// sample's `(score, extra)`. Works in chunks: a chunk's samples are gathered in a
/// loop of their own (independent loads, so cache misses overlap), its runs of
/// equal `f32` keys (never split across chunks) re-ordered by the exact score, then
/// visited. The gather buffer holds one chunk, or one run of equal keys when that
/// is longer (a set of mostly equal forecasts).
pub(super) fn visit_sorted<E: Copy>(
    sorter: &mut RadixSorter,
    items: &mut Vec<u64>,
    buffer: &mut Vec<(f64, E, u32)>,
    fetch: impl Fn(usize) -> (f64, E),
    mut visit: impl FnMut(u32, f64, E),
) {
    sorter.sort(items);
    let n = items.len();
    let mut start = 0;
    while start < n {
        let mut end = (start + CHUNK).min(n);
        while end < n && radix::key_of(items[end]) == radix::key_of(items[end - 1]) {
            end += 1;
        }
        let chunk = &items[start..end];
        buffer.clear();
        buffer.extend(chunk.iter().map(|&x| {
            let p = radix::payload_of(x);
            let (u, e) = fetch(index_of(p));
            (u, e, p)
        }));
        let mut j = 0;
        while j + 1 < chunk.len() {
            let key = radix::key_of(chunk[j]);
            if radix::key_of(chunk[j + 1]) != key {
                j += 1;
                continue;
            }
            let mut run_end = j + 2;
            while run_end < chunk.len() && radix::key_of(chunk[run_end]) == key {
                run_end += 1;
            }
            let exact = |a: &(f64, E, u32), b: &(f64, E, u32)| {
                (a.0 + 0.0)
                    .total_cmp(&(b.0 + 0.0))
                    .then((a.2 & INDEX).cmp(&(b.2 & INDEX)))
            };
            let run = &mut buffer[j..run_end];
            if !run.windows(2).all(|w| exact(&w[0], &w[1]).is_le()) {
                run.sort_unstable_by(exact);
            }
            j = run_end;
        }
        for &(u, e, p) in buffer.iter() {
            visit(p, u, e);
        }
        start = end;
    }
}

/// The binning index of one reading under construction: sparse for the usual
/// handful of bin counts, full prefix sums when the plan is large.
enum IndexBuilder<'p> {
    Sparse(SparseBuilder<'p>),
    Full(Vec<f64>, Vec<bool>),
}

enum Index {
    Sparse(crate::binning::SparseReading),
    Full(SortedReading),
}

impl Index {
    fn source(&self) -> &dyn BinSource {
        match self {
            Index::Sparse(s) => s,
            Index::Full(s) => s,
        }
    }
}

impl<'p> IndexBuilder<'p> {
    fn new(plan: &'p BinPlan) -> Self {
        if plan.size() <= SPARSE_LIMIT {
            IndexBuilder::Sparse(SparseBuilder::new(plan))
        } else {
            IndexBuilder::Full(Vec::with_capacity(plan.n()), Vec::with_capacity(plan.n()))
        }
    }

    #[inline(always)]
    fn push(&mut self, u: f64, o: bool) {
        match self {
            IndexBuilder::Sparse(b) => b.push(u, o),
            IndexBuilder::Full(sorted, outcome) => {
                sorted.push(u);
                outcome.push(o);
            }
        }
    }

    fn finish(self) -> Index {
        match self {
            IndexBuilder::Sparse(b) => Index::Sparse(b.finish()),
            IndexBuilder::Full(sorted, outcome) => {
                Index::Full(SortedReading::from_sorted(sorted, &outcome))
            }
        }
    }
}

/// One class reading visited in sorted order: its binning index, AUC and cwAUC, and
/// (when asked) the sorted column for the ROC curve.
pub(super) struct ClassPass<'p> {
    index: IndexBuilder<'p>,
    auc: AucBuilder<true>,
    roc: Option<SortedColumn>,
    with_reliability: bool,
}

impl<'p> ClassPass<'p> {
    pub(super) fn new(plan: &'p BinPlan, with_reliability: bool, roc: bool) -> Self {
        ClassPass {
            index: IndexBuilder::new(plan),
            auc: AucBuilder::default(),
            roc: roc.then(SortedColumn::default),
            with_reliability,
        }
    }

    #[inline(always)]
    pub(super) fn push(&mut self, u: f64, o: bool, w: f64) {
        self.index.push(u, o);
        self.auc.push(u, o, w);
        if let Some(roc) = &mut self.roc {
            roc.forecast.push(u);
            roc.positive.push(o);
            roc.weight.push(w);
        }
    }

    /// The class report and the ROC curve (when asked).
    pub(super) fn finish(
        self,
        brier: Option<f64>,
        settings: &AuditSettings,
    ) -> (ClassReport, Option<auc::Roc>) {
        let (auc, cwauc) = self.auc.finish();
        let index = self.index.finish();
        let roc = self.roc.map(|column| auc::roc(&column));
        let report = ClassReport {
            reading: reading_report(index.source(), brier, settings, self.with_reliability),
            auc,
            cwauc,
        };
        (report, roc)
    }
}

/// The ECE family of one reading from its index (the general path's
/// `reading_report`, from a [`BinSource`]).
pub(super) fn reading_report(
    index: &dyn BinSource,
    brier: Option<f64>,
    settings: &AuditSettings,
    with_reliability: bool,
) -> ReadingReport {
    let mut tables = Vec::with_capacity(2 * settings.m_values.len());
    for binning in Binning::ALL {
        for &m in &settings.m_values {
            tables.push((binning, m, index.binned_metrics(binning, m)));
        }
    }
    let reliability = if with_reliability {
        Binning::ALL
            .iter()
            .map(|&b| {
                (
                    b,
                    reliability::reliability_table(
                        index,
                        b,
                        settings.reliability_bins,
                        settings.alpha,
                    ),
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    ReadingReport {
        brier,
        tables,
        reliability,
    }
}

/// The plans: class readings need the table bin counts; readings with reliability
/// tables (the confidence reading, the binary positive class) also their bin count.
pub(super) fn plans(n: usize, settings: &AuditSettings) -> (BinPlan, BinPlan) {
    let mut with_reliability = settings.m_values.clone();
    with_reliability.push(settings.reliability_bins);
    (
        BinPlan::new(n, &settings.m_values),
        BinPlan::new(n, &with_reliability),
    )
}

/// The sample-order sums of the confidence reading.
#[derive(Default)]
pub(super) struct ConfidenceSums {
    risk: RiskAccumulator,
    brier: Sum,
    l_conf: Sum,
    correct: usize,
}

impl ConfidenceSums {
    #[inline(always)]
    pub(super) fn add(&mut self, c: f64, z: bool) {
        self.risk.add(c, z);
        self.brier.add(sq(c, z));
        let zf = z as u8 as f64;
        self.l_conf.add(1.0 - zf + (c - zf) * (c - zf));
        self.correct += z as usize;
    }
}

/// The parts of an [`Audit`] every path assembles the same way.
pub(super) struct Parts {
    pub(super) sums: ConfidenceSums,
    pub(super) confidence: ReadingReport,
    pub(super) classes: Vec<ClassReport>,
    pub(super) confusion: Vec<(beyond::Confusion, beyond::Confusion)>,
    pub(super) nll: Option<f64>,
    pub(super) roc_class1: Option<auc::Roc>,
}

pub(super) fn assemble(set: &PredictionSet, parts: Parts) -> Audit {
    let n = set.n() as f64;
    Audit {
        n: set.n(),
        k: set.k,
        kind: set.kind(),
        source: set.source(),
        columns: set.columns(),
        accuracy: Some(parts.sums.correct as f64 / n),
        l_conf: Some(parts.sums.l_conf.value() / n),
        nll: parts.nll,
        brier_multiclass: brier_sum(&parts.classes),
        confidence: ReadingReport {
            brier: Some(parts.sums.brier.value() / n),
            ..parts.confidence
        },
        classes: parts.classes,
        risk: parts.sums.risk.finish(),
        confusion: parts.confusion,
        roc_class1: parts.roc_class1,
    }
}

/// The confidence reading from its sort items (payload: index and correctness).
pub(super) fn confidence_reading(
    sorter: &mut RadixSorter,
    items: &mut Vec<u64>,
    confidence: impl Fn(usize) -> f64,
    plan: &BinPlan,
    settings: &AuditSettings,
) -> ReadingReport {
    let mut index = IndexBuilder::new(plan);
    visit_sorted(
        sorter,
        items,
        &mut Vec::with_capacity(CHUNK),
        |i| (confidence(i), ()),
        |p, c, ()| index.push(c, outcome_of(p)),
    );
    // the Brier score is filled in from the sample-order sum by `assemble`
    reading_report(index.finish().source(), None, settings, true)
}

fn top_label(
    set: &PredictionSet,
    predicted: &[u32],
    confidence: &Values,
    settings: &AuditSettings,
) -> Audit {
    let n = set.n();
    let (_, plan) = plans(n, settings);
    let mut sums = ConfidenceSums::default();
    let mut items = Vec::with_capacity(n);
    crate::with_values!(confidence, |v| {
        for (i, ((&c, &yhat), &y)) in v.iter().zip(predicted).zip(&set.labels).enumerate() {
            let c = c.to_f64();
            let z = yhat == y;
            sums.add(c, z);
            items.push(radix::item(radix::order_key(c), payload(i, z)));
        }
    });
    let confidence = crate::with_values!(confidence, |v| confidence_reading(
        &mut RadixSorter::new(),
        &mut items,
        |i| v[i].to_f64(),
        &plan,
        settings,
    ));
    assemble(
        set,
        Parts {
            sums,
            confidence,
            classes: Vec::new(),
            confusion: Vec::new(),
            nll: None,
            roc_class1: None,
        },
    )
}

/// The top-label confidence of a binary forecast `u = P(y = 1)`: predict 1 iff
/// `u >= 0.5` (as [`crate::reading::ProbView::top`]).
#[inline(always)]
fn binary_confidence(u: f64) -> f64 {
    if u >= 0.5 {
        u
    } else {
        1.0 - u
    }
}

fn binary_column(
    set: &PredictionSet,
    values: &Values,
    source: Source,
    settings: &AuditSettings,
) -> Audit {
    let n = set.n();
    let labels = &set.labels;
    let (class_plan, reliability_plan) = plans(n, settings);

    // u = P(y = 1) per sample, as ProbView::prob(i, 1)
    let u: Vec<f64> = crate::with_values!(values, |v| match source {
        Source::Logits => v.iter().map(|&s| reading::sigmoid(s.to_f64())).collect(),
        _ => v.iter().map(|&x| x.to_f64()).collect(),
    });

    // sample order: every sum, and the sort items of the positive-class reading
    let mut sums = ConfidenceSums::default();
    let mut confusion = ConfusionAccumulator::new(2);
    let (mut brier1, mut brier0, mut nll) = (Sum::new(), Sum::new(), Sum::new());
    let mut items = Vec::with_capacity(n);
    for (i, (&ui, &y)) in u.iter().zip(labels).enumerate() {
        let (pred, c) = if ui >= 0.5 { (1, ui) } else { (0, 1.0 - ui) };
        let z = pred == y;
        sums.add(c, z);
        confusion.add(pred, c, y);
        let positive = y == 1;
        brier1.add(sq(ui, positive));
        brier0.add(sq(1.0 - ui, y == 0));
        match source {
            Source::Logits => {
                let sign = if positive { 1.0 } else { -1.0 };
                nll.add(reading::softplus(-sign * values.get(i)));
            }
            _ => {
                let p = if positive { ui } else { 1.0 - ui };
                nll.add(-p.clamp(NLL_CLIP, 1.0 - NLL_CLIP).ln());
            }
        }
        items.push(radix::item(radix::order_key(ui), payload(i, positive)));
    }
    let nf = n as f64;

    // class 1: sort u; keep the sorted forecasts for the other two readings
    let mut pass1 = ClassPass::new(&reliability_plan, true, settings.roc_curve);
    let mut sorted = Vec::with_capacity(n);
    sort_and_gather(&mut RadixSorter::new(), &mut items, &mut sorted, |p| {
        u[index_of(p)]
    });
    drop(u);
    for (&x, &f) in items.iter().zip(&sorted) {
        pass1.push(
            f,
            outcome_of(radix::payload_of(x)),
            beyond::clip_confidence(binary_confidence(f)),
        );
    }
    let (class1, roc_class1) = pass1.finish(Some(brier1.value() / nf), settings);
    // `items` now holds the payloads in sorted order; `low` samples predict 0
    let low = sorted.partition_point(|&f| f < 0.5);

    // class 0: `1 - u` ascending is `u` descending; each run of equal `1 - u` comes
    // out in descending index order (ties of u) or mixed (values merged by the
    // rounding of 1 - u) and is put back in ascending index order. The low samples'
    // `(1 - u, payload)` are kept, in that order, for the confidence reading.
    let mut pass0 = ClassPass::new(&class_plan, false, false);
    let mut low_value = Vec::with_capacity(low);
    let mut low_payload = Vec::with_capacity(low);
    let mut run: Vec<(u32, f64, bool)> = Vec::new();
    let mut emit = |p: u32, f: f64, is_low: bool| {
        let v = 1.0 - f;
        pass0.push(
            v,
            !outcome_of(p),
            beyond::clip_confidence(binary_confidence(f)),
        );
        if is_low {
            low_value.push(v);
            low_payload.push(p);
        }
    };
    let mut end = n;
    while end > 0 {
        let j = end - 1;
        let v = 1.0 - sorted[j];
        let mut start = j;
        while start > 0 && 1.0 - sorted[start - 1] == v {
            start -= 1;
        }
        if start == j {
            emit(radix::payload_of(items[j]), sorted[j], j < low);
        } else {
            run.clear();
            run.extend((start..end).map(|t| (radix::payload_of(items[t]), sorted[t], t < low)));
            run.sort_unstable_by_key(|e| e.0 & INDEX);
            for &(p, f, is_low) in &run {
                emit(p, f, is_low);
            }
        }
        end = start;
    }
    let (class0, _) = pass0.finish(Some(brier0.value() / nf), settings);

    // confidence: merge the high samples (c = u, ascending from `low`) with the low
    // ones (c = 1 - u, ascending), ties by index
    let mut index = IndexBuilder::new(&reliability_plan);
    let (mut a, mut b) = (low, 0);
    while a < n || b < low_value.len() {
        let take_high = if b == low_value.len() {
            true
        } else if a == n {
            false
        } else {
            let (ca, cb) = (sorted[a], low_value[b]);
            ca < cb || (ca == cb && radix::payload_of(items[a]) & INDEX < low_payload[b] & INDEX)
        };
        if take_high {
            // predicted 1: correct iff y = 1
            index.push(sorted[a], outcome_of(radix::payload_of(items[a])));
            a += 1;
        } else {
            // predicted 0: correct iff y = 0
            index.push(low_value[b], !outcome_of(low_payload[b]));
            b += 1;
        }
    }
    let confidence = reading_report(index.finish().source(), None, settings, true);

    assemble(
        set,
        Parts {
            sums,
            confidence,
            classes: vec![class0, class1],
            confusion: confusion.finish(),
            nll: Some(nll.value() / nf),
            roc_class1,
        },
    )
}
