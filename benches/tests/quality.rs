//! The quality checks of the extraction, at every test run: the floors of the labelled corpora,
//! and on every corpus no page worse than its per-page baseline (`benches/baseline/`).

use contact_benches::{eval, shared_or_skip};

/// Evaluates `corpus` of the shared folder (`None`: skipped) and fails naming every page worse
/// than the corpus's baseline.
fn no_page_worse(corpus: &str, test: &str) -> Option<eval::Report> {
    let dir = shared_or_skip(corpus, test)?;
    let report = eval::evaluate(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = eval::baseline_path(corpus);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the baseline {}: {e}", path.display()));
    let baseline = eval::Baseline::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let regressions = baseline.regressions(&report);
    assert!(
        regressions.is_empty(),
        "{corpus}: pages worse than the baseline {} (fix them, or, when the change is right, \
         write the baseline again with `eval --write-baseline` and say why in the commit):\n{}",
        path.display(),
        regressions.join("\n")
    );
    Some(report)
}

#[test]
fn corpus_quality_meets_the_floors() {
    let Some(report) = no_page_worse("corpus", "corpus_quality_meets_the_floors") else {
        return;
    };
    assert!(
        report.pages >= 70,
        "the corpus has {} labelled pages",
        report.pages
    );
    assert!(
        report.meets(&eval::CORPUS_FLOORS),
        "below the floors:\n{}\n{}",
        report.table(),
        report.differences().join("\n")
    );
}

#[test]
fn corpus_2026_meets_the_floors_and_no_page_is_worse_than_the_baseline() {
    let Some(report) = no_page_worse(
        "corpus-2026",
        "corpus_2026_meets_the_floors_and_no_page_is_worse_than_the_baseline",
    ) else {
        return;
    };
    assert_eq!(report.pages, 53, "corpus-2026 has 53 labelled pages");
    assert!(
        report.meets(&eval::CORPUS_2026_FLOORS),
        "below the floors:\n{}\n{}",
        report.table(),
        report.differences().join("\n")
    );
}

#[test]
fn corpus_frameworks_no_page_worse_and_every_state_only_value_found() {
    let Some(report) = no_page_worse(
        "corpus-frameworks",
        "corpus_frameworks_no_page_worse_and_every_state_only_value_found",
    ) else {
        return;
    };
    assert_eq!(report.pages, 16, "corpus-frameworks has 16 labelled pages");
    assert!(
        report.in_state_only_missed.is_empty(),
        "values only in framework state not found:\n{}",
        report.table()
    );
}
