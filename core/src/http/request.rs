//! Request heads on `httparse`, with the limits of docs/contract.md ("Request order", step 1,
//! and "Request framing") and strict framing (RFC 9112 §6.3): one valid `Content-Length`, or
//! `Transfer-Encoding` whose final coding is `chunked` (the body is then decoded by
//! [`crate::http::chunked`]), never both; no obsolete line folding.
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
    /// The body length in bytes (0 without `Content-Length`, and for a chunked body).
    pub content_length: usize,
    /// Whether the body comes in the chunked transfer coding (RFC 9112 §7.1), its length
    /// unknown until its last chunk.
    pub chunked: bool,
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
    /// Several or invalid `Content-Length`; `Content-Length` with `Transfer-Encoding`;
    /// `Transfer-Encoding` whose final coding is not `chunked`, or in HTTP/1.0 (RFC 9112
    /// §6.1, §6.3): 400.
    BadFraming(&'static str),
    /// A transfer coding other than `chunked` before it (RFC 9112 §6.1): 501.
    UnsupportedCoding,
}

impl HeadError {
    /// The HTTP status to answer with.
    pub fn status(&self) -> u16 {
        match self {
            Self::TooLarge => 431,
            Self::BodyTooLarge => 413,
            Self::Malformed(_) | Self::BadFraming(_) => 400,
            Self::UnsupportedCoding => 501,
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
            Self::UnsupportedCoding => write!(f, "the only transfer coding accepted is chunked"),
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
    let mut transfer_encoding = false;
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
            "transfer-encoding" => transfer_encoding = true,
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
    let chunked = transfer_encoding && chunked_framing(&request, minor_version, content_length)?;
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
            chunked,
            keep_alive,
        },
    )))
}

/// The framing of a head with `Transfer-Encoding`: `Ok(true)` when it is exactly `chunked`
/// (its field lines are one comma-separated list, RFC 9110 §5.3; case-insensitive, empty
/// elements skipped).
///
/// # Errors
/// [`HeadError::BadFraming`] with a `Content-Length` too (request smuggling, RFC 9112 §6.3),
/// in HTTP/1.0 (§6.1), when `chunked` is not the final coding (§6.3) or comes more than once
/// (§7.1); [`HeadError::UnsupportedCoding`] when another coding precedes it (§6.1: 501).
#[cold]
fn chunked_framing(
    request: &httparse::Request<'_, '_>,
    minor_version: u8,
    content_length: Option<usize>,
) -> Result<bool, HeadError> {
    if content_length.is_some() {
        return Err(HeadError::BadFraming(
            "Content-Length and Transfer-Encoding together",
        ));
    }
    if minor_version == 0 {
        return Err(HeadError::BadFraming("Transfer-Encoding in HTTP/1.0"));
    }
    let mut codings = 0;
    let mut chunked = 0;
    let mut last_chunked = false;
    let fields = request
        .headers
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case("transfer-encoding"));
    for field in fields {
        for coding in field.value.split(|b| *b == b',') {
            let coding = coding.trim_ascii();
            if coding.is_empty() {
                continue;
            }
            codings += 1;
            last_chunked = coding.eq_ignore_ascii_case(b"chunked");
            chunked += usize::from(last_chunked);
        }
    }
    if !last_chunked {
        return Err(HeadError::BadFraming(
            "chunked is not the final transfer coding",
        ));
    }
    if chunked > 1 {
        return Err(HeadError::BadFraming("chunked is applied more than once"));
    }
    if codings > 1 {
        return Err(HeadError::UnsupportedCoding);
    }
    Ok(true)
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
        let (used, head) =
            try_parse(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello")
                .unwrap()
                .unwrap();
        assert_eq!((used, head.chunked, head.content_length), (47, true, 0));
        assert!(!try_parse(POST).unwrap().unwrap().1.chunked);
    }

    /// The status `try_parse` answers `raw` with: 200 for a complete head, 0 while incomplete.
    fn status_of(raw: &[u8]) -> u16 {
        match try_parse(raw) {
            Ok(Some(_)) => 200,
            Ok(None) => 0,
            Err(error) => error.status(),
        }
    }

    #[test]
    fn strict_framing() {
        for (raw, want) in [
            // RFC 9112 §6.3: both framings is request smuggling: 400 (and the caller closes).
            (
                &b"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"[..],
                400,
            ),
            (
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
                400,
            ),
            (
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 16385\r\n\r\n",
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
    fn transfer_codings() {
        for (te, want) in [
            // RFC 9112 §7.1: every recipient parses chunked.
            ("chunked", 200),
            ("Chunked", 200),
            (" chunked ", 200),
            ("chunked,", 200),
            // §6.1: a coding the server does not know: 501.
            ("gzip, chunked", 501),
            ("identity, chunked", 501),
            // §6.3: chunked not the final coding: the length cannot be known: 400.
            ("gzip", 400),
            ("chunked, gzip", 400),
            ("", 400),
            // §7.1: chunked applied more than once.
            ("chunked, chunked", 400),
        ] {
            let raw = format!("POST / HTTP/1.1\r\nTransfer-Encoding: {te}\r\n\r\n");
            assert_eq!(status_of(raw.as_bytes()), want, "{te:?}");
        }
        // Several field lines are one list (RFC 9110 §5.3).
        let raw =
            b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert_eq!(status_of(raw), 501);
        let raw =
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert_eq!(status_of(raw), 400);
        // §6.1: Transfer-Encoding in HTTP/1.0 is faulty framing.
        assert_eq!(
            status_of(b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"),
            400
        );
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

    /// One generated request head: its parts, and the bytes they make.
    #[derive(Debug, Clone)]
    struct Generated {
        method: String,
        target: String,
        version: &'static str,
        eol: &'static str,
        /// (name, value, folded continuation line after it).
        fields: Vec<(String, Vec<u8>, bool)>,
    }

    impl Generated {
        fn bytes(&self) -> Vec<u8> {
            let mut raw = format!(
                "{} {} {}{}",
                self.method, self.target, self.version, self.eol
            )
            .into_bytes();
            for (name, value, folded) in &self.fields {
                raw.extend_from_slice(name.as_bytes());
                raw.extend_from_slice(b": ");
                raw.extend_from_slice(value);
                raw.extend_from_slice(self.eol.as_bytes());
                if *folded {
                    raw.extend_from_slice(b" folded");
                    raw.extend_from_slice(self.eol.as_bytes());
                }
            }
            raw.extend_from_slice(self.eol.as_bytes());
            raw
        }
    }

    fn generated() -> impl Strategy<Value = Generated> {
        let method = prop_oneof![
            8 => prop::sample::select(vec!["GET", "POST", "HEAD", "OPTIONS", "get", "M-SEARCH"])
                .prop_map(str::to_string),
            1 => "[A-Za-z0-9!#$%&'*+.^_`|~-]{1,8}",
            1 => "[ -~]{0,4}",
        ];
        let target = prop_oneof![
            8 => "/[A-Za-z0-9._~%/!$&'()*+,;=:@-]{0,16}(\\?[a-z0-9=&?/]{0,10})?",
            1 => prop::sample::select(vec!["*", "http://a.example/b?c", "/a#f", "//", "/?"])
                .prop_map(str::to_string),
            1 => "[!-~]{0,6}",
        ];
        let version = prop::sample::select(vec![
            "HTTP/1.1",
            "HTTP/1.1",
            "HTTP/1.1",
            "HTTP/1.1",
            "HTTP/1.0",
            "HTTP/2.0",
            "http/1.1",
            "HTTP/1.1 ",
        ]);
        let eol = prop::sample::select(vec!["\r\n", "\r\n", "\r\n", "\n"]);
        let name = prop_oneof![
            prop::sample::select(vec!["Host", "Connection", "X-A", "Content-Type"])
                .prop_map(str::to_string),
            "[A-Za-z0-9!#$%&'*+.^_`|~-]{1,10}",
            "[ -~]{1,4}",
        ];
        let value = prop_oneof![
            prop::sample::select(vec!["x", "", "close", "keep-alive", "Keep-Alive, Upgrade"])
                .prop_map(|v| v.as_bytes().to_vec()),
            "[ -~]{0,12}".prop_map(String::into_bytes),
            prop::collection::vec(any::<u8>(), 0..6),
        ];
        let field = (name, value, prop::bool::weighted(0.02));
        // The framing fields, the ones the strict rules are about, in most heads.
        let framing_name = prop::sample::select(vec![
            "Content-Length",
            "content-length",
            "Transfer-Encoding",
            "TRANSFER-ENCODING",
        ])
        .prop_map(str::to_string);
        let framing_value = prop::sample::select(vec![
            "0",
            "5",
            " 7 ",
            "16384",
            "16385",
            "+5",
            "5, 5",
            "abc",
            "99999999999999999999999",
            "chunked",
            "chunked",
            "chunked",
            "Chunked",
            " chunked ",
            "gzip, chunked",
            "chunked, gzip",
            "gzip",
            "chunked, chunked",
            "",
            "identity, chunked",
            "chunked,",
        ])
        .prop_map(|v| v.as_bytes().to_vec());
        let framing = (framing_name, framing_value, Just(false));
        let fields = (
            prop::collection::vec(field, 0..5),
            prop::collection::vec(framing, 0..3),
        )
            .prop_flat_map(|(mut fields, framing)| {
                fields.extend(framing);
                Just(fields).prop_shuffle()
            });
        (method, target, version, eol, fields).prop_map(|(method, target, version, eol, fields)| {
            Generated {
                method,
                target,
                version,
                eol,
                fields,
            }
        })
    }

    /// What the strict framing rules (stricter than `httparse`, which leaves framing to its
    /// caller) make of a head `httparse` accepted: the status and the rule, or `None` to accept.
    fn stricter_rule(
        minor_version: u8,
        headers: &[httparse::Header<'_>],
    ) -> Option<(u16, &'static str)> {
        let named = |name: &'static str| {
            headers
                .iter()
                .filter(move |h| h.name.eq_ignore_ascii_case(name))
                .map(|h| h.value)
        };
        let lengths: Vec<Option<usize>> = named("content-length")
            .map(|v| {
                std::str::from_utf8(v)
                    .ok()
                    .map(str::trim)
                    .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|v| v.parse().ok())
            })
            .collect();
        if lengths.iter().any(Option::is_none) {
            return Some((400, "RFC 9112 §6.3: an invalid Content-Length"));
        }
        if lengths.len() > 1 {
            return Some((400, "RFC 9112 §6.3: more than one Content-Length"));
        }
        let codings: Vec<String> = named("transfer-encoding")
            .flat_map(|v| {
                String::from_utf8_lossy(v)
                    .split(',')
                    .map(|c| c.trim_matches([' ', '\t']).to_ascii_lowercase())
                    .filter(|c| !c.is_empty())
                    .collect::<Vec<_>>()
            })
            .collect();
        if named("transfer-encoding").next().is_some() {
            if !lengths.is_empty() {
                return Some((
                    400,
                    "RFC 9112 §6.3: Content-Length with Transfer-Encoding (smuggling)",
                ));
            }
            if minor_version == 0 {
                return Some((400, "RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0"));
            }
            if codings.last().map(String::as_str) != Some("chunked") {
                return Some((
                    400,
                    "RFC 9112 §6.3: chunked is not the final transfer coding",
                ));
            }
            if codings.iter().filter(|c| *c == "chunked").count() > 1 {
                return Some((400, "RFC 9112 §7.1: chunked applied more than once"));
            }
            if codings.len() > 1 {
                return Some((501, "RFC 9112 §6.1: a transfer coding other than chunked"));
            }
        }
        if lengths.first().copied().flatten().unwrap_or(0) > MAX_BODY_BYTES {
            return Some((413, "a Content-Length over MAX_BODY_BYTES"));
        }
        None
    }

    proptest! {
        /// Differential: on generated heads full of edge cases, what `httparse` refuses is
        /// refused; what it accepts is either refused by a named stricter framing rule, or
        /// accepted with the same method, target, version, header fields and length.
        #[test]
        fn agrees_with_httparse_or_names_the_stricter_rule(generated in generated()) {
            let raw = generated.bytes();
            let mut storage = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut reference = httparse::Request::new(&mut storage);
            let ours = try_parse(&raw);
            match reference.parse(&raw) {
                Err(_) | Ok(httparse::Status::Partial) => {
                    // Whole heads only are generated: what httparse does not complete, we refuse.
                    prop_assert!(ours.is_err(), "{:?}: httparse refused, we said {:?}", generated, ours);
                }
                Ok(httparse::Status::Complete(used)) => {
                    let minor = reference.version.unwrap_or(1);
                    match (stricter_rule(minor, reference.headers), ours) {
                        (Some((status, rule)), got) => {
                            prop_assert_eq!(got.as_ref().err().map(HeadError::status), Some(status), "{}: {:?}", rule, generated);
                        }
                        (None, Ok(Some((our_used, head)))) => {
                            prop_assert_eq!(our_used, used);
                            prop_assert_eq!(Some(head.method.as_str()), reference.method);
                            let target = match &head.query {
                                Some(query) => format!("{}?{query}", head.path),
                                None => head.path.clone(),
                            };
                            prop_assert_eq!(Some(target.as_str()), reference.path);
                            prop_assert_eq!(Some(head.minor_version), reference.version);
                            let fields: Vec<(String, Vec<u8>)> = reference
                                .headers
                                .iter()
                                .map(|h| (h.name.to_ascii_lowercase(), h.value.to_vec()))
                                .collect();
                            prop_assert_eq!(&head.headers, &fields);
                            let length = head.header("content-length").map_or(0, |v| v.parse().unwrap());
                            prop_assert_eq!(head.content_length, length);
                            prop_assert_eq!(head.chunked, head.header("transfer-encoding").is_some());
                        }
                        (None, got) => {
                            prop_assert!(false, "{:?}: httparse accepted and no rule refuses, we said {:?}", generated, got);
                        }
                    }
                }
            }
        }

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
