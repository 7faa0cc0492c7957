//! The worker pool that carries out the core's CPU work (`Output::Work`: decoding and
//! extracting a page, building a result): a fixed number of threads (`WORKER_THREADS`,
//! default the number of cores) fed by one queue. The IO executor never runs this work and no
//! lock is held while it runs, so a heavy page delays no other connection's IO.

use std::sync::OnceLock;

/// One queued piece of work.
type Task = Box<dyn FnOnce() + Send>;

/// The pool's queue; its threads live as long as the process.
struct WorkerPool {
    queue: smol::channel::Sender<Task>,
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

/// Queues `task` for a worker thread.
pub(crate) fn run_on_worker(task: impl FnOnce() + Send + 'static) {
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
/// (issue 10: the 402 path's p99 during crawls of crafted pages). A worker still gets all of
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
        let (queue, tasks) = smol::channel::unbounded::<Task>();
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

/// Runs `work` and returns what it returned and the CPU time this thread spent on it
/// (`CLOCK_THREAD_CPUTIME_ID`): the page work budget is CPU time, so a worker that waits for a
/// core on a busy machine does not make a page "too costly" (issue 10). Where the clock is
/// missing, wall time stands in.
pub(crate) fn cpu_timed<T>(work: impl FnOnce() -> T) -> (T, std::time::Duration) {
    let wall = std::time::Instant::now();
    let cpu = cpu_time::ThreadTime::try_now().ok();
    let output = work();
    let took = cpu
        .and_then(|start| start.try_elapsed().ok())
        .unwrap_or_else(|| wall.elapsed());
    (output, took)
}

#[cfg(test)]
mod tests {
    use super::cpu_timed;
    use std::time::{Duration, Instant};

    #[test]
    fn waiting_is_not_work_and_computing_is() {
        let ((), waited) = cpu_timed(|| std::thread::sleep(Duration::from_millis(300)));
        assert!(waited < Duration::from_millis(100), "{waited:?}");
        let (spins, computed) = cpu_timed(|| {
            let started = Instant::now();
            let mut spins = 0u64;
            while started.elapsed() < Duration::from_millis(200) {
                spins = std::hint::black_box(spins + 1);
            }
            spins
        });
        assert!(spins > 0);
        // 200 ms of wall time spinning; a busy machine may take some of it away.
        assert!(computed > Duration::from_millis(50), "{computed:?}");
    }
}
