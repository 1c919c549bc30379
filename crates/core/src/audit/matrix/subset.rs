//! A subset of a matrix set's rows audited in the same passes as the whole set
//! ([`super::MatrixStage::with_subset`]): the rows met in order during the pass over
//! the rows, then the subset's confidence reading and its membership bit set.

use super::super::fast::{confidence_reading, plans};
use super::super::{AuditSettings, ReadingReport};
use super::MatrixSums;
use crate::binning::BinPlan;
use crate::data::PredictionSet;
use crate::radix::RadixSorter;

/// The audit of a subset of the rows made in the same passes as the whole set's
/// ([`MatrixStage::with_subset`]): its sample-order sums over its rows in order,
/// and per class the whole set's sorted walk with the other rows left out, which is
/// the subset's own sorted order (its rows ascending, ties by index either way).
pub(super) struct Subset<'a> {
    /// The subset as a set of its own (its rows copied): what the audit describes.
    pub(super) set: &'a PredictionSet,
    pub(super) settings: &'a AuditSettings,
    /// Bit `i` set for the whole set's rows in the subset.
    member: Vec<u64>,
    pub(super) sums: MatrixSums,
    pub(super) confidence: ReadingReport,
    pub(super) plans: (BinPlan, BinPlan),
    /// No subset on wasm32 (the web worker never asks for one, and
    /// [`Audit::staged_with_subset`] audits one apart there): the type is empty, so
    /// its code leaves the worker's bundle.
    #[cfg(target_arch = "wasm32")]
    _none: std::convert::Infallible,
}

impl Subset<'_> {
    #[inline(always)]
    pub(super) fn has(&self, i: usize) -> bool {
        self.member[i / 64] >> (i % 64) & 1 == 1
    }
}

/// The subset's rows met during the pass over the whole set's rows.
pub(super) struct SubsetRows<'r> {
    rows: &'r [usize],
    next: usize,
    sums: Option<MatrixSums>,
    items: Vec<u64>,
}

impl<'r> SubsetRows<'r> {
    pub(super) fn new(
        subset: Option<(&'r [usize], &PredictionSet, &AuditSettings)>,
        k: usize,
    ) -> Self {
        let rows = subset.map_or(&[][..], |s| s.0);
        SubsetRows {
            rows,
            next: 0,
            sums: subset.map(|_| MatrixSums::new(k)),
            items: Vec::with_capacity(rows.len()),
        }
    }

    /// Row `i` of the whole set (rows come in order): added when it is the
    /// subset's next row, as the subset's row `next`.
    #[inline(always)]
    pub(super) fn add(&mut self, i: usize, r: u32, c: f64, y: u32, nll_term: f64) {
        if let (Some(sums), Some(&row)) = (&mut self.sums, self.rows.get(self.next)) {
            if row == i {
                self.items.push(sums.add(self.next, r, c, y, nll_term));
                self.next += 1;
            }
        }
    }

    /// The subset's part of the stage: its confidence reading (`confidence(i)` of
    /// the whole set's row `i`) and its rows as a bit set over the `n` rows.
    pub(super) fn finish<'a>(
        mut self,
        subset: Option<(&[usize], &'a PredictionSet, &'a AuditSettings)>,
        sorter: &mut RadixSorter,
        confidence: impl Fn(usize) -> f64,
        n: usize,
    ) -> Option<Subset<'a>> {
        let (rows, set, settings) = subset?;
        let plans = plans(rows.len(), settings);
        let report = confidence_reading(
            sorter,
            &mut self.items,
            |j| confidence(rows[j]),
            &plans.1,
            settings,
        );
        let mut member = vec![0u64; n.div_ceil(64)];
        for &i in rows {
            member[i / 64] |= 1 << (i % 64);
        }
        #[cfg(target_arch = "wasm32")]
        {
            let _ = (set, member, report, plans);
            unreachable!("no subsets on wasm32")
        }
        #[cfg(not(target_arch = "wasm32"))]
        Some(Subset {
            set,
            settings,
            member,
            sums: self.sums.expect("a subset has sums"),
            confidence: report,
            plans,
        })
    }
}
