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
//!   │        └─▶ body → URL → configured → 402 / a paid job:     │
//!   │   Job: Checking ─▶ Reserving ─▶ Verifying ─▶ Crawling ─▶ Building ─▶ Settling ─▶ Recording
//!   │                                     └─▶ Judging ─┘ (a used authorization with no record)
//!   └────────────────────────────────────────────────────────────┘
//! ```
//!
//! A paid job ([`job::Job`]) is one of its phases, each a type that owns exactly what the phase
//! needs and hands it on by value: the payment ([`job::Paid`]) from `Reserving` on, the
//! settlement ([`settling::Settlement`]) only in `Settling` and `Recording`. An operator's crawl
//! ([`Exchange::unpaid_crawl`]) is its own path ([`operator::OperatorJob`]): the same crawl and
//! build, no payment. While a call works on a job, the job is out of the state by value and
//! the connection is `Idle`; a phase that goes on puts its successor back.
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
//! This file holds the connection's states, the runtime-facing calls and the routing of each
//! input to the state or phase it is for. Each state's and phase's handling lives beside its
//! type: `inbound` (heads, bodies, routing a request), `admitting` (the paid route up to the
//! local checks, and repeated payments), `checking`, `reserving`, `verifying`, `judging`,
//! `crawling`, `building`, `settling`, `recording` (the paid job's phases), `operator` (an
//! operator's crawl), `job` (what every phase carries, the payment, the facilitator calls, the
//! audit line), `stored` (store operations), `respond` (responses, the access log, closing),
//! `probe` (the facilitator check). One outbound fetch is `outbound`; response bodies are
//! built in `responses`.

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
use crate::payment::endpoint::{Call, Facilitator};
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

mod admitting;
mod building;
mod checking;
mod crawling;
mod inbound;
mod job;
mod judging;
mod operator;
mod outbound;
mod probe;
mod recording;
mod reserving;
mod respond;
mod settling;
mod stored;
#[cfg(all(test, feature = "testing"))]
mod tests;
mod verifying;

use admitting::Admitting;
use building::Building;
use checking::Checking;
use crawling::{Crawl, Crawling, PageFetch, Progress};
use inbound::ChunkedBody;
use job::{Job, JobCore, Outbound, Paid, Purpose, StoreWait, WorkFor};
use judging::Judging;
use operator::OperatorJob;
use probe::Probed;
use recording::Recording;
use reserving::Reserving;
use respond::{JobLog, RequestInfo};
use settling::{Settlement, Settling};
use verifying::Verifying;

use outbound::{Fetch, FetchEnd, FetchPlan, Peer};
pub use outbound::{CONNECT_TIMEOUT, DNS_TIMEOUT, READ_TIMEOUT, TLS_TIMEOUT};
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
    /// The client address the PROXY header gave (for every request of the connection): the
    /// address it named, or the peer when it named none.
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
    /// A paid job, in one of its phases.
    Job(Box<Job>),
    /// An operator's crawl ([`Exchange::unpaid_crawl`]): no client, no payment.
    Operator(Box<OperatorJob>),
    /// A check without a client: a facilitator's `GET /supported`, or the periodic read of
    /// the payment network's head; its fetch and what it checks.
    Probe(Box<Fetch>, Probed),
    /// The connection is closed: the exchange is finished.
    Closed,
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
        match self.take_state(now) {
            State::Job(job) => self.cut_job_short(*job),
            State::Operator(mut operator) => self.close_fetches(operator.core_mut()),
            other => self.state = other,
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
    }

    /// Whatever deadline has passed at `now`: the client's, a store answer's, the job's, a
    /// settle retry's, a page memory retry's, a fetch's.
    fn on_timeout(&mut self, server: &Server, now: Instant) {
        match &mut self.state {
            State::Idle { deadline } | State::ReadingBody { deadline, .. } => {
                if now >= *deadline {
                    // A slow or idle client: close without disturbing others.
                    self.close();
                }
                return;
            }
            State::Admitting(admitting) => {
                if now >= admitting.deadline {
                    let id = admitting.id;
                    self.on_stored(server, id, Err(StoreFailure::Timeout), now);
                }
                return;
            }
            State::Probe(fetch, index) => {
                if now >= fetch.deadline() {
                    fetch.note_timeout();
                    let index = *index;
                    self.check_done(server, index, FetchEnd::Failed(Failure::Timeout));
                }
                return;
            }
            State::Closed => return,
            State::Job(job) => {
                if let Some(wait) = job.store_wait() {
                    // Nothing else runs while a store answer is awaited.
                    if now >= wait.until {
                        self.on_stored(server, wait.id, Err(StoreFailure::Timeout), now);
                    }
                    return;
                }
                if now >= job.core().deadline {
                    return self.job_deadline(server, now);
                }
                match &mut **job {
                    Job::Settling(settling) if settling.retry_due(now) => {
                        return self.retry_settle(server, now);
                    }
                    Job::Judging(judging) if judging.resume_at.is_some_and(|at| now >= at) => {
                        return self.judging_resume(server, now);
                    }
                    Job::Crawling(crawling) if crawling.crawl.memory_retry_due(now) => {
                        return self.crawl_memory_retry(server, now);
                    }
                    _ => {}
                }
            }
            State::Operator(operator) => {
                if now >= operator.core().deadline {
                    return self.operator_deadline(server, now);
                }
                if operator.memory_retry_due(now) {
                    return self.crawl_memory_retry(server, now);
                }
            }
        }
        let Some(core) = core_in(&mut self.state) else {
            return;
        };
        let expired: Vec<FetchId> = core
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
            State::Job(job) => job.core().fetches.iter().any(|o| o.fetch.id() == fetch),
            State::Operator(operator) => operator
                .core()
                .fetches
                .iter()
                .any(|o| o.fetch.id() == fetch),
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
            State::Job(job) => {
                let core = job.core();
                let timer = match &**job {
                    Job::Settling(settling) => settling.retry_at(),
                    Job::Judging(judging) => judging.resume_at,
                    Job::Crawling(crawling) => crawling.crawl.memory_retry_at(),
                    _ => None,
                };
                core.fetches
                    .iter()
                    .map(|o| o.fetch.deadline())
                    // While a store answer is awaited its deadline comes first (the job's is
                    // looked at after it).
                    .chain(Some(
                        job.store_wait().map_or(core.deadline, |wait| wait.until),
                    ))
                    .chain(timer)
                    .min()
            }
            State::Operator(operator) => operator
                .core()
                .fetches
                .iter()
                .map(|o| o.fetch.deadline())
                .chain(Some(operator.core().deadline))
                .chain(operator.memory_retry_at())
                .min(),
            State::Probe(fetch, _) => Some(fetch.deadline()),
            State::Closed => None,
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

    /// Takes the state out by value to work on it, leaving the connection `Idle` — what it is
    /// once a job ends; a phase that goes on puts its successor back.
    fn take_state(&mut self, now: Instant) -> State {
        std::mem::replace(
            &mut self.state,
            State::Idle {
                deadline: now + HEAD_TIMEOUT,
            },
        )
    }

    /// Takes the paid job out (see [`Exchange::take_state`]); `None`, with the state untouched,
    /// when there is none — so a late answer can never disturb an idle keep-alive connection.
    fn take_job(&mut self, now: Instant) -> Option<Job> {
        if !matches!(self.state, State::Job(_)) {
            return None;
        }
        match self.take_state(now) {
            State::Job(job) => Some(*job),
            other => {
                self.state = other;
                None
            }
        }
    }

    /// Puts a paid job that goes on back into the state.
    fn keep(&mut self, job: Job) {
        self.state = State::Job(Box::new(job));
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

    /// The answer to a piece of work, routed to the phase that waits for it; ignored when the
    /// core no longer waits for it.
    fn on_work_done(
        &mut self,
        server: &Server,
        id: WorkId,
        done: WorkDone,
        took: Duration,
        now: Instant,
    ) {
        let Some(core) = core_in(&mut self.state) else {
            return;
        };
        let Some(index) = core.work.iter().position(|(w, _)| *w == id) else {
            return;
        };
        let (_, purpose) = core.work.remove(index);
        match (self.take_state(now), purpose) {
            (State::Job(job), purpose) => match (*job, purpose) {
                (Job::Checking(checking), WorkFor::Payment) => match done {
                    WorkDone::Payment(checked) => {
                        self.payment_checked(server, checking, checked, now)
                    }
                    // An answer of the wrong kind (a runtime bug): a failed check.
                    _ => self.check_failed(server, checking, now),
                },
                (Job::Crawling(mut crawling), WorkFor::Page(page)) => {
                    let progress = self.crawl_work_done(
                        server,
                        &mut crawling.core,
                        &mut crawling.crawl,
                        (page, done, took),
                        now,
                    );
                    self.crawling(server, crawling, progress, now);
                }
                (Job::Building(building), WorkFor::Result) => {
                    self.result_built(server, building, built(done), now);
                }
                (job, _) => self.keep(job),
            },
            (State::Operator(operator), WorkFor::Page(page)) => {
                self.operator_work_done(server, *operator, (page, done, took), now);
            }
            (State::Operator(operator), WorkFor::Result) => {
                self.operator_built(server, *operator, built(done), now);
            }
            (other, _) => self.state = other,
        }
    }

    /// An answer (or, at its deadline, the lack of one) to store operation `id`, routed to
    /// the state or phase that waits for it. An answer nothing waits for any more (it came
    /// after its deadline) is dropped.
    fn on_stored(
        &mut self,
        server: &Server,
        id: StoreId,
        result: Result<StoreReply, StoreFailure>,
        now: Instant,
    ) {
        match &self.state {
            State::Admitting(admitting) if admitting.id == id => {
                let State::Admitting(admitting) = self.take_state(now) else {
                    return;
                };
                self.admission_answered(server, *admitting, result, now);
            }
            State::Job(job) if job.store_wait().is_some_and(|wait| wait.id == id) => {
                match self.take_job(now) {
                    Some(Job::Reserving(reserving, _)) => {
                        self.reserved(server, reserving, result, now);
                    }
                    Some(Job::Settling(settling)) => {
                        self.settle_begun(server, settling, result, now);
                    }
                    Some(Job::Recording(recording, _)) => self.delivered(server, recording, now),
                    Some(job) => self.keep(job),
                    None => {}
                }
            }
            _ => {}
        }
    }

    /// The job deadline passed: each phase says what that means for it.
    fn job_deadline(&mut self, server: &Server, now: Instant) {
        match self.take_job(now) {
            Some(Job::Checking(checking)) => self.checking_deadline(server, checking, now),
            Some(Job::Verifying(verifying)) => self.verifying_deadline(server, verifying, now),
            Some(Job::Judging(judging)) => self.judging_deadline(server, judging, now),
            Some(Job::Crawling(mut crawling)) => {
                let progress = self.crawl_deadline(&mut crawling.core, &mut crawling.crawl);
                self.crawling(server, crawling, progress, now);
            }
            Some(Job::Building(building)) => self.building_deadline(server, building, now),
            Some(Job::Settling(settling)) => self.settling_deadline(server, settling, now),
            // A store wait's deadline comes first (`on_timeout`): the job's is not looked at.
            Some(job @ (Job::Reserving(..) | Job::Recording(..))) => self.keep(job),
            None => {}
        }
    }

    /// The crawl's memory retry is due: start the pages that wait, as far as the budget
    /// allows.
    fn crawl_memory_retry(&mut self, server: &Server, now: Instant) {
        match self.take_state(now) {
            State::Job(job) => match *job {
                Job::Crawling(mut crawling) => {
                    let progress = self.start_waiting_pages(
                        server,
                        &mut crawling.core,
                        &mut crawling.crawl,
                        now,
                    );
                    self.crawling(server, crawling, progress, now);
                }
                job => self.keep(job),
            },
            State::Operator(operator) => self.operator_memory_retry(server, *operator, now),
            other => self.state = other,
        }
    }

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

    /// A fetch ended: close it and route its end to what it was for.
    fn end_fetch(&mut self, server: &Server, id: FetchId, end: FetchEnd, now: Instant) {
        if let State::Probe(fetch, index) = &self.state {
            if fetch.id() == id {
                let index = *index;
                self.check_done(server, index, end);
            }
            return;
        }
        let Some(core) = core_in(&mut self.state) else {
            return;
        };
        let Some(index) = core.fetches.iter().position(|o| o.fetch.id() == id) else {
            return;
        };
        let Outbound { purpose, fetch } = core.fetches.remove(index);
        // Why it failed, for the access and audit lines: the homepage's fetch, or a facilitator
        // or chain call that got no usable reply (pages after the homepage are skipped quietly).
        let cause = fetch.cause().map(str::to_string);
        let sent = fetch.request_sent();
        match purpose {
            Purpose::Page(PageFetch { slot: 0, .. }) => core.cause = cause,
            Purpose::Verify | Purpose::Settle | Purpose::Chain if cause.is_some() => {
                core.cause = cause;
            }
            _ => {}
        }
        if matches!((purpose, &end), (Purpose::Page(_), FetchEnd::Response(..))) {
            core.pages_fetched += 1;
        }
        self.outputs.push_back(Output::CloseFetch { fetch: id });
        match (self.take_state(now), purpose) {
            (State::Job(job), purpose) => match (*job, purpose) {
                (Job::Verifying(verifying), Purpose::Verify) => {
                    self.after_verify(server, verifying, end, now);
                }
                (Job::Settling(settling), Purpose::Settle) => {
                    self.after_settle(server, settling, (end, sent), now);
                }
                (Job::Settling(settling), Purpose::Chain) => {
                    self.settling_chain_reply(server, settling, end, now);
                }
                (Job::Judging(judging), Purpose::Chain) => {
                    self.judging_chain_reply(server, judging, end, now);
                }
                (Job::Crawling(mut crawling), Purpose::Page(page)) => {
                    let (core, crawl) = (&mut crawling.core, &mut crawling.crawl);
                    let progress = self.after_page(server, core, crawl, page, end, now);
                    self.crawling(server, crawling, progress, now);
                }
                (job, _) => self.keep(job),
            },
            (State::Operator(operator), Purpose::Page(page)) => {
                self.operator_page_end(server, *operator, page, end, now);
            }
            (other, _) => self.state = other,
        }
    }

    /// Closes the job's fetches and cancels its work: nothing more is waited for.
    fn close_fetches(&mut self, core: &mut JobCore) {
        for outbound in core.fetches.drain(..) {
            self.outputs.push_back(Output::CloseFetch {
                fetch: outbound.fetch.id(),
            });
        }
        for (id, _) in core.work.drain(..) {
            self.outputs.push_back(Output::CancelWork { id });
        }
    }
}

/// A result build's answer; one of the wrong kind (a runtime bug) is a failed build.
fn built(done: WorkDone) -> Result<Box<BuiltResult>, Failure> {
    match done {
        WorkDone::Result(built) => built,
        _ => Err(Failure::Internal),
    }
}

/// What the state's job (paid, or an operator's) carries whatever its phase, if there is one.
fn core_in(state: &mut State) -> Option<&mut JobCore> {
    match state {
        State::Job(job) => Some(job.core_mut()),
        State::Operator(operator) => Some(operator.core_mut()),
        _ => None,
    }
}

/// The job's fetch `id`, if the exchange has a job (or a check) and it still has that fetch.
fn fetch_in(state: &mut State, id: FetchId) -> Option<&mut Fetch> {
    if let State::Probe(fetch, _) = state {
        return (fetch.id() == id).then_some(&mut **fetch);
    }
    core_in(state)?
        .fetches
        .iter_mut()
        .find(|o| o.fetch.id() == id)
        .map(|o| &mut o.fetch)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
