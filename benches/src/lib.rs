//! The quality evaluation ([`eval`]) and the helpers the benchmarks share: loading the
//! shared corpora; and [`skip`], how a test that cannot run here says so.

use std::path::{Path, PathBuf};

pub mod eval;
pub mod pathological;
pub mod sites;

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
/// skips such tests ([`skip`], `None`), so the README's test command is green for a new user;
/// under `CI=true` a missing folder is a failure, so CI never skips them.
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
    skip(&format!(
        "{} not found (clone the shared data beside the checkout to run it)",
        dir.display()
    ));
    None
}

/// The environment variable naming the skip log of a test run (set by `tests/run.sh`).
pub const SKIP_LOG: &str = "CONTACT_SKIP_LOG";

/// A test that skips because something it needs is missing here says `why`: on the terminal,
/// past the test harness's capture of `eprintln!`, and, when the run keeps a skip log
/// ([`SKIP_LOG`]), as a line `suite<TAB>test<TAB>why` in it, which `tests/run.sh` sums up at
/// the end of the run, one line per suite (test binary).
pub fn skip(why: &str) {
    use std::io::Write as _;
    let exe = std::env::current_exe().ok();
    let stem = exe
        .as_deref()
        .and_then(Path::file_stem)
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    // `target/debug/deps/redis_rules-0123456789abcdef`: the suite is `redis_rules`.
    let suite = stem
        .rsplit_once('-')
        .map_or(stem.as_str(), |(name, _)| name);
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("?");
    let _ = std::io::stderr().write_all(format!("skipping {suite} {test}: {why}\n").as_bytes());
    if let Some(log) = std::env::var_os(SKIP_LOG) {
        let line = format!("{suite}\t{test}\t{}\n", why.replace(['\t', '\n'], " "));
        // One append per line: the test binaries of a run write to the log at once.
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = file.write_all(line.as_bytes());
        }
    }
}
