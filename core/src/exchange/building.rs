//! A paid job builds its 200 (merge and serialisation, on a worker) before any `/settle`:
//! nothing may fail after the money moves (docs/payments.md).

use super::*;

/// A paid job whose result a worker is building ([`WorkFor::Result`]).
#[derive(Debug)]
pub(super) struct Building {
    pub(super) core: JobCore,
    pub(super) paid: Paid,
}

impl Exchange {
    /// The result is built (or the build failed): settle it — or, paid on chain already,
    /// deliver it.
    pub(super) fn result_built(
        &mut self,
        server: &Server,
        building: Building,
        built: Result<Box<BuiltResult>, Failure>,
        now: Instant,
    ) {
        let Building { core, paid } = building;
        let Ok(built) = built else {
            let message =
                "an internal error occurred while building the result; this request changed nothing";
            self.spend(server, &paid);
            let failure = Failure::Internal;
            return self.end_job_with_error(server, (core, Some(&paid)), &failure, message, now);
        };
        let kept = KeptResponse {
            body: Arc::from(built.body),
            request_id: core.request.id.clone(),
            settlement: None,
            may_have_broadcast: false,
        };
        self.begin_settlement(server, (core, paid), kept, false, now);
    }

    /// The build did not end by the deadline: the job fails, not charged.
    pub(super) fn building_deadline(&mut self, server: &Server, building: Building, now: Instant) {
        let Building { mut core, paid } = building;
        self.close_fetches(&mut core);
        self.spend(server, &paid);
        let message = "the result could not be built in time; this request changed nothing";
        let failure = Failure::Internal;
        self.end_job_with_error(server, (core, Some(&paid)), &failure, message, now);
    }
}
