//! The settlement (docs/payments.md): its own budget inside the authorization's window, one
//! retry after an unknown outcome, "once unknown, never 402", the chain as the judge when
//! `CHAIN_RPC_URL` is set, the kept result, 503 "settlement pending", and the audit line of
//! every attempt and verdict.

use super::*;
use crate::eth::{parse_address, parse_uint256};
use crate::payment::chain::{ChainCheck, ChainQuery, ChainVerdict};
use crate::payment::offer_receipt::{self, ReceiptPayload};

/// Largest JSON-RPC answer read, in bytes (a receipt with its logs, a page of logs).
pub(super) const MAX_CHAIN_REPLY: usize = 1024 * 1024;
/// The 503's message when an authorization is used and nothing can say whether it paid us.
pub const UNRECONCILED_MESSAGE: &str =
    "payment outcome unknown: this authorization is already used and the service holds no record of it";

/// The settlement of a paid job: the 200 is built before the first `/settle`.
#[derive(Debug)]
pub(super) struct Settlement {
    /// The 200 to deliver (and keep); `settlement` is the facilitator's latest useful answer.
    pub(super) kept: KeptResponse,
    /// `/settle` calls made by this job.
    pub(super) attempts: u8,
    /// A `/settle` for this authorization had an unknown outcome before (in this job or, for
    /// a retry, in the original one): no later answer is a 402 unless the chain says so.
    pub(super) unknown_before: bool,
    /// A `/settle` of this service for this authorization may have broadcast its transfer: one
    /// had an unknown outcome (a timeout, a 5xx, garbage, an answer naming a transaction) in
    /// this job or, for a retry's claim, in the original one. Only then is the facilitator's
    /// "already used" evidence that the transfer paid us (docs/payments.md, "Only evidence
    /// delivers"); a payer can cancel an authorization between our `/verify` and our `/settle`.
    pub(super) may_have_broadcast: bool,
    /// The facilitator's `EXTENSION-RESPONSES` on the latest `/settle` answer, for the audit
    /// line.
    pub(super) extension_responses: Option<String>,
}

/// A paid job settling its built result, within the settlement budget (`core.deadline`).
#[derive(Debug)]
pub(super) struct Settling {
    pub(super) core: JobCore,
    pub(super) paid: Paid,
    pub(super) settlement: Settlement,
    step: SettleStep,
}

/// Where a settlement stands.
#[derive(Debug)]
enum SettleStep {
    /// The settlement's stage is being written first ([`StoreOp::BeginSettle`]).
    Beginning(StoreWait),
    /// A `/settle` is being made ([`Purpose::Settle`]).
    Calling,
    /// After an unknown outcome: the second `/settle` is due at this instant.
    Pausing(Instant),
    /// The outcome is still unknown after the attempts: the chain is read
    /// ([`Purpose::Chain`]).
    ReadingChain(Box<ChainCheck>),
}

impl Settling {
    /// The settlement of `kept` for a job with its payment, with its own budget, which ends
    /// no later than the authorization's `validBefore` − [`SETTLE_MARGIN`] (docs/payments.md,
    /// "The window"). `unknown_before`: a `/settle` of this authorization may have broadcast
    /// before (a retry's claim of a record that says so).
    pub(super) fn new(
        (mut core, paid): (JobCore, Paid),
        kept: KeptResponse,
        unknown_before: bool,
        now: Instant,
    ) -> Settling {
        core.deadline = (now + SETTLE_BUDGET).min(paid.settle_by);
        Settling {
            core,
            paid,
            settlement: Settlement {
                kept,
                attempts: 0,
                unknown_before,
                may_have_broadcast: unknown_before,
                extension_responses: None,
            },
            step: SettleStep::Calling,
        }
    }

    /// Whether a `/settle` of ours may have broadcast the transfer: one had an unknown outcome,
    /// or one is in flight now and its request was sent (one still at DNS, the connect or the
    /// TLS handshake has sent nothing).
    pub(super) fn may_have_broadcast(&self) -> bool {
        self.settlement.may_have_broadcast
            || (matches!(self.step, SettleStep::Calling) && self.settle_sent())
    }

    /// Whether the job's `/settle` in flight has sent its request.
    fn settle_sent(&self) -> bool {
        self.core
            .fetches
            .iter()
            .any(|o| o.purpose == Purpose::Settle && o.fetch.request_sent())
    }

    /// Settled: the outcome is recorded before the 200 goes out.
    pub(super) fn into_recording(self) -> Recording {
        let Settling {
            core,
            paid,
            settlement,
            ..
        } = self;
        Recording {
            core,
            paid,
            settlement,
        }
    }

    /// The store operation the settlement waits for, if it waits for one.
    pub(super) fn store_wait(&self) -> Option<StoreWait> {
        match self.step {
            SettleStep::Beginning(wait) => Some(wait),
            _ => None,
        }
    }

    /// When the second `/settle` is due, if one waits.
    pub(super) fn retry_at(&self) -> Option<Instant> {
        match self.step {
            SettleStep::Pausing(at) => Some(at),
            _ => None,
        }
    }

    pub(super) fn retry_due(&self, now: Instant) -> bool {
        self.retry_at().is_some_and(|at| now >= at)
    }
}

impl Exchange {
    /// Starts the settlement of `kept` (see [`Settling::new`]); a job the chain showed paid
    /// already is delivered without one.
    pub(super) fn begin_settlement(
        &mut self,
        server: &Server,
        (core, paid): (JobCore, Paid),
        kept: KeptResponse,
        unknown_before: bool,
        now: Instant,
    ) {
        if let Some(transaction) = paid.on_chain.clone() {
            // Paid already, on chain (the judge found the transfer): no `/settle`.
            return self.deliver_paid_on_chain(server, (core, paid), kept, transaction, now);
        }
        let mut settling = Settling::new((core, paid), kept, unknown_before, now);
        if settling.core.deadline <= now {
            // Too late for a /settle to end inside the authorization (a retry near
            // validBefore): only the chain can tell what happened.
            settling.settlement.attempts = 2;
            return self.settlement_unknown(server, settling, now);
        }
        if settling.paid.resettle {
            // A retry's claim wrote the stage already.
            return self.send_settle(server, settling, now);
        }
        // The first settlement of a job writes its stage first (docs/payments.md): an
        // instance that dies mid-`/settle` leaves a record with the result, which another
        // settles again once the lease runs out.
        let until = server.unix_time(now).as_secs() + SETTLE_LEASE.as_secs();
        let op = StoreOp::BeginSettle {
            key: settling.paid.key.clone(),
            kept: settling.settlement.kept.clone(),
            lease: Lease {
                id: settling.paid.lease,
                until,
            },
        };
        match self.store_call(server, op) {
            Ok(reply) => self.settle_begun(server, settling, Ok(reply), now),
            Err(id) => {
                settling.step = SettleStep::Beginning(StoreWait::new(id, now));
                self.keep(Job::Settling(settling));
            }
        }
    }

    /// The store answered [`StoreOp::BeginSettle`] (or failed): settle; or, when the record is
    /// not this instance's any more or could not be written, end without a `/settle` — never
    /// a charge without a record (nothing is charged).
    pub(super) fn settle_begun(
        &mut self,
        server: &Server,
        settling: Settling,
        answer: Result<StoreReply, StoreFailure>,
        now: Instant,
    ) {
        match answer {
            Ok(StoreReply::SettleBegun(true)) => self.send_settle(server, settling, now),
            Ok(StoreReply::SettleBegun(false)) => {
                // Its lease ran out and another instance took the reservation over: that one
                // runs the job and settles; this one must not.
                let Settling { core, paid, .. } = settling;
                let message = "a request with this payment is still in progress; retry with the same PAYMENT-SIGNATURE";
                let failure = Failure::PaymentInProgress;
                self.end_job_with_error(server, (core, Some(&paid)), &failure, message, now);
            }
            other => {
                let failure = match other {
                    Err(failure) => failure,
                    Ok(_) => StoreFailure::Unavailable("a mismatched answer".into()),
                };
                // No `/settle` was sent: the reservation is released (the write may have
                // landed without its answer: a `Settling` record under this lease goes too).
                let Settling { core, paid, .. } = settling;
                let reason = Some(failure.to_string());
                self.audit_line((&core, &paid), "not_settled", reason, None, (0, None));
                self.release(server, &paid);
                let message =
                    format!("{failure}; the result was not settled, this request changed nothing");
                let job = (core, Some(&paid));
                self.end_job_with_error(server, job, &Failure::StoreUnavailable, &message, now);
            }
        }
    }

    /// The second `/settle` is due.
    pub(super) fn retry_settle(&mut self, server: &Server, now: Instant) {
        match self.take_job(now) {
            Some(Job::Settling(settling)) => self.send_settle(server, settling, now),
            Some(job) => self.keep(job),
            None => {}
        }
    }

    /// Sends one `/settle`.
    fn send_settle(&mut self, server: &Server, mut settling: Settling, now: Instant) {
        settling.step = SettleStep::Calling;
        settling.settlement.attempts += 1;
        let (core, paid) = (&mut settling.core, &settling.paid);
        match self.call_facilitator(server, core, paid, Purpose::Settle, now) {
            Ok(()) => self.keep(Job::Settling(settling)),
            Err(failure) => {
                let end = (FetchEnd::Failed(failure), false);
                self.after_settle(server, settling, end, now);
            }
        }
    }

    /// A `/settle` answered (or not); `sent`: whether its request had been sent
    /// ([`Fetch::request_sent`]).
    pub(super) fn after_settle(
        &mut self,
        server: &Server,
        mut settling: Settling,
        (end, sent): (FetchEnd, bool),
        now: Instant,
    ) {
        let reply = match end {
            FetchEnd::Response(response, _) => {
                settling.settlement.extension_responses = response
                    .header("extension-responses")
                    .filter(|value| {
                        value.len() <= 1024
                            && value.bytes().all(|b| b.is_ascii_graphic() || b == b' ')
                    })
                    .map(str::to_string);
                Some((response.status, facilitator::parse_settle(&response.body)))
            }
            FetchEnd::Failed(_) if !sent => return self.settle_not_sent(server, settling, now),
            FetchEnd::Failed(_) => None,
        };
        self.settlement_outcome(server, settling, SettleOutcome::of(reply), now);
    }

    /// A `/settle` that failed before its request was sent — DNS, the connect, the TLS
    /// handshake: the facilitator never saw it, so it cannot have broadcast (docs/payments.md,
    /// "Only evidence delivers"). Audit `not_sent`; one more attempt after 2 s if it fits the
    /// budget, else 503 "settlement pending" with the result kept as unknown and the record
    /// saying that nothing of ours may have broadcast: a retry's "already used" is then judged
    /// by the chain, not taken as our transfer. After an earlier attempt that may have
    /// broadcast, the outcome stays unknown as before.
    fn settle_not_sent(&mut self, server: &Server, mut settling: Settling, now: Instant) {
        if settling.settlement.may_have_broadcast {
            let outcome = SettleOutcome::Unknown(None);
            return self.settlement_outcome(server, settling, outcome, now);
        }
        let settlement = &settling.settlement;
        self.audit_line(
            (&settling.core, &settling.paid),
            "not_sent",
            settling.core.cause.clone(),
            None,
            (settlement.attempts, settlement.extension_responses.as_ref()),
        );
        let retry_at = now + SETTLE_RETRY_DELAY;
        if settling.settlement.attempts < 2 && retry_at < settling.core.deadline {
            settling.step = SettleStep::Pausing(retry_at);
            return self.keep(Job::Settling(settling));
        }
        self.settlement_pending(server, settling, now);
    }

    /// Acts on one `/settle` outcome (docs/payments.md): deliver and keep (settled); refuse
    /// (402) only for a refusal with no unknown outcome before it; otherwise the outcome is
    /// unknown — retry, read the chain, or answer 503 "settlement pending" with the result
    /// kept.
    fn settlement_outcome(
        &mut self,
        server: &Server,
        mut settling: Settling,
        outcome: SettleOutcome,
        now: Instant,
    ) {
        let chain = server.config.chain_rpc.is_some();
        if matches!(outcome, SettleOutcome::Unknown(_)) {
            settling.settlement.may_have_broadcast = true;
        }
        if !settling.settlement.may_have_broadcast {
            if let SettleOutcome::Refused(answer) = &outcome {
                if reports_already_used(answer) {
                    // "Already used" and nothing of ours was broadcast: someone else used the
                    // nonce — a transfer to us, or the payer's cancellation (docs/payments.md,
                    // "Only evidence delivers"). Never a refusal, never a result without the
                    // chain's evidence.
                    let answer = answer.clone();
                    return self.first_settle_used(server, settling, answer, now);
                }
            }
        }
        // After a `/settle` of ours that may have broadcast, "already used" means our own
        // transfer went through — the authorization can only pay `payTo` — unless the payer
        // cancelled it meanwhile, which only the chain can tell. Without a judge it is taken as
        // settled.
        let outcome = match outcome {
            SettleOutcome::Refused(answer)
                if settling.settlement.may_have_broadcast
                    && !chain
                    && reports_already_used(&answer) =>
            {
                SettleOutcome::Settled(confirmed_by_use(&answer, &settling.settlement.kept))
            }
            other => other,
        };
        self.audit(&settling, &outcome);
        match outcome {
            SettleOutcome::Settled(answer) => self.deliver(server, settling, answer, now),
            SettleOutcome::Refused(answer) if !settling.settlement.unknown_before => {
                // Refused before any broadcast, and nothing was broadcast before: no money
                // moved.
                let Settling { core, paid, .. } = settling;
                self.record(server, &paid, Stage::Spent);
                let reason = "settlement failed";
                self.end_job_with_402(server, (core, &paid), reason, Some(answer), now);
            }
            SettleOutcome::Refused(answer) if reports_already_used(&answer) => {
                // With the chain: read it now (a retry would hear the same).
                settling.settlement.unknown_before = true;
                settling.settlement.attempts = settling.settlement.attempts.max(2);
                self.settlement_unknown(server, settling, now);
            }
            SettleOutcome::Refused(answer) | SettleOutcome::Unknown(Some(answer)) => {
                // Once unknown, never 402: a refusal now does not undo a broadcast before.
                let kept = &mut settling.settlement.kept;
                if !answer.transaction.is_empty() || kept.settlement.is_none() {
                    kept.settlement = Some(answer);
                }
                self.settlement_unknown(server, settling, now);
            }
            SettleOutcome::Unknown(None) => self.settlement_unknown(server, settling, now),
        }
    }

    /// A `/settle` heard "already used" and no `/settle` of ours may have broadcast: with a
    /// judge the chain decides; without one, 503 "payment outcome unknown" (audit
    /// `unreconciled`) and the record is forgotten, so every retry is judged again the same way
    /// (its `/verify` hears "already used" too) — never a 200 on this "already used", never a
    /// 402 (docs/payments.md, "Only evidence delivers").
    fn first_settle_used(
        &mut self,
        server: &Server,
        mut settling: Settling,
        answer: SettleResponse,
        now: Instant,
    ) {
        settling.settlement.unknown_before = true;
        if server.config.chain_rpc.is_some() {
            self.audit(&settling, &SettleOutcome::Unknown(Some(answer)));
            settling.settlement.attempts = settling.settlement.attempts.max(2);
            return self.settlement_unknown(server, settling, now);
        }
        let Settling { core, paid, .. } = settling;
        let reason = answer
            .error_reason
            .unwrap_or_else(|| "the facilitator reports the authorization used".into());
        self.unreconciled(server, (core, paid), reason, now);
    }

    /// Delivers the result of a job whose authorization the chain showed paid to us before
    /// the crawl: `PAYMENT-RESPONSE` names that transaction; nothing is settled.
    fn deliver_paid_on_chain(
        &mut self,
        server: &Server,
        (core, paid): (JobCore, Paid),
        kept: KeptResponse,
        transaction: String,
        now: Instant,
    ) {
        let answer = SettleResponse {
            success: true,
            error_reason: None,
            error_message: None,
            payer: Some(paid.payer.clone()),
            transaction,
            network: paid.terms.requirements.network.clone(),
            extensions: None,
        };
        let settling = Settling::new((core, paid), kept, false, now);
        self.deliver(server, settling, answer, now);
    }

    /// Delivers (and keeps) the paid 200 with `answer` as its `PAYMENT-RESPONSE`.
    fn deliver(
        &mut self,
        server: &Server,
        mut settling: Settling,
        mut answer: SettleResponse,
        now: Instant,
    ) {
        self.close_fetches(&mut settling.core);
        let paid = &settling.paid;
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
        settling.settlement.kept.settlement = Some(answer);
        // Recorded before the 200 is sent, so a retry through any instance finds it settled
        // (at most STORE_TIMEOUT: the 200 goes out whatever the store answers).
        let op = StoreOp::Finish {
            key: paid.key.clone(),
            lease: paid.lease,
            stage: Stage::Settled(settling.settlement.kept.clone()),
        };
        let recording = settling.into_recording();
        match self.store_call(server, op) {
            Ok(_) => self.delivered(server, recording, now),
            Err(id) => self.keep(Job::Recording(recording, StoreWait::new(id, now))),
        }
    }

    /// An unknown settlement outcome: one more `/settle` after 2 s if it can end inside the
    /// budget; else, with `CHAIN_RPC_URL`, a reading of the chain; else 503 "settlement
    /// pending" with the result kept for a retry.
    fn settlement_unknown(&mut self, server: &Server, mut settling: Settling, now: Instant) {
        settling.settlement.unknown_before = true;
        let retry_at = now + SETTLE_RETRY_DELAY;
        if settling.settlement.attempts < 2 && retry_at < settling.core.deadline {
            settling.step = SettleStep::Pausing(retry_at);
            return self.keep(Job::Settling(settling));
        }
        if server.config.chain_rpc.is_some() {
            if let Some(mut query) = chain_query(server, &settling.paid) {
                // A transfer of ours came after the record was written: search from the
                // record's first-seen block. Without a broadcast of ours the use may be older
                // than the record (a record lost and written again): search by time.
                if settling.settlement.may_have_broadcast {
                    query.first_seen_block = settling.paid.first_seen_block;
                }
                self.close_fetches(&mut settling.core);
                settling.step = SettleStep::ReadingChain(Box::new(ChainCheck::new(query)));
                settling.core.deadline = now + CHAIN_READ_BUDGET;
                return self.settling_read_chain(server, settling, now);
            }
        }
        self.settlement_pending(server, settling, now);
    }

    /// Answers 503 "settlement pending" and keeps the result (`Unknown`).
    fn settlement_pending(&mut self, server: &Server, settling: Settling, now: Instant) {
        let Settling {
            mut core,
            paid,
            settlement,
            ..
        } = settling;
        self.close_fetches(&mut core);
        let mut kept = settlement.kept.clone();
        kept.may_have_broadcast = settlement.may_have_broadcast;
        self.record(server, &paid, Stage::Unknown(kept));
        let error = ApiError::new(
            ErrorCode::InternalError,
            SETTLEMENT_PENDING_MESSAGE,
            core.request.id.clone(),
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
        let payer = Some(paid.payer.clone());
        let code = Some(ErrorCode::InternalError);
        self.finish_job(server, core, payer, response, code, transaction, now);
    }

    /// Sends the chain reading's current JSON-RPC call.
    fn settling_read_chain(&mut self, server: &Server, mut settling: Settling, now: Instant) {
        let started = match &settling.step {
            SettleStep::ReadingChain(chain) => {
                self.call_chain(server, &mut settling.core, chain, now)
            }
            _ => Err(Failure::Internal),
        };
        match started {
            Ok(()) => self.keep(Job::Settling(settling)),
            Err(failure) => {
                self.settling_chain_reply(server, settling, FetchEnd::Failed(failure), now);
            }
        }
    }

    /// One JSON-RPC answer (or none) of the chain reading.
    pub(super) fn settling_chain_reply(
        &mut self,
        server: &Server,
        mut settling: Settling,
        end: FetchEnd,
        now: Instant,
    ) {
        let body = chain_reply_body(&end);
        let unix_now = server.unix_time(now).as_secs();
        let verdict = match &mut settling.step {
            SettleStep::ReadingChain(check) => check.on_reply(body, unix_now),
            _ => Some(ChainVerdict::Undetermined("no chain reading".into())),
        };
        match verdict {
            None => self.settling_read_chain(server, settling, now),
            Some(verdict) => self.chain_verdict(server, settling, verdict, now),
        }
    }

    /// The settlement budget (or the chain reading's) ran out: the outcome is unknown.
    pub(super) fn settling_deadline(
        &mut self,
        server: &Server,
        mut settling: Settling,
        now: Instant,
    ) {
        let calling = matches!(settling.step, SettleStep::Calling);
        let sent = settling.settle_sent();
        let core = &mut settling.core;
        core.note_timeout(|p| matches!(p, Purpose::Settle | Purpose::Chain));
        self.close_fetches(core);
        if matches!(settling.step, SettleStep::ReadingChain(_)) {
            let verdict = ChainVerdict::Undetermined("chain rpc: no answer in time".into());
            self.chain_verdict(server, settling, verdict, now);
        } else if calling && !sent {
            // The budget ended while the `/settle` was still connecting: never sent.
            self.settle_not_sent(server, settling, now);
        } else {
            self.settlement_outcome(server, settling, SettleOutcome::Unknown(None), now);
        }
    }

    /// Acts on what the chain says (docs/payments.md, "The chain is the judge").
    fn chain_verdict(
        &mut self,
        server: &Server,
        settling: Settling,
        verdict: ChainVerdict,
        now: Instant,
    ) {
        self.audit_chain(&settling, &verdict);
        match verdict {
            ChainVerdict::Settled { transaction } => {
                let answer = SettleResponse {
                    success: true,
                    error_reason: None,
                    error_message: None,
                    payer: Some(settling.paid.payer.clone()),
                    transaction,
                    network: settling.paid.terms.requirements.network.clone(),
                    extensions: None,
                };
                self.deliver(server, settling, answer, now);
            }
            ChainVerdict::Cancelled => {
                let Settling { core, paid, .. } = settling;
                self.record(server, &paid, Stage::Spent);
                let reason = "authorization cancelled";
                self.end_job_with_402(server, (core, &paid), reason, None, now);
            }
            ChainVerdict::ExpiredUnused if settling.settlement.may_have_broadcast => {
                let Settling { core, paid, .. } = settling;
                self.record(server, &paid, Stage::Spent);
                self.end_job_with_402(server, (core, &paid), "settlement failed", None, now);
            }
            ChainVerdict::Unused(_) | ChainVerdict::Undetermined(_)
                if settling.settlement.may_have_broadcast =>
            {
                self.settlement_pending(server, settling, now);
            }
            ChainVerdict::ExpiredUnused => {
                // The facilitator said "already used", the chain says unused: a node behind.
                let why = "the chain shows the authorization unused; the facilitator, used";
                let Settling { core, paid, .. } = settling;
                self.unreconciled(server, (core, paid), why.to_string(), now);
            }
            ChainVerdict::Unused(why) | ChainVerdict::Undetermined(why) => {
                // "Already used", nothing of ours broadcast, and the chain cannot show a
                // transfer to us: no result (it could be free), no 402.
                let Settling { core, paid, .. } = settling;
                self.unreconciled(server, (core, paid), why, now);
            }
        }
    }

    /// The audit line of one `/settle` attempt.
    fn audit(&mut self, settling: &Settling, outcome: &SettleOutcome) {
        let answer = match outcome {
            SettleOutcome::Settled(answer) | SettleOutcome::Refused(answer) => Some(answer),
            SettleOutcome::Unknown(answer) => answer.as_ref(),
        };
        // No reply at all: the reason is the call's IO cause ("tcp: …", "http: no response in
        // time", …).
        let reason = match outcome {
            SettleOutcome::Unknown(None) => settling.core.cause.clone(),
            _ => answer.and_then(|a| a.error_reason.clone()),
        };
        let transaction = answer
            .map(|a| a.transaction.clone())
            .filter(|tx| !tx.is_empty());
        let settlement = &settling.settlement;
        self.audit_line(
            (&settling.core, &settling.paid),
            outcome.word(),
            reason,
            transaction,
            (settlement.attempts, settlement.extension_responses.as_ref()),
        );
    }

    /// The audit line of a chain reading's verdict.
    fn audit_chain(&mut self, settling: &Settling, verdict: &ChainVerdict) {
        let (reason, transaction) = match verdict {
            ChainVerdict::Settled { transaction } => (None, Some(transaction.clone())),
            ChainVerdict::Unused(why) | ChainVerdict::Undetermined(why) => {
                (Some(why.clone()), None)
            }
            ChainVerdict::Cancelled | ChainVerdict::ExpiredUnused => (None, None),
        };
        let settlement = &settling.settlement;
        self.audit_line(
            (&settling.core, &settling.paid),
            verdict.word(),
            reason,
            transaction,
            (settlement.attempts, settlement.extension_responses.as_ref()),
        );
        self.audit_line_from_chain();
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

/// The body of a JSON-RPC answer the chain reading may read: an HTTP 200's. Any other status —
/// a provider's rate limit (429), a 5xx — is no answer, whatever its body says: the verdict is
/// undetermined, never "unused" (docs/payments.md, "The judge is no amplifier").
pub(super) fn chain_reply_body(end: &FetchEnd) -> Option<&[u8]> {
    match end {
        FetchEnd::Response(response, _) if response.status == 200 => Some(response.body.as_slice()),
        _ => None,
    }
}

/// What to ask the chain about this job's authorization, with `CHAIN_LOG_RANGE` blocks per log
/// page.
pub(super) fn chain_query(server: &Server, paid: &Paid) -> Option<ChainQuery> {
    let requirements = &paid.terms.requirements;
    let valid_after = paid
        .payment
        .payload
        .get("authorization")
        .and_then(|a| a.get("validAfter"))
        .and_then(serde_json::Value::as_str)
        .and_then(parse_uint256)
        .map_or(0, |v| crate::eth::saturating_u64(&v));
    Some(ChainQuery {
        token: parse_address(&requirements.asset)?,
        from: paid.key.from,
        nonce: paid.key.nonce,
        pay_to: parse_address(&requirements.pay_to)?,
        amount: parse_uint256(&requirements.amount)?,
        valid_before: paid.valid_before,
        valid_after,
        window_seconds: requirements
            .max_timeout_seconds
            .saturating_add(crate::budget::VALIDITY_SLACK_SECONDS),
        log_range: server.config.chain_log_range,
        fresh_after: None,
        first_seen_block: None,
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
