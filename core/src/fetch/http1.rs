//! The outbound HTTP/1.1 client codec: request bytes for a page fetch or a facilitator call,
//! and an incremental response reader with size caps and strict framing (RFC 9112 §6:
//! `Transfer-Encoding: chunked`, then `Content-Length`, then read-until-close).
//!
//! The reader is fed whatever bytes arrive ([`ResponseReader::handle_data`]) and the end of
//! the stream ([`ResponseReader::handle_eof`]); it never needs the bytes split in any
//! particular way.

use url::Url;

use crate::fetch::{FetchError, MAX_RESPONSE_HEAD_BYTES};

/// The `User-Agent` of outbound requests (docs/contract.md: names the service with a URL, the
/// operator's public base URL).
pub fn user_agent(public_base_url: &str) -> String {
    format!(
        "contact-extract/{} (+{public_base_url})",
        env!("CARGO_PKG_VERSION")
    )
}

/// `GET` request bytes for a page: `Accept: text/html`, `Accept-Encoding: gzip, deflate, br`,
/// no cookies, `Connection: close`.
pub fn page_request(url: &Url, user_agent: &str) -> Vec<u8> {
    let mut out = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\n",
        target(url),
        authority(url)
    );
    out.push_str(&format!("User-Agent: {user_agent}\r\n"));
    out.push_str("Accept: text/html, application/xhtml+xml;q=0.9, */*;q=0.1\r\n");
    out.push_str("Accept-Encoding: gzip, deflate, br\r\nConnection: close\r\n\r\n");
    out.into_bytes()
}

/// `GET` request bytes asking for JSON, without content coding (the facilitator's
/// `/supported`), with `extra` (a credentials header: name, value) when given.
pub fn json_get(url: &Url, user_agent: &str, extra: Option<(&str, &str)>) -> Vec<u8> {
    let mut out = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: {user_agent}\r\nAccept: application/json\r\n",
        target(url),
        authority(url)
    );
    push_extra(&mut out, extra);
    out.push_str("Connection: close\r\n\r\n");
    out.into_bytes()
}

/// `POST` request bytes with a JSON body (facilitator `/verify` and `/settle`, the chain's
/// JSON-RPC), with `extra` (a credentials header: name, value) when given.
pub fn json_post(url: &Url, body: &[u8], user_agent: &str, extra: Option<(&str, &str)>) -> Vec<u8> {
    let mut head = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: {user_agent}\r\nAccept: application/json\r\n",
        target(url),
        authority(url)
    );
    push_extra(&mut head, extra);
    head.push_str(&format!(
        "Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    out
}

fn push_extra(head: &mut String, extra: Option<(&str, &str)>) {
    if let Some((name, value)) = extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
}

fn target(url: &Url) -> String {
    match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_string(),
    }
}

fn authority(url: &Url) -> String {
    let host = url.host_str().unwrap_or("");
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    }
}

/// A complete response (body still content-encoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Header fields; names lower-cased, values as text (invalid UTF-8 replaced).
    pub headers: Vec<(String, String)>,
    /// The body after transfer decoding (chunks joined), before content decoding.
    pub body: Vec<u8>,
}

impl Response {
    /// The first value of header `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Whether the reader has a response yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    /// More bytes are needed.
    NeedMore,
    /// The response is complete.
    Done(Response),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    Chunked,
    Length(usize),
    UntilClose,
}

#[derive(Debug)]
enum State {
    Head,
    Body { framing: Framing },
    Finished,
}

/// Reads one response incrementally; the raw body is capped at `max_body` bytes.
#[derive(Debug)]
pub struct ResponseReader {
    buffer: Vec<u8>,
    /// Bytes of `buffer` already looked at for a line end while the head is incomplete.
    head_scanned: usize,
    state: State,
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    max_body: usize,
}

impl ResponseReader {
    /// A reader for a response whose body may hold at most `max_body` bytes.
    pub fn new(max_body: usize) -> ResponseReader {
        ResponseReader {
            buffer: Vec::new(),
            head_scanned: 0,
            state: State::Head,
            status: 0,
            headers: Vec::new(),
            body: Vec::new(),
            max_body,
        }
    }

    /// Feeds bytes read from the connection.
    ///
    /// # Errors
    /// [`FetchError`] for malformed or oversized responses; the reader is then finished.
    pub fn handle_data(&mut self, data: &[u8]) -> Result<Progress, FetchError> {
        if matches!(self.state, State::Finished) {
            return Ok(Progress::NeedMore);
        }
        self.buffer.extend_from_slice(data);
        let result = self.advance();
        if result.is_err() {
            self.state = State::Finished;
        }
        result
    }

    /// Reports the end of the stream.
    ///
    /// # Errors
    /// [`FetchError::Truncated`] when the response was not complete (only read-until-close
    /// bodies end with the stream).
    pub fn handle_eof(&mut self) -> Result<Response, FetchError> {
        match self.state {
            State::Body {
                framing: Framing::UntilClose,
            } => {
                self.state = State::Finished;
                Ok(self.take_response())
            }
            _ => {
                self.state = State::Finished;
                Err(FetchError::Truncated)
            }
        }
    }

    fn advance(&mut self) -> Result<Progress, FetchError> {
        loop {
            match self.state {
                State::Head => {
                    let Some(used) = self.parse_head()? else {
                        return Ok(Progress::NeedMore);
                    };
                    self.buffer.drain(..used);
                    self.head_scanned = 0;
                    // Informational responses (100 Continue, 103 Early Hints) precede the real one.
                    if (100..200).contains(&self.status) {
                        self.headers.clear();
                        continue;
                    }
                    let framing = self.framing()?;
                    if framing == Framing::Length(0) {
                        self.state = State::Finished;
                        return Ok(Progress::Done(self.take_response()));
                    }
                    self.state = State::Body { framing };
                }
                State::Body {
                    framing: Framing::Length(length),
                } => {
                    if length > self.max_body {
                        return Err(FetchError::TooLarge);
                    }
                    if self.buffer.len() < length {
                        return Ok(Progress::NeedMore);
                    }
                    self.body = self.buffer.drain(..length).collect();
                    self.state = State::Finished;
                    return Ok(Progress::Done(self.take_response()));
                }
                State::Body {
                    framing: Framing::UntilClose,
                } => {
                    self.body.append(&mut self.buffer);
                    if self.body.len() > self.max_body {
                        return Err(FetchError::TooLarge);
                    }
                    return Ok(Progress::NeedMore);
                }
                State::Body {
                    framing: Framing::Chunked,
                } => {
                    return match self.read_chunks()? {
                        true => {
                            self.state = State::Finished;
                            Ok(Progress::Done(self.take_response()))
                        }
                        false => Ok(Progress::NeedMore),
                    };
                }
                State::Finished => return Ok(Progress::NeedMore),
            }
        }
    }

    fn parse_head(&mut self) -> Result<Option<usize>, FetchError> {
        // A head can only end when a line does: parse again only once a new `\n` is in (a
        // site dripping its head a byte per read made each read re-parse all of it).
        let from = self.head_scanned.min(self.buffer.len());
        let new_line = memchr::memchr(b'\n', &self.buffer[from..]).is_some();
        self.head_scanned = self.buffer.len();
        if !new_line && self.buffer.len() <= MAX_RESPONSE_HEAD_BYTES {
            return Ok(None);
        }
        let mut storage = [httparse::EMPTY_HEADER; 128];
        let mut response = httparse::Response::new(&mut storage);
        match response.parse(&self.buffer) {
            Ok(httparse::Status::Partial) => {
                if self.buffer.len() > MAX_RESPONSE_HEAD_BYTES {
                    return Err(FetchError::TooLarge);
                }
                Ok(None)
            }
            Ok(httparse::Status::Complete(used)) => {
                if used > MAX_RESPONSE_HEAD_BYTES {
                    return Err(FetchError::TooLarge);
                }
                self.status = response.code.unwrap_or(0);
                self.headers = response
                    .headers
                    .iter()
                    .map(|h| {
                        (
                            h.name.to_ascii_lowercase(),
                            String::from_utf8_lossy(h.value).trim().to_string(),
                        )
                    })
                    .collect();
                Ok(Some(used))
            }
            Err(httparse::Error::TooManyHeaders) => Err(FetchError::TooLarge),
            Err(error) => Err(FetchError::Malformed(error.to_string())),
        }
    }

    fn framing(&self) -> Result<Framing, FetchError> {
        if self.status == 204 || self.status == 304 {
            return Ok(Framing::Length(0));
        }
        let transfer_encoding: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| n == "transfer-encoding")
            .map(|(_, v)| v.as_str())
            .collect();
        if !transfer_encoding.is_empty() {
            let last = transfer_encoding
                .join(",")
                .rsplit(',')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            return if last == "chunked" {
                Ok(Framing::Chunked)
            } else {
                Ok(Framing::UntilClose)
            };
        }
        let lengths: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| n == "content-length")
            .map(|(_, v)| v.as_str())
            .collect();
        match lengths.as_slice() {
            [] => Ok(Framing::UntilClose),
            [first, rest @ ..] => {
                if rest.iter().any(|l| l != first)
                    || first.is_empty()
                    || !first.bytes().all(|b| b.is_ascii_digit())
                {
                    return Err(FetchError::Malformed("invalid Content-Length".to_string()));
                }
                first
                    .parse()
                    .map(Framing::Length)
                    .map_err(|_| FetchError::TooLarge)
            }
        }
    }

    /// Consumes complete chunks from the buffer; `true` once the last chunk and trailers are in.
    /// The consumed bytes leave the buffer once per call: removing each chunk from the front
    /// as it was read moved the rest of the buffer once per chunk (a body of one-byte chunks
    /// cost the IO thread 80 ms per 3.6 MB).
    fn read_chunks(&mut self) -> Result<bool, FetchError> {
        let mut pos = 0;
        let result = self.read_chunks_from(&mut pos);
        self.buffer.drain(..pos.min(self.buffer.len()));
        result
    }

    /// [`Self::read_chunks`] from `*pos`, which it moves past each complete chunk.
    fn read_chunks_from(&mut self, pos: &mut usize) -> Result<bool, FetchError> {
        loop {
            let buffer = &self.buffer[*pos..];
            let Some(line_end) = find_crlf(buffer) else {
                if buffer.len() > 1024 {
                    return Err(FetchError::Malformed(
                        "chunk size line too long".to_string(),
                    ));
                }
                return Ok(false);
            };
            let line = &buffer[..line_end];
            let size_text = line
                .split(|&b| b == b';')
                .next()
                .unwrap_or(b"")
                .trim_ascii();
            if size_text.is_empty()
                || size_text.len() > 16
                || !size_text.iter().all(u8::is_ascii_hexdigit)
            {
                return Err(FetchError::Malformed(format!(
                    "bad chunk size {:?}",
                    String::from_utf8_lossy(size_text)
                )));
            }
            let size = size_text.iter().try_fold(0usize, |size, &digit| {
                let value = char::from(digit).to_digit(16).unwrap_or(0) as usize;
                size.checked_mul(16)?.checked_add(value)
            });
            let size = size.ok_or(FetchError::TooLarge)?;
            if size == 0 {
                // Trailers end with an empty line.
                let rest = &buffer[line_end + 2..];
                if rest.starts_with(b"\r\n") || memchr::memmem::find(rest, b"\r\n\r\n").is_some() {
                    *pos = self.buffer.len();
                    return Ok(true);
                }
                if rest.len() > MAX_RESPONSE_HEAD_BYTES {
                    return Err(FetchError::TooLarge);
                }
                return Ok(false);
            }
            if self.body.len().saturating_add(size) > self.max_body {
                return Err(FetchError::TooLarge);
            }
            let chunk_start = line_end + 2;
            let chunk_end = chunk_start + size;
            if buffer.len() < chunk_end + 2 {
                return Ok(false);
            }
            if &buffer[chunk_end..chunk_end + 2] != b"\r\n" {
                return Err(FetchError::Malformed(
                    "chunk not followed by CRLF".to_string(),
                ));
            }
            self.body.extend_from_slice(&buffer[chunk_start..chunk_end]);
            *pos += chunk_end + 2;
        }
    }

    fn take_response(&mut self) -> Response {
        Response {
            status: self.status,
            headers: std::mem::take(&mut self.headers),
            body: std::mem::take(&mut self.body),
        }
    }
}

fn find_crlf(bytes: &[u8]) -> Option<usize> {
    memchr::memmem::find(bytes, b"\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read_all(chunks: &[&[u8]], max: usize) -> Result<Response, FetchError> {
        let mut reader = ResponseReader::new(max);
        for chunk in chunks {
            if let Progress::Done(response) = reader.handle_data(chunk)? {
                return Ok(response);
            }
        }
        reader.handle_eof()
    }

    const CHUNKED: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n";

    #[test]
    fn request_bytes() {
        let url = Url::parse("http://www.acme.com:8080/contact?x=1#frag").unwrap();
        let agent = user_agent("https://contacts.example.com");
        assert_eq!(
            agent,
            format!(
                "contact-extract/{} (+https://contacts.example.com)",
                env!("CARGO_PKG_VERSION")
            )
        );
        let text = String::from_utf8(page_request(&url, &agent)).unwrap();
        assert!(text.starts_with("GET /contact?x=1 HTTP/1.1\r\nHost: www.acme.com:8080\r\n"));
        assert!(text.contains("Accept-Encoding: gzip, deflate, br\r\n"));
        assert!(text.contains(&format!("User-Agent: {agent}\r\n")));
        assert!(!text.to_lowercase().contains("cookie"));
        let post = String::from_utf8(json_post(
            &Url::parse("https://f.example.com/verify").unwrap(),
            b"{}",
            &agent,
            None,
        ))
        .unwrap();
        assert!(post.starts_with("POST /verify HTTP/1.1\r\nHost: f.example.com\r\n"));
        assert!(post.ends_with("Content-Length: 2\r\nConnection: close\r\n\r\n{}"));
    }

    #[test]
    fn a_response_read_a_byte_at_a_time_is_the_same() {
        // The head is parsed again only once a line ends; the chunks are consumed per read.
        let bytes: Vec<&[u8]> = CHUNKED.chunks(1).collect();
        let response = read_all(&bytes, 1 << 20).unwrap();
        let whole = read_all(&[CHUNKED], 1 << 20).unwrap();
        assert_eq!(response.body, whole.body);
        assert_eq!(response.body, b"hello world");
        assert_eq!(response.headers, whole.headers);
    }

    #[test]
    fn framings() {
        let response = read_all(&[CHUNKED], 100).unwrap();
        assert_eq!(response.body, b"hello world");
        assert_eq!(response.header("content-type"), Some("text/html"));
        let response = read_all(
            &[b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcEXTRA"],
            100,
        )
        .unwrap();
        assert_eq!(response.body, b"abc");
        let response = read_all(&[b"HTTP/1.0 200 OK\r\n\r\nuntil ", b"close"], 100).unwrap();
        assert_eq!(response.body, b"until close");
        let response = read_all(&[b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 301 Moved\r\nLocation: /x\r\nContent-Length: 0\r\n\r\n"], 100).unwrap();
        assert_eq!(
            (response.status, response.header("location")),
            (301, Some("/x"))
        );
        let response = read_all(
            &[b"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n"],
            100,
        )
        .unwrap();
        assert!(response.body.is_empty());
    }

    #[test]
    fn caps_and_errors() {
        assert_eq!(
            read_all(&[b"HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n"], 100),
            Err(FetchError::TooLarge)
        );
        assert_eq!(
            read_all(&[b"HTTP/1.1 200 OK\r\n\r\n", &[b'a'; 101]], 100),
            Err(FetchError::TooLarge)
        );
        assert_eq!(read_all(&[CHUNKED], 5), Err(FetchError::TooLarge));
        assert_eq!(
            read_all(&[b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"], 100),
            Err(FetchError::Truncated)
        );
        assert_eq!(
            read_all(
                &[b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel"],
                100
            ),
            Err(FetchError::Truncated)
        );
        assert!(matches!(
            read_all(
                &[b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"],
                100
            ),
            Err(FetchError::Malformed(_))
        ));
        assert!(matches!(
            read_all(
                &[b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"],
                100
            ),
            Err(FetchError::Malformed(_))
        ));
        assert!(matches!(
            read_all(&[b"SSH-2.0-OpenSSH\r\n\r\n"], 100),
            Err(FetchError::Malformed(_))
        ));
        let mut huge_head = b"HTTP/1.1 200 OK\r\nX: ".to_vec();
        huge_head.resize(MAX_RESPONSE_HEAD_BYTES + 10, b'a');
        assert_eq!(read_all(&[&huge_head], 100), Err(FetchError::TooLarge));
    }

    proptest! {
        #[test]
        fn any_split_gives_the_same_response(cuts in prop::collection::vec(0usize..CHUNKED.len(), 0..8)) {
            let mut points = cuts;
            points.push(0);
            points.push(CHUNKED.len());
            points.sort_unstable();
            points.dedup();
            let pieces: Vec<&[u8]> = points.windows(2).map(|w| &CHUNKED[w[0]..w[1]]).collect();
            prop_assert_eq!(read_all(&pieces, 100), read_all(&[CHUNKED], 100));
        }

        #[test]
        fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..600), split in 0usize..600) {
            let split = split.min(data.len());
            let _ = read_all(&[&data[..split], &data[split..]], 256);
        }
    }
}
