//! The real server on loopback: health, the 402, the SSRF refusal, and a paid request that
//! crawls a fixture site and settles once with a test facilitator. Every server binds to
//! 127.0.0.1 port 0 and stops itself; every loop is bounded.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use contact_core::config::{Config, PaymentConfig};
use contact_core::payment::{codec, SettleResponse};
use contact_core::testing::sim::payment_header;
use futures_rustls::rustls;

/// A loopback HTTP responder on its own thread; it stops when dropped.
struct Fixture {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    requests: Arc<Mutex<Vec<Vec<u8>>>>,
    thread: Option<JoinHandle<()>>,
}

impl Fixture {
    fn start(handler: impl Fn(&[u8]) -> Vec<u8> + Send + Sync + 'static) -> Fixture {
        Fixture::start_with(None, handler)
    }

    /// With `tls`, the fixture speaks HTTPS with that server configuration.
    fn start_with(
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

    fn count(&self, path: &str) -> usize {
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
trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

/// Reads one request (head + Content-Length body), bounded in size.
fn read_request(stream: &mut dyn ReadWrite) -> Vec<u8> {
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

fn request_path(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw)
        .split(' ')
        .nth(1)
        .unwrap_or("")
        .to_string()
}

fn response(status: u16, content_type: &str, body: &str) -> Vec<u8> {
    format!("HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).into_bytes()
}

/// The service on 127.0.0.1:0 in a background thread; stops when dropped.
struct Service {
    addr: SocketAddr,
    stop: smol::channel::Sender<()>,
    thread: Option<JoinHandle<()>>,
    config: Config,
}

impl Service {
    fn start_with_tls(vars: &[(&str, String)], tls: futures_rustls::TlsConnector) -> Service {
        let map: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let config = Config::from_env_map(&map).unwrap();
        let listener = smol::Async::<TcpListener>::bind(([127, 0, 0, 1], 0)).unwrap();
        let addr = listener.get_ref().local_addr().unwrap();
        let server = contact_runtime_smol::new_server(config.clone());
        let (stop, stopped) = smol::channel::bounded(1);
        let thread = std::thread::spawn(move || {
            contact_runtime_smol::run(
                1,
                contact_runtime_smol::serve_with_tls(
                    listener,
                    server,
                    stopped,
                    Duration::from_secs(2),
                    tls,
                ),
            );
        });
        Service {
            addr,
            stop,
            thread: Some(thread),
            config,
        }
    }

    /// Sends one request with `Connection: close` and returns (status, headers, body).
    fn call(&self, raw: &[u8]) -> (u16, String, String) {
        let mut stream = TcpStream::connect(self.addr).unwrap();
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
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.stop.try_send(());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

fn post(body: &str, payment: Option<&str>) -> Vec<u8> {
    let extra = payment
        .map(|p| format!("PAYMENT-SIGNATURE: {p}\r\n"))
        .unwrap_or_default();
    format!("POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).into_bytes()
}

const HOME: &str = r#"<html><head><title>Fixture Shop | Home</title></head><body><a href="/contact">Contact</a>
<p><a href="mailto:info@fixture-shop.com">info@fixture-shop.com</a></p></body></html>"#;
const CONTACT: &str = "<html><body><p>Phone: +44 20 8551 6580</p></body></html>";

/// The fixture site: a homepage linking to a contact page.
fn fixture_pages(raw: &[u8]) -> Vec<u8> {
    match request_path(raw).as_str() {
        "/" => response(200, "text/html", HOME),
        "/contact" => response(200, "text/html", CONTACT),
        _ => response(404, "text/html", ""),
    }
}

fn world() -> (Fixture, Fixture, Service) {
    world_with(fixture_pages)
}

#[test]
fn health_402_and_private_target_over_real_sockets() {
    let (site, _facilitator, service) = world();
    let (status, head, body) =
        service.call(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!((status, body.as_str()), (200, r#"{"status":"ok"}"#));
    assert!(header(&head, "X-Request-Id").unwrap().starts_with("req_"));
    let url = format!(
        r#"{{"url":"http://www.fixture-shop.com:{}/"}}"#,
        site.addr.port()
    );
    let (status, head, _) = service.call(&post(&url, None));
    assert_eq!(status, 402);
    assert!(header(&head, "PAYMENT-REQUIRED").is_some());
    let private = format!(r#"{{"url":"http://10.0.0.1:{}/"}}"#, site.addr.port());
    let (status, _, body) = service.call(&post(&private, None));
    assert_eq!(status, 400);
    assert!(body.contains("PRIVATE_ADDRESS"));
    assert_eq!(site.count("/"), 0);
}

#[test]
fn paid_request_crawls_the_fixture_site_and_settles_once() {
    let (site, facilitator, service) = world();
    let PaymentConfig::Ready { terms, .. } = &service.config.payment else {
        panic!("ready")
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let signature = payment_header(&terms.requirements, 9, 0, now + 60);
    let url = format!(
        r#"{{"url":"http://www.fixture-shop.com:{}/"}}"#,
        site.addr.port()
    );
    let (status, head, body) = service.call(&post(&url, Some(&signature)));
    assert_eq!(status, 200, "{head}\n{body}");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["emails"][0]["value"], "info@fixture-shop.com");
    assert_eq!(json["phones"][0]["value"], "+442085516580");
    assert_eq!(json["companyName"], "Fixture Shop");
    let settled: SettleResponse =
        codec::decode(header(&head, "PAYMENT-RESPONSE").unwrap()).unwrap();
    assert_eq!(
        (settled.success, settled.transaction.as_str()),
        (true, "0xfeed")
    );
    assert_eq!(
        (facilitator.count("/verify"), facilitator.count("/settle")),
        (1, 1)
    );
    assert_eq!((site.count("/"), site.count("/contact")), (1, 1));
    // A replay is refused without a second crawl or facilitator call.
    let (status, _, _) = service.call(&post(&url, Some(&signature)));
    assert_eq!(status, 402);
    assert_eq!((facilitator.count("/verify"), site.count("/")), (1, 1));
}

/// A world whose site answers with `site`; the facilitator accepts everything.
fn world_with(
    site: impl Fn(&[u8]) -> Vec<u8> + Send + Sync + 'static,
) -> (Fixture, Fixture, Service) {
    world_around(Fixture::start(site), contact_runtime_smol::tls_connector())
}

/// A facilitator that accepts everything and a service wired to `site`, fetching with `tls`.
fn world_around(site: Fixture, tls: futures_rustls::TlsConnector) -> (Fixture, Fixture, Service) {
    let facilitator = Fixture::start(|raw| {
        if request_path(raw) == "/verify" {
            response(200, "application/json", r#"{"isValid":true}"#)
        } else {
            response(
                200,
                "application/json",
                r#"{"success":true,"transaction":"0xfeed","network":"eip155:8453"}"#,
            )
        }
    });
    let service = Service::start_with_tls(
        &[
            ("PUBLIC_BASE_URL", "https://contacts.example.com".into()),
            (
                "PAY_TO",
                "0x70997970C51812dc3A010C7d01b50e0d17dc79C8".into(),
            ),
            ("FACILITATOR_URL", format!("http://{}", facilitator.addr)),
            ("ALLOW_PRIVATE_CIDRS", "127.0.0.0/8".into()),
            ("ALLOWED_PORTS", site.addr.port().to_string()),
            ("RESOLVE", "www.fixture-shop.com=127.0.0.1".into()),
            ("X402_MAX_TIMEOUT_SECONDS", "60".into()),
            ("LOG_FORMAT", "pretty".into()),
        ],
        tls,
    );
    (site, facilitator, service)
}

fn paid_call(service: &Service, site: &Fixture, nonce: u8) -> (u16, String, String) {
    paid_call_over("http", service, site, nonce)
}

/// A paid extraction of the fixture site at `scheme://www.fixture-shop.com:<port>/`.
fn paid_call_over(
    scheme: &str,
    service: &Service,
    site: &Fixture,
    nonce: u8,
) -> (u16, String, String) {
    let PaymentConfig::Ready { terms, .. } = &service.config.payment else {
        panic!("ready")
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let signature = payment_header(&terms.requirements, nonce, 0, now + 60);
    let url = format!(
        r#"{{"url":"{scheme}://www.fixture-shop.com:{}/"}}"#,
        site.addr.port()
    );
    service.call(&post(&url, Some(&signature)))
}

#[test]
fn extra_pages_are_fetched_concurrently() {
    const DELAY: Duration = Duration::from_millis(600);
    let (site, facilitator, service) = world_with(|raw| {
        let html = r#"<title>Fixture Shop</title><a href="/contact">Contact</a><a href="/about">About us</a><a href="/impressum">Impressum</a>"#;
        match request_path(raw).as_str() {
            "/" => response(200, "text/html", html),
            _ => {
                std::thread::sleep(DELAY);
                response(200, "text/html", "<p>info@fixture-shop.com</p>")
            }
        }
    });
    let started = Instant::now();
    let (status, _, body) = paid_call(&service, &site, 11);
    let elapsed = started.elapsed();
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        site.requests.lock().unwrap().len(),
        4,
        "homepage and three extra pages"
    );
    // Three pages of 600 ms each: about 600 ms when concurrent, 1 800 ms in sequence.
    assert!(elapsed < DELAY * 2, "took {elapsed:?}");
    assert!(elapsed >= DELAY);
    assert_eq!(facilitator.count("/settle"), 1);
}

#[test]
fn chunked_and_gzip_responses_are_read() {
    let gzip = |data: &[u8]| {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    };
    let home = gzip(
        br#"<title>Fixture Shop</title><a href="/contact">Contact</a><p>info@fixture-shop.com</p>"#,
    );
    let (site, _facilitator, service) = world_with(move |raw| {
        if request_path(raw) == "/" {
            let mut out = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", home.len()).into_bytes();
            out.extend_from_slice(&home);
            out
        } else {
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n11\r\n<p>Phone: +44 20 \r\nc\r\n8551 6580</p\r\n1\r\n>\r\n0\r\n\r\n".to_vec()
        }
    });
    let (status, _, body) = paid_call(&service, &site, 12);
    assert_eq!(status, 200, "{body}");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["emails"][0]["value"], "info@fixture-shop.com");
    assert_eq!(json["phones"][0]["value"], "+442085516580");
}

#[test]
fn a_stalled_site_is_a_timeout_inside_the_deadline_and_not_charged() {
    let (site, facilitator, service) = world_with(|_| {
        std::thread::sleep(Duration::from_secs(15));
        Vec::new()
    });
    let started = Instant::now();
    let (status, _, body) = paid_call(&service, &site, 13);
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("TIMEOUT"), "{body}");
    assert!(
        started.elapsed() < Duration::from_secs(14),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(facilitator.count("/settle"), 0);
}

#[test]
fn a_slowloris_client_is_closed_without_affecting_others() {
    let (_site, _facilitator, service) = world_with(|_| Vec::new());
    let mut slow = TcpStream::connect(service.addr).unwrap();
    slow.write_all(b"POST /api/v1/extract-contact HTTP/1.1\r\nContent-Le")
        .unwrap();
    // Another client is served meanwhile.
    let (status, _, _) = service.call(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
    slow.set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let started = Instant::now();
    let mut rest = Vec::new();
    let _ = slow.read_to_end(&mut rest);
    assert!(rest.is_empty());
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(8) && waited < Duration::from_secs(13),
        "{waited:?}"
    );
}

/// The official x402 v2 client (`@x402/fetch` 2.27 + `@x402/evm`, test key of x402-notes §7.1)
/// pays for a real extraction of the fixture site; a replay of its `PAYMENT-SIGNATURE` is
/// refused without a second crawl. Needs Node.js and `.ci/node/node_modules`, which `.ci/run`
/// installs before running this test with `--ignored`.
#[test]
#[ignore = "needs the official npm client; .ci/run installs it and runs this test"]
fn the_official_client_pays_and_its_replay_is_refused() {
    let (site, facilitator, service) = world();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/node/pay.mjs");
    let endpoint = format!("http://{}/api/v1/extract-contact", service.addr);
    let target = format!("http://www.fixture-shop.com:{}/", site.addr.port());
    let output = std::process::Command::new("node")
        .arg(&script)
        .arg(&endpoint)
        .arg(&target)
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON line");
    assert_eq!(report["status"], 200, "{report}");
    assert_eq!(
        report["body"]["emails"][0]["value"],
        "info@fixture-shop.com"
    );
    assert_eq!(report["body"]["phones"][0]["value"], "+442085516580");
    assert_eq!(report["paymentResponse"]["success"], true);
    assert_eq!(report["paymentResponse"]["transaction"], "0xfeed");
    assert_eq!(report["signatureSent"], true);
    assert_eq!(
        (facilitator.count("/verify"), facilitator.count("/settle")),
        (1, 1)
    );
    // The replay: 402, and no second crawl or facilitator call.
    assert_eq!(report["replayStatus"], 402);
    assert_eq!((site.count("/"), facilitator.count("/verify")), (1, 1));
}

/// A test CA and a certificate for `www.fixture-shop.com` signed by it: (CA DER, server config).
fn test_pki() -> (Vec<u8>, Arc<rustls::ServerConfig>) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["www.fixture-shop.com".to_string()])
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![leaf.der().clone()], key)
    .unwrap();
    (ca.der().to_vec(), Arc::new(config))
}

fn https_world(trust_test_ca: bool) -> (Fixture, Fixture, Service) {
    let (ca, server_config) = test_pki();
    let site = Fixture::start_with(Some(server_config), fixture_pages);
    let roots = if trust_test_ca { vec![ca] } else { Vec::new() };
    world_around(site, contact_runtime_smol::tls_connector_with(&roots))
}

fn paid_https_call(service: &Service, site: &Fixture, nonce: u8) -> (u16, String, String) {
    paid_call_over("https", service, site, nonce)
}

#[test]
fn https_site_with_a_trusted_test_ca_is_extracted() {
    let (site, facilitator, service) = https_world(true);
    let (status, _, body) = paid_https_call(&service, &site, 14);
    assert_eq!(status, 200, "{body}");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["emails"][0]["value"], "info@fixture-shop.com");
    assert_eq!(json["phones"][0]["value"], "+442085516580");
    assert_eq!(facilitator.count("/settle"), 1);
}

#[test]
fn https_site_with_an_untrusted_certificate_is_fetch_failed_and_not_charged() {
    let (site, facilitator, service) = https_world(false);
    let (status, _, body) = paid_https_call(&service, &site, 15);
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("FETCH_FAILED"));
    assert_eq!(facilitator.count("/settle"), 0);
}
