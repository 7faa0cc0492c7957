//! The HTML5 differential oracle (issue 11): `html5ever` (through `scraper`) reads a page, the
//! walker's visibility rules are applied to its tree, and the result is compared with what
//! [`crate::extract::html::parse`] yields — visible text modulo white space and invisible
//! format characters, and the `href`s of `<a>`/`<area>` in document order. Used by
//! `tests/tests/html5_oracle.rs` and the `html5_oracle` fuzz target; feature `html5-oracle`.
//!
//! "Visible" means the walker's rules, applied to the oracle's tree: no text from `<head>`,
//! `<title>`, the skipped elements (`script`, `style`, `template`, `textarea`, `select`, `svg`,
//! `iframe`, `noscript`, `object`, `datalist`) or hidden elements (`hidden` attribute, inline
//! `display:none` / `visibility:hidden`); links are kept from hidden elements but not from
//! skipped ones.

use ego_tree::iter::Edge;
use scraper::node::Node;

use crate::extract;

/// Elements whose subtree the walker skips (`core/src/extract/html.rs`, `Walker::enter`).
const SKIPPED: &[&str] = &[
    "script", "style", "template", "textarea", "select", "svg", "iframe", "noscript", "object",
    "datalist", "title",
];

/// Most links the walker keeps per page (`MAX_LINKS`).
const MAX_LINKS: usize = 5_000;

/// What a page shows: its visible text without white space, and its links.
#[derive(Debug, PartialEq, Eq)]
pub struct Seen {
    /// Visible text without white space.
    pub text: String,
    /// `href`s of `<a>`/`<area>`, without white space.
    pub hrefs: Vec<String>,
}

/// `text` without white space and without the invisible format characters (soft hyphen,
/// zero-width space/joiners, word joiner, byte order mark), which the walker drops: they show
/// nothing and would split an email or a phone number.
fn without_space(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars().filter(|c| {
        !c.is_whitespace()
            && !matches!(c, '\u{AD}' | '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
    })
}

fn style_hides(style: &str) -> bool {
    let compact: String = without_space(style)
        .collect::<String>()
        .to_ascii_lowercase();
    compact.contains("display:none") || compact.contains("visibility:hidden")
}

/// The oracle: html5ever's tree, read with the walker's rules.
pub fn oracle(html: &str) -> Seen {
    let document = scraper::Html::parse_document(html);
    let mut seen = Seen {
        text: String::new(),
        hrefs: Vec::new(),
    };
    // Depths of the open skipped and hidden (or head) elements.
    let (mut skipped, mut hidden) = (0usize, 0usize);
    for edge in document.tree.root().traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Text(text) if skipped == 0 && hidden == 0 => {
                    seen.text.extend(without_space(text));
                }
                Node::Element(element) => {
                    let name = element.name();
                    if skipped > 0 || SKIPPED.contains(&name) {
                        skipped += 1;
                        continue;
                    }
                    if matches!(name, "a" | "area") && seen.hrefs.len() < MAX_LINKS {
                        if let Some(href) = element.attr("href") {
                            seen.hrefs.push(without_space(href).collect());
                        }
                    }
                    if name == "head"
                        || element.attr("hidden").is_some()
                        || element.attr("style").is_some_and(style_hides)
                    {
                        hidden += 1;
                    }
                }
                _ => {}
            },
            Edge::Close(node) => {
                if let Node::Element(element) = node.value() {
                    let name = element.name();
                    if skipped > 0 {
                        skipped -= 1;
                    } else if name == "head"
                        || element.attr("hidden").is_some()
                        || element.attr("style").is_some_and(style_hides)
                    {
                        hidden -= 1;
                    }
                }
            }
        }
    }
    seen
}

/// What our walker yields for the same text.
pub fn ours(html: &str) -> Seen {
    let document = extract::html::parse(html);
    Seen {
        text: without_space(&document.text).collect(),
        hrefs: document
            .links
            .iter()
            .map(|l| without_space(&l.href).collect())
            .collect(),
    }
}

/// `None` when both agree; else where they part, with context.
pub fn divergence(html: &str) -> Option<String> {
    let (expected, actual) = (oracle(html), ours(html));
    if expected == actual {
        return None;
    }
    if expected.text != actual.text {
        let at = expected
            .text
            .chars()
            .zip(actual.text.chars())
            .take_while(|(a, b)| a == b)
            .count();
        let around = |s: &str| {
            s.chars()
                .skip(at.saturating_sub(30))
                .take(70)
                .collect::<String>()
        };
        return Some(format!(
            "text parts at char {at} (oracle {} chars, ours {}):\n  oracle: {}\n  ours:   {}",
            expected.text.chars().count(),
            actual.text.chars().count(),
            around(&expected.text),
            around(&actual.text)
        ));
    }
    let at = expected
        .hrefs
        .iter()
        .zip(&actual.hrefs)
        .take_while(|(a, b)| a == b)
        .count();
    Some(format!(
        "links part at #{at} (oracle {}, ours {}): oracle {:?}, ours {:?}",
        expected.hrefs.len(),
        actual.hrefs.len(),
        expected.hrefs.get(at),
        actual.hrefs.get(at)
    ))
}

/// The vocabulary of the `html5_oracle` fuzz target and of the generated-page test: the markup classes of issue 11 as pieces
/// the fuzzer strings together in any order (so elements open and close anywhere). Left out,
/// as in the generated-page test: formatting elements (`b`, `i`, `a` other than whole links)
/// whose misnesting runs HTML5's adoption agency (the oracle's tree drops nodes there), and
/// hidden elements other than whole, simple ones (the walker hides only elements `tl` saw
/// closed, on purpose).
pub const PIECES: &[&str] = &[
    "alpha",
    "Beta",
    "x@y.com",
    "+44 20 8551 6580",
    "Straße",
    "naïve",
    "1234",
    "a&b",
    "<!-- c -->",
    "<!---->",
    "<!--->",
    "<!-->",
    "<!-- Footer Logo --->",
    "<!--- START - Footer -->",
    "<!-- a --!>",
    "<!-- <p>in comment</p> -->",
    "<!--",
    "-->",
    "<![CDATA[cdata]]>",
    "<!x bogus>",
    "<?php echo 1; ?>",
    "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0//EN\">",
    "<script>var s = \"</div><p>\";</script>",
    "<style>p{}</style>",
    "<textarea>t <b>x</b></textarea>",
    "<noscript><p>ns</noscript>",
    "<br/>",
    "<BR>",
    "<hr/>",
    "<img alt=\"pic\" src=x / data-x=\"g\">",
    "&amp;",
    "&rsaquo;",
    "&#x40;",
    "&#64;",
    "&notit;",
    "&amp",
    "&nbsp;",
    "<div>",
    "</div>",
    "<DIV class=x>",
    "<p>",
    "</p>",
    "<span title=“q”>",
    "</span>",
    "<li>",
    "<section id=foot/er>",
    "</section>",
    "<a href=\"/contact\">Contact</a>",
    "<a href=//example.com/a?b=1&c=2>ext</a>",
    "<a href\"\" class=x>odd</a>",
    "<a href=\"/?u=&quote=x\">share</a>",
    "<span hidden>secret</span>",
    "<p style=\"VISIBILITY:hidden\">gone</p>",
    "<div style=\"display: none\"><a href=\"/menu\">menu</a> hidden</div>",
];

/// Fuzz entry point: each input byte picks a piece (at most 96 pieces); the page they make
/// must look the same to the walker and to the oracle.
///
/// # Panics
/// When they differ, with the page and where they part.
pub fn fuzz_page(data: &[u8]) {
    let body: Vec<&str> = data
        .iter()
        .take(96)
        .map(|b| PIECES[usize::from(*b) % PIECES.len()])
        .collect();
    let page = format!(
        "<html><head><title>T</title></head><body>{}</body></html>",
        body.join(" ")
    );
    if let Some(why) = divergence(&page) {
        panic!("the walker and HTML5 differ: {why}\npage: {page}");
    }
}
