//! What a job carries in every phase ([`JobCore`]), the payment of a paid job ([`Paid`]), and
//! [`Job`]: a paid job as one of its phases. Beside them, what several phases do alike: the
//! facilitator calls, the payment record's writes, the audit line, a job's last answer.

use super::*;
use crate::payment::chain::ChainCheck;

/// A paid job, in one of its phases. Each phase is a type that owns exactly what it needs and
/// is consumed by its transitions, which hand its data on to the next phase by value:
///
/// ```text
/// Checking ─▶ Reserving ─▶ Verifying ─▶ Crawling ─▶ Building ─▶ Settling ─▶ Recording
///                              └─▶ Judging ─┘                   ▲
///                                                               └─ a claimed kept result
/// ```
///
/// The payment ([`Paid`]) is there from `Reserving` on; the settlement ([`Settlement`]) only
/// in `Settling` and `Recording`. `Reserving` and `Recording` wait for a store answer
/// ([`StoreWait`]), and so does `Settling` while it writes its stage first.
#[derive(Debug)]
pub(super) enum Job {
    Checking(Checking),
    Reserving(Reserving, StoreWait),
    Verifying(Verifying),
    Judging(Judging),
    Crawling(Crawling),
    Building(Building),
    Settling(Settling),
    Recording(Recording, StoreWait),
}

impl Job {
    /// What the job carries whatever its phase.
    pub(super) fn core(&self) -> &JobCore {
        match self {
            Job::Checking(phase) => &phase.core,
            Job::Reserving(phase, _) => &phase.core,
            Job::Verifying(phase) => &phase.core,
            Job::Judging(phase) => &phase.core,
            Job::Crawling(phase) => &phase.core,
            Job::Building(phase) => &phase.core,
            Job::Settling(phase) => &phase.core,
            Job::Recording(phase, _) => &phase.core,
        }
    }

    pub(super) fn core_mut(&mut self) -> &mut JobCore {
        match self {
            Job::Checking(phase) => &mut phase.core,
            Job::Reserving(phase, _) => &mut phase.core,
            Job::Verifying(phase) => &mut phase.core,
            Job::Judging(phase) => &mut phase.core,
            Job::Crawling(phase) => &mut phase.core,
            Job::Building(phase) => &mut phase.core,
            Job::Settling(phase) => &mut phase.core,
            Job::Recording(phase, _) => &mut phase.core,
        }
    }

    /// The store operation the job waits for and when its answer is overdue, if it waits for
    /// one.
    pub(super) fn store_wait(&self) -> Option<StoreWait> {
        match self {
            Job::Reserving(_, wait) | Job::Recording(_, wait) => Some(*wait),
            Job::Settling(settling) => settling.store_wait(),
            _ => None,
        }
    }

    /// The phase's name in a `cut_short` audit line.
    pub(super) fn name(&self) -> &'static str {
        match self {
            Job::Checking(_) => "check",
            Job::Reserving(..) => "reserve",
            Job::Verifying(_) => "verify",
            Job::Judging(_) => "judge",
            Job::Crawling(_) => "crawl",
            Job::Building(_) => "build",
            Job::Settling(_) => "settle",
            Job::Recording(..) => "record",
        }
    }
}

/// A store operation a phase waits for ([`Exchange::store_call`]), and when it counts as
/// failed ([`STORE_TIMEOUT`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct StoreWait {
    pub(super) id: StoreId,
    pub(super) until: Instant,
}

impl StoreWait {
    pub(super) fn new(id: StoreId, now: Instant) -> StoreWait {
        StoreWait {
            id,
            until: now + STORE_TIMEOUT,
        }
    }
}

/// What a job (paid, or an operator's crawl) carries in every phase: the request, the URL it
/// is for, the phase's deadline, the fetches and work it waits for, and the access line's
/// counts. It holds the job's place in `MAX_CONCURRENT_JOBS` until dropped.
#[derive(Debug)]
pub(super) struct JobCore {
    pub(super) request: RequestInfo,
    pub(super) input_url: String,
    pub(super) target: PublicUrl,
    /// When the current phase must be over: the crawl's deadline, the result build's, the
    /// end of the settlement budget, or the chain reading's.
    pub(super) deadline: Instant,
    /// Outbound fetches not ended yet.
    pub(super) fetches: Vec<Outbound>,
    /// Work handed to the runtime and not answered yet.
    pub(super) work: Vec<(WorkId, WorkFor)>,
    /// Why the request failed, for an operator ("dns: …", "tls: …", "http 503", "http: no
    /// response in time", …): the homepage's fetch, or the latest facilitator or chain call
    /// that got no usable reply. The access line's `cause`; the audit reason of a `/settle`
    /// without a reply. `None` while nothing failed.
    pub(super) cause: Option<String>,
    pub(super) pages_fetched: u32,
    /// Pages left out (or, the homepage, failed) for running over the work budget.
    pub(super) pages_too_costly: u32,
    /// Counts this job in `MAX_CONCURRENT_JOBS` until the job is dropped.
    _slot: JobSlot,
}

impl JobCore {
    /// A job for `request` on `target` (the URL as asked, and as checked), due by `deadline`,
    /// with nothing fetched yet; it counts in `MAX_CONCURRENT_JOBS` until dropped.
    pub(super) fn new(
        server: &Server,
        request: RequestInfo,
        target: (String, PublicUrl),
        deadline: Instant,
    ) -> JobCore {
        let (input_url, target) = target;
        JobCore {
            request,
            input_url,
            target,
            deadline,
            fetches: Vec::new(),
            work: Vec::new(),
            cause: None,
            pages_fetched: 0,
            pages_too_costly: 0,
            _slot: server.jobs.acquire(),
        }
    }

    /// The deadline passed while a fetch for `purpose` was open: its cause names the step it
    /// was in (for the access and audit lines).
    pub(super) fn note_timeout(&mut self, purpose: impl Fn(&Purpose) -> bool) {
        if let Some(open) = self.fetches.iter_mut().find(|o| purpose(&o.purpose)) {
            open.fetch.note_timeout();
            self.cause = open.fetch.cause().map(str::to_string);
        }
    }
}

/// The payment of a paid job, from its reservation on.
#[derive(Debug)]
pub(super) struct Paid {
    pub(super) terms: PaymentTerms,
    pub(super) facilitator: Facilitator,
    pub(super) payment: PaymentPayload,
    /// The request's fingerprint (what a retry must match).
    pub(super) fingerprint: Fingerprint,
    pub(super) key: AuthorizationKey,
    pub(super) payer: String,
    /// The authorization's `validBefore`, unix seconds.
    pub(super) valid_before: u64,
    /// When every `/settle` must have ended: `validBefore` − [`SETTLE_MARGIN`].
    pub(super) settle_by: Instant,
    /// A retry that settles a kept result whose outcome was unknown (no crawl).
    pub(super) resettle: bool,
    /// The lease id the job holds the authorization's record under (its reservation's, or its
    /// claim's): every store write of the job carries it (docs/payments.md, fencing).
    pub(super) lease: u64,
    /// The transaction in which the chain shows this authorization paid us, read before the
    /// crawl because the facilitator reported it used and the store held no record of it
    /// ([`Judging`]): the result is delivered without a `/settle` (docs/payments.md, "A used
    /// authorization with no record"). `None` for a payment that settles.
    pub(super) on_chain: Option<String>,
    /// The head block number at which the authorization's record was first seen (the
    /// reservation's, or the claimed record's), if known: a chain reading about a `/settle` of
    /// ours searches the logs from there ([`settling::chain_query`]).
    pub(super) first_seen_block: Option<u64>,
}

/// What a piece of work is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WorkFor {
    /// The payment's local checks.
    Payment,
    /// Decoding and extracting page `n` (0 = the homepage).
    Page(usize),
    /// Building the result.
    Result,
}

/// What an outbound fetch is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Purpose {
    Verify,
    Settle,
    /// A JSON-RPC call of the chain reading (`CHAIN_RPC_URL`).
    Chain,
    Page(PageFetch),
}

/// One of the job's outbound fetches ([`super::outbound`]) and what it is for.
#[derive(Debug)]
pub(super) struct Outbound {
    pub(super) fetch: Fetch,
    pub(super) purpose: Purpose,
}

impl Exchange {
    /// Hands `work` to the runtime for `purpose`.
    pub(super) fn start_work(&mut self, core: &mut JobCore, purpose: WorkFor, work: Work) {
        self.next_work += 1;
        let id = WorkId(self.next_work);
        core.work.push((id, purpose));
        self.outputs.push_back(Output::Work { id, work });
    }

    /// Starts one outbound fetch under a new id: a name in the static `RESOLVE` table skips
    /// DNS, an address is checked against the policy for its peer.
    ///
    /// # Errors
    /// The failure when the fetch ends at once (a static answer on the block list).
    pub(super) fn open_fetch(
        &mut self,
        server: &Server,
        plan: FetchPlan,
        now: Instant,
    ) -> Result<Fetch, Failure> {
        let resolve = plan
            .url
            .host_str()
            .and_then(|host| server.config.resolve.get(&host.to_ascii_lowercase()))
            .copied();
        self.next_fetch += 1;
        let id = FetchId(self.next_fetch);
        let policy = &server.config.net_policy;
        Fetch::start(id, plan, resolve, policy, now, &mut self.outputs)
    }

    /// Starts the job's fetch for `purpose` as `plan`.
    ///
    /// # Errors
    /// The failure when the fetch ends at once (a static DNS answer on the block list): the
    /// caller handles it as the fetch's outcome.
    pub(super) fn start_fetch(
        &mut self,
        server: &Server,
        core: &mut JobCore,
        purpose: Purpose,
        plan: FetchPlan,
        now: Instant,
    ) -> Result<(), Failure> {
        let fetch = self.open_fetch(server, plan, now)?;
        core.fetches.push(Outbound { fetch, purpose });
        Ok(())
    }

    /// Calls the facilitator's `/verify` or `/settle` (`purpose`) with the job's payment.
    ///
    /// # Errors
    /// As [`Exchange::start_fetch`].
    pub(super) fn call_facilitator(
        &mut self,
        server: &Server,
        core: &mut JobCore,
        paid: &Paid,
        purpose: Purpose,
        now: Instant,
    ) -> Result<(), Failure> {
        let body = facilitator::request_body(&paid.payment, &paid.terms.requirements);
        // The settlement may use its whole budget: the reference facilitator answers only
        // once the transfer is confirmed or its own wait is over.
        let patient = purpose == Purpose::Settle;
        let (call, deadline) = if patient {
            (Call::Settle, core.deadline)
        } else {
            (Call::Verify, now + PAGE_TIMEOUT)
        };
        // Every facilitator request is built with its credentials in one place.
        let (url, request) = server.facilitator_request(&paid.facilitator, call, &body, now);
        let plan = FetchPlan {
            request,
            url,
            peer: Peer::Facilitator { patient },
            cap: MAX_FACILITATOR_REPLY,
            deadline,
        };
        self.start_fetch(server, core, purpose, plan, now)
    }

    /// Sends the chain reading's current JSON-RPC call to `CHAIN_RPC_URL`.
    ///
    /// # Errors
    /// As [`Exchange::start_fetch`]; [`Failure::Internal`] without `CHAIN_RPC_URL`.
    pub(super) fn call_chain(
        &mut self,
        server: &Server,
        core: &mut JobCore,
        chain: &ChainCheck,
        now: Instant,
    ) -> Result<(), Failure> {
        let url = server.config.chain_rpc.clone().ok_or(Failure::Internal)?;
        let body = chain.request_body();
        let plan = FetchPlan {
            request: http1::json_post(&url, &body, &server.user_agent, None),
            url,
            peer: Peer::Facilitator { patient: true },
            cap: settling::MAX_CHAIN_REPLY,
            deadline: core.deadline,
        };
        self.start_fetch(server, core, Purpose::Chain, plan, now)
    }

    /// Writes a job's outcome to its payment record, without waiting. The store keeps only
    /// what its rules allow ([`crate::payment::store::PaymentStore::finish`]).
    pub(super) fn record(&mut self, server: &Server, paid: &Paid, stage: Stage) {
        let op = StoreOp::Finish {
            key: paid.key.clone(),
            lease: paid.lease,
            stage,
        };
        self.store_write(server, op);
    }

    /// Lets the job's reservation go (its lease's), without waiting: the authorization is
    /// judged again on a retry (a lost release leaves a lease that runs out).
    pub(super) fn release(&mut self, server: &Server, paid: &Paid) {
        let (key, lease) = (paid.key.clone(), paid.lease);
        self.store_write(server, StoreOp::Release { key, lease });
    }

    /// A failure after `/verify` said valid: the authorization is consumed, without a result.
    pub(super) fn spend(&mut self, server: &Server, paid: &Paid) {
        if paid.on_chain.is_some() {
            // Paid before, on chain, for one result this job failed to give: the retry is
            // judged again and runs again, never answered "already used".
            self.release(server, paid);
        } else {
            self.record(server, paid, Stage::Spent);
        }
    }

    /// One audit line (`Output::Settlement`) for this job's payment; `extension_responses`
    /// is the facilitator's `EXTENSION-RESPONSES` on the latest `/settle` answer.
    pub(super) fn audit_line(
        &mut self,
        (core, paid): (&JobCore, &Paid),
        outcome: &'static str,
        reason: Option<String>,
        transaction: Option<String>,
        (attempt, extension_responses): (u8, Option<&String>),
    ) {
        self.outputs.push_back(Output::Settlement(SettlementEvent {
            request_id: core.request.id.clone(),
            payer: paid.payer.clone(),
            nonce: format!("0x{}", crate::eth::hex(&paid.key.nonce)),
            outcome,
            amount: paid.terms.requirements.amount.clone(),
            network: paid.terms.requirements.network.clone(),
            asset: paid.terms.requirements.asset.clone(),
            pay_to: paid.terms.requirements.pay_to.clone(),
            from_chain: false,
            reason,
            transaction,
            attempt,
            facilitator: crate::config::endpoint_label(&paid.facilitator.url),
            client_gone: self.client_gone,
            extension_responses: extension_responses.cloned(),
        }));
    }

    /// Marks the audit line just written ([`Self::audit_line`]) as a reading of the chain.
    pub(super) fn audit_line_from_chain(&mut self) {
        if let Some(Output::Settlement(event)) = self.outputs.back_mut() {
            event.from_chain = true;
        }
    }

    /// The process exits with this job unfinished ([`Exchange::cut_short`]): its audit line,
    /// and what its record must keep — a built result whose `/settle` may have broadcast as an
    /// unknown settlement (a settled one as settled); a job still reserving, verifying or
    /// judging (no answer yet, nothing refused), or settling with nothing of ours broadcast,
    /// releases its reservation (docs/payments.md, "No answer is not a refusal"); a job
    /// crawling or building after a valid `/verify` spends the authorization.
    pub(super) fn cut_job_short(&mut self, mut job: Job) {
        let server = self.server.clone();
        let reason = Some(format!("process exiting during {}", job.name()));
        match &job {
            Job::Checking(_) => {}
            Job::Reserving(Reserving { core, paid, .. }, _)
            | Job::Verifying(Verifying { core, paid, .. })
            | Job::Judging(Judging { core, paid, .. }) => {
                self.audit_line((core, paid), "cut_short", reason, None, (0, None));
                self.release(&server, paid);
            }
            Job::Crawling(Crawling { core, paid, .. }) | Job::Building(Building { core, paid }) => {
                self.audit_line((core, paid), "cut_short", reason, None, (0, None));
                self.spend(&server, paid);
            }
            Job::Settling(settling) => {
                let (core, paid, settlement) =
                    (&settling.core, &settling.paid, &settling.settlement);
                let attempt = (settlement.attempts, settlement.extension_responses.as_ref());
                self.audit_line((core, paid), "cut_short", reason, None, attempt);
                if settling.may_have_broadcast() {
                    let mut kept = settlement.kept.clone();
                    kept.may_have_broadcast = true;
                    self.record(&server, paid, Stage::Unknown(kept));
                } else {
                    self.release(&server, paid);
                }
            }
            Job::Recording(
                Recording {
                    core,
                    paid,
                    settlement,
                },
                _,
            ) => {
                // Settled, its record not yet confirmed: write it again.
                let attempt = (settlement.attempts, settlement.extension_responses.as_ref());
                self.audit_line((core, paid), "cut_short", reason, None, attempt);
                self.record(&server, paid, Stage::Settled(settlement.kept.clone()));
            }
        }
        self.close_fetches(job.core_mut());
    }

    /// Ends a paid job (or one still checking its payment: `paid` is `None`) with `failure`.
    pub(super) fn end_job_with_error(
        &mut self,
        server: &Server,
        (core, paid): (JobCore, Option<&Paid>),
        failure: &Failure,
        message: &str,
        now: Instant,
    ) {
        self.end_job_with_error_and(server, (core, paid), failure, message, now, &[]);
    }

    /// As [`Exchange::end_job_with_error`], with `extra` header fields (e.g. `Retry-After`).
    pub(super) fn end_job_with_error_and(
        &mut self,
        server: &Server,
        (mut core, paid): (JobCore, Option<&Paid>),
        failure: &Failure,
        message: &str,
        now: Instant,
        extra: &[(&'static str, String)],
    ) {
        self.close_fetches(&mut core);
        let (status, code) = reply_for(failure);
        let error = ApiError::new(code, message, core.request.id.clone());
        let mut response = json_response(status, &error);
        for (name, value) in extra {
            response = response.with_header(name, value.clone());
        }
        let payer = paid.map(|paid| paid.payer.clone());
        self.finish_job(server, core, payer, response, Some(code), None, now);
    }

    /// Ends a paid job with a 402: the terms again with `reason`, or (a refused settlement)
    /// the result withheld and `PAYMENT-RESPONSE` saying why.
    pub(super) fn end_job_with_402(
        &mut self,
        server: &Server,
        (mut core, paid): (JobCore, &Paid),
        reason: &str,
        settle: Option<SettleResponse>,
        now: Instant,
    ) {
        self.close_fetches(&mut core);
        let response = match settle {
            Some(settled) => Response::json(402, b"{}".to_vec())
                .with_header("PAYMENT-RESPONSE", codec::encode(&settled))
                .with_header("Cache-Control", "no-store"),
            None => payment_required_response(&paid.terms, reason, server.payment_extensions()),
        };
        let payer = Some(paid.payer.clone());
        self.finish_job(server, core, payer, response, None, None, now);
    }

    /// Sends a job's last answer with its access line (`payer`, `transaction`), and reads a
    /// pipelined request; a client that left gets nothing sent (a paid result is in the
    /// payment store for its retry).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn finish_job(
        &mut self,
        server: &Server,
        core: JobCore,
        payer: Option<String>,
        response: Response,
        code: Option<ErrorCode>,
        transaction: Option<String>,
        now: Instant,
    ) {
        self.state = State::Idle {
            deadline: now + HEAD_TIMEOUT,
        };
        let log = JobLog {
            pages_fetched: core.pages_fetched,
            pages_too_costly: core.pages_too_costly,
            payer,
            transaction,
            cause: core.cause.clone(),
        };
        if self.client_gone {
            self.log(&core.request, response.status, code, log, now);
            self.close();
            return;
        }
        self.send(&response.prepare(), &core.request, now, code, log);
        // The job ends here: its slot is free before a pipelined request is read.
        drop(core);
        if !self.is_finished() {
            self.advance_inbound(server, now);
        }
    }
}
