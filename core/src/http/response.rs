//! Response serialisation: status line, the headers every response carries (docs/contract.md:
//! `Content-Type: application/json`, `Content-Length`, `X-Request-Id`, CORS), and the body.

/// CORS headers on every response (docs/payments.md: expose the payment headers).
const CORS: &[(&str, &str)] = &[
    ("Access-Control-Allow-Origin", "*"),
    (
        "Access-Control-Expose-Headers",
        "PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-Request-Id",
    ),
];

/// A response to serialise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// HTTP status code.
    pub status: u16,
    /// Extra headers (name, value), in order; the common ones are added by [`Response::to_bytes`].
    pub headers: Vec<(&'static str, String)>,
    /// JSON body (empty for 204).
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON response of `status` with `body`.
    pub fn json(status: u16, body: Vec<u8>) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body,
        }
    }

    /// Adds a header.
    #[must_use]
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }

    /// The bytes to send: `HTTP/1.1 <status> <reason>`, `Content-Type` (for a body),
    /// `Content-Length`, CORS, the extra headers, `X-Request-Id`, `Connection: close` when
    /// `close`, then the body.
    pub fn to_bytes(self, request_id: &str, close: bool) -> Vec<u8> {
        self.prepare().to_bytes(request_id, close)
    }

    /// Serialises everything that does not depend on the request, once; for responses sent
    /// many times (the unpaid 402).
    pub fn prepare(self) -> PreparedResponse {
        let extra: usize = self
            .headers
            .iter()
            .map(|(n, v)| n.len() + v.len() + 4)
            .sum();
        let mut head = Vec::with_capacity(256 + extra);
        let mut line = |parts: &[&[u8]]| {
            for part in parts {
                head.extend_from_slice(part);
            }
            head.extend_from_slice(b"\r\n");
        };
        let status = self.status.to_string();
        line(&[
            b"HTTP/1.1 ",
            status.as_bytes(),
            b" ",
            reason(self.status).as_bytes(),
        ]);
        if self.status != 204 {
            line(&[b"Content-Type: application/json"]);
        }
        let length = self.body.len().to_string();
        line(&[b"Content-Length: ", length.as_bytes()]);
        for (name, value) in CORS {
            line(&[name.as_bytes(), b": ", value.as_bytes()]);
        }
        for (name, value) in &self.headers {
            // Header values are built by the core; strip line breaks defensively anyway.
            let value = value.as_bytes();
            if memchr::memchr2(b'\r', b'\n', value).is_some() {
                let clean: Vec<u8> = value
                    .iter()
                    .copied()
                    .filter(|b| *b != b'\r' && *b != b'\n')
                    .collect();
                line(&[name.as_bytes(), b": ", &clean]);
            } else {
                line(&[name.as_bytes(), b": ", value]);
            }
        }
        PreparedResponse {
            status: self.status,
            head,
            body: self.body,
        }
    }
}

/// A [`Response`] serialised up to the per-request headers (`X-Request-Id`, `Connection`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedResponse {
    /// HTTP status code.
    pub status: u16,
    /// Status line and headers, each ending in CRLF, without the blank line.
    head: Vec<u8>,
    /// The body.
    body: Vec<u8>,
}

impl PreparedResponse {
    /// The bytes to send for the request `request_id`, with `Connection: close` when `close`.
    pub fn to_bytes(&self, request_id: &str, close: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.head.len() + request_id.len() + 48 + self.body.len());
        self.write_head(&mut out, request_id, close);
        out.extend_from_slice(&self.body);
        out
    }

    /// The bytes to send for a `HEAD` request (RFC 9110 §9.3.2): those of
    /// [`PreparedResponse::to_bytes`] without the body; `Content-Length` still gives the
    /// body's length.
    pub fn head_bytes(&self, request_id: &str, close: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.head.len() + request_id.len() + 48);
        self.write_head(&mut out, request_id, close);
        out
    }

    /// The head: status line, headers, `X-Request-Id`, `Connection: close` when `close`, the
    /// blank line.
    fn write_head(&self, out: &mut Vec<u8>, request_id: &str, close: bool) {
        out.extend_from_slice(&self.head);
        out.extend_from_slice(b"X-Request-Id: ");
        out.extend_from_slice(request_id.as_bytes());
        out.extend_from_slice(b"\r\n");
        if close {
            out.extend_from_slice(b"Connection: close\r\n");
        }
        out.extend_from_slice(b"\r\n");
    }
}

/// The answer to an `OPTIONS` preflight.
pub fn preflight() -> Response {
    Response {
        status: 204,
        headers: Vec::new(),
        body: Vec::new(),
    }
    .with_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
    .with_header(
        "Access-Control-Allow-Headers",
        "Content-Type, PAYMENT-SIGNATURE",
    )
    .with_header("Access-Control-Max-Age", "600")
}

/// The reason phrase of the statuses this service uses.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        402 => "Payment Required",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_status_headers_and_body() {
        let bytes = Response::json(402, b"{}".to_vec())
            .with_header("PAYMENT-REQUIRED", "abc=")
            .with_header("Cache-Control", "no-store\r\nX-Evil: 1")
            .to_bytes("req_1", false);
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with("HTTP/1.1 402 Payment Required\r\n"));
        for line in [
            "Content-Type: application/json\r\n",
            "Content-Length: 2\r\n",
            "X-Request-Id: req_1\r\n",
            "Access-Control-Allow-Origin: *\r\n",
            "Access-Control-Expose-Headers: PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-Request-Id\r\n",
            "PAYMENT-REQUIRED: abc=\r\n",
            "Cache-Control: no-storeX-Evil: 1\r\n",
        ] {
            assert!(text.contains(line), "{line:?} in {text}");
        }
        assert!(!text.contains("Connection: close"));
        assert!(text.ends_with("\r\n\r\n{}"));
        // For HEAD: the same head, no body.
        let prepared = Response::json(402, b"{}".to_vec()).prepare();
        let head = prepared.head_bytes("req_1", true);
        let full = prepared.to_bytes("req_1", true);
        assert_eq!(full.strip_suffix(b"{}"), Some(head.as_slice()));
        // The parser of our own HTTP client side agrees on framing.
        let mut headers = [httparse::EMPTY_HEADER; 16];
        let mut response = httparse::Response::new(&mut headers);
        assert!(response.parse(text.as_bytes()).unwrap().is_complete());
        assert_eq!(response.code, Some(402));
    }

    #[test]
    fn preflight_allows_the_payment_header() {
        let text = String::from_utf8(preflight().to_bytes("req_2", true)).unwrap();
        assert!(text.starts_with("HTTP/1.1 204 No Content\r\n"));
        assert!(text.contains("Access-Control-Allow-Headers: Content-Type, PAYMENT-SIGNATURE\r\n"));
        assert!(text.contains("Connection: close\r\n"));
        assert!(!text.contains("Content-Type: application/json"));
    }
}
