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
