//! CPU-heavy work as an effect of the runtime contract: checking a payment locally (EIP-712
//! digest and ECDSA recovery), decoding and extracting a fetched page, and building a crawl's
//! result. The exchange never does this work itself: it emits
//! [`crate::io::Output::Work`] and gets the answer back as [`crate::io::Input::WorkDone`], so a
//! runtime runs it on a bounded worker pool, off its IO threads and outside any lock, and one
//! heavy page never delays another connection.
//!
//! [`Work::run`] is pure (no IO, no clock): the runtime only decides *where* it runs. A panic
//! inside it (a bug in an extractor or the merge) is caught here and becomes
//! [`Failure::Internal`] (docs/contract.md "Request order" step 8), so a worker thread never dies of it.

use std::time::Duration;

use url::Url;

use crate::api::{ContactExtractionResult, Failure};
use crate::budget::PAGE_WORK_BUDGET;
use crate::crawl::{self, CrawlPlan};
use crate::extract::{PageExtraction, SiteInfo};
use crate::fetch::decode::decode_body;
use crate::fetch::policy::is_html;
use crate::fetch::{FetchError, MAX_PAGE_BYTES};
use crate::payment::verify::{verify_locally, PaymentError, VerifiedPayment};
use crate::payment::{PaymentPayload, PaymentRequirements};
use crate::server::{Extractor, Merger};

/// Names one piece of work of an exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkId(pub u32);

/// One piece of CPU work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// Check a payment locally (docs/payments.md: local checks).
    Payment(Box<PaymentWork>),
    /// Decode a fetched page and extract its contact data.
    Page(PageWork),
    /// Merge a crawl's pages into the result and serialise it.
    Result(ResultWork),
}

/// What a piece of work produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkDone {
    /// The payment passed the local checks, or why not.
    Payment(Result<Box<VerifiedPayment>, PaymentError>),
    /// A page: its extraction and its size once decoded (bytes), or why it is unusable.
    Page(Result<Box<ExtractedPage>, Failure>),
    /// The result and its JSON serialisation, or [`Failure::Internal`] (a bug).
    Result(Result<Box<BuiltResult>, Failure>),
}

/// A decoded and extracted page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractedPage {
    /// The page's contact data.
    pub extraction: PageExtraction,
    /// Body size after decompression, in bytes (counted against the per-job cap).
    pub decoded_bytes: usize,
    /// The crawl plan, for a homepage ([`PageWork::plan_for`]).
    pub plan: Option<CrawlPlan>,
}

/// A built result: the value and the exact bytes of the 200 body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltResult {
    /// The result.
    pub result: ContactExtractionResult,
    /// Its JSON serialisation.
    pub body: Vec<u8>,
}

/// A payment to check against our requirements at `unix_now` (seconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentWork {
    /// The decoded `PAYMENT-SIGNATURE`.
    pub payment: PaymentPayload,
    /// Our requirements.
    pub requirements: PaymentRequirements,
    /// Unix time of the request, in seconds.
    pub unix_now: u64,
}

/// A fetched page to decode and extract. Equality compares the data, not the extractor
/// (function addresses are not meaningful to compare).
#[derive(Clone)]
pub struct PageWork {
    /// The page's final URL.
    pub url: Url,
    /// `Content-Type` of the response.
    pub content_type: Option<String>,
    /// `Content-Encoding` of the response.
    pub content_encoding: Option<String>,
    /// The body as received (possibly compressed).
    pub body: Vec<u8>,
    /// The extractor to run.
    pub extractor: Extractor,
    /// For the homepage: the site's URL, to plan the extra pages from its links here on the
    /// worker (5 000 links are milliseconds of scoring: not for the IO threads).
    pub plan_for: Option<Url>,
}

impl std::fmt::Debug for PageWork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageWork")
            .field("url", &self.url.as_str())
            .field("content_type", &self.content_type)
            .field("content_encoding", &self.content_encoding)
            .field("body_bytes", &self.body.len())
            .finish_non_exhaustive()
    }
}

/// A crawl's pages to merge into the result. Equality compares the data, not the merger.
#[derive(Clone)]
pub struct ResultWork {
    /// `inputUrl`.
    pub input_url: String,
    /// The submitted URL, parsed.
    pub url: Url,
    /// `contactPages`.
    pub contact_pages: Vec<String>,
    /// `meta.pagesFetched`.
    pub pages_fetched: u32,
    /// `meta.durationMs`.
    pub duration_ms: u64,
    /// `requestId`.
    pub request_id: String,
    /// The pages, homepage first.
    pub pages: Vec<PageExtraction>,
    /// The merge to run.
    pub merger: Merger,
}

impl PartialEq for PageWork {
    fn eq(&self, other: &Self) -> bool {
        (
            &self.url,
            &self.content_type,
            &self.content_encoding,
            &self.body,
        ) == (
            &other.url,
            &other.content_type,
            &other.content_encoding,
            &other.body,
        )
    }
}

impl Eq for PageWork {}

impl PartialEq for ResultWork {
    fn eq(&self, other: &Self) -> bool {
        (
            &self.input_url,
            &self.url,
            &self.contact_pages,
            self.pages_fetched,
            self.duration_ms,
            &self.request_id,
            &self.pages,
        ) == (
            &other.input_url,
            &other.url,
            &other.contact_pages,
            other.pages_fetched,
            other.duration_ms,
            &other.request_id,
            &other.pages,
        )
    }
}

impl Eq for ResultWork {}

impl std::fmt::Debug for ResultWork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultWork")
            .field("request_id", &self.request_id)
            .field("pages", &self.pages.len())
            .finish_non_exhaustive()
    }
}

impl Work {
    /// The CPU time this work may use before its answer is not used any more, so that a
    /// runtime may stop it there (`crate::pace`): [`PAGE_WORK_BUDGET`] for a page, whose answer
    /// over budget is "too costly"; `None` for a payment check and a result build, whose answer
    /// is always used, so stopping them early would change a paid result.
    pub fn cpu_budget(&self) -> Option<Duration> {
        match self {
            Work::Page(_) => Some(PAGE_WORK_BUDGET),
            Work::Payment(_) | Work::Result(_) => None,
        }
    }

    /// Does the work. Never panics: a panic inside is [`Failure::Internal`].
    pub fn run(self) -> WorkDone {
        match self {
            Work::Payment(check) => WorkDone::Payment(
                verify_locally(&check.payment, &check.requirements, check.unix_now).map(Box::new),
            ),
            Work::Page(page) => WorkDone::Page(page.run()),
            Work::Result(result) => WorkDone::Result(result.run()),
        }
    }
}

impl PageWork {
    /// Decompresses (with the 2 MiB cap after decoding), checks the content type, extracts.
    fn run(self) -> Result<Box<ExtractedPage>, Failure> {
        let body = decode_body(self.content_encoding.as_deref(), self.body, MAX_PAGE_BYTES)
            .map_err(|error| match error {
                FetchError::TooLarge => Failure::ResponseTooLarge,
                _ => Failure::FetchFailed,
            })?;
        if !is_html(self.content_type.as_deref(), &body) {
            return Err(Failure::UnsupportedContentType);
        }
        let (extractor, url, content_type) = (self.extractor, &self.url, &self.content_type);
        let extraction = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            extractor(url, content_type.as_deref(), &body)
        }))
        .map_err(|_| Failure::Internal)?;
        let mut extraction = extraction;
        let plan = self
            .plan_for
            .as_ref()
            .map(|home| crawl::plan(home, &extraction.links));
        // The links only feed the plan: the job does not carry them further.
        extraction.links = Vec::new();
        Ok(Box::new(ExtractedPage {
            extraction,
            decoded_bytes: body.len(),
            plan,
        }))
    }
}

impl ResultWork {
    /// Merges and serialises, under `catch_unwind`.
    fn run(self) -> Result<Box<BuiltResult>, Failure> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let result = (self.merger)(
                SiteInfo {
                    input_url: &self.input_url,
                    url: &self.url,
                    contact_pages: self.contact_pages.clone(),
                    pages_fetched: self.pages_fetched,
                    duration_ms: self.duration_ms,
                    request_id: self.request_id.clone(),
                },
                &self.pages,
            );
            let body = serde_json::to_vec(&result).ok()?;
            Some(Box::new(BuiltResult { result, body }))
        }))
        .ok()
        .flatten()
        .ok_or(Failure::Internal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract;

    fn page(body: &[u8], content_type: Option<&str>, extractor: Extractor) -> PageWork {
        PageWork {
            url: Url::parse("https://acme.example.com/").unwrap(),
            content_type: content_type.map(str::to_string),
            content_encoding: None,
            body: body.to_vec(),
            extractor,
            plan_for: None,
        }
    }

    fn panics(_: &Url, _: Option<&str>, _: &[u8]) -> PageExtraction {
        panic!("extractor bug (deliberate, in a test)")
    }

    #[test]
    fn page_work_decodes_checks_and_extracts() {
        let html = b"<p>Mail info@acme.co.uk</p>";
        let WorkDone::Page(Ok(done)) =
            Work::Page(page(html, Some("text/html"), extract::extract_page)).run()
        else {
            panic!("extracted");
        };
        assert_eq!(done.extraction.emails, ["info@acme.co.uk"]);
        assert_eq!(done.decoded_bytes, html.len());
        assert_eq!(
            Work::Page(page(
                b"%PDF",
                Some("application/pdf"),
                extract::extract_page
            ))
            .run(),
            WorkDone::Page(Err(Failure::UnsupportedContentType))
        );
        assert_eq!(
            Work::Page(page(html, Some("text/html"), panics)).run(),
            WorkDone::Page(Err(Failure::Internal)),
            "a panic is caught"
        );
    }
}
