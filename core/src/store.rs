//! The paid route's shared state — the payment store ([`crate::payment::store`]) and the
//! per-client rate limiter ([`crate::limiter`]) — as effects (docs/operations.md, "Running
//! several instances"). The exchange asks for a [`StoreOp`] and gets a [`StoreReply`] or a
//! [`StoreFailure`], like a DNS answer: every call may fail or come late, and the core fails
//! closed (a 503 with `Retry-After` before any facilitator call; never a charge without a
//! record).
//!
//! Two implementations keep the same rules, each operation one atomic step:
//! - [`LocalStore`], in the process (the default): the exchange applies it at once, without an
//!   output;
//! - a store shared by several instances (Redis, in the runtimes): the exchange emits
//!   `Output::Store` and waits for `Input::Stored`, at most [`STORE_TIMEOUT`].
//!
//! A paid request costs at most four operations: [`StoreOp::Admit`] (rate limit and recall of a
//! known payment), [`StoreOp::Reserve`], [`StoreOp::BeginSettle`] (written before the first
//! `/settle`) and [`StoreOp::Finish`]; requests without a payment cost one `Admit` per batch
//! of up to [`crate::limiter::LEASE_TOKENS`] of them with a shared store (the surplus is leased in the
//! instance: [`crate::limiter::LocalLeases`]), one each in the process.

use std::net::IpAddr;
use std::time::Duration;

use crate::limiter::RateLimiter;
use crate::payment::store::{
    AuthorizationKey, Claim, Fingerprint, KeptResponse, Lease, MemoryStore, PaymentStore, Record,
    ReserveError, Stage,
};

/// Longest the core waits for the answer to one store operation (docs/operations.md: 200 ms);
/// past it the operation counts as failed.
pub const STORE_TIMEOUT: Duration = Duration::from_millis(200);

/// `Retry-After` of a 503 when the store failed, in seconds.
pub const STORE_RETRY_AFTER: u64 = 1;

/// Names one store operation of an exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StoreId(pub u32);

/// One operation on the shared state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreOp {
    /// The start of every paid-route request: take a rate-limit token for the client and, for
    /// a request that carries a payment, find what the store knows about it (and claim a
    /// settlement to redo). Answer: [`StoreReply::Admission`].
    Admit(Admit),
    /// [`PaymentStore::reserve`]. Answer: [`StoreReply::Reserved`].
    Reserve {
        /// The authorization.
        key: AuthorizationKey,
        /// What a retry must match.
        fingerprint: Fingerprint,
        /// The x402 `payment-identifier` id, if any.
        payment_id: Option<String>,
        /// The base URL of the facilitator chosen for a new payment (a taken-over reservation
        /// keeps its own).
        facilitator: String,
        /// The authorization's `validBefore`, unix seconds.
        valid_before: u64,
        /// This instance and its lease.
        lease: Lease,
        /// Unix seconds now.
        unix_now: u64,
        /// The head block number to note as the one at which the authorization was first seen
        /// ([`PaymentStore::note_first_seen`]), if the service knows a recent one.
        first_seen_block: Option<u64>,
    },
    /// [`PaymentStore::begin_settle`]. Answer: [`StoreReply::SettleBegun`].
    BeginSettle {
        /// The authorization.
        key: AuthorizationKey,
        /// The built 200.
        kept: KeptResponse,
        /// This instance and its lease for the settlement.
        lease: Lease,
    },
    /// [`PaymentStore::release`]. Not waited for: its answer is [`StoreReply::Done`].
    Release {
        /// The authorization.
        key: AuthorizationKey,
        /// The lease id the record is held under.
        lease: u64,
    },
    /// [`PaymentStore::finish`]. Not waited for: its answer is [`StoreReply::Done`].
    Finish {
        /// The authorization.
        key: AuthorizationKey,
        /// The lease id the record is held under (ignored for `Settled`, which always applies).
        lease: u64,
        /// `Settled`, `Unknown` or `Spent`.
        stage: Stage,
    },
}

impl StoreOp {
    /// Whether the exchange waits for the answer. A settled outcome is recorded before its 200
    /// is sent (so a retry through any instance finds it); the other outcomes and `Release` are
    /// written and not waited for: the answer changes nothing the exchange does next, and a
    /// write that is lost leaves a record whose lease runs out and is taken over
    /// (docs/payments.md).
    pub fn awaits_answer(&self) -> bool {
        match self {
            StoreOp::Admit(_) | StoreOp::Reserve { .. } | StoreOp::BeginSettle { .. } => true,
            StoreOp::Finish { stage, .. } => matches!(stage, Stage::Settled(_)),
            StoreOp::Release { .. } => false,
        }
    }

    /// Whether the operation is moot once the core stopped waiting for it (its deadline
    /// passed): the core has answered without it, so a shared store skips it rather than run
    /// it late. Outcomes are never moot: they are recorded however late.
    pub fn moot_when_late(&self) -> bool {
        matches!(
            self,
            StoreOp::Admit(_) | StoreOp::Reserve { .. } | StoreOp::BeginSettle { .. }
        )
    }

    /// Lower-case name, for metrics and logs.
    pub fn name(&self) -> &'static str {
        match self {
            StoreOp::Admit(_) => "admit",
            StoreOp::Reserve { .. } => "reserve",
            StoreOp::BeginSettle { .. } => "begin_settle",
            StoreOp::Release { .. } => "release",
            StoreOp::Finish { .. } => "finish",
        }
    }
}

/// What [`StoreOp::Admit`] asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admit {
    /// The client (rate limits group IPv6 by /64: [`crate::limiter::ClientKey`]).
    pub client: IpAddr,
    /// Milliseconds since the UNIX epoch now.
    pub unix_ms: u64,
    /// The payment to recall, when the request carries one.
    pub recall: Option<Recall>,
    /// Rate-limit tokens asked for (≥ 1): without a recall, the store takes up to this many
    /// when the client is well under its limit ([`crate::limiter::grant`]: at least one, at
    /// most those available / [`crate::limiter::LEASE_SHARE`]) and says how many in [`Admission::Admitted`]; the caller
    /// keeps the surplus as a lease ([`crate::limiter::LocalLeases`]). With a recall, one.
    pub tokens: u32,
}

/// A payment to look for in [`StoreOp::Admit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recall {
    /// Its `payment-identifier` id, looked up first.
    pub payment_id: Option<String>,
    /// The authorization it claims (`from`, `nonce`), looked up when the id is unknown.
    pub key: Option<AuthorizationKey>,
    /// The request's fingerprint.
    pub fingerprint: Fingerprint,
    /// The lease to settle under, if the record is a settlement to redo.
    pub lease: Lease,
}

/// The answer to [`StoreOp::Admit`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // it travels boxed: `StoreReply::Admission`
pub enum Admission {
    /// No record of the payment (or none asked): tokens were taken; the normal order goes on.
    Admitted {
        /// Tokens taken (1 ≤ `tokens` ≤ [`Admit::tokens`]): one for this request, the rest
        /// for the caller's lease.
        tokens: u32,
    },
    /// The client is over its rate limit: `Retry-After` seconds (≥ 1).
    Limited {
        /// Seconds until a token is available.
        retry_after: u64,
    },
    /// A record of the payment that was not claimed. With the request's fingerprint it is
    /// answered from the record (no token taken); with another one a token was taken.
    Known {
        /// Its authorization.
        key: AuthorizationKey,
        /// The record as it stands.
        record: Record,
        /// Found by the payment identifier (not by the authorization).
        by_id: bool,
    },
    /// A settlement to redo (`Unknown`, or `Settling` whose lease ran out), now
    /// `Settling` under the recall's lease: the caller settles it. A token was taken.
    Claimed {
        /// Its authorization.
        key: AuthorizationKey,
        /// The record before the claim (its `valid_before`).
        record: Record,
        /// The kept 200.
        kept: KeptResponse,
    },
}

/// The answer to a [`StoreOp`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreReply {
    /// To [`StoreOp::Admit`] (boxed: a record with its kept response is large).
    Admission(Box<Admission>),
    /// To [`StoreOp::Reserve`]: made (with the base URL of the facilitator the record is bound
    /// to: the one asked for, or on a take-over the one that first saw the authorization), or
    /// refused for a budget or a payment id.
    Reserved(Result<String, ReserveError>),
    /// To [`StoreOp::Reserve`]: the authorization has a record already; here it is (the same
    /// request sent twice at once is answered from it).
    Exists(Box<Record>),
    /// To [`StoreOp::BeginSettle`]: whether the record was still this instance's.
    SettleBegun(bool),
    /// To `Release` and `Finish`.
    Done,
}

/// Why a store operation has no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreFailure {
    /// The store could not be reached or refused the operation (the runtime's words).
    Unavailable(String),
    /// No answer within [`STORE_TIMEOUT`].
    Timeout,
}

impl std::fmt::Display for StoreFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreFailure::Unavailable(why) => write!(f, "payment store unavailable: {why}"),
            StoreFailure::Timeout => write!(
                f,
                "payment store gave no answer within {} ms",
                STORE_TIMEOUT.as_millis()
            ),
        }
    }
}

/// The in-process shared state: a payment store and a rate limiter behind one lock.
#[derive(Debug)]
pub struct LocalStore {
    /// Replay guard and kept results (docs/payments.md).
    pub payments: Box<dyn PaymentStore>,
    /// Token buckets per client.
    pub limiter: RateLimiter,
}

impl LocalStore {
    /// A [`MemoryStore`] with its default bounds and `limiter`.
    pub fn new(limiter: RateLimiter) -> LocalStore {
        LocalStore {
            payments: Box::new(MemoryStore::default()),
            limiter,
        }
    }

    /// Carries out `op` as one atomic step.
    pub fn apply(&mut self, op: StoreOp) -> StoreReply {
        match op {
            StoreOp::Admit(admit) => StoreReply::Admission(Box::new(self.admit(admit))),
            StoreOp::Reserve {
                key,
                fingerprint,
                payment_id,
                facilitator,
                valid_before,
                lease,
                unix_now,
                first_seen_block,
            } => {
                let reserved = self.payments.reserve(
                    &key,
                    fingerprint,
                    payment_id.as_deref(),
                    &facilitator,
                    valid_before,
                    lease,
                    unix_now,
                );
                if let (Ok(_), Some(block)) = (&reserved, first_seen_block) {
                    self.payments.note_first_seen(&key, lease.id, block);
                }
                match reserved {
                    Err(ReserveError::AlreadyUsed) => match self.payments.look_up(&key, unix_now) {
                        Some(record) => StoreReply::Exists(Box::new(record)),
                        None => StoreReply::Reserved(reserved),
                    },
                    reserved => StoreReply::Reserved(reserved),
                }
            }
            StoreOp::BeginSettle { key, kept, lease } => {
                StoreReply::SettleBegun(self.payments.begin_settle(&key, kept, lease))
            }
            StoreOp::Release { key, lease } => {
                self.payments.release(&key, lease);
                StoreReply::Done
            }
            StoreOp::Finish { key, lease, stage } => {
                self.payments.finish(&key, lease, stage);
                StoreReply::Done
            }
        }
    }

    fn admit(&mut self, admit: Admit) -> Admission {
        let unix_now = admit.unix_ms / 1000;
        let mut found = None;
        if let Some(recall) = &admit.recall {
            let by_id = recall
                .payment_id
                .as_deref()
                .and_then(|id| self.payments.key_of_payment_id(id, unix_now));
            let (key, by_id) = match by_id {
                Some(key) => (Some(key), true),
                None => (recall.key.clone(), false),
            };
            if let Some(key) = key {
                if let Some(record) = self.payments.look_up(&key, unix_now) {
                    found = Some((key, record, by_id, recall));
                }
            }
        }
        let Some((key, record, by_id, recall)) = found else {
            return self.take_tokens(&admit, admit.tokens);
        };
        let same = record.fingerprint == recall.fingerprint;
        if same && record.stage == Stage::Reserved && record.lease.until < unix_now {
            // Its instance died mid-job (no money moved before `/settle`): the normal order
            // runs the job again, and the reservation takes the record over.
            return self.take_tokens(&admit, 1);
        }
        let redo = same
            && match record.stage {
                Stage::Unknown(_) => true,
                Stage::Settling(_) => record.lease.until < unix_now,
                _ => false,
            };
        if same && !redo {
            // A known request answered from its record: no token.
            return Admission::Known { key, record, by_id };
        }
        if let Some(limited) = self.take_token(&admit) {
            return limited;
        }
        if !redo {
            return Admission::Known { key, record, by_id };
        }
        match self
            .payments
            .claim(&key, recall.fingerprint, recall.lease, unix_now)
        {
            Claim::Claimed(kept) => Admission::Claimed { key, record, kept },
            Claim::NotClaimed(Some(record)) => Admission::Known { key, record, by_id },
            Claim::NotClaimed(None) => Admission::Admitted { tokens: 1 },
        }
    }

    /// Takes up to `want` tokens (one with a recall): `Admitted` with how many, or `Limited`.
    fn take_tokens(&mut self, admit: &Admit, want: u32) -> Admission {
        let want = if admit.recall.is_some() { 1 } else { want };
        let now = Duration::from_millis(admit.unix_ms);
        match self.limiter.take(admit.client, now, want) {
            Ok(tokens) => Admission::Admitted { tokens },
            Err(retry_after) => Admission::Limited { retry_after },
        }
    }

    /// Takes a token: `None` when taken, the `Limited` answer otherwise.
    fn take_token(&mut self, admit: &Admit) -> Option<Admission> {
        let now = Duration::from_millis(admit.unix_ms);
        self.limiter
            .check(admit.client, now)
            .err()
            .map(|retry_after| Admission::Limited { retry_after })
    }
}
