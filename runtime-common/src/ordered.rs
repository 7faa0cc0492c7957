//! A parallel map that hands its results back in input order: `extract-dir --jobs N`'s output
//! is the same bytes whatever N is.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

/// How far (in items) a worker may run ahead of the oldest result not yet handed back, per
/// worker: bounds the results held for reordering when one item is slow.
const AHEAD_PER_WORKER: usize = 16;

/// Runs `work(item, scratch)` for every item on `workers` threads (each with its own `scratch`,
/// reused across its items) and calls `each` with the results in the order of `items`, on the
/// calling thread, as soon as each one's turn comes. At most `workers × 16` results wait to be
/// handed back. A panic in `work` propagates (after the other workers stop).
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
    let window = workers * AHEAD_PER_WORKER;
    let next = AtomicUsize::new(0);
    // The index of the oldest result not yet handed back; workers wait on it to stay within
    // the window.
    let handed = Mutex::new(0usize);
    let moved = Condvar::new();
    let (send, receive) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let send = send.clone();
            let (next, handed, moved, work) = (&next, &handed, &moved, &work);
            scope.spawn(move || {
                let mut scratch = S::default();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else {
                        return;
                    };
                    {
                        let mut oldest = handed.lock().unwrap_or_else(|e| e.into_inner());
                        while index >= *oldest + window {
                            oldest = moved.wait(oldest).unwrap_or_else(|e| e.into_inner());
                        }
                    }
                    if send.send((index, work(item, &mut scratch))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(send);
        let mut waiting = BTreeMap::new();
        let mut turn = 0usize;
        for (index, result) in receive {
            waiting.insert(index, result);
            while let Some(result) = waiting.remove(&turn) {
                each(result);
                turn += 1;
            }
            *handed.lock().unwrap_or_else(|e| e.into_inner()) = turn;
            moved.notify_all();
        }
    });
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

    #[test]
    fn no_items_no_calls() {
        let mut calls = 0;
        map(&[] as &[u8], 4, |_, _: &mut ()| (), |()| calls += 1);
        assert_eq!(calls, 0);
    }
}
