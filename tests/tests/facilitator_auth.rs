//! Authenticated facilitators (docs/payments.md, "Authenticated facilitators"): a facilitator
//! that demands a fixed header (`FACILITATOR_AUTH_HEADER_FILE`), and one that demands a CDP JWT
//! and checks it with npm `jose` 6.2.17 (`.ci/node/cdp.mjs`). The checker is first shown right
//! on the official SDK's tokens (`@coinbase/cdp-sdk` 1.57.0 `generateJwt`), then run on ours;
//! bad tokens are refused by it, and the service reports a refusal: `/api/ready` 503 "facilitator
//! refuses our credentials (401)", the paid route 503 without a crawl or a `/settle`. The
//! service cases run on both runtimes. The JWT cases need Node.js with npm (`.ci/run` installs
//! the pinned packages); without them they skip (with `CI=true`, fail).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use contact_core::config::PaymentConfig;
use contact_core::payment::cdp_jwt::CdpKey;
use contact_core::testing::sim::payment_header;
use contact_e2e::fixture::{accepting_answer, response, service_vars_with, Fixture};
use contact_e2e::process::{Group, Grouped as _};
use serde_json::Value;

mod common;
use common::{call_at, fixture_pages, post, webpki, Service};

/// The CDP key id of the tests.
const KEY_ID: &str = "organizations/test-org/apiKeys/test-key";

/// A scratch folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "contact-extract-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str, content: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, content).unwrap();
        path.to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A service wired to `site` and the facilitator at `facilitator`, with `extra` settings.
fn service(site: &Fixture, facilitator: &str, extra: &[(&'static str, String)]) -> Service {
    let mut vars: BTreeMap<&str, String> = service_vars_with(site.addr, facilitator)
        .into_iter()
        .collect();
    vars.insert("LOG_FORMAT", "pretty".to_string());
    for (name, value) in extra {
        vars.insert(name, value.clone());
    }
    let vars: Vec<(&str, String)> = vars.into_iter().collect();
    Service::start_with_tls(&vars, webpki(), None)
}

/// A paid extraction of the fixture site with a fresh authorization (`nonce`).
fn paid_call(service: &Service, site: &Fixture, nonce: u8) -> (u16, String, String) {
    let PaymentConfig::Ready { terms, .. } = &service.config.payment else {
        panic!("ready")
    };
    let signature = payment_header(&terms.requirements, nonce, 0, unix_now() + 100);
    let url = format!("http://www.fixture-shop.com:{}/", site.addr.port());
    service.call(&post(&format!(r#"{{"url":"{url}"}}"#), Some(&signature)))
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// `/api/ready` until its body contains `expected` (at most 5 s): (status, body).
fn ready_saying(service: &Service, expected: &str) -> (u16, String) {
    let started = Instant::now();
    loop {
        let (status, _, body) =
            service.call(b"GET /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n");
        if body.contains(expected) || started.elapsed() > Duration::from_secs(5) {
            return (status, body);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A facilitator that answers only requests carrying `X-API-Key: <key>` (else 401), like the
/// accepting test facilitator.
fn header_facilitator(key: &'static str) -> Fixture {
    Fixture::start(move |raw| {
        let head = String::from_utf8_lossy(raw);
        let head = head.split("\r\n\r\n").next().unwrap_or("");
        let carries = head.lines().any(|line| line == format!("X-API-Key: {key}"));
        if !carries {
            return response(401, "application/json", r#"{"error":"unauthorized"}"#);
        }
        accepting_answer(raw)
    })
}

fn every_facilitator_call_carries_the_header_line_of_the_file() {
    let scratch = Scratch::new("header");
    let site = Fixture::start(fixture_pages);
    let facilitator = header_facilitator("k-2f9a");
    let file = scratch.file("header", "X-API-Key: k-2f9a\n");
    let service = service(
        &site,
        &format!("http://{}", facilitator.addr),
        &[("FACILITATOR_AUTH_HEADER_FILE", file)],
    );
    let (status, body) = service.wait_ready();
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = paid_call(&service, &site, 40);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (
            facilitator.count("/supported") >= 1,
            facilitator.count("/verify"),
            facilitator.count("/settle")
        ),
        (true, 1, 1)
    );
}

fn a_refused_header_is_not_ready_and_a_503_that_leaves_the_authorization_usable() {
    let scratch = Scratch::new("wrong-header");
    let site = Fixture::start(fixture_pages);
    let facilitator = header_facilitator("k-2f9a");
    let file = scratch.file("header", "X-API-Key: k-revoked\n");
    let service = service(
        &site,
        &format!("http://{}", facilitator.addr),
        &[("FACILITATOR_AUTH_HEADER_FILE", file)],
    );
    let (status, body) = ready_saying(&service, "refuses our credentials");
    assert_eq!(status, 503, "{body}");
    assert!(
        body.contains("facilitator refuses our credentials (401)"),
        "{body}"
    );
    assert!(!body.contains("k-revoked"), "{body}");
    for _ in 0..2 {
        // The same authorization twice: never "already used", never settled, never crawled.
        let (status, _, body) = paid_call(&service, &site, 41);
        assert_eq!(status, 503, "{body}");
        assert!(
            body.contains("refuses this service's credentials (401)"),
            "{body}"
        );
        assert!(!body.contains("k-revoked"), "{body}");
    }
    assert_eq!(
        (facilitator.count("/verify"), facilitator.count("/settle")),
        (2, 0)
    );
    assert_eq!(site.requests.lock().unwrap().len(), 0);
}

/// `.ci/node` with the SDK and jose, or `None` (skipped) where Node.js or the npm registry is
/// missing (with `CI=true`: a failure).
fn node_tools() -> Option<PathBuf> {
    contact_e2e::tools::have("node", "Debian: nodejs npm")?;
    Some(contact_e2e::tools::node_packages(&[
        "@coinbase/cdp-sdk",
        "jose",
    ]))
}

/// Fresh test keys in `scratch` (`node cdp.mjs keys`).
fn make_keys(tools: &Path, scratch: &Scratch) {
    let output = Command::new("node")
        .arg(tools.join("cdp.mjs"))
        .arg("keys")
        .arg(&scratch.0)
        .output_in_group()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The JWT-demanding facilitator (`node cdp.mjs serve`), checking against `public_jwk`; its
/// verdicts as they come. Stopped with its group when dropped.
struct Verifier {
    addr: SocketAddr,
    verdicts: Arc<Mutex<Vec<Value>>>,
    _group: Group,
}

impl Verifier {
    fn start(tools: &Path, public_jwk: &Path) -> Verifier {
        let mut group = Command::new("node")
            .arg(tools.join("cdp.mjs"))
            .args(["serve", KEY_ID])
            .arg(public_jwk)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn_in_group()
            .unwrap();
        let mut lines = BufReader::new(group.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let port: u16 = first
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("{first}"))
            .parse()
            .unwrap();
        let verdicts = Arc::new(Mutex::new(Vec::new()));
        let seen = verdicts.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                seen.lock()
                    .unwrap()
                    .push(serde_json::from_str(&line).unwrap_or(Value::String(line)));
            }
        });
        Verifier {
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            verdicts,
            _group: group,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `host:port` as the request's `Host` (and so `uris`) names it.
    fn host(&self) -> String {
        self.addr.to_string()
    }

    /// Sends `method path` with `token` and returns the status and the verdict's reason.
    fn try_token(&self, method: &str, path: &str, token: &str) -> (u16, String) {
        let before = self.verdicts.lock().unwrap().len();
        let body = if method == "POST" { "{}" } else { "" };
        let raw = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.host(),
            body.len()
        );
        let (status, _, _) = call_at(self.addr, raw.as_bytes());
        let verdict =
            contact_e2e::wait::wait_for("the verifier's verdict", Duration::from_secs(5), || {
                self.verdicts.lock().unwrap().get(before).cloned()
            });
        (status, verdict["reason"].as_str().unwrap_or("").to_string())
    }

    /// The verdicts so far: (method, path, ok, alg).
    fn seen(&self) -> Vec<(String, String, bool, String)> {
        self.verdicts
            .lock()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["method"].as_str().unwrap_or("").to_string(),
                    v["path"].as_str().unwrap_or("").to_string(),
                    v["ok"] == true,
                    v["alg"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }
}

/// The SDK's token for `method host path` with the key in `secret_file`.
fn sdk_token(tools: &Path, secret_file: &Path, method: &str, host: &str, path: &str) -> String {
    let output = Command::new("node")
        .arg(tools.join("cdp.mjs"))
        .args(["sdk-token", KEY_ID])
        .arg(secret_file)
        .args([method, host, path])
        .output_in_group()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

fn our_key(secret_file: &Path) -> CdpKey {
    CdpKey::from_parts(KEY_ID, &std::fs::read(secret_file).unwrap()).unwrap()
}

/// The checker accepts the SDK's tokens and ours for both key types, and refuses a token for
/// another path, an expired one, one signed by another key and one of another algorithm.
#[test]
fn the_verifier_accepts_the_sdk_tokens_and_ours_and_refuses_bad_ones() {
    let Some(tools) = node_tools() else { return };
    let scratch = Scratch::new("cdp-tokens");
    make_keys(&tools, &scratch);
    let dir = &scratch.0;
    for (public, sdk_secret, ours) in [
        (
            "es256.pub.json",
            "es256-pkcs8.pem",
            &["es256-pkcs8.pem", "es256-sec1.pem"][..],
        ),
        ("ed25519.pub.json", "ed25519.b64", &["ed25519.b64"][..]),
    ] {
        let verifier = Verifier::start(&tools, &dir.join(public));
        let host = verifier.host();
        // The SDK's own tokens pass: the checker is right.
        let sdk = |method: &str, path: &str| {
            sdk_token(&tools, &dir.join(sdk_secret), method, &host, path)
        };
        assert_eq!(
            verifier.try_token("GET", "/supported", &sdk("GET", "/supported")),
            (200, String::new())
        );
        assert_eq!(
            verifier.try_token("POST", "/verify", &sdk("POST", "/verify")),
            (200, String::new())
        );
        let (status, reason) = verifier.try_token("POST", "/settle", &sdk("POST", "/verify"));
        assert_eq!(status, 401);
        assert!(reason.starts_with("uris"), "{reason}");
        // Ours pass, for each form of the key.
        for secret in ours {
            let key = our_key(&dir.join(secret));
            let token = |method: &str, path: &str, unix: u64| {
                key.jwt(method, &format!("{host}{path}"), unix, [0x5a; 16])
            };
            let now = unix_now();
            for (method, path) in [
                ("GET", "/supported"),
                ("POST", "/verify"),
                ("POST", "/settle"),
            ] {
                assert_eq!(
                    verifier.try_token(method, path, &token(method, path, now)),
                    (200, String::new()),
                    "{secret} {method} {path}"
                );
            }
            // Another path, another method, an expired token: refused.
            let (status, reason) =
                verifier.try_token("POST", "/settle", &token("POST", "/verify", now));
            assert_eq!(status, 401);
            assert!(reason.starts_with("uris"), "{reason}");
            let (status, reason) =
                verifier.try_token("POST", "/supported", &token("GET", "/supported", now));
            assert_eq!(status, 401);
            assert!(reason.starts_with("uris"), "{reason}");
            let (status, reason) =
                verifier.try_token("GET", "/supported", &token("GET", "/supported", now - 600));
            assert_eq!((status, reason.as_str()), (401, "jose: ERR_JWT_EXPIRED"));
        }
    }
    // Signed by another key (same id), or with the other algorithm: refused.
    let verifier = Verifier::start(&tools, &dir.join("es256.pub.json"));
    let host = verifier.host();
    for secret in ["other-es256-pkcs8.pem", "ed25519.b64"] {
        let token = our_key(&dir.join(secret)).jwt(
            "GET",
            &format!("{host}/supported"),
            unix_now(),
            [1; 16],
        );
        let (status, reason) = verifier.try_token("GET", "/supported", &token);
        assert_eq!(status, 401, "{secret}");
        assert!(reason.starts_with("jose: ERR_J"), "{secret}: {reason}");
    }
}

fn a_service_with_a_cdp_key_passes_the_demanding_facilitator() {
    let Some(tools) = node_tools() else { return };
    let scratch = Scratch::new("cdp-service");
    make_keys(&tools, &scratch);
    let dir = &scratch.0;
    for (public, secret, alg, nonce) in [
        ("es256.pub.json", "es256-pkcs8.pem", "ES256", 42),
        ("es256.pub.json", "es256-sec1.pem", "ES256", 43),
        ("ed25519.pub.json", "ed25519.b64", "EdDSA", 44),
    ] {
        let verifier = Verifier::start(&tools, &dir.join(public));
        let site = Fixture::start(fixture_pages);
        let service = service(
            &site,
            &format!("{}/platform/v2/x402", verifier.url()),
            &[
                ("CDP_API_KEY_ID", KEY_ID.to_string()),
                (
                    "CDP_API_KEY_SECRET_FILE",
                    dir.join(secret).to_string_lossy().into_owned(),
                ),
            ],
        );
        let (status, body) = service.wait_ready();
        assert_eq!(status, 200, "{secret}: {body}: {:?}", verifier.seen());
        let (status, _, body) = paid_call(&service, &site, nonce);
        assert_eq!(status, 200, "{secret}: {body}: {:?}", verifier.seen());
        // The verdict lines and the answers leave the verifier apart: wait for the lines.
        let calls: Vec<(String, String, bool, String)> = [
            ("GET", "/platform/v2/x402/supported"),
            ("POST", "/platform/v2/x402/verify"),
            ("POST", "/platform/v2/x402/settle"),
        ]
        .iter()
        .map(|(method, path)| (method.to_string(), path.to_string(), true, alg.to_string()))
        .collect();
        let all_seen = contact_e2e::wait::holds_within(Duration::from_secs(5), || {
            let seen = verifier.seen();
            calls.iter().all(|call| seen.contains(call))
        });
        let seen = verifier.seen();
        assert!(all_seen, "{secret}: {calls:?} in {seen:?}");
        assert!(seen.iter().all(|(_, _, ok, _)| *ok), "{seen:?}");
    }
}

fn a_wrong_cdp_key_is_not_ready_and_the_paid_route_503s_without_a_charge() {
    let Some(tools) = node_tools() else { return };
    let scratch = Scratch::new("cdp-wrong");
    make_keys(&tools, &scratch);
    let dir = &scratch.0;
    let verifier = Verifier::start(&tools, &dir.join("es256.pub.json"));
    let site = Fixture::start(fixture_pages);
    let service = service(
        &site,
        &verifier.url(),
        &[
            ("CDP_API_KEY_ID", KEY_ID.to_string()),
            (
                "CDP_API_KEY_SECRET_FILE",
                dir.join("other-es256-pkcs8.pem")
                    .to_string_lossy()
                    .into_owned(),
            ),
        ],
    );
    let (status, body) = ready_saying(&service, "refuses our credentials");
    assert_eq!(status, 503, "{body}");
    assert!(
        body.contains("facilitator refuses our credentials (401)"),
        "{body}"
    );
    let (status, _, body) = paid_call(&service, &site, 45);
    assert_eq!(status, 503, "{body}");
    assert!(
        body.contains("refuses this service's credentials (401)"),
        "{body}"
    );
    // The verdict lines and the answers leave the verifier apart: wait for the line.
    let verified = contact_e2e::wait::holds_within(Duration::from_secs(5), || {
        verifier
            .seen()
            .iter()
            .any(|(_, path, _, _)| path == "/verify")
    });
    let seen = verifier.seen();
    assert!(verified, "{seen:?}");
    assert!(
        seen.iter().all(|(_, path, ok, _)| !ok && path != "/settle"),
        "{seen:?}"
    );
    assert_eq!(site.requests.lock().unwrap().len(), 0);
}

contact_e2e::both_runtimes!(
    every_facilitator_call_carries_the_header_line_of_the_file,
    a_refused_header_is_not_ready_and_a_503_that_leaves_the_authorization_usable,
    a_service_with_a_cdp_key_passes_the_demanding_facilitator,
    a_wrong_cdp_key_is_not_ready_and_the_paid_route_503s_without_a_charge,
);
