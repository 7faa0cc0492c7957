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

use super::settling::{chain_query, chain_reply_body, UNRECONCILED_MESSAGE};
use super::*;
use crate::payment::chain::{ChainCheck, ChainQuery, ChainVerdict};
use crate::payment::judge_gate::Gate;

/// A paid job whose authorization the chain is judging (`CHAIN_RPC_URL`) before anything is
/// crawled; it holds the homepage's page memory.
#[derive(Debug)]
pub(super) struct Judging {
    pub(super) core: JobCore,
    pub(super) paid: Paid,
    pub(super) home_memory: PageMemorySlot,
    /// The chain reading ([`Purpose::Chain`] calls).
    pub(super) chain: ChainCheck,
    /// The facilitator's reason when it refused for another reason than a used nonce (it
    /// stands if the chain shows the authorization unused); `None` when it reported the
    /// authorization used.
    pub(super) refusal: Option<String>,
    /// When the reading's next call is due, while it waits for a head stamped after the
    /// refusal ([`crate::payment::chain::HEAD_WAIT_SECONDS`]).
    pub(super) resume_at: Option<Instant>,
}

impl Verifying {
    /// `/verify` reported the authorization used, or refused it (`refusal`), and the store had
    /// no record of it: the chain judges, within [`CHAIN_READ_BUDGET`].
    pub(super) fn into_judging(
        self,
        query: ChainQuery,
        refusal: Option<String>,
        now: Instant,
    ) -> Judging {
        let Verifying {
            mut core,
            paid,
            home_memory,
        } = self;
        core.deadline = now + CHAIN_READ_BUDGET;
        Judging {
            core,
            paid,
            home_memory,
            chain: ChainCheck::new(query),
            refusal,
            resume_at: None,
        }
    }
}

impl Judging {
    /// The chain shows the authorization paid us in `transaction`: the job crawls, and
    /// delivers without a `/settle`. The crawl's deadline is the job's own (30 s from the
    /// request): no settlement follows, so the authorization's window — maybe past already, for
    /// a late retry — does not bound it.
    pub(super) fn into_crawling(self, transaction: String, now: Instant) -> Crawling {
        let Judging {
            mut core,
            mut paid,
            home_memory,
            ..
        } = self;
        paid.on_chain = Some(transaction);
        core.deadline = (core.request.started + JOB_TIMEOUT).max(now);
        Crawling {
            core,
            paid,
            crawl: Crawl::new(home_memory),
        }
    }
}

impl Exchange {
    /// `/verify` reported the job's authorization used, and the store had no record of it:
    /// the chain judges (`CHAIN_RPC_URL`), or the answer is 503 "payment outcome unknown".
    pub(super) fn used_without_record(
        &mut self,
        server: &Server,
        verifying: Verifying,
        now: Instant,
    ) {
        if server.config.chain_rpc.is_some() {
            if let Some(query) = chain_query(server, &verifying.paid) {
                return self.judge_without_record(server, verifying, query, None, now);
            }
        }
        let reason = "the facilitator reports the authorization used; no record of it";
        let Verifying { core, paid, .. } = verifying;
        self.unreconciled(server, (core, paid), reason.to_string(), now);
    }

    /// `/verify` refused for another reason than a used nonce, or the local window check
    /// refused a genuine authorization as too late (`reason`; no `/verify` then). The store held
    /// no record of the authorization (this request's reservation was new): with the judge the
    /// chain tells whether it was used before the refusal becomes a 402 — a facilitator may
    /// word a used one as anything (the payer's balance, spent on us, is "insufficient
    /// funds"), and a retry whose record was lost may come too late for a job of its own
    /// (docs/payments.md, "An expired authorization without a record"). Without a judge, the
    /// refusal stands.
    pub(super) fn refused_without_record(
        &mut self,
        server: &Server,
        verifying: Verifying,
        reason: String,
        now: Instant,
    ) {
        let query = server
            .config
            .chain_rpc
            .as_ref()
            .and_then(|_| chain_query(server, &verifying.paid));
        match query {
            Some(query) => {
                self.judge_without_record(server, verifying, query, Some(reason), now);
            }
            None => {
                let Verifying { core, paid, .. } = verifying;
                self.refusal_stands(server, (core, paid), &reason, now);
            }
        }
    }

    /// A chain reading for a payment the store holds no record of, through the gate that keeps
    /// the judge from being an amplifier (docs/payments.md, "The judge is no amplifier"): a
    /// final verdict cached for this authorization answers at once; past the client's or the
    /// instance's limit the answer is 503 with `Retry-After` (the reservation released, never a
    /// 402); otherwise the chain is read.
    fn judge_without_record(
        &mut self,
        server: &Server,
        mut verifying: Verifying,
        mut query: ChainQuery,
        refusal: Option<String>,
        now: Instant,
    ) {
        let unix_now = server.unix_time(now);
        // A refusal arrived now: "unused" counts only at a head stamped after it
        // (docs/payments.md, "\"Unused\" needs a fresh head").
        query.fresh_after = refusal.is_some().then_some(unix_now.as_secs());
        let gate = server
            .shared()
            .judge_gate
            .ask(&verifying.paid.key, self.client, unix_now);
        self.close_fetches(&mut verifying.core);
        match gate {
            Gate::Read => {
                let judging = verifying.into_judging(query, refusal, now);
                self.judging_read_chain(server, judging, now);
            }
            Gate::Cached(verdict) => {
                let judging = verifying.into_judging(query, refusal, now);
                self.judged(server, judging, verdict, now);
            }
            Gate::Limited(wait) => {
                self.verdict = Some(PaymentVerdict::JudgeLimited);
                let Verifying { core, paid, .. } = verifying;
                self.release(server, &paid);
                let retry = [("Retry-After", wait.to_string())];
                let message = format!(
                    "too many chain readings for payments this service holds no record of; retry in {wait} s with the same PAYMENT-SIGNATURE, this request changed nothing"
                );
                let job = (core, Some(&paid));
                self.end_job_with_error_and(
                    server,
                    job,
                    &Failure::Overloaded,
                    &message,
                    now,
                    &retry,
                );
            }
        }
    }

    /// Sends the chain reading's current JSON-RPC call.
    fn judging_read_chain(&mut self, server: &Server, mut judging: Judging, now: Instant) {
        match self.call_chain(server, &mut judging.core, &judging.chain, now) {
            Ok(()) => self.keep(Job::Judging(judging)),
            Err(failure) => {
                self.judging_chain_reply(server, judging, FetchEnd::Failed(failure), now);
            }
        }
    }

    /// One JSON-RPC answer (or none) of the chain reading.
    pub(super) fn judging_chain_reply(
        &mut self,
        server: &Server,
        mut judging: Judging,
        end: FetchEnd,
        now: Instant,
    ) {
        let body = chain_reply_body(&end);
        let unix_now = server.unix_time(now).as_secs();
        match judging.chain.on_reply(body, unix_now) {
            None if judging.chain.take_pause() => {
                // The head is not newer than the refusal: read it again in a moment.
                self.close_fetches(&mut judging.core);
                let wait = Duration::from_secs(crate::payment::chain::HEAD_WAIT_SECONDS);
                judging.resume_at = Some(now + wait);
                self.keep(Job::Judging(judging));
            }
            None => self.judging_read_chain(server, judging, now),
            Some(verdict) => {
                let key = &judging.paid.key;
                server.shared().judge_gate.remember(key, &verdict, unix_now);
                self.judged(server, judging, verdict, now);
            }
        }
    }

    /// The wait for a fresher head is over: the reading goes on.
    pub(super) fn judging_resume(&mut self, server: &Server, now: Instant) {
        match self.take_job(now) {
            Some(Job::Judging(mut judging)) => {
                judging.resume_at = None;
                self.judging_read_chain(server, judging, now);
            }
            Some(job) => self.keep(job),
            None => {}
        }
    }

    /// The chain reading ran out of time: nothing is certain.
    pub(super) fn judging_deadline(&mut self, server: &Server, mut judging: Judging, now: Instant) {
        judging.core.note_timeout(|p| matches!(p, Purpose::Chain));
        let verdict = ChainVerdict::Undetermined("chain rpc: no answer in time".into());
        self.judged(server, judging, verdict, now);
    }

    /// A `/verify` refusal stands: no money moved, the authorization stays usable (its
    /// reservation is released), 402 with the facilitator's reason.
    fn refusal_stands(
        &mut self,
        server: &Server,
        (core, paid): (JobCore, Paid),
        reason: &str,
        now: Instant,
    ) {
        self.release(server, &paid);
        self.end_job_with_402(server, (core, &paid), reason, None, now);
    }

    /// The chain's verdict on an authorization used (or refused) without a record.
    fn judged(
        &mut self,
        server: &Server,
        mut judging: Judging,
        verdict: ChainVerdict,
        now: Instant,
    ) {
        self.close_fetches(&mut judging.core);
        if let Some(reason) = judging.refusal.take() {
            // The facilitator refused, and not for a used nonce.
            match verdict {
                ChainVerdict::Unused(_) | ChainVerdict::ExpiredUnused => {
                    let Judging { core, paid, .. } = judging;
                    return self.refusal_stands(server, (core, paid), &reason, now);
                }
                ChainVerdict::Undetermined(why) => {
                    // Neither side certain: no 402 (it would make a client pay again), and
                    // nothing to reconcile yet.
                    let Judging { core, paid, .. } = judging;
                    self.audit_line((&core, &paid), "unknown", Some(why), None, (0, None));
                    self.audit_line_from_chain();
                    self.release(server, &paid);
                    let retry = [("Retry-After", SETTLEMENT_PENDING_RETRY_AFTER.to_string())];
                    let message = format!(
                        "this payment was refused ({reason}) and the chain could not confirm it unused; retry shortly with the same PAYMENT-SIGNATURE"
                    );
                    let failure = Failure::FacilitatorUnavailable;
                    let job = (core, Some(&paid));
                    return self
                        .end_job_with_error_and(server, job, &failure, &message, now, &retry);
                }
                ChainVerdict::Settled { .. } | ChainVerdict::Cancelled => {}
            }
        }
        match verdict {
            ChainVerdict::Settled { transaction } => {
                let job = (&judging.core, &judging.paid);
                let confirmed = "confirmed_on_chain_without_record";
                self.audit_line(job, confirmed, None, Some(transaction.clone()), (0, None));
                self.verdict = Some(PaymentVerdict::Verified);
                self.begin_crawl(server, judging.into_crawling(transaction, now), now);
            }
            ChainVerdict::Cancelled => {
                // The payer cancelled it: no money moved to us, and none ever can.
                let Judging { core, paid, .. } = judging;
                self.audit_line((&core, &paid), "cancelled", None, None, (0, None));
                self.record(server, &paid, Stage::Spent);
                self.end_job_with_402(server, (core, &paid), "authorization cancelled", None, now);
            }
            // "Expired unused" contradicts the facilitator's "used": a node behind the head
            // the facilitator read. Nothing certain.
            ChainVerdict::ExpiredUnused => {
                let reason = "the chain shows the authorization unused; the facilitator, used";
                let Judging { core, paid, .. } = judging;
                self.unreconciled(server, (core, paid), reason.to_string(), now);
            }
            ChainVerdict::Unused(why) | ChainVerdict::Undetermined(why) => {
                let Judging { core, paid, .. } = judging;
                self.unreconciled(server, (core, paid), why, now);
            }
        }
    }

    /// 503 "payment outcome unknown", no `PAYMENT-REQUIRED`; the audit line `unreconciled`
    /// (payer, nonce, request id) for the operator; the reservation (or the settlement's
    /// record) released, so a retry is judged again.
    pub(super) fn unreconciled(
        &mut self,
        server: &Server,
        (core, paid): (JobCore, Paid),
        reason: String,
        now: Instant,
    ) {
        self.audit_line(
            (&core, &paid),
            "unreconciled",
            Some(reason),
            None,
            (0, None),
        );
        self.release(server, &paid);
        let failure = Failure::FacilitatorUnavailable;
        self.end_job_with_error(
            server,
            (core, Some(&paid)),
            &failure,
            UNRECONCILED_MESSAGE,
            now,
        );
    }
}
