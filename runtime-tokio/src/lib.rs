//! The tokio runtime of contact-extract: it carries out what the sans-IO core asks for with
//! tokio sockets, timers, tasks and signals, and nothing else. Every rule (HTTP, payment, SSRF,
//! limits, deadlines) is the core's; the loop of one connection is
//! `contact_core::driver::Driver`'s; the worker pool, logs, metrics, TLS configuration and
//! settings are `contact-runtime-common`'s, shared with the smol runtime.
//!
//! Library entry for tokio applications: [`serve`] returns the service as a future and a
//! [`ShutdownHandle`]; run the future on your runtime beside your own listeners (see
//! `examples/beside_an_app.rs`).
//!
//! Modules: this file (serving, the drain, metrics, facilitator checks, operator crawls),
//! `connection` (one connection's loop), `outbound` (DNS, connect, TLS, fetch readers), `event`
//! (what helper tasks report), `task` (tasks aborted when their owner drops them).

mod connection;
mod event;
mod outbound;
mod task;

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use contact_core::api::{ApiError, ContactExtractionResult, ErrorCode};
use contact_core::budget::DRAIN_GRACE;
use contact_core::config::Config;
use contact_core::exchange::Exchange;
use contact_core::server::Server;
use contact_runtime_common::log::{flush_logs, log_line};
use contact_runtime_common::service::{
    bind_listeners, metrics_answer, metrics_gate, metrics_head_done, new_server, signal_line,
    ServeSetup, METRICS_REQUEST_TIMEOUT,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsConnector;

use crate::connection::{drive, Shutdown};

/// TLS settings for outbound fetches: the Mozilla roots of `webpki-roots` (SNI = the URL's
/// host).
pub fn tls_connector() -> TlsConnector {
    tls_connector_with(&[])
}

/// As [`tls_connector`], also trusting `extra_roots` (DER certificates). Test-only.
pub fn tls_connector_with(extra_roots: &[Vec<u8>]) -> TlsConnector {
    TlsConnector::from(contact_runtime_common::tls::client_config(extra_roots))
}

/// Stops a running [`serve`]: the first call starts the drain (docs/operations.md, "Drain");
/// a second one cuts the remaining connections short. Cloneable; dropping every handle is a
/// drain too.
#[derive(Clone, Debug)]
pub struct ShutdownHandle(async_channel::Sender<()>);

impl ShutdownHandle {
    /// Asks the service to stop (see the type's docs).
    pub fn shutdown(&self) {
        let _ = self.0.try_send(());
    }
}

/// The service for `config` on `listener`, for a tokio application: a future to spawn or
/// await, and the handle that stops it. The future ends after the drain. Outbound fetches use
/// the webpki roots; the worker pool starts with the number of cores unless started before
/// (`contact_runtime_common::workers::start_workers`).
pub fn serve(
    listener: TcpListener,
    config: Config,
) -> (impl std::future::Future<Output = ()> + Send, ShutdownHandle) {
    let server = new_server(config);
    let (stop_sender, stop) = async_channel::bounded::<()>(2);
    let future = serve_with_tls(listener, server, stop, DRAIN_GRACE, tls_connector());
    (future, ShutdownHandle(stop_sender))
}

/// Serves connections from `listener` until `stop` receives a message (or every sender is
/// dropped; an `async-channel`, which works under tokio); then drains: stops accepting, tells the core ([`Server::begin_drain`]) and every
/// open connection, and waits until every connection has finished — paid jobs run to their
/// end, settlement included — for at most `grace`. A second message on `stop`, or the end of
/// `grace`, cuts the remaining connections short and returns.
pub async fn serve_with_tls(
    listener: TcpListener,
    server: Server,
    stop: async_channel::Receiver<()>,
    grace: Duration,
    tls: TlsConnector,
) {
    let log_format = server.config().log_format;
    let active = Arc::new(AtomicUsize::new(0));
    let (drain_sender, drain) = watch::channel(false);
    let (cut_sender, cut) = watch::channel(false);
    let shutdown = Shutdown { drain, cut };
    // Readiness names the facilitator; the checks stop with this function.
    let checks = tokio::spawn(contact_runtime_common::service::check_facilitator(
        server.clone(),
        {
            let tls = tls.clone();
            move |check| drive(check, None, tls.clone(), log_format, None)
        },
        tokio::time::sleep,
    ));
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.recv() => break,
        };
        match accepted {
            Ok((stream, peer)) => {
                // The core's connection caps: a refused connection is closed at once.
                let slot = match server.admit_connection(peer.ip()) {
                    Ok(slot) => slot,
                    Err(refused) => {
                        contact_runtime_common::metrics::observe_refused_connection(refused);
                        continue;
                    }
                };
                let (server, tls, active) = (server.clone(), tls.clone(), active.clone());
                let shutdown = shutdown.clone();
                active.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let exchange = Exchange::accept(&server, peer, Instant::now());
                    drive(exchange, Some(stream), tls, log_format, Some(shutdown)).await;
                    drop(slot);
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            }
            Err(error) => {
                log_line(log_format, &format!("accept failed: {error}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    // Close the listening socket now: new connections are refused at once.
    drop(listener);
    server.begin_drain();
    let _ = drain_sender.send(true);
    contact_runtime_common::service::drain_connections(
        &active,
        grace,
        log_format,
        tokio::time::sleep,
        || async { stop.recv().await.is_ok() },
        move || {
            let _ = cut_sender.send(true);
        },
    )
    .await;
    checks.abort();
}

/// Serves `GET /metrics` (Prometheus text format) on `listener` — the operator's
/// `METRICS_ADDR` — until `stop` is set. One request per connection; at most
/// `METRICS_MAX_CONNECTIONS` open (one more is closed at once); a connection whose head and
/// answer are not through within `METRICS_REQUEST_TIMEOUT` (5 s) is dropped. Turns metric
/// recording on.
pub async fn serve_metrics(listener: TcpListener, server: Server, mut stop: watch::Receiver<bool>) {
    contact_runtime_common::metrics::enable("tokio");
    let gate = metrics_gate();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.wait_for(|set| *set) => break,
        };
        let Ok((mut stream, peer)) = accepted else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let Ok(slot) = gate.admit(peer.ip(), true) else {
            drop(stream);
            continue;
        };
        let server = server.clone();
        tokio::spawn(async move {
            let exchange = async {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !metrics_head_done(&head) {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = stream.write_all(&metrics_answer(&server, &head)).await;
            };
            let _ = tokio::time::timeout(METRICS_REQUEST_TIMEOUT, exchange).await;
            drop(slot);
        });
    }
}

/// An operator's crawl of `url` without payment (`contact-extract extract URL`), on a tokio
/// runtime of its own: the same checks, fetch rules, deadlines and extraction as a paid
/// request, no facilitator.
///
/// # Errors
/// The `ApiError` a paid request would have been answered with.
pub fn extract_one(server: &Server, url: &str) -> Result<ContactExtractionResult, ApiError> {
    let runtime = runtime(1).map_err(|e| {
        ApiError::new(
            ErrorCode::InternalError,
            format!("no tokio runtime: {e}"),
            "",
        )
    })?;
    runtime.block_on(extract_url(server, url, tls_connector()))
}

/// As [`extract_one`], on the caller's runtime.
///
/// # Errors
/// The `ApiError` a paid request would have been answered with.
pub async fn extract_url(
    server: &Server,
    url: &str,
    tls: TlsConnector,
) -> Result<ContactExtractionResult, ApiError> {
    let exchange = Exchange::unpaid_crawl(server, url, Instant::now())?;
    let log_format = server.config().log_format;
    drive(exchange, None, tls, log_format, None)
        .await
        .into_unpaid_outcome()
}

/// Runs `extract-batch`'s crawls ([`extract_url`] each) on a tokio runtime of its own
/// (`contact_runtime_common::batch::crawl_all` decides the order and reports the outcomes).
pub fn crawl_batch(
    server: &Server,
    inputs: &[String],
    concurrency: usize,
    scheduler: contact_runtime_common::batch::Scheduler,
    on_done: &mut dyn FnMut(usize, Result<ContactExtractionResult, ApiError>),
) {
    let Ok(runtime) = runtime(1) else {
        return;
    };
    let tls = tls_connector();
    let start = |index: usize, url: String, done: contact_runtime_common::batch::Sender| {
        let (server, tls) = (server.clone(), tls.clone());
        tokio::spawn(async move {
            let outcome = extract_url(&server, &url, tls).await;
            let _ = done.send((index, outcome)).await;
        });
    };
    let crawls =
        contact_runtime_common::batch::crawl_all(inputs, concurrency, scheduler, on_done, start);
    runtime.block_on(crawls);
}

/// A tokio runtime with `threads` IO threads (1: on the calling thread).
fn runtime(threads: usize) -> std::io::Result<tokio::runtime::Runtime> {
    if threads <= 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()
    }
}

/// Runs `serve` on tokio until SIGTERM or SIGINT (then drains) and returns the exit status:
/// 0 after a drain, 1 when a listener, the runtime or the signal handlers cannot be set up.
pub fn run_service(setup: ServeSetup) -> ExitCode {
    let ServeSetup {
        mut config,
        workers,
        io_threads,
    } = setup;
    let format = config.log_format;
    let runtime = match runtime(io_threads) {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("contact-extract: cannot start tokio: {error}");
            return ExitCode::FAILURE;
        }
    };
    contact_runtime_common::workers::start_workers(workers);
    let status = runtime.block_on(async move {
        let (listener, metrics_listener) = match bind_listeners(&mut config) {
            Ok(listeners) => listeners,
            Err(status) => return status,
        };
        let (listener, metrics_listener) = match (
            TcpListener::from_std(listener),
            metrics_listener.map(TcpListener::from_std).transpose(),
        ) {
            (Ok(listener), Ok(metrics)) => (listener, metrics),
            (Err(error), _) | (_, Err(error)) => {
                eprintln!("contact-extract: cannot register the listeners: {error}");
                return ExitCode::FAILURE;
            }
        };
        let server = new_server(config);
        let (stop_sender, stop) = async_channel::bounded::<()>(2);
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            eprintln!("contact-extract: cannot install signal handlers");
            return ExitCode::FAILURE;
        };
        // SIGTERM/SIGINT: drain (paid jobs run to their end, settlement included, within the
        // grace period), exit 0. A second signal cuts the drain short.
        let watcher = tokio::spawn(async move {
            for round in 0..2 {
                let name = tokio::select! {
                    _ = term.recv() => "Term",
                    _ = int.recv() => "Int",
                };
                log_line(format, &signal_line(name, round));
                let _ = stop_sender.send(()).await;
            }
        });
        let (metrics_stop, metrics_stopped) = watch::channel(false);
        let metrics = metrics_listener
            .map(|listener| tokio::spawn(serve_metrics(listener, server.clone(), metrics_stopped)));
        serve_with_tls(listener, server, stop, DRAIN_GRACE, tls_connector()).await;
        let _ = metrics_stop.send(true);
        if let Some(metrics) = metrics {
            metrics.abort();
        }
        watcher.abort();
        ExitCode::SUCCESS
    });
    if status == ExitCode::SUCCESS {
        log_line(format, "stopped");
    }
    flush_logs();
    status
}
