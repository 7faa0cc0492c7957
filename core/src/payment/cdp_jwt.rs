//! Coinbase Developer Platform (CDP) API keys and the per-request JWT that CDP's facilitator
//! demands (docs/payments.md, "Authenticated facilitators"). The rules follow the reference
//! implementation, npm `@coinbase/cdp-sdk` 1.57.0, `auth/utils/jwt.ts` `generateJwt`:
//!
//! - header: `alg` (`ES256` for an EC P-256 key, `EdDSA` for an Ed25519 key), `kid` = the key
//!   id, `typ` = `JWT`, `nonce` = 16 random bytes in lower-case hex;
//! - claims: `sub` = the key id, `iss` = `cdp`, `uris` = `["METHOD host/path"]` of exactly the
//!   request the token goes with (host with its port when not the scheme's default, path
//!   without the query), `iat` = `nbf` = now, `exp` = now + [`LIFETIME_SECONDS`] (unix seconds);
//! - compact JWS (RFC 7515): `base64url(header).base64url(claims).base64url(signature)`, no
//!   padding; ES256 signs SHA-256 with ECDSA P-256 and gives `r ‖ s` (64 bytes, RFC 7518 §3.4),
//!   EdDSA signs with Ed25519 (RFC 8037).
//!
//! The core has no clock and no RNG: the unix time and the nonce's random bytes come in as
//! arguments ([`CdpKey::jwt`]). Signatures are deterministic (RFC 6979 for ECDSA, Ed25519 by
//! construction), so the same inputs give the same token.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use ed25519_dalek::Signer as _;
use p256::pkcs8::DecodePrivateKey as _;
use serde::Serialize;

/// Seconds a token stands: `exp - nbf` (the SDK's default `expiresIn`).
pub const LIFETIME_SECONDS: u64 = 120;

/// Longest key id accepted, in bytes (CDP's are a UUID or
/// `organizations/{uuid}/apiKeys/{uuid}`, about 100 bytes).
pub const MAX_KEY_ID_BYTES: usize = 256;

/// A CDP API key: its id (`CDP_API_KEY_ID`) and its private key (the file of
/// `CDP_API_KEY_SECRET_FILE`). Its `Debug` shows the id and the algorithm, never the key.
#[derive(Clone)]
pub struct CdpKey {
    id: String,
    secret: Secret,
}

#[derive(Clone)]
enum Secret {
    /// EC P-256, signs `ES256`.
    P256(p256::ecdsa::SigningKey),
    /// Ed25519, signs `EdDSA`.
    Ed25519(ed25519_dalek::SigningKey),
}

impl std::fmt::Debug for CdpKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CdpKey")
            .field("id", &self.id)
            .field("alg", &self.algorithm())
            .field("secret", &"[redacted]")
            .finish()
    }
}

impl PartialEq for CdpKey {
    /// The same id and the same public key.
    fn eq(&self, other: &CdpKey) -> bool {
        self.id == other.id && self.public_key() == other.public_key()
    }
}

impl Eq for CdpKey {}

/// The payload of a token, in the SDK's order.
#[derive(Serialize)]
struct Claims<'a> {
    sub: &'a str,
    iss: &'a str,
    uris: [&'a str; 1],
    iat: u64,
    nbf: u64,
    exp: u64,
}

#[derive(Serialize)]
struct Header<'a> {
    alg: &'a str,
    kid: &'a str,
    typ: &'a str,
    nonce: &'a str,
}

impl CdpKey {
    /// A key from its id and the bytes of its secret file, in one of the forms CDP issues:
    /// - an EC P-256 private key in PEM, PKCS#8 (`-----BEGIN PRIVATE KEY-----`) or SEC1
    ///   (`-----BEGIN EC PRIVATE KEY-----`) → ES256;
    /// - an Ed25519 key in base64 (standard alphabet, padding optional), 64 bytes: the 32-byte
    ///   seed then the 32-byte public key → EdDSA (the public half must match the seed).
    ///
    /// Surrounding white space is ignored.
    ///
    /// # Errors
    /// What is wrong, in words that never quote the secret: an empty or over-long id, or a
    /// file that is neither form.
    pub fn from_parts(id: &str, secret: &[u8]) -> Result<CdpKey, String> {
        let id = id.trim();
        if id.is_empty() || id.len() > MAX_KEY_ID_BYTES || !id.bytes().all(|b| b.is_ascii_graphic())
        {
            return Err(format!(
                "the key id must be 1 to {MAX_KEY_ID_BYTES} printable ASCII characters without spaces"
            ));
        }
        let text = std::str::from_utf8(secret)
            .map_err(|_| "the key file is not text (a PEM EC key or a base64 Ed25519 key)")?
            .trim();
        let secret = if text.starts_with("-----BEGIN PRIVATE KEY-----") {
            p256::ecdsa::SigningKey::from_pkcs8_pem(text)
                .map(Secret::P256)
                .map_err(|_| "the PKCS#8 PEM key is not an EC P-256 private key")?
        } else if text.starts_with("-----BEGIN EC PRIVATE KEY-----") {
            p256::SecretKey::from_sec1_pem(text)
                .map(|key| Secret::P256(key.into()))
                .map_err(|_| "the SEC1 PEM key is not an EC P-256 private key")?
        } else if text.starts_with("-----") {
            return Err(
                "the PEM key is neither PKCS#8 (BEGIN PRIVATE KEY) nor SEC1 (BEGIN EC PRIVATE KEY)"
                    .to_string(),
            );
        } else {
            Secret::Ed25519(ed25519_from_base64(text)?)
        };
        Ok(CdpKey {
            id: id.to_string(),
            secret,
        })
    }

    /// The key id (`kid` and `sub` of every token).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The JWS algorithm: `ES256` or `EdDSA`.
    pub fn algorithm(&self) -> &'static str {
        match self.secret {
            Secret::P256(_) => "ES256",
            Secret::Ed25519(_) => "EdDSA",
        }
    }

    /// The public key: SEC1 uncompressed point (65 bytes) for P-256, 32 bytes for Ed25519.
    pub fn public_key(&self) -> Vec<u8> {
        match &self.secret {
            Secret::P256(key) => key
                .verifying_key()
                .to_encoded_point(false)
                .as_bytes()
                .to_vec(),
            Secret::Ed25519(key) => key.verifying_key().to_bytes().to_vec(),
        }
    }

    /// The token for one request: `method` (`GET`, `POST`) and `host_path` (`host[:port]/path`,
    /// the `uris` entry after the method, see [`uri`]) at unix second `unix_now`, with `nonce`
    /// (16 random bytes). Valid from `unix_now` to `unix_now + LIFETIME_SECONDS`.
    pub fn jwt(&self, method: &str, host_path: &str, unix_now: u64, nonce: [u8; 16]) -> String {
        let nonce: String = nonce.iter().map(|b| format!("{b:02x}")).collect();
        let header = Header {
            alg: self.algorithm(),
            kid: &self.id,
            typ: "JWT",
            nonce: &nonce,
        };
        let uri = format!("{method} {host_path}");
        let claims = Claims {
            sub: &self.id,
            iss: "cdp",
            uris: [&uri],
            iat: unix_now,
            nbf: unix_now,
            exp: unix_now + LIFETIME_SECONDS,
        };
        let mut token = encode_json(&header);
        token.push('.');
        token.push_str(&encode_json(&claims));
        let signature = match &self.secret {
            Secret::P256(key) => {
                let signature: p256::ecdsa::Signature = key.sign(token.as_bytes());
                signature.to_bytes().to_vec()
            }
            Secret::Ed25519(key) => key.sign(token.as_bytes()).to_bytes().to_vec(),
        };
        token.push('.');
        token.push_str(&URL_SAFE_NO_PAD.encode(signature));
        token
    }
}

/// The `uris` entry of a request to `url` after its method: `host[:port]/path` — the host as
/// WHATWG `URL.host` gives it (the port only when it is not the scheme's default) and the path
/// without the query, as the SDK builds it from `new URL(…)` (`host`, `pathname`).
pub fn uri(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or("");
    match url.port() {
        Some(port) => format!("{host}:{port}{}", url.path()),
        None => format!("{host}{}", url.path()),
    }
}

fn encode_json(value: &impl Serialize) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(value).unwrap_or_default())
}

fn ed25519_from_base64(text: &str) -> Result<ed25519_dalek::SigningKey, String> {
    let unpadded = text.trim_end_matches('=');
    let bytes = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(unpadded)
        .or_else(|_| STANDARD.decode(text))
        .map_err(|_| {
            "the key is neither a PEM EC key nor a base64 Ed25519 key (seed and public key)"
                .to_string()
        })?;
    let Ok(pair) = <[u8; 64]>::try_from(bytes.as_slice()) else {
        return Err(format!(
            "the base64 Ed25519 key holds {} bytes; CDP's are 64 (seed and public key)",
            bytes.len()
        ));
    };
    let seed: [u8; 32] = pair[..32].try_into().unwrap_or([0; 32]);
    let key = ed25519_dalek::SigningKey::from_bytes(&seed);
    if key.verifying_key().to_bytes()[..] != pair[32..] {
        return Err("the base64 Ed25519 key's public half does not belong to its seed".to_string());
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::pkcs8::{EncodePrivateKey as _, LineEnding};

    fn p256_key() -> p256::SecretKey {
        p256::SecretKey::from_slice(&[7u8; 32]).unwrap()
    }

    fn ed25519_base64() -> String {
        let key = ed25519_dalek::SigningKey::from_bytes(&[9u8; 32]);
        let mut pair = [0u8; 64];
        pair[..32].copy_from_slice(&key.to_bytes());
        pair[32..].copy_from_slice(&key.verifying_key().to_bytes());
        STANDARD.encode(pair)
    }

    fn decode(part: &str) -> serde_json::Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn the_three_key_forms_parse_and_pkcs8_and_sec1_are_the_same_key() {
        let pkcs8 = p256_key().to_pkcs8_pem(LineEnding::LF).unwrap();
        let sec1 = p256_key().to_sec1_pem(LineEnding::LF).unwrap();
        let a = CdpKey::from_parts("kid-1", pkcs8.as_bytes()).unwrap();
        let b =
            CdpKey::from_parts(" kid-1\n", format!("\n{}\n", sec1.as_str()).as_bytes()).unwrap();
        assert_eq!(a.algorithm(), "ES256");
        assert_eq!(a, b);
        assert_eq!(a.public_key().len(), 65);
        let ed = CdpKey::from_parts("kid-2", ed25519_base64().as_bytes()).unwrap();
        assert_eq!(ed.algorithm(), "EdDSA");
        assert_eq!(ed.public_key().len(), 32);
        let unpadded = ed25519_base64().trim_end_matches('=').to_string();
        assert_eq!(
            CdpKey::from_parts("kid-2", unpadded.as_bytes()).unwrap(),
            ed
        );
    }

    #[test]
    fn bad_keys_are_refused_without_quoting_them() {
        let pkcs8 = p256_key().to_pkcs8_pem(LineEnding::LF).unwrap();
        let mut wrong_pair = STANDARD.decode(ed25519_base64()).unwrap();
        wrong_pair[40] ^= 1;
        let secp = k256::SecretKey::from_slice(&[7u8; 32])
            .unwrap()
            .to_sec1_der()
            .unwrap();
        let secp_pem = format!(
            "-----BEGIN EC PRIVATE KEY-----\n{}\n-----END EC PRIVATE KEY-----\n",
            STANDARD.encode(&secp[..])
        );
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            ("", pkcs8.as_bytes().to_vec(), "key id"),
            ("has space", pkcs8.as_bytes().to_vec(), "key id"),
            ("k", b"not a key at all".to_vec(), "neither"),
            (
                "k",
                STANDARD.encode([1u8; 32]).into_bytes(),
                "holds 32 bytes",
            ),
            (
                "k",
                STANDARD.encode(&wrong_pair).into_bytes(),
                "public half",
            ),
            ("k", secp_pem.clone().into_bytes(), "SEC1"),
            (
                "k",
                b"-----BEGIN RSA PRIVATE KEY-----\nAAAA\n".to_vec(),
                "neither PKCS#8",
            ),
            ("k", vec![0xff, 0xfe], "not text"),
        ];
        for (id, secret, expected) in cases {
            let problem = CdpKey::from_parts(id, &secret).unwrap_err();
            assert!(problem.contains(expected), "{problem}");
            let text = String::from_utf8_lossy(&secret);
            for line in text
                .lines()
                .filter(|l| l.len() > 8 && !l.starts_with("-----"))
            {
                assert!(!problem.contains(line), "{problem} quotes the key");
            }
        }
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let pkcs8 = p256_key().to_pkcs8_pem(LineEnding::LF).unwrap();
        for key in [
            CdpKey::from_parts("kid-1", pkcs8.as_bytes()).unwrap(),
            CdpKey::from_parts("kid-2", ed25519_base64().as_bytes()).unwrap(),
        ] {
            let shown = format!("{key:?} {key:#?}");
            assert!(
                shown.contains("[redacted]") && shown.contains(key.id()),
                "{shown}"
            );
            for secret in [
                &pkcs8.as_bytes()[40..60],
                &ed25519_base64().as_bytes()[..20],
            ] {
                assert!(!shown.contains(std::str::from_utf8(secret).unwrap()));
            }
            assert!(
                !shown.contains("07, 07") && !shown.contains("9, 9"),
                "{shown}"
            );
        }
    }

    #[test]
    fn es256_token_fields_and_signature() {
        let pkcs8 = p256_key().to_pkcs8_pem(LineEnding::LF).unwrap();
        let key = CdpKey::from_parts("organizations/o/apiKeys/k", pkcs8.as_bytes()).unwrap();
        let token = key.jwt(
            "POST",
            "api.cdp.coinbase.com/platform/v2/x402/verify",
            1_700_000_000,
            [0xab; 16],
        );
        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(parts.len(), 3);
        assert_eq!(
            decode(parts[0]),
            serde_json::json!({"alg": "ES256", "kid": "organizations/o/apiKeys/k", "typ": "JWT",
                "nonce": "abababababababababababababababab"})
        );
        assert_eq!(
            decode(parts[1]),
            serde_json::json!({"sub": "organizations/o/apiKeys/k", "iss": "cdp",
                "uris": ["POST api.cdp.coinbase.com/platform/v2/x402/verify"],
                "iat": 1_700_000_000u64, "nbf": 1_700_000_000u64, "exp": 1_700_000_120u64})
        );
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        assert_eq!(signature.len(), 64, "r ‖ s");
        use p256::ecdsa::signature::Verifier as _;
        let verifying = p256::ecdsa::VerifyingKey::from(&p256::ecdsa::SigningKey::from(p256_key()));
        let signature = p256::ecdsa::Signature::from_slice(&signature).unwrap();
        let signed = format!("{}.{}", parts[0], parts[1]);
        assert!(verifying.verify(signed.as_bytes(), &signature).is_ok());
        assert!(verifying.verify(b"something else", &signature).is_err());
        // Deterministic; another nonce or time is another token.
        assert_eq!(
            token,
            key.jwt(
                "POST",
                "api.cdp.coinbase.com/platform/v2/x402/verify",
                1_700_000_000,
                [0xab; 16]
            )
        );
        assert_ne!(
            token,
            key.jwt(
                "POST",
                "api.cdp.coinbase.com/platform/v2/x402/verify",
                1_700_000_000,
                [0xac; 16]
            )
        );
    }

    #[test]
    fn eddsa_token_fields_and_signature() {
        let key = CdpKey::from_parts("kid-2", ed25519_base64().as_bytes()).unwrap();
        let token = key.jwt("GET", "127.0.0.1:8402/supported", 5, [0; 16]);
        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(decode(parts[0])["alg"], "EdDSA");
        assert_eq!(decode(parts[1])["uris"][0], "GET 127.0.0.1:8402/supported");
        assert_eq!(decode(parts[1])["exp"], 125);
        let signature: [u8; 64] = URL_SAFE_NO_PAD
            .decode(parts[2])
            .unwrap()
            .try_into()
            .unwrap();
        let verifying = ed25519_dalek::SigningKey::from_bytes(&[9u8; 32]).verifying_key();
        let signed = format!("{}.{}", parts[0], parts[1]);
        assert!(verifying
            .verify_strict(
                signed.as_bytes(),
                &ed25519_dalek::Signature::from_bytes(&signature)
            )
            .is_ok());
    }

    #[test]
    fn uri_is_host_with_a_non_default_port_and_the_path_without_query() {
        let of = |s: &str| uri(&url::Url::parse(s).unwrap());
        assert_eq!(
            of("https://api.cdp.coinbase.com/platform/v2/x402/verify?x=1"),
            "api.cdp.coinbase.com/platform/v2/x402/verify"
        );
        assert_eq!(
            of("https://api.cdp.coinbase.com:443/a"),
            "api.cdp.coinbase.com/a"
        );
        assert_eq!(of("http://127.0.0.1:8402/settle"), "127.0.0.1:8402/settle");
        assert_eq!(of("http://[::1]:9/supported"), "[::1]:9/supported");
    }
}
