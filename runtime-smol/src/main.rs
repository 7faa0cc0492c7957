//! `contact-extract`: the command-line entry point.
//!
//! `serve` runs the paid HTTP service on the smol runtime (settings from the environment or
//! the flags of the same name). Offline subcommands (no network):
//! - `extract-html --url URL FILE [--page URL=FILE]...`: one site from saved pages → one
//!   `ContactExtractionResult` JSON on stdout.
//! - `extract-dir DIR [--jobs N]`: every `*.html` under DIR as a one-page site → one JSON line
//!   per page (in path order, on N threads; default all cores), and a throughput summary on
//!   stderr.
//!
//! - `extract URL` (operator's tool, live network): one crawl of URL without payment, with the
//!   service's rules → `ContactExtractionResult` JSON, or the `ApiError` JSON and status 1.
//! - `extract-batch FILE` (live network): the same for a list of URLs, many at once with a
//!   limit per registrable domain → one record per input (JSON lines or CSV), resumable.
//!
//! Exit status: 0 on success, 1 when a file could not be read (the batch goes on) or a live
//! crawl failed, 2 for bad arguments or settings (clap's convention).

/// mimalloc instead of glibc's malloc: the unpaid 402 path allocates and frees a 5 KB
/// response per request, where glibc spent ~5 % of the server's CPU (`malloc_consolidate`,
/// `_int_free`); measured +5–10 % requests/s (README "Quality and speed").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use contact_runtime_common::batch::{extract_batch, BatchArgs};
use contact_runtime_common::cli::{to_map, FetchArgs, ServeArgs};
use contact_runtime_common::offline::{
    extract_dir, extract_html, parse_http_url, parse_page_arg, print_json,
};
use url::Url;

#[derive(Parser)]
#[command(
    name = "contact-extract",
    version,
    about = "Business contact extraction from websites: the paid service and operator tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Extract contacts from saved pages of one site; prints one ContactExtractionResult JSON.
    ExtractHtml {
        /// The homepage URL the FILE was fetched from (sets `inputUrl`, `domain` and how
        /// relative links resolve).
        #[arg(long, value_parser = parse_http_url)]
        url: Url,
        /// The saved homepage (HTML, any charset).
        file: PathBuf,
        /// Another page of the site, as URL=FILE; repeatable, merged in the order given.
        #[arg(long = "page", value_parser = parse_page_arg)]
        pages: Vec<(Url, PathBuf)>,
    },
    /// Extract every *.html file under DIR as a one-page site; prints one JSON line
    /// {"file": …, "result": …} per file and a throughput summary on stderr.
    ExtractDir {
        /// Directory to walk (recursively, in sorted order).
        dir: PathBuf,
        /// Worker threads (default: all cores). The output order is the same for any value.
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
        jobs: Option<u16>,
    },
    /// Crawl a list of live sites (one URL per line, or a CSV with a `url` column) with the
    /// service's rules and no payment; writes one record per input (JSON lines: the
    /// ContactExtractionResult, or the ApiError with `inputUrl`; or CSV), then a summary on
    /// stderr. Interrupted runs continue with --resume.
    ExtractBatch {
        #[command(flatten)]
        batch: BatchArgs,
        #[command(flatten)]
        fetch: FetchArgs,
    },
    /// Run the paid HTTP service. Every setting is an environment variable or the flag of the
    /// same name; invalid values stop start-up, missing payment settings do not (the service
    /// fails closed and /api/ready lists the problems).
    Serve(Box<ServeArgs>),
    /// Operator's tool: crawl one live site now, without payment, with the service's rules
    /// (URL checks, SSRF block list, caps, deadlines); prints the ContactExtractionResult JSON,
    /// or the ApiError JSON and exit status 1.
    Extract {
        /// The site's homepage (http or https).
        url: String,
        #[command(flatten)]
        fetch: FetchArgs,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::ExtractHtml { url, file, pages } => extract_html(&url, &file, &pages),
        Command::ExtractDir { dir, jobs } => extract_dir(
            &dir,
            jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, usize::from),
                usize::from,
            ),
        ),
        Command::Serve(args) => serve(&args),
        Command::Extract { url, fetch } => extract_live(&url, &fetch),
        Command::ExtractBatch { batch, fetch } => extract_batch_live(&batch, &fetch),
    }
}

/// The settings of the live-crawl commands (`extract`, `extract-batch`), with their warnings
/// logged; an invalid setting is exit status 2.
fn live_config(fetch: &FetchArgs) -> Result<contact_core::config::Config, ExitCode> {
    let config =
        contact_core::config::Config::from_env_map(&to_map(fetch.pairs())).map_err(|error| {
            eprintln!("contact-extract: invalid configuration: {error}");
            ExitCode::from(2)
        })?;
    for warning in &config.warnings {
        contact_runtime_smol::log_line(config.log_format, &format!("warning: {warning}"));
    }
    Ok(config)
}

fn extract_batch_live(batch: &BatchArgs, fetch: &FetchArgs) -> ExitCode {
    let config = match live_config(fetch) {
        Ok(config) => config,
        Err(status) => return status,
    };
    let max_page_memory = config.max_page_memory;
    let server = contact_runtime_smol::new_server(config);
    let tls = contact_runtime_smol::tls_connector();
    let status = extract_batch(
        batch,
        max_page_memory,
        |inputs, concurrency, scheduler, on_done| {
            contact_runtime_smol::crawl_batch(
                &server,
                &tls,
                inputs,
                concurrency,
                scheduler,
                on_done,
            );
        },
    );
    contact_runtime_smol::flush_logs();
    status
}

fn extract_live(url: &str, fetch: &FetchArgs) -> ExitCode {
    let config = match live_config(fetch) {
        Ok(config) => config,
        Err(status) => return status,
    };
    let server = contact_runtime_smol::new_server(config);
    let outcome = contact_runtime_smol::run(
        1,
        contact_runtime_smol::extract_url(&server, url, contact_runtime_smol::tls_connector()),
    );
    contact_runtime_smol::flush_logs();
    match outcome {
        Ok(result) => {
            print_json(&result);
            ExitCode::SUCCESS
        }
        Err(error) => {
            match serde_json::to_string_pretty(&error) {
                Ok(json) => contact_runtime_common::offline::print_line(&json),
                Err(e) => eprintln!("contact-extract: cannot serialise the error: {e}"),
            }
            eprintln!("contact-extract: {url}: {}", error.error.message);
            ExitCode::FAILURE
        }
    }
}

fn serve(args: &ServeArgs) -> ExitCode {
    let mut config = match contact_core::config::Config::from_env_map(&args.to_map()) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("contact-extract: invalid configuration: {error}");
            return ExitCode::from(2);
        }
    };
    // The pool that runs page extraction and result builds (never the IO threads).
    let workers = match std::env::var("WORKER_THREADS") {
        Err(_) => contact_runtime_smol::default_worker_threads(),
        Ok(value) => match value.parse::<usize>() {
            Ok(n) if (1..=1024).contains(&n) => n,
            _ => {
                eprintln!(
                    "contact-extract: invalid configuration: WORKER_THREADS: cannot use {value:?}: a number of threads from 1 to 1024"
                );
                return ExitCode::from(2);
            }
        },
    };
    let format = config.log_format;
    for warning in &config.warnings {
        contact_runtime_smol::log_line(format, &format!("warning: {warning}"));
    }
    if let contact_core::config::PaymentConfig::Incomplete(problems) = &config.payment {
        contact_runtime_smol::log_line(
            format,
            &format!(
                "payments not configured (failing closed): {}",
                problems.join("; ")
            ),
        );
    }
    let listener = match smol::Async::<std::net::TcpListener>::bind(config.bind_addr) {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!(
                "contact-extract: cannot listen on {}: {error}",
                config.bind_addr
            );
            return ExitCode::FAILURE;
        }
    };
    let address = listener
        .get_ref()
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    contact_runtime_smol::log_line(format, &format!("listening on {address}"));
    if config.bind_addr.ip().is_unspecified() {
        // Listening everywhere: every outward address of the host is the service itself.
        let own = contact_runtime_common::own_addrs::outward_addresses();
        config.net_policy.own_addrs.extend(own);
    }
    let metrics_listener = match config.metrics_addr {
        None => None,
        Some(addr) => match smol::Async::<std::net::TcpListener>::bind(addr) {
            Ok(listener) => {
                let bound = listener.get_ref().local_addr().map_or(addr, |a| a);
                contact_runtime_smol::log_line(format, &format!("metrics on {bound}"));
                Some(listener)
            }
            Err(error) => {
                eprintln!("contact-extract: cannot listen on METRICS_ADDR {addr}: {error}");
                return ExitCode::FAILURE;
            }
        },
    };
    let server = contact_runtime_smol::new_server(config);
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
    let watcher = contact_runtime_smol::spawn(async move {
        use smol::stream::StreamExt as _;
        let mut signals = signals;
        if let Some(Ok(signal)) = signals.next().await {
            contact_runtime_smol::log_line(
                format,
                &format!(
                    "received {signal:?}; draining (up to {} s; a second signal exits now)",
                    contact_core::exchange::DRAIN_GRACE.as_secs()
                ),
            );
        }
        let _ = stop_sender.send(()).await;
        if let Some(Ok(signal)) = signals.next().await {
            contact_runtime_smol::log_line(format, &format!("received {signal:?} again; exiting"));
        }
        let _ = stop_sender.send(()).await;
    });
    let grace = contact_core::exchange::DRAIN_GRACE;
    contact_runtime_smol::start_workers(workers);
    let threads = std::env::var("SMOL_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    contact_runtime_smol::run(threads, async move {
        // The metrics listener lives as long as the service (dropped with its task).
        let (_metrics_stop_sender, metrics_stop) = smol::channel::bounded::<()>(1);
        let metrics = metrics_listener.map(|listener| {
            contact_runtime_smol::spawn(contact_runtime_smol::serve_metrics(
                listener,
                server.clone(),
                metrics_stop,
            ))
        });
        contact_runtime_smol::serve(listener, server, stop, grace).await;
        drop(metrics);
        drop(watcher);
    });
    contact_runtime_smol::log_line(format, "stopped");
    contact_runtime_smol::flush_logs();
    ExitCode::SUCCESS
}
