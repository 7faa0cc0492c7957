//! The connection caps: at most `MAX_CONNECTIONS` open client connections
//! (default 10 000) and `MAX_CONNECTIONS_PER_IP` from one client (default 256). A
//! runtime asks [`ConnectionGate::admit`] right after `accept`; a refused connection is closed
//! at once, before anything is read or allocated for it. The count is per TCP peer, grouped as
//! the rate limiter groups clients ([`ClientKey`]: an IPv4 address, or an IPv6 /64, which one
//! subscriber holds whole, IPv4-mapped IPv6 counted as IPv4): a host with a routed /64 is one
//! client, not 2^64. A trusted proxy (`TRUSTED_PROXIES`) carries many clients, so it is exempt
//! from the per-client cap.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use crate::limiter::ClientKey;

/// Counts open connections, in total and per peer address. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct ConnectionGate {
    inner: Arc<Mutex<Counts>>,
    max_total: usize,
    max_per_ip: usize,
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_client: BTreeMap<ClientKey, usize>,
}

/// Why a connection was refused at accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionRefused {
    /// `MAX_CONNECTIONS` are open.
    TooManyConnections,
    /// `MAX_CONNECTIONS_PER_IP` are open from this client (address, or IPv6 /64).
    TooManyFromThisAddress,
}

/// One admitted connection's place in the counts, given back when dropped (however the
/// connection ends, so the caps can never leak shut).
#[derive(Debug)]
pub struct ConnectionSlot {
    gate: ConnectionGate,
    client: Option<ClientKey>,
}

impl ConnectionGate {
    /// A gate for at most `max_total` connections, `max_per_ip` from one client ([`ClientKey`]).
    pub fn new(max_total: usize, max_per_ip: usize) -> Self {
        ConnectionGate {
            inner: Arc::new(Mutex::new(Counts::default())),
            max_total,
            max_per_ip,
        }
    }

    /// Admits a connection from `peer`, or says why not. `per_ip_exempt`: the peer is a
    /// trusted proxy (only the total cap applies). Peers are counted by [`ClientKey`].
    ///
    /// # Errors
    /// [`ConnectionRefused`] when a cap is reached.
    pub fn admit(
        &self,
        peer: IpAddr,
        per_ip_exempt: bool,
    ) -> Result<ConnectionSlot, ConnectionRefused> {
        let mut counts = self.lock();
        if counts.total >= self.max_total {
            return Err(ConnectionRefused::TooManyConnections);
        }
        let client = if per_ip_exempt {
            None
        } else {
            let key = ClientKey::of(peer);
            let from_client = counts.per_client.entry(key).or_insert(0);
            if *from_client >= self.max_per_ip {
                return Err(ConnectionRefused::TooManyFromThisAddress);
            }
            *from_client += 1;
            Some(key)
        };
        counts.total += 1;
        Ok(ConnectionSlot {
            gate: self.clone(),
            client,
        })
    }

    /// Open connections now.
    pub fn open(&self) -> usize {
        self.lock().total
    }

    /// Whether the total cap is reached (new connections are being refused).
    pub fn at_cap(&self) -> bool {
        self.open() >= self.max_total
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut counts = self.gate.lock();
        counts.total = counts.total.saturating_sub(1);
        if let Some(key) = self.client {
            if let Some(n) = counts.per_client.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    counts.per_client.remove(&key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_apply_at_admission_and_dropped_slots_free_them() {
        let gate = ConnectionGate::new(3, 2);
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let first = gate.admit(a, false).unwrap();
        let _second = gate.admit(a, false).unwrap();
        assert_eq!(
            gate.admit(a, false).unwrap_err(),
            ConnectionRefused::TooManyFromThisAddress
        );
        let _third = gate.admit(b, false).unwrap();
        assert!(gate.at_cap());
        assert_eq!(
            gate.admit(b, true).unwrap_err(),
            ConnectionRefused::TooManyConnections
        );
        drop(first);
        assert_eq!(gate.open(), 2);
        // A trusted proxy is not held to the per-IP cap.
        let _proxied = gate.admit(a, true).unwrap();
        assert_eq!(gate.open(), 3);
    }

    /// One host with a routed IPv6 /64 has 2^64 addresses: the per-address cap must count the
    /// prefix, as the rate limiter does ([`crate::limiter::ClientKey`]), or that host could hold
    /// every connection with free requests.
    #[test]
    fn ipv6_addresses_of_one_64_share_one_per_client_count() {
        let gate = ConnectionGate::new(100, 2);
        let ip = |s: &str| -> IpAddr { s.parse().unwrap() };
        let _a = gate.admit(ip("2001:db8:1:2::1"), false).unwrap();
        let _b = gate.admit(ip("2001:db8:1:2::ffff:2"), false).unwrap();
        assert_eq!(
            gate.admit(ip("2001:db8:1:2:abcd::3"), false).unwrap_err(),
            ConnectionRefused::TooManyFromThisAddress
        );
        // Another /64 is another client.
        let other = gate.admit(ip("2001:db8:1:3::1"), false).unwrap();
        drop(other);
        // An IPv4-mapped address is its IPv4 client.
        let _v4 = gate.admit(ip("192.0.2.9"), false).unwrap();
        let _mapped = gate.admit(ip("::ffff:192.0.2.9"), false).unwrap();
        assert_eq!(
            gate.admit(ip("192.0.2.9"), false).unwrap_err(),
            ConnectionRefused::TooManyFromThisAddress
        );
        drop(_a);
        assert!(gate.admit(ip("2001:db8:1:2::7"), false).is_ok());
    }
}
