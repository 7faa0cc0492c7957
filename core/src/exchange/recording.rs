//! The last phase of a paid job: the settled outcome is written to the payment store
//! ([`Stage::Settled`]) before the 200 goes out, so a retry through any instance finds it
//! settled (docs/payments.md).

use super::*;

/// A settled paid job whose outcome the store is recording.
#[derive(Debug)]
pub(super) struct Recording {
    pub(super) core: JobCore,
    pub(super) paid: Paid,
    pub(super) settlement: Settlement,
}

impl Exchange {
    /// The settled outcome is recorded (or the store did not answer in time: the money moved,
    /// so the 200 goes out all the same): send it.
    pub(super) fn delivered(&mut self, server: &Server, recording: Recording, now: Instant) {
        let Recording {
            mut core,
            paid,
            settlement,
        } = recording;
        let transaction = settlement
            .kept
            .settlement
            .as_ref()
            .map(|answer| answer.transaction.clone());
        let response = paid_response(&settlement.kept);
        core.request.id.clone_from(&settlement.kept.request_id);
        let payer = Some(paid.payer.clone());
        self.finish_job(server, core, payer, response, None, transaction, now);
    }
}
