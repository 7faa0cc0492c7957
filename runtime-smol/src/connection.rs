//! One connection's driver: it carries out the outputs of an [`Exchange`] and feeds it the
//! client's bytes, the results of DNS and connects, fetched bytes and timeouts, until the
//! exchange is finished (architecture.md §3.5: drain, wait, feed).

use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use contact_core::config::LogFormat;
use contact_core::driver::{Owed, TimerRule};
use contact_core::exchange::Exchange;
use contact_core::io::{FetchId, Input, IoFailure, Output};
use contact_core::work::WorkId;
use futures_rustls::TlsConnector;
use smol::channel;
use smol::future::FutureExt as _;
use smol::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt};
use smol::{Async, Task, Timer};

use crate::event::Event;
use crate::executor::spawn;
use crate::outbound::{connect, resolve};
use crate::workers::{run_on_worker, run_paced};
use contact_runtime_common::log::{log_event, log_settlement};
use contact_runtime_common::metrics;

/// Bytes read from a client at a time (requests are small; this is per idle connection).
const CLIENT_READ_CHUNK: usize = 4 * 1024;

/// How the service tells its connections that it drains and that it exits: each channel is
/// closed (never sent on) at that moment, which every clone of the receiver sees.
#[derive(Clone)]
pub(crate) struct Shutdown {
    pub(crate) drain: smol::channel::Receiver<()>,
    pub(crate) cut: smol::channel::Receiver<()>,
}

/// `event` once `signal` is closed (a [`Shutdown`] step); never without a signal.
async fn when_closed(signal: Option<&smol::channel::Receiver<()>>, event: Event) -> Option<Event> {
    match signal {
        Some(signal) => {
            let _ = signal.recv().await;
            Some(event)
        }
        None => std::future::pending().await,
    }
}

/// An open outbound connection: its write half and the task reading it.
struct FetchConn {
    id: FetchId,
    writer: Box<dyn AsyncWrite + Send + Unpin>,
    _reader: Task<()>,
}

/// Drives one exchange until it is finished (architecture.md §3.5: drain, wait, feed) and
/// returns it. `client` is the inbound connection; `None` for an operator's crawl.
pub(crate) async fn drive(
    mut exchange: Exchange,
    client: Option<Async<TcpStream>>,
    tls: TlsConnector,
    log_format: LogFormat,
    shutdown: Option<Shutdown>,
) -> Exchange {
    // Each shutdown step is told once: a closed channel stays "ready".
    let mut drain = shutdown.as_ref().map(|s| s.drain.clone());
    let mut cut = shutdown.map(|s| s.cut);
    let (events, inbox) = channel::unbounded::<Event>();
    // The client is read here, in the driver (no hop through another task); fetch
    // connections and DNS/connect results arrive through `inbox`.
    let mut client_open = client.is_some();
    let mut client_writable = client.is_some();
    let mut client_buf = vec![0u8; if client_open { CLIENT_READ_CHUNK } else { 0 }];
    // Set when the client has bytes waiting that the exchange does not take yet: the socket
    // stays readable, so watching it again before the read limit grows would spin.
    let mut client_waiting = false;
    let mut fetches: Vec<FetchConn> = Vec::new();
    // DNS and connect tasks, by the fetch they work for: dropping one cancels it, so a fetch
    // the core closes leaves nothing behind (a connect in progress is abandoned at once).
    let mut helpers: Vec<(FetchId, Task<()>)> = Vec::new();
    // The answers the core still waits for: an answer for anything it cancelled meanwhile
    // (the event already queued) is dropped here — a connect's with its connection.
    let mut owed = Owed::default();
    // Work on the worker pool, with the flag that stops it when the core cancels it.
    let mut working: Vec<(WorkId, Arc<AtomicBool>)> = Vec::new();
    // One timer per connection, moved only as `TimerRule` says.
    let mut timer = Timer::never();
    let mut timer_rule = TimerRule::default();
    loop {
        while let Some(output) = exchange.poll_output() {
            owed.note(&output);
            match output {
                Output::SendToClient(bytes) => {
                    // After a failed write, or one the core gave up on at its write deadline,
                    // the client is gone: the answers still queued are dropped.
                    let writable = client.as_ref().filter(|_| client_writable);
                    let written = match writable {
                        Some(client) => {
                            let write = async {
                                let mut stream = client;
                                stream.write_all(&bytes).await
                            };
                            write_serving_deadlines(&mut exchange, write, Exchange::client_writable)
                                .await
                        }
                        None => Written::Failed,
                    };
                    match written {
                        Written::Done => {
                            exchange.handle_input(Input::ClientWritten, Instant::now())
                        }
                        Written::Abandoned => client_writable = false,
                        Written::Failed if client_writable => {
                            client_writable = false;
                            exchange.handle_input(Input::ClientClosed, Instant::now());
                        }
                        Written::Failed => {}
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
                    let task = spawn(async move {
                        let result = smol::unblock(move || resolve(&host, port)).await;
                        let _ = events.send(Event::Resolved(fetch, result)).await;
                    });
                    helpers.push((fetch, task));
                }
                Output::Connect {
                    fetch,
                    addr,
                    tls: sni,
                } => {
                    let events = events.clone();
                    let tls = tls.clone();
                    let task = spawn(async move {
                        let event = connect(fetch, addr, sni, tls, events.clone()).await;
                        let _ = events.send(event).await;
                    });
                    helpers.push((fetch, task));
                }
                Output::SendToFetch { fetch, data } => {
                    if let Some(conn) = fetches.iter_mut().find(|c| c.id == fetch) {
                        let write = async {
                            conn.writer.write_all(&data).await?;
                            conn.writer.flush().await
                        };
                        let still_wanted = |e: &Exchange| e.has_fetch(fetch);
                        let written =
                            write_serving_deadlines(&mut exchange, write, still_wanted).await;
                        // Abandoned: the core closed the fetch (its CloseFetch follows).
                        if written == Written::Failed {
                            let _ = events.send(Event::FetchClosed(fetch)).await;
                        }
                    }
                }
                Output::CloseFetch { fetch } => {
                    fetches.retain(|c| c.id != fetch);
                    helpers.retain(|(id, _)| *id != fetch);
                }
                Output::Work { id, work } => {
                    let events = events.clone();
                    let cancelled = Arc::new(AtomicBool::new(false));
                    working.push((id, Arc::clone(&cancelled)));
                    run_on_worker(move || {
                        let kind = metrics::work_kind(&work);
                        let budget = work.cpu_budget();
                        let (done, took) = run_paced(budget, cancelled, || work.run());
                        metrics::observe_work(kind, took);
                        let _ = events.send_blocking(Event::WorkDone(id, done, took));
                    });
                }
                Output::CancelWork { id } => {
                    // Its answer, if it comes, is dropped (owed); the worker stops it at its
                    // next checkpoint.
                    if let Some((_, cancelled)) = working.iter().find(|(w, _)| *w == id) {
                        cancelled.store(true, Ordering::Relaxed);
                    }
                    working.retain(|(w, _)| *w != id);
                }
                Output::Event(event) => {
                    metrics::observe_request(&event);
                    log_event(log_format, &event);
                }
                Output::Settlement(event) => {
                    metrics::observe_settlement(&event);
                    log_settlement(log_format, &event);
                }
            }
        }
        if exchange.is_finished() {
            break;
        }
        helpers.retain(|(_, task)| !task.is_finished());
        let deadline = exchange.poll_timeout();
        if let Some(at) = timer_rule.arm(deadline) {
            timer.set_at(at);
        }
        // Only helper tasks and fetch readers send to the inbox: with none alive and nothing
        // queued, waiting on it would only cost a listener registration per request.
        let read_limit = exchange.client_read_limit().min(client_buf.len());
        if read_limit > 0 {
            client_waiting = false;
        }
        let inbox_quiet =
            helpers.is_empty() && fetches.is_empty() && !owed.awaits_work() && inbox.is_empty();
        let next = async {
            if inbox_quiet {
                return std::future::pending::<Option<Event>>().await;
            }
            inbox.recv().await.ok()
        }
        .or(async {
            let Some(client) = client.as_ref().filter(|_| client_open && !client_waiting) else {
                return std::future::pending::<Option<Event>>().await;
            };
            if read_limit == 0 {
                // Bounded input (issue 10): read nothing, only learn whether the client is
                // still there — a peek of 0 bytes is its end of stream.
                let mut probe = [0u8; 1];
                return match client.read_with(|stream| stream.peek(&mut probe)).await {
                    Ok(0) | Err(_) => Some(Event::ClientClosed),
                    Ok(_) => Some(Event::ClientWaiting),
                };
            }
            match (&*client).read(&mut client_buf[..read_limit]).await {
                Ok(0) | Err(_) => Some(Event::ClientClosed),
                Ok(n) => Some(Event::ClientRead(n)),
            }
        })
        .or(async {
            if !timer_rule.is_armed() {
                return std::future::pending::<Option<Event>>().await;
            }
            (&mut timer).await;
            None
        })
        .or(when_closed(drain.as_ref(), Event::Drain))
        .or(when_closed(cut.as_ref(), Event::Cut));
        let event = next.await;
        if matches!(event, Some(Event::ClientClosed)) {
            client_open = false;
        }
        let owed_answer = match &event {
            Some(Event::Resolved(fetch, ..) | Event::Connected(fetch, ..)) => {
                owed.answer_fetch(*fetch)
            }
            Some(Event::WorkDone(id, ..)) => owed.answer_work(*id),
            // Progress of a connect still owed (not its answer).
            Some(Event::TcpConnected(fetch)) => owed.awaits_fetch(*fetch),
            _ => true,
        };
        if !owed_answer {
            // Cancelled by the core while the answer was queued: drop it (and, for a
            // connect, its connection and reader) without telling the core.
            continue;
        }
        let now = Instant::now();
        if event.is_none() && !timer_rule.fired(now, deadline) {
            // Fired before the current deadline (it moved later): re-armed next turn.
            continue;
        }
        match event {
            None => exchange.handle_timeout(now),
            Some(Event::Drain) => {
                drain = None;
                exchange.handle_drain(now);
            }
            Some(Event::Cut) => {
                cut = None;
                exchange.cut_short(now);
            }
            Some(Event::ClientRead(n)) => {
                exchange.handle_input(Input::ClientData(&client_buf[..n]), now)
            }
            Some(Event::ClientClosed) => exchange.handle_input(Input::ClientClosed, now),
            Some(Event::ClientWaiting) => client_waiting = true,
            Some(Event::TcpConnected(fetch)) => {
                exchange.handle_input(Input::TcpConnected { fetch }, now)
            }
            Some(Event::Resolved(fetch, result)) => {
                exchange.handle_input(Input::Resolved { fetch, result }, now)
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
                exchange.handle_input(Input::Connected { fetch, result }, now);
            }
            Some(Event::FetchData(fetch, data)) => {
                if fetches.iter().any(|c| c.id == fetch) {
                    exchange.handle_input(Input::FetchData { fetch, data: &data }, now);
                }
            }
            Some(Event::WorkDone(id, done, took)) => {
                working.retain(|(w, _)| *w != id);
                exchange.handle_input(Input::WorkDone { id, done, took }, now)
            }
            Some(Event::FetchClosed(fetch)) => {
                if fetches.iter().any(|c| c.id == fetch) {
                    exchange.handle_input(Input::FetchClosed { fetch }, now);
                }
            }
        }
    }
    // The exchange is over: work still running for it has no one to answer.
    for (_, cancelled) in &working {
        cancelled.store(true, Ordering::Relaxed);
    }
    exchange
}

/// How a write ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    Done,
    /// The peer failed it (reset, closed).
    Failed,
    /// The exchange no longer wants it (a deadline of the core passed meanwhile).
    Abandoned,
}

/// Runs one write while serving the exchange's deadlines (the contract in `contact_core::io`,
/// "Writes"): when `poll_timeout` passes before the write completes, the exchange is told
/// (`handle_timeout`, as the driver's own timer would); the write goes on while
/// `still_wanted` says so and is abandoned otherwise — the core, not the runtime, decides
/// how long a write may take.
async fn write_serving_deadlines(
    exchange: &mut Exchange,
    write: impl std::future::Future<Output = std::io::Result<()>>,
    still_wanted: impl Fn(&Exchange) -> bool,
) -> Written {
    let mut write = std::pin::pin!(write);
    loop {
        let deadline = exchange.poll_timeout();
        let finished = async { Some(write.as_mut().await) }
            .or(async {
                match deadline {
                    // A floor, so a deadline the exchange does not move cannot spin.
                    Some(at) => Timer::at(at.max(Instant::now() + MIN_TIMER_STEP)).await,
                    None => std::future::pending().await,
                };
                None
            })
            .await;
        match finished {
            Some(Ok(())) => return Written::Done,
            Some(Err(_)) => return Written::Failed,
            None => {
                exchange.handle_timeout(Instant::now());
                if !still_wanted(exchange) {
                    return Written::Abandoned;
                }
            }
        }
    }
}

/// Shortest wait on a deadline during a write.
const MIN_TIMER_STEP: std::time::Duration = std::time::Duration::from_millis(5);
