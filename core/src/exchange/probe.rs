//! The facilitator checks behind readiness (docs/operations.md, "Readiness"): for each
//! facilitator of `FACILITATOR_URL`, an exchange without a client that fetches
//! `GET {facilitator}/supported` and records on the [`Server`] whether it lists x402 v2
//! `exact` on the configured network. New payments go to the first facilitator whose check
//! passed ([`Server::chosen_facilitator`]); `/api/ready` is 503 while none has, and lists the
//! others' problems as warnings while one has.
//!
//! And, with a chain judge, the periodic read of the payment network's head block
//! ([`Exchange::chain_head_check`]): a new payment record stores its number, from which a later
//! chain reading searches the logs (docs/payments.md, "The look-back covers every record").

use super::*;
use crate::payment::chain;
use crate::server::{FacilitatorHealth, KnownHead};

/// What a client-less check checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Probed {
    /// The facilitator at this place in `FACILITATOR_URL`.
    Facilitator(usize),
    /// The payment network's head (`CHAIN_RPC_URL`).
    ChainHead,
}

/// Largest `eth_getBlockByNumber` answer read, in bytes (a block header with its transaction
/// hashes).
const MAX_HEAD_REPLY: usize = 256 * 1024;

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
        exchange.start_probe(server, plan, Probed::Facilitator(index), now);
        Some(exchange)
    }

    /// The periodic read of the payment network's head block (`eth_getBlockByNumber
    /// "latest"` to `CHAIN_RPC_URL`, Ethereum JSON-RPC), run by the runtime with the facilitator
    /// checks (every [`crate::budget::FACILITATOR_CHECK_INTERVAL`]): drive it like a connection
    /// without a client; when it is finished, [`Server::chain_head`] holds what it read (a
    /// failed read changes nothing). It is the only chain read outside the rare payment paths,
    /// one per interval whatever the traffic: a paid request never waits for the chain. `None`
    /// without a judge (`CHAIN_RPC_URL=none`).
    pub fn chain_head_check(server: &Server, now: Instant) -> Option<Exchange> {
        let url = server.config.chain_rpc.clone()?;
        let body = chain::head_request_body();
        let mut exchange = Exchange::new(server.clone(), IpAddr::from([127, 0, 0, 1]), now);
        let plan = FetchPlan {
            request: http1::json_post(&url, &body, &server.user_agent, None),
            url,
            peer: Peer::Facilitator { patient: false },
            cap: MAX_HEAD_REPLY,
            deadline: now + FACILITATOR_CHECK_TIMEOUT,
        };
        exchange.start_probe(server, plan, Probed::ChainHead, now);
        Some(exchange)
    }

    fn start_probe(&mut self, server: &Server, plan: FetchPlan, probed: Probed, now: Instant) {
        match self.open_fetch(server, plan, now) {
            Ok(fetch) => self.state = State::Probe(Box::new(fetch), probed),
            Err(failure) => self.check_done(server, probed, FetchEnd::Failed(failure)),
        }
    }

    /// A check ended: record what it found and finish.
    pub(super) fn check_done(&mut self, server: &Server, probed: Probed, end: FetchEnd) {
        let mut cause = None;
        if let State::Probe(fetch, _) = &self.state {
            self.outputs
                .push_back(Output::CloseFetch { fetch: fetch.id() });
            cause = fetch.cause().map(str::to_string);
        }
        self.state = State::Closed;
        let index = match probed {
            Probed::Facilitator(index) => index,
            Probed::ChainHead => return head_read(server, &end, self.last_now),
        };
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

/// Records the head block a periodic read found (an answer of HTTP 200 naming its number,
/// timestamp and hash); anything else changes nothing.
fn head_read(server: &Server, end: &FetchEnd, now: Instant) {
    let Some(body) = settling::chain_reply_body(end) else {
        return;
    };
    if let Ok((number, timestamp)) = chain::read_head(body) {
        let read_at = server.unix_time(now).as_secs();
        server.set_chain_head(KnownHead {
            number,
            timestamp,
            read_at,
        });
    }
}
