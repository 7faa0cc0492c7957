//! Reading requests from the client: heads, bodies, pipelining, and routing each request
//! to a free route or the paid one.

use super::*;
use crate::http::chunked::ChunkError;

/// A chunked request body being read ([`State::ReadingBody`]).
#[derive(Debug, Default)]
pub(super) struct ChunkedBody {
    decoder: ChunkedDecoder,
    body: Vec<u8>,
}

impl Exchange {
    pub(super) fn advance_inbound(&mut self, server: &Server, now: Instant) {
        // Bounded: every request takes at most two rounds (head, then body) and at least one
        // byte, so twice the buffered bytes is enough for every complete request in it —
        // however many a client pipelined at once (a fixed bound left the rest unanswered).
        if self.proxy_header_due && !self.read_proxy_header(server, now) {
            return;
        }
        let rounds = 2 * self.inbound.len() + 2;
        for _ in 0..rounds {
            if matches!(self.state, State::Idle { .. }) && !self.head_may_be_complete() {
                return;
            }
            match &self.state {
                State::Idle { .. } => match try_parse(&self.inbound) {
                    Ok(None) => return,
                    Ok(Some((used, head))) => {
                        self.inbound.drain(..used);
                        self.head_scanned = 0;
                        let chunked = head.chunked.then(Box::default);
                        self.state = State::ReadingBody {
                            head,
                            started: now,
                            deadline: now + BODY_TIMEOUT,
                            chunked,
                        };
                    }
                    Err(error) => {
                        let failure = match error.status() {
                            431 => Failure::HeadTooLarge,
                            413 => Failure::BodyTooLarge,
                            501 => Failure::UnsupportedTransferCoding,
                            _ => Failure::MalformedRequest,
                        };
                        self.refuse_stream(server, &failure, &error.to_string(), now);
                        return;
                    }
                },
                State::ReadingBody {
                    chunked: Some(_), ..
                } => {
                    if !self.read_chunked(server, now) {
                        return;
                    }
                }
                State::ReadingBody { head, .. } => {
                    if self.inbound.len() < head.content_length {
                        return;
                    }
                    let State::ReadingBody { head, started, .. } = std::mem::replace(
                        &mut self.state,
                        State::Idle {
                            deadline: now + HEAD_TIMEOUT,
                        },
                    ) else {
                        return;
                    };
                    let body: Vec<u8> = self.inbound.drain(..head.content_length).collect();
                    self.handle_request(server, head, body, started, now);
                }
                State::Admitting(_)
                | State::Job(_)
                | State::Operator(_)
                | State::Probe(..)
                | State::Closed => return,
            }
        }
    }

    /// Decodes what has come of a chunked body, taking the bytes it used from `inbound`;
    /// `true` once the request was handled (the body ended: what follows in `inbound` is the
    /// next request). A body over the limit or malformed is answered (413, 400) and closed.
    #[cold]
    fn read_chunked(&mut self, server: &Server, now: Instant) -> bool {
        let State::ReadingBody {
            chunked: Some(chunked),
            ..
        } = &mut self.state
        else {
            return false;
        };
        let ChunkedBody { decoder, body } = &mut **chunked;
        let result = decoder.decode(&self.inbound, body);
        let done = decoder.is_done();
        let used = match result {
            Ok(used) => used,
            Err(error) => {
                let State::ReadingBody { head, started, .. } = self.take_state(now) else {
                    return false;
                };
                let request = RequestInfo {
                    id: server.next_request_id(now),
                    method: head.method,
                    path: head.path,
                    started,
                    close: true,
                };
                let failure = match error {
                    ChunkError::TooLarge => Failure::BodyTooLarge,
                    ChunkError::Malformed(_) => Failure::MalformedRequest,
                };
                self.respond_error(&request, &failure, &error.to_string(), now);
                return false;
            }
        };
        self.inbound.drain(..used);
        if !done {
            return false;
        }
        let State::ReadingBody {
            head,
            started,
            chunked: Some(chunked),
            ..
        } = std::mem::replace(
            &mut self.state,
            State::Idle {
                deadline: now + HEAD_TIMEOUT,
            },
        )
        else {
            return false;
        };
        self.handle_request(server, head, chunked.body, started, now);
        true
    }

    /// Whether the buffered head is worth parsing: a head can only end when a line does, so
    /// it is parsed again only once a new `\n` has come in (or the buffer is over the head
    /// limit, which parsing reports). A client sending its head a byte per read made every
    /// read parse all of it again: 100 ms of the IO thread per 32 KiB head.
    fn head_may_be_complete(&mut self) -> bool {
        let from = self.head_scanned.min(self.inbound.len());
        let new_line = memchr::memchr(b'\n', &self.inbound[from..]).is_some();
        self.head_scanned = self.inbound.len();
        new_line || self.inbound.len() > crate::http::request::MAX_HEAD_BYTES
    }

    /// Reads the PROXY protocol header a trusted proxy sends first (`PROXY_PROTOCOL=true`).
    /// `false` while it is incomplete, or when it is invalid (answered 400 and closed).
    fn read_proxy_header(&mut self, server: &Server, now: Instant) -> bool {
        match proxy_protocol::parse(&self.inbound) {
            ProxyHeader::Incomplete => false,
            ProxyHeader::Complete(length, client) => {
                self.inbound.drain(..length);
                // A header that names no client (v1 UNKNOWN, v2 LOCAL: the proxy's own
                // connection) makes the peer the client. X-Forwarded-For is not read then: an
                // L4 proxy passes it through from the client unread.
                self.proxied_client = Some(client.unwrap_or(self.peer));
                self.proxy_header_due = false;
                true
            }
            ProxyHeader::Invalid => {
                let message = "expected a PROXY protocol header from this proxy";
                self.refuse_stream(server, &Failure::MalformedRequest, message, now);
                false
            }
        }
    }

    /// Answers bytes that are not a request it can read (no method or path to log) and
    /// closes the connection: the stream cannot be trusted after them.
    fn refuse_stream(&mut self, server: &Server, failure: &Failure, message: &str, now: Instant) {
        let request = RequestInfo {
            id: server.next_request_id(now),
            method: String::new(),
            path: String::new(),
            started: now,
            close: true,
        };
        self.respond_error(&request, failure, message, now);
    }

    pub(super) fn handle_request(
        &mut self,
        server: &Server,
        head: RequestHead,
        body: Vec<u8>,
        started: Instant,
        now: Instant,
    ) {
        self.client = match self.proxied_client {
            Some(client) => client,
            None => client_ip(self.peer, &head, &server.config.trusted_proxies),
        };
        let request = RequestInfo {
            id: server.next_request_id(now),
            method: head.method.clone(),
            path: head.path.clone(),
            started,
            close: !head.keep_alive,
        };
        let route = match route(&head.method, &head.path) {
            Ok(route) => route,
            Err(RouteError::NotFound) => {
                let message = format!("no route for {}", head.path);
                self.respond_error(&request, &Failure::NotFound, &message, now);
                return;
            }
            Err(RouteError::MethodNotAllowed(allow)) => {
                let message = format!("{} is not allowed here; use {allow}", head.method);
                let allow_header = [("Allow", allow.to_string())];
                let failure = Failure::MethodNotAllowed;
                self.respond_error_with(&request, &failure, &message, now, &allow_header);
                return;
            }
        };
        let (shedding, unusable) = match route {
            Route::Ready if matches!(server.config.payment, PaymentConfig::Ready { .. }) => {
                let unusable: Vec<String> = server
                    .facilitator_problems()
                    .into_iter()
                    .chain(server.store_problem())
                    .collect();
                (server.shedding(), unusable)
            }
            _ => (Vec::new(), Vec::new()),
        };
        if !shedding.is_empty() || !unusable.is_empty() {
            // Ready in configuration, but at a cap or without a usable facilitator or store:
            // a load balancer should send new work elsewhere until this clears.
            let status = if unusable.is_empty() {
                "shedding"
            } else {
                "not ready"
            };
            let problems: Vec<String> = shedding.into_iter().chain(unusable).collect();
            let body = serde_json::json!({"status": status, "problems": problems});
            let response = Response::json(503, serde_json::to_vec(&body).unwrap_or_default())
                .with_header("Retry-After", "1");
            self.send_plain(&response.prepare(), &request, now);
            return;
        }
        if route == Route::Ready && matches!(server.config.payment, PaymentConfig::Ready { .. }) {
            // Ready: the other facilitators' problems are warnings.
            let response = ready_response(&server.config, server.facilitator_warnings());
            self.send_plain(&response.prepare(), &request, now);
            return;
        }
        match free_response(&server.config, route) {
            Some(response) => self.send_plain(&response.prepare(), &request, now),
            None => self.extract_contact(server, &head, &body, request, now),
        }
    }
}
