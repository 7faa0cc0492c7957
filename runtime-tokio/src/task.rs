//! Tasks owned by a connection: dropping the handle aborts the task (tokio's `JoinHandle`
//! detaches instead), so a fetch the core closes leaves nothing running.

/// A spawned task, aborted when dropped.
pub(crate) struct Owned(tokio::task::JoinHandle<()>);

impl Owned {
    /// Spawns `future` on the current runtime.
    pub(crate) fn spawn(future: impl std::future::Future<Output = ()> + Send + 'static) -> Owned {
        Owned(tokio::spawn(future))
    }

    /// Whether the task has ended.
    pub(crate) fn is_finished(&self) -> bool {
        self.0.is_finished()
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        self.0.abort();
    }
}
