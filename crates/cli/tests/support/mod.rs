//! What the CLI's test files share: where the fixtures are and how the binary runs.

use std::process::{Command, Output};

/// The shared folder (`$CALIBSCOPE_SHARED`, or `../shared` beside the repository).
pub use calibscope_test_support::shared;

/// Runs `calibscope` with `args`.
pub fn calibscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calibscope"))
        .args(args)
        .output()
        .expect("runs")
}
