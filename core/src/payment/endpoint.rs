//! A facilitator endpoint: its base URL and the credentials it demands, and the one place
//! where every facilitator request (`GET /supported`, `POST /verify`, `POST /settle`) is built
//! with them ([`Facilitator::request`]). docs/payments.md, "Authenticated facilitators".
//!
//! Credentials never appear in `Debug` output: [`AuthHeader`] and
//! [`CdpKey`](crate::payment::cdp_jwt::CdpKey) show what kind they are, not their secret.

use std::sync::Arc;

use url::Url;

use crate::fetch::http1;
use crate::payment::cdp_jwt::{self, CdpKey};

/// How logs, `/api/ready` and audit lines name a configured endpoint: `scheme://host[:port]/path`
/// of `url`, without its query, fragment or password (an operator may have put a key there).
pub fn endpoint_label(url: &Url) -> String {
    let mut label = url.clone();
    label.set_query(None);
    label.set_fragment(None);
    let _ = label.set_password(None);
    label.to_string()
}

/// A facilitator: where it is and how the service proves who it is. Its `Debug` shows the URL
/// as logs name it ([`endpoint_label`]: no query, fragment or password) and the
/// credentials by their own `Debug` (the header's value and the key's secret `[redacted]`).
#[derive(Clone, PartialEq, Eq)]
pub struct Facilitator {
    /// The base URL (`FACILITATOR_URL`); `/supported`, `/verify` and `/settle` are appended,
    /// keeping a base path (`https://api.cdp.coinbase.com/platform/v2/x402/verify`).
    pub url: Url,
    /// What every request to it carries.
    pub credentials: FacilitatorCredentials,
}

impl std::fmt::Debug for Facilitator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Facilitator")
            .field("url", &endpoint_label(&self.url))
            .field("credentials", &self.credentials)
            .finish()
    }
}

/// The credentials a facilitator demands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FacilitatorCredentials {
    /// None (a keyless facilitator).
    #[default]
    None,
    /// One fixed header line on every request (`FACILITATOR_AUTH_HEADER_FILE`).
    Header(AuthHeader),
    /// A CDP API key: `Authorization: Bearer <JWT>` built for each request
    /// (`CDP_API_KEY_ID`, `CDP_API_KEY_SECRET_FILE`; [`cdp_jwt`]).
    Cdp(Arc<CdpKey>),
}

impl FacilitatorCredentials {
    /// How an operator reads them in a log line: `no credentials`, `header X-API-Key`,
    /// `CDP API key <id> (ES256)` — never the secret.
    pub fn describe(&self) -> String {
        match self {
            FacilitatorCredentials::None => "no credentials".to_string(),
            FacilitatorCredentials::Header(header) => format!("header {}", header.name()),
            FacilitatorCredentials::Cdp(key) => {
                format!("CDP API key {} ({})", key.id(), key.algorithm())
            }
        }
    }
}

/// Which facilitator call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// `GET /supported` (the readiness check).
    Supported,
    /// `POST /verify`.
    Verify,
    /// `POST /settle`.
    Settle,
}

impl Call {
    fn name(self) -> &'static str {
        match self {
            Call::Supported => "supported",
            Call::Verify => "verify",
            Call::Settle => "settle",
        }
    }
}

impl Facilitator {
    /// A facilitator at `url` without credentials.
    pub fn keyless(url: Url) -> Facilitator {
        Facilitator {
            url,
            credentials: FacilitatorCredentials::None,
        }
    }

    /// The URL of `call`: the base URL's path with `/supported`, `/verify` or `/settle`
    /// appended (a trailing `/` of the base path is dropped first).
    pub fn url_of(&self, call: Call) -> Url {
        let mut url = self.url.clone();
        let path = format!("{}/{}", self.url.path().trim_end_matches('/'), call.name());
        url.set_path(&path);
        url
    }

    /// The request bytes of `call`: `GET` for [`Call::Supported`], `POST` with the JSON
    /// `body` for the others, with this facilitator's credentials — the fixed header, or
    /// `Authorization: Bearer <JWT>` for exactly this method, host and path, valid from
    /// `unix_now` (seconds) and carrying `nonce` (16 random bytes).
    pub fn request(
        &self,
        call: Call,
        body: &[u8],
        user_agent: &str,
        unix_now: u64,
        nonce: [u8; 16],
    ) -> (Url, Vec<u8>) {
        let url = self.url_of(call);
        let method = if call == Call::Supported {
            "GET"
        } else {
            "POST"
        };
        let bearer;
        let auth = match &self.credentials {
            FacilitatorCredentials::None => None,
            FacilitatorCredentials::Header(header) => Some((header.name(), header.value.as_str())),
            FacilitatorCredentials::Cdp(key) => {
                let token = key.jwt(method, &cdp_jwt::uri(&url), unix_now, nonce);
                bearer = format!("Bearer {token}");
                Some(("Authorization", bearer.as_str()))
            }
        };
        let request = match call {
            Call::Supported => http1::json_get(&url, user_agent, auth),
            Call::Verify | Call::Settle => http1::json_post(&url, body, user_agent, auth),
        };
        (url, request)
    }
}

/// Header names the service sets itself on a facilitator request: a credentials file may not
/// name them.
const OWN_HEADERS: &[&str] = &[
    "host",
    "user-agent",
    "accept",
    "content-type",
    "content-length",
    "transfer-encoding",
    "connection",
];

/// One header line from `FACILITATOR_AUTH_HEADER_FILE` (`Authorization: Bearer …`,
/// `X-API-Key: …`). Its `Debug` shows the name only.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthHeader {
    name: String,
    value: String,
}

impl std::fmt::Debug for AuthHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthHeader")
            .field("name", &self.name)
            .field("value", &"[redacted]")
            .finish()
    }
}

impl AuthHeader {
    /// The header of a credentials file: one line `Name: value` (a final line break is
    /// allowed). The name is an RFC 9110 §5.1 token and not one the service sets itself
    /// (`Host`, `Content-Length`, …); the value, trimmed of spaces, is non-empty visible ASCII
    /// with inner spaces (RFC 9110 §5.5 field-value without obs-text).
    ///
    /// # Errors
    /// What is wrong, without quoting the value.
    pub fn from_file(bytes: &[u8]) -> Result<AuthHeader, String> {
        let text = std::str::from_utf8(bytes).map_err(|_| "the file is not ASCII text")?;
        let line = text
            .strip_suffix("\r\n")
            .or_else(|| text.strip_suffix('\n'))
            .unwrap_or(text);
        if line.contains(['\r', '\n']) {
            return Err("the file must hold exactly one header line".to_string());
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err("expected one line `Name: value` (no colon found)".to_string());
        };
        let is_tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        if name.is_empty() || !name.bytes().all(is_tchar) {
            return Err(
                "the header name must be a token (letters, digits, and !#$%&'*+-.^_`|~)"
                    .to_string(),
            );
        }
        if OWN_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(format!(
                "the service sets {name} itself; the file is for a credentials header"
            ));
        }
        let value = value.trim_matches([' ', '\t']);
        if value.is_empty()
            || !value
                .bytes()
                .all(|b| b.is_ascii_graphic() || b == b' ' || b == b'\t')
        {
            return Err(format!(
                "the value of {name} must be non-empty visible ASCII (spaces inside allowed)"
            ));
        }
        Ok(AuthHeader {
            name: name.to_string(),
            value: value.to_string(),
        })
    }

    /// The header name, as written in the file.
    pub fn name(&self) -> &str {
        &self.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facilitator(base: &str, credentials: FacilitatorCredentials) -> Facilitator {
        Facilitator {
            url: Url::parse(base).unwrap(),
            credentials,
        }
    }

    fn head(request: &[u8]) -> String {
        let text = String::from_utf8_lossy(request);
        text.split("\r\n\r\n").next().unwrap().to_string()
    }

    #[test]
    fn header_files() {
        let ok = AuthHeader::from_file(b"X-API-Key: abc def\n").unwrap();
        assert_eq!((ok.name(), ok.value.as_str()), ("X-API-Key", "abc def"));
        let ok = AuthHeader::from_file(b"Authorization:Bearer t0k3n\r\n").unwrap();
        assert_eq!(ok.value, "Bearer t0k3n");
        for (bad, expected) in [
            (&b"X-API-Key: one\nX-Other: two\n"[..], "exactly one"),
            (b"X-API-Key: one\n\n", "exactly one"),
            (b"just-a-value-sekrit", "no colon"),
            (b"X API: sekrit", "token"),
            (b": sekrit", "token"),
            (b"Host: sekrit", "sets Host itself"),
            (b"content-length: 5", "itself"),
            (b"X-API-Key:   ", "non-empty"),
            (b"X-API-Key: sek\x01rit", "visible ASCII"),
            (b"X-API-Key: s\xc3\xa9krit", "visible ASCII"),
            (b"X-API-Key: \xff", "not ASCII text"),
        ] {
            let problem = AuthHeader::from_file(bad).unwrap_err();
            assert!(problem.contains(expected), "{problem}");
            assert!(!problem.contains("sek"), "{problem} quotes the value");
        }
        let shown = format!("{ok:?}");
        assert!(
            shown.contains("Authorization") && !shown.contains("t0k3n"),
            "{shown}"
        );
    }

    #[test]
    fn every_call_carries_the_fixed_header() {
        let header = AuthHeader::from_file(b"X-API-Key: k-123\n").unwrap();
        let f = facilitator(
            "https://f.example/x402/",
            FacilitatorCredentials::Header(header),
        );
        for (call, first) in [
            (Call::Supported, "GET /x402/supported HTTP/1.1"),
            (Call::Verify, "POST /x402/verify HTTP/1.1"),
            (Call::Settle, "POST /x402/settle HTTP/1.1"),
        ] {
            let (url, request) = f.request(call, b"{}", "ua", 0, [0; 16]);
            let head = head(&request);
            assert!(head.starts_with(first), "{head}");
            assert!(head.contains("\r\nX-API-Key: k-123\r\n"), "{head}");
            assert_eq!(
                url.as_str(),
                format!("https://f.example/x402/{}", call.name())
            );
        }
        let (_, request) = facilitator("https://f.example", FacilitatorCredentials::None).request(
            Call::Verify,
            b"{}",
            "ua",
            0,
            [0; 16],
        );
        assert!(!head(&request)
            .to_ascii_lowercase()
            .contains("authorization"));
        assert!(!head(&request).contains("X-API-Key"));
    }

    #[test]
    fn a_cdp_key_signs_each_call_for_its_own_method_and_path() {
        use base64::Engine as _;
        let seed = ed25519_dalek::SigningKey::from_bytes(&[3u8; 32]);
        let mut pair = seed.to_bytes().to_vec();
        pair.extend_from_slice(&seed.verifying_key().to_bytes());
        let secret = base64::engine::general_purpose::STANDARD.encode(pair);
        let key = CdpKey::from_parts("kid", secret.as_bytes()).unwrap();
        let f = facilitator(
            "http://127.0.0.1:8402/platform/v2/x402",
            FacilitatorCredentials::Cdp(Arc::new(key)),
        );
        for (call, uri) in [
            (
                Call::Supported,
                "GET 127.0.0.1:8402/platform/v2/x402/supported",
            ),
            (Call::Verify, "POST 127.0.0.1:8402/platform/v2/x402/verify"),
            (Call::Settle, "POST 127.0.0.1:8402/platform/v2/x402/settle"),
        ] {
            let (_, request) = f.request(call, b"{}", "ua", 1_000, [1; 16]);
            let head = head(&request);
            let token = head
                .lines()
                .find_map(|l| l.strip_prefix("Authorization: Bearer "))
                .unwrap_or_else(|| panic!("{head}"));
            let claims = token.split('.').nth(1).unwrap();
            let claims: serde_json::Value = serde_json::from_slice(
                &base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(claims)
                    .unwrap(),
            )
            .unwrap();
            assert_eq!(claims["uris"], serde_json::json!([uri]));
            assert_eq!(claims["iat"], 1_000);
        }
        assert!(format!("{f:?}").contains("[redacted]"));
        assert_eq!(f.credentials.describe(), "CDP API key kid (EdDSA)");
    }
}
