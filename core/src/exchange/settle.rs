//! The settlement (decisions.md "Money safety"): its own budget, one retry after an unknown
//! outcome, the kept result, 503 "settlement pending", and the audit line of every attempt.

use super::*;

impl Exchange {
    /// Starts the settlement of `kept` with its own budget (decisions.md "Money safety").
    pub(super) fn begin_settlement(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        kept: KeptResponse,
        unknown_before: bool,
        now: Instant,
    ) {
        job.phase = Phase::Settle;
        job.deadline = now + SETTLE_BUDGET;
        job.settlement = Some(Settlement {
            kept,
            attempts: 0,
            retry_at: None,
            unknown_before,
        });
        self.state = State::Job(job);
        self.retry_settle(server, now);
    }

    /// Sends one `/settle` for the job in [`Phase::Settle`].
    pub(super) fn retry_settle(&mut self, server: &Server, now: Instant) {
        let State::Job(job) = &mut self.state else {
            return;
        };
        let (Some(paid), Some(settlement)) = (&job.paid, &mut job.settlement) else {
            return;
        };
        settlement.attempts += 1;
        let settle_url = endpoint(&paid.facilitator, "settle");
        let Some(mut job) = self.take_job() else {
            return;
        };
        match self.start_fetch(server, &mut job, Purpose::Settle, settle_url, now) {
            Ok(()) => self.state = State::Job(job),
            Err(failure) => self.after_settle(server, job, FetchEnd::Failed(failure), now),
        }
    }

    pub(super) fn after_settle(
        &mut self,
        server: &Server,
        job: Box<Job>,
        end: FetchEnd,
        now: Instant,
    ) {
        let reply = match end {
            FetchEnd::Response(response, _) => Some(facilitator::parse_settle(&response.body)),
            FetchEnd::Failed(_) => None,
        };
        self.settlement_outcome(server, job, SettleOutcome::of(reply), now);
    }

    /// Acts on one `/settle` outcome: deliver and keep (settled), refuse (402), retry once
    /// after 2 s inside the budget, or answer 503 "settlement pending" with the result kept.
    pub(super) fn settlement_outcome(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        outcome: SettleOutcome,
        now: Instant,
    ) {
        let (Some(mut settlement), Some(paid)) = (job.settlement.take(), &job.paid) else {
            // Only a paid job settles (a bug otherwise): end it rather than hang.
            self.end_job_with_error(server, job, &Failure::Internal, "internal error", now);
            return;
        };
        let resettle = paid.resettle;
        // After an unknown outcome, "already used" means our own transfer went through.
        let outcome = match outcome {
            SettleOutcome::Refused(answer)
                if settlement.unknown_before && reports_already_used(&answer) =>
            {
                SettleOutcome::Settled(confirmed_by_use(&answer, &settlement.kept))
            }
            other => other,
        };
        self.audit(&job, &outcome, settlement.attempts);
        match outcome {
            SettleOutcome::Settled(answer) => {
                let transaction = answer.transaction.clone();
                settlement.kept.settlement = Some(answer);
                job.record(server, Stage::Settled(settlement.kept.clone()));
                let response = paid_response(&settlement.kept);
                job.request.id.clone_from(&settlement.kept.request_id);
                self.finish_job(server, job, response, None, Some(transaction), now);
            }
            SettleOutcome::Refused(answer) if !resettle => {
                job.record(server, Stage::Spent);
                self.end_job_with_402(server, job, "settlement failed", Some(answer), now);
            }
            SettleOutcome::Refused(answer) | SettleOutcome::Unknown(Some(answer)) => {
                if !answer.transaction.is_empty() || settlement.kept.settlement.is_none() {
                    settlement.kept.settlement = Some(answer);
                }
                self.settlement_unknown(server, job, settlement, now);
            }
            SettleOutcome::Unknown(None) => self.settlement_unknown(server, job, settlement, now),
        }
    }

    /// An unknown settlement outcome: one more `/settle` after 2 s if the budget allows,
    /// else 503 "settlement pending" with the result kept for a retry.
    pub(super) fn settlement_unknown(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        mut settlement: Settlement,
        now: Instant,
    ) {
        settlement.unknown_before = true;
        let retry_at = now + SETTLE_RETRY_DELAY;
        if settlement.attempts < 2 && retry_at < job.deadline {
            settlement.retry_at = Some(retry_at);
            job.settlement = Some(settlement);
            self.state = State::Job(job);
            return;
        }
        self.close_fetches(&mut job);
        job.record(server, Stage::Unknown(settlement.kept.clone()));
        let error = ApiError::new(
            ErrorCode::InternalError,
            SETTLEMENT_PENDING_MESSAGE,
            job.request.id.clone(),
        );
        let mut response = json_response(503, &error)
            .with_header("Retry-After", SETTLEMENT_PENDING_RETRY_AFTER.to_string());
        if let Some(answer) = &settlement.kept.settlement {
            response = response.with_header("PAYMENT-RESPONSE", codec::encode(answer));
        }
        let transaction = settlement
            .kept
            .settlement
            .as_ref()
            .map(|answer| answer.transaction.clone())
            .filter(|tx| !tx.is_empty());
        self.finish_job(
            server,
            job,
            response,
            Some(ErrorCode::InternalError),
            transaction,
            now,
        );
    }

    /// The audit line of one `/settle` attempt.
    pub(super) fn audit(&mut self, job: &Job, outcome: &SettleOutcome, attempt: u8) {
        let Some(paid) = &job.paid else { return };
        let answer = match outcome {
            SettleOutcome::Settled(answer) | SettleOutcome::Refused(answer) => Some(answer),
            SettleOutcome::Unknown(answer) => answer.as_ref(),
        };
        self.outputs.push_back(Output::Settlement(SettlementEvent {
            request_id: job.request.id.clone(),
            payer: paid.payer.clone(),
            nonce: format!("0x{}", hex(&paid.key.nonce)),
            outcome: outcome.word(),
            reason: answer.and_then(|a| a.error_reason.clone()),
            transaction: answer
                .map(|a| a.transaction.clone())
                .filter(|tx| !tx.is_empty()),
            attempt,
            client_gone: self.client_gone,
        }));
    }
}

/// The `PAYMENT-RESPONSE` of a settlement the facilitator confirmed by reporting the
/// authorization as used after an unknown outcome: success, with the transaction the
/// facilitator gave for it earlier (the pending answer) when there was one.
pub(super) fn confirmed_by_use(answer: &SettleResponse, kept: &KeptResponse) -> SettleResponse {
    let earlier = kept.settlement.as_ref();
    SettleResponse {
        success: true,
        error_reason: None,
        error_message: None,
        payer: answer
            .payer
            .clone()
            .or_else(|| earlier.and_then(|e| e.payer.clone())),
        transaction: earlier
            .map(|e| e.transaction.clone())
            .filter(|tx| !tx.is_empty())
            .unwrap_or_else(|| answer.transaction.clone()),
        network: if answer.network.is_empty() {
            earlier.map(|e| e.network.clone()).unwrap_or_default()
        } else {
            answer.network.clone()
        },
    }
}

/// The payment store key of an authorization under our terms.
pub(super) fn authorization_key(
    terms: &PaymentTerms,
    from: [u8; 20],
    nonce: [u8; 32],
) -> AuthorizationKey {
    AuthorizationKey {
        network: terms.requirements.network.clone(),
        asset: terms.requirements.asset.to_ascii_lowercase(),
        from,
        nonce,
    }
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
