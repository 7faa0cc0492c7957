//! Replays the committed cargo-fuzz seed corpus of `fuzz/` on stable Rust, so every finding
//! that was turned into a seed stays fixed (docs/architecture.md).

// Reading the corpus is the test's job; the core library itself never touches files.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

/// Runs `target` on every file of `fuzz/corpus/<name>/`; returns how many there were.
fn replay(name: &str, target: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(name);
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz corpus directory")
        .map(|entry| entry.expect("corpus entry").path())
        .collect();
    paths.sort();
    for path in &paths {
        let data = std::fs::read(path).expect("corpus file");
        target(&data);
    }
    paths.len()
}

#[test]
fn extract_page_corpus_replays_without_panics() {
    assert!(replay("extract_page", contact_core::testing::fuzz::extract_page) >= 9);
}

#[test]
fn request_head_corpus_replays_without_panics() {
    assert!(replay("request_head", contact_core::testing::fuzz::request_head) >= 5);
}

#[test]
fn payment_header_corpus_replays_without_panics() {
    assert!(
        replay(
            "payment_header",
            contact_core::testing::fuzz::payment_header
        ) >= 4
    );
}

#[test]
fn exchange_corpus_replays_without_panics() {
    assert!(replay("exchange", contact_core::testing::fuzz::exchange) >= 5);
}

#[test]
fn exchange_timing_corpus_replays_without_panics() {
    assert!(
        replay("exchange_timing", |data| {
            contact_core::testing::fuzz::exchange_timing(data);
        }) >= 10
    );
}
