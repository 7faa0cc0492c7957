//! The payment store (docs/payments.md): one record per EIP-3009 authorization
//! `(network, asset, from, nonce)` from the moment it passes the local checks. It is both the
//! replay guard (one authorization buys one job) and the result store (a paid 200 is kept, so
//! the same `PAYMENT-SIGNATURE` gets it again).
//!
//! ```text
//! reserve ─▶ Reserved ──200 built──▶ Settling ──settled──▶ Settled (200 kept)
//!   (lease id, until)│                  │  ▲ └──outcome unknown──▶ Unknown (200 kept)
//!   /verify refused: released          │  └─────────claim──────────────┘
//!   job failed: Spent                  └──refused──▶ Spent
//! ```
//!
//! Fencing: a `Reserved` or `Settling` record carries the lease of the reservation or claim
//! working on it — a random id, new for every reservation and every claim, and until when
//! (unix seconds). Only a write with that lease id moves it on (not merely one from the same
//! instance: a slow job and a takeover on one instance are two leases); once its lease
//! has run out (the instance died), a retry with the same fingerprint takes it over: a
//! `Reserved` record runs its job again (no money moved before `/settle`), a `Settling` one is
//! settled again, like an `Unknown` one. `Settling` is written *before* the first `/settle`,
//! so an instance that dies mid-settlement leaves a record with the result, never nothing.
//!
//! Lifetimes: a record that holds a result (or may still get one) lives until its
//! `validBefore` + [`RETENTION_SECONDS`]; one whose settlement outcome is unknown until
//! `validBefore` + [`UNKNOWN_RETENTION_SECONDS`] (the money may still have moved, and only a
//! record keeps a retry from the window check's 402); a `Spent` record (consumed, no result)
//! only until `validBefore`, when the local checks refuse the authorization anyway. Outside
//! `Spent`, a record's expiry never moves earlier (a result settled after an unknown outcome
//! keeps the unknown one's lifetime).
//!
//! Budgets, so that failing jobs never crowd out paid results: records without a result
//! (`Reserved`, `Spent`) are at most [`MAX_ENTRIES`] in all, and they and the long-lived
//! `Unknown` records at most [`MAX_OPEN_PER_PAYER`] per payer (`from`); records with a result are at most [`MAX_RESULT_ENTRIES`] and
//! [`MAX_KEPT_BYTES`], and a reservation counts against them too while its job runs (it may end
//! with a result). When a budget is spent, new payments are refused ([`ReserveError`], a 503
//! with `Retry-After`); no record is ever evicted early.
//!
//! [`PaymentStore`] is the interface; [`MemoryStore`] the in-process implementation. A store
//! shared by several instances (Redis) keeps the same rules, each call one atomic step.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;
use std::sync::Arc;

use sha3::{Digest, Keccak256};

use crate::payment::wire::{PaymentPayload, SettleResponse};

/// Seconds a record that holds a result outlives its authorization's `validBefore`
/// (docs/payments.md: results are kept until `validBefore` + 10 min).
pub const RETENTION_SECONDS: u64 = 600;
/// Seconds a record whose settlement outcome is unknown outlives its authorization's
/// `validBefore` (docs/payments.md, "Unknown outlives the window": 7 days): a retry in that time
/// gets the chain's verdict or 503 "settlement pending", never the local window check's 402.
pub const UNKNOWN_RETENTION_SECONDS: u64 = 7 * 24 * 3600;
/// Most records without a result held at once (docs/payments.md: 100 000).
pub const MAX_ENTRIES: usize = 100_000;
/// Most records holding a result (or whose job may still produce one) at once.
pub const MAX_RESULT_ENTRIES: usize = 100_000;
/// Most records without a result one payer may have at once (docs/payments.md: 32).
pub const MAX_OPEN_PER_PAYER: usize = 32;
/// Most bytes of kept responses held at once (docs/payments.md: 256 MiB).
pub const MAX_KEPT_BYTES: usize = 256 * 1024 * 1024;

/// The identity of one EIP-3009 authorization.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AuthorizationKey {
    /// CAIP-2 network.
    pub network: String,
    /// Token contract, lower-case hex.
    pub asset: String,
    /// Payer address.
    pub from: [u8; 20],
    /// EIP-3009 nonce.
    pub nonce: [u8; 32],
}

/// What binds a retry to the original request: Keccak-256 of the whole parsed
/// `PaymentPayload` (signature included) and of the submitted URL string. Only the holder of
/// the exact payload can match it, so a look-up before verification is safe (x402
/// `payment-identifier` spec, "Recovering a Lost Response").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    /// Hash of the canonical JSON of the parsed `PaymentPayload`.
    pub payment: [u8; 32],
    /// Hash of the submitted `url` string.
    pub request: [u8; 32],
}

impl Fingerprint {
    /// The fingerprint of a paid request.
    pub fn of(payment: &PaymentPayload, input_url: &str) -> Fingerprint {
        // The payload's free-form parts are `serde_json::Value`s, whose maps serialise with
        // sorted keys: the same parsed payload always gives the same bytes.
        let canonical = serde_json::to_vec(payment).unwrap_or_default();
        Fingerprint {
            payment: Keccak256::digest(&canonical).into(),
            request: Keccak256::digest(input_url.as_bytes()).into(),
        }
    }
}

/// A paid `200` as it was (or will be) sent: the body, the request id it names (for
/// `X-Request-Id`) and, once settled, the `PAYMENT-RESPONSE` header value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptResponse {
    /// The serialised `ContactExtractionResult`.
    pub body: Arc<[u8]>,
    /// The request id inside `body`.
    pub request_id: String,
    /// The facilitator's latest answer: the success that settled it, or (while the outcome is
    /// unknown) the pending answer carrying the transaction, if there was one.
    pub settlement: Option<SettleResponse>,
    /// Whether a `/settle` of this service for the authorization may have broadcast its
    /// transfer: one was sent and its outcome is unknown (a timeout, a 5xx, garbage, an answer
    /// naming a transaction). `false` while every attempt failed before its request was sent
    /// (DNS, connect, TLS) or none was made. Written with an `Unknown` record, so a retry that
    /// claims it knows whether the facilitator's "already used" can be our own transfer
    /// (docs/payments.md, "Only evidence delivers"); a claimed `Settling` record whose holder
    /// died counts as `true` whatever it says.
    pub may_have_broadcast: bool,
}

impl KeptResponse {
    fn bytes(&self) -> usize {
        self.body.len() + self.request_id.len() + 256
    }
}

/// Where an authorization stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// Passed the local checks: `/verify` and the job run under its lease.
    Reserved,
    /// The 200 is built and its lease holder is settling it (`/settle` may be in flight).
    Settling(KeptResponse),
    /// `/settle` succeeded: the 200 is kept for recovery.
    Settled(KeptResponse),
    /// The settlement outcome is unknown (pending, timeout, garbage): the 200 is kept and a
    /// retry with the same payment settles again.
    Unknown(KeptResponse),
    /// Consumed without a result (the job failed, settlement was refused, or the facilitator
    /// failed at `/verify`).
    Spent,
}

/// Who works on a `Reserved` or `Settling` record, and until when: the fence every write to
/// it must carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    /// The lease id: random, new for every reservation and every claim (never the instance's
    /// alone), so a stale write of an earlier holder on the same instance changes nothing.
    pub id: u64,
    /// Unix seconds after which a retry may take the record over.
    pub until: u64,
}

/// One record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Where the authorization stands.
    pub stage: Stage,
    /// What a retry must match to be the same request.
    pub fingerprint: Fingerprint,
    /// The x402 `payment-identifier` id the payment carried, if any.
    pub payment_id: Option<String>,
    /// The base URL of the facilitator that first saw the authorization (its first
    /// `/verify`): every later `/verify` and `/settle` of it goes there, never to another
    /// configured facilitator (docs/payments.md, "Several facilitators"). Empty in a record
    /// written without one (a shared store's record from an older version): then the first
    /// configured facilitator, the only one such a version used.
    pub facilitator: String,
    /// The authorization's `validBefore`, unix seconds.
    pub valid_before: u64,
    /// The lease it is held under (meaningful while `Reserved` or `Settling`).
    pub lease: Lease,
    /// Unix seconds at which the record is dropped: `validBefore` + [`RETENTION_SECONDS`], or
    /// `validBefore` once `Spent`.
    pub expires: u64,
    /// The payment network's head block number when the authorization was first seen (its
    /// reservation), if the service knew a recent head then
    /// (`crate::server::Server::first_seen_block`): a chain reading about a `/settle` of ours
    /// searches the logs from there, less a margin, to the head (docs/payments.md, "The
    /// look-back covers every record"). `None` in a record written without one (no judge, no
    /// recent head, or an older version).
    pub first_seen_block: Option<u64>,
}

impl Stage {
    /// Whether the record holds a result (`Settling`, `Settled`, `Unknown`).
    pub fn holds_result(&self) -> bool {
        matches!(
            self,
            Stage::Settled(_) | Stage::Unknown(_) | Stage::Settling(_)
        )
    }

    /// A short name, for logs and the shared store's values.
    pub fn name(&self) -> &'static str {
        match self {
            Stage::Reserved => "reserved",
            Stage::Settling(_) => "settling",
            Stage::Settled(_) => "settled",
            Stage::Unknown(_) => "unknown",
            Stage::Spent => "spent",
        }
    }
}

/// Why a reservation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReserveError {
    /// The authorization has a record already (in flight, used, or kept).
    AlreadyUsed,
    /// The payment identifier names another record.
    IdInUse,
    /// A budget of the store is spent ([`MAX_ENTRIES`], [`MAX_RESULT_ENTRIES`],
    /// [`MAX_KEPT_BYTES`]; fail closed).
    Full {
        /// Seconds until the earliest record expires (at least 1).
        retry_after: u64,
    },
    /// The payer has [`MAX_OPEN_PER_PAYER`] records without a result.
    PayerBusy {
        /// Seconds until the earliest of them expires (at least 1).
        retry_after: u64,
    },
}

/// What [`PaymentStore::claim`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The record was `Unknown` (or `Settling` with its lease run out) with the same
    /// fingerprint: it is `Settling` under the caller's lease now and the caller settles it;
    /// here is the kept response.
    Claimed(KeptResponse),
    /// Nothing was claimed: the record as it stands (`None`: no record).
    NotClaimed(Option<Record>),
}

/// The interface of the payment store. Every method takes the current unix time in seconds
/// where expiry matters; the store reads no clock. A shared implementation (several instances
/// behind one load balancer) implements the same calls atomically.
pub trait PaymentStore: Debug + Send {
    /// Creates a `Reserved` record for `key` under `lease`, valid until `valid_before` (unix
    /// seconds), bound to `facilitator` (the base URL its `/verify` goes to). A `Reserved`
    /// record with the same fingerprint whose lease ran out before `unix_now` (its instance
    /// died mid-job; no money moved) is taken over instead, keeping the facilitator it is
    /// bound to. Either way the answer is the facilitator the record is bound to.
    ///
    /// # Errors
    /// [`ReserveError`]: a record exists, the payment id is taken, or the store is full.
    #[allow(clippy::too_many_arguments)] // one atomic step of the store takes all of them
    fn reserve(
        &mut self,
        key: &AuthorizationKey,
        fingerprint: Fingerprint,
        payment_id: Option<&str>,
        facilitator: &str,
        valid_before: u64,
        lease: Lease,
        unix_now: u64,
    ) -> Result<String, ReserveError>;

    /// Notes `block` as the head block number at which `key`'s authorization was first seen,
    /// on a record held under lease id `lease` that has none yet (right after its
    /// reservation, in the same atomic step).
    fn note_first_seen(&mut self, key: &AuthorizationKey, lease: u64, block: u64);

    /// Forgets the `Reserved` or `Settling` record held under lease id `lease`: a refused
    /// `/verify`, a `/verify` without an answer, or a first `/settle` that heard "already used"
    /// when nothing of ours was broadcast (docs/payments.md, "No answer is not a refusal",
    /// "Only evidence delivers"): the authorization is judged again on a retry. Any other
    /// stage, or a record under another lease, is kept.
    fn release(&mut self, key: &AuthorizationKey, lease: u64);

    /// `Reserved` (under `lease.id`) → `Settling(kept)` under `lease`, before the first
    /// `/settle`. `false`, changing nothing, when the record is not under `lease.id`
    /// reservation any more (its lease ran out and another instance took it over): the
    /// caller must not settle.
    fn begin_settle(&mut self, key: &AuthorizationKey, kept: KeptResponse, lease: Lease) -> bool;

    /// Records an outcome: `Settled` always (a settlement is final and never downgraded);
    /// `Spent` or `Unknown` only on a `Reserved` or `Settling` record under lease id `lease`. Kept response
    /// bytes are counted against [`MAX_KEPT_BYTES`]. A record that expired meanwhile is not
    /// recreated.
    fn finish(&mut self, key: &AuthorizationKey, lease: u64, stage: Stage);

    /// In one atomic step: if `key`'s record matches `fingerprint` and is `Unknown`, or
    /// `Settling` with its lease run out at `unix_now`, makes it `Settling` under `lease` and
    /// hands back the kept response; otherwise changes nothing and hands back the record as
    /// it stands. So of several retries of one payment, exactly one settles and the others
    /// see `Settling` (never a record that seems to be missing).
    fn claim(
        &mut self,
        key: &AuthorizationKey,
        fingerprint: Fingerprint,
        lease: Lease,
        unix_now: u64,
    ) -> Claim;

    /// The record of `key`, if it has not expired at `unix_now`.
    fn look_up(&mut self, key: &AuthorizationKey, unix_now: u64) -> Option<Record>;

    /// The authorization a payment identifier was first used with, if still held.
    fn key_of_payment_id(&mut self, id: &str, unix_now: u64) -> Option<AuthorizationKey>;

    /// Drops every record whose expiry is at or before `unix_now`.
    fn expire(&mut self, unix_now: u64);

    /// Records held and kept response bytes.
    fn usage(&self) -> (usize, usize);
}

/// The in-process [`PaymentStore`].
#[derive(Debug)]
pub struct MemoryStore {
    records: BTreeMap<AuthorizationKey, Record>,
    /// Expiry order: (expires, key).
    by_expiry: BTreeMap<(u64, AuthorizationKey), ()>,
    payment_ids: BTreeMap<String, AuthorizationKey>,
    /// Per payer, the records without a result: (expires, nonce).
    open_by_payer: BTreeMap<[u8; 20], BTreeSet<(u64, [u8; 32])>>,
    /// Records without a result, and records that hold one or are in flight.
    open: usize,
    results_and_in_flight: usize,
    kept_bytes: usize,
    limits: StoreLimits,
}

/// The bounds of a [`MemoryStore`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreLimits {
    /// Records without a result ([`MAX_ENTRIES`]).
    pub open: usize,
    /// Records without a result per payer ([`MAX_OPEN_PER_PAYER`]).
    pub open_per_payer: usize,
    /// Records holding a result, plus reservations in flight ([`MAX_RESULT_ENTRIES`]).
    pub results: usize,
    /// Bytes of kept responses ([`MAX_KEPT_BYTES`]).
    pub kept_bytes: usize,
}

impl Default for StoreLimits {
    fn default() -> Self {
        StoreLimits {
            open: MAX_ENTRIES,
            open_per_payer: MAX_OPEN_PER_PAYER,
            results: MAX_RESULT_ENTRIES,
            kept_bytes: MAX_KEPT_BYTES,
        }
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::with_limits(StoreLimits::default())
    }
}

/// Whether a stage counts against the result budget: it holds a result or its job is running.
fn counts_as_result(stage: &Stage) -> bool {
    stage.holds_result() || matches!(stage, Stage::Reserved)
}

/// Whether a stage counts against the budget of records without a result.
fn counts_as_open(stage: &Stage) -> bool {
    !stage.holds_result()
}

/// Whether a stage counts against its payer's budget ([`MAX_OPEN_PER_PAYER`]): records
/// without a result, and unknown outcomes, which live for days.
fn counts_for_payer(stage: &Stage) -> bool {
    counts_as_open(stage) || matches!(stage, Stage::Unknown(_))
}

impl MemoryStore {
    /// An empty store holding at most `max_entries` records without a result (and as many
    /// with one) and `max_kept_bytes` bytes of kept responses; [`MAX_OPEN_PER_PAYER`] per
    /// payer.
    pub fn new(max_entries: usize, max_kept_bytes: usize) -> MemoryStore {
        MemoryStore::with_limits(StoreLimits {
            open: max_entries,
            results: max_entries,
            kept_bytes: max_kept_bytes,
            ..StoreLimits::default()
        })
    }

    /// An empty store with these bounds.
    pub fn with_limits(limits: StoreLimits) -> MemoryStore {
        MemoryStore {
            records: BTreeMap::new(),
            by_expiry: BTreeMap::new(),
            payment_ids: BTreeMap::new(),
            open_by_payer: BTreeMap::new(),
            open: 0,
            results_and_in_flight: 0,
            kept_bytes: 0,
            limits,
        }
    }

    /// Counts `record` in (`add`) or out of the budgets and the expiry order.
    fn count(&mut self, key: &AuthorizationKey, record: &Record, add: bool) {
        let bytes = kept_bytes(&record.stage);
        let as_result = usize::from(counts_as_result(&record.stage));
        let as_open = counts_as_open(&record.stage);
        if add {
            self.kept_bytes += bytes;
            self.results_and_in_flight += as_result;
            self.by_expiry.insert((record.expires, key.clone()), ());
        } else {
            self.kept_bytes -= bytes;
            self.results_and_in_flight -= as_result;
            self.by_expiry.remove(&(record.expires, key.clone()));
        }
        if as_open {
            if add {
                self.open += 1;
            } else {
                self.open -= 1;
            }
        }
        if counts_for_payer(&record.stage) {
            let entry = (record.expires, key.nonce);
            if add {
                self.open_by_payer
                    .entry(key.from)
                    .or_default()
                    .insert(entry);
            } else {
                if let Some(set) = self.open_by_payer.get_mut(&key.from) {
                    set.remove(&entry);
                    if set.is_empty() {
                        self.open_by_payer.remove(&key.from);
                    }
                }
            }
        }
    }

    fn remove(&mut self, key: &AuthorizationKey) {
        if let Some(record) = self.records.remove(key) {
            self.count(key, &record, false);
            if let Some(id) = &record.payment_id {
                self.payment_ids.remove(id);
            }
        }
    }

    /// Replaces the stage of `key`'s record (and its expiry, which follows the stage).
    fn set_stage(&mut self, key: &AuthorizationKey, stage: Stage) {
        let Some(mut record) = self.records.remove(key) else {
            return;
        };
        self.count(key, &record, false);
        record.expires = expiry(record.valid_before, &stage, record.expires);
        record.stage = stage;
        self.count(key, &record, true);
        self.records.insert(key.clone(), record);
    }

    /// Seconds until the earliest expiry among `expiries` (at least 1).
    fn retry_after(earliest: Option<u64>, unix_now: u64) -> u64 {
        earliest.unwrap_or(unix_now).saturating_sub(unix_now).max(1)
    }
}

/// When a record entering `stage` is dropped, given its expiry so far (`current`, 0 for a new
/// record): `Spent` at `validBefore`; `Unknown` [`UNKNOWN_RETENTION_SECONDS`] after it; the
/// others [`RETENTION_SECONDS`] after it, or later if the record was to live longer.
fn expiry(valid_before: u64, stage: &Stage, current: u64) -> u64 {
    match stage {
        Stage::Spent => valid_before,
        Stage::Unknown(_) => valid_before.saturating_add(UNKNOWN_RETENTION_SECONDS),
        _ => valid_before.saturating_add(RETENTION_SECONDS).max(current),
    }
}

fn kept_bytes(stage: &Stage) -> usize {
    match stage {
        Stage::Settled(kept) | Stage::Unknown(kept) | Stage::Settling(kept) => kept.bytes(),
        Stage::Reserved | Stage::Spent => 0,
    }
}

impl PaymentStore for MemoryStore {
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
        self.expire(unix_now);
        if let Some(record) = self.records.get_mut(key) {
            let abandoned = record.stage == Stage::Reserved
                && record.fingerprint == fingerprint
                && record.lease.until < unix_now;
            if !abandoned {
                return Err(ReserveError::AlreadyUsed);
            }
            // Same budgets, same expiry, same facilitator: only the lease changes.
            record.lease = lease;
            return Ok(record.facilitator.clone());
        }
        if payment_id.is_some_and(|id| self.payment_ids.contains_key(id)) {
            return Err(ReserveError::IdInUse);
        }
        if let Some(open) = self.open_by_payer.get(&key.from) {
            if open.len() >= self.limits.open_per_payer {
                let earliest = open.first().map(|(at, _)| *at);
                return Err(ReserveError::PayerBusy {
                    retry_after: Self::retry_after(earliest, unix_now),
                });
            }
        }
        if self.open >= self.limits.open
            || self.results_and_in_flight >= self.limits.results
            || self.kept_bytes >= self.limits.kept_bytes
        {
            let earliest = self.by_expiry.keys().next().map(|(at, _)| *at);
            return Err(ReserveError::Full {
                retry_after: Self::retry_after(earliest, unix_now),
            });
        }
        if let Some(id) = payment_id {
            self.payment_ids.insert(id.to_string(), key.clone());
        }
        let record = Record {
            stage: Stage::Reserved,
            fingerprint,
            payment_id: payment_id.map(str::to_string),
            facilitator: facilitator.to_string(),
            valid_before,
            lease,
            expires: expiry(valid_before, &Stage::Reserved, 0),
            first_seen_block: None,
        };
        self.count(key, &record, true);
        self.records.insert(key.clone(), record);
        Ok(facilitator.to_string())
    }

    fn note_first_seen(&mut self, key: &AuthorizationKey, lease: u64, block: u64) {
        if let Some(record) = self.records.get_mut(key) {
            if record.lease.id == lease && record.first_seen_block.is_none() {
                record.first_seen_block = Some(block);
            }
        }
    }

    fn release(&mut self, key: &AuthorizationKey, lease: u64) {
        if self.records.get(key).is_some_and(|r| {
            matches!(r.stage, Stage::Reserved | Stage::Settling(_)) && r.lease.id == lease
        }) {
            self.remove(key);
        }
    }

    fn begin_settle(&mut self, key: &AuthorizationKey, kept: KeptResponse, lease: Lease) -> bool {
        let owned = self
            .records
            .get(key)
            .is_some_and(|r| r.stage == Stage::Reserved && r.lease.id == lease.id);
        if owned {
            self.set_stage(key, Stage::Settling(kept));
            if let Some(record) = self.records.get_mut(key) {
                record.lease = lease;
            }
        }
        owned
    }

    fn finish(&mut self, key: &AuthorizationKey, lease: u64, stage: Stage) {
        let Some(record) = self.records.get(key) else {
            return;
        };
        let applies = match (&record.stage, &stage) {
            // Settled is final: a late answer never downgrades it.
            (Stage::Settled(_), _) => false,
            (_, Stage::Settled(_)) => true,
            (Stage::Reserved | Stage::Settling(_), _) => record.lease.id == lease,
            _ => false,
        };
        if applies {
            self.set_stage(key, stage);
        }
    }

    fn claim(
        &mut self,
        key: &AuthorizationKey,
        fingerprint: Fingerprint,
        lease: Lease,
        unix_now: u64,
    ) -> Claim {
        self.expire(unix_now);
        let Some(record) = self.records.get(key) else {
            return Claim::NotClaimed(None);
        };
        let claimable = record.fingerprint == fingerprint
            && match &record.stage {
                Stage::Unknown(_) => true,
                Stage::Settling(_) => record.lease.until < unix_now,
                _ => false,
            };
        match &record.stage {
            Stage::Unknown(kept) | Stage::Settling(kept) if claimable => {
                let kept = kept.clone();
                self.set_stage(key, Stage::Settling(kept.clone()));
                if let Some(record) = self.records.get_mut(key) {
                    record.lease = lease;
                }
                Claim::Claimed(kept)
            }
            _ => Claim::NotClaimed(Some(record.clone())),
        }
    }

    fn look_up(&mut self, key: &AuthorizationKey, unix_now: u64) -> Option<Record> {
        self.expire(unix_now);
        self.records.get(key).cloned()
    }

    fn key_of_payment_id(&mut self, id: &str, unix_now: u64) -> Option<AuthorizationKey> {
        self.expire(unix_now);
        self.payment_ids.get(id).cloned()
    }

    fn expire(&mut self, unix_now: u64) {
        // Bounded by the number of records due; each is removed once.
        while let Some(((expires, key), ())) = self.by_expiry.first_key_value() {
            if *expires > unix_now {
                break;
            }
            let key = key.clone();
            self.remove(&key);
        }
    }

    fn usage(&self) -> (usize, usize) {
        (self.records.len(), self.kept_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> AuthorizationKey {
        AuthorizationKey {
            network: "eip155:8453".into(),
            asset: "0x8335".into(),
            from: [1; 20],
            nonce: [n; 32],
        }
    }

    fn print(n: u8) -> Fingerprint {
        Fingerprint {
            payment: [n; 32],
            request: [0; 32],
        }
    }

    /// The facilitator that first saw the authorizations of most tests.
    const F: &str = "https://facilitator-1.example/";

    /// Another configured facilitator.
    const F2: &str = "https://facilitator-2.example/";

    /// Instance 1's lease, long enough for every test.
    const OWN: Lease = Lease {
        id: 1,
        until: 1_000_000,
    };

    fn kept(bytes: usize) -> KeptResponse {
        KeptResponse {
            body: vec![b'x'; bytes].into(),
            request_id: "req_1".into(),
            settlement: None,
            may_have_broadcast: false,
        }
    }

    #[test]
    fn one_authorization_is_reserved_once_and_only_its_owner_releases_it() {
        let mut store = MemoryStore::new(10, 1 << 20);
        assert_eq!(
            store.reserve(&key(1), print(1), None, F, 1_000, OWN, 100),
            Ok(F.to_string())
        );
        assert_eq!(
            store.reserve(&key(1), print(1), None, F, 1_000, OWN, 101),
            Err(ReserveError::AlreadyUsed)
        );
        store.release(&key(1), 2);
        assert_eq!(
            store.look_up(&key(1), 102).map(|r| r.stage),
            Some(Stage::Reserved),
            "another instance never releases it"
        );
        store.release(&key(1), 1);
        assert_eq!(store.look_up(&key(1), 103), None);
        assert_eq!(
            store.reserve(&key(1), print(1), None, F, 1_000, OWN, 103),
            Ok(F.to_string())
        );
        store.finish(&key(1), 1, Stage::Spent);
        store.release(&key(1), 1);
        assert_eq!(
            store.look_up(&key(1), 104).map(|r| r.stage),
            Some(Stage::Spent),
            "spent is consumed for good"
        );
    }

    #[test]
    fn a_settling_record_is_released_only_by_its_own_lease_and_never_once_unknown() {
        let mut store = MemoryStore::new(10, 1 << 20);
        let claim = Lease { id: 1, until: 300 };
        store
            .reserve(&key(1), print(1), None, F, 1_000, OWN, 100)
            .unwrap();
        assert!(store.begin_settle(&key(1), kept(5), claim));
        store.release(&key(1), 2);
        assert!(store.look_up(&key(1), 101).is_some(), "another lease's");
        store.release(&key(1), 1);
        assert_eq!(store.look_up(&key(1), 101), None);
        assert_eq!(store.usage(), (0, 0));
        // An unknown outcome (our /settle may have broadcast) is never released.
        store
            .reserve(&key(2), print(2), None, F, 1_000, OWN, 100)
            .unwrap();
        assert!(store.begin_settle(&key(2), kept(5), claim));
        store.finish(&key(2), 1, Stage::Unknown(kept(5)));
        store.release(&key(2), 1);
        assert_eq!(
            store.look_up(&key(2), 101).map(|r| r.stage),
            Some(Stage::Unknown(kept(5)))
        );
    }

    #[test]
    fn a_dead_owners_reservation_is_taken_over_by_the_same_request_after_its_lease() {
        let mut store = MemoryStore::new(10, 1 << 20);
        let dead = Lease { id: 1, until: 200 };
        let other = Lease { id: 2, until: 400 };
        store
            .reserve(&key(1), print(1), None, F, 1_000, dead, 100)
            .unwrap();
        assert_eq!(
            store.reserve(&key(1), print(1), None, F, 1_000, other, 200),
            Err(ReserveError::AlreadyUsed),
            "not before the lease runs out"
        );
        assert_eq!(
            store.reserve(&key(1), print(2), None, F, 1_000, other, 201),
            Err(ReserveError::AlreadyUsed),
            "never by another payload"
        );
        assert_eq!(
            store.reserve(&key(1), print(1), None, F2, 1_000, other, 201),
            Ok(F.to_string()),
            "the facilitator that first saw it stays"
        );
        // The dead owner's late writes change nothing; the new owner's do.
        assert!(!store.begin_settle(&key(1), kept(5), dead));
        store.finish(&key(1), 1, Stage::Spent);
        store.release(&key(1), 1);
        assert_eq!(store.look_up(&key(1), 202).unwrap().stage, Stage::Reserved);
        assert!(store.begin_settle(&key(1), kept(5), other));
        assert_eq!(
            store.look_up(&key(1), 202).unwrap().stage,
            Stage::Settling(kept(5))
        );
        // A settlement always lands, whoever reports it.
        store.finish(&key(1), 1, Stage::Settled(kept(5)));
        assert_eq!(
            store.look_up(&key(1), 203).unwrap().stage,
            Stage::Settled(kept(5))
        );
        assert_eq!(store.usage().0, 1);
    }

    #[test]
    fn records_expire_ten_minutes_after_valid_before_never_earlier() {
        let mut store = MemoryStore::new(2, 1 << 20);
        store
            .reserve(
                &key(1),
                print(1),
                Some("pay_aaaaaaaaaaaaaaaa"),
                F,
                100,
                OWN,
                0,
            )
            .unwrap();
        store
            .reserve(&key(2), print(2), None, F, 10_000, OWN, 0)
            .unwrap();
        assert_eq!(
            store.reserve(&key(3), print(3), None, F, 10_000, OWN, 50),
            Err(ReserveError::Full {
                retry_after: 100 + RETENTION_SECONDS - 50
            }),
            "full: nothing is evicted before it expires"
        );
        assert!(store
            .look_up(&key(1), 100 + RETENTION_SECONDS - 1)
            .is_some());
        let later = 100 + RETENTION_SECONDS;
        assert_eq!(store.look_up(&key(1), later), None);
        assert_eq!(store.key_of_payment_id("pay_aaaaaaaaaaaaaaaa", later), None);
        assert_eq!(
            store.reserve(&key(3), print(3), None, F, 10_000, OWN, later),
            Ok(F.to_string())
        );
        assert_eq!(store.usage().0, 2);
    }

    #[test]
    fn an_unknown_outcome_lives_seven_days_after_valid_before_and_counts_for_its_payer() {
        let mut store = MemoryStore::with_limits(StoreLimits {
            open_per_payer: 2,
            ..StoreLimits::default()
        });
        store
            .reserve(&key(1), print(1), None, F, 100, OWN, 0)
            .unwrap();
        store.finish(&key(1), 1, Stage::Unknown(kept(10)));
        let record = store.look_up(&key(1), 100 + RETENTION_SECONDS).unwrap();
        assert_eq!(record.expires, 100 + UNKNOWN_RETENTION_SECONDS);
        assert!(store
            .look_up(&key(1), 100 + UNKNOWN_RETENTION_SECONDS - 1)
            .is_some());
        // Its payer's budget: the unknown outcome and one more record.
        store
            .reserve(&key(2), print(2), None, F, 100, OWN, 1)
            .unwrap();
        assert!(matches!(
            store.reserve(&key(3), print(3), None, F, 100, OWN, 1),
            Err(ReserveError::PayerBusy { .. })
        ));
        // Settled after the unknown outcome: the record keeps its longer life, and leaves the
        // payer's budget.
        let claim = store.claim(&key(1), print(1), OWN, 200);
        assert!(matches!(claim, Claim::Claimed(_)));
        store.finish(&key(1), 1, Stage::Settled(kept(10)));
        let record = store.look_up(&key(1), 200).unwrap();
        assert_eq!(record.expires, 100 + UNKNOWN_RETENTION_SECONDS);
        assert_eq!(
            store.reserve(&key(3), print(3), None, F, 1_000, OWN, 1),
            Ok(F.to_string())
        );
        store.expire(100 + UNKNOWN_RETENTION_SECONDS);
        assert_eq!(
            store.look_up(&key(1), 100 + UNKNOWN_RETENTION_SECONDS),
            None
        );
    }

    #[test]
    fn kept_bytes_are_bounded_and_released_on_expiry() {
        let mut store = MemoryStore::new(100, 10_000);
        store
            .reserve(&key(1), print(1), None, F, 100, OWN, 0)
            .unwrap();
        store.finish(&key(1), 1, Stage::Settled(kept(20_000)));
        assert!(store.usage().1 >= 20_000);
        assert!(matches!(
            store.reserve(&key(2), print(2), None, F, 100, OWN, 1),
            Err(ReserveError::Full { .. })
        ));
        // A settled record is final.
        store.finish(&key(1), 1, Stage::Spent);
        assert!(matches!(
            store.look_up(&key(1), 2).unwrap().stage,
            Stage::Settled(_)
        ));
        store.expire(100 + RETENTION_SECONDS);
        assert_eq!(store.usage(), (0, 0));
        assert_eq!(
            store.reserve(&key(2), print(2), None, F, 1_000, OWN, 700),
            Ok(F.to_string())
        );
    }

    #[test]
    fn payment_ids_are_unique_and_settling_is_exclusive_until_its_lease_runs_out() {
        let mut store = MemoryStore::new(10, 1 << 20);
        store
            .reserve(
                &key(1),
                print(1),
                Some("pay_0123456789abcdef"),
                F,
                1_000,
                OWN,
                0,
            )
            .unwrap();
        assert_eq!(
            store.reserve(
                &key(2),
                print(2),
                Some("pay_0123456789abcdef"),
                F,
                1_000,
                OWN,
                0
            ),
            Err(ReserveError::IdInUse)
        );
        assert_eq!(
            store.key_of_payment_id("pay_0123456789abcdef", 1),
            Some(key(1))
        );
        let Claim::NotClaimed(Some(record)) = store.claim(&key(1), print(1), OWN, 1) else {
            panic!("not unknown: nothing claimed, the record handed back");
        };
        assert_eq!(record.stage, Stage::Reserved);
        assert!(store.begin_settle(&key(1), kept(10), OWN));
        store.finish(&key(1), 1, Stage::Unknown(kept(10)));
        assert_eq!(
            store.claim(&key(1), print(9), OWN, 1),
            Claim::NotClaimed(Some(store.look_up(&key(1), 1).unwrap())),
            "another fingerprint never claims"
        );
        let retry = Lease { id: 2, until: 30 };
        assert_eq!(
            store.claim(&key(1), print(1), retry, 1),
            Claim::Claimed(kept(10))
        );
        let Claim::NotClaimed(Some(record)) = store.claim(&key(1), print(1), OWN, 30) else {
            panic!("one settlement at a time while its lease runs");
        };
        assert_eq!(record.stage, Stage::Settling(kept(10)));
        assert_eq!(record.lease, retry);
        // Instance 2 died mid-settlement: after its lease, a retry settles again.
        assert_eq!(
            store.claim(&key(1), print(1), OWN, 31),
            Claim::Claimed(kept(10))
        );
        store.finish(&key(1), 2, Stage::Unknown(kept(10)));
        assert_eq!(
            store.look_up(&key(1), 31).unwrap().stage,
            Stage::Settling(kept(10)),
            "the dead owner's late answer does not move another's settlement"
        );
        assert_eq!(
            store.claim(&key(3), print(1), OWN, 1),
            Claim::NotClaimed(None)
        );
    }

    #[test]
    fn a_spent_record_is_forgotten_at_valid_before_a_kept_result_ten_minutes_later() {
        let mut store = MemoryStore::new(10, 1 << 20);
        store
            .reserve(&key(1), print(1), None, F, 1_000, OWN, 0)
            .unwrap();
        store
            .reserve(&key(2), print(2), None, F, 1_000, OWN, 0)
            .unwrap();
        store.finish(&key(1), 1, Stage::Spent);
        store.finish(&key(2), 1, Stage::Settled(kept(10)));
        assert!(store.look_up(&key(1), 999).is_some());
        assert_eq!(
            store.look_up(&key(1), 1_000),
            None,
            "spent: gone at validBefore"
        );
        assert!(store
            .look_up(&key(2), 1_000 + RETENTION_SECONDS - 1)
            .is_some());
        assert_eq!(store.look_up(&key(2), 1_000 + RETENTION_SECONDS), None);
        assert_eq!(store.usage(), (0, 0));
    }

    fn payer_key(payer: u8, n: u16) -> AuthorizationKey {
        let mut nonce = [0; 32];
        nonce[..2].copy_from_slice(&n.to_be_bytes());
        AuthorizationKey {
            from: [payer; 20],
            nonce,
            ..key(0)
        }
    }

    #[test]
    fn one_payer_holds_at_most_32_records_without_a_result() {
        let mut store = MemoryStore::new(1_000, 1 << 20);
        for n in 0..32 {
            store
                .reserve(
                    &payer_key(7, n),
                    print(1),
                    None,
                    F,
                    1_000 + u64::from(n),
                    OWN,
                    0,
                )
                .unwrap();
            store.finish(&payer_key(7, n), 1, Stage::Spent);
        }
        assert_eq!(
            store.reserve(&payer_key(7, 99), print(1), None, F, 5_000, OWN, 10),
            Err(ReserveError::PayerBusy { retry_after: 990 }),
            "until the earliest of its records is forgotten"
        );
        // Other payers are not affected.
        assert_eq!(
            store.reserve(&payer_key(8, 0), print(1), None, F, 5_000, OWN, 10),
            Ok(F.to_string())
        );
        // A record that gets a result leaves the payer's count.
        store
            .reserve(&payer_key(9, 0), print(1), None, F, 5_000, OWN, 10)
            .unwrap();
        store.release(&payer_key(9, 0), 1);
        store.expire(1_000);
        assert_eq!(
            store.reserve(&payer_key(7, 99), print(1), None, F, 5_000, OWN, 1_000),
            Ok(F.to_string())
        );
        store.finish(&payer_key(7, 99), 1, Stage::Settled(kept(5)));
        assert_eq!(store.open_by_payer[&[7; 20]].len(), 31);
    }

    #[test]
    fn failing_jobs_never_crowd_out_paid_results() {
        let limits = StoreLimits {
            open: 4,
            open_per_payer: 32,
            results: 2,
            kept_bytes: 1 << 20,
        };
        let mut store = MemoryStore::with_limits(limits);
        // Two paid results fill the result budget...
        for n in 0..2 {
            store
                .reserve(&payer_key(1, n), print(1), None, F, 1_000, OWN, 0)
                .unwrap();
            store.finish(&payer_key(1, n), 1, Stage::Settled(kept(5)));
        }
        assert!(matches!(
            store.reserve(&payer_key(2, 0), print(1), None, F, 1_000, OWN, 0),
            Err(ReserveError::Full { .. })
        ));
        // ...and a result-less flood fills only its own budget: the kept results stay.
        let mut store = MemoryStore::with_limits(limits);
        store
            .reserve(&payer_key(1, 0), print(1), None, F, 1_000, OWN, 0)
            .unwrap();
        store.finish(&payer_key(1, 0), 1, Stage::Settled(kept(5)));
        for n in 0..4 {
            store
                .reserve(&payer_key(3, n), print(1), None, F, 1_000, OWN, 0)
                .unwrap();
            store.finish(&payer_key(3, n), 1, Stage::Spent);
        }
        assert!(matches!(
            store.reserve(&payer_key(4, 0), print(1), None, F, 1_000, OWN, 0),
            Err(ReserveError::Full { .. })
        ));
        assert!(matches!(
            store.look_up(&payer_key(1, 0), 1).unwrap().stage,
            Stage::Settled(_)
        ));
        assert_eq!(store.usage().0, 5);
    }
}
