//! The exchange's side of the shared state ([`crate::store`]): asking for a store operation
//! (applied at once in the process, or an `Output::Store` to wait for), writing an outcome
//! without waiting, and routing an answer — or its absence at [`STORE_TIMEOUT`] — to the step
//! that waits for it.

use super::*;

impl Exchange {
    /// Asks for `op`: with the in-process store, its answer at once (`Ok`); with a shared
    /// store, the id of the `Output::Store` emitted (`Err`): the caller waits for
    /// `Input::Stored` with that id.
    pub(super) fn store_call(
        &mut self,
        server: &Server,
        op: StoreOp,
    ) -> Result<StoreReply, StoreId> {
        if !server.store_is_shared() {
            return Ok(server.shared().store.apply(op));
        }
        let id = StoreId(self.next_store);
        self.next_store += 1;
        self.outputs.push_back(Output::Store { id, op });
        Err(id)
    }

    /// Writes `op` (a `Release`, or a `Finish` that is not a settlement) without waiting for
    /// its answer.
    pub(super) fn store_write(&mut self, server: &Server, op: StoreOp) {
        let _ = self.store_call(server, op);
    }

    /// Asks for `op` on behalf of `job` (in [`Phase::Reserve`], or [`Phase::Settle`] for a
    /// `BeginSettle`): continues at once with the in-process store; with a shared one, the job
    /// waits (its other deadlines still run).
    pub(super) fn wait_for_store(
        &mut self,
        server: &Server,
        mut job: Box<Job>,
        op: StoreOp,
        now: Instant,
    ) {
        match self.store_call(server, op) {
            Ok(reply) => self.store_answered(server, job, Ok(reply), now),
            Err(id) => {
                job.store_wait = Some((id, now + STORE_TIMEOUT));
                self.state = State::Job(job);
            }
        }
    }

    /// An answer (or, at its deadline, the lack of one) to store operation `id`. An answer
    /// nothing waits for any more (it came after its deadline) is dropped.
    pub(super) fn on_stored(
        &mut self,
        server: &Server,
        id: StoreId,
        result: Result<StoreReply, StoreFailure>,
        now: Instant,
    ) {
        match &self.state {
            State::Admitting(admitting) if admitting.id == id => {
                let State::Admitting(admitting) = std::mem::replace(
                    &mut self.state,
                    State::Idle {
                        deadline: now + HEAD_TIMEOUT,
                    },
                ) else {
                    return;
                };
                let Admitting {
                    head,
                    body,
                    request,
                    decoded,
                    ..
                } = *admitting;
                let asked = Asked {
                    head: &head,
                    body: &body,
                };
                self.admitted(server, asked, request, decoded, result, now);
                if matches!(self.state, State::Idle { .. }) {
                    self.after_early_answer(server, now);
                }
            }
            State::Job(job) if job.store_wait.is_some_and(|(waited, _)| waited == id) => {
                let Some(mut job) = self.take_job() else {
                    return;
                };
                job.store_wait = None;
                self.store_answered(server, job, result, now);
            }
            _ => {}
        }
    }

    /// Routes a job's store answer by the step it was in.
    fn store_answered(
        &mut self,
        server: &Server,
        job: Box<Job>,
        result: Result<StoreReply, StoreFailure>,
        now: Instant,
    ) {
        match job.phase {
            Phase::Reserve => self.reserved(server, job, result, now),
            Phase::Record => self.delivered(server, job, now),
            _ => self.settle_begun(server, job, result, now),
        }
    }

    /// Writes a job's outcome to its payment record, without waiting (no-op for an unpaid
    /// crawl). The store keeps only what its rules allow ([`crate::payment::store::PaymentStore::finish`]).
    pub(super) fn record(&mut self, server: &Server, job: &Job, stage: Stage) {
        if let Some(paid) = &job.paid {
            let op = StoreOp::Finish {
                key: paid.key.clone(),
                lease: paid.lease,
                stage,
            };
            self.store_write(server, op);
        }
    }

    /// Lets the job's reservation go (its lease's), without waiting: the authorization is
    /// judged again on a retry (a lost release leaves a lease that runs out).
    pub(super) fn release(&mut self, server: &Server, job: &Job) {
        if let Some(paid) = &job.paid {
            let (key, lease) = (paid.key.clone(), paid.lease);
            self.store_write(server, StoreOp::Release { key, lease });
        }
    }

    /// A failure after `/verify` said valid: the authorization is consumed, without a result.
    /// A retry's failure keeps its result instead (the money may have moved).
    pub(super) fn spend(&mut self, server: &Server, job: &Job) {
        match (&job.paid, &job.settlement) {
            (Some(paid), _) if paid.on_chain.is_some() => {
                // Paid before, on chain, for one result this job failed to give: the retry is
                // judged again and runs again, never answered "already used".
                self.release(server, job);
            }
            (Some(paid), Some(settlement)) if paid.resettle => {
                self.record(server, job, Stage::Unknown(settlement.kept.clone()));
            }
            _ => self.record(server, job, Stage::Spent),
        }
    }
}
