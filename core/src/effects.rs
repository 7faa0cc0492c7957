//! What the core asks a runtime to do ([`Output`]), with the names and records its outputs
//! carry: which outbound connection ([`FetchId`]), how an IO step failed ([`IoFailure`]), the
//! access log's line ([`RequestEvent`]) and the settlement audit line ([`SettlementEvent`]).
//! Which input answers which output, and the rules of a runtime's loop, are the runtime
//! contract's ([`crate::io`], which re-exports all of these); this module only names them, below
//! the parts of the core that emit them (one fetch's state machine, the exchange).

use std::net::IpAddr;

use crate::api::ErrorCode;
use crate::net_policy::ApprovedAddr;
use crate::store::{StoreId, StoreOp};
use crate::work::{Work, WorkId};

/// The outcome of a request's payment check (for metrics and logs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentVerdict {
    /// Passed the local checks and the facilitator's `/verify`.
    Verified,
    /// Refused by the local checks or by `/verify` (402; nothing consumed for a refusal).
    Refused,
    /// `/verify` failed or answered garbage (503; the reservation is released, a retry is
    /// verified again: docs/payments.md, "No answer is not a refusal").
    FacilitatorUnavailable,
    /// The facilitator refused the service's own credentials (401 or 403 on `/verify`; 503,
    /// the authorization stays usable): a wrong, revoked or missing API key.
    CredentialsRefused,
    /// `/verify` reported the authorization already used and the payment store held no record
    /// of it: the chain judges, or the answer is 503 (never a 402; docs/payments.md).
    UsedWithoutRecord,
    /// The local window check found the authorization genuine but too late, the payment store
    /// held no record of it, and the chain judges it before any 402 (docs/payments.md, "An
    /// expired authorization without a record").
    ExpiredWithoutRecord,
    /// A chain reading for a payment without a record was over the client's or the instance's
    /// limit: 503 with `Retry-After`, never a 402 (docs/payments.md, "The judge is no
    /// amplifier").
    JudgeLimited,
}

impl PaymentVerdict {
    /// Lower-case name, for logs and metric labels.
    pub fn as_str(self) -> &'static str {
        match self {
            PaymentVerdict::Verified => "verified",
            PaymentVerdict::Refused => "refused",
            PaymentVerdict::FacilitatorUnavailable => "facilitator_unavailable",
            PaymentVerdict::CredentialsRefused => "credentials_refused",
            PaymentVerdict::UsedWithoutRecord => "used_without_record",
            PaymentVerdict::ExpiredWithoutRecord => "expired_without_record",
            PaymentVerdict::JudgeLimited => "judge_limited",
        }
    }
}

/// Names one outbound connection of an exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FetchId(pub u32);

/// Why an IO step failed (the runtime's view; mapped to `FETCH_FAILED` or 503 by the core).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IoFailure {
    /// The name does not resolve.
    Dns(String),
    /// TCP connection refused or reset.
    Refused,
    /// TLS handshake or certificate failure.
    Tls(String),
    /// Anything else.
    Other(String),
}

/// Something the runtime must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Write these bytes to the client.
    SendToClient(Vec<u8>),
    /// Close the client connection (after writing what was queued).
    CloseClient,
    /// Resolve `host` (A and AAAA) for `fetch`; answer with `Input::Resolved`.
    Resolve {
        /// Which fetch.
        fetch: FetchId,
        /// The name to resolve.
        host: String,
        /// The port that will be used.
        port: u16,
    },
    /// Connect to exactly `addr`; with `tls`, run a TLS handshake with that SNI name.
    Connect {
        /// Which fetch.
        fetch: FetchId,
        /// The checked address.
        addr: ApprovedAddr,
        /// SNI host name for https.
        tls: Option<String>,
    },
    /// Write these bytes to the outbound connection.
    SendToFetch {
        /// Which fetch.
        fetch: FetchId,
        /// The bytes.
        data: Vec<u8>,
    },
    /// Close the outbound connection; ignore anything more from it.
    CloseFetch {
        /// Which fetch.
        fetch: FetchId,
    },
    /// Run `work.run()` on a worker (never on an IO thread, never under a lock) and answer
    /// with `Input::WorkDone`.
    Work {
        /// Which work.
        id: WorkId,
        /// The work.
        work: Work,
    },
    /// The core no longer waits for this work: skip it if it has not started, and do not
    /// answer it.
    CancelWork {
        /// Which work.
        id: WorkId,
    },
    /// Carry `op` out on the shared store (only when the server's store is shared:
    /// [`crate::server::Server::share_store`]) and answer with `Input::Stored`. Operations of
    /// one exchange may run concurrently; each is one atomic step on the store.
    Store {
        /// Which operation.
        id: StoreId,
        /// The operation.
        op: StoreOp,
    },
    /// A finished request, for the access log.
    Event(RequestEvent),
    /// One `/settle` attempt, for the audit log (docs/payments.md: every attempt is
    /// logged). Runtimes write it at once and never drop it.
    Settlement(SettlementEvent),
}

/// The audit line of one `/settle` attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettlementEvent {
    /// The request that settled.
    pub request_id: String,
    /// Payer address (`0x` lower-case hex).
    pub payer: String,
    /// EIP-3009 nonce (`0x` + 64 hex digits).
    pub nonce: String,
    /// `settled`, `refused` or `unknown`.
    pub outcome: &'static str,
    /// The authorization's amount in the asset's atomic units (decimal; 10000 = 0.01 USDC),
    /// as the payment terms it was judged against ask.
    pub amount: String,
    /// CAIP-2 network of the payment (e.g. `eip155:8453`).
    pub network: String,
    /// Token contract of the payment (`0x` hex).
    pub asset: String,
    /// The address the payment goes to (`PAY_TO` when it was judged).
    pub pay_to: String,
    /// Whether this is a reading of the chain (`CHAIN_RPC_URL`) rather than a `/settle`
    /// answer; with outcome `unknown` it means the chain could not tell.
    pub from_chain: bool,
    /// The facilitator's `errorReason`, when it gave one.
    pub reason: Option<String>,
    /// Transaction hash, when the facilitator gave one.
    pub transaction: Option<String>,
    /// 1 for the first `/settle` of this request, 2 for the retry after an unknown outcome.
    pub attempt: u8,
    /// The facilitator the authorization is bound to (the one that first saw it), as
    /// [`crate::config::endpoint_label`] names it: where to ask about an unknown outcome.
    pub facilitator: String,
    /// Whether the client had left before the outcome was known.
    pub client_gone: bool,
    /// The facilitator's `EXTENSION-RESPONSES` header on its `/settle` answer, when it sent
    /// one (how it handled the payment's extensions, e.g. Bazaar cataloguing), as sent (at
    /// most 1 KiB of printable ASCII).
    pub extension_responses: Option<String>,
}

/// One structured log line per request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestEvent {
    /// `X-Request-Id`.
    pub request_id: String,
    /// HTTP method.
    pub method: String,
    /// Path.
    pub path: String,
    /// Status sent.
    pub status: u16,
    /// Error code, for JSON errors.
    pub error_code: Option<ErrorCode>,
    /// Milliseconds from request head to response.
    pub duration_ms: u64,
    /// Page responses received.
    pub pages_fetched: u32,
    /// Payer address, when a payment was verified.
    pub payer: Option<String>,
    /// Settlement transaction, when paid.
    pub transaction: Option<String>,
    /// Whether the client had left: the response was kept (a paid job) or dropped, not sent.
    pub client_gone: bool,
    /// The client's address: the TCP peer, or the address a trusted proxy forwarded.
    pub client: IpAddr,
    /// What this request's payment check concluded, when it had one (local check and
    /// `/verify`; a replayed kept response has none).
    pub payment: Option<PaymentVerdict>,
    /// Whether the request was shed: answered 503 with `Retry-After` at a capacity limit (paid
    /// jobs at `MAX_CONCURRENT_JOBS`, the payment store full).
    pub shed: bool,
    /// Pages left out because their extraction took longer than
    /// [`crate::budget::PAGE_WORK_BUDGET`].
    pub pages_too_costly: u32,
    /// Why the request failed, for an operator: the homepage's fetch, or a facilitator call
    /// with no usable reply — the runtime's IO failure or the fetch step that timed out ("dns:
    /// …", "tcp: connection refused", "tls: …", "http 503", "redirect: …", "http: no response
    /// in time"); the API code stays `FETCH_FAILED` (or `PRIVATE_ADDRESS`, 503, …).
    pub cause: Option<String>,
}
