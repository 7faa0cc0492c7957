//! Extraction time of the crafted pages in `contact_benches::pathological` (each ~2 MiB):
//! the worst a single page can cost a worker. `full` is what the service does per page
//! (extract + crawl plan); the merge of one such page into a result is measured apart.
//!
//! `cargo bench -p contact-benches --bench pathological`

use contact_benches::pathological::PAGES;
use contact_core::crawl;
use contact_core::extract::{self, SiteInfo};
use divan::counter::BytesCount;
use divan::Bencher;
use url::Url;

fn main() {
    divan::main();
}

fn names() -> Vec<&'static str> {
    PAGES.iter().map(|(n, _)| *n).collect()
}

#[divan::bench(args = names(), sample_count = 3, sample_size = 1)]
fn full(bencher: Bencher, name: &str) {
    let page = contact_benches::pathological::page(name).expect("known page");
    let url = Url::parse("https://www.pathological.com/").expect("url");
    bencher.counter(BytesCount::new(page.len())).bench(|| {
        let found = extract::extract_page(&url, Some("text/html"), &page);
        divan::black_box(crawl::plan(&url, &found.links));
        found
    });
}

#[divan::bench(args = names(), sample_count = 3, sample_size = 1)]
fn merge(bencher: Bencher, name: &str) {
    let page = contact_benches::pathological::page(name).expect("known page");
    let url = Url::parse("https://www.pathological.com/").expect("url");
    let found = extract::extract_page(&url, Some("text/html"), &page);
    bencher.bench(|| {
        let site = SiteInfo {
            input_url: "https://www.pathological.com/",
            url: &url,
            contact_pages: Vec::new(),
            pages_fetched: 1,
            duration_ms: 0,
            request_id: String::new(),
        };
        extract::merge(site, std::slice::from_ref(&found))
    });
}
