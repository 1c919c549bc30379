//! A small graph of dependent tasks run by [`Sections`]: one after the other, or on
//! two threads, each taking the first task (in the order given, so list the longest
//! chain first) whose inputs are done. Tasks hand their results over in
//! [`std::sync::OnceLock`]s they capture, so the result of a graph does not depend on
//! how it was scheduled; only when each task runs does.
//!
//! `audit --temperature-only` is where this matters: the audit of the whole set, the
//! split, the temperature fit, the "before" rows and ledger, the "after" ledger and
//! the invariance checks have sizes that change order with the input's shape (on 1M x
//! 10 the fit is the longest chain, on 1M x 100 the audit of the whole set is), so a
//! fixed pairing of sections leaves a core idle on one shape or the other.

use crate::Sections;
use calibscope_core::audit::{Audit, AuditSettings, ClassChunk, Staged};
use calibscope_core::PredictionSet;
use std::ops::Range;
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};

/// A task: the indices (into the graph) of the tasks it needs, and its work.
pub(crate) struct Task<'a> {
    needs: Vec<usize>,
    work: Box<dyn FnOnce() + Send + 'a>,
}

impl<'a> Task<'a> {
    /// `work`, to run once every task in `needs` is done.
    pub(crate) fn new(needs: &[usize], work: impl FnOnce() + Send + 'a) -> Self {
        Task {
            needs: needs.to_vec(),
            work: Box::new(work),
        }
    }
}

struct Board<'a> {
    waiting: Vec<Option<Task<'a>>>,
    done: Vec<bool>,
    failed: Option<Box<dyn std::any::Any + Send>>,
}

impl<'a> Board<'a> {
    /// The first waiting task whose inputs are done (taken), or `None`.
    fn take_ready(&mut self) -> Option<(usize, Task<'a>)> {
        let done = &self.done;
        let i = self
            .waiting
            .iter()
            .position(|t| t.as_ref().is_some_and(|t| t.needs.iter().all(|&d| done[d])))?;
        self.waiting[i].take().map(|t| (i, t))
    }

    fn all_taken(&self) -> bool {
        self.waiting.iter().all(Option::is_none)
    }
}

/// Runs every task of `graph` once, each after the tasks it needs, on the calling
/// thread and (with [`Sections::Threads`]) one scoped thread more. A panic in a task
/// stops the graph (tasks not started are dropped) and is propagated as is. Panics
/// when a task needs itself, a task that does not exist, or tasks that need it (a
/// cycle).
pub(crate) fn run(sections: Sections, graph: Vec<Task<'_>>) {
    for (i, t) in graph.iter().enumerate() {
        assert!(
            t.needs.iter().all(|&d| d < graph.len() && d != i),
            "task {i} needs a task that does not exist or itself"
        );
    }
    let n = graph.len();
    let board = Mutex::new(Board {
        waiting: graph.into_iter().map(Some).collect(),
        done: vec![false; n],
        failed: None,
    });
    let changed = Condvar::new();
    let worker = || loop {
        let lock = || board.lock().unwrap_or_else(PoisonError::into_inner);
        let mut b = lock();
        let (i, task) = loop {
            if b.failed.is_some() || b.all_taken() {
                return;
            }
            if let Some(next) = b.take_ready() {
                break next;
            }
            // wait for a running task to finish; with none running, the tasks left
            // wait for each other
            let running = b.done.iter().filter(|d| !**d).count()
                > b.waiting.iter().filter(|t| t.is_some()).count();
            if !running {
                b.failed = Some(Box::new("the task graph has a cycle"));
                changed.notify_all();
                return;
            }
            b = changed.wait(b).unwrap_or_else(PoisonError::into_inner);
        };
        drop(b);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task.work));
        let mut b = lock();
        b.done[i] = true;
        if let Err(payload) = outcome {
            b.failed.get_or_insert(payload);
        }
        changed.notify_all();
    };
    sections.join(worker, worker);
    let failed = board
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .failed;
    if let Some(payload) = failed {
        std::panic::resume_unwind(payload);
    }
}

/// How many ranges [`SplitAudit`] cuts a matrix's classes into on threads: enough
/// for a free core to pick up a share while another runs a long task of its own.
const CLASS_RANGES: usize = 4;

/// One audit as tasks of a graph: the pass over the rows ([`Audit::staged`]), then
/// its class readings in ranges, each a task (matrix sets only: any other set is
/// audited whole by the first task, the range tasks then do nothing). The result is
/// [`Audit::compute`]'s, bit for bit, however the tasks ran.
pub(crate) struct SplitAudit<'a> {
    set: &'a PredictionSet,
    settings: &'a AuditSettings,
    subset: Option<Subset<'a>>,
    head: OnceLock<Staged<'a>>,
    ranges: Vec<(Range<usize>, OnceLock<Option<ClassChunk>>)>,
}

/// Where a [`SplitAudit`] finds the subset it audits too, once its head runs: the
/// rows and their set (made by an earlier task), and the settings.
type Subset<'a> = (
    Box<dyn Fn() -> (&'a [usize], &'a PredictionSet) + Send + Sync + 'a>,
    &'a AuditSettings,
);

impl<'a> SplitAudit<'a> {
    /// The audit of `set`, its classes in [`CLASS_RANGES`] ranges with
    /// [`Sections::Threads`] (one otherwise: no copy of the per-sample state).
    pub(crate) fn new(
        set: &'a PredictionSet,
        settings: &'a AuditSettings,
        sections: Sections,
    ) -> Self {
        let k = set.k.max(1);
        let parts = match sections {
            Sections::Threads => CLASS_RANGES.min(k),
            Sections::Sequential => 1,
        };
        SplitAudit {
            set,
            settings,
            subset: None,
            head: OnceLock::new(),
            ranges: (0..parts)
                .map(|j| (j * k / parts..(j + 1) * k / parts, OnceLock::new()))
                .collect(),
        }
    }

    /// This audit, and the audit of a subset of the rows (`rows` ascending, and
    /// their set: `calibscope_core::reading::subset` of them) with `settings`, made in
    /// the same passes where it can be ([`Audit::staged_with_subset`]). `subset` is
    /// called when the head runs (list the tasks that make its results among the
    /// head's needs).
    pub(crate) fn with_subset(
        self,
        subset: impl Fn() -> (&'a [usize], &'a PredictionSet) + Send + Sync + 'a,
        settings: &'a AuditSettings,
    ) -> Self {
        SplitAudit {
            subset: Some((Box::new(subset), settings)),
            ..self
        }
    }

    /// The first task, needing `needs`: the pass over the rows (or the whole audit).
    pub(crate) fn head(&self, needs: &[usize]) -> Task<'_> {
        Task::new(needs, || {
            let subset = self.subset.as_ref().map(|(rows_and_set, settings)| {
                let (rows, set) = rows_and_set();
                (rows, set, *settings)
            });
            let _ = self
                .head
                .set(Audit::staged_with_subset(self.set, self.settings, subset));
        })
    }

    /// The range tasks, each needing `head` (the index of [`SplitAudit::head`]'s
    /// task in the graph).
    pub(crate) fn ranges(&self, head: usize) -> impl Iterator<Item = Task<'_>> + use<'_, 'a> {
        self.ranges.iter().map(move |(range, cell)| {
            Task::new(&[head], move || {
                let chunk = match self.head.get().expect("the head ran first") {
                    Staged::Matrix(stage) => Some(stage.classes(range.clone(), None)),
                    Staged::Done(..) => None,
                };
                let _ = cell.set(chunk);
            })
        })
    }

    /// The audit and (when asked for) the subset's, once every task ran.
    pub(crate) fn finish(self) -> (Audit, Option<Audit>) {
        match self.head.into_inner().expect("every task ran") {
            Staged::Done(audit, subset) => (audit, subset),
            Staged::Matrix(stage) => {
                let chunks = self.ranges.into_iter().map(|(_, cell)| {
                    cell.into_inner()
                        .expect("every task ran")
                        .expect("a matrix's range")
                });
                let done = stage.finish(chunks.collect());
                (done.audit, done.subset)
            }
        }
    }

    /// The audit of `set` on `sections`: its classes shared by the threads.
    pub(crate) fn run(set: &PredictionSet, settings: &AuditSettings, sections: Sections) -> Audit {
        if sections == Sections::Sequential {
            return Audit::compute(set, settings);
        }
        let audit = SplitAudit::new(set, settings, sections);
        let mut graph = vec![audit.head(&[])];
        graph.extend(audit.ranges(0));
        run(sections, graph);
        audit.finish().0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::OnceLock;

    #[test]
    fn every_task_runs_after_its_inputs_either_way() {
        for sections in [Sections::Sequential, Sections::Threads] {
            let (a, b, c, d) = (
                OnceLock::new(),
                OnceLock::new(),
                OnceLock::new(),
                OnceLock::new(),
            );
            run(
                sections,
                vec![
                    Task::new(&[1, 3], || {
                        a.set(b.get().unwrap() + d.get().unwrap()).unwrap()
                    }),
                    Task::new(&[2], || b.set(c.get().unwrap() * 10).unwrap()),
                    Task::new(&[], || c.set(4u64).unwrap()),
                    Task::new(&[], || d.set((0..100_000u64).sum::<u64>()).unwrap()),
                ],
            );
            assert_eq!(a.get(), Some(&(40 + 4_999_950_000)));
        }
    }

    #[test]
    fn a_panic_reaches_the_caller_and_stops_the_graph() {
        for sections in [Sections::Sequential, Sections::Threads] {
            let after = OnceLock::new();
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run(
                    sections,
                    vec![
                        Task::new(&[], || panic!("task failed")),
                        Task::new(&[0], || after.set(1).unwrap()),
                    ],
                )
            }));
            let message = caught.unwrap_err();
            assert_eq!(message.downcast_ref::<&str>(), Some(&"task failed"));
            assert!(after.get().is_none());
        }
    }

    /// A split audit is the audit: every layout, class counts below, at and above
    /// the number of ranges, either way of running.
    #[test]
    fn a_split_audit_is_the_audit() {
        use calibscope_core::{Scores, Source, Values};
        let mut rng = calibscope_core::split::SplitMix64::new(5);
        let mut next = move || rng.next_f64();
        let settings = AuditSettings {
            m_values: vec![3, 15],
            ..AuditSettings::default()
        };
        let n = 700;
        let mut sets = Vec::new();
        for k in [2usize, 3, 4, 7, 13] {
            let labels: Vec<u32> = (0..n).map(|_| (next() * k as f64) as u32).collect();
            let z: Vec<f64> = (0..n * k).map(|_| 6.0 * next() - 3.0).collect();
            let mut p = z.iter().map(|v| v.exp()).collect::<Vec<f64>>();
            for row in p.chunks_mut(k) {
                let total: f64 = row.iter().sum();
                row.iter_mut().for_each(|v| *v /= total);
            }
            for (values, source) in [
                (
                    Values::F32(z.iter().map(|&v| v as f32).collect()),
                    Source::Logits,
                ),
                (Values::F64(z.clone()), Source::Logits),
                (Values::F64(p), Source::Probs),
            ] {
                sets.push(PredictionSet {
                    labels: labels.clone(),
                    scores: Scores::Matrix { values, k, source },
                    k,
                });
            }
        }
        let labels: Vec<u32> = (0..n).map(|_| (next() * 2.0) as u32).collect();
        sets.push(PredictionSet {
            scores: Scores::Column {
                values: Values::F64((0..n).map(|_| next()).collect()),
                source: Source::Probs,
            },
            labels: labels.clone(),
            k: 2,
        });
        sets.push(PredictionSet::top_label(
            labels.clone(),
            labels.iter().map(|&y| y ^ (next() < 0.3) as u32).collect(),
            Values::F64((0..n).map(|_| 0.5 + next() / 2.0).collect()),
        ));
        for set in &sets {
            let expected = format!("{:?}", Audit::compute(set, &settings));
            for sections in [Sections::Sequential, Sections::Threads] {
                let got = format!("{:?}", SplitAudit::run(set, &settings, sections));
                assert_eq!(got, expected, "k = {}, {sections:?}", set.k);
            }
        }
    }

    #[test]
    #[should_panic(expected = "cycle")]
    fn a_cycle_is_refused() {
        run(
            Sections::Sequential,
            vec![Task::new(&[1], || {}), Task::new(&[0], || {})],
        );
    }
}
