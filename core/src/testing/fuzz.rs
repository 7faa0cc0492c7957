//! Fuzz entry points, one per `fuzz/fuzz_targets/*.rs`, kept in the library so ordinary builds
//! compile them and the fuzz targets stay three-line shims (architecture.md §4.11).

use url::Url;

use crate::{crawl, extract};

/// `extract_page`: arbitrary bytes as a page of `https://fuzz.example.com/`, with the first
/// byte choosing a declared charset; runs extraction, crawl planning and the merge, and
/// checks the invariants every result must keep.
///
/// # Panics
/// When extraction panics or an invariant breaks (that is the finding).
pub fn extract_page(data: &[u8]) {
    let Ok(home) = Url::parse("https://fuzz.example.com/") else {
        return;
    };
    let content_type = match data.first().map(|b| b % 4) {
        Some(0) => Some("text/html; charset=utf-8"),
        Some(1) => Some("text/html; charset=windows-1252"),
        Some(2) => Some("text/html; charset=shift_jis"),
        _ => None,
    };
    let page = extract::extract_page(&home, content_type, data);
    for email in &page.emails {
        assert_eq!(email, &email.to_lowercase(), "emails are lower-case");
        assert!(email.contains('@'), "an email has an @");
    }
    for phone in &page.phones {
        assert!(
            phone.starts_with('+') && phone[1..].bytes().all(|b| b.is_ascii_digit()),
            "E.164: {phone}"
        );
    }
    for (_, url) in &page.socials {
        assert!(url.starts_with("https://"), "canonical social URL: {url}");
    }
    let again = extract::extract_page(&home, content_type, data);
    assert_eq!(page, again, "extraction is deterministic");
    let plan = crawl::plan(&home, &page.links);
    assert!(plan.fetch.len() <= crawl::MAX_EXTRA_PAGES);
    assert!(plan.contact_pages.len() <= crawl::MAX_CONTACT_PAGES);
    let result = extract::merge(
        extract::SiteInfo {
            input_url: home.as_str(),
            url: &home,
            contact_pages: Vec::new(),
            pages_fetched: 1,
            duration_ms: 0,
            request_id: String::new(),
        },
        std::slice::from_ref(&page),
    );
    assert!(serde_json::to_string(&result).is_ok());
}
