//! An authorization the facilitator reports as already used, of which the payment store held no
//! record (docs/payments.md, "A used authorization with no record"): the record was lost — a
//! restart of the in-process store, a Redis failover or eviction — after the payer's first
//! request paid. Such a report is never a 402 (x402 clients pay again on every 402):
//!
//! ```text
//! /verify "already used" ─▶ CHAIN_RPC_URL? ─no──▶ 503 "payment outcome unknown" (audit: unreconciled)
//!                                  │ yes
//!                                  ▼ Judge: the chain reading (payment::chain)
//!   used, Transfer(from, payTo, amount) ─▶ crawl, no /settle, 200 naming that transaction
//!                                          (audit: confirmed_on_chain_without_record)
//!   cancelled ─────────────────────────▶ 402 "authorization cancelled"
//!   anything else ─────────────────────▶ 503 "payment outcome unknown" (audit: unreconciled)
//! ```
//!
//! The reservation this request made is released on a 503, so a later retry is judged again.

use super::settle::{chain_query, UNRECONCILED_MESSAGE};
use super::*;
use crate::payment::chain::{ChainCheck, ChainVerdict};

impl Exchange {
    /// `/verify` reported the job's authorization used, and the store had no record of it:
    /// the chain judges (`CHAIN_RPC_URL`), or the answer is 503 "payment outcome unknown".
    pub(super) fn used_without_record(&mut self, server: &Server, mut job: Box<Job>, now: Instant) {
        if server.config.chain_rpc.is_some() {
            if let Some(query) = chain_query(&job) {
                self.close_fetches(&mut job);
                job.phase = Phase::Judge;
                job.chain = Some(ChainCheck::new(query));
                job.deadline = now + CHAIN_READ_BUDGET;
                self.read_chain(server, job, now);
                return;
            }
        }
        let reason = "the facilitator reports the authorization used; no record of it";
        self.unreconciled(server, job, reason.to_string(), now);
    }

    /// `/verify` refused for another reason than a used nonce. The store held no record of the
    /// authorization (this request's reservation was new): with `CHAIN_RPC_URL` the chain tells
    /// whether it was used before the refusal becomes a 402 — a facilitator may word a used one
    /// as anything (the payer's balance, spent on us, is "insufficient funds"). Without it, the
    /// refusal stands.
    pub(super) fn refused_without_record(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        reason: String,
        now: Instant,
    ) {
        let query = server
            .config
            .chain_rpc
            .as_ref()
            .and_then(|_| chain_query(&job));
        if let Some(paid) = job.paid.as_mut() {
            paid.verify_refusal = Some(reason.clone());
        }
        match query {
            Some(query) => {
                self.close_fetches(&mut job);
                job.phase = Phase::Judge;
                job.chain = Some(ChainCheck::new(query));
                job.deadline = now + CHAIN_READ_BUDGET;
                self.read_chain(server, job, now);
            }
            None => self.refusal_stands(server, job, &reason, now),
        }
    }

    /// A `/verify` refusal stands: no money moved, the authorization stays usable (its
    /// reservation is released), 402 with the facilitator's reason.
    fn refusal_stands(&mut self, server: &Server, job: Box<Job>, reason: &str, now: Instant) {
        self.release(server, &job);
        self.end_job_with_402(server, job, reason, None, now);
    }

    /// The chain's verdict on an authorization used without a record ([`Phase::Judge`]).
    pub(super) fn judged(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        verdict: ChainVerdict,
        now: Instant,
    ) {
        self.close_fetches(&mut job);
        job.chain = None;
        let refusal = job
            .paid
            .as_mut()
            .and_then(|paid| paid.verify_refusal.take());
        if let Some(reason) = refusal {
            // The facilitator refused, and not for a used nonce.
            match verdict {
                ChainVerdict::Unused(_) | ChainVerdict::ExpiredUnused => {
                    return self.refusal_stands(server, job, &reason, now);
                }
                ChainVerdict::Undetermined(why) => {
                    // Neither side certain: no 402 (it would make a client pay again), and
                    // nothing to reconcile yet.
                    self.audit_line(&job, "unknown", Some(why), None, 0);
                    self.release(server, &job);
                    let retry = [("Retry-After", SETTLEMENT_PENDING_RETRY_AFTER.to_string())];
                    let message = format!(
                        "the facilitator refused this payment ({reason}) and the chain could not be read to confirm it unused; retry shortly with the same PAYMENT-SIGNATURE"
                    );
                    let failure = Failure::FacilitatorUnavailable;
                    return self
                        .end_job_with_error_and(server, job, &failure, &message, now, &retry);
                }
                ChainVerdict::Settled { .. } | ChainVerdict::Cancelled => {}
            }
        }
        match verdict {
            ChainVerdict::Settled { transaction } => {
                self.audit_line(
                    &job,
                    "confirmed_on_chain_without_record",
                    None,
                    Some(transaction.clone()),
                    0,
                );
                let Some(paid) = job.paid.as_mut() else {
                    return self.end_job_with_error(
                        server,
                        job,
                        &Failure::Internal,
                        "internal error",
                        now,
                    );
                };
                paid.on_chain = Some(transaction);
                // The crawl's deadline as a fresh paid job's: no settlement follows, but the
                // result is kept under the same authorization window.
                let crawl_by = paid
                    .settle_by
                    .checked_sub(SETTLE_BUDGET + MIN_BUILD_TIME)
                    .unwrap_or(now);
                job.deadline = (job.request.started + JOB_TIMEOUT).min(crawl_by).max(now);
                self.verdict = Some(PaymentVerdict::Verified);
                match self.start_home(server, &mut job, now) {
                    Ok(()) => self.state = State::Job(job),
                    Err(failure) => self.page_done(server, job, 0, Err(failure), now),
                }
            }
            ChainVerdict::Cancelled => {
                // The payer cancelled it: no money moved to us, and none ever can.
                self.audit_line(&job, "cancelled", None, None, 0);
                self.record(server, &job, Stage::Spent);
                self.end_job_with_402(server, job, "authorization cancelled", None, now);
            }
            // "Expired unused" contradicts the facilitator's "used": a node behind the head
            // the facilitator read. Nothing certain.
            ChainVerdict::ExpiredUnused => {
                let reason = "the chain shows the authorization unused; the facilitator, used";
                self.unreconciled(server, job, reason.to_string(), now);
            }
            ChainVerdict::Unused(why) | ChainVerdict::Undetermined(why) => {
                self.unreconciled(server, job, why, now);
            }
        }
    }

    /// 503 "payment outcome unknown", no `PAYMENT-REQUIRED`; the audit line `unreconciled`
    /// (payer, nonce, request id) for the operator; the reservation released.
    fn unreconciled(&mut self, server: &Server, job: Box<Job>, reason: String, now: Instant) {
        self.audit_line(&job, "unreconciled", Some(reason), None, 0);
        self.release(server, &job);
        self.end_job_with_error(
            server,
            job,
            &Failure::FacilitatorUnavailable,
            UNRECONCILED_MESSAGE,
            now,
        );
    }
}
