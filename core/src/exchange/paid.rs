//! The paid route up to the crawl (docs/contract.md "Request order" steps 2–6): recovery of a repeated paid
//! request from the payment store, the validation order, local payment checks, the
//! reservation, and `/verify`.

use super::settle::{authorization_key, settle_by};
use super::*;

impl Exchange {
    /// The paid route, docs/contract.md "Request order" steps 2–6; step 7 is the job. A request that repeats a
    /// known paid request (same `PAYMENT-SIGNATURE` and URL) is answered from the payment store
    /// first, without spending a rate-limit token (docs/payments.md).
    pub(super) fn extract_contact(
        &mut self,
        server: &Server,
        head: &RequestHead,
        body: &[u8],
        request: RequestInfo,
        now: Instant,
    ) {
        macro_rules! fail {
            ($failure:expr, $message:expr) => {{
                self.respond_error(&request, &$failure, &$message.to_string(), now);
                return;
            }};
        }
        let decoded = match self.recover(server, head, body, &request, now) {
            Recovery::Handled => return,
            Recovery::NotARetry(decoded) => decoded,
        };
        let limited = server.shared().limiter.check(self.client, now);
        if let Err(retry_after) = limited {
            let message = format!("rate limit exceeded; retry in {retry_after} s");
            let retry = [("Retry-After", retry_after.to_string())];
            self.respond_error_with(&request, &Failure::RateLimited, &message, now, &retry);
            return;
        }
        let input_url = match api::extract_request_url(
            head.header("content-type"),
            head.query.as_deref(),
            body,
        ) {
            Ok(url) => url,
            Err((failure, message)) => fail!(failure, message),
        };
        let target = match PublicUrl::parse(&input_url, &server.config.net_policy) {
            Ok(target) => target,
            Err(rejection) => {
                let message = rejection.to_string();
                fail!(Failure::InvalidUrl(rejection), message)
            }
        };
        if matches!(server.config.payment, PaymentConfig::Incomplete(_)) {
            fail!(
                Failure::PaymentsNotConfigured,
                "payments are not configured; see /api/ready"
            );
        }
        if server.is_draining() {
            // Read after the drain began: not started (a paid job started now could outlive
            // the drain's grace). The answer closes the connection.
            let retry = [("Retry-After", "1".to_string())];
            let message = "the service is shutting down; retry shortly, nothing was charged";
            self.respond_error_with(&request, &Failure::Overloaded, message, now, &retry);
            return;
        }
        if server.jobs.in_flight() >= server.config.max_concurrent_jobs {
            let retry = [("Retry-After", "1".to_string())];
            let message = "too many requests in flight; retry shortly";
            self.respond_error_with(&request, &Failure::Overloaded, message, now, &retry);
            return;
        }
        let Some(header) = head.header("payment-signature") else {
            // The commonest answer, built once per server.
            self.send_plain(&server.unpaid_response, &request, now);
            return;
        };
        let PaymentConfig::Ready { terms, facilitator } = &server.config.payment else {
            return;
        };
        let (terms, facilitator) = ((**terms).clone(), facilitator.clone());
        let (payment, fingerprint) = match decoded.map(|decoded| *decoded) {
            Some(decoded) => decoded,
            None => match codec::decode::<PaymentPayload>(header) {
                Ok(payment) => {
                    let fingerprint = Fingerprint::of(&payment, &input_url);
                    (payment, fingerprint)
                }
                Err(error) => {
                    self.payment_required(&request, &terms, &error.to_string(), now);
                    return;
                }
            },
        };
        let payment_id = match identifier::payment_id(&payment) {
            Ok(id) => id.map(str::to_string),
            Err(error) => {
                self.payment_required(&request, &terms, &error.to_string(), now);
                return;
            }
        };
        // The local checks (EIP-712 digest and ECDSA recovery, ~0.2 ms) are CPU work: a
        // worker does them; the job waits in `Phase::Check` and nothing is reserved yet.
        let unix_now = server.unix_time(now).as_secs();
        let work = Work::Payment(Box::new(PaymentWork {
            payment: payment.clone(),
            requirements: terms.requirements.clone(),
            unix_now,
        }));
        let deadline = request.started + JOB_TIMEOUT;
        let check = Check {
            terms,
            facilitator,
            payment,
            payment_id,
            fingerprint,
        };
        let mut job = Box::new(Job {
            check: Some(Box::new(check)),
            ..Job::new(server, request, (input_url, target), Phase::Check, deadline)
        });
        self.start_work(&mut job, WorkFor::Payment, work);
        self.state = State::Job(job);
    }

    /// The local payment checks are done (docs/contract.md "Request order" step 6): refuse (402), or reserve the
    /// authorization and call `/verify`. The checking job ends here; a paid job takes its place.
    pub(super) fn payment_checked(
        &mut self,
        server: &Server,
        job: Box<Job>,
        checked: Result<Box<VerifiedPayment>, PaymentError>,
        now: Instant,
    ) {
        let Job {
            request,
            input_url,
            target,
            check,
            ..
        } = *job;
        // The checking job is over (its slot is free); the connection answers or goes on.
        self.state = State::Idle {
            deadline: now + HEAD_TIMEOUT,
        };
        let Some(check) = check else {
            self.respond_error(&request, &Failure::Internal, "internal error", now);
            return self.after_early_answer(server, now);
        };
        let Check {
            terms,
            facilitator,
            payment,
            payment_id,
            fingerprint,
        } = *check;
        let verified = match checked {
            Ok(verified) => verified,
            Err(error) => {
                self.verdict = Some(PaymentVerdict::Refused);
                self.payment_required(&request, &terms, &error.reason(), now);
                return self.after_early_answer(server, now);
            }
        };
        // The homepage's share of the page memory budget, before anything is reserved or
        // verified: without one the request is shed, nothing consumed.
        let Some(home_memory) = server.page_memory.try_acquire() else {
            let retry = [("Retry-After", "1".to_string())];
            let message = "too many pages in memory; retry shortly, nothing was charged";
            self.respond_error_with(&request, &Failure::Overloaded, message, now, &retry);
            return self.after_early_answer(server, now);
        };
        let unix_now = server.unix_time(now).as_secs();
        let key = authorization_key(&terms, verified.payer, verified.nonce);
        let reserved = server.shared().payments.reserve(
            &key,
            fingerprint,
            payment_id.as_deref(),
            verified.valid_before,
            unix_now,
        );
        match reserved {
            Ok(()) => {}
            Err(ReserveError::AlreadyUsed) => {
                // Possibly the same payment sent twice at once: the other one reserved first.
                let record = server.shared().payments.look_up(&key, unix_now);
                match record.filter(|r| r.fingerprint == fingerprint) {
                    Some(record) => {
                        self.answer_same_payment(&request, &terms, &key, record.stage, now)
                    }
                    None => {
                        let reason = "payment authorization already used";
                        self.payment_required(&request, &terms, reason, now);
                    }
                }
                return self.after_early_answer(server, now);
            }
            Err(ReserveError::IdInUse) => {
                let message = "payment identifier already used with a different payment";
                self.respond_error(&request, &Failure::PaymentIdConflict, message, now);
                return self.after_early_answer(server, now);
            }
            Err(ReserveError::Full { retry_after }) => {
                let retry = [("Retry-After", retry_after.to_string())];
                let message = "too many payments held; retry later, nothing was charged";
                self.respond_error_with(&request, &Failure::Overloaded, message, now, &retry);
                return self.after_early_answer(server, now);
            }
            Err(ReserveError::PayerBusy { retry_after }) => {
                let retry = [("Retry-After", retry_after.to_string())];
                let message = "too many unfinished payments from this payer; retry later, nothing was charged";
                self.respond_error_with(&request, &Failure::Overloaded, message, now, &retry);
                return self.after_early_answer(server, now);
            }
        }
        // The window (docs/payments.md): the crawl ends early enough for the result build and
        // the whole settlement budget to end before validBefore - SETTLE_MARGIN.
        let settle_by = settle_by(server, now, verified.valid_before);
        let crawl_by = settle_by
            .checked_sub(SETTLE_BUDGET + MIN_BUILD_TIME)
            .unwrap_or(now);
        let deadline = (request.started + JOB_TIMEOUT).min(crawl_by);
        let paid = Paid {
            terms,
            facilitator,
            payment,
            key,
            payer: address_hex(&verified.payer),
            valid_before: verified.valid_before,
            settle_by,
            resettle: false,
        };
        let mut job = Box::new(Job {
            paid: Some(paid),
            memory: vec![(0, home_memory)],
            ..Job::new(
                server,
                request,
                (input_url, target),
                Phase::Verify,
                deadline,
            )
        });
        let Some(paid) = &job.paid else { return };
        let verify_url = endpoint(&paid.facilitator, "verify");
        match self.start_fetch(server, &mut job, Purpose::Verify, verify_url, now) {
            Ok(()) => self.state = State::Job(job),
            Err(failure) => self.after_verify(server, job, FetchEnd::Failed(failure), now),
        }
    }

    /// After a paid request was answered without a job (a refusal after the local checks): a
    /// client that left is closed; otherwise a pipelined request is read.
    fn after_early_answer(&mut self, server: &Server, now: Instant) {
        if self.client_gone {
            self.close();
        } else if !self.is_finished() {
            self.advance_inbound(server, now);
        }
    }

    /// Answers a request that carries a payment the store already has, with the same
    /// fingerprint: the kept 200, a 503 while it is in progress (or its settlement outcome is
    /// unknown), or a 402 when it was consumed without a result.
    fn answer_same_payment(
        &mut self,
        request: &RequestInfo,
        terms: &PaymentTerms,
        key: &AuthorizationKey,
        stage: Stage,
        now: Instant,
    ) {
        match stage {
            Stage::Settled(kept) => {
                let log = JobLog {
                    payer: Some(address_hex(&key.from)),
                    transaction: kept.settlement.as_ref().map(|s| s.transaction.clone()),
                    ..JobLog::default()
                };
                let request = RequestInfo {
                    id: kept.request_id.clone(),
                    ..request.clone()
                };
                self.send(&paid_response(&kept).prepare(), &request, now, None, log);
            }
            Stage::Reserved | Stage::Verified | Stage::Resettling(_) | Stage::Unknown(_) => {
                let retry = [("Retry-After", IN_PROGRESS_RETRY_AFTER.to_string())];
                let message = "a request with this payment is still in progress; retry with the same PAYMENT-SIGNATURE";
                self.respond_error_with(request, &Failure::PaymentInProgress, message, now, &retry);
            }
            Stage::Spent => {
                let reason = "payment authorization already used";
                self.payment_required(request, terms, reason, now);
            }
        }
    }

    /// Answers a request that repeats a known paid request (docs/payments.md, x402
    /// `payment-identifier`): the kept 200, a 503 while the original is in progress, a
    /// re-settlement of a result whose settlement outcome was unknown, a 402 for a consumed
    /// authorization without a result, a 409 for a payment id used with another payment.
    /// Anything else — no payment, a body or payment that does not parse, an unknown payment —
    /// is [`Recovery::NotARetry`] and takes the normal order (so its errors are the usual ones).
    pub(super) fn recover(
        &mut self,
        server: &Server,
        head: &RequestHead,
        body: &[u8],
        request: &RequestInfo,
        now: Instant,
    ) -> Recovery {
        let Some(header) = head.header("payment-signature") else {
            return Recovery::NotARetry(None);
        };
        let PaymentConfig::Ready { terms, facilitator } = &server.config.payment else {
            return Recovery::NotARetry(None);
        };
        let Ok(input_url) =
            api::extract_request_url(head.header("content-type"), head.query.as_deref(), body)
        else {
            return Recovery::NotARetry(None);
        };
        let Ok(payment) = codec::decode::<PaymentPayload>(header) else {
            return Recovery::NotARetry(None);
        };
        let unix_now = server.unix_time(now).as_secs();
        let fingerprint = Fingerprint::of(&payment, &input_url);
        let id_key = match identifier::payment_id(&payment) {
            Ok(Some(id)) => server.shared().payments.key_of_payment_id(id, unix_now),
            Ok(None) | Err(_) => None,
        };
        let by_id = id_key.is_some();
        let key = match (id_key, claimed_authorization(&payment)) {
            (Some(key), _) => key,
            (None, Some((from, nonce))) => authorization_key(terms, from, nonce),
            (None, None) => return Recovery::NotARetry(Some(Box::new((payment, fingerprint)))),
        };
        let Some(record) = server.shared().payments.look_up(&key, unix_now) else {
            return Recovery::NotARetry(Some(Box::new((payment, fingerprint))));
        };
        if record.fingerprint != fingerprint {
            if !by_id {
                // Another payload or URL with this authorization: the normal order ends in
                // "payment authorization already used".
                return Recovery::NotARetry(Some(Box::new((payment, fingerprint))));
            }
            let message = if record.fingerprint.payment == fingerprint.payment {
                "payment identifier already used with a different request"
            } else {
                "payment identifier already used with a different payment"
            };
            self.respond_error(request, &Failure::PaymentIdConflict, message, now);
            return Recovery::Handled;
        }
        if !matches!(record.stage, Stage::Unknown(_)) {
            self.answer_same_payment(request, terms, &key, record.stage, now);
            return Recovery::Handled;
        }
        // The settlement outcome was unknown: settle again (one retry at a time, rate-limited).
        let limited = server.shared().limiter.check(self.client, now);
        if let Err(retry_after) = limited {
            let message = format!("rate limit exceeded; retry in {retry_after} s");
            let retry = [("Retry-After", retry_after.to_string())];
            self.respond_error_with(request, &Failure::RateLimited, &message, now, &retry);
            return Recovery::Handled;
        }
        let Ok(target) = PublicUrl::parse(&input_url, &server.config.net_policy) else {
            return Recovery::NotARetry(None);
        };
        // One atomic step: of several retries of this payment, exactly one claims it; the
        // others are answered from the record as it now stands (503 "in progress", or the
        // kept 200), never by the normal order, which could refuse an authorization whose
        // settlement is in flight.
        let claim = server
            .shared()
            .payments
            .claim_resettle(&key, fingerprint, unix_now);
        let kept = match claim {
            Claim::Claimed(kept) => kept,
            Claim::NotClaimed(Some(record)) if record.fingerprint == fingerprint => {
                self.answer_same_payment(request, terms, &key, record.stage, now);
                return Recovery::Handled;
            }
            Claim::NotClaimed(_) => {
                return Recovery::NotARetry(Some(Box::new((payment, fingerprint))));
            }
        };
        let (terms, facilitator) = ((**terms).clone(), facilitator.clone());
        let settle_by = settle_by(server, now, record.valid_before);
        let paid = Paid {
            terms,
            facilitator,
            payment,
            payer: address_hex(&key.from),
            key,
            valid_before: record.valid_before,
            settle_by,
            resettle: true,
        };
        let (target, deadline) = ((input_url, target), now + SETTLE_BUDGET);
        let job = Box::new(Job {
            paid: Some(paid),
            ..Job::new(server, request.clone(), target, Phase::Settle, deadline)
        });
        self.begin_settlement(server, job, kept, true, now);
        Recovery::Handled
    }

    pub(super) fn after_verify(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        end: FetchEnd,
        now: Instant,
    ) {
        let reply = match end {
            FetchEnd::Response(response, _) => facilitator::parse_verify(&response.body),
            FetchEnd::Failed(_) => Reply::Garbage,
        };
        match reply {
            Reply::Answer(answer) if answer.is_valid => {
                // Consumed for good from here on, whatever happens next (Money safety).
                self.verdict = Some(PaymentVerdict::Verified);
                if let Some(paid) = &job.paid {
                    server.shared().payments.mark_verified(&paid.key);
                }
                match self.start_home(server, &mut job, now) {
                    Ok(()) => self.state = State::Job(job),
                    Err(failure) => self.page_done(server, job, 0, Err(failure), now),
                }
            }
            Reply::Answer(answer) => {
                // Refused before any money moved: the authorization stays usable.
                self.verdict = Some(PaymentVerdict::Refused);
                if let Some(paid) = &job.paid {
                    server.shared().payments.release(&paid.key);
                }
                let reason = answer
                    .invalid_reason
                    .unwrap_or_else(|| "payment verification failed".to_string());
                self.end_job_with_402(server, job, &reason, None, now);
            }
            Reply::Garbage => {
                // Outcome unknown: keep the authorization consumed (docs/contract.md).
                self.verdict = Some(PaymentVerdict::FacilitatorUnavailable);
                job.spend(server);
                self.end_job_with_error(
                    server,
                    job,
                    &Failure::FacilitatorUnavailable,
                    "the payment facilitator is unavailable; you were not charged",
                    now,
                );
            }
        }
    }
}
