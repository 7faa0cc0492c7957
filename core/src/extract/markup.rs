//! The element tree of a page, laid out flat in document order (each element followed by its
//! descendants) while the prescan (`prescan.rs`) reads the page's tags: a [`Layout`] receives
//! each tag once, so the page is tokenized in a single pass.
//!
//! The prescan does what HTML5 tokenization needs: names are lower-case, comments, doctypes and
//! the contents of raw-text and skipped elements are blanked (they stay in the text nodes as
//! spaces), end tags are `</name>`, and it says which end tags HTML5's tree builder implies
//! (`implied_ends.rs`) before each tag. So nesting here is plain:
//! - a start tag opens an element, except a void element (§13.1.2) or a tag that ends in `/>`;
//! - an end tag closes the innermost open element when it has the end tag's name, and is
//!   ignored otherwise;
//! - an element the page does not close runs to the end of the page;
//! - a tag the page ends inside is dropped, with everything after it, as HTML5 does.
//!
//! This replaced `tl` 0.7 (until 2026-11-24), which built the same nesting from the prescanned
//! page in a second pass and spent a third of a page's parse on nodes of a few hundred bytes
//! and a hash map per tag's attributes; here an element is its byte ranges, and its
//! attributes are the name and value ranges the prescan recorded as it read the tag (until
//! 2026-11-24 the walker read each tag's attributes a second time).

use std::ops::Range;

use crate::extract::implied_ends::is_void;

/// One node of a [`Markup`] (24 bytes: the prescan cuts a page at [`MAX_SOURCE_BYTES`], so
/// positions fit in 32 bits; a page has about one node per 90 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Text between tags, as a byte range of the source (entities not decoded).
    Text(Span),
    /// An element.
    Element(Element),
}

/// The longest source a [`Layout`] lays out, in bytes: positions are kept in 32 bits. (Pages
/// are at most `fetch::MAX_PAGE_BYTES`, 2 MiB; the prescan cuts longer input here.)
pub const MAX_SOURCE_BYTES: usize = u32::MAX as usize;

/// A byte range of the source, in 32 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// `range`, whose ends are at most [`MAX_SOURCE_BYTES`] (larger ends are cut to it).
    pub fn new(range: Range<usize>) -> Span {
        let cut = |at: usize| u32::try_from(at).unwrap_or(u32::MAX);
        Span {
            start: cut(range.start),
            end: cut(range.end),
        }
    }

    /// The range as `usize` positions.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One attribute of a start tag, as byte ranges of the source: its name (lower-case) and its
/// value as written (entities not decoded; empty for an attribute without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttributeSpan {
    /// The name.
    pub name: Span,
    /// The value.
    pub value: Span,
}

/// An element: where its name and attributes are in the source, and which nodes it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// Byte range of the (lower-case) name in the source.
    pub name: Span,
    /// Its attributes: indices into the markup's attribute list, from and to.
    attributes: (u32, u32),
    /// Index of the first node after this element's descendants (they are the nodes between
    /// this one and that index).
    subtree_end: u32,
    /// Whether an end tag closed the element (else the page ended inside it, or it is void).
    pub closed: bool,
}

impl Element {
    /// Index of the first node after this element's descendants (they are the nodes between
    /// this one and that index).
    pub fn subtree_end(&self) -> usize {
        self.subtree_end as usize
    }
}

/// A node or attribute index in 32 bits (neither outnumbers the bytes of the source).
fn index_u32(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

/// What a [`Layout`] makes of a page: its nodes in document order and the attributes of its
/// elements (each element holds a range of them).
#[derive(Debug, Default)]
pub struct LaidOut {
    /// The nodes.
    pub nodes: Vec<Node>,
    /// The attributes, element after element.
    pub attributes: Vec<AttributeSpan>,
}

/// The nodes of one prescanned page.
#[derive(Debug)]
pub struct Markup<'s> {
    source: &'s str,
    nodes: Vec<Node>,
    attributes: Vec<AttributeSpan>,
}

impl<'s> Markup<'s> {
    /// What a [`Layout`] made of `source` (the prescanned page it was given tags of).
    pub fn new(source: &'s str, laid_out: LaidOut) -> Markup<'s> {
        Markup {
            source,
            nodes: laid_out.nodes,
            attributes: laid_out.attributes,
        }
    }

    /// The vectors, for reuse ([`Layout::reusing`]).
    pub fn into_laid_out(self) -> LaidOut {
        LaidOut {
            nodes: self.nodes,
            attributes: self.attributes,
        }
    }

    /// The nodes in document order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The source text of `range` (a [`Node::Text`] or an element's name); empty if `range`
    /// does not fall on character boundaries, which the ranges of this module always do.
    pub fn text(&self, span: Span) -> &'s str {
        self.source.get(span.range()).unwrap_or("")
    }

    /// The element's name (lower-case); empty if its range is not in the source, which the
    /// ranges of this module always are.
    pub fn name(&self, element: &Element) -> &'s [u8] {
        self.source
            .as_bytes()
            .get(element.name.range())
            .unwrap_or_default()
    }

    /// The attributes of `element` in source order, as `(name, value)`: the name lower-case,
    /// the value as written (entities not decoded). Duplicates are yielded too: HTML5 keeps
    /// the first, so readers skip the others.
    pub fn attributes(
        &self,
        element: &Element,
    ) -> impl Iterator<Item = (&'s [u8], &'s str)> + use<'_, 's> {
        let (from, to) = element.attributes;
        let source = self.source;
        self.attributes
            .get(from as usize..to as usize)
            .unwrap_or_default()
            .iter()
            .map(move |a| {
                (
                    source.as_bytes().get(a.name.range()).unwrap_or_default(),
                    source.get(a.value.range()).unwrap_or(""),
                )
            })
    }

    /// The text of the descendants of the element at `index`, concatenated (entities not
    /// decoded); empty if `index` is not an element.
    pub fn inner_text(&self, index: usize) -> String {
        let Some(Node::Element(element)) = self.nodes.get(index) else {
            return String::new();
        };
        let mut text = String::new();
        for node in self
            .nodes
            .get(index + 1..element.subtree_end())
            .unwrap_or(&[])
        {
            if let Node::Text(span) = node {
                text.push_str(self.text(*span));
            }
        }
        text
    }
}

/// Lays out the nodes of a page from its tags, given in page order by the prescan, which
/// owns the bytes: each call takes them as they are then (names already lower-cased).
#[derive(Debug, Default)]
pub struct Layout {
    nodes: Vec<Node>,
    attributes: Vec<AttributeSpan>,
    /// Node indices of the open elements, innermost last.
    open: Vec<usize>,
    /// Where the text after the last tag starts.
    text_start: usize,
    /// Set once the page ended inside a tag: nothing after it counts.
    stopped: bool,
}

impl Layout {
    /// A layout that builds in the vectors of `laid_out` (cleared, their capacity kept).
    pub fn reusing(mut laid_out: LaidOut) -> Layout {
        laid_out.nodes.clear();
        laid_out.attributes.clear();
        Layout {
            nodes: laid_out.nodes,
            attributes: laid_out.attributes,
            ..Layout::default()
        }
    }

    /// The text before the tag at `lt` (unless empty), then the end tags implied there:
    /// `implied` are byte ranges of element names in `bytes`, innermost first.
    pub fn before_tag(&mut self, bytes: &[u8], lt: usize, implied: &[(usize, usize)]) {
        if self.stopped {
            return;
        }
        if lt > self.text_start {
            self.nodes.push(Node::Text(Span::new(self.text_start..lt)));
        }
        self.text_start = lt;
        for &(start, end) in implied {
            self.close(bytes, &bytes[start..end]);
        }
    }

    /// Where the attributes of the next start tag go: the prescan appends them as it reads the
    /// tag, then calls [`Layout::start`] with the length this list had before (or
    /// [`Layout::discard_attributes`] if the tag makes no node).
    pub fn attribute_list(&mut self) -> &mut Vec<AttributeSpan> {
        &mut self.attributes
    }

    /// Drops the attributes from index `first` on (a tag that makes no node).
    pub fn discard_attributes(&mut self, first: usize) {
        self.attributes.truncate(first);
    }

    /// A start tag (after [`Layout::before_tag`]): its name, its attributes (those appended
    /// to [`Layout::attribute_list`] from index `first_attribute` on), and where it ends.
    pub fn start(
        &mut self,
        bytes: &[u8],
        name: Range<usize>,
        first_attribute: usize,
        self_closing: bool,
        tag_end: usize,
    ) {
        if self.stopped {
            self.discard_attributes(first_attribute);
            return;
        }
        let has_children = !self_closing && !is_void(bytes.get(name.clone()).unwrap_or_default());
        self.nodes.push(Node::Element(Element {
            name: Span::new(name),
            attributes: (index_u32(first_attribute), index_u32(self.attributes.len())),
            subtree_end: index_u32(self.nodes.len() + 1),
            closed: false,
        }));
        if has_children {
            self.open.push(self.nodes.len() - 1);
        }
        self.text_start = tag_end;
    }

    /// An end tag (after [`Layout::before_tag`]) named `name`, ending at `tag_end`: closes
    /// the innermost open element if it has that name, else nothing.
    pub fn end(&mut self, bytes: &[u8], name: &[u8], tag_end: usize) {
        if self.stopped {
            return;
        }
        self.close(bytes, name);
        self.text_start = tag_end;
    }

    /// A tag that makes no node but is not text (`</ x>`, a bogus comment for HTML5), ending
    /// at `tag_end`.
    pub fn skip(&mut self, tag_end: usize) {
        if !self.stopped {
            self.text_start = tag_end;
        }
    }

    /// The page ends inside the tag [`Layout::before_tag`] was called for: it and everything
    /// after it are dropped.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// The nodes, with the text after the last tag (up to `len`, the length of the page) and
    /// the elements still open running to the end.
    pub fn finish(mut self, len: usize) -> LaidOut {
        if !self.stopped && self.text_start < len {
            self.nodes.push(Node::Text(Span::new(self.text_start..len)));
        }
        let end = index_u32(self.nodes.len());
        for index in self.open {
            if let Some(Node::Element(element)) = self.nodes.get_mut(index) {
                element.subtree_end = end;
            }
        }
        LaidOut {
            nodes: self.nodes,
            attributes: self.attributes,
        }
    }

    fn close(&mut self, bytes: &[u8], name: &[u8]) {
        let Some(&innermost) = self.open.last() else {
            return;
        };
        let subtree_end = index_u32(self.nodes.len());
        if let Some(Node::Element(element)) = self.nodes.get_mut(innermost) {
            if bytes.get(element.name.range()) == Some(name) {
                element.closed = true;
                element.subtree_end = subtree_end;
                self.open.pop();
            }
        }
    }
}

/// The attributes of a start tag read again from its text, as HTML5 tokenizes them
/// (§13.2.5.32–40), the way the prescan reads them once for the [`Layout`]: the model its
/// attribute list is tested against. Names run to white space, `/`, `>` or `=`; a value is
/// quoted, or unquoted up to white space or `>`; a `/` not right before `>` is ignored. Yields `(name, value)` as written (entities not decoded), the
/// value empty for an attribute without one. Duplicates are yielded too: HTML5 keeps the first,
/// so readers skip the others.
#[cfg(test)]
pub struct Attributes<'s> {
    /// The start tag between its name and its `>`.
    text: &'s str,
    /// Where reading goes on.
    at: usize,
}

#[cfg(test)]
impl<'s> Attributes<'s> {
    /// The attributes in `text`, a start tag between its name and its `>`.
    pub fn new(text: &'s str) -> Attributes<'s> {
        Attributes { text, at: 0 }
    }

    /// `text[start..end]`: the ends are next to ASCII bytes or at the ends of `text`, so on
    /// character boundaries (empty otherwise, which cannot happen).
    fn value(&self, start: usize, end: usize) -> &'s str {
        self.text.get(start..end).unwrap_or("")
    }
}

#[cfg(test)]
impl<'s> Iterator for Attributes<'s> {
    /// `(name, value)`: the name as bytes (lower-case if the prescan saw it), the value as
    /// written.
    type Item = (&'s [u8], &'s str);

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.text.as_bytes();
        let at = |i: usize| bytes.get(i).copied();
        let mut i = self.at;
        while at(i).is_some_and(|b| b.is_ascii_whitespace() || b == b'/') {
            i += 1;
        }
        if matches!(at(i), None | Some(b'>')) {
            self.at = i;
            return None;
        }
        // The name; a leading `=` belongs to it (§13.2.5.32).
        let name_start = i;
        i += 1;
        while at(i).is_some_and(|b| !b.is_ascii_whitespace() && !matches!(b, b'/' | b'>' | b'=')) {
            i += 1;
        }
        let name = &bytes[name_start..i];
        let mut j = i;
        while at(j).is_some_and(|b| b.is_ascii_whitespace()) {
            j += 1;
        }
        if at(j) != Some(b'=') {
            self.at = i;
            return Some((name, ""));
        }
        j += 1;
        while at(j).is_some_and(|b| b.is_ascii_whitespace()) {
            j += 1;
        }
        let value = match at(j) {
            Some(quote @ (b'"' | b'\'')) => {
                let start = j + 1;
                let end = memchr::memchr(quote, &bytes[start..]).map_or(bytes.len(), |e| start + e);
                self.at = (end + 1).min(bytes.len());
                self.value(start, end)
            }
            _ => {
                let start = j;
                while at(j).is_some_and(|b| !b.is_ascii_whitespace() && b != b'>') {
                    j += 1;
                }
                self.at = j;
                self.value(start, j)
            }
        };
        Some((name, value))
    }
}

#[cfg(test)]
mod tests {
    use super::{Layout, Markup, Node};
    use crate::extract::prescan::prescan;

    /// Each node as a short string: `text` for text, `name[subtree_end]` for an element
    /// (`+` when an end tag closed it).
    fn outline_of(markup: &Markup<'_>) -> Vec<String> {
        markup
            .nodes()
            .iter()
            .map(|node| match node {
                Node::Text(span) => markup.text(*span).to_string(),
                Node::Element(e) => format!(
                    "{}[{}]{}",
                    String::from_utf8_lossy(markup.name(e)),
                    e.subtree_end,
                    if e.closed { "+" } else { "" }
                ),
            })
            .collect()
    }

    /// The outline of `source` as the prescan lays it out.
    fn outline(source: &str) -> Vec<String> {
        let pre = prescan(source);
        outline_of(&Markup::new(&pre.html, pre.laid_out))
    }

    #[test]
    fn elements_hold_what_comes_before_their_end_tag() {
        assert_eq!(
            outline("<div><p>a</p>b</div>c"),
            ["div[4]+", "p[3]+", "a", "b", "c"]
        );
    }

    #[test]
    fn an_end_tag_closes_only_the_innermost_element_and_unclosed_ones_run_to_the_end() {
        // `<div><b>x</div>y` given without the `</b>` HTML5 implies (the prescan gives it):
        // `</div>` while `<b>` is innermost is ignored, so both run to the end of the page.
        let source = "<div><b>x</div>y";
        let bytes = source.as_bytes();
        let mut layout = Layout::default();
        layout.before_tag(bytes, 0, &[]);
        layout.start(bytes, 1..4, 0, false, 5);
        layout.before_tag(bytes, 5, &[]);
        layout.start(bytes, 6..7, 0, false, 8);
        layout.before_tag(bytes, 9, &[]);
        layout.end(bytes, b"div", 15);
        let markup = Markup::new(source, layout.finish(bytes.len()));
        assert_eq!(outline_of(&markup), ["div[4]", "b[4]", "x", "y"]);
        // With the implied `</b>` (bytes 6..7 name it) both close.
        let mut layout = Layout::default();
        layout.before_tag(bytes, 0, &[]);
        layout.start(bytes, 1..4, 0, false, 5);
        layout.before_tag(bytes, 5, &[]);
        layout.start(bytes, 6..7, 0, false, 8);
        layout.before_tag(bytes, 9, &[(6, 7)]);
        layout.end(bytes, b"div", 15);
        let markup = Markup::new(source, layout.finish(bytes.len()));
        assert_eq!(outline_of(&markup), ["div[3]+", "b[3]+", "x", "y"]);
        assert_eq!(outline("<div><b>x</div>y"), ["div[3]+", "b[3]+", "x", "y"]);
        assert_eq!(outline("</p>a"), ["a"]);
    }

    #[test]
    fn a_less_than_sign_that_starts_no_tag_is_text() {
        assert_eq!(outline("a <3 b< c<p>d"), ["a <3 b< c", "p[3]", "d"]);
        assert_eq!(outline("x<"), ["x<"]);
    }

    #[test]
    fn an_end_tag_without_a_name_shows_nothing() {
        // HTML5 reads `</ x>` as a bogus comment (§13.2.5.7).
        assert_eq!(outline("a</ x>b</>c"), ["a", "b", "c"]);
        assert_eq!(outline("a</ x"), ["a"]);
    }

    #[test]
    fn comments_and_skipped_contents_stay_in_the_text_as_blanks() {
        assert_eq!(outline("a<!--x-->b"), ["a        b"]);
        assert_eq!(
            outline("<noscript><p>x</p></noscript>y"),
            ["noscript[2]+", "        ", "y"]
        );
    }

    #[test]
    fn void_elements_and_self_closing_tags_have_no_children() {
        // `<span/>` opens a `<span>`, as in HTML5 (the prescan drops a `/` right after the
        // name); `<i class="y"/>` ends in `/>` and has no children.
        assert_eq!(
            outline("<p>a<br>b<img src=\"x\"/>c<i class=\"y\"/>d<span/>e</p>"),
            [
                "p[10]+",
                "a",
                "br[3]",
                "b",
                "img[5]",
                "c",
                "i[7]",
                "d",
                "span[10]+",
                "e"
            ]
        );
    }

    #[test]
    fn a_tag_the_page_ends_inside_is_dropped() {
        assert_eq!(outline("<p>a</p>b<a href=\"x"), ["p[2]+", "a", "b"]);
        assert_eq!(outline("<p>a</p>b</p c=\"x"), ["p[2]+", "a", "b"]);
    }

    #[test]
    fn a_quoted_value_may_hold_a_greater_than_sign() {
        assert_eq!(outline("<a title=\"1 > 0\" href=x>t</a>"), ["a[2]+", "t"]);
    }

    #[test]
    fn attributes_are_read_as_html5_tokenizes_them() {
        let pre =
            prescan("<a HREF=\"/x\" title='it\"s' data-a=b/c hidden / =odd class = big data-a=2>");
        let markup = Markup::new(&pre.html, pre.laid_out);
        let Some(Node::Element(a)) = markup.nodes().first() else {
            panic!("no element");
        };
        let attributes: Vec<(String, String)> = markup
            .attributes(a)
            .map(|(name, value)| {
                (
                    String::from_utf8_lossy(name).into_owned(),
                    value.to_string(),
                )
            })
            .collect();
        let expected = [
            ("href", "/x"),
            ("title", "it\"s"),
            ("data-a", "b/c"),
            ("hidden", ""),
            ("=odd", ""),
            ("class", "big"),
            ("data-a", "2"),
        ];
        assert_eq!(
            attributes,
            expected.map(|(n, v)| (n.to_string(), v.to_string()))
        );
    }

    proptest::proptest! {
        /// The attributes the prescan records as it reads a tag are those the tag's text
        /// holds when read again on its own (the model, [`super::Attributes`]).
        #[test]
        fn recorded_attributes_are_those_of_the_tag_text(
            tags in proptest::collection::vec("[ a-cA-C=\"'/\t\n-]{0,24}", 1..4)
        ) {
            let page: String = tags.iter().map(|t| format!("<div{t}>x</div>")).collect();
            let pre = prescan(&page);
            let markup = Markup::new(&pre.html, pre.laid_out);
            for (index, node) in markup.nodes().iter().enumerate() {
                let Node::Element(element) = node else {
                    continue;
                };
                // The tag's text: from after its name to the `>` before its first child
                // (generated attributes hold no `>`, so that `>` ends the tag).
                let from = element.name.range().end;
                let Some(Node::Text(child)) = markup.nodes().get(index + 1) else {
                    continue;
                };
                let text = &pre.html[from..child.range().start - 1];
                let recorded: Vec<_> = markup.attributes(element).collect();
                let model: Vec<_> = super::Attributes::new(text).collect();
                proptest::prop_assert_eq!(recorded, model, "{:?}", page);
            }
        }
    }

    #[test]
    fn inner_text_joins_the_text_of_all_descendants() {
        let pre = prescan("<title>A <b>B</b> C</title>D");
        let markup = Markup::new(&pre.html, pre.laid_out);
        assert_eq!(markup.inner_text(0), "A B C");
        assert_eq!(markup.inner_text(2), "B");
        // Not an element.
        assert_eq!(markup.inner_text(5), "");
    }
}
