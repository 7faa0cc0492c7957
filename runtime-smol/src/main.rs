//! `contact-extract`: the command-line entry point.
//!
//! `serve` runs the paid HTTP service on the smol runtime (settings from the environment or
//! the flags of the same name). Offline subcommands (no network):
//! - `extract-html --url URL FILE [--page URL=FILE]...`: one site from saved pages → one
//!   `ContactExtractionResult` JSON on stdout.
//! - `extract-dir DIR`: every `*.html` under DIR as a one-page site → one JSON line per page,
//!   and a throughput summary on stderr.
//!
//! - `extract URL` (operator's tool, live network): one crawl of URL without payment, with the
//!   service's rules → `ContactExtractionResult` JSON, or the `ApiError` JSON and status 1.
//!
//! Exit status: 0 on success, 1 when a file could not be read (the batch goes on) or a live
//! crawl failed, 2 for bad arguments or settings (clap's convention).

/// mimalloc instead of glibc's malloc: the unpaid 402 path allocates and frees a 5 KB
/// response per request, where glibc spent ~5 % of the server's CPU (`malloc_consolidate`,
/// `_int_free`); measured +5–10 % requests/s (README "Quality and speed").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use contact_core::api::ContactExtractionResult;
use contact_core::{crawl, extract};
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

/// `serve` settings (README "Configuration").
#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// Listen address.
    #[arg(long, env = "BIND_ADDR")]
    bind_addr: Option<String>,
    /// Public https base URL of this service (resource URL of the 402 and the discovery documents).
    #[arg(long, env = "PUBLIC_BASE_URL")]
    public_base_url: Option<String>,
    /// Address that receives payments.
    #[arg(long, env = "PAY_TO")]
    pay_to: Option<String>,
    /// x402 facilitator base URL (https; http only for loopback).
    #[arg(long, env = "FACILITATOR_URL")]
    facilitator_url: Option<String>,
    /// Price per request in USD (default 0.01).
    #[arg(long, env = "PRICE_USD")]
    price_usd: Option<String>,
    /// CAIP-2 network (default eip155:8453).
    #[arg(long, env = "X402_NETWORK")]
    x402_network: Option<String>,
    /// Token contract (default Base mainnet USDC).
    #[arg(long, env = "X402_ASSET")]
    x402_asset: Option<String>,
    /// EIP-712 domain name of the token (default "USD Coin").
    #[arg(long, env = "X402_ASSET_NAME")]
    x402_asset_name: Option<String>,
    /// EIP-712 domain version of the token (default "2").
    #[arg(long, env = "X402_ASSET_VERSION")]
    x402_asset_version: Option<String>,
    /// Seconds an authorization may stay valid (default 120).
    #[arg(long, env = "X402_MAX_TIMEOUT_SECONDS")]
    x402_max_timeout_seconds: Option<String>,
    /// Requests a minute per client (default 60).
    #[arg(long, env = "RATE_LIMIT_PER_MINUTE")]
    rate_limit_per_minute: Option<String>,
    /// Burst per client (default 20).
    #[arg(long, env = "RATE_LIMIT_BURST")]
    rate_limit_burst: Option<String>,
    /// Paid jobs in flight at once (default 256).
    #[arg(long, env = "MAX_CONCURRENT_JOBS")]
    max_concurrent_jobs: Option<String>,
    #[command(flatten)]
    fetch: FetchArgs,
}

/// Settings of outbound fetches and logging, shared by `serve` and `extract`.
#[derive(clap::Args, Debug)]
struct FetchArgs {
    /// Ports a target URL may use (default 80,443,8000,8080,8443).
    #[arg(long, env = "ALLOWED_PORTS")]
    allowed_ports: Option<String>,
    /// Ranges exempted from the SSRF block list (tests only; logged as a warning).
    #[arg(long, env = "ALLOW_PRIVATE_CIDRS")]
    allow_private_cidrs: Option<String>,
    /// Static DNS answers, host=ip,… (like curl's --resolve).
    #[arg(long, env = "RESOLVE")]
    resolve: Option<String>,
    /// json (default) or pretty.
    #[arg(long, env = "LOG_FORMAT")]
    log_format: Option<String>,
}

impl FetchArgs {
    fn pairs(&self) -> [(&'static str, &Option<String>); 4] {
        [
            ("ALLOWED_PORTS", &self.allowed_ports),
            ("ALLOW_PRIVATE_CIDRS", &self.allow_private_cidrs),
            ("RESOLVE", &self.resolve),
            ("LOG_FORMAT", &self.log_format),
        ]
    }
}

/// Settings given as `(variable, value)`: the ones set, for `Config::from_env_map`.
fn to_map<'a>(
    pairs: impl IntoIterator<Item = (&'static str, &'a Option<String>)>,
) -> std::collections::BTreeMap<String, String> {
    pairs
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k.to_string(), v.clone())))
        .collect()
}

impl ServeArgs {
    fn to_map(&self) -> std::collections::BTreeMap<String, String> {
        let pairs = [
            ("BIND_ADDR", &self.bind_addr),
            ("PUBLIC_BASE_URL", &self.public_base_url),
            ("PAY_TO", &self.pay_to),
            ("FACILITATOR_URL", &self.facilitator_url),
            ("PRICE_USD", &self.price_usd),
            ("X402_NETWORK", &self.x402_network),
            ("X402_ASSET", &self.x402_asset),
            ("X402_ASSET_NAME", &self.x402_asset_name),
            ("X402_ASSET_VERSION", &self.x402_asset_version),
            ("X402_MAX_TIMEOUT_SECONDS", &self.x402_max_timeout_seconds),
            ("RATE_LIMIT_PER_MINUTE", &self.rate_limit_per_minute),
            ("RATE_LIMIT_BURST", &self.rate_limit_burst),
            ("MAX_CONCURRENT_JOBS", &self.max_concurrent_jobs),
        ];
        to_map(pairs.into_iter().chain(self.fetch.pairs()))
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::ExtractHtml { url, file, pages } => extract_html(&url, &file, &pages),
        Command::ExtractDir { dir } => extract_dir(&dir),
        Command::Serve(args) => serve(&args),
        Command::Extract { url, fetch } => extract_live(&url, &fetch),
    }
}

fn extract_live(url: &str, fetch: &FetchArgs) -> ExitCode {
    let config = match contact_core::config::Config::from_env_map(&to_map(fetch.pairs())) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("contact-extract: invalid configuration: {error}");
            return ExitCode::from(2);
        }
    };
    for warning in &config.warnings {
        contact_runtime_smol::log_line(config.log_format, &format!("warning: {warning}"));
    }
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
                Ok(json) => println!("{json}"),
                Err(e) => eprintln!("contact-extract: cannot serialise the error: {e}"),
            }
            eprintln!("contact-extract: {url}: {}", error.error.message);
            ExitCode::FAILURE
        }
    }
}

/// Seconds in-flight requests get after SIGTERM/SIGINT (a paid job takes at most 30 s plus
/// the settlement).
const SHUTDOWN_GRACE_SECONDS: u64 = 45;

fn serve(args: &ServeArgs) -> ExitCode {
    let config = match contact_core::config::Config::from_env_map(&args.to_map()) {
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
    let server = contact_runtime_smol::new_server(config);
    let (stop_sender, stop) = smol::channel::bounded::<()>(1);
    // SIGTERM/SIGINT: stop accepting, let in-flight requests finish (grace period), exit 0.
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
            contact_runtime_smol::log_line(format, &format!("received {signal:?}; draining"));
        }
        let _ = stop_sender.send(()).await;
    });
    let grace = std::time::Duration::from_secs(SHUTDOWN_GRACE_SECONDS);
    contact_runtime_smol::start_workers(workers);
    let threads = std::env::var("SMOL_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    contact_runtime_smol::run(threads, async move {
        contact_runtime_smol::serve(listener, server, stop, grace).await;
        drop(watcher);
    });
    contact_runtime_smol::log_line(format, "stopped");
    contact_runtime_smol::flush_logs();
    ExitCode::SUCCESS
}

fn parse_http_url(s: &str) -> Result<Url, String> {
    let url = Url::parse(s).map_err(|e| format!("not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err("must be an http or https URL with a host".to_string());
    }
    Ok(url)
}

fn parse_page_arg(s: &str) -> Result<(Url, PathBuf), String> {
    let (url, file) = s.split_once('=').ok_or("expected URL=FILE")?;
    Ok((parse_http_url(url)?, PathBuf::from(file)))
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("contact-extract: cannot read {}: {e}", path.display()))
}

fn extract_html(url: &Url, file: &Path, pages: &[(Url, PathBuf)]) -> ExitCode {
    let started = Instant::now();
    let mut bodies = vec![(url.clone(), file.to_path_buf())];
    bodies.extend(pages.iter().cloned());
    let mut extracted = Vec::new();
    for (page_url, path) in &bodies {
        let bytes = match read(path) {
            Ok(bytes) => bytes,
            Err(message) => {
                eprintln!("{message}");
                return ExitCode::FAILURE;
            }
        };
        extracted.push(extract::extract_page(page_url, Some("text/html"), &bytes));
    }
    let plan = crawl::plan(url, &extracted[0].links);
    let result = extract::merge(
        extract::SiteInfo {
            input_url: url.as_str(),
            url,
            contact_pages: plan.contact_pages.iter().map(Url::to_string).collect(),
            pages_fetched: u32::try_from(extracted.len()).unwrap_or(u32::MAX),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            request_id: String::new(),
        },
        &extracted,
    );
    print_json(&result);
    ExitCode::SUCCESS
}

fn print_json(result: &ContactExtractionResult) {
    match serde_json::to_string_pretty(result) {
        Ok(json) => println!("{json}"),
        Err(e) => eprintln!("contact-extract: cannot serialise the result: {e}"),
    }
}

fn extract_dir(dir: &Path) -> ExitCode {
    let mut files = Vec::new();
    if let Err(message) = collect_html(dir, &mut files, 0) {
        eprintln!("{message}");
        return ExitCode::FAILURE;
    }
    files.sort();
    let started = Instant::now();
    let mut bytes_total = 0usize;
    let mut failures = 0usize;
    let mut pages = 0usize;
    for path in &files {
        let bytes = match read(path) {
            Ok(bytes) => bytes,
            Err(message) => {
                eprintln!("{message}");
                failures += 1;
                continue;
            }
        };
        bytes_total += bytes.len();
        pages += 1;
        let result = one_page_site(path, &bytes);
        let line = serde_json::json!({ "file": path.display().to_string(), "result": result });
        println!("{line}");
    }
    let seconds = started.elapsed().as_secs_f64();
    let megabytes = bytes_total as f64 / 1e6;
    eprintln!(
        "pages: {pages}, MB: {megabytes:.2}, seconds: {seconds:.3}, MB/s: {:.1}",
        if seconds > 0.0 {
            megabytes / seconds
        } else {
            0.0
        }
    );
    if failures > 0 {
        eprintln!("contact-extract: {failures} file(s) could not be read");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// One file as a one-page site. The URL comes from the page (`canonical`, `og:url`, `<base>`)
/// or the file stem. A panic in extraction (a bug) yields an empty result for this page only.
fn one_page_site(path: &Path, bytes: &[u8]) -> ContactExtractionResult {
    let stem_url = || {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let host: String = stem
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        Url::parse(&format!("https://{host}/")).or_else(|_| Url::parse("https://invalid.invalid/"))
    };
    let outcome = std::panic::catch_unwind(|| {
        let parsed = extract::parse_page(None, bytes);
        let url = parsed.declared_url().or_else(|| stem_url().ok());
        url.map(|url| {
            let page = parsed.extract(&url);
            (url, page)
        })
    });
    let (url, pages) = match outcome {
        Ok(Some((url, page))) => (url, vec![page]),
        _ => {
            eprintln!(
                "contact-extract: extraction failed for {}; empty result",
                path.display()
            );
            match stem_url() {
                Ok(url) => (url, Vec::new()),
                Err(_) => return empty_result(path),
            }
        }
    };
    let plan = pages
        .first()
        .map(|p| crawl::plan(&url, &p.links))
        .unwrap_or_default();
    extract::merge(
        extract::SiteInfo {
            input_url: url.as_str(),
            url: &url,
            contact_pages: plan.contact_pages.iter().map(Url::to_string).collect(),
            pages_fetched: u32::try_from(pages.len()).unwrap_or(0),
            duration_ms: 0,
            request_id: String::new(),
        },
        &pages,
    )
}

fn empty_result(path: &Path) -> ContactExtractionResult {
    ContactExtractionResult {
        success: true,
        input_url: path.display().to_string(),
        domain: String::new(),
        company_name: None,
        emails: Vec::new(),
        phones: Vec::new(),
        socials: Default::default(),
        addresses: Vec::new(),
        contact_pages: Vec::new(),
        pages_scanned: Vec::new(),
        meta: Default::default(),
        request_id: String::new(),
    }
}

/// Most directory levels walked.
const MAX_DEPTH: usize = 16;

fn collect_html(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        format!(
            "contact-extract: cannot read directory {}: {e}",
            dir.display()
        )
    })?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && depth < MAX_DEPTH {
            collect_html(&path, out, depth + 1)?;
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"))
        {
            out.push(path);
        }
    }
    Ok(())
}
