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
use std::sync::{Condvar, Mutex, PoisonError};

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

    #[test]
    #[should_panic(expected = "cycle")]
    fn a_cycle_is_refused() {
        run(
            Sections::Sequential,
            vec![Task::new(&[1], || {}), Task::new(&[0], || {})],
        );
    }
}
