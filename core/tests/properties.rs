//! Property tests of the extractor: it never panics, its output is deterministic, and every
//! email it returns is spelled in the input (modulo entity/percent decoding and the textual
//! `[at]`/`(dot)` obfuscations, whose parts still occur).

use contact_core::extract::{self, entities};
use proptest::prelude::*;
use url::Url;

fn home() -> Url {
    Url::parse("https://www.example-shop.nl/").expect("static URL")
}

/// HTML built from fragments that real contact pages are made of, glued at random.
fn html_fragments() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("<p>".to_string()),
        Just("</p>".to_string()),
        Just("<br>".to_string()),
        Just("<div style=\"display:none\">".to_string()),
        Just("</div>".to_string()),
        Just("<span>".to_string()),
        Just("</span>".to_string()),
        Just("<script>".to_string()),
        Just("</script>".to_string()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("Tel: ".to_string()),
        Just("Fax ".to_string()),
        Just("KvK ".to_string()),
        Just(" [at] ".to_string()),
        Just(" (dot) ".to_string()),
        Just("&#64;".to_string()),
        Just("&amp;".to_string()),
        "[a-z]{1,8}@[a-z]{1,8}\\.(nl|com|co\\.uk|png)",
        "<a href=\"mailto:[a-zA-Z%0-9]{1,8}@[a-z]{1,8}\\.(nl|com)(\\?subject=x)?\">",
        "<a href=\"tel:[+0-9 %-]{0,16}\">",
        "<a href=\"https://(www\\.)?(facebook|twitter|x|instagram|linkedin|youtube)\\.com/[a-z/#!?=]{0,12}\">",
        "[0-9 ()+.-]{1,16}",
        "[1-9][0-9]{3} ?[A-Z]{2} [A-Z][a-z]{2,8}",
        "[A-Za-z ,.]{0,20}",
        "\\PC{0,6}",
    ];
    prop::collection::vec(fragment, 0..40).prop_map(|parts| parts.concat())
}

/// Lower-cased, entity- and percent-decoded input, also with tags removed (inline elements
/// join into one visible string, as in a browser): where every returned email must be spelled.
fn searchable(html: &str) -> String {
    let decoded = entities::decode(html);
    let percent = percent_encoding::percent_decode_str(&decoded)
        .decode_utf8_lossy()
        .into_owned();
    let mut untagged = String::new();
    let mut in_tag = false;
    let visible = without_raw_text(html);
    let mut chars = visible.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            // HTML5 tag open state (WHATWG 13.2.5.6): `<` opens a tag, a comment or a
            // declaration only before a letter, `/`, `!` or `?`; otherwise it is text
            // (`<{%a@a.nl` shows as `<{%a@a.nl`).
            '<' if !in_tag
                && chars
                    .peek()
                    .is_some_and(|&c| opens_tag(c.encode_utf8(&mut [0; 4]))) =>
            {
                in_tag = true
            }
            '>' if in_tag => in_tag = false,
            c if !in_tag => untagged.push(c),
            _ => {}
        }
    }
    let untagged = entities::decode(&untagged).into_owned();
    format!("{decoded} {percent} {untagged}").to_lowercase()
}

/// `html` without script contents and comments, which add no visible text. A `<!--` or
/// `<script>` inside a tag opens neither (WHATWG 13.2.5.8, tag name state: `<a<!--<p>` is one
/// tag, named `a<!--<p`, and the text after it is visible).
fn without_raw_text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    let mut rest = html;
    while let Some(ch) = rest.chars().next() {
        if !in_tag {
            let raw = [("<script>", "</script>"), ("<!--", "-->")]
                .into_iter()
                .find(|(open, _)| rest.starts_with(open));
            if let Some((open, close)) = raw {
                match rest[open.len()..].find(close) {
                    Some(end) => {
                        rest = &rest[open.len() + end + close.len()..];
                        continue;
                    }
                    None => return out,
                }
            }
        }
        match ch {
            '<' if !in_tag && opens_tag(&rest[1..]) => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ => {}
        }
        out.push(ch);
        rest = &rest[ch.len_utf8()..];
    }
    out
}

/// Whether the text after a `<` makes it open a tag, a comment or a declaration (WHATWG
/// 13.2.5.6, tag open state: a letter, `/`, `!` or `?` next); otherwise the `<` is text.
fn opens_tag(after: &str) -> bool {
    after
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || "/!?".contains(c))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn never_panics_on_arbitrary_bytes(data in prop::collection::vec(any::<u8>(), 0..2048)) {
        contact_core::testing::fuzz::extract_page(&data);
    }

    #[test]
    fn never_panics_on_arbitrary_text(text in "\\PC{0,512}") {
        contact_core::testing::fuzz::extract_page(text.as_bytes());
    }

    #[test]
    fn emails_are_spelled_in_the_input(html in html_fragments()) {
        let page = extract::extract_page(&home(), Some("text/html; charset=utf-8"), html.as_bytes());
        let haystack = searchable(&html);
        for email in &page.emails {
            let (local, domain) = email.split_once('@').expect("an email has an @");
            prop_assert!(haystack.contains(local), "local part of {email} not in input");
            for label in domain.split('.') {
                prop_assert!(haystack.contains(label), "domain label {label} of {email} not in input");
            }
        }
        // Deterministic, and E.164 only.
        let again = extract::extract_page(&home(), Some("text/html; charset=utf-8"), html.as_bytes());
        prop_assert_eq!(&page, &again);
        for phone in &page.phones {
            prop_assert!(phone.starts_with('+') && phone.len() <= 16);
        }
    }
}
