//! Request heads on `httparse`, with the limits of docs/contract.md ("Request handling and
//! errors", step 1) and strict framing (RFC 9112 §6.3): one `Content-Length` or none, no
//! `Transfer-Encoding` (the API takes small JSON bodies), no obsolete line folding.
//!
//! Incomplete input is not an error: [`try_parse`] returns `Ok(None)` and consumes nothing;
//! the caller keeps reading until the head is complete or over [`MAX_HEAD_BYTES`].

/// Largest request head, in bytes (over it: 431).
pub const MAX_HEAD_BYTES: usize = 32 * 1024;
/// Most header fields (over it: 431).
pub const MAX_HEADERS: usize = 100;
/// Largest request body, in bytes (over it: 413).
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// A parsed request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHead {
    /// Method as sent (case-sensitive per RFC 9110 §9.1).
    pub method: String,
    /// Path without the query.
    pub path: String,
    /// The query string, without `?`, if any.
    pub query: Option<String>,
    /// `1` for HTTP/1.1, `0` for HTTP/1.0.
    pub minor_version: u8,
    /// Header fields in order; names lower-cased.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The body length in bytes (0 without `Content-Length`).
    pub content_length: usize,
    /// Whether the connection stays open after the response (HTTP/1.1 default, or
    /// `Connection: keep-alive` on 1.0; `Connection: close` ends it).
    pub keep_alive: bool,
}

impl RequestHead {
    /// The first value of header `name` (lower-case), as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| std::str::from_utf8(v).ok())
            .map(str::trim)
    }
}

/// Why a head was refused; [`HeadError::status`] is the response status.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeadError {
    /// Over [`MAX_HEAD_BYTES`] or [`MAX_HEADERS`]: 431.
    TooLarge,
    /// `Content-Length` over [`MAX_BODY_BYTES`]: 413.
    BodyTooLarge,
    /// Not HTTP/1.x syntax, bad bytes in a name or value, obs-fold: 400.
    Malformed(String),
    /// Several or invalid `Content-Length`, or `Transfer-Encoding`: 400.
    BadFraming(&'static str),
}

impl HeadError {
    /// The HTTP status to answer with.
    pub fn status(&self) -> u16 {
        match self {
            Self::TooLarge => 431,
            Self::BodyTooLarge => 413,
            Self::Malformed(_) | Self::BadFraming(_) => 400,
        }
    }
}

impl std::fmt::Display for HeadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge => write!(f, "request head is larger than {MAX_HEAD_BYTES} bytes or has more than {MAX_HEADERS} headers"),
            Self::BodyTooLarge => write!(f, "request body is larger than {MAX_BODY_BYTES} bytes"),
            Self::Malformed(detail) => write!(f, "malformed request: {detail}"),
            Self::BadFraming(detail) => write!(f, "bad request framing: {detail}"),
        }
    }
}

impl std::error::Error for HeadError {}

/// Parses a request head at the start of `buf`.
///
/// Returns `Ok(None)` while the head is incomplete (and within limits), or the head and the
/// number of bytes it used.
///
/// # Errors
/// [`HeadError`] as soon as the bytes cannot become an acceptable head.
pub fn try_parse(buf: &[u8]) -> Result<Option<(usize, RequestHead)>, HeadError> {
    let mut storage = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut storage);
    let status = match request.parse(buf) {
        Ok(status) => status,
        Err(httparse::Error::TooManyHeaders) => return Err(HeadError::TooLarge),
        Err(error) => return Err(HeadError::Malformed(error.to_string())),
    };
    let used = match status {
        httparse::Status::Partial => {
            return if buf.len() > MAX_HEAD_BYTES {
                Err(HeadError::TooLarge)
            } else {
                Ok(None)
            };
        }
        httparse::Status::Complete(used) => used,
    };
    if used > MAX_HEAD_BYTES {
        return Err(HeadError::TooLarge);
    }
    let (Some(method), Some(target), Some(minor_version)) =
        (request.method, request.path, request.version)
    else {
        return Err(HeadError::Malformed("incomplete request line".to_string()));
    };
    let mut content_length: Option<usize> = None;
    let mut connection_close = false;
    let mut connection_keep_alive = false;
    let mut headers = Vec::with_capacity(request.headers.len());
    for header in request.headers.iter() {
        let name = header.name.to_ascii_lowercase();
        match name.as_str() {
            "content-length" => {
                let value = std::str::from_utf8(header.value).ok().map(str::trim);
                let length = value
                    .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|v| v.parse::<usize>().ok())
                    .ok_or(HeadError::BadFraming("invalid Content-Length"))?;
                if content_length.is_some() {
                    return Err(HeadError::BadFraming("more than one Content-Length"));
                }
                content_length = Some(length);
            }
            "transfer-encoding" => {
                return Err(HeadError::BadFraming(
                    "Transfer-Encoding is not accepted; send Content-Length",
                ))
            }
            "connection" => {
                for token in String::from_utf8_lossy(header.value).split(',') {
                    let token = token.trim();
                    connection_close |= token.eq_ignore_ascii_case("close");
                    connection_keep_alive |= token.eq_ignore_ascii_case("keep-alive");
                }
            }
            _ => {}
        }
        headers.push((name, header.value.to_vec()));
    }
    let content_length = content_length.unwrap_or(0);
    if content_length > MAX_BODY_BYTES {
        return Err(HeadError::BodyTooLarge);
    }
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path.to_string(), Some(query.to_string())),
        None => (target.to_string(), None),
    };
    let keep_alive = !connection_close && (minor_version == 1 || connection_keep_alive);
    Ok(Some((
        used,
        RequestHead {
            method: method.to_string(),
            path,
            query,
            minor_version,
            headers,
            content_length,
            keep_alive,
        },
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const POST: &[u8] = b"POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n{\"url\":\"https://a.com/\"}xx";

    /// Length of the head of `raw` (request line and headers, with the blank line).
    fn head_len(raw: &[u8]) -> usize {
        try_parse(raw).unwrap().unwrap().0
    }

    #[test]
    fn parses_a_complete_head() {
        let (used, head) = try_parse(POST).unwrap().unwrap();
        assert_eq!(&POST[used..used + 2], b"{\"");
        assert_eq!(head.method, "POST");
        assert_eq!(head.path, "/api/v1/extract-contact");
        assert_eq!(head.query, None);
        assert_eq!(head.content_length, 27);
        assert_eq!(head.header("content-type"), Some("application/json"));
        assert!(head.keep_alive);
        let (_, head) = try_parse(b"GET /api/health?x=1 HTTP/1.0\r\n\r\n")
            .unwrap()
            .unwrap();
        assert_eq!(head.query.as_deref(), Some("x=1"));
        assert!(!head.keep_alive);
        let (_, head) = try_parse(b"GET / HTTP/1.1\r\nConnection: Close\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(!head.keep_alive);
    }

    #[test]
    fn strict_framing() {
        for (raw, want) in [
            (
                &b"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"[..],
                400,
            ),
            (
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                400,
            ),
            (
                b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
                400,
            ),
            (b"POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nContent-Length: 16385\r\n\r\n", 413),
            (b"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nBad Name: a\r\n\r\n", 400),
            (b"GET / HTTP/2.0\r\n\r\n", 400),
            (b"\x16\x03\x01\x02\x00", 400),
        ] {
            let got = try_parse(raw);
            assert_eq!(
                got.as_ref().err().map(HeadError::status),
                Some(want),
                "{:?}: {got:?}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn limits() {
        let mut many = b"GET / HTTP/1.1\r\n".to_vec();
        for i in 0..=MAX_HEADERS {
            many.extend_from_slice(format!("X-{i}: y\r\n").as_bytes());
        }
        many.extend_from_slice(b"\r\n");
        assert_eq!(try_parse(&many), Err(HeadError::TooLarge));
        let mut long = b"GET / HTTP/1.1\r\nX: ".to_vec();
        long.resize(MAX_HEAD_BYTES + 1, b'a');
        assert_eq!(try_parse(&long), Err(HeadError::TooLarge));
        long.truncate(MAX_HEAD_BYTES - 10);
        assert_eq!(try_parse(&long), Ok(None));
    }

    proptest! {
        #[test]
        fn every_strict_prefix_is_incomplete(cut in 0usize..head_len(POST)) {
            prop_assert_eq!(try_parse(&POST[..cut]), Ok(None));
        }

        #[test]
        fn result_does_not_depend_on_how_bytes_arrive(cuts in prop::collection::vec(0usize..POST.len(), 0..6)) {
            // Feed growing prefixes as a reader would; the first complete parse equals the
            // parse of the whole buffer.
            let mut points = cuts.clone();
            points.push(POST.len());
            points.sort_unstable();
            let whole = try_parse(POST).unwrap();
            let mut first = None;
            for point in points {
                if let Some(parsed) = try_parse(&POST[..point]).unwrap() {
                    first = Some(parsed);
                    break;
                }
            }
            prop_assert_eq!(first, whole);
        }

        #[test]
        fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..512)) {
            let _ = try_parse(&data);
        }
    }
}
