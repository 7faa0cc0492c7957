//! SSRF policy: which URLs the service may fetch and which addresses it may connect to
//! (docs/contract.md "Request order" step 4 and "Fetching the target site";
//! docs/security.md).
//!
//! The URL is parsed once, with the WHATWG parser of the `url` crate, which turns every IPv4
//! spelling (`2130706433`, `0x7f.1`, `017700000001`, `127.1`, full-width digits…) into one
//! `Host::Ipv4`; the decision is taken on that parsed host. Names are checked again after DNS:
//! [`approve`] refuses a name if *any* of its addresses is blocked, and only it can build the
//! [`ApprovedAddr`] a runtime is allowed to connect to.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use ipnet::IpNet;
use url::{Host, Url};

/// Longest accepted URL, in characters (docs/contract.md).
pub const MAX_URL_CHARS: usize = 2048;
/// Longest accepted URL once parsed and serialised (percent-encoded), in bytes
/// (docs/security.md: percent-encoding can grow a 2048-character input
/// up to twelvefold; many servers cap request lines near 8 KiB).
pub const MAX_SERIALISED_URL_BYTES: usize = 8192;
/// Ports a target URL may use unless configured otherwise (docs/contract.md "Request order" step 4).
pub const DEFAULT_ALLOWED_PORTS: [u16; 5] = [80, 443, 8000, 8080, 8443];

/// The operator's network settings that the policy applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetPolicy {
    /// Ports a target may use (`ALLOWED_PORTS`).
    pub allowed_ports: Vec<u16>,
    /// Ranges exempted from the block list (`ALLOW_PRIVATE_CIDRS`; empty in production, a
    /// loopback range in tests).
    pub allowed_private: Vec<IpNet>,
    /// The service's own addresses (the listening address when it is specific, and the
    /// host's outward addresses the runtime finds at start-up): refused whatever the port
    /// (docs/security.md: Smokescreen and Advocate refuse their own addresses), unless an
    /// exempted range covers them (tests).
    pub own_addrs: Vec<IpAddr>,
}

impl Default for NetPolicy {
    fn default() -> Self {
        NetPolicy {
            allowed_ports: DEFAULT_ALLOWED_PORTS.to_vec(),
            allowed_private: Vec::new(),
            own_addrs: Vec::new(),
        }
    }
}

impl NetPolicy {
    /// Whether `ip` may be connected to: public, or inside an exempted range.
    pub fn permits(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        let own = self.own_addrs.iter().any(|own| canonical(*own) == ip);
        !(is_blocked(ip) || own) || self.allowed_private.iter().any(|net| net.contains(&ip))
    }
}

/// Why a URL or an address is refused. [`UrlRejection::is_private_address`] tells which of the
/// spec's two 400 codes applies (`PRIVATE_ADDRESS` or `INVALID_URL`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlRejection {
    /// A blocked address resolved from the name (the message never names the address).
    BlockedResolution,
    /// A blocked IP literal (any spelling).
    BlockedAddress,
    /// A host name that is not a valid DNS name (empty or over-long labels, odd characters).
    InvalidHostName,
    /// Control, white-space or invisible characters (leading/trailing spaces included).
    InvalidCharacters,
    /// A name that only resolves locally (`localhost`, single label, `.local`, `.internal`…).
    LocalName,
    /// No host at all.
    MissingHost,
    /// `.onion` names are not reachable through DNS (RFC 7686).
    OnionName,
    /// A port outside the allowed list.
    PortNotAllowed(u16),
    /// Not http or https.
    Scheme(String),
    /// Longer than [`MAX_URL_CHARS`] characters.
    TooLong,
    /// Longer than [`MAX_SERIALISED_URL_BYTES`] bytes once percent-encoded.
    SerialisedTooLong,
    /// Not a URL (WHATWG parsing failed).
    Unparseable,
    /// User name or password in the URL.
    Userinfo,
}

impl UrlRejection {
    /// `true` for `PRIVATE_ADDRESS` (blocked literal, local name, blocked DNS answer), `false`
    /// for `INVALID_URL`.
    pub fn is_private_address(&self) -> bool {
        matches!(
            self,
            Self::BlockedAddress | Self::BlockedResolution | Self::LocalName
        )
    }
}

impl std::fmt::Display for UrlRejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BlockedResolution => {
                write!(f, "the host resolves to a private or reserved address")
            }
            Self::BlockedAddress => write!(f, "the host is a private or reserved IP address"),
            Self::InvalidHostName => write!(f, "the host is not a valid DNS name"),
            Self::InvalidCharacters => write!(
                f,
                "the url contains control, white-space or invisible characters"
            ),
            Self::LocalName => write!(f, "the host is a local name"),
            Self::MissingHost => write!(f, "the url has no host"),
            Self::OnionName => write!(f, "onion names cannot be fetched"),
            Self::PortNotAllowed(port) => write!(f, "port {port} is not allowed"),
            Self::Scheme(scheme) => {
                write!(f, "scheme {scheme:?} is not allowed; use http or https")
            }
            Self::TooLong => write!(f, "the url is longer than {MAX_URL_CHARS} characters"),
            Self::SerialisedTooLong => write!(
                f,
                "the url is longer than {MAX_SERIALISED_URL_BYTES} bytes once percent-encoded"
            ),
            Self::Unparseable => write!(f, "the url cannot be parsed"),
            Self::Userinfo => write!(f, "the url must not contain a user name or password"),
        }
    }
}

impl std::error::Error for UrlRejection {}

/// A URL the policy accepts: http(s), allowed port, no userinfo, a public-looking host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl {
    url: Url,
}

impl PublicUrl {
    /// Checks a submitted URL string in the order of docs/contract.md "Request order" step 4.
    ///
    /// # Errors
    /// The first rule the string breaks.
    pub fn parse(raw: &str, policy: &NetPolicy) -> Result<PublicUrl, UrlRejection> {
        if raw.chars().count() > MAX_URL_CHARS {
            return Err(UrlRejection::TooLong);
        }
        if raw.chars().any(is_forbidden_char) {
            return Err(UrlRejection::InvalidCharacters);
        }
        let url = Url::parse(raw).map_err(|_| UrlRejection::Unparseable)?;
        PublicUrl::check(url, policy)
    }

    /// Checks an already parsed URL (a redirect target) with the same rules.
    ///
    /// # Errors
    /// The first rule the URL breaks.
    pub fn check(url: Url, policy: &NetPolicy) -> Result<PublicUrl, UrlRejection> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(UrlRejection::Scheme(url.scheme().to_string()));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(UrlRejection::Userinfo);
        }
        if url.as_str().len() > MAX_SERIALISED_URL_BYTES {
            return Err(UrlRejection::SerialisedTooLong);
        }
        let port = url
            .port_or_known_default()
            .ok_or(UrlRejection::Unparseable)?;
        if !policy.allowed_ports.contains(&port) {
            return Err(UrlRejection::PortNotAllowed(port));
        }
        match url.host() {
            None => return Err(UrlRejection::MissingHost),
            Some(Host::Ipv4(ip)) => check_literal(IpAddr::V4(ip), policy)?,
            Some(Host::Ipv6(ip)) => check_literal(IpAddr::V6(ip), policy)?,
            Some(Host::Domain(name)) => check_name(name)?,
        }
        Ok(PublicUrl { url })
    }

    /// The parsed URL.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The port to connect to (explicit, or the scheme's default).
    pub fn port(&self) -> u16 {
        self.url.port_or_known_default().unwrap_or(80)
    }

    /// The IP literal of the host, if it is one (then no DNS is needed).
    pub fn ip_literal(&self) -> Option<IpAddr> {
        match self.url.host() {
            Some(Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
            _ => None,
        }
    }

    /// The host as text (for DNS and TLS SNI); IPv6 literals without brackets.
    pub fn host(&self) -> String {
        match self.url.host() {
            Some(Host::Ipv6(ip)) => ip.to_string(),
            Some(host) => host.to_string(),
            None => String::new(),
        }
    }
}

/// The only address a runtime may connect to: built by [`approve`] after the DNS answer (or
/// the IP literal) passed the policy. Its constructor is private to this module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApprovedAddr(SocketAddr);

impl ApprovedAddr {
    /// The socket address to dial.
    pub fn socket_addr(&self) -> SocketAddr {
        self.0
    }
}

/// Judges a DNS answer for `port`: refused if it is empty or if *any* address is blocked
/// (docs/contract.md: "if any answer is blocked, refuse the name"); otherwise the first address,
/// which is then the only one the fetch may use (no second lookup: no DNS rebinding).
///
/// # Errors
/// [`UrlRejection::BlockedResolution`] for a blocked address, [`UrlRejection::Unparseable`]
/// (mapped by the caller to a fetch failure) for an empty answer.
pub fn approve(
    addrs: &[IpAddr],
    port: u16,
    policy: &NetPolicy,
) -> Result<ApprovedAddr, UrlRejection> {
    if addrs.iter().any(|ip| !policy.permits(*ip)) {
        return Err(UrlRejection::BlockedResolution);
    }
    let first = addrs.first().ok_or(UrlRejection::Unparseable)?;
    Ok(ApprovedAddr(SocketAddr::new(canonical(*first), port)))
}

/// Approves an address of an endpoint the operator configured (the facilitator): its host is
/// trusted configuration, so the block list does not apply (docs/architecture.md). `None` for
/// an empty answer. Crate-private: only the core's fetch of the configured facilitator URL
/// may skip the policy, so an [`ApprovedAddr`] outside the core always passed it.
pub(crate) fn approve_configured(addrs: &[IpAddr], port: u16) -> Option<ApprovedAddr> {
    addrs
        .first()
        .map(|ip| ApprovedAddr(SocketAddr::new(canonical(*ip), port)))
}

/// Azure's WireServer (168.63.129.16/32): a platform endpoint reachable from every Azure VM
/// although the address is public (docs/security.md).
const AZURE_WIRESERVER: Ipv4Addr = Ipv4Addr::new(168, 63, 129, 16);

/// Whether `ip` is in the block list of docs/contract.md ("Fetching the target site"), plus
/// Azure's WireServer (168.63.129.16):
/// IPv4-mapped IPv6 is judged as IPv4; IPv6 outside 2000::/3 is blocked, and so are 2001::/23,
/// 2001:db8::/32, 2002::/16 and 3fff::/20 inside it.
pub fn is_blocked(ip: IpAddr) -> bool {
    match canonical(ip) {
        IpAddr::V4(v4) => is_blocked_v4(v4),
        IpAddr::V6(v6) => is_blocked_v6(v6),
    }
}

fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    }
}

fn is_blocked_v4(ip: Ipv4Addr) -> bool {
    const BLOCKED: [(u32, u8); 15] = [
        (0x0000_0000, 8),  // 0.0.0.0/8
        (0x0A00_0000, 8),  // 10.0.0.0/8
        (0x6440_0000, 10), // 100.64.0.0/10
        (0x7F00_0000, 8),  // 127.0.0.0/8
        (0xA9FE_0000, 16), // 169.254.0.0/16
        (0xAC10_0000, 12), // 172.16.0.0/12
        (0xC000_0000, 24), // 192.0.0.0/24
        (0xC000_0200, 24), // 192.0.2.0/24
        (0xC058_6300, 24), // 192.88.99.0/24
        (0xC0A8_0000, 16), // 192.168.0.0/16
        (0xC612_0000, 15), // 198.18.0.0/15
        (0xC633_6400, 24), // 198.51.100.0/24
        (0xCB00_7100, 24), // 203.0.113.0/24
        (0xE000_0000, 4),  // 224.0.0.0/4
        (0xF000_0000, 4),  // 240.0.0.0/4 (includes 255.255.255.255)
    ];
    let bits = u32::from(ip);
    ip == AZURE_WIRESERVER
        || BLOCKED
            .iter()
            .any(|(network, prefix)| bits >> (32 - prefix) == network >> (32 - prefix))
}

fn is_blocked_v6(ip: Ipv6Addr) -> bool {
    let bits = u128::from(ip);
    let in_prefix =
        |network: u128, prefix: u32| bits >> (128 - prefix) == network >> (128 - prefix);
    !in_prefix(0x2000 << 112, 3)
        || in_prefix(0x2001 << 112, 23)
        || in_prefix(0x2001_0db8 << 96, 32)
        || in_prefix(0x2002 << 112, 16)
        || in_prefix(0x3fff << 112, 20)
}

fn check_literal(ip: IpAddr, policy: &NetPolicy) -> Result<(), UrlRejection> {
    if policy.permits(ip) {
        Ok(())
    } else {
        Err(UrlRejection::BlockedAddress)
    }
}

/// DNS-name rules of docs/security.md (the parser has already lower-cased and punycoded).
fn check_name(name: &str) -> Result<(), UrlRejection> {
    let name = name.strip_suffix('.').unwrap_or(name);
    if name.is_empty() || name.len() > 253 {
        return Err(UrlRejection::InvalidHostName);
    }
    let labels: Vec<&str> = name.split('.').collect();
    let label_ok = |l: &&str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
    };
    if !labels.iter().all(label_ok) {
        return Err(UrlRejection::InvalidHostName);
    }
    let last = labels[labels.len() - 1];
    if last == "onion" {
        return Err(UrlRejection::OnionName);
    }
    if labels.len() == 1
        || matches!(
            last,
            "localhost" | "local" | "internal" | "localdomain" | "test"
        )
        || name.ends_with(".home.arpa")
        || name == "home.arpa"
    {
        return Err(UrlRejection::LocalName);
    }
    Ok(())
}

/// Control, white-space and invisible (format) characters, which the WHATWG parser would
/// silently drop or trim (docs/security.md), so a URL holding them is refused outright.
fn is_forbidden_char(c: char) -> bool {
    c.is_control()
        || c.is_whitespace()
        || matches!(c,
            '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
            | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
            | '\u{FFA0}' | '\u{FFF0}'..='\u{FFF8}' | '\u{E0000}'..='\u{E0FFF}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(raw: &str) -> Result<PublicUrl, UrlRejection> {
        PublicUrl::parse(raw, &NetPolicy::default())
    }

    #[test]
    fn accepts_public_urls() {
        for raw in [
            "https://example.com/",
            "http://www.example.co.uk/contact?x=1#y",
            "https://example.com:8443/",
            "http://8.8.8.8/",
            "http://[2606:4700:4700::1111]/",
            "https://bücher.de/",
            "https://example.com./",
            "http://100.63.255.255/",
            "http://172.32.0.1/",
            "http://[::ffff:8.8.8.8]/",
            // `\` is a path separator for http(s): the host is example.com.
            "http://example.com\\@127.0.0.1/",
            // A numeric first label does not make a name an address.
            "http://0x7f.0.0.1.example.com/",
        ] {
            assert!(check(raw).is_ok(), "{raw}: {:?}", check(raw));
        }
    }

    #[test]
    fn every_ipv4_spelling_of_a_blocked_address_is_refused() {
        for raw in [
            "http://127.0.0.1/",
            "http://2130706433/",
            "http://0x7f.1/",
            "http://017700000001/",
            "http://127.1/",
            "http://0177.0.0.01/",
            "http://127.000.000.001/",
            "http://0X7F.1/",
            "http://0x.0x.0x.0x/",
            "http://１２７.０.０.１/",
            "http://127。0。0。1/",
            "http://%31%32%37%2e%30%2e%30%2e%31/",
            "http://127.0.0.1./",
            "http://169.254.169.254/",
            "http://10.0.0.1/",
            "http://100.64.0.1/",
            "http://172.16.0.1/",
            "http://192.168.1.1/",
            "http://192.0.0.170/",
            "http://198.18.0.1/",
            "http://224.0.0.1/",
            "http://255.255.255.255/",
            "http://0.0.0.0/",
            "http://127.0.0.1\\@example.com/",
            "http://foo@bar@127.0.0.1/",
        ] {
            let got = check(raw);
            assert!(
                matches!(
                    got,
                    Err(UrlRejection::BlockedAddress | UrlRejection::Userinfo)
                ),
                "{raw}: {got:?}"
            );
        }
    }

    #[test]
    fn blocked_ipv6_forms() {
        for raw in [
            "http://[::1]/",
            "http://[::]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[::127.0.0.1]/",
            "http://[fd00:ec2::254]/",
            "http://[fe80::1]/",
            "http://[ff02::1]/",
            "http://[64:ff9b::a9fe:a9fe]/",
            "http://[2001::1]/",
            "http://[2001:db8::1]/",
            "http://[2002:a9fe:a9fe::]/",
            "http://[3fff::1]/",
            "http://[::0.0.0.1]/",
        ] {
            assert_eq!(check(raw), Err(UrlRejection::BlockedAddress), "{raw}");
        }
    }

    #[test]
    fn local_and_invalid_names() {
        for (raw, want) in [
            ("http://localhost/", UrlRejection::LocalName),
            ("http://loc%61lhost/", UrlRejection::LocalName),
            ("http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", UrlRejection::LocalName),
            ("http://api.localhost/", UrlRejection::LocalName),
            ("http://printer.local/", UrlRejection::LocalName),
            ("http://metadata.google.internal/", UrlRejection::LocalName),
            ("http://metadata/", UrlRejection::LocalName),
            ("http://router.home.arpa/", UrlRejection::LocalName),
            ("http://box.localdomain/", UrlRejection::LocalName),
            ("http://site.test/", UrlRejection::LocalName),
            ("http://abc.onion/", UrlRejection::OnionName),
            ("http://example..com/", UrlRejection::InvalidHostName),
            ("http://a*.example.com/", UrlRejection::InvalidHostName),
        ] {
            assert_eq!(check(raw), Err(want.clone()), "{raw}");
            assert_eq!(
                want.is_private_address(),
                matches!(want, UrlRejection::LocalName),
                "{raw}"
            );
        }
        let long_label = format!("http://{}.com/", "a".repeat(64));
        assert_eq!(check(&long_label), Err(UrlRejection::InvalidHostName));
    }

    #[test]
    fn shape_rules_in_order() {
        assert_eq!(
            check(&format!("https://example.com/{}", "a".repeat(2048))),
            Err(UrlRejection::TooLong)
        );
        for raw in [
            " https://example.com/",
            "https://example.com/ ",
            "http://local\nhost/",
            "https://exam\u{200b}ple.com/",
            "https://example.com/\u{0}",
            "https://example.com/\u{202e}",
        ] {
            assert_eq!(check(raw), Err(UrlRejection::InvalidCharacters), "{raw:?}");
        }
        assert_eq!(check("not a url"), Err(UrlRejection::InvalidCharacters));
        assert_eq!(check("example.com"), Err(UrlRejection::Unparseable));
        assert_eq!(
            check("ftp://example.com/"),
            Err(UrlRejection::Scheme("ftp".into()))
        );
        assert_eq!(
            check("gopher://127.0.0.1/"),
            Err(UrlRejection::Scheme("gopher".into()))
        );
        assert_eq!(
            check("https://user:pw@example.com/"),
            Err(UrlRejection::Userinfo)
        );
        assert_eq!(
            check("https://user@example.com/"),
            Err(UrlRejection::Userinfo)
        );
        // Within 2048 characters, but percent-encoded past 8192 bytes (docs/security.md):
        // each `é` becomes `%C3%A9` (6 bytes).
        let grows = format!("https://example.com/{}", "é".repeat(1400));
        assert!(grows.chars().count() <= MAX_URL_CHARS);
        assert_eq!(check(&grows), Err(UrlRejection::SerialisedTooLong));
        let fits = format!("https://example.com/{}", "é".repeat(1300));
        assert!(check(&fits).is_ok());
        // Rule 7 comes before the port rule (rule 8).
        let both = format!("https://example.com:22/{}", "é".repeat(1400));
        assert_eq!(check(&both), Err(UrlRejection::SerialisedTooLong));
        assert_eq!(
            check("http://example.com:22/"),
            Err(UrlRejection::PortNotAllowed(22))
        );
        assert_eq!(
            check("http://example.com:0/"),
            Err(UrlRejection::PortNotAllowed(0))
        );
        assert!(check("http://example.com:0000000000080/").is_ok());
        assert_eq!(
            check("http://example.com:65536/"),
            Err(UrlRejection::Unparseable)
        );
    }

    #[test]
    fn allow_list_exempts_test_ranges_only() {
        let policy = NetPolicy {
            allowed_private: vec!["127.0.0.0/8".parse().unwrap()],
            ..NetPolicy::default()
        };
        assert!(PublicUrl::parse("http://127.0.0.1:8080/", &policy).is_ok());
        assert_eq!(
            PublicUrl::parse("http://10.0.0.1/", &policy),
            Err(UrlRejection::BlockedAddress)
        );
        assert!(approve(&["127.0.0.1".parse().unwrap()], 8080, &policy).is_ok());
    }

    #[test]
    fn azure_wireserver_and_the_services_own_addresses_are_refused() {
        let policy = NetPolicy {
            own_addrs: vec!["93.184.216.34".parse().unwrap()],
            ..NetPolicy::default()
        };
        for url in ["http://168.63.129.16/", "http://[::ffff:168.63.129.16]/"] {
            assert_eq!(
                PublicUrl::parse(url, &policy),
                Err(UrlRejection::BlockedAddress),
                "{url}"
            );
        }
        assert!(PublicUrl::parse("http://168.63.129.17/", &policy).is_ok());
        // Our own address, whatever the port, as a literal or as a DNS answer.
        for url in ["http://93.184.216.34/", "http://93.184.216.34:8080/"] {
            assert_eq!(
                PublicUrl::parse(url, &policy),
                Err(UrlRejection::BlockedAddress),
                "{url}"
            );
        }
        let own: IpAddr = "93.184.216.34".parse().unwrap();
        assert_eq!(
            approve(&[own], 443, &policy),
            Err(UrlRejection::BlockedResolution)
        );
        let wireserver: IpAddr = "168.63.129.16".parse().unwrap();
        assert_eq!(
            approve(&[wireserver], 80, &NetPolicy::default()),
            Err(UrlRejection::BlockedResolution)
        );
    }

    #[test]
    fn approve_refuses_any_blocked_answer() {
        let policy = NetPolicy::default();
        let public: IpAddr = "93.184.216.34".parse().unwrap();
        let private: IpAddr = "10.0.0.5".parse().unwrap();
        assert_eq!(
            approve(&[public], 443, &policy).unwrap().socket_addr(),
            SocketAddr::new(public, 443)
        );
        assert_eq!(
            approve(&[public, private], 443, &policy),
            Err(UrlRejection::BlockedResolution)
        );
        assert_eq!(
            approve(&["::ffff:10.0.0.5".parse().unwrap()], 443, &policy),
            Err(UrlRejection::BlockedResolution)
        );
        assert_eq!(approve(&[], 443, &policy), Err(UrlRejection::Unparseable));
        assert!(UrlRejection::BlockedResolution.is_private_address());
        assert!(!UrlRejection::BlockedResolution
            .to_string()
            .contains("10.0.0.5"));
    }

    #[test]
    fn boundaries_of_the_block_list() {
        for public in [
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.167.255.255",
            "192.169.0.1",
            "198.17.255.255",
            "198.20.0.1",
            "223.255.255.255",
            "2000::1",
            "2001:200::1",
            "2003::1",
            "3ffe::1",
            "3fff:1000::1",
        ] {
            assert!(!is_blocked(public.parse().unwrap()), "{public}");
        }
    }

    fn blocked_v4_ranges() -> Vec<IpNet> {
        [
            "0.0.0.0/8",
            "10.0.0.0/8",
            "100.64.0.0/10",
            "127.0.0.0/8",
            "169.254.0.0/16",
            "172.16.0.0/12",
            "192.0.0.0/24",
            "192.0.2.0/24",
            "192.88.99.0/24",
            "192.168.0.0/16",
            "198.18.0.0/15",
            "198.51.100.0/24",
            "203.0.113.0/24",
            "224.0.0.0/4",
            "240.0.0.0/4",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect()
    }

    proptest! {
        #[test]
        fn every_address_in_a_blocked_v4_range_is_blocked_also_when_mapped(range in 0usize..15, offset in any::<u32>()) {
            let IpNet::V4(net) = blocked_v4_ranges()[range] else { unreachable!() };
            let host_bits = 32 - u32::from(net.prefix_len());
            let mask = if host_bits == 32 { u32::MAX } else { (1u32 << host_bits) - 1 };
            let ip = Ipv4Addr::from(u32::from(net.network()) | (offset & mask));
            prop_assert!(is_blocked(IpAddr::V4(ip)));
            prop_assert!(is_blocked(IpAddr::V6(ip.to_ipv6_mapped())));
            let url = format!("http://{}/", u32::from(ip));
            prop_assert_eq!(check(&url), Err(UrlRejection::BlockedAddress));
            let mapped = format!("http://[::ffff:{ip}]/");
            prop_assert_eq!(check(&mapped), Err(UrlRejection::BlockedAddress));
        }

        #[test]
        fn ipv6_outside_global_unicast_is_blocked(bits in any::<u128>()) {
            let ip = Ipv6Addr::from(bits);
            let global = bits >> 125 == 0b001;
            if !global && ip.to_ipv4_mapped().is_none() {
                prop_assert!(is_blocked(IpAddr::V6(ip)));
            }
        }

        #[test]
        fn documentation_and_tunnel_prefixes_are_blocked(low in any::<u128>(), which in 0usize..4) {
            let (network, prefix) = [(0x2001u128 << 112, 23), (0x2001_0db8u128 << 96, 32), (0x2002u128 << 112, 16), (0x3fffu128 << 112, 20)][which];
            let ip = Ipv6Addr::from(network | (low >> prefix));
            prop_assert!(is_blocked(IpAddr::V6(ip)));
        }
    }
}
