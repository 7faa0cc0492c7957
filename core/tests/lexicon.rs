//! Every language file of `core/lexicon/` is compiled in: a file without its row in
//! `lexicon::FILES` would be silently unread (docs/extraction.md, "Lexicon").

// Test code: it reads the lexicon folder; a failed unwrap is a failed test.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::path::Path;

use contact_core::lexicon;

#[test]
fn every_language_file_is_compiled_in() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("lexicon");
    let mut on_disk: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    on_disk.sort();
    let compiled: Vec<String> = lexicon::languages()
        .map(|language| format!("{language}.txt"))
        .collect();
    assert_eq!(
        on_disk, compiled,
        "core/lexicon/ and lexicon::FILES differ: add the file's row to FILES"
    );
}
