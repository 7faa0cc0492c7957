//! IO-free bookkeeping that every runtime's connection driver needs, kept here so each runtime
//! (smol now, tokio next) only adds its own IO primitives:
//!
//! - [`Owed`]: which answers the driver still owes the core (to `Resolve`/`Connect` per fetch,
//!   to `Work` per id), so an answer for something the core cancelled meanwhile is dropped
//!   instead of fed (the contract of [`crate::io`]).
//! - [`TimerRule`]: one timer per connection, re-armed only when the exchange's deadline moves
//!   earlier — a keep-alive connection pushes its deadline later with every request, and
//!   re-arming per request would cost a reactor round trip each time; a timer that fires
//!   before the current deadline is re-armed, not reported.

use std::time::Instant;

use crate::io::{FetchId, Input, Output};
use crate::work::WorkId;

/// The answers a driver still owes its exchange.
#[derive(Debug, Default)]
pub struct Owed {
    fetches: Vec<FetchId>,
    work: Vec<WorkId>,
}

impl Owed {
    /// Notes an output the driver is carrying out: `Resolve`, `Connect` and `Work` are owed an
    /// answer; `CloseFetch` and `CancelWork` cancel what was owed.
    pub fn note(&mut self, output: &Output) {
        match output {
            Output::Resolve { fetch, .. } | Output::Connect { fetch, .. } => {
                self.fetches.push(*fetch);
            }
            Output::CloseFetch { fetch } => self.fetches.retain(|f| f != fetch),
            Output::Work { id, .. } => self.work.push(*id),
            Output::CancelWork { id } => self.work.retain(|w| w != id),
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
