//! Where each skipped element ends (part of the prescan), in linear time over the page.
//!
//! The prescan blanks the contents of the elements the walker skips (`noscript`, `svg`, …) but
//! keeps scanning inside them for JSON-LD, so it looks up the end of every one of them,
//! nested ones included. Searching from each start tag to the end of the page made a page of
//! 150 000 unclosed `<noscript>` cost 80 s of CPU, and 100 000 nested `<svg>` 118 s. Here the
//! lookups come in page order: for an element that does not nest, the search for its end tag
//! starts where the last one ended and its answer is kept (a page that never closes it is read
//! once); the elements that nest have their start and end tags matched in one pass from the
//! first of them, and each lookup is a map lookup. (A pass per name from the top of the page,
//! listing every end tag, costs 3 % of a page's extraction.)

use std::collections::BTreeMap;
use std::ops::Range;

use crate::extract::ascii::{find_pair, starts_with_name};

/// Elements that may contain themselves (`<svg>` in an `<svg>`, `<object>` in an `<object>`):
/// their end is the end tag at the same depth. The other skipped elements are raw text in
/// HTML5 (`iframe`, `noscript` with scripting on) or close an open one (`select`): their end
/// is the first end tag of their name.
const NESTING: &[&[u8]] = &[b"svg", b"object"];

/// The end tags of one element name.
enum Ends {
    /// The `<` of the first `</name` at or after `from` (`None`: there is none).
    First { from: usize, found: Option<usize> },
    /// For the start tags read (the position of each `<`), the `<` of its end tag at the same
    /// depth; `first` is the first start tag looked up, `read` the range of the page read last
    /// (from a start tag to its end, or to the end of the page), in which every start tag is
    /// in `pairs` if it is closed.
    Matched {
        first: usize,
        read: Range<usize>,
        pairs: BTreeMap<usize, usize>,
    },
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
                // Nothing searched yet: the lookup below searches from here.
                let ends = if NESTING.contains(&name) {
                    Ends::Matched {
                        first: usize::MAX,
                        read: 0..0,
                        pairs: BTreeMap::new(),
                    }
                } else {
                    Ends::First {
                        from: usize::MAX,
                        found: None,
                    }
                };
                self.by_name.push((name.to_vec(), ends));
                self.by_name.len() - 1
            }
        };
        match &mut self.by_name[index].1 {
            Ends::First { from, found } => {
                // The bytes after the scan's position are as the page wrote them, so an
                // answer found from an earlier position still holds if it lies after
                // `tag_end`.
                if *from > tag_end || found.is_some_and(|end| end < tag_end) {
                    *from = tag_end;
                    *found = first_end_tag(bytes, name, tag_end);
                }
                *found
            }
            Ends::Matched { first, read, pairs } => {
                if start < *first {
                    // The first lookup, or one out of page order (the prescan makes none).
                    *first = start;
                    pairs.clear();
                    *read = start..start;
                }
                if !read.contains(&start) {
                    *read = start..match_one(bytes, name, start, *first, pairs);
                }
                pairs.get(&start).copied()
            }
        }
    }
}

/// The `<` of the first `</name` in `bytes` at or after `from` (`name` ASCII case-insensitive,
/// as a whole name): where a raw-text element ends (HTML5 §13.2.5.2–4), or one that does not nest.
pub(super) fn first_end_tag(bytes: &[u8], name: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(offset) = find_pair(bytes.get(at..)?, *b"</") {
        let lt = at + offset;
        if starts_with_name(&bytes[lt + 2..], name) {
            return Some(lt);
        }
        at = lt + 2;
    }
    None
}

/// The start tag of `name` at `from` matched with its end tag, and every start tag between
/// them with theirs, as [`match_tags`] from `first` (at or before `from`) matches them, into
/// `pairs`; returns the end of the range read: just past the end tag's `<`, or `usize::MAX`
/// when the page ends with the tag at `from` still open (every later start tag is then
/// matched, or never closed).
///
/// A start tag's end depends only on the tags after it, so reading from each start tag the
/// prescan looks up (outside the range read for an earlier one) to its end finds what one
/// pass from the first finds, where that pass read every `<` from the first `<svg>` to the
/// end of the page (1.8 % of a run's time, most pages having an icon near their top).
fn match_one(
    bytes: &[u8],
    name: &[u8],
    from: usize,
    first: usize,
    pairs: &mut BTreeMap<usize, usize>,
) -> usize {
    let mut open = Vec::new();
    let Some(rest) = bytes.get(from..) else {
        return usize::MAX;
    };
    for lt in memchr::memchr_iter(b'<', rest).map(|at| from + at) {
        let rest = &bytes[lt + 1..];
        if rest.first() == Some(&b'/') {
            if starts_with_name(&rest[1..], name) {
                if let Some(start) = open.pop() {
                    pairs.insert(start, lt);
                }
            }
        } else if starts_with_name(rest, name) {
            let self_closed = memchr::memchr(b'>', rest).is_some_and(|gt| {
                gt > 0 && rest[gt - 1] == b'/' && !(lt == first && gt - 1 == name.len())
            });
            if !self_closed {
                open.push(lt);
            }
        }
        if open.is_empty() {
            // The tag at `from` is closed (or opens nothing, or is no start tag of `name`).
            return lt + 1;
        }
    }
    usize::MAX
}

/// Start tags of `name` from `from` on, matched with their end tags, innermost first, as
/// HTML5 nests them (a start tag self-closed as `<svg/>` opens nothing). Unmatched start tags
/// are left out. A start tag's end depends only on the tags after it, so starting at `from`
/// matches those after it as a pass over the whole page would.
///
/// The start tag at `from` is the one the prescan is reading, which it reads as open when a
/// `/` comes right after its name (`<svg/>`: it wrote that `/` as a space in its copy of the
/// page, where this looked for the ends until the copy was given up).
#[cfg(test)]
fn match_tags(bytes: &[u8], name: &[u8], from: usize) -> BTreeMap<usize, usize> {
    let mut pairs = BTreeMap::new();
    let mut open = Vec::new();
    let Some(rest) = bytes.get(from..) else {
        return pairs;
    };
    for lt in memchr::memchr_iter(b'<', rest).map(|at| from + at) {
        let rest = &bytes[lt + 1..];
        if rest.first() == Some(&b'/') {
            if starts_with_name(&rest[1..], name) {
                if let Some(start) = open.pop() {
                    pairs.insert(start, lt);
                }
            }
        } else if starts_with_name(rest, name) {
            let self_closed = memchr::memchr(b'>', rest).is_some_and(|gt| {
                gt > 0 && rest[gt - 1] == b'/' && !(lt == from && gt - 1 == name.len())
            });
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
        // Unclosed: none.
        assert_eq!(end(page, "svg", 35), None);
        // `<svg/>` read as the tag the prescan is at opens (its `/` right after the name is
        // ignored): it ends at the end tag of the `<svg>` around it, which the one after it
        // takes; looked up from an earlier tag, it is self-closed and opens nothing.
        assert_eq!(end(page, "svg", 5), Some(29));
        let mut ends = super::SkippedEnds::default();
        assert_eq!(ends.end_of(page.as_bytes(), b"svg", 0, 5), Some(29));
        assert_eq!(ends.end_of(page.as_bytes(), b"svg", 5, 11), None);
        // A `/` not right after the name self-closes it even there.
        assert_eq!(end("<svg a/><svg></svg>", "svg", 0), None);
    }

    #[test]
    fn lookups_out_of_page_order_still_find_the_end() {
        // The prescan looks up in page order; another caller gets the same answers.
        let svg = "<svg><svg/><svg><g></g></svg></svg><svg>";
        let mut ends = SkippedEnds::default();
        assert_eq!(ends.end_of(svg.as_bytes(), b"svg", 11, 16), Some(23));
        assert_eq!(ends.end_of(svg.as_bytes(), b"svg", 0, 5), Some(29));
        let noscript = "<noscript>a</noscript><noscript>b</noscript>";
        let mut ends = SkippedEnds::default();
        assert_eq!(
            ends.end_of(noscript.as_bytes(), b"noscript", 22, 32),
            Some(33)
        );
        assert_eq!(
            ends.end_of(noscript.as_bytes(), b"noscript", 0, 10),
            Some(11)
        );
        // A page that never closes it: later lookups reuse the answer.
        let open = "<noscript>a<noscript>b";
        let mut ends = SkippedEnds::default();
        assert_eq!(ends.end_of(open.as_bytes(), b"noscript", 0, 10), None);
        assert_eq!(ends.end_of(open.as_bytes(), b"noscript", 11, 21), None);
    }

    proptest::proptest! {
        /// Looked up in page order at each start tag the prescan would look up (outside the
        /// element found for the one before), every end is the one pass from the first start
        /// tag finds (`match_tags`, the reading `match_one` replaced).
        #[test]
        fn nesting_ends_read_per_element_are_those_of_one_pass(
            tokens in proptest::collection::vec(proptest::sample::select(vec![
                "<svg>", "<SVG>", "<svg/>", "<svg />", "<svg a/>", "</svg>", "</Svg >",
                "<svgs>", "</svgs>", "<g>", "</g>", "x", "<", "</", "<svg",
            ]), 0..24),
            skip_inside in proptest::bool::ANY,
        ) {
            let page = tokens.concat();
            let bytes = page.as_bytes();
            let starts: Vec<usize> = (0..bytes.len())
                .filter(|&at| {
                    bytes[at] == b'<' && crate::extract::ascii::starts_with_name(&bytes[at + 1..], b"svg")
                })
                .collect();
            let mut ends = SkippedEnds::default();
            let mut first = None;
            let mut skip_until = 0;
            for &start in &starts {
                if skip_inside && start < skip_until {
                    continue;
                }
                let tag_end = memchr::memchr(b'>', &bytes[start..]).map_or(bytes.len(), |gt| start + gt + 1);
                let found = ends.end_of(bytes, b"svg", start, tag_end);
                let first = *first.get_or_insert(start);
                proptest::prop_assert_eq!(
                    found,
                    super::match_tags(bytes, b"svg", first).get(&start).copied(),
                    "{:?} at {}", page, start
                );
                if let Some(end) = found {
                    skip_until = skip_until.max(end);
                }
            }
        }
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
