//! The service's JSON result types, with the field names of docs/contract.md.
//!
//! Serialised with serde in camelCase exactly as the spec names them; every field is always
//! present (optional address parts are omitted when unknown, as the spec marks them optional).

use serde::{Deserialize, Serialize};

/// `ContactExtractionResult` (docs/contract.md): the 200 body of `POST /api/v1/extract-contact`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContactExtractionResult {
    /// Always `true` in a 200 body.
    pub success: bool,
    /// The submitted URL string, as given.
    pub input_url: String,
    /// The submitted URL's host: lower-case, IDNA ASCII, without a leading `www.`.
    pub domain: String,
    /// The business's name (docs/contract.md "Result fields" precedence), or `null`.
    pub company_name: Option<String>,
    /// Lower-cased, deduplicated emails in order of first appearance, homepage first.
    pub emails: Vec<SourcedValue>,
    /// E.164 phone numbers (`+14155550123`), deduplicated.
    pub phones: Vec<SourcedValue>,
    /// Canonical social profile URLs.
    pub socials: SocialLinks,
    /// schema.org `PostalAddress` values with the page they came from.
    pub addresses: Vec<PostalAddress>,
    /// Same-site contact/about/support/imprint URLs, best first, at most 10.
    pub contact_pages: Vec<String>,
    /// Final URLs of the pages parsed, in fetch order.
    pub pages_scanned: Vec<String>,
    /// Counters about the crawl.
    pub meta: ResultMeta,
    /// The request id (`req_` + 26 Crockford base32 characters); empty offline.
    pub request_id: String,
}

/// A value and the URL of the first page it was found on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourcedValue {
    /// The normalised value (lower-case email, E.164 phone).
    pub value: String,
    /// Final URL of the page it came from.
    pub source_url: String,
}

/// `SocialLinks` (docs/contract.md): canonical profile URLs per network.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SocialLinks {
    /// `https://linkedin.com/company/…`, `/school/…`, `/in/…`, `/groups/…`.
    pub linkedin: Vec<String>,
    /// `https://facebook.com/<page>` or `https://facebook.com/profile.php?id=<id>`.
    pub facebook: Vec<String>,
    /// `https://instagram.com/<user>`.
    pub instagram: Vec<String>,
    /// `https://x.com/<handle>` (also for `twitter.com` links).
    pub x: Vec<String>,
    /// `https://youtube.com/channel/…`, `/c/…`, `/user/…`, `/@handle`.
    pub youtube: Vec<String>,
}

/// schema.org `PostalAddress`: parts as printed, trimmed; unknown parts are omitted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostalAddress {
    /// Street, house number, unit, building (or a P.O. box).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub street_address: Option<String>,
    /// Town or city.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub address_locality: Option<String>,
    /// State, province or county.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub address_region: Option<String>,
    /// Postcode as printed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub postal_code: Option<String>,
    /// Country as printed (name or ISO code).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub address_country: Option<String>,
    /// Final URL of the page it came from.
    pub source_url: String,
}

/// `meta` of the result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultMeta {
    /// HTTP responses received (offline: pages given).
    pub pages_fetched: u32,
    /// Milliseconds from request head to response (offline: extraction time).
    pub duration_ms: u64,
}

/// Reads the body of `POST /api/v1/extract-contact` (docs/contract.md "Request order" step 3): `Content-Type`
/// `application/json` (parameters allowed), no query string, a JSON object with exactly one
/// field, `url`, a string. Returns the URL string as given (its own rules are step 4).
///
/// # Errors
/// [`Failure::InvalidBody`] with a message saying which rule failed.
pub fn extract_request_url(
    content_type: Option<&str>,
    query: Option<&str>,
    body: &[u8],
) -> Result<String, (Failure, &'static str)> {
    let invalid = |message| Err((Failure::InvalidBody, message));
    let media_type = content_type
        .and_then(|v| v.split(';').next())
        .map(str::trim);
    if !media_type.is_some_and(|m| m.eq_ignore_ascii_case("application/json")) {
        return invalid("Content-Type must be application/json");
    }
    if query.is_some() {
        return invalid("query parameters are not accepted; send {\"url\": ...} in the body");
    }
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
        return invalid("the body is not valid JSON");
    };
    let Some(object) = value.as_object() else {
        return invalid("the body must be a JSON object");
    };
    let Some(url) = object.get("url") else {
        return invalid("the field url is required");
    };
    if object.len() != 1 {
        return invalid("only the field url is allowed");
    }
    match url.as_str() {
        Some(url) => Ok(url.to_string()),
        None => invalid("the field url must be a string"),
    }
}

/// `error.code` of an `ApiError` (docs/contract.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// Fetch failed (DNS, connect, TLS, HTTP status ≥ 400, too many redirects).
    FetchFailed,
    /// A bug, payments not configured, overload, or a facilitator failure.
    InternalError,
    /// Bad request shape or URL, unknown path or wrong method.
    InvalidUrl,
    /// The URL targets a private or reserved address or a local name.
    PrivateAddress,
    /// Per-client rate limit.
    RateLimited,
    /// The homepage is larger than the size cap.
    ResponseTooLarge,
    /// The job deadline passed before the homepage was read.
    Timeout,
    /// The homepage is not HTML.
    UnsupportedContentType,
}

impl ErrorCode {
    /// The code as the API writes it (`FETCH_FAILED`), the same string serde produces.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::FetchFailed => "FETCH_FAILED",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::InvalidUrl => "INVALID_URL",
            ErrorCode::PrivateAddress => "PRIVATE_ADDRESS",
            ErrorCode::RateLimited => "RATE_LIMITED",
            ErrorCode::ResponseTooLarge => "RESPONSE_TOO_LARGE",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::UnsupportedContentType => "UNSUPPORTED_CONTENT_TYPE",
        }
    }
}

/// The `error` object of an `ApiError`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorDetail {
    /// Machine-readable code.
    pub code: ErrorCode,
    /// Human-readable message.
    pub message: String,
}

/// `ApiError` (docs/contract.md): the body of every JSON error response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiError {
    /// Always `false`.
    pub success: bool,
    /// What went wrong.
    pub error: ErrorDetail,
    /// Equal to the response's `X-Request-Id`.
    pub request_id: String,
}

impl ApiError {
    /// An error body.
    pub fn new(
        code: ErrorCode,
        message: impl Into<String>,
        request_id: impl Into<String>,
    ) -> ApiError {
        ApiError {
            success: false,
            error: ErrorDetail {
                code,
                message: message.into(),
            },
            request_id: request_id.into(),
        }
    }
}

/// Every way a request can fail, typed; [`reply_for`] is the one place that maps them to the
/// spec's (status, code) pairs (docs/contract.md "Request order").
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// Request head over 32 KiB or 100 headers.
    HeadTooLarge,
    /// Body over 16 KiB.
    BodyTooLarge,
    /// Unparseable request or bad framing.
    MalformedRequest,
    /// A transfer coding other than `chunked` (RFC 9112 §6.1).
    UnsupportedTransferCoding,
    /// Unknown path.
    NotFound,
    /// Wrong method for a known path.
    MethodNotAllowed,
    /// Per-client rate limit.
    RateLimited,
    /// Body shape: content type, JSON, fields, query string.
    InvalidBody,
    /// The URL breaks a rule (the rejection says whether it is a private address).
    InvalidUrl(crate::net_policy::UrlRejection),
    /// Payments not configured (fail closed).
    PaymentsNotConfigured,
    /// Over the global in-flight cap.
    Overloaded,
    /// The facilitator was unreachable or answered garbage.
    FacilitatorUnavailable,
    /// DNS answered a blocked address.
    BlockedResolution,
    /// DNS failure, refused connection, TLS failure, HTTP status ≥ 400, too many redirects.
    FetchFailed,
    /// Homepage not HTML.
    UnsupportedContentType,
    /// Homepage over the size cap.
    ResponseTooLarge,
    /// Homepage whose extraction ran over [`crate::budget::PAGE_WORK_BUDGET`].
    TooCostly,
    /// Job deadline passed before the homepage was read.
    Timeout,
    /// A bug.
    Internal,
    /// The settlement outcome is unknown (pending, timeout, garbage); the result is kept for a
    /// retry with the same `PAYMENT-SIGNATURE` (docs/payments.md).
    SettlementPending,
    /// A request with the same payment is still being processed.
    PaymentInProgress,
    /// A `payment-identifier` id already used with another payment or request (x402
    /// `payment-identifier` extension: 409).
    PaymentIdConflict,
    /// The shared payment store (Redis) failed or did not answer in time: 503 with
    /// `Retry-After`, before any facilitator call (docs/operations.md).
    StoreUnavailable,
}

/// The HTTP status and `error.code` for a failure (docs/contract.md "Request order").
pub fn reply_for(failure: &Failure) -> (u16, ErrorCode) {
    match failure {
        Failure::HeadTooLarge => (431, ErrorCode::InvalidUrl),
        Failure::BodyTooLarge => (413, ErrorCode::InvalidUrl),
        Failure::MalformedRequest | Failure::InvalidBody => (400, ErrorCode::InvalidUrl),
        Failure::NotFound => (404, ErrorCode::InvalidUrl),
        Failure::MethodNotAllowed => (405, ErrorCode::InvalidUrl),
        Failure::UnsupportedTransferCoding => (501, ErrorCode::InvalidUrl),
        Failure::RateLimited => (429, ErrorCode::RateLimited),
        Failure::InvalidUrl(rejection) if rejection.is_private_address() => {
            (400, ErrorCode::PrivateAddress)
        }
        Failure::InvalidUrl(_) => (400, ErrorCode::InvalidUrl),
        Failure::PaymentsNotConfigured
        | Failure::Overloaded
        | Failure::FacilitatorUnavailable
        | Failure::SettlementPending
        | Failure::PaymentInProgress
        | Failure::StoreUnavailable => (503, ErrorCode::InternalError),
        // docs/payments.md: the one status beyond the seed's list.
        Failure::PaymentIdConflict => (409, ErrorCode::InvalidUrl),
        Failure::BlockedResolution => (400, ErrorCode::PrivateAddress),
        Failure::FetchFailed => (422, ErrorCode::FetchFailed),
        Failure::UnsupportedContentType => (422, ErrorCode::UnsupportedContentType),
        Failure::ResponseTooLarge | Failure::TooCostly => (422, ErrorCode::ResponseTooLarge),
        Failure::Timeout => (422, ErrorCode::Timeout),
        Failure::Internal => (500, ErrorCode::InternalError),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn error_codes_read_as_serde_writes_them() {
        use super::ErrorCode::*;
        for code in [
            FetchFailed,
            InternalError,
            InvalidUrl,
            PrivateAddress,
            RateLimited,
            ResponseTooLarge,
            Timeout,
            UnsupportedContentType,
        ] {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::Value::from(code.as_str())
            );
        }
    }

    use super::*;
    use crate::net_policy::UrlRejection;

    #[test]
    fn every_failure_maps_to_the_decided_status_and_code() {
        let table = [
            (Failure::HeadTooLarge, 431, ErrorCode::InvalidUrl),
            (Failure::BodyTooLarge, 413, ErrorCode::InvalidUrl),
            (Failure::MalformedRequest, 400, ErrorCode::InvalidUrl),
            (Failure::NotFound, 404, ErrorCode::InvalidUrl),
            (Failure::MethodNotAllowed, 405, ErrorCode::InvalidUrl),
            (
                Failure::UnsupportedTransferCoding,
                501,
                ErrorCode::InvalidUrl,
            ),
            (Failure::RateLimited, 429, ErrorCode::RateLimited),
            (Failure::InvalidBody, 400, ErrorCode::InvalidUrl),
            (
                Failure::InvalidUrl(UrlRejection::TooLong),
                400,
                ErrorCode::InvalidUrl,
            ),
            (
                Failure::InvalidUrl(UrlRejection::BlockedAddress),
                400,
                ErrorCode::PrivateAddress,
            ),
            (
                Failure::InvalidUrl(UrlRejection::LocalName),
                400,
                ErrorCode::PrivateAddress,
            ),
            (
                Failure::PaymentsNotConfigured,
                503,
                ErrorCode::InternalError,
            ),
            (Failure::Overloaded, 503, ErrorCode::InternalError),
            (Failure::SettlementPending, 503, ErrorCode::InternalError),
            (Failure::PaymentInProgress, 503, ErrorCode::InternalError),
            (Failure::PaymentIdConflict, 409, ErrorCode::InvalidUrl),
            (
                Failure::FacilitatorUnavailable,
                503,
                ErrorCode::InternalError,
            ),
            (Failure::BlockedResolution, 400, ErrorCode::PrivateAddress),
            (Failure::FetchFailed, 422, ErrorCode::FetchFailed),
            (
                Failure::UnsupportedContentType,
                422,
                ErrorCode::UnsupportedContentType,
            ),
            (Failure::ResponseTooLarge, 422, ErrorCode::ResponseTooLarge),
            (Failure::TooCostly, 422, ErrorCode::ResponseTooLarge),
            (Failure::Timeout, 422, ErrorCode::Timeout),
            (Failure::Internal, 500, ErrorCode::InternalError),
        ];
        for (failure, status, code) in table {
            assert_eq!(reply_for(&failure), (status, code), "{failure:?}");
        }
    }

    #[test]
    fn request_body_rules() {
        let json = Some("application/json; charset=utf-8");
        assert_eq!(
            extract_request_url(json, None, br#"{"url":"https://a.com/"}"#),
            Ok("https://a.com/".to_string())
        );
        assert_eq!(
            extract_request_url(json, None, br#"{"url":" x "}"#),
            Ok(" x ".to_string())
        );
        for (content_type, query, body) in [
            (
                Some("text/plain"),
                None,
                &br#"{"url":"https://a.com/"}"#[..],
            ),
            (None, None, br#"{"url":"https://a.com/"}"#),
            (
                Some("application/x-www-form-urlencoded"),
                None,
                b"url=https://a.com/",
            ),
            (json, Some("url=x"), br#"{"url":"https://a.com/"}"#),
            (json, None, b"not json"),
            (json, None, b"[]"),
            (json, None, b"{}"),
            (json, None, br#"{"url":1}"#),
            (json, None, br#"{"url":null}"#),
            (json, None, br#"{"url":"https://a.com/","x":1}"#),
            (json, None, br#"{"URL":"https://a.com/"}"#),
        ] {
            let got = extract_request_url(content_type, query, body);
            assert!(
                matches!(got, Err((Failure::InvalidBody, _))),
                "{content_type:?} {query:?} {:?}: {got:?}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn api_error_json_shape() {
        let json =
            serde_json::to_value(ApiError::new(ErrorCode::PrivateAddress, "no", "req_1")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"success": false, "error": {"code": "PRIVATE_ADDRESS", "message": "no"}, "requestId": "req_1"})
        );
    }
}
