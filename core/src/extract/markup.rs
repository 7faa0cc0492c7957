//! The element tree of a prescanned page (`prescan.rs`): one memchr-driven pass that lays the
//! nodes out flat, in document order, each element followed by its descendants.
//!
//! The prescan has already done what HTML5 tokenization needs beyond this pass: names are
//! lower-case, comments, doctypes and the contents of raw-text and skipped elements are
//! blanked, end tags are `</name>`, and it found the end tags HTML5's tree builder implies
//! (`implied_ends.rs`), which are read here before the tag they precede. So nesting here is
//! plain:
//! - a start tag opens an element, except a void element (§13.1.2) or a tag that ends in `/>`;
//! - an end tag closes the innermost open element when it has the end tag's name, and is
//!   ignored otherwise;
//! - an element the page does not close runs to the end of the page.
//!
//! This replaced `tl` 0.7, which built the same nesting from the same input but spent a third
//! of a page's parse on a node of a few hundred bytes per element and a hash map per tag's
//! attributes; here an element is its byte ranges and attributes are read on demand
//! ([`Attributes`]).

use std::ops::Range;

use crate::extract::implied_ends::is_void;
use crate::extract::prescan::{is_name_byte, ImpliedEnd};
use crate::pace;

/// One node of a [`Markup`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Text between tags, as a byte range of the source (entities not decoded).
    Text(Range<usize>),
    /// An element.
    Element(Element),
}

/// An element: where its name and attributes are in the source, and which nodes it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// Byte range of the (lower-case) name in the source.
    pub name: Range<usize>,
    /// Byte range of the start tag between its name and its `>`.
    pub attributes: Range<usize>,
    /// Index of the first node after this element's descendants (they are the nodes between
    /// this one and that index).
    pub subtree_end: usize,
    /// Whether an end tag closed the element (else the page ended inside it, or it is void).
    pub closed: bool,
}

/// The nodes of one prescanned page.
#[derive(Debug)]
pub struct Markup<'s> {
    source: &'s str,
    nodes: Vec<Node>,
}

impl<'s> Markup<'s> {
    /// Lays out the nodes of `source`, the prescan's output, with the end tags it found
    /// implied (in page order; see the module docs). Linear in the length of `source`, and
    /// paced (`crate::pace`); a tag the page ends inside is dropped, as HTML5 does.
    pub fn parse(source: &'s str, implied_ends: &[ImpliedEnd]) -> Markup<'s> {
        let bytes = source.as_bytes();
        let mut nodes = Vec::new();
        // Node indices of the open elements, innermost last.
        let mut open: Vec<usize> = Vec::new();
        let mut implied = implied_ends.iter().peekable();
        let mut text_start = 0;
        let mut pos = 0;
        while let Some(lt) = memchr::memchr(b'<', &bytes[pos..]).map(|at| pos + at) {
            // Pacing (`crate::pace`): the bytes up to this `<`; a stopped page ends here (its
            // result is thrown away).
            if !pace::work(lt + 1 - pos) {
                break;
            }
            if !starts_tag(bytes, lt) {
                // Text (§13.2.5.6), like the rest of this text node.
                pos = lt + 1;
                continue;
            }
            if lt > text_start {
                nodes.push(Node::Text(text_start..lt));
            }
            while let Some(end) = implied.next_if(|end| end.at <= lt) {
                close(&mut nodes, &mut open, bytes, &bytes[end.name.clone()]);
            }
            let Some(tag) = read_tag(bytes, lt) else {
                text_start = bytes.len();
                break;
            };
            pos = tag.end;
            text_start = tag.end;
            match tag.kind {
                TagKind::End(name) => close(&mut nodes, &mut open, bytes, &bytes[name]),
                TagKind::Start {
                    name,
                    attributes,
                    self_closing,
                } => {
                    let has_children = !self_closing && !is_void(&bytes[name.clone()]);
                    nodes.push(Node::Element(Element {
                        name,
                        attributes,
                        subtree_end: nodes.len() + 1,
                        closed: false,
                    }));
                    if has_children {
                        open.push(nodes.len() - 1);
                    }
                }
                TagKind::Declaration => {}
            }
        }
        if text_start < bytes.len() {
            nodes.push(Node::Text(text_start..bytes.len()));
        }
        let end = nodes.len();
        for index in open {
            if let Some(Node::Element(element)) = nodes.get_mut(index) {
                element.subtree_end = end;
            }
        }
        Markup { source, nodes }
    }

    /// The nodes in document order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The source text of `range` (a [`Node::Text`] or an element's name); empty if `range`
    /// does not fall on character boundaries, which the ranges of this module always do.
    pub fn text(&self, range: &Range<usize>) -> &'s str {
        self.source.get(range.clone()).unwrap_or("")
    }

    /// The element's name (lower-case).
    pub fn name(&self, element: &Element) -> &'s [u8] {
        &self.source.as_bytes()[element.name.clone()]
    }

    /// The attributes of `element`, in source order.
    pub fn attributes(&self, element: &Element) -> Attributes<'s> {
        Attributes {
            bytes: &self.source.as_bytes()[element.attributes.clone()],
            at: 0,
            self_closing: false,
        }
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
            .get(index + 1..element.subtree_end)
            .unwrap_or(&[])
        {
            if let Node::Text(range) = node {
                text.push_str(self.text(range));
            }
        }
        text
    }
}

/// An end tag named `name`: closes the innermost open element if it has that name (the
/// prescan implied the end tags of the elements inside it), else nothing.
fn close(nodes: &mut [Node], open: &mut Vec<usize>, bytes: &[u8], name: &[u8]) {
    let Some(&innermost) = open.last() else {
        return;
    };
    let subtree_end = nodes.len();
    if let Some(Node::Element(element)) = nodes.get_mut(innermost) {
        if bytes[element.name.clone()] == *name {
            element.closed = true;
            element.subtree_end = subtree_end;
            open.pop();
        }
    }
}

/// Whether the `<` at `lt` starts a tag (§13.2.5.6): it does before a letter, `/`, `!` or `?`.
fn starts_tag(bytes: &[u8], lt: usize) -> bool {
    bytes
        .get(lt + 1)
        .is_some_and(|&b| b.is_ascii_alphabetic() || matches!(b, b'/' | b'!' | b'?'))
}

/// What a tag is.
enum TagKind {
    Start {
        name: Range<usize>,
        attributes: Range<usize>,
        self_closing: bool,
    },
    End(Range<usize>),
    /// `<!…>` or `<?…>` (the prescan blanked these; read as HTML5 would, for input that did
    /// not come through it).
    Declaration,
}

struct Tag {
    kind: TagKind,
    /// Index just past the tag.
    end: usize,
}

/// Reads the tag whose `<` is at `lt` (see [`starts_tag`]); `None` when the page ends inside
/// it. An end tag's name is all up to its `>` (the prescan cut `</li class=x>` to `</li>`); a
/// start tag's name is the run of name bytes the prescan lower-cased.
fn read_tag(bytes: &[u8], lt: usize) -> Option<Tag> {
    let to_gt = |from: usize| memchr::memchr(b'>', bytes.get(from..)?).map(|at| from + at);
    if bytes.get(lt + 1) == Some(&b'/') {
        let gt = to_gt(lt + 2)?;
        return Some(Tag {
            kind: TagKind::End(lt + 2..gt),
            end: gt + 1,
        });
    }
    if matches!(bytes.get(lt + 1), Some(b'!' | b'?')) {
        let gt = to_gt(lt + 1)?;
        return Some(Tag {
            kind: TagKind::Declaration,
            end: gt + 1,
        });
    }
    let name_start = lt + 1;
    let name_end = bytes[name_start..]
        .iter()
        .position(|&b| !is_name_byte(b))
        .map_or(bytes.len(), |at| name_start + at);
    let mut attributes = Attributes {
        bytes,
        at: name_end,
        self_closing: false,
    };
    while attributes.next().is_some() {}
    let gt = attributes.at;
    if bytes.get(gt) != Some(&b'>') {
        return None;
    }
    Some(Tag {
        kind: TagKind::Start {
            name: name_start..name_end,
            attributes: name_end..gt,
            self_closing: attributes.self_closing,
        },
        end: gt + 1,
    })
}

/// The attributes of a start tag as HTML5 tokenizes them (§13.2.5.32–40): names run to white
/// space, `/`, `>` or `=`; a value is quoted, or unquoted up to white space or `>`; a `/` not
/// right before `>` is ignored. Yields `(name, value)` as written (entities not decoded), the
/// value empty for an attribute without one. Duplicates are yielded too: HTML5 keeps the first,
/// so readers skip the others.
pub struct Attributes<'s> {
    bytes: &'s [u8],
    /// Where reading goes on; at the tag's `>` (or the end of `bytes`) once all are read.
    at: usize,
    /// Whether a `/` came right before the `>` (set once all are read).
    self_closing: bool,
}

impl<'s> Iterator for Attributes<'s> {
    type Item = (&'s [u8], &'s [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.bytes;
        let at = |i: usize| bytes.get(i).copied();
        let mut i = self.at;
        while at(i).is_some_and(|b| b.is_ascii_whitespace() || b == b'/') {
            i += 1;
        }
        if matches!(at(i), None | Some(b'>')) {
            self.self_closing = i > self.at && bytes[i - 1] == b'/';
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
            return Some((name, &bytes[i..i]));
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
                &bytes[start..end]
            }
            _ => {
                let start = j;
                while at(j).is_some_and(|b| !b.is_ascii_whitespace() && b != b'>') {
                    j += 1;
                }
                self.at = j;
                &bytes[start..j]
            }
        };
        Some((name, value))
    }
}

#[cfg(test)]
mod tests {
    use super::{ImpliedEnd, Markup, Node};

    /// Each node as a short string: `text` for text, `name[subtree_end]` for an element
    /// (`+` when an end tag closed it).
    fn outline(source: &str) -> Vec<String> {
        let markup = Markup::parse(source, &[]);
        markup
            .nodes()
            .iter()
            .map(|node| match node {
                Node::Text(range) => markup.text(range).to_string(),
                Node::Element(e) => format!(
                    "{}[{}]{}",
                    String::from_utf8_lossy(markup.name(e)),
                    e.subtree_end,
                    if e.closed { "+" } else { "" }
                ),
            })
            .collect()
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
        // `</div>` while `<b>` is innermost is ignored (the prescan writes out the end tags
        // HTML5 implies); so `<div>` and `<b>` run to the end of the page.
        assert_eq!(outline("<div><b>x</div>y"), ["div[4]", "b[4]", "x", "y"]);
        assert_eq!(outline("</p>a"), ["a"]);
    }

    #[test]
    fn implied_end_tags_close_before_the_tag_they_precede() {
        // The prescan found `</b>` implied before `</div>` (at byte 9; `b` is bytes 6..7).
        let source = "<div><b>x</div>y";
        let implied = [ImpliedEnd { at: 9, name: 6..7 }];
        let markup = Markup::parse(source, &implied);
        let closed: Vec<(usize, bool)> = markup
            .nodes()
            .iter()
            .filter_map(|node| match node {
                Node::Element(e) => Some((e.subtree_end, e.closed)),
                Node::Text(_) => None,
            })
            .collect();
        assert_eq!(closed, [(3, true), (3, true)]);
        assert_eq!(markup.nodes().len(), 4);
    }

    #[test]
    fn a_less_than_sign_that_starts_no_tag_is_text() {
        assert_eq!(outline("a <3 b< c<p>d"), ["a <3 b< c", "p[3]", "d"]);
        assert_eq!(outline("x<"), ["x<"]);
    }

    #[test]
    fn void_elements_and_self_closing_tags_have_no_children() {
        assert_eq!(
            outline("<p>a<br>b<img src=\"x\"/>c<span/>d</p>"),
            ["p[8]+", "a", "br[3]", "b", "img[5]", "c", "span[7]", "d"]
        );
    }

    #[test]
    fn a_tag_the_page_ends_inside_is_dropped() {
        assert_eq!(outline("<p>a</p>b<a href=\"x"), ["p[2]+", "a", "b"]);
    }

    #[test]
    fn a_quoted_value_may_hold_a_greater_than_sign() {
        assert_eq!(outline("<a title=\"1 > 0\" href=x>t</a>"), ["a[2]+", "t"]);
    }

    #[test]
    fn attributes_are_read_as_html5_tokenizes_them() {
        let markup = Markup::parse(
            "<a href=\"/x\" title='it\"s' data-a=b/c hidden / =odd class = big data-a=2>",
            &[],
        );
        let Some(Node::Element(a)) = markup.nodes().first() else {
            panic!("no element");
        };
        let attributes: Vec<(String, String)> = markup
            .attributes(a)
            .map(|(name, value)| {
                (
                    String::from_utf8_lossy(name).into_owned(),
                    String::from_utf8_lossy(value).into_owned(),
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

    #[test]
    fn inner_text_joins_the_text_of_all_descendants() {
        let markup = Markup::parse("<title>A <b>B</b> C</title>D", &[]);
        assert_eq!(markup.inner_text(0), "A B C");
        assert_eq!(markup.inner_text(2), "B");
        // Not an element.
        assert_eq!(markup.inner_text(5), "");
    }
}
