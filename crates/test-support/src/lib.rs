//! Where calibscope's tests find their data: the `shared/` folder beside the
//! repository (the metric contract's fixtures, the seed documents and the real-world
//! prediction files), or the folder named by `CALIBSCOPE_SHARED`.
//!
//! Every locator fails loudly when the folder is missing: a test whose data cannot
//! be found must fail, never print "skipped" and pass.

use std::path::{Path, PathBuf};

/// The environment variable that overrides where `shared/` is.
pub const SHARED_VAR: &str = "CALIBSCOPE_SHARED";

/// The `shared/` folder: `$CALIBSCOPE_SHARED`, else `shared/` beside the repository.
///
/// # Panics
/// When that folder has no `fixtures/` subfolder, with a message that says where it
/// looked and how to point the tests elsewhere.
pub fn shared() -> PathBuf {
    let (path, from_env) = match std::env::var_os(SHARED_VAR) {
        Some(p) => (PathBuf::from(p), true),
        None => (
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
            false,
        ),
    };
    if !path.join("fixtures").is_dir() {
        let source = if from_env {
            format!("${SHARED_VAR}")
        } else {
            "the folder beside the repository".to_owned()
        };
        panic!(
            "the shared test data is missing: {} ({source}) has no fixtures/ folder; \
             set {SHARED_VAR} to the shared/ folder that holds fixtures/, seeds/ and real-world/",
            path.display()
        );
    }
    path
}

/// `shared/fixtures`.
pub fn fixtures() -> PathBuf {
    shared().join("fixtures")
}

/// `shared/<relative>`, which must exist.
///
/// # Panics
/// When it does not exist, naming the path.
pub fn shared_path(relative: &str) -> PathBuf {
    let path = shared().join(relative);
    assert!(
        path.exists(),
        "the shared test data is incomplete: {} does not exist",
        path.display()
    );
    path
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_the_fixtures_or_fails() {
        // In this repository's checkouts the shared folder is always beside it (or
        // named by CALIBSCOPE_SHARED); the locator panics otherwise.
        assert!(super::fixtures().is_dir());
        assert!(super::shared_path("METRICS.md").is_file());
    }
}
