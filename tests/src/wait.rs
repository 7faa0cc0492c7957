//! Waits on an observable condition, instead of sleeps used as synchronisation: a test polls
//! what it waits for (a port that accepts, a log line, a counter, a process that exits) and
//! gives up with a message naming it. Every wait is bounded twice: by time and by a count of
//! polls.

use std::time::{Duration, Instant};

/// How often a wait looks again.
pub const POLL: Duration = Duration::from_millis(20);

/// Polls `condition` every [`POLL`] until it holds; panics naming `what` once `limit` has
/// passed.
///
/// # Panics
///
/// When `condition` does not hold within `limit`.
pub fn wait_until(what: &str, limit: Duration, mut condition: impl FnMut() -> bool) {
    wait_for(what, limit, || condition().then_some(()));
}

/// Polls `probe` every [`POLL`] until it yields a value, and returns that value; panics naming
/// `what` once `limit` has passed.
///
/// # Panics
///
/// When `probe` yields nothing within `limit`.
pub fn wait_for<T>(what: &str, limit: Duration, probe: impl FnMut() -> Option<T>) -> T {
    wait_for_every(what, limit, POLL, probe)
}

/// [`wait_for`], looking again every `every` (for a probe that costs something, such as a
/// paid request).
///
/// # Panics
///
/// When `probe` yields nothing within `limit`.
pub fn wait_for_every<T>(
    what: &str,
    limit: Duration,
    every: Duration,
    probe: impl FnMut() -> Option<T>,
) -> T {
    let started = Instant::now();
    poll(limit, every, probe).unwrap_or_else(|| {
        panic!(
            "gave up waiting for {what} after {:?} (limit {limit:?})",
            started.elapsed()
        )
    })
}

/// Polls `condition` every [`POLL`] until it holds (`true`) or `limit` has passed (`false`),
/// without panicking: for a fixture's thread, which must answer whatever happens.
pub fn holds_within(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    poll(limit, POLL, || condition().then_some(())).is_some()
}

/// The polling loop: at most `limit / every + 2` looks, none after `limit`.
fn poll<T>(limit: Duration, every: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let started = Instant::now();
    let every = every.max(Duration::from_millis(1));
    let looks = limit.as_millis() / every.as_millis() + 2;
    for _ in 0..looks {
        if let Some(value) = probe() {
            return Some(value);
        }
        let left = limit.saturating_sub(started.elapsed());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(every.min(left));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_that_holds_returns_at_once() {
        let started = Instant::now();
        assert_eq!(wait_for("a value", Duration::from_secs(5), || Some(7)), 7);
        assert!(started.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn a_condition_that_comes_true_is_seen() {
        let mut looks = 0;
        wait_until("the third look", Duration::from_secs(5), || {
            looks += 1;
            looks == 3
        });
        assert_eq!(looks, 3);
    }

    #[test]
    fn a_condition_that_never_holds_gives_up_after_the_limit() {
        let started = Instant::now();
        let mut looks = 0;
        assert!(!holds_within(Duration::from_millis(100), || {
            looks += 1;
            false
        }));
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(100), "{took:?}");
        assert!(took < Duration::from_secs(2), "{took:?}");
        assert!(looks <= 100 / 20 + 2, "{looks} looks");
    }

    #[test]
    #[should_panic(expected = "gave up waiting for nothing")]
    fn a_wait_that_gives_up_names_what_it_waited_for() {
        wait_until("nothing", Duration::from_millis(50), || false);
    }
}
