//! The request lifecycle, driven without IO through `contact_core::testing::sim`: every branch
//! of the docs/contract.md order, the paid happy path, and the failure paths that must never
//! settle.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeMap;
use std::io::Write;

use contact_core::api::ErrorCode;
use contact_core::budget::FACILITATOR_CHECK_TIMEOUT;
use contact_core::config::{Config, PaymentConfig};
use contact_core::exchange::Exchange;
use contact_core::payment::{codec, PaymentRequired, PaymentRequirements, SettleResponse};
use contact_core::server::FacilitatorHealth;
use contact_core::testing::sim::{
    http_response, payment_header, request_path, Reply, Sim, SIM_UNIX_START,
};

const SITE_IP: &str = "93.184.216.34";
const FACILITATOR: &str = "127.0.0.1:9000";

fn config(extra: &[(&str, &str)]) -> Config {
    let mut vars: BTreeMap<String, String> = [
        ("PUBLIC_BASE_URL", "https://contacts.example.com"),
        ("PAY_TO", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
        ("FACILITATOR_URL", "http://127.0.0.1:9000"),
        ("X402_MAX_TIMEOUT_SECONDS", "64"),
        // No judge unless a test names one (unset is the network's public RPC).
        ("CHAIN_RPC_URL", "none"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for (k, v) in extra {
        vars.insert(k.to_string(), v.to_string());
    }
    Config::from_env_map(&vars).expect("test config")
}

fn requirements(sim: &Sim) -> PaymentRequirements {
    match &sim.server.config().payment {
        PaymentConfig::Ready { terms, .. } => terms.requirements.clone(),
        PaymentConfig::Incomplete(p) => panic!("payments not configured: {p:?}"),
    }
}

const HOME: &str = r#"<html><head><title>Acme Shop | Home</title></head><body>
<a href="/contact">Contact us</a><a href="/about">About</a>
<p>Mail <a href="mailto:info@acme-shop.com">info@acme-shop.com</a></p></body></html>"#;
const CONTACT: &str =
    r#"<html><body><p>Phone: +44 20 8551 6580</p><p>sales@acme-shop.com</p></body></html>"#;

/// A world with the site, its DNS name and a facilitator that accepts everything.
fn world(extra: &[(&str, &str)]) -> Sim {
    world_of_instance(extra, 7)
}

/// As [`world`], for one of several instances (`seed`: its server's seed).
fn world_of_instance(extra: &[(&str, &str)], seed: u8) -> Sim {
    world_with(config(extra), seed)
}

/// As [`world_of_instance`], with a configuration built by the test.
fn world_with(config: Config, seed: u8) -> Sim {
    let mut sim = Sim::instance(config, seed);
    sim.dns
        .insert("www.acme-shop.com".into(), vec![SITE_IP.parse().unwrap()]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |raw| {
        let html = |body: &str| {
            Reply::Bytes(http_response(
                200,
                &[("Content-Type", "text/html; charset=utf-8")],
                body.as_bytes(),
            ))
        };
        match request_path(raw).as_str() {
            "/" => html(HOME),
            "/contact" => html(CONTACT),
            _ => Reply::Bytes(http_response(404, &[], b"")),
        }
    });
    facilitator(
        &mut sim,
        r#"{"isValid":true,"payer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}"#,
        r#"{"success":true,"transaction":"0xabc","network":"eip155:8453","payer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}"#,
    );
    sim
}

/// What the reference facilitator's `GET /supported` lists for Base mainnet.
const SUPPORTED: &str = r#"{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:8453"}],"extensions":[],"signers":{"eip155:*":["0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"]}}"#;

fn facilitator(sim: &mut Sim, verify: &'static str, settle: &'static str) {
    sim.endpoint(FACILITATOR.parse().unwrap(), move |raw| {
        let body = match request_path(raw).as_str() {
            "/verify" => verify,
            "/supported" => SUPPORTED,
            _ => settle,
        };
        Reply::Bytes(http_response(
            200,
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        ))
    });
}

fn calls(sim: &Sim, path: &str) -> usize {
    sim.endpoints[&FACILITATOR.parse().unwrap()]
        .requests
        .iter()
        .filter(|r| request_path(r) == path)
        .count()
}

fn site_requests(sim: &Sim) -> usize {
    sim.endpoints
        .get(&format!("{SITE_IP}:443").parse().unwrap())
        .map_or(0, |e| e.requests.len())
}

fn post(body: &str, payment: Option<&str>) -> Vec<u8> {
    let header = payment
        .map(|p| format!("PAYMENT-SIGNATURE: {p}\r\n"))
        .unwrap_or_default();
    format!(
        "POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{header}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn paid_post(sim: &Sim, nonce: u8) -> Vec<u8> {
    // validBefore 100 s ahead: inside maxTimeoutSeconds (64) + 60 s, and enough for a whole
    // job (60 s) even after other requests moved the virtual clock on.
    let header = payment_header(&requirements(sim), nonce, 0, SIM_UNIX_START + 100);
    post(r#"{"url":"https://www.acme-shop.com/"}"#, Some(&header))
}

struct Parsed {
    status: u16,
    headers: Vec<(String, String)>,
    body: serde_json::Value,
}

impl Parsed {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Parses every response in `bytes`.
fn responses(bytes: &[u8]) -> Vec<Parsed> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut response = httparse::Response::new(&mut headers);
        let used = match response.parse(rest) {
            Ok(httparse::Status::Complete(used)) => used,
            other => panic!(
                "bad response bytes: {other:?}: {}",
                String::from_utf8_lossy(rest)
            ),
        };
        let headers: Vec<(String, String)> = response
            .headers
            .iter()
            .map(|h| {
                (
                    h.name.to_string(),
                    String::from_utf8_lossy(h.value).to_string(),
                )
            })
            .collect();
        let length: usize = headers
            .iter()
            .find(|(n, _)| n == "Content-Length")
            .map_or(0, |(_, v)| v.parse().unwrap());
        let body = &rest[used..used + length];
        out.push(Parsed {
            status: response.code.unwrap(),
            headers,
            body: if body.is_empty() {
                serde_json::Value::Null
            } else {
                serde_json::from_slice(body).unwrap()
            },
        });
        rest = &rest[used + length..];
    }
    out
}

fn one(bytes: &[u8]) -> Parsed {
    let mut all = responses(bytes);
    assert_eq!(all.len(), 1, "one response expected");
    all.remove(0)
}

/// A 402 whose `PAYMENT-REQUIRED` says the authorization was already used.
fn assert_already_used(response: &Parsed) {
    assert_eq!(response.status, 402, "{}", response.body);
    let header: PaymentRequired =
        codec::decode(response.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(
        header.error.as_deref(),
        Some("payment authorization already used")
    );
}

fn assert_error(response: &Parsed, status: u16, code: &str) {
    assert_eq!(response.status, status, "{}", response.body);
    assert_eq!(response.body["success"], false);
    assert_eq!(response.body["error"]["code"], code, "{}", response.body);
    assert_eq!(
        response.body["requestId"].as_str(),
        response.header("X-Request-Id")
    );
}

#[test]
fn free_routes() {
    let mut sim = world(&[]);
    for path in ["/api/health", "/api/healthz"] {
        let r =
            one(&sim
                .request(format!("GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n").as_bytes()));
        assert_eq!(
            (r.status, r.body.clone()),
            (
                200,
                serde_json::json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")})
            )
        );
        assert!(r.header("X-Request-Id").unwrap().starts_with("req_"));
    }
    assert_eq!(sim.check_facilitator(), FacilitatorHealth::Supported);
    let r = one(&sim.request(b"GET /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n"));
    assert_eq!(r.status, 200);
    for path in [
        "/openapi.json",
        "/.well-known/x402.json",
        "/.well-known/mcp.json",
    ] {
        let r =
            one(&sim
                .request(format!("GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n").as_bytes()));
        assert_eq!(r.status, 200, "{path}");
        assert!(r.body.is_object());
    }
    let r =
        one(&sim.request(b"OPTIONS /api/v1/extract-contact HTTP/1.1\r\nConnection: close\r\n\r\n"));
    assert_eq!(r.status, 204);
    assert!(r
        .header("Access-Control-Allow-Headers")
        .unwrap()
        .contains("PAYMENT-SIGNATURE"));
    assert_error(
        &one(&sim.request(b"GET /nope HTTP/1.1\r\nConnection: close\r\n\r\n")),
        404,
        "INVALID_URL",
    );
    let r = one(&sim.request(b"GET /api/v1/extract-contact HTTP/1.1\r\nConnection: close\r\n\r\n"));
    assert_error(&r, 405, "INVALID_URL");
    assert_eq!(r.header("Allow"), Some("POST, OPTIONS"));
}

/// Readiness names the facilitator (docs/operations.md, "Readiness"): 503 until a check of
/// `GET /supported` finds x402 v2 `exact` on the configured network, and again whenever a later
/// check does not (unreachable, an error status, a hang, another network); 200 once it does.
#[test]
fn readiness_waits_for_a_facilitator_that_supports_exact_on_the_network() {
    let mut sim = world(&[]);
    let ready = |sim: &mut Sim| one(&sim.request(b"GET /api/ready HTTP/1.1\r\n\r\n"));
    let r = ready(&mut sim);
    assert_eq!(
        (r.status, r.body["status"].as_str()),
        (503, Some("not ready"))
    );
    assert!(r.body["problems"][0]
        .as_str()
        .unwrap()
        .starts_with("facilitator not checked yet"));
    assert_eq!(sim.check_facilitator(), FacilitatorHealth::Supported);
    assert_eq!(ready(&mut sim).status, 200);
    let supported = sim.endpoints[&FACILITATOR.parse().unwrap()]
        .requests
        .last()
        .map(|r| String::from_utf8_lossy(r).to_string())
        .unwrap();
    assert!(
        supported.starts_with("GET /supported HTTP/1.1\r\n"),
        "{supported}"
    );

    let answer = |status: u16, body: &str| {
        Reply::Bytes(http_response(
            status,
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        ))
    };
    let cases = [
        (
            answer(
                200,
                r#"{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:84532"}]}"#,
            ),
            "facilitator does not support exact on eip155:8453",
        ),
        (
            answer(500, r#"{"error":"down"}"#),
            "facilitator unreachable: GET /supported answered HTTP 500",
        ),
        (
            Reply::Stall,
            "facilitator unreachable: GET /supported gave no answer within 10 s",
        ),
        (
            answer(200, "<html>maintenance</html>"),
            "facilitator /supported answer is not a list of kinds",
        ),
    ];
    for (reply, problem) in cases {
        sim.endpoint(FACILITATOR.parse().unwrap(), move |_| reply.clone());
        let started = sim.elapsed();
        let FacilitatorHealth::Problem(found) = sim.check_facilitator() else {
            panic!("{problem}: not a problem")
        };
        assert!(found.starts_with(problem), "{found}");
        assert!(sim.elapsed() - started <= FACILITATOR_CHECK_TIMEOUT);
        let r = ready(&mut sim);
        assert_eq!(r.status, 503);
        assert_eq!(r.body["problems"][0].as_str(), Some(found.as_str()));
    }
    // No facilitator listening at all.
    sim.endpoints.remove(&FACILITATOR.parse().unwrap());
    let FacilitatorHealth::Problem(found) = sim.check_facilitator() else {
        panic!("a refused connection is a problem")
    };
    assert!(found.starts_with("facilitator unreachable"), "{found}");
    // It comes back: the next check makes the service ready again.
    facilitator(&mut sim, r#"{"isValid":true}"#, r#"{"success":true}"#);
    assert_eq!(sim.check_facilitator(), FacilitatorHealth::Supported);
    assert_eq!(ready(&mut sim).status, 200);
}

#[test]
fn readiness_lists_problems_and_the_paid_route_fails_closed() {
    let mut sim = Sim::new(Config::from_env_map(&BTreeMap::new()).unwrap());
    let r = one(&sim.request(b"GET /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n"));
    assert_eq!(r.status, 503);
    assert_eq!(r.body["problems"].as_array().unwrap().len(), 3);
    let r = one(&sim.request(&post(r#"{"url":"https://www.acme-shop.com/"}"#, None)));
    assert_error(&r, 503, "INTERNAL_ERROR");
    // Validation still comes first: a bad body is a 400 even when payments are off.
    assert_error(&one(&sim.request(&post("{}", None))), 400, "INVALID_URL");
}

#[test]
fn unpaid_request_gets_a_402_with_the_requirements() {
    let mut sim = world(&[]);
    let r = one(&sim.request(&post(r#"{"url":"https://www.acme-shop.com/"}"#, None)));
    assert_eq!(r.status, 402);
    assert_eq!(r.header("Cache-Control"), Some("no-store"));
    let header: PaymentRequired = codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(header.x402_version, 2);
    assert_eq!(header.accepts, vec![requirements(&sim)]);
    assert_eq!(header.accepts[0].amount, "10000");
    assert_eq!(
        header.resource.url,
        "https://contacts.example.com/api/v1/extract-contact"
    );
    assert!(header.extensions.as_ref().unwrap()["bazaar"].is_object());
    assert_eq!(
        serde_json::to_value(&header).unwrap(),
        r.body,
        "the body holds the same PaymentRequired"
    );
    // Byte-identical on every request.
    let again = one(&sim.request(&post(r#"{"url":"https://www.acme-shop.com/"}"#, None)));
    assert_eq!(
        again.header("PAYMENT-REQUIRED"),
        r.header("PAYMENT-REQUIRED")
    );
    assert_eq!(site_requests(&sim), 0);
}

#[test]
fn requests_sent_a_byte_at_a_time_are_answered() {
    // A waiting head is parsed again only once a line has ended (`head_may_be_complete`): a
    // client that sends two pipelined requests a byte per read still gets both answers.
    let mut sim = world(&[]);
    let body = r#"{"url":"https://www.acme-shop.com/"}"#;
    let request = |extra: &str| {
        format!(
            "POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n{body}",
            body.len()
        )
    };
    let raw = request("") + &request("Connection: close\r\n");
    let script: Vec<(std::time::Duration, Vec<u8>)> = raw
        .bytes()
        .enumerate()
        .map(|(i, b)| (std::time::Duration::from_millis(i as u64), vec![b]))
        .collect();
    let answers = responses(&sim.request_over_time(&script));
    let statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [402, 402]);
    // A head over the limit is still refused while it arrives without a line end.
    let mut sim = world(&[]);
    let long = format!("GET /{} HTTP/1.1", "a".repeat(40 * 1024));
    let script: Vec<(std::time::Duration, Vec<u8>)> = long
        .as_bytes()
        .chunks(1024)
        .enumerate()
        .map(|(i, piece)| (std::time::Duration::from_millis(i as u64), piece.to_vec()))
        .collect();
    assert_eq!(one(&sim.request_over_time(&script)).status, 431);
}

#[test]
fn validation_order_before_payment() {
    let mut sim = world(&[]);
    for body in [
        "not json",
        "[]",
        r#"{"url":1}"#,
        r#"{"url":"https://a.com/","x":1}"#,
        r#"{"url":"ftp://a.com/"}"#,
        r#"{"url":" https://a.com/"}"#,
    ] {
        assert_error(&one(&sim.request(&post(body, None))), 400, "INVALID_URL");
    }
    for body in [
        r#"{"url":"http://127.0.0.1/"}"#,
        r#"{"url":"http://0x7f.1/"}"#,
        r#"{"url":"http://[::ffff:10.0.0.1]/"}"#,
        r#"{"url":"http://localhost/"}"#,
    ] {
        assert_error(
            &one(&sim.request(&post(body, None))),
            400,
            "PRIVATE_ADDRESS",
        );
    }
    // Within 2048 characters, but over 8192 bytes once percent-encoded (docs/security.md).
    let grows = format!(
        r#"{{"url":"https://www.acme-shop.com/{}"}}"#,
        "é".repeat(1400)
    );
    let r = one(&sim.request(&post(&grows, None)));
    assert_error(&r, 400, "INVALID_URL");
    assert!(r.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("8192 bytes"));
    let form = b"POST /api/v1/extract-contact HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5\r\nConnection: close\r\n\r\nurl=x";
    assert_error(&one(&sim.request(form)), 400, "INVALID_URL");
    let query = b"POST /api/v1/extract-contact?url=x HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
    assert_error(&one(&sim.request(query)), 400, "INVALID_URL");
    let big = format!("POST /api/v1/extract-contact HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", 16 * 1024 + 1);
    assert_error(&one(&sim.request(big.as_bytes())), 413, "INVALID_URL");
    let mut huge_head = b"GET /api/health HTTP/1.1\r\nX: ".to_vec();
    huge_head.resize(33 * 1024, b'a');
    assert_error(&one(&sim.request(&huge_head)), 431, "INVALID_URL");
    assert_eq!(site_requests(&sim), 0);
}

#[test]
fn rate_limit_answers_429_with_retry_after() {
    let mut sim = world(&[("RATE_LIMIT_PER_MINUTE", "1"), ("RATE_LIMIT_BURST", "2")]);
    let unpaid = post(r#"{"url":"https://www.acme-shop.com/"}"#, None);
    assert_eq!(one(&sim.request(&unpaid)).status, 402);
    assert_eq!(one(&sim.request(&unpaid)).status, 402);
    let r = one(&sim.request(&unpaid));
    assert_error(&r, 429, "RATE_LIMITED");
    assert_eq!(r.header("Retry-After"), Some("60"));
}

#[test]
fn paid_request_is_crawled_extracted_and_settled_once() {
    let mut sim = world(&[]);
    sim.split = 7; // replies arrive in small pieces
    let request = paid_post(&sim, 1);
    let r = one(&sim.request(&request));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("Cache-Control"), Some("private"));
    let settled: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert!(settled.success);
    assert_eq!(settled.transaction, "0xabc");
    let body = &r.body;
    assert_eq!(body["success"], true);
    assert_eq!(body["domain"], "acme-shop.com");
    assert_eq!(body["companyName"], "Acme Shop");
    assert_eq!(body["emails"][0]["value"], "info@acme-shop.com");
    assert_eq!(body["emails"][1]["value"], "sales@acme-shop.com");
    assert_eq!(
        body["emails"][1]["sourceUrl"],
        "https://www.acme-shop.com/contact"
    );
    assert_eq!(body["phones"][0]["value"], "+442085516580");
    assert_eq!(body["requestId"].as_str(), r.header("X-Request-Id"));
    assert_eq!(body["pagesScanned"][0], "https://www.acme-shop.com/");
    assert_eq!(
        body["meta"]["pagesFetched"], 3,
        "homepage, /contact and /about (a 404)"
    );
    assert_eq!((calls(&sim, "/verify"), calls(&sim, "/settle")), (1, 1));
    // The facilitator received our requirements and the client's payload.
    let verify = &sim.endpoints[&FACILITATOR.parse().unwrap()].requests[0];
    let verify_body: serde_json::Value = serde_json::from_slice(
        &verify[verify.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4..],
    )
    .unwrap();
    assert_eq!(
        verify_body["paymentRequirements"],
        serde_json::to_value(requirements(&sim)).unwrap()
    );
    let event = sim.events.last().unwrap();
    assert_eq!((event.status, event.pages_fetched), (200, 3));
    assert_eq!(
        event.payer.as_deref(),
        Some("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
    );

    // The same PAYMENT-SIGNATURE again: the kept 200 (same body, same PAYMENT-RESPONSE), no
    // facilitator call, no crawl (docs/payments.md).
    let site_before = site_requests(&sim);
    let again = one(&sim.request(&request));
    assert_eq!(again.status, 200);
    assert_eq!(again.body, r.body);
    assert_eq!(
        again.header("PAYMENT-RESPONSE"),
        r.header("PAYMENT-RESPONSE")
    );
    assert_eq!(again.header("X-Request-Id"), r.header("X-Request-Id"));
    assert_eq!(
        (
            calls(&sim, "/verify"),
            calls(&sim, "/settle"),
            site_requests(&sim)
        ),
        (1, 1, site_before)
    );
}

#[test]
fn twenty_concurrent_uses_of_one_authorization_crawl_and_settle_once() {
    let mut sim = world(&[("RATE_LIMIT_BURST", "50")]);
    let request = paid_post(&sim, 2);
    let results = sim.run(&vec![request; 20]);
    let statuses: Vec<u16> = results.iter().map(|r| one(r).status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    // The others carry the same payment while it is in progress: 503 + Retry-After, never a
    // 402 that would make a client pay again.
    assert_eq!(statuses.iter().filter(|s| **s == 503).count(), 19);
    for r in results.iter().map(|r| one(r)).filter(|r| r.status == 503) {
        assert_error(&r, 503, "INTERNAL_ERROR");
        assert_eq!(r.header("Retry-After"), Some("2"));
    }
    assert_eq!((calls(&sim, "/verify"), calls(&sim, "/settle")), (1, 1));
    assert_eq!(
        sim.endpoints[&format!("{SITE_IP}:443").parse().unwrap()]
            .requests
            .iter()
            .filter(|r| request_path(r) == "/")
            .count(),
        1
    );
}

#[test]
fn invalid_local_payment_is_refused_without_facilitator_call() {
    let mut sim = world(&[]);
    let mut other = requirements(&sim);
    other.amount = "1".into();
    let wrong_amount = payment_header(&other, 3, 0, SIM_UNIX_START + 60);
    let expired = payment_header(&requirements(&sim), 4, 0, SIM_UNIX_START + 3);
    for header in [
        wrong_amount.as_str(),
        expired.as_str(),
        "not-base64!!",
        "bm90IGpzb24=",
    ] {
        let r = one(&sim.request(&post(
            r#"{"url":"https://www.acme-shop.com/"}"#,
            Some(header),
        )));
        assert_eq!(r.status, 402);
        assert!(
            codec::decode::<PaymentRequired>(r.header("PAYMENT-REQUIRED").unwrap())
                .unwrap()
                .error
                .is_some()
        );
    }
    assert_eq!((calls(&sim, "/verify"), site_requests(&sim)), (0, 0));
}

#[test]
fn verify_rejected_is_a_402_without_crawl() {
    let mut sim = world(&[]);
    facilitator(
        &mut sim,
        r#"{"isValid":false,"invalidReason":"insufficient_funds"}"#,
        "{}",
    );
    let r = one(&sim.request(&paid_post(&sim, 5)));
    assert_eq!(r.status, 402);
    let header: PaymentRequired = codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(header.error.as_deref(), Some("insufficient_funds"));
    assert_eq!(
        (
            calls(&sim, "/verify"),
            calls(&sim, "/settle"),
            site_requests(&sim)
        ),
        (1, 0, 0)
    );
}

#[test]
fn settle_refused_is_a_402_without_result() {
    // A reason a facilitator gives before it broadcasts, no transaction, HTTP 200: no money
    // moved, so a 402 (docs/payments.md, "What is a refusal").
    let mut sim = world(&[]);
    facilitator(
        &mut sim,
        r#"{"isValid":true}"#,
        r#"{"success":false,"errorReason":"insufficient_funds","transaction":"","network":"eip155:8453"}"#,
    );
    let r = one(&sim.request(&paid_post(&sim, 6)));
    assert_eq!(r.status, 402);
    assert_eq!(r.body, serde_json::json!({}));
    let settled: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert!(!settled.success);
    assert_eq!(settled.error_reason.as_deref(), Some("insufficient_funds"));
}

#[test]
fn facilitator_down_is_a_503_and_no_charge() {
    let mut sim = world(&[]);
    sim.endpoints.remove(&FACILITATOR.parse().unwrap());
    let r = one(&sim.request(&paid_post(&sim, 7)));
    assert_error(&r, 503, "INTERNAL_ERROR");
    let message = r.body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("this request changed nothing"),
        "{message}"
    );
    assert!(!message.contains("charged"), "{message}");
    assert_eq!(site_requests(&sim), 0);
    // Garbage from the facilitator is the same.
    let mut sim = world(&[]);
    facilitator(&mut sim, "<html>502</html>", "");
    assert_error(
        &one(&sim.request(&paid_post(&sim, 8))),
        503,
        "INTERNAL_ERROR",
    );
}

#[test]
fn dns_answer_with_a_private_address_is_refused_and_not_settled() {
    let mut sim = world(&[]);
    sim.dns.insert(
        "www.acme-shop.com".into(),
        vec![SITE_IP.parse().unwrap(), "10.0.0.7".parse().unwrap()],
    );
    let r = one(&sim.request(&paid_post(&sim, 9)));
    assert_error(&r, 400, "PRIVATE_ADDRESS");
    assert!(!r.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("10.0.0.7"));
    assert_eq!((calls(&sim, "/settle"), site_requests(&sim)), (0, 0));
    assert!(sim
        .connects
        .iter()
        .all(|a| a.ip().to_string() != "10.0.0.7"));
}

#[test]
fn redirect_to_a_private_address_is_refused() {
    let mut sim = world(&[]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| {
        Reply::Bytes(http_response(
            302,
            &[("Location", "https://169.254.169.254/latest/meta-data/")],
            b"",
        ))
    });
    let r = one(&sim.request(&paid_post(&sim, 10)));
    assert_error(&r, 400, "PRIVATE_ADDRESS");
    assert_eq!(calls(&sim, "/settle"), 0);
    assert!(sim
        .connects
        .iter()
        .all(|a| a.ip().to_string() != "169.254.169.254"));
    // A downgrade to http is never followed.
    let mut sim = world(&[]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| {
        Reply::Bytes(http_response(
            301,
            &[("Location", "http://www.acme-shop.com/")],
            b"",
        ))
    });
    assert_error(
        &one(&sim.request(&paid_post(&sim, 17))),
        422,
        "FETCH_FAILED",
    );
    // Too many hops.
    let mut sim = world(&[]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |raw| {
        let next = format!("/{}", request_path(raw).len());
        Reply::Bytes(http_response(302, &[("Location", next.as_str())], b""))
    });
    assert_error(
        &one(&sim.request(&paid_post(&sim, 18))),
        422,
        "FETCH_FAILED",
    );
    assert_eq!(site_requests(&sim), 6, "the first request and 5 redirects");
}

#[test]
fn slow_site_times_out_inside_the_deadline_and_is_not_settled() {
    let mut sim = world(&[]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| Reply::Stall);
    let r = one(&sim.request(&paid_post(&sim, 11)));
    assert_error(&r, 422, "TIMEOUT");
    assert!(
        sim.elapsed() <= std::time::Duration::from_secs(30),
        "{:?}",
        sim.elapsed()
    );
    assert_eq!(calls(&sim, "/settle"), 0);
    // Not charged; the authorization was consumed by /verify, so a retry signs a new one.
    assert_already_used(&one(&sim.request(&paid_post(&sim, 11))));
}

#[test]
fn oversized_bomb_and_non_html_homepages() {
    let mut sim = world(&[]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| {
        Reply::Bytes(http_response(
            200,
            &[("Content-Type", "text/html")],
            &vec![b'a'; 2 * 1024 * 1024 + 1],
        ))
    });
    assert_error(
        &one(&sim.request(&paid_post(&sim, 12))),
        422,
        "RESPONSE_TOO_LARGE",
    );

    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&vec![b'<'; 20 * 1024 * 1024]).unwrap();
    let bomb = encoder.finish().unwrap();
    let mut sim = world(&[]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), move |_| {
        Reply::Bytes(http_response(
            200,
            &[("Content-Type", "text/html"), ("Content-Encoding", "gzip")],
            &bomb,
        ))
    });
    assert_error(
        &one(&sim.request(&paid_post(&sim, 13))),
        422,
        "RESPONSE_TOO_LARGE",
    );

    let mut sim = world(&[]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| {
        Reply::Bytes(http_response(
            200,
            &[("Content-Type", "application/pdf")],
            b"%PDF-1.4",
        ))
    });
    assert_error(
        &one(&sim.request(&paid_post(&sim, 14))),
        422,
        "UNSUPPORTED_CONTENT_TYPE",
    );
    assert_eq!(calls(&sim, "/settle"), 0);
}

#[test]
fn unreachable_site_and_http_errors_are_fetch_failed() {
    let mut sim = world(&[]);
    sim.dns.clear();
    assert_error(
        &one(&sim.request(&paid_post(&sim, 15))),
        422,
        "FETCH_FAILED",
    );
    let mut sim = world(&[]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| {
        Reply::Bytes(http_response(500, &[], b""))
    });
    assert_error(
        &one(&sim.request(&paid_post(&sim, 16))),
        422,
        "FETCH_FAILED",
    );
    assert_eq!(calls(&sim, "/settle"), 0);
}

#[test]
fn keep_alive_and_pipelined_requests_are_answered_in_order() {
    let mut sim = world(&[]);
    sim.check_facilitator();
    let pipelined = b"GET /api/health HTTP/1.1\r\n\r\nGET /nope HTTP/1.1\r\n\r\nGET /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n";
    let all = responses(&sim.request(pipelined));
    let statuses: Vec<u16> = all.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 404, 200]);
    assert_eq!(all[2].header("Connection"), Some("close"));
    assert_ne!(all[0].header("X-Request-Id"), all[1].header("X-Request-Id"));
}

#[test]
fn slow_client_is_closed_after_the_head_deadline() {
    let mut sim = world(&[]);
    let bytes = sim.request(b"POST /api/v1/extract-contact HTTP/1.1\r\nContent-Le");
    assert!(bytes.is_empty());
    assert_eq!(sim.elapsed(), std::time::Duration::from_secs(10));
    // A head with a promised body that never comes.
    let mut sim = world(&[]);
    let bytes = sim.request(b"POST /api/v1/extract-contact HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{");
    assert!(bytes.is_empty());
}

#[test]
fn client_disconnect_mid_crawl_runs_the_job_and_a_failure_is_not_settled() {
    let mut sim = world(&[]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| Reply::Stall);
    // Connect 1 is the facilitator's /verify, connect 2 the homepage.
    sim.disconnect_after_connects = Some(2);
    let request = paid_post(&sim, 19);
    let bytes = sim.request(&request);
    assert!(bytes.is_empty(), "no response to a gone client");
    // The job ran on to its end (a 422 TIMEOUT) and settled nothing.
    assert_eq!((calls(&sim, "/verify"), calls(&sim, "/settle")), (1, 0));
    let event = sim.events.last().unwrap();
    assert_eq!((event.status, event.client_gone), (422, true));
    assert_eq!(sim.server.jobs_in_flight(), 0);
    // Verified, so consumed: the same authorization is refused without a fetch.
    sim.disconnect_after_connects = None;
    world_site(&mut sim);
    let r = one(&sim.request(&request));
    assert_already_used(&r);
    assert_eq!(calls(&sim, "/verify"), 1);
}

fn world_site(sim: &mut Sim) {
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), site_page);
}

/// The site's answer to `raw`: the homepage at `/`, the contact page elsewhere.
fn site_page(raw: &[u8]) -> Reply {
    let body = if request_path(raw) == "/" {
        HOME
    } else {
        CONTACT
    };
    Reply::Bytes(http_response(
        200,
        &[("Content-Type", "text/html")],
        body.as_bytes(),
    ))
}

/// The official client's header for the Base mainnet vector (docs/payments.md "x402 v2 in practice"), paying our
/// server configured with the same terms.
const OFFICIAL_HEADER: &str = "eyJ4NDAyVmVyc2lvbiI6MiwicGF5bG9hZCI6eyJhdXRob3JpemF0aW9uIjp7ImZyb20iOiIweGYzOUZkNmU1MWFhZDg4RjZGNGNlNmFCODgyNzI3OWNmZkZiOTIyNjYiLCJ0byI6IjB4NzA5OTc5NzBDNTE4MTJkYzNBMDEwQzdkMDFiNTBlMGQxN2RjNzlDOCIsInZhbHVlIjoiMTAwMDAiLCJ2YWxpZEFmdGVyIjoiMCIsInZhbGlkQmVmb3JlIjoiMTkwMDAwMDAwMCIsIm5vbmNlIjoiMHgwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAxIn0sInNpZ25hdHVyZSI6IjB4NWFhODliY2VmODY4OGU1YjgxNjVkNDM2NDg2N2ZiMmQ4NWQzZDIwMGJlMzhhZjkxM2M3N2NiNmE0NzIzZDEyOTRiZTc1NjE5YmFlODc4NWRkM2Q5YTNmNTA5ZTYzYTY2ZTExZjkzZmY3OGQ1ZGNjZWY4OWMyZTY4YjE0NDExNjIxYiJ9LCJyZXNvdXJjZSI6eyJ1cmwiOiJodHRwczovL2FwaS5leGFtcGxlLmNvbS92MS9xdW90ZSIsImRlc2NyaXB0aW9uIjoiUGFpZCBKU09OIEFQSSIsIm1pbWVUeXBlIjoiYXBwbGljYXRpb24vanNvbiJ9LCJhY2NlcHRlZCI6eyJzY2hlbWUiOiJleGFjdCIsIm5ldHdvcmsiOiJlaXAxNTU6ODQ1MyIsImFtb3VudCI6IjEwMDAwIiwiYXNzZXQiOiIweDgzMzU4OWZDRDZlRGI2RTA4ZjRjN0MzMkQ0ZjcxYjU0YmRBMDI5MTMiLCJwYXlUbyI6IjB4NzA5OTc5NzBDNTE4MTJkYzNBMDEwQzdkMDFiNTBlMGQxN2RjNzlDOCIsIm1heFRpbWVvdXRTZWNvbmRzIjo2MCwiZXh0cmEiOnsibmFtZSI6IlVTRCBDb2luIiwidmVyc2lvbiI6IjIifX19";

#[test]
fn happy_path_with_the_official_base_mainnet_vector() {
    // The vector was signed for `maxTimeoutSeconds` 60, below today's configurable minimum
    // (64): terms are matched by value, so the test's terms say 60 too.
    let mut config = config(&[]);
    if let PaymentConfig::Ready { terms, .. } = &mut config.payment {
        terms.requirements.max_timeout_seconds = 60;
    }
    let mut sim = world_with(config, 7);
    let r = one(&sim.request(&post(
        r#"{"url":"https://www.acme-shop.com/"}"#,
        Some(OFFICIAL_HEADER),
    )));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        sim.events.last().unwrap().payer.as_deref(),
        Some("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
    );
    assert_eq!((calls(&sim, "/verify"), calls(&sim, "/settle")), (1, 1));
}

#[test]
fn refused_connection_and_tls_failure_are_fetch_failed() {
    let mut sim = world(&[]);
    sim.endpoints
        .remove(&format!("{SITE_IP}:443").parse().unwrap());
    assert_error(
        &one(&sim.request(&paid_post(&sim, 20))),
        422,
        "FETCH_FAILED",
    );
    let mut sim = world(&[]);
    sim.tls_failures
        .push(format!("{SITE_IP}:443").parse().unwrap());
    assert_error(
        &one(&sim.request(&paid_post(&sim, 21))),
        422,
        "FETCH_FAILED",
    );
    assert_eq!(calls(&sim, "/settle"), 0);
}

#[test]
fn over_the_in_flight_cap_is_a_503_with_retry_after() {
    let mut sim = world(&[("MAX_CONCURRENT_JOBS", "1"), ("RATE_LIMIT_BURST", "10")]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| Reply::Stall);
    let first = paid_post(&sim, 22);
    let second = paid_post(&sim, 23);
    let results = sim.run(&[first, second]);
    let first = one(&results[0]);
    let second = one(&results[1]);
    assert_error(&first, 422, "TIMEOUT");
    assert_error(&second, 503, "INTERNAL_ERROR");
    assert_eq!(second.header("Retry-After"), Some("1"));
    assert_eq!(sim.server.jobs_in_flight(), 0);
}

#[test]
fn readiness_is_503_while_paid_jobs_are_at_their_cap() {
    let mut sim = world(&[("MAX_CONCURRENT_JOBS", "1"), ("RATE_LIMIT_BURST", "10")]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| Reply::Stall);
    let ready = b"GET /api/ready HTTP/1.1\r\n\r\n".to_vec();
    sim.check_facilitator();
    assert_eq!(one(&sim.request(&ready)).status, 200);
    // One connection holds the only job slot (its site stalls); the other asks for readiness
    // meanwhile, then again after the job has ended.
    let results = sim.run(&[paid_post(&sim, 24), ready.clone()]);
    assert_error(&one(&results[0]), 422, "TIMEOUT");
    let shedding = one(&results[1]);
    assert_eq!(shedding.status, 503);
    assert_eq!(shedding.body["status"], "shedding");
    assert!(shedding.body["problems"][0]
        .as_str()
        .unwrap()
        .contains("MAX_CONCURRENT_JOBS=1"));
    assert_eq!(one(&sim.request(&ready)).status, 200);
}

#[test]
fn a_trusted_proxy_forwards_the_client_address_to_the_rate_limiter_and_the_log() {
    // The simulation's clients connect from 198.51.100.10.
    let mut sim = world(&[
        ("RATE_LIMIT_PER_MINUTE", "1"),
        ("RATE_LIMIT_BURST", "1"),
        ("TRUSTED_PROXIES", "198.51.100.0/24"),
    ]);
    let from = |client: &str| {
        let body = r#"{"url":"https://www.acme-shop.com/"}"#;
        format!(
            "POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             X-Forwarded-For: 192.0.2.99, {client}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    };
    assert_eq!(one(&sim.request(&from("203.0.113.1"))).status, 402);
    assert_eq!(sim.events.last().unwrap().client.to_string(), "203.0.113.1");
    assert_error(
        &one(&sim.request(&from("203.0.113.1"))),
        429,
        "RATE_LIMITED",
    );
    // Another client behind the same proxy has its own bucket.
    assert_eq!(one(&sim.request(&from("203.0.113.2"))).status, 402);
    // Without the proxy trusted, the header is ignored: every request is the peer's.
    let mut sim = world(&[("RATE_LIMIT_PER_MINUTE", "1"), ("RATE_LIMIT_BURST", "1")]);
    assert_eq!(one(&sim.request(&from("203.0.113.1"))).status, 402);
    assert_eq!(
        sim.events.last().unwrap().client.to_string(),
        "198.51.100.10"
    );
    assert_error(
        &one(&sim.request(&from("203.0.113.2"))),
        429,
        "RATE_LIMITED",
    );
}

#[test]
fn with_proxy_protocol_a_trusted_proxy_names_the_client_in_its_header() {
    let mut sim = world(&[
        ("TRUSTED_PROXIES", "198.51.100.0/24"),
        ("PROXY_PROTOCOL", "true"),
    ]);
    let health = b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n";
    let mut proxied = b"PROXY TCP4 203.0.113.5 192.0.2.1 40000 443\r\n".to_vec();
    proxied.extend_from_slice(health);
    assert_eq!(one(&sim.request(&proxied)).status, 200);
    assert_eq!(sim.events.last().unwrap().client.to_string(), "203.0.113.5");
    // From a trusted proxy the header is required.
    assert_error(&one(&sim.request(health)), 400, "INVALID_URL");
    // From anyone else it is never believed: it is just a malformed request.
    let mut sim = world(&[("PROXY_PROTOCOL", "true")]);
    assert_error(&one(&sim.request(&proxied)), 400, "INVALID_URL");
    assert_eq!(one(&sim.request(health)).status, 200);
    assert_eq!(
        sim.events.last().unwrap().client.to_string(),
        "198.51.100.10"
    );
}

/// A PROXY header that names no client (v1 `UNKNOWN`, v2 `LOCAL`: the proxy's own health
/// check) makes the peer the client: an L4 proxy passes `X-Forwarded-For` through from the
/// client unread, so believing it then would let any client pick its address.
#[test]
fn a_proxy_header_without_an_address_makes_the_peer_the_client_not_x_forwarded_for() {
    let mut sim = world(&[
        ("TRUSTED_PROXIES", "198.51.100.0/24"),
        ("PROXY_PROTOCOL", "true"),
    ]);
    let forged =
        b"GET /api/health HTTP/1.1\r\nX-Forwarded-For: 203.0.113.77\r\nConnection: close\r\n\r\n";
    let v2_local: &[u8] = b"\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00";
    for header in [&b"PROXY UNKNOWN\r\n"[..], v2_local] {
        let mut request = header.to_vec();
        request.extend_from_slice(forged);
        assert_eq!(one(&sim.request(&request)).status, 200);
        assert_eq!(
            sim.events.last().unwrap().client.to_string(),
            "198.51.100.10",
            "{:?}",
            String::from_utf8_lossy(header)
        );
    }
}

#[test]
fn connection_caps_refuse_at_admission_and_free_on_drop() {
    let sim = world(&[
        ("MAX_CONNECTIONS", "3"),
        ("MAX_CONNECTIONS_PER_IP", "2"),
        ("TRUSTED_PROXIES", "10.0.0.1"),
    ]);
    let ip = |s: &str| s.parse::<std::net::IpAddr>().unwrap();
    let a = sim.server.admit_connection(ip("203.0.113.1")).unwrap();
    let _b = sim.server.admit_connection(ip("203.0.113.1")).unwrap();
    assert!(sim.server.admit_connection(ip("203.0.113.1")).is_err());
    // A trusted proxy is held only to the total.
    let _c = sim.server.admit_connection(ip("10.0.0.1")).unwrap();
    assert_eq!(sim.server.connections_open(), 3);
    assert!(sim.server.admit_connection(ip("10.0.0.1")).is_err());
    assert!(!sim.server.shedding().is_empty(), "at the total cap");
    drop(a);
    assert_eq!(sim.server.connections_open(), 2);
    assert!(sim.server.admit_connection(ip("203.0.113.1")).is_ok());
}

#[test]
fn with_page_memory_for_one_page_the_pages_take_turns_and_the_result_is_whole() {
    // 4 MiB: one page's reservation. The homepage holds it, gives it back when extracted;
    // the extra pages then take turns.
    let mut sim = world(&[("MAX_PAGE_MEMORY", "4MiB")]);
    sim.page_work_delays.insert(
        "https://www.acme-shop.com/contact".into(),
        std::time::Duration::from_secs(2),
    );
    let r = one(&sim.request(&paid_post(&sim, 65)));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["emails"][0]["value"], "info@acme-shop.com");
    assert!(
        !r.body["phones"].as_array().unwrap().is_empty(),
        "the contact page waited for memory and was read"
    );
    assert_eq!(sim.server.page_memory_used(), 0, "every share given back");
    assert_eq!(calls(&sim, "/settle"), 1);
}

#[test]
fn without_page_memory_a_paid_request_is_shed_before_verify_and_nothing_is_consumed() {
    let mut sim = world(&[("MAX_PAGE_MEMORY", "4MiB"), ("RATE_LIMIT_BURST", "10")]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| Reply::Stall);
    let shed_payment = paid_post(&sim, 67);
    let results = sim.run(&[paid_post(&sim, 66), shed_payment.clone()]);
    assert_error(&one(&results[0]), 422, "TIMEOUT");
    let shed = one(&results[1]);
    assert_error(&shed, 503, "INTERNAL_ERROR");
    assert_eq!(shed.header("Retry-After"), Some("1"));
    assert!(shed.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("nothing was charged"));
    assert_eq!(
        calls(&sim, "/verify"),
        1,
        "only the first payment was verified"
    );
    assert_eq!(sim.server.page_memory_used(), 0);
    assert!(sim.events.iter().any(|e| e.shed));
    // The shed authorization was never consumed: sent again once memory is free, it pays.
    world_site(&mut sim);
    let again = one(&sim.request(&shed_payment));
    assert_eq!(again.status, 200, "{}", again.body);
}

#[test]
fn replies_split_at_any_byte_boundary_give_the_same_result() {
    let mut bodies = Vec::new();
    for (nonce, split) in [(30u8, 1usize), (31, 2), (32, 13), (33, 64), (34, 1 << 20)] {
        let mut sim = world(&[]);
        sim.split = split;
        let mut r = one(&sim.request(&paid_post(&sim, nonce)));
        assert_eq!(r.status, 200, "split {split}");
        // Request ids and timings differ per run; the extracted data must not.
        for volatile in ["requestId", "meta"] {
            r.body.as_object_mut().unwrap().remove(volatile);
        }
        bodies.push(r.body);
    }
    assert!(bodies.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn a_slow_client_does_not_delay_others() {
    let mut sim = world(&[]);
    let slow = b"POST /api/v1/extract-contact HTTP/1.1\r\nContent-Le".to_vec();
    let paid = paid_post(&sim, 40);
    let results = sim.run(&[slow, paid]);
    assert!(
        results[0].is_empty(),
        "the slow client gets no response, only a close"
    );
    assert_eq!(one(&results[1]).status, 200);
    // The paid request finished at virtual time 0; only the slow one waited for its deadline.
    assert_eq!(sim.events.len(), 1);
    assert_eq!(sim.events[0].duration_ms, 0);
}

#[test]
fn unpaid_crawl_extracts_the_site_without_any_facilitator_call() {
    // Payments need not be configured for the operator's tool.
    let mut sim = world(&[("PAY_TO", "")]);
    assert!(matches!(
        sim.server.config().payment,
        PaymentConfig::Incomplete(_)
    ));
    let result = sim
        .unpaid_crawl("https://www.acme-shop.com/")
        .expect("extracted");
    let emails: Vec<&str> = result.emails.iter().map(|e| e.value.as_str()).collect();
    assert_eq!(emails, ["info@acme-shop.com", "sales@acme-shop.com"]);
    assert_eq!(result.phones[0].value, "+442085516580");
    assert_eq!(
        result.meta.pages_fetched, 3,
        "homepage, /contact and /about"
    );
    assert_eq!((calls(&sim, "/verify"), calls(&sim, "/settle")), (0, 0));
    assert_eq!(sim.events.len(), 1, "one log event");
    assert_eq!(sim.events[0].status, 200);
    assert_eq!(sim.server.jobs_in_flight(), 0);
}

#[test]
fn unpaid_crawl_applies_the_same_url_and_fetch_rules() {
    let mut sim = world(&[]);
    let error = sim.unpaid_crawl("http://10.0.0.1/").unwrap_err();
    assert_eq!(error.error.code, ErrorCode::PrivateAddress);
    let error = sim.unpaid_crawl("ftp://www.acme-shop.com/").unwrap_err();
    assert_eq!(error.error.code, ErrorCode::InvalidUrl);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| Reply::Stall);
    let error = sim.unpaid_crawl("https://www.acme-shop.com/").unwrap_err();
    assert_eq!(error.error.code, ErrorCode::Timeout);
    assert!(sim.elapsed() <= std::time::Duration::from_secs(30));
    assert!(sim
        .connects
        .iter()
        .all(|a| a.ip().to_string() != "10.0.0.1"));
    assert_eq!(sim.server.jobs_in_flight(), 0);
}

/// An extractor with a bug on every page but the homepage.
fn buggy_on_extra_pages(
    url: &url::Url,
    content_type: Option<&str>,
    body: &[u8],
) -> contact_core::extract::PageExtraction {
    if url.path() != "/" {
        panic!("extractor bug (deliberate, in a test)");
    }
    contact_core::extract::extract_page(url, content_type, body)
}

#[test]
fn an_extractor_panic_is_a_500_never_charged_and_never_lost() {
    let mut sim = world(&[]);
    sim.server
        .set_extractor(contact_core::testing::sim::panicking_extractor);
    let request = paid_post(&sim, 60);
    let r = one(&sim.request(&request));
    assert_error(&r, 500, "INTERNAL_ERROR");
    // The facilitator saw the authorization (/verify): the words promise no more than
    // the service knows (docs/payments.md).
    assert!(r.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("this request changed nothing"));
    assert_eq!(calls(&sim, "/settle"), 0);
    assert_eq!(sim.server.jobs_in_flight(), 0);
    // Not charged, but verified and so consumed: the retry needs a fresh authorization.
    sim.server
        .set_extractor(contact_core::extract::extract_page);
    assert_already_used(&one(&sim.request(&request)));
    assert_eq!(one(&sim.request(&paid_post(&sim, 62))).status, 200);
    assert_eq!(calls(&sim, "/settle"), 1);
}

#[test]
fn an_extractor_panic_on_an_extra_page_skips_that_page() {
    let mut sim = world(&[]);
    sim.server.set_extractor(buggy_on_extra_pages);
    let r = one(&sim.request(&paid_post(&sim, 61)));
    assert_eq!(r.status, 200);
    assert_eq!(r.body["emails"][0]["value"], "info@acme-shop.com");
    assert!(
        r.body["phones"].as_array().unwrap().is_empty(),
        "the contact page was skipped"
    );
    assert_eq!(calls(&sim, "/settle"), 1);
}

#[test]
fn a_homepage_over_the_work_budget_is_a_422_never_charged() {
    let mut sim = world(&[]);
    let over = contact_core::budget::PAGE_WORK_BUDGET + std::time::Duration::from_millis(1);
    sim.page_work_delays
        .insert("https://www.acme-shop.com/".into(), over);
    let r = one(&sim.request(&paid_post(&sim, 63)));
    assert_error(&r, 422, "RESPONSE_TOO_LARGE");
    let message = r.body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("too costly") && message.contains("this request changed nothing"),
        "{message}"
    );
    assert_eq!((calls(&sim, "/verify"), calls(&sim, "/settle")), (1, 0));
    assert_eq!(sim.events.last().unwrap().pages_too_costly, 1);
    assert_eq!(sim.server.jobs_in_flight(), 0);
}

#[test]
fn an_extra_page_over_the_work_budget_is_left_out_and_logged() {
    let mut sim = world(&[]);
    let budget = contact_core::budget::PAGE_WORK_BUDGET;
    // Exactly the budget is still within it; over it is not.
    sim.page_work_delays
        .insert("https://www.acme-shop.com/".into(), budget);
    sim.page_work_delays.insert(
        "https://www.acme-shop.com/contact".into(),
        budget + std::time::Duration::from_millis(1),
    );
    let r = one(&sim.request(&paid_post(&sim, 64)));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["emails"][0]["value"], "info@acme-shop.com");
    assert!(
        r.body["phones"].as_array().unwrap().is_empty(),
        "the contact page was left out"
    );
    assert_eq!(calls(&sim, "/settle"), 1);
    assert_eq!(sim.events.last().unwrap().pages_too_costly, 1);
}

#[test]
fn a_dropped_exchange_frees_its_job_slot() {
    // However a job ends — even an exchange dropped mid-crawl by the runtime (a cancelled task,
    // a panic caught by the executor) — the in-flight count comes back down.
    let mut sim = world(&[("MAX_CONCURRENT_JOBS", "1")]);
    let exchange = Exchange::unpaid_crawl(&sim.server, "https://www.acme-shop.com/", sim.now)
        .expect("a valid URL");
    assert_eq!(sim.server.jobs_in_flight(), 1);
    drop(exchange);
    assert_eq!(sim.server.jobs_in_flight(), 0);
    assert_eq!(one(&sim.request(&paid_post(&sim, 63))).status, 200);
    assert_eq!(sim.server.jobs_in_flight(), 0);
}

#[test]
fn a_pipelined_paid_request_after_a_finished_job_is_not_refused_by_the_cap() {
    let mut sim = world(&[("MAX_CONCURRENT_JOBS", "1")]);
    let mut both = keep_alive(paid_post(&sim, 64));
    both.extend(paid_post(&sim, 65));
    let answers = responses(&sim.request(&both));
    let statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 200]);
}

// ---- money safety (docs/payments.md) ---------------------------------------------

const PAYER: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const SETTLED: &str = r#"{"success":true,"transaction":"0x5e77","network":"eip155:8453","payer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}"#;
/// The reference facilitator's answer when the block confirming the transfer comes late.
const PENDING: &str = r#"{"success":false,"errorReason":"settlement_pending","transaction":"0x5e77","network":"eip155:8453","payer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}"#;

fn json_reply(body: &str) -> Reply {
    Reply::Bytes(http_response(
        200,
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    ))
}

/// A facilitator that accepts every `/verify` and answers the n-th `/settle` with
/// `settles[n]` (the last one repeats).
fn scripted_settlement(sim: &mut Sim, settles: Vec<Reply>) {
    let mut n = 0;
    sim.endpoint(FACILITATOR.parse().unwrap(), move |raw| {
        if request_path(raw) == "/verify" {
            return json_reply(&format!(r#"{{"isValid":true,"payer":"{PAYER}"}}"#));
        }
        let reply = settles[n.min(settles.len() - 1)].clone();
        n += 1;
        reply
    });
}

fn outcomes(sim: &Sim) -> Vec<&'static str> {
    sim.settlements.iter().map(|s| s.outcome).collect()
}

#[test]
fn settlement_pending_is_a_503_with_the_result_kept_then_the_same_signature_gets_it() {
    let mut sim = world(&[]);
    scripted_settlement(
        &mut sim,
        vec![
            json_reply(PENDING),
            json_reply(PENDING),
            json_reply(SETTLED),
        ],
    );
    let request = paid_post(&sim, 70);
    let r = one(&sim.request(&request));
    // Never a 402 (which tells a client to pay again): 503, Retry-After, the pending answer.
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert_eq!(
        r.body["error"]["message"],
        "settlement pending: retry with the same PAYMENT-SIGNATURE"
    );
    assert_eq!(r.header("Retry-After"), Some("5"));
    let pending: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert_eq!(
        (pending.success, pending.transaction.as_str()),
        (false, "0x5e77")
    );
    // One more /settle, 2 s after the first, inside the budget.
    assert_eq!(calls(&sim, "/settle"), 2);
    assert!(sim.elapsed() >= std::time::Duration::from_secs(2));
    assert_eq!(outcomes(&sim), ["unknown", "unknown"]);
    assert_eq!(sim.settlements[1].attempt, 2);
    assert_eq!(sim.settlements[0].transaction.as_deref(), Some("0x5e77"));
    let crawled = site_requests(&sim);

    // Later, the same signature: /settle again, now confirmed → the kept 200, no crawl.
    let paid = one(&sim.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!(paid.body["emails"][0]["value"], "info@acme-shop.com");
    assert_eq!(paid.body["requestId"], r.body["requestId"]);
    assert_eq!(paid.body["requestId"].as_str(), paid.header("X-Request-Id"));
    let settled: SettleResponse = codec::decode(paid.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert!(settled.success);
    assert_eq!(settled.transaction, "0x5e77");
    assert_eq!(
        (
            calls(&sim, "/verify"),
            calls(&sim, "/settle"),
            site_requests(&sim)
        ),
        (1, 3, crawled)
    );
    // And again: the same bytes, no facilitator call at all.
    let again = one(&sim.request(&request));
    assert_eq!(
        (again.status, &again.body, again.header("PAYMENT-RESPONSE")),
        (200, &paid.body, paid.header("PAYMENT-RESPONSE"))
    );
    assert_eq!(calls(&sim, "/settle"), 3);
}

#[test]
fn a_pending_first_answer_and_a_confirmed_second_one_is_a_200() {
    let mut sim = world(&[]);
    scripted_settlement(&mut sim, vec![json_reply(PENDING), json_reply(SETTLED)]);
    let r = one(&sim.request(&paid_post(&sim, 71)));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(outcomes(&sim), ["unknown", "settled"]);
    let event = sim.events.last().unwrap();
    assert_eq!(event.transaction.as_deref(), Some("0x5e77"));
}

#[test]
fn a_slow_homepage_and_a_hanging_extra_page_leave_the_settlement_its_own_budget() {
    // The homepage takes 14.5 s (a redirect after 9 s, the page 5.5 s later); the contact
    // page redirects after 9 s and its second hop hangs until the job deadline (30 s). The
    // facilitator then needs 3 s to confirm the transfer: past the job deadline.
    let mut sim = world(&[]);
    let secs = std::time::Duration::from_secs_f64;
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), move |raw| {
        let html =
            |body: &str| http_response(200, &[("Content-Type", "text/html")], body.as_bytes());
        let redirect = |to: &str| http_response(302, &[("Location", to)], b"");
        match request_path(raw).as_str() {
            "/" => Reply::Delayed(secs(9.0), redirect("/home")),
            "/home" => Reply::Delayed(secs(5.5), html(HOME)),
            "/contact" => Reply::Delayed(secs(9.0), redirect("/contact-us")),
            "/contact-us" => Reply::Stall,
            _ => Reply::Bytes(http_response(404, &[], b"")),
        }
    });
    scripted_settlement(
        &mut sim,
        vec![Reply::Delayed(
            secs(3.0),
            http_response(200, &[], SETTLED.as_bytes()),
        )],
    );
    let r = one(&sim.request(&paid_post(&sim, 72)));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["emails"][0]["value"], "info@acme-shop.com");
    assert!(
        sim.elapsed() > std::time::Duration::from_secs(32),
        "{:?}",
        sim.elapsed()
    );
    assert_eq!(outcomes(&sim), ["settled"]);
}

#[test]
fn a_settle_timeout_is_a_503_and_the_same_signature_settles_again_for_the_kept_result() {
    let mut sim = world(&[]);
    scripted_settlement(&mut sim, vec![Reply::Stall, json_reply(SETTLED)]);
    let request = paid_post(&sim, 73);
    let r = one(&sim.request(&request));
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert_eq!(
        r.header("PAYMENT-RESPONSE"),
        None,
        "the facilitator said nothing"
    );
    assert_eq!(r.header("Retry-After"), Some("5"));
    // The timeout used the whole 15 s budget: no second attempt fits.
    assert_eq!(calls(&sim, "/settle"), 1);
    assert_eq!(sim.elapsed(), std::time::Duration::from_secs(15));
    assert_eq!(outcomes(&sim), ["unknown"]);
    let crawled = site_requests(&sim);
    let paid = one(&sim.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!(paid.body["phones"][0]["value"], "+442085516580");
    assert_eq!((calls(&sim, "/settle"), site_requests(&sim)), (2, crawled));
}

#[test]
fn after_an_unknown_outcome_already_used_means_our_transfer_went_through() {
    let mut sim = world(&[]);
    let used = r#"{"success":false,"errorReason":"invalid_exact_evm_nonce_already_used","transaction":"","network":"eip155:8453"}"#;
    scripted_settlement(
        &mut sim,
        vec![
            json_reply(PENDING),
            json_reply("<html>502</html>"),
            json_reply(used),
        ],
    );
    let request = paid_post(&sim, 74);
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    let paid = one(&sim.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
    let settled: SettleResponse = codec::decode(paid.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert!(settled.success);
    assert_eq!(
        settled.transaction, "0x5e77",
        "the transaction of the pending answer"
    );
    assert_eq!(outcomes(&sim), ["unknown", "unknown", "settled"]);
}

#[test]
fn a_refused_retry_settlement_keeps_the_result_and_answers_503_again() {
    let mut sim = world(&[]);
    let refused = r#"{"success":false,"errorReason":"invalid_exact_evm_transaction_failed","network":"eip155:8453"}"#;
    scripted_settlement(
        &mut sim,
        vec![
            Reply::Stall,
            json_reply(refused),
            json_reply(refused),
            json_reply(SETTLED),
        ],
    );
    let request = paid_post(&sim, 75);
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    // The retry's settlement is refused twice: still unknown for us (the first transfer may
    // yet land), so 503 again with the result kept.
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    assert_eq!(calls(&sim, "/settle"), 3);
    let paid = one(&sim.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
}

#[test]
fn a_client_gone_during_settlement_does_not_cancel_it_and_the_retry_gets_the_result() {
    let mut sim = world(&[]);
    scripted_settlement(
        &mut sim,
        vec![Reply::Delayed(
            std::time::Duration::from_secs(3),
            http_response(200, &[], SETTLED.as_bytes()),
        )],
    );
    // Connects: /verify, the homepage, /contact, /about, then /settle.
    sim.disconnect_after_connects = Some(5);
    let request = paid_post(&sim, 76);
    assert!(
        sim.request(&request).is_empty(),
        "nothing sent to a gone client"
    );
    assert_eq!(calls(&sim, "/settle"), 1);
    let audit = &sim.settlements[0];
    assert_eq!((audit.outcome, audit.client_gone), ("settled", true));
    assert_eq!(audit.nonce, format!("0x{}4c", "0".repeat(62)));
    let event = sim.events.last().unwrap();
    assert_eq!((event.status, event.client_gone), (200, true));
    assert_eq!(event.transaction.as_deref(), Some("0x5e77"));
    // The same signature later: the kept 200, without a crawl or a facilitator call.
    sim.disconnect_after_connects = None;
    let crawled = site_requests(&sim);
    let paid = one(&sim.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!(paid.body["emails"][1]["value"], "sales@acme-shop.com");
    assert_eq!(
        (
            calls(&sim, "/verify"),
            calls(&sim, "/settle"),
            site_requests(&sim)
        ),
        (1, 1, crawled)
    );
}

#[test]
fn a_client_gone_before_verify_answered_does_not_cancel_the_paid_job() {
    let mut sim = world(&[]);
    // Gone as soon as the /verify connection is asked for.
    sim.disconnect_after_connects = Some(1);
    let request = paid_post(&sim, 77);
    assert!(sim.request(&request).is_empty());
    assert_eq!((calls(&sim, "/verify"), calls(&sim, "/settle")), (1, 1));
    assert_eq!(outcomes(&sim), ["settled"]);
    assert!(sim.settlements[0].client_gone);
    let event = sim.events.last().unwrap();
    assert_eq!((event.status, event.client_gone), (200, true));
    assert_eq!(sim.server.jobs_in_flight(), 0);
    sim.disconnect_after_connects = None;
    let paid = one(&sim.request(&request));
    assert_eq!(paid.status, 200);
    assert_eq!(calls(&sim, "/settle"), 1);
}

#[test]
fn a_client_gone_whose_payment_verify_refuses_is_forgotten() {
    let mut sim = world(&[]);
    facilitator(
        &mut sim,
        r#"{"isValid":false,"invalidReason":"insufficient_funds"}"#,
        "{}",
    );
    sim.disconnect_after_connects = Some(1);
    let request = paid_post(&sim, 90);
    assert!(sim.request(&request).is_empty());
    assert_eq!(site_requests(&sim), 0);
    let event = sim.events.last().unwrap();
    assert_eq!((event.status, event.client_gone), (402, true));
    // Refused by /verify: the authorization stays usable.
    sim.disconnect_after_connects = None;
    world_site(&mut sim);
    facilitator(&mut sim, r#"{"isValid":true}"#, SETTLED);
    assert_eq!(one(&sim.request(&request)).status, 200);
}

fn panicking_merger(
    _: contact_core::extract::SiteInfo<'_>,
    _: &[contact_core::extract::PageExtraction],
) -> contact_core::api::ContactExtractionResult {
    panic!("merge bug (deliberate, in a test)")
}

#[test]
fn a_merge_panic_is_a_500_and_never_settled() {
    let mut sim = world(&[]);
    sim.server.set_merger(panicking_merger);
    let r = one(&sim.request(&paid_post(&sim, 78)));
    assert_error(&r, 500, "INTERNAL_ERROR");
    // The facilitator saw the authorization (/verify): the words promise no more than
    // the service knows (docs/payments.md).
    assert!(r.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("this request changed nothing"));
    assert_eq!(calls(&sim, "/settle"), 0);
    assert!(sim.settlements.is_empty());
    assert_eq!(sim.server.jobs_in_flight(), 0);
}

#[test]
fn a_failed_job_consumes_the_authorization_one_authorization_buys_one_crawl() {
    let mut sim = world(&[]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| {
        Reply::Bytes(http_response(404, &[], b""))
    });
    let request = paid_post(&sim, 79);
    assert_error(&one(&sim.request(&request)), 422, "FETCH_FAILED");
    assert_eq!(site_requests(&sim), 1);
    // The same signature again, and the same authorization pointed at another URL: refused
    // without a fetch or a facilitator call.
    assert_already_used(&one(&sim.request(&request)));
    let header = payment_header(&requirements(&sim), 79, 0, SIM_UNIX_START + 60);
    let elsewhere = post(r#"{"url":"https://www.acme-shop.com/x"}"#, Some(&header));
    assert_already_used(&one(&sim.request(&elsewhere)));
    assert_eq!((site_requests(&sim), calls(&sim, "/verify")), (1, 1));
}

#[test]
fn valid_before_must_leave_room_for_the_job_and_not_lie_too_far_ahead() {
    let mut sim = world(&[]);
    let ten_years = 10 * 365 * 24 * 3600;
    for (nonce, valid_before) in [
        (79u8, SIM_UNIX_START + 59),
        (80, SIM_UNIX_START + 20),
        (81, SIM_UNIX_START + ten_years),
        (82, SIM_UNIX_START + 64 + 61),
    ] {
        let header = payment_header(&requirements(&sim), nonce, 0, valid_before);
        let r = one(&sim.request(&post(
            r#"{"url":"https://www.acme-shop.com/"}"#,
            Some(&header),
        )));
        assert_eq!(r.status, 402);
        let required: PaymentRequired =
            codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
        assert!(
            required
                .error
                .as_deref()
                .unwrap()
                .contains("validBefore must be"),
            "{:?}",
            required.error
        );
    }
    assert_eq!(calls(&sim, "/verify"), 0);
    // The edges are accepted.
    let now = SIM_UNIX_START + sim.elapsed().as_secs();
    for (nonce, valid_before) in [(83u8, now + 60), (84, SIM_UNIX_START + 124)] {
        let header = payment_header(&requirements(&sim), nonce, 0, valid_before);
        let r = one(&sim.request(&post(
            r#"{"url":"https://www.acme-shop.com/"}"#,
            Some(&header),
        )));
        assert_eq!(r.status, 200, "{}", r.body);
    }
}

/// `header` with a `payment-identifier` id added to its `extensions` (not signed: the id is
/// outside the EIP-3009 authorization).
fn with_payment_id(header: &str, id: &str) -> String {
    let mut payment: contact_core::payment::PaymentPayload = codec::decode(header).unwrap();
    payment.extensions = Some(serde_json::json!({
        "payment-identifier": {"info": {"required": false, "id": id}}
    }));
    codec::encode(&payment)
}

#[test]
fn payment_identifier_same_payload_gets_the_kept_response_another_payload_409() {
    let mut sim = world(&[]);
    let unpaid = one(&sim.request(&post(r#"{"url":"https://www.acme-shop.com/"}"#, None)));
    let required: PaymentRequired =
        codec::decode(unpaid.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(
        required.extensions.as_ref().unwrap()["payment-identifier"]["info"]["required"],
        false
    );
    let id = "pay_7d5d747be160e280504c099d984bcfe0";
    let body = r#"{"url":"https://www.acme-shop.com/"}"#;
    let first = with_payment_id(
        &payment_header(&requirements(&sim), 85, 0, SIM_UNIX_START + 60),
        id,
    );
    let r = one(&sim.request(&post(body, Some(&first))));
    assert_eq!(r.status, 200, "{}", r.body);
    let again = one(&sim.request(&post(body, Some(&first))));
    assert_eq!((again.status, &again.body), (200, &r.body));
    assert_eq!(
        again.header("PAYMENT-RESPONSE"),
        r.header("PAYMENT-RESPONSE")
    );

    // The same id with another payment: 409, nothing verified or fetched.
    let crawled = site_requests(&sim);
    let other = with_payment_id(
        &payment_header(&requirements(&sim), 86, 0, SIM_UNIX_START + 60),
        id,
    );
    let conflict = one(&sim.request(&post(body, Some(&other))));
    assert_error(&conflict, 409, "INVALID_URL");
    assert_eq!(
        conflict.body["error"]["message"],
        "payment identifier already used with a different payment"
    );
    // The same id and payment for another URL: 409 too.
    let elsewhere = one(&sim.request(&post(
        r#"{"url":"https://www.acme-shop.com/x"}"#,
        Some(&first),
    )));
    assert_error(&elsewhere, 409, "INVALID_URL");
    assert_eq!(
        (
            calls(&sim, "/verify"),
            calls(&sim, "/settle"),
            site_requests(&sim)
        ),
        (1, 1, crawled)
    );
    // A malformed id is a 402 saying so.
    let bad = with_payment_id(
        &payment_header(&requirements(&sim), 87, 0, SIM_UNIX_START + 60),
        "short",
    );
    let r = one(&sim.request(&post(body, Some(&bad))));
    assert_eq!(r.status, 402);
    let required: PaymentRequired = codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert!(required.error.unwrap().contains("payment identifier"));
}

#[test]
fn a_full_payment_store_refuses_new_payments_with_retry_after_and_evicts_nothing() {
    let mut sim = world(&[]);
    sim.server
        .set_payment_store(Box::new(contact_core::payment::store::MemoryStore::new(
            1,
            1 << 20,
        )));
    let request = paid_post(&sim, 88);
    assert_eq!(one(&sim.request(&request)).status, 200);
    let r = one(&sim.request(&paid_post(&sim, 89)));
    assert_error(&r, 503, "INTERNAL_ERROR");
    let retry_after: u64 = r.header("Retry-After").unwrap().parse().unwrap();
    assert!((1..=100 + 600).contains(&retry_after), "{retry_after}");
    // The kept result is still there.
    assert_eq!(one(&sim.request(&request)).status, 200);
    assert_eq!(calls(&sim, "/verify"), 1);
}

// ---- bad timing (answers after cancellation, slow DNS and connects) --------------------------

fn keep_alive(raw: Vec<u8>) -> Vec<u8> {
    String::from_utf8(raw)
        .unwrap()
        .replace("Connection: close\r\n", "")
        .into_bytes()
}

/// On one keep-alive connection: a paid request (`nonce`) at once, then a health check after
/// `seconds`; returns every answer.
fn paid_then_health(sim: &mut Sim, nonce: u8, seconds: u64) -> Vec<Parsed> {
    let script = [
        (std::time::Duration::ZERO, keep_alive(paid_post(sim, nonce))),
        (
            std::time::Duration::from_secs(seconds),
            b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
    ];
    responses(&sim.request_over_time(&script))
}

#[test]
fn a_dns_answer_after_the_dns_deadline_does_not_lose_the_next_request() {
    // The homepage's DNS answer comes after the 3 s DNS deadline, when the request was already
    // answered (422) and the keep-alive connection waits for its next request.
    let mut sim = world(&[]);
    sim.dns_delay = std::time::Duration::from_secs(5);
    let answers = paid_then_health(&mut sim, 100, 6);
    let statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [422, 200], "the late answer is ignored");
    assert_error(&answers[0], 422, "TIMEOUT");
    assert_eq!(sim.elapsed(), std::time::Duration::from_secs(6));
}

#[test]
fn a_connect_answer_after_the_connect_deadline_is_ignored() {
    let mut sim = world(&[]);
    sim.connect_delay = std::time::Duration::from_secs(11);
    let answers = paid_then_health(&mut sim, 101, 12);
    let statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    // The facilitator's /verify connect times out (10 s): 503, then the health check.
    assert_eq!(statuses, [503, 200]);
    assert_eq!(
        calls(&sim, "/verify"),
        0,
        "nothing sent on a connection given up on"
    );
}

#[test]
fn a_slow_worker_past_the_deadline_is_a_timeout_and_its_late_answer_is_ignored() {
    // The worker pool answers after 31 s. The payment's local check is the first work: the
    // job deadline (30 s) answers 503 (nothing reserved, nothing charged), the work is
    // cancelled, and its answer, which still comes, changes nothing: the keep-alive
    // connection answers its next request.
    let mut sim = world(&[]);
    sim.work_delay = std::time::Duration::from_secs(31);
    let answers = paid_then_health(&mut sim, 102, 32);
    let statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [503, 200]);
    assert_error(&answers[0], 503, "INTERNAL_ERROR");
    assert_eq!((sim.work_done, sim.cancelled_work), (1, 1));
    assert_eq!((calls(&sim, "/verify"), calls(&sim, "/settle")), (0, 0));
    assert_eq!(sim.server.jobs_in_flight(), 0);
    assert_eq!(sim.server.payment_store_usage().0, 0, "nothing reserved");
}

#[test]
fn page_work_runs_on_workers_and_a_slow_pool_only_delays_the_answer() {
    let mut sim = world(&[]);
    sim.work_delay = std::time::Duration::from_secs(2);
    let r = one(&sim.request(&paid_post(&sim, 103)));
    assert_eq!(r.status, 200, "{}", r.body);
    // The payment check, the homepage, then /contact and /about concurrently (the 404 needs
    // no work), then the build.
    assert_eq!(sim.work_done, 4);
    assert_eq!(sim.elapsed(), std::time::Duration::from_secs(8));
}

#[test]
fn every_pipelined_request_is_answered_however_many_arrive_at_once() {
    let mut sim = world(&[]);
    let mut many = b"GET /api/health HTTP/1.1\r\n\r\n".repeat(150);
    many.extend_from_slice(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
    let statuses: Vec<u16> = responses(&sim.request(&many))
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(statuses, vec![200; 151]);
}

#[test]
fn a_static_dns_answer_on_the_block_list_ends_the_fetch_at_once() {
    // RESOLVE answers without DNS; a blocked answer ends the homepage fetch before any
    // connect, inside the same call that started it.
    let mut sim = world(&[("RESOLVE", "www.acme-shop.com=10.0.0.5")]);
    let r = one(&sim.request(&paid_post(&sim, 104)));
    assert_error(&r, 400, "PRIVATE_ADDRESS");
    assert!(sim
        .connects
        .iter()
        .all(|a| a.ip().to_string() != "10.0.0.5"));
    assert_eq!(calls(&sim, "/settle"), 0);
    assert_eq!(sim.server.jobs_in_flight(), 0);
    // In an unpaid crawl too.
    let error = sim.unpaid_crawl("https://www.acme-shop.com/").unwrap_err();
    assert_eq!(error.error.code, ErrorCode::PrivateAddress);
}

#[test]
fn slow_writes_to_fetch_connections_time_out_or_only_delay_and_never_charge() {
    // Every request written to a fetch connection takes 16 s to arrive: /verify (to the
    // facilitator, 15 s page deadline) times out first → 503, nothing crawled or settled.
    let mut sim = world(&[]);
    sim.write_delay = std::time::Duration::from_secs(16);
    let r = one(&sim.request(&paid_post(&sim, 105)));
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert_eq!((site_requests(&sim), calls(&sim, "/settle")), (0, 0));
    // 4 s each: verify, homepage, extras and the settle all still fit.
    let mut sim = world(&[]);
    sim.write_delay = std::time::Duration::from_secs(4);
    let r = one(&sim.request(&paid_post(&sim, 106)));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(sim.elapsed(), std::time::Duration::from_secs(16));
}

/// One fault of the fault matrix: how to break the world, and what the paid request must get.
struct Fault {
    name: &'static str,
    /// (status, error code; empty for a 200).
    expect: (u16, &'static [&'static str]),
    /// Whether `/settle` is called (only after a result was built).
    settles: bool,
    break_world: fn(&mut Sim),
}

fn site_replies(sim: &mut Sim, reply: fn() -> Reply) {
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), move |_| reply());
}

fn facilitator_replies(sim: &mut Sim, at: &'static str, reply: fn() -> Reply) {
    sim.endpoint(FACILITATOR.parse().unwrap(), move |raw| {
        if request_path(raw) == at {
            return reply();
        }
        let body = if request_path(raw) == "/verify" {
            r#"{"isValid":true,"payer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}"#
        } else {
            SETTLED
        };
        Reply::Bytes(http_response(
            200,
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        ))
    });
}

fn html_head(extra: &str) -> Vec<u8> {
    format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{extra}\r\n").into_bytes()
}

const FAULTS: &[Fault] = &[
    Fault {
        name: "site stalls mid-body",
        expect: (422, &["FETCH_FAILED", "TIMEOUT"]),
        settles: false,
        break_world: |sim| {
            site_replies(sim, || {
                let mut bytes = html_head("Content-Length: 5000\r\n");
                bytes.extend_from_slice(b"<html><body>half");
                Reply::Partial(bytes)
            })
        },
    },
    Fault {
        name: "site resets",
        expect: (422, &["FETCH_FAILED"]),
        settles: false,
        break_world: |sim| site_replies(sim, || Reply::Bytes(Vec::new())),
    },
    Fault {
        name: "endless response headers",
        expect: (422, &["FETCH_FAILED", "RESPONSE_TOO_LARGE", "TIMEOUT"]),
        settles: false,
        break_world: |sim| {
            site_replies(sim, || {
                let mut bytes = b"HTTP/1.1 200 OK\r\n".to_vec();
                bytes.extend_from_slice(&b"X-Filler: yes\r\n".repeat(20_000));
                Reply::Partial(bytes)
            })
        },
    },
    Fault {
        name: "invalid chunking",
        expect: (422, &["FETCH_FAILED"]),
        settles: false,
        break_world: |sim| {
            site_replies(sim, || {
                let mut bytes = html_head("Transfer-Encoding: chunked\r\n");
                bytes.extend_from_slice(b"zz\r\nhello\r\n0\r\n\r\n");
                Reply::Bytes(bytes)
            })
        },
    },
    Fault {
        name: "DNS stall",
        expect: (422, &["FETCH_FAILED", "TIMEOUT"]),
        settles: false,
        break_world: |sim| sim.dns_delay = std::time::Duration::from_secs(4),
    },
    Fault {
        name: "TCP connect stall",
        expect: (422, &["FETCH_FAILED", "TIMEOUT"]),
        settles: false,
        break_world: |sim| {
            let site = format!("{SITE_IP}:443").parse().unwrap();
            sim.stalled_connects.push(site);
        },
    },
    Fault {
        name: "TLS handshake stall",
        expect: (422, &["FETCH_FAILED", "TIMEOUT"]),
        settles: false,
        break_world: |sim| {
            let site = format!("{SITE_IP}:443").parse().unwrap();
            sim.stalled_handshakes.push(site);
        },
    },
    Fault {
        name: "facilitator hangs at verify",
        expect: (503, &["INTERNAL_ERROR"]),
        settles: false,
        break_world: |sim| facilitator_replies(sim, "/verify", || Reply::Stall),
    },
    Fault {
        name: "facilitator garbage at verify",
        expect: (503, &["INTERNAL_ERROR"]),
        settles: false,
        break_world: |sim| {
            facilitator_replies(sim, "/verify", || {
                Reply::Bytes(http_response(200, &[], b"<html>oops</html>"))
            })
        },
    },
    Fault {
        name: "facilitator 500 at verify",
        expect: (503, &["INTERNAL_ERROR"]),
        settles: false,
        break_world: |sim| {
            facilitator_replies(sim, "/verify", || {
                Reply::Bytes(http_response(500, &[], b""))
            })
        },
    },
    Fault {
        name: "facilitator hangs at settle",
        expect: (503, &["INTERNAL_ERROR"]),
        settles: true,
        break_world: |sim| facilitator_replies(sim, "/settle", || Reply::Stall),
    },
    Fault {
        name: "facilitator garbage at settle",
        expect: (503, &["INTERNAL_ERROR"]),
        settles: true,
        break_world: |sim| {
            facilitator_replies(sim, "/settle", || {
                Reply::Bytes(http_response(200, &[], b"{\"nope\""))
            })
        },
    },
    Fault {
        name: "facilitator 500 at settle",
        expect: (503, &["INTERNAL_ERROR"]),
        settles: true,
        break_world: |sim| {
            facilitator_replies(sim, "/settle", || {
                Reply::Bytes(http_response(500, &[], b""))
            })
        },
    },
];

/// A fault at every stage, each with its answer — and after each,
/// nothing left behind: no job in flight, no page memory held, nothing settled for a failure,
/// no kept result for a failure. Each fault runs 1 000 times (50 under a debug build of the
/// heavier ones is not needed: virtual time makes every run cost microseconds of real time).
#[test]
fn faults_at_every_stage_are_answered_and_leave_nothing_behind() {
    const REPETITIONS: u64 = 1_000;
    for fault in FAULTS {
        let mut sim = world(&[
            ("RATE_LIMIT_BURST", "1000000"),
            ("RATE_LIMIT_PER_MINUTE", "1000000"),
        ]);
        (fault.break_world)(&mut sim);
        let requirements = requirements(&sim);
        for n in 0..REPETITIONS {
            // Each repetition is a fresh payment, past the longest retention of the one
            // before (an unknown outcome's, a week), so the store's size is bounded too.
            sim.advance(std::time::Duration::from_secs(
                contact_core::payment::store::UNKNOWN_RETENTION_SECONDS + 3600,
            ));
            let now = SIM_UNIX_START + sim.elapsed().as_secs();
            let header =
                contact_core::testing::sim::payment_header_wide(&requirements, n, 0, now + 60);
            let answer = one(&sim.request(&post(
                r#"{"url":"https://www.acme-shop.com/"}"#,
                Some(&header),
            )));
            let (status, codes) = fault.expect;
            assert_eq!(answer.status, status, "{}: {}", fault.name, answer.body);
            let code = answer.body["error"]["code"].as_str().unwrap_or("");
            assert!(codes.contains(&code), "{}: {code}", fault.name);
            assert_eq!(sim.server.jobs_in_flight(), 0, "{}", fault.name);
            assert_eq!(sim.server.page_memory_used(), 0, "{}", fault.name);
        }
        let settles = calls(&sim, "/settle");
        if fault.settles {
            assert!(settles as u64 >= REPETITIONS, "{}", fault.name);
        } else {
            assert_eq!(settles, 0, "{}: settled for a failure", fault.name);
            assert_eq!(
                sim.server.payment_store_usage().1,
                0,
                "{}: kept bytes",
                fault.name
            );
        }
        // Records expire: only the last repetition's are held, whatever the repetitions.
        assert!(
            sim.server.payment_store_usage().0 <= 1,
            "{}: {:?}",
            fault.name,
            sim.server.payment_store_usage()
        );
    }
}

/// The client leaving at each stage of a paid request: the job runs to its end (settled once,
/// result kept for the retry), nothing stays in flight.
#[test]
fn a_client_leaving_at_each_stage_leaves_nothing_behind() {
    for connects in 1..=3 {
        let mut sim = world(&[]);
        sim.disconnect_after_connects = Some(connects);
        let request = paid_post(&sim, 90 + connects as u8);
        let answer = sim.request(&request);
        assert!(
            answer.is_empty(),
            "nothing is written to a client that left"
        );
        assert_eq!(calls(&sim, "/settle"), 1, "after {connects} connects");
        assert_eq!(sim.server.jobs_in_flight(), 0);
        assert_eq!(sim.server.page_memory_used(), 0);
        assert!(sim.events.last().unwrap().client_gone);
        sim.disconnect_after_connects = None;
        assert_eq!(
            one(&sim.request(&request)).status,
            200,
            "the retry gets the kept result"
        );
    }
}

/// docs/contract.md "Fetching": connect 5 s and TLS 5 s, each on its own clock.
#[test]
fn the_tcp_connect_and_the_tls_handshake_each_get_five_seconds() {
    // 4 s + 4 s: each within its own limit (8 s in all) → the site is read.
    let mut sim = world(&[]);
    sim.connect_delay = std::time::Duration::from_secs(4);
    sim.tls_delay = std::time::Duration::from_secs(4);
    assert_eq!(one(&sim.request(&paid_post(&sim, 70))).status, 200);
    // A 6 s handshake after an instant connect: over the TLS limit, although the two
    // together take less than the 10 s the old combined deadline allowed.
    let mut sim = world(&[]);
    sim.tls_delay = std::time::Duration::from_secs(6);
    let answer = one(&sim.request(&paid_post(&sim, 71)));
    assert_eq!(answer.status, 422, "{}", answer.body);
    assert_eq!(calls(&sim, "/settle"), 0);
    assert!(
        sim.elapsed() < std::time::Duration::from_secs(6),
        "{:?}",
        sim.elapsed()
    );
}

/// Write deadlines are the core's: a client that stops reading has its write given
/// up after `WRITE_TIMEOUT`, through `poll_timeout` like every other deadline. Here it asked
/// for its health and, pipelined behind it, a paid extraction of a site whose every page takes
/// 9 s (about 18 s in all): at
/// 10 s the unread health answer gives the client up; the paid job goes on, settles once and
/// keeps its result (the client is gone: nothing more is written).
#[test]
fn a_client_that_stops_reading_is_given_up_at_the_cores_write_deadline() {
    let pipelined = |sim: &Sim| {
        let mut bytes = b"GET /api/health HTTP/1.1\r\n\r\n".to_vec();
        bytes.extend_from_slice(&paid_post(sim, 72));
        bytes
    };
    let slow_site = |sim: &mut Sim| {
        sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |raw| {
            let body = if request_path(raw) == "/" {
                HOME
            } else {
                CONTACT
            };
            let response = http_response(200, &[("Content-Type", "text/html")], body.as_bytes());
            Reply::Delayed(std::time::Duration::from_secs(9), response)
        });
    };
    // A reading client gets both answers.
    let mut sim = world(&[]);
    slow_site(&mut sim);
    let statuses: Vec<u16> = responses(&sim.request(&pipelined(&sim)))
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(statuses, [200, 200]);
    // One that stops reading is given up at 10 s; the job still settles and keeps its result.
    let mut sim = world(&[]);
    slow_site(&mut sim);
    sim.client_stops_reading = true;
    let received = sim.request(&pipelined(&sim));
    assert_eq!(
        responses(&received).len(),
        1,
        "only the health answer was handed out"
    );
    assert_eq!(calls(&sim, "/settle"), 1);
    let paid = sim.events.last().unwrap();
    assert_eq!(paid.status, 200);
    assert!(paid.client_gone, "the paid answer was kept, not written");
    sim.client_stops_reading = false;
    assert_eq!(
        one(&sim.request(&paid_post(&sim, 72))).status,
        200,
        "the retry gets it"
    );
}

// ---- money safety, second round (docs/payments.md) ------------------------------------------

const CHAIN_RPC: &str = "127.0.0.1:8545";

/// Real JSON-RPC answers of the test token on anvil (how they were made: the file's
/// `produced_by`). Genesis at [`SIM_UNIX_START`] (S): block 2 (S+2) mints to the payer, block 3
/// (S+95) is empty, block 4 (S+96) holds the transfer of `paid_post(&sim, 103)`, block 5 (S+97)
/// the payer's cancellation of `paid_post(&sim, 104)`'s nonce, block 6 (S+130) is the head.
const CHAIN_VECTORS: &str = include_str!("chain_vectors.json");
/// The last block before the transfer (S+95).
const BLOCK_BEFORE_TRANSFER: u64 = 3;
/// The block of the transfer of `paid_post(&sim, 103)` (S+96), before the cancellation.
const BLOCK_OF_TRANSFER: u64 = 4;
/// The transaction of that transfer, as anvil hashed it.
const TRANSFER_TX: &str = "0x9faf86af3349e17a869e673f77df53ddaf94e81261bd89afea46849682949c91";

/// What the scripted chain node reports: the chain of [`CHAIN_VECTORS`] up to a head.
#[derive(Debug, Default)]
struct ChainState {
    /// The head block: `None` the vectors' last (6, at S+130); a lower number is a node that
    /// has not seen the later blocks (a lagging node behind a load balancer).
    head: Option<u64>,
    /// The head block's timestamp instead of the vectors' (a node that stopped following).
    head_timestamp: Option<u64>,
    /// JSON-RPC methods called, in order.
    calls: Vec<String>,
    /// Empty blocks past the vectors' last (6, at S+130), 2 s apart: a chain that went on.
    later_blocks: u64,
    /// The widest `eth_getLogs` range the node answers (a provider's limit), if any.
    max_log_range: Option<u64>,
    /// The `eth_call` requests' block parameters, in order.
    call_blocks: Vec<serde_json::Value>,
    /// After this many `eth_getBlockByNumber "latest"` calls the node has caught up (its head
    /// is the vectors' last block): a node that follows the chain while a reading waits.
    catches_up_after: Option<usize>,
}

/// A JSON-RPC node at [`CHAIN_RPC`] answering from [`CHAIN_VECTORS`] up to `state`'s head.
fn chain_node(sim: &mut Sim, state: std::rc::Rc<std::cell::RefCell<ChainState>>) {
    let vectors: serde_json::Value = serde_json::from_str(CHAIN_VECTORS).unwrap();
    sim.endpoint(CHAIN_RPC.parse().unwrap(), move |raw| {
        let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        let request: serde_json::Value = serde_json::from_slice(&raw[at..]).unwrap();
        let mut state = state.borrow_mut();
        state
            .calls
            .push(request["method"].as_str().unwrap().to_string());
        if request["method"] == "eth_call" {
            let at = request["params"][1].clone();
            state.call_blocks.push(at);
        }
        let heads = state
            .calls
            .iter()
            .filter(|m| *m == "eth_getBlockByNumber")
            .count();
        if state.catches_up_after.is_some_and(|after| heads > after) {
            state.head = None;
        }
        let answer = chain_answer(&vectors, &state, &request);
        json_reply(&answer.to_string())
    });
}

/// A node's answer to `request` (Ethereum JSON-RPC) on the chain of `vectors` up to `state`'s
/// head: blocks, `authorizationState` from the token's authorization events up to the block
/// asked, `eth_getLogs` filtered by address, topics and block range as a node does, receipts.
fn chain_answer(
    vectors: &serde_json::Value,
    state: &ChainState,
    request: &serde_json::Value,
) -> serde_json::Value {
    use contact_core::payment::chain::{topic, AUTHORIZATION_CANCELED, AUTHORIZATION_USED};
    use serde_json::{json, Value};
    let quantity = |v: &Value| u64::from_str_radix(&v.as_str().unwrap()[2..], 16).unwrap();
    let same = |a: &Value, b: &str| a.as_str().is_some_and(|a| a.eq_ignore_ascii_case(b));
    let blocks = vectors["blocks"].as_array().unwrap();
    let last = blocks.len() as u64 - 1;
    let head = state.head.unwrap_or(last + state.later_blocks);
    let later_block = |n: u64| {
        let last_time = quantity(&blocks[last as usize]["timestamp"]);
        json!({
            "number": format!("0x{n:x}"),
            "timestamp": format!("0x{:x}", last_time + 2 * (n - last)),
            "hash": format!("0x{:064x}", 0xb10c_0000_u64 + n),
        })
    };
    let block = |n: u64| {
        let mut block = if n <= last {
            blocks[n as usize].clone()
        } else {
            later_block(n)
        };
        if let (true, Some(timestamp)) = (n == head, state.head_timestamp) {
            block["timestamp"] = json!(format!("0x{timestamp:x}"));
        }
        block
    };
    let block_of = |tag: &Value| match tag.as_str() {
        Some("latest") => Some(head),
        None if tag.is_null() => Some(head),
        // EIP-1898: a block named by its hash.
        None => (0..=head).find(|n| same(&block(*n)["hash"], tag["blockHash"].as_str().unwrap())),
        Some(_) => Some(quantity(tag)).filter(|n| *n <= head),
    };
    let logs = vectors["logs"].as_array().unwrap();
    let error = |message: &str| {
        let error = json!({"code": -32000, "message": message});
        json!({"jsonrpc": "2.0", "id": 1, "error": error})
    };
    let params = &request["params"];
    let result = match request["method"].as_str().unwrap() {
        "eth_getBlockByNumber" => block_of(&params[0]).map_or(Value::Null, block),
        "eth_call" => {
            let Some(at) = block_of(&params[1]) else {
                return error("header not found");
            };
            let data = params[0]["data"].as_str().unwrap();
            if !same(&params[0]["to"], vectors["token"].as_str().unwrap())
                || data.len() != 2 + 8 + 128
                || !data.starts_with("0xe94a0102")
            {
                json!("0x")
            } else {
                let (from, nonce) = (format!("0x{}", &data[10..74]), format!("0x{}", &data[74..]));
                let set = logs.iter().any(|log| {
                    (same(&log["topics"][0], &topic(AUTHORIZATION_USED))
                        || same(&log["topics"][0], &topic(AUTHORIZATION_CANCELED)))
                        && same(&log["topics"][1], &from)
                        && same(&log["topics"][2], &nonce)
                        && quantity(&log["blockNumber"]) <= at
                });
                json!(format!("0x{:0>64}", u8::from(set)))
            }
        }
        "eth_getLogs" => {
            let filter = &params[0];
            let (Some(from), Some(to)) =
                (block_of(&filter["fromBlock"]), block_of(&filter["toBlock"]))
            else {
                return error("block range extends beyond current head block");
            };
            if state.max_log_range.is_some_and(|max| to - from + 1 > max) {
                return error("block range is too wide");
            }
            // A position of the filter's topics: null (any), one topic, or a list of choices.
            let matches = |wanted: &Value, got: &Value| match wanted {
                Value::Null => true,
                Value::Array(choices) => choices.iter().any(|c| same(got, c.as_str().unwrap())),
                one => same(got, one.as_str().unwrap()),
            };
            let wanted = filter["topics"].as_array().cloned().unwrap_or_default();
            json!(logs
                .iter()
                .filter(|log| {
                    let n = quantity(&log["blockNumber"]);
                    (from..=to).contains(&n)
                        && matches(&filter["address"], &log["address"])
                        && wanted
                            .iter()
                            .enumerate()
                            .all(|(i, w)| matches(w, &log["topics"][i]))
                })
                .collect::<Vec<_>>())
        }
        "eth_getTransactionReceipt" => vectors["receipts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| same(&r["transactionHash"], params[0].as_str().unwrap()))
            .filter(|r| quantity(&r["blockNumber"]) <= head)
            .cloned()
            .unwrap_or(Value::Null),
        other => panic!("unexpected JSON-RPC method {other}"),
    };
    json!({"jsonrpc": "2.0", "id": 1, "result": result})
}

#[test]
fn the_scripted_chain_node_answers_as_anvil_did() {
    let vectors: serde_json::Value = serde_json::from_str(CHAIN_VECTORS).unwrap();
    let state = ChainState::default();
    for method in ["eth_getLogs", "eth_call"] {
        for captured in vectors[method].as_array().unwrap() {
            let request = serde_json::json!({"method": method, "params": captured["params"]});
            let answer = chain_answer(&vectors, &state, &request);
            assert_eq!(answer["result"], captured["result"], "{request}");
        }
    }
    // And the head it reports is the chain's last block.
    let request =
        serde_json::json!({"method": "eth_getBlockByNumber", "params": ["latest", false]});
    assert_eq!(
        chain_answer(&vectors, &state, &request)["result"],
        vectors["blocks"][6]
    );
}

fn reply_with_status(status: u16, body: &str) -> Reply {
    Reply::Bytes(http_response(
        status,
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    ))
}

#[test]
fn a_facilitator_500_after_the_transfer_is_unknown_never_a_402() {
    // The facilitator broadcast the transfer, then failed waiting for the receipt: HTTP 500
    // with a body that looks like a refusal. The money may have moved.
    let crashed = r#"{"success":false,"errorReason":"unexpected_settle_error","transaction":""}"#;
    let mut sim = world(&[]);
    scripted_settlement(
        &mut sim,
        vec![
            reply_with_status(500, crashed),
            reply_with_status(500, crashed),
            json_reply(SETTLED),
        ],
    );
    let request = paid_post(&sim, 100);
    let r = one(&sim.request(&request));
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert_eq!(r.body["error"]["message"], SETTLEMENT_PENDING);
    assert_eq!(outcomes(&sim), ["unknown", "unknown"]);
    let crawled = site_requests(&sim);
    // The same signature: settled now, the kept result, no second crawl.
    let paid = one(&sim.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!(paid.body["requestId"], r.body["requestId"]);
    assert_eq!((calls(&sim, "/settle"), site_requests(&sim)), (3, crawled));
}

const SETTLEMENT_PENDING: &str = "settlement pending: retry with the same PAYMENT-SIGNATURE";

#[test]
fn a_refusal_after_a_pending_answer_in_the_same_job_is_not_a_402() {
    // The second /settle re-verifies and refuses (validBefore, or the first transaction holds
    // the nonce): the first transaction can still land, so the result is kept (503).
    let refused = r#"{"success":false,"errorReason":"invalid_exact_evm_payload_authorization_valid_before","transaction":""}"#;
    let mut sim = world(&[]);
    scripted_settlement(
        &mut sim,
        vec![
            json_reply(PENDING),
            json_reply(refused),
            json_reply(SETTLED),
        ],
    );
    let request = paid_post(&sim, 101);
    let r = one(&sim.request(&request));
    assert_error(&r, 503, "INTERNAL_ERROR");
    // The pending answer's transaction is what the caller sees.
    let pending: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert_eq!(pending.transaction, "0x5e77");
    assert_eq!(outcomes(&sim), ["unknown", "refused"]);
    // The first job's result too, once the facilitator confirms.
    assert_eq!(one(&sim.request(&paid_post(&sim, 101))).status, 200);
}

#[test]
fn with_the_chain_a_pending_settlement_that_landed_is_a_200_confirmed_on_chain() {
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    scripted_settlement(&mut sim, vec![json_reply(PENDING)]);
    // The node's head is past the block with the transfer.
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState::default()));
    chain_node(&mut sim, chain.clone());
    let r = one(&sim.request(&paid_post(&sim, 103)));
    assert_eq!(r.status, 200, "{}", r.body);
    let settled: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert!(settled.success);
    assert_eq!(
        settled.transaction, TRANSFER_TX,
        "the transaction the chain names"
    );
    assert_eq!(outcomes(&sim), ["unknown", "unknown", "confirmed_on_chain"]);
    assert_eq!(
        chain.borrow().calls,
        [
            "eth_getBlockByNumber",
            "eth_call",
            "eth_getLogs",
            "eth_getTransactionReceipt"
        ]
    );
    assert_eq!(
        sim.events.last().unwrap().transaction.as_deref(),
        Some(TRANSFER_TX)
    );
}

#[test]
fn with_the_chain_a_cancelled_authorization_is_never_a_200() {
    // Pending; the payer cancels its authorization with a higher fee; the pending transfer
    // reverts; the retry hears "nonce already used". The chain says cancelled: 402.
    let used = r#"{"success":false,"errorReason":"invalid_exact_evm_nonce_already_used","transaction":""}"#;
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    scripted_settlement(
        &mut sim,
        vec![json_reply(PENDING), json_reply(PENDING), json_reply(used)],
    );
    // The node's head is the block before the cancellation.
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState {
        head: Some(BLOCK_OF_TRANSFER),
        ..ChainState::default()
    }));
    chain_node(&mut sim, chain.clone());
    let request = paid_post(&sim, 104);
    // Not used yet on chain: still unknown.
    let r = one(&sim.request(&request));
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert_eq!(outcomes(&sim), ["unknown", "unknown", "unknown"]);
    chain.borrow_mut().head = None;
    let r = one(&sim.request(&request));
    assert_eq!(r.status, 402, "{}", r.body);
    let required: PaymentRequired = codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(required.error.as_deref(), Some("authorization cancelled"));
    assert_eq!(outcomes(&sim)[3..], ["refused", "cancelled"]);
    // And for good: the record is spent.
    assert_already_used(&one(&sim.request(&request)));
    assert_eq!(calls(&sim, "/settle"), 3);
}

#[test]
fn without_the_chain_already_used_after_unknown_still_counts_as_settled() {
    let used = r#"{"success":false,"errorReason":"invalid_exact_evm_nonce_already_used","transaction":""}"#;
    let mut sim = world(&[]);
    scripted_settlement(
        &mut sim,
        vec![json_reply(PENDING), json_reply(PENDING), json_reply(used)],
    );
    let request = paid_post(&sim, 105);
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    assert_eq!(one(&sim.request(&request)).status, 200);
}

#[test]
fn with_the_chain_an_unused_authorization_past_valid_before_is_a_402_never_charged() {
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    scripted_settlement(&mut sim, vec![Reply::Stall]);
    // The head is block 2 (S+2): before validBefore, the nonce is unused.
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState {
        head: Some(2),
        ..ChainState::default()
    }));
    chain_node(&mut sim, chain.clone());
    let request = paid_post(&sim, 106); // validBefore = SIM_UNIX_START + 100
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    assert_eq!(calls(&sim, "/settle"), 1);
    // At S+131 the head is block 6 (S+130, past validBefore) and the nonce is unused there: no
    // transfer can land any more.
    chain.borrow_mut().head = None;
    let unix_now = SIM_UNIX_START + sim.elapsed().as_secs();
    sim.advance(std::time::Duration::from_secs(
        SIM_UNIX_START + 131 - unix_now,
    ));
    let r = one(&sim.request(&request));
    assert_eq!(r.status, 402, "{}", r.body);
    let required: PaymentRequired = codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(required.error.as_deref(), Some("settlement failed"));
    assert_eq!(
        calls(&sim, "/settle"),
        1,
        "no /settle after validBefore - 6 s"
    );
    assert_eq!(*outcomes(&sim).last().unwrap(), "expired_unused");
}

#[test]
fn with_the_chain_a_lagging_node_past_valid_before_is_a_503_never_a_402() {
    // The transfer of nonce 103 landed in block 4 (S+96), before validBefore (S+100). The RPC
    // endpoint answers from a node still at block 3 (S+95): there the nonce is unused. The
    // retry comes at S+131, the local clock long past validBefore: still unknown, never a
    // refusal; the block's timestamp, not the clock, says whether the transfer can still land.
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    scripted_settlement(&mut sim, vec![json_reply(PENDING)]);
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState {
        head: Some(BLOCK_BEFORE_TRANSFER),
        ..ChainState::default()
    }));
    chain_node(&mut sim, chain.clone());
    let request = paid_post(&sim, 103);
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    let unix_now = SIM_UNIX_START + sim.elapsed().as_secs();
    sim.advance(std::time::Duration::from_secs(
        SIM_UNIX_START + 131 - unix_now,
    ));
    chain.borrow_mut().calls.clear();
    let r = one(&sim.request(&request));
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert_eq!(r.body["error"]["message"], SETTLEMENT_PENDING);
    assert_eq!(chain.borrow().calls, ["eth_getBlockByNumber", "eth_call"]);
    let last = sim.settlements.last().unwrap();
    assert_eq!(last.outcome, "unknown");
    assert!(
        last.reason
            .as_deref()
            .unwrap()
            .contains("not used at block 3"),
        "{last:?}"
    );
    // A node whose head is 61 s old is not read at all.
    chain.borrow_mut().head_timestamp = Some(SIM_UNIX_START + 70);
    chain.borrow_mut().calls.clear();
    let r = one(&sim.request(&request));
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert_eq!(chain.borrow().calls, ["eth_getBlockByNumber"]);
    let last = sim.settlements.last().unwrap();
    assert!(
        last.reason
            .as_deref()
            .unwrap()
            .starts_with("chain rpc: head block is stale"),
        "{last:?}"
    );
    // Once the node has caught up, the chain confirms the payment.
    *chain.borrow_mut() = ChainState::default();
    let r = one(&sim.request(&request));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(*outcomes(&sim).last().unwrap(), "confirmed_on_chain");
    assert_eq!(
        calls(&sim, "/settle"),
        2,
        "no /settle after validBefore - 6 s"
    );
}

#[test]
fn an_unreachable_chain_rpc_leaves_the_outcome_unknown_never_a_402() {
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    let refused = r#"{"success":false,"errorReason":"insufficient_funds","transaction":""}"#;
    scripted_settlement(
        &mut sim,
        vec![
            json_reply(PENDING),
            json_reply(refused),
            json_reply(refused),
        ],
    );
    // No node at 127.0.0.1:8545: every JSON-RPC call fails.
    let request = paid_post(&sim, 107);
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    let last = sim.settlements.last().unwrap();
    assert_eq!(last.outcome, "unknown");
    assert!(
        last.reason.as_deref().unwrap().starts_with("chain rpc"),
        "{last:?}"
    );
}

#[test]
fn a_retry_near_valid_before_settles_only_inside_the_window() {
    // validBefore = SIM_UNIX_START + 100; every /settle must end by validBefore - 10 s.
    let mut sim = world(&[]);
    scripted_settlement(&mut sim, vec![Reply::Stall]);
    let request = paid_post(&sim, 108);
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    // A retry 14 s before validBefore: its /settle gets 4 s, not the 15 s budget.
    let unix_now = SIM_UNIX_START + sim.elapsed().as_secs();
    sim.advance(std::time::Duration::from_secs(
        SIM_UNIX_START + 86 - unix_now,
    ));
    let before = sim.elapsed();
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    assert_eq!(calls(&sim, "/settle"), 2);
    let took = sim.elapsed() - before;
    assert!(took <= std::time::Duration::from_secs(5), "{took:?}");
    // 9 s before validBefore: no /settle at all (it could not end in time).
    sim.advance(std::time::Duration::from_secs(1));
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    assert_eq!(calls(&sim, "/settle"), 2);
}

#[test]
fn one_payer_holds_at_most_32_consumed_authorizations_without_a_result() {
    let mut sim = world(&[("RATE_LIMIT_BURST", "100")]);
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), |_| {
        Reply::Bytes(http_response(500, &[], b""))
    });
    for nonce in 0..32u8 {
        let r = one(&sim.request(&paid_post(&sim, 150 + nonce)));
        assert_error(&r, 422, "FETCH_FAILED");
    }
    let r = one(&sim.request(&paid_post(&sim, 190)));
    assert_error(&r, 503, "INTERNAL_ERROR");
    let retry_after: u64 = r.header("Retry-After").unwrap().parse().unwrap();
    assert!(
        (1..=100).contains(&retry_after),
        "until a record is forgotten: {retry_after}"
    );
    assert_eq!(calls(&sim, "/verify"), 32, "refused before /verify");
    // At validBefore the spent records are forgotten: the payer may pay again.
    let unix_now = SIM_UNIX_START + sim.elapsed().as_secs();
    sim.advance(std::time::Duration::from_secs(
        SIM_UNIX_START + 100 - unix_now,
    ));
    let later = payment_header(&requirements(&sim), 191, 0, SIM_UNIX_START + 100 + 100);
    let r = one(&sim.request(&post(
        r#"{"url":"https://www.acme-shop.com/"}"#,
        Some(&later),
    )));
    assert_error(&r, 422, "FETCH_FAILED");
}

#[test]
fn a_drain_lets_a_paid_job_settle_answers_it_with_close_and_starts_nothing_after_it() {
    // The facilitator takes 20 s to settle; the service drains 1 s into the job; the client
    // sends a second request on the same keep-alive connection 2 s in.
    let mut sim = world(&[]);
    scripted_settlement(
        &mut sim,
        vec![Reply::Delayed(
            std::time::Duration::from_secs(12),
            http_response(200, &[], SETTLED.as_bytes()),
        )],
    );
    sim.drain_at = Some(std::time::Duration::from_secs(1));
    let first = keep_alive(paid_post(&sim, 120));
    let second = keep_alive(paid_post(&sim, 121));
    let received = sim.request_over_time(&[
        (std::time::Duration::ZERO, first),
        (std::time::Duration::from_secs(2), second),
    ]);
    let r = one(&received);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("Connection"), Some("close"));
    assert_eq!(outcomes(&sim), ["settled"]);
    assert_eq!(
        calls(&sim, "/verify"),
        1,
        "the second request was never started"
    );
}

#[test]
fn a_drain_closes_idle_keep_alive_connections_and_refuses_new_paid_requests() {
    let mut sim = world(&[]);
    sim.drain_at = Some(std::time::Duration::from_secs(1));
    // An idle keep-alive connection (one free request answered, then nothing) closes at the
    // drain, long before its idle timeout.
    let health = b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n".to_vec();
    let received = sim.request_over_time(&[(std::time::Duration::ZERO, health)]);
    assert_eq!(one(&received).status, 200);
    assert!(
        sim.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        sim.elapsed()
    );
    // Readiness says so; a paid request read now is refused, nothing reserved.
    let ready = one(&sim.request(b"GET /api/ready HTTP/1.1\r\n\r\n"));
    assert_eq!(ready.status, 503);
    assert_eq!(
        ready.body["problems"][0],
        "draining: the service is shutting down"
    );
    let r = one(&sim.request(&paid_post(&sim, 122)));
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert_eq!(r.header("Retry-After"), Some("1"));
    assert_eq!(r.header("Connection"), Some("close"));
    assert_eq!(calls(&sim, "/verify"), 0);
}

#[test]
fn a_job_cut_short_writes_its_audit_line_and_keeps_a_built_result() {
    // The process exits (a second signal) while /settle is in flight: the audit line says so,
    // and the built result stays as an unknown settlement, so the same signature settles it.
    let mut sim = world(&[]);
    scripted_settlement(&mut sim, vec![Reply::Stall, json_reply(SETTLED)]);
    sim.cut_at = Some(std::time::Duration::from_secs(5));
    let request = paid_post(&sim, 123);
    assert!(
        sim.request(&request).is_empty(),
        "nothing is sent after the cut"
    );
    let cut = sim.settlements.last().unwrap();
    assert_eq!(cut.outcome, "cut_short");
    assert_eq!(cut.reason.as_deref(), Some("process exiting during settle"));
    assert_eq!(calls(&sim, "/settle"), 1);
    let paid = one(&sim.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!(calls(&sim, "/settle"), 2);
}

// ---- the retry race, made deterministic -------------------------------------------------------

use contact_core::payment::store::{
    AuthorizationKey, Claim, Fingerprint, KeptResponse, Lease, Record, ReserveError, Stage,
};

/// A store in which a rival (another executor thread, or another instance) claims an unknown
/// settlement for itself just before this exchange's own claim: the interleaving that the old
/// look-up-then-claim (two separate locks) lost.
#[derive(Debug)]
struct RivalClaims {
    inner: contact_core::payment::store::MemoryStore,
    armed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl contact_core::payment::store::PaymentStore for RivalClaims {
    fn reserve(
        &mut self,
        key: &AuthorizationKey,
        fingerprint: Fingerprint,
        payment_id: Option<&str>,
        facilitator: &str,
        valid_before: u64,
        lease: Lease,
        unix_now: u64,
    ) -> Result<String, ReserveError> {
        self.inner.reserve(
            key,
            fingerprint,
            payment_id,
            facilitator,
            valid_before,
            lease,
            unix_now,
        )
    }
    fn note_first_seen(&mut self, key: &AuthorizationKey, lease: u64, block: u64) {
        self.inner.note_first_seen(key, lease, block);
    }
    fn release(&mut self, key: &AuthorizationKey, owner: u64) {
        self.inner.release(key, owner);
    }
    fn begin_settle(&mut self, key: &AuthorizationKey, kept: KeptResponse, lease: Lease) -> bool {
        self.inner.begin_settle(key, kept, lease)
    }
    fn finish(&mut self, key: &AuthorizationKey, owner: u64, stage: Stage) {
        self.inner.finish(key, owner, stage);
    }
    fn claim(
        &mut self,
        key: &AuthorizationKey,
        fingerprint: Fingerprint,
        lease: Lease,
        unix_now: u64,
    ) -> Claim {
        if self.armed.swap(false, std::sync::atomic::Ordering::SeqCst) {
            // The rival (owner 99) wins the claim.
            let rival = Lease { id: 99, ..lease };
            let _ = self.inner.claim(key, fingerprint, rival, unix_now);
        }
        self.inner.claim(key, fingerprint, lease, unix_now)
    }
    fn look_up(&mut self, key: &AuthorizationKey, unix_now: u64) -> Option<Record> {
        self.inner.look_up(key, unix_now)
    }
    fn key_of_payment_id(&mut self, id: &str, unix_now: u64) -> Option<AuthorizationKey> {
        self.inner.key_of_payment_id(id, unix_now)
    }
    fn expire(&mut self, unix_now: u64) {
        self.inner.expire(unix_now);
    }
    fn usage(&self) -> (usize, usize) {
        self.inner.usage()
    }
}

/// The retry race: two retries of one unknown settlement; the rival claims it between this
/// retry's look-up and its claim. The loser answers from the record as it now stands (503,
/// settlement in progress), makes no facilitator call, and never answers 402 "already used"
/// (pay again) while the rival's settlement is in flight.
#[test]
fn a_retry_that_loses_the_claim_to_a_rival_is_a_503_never_a_402() {
    let mut sim = world(&[]);
    let armed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    sim.server.set_payment_store(Box::new(RivalClaims {
        inner: contact_core::payment::store::MemoryStore::default(),
        armed: armed.clone(),
    }));
    scripted_settlement(&mut sim, vec![json_reply(PENDING), json_reply(PENDING)]);
    let request = paid_post(&sim, 71);
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    assert_eq!(calls(&sim, "/settle"), 2);
    armed.store(true, std::sync::atomic::Ordering::SeqCst);
    let lost = one(&sim.request(&request));
    assert_error(&lost, 503, "INTERNAL_ERROR");
    assert!(lost.header("Retry-After").is_some());
    // The loser made no facilitator call of its own.
    assert_eq!((calls(&sim, "/verify"), calls(&sim, "/settle")), (1, 2));
}

// ---- the cause of a failed homepage, for operators ------------------------------------------

/// The access event of a failed crawl names why the homepage could not be read, while the API
/// code stays `FETCH_FAILED` (`TIMEOUT` for a deadline): an HTTP status, a refused connection, a TLS failure, a name that
/// does not resolve, a connect that never completes.
#[test]
fn a_failed_homepage_keeps_its_cause_for_the_access_log() {
    let site: std::net::SocketAddr = format!("{SITE_IP}:443").parse().unwrap();
    type Setup = Box<dyn Fn(&mut Sim)>;
    let cases: Vec<(&str, &str, Setup)> = vec![
        (
            "FETCH_FAILED",
            "http 503",
            Box::new(move |sim: &mut Sim| {
                sim.endpoint(site, |_| Reply::Bytes(http_response(503, &[], b"")));
            }),
        ),
        (
            "FETCH_FAILED",
            "tcp: connection refused",
            Box::new(move |sim: &mut Sim| {
                sim.endpoints.remove(&site);
            }),
        ),
        (
            "FETCH_FAILED",
            "tls: certificate not trusted",
            Box::new(move |sim: &mut Sim| sim.tls_failures.push(site)),
        ),
        (
            "FETCH_FAILED",
            "dns: www.acme-shop.com: no such name",
            Box::new(|sim: &mut Sim| {
                sim.dns.remove("www.acme-shop.com");
            }),
        ),
        (
            "TIMEOUT",
            "tcp: connect timed out",
            Box::new(move |sim: &mut Sim| sim.stalled_connects.push(site)),
        ),
    ];
    for (nonce, (code, cause, setup)) in (130u8..).zip(cases) {
        let mut sim = world(&[]);
        setup(&mut sim);
        let r = one(&sim.request(&paid_post(&sim, nonce)));
        assert_error(&r, 422, code);
        let event = sim.events.last().unwrap();
        let found = event.cause.as_deref().unwrap_or("");
        assert!(found.starts_with(cause), "{cause}: {found:?}");
    }
}

/// A `/settle` that never answers: the 503 and its audit line say why (no response in time),
/// and a facilitator that refuses connections is named as such.
#[test]
fn a_settle_without_a_reply_names_its_cause_in_the_audit_line() {
    let mut sim = world(&[]);
    sim.endpoint(FACILITATOR.parse().unwrap(), |raw| {
        if request_path(raw) == "/verify" {
            Reply::Bytes(http_response(200, &[], br#"{"isValid":true}"#))
        } else {
            Reply::Stall
        }
    });
    let r = one(&sim.request(&paid_post(&sim, 150)));
    assert_error(&r, 503, "INTERNAL_ERROR");
    let first = &sim.settlements[0];
    assert_eq!(first.outcome, "unknown");
    assert_eq!(first.reason.as_deref(), Some("http: no response in time"));
    assert_eq!(
        sim.events.last().unwrap().cause.as_deref(),
        Some("http: no response in time")
    );
}

/// A facilitator that says how it handled the payment's extensions (`EXTENSION-RESPONSES` on
/// its `/settle` answer, e.g. Bazaar cataloguing): the audit line carries it as sent.
#[test]
fn the_facilitators_extension_responses_reach_the_audit_line() {
    let mut sim = world(&[]);
    sim.endpoint(FACILITATOR.parse().unwrap(), |raw| {
        let (headers, body): (&[(&str, &str)], &[u8]) = if request_path(raw) == "/verify" {
            (&[], br#"{"isValid":true}"#)
        } else {
            (
                &[(
                    "EXTENSION-RESPONSES",
                    "eyJiYXphYXIiOnsic3RhdHVzIjoicHJvY2Vzc2luZyJ9fQ==",
                )],
                br#"{"success":true,"transaction":"0xabc","network":"eip155:8453"}"#,
            )
        };
        Reply::Bytes(http_response(200, headers, body))
    });
    let r = one(&sim.request(&paid_post(&sim, 151)));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        sim.settlements[0].extension_responses.as_deref(),
        Some("eyJiYXphYXIiOnsic3RhdHVzIjoicHJvY2Vzc2luZyJ9fQ==")
    );
    // Without the header: nothing.
    let mut plain = world(&[]);
    assert_eq!(one(&plain.request(&paid_post(&plain, 152))).status, 200);
    assert_eq!(plain.settlements[0].extension_responses, None);
}

// ---- several instances sharing one store ------------------------------------------------------

use contact_core::testing::sim::{ScriptedStore, SharedStore};

/// Two instances (each a `Sim`, with its own facilitator and site) sharing one scripted store.
fn two_instances(extra: &[(&str, &str)]) -> (Sim, Sim, SharedStore) {
    let mut a = world_of_instance(extra, 1);
    let mut b = world_of_instance(extra, 2);
    let store = ScriptedStore::shared(a.server.config());
    a.share_store(&store);
    b.share_store(&store);
    (a, b, store)
}

fn store_ops(store: &SharedStore) -> Vec<&'static str> {
    std::mem::take(&mut store.lock().unwrap().ops)
}

/// A paid request through one instance is known to the other: the same signature there gets
/// the kept 200 (no `/verify`, no crawl, no `/settle` of its own); a paid request costs four
/// store operations; a request without payment one.
#[test]
fn a_kept_result_on_one_instance_is_recovered_through_another() {
    let (mut a, mut b, store) = two_instances(&[]);
    let request = paid_post(&a, 1);
    let first = one(&a.request(&request));
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(
        store_ops(&store),
        ["admit", "reserve", "begin_settle", "finish"],
        "at most four store round trips per paid request"
    );
    let again = one(&b.request(&request));
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body, first.body);
    assert_eq!(
        again.header("PAYMENT-RESPONSE"),
        first.header("PAYMENT-RESPONSE")
    );
    assert_eq!((calls(&b, "/verify"), calls(&b, "/settle")), (0, 0));
    assert_eq!(site_requests(&b), 0);
    assert_eq!(store_ops(&store), ["admit"]);
    let unpaid = one(&b.request(&post(r#"{"url":"https://www.acme-shop.com/"}"#, None)));
    assert_eq!(unpaid.status, 402);
    assert_eq!(store_ops(&store), ["admit"]);
}

/// One rate limit for all instances: a client that spent its burst on one is limited on the
/// other.
#[test]
fn a_client_over_its_rate_limit_on_one_instance_is_limited_on_all() {
    let extra = [("RATE_LIMIT_PER_MINUTE", "1"), ("RATE_LIMIT_BURST", "2")];
    let (mut a, mut b, _store) = two_instances(&extra);
    let unpaid = post(r#"{"url":"https://www.acme-shop.com/"}"#, None);
    assert_eq!(one(&a.request(&unpaid)).status, 402);
    assert_eq!(one(&b.request(&unpaid)).status, 402);
    let limited = one(&a.request(&unpaid));
    assert_error(&limited, 429, "RATE_LIMITED");
    assert!(limited.header("Retry-After").is_some());
    assert_error(&one(&b.request(&unpaid)), 429, "RATE_LIMITED");
}

/// With a shared store, requests without a payment spend tokens leased from the shared limit:
/// one store round trip draws a batch (at most `LEASE_TOKENS`, at most the client's available
/// tokens / `LEASE_SHARE`), the rest of the batch is spent here without one, and a batch lapses
/// after `LEASE_LAPSE`. A paid request still asks the store itself (four operations).
#[test]
fn requests_without_a_payment_spend_a_lease_drawn_in_one_round_trip() {
    use contact_core::limiter::{LEASE_LAPSE, LEASE_TOKENS};
    // Bursts of 1 000: the first batches are min(32, 1 000 / 8) = 32.
    let extra = [("RATE_LIMIT_BURST", "1000")];
    let (mut a, _b, store) = two_instances(&extra);
    assert_eq!(LEASE_TOKENS, 32);
    let unpaid = post(r#"{"url":"https://www.acme-shop.com/"}"#, None);
    for n in 0..32 {
        assert_eq!(one(&a.request(&unpaid)).status, 402, "request {n}");
    }
    assert_eq!(store_ops(&store), ["admit"], "32 requests, one round trip");
    // The 33rd draws the next batch; a garbled payment cannot reach the facilitator either, so
    // it spends from the lease too.
    let garbled = post(
        r#"{"url":"https://www.acme-shop.com/"}"#,
        Some("not-base64-json"),
    );
    assert_eq!(one(&a.request(&unpaid)).status, 402);
    assert_eq!(store_ops(&store), ["admit"]);
    assert_eq!(one(&a.request(&garbled)).status, 402);
    assert_eq!(one(&a.request(&unpaid)).status, 402);
    assert_eq!(store_ops(&store), Vec::<&str>::new(), "still leased");
    // A leased batch lapses: after LEASE_LAPSE the next request asks the store again.
    a.advance(LEASE_LAPSE);
    assert_eq!(one(&a.request(&unpaid)).status, 402);
    assert_eq!(store_ops(&store), ["admit"], "lapsed");
    // A paid request is not served from the lease: its four operations, as before.
    let paid = one(&a.request(&paid_post(&a, 31)));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!(
        store_ops(&store),
        ["admit", "reserve", "begin_settle", "finish"]
    );
}

/// The shared limit holds across three instances within the documented tolerance: a client
/// sending round robin to three instances sharing one store passes no more than its burst (every
/// request spends a token drawn from the shared limit), and at most `3 × (largest_batch − 1)`
/// fewer (tokens leased to an instance it no longer reaches); then every instance limits it.
#[test]
fn the_shared_limit_holds_across_three_instances_with_leases() {
    use contact_core::limiter::largest_batch;
    let extra = [("RATE_LIMIT_PER_MINUTE", "1"), ("RATE_LIMIT_BURST", "60")];
    let mut instances: Vec<Sim> = (1..=3).map(|n| world_of_instance(&extra, n)).collect();
    let store = ScriptedStore::shared(instances[0].server.config());
    for sim in &mut instances {
        sim.share_store(&store);
    }
    let unpaid = post(r#"{"url":"https://www.acme-shop.com/"}"#, None);
    let mut passed = 0;
    for n in 0..300 {
        let answer = one(&instances[n % 3].request(&unpaid));
        match answer.status {
            402 => passed += 1,
            429 => assert!(answer.header("Retry-After").is_some()),
            other => panic!("{other}: {}", answer.body),
        }
    }
    let tolerance = 3 * (largest_batch(60) as usize - 1);
    assert_eq!(tolerance, 18);
    assert!(passed <= 60, "{passed} passed, over the burst of 60");
    assert!(
        passed + tolerance >= 60,
        "{passed} passed: more than the tolerance lost"
    );
    let round_trips = store_ops(&store).len();
    assert!(
        round_trips < 300,
        "{round_trips} store round trips for 300 requests"
    );
    for sim in &mut instances {
        assert_error(&one(&sim.request(&unpaid)), 429, "RATE_LIMITED");
    }
}

/// The store down, silent or slower than 200 ms: the paid route answers 503 with
/// `Retry-After` before any facilitator call (nothing verified, nothing charged); free routes
/// answer; once the store answers again, the same payment goes through.
#[test]
fn a_store_that_fails_or_answers_late_fails_closed_before_any_facilitator_call() {
    let (mut a, _b, store) = two_instances(&[]);
    // validBefore 110 s ahead: still 60 s ahead after the lease below runs out.
    let header = payment_header(&requirements(&a), 2, 0, SIM_UNIX_START + 110);
    let request = post(r#"{"url":"https://www.acme-shop.com/"}"#, Some(&header));
    type Break = fn(&mut ScriptedStore);
    let breaks: [(&str, Break); 3] = [
        ("unavailable", |s| s.down = true),
        ("no answer", |s| s.silent = true),
        ("no answer", |s| {
            s.delay = std::time::Duration::from_millis(250)
        }),
    ];
    for (words, broken) in breaks {
        broken(&mut store.lock().unwrap());
        let refused = one(&a.request(&request));
        assert_error(&refused, 503, "INTERNAL_ERROR");
        assert_eq!(refused.header("Retry-After"), Some("1"));
        let message = refused.body["error"]["message"].as_str().unwrap();
        assert!(message.contains(words), "{message}");
        // The admission carried a claim of an earlier record (a kept result whose outcome is
        // unknown would have been claimed): "nothing was charged" is not known to be true.
        assert!(
            message.contains("this request changed nothing"),
            "{message}"
        );
        assert!(!message.contains("charged"), "{message}");
        assert_eq!((calls(&a, "/verify"), calls(&a, "/settle")), (0, 0));
        let health = a.request(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert_eq!(one(&health).status, 200);
        let mut s = store.lock().unwrap();
        (s.down, s.silent, s.delay) = (false, false, std::time::Duration::ZERO);
    }
    // A reservation that landed without its answer, and whose release was lost with the
    // instance: the same request is told to wait while its lease runs...
    {
        let mut s = store.lock().unwrap();
        (s.slow_op, s.delay, s.lose_writes) =
            (Some("reserve"), std::time::Duration::from_millis(250), true);
    }
    assert_error(&one(&a.request(&request)), 503, "INTERNAL_ERROR");
    {
        let mut s = store.lock().unwrap();
        (s.slow_op, s.delay, s.lose_writes) = (None, std::time::Duration::ZERO, false);
    }
    let waiting = one(&a.request(&request));
    assert_error(&waiting, 503, "INTERNAL_ERROR");
    assert!(waiting.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("in progress"));
    assert_eq!(calls(&a, "/verify"), 0);
    // ...and is taken over when it runs out: no money moved before /settle.
    a.advance(contact_core::budget::RESERVE_LEASE + std::time::Duration::from_secs(1));
    let paid = one(&a.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!((calls(&a, "/verify"), calls(&a, "/settle")), (1, 1));
}

/// An instance dies between `/settle` and recording its outcome: its record stays
/// `Settling` under its lease (a retry elsewhere is told to wait), then another instance
/// settles it again — the facilitator says the authorization is used, which after an unknown
/// outcome means it paid us — and delivers the kept 200: one settlement, no second crawl.
#[test]
fn an_instance_that_dies_mid_settlement_is_taken_over_after_its_lease() {
    let (mut a, mut b, store) = two_instances(&[]);
    let request = paid_post(&a, 3);
    store.lock().unwrap().lose_writes = true;
    let lost = one(&a.request(&request));
    assert_eq!(
        lost.status, 200,
        "the dying instance's own answer: {}",
        lost.body
    );
    store.lock().unwrap().lose_writes = false;
    assert_eq!(calls(&a, "/settle"), 1);
    const USED: &str = r#"{"success":false,"errorReason":"invalid_exact_evm_authorization_already_used","transaction":"","network":"eip155:8453","payer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}"#;
    scripted_settlement(&mut b, vec![json_reply(USED)]);
    let wait = one(&b.request(&request));
    assert_error(&wait, 503, "INTERNAL_ERROR");
    assert!(wait.header("Retry-After").is_some());
    assert_eq!(calls(&b, "/settle"), 0, "not while the lease runs");
    b.advance(contact_core::budget::SETTLE_LEASE + std::time::Duration::from_secs(1));
    let recovered = one(&b.request(&request));
    assert_eq!(recovered.status, 200, "{}", recovered.body);
    assert_eq!(recovered.body["requestId"], lost.body["requestId"]);
    assert_eq!((calls(&b, "/verify"), calls(&b, "/settle")), (0, 1));
    assert_eq!(site_requests(&b), 0, "no second crawl");
    // Recorded now: a later retry through A is the kept 200 without a settlement.
    let kept = one(&a.request(&request));
    assert_eq!(kept.status, 200);
    assert_eq!(calls(&a, "/settle"), 1);
}

/// Twenty uses of one signature spread over two instances at once: one crawl, one `/verify`,
/// one `/settle`; every other answer is 503 "in progress" (never a 402 "pay again").
#[test]
fn one_signature_on_two_instances_at_once_is_crawled_and_settled_once() {
    let (mut a, mut b, _store) = two_instances(&[]);
    let request = paid_post(&a, 4);
    let mut answers = a.run(&vec![request.clone(); 10]);
    answers.extend(b.run(&vec![request.clone(); 10]));
    let answers: Vec<Parsed> = answers.iter().map(|r| one(r)).collect();
    let statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 503),
        "{statuses:?}"
    );
    let kept: Vec<&Parsed> = answers.iter().filter(|r| r.status == 200).collect();
    assert!(!kept.is_empty());
    assert!(
        kept.iter().all(|r| r.body == kept[0].body),
        "one result, kept"
    );
    let verifies = calls(&a, "/verify") + calls(&b, "/verify");
    let settles = calls(&a, "/settle") + calls(&b, "/settle");
    assert_eq!((verifies, settles), (1, 1));
    assert_eq!(site_requests(&b), 0, "one crawl, on the first instance");
}

/// A settled 200 is sent once its record is written, so a retry through any instance finds it
/// settled; a store that does not answer in time does not hold the 200 back (the money moved).
#[test]
fn a_settled_200_waits_for_its_record_but_not_past_the_store_deadline() {
    let (mut a, mut b, store) = two_instances(&[]);
    {
        let mut s = store.lock().unwrap();
        s.slow_op = Some("finish");
        s.delay = std::time::Duration::from_millis(150);
    }
    let request = paid_post(&a, 6);
    let paid = one(&a.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert!(a.events.last().unwrap().duration_ms >= 150);
    assert_eq!(one(&b.request(&request)).body, paid.body);
    // The store never answers the outcome: the 200 goes out at the 200 ms deadline.
    store.lock().unwrap().delay = std::time::Duration::from_secs(10);
    let late = one(&a.request(&paid_post(&a, 7)));
    assert_eq!(late.status, 200, "{}", late.body);
    let waited = a.events.last().unwrap().duration_ms;
    assert!((200..1_000).contains(&waited), "{waited} ms");
}

// ---- money safety, third round (docs/payments.md) -------------------------------------------

/// The reference facilitator's `/verify` answer for a used nonce with Multicall3 on the chain.
const VERIFY_USED: &str = r#"{"isValid":false,"invalidReason":"invalid_exact_evm_nonce_already_used","payer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}"#;
/// The same without Multicall3 (a bare anvil): the simulated transfer reverts.
const VERIFY_USED_SIMULATED: &str = r#"{"isValid":false,"invalidReason":"invalid_exact_evm_transaction_simulation_failed","invalidMessage":"execution reverted: FiatTokenV2: authorization is used or canceled","payer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}"#;
const UNRECONCILED: &str =
    "payment outcome unknown: this authorization is already used and the service holds no record of it";

/// A facilitator whose `/verify` answers `verify` and whose `/settle` answers `settle`.
fn facilitator_answers(sim: &mut Sim, verify: &'static str, settle: &'static str) {
    sim.endpoint(FACILITATOR.parse().unwrap(), move |raw| {
        json_reply(if request_path(raw) == "/verify" {
            verify
        } else {
            settle
        })
    });
}

#[test]
fn a_used_authorization_without_a_record_is_never_a_402() {
    // The record was lost (a restart of the in-process store, a Redis failover): the payer's
    // retry carries an authorization the chain already used. Without CHAIN_RPC_URL nothing can
    // tell whether it paid us: 503, no PAYMENT-REQUIRED (x402 clients pay again on any 402).
    for verify in [VERIFY_USED, VERIFY_USED_SIMULATED] {
        let mut sim = world(&[]);
        facilitator_answers(&mut sim, verify, SETTLED);
        let request = paid_post(&sim, 200);
        for _ in 0..2 {
            let r = one(&sim.request(&request));
            assert_error(&r, 503, "INTERNAL_ERROR");
            assert_eq!(r.body["error"]["message"], UNRECONCILED);
            assert!(r.header("PAYMENT-REQUIRED").is_none());
        }
        assert_eq!(outcomes(&sim), ["unreconciled", "unreconciled"]);
        let last = sim.settlements.last().unwrap();
        assert_eq!(last.payer, PAYER.to_ascii_lowercase());
        assert!(last.nonce.starts_with("0x"));
        assert_eq!(
            (calls(&sim, "/settle"), site_requests(&sim)),
            (0, 0),
            "no transfer, no crawl"
        );
    }
}

#[test]
fn with_the_chain_a_used_authorization_without_a_record_gets_its_one_result() {
    // The chain shows AuthorizationUsed in a transaction that paid us: the job runs, no
    // /settle, and the 200 names that transaction. A retry gets the same 200 (kept).
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    facilitator_answers(&mut sim, VERIFY_USED, SETTLED);
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState::default()));
    chain_node(&mut sim, chain.clone());
    // The nonce whose transfer to us the chain vectors hold.
    let request = paid_post(&sim, 103);
    let r = one(&sim.request(&request));
    assert_eq!(r.status, 200, "{}", r.body);
    let settled: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert!(settled.success);
    assert_eq!(
        settled.transaction, TRANSFER_TX,
        "the transaction the chain names"
    );
    assert_eq!(outcomes(&sim), ["confirmed_on_chain_without_record"]);
    assert_eq!(calls(&sim, "/settle"), 0, "the money moved already");
    let crawled = site_requests(&sim);
    assert!(crawled > 0);
    let again = one(&sim.request(&request));
    assert_eq!(again.status, 200);
    assert_eq!(again.body, r.body);
    assert_eq!((site_requests(&sim), calls(&sim, "/verify")), (crawled, 1));
}

#[test]
fn with_the_chain_a_used_authorization_without_a_record_that_was_cancelled_is_a_402() {
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    facilitator_answers(&mut sim, VERIFY_USED_SIMULATED, SETTLED);
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState::default()));
    chain_node(&mut sim, chain);
    // The nonce the chain vectors' payer cancelled.
    let r = one(&sim.request(&paid_post(&sim, 104)));
    assert_eq!(r.status, 402);
    let header: PaymentRequired = codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(header.error.as_deref(), Some("authorization cancelled"));
    assert_eq!((calls(&sim, "/settle"), site_requests(&sim)), (0, 0));
    assert_eq!(outcomes(&sim), ["cancelled"]);
}

#[test]
fn with_an_unreachable_chain_a_used_authorization_without_a_record_is_a_503() {
    // No node at 127.0.0.1:8545: the chain cannot judge; still never a 402.
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    facilitator_answers(&mut sim, VERIFY_USED, SETTLED);
    let r = one(&sim.request(&paid_post(&sim, 203)));
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert_eq!(r.body["error"]["message"], UNRECONCILED);
    assert!(r.header("PAYMENT-REQUIRED").is_none());
    assert_eq!(outcomes(&sim), ["unreconciled"]);
}

#[test]
fn a_first_settle_that_hears_already_used_is_never_a_402() {
    // /verify passed, then the first /settle says the nonce is used: the money may have
    // moved (a facilitator that broadcast before, a race). Unknown, never a refusal.
    let used = r#"{"success":false,"errorReason":"invalid_exact_evm_nonce_already_used","transaction":"","network":"eip155:8453"}"#;
    let mut sim = world(&[]);
    facilitator_answers(&mut sim, r#"{"isValid":true}"#, used);
    let r = one(&sim.request(&paid_post(&sim, 204)));
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert_eq!(r.body["error"]["message"], UNRECONCILED);
    assert!(r.header("PAYMENT-REQUIRED").is_none());
    assert_eq!(outcomes(&sim), ["unreconciled"]);
    // With the chain: it judges, and the transfer to us is there.
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    facilitator_answers(&mut sim, r#"{"isValid":true}"#, used);
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState::default()));
    chain_node(&mut sim, chain);
    let r = one(&sim.request(&paid_post(&sim, 103)));
    assert_eq!(r.status, 200, "{}", r.body);
    let settled: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert_eq!(settled.transaction, TRANSFER_TX);
    assert_eq!(outcomes(&sim), ["unknown", "confirmed_on_chain"]);
}

#[test]
fn an_unknown_outcome_outlives_the_window_and_is_never_a_402() {
    // validBefore = SIM_UNIX_START + 100. The settlement stays unknown; a retry an hour and
    // then six days after validBefore still finds the record: 503 "settlement pending", never
    // the local window check's 402.
    let mut sim = world(&[("RATE_LIMIT_BURST", "100")]);
    scripted_settlement(&mut sim, vec![json_reply(PENDING)]);
    let request = paid_post(&sim, 210);
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    for later in [3_600, 6 * 24 * 3_600] {
        let unix_now = SIM_UNIX_START + sim.elapsed().as_secs();
        sim.advance(std::time::Duration::from_secs(
            SIM_UNIX_START + 100 + later - unix_now,
        ));
        let r = one(&sim.request(&request));
        assert_error(&r, 503, "INTERNAL_ERROR");
        assert_eq!(r.body["error"]["message"], SETTLEMENT_PENDING);
        assert!(r.header("PAYMENT-REQUIRED").is_none());
    }
    assert_eq!(
        calls(&sim, "/settle"),
        2,
        "too late for a /settle to end in time"
    );
    // With the chain, the same retry gets the chain's verdict: the transfer landed.
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    scripted_settlement(&mut sim, vec![json_reply(PENDING)]);
    // At first the node's head is block 3, before the transfer (still valid: unknown).
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState {
        head: Some(3),
        ..ChainState::default()
    }));
    chain_node(&mut sim, chain.clone());
    let request = paid_post(&sim, 103);
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    let unix_now = SIM_UNIX_START + sim.elapsed().as_secs();
    sim.advance(std::time::Duration::from_secs(
        SIM_UNIX_START + 100 + 2 * 24 * 3_600 - unix_now,
    ));
    // Two days later the node has the transfer, and a fresh head.
    *chain.borrow_mut() = ChainState {
        head_timestamp: Some(sim.unix_now()),
        ..ChainState::default()
    };
    let r = one(&sim.request(&request));
    assert_eq!(r.status, 200, "{}", r.body);
    let settled: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert_eq!(settled.transaction, TRANSFER_TX);
    // Settled after the window: kept a while longer, the same 200 again.
    let again = one(&sim.request(&request));
    assert_eq!((again.status, &again.body), (200, &r.body));
}

#[test]
fn a_claimed_settlement_obeys_the_job_cap_and_the_drain() {
    // An unknown outcome is kept; its retry claims it. While the only job slot is taken, and
    // once the service drains, the claim starts nothing (no /settle) and is handed back: a
    // later retry still finds it.
    let mut sim = world(&[("MAX_CONCURRENT_JOBS", "1"), ("RATE_LIMIT_BURST", "10")]);
    scripted_settlement(&mut sim, vec![json_reply(PENDING)]);
    let stall = std::rc::Rc::new(std::cell::Cell::new(false));
    let stalls = stall.clone();
    sim.endpoint(format!("{SITE_IP}:443").parse().unwrap(), move |raw| {
        if stalls.get() {
            return Reply::Stall;
        }
        site_page(raw)
    });
    let retry = paid_post(&sim, 220);
    assert_error(&one(&sim.request(&retry)), 503, "INTERNAL_ERROR");
    let settles = calls(&sim, "/settle");
    stall.set(true);
    let results = sim.run(&[paid_post(&sim, 221), retry.clone()]);
    assert_error(&one(&results[0]), 422, "TIMEOUT");
    let capped = one(&results[1]);
    assert_error(&capped, 503, "INTERNAL_ERROR");
    assert_eq!(capped.header("Retry-After"), Some("1"));
    assert_eq!(
        calls(&sim, "/settle"),
        settles,
        "no settlement past the cap"
    );
    // Handed back: the next retry claims it and settles again.
    assert_error(&one(&sim.request(&retry)), 503, "INTERNAL_ERROR");
    let settles = calls(&sim, "/settle");
    assert!(settles > 2);
    sim.server.begin_drain();
    let draining = one(&sim.request(&retry));
    assert_error(&draining, 503, "INTERNAL_ERROR");
    assert!(draining.body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("shutting down"));
    assert_eq!(
        calls(&sim, "/settle"),
        settles,
        "no settlement while draining"
    );
    assert_eq!(sim.server.jobs_in_flight(), 0);
}

#[test]
fn the_wall_clock_is_read_at_every_event() {
    // The server started with its clock 200 s behind; NTP steps it forward. A payment valid
    // for 100 s by the old reading has expired by the new one: the local checks refuse it.
    let mut sim = world(&[]);
    assert_eq!(one(&sim.request(&paid_post(&sim, 230))).status, 200);
    sim.step_wall_clock(200);
    let r = one(&sim.request(&paid_post(&sim, 231)));
    assert_eq!(r.status, 402, "{}", r.body);
    let required: PaymentRequired = codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert!(
        required
            .error
            .as_deref()
            .unwrap()
            .contains("validBefore must be"),
        "{:?}",
        required.error
    );
    // Stepped back again (a VM resumed with a stale clock, then corrected): the window is
    // judged by the clock as it is now.
    sim.step_wall_clock(-200);
    assert_eq!(one(&sim.request(&paid_post(&sim, 232))).status, 200);
    assert_eq!(calls(&sim, "/verify"), 2);
}

#[test]
fn every_claim_is_fenced_by_its_own_lease() {
    // One instance, one authorization whose outcome is unknown. Retry A claims it and its
    // /settle hangs; the wall clock steps 60 s ahead (NTP), so A's lease has run out and retry
    // B takes the claim over. A's stale "unknown" must not undo B's claim: retry C, while B
    // is still settling, hears "in progress" and starts no third /settle.
    let mut sim = world(&[("RATE_LIMIT_BURST", "100")]);
    scripted_settlement(
        &mut sim,
        vec![json_reply(PENDING), json_reply(PENDING), Reply::Stall],
    );
    let request = paid_post(&sim, 240);
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    assert_eq!(calls(&sim, "/settle"), 2);
    let start = sim.elapsed();
    sim.wall_step_at = Some((start + std::time::Duration::from_secs(1), 60));
    let secs = std::time::Duration::from_secs;
    let answers = sim.run_at(&[
        (secs(0), request.clone()),
        (secs(2), request.clone()),
        (secs(16), request.clone()),
    ]);
    let (a, b, c) = (one(&answers[0]), one(&answers[1]), one(&answers[2]));
    assert_eq!(a.body["error"]["message"], SETTLEMENT_PENDING);
    assert_eq!(b.body["error"]["message"], SETTLEMENT_PENDING);
    assert_error(&c, 503, "INTERNAL_ERROR");
    assert!(
        c.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("still in progress"),
        "{}",
        c.body
    );
    assert_eq!(
        calls(&sim, "/settle"),
        4,
        "A's and B's, never a third at once"
    );
}

#[test]
fn readiness_names_what_a_missing_chain_and_store_cost() {
    let ready = |sim: &mut Sim| {
        sim.check_facilitator();
        one(&sim.request(b"GET /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n"))
    };
    let mut sim = world(&[]);
    let r = ready(&mut sim);
    assert_eq!((r.status, r.body["status"].as_str()), (200, Some("ready")));
    let warnings: Vec<&str> = r.body["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].starts_with("no chain judge (CHAIN_RPC_URL=none"));
    assert!(warnings[0].contains("payment outcome unknown"));
    assert!(warnings[0].contains("402"), "the late retry's cost");
    assert!(
        !warnings[0].contains("one result free"),
        "any payer, any number: gone"
    );
    assert!(warnings[1].starts_with("REDIS_URL is not set"));
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    let r = ready(&mut sim);
    assert_eq!(r.status, 200);
    assert_eq!(r.body["warnings"].as_array().unwrap().len(), 1);
}

#[test]
fn with_the_chain_any_verify_refusal_without_a_record_is_checked_before_it_is_a_402() {
    // A facilitator may word a used authorization as anything: after paying us, the payer's
    // balance is gone, and "insufficient_funds" is what it says. With CHAIN_RPC_URL the chain
    // is read before the refusal becomes a 402.
    let funds = r#"{"isValid":false,"invalidReason":"insufficient_funds"}"#;
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    facilitator_answers(&mut sim, funds, SETTLED);
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState::default()));
    chain_node(&mut sim, chain.clone());
    let r = one(&sim.request(&paid_post(&sim, 103)));
    assert_eq!(r.status, 200, "{}", r.body);
    let settled: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert_eq!(settled.transaction, TRANSFER_TX);
    assert_eq!(outcomes(&sim), ["confirmed_on_chain_without_record"]);
    assert_eq!(calls(&sim, "/settle"), 0);
    // Unused on chain: the refusal stands (402 with its reason), and nothing is kept: the
    // same authorization may be sent again once funded.
    let request = paid_post(&sim, 105);
    let r = one(&sim.request(&request));
    assert_eq!(r.status, 402);
    let required: PaymentRequired = codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(required.error.as_deref(), Some("insufficient_funds"));
    assert_eq!(
        one(&sim.request(&request)).status,
        402,
        "not 'already used'"
    );
    assert_eq!(calls(&sim, "/verify"), 3);
    // The chain unreadable: neither a 402 nor a charge.
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    facilitator_answers(&mut sim, funds, SETTLED);
    let r = one(&sim.request(&paid_post(&sim, 106)));
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert!(r.header("PAYMENT-REQUIRED").is_none());
    assert!(r.header("Retry-After").is_some());
    assert_eq!(site_requests(&sim), 0);
}

// ---- signed offers and receipts (x402 offer-receipt), Content-Digest ---------------------------

/// anvil's third development key: the service's offer and receipt signer in these tests.
const OFFER_KEY: &str = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
const OFFER_SIGNER: &str = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";

fn world_signing_offers() -> Sim {
    let mut config = config(&[]);
    config.offer_signer =
        Some(contact_core::payment::offer_receipt::OfferSigner::from_hex(OFFER_KEY).unwrap());
    world_with(config, 7)
}

/// The address that signed `digest` with the `0x` r‖s‖v `signature`.
fn signer_of(digest: &[u8; 32], signature: &serde_json::Value) -> String {
    use contact_core::eth::address_hex;
    use contact_core::payment::verify::recover_signer;
    let hex = signature.as_str().unwrap().trim_start_matches("0x");
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    address_hex(&recover_signer(digest, &bytes).unwrap())
}

fn assert_signed_offer(required: &serde_json::Value, unix_now: u64) {
    use contact_core::payment::offer_receipt::OfferPayload;
    let extension = &required["extensions"]["offer-receipt"]["info"];
    assert_eq!(extension["signer"], OFFER_SIGNER);
    let offers = extension["offers"].as_array().unwrap();
    assert_eq!(offers.len(), required["accepts"].as_array().unwrap().len());
    let (offer, accepted) = (&offers[0], &required["accepts"][0]);
    assert_eq!(
        (&offer["format"], &offer["acceptIndex"]),
        (&serde_json::json!("eip712"), &serde_json::json!(0))
    );
    let payload = &offer["payload"];
    for (field, accepts) in [
        ("scheme", "scheme"),
        ("network", "network"),
        ("asset", "asset"),
        ("payTo", "payTo"),
        ("amount", "amount"),
    ] {
        assert_eq!(payload[field], accepted[accepts], "{field}");
    }
    assert_eq!(payload["resourceUrl"], required["resource"]["url"]);
    assert_eq!(payload["version"], 1);
    let valid_until = payload["validUntil"].as_u64().unwrap();
    assert!(valid_until > unix_now + 60, "{valid_until} vs {unix_now}");
    let digest = OfferPayload {
        resource_url: payload["resourceUrl"].as_str().unwrap().into(),
        scheme: payload["scheme"].as_str().unwrap().into(),
        network: payload["network"].as_str().unwrap().into(),
        asset: payload["asset"].as_str().unwrap().into(),
        pay_to: payload["payTo"].as_str().unwrap().into(),
        amount: payload["amount"].as_str().unwrap().into(),
        valid_until,
    }
    .digest();
    assert_eq!(signer_of(&digest, &offer["signature"]), OFFER_SIGNER);
}

#[test]
fn every_402_carries_signed_offers_and_every_paid_200_a_signed_receipt() {
    use contact_core::payment::offer_receipt::ReceiptPayload;
    let mut sim = world_signing_offers();
    // The unpaid 402, body and header.
    let r = one(&sim.request(&post(r#"{"url":"https://www.acme-shop.com/"}"#, None)));
    assert_eq!(r.status, 402);
    assert_signed_offer(&r.body, sim.unix_now());
    let header: serde_json::Value = codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(header, r.body);
    // A refusal's 402 too.
    let stale = payment_header(&requirements(&sim), 1, 0, SIM_UNIX_START + 20);
    let r = one(&sim.request(&post(
        r#"{"url":"https://www.acme-shop.com/"}"#,
        Some(&stale),
    )));
    assert_eq!(r.status, 402);
    assert_signed_offer(&r.body, sim.unix_now());
    // The paid 200: a receipt naming the payer and the transaction, and the body's digest.
    let request = paid_post(&sim, 250);
    let raw = sim.request(&request);
    let paid = one(&raw);
    assert_eq!(paid.status, 200, "{}", paid.body);
    let settled: serde_json::Value =
        codec::decode(paid.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    let receipt = &settled["extensions"]["offer-receipt"]["info"]["receipt"];
    assert_eq!(receipt["format"], "eip712");
    let payload = &receipt["payload"];
    assert_eq!(payload["payer"], PAYER);
    assert_eq!(payload["transaction"], "0xabc");
    assert_eq!(payload["network"], "eip155:8453");
    assert_eq!(
        payload["resourceUrl"],
        "https://contacts.example.com/api/v1/extract-contact"
    );
    let digest = ReceiptPayload {
        network: payload["network"].as_str().unwrap().into(),
        resource_url: payload["resourceUrl"].as_str().unwrap().into(),
        payer: payload["payer"].as_str().unwrap().into(),
        issued_at: payload["issuedAt"].as_u64().unwrap(),
        transaction: payload["transaction"].as_str().unwrap().into(),
    }
    .digest();
    assert_eq!(signer_of(&digest, &receipt["signature"]), OFFER_SIGNER);
    // Content-Digest (RFC 9530): SHA-256 of the body bytes as sent.
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let digest = {
        use base64::Engine as _;
        use sha2::Digest as _;
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(&raw[at..]))
    };
    assert_eq!(
        paid.header("Content-Digest"),
        Some(format!("sha-256=:{digest}:").as_str())
    );
    // A retry gets the kept result with the same receipt.
    let again = one(&sim.request(&request));
    assert_eq!(
        again.header("PAYMENT-RESPONSE"),
        paid.header("PAYMENT-RESPONSE")
    );
    assert_eq!(
        again.header("Content-Digest"),
        paid.header("Content-Digest")
    );
    // Discovery names the signer.
    for path in [
        "/.well-known/x402.json",
        "/openapi.json",
        "/.well-known/x402",
    ] {
        let raw = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n");
        let r = one(&sim.request(raw.as_bytes()));
        assert!(
            r.body.to_string().contains(OFFER_SIGNER),
            "{path}: {}",
            r.body
        );
    }
}

#[test]
fn offers_are_signed_again_before_they_lapse_and_are_off_without_a_key() {
    let mut sim = world_signing_offers();
    let unpaid = post(r#"{"url":"https://www.acme-shop.com/"}"#, None);
    let first = one(&sim.request(&unpaid)).body["extensions"]["offer-receipt"]["info"]["offers"][0]
        ["payload"]["validUntil"]
        .as_u64()
        .unwrap();
    // Not yet due: the same signing.
    sim.server
        .refresh_offers(std::time::Duration::from_secs(sim.unix_now() + 60));
    let same = one(&sim.request(&unpaid));
    assert_eq!(
        same.body["extensions"]["offer-receipt"]["info"]["offers"][0]["payload"]["validUntil"],
        first
    );
    // Past half their validity: signed again.
    let later = sim.unix_now() + contact_core::server::OFFER_VALIDITY_SECONDS;
    sim.server
        .refresh_offers(std::time::Duration::from_secs(later));
    let fresh = one(&sim.request(&unpaid)).body["extensions"]["offer-receipt"]["info"]["offers"][0]
        ["payload"]["validUntil"]
        .as_u64()
        .unwrap();
    assert_eq!(fresh, later + contact_core::server::OFFER_VALIDITY_SECONDS);
    // Without a key: no offer-receipt extension, and the paid 200 still has its digest.
    let mut sim = world(&[]);
    let r = one(&sim.request(&unpaid));
    assert!(r.body["extensions"].get("offer-receipt").is_none());
    let paid = one(&sim.request(&paid_post(&sim, 251)));
    let settled: serde_json::Value =
        codec::decode(paid.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert!(settled.get("extensions").is_none());
    assert!(paid.header("Content-Digest").is_some());
}

// HTTP/1.1 as clients send it: chunked request bodies (RFC 9112 §7.1), refused framings
// (§6.1, §6.3) and HEAD on every GET route (RFC 9110 §9.3.2).

/// `body` in the chunked coding, in chunks of at most `size` bytes, an extension on the first
/// chunk and a trailer field.
fn chunked_body(body: &str, size: usize) -> String {
    let mut wire = String::new();
    for (i, piece) in body.as_bytes().chunks(size).enumerate() {
        let extension = if i == 0 { ";name=value" } else { "" };
        wire.push_str(&format!("{:x}{extension}\r\n", piece.len()));
        wire.push_str(std::str::from_utf8(piece).unwrap());
        wire.push_str("\r\n");
    }
    wire.push_str("0\r\nX-Checksum: none\r\n\r\n");
    wire
}

/// A chunked POST to the paid route, with `extra` header lines.
fn chunked_post(body: &str, size: usize, extra: &str) -> Vec<u8> {
    format!(
        "POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n{extra}\r\n{}",
        chunked_body(body, size)
    )
    .into_bytes()
}

#[test]
fn a_chunked_post_is_answered_as_its_content_length_twin() {
    let mut sim = world(&[]);
    let body = r#"{"url":"https://www.acme-shop.com/"}"#;
    let plain = one(&sim.request(&post(body, None)));
    assert_eq!(plain.status, 402);
    for size in [1, 7, body.len()] {
        let r = one(&sim.request(&chunked_post(body, size, "Connection: close\r\n")));
        assert_eq!(r.status, 402, "{}", r.body);
        assert_eq!(
            r.header("PAYMENT-REQUIRED"),
            plain.header("PAYMENT-REQUIRED")
        );
        assert_eq!(r.body, plain.body);
    }
    // A bad body is the same 400 either way.
    let bad = one(&sim.request(&chunked_post(r#"{"url":1}"#, 3, "Connection: close\r\n")));
    let plain_bad = one(&sim.request(&post(r#"{"url":1}"#, None)));
    assert_error(&bad, 400, "INVALID_URL");
    assert_eq!(
        bad.body["error"]["message"],
        plain_bad.body["error"]["message"]
    );
    // Paid and chunked: the crawl, the settlement, the 200.
    let header = payment_header(&requirements(&sim), 140, 0, SIM_UNIX_START + 100);
    let paid = chunked_post(
        body,
        10,
        &format!("PAYMENT-SIGNATURE: {header}\r\nConnection: close\r\n"),
    );
    let r = one(&sim.request(&paid));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["emails"][0]["value"], "info@acme-shop.com");
    assert_eq!(calls(&sim, "/settle"), 1);
}

#[test]
fn a_chunked_request_keeps_the_connection_for_the_next_one() {
    let mut sim = world(&[]);
    let body = r#"{"url":"https://www.acme-shop.com/"}"#;
    // Pipelined behind the terminating CRLF, and the same a byte per read.
    let mut raw = chunked_post(body, 4, "");
    raw.extend_from_slice(b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n");
    let statuses: Vec<u16> = responses(&sim.request(&raw))
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(statuses, [402, 200]);
    let script: Vec<(std::time::Duration, Vec<u8>)> = raw
        .iter()
        .enumerate()
        .map(|(i, b)| (std::time::Duration::from_millis(i as u64), vec![*b]))
        .collect();
    let statuses: Vec<u16> = responses(&sim.request_over_time(&script))
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(statuses, [402, 200]);
}

#[test]
fn chunked_bodies_over_the_limit_or_malformed_are_refused_and_closed() {
    let mut sim = world(&[]);
    let follow = b"GET /api/health HTTP/1.1\r\n\r\n";
    // 16 KiB + 1 decoded bytes, in chunks whose framing alone would be under the limit.
    let big = format!(
        r#"{{"url":"https://www.acme-shop.com/","x":"{}"}}"#,
        "a".repeat(16 * 1024)
    );
    let mut raw = chunked_post(&big, 4096, "");
    raw.extend_from_slice(follow);
    let all = responses(&sim.request(&raw));
    assert_eq!(all.len(), 1);
    assert_error(&all[0], 413, "INVALID_URL");
    assert_eq!(all[0].header("Connection"), Some("close"));
    let mut raw = b"POST /api/v1/extract-contact HTTP/1.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n".to_vec();
    raw.extend_from_slice(follow);
    let all = responses(&sim.request(&raw));
    assert_eq!(all.len(), 1);
    assert_error(&all[0], 400, "INVALID_URL");
    assert_eq!(all[0].header("Connection"), Some("close"));
}

#[test]
fn content_length_with_transfer_encoding_is_400_and_closes() {
    // RFC 9112 §6.3: a request that two parsers could frame differently (smuggling).
    let mut sim = world(&[]);
    let body = r#"{"url":"https://www.acme-shop.com/"}"#;
    let chunked = chunked_body(body, 8);
    for order in [
        format!(
            "Content-Length: {}\r\nTransfer-Encoding: chunked\r\n",
            chunked.len()
        ),
        format!(
            "Transfer-Encoding: chunked\r\nContent-Length: {}\r\n",
            chunked.len()
        ),
    ] {
        let raw = format!(
            "POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{order}\r\n{chunked}GET /api/health HTTP/1.1\r\n\r\n"
        );
        let all = responses(&sim.request(raw.as_bytes()));
        assert_eq!(all.len(), 1, "nothing after it is read");
        assert_error(&all[0], 400, "INVALID_URL");
        assert_eq!(all[0].header("Connection"), Some("close"));
    }
}

#[test]
fn a_transfer_coding_other_than_chunked_is_501() {
    let mut sim = world(&[]);
    let body = chunked_body(r#"{"url":"https://www.acme-shop.com/"}"#, 8);
    let raw = format!(
        "POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n{body}"
    );
    let r = one(&sim.request(raw.as_bytes()));
    assert_error(&r, 501, "INVALID_URL");
    assert_eq!(r.header("Connection"), Some("close"));
    // Chunked not last: the body's end cannot be known (RFC 9112 §6.3).
    let raw = "POST /api/v1/extract-contact HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n";
    assert_error(&one(&sim.request(raw.as_bytes())), 400, "INVALID_URL");
    assert_eq!(site_requests(&sim), 0);
}

/// A raw response split into its header lines (without `X-Request-Id`, which differs per
/// request) and the bytes after the head.
fn head_and_rest(raw: &[u8]) -> (Vec<String>, Vec<u8>) {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head")
        + 4;
    let lines = String::from_utf8(raw[..end].to_vec())
        .unwrap()
        .split("\r\n")
        .filter(|line| !line.starts_with("X-Request-Id:"))
        .map(str::to_string)
        .collect();
    (lines, raw[end..].to_vec())
}

#[test]
fn head_on_every_get_route_is_the_get_without_its_body() {
    for ready in [false, true] {
        let mut sim = world(&[]);
        if ready {
            sim.check_facilitator();
        }
        for path in [
            "/api/health",
            "/api/healthz",
            "/api/ready",
            "/openapi.json",
            "/.well-known/x402",
            "/.well-known/x402.json",
            "/.well-known/mcp.json",
        ] {
            let get =
                sim.request(format!("GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n").as_bytes());
            let head = sim
                .request(format!("HEAD {path} HTTP/1.1\r\nConnection: close\r\n\r\n").as_bytes());
            let (get_lines, get_body) = head_and_rest(&get);
            let (head_lines, head_body) = head_and_rest(&head);
            assert!(!get_body.is_empty(), "{path}");
            assert_eq!(head_lines, get_lines, "{path}");
            assert!(head_body.is_empty(), "{path}: {head_body:?}");
            assert!(head_lines.contains(&format!("Content-Length: {}", get_body.len())));
        }
        // Not-ready is a 503 either way; ready, a 200.
        let status = if ready {
            "HTTP/1.1 200 OK"
        } else {
            "HTTP/1.1 503 Service Unavailable"
        };
        let head = sim.request(b"HEAD /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert_eq!(head_and_rest(&head).0[0], status);
    }
}

#[test]
fn head_keeps_the_connection_and_answers_no_body_anywhere() {
    let mut sim = world(&[]);
    // A HEAD, then a GET on the same connection: the first answer ends at its head.
    let both = sim.request(
        b"HEAD /api/health HTTP/1.1\r\n\r\nGET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n",
    );
    let (first, rest) = head_and_rest(&both);
    assert_eq!(first[0], "HTTP/1.1 200 OK");
    assert!(
        rest.starts_with(b"HTTP/1.1 200 OK\r\n"),
        "{}",
        String::from_utf8_lossy(&rest)
    );
    assert!(rest.ends_with(
        format!(
            r#"{{"status":"ok","version":"{}"}}"#,
            env!("CARGO_PKG_VERSION")
        )
        .as_bytes()
    ));
    // The paid route is POST only: 405 with Allow, and no body either; an unknown path is 404.
    for (path, status, allow) in [
        (
            "/api/v1/extract-contact",
            "HTTP/1.1 405 Method Not Allowed",
            Some("Allow: POST, OPTIONS"),
        ),
        ("/nope", "HTTP/1.1 404 Not Found", None),
    ] {
        let raw =
            sim.request(format!("HEAD {path} HTTP/1.1\r\nConnection: close\r\n\r\n").as_bytes());
        let (lines, rest) = head_and_rest(&raw);
        assert_eq!(lines[0], status);
        if let Some(allow) = allow {
            assert!(lines.contains(&allow.to_string()), "{lines:?}");
        }
        assert!(rest.is_empty());
    }
    // A wrong method on a GET route names HEAD among the allowed ones.
    let r = one(&sim.request(b"POST /api/health HTTP/1.1\r\nConnection: close\r\n\r\n"));
    assert_eq!(r.header("Allow"), Some("GET, HEAD, OPTIONS"));
}

// ---- several facilitators ---------------------------------------------------------------------

const SECOND_FACILITATOR: &str = "127.0.0.1:9001";
const TWO_FACILITATORS: (&str, &str) = (
    "FACILITATOR_URL",
    "http://127.0.0.1:9000, http://127.0.0.1:9001",
);

/// A facilitator at `addr` that lists exact on Base, accepts every `/verify` and answers the
/// n-th `/settle` with `settles[n]` (the last one repeats).
fn facilitator_at(sim: &mut Sim, addr: &str, settles: Vec<Reply>) {
    let mut n = 0;
    sim.endpoint(addr.parse().unwrap(), move |raw| {
        match request_path(raw).as_str() {
            "/supported" => json_reply(SUPPORTED),
            "/verify" => json_reply(&format!(r#"{{"isValid":true,"payer":"{PAYER}"}}"#)),
            _ => {
                let reply = settles[n.min(settles.len() - 1)].clone();
                n += 1;
                reply
            }
        }
    });
}

/// Calls to `path` seen by the endpoint at `addr` (0 when none listens there).
fn calls_at(sim: &Sim, addr: &str, path: &str) -> usize {
    sim.endpoints.get(&addr.parse().unwrap()).map_or(0, |e| {
        e.requests
            .iter()
            .filter(|r| request_path(r) == path)
            .count()
    })
}

fn ready(sim: &mut Sim) -> Parsed {
    one(&sim.request(b"GET /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n"))
}

/// The first facilitator is down at start: the check of each tells, the service is ready on
/// the second with a warning naming the first, and a paid request goes to the second.
#[test]
fn with_the_first_facilitator_down_at_start_the_second_serves_and_ready_warns() {
    let mut sim = world(&[TWO_FACILITATORS]);
    sim.endpoints.remove(&FACILITATOR.parse().unwrap());
    facilitator_at(&mut sim, SECOND_FACILITATOR, vec![json_reply(SETTLED)]);
    let r = ready(&mut sim);
    assert_eq!(r.status, 503);
    let problems: Vec<&str> = r.body["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str())
        .collect();
    assert_eq!(problems.len(), 2, "one per facilitator: {problems:?}");
    assert!(problems[0].starts_with("http://127.0.0.1:9000/: facilitator not checked yet"));
    assert!(problems[1].starts_with("http://127.0.0.1:9001/: facilitator not checked yet"));

    assert!(matches!(
        sim.check_facilitator_at(0),
        FacilitatorHealth::Problem(p) if p.starts_with("facilitator unreachable")
    ));
    assert_eq!(sim.check_facilitator_at(1), FacilitatorHealth::Supported);
    let r = ready(&mut sim);
    assert_eq!(r.status, 200, "{}", r.body);
    let warnings = r.body["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:9000/: facilitator unreachable")),
        "{warnings:?}"
    );

    let paid = one(&sim.request(&paid_post(&sim, 201)));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!(
        (
            calls_at(&sim, SECOND_FACILITATOR, "/verify"),
            calls_at(&sim, SECOND_FACILITATOR, "/settle")
        ),
        (1, 1)
    );
}

/// The first facilitator fails after `/verify` (its `/settle` times out): the outcome is
/// unknown (503, the result kept); the retries with the same `PAYMENT-SIGNATURE` go to the
/// first facilitator again even once it is down and the second is the healthy one (another
/// 503), and settle there once it is back. The second never sees the authorization.
#[test]
fn after_verify_the_settlement_and_every_retry_stay_with_the_first_facilitator() {
    let mut sim = world(&[TWO_FACILITATORS]);
    facilitator_at(&mut sim, FACILITATOR, vec![Reply::Stall]);
    facilitator_at(&mut sim, SECOND_FACILITATOR, vec![json_reply(SETTLED)]);
    assert_eq!(sim.check_facilitator_at(0), FacilitatorHealth::Supported);
    assert_eq!(sim.check_facilitator_at(1), FacilitatorHealth::Supported);
    let request = paid_post(&sim, 202);
    let first = one(&sim.request(&request));
    assert_error(&first, 503, "INTERNAL_ERROR");
    assert_eq!(outcomes(&sim), ["unknown"]);
    assert_eq!(
        (calls(&sim, "/verify"), calls(&sim, "/settle")),
        (1, 1),
        "verified and settled at the first"
    );

    // The first goes down: the second is where new payments go now.
    sim.endpoints.remove(&FACILITATOR.parse().unwrap());
    assert!(matches!(
        sim.check_facilitator_at(0),
        FacilitatorHealth::Problem(_)
    ));
    let retry = one(&sim.request(&request));
    assert_error(&retry, 503, "INTERNAL_ERROR");
    assert!(outcomes(&sim).iter().all(|o| *o == "unknown"));

    // It comes back: the retry settles there.
    facilitator_at(&mut sim, FACILITATOR, vec![json_reply(SETTLED)]);
    let paid = one(&sim.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!(calls(&sim, "/settle"), 1);
    for path in ["/verify", "/settle"] {
        assert_eq!(
            calls_at(&sim, SECOND_FACILITATOR, path),
            0,
            "{path} never reaches the second facilitator"
        );
    }
    // Every audit line names the facilitator the authorization is bound to.
    assert!(sim
        .settlements
        .iter()
        .all(|s| s.facilitator == "http://127.0.0.1:9000/"));
    // A new payment goes to the second (the first's latest check failed).
    let other = one(&sim.request(&paid_post(&sim, 203)));
    assert_eq!(other.status, 200, "{}", other.body);
    assert_eq!(calls_at(&sim, SECOND_FACILITATOR, "/settle"), 1);
    assert_eq!(
        sim.settlements.last().unwrap().facilitator,
        "http://127.0.0.1:9001/"
    );
}

/// The record names the facilitator for every instance sharing the store: a retry through
/// another instance (or after a restart), whose first facilitator is down, settles with the
/// facilitator that first saw the authorization, never with its own healthy one.
#[test]
fn a_retry_through_another_instance_settles_with_the_facilitator_that_first_saw_it() {
    let (mut a, mut b, _store) = two_instances(&[TWO_FACILITATORS]);
    facilitator_at(&mut a, FACILITATOR, vec![Reply::Stall]);
    facilitator_at(&mut a, SECOND_FACILITATOR, vec![json_reply(SETTLED)]);
    assert_eq!(a.check_facilitator_at(0), FacilitatorHealth::Supported);
    let request = paid_post(&a, 204);
    assert_error(&one(&a.request(&request)), 503, "INTERNAL_ERROR");

    // Instance b: the first facilitator is down at its start, the second healthy.
    b.endpoints.remove(&FACILITATOR.parse().unwrap());
    facilitator_at(&mut b, SECOND_FACILITATOR, vec![json_reply(SETTLED)]);
    assert!(matches!(
        b.check_facilitator_at(0),
        FacilitatorHealth::Problem(_)
    ));
    assert_eq!(b.check_facilitator_at(1), FacilitatorHealth::Supported);
    assert_error(&one(&b.request(&request)), 503, "INTERNAL_ERROR");
    facilitator_at(&mut b, FACILITATOR, vec![json_reply(SETTLED)]);
    let paid = one(&b.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!(calls_at(&b, FACILITATOR, "/settle"), 1);
    for sim in [&a, &b] {
        for path in ["/verify", "/settle"] {
            assert_eq!(calls_at(sim, SECOND_FACILITATOR, path), 0, "{path}");
        }
    }
}

/// A reservation whose instance died (it landed, its release was lost) is taken over once its
/// lease runs out, and keeps the facilitator that first saw it: the job runs again with its
/// `/verify` and `/settle` at that facilitator, though the second is where new payments go now.
#[test]
fn a_reservation_taken_over_keeps_its_facilitator() {
    let (mut a, _b, store) = two_instances(&[TWO_FACILITATORS]);
    facilitator_at(&mut a, SECOND_FACILITATOR, vec![json_reply(SETTLED)]);
    assert_eq!(a.check_facilitator_at(0), FacilitatorHealth::Supported);
    // Valid long enough for the job to run again after the lease (at most maxTimeoutSeconds
    // + 60 s ahead when it arrives).
    let header = payment_header(&requirements(&a), 205, 0, SIM_UNIX_START + 120);
    let request = post(r#"{"url":"https://www.acme-shop.com/"}"#, Some(&header));
    {
        let mut s = store.lock().unwrap();
        (s.slow_op, s.delay, s.lose_writes) =
            (Some("reserve"), std::time::Duration::from_millis(250), true);
    }
    assert_error(&one(&a.request(&request)), 503, "INTERNAL_ERROR");
    {
        let mut s = store.lock().unwrap();
        (s.slow_op, s.delay, s.lose_writes) = (None, std::time::Duration::ZERO, false);
    }
    // The first facilitator now fails its check; the second passes.
    a.endpoint(FACILITATOR.parse().unwrap(), |_| {
        Reply::Bytes(http_response(503, &[], b"down"))
    });
    assert!(matches!(
        a.check_facilitator_at(0),
        FacilitatorHealth::Problem(_)
    ));
    assert_eq!(a.check_facilitator_at(1), FacilitatorHealth::Supported);
    facilitator_at(&mut a, FACILITATOR, vec![json_reply(SETTLED)]);
    a.advance(contact_core::budget::RESERVE_LEASE + std::time::Duration::from_secs(1));
    let paid = one(&a.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
    assert_eq!((calls(&a, "/verify"), calls(&a, "/settle")), (1, 1));
    for path in ["/verify", "/settle"] {
        assert_eq!(calls_at(&a, SECOND_FACILITATOR, path), 0, "{path}");
    }
}

// ---- money safety, fourth round (docs/payments.md) ------------------------------------------

/// The reference facilitator's `/settle` answer for a nonce that is already used (or cancelled).
const SETTLE_USED: &str = r#"{"success":false,"errorReason":"invalid_exact_evm_nonce_already_used","transaction":"","network":"eip155:8453"}"#;
const VERIFY_VALID: &str =
    r#"{"isValid":true,"payer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}"#;

/// A facilitator answering the n-th `/verify` with `verifies[n]` and the n-th `/settle` with
/// `settles[n]` (the last of each repeats).
fn scripted_facilitator(sim: &mut Sim, verifies: Vec<Reply>, settles: Vec<Reply>) {
    let (mut v, mut s) = (0, 0);
    sim.endpoint(FACILITATOR.parse().unwrap(), move |raw| {
        if request_path(raw) == "/verify" {
            let reply = verifies[v.min(verifies.len() - 1)].clone();
            v += 1;
            return reply;
        }
        let reply = settles[s.min(settles.len() - 1)].clone();
        s += 1;
        reply
    });
}

/// A world whose payer cancels its authorization after our `/verify` and before our
/// `/settle`: the first `/settle` hears "already used" (and so does every later one), nothing of
/// ours was ever broadcast; a retry's `/verify` answers `retry_verify`.
fn cancelling_world(extra: &[(&str, &str)], retry_verify: &'static str) -> Sim {
    let mut sim = world(extra);
    scripted_facilitator(
        &mut sim,
        vec![json_reply(VERIFY_VALID), json_reply(retry_verify)],
        vec![json_reply(SETTLE_USED)],
    );
    sim
}

/// Three answers to `request`, each 503 "payment outcome unknown" without `PAYMENT-REQUIRED`.
fn assert_unreconciled_thrice(sim: &mut Sim, request: &[u8]) {
    for n in 0..3 {
        let r = one(&sim.request(request));
        assert_error(&r, 503, "INTERNAL_ERROR");
        assert_eq!(r.body["error"]["message"], UNRECONCILED, "answer {n}");
        assert!(r.header("PAYMENT-REQUIRED").is_none());
        assert!(r.header("PAYMENT-RESPONSE").is_none());
    }
}

/// Without a judge, a cancellation between `/verify` and `/settle` is 503 "payment outcome
/// unknown" on the request and on every retry — never a 200 (the result would be free) and
/// never a 402; the retry's `/verify` hears "already used" too (a real facilitator checks the
/// nonce), or even "valid" (one that does not).
#[test]
fn a_cancelled_authorization_never_buys_the_result_without_a_judge() {
    for retry_verify in [VERIFY_USED, VERIFY_VALID] {
        let mut sim = cancelling_world(&[], retry_verify);
        let request = paid_post(&sim, 230);
        assert_unreconciled_thrice(&mut sim, &request);
        assert!(
            outcomes(&sim).iter().all(|o| *o == "unreconciled"),
            "{:?}",
            outcomes(&sim)
        );
    }
}

/// The same with the judge: the chain shows `AuthorizationCanceled` (nonce 104 of the
/// vectors) → 402 "authorization cancelled", then "already used"; a chain that cannot be read
/// → 503 "payment outcome unknown" on every answer, never "settlement pending" with a kept
/// result a retry could claim.
#[test]
fn a_cancelled_authorization_never_buys_the_result_with_a_judge() {
    let judge = [("CHAIN_RPC_URL", "http://127.0.0.1:8545")];
    let mut sim = cancelling_world(&judge, VERIFY_USED);
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState::default()));
    chain_node(&mut sim, chain);
    let request = paid_post(&sim, 104);
    let r = one(&sim.request(&request));
    assert_eq!(r.status, 402, "{}", r.body);
    let required: PaymentRequired = codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
    assert_eq!(required.error.as_deref(), Some("authorization cancelled"));
    for _ in 0..2 {
        assert_already_used(&one(&sim.request(&request)));
    }
    // No node: nothing certain, on every answer.
    let mut sim = cancelling_world(&judge, VERIFY_USED);
    let request = paid_post(&sim, 231);
    assert_unreconciled_thrice(&mut sim, &request);
}

/// After a `/settle` that may have broadcast (a pending answer naming a transaction), "already
/// used" is our own transfer: the kept result is delivered (evidence), as before.
#[test]
fn already_used_after_a_possible_broadcast_of_ours_still_delivers() {
    let mut sim = world(&[]);
    scripted_settlement(
        &mut sim,
        vec![
            json_reply(PENDING),
            json_reply(PENDING),
            json_reply(SETTLE_USED),
        ],
    );
    let request = paid_post(&sim, 232);
    assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
    assert_eq!(one(&sim.request(&request)).status, 200);
}

/// No answer is not a refusal: a `/verify` that times out, answers garbage or HTTP 500 leaves
/// the authorization usable — the retry with the same `PAYMENT-SIGNATURE` is verified again
/// and paid, never 402 "already used".
#[test]
fn a_verify_without_an_answer_releases_the_authorization() {
    for (n, first) in [
        Reply::Stall,
        json_reply("<html>502</html>"),
        reply_with_status(500, r#"{"error":"boom"}"#),
    ]
    .into_iter()
    .enumerate()
    {
        let mut sim = world(&[]);
        scripted_facilitator(
            &mut sim,
            vec![first, json_reply(VERIFY_VALID)],
            vec![json_reply(SETTLED)],
        );
        let request = paid_post(&sim, 240 + n as u8);
        let r = one(&sim.request(&request));
        assert_error(&r, 503, "INTERNAL_ERROR");
        let paid = one(&sim.request(&request));
        assert_eq!(paid.status, 200, "case {n}: {}", paid.body);
        assert_eq!(calls(&sim, "/verify"), 2);
    }
}

/// The process exits while `/verify` is in flight: the record is released, not spent.
#[test]
fn a_job_cut_short_while_verifying_releases_the_authorization() {
    let mut sim = world(&[]);
    scripted_facilitator(
        &mut sim,
        vec![Reply::Stall, json_reply(VERIFY_VALID)],
        vec![json_reply(SETTLED)],
    );
    sim.cut_at = Some(std::time::Duration::from_secs(2));
    let request = paid_post(&sim, 245);
    assert!(sim.request(&request).is_empty());
    assert_eq!(sim.settlements.last().unwrap().outcome, "cut_short");
    let paid = one(&sim.request(&request));
    assert_eq!(paid.status, 200, "{}", paid.body);
}

/// A record lost (the process restarted with the in-process store) and the payer's retry of a
/// paid request 65 s later, with 35 s of its window left — less than a job needs, so the local
/// window check fails. With the judge the chain shows the transfer to `payTo` (nonce 103 of the
/// vectors): the job runs without a `/settle` and the 200 names that transaction; a cancelled
/// (104) or unused (232) authorization is a 402 as before. Without a judge: 402 (the documented
/// cost of turning it off).
#[test]
fn a_late_retry_after_a_lost_record_asks_the_chain_before_a_402() {
    let late = |extra: &[(&str, &str)], nonce: u8| {
        let mut sim = world(extra);
        sim.advance(std::time::Duration::from_secs(65));
        let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState::default()));
        chain_node(&mut sim, chain.clone());
        let r = one(&sim.request(&paid_post(&sim, nonce)));
        (sim, r, chain)
    };
    let judge = [("CHAIN_RPC_URL", "http://127.0.0.1:8545")];
    let (sim, r, _) = late(&judge, 103);
    assert_eq!(r.status, 200, "{}", r.body);
    let settled: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert!(settled.success);
    assert_eq!(settled.transaction, TRANSFER_TX);
    assert_eq!(outcomes(&sim), ["confirmed_on_chain_without_record"]);
    assert_eq!((calls(&sim, "/verify"), calls(&sim, "/settle")), (0, 0));
    assert!(site_requests(&sim) > 0);
    for (nonce, error) in [
        (104, "authorization cancelled"),
        (232, "invalid_exact_evm_payload_authorization_valid_before"),
    ] {
        let (_, r, _) = late(&judge, nonce);
        assert_eq!(r.status, 402, "{nonce}: {}", r.body);
        let required: PaymentRequired =
            codec::decode(r.header("PAYMENT-REQUIRED").unwrap()).unwrap();
        assert!(
            required.error.as_deref().unwrap().starts_with(error),
            "{nonce}: {:?}",
            required.error
        );
    }
    // Judge off: the window check's 402, nothing asked.
    let (sim, r, chain) = late(&[], 103);
    assert_eq!(r.status, 402, "{}", r.body);
    assert!(chain.borrow().calls.is_empty());
    assert_eq!(site_requests(&sim), 0);
}

/// A provider's rate-limit answer (HTTP 429) is "undetermined", never "unused": whatever its
/// body says, a refusal without a record stays a 503 with `Retry-After`, never a 402.
#[test]
fn a_rate_limited_chain_answer_is_never_unused() {
    let funds = r#"{"isValid":false,"invalidReason":"insufficient_funds"}"#;
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    facilitator_answers(&mut sim, funds, SETTLED);
    let vectors: serde_json::Value = serde_json::from_str(CHAIN_VECTORS).unwrap();
    sim.endpoint(CHAIN_RPC.parse().unwrap(), move |raw| {
        let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        let request: serde_json::Value = serde_json::from_slice(&raw[at..]).unwrap();
        let answer = chain_answer(&vectors, &ChainState::default(), &request);
        reply_with_status(429, &answer.to_string())
    });
    let r = one(&sim.request(&paid_post(&sim, 105)));
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert!(r.header("PAYMENT-REQUIRED").is_none());
    assert!(r.header("Retry-After").is_some());
}

/// How many times the scripted node was asked for a block.
fn head_reads(chain: &std::rc::Rc<std::cell::RefCell<ChainState>>) -> usize {
    let calls = &chain.borrow().calls;
    calls
        .iter()
        .filter(|m| *m == "eth_getBlockByNumber")
        .count()
}

/// The judge is no amplifier. Chain readings for payments without a record (anyone can sign an
/// authorization with a fresh key and have it refused) are limited per client: past the
/// burst the answer is 503 with `Retry-After` — never a 402 — and no chain call is made; a
/// minute later readings are made again.
#[test]
fn record_less_chain_readings_are_limited_per_client() {
    let funds = r#"{"isValid":false,"invalidReason":"insufficient_funds"}"#;
    let mut sim = world(&[
        ("CHAIN_RPC_URL", "http://127.0.0.1:8545"),
        ("RATE_LIMIT_BURST", "100"),
    ]);
    facilitator_answers(&mut sim, funds, SETTLED);
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState::default()));
    chain_node(&mut sim, chain.clone());
    let mut limited = 0;
    for nonce in 150..170 {
        let r = one(&sim.request(&paid_post(&sim, nonce)));
        match r.status {
            402 => assert_eq!(limited, 0, "judged again after a limited one"),
            503 => {
                limited += 1;
                assert!(r.header("Retry-After").is_some());
                assert!(r.header("PAYMENT-REQUIRED").is_none());
            }
            other => panic!("{other}: {}", r.body),
        }
    }
    assert!(limited > 0);
    let read = head_reads(&chain);
    assert_eq!(
        read + limited,
        20,
        "one reading per judged request, none for the others"
    );
    sim.advance(std::time::Duration::from_secs(60));
    let header = payment_header(&requirements(&sim), 171, 0, sim.unix_now() + 100);
    let r = one(&sim.request(&post(
        r#"{"url":"https://www.acme-shop.com/"}"#,
        Some(&header),
    )));
    assert_eq!(r.status, 402, "{}", r.body);
    assert_eq!(head_reads(&chain), read + 1);
}

/// A verdict that cannot change — the chain showed the authorization paid to us — is cached
/// per (from, nonce): when the paid job fails (the site is down) and its reservation is
/// released, the retry is judged from the cache without a chain call.
#[test]
fn a_final_chain_verdict_is_cached_per_authorization() {
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    facilitator_answers(&mut sim, VERIFY_USED, SETTLED);
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState::default()));
    chain_node(&mut sim, chain.clone());
    let site = sim
        .endpoints
        .remove(&format!("{SITE_IP}:443").parse().unwrap());
    let request = paid_post(&sim, 103);
    let r = one(&sim.request(&request));
    assert_ne!(r.status, 200);
    let calls = chain.borrow().calls.len();
    assert!(calls > 0);
    let r = one(&sim.request(&request));
    assert_ne!(r.status, 402, "{}", r.body);
    assert_eq!(chain.borrow().calls.len(), calls, "from the cache");
    sim.endpoints
        .insert(format!("{SITE_IP}:443").parse().unwrap(), site.unwrap());
    let r = one(&sim.request(&request));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(chain.borrow().calls.len(), calls);
    let settled: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert_eq!(settled.transaction, TRANSFER_TX);
}

/// The look-back covers every payment: the node's head is 20 000 blocks (11 h) past the block
/// with the transfer and it answers `eth_getLogs` over at most 1 000 blocks; the record was
/// lost. The judge finds the start block by its timestamp and searches in pages of
/// `CHAIN_LOG_RANGE` blocks: the transfer to us is found, 200 naming it. State reads name the
/// head block by its hash (EIP-1898), not its number.
#[test]
fn the_judge_finds_a_payment_20_000_blocks_behind_the_head() {
    let mut sim = world(&[
        ("CHAIN_RPC_URL", "http://127.0.0.1:8545"),
        ("CHAIN_LOG_RANGE", "1000"),
    ]);
    facilitator_answers(&mut sim, VERIFY_USED, SETTLED);
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState {
        later_blocks: 20_000,
        max_log_range: Some(1_000),
        ..ChainState::default()
    }));
    chain_node(&mut sim, chain.clone());
    // The node's head is fresh by the local clock.
    sim.advance(std::time::Duration::from_secs(130 + 40_000 - 30));
    let header = payment_header(&requirements(&sim), 103, 0, SIM_UNIX_START + 100);
    let r = one(&sim.request(&post(
        r#"{"url":"https://www.acme-shop.com/"}"#,
        Some(&header),
    )));
    assert_eq!(r.status, 200, "{}", r.body);
    let settled: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
    assert_eq!(settled.transaction, TRANSFER_TX);
    let chain = chain.borrow();
    let head_hash = format!("0x{:064x}", 0xb10c_0000_u64 + 6 + 20_000);
    assert_eq!(
        chain.call_blocks,
        [serde_json::json!({"blockHash": head_hash})]
    );
    let reads = chain.calls.len();
    assert!(reads <= 30, "{reads} calls: {:?}", chain.calls);
}

/// "Unused" needs a fresh head: a node whose head block is older than the facilitator's
/// refusal may not have seen a transfer mined seconds before. The refusal is not confirmed: 503,
/// never a 402; once the node's head is newer than the refusal, the 402 stands.
#[test]
fn unused_at_a_head_older_than_the_refusal_is_not_a_402() {
    let funds = r#"{"isValid":false,"invalidReason":"insufficient_funds"}"#;
    let mut sim = world(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
    facilitator_answers(&mut sim, funds, SETTLED);
    // Block 2 (S+2) is the head; the refusal comes at S+10.
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState {
        head: Some(2),
        ..ChainState::default()
    }));
    chain_node(&mut sim, chain.clone());
    sim.advance(std::time::Duration::from_secs(10));
    let header = payment_header(&requirements(&sim), 105, 0, SIM_UNIX_START + 100);
    let request = post(r#"{"url":"https://www.acme-shop.com/"}"#, Some(&header));
    let before = sim.elapsed();
    let r = one(&sim.request(&request));
    assert!(
        sim.elapsed() - before >= std::time::Duration::from_secs(3),
        "waited"
    );
    assert_error(&r, 503, "INTERNAL_ERROR");
    assert!(r.header("PAYMENT-REQUIRED").is_none());
    assert!(r.header("Retry-After").is_some());
    // The reading waited for a newer head a few times (1 s apart), in vain.
    assert_eq!(head_reads(&chain), 4);
    // A node that catches up while the reading waits (its second head is block 6, S+130):
    // the refusal stands in the same request.
    *chain.borrow_mut() = ChainState {
        head: Some(2),
        catches_up_after: Some(1),
        ..ChainState::default()
    };
    let r = one(&sim.request(&request));
    assert_eq!(r.status, 402, "{}", r.body);
    assert_eq!(head_reads(&chain), 2);
}

// ---- a /settle that never left is not a broadcast (docs/payments.md, "Only evidence delivers")

const FACILITATOR_NAME: &str = "localhost";

/// A world whose payer cancels its authorization after our `/verify` (every `/settle` that
/// reaches the facilitator hears "already used"), with the facilitator named by `host` when
/// given (resolved through the scripted DNS) and the connects or resolutions listed failing.
fn unsent_world(extra: &[(&str, &str)], by_name: bool) -> Sim {
    let url = format!("http://{FACILITATOR_NAME}:9000");
    let mut extra = extra.to_vec();
    if by_name {
        extra.push(("FACILITATOR_URL", &url));
    }
    let mut sim = world(&extra);
    sim.dns
        .insert(FACILITATOR_NAME.into(), vec!["127.0.0.1".parse().unwrap()]);
    scripted_facilitator(
        &mut sim,
        vec![json_reply(VERIFY_VALID), json_reply(VERIFY_USED)],
        vec![json_reply(SETTLE_USED)],
    );
    sim
}

/// Makes the facilitator unreachable for its `n`-th use (1: the first `/verify`), at the
/// connect (refused) or, for a facilitator named by host, at DNS.
fn facilitator_fails(sim: &mut Sim, by_name: bool, n: usize) {
    if by_name {
        sim.failed_resolutions.push((FACILITATOR_NAME.into(), n));
    } else {
        sim.refused_connects.push((FACILITATOR.parse().unwrap(), n));
    }
}

/// Both `/settle` attempts of a job fail before their request is sent (connection refused, or
/// the facilitator's name does not resolve): nothing of ours can have been broadcast. The
/// result is kept (503 "settlement pending"), and when the retry's `/settle` then hears
/// "already used" — the payer cancelled meanwhile — that is no evidence of a payment: without
/// a judge it is 503 "payment outcome unknown", never the 200 (which would be free) and never
/// a 402, on that retry and the next.
#[test]
fn already_used_after_settles_that_were_never_sent_is_not_evidence() {
    for (n, by_name) in [false, true].into_iter().enumerate() {
        let mut sim = unsent_world(&[], by_name);
        facilitator_fails(&mut sim, by_name, 2);
        facilitator_fails(&mut sim, by_name, 3);
        let request = paid_post(&sim, 252 + n as u8);
        let r = one(&sim.request(&request));
        assert_error(&r, 503, "INTERNAL_ERROR");
        assert_eq!(
            calls(&sim, "/settle"),
            0,
            "no /settle reached the facilitator"
        );
        let first = outcomes(&sim);
        for retry in 0..2 {
            let r = one(&sim.request(&request));
            assert_eq!(
                r.status, 503,
                "by name {by_name}, retry {retry}: {}",
                r.body
            );
            assert_eq!(r.body["error"]["message"], UNRECONCILED);
            assert!(r.header("PAYMENT-REQUIRED").is_none());
            assert!(r.header("PAYMENT-RESPONSE").is_none());
        }
        assert_eq!(calls(&sim, "/settle"), 1);
        assert_eq!(first, ["not_sent", "not_sent"], "by name: {by_name}");
    }
}

/// The same inside one job: the first `/settle` is refused at the connect, the second one
/// reaches the facilitator and hears "already used": not a 200.
#[test]
fn already_used_after_an_unsent_first_settle_in_the_same_job_is_not_evidence() {
    for by_name in [false, true] {
        let mut sim = unsent_world(&[], by_name);
        facilitator_fails(&mut sim, by_name, 2);
        let r = one(&sim.request(&paid_post(&sim, 254 + u8::from(by_name))));
        assert_eq!(r.status, 503, "by name {by_name}: {}", r.body);
        assert_eq!(r.body["error"]["message"], UNRECONCILED);
        assert_eq!(calls(&sim, "/settle"), 1);
        assert_eq!(outcomes(&sim), ["not_sent", "unreconciled"]);
    }
}

/// With the judge, "already used" after unsent attempts is judged by the chain: nonce 104 of
/// the vectors was cancelled (402 "authorization cancelled"), nonce 103 paid us (200 naming
/// that transaction).
#[test]
fn with_the_chain_already_used_after_unsent_settles_is_judged_by_it() {
    let judge = [("CHAIN_RPC_URL", "http://127.0.0.1:8545")];
    for (nonce, status) in [(104, 402), (103, 200)] {
        let mut sim = unsent_world(&judge, false);
        let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState::default()));
        chain_node(&mut sim, chain.clone());
        facilitator_fails(&mut sim, false, 2);
        facilitator_fails(&mut sim, false, 3);
        let request = paid_post(&sim, nonce);
        assert_error(&one(&sim.request(&request)), 503, "INTERNAL_ERROR");
        assert!(chain.borrow().calls.is_empty(), "nothing to judge yet");
        let r = one(&sim.request(&request));
        assert_eq!(r.status, status, "{nonce}: {}", r.body);
        if status == 200 {
            let settled: SettleResponse =
                codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
            assert_eq!(settled.transaction, TRANSFER_TX);
        }
    }
}

/// The counterpart: a `/settle` whose request was sent and that got no answer may have
/// broadcast, so "already used" after it is our own transfer and delivers the kept result —
/// on the retry after a timeout that used the budget, or on the job's second attempt after a
/// connection closed before the reply.
#[test]
fn already_used_after_a_settle_sent_without_an_answer_delivers() {
    let closed = Reply::Bytes(Vec::new());
    for (n, first) in [Reply::Stall, closed].into_iter().enumerate() {
        let mut sim = world(&[]);
        scripted_facilitator(
            &mut sim,
            vec![json_reply(VERIFY_VALID)],
            vec![first, json_reply(SETTLE_USED)],
        );
        let request = paid_post(&sim, 216 + n as u8);
        let mut r = one(&sim.request(&request));
        if n == 0 {
            assert_error(&r, 503, "INTERNAL_ERROR");
            r = one(&sim.request(&request));
        }
        assert_eq!(r.status, 200, "case {n}: {}", r.body);
        assert_eq!(outcomes(&sim), ["unknown", "settled"], "case {n}");
        assert_eq!(calls(&sim, "/settle"), 2);
    }
}

/// The record carries what the attempts were: an instance whose `/settle` attempts were never
/// sent leaves a record that another instance's retry reads as "nothing broadcast" (a shared
/// store), so its "already used" is not evidence there either.
#[test]
fn whether_a_settle_was_sent_is_kept_in_the_shared_record() {
    let (mut a, mut b, _store) = two_instances(&[]);
    for sim in [&mut a, &mut b] {
        scripted_facilitator(
            sim,
            vec![json_reply(VERIFY_VALID), json_reply(VERIFY_USED)],
            vec![json_reply(SETTLE_USED)],
        );
    }
    facilitator_fails(&mut a, false, 2);
    facilitator_fails(&mut a, false, 3);
    let request = paid_post(&a, 218);
    assert_error(&one(&a.request(&request)), 503, "INTERNAL_ERROR");
    let r = one(&b.request(&request));
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(r.body["error"]["message"], UNRECONCILED);
}

// ---- the look-back covers every record (docs/payments.md) -----------------------------------

/// A record remembers the head block at which its authorization was first seen (the periodic
/// head read, block 2 here), and a chain reading about our own `/settle` searches the logs from
/// there: the retry comes 11 h later, the node's head is 20 000 blocks past the transfer and it
/// answers `eth_getLogs` over at most 1 000 blocks. The transfer is found with the head, the
/// state, one page of logs and the receipt — no probing of block timestamps. Without a known
/// head (no periodic read) the record has no block and the search by time needs more reads.
#[test]
fn a_record_keeps_its_first_seen_block_and_the_judge_searches_from_it() {
    let run = |read_head: bool| {
        let mut sim = world(&[
            ("CHAIN_RPC_URL", "http://127.0.0.1:8545"),
            ("CHAIN_LOG_RANGE", "1000"),
        ]);
        scripted_settlement(&mut sim, vec![Reply::Stall, json_reply(SETTLED)]);
        let chain = std::rc::Rc::new(std::cell::RefCell::new(ChainState {
            head: Some(2),
            ..ChainState::default()
        }));
        chain_node(&mut sim, chain.clone());
        if read_head {
            assert_eq!(sim.read_chain_head().map(|h| h.number), Some(2));
        }
        let header = payment_header(&requirements(&sim), 103, 0, SIM_UNIX_START + 100);
        let request = post(r#"{"url":"https://www.acme-shop.com/"}"#, Some(&header));
        let r = one(&sim.request(&request));
        assert_error(&r, 503, "INTERNAL_ERROR");
        // 11 h later the chain went on by 20 000 blocks; the node's head is fresh.
        *chain.borrow_mut() = ChainState {
            later_blocks: 20_000,
            max_log_range: Some(1_000),
            ..ChainState::default()
        };
        let later = std::time::Duration::from_secs(130 + 40_000 - 30);
        sim.advance(later - sim.elapsed());
        let r = one(&sim.request(&request));
        assert_eq!(r.status, 200, "{}", r.body);
        let settled: SettleResponse = codec::decode(r.header("PAYMENT-RESPONSE").unwrap()).unwrap();
        assert_eq!(settled.transaction, TRANSFER_TX);
        let calls = chain.borrow().calls.clone();
        calls
    };
    let from_record = run(true);
    assert_eq!(
        from_record,
        [
            "eth_getBlockByNumber",
            "eth_call",
            "eth_getLogs",
            "eth_getTransactionReceipt"
        ]
    );
    let by_time = run(false);
    assert!(
        by_time.len() > from_record.len(),
        "the search by time: {by_time:?}"
    );
}
