//! The Python interpreter of the tests that run Python (the browser test, the Authlib relying
//! party): the virtual environment `make test` builds (tests/browser/requirements.txt), never
//! whatever `python3` the PATH offers, so that every machine runs the same packages.
use std::path::PathBuf;

/// `LIMETTE_TEST_PYTHON` (set by `make test`), else the default `target/venv/bin/python3`.
/// Panics naming `make test` when it does not exist: a missing tool fails the test, never skips.
pub fn python() -> PathBuf {
    let path = std::env::var_os("LIMETTE_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/target/venv/bin/python3"
            ))
        });
    assert!(
        path.is_file(),
        "no Python for the tests at {}: run `make test` once, which builds that virtual \
         environment with tests/browser/requirements.txt (or point LIMETTE_TEST_PYTHON at a \
         python3 that has those packages)",
        path.display()
    );
    path
}
