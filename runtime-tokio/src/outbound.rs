//! Outbound connections for the core's fetches on tokio: the system resolver off the IO
//! threads, a TCP connection to exactly the `ApprovedAddr` the core approved (and TLS over it,
//! SNI = host), and a task per connection that reads it and reports to the driver.

use contact_core::io::{FetchId, IoFailure};
use contact_core::net_policy::ApprovedAddr;
use contact_runtime_common::tls::{server_name, tls_failure};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc::UnboundedSender;
use tokio_rustls::TlsConnector;

use crate::event::Event;
use crate::task::Owned;

/// Bytes read from an outbound connection at a time.
const READ_CHUNK: usize = 16 * 1024;

/// Reads an outbound connection until EOF or error, reporting chunks to the driver.
fn spawn_reader<R>(mut stream: R, events: UnboundedSender<Event>, fetch: FetchId) -> Owned
where
    R: AsyncRead + Unpin + Send + 'static,
{
    Owned::spawn(async move {
        let mut buf = vec![0u8; READ_CHUNK];
        loop {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            let event = match n {
                0 => Event::FetchClosed(fetch),
                n => Event::FetchData(fetch, buf[..n].to_vec()),
            };
            if events.send(event).is_err() || n == 0 {
                return;
            }
        }
    })
}

/// The system resolver, on tokio's blocking pool.
pub(crate) async fn resolve(host: String, port: u16) -> Result<Vec<std::net::IpAddr>, IoFailure> {
    tokio::task::spawn_blocking(move || contact_runtime_common::service::resolve(&host, port))
        .await
        .unwrap_or_else(|e| Err(IoFailure::Dns(e.to_string())))
}

/// Dials exactly `addr`; with `sni`, reports `TcpConnected` and runs the TLS handshake.
pub(crate) async fn connect(
    fetch: FetchId,
    addr: ApprovedAddr,
    sni: Option<String>,
    tls: TlsConnector,
    events: UnboundedSender<Event>,
) -> Event {
    let Ok(tcp) = TcpStream::connect(addr.socket_addr()).await else {
        return Event::Connected(fetch, Err(IoFailure::Refused));
    };
    let Some(name) = sni else {
        let (read_half, write_half) = tcp.into_split();
        let reader = spawn_reader(read_half, events, fetch);
        return Event::Connected(fetch, Ok((Box::new(write_half), reader)));
    };
    // The handshake has its own deadline in the core, from now.
    let _ = events.send(Event::TcpConnected(fetch));
    let name = match server_name(name) {
        Ok(name) => name,
        Err(failure) => return Event::Connected(fetch, Err(failure)),
    };
    match tls.connect(name, tcp).await {
        Ok(stream) => {
            let (read_half, write_half) = tokio::io::split(stream);
            let reader = spawn_reader(read_half, events, fetch);
            Event::Connected(fetch, Ok((Box::new(write_half), reader)))
        }
        Err(error) => Event::Connected(fetch, Err(tls_failure(error))),
    }
}
