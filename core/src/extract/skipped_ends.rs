//! Where each skipped element ends (part of the prescan), in O(log n) per element.
//!
//! The prescan blanks the contents of the elements the walker skips (`noscript`, `svg`, …) but
//! keeps scanning inside them for JSON-LD, so it looks up the end of every one of them,
//! nested ones included. Searching from each start tag to the end of the page made a page of
//! 150 000 unclosed `<noscript>` cost 80 s of CPU, and 100 000 nested `<svg>` 118 s. Here one
//! pass per element name (on first use) lists its end tags, or matches its start and end tags
//! for the elements that nest; each lookup is then a binary search.

use std::collections::BTreeMap;

use crate::extract::prescan::starts_with_name;

/// Elements that may contain themselves (`<svg>` in an `<svg>`, `<object>` in an `<object>`):
/// their end is the end tag at the same depth. The other skipped elements are raw text in
/// HTML5 (`iframe`, `noscript` with scripting on) or close an open one (`select`): their end
/// is the first end tag of their name.
const NESTING: &[&[u8]] = &[b"svg", b"object"];

/// The end tags of one element name.
enum Ends {
    /// Positions of the `<` of every `</name`, in order.
    First(Vec<usize>),
    /// For each start tag (the position of its `<`), the `<` of its end tag at the same depth.
    Matched(BTreeMap<usize, usize>),
}

/// The end tags of the skipped elements met so far, by name.
#[derive(Default)]
pub struct SkippedEnds {
    by_name: Vec<(Vec<u8>, Ends)>,
}

impl SkippedEnds {
    /// The position of the `<` of the end tag that closes the skipped element `name` whose
    /// start tag begins at `start` (its `<`) and ends at `tag_end`, or `None` when the page
    /// never closes it. `name` is lower-case.
    pub fn end_of(
        &mut self,
        bytes: &[u8],
        name: &[u8],
        start: usize,
        tag_end: usize,
    ) -> Option<usize> {
        let index = match self.by_name.iter().position(|(n, _)| n == name) {
            Some(index) => index,
            None => {
                let ends = if NESTING.contains(&name) {
                    Ends::Matched(match_tags(bytes, name))
                } else {
                    Ends::First(end_tags(bytes, name))
                };
                self.by_name.push((name.to_vec(), ends));
                self.by_name.len() - 1
            }
        };
        match &self.by_name[index].1 {
            Ends::First(ends) => {
                let i = ends.partition_point(|&lt| lt < tag_end);
                ends.get(i).copied()
            }
            Ends::Matched(pairs) => pairs.get(&start).copied(),
        }
    }
}

/// The `<` of every `</name` in `bytes`, in order.
fn end_tags(bytes: &[u8], name: &[u8]) -> Vec<usize> {
    memchr::memmem::find_iter(bytes, b"</")
        .filter(|&lt| starts_with_name(&bytes[lt + 2..], name))
        .collect()
}

/// Start tags of `name` matched with their end tags, innermost first, as HTML5 nests them
/// (a start tag self-closed as `<svg/>` opens nothing). Unmatched start tags are left out.
fn match_tags(bytes: &[u8], name: &[u8]) -> BTreeMap<usize, usize> {
    let mut pairs = BTreeMap::new();
    let mut open = Vec::new();
    for lt in memchr::memchr_iter(b'<', bytes) {
        let rest = &bytes[lt + 1..];
        if rest.first() == Some(&b'/') {
            if starts_with_name(&rest[1..], name) {
                if let Some(start) = open.pop() {
                    pairs.insert(start, lt);
                }
            }
        } else if starts_with_name(rest, name) {
            let self_closed =
                memchr::memchr(b'>', rest).is_some_and(|gt| gt > 0 && rest[gt - 1] == b'/');
            if !self_closed {
                open.push(lt);
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::SkippedEnds;

    fn end(page: &str, name: &str, start: usize) -> Option<usize> {
        let bytes = page.as_bytes();
        let tag_end = start + page[start..].find('>').map_or(0, |gt| gt + 1);
        SkippedEnds::default().end_of(bytes, name.as_bytes(), start, tag_end)
    }

    #[test]
    fn the_first_end_tag_for_elements_that_do_not_nest() {
        let page = "<noscript><p>a</NOSCRIPT><noscript>b</noscript>";
        assert_eq!(end(page, "noscript", 0), Some(14));
        assert_eq!(end(page, "noscript", 25), Some(36));
        assert_eq!(end("<noscript>never closed", "noscript", 0), None);
        // `</noscripts>` is another name.
        assert_eq!(end("<noscript>a</noscripts>", "noscript", 0), None);
    }

    #[test]
    fn the_end_tag_at_the_same_depth_for_elements_that_nest() {
        let page = "<svg><svg/><svg><g></g></svg></svg><svg>";
        assert_eq!(end(page, "svg", 0), Some(29));
        assert_eq!(end(page, "svg", 11), Some(23));
        // Self-closed: opens nothing, so nothing to find; unclosed: none.
        assert_eq!(end(page, "svg", 5), None);
        assert_eq!(end(page, "svg", 35), None);
    }

    #[test]
    fn lookups_after_the_first_reuse_one_pass() {
        let page = "<noscript>a</noscript>".repeat(3);
        let mut ends = SkippedEnds::default();
        let found: Vec<_> = (0..3)
            .map(|i| ends.end_of(page.as_bytes(), b"noscript", i * 22, i * 22 + 10))
            .collect();
        assert_eq!(found, [Some(11), Some(33), Some(55)]);
        assert_eq!(ends.by_name.len(), 1);
    }
}
