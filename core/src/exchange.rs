//! [`Exchange`]: one inbound connection's lifecycle as a state machine — read a request,
//! answer it (free routes at once; the paid route through payment checks, facilitator
//! `/verify`, the crawl, extraction and `/settle`), then keep the connection for the next
//! request or close it.
//!
//! ```text
//! Idle ──head──▶ ReadingBody ──body──▶ route ──free──▶ respond ─┐
//!   ▲                                    │                       │ keep-alive
//!   │                                    ▼ POST extract          │
//!   │   kept result? ─▶ replay it │ rate limit → body → URL → configured → 402 / local checks
//!   │                                    ▼ reserve
//!   │     Job: Verify ─▶ CrawlHome ─▶ CrawlExtras ─▶ build 200 ─▶ Settle ─▶ respond
//!   └────────────────────────────────────────────────────────────┘
//! ```
//!
//! Every call takes the shared [`Server`] and `now`; outputs are queued and drained with
//! [`Exchange::poll_output`]; [`Exchange::poll_timeout`] gives the next deadline. A failure
//! before settlement is answered as itself and never settled (decisions.md). Money safety
//! (decisions.md "Money safety"): an authorization that passed `/verify` is consumed for good;
//! a client that leaves after that does not cancel its job; the 200 is built before `/settle`;
//! settlement has its own 15 s budget and one retry after an unknown outcome; a settled or
//! unknown-outcome result is kept in the payment store, so the same `PAYMENT-SIGNATURE` gets it
//! again.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use url::Url;

use crate::api::{self, reply_for, ApiError, ContactExtractionResult, ErrorCode, Failure};
use crate::config::PaymentConfig;
use crate::crawl;
use crate::extract::PageExtraction;
use crate::fetch::conn::{Fetch, FetchEnd, FetchPlan, Peer};
use crate::fetch::http1;
use crate::fetch::policy::{is_redirect, redirect_target, RedirectError};
use crate::fetch::{MAX_JOB_BYTES, MAX_PAGE_BYTES};
use crate::http::request::{try_parse, RequestHead};
use crate::http::response::{PreparedResponse, Response};
use crate::http::routes::{route, RouteError};
use crate::io::{FetchId, Input, IoFailure, Output, RequestEvent, SettlementEvent};
use crate::net_policy::PublicUrl;
use crate::payment::codec;
use crate::payment::facilitator::{self, reports_already_used, Reply, SettleOutcome};
use crate::payment::identifier;
use crate::payment::requirements::PaymentTerms;
use crate::payment::store::{AuthorizationKey, Fingerprint, KeptResponse, ReserveError, Stage};
use crate::payment::verify::{address_hex, claimed_authorization, verify_locally};
use crate::payment::{PaymentPayload, SettleResponse};
use crate::responses::{
    failure_message, free_response, json_response, paid_response, payment_required_response,
};
use crate::server::{JobSlot, Server};
use crate::work::{BuiltResult, PageWork, ResultWork, Work, WorkDone, WorkId};

/// Time a client has to send a complete request head (and, between requests, to start one).
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Time a client has to send the body after the head.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// Whole paid job up to the settlement, from the request head (decisions.md: 30 s).
pub const JOB_TIMEOUT: Duration = Duration::from_secs(30);
/// One page, all hops included (decisions.md: 15 s).
pub const PAGE_TIMEOUT: Duration = Duration::from_secs(15);
pub use crate::fetch::conn::{CONNECT_TIMEOUT, DNS_TIMEOUT, READ_TIMEOUT};
/// The settlement's own budget, from its first `/settle`, whatever is left of the job deadline
/// (decisions.md "Money safety": 15 s).
pub const SETTLE_BUDGET: Duration = Duration::from_secs(15);
/// Pause before the second `/settle` after an unknown outcome (decisions.md "Money safety").
pub const SETTLE_RETRY_DELAY: Duration = Duration::from_secs(2);
/// `Retry-After` of a 503 "settlement pending", in seconds (decisions.md "Money safety").
pub const SETTLEMENT_PENDING_RETRY_AFTER: u64 = 5;
/// `Retry-After` of a 503 for a request whose payment is still being processed, in seconds.
pub const IN_PROGRESS_RETRY_AFTER: u64 = 2;
/// The message of a 503 "settlement pending" (decisions.md "Money safety").
pub const SETTLEMENT_PENDING_MESSAGE: &str =
    "settlement pending: retry with the same PAYMENT-SIGNATURE";
/// The result build (merge and serialisation, on a worker) must end by the job deadline — so
/// the settlement budget still fits in the authorization's validity — but gets at least this
/// long after the crawl; later, the job is answered 500 and not charged.
pub const MIN_BUILD_TIME: Duration = Duration::from_secs(5);
/// Largest facilitator reply, in bytes.
const MAX_FACILITATOR_REPLY: usize = 64 * 1024;

/// One inbound connection.
#[derive(Debug)]
pub struct Exchange {
    /// The service's shared state (a cheap clone, taken at accept).
    server: Server,
    peer: IpAddr,
    inbound: Vec<u8>,
    state: State,
    outputs: VecDeque<Output>,
    next_fetch: u32,
    next_work: u32,
    /// The client closed the connection; a paid job in flight runs on and keeps its result.
    client_gone: bool,
    /// The outcome of an unpaid crawl, once it is over.
    unpaid_outcome: Option<Result<ContactExtractionResult, ApiError>>,
}

#[derive(Debug)]
enum State {
    /// Waiting for (the rest of) a request head.
    Idle { deadline: Instant },
    /// Head read; waiting for `content_length` body bytes.
    ReadingBody {
        head: RequestHead,
        started: Instant,
        deadline: Instant,
    },
    /// A paid job in progress.
    Job(Box<Job>),
    /// The job is taken out to be worked on, inside one `handle_*` call (never seen between
    /// calls; see `take_job`).
    Busy,
    /// The connection is closed: the exchange is finished.
    Closed,
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
    payer: Option<String>,
    transaction: Option<String>,
}

#[derive(Debug)]
struct Job {
    request: RequestInfo,
    /// The crawl's deadline; in [`Phase::Settle`], the end of the settlement budget.
    deadline: Instant,
    input_url: String,
    target: PublicUrl,
    /// `None` for an operator's unpaid crawl ([`Exchange::unpaid_crawl`]).
    paid: Option<Paid>,
    phase: Phase,
    fetches: Vec<Outbound>,
    pages: Vec<Option<PageExtraction>>,
    contact_pages: Vec<String>,
    pages_fetched: u32,
    bytes_total: usize,
    /// Set in [`Phase::Settle`].
    settlement: Option<Settlement>,
    /// Work handed to the runtime and not answered yet.
    work: Vec<(WorkId, WorkFor)>,
    /// Counts this job in `MAX_CONCURRENT_JOBS` until the job is dropped.
    _slot: JobSlot,
}

/// The payment context of a paid job.
#[derive(Debug)]
struct Paid {
    terms: PaymentTerms,
    facilitator: Url,
    payment: PaymentPayload,
    key: AuthorizationKey,
    payer: String,
    /// A retry that settles a kept result whose outcome was unknown (no crawl).
    resettle: bool,
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
    /// a retry, in the original one): "already used" then means our transfer went through.
    unknown_before: bool,
}

impl Job {
    /// Sets the stage of this job's payment record (no-op for an unpaid crawl).
    fn record(&self, server: &Server, stage: Stage) {
        if let Some(paid) = &self.paid {
            server.shared().payments.store(&paid.key, stage);
        }
    }

    /// A failure after `/verify` said valid: the authorization is consumed, without a result.
    /// A retry's failure keeps its result instead (the money may have moved).
    fn spend(&self, server: &Server) {
        match (&self.paid, &self.settlement) {
            (Some(paid), Some(settlement)) if paid.resettle => server
                .shared()
                .payments
                .store(&paid.key, Stage::Unknown(settlement.kept.clone())),
            _ => self.record(server, Stage::Spent),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Verify,
    CrawlHome,
    CrawlExtras,
    /// The result is being built (merge and serialisation, by a worker).
    Build,
    Settle,
}

/// What a piece of work is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WorkFor {
    /// Decoding and extracting page `n` (0 = the homepage).
    Page(usize),
    /// Building the result.
    Result,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Verify,
    Settle,
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

/// One of the job's outbound fetches ([`crate::fetch::conn`]) and what it is for.
#[derive(Debug)]
struct Outbound {
    fetch: Fetch,
    purpose: Purpose,
}

/// What the payment store says about a paid request that is sent again.
enum Recovery {
    /// Not a retry of a known request: the normal order applies.
    NotARetry,
    /// Answered (kept 200, in progress, 409, already used) or a re-settlement started.
    Handled,
}

impl Exchange {
    /// Starts the lifecycle of a freshly accepted connection from `peer` (the exchange keeps
    /// a clone of `server`).
    pub fn accept(server: &Server, peer: std::net::SocketAddr, now: Instant) -> Exchange {
        Exchange::new(server.clone(), peer.ip(), now)
    }

    fn new(server: Server, peer: IpAddr, now: Instant) -> Exchange {
        Exchange {
            server,
            peer,
            inbound: Vec::new(),
            state: State::Idle {
                deadline: now + HEAD_TIMEOUT,
            },
            outputs: VecDeque::new(),
            next_fetch: 0,
            next_work: 0,
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
    /// answer it (spec §4, decisions.md step 3).
    pub fn unpaid_crawl(server: &Server, url: &str, now: Instant) -> Result<Exchange, ApiError> {
        let request_id = server.next_request_id(now);
        let target = PublicUrl::parse(url, &server.config.net_policy).map_err(|rejection| {
            let message = rejection.to_string();
            let (_, code) = reply_for(&Failure::InvalidUrl(rejection));
            ApiError::new(code, message, request_id.clone())
        })?;
        let mut exchange = Exchange::new(server.clone(), IpAddr::from([127, 0, 0, 1]), now);
        let job = Job {
            request: RequestInfo {
                id: request_id,
                method: "EXTRACT".to_string(),
                path: url.to_string(),
                started: now,
                close: true,
            },
            deadline: now + JOB_TIMEOUT,
            input_url: url.to_string(),
            target,
            paid: None,
            phase: Phase::CrawlHome,
            fetches: Vec::new(),
            pages: Vec::new(),
            contact_pages: Vec::new(),
            pages_fetched: 0,
            bytes_total: 0,
            settlement: None,
            work: Vec::new(),
            _slot: server.jobs.acquire(),
        };
        let mut job = Box::new(job);
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

    /// Feeds one input. Poll [`Exchange::poll_output`] until `None` afterwards.
    pub fn handle_input(&mut self, input: Input<'_>, now: Instant) {
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
            Input::Resolved { fetch, result } => self.on_resolved(server, fetch, result, now),
            Input::Connected { fetch, result } => self.on_connected(server, fetch, result, now),
            Input::FetchData { fetch, data } => self.on_fetch_data(server, fetch, data, now),
            Input::FetchClosed { fetch } => self.on_fetch_closed(server, fetch, now),
            Input::WorkDone { id, done } => self.on_work_done(server, id, done, now),
        }
    }

    /// Tells the exchange that `now` has reached [`Exchange::poll_timeout`].
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.is_finished() {
            return;
        }
        let server = &self.server.clone();
        match &mut self.state {
            State::Idle { deadline } | State::ReadingBody { deadline, .. } => {
                if now >= *deadline {
                    // A slow or idle client: close without disturbing others.
                    self.close();
                }
            }
            State::Job(job) => {
                if now >= job.deadline {
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
                let expired: Vec<FetchId> = job
                    .fetches
                    .iter()
                    .filter(|o| now >= o.fetch.deadline())
                    .map(|o| o.fetch.id())
                    .collect();
                for id in expired {
                    self.end_fetch(server, id, FetchEnd::Failed(Failure::Timeout), now);
                }
            }
            State::Busy | State::Closed => {}
        }
    }

    /// The next output to carry out, in order.
    #[must_use]
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    /// The earliest deadline, if any; call [`Exchange::handle_timeout`] when it passes.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        match &self.state {
            State::Idle { deadline } | State::ReadingBody { deadline, .. } => Some(*deadline),
            State::Job(job) => job
                .fetches
                .iter()
                .map(|o| o.fetch.deadline())
                .chain([job.deadline])
                .chain(job.settlement.as_ref().and_then(|s| s.retry_at))
                .min(),
            State::Busy | State::Closed => None,
        }
    }

    /// Whether the exchange is over (the runtime drops it after draining outputs).
    pub fn is_finished(&self) -> bool {
        matches!(self.state, State::Closed)
    }

    // ---- inbound -------------------------------------------------------------------------

    fn advance_inbound(&mut self, server: &Server, now: Instant) {
        // Bounded: every request takes at most two rounds (head, then body) and at least one
        // byte, so twice the buffered bytes is enough for every complete request in it —
        // however many a client pipelined at once (a fixed bound left the rest unanswered).
        let rounds = 2 * self.inbound.len() + 2;
        for _ in 0..rounds {
            match &self.state {
                State::Idle { .. } => match try_parse(&self.inbound) {
                    Ok(None) => return,
                    Ok(Some((used, head))) => {
                        self.inbound.drain(..used);
                        self.state = State::ReadingBody {
                            head,
                            started: now,
                            deadline: now + BODY_TIMEOUT,
                        };
                    }
                    Err(error) => {
                        let failure = match error.status() {
                            431 => Failure::HeadTooLarge,
                            413 => Failure::BodyTooLarge,
                            _ => Failure::MalformedRequest,
                        };
                        let request = RequestInfo {
                            id: server.next_request_id(now),
                            method: String::new(),
                            path: String::new(),
                            started: now,
                            close: true,
                        };
                        self.respond_error(&request, &failure, &error.to_string(), now);
                        return;
                    }
                },
                State::ReadingBody { head, .. } => {
                    if self.inbound.len() < head.content_length {
                        return;
                    }
                    let State::ReadingBody { head, started, .. } = std::mem::replace(
                        &mut self.state,
                        State::Idle {
                            deadline: now + HEAD_TIMEOUT,
                        },
                    ) else {
                        return;
                    };
                    let body: Vec<u8> = self.inbound.drain(..head.content_length).collect();
                    self.handle_request(server, head, body, started, now);
                }
                State::Job(_) | State::Busy | State::Closed => return,
            }
        }
    }

    fn handle_request(
        &mut self,
        server: &Server,
        head: RequestHead,
        body: Vec<u8>,
        started: Instant,
        now: Instant,
    ) {
        let request = RequestInfo {
            id: server.next_request_id(now),
            method: head.method.clone(),
            path: head.path.clone(),
            started,
            close: !head.keep_alive,
        };
        let route = match route(&head.method, &head.path) {
            Ok(route) => route,
            Err(RouteError::NotFound) => {
                let message = format!("no route for {}", head.path);
                self.respond_error(&request, &Failure::NotFound, &message, now);
                return;
            }
            Err(RouteError::MethodNotAllowed(allow)) => {
                let message = format!("{} is not allowed here; use {allow}", head.method);
                let allow_header = [("Allow", allow.to_string())];
                let failure = Failure::MethodNotAllowed;
                self.respond_error_with(&request, &failure, &message, now, &allow_header);
                return;
            }
        };
        match free_response(&server.config.payment, route) {
            Some(response) => self.send_plain(&response.prepare(), &request, now),
            None => self.extract_contact(server, &head, &body, request, now),
        }
    }

    /// The paid route, decisions.md steps 2–6; step 7 is the job. A request that repeats a
    /// known paid request (same `PAYMENT-SIGNATURE` and URL) is answered from the payment store
    /// first, without spending a rate-limit token (decisions.md "Money safety").
    fn extract_contact(
        &mut self,
        server: &Server,
        head: &RequestHead,
        body: &[u8],
        request: RequestInfo,
        now: Instant,
    ) {
        macro_rules! fail {
            ($failure:expr, $message:expr) => {{
                self.respond_error(&request, &$failure, &$message.to_string(), now);
                return;
            }};
        }
        if let Recovery::Handled = self.recover(server, head, body, &request, now) {
            return;
        }
        let limited = server.shared().limiter.check(self.peer, now);
        if let Err(retry_after) = limited {
            let message = format!("rate limit exceeded; retry in {retry_after} s");
            let retry = [("Retry-After", retry_after.to_string())];
            self.respond_error_with(&request, &Failure::RateLimited, &message, now, &retry);
            return;
        }
        let input_url = match api::extract_request_url(
            head.header("content-type"),
            head.query.as_deref(),
            body,
        ) {
            Ok(url) => url,
            Err((failure, message)) => fail!(failure, message),
        };
        let target = match PublicUrl::parse(&input_url, &server.config.net_policy) {
            Ok(target) => target,
            Err(rejection) => {
                let message = rejection.to_string();
                fail!(Failure::InvalidUrl(rejection), message)
            }
        };
        if matches!(server.config.payment, PaymentConfig::Incomplete(_)) {
            fail!(
                Failure::PaymentsNotConfigured,
                "payments are not configured; see /api/ready"
            );
        }
        if server.jobs.in_flight() >= server.config.max_concurrent_jobs {
            let retry = [("Retry-After", "1".to_string())];
            let message = "too many requests in flight; retry shortly";
            self.respond_error_with(&request, &Failure::Overloaded, message, now, &retry);
            return;
        }
        let Some(header) = head.header("payment-signature") else {
            // The commonest answer, built once per server.
            self.send_plain(&server.unpaid_response, &request, now);
            return;
        };
        let PaymentConfig::Ready { terms, facilitator } = &server.config.payment else {
            return;
        };
        let (terms, facilitator) = ((**terms).clone(), facilitator.clone());
        let payment: PaymentPayload = match codec::decode(header) {
            Ok(payment) => payment,
            Err(error) => {
                self.payment_required(&request, &terms, &error.to_string(), now);
                return;
            }
        };
        let payment_id = match identifier::payment_id(&payment) {
            Ok(id) => id.map(str::to_string),
            Err(error) => {
                self.payment_required(&request, &terms, &error.to_string(), now);
                return;
            }
        };
        let unix_now = server.unix_time(now).as_secs();
        let verified = match verify_locally(&payment, &terms.requirements, unix_now) {
            Ok(verified) => verified,
            Err(error) => {
                self.payment_required(&request, &terms, &error.reason(), now);
                return;
            }
        };
        let key = authorization_key(&terms, verified.payer, verified.nonce);
        let fingerprint = Fingerprint::of(&payment, &input_url);
        let reserved = server.shared().payments.reserve(
            &key,
            fingerprint,
            payment_id.as_deref(),
            verified.valid_before,
            unix_now,
        );
        match reserved {
            Ok(()) => {}
            Err(ReserveError::AlreadyUsed) => {
                let reason = "payment authorization already used";
                self.payment_required(&request, &terms, reason, now);
                return;
            }
            Err(ReserveError::IdInUse) => fail!(
                Failure::PaymentIdConflict,
                "payment identifier already used with a different payment"
            ),
            Err(ReserveError::Full { retry_after }) => {
                let retry = [("Retry-After", retry_after.to_string())];
                let message = "too many payments held; retry later";
                self.respond_error_with(&request, &Failure::Overloaded, message, now, &retry);
                return;
            }
        }
        let mut job = Box::new(Job {
            deadline: request.started + JOB_TIMEOUT,
            request,
            input_url,
            target,
            paid: Some(Paid {
                terms,
                facilitator,
                payment,
                key,
                payer: address_hex(&verified.payer),
                resettle: false,
            }),
            phase: Phase::Verify,
            fetches: Vec::new(),
            pages: Vec::new(),
            contact_pages: Vec::new(),
            pages_fetched: 0,
            bytes_total: 0,
            settlement: None,
            work: Vec::new(),
            _slot: server.jobs.acquire(),
        });
        let Some(paid) = &job.paid else { return };
        let verify_url = endpoint(&paid.facilitator, "verify");
        match self.start_fetch(server, &mut job, Purpose::Verify, verify_url, now) {
            Ok(()) => self.state = State::Job(job),
            Err(failure) => self.after_verify(server, job, FetchEnd::Failed(failure), now),
        }
    }

    /// Answers a request that repeats a known paid request (decisions.md "Money safety", x402
    /// `payment-identifier`): the kept 200, a 503 while the original is in progress, a
    /// re-settlement of a result whose settlement outcome was unknown, a 402 for a consumed
    /// authorization without a result, a 409 for a payment id used with another payment.
    /// Anything else — no payment, a body or payment that does not parse, an unknown payment —
    /// is [`Recovery::NotARetry`] and takes the normal order (so its errors are the usual ones).
    fn recover(
        &mut self,
        server: &Server,
        head: &RequestHead,
        body: &[u8],
        request: &RequestInfo,
        now: Instant,
    ) -> Recovery {
        let Some(header) = head.header("payment-signature") else {
            return Recovery::NotARetry;
        };
        let PaymentConfig::Ready { terms, facilitator } = &server.config.payment else {
            return Recovery::NotARetry;
        };
        let Ok(input_url) =
            api::extract_request_url(head.header("content-type"), head.query.as_deref(), body)
        else {
            return Recovery::NotARetry;
        };
        let Ok(payment) = codec::decode::<PaymentPayload>(header) else {
            return Recovery::NotARetry;
        };
        let unix_now = server.unix_time(now).as_secs();
        let fingerprint = Fingerprint::of(&payment, &input_url);
        let id_key = match identifier::payment_id(&payment) {
            Ok(Some(id)) => server.shared().payments.key_of_payment_id(id, unix_now),
            Ok(None) | Err(_) => None,
        };
        let by_id = id_key.is_some();
        let key = match (id_key, claimed_authorization(&payment)) {
            (Some(key), _) => key,
            (None, Some((from, nonce))) => authorization_key(terms, from, nonce),
            (None, None) => return Recovery::NotARetry,
        };
        let Some(record) = server.shared().payments.look_up(&key, unix_now) else {
            return Recovery::NotARetry;
        };
        if record.fingerprint != fingerprint {
            if !by_id {
                // Another payload or URL with this authorization: the normal order ends in
                // "payment authorization already used".
                return Recovery::NotARetry;
            }
            let message = if record.fingerprint.payment == fingerprint.payment {
                "payment identifier already used with a different request"
            } else {
                "payment identifier already used with a different payment"
            };
            self.respond_error(request, &Failure::PaymentIdConflict, message, now);
            return Recovery::Handled;
        }
        match record.stage {
            Stage::Settled(kept) => {
                let mut log = JobLog {
                    payer: Some(address_hex(&key.from)),
                    ..JobLog::default()
                };
                log.transaction = kept.settlement.as_ref().map(|s| s.transaction.clone());
                let request = RequestInfo {
                    id: kept.request_id.clone(),
                    ..request.clone()
                };
                self.send(&paid_response(&kept).prepare(), &request, now, None, log);
            }
            Stage::Reserved | Stage::Verified | Stage::Resettling(_) => {
                let retry = [("Retry-After", IN_PROGRESS_RETRY_AFTER.to_string())];
                let message = "a request with this payment is still in progress; retry with the same PAYMENT-SIGNATURE";
                self.respond_error_with(request, &Failure::PaymentInProgress, message, now, &retry);
            }
            Stage::Spent => {
                let reason = "payment authorization already used";
                self.payment_required(request, terms, reason, now);
            }
            Stage::Unknown(_) => {
                let limited = server.shared().limiter.check(self.peer, now);
                if let Err(retry_after) = limited {
                    let message = format!("rate limit exceeded; retry in {retry_after} s");
                    let retry = [("Retry-After", retry_after.to_string())];
                    self.respond_error_with(request, &Failure::RateLimited, &message, now, &retry);
                    return Recovery::Handled;
                }
                let Ok(target) = PublicUrl::parse(&input_url, &server.config.net_policy) else {
                    return Recovery::NotARetry;
                };
                let Some(kept) = server.shared().payments.begin_resettle(&key) else {
                    return Recovery::NotARetry;
                };
                let (terms, facilitator) = ((**terms).clone(), facilitator.clone());
                let job = Box::new(Job {
                    deadline: now + SETTLE_BUDGET,
                    request: request.clone(),
                    input_url,
                    target,
                    paid: Some(Paid {
                        terms,
                        facilitator,
                        payment,
                        payer: address_hex(&key.from),
                        key,
                        resettle: true,
                    }),
                    phase: Phase::Settle,
                    fetches: Vec::new(),
                    pages: Vec::new(),
                    contact_pages: Vec::new(),
                    pages_fetched: 0,
                    bytes_total: 0,
                    settlement: None,
                    work: Vec::new(),
                    _slot: server.jobs.acquire(),
                });
                self.begin_settlement(server, job, kept, true, now);
            }
        }
        Recovery::Handled
    }

    // ---- fetches -------------------------------------------------------------------------

    /// Hands `work` to the runtime for `purpose`.
    fn start_work(&mut self, job: &mut Job, purpose: WorkFor, work: Work) {
        self.next_work += 1;
        let id = WorkId(self.next_work);
        job.work.push((id, purpose));
        self.outputs.push_back(Output::Work { id, work });
    }

    /// The answer to a piece of work; ignored when the core no longer waits for it.
    fn on_work_done(&mut self, server: &Server, id: WorkId, done: WorkDone, now: Instant) {
        let State::Job(job) = &mut self.state else {
            return;
        };
        let Some(index) = job.work.iter().position(|(w, _)| *w == id) else {
            return;
        };
        let (_, purpose) = job.work.remove(index);
        let Some(mut job) = self.take_job() else {
            return;
        };
        match (purpose, done) {
            (WorkFor::Page(page), WorkDone::Page(result)) => {
                let result = result.and_then(|extracted| {
                    job.bytes_total += extracted.decoded_bytes;
                    if job.bytes_total > MAX_JOB_BYTES {
                        return Err(Failure::ResponseTooLarge);
                    }
                    Ok(extracted.extraction)
                });
                self.page_done(server, job, page, result, now);
            }
            (WorkFor::Result, WorkDone::Result(built)) => {
                self.result_built(server, job, built, now)
            }
            // An answer of the wrong kind (a runtime bug): treated as a failed page or build.
            (WorkFor::Page(page), WorkDone::Result(_)) => {
                self.page_done(server, job, page, Err(Failure::Internal), now)
            }
            (WorkFor::Result, WorkDone::Page(_)) => {
                self.result_built(server, job, Err(Failure::Internal), now)
            }
        }
    }

    /// Starts the homepage fetch (after `/verify`, or at once for an unpaid crawl).
    ///
    /// # Errors
    /// The failure when the fetch ends at once (a static DNS answer on the block list).
    fn start_home(&mut self, server: &Server, job: &mut Job, now: Instant) -> Result<(), Failure> {
        job.phase = Phase::CrawlHome;
        job.pages.push(None);
        let page = PageFetch {
            slot: 0,
            hops: 0,
            deadline: (now + PAGE_TIMEOUT).min(job.deadline),
        };
        let url = job.target.url().clone();
        self.start_fetch(server, job, Purpose::Page(page), url, now)
    }

    /// Starts a fetch of `url` for `purpose`, building its request.
    ///
    /// # Errors
    /// The failure when the fetch ends at once (a static DNS answer on the block list): the
    /// caller handles it as the fetch's outcome.
    fn start_fetch(
        &mut self,
        server: &Server,
        job: &mut Job,
        purpose: Purpose,
        url: Url,
        now: Instant,
    ) -> Result<(), Failure> {
        let (request, peer, cap, deadline) = match purpose {
            Purpose::Page(page) => (
                http1::page_request(&url, &server.user_agent),
                Peer::Site,
                MAX_PAGE_BYTES,
                page.deadline,
            ),
            Purpose::Verify | Purpose::Settle => {
                let Some(paid) = &job.paid else {
                    return Err(Failure::Internal);
                };
                let body = facilitator::request_body(&paid.payment, &paid.terms.requirements);
                // The settlement may use its whole budget: the reference facilitator answers
                // only once the transfer is confirmed or its own wait is over.
                let patient = purpose == Purpose::Settle;
                let deadline = if patient {
                    job.deadline
                } else {
                    now + PAGE_TIMEOUT
                };
                (
                    http1::json_post(&url, &body, &server.user_agent),
                    Peer::Facilitator { patient },
                    MAX_FACILITATOR_REPLY,
                    deadline,
                )
            }
        };
        let resolve = url
            .host_str()
            .and_then(|host| server.config.resolve.get(&host.to_ascii_lowercase()))
            .copied();
        self.next_fetch += 1;
        let id = FetchId(self.next_fetch);
        let plan = FetchPlan {
            url,
            request,
            peer,
            cap,
            deadline,
        };
        let policy = &server.config.net_policy;
        let fetch = Fetch::start(id, plan, resolve, policy, now, &mut self.outputs)?;
        job.fetches.push(Outbound { fetch, purpose });
        Ok(())
    }

    // An answer for a fetch the job no longer has (closed, or the job ended) changes nothing:
    // a keep-alive connection may already be waiting for its next request.

    fn on_resolved(
        &mut self,
        server: &Server,
        id: FetchId,
        result: Result<Vec<IpAddr>, IoFailure>,
        now: Instant,
    ) {
        let policy = &server.config.net_policy;
        let end = fetch_in(&mut self.state, id)
            .and_then(|f| f.on_resolved(result, policy, now, &mut self.outputs));
        if let Some(end) = end {
            self.end_fetch(server, id, end, now);
        }
    }

    fn on_connected(
        &mut self,
        server: &Server,
        id: FetchId,
        result: Result<(), IoFailure>,
        now: Instant,
    ) {
        let end = fetch_in(&mut self.state, id)
            .and_then(|f| f.on_connected(result, now, &mut self.outputs));
        if let Some(end) = end {
            self.end_fetch(server, id, end, now);
        }
    }

    fn on_fetch_data(&mut self, server: &Server, id: FetchId, data: &[u8], now: Instant) {
        if let Some(end) = fetch_in(&mut self.state, id).and_then(|f| f.on_data(data, now)) {
            self.end_fetch(server, id, end, now);
        }
    }

    fn on_fetch_closed(&mut self, server: &Server, id: FetchId, now: Instant) {
        if let Some(end) = fetch_in(&mut self.state, id).map(Fetch::on_closed) {
            self.end_fetch(server, id, end, now);
        }
    }

    /// A fetch ended: close it and go on with what it was for.
    fn end_fetch(&mut self, server: &Server, id: FetchId, end: FetchEnd, now: Instant) {
        let Some(mut job) = self.take_job() else {
            return;
        };
        let Some(index) = job.fetches.iter().position(|o| o.fetch.id() == id) else {
            self.state = State::Job(job);
            return;
        };
        let Outbound { purpose, .. } = job.fetches.remove(index);
        self.outputs.push_back(Output::CloseFetch { fetch: id });
        match purpose {
            Purpose::Verify => self.after_verify(server, job, end, now),
            Purpose::Settle => self.after_settle(server, job, end, now),
            Purpose::Page(page) => {
                if matches!(end, FetchEnd::Response(..)) {
                    job.pages_fetched += 1;
                }
                self.after_page(server, job, page, end, now);
            }
        }
    }

    fn after_verify(&mut self, server: &Server, mut job: Box<Job>, end: FetchEnd, now: Instant) {
        let reply = match end {
            FetchEnd::Response(response, _) => facilitator::parse_verify(&response.body),
            FetchEnd::Failed(_) => Reply::Garbage,
        };
        match reply {
            Reply::Answer(answer) if answer.is_valid => {
                // Consumed for good from here on, whatever happens next (Money safety).
                if let Some(paid) = &job.paid {
                    server.shared().payments.mark_verified(&paid.key);
                }
                match self.start_home(server, &mut job, now) {
                    Ok(()) => self.state = State::Job(job),
                    Err(failure) => self.page_done(server, job, 0, Err(failure), now),
                }
            }
            Reply::Answer(answer) => {
                // Refused before any money moved: the authorization stays usable.
                if let Some(paid) = &job.paid {
                    server.shared().payments.release(&paid.key);
                }
                let reason = answer
                    .invalid_reason
                    .unwrap_or_else(|| "payment verification failed".to_string());
                self.end_job_with_402(server, job, &reason, None, now);
            }
            Reply::Garbage => {
                // Outcome unknown: keep the authorization consumed (decisions.md).
                job.spend(server);
                self.end_job_with_error(
                    server,
                    job,
                    &Failure::FacilitatorUnavailable,
                    "the payment facilitator is unavailable; you were not charged",
                    now,
                );
            }
        }
    }

    fn after_page(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        page: PageFetch,
        end: FetchEnd,
        now: Instant,
    ) {
        let result = match end {
            FetchEnd::Failed(failure) => Err(failure),
            FetchEnd::Response(response, url) => {
                if is_redirect(response.status) {
                    match redirect_target(
                        &url,
                        response.header("location"),
                        page.hops,
                        &server.config.net_policy,
                    ) {
                        Ok(next) => {
                            // The next hop, within the page's own deadline.
                            let hop = PageFetch {
                                hops: page.hops + 1,
                                ..page
                            };
                            let next = next.url().clone();
                            match self.start_fetch(server, &mut job, Purpose::Page(hop), next, now)
                            {
                                Ok(()) => {
                                    self.state = State::Job(job);
                                    return;
                                }
                                Err(failure) => Err(failure),
                            }
                        }
                        Err(RedirectError::Refused(rejection))
                            if rejection.is_private_address() =>
                        {
                            Err(Failure::BlockedResolution)
                        }
                        Err(_) => Err(Failure::FetchFailed),
                    }
                } else if !(200..300).contains(&response.status) {
                    Err(Failure::FetchFailed)
                } else {
                    // Decoding and extraction are CPU work: a worker does them.
                    let work = Work::Page(PageWork {
                        content_type: response.header("content-type").map(str::to_string),
                        content_encoding: response.header("content-encoding").map(str::to_string),
                        body: response.body,
                        url,
                        extractor: server.extractor,
                    });
                    self.start_work(&mut job, WorkFor::Page(page.slot), work);
                    self.state = State::Job(job);
                    return;
                }
            }
        };
        self.page_done(server, job, page.slot, result, now);
    }

    /// A page is read (or failed): the homepage plans the extra pages or ends the job; an
    /// extra page is kept, or skipped when it failed.
    fn page_done(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        page: usize,
        result: Result<PageExtraction, Failure>,
        now: Instant,
    ) {
        match (page, result) {
            (0, Err(failure)) => {
                job.spend(server);
                let message = failure_message(&failure);
                self.end_job_with_error(server, job, &failure, &message, now);
            }
            (0, Ok(extraction)) => {
                let home = job.target.url().clone();
                let plan = crawl::plan(&home, &extraction.links);
                job.contact_pages = plan.contact_pages.iter().map(Url::to_string).collect();
                job.pages[0] = Some(extraction);
                job.phase = Phase::CrawlExtras;
                for url in plan.fetch {
                    let Ok(url) = PublicUrl::check(url, &server.config.net_policy) else {
                        continue;
                    };
                    // The page's slot in `pages` (homepage first, then in plan order).
                    let page = PageFetch {
                        slot: job.pages.len(),
                        hops: 0,
                        deadline: (now + PAGE_TIMEOUT).min(job.deadline),
                    };
                    job.pages.push(None);
                    // An extra page that cannot even start is skipped, like a failed one.
                    let url = url.url().clone();
                    let _ = self.start_fetch(server, &mut job, Purpose::Page(page), url, now);
                }
                self.state = State::Job(job);
                self.maybe_settle(server, now);
            }
            (_, result) => {
                // An extra page that failed is skipped, not fatal.
                if let (Ok(extraction), Some(slot)) = (result, job.pages.get_mut(page)) {
                    *slot = Some(extraction);
                }
                self.state = State::Job(job);
                self.maybe_settle(server, now);
            }
        }
    }

    /// When the crawl is over (no page fetch left): builds the 200 body, then (paid) starts
    /// the settlement, or (unpaid) records the outcome.
    fn maybe_settle(&mut self, server: &Server, now: Instant) {
        let State::Job(job) = &self.state else {
            return;
        };
        if job.phase != Phase::CrawlExtras
            || job
                .fetches
                .iter()
                .any(|o| matches!(o.purpose, Purpose::Page(_)))
            || job.work.iter().any(|(_, f)| matches!(f, WorkFor::Page(_)))
        {
            return;
        }
        let Some(mut job) = self.take_job() else {
            return;
        };
        // Nothing may fail after the money moves: the body is built and serialised (by a
        // worker) before any /settle.
        let work = Work::Result(ResultWork {
            input_url: job.input_url.clone(),
            url: job.target.url().clone(),
            contact_pages: job.contact_pages.clone(),
            pages_fetched: job.pages_fetched,
            duration_ms: millis(now.saturating_duration_since(job.request.started)),
            request_id: job.request.id.clone(),
            pages: job.pages.iter_mut().filter_map(Option::take).collect(),
            merger: server.merger,
        });
        job.phase = Phase::Build;
        job.deadline = (job.request.started + JOB_TIMEOUT).max(now + MIN_BUILD_TIME);
        self.start_work(&mut job, WorkFor::Result, work);
        self.state = State::Job(job);
    }

    /// The result is built (or the build failed): settle it, or record the unpaid outcome.
    fn result_built(
        &mut self,
        server: &Server,
        job: Box<Job>,
        built: Result<Box<BuiltResult>, Failure>,
        now: Instant,
    ) {
        let Ok(built) = built else {
            let failure = Failure::Internal;
            let message =
                "an internal error occurred while building the result; you were not charged";
            job.spend(server);
            self.end_job_with_error(server, job, &failure, message, now);
            return;
        };
        let BuiltResult { result, body } = *built;
        if job.paid.is_none() {
            // An operator's crawl: the result, without settlement.
            self.unpaid_outcome = Some(Ok(result));
            self.finish_job(server, job, Response::json(200, body), None, None, now);
            return;
        }
        let kept = KeptResponse {
            body: Arc::from(body),
            request_id: job.request.id.clone(),
            settlement: None,
        };
        self.begin_settlement(server, job, kept, false, now);
    }

    /// Starts the settlement of `kept` with its own budget (decisions.md "Money safety").
    fn begin_settlement(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        kept: KeptResponse,
        unknown_before: bool,
        now: Instant,
    ) {
        job.phase = Phase::Settle;
        job.deadline = now + SETTLE_BUDGET;
        job.settlement = Some(Settlement {
            kept,
            attempts: 0,
            retry_at: None,
            unknown_before,
        });
        self.state = State::Job(job);
        self.retry_settle(server, now);
    }

    /// Sends one `/settle` for the job in [`Phase::Settle`].
    fn retry_settle(&mut self, server: &Server, now: Instant) {
        let State::Job(job) = &mut self.state else {
            return;
        };
        let (Some(paid), Some(settlement)) = (&job.paid, &mut job.settlement) else {
            return;
        };
        settlement.attempts += 1;
        let settle_url = endpoint(&paid.facilitator, "settle");
        let Some(mut job) = self.take_job() else {
            return;
        };
        match self.start_fetch(server, &mut job, Purpose::Settle, settle_url, now) {
            Ok(()) => self.state = State::Job(job),
            Err(failure) => self.after_settle(server, job, FetchEnd::Failed(failure), now),
        }
    }

    fn after_settle(&mut self, server: &Server, job: Box<Job>, end: FetchEnd, now: Instant) {
        let reply = match end {
            FetchEnd::Response(response, _) => Some(facilitator::parse_settle(&response.body)),
            FetchEnd::Failed(_) => None,
        };
        self.settlement_outcome(server, job, SettleOutcome::of(reply), now);
    }

    /// Acts on one `/settle` outcome: deliver and keep (settled), refuse (402), retry once
    /// after 2 s inside the budget, or answer 503 "settlement pending" with the result kept.
    fn settlement_outcome(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        outcome: SettleOutcome,
        now: Instant,
    ) {
        let (Some(mut settlement), Some(paid)) = (job.settlement.take(), &job.paid) else {
            // Only a paid job settles (a bug otherwise): end it rather than hang.
            self.end_job_with_error(server, job, &Failure::Internal, "internal error", now);
            return;
        };
        let resettle = paid.resettle;
        // After an unknown outcome, "already used" means our own transfer went through.
        let outcome = match outcome {
            SettleOutcome::Refused(answer)
                if settlement.unknown_before && reports_already_used(&answer) =>
            {
                SettleOutcome::Settled(confirmed_by_use(&answer, &settlement.kept))
            }
            other => other,
        };
        self.audit(&job, &outcome, settlement.attempts);
        match outcome {
            SettleOutcome::Settled(answer) => {
                let transaction = answer.transaction.clone();
                settlement.kept.settlement = Some(answer);
                job.record(server, Stage::Settled(settlement.kept.clone()));
                let response = paid_response(&settlement.kept);
                job.request.id.clone_from(&settlement.kept.request_id);
                self.finish_job(server, job, response, None, Some(transaction), now);
            }
            SettleOutcome::Refused(answer) if !resettle => {
                job.record(server, Stage::Spent);
                self.end_job_with_402(server, job, "settlement failed", Some(answer), now);
            }
            SettleOutcome::Refused(answer) | SettleOutcome::Unknown(Some(answer)) => {
                if !answer.transaction.is_empty() || settlement.kept.settlement.is_none() {
                    settlement.kept.settlement = Some(answer);
                }
                self.settlement_unknown(server, job, settlement, now);
            }
            SettleOutcome::Unknown(None) => self.settlement_unknown(server, job, settlement, now),
        }
    }

    /// An unknown settlement outcome: one more `/settle` after 2 s if the budget allows,
    /// else 503 "settlement pending" with the result kept for a retry.
    fn settlement_unknown(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        mut settlement: Settlement,
        now: Instant,
    ) {
        settlement.unknown_before = true;
        let retry_at = now + SETTLE_RETRY_DELAY;
        if settlement.attempts < 2 && retry_at < job.deadline {
            settlement.retry_at = Some(retry_at);
            job.settlement = Some(settlement);
            self.state = State::Job(job);
            return;
        }
        self.close_fetches(&mut job);
        job.record(server, Stage::Unknown(settlement.kept.clone()));
        let error = ApiError::new(
            ErrorCode::InternalError,
            SETTLEMENT_PENDING_MESSAGE,
            job.request.id.clone(),
        );
        let mut response = json_response(503, &error)
            .with_header("Retry-After", SETTLEMENT_PENDING_RETRY_AFTER.to_string());
        if let Some(answer) = &settlement.kept.settlement {
            response = response.with_header("PAYMENT-RESPONSE", codec::encode(answer));
        }
        let transaction = settlement
            .kept
            .settlement
            .as_ref()
            .map(|answer| answer.transaction.clone())
            .filter(|tx| !tx.is_empty());
        self.finish_job(
            server,
            job,
            response,
            Some(ErrorCode::InternalError),
            transaction,
            now,
        );
    }

    /// The audit line of one `/settle` attempt.
    fn audit(&mut self, job: &Job, outcome: &SettleOutcome, attempt: u8) {
        let Some(paid) = &job.paid else { return };
        let answer = match outcome {
            SettleOutcome::Settled(answer) | SettleOutcome::Refused(answer) => Some(answer),
            SettleOutcome::Unknown(answer) => answer.as_ref(),
        };
        self.outputs.push_back(Output::Settlement(SettlementEvent {
            request_id: job.request.id.clone(),
            payer: paid.payer.clone(),
            nonce: format!("0x{}", hex(&paid.key.nonce)),
            outcome: outcome.word(),
            reason: answer.and_then(|a| a.error_reason.clone()),
            transaction: answer
                .map(|a| a.transaction.clone())
                .filter(|tx| !tx.is_empty()),
            attempt,
            client_gone: self.client_gone,
        }));
    }

    /// The job deadline passed: before the homepage → 422 TIMEOUT; during extra pages → settle
    /// with what was read; during verify → facilitator unavailable; during the settlement (its
    /// own budget) → the outcome is unknown.
    fn job_deadline(&mut self, server: &Server, now: Instant) {
        let Some(mut job) = self.take_job() else {
            return;
        };
        match job.phase {
            Phase::CrawlHome => {
                self.close_fetches(&mut job);
                job.spend(server);
                self.end_job_with_error(
                    server,
                    job,
                    &Failure::Timeout,
                    "the site did not answer before the deadline",
                    now,
                );
            }
            Phase::CrawlExtras => {
                self.close_fetches(&mut job);
                self.state = State::Job(job);
                self.maybe_settle(server, now);
            }
            Phase::Build => {
                self.close_fetches(&mut job);
                job.spend(server);
                self.end_job_with_error(
                    server,
                    job,
                    &Failure::Internal,
                    "the result could not be built in time; you were not charged",
                    now,
                );
            }
            Phase::Verify => {
                self.close_fetches(&mut job);
                job.spend(server);
                self.end_job_with_error(
                    server,
                    job,
                    &Failure::FacilitatorUnavailable,
                    "the payment facilitator did not answer in time; you were not charged",
                    now,
                );
            }
            Phase::Settle => {
                self.close_fetches(&mut job);
                self.settlement_outcome(server, job, SettleOutcome::Unknown(None), now);
            }
        }
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
    /// client is simply forgotten (decisions.md "Money safety"). Its access line says
    /// `clientGone`. Without a job, the connection just closes.
    fn client_gone(&mut self, _server: &Server, _now: Instant) {
        self.client_gone = true;
        if matches!(self.state, State::Job(_)) {
            return;
        }
        self.state = State::Closed;
    }

    // ---- responses -----------------------------------------------------------------------

    fn end_job_with_error(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        failure: &Failure,
        message: &str,
        now: Instant,
    ) {
        self.close_fetches(&mut job);
        let (status, code) = reply_for(failure);
        let error = ApiError::new(code, message, job.request.id.clone());
        if job.paid.is_none() {
            self.unpaid_outcome = Some(Err(error.clone()));
        }
        let response = json_response(status, &error);
        self.finish_job(server, job, response, Some(code), None, now);
    }

    fn end_job_with_402(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        reason: &str,
        settle: Option<SettleResponse>,
        now: Instant,
    ) {
        self.close_fetches(&mut job);
        let response = match (settle, &job.paid) {
            // A refused settlement: the result is withheld; PAYMENT-RESPONSE says why.
            (Some(settled), _) => Response::json(402, b"{}".to_vec())
                .with_header("PAYMENT-RESPONSE", codec::encode(&settled))
                .with_header("Cache-Control", "no-store"),
            (None, Some(paid)) => payment_required_response(&paid.terms, reason),
            // Only paid jobs reach the facilitator; an unpaid one cannot get here.
            (None, None) => Response::json(402, b"{}".to_vec()),
        };
        self.finish_job(server, job, response, None, None, now);
    }

    fn finish_job(
        &mut self,
        server: &Server,
        job: Box<Job>,
        response: Response,
        code: Option<ErrorCode>,
        transaction: Option<String>,
        now: Instant,
    ) {
        self.state = State::Idle {
            deadline: now + HEAD_TIMEOUT,
        };
        let log = JobLog {
            pages_fetched: job.pages_fetched,
            payer: job.paid.as_ref().map(|paid| paid.payer.clone()),
            transaction,
        };
        if job.paid.is_none() || self.client_gone {
            // An operator's crawl has no client; a client that left gets nothing sent (a paid
            // result is in the payment store for its retry). Log it and end.
            self.log(&job.request, response.status, code, log, now);
            self.close();
            return;
        }
        self.send(&response.prepare(), &job.request, now, code, log);
        // The job ends here: its slot is free before a pipelined request is read.
        drop(job);
        if !self.is_finished() {
            self.advance_inbound(server, now);
        }
    }

    fn payment_required(
        &mut self,
        request: &RequestInfo,
        terms: &PaymentTerms,
        reason: &str,
        now: Instant,
    ) {
        let response = payment_required_response(terms, reason);
        self.send_plain(&response.prepare(), request, now);
    }

    fn respond_error(
        &mut self,
        request: &RequestInfo,
        failure: &Failure,
        message: &str,
        now: Instant,
    ) {
        self.respond_error_with(request, failure, message, now, &[]);
    }

    /// An `ApiError` response for `failure`, with `extra` headers (`Retry-After`, `Allow`).
    fn respond_error_with(
        &mut self,
        request: &RequestInfo,
        failure: &Failure,
        message: &str,
        now: Instant,
        extra: &[(&'static str, String)],
    ) {
        let (status, code) = reply_for(failure);
        let mut response = json_response(status, &ApiError::new(code, message, &request.id));
        for (name, value) in extra {
            response = response.with_header(name, value.clone());
        }
        // After a framing error the stream cannot be trusted: close it.
        let framing = matches!(
            failure,
            Failure::HeadTooLarge | Failure::BodyTooLarge | Failure::MalformedRequest
        );
        let request = RequestInfo {
            close: request.close || framing,
            ..request.clone()
        };
        self.send(
            &response.prepare(),
            &request,
            now,
            Some(code),
            JobLog::default(),
        );
    }

    /// A response that is neither an error nor paid (free routes, 402s).
    fn send_plain(&mut self, response: &PreparedResponse, request: &RequestInfo, now: Instant) {
        self.send(response, request, now, None, JobLog::default());
    }

    /// Queues `response` and its access-log line; closes after it when the request says so.
    fn send(
        &mut self,
        response: &PreparedResponse,
        request: &RequestInfo,
        now: Instant,
        error_code: Option<ErrorCode>,
        log: JobLog,
    ) {
        self.outputs.push_back(Output::SendToClient(
            response.to_bytes(&request.id, request.close),
        ));
        self.log(request, response.status, error_code, log, now);
        if request.close {
            self.close();
        }
    }

    /// The access-log line of one request.
    fn log(
        &mut self,
        request: &RequestInfo,
        status: u16,
        error_code: Option<ErrorCode>,
        log: JobLog,
        now: Instant,
    ) {
        self.outputs.push_back(Output::Event(RequestEvent {
            request_id: request.id.clone(),
            method: request.method.clone(),
            path: request.path.clone(),
            status,
            error_code,
            duration_ms: millis(now.saturating_duration_since(request.started)),
            pages_fetched: log.pages_fetched,
            payer: log.payer,
            transaction: log.transaction,
            client_gone: self.client_gone,
        }));
    }

    fn close(&mut self) {
        if !self.is_finished() {
            self.outputs.push_back(Output::CloseClient);
        }
        self.state = State::Closed;
    }
}

/// The `PAYMENT-RESPONSE` of a settlement the facilitator confirmed by reporting the
/// authorization as used after an unknown outcome: success, with the transaction the
/// facilitator gave for it earlier (the pending answer) when there was one.
fn confirmed_by_use(answer: &SettleResponse, kept: &KeptResponse) -> SettleResponse {
    let earlier = kept.settlement.as_ref();
    SettleResponse {
        success: true,
        error_reason: None,
        error_message: None,
        payer: answer
            .payer
            .clone()
            .or_else(|| earlier.and_then(|e| e.payer.clone())),
        transaction: earlier
            .map(|e| e.transaction.clone())
            .filter(|tx| !tx.is_empty())
            .unwrap_or_else(|| answer.transaction.clone()),
        network: if answer.network.is_empty() {
            earlier.map(|e| e.network.clone()).unwrap_or_default()
        } else {
            answer.network.clone()
        },
    }
}

/// The payment store key of an authorization under our terms.
fn authorization_key(terms: &PaymentTerms, from: [u8; 20], nonce: [u8; 32]) -> AuthorizationKey {
    AuthorizationKey {
        network: terms.requirements.network.clone(),
        asset: terms.requirements.asset.to_ascii_lowercase(),
        from,
        nonce,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The job's fetch `id`, if the exchange has a job and the job still has that fetch.
fn fetch_in(state: &mut State, id: FetchId) -> Option<&mut Fetch> {
    let State::Job(job) = state else {
        return None;
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
