//! The element tree of a page, as `tl` builds it from a canonical copy of the prescanned page.
//!
//! The prescan (`prescan.rs`) reads the page's tags once, as HTML5 tokenizes them, and hands
//! each to a [`TreeWriter`], which writes the copy `tl` parses ([`TreeInput::text`]):
//! - text as written, but a `<` that starts no tag (`18 <3`) as `&lt;`, so `tl` never reads
//!   one as a tag (the walker decodes entities in text);
//! - each start tag as `<name>`, or `<name />` for a void element (HTML5 §13.1.2) or a tag
//!   written `/>`, without its attributes: the prescan records those as byte ranges of the
//!   page ([`AttributeSpan`]), so `tl`'s own attribute reading (last of a repeated attribute
//!   wins, an unquoted value stops at `/`) never applies;
//! - each end tag as `</name>`, with the end tags HTML5's tree builder implies before a tag
//!   (`implied_ends.rs`) written in;
//! - comments, declarations and the contents of raw-text and skipped elements as one space,
//!   but the contents of an element the walker skips (`<script>`, `<svg>`, …) as nothing;
//! - white space alone where the walker's text is empty or has a line break (after or before
//!   the start tag of a block element or `<br>`, after or before an end tag that closes a
//!   block element) not at all: the walker would drop it there anyway
//!   ([`TreeWriter::before_tag`]). On real pages that is close to half the text nodes
//!   (indentation), each 168 bytes in `tl`'s node vector, which grows by copying as it fills.
//! - no element the walker reads nothing from (a script, a style, a stylesheet `<link>`…)
//!   that would stay empty, unless text comes right before it ([`TreeWriter::start`]):
//!   about a tenth of a page's elements, which cost `tl` and the walker as much as any other;
//! - no element whose end tag comes right after its start tag and that the walker then reads
//!   nothing from (`<i class="fa fa-phone"></i>`, `<div class="clear"></div>` at a line
//!   break), unless text comes right before it ([`TreeWriter::write_end_tag`]): about one
//!   element in twenty on real pages.
//!
//! On that copy `tl` 0.7 nests as HTML5's tree builder does with the implied end tags given:
//! a start tag opens an element unless it ends in `/>` or is void; an end tag closes the
//! innermost open element when it has the end tag's name, and is ignored otherwise; an element
//! the page does not close runs to the end; a tag the page ends inside is dropped, with
//! everything after it. Its nodes are stored in document order (each element followed by its
//! descendants), which is the order the walker (`html.rs`) visits them in; [`Markup`] adds
//! what `tl` does not keep: each element's attributes, whether an end tag closed it, and the
//! index just past its descendants.
//!
//! Names are written with `.` as `+` (`tl` reads `.` as the end of a name, `+` as part of it,
//! and no HTML name the prescan reads holds a `+`), so `<a.b>` stays one element.

use std::ops::Range;

use crate::extract::address::META_ADDRESS_KEYS;
pub use crate::extract::implied_ends::StartName;
use crate::extract::implied_ends::{is_heading, name_key};
use crate::extract::words8::{any_byte_above, load};

/// The longest page the prescan reads, in bytes: positions are kept in 32 bits, and the copy
/// `tl` parses (at most about five times the page: `<` becomes `&lt;`, implied end tags are
/// added) must stay under `tl`'s 4 GiB. Pages are at most `fetch::MAX_PAGE_BYTES`, 2 MiB; the
/// prescan cuts longer input here.
pub const MAX_SOURCE_BYTES: usize = (u32::MAX / 8) as usize;

/// A byte range of the source, in 32 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// `range`, whose ends are at most `u32::MAX` (larger ends are cut to it): the references
    /// and tests make spans so, the prescan by [`Span::in_page`].
    #[cfg(test)]
    pub fn new(range: Range<usize>) -> Span {
        let cut = |at: usize| u32::try_from(at).unwrap_or(u32::MAX);
        Span {
            start: cut(range.start),
            end: cut(range.end),
        }
    }

    /// `start..end`, positions in a page the prescan reads (so at most [`MAX_SOURCE_BYTES`],
    /// where it cuts a page): kept as they are, without the cut of `Span::new` (tests), which cost two
    /// comparisons and moves for each end of each attribute of a page.
    #[inline]
    pub fn in_page(start: usize, end: usize) -> Span {
        debug_assert!(start <= MAX_SOURCE_BYTES && end <= MAX_SOURCE_BYTES);
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The range as `usize` positions.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One attribute of a start tag, as byte ranges: its name, lower-case, in the names the prescan
/// wrote (`Prescanned::names`), and its value as written, in the page (entities not decoded;
/// empty for an attribute without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttributeSpan {
    /// The name.
    pub name: Span,
    /// The value.
    pub value: Span,
}

/// An attribute's value as written (entities not decoded), a span of its page read by
/// [`AttributeValue::text`].
#[derive(Debug, Clone, Copy)]
pub struct AttributeValue<'s> {
    page: &'s str,
    span: Span,
}

impl<'s> AttributeValue<'s> {
    /// The value's text; empty if the span is not one of the page (which the prescan's
    /// spans always are).
    pub fn text(self) -> &'s str {
        self.page.get(self.span.range()).unwrap_or("")
    }

    /// All of `text` as a value (for the tests' readers).
    #[cfg(test)]
    pub fn whole(text: &'s str) -> AttributeValue<'s> {
        AttributeValue {
            page: text,
            span: Span::new(0..text.len()),
        }
    }
}

/// An index in 32 bits (no list here outnumbers the bytes of the page).
fn index_u32(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

/// What a [`TreeWriter`] makes of a page: the copy `tl` parses and the attributes of its start
/// tags.
#[derive(Debug, Default)]
pub struct TreeInput {
    /// The canonical copy (see the module docs).
    pub text: String,
    /// The attributes of the start tags, tag after tag ([`AttributeSpan`]).
    pub attributes: Vec<AttributeSpan>,
    /// For each start tag written, in order: its attributes, as indices into
    /// [`TreeInput::attributes`] (from, to), and what the pass-through test read of its class
    /// names ([`ClassRead`]).
    pub start_tags: Vec<(u32, u32, ClassRead)>,
}

impl TreeInput {
    /// Empties the copy and the lists, keeping their capacity (for the next page).
    pub fn clear(&mut self) {
        self.text.clear();
        self.attributes.clear();
        self.start_tags.clear();
    }
}

/// Writes the copy of a page that `tl` parses, from its tags given in page order by the
/// prescan, which writes the names of tags and attributes lower-cased into a buffer of its
/// own: each call takes that buffer as it is then (`names`), where element and attribute names
/// are ranges. Text and attribute values are read from the page as it was given
/// ([`TreeWriter::reusing`]); `&str` slices make the copy UTF-8 without a second validation.
#[derive(Debug, Default)]
pub struct TreeWriter<'p> {
    /// The page as given to the prescan.
    page: &'p str,
    /// The copy as it is written: `str` slices of the page and names written as characters
    /// ([`write_name`]). Built as a `String`, it is handed to `tl` as it is: built as bytes, it
    /// was validated as UTF-8 again at the end, every byte of every page's copy (more than
    /// writing the names a character at a time costs).
    out: String,
    attributes: Vec<AttributeSpan>,
    start_tags: Vec<(u32, u32, ClassRead)>,
    /// Where the text after the last tag starts, in the page.
    text_start: usize,
    /// Set once the page ended inside a tag: nothing after it counts.
    stopped: bool,
    /// Whether the walker's text is at a line break: the last thing written is a start tag
    /// after which the walker breaks the line, or an end tag that closed a block element,
    /// with nothing but tags of other elements written since (the walker writes no text for
    /// those), outside a `<template>` (see [`TreeWriter::before_tag`]).
    after_line_break: bool,
    /// How many `<template>` elements [`TreeWriter::open`] holds: inside one the walker breaks
    /// no lines (it reads only links there), so no line break carries past one.
    templates_open: usize,
    /// Whether the text not yet written holds a `<` that starts no tag (to be written `&lt;`).
    bare_less_than: bool,
    /// `tl`'s stack of open elements as it will be when it reads the copy written so far:
    /// where each open element's name is written in `out`. `tl` opens an element for each
    /// start tag not written `/>` and closes the innermost one with an end tag of its name
    /// (and nothing otherwise), so this knows which end tags close which element.
    open: Vec<OpenElement>,
    /// How many `<title>` elements [`TreeWriter::open`] holds: the walker reads a title's
    /// text as written (`Markup::inner_text`), so no white space is left out inside one.
    titles_open: usize,
    /// Whether text other than white space has been written outside a `<title>`: before
    /// that the walker's text is empty, and white space alone adds nothing to it.
    shown_text: bool,
    /// Whether the last thing written is a start tag that opened an element.
    opened_last: bool,
    /// Whether the last thing written is text (a blank's space included): an element left
    /// out after it would join that text to the text after it ([`TreeWriter::start`]).
    text_last: bool,
    /// Whether white space and elements that show nothing are left out: until the copy holds
    /// tags the prescan did not read ([`TreeWriter::unread`]), and never in tests that check
    /// that they show nothing ([`KEEP_WHITE_SPACE`]).
    drops: bool,
    /// Tells the elements the walker passes through, which are left out of the copy with
    /// their tags ([`TreeWriter::start`]), and the block elements it only breaks lines for;
    /// `None`: every element is written (a writer made with [`TreeWriter::reusing`] alone, or
    /// a page written again after its copy [`TreeWriter::conflicted`]).
    passes_through: Option<PassesThrough>,
    /// Set when the copy came to hold tags the prescan did not read while an element left out
    /// of it was open ([`TreeWriter::unread`]): which of its end tags `tl` would have matched
    /// is then unknown, so the page is written again without leaving such elements out.
    conflicted: bool,
    /// Whether the last thing that changed the walker's text is the line break and block
    /// start of a block element (`Walker::newline`, `Walker::block_boundary`), no text written
    /// since: another block element's start does nothing there, and one the walker only
    /// breaks lines for ([`Passage::BreakingLines`]) is left out ([`TreeWriter::start`]).
    at_block_boundary: bool,
    /// Whether an element left out at a block boundary has ended since: the walker breaks
    /// the line and starts a block there, which the copy owes until the next block element's
    /// tag does the same or, before anything else, an empty `<div></div>`
    /// ([`TreeWriter::settle_boundary`]).
    boundary_owed: bool,
    /// How many elements whose subtree the walker skips (`walker_skips`) are open, written:
    /// the walker reads no block element inside one.
    skipped_open: usize,
    /// Whether a start tag the walker would have entered is left out since the last text or
    /// start tag written: the walker reads numbers of two elements apart when it entered an
    /// element between them (class `text.glued_numbers`, `Walker::push_text`), so text that
    /// may open with a digit gets an empty element before it ([`TreeWriter::text_to`]).
    left_out_since_written: bool,
}

#[cfg(test)]
thread_local! {
    /// Tests set it to have the writers of this thread write all white space, blanks and
    /// elements (see [`TreeWriter::start`]), to check that what [`TreeWriter`] leaves out
    /// shows nothing.
    pub(crate) static KEEP_WHITE_SPACE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cfg(test)]
thread_local! {
    /// Tests of the copy's other rules, which use inline elements as any element, set it to
    /// have the writers of this thread write the elements the walker passes through.
    pub(crate) static KEEP_EVERY_ELEMENT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether writers leave out elements the walker passes through (see [`KEEP_EVERY_ELEMENT`]).
fn leaves_out_elements_passed_through() -> bool {
    #[cfg(test)]
    {
        !KEEP_EVERY_ELEMENT.get()
    }
    #[cfg(not(test))]
    {
        true
    }
}

/// Whether writers leave out white space that shows nothing (see [`KEEP_WHITE_SPACE`]).
fn drops_white_space() -> bool {
    #[cfg(test)]
    {
        !KEEP_WHITE_SPACE.get()
    }
    #[cfg(not(test))]
    {
        true
    }
}

impl<'p> TreeWriter<'p> {
    /// A writer for `page` (the page as the prescan was given it) that builds in the vectors of
    /// `input` (cleared, their capacity kept).
    pub fn reusing(page: &'p str, mut input: TreeInput) -> TreeWriter<'p> {
        input.clear();
        TreeWriter {
            page,
            out: input.text,
            attributes: input.attributes,
            start_tags: input.start_tags,
            drops: drops_white_space(),
            ..TreeWriter::default()
        }
    }

    /// The writer, leaving out the elements the walker passes through as `passes_through`
    /// tells them (see [`PassesThrough`]).
    pub fn leaving_out(self, passes_through: PassesThrough) -> TreeWriter<'p> {
        TreeWriter {
            passes_through: leaves_out_elements_passed_through().then_some(passes_through),
            ..self
        }
    }

    /// Whether the copy is not to be used: it came to hold tags the prescan did not read
    /// ([`TreeWriter::unread`]) while an element the walker passes through, left out of the
    /// copy, was open. The page is then written again by a writer that writes every element
    /// (not [`TreeWriter::leaving_out`] any).
    pub fn conflicted(&self) -> bool {
        // A block element left out and never closed would break the line at the end of the
        // walk, after the elements open inside it have been left: the copy has no place for
        // that.
        self.conflicted
            || self
                .open
                .iter()
                .any(|element| !element.written && element.block)
    }

    /// Writes the block boundary the copy owes ([`TreeWriter::boundary_owed`]) as an empty
    /// `<div></div>`, for which the walker breaks the line and starts a block as it would have
    /// for the end of the element left out: called before anything that the walker would
    /// read after that line break.
    fn settle_boundary(&mut self) {
        if !self.boundary_owed {
            return;
        }
        self.boundary_owed = false;
        self.out.push_str("<div></div>");
        let attributes = index_u32(self.attributes.len());
        self.start_tags
            .push((attributes, attributes, ClassRead::default()));
        self.text_last = false;
        self.opened_last = false;
        self.after_line_break = self.titles_open == 0;
        self.at_block_boundary = true;
        self.left_out_since_written = false;
    }

    /// Whether the walker reads the block elements written now (none inside a title, a
    /// template or an element whose subtree it skips, nor where the copy may hold tags the
    /// prescan did not read).
    fn walker_sees_blocks(&self) -> bool {
        self.drops && self.titles_open == 0 && self.templates_open == 0 && self.skipped_open == 0
    }

    /// What the walker does with an element named `name` with `attributes`, indices into
    /// [`TreeWriter::attribute_list`] ([`Passage::Reading`] where the writer is not told).
    fn passage(
        &self,
        names: &[u8],
        name: StartName,
        attributes: Range<usize>,
    ) -> (Passage, ClassRead) {
        self.passes_through
            .map_or((Passage::Reading, ClassRead::default()), |passage| {
                let attributes = self.attributes.get(attributes).unwrap_or_default();
                passage(name, attributes, names, self.page)
            })
    }

    /// The text before the tag at `lt`, then the end tags implied there: `implied` are byte
    /// ranges of element names in `names`, innermost first. `line_break_tag`: the tag is a
    /// start tag after which the walker breaks the line ([`StartName::breaks_line`]), whose
    /// attributes start at this index of [`TreeWriter::attribute_list`].
    ///
    /// `end_tag`: the tag is an end tag with this name, which will be written (it has its `>`).
    ///
    /// White space alone is not written where the walker's text has a line break anyway
    /// (`newline` drops a space before one, `push_collapsed` writes none after one) or is still
    /// empty (`push_collapsed` writes no space at its start):
    /// - between a start tag that breaks the line, or an end tag that closes a block element,
    ///   and the next tag;
    /// - between a tag and a start tag that breaks the line (no end tag implied between them;
    ///   not one with a Cloudflare email, whose place the walker records before its line break
    ///   drops the space), or an end tag (implied or written) that closes a block element: the
    ///   walker leaves the element, whose last child the white space is, right after it;
    /// - before any other text is written.
    ///
    /// Inside a `<title>`, whose text the walker reads as written, all is written.
    /// Much of a page's text between tags is such white space (indentation), each one more
    /// node for `tl` and the walker.
    ///
    /// Always inlined, the test for nothing to write: about a third of the tags (on
    /// `corpus-perf`), which paid for a call that saves and restores six registers.
    #[inline(always)]
    pub fn before_tag(
        &mut self,
        names: &[u8],
        lt: usize,
        implied: &[(usize, usize)],
        line_break_tag: Option<usize>,
        end_tag: Option<&[u8]>,
    ) {
        if self.stopped || implied.is_empty() && self.text_start >= lt {
            // Nothing to write: no text before the tag (most tags follow another) and no end
            // tag implied (`text_to` would find the text empty).
            return;
        }
        self.write_before_tag(names, lt, implied, line_break_tag, end_tag);
    }

    /// [`TreeWriter::before_tag`] where there is something to write.
    #[inline(never)]
    fn write_before_tag(
        &mut self,
        names: &[u8],
        lt: usize,
        implied: &[(usize, usize)],
        line_break_tag: Option<usize>,
        end_tag: Option<&[u8]>,
    ) {
        let next_end = match implied.first() {
            Some(&(start, end)) => names.get(start..end),
            None => end_tag,
        };
        // Looked at only for white space that nothing else lets leave out.
        let line_break_next = |writer: &Self| {
            line_break_tag.is_some_and(|first| {
                implied.is_empty() && !writer.holds_attribute(names, first, b"data-cfemail")
            }) || next_end.is_some_and(|name| writer.closes_block(name))
        };
        self.text_to(lt, line_break_next);
        for &(start, end) in implied {
            let name = names.get(start..end).unwrap_or_default();
            self.write_end_tag(names, name, name_key(name));
        }
    }

    /// Whether an end tag named `name` written now closes a block element (outside a title).
    fn closes_block(&self, name: &[u8]) -> bool {
        self.titles_open == 0
            && self
                .open
                .last()
                .is_some_and(|top| top.block && self.is_named(top, name))
    }

    /// Whether the open element `element` is named `name` (as the prescan gives names:
    /// [`OpenElement::key`] tells a name of at most eight bytes whole; a longer one is
    /// compared with the name written, where `.` is `+`).
    fn is_named(&self, element: &OpenElement, name: &[u8]) -> bool {
        self.is_named_keyed(element, name, name_key(name))
    }

    /// [`TreeWriter::is_named`], given `key`, the [`name_key`] of `name` (an end tag
    /// compares its name with up to three open elements).
    fn is_named_keyed(&self, element: &OpenElement, name: &[u8], key: u64) -> bool {
        key == element.start_name.key()
            && (name.len() <= 8 || {
                let range = element.name.start as usize..element.name.end as usize;
                let written = self.out.as_bytes().get(range).unwrap_or_default();
                written.len() == name.len()
                    && written
                        .iter()
                        .zip(name)
                        .all(|(&w, &n)| w == n || (w == b'+' && n == b'.'))
            })
    }

    /// Bytes `from..to` of the page show nothing (a comment, a declaration, the contents of a
    /// raw-text or skipped element): the text before them, then one space in their place
    /// (none where white space alone is left out, see [`TreeWriter::before_tag`]). Ignored
    /// where the writer is already past `from` (inside a skipped element).
    pub fn blank(&mut self, from: usize, to: usize) {
        if self.stopped || from < self.text_start {
            return;
        }
        self.text_to(from, |_| false);
        if !(self.drops && self.titles_open == 0 && (self.after_line_break || !self.shown_text)) {
            self.settle_boundary();
            self.at_block_boundary = false;
            self.left_out_since_written = false;
            self.out.push(' ');
            self.opened_last = false;
            self.text_last = true;
        }
        self.text_start = to;
    }

    /// Bytes `from..to` of the page are the contents of the element whose start tag was just
    /// written, blanked, and the walker skips that element: nothing is written for them
    /// (the element stays childless) if the start tag opened it, else as [`TreeWriter::blank`].
    pub fn blank_skipped_contents(&mut self, from: usize, to: usize) {
        if self.drops
            && self.titles_open == 0
            && self.opened_last
            && !self.stopped
            && from == self.text_start
        {
            self.text_start = to;
        } else {
            self.blank(from, to);
        }
    }

    /// Where the attributes of the next start tag go: the prescan appends them as it reads the
    /// tag, then calls [`TreeWriter::start`] with the length this list had before (or
    /// [`TreeWriter::discard_attributes`] if the tag makes no element).
    pub fn attribute_list(&mut self) -> &mut Vec<AttributeSpan> {
        &mut self.attributes
    }

    /// Whether the attributes from index `first` on (those of the tag being read, names as
    /// ranges of `names`) include one named `name`.
    pub fn holds_attribute(&self, names: &[u8], first: usize, name: &[u8]) -> bool {
        self.attributes
            .get(first..)
            .unwrap_or_default()
            .iter()
            .any(|attribute| names.get(attribute.name.range()) == Some(name))
    }

    /// Drops the attributes from index `first` on (a tag that makes no element).
    pub fn discard_attributes(&mut self, first: usize) {
        self.attributes.truncate(first);
    }

    /// A start tag (after [`TreeWriter::before_tag`]): its name and what is known of it
    /// (`facts`, [`StartName::of`] the name), its attributes (those appended to
    /// [`TreeWriter::attribute_list`] from index `first_attribute` on), and where it ends.
    pub fn start(
        &mut self,
        names: &[u8],
        (name, facts): (Range<usize>, StartName),
        first_attribute: usize,
        self_closing: bool,
        tag_end: usize,
    ) {
        if self.stopped {
            self.discard_attributes(first_attribute);
            return;
        }
        let name = names.get(name).unwrap_or_default();
        // An element the walker reads nothing from is left out of the copy (one node less
        // for `tl` and the walker; scripts, styles and most `<link>`s are about a tenth
        // of a page's elements). Not after text, which would then join the text after it
        // (`&amp<link>;` is `&;` to the walker, `&amp;` is `&`), nor where the copy may hold
        // tags the prescan did not read, nor inside a title, whose text is read as written.
        // The line-break state stays as it was (the walker writes nothing for the element);
        // `opened_last` is cleared as for any element that leaves none open.
        let may_take_back = self.drops && self.titles_open == 0 && !self.text_last;
        let may_leave_out = may_take_back
            && walker_reads_nothing(facts, &self.attributes[first_attribute..], names, self.page);
        let childless = self_closing || facts.void();
        if may_leave_out && childless {
            self.opened_last = false;
            self.left_out_since_written = true;
            self.discard_attributes(first_attribute);
            self.text_start = tag_end;
            return;
        }
        let may_pass =
            self.drops && self.titles_open == 0 && self.templates_open == 0 && name.len() <= 8;
        // A block element is looked at where it could be left out or settle an owed boundary.
        let sees_blocks = self.walker_sees_blocks();
        let not_asked = (Passage::Reading, ClassRead::default());
        let (passage, class_read) =
            if !(may_pass || facts.block() && sees_blocks && self.boundary_owed) {
                not_asked
            } else if facts.block() {
                if sees_blocks && (self.at_block_boundary || self.boundary_owed) {
                    self.passage(names, facts, first_attribute..self.attributes.len())
                } else {
                    not_asked
                }
            } else if self.text_last && may_continue_reference(self.out.as_bytes()) {
                not_asked
            } else {
                self.passage(names, facts, first_attribute..self.attributes.len())
            };
        if may_pass && passage == Passage::BreakingLines && self.at_block_boundary {
            // A block element at a block boundary that the walker only breaks lines for: its
            // start does nothing there. Its end does what the next block element's tag does
            // (the copy owes it until then, [`TreeWriter::boundary_owed`]). Left out as an
            // element the walker passes through is, but for that.
            self.discard_attributes(first_attribute);
            if !childless {
                self.open.push(OpenElement::left_out(facts, true));
            }
            self.after_line_break = true;
            self.text_start = tag_end;
            return;
        }
        if may_pass && passage == Passage::Through {
            // An element the walker enters and leaves doing nothing (most `<span>`s, `<strong>`,
            // `<em>`, `<i>`, `<input>`…): neither its tags nor a node, its children and the
            // text around it `tl`'s as they would be without it. Nothing is written, so the
            // state of the writer stays as it was; its end tag is matched in the mirror of
            // `tl`'s stack ([`TreeWriter::write_end_tag`]), where it is kept unwritten (its
            // name is at most eight bytes, so its key tells it whole).
            self.discard_attributes(first_attribute);
            self.left_out_since_written = true;
            if !childless {
                self.open.push(OpenElement::left_out(facts, false));
            }
            self.text_start = tag_end;
            return;
        }
        if passage == Passage::BreakingLines && sees_blocks {
            // Its start breaks the line and starts a block as the owed boundary would, where
            // the walker's text then is.
            self.boundary_owed = false;
        } else {
            self.settle_boundary();
        }
        if facts.block() && sees_blocks {
            self.at_block_boundary = true;
        }
        self.left_out_since_written = false;
        let taken_back = TakenBack {
            from: self.out.len(),
            start_tag_end: 0,
            after_line_break: self.after_line_break,
            reads_nothing: may_leave_out,
        };
        let block = facts.block();
        // The walker writes no text when it enters another element, so a line break before
        // it still ends the walker's text after it.
        let is_template = facts.is(StartName::TEMPLATE);
        self.after_line_break = facts.breaks_line()
            || (self.after_line_break && self.templates_open == 0 && !is_template);
        self.text_last = false;
        self.out.push('<');
        let name_start = index_u32(self.out.len());
        write_name(&mut self.out, name);
        let written = name_start..index_u32(self.out.len());
        if childless {
            self.out.push_str(" />");
            self.opened_last = false;
        } else {
            self.out.push('>');
            let counted = Counted {
                title: facts.is(StartName::TITLE),
                template: is_template,
                skipped: facts.is(StartName::WALKER_SKIPS),
            };
            self.titles_open += usize::from(counted.title);
            self.templates_open += usize::from(counted.template);
            self.skipped_open += usize::from(counted.skipped);
            // Taken back, start tag and all, if its end tag comes when nothing written since
            // is left in the copy (its children, if any, taken back) and the walker reads
            // nothing from it ([`walker_reads_nothing`], or [`empty_element_shows_nothing`],
            // looked at only then); not if text comes right before it.
            let take_back = may_take_back.then_some(TakenBack {
                start_tag_end: self.out.len(),
                ..taken_back
            });
            self.open.push(OpenElement {
                start_name: facts,
                name: written,
                block,
                take_back,
                written: true,
                attributes: (index_u32(first_attribute), index_u32(self.attributes.len())),
                counted,
            });
            self.opened_last = true;
        }
        // The class names the test read go to the walker with the tag, which then need not
        // read them again.
        self.start_tags.push((
            index_u32(first_attribute),
            index_u32(self.attributes.len()),
            class_read,
        ));
        self.text_start = tag_end;
    }

    /// An end tag (after [`TreeWriter::before_tag`]) named `name`, whose [`name_key`] is
    /// `key`, ending at `tag_end`.
    pub fn end(&mut self, names: &[u8], name: &[u8], key: u64, tag_end: usize) {
        if self.stopped {
            return;
        }
        self.write_end_tag(names, name, key);
        self.text_start = tag_end;
    }

    /// A `<` that starts no tag (HTML5 §13.2.5.6: text), in the text not yet written.
    pub fn bare_less_than(&mut self) {
        self.bare_less_than = true;
    }

    /// A tag that makes no node but is not text (`</ x>`, a bogus comment for HTML5), ending
    /// at `tag_end`.
    pub fn skip(&mut self, tag_end: usize) {
        if !self.stopped {
            self.text_start = tag_end;
        }
    }

    /// The page ends inside the tag [`TreeWriter::before_tag`] was called for: it and
    /// everything after it are dropped.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// The copy, with the text after the last tag (up to `len`, the length of the page).
    pub fn finish(mut self, len: usize) -> TreeInput {
        if !self.stopped {
            self.text_to(len, |_| false);
        }
        self.settle_boundary();
        TreeInput {
            text: self.out,
            attributes: self.attributes,
            start_tags: self.start_tags,
        }
    }

    /// Copies the text from `text_start` to `to` (a `<` as `&lt;`) and moves `text_start`;
    /// white space alone is left out after a line break, or before one (`line_break_next`,
    /// asked only then).
    /// The text's ends are at `<`, `>` or the ends of the page (ASCII bytes), so on character
    /// boundaries; were one not, nothing would be copied.
    fn text_to(&mut self, to: usize, line_break_next: impl FnOnce(&Self) -> bool) {
        let page = self.page;
        let text = page.get(self.text_start..to).unwrap_or_default();
        self.text_start = self.text_start.max(to);
        if text.is_empty() {
            return;
        }
        let bare_less_than = std::mem::take(&mut self.bare_less_than);
        let droppable = self.drops
            && self.titles_open == 0
            && is_white_space(text.as_bytes())
            && (self.after_line_break || !self.shown_text || line_break_next(self));
        if droppable {
            return;
        }
        self.settle_boundary();
        if std::mem::take(&mut self.left_out_since_written)
            && matches!(text.as_bytes().first(), Some(b'0'..=b'9' | b'&'))
        {
            // An element the walker would have entered before this text is left out: an
            // empty one in its place, for which it enters an element as it would have.
            self.out.push_str("<b></b>");
            let attributes = index_u32(self.attributes.len());
            self.start_tags
                .push((attributes, attributes, ClassRead::default()));
            self.text_last = false;
        }
        self.at_block_boundary = false;
        self.after_line_break = false;
        self.opened_last = false;
        self.text_last = true;
        // Text other than white space (outside a title, white space alone is droppable until
        // there is some).
        self.shown_text |= self.titles_open == 0;
        let mut rest = text;
        if bare_less_than {
            while let Some(lt) = rest.find('<') {
                self.out.push_str(&rest[..lt]);
                self.out.push_str("&lt;");
                rest = &rest[lt + 1..];
            }
        }
        // The prescan says where text may hold tags it did not read ([`TreeWriter::unread`]).
        #[cfg(test)]
        assert!(
            !self.drops || !rest.contains('<'),
            "tags not read: {rest:?}"
        );
        self.out.push_str(rest);
    }

    /// The copy will hold tags the prescan did not read: it read past the end of a skipped
    /// element (a raw-text element inside one, a comment or a tag's quoted value running past
    /// it), and the text after that end is copied as it is. `tl` reads those tags, so
    /// [`TreeWriter::open`] no longer mirrors its stack: from here on all white space is
    /// written.
    pub fn unread(&mut self) {
        self.conflicted |= self.open.iter().any(|element| !element.written);
        self.drops = false;
    }

    /// Writes `</>` (an end tag `tl` never matches: it closes nothing and makes no node, but
    /// ends the text node before it) if the copy ends in text that the text written next
    /// could continue into one character reference ([`may_continue_reference`]), where a tag
    /// the copy leaves out kept the two apart.
    fn keep_text_apart(&mut self) {
        if self.text_last && may_continue_reference(self.out.as_bytes()) {
            self.out.push_str("</>");
            self.text_last = false;
        }
    }

    /// Writes an end tag and closes the innermost open element if it has its name, as `tl`
    /// will (`names`: the names the prescan lower-cased, which attribute names are ranges of;
    /// `key`: the [`name_key`] of `name`).
    fn write_end_tag(&mut self, names: &[u8], name: &[u8], key: u64) {
        if let Some(top) = self.open.last().filter(|top| !top.written) {
            // The innermost element is one the copy leaves out: the end tag closes it if it
            // has its name, and `tl` would ignore it otherwise (it is matched with the
            // innermost element only). Either way nothing is written but, where needed, what
            // keeps the text before it apart from the text after it, as the tag did.
            if self.is_named_keyed(top, name, key) {
                let block = top.block;
                self.open.pop();
                if block {
                    // A block element left out at a block boundary ([`TreeWriter::start`]):
                    // the walker breaks the line and starts a block here, which the copy now
                    // owes (and which keeps the text before apart from the text after).
                    self.boundary_owed = true;
                    self.at_block_boundary = false;
                    self.after_line_break = true;
                    return;
                }
            }
            self.keep_text_apart();
            return;
        }
        // An end tag that closes a block element the walker only breaks lines for settles an
        // owed boundary; anything else the walker reads comes after it.
        let settles_boundary = self.boundary_owed
            && self.walker_sees_blocks()
            && self.open.last().is_some_and(|top| {
                top.block
                    && self.is_named_keyed(top, name, key)
                    && self
                        .passage(
                            names,
                            top.start_name,
                            top.attributes.0 as usize..top.attributes.1 as usize,
                        )
                        .0
                        == Passage::BreakingLines
            });
        if settles_boundary {
            self.boundary_owed = false;
        } else {
            self.settle_boundary();
        }
        if let Some((top, element)) = self
            .open
            .last()
            .and_then(|top| Some((top, top.take_back.as_ref()?)))
        {
            // Nothing left written since its start tag (the copy grows but where an element is
            // taken back), so the last start tag written is its own.
            if self.drops
                && self.out.len() == element.start_tag_end
                && self.is_named_keyed(top, name, key)
                && (element.reads_nothing || {
                    let (from, to, _) = self.start_tags.last().copied().unwrap_or_default();
                    let attributes = self
                        .attributes
                        .get(from as usize..to as usize)
                        .unwrap_or_default();
                    empty_element_shows_nothing(name, top.block, attributes, names)
                })
            {
                let (from, after_line_break) = (element.from, element.after_line_break);
                let skipped = top.counted.skipped;
                self.out.truncate(from);
                self.left_out_since_written = true;
                self.open.pop();
                self.skipped_open -= usize::from(skipped);
                // Its attributes stay in the list, referred to by no start tag: an end tag
                // implied before a start tag comes after that tag's attributes are recorded.
                self.start_tags.pop();
                self.after_line_break = after_line_break;
                self.opened_last = false;
                return;
            }
        }
        self.text_last = false;
        self.out.push_str("</");
        write_name(&mut self.out, name);
        self.out.push('>');
        let line_break_before = std::mem::take(&mut self.after_line_break);
        self.opened_last = false;
        // `tl` compares the names as written (`.` as `+`): the same bytes for the same name.
        if let Some(top) = self.open.last() {
            if self.is_named_keyed(top, name, key) {
                // Leaving an element the walker writes no text but for the line break after
                // a block element; it broke none inside a template.
                // (Its counts as looked up at its start tag: the same name.)
                let counted = top.counted;
                self.after_line_break = self.titles_open == 0
                    && (top.block
                        || (line_break_before && self.templates_open == 0 && !counted.template));
                let block = top.block;
                self.open.pop();
                self.titles_open -= usize::from(counted.title);
                self.templates_open -= usize::from(counted.template);
                self.skipped_open -= usize::from(counted.skipped);
                if block && self.walker_sees_blocks() {
                    self.at_block_boundary = true;
                }
            }
        }
    }
}

/// Whether `text` is white space and controls alone (bytes up to 0x20), which the walker
/// reads as white space (`whitespace.rs`). Most text that is not starts or ends with another
/// byte, looked at first; the rest is read eight bytes at a time.
fn is_white_space(text: &[u8]) -> bool {
    let white = |b: Option<&u8>| b.is_some_and(|&b| b <= b' ');
    if !(white(text.first()) && white(text.last())) {
        return false;
    }
    let mut at = 0;
    while let Some(word) = load(text, at) {
        if any_byte_above(word, b' ') {
            return false;
        }
        at += 8;
    }
    text.get(at..)
        .unwrap_or_default()
        .iter()
        .all(|&b| b <= b' ')
}

/// Where an element the copy may take back starts, and the writer's line-break state before it
/// ([`OpenElement::take_back`]).
#[derive(Debug)]
struct TakenBack {
    /// Where its start tag is written in the copy.
    from: usize,
    /// Where its start tag ends in the copy.
    start_tag_end: usize,
    /// [`TreeWriter::after_line_break`] before it.
    after_line_break: bool,
    /// Whether the walker reads nothing from it whatever it holds ([`walker_reads_nothing`]);
    /// else it is taken back only if [`empty_element_shows_nothing`].
    reads_nothing: bool,
}

/// Whether the walker (`html.rs`, `Walker::enter` and `Walker::leave`) reads nothing from an
/// element named `name` with `attributes` (ranges of `names`) that an end tag closes right
/// after its start tag; `block`: it is a block element ([`is_block`]).
///
/// The walker enters and leaves it with no text in between: a capture it opens (a link's
/// text, a marked property) or a range (a heading, a footer) stays empty, and those are
/// dropped; a hidden one hides nothing; a scope holds no property. What it still reads: a
/// block element (it starts a block, `Document::block_starts`, even where the text is at a
/// line break already and even when empty), a link
/// (`<a>`, `<area>`), the page's language (`<html>`), a title, a `<template>` or `<head>`
/// (kept for their state), an `<iframe>` (its `src`, `Document::frame_sources`), a heading (an inner one ends the range of the one around it), and
/// two attributes of any element: `data-cfemail` (Cloudflare's
/// obfuscated email) and `content` (a microdata property's value, with `itemprop`). Void
/// elements never get here: they have no end tag.
fn empty_element_shows_nothing(
    name: &[u8],
    block: bool,
    attributes: &[AttributeSpan],
    names: &[u8],
) -> bool {
    let read_by_name = matches!(
        name,
        b"a" | b"area" | b"html" | b"head" | b"title" | b"template" | b"iframe"
    ) || is_heading(name);
    !read_by_name
        && !block
        && !attributes.iter().any(|attribute| {
            matches!(
                names.get(attribute.name.range()),
                Some(b"content" | b"data-cfemail")
            )
        })
}

/// Whether the walker (`html.rs`, `Walker::enter`) reads nothing from an element whose name is
/// in the lists `name` tells with `attributes` (names ranges of `names`, values of `page`) and
/// no children, so that leaving it out of the copy changes nothing it finds: an element whose
/// subtree it skips ([`StartName::WALKER_SKIPS`]) unless it
/// holds a `data-cfemail` (Cloudflare's obfuscated email) or is an `<iframe>` with a `src`
/// (a map embed's place, `Document::frame_sources`), a `<link>` whose `rel` does not say
/// `canonical`, and a `<meta>` without `content` or without a `name`, `property` or `itemprop`
/// that is one of [`META_KEYS_READ`] or [`META_ADDRESS_KEYS`] (the walker keeps metas with a
/// key and content, and only those keys are looked up). Values are as written in `page`.
fn walker_reads_nothing(
    name: StartName,
    attributes: &[AttributeSpan],
    names: &[u8],
    page: &str,
) -> bool {
    // Most elements are none of these: their bits tell at once.
    if !name.is(StartName::LINK | StartName::META | StartName::WALKER_SKIPS) {
        return false;
    }
    let named = |attribute: &AttributeSpan, wanted: &[u8]| {
        names.get(attribute.name.range()) == Some(wanted)
    };
    let has = |wanted: &[u8]| attributes.iter().any(|a| named(a, wanted));
    if name.is(StartName::LINK) {
        !attributes.iter().any(|a| {
            named(a, b"rel")
                && page
                    .as_bytes()
                    .get(a.value.range())
                    .unwrap_or_default()
                    .windows(9)
                    .any(|word| word.eq_ignore_ascii_case(b"canonical"))
        })
    } else if name.is(StartName::META) {
        // The walker's key is one of these attributes, trimmed and lower-cased.
        let read_key = |a: &AttributeSpan| {
            (named(a, b"name") || named(a, b"property") || named(a, b"itemprop"))
                && page.get(a.value.range()).is_some_and(|key| {
                    let key = key.trim();
                    META_KEYS_READ
                        .iter()
                        .chain(META_ADDRESS_KEYS.iter().map(|(read, _)| read))
                        .any(|read| key.eq_ignore_ascii_case(read))
                })
        };
        !(has(b"content") && attributes.iter().any(read_key))
    } else {
        !(has(b"data-cfemail") || name.is(StartName::IFRAME) && has(b"src"))
    }
}

/// The keys of the metas the extraction looks up (`ParsedPage` in `mod.rs`: the page's declared
/// URL, the company name, the region hint); the copy leaves out the others, which are a tenth
/// of a page's elements on some pages (`og:title`, `twitter:*`, `viewport`, …). A test holds the
/// list to the keys `mod.rs` names.
pub(crate) const META_KEYS_READ: [&str; 5] = [
    "og:url",
    "og:site_name",
    "application-name",
    "apple-mobile-web-app-title",
    "geo.region",
];

/// What the walker (`html.rs`) does with an element, wherever it is and whatever it holds:
/// given its name's lists ([`StartName`]), its attributes (names ranges of the names the prescan wrote, the third
/// argument; values of the page, the fourth). `html.rs` gives it (`walker_passes_through`),
/// as this module stands below the walker.
/// With the passage it gives what it read of the element's first `class` attribute, if it
/// read it ([`ClassRead`]).
pub type PassesThrough = fn(StartName, &[AttributeSpan], &[u8], &str) -> (Passage, ClassRead);

/// What the pass-through test ([`PassesThrough`]) read of an element's first `class`
/// attribute, carried to the walker with the element so that the walker does not read the
/// names a second time: a byte `html.rs` packs and unpacks; 0 when the test did not read
/// them (it stops at the first attribute the walker reads, and is not asked for every
/// element).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassRead(pub(crate) u8);

/// What the walker does with an element ([`PassesThrough`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passage {
    /// Nothing, entering it or leaving it.
    Through,
    /// It breaks the line and starts a block (`Walker::newline`, `Walker::block_boundary`)
    /// entering it and again leaving it, and nothing else: a block element.
    BreakingLines,
    /// Something else, or more.
    Reading,
}

/// An element open in `tl`'s tree as a [`TreeWriter`] mirrors it.
#[derive(Debug)]
struct OpenElement {
    /// Its name's key ([`name_key`]) and lists, as looked up at its start tag.
    start_name: StartName,
    /// Where its name is written in the copy.
    name: Range<u32>,
    /// Whether it is a block element ([`is_block`]).
    block: bool,
    /// Where it is written and the state before it, if it may be taken back
    /// ([`TreeWriter::write_end_tag`]).
    take_back: Option<TakenBack>,
    /// Whether its start tag is written (else the walker passes through it and the copy
    /// leaves it out, [`TreeWriter::start`]).
    written: bool,
    /// Its attributes, indices into [`TreeWriter::attribute_list`] (from, to).
    attributes: (u32, u32),
    /// Whether it is a `<title>`, a `<template>`, an element whose subtree the walker skips
    /// (`walker_skips`): what its end tag changes in [`TreeWriter::titles_open`],
    /// [`TreeWriter::templates_open`] and [`TreeWriter::skipped_open`], looked up once at its
    /// start tag (only for an element written: one left out changes none of them).
    counted: Counted,
}

impl OpenElement {
    /// An element the copy leaves out (its start tag not written), named as `start_name`
    /// tells, `block` whether it is a block element: kept only so that its end tag is matched.
    fn left_out(start_name: StartName, block: bool) -> Self {
        OpenElement {
            start_name,
            name: 0..0,
            block,
            take_back: None,
            written: false,
            attributes: (0, 0),
            counted: Counted::default(),
        }
    }
}

/// Which of the writer's counts of open elements an element is in ([`OpenElement::counted`]).
#[derive(Debug, Default, Clone, Copy)]
struct Counted {
    title: bool,
    template: bool,
    skipped: bool,
}

/// Whether text ending `out` could run on into one character reference with text written
/// after it (`&amp` `;`, `&#6` `4;`, `&` `lt;`): it ends in `&` and letters, digits and `#`,
/// or in a run of those too long to tell (a reference's name is at most 32 bytes; a longer
/// run is taken as one that may). The walker decodes each text node on its own, so such text
/// must stay a node of its own.
fn may_continue_reference(out: &[u8]) -> bool {
    const LONGEST_RUN: usize = 40;
    for (read, &b) in out.iter().rev().enumerate() {
        if read == LONGEST_RUN {
            return true;
        }
        if !(b.is_ascii_alphanumeric() || b == b'#') {
            return b == b'&';
        }
    }
    false
}

/// Elements that start and end a line of text (pitfall 10 of the walker, `html.rs`).
pub(super) fn is_block(name: &[u8]) -> bool {
    matches!(
        name,
        b"address"
            | b"article"
            | b"aside"
            | b"blockquote"
            | b"body"
            | b"caption"
            | b"center"
            | b"dd"
            | b"details"
            | b"dialog"
            | b"div"
            | b"dl"
            | b"dt"
            | b"fieldset"
            | b"figcaption"
            | b"figure"
            | b"footer"
            | b"form"
            | b"h1"
            | b"h2"
            | b"h3"
            | b"h4"
            | b"h5"
            | b"h6"
            | b"header"
            | b"hr"
            | b"html"
            | b"legend"
            | b"li"
            | b"main"
            | b"nav"
            | b"ol"
            | b"p"
            | b"pre"
            | b"section"
            | b"summary"
            | b"table"
            | b"tbody"
            | b"td"
            | b"tfoot"
            | b"th"
            | b"thead"
            | b"tr"
            | b"ul"
    )
}

/// Elements whose subtree the walker (`html.rs`, `Walker::enter`) skips, reading no text from
/// it (tested there); the list [`StartName::WALKER_SKIPS`] is held to.
#[cfg(test)]
pub fn walker_skips(name: &[u8]) -> bool {
    matches!(
        name,
        b"script"
            | b"style"
            | b"textarea"
            | b"select"
            | b"svg"
            | b"iframe"
            | b"noscript"
            | b"object"
            | b"datalist"
    )
}

/// Writes an element name as `tl` reads one: `.` as `+` (see the module docs). Names are
/// ASCII (the prescan reads letters, digits, `-`, `_`, `:` and `.`); a byte over 0x7F would be
/// written as the character of its value. Each byte is pushed as a character (one byte for
/// ASCII): no validation of the name. Always inlined: its call (saving six registers) cost
/// about as much as copying the name.
#[inline(always)]
fn write_name(out: &mut String, name: &[u8]) {
    #[cfg(test)]
    if REFERENCE_WRITE_NAME.get() {
        return write_name_as_chars(out, name);
    }
    for &b in name {
        out.push(if b == b'.' { '+' } else { char::from(b) });
    }
}

/// [`write_name`] through a second string (as the copy was written when it was first a
/// `String`): the reference it is held to.
#[cfg(test)]
fn write_name_as_chars(out: &mut String, name: &[u8]) {
    let mut text = String::new();
    text.extend(
        name.iter()
            .map(|&b| if b == b'.' { '+' } else { char::from(b) }),
    );
    out.push_str(&text);
}

#[cfg(test)]
thread_local! {
    /// Tests set it to have [`write_name`] on this thread write a character at a time.
    pub(crate) static REFERENCE_WRITE_NAME: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// What [`Markup`] knows of an element beyond `tl`'s node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ElementFacts {
    /// Its attributes: indices into [`TreeInput::attributes`], from and to.
    attributes: (u32, u32),
    /// Index of the first node after its descendants.
    subtree_end: u32,
    /// Whether an end tag closed it (else the page ended inside it, or it is void).
    closed: bool,
    /// What the pass-through test read of its class names.
    class_read: ClassRead,
}

/// One node of a [`Markup`], as the walker reads it.
#[derive(Debug, Clone, Copy)]
pub enum Node<'m> {
    /// Text between tags (entities not decoded).
    Text(&'m str),
    /// An element.
    Element(Element<'m>),
}

/// An element of a [`Markup`].
#[derive(Debug, Clone, Copy)]
pub struct Element<'m> {
    /// Its name, lower-case (`+` where the page wrote `.`).
    pub name: &'m [u8],
    facts: ElementFacts,
}

impl Element<'_> {
    /// Index of the first node after this element's descendants (they are the nodes between
    /// this one and that index).
    pub fn subtree_end(&self) -> usize {
        self.facts.subtree_end as usize
    }

    /// Whether an end tag closed the element (else the page ended inside it, or it is void).
    pub fn closed(&self) -> bool {
        self.facts.closed
    }

    /// What the prescan's pass-through test read of the element's first `class` attribute.
    pub fn class_read(&self) -> ClassRead {
        self.facts.class_read
    }
}

/// The element tree of one prescanned page: `tl`'s nodes of [`TreeInput::text`], with each
/// element's attributes (names and values as ranges, [`AttributeSpan`]), whether it was closed and where its
/// descendants end.
pub struct Markup<'s> {
    /// `tl`'s document (`None` if `tl` refused the copy).
    dom: Option<tl::VDom<'s>>,
    /// The text `tl` parsed.
    tree: &'s str,
    /// The names the prescan wrote, lower-case, which attribute names are ranges of.
    prescanned: &'s [u8],
    /// The page as given to the prescan, where attribute values are as written, as `&str`.
    page: &'s str,
    attributes: &'s [AttributeSpan],
    /// One entry per node of `dom` (those of text nodes unused).
    facts: Vec<ElementFacts>,
}

impl<'s> Markup<'s> {
    /// Parses `input`, written by a [`TreeWriter`] from `page` (`prescanned`: the names the
    /// prescan wrote, which attribute names are ranges of), keeping what it learns of each
    /// element in `facts` (cleared first: a vector kept from an earlier page, see
    /// [`Markup::into_facts`]). A copy `tl` refuses (over 4 GiB, which [`MAX_SOURCE_BYTES`]
    /// rules out) yields no nodes.
    pub fn parse(
        prescanned: &'s [u8],
        page: &'s str,
        input: &'s TreeInput,
        mut facts: Vec<ElementFacts>,
    ) -> Markup<'s> {
        let tree = input.text.as_str();
        let dom = tl::parse(tree, tl::ParserOptions::default()).ok();
        let nodes = dom.as_ref().map_or(&[][..], |dom| dom.nodes());
        element_facts(nodes, &input.start_tags, &mut facts);
        Markup {
            dom,
            tree,
            prescanned,
            page,
            attributes: &input.attributes,
            facts,
        }
    }

    /// The vector [`Markup::parse`] kept its facts in, emptied, for the next page.
    pub fn into_facts(self) -> Vec<ElementFacts> {
        let mut facts = self.facts;
        facts.clear();
        facts
    }

    /// `tl`'s nodes in document order.
    fn nodes(&self) -> &[tl::Node<'s>] {
        self.dom.as_ref().map_or(&[], |dom| dom.nodes())
    }

    /// The node at `index` (document order), if there is one.
    pub fn node(&self, index: usize) -> Option<Node<'_>> {
        Some(match self.nodes().get(index)? {
            tl::Node::Tag(tag) => Node::Element(Element {
                name: tag.name().as_bytes(),
                facts: self.facts.get(index).copied().unwrap_or_default(),
            }),
            tl::Node::Raw(text) => Node::Text(self.tree_text(text.as_bytes())),
            // The copy holds no comment (the prescan blanks them).
            tl::Node::Comment(_) => Node::Text(""),
        })
    }

    /// The attributes of `element` in source order, as `(name, value)`: the name lower-case,
    /// the value as written (entities not decoded). Duplicates are yielded too: HTML5 keeps
    /// the first, so readers skip the others.
    #[cfg(test)]
    pub fn attributes(
        &self,
        element: &Element<'_>,
    ) -> impl Iterator<Item = (&'s [u8], &'s str)> + use<'s> {
        self.attribute_values(element)
            .map(|(name, value)| (name, value.text()))
    }

    /// [`Markup::attributes`], each value sliced from the page only when it is read: most
    /// are not (an element's `id`, `data-*`, `aria-*`, a `class` whose names came handed
    /// over), and each slice reads the page at both of its ends, long after the prescan did.
    pub fn attribute_values(
        &self,
        element: &Element<'_>,
    ) -> impl Iterator<Item = (&'s [u8], AttributeValue<'s>)> + use<'s> {
        let (from, to) = element.facts.attributes;
        let (prescanned, page) = (self.prescanned, self.page);
        self.attributes
            .get(from as usize..to as usize)
            .unwrap_or_default()
            .iter()
            .map(move |a| {
                (
                    prescanned.get(a.name.range()).unwrap_or_default(),
                    AttributeValue {
                        page,
                        span: a.value,
                    },
                )
            })
    }

    /// The text of the descendants of the element at `index`, concatenated (entities not
    /// decoded); empty if `index` is not an element.
    pub fn inner_text(&self, index: usize) -> String {
        let Some(Node::Element(element)) = self.node(index) else {
            return String::new();
        };
        let mut text = String::new();
        for inner in index + 1..element.subtree_end() {
            if let Some(Node::Text(part)) = self.node(inner) {
                text.push_str(part);
            }
        }
        text
    }

    /// `bytes` (a slice of the parsed text, as `tl` hands out) as a `&str` of it; empty if it
    /// is not one, which `tl`'s nodes always are.
    fn tree_text(&self, bytes: &[u8]) -> &'s str {
        let start = (bytes.as_ptr() as usize).wrapping_sub(self.tree.as_ptr() as usize);
        start
            .checked_add(bytes.len())
            .and_then(|end| self.tree.get(start..end))
            .unwrap_or("")
    }
}

/// Each element's facts from `tl`'s nodes: its attributes (the `k`-th element is the `k`-th
/// start tag written), whether its end tag closed it (`tl` then extends its raw text from
/// `<name>` to `</name>`: at least twice the name and five bytes, which neither `<name>` nor
/// `<name />` reaches), and where its descendants end (its last child's end, found in one pass
/// from the last node back, as children come after their parent).
fn element_facts(
    nodes: &[tl::Node<'_>],
    start_tags: &[(u32, u32, ClassRead)],
    facts: &mut Vec<ElementFacts>,
) {
    facts.clear();
    facts.resize(nodes.len(), ElementFacts::default());
    // Elements seen so far, from the last back: the `k`-th from the end is the `k`-th start
    // tag written from the end.
    let mut from_end = 0;
    for (index, node) in nodes.iter().enumerate().rev() {
        let next = index_u32(index + 1);
        let tl::Node::Tag(tag) = node else {
            facts[index].subtree_end = next;
            continue;
        };
        let subtree_end = tag
            .children()
            .top()
            .as_slice()
            .last()
            .and_then(|last| facts.get(last.get_inner() as usize))
            .map_or(next, |last| last.subtree_end.max(next));
        from_end += 1;
        let (from, to, class_read) = start_tags
            .len()
            .checked_sub(from_end)
            .and_then(|ordinal| start_tags.get(ordinal))
            .copied()
            .unwrap_or_default();
        facts[index] = ElementFacts {
            attributes: (from, to),
            subtree_end,
            closed: tag.raw().as_bytes().len() >= 2 * tag.name().as_bytes().len() + 5,
            class_read,
        };
    }
    if from_end != start_tags.len() {
        // Not one element per start tag written (which the copy rules out): no attributes
        // rather than another element's.
        for fact in facts.iter_mut() {
            fact.attributes = (0, 0);
            fact.class_read = ClassRead::default();
        }
    }
}

/// The attributes of a start tag read again from its text, as HTML5 tokenizes them
/// (§13.2.5.32–40), the way the prescan reads them once as it scans the page: the model its
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
pub(crate) mod tests {
    use super::{name_key, Markup, Node, TreeInput, TreeWriter};
    use crate::extract::prescan::prescan;

    /// Each node as a short string: `text` for text, `name[subtree_end]` for an element
    /// (`+` when an end tag closed it).
    pub(crate) fn outline_of(markup: &Markup<'_>) -> Vec<String> {
        (0..)
            .map_while(|index| markup.node(index))
            .map(|node| match node {
                Node::Text(text) => text.to_string(),
                Node::Element(e) => format!(
                    "{}[{}]{}",
                    String::from_utf8_lossy(e.name),
                    e.subtree_end(),
                    if e.closed() { "+" } else { "" }
                ),
            })
            .collect()
    }

    /// `test` run with writers that write the elements the walker passes through: tests of
    /// the copy's other rules, which use inline elements (`<b>`, `<span>`) as any element.
    fn keeping_every_element<T>(test: impl FnOnce() -> T) -> T {
        super::KEEP_EVERY_ELEMENT.set(true);
        let result = test();
        super::KEEP_EVERY_ELEMENT.set(false);
        result
    }

    /// The outline of `source` as `tl` builds it from the prescan's copy.
    pub(crate) fn outline(source: &str) -> Vec<String> {
        let pre = prescan(source);
        let markup = Markup::parse(&pre.names, source, &pre.tree, Vec::new());
        outline_of(&markup)
    }

    /// The tree of `source` given the tags of `write` (calls on a [`TreeWriter`]).
    fn written(source: &str, write: impl FnOnce(&mut TreeWriter<'_>, &[u8])) -> TreeInput {
        let mut writer = TreeWriter::reusing(source, TreeInput::default())
            .leaving_out(crate::extract::html::walker_passes_through);
        write(&mut writer, source.as_bytes());
        writer.finish(source.len())
    }

    #[test]
    fn elements_hold_what_comes_before_their_end_tag() {
        keeping_every_element(|| {
            assert_eq!(
                outline("<div><p>a</p>b</div>c"),
                ["div[4]+", "p[3]+", "a", "b", "c"]
            );
        });
        // (With the block elements the walker only breaks lines for left out at a block
        // boundary, and the boundary they owe written where text comes.)
        assert_eq!(
            outline("<div><p>a</p>b</div>c"),
            ["div[4]+", "a", "div[3]+", "b", "c"]
        );
    }

    #[test]
    fn elements_the_walker_passes_through_are_left_out_with_their_tags() {
        assert_eq!(
            outline("<p>Call <strong>us</strong> <em class=x>now</em><input name=q>!</p>"),
            ["p[2]+", "Call us now!"]
        );
        // Kept: what the walker reads (a property, a hidden element, a footer's class) and
        // blocks.
        assert_eq!(
            outline("<span itemprop=telephone>1</span><i hidden>2</i><b class=footer>3</b>"),
            ["span[2]+", "1", "i[4]+", "2", "b[6]+", "3"]
        );
        // An end tag of another name while one is innermost is ignored, as `tl` would with
        // it written (`<div><span>x</div>y` without the `</span>` HTML5 implies): the
        // `</div>` neither closes the `<div>` nor makes a node.
        let source = "<div><span>x</div>y";
        let tree = written(source, |writer, bytes| {
            writer.before_tag(bytes, 0, &[], None, None);
            writer.start(bytes, (1..4, super::StartName::of(b"div")), 0, false, 5);
            writer.before_tag(bytes, 5, &[], None, None);
            writer.start(bytes, (6..10, super::StartName::of(b"span")), 0, false, 11);
            writer.before_tag(bytes, 12, &[], None, Some(b"div"));
            writer.end(bytes, b"div", name_key(b"div"), 18);
        });
        assert_eq!(tree.text, "<div>xy");
        let markup = Markup::parse(source.as_bytes(), source, &tree, Vec::new());
        assert_eq!(outline_of(&markup), ["div[2]", "xy"]);
    }

    /// Pieces for [`leaving_out_elements_the_walker_passes_through_changes_nothing_it_reads`]:
    /// elements it passes through and others of their names it reads, text that would run on
    /// into a reference if joined, blocks, end tags of other names, and what makes the copy
    /// hold tags the prescan did not read (a script running past its `<svg>`).
    #[rustfmt::skip]
    const PASSED_THROUGH_PIECES: &[&str] = &[
        "<span>", "</span>", "<em>", "</em>", "<i>", "</i>", "<b class=tel>", "<b class=x>",
        "</b>", "<input name=q>", "<small/>", "<span hidden>", "<span class=footer>",
        "<span itemprop=telephone>", "<div>", "</div>", "<p>", "</p>", "<a href=h>", "</a>",
        "<title>", "</title>", "<template>", "</template>", "<xmp>", "</xmp>", "<br>",
        "<svg><script>", "</svg>", "</script>", "<!-- c -->", "&amp", "&", ";", "lt;", "&#6",
        "4;", "&#x4", "x", " ", "\n", "<li>", "</li>", "<ul>", "</ul>", "<hr>", "<div/>",
        "<div class=footer>", "<div data-cfemail=6a0b>", "<h2>", "</h2>", "<section class=c>",
        "</section>", "<span itemprop=name>", "<div itemscope itemtype=https://schema.org/Organization>",
        "<div class=vcard>", "<p class=tel>", "<svg>", "<noscript>", "</noscript>", "<td>", "<table>",
        "12", "0150", "&#49;23", "<link rel=stylesheet href=s>", "<script>s</script>", "<i class=x></i>",
    ];

    proptest::proptest! {
        /// The walker reads the same document from a copy that leaves out the elements it
        /// passes through as from one that writes them, and as from one that writes all
        /// (white space and every element).
        #[test]
        fn leaving_out_elements_the_walker_passes_through_changes_nothing_it_reads(
            pieces in proptest::collection::vec(proptest::sample::select(PASSED_THROUGH_PIECES), 0..30)
        ) {
            let page: String = pieces.concat();
            let read = |doc: crate::extract::html::Document| format!("{doc:?}");
            let left_out = read(crate::extract::html::parse(&page));
            let kept = read(keeping_every_element(|| crate::extract::html::parse(&page)));
            super::KEEP_WHITE_SPACE.set(true);
            let all = read(crate::extract::html::parse(&page));
            super::KEEP_WHITE_SPACE.set(false);
            proptest::prop_assert_eq!(&left_out, &kept, "{:?}", page);
            proptest::prop_assert_eq!(&left_out, &all, "{:?}", page);
        }
    }

    #[test]
    fn text_a_left_out_element_kept_apart_stays_apart_where_it_could_join_a_reference() {
        // `&amp` and `;` are two texts to the walker (`&;`), one would be `&`: the element is
        // written, or its end tag left out is replaced by `</>`, which `tl` never matches.
        assert_eq!(
            outline("<p>&amp<em>;</em></p>"),
            ["p[4]+", "&amp", "em[4]+", ";"]
        );
        assert_eq!(
            prescan("<p><em>&amp</em>;</p>").tree.text,
            // (`<b></b>`: text that may open with a digit after an element left out, see
            // `TreeWriter::text_to`.)
            "<p><b></b>&amp</>;</p>"
        );
        assert_eq!(
            outline("<p><em>&amp</em>;</p>"),
            ["p[4]+", "b[2]+", "&amp", ";"]
        );
        assert_eq!(
            prescan("<p><em>&amp;</em>x &#6<i>4;</i></p>").tree.text,
            "<p><b></b>&amp;x &#6<i>4;</i></p>"
        );
        assert!(!super::may_continue_reference(b"a &amp; b"));
        assert!(!super::may_continue_reference(b""));
        assert!(!super::may_continue_reference(b"x</p>"));
        assert!(super::may_continue_reference(b"a &"));
        assert!(super::may_continue_reference(b"&#x4"));
        assert!(super::may_continue_reference(
            b"x&CounterClockwiseContourIntegral"
        ));
        assert!(super::may_continue_reference(
            format!("&{}", "a".repeat(39)).as_bytes()
        ));
        assert!(super::may_continue_reference("a".repeat(41).as_bytes()));
        assert!(!super::may_continue_reference("a".repeat(40).as_bytes()));
    }

    #[test]
    fn a_page_whose_copy_holds_unread_tags_while_a_left_out_element_is_open_is_written_whole() {
        // The `<script>` inside the `<svg>` runs past its end: the copy from there on holds
        // tags the prescan did not read, while the `<span>` left out is open.
        let page = "<p><span>a<svg><script>x</svg>y</script>z</span>w</p>";
        let tree = prescan(page).tree.text;
        assert!(tree.contains("<span>"), "{tree}");
        // Without an unread tag, it is left out.
        assert_eq!(prescan("<p><span>a</span>w</p>").tree.text, "<p>aw</p>");
    }

    #[test]
    fn an_end_tag_closes_only_the_innermost_element_and_unclosed_ones_run_to_the_end() {
        keeping_every_element(|| {
            // `<div><b>x</div>y` given without the `</b>` HTML5 implies (the prescan gives it):
            // `</div>` while `<b>` is innermost is ignored, so both run to the end of the page.
            let source = "<div><b>x</div>y";
            let tree = written(source, |writer, bytes| {
                writer.before_tag(bytes, 0, &[], None, None);
                writer.start(bytes, (1..4, super::StartName::of(b"div")), 0, false, 5);
                writer.before_tag(bytes, 5, &[], None, None);
                writer.start(bytes, (6..7, super::StartName::of(b"b")), 0, false, 8);
                writer.before_tag(bytes, 9, &[], None, Some(b"div"));
                writer.end(bytes, b"div", name_key(b"div"), 15);
            });
            assert_eq!(tree.text, "<div><b>x</div>y");
            let markup = Markup::parse(source.as_bytes(), source, &tree, Vec::new());
            assert_eq!(outline_of(&markup), ["div[4]", "b[4]", "x", "y"]);
            // With the implied `</b>` (bytes 6..7 name it) both close.
            let tree = written(source, |writer, bytes| {
                writer.before_tag(bytes, 0, &[], None, None);
                writer.start(bytes, (1..4, super::StartName::of(b"div")), 0, false, 5);
                writer.before_tag(bytes, 5, &[], None, None);
                writer.start(bytes, (6..7, super::StartName::of(b"b")), 0, false, 8);
                writer.before_tag(bytes, 9, &[(6, 7)], None, Some(b"div"));
                writer.end(bytes, b"div", name_key(b"div"), 15);
            });
            assert_eq!(tree.text, "<div><b>x</b></div>y");
            let markup = Markup::parse(source.as_bytes(), source, &tree, Vec::new());
            assert_eq!(outline_of(&markup), ["div[3]+", "b[3]+", "x", "y"]);
            assert_eq!(outline("<div><b>x</div>y"), ["div[3]+", "b[3]+", "x", "y"]);
            assert_eq!(outline("</p>a"), ["a"]);
        });
    }

    #[test]
    fn a_less_than_sign_that_starts_no_tag_is_text() {
        // Written as `&lt;` for `tl`; the walker decodes it.
        assert_eq!(outline("a <3 b< c<p>d"), ["a &lt;3 b&lt; c", "p[3]", "d"]);
        assert_eq!(outline("x<"), ["x&lt;"]);
    }

    #[test]
    fn an_end_tag_without_a_name_shows_nothing() {
        // HTML5 reads `</ x>` as a bogus comment (§13.2.5.7).
        assert_eq!(outline("a</ x>b</>c"), ["abc"]);
        assert_eq!(outline("a</ x"), ["a"]);
    }

    #[test]
    fn comments_and_shown_raw_text_are_one_space_of_text_and_skipped_contents_nothing() {
        keeping_every_element(|| {
            // The walker reads no text of a `<noscript>`; an `<xmp>`'s (blanked) it reads.
            assert_eq!(outline("a<!--x-->b"), ["a b"]);
            assert_eq!(
                outline("a<noscript>x</noscript>y"),
                ["a", "noscript[2]+", "y"]
            );
            assert_eq!(outline("a<xmp>x</xmp>y"), ["a", "xmp[3]+", " ", "y"]);
        });
    }

    #[test]
    fn void_elements_and_self_closing_tags_have_no_children() {
        keeping_every_element(|| {
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
        });
    }

    #[test]
    fn white_space_next_to_a_line_break_or_before_any_text_is_not_written() {
        keeping_every_element(|| {
            // After `<div>`, `<br>` or `</p>` and before `<p>`, `<br>` or `</div>` the walker breaks
            // the line anyway; between inline elements and next to an end tag that closes nothing
            // or an inline element it stays.
            let source = "<div>\n  <p>a</p>\n  <span>b</span> <span>c</span>\n <br>\n</div> ";
            let pre = prescan(source);
            assert_eq!(
                pre.tree.text,
                "<div><p>a</p><span>b</span> <span>c</span><br /></div>"
            );
            let copy = |source: &str| prescan(source).tree.text;
            assert_eq!(copy("a </div> b"), "a </div> b");
            assert_eq!(copy("<div><b>x</b>\n </div>"), "<div><b>x</b></div>");
            // Before an implied end tag: of a block (`</li>`) it goes, of an inline element not.
            assert_eq!(
                copy("<ul><li><b>x</b>\n</ul>"),
                "<ul><li><b>x</b></li></ul>"
            );
            assert_eq!(
                copy("<div><i><b>y</b> </div>"),
                "<div><i><b>y</b> </i></div>"
            );
            // Tags of other elements after a line break keep it: the walker writes no text for
            // them.
            assert_eq!(
                copy("<li><a href=x>\n <span>a</span>\n</a> <b>b</b></li>"),
                "<li><a><span>a</span>\n</a> <b>b</b></li>"
            );
            // Nothing shown yet: the walker's text is empty.
            assert_eq!(
                copy("<!DOCTYPE html>\n<html> <head>\n <meta charset=x>\n</head> <body> x"),
                "<html><head></head><body> x"
            );
            // A title's text is read as written.
            assert_eq!(
                copy("<title><p>a</p> <b>b</b></title>"),
                "<title><p>a</p> <b>b</b></title>"
            );
            // A `<template>`'s content is not walked: after it the line is not broken.
            assert_eq!(
                copy("x<template><div></div></template> y"),
                "x<template><div></div></template> y"
            );
            // `tl` leaves a `<span/>` childless, so `</span>` closes nothing and `</div>` the div.
            assert_eq!(
                copy("<div>x<span class=\"a\"/> </span> </div>"),
                "<div>x<span /> </span></div>"
            );
        });
    }

    #[test]
    fn elements_the_walker_reads_nothing_from_are_left_out_unless_after_text() {
        keeping_every_element(|| {
            let copy = |source: &str| prescan(source).tree.text;
            assert_eq!(
            copy("<head><meta charset=u><link rel=stylesheet href=s><script>x</script><style>y</style></head>"),
            "<head></head>"
        );
            // The walker reads these: a canonical link, a meta with a key and content, a
            // Cloudflare email, and whatever a title holds.
            assert_eq!(
            copy(
                "<link rel=\"x CANONICAL\" href=c><meta property=og:URL content=c><meta charset=u>"
            ),
            "<link /><meta />"
        );
            assert_eq!(
            copy("<b>x</b><script data-cfemail=6a0b></script><svg><path/></svg><template></template>"),
            "<b>x</b><script></script><template></template>"
        );
            assert_eq!(
                copy("<title>a</title><title><script></script>b</title>"),
                "<title>a</title><title><script> </script>b</title>"
            );
            // After text it would join that text to the text after it.
            assert_eq!(
                copy("a<script></script>b<style></style>"),
                "a<script></script>b<style></style>"
            );
            assert_eq!(copy("&amp<link rel=x>;"), "&amp<link />;");
            // Left out, the line-break state is what it was before it: white space after it goes
            // where it went before it.
            assert_eq!(
            copy("<div>\n<script></script>\n<span>a</span>\n<noscript>b</noscript>\n<span>c</span></div>"),
            "<div><span>a</span>\n<noscript></noscript>\n<span>c</span></div>"
        );
            // Not taken back once something is written inside it, or when the page ends in it.
            assert_eq!(
                copy("<div><svg><a href=p></div>x"),
                "<div><svg><a></a></svg></div>x"
            );
            // (An empty element inside is taken back, then the one around it.)
            assert_eq!(copy("<div><svg><path/></div>x"), "<div></div>x");
            assert_eq!(copy("<div><script>x"), "<div><script>");
        });
    }

    #[test]
    fn empty_elements_the_walker_reads_nothing_from_are_left_out() {
        keeping_every_element(|| {
            let copy = |source: &str| prescan(source).tree.text;
            assert_eq!(
                copy("<p><a href=t><i class=\"fa fa-phone\"></i>1</a><span hidden></span></p>"),
                // (`<b></b>` in place of the `<i>` before a digit, see `TreeWriter::text_to`.)
                "<p><a><b></b>1</a></p>"
            );
            // A block element is kept even empty and at a line break: it starts a block
            // (`Document::block_starts`).
            assert_eq!(
                copy("<div>a</div><div class=clear></div>"),
                "<div>a</div><div></div>"
            );
            // Inline elements inside are taken back, the block stays.
            assert_eq!(
                copy("<p>a</p><div><span class=x><i></i></span>\n</div><b><i></i>c</b>"),
                "<p>a</p><div></div><b>c</b>"
            );
            assert_eq!(
                copy("<b>a</b><div class=clear></div>b"),
                "<b>a</b><div></div>b"
            );
            // Read by name or attribute: a link, a heading, a Cloudflare email, a property value.
            for kept in [
                "<a href=x></a>",
                "<h2></h2>",
                "<span data-cfemail=6a0b></span>",
                "<span itemprop=telephone content=1></span>",
            ] {
                let name = &kept[1..kept.find([' ', '>']).unwrap_or(2)];
                assert_eq!(copy(kept), format!("<{name}></{name}>"), "{kept}");
            }
            // Not after text, which would then join the text after it.
            assert_eq!(copy("&amp<i></i>;"), "&amp<i></i>;");
        });
    }

    #[test]
    fn white_space_before_a_block_with_a_cloudflare_email_is_written() {
        keeping_every_element(|| {
            // The walker records the email's place before the block's line break drops the
            // space, so the space counts there.
            let copy = |source: &str| prescan(source).tree.text;
            let page = "<b>a</b> <div data-cfemail=6a0b></div>";
            assert_eq!(copy(page), "<b>a</b> <div></div>");
            assert_eq!(
                crate::extract::html::parse(page).cf_emails,
                [(2, "6a0b".to_string())]
            );
            assert_eq!(
                copy("<b>a</b> <div class=x></div>b"),
                "<b>a</b><div></div>b"
            );
        });
    }

    #[test]
    fn only_metas_with_a_key_the_extraction_reads_are_written() {
        let copy = |source: &str| prescan(source).tree.text;
        assert_eq!(
            copy("<meta name=description content=d><meta property=og:title content=t><meta name=viewport content=v>"),
            ""
        );
        for kept in [
            "<meta property=og:url content=u>",
            "<meta name=\" OG:Site_Name \" content=n>",
            "<meta name=x property=application-name content=n>",
            "<meta itemprop=apple-mobile-web-app-title content=n>",
            "<meta name=geo.region content=DE-BY>",
            "<meta property=og:postal-code content=1>",
            "<meta property=business:contact_data:street_address content=s>",
        ] {
            assert_eq!(copy(kept), "<meta />", "{kept}");
        }
        // Without content the walker keeps none.
        assert_eq!(copy("<meta property=og:url>"), "");
        // Every key `mod.rs` looks up is in the list (`meta("…")`, `k == "…"` on metas).
        let readers = include_str!("mod.rs");
        let looked_up: Vec<&str> = ["meta(\"", ".find(|(k, _)| k == \""]
            .iter()
            .flat_map(|call| readers.split(call).skip(1))
            .filter_map(|rest| rest.split('"').next())
            .collect();
        assert!(
            looked_up.len() >= super::META_KEYS_READ.len(),
            "{looked_up:?}"
        );
        for key in looked_up {
            assert!(
                super::META_KEYS_READ.contains(&key),
                "{key} is read but left out"
            );
        }
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
        let source = "<a HREF=\"/x\" title='it\"s' data-a=b/c hidden / =odd class = big data-a=2>";
        let pre = prescan(source);
        let markup = Markup::parse(&pre.names, source, &pre.tree, Vec::new());
        let Some(Node::Element(a)) = markup.node(0) else {
            panic!("no element");
        };
        let attributes: Vec<(String, String)> = markup
            .attributes(&a)
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
            let pre = keeping_every_element(|| prescan(&page));
            let markup = Markup::parse(&pre.names, &page, &pre.tree, Vec::new());
            let html = crate::extract::prescan::rewritten_page(&page);
            // The start tags read again by the model, in page order: each from after its name
            // (generated text holds no `<`, so every `<div` starts a tag unless a quoted value
            // swallowed it) to its `>`; a tag the page ends inside ends the page.
            let mut models = Vec::new();
            let mut from = 0;
            while let Some(start) = html[from..].find("<div").map(|at| from + at) {
                let name_end = html[start + 1..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .map_or(html.len(), |at| start + 1 + at);
                let mut model = super::Attributes::new(&html[name_end..]);
                let attributes: Vec<_> = model.by_ref().collect();
                let end = name_end + model.at;
                if html.as_bytes().get(end) != Some(&b'>') {
                    break;
                }
                models.push(attributes);
                from = end;
            }
            let recorded: Vec<Vec<_>> = (0..)
                .map_while(|index| markup.node(index))
                .filter_map(|node| match node {
                    Node::Element(element) => Some(markup.attributes(&element).collect()),
                    Node::Text(_) => None,
                })
                .collect();
            proptest::prop_assert_eq!(recorded, models, "{:?}", page);
        }
    }

    proptest::proptest! {
        /// Names are written as the characters of their bytes (`.` as `+`), pushed one at a
        /// time or through a second string.
        #[test]
        fn names_are_written_as_their_characters(
            name in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(b"az.-_:09AZ".to_vec()),
                    proptest::num::u8::ANY,
                ],
                0..12,
            )
        ) {
            let mut bytes = String::from("<");
            super::write_name(&mut bytes, &name);
            let mut chars = String::from("<");
            super::write_name_as_chars(&mut chars, &name);
            proptest::prop_assert_eq!(bytes, chars);
        }
    }

    /// An element the copy takes back when its end tag comes next may be closed by an end tag
    /// implied before a start tag whose attributes are already recorded: those stay (they
    /// were cut with the taken-back element's, and a slice past their end panicked; fuzzing
    /// found it).
    #[test]
    fn a_start_tag_after_an_element_taken_back_keeps_its_attributes() {
        for source in [
            "<select name=a b c><p id=x>t",
            "<p><select name=a><p id=x>t",
            "<ul><li><noscript data-x=1><li id=x>t",
            "<p><object data=y><div id=x>t",
        ] {
            let pre = prescan(source);
            let markup = Markup::parse(&pre.names, source, &pre.tree, Vec::new());
            let ids: Vec<String> = (0..)
                .map_while(|index| markup.node(index))
                .filter_map(|node| match node {
                    Node::Element(element) => Some(markup.attributes(&element).collect::<Vec<_>>()),
                    Node::Text(_) => None,
                })
                .flatten()
                .filter(|(name, _)| *name == b"id")
                .map(|(_, value)| value.to_string())
                .collect();
            assert_eq!(ids, ["x"], "{source}");
        }
    }

    #[test]
    fn inner_text_joins_the_text_of_all_descendants() {
        let source = "<title>A <b>B</b> C</title>D";
        let pre = prescan(source);
        let markup = Markup::parse(&pre.names, source, &pre.tree, Vec::new());
        assert_eq!(markup.inner_text(0), "A B C");
        assert_eq!(markup.inner_text(2), "B");
        // Not an element.
        assert_eq!(markup.inner_text(5), "");
    }
}
