//! Pacing of page extraction (`contact_core::pace`): every stage whose work grows
//! with the page reports it, a pacer that lets the work go on changes no result, and a stop
//! ends the work early.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::panic::Location;
use std::rc::Rc;

use contact_core::pace::{self, Pace, Pacer, QUANTUM};
use contact_core::{crawl, extract};
use url::Url;

/// Records where each checkpoint came from; stops at the `stop_at`-th.
struct Recorder {
    files: Rc<RefCell<Vec<&'static str>>>,
    stop_at: usize,
}

impl Pacer for Recorder {
    fn checkpoint(&mut self, at: &'static Location<'static>) -> Pace {
        let mut files = self.files.borrow_mut();
        files.push(at.file());
        if files.len() >= self.stop_at {
            Pace::Stop
        } else {
            Pace::Continue
        }
    }
}

/// A page of `blocks` repeated blocks with links, emails, phones, postal addresses and a
/// copyright line in each, so that every extractor has work on every part of it.
fn busy_page(blocks: usize) -> Vec<u8> {
    let mut html = String::from("<html lang=en><head><title>Acme Widgets Ltd</title></head><body>");
    for n in 0..blocks {
        html.push_str(&format!(
            "<div class=office><h2>Office {n}</h2>\
             <p>Write to sales{n}@acme-widgets.com or call +1 (415) 555-{:04}.</p>\
             <p>{n} Market Street<br>San Francisco, CA 94105</p>\
             <a href=\"/contact-{n}\">Contact office {n}</a> <a href=\"/about\">About us</a>\
             <p>© 2024 Acme Widgets Ltd</p></div>\n",
            n % 10_000
        ));
    }
    html.push_str("</body></html>");
    html.into_bytes()
}

fn extract_and_plan(url: &Url, page: &[u8]) -> (extract::PageExtraction, crawl::CrawlPlan) {
    let extraction = extract::extract_page(url, Some("text/html"), page);
    let plan = crawl::plan(url, &extraction.links);
    (extraction, plan)
}

fn recorded(stop_at: usize, work: impl FnOnce()) -> (Vec<&'static str>, bool) {
    let files = Rc::new(RefCell::new(Vec::new()));
    let recorder = Recorder {
        files: Rc::clone(&files),
        stop_at,
    };
    let paced = pace::with_pacer(Box::new(recorder), work);
    let files = files.borrow().clone();
    (files, paced.stopped)
}

#[test]
fn every_stage_that_grows_with_the_page_reports_its_work() {
    let url = Url::parse("https://www.acme-widgets.com/").unwrap();
    let page = busy_page(2_000);
    let (files, stopped) = recorded(usize::MAX, || {
        std::hint::black_box(extract_and_plan(&url, &page));
    });
    assert!(!stopped);
    // Each byte of the page is counted at least once on the way (decoding, prescan, parse).
    assert!(
        files.len() >= page.len() / QUANTUM,
        "{} checkpoints for {} bytes",
        files.len(),
        page.len()
    );
    let stages: BTreeSet<&str> = files
        .iter()
        .filter_map(|file| file.rsplit('/').next())
        .collect();
    for stage in [
        "prescan.rs",
        "html.rs",
        "mod.rs",
        "address.rs",
        "phones.rs",
        "emails.rs",
        "company.rs",
        "crawl.rs",
    ] {
        assert!(
            stages.contains(stage),
            "{stage} reached no checkpoint: {stages:?}"
        );
    }
}

#[test]
fn a_pacer_that_lets_the_work_go_on_changes_no_result() {
    let url = Url::parse("https://www.acme-widgets.com/").unwrap();
    let page = busy_page(500);
    let plain = extract_and_plan(&url, &page);
    let mut paced = None;
    let (files, stopped) = recorded(usize::MAX, || paced = Some(extract_and_plan(&url, &page)));
    assert!(!stopped);
    assert!(!files.is_empty());
    assert_eq!(paced, Some(plain));
}

#[test]
fn a_stop_ends_the_extraction_at_the_next_checkpoint() {
    let url = Url::parse("https://www.acme-widgets.com/").unwrap();
    let page = busy_page(2_000);
    let full = extract_and_plan(&url, &page).0;
    assert!(full.emails.len() > 10 && full.phones.len() > 10);
    let mut partial = None;
    let (files, stopped) = recorded(1, || partial = Some(extract_and_plan(&url, &page).0));
    assert!(stopped);
    // Asked once; every later checkpoint saw the stop without asking again.
    assert_eq!(files.len(), 1);
    let partial = partial.unwrap();
    assert!(
        partial.emails.len() < full.emails.len() / 2,
        "{} of {} emails after a stop at the first checkpoint",
        partial.emails.len(),
        full.emails.len()
    );
    // Outside the pacer the next page is whole again.
    assert_eq!(extract_and_plan(&url, &page).0, full);
}
