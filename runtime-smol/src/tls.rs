//! TLS for outbound fetches on smol: the shared client configuration of
//! `contact_runtime_common::tls` in a `futures-rustls` connector; the SNI name is the URL's
//! host.

use contact_core::io::IoFailure;
use contact_runtime_common::tls::{client_config, server_name, tls_failure};
use futures_rustls::client::TlsStream;
use futures_rustls::TlsConnector;
use smol::io::{AsyncRead, AsyncWrite};

/// TLS settings for outbound fetches: the Mozilla roots of `webpki-roots`.
pub fn tls_connector() -> TlsConnector {
    tls_connector_with(&[])
}

/// As [`tls_connector`], also trusting `extra_roots` (DER certificates). Test-only: the
/// end-to-end tests trust a CA they made; production uses [`tls_connector`].
pub fn tls_connector_with(extra_roots: &[Vec<u8>]) -> TlsConnector {
    TlsConnector::from(client_config(extra_roots))
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
    tls.connect(server_name(sni)?, stream)
        .await
        .map_err(tls_failure)
}
