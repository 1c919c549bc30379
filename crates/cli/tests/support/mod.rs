//! What the CLI's test files share: where the fixtures are and how the binary runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The shared folder (`$CALIBSCOPE_SHARED`, or `../shared` beside the repository).
pub fn shared() -> PathBuf {
    match std::env::var_os("CALIBSCOPE_SHARED") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

/// Runs `calibscope` with `args`.
pub fn calibscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calibscope"))
        .args(args)
        .output()
        .expect("runs")
}
