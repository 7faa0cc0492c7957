//! Loopback HTTP(S) responders for tests: each binds 127.0.0.1 port 0, answers every
//! request with a handler on its own thread, records the requests, and stops when dropped
//! (or after 60 s). Every loop is bounded.

#![allow(clippy::unwrap_used)] // test support: a failed unwrap is a failed test
#![allow(clippy::missing_panics_doc)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use futures_rustls::rustls;

/// A facilitator's `GET /supported` answer listing x402 v2 `exact` on Base (`eip155:8453`), as
/// the reference facilitator gives it.
pub const SUPPORTED: &str = r#"{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:8453"}],"extensions":[],"signers":{"eip155:*":["0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"]}}"#;

/// A loopback HTTP responder on its own thread; it stops when dropped.
pub struct Fixture {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    /// Every request received, raw.
    pub requests: Arc<Mutex<Vec<Vec<u8>>>>,
    thread: Option<JoinHandle<()>>,
}

impl Fixture {
    /// An HTTP responder answering each request with `handler(raw request)`.
    pub fn start(handler: impl Fn(&[u8]) -> Vec<u8> + Send + Sync + 'static) -> Fixture {
        Fixture::start_with(None, handler)
    }

    /// With `tls`, the fixture speaks HTTPS with that server configuration.
    pub fn start_with(
        tls: Option<Arc<rustls::ServerConfig>>,
        handler: impl Fn(&[u8]) -> Vec<u8> + Send + Sync + 'static,
    ) -> Fixture {
        let handler = Arc::new(handler);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (stop_flag, seen) = (stop.clone(), requests.clone());
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            while !stop_flag.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(60) {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        // One thread per connection, so slow answers do not serialise requests.
                        let (handler, seen, tls) = (handler.clone(), seen.clone(), tls.clone());
                        std::thread::spawn(move || {
                            stream.set_nonblocking(false).unwrap();
                            stream
                                .set_read_timeout(Some(Duration::from_secs(5)))
                                .unwrap();
                            let answer = |io: &mut dyn ReadWrite| {
                                let request = read_request(io);
                                seen.lock().unwrap().push(request.clone());
                                let _ = io.write_all(&handler(&request));
                                let _ = io.flush();
                            };
                            match tls {
                                Some(config) => {
                                    let Ok(connection) = rustls::ServerConnection::new(config)
                                    else {
                                        return;
                                    };
                                    let mut tls_stream =
                                        rustls::StreamOwned::new(connection, stream);
                                    answer(&mut tls_stream);
                                    tls_stream.conn.send_close_notify();
                                    let _ = tls_stream.flush();
                                }
                                None => answer(&mut stream),
                            }
                        });
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Fixture {
            addr,
            stop,
            requests,
            thread: Some(thread),
        }
    }

    /// A test facilitator that verifies and settles everything: `/supported` lists x402 v2
    /// `exact` on `eip155:8453`, `/verify` answers `{"isValid":true}`, `/settle` a success with
    /// transaction `0xfeed` on `eip155:8453`.
    pub fn accepting_facilitator() -> Fixture {
        Fixture::start(accepting_answer)
    }

    /// Requests received for `path`.
    pub fn count(&self, path: &str) -> usize {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter(|r| request_path(r) == path)
            .count()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A byte stream (plain TCP or TLS).
pub trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

/// Reads one request (head + Content-Length body), bounded in size.
pub fn read_request(stream: &mut dyn ReadWrite) -> Vec<u8> {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    while data.len() < 1 << 20 {
        let Ok(n) = stream.read(&mut buf) else { break };
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if data.len() >= end + 4 + length {
                break;
            }
        }
    }
    data
}

/// The answer of a test facilitator that verifies and settles everything
/// ([`Fixture::accepting_facilitator`]) to the raw request `raw`.
pub fn accepting_answer(raw: &[u8]) -> Vec<u8> {
    match request_path(raw).as_str() {
        "/supported" => response(200, "application/json", SUPPORTED),
        "/verify" => response(200, "application/json", r#"{"isValid":true}"#),
        _ => response(
            200,
            "application/json",
            r#"{"success":true,"transaction":"0xfeed","network":"eip155:8453"}"#,
        ),
    }
}

/// The request target of a raw request.
pub fn request_path(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw)
        .split(' ')
        .nth(1)
        .unwrap_or("")
        .to_string()
}

/// A complete `Connection: close` response.
pub fn response(status: u16, content_type: &str, body: &str) -> Vec<u8> {
    format!("HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).into_bytes()
}

/// The value of header `name` in a response head.
pub fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// The service settings of a world with `site` (as `www.fixture-shop.com`, loopback allowed)
/// and `facilitator`: `(variable, value)` pairs for `Config::from_env_map` or a process.
pub fn service_vars(site: &Fixture, facilitator: &Fixture) -> Vec<(&'static str, String)> {
    service_vars_at(site.addr, facilitator)
}

/// As [`service_vars`], for a site listening at `site` (a test's own listener).
pub fn service_vars_at(site: SocketAddr, facilitator: &Fixture) -> Vec<(&'static str, String)> {
    service_vars_with(site, &format!("http://{}", facilitator.addr))
}

/// As [`service_vars`], for a site at `site` and the facilitator at `facilitator_url`.
pub fn service_vars_with(site: SocketAddr, facilitator_url: &str) -> Vec<(&'static str, String)> {
    vec![
        (
            "PUBLIC_BASE_URL",
            "https://contacts.example.com".to_string(),
        ),
        (
            "PAY_TO",
            "0x70997970C51812dc3A010C7d01b50e0d17dc79C8".to_string(),
        ),
        ("FACILITATOR_URL", facilitator_url.to_string()),
        ("ALLOW_PRIVATE_CIDRS", "127.0.0.0/8".to_string()),
        ("ALLOWED_PORTS", site.port().to_string()),
        ("RESOLVE", "www.fixture-shop.com=127.0.0.1".to_string()),
        ("X402_MAX_TIMEOUT_SECONDS", "120".to_string()),
        // No judge unless a test names one: unset would be the network's public RPC, and a
        // test reaches nothing beyond loopback.
        ("CHAIN_RPC_URL", "none".to_string()),
    ]
}
