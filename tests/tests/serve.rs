//! The real server on loopback: health, the 402, the SSRF refusal, and a paid request that
//! crawls a fixture site and settles once with a test facilitator. Every server binds to
//! 127.0.0.1 port 0 and stops itself; every loop is bounded.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use contact_core::config::PaymentConfig;
use contact_core::payment::{codec, SettleResponse};
use contact_core::testing::sim::payment_header;
use contact_e2e::fixture::{header, request_path, response, service_vars, Fixture};
use contact_e2e::process::Grouped as _;
use futures_rustls::rustls;

mod common;
use common::{fixture_pages, post, webpki, Service, HOME};

fn world() -> (Fixture, Fixture, Service) {
    world_with(fixture_pages)
}

fn health_402_and_private_target_over_real_sockets() {
    let (site, _facilitator, service) = world();
    let (status, head, body) =
        service.call(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
    // The version the binary reports (CHANGELOG.md's newest release).
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        (status, body),
        (200, format!(r#"{{"status":"ok","version":"{version}"}}"#))
    );
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

fn paid_request_crawls_the_fixture_site_and_settles_once() {
    let (site, facilitator, service) = world();
    let signature = fresh_signature(&service, 9);
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
    // The same PAYMENT-SIGNATURE again gets the kept 200, without a second crawl or
    // facilitator call (docs/payments.md).
    let (again, again_head, again_body) = service.call(&post(&url, Some(&signature)));
    assert_eq!((again, again_body.as_str()), (200, body.as_str()));
    assert_eq!(
        header(&again_head, "PAYMENT-RESPONSE"),
        header(&head, "PAYMENT-RESPONSE")
    );
    assert_eq!(
        (
            facilitator.count("/verify"),
            facilitator.count("/settle"),
            site.count("/")
        ),
        (1, 1, 1)
    );
}

/// A world whose site answers with `site`; the facilitator accepts everything.
fn world_with(
    site: impl Fn(&[u8]) -> Vec<u8> + Send + Sync + 'static,
) -> (Fixture, Fixture, Service) {
    world_around(Fixture::start(site), webpki())
}

/// A facilitator that accepts everything and a service wired to `site`, fetching with `tls`.
fn world_around(site: Fixture, tls: Vec<Vec<u8>>) -> (Fixture, Fixture, Service) {
    world_of(site, Fixture::accepting_facilitator(), tls, &[])
}

/// A service wired to `site` and `facilitator`; `extra` settings override the defaults
/// (an empty value removes one).
fn world_of(
    site: Fixture,
    facilitator: Fixture,
    tls: Vec<Vec<u8>>,
    extra: &[(&str, String)],
) -> (Fixture, Fixture, Service) {
    let mut vars: BTreeMap<&str, String> = service_vars(&site, &facilitator).into_iter().collect();
    vars.insert("LOG_FORMAT", "pretty".to_string());
    for (name, value) in extra {
        if value.is_empty() {
            vars.remove(name);
        } else {
            vars.insert(name, value.clone());
        }
    }
    let vars: Vec<(&str, String)> = vars.into_iter().collect();
    let service = Service::start_with_tls(&vars, tls, None);
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
    let url = format!("{scheme}://www.fixture-shop.com:{}/", site.addr.port());
    paid_call_to(service, &url, nonce)
}

fn extra_pages_are_fetched_concurrently() {
    const DELAY: Duration = Duration::from_millis(600);
    let (site, facilitator, service) = world_with(|raw| {
        let html = r#"<title>Fixture Shop</title><a href="/contact">Contact</a><a href="/about">About us</a><a href="/impressum">Impressum</a>"#;
        match request_path(raw).as_str() {
            "/" => response(200, "text/html", html),
            _ => {
                // Slow pages are the behaviour under test (do they overlap?), not synchronisation.
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

fn a_stalled_site_is_a_timeout_inside_the_deadline_and_not_charged() {
    let (site, facilitator, service) = world_with(|_| {
        // A stalled site is the behaviour under test, not synchronisation.
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

/// `.ci/node` with the pinned official client installed (`npm install` from the npm registry
/// when `node_modules` is missing; `.ci/run` installs it beforehand).
fn official_client_dir() -> std::path::PathBuf {
    contact_e2e::tools::node_packages(&["@x402/fetch", "@x402/evm", "@x402/extensions", "viem"])
}

/// Runs the official x402 v2 client (`.ci/node/pay.mjs`) against `service` for `site`, with
/// `extra` arguments; returns its one-line JSON report.
fn official_client(service: &Service, site: &Fixture, extra: &[&str]) -> serde_json::Value {
    let script = official_client_dir().join("pay.mjs");
    let endpoint = format!("http://{}/api/v1/extract-contact", service.addr);
    let target = format!("http://www.fixture-shop.com:{}/", site.addr.port());
    let output = std::process::Command::new("node")
        .arg(&script)
        .arg(&endpoint)
        .arg(&target)
        .args(extra)
        .output_in_group()
        .expect("run node");
    assert!(
        output.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON line")
}

/// The official x402 v2 client (`@x402/fetch` 2.27 + `@x402/evm`, test key of docs/payments.md "x402 v2 in practice")
/// pays for a real extraction of the fixture site; its own retry with the same
/// `PAYMENT-SIGNATURE`, and the same header replayed by curl, get the kept response byte for
/// byte, without a second crawl, verify or settle. Needs Node.js; see [`official_client_dir`].
fn the_official_client_pays_and_a_replay_of_its_signature_gets_the_same_response() {
    let (site, facilitator, service) = world();
    let report = official_client(&service, &site, &[]);
    assert_eq!(report["status"], 200, "{report}");
    assert_eq!(
        report["body"]["emails"][0]["value"],
        "info@fixture-shop.com"
    );
    assert_eq!(report["body"]["phones"][0]["value"], "+442085516580");
    assert_eq!(report["paymentResponse"]["success"], true);
    assert_eq!(report["paymentResponse"]["transaction"], "0xfeed");
    // The client's own retry: the same bytes.
    assert_eq!(report["replayStatus"], 200);
    assert_eq!(report["replayBodyText"], report["bodyText"]);
    assert_eq!(
        report["replayPaymentResponseHeader"],
        report["paymentResponseHeader"]
    );
    // curl with the same PAYMENT-SIGNATURE: the same bytes again.
    let signature = report["signature"].as_str().expect("a signature was sent");
    let target = format!(
        r#"{{"url":"http://www.fixture-shop.com:{}/"}}"#,
        site.addr.port()
    );
    let curl = std::process::Command::new("curl")
        .args([
            "--silent",
            "--show-error",
            "--max-time",
            "20",
            "--dump-header",
            "-",
        ])
        .args(["-H", "Content-Type: application/json"])
        .args(["-H", &format!("PAYMENT-SIGNATURE: {signature}")])
        .args(["--data-binary", &target])
        .arg(format!("http://{}/api/v1/extract-contact", service.addr))
        .output_in_group()
        .expect("the replay test needs curl (Debian: curl)");
    assert!(curl.status.success(), "{curl:?}");
    let text = String::from_utf8(curl.stdout).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(Some(body), report["bodyText"].as_str());
    assert_eq!(
        header(head, "PAYMENT-RESPONSE"),
        report["paymentResponseHeader"].as_str()
    );
    assert_eq!(
        (
            facilitator.count("/verify"),
            facilitator.count("/settle"),
            site.count("/")
        ),
        (1, 1, 1)
    );
}

/// The official client with the x402 `payment-identifier` extension (`@x402/extensions` 2.27
/// adds the id): the 402 advertises it, the paid call carries an id, the client's retry with
/// it gets the kept response, and another payment under the same id is a 409.
fn the_official_client_with_a_payment_identifier_retries_safely() {
    let (site, facilitator, service) = world();
    let report = official_client(&service, &site, &["--payment-id"]);
    assert_eq!(report["status"], 200, "{report}");
    let sent: contact_core::payment::PaymentPayload =
        codec::decode(report["signature"].as_str().unwrap()).unwrap();
    let id = sent.extensions.as_ref().unwrap()["payment-identifier"]["info"]["id"]
        .as_str()
        .expect("the client added an id")
        .to_string();
    assert!(id.starts_with("pay_"), "{id}");
    assert_eq!(report["replayStatus"], 200);
    assert_eq!(report["replayBodyText"], report["bodyText"]);
    // Another payment (a fresh authorization) under the same id: 409, nothing verified.
    let mut other: contact_core::payment::PaymentPayload =
        codec::decode(&fresh_signature(&service, 91)).unwrap();
    other.extensions = sent.extensions.clone();
    let url = format!(
        r#"{{"url":"http://www.fixture-shop.com:{}/"}}"#,
        site.addr.port()
    );
    let (status, _, body) = service.call(&post(&url, Some(&codec::encode(&other))));
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("payment identifier already used with a different payment"));
    assert_eq!(
        (
            facilitator.count("/verify"),
            facilitator.count("/settle"),
            site.count("/")
        ),
        (1, 1, 1)
    );
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
    world_around(site, roots)
}

fn paid_https_call(service: &Service, site: &Fixture, nonce: u8) -> (u16, String, String) {
    paid_call_over("https", service, site, nonce)
}

fn https_site_with_a_trusted_test_ca_is_extracted() {
    let (site, facilitator, service) = https_world(true);
    let (status, _, body) = paid_https_call(&service, &site, 14);
    assert_eq!(status, 200, "{body}");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["emails"][0]["value"], "info@fixture-shop.com");
    assert_eq!(json["phones"][0]["value"], "+442085516580");
    assert_eq!(facilitator.count("/settle"), 1);
}

fn https_site_with_an_untrusted_certificate_is_fetch_failed_and_not_charged() {
    let (site, facilitator, service) = https_world(false);
    let (status, _, body) = paid_https_call(&service, &site, 15);
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("FETCH_FAILED"));
    assert_eq!(facilitator.count("/settle"), 0);
}

/// The JSON body of a response, or `Null`.
fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or(serde_json::Value::Null)
}

/// The error code of an `ApiError` body.
fn error_code(body: &str) -> String {
    json(body)["error"]["code"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn health_ready_and_discovery_documents_are_free() {
    let (site, facilitator, service) = world();
    let get = |path: &str| {
        service
            .call(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
    };
    let (status, _, body) = get("/api/healthz");
    assert_eq!((status, json(&body)["status"].as_str()), (200, Some("ok")));
    // Ready once the facilitator check at start-up has read `/supported`.
    let (status, body) = service.wait_ready();
    assert_eq!(status, 200, "{body}");
    assert!(facilitator.count("/supported") >= 1);
    let (status, head, body) = get("/openapi.json");
    assert_eq!(status, 200);
    assert!(header(&head, "Content-Type")
        .unwrap()
        .starts_with("application/json"));
    assert!(
        json(&body)["paths"]["/api/v1/extract-contact"].is_object(),
        "{body}"
    );
    let (status, _, body) = get("/.well-known/x402.json");
    assert_eq!(status, 200);
    assert!(
        body.contains("https://contacts.example.com/api/v1/extract-contact"),
        "the resource URL comes from PUBLIC_BASE_URL: {body}"
    );
    let (status, _, body) = get("/.well-known/mcp.json");
    assert_eq!((status, json(&body).is_object()), (200, true));
    let (status, head, _) = service.call(
        b"OPTIONS /api/v1/extract-contact HTTP/1.1\r\nOrigin: https://a.example\r\nConnection: close\r\n\r\n",
    );
    assert!(status == 204 || status == 200, "{status}");
    assert!(
        header(&head, "Access-Control-Allow-Origin").is_some(),
        "{head}"
    );
    // Free routes touch neither the site nor the facilitator.
    assert_eq!(site.requests.lock().unwrap().len(), 0);
    // Only the readiness check of `/supported`: no `/verify`, no `/settle`.
    assert_eq!(
        (facilitator.count("/verify"), facilitator.count("/settle")),
        (0, 0)
    );
}

fn every_validation_branch_is_answered_before_any_fetch_or_facilitator_call() {
    let (site, facilitator, service) = world();
    let port = site.addr.port();
    let raw_post = |content_type: &str, target: &str, body: &str| {
        format!("POST {target} HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).into_bytes()
    };
    let extract = "/api/v1/extract-contact";
    let url = format!(r#"{{"url":"http://www.fixture-shop.com:{port}/"}}"#);
    // Path and method.
    let (status, _, body) = service.call(b"GET /nope HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!((status, error_code(&body).as_str()), (404, "INVALID_URL"));
    let (status, head, body) =
        service.call(b"GET /api/v1/extract-contact HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!((status, error_code(&body).as_str()), (405, "INVALID_URL"));
    assert!(header(&head, "Allow").unwrap().contains("POST"));
    // 1. sizes: body over 16 KiB → 413; head over 32 KiB → 431.
    let big = format!(
        r#"{{"url":"http://www.fixture-shop.com/{}"}}"#,
        "a".repeat(17 * 1024)
    );
    let (status, _, _) = service.call(&raw_post("application/json", extract, &big));
    assert_eq!(status, 413);
    let huge_head = format!(
        "GET /api/health HTTP/1.1\r\nX-Filler: {}\r\nConnection: close\r\n\r\n",
        "b".repeat(33 * 1024)
    );
    let (status, _, _) = service.call(huge_head.as_bytes());
    assert_eq!(status, 431);
    // 3. body shape → 400 INVALID_URL.
    for (content_type, target, body) in [
        ("text/plain", extract, url.as_str()),
        ("application/json", extract, "not json"),
        ("application/json", extract, "[1]"),
        ("application/json", extract, r#"{"url":1}"#),
        (
            "application/json",
            extract,
            r#"{"url":"https://a.example/","depth":2}"#,
        ),
        (
            "application/json",
            "/api/v1/extract-contact?x=1",
            url.as_str(),
        ),
    ] {
        let (status, _, answer) = service.call(&raw_post(content_type, target, body));
        assert_eq!(
            (status, error_code(&answer).as_str()),
            (400, "INVALID_URL"),
            "{content_type} {target} {body}"
        );
    }
    // 4. the URL itself.
    for (target, code) in [
        ("ftp://www.fixture-shop.com/".to_string(), "INVALID_URL"),
        ("http://www.fixture-shop.com:9/".to_string(), "INVALID_URL"),
        (
            "http://user:pw@www.fixture-shop.com/".to_string(),
            "INVALID_URL",
        ),
        (
            format!("http://www.fixture-shop.com:{port}/{}", "p".repeat(2100)),
            "INVALID_URL",
        ),
        (format!("http://localhost:{port}/"), "PRIVATE_ADDRESS"),
        (format!("http://10.1.2.3:{port}/"), "PRIVATE_ADDRESS"),
        (
            format!("http://[::ffff:10.1.2.3]:{port}/"),
            "PRIVATE_ADDRESS",
        ),
    ] {
        let body = format!(r#"{{"url":"{target}"}}"#);
        let (status, _, answer) = service.call(&post(&body, None));
        assert_eq!(
            (status, error_code(&answer).as_str()),
            (400, code),
            "{target}"
        );
    }
    // 6. payment: missing → 402 with requirements; malformed or wrong → 402 naming the problem.
    let (status, head, _) = service.call(&post(&url, None));
    assert_eq!(status, 402);
    let required: contact_core::payment::PaymentRequired =
        codec::decode(header(&head, "PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(required.accepts[0].network, "eip155:8453");
    for bad in ["%%%", "eyJ4NDAyVmVyc2lvbiI6MX0="] {
        let (status, head, _) = service.call(&post(&url, Some(bad)));
        assert_eq!(status, 402, "{bad}");
        let required: contact_core::payment::PaymentRequired =
            codec::decode(header(&head, "PAYMENT-REQUIRED").unwrap()).unwrap();
        assert!(required.error.is_some_and(|e| !e.is_empty()), "{bad}");
    }
    assert_eq!(site.requests.lock().unwrap().len(), 0);
    // Only the readiness check of `/supported`: no `/verify`, no `/settle`.
    assert_eq!(
        (facilitator.count("/verify"), facilitator.count("/settle")),
        (0, 0)
    );
}

fn rate_limit_is_429_with_retry_after() {
    let (site, _facilitator, service) = world_of(
        Fixture::start(fixture_pages),
        Fixture::accepting_facilitator(),
        webpki(),
        &[
            ("RATE_LIMIT_BURST", "2".into()),
            ("RATE_LIMIT_PER_MINUTE", "1".into()),
        ],
    );
    let url = format!(
        r#"{{"url":"http://www.fixture-shop.com:{}/"}}"#,
        site.addr.port()
    );
    let statuses: Vec<u16> = (0..3).map(|_| service.call(&post(&url, None)).0).collect();
    assert_eq!(statuses, [402, 402, 429]);
    let (status, head, body) = service.call(&post(&url, None));
    assert_eq!((status, error_code(&body).as_str()), (429, "RATE_LIMITED"));
    let retry: u64 = header(&head, "Retry-After").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    // Free routes are not rate limited.
    let (status, _, _) = service.call(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
}

/// Readiness names the facilitator (docs/operations.md, "Readiness"): one that lists only Base
/// Sepolia keeps the service not ready, and says so; free routes still answer.
fn a_facilitator_without_exact_on_base_keeps_the_service_not_ready() {
    let sepolia_only = Fixture::start(|raw| match request_path(raw).as_str() {
        "/supported" => response(
            200,
            "application/json",
            r#"{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:84532"}],"extensions":[],"signers":{}}"#,
        ),
        _ => response(500, "application/json", "{}"),
    });
    let (_site, facilitator, service) =
        world_of(Fixture::start(fixture_pages), sepolia_only, webpki(), &[]);
    let ready = || service.call(b"GET /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n");
    let started = Instant::now();
    let (mut status, mut head, mut body) = ready();
    while !body.contains("does not support") && started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
        (status, head, body) = ready();
    }
    assert_eq!(status, 503, "{head}\n{body}");
    let problems = json(&body)["problems"].clone();
    assert_eq!(problems.as_array().map(Vec::len), Some(1), "{body}");
    assert!(problems[0]
        .as_str()
        .unwrap()
        .starts_with("facilitator does not support exact on eip155:8453"));
    assert_eq!(facilitator.count("/supported"), 1);
    let (status, _, _) = service.call(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
}

fn missing_payment_settings_fail_closed() {
    let (site, _facilitator, service) = world_of(
        Fixture::start(fixture_pages),
        Fixture::accepting_facilitator(),
        webpki(),
        &[("PAY_TO", String::new())],
    );
    let (status, _, body) = service.call(b"GET /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 503);
    assert!(body.contains("PAY_TO"), "{body}");
    let url = format!(
        r#"{{"url":"http://www.fixture-shop.com:{}/"}}"#,
        site.addr.port()
    );
    let (status, _, body) = service.call(&post(&url, None));
    assert_eq!(
        (status, error_code(&body).as_str()),
        (503, "INTERNAL_ERROR")
    );
    // Validation still comes first.
    let (status, _, _) = service.call(&post(r#"{"url":"ftp://x.example/"}"#, None));
    assert_eq!(status, 400);
    assert_eq!(site.requests.lock().unwrap().len(), 0);
}

/// A facilitator answering `/verify` with `verify` and `/settle` with `settle` (JSON bodies).
fn scripted_facilitator(verify: &'static str, settle: &'static str) -> Fixture {
    Fixture::start(move |raw| {
        let body = if request_path(raw) == "/verify" {
            verify
        } else {
            settle
        };
        response(200, "application/json", body)
    })
}

fn verify_refused_is_402_without_a_crawl_and_the_authorization_stays_usable() {
    let (site, facilitator, service) = world_of(
        Fixture::start(fixture_pages),
        scripted_facilitator(
            r#"{"isValid":false,"invalidReason":"insufficient_funds"}"#,
            "{}",
        ),
        webpki(),
        &[],
    );
    let (status, head, _) = paid_call(&service, &site, 20);
    assert_eq!(status, 402);
    let required: contact_core::payment::PaymentRequired =
        codec::decode(header(&head, "PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(required.error.as_deref(), Some("insufficient_funds"));
    assert_eq!(
        (facilitator.count("/verify"), facilitator.count("/settle")),
        (1, 0)
    );
    assert_eq!(site.requests.lock().unwrap().len(), 0);
    // Refused before any money moved: the same authorization may be presented again.
    let (status, _, _) = paid_call(&service, &site, 20);
    assert_eq!(status, 402);
    assert_eq!(facilitator.count("/verify"), 2);
}

fn settle_refused_is_402_with_payment_response_and_no_result() {
    let (site, facilitator, service) = world_of(
        Fixture::start(fixture_pages),
        scripted_facilitator(
            r#"{"isValid":true}"#,
            // A refusal given before any broadcast (docs/payments.md, "What is a refusal").
            r#"{"success":false,"errorReason":"invalid_exact_evm_insufficient_balance","transaction":"","network":"eip155:8453"}"#,
        ),
        webpki(),
        &[],
    );
    let (status, head, body) = paid_call(&service, &site, 21);
    assert_eq!(status, 402, "{body}");
    assert!(!body.contains("fixture-shop.com"), "no result: {body}");
    let settled: SettleResponse =
        codec::decode(header(&head, "PAYMENT-RESPONSE").unwrap()).unwrap();
    assert!(!settled.success);
    assert_eq!(
        (facilitator.count("/verify"), facilitator.count("/settle")),
        (1, 1)
    );
    // The authorization may have been consumed on chain: it is not accepted again.
    let (status, _, _) = paid_call(&service, &site, 21);
    assert_eq!(status, 402);
    assert_eq!(facilitator.count("/verify"), 1);
}

fn facilitator_down_or_garbage_is_503_and_nothing_is_charged() {
    // Down: nothing listens at the facilitator's address.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let down = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let (site, _facilitator, service) = world_of(
        Fixture::start(fixture_pages),
        Fixture::accepting_facilitator(),
        webpki(),
        &[("FACILITATOR_URL", down)],
    );
    let (status, _, body) = paid_call(&service, &site, 22);
    assert_eq!(
        (status, error_code(&body).as_str()),
        (503, "INTERNAL_ERROR"),
        "{body}"
    );
    assert_eq!(site.requests.lock().unwrap().len(), 0);
    // Garbage from /settle: an unknown outcome, tried once more after 2 s, then 503
    // "settlement pending" (the result is kept for a retry, not returned now).
    let (site, facilitator, service) = world_of(
        Fixture::start(fixture_pages),
        scripted_facilitator(r#"{"isValid":true}"#, "<html>oops</html>"),
        webpki(),
        &[],
    );
    let (status, head, body) = paid_call(&service, &site, 23);
    assert_eq!(
        (status, error_code(&body).as_str()),
        (503, "INTERNAL_ERROR"),
        "{body}"
    );
    assert!(body.contains("settlement pending"), "{body}");
    assert_eq!(header(&head, "Retry-After"), Some("5"));
    assert!(!body.contains("fixture-shop.com"));
    assert_eq!(facilitator.count("/settle"), 2);
}

fn a_hanging_facilitator_is_503_inside_the_deadline() {
    let hanging = Fixture::start(|_| {
        // A hanging facilitator is the behaviour under test, not synchronisation.
        std::thread::sleep(Duration::from_secs(25));
        Vec::new()
    });
    let (site, facilitator, service) =
        world_of(Fixture::start(fixture_pages), hanging, webpki(), &[]);
    let started = Instant::now();
    let (status, _, body) = paid_call(&service, &site, 24);
    assert_eq!(
        (status, error_code(&body).as_str()),
        (503, "INTERNAL_ERROR"),
        "{body}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        (
            facilitator.count("/verify"),
            site.requests.lock().unwrap().len()
        ),
        (1, 0)
    );
}

fn redirects_are_followed_and_a_redirect_to_a_blocked_address_is_refused() {
    let redirecting = |raw: &[u8]| {
        match request_path(raw).as_str() {
        "/" => b"HTTP/1.1 301 Moved\r\nLocation: /home\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
        "/home" => response(200, "text/html", HOME),
        _ => fixture_pages(raw),
    }
    };
    let (site, facilitator, service) = world_with(redirecting);
    let (status, _, body) = paid_call(&service, &site, 25);
    assert_eq!(status, 200, "{body}");
    assert_eq!(json(&body)["emails"][0]["value"], "info@fixture-shop.com");
    assert_eq!((site.count("/"), site.count("/home")), (1, 1));
    assert_eq!(facilitator.count("/settle"), 1);
    // To the cloud metadata address, and to a name that resolves to a private address.
    for location in [
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://intranet.fixture-shop.com/".to_string(),
    ] {
        let site = Fixture::start(move |_| {
            format!("HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").into_bytes()
        });
        let ports = format!("80,{}", site.addr.port());
        let (site, facilitator, service) = world_of(
            site,
            Fixture::accepting_facilitator(),
            webpki(),
            &[
                (
                    "RESOLVE",
                    "www.fixture-shop.com=127.0.0.1,intranet.fixture-shop.com=10.0.0.5".into(),
                ),
                ("ALLOWED_PORTS", ports),
            ],
        );
        let (status, _, body) = paid_call(&service, &site, 26);
        assert_eq!(
            (status, error_code(&body).as_str()),
            (400, "PRIVATE_ADDRESS"),
            "{body}"
        );
        assert!(
            !body.contains("10.0.0.5"),
            "the message never names the address"
        );
        assert_eq!(facilitator.count("/settle"), 0);
    }
}

fn homepage_failures_are_422_and_never_charged() {
    let too_big = "x".repeat(contact_core::fetch::MAX_PAGE_BYTES + 1);
    let (site, facilitator, service) = world_with(move |raw| match request_path(raw).as_str() {
        "/missing" => response(404, "text/html", "<p>gone</p>"),
        "/file.pdf" => response(200, "application/pdf", "%PDF-1.7"),
        "/huge" => response(200, "text/html", &too_big),
        _ => fixture_pages(raw),
    });
    let port = site.addr.port();
    for (path, code) in [
        ("missing", "FETCH_FAILED"),
        ("file.pdf", "UNSUPPORTED_CONTENT_TYPE"),
        ("huge", "RESPONSE_TOO_LARGE"),
    ] {
        let url = format!("http://www.fixture-shop.com:{port}/{path}");
        let (status, _, body) = paid_call_to(&service, &url, path.len() as u8 + 30);
        assert_eq!(
            (status, error_code(&body).as_str()),
            (422, code),
            "{path}: {body}"
        );
    }
    // A name that does not resolve.
    let url = format!("http://no-such-host.invalid:{port}/");
    let (status, _, body) = paid_call_to(&service, &url, 40);
    assert_eq!(
        (status, error_code(&body).as_str()),
        (422, "FETCH_FAILED"),
        "{body}"
    );
    assert_eq!(facilitator.count("/settle"), 0);
    assert_eq!(facilitator.count("/verify"), 4);
}

fn over_the_in_flight_cap_is_503_with_retry_after() {
    let slow = |raw: &[u8]| {
        // A slow site keeps the first job in flight: the behaviour under test.
        std::thread::sleep(Duration::from_millis(1500));
        fixture_pages(raw)
    };
    let (site, _facilitator, service) = world_of(
        Fixture::start(slow),
        Fixture::accepting_facilitator(),
        webpki(),
        &[("MAX_CONCURRENT_JOBS", "1".into())],
    );
    let service = Arc::new(service);
    let first = {
        let (service, url) = (service.clone(), site_url(&site));
        std::thread::spawn(move || paid_call_to(&service, &url, 41))
    };
    // Wait (bounded) until the first job is fetching the homepage.
    let started = Instant::now();
    while site.requests.lock().unwrap().is_empty() && started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let (status, head, body) = paid_call_to(&service, &site_url(&site), 42);
    assert_eq!(
        (status, error_code(&body).as_str()),
        (503, "INTERNAL_ERROR"),
        "{body}"
    );
    assert!(header(&head, "Retry-After").is_some());
    assert_eq!(first.join().unwrap().0, 200);
}

fn site_url(site: &Fixture) -> String {
    format!("http://www.fixture-shop.com:{}/", site.addr.port())
}

/// A paid extraction of `url` with a fresh authorization (`nonce`).
fn paid_call_to(service: &Service, url: &str, nonce: u8) -> (u16, String, String) {
    let signature = fresh_signature(service, nonce);
    service.call(&post(&format!(r#"{{"url":"{url}"}}"#), Some(&signature)))
}

/// A `PAYMENT-SIGNATURE` for the service's terms, valid for 60 s, from the test key.
fn fresh_signature(service: &Service, nonce: u8) -> String {
    let PaymentConfig::Ready { terms, .. } = &service.config.payment else {
        panic!("ready")
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    payment_header(&terms.requirements, nonce, 0, now + 100)
}

fn an_idle_keep_alive_connection_closes_a_head_timeout_after_its_last_request() {
    let (_site, _facilitator, service) = world();
    let mut client = TcpStream::connect(service.addr).unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    // A request 3 s after connecting moves the idle deadline from t+10 s to t+13 s (time that
    // must pass for the deadline under test, not synchronisation).
    std::thread::sleep(Duration::from_secs(3));
    client
        .write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 4096];
    let n = client.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    let answered = Instant::now();
    let mut rest = Vec::new();
    let _ = client.read_to_end(&mut rest);
    let idle = answered.elapsed();
    assert!(rest.is_empty());
    assert!(
        idle >= Duration::from_millis(9500) && idle < Duration::from_secs(12),
        "closed after {idle:?} idle"
    );
}

fn a_bug_in_extraction_is_a_500_not_charged_and_the_service_goes_on() {
    let (site, facilitator) = (
        Fixture::start(fixture_pages),
        Fixture::accepting_facilitator(),
    );
    let service = Service::start_with_tls(
        &service_vars(&site, &facilitator),
        webpki(),
        Some(contact_core::testing::sim::panicking_extractor),
    );
    let (status, _, body) = paid_call(&service, &site, 62);
    assert_eq!(
        (status, error_code(&body).as_str()),
        (500, "INTERNAL_ERROR"),
        "{body}"
    );
    assert_eq!(facilitator.count("/settle"), 0);
    // The same connection-serving process answers the next request.
    let (status, _, _) = service.call(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
}

/// A TLS handshake that outlasts the core's connect deadline (10 s): the core gives up on the
/// fetch, and the runtime must drop that connection at once — not finish the handshake later
/// and keep the socket for the life of the client's keep-alive connection.
fn a_connect_the_core_gave_up_on_is_dropped_at_once() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let site = listener.local_addr().unwrap();
    let (verdict_tx, verdict) = std::sync::mpsc::channel::<&'static str>();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        // Never answer the ClientHello; look again just after the core's 5 s handshake
        // deadline (`TLS_TIMEOUT`, from the TCP connect): time that must pass for the deadline
        // under test, not synchronisation.
        std::thread::sleep(Duration::from_millis(5_800));
        stream
            .set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let mut hello = [0u8; 4096];
        let _ = stream.read(&mut hello); // the ClientHello
        let mut more = [0u8; 1];
        let state = match stream.read(&mut more) {
            Ok(0) => "closed",
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => "closed",
            _ => "still open",
        };
        let _ = verdict_tx.send(state);
    });
    let facilitator = Fixture::accepting_facilitator();
    let vars = contact_e2e::fixture::service_vars_at(site, &facilitator);
    let service = Service::start_with_tls(&vars, webpki(), None);
    let signature = fresh_signature(&service, 92);
    let body = format!(
        r#"{{"url":"https://www.fixture-shop.com:{}/"}}"#,
        site.port()
    );
    // Keep-alive: the client connection (and its driver) outlives the answer.
    let request = String::from_utf8(post(&body, Some(&signature)))
        .unwrap()
        .replace("Connection: close\r\n", "");
    let mut client = TcpStream::connect(service.addr).unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    client.write_all(request.as_bytes()).unwrap();
    let mut answer = [0u8; 512];
    let n = client.read(&mut answer).unwrap();
    assert!(
        String::from_utf8_lossy(&answer[..n]).starts_with("HTTP/1.1 422"),
        "{}",
        String::from_utf8_lossy(&answer[..n])
    );
    let state = verdict.recv_timeout(Duration::from_secs(20)).unwrap();
    assert_eq!(state, "closed", "the abandoned connection was kept");
    drop(client);
}

/// Set by [`held_extractor`] when it starts; it returns once [`RELEASE_EXTRACTOR`] is set
/// (or after 15 s, so a failing test cannot hang).
static EXTRACTOR_ENTERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static RELEASE_EXTRACTOR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static EXTRACTOR_LEFT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// An extractor that stands for a page that takes seconds of CPU: it holds until released.
fn held_extractor(
    url: &url::Url,
    content_type: Option<&str>,
    body: &[u8],
) -> contact_core::extract::PageExtraction {
    use std::sync::atomic::Ordering;
    EXTRACTOR_ENTERED.store(true, Ordering::SeqCst);
    let started = Instant::now();
    while !RELEASE_EXTRACTOR.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(5));
    }
    EXTRACTOR_LEFT.store(true, Ordering::SeqCst);
    contact_core::extract::extract_page(url, content_type, body)
}

/// One connection never waits on another: while a paid job's page extraction runs (held here
/// for as long as the test wants), another connection on the same one-thread executor is
/// answered — the extraction runs on the worker pool, outside the core's lock.
fn a_slow_extraction_does_not_delay_other_connections() {
    use std::sync::atomic::Ordering;
    // The held extractor's flags are process-wide: the runtimes' runs of this test take turns.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for flag in [&EXTRACTOR_ENTERED, &RELEASE_EXTRACTOR, &EXTRACTOR_LEFT] {
        flag.store(false, Ordering::SeqCst);
    }
    let (site, facilitator) = (
        Fixture::start(fixture_pages),
        Fixture::accepting_facilitator(),
    );
    let service = Arc::new(Service::start_with_tls(
        &service_vars(&site, &facilitator),
        webpki(),
        Some(held_extractor),
    ));
    let paid = {
        let (service, port) = (service.clone(), site.addr.port());
        let signature = fresh_signature(&service, 93);
        std::thread::spawn(move || {
            let body = format!(r#"{{"url":"http://www.fixture-shop.com:{port}/"}}"#);
            service.call(&post(&body, Some(&signature)))
        })
    };
    let started = Instant::now();
    while !EXTRACTOR_ENTERED.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        EXTRACTOR_ENTERED.load(Ordering::SeqCst),
        "the extraction started"
    );
    // While it is held: the health route and the unpaid 402 are answered.
    let (status, _, _) = service.call(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
    let unpaid = format!(
        r#"{{"url":"http://www.fixture-shop.com:{}/"}}"#,
        site.addr.port()
    );
    let (status, _, _) = service.call(&post(&unpaid, None));
    assert_eq!(status, 402);
    assert!(
        !EXTRACTOR_LEFT.load(Ordering::SeqCst),
        "answered while the extraction was still running"
    );
    RELEASE_EXTRACTOR.store(true, Ordering::SeqCst);
    let (status, _, body) = paid.join().unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("info@fixture-shop.com"));
}

/// A client that sends requests but stops reading its answers: once its (small, fixed) receive
/// buffer and the server's send buffer are full, a write that cannot finish within the
/// contract's write deadline (`io::WRITE_TIMEOUT`, 10 s) closes that connection instead of
/// holding its driver until the client reads again. The client is a python3 socket with
/// `SO_RCVBUF` set before connecting (no autotuning), so the buffers really fill; it reads
/// only after 25 s — well past the first blocked write plus the deadline.
fn a_client_that_stops_reading_is_closed_after_the_write_deadline() {
    let (_site, _facilitator, service) = world();
    let (_, _, one_answer) =
        service.call(b"GET /openapi.json HTTP/1.1\r\nConnection: close\r\n\r\n");
    // About 24 MiB of answers: far more than a small receive buffer and a few MiB of send
    // buffer hold.
    let count = (24 * 1024 * 1024 / one_answer.len().max(1)).max(500);
    let script = r#"
import socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", port))
s.sendall(b"GET /openapi.json HTTP/1.1\r\n\r\n" * count)
# Not reading for 25 s is the behaviour under test (past the write deadline).
time.sleep(25)
s.settimeout(10)
got = bytearray()
try:
    while True:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        got += chunk
except OSError:
    pass
print(got.count(b"HTTP/1.1 200"))
"#;
    let output = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(service.addr.port().to_string())
        .arg(count.to_string())
        .output_in_group()
        .expect("this test needs python3");
    assert!(output.status.success(), "{output:?}");
    let answers: usize = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .unwrap();
    assert!(answers > 0, "answers were written until the buffers filled");
    assert!(
        answers < count,
        "{answers} of {count}: the connection was kept until the client read again"
    );
    // The service goes on.
    let (status, _, _) = service.call(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
}

/// Bounded input: while a paid job waits (here on a facilitator that hangs), a
/// client that streams behind its request gets at most `INBOUND_LIMIT` bytes read; the rest
/// waits in the kernel's socket buffers, so the service's memory does not grow with what the
/// client sends. Before the bound, all 64 MiB were read into the connection's buffer.
fn a_client_streaming_behind_its_paid_request_is_not_read_while_the_job_runs() {
    use std::io::Write as _;
    let hanging = Fixture::start(|_| {
        // A hanging facilitator keeps the job running: the behaviour under test.
        std::thread::sleep(Duration::from_secs(25));
        Vec::new()
    });
    let (site, _facilitator, service) =
        world_of(Fixture::start(fixture_pages), hanging, webpki(), &[]);
    let signature = fresh_signature(&service, 95);
    let request = post(
        &format!(r#"{{"url":"{}"}}"#, site_url(&site)),
        Some(&signature),
    );
    let mut client = std::net::TcpStream::connect(service.addr).unwrap();
    client.write_all(&request).unwrap();
    client
        .set_write_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    const STREAM: usize = 64 * 1024 * 1024;
    let chunk = vec![b'x'; 64 * 1024];
    let mut written = 0usize;
    while written < STREAM {
        match client.write(&chunk) {
            Ok(n) => written += n,
            Err(_) => break, // blocked for 2 s: nobody reads
        }
    }
    // What the kernel buffers on loopback (send and receive side, autotuned) is a few MiB;
    // the service itself holds at most INBOUND_LIMIT (48 KiB) of it.
    assert!(
        written < 32 * 1024 * 1024,
        "{written} bytes accepted while the job ran"
    );
    // The service goes on.
    let (status, _, _) = service.call(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
}

/// `MAX_CONNECTIONS_PER_IP` over real sockets: past the cap a connection is closed at accept
/// (the client reads end of stream at once, nothing is answered); a closed connection frees
/// its place.
fn connections_over_the_per_ip_cap_are_closed_at_accept() {
    use std::io::{Read as _, Write as _};
    let (_site, _facilitator, service) = world_of(
        Fixture::start(fixture_pages),
        Fixture::accepting_facilitator(),
        webpki(),
        &[("MAX_CONNECTIONS_PER_IP", "2".to_string())],
    );
    let first = std::net::TcpStream::connect(service.addr).unwrap();
    let _second = std::net::TcpStream::connect(service.addr).unwrap();
    let mut third = std::net::TcpStream::connect(service.addr).unwrap();
    third
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let _ = third.write_all(b"GET /api/health HTTP/1.1\r\n\r\n");
    let mut got = Vec::new();
    // End of stream or a reset, but never an answer.
    let _ = third.read_to_end(&mut got);
    assert!(
        got.is_empty(),
        "the third connection was answered: {:?}",
        String::from_utf8_lossy(&got)
    );
    drop(first);
    // The place is given back once the service sees the close.
    let started = Instant::now();
    loop {
        let (status, _, _) = service.call(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
        if status == 200 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the closed connection's place was never freed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What one real client got for a body it sent in the chunked transfer coding: status,
/// `PAYMENT-REQUIRED`, body text.
type ChunkedAnswer = (u16, Option<String>, String);

/// `body` POSTed to the paid route by `client` in the chunked coding, in pieces of 7 bytes
/// where the client lets the test choose: curl with `Transfer-Encoding: chunked`, Node `fetch`
/// with a `ReadableStream` body (`duplex: 'half'`), Python's `http.client` with a generator
/// body (`encode_chunked=True`; the standard library, so no package to install).
fn chunked_by(
    client: &str,
    service: &Service,
    body: &str,
    signature: Option<&str>,
) -> ChunkedAnswer {
    let url = format!("http://{}/api/v1/extract-contact", service.addr);
    let signature = signature.unwrap_or("");
    let output = match client {
        "curl" => {
            let mut curl = std::process::Command::new("curl");
            curl.args(["--silent", "--show-error", "--max-time", "20"])
                .args(["--dump-header", "-"])
                .args(["-H", "Content-Type: application/json"])
                .args(["-H", "Transfer-Encoding: chunked"])
                .args(["--data-binary", body]);
            if !signature.is_empty() {
                curl.args(["-H", &format!("PAYMENT-SIGNATURE: {signature}")]);
            }
            let output = curl
                .arg(&url)
                .output_in_group()
                .expect("this test needs curl (Debian: curl)");
            assert!(output.status.success(), "{output:?}");
            let text = String::from_utf8(output.stdout).unwrap();
            let (head, body) = text.split_once("\r\n\r\n").unwrap();
            let status = head.split(' ').nth(1).unwrap().parse().unwrap();
            let required = header(head, "PAYMENT-REQUIRED").map(str::to_string);
            return (status, required, body.to_string());
        }
        "node" => std::process::Command::new("node")
            .arg("-e")
            .arg(
                r#"
const [url, body, signature] = process.argv.slice(1);
const bytes = new TextEncoder().encode(body);
const stream = new ReadableStream({
  start(controller) {
    for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
    controller.close();
  },
});
const headers = { "Content-Type": "application/json" };
if (signature) headers["PAYMENT-SIGNATURE"] = signature;
(async () => {
  const r = await fetch(url, { method: "POST", headers, body: stream, duplex: "half" });
  const text = await r.text();
  console.log(JSON.stringify({ status: r.status, required: r.headers.get("payment-required"), body: text }));
})().catch((e) => { console.error(e); process.exit(1); });
"#,
            )
            .args([&url, body, signature])
            .output_in_group()
            .expect("this test needs Node.js"),
        "python" => std::process::Command::new("python3")
            .arg("-c")
            .arg(
                r#"
import http.client, json, sys
port, body, signature = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3]
def pieces():
    for i in range(0, len(body), 7):
        yield body[i:i + 7]
headers = {"Content-Type": "application/json"}
if signature:
    headers["PAYMENT-SIGNATURE"] = signature
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
connection.request("POST", "/api/v1/extract-contact", body=pieces(), headers=headers, encode_chunked=True)
r = connection.getresponse()
print(json.dumps({"status": r.status, "required": r.getheader("PAYMENT-REQUIRED"), "body": r.read().decode()}))
"#,
            )
            .args([&service.addr.port().to_string(), body, signature])
            .output_in_group()
            .expect("this test needs python3"),
        other => panic!("no client {other}"),
    };
    assert!(
        output.status.success(),
        "{client}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON line");
    (
        u16::try_from(report["status"].as_u64().unwrap()).unwrap(),
        report["required"].as_str().map(str::to_string),
        report["body"].as_str().unwrap().to_string(),
    )
}

/// The body's JSON without its `requestId` (different for every request).
fn without_request_id(body: &str) -> serde_json::Value {
    let mut json: serde_json::Value = serde_json::from_str(body).unwrap();
    if let Some(object) = json.as_object_mut() {
        object.remove("requestId");
    }
    json
}

/// Chunked request bodies (RFC 9112 §7.1) from real clients — curl, Node `fetch` with a
/// stream, Python `http.client` with a generator — get the answers their `Content-Length`
/// twins get: the unpaid 402 byte for byte, the same 400, and a paid 200 with the result.
fn chunked_bodies_from_curl_node_and_python_get_the_content_length_answers() {
    let (site, facilitator, service) = world();
    let url = format!(r#"{{"url":"{}"}}"#, site_url(&site));
    let (status, head, unpaid) = service.call(&post(&url, None));
    assert_eq!(status, 402);
    let required = header(&head, "PAYMENT-REQUIRED").map(str::to_string);
    let bad = r#"{"url":"ftp://www.fixture-shop.com/"}"#;
    let (status, _, refused) = service.call(&post(bad, None));
    assert_eq!(status, 400);
    for (client, nonce) in [("curl", 150), ("node", 151), ("python", 152)] {
        let answer = chunked_by(client, &service, &url, None);
        assert_eq!(answer, (402, required.clone(), unpaid.clone()), "{client}");
        let (status, _, body) = chunked_by(client, &service, bad, None);
        assert_eq!(status, 400, "{client}");
        assert_eq!(without_request_id(&body), without_request_id(&refused));
        let signature = fresh_signature(&service, nonce);
        let (status, _, body) = chunked_by(client, &service, &url, Some(&signature));
        assert_eq!(status, 200, "{client}: {body}");
        assert!(body.contains("info@fixture-shop.com"), "{client}: {body}");
    }
    assert_eq!(
        (facilitator.count("/verify"), facilitator.count("/settle")),
        (3, 3)
    );
}

/// Request smuggling (RFC 9112 §6.3): `Content-Length` with `Transfer-Encoding` is 400 and
/// the connection closes, so the bytes behind it are never read as a request; a transfer
/// coding other than chunked is 501.
fn content_length_with_chunked_is_refused_and_closed_over_real_sockets() {
    let (_site, _facilitator, service) = world();
    let body = "5\r\nhello\r\n0\r\n\r\n";
    let raw = format!(
        "POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nTransfer-Encoding: chunked\r\n\r\n{body}GET /api/health HTTP/1.1\r\n\r\n",
        body.len()
    );
    let (status, head, rest) = service.call(raw.as_bytes());
    assert_eq!(status, 400, "{head}");
    assert_eq!(header(&head, "Connection"), Some("close"));
    assert!(!rest.contains("HTTP/1.1"), "a second answer: {rest}");
    let raw = format!(
        "POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n{body}"
    );
    let (status, _, rest) = service.call(raw.as_bytes());
    assert_eq!(status, 501, "{rest}");
}

/// `HEAD` on every GET route (RFC 9110 §9.3.2): the GET's status and headers, no body; curl
/// `--head` reuses one connection for two of them (a body would break its framing).
fn head_answers_every_get_route_with_the_get_headers_and_no_body() {
    let (_site, _facilitator, service) = world();
    service.wait_ready();
    let lines = |head: &str| -> Vec<String> {
        head.split("\r\n")
            .filter(|line| !line.starts_with("X-Request-Id:"))
            .map(str::to_string)
            .collect()
    };
    for path in [
        "/api/health",
        "/api/ready",
        "/openapi.json",
        "/.well-known/x402",
        "/.well-known/x402.json",
        "/.well-known/mcp.json",
    ] {
        let (status, get_head, get_body) =
            service.call(format!("GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n").as_bytes());
        assert_eq!(status, 200, "{path}");
        let (_, head_head, head_body) =
            service.call(format!("HEAD {path} HTTP/1.1\r\nConnection: close\r\n\r\n").as_bytes());
        assert_eq!(lines(&head_head), lines(&get_head), "{path}");
        assert_eq!(head_body, "", "{path}");
        assert_eq!(
            header(&head_head, "Content-Length"),
            Some(get_body.len().to_string().as_str())
        );
    }
    let curl = std::process::Command::new("curl")
        .args(["--silent", "--show-error", "--max-time", "20", "--head"])
        .arg(format!("http://{}/api/health", service.addr))
        .arg(format!("http://{}/openapi.json", service.addr))
        .output_in_group()
        .expect("this test needs curl (Debian: curl)");
    assert!(curl.status.success(), "{curl:?}");
    let text = String::from_utf8(curl.stdout).unwrap();
    assert_eq!(text.matches("HTTP/1.1 200 OK").count(), 2, "{text}");
    // `/api/health`'s body: {"status":"ok","version":"…"}.
    let health = format!(
        r#"{{"status":"ok","version":"{}"}}"#,
        env!("CARGO_PKG_VERSION")
    );
    let length = format!("Content-Length: {}\r\n", health.len());
    assert!(text.contains(&length), "{text}");
    let (status, head, body) =
        service.call(b"HEAD /api/v1/extract-contact HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!((status, body.as_str()), (405, ""));
    assert_eq!(header(&head, "Allow"), Some("POST, OPTIONS"));
}

// Every test above, once on each runtime.
contact_e2e::both_runtimes!(
    health_402_and_private_target_over_real_sockets,
    paid_request_crawls_the_fixture_site_and_settles_once,
    extra_pages_are_fetched_concurrently,
    chunked_and_gzip_responses_are_read,
    a_stalled_site_is_a_timeout_inside_the_deadline_and_not_charged,
    a_slowloris_client_is_closed_without_affecting_others,
    the_official_client_pays_and_a_replay_of_its_signature_gets_the_same_response,
    the_official_client_with_a_payment_identifier_retries_safely,
    https_site_with_a_trusted_test_ca_is_extracted,
    https_site_with_an_untrusted_certificate_is_fetch_failed_and_not_charged,
    health_ready_and_discovery_documents_are_free,
    every_validation_branch_is_answered_before_any_fetch_or_facilitator_call,
    rate_limit_is_429_with_retry_after,
    a_facilitator_without_exact_on_base_keeps_the_service_not_ready,
    missing_payment_settings_fail_closed,
    verify_refused_is_402_without_a_crawl_and_the_authorization_stays_usable,
    settle_refused_is_402_with_payment_response_and_no_result,
    facilitator_down_or_garbage_is_503_and_nothing_is_charged,
    a_hanging_facilitator_is_503_inside_the_deadline,
    redirects_are_followed_and_a_redirect_to_a_blocked_address_is_refused,
    homepage_failures_are_422_and_never_charged,
    over_the_in_flight_cap_is_503_with_retry_after,
    an_idle_keep_alive_connection_closes_a_head_timeout_after_its_last_request,
    a_bug_in_extraction_is_a_500_not_charged_and_the_service_goes_on,
    a_connect_the_core_gave_up_on_is_dropped_at_once,
    a_slow_extraction_does_not_delay_other_connections,
    a_client_that_stops_reading_is_closed_after_the_write_deadline,
    a_client_streaming_behind_its_paid_request_is_not_read_while_the_job_runs,
    connections_over_the_per_ip_cap_are_closed_at_accept,
    chunked_bodies_from_curl_node_and_python_get_the_content_length_answers,
    content_length_with_chunked_is_refused_and_closed_over_real_sockets,
    head_answers_every_get_route_with_the_get_headers_and_no_body,
);
