//! [`Driver`]: everything a runtime's connection loop must decide, without IO. A runtime owns
//! the sockets, the timer, the DNS and connect tasks and the worker pool; the driver owns the
//! rules: which outputs to carry out, which answers to feed (an answer for something the core
//! cancelled meanwhile is dropped), what to read from the client next, when to (re-)arm the one
//! timer, and how a write that outlives a deadline ends. So a runtime's loop is a `select` over
//! its own primitives (the contract and a compiled run loop: [`crate::io`]).
//!
//! Its parts are usable alone too:
//! - [`Owed`]: which answers the driver still owes the core (to `Resolve`/`Connect` per fetch,
//!   to `Work` per id).
//! - [`TimerRule`]: one timer per connection, re-armed only when the exchange's deadline moves
//!   earlier — a keep-alive connection pushes its deadline later with every request, and
//!   re-arming per request would cost a reactor round trip each time; a timer that fires
//!   before the current deadline is re-armed, not reported.

use std::time::{Duration, Instant};

use crate::exchange::Exchange;
use crate::io::{FetchId, Input, Now, Output};
use crate::store::StoreId;
use crate::work::WorkId;

/// Bytes a runtime reads from a client at a time (requests are small; this is per idle
/// connection).
pub const CLIENT_READ_CHUNK: usize = 4 * 1024;

/// Shortest wait a runtime arms on a deadline while a write is in progress, so a deadline the
/// exchange does not move cannot make it spin.
pub const MIN_TIMER_STEP: Duration = Duration::from_millis(5);

/// What the runtime reads from the client next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientRead {
    /// Read at most this many bytes (into a buffer of [`CLIENT_READ_CHUNK`]).
    Bytes(usize),
    /// Read nothing; only learn whether the client closed (a peek of 0 bytes is its end of
    /// stream; bytes waiting are [`Happened::ClientWaiting`]). The exchange's input is full.
    Peek,
    /// Do not watch the client (it closed, or bytes are known to wait).
    Nothing,
}

/// How a write the runtime carried out (`SendToClient` or `SendToFetch`) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteEnd {
    /// All bytes written.
    Done,
    /// The peer failed it (reset, closed).
    Failed,
    /// The core no longer wanted it ([`Driver::write_deadline_passed`] said so).
    Abandoned,
}

/// Something that happened, as a runtime saw it.
#[derive(Debug)]
pub enum Happened<'a> {
    /// An input of the runtime contract ([`crate::io`]).
    Input(Input<'a>),
    /// A [`ClientRead::Peek`] found bytes waiting.
    ClientWaiting,
    /// The timer armed at [`Driver::arm_timer`]'s instant fired.
    TimerFired,
    /// The service started draining ([`crate::server::Server::begin_drain`]).
    Drain,
    /// The process is exiting before this connection finished.
    Cut,
}

/// One connection's (or client-less exchange's) driver state: the [`Exchange`] and the
/// bookkeeping around it. A runtime's loop:
///
/// 1. carry out every [`Driver::poll_output`] in order (a write serves deadlines meanwhile:
///    [`Driver::write_deadline_passed`]; report its end with [`Driver::client_write_done`] or
///    [`Driver::fetch_write_done`]);
/// 2. stop when [`Driver::is_finished`];
/// 3. (re-)arm its timer at [`Driver::arm_timer`], then wait for the first of: the client as
///    [`Driver::client_read`] says, an answer from its helper tasks (when
///    [`Driver::expects_answers`]), the timer (when [`Driver::timer_armed`]), drain and cut;
/// 4. feed it with [`Driver::handle`], and go to 1.
#[derive(Debug)]
pub struct Driver {
    exchange: Exchange,
    owed: Owed,
    timer: TimerRule,
    client_open: bool,
    client_writable: bool,
    /// The client has bytes waiting that the exchange does not take yet: the socket stays
    /// readable, so watching it again before the read limit grows would spin.
    client_waiting: bool,
    /// Outbound connections up and not yet closed by the core.
    open_fetches: Vec<FetchId>,
    drain_told: bool,
    cut_told: bool,
}

impl Driver {
    /// A driver for `exchange`; `has_client`: whether a client connection exists (`false` for
    /// an operator's crawl or a facilitator check).
    pub fn new(exchange: Exchange, has_client: bool) -> Driver {
        Driver {
            exchange,
            owed: Owed::default(),
            timer: TimerRule::default(),
            client_open: has_client,
            client_writable: has_client,
            client_waiting: false,
            open_fetches: Vec::new(),
            drain_told: false,
            cut_told: false,
        }
    }

    /// The next output to carry out, in order. A `SendToClient` for a client that is gone (a
    /// failed write, or one given up at its deadline) is dropped here.
    pub fn poll_output(&mut self) -> Option<Output> {
        loop {
            let output = self.exchange.poll_output()?;
            self.owed.note(&output);
            match &output {
                Output::SendToClient(_) if !self.client_writable => continue,
                Output::CloseFetch { fetch } => self.open_fetches.retain(|f| f != fetch),
                _ => {}
            }
            return Some(output);
        }
    }

    /// Whether the exchange is over: the runtime stops (and cancels work still running).
    pub fn is_finished(&self) -> bool {
        self.exchange.is_finished()
    }

    /// The deadline to serve while a write is in progress (the exchange's next deadline).
    pub fn deadline_during_write(&self) -> Option<Instant> {
        self.exchange.poll_timeout()
    }

    /// The deadline armed during a write (`deadline_during_write`, not before now +
    /// [`MIN_TIMER_STEP`]) passed at `now`: the exchange is told, and the answer is whether the
    /// write (to the client, or to `fetch`) is still wanted; `false`: abandon it and report
    /// [`WriteEnd::Abandoned`].
    pub fn write_deadline_passed(&mut self, now: Instant, fetch: Option<FetchId>) -> bool {
        self.exchange.handle_timeout(now);
        match fetch {
            None => self.exchange.client_writable(),
            Some(fetch) => self.exchange.has_fetch(fetch),
        }
    }

    /// A `SendToClient` write ended.
    pub fn client_write_done(&mut self, end: WriteEnd, now: Instant) {
        match end {
            WriteEnd::Done => self.exchange.handle_input(Input::ClientWritten, now),
            WriteEnd::Abandoned => self.client_writable = false,
            WriteEnd::Failed if self.client_writable => {
                self.client_writable = false;
                self.exchange.handle_input(Input::ClientClosed, now);
            }
            WriteEnd::Failed => {}
        }
    }

    /// A `SendToFetch` write to `fetch` ended (a failure is the connection's end).
    pub fn fetch_write_done(&mut self, fetch: FetchId, end: WriteEnd, now: Instant) {
        if end == WriteEnd::Failed {
            self.handle_at(Happened::Input(Input::FetchClosed { fetch }), now);
        }
    }

    /// What to read from the client next.
    pub fn client_read(&mut self) -> ClientRead {
        let limit = self.exchange.client_read_limit().min(CLIENT_READ_CHUNK);
        if limit > 0 {
            self.client_waiting = false;
        }
        if !self.client_open || self.client_waiting {
            ClientRead::Nothing
        } else if limit == 0 {
            ClientRead::Peek
        } else {
            ClientRead::Bytes(limit)
        }
    }

    /// The instant to (re-)arm the timer at, if it must move ([`TimerRule`]).
    pub fn arm_timer(&mut self) -> Option<Instant> {
        self.timer.arm(self.exchange.poll_timeout())
    }

    /// Whether the timer is armed (wait on it only then).
    pub fn timer_armed(&self) -> bool {
        self.timer.is_armed()
    }

    /// Whether answers may come from helper tasks: a DNS or connect answer, fetched bytes, or
    /// work owed. With none (and nothing queued), a runtime need not listen for them.
    pub fn expects_answers(&self) -> bool {
        self.owed.awaits_any() || !self.open_fetches.is_empty()
    }

    /// Feeds what happened at `now`. Returns `false` when it was dropped: an answer for
    /// something the core cancelled meanwhile, or bytes from a connection it closed — for a
    /// `Connected`, the runtime then drops the connection; for `Ok`, it keeps it.
    /// The wall clock in `now` becomes the server's from this event on.
    pub fn handle(&mut self, happened: Happened<'_>, now: Now) -> bool {
        self.exchange.observe_wall_clock(now);
        self.handle_at(happened, now.at)
    }

    /// [`Driver::handle`] at a monotonic instant, the wall clock as last observed.
    fn handle_at(&mut self, happened: Happened<'_>, now: Instant) -> bool {
        match happened {
            Happened::TimerFired => {
                if self.timer.fired(now, self.exchange.poll_timeout()) {
                    self.exchange.handle_timeout(now);
                }
            }
            Happened::Drain => {
                if !std::mem::replace(&mut self.drain_told, true) {
                    self.exchange.handle_drain(now);
                }
            }
            Happened::Cut => {
                if !std::mem::replace(&mut self.cut_told, true) {
                    self.exchange.cut_short(now);
                }
            }
            Happened::ClientWaiting => self.client_waiting = true,
            Happened::Input(input) => {
                match &input {
                    Input::ClientClosed => self.client_open = false,
                    Input::FetchData { fetch, .. } | Input::FetchClosed { fetch }
                        if !self.open_fetches.contains(fetch) =>
                    {
                        return false;
                    }
                    _ => {}
                }
                if !self.owed.accept(&input) {
                    return false;
                }
                if let Input::Connected {
                    fetch,
                    result: Ok(()),
                } = &input
                {
                    self.open_fetches.push(*fetch);
                }
                self.exchange.handle_input(input, now);
            }
        }
        true
    }

    /// The exchange, once the driver is done with it (e.g. to take an unpaid crawl's outcome).
    pub fn into_exchange(self) -> Exchange {
        self.exchange
    }
}

/// The answers a driver still owes its exchange.
#[derive(Debug, Default)]
pub struct Owed {
    fetches: Vec<FetchId>,
    work: Vec<WorkId>,
    stores: Vec<StoreId>,
}

impl Owed {
    /// Notes an output the driver is carrying out: `Resolve`, `Connect`, `Work` and a `Store`
    /// the exchange waits for are owed an answer; `CloseFetch` and `CancelWork` cancel what
    /// was owed.
    pub fn note(&mut self, output: &Output) {
        match output {
            Output::Resolve { fetch, .. } | Output::Connect { fetch, .. } => {
                self.fetches.push(*fetch);
            }
            Output::CloseFetch { fetch } => self.fetches.retain(|f| f != fetch),
            Output::Work { id, .. } => self.work.push(*id),
            Output::CancelWork { id } => self.work.retain(|w| w != id),
            Output::Store { id, op } if op.awaits_answer() => self.stores.push(*id),
            Output::Store { .. } => {}
            Output::SendToClient(_)
            | Output::CloseClient
            | Output::SendToFetch { .. }
            | Output::Event(_)
            | Output::Settlement(_) => {}
        }
    }

    /// Whether `input` should be fed to the exchange. An answer (`Resolved`, `Connected`,
    /// `WorkDone`) is fed once, and only while owed; everything else always is.
    pub fn accept(&mut self, input: &Input<'_>) -> bool {
        match input {
            Input::Resolved { fetch, .. } | Input::Connected { fetch, .. } => {
                self.answer_fetch(*fetch)
            }
            Input::WorkDone { id, .. } => self.answer_work(*id),
            Input::Stored { id, .. } => take(&mut self.stores, id),
            // Progress, not the answer: fed while the connect is owed, which it stays.
            Input::TcpConnected { fetch } => self.awaits_fetch(*fetch),
            Input::ClientData(_)
            | Input::ClientClosed
            | Input::ClientWritten
            | Input::FetchData { .. }
            | Input::FetchClosed { .. } => true,
        }
    }

    /// An answer to `fetch`'s `Resolve`/`Connect` arrived: `true` (feed it) when it was owed,
    /// and then no longer.
    pub fn answer_fetch(&mut self, fetch: FetchId) -> bool {
        take(&mut self.fetches, &fetch)
    }

    /// An answer to work `id` arrived: `true` (feed it) when it was owed, and then no longer.
    pub fn answer_work(&mut self, id: WorkId) -> bool {
        take(&mut self.work, &id)
    }

    /// Whether work is still owed an answer (the driver must keep listening for it).
    pub fn awaits_work(&self) -> bool {
        !self.work.is_empty()
    }

    /// Whether any answer (DNS, connect, work, store) is still owed.
    pub fn awaits_any(&self) -> bool {
        !self.work.is_empty() || !self.fetches.is_empty() || !self.stores.is_empty()
    }

    /// Whether `fetch` is still owed its DNS or connect answer.
    pub fn awaits_fetch(&self, fetch: FetchId) -> bool {
        self.fetches.contains(&fetch)
    }
}

fn take<T: PartialEq>(owed: &mut Vec<T>, item: &T) -> bool {
    match owed.iter().position(|x| x == item) {
        Some(position) => {
            owed.swap_remove(position);
            true
        }
        None => false,
    }
}

/// When to (re-)arm a connection's one timer.
#[derive(Debug, Default)]
pub struct TimerRule {
    armed: Option<Instant>,
}

impl TimerRule {
    /// Given the exchange's `poll_timeout()`, the instant to arm the timer at, if it must
    /// move: nothing is armed, or the deadline is earlier than the armed one.
    pub fn arm(&mut self, deadline: Option<Instant>) -> Option<Instant> {
        let at = deadline.filter(|at| self.armed.is_none_or(|armed| *at < armed))?;
        self.armed = Some(at);
        Some(at)
    }

    /// Whether a timer is armed (a driver waits on it only then).
    pub fn is_armed(&self) -> bool {
        self.armed.is_some()
    }

    /// The armed timer fired at `now` (it is one-shot: nothing is armed now). `true` when the
    /// exchange's `deadline` has been reached — call `handle_timeout`; `false` when it moved
    /// later meanwhile — re-arm on the next turn instead.
    pub fn fired(&mut self, now: Instant, deadline: Option<Instant>) -> bool {
        self.armed = None;
        deadline.is_some_and(|at| now >= at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::IoFailure;
    use std::time::Duration;

    #[test]
    fn answers_are_fed_once_and_only_while_owed() {
        let mut owed = Owed::default();
        let fetch = FetchId(1);
        owed.note(&Output::Resolve {
            fetch,
            host: "a.example".into(),
            port: 443,
        });
        assert!(owed.awaits_fetch(fetch));
        let answer = Input::Resolved {
            fetch,
            result: Err(IoFailure::Refused),
        };
        assert!(owed.accept(&answer));
        assert!(!owed.accept(&answer), "a second answer is dropped");
        // Cancelled before its answer came: the late answer is dropped.
        owed.note(&Output::Resolve {
            fetch: FetchId(2),
            host: "b.example".into(),
            port: 443,
        });
        owed.note(&Output::CloseFetch { fetch: FetchId(2) });
        assert!(!owed.accept(&Input::Resolved {
            fetch: FetchId(2),
            result: Ok(vec![]),
        }));
        owed.note(&Output::CancelWork { id: WorkId(9) });
        assert!(!owed.awaits_work());
        assert!(owed.accept(&Input::ClientClosed));
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // the test needs one arbitrary base instant
    fn the_timer_moves_only_earlier_and_a_premature_fire_is_not_reported() {
        let start = Instant::now();
        let (t10, t20, t5) = (
            start + Duration::from_secs(10),
            start + Duration::from_secs(20),
            start + Duration::from_secs(5),
        );
        let mut rule = TimerRule::default();
        assert_eq!(rule.arm(Some(t10)), Some(t10));
        assert_eq!(
            rule.arm(Some(t20)),
            None,
            "a later deadline keeps the timer"
        );
        assert_eq!(rule.arm(Some(t5)), Some(t5), "an earlier one moves it");
        // It fires at 5 s while the deadline has moved to 20 s: not reported, disarmed.
        assert!(!rule.fired(t5, Some(t20)));
        assert!(!rule.is_armed());
        assert_eq!(rule.arm(Some(t20)), Some(t20));
        assert!(rule.fired(t20, Some(t20)));
        assert_eq!(rule.arm(None), None);
    }
}
