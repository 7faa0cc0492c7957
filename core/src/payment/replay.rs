//! The replay reservation store (decisions.md "Payment"; security.md §11): an authorization
//! `(network, asset, from, nonce)` is reserved after the local checks and before `/verify`,
//! so concurrent or repeated uses of one signature get a 402 without a facilitator call or a
//! crawl. Bounded, and entries expire after the authorization's `validBefore` plus a margin.

use std::collections::BTreeMap;

/// Seconds an entry outlives its authorization's `validBefore` (clock skew between us and
/// the chain).
pub const EXPIRY_MARGIN_SECONDS: u64 = 300;

/// The identity of one EIP-3009 authorization.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
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

/// Where an authorization stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reservation {
    /// Verified locally; facilitator calls, crawl or settlement under way.
    InFlight,
    /// Settled, or consumed by a facilitator failure: never again.
    Used,
}

/// Why a reservation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReserveError {
    /// Already in flight or used.
    AlreadyUsed,
    /// The store is full of live entries (fail closed).
    Full,
}

/// Bounded map from authorization to its state and expiry (unix seconds).
#[derive(Debug)]
pub struct ReplayStore {
    entries: BTreeMap<AuthorizationKey, (Reservation, u64)>,
    capacity: usize,
}

impl ReplayStore {
    /// An empty store holding at most `capacity` live authorizations.
    pub fn new(capacity: usize) -> ReplayStore {
        ReplayStore {
            entries: BTreeMap::new(),
            capacity,
        }
    }

    /// Reserves `key` (valid until `valid_before`) at `unix_now`.
    ///
    /// # Errors
    /// [`ReserveError::AlreadyUsed`] when the key is in flight or used and not expired;
    /// [`ReserveError::Full`] when the store is full even after dropping expired entries.
    pub fn reserve(
        &mut self,
        key: AuthorizationKey,
        valid_before: u64,
        unix_now: u64,
    ) -> Result<(), ReserveError> {
        if let Some((_, expires)) = self.entries.get(&key) {
            if *expires > unix_now {
                return Err(ReserveError::AlreadyUsed);
            }
        }
        if self.entries.len() >= self.capacity {
            self.entries.retain(|_, (_, expires)| *expires > unix_now);
            if self.entries.len() >= self.capacity {
                return Err(ReserveError::Full);
            }
        }
        let expires = valid_before.saturating_add(EXPIRY_MARGIN_SECONDS);
        self.entries.insert(key, (Reservation::InFlight, expires));
        Ok(())
    }

    /// Marks `key` used for good (after settlement, or when a facilitator failure leaves the
    /// outcome unknown).
    pub fn mark_used(&mut self, key: &AuthorizationKey) {
        if let Some((state, _)) = self.entries.get_mut(key) {
            *state = Reservation::Used;
        }
    }

    /// Releases an in-flight `key` whose request failed before any facilitator call could have
    /// moved money (the caller may retry with the same authorization). Used keys stay.
    pub fn release(&mut self, key: &AuthorizationKey) {
        if matches!(self.entries.get(key), Some((Reservation::InFlight, _))) {
            self.entries.remove(key);
        }
    }

    /// The state of `key`, if reserved.
    pub fn state(&self, key: &AuthorizationKey) -> Option<Reservation> {
        self.entries.get(key).map(|(state, _)| *state)
    }

    /// Live and expired entries currently held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
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

    #[test]
    fn one_authorization_is_reserved_once() {
        let mut store = ReplayStore::new(10);
        assert_eq!(store.reserve(key(1), 1_000, 100), Ok(()));
        assert_eq!(
            store.reserve(key(1), 1_000, 101),
            Err(ReserveError::AlreadyUsed)
        );
        store.mark_used(&key(1));
        store.release(&key(1));
        assert_eq!(store.state(&key(1)), Some(Reservation::Used));
        assert_eq!(
            store.reserve(key(1), 1_000, 102),
            Err(ReserveError::AlreadyUsed)
        );
        assert_eq!(store.reserve(key(2), 1_000, 102), Ok(()));
        store.release(&key(2));
        assert_eq!(store.reserve(key(2), 1_000, 103), Ok(()));
    }

    #[test]
    fn bounded_with_expiry() {
        let mut store = ReplayStore::new(2);
        store.reserve(key(1), 100, 0).unwrap();
        store.reserve(key(2), 10_000, 0).unwrap();
        assert_eq!(store.reserve(key(3), 10_000, 50), Err(ReserveError::Full));
        // key(1) expires at 100 + margin.
        let later = 100 + EXPIRY_MARGIN_SECONDS + 1;
        assert_eq!(store.reserve(key(3), 10_000, later), Ok(()));
        assert_eq!(store.len(), 2);
        // key(1) was dropped as expired, but the store is full of live entries again.
        assert_eq!(store.reserve(key(1), 100, later), Err(ReserveError::Full));
    }
}
