//! The paid route up to its job (docs/contract.md "Request order" steps 2–6): the shared
//! state's admission (rate limit, and recovery of a repeated paid request from the payment
//! store), the validation order, the 402, and the start of a paid job ([`Checking`]).

use super::settling::{authorization_key, settle_by};
use super::*;

/// A request waiting for [`StoreOp::Admit`]'s answer, with what the paid route needs after it.
#[derive(Debug)]
pub(super) struct Admitting {
    pub(super) id: StoreId,
    pub(super) deadline: Instant,
    head: RequestHead,
    body: Vec<u8>,
    request: RequestInfo,
    decoded: Option<Box<(PaymentPayload, Fingerprint)>>,
}

/// A paid-route request as read: its head and body.
#[derive(Debug, Clone, Copy)]
pub(super) struct Asked<'a> {
    head: &'a RequestHead,
    body: &'a [u8],
}

impl Exchange {
    /// The paid route, docs/contract.md "Request order" steps 2–6; step 7 is the job. First
    /// the shared state is asked ([`StoreOp::Admit`]): the client's rate limit and, for a
    /// request that carries a payment, whether it repeats a known paid request (same
    /// `PAYMENT-SIGNATURE` and URL) — answered from the payment store without spending a
    /// rate-limit token (docs/payments.md). With a shared store the exchange waits for the
    /// answer ([`State::Admitting`]).
    pub(super) fn extract_contact(
        &mut self,
        server: &Server,
        head: &RequestHead,
        body: &[u8],
        request: RequestInfo,
        now: Instant,
    ) {
        let (recall, decoded) = self.recall_query(server, head, body);
        self.claim_lease = recall.as_ref().map_or(0, |recall| recall.lease.id);
        let mut tokens = 1;
        if decoded.is_none() && server.store_is_shared() {
            // No payment to check (none, or one that does not decode): nothing here can reach
            // the facilitator, so a token leased from the shared limit will do.
            let mut shared = server.shared();
            if shared.leases.spend(self.client, now) {
                drop(shared);
                let asked = Asked { head, body };
                let admission = Admission::Admitted { tokens: 1 };
                let reply = Ok(StoreReply::Admission(Box::new(admission)));
                self.admitted(server, asked, request, decoded, reply, now);
                return;
            }
            tokens = shared.leases.want(self.client, now);
        }
        let admit = Admit {
            client: self.client,
            unix_ms: millis(server.unix_time(now)),
            recall,
            tokens,
        };
        match self.store_call(server, StoreOp::Admit(admit)) {
            Ok(reply) => {
                let asked = Asked { head, body };
                self.admitted(server, asked, request, decoded, Ok(reply), now);
            }
            Err(id) => {
                self.state = State::Admitting(Box::new(Admitting {
                    id,
                    deadline: now + STORE_TIMEOUT,
                    head: head.clone(),
                    body: body.to_vec(),
                    request,
                    decoded,
                }));
            }
        }
    }

    /// The store's answer (or its absence) to an [`Admitting`] request: the paid route goes on
    /// as [`Exchange::admitted`] says; a pipelined request is read after an answer.
    pub(super) fn admission_answered(
        &mut self,
        server: &Server,
        admitting: Admitting,
        result: Result<StoreReply, StoreFailure>,
        now: Instant,
    ) {
        let Admitting {
            head,
            body,
            request,
            decoded,
            ..
        } = admitting;
        let asked = Asked {
            head: &head,
            body: &body,
        };
        self.admitted(server, asked, request, decoded, result, now);
        if matches!(self.state, State::Idle { .. }) {
            self.after_early_answer(server, now);
        }
    }

    /// The shared store answered [`StoreOp::Admit`] (or failed): answer from a known record,
    /// re-settle a claimed one, refuse, or go on with the normal order.
    pub(super) fn admitted(
        &mut self,
        server: &Server,
        asked: Asked<'_>,
        request: RequestInfo,
        decoded: Option<Box<(PaymentPayload, Fingerprint)>>,
        answer: Result<StoreReply, StoreFailure>,
        now: Instant,
    ) {
        let admission = match answer {
            Ok(StoreReply::Admission(admission)) => *admission,
            Ok(_) => {
                // Another operation's answer under this id: a runtime bug. Fail closed.
                let failure = StoreFailure::Unavailable("a mismatched answer".into());
                return self.admission_failed(&request, &failure, now);
            }
            Err(failure) => return self.admission_failed(&request, &failure, now),
        };
        let decoded = match admission {
            Admission::Admitted { tokens } => {
                if tokens > 1 && server.store_is_shared() {
                    // The surplus of a batch drawn from the shared limit: this client's next
                    // requests here spend it without a round trip.
                    let client = self.client;
                    server.shared().leases.keep(client, tokens - 1, now);
                }
                decoded
            }
            Admission::Limited { retry_after } => {
                let message = format!("rate limit exceeded; retry in {retry_after} s");
                let retry = [("Retry-After", retry_after.to_string())];
                self.respond_error_with(&request, &Failure::RateLimited, &message, now, &retry);
                return;
            }
            Admission::Known { key, record, by_id } => {
                let fingerprint = decoded.as_ref().map(|d| d.1);
                if fingerprint == Some(record.fingerprint) {
                    if let PaymentConfig::Ready { terms, .. } = &server.config.payment {
                        self.answer_same_payment(&request, terms, &key, record.stage, now);
                    }
                    return;
                }
                if by_id {
                    let same_payment =
                        fingerprint.is_some_and(|f| f.payment == record.fingerprint.payment);
                    let message = if same_payment {
                        "payment identifier already used with a different request"
                    } else {
                        "payment identifier already used with a different payment"
                    };
                    self.respond_error(&request, &Failure::PaymentIdConflict, message, now);
                    return;
                }
                // Another payload or URL with this authorization: the normal order ends in
                // "payment authorization already used".
                decoded
            }
            Admission::Claimed {
                key,
                record,
                mut kept,
            } => {
                // A `Settling` record whose holder's lease ran out: its `/settle` may have
                // been sent, whatever the record says of the attempts before.
                kept.may_have_broadcast |= matches!(record.stage, Stage::Settling(_));
                if let Some(message) = claim_refused(server) {
                    // A takeover starts nothing while the service drains or its jobs are at
                    // their cap (docs/payments.md): the claim is handed back, unknown again,
                    // for a later retry. A facilitator saw this authorization before, so the
                    // words do not promise that nothing was charged.
                    let (lease, stage) = (self.claim_lease, Stage::Unknown(kept));
                    self.store_write(server, StoreOp::Finish { key, lease, stage });
                    let retry = [("Retry-After", "1".to_string())];
                    self.respond_error_with(&request, &Failure::Overloaded, message, now, &retry);
                    return;
                }
                let claim = (key, record, kept);
                return self.resettle(server, asked, request, decoded, claim, now);
            }
        };
        self.normal_order(server, asked, request, decoded, now);
    }

    /// The normal order after admission: body, URL, configuration, drain, capacity, the 402
    /// or the local payment checks.
    fn normal_order(
        &mut self,
        server: &Server,
        asked: Asked<'_>,
        request: RequestInfo,
        decoded: Option<Box<(PaymentPayload, Fingerprint)>>,
        now: Instant,
    ) {
        macro_rules! fail {
            ($failure:expr, $message:expr) => {{
                self.respond_error(&request, &$failure, &$message.to_string(), now);
                return;
            }};
        }
        let Asked { head, body } = asked;
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
            match server.signed_offers() {
                None => self.send_plain(&server.unpaid_response, &request, now),
                Some(offers) => self.send_plain(&offers.unpaid, &request, now),
            }
            return;
        };
        let PaymentConfig::Ready {
            terms,
            facilitators,
        } = &server.config.payment
        else {
            return;
        };
        // A new payment goes to the first facilitator whose check passed (docs/payments.md,
        // "Several facilitators"); its reservation may find it bound to another one already.
        let facilitator = match facilitators.get(server.chosen_facilitator()) {
            Some(chosen) => chosen.clone(),
            None => return,
        };
        let terms = (**terms).clone();
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
        // worker does them; the job waits in `Checking` and nothing is reserved yet.
        let unix_now = server.unix_time(now).as_secs();
        let work = Work::Payment(Box::new(PaymentWork {
            payment: payment.clone(),
            requirements: terms.requirements.clone(),
            unix_now,
        }));
        let deadline = request.started + JOB_TIMEOUT;
        let mut checking = Checking {
            core: JobCore::new(server, request, (input_url, target), deadline),
            terms,
            facilitator,
            payment,
            payment_id,
            fingerprint,
        };
        self.start_work(&mut checking.core, WorkFor::Payment, work);
        self.keep(Job::Checking(checking));
    }

    /// Answers 503 with `Retry-After` when the shared store failed: nothing was reserved or
    /// verified, nothing is charged (docs/operations.md, "Running several instances").
    pub(super) fn store_failed(
        &mut self,
        request: &RequestInfo,
        failure: &StoreFailure,
        now: Instant,
    ) {
        let retry = [("Retry-After", STORE_RETRY_AFTER.to_string())];
        let message = format!("{failure}; retry shortly, nothing was charged");
        self.respond_error_with(request, &Failure::StoreUnavailable, &message, now, &retry);
    }

    /// Answers 503 with `Retry-After` when the shared store failed to admit a request. When
    /// the admission carried a claim of an earlier record (the request's payment names an
    /// authorization: a kept result whose outcome is unknown may have been claimed before the
    /// answer was lost), the words are "this request changed nothing", not "nothing was
    /// charged" (docs/payments.md, "Words match facts").
    fn admission_failed(&mut self, request: &RequestInfo, failure: &StoreFailure, now: Instant) {
        if self.claim_lease == 0 {
            return self.store_failed(request, failure, now);
        }
        let retry = [("Retry-After", STORE_RETRY_AFTER.to_string())];
        let message = format!(
            "{failure}; retry shortly with the same PAYMENT-SIGNATURE, this request changed nothing"
        );
        self.respond_error_with(request, &Failure::StoreUnavailable, &message, now, &retry);
    }

    /// After a paid request was answered without a job (a refusal after the local checks): a
    /// client that left is closed; otherwise a pipelined request is read.
    pub(super) fn after_early_answer(&mut self, server: &Server, now: Instant) {
        if self.client_gone {
            self.close();
        } else if !self.is_finished() {
            self.advance_inbound(server, now);
        }
    }

    /// Answers a request that carries a payment the store already has, with the same
    /// fingerprint: the kept 200, a 503 while it is in progress (or its settlement outcome is
    /// unknown), or a 402 when it was consumed without a result.
    pub(super) fn answer_same_payment(
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
            Stage::Reserved | Stage::Settling(_) | Stage::Unknown(_) => {
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

    /// What to ask the store about a request's payment ([`Recall`]), and the payment and
    /// fingerprint when they were decoded (so the paid route does not do it twice). Nothing to
    /// recall without a payment, or when the body, the URL or the payment does not parse: the
    /// normal order then gives the usual errors.
    fn recall_query(
        &self,
        server: &Server,
        head: &RequestHead,
        body: &[u8],
    ) -> (Option<Recall>, Option<Box<(PaymentPayload, Fingerprint)>>) {
        let Some(header) = head.header("payment-signature") else {
            return (None, None);
        };
        let PaymentConfig::Ready { terms, .. } = &server.config.payment else {
            return (None, None);
        };
        let Ok(input_url) =
            api::extract_request_url(head.header("content-type"), head.query.as_deref(), body)
        else {
            return (None, None);
        };
        let Ok(payment) = codec::decode::<PaymentPayload>(header) else {
            return (None, None);
        };
        let fingerprint = Fingerprint::of(&payment, &input_url);
        let payment_id = identifier::payment_id(&payment)
            .ok()
            .flatten()
            .map(str::to_string);
        let key = claimed_authorization(&payment)
            .map(|(from, nonce)| authorization_key(terms, from, nonce));
        let recall = (payment_id.is_some() || key.is_some()).then(|| Recall {
            payment_id,
            key,
            fingerprint,
            lease: Lease {
                id: server.new_lease_id(),
                until: server.unix_time(self.last_now).as_secs() + SETTLE_LEASE.as_secs(),
            },
        });
        (recall, Some(Box::new((payment, fingerprint))))
    }

    /// Re-settles a kept result whose settlement outcome was unknown (or whose settling
    /// instance died), claimed for this instance by [`StoreOp::Admit`] (docs/payments.md, x402
    /// `payment-identifier`). No crawl: the kept 200 is settled again.
    fn resettle(
        &mut self,
        server: &Server,
        asked: Asked<'_>,
        request: RequestInfo,
        decoded: Option<Box<(PaymentPayload, Fingerprint)>>,
        claim: (AuthorizationKey, Record, KeptResponse),
        now: Instant,
    ) {
        let (key, record, kept) = claim;
        let Asked { head, body } = asked;
        let PaymentConfig::Ready { terms, .. } = &server.config.payment else {
            return;
        };
        // The settlement goes to the facilitator that first saw the authorization, whichever
        // is healthy now: another one never settles what the first may have broadcast.
        let Some(facilitator) = bound_facilitator(server, &record.facilitator) else {
            let (lease, stage) = (self.claim_lease, Stage::Unknown(kept));
            self.store_write(server, StoreOp::Finish { key, lease, stage });
            let message = "the payment's record names no usable facilitator; retry with the same PAYMENT-SIGNATURE";
            self.respond_error(&request, &Failure::FacilitatorUnavailable, message, now);
            return;
        };
        let input_url =
            api::extract_request_url(head.header("content-type"), head.query.as_deref(), body);
        let target = input_url.as_ref().ok().and_then(|url| {
            PublicUrl::parse(url, &server.config.net_policy)
                .ok()
                .map(|target| (url.clone(), target))
        });
        let (Some(decoded), Some(target)) = (decoded, target) else {
            // The store matched this request's fingerprint, so both parsed before: a bug.
            // The claim's lease runs out and a later retry settles.
            self.respond_error(&request, &Failure::Internal, "internal error", now);
            return;
        };
        let terms = (**terms).clone();
        let settle_by = settle_by(server, now, record.valid_before);
        let paid = Paid {
            terms,
            facilitator,
            payment: decoded.0,
            fingerprint: decoded.1,
            payer: address_hex(&key.from),
            key,
            valid_before: record.valid_before,
            settle_by,
            resettle: true,
            on_chain: None,
            lease: self.claim_lease,
            first_seen_block: record.first_seen_block,
        };
        let core = JobCore::new(server, request, target, now + SETTLE_BUDGET);
        // Only an earlier `/settle` that may have broadcast makes the outcome unknown; after
        // attempts that were never sent, a refusal is a refusal and "already used" is judged.
        let unknown_before = kept.may_have_broadcast;
        self.begin_settlement(server, (core, paid), kept, unknown_before, now);
    }
}

/// The facilitator (with its credentials) an authorization's record is bound to
/// (docs/payments.md, "Several facilitators"): the one it names, or the first configured
/// facilitator for a record that names none (written by a version with a single facilitator).
/// A facilitator no longer configured is still asked, without credentials. `None` when the
/// name does not parse (the caller fails closed: no facilitator call).
pub(super) fn bound_facilitator(server: &Server, recorded: &str) -> Option<Facilitator> {
    let PaymentConfig::Ready { facilitators, .. } = &server.config.payment else {
        return None;
    };
    if recorded.is_empty() {
        return facilitators.first().cloned();
    }
    let url = Url::parse(recorded).ok()?;
    Some(
        facilitators
            .iter()
            .find(|f| f.url == url)
            .cloned()
            .unwrap_or_else(|| Facilitator::keyless(url)),
    )
}

/// Why a claimed settlement may not start now (the drain, or `MAX_CONCURRENT_JOBS`), as the
/// 503's message; `None` when it may.
fn claim_refused(server: &Server) -> Option<&'static str> {
    if server.is_draining() {
        Some("the service is shutting down; retry shortly with the same PAYMENT-SIGNATURE, this request changed nothing")
    } else if server.jobs.in_flight() >= server.config.max_concurrent_jobs {
        Some("too many requests in flight; retry shortly with the same PAYMENT-SIGNATURE")
    } else {
        None
    }
}
