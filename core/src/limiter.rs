//! Per-client rate limiting (docs/contract.md "Request order" step 2: 429 `RATE_LIMITED` with `Retry-After`): a
//! token bucket per client address, IPv6 clients grouped by /64 (one subscriber's prefix),
//! IPv4-mapped IPv6 judged as IPv4. Pure: time comes in as the time since the UNIX epoch (the
//! caller's clock), so several instances sharing one store judge by the same clock.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// Most clients tracked; when full, the buckets that have refilled completely are dropped
/// (they carry no state), and if none has, the client is limited (fail closed).
pub const MAX_TRACKED_CLIENTS: usize = 100_000;

/// The bucket key of a client: its IPv4 address, or its IPv6 /64 prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ClientKey {
    /// An IPv4 client.
    V4(u32),
    /// The upper 64 bits of an IPv6 client.
    V6Prefix(u64),
}

impl ClientKey {
    /// The key of `ip`.
    pub fn of(ip: IpAddr) -> ClientKey {
        match ip {
            IpAddr::V4(v4) => ClientKey::V4(u32::from(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey::V4(u32::from(v4)),
                None => ClientKey::V6Prefix((u128::from(v6) >> 64) as u64),
            },
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    /// Time since the UNIX epoch of the last update.
    updated: Duration,
}

/// Token buckets: `burst` tokens, refilled at `per_minute` tokens a minute.
#[derive(Debug)]
pub struct RateLimiter {
    per_minute: u32,
    burst: u32,
    buckets: BTreeMap<ClientKey, Bucket>,
    capacity: usize,
}

impl RateLimiter {
    /// A limiter allowing `per_minute` requests a minute with bursts of `burst` (both ≥ 1).
    pub fn new(per_minute: u32, burst: u32) -> RateLimiter {
        RateLimiter::with_capacity(per_minute, burst, MAX_TRACKED_CLIENTS)
    }

    /// As [`RateLimiter::new`], tracking at most `capacity` clients.
    pub fn with_capacity(per_minute: u32, burst: u32, capacity: usize) -> RateLimiter {
        RateLimiter {
            per_minute: per_minute.max(1),
            burst: burst.max(1),
            buckets: BTreeMap::new(),
            capacity,
        }
    }

    /// Takes one token for `ip` at `now` (time since the UNIX epoch).
    ///
    /// # Errors
    /// The wait until a token is available, rounded up to whole seconds (≥ 1), for
    /// `Retry-After`.
    pub fn check(&mut self, ip: IpAddr, now: Duration) -> Result<(), u64> {
        self.take(ip, now, 1).map(|_| ())
    }

    /// Takes up to `want` tokens for `ip` at `now` (time since the UNIX epoch), for a lease
    /// ([`LocalLeases`]): at least one, and never more than the tokens available divided by
    /// [`LEASE_SHARE`] (rounded down), so only a client well under its limit draws a batch,
    /// one near it is back to one token per request, and most of its burst is left for the
    /// other instances. Returns how many were taken (1 ≤ n ≤ `want.max(1)`).
    ///
    /// # Errors
    /// As [`RateLimiter::check`]: no token is available.
    pub fn take(&mut self, ip: IpAddr, now: Duration, want: u32) -> Result<u32, u64> {
        let key = ClientKey::of(ip);
        let rate = f64::from(self.per_minute) / 60.0;
        let burst = f64::from(self.burst);
        if !self.buckets.contains_key(&key) && self.buckets.len() >= self.capacity {
            self.buckets.retain(|_, b| {
                b.tokens + now.saturating_sub(b.updated).as_secs_f64() * rate < burst
            });
            if self.buckets.len() >= self.capacity {
                return Err(1);
            }
        }
        let bucket = self.buckets.entry(key).or_insert(Bucket {
            tokens: burst,
            updated: now,
        });
        let elapsed = now.saturating_sub(bucket.updated);
        bucket.tokens = (bucket.tokens + elapsed.as_secs_f64() * rate).min(burst);
        bucket.updated = bucket.updated.max(now);
        if bucket.tokens >= 1.0 {
            let taken = grant(bucket.tokens.floor() as u64, want);
            bucket.tokens -= f64::from(taken);
            Ok(taken)
        } else {
            let wait = Duration::from_secs_f64((1.0 - bucket.tokens) / rate);
            Err(wait
                .as_secs()
                .saturating_add(u64::from(wait.subsec_nanos() > 0))
                .max(1))
        }
    }
}

/// How many tokens a lease takes when `available` (≥ 1) are available and `want` are asked:
/// at least one, at most `want`, and at most `available / LEASE_SHARE` (the shared store's
/// script applies the same rule).
pub fn grant(available: u64, want: u32) -> u32 {
    let share = u32::try_from(available / u64::from(LEASE_SHARE)).unwrap_or(u32::MAX);
    want.max(1).min(share.max(1))
}

/// The largest batch a client with bursts of `burst` can draw: `min(LEASE_TOKENS, burst /
/// LEASE_SHARE)`, at least 1. With `I` instances, the shared limit's tolerance is
/// `I × (largest_batch − 1)` tokens (docs/operations.md, "Rate limits across instances").
pub fn largest_batch(burst: u32) -> u32 {
    grant(u64::from(burst), LEASE_TOKENS)
}

/// Tokens an unpaid request asks the shared store for when its client holds none here: one for
/// the request, the rest kept by this instance ([`LocalLeases`]).
pub const LEASE_TOKENS: u32 = 32;

/// A batch is at most the client's available tokens divided by this.
pub const LEASE_SHARE: u32 = 8;

/// How long leased tokens stay spendable after they were drawn from the shared limit; unspent
/// ones lapse (they are not returned).
pub const LEASE_LAPSE: Duration = Duration::from_secs(1);

/// Most clients holding leased tokens on one instance; beyond it a new client's requests each
/// take their token from the shared store (one round trip), as without leases.
pub const MAX_LEASED_CLIENTS: usize = 65_536;

/// One client's leased tokens.
#[derive(Debug, Clone, Copy)]
struct Held {
    /// Unspent tokens (≥ 1 while the entry exists).
    tokens: u32,
    /// When they lapse (the instant of the oldest draw among them plus [`LEASE_LAPSE`]).
    until: Instant,
}

/// The local half of the rate limit when it is shared by several instances (docs/operations.md,
/// "Running several instances"): tokens drawn from the shared limit in batches
/// ([`LEASE_TOKENS`]) and not yet spent, per client ([`ClientKey`]), each batch lapsing
/// [`LEASE_LAPSE`] after it was drawn. A request without a payment spends a held token without
/// asking the shared store. Every token spent was drawn from the shared limit, at most
/// [`LEASE_LAPSE`] earlier. Pure: the instants come in as arguments.
#[derive(Debug)]
pub struct LocalLeases {
    held: BTreeMap<ClientKey, Held>,
    capacity: usize,
    /// When lapsed entries were last swept out (at most once per [`LEASE_LAPSE`]).
    swept: Option<Instant>,
}

impl Default for LocalLeases {
    fn default() -> LocalLeases {
        LocalLeases::with_capacity(MAX_LEASED_CLIENTS)
    }
}

impl LocalLeases {
    /// Leases for at most `capacity` clients.
    pub fn with_capacity(capacity: usize) -> LocalLeases {
        LocalLeases {
            held: BTreeMap::new(),
            capacity,
            swept: None,
        }
    }

    /// Spends one of `ip`'s held tokens at `now`: `true` when it held one that has not lapsed.
    pub fn spend(&mut self, ip: IpAddr, now: Instant) -> bool {
        let key = ClientKey::of(ip);
        let Some(held) = self.held.get_mut(&key) else {
            return false;
        };
        if held.until <= now {
            self.held.remove(&key);
            return false;
        }
        held.tokens -= 1;
        if held.tokens == 0 {
            self.held.remove(&key);
        }
        true
    }

    /// How many tokens to ask the shared store for on behalf of `ip` at `now`:
    /// [`LEASE_TOKENS`] when the surplus can be kept, 1 when the table is full of clients whose
    /// tokens have not lapsed.
    pub fn want(&mut self, ip: IpAddr, now: Instant) -> u32 {
        if self.has_room(ClientKey::of(ip), now) {
            LEASE_TOKENS
        } else {
            1
        }
    }

    /// Keeps `tokens` more for `ip`, drawn from the shared limit at `now`. Dropped (they lapse
    /// at once) when the table is full.
    pub fn keep(&mut self, ip: IpAddr, tokens: u32, now: Instant) {
        let key = ClientKey::of(ip);
        if tokens == 0 || !self.has_room(key, now) {
            return;
        }
        let until = now + LEASE_LAPSE;
        match self.held.get_mut(&key) {
            // Tokens held already lapse first: the batch keeps the earlier end, so no token
            // outlives its draw by more than the lapse.
            Some(held) if held.until > now => held.tokens = held.tokens.saturating_add(tokens),
            _ => {
                self.held.insert(key, Held { tokens, until });
            }
        }
    }

    /// Clients holding tokens (some may have lapsed and not been swept yet).
    pub fn clients(&self) -> usize {
        self.held.len()
    }

    /// Whether `key` has an entry or one fits, sweeping lapsed entries when full (at most once
    /// per [`LEASE_LAPSE`], so a full table costs no more than a lookup per request).
    fn has_room(&mut self, key: ClientKey, now: Instant) -> bool {
        if self.held.len() < self.capacity || self.held.contains_key(&key) {
            return true;
        }
        if self.swept.is_none_or(|at| at + LEASE_LAPSE <= now) {
            self.swept = Some(now);
            self.held.retain(|_, held| held.until > now);
        }
        self.held.len() < self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_then_refill() {
        let start = Duration::from_secs(1_800_000_000);
        let mut limiter = RateLimiter::new(60, 3);
        let ip: IpAddr = "203.0.113.7".parse().unwrap();
        for _ in 0..3 {
            assert_eq!(limiter.check(ip, start), Ok(()));
        }
        assert_eq!(limiter.check(ip, start), Err(1));
        assert_eq!(
            limiter.check(ip, start + Duration::from_millis(1_000)),
            Ok(())
        );
        assert_eq!(
            limiter.check(ip, start + Duration::from_millis(1_000)),
            Err(1)
        );
        let slow = &mut RateLimiter::new(6, 1);
        assert_eq!(slow.check(ip, start), Ok(()));
        assert_eq!(slow.check(ip, start), Err(10));
    }

    #[test]
    fn ipv6_grouped_by_64_and_mapped_as_v4() {
        let start = Duration::from_secs(1_800_000_000);
        let mut limiter = RateLimiter::new(60, 1);
        assert_eq!(
            limiter.check("2001:db8:1:2::1".parse().unwrap(), start),
            Ok(())
        );
        assert!(limiter
            .check("2001:db8:1:2:ffff::9".parse().unwrap(), start)
            .is_err());
        assert_eq!(
            limiter.check("2001:db8:1:3::1".parse().unwrap(), start),
            Ok(())
        );
        assert_eq!(limiter.check("192.0.2.1".parse().unwrap(), start), Ok(()));
        assert!(limiter
            .check("::ffff:192.0.2.1".parse().unwrap(), start)
            .is_err());
    }

    #[test]
    fn bounded_memory_fails_closed() {
        let start = Duration::from_secs(1_800_000_000);
        let mut limiter = RateLimiter::with_capacity(60, 2, 2);
        assert_eq!(limiter.check("192.0.2.1".parse().unwrap(), start), Ok(()));
        assert_eq!(limiter.check("192.0.2.2".parse().unwrap(), start), Ok(()));
        assert_eq!(limiter.check("192.0.2.3".parse().unwrap(), start), Err(1));
        // Once the others have refilled they are forgotten, and new clients fit again.
        assert_eq!(
            limiter.check("192.0.2.3".parse().unwrap(), start + Duration::from_secs(5)),
            Ok(())
        );
    }

    #[test]
    fn a_batch_takes_at_most_an_eighth_of_what_is_available_and_at_least_one() {
        assert_eq!(grant(1_000, 32), 32);
        assert_eq!(grant(200, 32), 25);
        assert_eq!(grant(15, 32), 1);
        assert_eq!(grant(1, 32), 1);
        assert_eq!(grant(100, 0), 1);
        assert_eq!(largest_batch(20), 2);
        assert_eq!(largest_batch(60), 7);
        assert_eq!(largest_batch(1_000_000), LEASE_TOKENS);
        let start = Duration::from_secs(1_800_000_000);
        let mut limiter = RateLimiter::new(60, 20);
        let ip: IpAddr = "203.0.113.7".parse().unwrap();
        let taken: Vec<_> = (0..5).map(|_| limiter.take(ip, start, 32)).collect();
        assert_eq!(taken, [Ok(2), Ok(2), Ok(2), Ok(1), Ok(1)]);
        let rest = (0..20)
            .filter(|_| limiter.take(ip, start, 32).is_ok())
            .count();
        assert_eq!(rest, 20 - 8, "never more than the burst");
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // the test needs one arbitrary base instant
    fn leased_tokens_are_spent_once_lapse_and_are_bounded() {
        let t = Instant::now();
        let ip: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let mut leases = LocalLeases::with_capacity(2);
        assert!(!leases.spend(ip, t));
        assert_eq!(leases.want(ip, t), LEASE_TOKENS);
        leases.keep(ip, 2, t);
        // Another address in the same /64 spends the same lease.
        assert!(leases.spend("2001:db8:1:2::9".parse().unwrap(), t));
        assert!(leases.spend(ip, t + Duration::from_millis(999)));
        assert!(!leases.spend(ip, t));
        assert_eq!(leases.clients(), 0);
        // Unspent tokens lapse LEASE_LAPSE after their draw; a later batch keeps the earlier end.
        leases.keep(ip, 3, t);
        leases.keep(ip, 3, t + Duration::from_millis(500));
        assert!(leases.spend(ip, t + Duration::from_millis(900)));
        assert!(!leases.spend(ip, t + LEASE_LAPSE));
        // Full of clients whose tokens have not lapsed: a new one asks for one token, and a
        // surplus it gets anyway is not kept.
        leases.keep("192.0.2.1".parse().unwrap(), 1, t);
        leases.keep("192.0.2.2".parse().unwrap(), 1, t);
        let third: IpAddr = "192.0.2.3".parse().unwrap();
        assert_eq!(leases.want(third, t), 1);
        leases.keep(third, 5, t);
        assert!(!leases.spend(third, t));
        assert_eq!(leases.clients(), 2);
        // Once theirs lapse, the sweep makes room.
        assert_eq!(leases.want(third, t + LEASE_LAPSE), LEASE_TOKENS);
        assert_eq!(leases.clients(), 0);
    }
}
