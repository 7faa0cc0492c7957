//! `contact-extract`: the command-line entry point.
//!
//! `serve` runs the paid HTTP service (settings from the environment or the flags of the same
//! name) on the runtime `--runtime tokio|smol` (env `RUNTIME`, default tokio) names; `extract`
//! and `extract-batch` crawl on it too. The two runtimes drive the same sans-IO core. Offline subcommands (no network):
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
/// `_int_free`); measured +5–10 % requests/s (docs/performance-history.md).
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
    /// The async runtime that does the IO of `serve`, `extract` and `extract-batch` (the
    /// service behaves the same on both; tokio is the default: it served the unpaid 402 path
    /// ≈ 19 % faster on one IO thread, docs/performance.md).
    #[arg(long, env = "RUNTIME", global = true, value_enum, default_value_t = Runtime::Tokio)]
    runtime: Runtime,
    #[command(subcommand)]
    command: Command,
}

/// The runtimes over the same sans-IO core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Runtime {
    /// smol + async-io.
    Smol,
    /// tokio.
    Tokio,
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
        Command::Serve(args) => serve(&args, cli.runtime),
        Command::Extract { url, fetch } => extract_live(&url, &fetch, cli.runtime),
        Command::ExtractBatch { batch, fetch } => extract_batch_live(&batch, &fetch, cli.runtime),
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
        contact_runtime_common::log::log_line(config.log_format, &format!("warning: {warning}"));
    }
    Ok(config)
}

fn extract_batch_live(batch: &BatchArgs, fetch: &FetchArgs, runtime: Runtime) -> ExitCode {
    let config = match live_config(fetch) {
        Ok(config) => config,
        Err(status) => return status,
    };
    let max_page_memory = config.max_page_memory;
    let server = contact_runtime_common::service::new_server(config);
    let status = extract_batch(
        batch,
        max_page_memory,
        |inputs, concurrency, scheduler, on_done| match runtime {
            Runtime::Smol => contact_runtime_smol::crawl_batch(
                &server,
                &contact_runtime_smol::tls_connector(),
                inputs,
                concurrency,
                scheduler,
                on_done,
            ),
            Runtime::Tokio => {
                contact_runtime_tokio::crawl_batch(
                    &server,
                    inputs,
                    concurrency,
                    scheduler,
                    on_done,
                );
            }
        },
    );
    contact_runtime_common::log::flush_logs();
    status
}

fn extract_live(url: &str, fetch: &FetchArgs, runtime: Runtime) -> ExitCode {
    let config = match live_config(fetch) {
        Ok(config) => config,
        Err(status) => return status,
    };
    let server = contact_runtime_common::service::new_server(config);
    let outcome = match runtime {
        Runtime::Smol => contact_runtime_smol::run(
            1,
            contact_runtime_smol::extract_url(&server, url, contact_runtime_smol::tls_connector()),
        ),
        Runtime::Tokio => contact_runtime_tokio::extract_one(&server, url),
    };
    contact_runtime_common::log::flush_logs();
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

fn serve(args: &ServeArgs, runtime: Runtime) -> ExitCode {
    let setup = match contact_runtime_common::service::serve_setup(args) {
        Ok(setup) => setup,
        Err(status) => return status,
    };
    match runtime {
        Runtime::Smol => contact_runtime_smol::run_service(setup),
        Runtime::Tokio => contact_runtime_tokio::run_service(setup),
    }
}
