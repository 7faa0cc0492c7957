//! The smol runtime of contact-extract: it carries out what the sans-IO core asks for and
//! nothing else — accept connections, read and write bytes, resolve names off the executor,
//! dial exactly the [`ApprovedAddr`] the core gives (TLS with rustls and the webpki roots,
//! SNI = host), run timers from `poll_timeout()`, and log the core's events. No policy lives
//! here (architecture.md §3.5).

mod log;

pub use log::{flush_logs, log_event, log_line};

use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use contact_core::api::{ApiError, ContactExtractionResult, ErrorCode};
use contact_core::config::{Config, LogFormat};
use contact_core::exchange::Exchange;
use contact_core::io::{FetchId, Input, IoFailure, Output};
use contact_core::net_policy::ApprovedAddr;
use contact_core::server::Server;
use futures_rustls::rustls::pki_types::ServerName;
use futures_rustls::rustls::{ClientConfig, RootCertStore};
use futures_rustls::TlsConnector;
use smol::channel::{self, Receiver, Sender};
use smol::future::FutureExt as _;
use smol::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt};
use smol::{Async, Task, Timer};

/// Bytes read from an outbound connection at a time.
const READ_CHUNK: usize = 16 * 1024;
/// Bytes read from a client at a time (requests are small; this is per idle connection).
const CLIENT_READ_CHUNK: usize = 4 * 1024;

/// The shared core state, locked for each call into the core.
pub type SharedServer = Arc<Mutex<Server>>;

/// The executor every task of the service runs on. Threads that run it also drive the I/O
/// reactor (`smol::block_on`), so a wake-up needs no hop to another thread.
static EXECUTOR: smol::Executor<'static> = smol::Executor::new();

/// Spawns `future` on the service's executor.
pub fn spawn<T: Send + 'static>(
    future: impl std::future::Future<Output = T> + Send + 'static,
) -> Task<T> {
    EXECUTOR.spawn(future)
}

/// Runs `future` to completion on the current thread while `threads - 1` helper threads also
/// run the service's executor (`SMOL_THREADS`, default 1).
pub fn run<T>(threads: usize, future: impl std::future::Future<Output = T>) -> T {
    let (stop, stopped) = channel::unbounded::<()>();
    let helpers: Vec<std::thread::JoinHandle<()>> = (1..threads.max(1))
        .map(|_| {
            let stopped = stopped.clone();
            std::thread::spawn(move || {
                smol::block_on(EXECUTOR.run(async {
                    stopped.recv().await.ok();
                }))
            })
        })
        .collect();
    let output = smol::block_on(EXECUTOR.run(future));
    drop(stop);
    for helper in helpers {
        let _ = helper.join();
    }
    output
}

/// Builds the shared server for `config`, with OS entropy for the seed and the current time.
pub fn new_server(config: Config) -> SharedServer {
    let mut seed = [0u8; 32];
    // The rustls provider already linked supplies OS randomness (architecture.md §3.9).
    let filled = futures_rustls::rustls::crypto::ring::default_provider()
        .secure_random
        .fill(&mut seed);
    if filled.is_err() {
        // Without entropy request ids are still unique (time + counter), only predictable.
        seed = nanos_seed();
    }
    let unix_now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    Arc::new(Mutex::new(Server::new(
        config,
        seed,
        Instant::now(),
        unix_now,
    )))
}

fn nanos_seed() -> [u8; 32] {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let mut seed = [0u8; 32];
    seed[..16].copy_from_slice(&nanos.to_le_bytes());
    seed
}

/// TLS settings for outbound fetches: the Mozilla roots of `webpki-roots`.
pub fn tls_connector() -> TlsConnector {
    tls_connector_with(&[])
}

/// As [`tls_connector`], also trusting `extra_roots` (DER certificates). Test-only: the
/// end-to-end tests trust a CA they made; production uses [`tls_connector`].
pub fn tls_connector_with(extra_roots: &[Vec<u8>]) -> TlsConnector {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    for der in extra_roots {
        let _ = roots.add(futures_rustls::rustls::pki_types::CertificateDer::from(
            der.clone(),
        ));
    }
    let config = ClientConfig::builder_with_provider(Arc::new(
        futures_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map(|builder| builder.with_root_certificates(roots).with_no_client_auth());
    match config {
        Ok(config) => TlsConnector::from(Arc::new(config)),
        // The ring provider supports the default versions; this cannot fail in practice.
        Err(_) => TlsConnector::from(Arc::new(
            ClientConfig::builder_with_provider(Arc::new(
                futures_rustls::rustls::crypto::ring::default_provider(),
            ))
            .with_protocol_versions(&[&futures_rustls::rustls::version::TLS13])
            .map(|b| {
                b.with_root_certificates(RootCertStore::empty())
                    .with_no_client_auth()
            })
            .unwrap_or_else(|_| unreachable!("TLS 1.3 is supported by ring")),
        )),
    }
}

/// Serves connections from `listener` until `stop` receives a message (or is closed); then
/// stops accepting and lets in-flight connections finish for at most `grace`.
pub async fn serve(
    listener: Async<TcpListener>,
    server: SharedServer,
    stop: Receiver<()>,
    grace: Duration,
) {
    serve_with_tls(listener, server, stop, grace, tls_connector()).await;
}

/// As [`serve`], with the given TLS settings for outbound fetches.
pub async fn serve_with_tls(
    listener: Async<TcpListener>,
    server: SharedServer,
    stop: Receiver<()>,
    grace: Duration,
    tls: TlsConnector,
) {
    let log_format = lock(&server).config().log_format;
    // Connections in flight, for the drain; tasks are detached (no per-accept bookkeeping).
    let active = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    loop {
        let accepted = async { Some(listener.accept().await) }.or(async {
            let _ = stop.recv().await;
            None
        });
        match accepted.await {
            Some(Ok((stream, peer))) => {
                let (server, tls, active) = (server.clone(), tls.clone(), active.clone());
                active.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                spawn(async move {
                    let exchange = lock(&server).accept(peer, Instant::now());
                    drive(exchange, Some(stream), &server, tls, log_format).await;
                    active.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                })
                .detach();
            }
            Some(Err(error)) => {
                log_line(log_format, &format!("accept failed: {error}"));
                Timer::after(Duration::from_millis(50)).await;
            }
            None => break,
        }
    }
    // Close the listening socket now: new connections are refused at once (a load balancer
    // moves on) instead of waiting in the backlog until the process exits.
    drop(listener);
    // Drain: in-flight connections get up to `grace`; the process then exits.
    let deadline = Instant::now() + grace;
    while active.load(std::sync::atomic::Ordering::SeqCst) > 0 && Instant::now() < deadline {
        Timer::after(Duration::from_millis(20)).await;
    }
}

/// What the helper tasks of one connection report to its driver.
enum Event {
    /// This many bytes were read into the driver's client buffer.
    ClientRead(usize),
    ClientClosed,
    Resolved(FetchId, Result<Vec<std::net::IpAddr>, IoFailure>),
    Connected(
        FetchId,
        Result<Box<dyn AsyncWrite + Send + Unpin>, IoFailure>,
        Option<Task<()>>,
    ),
    FetchData(FetchId, Vec<u8>),
    FetchClosed(FetchId),
}

/// An open outbound connection: its write half and the task reading it.
struct FetchConn {
    id: FetchId,
    writer: Box<dyn AsyncWrite + Send + Unpin>,
    _reader: Task<()>,
}

/// Runs an operator's crawl of `url` without payment (`contact-extract extract URL`): the
/// same checks, fetch rules, deadlines and extraction as a paid request, no facilitator.
///
/// # Errors
/// The `ApiError` a paid request would have been answered with.
pub async fn extract_url(
    server: &SharedServer,
    url: &str,
    tls: TlsConnector,
) -> Result<ContactExtractionResult, ApiError> {
    let exchange = Exchange::unpaid_crawl(&mut lock(server), url, Instant::now())?;
    let log_format = lock(server).config().log_format;
    let mut exchange = drive(exchange, None, server, tls, log_format).await;
    exchange.take_unpaid_outcome().unwrap_or_else(|| {
        // The core always records an outcome before finishing an unpaid crawl.
        Err(ApiError::new(
            ErrorCode::InternalError,
            "the crawl ended without a result",
            "",
        ))
    })
}

/// Drives one exchange until it is finished (architecture.md §3.5: drain, wait, feed) and
/// returns it. `client` is the inbound connection; `None` for an operator's crawl.
async fn drive(
    mut exchange: Exchange,
    client: Option<Async<TcpStream>>,
    server: &SharedServer,
    tls: TlsConnector,
    log_format: LogFormat,
) -> Exchange {
    let (events, inbox) = channel::unbounded::<Event>();
    // The client is read here, in the driver (no hop through another task); fetch
    // connections and DNS/connect results arrive through `inbox`.
    let mut client_open = client.is_some();
    let mut client_buf = vec![0u8; if client_open { CLIENT_READ_CHUNK } else { 0 }];
    let mut fetches: Vec<FetchConn> = Vec::new();
    let mut helpers: Vec<Task<()>> = Vec::new();
    // One timer per connection, re-armed only when the exchange's deadline moves earlier: a
    // keep-alive connection pushes its deadline later with every request, and re-arming per
    // request would cost a reactor round trip each time. A timer that fires before the
    // current deadline is re-armed instead of being reported.
    let mut timer = Timer::never();
    let mut armed: Option<Instant> = None;
    loop {
        while let Some(output) = exchange.poll_output() {
            match output {
                Output::SendToClient(bytes) => {
                    let written = match &client {
                        Some(client) => (&*client).write_all(&bytes).await.is_ok(),
                        None => false,
                    };
                    if !written {
                        let now = Instant::now();
                        exchange.handle_input(&mut lock(server), Input::ClientClosed, now);
                    }
                }
                Output::CloseClient => {
                    if let Some(client) = &client {
                        let _ = (&*client).flush().await;
                        let _ = client.get_ref().shutdown(std::net::Shutdown::Both);
                    }
                }
                Output::Resolve { fetch, host, port } => {
                    let events = events.clone();
                    helpers.push(spawn(async move {
                        let result = smol::unblock(move || resolve(&host, port)).await;
                        let _ = events.send(Event::Resolved(fetch, result)).await;
                    }));
                }
                Output::Connect {
                    fetch,
                    addr,
                    tls: sni,
                } => {
                    let events = events.clone();
                    let tls = tls.clone();
                    helpers.push(spawn(async move {
                        let event = connect(fetch, addr, sni, tls, events.clone()).await;
                        let _ = events.send(event).await;
                    }));
                }
                Output::SendToFetch { fetch, data } => {
                    if let Some(conn) = fetches.iter_mut().find(|c| c.id == fetch) {
                        if conn.writer.write_all(&data).await.is_err()
                            || conn.writer.flush().await.is_err()
                        {
                            let _ = events.send(Event::FetchClosed(fetch)).await;
                        }
                    }
                }
                Output::CloseFetch { fetch } => fetches.retain(|c| c.id != fetch),
                Output::Event(event) => log_event(log_format, &event),
            }
        }
        if exchange.is_finished() {
            break;
        }
        helpers.retain(|t| !t.is_finished());
        let deadline = exchange.poll_timeout();
        if let Some(at) = deadline.filter(|at| armed.is_none_or(|armed| *at < armed)) {
            timer.set_at(at);
            armed = Some(at);
        }
        // Only helper tasks and fetch readers send to the inbox: with none alive and nothing
        // queued, waiting on it would only cost a listener registration per request.
        let inbox_quiet = helpers.is_empty() && fetches.is_empty() && inbox.is_empty();
        let next = async {
            if inbox_quiet {
                return std::future::pending::<Option<Event>>().await;
            }
            inbox.recv().await.ok()
        }
        .or(async {
            let Some(client) = client.as_ref().filter(|_| client_open) else {
                return std::future::pending::<Option<Event>>().await;
            };
            match (&*client).read(&mut client_buf).await {
                Ok(0) | Err(_) => Some(Event::ClientClosed),
                Ok(n) => Some(Event::ClientRead(n)),
            }
        })
        .or(async {
            if armed.is_none() {
                return std::future::pending::<Option<Event>>().await;
            }
            (&mut timer).await;
            None
        });
        let event = next.await;
        if matches!(event, Some(Event::ClientClosed)) {
            client_open = false;
        }
        let now = Instant::now();
        if event.is_none() {
            // The armed timer fired (one-shot): re-armed above at the current deadline.
            armed = None;
            if deadline.is_none_or(|at| now < at) {
                continue;
            }
        }
        let mut core = lock(server);
        match event {
            None => exchange.handle_timeout(&mut core, now),
            Some(Event::ClientRead(n)) => {
                exchange.handle_input(&mut core, Input::ClientData(&client_buf[..n]), now)
            }
            Some(Event::ClientClosed) => exchange.handle_input(&mut core, Input::ClientClosed, now),
            Some(Event::Resolved(fetch, result)) => {
                exchange.handle_input(&mut core, Input::Resolved { fetch, result }, now)
            }
            Some(Event::Connected(fetch, result, reader)) => {
                let result = match (result, reader) {
                    (Ok(writer), Some(reader)) => {
                        fetches.push(FetchConn {
                            id: fetch,
                            writer,
                            _reader: reader,
                        });
                        Ok(())
                    }
                    (Ok(_), None) => Err(IoFailure::Other("no reader".to_string())),
                    (Err(failure), _) => Err(failure),
                };
                exchange.handle_input(&mut core, Input::Connected { fetch, result }, now);
            }
            Some(Event::FetchData(fetch, data)) => {
                if fetches.iter().any(|c| c.id == fetch) {
                    exchange.handle_input(&mut core, Input::FetchData { fetch, data: &data }, now);
                }
            }
            Some(Event::FetchClosed(fetch)) => {
                if fetches.iter().any(|c| c.id == fetch) {
                    exchange.handle_input(&mut core, Input::FetchClosed { fetch }, now);
                }
            }
        }
        drop(core);
    }
    exchange
}

/// Reads an outbound connection until EOF or error, reporting chunks to the driver.
fn spawn_reader<R>(stream: R, events: Sender<Event>, fetch: FetchId) -> Task<()>
where
    R: smol::io::AsyncRead + Unpin + Send + 'static,
{
    spawn(async move {
        let mut stream = stream;
        let mut buf = vec![0u8; READ_CHUNK];
        loop {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            let event = match n {
                0 => Event::FetchClosed(fetch),
                n => Event::FetchData(fetch, buf[..n].to_vec()),
            };
            let done = n == 0;
            if events.send(event).await.is_err() || done {
                return;
            }
        }
    })
}

/// The system resolver, called off the executor (`smol::unblock`).
fn resolve(host: &str, port: u16) -> Result<Vec<std::net::IpAddr>, IoFailure> {
    (host, port)
        .to_socket_addrs()
        .map(|addrs| addrs.map(|a| a.ip()).collect())
        .map_err(|e| IoFailure::Dns(e.to_string()))
}

/// Dials exactly `addr`; with `sni`, runs the TLS handshake. Returns the connected event with
/// the write half and the task reading the other half.
async fn connect(
    fetch: FetchId,
    addr: ApprovedAddr,
    sni: Option<String>,
    tls: TlsConnector,
    events: Sender<Event>,
) -> Event {
    let tcp = match Async::<TcpStream>::connect(addr.socket_addr()).await {
        Ok(tcp) => tcp,
        Err(_) => return Event::Connected(fetch, Err(IoFailure::Refused), None),
    };
    match sni {
        None => {
            let tcp = Arc::new(tcp);
            let reader = spawn_reader(ArcStream(tcp.clone()), events, fetch);
            Event::Connected(fetch, Ok(Box::new(ArcStream(tcp))), Some(reader))
        }
        Some(name) => {
            let Ok(server_name) = ServerName::try_from(name) else {
                return Event::Connected(
                    fetch,
                    Err(IoFailure::Tls("invalid server name".to_string())),
                    None,
                );
            };
            match tls.connect(server_name, tcp).await {
                Ok(stream) => {
                    let (read_half, write_half) = smol::io::split(stream);
                    let reader = spawn_reader(read_half, events, fetch);
                    Event::Connected(fetch, Ok(Box::new(write_half)), Some(reader))
                }
                Err(error) => Event::Connected(fetch, Err(IoFailure::Tls(error.to_string())), None),
            }
        }
    }
}

/// A shared `Async<TcpStream>` usable as an owned reader or writer.
struct ArcStream(Arc<Async<TcpStream>>);

impl smol::io::AsyncRead for ArcStream {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut [u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut &*self.0).poll_read(cx, buf)
    }
}

impl AsyncWrite for ArcStream {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut &*self.0).poll_write(cx, buf)
    }
    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut &*self.0).poll_flush(cx)
    }
    fn poll_close(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut &*self.0).poll_close(cx)
    }
}

fn lock(server: &SharedServer) -> std::sync::MutexGuard<'_, Server> {
    // A panic while holding the lock is a bug in the core; the state is still consistent
    // enough to keep answering other connections.
    server
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
