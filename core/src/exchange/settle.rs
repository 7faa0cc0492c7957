//! The settlement (docs/payments.md): its own budget inside the authorization's window, one
//! retry after an unknown outcome, "once unknown, never 402", the chain as the judge when
//! `CHAIN_RPC_URL` is set, the kept result, 503 "settlement pending", and the audit line of
//! every attempt and verdict.

use super::*;
use crate::eth::{hex, parse_address, parse_uint256};
use crate::payment::chain::{ChainCheck, ChainQuery, ChainVerdict};
use crate::payment::offer_receipt::{self, ReceiptPayload};

/// Largest JSON-RPC answer read, in bytes (a receipt with its logs, a page of logs).
pub(super) const MAX_CHAIN_REPLY: usize = 1024 * 1024;
/// The 503's message when an authorization is used and nothing can say whether it paid us.
pub const UNRECONCILED_MESSAGE: &str =
    "payment outcome unknown: this authorization is already used and the service holds no record of it";

impl Exchange {
    /// Starts the settlement of `kept` with its own budget, which ends no later than the
    /// authorization's `validBefore` − [`SETTLE_MARGIN`] (docs/payments.md, "The window").
    pub(super) fn begin_settlement(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        kept: KeptResponse,
        unknown_before: bool,
        now: Instant,
    ) {
        if let Some(transaction) = job.paid.as_ref().and_then(|paid| paid.on_chain.clone()) {
            // Paid already, on chain (the judge found the transfer): no `/settle`.
            return self.deliver_paid_on_chain(server, job, kept, transaction, now);
        }
        let settle_by = job.paid.as_ref().map_or(now, |paid| paid.settle_by);
        job.phase = Phase::Settle;
        job.deadline = (now + SETTLE_BUDGET).min(settle_by);
        let mut settlement = Settlement {
            kept,
            attempts: 0,
            retry_at: None,
            unknown_before,
        };
        if job.deadline <= now {
            // Too late for a /settle to end inside the authorization (a retry near
            // validBefore): only the chain can tell what happened.
            settlement.attempts = 2;
            self.settlement_unknown(server, job, settlement, now);
            return;
        }
        // The first settlement of a job writes its stage first (docs/payments.md): an
        // instance that dies mid-`/settle` leaves a record with the result, which another
        // settles again once the lease runs out. A retry's claim wrote it already.
        let write_first = job.paid.as_ref().filter(|paid| !paid.resettle).map(|paid| {
            let until = server.unix_time(now).as_secs() + SETTLE_LEASE.as_secs();
            StoreOp::BeginSettle {
                key: paid.key.clone(),
                kept: settlement.kept.clone(),
                lease: Lease {
                    id: paid.lease,
                    until,
                },
            }
        });
        job.settlement = Some(settlement);
        match write_first {
            Some(op) => self.wait_for_store(server, job, op, now),
            None => {
                self.state = State::Job(job);
                self.retry_settle(server, now);
            }
        }
    }

    /// The store answered [`StoreOp::BeginSettle`] (or failed): settle; or, when the record is
    /// not this instance's any more or could not be written, end without a `/settle` — never
    /// a charge without a record (nothing is charged).
    pub(super) fn settle_begun(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        answer: Result<StoreReply, StoreFailure>,
        now: Instant,
    ) {
        match answer {
            Ok(StoreReply::SettleBegun(true)) => {
                self.state = State::Job(job);
                self.retry_settle(server, now);
            }
            Ok(StoreReply::SettleBegun(false)) => {
                // Its lease ran out and another instance took the reservation over: that one
                // runs the job and settles; this one must not.
                job.settlement = None;
                let message = "a request with this payment is still in progress; retry with the same PAYMENT-SIGNATURE";
                self.end_job_with_error(server, job, &Failure::PaymentInProgress, message, now);
            }
            other => {
                let failure = match other {
                    Err(failure) => failure,
                    Ok(_) => StoreFailure::Unavailable("a mismatched answer".into()),
                };
                job.settlement = None;
                self.audit_line(&job, "not_settled", Some(failure.to_string()), None, 0);
                self.spend(server, &job);
                let message =
                    format!("{failure}; the result was not settled, this request changed nothing");
                self.end_job_with_error(server, job, &Failure::StoreUnavailable, &message, now);
            }
        }
    }

    /// Sends one `/settle` for the job in [`Phase::Settle`].
    pub(super) fn retry_settle(&mut self, server: &Server, now: Instant) {
        let State::Job(job) = &mut self.state else {
            return;
        };
        let (Some(paid), Some(settlement)) = (&job.paid, &mut job.settlement) else {
            return;
        };
        settlement.attempts += 1;
        let settle_url = endpoint(&paid.facilitator, "settle");
        let Some(mut job) = self.take_job() else {
            return;
        };
        match self.start_fetch(server, &mut job, Purpose::Settle, settle_url, now) {
            Ok(()) => self.state = State::Job(job),
            Err(failure) => self.after_settle(server, job, FetchEnd::Failed(failure), now),
        }
    }

    pub(super) fn after_settle(
        &mut self,
        server: &Server,
        job: Box<Job>,
        end: FetchEnd,
        now: Instant,
    ) {
        let mut job = job;
        let reply = match end {
            FetchEnd::Response(response, _) => {
                job.extension_responses = response
                    .header("extension-responses")
                    .filter(|value| {
                        value.len() <= 1024
                            && value.bytes().all(|b| b.is_ascii_graphic() || b == b' ')
                    })
                    .map(str::to_string);
                Some((response.status, facilitator::parse_settle(&response.body)))
            }
            FetchEnd::Failed(_) => None,
        };
        self.settlement_outcome(server, job, SettleOutcome::of(reply), now);
    }

    /// Acts on one `/settle` outcome (docs/payments.md): deliver and keep (settled); refuse
    /// (402) only for a refusal with no unknown outcome before it; otherwise the outcome is
    /// unknown — retry, read the chain, or answer 503 "settlement pending" with the result
    /// kept.
    pub(super) fn settlement_outcome(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        outcome: SettleOutcome,
        now: Instant,
    ) {
        let Some(mut settlement) = job.settlement.take() else {
            // Only a paid job settles (a bug otherwise): end it rather than hang.
            self.end_job_with_error(server, job, &Failure::Internal, "internal error", now);
            return;
        };
        let chain = server.config.chain_rpc.is_some();
        if !settlement.unknown_before {
            if let SettleOutcome::Refused(answer) = &outcome {
                if reports_already_used(answer) {
                    // The first `/settle` hears "already used": the money may have moved
                    // before this call (docs/payments.md, "A used authorization with no
                    // record"). Never a refusal.
                    let answer = answer.clone();
                    return self.first_settle_used(server, job, settlement, answer, now);
                }
            }
        }
        // After an unknown outcome, "already used" means our own transfer went through — the
        // authorization can only pay `payTo` — unless the payer cancelled it meanwhile, which
        // only the chain can tell. Without CHAIN_RPC_URL it is taken as settled.
        let outcome = match outcome {
            SettleOutcome::Refused(answer)
                if settlement.unknown_before && !chain && reports_already_used(&answer) =>
            {
                SettleOutcome::Settled(confirmed_by_use(&answer, &settlement.kept))
            }
            other => other,
        };
        self.audit(&job, &outcome, settlement.attempts);
        match outcome {
            SettleOutcome::Settled(answer) => self.deliver(server, job, settlement, answer, now),
            SettleOutcome::Refused(answer) if !settlement.unknown_before => {
                // Refused before any broadcast, and nothing was broadcast before: no money
                // moved.
                self.record(server, &job, Stage::Spent);
                self.end_job_with_402(server, job, "settlement failed", Some(answer), now);
            }
            SettleOutcome::Refused(answer) if reports_already_used(&answer) => {
                // With the chain: read it now (a retry would hear the same).
                settlement.unknown_before = true;
                settlement.attempts = settlement.attempts.max(2);
                self.settlement_unknown(server, job, settlement, now);
            }
            SettleOutcome::Refused(answer) | SettleOutcome::Unknown(Some(answer)) => {
                // Once unknown, never 402: a refusal now does not undo a broadcast before.
                if !answer.transaction.is_empty() || settlement.kept.settlement.is_none() {
                    settlement.kept.settlement = Some(answer);
                }
                self.settlement_unknown(server, job, settlement, now);
            }
            SettleOutcome::Unknown(None) => self.settlement_unknown(server, job, settlement, now),
        }
    }

    /// The first `/settle` of a job heard "already used": with `CHAIN_RPC_URL` the chain
    /// judges; without it, 503 "payment outcome unknown" (audit `unreconciled`), the result
    /// kept as an unknown outcome for a retry.
    fn first_settle_used(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        mut settlement: Settlement,
        answer: SettleResponse,
        now: Instant,
    ) {
        settlement.unknown_before = true;
        if server.config.chain_rpc.is_some() {
            self.audit(
                &job,
                &SettleOutcome::Unknown(Some(answer)),
                settlement.attempts,
            );
            settlement.attempts = settlement.attempts.max(2);
            return self.settlement_unknown(server, job, settlement, now);
        }
        self.audit_line(
            &job,
            "unreconciled",
            answer.error_reason.clone(),
            None,
            settlement.attempts,
        );
        self.close_fetches(&mut job);
        self.record(server, &job, Stage::Unknown(settlement.kept));
        self.end_job_with_error(
            server,
            job,
            &Failure::FacilitatorUnavailable,
            UNRECONCILED_MESSAGE,
            now,
        );
    }

    /// Delivers the result of a job whose authorization the chain showed paid to us before
    /// the crawl: `PAYMENT-RESPONSE` names that transaction; nothing is settled.
    fn deliver_paid_on_chain(
        &mut self,
        server: &Server,
        job: Box<Job>,
        kept: KeptResponse,
        transaction: String,
        now: Instant,
    ) {
        let answer = SettleResponse {
            success: true,
            error_reason: None,
            error_message: None,
            payer: job.paid.as_ref().map(|paid| paid.payer.clone()),
            transaction,
            network: job
                .paid
                .as_ref()
                .map(|paid| paid.terms.requirements.network.clone())
                .unwrap_or_default(),
            extensions: None,
        };
        let settlement = Settlement {
            kept,
            attempts: 0,
            retry_at: None,
            unknown_before: false,
        };
        self.deliver(server, job, settlement, answer, now);
    }

    /// Delivers (and keeps) the paid 200 with `answer` as its `PAYMENT-RESPONSE`.
    fn deliver(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        mut settlement: Settlement,
        answer: SettleResponse,
        now: Instant,
    ) {
        self.close_fetches(&mut job);
        let Some(paid) = &job.paid else {
            return self.end_job_with_error(server, job, &Failure::Internal, "internal error", now);
        };
        let mut answer = answer;
        if let Some(signer) = server.offer_signer() {
            // The signed receipt (x402 offer-receipt), kept with the result: a retry gets the
            // same bytes (docs/payments.md, "Signed offers and receipts").
            let receipt = ReceiptPayload {
                network: if answer.network.is_empty() {
                    paid.terms.requirements.network.clone()
                } else {
                    answer.network.clone()
                },
                resource_url: paid.terms.resource.url.clone(),
                payer: answer.payer.clone().unwrap_or_else(|| paid.payer.clone()),
                issued_at: server.unix_time(now).as_secs(),
                transaction: answer.transaction.clone(),
            };
            let mut extensions = answer
                .extensions
                .take()
                .filter(serde_json::Value::is_object)
                .unwrap_or_else(|| serde_json::json!({}));
            extensions[offer_receipt::EXTENSION_KEY] =
                serde_json::json!({"info": {"receipt": signer.receipt(&receipt)}});
            answer.extensions = Some(extensions);
        }
        settlement.kept.settlement = Some(answer);
        // Recorded before the 200 is sent, so a retry through any instance finds it settled
        // (at most STORE_TIMEOUT: the 200 goes out whatever the store answers).
        let op = StoreOp::Finish {
            key: paid.key.clone(),
            lease: paid.lease,
            stage: Stage::Settled(settlement.kept.clone()),
        };
        job.phase = Phase::Record;
        job.settlement = Some(settlement);
        self.wait_for_store(server, job, op, now);
    }

    /// The settled outcome is recorded (or the store did not answer in time: the money moved,
    /// so the 200 goes out all the same): send it.
    pub(super) fn delivered(&mut self, server: &Server, mut job: Box<Job>, now: Instant) {
        let Some(settlement) = job.settlement.take() else {
            return self.end_job_with_error(server, job, &Failure::Internal, "internal error", now);
        };
        let transaction = settlement
            .kept
            .settlement
            .as_ref()
            .map(|answer| answer.transaction.clone());
        let response = paid_response(&settlement.kept);
        job.request.id.clone_from(&settlement.kept.request_id);
        self.finish_job(server, job, response, None, transaction, now);
    }

    /// An unknown settlement outcome: one more `/settle` after 2 s if it can end inside the
    /// budget; else, with `CHAIN_RPC_URL`, a reading of the chain; else 503 "settlement
    /// pending" with the result kept for a retry.
    pub(super) fn settlement_unknown(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        mut settlement: Settlement,
        now: Instant,
    ) {
        settlement.unknown_before = true;
        let retry_at = now + SETTLE_RETRY_DELAY;
        if settlement.attempts < 2 && retry_at < job.deadline {
            settlement.retry_at = Some(retry_at);
            job.settlement = Some(settlement);
            self.state = State::Job(job);
            return;
        }
        if server.config.chain_rpc.is_some() && job.chain.is_none() {
            if let Some(query) = chain_query(&job) {
                self.close_fetches(&mut job);
                job.chain = Some(ChainCheck::new(query));
                job.deadline = now + CHAIN_READ_BUDGET;
                job.settlement = Some(settlement);
                self.read_chain(server, job, now);
                return;
            }
        }
        self.settlement_pending(server, job, settlement, now);
    }

    /// Answers 503 "settlement pending" and keeps the result (`Unknown`).
    fn settlement_pending(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        settlement: Settlement,
        now: Instant,
    ) {
        self.close_fetches(&mut job);
        self.record(server, &job, Stage::Unknown(settlement.kept.clone()));
        let error = ApiError::new(
            ErrorCode::InternalError,
            SETTLEMENT_PENDING_MESSAGE,
            job.request.id.clone(),
        );
        let mut response = json_response(503, &error)
            .with_header("Retry-After", SETTLEMENT_PENDING_RETRY_AFTER.to_string());
        if let Some(answer) = &settlement.kept.settlement {
            response = response.with_header("PAYMENT-RESPONSE", codec::encode(answer));
        }
        let transaction = settlement
            .kept
            .settlement
            .as_ref()
            .map(|answer| answer.transaction.clone())
            .filter(|tx| !tx.is_empty());
        self.finish_job(
            server,
            job,
            response,
            Some(ErrorCode::InternalError),
            transaction,
            now,
        );
    }

    /// Sends the chain reading's current JSON-RPC call.
    pub(super) fn read_chain(&mut self, server: &Server, mut job: Box<Job>, now: Instant) {
        let Some(url) = server.config.chain_rpc.clone() else {
            return self.after_chain(server, job, FetchEnd::Failed(Failure::Internal), now);
        };
        match self.start_fetch(server, &mut job, Purpose::Chain, url, now) {
            Ok(()) => self.state = State::Job(job),
            Err(failure) => self.after_chain(server, job, FetchEnd::Failed(failure), now),
        }
    }

    /// One JSON-RPC answer (or none) of the chain reading.
    pub(super) fn after_chain(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        end: FetchEnd,
        now: Instant,
    ) {
        let body = match &end {
            FetchEnd::Response(response, _) => Some(response.body.as_slice()),
            FetchEnd::Failed(_) => None,
        };
        let unix_now = server.unix_time(now).as_secs();
        let verdict = match job.chain.as_mut() {
            Some(check) => check.on_reply(body, unix_now),
            None => Some(ChainVerdict::Undetermined("no chain reading".into())),
        };
        match verdict {
            None => self.read_chain(server, job, now),
            Some(verdict) if job.phase == Phase::Judge => self.judged(server, job, verdict, now),
            Some(verdict) => self.chain_verdict(server, job, verdict, now),
        }
    }

    /// Acts on what the chain says (docs/payments.md, "The chain is the judge").
    pub(super) fn chain_verdict(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        verdict: ChainVerdict,
        now: Instant,
    ) {
        let Some(settlement) = job.settlement.take() else {
            self.end_job_with_error(server, job, &Failure::Internal, "internal error", now);
            return;
        };
        self.audit_chain(&job, &verdict, settlement.attempts);
        match verdict {
            ChainVerdict::Settled { transaction } => {
                let network = job
                    .paid
                    .as_ref()
                    .map(|paid| paid.terms.requirements.network.clone())
                    .unwrap_or_default();
                let answer = SettleResponse {
                    success: true,
                    error_reason: None,
                    error_message: None,
                    payer: job.paid.as_ref().map(|paid| paid.payer.clone()),
                    transaction,
                    network,
                    extensions: None,
                };
                self.deliver(server, job, settlement, answer, now);
            }
            ChainVerdict::Cancelled => {
                self.record(server, &job, Stage::Spent);
                self.end_job_with_402(server, job, "authorization cancelled", None, now);
            }
            ChainVerdict::ExpiredUnused => {
                self.record(server, &job, Stage::Spent);
                self.end_job_with_402(server, job, "settlement failed", None, now);
            }
            ChainVerdict::Unused(_) | ChainVerdict::Undetermined(_) => {
                self.settlement_pending(server, job, settlement, now);
            }
        }
    }

    /// The audit line of one `/settle` attempt.
    pub(super) fn audit(&mut self, job: &Job, outcome: &SettleOutcome, attempt: u8) {
        let answer = match outcome {
            SettleOutcome::Settled(answer) | SettleOutcome::Refused(answer) => Some(answer),
            SettleOutcome::Unknown(answer) => answer.as_ref(),
        };
        // No reply at all: the reason is the call's IO cause ("tcp: …", "http: no response in
        // time", …).
        let reason = match outcome {
            SettleOutcome::Unknown(None) => job.cause.clone(),
            _ => answer.and_then(|a| a.error_reason.clone()),
        };
        self.audit_line(
            job,
            outcome.word(),
            reason,
            answer
                .map(|a| a.transaction.clone())
                .filter(|tx| !tx.is_empty()),
            attempt,
        );
    }

    /// The audit line of a chain reading's verdict.
    fn audit_chain(&mut self, job: &Job, verdict: &ChainVerdict, attempt: u8) {
        let (reason, transaction) = match verdict {
            ChainVerdict::Settled { transaction } => (None, Some(transaction.clone())),
            ChainVerdict::Unused(why) | ChainVerdict::Undetermined(why) => {
                (Some(why.clone()), None)
            }
            ChainVerdict::Cancelled | ChainVerdict::ExpiredUnused => (None, None),
        };
        self.audit_line(job, verdict.word(), reason, transaction, attempt);
    }

    /// One audit line (`Output::Settlement`) for this job's payment.
    pub(super) fn audit_line(
        &mut self,
        job: &Job,
        outcome: &'static str,
        reason: Option<String>,
        transaction: Option<String>,
        attempt: u8,
    ) {
        let Some(paid) = &job.paid else { return };
        self.outputs.push_back(Output::Settlement(SettlementEvent {
            request_id: job.request.id.clone(),
            payer: paid.payer.clone(),
            nonce: format!("0x{}", hex(&paid.key.nonce)),
            outcome,
            reason,
            transaction,
            attempt,
            client_gone: self.client_gone,
            extension_responses: job.extension_responses.clone(),
        }));
    }
}

/// When every `/settle` for an authorization valid before unix second `valid_before` must have
/// ended: `validBefore` − [`SETTLE_MARGIN`] on the server's clock (`now` if already past).
pub(super) fn settle_by(server: &Server, now: Instant, valid_before: u64) -> Instant {
    server
        .instant_of_unix(now, valid_before)
        .checked_sub(SETTLE_MARGIN)
        .unwrap_or(now)
}

/// What to ask the chain about this job's authorization.
pub(super) fn chain_query(job: &Job) -> Option<ChainQuery> {
    let paid = job.paid.as_ref()?;
    let requirements = &paid.terms.requirements;
    Some(ChainQuery {
        token: parse_address(&requirements.asset)?,
        from: paid.key.from,
        nonce: paid.key.nonce,
        pay_to: parse_address(&requirements.pay_to)?,
        amount: parse_uint256(&requirements.amount)?,
        valid_before: paid.valid_before,
    })
}

/// The `PAYMENT-RESPONSE` of a settlement the facilitator confirmed by reporting the
/// authorization as used after an unknown outcome: success, with the transaction the
/// facilitator gave for it earlier (the pending answer) when there was one.
pub(super) fn confirmed_by_use(answer: &SettleResponse, kept: &KeptResponse) -> SettleResponse {
    let earlier = kept.settlement.as_ref();
    SettleResponse {
        success: true,
        error_reason: None,
        error_message: None,
        payer: answer
            .payer
            .clone()
            .or_else(|| earlier.and_then(|e| e.payer.clone())),
        transaction: earlier
            .map(|e| e.transaction.clone())
            .filter(|tx| !tx.is_empty())
            .unwrap_or_else(|| answer.transaction.clone()),
        network: if answer.network.is_empty() {
            earlier.map(|e| e.network.clone()).unwrap_or_default()
        } else {
            answer.network.clone()
        },
        extensions: answer.extensions.clone(),
    }
}

/// The payment store key of an authorization under our terms.
pub(super) fn authorization_key(
    terms: &PaymentTerms,
    from: [u8; 20],
    nonce: [u8; 32],
) -> AuthorizationKey {
    AuthorizationKey {
        network: terms.requirements.network.clone(),
        asset: terms.requirements.asset.to_ascii_lowercase(),
        from,
        nonce,
    }
}
