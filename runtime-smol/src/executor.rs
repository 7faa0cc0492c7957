//! The executor every task of the service runs on, and the threads that run it.

use smol::channel;
use smol::Task;

/// The executor every task of the service runs on. Threads that run it also drive the I/O
/// reactor (`smol::block_on`), so a wake-up needs no hop to another thread.
static EXECUTOR: smol::Executor<'static> = smol::Executor::new();

/// Spawns `future` on the service's executor.
pub fn spawn<T: Send + 'static>(
    future: impl std::future::Future<Output = T> + Send + 'static,
) -> Task<T> {
    EXECUTOR.spawn(future)
}

/// Runs `future` to completion on the current thread while `threads - 1` helper threads also
/// run the service's executor (`SMOL_THREADS`, default 1).
pub fn run<T>(threads: usize, future: impl std::future::Future<Output = T>) -> T {
    let (stop, stopped) = channel::unbounded::<()>();
    let helpers: Vec<std::thread::JoinHandle<()>> = (1..threads.max(1))
        .map(|_| {
            let stopped = stopped.clone();
            std::thread::spawn(move || {
                smol::block_on(EXECUTOR.run(async {
                    stopped.recv().await.ok();
                }))
            })
        })
        .collect();
    let output = smol::block_on(EXECUTOR.run(future));
    drop(stop);
    for helper in helpers {
        let _ = helper.join();
    }
    output
}
