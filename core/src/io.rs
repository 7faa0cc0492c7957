//! The runtime contract: everything a runtime feeds into an [`crate::exchange::Exchange`]
//! ([`Input`]) and everything it must carry out ([`Output`]). Each output has exactly one
//! input that answers it:
//!
//! | output | answered by |
//! |---|---|
//! | `Resolve { fetch, host, port }` | `Resolved { fetch, result }` |
//! | `Connect { fetch, addr, tls }` | `Connected { fetch, result }` (TCP and, with `tls`, the TLS handshake done); with `tls`, first `TcpConnected { fetch }` when TCP is up and the handshake starts |
//! | `SendToFetch { fetch, data }` | later `FetchData` / `FetchClosed` |
//! | `Work { id, work }` | `WorkDone { id, done, took }` (run `work.run()` off the IO threads and say how long it ran), unless `CancelWork { id }` came first |
//! | `Store { id, op }` | `Stored { id, result }` (carry `op` out on the shared store, at most [`crate::store::STORE_TIMEOUT`]); the core drops answers it does not wait for ([`crate::store::StoreOp::awaits_answer`]) |
//! | `SendToClient`, `CloseClient`, `CloseFetch`, `CancelWork`, `Event`, `Settlement` | nothing |
//!
//! An answer that comes after its fetch was closed (`CloseFetch`) or its work cancelled
//! (`CancelWork`) is ignored by the core: it never changes the exchange's state.
//!
//! Reads: the runtime reads at most `Exchange::client_read_limit()` bytes of the client's
//! input before the next `ClientData`; at 0 it only watches for end of stream.
//!
//! Writes and back-pressure: outputs are carried out in order, and a runtime finishes one
//! `SendToClient`/`SendToFetch` before it carries out the next output (so a slow reader holds
//! back only its own exchange, whose outputs wait in its queue). Write deadlines are the
//! core's, like every other: the runtime reports `ClientWritten` when a `SendToClient` write
//! has completed, and keeps serving `poll_timeout()` while a write is in progress. Each client
//! write gets [`WRITE_TIMEOUT`] from when it was handed out; past it the core gives the client
//! up (`Exchange::client_writable()` turns false) and the runtime abandons the write. A fetch
//! write is abandoned when the fetch is no longer the exchange's (`Exchange::has_fetch`: the
//! core closed it at one of its deadlines). A write that fails is reported as `ClientClosed`
//! or `FetchClosed`.
//!
//! ## A runtime's loop
//!
//! A runtime wraps each exchange in a [`crate::driver::Driver`], which holds every rule of the
//! loop (answers owed, the one timer, what to read, writes that outlive a deadline); the
//! runtime only does the IO. Its whole loop, with the IO left to `Io` (the smol and tokio
//! runtimes are this loop over their own sockets, tasks and timers):
//!
//! ```no_run
//! use std::time::{Instant, SystemTime, UNIX_EPOCH};
//! use contact_core::driver::{ClientRead, Driver, Happened, WriteEnd};
//! use contact_core::io::{FetchId, Now, Output};
//!
//! /// The runtime's primitives (blocking here; `async` in a real runtime).
//! trait Io {
//!     /// Writes to the client (or to `fetch`), serving `Driver::write_deadline_passed`.
//!     fn write(&mut self, driver: &mut Driver, to: Option<FetchId>, bytes: &[u8]) -> WriteEnd;
//!     /// Starts what the output asks for (DNS, connect, work, closing, logging).
//!     fn start(&mut self, output: Output);
//!     /// Waits for the first of: the client as `read` says, an answer from a helper task
//!     /// (if `answers`), the timer armed at `timer`, drain or cut.
//!     fn wait(&mut self, read: ClientRead, answers: bool, timer: Option<Instant>) -> Happened<'_>;
//! }
//!
//! fn run(mut driver: Driver, io: &mut impl Io) {
//!     let mut timer = None;
//!     loop {
//!         while let Some(output) = driver.poll_output() {
//!             match output {
//!                 Output::SendToClient(bytes) => {
//!                     let end = io.write(&mut driver, None, &bytes);
//!                     driver.client_write_done(end, Instant::now());
//!                 }
//!                 Output::SendToFetch { fetch, data } => {
//!                     let end = io.write(&mut driver, Some(fetch), &data);
//!                     driver.fetch_write_done(fetch, end, Instant::now());
//!                 }
//!                 other => io.start(other),
//!             }
//!         }
//!         if driver.is_finished() {
//!             return;
//!         }
//!         if let Some(at) = driver.arm_timer() {
//!             timer = Some(at);
//!         }
//!         let timer = if driver.timer_armed() { timer } else { None };
//!         let (read, answers) = (driver.client_read(), driver.expects_answers());
//!         let happened = io.wait(read, answers, timer);
//!         // Both clocks, read at every event (the wall clock for payment windows and leases).
//!         let unix = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
//!         driver.handle(happened, Now { at: Instant::now(), unix });
//!     }
//! }
//! ```

use std::net::IpAddr;
use std::time::{Duration, Instant};

pub use crate::effects::{
    FetchId, IoFailure, Output, PaymentVerdict, RequestEvent, SettlementEvent,
};
use crate::store::{StoreFailure, StoreId, StoreReply};
use crate::work::{WorkDone, WorkId};

/// When an event happened, as the runtime read it at that event: the monotonic instant (every
/// deadline is one) and the wall clock, time since the UNIX epoch (payment windows, leases
/// and record lifetimes are unix seconds). Both are read at every event, so a step of the wall
/// clock (NTP, a VM paused and resumed) is followed from the next event on (docs/payments.md,
/// "The wall clock").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    /// The monotonic clock (`Instant::now()`).
    pub at: Instant,
    /// The wall clock (`SystemTime::now()` since `UNIX_EPOCH`).
    pub unix: Duration,
}

/// Longest a write to the client may take (from when the core hands it out) before the core
/// gives the client up (see the module docs).
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Something that happened, for the core.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input<'a> {
    /// Bytes read from the client.
    ClientData(&'a [u8]),
    /// The client closed or reset the connection.
    ClientClosed,
    /// A `SendToClient` write has completed (the core times writes: see the module docs).
    ClientWritten,
    /// The answer to `Output::Resolve`.
    Resolved {
        /// Which fetch.
        fetch: FetchId,
        /// The addresses, or why there are none.
        result: Result<Vec<IpAddr>, IoFailure>,
    },
    /// The answer to `Output::Connect`.
    Connected {
        /// Which fetch.
        fetch: FetchId,
        /// Whether the (TLS) connection is up.
        result: Result<(), IoFailure>,
    },
    /// Progress of a `Connect` with TLS: TCP is up and the handshake starts (the core gives
    /// the handshake its own deadline, docs/contract.md: connect 5 s, TLS 5 s). Not an answer:
    /// `Connected` still follows. A runtime that never sends it gets one 5 s deadline for
    /// both steps.
    TcpConnected {
        /// Which fetch.
        fetch: FetchId,
    },
    /// Plaintext bytes from an outbound connection.
    FetchData {
        /// Which fetch.
        fetch: FetchId,
        /// The bytes.
        data: &'a [u8],
    },
    /// The outbound connection reached end of stream (or failed after connecting).
    FetchClosed {
        /// Which fetch.
        fetch: FetchId,
    },
    /// The answer to `Output::Work`.
    WorkDone {
        /// Which work.
        id: WorkId,
        /// What `Work::run` returned.
        done: WorkDone,
        /// How long `Work::run` ran on its worker: the worker thread's CPU time (measured by
        /// the runtime: the core reads no clock; time spent waiting for a core does not
        /// count). A page that took longer than
        /// [`crate::budget::PAGE_WORK_BUDGET`] is treated as too costly to process.
        took: Duration,
    },
    /// The answer to `Output::Store`.
    Stored {
        /// Which operation.
        id: StoreId,
        /// The shared store's answer, or why there is none.
        result: Result<StoreReply, StoreFailure>,
    },
}
