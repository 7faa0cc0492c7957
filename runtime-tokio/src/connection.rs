//! One connection's loop on tokio: it carries out the outputs of a
//! [`Driver`](contact_core::driver::Driver) with tokio sockets, tasks and one timer, and feeds
//! it what happened, until the exchange is finished. Every decision is the driver's.

use std::time::Instant;

use contact_core::config::LogFormat;
use contact_core::driver::{
    ClientRead, Driver, Happened, WriteEnd, CLIENT_READ_CHUNK, MIN_TIMER_STEP,
};
use contact_core::exchange::Exchange;
use contact_core::io::{FetchId, Input, Output};
use contact_runtime_common::report::{report_event, report_settlement};
use contact_runtime_common::workers::WorkSlots;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch};
use tokio::time::{sleep_until, Instant as TokioInstant};
use tokio_rustls::TlsConnector;

use crate::event::{Event, FetchWriter};
use crate::outbound::{connect, resolve};
use crate::task::Owned;

/// How the service tells its connections that it drains and that it exits: each flag turns
/// true (or its sender is dropped) at that moment.
#[derive(Clone)]
pub(crate) struct Shutdown {
    pub(crate) drain: watch::Receiver<bool>,
    pub(crate) cut: watch::Receiver<bool>,
}

/// Resolves once `signal` is set; never without a signal.
async fn when_set(signal: Option<&mut watch::Receiver<bool>>) {
    match signal {
        Some(signal) => {
            let _ = signal.wait_for(|set| *set).await;
        }
        None => std::future::pending().await,
    }
}

/// An open outbound connection: its write half and the task reading it.
struct FetchConn {
    id: FetchId,
    writer: FetchWriter,
    _reader: Owned,
}

/// What the wait of one turn produced.
enum Woke {
    Event(Event),
    ClientRead(usize),
    ClientClosed,
    ClientWaiting,
    Timer,
    Drain,
    Cut,
}

/// Drives one exchange until it is finished and returns it. `client` is the inbound
/// connection; `None` for an operator's crawl or a facilitator check.
pub(crate) async fn drive(
    exchange: Exchange,
    mut client: Option<TcpStream>,
    tls: TlsConnector,
    log_format: LogFormat,
    shutdown: Option<Shutdown>,
) -> Exchange {
    let mut driver = Driver::new(exchange, client.is_some());
    let (mut drain, mut cut) = match shutdown {
        Some(s) => (Some(s.drain), Some(s.cut)),
        None => (None, None),
    };
    let (events, mut inbox) = mpsc::unbounded_channel::<Event>();
    let mut client_buf = vec![
        0u8;
        if client.is_some() {
            CLIENT_READ_CHUNK
        } else {
            0
        }
    ];
    let mut fetches: Vec<FetchConn> = Vec::new();
    // DNS and connect tasks by fetch: dropping one aborts it.
    let mut helpers: Vec<(FetchId, Owned)> = Vec::new();
    // Work on the worker pool (stopped when dropped: the exchange is over).
    let mut working = WorkSlots::default();
    let timer = sleep_until(TokioInstant::now());
    tokio::pin!(timer);
    loop {
        while let Some(output) = driver.poll_output() {
            match output {
                Output::SendToClient(bytes) => {
                    let end = match client.as_mut() {
                        Some(stream) => {
                            write_serving_deadlines(&mut driver, stream.write_all(&bytes), None)
                                .await
                        }
                        None => WriteEnd::Failed,
                    };
                    driver.client_write_done(end, Instant::now());
                }
                Output::CloseClient => {
                    if let Some(stream) = client.as_mut() {
                        let _ = stream.flush().await;
                        let _ = stream.shutdown().await;
                    }
                }
                Output::Resolve { fetch, host, port } => {
                    let events = events.clone();
                    let task = Owned::spawn(async move {
                        let _ = events.send(Event::Resolved(fetch, resolve(host, port).await));
                    });
                    helpers.push((fetch, task));
                }
                Output::Connect {
                    fetch,
                    addr,
                    tls: sni,
                } => {
                    let (events, tls) = (events.clone(), tls.clone());
                    let task = Owned::spawn(async move {
                        let event = connect(fetch, addr, sni, tls, events.clone()).await;
                        let _ = events.send(event);
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
                        let _ = events.send(Event::WorkDone(id, done, took));
                    });
                }
                Output::CancelWork { id } => working.cancel(id),
                Output::Store { id, op } => {
                    let events = events.clone();
                    contact_runtime_common::redis_store::start(op, move |result| {
                        let _ = events.send(Event::Stored(id, result));
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
            timer.as_mut().reset(at.into());
        }
        let read = driver.client_read();
        let listen = driver.expects_answers() || !helpers.is_empty() || !inbox.is_empty();
        let timer_armed = driver.timer_armed();
        let woke = tokio::select! {
            event = inbox.recv(), if listen => match event {
                Some(event) => Woke::Event(event),
                None => continue,
            },
            woke = read_client(client.as_mut(), read, &mut client_buf),
                if client.is_some() && read != ClientRead::Nothing => woke,
            () = &mut timer, if timer_armed => Woke::Timer,
            () = when_set(drain.as_mut()), if drain.is_some() => Woke::Drain,
            () = when_set(cut.as_mut()), if cut.is_some() => Woke::Cut,
        };
        let clock = contact_runtime_common::service::read_clocks();
        let happened = match woke {
            Woke::Timer => Happened::TimerFired,
            Woke::Drain => {
                drain = None;
                Happened::Drain
            }
            Woke::Cut => {
                cut = None;
                Happened::Cut
            }
            Woke::ClientRead(n) => Happened::Input(Input::ClientData(&client_buf[..n])),
            Woke::ClientClosed => Happened::Input(Input::ClientClosed),
            Woke::ClientWaiting => Happened::ClientWaiting,
            Woke::Event(Event::TcpConnected(fetch)) => {
                Happened::Input(Input::TcpConnected { fetch })
            }
            Woke::Event(Event::Resolved(fetch, result)) => {
                Happened::Input(Input::Resolved { fetch, result })
            }
            Woke::Event(Event::Connected(fetch, connection)) => {
                let (result, conn) = match connection {
                    Ok((writer, reader)) => (
                        Ok(()),
                        Some(FetchConn {
                            id: fetch,
                            writer,
                            _reader: reader,
                        }),
                    ),
                    Err(failure) => (Err(failure), None),
                };
                // Kept only when the core still waited for it.
                if driver.handle(Happened::Input(Input::Connected { fetch, result }), clock) {
                    fetches.extend(conn);
                }
                continue;
            }
            Woke::Event(Event::FetchData(fetch, data)) => {
                let input = Input::FetchData { fetch, data: &data };
                driver.handle(Happened::Input(input), clock);
                continue;
            }
            Woke::Event(Event::FetchClosed(fetch)) => Happened::Input(Input::FetchClosed { fetch }),
            Woke::Event(Event::WorkDone(id, done, took)) => {
                working.done(id);
                Happened::Input(Input::WorkDone { id, done, took })
            }
            Woke::Event(Event::Stored(id, result)) => Happened::Input(Input::Stored { id, result }),
        };
        driver.handle(happened, clock);
    }
    driver.into_exchange()
}

/// Reads from the client as the driver said.
async fn read_client(client: Option<&mut TcpStream>, read: ClientRead, buf: &mut [u8]) -> Woke {
    let Some(stream) = client else {
        return std::future::pending().await;
    };
    match read {
        ClientRead::Nothing => std::future::pending().await,
        ClientRead::Peek => {
            let mut probe = [0u8; 1];
            match stream.peek(&mut probe).await {
                Ok(0) | Err(_) => Woke::ClientClosed,
                Ok(_) => Woke::ClientWaiting,
            }
        }
        ClientRead::Bytes(limit) => match stream.read(&mut buf[..limit]).await {
            Ok(0) | Err(_) => Woke::ClientClosed,
            Ok(n) => Woke::ClientRead(n),
        },
    }
}

/// Runs one write while serving the exchange's deadlines (the contract in `contact_core::io`,
/// "Writes"): the write goes on while the core still wants it (to the client, or to `fetch`)
/// and is abandoned otherwise.
async fn write_serving_deadlines(
    driver: &mut Driver,
    write: impl std::future::Future<Output = std::io::Result<()>>,
    fetch: Option<FetchId>,
) -> WriteEnd {
    tokio::pin!(write);
    loop {
        let deadline = driver.deadline_during_write();
        let wait = async {
            match deadline {
                Some(at) => sleep_until(at.max(Instant::now() + MIN_TIMER_STEP).into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            written = &mut write => {
                return if written.is_ok() { WriteEnd::Done } else { WriteEnd::Failed };
            }
            () = wait => {
                if !driver.write_deadline_passed(Instant::now(), fetch) {
                    return WriteEnd::Abandoned;
                }
            }
        }
    }
}
