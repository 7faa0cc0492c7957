//! The TLS client configuration for outbound fetches: rustls with the ring provider (no C
//! toolchain) and the Mozilla roots of `webpki-roots`; certificates are verified by rustls'
//! WebPKI verifier and nothing here relaxes it. A runtime wraps it in its own connector
//! (`futures-rustls` for smol, `tokio-rustls` for tokio) and maps failures with
//! [`server_name`] and [`tls_failure`].

use std::sync::Arc;

use contact_core::io::IoFailure;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, RootCertStore};

/// The client configuration: the webpki roots, plus `extra_roots` (DER certificates).
/// `extra_roots` is test-only: the end-to-end tests trust a CA they made; production passes
/// none.
pub fn client_config(extra_roots: &[Vec<u8>]) -> Arc<ClientConfig> {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    for der in extra_roots {
        let _ = roots.add(CertificateDer::from(der.clone()));
    }
    let provider = || Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map(|builder| builder.with_root_certificates(roots).with_no_client_auth());
    match config {
        Ok(config) => Arc::new(config),
        // The ring provider supports the default versions; this cannot fail in practice.
        Err(_) => Arc::new(
            ClientConfig::builder_with_provider(provider())
                .with_protocol_versions(&[&rustls::version::TLS13])
                .map(|b| {
                    b.with_root_certificates(RootCertStore::empty())
                        .with_no_client_auth()
                })
                .unwrap_or_else(|_| unreachable!("TLS 1.3 is supported by ring")),
        ),
    }
}

/// The SNI name for a host.
///
/// # Errors
/// `IoFailure::Tls` when `host` is not a valid server name.
pub fn server_name(host: String) -> Result<ServerName<'static>, IoFailure> {
    ServerName::try_from(host).map_err(|_| IoFailure::Tls("invalid server name".to_string()))
}

/// A failed handshake (an untrusted certificate, a protocol error) as the core's failure.
pub fn tls_failure(error: impl std::fmt::Display) -> IoFailure {
    IoFailure::Tls(error.to_string())
}
