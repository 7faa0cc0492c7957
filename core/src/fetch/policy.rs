//! Redirect and content rules (docs/contract.md "Fetching"): at most
//! [`MAX_REDIRECTS`] hops per page, never from https to http, every hop re-checked by the SSRF
//! policy; pages must be `text/html` or `application/xhtml+xml`, sniffed only when the
//! `Content-Type` is absent.

use url::Url;

use crate::fetch::MAX_REDIRECTS;
use crate::net_policy::{NetPolicy, PublicUrl, UrlRejection};

/// Why a redirect is not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedirectError {
    /// More than [`MAX_REDIRECTS`] hops.
    TooMany,
    /// https → http.
    Downgrade,
    /// No usable `Location`.
    NoLocation,
    /// The target breaks the URL policy (a private target maps to `PRIVATE_ADDRESS`).
    Refused(UrlRejection),
}

/// Whether `status` is a redirect this client follows.
pub fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// The next URL for a redirect from `current` with `location`, after `hops_so_far` hops.
///
/// # Errors
/// [`RedirectError`] when the hop must not be taken.
pub fn redirect_target(
    current: &Url,
    location: Option<&str>,
    hops_so_far: usize,
    policy: &NetPolicy,
) -> Result<PublicUrl, RedirectError> {
    if hops_so_far >= MAX_REDIRECTS {
        return Err(RedirectError::TooMany);
    }
    let location = location
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .ok_or(RedirectError::NoLocation)?;
    let mut next = current
        .join(location)
        .map_err(|_| RedirectError::NoLocation)?;
    next.set_fragment(None);
    if current.scheme() == "https" && next.scheme() == "http" {
        return Err(RedirectError::Downgrade);
    }
    PublicUrl::check(next, policy).map_err(RedirectError::Refused)
}

/// Whether a response is an HTML page: by `Content-Type` when present, else by sniffing the
/// start of the body (a `<!doctype html`, `<html`, `<head` or `<body` after white space and a
/// byte-order mark).
pub fn is_html(content_type: Option<&str>, body: &[u8]) -> bool {
    match content_type.map(|c| {
        c.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    }) {
        Some(media) if !media.is_empty() => {
            media == "text/html" || media == "application/xhtml+xml"
        }
        _ => {
            let start = body.strip_prefix(b"\xef\xbb\xbf").unwrap_or(body);
            let start = start.trim_ascii_start();
            let head = &start[..start.len().min(64)];
            let lower = head.to_ascii_lowercase();
            [
                &b"<!doctype html"[..],
                b"<html",
                b"<head",
                b"<body",
                b"<!--",
            ]
            .iter()
            .any(|p| lower.starts_with(p))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn redirect_rules() {
        let policy = NetPolicy::default();
        let here = url("https://www.acme.com/start");
        assert_eq!(
            redirect_target(&here, Some("/contact#x"), 0, &policy)
                .unwrap()
                .url()
                .as_str(),
            "https://www.acme.com/contact"
        );
        assert_eq!(
            redirect_target(&here, Some("https://acme.com/"), 4, &policy)
                .unwrap()
                .url()
                .as_str(),
            "https://acme.com/"
        );
        assert_eq!(
            redirect_target(&here, Some("/x"), 5, &policy),
            Err(RedirectError::TooMany)
        );
        assert_eq!(
            redirect_target(&here, Some("http://www.acme.com/"), 0, &policy),
            Err(RedirectError::Downgrade)
        );
        assert_eq!(
            redirect_target(&here, None, 0, &policy),
            Err(RedirectError::NoLocation)
        );
        assert_eq!(
            redirect_target(
                &here,
                Some("https://169.254.169.254/latest/meta-data"),
                0,
                &policy
            ),
            Err(RedirectError::Refused(UrlRejection::BlockedAddress))
        );
        assert_eq!(
            redirect_target(&here, Some("https://localhost/"), 0, &policy),
            Err(RedirectError::Refused(UrlRejection::LocalName))
        );
        assert!(redirect_target(
            &url("http://acme.com/"),
            Some("https://acme.com/"),
            0,
            &policy
        )
        .is_ok());
        assert!(is_redirect(301) && is_redirect(308) && !is_redirect(300) && !is_redirect(304));
    }

    #[test]
    fn html_detection() {
        assert!(is_html(Some("text/html; charset=utf-8"), b""));
        assert!(is_html(Some("application/xhtml+xml"), b""));
        assert!(!is_html(Some("application/pdf"), b"<html>"));
        assert!(!is_html(Some("application/json"), b"{}"));
        assert!(is_html(None, b"\xef\xbb\xbf  <!DOCTYPE html><html>"));
        assert!(is_html(Some(""), b"<HTML>"));
        assert!(!is_html(None, b"%PDF-1.4"));
    }
}
