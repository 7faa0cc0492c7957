//! The host's own outward addresses, for the SSRF block list (`NetPolicy::own_addrs`): a
//! service listening on a wildcard address (`0.0.0.0`, `::`) is reachable at every address
//! of the host, and a fetch of one of them would reach the service itself (docs/security.md:
//! Smokescreen refuses its own listening address, Advocate the machine's interface addresses).
//!
//! The source address the kernel picks for a route to the Internet is the host's outward
//! address. A UDP socket's `connect` asks the routing table for it and sends nothing; the
//! documentation addresses 192.0.2.1 and 2001:db8::1 (RFC 5737, RFC 3849) stand for "any
//! address via the default route". Private or loopback answers are already blocked; a public
//! one (a cloud VM with a public interface address) is what this adds.

use std::net::{IpAddr, SocketAddr, UdpSocket};

/// The outward source addresses of this host (IPv4 and IPv6, each when there is a route);
/// empty when there is none. Nothing is sent.
pub fn outward_addresses() -> Vec<IpAddr> {
    let probes: [(SocketAddr, SocketAddr); 2] = [
        (
            SocketAddr::from(([0, 0, 0, 0], 0)),
            SocketAddr::from(([192, 0, 2, 1], 9)),
        ),
        (
            SocketAddr::from(([0u16; 8], 0)),
            SocketAddr::from(([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1], 9)),
        ),
    ];
    probes
        .iter()
        .filter_map(|(local, remote)| {
            let socket = UdpSocket::bind(local).ok()?;
            socket.connect(remote).ok()?;
            let ip = socket.local_addr().ok()?.ip();
            (!ip.is_unspecified()).then_some(ip)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outward_addresses_are_concrete() {
        // Without a default route (a sandbox) the list is empty; with one, every entry is a
        // real address of this host (it can be bound).
        for ip in outward_addresses() {
            assert!(!ip.is_unspecified());
            assert!(UdpSocket::bind(SocketAddr::new(ip, 0)).is_ok(), "{ip}");
        }
    }
}
