//! The crawl — of a paid job once its payment is verified, or of an operator's job at once:
//! the homepage, redirects, the extra pages its plan names (each in a share of the page
//! memory budget), their decoding and extraction as worker effects, and the crawl deadline.
//! [`Crawl`] is the crawl itself, shared by both paths; [`Crawling`] is the paid job's phase.

use super::*;

/// A crawl in progress: the pages read so far and the extra pages still to start.
#[derive(Debug)]
pub(super) struct Crawl {
    /// The homepage first; then its extra pages (their plan is known).
    stage: CrawlStage,
    /// Each page's extraction once read, by slot (homepage first, then in plan order).
    pages: Vec<Option<PageExtraction>>,
    /// The contact-like pages the homepage's plan named, for the result.
    contact_pages: Vec<String>,
    /// Decoded bytes of the pages read so far ([`MAX_JOB_BYTES`]).
    bytes_total: usize,
    /// Page memory shares (`MAX_PAGE_MEMORY`), by page slot, held until the page is done.
    memory: Vec<(usize, PageMemorySlot)>,
    /// Extra pages waiting for a page memory share, retried at `memory_retry_at`.
    waiting: Vec<WaitingPage>,
    memory_retry_at: Option<Instant>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CrawlStage {
    Home,
    Extras,
}

/// A page fetch: its slot in the crawl's pages (0 = the homepage), the redirects followed so
/// far, and when the page (all hops) must be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PageFetch {
    pub(super) slot: usize,
    hops: usize,
    deadline: Instant,
}

/// An extra page planned but not started: the page memory budget is spent (it waits within
/// its own deadline).
#[derive(Debug)]
struct WaitingPage {
    page: PageFetch,
    url: Url,
}

/// Where a crawl stands after an event.
#[derive(Debug)]
pub(super) enum Progress {
    /// Pages are still being read (or wait for page memory).
    Going,
    /// The homepage failed (or the deadline passed before it was read): the job ends with
    /// this failure and message.
    HomeFailed(Failure, String),
    /// Every page is read or left out: the result is built next.
    Over,
}

impl Crawl {
    /// A crawl that starts with the homepage in `home_memory`, its share of the page memory
    /// budget.
    pub(super) fn new(home_memory: PageMemorySlot) -> Crawl {
        Crawl {
            stage: CrawlStage::Home,
            pages: Vec::new(),
            contact_pages: Vec::new(),
            bytes_total: 0,
            memory: vec![(0, home_memory)],
            waiting: Vec::new(),
            memory_retry_at: None,
        }
    }

    /// When the pages that wait for page memory try again, if any wait.
    pub(super) fn memory_retry_at(&self) -> Option<Instant> {
        self.memory_retry_at
    }

    pub(super) fn memory_retry_due(&self, now: Instant) -> bool {
        self.memory_retry_at.is_some_and(|at| now >= at)
    }

    /// Where the crawl stands: over once the homepage is read and no extra page is fetched,
    /// extracted or waiting.
    fn progress(&self, core: &JobCore) -> Progress {
        let over = self.stage == CrawlStage::Extras
            && self.waiting.is_empty()
            && !core
                .fetches
                .iter()
                .any(|o| matches!(o.purpose, Purpose::Page(_)))
            && !core.work.iter().any(|(_, f)| matches!(f, WorkFor::Page(_)));
        if over {
            Progress::Over
        } else {
            Progress::Going
        }
    }

    /// The result build's work: the pages read, merged and serialised by a worker. Nothing
    /// may fail after the money moves: the body is built before any `/settle`.
    pub(super) fn into_result_work(self, server: &Server, core: &JobCore, now: Instant) -> Work {
        Work::Result(ResultWork {
            input_url: core.input_url.clone(),
            url: core.target.url().clone(),
            contact_pages: self.contact_pages,
            pages_fetched: core.pages_fetched,
            duration_ms: millis(now.saturating_duration_since(core.request.started)),
            request_id: core.request.id.clone(),
            pages: self.pages.into_iter().flatten().collect(),
            merger: server.merger,
        })
    }
}

/// A paid job crawling: its payment verified (or found paid on chain), its pages being read.
#[derive(Debug)]
pub(super) struct Crawling {
    pub(super) core: JobCore,
    pub(super) paid: Paid,
    pub(super) crawl: Crawl,
}

impl Crawling {
    /// The crawl is over: the job builds its result. Returns the phase and the build's work.
    /// The crawl deadline already leaves the build and the settlement their time inside the
    /// authorization (docs/payments.md, "The window"); the build gets at least
    /// [`MIN_BUILD_TIME`].
    pub(super) fn into_building(self, server: &Server, now: Instant) -> (Building, Work) {
        let Crawling {
            mut core,
            paid,
            crawl,
        } = self;
        let work = crawl.into_result_work(server, &core, now);
        core.deadline = core.deadline.max(now + MIN_BUILD_TIME);
        (Building { core, paid }, work)
    }
}

impl Exchange {
    /// Starts a paid job's crawl with the homepage.
    pub(super) fn begin_crawl(&mut self, server: &Server, mut crawling: Crawling, now: Instant) {
        let (core, crawl) = (&mut crawling.core, &mut crawling.crawl);
        let progress = match self.start_home(server, core, crawl, now) {
            Ok(()) => Progress::Going,
            Err(failure) => self.page_done(server, core, crawl, (0, Err(failure), None), now),
        };
        self.crawling(server, crawling, progress, now);
    }

    /// A paid crawl goes on, fails (the authorization is spent), or is over (the result is
    /// built).
    pub(super) fn crawling(
        &mut self,
        server: &Server,
        crawling: Crawling,
        progress: Progress,
        now: Instant,
    ) {
        match progress {
            Progress::Going => self.keep(Job::Crawling(crawling)),
            Progress::HomeFailed(failure, message) => {
                let Crawling { core, paid, .. } = crawling;
                self.spend(server, &paid);
                self.end_job_with_error(server, (core, Some(&paid)), &failure, &message, now);
            }
            Progress::Over => {
                let (mut building, work) = crawling.into_building(server, now);
                self.start_work(&mut building.core, WorkFor::Result, work);
                self.keep(Job::Building(building));
            }
        }
    }

    /// Starts the homepage fetch.
    ///
    /// # Errors
    /// The failure when the fetch ends at once (a static DNS answer on the block list).
    pub(super) fn start_home(
        &mut self,
        server: &Server,
        core: &mut JobCore,
        crawl: &mut Crawl,
        now: Instant,
    ) -> Result<(), Failure> {
        crawl.pages.push(None);
        let page = PageFetch {
            slot: 0,
            hops: 0,
            deadline: (now + PAGE_TIMEOUT).min(core.deadline),
        };
        let url = core.target.url().clone();
        self.start_page_fetch(server, core, page, url, now)
    }

    /// Starts one hop of a page fetch.
    ///
    /// # Errors
    /// As [`Exchange::start_fetch`].
    fn start_page_fetch(
        &mut self,
        server: &Server,
        core: &mut JobCore,
        page: PageFetch,
        url: Url,
        now: Instant,
    ) -> Result<(), Failure> {
        let plan = FetchPlan {
            request: http1::page_request(&url, &server.user_agent),
            url,
            peer: Peer::Site,
            cap: MAX_PAGE_BYTES,
            deadline: page.deadline,
        };
        self.start_fetch(server, core, Purpose::Page(page), plan, now)
    }

    /// A page fetch ended: follow a redirect, hand the page to a worker, or note it failed.
    pub(super) fn after_page(
        &mut self,
        server: &Server,
        core: &mut JobCore,
        crawl: &mut Crawl,
        page: PageFetch,
        end: FetchEnd,
        now: Instant,
    ) -> Progress {
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
                            match self.start_page_fetch(server, core, hop, next, now) {
                                Ok(()) => return Progress::Going,
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
                                core.cause = Some(format!("redirect: {}", redirect_words(&error)));
                            }
                            Err(Failure::FetchFailed)
                        }
                    }
                } else if !(200..300).contains(&response.status) {
                    if page.slot == 0 {
                        core.cause = Some(format!("http {}", response.status));
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
                        plan_for: (page.slot == 0).then(|| core.target.url().clone()),
                    });
                    self.start_work(core, WorkFor::Page(page.slot), work);
                    return Progress::Going;
                }
            }
        };
        self.page_done(server, core, crawl, (page.slot, result, None), now)
    }

    /// A worker decoded and extracted page `page` (or failed, or ran over the CPU budget).
    pub(super) fn crawl_work_done(
        &mut self,
        server: &Server,
        core: &mut JobCore,
        crawl: &mut Crawl,
        (page, done, took): (usize, WorkDone, Duration),
        now: Instant,
    ) -> Progress {
        let (result, plan) = match done {
            WorkDone::Page(_) if took > PAGE_WORK_BUDGET => {
                // Over the CPU budget: left out (an extra page) or fatal (the homepage); the
                // access line counts it.
                core.pages_too_costly += 1;
                (Err(Failure::TooCostly), None)
            }
            WorkDone::Page(result) => {
                let mut plan = None;
                let result = result.and_then(|extracted| {
                    crawl.bytes_total += extracted.decoded_bytes;
                    plan = extracted.plan;
                    if crawl.bytes_total > MAX_JOB_BYTES {
                        return Err(Failure::ResponseTooLarge);
                    }
                    Ok(extracted.extraction)
                });
                (result, plan)
            }
            // An answer of the wrong kind (a runtime bug): a failed page.
            _ => (Err(Failure::Internal), None),
        };
        self.page_done(server, core, crawl, (page, result, plan), now)
    }

    /// A page is read (or failed): the homepage plans the extra pages (`plan`, made by the
    /// worker that extracted it) or ends the job; an extra page is kept, or skipped when it
    /// failed.
    fn page_done(
        &mut self,
        server: &Server,
        core: &mut JobCore,
        crawl: &mut Crawl,
        (page, result, plan): (
            usize,
            Result<PageExtraction, Failure>,
            Option<crawl::CrawlPlan>,
        ),
        now: Instant,
    ) -> Progress {
        match (page, result) {
            (0, Err(failure)) => {
                let message = failure_message(&failure);
                Progress::HomeFailed(failure, message)
            }
            (0, Ok(extraction)) => {
                // Planned by the worker that extracted the homepage (`PageWork::plan_for`),
                // which also dropped the links.
                let plan = plan.unwrap_or_default();
                crawl.contact_pages = plan.contact_pages.iter().map(Url::to_string).collect();
                crawl.pages[0] = Some(extraction);
                crawl.stage = CrawlStage::Extras;
                // The homepage's bytes are gone: its page memory serves the extra pages.
                crawl.memory.retain(|(slot, _)| *slot != 0);
                for url in plan.fetch {
                    let Ok(url) = PublicUrl::check(url, &server.config.net_policy) else {
                        continue;
                    };
                    // The page's slot in `pages` (homepage first, then in plan order).
                    let page = PageFetch {
                        slot: crawl.pages.len(),
                        hops: 0,
                        deadline: (now + PAGE_TIMEOUT).min(core.deadline),
                    };
                    crawl.pages.push(None);
                    crawl.waiting.push(WaitingPage {
                        page,
                        url: url.url().clone(),
                    });
                }
                self.start_waiting_pages(server, core, crawl, now)
            }
            (_, result) => {
                // Its page memory is free for the pages that wait.
                crawl.memory.retain(|(slot, _)| *slot != page);
                // An extra page that failed is skipped, not fatal.
                if let (Ok(extraction), Some(slot)) = (result, crawl.pages.get_mut(page)) {
                    *slot = Some(extraction);
                }
                crawl.progress(core)
            }
        }
    }

    /// Starts waiting extra pages in plan order while page memory is available; a page whose
    /// deadline has passed is left out; the rest try again after `MEMORY_RETRY`.
    pub(super) fn start_waiting_pages(
        &mut self,
        server: &Server,
        core: &mut JobCore,
        crawl: &mut Crawl,
        now: Instant,
    ) -> Progress {
        let waiting = std::mem::take(&mut crawl.waiting);
        for WaitingPage { page, url } in waiting {
            if now >= page.deadline {
                continue; // left out, like a page that timed out
            }
            if !crawl.waiting.is_empty() {
                // Keep the plan order: once one waits, the rest wait behind it.
                crawl.waiting.push(WaitingPage { page, url });
                continue;
            }
            match server.page_memory.try_acquire() {
                Some(memory) => {
                    crawl.memory.push((page.slot, memory));
                    // An extra page that cannot even start is skipped, like a failed one.
                    let slot = page.slot;
                    if self.start_page_fetch(server, core, page, url, now).is_err() {
                        crawl.memory.retain(|(s, _)| *s != slot);
                    }
                }
                None => crawl.waiting.push(WaitingPage { page, url }),
            }
        }
        crawl.memory_retry_at = (!crawl.waiting.is_empty()).then(|| now + MEMORY_RETRY);
        crawl.progress(core)
    }

    /// The crawl deadline passed: before the homepage was read, the job fails (422
    /// `TIMEOUT`); during the extra pages, the crawl is over with what was read.
    pub(super) fn crawl_deadline(&mut self, core: &mut JobCore, crawl: &mut Crawl) -> Progress {
        match crawl.stage {
            CrawlStage::Home => {
                core.note_timeout(|p| matches!(p, Purpose::Page(PageFetch { slot: 0, .. })));
                self.close_fetches(core);
                let message = "the site did not answer before the deadline".to_string();
                Progress::HomeFailed(Failure::Timeout, message)
            }
            CrawlStage::Extras => {
                self.close_fetches(core);
                crawl.waiting.clear();
                crawl.memory_retry_at = None;
                crawl.progress(core)
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
