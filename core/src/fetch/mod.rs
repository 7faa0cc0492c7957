//! Fetching target pages, the pieces that decide (docs/contract.md "Fetching"): the HTTP/1.1
//! client codec with size caps ([`http1`]), content decoding with the cap counted after
//! decompression ([`decode`]), and the redirect and content-type rules ([`policy`]). One
//! fetch as a state machine, which emits the runtime's outputs, is the exchange's.

pub mod decode;
pub mod http1;
pub mod policy;

/// Largest page body, in bytes after decompression (docs/contract.md: 2 MiB per page).
pub const MAX_PAGE_BYTES: usize = 2 * 1024 * 1024;
/// Largest total of page bodies per job, in bytes (docs/contract.md: 8 MiB per job).
pub const MAX_JOB_BYTES: usize = 8 * 1024 * 1024;
/// Largest response head from an origin, in bytes.
pub const MAX_RESPONSE_HEAD_BYTES: usize = 64 * 1024;
/// Redirects followed per page (docs/contract.md).
pub const MAX_REDIRECTS: usize = 5;

/// Why a fetch failed (mapped to the spec's codes by the exchange).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FetchError {
    /// Not HTTP/1.x, or broken framing (chunk sizes, lengths).
    Malformed(String),
    /// The body (or the head) is over its cap.
    TooLarge,
    /// The connection closed before the body was complete.
    Truncated,
    /// The content encoding is not one we decode, or the data is not valid for it.
    BadEncoding(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Malformed(detail) => write!(f, "malformed response: {detail}"),
            Self::TooLarge => write!(f, "response larger than the size cap"),
            Self::Truncated => write!(f, "connection closed before the response was complete"),
            Self::BadEncoding(detail) => write!(f, "cannot decode the response: {detail}"),
        }
    }
}

impl std::error::Error for FetchError {}
