//! The request's time budget, in one place: how long a client has to send its request, how
//! long a paid job's parts may take (the crawl, each page, each page's extraction, the result
//! build, the settlement and the chain reading), the margin every `/settle` keeps before the
//! authorization's `validBefore`, and what follows from their sum: the least validity an
//! authorization must bring, the leases of a job's payment record and the drain grace
//! (docs/contract.md "Limits", docs/payments.md "The window"); and the facilitator check's
//! interval and timeout. The payment rules and the exchange both read these; neither defines
//! one.

use std::time::Duration;

/// Time a client has to send a complete request head (and, between requests, to start one).
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Time a client has to send the body after the head.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// Whole paid job up to the settlement, from the request head (docs/contract.md: 30 s).
pub const JOB_TIMEOUT: Duration = Duration::from_secs(30);
/// One page, all hops included (docs/contract.md: 15 s).
pub const PAGE_TIMEOUT: Duration = Duration::from_secs(15);
/// Longest a page's decoding and extraction may run on a worker, in CPU time of the worker
/// thread (a CPU budget per page; a worker kept waiting by a busy machine does not
/// use it up). The runtime reports how long each piece of work ran (`Input::WorkDone::took`); an
/// extra page over the budget is left out of the result, a homepage over it ends the job with
/// 422 `RESPONSE_TOO_LARGE` ([`crate::api::Failure::TooCostly`]), never settled. The costliest crafted
/// 2 MiB pages (`benches/pathological`) take under 0.3 s in a release build, so only a bug
/// or a class of page nobody has measured reaches it.
pub const PAGE_WORK_BUDGET: Duration = Duration::from_secs(3);
/// The result build (merge and serialisation, on a worker) must end by the job deadline — so
/// the settlement budget still fits in the authorization's validity — but gets at least this
/// long after the crawl; later, the job is answered 500 and not charged.
pub const MIN_BUILD_TIME: Duration = Duration::from_secs(5);
/// The settlement's own budget, from its first `/settle`, whatever is left of the job deadline
/// (docs/payments.md: 15 s).
pub const SETTLE_BUDGET: Duration = Duration::from_secs(15);
/// Every `/settle` of a job ends this long before the authorization's `validBefore`: the
/// reference facilitator refuses to settle within 6 s of it by its own clock (x402 reference
/// `verifyEIP3009` check 7: `validBefore >= now + 6`), USDC refuses a transfer at or after
/// it, and the facilitator's clock and the chain's may trail ours: 4 s of room for skew.
pub const SETTLE_MARGIN: Duration = Duration::from_secs(10);
/// Pause before the second `/settle` after an unknown outcome (docs/payments.md).
pub const SETTLE_RETRY_DELAY: Duration = Duration::from_secs(2);
/// Time the chain reading (up to four JSON-RPC calls) gets, after the settlement's attempts.
pub const CHAIN_READ_BUDGET: Duration = Duration::from_secs(5);
/// Seconds of validity an authorization must still have when it arrives: the sum of the
/// job's parts — the crawl (30 s), the result build (5 s), the settlement budget (15 s) and the
/// margin every `/settle` keeps before `validBefore` (10 s: the reference facilitator refuses a
/// settlement within 6 s of `validBefore` by its own clock, x402 reference `verifyEIP3009`
/// check 7, and clocks differ) — so a job we
/// start can always be settled inside the authorization (docs/payments.md, "The window").
pub const MIN_VALIDITY_SECONDS: u64 = JOB_TIMEOUT.as_secs()
    + MIN_BUILD_TIME.as_secs()
    + SETTLE_BUDGET.as_secs()
    + SETTLE_MARGIN.as_secs();
/// Seconds beyond `maxTimeoutSeconds` that `validBefore` may lie ahead (client clock skew).
/// Bounds how long an authorization — and so its payment record — can live.
pub const VALIDITY_SLACK_SECONDS: u64 = 60;
/// How long a reservation is its instance's before another may take it over (its instance
/// died mid-job): the job's whole time to its settlement, with a margin (docs/payments.md).
pub const RESERVE_LEASE: Duration =
    Duration::from_secs(JOB_TIMEOUT.as_secs() + MIN_BUILD_TIME.as_secs() + 10);
/// How long a settlement is its instance's before another may settle again (its instance
/// died mid-settlement): the settlement budget and the chain reading, with a margin.
pub const SETTLE_LEASE: Duration =
    Duration::from_secs(SETTLE_BUDGET.as_secs() + CHAIN_READ_BUDGET.as_secs() + 5);
/// How long a draining service waits for its paid jobs before it exits (docs/operations.md,
/// "Drain"): a job's crawl, its result build and its settlement budget, plus 10 s (the chain
/// reading, 5 s, fits inside them).
pub const DRAIN_GRACE: Duration = Duration::from_secs(
    JOB_TIMEOUT.as_secs() + MIN_BUILD_TIME.as_secs() + SETTLE_BUDGET.as_secs() + 10,
);
/// How often a runtime starts the facilitator check behind readiness: at start-up, then this long after each
/// check ended.
pub const FACILITATOR_CHECK_INTERVAL: Duration = Duration::from_secs(60);
/// The whole check (DNS, connect, TLS, answer); no answer by then is "unreachable".
pub const FACILITATOR_CHECK_TIMEOUT: Duration = Duration::from_secs(10);
