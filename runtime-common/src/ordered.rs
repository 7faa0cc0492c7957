//! A parallel map that hands its results back in input order: `extract-dir --jobs N`'s output
//! is the same bytes whatever N is.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

/// How far (in items) a worker may run ahead of the oldest result not yet handed back, per
/// worker: bounds the results held for reordering when one item is slow.
const AHEAD_PER_WORKER: usize = 16;

/// Runs `work(item, scratch)` for every item on `workers` threads, the calling thread one of
/// them (each with its own `scratch`, reused across its items), and calls `each` with the
/// results in the order of `items`, on the calling thread, between its own items. At most
/// `workers × 16` results wait to be handed back. A panic in `work` on any thread ends the map
/// with that panic once the other threads have stopped (never a hang).
///
/// The calling thread works rather than waits: a thread that only hands results back is woken
/// for every item, and on a machine with as many cores as workers each wake-up takes a core
/// from a worker (two context switches per item).
pub fn map<T: Sync, S: Default, R: Send>(
    items: &[T],
    workers: usize,
    work: impl Fn(&T, &mut S) -> R + Sync,
    mut each: impl FnMut(R),
) {
    let workers = workers.clamp(1, items.len().max(1));
    if workers == 1 {
        // One worker is the calling thread: no hand-off between threads for every item.
        let mut scratch = S::default();
        for item in items {
            each(work(item, &mut scratch));
        }
        return;
    }
    let shared = Shared {
        window: workers * AHEAD_PER_WORKER,
        next: AtomicUsize::new(0),
        handed: Mutex::new(0),
        moved: Condvar::new(),
        stopped: AtomicBool::new(false),
    };
    let (send, receive) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for _ in 1..workers {
            let send = send.clone();
            let (shared, work) = (&shared, &work);
            scope.spawn(move || {
                // A panic here stops the others (they would wait for this item forever).
                let _stop = StopOnPanic(shared);
                let mut scratch = S::default();
                while let Some((index, item)) = shared.take(items) {
                    if !shared.wait_for_window(index) {
                        return;
                    }
                    if send.send((index, work(item, &mut scratch))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(send);
        let _stop = StopOnPanic(&shared);
        let mut order = InOrder {
            waiting: BTreeMap::new(),
            turn: 0,
        };
        let mut scratch = S::default();
        while let Some((index, item)) = shared.take(items) {
            // Hand back what the others finished meanwhile; past the window, wait for them.
            while let Ok((done, result)) = receive.try_recv() {
                order.waiting.insert(done, result);
            }
            order.hand_back(&shared, &mut each);
            while index >= order.turn + shared.window {
                let Ok((done, result)) = receive.recv() else {
                    // Every other worker has ended without the results this one waits for:
                    // one panicked, and the scope ends with its panic.
                    return;
                };
                order.waiting.insert(done, result);
                order.hand_back(&shared, &mut each);
            }
            order.waiting.insert(index, work(item, &mut scratch));
            order.hand_back(&shared, &mut each);
        }
        for (done, result) in receive {
            order.waiting.insert(done, result);
            order.hand_back(&shared, &mut each);
        }
    });
}

/// What the threads of one [`map`] share.
struct Shared {
    /// How far (in items) a thread may run ahead of the oldest result not yet handed back.
    window: usize,
    /// The index of the next item to take.
    next: AtomicUsize,
    /// The index of the oldest result not yet handed back; workers wait on it ([`Self::moved`])
    /// to stay within the window.
    handed: Mutex<usize>,
    moved: Condvar,
    /// Set when a thread panicked: the others take no more items and stop waiting.
    stopped: AtomicBool,
}

impl Shared {
    /// The next item and its index; `None` when all are taken or a thread panicked.
    fn take<'a, T>(&self, items: &'a [T]) -> Option<(usize, &'a T)> {
        if self.stopped.load(Ordering::Relaxed) {
            return None;
        }
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        items.get(index).map(|item| (index, item))
    }

    /// Waits until item `index` is within the window; `false` when a thread panicked.
    fn wait_for_window(&self, index: usize) -> bool {
        let mut oldest = self.handed.lock().unwrap_or_else(|e| e.into_inner());
        while index >= *oldest + self.window {
            if self.stopped.load(Ordering::Relaxed) {
                return false;
            }
            oldest = self.moved.wait(oldest).unwrap_or_else(|e| e.into_inner());
        }
        !self.stopped.load(Ordering::Relaxed)
    }
}

/// Sets [`Shared::stopped`] and wakes the waiting workers when its thread unwinds.
struct StopOnPanic<'a>(&'a Shared);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stopped.store(true, Ordering::Relaxed);
            // Under the lock: a worker between its check and its wait would miss the wake-up.
            let _oldest = self.0.handed.lock().unwrap_or_else(|e| e.into_inner());
            self.0.moved.notify_all();
        }
    }
}

/// The results waiting for their turn on the calling thread.
struct InOrder<R> {
    waiting: BTreeMap<usize, R>,
    /// The index of the next result to hand back.
    turn: usize,
}

impl<R> InOrder<R> {
    /// Hands back the results whose turn has come; tells the workers when the window moved.
    fn hand_back(&mut self, shared: &Shared, each: &mut impl FnMut(R)) {
        let before = self.turn;
        while let Some(result) = self.waiting.remove(&self.turn) {
            each(result);
            self.turn += 1;
        }
        if self.turn != before {
            *shared.handed.lock().unwrap_or_else(|e| e.into_inner()) = self.turn;
            shared.moved.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::map;

    #[test]
    fn results_come_back_in_input_order_whatever_the_worker_count() {
        let items: Vec<u64> = (0..500).collect();
        for workers in [1, 2, 3, 8] {
            let mut seen = Vec::new();
            // Uneven work: early items are the slowest, so later ones finish first.
            map(
                &items,
                workers,
                |&i, calls: &mut usize| {
                    *calls += 1;
                    if i % 50 == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                    i * 2
                },
                |r| seen.push(r),
            );
            let expected: Vec<u64> = items.iter().map(|i| i * 2).collect();
            assert_eq!(seen, expected, "{workers} workers");
        }
    }

    #[test]
    fn each_worker_reuses_its_scratch() {
        let items = vec![(); 100];
        let mut most = 0;
        map(
            &items,
            1,
            |(), calls: &mut usize| {
                *calls += 1;
                *calls
            },
            |n| most = most.max(n),
        );
        assert_eq!(most, 100);
    }

    /// `map` on another thread, with at most 10 s for it to end: `Err` when it panicked.
    #[allow(clippy::unwrap_in_result)] // a map that does not end fails the test
    fn ended_within_10_s(workers: usize, panic_at: u64) -> std::thread::Result<Vec<u64>> {
        let (done, ended) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let items: Vec<u64> = (0..2_000).collect();
            let result = std::panic::catch_unwind(|| {
                let mut seen = Vec::new();
                map(
                    &items,
                    workers,
                    |&i, (): &mut ()| {
                        assert!(i != panic_at, "item {i} fails");
                        i
                    },
                    |r| seen.push(r),
                );
                seen
            });
            let _ = done.send(result);
        });
        ended
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("map ends")
    }

    #[test]
    fn a_panic_in_any_worker_ends_the_map_with_it_not_a_hang() {
        for workers in [2, 3] {
            // Early, late and in-between items: whichever thread takes them.
            for panic_at in [0, 1, 5, 100, 1_999] {
                assert!(
                    ended_within_10_s(workers, panic_at).is_err(),
                    "{workers} workers, panic at {panic_at}"
                );
            }
            assert_eq!(
                ended_within_10_s(workers, u64::MAX).expect("no panic"),
                (0..2_000).collect::<Vec<u64>>()
            );
        }
    }

    #[test]
    fn no_items_no_calls() {
        let mut calls = 0;
        map(&[] as &[u8], 4, |_, _: &mut ()| (), |()| calls += 1);
        assert_eq!(calls, 0);
    }
}
