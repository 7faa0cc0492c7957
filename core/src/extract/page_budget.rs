//! What reading one page's content may cost, in one place (docs/security.md, "Reading a
//! page"): every reader of what a page holds — the document walk that builds its text, links,
//! metas and microdata values (`html.rs`), framework state (`state.rs`), the JavaScript
//! literals in it (`js_literal.rs`), JSON-LD (`jsonld.rs`), and the readers of the text and
//! links (`address.rs`, `phones.rs`, `emails.rs`, the links and social profiles in `mod.rs`)
//! — is handed the page's [`PageBudget`] and charges it the bytes it copies
//! ([`PageBudget::copy`]) and the work it does ([`PageBudget::work`], which also reports the
//! work to the pacer, `crate::pace`). A reader whose charge is refused leaves the copy out, or
//! ends its loop, and returns what it has. The readers whose cost the page's bytes do not
//! bound (framework state and JSON-LD rebuild and expand) run holding back half of what is
//! left ([`PageBudget::holding_back_half`]), so the text's contacts are still read after them.
//!
//! The budget is a small multiple of the page's bytes with an absolute ceiling, so a crafted
//! page (a string passed once and used half a million times, a key shared by every member of
//! a devalue array, a `mailto:` link with 100 000 recipients) costs at most a few times what
//! an ordinary page of its size costs, never gigabytes or minutes.

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
/// Units of work (`crate::pace::work`: about one per byte examined or value visited, more for
/// a costlier step: 256 per `@` read, 1 024 per phone candidate, 2 048 per line the address
/// patterns run on) the readers may do per byte of page: a page dense with contacts (a staff
/// list, a store locator) needs tens per byte.
pub const WORK_PER_PAGE_BYTE: usize = 48;
/// Units of work the readers may do on any page, however small (4 Mi: a small page dense with
/// contacts, such as a thousand numbers or address lines, is read to its per-page caps, e.g.
/// [`crate::extract::limits::MAX_PHONE_JUDGEMENTS`], before its budget).
pub const WORK_BASE: usize = 4 << 20;
/// Most units of work the readers may do on one page (64 Mi units, which a page of 1.3 MiB
/// reaches; at the 2 MiB cap, a few hundred milliseconds of work).
pub const WORK_CEILING: usize = 64 << 20;

/// One page's budget for its content readers: bytes they may still copy and units of work
/// they may still do. Shared by reference (`&PageBudget`) among the readers of one page, on
/// one thread. A reader that may amplify runs inside [`PageBudget::holding_back_half`], so
/// the readers after it keep at least half of what was left.
#[derive(Debug)]
pub struct PageBudget {
    copy: Cell<usize>,
    work: Cell<usize>,
    /// Bytes of copies and units of work held back from the reader running now: it sees
    /// only what is above them ([`PageBudget::holding_back_half`]).
    copy_floor: Cell<usize>,
    work_floor: Cell<usize>,
    /// Whether a charge was refused (the budget bound what was read).
    refused: Cell<bool>,
}

impl PageBudget {
    /// The budget of a page of `page_bytes` bytes (its body as fetched, decompressed):
    /// `min(8 × page_bytes + 1 MiB, 32 MiB)` bytes of copies and
    /// `min(48 × page_bytes + 4 Mi, 64 Mi)` units of work.
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
            copy_floor: Cell::new(0),
            work_floor: Cell::new(0),
            refused: Cell::new(false),
        }
    }

    /// Charges a copy of `bytes` bytes (text copied or rebuilt, counted by its length in bytes)
    /// and returns whether it may be made; when it may not, nothing is charged and the reader
    /// leaves that copy out (a smaller one later may still fit).
    pub fn copy(&self, bytes: usize) -> bool {
        if bytes > self.copy_left() || self.spent() {
            self.refused.set(true);
            return false;
        }
        self.copy.set(self.copy.get() - bytes);
        true
    }

    /// Charges `units` of work, reports them to the pacer (`crate::pace::work`) and returns
    /// whether to go on: `false` once the page's work is spent (and at every later call) or
    /// the pacer stopped the work; the reader then ends its loop and returns what it has.
    #[track_caller]
    #[inline]
    pub fn work(&self, units: usize) -> bool {
        let left = self.work_left();
        if units > left || left == 0 {
            self.work.set(self.work.get() - left);
            self.refused.set(true);
            return false;
        }
        self.work.set(self.work.get() - units);
        pace::work(units)
    }

    /// Whether the work is spent (every later [`PageBudget::work`] and
    /// [`PageBudget::copy`] is refused).
    pub fn spent(&self) -> bool {
        self.work_left() == 0
    }

    /// Whether a charge was refused: the budget bound what the readers read (never on an
    /// ordinary page: `heap/tests/heap_bound.rs` checks the labelled corpora).
    pub fn refused(&self) -> bool {
        self.refused.get()
    }

    /// Bytes of copies left (to the reader running now).
    pub fn copy_left(&self) -> usize {
        self.copy.get().saturating_sub(self.copy_floor.get())
    }

    /// Units of work left (to the reader running now).
    pub fn work_left(&self) -> usize {
        self.work.get().saturating_sub(self.work_floor.get())
    }

    /// Runs `read` with half of the bytes and work left held back, and returns what it
    /// returns: a reader whose cost is not bounded by the page's bytes alone (framework state
    /// and JSON-LD rebuild and expand what they read) may spend only the other half, so the
    /// readers after it (the text's addresses, phones, emails, links) keep theirs. What
    /// `read` leaves is everyone's again.
    pub fn holding_back_half<R>(&self, read: impl FnOnce() -> R) -> R {
        let floors = (self.copy_floor.get(), self.work_floor.get());
        self.copy_floor.set(floors.0 + self.copy_left().div_ceil(2));
        self.work_floor.set(floors.1 + self.work_left().div_ceil(2));
        let out = read();
        self.copy_floor.set(floors.0);
        self.work_floor.set(floors.1);
        out
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
        assert_eq!(small.work_left(), 48_000 + (4 << 20));
        let capped = PageBudget::for_page(2 << 20);
        assert_eq!(capped.copy_left(), 17 << 20);
        assert_eq!(capped.work_left(), WORK_CEILING);
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

    #[test]
    fn a_reader_holding_back_half_spends_only_its_half() {
        let budget = PageBudget::for_page(0);
        let (copy, work) = (budget.copy_left(), budget.work_left());
        budget.holding_back_half(|| {
            assert_eq!(budget.copy_left(), copy / 2);
            assert_eq!(budget.work_left(), work / 2);
            assert!(budget.copy(copy / 2 - 10));
            assert!(!budget.copy(11));
            assert!(!budget.work(work));
            assert!(budget.spent());
            assert!(!budget.copy(1));
        });
        // The half held back is there for the readers after it.
        assert!(!budget.spent());
        assert_eq!(budget.work_left(), work / 2);
        assert_eq!(budget.copy_left(), copy / 2 + 10);
        assert!(budget.copy(copy / 2 + 10));
    }
}
