//! Differential test of the page walker against a spec-compliant HTML5 parser:
//! `html5ever` (with its reference DOM `markup5ever_rcdom`; a test-only feature, production keeps `tl`) is the
//! oracle. For every page of every labelled corpus (`../shared/corpus`, `corpus-2026`,
//! `corpus-frameworks`, `corpus-world` and the held-out `corpus-world-check`, of which only the
//! count of divergent pages is ever printed), of `../shared/corpus-perf` and for generated
//! pages, the visible text our walker yields (`extract::html::parse`) must equal the oracle's
//! modulo white space (and invisible format characters), and so must the `href`s of
//! `<a>`/`<area>`, in document order (modulo white space, which URL parsing drops).
//!
//! "Visible" means the walker's rules, applied to the oracle's tree: no text from `<head>`,
//! `<title>`, the skipped elements (`script`, `style`, `textarea`, `select`, `svg`, `iframe`,
//! `noscript`, `object`, `datalist`), `<template>` content or hidden elements (`hidden`
//! attribute, inline `display:none` / `visibility:hidden`); links are kept from hidden
//! elements and templates but not from skipped elements.

use contact_core::extract;
use contact_core::testing::html5_oracle::{divergence, PIECES, WORDS};
use proptest::prelude::*;

/// Pages of a shared corpus folder that diverge, with the reason, after decoding each page
/// as the service does.
fn divergent_pages(dir: &std::path::Path) -> (usize, Vec<String>) {
    let pages = contact_benches::load_pages(dir).unwrap_or_else(|e| panic!("{e}"));
    let total = pages.len();
    let divergent = pages
        .iter()
        .filter_map(|(path, bytes)| {
            let text = extract::decode::decode_page(None, bytes);
            divergence(&text).map(|why| format!("{}: {why}", path.display()))
        })
        .collect();
    (total, divergent)
}

/// The shared corpora the oracle reads: every labelled one (a folder with a `truth.json`, its
/// pages in `pages/`) and `corpus-perf`.
const CORPORA: &[&str] = &[
    "corpus",
    "corpus-2026",
    "corpus-frameworks",
    "corpus-world",
    "corpus-world-check",
    "corpus-perf",
];

#[test]
fn the_walker_agrees_with_html5_on_the_shared_corpora() {
    let test = "the_walker_agrees_with_html5_on_the_shared_corpora";
    let Some(shared) = contact_benches::shared_or_skip("", test) else {
        return;
    };
    let mut labelled: Vec<String> = std::fs::read_dir(&shared)
        .expect("the shared folder")
        .flatten()
        .filter(|entry| entry.path().join("truth.json").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    labelled.sort();
    let missing: Vec<&String> = labelled
        .iter()
        .filter(|name| !CORPORA.contains(&name.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "labelled corpora the oracle does not read: {missing:?}"
    );
    let mut all = Vec::new();
    let mut pages = 0;
    for corpus in CORPORA {
        let sub = if labelled.iter().any(|name| name == corpus) {
            format!("{corpus}/pages")
        } else {
            (*corpus).to_string()
        };
        let Some(dir) = contact_benches::shared_or_skip(&sub, test) else {
            return;
        };
        let (total, divergent) = divergent_pages(&dir);
        eprintln!("{corpus}: {} of {total} pages divergent", divergent.len());
        pages += total;
        if contact_benches::eval::totals_only(corpus) {
            // The held-out corpus: its count, never its pages.
            all.extend(std::iter::repeat_n(String::new(), divergent.len()));
        } else {
            all.extend(divergent);
        }
    }
    for why in all.iter().filter(|why| !why.is_empty()) {
        eprintln!("{why}\n");
    }
    eprintln!("divergent pages: {} of {pages}", all.len());
    // 177 pages diverged when this test was written, 13 after the first round of fixes
    // (all adoption-agency link clones, the walker's reading of `</li >`, `[hidden]`, `<3`
    // and nested templates, and the oracle's own tree losing nodes); none since.
    assert!(
        all.is_empty(),
        "{} of {pages} pages diverge from the HTML5 oracle",
        all.len()
    );
}

/// Pieces of generated pages: the fuzz target's vocabulary ([`PIECES`]: comments of every
/// ending, CDATA, bogus comments, processing instructions, raw-text elements, entity edge
/// cases, odd attribute quoting, hidden elements) nested in elements, closed or not.
fn piece() -> impl Strategy<Value = String> {
    let word = prop::sample::select(WORDS);
    // Formatting elements (`b`, `i`, `em`, `font`, `a`) among blocks, closed or not: a
    // misnested one runs HTML5's adoption agency algorithm.
    let element = prop::sample::select(vec![
        "div", "p", "span", "li", "section", "article", "b", "i", "em", "font", "a", "ul", "h2",
        "button", "nobr", "center", "form",
    ]);
    let attribute = prop::sample::select(vec![
        "",
        " class=x",
        " class=\"a b\"",
        " data-x='1'",
        " title=“quoted”",
        " id=foot/er",
    ]);
    let href = prop::sample::select(vec![
        "/contact",
        "//example.com/a/b?c=1&d=2",
        "mailto:info@example.com",
        "https://facebook.com/acme",
        "/?u=&quote=x",
    ]);
    let leaf = prop_oneof![
        word.clone().prop_map(str::to_string),
        // The fuzz target's pieces: the markup classes, entities, hidden elements, links.
        prop::sample::select(PIECES).prop_map(str::to_string),
        (href.clone(), word.clone()).prop_map(|(h, w)| format!("<a href=\"{h}\">{w}</a>")),
        (href, word).prop_map(|(h, w)| format!("<a href={h}>{w}</a>")),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        (
            element.clone(),
            attribute.clone(),
            prop::collection::vec(inner, 0..6),
            any::<bool>(),
        )
            .prop_map(|(name, attrs, children, closed)| {
                let body = children.join(" ");
                if closed {
                    format!("<{name}{attrs}>{body}</{name}>")
                } else {
                    format!("<{name}{attrs}>{body}")
                }
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    /// Generated pages: the walker sees what an HTML5 parser sees.
    #[test]
    fn the_walker_agrees_with_html5_on_generated_pages(
        pieces in prop::collection::vec(piece(), 1..8)
    ) {
        let page = format!("<html><head><title>T</title></head><body>{}</body></html>", pieces.join("\n"));
        prop_assert_eq!(divergence(&page), None, "{}", page);
    }
}

/// The `html5_oracle` fuzz target's committed seeds, replayed on stable.
#[test]
fn the_html5_oracle_fuzz_seeds_replay() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/html5_oracle");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&dir).expect("seed directory") {
        let data = std::fs::read(entry.expect("seed").path()).expect("seed file");
        contact_core::testing::html5_oracle::fuzz_page(&data);
        replayed += 1;
    }
    // Exactly: a missing seed is a finding no longer replayed; new seeds are committed with
    // this count changed (docs/testing.md, "Fuzzing").
    assert_eq!(replayed, 183, "seeds in fuzz/corpus/html5_oracle");
}
