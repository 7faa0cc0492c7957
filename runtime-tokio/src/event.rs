//! What the helper tasks of a connection (DNS, connect, fetch readers, workers) report to its
//! driver.

use std::time::Duration;

use contact_core::io::{FetchId, IoFailure};
use contact_core::work::{WorkDone, WorkId};

use crate::task::Owned;

/// The write half of an outbound connection.
pub(crate) type FetchWriter = Box<dyn tokio::io::AsyncWrite + Send + Unpin>;

/// What the helper tasks of one connection report to its driver.
pub(crate) enum Event {
    Resolved(FetchId, Result<Vec<std::net::IpAddr>, IoFailure>),
    /// The connection (its write half and the task reading it), or why there is none.
    Connected(FetchId, Result<(FetchWriter, Owned), IoFailure>),
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
}
