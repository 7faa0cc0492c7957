//! The quality evaluation ([`eval`]) and the helpers the benchmarks share: loading the
//! shared corpora.

use std::path::{Path, PathBuf};

pub mod eval;
pub mod pathological;

/// Every `*.html` file directly in `dir`, sorted by name, with its bytes.
///
/// # Errors
/// The directory or a file cannot be read.
pub fn load_pages(dir: &Path) -> std::io::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| std::fs::read(&p).map(|b| (p, b)))
        .collect()
}

/// The shared folder beside the checkout (`../shared` from the workspace root).
pub fn shared_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

/// `sub` inside the shared folder, for a test that needs it. A clone without `../shared`
/// skips such tests with a message on stderr (`None`), so the README's test command is green
/// for a new user; under `CI=true` a missing folder is a failure, so CI never skips them.
///
/// # Panics
/// When the folder is missing and `CI` is `true`.
pub fn shared_or_skip(sub: &str, test: &str) -> Option<PathBuf> {
    let dir = shared_dir().join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{test}: {} is missing (CI needs ../shared beside the checkout)",
        dir.display()
    );
    eprintln!(
        "{test}: skipped: {} not found (clone the shared data beside the checkout to run it)",
        dir.display()
    );
    None
}
