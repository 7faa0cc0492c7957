//! A paid job's reservation: the authorization is written to the payment store
//! ([`StoreOp::Reserve`]) before anything is asked of the facilitator, so two requests with
//! one authorization never both reach `/verify` (docs/payments.md).

use super::admitting::bound_facilitator;
use super::*;

/// A paid job whose reservation the store is writing; it holds the homepage's page memory.
#[derive(Debug)]
pub(super) struct Reserving {
    pub(super) core: JobCore,
    pub(super) paid: Paid,
    pub(super) home_memory: PageMemorySlot,
    /// The local window check refused the authorization as too late (this reason), and the
    /// judge is on: once reserved, the chain is asked instead of `/verify` (docs/payments.md,
    /// "An expired authorization without a record").
    pub(super) late: Option<String>,
}

impl Reserving {
    /// Reserved, bound to `facilitator` (the one that first saw the authorization,
    /// docs/payments.md "Several facilitators"): the job asks its `/verify` next.
    pub(super) fn into_verifying(self, facilitator: Facilitator) -> Verifying {
        let Reserving {
            core,
            mut paid,
            home_memory,
            ..
        } = self;
        paid.facilitator = facilitator;
        Verifying {
            core,
            paid,
            home_memory,
        }
    }
}

impl Exchange {
    /// The store answered [`StoreOp::Reserve`] (or failed): call `/verify`, or answer without
    /// one (nothing consumed).
    pub(super) fn reserved(
        &mut self,
        server: &Server,
        mut reserving: Reserving,
        answer: Result<StoreReply, StoreFailure>,
        now: Instant,
    ) {
        let Reserving { core, paid, .. } = &reserving;
        let request = core.request.clone();
        let reserved = match answer {
            Ok(StoreReply::Reserved(reserved)) => reserved,
            Ok(StoreReply::Exists(record)) => {
                // Possibly the same payment sent twice at once: the other one reserved first
                // (after this one's admission found nothing). The job ends here.
                let Reserving {
                    core,
                    home_memory,
                    paid,
                    ..
                } = reserving;
                drop((core, home_memory));
                if record.fingerprint == paid.fingerprint {
                    self.answer_same_payment(&request, &paid.terms, &paid.key, record.stage, now);
                } else {
                    let reason = "payment authorization already used";
                    self.payment_required(&request, &paid.terms, reason, now);
                }
                return self.after_early_answer(server, now);
            }
            other => {
                let failure = match other {
                    Err(failure) => failure,
                    Ok(_) => StoreFailure::Unavailable("a mismatched answer".into()),
                };
                // The reservation may have landed without its answer: let it go (a lost
                // release leaves a lease that runs out).
                self.release(server, paid);
                drop(reserving);
                self.store_failed(&request, &failure, now);
                return self.after_early_answer(server, now);
            }
        };
        let bound = match reserved {
            Ok(bound) => bound,
            Err(error) => {
                let Reserving {
                    core,
                    home_memory,
                    paid,
                    ..
                } = reserving;
                drop((core, home_memory));
                self.reserve_refused(&request, &paid, error, now);
                return self.after_early_answer(server, now);
            }
        };
        // A reservation taken over keeps the facilitator that first saw the authorization.
        let Some(bound) = bound_facilitator(server, &bound) else {
            self.release(server, &reserving.paid);
            drop(reserving);
            let message =
                "the payment's record names no usable facilitator; this request changed nothing";
            self.respond_error(&request, &Failure::FacilitatorUnavailable, message, now);
            return self.after_early_answer(server, now);
        };
        let late = reserving.late.take();
        let mut verifying = reserving.into_verifying(bound);
        if let Some(reason) = late {
            return self.refused_without_record(server, verifying, reason, now);
        }
        let (core, paid) = (&mut verifying.core, &verifying.paid);
        match self.call_facilitator(server, core, paid, Purpose::Verify, now) {
            Ok(()) => self.keep(Job::Verifying(verifying)),
            Err(failure) => self.after_verify(server, verifying, FetchEnd::Failed(failure), now),
        }
    }

    /// Answers a reservation the store refused: the same payment in flight or kept, an
    /// authorization already used, a payment id taken, or a budget spent (nothing charged).
    fn reserve_refused(
        &mut self,
        request: &RequestInfo,
        paid: &Paid,
        error: ReserveError,
        now: Instant,
    ) {
        match error {
            ReserveError::AlreadyUsed => {
                let reason = "payment authorization already used";
                self.payment_required(request, &paid.terms, reason, now);
            }
            ReserveError::IdInUse => {
                let message = "payment identifier already used with a different payment";
                self.respond_error(request, &Failure::PaymentIdConflict, message, now);
            }
            ReserveError::Full { retry_after } => {
                let retry = [("Retry-After", retry_after.to_string())];
                let message = "too many payments held; retry later, nothing was charged";
                self.respond_error_with(request, &Failure::Overloaded, message, now, &retry);
            }
            ReserveError::PayerBusy { retry_after } => {
                let retry = [("Retry-After", retry_after.to_string())];
                let message = "too many unfinished payments from this payer; retry later, nothing was charged";
                self.respond_error_with(request, &Failure::Overloaded, message, now, &retry);
            }
        }
    }
}
