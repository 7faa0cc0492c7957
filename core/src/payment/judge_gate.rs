//! What keeps the chain judge from being an amplifier (docs/payments.md, "The judge is no
//! amplifier"). A chain reading for a payment the store holds no record of — a `/verify`
//! refusal, a used nonce, an expired authorization — can be caused by anyone: an
//! authorization signed with a fresh key costs nothing. So such readings (made only after the
//! local EIP-712 check) pass through a [`JudgeGate`]:
//!
//! - a verdict that can never change (paid to us in a transaction, cancelled, expired unused) is
//!   kept per authorization for [`FINAL_VERDICT_SECONDS`] and answers without a reading;
//! - readings are limited per client ([`PER_CLIENT_PER_MINUTE`], bursts of
//!   [`PER_CLIENT_BURST`]) and in total ([`TOTAL_PER_MINUTE`], bursts of [`TOTAL_BURST`]);
//!   beyond either the caller answers 503 with `Retry-After`, never a 402.
//!
//! Time comes in as an argument (unix time); nothing here reads a clock.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use crate::limiter::RateLimiter;
use crate::payment::chain::ChainVerdict;
use crate::payment::store::AuthorizationKey;

/// Record-less chain readings one client may cause a minute.
pub const PER_CLIENT_PER_MINUTE: u32 = 6;
/// Record-less chain readings one client may cause at once.
pub const PER_CLIENT_BURST: u32 = 4;
/// Record-less chain readings the whole instance makes a minute (each is at most a handful of
/// JSON-RPC calls: a public RPC's limits are per second).
pub const TOTAL_PER_MINUTE: u32 = 120;
/// Record-less chain readings the whole instance makes at once.
pub const TOTAL_BURST: u32 = 30;
/// Seconds a final verdict is kept per authorization.
pub const FINAL_VERDICT_SECONDS: u64 = 600;
/// Most verdicts kept at once. When full, the expired ones are dropped; if none has expired,
/// a new verdict is not kept (its authorization is then read again, within the limits).
pub const MAX_CACHED_VERDICTS: usize = 10_000;

/// The key of the total limit in its [`RateLimiter`] (one bucket for every client).
const EVERYONE: IpAddr = IpAddr::V4(Ipv4Addr::UNSPECIFIED);

/// What the gate says about a record-less chain reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// The verdict, read before and final: no reading.
    Cached(ChainVerdict),
    /// Read the chain (a token was taken).
    Read,
    /// Over a limit: answer 503 with `Retry-After` of this many seconds (≥ 1).
    Limited(u64),
}

/// The cache of final verdicts and the two limits.
#[derive(Debug)]
pub struct JudgeGate {
    verdicts: BTreeMap<AuthorizationKey, (ChainVerdict, u64)>,
    per_client: RateLimiter,
    total: RateLimiter,
}

impl Default for JudgeGate {
    fn default() -> Self {
        JudgeGate {
            verdicts: BTreeMap::new(),
            per_client: RateLimiter::new(PER_CLIENT_PER_MINUTE, PER_CLIENT_BURST),
            total: RateLimiter::new(TOTAL_PER_MINUTE, TOTAL_BURST),
        }
    }
}

impl JudgeGate {
    /// May `client` cause a reading about `key` at `unix_now` (time since the UNIX epoch)? A
    /// cached final verdict first; then one token of the client's limit and one of the total.
    pub fn ask(&mut self, key: &AuthorizationKey, client: IpAddr, unix_now: Duration) -> Gate {
        if let Some((verdict, until)) = self.verdicts.get(key) {
            if *until > unix_now.as_secs() {
                return Gate::Cached(verdict.clone());
            }
            self.verdicts.remove(key);
        }
        if let Err(wait) = self.per_client.check(client, unix_now) {
            return Gate::Limited(wait);
        }
        match self.total.check(EVERYONE, unix_now) {
            Ok(()) => Gate::Read,
            Err(wait) => Gate::Limited(wait),
        }
    }

    /// Keeps `verdict` about `key` when it can never change (docs/payments.md: a payment in a
    /// successful transaction, a cancellation, an authorization unused past `validBefore`).
    pub fn remember(&mut self, key: &AuthorizationKey, verdict: &ChainVerdict, unix_now: u64) {
        let fin = matches!(
            verdict,
            ChainVerdict::Settled { .. } | ChainVerdict::Cancelled | ChainVerdict::ExpiredUnused
        );
        if !fin {
            return;
        }
        if self.verdicts.len() >= MAX_CACHED_VERDICTS {
            self.verdicts.retain(|_, (_, until)| *until > unix_now);
            if self.verdicts.len() >= MAX_CACHED_VERDICTS {
                return;
            }
        }
        let until = unix_now + FINAL_VERDICT_SECONDS;
        self.verdicts.insert(key.clone(), (verdict.clone(), until));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> AuthorizationKey {
        AuthorizationKey {
            network: "eip155:8453".into(),
            asset: "0x83".into(),
            from: [n; 20],
            nonce: [n; 32],
        }
    }

    #[test]
    fn every_client_together_is_held_to_the_total() {
        let mut gate = JudgeGate::default();
        let now = Duration::from_secs(1_000);
        let mut read = 0;
        for n in 0..=255u8 {
            let client = IpAddr::V4(Ipv4Addr::new(198, 51, 100, n));
            match gate.ask(&key(n), client, now) {
                Gate::Read => read += 1,
                Gate::Limited(wait) => assert!(wait >= 1),
                Gate::Cached(v) => panic!("{v:?}"),
            }
        }
        assert_eq!(read, TOTAL_BURST);
    }

    #[test]
    fn only_final_verdicts_are_cached_and_only_for_a_while() {
        let mut gate = JudgeGate::default();
        let client = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let paid = ChainVerdict::Settled {
            transaction: "0xabc".into(),
        };
        gate.remember(&key(1), &paid, 1_000);
        gate.remember(&key(2), &ChainVerdict::Unused("at block 5".into()), 1_000);
        gate.remember(&key(3), &ChainVerdict::Undetermined("429".into()), 1_000);
        let now = Duration::from_secs(1_001);
        assert_eq!(gate.ask(&key(1), client, now), Gate::Cached(paid));
        assert_eq!(gate.ask(&key(2), client, now), Gate::Read);
        assert_eq!(gate.ask(&key(3), client, now), Gate::Read);
        let later = Duration::from_secs(1_000 + FINAL_VERDICT_SECONDS);
        assert_eq!(gate.ask(&key(1), client, later), Gate::Read);
    }
}
