//! Fuzz entry points, one per `fuzz/fuzz_targets/*.rs`, kept in the library so ordinary builds
//! compile them and the fuzz targets stay three-line shims (docs/architecture.md).

use url::Url;

use crate::{crawl, extract, pace};

/// `extract_page`: arbitrary bytes as a page of `https://fuzz.example.com/`, with the first
/// byte choosing a declared charset; runs extraction, crawl planning and the merge, and
/// checks the invariants every result must keep. Then once more with the work stopped by a
/// pacer (`crate::pace`) after as many units as the second and third bytes say: a page
/// stopped anywhere ends without a panic, and what it found keeps the same invariants.
///
/// # Panics
/// When extraction panics or an invariant breaks (that is the finding).
pub fn extract_page(data: &[u8]) {
    let home = Url::parse("https://fuzz.example.com/")
        .unwrap_or_else(|e| panic!("the fuzzed page's URL does not parse: {e}"));
    let content_type = match data.first().map(|b| b % 4) {
        Some(0) => Some("text/html; charset=utf-8"),
        Some(1) => Some("text/html; charset=windows-1252"),
        Some(2) => Some("text/html; charset=shift_jis"),
        _ => None,
    };
    let page = extract::extract_page(&home, content_type, data);
    check_page(&home, &page);
    let again = extract::extract_page(&home, content_type, data);
    assert_eq!(page, again, "extraction is deterministic");
    let result = extract::merge(
        extract::SiteInfo {
            input_url: home.as_str(),
            url: &home,
            contact_pages: Vec::new(),
            pages_fetched: 1,
            duration_ms: 0,
            request_id: String::new(),
        },
        std::slice::from_ref(&page),
    );
    assert!(serde_json::to_string(&result).is_ok());

    let stop_after = usize::from(u16::from_le_bytes([
        data.get(1).copied().unwrap_or(0),
        data.get(2).copied().unwrap_or(0),
    ]));
    let paced = pace::with_pacer(Box::new(StopAtFirstCheckpoint), || {
        // The first checkpoint comes after `stop_after` more units of the page's work.
        pace::work(pace::QUANTUM.saturating_sub(stop_after + 1));
        extract::extract_page(&home, content_type, data)
    });
    check_page(&home, &paced.output);
}

/// A pacer that stops the work at its first checkpoint.
struct StopAtFirstCheckpoint;

impl pace::Pacer for StopAtFirstCheckpoint {
    fn checkpoint(&mut self, _at: &'static std::panic::Location<'static>) -> pace::Pace {
        pace::Pace::Stop
    }
}

/// The invariants of every page's extraction, and of the crawl plan made from it.
fn check_page(home: &Url, page: &extract::PageExtraction) {
    for email in &page.emails {
        assert_eq!(email, &email.to_lowercase(), "emails are lower-case");
        assert!(email.contains('@'), "an email has an @");
    }
    for phone in &page.phones {
        assert!(
            phone.starts_with('+') && phone[1..].bytes().all(|b| b.is_ascii_digit()),
            "E.164: {phone}"
        );
    }
    for (_, url) in &page.socials {
        assert!(url.starts_with("https://"), "canonical social URL: {url}");
    }
    let plan = crawl::plan(home, &page.links);
    assert!(plan.fetch.len() <= crawl::MAX_EXTRA_PAGES);
    assert!(plan.contact_pages.len() <= crawl::MAX_CONTACT_PAGES);
}

/// `request_head`: arbitrary bytes into the request-head parser; a complete head never claims
/// more bytes than it was given, and feeding the same bytes in two pieces gives the same
/// answer once complete. After a chunked head, the rest is its body
/// ([`crate::http::chunked`]): decoded whole, and again in three pieces split where the
/// bytes say, it gives the same body, the same bytes used and the same error; never more
/// than the bytes given nor over the body limit.
///
/// # Panics
/// When the parser or the decoder panics or an invariant breaks.
pub fn request_head(data: &[u8]) {
    use crate::http::request::try_parse;
    let whole = try_parse(data);
    if let Ok(Some((used, head))) = &whole {
        assert!(*used <= data.len());
        // Any prefix shorter than the head is incomplete (or already an error).
        let prefix = &data[..used / 2];
        assert!(!matches!(try_parse(prefix), Ok(Some(_))));
        if head.chunked {
            chunked_body(&data[*used..]);
        }
    }
}

/// The chunked-body half of [`request_head`].
fn chunked_body(wire: &[u8]) {
    use crate::http::chunked::{ChunkError, ChunkedDecoder};
    use crate::http::request::MAX_BODY_BYTES;
    let decode = |cuts: &[usize]| -> Result<(Vec<u8>, usize, bool), ChunkError> {
        let mut decoder = ChunkedDecoder::new();
        let mut body = Vec::new();
        let mut used = 0;
        for &cut in cuts.iter().chain([&wire.len()]) {
            let end = cut.clamp(used, wire.len());
            used += decoder.decode(&wire[used..end], &mut body)?;
        }
        assert!(used <= wire.len() && body.len() <= MAX_BODY_BYTES);
        assert_eq!(body.len(), decoder.decoded());
        Ok((body, used, decoder.is_done()))
    };
    let once = decode(&[]);
    // Split points from the body's own first bytes, so the fuzzer steers them.
    let first = usize::from(wire.first().copied().unwrap_or(0));
    let second = first + usize::from(wire.get(1).copied().unwrap_or(0)) * 3;
    let pieces = decode(&[first, second]);
    assert_eq!(once, pieces);
    if let Ok((_, used, done)) = once {
        // Only a finished body leaves bytes over (the next request).
        assert!(done || used == wire.len());
    }
}

/// `payment_header`: arbitrary text as a `PAYMENT-SIGNATURE`: decoding and local verification
/// never panic, and whatever decodes re-encodes to an equal value.
///
/// # Panics
/// When decoding or verification panics or the round trip breaks.
pub fn payment_header(data: &[u8]) {
    use crate::payment::requirements::{PaymentTerms, BASE_MAINNET, BASE_MAINNET_USDC};
    use crate::payment::{codec, verify, PaymentPayload};
    let text = String::from_utf8_lossy(data);
    let Ok(payment) = codec::decode::<PaymentPayload>(&text) else {
        return;
    };
    let terms = PaymentTerms::new(
        "https://x.example/api".into(),
        BASE_MAINNET,
        BASE_MAINNET_USDC,
        "USD Coin",
        "2",
        "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "10000".into(),
        60,
    );
    let _ = verify::verify_locally(&payment, &terms.requirements, 1_899_999_900);
    let again: PaymentPayload =
        codec::decode(&codec::encode(&payment)).unwrap_or_else(|e| panic!("round trip: {e}"));
    assert_eq!(again, payment);
}

/// The fuzzed site (`www.fuzz-site.com`, in the simulation's DNS) and facilitator addresses.
const FUZZ_SITE: std::net::SocketAddr = std::net::SocketAddr::new(
    std::net::IpAddr::V4(std::net::Ipv4Addr::new(93, 184, 216, 34)),
    443,
);
const FUZZ_FACILITATOR: std::net::SocketAddr = std::net::SocketAddr::new(
    std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 1)),
    9000,
);

/// The simulation the exchange targets share: payments configured against the facilitator
/// at [`FUZZ_FACILITATOR`], a generous rate limit, and `www.fuzz-site.com` → [`FUZZ_SITE`].
///
/// # Panics
/// When that configuration does not parse or does not make payments ready: the harness itself
/// is broken, and a fuzz case that returned early would pass while checking nothing.
fn fuzz_sim() -> crate::testing::sim::Sim {
    let vars: std::collections::BTreeMap<String, String> = [
        ("PUBLIC_BASE_URL", "https://contacts.example.com"),
        ("PAY_TO", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
        ("FACILITATOR_URL", "http://127.0.0.1:9000"),
        ("RATE_LIMIT_BURST", "1000"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let config = crate::config::Config::from_env_map(&vars)
        .unwrap_or_else(|e| panic!("the fuzz configuration does not parse: {e}"));
    let mut sim = crate::testing::sim::Sim::new(config);
    fuzz_terms(&sim);
    sim.dns
        .insert("www.fuzz-site.com".into(), vec![FUZZ_SITE.ip()]);
    sim
}

/// The payment terms of a [`fuzz_sim`] simulation.
///
/// # Panics
/// When its payments are not ready (the harness is broken).
fn fuzz_terms(sim: &crate::testing::sim::Sim) -> &crate::payment::requirements::PaymentTerms {
    match &sim.server.config().payment {
        crate::config::PaymentConfig::Ready { terms, .. } => terms,
        crate::config::PaymentConfig::Incomplete(problems) => {
            panic!("the fuzz configuration does not make payments ready: {problems:?}")
        }
    }
}

/// `exchange`: a whole exchange in the simulation. The first byte picks the mode: arbitrary
/// client bytes, or a valid paid request whose homepage answer is the remaining bytes (split
/// at a fuzzed size). Every run must end within the step bound, with a parseable response or
/// none.
///
/// # Panics
/// When the exchange panics, livelocks, or answers with something that is not HTTP.
pub fn exchange(data: &[u8]) {
    use crate::testing::sim::{payment_header as sign, Reply, SIM_UNIX_START};
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut sim = fuzz_sim();
    sim.split = usize::from(mode >> 1).max(1);
    let (site, facilitator) = (FUZZ_SITE, FUZZ_FACILITATOR);
    let origin = rest.to_vec();
    sim.endpoint(site, move |_| Reply::Bytes(origin.clone()));
    sim.endpoint(facilitator, |raw| {
        let body: &[u8] = if raw.starts_with(b"POST /verify") {
            br#"{"isValid":true}"#
        } else {
            br#"{"success":true,"transaction":"0x1","network":"eip155:8453"}"#
        };
        Reply::Bytes(crate::testing::sim::http_response(200, &[], body))
    });
    let request = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        let header = sign(&fuzz_terms(&sim).requirements, 1, 0, SIM_UNIX_START + 60);
        let body = r#"{"url":"https://www.fuzz-site.com/"}"#;
        format!(
            "POST /api/v1/extract-contact HTTP/1.1\r\nContent-Type: application/json\r\nPAYMENT-SIGNATURE: {header}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    };
    let received = sim.request(&request);
    if !received.is_empty() {
        assert!(received.starts_with(b"HTTP/1.1 "), "not an HTTP response");
    }
    assert_eq!(sim.server.jobs_in_flight(), 0, "no job left behind");
}

/// What one [`exchange_timing`] case did, so a property over many cases can show that it ran
/// something (a harness that returned early would report zeros).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimingRun {
    /// `/verify` requests the scripted facilitator received.
    pub verifies: usize,
    /// `/settle` requests the scripted facilitator received.
    pub settles: usize,
    /// Transfers the scripted chain made for the case's authorization: 0 or 1 (an EIP-3009
    /// nonce is used once), whether or not the service heard of it.
    pub transfers: usize,
    /// Settlement audit events with the outcome `unknown`.
    pub unknowns: usize,
    /// Settlement audit events after the first unknown outcome: the job's second `/settle`, or
    /// the settlement of the client's retry with the same payment.
    pub retries_after_unknown: usize,
    /// Paid requests answered (access-log events) after the first unknown outcome.
    pub answers_after_unknown: usize,
    /// HTTP statuses of the access-log events of the paid requests (`/api/v1/extract-contact`),
    /// in the order they were logged.
    pub statuses: Vec<u16>,
}

impl TimingRun {
    /// Whether a paid request was answered 200.
    pub fn paid_ok(&self) -> bool {
        self.statuses.contains(&200)
    }
}

/// What the scripted facilitator's `/settle` does on one call of [`exchange_timing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SettleScript {
    /// Transfers and answers `success: true` (on a used nonce: "already used", the truth).
    Settled,
    /// `settlement_pending` with a transaction: unknown.
    Pending,
    /// A body that is not a settle response: unknown.
    Garbage,
    /// No answer at all: unknown at the core's deadline.
    Stall,
    /// `insufficient_funds`, before any broadcast: a refusal (on a used nonce: "already used").
    Refused,
    /// HTTP 500: unknown.
    ServerError,
    /// `invalid_exact_evm_nonce_already_used`: the nonce is used (an earlier broadcast landed,
    /// now if not before).
    AlreadyUsed,
}

impl SettleScript {
    /// The script a fuzz byte picks (`b % 7`; `b % 5` keeps to the first five).
    fn of(b: u8) -> SettleScript {
        match b % 7 {
            0 => SettleScript::Settled,
            1 => SettleScript::Pending,
            2 => SettleScript::Garbage,
            3 => SettleScript::Stall,
            4 => SettleScript::Refused,
            5 => SettleScript::ServerError,
            _ => SettleScript::AlreadyUsed,
        }
    }
}

/// The scripted facilitator's view of the chain in [`exchange_timing`]: which EIP-3009 nonces
/// are used, and how many `/settle` calls came.
#[derive(Debug, Default)]
struct ScriptedChain {
    settle_calls: usize,
    /// Used nonces (`0x` + 64 hex digits).
    used: std::collections::BTreeSet<String>,
    /// Transfers made, per nonce (an invariant of the script itself: never above 1).
    transfers: std::collections::BTreeMap<String, usize>,
}

impl ScriptedChain {
    /// Uses `nonce` if it is not used yet: the transfer lands.
    fn transfer(&mut self, nonce: &str) {
        if self.used.insert(nonce.to_string()) {
            *self.transfers.entry(nonce.to_string()).or_default() += 1;
        }
    }
}

/// The EIP-3009 nonce of a facilitator request (`paymentPayload.payload.authorization.nonce`
/// in its JSON body), or "" when it has none.
fn authorization_nonce(raw: &[u8]) -> String {
    let body = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(&[][..], |at| &raw[at + 4..]);
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|request| {
            request
                .pointer("/paymentPayload/payload/authorization/nonce")?
                .as_str()
                .map(str::to_string)
        })
        .unwrap_or_default()
}

/// `exchange_timing`: a paid request in the simulation under fuzzed *timing*: the first bytes
/// set the DNS, connect and worker latencies, how replies are split, what the first `/settle`
/// answers (settled, pending, garbage, a stall, refused) and when the client leaves; then when
/// the client sends a second request on the same connection (the same payment again, or a
/// health check). Bytes 12 and on script the later `/settle` calls, one byte each (as the first
/// when absent): the five answers above, HTTP 500, or "nonce already used"; and whether an
/// unknown answer's transfer went through. The scripted facilitator keeps a chain: a nonce is
/// used once, after which `/settle` and `/verify` say "already used". Answers after
/// cancellation are delivered (the simulation does so), so this checks that late answers never
/// break an exchange.
///
/// Invariants: the run ends within the step bound; every byte sent is HTTP; no job is left
/// behind; every `/settle` the facilitator saw has an audit event; a paid 200 is only ever
/// sent after a settlement the facilitator confirmed, and only when the money moved; once an
/// outcome was unknown for the authorization, no later answer to a request carrying it is a
/// 402; when the money moved, no paid request is answered 402; at most one settlement
/// (`settled`, `confirmed_on_chain`) is audited per authorization.
///
/// Returns what the case did ([`TimingRun`]).
///
/// # Panics
/// When the exchange panics, livelocks, or an invariant breaks; or when the harness's own
/// configuration is broken.
pub fn exchange_timing(data: &[u8]) -> TimingRun {
    use crate::testing::sim::{http_response, payment_header as sign, Reply, SIM_UNIX_START};
    use std::time::Duration;
    let byte = |n: usize| data.get(n).copied().unwrap_or(0);
    let mut sim = fuzz_sim();
    let half_seconds = |b: u8, max: u8| Duration::from_millis(u64::from(b % max) * 500);
    sim.dns_delay = half_seconds(byte(0), 10);
    sim.connect_delay = half_seconds(byte(1), 26);
    sim.work_delay = half_seconds(byte(2), 70);
    sim.split = usize::from(byte(3)).max(1);
    sim.write_delay = half_seconds(byte(10), 24);
    sim.disconnect_after_connects = match byte(5) % 7 {
        0 => None,
        n => Some(usize::from(n)),
    };
    let (site, facilitator) = (FUZZ_SITE, FUZZ_FACILITATOR);
    sim.endpoint(site, |raw| {
        let body: &[u8] = if raw.starts_with(b"GET / ") {
            b"<title>Fuzz Ltd</title><a href=\"/contact\">Contact</a> info@fuzz-site.com"
        } else {
            b"<p>+44 20 8551 6580</p>"
        };
        Reply::Bytes(http_response(200, &[("Content-Type", "text/html")], body))
    });
    // The first /settle: byte 4 (its first five scripts), its transfer (for an unknown answer)
    // byte 4's next digit; each later call: one byte from byte 12 on, or as the first.
    let first = (SettleScript::of(byte(4) % 5), (byte(4) / 5) % 2 == 1);
    let later: Vec<(SettleScript, bool)> = data
        .get(12..)
        .unwrap_or(&[])
        .iter()
        .map(|b| (SettleScript::of(*b), (b / 7) % 2 == 1))
        .collect();
    let settle_delay = half_seconds(byte(6), 40);
    let chain = std::rc::Rc::new(std::cell::RefCell::new(ScriptedChain::default()));
    let scripted = std::rc::Rc::clone(&chain);
    sim.endpoint(facilitator, move |raw| {
        let mut chain = scripted.borrow_mut();
        let nonce = authorization_nonce(raw);
        let used = chain.used.contains(&nonce);
        if raw.starts_with(b"POST /verify") {
            let body: &[u8] = if used {
                br#"{"isValid":false,"invalidReason":"invalid_exact_evm_nonce_already_used"}"#
            } else {
                br#"{"isValid":true}"#
            };
            return Reply::Bytes(http_response(200, &[], body));
        }
        let call = chain.settle_calls;
        chain.settle_calls += 1;
        let (script, moves) = match call {
            0 => first,
            n => later.get(n - 1).copied().unwrap_or(first),
        };
        let already_used: &[u8] =
            br#"{"success":false,"errorReason":"invalid_exact_evm_nonce_already_used"}"#;
        let (status, body): (u16, &[u8]) = match script {
            SettleScript::Settled if used => (200, already_used),
            SettleScript::Settled => {
                chain.transfer(&nonce);
                (
                    200,
                    br#"{"success":true,"transaction":"0x1","network":"eip155:8453"}"#,
                )
            }
            SettleScript::Refused if used => (200, already_used),
            SettleScript::Refused => (
                200,
                br#"{"success":false,"errorReason":"insufficient_funds"}"#,
            ),
            SettleScript::AlreadyUsed => {
                chain.transfer(&nonce);
                (200, already_used)
            }
            unknown => {
                if moves {
                    chain.transfer(&nonce);
                }
                match unknown {
                    SettleScript::Pending => (
                        200,
                        br#"{"success":false,"errorReason":"settlement_pending","transaction":"0x1"}"#,
                    ),
                    SettleScript::ServerError => (
                        500,
                        br#"{"success":false,"errorReason":"unexpected_settle_error"}"#,
                    ),
                    SettleScript::Stall => return Reply::Stall,
                    _ => (200, b"<html>502</html>"),
                }
            }
        };
        Reply::Delayed(settle_delay, http_response(status, &[], body))
    });
    let header = sign(
        &fuzz_terms(&sim).requirements,
        byte(7),
        0,
        SIM_UNIX_START + 60,
    );
    let nonce = format!("0x{:064x}", byte(7));
    let body = r#"{"url":"https://www.fuzz-site.com/"}"#;
    let paid = format!(
        "POST /api/v1/extract-contact HTTP/1.1\r\nContent-Type: application/json\r\nPAYMENT-SIGNATURE: {header}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes();
    let second = if byte(8) % 2 == 0 {
        paid.clone()
    } else {
        b"GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec()
    };
    let script = [(Duration::ZERO, paid), (half_seconds(byte(9), 120), second)];
    let received = sim.request_over_time(&script);
    if !received.is_empty() {
        assert!(received.starts_with(b"HTTP/1.1 "), "not an HTTP response");
    }
    assert_eq!(sim.server.jobs_in_flight(), 0, "no job left behind");
    let seen = &sim.endpoints[&facilitator].requests;
    let calls = |path: &[u8]| seen.iter().filter(|r| r.starts_with(path)).count();
    let (verifies, settles) = (calls(b"POST /verify"), calls(b"POST /settle"));
    assert!(
        seen.iter().all(|r| authorization_nonce(r) == nonce),
        "a facilitator call without the case's authorization"
    );
    // Every /settle the facilitator saw was audited; an attempt whose connection never got
    // there (the budget ran out first) is audited too, as unknown.
    assert!(
        settles <= sim.settlements.len(),
        "a /settle without an audit event"
    );
    assert!(
        sim.settlements.iter().all(|s| s.nonce == nonce),
        "an audit event for another authorization"
    );
    let chain = chain.borrow();
    assert!(
        chain.transfers.values().all(|n| *n <= 1),
        "the scripted chain used a nonce twice"
    );
    let transfers = chain.transfers.get(&nonce).copied().unwrap_or(0);
    // At most one settlement per authorization, in the service's own audit trail.
    let settlements = sim
        .settlements
        .iter()
        .filter(|s| matches!(s.outcome, "settled" | "confirmed_on_chain"))
        .count();
    assert!(
        settlements <= 1,
        "{settlements} settlements audited for one authorization: {:?}",
        sim.settlements
    );
    // The paid requests, in the order answered, with how many audit events came before each.
    let paid: Vec<(usize, u16)> = sim
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.path == "/api/v1/extract-contact")
        .map(|(at, e)| (at, e.status))
        .collect();
    let statuses: Vec<u16> = paid.iter().map(|(_, status)| *status).collect();
    // Once unknown, never 402: every paid request answered after the first unknown outcome.
    let first_unknown = sim.settlements.iter().position(|s| s.outcome == "unknown");
    let (unknowns, retries_after_unknown, answers_after_unknown) = match first_unknown {
        None => (0, 0, 0),
        Some(u) => {
            let logged_before = sim.settlements_after[u];
            let after: Vec<u16> = paid
                .iter()
                .filter(|(at, _)| *at >= logged_before)
                .map(|(_, status)| *status)
                .collect();
            assert!(
                !after.contains(&402),
                "a 402 after an unknown outcome for the same authorization: {statuses:?}, audit {:?}",
                sim.settlements
            );
            let unknowns = sim
                .settlements
                .iter()
                .filter(|s| s.outcome == "unknown")
                .count();
            (unknowns, sim.settlements.len() - u - 1, after.len())
        }
    };
    let run = TimingRun {
        verifies,
        settles,
        transfers,
        unknowns,
        retries_after_unknown,
        answers_after_unknown,
        statuses,
    };
    assert!(
        !run.paid_ok() || sim.settlements.iter().any(|s| s.outcome == "settled"),
        "a paid 200 without a confirmed settlement"
    );
    assert!(
        !run.paid_ok() || transfers == 1,
        "a paid 200 but the money never moved"
    );
    assert!(
        transfers == 0 || !run.statuses.contains(&402),
        "the money moved and a paid request was answered 402: {:?}, audit {:?}",
        run.statuses,
        sim.settlements
    );
    run
}
