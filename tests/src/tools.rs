//! Outside tools a test needs (Debian packages, processes): whether one is installed, and a
//! free loopback port to start one on.

#![allow(clippy::missing_panics_doc)]

use std::process::Command;

use crate::process::Grouped as _;

pub use contact_benches::skip;

/// `Some(())` when `tool` runs here; otherwise the test skips ([`skip`]), saying `install` (how
/// to get it) — or, with `CI=true`, where every test must run, fails.
pub fn have(tool: &str, install: &str) -> Option<()> {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output_in_group()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some(());
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true and {tool} is missing ({install})"
    );
    skip(&format!("{tool} is missing ({install})"));
    None
}

/// A free loopback port (bound and released; the OS does not hand it out again at once).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `.ci/node` with `packages` (of its pinned `package.json`) installed: `npm install` from the
/// npm registry when one is missing (`.ci/run` installs them beforehand). Tests run in
/// parallel: one installs while the others wait (two installs into one folder, or a run during
/// an install, break each other).
///
/// # Panics
/// When `npm install` cannot run or fails (Node.js and npm: Debian `nodejs npm`).
pub fn node_packages(packages: &[&str]) -> std::path::PathBuf {
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _installing = INSTALL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/node");
    npm_install(&dir, packages);
    dir
}

/// `examples/pay.ts` compiled by the pinned `tsc` (strict, against the published types of
/// `@x402/fetch`) into `examples/dist/pay.js`, its packages (`examples/package.json`)
/// installed first when one is missing (`.ci/run` installs them beforehand); the path of the
/// compiled script. Compiled once per test process; the others wait.
///
/// # Panics
/// When `npm install` or `tsc` cannot run or fails (Node.js and npm: Debian `nodejs npm`).
pub fn typescript_example() -> std::path::PathBuf {
    static BUILT: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    let mut built = BUILT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    if !*built {
        npm_install(&dir, &["@x402/fetch", "@x402/evm", "viem", "typescript"]);
        let output = Command::new(dir.join("node_modules/.bin/tsc"))
            .current_dir(&dir)
            .output_in_group()
            .expect("run tsc");
        assert!(
            output.status.success(),
            "tsc in {}: {}{}",
            dir.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        *built = true;
    }
    dir.join("dist/pay.js")
}

/// `npm install` in `dir` when one of `packages` is missing from its `node_modules`.
fn npm_install(dir: &std::path::Path, packages: &[&str]) {
    let installed = packages
        .iter()
        .all(|package| dir.join("node_modules").join(package).is_dir());
    if !installed {
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(dir)
            .status_in_group()
            .expect("the official-client tests need Node.js and npm (Debian: nodejs npm)");
        assert!(status.success(), "npm install in {} failed", dir.display());
    }
}

/// The Python of `.ci/python/venv` with the official x402 client (`.ci/python/requirements.txt`)
/// installed: a virtual environment made and `pip install`ed from PyPI on first use (`.ci/run`
/// makes it beforehand). `None` when that cannot be done here (python3-venv or PyPI missing):
/// the test skips, saying so — or, with `CI=true`, fails.
pub fn python_client() -> Option<std::path::PathBuf> {
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _installing = INSTALL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/python");
    let python = dir.join("venv/bin/python");
    let ready = || {
        Command::new(&python)
            .args(["-c", "import x402, eth_account, httpx"])
            .output_in_group()
            .is_ok_and(|o| o.status.success())
    };
    if !ready() {
        let made = Command::new("python3")
            .args(["-m", "venv", "venv"])
            .current_dir(&dir)
            .status_in_group()
            .is_ok_and(|s| s.success())
            && Command::new(dir.join("venv/bin/pip"))
                .args(["install", "--quiet", "-r", "requirements.txt"])
                .current_dir(&dir)
                .status_in_group()
                .is_ok_and(|s| s.success());
        if !made || !ready() {
            let reason = format!(
                "the official Python client could not be installed in {}/venv (needs python3-venv and PyPI)",
                dir.display()
            );
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true and {reason}"
            );
            skip(&reason);
            return None;
        }
    }
    Some(python)
}
