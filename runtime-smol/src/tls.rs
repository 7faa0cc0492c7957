//! TLS for outbound fetches: rustls with the ring provider (no C toolchain) and the Mozilla
//! roots of `webpki-roots`; the SNI name is the URL's host (issue #4). Certificates are
//! verified by rustls' WebPKI verifier; nothing here relaxes it.

use std::sync::Arc;

use contact_core::io::IoFailure;
use futures_rustls::client::TlsStream;
use futures_rustls::rustls::pki_types::ServerName;
use futures_rustls::rustls::{ClientConfig, RootCertStore};
use futures_rustls::TlsConnector;
use smol::io::{AsyncRead, AsyncWrite};

/// TLS settings for outbound fetches: the Mozilla roots of `webpki-roots`.
pub fn tls_connector() -> TlsConnector {
    tls_connector_with(&[])
}

/// As [`tls_connector`], also trusting `extra_roots` (DER certificates). Test-only: the
/// end-to-end tests trust a CA they made; production uses [`tls_connector`].
pub fn tls_connector_with(extra_roots: &[Vec<u8>]) -> TlsConnector {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    for der in extra_roots {
        let _ = roots.add(futures_rustls::rustls::pki_types::CertificateDer::from(
            der.clone(),
        ));
    }
    let config = ClientConfig::builder_with_provider(Arc::new(
        futures_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map(|builder| builder.with_root_certificates(roots).with_no_client_auth());
    match config {
        Ok(config) => TlsConnector::from(Arc::new(config)),
        // The ring provider supports the default versions; this cannot fail in practice.
        Err(_) => TlsConnector::from(Arc::new(
            ClientConfig::builder_with_provider(Arc::new(
                futures_rustls::rustls::crypto::ring::default_provider(),
            ))
            .with_protocol_versions(&[&futures_rustls::rustls::version::TLS13])
            .map(|b| {
                b.with_root_certificates(RootCertStore::empty())
                    .with_no_client_auth()
            })
            .unwrap_or_else(|_| unreachable!("TLS 1.3 is supported by ring")),
        )),
    }
}

/// Runs the TLS handshake over `stream` for the host `sni`.
///
/// # Errors
/// `IoFailure::Tls` for an invalid name, an untrusted certificate or a failed handshake.
pub(crate) async fn handshake<S>(
    tls: &TlsConnector,
    sni: String,
    stream: S,
) -> Result<TlsStream<S>, IoFailure>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let server_name =
        ServerName::try_from(sni).map_err(|_| IoFailure::Tls("invalid server name".to_string()))?;
    tls.connect(server_name, stream)
        .await
        .map_err(|error| IoFailure::Tls(error.to_string()))
}
