//! What the helper tasks of a connection (DNS, connect, fetch readers, workers) report to its
//! driver.

use std::time::Duration;

use contact_core::io::{FetchId, IoFailure};
use contact_core::work::{WorkDone, WorkId};
use smol::io::AsyncWrite;
use smol::Task;

/// What the helper tasks of one connection report to its driver.
pub(crate) enum Event {
    /// This many bytes were read into the driver's client buffer.
    ClientRead(usize),
    ClientClosed,
    /// The client sent bytes the exchange does not take yet (its read limit is 0): nothing
    /// is read; the driver stops watching the client until the limit grows.
    ClientWaiting,
    Resolved(FetchId, Result<Vec<std::net::IpAddr>, IoFailure>),
    Connected(
        FetchId,
        Result<Box<dyn AsyncWrite + Send + Unpin>, IoFailure>,
        Option<Task<()>>,
    ),
    /// TCP is up; the TLS handshake starts.
    TcpConnected(FetchId),
    FetchData(FetchId, Vec<u8>),
    FetchClosed(FetchId),
    /// The work's answer and how long it ran on its worker.
    WorkDone(WorkId, WorkDone, Duration),
    /// The shared store's answer.
    Stored(
        contact_core::store::StoreId,
        Result<contact_core::store::StoreReply, contact_core::store::StoreFailure>,
    ),
    /// The service started draining (`Exchange::handle_drain`).
    Drain,
    /// The process is exiting now (`Exchange::cut_short`).
    Cut,
}
