//! The quality floors of the extraction issue, checked on the labelled corpus at every test run.

use contact_benches::{eval, shared_dir};

#[test]
fn corpus_quality_meets_the_floors() {
    let report = eval::evaluate(&shared_dir().join("corpus")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        report.pages >= 70,
        "the corpus has {} labelled pages",
        report.pages
    );
    assert!(
        report.meets_floors(),
        "below the floors:\n{}\n{}",
        report.table(),
        report.differences.join("\n")
    );
}
