//! Which runtime a test's service runs on: the end-to-end tests run each case once on smol and
//! once on tokio, with a thread-local the test's wrapper sets.

/// The runtime a test's services run on: every end-to-end test runs once per runtime
/// ([`crate::both_runtimes!`]), which sets it for the test's thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    /// `contact-runtime-smol`.
    Smol,
    /// `contact-runtime-tokio`.
    Tokio,
}

thread_local! {
    static RUNTIME: std::cell::Cell<Runtime> = const { std::cell::Cell::new(Runtime::Smol) };
}

/// Runs `test` with services on `runtime`.
pub fn on_runtime(runtime: Runtime, test: fn()) {
    set_runtime(runtime);
    test();
}

/// Services started by this thread from now on run on `runtime` (for a test that compares the
/// two).
pub fn set_runtime(runtime: Runtime) {
    RUNTIME.with(|r| r.set(runtime));
}

/// The runtime of this test's services.
pub fn runtime() -> Runtime {
    RUNTIME.with(std::cell::Cell::get)
}

/// Each named test function (a plain `fn()`) becomes a module with two tests, `smol` and
/// `tokio`, running it on each runtime.
#[macro_export]
macro_rules! both_runtimes {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn smol() {
                    $crate::runtimes::on_runtime($crate::runtimes::Runtime::Smol, super::$name);
                }
                #[test]
                fn tokio() {
                    $crate::runtimes::on_runtime($crate::runtimes::Runtime::Tokio, super::$name);
                }
            }
        )*
    };
}

impl Runtime {
    /// The value of `--runtime` / `RUNTIME` for this runtime.
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Smol => "smol",
            Runtime::Tokio => "tokio",
        }
    }
}
