//! Start-up of the `serve` command, the same under every runtime: the shared server with its
//! seed and clocks, the settings read from flags and environment (with their errors, exit
//! status 2), the warnings logged, and the answer of the metrics listener.

use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use contact_core::io::Now;

use contact_core::config::{Config, CredentialFiles, PaymentConfig};
use contact_core::payment::cdp_jwt::CdpKey;
use contact_core::payment::endpoint::{AuthHeader, FacilitatorCredentials};
use contact_core::server::Server;

use crate::cli::ServeArgs;
use crate::log::log_line;

/// Builds the shared server for `config`, with OS entropy for the seed and the current time.
pub fn new_server(config: Config) -> Server {
    let mut seed = [0u8; 32];
    // The rustls provider already linked supplies OS randomness.
    let filled = rustls::crypto::ring::default_provider()
        .secure_random
        .fill(&mut seed);
    if filled.is_err() {
        // Without entropy request ids are still unique (time + counter), only predictable.
        seed = nanos_seed();
    }
    let unix_now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let shared = config.redis_url.is_some();
    let store = crate::redis_store::RedisStore::for_config(&config);
    let log_format = config.log_format;
    let mut server = Server::new(config, seed, Instant::now(), unix_now);
    if shared {
        // From here on the rate limits and payments live in Redis; the paid route fails
        // closed (503) until it answers.
        server.share_store();
        server.set_store_problem(Some("payment store (Redis) not checked yet".into()));
        match store {
            Ok(Some(store)) => {
                let store = crate::redis_store::RedisStore::install(store);
                watch_store(server.clone(), std::sync::Arc::clone(store));
            }
            Ok(None) => {}
            Err(problem) => {
                log_line(log_format, &format!("payment store: {problem}"));
                server.set_store_problem(Some(format!("payment store: {problem}")));
            }
        }
    }
    server
}

/// Checks the shared store every [`crate::redis_store::STORE_CHECK_INTERVAL`] on a thread of
/// its own (a `PING`, at most 200 ms): `/api/ready` names what is wrong, and each change is
/// logged. Recovery needs no restart: the next command or check that answers clears it.
fn watch_store(server: Server, store: std::sync::Arc<crate::redis_store::RedisStore>) {
    let log_format = server.config().log_format;
    let spawned = std::thread::Builder::new()
        .name("store-check".into())
        .spawn(move || {
            let mut last: Option<Option<String>> = None;
            loop {
                let problem = store.check();
                server.set_store_problem(problem.clone());
                if last.as_ref() != Some(&problem) {
                    let line = match &problem {
                        None => "payment store check: Redis answers (ready)".to_string(),
                        Some(problem) => format!("payment store check: {problem} (not ready)"),
                    };
                    log_line(log_format, &line);
                    last = Some(problem);
                }
                std::thread::sleep(crate::redis_store::STORE_CHECK_INTERVAL);
            }
        });
    if let Err(error) = spawned {
        log_line(
            log_format,
            &format!("payment store: cannot start its check: {error}"),
        );
    }
}

fn nanos_seed() -> [u8; 32] {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let mut seed = [0u8; 32];
    seed[..16].copy_from_slice(&nanos.to_le_bytes());
    seed
}

/// What `serve` starts with, whatever the runtime.
#[derive(Debug)]
pub struct ServeSetup {
    /// The settings (own addresses not yet added: they depend on the bound listener).
    pub config: Config,
    /// Threads of the worker pool (`WORKER_THREADS`, default the number of cores).
    pub workers: usize,
    /// Threads that run the IO executor (`IO_THREADS`; `SMOL_THREADS` is read too, for the
    /// smol runtime; default 1).
    pub io_threads: usize,
}

/// Where a secret file setting points (`RECEIPT_SIGNING_KEY_FILE`, `CDP_API_KEY_SECRET_FILE`,
/// `FACILITATOR_AUTH_HEADER_FILE`, `REDIS_PASSWORD_FILE`): a relative `path` is a systemd
/// credential, read from `$CREDENTIALS_DIRECTORY` when that is set (systemd.exec(5),
/// `LoadCredential=`; docs/configuration.md, "Secrets"); otherwise `path` as given.
pub fn credential_path(path: &str) -> std::path::PathBuf {
    credential_path_in(std::env::var_os("CREDENTIALS_DIRECTORY").as_deref(), path)
}

/// [`credential_path`] with the credentials directory given.
fn credential_path_in(directory: Option<&std::ffi::OsStr>, path: &str) -> std::path::PathBuf {
    let given = std::path::Path::new(path);
    match directory {
        Some(directory) if given.is_relative() && !directory.is_empty() => {
            std::path::Path::new(directory).join(given)
        }
        _ => given.to_path_buf(),
    }
}

/// Reads the key of `RECEIPT_SIGNING_KEY_FILE`, when set, into [`Config::offer_signer`]
/// (docs/payments.md, "Signed offers and receipts"): the file holds a 32-byte secp256k1 key in
/// hex. The key is read once, here; it is never in the environment or a log.
///
/// # Errors
/// `RECEIPT_SIGNING_KEY_FILE: <path>: <why>` — the file cannot be read, or holds no valid key
/// (the message never contains the file's bytes).
pub fn load_offer_signer(config: &mut Config) -> Result<(), String> {
    let Some(path) = config.receipt_signing_key_file.clone() else {
        return Ok(());
    };
    let path = credential_path(&path);
    let signer = std::fs::read_to_string(&path)
        .map_err(|error| error.to_string())
        .and_then(|text| contact_core::payment::offer_receipt::OfferSigner::from_hex(&text))
        .map_err(|why| format!("RECEIPT_SIGNING_KEY_FILE: {}: {why}", path.display()))?;
    config.offer_signer = Some(signer);
    Ok(())
}

/// Reads the facilitator credentials, when set, into the facilitators of
/// [`PaymentConfig::Ready`], by position (docs/configuration.md, "Facilitator credentials"):
/// the one header line of `FACILITATOR_AUTH_HEADER_FILE`, or the private key of
/// `CDP_API_KEY_SECRET_FILE` (with `CDP_API_KEY_ID`). The files are read once, here, and checked at start; a secret is
/// never in the environment or a log.
///
/// # Errors
/// `<VARIABLE>[ (facilitator n)]: <path>: <why>` — the file cannot be read or holds no valid header or key (the
/// message never contains the file's bytes).
pub fn load_facilitator_credentials(config: &mut Config) -> Result<(), String> {
    let PaymentConfig::Ready { facilitators, .. } = &mut config.payment else {
        return Ok(());
    };
    // By position (docs/configuration.md): the n-th entry is the n-th facilitator's.
    let several = facilitators.len() > 1;
    for (n, (facilitator, files)) in facilitators
        .iter_mut()
        .zip(&config.facilitator_credentials)
        .enumerate()
    {
        let entry = if several {
            format!(" (facilitator {})", n + 1)
        } else {
            String::new()
        };
        facilitator.credentials = match files {
            CredentialFiles::None => continue,
            CredentialFiles::HeaderFile(path) => {
                let path = credential_path(path);
                std::fs::read(&path)
                    .map_err(|error| error.to_string())
                    .and_then(|bytes| AuthHeader::from_file(&bytes))
                    .map(FacilitatorCredentials::Header)
                    .map_err(|why| {
                        format!(
                            "FACILITATOR_AUTH_HEADER_FILE{entry}: {}: {why}",
                            path.display()
                        )
                    })?
            }
            CredentialFiles::Cdp {
                key_id,
                secret_file,
            } => {
                let path = credential_path(secret_file);
                std::fs::read(&path)
                    .map_err(|error| error.to_string())
                    .and_then(|bytes| CdpKey::from_parts(key_id, &bytes))
                    .map(|key| FacilitatorCredentials::Cdp(std::sync::Arc::new(key)))
                    .map_err(|why| {
                        format!("CDP_API_KEY_SECRET_FILE{entry}: {}: {why}", path.display())
                    })?
            }
        };
    }
    Ok(())
}

/// Puts the password of `REDIS_PASSWORD_FILE` (`file`, when set; [`credential_path`]) into
/// `REDIS_URL`'s user information, so the password lives in a file (a systemd credential)
/// rather than in the environment. The file holds the password on one line (a final line
/// break is dropped). Read once, here; never logged.
///
/// # Errors
/// `REDIS_PASSWORD_FILE: …` — no `REDIS_URL`, a `REDIS_URL` that already holds a password, a
/// file that cannot be read, or one that is empty or holds a control character (the message
/// never contains the file's bytes).
pub fn load_redis_password(config: &mut Config, file: Option<&str>) -> Result<(), String> {
    let Some(file) = file else {
        return Ok(());
    };
    let Some(redis_url) = &config.redis_url else {
        return Err("REDIS_PASSWORD_FILE: needs REDIS_URL".to_string());
    };
    let mut url = url::Url::parse(redis_url)
        .map_err(|error| format!("REDIS_PASSWORD_FILE: REDIS_URL does not parse: {error}"))?;
    if url.password().is_some() {
        return Err(
            "REDIS_PASSWORD_FILE: REDIS_URL already holds a password; keep it in one place"
                .to_string(),
        );
    }
    let path = credential_path(file);
    let text = std::fs::read_to_string(&path)
        .map_err(|error| format!("REDIS_PASSWORD_FILE: {}: {error}", path.display()))?;
    let password = text.strip_suffix('\n').map_or(text.as_str(), |line| {
        line.strip_suffix('\r').unwrap_or(line)
    });
    if password.is_empty() || password.chars().any(char::is_control) {
        return Err(format!(
            "REDIS_PASSWORD_FILE: {}: expected the password on one line",
            path.display()
        ));
    }
    url.set_password(Some(password)).map_err(|()| {
        "REDIS_PASSWORD_FILE: REDIS_URL cannot hold a password (no host)".to_string()
    })?;
    config.redis_url = Some(url.to_string());
    Ok(())
}

/// Reads the `serve` settings and logs their warnings and a missing payment setup.
///
/// # Errors
/// Exit status 2 after printing the invalid setting.
pub fn serve_setup(args: &ServeArgs) -> Result<ServeSetup, ExitCode> {
    let mut config = Config::from_env_map(&args.to_map()).map_err(|error| {
        eprintln!("contact-extract: invalid configuration: {error}");
        ExitCode::from(2)
    })?;
    // An empty variable is unset, as for every other setting.
    let audit_log = args
        .audit_log
        .as_deref()
        .filter(|path| !path.as_os_str().is_empty());
    let redis_password_file = args
        .redis_password_file
        .as_deref()
        .filter(|f| !f.is_empty());
    let loaded = crate::log::set_audit_log(audit_log)
        .and_then(|()| load_offer_signer(&mut config))
        .and_then(|()| load_redis_password(&mut config, redis_password_file));
    if let Err(why) = loaded {
        eprintln!("contact-extract: invalid configuration: {why}");
        return Err(ExitCode::from(2));
    }
    if let Err(why) = load_facilitator_credentials(&mut config) {
        eprintln!("contact-extract: invalid configuration: {why}");
        return Err(ExitCode::from(2));
    }
    let workers = threads_setting(
        "WORKER_THREADS",
        args.worker_threads.as_deref(),
        crate::workers::default_worker_threads(),
    )?;
    let io_threads = match args.io_threads.as_deref() {
        Some(value) => threads_setting("IO_THREADS", Some(value), 1)?,
        // The smol runtime's older name for it.
        None => threads_setting(
            "SMOL_THREADS",
            std::env::var("SMOL_THREADS").ok().as_deref(),
            1,
        )?,
    };
    let format = config.log_format;
    for warning in &config.warnings {
        log_line(format, &format!("warning: {warning}"));
    }
    if let Some(signer) = &config.offer_signer {
        log_line(
            format,
            &format!(
                "offers and receipts signed (x402 offer-receipt, EIP-712) by {}",
                signer.address()
            ),
        );
    }
    if let PaymentConfig::Ready { facilitators, .. } = &config.payment {
        for facilitator in facilitators {
            log_line(
                format,
                &format!(
                    "facilitator {} ({})",
                    contact_core::config::endpoint_label(&facilitator.url),
                    facilitator.credentials.describe()
                ),
            );
        }
    }
    if let PaymentConfig::Incomplete(problems) = &config.payment {
        log_line(
            format,
            &format!(
                "payments not configured (failing closed): {}",
                problems.join("; ")
            ),
        );
    }
    Ok(ServeSetup {
        config,
        workers,
        io_threads,
    })
}

/// A thread count from setting `name`'s `value` (1 to 1024), or `default` when unset.
fn threads_setting(name: &str, value: Option<&str>, default: usize) -> Result<usize, ExitCode> {
    match value {
        None => Ok(default),
        Some(value) => match value.parse::<usize>() {
            Ok(n) if (1..=1024).contains(&n) => Ok(n),
            _ => {
                eprintln!(
                    "contact-extract: invalid configuration: {name}: cannot use {value:?}: a number of threads from 1 to 1024"
                );
                Err(ExitCode::from(2))
            }
        },
    }
}

/// Adds the host's outward addresses to the SSRF block list when the service listens on a
/// wildcard address (every outward address is then the service itself).
pub fn block_own_addresses(config: &mut Config) {
    if config.bind_addr.ip().is_unspecified() {
        let own = crate::own_addrs::outward_addresses();
        config.net_policy.own_addrs.extend(own);
    }
}

/// Longest a metrics connection may last, from accept to the last byte of the answer written
/// (a scraper that sends its head slowly or stops reading the answer is dropped then).
pub const METRICS_REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
/// Most metrics connections open at once; one more is closed at accept. A Prometheus server
/// holds one; the rest is room for a second scraper and an operator's `curl`.
pub const METRICS_MAX_CONNECTIONS: usize = 16;
/// Largest metrics request head, in bytes.
pub const METRICS_MAX_HEAD: usize = 8 * 1024;

/// The count of open metrics connections ([`METRICS_MAX_CONNECTIONS`] in all; no per-client
/// cap: the listener is the operator's, on an address no one else reaches). A runtime admits
/// each accepted connection with `admit(peer, true)` and closes it at once when refused.
pub fn metrics_gate() -> contact_core::connections::ConnectionGate {
    contact_core::connections::ConnectionGate::new(METRICS_MAX_CONNECTIONS, METRICS_MAX_CONNECTIONS)
}

/// Whether a metrics request head read so far is complete (or too long to read on).
pub fn metrics_head_done(head: &[u8]) -> bool {
    head.len() >= METRICS_MAX_HEAD || head.windows(4).any(|w| w == b"\r\n\r\n")
}

/// The metrics listener's whole answer to a request `head`: `GET /metrics` is the Prometheus
/// text format ([`crate::metrics::render`]); anything else is 404.
pub fn metrics_answer(server: &Server, head: &[u8]) -> Vec<u8> {
    let (status, content_type, body) =
        if head.starts_with(b"GET /metrics ") || head.starts_with(b"GET /metrics?") {
            (
                "200 OK",
                "text/plain; version=0.0.4; charset=utf-8",
                crate::metrics::render(server),
            )
        } else {
            (
                "404 Not Found",
                "text/plain",
                "only GET /metrics here\n".to_string(),
            )
        };
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The system resolver (blocking: call it off the IO threads), for `Output::Resolve`.
///
/// # Errors
/// `IoFailure::Dns` with the resolver's message.
pub fn resolve(
    host: &str,
    port: u16,
) -> Result<Vec<std::net::IpAddr>, contact_core::io::IoFailure> {
    use std::net::ToSocketAddrs as _;
    (host, port)
        .to_socket_addrs()
        .map(|addrs| addrs.map(|a| a.ip()).collect())
        .map_err(|e| contact_core::io::IoFailure::Dns(e.to_string()))
}

/// Binds the service's listener (`BIND_ADDR`) and, when set, the metrics listener
/// (`METRICS_ADDR`), non-blocking for a runtime to adopt; logs "listening on …" and "metrics on
/// …"; adds the host's outward addresses to the SSRF block list when listening everywhere.
///
/// # Errors
/// Exit status 1 after printing which address cannot be bound.
pub fn bind_listeners(
    config: &mut Config,
) -> Result<(std::net::TcpListener, Option<std::net::TcpListener>), ExitCode> {
    let bind = |what: &str, addr: std::net::SocketAddr| {
        std::net::TcpListener::bind(addr)
            .and_then(|listener| listener.set_nonblocking(true).map(|()| listener))
            .map_err(|error| {
                eprintln!("contact-extract: cannot listen on {what}{addr}: {error}");
                ExitCode::FAILURE
            })
    };
    let listener = bind("", config.bind_addr)?;
    let address = listener.local_addr().map_or(config.bind_addr, |a| a);
    log_line(config.log_format, &format!("listening on {address}"));
    block_own_addresses(config);
    let metrics = match config.metrics_addr {
        None => None,
        Some(addr) => {
            let listener = bind("METRICS_ADDR ", addr)?;
            let bound = listener.local_addr().map_or(addr, |a| a);
            log_line(config.log_format, &format!("metrics on {bound}"));
            Some(listener)
        }
    };
    Ok((listener, metrics))
}

/// The log line for the `round`-th stop signal (`name` as the signal's short name, e.g.
/// `Term`): the first starts the drain, the second exits now.
pub fn signal_line(name: &str, round: usize) -> String {
    if round == 0 {
        format!(
            "received {name}; draining (up to {} s; a second signal exits now)",
            contact_core::budget::DRAIN_GRACE.as_secs()
        )
    } else {
        format!("received {name} again; exiting")
    }
}

/// Most time the connections get to write their last lines once cut short.
pub const CUT_FLUSH: std::time::Duration = std::time::Duration::from_secs(2);

/// The drain's wait, once the listener is closed and the connections are told
/// (docs/operations.md, "Drain"): until no connection is `active`, for at most `grace`; a second
/// stop message (`second_stop` resolves to `true`; `false`: nobody can send one any more) ends
/// the wait early. Connections still open then are cut short: the reason is logged, `cut` tells
/// them, and they get [`CUT_FLUSH`] to write their last lines. `sleep` is the runtime's timer.
pub async fn drain_connections<Sleep, Stop>(
    active: &std::sync::atomic::AtomicUsize,
    grace: std::time::Duration,
    log_format: contact_core::config::LogFormat,
    mut sleep: impl FnMut(std::time::Duration) -> Sleep,
    mut second_stop: impl FnMut() -> Stop,
    cut: impl FnOnce(),
) where
    Sleep: std::future::Future<Output = ()>,
    Stop: std::future::Future<Output = bool>,
{
    use std::sync::atomic::Ordering;
    use std::time::Duration;
    const TICK: Duration = Duration::from_millis(20);
    let deadline = Instant::now() + grace;
    let idle = || active.load(Ordering::SeqCst) == 0;
    let mut forced = false;
    while !idle() && Instant::now() < deadline {
        let tick = async {
            sleep(TICK).await;
            None
        };
        let stop = async { Some(second_stop().await) };
        match futures_lite::future::or(tick, stop).await {
            Some(true) => {
                forced = true;
                break;
            }
            // No sender left: only the grace or the connections can end the wait.
            Some(false) => sleep(TICK).await,
            None => {}
        }
    }
    if idle() {
        return;
    }
    let why = if forced {
        "second signal"
    } else {
        "grace period over"
    };
    let open = active.load(Ordering::SeqCst);
    log_line(
        log_format,
        &format!("{why}: cutting short {open} connection(s)"),
    );
    cut();
    let flush_by = Instant::now() + CUT_FLUSH;
    while !idle() && Instant::now() < flush_by {
        sleep(Duration::from_millis(10)).await;
    }
}

/// Checks each facilitator's `GET /supported` (one after the other) now and
/// [`contact_core::budget::FACILITATOR_CHECK_INTERVAL`] after each round ends
/// (`contact_core::exchange::Exchange::facilitator_check`; `/api/ready` and the choice of a
/// new payment's facilitator read the outcomes), logs each change of an outcome, reads the
/// payment network's head after each round when a chain judge is configured
/// (`contact_core::exchange::Exchange::chain_head_check`: new payment records store it), and signs
/// the offers again when due (`Server::refresh_offers`). `drive` runs one client-less exchange
/// to its end on the runtime; `sleep` is the runtime's timer. Ends when payments are not
/// configured.
pub async fn check_facilitator<Drive, Sleep>(
    server: Server,
    mut drive: impl FnMut(contact_core::exchange::Exchange) -> Drive,
    mut sleep: impl FnMut(std::time::Duration) -> Sleep,
) where
    Drive: std::future::Future,
    Sleep: std::future::Future,
{
    use contact_core::budget::FACILITATOR_CHECK_INTERVAL;
    use contact_core::exchange::Exchange;
    let log_format = server.config().log_format;
    let urls: Vec<String> = match &server.config().payment {
        PaymentConfig::Ready { facilitators, .. } => facilitators
            .iter()
            .map(|f| contact_core::config::endpoint_label(&f.url))
            .collect(),
        PaymentConfig::Incomplete(_) => return,
    };
    let mut last: Vec<_> = (0..urls.len())
        .map(|index| server.facilitator_health(index))
        .collect();
    loop {
        for (index, url) in urls.iter().enumerate() {
            let Some(check) = Exchange::facilitator_check(&server, index, Instant::now()) else {
                return;
            };
            drive(check).await;
            let health = server.facilitator_health(index);
            if health != last[index] {
                let line = if urls.len() > 1 {
                    format!("{health} [{url}]")
                } else {
                    health.to_string()
                };
                log_line(log_format, &line);
                last[index] = health;
            }
        }
        // The payment network's head, for the records of new payments (with a chain judge).
        if let Some(read) = Exchange::chain_head_check(&server, Instant::now()) {
            drive(read).await;
        }
        // Signed offers (x402 offer-receipt) are signed again before they lapse.
        server.refresh_offers(read_clocks().unix);
        sleep(FACILITATOR_CHECK_INTERVAL).await;
    }
}

/// Both clocks, read together at an event: the monotonic one for deadlines, the wall clock
/// for payment windows and leases ([`contact_core::driver::Driver::handle`] takes them with
/// every event, so a wall-clock step is followed at once). A wall clock before 1970 reads as
/// the epoch.
pub fn read_clocks() -> Now {
    Now {
        at: Instant::now(),
        unix: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A relative secret path is a systemd credential when `$CREDENTIALS_DIRECTORY` is set;
    /// an absolute one is read as given.
    #[test]
    fn relative_secret_paths_are_read_from_the_credentials_directory() {
        let dir = Some(std::ffi::OsStr::new(
            "/run/credentials/contact-extract.service",
        ));
        assert_eq!(
            credential_path_in(dir, "cdp-key"),
            std::path::Path::new("/run/credentials/contact-extract.service/cdp-key")
        );
        assert_eq!(
            credential_path_in(dir, "/etc/contact-extract/cdp-key"),
            std::path::Path::new("/etc/contact-extract/cdp-key")
        );
        assert_eq!(
            credential_path_in(None, "cdp-key"),
            std::path::Path::new("cdp-key")
        );
    }

    #[test]
    fn the_redis_password_file_fills_the_url_and_refuses_a_second_password() {
        let dir = std::env::temp_dir().join(format!("contact-redis-pw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("redis-password");
        std::fs::write(&file, "s3cret/with@signs\n").unwrap();
        let file = file.to_str().unwrap();
        let config_with = |url: &str| {
            let vars = [("REDIS_URL".to_string(), url.to_string())].into();
            Config::from_env_map(&vars).unwrap()
        };
        let mut config = config_with("redis://app@10.0.0.5:6379/2");
        load_redis_password(&mut config, Some(file)).unwrap();
        let url = url::Url::parse(config.redis_url.as_deref().unwrap()).unwrap();
        assert_eq!(url.username(), "app");
        // Percent-encoded in the URL (RFC 3986 userinfo); the Redis client decodes it.
        assert_eq!(url.password(), Some("s3cret%2Fwith%40signs"));
        assert_eq!((url.host_str(), url.path()), (Some("10.0.0.5"), "/2"));
        let mut twice = config_with("redis://:inline@10.0.0.5:6379");
        let why = load_redis_password(&mut twice, Some(file)).unwrap_err();
        assert!(why.contains("already holds a password"), "{why}");
        let mut none = Config::from_env_map(&Default::default()).unwrap();
        assert!(load_redis_password(&mut none, Some(file)).is_err());
        std::fs::write(dir.join("redis-password"), "").unwrap();
        let why = load_redis_password(&mut config_with("redis://h:1"), Some(file)).unwrap_err();
        assert!(why.contains("one line"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
