//! The service's JSON result types, with the field names of `service-spec.md` §2.
//!
//! Serialised with serde in camelCase exactly as the spec names them; every field is always
//! present (optional address parts are omitted when unknown, as the spec marks them optional).

use serde::{Deserialize, Serialize};

/// `ContactExtractionResult` (service-spec §2): the 200 body of `POST /api/v1/extract-contact`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContactExtractionResult {
    /// Always `true` in a 200 body.
    pub success: bool,
    /// The submitted URL string, as given.
    pub input_url: String,
    /// The submitted URL's host: lower-case, IDNA ASCII, without a leading `www.`.
    pub domain: String,
    /// The business's name (decisions.md "Result fields" precedence), or `null`.
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

/// `SocialLinks` (service-spec §2): canonical profile URLs per network.
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
