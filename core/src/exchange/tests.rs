//! The paid job's transitions, called one by one: each phase hands its data to the next by
//! value, and the job holds one place in `MAX_CONCURRENT_JOBS` and the homepage's page memory
//! for as long as it needs them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use super::*;
use crate::config::Config;
use crate::payment::verify::verify_locally;
use crate::testing::sim::{payment_header, SIM_UNIX_START};
use std::collections::BTreeMap;

const URL: &str = "https://example.com/";

/// The facilitator a reservation binds the job to.
fn facilitator() -> Facilitator {
    Facilitator::keyless(Url::parse("http://127.0.0.1:9000/").unwrap())
}

fn server() -> (Server, Instant) {
    let vars: BTreeMap<String, String> = [
        ("PUBLIC_BASE_URL", "https://contacts.example.com"),
        ("PAY_TO", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
        ("FACILITATOR_URL", "http://127.0.0.1:9000"),
        ("X402_MAX_TIMEOUT_SECONDS", "64"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let config = Config::from_env_map(&vars).expect("test config");
    let now = Instant::now();
    let unix = Duration::from_secs(SIM_UNIX_START);
    (Server::new(config, [7; 32], now, unix), now)
}

/// A job checking a payment valid until `valid_for` seconds after the start, and the local
/// checks' verdict on it (made 10 s before the start: a window of 50 s passes them).
fn checking(server: &Server, now: Instant, valid_for: u64) -> (Checking, VerifiedPayment) {
    let PaymentConfig::Ready { terms, .. } = &server.config.payment else {
        panic!("payments are configured");
    };
    let header = payment_header(&terms.requirements, 1, 0, SIM_UNIX_START + valid_for);
    let payment: PaymentPayload = codec::decode(&header).unwrap();
    let verified = verify_locally(&payment, &terms.requirements, SIM_UNIX_START - 10).unwrap();
    let request = RequestInfo {
        id: "request".to_string(),
        method: "POST".to_string(),
        path: "/api/extract".to_string(),
        started: now,
        close: false,
    };
    let target = PublicUrl::parse(URL, &server.config.net_policy).unwrap();
    let core = JobCore::new(
        server,
        request,
        (URL.to_string(), target),
        now + JOB_TIMEOUT,
    );
    let checking = Checking {
        core,
        terms: (**terms).clone(),
        facilitator: facilitator(),
        fingerprint: Fingerprint::of(&payment, URL),
        payment,
        payment_id: None,
    };
    (checking, verified)
}

#[test]
fn a_paid_job_hands_its_payment_and_settlement_on_from_phase_to_phase() {
    let (server, now) = server();
    let (checking, verified) = checking(&server, now, 100);
    assert_eq!(server.jobs.in_flight(), 1);
    let memory = server.page_memory.try_acquire().unwrap();
    let (reserving, op) = checking.into_reserving(&server, &verified, memory, None, now);
    let StoreOp::Reserve {
        key, valid_before, ..
    } = op
    else {
        panic!("a reservation: {op:?}");
    };
    assert_eq!(valid_before, SIM_UNIX_START + 100);
    assert_eq!(key, reserving.paid.key);
    assert_eq!(reserving.paid.payer, address_hex(&verified.payer));
    // 100 s of validity leave the whole 30 s to the crawl.
    assert_eq!(reserving.core.deadline, now + JOB_TIMEOUT);
    let share = server.page_memory.used();
    assert!(share > 0);

    // The reservation found the authorization bound to another facilitator: it stays there.
    let bound = Facilitator::keyless(Url::parse("http://127.0.0.1:9001/").unwrap());
    let crawling = reserving.into_verifying(bound.clone()).into_crawling();
    assert!(crawling.paid.on_chain.is_none());
    assert_eq!(crawling.paid.facilitator, bound);
    assert_eq!(
        server.page_memory.used(),
        share,
        "the homepage's share rides along"
    );

    let built_at = now + Duration::from_secs(28);
    let (building, work) = crawling.into_building(&server, built_at);
    let Work::Result(work) = work else {
        panic!("the result build");
    };
    assert_eq!(work.request_id, "request");
    assert_eq!(work.input_url, URL);
    assert_eq!(
        server.page_memory.used(),
        0,
        "the crawl's memory goes with it"
    );
    // The build gets at least MIN_BUILD_TIME after a late crawl.
    assert_eq!(building.core.deadline, built_at + MIN_BUILD_TIME);

    let kept = KeptResponse {
        body: Arc::from(b"{}".to_vec()),
        request_id: "request".to_string(),
        settlement: None,
        may_have_broadcast: false,
    };
    let settle_at = now + Duration::from_secs(30);
    let Building { core, paid } = building;
    let settling = Settling::new((core, paid), kept, false, settle_at);
    assert_eq!(settling.core.deadline, settle_at + SETTLE_BUDGET);
    assert_eq!(settling.settlement.attempts, 0);
    assert!(settling.store_wait().is_none() && settling.retry_at().is_none());

    let recording = settling.into_recording();
    assert_eq!(recording.settlement.kept.request_id, "request");
    assert_eq!(server.jobs.in_flight(), 1, "one place for the whole job");
    drop(recording);
    assert_eq!(server.jobs.in_flight(), 0);
}

#[test]
fn a_short_validity_window_shortens_the_crawl_and_the_settlement_budget() {
    let (server, now) = server();
    // validBefore 55 s away: every /settle ends by 45 s; the build and the settlement budget
    // before that leave the crawl 25 s.
    let (checking, verified) = checking(&server, now, 55);
    let memory = server.page_memory.try_acquire().unwrap();
    let (reserving, _) = checking.into_reserving(&server, &verified, memory, None, now);
    assert_eq!(reserving.core.deadline, now + Duration::from_secs(25));
    assert_eq!(reserving.paid.settle_by, now + Duration::from_secs(45));
    let crawling = reserving.into_verifying(facilitator()).into_crawling();
    let (building, _) = crawling.into_building(&server, now + Duration::from_secs(25));
    let kept = KeptResponse {
        body: Arc::from(b"{}".to_vec()),
        request_id: "request".to_string(),
        settlement: None,
        may_have_broadcast: false,
    };
    // A settlement that starts at 32 s ends by 45 s, not after its whole budget.
    let settle_at = now + Duration::from_secs(32);
    let settling = Settling::new((building.core, building.paid), kept, false, settle_at);
    assert_eq!(settling.core.deadline, now + Duration::from_secs(45));
}

#[test]
fn a_job_the_chain_shows_paid_crawls_with_the_transaction_and_a_fresh_deadline() {
    let (server, now) = server();
    let (checking, verified) = checking(&server, now, 100);
    let memory = server.page_memory.try_acquire().unwrap();
    let (reserving, _) = checking.into_reserving(&server, &verified, memory, None, now);
    let query = settling::chain_query(&server, &reserving.paid).unwrap();
    let judged_at = now + Duration::from_secs(3);
    let judging = reserving
        .into_verifying(facilitator())
        .into_judging(query, None, judged_at);
    assert_eq!(judging.core.deadline, judged_at + CHAIN_READ_BUDGET);
    assert!(judging.refusal.is_none());
    let crawling = judging.into_crawling("0xabc".to_string(), judged_at);
    assert_eq!(crawling.paid.on_chain.as_deref(), Some("0xabc"));
    assert_eq!(crawling.core.deadline, now + JOB_TIMEOUT);
    assert!(
        server.page_memory.used() > 0,
        "the homepage's share rides along"
    );
}

/// Each phase, its file and the file's text: a phase's file that is gone fails the build.
const PHASES: [(&str, &str, &str); 8] = [
    ("Checking", "checking.rs", include_str!("checking.rs")),
    ("Reserving", "reserving.rs", include_str!("reserving.rs")),
    ("Verifying", "verifying.rs", include_str!("verifying.rs")),
    ("Judging", "judging.rs", include_str!("judging.rs")),
    ("Crawling", "crawling.rs", include_str!("crawling.rs")),
    ("Building", "building.rs", include_str!("building.rs")),
    ("Settling", "settling.rs", include_str!("settling.rs")),
    ("Recording", "recording.rs", include_str!("recording.rs")),
];

#[test]
fn the_architecture_page_names_each_phase_in_its_file() {
    let page = include_str!("../../../docs/architecture.md");
    let section = page
        .split("\n## A paid job\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/architecture.md has a section \"A paid job\"");
    let rows: Vec<(&str, &str)> = section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (cells[1].trim_matches('`'), cells[2].trim_matches('`'))
        })
        .collect();
    let named: Vec<(&str, String)> = PHASES
        .iter()
        .map(|(phase, file, _)| (*phase, format!("core/src/exchange/{file}")))
        .collect();
    let named: Vec<(&str, &str)> = named.iter().map(|(p, f)| (*p, f.as_str())).collect();
    assert_eq!(rows, named, "the table of phases in docs/architecture.md");
    let job = include_str!("job.rs");
    for (phase, file, source) in PHASES {
        assert!(
            source.contains(&format!("pub(super) struct {phase} {{")),
            "{file} declares {phase}"
        );
        assert!(
            job.contains(&format!("    {phase}({phase}")),
            "Job has a variant {phase}"
        );
    }
    for (name, source) in [
        ("OperatorJob", include_str!("operator.rs")),
        ("JobCore", job),
        ("Paid", job),
        ("Crawl", include_str!("crawling.rs")),
        ("Settlement", include_str!("settling.rs")),
    ] {
        assert!(
            section.contains(&format!("`{name}`")),
            "the page names {name}"
        );
        let declared = [
            format!("pub(super) struct {name} {{"),
            format!("pub(super) enum {name} {{"),
        ];
        assert!(
            declared.iter().any(|d| source.contains(d.as_str())),
            "{name} is declared"
        );
    }
}
