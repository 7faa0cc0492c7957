//! The quality floors of the extraction issue, checked on the labelled corpus at every test run.

use contact_benches::{eval, shared_or_skip};

#[test]
fn corpus_quality_meets_the_floors() {
    let Some(corpus) = shared_or_skip("corpus", "corpus_quality_meets_the_floors") else {
        return;
    };
    let report = eval::evaluate(&corpus).unwrap_or_else(|e| panic!("{e}"));
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
