//! The exchange's side of the shared state ([`crate::store`]): asking for a store operation
//! (applied at once in the process, or an `Output::Store` to wait for) and writing an outcome
//! without waiting. The states and phases that wait for an answer hold its [`StoreWait`];
//! `mod.rs` routes the answer — or its absence at [`STORE_TIMEOUT`] — to them.

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
}
