//! Outbound connections for the core's fetches: the system resolver off the executor, a TCP
//! connection to exactly the `ApprovedAddr` the core approved (and TLS over it), and a task
//! per connection that reads it and reports to the connection's driver.

use std::net::TcpStream;
use std::sync::Arc;

use contact_core::io::{FetchId, IoFailure};
use contact_core::net_policy::ApprovedAddr;
use futures_rustls::TlsConnector;
use smol::channel::Sender;
use smol::io::{AsyncReadExt, AsyncWrite};
use smol::{Async, Task};

use crate::event::Event;
use crate::executor::spawn;

/// Bytes read from an outbound connection at a time.
const READ_CHUNK: usize = 16 * 1024;

/// Reads an outbound connection until EOF or error, reporting chunks to the driver.
pub(crate) fn spawn_reader<R>(stream: R, events: Sender<Event>, fetch: FetchId) -> Task<()>
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

/// Dials exactly `addr`; with `sni`, reports `TcpConnected` and runs the TLS handshake.
/// Returns the connected event with the write half and the task reading the other half.
pub(crate) async fn connect(
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
            // The handshake has its own deadline in the core, from now.
            let _ = events.send(Event::TcpConnected(fetch)).await;
            match crate::tls::handshake(&tls, name, tcp).await {
                Ok(stream) => {
                    let (read_half, write_half) = smol::io::split(stream);
                    let reader = spawn_reader(read_half, events, fetch);
                    Event::Connected(fetch, Ok(Box::new(write_half)), Some(reader))
                }
                Err(failure) => Event::Connected(fetch, Err(failure), None),
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
