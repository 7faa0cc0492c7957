//! Replays the committed cargo-fuzz seed corpus of `fuzz/` on stable Rust, so every finding
//! that was turned into a seed stays fixed (architecture.md §4.11).

// Reading the corpus is the test's job; the core library itself never touches files.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

#[test]
fn extract_page_corpus_replays_without_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/extract_page");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz corpus directory") {
        let path = entry.expect("corpus entry").path();
        let data = std::fs::read(&path).expect("corpus file");
        contact_core::testing::fuzz::extract_page(&data);
        count += 1;
    }
    assert!(count >= 8, "the seed corpus has {count} files");
}
