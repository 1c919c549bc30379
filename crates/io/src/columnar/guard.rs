//! A damaged Parquet or Arrow IPC file can make the Apache Arrow crates panic
//! (an out-of-bounds buffer, say) instead of returning an error; the mutation test
//! found such a file. Their calls run under [`guarded`], which turns the panic into
//! an error message and keeps the panic's report off standard error.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Set while this thread runs a guarded decoder: its panics are not reported.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

static HOOK: Once = Once::new();

/// Resets [`QUIET`] when dropped (also when unwinding).
struct Quiet(bool);

impl Drop for Quiet {
    fn drop(&mut self) {
        QUIET.with(|q| q.set(self.0));
    }
}

/// Runs `f` with its panics kept off standard error (for the threads a guarded
/// decoder spawns; the panic still reaches [`guarded`] through the join).
pub(crate) fn quietly<T>(f: impl FnOnce() -> T) -> T {
    HOOK.call_once(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                report(info)
            }
        }));
    });
    let _reset = Quiet(QUIET.with(|q| q.replace(true)));
    f()
}

/// `f()`, or the message of its panic.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    quietly(|| catch_unwind(AssertUnwindSafe(f))).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the reader stopped".into())
    })
}
