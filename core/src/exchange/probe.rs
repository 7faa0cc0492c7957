//! The facilitator checks behind readiness (docs/operations.md, "Readiness"): for each
//! facilitator of `FACILITATOR_URL`, an exchange without a client that fetches
//! `GET {facilitator}/supported` and records on the [`Server`] whether it lists x402 v2
//! `exact` on the configured network. New payments go to the first facilitator whose check
//! passed ([`Server::chosen_facilitator`]); `/api/ready` is 503 while none has, and lists the
//! others' problems as warnings while one has.

use super::*;
use crate::server::FacilitatorHealth;

/// Largest `/supported` answer read, in bytes.
const MAX_SUPPORTED_REPLY: usize = 64 * 1024;

/// Whether a facilitator's HTTP status says it refuses the service's credentials (missing,
/// wrong or expired): 401 Unauthorized or 403 Forbidden (RFC 9110 §15.5.2, §15.5.4).
pub(super) fn refuses_credentials(status: u16) -> bool {
    status == 401 || status == 403
}

impl Exchange {
    /// The check of facilitator `index` (its place in `FACILITATOR_URL`): drive it like a
    /// connection without a client (it never emits `SendToClient`); when it is finished,
    /// [`Server::facilitator_health`] of `index` holds its outcome. `None` when payments are
    /// not configured (readiness already names that) or there is no facilitator `index`.
    pub fn facilitator_check(server: &Server, index: usize, now: Instant) -> Option<Exchange> {
        let PaymentConfig::Ready { facilitators, .. } = &server.config.payment else {
            return None;
        };
        let facilitator = facilitators.get(index)?;
        let (url, request) = server.facilitator_request(facilitator, Call::Supported, &[], now);
        let mut exchange = Exchange::new(server.clone(), IpAddr::from([127, 0, 0, 1]), now);
        let plan = FetchPlan {
            request,
            url,
            peer: Peer::Facilitator { patient: false },
            cap: MAX_SUPPORTED_REPLY,
            deadline: now + FACILITATOR_CHECK_TIMEOUT,
        };
        match exchange.open_fetch(server, plan, now) {
            Ok(fetch) => exchange.state = State::Probe(Box::new(fetch), index),
            Err(failure) => exchange.check_done(server, index, FetchEnd::Failed(failure)),
        }
        Some(exchange)
    }

    /// The check of facilitator `index` ended: record what it found and finish.
    pub(super) fn check_done(&mut self, server: &Server, index: usize, end: FetchEnd) {
        let mut cause = None;
        if let State::Probe(fetch, _) = &self.state {
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
            FetchEnd::Response(response, _) if refuses_credentials(response.status) => {
                FacilitatorHealth::Problem(format!(
                    "facilitator refuses our credentials ({}): check its API key or header file",
                    response.status
                ))
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
        server.set_facilitator_health(index, health);
    }
}
