//! The crawl of a paid (or operator's) job: the homepage, redirects, the extra pages, their
//! decoding and extraction as worker effects, the result build, and the job deadline.

use super::*;
use crate::payment::chain::{ChainCheck, ChainVerdict};

impl Exchange {
    /// Hands `work` to the runtime for `purpose`.
    pub(super) fn start_work(&mut self, job: &mut Job, purpose: WorkFor, work: Work) {
        self.next_work += 1;
        let id = WorkId(self.next_work);
        job.work.push((id, purpose));
        self.outputs.push_back(Output::Work { id, work });
    }

    /// The answer to a piece of work; ignored when the core no longer waits for it.
    pub(super) fn on_work_done(
        &mut self,
        server: &Server,
        id: WorkId,
        done: WorkDone,
        took: Duration,
        now: Instant,
    ) {
        let State::Job(job) = &mut self.state else {
            return;
        };
        let Some(index) = job.work.iter().position(|(w, _)| *w == id) else {
            return;
        };
        let (_, purpose) = job.work.remove(index);
        let Some(mut job) = self.take_job() else {
            return;
        };
        match (purpose, done) {
            (WorkFor::Payment, WorkDone::Payment(checked)) => {
                self.payment_checked(server, job, checked, now)
            }
            (WorkFor::Page(page), WorkDone::Page(_)) if took > PAGE_WORK_BUDGET => {
                // Over the CPU budget: left out (an extra page) or fatal (the homepage); the
                // access line counts it.
                job.pages_too_costly += 1;
                self.page_done(server, job, page, Err(Failure::TooCostly), now);
            }
            (WorkFor::Page(page), WorkDone::Page(result)) => {
                let result = result.and_then(|extracted| {
                    job.bytes_total += extracted.decoded_bytes;
                    if extracted.plan.is_some() {
                        job.plan = extracted.plan;
                    }
                    if job.bytes_total > MAX_JOB_BYTES {
                        return Err(Failure::ResponseTooLarge);
                    }
                    Ok(extracted.extraction)
                });
                self.page_done(server, job, page, result, now);
            }
            (WorkFor::Result, WorkDone::Result(built)) => {
                self.result_built(server, job, built, now)
            }
            // An answer of the wrong kind (a runtime bug): treated as a failed check, page or
            // build.
            (WorkFor::Payment, _) => {
                let failure = Failure::Internal;
                self.end_job_with_error(server, job, &failure, "internal error", now)
            }
            (WorkFor::Page(page), _) => {
                self.page_done(server, job, page, Err(Failure::Internal), now)
            }
            (WorkFor::Result, _) => self.result_built(server, job, Err(Failure::Internal), now),
        }
    }

    /// Starts the homepage fetch (after `/verify`, or at once for an unpaid crawl).
    ///
    /// # Errors
    /// The failure when the fetch ends at once (a static DNS answer on the block list).
    pub(super) fn start_home(
        &mut self,
        server: &Server,
        job: &mut Job,
        now: Instant,
    ) -> Result<(), Failure> {
        job.phase = Phase::CrawlHome;
        job.pages.push(None);
        let page = PageFetch {
            slot: 0,
            hops: 0,
            deadline: (now + PAGE_TIMEOUT).min(job.deadline),
        };
        let url = job.target.url().clone();
        self.start_fetch(server, job, Purpose::Page(page), url, now)
    }

    /// Starts a fetch of `url` for `purpose`, building its request.
    ///
    /// # Errors
    /// The failure when the fetch ends at once (a static DNS answer on the block list): the
    /// caller handles it as the fetch's outcome.
    pub(super) fn start_fetch(
        &mut self,
        server: &Server,
        job: &mut Job,
        purpose: Purpose,
        url: Url,
        now: Instant,
    ) -> Result<(), Failure> {
        let (request, peer, cap, deadline) = match purpose {
            Purpose::Page(page) => (
                http1::page_request(&url, &server.user_agent),
                Peer::Site,
                MAX_PAGE_BYTES,
                page.deadline,
            ),
            Purpose::Chain => {
                let body = job
                    .chain
                    .as_ref()
                    .map(ChainCheck::request_body)
                    .ok_or(Failure::Internal)?;
                (
                    http1::json_post(&url, &body, &server.user_agent),
                    Peer::Facilitator { patient: true },
                    settle::MAX_CHAIN_REPLY,
                    job.deadline,
                )
            }
            Purpose::Verify | Purpose::Settle => {
                let Some(paid) = &job.paid else {
                    return Err(Failure::Internal);
                };
                let body = facilitator::request_body(&paid.payment, &paid.terms.requirements);
                // The settlement may use its whole budget: the reference facilitator answers
                // only once the transfer is confirmed or its own wait is over.
                let patient = purpose == Purpose::Settle;
                let deadline = if patient {
                    job.deadline
                } else {
                    now + PAGE_TIMEOUT
                };
                (
                    http1::json_post(&url, &body, &server.user_agent),
                    Peer::Facilitator { patient },
                    MAX_FACILITATOR_REPLY,
                    deadline,
                )
            }
        };
        let plan = FetchPlan {
            url,
            request,
            peer,
            cap,
            deadline,
        };
        let fetch = self.open_fetch(server, plan, now)?;
        job.fetches.push(Outbound { fetch, purpose });
        Ok(())
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

    pub(super) fn on_resolved(
        &mut self,
        server: &Server,
        id: FetchId,
        result: Result<Vec<IpAddr>, IoFailure>,
        now: Instant,
    ) {
        let policy = &server.config.net_policy;
        let end = fetch_in(&mut self.state, id)
            .and_then(|f| f.on_resolved(result, policy, now, &mut self.outputs));
        if let Some(end) = end {
            self.end_fetch(server, id, end, now);
        }
    }

    pub(super) fn on_connected(
        &mut self,
        server: &Server,
        id: FetchId,
        result: Result<(), IoFailure>,
        now: Instant,
    ) {
        let end = fetch_in(&mut self.state, id)
            .and_then(|f| f.on_connected(result, now, &mut self.outputs));
        if let Some(end) = end {
            self.end_fetch(server, id, end, now);
        }
    }

    pub(super) fn on_fetch_data(
        &mut self,
        server: &Server,
        id: FetchId,
        data: &[u8],
        now: Instant,
    ) {
        if let Some(end) = fetch_in(&mut self.state, id).and_then(|f| f.on_data(data, now)) {
            self.end_fetch(server, id, end, now);
        }
    }

    pub(super) fn on_fetch_closed(&mut self, server: &Server, id: FetchId, now: Instant) {
        if let Some(end) = fetch_in(&mut self.state, id).map(Fetch::on_closed) {
            self.end_fetch(server, id, end, now);
        }
    }

    /// A fetch ended: close it and go on with what it was for.
    pub(super) fn end_fetch(&mut self, server: &Server, id: FetchId, end: FetchEnd, now: Instant) {
        if let State::Probe(fetch, index) = &self.state {
            if fetch.id() == id {
                let index = *index;
                self.check_done(server, index, end);
            }
            return;
        }
        let Some(mut job) = self.take_job() else {
            return;
        };
        let Some(index) = job.fetches.iter().position(|o| o.fetch.id() == id) else {
            self.state = State::Job(job);
            return;
        };
        let Outbound { purpose, fetch } = job.fetches.remove(index);
        self.outputs.push_back(Output::CloseFetch { fetch: id });
        // Why it failed, for the access and audit lines: the homepage's fetch, or a facilitator
        // or chain call that got no usable reply (pages after the homepage are skipped quietly).
        let cause = fetch.cause().map(str::to_string);
        match purpose {
            Purpose::Page(PageFetch { slot: 0, .. }) => job.cause = cause,
            Purpose::Verify | Purpose::Settle | Purpose::Chain if cause.is_some() => {
                job.cause = cause;
            }
            _ => {}
        }
        match purpose {
            Purpose::Verify => self.after_verify(server, job, end, now),
            Purpose::Settle => self.after_settle(server, job, end, now),
            Purpose::Chain => self.after_chain(server, job, end, now),
            Purpose::Page(page) => {
                if matches!(end, FetchEnd::Response(..)) {
                    job.pages_fetched += 1;
                }
                self.after_page(server, job, page, end, now);
            }
        }
    }

    pub(super) fn after_page(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        page: PageFetch,
        end: FetchEnd,
        now: Instant,
    ) {
        let result = match end {
            FetchEnd::Failed(failure) => Err(failure),
            FetchEnd::Response(response, url) => {
                if is_redirect(response.status) {
                    match redirect_target(
                        &url,
                        response.header("location"),
                        page.hops,
                        &server.config.net_policy,
                    ) {
                        Ok(next) => {
                            // The next hop, within the page's own deadline.
                            let hop = PageFetch {
                                hops: page.hops + 1,
                                ..page
                            };
                            let next = next.url().clone();
                            match self.start_fetch(server, &mut job, Purpose::Page(hop), next, now)
                            {
                                Ok(()) => {
                                    self.state = State::Job(job);
                                    return;
                                }
                                Err(failure) => Err(failure),
                            }
                        }
                        Err(RedirectError::Refused(rejection))
                            if rejection.is_private_address() =>
                        {
                            Err(Failure::BlockedResolution)
                        }
                        Err(error) => {
                            if page.slot == 0 {
                                job.cause = Some(format!("redirect: {}", redirect_words(&error)));
                            }
                            Err(Failure::FetchFailed)
                        }
                    }
                } else if !(200..300).contains(&response.status) {
                    if page.slot == 0 {
                        job.cause = Some(format!("http {}", response.status));
                    }
                    Err(Failure::FetchFailed)
                } else {
                    // Decoding and extraction are CPU work: a worker does them.
                    let work = Work::Page(PageWork {
                        content_type: response.header("content-type").map(str::to_string),
                        content_encoding: response.header("content-encoding").map(str::to_string),
                        body: response.body,
                        url,
                        extractor: server.extractor,
                        plan_for: (page.slot == 0).then(|| job.target.url().clone()),
                    });
                    self.start_work(&mut job, WorkFor::Page(page.slot), work);
                    self.state = State::Job(job);
                    return;
                }
            }
        };
        self.page_done(server, job, page.slot, result, now);
    }

    /// A page is read (or failed): the homepage plans the extra pages or ends the job; an
    /// extra page is kept, or skipped when it failed.
    pub(super) fn page_done(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        page: usize,
        result: Result<PageExtraction, Failure>,
        now: Instant,
    ) {
        match (page, result) {
            (0, Err(failure)) => {
                self.spend(server, &job);
                let message = failure_message(&failure);
                self.end_job_with_error(server, job, &failure, &message, now);
            }
            (0, Ok(extraction)) => {
                // Planned by the worker that extracted the homepage (`PageWork::plan_for`),
                // which also dropped the links.
                let plan = job.plan.take().unwrap_or_default();
                job.contact_pages = plan.contact_pages.iter().map(Url::to_string).collect();
                job.pages[0] = Some(extraction);
                job.phase = Phase::CrawlExtras;
                // The homepage's bytes are gone: its page memory serves the extra pages.
                job.memory.retain(|(slot, _)| *slot != 0);
                for url in plan.fetch {
                    let Ok(url) = PublicUrl::check(url, &server.config.net_policy) else {
                        continue;
                    };
                    // The page's slot in `pages` (homepage first, then in plan order).
                    let page = PageFetch {
                        slot: job.pages.len(),
                        hops: 0,
                        deadline: (now + PAGE_TIMEOUT).min(job.deadline),
                    };
                    job.pages.push(None);
                    job.waiting.push(WaitingPage {
                        page,
                        url: url.url().clone(),
                    });
                }
                self.start_waiting_pages_of(server, &mut job, now);
                self.state = State::Job(job);
                self.maybe_settle(server, now);
            }
            (_, result) => {
                // Its page memory is free for the pages that wait.
                job.memory.retain(|(slot, _)| *slot != page);
                // An extra page that failed is skipped, not fatal.
                if let (Ok(extraction), Some(slot)) = (result, job.pages.get_mut(page)) {
                    *slot = Some(extraction);
                }
                self.state = State::Job(job);
                self.maybe_settle(server, now);
            }
        }
    }

    /// Starts the extra pages that wait for page memory, as far as the budget allows (the
    /// retry timer's turn).
    pub(super) fn start_waiting_pages(&mut self, server: &Server, now: Instant) {
        let Some(mut job) = self.take_job() else {
            return;
        };
        self.start_waiting_pages_of(server, &mut job, now);
        self.state = State::Job(job);
        self.maybe_settle(server, now);
    }

    /// Starts waiting extra pages in plan order while page memory is available; a page whose
    /// deadline has passed is left out; the rest try again after `MEMORY_RETRY`.
    fn start_waiting_pages_of(&mut self, server: &Server, job: &mut Job, now: Instant) {
        let waiting = std::mem::take(&mut job.waiting);
        for WaitingPage { page, url } in waiting {
            if now >= page.deadline {
                continue; // left out, like a page that timed out
            }
            if !job.waiting.is_empty() {
                // Keep the plan order: once one waits, the rest wait behind it.
                job.waiting.push(WaitingPage { page, url });
                continue;
            }
            match server.page_memory.try_acquire() {
                Some(memory) => {
                    job.memory.push((page.slot, memory));
                    // An extra page that cannot even start is skipped, like a failed one.
                    let slot = page.slot;
                    if self
                        .start_fetch(server, job, Purpose::Page(page), url, now)
                        .is_err()
                    {
                        job.memory.retain(|(s, _)| *s != slot);
                    }
                }
                None => job.waiting.push(WaitingPage { page, url }),
            }
        }
        job.memory_retry_at = (!job.waiting.is_empty()).then(|| now + MEMORY_RETRY);
    }

    /// When the crawl is over (no page fetch left): builds the 200 body, then (paid) starts
    /// the settlement, or (unpaid) records the outcome.
    pub(super) fn maybe_settle(&mut self, server: &Server, now: Instant) {
        let State::Job(job) = &self.state else {
            return;
        };
        if job.phase != Phase::CrawlExtras
            || !job.waiting.is_empty()
            || job
                .fetches
                .iter()
                .any(|o| matches!(o.purpose, Purpose::Page(_)))
            || job.work.iter().any(|(_, f)| matches!(f, WorkFor::Page(_)))
        {
            return;
        }
        let Some(mut job) = self.take_job() else {
            return;
        };
        // Nothing may fail after the money moves: the body is built and serialised (by a
        // worker) before any /settle.
        let work = Work::Result(ResultWork {
            input_url: job.input_url.clone(),
            url: job.target.url().clone(),
            contact_pages: job.contact_pages.clone(),
            pages_fetched: job.pages_fetched,
            duration_ms: millis(now.saturating_duration_since(job.request.started)),
            request_id: job.request.id.clone(),
            pages: job.pages.iter_mut().filter_map(Option::take).collect(),
            merger: server.merger,
        });
        job.phase = Phase::Build;
        // The crawl deadline already leaves the build and the settlement their time inside
        // the authorization (docs/payments.md, "The window").
        job.deadline = job.deadline.max(now + MIN_BUILD_TIME);
        self.start_work(&mut job, WorkFor::Result, work);
        self.state = State::Job(job);
    }

    /// The result is built (or the build failed): settle it, or record the unpaid outcome.
    pub(super) fn result_built(
        &mut self,
        server: &Server,
        job: Box<Job>,
        built: Result<Box<BuiltResult>, Failure>,
        now: Instant,
    ) {
        let Ok(built) = built else {
            let failure = Failure::Internal;
            let message =
                "an internal error occurred while building the result; this request changed nothing";
            self.spend(server, &job);
            self.end_job_with_error(server, job, &failure, message, now);
            return;
        };
        let BuiltResult { result, body } = *built;
        if job.operator {
            // An operator's crawl: the result, without settlement.
            self.unpaid_outcome = Some(Ok(result));
            self.finish_job(server, job, Response::json(200, body), None, None, now);
            return;
        }
        let kept = KeptResponse {
            body: Arc::from(body),
            request_id: job.request.id.clone(),
            settlement: None,
        };
        self.begin_settlement(server, job, kept, false, now);
    }

    /// The job deadline passed: before the homepage → 422 TIMEOUT; during extra pages → settle
    /// with what was read; during verify → facilitator unavailable; during the settlement (its
    /// own budget) → the outcome is unknown.
    pub(super) fn job_deadline(&mut self, server: &Server, now: Instant) {
        let Some(mut job) = self.take_job() else {
            return;
        };
        match job.phase {
            Phase::CrawlHome => {
                job.note_timeout(|p| matches!(p, Purpose::Page(PageFetch { slot: 0, .. })));
                self.close_fetches(&mut job);
                self.spend(server, &job);
                self.end_job_with_error(
                    server,
                    job,
                    &Failure::Timeout,
                    "the site did not answer before the deadline",
                    now,
                );
            }
            Phase::CrawlExtras => {
                self.close_fetches(&mut job);
                job.waiting.clear();
                job.memory_retry_at = None;
                self.state = State::Job(job);
                self.maybe_settle(server, now);
            }
            Phase::Build => {
                self.close_fetches(&mut job);
                self.spend(server, &job);
                self.end_job_with_error(
                    server,
                    job,
                    &Failure::Internal,
                    "the result could not be built in time; this request changed nothing",
                    now,
                );
            }
            Phase::Reserve => {
                // The store's deadline comes first (`on_timeout`); the job's can only pass
                // with it: nothing is verified yet.
                self.reserved(server, job, Err(StoreFailure::Timeout), now);
            }
            // Settled; the store's deadline comes first, so this is only reached with it: the
            // 200 goes out.
            Phase::Record => self.delivered(server, job, now),
            Phase::Check => {
                // Nothing was reserved: a busy worker pool only costs a retry.
                self.close_fetches(&mut job);
                self.end_job_with_error(
                    server,
                    job,
                    &Failure::Overloaded,
                    "the payment could not be checked in time; retry shortly, nothing was charged",
                    now,
                );
            }
            Phase::Verify => {
                job.note_timeout(|p| matches!(p, Purpose::Verify));
                self.close_fetches(&mut job);
                self.spend(server, &job);
                self.end_job_with_error(
                    server,
                    job,
                    &Failure::FacilitatorUnavailable,
                    "the payment facilitator did not answer in time; this request changed nothing",
                    now,
                );
            }
            Phase::Judge => {
                job.note_timeout(|p| matches!(p, Purpose::Chain));
                let verdict = ChainVerdict::Undetermined("chain rpc: no answer in time".into());
                self.judged(server, job, verdict, now);
            }
            Phase::Settle => {
                job.note_timeout(|p| matches!(p, Purpose::Settle | Purpose::Chain));
                self.close_fetches(&mut job);
                if job.chain.is_some() {
                    let verdict = ChainVerdict::Undetermined("chain rpc: no answer in time".into());
                    self.chain_verdict(server, job, verdict, now);
                } else {
                    self.settlement_outcome(server, job, SettleOutcome::Unknown(None), now);
                }
            }
        }
    }
}

/// An operator's words for a refused redirect.
fn redirect_words(error: &RedirectError) -> String {
    match error {
        RedirectError::TooMany => "too many hops".to_string(),
        RedirectError::Downgrade => "https to http".to_string(),
        RedirectError::NoLocation => "no usable Location".to_string(),
        RedirectError::Refused(rejection) => format!("target refused: {rejection}"),
    }
}
