//! `serve` on smol: the listeners, the signal handlers, the executor threads and the drain.

use std::process::ExitCode;

use contact_runtime_common::service::ServeSetup;

/// Runs `serve` on smol until SIGTERM or SIGINT (then drains) and returns the exit status:
/// 0 after a drain, 1 when a listener or the signal handlers cannot be set up.
pub fn run_service(setup: ServeSetup) -> ExitCode {
    let ServeSetup {
        mut config,
        workers,
        io_threads,
    } = setup;
    let format = config.log_format;
    let (listener, metrics_listener) =
        match contact_runtime_common::service::bind_listeners(&mut config) {
            Ok(listeners) => listeners,
            Err(status) => return status,
        };
    let adopt = |listener| smol::Async::<std::net::TcpListener>::new(listener);
    let (listener, metrics_listener) =
        match (adopt(listener), metrics_listener.map(adopt).transpose()) {
            (Ok(listener), Ok(metrics)) => (listener, metrics),
            (Err(error), _) | (_, Err(error)) => {
                eprintln!("contact-extract: cannot register the listeners: {error}");
                return ExitCode::FAILURE;
            }
        };
    let server = crate::new_server(config);
    let (stop_sender, stop) = smol::channel::bounded::<()>(2);
    // SIGTERM/SIGINT: stop accepting and drain (paid jobs run to their end, settlement
    // included, within the grace period), exit 0. A second signal cuts the drain short.
    let signals =
        match async_signal::Signals::new([async_signal::Signal::Term, async_signal::Signal::Int]) {
            Ok(signals) => signals,
            Err(error) => {
                eprintln!("contact-extract: cannot install signal handlers: {error}");
                return ExitCode::FAILURE;
            }
        };
    let watcher = crate::spawn(async move {
        use smol::stream::StreamExt as _;
        let mut signals = signals;
        for round in 0..2 {
            if let Some(Ok(signal)) = signals.next().await {
                let line =
                    contact_runtime_common::service::signal_line(&format!("{signal:?}"), round);
                crate::log_line(format, &line);
            }
            let _ = stop_sender.send(()).await;
        }
    });
    let grace = contact_core::budget::DRAIN_GRACE;
    crate::start_workers(workers);
    crate::run(io_threads, async move {
        // The metrics listener lives as long as the service (dropped with its task).
        let (_metrics_stop_sender, metrics_stop) = smol::channel::bounded::<()>(1);
        let metrics = metrics_listener.map(|listener| {
            crate::spawn(crate::serve_metrics(listener, server.clone(), metrics_stop))
        });
        crate::serve(listener, server, stop, grace).await;
        drop(metrics);
        drop(watcher);
    });
    crate::log_line(format, "stopped");
    crate::flush_logs();
    ExitCode::SUCCESS
}
