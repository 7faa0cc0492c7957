//! Per-client rate limiting (docs/contract.md "Request order" step 2: 429 `RATE_LIMITED` with `Retry-After`): a
//! token bucket per client address, IPv6 clients grouped by /64 (one subscriber's prefix),
//! IPv4-mapped IPv6 judged as IPv4. Pure: time comes in as the time since the UNIX epoch (the
//! caller's clock), so several instances sharing one store judge by the same clock.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

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
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            let wait = Duration::from_secs_f64((1.0 - bucket.tokens) / rate);
            Err(wait
                .as_secs()
                .saturating_add(u64::from(wait.subsec_nanos() > 0))
                .max(1))
        }
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
}
