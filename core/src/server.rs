//! [`Server`]: the long-lived state shared by all connections (configuration, rate limiter,
//! request ids, payment store, job count, the unix clock baseline). Each [`Exchange`](crate::exchange::Exchange) holds a
//! clone; only the small mutable part is behind a lock, taken briefly inside the core.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use std::net::IpAddr;

use crate::api::ContactExtractionResult;
use crate::client_ip::is_trusted_proxy;
use crate::config::{Config, PaymentConfig};
use crate::connections::{ConnectionGate, ConnectionRefused, ConnectionSlot};
use crate::discovery;
use crate::extract::{self, PageExtraction, SiteInfo};
use crate::fetch::http1::user_agent;
use crate::http::response::{PreparedResponse, Response};
use crate::ids::RequestIds;
use crate::limiter::{LocalLeases, RateLimiter};
use crate::page_memory::PageMemory;
use crate::payment::endpoint::{Call, Facilitator};
use crate::payment::offer_receipt::{self, OfferPayload, OfferSigner};
use crate::payment::store::PaymentStore;
use crate::responses::payment_required_response;
use crate::store::LocalStore;
use sha3::{Digest, Keccak256};

/// A page extractor: (page URL, `Content-Type`, decoded body bytes) → the page's contact data.
pub type Extractor = fn(&url::Url, Option<&str>, &[u8]) -> PageExtraction;
/// Merges the pages of one crawl into the result ([`extract::merge`] unless replaced).
pub type Merger = fn(SiteInfo<'_>, &[PageExtraction]) -> ContactExtractionResult;

/// The service's state, shared by all connections. Cloning it is cheap (reference counts);
/// each [`Exchange`](crate::exchange::Exchange) holds a clone taken at accept:
///
/// - what never changes while serving (configuration, the prepared 402, the user agent, the
///   extractor and merger, the clock baseline) is shared read-only ([`Fixed`], via `Deref`);
/// - the genuinely shared mutable state — rate limiter, request-id source, payment store — sits
///   behind one lock (`Server::shared`), taken for microseconds around each use, never while
///   parsing, verifying a signature, extracting or merging;
/// - the job counter is atomic.
///
/// So no connection's work runs while another waits for it.
#[derive(Debug, Clone)]
pub struct Server {
    fixed: Arc<Fixed>,
    shared: Arc<Mutex<Shared>>,
    pub(crate) jobs: JobCounter,
    connections: ConnectionGate,
    pub(crate) page_memory: PageMemory,
    /// Set once the service drains (SIGTERM): see [`Server::begin_drain`].
    draining: Arc<AtomicBool>,
    /// What the latest check of each configured facilitator found (readiness, and where new
    /// payments go), in the order of `FACILITATOR_URL`.
    facilitators: Arc<Mutex<Vec<FacilitatorHealth>>>,
    /// What is wrong with the shared store, as the runtime last found (readiness).
    store_problem: Arc<Mutex<Option<String>>>,
    /// The payment network's head as the latest periodic read found it
    /// ([`crate::exchange::Exchange::chain_head_check`]): a new payment record stores its
    /// number ([`Server::first_seen_block`]).
    chain_head: Arc<Mutex<Option<KnownHead>>>,
    /// The wall clock, as the runtime last read it: the unix time, in milliseconds, that
    /// `Fixed::started` corresponds to ([`Server::observe_wall_clock`]).
    unix_at_started_ms: Arc<AtomicU64>,
    /// Lease ids handed out so far ([`Server::new_lease_id`]).
    leases_issued: Arc<AtomicU64>,
    /// Nonces handed out so far ([`Server::facilitator_request`]).
    nonces_issued: Arc<AtomicU64>,
    /// Signed offers (x402 `offer-receipt`), when the service has a signing key.
    offers: Option<Arc<Offers>>,
}

/// How long a signed offer stands, in seconds; offers are signed again once less than half of
/// it is left ([`Server::refresh_offers`], called by the runtime every minute).
pub const OFFER_VALIDITY_SECONDS: u64 = 600;

/// The service's signed offers, signed once and again before they lapse (never per request:
/// the unpaid 402 stays as fast as without them).
#[derive(Debug)]
struct Offers {
    signer: OfferSigner,
    current: std::sync::RwLock<Arc<SignedOffers>>,
}

/// One signing of the offers.
#[derive(Debug)]
pub(crate) struct SignedOffers {
    /// Unix seconds until which they stand.
    valid_until: u64,
    /// Every 402's `extensions`: `bazaar`, `payment-identifier` and `offer-receipt` with one
    /// signed offer per `accepts[]` entry and the signer's address.
    extensions: serde_json::Value,
    /// The unpaid 402 carrying them.
    pub(crate) unpaid: PreparedResponse,
}

impl Offers {
    /// Offers for `config`'s terms, standing [`OFFER_VALIDITY_SECONDS`] from `unix_now`.
    fn sign(signer: &OfferSigner, config: &Config, unix_now: u64) -> Option<SignedOffers> {
        let PaymentConfig::Ready { terms, .. } = &config.payment else {
            return None;
        };
        let valid_until = unix_now + OFFER_VALIDITY_SECONDS;
        let offer = OfferPayload::of(&terms.requirements, &terms.resource.url, valid_until);
        let mut extensions = discovery::payment_extensions();
        extensions[offer_receipt::EXTENSION_KEY] = serde_json::json!({
            "info": {
                "offers": [signer.offer(0, &offer)],
                "signer": signer.address(),
            },
        });
        let unpaid =
            payment_required_response(terms, "Payment required", extensions.clone()).prepare();
        Some(SignedOffers {
            valid_until,
            extensions,
            unpaid,
        })
    }
}

/// How long a head read stands for new payment records, in seconds: the runtime reads it every
/// [`crate::budget::FACILITATOR_CHECK_INTERVAL`] (60 s), so a few missed reads are tolerated.
pub const HEAD_KNOWN_FOR_SECONDS: u64 = 300;

/// The payment network's head block as a periodic read found it
/// ([`Server::first_seen_block`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownHead {
    /// The block number.
    pub number: u64,
    /// The block's timestamp, unix seconds.
    pub timestamp: u64,
    /// The local unix second at which it was read.
    pub read_at: u64,
}

/// What the latest check of the facilitator's `GET /supported` found (docs/operations.md,
/// "Readiness"). The runtime starts a check at start-up and then every
/// [`crate::budget::FACILITATOR_CHECK_INTERVAL`] ([`crate::exchange::Exchange::facilitator_check`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FacilitatorHealth {
    /// No check has ended yet.
    Unchecked,
    /// The facilitator lists x402 v2 `exact` on the configured network.
    Supported,
    /// It is unreachable, answered an error or garbage, or lists something else: the
    /// readiness problem, worded for an operator.
    Problem(String),
}

impl std::fmt::Display for FacilitatorHealth {
    /// One log line: "facilitator check: …".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FacilitatorHealth::Unchecked => f.write_str("facilitator check: not done yet"),
            FacilitatorHealth::Supported => f.write_str(
                "facilitator check: it supports x402 v2 exact on the configured network (ready)",
            ),
            FacilitatorHealth::Problem(problem) => {
                write!(f, "facilitator check: {problem} (not ready)")
            }
        }
    }
}

/// The read-only part of the [`Server`]. Its `Debug` leaves out the JWT nonce key and shows
/// the configuration's own redacting `Debug`.
#[derive(Clone)]
pub struct Fixed {
    pub(crate) config: Config,
    pub(crate) user_agent: String,
    /// The 402 for a request without `PAYMENT-SIGNATURE` (identical every time).
    pub(crate) unpaid_response: PreparedResponse,
    /// Turns one fetched page into contact data ([`extract::extract_page`] unless replaced).
    pub(crate) extractor: Extractor,
    /// Builds the result from the pages ([`extract::merge`] unless replaced).
    pub(crate) merger: Merger,
    started: Instant,
    /// Whether the rate limiter and the payment store are shared by several instances
    /// ([`Server::share_store`]): store operations become `Output::Store` effects.
    pub(crate) shared_store: bool,
    /// Random per process start: the seed of this process's lease ids.
    pub(crate) instance: u64,
    /// Random per process start: the key of the facilitator JWTs' nonces
    /// ([`Server::facilitator_request`]), derived from the seed apart from every other use.
    nonce_key: [u8; 32],
}

impl std::fmt::Debug for Fixed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Fixed {
            config,
            user_agent,
            unpaid_response: _,
            extractor: _,
            merger: _,
            started,
            shared_store,
            instance,
            nonce_key: _,
        } = self;
        f.debug_struct("Fixed")
            .field("config", config)
            .field("user_agent", user_agent)
            .field("started", started)
            .field("shared_store", shared_store)
            .field("instance", instance)
            .field("nonce_key", &"[redacted]")
            .finish_non_exhaustive()
    }
}

/// The mutable part of the [`Server`], behind its lock.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) ids: RequestIds,
    /// The rate limiter and the payment store, when they live in this process (the default;
    /// see [`Server::share_store`]).
    pub(crate) store: LocalStore,
    /// Rate-limit tokens drawn from the shared store and not yet spent, per client (only
    /// used while the store is shared).
    pub(crate) leases: LocalLeases,
    /// The cache and limits of chain readings for payments without a record
    /// (docs/payments.md, "The judge is no amplifier").
    pub(crate) judge_gate: crate::payment::judge_gate::JudgeGate,
}

impl std::ops::Deref for Server {
    type Target = Fixed;

    fn deref(&self) -> &Fixed {
        &self.fixed
    }
}

impl Server {
    /// A server for `config`. `seed` is 32 bytes of OS entropy (fixed in tests); `now` and
    /// `unix_now` (time since the UNIX epoch) are read by the runtime at start-up, and the wall
    /// clock again at every event ([`Server::observe_wall_clock`]).
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
            PaymentConfig::Ready { terms, .. } => payment_required_response(
                terms,
                "Payment required",
                discovery::payment_extensions(),
            ),
            PaymentConfig::Incomplete(_) => Response::json(503, Vec::new()),
        }
        .prepare();
        let facilitator_count = match &config.payment {
            PaymentConfig::Ready { facilitators, .. } => facilitators.len(),
            PaymentConfig::Incomplete(_) => 0,
        };
        let offers = config.offer_signer.as_ref().and_then(|signer| {
            let signed = Offers::sign(signer, &config, unix_now.as_secs())?;
            Some(Arc::new(Offers {
                signer: signer.clone(),
                current: std::sync::RwLock::new(Arc::new(signed)),
            }))
        });
        let connections =
            ConnectionGate::new(config.max_connections, config.max_connections_per_ip);
        let page_memory = PageMemory::new(config.max_page_memory);
        let shared = Shared {
            ids: RequestIds::new(seed),
            store: LocalStore::new(RateLimiter::new(
                config.rate_limit_per_minute,
                config.rate_limit_burst,
            )),
            leases: LocalLeases::default(),
            judge_gate: crate::payment::judge_gate::JudgeGate::default(),
        };
        // The seed of this process's lease ids: random per start, derived from the seed so it
        // says nothing about the request ids.
        let mut owner_seed = seed.to_vec();
        owner_seed.extend_from_slice(b"lease owner");
        let digest: [u8; 32] = Keccak256::digest(&owner_seed).into();
        let instance = u64::from_le_bytes(digest[..8].try_into().unwrap_or_default());
        let mut nonce_seed = seed.to_vec();
        nonce_seed.extend_from_slice(b"facilitator jwt nonce");
        let nonce_key: [u8; 32] = Keccak256::digest(&nonce_seed).into();
        Server {
            fixed: Arc::new(Fixed {
                unpaid_response,
                extractor: extract::extract_page,
                merger: extract::merge,
                user_agent: user_agent(&base),
                config,
                started: now,
                shared_store: false,
                instance,
                nonce_key,
            }),
            connections,
            page_memory,
            shared: Arc::new(Mutex::new(shared)),
            jobs: JobCounter::default(),
            draining: Arc::new(AtomicBool::new(false)),
            facilitators: Arc::new(Mutex::new(vec![
                FacilitatorHealth::Unchecked;
                facilitator_count
            ])),
            store_problem: Arc::new(Mutex::new(None)),
            chain_head: Arc::new(Mutex::new(None)),
            unix_at_started_ms: Arc::new(AtomicU64::new(millis_u64(unix_now))),
            leases_issued: Arc::new(AtomicU64::new(0)),
            nonces_issued: Arc::new(AtomicU64::new(0)),
            offers,
        }
    }

    /// The runtime read the wall clock at `now`: `unix_now` since the UNIX epoch. Every
    /// connection of this server reads unix time from the latest such reading, so a step of
    /// the wall clock (NTP, a VM resumed) is followed at the next event (docs/payments.md,
    /// "The wall clock"); between events, time runs on the monotonic clock. Runtimes call it
    /// through [`crate::driver::Driver::handle`], with every event.
    pub fn observe_wall_clock(&self, now: Instant, unix_now: Duration) {
        let since_start = now.saturating_duration_since(self.fixed.started);
        let base = millis_u64(unix_now.saturating_sub(since_start));
        self.unix_at_started_ms.store(base, Ordering::Relaxed);
    }

    /// Unix time at `now`, from the latest wall-clock reading.
    pub(crate) fn unix_time(&self, now: Instant) -> Duration {
        let base = Duration::from_millis(self.unix_at_started_ms.load(Ordering::Relaxed));
        base + now.saturating_duration_since(self.fixed.started)
    }

    /// The instant of unix second `unix` on this server's clock (`now` if it has passed).
    pub(crate) fn instant_of_unix(&self, now: Instant, unix: u64) -> Instant {
        now + Duration::from_secs(unix).saturating_sub(self.unix_time(now))
    }

    /// The service starts draining (docs/operations.md, "Drain"): from now on every response
    /// closes its connection (`Connection: close`) and no further request is read on it; a
    /// paid request read after this is refused with 503 and `Retry-After` before anything is
    /// reserved (nothing charged), while every paid job already started runs to its end,
    /// settlement included; `/api/ready` answers 503 "draining". The runtime also calls
    /// [`crate::exchange::Exchange::handle_drain`] on each open connection, so idle keep-alive
    /// connections close at once.
    pub fn begin_drain(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// Whether [`Server::begin_drain`] was called.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// Replaces the page extractor (default [`extract::extract_page`]) for connections
    /// accepted from now on. The extractor runs inside [`crate::work::Work::run`], under
    /// `catch_unwind`: a panic there (a bug) answers 500 `INTERNAL_ERROR` for a homepage, skips
    /// an extra page, and is never charged (docs/contract.md "Request order" step 8). Tests use this to exercise
    /// that path.
    pub fn set_extractor(&mut self, extractor: Extractor) {
        Arc::make_mut(&mut self.fixed).extractor = extractor;
    }

    /// Replaces the merge of a crawl's pages into the result (default [`extract::merge`]) for
    /// connections accepted from now on. It runs, with the serialisation, inside
    /// [`crate::work::Work::run`] *before* any `/settle`: a panic there is 500
    /// `INTERNAL_ERROR`, never charged (docs/payments.md). Tests use this.
    pub fn set_merger(&mut self, merger: Merger) {
        Arc::make_mut(&mut self.fixed).merger = merger;
    }

    /// Replaces the in-process payment store (default: a [`crate::payment::store::MemoryStore`]
    /// of [`crate::payment::store::MAX_ENTRIES`] records and
    /// [`crate::payment::store::MAX_KEPT_BYTES`] bytes), for every connection: tests of a full
    /// store or of a rival claim. A store shared by several instances is
    /// [`Server::share_store`] instead.
    pub fn set_payment_store(&self, store: Box<dyn PaymentStore>) {
        self.shared().store.payments = store;
    }

    /// The in-process payment store's records and kept response bytes (zero while the store
    /// is shared).
    pub fn payment_store_usage(&self) -> (usize, usize) {
        self.shared().store.payments.usage()
    }

    /// Moves the rate limiter and the payment store out of the process (docs/operations.md,
    /// "Running several instances"): from now on every store operation is an
    /// `Output::Store` that the runtime carries out on the shared store (Redis) and answers
    /// with `Input::Stored`. Call it before accepting connections.
    pub fn share_store(&mut self) {
        Arc::make_mut(&mut self.fixed).shared_store = true;
    }

    /// Whether [`Server::share_store`] was called.
    pub fn store_is_shared(&self) -> bool {
        self.fixed.shared_store
    }

    /// The current signed offers, when the service signs them.
    pub(crate) fn signed_offers(&self) -> Option<Arc<SignedOffers>> {
        let offers = self.offers.as_ref()?;
        let current = offers
            .current
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        Some(Arc::clone(&current))
    }

    /// Every 402's `extensions` (`bazaar`, `payment-identifier`, and `offer-receipt` when the
    /// service signs offers).
    pub(crate) fn payment_extensions(&self) -> serde_json::Value {
        match self.signed_offers() {
            Some(offers) => offers.extensions.clone(),
            None => discovery::payment_extensions(),
        }
    }

    /// The signer of offers and receipts, if configured.
    pub(crate) fn offer_signer(&self) -> Option<&OfferSigner> {
        self.offers.as_ref().map(|offers| &offers.signer)
    }

    /// Signs the offers again when less than half of [`OFFER_VALIDITY_SECONDS`] is left at
    /// `unix_now` (time since the UNIX epoch). The runtime calls it every minute; it does
    /// nothing without a signing key.
    pub fn refresh_offers(&self, unix_now: Duration) {
        let Some(offers) = &self.offers else {
            return;
        };
        let unix_now = unix_now.as_secs();
        let due = self
            .signed_offers()
            .is_none_or(|current| current.valid_until < unix_now + OFFER_VALIDITY_SECONDS / 2);
        if !due {
            return;
        }
        if let Some(signed) = Offers::sign(&offers.signer, &self.fixed.config, unix_now) {
            let mut current = offers
                .current
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            *current = Arc::new(signed);
        }
    }

    /// A new lease id for a reservation or a claim in the payment store (docs/payments.md,
    /// "Every claim is fenced"): Keccak-256 of this process's random instance seed and a
    /// counter, so ids differ across processes and across the claims of one process, without
    /// an RNG in the core.
    pub fn new_lease_id(&self) -> u64 {
        let n = self.leases_issued.fetch_add(1, Ordering::Relaxed);
        let mut input = [0u8; 16];
        input[..8].copy_from_slice(&self.fixed.instance.to_le_bytes());
        input[8..].copy_from_slice(&n.to_le_bytes());
        let digest: [u8; 32] = Keccak256::digest(input).into();
        u64::from_le_bytes(digest[..8].try_into().unwrap_or_default())
    }

    /// The request bytes of a facilitator `call` (`body`: the JSON of `/verify` and
    /// `/settle`, empty for `/supported`) with the facilitator's credentials, and the URL they
    /// go to: every facilitator request is built here ([`Facilitator::request`]). A CDP JWT
    /// is valid from this server's unix time at `now` and carries a fresh nonce: Keccak-256 of
    /// this process's random nonce key and a counter (16 bytes), unpredictable without an RNG
    /// in the core.
    pub fn facilitator_request(
        &self,
        facilitator: &Facilitator,
        call: Call,
        body: &[u8],
        now: Instant,
    ) -> (url::Url, Vec<u8>) {
        let n = self.nonces_issued.fetch_add(1, Ordering::Relaxed);
        let mut input = self.fixed.nonce_key.to_vec();
        input.extend_from_slice(&n.to_le_bytes());
        let digest: [u8; 32] = Keccak256::digest(&input).into();
        let mut nonce = [0u8; 16];
        nonce.copy_from_slice(&digest[..16]);
        let unix_now = self.unix_time(now).as_secs();
        facilitator.request(call, body, &self.user_agent, unix_now, nonce)
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.fixed.config
    }

    /// Paid jobs currently in flight.
    pub fn jobs_in_flight(&self) -> usize {
        self.jobs.in_flight()
    }

    /// Admits a client connection from `peer` under `MAX_CONNECTIONS` and
    /// `MAX_CONNECTIONS_PER_IP` (a trusted proxy is exempt from the latter). The runtime calls
    /// it right after `accept`, keeps the slot for the connection's life, and closes a refused
    /// connection at once.
    ///
    /// # Errors
    /// [`ConnectionRefused`] when a cap is reached.
    pub fn admit_connection(&self, peer: IpAddr) -> Result<ConnectionSlot, ConnectionRefused> {
        let trusted = is_trusted_proxy(&self.config.trusted_proxies, peer);
        self.connections.admit(peer, trusted)
    }

    /// Bytes of the page memory budget reserved now (`MAX_PAGE_MEMORY`).
    pub fn page_memory_used(&self) -> usize {
        self.page_memory.used()
    }

    /// Open client connections (admitted and not yet dropped).
    pub fn connections_open(&self) -> usize {
        self.connections.open()
    }

    /// What the latest check of facilitator `index` (its place in `FACILITATOR_URL`) found;
    /// [`FacilitatorHealth::Unchecked`] for an index out of range.
    pub fn facilitator_health(&self, index: usize) -> FacilitatorHealth {
        self.facilitators
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(index)
            .cloned()
            .unwrap_or(FacilitatorHealth::Unchecked)
    }

    /// Records the outcome of facilitator `index`'s check; returns the previous one (a runtime
    /// logs the change).
    pub(crate) fn set_facilitator_health(
        &self,
        index: usize,
        health: FacilitatorHealth,
    ) -> FacilitatorHealth {
        let mut all = self
            .facilitators
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match all.get_mut(index) {
            Some(current) => std::mem::replace(current, health),
            None => FacilitatorHealth::Unchecked,
        }
    }

    /// Records the payment network's head block as a periodic read found it: its number and
    /// its timestamp, and `read_at`, the local unix second of the read.
    pub(crate) fn set_chain_head(&self, head: KnownHead) {
        *self
            .chain_head
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(head);
    }

    /// The payment network's head as last read, if any ([`KnownHead`]).
    pub fn chain_head(&self) -> Option<KnownHead> {
        *self
            .chain_head
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The block number a payment record first seen at unix second `unix_now` stores
    /// (docs/payments.md, "The look-back covers every record"): the last head read, when it
    /// was read at most [`HEAD_KNOWN_FOR_SECONDS`] before and its block was then fresh
    /// (stamped at most [`crate::payment::chain::HEAD_MAX_AGE_SECONDS`] before the read);
    /// otherwise none, and a later chain reading finds its start block by timestamps. The
    /// head only grows, so an older number is still at or before the block the authorization
    /// can first be used in; the chain reader searches from it less a margin.
    pub fn first_seen_block(&self, unix_now: u64) -> Option<u64> {
        let head = self.chain_head()?;
        let fresh_at_read =
            head.timestamp + crate::payment::chain::HEAD_MAX_AGE_SECONDS >= head.read_at;
        let recent = unix_now.saturating_sub(head.read_at) <= HEAD_KNOWN_FOR_SECONDS
            && head.read_at <= unix_now.saturating_add(HEAD_KNOWN_FOR_SECONDS);
        (fresh_at_read && recent).then_some(head.number)
    }

    /// Where a new payment goes (docs/payments.md, "Several facilitators"): the index of the
    /// first facilitator whose latest check passed, or the first one when none has.
    pub fn chosen_facilitator(&self) -> usize {
        self.facilitators
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .position(|h| *h == FacilitatorHealth::Supported)
            .unwrap_or(0)
    }

    /// Why the facilitators make the service not ready (docs/operations.md, "Readiness"): when
    /// none passed its latest check, each one's problem (not checked yet, unreachable, or not
    /// listing x402 v2 `exact` on the configured network); empty while one is healthy.
    pub fn facilitator_problems(&self) -> Vec<String> {
        self.facilitator_lines(false)
    }

    /// The problems of the facilitators that failed their latest check while another one is
    /// healthy: `/api/ready`'s warnings (the service is ready, with fewer fallbacks).
    pub fn facilitator_warnings(&self) -> Vec<String> {
        self.facilitator_lines(true)
    }

    /// One line per facilitator that is not healthy (with several configured, each names its
    /// URL), when one is healthy (`with_a_healthy_one`) or when none is; otherwise none.
    fn facilitator_lines(&self, with_a_healthy_one: bool) -> Vec<String> {
        let all = self
            .facilitators
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if all.contains(&FacilitatorHealth::Supported) != with_a_healthy_one {
            return Vec::new();
        }
        let urls: Vec<String> = match &self.fixed.config.payment {
            PaymentConfig::Ready { facilitators, .. } => facilitators
                .iter()
                .map(|f| crate::config::endpoint_label(&f.url))
                .collect(),
            PaymentConfig::Incomplete(_) => Vec::new(),
        };
        all.iter()
            .enumerate()
            .filter_map(|(index, health)| {
                let problem = match health {
                    FacilitatorHealth::Supported => return None,
                    FacilitatorHealth::Unchecked => {
                        "facilitator not checked yet (GET /supported is under way)".to_string()
                    }
                    FacilitatorHealth::Problem(problem) => problem.clone(),
                };
                Some(match urls.get(index) {
                    Some(url) if urls.len() > 1 => format!("{url}: {problem}"),
                    _ => problem,
                })
            })
            .collect()
    }

    /// Records what the runtime found about the shared store (`REDIS_URL`): `None` when it
    /// answers, or the problem, which `/api/ready` names (docs/operations.md, "Running several
    /// instances"). The in-process store never has one.
    pub fn set_store_problem(&self, problem: Option<String>) {
        *self
            .store_problem
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = problem;
    }

    /// Why the shared store makes the service not ready, if it does.
    pub fn store_problem(&self) -> Option<String> {
        self.store_problem
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Why the service is shedding load now, if it is: paid jobs or connections at their cap.
    /// `/api/ready` answers 503 with these, so a load balancer sends new work elsewhere.
    pub fn shedding(&self) -> Vec<String> {
        let mut reasons = Vec::new();
        if self.is_draining() {
            reasons.push("draining: the service is shutting down".to_string());
        }
        if self.jobs.in_flight() >= self.config.max_concurrent_jobs {
            reasons.push(format!(
                "paid jobs at their cap (MAX_CONCURRENT_JOBS={})",
                self.config.max_concurrent_jobs
            ));
        }
        if self.page_memory.exhausted() {
            reasons.push(format!(
                "page memory at its cap (MAX_PAGE_MEMORY={} bytes)",
                self.config.max_page_memory
            ));
        }
        if self.connections.at_cap() {
            reasons.push(format!(
                "connections at their cap (MAX_CONNECTIONS={})",
                self.config.max_connections
            ));
        }
        reasons
    }

    /// The mutable shared state, locked. Hold the guard only around one use: never across a
    /// call that could lock it again, and never around CPU work.
    pub(crate) fn shared(&self) -> MutexGuard<'_, Shared> {
        // A panic while holding the lock is a bug; the state is still consistent enough to
        // keep answering other connections.
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new request id at `now`.
    pub(crate) fn next_request_id(&self, now: Instant) -> String {
        let millis = u64::try_from(self.unix_time(now).as_millis()).unwrap_or(u64::MAX);
        self.shared().ids.next(millis)
    }
}

/// `duration` in whole milliseconds, saturating.
fn millis_u64(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Counts jobs in flight (for `MAX_CONCURRENT_JOBS`). A job holds a [`JobSlot`]; the count
/// goes down when the slot is dropped, however the job ends — a response, a client gone, or
/// the runtime dropping the exchange (a cancelled task, a panic caught by the executor) — so
/// the cap can never leak shut.
#[derive(Debug, Default, Clone)]
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::disallowed_methods)]

    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn debug_never_shows_the_nonce_key_or_the_redis_password() {
        let vars: BTreeMap<String, String> = [
            ("PUBLIC_BASE_URL", "https://contacts.example.com"),
            ("PAY_TO", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
            ("FACILITATOR_URL", "https://facilitator.example.com"),
            ("REDIS_URL", "redis://:redis-password-secret@127.0.0.1:6379"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let config = Config::from_env_map(&vars).unwrap();
        let server = Server::new(config, [7; 32], Instant::now(), Duration::from_secs(1));
        let shown = format!("{server:?} {server:#?} {:?}", *server.fixed);
        let key = server.fixed.nonce_key;
        let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
        for secret in [
            format!("{key:?}"),
            format!("{key:#?}"),
            hex,
            "redis-password-secret".to_string(),
        ] {
            assert!(!shown.contains(&secret), "{secret} shown in {shown}");
        }
        assert!(shown.contains("nonce_key: \"[redacted]\""), "{shown}");
    }

    /// A new record stores the head read last only while that read is recent and its block
    /// was fresh when read.
    #[test]
    fn a_new_record_takes_a_recent_fresh_head_only() {
        let config = Config::from_env_map(&BTreeMap::new()).unwrap();
        let server = Server::new(config, [7; 32], Instant::now(), Duration::from_secs(1));
        assert_eq!(server.first_seen_block(10_000), None, "no read yet");
        let head = |timestamp, read_at| KnownHead {
            number: 500,
            timestamp,
            read_at,
        };
        server.set_chain_head(head(9_990, 10_000));
        assert_eq!(server.first_seen_block(10_000), Some(500));
        assert_eq!(server.first_seen_block(10_300), Some(500));
        assert_eq!(server.first_seen_block(10_301), None, "read too long ago");
        server.set_chain_head(head(9_939, 10_000));
        assert_eq!(
            server.first_seen_block(10_000),
            None,
            "a stale head when read"
        );
    }
}
