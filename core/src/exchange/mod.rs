//! [`Exchange`]: one inbound connection's lifecycle as a state machine — read a request,
//! answer it (free routes at once; the paid route through payment checks, facilitator
//! `/verify`, the crawl, extraction and `/settle`), then keep the connection for the next
//! request or close it.
//!
//! ```text
//! Idle ──head──▶ ReadingBody ──body──▶ route ──free──▶ respond ─┐
//!   ▲                                    │                       │ keep-alive
//!   │                                    ▼ POST extract          │
//!   │   Admitting (store: rate limit + recall) ─▶ kept result? replay it / re-settle a claim
//!   │        └─▶ body → URL → configured → 402 / local checks
//!   │                                    ▼ Reserve (store)
//!   │     Job: Verify ─▶ CrawlHome ─▶ CrawlExtras ─▶ build 200 ─▶ BeginSettle (store)
//!   │          ─▶ Settle ─▶ Finish settled (store) ─▶ respond
//!   └────────────────────────────────────────────────────────────┘
//! ```
//!
//! The store steps are [`crate::store`] operations: applied at once with the in-process store,
//! or `Output::Store` effects answered by `Input::Stored` with a shared one (`stored.rs`).
//!
//! Every call takes the shared [`Server`] and `now`; outputs are queued and drained with
//! [`Exchange::poll_output`]; [`Exchange::poll_timeout`] gives the next deadline. A failure
//! before settlement is answered as itself and never settled (docs/contract.md). Money safety
//! (docs/payments.md): an authorization that passed `/verify` is consumed for good;
//! a client that leaves after that does not cancel its job; the 200 is built before `/settle`;
//! settlement has its own 15 s budget and one retry after an unknown outcome; a settled or
//! unknown-outcome result is kept in the payment store, so the same `PAYMENT-SIGNATURE` gets it
//! again.
//!
//! This file holds the lifecycle: the states, the runtime-facing calls, and the job's
//! bookkeeping. The steps live beside it: `inbound` (heads, bodies, routing), `paid` (the
//! paid route up to `/verify`, and recovery of repeated payments), `stored` (store operations
//! and their answers), `crawling` (pages,
//! redirects, worker effects, the result build, deadlines), `settle` (the settlement and its
//! audit), `respond` (responses, the access log, closing). One outbound fetch is
//! `fetch::conn`; response bodies are built in `responses`.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use url::Url;

use crate::api::{self, reply_for, ApiError, ContactExtractionResult, ErrorCode, Failure};
use crate::budget::{
    BODY_TIMEOUT, CHAIN_READ_BUDGET, FACILITATOR_CHECK_TIMEOUT, HEAD_TIMEOUT, JOB_TIMEOUT,
    MIN_BUILD_TIME, PAGE_TIMEOUT, PAGE_WORK_BUDGET, RESERVE_LEASE, SETTLE_BUDGET, SETTLE_LEASE,
    SETTLE_MARGIN, SETTLE_RETRY_DELAY,
};
use crate::client_ip::client_ip;
use crate::config::PaymentConfig;
use crate::crawl;
use crate::eth::address_hex;
use crate::extract::PageExtraction;
use crate::fetch::conn::{Fetch, FetchEnd, FetchPlan, Peer};
use crate::fetch::http1;
use crate::fetch::policy::{is_redirect, redirect_target, RedirectError};
use crate::fetch::{MAX_JOB_BYTES, MAX_PAGE_BYTES};
use crate::http::chunked::ChunkedDecoder;
use crate::http::proxy_protocol::{self, ProxyHeader};
use crate::http::request::{try_parse, RequestHead};
use crate::http::response::{PreparedResponse, Response};
use crate::http::routes::{route, Route, RouteError};
use crate::io::{
    FetchId, Input, IoFailure, Output, PaymentVerdict, RequestEvent, SettlementEvent, WRITE_TIMEOUT,
};
use crate::net_policy::PublicUrl;
use crate::page_memory::PageMemorySlot;
use crate::payment::codec;
use crate::payment::facilitator::{self, reports_already_used, Reply, SettleOutcome};
use crate::payment::identifier;
use crate::payment::requirements::PaymentTerms;
use crate::payment::store::{
    AuthorizationKey, Fingerprint, KeptResponse, Lease, Record, ReserveError, Stage,
};
use crate::payment::verify::{claimed_authorization, PaymentError, VerifiedPayment};
use crate::payment::{PaymentPayload, SettleResponse};
use crate::responses::{
    failure_message, free_response, json_response, paid_response, payment_required_response,
    ready_response,
};
use crate::server::{JobSlot, Server};
use crate::store::{
    Admission, Admit, Recall, StoreFailure, StoreId, StoreOp, StoreReply, STORE_RETRY_AFTER,
    STORE_TIMEOUT,
};
use crate::work::{BuiltResult, PageWork, PaymentWork, ResultWork, Work, WorkDone, WorkId};

mod crawling;
mod inbound;
mod judge;
mod paid;
mod probe;
mod respond;
mod settle;
mod stored;

pub use crate::fetch::conn::{CONNECT_TIMEOUT, DNS_TIMEOUT, READ_TIMEOUT, TLS_TIMEOUT};
/// `Retry-After` of a 503 "settlement pending", in seconds (docs/payments.md).
pub const SETTLEMENT_PENDING_RETRY_AFTER: u64 = 5;
/// `Retry-After` of a 503 for a request whose payment is still being processed, in seconds.
pub const IN_PROGRESS_RETRY_AFTER: u64 = 2;
/// The message of a 503 "settlement pending" (docs/payments.md).
pub const SETTLEMENT_PENDING_MESSAGE: &str =
    "settlement pending: retry with the same PAYMENT-SIGNATURE";
/// Most bytes of a client's input held at once: one request head and body at their limits
/// (32 KiB + 16 KiB). While a job runs, what a client sends behind its request (a pipelined
/// request, or a stream) waits in this buffer; past it, the runtime stops reading the client
/// ([`Exchange::client_read_limit`]), so a client cannot grow the service's memory.
pub const INBOUND_LIMIT: usize =
    crate::http::request::MAX_HEAD_BYTES + crate::http::request::MAX_BODY_BYTES;
/// How often an extra page waiting for page memory tries again.
const MEMORY_RETRY: Duration = Duration::from_millis(50);
/// Largest facilitator reply, in bytes.
const MAX_FACILITATOR_REPLY: usize = 64 * 1024;

/// One inbound connection.
#[derive(Debug)]
pub struct Exchange {
    /// The service's shared state (a cheap clone, taken at accept).
    server: Server,
    peer: IpAddr,
    /// The current request's client address: the peer, or what a trusted proxy forwarded
    /// (`client_ip`). The rate limiter and the access log use it.
    client: IpAddr,
    /// Client writes handed out and not yet reported done (`Input::ClientWritten`), and when
    /// the oldest must be done by ([`WRITE_TIMEOUT`]).
    writes_pending: usize,
    write_deadline: Option<Instant>,
    /// Set when a write outlived its deadline: nothing more is written to this client.
    client_unwritable: bool,
    /// The `now` of the latest input or timeout (a write handed out by `poll_output` starts
    /// then).
    last_now: Instant,
    /// `PROXY_PROTOCOL` from a trusted proxy: the header is still to come.
    proxy_header_due: bool,
    /// The client address the PROXY header named (for every request of the connection).
    proxied_client: Option<IpAddr>,
    /// The lease id under which the current request claims a settlement to redo, if the store
    /// hands it one ([`StoreOp::Admit`]; a new id per request that carries a payment).
    claim_lease: u64,
    /// The current request's payment verdict and whether it was shed, for its access event
    /// (taken when the event is written).
    verdict: Option<PaymentVerdict>,
    shed: bool,
    inbound: Vec<u8>,
    /// Bytes of `inbound` already looked at for a line end while waiting for a request head
    /// (`inbound.rs`, `head_may_be_complete`).
    head_scanned: usize,
    state: State,
    outputs: VecDeque<Output>,
    next_fetch: u32,
    next_work: u32,
    next_store: u32,
    /// The client closed the connection; a paid job in flight runs on and keeps its result.
    client_gone: bool,
    /// The outcome of an unpaid crawl, once it is over.
    unpaid_outcome: Option<Result<ContactExtractionResult, ApiError>>,
}

#[derive(Debug)]
enum State {
    /// Waiting for (the rest of) a request head.
    Idle { deadline: Instant },
    /// Head read; waiting for `content_length` body bytes, or for the end of a chunked body.
    ReadingBody {
        head: RequestHead,
        started: Instant,
        deadline: Instant,
        /// A chunked body's decoder and what it decoded so far (`None`: `Content-Length`).
        chunked: Option<Box<ChunkedBody>>,
    },
    /// A paid-route request waits for the shared store's admission ([`StoreOp::Admit`]).
    Admitting(Box<Admitting>),
    /// A paid job in progress.
    Job(Box<Job>),
    /// A facilitator check (no client): its `GET /supported` fetch, and the facilitator's
    /// place in `FACILITATOR_URL`.
    Probe(Box<Fetch>, usize),
    /// The job is taken out to be worked on, inside one `handle_*` call (never seen between
    /// calls; see `take_job`).
    Busy,
    /// The connection is closed: the exchange is finished.
    Closed,
}

/// A chunked request body being read ([`State::ReadingBody`]).
#[derive(Debug, Default)]
struct ChunkedBody {
    decoder: ChunkedDecoder,
    body: Vec<u8>,
}

/// A request waiting for [`StoreOp::Admit`]'s answer, with what the paid route needs after it.
#[derive(Debug)]
struct Admitting {
    id: StoreId,
    deadline: Instant,
    head: RequestHead,
    body: Vec<u8>,
    request: RequestInfo,
    decoded: Option<Box<(PaymentPayload, Fingerprint)>>,
}

/// A paid-route request as read: its head and body.
#[derive(Debug, Clone, Copy)]
struct Asked<'a> {
    head: &'a RequestHead,
    body: &'a [u8],
}

/// What every response to one request needs: the request id, the method and path (for the
/// access log), when its head arrived, and whether the connection closes after it.
#[derive(Debug, Clone)]
struct RequestInfo {
    id: String,
    method: String,
    path: String,
    started: Instant,
    close: bool,
}

/// The extra access-log fields of a job's response.
#[derive(Debug, Default)]
struct JobLog {
    pages_fetched: u32,
    pages_too_costly: u32,
    payer: Option<String>,
    transaction: Option<String>,
    /// Why the request failed, for the access log (see `Job::cause`).
    cause: Option<String>,
}

#[derive(Debug)]
struct Job {
    request: RequestInfo,
    /// The crawl's deadline; in [`Phase::Settle`], the end of the settlement budget.
    deadline: Instant,
    input_url: String,
    target: PublicUrl,
    /// The payment, once checked locally and reserved (`None` while in [`Phase::Check`], and
    /// for an operator's crawl).
    paid: Option<Paid>,
    /// The payment being checked locally ([`Phase::Check`]).
    check: Option<Box<Check>>,
    /// An operator's crawl ([`Exchange::unpaid_crawl`]): no client, no payment.
    operator: bool,
    phase: Phase,
    fetches: Vec<Outbound>,
    pages: Vec<Option<PageExtraction>>,
    contact_pages: Vec<String>,
    pages_fetched: u32,
    /// Pages left out (or, the homepage, failed) for running over the work budget.
    pages_too_costly: u32,
    /// The facilitator's `EXTENSION-RESPONSES` on the latest `/settle` answer, for the audit
    /// line.
    extension_responses: Option<String>,
    /// Why the request failed, for an operator ("dns: …", "tls: …", "http 503", "http: no
    /// response in time", …): the homepage's fetch, or the latest facilitator or chain call
    /// that got no usable reply. The access line's `cause`; the audit reason of a `/settle`
    /// without a reply.
    cause: Option<String>,
    bytes_total: usize,
    /// Set in [`Phase::Settle`].
    settlement: Option<Settlement>,
    /// The chain reading, once started (at most one per job): in [`Phase::Judge`], or in
    /// [`Phase::Settle`] after an unknown outcome.
    chain: Option<crate::payment::chain::ChainCheck>,
    /// Work handed to the runtime and not answered yet.
    work: Vec<(WorkId, WorkFor)>,
    /// The homepage's crawl plan, made by the worker that extracted it.
    plan: Option<crawl::CrawlPlan>,
    /// Page memory shares (`MAX_PAGE_MEMORY`), by page slot, held until the page is done.
    memory: Vec<(usize, PageMemorySlot)>,
    /// Extra pages waiting for a page memory share, retried at `memory_retry_at`.
    waiting: Vec<WaitingPage>,
    memory_retry_at: Option<Instant>,
    /// The store operation the job waits for ([`Phase::Reserve`], or `BeginSettle` in
    /// [`Phase::Settle`]) and when it counts as failed ([`STORE_TIMEOUT`]).
    store_wait: Option<(StoreId, Instant)>,
    /// Counts this job in `MAX_CONCURRENT_JOBS` until the job is dropped.
    _slot: JobSlot,
}

/// The payment context of a paid job.
#[derive(Debug)]
struct Paid {
    terms: PaymentTerms,
    facilitator: Url,
    payment: PaymentPayload,
    /// The request's fingerprint (what a retry must match).
    fingerprint: Fingerprint,
    key: AuthorizationKey,
    payer: String,
    /// The authorization's `validBefore`, unix seconds.
    valid_before: u64,
    /// When every `/settle` must have ended: `validBefore` − [`SETTLE_MARGIN`].
    settle_by: Instant,
    /// A retry that settles a kept result whose outcome was unknown (no crawl).
    resettle: bool,
    /// The lease id the job holds the authorization's record under (its reservation's, or its
    /// claim's): every store write of the job carries it (docs/payments.md, fencing).
    lease: u64,
    /// The transaction in which the chain shows this authorization paid us, read before the
    /// crawl because the facilitator reported it used and the store held no record of it
    /// ([`Phase::Judge`]): the result is delivered without a `/settle` (docs/payments.md, "A
    /// used authorization with no record").
    on_chain: Option<String>,
    /// While the chain judges a `/verify` refusal that did not say "already used"
    /// ([`Phase::Judge`]): the facilitator's reason, which stands if the chain shows the
    /// authorization unused.
    verify_refusal: Option<String>,
}

/// A paid request whose payment a worker is checking (docs/contract.md "Request order" step 6, local checks).
#[derive(Debug)]
struct Check {
    terms: PaymentTerms,
    facilitator: Url,
    payment: PaymentPayload,
    payment_id: Option<String>,
    fingerprint: Fingerprint,
}

/// The settlement of a paid job: the 200 is built before the first `/settle`.
#[derive(Debug)]
struct Settlement {
    /// The 200 to deliver (and keep); `settlement` is the facilitator's latest useful answer.
    kept: KeptResponse,
    /// `/settle` calls made by this job.
    attempts: u8,
    /// When the second `/settle` is due, after an unknown first outcome.
    retry_at: Option<Instant>,
    /// A `/settle` for this authorization had an unknown outcome before (in this job or, for
    /// a retry, in the original one): no later answer is a 402 unless the chain says so.
    unknown_before: bool,
}

impl Job {
    /// The job's deadline passed while a fetch for `purpose` was open: its cause names the step
    /// it was in (for the access and audit lines).
    fn note_timeout(&mut self, purpose: impl Fn(&Purpose) -> bool) {
        if let Some(open) = self.fetches.iter_mut().find(|o| purpose(&o.purpose)) {
            open.fetch.note_timeout();
            self.cause = open.fetch.cause().map(str::to_string);
        }
    }

    /// A job for `request` in `phase`, with nothing fetched yet; it counts in
    /// `MAX_CONCURRENT_JOBS` until dropped.
    fn new(
        server: &Server,
        request: RequestInfo,
        target: (String, PublicUrl),
        phase: Phase,
        deadline: Instant,
    ) -> Job {
        let (input_url, target) = target;
        Job {
            request,
            deadline,
            input_url,
            target,
            paid: None,
            check: None,
            operator: false,
            phase,
            fetches: Vec::new(),
            pages: Vec::new(),
            contact_pages: Vec::new(),
            pages_fetched: 0,
            pages_too_costly: 0,
            cause: None,
            extension_responses: None,
            bytes_total: 0,
            settlement: None,
            chain: None,
            work: Vec::new(),
            plan: None,
            memory: Vec::new(),
            waiting: Vec::new(),
            memory_retry_at: None,
            store_wait: None,
            _slot: server.jobs.acquire(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The payment's local checks (signature recovery) run on a worker.
    Check,
    /// The reservation is being written to the shared store.
    Reserve,
    Verify,
    /// `/verify` reported the authorization used and the store held no record of it: the
    /// chain judges (`CHAIN_RPC_URL`) before anything is crawled.
    Judge,
    CrawlHome,
    CrawlExtras,
    /// The result is being built (merge and serialisation, by a worker).
    Build,
    Settle,
    /// Settled: the outcome is being recorded in the store before the 200 is sent.
    Record,
}

/// What a piece of work is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WorkFor {
    /// The payment's local checks.
    Payment,
    /// Decoding and extracting page `n` (0 = the homepage).
    Page(usize),
    /// Building the result.
    Result,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Verify,
    Settle,
    /// A JSON-RPC call of the chain reading (`CHAIN_RPC_URL`).
    Chain,
    Page(PageFetch),
}

/// A page fetch: its slot in `Job::pages` (0 = the homepage), the redirects followed so far,
/// and when the page (all hops) must be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PageFetch {
    slot: usize,
    hops: usize,
    deadline: Instant,
}

/// An extra page planned but not started: the page memory budget is spent (it waits within
/// its own deadline).
#[derive(Debug)]
struct WaitingPage {
    page: PageFetch,
    url: Url,
}

/// One of the job's outbound fetches ([`crate::fetch::conn`]) and what it is for.
#[derive(Debug)]
struct Outbound {
    fetch: Fetch,
    purpose: Purpose,
}

impl Exchange {
    /// Starts the lifecycle of a freshly accepted connection from `peer` (the exchange keeps
    /// a clone of `server`).
    pub fn accept(server: &Server, peer: std::net::SocketAddr, now: Instant) -> Exchange {
        Exchange::new(server.clone(), peer.ip(), now)
    }

    fn new(server: Server, peer: IpAddr, now: Instant) -> Exchange {
        let proxy_header_due = server.config.proxy_protocol
            && crate::client_ip::is_trusted_proxy(&server.config.trusted_proxies, peer);
        Exchange {
            server,
            peer,
            client: peer,
            proxy_header_due,
            writes_pending: 0,
            write_deadline: None,
            client_unwritable: false,
            last_now: now,
            proxied_client: None,
            claim_lease: 0,
            verdict: None,
            shed: false,
            inbound: Vec::new(),
            head_scanned: 0,
            state: State::Idle {
                deadline: now + HEAD_TIMEOUT,
            },
            outputs: VecDeque::new(),
            next_fetch: 0,
            next_work: 0,
            next_store: 0,
            client_gone: false,
            unpaid_outcome: None,
        }
    }

    /// An operator's crawl of `url` without payment (`contact-extract extract URL`): the same
    /// URL checks, SSRF rules, caps, deadlines and extraction as a paid job, with no
    /// facilitator call. Drive it like a connection (it never emits `SendToClient`), then take
    /// the outcome with [`Exchange::take_unpaid_outcome`] once [`Exchange::is_finished`].
    ///
    /// # Errors
    /// The URL's `ApiError` (`INVALID_URL`, `PRIVATE_ADDRESS`, …), as the paid route would
    /// answer it (docs/contract.md "Request order" step 3).
    pub fn unpaid_crawl(server: &Server, url: &str, now: Instant) -> Result<Exchange, ApiError> {
        let request_id = server.next_request_id(now);
        let target = PublicUrl::parse(url, &server.config.net_policy).map_err(|rejection| {
            let message = rejection.to_string();
            let (_, code) = reply_for(&Failure::InvalidUrl(rejection));
            ApiError::new(code, message, request_id.clone())
        })?;
        let mut exchange = Exchange::new(server.clone(), IpAddr::from([127, 0, 0, 1]), now);
        let request = RequestInfo {
            id: request_id,
            method: "EXTRACT".to_string(),
            path: url.to_string(),
            started: now,
            close: true,
        };
        let job = Job {
            operator: true,
            ..Job::new(
                server,
                request,
                (url.to_string(), target),
                Phase::CrawlHome,
                now + JOB_TIMEOUT,
            )
        };
        let mut job = Box::new(job);
        let Some(memory) = server.page_memory.try_acquire() else {
            let (_, code) = reply_for(&Failure::Overloaded);
            let message = "the page memory budget (MAX_PAGE_MEMORY) is spent; retry shortly";
            return Err(ApiError::new(code, message, job.request.id.clone()));
        };
        job.memory.push((0, memory));
        match exchange.start_home(server, &mut job, now) {
            Ok(()) => exchange.state = State::Job(job),
            Err(failure) => exchange.page_done(server, job, 0, Err(failure), now),
        }
        Ok(exchange)
    }

    /// The result or error of an [`Exchange::unpaid_crawl`], once finished (taken once).
    pub fn take_unpaid_outcome(&mut self) -> Option<Result<ContactExtractionResult, ApiError>> {
        self.unpaid_outcome.take()
    }

    /// As [`Exchange::take_unpaid_outcome`], for a finished crawl; an exchange without an
    /// outcome (a bug: the core records one before finishing a crawl) is `INTERNAL_ERROR`.
    ///
    /// # Errors
    /// The crawl's `ApiError`, as the paid route would have answered it.
    pub fn into_unpaid_outcome(mut self) -> Result<ContactExtractionResult, ApiError> {
        self.unpaid_outcome.take().unwrap_or_else(|| {
            Err(ApiError::new(
                ErrorCode::InternalError,
                "the crawl ended without a result",
                "",
            ))
        })
    }

    /// Feeds one input. Poll [`Exchange::poll_output`] until `None` afterwards.
    pub fn handle_input(&mut self, input: Input<'_>, now: Instant) {
        self.last_now = now;
        if let Input::ClientWritten = input {
            self.writes_pending = self.writes_pending.saturating_sub(1);
            self.write_deadline = (self.writes_pending > 0).then(|| now + WRITE_TIMEOUT);
            return;
        }
        if self.is_finished() {
            return;
        }
        let server = &self.server.clone();
        match input {
            Input::ClientData(data) => {
                if matches!(self.state, State::Closed) {
                    return;
                }
                self.inbound.extend_from_slice(data);
                self.advance_inbound(server, now);
            }
            Input::ClientClosed => self.client_gone(server, now),
            Input::ClientWritten => {}
            Input::Resolved { fetch, result } => self.on_resolved(server, fetch, result, now),
            Input::Connected { fetch, result } => self.on_connected(server, fetch, result, now),
            Input::TcpConnected { fetch } => {
                if let Some(f) = fetch_in(&mut self.state, fetch) {
                    f.on_tcp_connected(now);
                }
            }
            Input::FetchData { fetch, data } => self.on_fetch_data(server, fetch, data, now),
            Input::FetchClosed { fetch } => self.on_fetch_closed(server, fetch, now),
            Input::WorkDone { id, done, took } => self.on_work_done(server, id, done, took, now),
            Input::Stored { id, result } => self.on_stored(server, id, result, now),
        }
        debug_assert!(!matches!(self.state, State::Busy), "a job left taken out");
    }

    /// The runtime read the clocks at an event: the wall clock becomes the server's
    /// ([`Server::observe_wall_clock`]). [`crate::driver::Driver::handle`] calls it with every
    /// event.
    pub fn observe_wall_clock(&self, now: crate::io::Now) {
        self.server.observe_wall_clock(now.at, now.unix);
    }

    /// The service drains ([`Server::begin_drain`] was called): a connection waiting for its
    /// next request closes now; one with a request in progress closes after answering it; a
    /// paid job runs on to its end, settlement included.
    pub fn handle_drain(&mut self, now: Instant) {
        self.last_now = now;
        if matches!(self.state, State::Idle { .. }) && self.inbound.is_empty() {
            self.close();
        }
    }

    /// The process is exiting before this exchange finished (a second signal, or the drain's
    /// grace ran out): a paid job is cut short. Its audit line says so (`cut_short`, with the
    /// phase it was in), and a job that had built its result keeps it as an unknown
    /// settlement in the payment store (which a shared store outlives). The exchange is
    /// finished afterwards; drain its outputs, then drop it.
    pub fn cut_short(&mut self, now: Instant) {
        self.last_now = now;
        if let Some(mut job) = self.take_job() {
            if job.paid.is_some() {
                let phase = match job.phase {
                    Phase::Check => "check",
                    Phase::Reserve => "reserve",
                    Phase::Verify => "verify",
                    Phase::Judge => "judge",
                    Phase::CrawlHome | Phase::CrawlExtras => "crawl",
                    Phase::Build => "build",
                    Phase::Settle => "settle",
                    Phase::Record => "record",
                };
                let attempts = job.settlement.as_ref().map_or(0, |s| s.attempts);
                let reason = Some(format!("process exiting during {phase}"));
                self.audit_line(&job, "cut_short", reason, None, attempts);
                let server = self.server.clone();
                match job.settlement.take() {
                    // Settled, its record not yet confirmed: write it again.
                    Some(settlement) if job.phase == Phase::Record => {
                        self.record(&server, &job, Stage::Settled(settlement.kept));
                    }
                    Some(settlement) => {
                        self.record(&server, &job, Stage::Unknown(settlement.kept));
                    }
                    None => self.spend(&server, &job),
                }
            }
            self.close_fetches(&mut job);
        }
        self.close();
    }

    /// Tells the exchange that `now` has reached [`Exchange::poll_timeout`].
    pub fn handle_timeout(&mut self, now: Instant) {
        self.last_now = now;
        if self.write_deadline.is_some_and(|at| now >= at) {
            // A client that does not take its answer within the write deadline is gone: a
            // paid job goes on (its result is kept for a retry); nothing more is written.
            self.write_deadline = None;
            self.writes_pending = 0;
            self.client_unwritable = true;
            if !self.is_finished() {
                let server = &self.server.clone();
                self.client_gone(server, now);
            }
        }
        if self.is_finished() {
            return;
        }
        let server = &self.server.clone();
        self.on_timeout(server, now);
        debug_assert!(!matches!(self.state, State::Busy), "a job left taken out");
    }

    /// Whatever deadline has passed at `now`: the client's, the job's, a settle retry's, a
    /// fetch's.
    fn on_timeout(&mut self, server: &Server, now: Instant) {
        match &mut self.state {
            State::Idle { deadline } | State::ReadingBody { deadline, .. } => {
                if now >= *deadline {
                    // A slow or idle client: close without disturbing others.
                    self.close();
                }
            }
            State::Admitting(admitting) => {
                if now >= admitting.deadline {
                    let id = admitting.id;
                    self.on_stored(server, id, Err(StoreFailure::Timeout), now);
                }
            }
            State::Job(job) => {
                if let Some((id, at)) = job.store_wait {
                    if now >= at {
                        self.on_stored(server, id, Err(StoreFailure::Timeout), now);
                        return;
                    }
                }
                if now >= job.deadline && job.store_wait.is_none() {
                    self.job_deadline(server, now);
                    return;
                }
                if let Some(settlement) = &mut job.settlement {
                    if settlement.retry_at.is_some_and(|at| now >= at) {
                        settlement.retry_at = None;
                        self.retry_settle(server, now);
                        return;
                    }
                }
                if job.memory_retry_at.is_some_and(|at| now >= at) {
                    job.memory_retry_at = None;
                    self.start_waiting_pages(server, now);
                    return;
                }
                let expired: Vec<FetchId> = job
                    .fetches
                    .iter_mut()
                    .filter(|o| now >= o.fetch.deadline())
                    .map(|o| {
                        o.fetch.note_timeout();
                        o.fetch.id()
                    })
                    .collect();
                for id in expired {
                    self.end_fetch(server, id, FetchEnd::Failed(Failure::Timeout), now);
                }
            }
            State::Probe(fetch, index) => {
                if now >= fetch.deadline() {
                    fetch.note_timeout();
                    let index = *index;
                    self.check_done(server, index, FetchEnd::Failed(Failure::Timeout));
                }
            }
            State::Busy | State::Closed => {}
        }
    }

    /// How many more bytes of the client's input the exchange takes now: what is left of
    /// [`INBOUND_LIMIT`] (0 once closed). The runtime reads at most this many bytes; at 0 it
    /// reads nothing and only watches for the client's end of stream (which it reports as
    /// `ClientClosed`), until the job ends and the limit grows again.
    #[must_use]
    pub fn client_read_limit(&self) -> usize {
        match self.state {
            State::Closed => 0,
            _ => INBOUND_LIMIT.saturating_sub(self.inbound.len()),
        }
    }

    /// The next output to carry out, in order.
    #[must_use]
    pub fn poll_output(&mut self) -> Option<Output> {
        loop {
            let output = self.outputs.pop_front()?;
            if let Output::SendToClient(_) = output {
                if self.client_unwritable {
                    continue; // given up on: the bytes are dropped here
                }
                self.writes_pending += 1;
                if self.write_deadline.is_none() {
                    self.write_deadline = Some(self.last_now + WRITE_TIMEOUT);
                }
            }
            return Some(output);
        }
    }

    /// Whether the client may still be written to: `false` once a write outlived its
    /// deadline (the runtime abandons the write in progress and writes nothing more).
    pub fn client_writable(&self) -> bool {
        !self.client_unwritable
    }

    /// Whether `fetch` is still one of the exchange's fetches (a write to a fetch the core has
    /// closed, at one of its deadlines, is abandoned).
    pub fn has_fetch(&self, fetch: FetchId) -> bool {
        match &self.state {
            State::Job(job) => job.fetches.iter().any(|o| o.fetch.id() == fetch),
            State::Probe(probe, _) => probe.id() == fetch,
            _ => false,
        }
    }

    /// The earliest deadline, if any; call [`Exchange::handle_timeout`] when it passes.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        let state = match &self.state {
            State::Idle { deadline } | State::ReadingBody { deadline, .. } => Some(*deadline),
            State::Admitting(admitting) => Some(admitting.deadline),
            State::Job(job) => job
                .fetches
                .iter()
                .map(|o| o.fetch.deadline())
                // While a store answer is awaited its deadline comes first (the job's is
                // looked at after it).
                .chain(job.store_wait.map_or(Some(job.deadline), |_| None))
                .chain(job.store_wait.map(|(_, at)| at))
                .chain(job.settlement.as_ref().and_then(|s| s.retry_at))
                .chain(job.memory_retry_at)
                .min(),
            State::Probe(fetch, _) => Some(fetch.deadline()),
            State::Busy | State::Closed => None,
        };
        match (state, self.write_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the exchange is over (the runtime drops it after draining outputs).
    pub fn is_finished(&self) -> bool {
        matches!(self.state, State::Closed)
    }

    /// Takes the job out of the state to work on it (the state is `Busy` until it is put
    /// back or replaced); `None`, with the state untouched, when there is no job — so a late
    /// answer can never disturb an idle keep-alive connection.
    fn take_job(&mut self) -> Option<Box<Job>> {
        if !matches!(self.state, State::Job(_)) {
            return None;
        }
        match std::mem::replace(&mut self.state, State::Busy) {
            State::Job(job) => Some(job),
            other => {
                self.state = other;
                None
            }
        }
    }

    /// Closes the job's fetches and cancels its work: nothing more is waited for.
    fn close_fetches(&mut self, job: &mut Job) {
        for outbound in job.fetches.drain(..) {
            self.outputs.push_back(Output::CloseFetch {
                fetch: outbound.fetch.id(),
            });
        }
        for (id, _) in job.work.drain(..) {
            self.outputs.push_back(Output::CancelWork { id });
        }
    }

    /// The client closed the connection. A paid job (its request read and its payment
    /// checked locally) runs on: if `/verify` accepts, it crawls, settles on success and keeps
    /// the result for a retry with the same `PAYMENT-SIGNATURE`; if `/verify` refuses, the
    /// client is simply forgotten (docs/payments.md). Its access line says
    /// `clientGone`. Without a job, the connection just closes.
    fn client_gone(&mut self, _server: &Server, _now: Instant) {
        self.client_gone = true;
        if matches!(self.state, State::Job(_)) {
            return;
        }
        self.state = State::Closed;
    }
}

/// The job's fetch `id`, if the exchange has a job and the job still has that fetch.
fn fetch_in(state: &mut State, id: FetchId) -> Option<&mut Fetch> {
    let job = match state {
        State::Job(job) => job,
        State::Probe(fetch, _) => return (fetch.id() == id).then_some(&mut **fetch),
        _ => return None,
    };
    job.fetches
        .iter_mut()
        .find(|o| o.fetch.id() == id)
        .map(|o| &mut o.fetch)
}

/// `{facilitator}/verify` or `/settle`, keeping a base path.
fn endpoint(base: &Url, name: &str) -> Url {
    let mut url = base.clone();
    let path = format!("{}/{name}", base.path().trim_end_matches('/'));
    url.set_path(&path);
    url
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
