//! [`Server`]: the long-lived state shared by all connections (configuration, rate limiter,
//! request ids, payment store, job count, the unix clock baseline). Runtimes keep it behind a
//! lock and pass it to every [`Exchange`] call.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::api::ContactExtractionResult;
use crate::config::{Config, PaymentConfig};
use crate::exchange::{payment_required_response, Exchange};
use crate::extract::{self, PageExtraction, SiteInfo};
use crate::fetch::http1::user_agent;
use crate::http::response::{PreparedResponse, Response};
use crate::ids::RequestIds;
use crate::limiter::RateLimiter;
use crate::payment::store::{MemoryStore, PaymentStore};

/// A page extractor: (page URL, `Content-Type`, decoded body bytes) → the page's contact data.
pub type Extractor = fn(&url::Url, Option<&str>, &[u8]) -> PageExtraction;
/// Merges the pages of one crawl into the result ([`extract::merge`] unless replaced).
pub type Merger = fn(SiteInfo<'_>, &[PageExtraction]) -> ContactExtractionResult;

/// Shared state of the service.
#[derive(Debug)]
pub struct Server {
    pub(crate) config: Config,
    pub(crate) limiter: RateLimiter,
    pub(crate) ids: RequestIds,
    /// Replay guard and kept results (decisions.md "Money safety").
    pub(crate) payments: Box<dyn PaymentStore>,
    pub(crate) jobs: JobCounter,
    pub(crate) user_agent: String,
    /// The 402 for a request without `PAYMENT-SIGNATURE` (identical every time).
    pub(crate) unpaid_response: PreparedResponse,
    /// Turns one fetched page into contact data ([`extract::extract_page`] unless replaced).
    pub(crate) extractor: Extractor,
    /// Builds the result from the pages ([`extract::merge`] unless replaced).
    pub(crate) merger: Merger,
    started: Instant,
    unix_at_start: Duration,
}

impl Server {
    /// A server for `config`. `seed` is 32 bytes of OS entropy (fixed in tests); `now` and
    /// `unix_now` (time since the UNIX epoch) are read once by the runtime at start-up.
    pub fn new(config: Config, seed: [u8; 32], now: Instant, unix_now: Duration) -> Server {
        let base = match &config.payment {
            PaymentConfig::Ready { terms, .. } => terms
                .resource
                .url
                .trim_end_matches("/api/v1/extract-contact")
                .to_string(),
            PaymentConfig::Incomplete(_) => "https://contact-extract.invalid".to_string(),
        };
        let unpaid_response = match &config.payment {
            PaymentConfig::Ready { terms, .. } => {
                payment_required_response(terms, "Payment required")
            }
            PaymentConfig::Incomplete(_) => Response::json(503, Vec::new()),
        }
        .prepare();
        Server {
            unpaid_response,
            extractor: extract::extract_page,
            merger: extract::merge,
            limiter: RateLimiter::new(config.rate_limit_per_minute, config.rate_limit_burst),
            ids: RequestIds::new(seed),
            payments: Box::new(MemoryStore::default()),
            jobs: JobCounter::default(),
            user_agent: user_agent(&base),
            config,
            started: now,
            unix_at_start: unix_now,
        }
    }

    /// Starts the lifecycle of a freshly accepted connection from `peer`.
    pub fn accept(&mut self, peer: SocketAddr, now: Instant) -> Exchange {
        Exchange::new(peer.ip(), now)
    }

    /// Replaces the page extractor (default [`extract::extract_page`]). The exchange calls it
    /// under `catch_unwind`: a panic there (a bug) answers 500 `INTERNAL_ERROR` for a
    /// homepage, skips an extra page, and is never charged (decisions.md step 8). Tests use
    /// this to exercise that path.
    pub fn set_extractor(&mut self, extractor: Extractor) {
        self.extractor = extractor;
    }

    /// Replaces the merge of a crawl's pages into the result (default [`extract::merge`]). The
    /// exchange calls it, and serialises the result, under `catch_unwind` *before* any
    /// `/settle`: a panic there is 500 `INTERNAL_ERROR`, never charged (decisions.md "Money
    /// safety"). Tests use this to exercise that path.
    pub fn set_merger(&mut self, merger: Merger) {
        self.merger = merger;
    }

    /// Replaces the payment store (default: an in-process [`MemoryStore`] of
    /// [`crate::payment::store::MAX_ENTRIES`] records and
    /// [`crate::payment::store::MAX_KEPT_BYTES`] bytes). The seam for a store shared by several
    /// instances, and for tests of a full store.
    pub fn set_payment_store(&mut self, store: Box<dyn PaymentStore>) {
        self.payments = store;
    }

    /// The payment store's records and kept response bytes.
    pub fn payment_store_usage(&self) -> (usize, usize) {
        self.payments.usage()
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Paid jobs currently in flight.
    pub fn jobs_in_flight(&self) -> usize {
        self.jobs.in_flight()
    }

    /// Unix time at `now`, from the baseline given to [`Server::new`].
    pub(crate) fn unix_time(&self, now: Instant) -> Duration {
        self.unix_at_start + now.saturating_duration_since(self.started)
    }

    /// A new request id at `now`.
    pub(crate) fn next_request_id(&mut self, now: Instant) -> String {
        let millis = u64::try_from(self.unix_time(now).as_millis()).unwrap_or(u64::MAX);
        self.ids.next(millis)
    }
}

/// Counts jobs in flight (for `MAX_CONCURRENT_JOBS`). A job holds a [`JobSlot`]; the count
/// goes down when the slot is dropped, however the job ends — a response, a client gone, or
/// the runtime dropping the exchange (a cancelled task, a panic caught by the executor) — so
/// the cap can never leak shut.
#[derive(Debug, Default)]
pub(crate) struct JobCounter(Arc<AtomicUsize>);

impl JobCounter {
    /// Jobs in flight now.
    pub(crate) fn in_flight(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    /// Counts one more job until the returned slot is dropped.
    pub(crate) fn acquire(&self) -> JobSlot {
        self.0.fetch_add(1, Ordering::Relaxed);
        JobSlot(Arc::clone(&self.0))
    }
}

/// One job's place in the [`JobCounter`].
#[derive(Debug)]
pub(crate) struct JobSlot(Arc<AtomicUsize>);

impl Drop for JobSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}
