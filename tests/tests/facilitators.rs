//! Several facilitators over real sockets, on both runtimes (docs/payments.md, "Several
//! facilitators"): the first one down at start leaves the service ready on the second, which
//! serves the paid route; the first failing after `/verify` keeps the settlement and every
//! retry with the same `PAYMENT-SIGNATURE`, which never reach the second; credentials by
//! position reach their own facilitator only.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::time::{SystemTime, UNIX_EPOCH};

use contact_core::config::PaymentConfig;
use contact_core::testing::sim::payment_header;
use contact_e2e::fixture::{
    accepting_answer, request_path, response, service_vars, Fixture, SUPPORTED,
};
use contact_e2e::tools::free_port;

mod common;
use common::{fixture_pages, post, Service};

/// The service wired to the fixture site and to the facilitators at `urls`, in that order.
fn service(site: &Fixture, urls: &[String]) -> Service {
    let mut vars = service_vars(site, site);
    vars.retain(|(name, _)| *name != "FACILITATOR_URL");
    vars.push(("FACILITATOR_URL", urls.join(",")));
    vars.push(("LOG_FORMAT", "pretty".to_string()));
    Service::start_with_tls(&vars, Vec::new(), None)
}

/// A paid extraction of the fixture site with the test key's authorization `nonce`.
fn paid_request(service: &Service, site: &Fixture, nonce: u8) -> Vec<u8> {
    let PaymentConfig::Ready { terms, .. } = &service.config.payment else {
        panic!("ready")
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let signature = payment_header(&terms.requirements, nonce, 0, now + 100);
    let url = format!("http://www.fixture-shop.com:{}/", site.addr.port());
    post(&format!(r#"{{"url":"{url}"}}"#), Some(&signature))
}

fn the_first_facilitator_down_at_start_leaves_the_second_serving() {
    let site = Fixture::start(fixture_pages);
    let second = Fixture::accepting_facilitator();
    // Nothing listens on the first one's port.
    let first = format!("http://127.0.0.1:{}", free_port());
    let service = service(&site, &[first.clone(), format!("http://{}", second.addr)]);
    let (status, body) = service.wait_ready();
    assert_eq!(status, 200, "{body}");
    let ready: serde_json::Value = serde_json::from_str(&body).unwrap();
    let warned = ready["warnings"].as_array().unwrap().iter().any(|w| {
        w.as_str()
            .unwrap()
            .starts_with(&format!("{first}/: facilitator unreachable"))
    });
    assert!(warned, "{body}");
    let (status, _, body) = service.call(&paid_request(&service, &site, 31));
    assert_eq!(status, 200, "{body}");
    assert_eq!((second.count("/verify"), second.count("/settle")), (1, 1));
}

fn after_verify_the_first_facilitator_keeps_the_settlement_and_its_retries() {
    let site = Fixture::start(fixture_pages);
    // Healthy and verifying, then its /settle fails: a 500, after which the money may have
    // moved.
    let first = Fixture::start(|raw| match request_path(raw).as_str() {
        "/supported" => response(200, "application/json", SUPPORTED),
        "/verify" => response(200, "application/json", r#"{"isValid":true}"#),
        _ => response(500, "application/json", r#"{"error":"upstream timeout"}"#),
    });
    let second = Fixture::accepting_facilitator();
    let urls = [
        format!("http://{}", first.addr),
        format!("http://{}", second.addr),
    ];
    let service = service(&site, &urls);
    let (status, body) = service.wait_ready();
    assert_eq!(status, 200, "{body}");
    let request = paid_request(&service, &site, 32);
    let (status, _, body) = service.call(&request);
    assert_eq!(status, 503, "{body}");
    assert!(
        body.contains("retry with the same PAYMENT-SIGNATURE"),
        "{body}"
    );
    let settles = first.count("/settle");
    assert!(settles >= 1);
    // The retry: the kept result is settled again, at the first facilitator only.
    let (status, _, body) = service.call(&request);
    assert_eq!(status, 503, "{body}");
    assert!(first.count("/settle") > settles);
    assert_eq!(first.count("/verify"), 1);
    assert_eq!(site.count("/"), 1, "no second crawl");
    assert_eq!(
        (second.count("/verify"), second.count("/settle")),
        (0, 0),
        "the second facilitator never sees the authorization"
    );
}

/// Credentials go by position: `FACILITATOR_AUTH_HEADER_FILE=,<file>` gives the second
/// facilitator its header line and the first none. The first fails its check, so the paid
/// request goes to the second, with the header on every call; the first never sees it.
fn credentials_by_position_reach_only_their_facilitator() {
    let site = Fixture::start(fixture_pages);
    let first = Fixture::start(|_| response(503, "application/json", r#"{"error":"down"}"#));
    let second = Fixture::start(|raw| {
        let text = String::from_utf8_lossy(raw);
        if !text.contains("\r\nX-API-Key: second-key\r\n") {
            return response(401, "application/json", r#"{"error":"unauthorized"}"#);
        }
        accepting_answer(raw)
    });
    let dir = std::env::temp_dir().join(format!("facilitators-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let header_file = dir.join(format!("header-{}", second.addr.port()));
    std::fs::write(&header_file, "X-API-Key: second-key\n").unwrap();
    let mut vars = service_vars(&site, &site);
    vars.retain(|(name, _)| *name != "FACILITATOR_URL");
    vars.push((
        "FACILITATOR_URL",
        format!("http://{},http://{}", first.addr, second.addr),
    ));
    vars.push((
        "FACILITATOR_AUTH_HEADER_FILE",
        format!(",{}", header_file.display()),
    ));
    let service = Service::start_with_tls(&vars, Vec::new(), None);
    let (status, body) = service.wait_ready();
    std::fs::remove_file(&header_file).unwrap();
    assert_eq!(status, 200, "{body}");
    let (status, _, body) = service.call(&paid_request(&service, &site, 33));
    assert_eq!(status, 200, "{body}");
    assert_eq!((second.count("/verify"), second.count("/settle")), (1, 1));
    let first_saw = first.requests.lock().unwrap();
    assert!(!first_saw.is_empty());
    assert!(first_saw
        .iter()
        .all(|r| !String::from_utf8_lossy(r).contains("second-key")));
}

contact_e2e::both_runtimes!(
    the_first_facilitator_down_at_start_leaves_the_second_serving,
    after_verify_the_first_facilitator_keeps_the_settlement_and_its_retries,
    credentials_by_position_reach_only_their_facilitator,
);
