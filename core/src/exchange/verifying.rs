//! A paid job asks the facilitator's `/verify` (docs/contract.md "Request order" step 7). A
//! valid answer consumes the authorization for good (docs/payments.md, "One authorization
//! buys one job"): the crawl starts. "Already used", or a refusal, is judged by the chain when
//! the store held no record of it ([`Judging`]); no usable answer (a timeout, garbage, a 5xx)
//! is not a refusal: the reservation is released and a retry is verified again
//! (docs/payments.md, "No answer is not a refusal").

use super::*;

/// A paid job waiting for `/verify` ([`Purpose::Verify`]); it holds the homepage's page
/// memory.
#[derive(Debug)]
pub(super) struct Verifying {
    pub(super) core: JobCore,
    pub(super) paid: Paid,
    pub(super) home_memory: PageMemorySlot,
}

impl Verifying {
    /// `/verify` said valid: the crawl starts, in the homepage's page memory.
    pub(super) fn into_crawling(self) -> Crawling {
        let Verifying {
            core,
            paid,
            home_memory,
        } = self;
        Crawling {
            core,
            paid,
            crawl: Crawl::new(home_memory),
        }
    }
}

impl Exchange {
    /// `/verify` answered (or not): crawl, judge, refuse, or fail.
    pub(super) fn after_verify(
        &mut self,
        server: &Server,
        verifying: Verifying,
        end: FetchEnd,
        now: Instant,
    ) {
        let reply = match end {
            FetchEnd::Response(response, _) if probe::refuses_credentials(response.status) => {
                // The facilitator refused the service's credentials and looked at nothing: no
                // money can move, the authorization stays usable (docs/payments.md,
                // "Authenticated facilitators").
                self.verdict = Some(PaymentVerdict::CredentialsRefused);
                let Verifying { core, paid, .. } = verifying;
                self.release(server, &paid);
                let message = format!(
                    "the payment facilitator refuses this service's credentials ({}); this request changed nothing, retry later with the same PAYMENT-SIGNATURE",
                    response.status
                );
                let failure = Failure::FacilitatorUnavailable;
                return self.end_job_with_error(
                    server,
                    (core, Some(&paid)),
                    &failure,
                    &message,
                    now,
                );
            }
            FetchEnd::Response(response, _) => facilitator::parse_verify(&response.body),
            FetchEnd::Failed(_) => Reply::Garbage,
        };
        match reply {
            Reply::Answer(answer) if answer.is_valid => {
                // Consumed for good from here on, whatever happens next (Money safety).
                self.verdict = Some(PaymentVerdict::Verified);
                self.begin_crawl(server, verifying.into_crawling(), now);
            }
            Reply::Answer(answer) if facilitator::verify_reports_already_used(&answer) => {
                // Used on chain, and the store held no record of it (this request's
                // reservation was new): the money may have come to us (docs/payments.md).
                self.verdict = Some(PaymentVerdict::UsedWithoutRecord);
                self.used_without_record(server, verifying, now);
            }
            Reply::Answer(answer) => {
                self.verdict = Some(PaymentVerdict::Refused);
                let reason = answer
                    .invalid_reason
                    .unwrap_or_else(|| "payment verification failed".to_string());
                self.refused_without_record(server, verifying, reason, now);
            }
            Reply::Garbage => {
                // No answer: nothing was refused, nothing can have moved (docs/payments.md,
                // "No answer is not a refusal").
                self.verdict = Some(PaymentVerdict::FacilitatorUnavailable);
                self.verify_failed(
                    server,
                    verifying,
                    "the payment facilitator is unavailable; this request changed nothing",
                    now,
                );
            }
        }
    }

    /// The deadline passed before `/verify` answered: no answer, the reservation is released.
    pub(super) fn verifying_deadline(
        &mut self,
        server: &Server,
        mut verifying: Verifying,
        now: Instant,
    ) {
        verifying
            .core
            .note_timeout(|p| matches!(p, Purpose::Verify));
        self.close_fetches(&mut verifying.core);
        let message =
            "the payment facilitator did not answer in time; this request changed nothing";
        self.verify_failed(server, verifying, message, now);
    }

    /// No usable `/verify` answer: the reservation is released (never `Spent`: a retry with
    /// the same `PAYMENT-SIGNATURE` is verified again), the answer is 503.
    fn verify_failed(
        &mut self,
        server: &Server,
        verifying: Verifying,
        message: &str,
        now: Instant,
    ) {
        let Verifying { core, paid, .. } = verifying;
        self.release(server, &paid);
        let failure = Failure::FacilitatorUnavailable;
        self.end_job_with_error(server, (core, Some(&paid)), &failure, message, now);
    }
}
