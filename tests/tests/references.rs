//! The repository stands alone: every `docs/….md` a source file, README or doc page cites
//! exists, and no source file or doc page cites a document outside the repository (the design notes and
//! specification it was built from) or an issue number, which a reader of a clone cannot follow.

use std::path::{Path, PathBuf};

/// Folders that hold no files of ours (build output, installed packages).
const SKIPPED: &[&str] = &[
    "target",
    "node_modules",
    "venv",
    ".git",
    "corpus",
    "artifacts",
];

/// Files whose references are checked.
fn checked_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        if path.is_dir() {
            if !SKIPPED.contains(&name.as_str()) && !name.starts_with("target-") {
                checked_files(&path, found);
            }
        } else if [".rs", ".toml", ".sh", ".py", ".mjs", ".sol", ".md"]
            .iter()
            .any(|ext| name.ends_with(ext))
        {
            found.push(path);
        }
    }
}

/// What a reference looks like when it points outside the repository.
const OUTSIDE: &[&str] = &[
    "decisions.md",
    "service-spec",
    "x402-notes",
    "design/architecture.md",
    "design/security.md",
    "design/extraction.md",
];

/// `issue 12`, `issue #4`: a tracker number.
fn cites_an_issue_number(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.match_indices("issue ").any(|(at, _)| {
        let rest = lower[at + "issue ".len()..].trim_start_matches('#');
        rest.starts_with(|c: char| c.is_ascii_digit())
    })
}

#[test]
fn every_cited_document_is_in_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    checked_files(&root, &mut files);
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut problems = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let shown = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        // This file names the patterns it looks for.
        if shown.ends_with("tests/tests/references.rs") {
            continue;
        }
        for (number, line) in text.lines().enumerate() {
            let at = format!("{shown}:{}", number + 1);
            for (start, _) in line.match_indices("docs/") {
                let cited: String = line[start..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '-' | '_'))
                    .collect();
                let cited = cited.trim_end_matches('.');
                if cited.ends_with(".md") && !root.join(cited).is_file() {
                    problems.push(format!("{at}: cites {cited}, which does not exist"));
                }
            }
            for outside in OUTSIDE {
                if line.contains(outside) {
                    problems.push(format!("{at}: cites {outside}, outside the repository"));
                }
            }
            if cites_an_issue_number(line) {
                problems.push(format!("{at}: cites an issue number: {}", line.trim()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
