//! The HTML5 differential oracle: `html5ever` (with its reference DOM) reads a page, the
//! walker's visibility rules are applied to its tree, and the result is compared with what
//! [`crate::extract::html::parse`] yields — visible text modulo white space and invisible
//! format characters, and the `href`s of `<a>`/`<area>` in document order. Used by
//! `tests/tests/html5_oracle.rs` and the `html5_oracle` fuzz target; feature `html5-oracle`.
//!
//! "Visible" means the walker's rules, applied to the oracle's tree: no text from `<head>`,
//! `<title>`, the skipped elements (`script`, `style`, `textarea`, `select`, `svg`, `iframe`,
//! `noscript`, `object`, `datalist`), `<template>` content or hidden elements (`hidden`
//! attribute, inline `display:none` / `visibility:hidden`); links are kept from hidden
//! elements and templates but not from skipped elements.

use html5ever::tendril::TendrilSink;
use markup5ever_rcdom::{Handle, NodeData, RcDom};

use crate::extract;

/// Elements whose subtree the walker skips (`core/src/extract/html.rs`, `Walker::enter`).
const SKIPPED: &[&str] = &[
    "script", "style", "textarea", "select", "svg", "iframe", "noscript", "object", "datalist",
    "title",
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

/// `text` without white space, control characters (the walker reads them as white space:
/// they show nothing) and the invisible format characters (soft hyphen, zero-width
/// space/joiners, word joiner, byte order mark), which the walker drops: they show nothing
/// and would split an email or a phone number.
fn without_space(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars().filter(|c| {
        !c.is_whitespace()
            && !c.is_control()
            && !matches!(c, '\u{AD}' | '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
    })
}

/// Appends `href` unless it is already there: links are compared as the set of URLs in order
/// of first appearance. HTML5's adoption agency and its reconstruction of the active
/// formatting elements (§13.2.4.3, §13.2.6.4.7) clone an `<a>` left open across a block
/// (`<a href=x><p>a</p><p>b</p>`): the same link again, after itself (and after a
/// `<template>`'s links, which sit in document order but outside the cloning). The walker
/// keeps such a link once, which is all its readers need: crawl planning, social profiles
/// and `mailto:`/`tel:` links read sets of URLs.
fn push_link(hrefs: &mut Vec<String>, href: String) {
    if !hrefs.contains(&href) {
        hrefs.push(href);
    }
}

fn style_hides(style: &str) -> bool {
    let compact: String = without_space(style)
        .collect::<String>()
        .to_ascii_lowercase();
    compact.contains("display:none") || compact.contains("visibility:hidden")
}

/// The value of attribute `name` of an element node.
fn attr(node: &Handle, name: &str) -> Option<String> {
    let NodeData::Element { attrs, .. } = &node.data else {
        return None;
    };
    attrs
        .borrow()
        .iter()
        .find(|a| a.name.ns.is_empty() && &*a.name.local == name)
        .map(|a| a.value.to_string())
}

/// The oracle: html5ever's tree (its reference DOM, `markup5ever_rcdom`, the one html5ever's
/// own tree-construction tests use), read with the walker's rules.
///
/// # Panics
/// Never on any input: reading from a `&[u8]` cannot fail.
pub fn oracle(html: &str) -> Seen {
    let dom = html5ever::parse_document(RcDom::default(), html5ever::ParseOpts::default())
        .from_utf8()
        .read_from(&mut html.as_bytes())
        .expect("reading from memory cannot fail");
    let mut seen = Seen {
        text: String::new(),
        hrefs: Vec::new(),
    };
    // Depth-first, in document order, with an explicit stack (pages nest deeply): each entry is
    // a node and whether it hides its subtree's text.
    let mut stack: Vec<(Handle, bool)> = vec![(dom.document.clone(), false)];
    while let Some((node, hidden)) = stack.pop() {
        let hides = match &node.data {
            NodeData::Text { contents } => {
                if !hidden {
                    seen.text.extend(without_space(&contents.borrow()));
                }
                continue;
            }
            NodeData::Element {
                name,
                template_contents,
                ..
            } => {
                let local = &*name.local;
                if SKIPPED.contains(&local) {
                    continue;
                }
                // A template's content is a fragment of its own: its links count, its text
                // does not (the walker's rule for templates).
                if let Some(contents) = template_contents.borrow().as_ref() {
                    stack.push((contents.clone(), true));
                    continue;
                }
                if matches!(local, "a" | "area") && seen.hrefs.len() < MAX_LINKS {
                    if let Some(href) = attr(&node, "href") {
                        push_link(&mut seen.hrefs, without_space(&href).collect());
                    }
                }
                hidden
                    || local == "head"
                    || attr(&node, "hidden").is_some()
                    || attr(&node, "style").is_some_and(|s| style_hides(&s))
            }
            NodeData::Document => hidden,
            _ => continue,
        };
        let children = node.children.borrow();
        stack.extend(children.iter().rev().map(|child| (child.clone(), hides)));
    }
    seen
}

/// What our walker yields for the same text.
pub fn ours(html: &str) -> Seen {
    let document = extract::html::parse(html);
    Seen {
        text: without_space(&document.text).collect(),
        hrefs: document.links.iter().fold(Vec::new(), |mut hrefs, link| {
            push_link(&mut hrefs, without_space(link.href).collect());
            hrefs
        }),
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

/// The words of the fuzz target's and the generated-page test's pages (text, an email, a
/// phone number, non-ASCII letters, a bare `&`), between the markup of [`PIECES`].
pub const WORDS: &[&str] = &[
    "alpha",
    "Beta",
    "x@y.com",
    "+44 20 8551 6580",
    "Straße",
    "naïve",
    "1234",
    "a&b",
];

/// The vocabulary of the `html5_oracle` fuzz target and of the generated-page test: the
/// markup classes the oracle found as pieces the fuzzer strings together in any order (so elements
/// open and close anywhere, formatting elements misnest and run HTML5's adoption agency).
/// Left out: hidden elements other than whole, simple ones (the walker hides only elements
/// the layout saw closed, on purpose), and text directly in a `<table>` outside its cells (HTML5
/// moves it before the table, "foster parenting"; the walker keeps it in place: the same
/// text in another order, not seen on the 460 corpus pages).
pub const PIECES: &[&str] = &[
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
    "<b>",
    "</b>",
    "<i>",
    "</i>",
    "<font color=red>",
    "</font>",
    "<a href=\"/k\">",
    "</a>",
    "</li >",
    "</p class=x>",
    "<p [hidden]=\"x\" @click=\"y\">amp</p>",
    "18 <3",
    "<template><template>t<a href=\"/t\">t</a></template>u</template>",
    "<template>",
    "</template>",
];

/// Fuzz entry point: each input byte picks a word or a piece (at most 96); the page they make
/// must look the same to the walker and to the oracle.
///
/// # Panics
/// When they differ, with the page and where they part.
pub fn fuzz_page(data: &[u8]) {
    let vocabulary = WORDS.len() + PIECES.len();
    let body: Vec<&str> = data
        .iter()
        .take(96)
        .map(|b| match usize::from(*b) % vocabulary {
            i if i < WORDS.len() => WORDS[i],
            i => PIECES[i - WORDS.len()],
        })
        .collect();
    let page = format!(
        "<html><head><title>T</title></head><body>{}</body></html>",
        body.join(" ")
    );
    if let Some(why) = divergence(&page) {
        panic!("the walker and HTML5 differ: {why}\npage: {page}");
    }
}
