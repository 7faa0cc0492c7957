//! An operator's crawl without payment (`contact-extract extract URL`): the same URL checks,
//! SSRF rules, caps, deadlines, crawl ([`Crawl`]) and result build as a paid job, with no
//! client, no facilitator and no payment record. Its outcome is taken with
//! [`Exchange::take_unpaid_outcome`].

use super::*;

/// An operator's crawl: crawling, then building its result.
#[derive(Debug)]
pub(super) enum OperatorJob {
    Crawling(JobCore, Crawl),
    /// The result build ([`WorkFor::Result`]).
    Building(JobCore),
}

impl OperatorJob {
    pub(super) fn core(&self) -> &JobCore {
        match self {
            OperatorJob::Crawling(core, _) | OperatorJob::Building(core) => core,
        }
    }

    pub(super) fn core_mut(&mut self) -> &mut JobCore {
        match self {
            OperatorJob::Crawling(core, _) | OperatorJob::Building(core) => core,
        }
    }

    pub(super) fn memory_retry_at(&self) -> Option<Instant> {
        match self {
            OperatorJob::Crawling(_, crawl) => crawl.memory_retry_at(),
            OperatorJob::Building(_) => None,
        }
    }

    pub(super) fn memory_retry_due(&self, now: Instant) -> bool {
        self.memory_retry_at().is_some_and(|at| now >= at)
    }
}

impl Exchange {
    /// An operator's crawl of `url` without payment (`contact-extract extract URL`): the same
    /// URL checks, SSRF rules, caps, deadlines and extraction as a paid job, with no
    /// facilitator call. Drive it like a connection (it never emits `SendToClient`), then take
    /// the outcome with [`Exchange::take_unpaid_outcome`] once [`Exchange::is_finished`].
    ///
    /// # Errors
    /// The URL's `ApiError` (`INVALID_URL`, `PRIVATE_ADDRESS`, …), as the paid route would
    /// answer it (docs/contract.md "Request order" step 3).
    pub fn unpaid_crawl(server: &Server, url: &str, now: Instant) -> Result<Exchange, ApiError> {
        let request_id = server.next_request_id(now);
        let target = PublicUrl::parse(url, &server.config.net_policy).map_err(|rejection| {
            let message = rejection.to_string();
            let (_, code) = reply_for(&Failure::InvalidUrl(rejection));
            ApiError::new(code, message, request_id.clone())
        })?;
        let mut exchange = Exchange::new(server.clone(), IpAddr::from([127, 0, 0, 1]), now);
        let request = RequestInfo {
            id: request_id,
            method: "EXTRACT".to_string(),
            path: url.to_string(),
            started: now,
            close: true,
        };
        let target = (url.to_string(), target);
        let mut core = JobCore::new(server, request, target, now + JOB_TIMEOUT);
        let Some(memory) = server.page_memory.try_acquire() else {
            let (_, code) = reply_for(&Failure::Overloaded);
            let message = "the page memory budget (MAX_PAGE_MEMORY) is spent; retry shortly";
            return Err(ApiError::new(code, message, core.request.id.clone()));
        };
        let mut crawl = Crawl::new(memory);
        let progress = match exchange.start_home(server, &mut core, &mut crawl, now) {
            Ok(()) => Progress::Going,
            Err(failure) => {
                let message = failure_message(&failure);
                Progress::HomeFailed(failure, message)
            }
        };
        exchange.operator_crawling(server, (core, crawl), progress, now);
        Ok(exchange)
    }

    /// The operator's crawl goes on, fails, or is over (its result is built).
    fn operator_crawling(
        &mut self,
        server: &Server,
        (mut core, crawl): (JobCore, Crawl),
        progress: Progress,
        now: Instant,
    ) {
        match progress {
            Progress::Going => {
                self.state = State::Operator(Box::new(OperatorJob::Crawling(core, crawl)));
            }
            Progress::HomeFailed(failure, message) => {
                self.end_operator_with_error(core, &failure, &message, now);
            }
            Progress::Over => {
                let work = crawl.into_result_work(server, &core, now);
                core.deadline = core.deadline.max(now + MIN_BUILD_TIME);
                self.start_work(&mut core, WorkFor::Result, work);
                self.state = State::Operator(Box::new(OperatorJob::Building(core)));
            }
        }
    }

    /// A page fetch of the operator's crawl ended.
    pub(super) fn operator_page_end(
        &mut self,
        server: &Server,
        operator: OperatorJob,
        page: PageFetch,
        end: FetchEnd,
        now: Instant,
    ) {
        match operator {
            OperatorJob::Crawling(mut core, mut crawl) => {
                let progress = self.after_page(server, &mut core, &mut crawl, page, end, now);
                self.operator_crawling(server, (core, crawl), progress, now);
            }
            building => self.state = State::Operator(Box::new(building)),
        }
    }

    /// A page's work of the operator's crawl is done.
    pub(super) fn operator_work_done(
        &mut self,
        server: &Server,
        operator: OperatorJob,
        page: (usize, WorkDone, Duration),
        now: Instant,
    ) {
        match operator {
            OperatorJob::Crawling(mut core, mut crawl) => {
                let progress = self.crawl_work_done(server, &mut core, &mut crawl, page, now);
                self.operator_crawling(server, (core, crawl), progress, now);
            }
            building => self.state = State::Operator(Box::new(building)),
        }
    }

    /// The operator's crawl's memory retry is due.
    pub(super) fn operator_memory_retry(
        &mut self,
        server: &Server,
        operator: OperatorJob,
        now: Instant,
    ) {
        match operator {
            OperatorJob::Crawling(mut core, mut crawl) => {
                let progress = self.start_waiting_pages(server, &mut core, &mut crawl, now);
                self.operator_crawling(server, (core, crawl), progress, now);
            }
            building => self.state = State::Operator(Box::new(building)),
        }
    }

    /// The operator's job deadline passed.
    pub(super) fn operator_deadline(&mut self, server: &Server, now: Instant) {
        let State::Operator(operator) = self.take_state(now) else {
            return;
        };
        match *operator {
            OperatorJob::Crawling(mut core, mut crawl) => {
                let progress = self.crawl_deadline(&mut core, &mut crawl);
                self.operator_crawling(server, (core, crawl), progress, now);
            }
            OperatorJob::Building(core) => {
                let message = "the result could not be built in time; this request changed nothing";
                self.end_operator_with_error(core, &Failure::Internal, message, now);
            }
        }
    }

    /// The operator's result is built (or the build failed): the outcome, and the end.
    pub(super) fn operator_built(
        &mut self,
        _server: &Server,
        operator: OperatorJob,
        built: Result<Box<BuiltResult>, Failure>,
        now: Instant,
    ) {
        let OperatorJob::Building(core) = operator else {
            self.state = State::Operator(Box::new(operator));
            return;
        };
        match built {
            Ok(built) => {
                let BuiltResult { result, body } = *built;
                self.unpaid_outcome = Some(Ok(result));
                let response = Response::json(200, body);
                self.finish_operator(core, response.status, None, now);
            }
            Err(_) => {
                let message = "an internal error occurred while building the result; this request changed nothing";
                self.end_operator_with_error(core, &Failure::Internal, message, now);
            }
        }
    }

    /// Ends the operator's crawl with `failure`, its outcome.
    fn end_operator_with_error(
        &mut self,
        mut core: JobCore,
        failure: &Failure,
        message: &str,
        now: Instant,
    ) {
        self.close_fetches(&mut core);
        let (status, code) = reply_for(failure);
        let error = ApiError::new(code, message, core.request.id.clone());
        self.unpaid_outcome = Some(Err(error));
        self.finish_operator(core, status, Some(code), now);
    }

    /// The operator's crawl is over: its access line, and the exchange is finished (there is
    /// no client to answer).
    fn finish_operator(
        &mut self,
        core: JobCore,
        status: u16,
        code: Option<ErrorCode>,
        now: Instant,
    ) {
        let log = JobLog {
            pages_fetched: core.pages_fetched,
            pages_too_costly: core.pages_too_costly,
            payer: None,
            transaction: None,
            cause: core.cause.clone(),
        };
        self.state = State::Idle {
            deadline: now + HEAD_TIMEOUT,
        };
        self.log(&core.request, status, code, log, now);
        self.close();
    }
}
