//! The first phase of a paid job: the payment's local checks (docs/contract.md "Request
//! order" step 6: EIP-712 digest, ECDSA recovery, amount, `payTo`, the window) run on a
//! worker. Nothing is reserved yet: a refusal is a 402, and the authorization stays usable.

use super::settling::{authorization_key, settle_by};
use super::*;
use crate::payment::verify::expired_authorization;

/// A paid request whose payment a worker is checking ([`WorkFor::Payment`]).
#[derive(Debug)]
pub(super) struct Checking {
    pub(super) core: JobCore,
    pub(super) terms: PaymentTerms,
    pub(super) facilitator: Facilitator,
    pub(super) payment: PaymentPayload,
    pub(super) payment_id: Option<String>,
    pub(super) fingerprint: Fingerprint,
}

impl Checking {
    /// The checks passed: the job reserves the authorization next, holding the homepage's
    /// share of the page memory budget. Returns the phase and the store operation it waits
    /// for. The crawl's deadline leaves the build and the whole settlement budget their time
    /// before `validBefore` − [`SETTLE_MARGIN`] (docs/payments.md, "The window").
    pub(super) fn into_reserving(
        self,
        server: &Server,
        verified: &VerifiedPayment,
        home_memory: PageMemorySlot,
        late: Option<String>,
        now: Instant,
    ) -> (Reserving, StoreOp) {
        let Checking {
            mut core,
            terms,
            facilitator,
            payment,
            payment_id,
            fingerprint,
        } = self;
        let unix_now = server.unix_time(now).as_secs();
        let key = authorization_key(&terms, verified.payer, verified.nonce);
        let lease = server.new_lease_id();
        let settle_by = settle_by(server, now, verified.valid_before);
        let crawl_by = settle_by
            .checked_sub(SETTLE_BUDGET + MIN_BUILD_TIME)
            .unwrap_or(now);
        core.deadline = if late.is_some() {
            // No `/settle` follows (the chain judges, and a payment it shows needs none).
            core.request.started + JOB_TIMEOUT
        } else {
            (core.request.started + JOB_TIMEOUT).min(crawl_by)
        };
        let first_seen_block = server.first_seen_block(unix_now);
        let reserve = StoreOp::Reserve {
            key: key.clone(),
            fingerprint,
            payment_id,
            facilitator: facilitator.url.to_string(),
            valid_before: verified.valid_before,
            lease: Lease {
                id: lease,
                until: unix_now + RESERVE_LEASE.as_secs(),
            },
            unix_now,
            first_seen_block,
        };
        let paid = Paid {
            terms,
            facilitator,
            payment,
            fingerprint,
            key,
            payer: address_hex(&verified.payer),
            valid_before: verified.valid_before,
            settle_by,
            resettle: false,
            on_chain: None,
            lease,
            first_seen_block,
        };
        let reserving = Reserving {
            core,
            paid,
            home_memory,
            late,
        };
        (reserving, reserve)
    }
}

impl Exchange {
    /// The local payment checks are done (docs/contract.md "Request order" step 6): refuse
    /// (402), or reserve the authorization and call `/verify`.
    pub(super) fn payment_checked(
        &mut self,
        server: &Server,
        checking: Checking,
        checked: Result<Box<VerifiedPayment>, PaymentError>,
        now: Instant,
    ) {
        let mut late = None;
        let verified = match checked {
            Ok(verified) => verified,
            Err(PaymentError::Expired) if server.config.chain_rpc.is_some() => {
                // Genuine, but too late for a job of its own: a retry whose record was lost
                // may have paid already. The chain is asked before a 402 (docs/payments.md,
                // "An expired authorization without a record"); the reservation comes first,
                // so two such retries never both ask or crawl.
                match expired_authorization(&checking.payment) {
                    Some(verified) => {
                        self.verdict = Some(PaymentVerdict::ExpiredWithoutRecord);
                        late = Some(PaymentError::Expired.reason());
                        Box::new(verified)
                    }
                    None => {
                        return self.refuse_checked(server, checking, &PaymentError::Expired, now)
                    }
                }
            }
            Err(error) => return self.refuse_checked(server, checking, &error, now),
        };
        // The homepage's share of the page memory budget, before anything is reserved or
        // verified: without one the request is shed, nothing consumed.
        let Some(home_memory) = server.page_memory.try_acquire() else {
            let request = checking.core.request.clone();
            drop(checking);
            let retry = [("Retry-After", "1".to_string())];
            let message = "too many pages in memory; retry shortly, nothing was charged";
            self.respond_error_with(&request, &Failure::Overloaded, message, now, &retry);
            return self.after_early_answer(server, now);
        };
        let (reserving, reserve) =
            checking.into_reserving(server, &verified, home_memory, late, now);
        match self.store_call(server, reserve) {
            Ok(reply) => self.reserved(server, reserving, Ok(reply), now),
            Err(id) => self.keep(Job::Reserving(reserving, StoreWait::new(id, now))),
        }
    }

    /// The local checks refused the payment: 402 with the reason, nothing reserved.
    fn refuse_checked(
        &mut self,
        server: &Server,
        checking: Checking,
        error: &PaymentError,
        now: Instant,
    ) {
        let Checking { core, terms, .. } = checking;
        let request = core.request.clone();
        // The job is over (its slot is free); the connection answers or goes on.
        drop(core);
        self.verdict = Some(PaymentVerdict::Refused);
        self.payment_required(&request, &terms, &error.reason(), now);
        self.after_early_answer(server, now);
    }

    /// A payment check answered with the wrong kind of work (a runtime bug): nothing was
    /// reserved, the request fails.
    pub(super) fn check_failed(&mut self, server: &Server, checking: Checking, now: Instant) {
        let core = checking.core;
        self.end_job_with_error(
            server,
            (core, None),
            &Failure::Internal,
            "internal error",
            now,
        );
    }

    /// The deadline passed while the payment was being checked: nothing was reserved, so a
    /// busy worker pool only costs a retry.
    pub(super) fn checking_deadline(&mut self, server: &Server, checking: Checking, now: Instant) {
        let message =
            "the payment could not be checked in time; retry shortly, nothing was charged";
        let core = checking.core;
        self.end_job_with_error(server, (core, None), &Failure::Overloaded, message, now);
    }
}
