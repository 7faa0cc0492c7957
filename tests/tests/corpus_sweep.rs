//! Every labelled corpus page and every page of the performance corpus, each as a one-page site
//! through extraction, crawl planning, merge and JSON serialisation: no panic, and the result
//! keeps the spec's invariants (docs/contract.md "Result fields").

use std::path::{Path, PathBuf};

use contact_core::{crawl, extract};
use url::Url;

fn html_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    files.sort();
    files
}

fn check_page(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let parsed = extract::parse_page(None, &bytes);
    let url = parsed
        .declared_url()
        .unwrap_or_else(|| Url::parse("https://example.com/").expect("static URL"));
    let page = parsed.extract(&url);
    let plan = crawl::plan(&url, &page.links);
    assert!(plan.fetch.len() <= crawl::MAX_EXTRA_PAGES);
    assert!(plan.contact_pages.len() <= crawl::MAX_CONTACT_PAGES);
    let result = extract::merge(
        extract::SiteInfo {
            input_url: url.as_str(),
            url: &url,
            contact_pages: plan.contact_pages.iter().map(Url::to_string).collect(),
            pages_fetched: 1,
            duration_ms: 0,
            request_id: String::new(),
        },
        std::slice::from_ref(&page),
    );
    let name = path.display();
    for email in &result.emails {
        assert_eq!(email.value, email.value.to_lowercase(), "{name}");
        assert_eq!(email.source_url, url.as_str(), "{name}");
    }
    for phone in &result.phones {
        assert!(
            phone.value.starts_with('+') && phone.value[1..].bytes().all(|b| b.is_ascii_digit()),
            "{name}: {}",
            phone.value
        );
    }
    let mut values: Vec<&str> = result
        .emails
        .iter()
        .chain(&result.phones)
        .map(|v| v.value.as_str())
        .collect();
    let count = values.len();
    values.sort_unstable();
    values.dedup();
    assert_eq!(values.len(), count, "{name}: duplicates");
    for url in result
        .socials
        .linkedin
        .iter()
        .chain(&result.socials.facebook)
        .chain(&result.socials.x)
    {
        assert!(
            url.starts_with("https://") && !url.ends_with('/') && !url.contains('#'),
            "{name}: {url}"
        );
    }
    let json = serde_json::to_value(&result).expect("serialisable");
    for field in [
        "success",
        "inputUrl",
        "domain",
        "companyName",
        "emails",
        "phones",
        "socials",
        "addresses",
        "contactPages",
        "pagesScanned",
        "meta",
        "requestId",
    ] {
        assert!(json.get(field).is_some(), "{name}: {field}");
    }
}

#[test]
fn labelled_corpus_pages_keep_the_invariants() {
    let test = "labelled_corpus_pages_keep_the_invariants";
    let Some(pages) = contact_benches::shared_or_skip("corpus/pages", test) else {
        return;
    };
    let files = html_files(&pages);
    assert!(files.len() >= 70);
    files.iter().for_each(|f| check_page(f));
}

#[test]
fn performance_corpus_pages_keep_the_invariants() {
    let test = "performance_corpus_pages_keep_the_invariants";
    let Some(pages) = contact_benches::shared_or_skip("corpus-perf", test) else {
        return;
    };
    let files = html_files(&pages);
    assert!(files.len() >= 300);
    files.iter().for_each(|f| check_page(f));
}
