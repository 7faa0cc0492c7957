//! The connection caps: at most `MAX_CONNECTIONS` open client connections
//! (default 10 000) and `MAX_CONNECTIONS_PER_IP` from one peer address (default 256). A
//! runtime asks [`ConnectionGate::admit`] right after `accept`; a refused connection is closed
//! at once, before anything is read or allocated for it. The count is per TCP peer: a trusted
//! proxy (`TRUSTED_PROXIES`) carries many clients, so it is exempt from the per-IP cap.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

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
    per_ip: BTreeMap<IpAddr, usize>,
}

/// Why a connection was refused at accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionRefused {
    /// `MAX_CONNECTIONS` are open.
    TooManyConnections,
    /// `MAX_CONNECTIONS_PER_IP` are open from this address.
    TooManyFromThisAddress,
}

/// One admitted connection's place in the counts, given back when dropped (however the
/// connection ends, so the caps can never leak shut).
#[derive(Debug)]
pub struct ConnectionSlot {
    gate: ConnectionGate,
    ip: Option<IpAddr>,
}

impl ConnectionGate {
    /// A gate for at most `max_total` connections, `max_per_ip` from one address.
    pub fn new(max_total: usize, max_per_ip: usize) -> Self {
        ConnectionGate {
            inner: Arc::new(Mutex::new(Counts::default())),
            max_total,
            max_per_ip,
        }
    }

    /// Admits a connection from `peer`, or says why not. `per_ip_exempt`: the peer is a
    /// trusted proxy (only the total cap applies).
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
        let ip = if per_ip_exempt {
            None
        } else {
            let from_peer = counts.per_ip.entry(peer).or_insert(0);
            if *from_peer >= self.max_per_ip {
                return Err(ConnectionRefused::TooManyFromThisAddress);
            }
            *from_peer += 1;
            Some(peer)
        };
        counts.total += 1;
        Ok(ConnectionSlot {
            gate: self.clone(),
            ip,
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
        if let Some(ip) = self.ip {
            if let Some(n) = counts.per_ip.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    counts.per_ip.remove(&ip);
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
}
