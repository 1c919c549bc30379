//! How an audit's independent sections run: one after the other (the web worker: wasm
//! has no threads) or two at a time on threads (the CLI). The result is the same
//! either way, value for value: each section is computed by the same code on the same
//! input, only when it runs changes.

/// One after the other, or two at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sections {
    /// On the calling thread, in order (the only choice on `wasm32-unknown-unknown`).
    #[default]
    Sequential,
    /// Two independent sections at a time: the second on a scoped thread.
    Threads,
}

impl Sections {
    /// [`Sections::Threads`] when the machine has more than one core, else sequential.
    pub fn available() -> Sections {
        #[cfg(target_arch = "wasm32")]
        return Sections::Sequential;
        #[cfg(not(target_arch = "wasm32"))]
        match std::thread::available_parallelism() {
            Ok(n) if n.get() > 1 => Sections::Threads,
            _ => Sections::Sequential,
        }
    }

    /// Runs `a` and `b` and returns both results; with [`Sections::Threads`] `b` runs
    /// on a scoped thread while `a` runs here (or after `a`, here, when no thread can
    /// be started). A panic in either is propagated as is.
    pub fn join<A: Send, B: Send>(
        self,
        a: impl FnOnce() -> A + Send,
        b: impl FnOnce() -> B + Send,
    ) -> (A, B) {
        match self {
            // wasm32-unknown-unknown has no threads (and the worker's bundle is lighter
            // without std's thread machinery): sequential there whatever is asked
            Sections::Sequential => (a(), b()),
            #[cfg(target_arch = "wasm32")]
            Sections::Threads => (a(), b()),
            #[cfg(not(target_arch = "wasm32"))]
            Sections::Threads => {
                // `b` waits in a cell: if the system refuses a thread, it runs here
                let cell = std::sync::Mutex::new(Some(b));
                let take = || cell.lock().unwrap_or_else(|e| e.into_inner()).take();
                std::thread::scope(|scope| {
                    let spawned = std::thread::Builder::new()
                        .name("calibscope-section".into())
                        .spawn_scoped(scope, || take().map(|b| b()));
                    let a = a();
                    let b = match spawned {
                        Ok(handle) => handle
                            .join()
                            .unwrap_or_else(|e| std::panic::resume_unwind(e)),
                        Err(_) => None,
                    };
                    let b = b.unwrap_or_else(|| take().expect("not taken by a thread")());
                    (a, b)
                })
            }
        }
    }

    /// `f` of every item, in order; with [`Sections::Threads`] the second half of the
    /// items is done on a scoped thread.
    pub fn map<T: Sync, R: Send>(self, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
        let (first, second) = items.split_at(items.len().div_ceil(2));
        let each = |part: &[T]| part.iter().map(&f).collect::<Vec<R>>();
        let (mut out, rest) = self.join(|| each(first), || each(second));
        out.extend(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Sections;

    #[test]
    fn both_ways_give_both_results_in_order() {
        for s in [Sections::Sequential, Sections::Threads] {
            let (a, b) = s.join(|| (0..1000u64).sum::<u64>(), || "b".repeat(3));
            assert_eq!((a, b.as_str()), (499_500, "bbb"));
        }
    }

    #[test]
    fn map_keeps_the_order() {
        for s in [Sections::Sequential, Sections::Threads] {
            for n in [0, 1, 2, 5] {
                let items: Vec<usize> = (0..n).collect();
                let got = s.map(&items, |i| i * 10);
                assert_eq!(got, items.iter().map(|i| i * 10).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    #[should_panic(expected = "section b failed")]
    fn a_panic_on_the_thread_reaches_the_caller() {
        Sections::Threads.join(|| 1, || -> u32 { panic!("section b failed") });
    }
}
