//! What the loopback test files share: the real service on 127.0.0.1:0 in a thread, and
//! raw requests to it.

#![allow(dead_code)] // each test file uses a part

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::Duration;

use contact_core::config::Config;
use contact_core::server::Extractor;
use contact_e2e::fixture::{request_path, response};
use contact_e2e::runtimes::{runtime, Runtime};

/// The webpki roots only (what production trusts).
pub fn webpki() -> Vec<Vec<u8>> {
    Vec::new()
}

/// The service on 127.0.0.1:0 in a background thread, on this test's runtime; stops when
/// dropped.
pub struct Service {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Box<dyn Fn() + Send + Sync>,
    thread: Option<JoinHandle<()>>,
    /// Its settings.
    pub config: Config,
}

impl Service {
    /// The service with `vars`, trusting the webpki roots and `extra_roots` (DER) for its
    /// fetches; `extractor` replaces the page extractor.
    pub fn start_with_tls(
        vars: &[(&str, String)],
        extra_roots: Vec<Vec<u8>>,
        extractor: Option<Extractor>,
    ) -> Service {
        let map: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let mut config = Config::from_env_map(&map).unwrap();
        contact_runtime_common::service::load_offer_signer(&mut config).unwrap();
        contact_runtime_common::service::load_facilitator_credentials(&mut config).unwrap();
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let mut server = contact_runtime_common::service::new_server(config.clone());
        if let Some(extractor) = extractor {
            server.set_extractor(extractor);
        }
        let grace = Duration::from_secs(2);
        let (stop, thread): (Box<dyn Fn() + Send + Sync>, JoinHandle<()>) = match runtime() {
            Runtime::Smol => {
                let (stop, stopped) = smol::channel::bounded(1);
                let listener = smol::Async::new(listener).unwrap();
                let tls = contact_runtime_smol::tls_connector_with(&extra_roots);
                let thread = std::thread::spawn(move || {
                    contact_runtime_smol::run(
                        1,
                        contact_runtime_smol::serve_with_tls(listener, server, stopped, grace, tls),
                    );
                });
                (
                    Box::new(move || {
                        let _ = stop.try_send(());
                    }),
                    thread,
                )
            }
            Runtime::Tokio => {
                let (stop, stopped) = smol::channel::bounded(1);
                let tls = contact_runtime_tokio::tls_connector_with(&extra_roots);
                let thread = std::thread::spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .unwrap();
                    runtime.block_on(async move {
                        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                        contact_runtime_tokio::serve_with_tls(
                            listener, server, stopped, grace, tls,
                        )
                        .await;
                    });
                });
                (
                    Box::new(move || {
                        let _ = stop.try_send(());
                    }),
                    thread,
                )
            }
        };
        Service {
            addr,
            stop,
            thread: Some(thread),
            config,
        }
    }

    /// Sends one request with `Connection: close` and returns (status, headers, body).
    pub fn call(&self, raw: &[u8]) -> (u16, String, String) {
        call_at(self.addr, raw)
    }
}

/// Sends one request with `Connection: close` to a service at `addr` (this process's
/// [`Service`] or one in a process of its own) and returns (status, headers, body).
pub fn call_at(addr: SocketAddr, raw: &[u8]) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(40)))
        .unwrap();
    stream.write_all(raw).unwrap();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

impl Service {
    /// `GET /api/ready` until it answers 200 or 5 s pass (the facilitator check at start-up
    /// runs beside the first requests); the last answer's (status, body).
    pub fn wait_ready(&self) -> (u16, String) {
        wait_ready_at(self.addr)
    }
}

/// `GET /api/ready` from the service at `addr` until it answers 200 or 5 s pass; the last
/// answer's (status, body).
pub fn wait_ready_at(addr: SocketAddr) -> (u16, String) {
    let ready = b"GET /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n";
    let started = std::time::Instant::now();
    loop {
        let (status, _, body) = call_at(addr, ready);
        if status == 200 || started.elapsed() > Duration::from_secs(5) {
            return (status, body);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        (self.stop)();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A `Connection: close` POST of `body` to the paid route, with `payment` as `PAYMENT-SIGNATURE`.
pub fn post(body: &str, payment: Option<&str>) -> Vec<u8> {
    let extra = payment
        .map(|p| format!("PAYMENT-SIGNATURE: {p}\r\n"))
        .unwrap_or_default();
    format!("POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).into_bytes()
}

pub const HOME: &str = r#"<html><head><title>Fixture Shop | Home</title></head><body><a href="/contact">Contact</a>
<p><a href="mailto:info@fixture-shop.com">info@fixture-shop.com</a></p></body></html>"#;
pub const CONTACT: &str = "<html><body><p>Phone: +44 20 8551 6580</p></body></html>";

/// The fixture site: a homepage linking to a contact page.
pub fn fixture_pages(raw: &[u8]) -> Vec<u8> {
    match request_path(raw).as_str() {
        "/" => response(200, "text/html", HOME),
        "/contact" => response(200, "text/html", CONTACT),
        _ => response(404, "text/html", ""),
    }
}
