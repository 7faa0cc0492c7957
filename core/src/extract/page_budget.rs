//! What reading one page's content may cost, in one place (docs/security.md, "Reading a
//! page"): every reader that copies or expands what a page holds — framework state
//! (`state.rs`), the JavaScript literals in it (`js_literal.rs`), JSON-LD (`jsonld.rs`) — is
//! handed the page's [`PageBudget`] and charges it the bytes it copies ([`PageBudget::copy`])
//! and the work it does ([`PageBudget::work`], which also reports the work to the pacer,
//! `crate::pace`). A reader whose charge is refused leaves the copy out, or ends its loop, and
//! returns what it has: the rest of the page is still read.
//!
//! The budget is a small multiple of the page's bytes with an absolute ceiling, so a crafted
//! page (a string passed once and used half a million times, a key shared by every member of
//! a devalue array) costs at most a few times what an ordinary page of its size costs, never
//! gigabytes or minutes.

use std::cell::Cell;

use crate::pace;

/// Bytes the readers may copy per byte of page.
pub const COPY_BYTES_PER_PAGE_BYTE: usize = 8;
/// Bytes the readers may copy on any page, however small (1 MiB).
pub const COPY_BYTES_BASE: usize = 1 << 20;
/// Most bytes the readers may copy on one page, however large (32 MiB; a page at the 2 MiB cap
/// gets 17 MiB).
pub const COPY_BYTES_CEILING: usize = 32 << 20;
/// What one value a reader builds (a JSON value: an object, array, string, number…) is charged
/// besides its text: the size of `serde_json::Value`, 32 bytes on 64-bit targets.
pub const VALUE_BYTES: usize = std::mem::size_of::<serde_json::Value>();
/// Units of work (`crate::pace::work`: about one per byte examined or value visited) the
/// readers may do per byte of page.
pub const WORK_PER_PAGE_BYTE: usize = 16;
/// Units of work the readers may do on any page, however small.
pub const WORK_BASE: usize = 1 << 20;
/// Most units of work the readers may do on one page (64 Mi units; a page at the 2 MiB cap
/// gets 33 Mi).
pub const WORK_CEILING: usize = 64 << 20;

/// One page's budget for its content readers: bytes they may still copy and units of work
/// they may still do. Shared by reference (`&PageBudget`) among the readers of one page, on
/// one thread.
#[derive(Debug)]
pub struct PageBudget {
    copy: Cell<usize>,
    work: Cell<usize>,
}

impl PageBudget {
    /// The budget of a page of `page_bytes` bytes (its body as fetched, decompressed):
    /// `min(8 × page_bytes + 1 MiB, 32 MiB)` bytes of copies and
    /// `min(16 × page_bytes + 1 Mi, 64 Mi)` units of work.
    pub fn for_page(page_bytes: usize) -> Self {
        let scaled = |per: usize, base: usize, ceiling: usize| {
            page_bytes
                .saturating_mul(per)
                .saturating_add(base)
                .min(ceiling)
        };
        PageBudget {
            copy: Cell::new(scaled(
                COPY_BYTES_PER_PAGE_BYTE,
                COPY_BYTES_BASE,
                COPY_BYTES_CEILING,
            )),
            work: Cell::new(scaled(WORK_PER_PAGE_BYTE, WORK_BASE, WORK_CEILING)),
        }
    }

    /// Charges a copy of `bytes` bytes (text copied or rebuilt, counted by its length in bytes)
    /// and returns whether it may be made; when it may not, nothing is charged and the reader
    /// leaves that copy out (a smaller one later may still fit).
    pub fn copy(&self, bytes: usize) -> bool {
        let left = self.copy.get();
        if bytes > left || self.work.get() == 0 {
            return false;
        }
        self.copy.set(left - bytes);
        true
    }

    /// Charges `units` of work, reports them to the pacer (`crate::pace::work`) and returns
    /// whether to go on: `false` once the page's work is spent (and at every later call) or
    /// the pacer stopped the work; the reader then ends its loop and returns what it has.
    #[track_caller]
    #[inline]
    pub fn work(&self, units: usize) -> bool {
        let left = self.work.get();
        if units > left || left == 0 {
            self.work.set(0);
            return false;
        }
        self.work.set(left - units);
        pace::work(units)
    }

    /// Whether the work is spent (every later [`PageBudget::work`] and
    /// [`PageBudget::copy`] is refused).
    pub fn spent(&self) -> bool {
        self.work.get() == 0
    }

    /// Bytes of copies left.
    pub fn copy_left(&self) -> usize {
        self.copy.get()
    }

    /// Units of work left.
    pub fn work_left(&self) -> usize {
        self.work.get()
    }
}

/// Bytes of the keys and strings `value` holds (what the readers' tests compare with a budget).
#[cfg(test)]
pub(crate) fn string_bytes(value: &serde_json::Value) -> usize {
    use serde_json::Value;
    match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(string_bytes).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| k.len() + string_bytes(v)).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_scales_with_the_page_up_to_its_ceiling() {
        let small = PageBudget::for_page(1_000);
        assert_eq!(small.copy_left(), 8_000 + (1 << 20));
        assert_eq!(small.work_left(), 16_000 + (1 << 20));
        let capped = PageBudget::for_page(2 << 20);
        assert_eq!(capped.copy_left(), 17 << 20);
        assert_eq!(capped.work_left(), 33 << 20);
        let huge = PageBudget::for_page(usize::MAX);
        assert_eq!(huge.copy_left(), COPY_BYTES_CEILING);
        assert_eq!(huge.work_left(), WORK_CEILING);
    }

    #[test]
    fn a_refused_copy_takes_nothing_and_spent_work_refuses_everything() {
        let budget = PageBudget::for_page(0);
        assert!(!budget.copy(COPY_BYTES_BASE + 1));
        assert!(budget.copy(COPY_BYTES_BASE));
        assert!(!budget.copy(1));
        let budget = PageBudget::for_page(0);
        assert!(budget.work(WORK_BASE - 1));
        assert!(!budget.spent());
        assert!(!budget.work(2));
        assert!(budget.spent());
        assert!(!budget.work(0));
        assert!(!budget.copy(1));
    }
}
