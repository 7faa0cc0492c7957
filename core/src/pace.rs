//! Cooperative pacing of long CPU work (no request can hurt the others).
//!
//! A page's decoding and extraction runs on a worker thread for a few milliseconds to a few
//! hundred (crafted 2 MiB pages). Where the workers share cores with the IO threads, the OS
//! takes a core back from a running low-priority worker only at its next scheduler tick (4 ms
//! at Linux's common `CONFIG_HZ=250`), so every stretch of extraction can hold the unpaid 402
//! path up for a tick: measured with `benches/load/heavy.sh`, its p99 went from ≈ 2 ms to
//! ≈ 5.3 ms during crawls of crafted pages. A worker that offers the core back every fraction
//! of a millisecond keeps its CPU share and no longer holds anyone up for a tick.
//!
//! So the core reports its progress: each loop whose work grows with the page calls [`work`]
//! with the units it did (about one per byte examined; costlier steps count more). Every
//! [`QUANTUM`] units the [`Pacer`] the runtime installed on this thread ([`with_pacer`]) is
//! asked whether to go on. A runtime's pacer yields the core there and answers
//! [`Pace::Stop`] once the work's CPU budget ([`crate::work::Work::cpu_budget`]: a page's 3 s)
//! is spent or nobody waits for the answer any more; from then on [`work`] returns `false` and
//! the loops end early, so a page nobody foresaw cannot hold a worker for minutes (its partial
//! result is thrown away: the work ran over budget, or was cancelled).
//!
//! The core reads no clock: without a pacer (tests, the CLI's offline extraction) [`work`]
//! only counts. As with tokio's cooperative budget (`tokio::task::coop`), the state is
//! thread-local, so the extractors keep their signatures and a pacer covers whatever runs on
//! its thread inside [`with_pacer`].

use std::cell::{Cell, RefCell};
use std::panic::Location;

/// Units of work between two calls of the pacer (about bytes of page examined: 8 KiB is tens
/// of microseconds of extraction, so a pacer that reads a clock at every call costs < 0.1 %).
pub const QUANTUM: usize = 8 * 1024;

/// A pacer's answer at a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Go on.
    Continue,
    /// Stop the work: every later [`work`] call on this thread returns `false` until
    /// [`with_pacer`] returns.
    Stop,
}

/// Decides at each checkpoint whether the work goes on (and may yield the thread there).
pub trait Pacer {
    /// Called every [`QUANTUM`] units of work; `at` is the call of [`work`] that reached it
    /// (for diagnostics: which loop ran long between two checkpoints).
    fn checkpoint(&mut self, at: &'static Location<'static>) -> Pace;
}

thread_local! {
    static UNITS: Cell<usize> = const { Cell::new(0) };
    static STOPPED: Cell<bool> = const { Cell::new(false) };
    static PACER: RefCell<Option<Box<dyn Pacer>>> = const { RefCell::new(None) };
}

/// Records `units` of work done on this thread and returns whether to go on: `false` once the
/// installed pacer said [`Pace::Stop`] (the caller ends its loop). Without a pacer, always
/// `true`.
#[track_caller]
#[inline]
pub fn work(units: usize) -> bool {
    let done = UNITS.get().saturating_add(units);
    if done < QUANTUM {
        UNITS.set(done);
        return !STOPPED.get();
    }
    UNITS.set(0);
    checkpoint(Location::caller())
}

/// Whether the installed pacer has stopped the work (see [`work`]).
pub fn stopped() -> bool {
    STOPPED.get()
}

#[cold]
fn checkpoint(at: &'static Location<'static>) -> bool {
    if STOPPED.get() {
        return false;
    }
    let pace = PACER.with_borrow_mut(|pacer| {
        pacer
            .as_mut()
            .map_or(Pace::Continue, |pacer| pacer.checkpoint(at))
    });
    if pace == Pace::Stop {
        STOPPED.set(true);
    }
    pace == Pace::Continue
}

/// What [`with_pacer`] returns.
#[derive(Debug)]
pub struct Paced<T> {
    /// What the work returned (partial if [`Paced::stopped`]).
    pub output: T,
    /// Whether the pacer stopped the work.
    pub stopped: bool,
}

/// Runs `work` with `pacer` installed on this thread, then restores what was installed before
/// (also when `work` panics).
pub fn with_pacer<T>(pacer: Box<dyn Pacer>, work: impl FnOnce() -> T) -> Paced<T> {
    struct Restore {
        units: usize,
        stopped: bool,
        pacer: Option<Box<dyn Pacer>>,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            UNITS.set(self.units);
            STOPPED.set(self.stopped);
            PACER.set(self.pacer.take());
        }
    }
    let _restore = Restore {
        units: UNITS.replace(0),
        stopped: STOPPED.replace(false),
        pacer: PACER.replace(Some(pacer)),
    };
    let output = work();
    Paced {
        output,
        stopped: STOPPED.get(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    /// Counts its checkpoints and stops at the `stop_at`-th.
    struct Counting {
        calls: Rc<Cell<usize>>,
        stop_at: usize,
    }

    impl Pacer for Counting {
        fn checkpoint(&mut self, _at: &'static Location<'static>) -> Pace {
            self.calls.set(self.calls.get() + 1);
            if self.calls.get() >= self.stop_at {
                Pace::Stop
            } else {
                Pace::Continue
            }
        }
    }

    fn counting(stop_at: usize) -> (Box<dyn Pacer>, Rc<Cell<usize>>) {
        let calls = Rc::new(Cell::new(0));
        let pacer = Counting {
            calls: Rc::clone(&calls),
            stop_at,
        };
        (Box::new(pacer), calls)
    }

    #[test]
    fn the_pacer_is_asked_once_per_quantum() {
        let (pacer, calls) = counting(usize::MAX);
        let paced = with_pacer(pacer, || {
            for _ in 0..10 * QUANTUM {
                assert!(work(1));
            }
            work(5 * QUANTUM)
        });
        assert!(paced.output);
        assert!(!paced.stopped);
        assert_eq!(calls.get(), 11);
    }

    #[test]
    fn a_stop_ends_every_later_call_until_the_pacer_is_removed() {
        let (pacer, calls) = counting(3);
        let paced = with_pacer(pacer, || {
            let mut loops = 0;
            while work(QUANTUM) {
                loops += 1;
                assert!(loops < 100, "the stop was not seen");
            }
            (loops, work(1), stopped())
        });
        assert_eq!(paced.output, (2, false, true));
        assert!(paced.stopped);
        assert_eq!(calls.get(), 3);
        // Outside the pacer's reach: work goes on, uncounted.
        assert!(work(10 * QUANTUM));
        assert!(!stopped());
    }

    #[test]
    fn without_a_pacer_work_always_goes_on() {
        for _ in 0..3 {
            assert!(work(QUANTUM));
        }
        assert!(!stopped());
    }

    #[test]
    fn nested_pacers_restore_the_outer_one_also_after_a_panic() {
        let (outer, outer_calls) = counting(usize::MAX);
        let paced = with_pacer(outer, || {
            let (inner, inner_calls) = counting(1);
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                with_pacer(inner, || {
                    assert!(!work(QUANTUM));
                    panic!("an extractor's bug");
                })
            }));
            assert!(caught.is_err());
            assert_eq!(inner_calls.get(), 1);
            // The outer pacer is back, and not stopped.
            assert!(work(QUANTUM));
        });
        assert!(!paced.stopped);
        assert_eq!(outer_calls.get(), 1);
    }
}
