//! The smol runtime of contact-extract: it carries out what the sans-IO core asks for and
//! nothing else — accept connections, read and write bytes, resolve names off the executor,
//! dial exactly the [`ApprovedAddr`](contact_core::net_policy::ApprovedAddr) the core gives
//! (TLS with rustls and the webpki roots, SNI = host), run one timer per connection, and log
//! the core's events. Every rule is the core's (`contact_core::driver::Driver` for a
//! connection's loop); the worker pool, logs, metrics, TLS configuration and settings are
//! `contact-runtime-common`'s, shared with the tokio runtime.
//!
//! Modules: this file (`serve`, metrics, facilitator checks, operator crawls), `service` (the
//! `serve` command: listeners, signals, threads), `executor` (the smol executor and its
//! threads), `connection` (one connection's loop), `event` (what helper tasks report to it),
//! `outbound` (connect, TLS, fetch readers), `tls` (the futures-rustls connector).

mod connection;
mod event;
mod executor;
mod outbound;
mod service;
mod tls;

pub use contact_runtime_common::log::{flush_logs, log_event, log_line, log_settlement};
pub use contact_runtime_common::service::new_server;
pub use contact_runtime_common::workers::{default_worker_threads, start_workers};
pub use executor::{run, spawn};
pub use service::run_service;
pub use tls::{tls_connector, tls_connector_with};

use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use contact_core::api::{ApiError, ContactExtractionResult};
use contact_core::exchange::Exchange;
use contact_core::server::Server;
use futures_rustls::TlsConnector;
use smol::channel::Receiver;
use smol::future::FutureExt as _;
use smol::{Async, Timer};

use crate::connection::drive;
use contact_runtime_common::service::{
    metrics_answer, metrics_gate, metrics_head_done, METRICS_REQUEST_TIMEOUT,
};

/// The core's shared state: each connection's exchange holds a clone (the core locks its small
/// mutable part itself, briefly; the runtime holds no lock around core calls).
pub type SharedServer = Server;

/// Serves connections from `listener` until `stop` receives a message (or is closed); then
/// drains (docs/operations.md, "Drain"): stops accepting, tells the core
/// ([`Server::begin_drain`]) and every open connection, and waits until every connection has
/// finished — paid jobs run to their end, settlement included — for at most `grace`. A second
/// message on `stop`, or the end of `grace`, cuts the remaining connections short (each paid
/// job writes its `cut_short` audit line) and returns.
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
    let log_format = server.config().log_format;
    // Connections in flight, for the drain; tasks are detached (no per-accept bookkeeping).
    let active = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (drain_sender, drain) = smol::channel::bounded::<()>(1);
    let (cut_sender, cut) = smol::channel::bounded::<()>(1);
    let shutdown = connection::Shutdown { drain, cut };
    // Readiness names the facilitator; the checks stop with this function (the task drops).
    let _checks = spawn(contact_runtime_common::service::check_facilitator(
        server.clone(),
        {
            let tls = tls.clone();
            move |check| drive(check, None, tls.clone(), log_format, None)
        },
        Timer::after,
    ));
    loop {
        let accepted = async { Some(listener.accept().await) }.or(async {
            let _ = stop.recv().await;
            None
        });
        match accepted.await {
            Some(Ok((stream, peer))) => {
                // The core's connection caps: a refused connection is closed at once, before
                // anything is read or allocated for it.
                let slot = match server.admit_connection(peer.ip()) {
                    Ok(slot) => slot,
                    Err(refused) => {
                        contact_runtime_common::metrics::observe_refused_connection(refused);
                        let _ = stream.get_ref().shutdown(std::net::Shutdown::Both);
                        continue;
                    }
                };
                let (server, tls, active) = (server.clone(), tls.clone(), active.clone());
                let shutdown = shutdown.clone();
                active.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                spawn(async move {
                    let exchange = Exchange::accept(&server, peer, Instant::now());
                    drive(exchange, Some(stream), tls, log_format, Some(shutdown)).await;
                    drop(slot);
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
    server.begin_drain();
    drop(drain_sender);
    // Drain: connections get up to `grace`, unless a second stop message comes first.
    contact_runtime_common::service::drain_connections(
        &active,
        grace,
        log_format,
        |pause| async move {
            Timer::after(pause).await;
        },
        || async { stop.recv().await.is_ok() },
        move || drop(cut_sender),
    )
    .await;
}

/// Serves `GET /metrics` (Prometheus text format, `contact_runtime_common::metrics`) on
/// `listener` — the operator's `METRICS_ADDR`, apart from the public listener — until `stop`
/// receives a message. One request per connection; anything else is 404; at most
/// `METRICS_MAX_CONNECTIONS` open (one more is closed at once); a connection whose head and
/// answer are not through within `METRICS_REQUEST_TIMEOUT` (5 s) is dropped. Turns metric
/// recording on.
pub async fn serve_metrics(listener: Async<TcpListener>, server: SharedServer, stop: Receiver<()>) {
    contact_runtime_common::metrics::enable("smol");
    let gate = metrics_gate();
    loop {
        let accepted = async { Some(listener.accept().await) }.or(async {
            let _ = stop.recv().await;
            None
        });
        match accepted.await {
            Some(Ok((stream, peer))) => {
                let Ok(slot) = gate.admit(peer.ip(), true) else {
                    drop(stream);
                    continue;
                };
                let server = server.clone();
                spawn(async move {
                    async {
                        let head = read_head(&stream).await;
                        let answer = metrics_answer(&server, &head);
                        use smol::io::AsyncWriteExt as _;
                        let _ = (&stream).write_all(&answer).await;
                    }
                    .or(async {
                        Timer::after(METRICS_REQUEST_TIMEOUT).await;
                    })
                    .await;
                    drop(slot);
                })
                .detach();
            }
            Some(Err(_)) => {
                Timer::after(Duration::from_millis(50)).await;
            }
            None => break,
        }
    }
}

async fn read_head(stream: &Async<std::net::TcpStream>) -> Vec<u8> {
    use smol::io::AsyncReadExt as _;
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !metrics_head_done(&head) {
        match (&*stream).read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    head
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
    let exchange = Exchange::unpaid_crawl(server, url, Instant::now())?;
    let log_format = server.config().log_format;
    drive(exchange, None, tls, log_format, None)
        .await
        .into_unpaid_outcome()
}

/// Runs `extract-batch`'s crawls ([`extract_url`] each) on this thread's executor
/// (`contact_runtime_common::batch::crawl_all` decides the order and reports the outcomes).
pub fn crawl_batch(
    server: &SharedServer,
    tls: &TlsConnector,
    inputs: &[String],
    concurrency: usize,
    scheduler: contact_runtime_common::batch::Scheduler,
    on_done: &mut dyn FnMut(usize, Result<ContactExtractionResult, ApiError>),
) {
    let start = |index: usize, url: String, done: contact_runtime_common::batch::Sender| {
        let (server, tls) = (server.clone(), tls.clone());
        spawn(async move {
            let outcome = extract_url(&server, &url, tls).await;
            let _ = done.send((index, outcome)).await;
        })
        .detach();
    };
    let crawls =
        contact_runtime_common::batch::crawl_all(inputs, concurrency, scheduler, on_done, start);
    run(1, crawls);
}
