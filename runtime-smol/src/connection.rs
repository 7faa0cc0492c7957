//! One connection's driver: it carries out the outputs of an [`Exchange`] and feeds it the
//! client's bytes, the results of DNS and connects, fetched bytes and timeouts, until the
//! exchange is finished (docs/architecture.md: drain, wait, feed).

use std::net::TcpStream;
use std::time::Instant;

use contact_core::config::LogFormat;
use contact_core::driver::{
    ClientRead, Driver, Happened, WriteEnd, CLIENT_READ_CHUNK, MIN_TIMER_STEP,
};
use contact_core::exchange::Exchange;
use contact_core::io::{FetchId, Input, IoFailure, Output};
use futures_rustls::TlsConnector;
use smol::channel;
use smol::future::FutureExt as _;
use smol::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt};
use smol::{Async, Task, Timer};

use crate::event::Event;
use crate::executor::spawn;
use crate::outbound::connect;
use contact_runtime_common::report::{report_event, report_settlement};
use contact_runtime_common::service::resolve;
use contact_runtime_common::workers::WorkSlots;

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

/// Drives one exchange until it is finished (the loop of `contact_core::driver::Driver`) and
/// returns it. `client` is the inbound connection; `None` for an operator's crawl or a
/// facilitator check.
pub(crate) async fn drive(
    exchange: Exchange,
    client: Option<Async<TcpStream>>,
    tls: TlsConnector,
    log_format: LogFormat,
    shutdown: Option<Shutdown>,
) -> Exchange {
    let mut driver = Driver::new(exchange, client.is_some());
    // Each shutdown step is told once: a closed channel stays "ready".
    let mut drain = shutdown.as_ref().map(|s| s.drain.clone());
    let mut cut = shutdown.map(|s| s.cut);
    let (events, inbox) = channel::unbounded::<Event>();
    let mut client_buf = vec![
        0u8;
        if client.is_some() {
            CLIENT_READ_CHUNK
        } else {
            0
        }
    ];
    let mut fetches: Vec<FetchConn> = Vec::new();
    // DNS and connect tasks, by the fetch they work for: dropping one cancels it, so a fetch
    // the core closes leaves nothing behind (a connect in progress is abandoned at once).
    let mut helpers: Vec<(FetchId, Task<()>)> = Vec::new();
    // Work on the worker pool (stopped when dropped: the exchange is over).
    let mut working = WorkSlots::default();
    let mut timer = Timer::never();
    loop {
        while let Some(output) = driver.poll_output() {
            match output {
                Output::SendToClient(bytes) => {
                    let end = match &client {
                        Some(client) => {
                            let write = async {
                                let mut stream = client;
                                stream.write_all(&bytes).await
                            };
                            write_serving_deadlines(&mut driver, write, None).await
                        }
                        None => WriteEnd::Failed,
                    };
                    driver.client_write_done(end, Instant::now());
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
                        let end = write_serving_deadlines(&mut driver, write, Some(fetch)).await;
                        driver.fetch_write_done(fetch, end, Instant::now());
                    }
                }
                Output::CloseFetch { fetch } => {
                    fetches.retain(|c| c.id != fetch);
                    helpers.retain(|(id, _)| *id != fetch);
                }
                Output::Work { id, work } => {
                    let events = events.clone();
                    working.start(id, work, move |done, took| {
                        let _ = events.send_blocking(Event::WorkDone(id, done, took));
                    });
                }
                Output::CancelWork { id } => working.cancel(id),
                Output::Store { id, op } => {
                    let events = events.clone();
                    contact_runtime_common::redis_store::start(op, move |result| {
                        let _ = events.send_blocking(Event::Stored(id, result));
                    });
                }
                Output::Event(event) => report_event(log_format, &event),
                Output::Settlement(event) => report_settlement(log_format, &event),
            }
        }
        if driver.is_finished() {
            break;
        }
        helpers.retain(|(_, task)| !task.is_finished());
        if let Some(at) = driver.arm_timer() {
            timer.set_at(at);
        }
        let read = driver.client_read();
        // Only helper tasks and fetch readers send to the inbox: with none expected and
        // nothing queued, waiting on it would only cost a listener registration per request.
        let inbox_quiet = !driver.expects_answers() && helpers.is_empty() && inbox.is_empty();
        let next = async {
            if inbox_quiet {
                return std::future::pending::<Option<Event>>().await;
            }
            inbox.recv().await.ok()
        }
        .or(async {
            let Some(client) = client.as_ref() else {
                return std::future::pending::<Option<Event>>().await;
            };
            match read {
                ClientRead::Nothing => std::future::pending::<Option<Event>>().await,
                ClientRead::Peek => {
                    let mut probe = [0u8; 1];
                    match client.read_with(|stream| stream.peek(&mut probe)).await {
                        Ok(0) | Err(_) => Some(Event::ClientClosed),
                        Ok(_) => Some(Event::ClientWaiting),
                    }
                }
                ClientRead::Bytes(limit) => match (&*client).read(&mut client_buf[..limit]).await {
                    Ok(0) | Err(_) => Some(Event::ClientClosed),
                    Ok(n) => Some(Event::ClientRead(n)),
                },
            }
        })
        .or(async {
            if !driver.timer_armed() {
                return std::future::pending::<Option<Event>>().await;
            }
            (&mut timer).await;
            None
        })
        .or(when_closed(drain.as_ref(), Event::Drain))
        .or(when_closed(cut.as_ref(), Event::Cut));
        let event = next.await;
        let clock = contact_runtime_common::service::read_clocks();
        let happened = match event {
            None => Happened::TimerFired,
            Some(Event::Drain) => {
                drain = None;
                Happened::Drain
            }
            Some(Event::Cut) => {
                cut = None;
                Happened::Cut
            }
            Some(Event::ClientRead(n)) => Happened::Input(Input::ClientData(&client_buf[..n])),
            Some(Event::ClientClosed) => Happened::Input(Input::ClientClosed),
            Some(Event::ClientWaiting) => Happened::ClientWaiting,
            Some(Event::TcpConnected(fetch)) => Happened::Input(Input::TcpConnected { fetch }),
            Some(Event::Resolved(fetch, result)) => {
                Happened::Input(Input::Resolved { fetch, result })
            }
            Some(Event::Connected(fetch, result, reader)) => {
                let (result, conn) = match (result, reader) {
                    (Ok(writer), Some(reader)) => (
                        Ok(()),
                        Some(FetchConn {
                            id: fetch,
                            writer,
                            _reader: reader,
                        }),
                    ),
                    (Ok(_), None) => (Err(IoFailure::Other("no reader".to_string())), None),
                    (Err(failure), _) => (Err(failure), None),
                };
                // Kept only when the core still waited for it.
                if driver.handle(Happened::Input(Input::Connected { fetch, result }), clock) {
                    fetches.extend(conn);
                }
                continue;
            }
            Some(Event::FetchData(fetch, data)) => {
                driver.handle(
                    Happened::Input(Input::FetchData { fetch, data: &data }),
                    clock,
                );
                continue;
            }
            Some(Event::FetchClosed(fetch)) => Happened::Input(Input::FetchClosed { fetch }),
            Some(Event::WorkDone(id, done, took)) => {
                working.done(id);
                Happened::Input(Input::WorkDone { id, done, took })
            }
            Some(Event::Stored(id, result)) => Happened::Input(Input::Stored { id, result }),
        };
        driver.handle(happened, clock);
    }
    driver.into_exchange()
}

/// Runs one write while serving the exchange's deadlines (the contract in `contact_core::io`,
/// "Writes"): when the exchange's next deadline passes before the write completes, the driver
/// is told ([`Driver::write_deadline_passed`]); the write goes on while the core still wants it
/// (to the client, or to `fetch`) and is abandoned otherwise — the core, not the runtime,
/// decides how long a write may take.
async fn write_serving_deadlines(
    driver: &mut Driver,
    write: impl std::future::Future<Output = std::io::Result<()>>,
    fetch: Option<FetchId>,
) -> WriteEnd {
    let mut write = std::pin::pin!(write);
    loop {
        let deadline = driver.deadline_during_write();
        let finished = async { Some(write.as_mut().await) }
            .or(async {
                match deadline {
                    Some(at) => Timer::at(at.max(Instant::now() + MIN_TIMER_STEP)).await,
                    None => std::future::pending().await,
                };
                None
            })
            .await;
        match finished {
            Some(Ok(())) => return WriteEnd::Done,
            Some(Err(_)) => return WriteEnd::Failed,
            None => {
                if !driver.write_deadline_passed(Instant::now(), fetch) {
                    return WriteEnd::Abandoned;
                }
            }
        }
    }
}
