//! The facilitator check behind readiness (docs/operations.md, "Readiness"): an exchange
//! without a client that fetches `GET {FACILITATOR_URL}/supported` and records on the
//! [`Server`] whether the facilitator lists x402 v2 `exact` on the configured network.
//! `/api/ready` is 503 until a check has found it, and again whenever a later check does not.

use super::*;
use crate::server::FacilitatorHealth;

/// Largest `/supported` answer read, in bytes.
const MAX_SUPPORTED_REPLY: usize = 64 * 1024;

impl Exchange {
    /// A facilitator check: drive it like a connection without a client (it never emits
    /// `SendToClient`); when it is finished, [`Server::facilitator_health`] holds its outcome.
    /// `None` when payments are not configured (readiness already names that).
    pub fn facilitator_check(server: &Server, now: Instant) -> Option<Exchange> {
        let PaymentConfig::Ready { facilitator, .. } = &server.config.payment else {
            return None;
        };
        let url = endpoint(facilitator, "supported");
        let mut exchange = Exchange::new(server.clone(), IpAddr::from([127, 0, 0, 1]), now);
        let plan = FetchPlan {
            request: http1::json_get(&url, &server.user_agent),
            url,
            peer: Peer::Facilitator { patient: false },
            cap: MAX_SUPPORTED_REPLY,
            deadline: now + FACILITATOR_CHECK_TIMEOUT,
        };
        match exchange.open_fetch(server, plan, now) {
            Ok(fetch) => exchange.state = State::Probe(Box::new(fetch)),
            Err(failure) => exchange.check_done(server, FetchEnd::Failed(failure)),
        }
        Some(exchange)
    }

    /// The check's fetch ended: record what it found and finish.
    pub(super) fn check_done(&mut self, server: &Server, end: FetchEnd) {
        let mut cause = None;
        if let State::Probe(fetch) = &self.state {
            self.outputs
                .push_back(Output::CloseFetch { fetch: fetch.id() });
            cause = fetch.cause().map(str::to_string);
        }
        self.state = State::Closed;
        let PaymentConfig::Ready { terms, .. } = &server.config.payment else {
            return;
        };
        let network = &terms.requirements.network;
        let health = match end {
            FetchEnd::Response(response, _) if (200..300).contains(&response.status) => {
                match facilitator::check_supported(&response.body, network) {
                    Ok(()) => FacilitatorHealth::Supported,
                    Err(problem) => FacilitatorHealth::Problem(problem),
                }
            }
            FetchEnd::Response(response, _) => FacilitatorHealth::Problem(format!(
                "facilitator unreachable: GET /supported answered HTTP {}",
                response.status
            )),
            FetchEnd::Failed(Failure::Timeout) => FacilitatorHealth::Problem(format!(
                "facilitator unreachable: GET /supported gave no answer within {} s",
                FACILITATOR_CHECK_TIMEOUT.as_secs()
            )),
            FetchEnd::Failed(_) => FacilitatorHealth::Problem(format!(
                "facilitator unreachable: GET /supported failed ({})",
                cause.as_deref().unwrap_or("DNS, connection or TLS")
            )),
        };
        server.set_facilitator_health(health);
    }
}
