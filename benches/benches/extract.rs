//! Extraction throughput on one core over `shared/corpus-perf` (383 real pages, ~68 MB).
//!
//! `cargo bench -p contact-benches --bench extract` prints, per stage, the time for the whole
//! corpus and the throughput (divan's bytes counter, MB/s):
//! - `decode`: charset detection and decoding;
//! - `tl_parse`: the bare parse of the `tl` crate on the pages as written (a reference point:
//!   the extraction runs `tl` on the prescan's canonical copy, about a sixth of the page's bytes);
//! - `document`: decode + prescan (writing the copy) + `tl` + our walk (text, links,
//!   metadata);
//! - `full`: everything the service does per page (all extractors + crawl plan).

use contact_benches::{load_pages, shared_dir};
use contact_core::{crawl, extract};
use divan::counter::BytesCount;
use divan::Bencher;
use url::Url;

fn main() {
    divan::main();
}

fn corpus() -> Vec<Vec<u8>> {
    let dir = shared_dir().join("corpus-perf");
    load_pages(&dir)
        .unwrap_or_else(|e| panic!("cannot load {}: {e}", dir.display()))
        .into_iter()
        .map(|(_, bytes)| bytes)
        .collect()
}

fn total(pages: &[Vec<u8>]) -> usize {
    pages.iter().map(Vec::len).sum()
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn decode(bencher: Bencher) {
    let pages = corpus();
    bencher.counter(BytesCount::new(total(&pages))).bench(|| {
        for page in &pages {
            divan::black_box(extract::decode::decode_page(None, page));
        }
    });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn tl_parse(bencher: Bencher) {
    let pages: Vec<String> = corpus()
        .iter()
        .map(|p| extract::decode::decode_page(None, p).into_owned())
        .collect();
    let bytes: usize = pages.iter().map(String::len).sum();
    bencher.counter(BytesCount::new(bytes)).bench(|| {
        for page in &pages {
            if let Ok(dom) = tl::parse(page, tl::ParserOptions::default()) {
                divan::black_box(dom.nodes().len());
            }
        }
    });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn document(bencher: Bencher) {
    let pages = corpus();
    bencher.counter(BytesCount::new(total(&pages))).bench(|| {
        for page in &pages {
            let text = extract::decode::decode_page(None, page);
            divan::black_box(extract::html::parse(&text));
        }
    });
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn full(bencher: Bencher) {
    let pages = corpus();
    let home = Url::parse("https://www.example.com/").unwrap_or_else(|e| panic!("{e}"));
    // Warm the phone metadata (loaded once per process) outside the measurement.
    divan::black_box(extract::extract_page(
        &home,
        None,
        b"<p>Tel +1 303 555 0100</p>",
    ));
    bencher.counter(BytesCount::new(total(&pages))).bench(|| {
        for page in &pages {
            let result = extract::extract_page(&home, None, page);
            divan::black_box(crawl::plan(&home, &result.links));
        }
    });
}
