//! The client's address for the rate limiter and the access log. By default it is the TCP
//! peer. Behind a proxy the operator trusts (`TRUSTED_PROXIES`), it is the right-most address
//! of `X-Forwarded-For` that is not itself a trusted proxy — each proxy appends the address it
//! received the request from, so everything left of the first untrusted hop could have been
//! written by the client and is ignored. A peer outside `TRUSTED_PROXIES` is never believed.

use std::net::IpAddr;

use ipnet::IpNet;

use crate::http::request::RequestHead;

/// Whether `ip` is inside one of the `trusted` ranges (IPv4-mapped IPv6 judged as IPv4).
pub fn is_trusted_proxy(trusted: &[IpNet], ip: IpAddr) -> bool {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    trusted.iter().any(|net| net.contains(&ip))
}

/// The client address of a request that came from `peer` (see the module docs). Every
/// `X-Forwarded-For` field counts, in order; entries may carry a port (`1.2.3.4:5678`,
/// `[2001:db8::1]:443`). An entry that is not an address ends the walk: the last trusted hop
/// before it is the best the service knows.
pub fn client_ip(peer: IpAddr, head: &RequestHead, trusted: &[IpNet]) -> IpAddr {
    if trusted.is_empty() || !is_trusted_proxy(trusted, peer) {
        return peer;
    }
    let forwarded: Vec<&str> = head
        .headers
        .iter()
        .filter(|(name, _)| name == "x-forwarded-for")
        .filter_map(|(_, value)| std::str::from_utf8(value).ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .collect();
    let mut client = peer;
    for entry in forwarded.iter().rev() {
        let Some(ip) = parse_entry(entry) else {
            break;
        };
        client = ip;
        if !is_trusted_proxy(trusted, ip) {
            break;
        }
    }
    client
}

fn parse_entry(entry: &str) -> Option<IpAddr> {
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(addr) = entry.parse::<std::net::SocketAddr>() {
        return Some(addr.ip());
    }
    // `[v6]` without a port, or `v4:port` already covered above.
    entry
        .strip_prefix('[')
        .and_then(|e| e.strip_suffix(']'))
        .and_then(|e| e.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::request::try_parse;

    fn head(forwarded: &[&str]) -> RequestHead {
        let mut raw = String::from("GET / HTTP/1.1\r\nHost: x\r\n");
        for value in forwarded {
            raw.push_str(&format!("X-Forwarded-For: {value}\r\n"));
        }
        raw.push_str("\r\n");
        try_parse(raw.as_bytes()).unwrap().unwrap().1
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn only_a_trusted_peer_is_believed_and_the_right_most_untrusted_hop_wins() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let proxy = ip("10.1.2.3");
        // Untrusted peer: its header is ignored.
        assert_eq!(
            client_ip(ip("198.51.100.7"), &head(&["203.0.113.9"]), &trusted),
            ip("198.51.100.7")
        );
        // No trusted proxies configured: the peer, whatever the header says.
        assert_eq!(client_ip(proxy, &head(&["203.0.113.9"]), &[]), proxy);
        // The client wrote a fake first entry; the proxy appended the real one.
        assert_eq!(
            client_ip(proxy, &head(&["1.1.1.1, 203.0.113.9"]), &trusted),
            ip("203.0.113.9")
        );
        // Two trusted hops, over two header fields, with ports.
        assert_eq!(
            client_ip(
                proxy,
                &head(&["1.1.1.1, 203.0.113.9:5555", "10.9.9.9"]),
                &trusted
            ),
            ip("203.0.113.9")
        );
        assert_eq!(
            client_ip(proxy, &head(&["[2001:db8::1]:443"]), &trusted),
            ip("2001:db8::1")
        );
        // Garbage ends the walk at the last trusted hop; no header is the peer.
        assert_eq!(
            client_ip(proxy, &head(&["203.0.113.9, junk, 10.9.9.9"]), &trusted),
            ip("10.9.9.9")
        );
        assert_eq!(client_ip(proxy, &head(&[]), &trusted), proxy);
        // IPv4-mapped IPv6 peers are judged as IPv4.
        assert!(is_trusted_proxy(&trusted, ip("::ffff:10.0.0.1")));
    }
}
