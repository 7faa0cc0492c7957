//! Per-page caps on everything extraction collects, and the de-duplication that keeps their
//! cost O(n log n) in the page size (one crafted 2 MiB page must not cost seconds).
//!
//! The caps are far above what real pages hold — the largest counts on `shared/corpus-perf`
//! (383 real pages) are 361 emails, 8 phones, 41 addresses, 9 profiles of one network and
//! 10 contact pages — so no real result changes; a page over a cap keeps the first values in
//! document order. Links are capped while the document is walked (`html::MAX_LINKS`, 5 000).

use std::collections::BTreeSet;

/// Emails kept per page.
pub const MAX_EMAILS: usize = 1_000;
/// Phone numbers kept per page.
pub const MAX_PHONES: usize = 200;
/// Social profile URLs kept per page, all networks together.
pub const MAX_SOCIALS: usize = 200;
/// Postal addresses kept per page.
pub const MAX_ADDRESSES: usize = 100;
/// Candidate numbers one page may hand to libphonenumber (parse and validate: microseconds each,
/// ≈ 9 µs on `regex-lite`). Real pages need at most 72 (`shared/corpus` and `corpus-perf`, 460
/// pages); the crafted 80 000-phone page made 80 000 and took 0.7 s. Later candidates are
/// not judged.
pub const MAX_PHONE_JUDGEMENTS: usize = 1_000;

/// The first `cap` distinct values of `values` by `key`, in order: one ordered-set look-up per
/// value.
pub(crate) fn first_distinct<T, K: Ord>(
    values: impl IntoIterator<Item = T>,
    cap: usize,
    key: impl Fn(&T) -> K,
) -> Vec<T> {
    let mut seen: BTreeSet<K> = BTreeSet::new();
    let mut out = Vec::new();
    for value in values {
        if out.len() >= cap {
            break;
        }
        if seen.insert(key(&value)) {
            out.push(value);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_distinct_keeps_order_and_stops_at_the_cap() {
        let values = ["b", "a", "B", "c", "a", "d"];
        let lower = |s: &&str| s.to_ascii_lowercase();
        assert_eq!(first_distinct(values, 10, lower), ["b", "a", "c", "d"]);
        assert_eq!(first_distinct(values, 2, lower), ["b", "a"]);
        assert!(first_distinct(values, 0, lower).is_empty());
    }
}
