//! A deterministic simulation of the network around a [`Server`] (docs/architecture.md): a
//! virtual clock that jumps to the next `poll_timeout()`, a fake DNS table, scripted origin
//! sites and a scripted facilitator (replies can be split at any byte boundary, delayed in
//! virtual time, or withheld to simulate a stall), and a bounded number of steps so a
//! livelock fails instead of hanging.

use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use k256::ecdsa::SigningKey;

use crate::api::{ApiError, ContactExtractionResult};
use crate::config::Config;
use crate::driver::{Driver, Happened, WriteEnd};
use crate::eth::{parse_address, parse_uint256};
use crate::exchange::Exchange;
use crate::io::{FetchId, Input, IoFailure, Now, Output, RequestEvent, SettlementEvent};
use crate::payment::codec;
use crate::payment::verify::{domain_separator, typed_data_digest, TransferWithAuthorization};
use crate::payment::{
    Authorization, ExactEvmPayload, PaymentPayload, PaymentRequirements, X402_VERSION,
};
use crate::server::Server;
use crate::store::{LocalStore, StoreFailure, StoreId, StoreOp, StoreReply};
use crate::work::{Work, WorkDone, WorkId};

/// A payment store and rate limiter shared by several simulated instances (each [`Sim`] is
/// one instance; give them clones of one `SharedStore`), with scripted misbehaviour: answers
/// that come late, never, or as failures, and writes lost with their instance.
pub type SharedStore = std::sync::Arc<std::sync::Mutex<ScriptedStore>>;

/// The store behind a [`SharedStore`].
#[derive(Debug)]
pub struct ScriptedStore {
    /// The state, with the in-process rules (the shared store keeps the same ones).
    pub state: LocalStore,
    /// Virtual time each answer takes (the operation itself is applied at once).
    pub delay: Duration,
    /// When set, `delay` holds only for the operation of this name (`StoreOp::name`).
    pub slow_op: Option<&'static str>,
    /// Every operation fails: the store is unreachable.
    pub down: bool,
    /// Operations are applied but never answered.
    pub silent: bool,
    /// Outcomes (`Release`, `Finish`) are lost before reaching the store, unanswered: the
    /// instance died after acting and before recording.
    pub lose_writes: bool,
    /// The names of the operations that reached the store, in order.
    pub ops: Vec<&'static str>,
}

impl ScriptedStore {
    /// A well-behaved shared store with the configuration's rate limits.
    pub fn shared(config: &Config) -> SharedStore {
        let limiter =
            crate::limiter::RateLimiter::new(config.rate_limit_per_minute, config.rate_limit_burst);
        std::sync::Arc::new(std::sync::Mutex::new(ScriptedStore {
            state: LocalStore::new(limiter),
            delay: Duration::ZERO,
            slow_op: None,
            down: false,
            silent: false,
            lose_writes: false,
            ops: Vec::new(),
        }))
    }
}

/// Most steps of one [`Sim::run`].
pub const MAX_STEPS: usize = 100_000;
/// Unix time of the simulation's start: 100 s before the Base mainnet test vector's
/// `validBefore` (1 900 000 000, docs/payments.md "x402 v2 in practice"), so the vector is inside the accepted validity
/// window with `maxTimeoutSeconds` 60.
pub const SIM_UNIX_START: u64 = 1_899_999_900;

/// What a scripted endpoint does with one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Send these bytes, then close.
    Bytes(Vec<u8>),
    /// Send these bytes after this much virtual time, then close.
    Delayed(Duration, Vec<u8>),
    /// Never answer.
    Stall,
    /// Send these bytes, then nothing more, never closing (a stall mid-response).
    Partial(Vec<u8>),
}

/// What a scripted endpoint runs for each complete request.
type Handler = Box<dyn FnMut(&[u8]) -> Reply>;

/// A scripted endpoint: called with each complete request; keeps what it saw.
pub struct Endpoint {
    handler: Handler,
    /// Every complete request received, in order.
    pub requests: Vec<Vec<u8>>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("requests", &self.requests.len())
            .finish()
    }
}

#[derive(Debug)]
enum Owned {
    Resolved(FetchId, Result<Vec<IpAddr>, IoFailure>),
    Connected(FetchId, Result<(), IoFailure>),
    TcpConnected(FetchId),
    Data(FetchId, Vec<u8>),
    Closed(FetchId),
    /// Bytes from the client, sent later in a scripted run.
    Client(Vec<u8>),
    /// A client write completed.
    ClientWritten,
    /// A worker's answer.
    WorkDone(WorkId, WorkDone, Duration),
    /// The shared store's answer.
    Stored(StoreId, Result<StoreReply, StoreFailure>),
}

impl Owned {
    /// An answer to a `Resolve` or `Connect`: a runtime may deliver it after the fetch was
    /// closed (the helper task had already finished), so the simulation does too.
    fn is_answer(&self) -> bool {
        matches!(
            self,
            Owned::Resolved(..) | Owned::Connected(..) | Owned::TcpConnected(..)
        )
    }
}

#[derive(Debug, Default)]
struct Connection {
    addr: Option<SocketAddr>,
    sent: Vec<u8>,
    answered: bool,
}

/// The simulated world.
#[derive(Debug)]
pub struct Sim {
    /// The server under test.
    pub server: Server,
    /// Virtual time.
    pub now: Instant,
    /// Name → addresses.
    pub dns: BTreeMap<String, Vec<IpAddr>>,
    /// Address → scripted endpoint.
    pub endpoints: BTreeMap<SocketAddr, Endpoint>,
    /// Replies are fed in pieces of this many bytes (≥ 1).
    pub split: usize,
    /// Access-log events seen.
    pub events: Vec<RequestEvent>,
    /// Settlement audit events seen.
    pub settlements: Vec<SettlementEvent>,
    /// For each entry of `settlements`, how many entries `events` had when it came: orders
    /// the audit trail against the access log.
    pub settlements_after: Vec<usize>,
    /// Every `Connect` the core asked for.
    pub connects: Vec<SocketAddr>,
    /// When set, every client disconnects once this many `Connect`s have happened.
    pub disconnect_after_connects: Option<usize>,
    /// `CloseFetch` outputs seen.
    pub closed_fetches: usize,
    /// Addresses whose TLS handshake fails (bad certificate).
    pub tls_failures: Vec<SocketAddr>,
    /// Connects refused although the endpoint exists: (address, n) refuses the n-th connect to
    /// that address (1 for the first), a peer that is down for a moment.
    pub refused_connects: Vec<(SocketAddr, usize)>,
    /// Every name the core asked to resolve, in order.
    pub resolved: Vec<String>,
    /// DNS failures although the name is known: (name, n) fails the n-th resolution of it.
    pub failed_resolutions: Vec<(String, usize)>,
    /// When set, no client write ever completes (a client that stopped reading): the core's
    /// write deadline must give it up.
    pub client_stops_reading: bool,
    /// Addresses whose TCP connect never completes.
    pub stalled_connects: Vec<SocketAddr>,
    /// Addresses whose TCP connect completes but whose TLS handshake never does.
    pub stalled_handshakes: Vec<SocketAddr>,
    /// Virtual time a TLS handshake takes after the TCP connect.
    pub tls_delay: Duration,
    /// Virtual time a DNS answer takes.
    pub dns_delay: Duration,
    /// Virtual time a connect (with its TLS handshake) takes.
    pub connect_delay: Duration,
    /// Virtual time a worker takes for one piece of work (page extraction, result build).
    pub work_delay: Duration,
    /// Virtual time the extraction of the page at this URL takes, instead of `work_delay`.
    pub page_work_delays: BTreeMap<String, Duration>,
    /// Virtual time a request written to a fetch connection takes to reach its endpoint (a
    /// slow write), added before the endpoint's own reply delay.
    pub write_delay: Duration,
    /// When set, the service starts draining at this virtual time since the start
    /// ([`Server::begin_drain`], then `Exchange::handle_drain` on every exchange).
    pub drain_at: Option<Duration>,
    /// When set, every exchange is cut short at this virtual time since the start
    /// (`Exchange::cut_short`: the process exits).
    pub cut_at: Option<Duration>,
    /// Pieces of work run.
    pub work_done: usize,
    /// `CancelWork` outputs seen.
    pub cancelled_work: usize,
    /// The shared store this instance uses ([`Sim::share_store`]).
    pub store: Option<SharedStore>,
    /// Seconds the wall clock stands ahead of (positive) or behind (negative) virtual time:
    /// [`Sim::step_wall_clock`].
    pub wall_step: i64,
    /// When set, the wall clock steps by `.1` seconds at virtual time `.0` since the start,
    /// in the middle of whatever runs then (an NTP correction during a job).
    pub wall_step_at: Option<(Duration, i64)>,
    start: Instant,
}

impl Sim {
    /// A simulation of a server with `config`, a fixed seed and [`SIM_UNIX_START`].
    pub fn new(config: Config) -> Sim {
        Sim::instance(config, 7)
    }

    /// As [`Sim::new`], for one of several instances: `seed` fills the server's seed (so
    /// instances with different seeds have different request ids and lease ids).
    #[allow(clippy::disallowed_methods)] // the harness needs one arbitrary base instant
    pub fn instance(config: Config, seed: u8) -> Sim {
        let now = Instant::now();
        Sim {
            server: Server::new(config, [seed; 32], now, Duration::from_secs(SIM_UNIX_START)),
            now,
            dns: BTreeMap::new(),
            endpoints: BTreeMap::new(),
            split: 1 << 20,
            events: Vec::new(),
            settlements: Vec::new(),
            settlements_after: Vec::new(),
            connects: Vec::new(),
            disconnect_after_connects: None,
            closed_fetches: 0,
            tls_failures: Vec::new(),
            refused_connects: Vec::new(),
            resolved: Vec::new(),
            failed_resolutions: Vec::new(),
            stalled_connects: Vec::new(),
            client_stops_reading: false,
            stalled_handshakes: Vec::new(),
            tls_delay: Duration::ZERO,
            dns_delay: Duration::ZERO,
            connect_delay: Duration::ZERO,
            work_delay: Duration::ZERO,
            page_work_delays: BTreeMap::new(),
            write_delay: Duration::ZERO,
            drain_at: None,
            cut_at: None,
            work_done: 0,
            cancelled_work: 0,
            store: None,
            wall_step: 0,
            wall_step_at: None,
            start: now,
        }
    }

    /// Makes this instance use `store` for its rate limits and payments, as several
    /// instances behind one load balancer share Redis.
    pub fn share_store(&mut self, store: &SharedStore) {
        self.server.share_store();
        self.store = Some(store.clone());
    }

    /// Adds a scripted endpoint at `addr`.
    pub fn endpoint(&mut self, addr: SocketAddr, handler: impl FnMut(&[u8]) -> Reply + 'static) {
        self.endpoints.insert(
            addr,
            Endpoint {
                handler: Box::new(handler),
                requests: Vec::new(),
            },
        );
    }

    /// Moves virtual time on by `by` with nothing happening (between requests).
    pub fn advance(&mut self, by: Duration) {
        self.now += by;
    }

    /// Steps the wall clock by `seconds` (an NTP correction, a VM resumed), leaving the
    /// monotonic clock alone: the server sees it at the next event.
    pub fn step_wall_clock(&mut self, seconds: i64) {
        self.wall_step += seconds;
    }

    /// Unix seconds now on the simulated wall clock.
    pub fn unix_now(&self) -> u64 {
        (SIM_UNIX_START + self.elapsed().as_secs()).saturating_add_signed(self.wall_step)
    }

    /// Both clocks now, as a runtime reads them at an event.
    fn clock(&self) -> Now {
        let unix = Duration::from_secs(SIM_UNIX_START) + self.elapsed();
        let unix = if self.wall_step >= 0 {
            unix + Duration::from_secs(self.wall_step.unsigned_abs())
        } else {
            unix.saturating_sub(Duration::from_secs(self.wall_step.unsigned_abs()))
        };
        Now { at: self.now, unix }
    }

    /// Virtual time elapsed since the start.
    pub fn elapsed(&self) -> Duration {
        self.now - self.start
    }

    /// Sends `raw` on one new connection and drives everything until the exchange finishes;
    /// returns the bytes the client received.
    pub fn request(&mut self, raw: &[u8]) -> Vec<u8> {
        self.run(&[raw.to_vec()]).remove(0)
    }

    /// Opens one connection per request, sends each request at once, and drives all of them
    /// concurrently until every exchange has finished (or time or steps run out).
    ///
    /// # Panics
    /// When [`MAX_STEPS`] is exceeded (a livelock).
    pub fn run(&mut self, requests: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let peer: SocketAddr = "198.51.100.10:40000"
            .parse()
            .unwrap_or_else(|_| unreachable!());
        let mut drivers: Vec<Driver> = requests
            .iter()
            .map(|_| Driver::new(Exchange::accept(&self.server, peer, self.now), true))
            .collect();
        for (i, request) in requests.iter().enumerate() {
            drivers[i].handle(Happened::Input(Input::ClientData(request)), self.clock());
        }
        self.drive(&mut drivers)
    }

    /// One connection per request, each request sent at its virtual time (from now), all
    /// driven concurrently until every exchange has finished; returns what each client
    /// received.
    ///
    /// # Panics
    /// When [`MAX_STEPS`] is exceeded (a livelock).
    pub fn run_at(&mut self, requests: &[(Duration, Vec<u8>)]) -> Vec<Vec<u8>> {
        let peer: SocketAddr = "198.51.100.10:40000"
            .parse()
            .unwrap_or_else(|_| unreachable!());
        // Each connection is accepted when its client speaks (its head deadline runs from
        // then).
        let mut drivers: Vec<Driver> = requests
            .iter()
            .map(|(at, _)| Driver::new(Exchange::accept(&self.server, peer, self.now + *at), true))
            .collect();
        let timed = requests
            .iter()
            .enumerate()
            .map(|(i, (at, bytes))| (self.now + *at, i, Owned::Client(bytes.clone())))
            .collect();
        self.drive_with(&mut drivers, timed)
    }

    /// One connection whose client sends each piece of `script` at its virtual time (from
    /// now), driven until the exchange finishes; returns the bytes the client received.
    pub fn request_over_time(&mut self, script: &[(Duration, Vec<u8>)]) -> Vec<u8> {
        let peer: SocketAddr = "198.51.100.11:40000"
            .parse()
            .unwrap_or_else(|_| unreachable!());
        let exchange = Exchange::accept(&self.server, peer, self.now);
        let mut drivers = vec![Driver::new(exchange, true)];
        let timed = script
            .iter()
            .map(|(at, bytes)| (self.now + *at, 0, Owned::Client(bytes.clone())))
            .collect();
        self.drive_with(&mut drivers, timed).remove(0)
    }

    /// Runs an operator's unpaid crawl of `url` ([`Exchange::unpaid_crawl`]) to its outcome.
    ///
    /// # Errors
    /// The crawl's `ApiError`.
    ///
    /// # Panics
    /// When the crawl ends without an outcome (a bug) or exceeds [`MAX_STEPS`].
    pub fn unpaid_crawl(&mut self, url: &str) -> Result<ContactExtractionResult, ApiError> {
        let exchange = Exchange::unpaid_crawl(&self.server, url, self.now)?;
        let mut drivers = vec![Driver::new(exchange, false)];
        let received = self.drive(&mut drivers);
        assert!(received[0].is_empty(), "an unpaid crawl has no client");
        drivers
            .remove(0)
            .into_exchange()
            .take_unpaid_outcome()
            .expect("a finished unpaid crawl has an outcome")
    }

    /// Runs the check of the first facilitator ([`Exchange::facilitator_check`]) against the
    /// scripted endpoints, as a runtime does at start-up and every minute; returns what it
    /// recorded.
    ///
    /// # Panics
    /// When payments are not configured, or the check exceeds [`MAX_STEPS`].
    pub fn check_facilitator(&mut self) -> crate::server::FacilitatorHealth {
        self.check_facilitator_at(0)
    }

    /// Runs the periodic read of the payment network's head ([`Exchange::chain_head_check`])
    /// against the scripted endpoints, as a runtime does with its facilitator checks; returns
    /// the head the server knows afterwards (`None` without a chain judge, or when no read
    /// ever succeeded).
    ///
    /// # Panics
    /// When the read exceeds [`MAX_STEPS`].
    pub fn read_chain_head(&mut self) -> Option<crate::server::KnownHead> {
        let exchange = Exchange::chain_head_check(&self.server, self.now)?;
        let received = self.drive(&mut [Driver::new(exchange, false)]);
        assert!(received[0].is_empty(), "a head read has no client");
        self.server.chain_head()
    }

    /// [`Sim::check_facilitator`] for facilitator `index` (its place in `FACILITATOR_URL`).
    ///
    /// # Panics
    /// When payments are not configured, there is no facilitator `index`, or the check exceeds
    /// [`MAX_STEPS`].
    pub fn check_facilitator_at(&mut self, index: usize) -> crate::server::FacilitatorHealth {
        let exchange = Exchange::facilitator_check(&self.server, index, self.now)
            .expect("payments are configured");
        let received = self.drive(&mut [Driver::new(exchange, false)]);
        assert!(received[0].is_empty(), "a facilitator check has no client");
        self.server.facilitator_health(index)
    }

    /// Drives `exchanges` concurrently until all have finished; returns each one's client bytes.
    /// Each runs inside its [`Driver`], as in a runtime: the driver's timer rule, answer
    /// filtering and write bookkeeping are the ones under test too.
    fn drive(&mut self, exchanges: &mut [Driver]) -> Vec<Vec<u8>> {
        self.drive_with(exchanges, Vec::new())
    }

    /// As [`Sim::drive`], with inputs already scheduled at virtual times.
    fn drive_with(
        &mut self,
        exchanges: &mut [Driver],
        // Delayed inputs: (due, exchange, input), in the order they were scheduled.
        mut timed: Vec<(Instant, usize, Owned)>,
    ) -> Vec<Vec<u8>> {
        let mut received: Vec<Vec<u8>> = vec![Vec::new(); exchanges.len()];
        let mut timers: Vec<Option<Instant>> = vec![None; exchanges.len()];
        let mut connections: BTreeMap<(usize, FetchId), Connection> = BTreeMap::new();
        let mut pending: VecDeque<(usize, Owned)> = VecDeque::new();
        let mut disconnected = false;
        for _ in 0..MAX_STEPS {
            if let Some((at, seconds)) = self.wall_step_at {
                if self.start + at <= self.now {
                    self.wall_step_at = None;
                    self.step_wall_clock(seconds);
                }
            }
            let drain_due = self.drain_at.map(|at| self.start + at);
            if drain_due.is_some_and(|at| at <= self.now) && !self.server.is_draining() {
                self.server.begin_drain();
                for exchange in exchanges.iter_mut() {
                    exchange.handle(Happened::Drain, self.clock());
                }
            }
            let cut_due = self.cut_at.map(|at| self.start + at);
            if cut_due.is_some_and(|at| at <= self.now) {
                self.cut_at = None;
                for exchange in exchanges.iter_mut() {
                    exchange.handle(Happened::Cut, self.clock());
                }
            }
            for (i, exchange) in exchanges.iter_mut().enumerate() {
                while let Some(output) = exchange.poll_output() {
                    self.carry_out(
                        i,
                        output,
                        &mut received,
                        &mut connections,
                        &mut pending,
                        &mut timed,
                    );
                }
            }
            if !disconnected
                && self
                    .disconnect_after_connects
                    .is_some_and(|n| self.connects.len() >= n)
            {
                disconnected = true;
                for exchange in exchanges.iter_mut() {
                    exchange.handle(Happened::Input(Input::ClientClosed), self.clock());
                }
                continue;
            }
            if let Some((i, input)) = pending.pop_front() {
                let exchange = &mut exchanges[i];
                match input {
                    Owned::Resolved(fetch, result) => {
                        exchange.handle(
                            Happened::Input(Input::Resolved { fetch, result }),
                            self.clock(),
                        );
                    }
                    Owned::Connected(fetch, result) => {
                        exchange.handle(
                            Happened::Input(Input::Connected { fetch, result }),
                            self.clock(),
                        );
                    }
                    Owned::TcpConnected(fetch) => {
                        exchange
                            .handle(Happened::Input(Input::TcpConnected { fetch }), self.clock());
                    }
                    Owned::Data(fetch, data) => {
                        exchange.handle(
                            Happened::Input(Input::FetchData { fetch, data: &data }),
                            self.clock(),
                        );
                    }
                    Owned::Closed(fetch) => {
                        exchange
                            .handle(Happened::Input(Input::FetchClosed { fetch }), self.clock());
                    }
                    Owned::Client(bytes) => {
                        exchange.handle(Happened::Input(Input::ClientData(&bytes)), self.clock());
                    }
                    Owned::ClientWritten => exchange.client_write_done(WriteEnd::Done, self.now),
                    Owned::WorkDone(id, done, took) => {
                        exchange.handle(
                            Happened::Input(Input::WorkDone { id, done, took }),
                            self.clock(),
                        );
                    }
                    Owned::Stored(id, result) => {
                        exchange
                            .handle(Happened::Input(Input::Stored { id, result }), self.clock());
                    }
                }
                continue;
            }
            if let Some(due) = timed.iter().position(|(at, ..)| *at <= self.now) {
                let (_, i, input) = timed.remove(due);
                pending.push_back((i, input));
                continue;
            }
            if exchanges.iter().all(Driver::is_finished) {
                return received;
            }
            // Each driver's one timer, moved as its rule says.
            for (exchange, armed) in exchanges.iter_mut().zip(timers.iter_mut()) {
                if let Some(at) = exchange.arm_timer() {
                    *armed = Some(at);
                }
            }
            // Idle: jump the clock to the earliest timer or delayed input.
            let Some(next) = exchanges
                .iter()
                .zip(&timers)
                .filter(|(e, _)| !e.is_finished() && e.timer_armed())
                .filter_map(|(_, armed)| *armed)
                .chain(timed.iter().map(|(at, ..)| *at))
                .chain(drain_due.filter(|_| !self.server.is_draining()))
                .chain(cut_due)
                .chain(self.wall_step_at.map(|(at, _)| self.start + at))
                .min()
            else {
                return received;
            };
            self.now = self.now.max(next);
            for (exchange, armed) in exchanges.iter_mut().zip(timers.iter_mut()) {
                if armed.is_some_and(|t| t <= self.now) && exchange.timer_armed() {
                    *armed = None;
                    exchange.handle(Happened::TimerFired, self.clock());
                }
            }
        }
        panic!("simulation exceeded {MAX_STEPS} steps");
    }

    fn carry_out(
        &mut self,
        i: usize,
        output: Output,
        received: &mut [Vec<u8>],
        connections: &mut BTreeMap<(usize, FetchId), Connection>,
        pending: &mut VecDeque<(usize, Owned)>,
        timed: &mut Vec<(Instant, usize, Owned)>,
    ) {
        match output {
            Output::SendToClient(bytes) => {
                received[i].extend_from_slice(&bytes);
                if !self.client_stops_reading {
                    pending.push_back((i, Owned::ClientWritten));
                }
            }
            Output::CloseClient => {}
            Output::Event(event) => self.events.push(event),
            Output::Settlement(event) => {
                self.settlements_after.push(self.events.len());
                self.settlements.push(event);
            }
            Output::Work { id, work } => {
                // The worker pool: the work runs now; its answer comes after `work_delay`.
                self.work_done += 1;
                let took = match &work {
                    Work::Page(page) => self.page_work_delays.get(page.url.as_str()).copied(),
                    _ => None,
                }
                .unwrap_or(self.work_delay);
                let answer = Owned::WorkDone(id, work.run(), took);
                if took.is_zero() {
                    pending.push_back((i, answer));
                } else {
                    timed.push((self.now + took, i, answer));
                }
            }
            // Work already running cannot be stopped: its answer still comes, and the core
            // must ignore it.
            Output::CancelWork { .. } => self.cancelled_work += 1,
            Output::Resolve { fetch, host, .. } => {
                self.resolved.push(host.clone());
                let nth = self.resolved.iter().filter(|h| **h == host).count();
                let result = self
                    .dns
                    .get(&host)
                    .filter(|_| !self.failed_resolutions.contains(&(host.clone(), nth)))
                    .cloned()
                    .ok_or_else(|| IoFailure::Dns(format!("{host}: no such name")));
                let answer = Owned::Resolved(fetch, result);
                if self.dns_delay.is_zero() {
                    pending.push_back((i, answer));
                } else {
                    timed.push((self.now + self.dns_delay, i, answer));
                }
            }
            Output::Connect { fetch, addr, tls } => {
                let addr = addr.socket_addr();
                self.connects.push(addr);
                let nth = self.connects.iter().filter(|a| **a == addr).count();
                let result = if !self.endpoints.contains_key(&addr)
                    || self.refused_connects.contains(&(addr, nth))
                {
                    Err(IoFailure::Refused)
                } else if tls.is_some() && self.tls_failures.contains(&addr) {
                    Err(IoFailure::Tls("certificate not trusted".to_string()))
                } else {
                    Ok(())
                };
                connections.insert(
                    (i, fetch),
                    Connection {
                        addr: Some(addr),
                        ..Connection::default()
                    },
                );
                if self.stalled_connects.contains(&addr) {
                    return;
                }
                let tcp_up = self.now + self.connect_delay;
                let mut answers = Vec::new();
                let mut done_at = Some(tcp_up);
                if tls.is_some() {
                    // TCP first, then the handshake (the runtime reports both).
                    answers.push((tcp_up, Owned::TcpConnected(fetch)));
                    done_at =
                        (!self.stalled_handshakes.contains(&addr)).then(|| tcp_up + self.tls_delay);
                }
                if let Some(at) = done_at {
                    answers.push((at, Owned::Connected(fetch, result)));
                }
                for (at, answer) in answers {
                    if at == self.now {
                        pending.push_back((i, answer));
                    } else {
                        timed.push((at, i, answer));
                    }
                }
            }
            Output::SendToFetch { fetch, data } => {
                let Some(connection) = connections.get_mut(&(i, fetch)) else {
                    return;
                };
                connection.sent.extend_from_slice(&data);
                if connection.answered || !request_complete(&connection.sent) {
                    return;
                }
                connection.answered = true;
                let Some(endpoint) = connection.addr.and_then(|a| self.endpoints.get_mut(&a))
                else {
                    return;
                };
                endpoint.requests.push(connection.sent.clone());
                let (delay, bytes) = match (endpoint.handler)(&connection.sent) {
                    Reply::Bytes(bytes) => (Duration::ZERO, bytes),
                    Reply::Delayed(delay, bytes) => (delay, bytes),
                    Reply::Stall => return,
                    Reply::Partial(bytes) => {
                        for piece in bytes.chunks(self.split.max(1)) {
                            pending.push_back((i, Owned::Data(fetch, piece.to_vec())));
                        }
                        return;
                    }
                };
                let delay = delay + self.write_delay;
                let due = (!delay.is_zero()).then(|| self.now + delay);
                let pieces = bytes
                    .chunks(self.split.max(1))
                    .map(|piece| Owned::Data(fetch, piece.to_vec()))
                    .chain([Owned::Closed(fetch)]);
                for input in pieces {
                    match due {
                        None => pending.push_back((i, input)),
                        Some(at) => timed.push((at, i, input)),
                    }
                }
            }
            Output::Store { id, op } => {
                let Some(store) = &self.store else {
                    panic!("a store operation from an instance whose store is not shared");
                };
                let mut store = store
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if store.lose_writes
                    && matches!(op, StoreOp::Release { .. } | StoreOp::Finish { .. })
                {
                    return;
                }
                let name = op.name();
                let result = if store.down {
                    Err(StoreFailure::Unavailable("connection refused".into()))
                } else {
                    store.ops.push(op.name());
                    Ok(store.state.apply(op))
                };
                if store.silent {
                    return;
                }
                let delay = match store.slow_op {
                    Some(slow) if slow != name => Duration::ZERO,
                    _ => store.delay,
                };
                let answer = Owned::Stored(id, result);
                if delay.is_zero() {
                    pending.push_back((i, answer));
                } else {
                    timed.push((self.now + delay, i, answer));
                }
            }
            Output::CloseFetch { fetch } => {
                self.closed_fetches += 1;
                connections.remove(&(i, fetch));
                // Bytes of a closed fetch are never fed; answers to its Resolve/Connect may
                // still come (late), and the core must ignore them.
                let stale = |j: usize, input: &Owned| {
                    j == i && owned_fetch(input) == Some(fetch) && !input.is_answer()
                };
                pending.retain(|(j, input)| !stale(*j, input));
                timed.retain(|(_, j, input)| !stale(*j, input));
            }
        }
    }
}

fn owned_fetch(input: &Owned) -> Option<FetchId> {
    match input {
        Owned::Resolved(id, _)
        | Owned::Connected(id, _)
        | Owned::TcpConnected(id)
        | Owned::Data(id, _)
        | Owned::Closed(id) => Some(*id),
        Owned::Client(_) | Owned::ClientWritten | Owned::WorkDone(..) | Owned::Stored(..) => None,
    }
}

/// Whether `bytes` hold a complete request (head plus `Content-Length` body).
fn request_complete(bytes: &[u8]) -> bool {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(bytes) {
        Ok(httparse::Status::Complete(used)) => {
            let length = request
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                .and_then(|h| {
                    std::str::from_utf8(h.value)
                        .ok()?
                        .trim()
                        .parse::<usize>()
                        .ok()
                })
                .unwrap_or(0);
            bytes.len() >= used + length
        }
        _ => false,
    }
}

/// An HTTP response with a body.
pub fn http_response(status: u16, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status} X\r\nContent-Length: {}\r\n", body.len()).into_bytes();
    for (name, value) in headers {
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

/// The request path of raw request bytes.
pub fn request_path(raw: &[u8]) -> String {
    let line = raw.split(|b| *b == b'\r').next().unwrap_or(&[]);
    String::from_utf8_lossy(line)
        .split(' ')
        .nth(1)
        .unwrap_or("")
        .to_string()
}

/// The hardhat/anvil test key #0 (docs/payments.md "x402 v2 in practice"): address `0xf39F…2266`.
pub const TEST_PAYER_KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

/// A `PAYMENT-SIGNATURE` value for `requirements`, signed with [`TEST_PAYER_KEY`], with
/// `nonce` as its last byte and the given validity window (unix seconds).
///
/// # Panics
/// On malformed `requirements` (test input).
pub fn payment_header(
    requirements: &PaymentRequirements,
    nonce: u8,
    valid_after: u64,
    valid_before: u64,
) -> String {
    payment_header_wide(requirements, u64::from(nonce), valid_after, valid_before)
}

/// As [`payment_header`], with a nonce of up to 64 bits (the last 8 bytes of the EIP-3009
/// nonce), for tests that need more than 256 distinct payments.
pub fn payment_header_wide(
    requirements: &PaymentRequirements,
    nonce: u64,
    valid_after: u64,
    valid_before: u64,
) -> String {
    let key_bytes: Vec<u8> = (0..32)
        .map(|i| u8::from_str_radix(&TEST_PAYER_KEY[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect();
    let key = SigningKey::from_slice(&key_bytes).unwrap_or_else(|e| panic!("test key: {e}"));
    let from = crate::eth::address_of(key.verifying_key());
    let mut nonce_bytes = [0u8; 32];
    nonce_bytes[24..].copy_from_slice(&nonce.to_be_bytes());
    let message = TransferWithAuthorization {
        from,
        to: parse_address(&requirements.pay_to).unwrap_or_else(|| panic!("payTo")),
        value: parse_uint256(&requirements.amount).unwrap_or_else(|| panic!("amount")),
        valid_after: parse_uint256(&valid_after.to_string()).unwrap_or([0; 32]),
        valid_before: parse_uint256(&valid_before.to_string()).unwrap_or([0; 32]),
        nonce: nonce_bytes,
    };
    let chain = crate::eth::chain_id(&requirements.network).unwrap_or(0);
    let asset = parse_address(&requirements.asset).unwrap_or_else(|| panic!("asset"));
    let domain = domain_separator(
        &requirements.extra.name,
        &requirements.extra.version,
        chain,
        &asset,
    );
    let digest = typed_data_digest(&domain, &message.struct_hash());
    let (signature, recovery) = key
        .sign_prehash_recoverable(&digest)
        .unwrap_or_else(|e| panic!("sign: {e}"));
    let mut bytes = signature.to_bytes().to_vec();
    bytes.push(27 + recovery.to_byte());
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let payload = PaymentPayload {
        x402_version: X402_VERSION,
        resource: None,
        accepted: serde_json::to_value(requirements).unwrap_or_default(),
        payload: serde_json::to_value(ExactEvmPayload {
            signature: format!("0x{}", hex(&bytes)),
            authorization: Authorization {
                from: format!("0x{}", hex(&from)),
                to: requirements.pay_to.clone(),
                value: requirements.amount.clone(),
                valid_after: valid_after.to_string(),
                valid_before: valid_before.to_string(),
                nonce: format!("0x{}", hex(&nonce_bytes)),
            },
        })
        .unwrap_or_default(),
        extensions: None,
    };
    codec::encode(&payload)
}

/// A page extractor with a bug: it panics on every page (for `Server::set_extractor`, to
/// exercise docs/contract.md "Request order" step 8).
///
/// # Panics
/// Always.
pub fn panicking_extractor(
    _: &url::Url,
    _: Option<&str>,
    _: &[u8],
) -> crate::extract::PageExtraction {
    panic!("extractor bug (deliberate, in a test)")
}
