//! The memory budget for page bytes (`MAX_PAGE_MEMORY`, default 512 MiB): without
//! it, 256 jobs × 4 pages × (2 MiB received + 2 MiB decompressed) could hold 4 GiB at once.
//!
//! Each page holds a [`PageMemorySlot`] of [`PAGE_RESERVATION`] bytes — its worst case: the
//! body as received and the body decompressed, each capped at
//! [`crate::fetch::MAX_PAGE_BYTES`] — from before its fetch starts until its extraction is
//! done. A paid request reserves its homepage's share before its payment is verified: without
//! one it is shed (503 + `Retry-After`), nothing consumed. An extra page waits for its share
//! within its own deadline, and is left out when the deadline passes. The budget is never
//! exceeded, so the page bytes held at once are at most `MAX_PAGE_MEMORY`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::fetch::MAX_PAGE_BYTES;

/// Bytes one page may hold at once: received body + decompressed body, each at the cap.
pub const PAGE_RESERVATION: usize = 2 * MAX_PAGE_BYTES;

/// The shared budget. Cheap to clone.
#[derive(Debug, Clone)]
pub struct PageMemory {
    used: Arc<AtomicUsize>,
    limit: usize,
}

/// One page's share of the budget, given back when dropped.
#[derive(Debug)]
pub struct PageMemorySlot {
    used: Arc<AtomicUsize>,
}

impl PageMemory {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Self {
        PageMemory {
            used: Arc::new(AtomicUsize::new(0)),
            limit,
        }
    }

    /// One page's share, or `None` when the budget cannot cover it now.
    pub fn try_acquire(&self) -> Option<PageMemorySlot> {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(PAGE_RESERVATION)
                    .filter(|total| *total <= self.limit)
            })
            .ok()
            .map(|_| PageMemorySlot {
                used: Arc::clone(&self.used),
            })
    }

    /// Bytes reserved now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }

    /// Whether one more page could be admitted now.
    pub fn exhausted(&self) -> bool {
        self.used() + PAGE_RESERVATION > self.limit
    }
}

impl Drop for PageMemorySlot {
    fn drop(&mut self) {
        self.used.fetch_sub(PAGE_RESERVATION, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_never_exceeded_and_slots_give_back_their_share() {
        let memory = PageMemory::new(2 * PAGE_RESERVATION + 1);
        let a = memory.try_acquire().unwrap();
        let b = memory.try_acquire().unwrap();
        assert!(memory.try_acquire().is_none());
        assert!(memory.exhausted());
        drop(a);
        assert_eq!(memory.used(), PAGE_RESERVATION);
        let _c = memory.try_acquire().unwrap();
        drop(b);
        assert!(!memory.exhausted());
    }
}
