//! The PROXY protocol header (HAProxy's "PROXY protocol" v1 text and v2 binary forms) that an
//! L4 proxy or load balancer sends before the client's bytes, naming the client's address.
//! Parsed with the `ppp` crate. Only believed from a peer in `TRUSTED_PROXIES`, and only when
//! `PROXY_PROTOCOL=true` (then such a peer must send it).

use std::net::IpAddr;

use ppp::{v1, v2, HeaderResult, PartialResult};

/// What the start of a connection holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProxyHeader {
    /// More bytes are needed.
    Incomplete,
    /// Not a valid PROXY header.
    Invalid,
    /// A header of this many bytes; the client's address, when it names one (`None` for
    /// v1 `UNKNOWN`, v2 `LOCAL` or a non-IP family: the peer itself is the client).
    Complete(usize, Option<IpAddr>),
}

/// Reads a PROXY header at the start of `input`.
pub fn parse(input: &[u8]) -> ProxyHeader {
    match HeaderResult::parse(input) {
        HeaderResult::V1(result) if result.is_incomplete() => ProxyHeader::Incomplete,
        HeaderResult::V2(result) if result.is_incomplete() => ProxyHeader::Incomplete,
        HeaderResult::V1(Ok(header)) => {
            let client = match header.addresses {
                v1::Addresses::Tcp4(a) => Some(IpAddr::V4(a.source_address)),
                v1::Addresses::Tcp6(a) => Some(IpAddr::V6(a.source_address)),
                v1::Addresses::Unknown => None,
            };
            ProxyHeader::Complete(header.header.len(), client)
        }
        HeaderResult::V2(Ok(header)) => {
            let client = match (header.command, header.addresses) {
                (v2::Command::Proxy, v2::Addresses::IPv4(a)) => Some(IpAddr::V4(a.source_address)),
                (v2::Command::Proxy, v2::Addresses::IPv6(a)) => Some(IpAddr::V6(a.source_address)),
                _ => None,
            };
            ProxyHeader::Complete(header.len(), client)
        }
        HeaderResult::V1(Err(_)) | HeaderResult::V2(Err(_)) => ProxyHeader::Invalid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_and_v2_headers_name_the_client() {
        let v1 = b"PROXY TCP4 203.0.113.7 192.0.2.1 56324 443\r\nGET / HTTP/1.1\r\n";
        assert_eq!(
            parse(v1),
            ProxyHeader::Complete(44, Some("203.0.113.7".parse().unwrap()))
        );
        assert_eq!(parse(&v1[..20]), ProxyHeader::Incomplete);
        assert_eq!(
            parse(b"PROXY UNKNOWN\r\nGET"),
            ProxyHeader::Complete(15, None)
        );
        assert_eq!(parse(b"GET / HTTP/1.1\r\n\r\n"), ProxyHeader::Invalid);
        let mut v2 = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
        v2.extend_from_slice(&[0x21, 0x11, 0, 12]);
        v2.extend_from_slice(&[198, 51, 100, 9, 192, 0, 2, 1, 0x1f, 0x90, 0x01, 0xbb]);
        let total = v2.len();
        v2.extend_from_slice(b"GET / HTTP/1.1\r\n\r\n");
        assert_eq!(
            parse(&v2),
            ProxyHeader::Complete(total, Some("198.51.100.9".parse().unwrap()))
        );
        assert_eq!(parse(&v2[..14]), ProxyHeader::Incomplete);
    }
}
