//! The quality checks of the extraction, at every test run: the floors of the labelled corpora
//! and their exact page counts, and on every development corpus no page worse than its
//! per-page baseline (`benches/baseline/`). The held-out `corpus-world-check` is held to its
//! floors only, and a failure there shows its totals only (`eval::totals_only`).

use contact_benches::{eval, shared_or_skip, sites};

/// Evaluates `corpus` of the shared folder (`None`: skipped) and fails unless it has exactly
/// `pages` labelled pages, meets its floors (`eval::floors_for`) and, for a development
/// corpus, no page is worse than the corpus's baseline. A held-out corpus's failure names its
/// totals and unmet floors, never a page.
fn meets_the_floors_and_the_baseline(
    corpus: &str,
    pages: usize,
    test: &str,
) -> Option<eval::Report> {
    let dir = shared_or_skip(corpus, test)?;
    let report = eval::evaluate(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.pages, pages, "{corpus} has {pages} labelled pages");
    let floors = eval::floors_for(corpus).unwrap_or_else(|| panic!("{corpus} has no floors"));
    let unmet: Vec<String> = report
        .floor_lines(&floors)
        .into_iter()
        .filter(|(_, met)| !met)
        .map(|(line, _)| line)
        .collect();
    if eval::totals_only(corpus) {
        assert!(
            unmet.is_empty(),
            "{corpus} below the floors:\n{}\n{}",
            report.table(),
            unmet.join("\n")
        );
        return Some(report);
    }
    assert!(
        unmet.is_empty(),
        "{corpus} below the floors:\n{}\n{}\n{}",
        report.table(),
        unmet.join("\n"),
        report.differences().join("\n")
    );
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
fn corpus_meets_the_floors_and_no_page_is_worse_than_the_baseline() {
    meets_the_floors_and_the_baseline(
        "corpus",
        77,
        "corpus_meets_the_floors_and_no_page_is_worse_than_the_baseline",
    );
}

#[test]
fn corpus_2026_meets_the_floors_and_no_page_is_worse_than_the_baseline() {
    meets_the_floors_and_the_baseline(
        "corpus-2026",
        53,
        "corpus_2026_meets_the_floors_and_no_page_is_worse_than_the_baseline",
    );
}

#[test]
fn corpus_frameworks_no_page_worse_and_every_state_only_value_found() {
    let Some(report) = meets_the_floors_and_the_baseline(
        "corpus-frameworks",
        16,
        "corpus_frameworks_no_page_worse_and_every_state_only_value_found",
    ) else {
        return;
    };
    assert!(
        report.in_state_only_missed.is_empty(),
        "values only in framework state not found:\n{}",
        report.table()
    );
}

#[test]
fn corpus_world_meets_the_floors_and_no_page_is_worse_than_the_baseline() {
    meets_the_floors_and_the_baseline(
        "corpus-world",
        51,
        "corpus_world_meets_the_floors_and_no_page_is_worse_than_the_baseline",
    );
}

/// The held-out half: floors only, and on failure the totals and the unmet floors.
#[test]
fn corpus_world_check_meets_the_floors_totals_only() {
    assert!(eval::totals_only("corpus-world-check"));
    meets_the_floors_and_the_baseline(
        "corpus-world-check",
        37,
        "corpus_world_check_meets_the_floors_totals_only",
    );
}

/// Site by site (`eval --sites`, `contact_benches::sites`): each corpus's sites crawled from
/// their home pages fetch at least the floor's share of the labelled non-home pages. On
/// failure only totals are shown (the held-out corpus is one of them).
#[test]
fn site_by_site_contact_page_recall_meets_the_floors() {
    for corpus in [
        "corpus",
        "corpus-2026",
        "corpus-frameworks",
        "corpus-world",
        "corpus-world-check",
    ] {
        let Some(dir) = shared_or_skip(corpus, "site_by_site_contact_page_recall_meets_the_floors")
        else {
            continue;
        };
        let floor = eval::site_recall_floor(corpus)
            .unwrap_or_else(|| panic!("{corpus} has no contact-page recall floor"));
        let report = sites::evaluate_sites(&dir).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            report.contact_page_recall() >= floor,
            "{corpus}: contact-page recall under {floor}:\n{}",
            report.table()
        );
    }
}
