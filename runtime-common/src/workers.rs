//! The worker pool that carries out the core's CPU work (`Output::Work`: decoding and
//! extracting a page, building a result): a fixed number of threads (`WORKER_THREADS`,
//! default the number of cores) fed by one queue. The IO executor never runs this work and no
//! lock is held while it runs, so a heavy page delays no other connection's IO.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use contact_core::pace::{self, Pace, Pacer};

/// One queued piece of work.
type Task = Box<dyn FnOnce() + Send>;

/// The pool's queue; its threads live as long as the process.
struct WorkerPool {
    queue: async_channel::Sender<Task>,
}

static POOL: OnceLock<WorkerPool> = OnceLock::new();

/// Starts the pool with `threads` threads (at least 1). Returns `false`, changing nothing,
/// when the pool is already running (it starts itself with the default on first use).
pub fn start_workers(threads: usize) -> bool {
    let mut started = false;
    POOL.get_or_init(|| {
        started = true;
        WorkerPool::new(threads)
    });
    started
}

/// The default pool size: the number of cores.
pub fn default_worker_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Runs the core's `work` on a worker (`Output::Work`), under its CPU budget and stopped at its
/// next checkpoint once `cancelled` is set, records its metrics, and hands `answer` what
/// `Work::run` returned and the worker thread's CPU time (`Input::WorkDone`).
pub fn run_work(
    work: contact_core::work::Work,
    cancelled: Arc<AtomicBool>,
    answer: impl FnOnce(contact_core::work::WorkDone, Duration) + Send + 'static,
) {
    run_on_worker(move || {
        let kind = crate::metrics::work_kind(&work);
        let budget = work.cpu_budget();
        let (done, took) = run_paced(budget, cancelled, || work.run());
        crate::metrics::observe_work(kind, took);
        answer(done, took);
    });
}

/// The core's work one connection has on the pool, each with the flag that stops it: what a
/// runtime does for `Output::Work` and `Output::CancelWork`. Dropping it (the exchange is over)
/// stops whatever still runs: no one waits for its answer.
#[derive(Debug, Default)]
pub struct WorkSlots(Vec<(contact_core::work::WorkId, Arc<AtomicBool>)>);

impl WorkSlots {
    /// `Output::Work`: runs `work` on the pool ([`run_work`]); `answer` hands its outcome to
    /// the connection (as `Input::WorkDone`).
    pub fn start(
        &mut self,
        id: contact_core::work::WorkId,
        work: contact_core::work::Work,
        answer: impl FnOnce(contact_core::work::WorkDone, Duration) + Send + 'static,
    ) {
        let cancelled = Arc::new(AtomicBool::new(false));
        self.0.push((id, Arc::clone(&cancelled)));
        run_work(work, cancelled, answer);
    }

    /// `Output::CancelWork`: the worker stops it at its next checkpoint; its answer, if it
    /// comes, is dropped by the driver.
    pub fn cancel(&mut self, id: contact_core::work::WorkId) {
        if let Some((_, cancelled)) = self.0.iter().find(|(w, _)| *w == id) {
            cancelled.store(true, Ordering::Relaxed);
        }
        self.0.retain(|(w, _)| *w != id);
    }

    /// The answer of work `id` arrived.
    pub fn done(&mut self, id: contact_core::work::WorkId) {
        self.0.retain(|(w, _)| *w != id);
    }
}

impl Drop for WorkSlots {
    fn drop(&mut self) {
        for (_, cancelled) in &self.0 {
            cancelled.store(true, Ordering::Relaxed);
        }
    }
}

/// Queues `task` for a worker thread.
pub fn run_on_worker(task: impl FnOnce() + Send + 'static) {
    let pool = POOL.get_or_init(|| WorkerPool::new(default_worker_threads()));
    if let Err(refused) = pool.queue.try_send(Box::new(task)) {
        let task = refused.into_inner();
        // No worker thread could be started (or all have gone): do the work here rather
        // than never.
        task();
    }
}

/// Runs this worker thread at a lower OS priority (nice 10 on Linux: about a tenth of the
/// CPU share of a nice-0 thread when they compete), so that when the cores are busy the IO
/// threads — which answer every other connection — run first and page extraction waits
/// (the 402 path's p99 during crawls of crafted pages). A worker still gets all of
/// an otherwise idle core. Best effort: where the OS refuses, the thread keeps its priority.
fn lower_priority() {
    use thread_priority::{set_current_thread_priority, ThreadPriority, ThreadPriorityValue};
    // The crate maps 0..=99 onto nice 19..=-20; 22 is nice 10.
    if let Ok(value) = ThreadPriorityValue::try_from(22u8) {
        let _ = set_current_thread_priority(ThreadPriority::Crossplatform(value));
    }
}

impl WorkerPool {
    fn new(threads: usize) -> WorkerPool {
        let (queue, tasks) = async_channel::unbounded::<Task>();
        let mut running = 0;
        for n in 0..threads.max(1) {
            let tasks = tasks.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("worker-{n}"))
                .spawn(move || {
                    lower_priority();
                    while let Ok(task) = tasks.recv_blocking() {
                        // Work::run catches panics of extractors and merges; this keeps the
                        // thread alive even if something else in a task panics.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
                    }
                });
            running += usize::from(spawned.is_ok());
        }
        if running == 0 {
            // Closed: `run_on_worker` then runs tasks inline.
            tasks.close();
        }
        WorkerPool { queue }
    }
}

/// How often a worker offers its core back while it works (wall time). Where workers share
/// cores with the IO threads, Linux takes a core from a running low-priority thread only at
/// its next tick (4 ms at `CONFIG_HZ=250`): each stretch of extraction held the 402 path up
/// for a tick. Yielding every quarter millisecond keeps the worker's CPU share
/// (`sched_yield` returns at once when nothing else waits) and costs one system call per
/// 250 µs of work.
const OFFER_EVERY: Duration = Duration::from_micros(250);

/// The worker threads' pacer (`contact_core::pace`): at the core's checkpoints it yields the
/// core every [`OFFER_EVERY`], and stops the work once it has used more than `budget` of this
/// thread's CPU time (`Work::cpu_budget`: the core's page budget — the page is then over
/// budget however its answer is read, so stopping early changes no result; work without a
/// budget is never stopped for time) or once the exchange cancelled it (`Output::CancelWork`:
/// the job ended) or finished.
struct WorkerPacer {
    cpu_start: Option<cpu_time::ThreadTime>,
    budget: Option<Duration>,
    cancelled: Arc<AtomicBool>,
    last_offer: Instant,
}

impl Pacer for WorkerPacer {
    fn checkpoint(&mut self, _at: &'static Location<'static>) -> Pace {
        if self.cancelled.load(Ordering::Relaxed) {
            return Pace::Stop;
        }
        if self.last_offer.elapsed() < OFFER_EVERY {
            return Pace::Continue;
        }
        std::thread::yield_now();
        self.last_offer = Instant::now();
        let Some(budget) = self.budget else {
            return Pace::Continue;
        };
        let used = self.cpu_start.and_then(|start| start.try_elapsed().ok());
        if used.is_some_and(|used| used > budget) {
            Pace::Stop
        } else {
            Pace::Continue
        }
    }
}

/// Runs `work` under the worker pacer (see `WorkerPacer`) and returns what it returned and
/// the CPU time this thread spent on it, as [`cpu_timed`]. Work that was stopped returns
/// early with a partial answer, which the core never uses: it was over `budget` (so `took`
/// is too) or its exchange had cancelled it or was over.
pub fn run_paced<T>(
    budget: Option<Duration>,
    cancelled: Arc<AtomicBool>,
    work: impl FnOnce() -> T,
) -> (T, Duration) {
    let (paced, took) = cpu_timed(|| {
        let pacer = WorkerPacer {
            cpu_start: cpu_time::ThreadTime::try_now().ok(),
            budget,
            cancelled,
            last_offer: Instant::now(),
        };
        pace::with_pacer(Box::new(pacer), work)
    });
    (paced.output, took)
}

/// Runs `work` and returns what it returned and the CPU time this thread spent on it
/// (`CLOCK_THREAD_CPUTIME_ID`): the page work budget is CPU time, so a worker that waits for a
/// core on a busy machine does not make a page "too costly". Where the clock is
/// missing, wall time stands in.
pub fn cpu_timed<T>(work: impl FnOnce() -> T) -> (T, Duration) {
    let wall = Instant::now();
    let cpu = cpu_time::ThreadTime::try_now().ok();
    let output = work();
    let took = cpu
        .and_then(|start| start.try_elapsed().ok())
        .unwrap_or_else(|| wall.elapsed());
    (output, took)
}

#[cfg(test)]
mod tests {
    use super::{cpu_timed, run_paced};
    use contact_core::pace::{self, QUANTUM};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// Calls `pace::work(64)` until it says stop (at most 10 s of wall time); returns the calls.
    fn paced_spin() -> u64 {
        let started = Instant::now();
        let mut calls = 0u64;
        while pace::work(64) {
            calls += 1;
            assert!(started.elapsed() < Duration::from_secs(10), "never stopped");
        }
        calls
    }

    #[test]
    fn cancelled_work_stops_at_its_first_checkpoint() {
        let cancelled = Arc::new(AtomicBool::new(true));
        let (calls, _) = run_paced(Some(Duration::from_secs(3)), cancelled, paced_spin);
        assert_eq!(calls, (QUANTUM / 64 - 1) as u64);
    }

    #[test]
    fn work_over_its_cpu_budget_stops_soon_after_it() {
        let budget = Duration::from_millis(30);
        let (calls, took) = run_paced(Some(budget), Arc::new(AtomicBool::new(false)), paced_spin);
        assert!(calls > 0);
        // Stopped only once over budget, and at one of the next checkpoints (each 250 µs).
        assert!(took > budget, "{took:?}");
        assert!(took < Duration::from_secs(2), "{took:?}");
    }

    #[test]
    fn work_without_a_budget_is_never_stopped_for_time() {
        let started = Instant::now();
        let ((calls, stopped), _) = run_paced(None, Arc::new(AtomicBool::new(false)), || {
            let mut calls = 0u64;
            // 50 ms of spinning, more than the budget of the test above.
            while started.elapsed() < Duration::from_millis(50) {
                pace::work(64);
                calls += 1;
            }
            (calls, pace::stopped())
        });
        assert!(calls > 0);
        assert!(!stopped);
    }

    #[test]
    fn paced_work_within_its_budget_runs_to_its_end() {
        let (sum, _) = run_paced(
            Some(Duration::from_secs(3)),
            Arc::new(AtomicBool::new(false)),
            || (0..100 * QUANTUM).filter(|_| pace::work(1)).count(),
        );
        assert_eq!(sum, 100 * QUANTUM);
    }

    #[test]
    fn waiting_is_not_work_and_computing_is() {
        let ((), waited) = cpu_timed(|| std::thread::sleep(Duration::from_millis(300)));
        assert!(waited < Duration::from_millis(100), "{waited:?}");
        // A fixed amount of work, not a wall-clock span: on a busy machine the scheduler takes
        // wall time away from a spinning thread, never the CPU time its work needs (at least
        // 1 ns per step, so 20 M steps are 20 ms or more).
        let (spins, computed) = cpu_timed(|| {
            let mut spins = 0u64;
            for _ in 0..20_000_000u64 {
                spins = std::hint::black_box(spins + 1);
            }
            spins
        });
        assert_eq!(spins, 20_000_000);
        assert!(computed > Duration::from_millis(10), "{computed:?}");
        assert!(
            computed > waited,
            "{computed:?} computing, {waited:?} waiting"
        );
    }
}
