//! One outbound fetch as a state machine — a page of the target site, or a facilitator call:
//! resolve → connect (and TLS) → send the request → read the response, with a deadline per
//! step (DNS 3 s, TCP connect 5 s, TLS handshake 5 s, each read gap 10 s; docs/contract.md
//! "Fetching the target site") and one for the whole fetch. It emits `Resolve`, `Connect` and `SendToFetch`
//! outputs and ends in a [`FetchEnd`]: the response, or why there is none. Every answer is
//! checked against the step it answers, so a late or repeated one changes nothing.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use url::Url;

use crate::api::Failure;
use crate::effects::{FetchId, IoFailure, Output};
use crate::fetch::http1::{Progress, Response, ResponseReader};
use crate::fetch::FetchError;
use crate::net_policy::{approve, approve_configured, NetPolicy, UrlRejection};

/// DNS answer (docs/contract.md: 3 s).
pub const DNS_TIMEOUT: Duration = Duration::from_secs(3);
/// TCP connect (docs/contract.md: 5 s).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// TLS handshake, from `Input::TcpConnected` (docs/contract.md: 5 s).
pub const TLS_TIMEOUT: Duration = Duration::from_secs(5);
/// Response head, then each idle gap in the body (docs/contract.md: 10 s).
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Whom the fetch goes to, which decides the address rules and the failure codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Peer {
    /// The target site: DNS answers pass the SSRF policy; failures are `FETCH_FAILED`,
    /// `PRIVATE_ADDRESS`, `RESPONSE_TOO_LARGE`.
    Site,
    /// The configured facilitator: trusted configuration, no block list (docs/architecture.md
    /// §3.7); a failure is "facilitator unavailable". `patient`: the reply may take until the
    /// fetch's deadline (settlement) rather than one read gap.
    Facilitator { patient: bool },
}

/// What to fetch.
#[derive(Debug)]
pub(crate) struct FetchPlan {
    /// The URL (the request is built for it).
    pub url: Url,
    /// The whole HTTP/1.1 request.
    pub request: Vec<u8>,
    /// Whom it goes to.
    pub peer: Peer,
    /// Largest body, in bytes.
    pub cap: usize,
    /// When the whole fetch must be over.
    pub deadline: Instant,
}

/// How a fetch ended.
#[derive(Debug)]
pub(crate) enum FetchEnd {
    /// A complete response, from this final URL.
    Response(Response, Url),
    /// No usable response.
    Failed(Failure),
}

#[derive(Debug)]
enum Step {
    Resolving {
        deadline: Instant,
    },
    Connecting {
        deadline: Instant,
        /// TCP is up and the TLS handshake runs (its own deadline).
        handshaking: bool,
    },
    Receiving {
        reader: Box<ResponseReader>,
        deadline: Instant,
    },
}

/// One fetch in progress.
#[derive(Debug)]
pub(crate) struct Fetch {
    id: FetchId,
    url: Url,
    request: Vec<u8>,
    peer: Peer,
    cap: usize,
    deadline: Instant,
    step: Step,
    /// Why the fetch failed, for an operator ("dns: …", "tcp: …", "tls: …", "http: …"); the
    /// API code stays the [`Failure`].
    cause: Option<String>,
}

impl Fetch {
    /// Starts the fetch: asks for DNS, or (an IP literal, or a name in the static `resolve`
    /// table) goes straight to the connect.
    ///
    /// # Errors
    /// The failure when it ends at once (a static answer on the block list).
    pub(crate) fn start(
        id: FetchId,
        plan: FetchPlan,
        resolve: Option<IpAddr>,
        policy: &NetPolicy,
        now: Instant,
        outputs: &mut VecDeque<Output>,
    ) -> Result<Fetch, Failure> {
        let host = plan
            .url
            .host_str()
            .unwrap_or("")
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let port = plan.url.port_or_known_default().unwrap_or(443);
        let known = host.parse::<IpAddr>().ok().or(resolve);
        let mut fetch = Fetch {
            id,
            url: plan.url,
            request: plan.request,
            peer: plan.peer,
            cause: None,
            cap: plan.cap,
            deadline: plan.deadline,
            step: Step::Resolving {
                deadline: now + DNS_TIMEOUT,
            },
        };
        match known {
            Some(ip) => match fetch.on_resolved(Ok(vec![ip]), policy, now, outputs) {
                Some(FetchEnd::Failed(failure)) => Err(failure),
                Some(FetchEnd::Response(..)) | None => Ok(fetch),
            },
            None => {
                outputs.push_back(Output::Resolve {
                    fetch: id,
                    host,
                    port,
                });
                Ok(fetch)
            }
        }
    }

    /// Its id.
    pub(crate) fn id(&self) -> FetchId {
        self.id
    }

    /// The earliest of the step's deadline and the whole fetch's.
    pub(crate) fn deadline(&self) -> Instant {
        let step = match &self.step {
            Step::Resolving { deadline }
            | Step::Connecting { deadline, .. }
            | Step::Receiving { deadline, .. } => *deadline,
        };
        step.min(self.deadline)
    }

    /// The DNS answer: connect to the approved address, or end.
    pub(crate) fn on_resolved(
        &mut self,
        result: Result<Vec<IpAddr>, IoFailure>,
        policy: &NetPolicy,
        now: Instant,
        outputs: &mut VecDeque<Output>,
    ) -> Option<FetchEnd> {
        if !matches!(self.step, Step::Resolving { .. }) {
            return None;
        }
        let port = self.url.port_or_known_default().unwrap_or(443);
        let approved = match (self.peer, result) {
            (_, Err(failure)) => Err((Failure::FetchFailed, io_cause(&failure))),
            (Peer::Facilitator { .. }, Ok(addrs)) => approve_configured(&addrs, port).ok_or((
                Failure::FacilitatorUnavailable,
                "dns: no usable address".into(),
            )),
            (Peer::Site, Ok(addrs)) => approve(&addrs, port, policy).map_err(|e| match e {
                UrlRejection::BlockedResolution => (
                    Failure::BlockedResolution,
                    "dns: the name resolves to a blocked address".into(),
                ),
                _ => (Failure::FetchFailed, "dns: no usable address".into()),
            }),
        };
        match approved {
            Ok(addr) => {
                let tls = (self.url.scheme() == "https")
                    .then(|| self.url.host_str().unwrap_or("").into());
                self.step = Step::Connecting {
                    deadline: now + CONNECT_TIMEOUT,
                    handshaking: false,
                };
                outputs.push_back(Output::Connect {
                    fetch: self.id,
                    addr,
                    tls,
                });
                None
            }
            Err((failure, cause)) => Some(self.fail(failure, cause)),
        }
    }

    /// TCP is up; the TLS handshake gets [`TLS_TIMEOUT`] from now. Once per connect.
    pub(crate) fn on_tcp_connected(&mut self, now: Instant) {
        if let Step::Connecting {
            deadline,
            handshaking: handshaking @ false,
        } = &mut self.step
        {
            *deadline = now + TLS_TIMEOUT;
            *handshaking = true;
        }
    }

    /// The connect (and TLS handshake) result: send the request, or end.
    pub(crate) fn on_connected(
        &mut self,
        result: Result<(), IoFailure>,
        now: Instant,
        outputs: &mut VecDeque<Output>,
    ) -> Option<FetchEnd> {
        if !matches!(self.step, Step::Connecting { .. }) {
            return None;
        }
        if let Err(failure) = result {
            return Some(self.fail(Failure::FetchFailed, io_cause(&failure)));
        }
        let deadline = match self.peer {
            Peer::Facilitator { patient: true } => self.deadline,
            Peer::Site | Peer::Facilitator { patient: false } => now + READ_TIMEOUT,
        };
        self.step = Step::Receiving {
            reader: Box::new(ResponseReader::new(self.cap)),
            deadline,
        };
        let data = std::mem::take(&mut self.request);
        outputs.push_back(Output::SendToFetch {
            fetch: self.id,
            data,
        });
        None
    }

    /// Response bytes: the response once complete, a failure, or nothing yet.
    pub(crate) fn on_data(&mut self, data: &[u8], now: Instant) -> Option<FetchEnd> {
        let Step::Receiving { reader, deadline } = &mut self.step else {
            return None;
        };
        *deadline = now + READ_TIMEOUT;
        match reader.handle_data(data) {
            Ok(Progress::NeedMore) => None,
            Ok(Progress::Done(response)) => Some(FetchEnd::Response(response, self.url.clone())),
            Err(error) => Some(self.fail(self.failure(&error), format!("http: {error}"))),
        }
    }

    /// The connection closed: the response if it was complete (read to end of stream).
    pub(crate) fn on_closed(&mut self) -> FetchEnd {
        let ended = match &mut self.step {
            Step::Receiving { reader, .. } => reader.handle_eof(),
            Step::Resolving { .. } | Step::Connecting { .. } => {
                let cause = "tcp: closed before the request was sent".to_string();
                return self.fail(Failure::FetchFailed, cause);
            }
        };
        match ended {
            Ok(response) => FetchEnd::Response(response, self.url.clone()),
            Err(error) => self.fail(self.failure(&error), format!("http: {error}")),
        }
    }

    /// The fetch's deadline passed: notes which step it was in (for [`Fetch::cause`]).
    pub(crate) fn note_timeout(&mut self) {
        let cause = match self.step {
            Step::Resolving { .. } => "dns: no answer in time",
            Step::Connecting {
                handshaking: false, ..
            } => "tcp: connect timed out",
            Step::Connecting {
                handshaking: true, ..
            } => "tls: handshake timed out",
            Step::Receiving { .. } => "http: no response in time",
        };
        self.cause = Some(cause.to_string());
    }

    /// Whether the request may have left: it was handed to the runtime once the connection (and
    /// its TLS handshake) was up. A fetch that ends before — at DNS, at the connect, in the
    /// handshake — sent no byte of it, so its peer cannot have acted on it.
    pub(crate) fn request_sent(&self) -> bool {
        matches!(self.step, Step::Receiving { .. })
    }

    /// Why the fetch failed, once it has ("dns: …", "tcp: …", "tls: …", "http: …").
    pub(crate) fn cause(&self) -> Option<&str> {
        self.cause.as_deref()
    }

    fn fail(&mut self, failure: Failure, cause: String) -> FetchEnd {
        self.cause = Some(cause);
        FetchEnd::Failed(failure)
    }

    fn failure(&self, error: &FetchError) -> Failure {
        match (self.peer, error) {
            (Peer::Site, FetchError::TooLarge) => Failure::ResponseTooLarge,
            (Peer::Site, _) => Failure::FetchFailed,
            (Peer::Facilitator { .. }, _) => Failure::FacilitatorUnavailable,
        }
    }
}

/// An operator's words for a runtime's IO failure.
fn io_cause(failure: &IoFailure) -> String {
    match failure {
        IoFailure::Dns(message) => format!("dns: {message}"),
        IoFailure::Refused => "tcp: connection refused".to_string(),
        IoFailure::Tls(message) => format!("tls: {message}"),
        IoFailure::Other(message) => message.clone(),
    }
}
