//! Replays the committed cargo-fuzz seed corpus of `fuzz/` on stable Rust, so every finding
//! that was turned into a seed stays fixed (docs/architecture.md).
//!
//! Each target's seed count is asserted exactly: a seed that goes missing is a finding no
//! longer replayed, and one that is added (a fuzzing run writes its new inputs into the same
//! folder) is a reviewed change of the count, committed with the seeds (docs/testing.md,
//! "Fuzzing").

use std::path::Path;

/// Runs `target` on every file of `fuzz/corpus/<name>/`; returns how many there were.
// Reading the corpus is the test's job; the core library itself never touches files.
#[allow(clippy::disallowed_methods)]
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

/// Replays `fuzz/corpus/<name>/` and asserts it holds exactly `seeds` files.
fn replay_exactly(name: &str, target: fn(&[u8]), seeds: usize) {
    let found = replay(name, target);
    assert_eq!(
        found, seeds,
        "fuzz/corpus/{name} holds {found} seeds, {seeds} expected: a missing seed is a finding \
         no longer replayed; new seeds are committed with this count changed"
    );
}

#[test]
fn extract_page_corpus_replays_without_panics() {
    replay_exactly(
        "extract_page",
        contact_core::testing::fuzz::extract_page,
        219,
    );
}

#[test]
fn request_head_corpus_replays_without_panics() {
    replay_exactly(
        "request_head",
        contact_core::testing::fuzz::request_head,
        68,
    );
}

#[test]
fn payment_header_corpus_replays_without_panics() {
    replay_exactly(
        "payment_header",
        contact_core::testing::fuzz::payment_header,
        64,
    );
}

#[test]
fn exchange_corpus_replays_without_panics() {
    replay_exactly("exchange", contact_core::testing::fuzz::exchange, 95);
}

#[test]
fn exchange_timing_corpus_replays_without_panics() {
    replay_exactly(
        "exchange_timing",
        |data| {
            contact_core::testing::fuzz::exchange_timing(data);
        },
        328,
    );
}
