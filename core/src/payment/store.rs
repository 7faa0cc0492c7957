//! The payment store (decisions.md "Money safety"): one record per EIP-3009 authorization
//! `(network, asset, from, nonce)` from the moment it passes the local checks until its
//! `validBefore` + 10 minutes. It is both the replay guard (one authorization buys one job) and
//! the result store (a paid 200 is kept, so the same `PAYMENT-SIGNATURE` gets it again).
//!
//! ```text
//! reserve ─▶ Reserved ──/verify valid──▶ Verified ──settled──▶ Settled (200 kept)
//!               │                          │  └──outcome unknown──▶ Unknown (200 kept) ◀─┐
//!   /verify refused: released              └──failure / refused──▶ Spent               │
//!   (anything else ─▶ Spent)                    Unknown ──retry──▶ Resettling ──unknown──┘
//!                                                                      └──settled──▶ Settled
//! ```
//!
//! [`PaymentStore`] is the interface (reserve, mark verified, store a result, look up,
//! expire); [`MemoryStore`] is the in-process implementation, bounded in entries
//! ([`MAX_ENTRIES`]) and in kept response bytes ([`MAX_KEPT_BYTES`]). When full, new payments
//! are refused ([`ReserveError::Full`]); no record is ever evicted before it expires.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;

use sha3::{Digest, Keccak256};

use crate::payment::wire::{PaymentPayload, SettleResponse};

/// Seconds a record outlives its authorization's `validBefore` (decisions.md "Money safety":
/// results are kept until `validBefore` + 10 min).
pub const RETENTION_SECONDS: u64 = 600;
/// Most records held at once (decisions.md "Money safety": 100 000).
pub const MAX_ENTRIES: usize = 100_000;
/// Most bytes of kept responses held at once (decisions.md "Money safety": 256 MiB).
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
}

impl KeptResponse {
    fn bytes(&self) -> usize {
        self.body.len() + self.request_id.len() + 256
    }
}

/// Where an authorization stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// Passed the local checks; `/verify` not answered yet.
    Reserved,
    /// `/verify` said valid: consumed for good; the job is running.
    Verified,
    /// `/settle` succeeded: the 200 is kept for recovery.
    Settled(KeptResponse),
    /// The settlement outcome is unknown (pending, timeout, garbage): the 200 is kept and a
    /// retry with the same payment settles again.
    Unknown(KeptResponse),
    /// A retry is settling an `Unknown` record now.
    Resettling(KeptResponse),
    /// Consumed without a result (the job failed, settlement was refused, or the facilitator
    /// failed at `/verify`).
    Spent,
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
    /// Unix seconds after which the record is dropped (`validBefore` + [`RETENTION_SECONDS`]).
    pub expires: u64,
}

/// Why a reservation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReserveError {
    /// The authorization has a record already (in flight, used, or kept).
    AlreadyUsed,
    /// The payment identifier names another record.
    IdInUse,
    /// The store is at [`MAX_ENTRIES`] or [`MAX_KEPT_BYTES`] (fail closed); the earliest
    /// expiry is this many seconds away.
    Full {
        /// Seconds until the earliest record expires (at least 1).
        retry_after: u64,
    },
}

/// The interface of the payment store. Every method takes the current unix time in seconds
/// where expiry matters; the store reads no clock. A shared implementation (several instances
/// behind one load balancer) implements the same calls atomically.
pub trait PaymentStore: Debug + Send {
    /// Creates a `Reserved` record for `key`, valid until `valid_before` (unix seconds).
    ///
    /// # Errors
    /// [`ReserveError`]: a record exists, the payment id is taken, or the store is full.
    fn reserve(
        &mut self,
        key: &AuthorizationKey,
        fingerprint: Fingerprint,
        payment_id: Option<&str>,
        valid_before: u64,
        unix_now: u64,
    ) -> Result<(), ReserveError>;

    /// Forgets a `Reserved` record (a refused `/verify`: the authorization stays usable).
    /// Any other stage is kept.
    fn release(&mut self, key: &AuthorizationKey);

    /// `Reserved` → `Verified`: the authorization is consumed for good.
    fn mark_verified(&mut self, key: &AuthorizationKey);

    /// Sets the stage of `key`'s record to `stage` (`Spent`, `Settled`, `Unknown`); kept
    /// response bytes are counted against [`MAX_KEPT_BYTES`]. A record that expired meanwhile
    /// is not recreated.
    fn store(&mut self, key: &AuthorizationKey, stage: Stage);

    /// `Unknown` → `Resettling`, handing back the kept response; `None` (nothing changed)
    /// for any other stage, so only one retry settles at a time.
    fn begin_resettle(&mut self, key: &AuthorizationKey) -> Option<KeptResponse>;

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
    kept_bytes: usize,
    max_entries: usize,
    max_kept_bytes: usize,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new(MAX_ENTRIES, MAX_KEPT_BYTES)
    }
}

impl MemoryStore {
    /// An empty store holding at most `max_entries` records and `max_kept_bytes` bytes of kept
    /// responses.
    pub fn new(max_entries: usize, max_kept_bytes: usize) -> MemoryStore {
        MemoryStore {
            records: BTreeMap::new(),
            by_expiry: BTreeMap::new(),
            payment_ids: BTreeMap::new(),
            kept_bytes: 0,
            max_entries,
            max_kept_bytes,
        }
    }

    fn remove(&mut self, key: &AuthorizationKey) {
        if let Some(record) = self.records.remove(key) {
            self.by_expiry.remove(&(record.expires, key.clone()));
            if let Some(id) = &record.payment_id {
                self.payment_ids.remove(id);
            }
            self.kept_bytes -= kept_bytes(&record.stage);
        }
    }
}

fn kept_bytes(stage: &Stage) -> usize {
    match stage {
        Stage::Settled(kept) | Stage::Unknown(kept) | Stage::Resettling(kept) => kept.bytes(),
        Stage::Reserved | Stage::Verified | Stage::Spent => 0,
    }
}

impl PaymentStore for MemoryStore {
    fn reserve(
        &mut self,
        key: &AuthorizationKey,
        fingerprint: Fingerprint,
        payment_id: Option<&str>,
        valid_before: u64,
        unix_now: u64,
    ) -> Result<(), ReserveError> {
        self.expire(unix_now);
        if self.records.contains_key(key) {
            return Err(ReserveError::AlreadyUsed);
        }
        if payment_id.is_some_and(|id| self.payment_ids.contains_key(id)) {
            return Err(ReserveError::IdInUse);
        }
        if self.records.len() >= self.max_entries || self.kept_bytes >= self.max_kept_bytes {
            let earliest = self.by_expiry.keys().next().map_or(unix_now, |(at, _)| *at);
            return Err(ReserveError::Full {
                retry_after: earliest.saturating_sub(unix_now).max(1),
            });
        }
        let expires = valid_before.saturating_add(RETENTION_SECONDS);
        self.by_expiry.insert((expires, key.clone()), ());
        if let Some(id) = payment_id {
            self.payment_ids.insert(id.to_string(), key.clone());
        }
        self.records.insert(
            key.clone(),
            Record {
                stage: Stage::Reserved,
                fingerprint,
                payment_id: payment_id.map(str::to_string),
                expires,
            },
        );
        Ok(())
    }

    fn release(&mut self, key: &AuthorizationKey) {
        if self
            .records
            .get(key)
            .is_some_and(|r| r.stage == Stage::Reserved)
        {
            self.remove(key);
        }
    }

    fn mark_verified(&mut self, key: &AuthorizationKey) {
        if let Some(record) = self.records.get_mut(key) {
            if record.stage == Stage::Reserved {
                record.stage = Stage::Verified;
            }
        }
    }

    fn store(&mut self, key: &AuthorizationKey, stage: Stage) {
        if let Some(record) = self.records.get_mut(key) {
            // Settled is final: a late answer never downgrades it.
            if matches!(record.stage, Stage::Settled(_)) {
                return;
            }
            self.kept_bytes = self.kept_bytes - kept_bytes(&record.stage) + kept_bytes(&stage);
            record.stage = stage;
        }
    }

    fn begin_resettle(&mut self, key: &AuthorizationKey) -> Option<KeptResponse> {
        let record = self.records.get_mut(key)?;
        let Stage::Unknown(kept) = &record.stage else {
            return None;
        };
        let kept = kept.clone();
        record.stage = Stage::Resettling(kept.clone());
        Some(kept)
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

    fn kept(bytes: usize) -> KeptResponse {
        KeptResponse {
            body: vec![b'x'; bytes].into(),
            request_id: "req_1".into(),
            settlement: None,
        }
    }

    #[test]
    fn one_authorization_is_reserved_once_and_only_a_refused_verify_frees_it() {
        let mut store = MemoryStore::new(10, 1 << 20);
        assert_eq!(store.reserve(&key(1), print(1), None, 1_000, 100), Ok(()));
        assert_eq!(
            store.reserve(&key(1), print(1), None, 1_000, 101),
            Err(ReserveError::AlreadyUsed)
        );
        store.mark_verified(&key(1));
        store.release(&key(1));
        assert_eq!(
            store.look_up(&key(1), 102).map(|r| r.stage),
            Some(Stage::Verified),
            "verified is consumed for good"
        );
        assert_eq!(store.reserve(&key(2), print(2), None, 1_000, 102), Ok(()));
        store.release(&key(2));
        assert_eq!(store.look_up(&key(2), 103), None);
        assert_eq!(store.reserve(&key(2), print(2), None, 1_000, 103), Ok(()));
    }

    #[test]
    fn records_expire_ten_minutes_after_valid_before_never_earlier() {
        let mut store = MemoryStore::new(2, 1 << 20);
        store
            .reserve(&key(1), print(1), Some("pay_aaaaaaaaaaaaaaaa"), 100, 0)
            .unwrap();
        store.reserve(&key(2), print(2), None, 10_000, 0).unwrap();
        assert_eq!(
            store.reserve(&key(3), print(3), None, 10_000, 50),
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
            store.reserve(&key(3), print(3), None, 10_000, later),
            Ok(())
        );
        assert_eq!(store.usage().0, 2);
    }

    #[test]
    fn kept_bytes_are_bounded_and_released_on_expiry() {
        let mut store = MemoryStore::new(100, 10_000);
        store.reserve(&key(1), print(1), None, 100, 0).unwrap();
        store.mark_verified(&key(1));
        store.store(&key(1), Stage::Settled(kept(20_000)));
        assert!(store.usage().1 >= 20_000);
        assert!(matches!(
            store.reserve(&key(2), print(2), None, 100, 1),
            Err(ReserveError::Full { .. })
        ));
        // A settled record is final.
        store.store(&key(1), Stage::Spent);
        assert!(matches!(
            store.look_up(&key(1), 2).unwrap().stage,
            Stage::Settled(_)
        ));
        store.expire(100 + RETENTION_SECONDS);
        assert_eq!(store.usage(), (0, 0));
        assert_eq!(store.reserve(&key(2), print(2), None, 1_000, 700), Ok(()));
    }

    #[test]
    fn payment_ids_are_unique_and_resettling_is_exclusive() {
        let mut store = MemoryStore::new(10, 1 << 20);
        store
            .reserve(&key(1), print(1), Some("pay_0123456789abcdef"), 1_000, 0)
            .unwrap();
        assert_eq!(
            store.reserve(&key(2), print(2), Some("pay_0123456789abcdef"), 1_000, 0),
            Err(ReserveError::IdInUse)
        );
        assert_eq!(
            store.key_of_payment_id("pay_0123456789abcdef", 1),
            Some(key(1))
        );
        store.mark_verified(&key(1));
        assert_eq!(store.begin_resettle(&key(1)), None, "not unknown");
        store.store(&key(1), Stage::Unknown(kept(10)));
        assert_eq!(store.begin_resettle(&key(1)), Some(kept(10)));
        assert_eq!(store.begin_resettle(&key(1)), None, "one retry at a time");
        store.store(&key(1), Stage::Unknown(kept(10)));
        assert!(store.begin_resettle(&key(1)).is_some());
    }
}
