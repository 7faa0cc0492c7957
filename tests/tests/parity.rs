//! The two runtimes are the same service: the same scripted conversations (free routes, every
//! error branch of the paid route, a paid extraction and its replay, a settlement refusal,
//! pipelined and dripped requests) sent to a smol and a tokio instance with the same settings
//! get byte-identical answers, once request ids and durations are masked.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use contact_core::config::PaymentConfig;
use contact_core::testing::sim::payment_header;
use contact_e2e::fixture::{request_path, response, service_vars, Fixture, SUPPORTED};
use contact_e2e::runtimes::{set_runtime, Runtime};

mod common;
use common::{fixture_pages, webpki, Service};

/// The nonce byte whose settlement the test facilitator refuses.
const REFUSED_NONCE: u8 = 0x77;

/// A facilitator that verifies everything and settles everything but [`REFUSED_NONCE`].
fn facilitator() -> Fixture {
    Fixture::start(|raw| {
        let refused = format!("0x{}{:02x}", "0".repeat(62), REFUSED_NONCE);
        let body = match request_path(raw).as_str() {
            "/supported" => SUPPORTED,
            "/verify" => r#"{"isValid":true}"#,
            _ if String::from_utf8_lossy(raw).contains(&refused) => {
                r#"{"success":false,"errorReason":"insufficient_funds","transaction":""}"#
            }
            _ => r#"{"success":true,"transaction":"0xfeed","network":"eip155:8453"}"#,
        };
        response(200, "application/json", body)
    })
}

/// One piece of a conversation: bytes to send at once, or byte by byte (dripped).
enum Send {
    All(Vec<u8>),
    Drip(Vec<u8>),
}

/// Sends `conversation` on one connection and reads until the service closes it.
fn converse(service: &Service, conversation: &[Send]) -> Vec<u8> {
    let mut stream = TcpStream::connect(service.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    for piece in conversation {
        match piece {
            Send::All(bytes) => stream.write_all(bytes).unwrap(),
            Send::Drip(bytes) => {
                for byte in bytes {
                    // A slow client is the behaviour under test, not synchronisation.
                    stream.write_all(&[*byte]).unwrap();
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
        }
    }
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    out
}

/// The answer with what differs by nature masked: request ids (`req_` + 26 characters),
/// durations (`"durationMs":N`) and so the `Content-Length` and `Content-Digest` of a body
/// holding one (the bodies themselves are compared).
fn masked(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw).to_string();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("req_") {
        out.push_str(&rest[..at]);
        out.push_str("req_<id>");
        rest = rest.get(at + 4 + 26..).unwrap_or("");
    }
    out.push_str(rest);
    let mut masked = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(at) = rest.find("\"durationMs\":") {
        let start = at + "\"durationMs\":".len();
        masked.push_str(&rest[..start]);
        masked.push_str("<ms>");
        let digits = rest[start..]
            .chars()
            .take_while(char::is_ascii_digit)
            .count();
        rest = &rest[start + digits..];
    }
    masked.push_str(rest);
    masked
        .split("\r\n")
        .map(|line| {
            if line.starts_with("Content-Length: ") {
                "Content-Length: <n>"
            } else if line.starts_with("Content-Digest: sha-256=:") {
                "Content-Digest: sha-256=:<digest>:"
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\r\n")
}

fn post(body: &str, payment: Option<&str>, close: bool) -> Vec<u8> {
    let payment = payment
        .map(|p| format!("PAYMENT-SIGNATURE: {p}\r\n"))
        .unwrap_or_default();
    let close = if close { "Connection: close\r\n" } else { "" };
    format!("POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{payment}{close}Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn get(path: &str, close: bool) -> Vec<u8> {
    let close = if close { "Connection: close\r\n" } else { "" };
    format!("GET {path} HTTP/1.1\r\nHost: x\r\n{close}\r\n").into_bytes()
}

#[test]
fn smol_and_tokio_answer_every_conversation_byte_for_byte_alike() {
    let site = Fixture::start(fixture_pages);
    let facilitator = facilitator();
    let mut vars = service_vars(&site, &facilitator);
    vars.push(("LOG_FORMAT", "pretty".to_string()));
    vars.push(("RATE_LIMIT_BURST", "1000".to_string()));
    set_runtime(Runtime::Smol);
    let smol = Service::start_with_tls(&vars, webpki(), None);
    set_runtime(Runtime::Tokio);
    let tokio = Service::start_with_tls(&vars, webpki(), None);
    for service in [&smol, &tokio] {
        let (status, body) = service.wait_ready();
        assert_eq!(status, 200, "{body}");
    }
    let PaymentConfig::Ready { terms, .. } = &smol.config.payment else {
        panic!("payments are configured")
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let paid = payment_header(&terms.requirements, 1, 0, now + 100);
    let refused = payment_header(&terms.requirements, REFUSED_NONCE, 0, now + 100);
    let target = format!(
        r#"{{"url":"http://www.fixture-shop.com:{}/"}}"#,
        site.addr.port()
    );
    let long = format!(r#"{{"url":"https://example.com/{}"}}"#, "a".repeat(2100));
    let conversations: Vec<(&str, Vec<Send>)> = vec![
        (
            "free routes, pipelined",
            vec![Send::All(
                [
                    get("/api/health", false),
                    get("/api/healthz", false),
                    get("/api/ready", false),
                    get("/openapi.json", false),
                    get("/.well-known/x402.json", false),
                    get("/.well-known/mcp.json", false),
                    b"OPTIONS /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
                    get("/nope", false),
                    get("/api/v1/extract-contact", true),
                ]
                .concat(),
            )],
        ),
        (
            "a dripped request",
            vec![Send::Drip(get("/api/health", true))],
        ),
        ("unpaid: the 402", vec![Send::All(post(&target, None, true))]),
        (
            "error branches, one keep-alive connection",
            vec![Send::All(
                [
                    b"POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}".to_vec(),
                    post("not json", None, false),
                    post("{}", None, false),
                    post(r#"{"url":"https://example.com/","x":1}"#, None, false),
                    post(r#"{"url":"ftp://example.com/"}"#, None, false),
                    post(r#"{"url":"http://10.0.0.1/"}"#, None, false),
                    post(r#"{"url":"http://example.com:9999/"}"#, None, false),
                    post(&long, None, false),
                    post(&target, Some("garbage"), false),
                    post(&format!("{{\"url\":\"{}\"}}", "x".repeat(17_000)), None, true),
                ]
                .concat(),
            )],
        ),
        (
            "a head too large",
            vec![Send::All(
                format!("GET /api/health HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(33_000)).into_bytes(),
            )],
        ),
        ("a malformed request", vec![Send::All(b"HELLO\r\n\r\n".to_vec())]),
        ("paid", vec![Send::All(post(&target, Some(&paid), true))]),
        ("the replay", vec![Send::All(post(&target, Some(&paid), true))]),
        (
            "a settlement refusal",
            vec![Send::All(post(&target, Some(&refused), true))],
        ),
    ];
    for (name, conversation) in &conversations {
        let (a, b) = (
            converse(&smol, conversation),
            converse(&tokio, conversation),
        );
        assert!(!a.is_empty(), "{name}: no answer");
        assert_eq!(masked(&a), masked(&b), "{name}");
    }
    // Each instance crawled once and settled twice (the paid one and the refused one).
    assert_eq!(facilitator.count("/settle"), 4);
}
