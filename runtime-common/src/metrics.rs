//! The service's Prometheus metrics, in the text exposition format, with the
//! Prometheus project's Rust client (`prometheus-client`). A runtime feeds them from the
//! core's events (access and settlement events), from its worker pool (how long each piece of
//! work ran) and from its accept loop (connections refused at the caps); the gauges (jobs in
//! flight, open connections) are read from the [`Server`] when scraped.
//!
//! Served only on `METRICS_ADDR` (off by default), never on the public listener. Recording is
//! off until [`enable`] is called, so a service without `METRICS_ADDR` pays nothing for it.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `contact_requests` (`_total`) | counter | `route`, `status`, `code` (the ApiError code, or empty) |
//! | `contact_rate_limited` (`_total`) | counter | |
//! | `contact_shed` (`_total`) | counter | `reason` (`jobs_or_store` for a 503 at a cap, `connections` / `connections_per_ip` at accept) |
//! | `contact_payments` (`_total`) | counter | `outcome`: verified, refused, facilitator_unavailable, credentials_refused, used_without_record, expired_without_record (a genuine authorization too late for a job, no record: the chain judges it), judge_limited (a record-less chain reading over its limit: 503) (the check); settled, settle_refused, settle_unknown, settle_not_sent (each `/settle` attempt; not sent: it failed at DNS, connect or TLS, before its request left); confirmed_on_chain, cancelled, expired_unused, chain_undetermined (the chain's verdicts); confirmed_on_chain_without_record, unreconciled (an authorization used on chain of which the store held no record: the chain showed our transfer, or nothing could tell); cut_short (a paid job the exiting process cut) |
//! | `contact_crawl_duration_seconds` | histogram | paid extractions answered 200 |
//! | `contact_crawl_pages_fetched` | histogram | paid extractions answered 200 |
//! | `contact_work_seconds` | histogram | `kind`: payment, page, result (worker time; `page` is the extraction CPU time) |
//! | `contact_paid_jobs_in_flight` | gauge | |
//! | `contact_open_connections` | gauge | |
//! | `contact_page_memory_bytes` | gauge | bytes of the `MAX_PAGE_MEMORY` budget reserved |
//! | `contact_store_seconds` | histogram | `op`: admit, reserve, begin_settle, release, finish (round trips to the shared store, `REDIS_URL`) |
//! | `contact_store_errors` (`_total`) | counter | `op` (a shared-store command that failed or timed out) |
//! | `contact_settled_atomic_units` (`_total`) | counter | `network`, `asset`: the amounts of payments settled (`settled`, and `confirmed_on_chain` after an unknown outcome), in the asset's atomic units (10000 = 0.01 USDC) |
//! | `contact_settle_refusals` (`_total`) | counter | `reason`: the facilitator's `errorReason` on a refused `/settle` (`other` past [`MAX_REASONS`] distinct ones or for a reason that is not a short snake_case word; `none` without one) |
//! | `contact_facilitator_up` | gauge | `facilitator` (its URL, as the logs name it): 1 when its latest `GET /supported` check passed, 0 before the first check ends or after one failed |
//! | `contact_store_up` | gauge | 1 when the payment store answers (always, in-process), 0 while `/api/ready` names a shared-store (Redis) problem |
//! | `contact_ready` | gauge | 1 when `/api/ready` would answer 200 now, 0 when 503 (not ready, shedding, draining) |
//! | `contact_build_info` | gauge | `version` (semantic version of the build), `runtime` (`tokio` or `smol`); always 1 |

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use contact_core::api::ErrorCode;
use contact_core::config::PaymentConfig;
use contact_core::connections::ConnectionRefused;
use contact_core::http::routes::{path_route, Route};
use contact_core::io::{RequestEvent, SettlementEvent};
use contact_core::server::{FacilitatorHealth, Server};
use contact_core::work::Work;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// `contact_requests_total` labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: &'static str,
    status: u16,
    code: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AssetLabels {
    network: String,
    asset: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RefusalLabels {
    reason: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FacilitatorLabels {
    facilitator: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BuildLabels {
    version: &'static str,
    runtime: &'static str,
}

/// Distinct `reason` labels of `contact_settle_refusals_total` (a facilitator's words are not
/// ours to trust: more distinct reasons than this are counted as `other`).
pub const MAX_REASONS: usize = 32;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    kind: &'static str,
}

fn work_histogram() -> Histogram {
    // 100 µs … ~13 s.
    Histogram::new(exponential_buckets(0.0001, 2.0, 18))
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OpLabels {
    op: &'static str,
}

fn store_histogram() -> Histogram {
    // 50 µs … ~400 ms.
    Histogram::new(exponential_buckets(0.00005, 2.0, 14))
}

struct Metrics {
    registry: Registry,
    store: Family<OpLabels, Histogram, fn() -> Histogram>,
    store_errors: Family<OpLabels, Counter>,
    requests: Family<RequestLabels, Counter>,
    rate_limited: Counter,
    shed: Family<ReasonLabels, Counter>,
    payments: Family<OutcomeLabels, Counter>,
    crawl_duration: Histogram,
    crawl_pages: Histogram,
    work: Family<KindLabels, Histogram, fn() -> Histogram>,
    jobs_in_flight: Gauge,
    open_connections: Gauge,
    page_memory: Gauge,
    settled_units: Family<AssetLabels, Counter>,
    settle_refusals: Family<RefusalLabels, Counter>,
    /// The distinct reasons `settle_refusals` holds a series for (at most [`MAX_REASONS`]).
    refusal_reasons: std::sync::Mutex<std::collections::HashSet<String>>,
    facilitator_up: Family<FacilitatorLabels, Gauge>,
    store_up: Gauge,
    ready: Gauge,
    build_info: Family<BuildLabels, Gauge>,
}

impl Metrics {
    fn new() -> Metrics {
        let mut registry = Registry::with_prefix("contact");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "requests",
            "Requests answered, by route, HTTP status and ApiError code",
            requests.clone(),
        );
        let rate_limited = Counter::default();
        registry.register(
            "rate_limited",
            "Requests answered 429 by the per-client rate limiter",
            rate_limited.clone(),
        );
        let shed = Family::<ReasonLabels, Counter>::default();
        registry.register(
            "shed",
            "Requests or connections refused at a capacity limit",
            shed.clone(),
        );
        let payments = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "payments",
            "Payment checks (verified, refused, facilitator_unavailable, credentials_refused, used_without_record), /settle attempts (settled, settle_refused, settle_unknown, settle_not_sent), chain verdicts (confirmed_on_chain, cancelled, expired_unused, chain_undetermined), authorizations used without a record (confirmed_on_chain_without_record, unreconciled) and jobs cut short (cut_short)",
            payments.clone(),
        );
        let crawl_duration = Histogram::new(exponential_buckets(0.05, 2.0, 12));
        registry.register(
            "crawl_duration_seconds",
            "Time from request head to response of paid extractions answered 200",
            crawl_duration.clone(),
        );
        let crawl_pages = Histogram::new([1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0]);
        registry.register(
            "crawl_pages_fetched",
            "HTTP responses received per paid extraction answered 200",
            crawl_pages.clone(),
        );
        let work = Family::<KindLabels, Histogram, fn() -> Histogram>::new_with_constructor(
            work_histogram,
        );
        registry.register(
            "work_seconds",
            "Worker time per piece of CPU work (payment check, page extraction, result build)",
            work.clone(),
        );
        let jobs_in_flight = Gauge::default();
        registry.register(
            "paid_jobs_in_flight",
            "Paid jobs in flight",
            jobs_in_flight.clone(),
        );
        let open_connections = Gauge::default();
        registry.register(
            "open_connections",
            "Open client connections",
            open_connections.clone(),
        );
        let page_memory = Gauge::default();
        registry.register(
            "page_memory_bytes",
            "Bytes of the MAX_PAGE_MEMORY budget reserved by pages in flight",
            page_memory.clone(),
        );
        let store =
            Family::<OpLabels, Histogram, fn() -> Histogram>::new_with_constructor(store_histogram);
        registry.register(
            "store_seconds",
            "Round trips to the shared store (REDIS_URL), by operation",
            store.clone(),
        );
        let store_errors = Family::<OpLabels, Counter>::default();
        registry.register(
            "store_errors",
            "Shared-store commands that failed or timed out, by operation",
            store_errors.clone(),
        );
        let settled_units = Family::<AssetLabels, Counter>::default();
        registry.register(
            "settled_atomic_units",
            "Amounts of payments settled, in the asset's atomic units (10000 = 0.01 USDC), by network and asset",
            settled_units.clone(),
        );
        let settle_refusals = Family::<RefusalLabels, Counter>::default();
        registry.register(
            "settle_refusals",
            "Refused /settle calls, by the facilitator's errorReason",
            settle_refusals.clone(),
        );
        let facilitator_up = Family::<FacilitatorLabels, Gauge>::default();
        registry.register(
            "facilitator_up",
            "1 when the facilitator's latest GET /supported check passed, else 0",
            facilitator_up.clone(),
        );
        let store_up = Gauge::default();
        registry.register(
            "store_up",
            "1 when the payment store answers (always in-process), 0 during a shared-store (Redis) problem",
            store_up.clone(),
        );
        let ready = Gauge::default();
        registry.register(
            "ready",
            "1 when /api/ready would answer 200, 0 when it would answer 503",
            ready.clone(),
        );
        let build_info = Family::<BuildLabels, Gauge>::default();
        registry.register(
            "build_info",
            "The running build: its version and async runtime (always 1)",
            build_info.clone(),
        );
        Metrics {
            settled_units,
            settle_refusals,
            refusal_reasons: std::sync::Mutex::default(),
            facilitator_up,
            store_up,
            ready,
            build_info,
            store,
            store_errors,
            page_memory,
            registry,
            requests,
            rate_limited,
            shed,
            payments,
            crawl_duration,
            crawl_pages,
            work,
            jobs_in_flight,
            open_connections,
        }
    }
}

static ENABLED: AtomicBool = AtomicBool::new(false);
static METRICS: OnceLock<Metrics> = OnceLock::new();

/// Turns recording on (a runtime calls it when `METRICS_ADDR` is set), with `runtime` (`tokio`
/// or `smol`) as the `runtime` label of `contact_build_info`.
pub fn enable(runtime: &'static str) {
    let m = METRICS.get_or_init(Metrics::new);
    m.build_info
        .get_or_create(&BuildLabels {
            version: contact_core::VERSION,
            runtime,
        })
        .set(1);
    ENABLED.store(true, Ordering::Release);
}

fn metrics() -> Option<&'static Metrics> {
    if ENABLED.load(Ordering::Acquire) {
        METRICS.get()
    } else {
        None
    }
}

/// The route label of a request path: the known routes by name, anything else `other` (a
/// label per arbitrary path would let clients create unbounded series).
fn route_label(path: &str) -> &'static str {
    match path_route(path) {
        Some(Route::ExtractContact) => "extract_contact",
        Some(Route::Health) => "health",
        Some(Route::Ready) => "ready",
        Some(Route::OpenApi) => "openapi",
        Some(Route::X402Discovery) => "x402_discovery",
        Some(Route::X402Resources) => "x402_resources",
        Some(Route::McpDiscovery) => "mcp_discovery",
        // `path_route` never names a preflight (that is the method's doing).
        Some(Route::Preflight) | None => "other",
    }
}

fn code_label(code: Option<ErrorCode>) -> String {
    code.map(ErrorCode::as_str).unwrap_or_default().to_string()
}

/// Records one answered request.
pub fn observe_request(event: &RequestEvent) {
    let Some(m) = metrics() else {
        return;
    };
    let route = route_label(&event.path);
    m.requests
        .get_or_create(&RequestLabels {
            route,
            status: event.status,
            code: code_label(event.error_code),
        })
        .inc();
    if event.status == 429 {
        m.rate_limited.inc();
    }
    if event.shed {
        m.shed
            .get_or_create(&ReasonLabels {
                reason: "jobs_or_store",
            })
            .inc();
    }
    if let Some(verdict) = event.payment {
        m.payments
            .get_or_create(&OutcomeLabels {
                outcome: verdict.as_str(),
            })
            .inc();
    }
    if route == "extract_contact" && event.status == 200 && event.pages_fetched > 0 {
        m.crawl_duration
            .observe(Duration::from_millis(event.duration_ms).as_secs_f64());
        m.crawl_pages.observe(f64::from(event.pages_fetched));
    }
}

/// Records one `/settle` attempt.
pub fn observe_settlement(event: &SettlementEvent) {
    let Some(m) = metrics() else {
        return;
    };
    let outcome = match payment_outcome_label(event.outcome) {
        // The chain (CHAIN_RPC_URL) could not tell whether the authorization was used.
        "settle_unknown" if event.from_chain => "chain_undetermined",
        outcome => outcome,
    };
    m.payments.get_or_create(&OutcomeLabels { outcome }).inc();
    if matches!(outcome, "settled" | "confirmed_on_chain") {
        // Money that came in through this process. `confirmed_on_chain_without_record` is
        // left out: that payment was settled (and counted) before its record was lost.
        if let Ok(units) = event.amount.parse::<u64>() {
            m.settled_units
                .get_or_create(&AssetLabels {
                    network: event.network.clone(),
                    asset: event.asset.clone(),
                })
                .inc_by(units);
        }
    }
    if outcome == "settle_refused" {
        let mut labels = RefusalLabels {
            reason: refusal_label(event.reason.as_deref()),
        };
        let mut reasons = m
            .refusal_reasons
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !reasons.contains(&labels.reason) {
            if reasons.len() < MAX_REASONS {
                reasons.insert(labels.reason.clone());
            } else {
                labels.reason = "other".to_string();
            }
        }
        drop(reasons);
        m.settle_refusals.get_or_create(&labels).inc();
    }
}

/// The `reason` label of a refused `/settle`: the facilitator's `errorReason` when it is a
/// short snake_case word (x402's error reasons are, e.g. `insufficient_funds`), `none` without
/// one, `other` for anything else (free text would make a series per message).
fn refusal_label(reason: Option<&str>) -> String {
    match reason {
        None => "none".to_string(),
        Some(word)
            if (1..=64).contains(&word.len())
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') =>
        {
            word.to_string()
        }
        Some(_) => "other".to_string(),
    }
}

/// The `contact_payments_total` label of an audit line's outcome word (docs/payments.md,
/// "Audit"): a `/settle` attempt's, a chain verdict's, a used authorization's without a record,
/// or a job cut short.
fn payment_outcome_label(word: &str) -> &'static str {
    match word {
        "settled" => "settled",
        "refused" => "settle_refused",
        // A `/settle` that failed before its request was sent (DNS, connect, TLS): no
        // broadcast of ours.
        "not_sent" => "settle_not_sent",
        // The chain's verdicts (CHAIN_RPC_URL) and jobs cut short by the process exiting.
        "confirmed_on_chain" => "confirmed_on_chain",
        // An authorization used on chain that the payment store held no record of: the
        // chain showed it paid us, or nothing could tell (docs/payments.md).
        "confirmed_on_chain_without_record" => "confirmed_on_chain_without_record",
        "unreconciled" => "unreconciled",
        "cancelled" => "cancelled",
        "expired_unused" => "expired_unused",
        "cut_short" => "cut_short",
        _ => "settle_unknown",
    }
}

/// The kind label of a piece of work.
pub fn work_kind(work: &Work) -> &'static str {
    match work {
        Work::Payment(_) => "payment",
        Work::Page(_) => "page",
        Work::Result(_) => "result",
    }
}

/// Records how long a piece of work of `kind` ([`work_kind`]) ran on its worker.
pub fn observe_work(kind: &'static str, took: Duration) {
    if let Some(m) = metrics() {
        m.work
            .get_or_create(&KindLabels { kind })
            .observe(took.as_secs_f64());
    }
}

/// Records one shared-store command: operation `op` (`StoreOp::name`), how long it took, and
/// whether it answered.
pub fn observe_store(op: &'static str, took: Duration, answered: bool) {
    if let Some(m) = metrics() {
        m.store
            .get_or_create(&OpLabels { op })
            .observe(took.as_secs_f64());
        if !answered {
            m.store_errors.get_or_create(&OpLabels { op }).inc();
        }
    }
}

/// Records a connection closed at accept.
pub fn observe_refused_connection(refusal: ConnectionRefused) {
    if let Some(m) = metrics() {
        let reason = match refusal {
            ConnectionRefused::TooManyConnections => "connections",
            ConnectionRefused::TooManyFromThisAddress => "connections_per_ip",
        };
        m.shed.get_or_create(&ReasonLabels { reason }).inc();
    }
}

/// The metrics in the Prometheus text format (version 0.0.4 compatible OpenMetrics text),
/// with the gauges read from `server` now. Empty when recording is off.
pub fn render(server: &Server) -> String {
    let Some(m) = metrics() else {
        return String::new();
    };
    m.jobs_in_flight
        .set(i64::try_from(server.jobs_in_flight()).unwrap_or(i64::MAX));
    m.open_connections
        .set(i64::try_from(server.connections_open()).unwrap_or(i64::MAX));
    m.page_memory
        .set(i64::try_from(server.page_memory_used()).unwrap_or(i64::MAX));
    let facilitators: Vec<String> = match &server.config().payment {
        PaymentConfig::Ready { facilitators, .. } => facilitators
            .iter()
            .map(|f| contact_core::config::endpoint_label(&f.url))
            .collect(),
        PaymentConfig::Incomplete(_) => Vec::new(),
    };
    for (index, facilitator) in facilitators.into_iter().enumerate() {
        let up = server.facilitator_health(index) == FacilitatorHealth::Supported;
        m.facilitator_up
            .get_or_create(&FacilitatorLabels { facilitator })
            .set(i64::from(up));
    }
    let store_up = server.store_problem().is_none();
    m.store_up.set(i64::from(store_up));
    // What `/api/ready` answers (docs/operations.md, "Readiness").
    let ready = matches!(server.config().payment, PaymentConfig::Ready { .. })
        && store_up
        && server.facilitator_problems().is_empty()
        && server.shedding().is_empty();
    m.ready.set(i64::from(ready));
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut out, &m.registry);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_outside_the_known_ones_share_one_label() {
        assert_eq!(route_label("/api/v1/extract-contact"), "extract_contact");
        assert_eq!(route_label("/api/healthz"), "health");
        assert_eq!(route_label("/wp-admin/../../etc/passwd"), "other");
        assert_eq!(code_label(Some(ErrorCode::RateLimited)), "RATE_LIMITED");
        assert_eq!(code_label(None), "");
    }

    #[test]
    fn refusal_reasons_are_short_snake_case_words_or_other() {
        assert_eq!(
            refusal_label(Some("insufficient_funds")),
            "insufficient_funds"
        );
        assert_eq!(refusal_label(None), "none");
        assert_eq!(refusal_label(Some("Nonce already used!")), "other");
        assert_eq!(refusal_label(Some("")), "other");
        assert_eq!(refusal_label(Some(&"a".repeat(65))), "other");
    }

    /// Money in (`settled`, and `confirmed_on_chain` after an unknown outcome) is summed per
    /// network and asset; a payment confirmed without its record was counted when it first
    /// settled, and an unknown outcome is no money yet. Refusals count by reason, at most
    /// [`MAX_REASONS`] distinct ones. The gauges come from the server when scraped.
    #[test]
    fn settled_amounts_refusal_reasons_and_state_gauges_are_rendered() {
        enable("test-runtime");
        let event = |outcome: &'static str, amount: &str, reason: Option<&str>| SettlementEvent {
            request_id: "req_test".into(),
            payer: "0xpayer".into(),
            nonce: "0x00".into(),
            outcome,
            amount: amount.into(),
            network: "eip155:424242".into(),
            asset: "0xasset".into(),
            pay_to: "0xpayto".into(),
            from_chain: false,
            reason: reason.map(str::to_string),
            transaction: None,
            attempt: 1,
            facilitator: "http://127.0.0.1:1/".into(),
            client_gone: false,
            extension_responses: None,
        };
        observe_settlement(&event("settled", "10000", None));
        observe_settlement(&event("confirmed_on_chain", "2500", None));
        observe_settlement(&event("confirmed_on_chain_without_record", "9999", None));
        observe_settlement(&event("unknown", "7777", None));
        let mut undetermined = event("unknown", "10000", Some("node behind"));
        undetermined.from_chain = true;
        observe_settlement(&undetermined);
        for n in 0..MAX_REASONS + 3 {
            observe_settlement(&event("refused", "1", Some(&format!("reason_{n}"))));
        }
        observe_settlement(&event("refused", "1", Some("reason_0")));
        let config = contact_core::config::Config::from_env_map(&Default::default()).unwrap();
        let server = Server::new(
            config,
            [0; 32],
            std::time::Instant::now(),
            Duration::from_secs(1_800_000_000),
        );
        let text = render(&server);
        for expected in [
            "contact_settled_atomic_units_total{network=\"eip155:424242\",asset=\"0xasset\"} 12500\n",
            "contact_settle_refusals_total{reason=\"reason_0\"} 2\n",
            "contact_payments_total{outcome=\"chain_undetermined\"} 1\n",
            "contact_settle_refusals_total{reason=\"other\"} 3\n",
            "contact_build_info{version=\"",
            "\",runtime=\"test-runtime\"} 1\n",
            // No payments configured: not ready; the in-process store always answers.
            "\ncontact_ready 0\n",
            "\ncontact_store_up 1\n",
        ] {
            assert!(text.contains(expected), "{expected} missing in:\n{text}");
        }
        assert!(!text.contains("reason_33"), "{text}");
    }

    #[test]
    fn each_audit_outcome_has_its_own_payment_label() {
        for (word, label) in [
            ("settled", "settled"),
            ("refused", "settle_refused"),
            ("unknown", "settle_unknown"),
            ("not_sent", "settle_not_sent"),
            ("confirmed_on_chain", "confirmed_on_chain"),
            (
                "confirmed_on_chain_without_record",
                "confirmed_on_chain_without_record",
            ),
            ("unreconciled", "unreconciled"),
            ("cancelled", "cancelled"),
            ("expired_unused", "expired_unused"),
            ("cut_short", "cut_short"),
        ] {
            assert_eq!(payment_outcome_label(word), label, "{word}");
        }
    }
}
