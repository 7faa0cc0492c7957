//! One walk over the page's element tree (`markup.rs`: `tl`'s nodes of the prescanned page) that
//! collects everything the extractors read: visible text as lines, links with their anchor
//! text, meta tags, the title, `<base>`, JSON-LD blocks, Cloudflare-protected emails, and
//! schema.org microdata / RDFa / microformat (hCard) fields.
//!
//! Text follows docs/extraction.md: block-level elements and `<br>`
//! end a line, inline elements are joined, so `<span>623-889-60</span><span>00</span>` stays one
//! number and `<div>000 000</div><a>eva@x.com</a>` does not become `000eva@x.com`. Hidden
//! elements (`display:none`, `visibility:hidden`, the `hidden` attribute) add no text, but their
//! links are kept for the crawl planner (drop-down menus are hidden until hovered); so are the
//! links of `<template>` content (a footer a script clones in), and nothing else of it.

use std::borrow::Cow;
use std::ops::Range;

use crate::extract::address::MarkedAddress;
use crate::extract::entities;
#[cfg(test)]
use crate::extract::markup::walker_skips;
use crate::extract::markup::{
    is_block, AttributeSpan, AttributeValue, ClassRead, Element, ElementFacts, Markup, Node,
    Passage, StartName, TreeInput,
};
use crate::extract::page_budget::PageBudget;
use crate::extract::prescan::prescan_reusing;
use crate::extract::whitespace::{collapse, collapse_into, push_collapsed};
use crate::extract::words8::load;

/// What one page's markup holds, ready for the field extractors.
#[derive(Debug, Default)]
pub struct Document {
    /// `<html lang>`, lower-case (e.g. `en-us`).
    pub lang: Option<String>,
    /// `<title>` text, entity-decoded, white space collapsed.
    pub title: Option<String>,
    /// `<base href>` as written (entity-decoded).
    pub base_href: Option<String>,
    /// `<link rel=canonical href>`.
    pub canonical: Option<String>,
    /// `<meta>` tags as (lower-case `name`/`property`/`itemprop`, decoded `content`): those
    /// whose key the extraction looks up (`markup::META_KEYS_READ`; the copy `tl` parses
    /// holds no others).
    pub metas: Vec<(String, String)>,
    /// `<a href>` and `<area href>` in document order.
    pub links: Links,
    /// Visible text; lines are separated by `\n`, white space inside a line is collapsed.
    pub text: String,
    /// Byte ranges of [`Document::text`] that sit in a `<footer>` or an element whose id or
    /// class names a footer; used to recognise site-builder credits.
    pub footer_ranges: Vec<Range<usize>>,
    /// Byte ranges of [`Document::text`] inside headings (`<h1>`–`<h6>`), in document order;
    /// they divide a legal notice into its sections (the hosting provider's is left out).
    pub heading_ranges: Vec<Range<usize>>,
    /// The rank of each heading of [`Document::heading_ranges`] (1 for `<h1>` … 6 for
    /// `<h6>`), at the same index.
    pub heading_levels: Vec<u8>,
    /// Byte offsets in [`Document::text`] where a block's text starts (a block element opens
    /// or closes there: a paragraph, list item, table cell, heading, card …; a `<br>` starts
    /// no block), ascending, without repeats. The lines between two of them are one block,
    /// the unit the attribution step (`sections.rs`) gives an owner.
    pub block_starts: Vec<usize>,
    /// JSON-LD blocks (raw text).
    pub json_ld: Vec<String>,
    /// Framework state (Next.js, Nuxt, SvelteKit, Astro; `state.rs`), as written.
    pub state: Vec<crate::extract::state::Script>,
    /// Hex payloads of Cloudflare email protection (`data-cfemail`, `/cdn-cgi/l/email-protection#`).
    /// Each with the byte offset in [`Document::text`] where it occurs.
    pub cf_emails: Vec<(usize, String)>,
    /// Addresses marked up as microdata or RDFa `PostalAddress` or microformat `adr`.
    pub marked_addresses: Vec<MarkedAddress>,
    /// Organisation names from microdata (`itemprop=name` in an organisation) or hCard `org`.
    pub marked_org_names: Vec<String>,
    /// `itemprop=telephone` values.
    pub marked_phones: Vec<String>,
    /// `itemprop=email` values.
    pub marked_emails: Vec<String>,
    /// Byte ranges of [`Document::text`] inside closed `<address>` elements (HTML Living
    /// Standard §4.3.10: the contact information of its article or of the page), in document
    /// order; read for addresses printed without a postcode (`extract::no_postcode`).
    pub address_ranges: Vec<Range<usize>>,
    /// The `src` of `<iframe>` elements, entity-decoded and trimmed, in document order (at
    /// most [`MAX_MARKED_VALUES`]): a map embed's carries the place it shows
    /// (`extract::map_links`).
    pub frame_sources: Vec<String>,
}

/// A hyperlink and the text a reader sees for it, as [`Links`] hands it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link<'d> {
    /// The `href` attribute, entity-decoded and trimmed; not yet resolved.
    pub href: &'d str,
    /// Anchor text, `title` and image `alt` text joined, white space collapsed; at most
    /// [`MAX_CAPTURE_CHARS`] characters.
    pub text: &'d str,
    /// Whether the link sits in the page's footer.
    pub in_footer: bool,
    /// Byte offset in [`Document::text`] where the link starts (for document order).
    pub text_pos: usize,
}

/// The `<a href>` and `<area href>` links of a page in document order (at most
/// [`MAX_LINKS`]), read as [`Link`]s. Their hrefs and texts are kept in one string, not a
/// `String` each: a page has hundreds of links, and two allocations a link were a fifth of
/// all the allocations of an extraction.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Links {
    /// Every href and text, one after another.
    strings: String,
    /// Each link's spans of `strings` and its other fields.
    spans: Vec<LinkSpans>,
}

/// Where one link's href and text are in [`Links::strings`] (byte ranges as start and end),
/// and its other fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LinkSpans {
    href: (usize, usize),
    text: (usize, usize),
    in_footer: bool,
    text_pos: usize,
}

impl Links {
    /// How many links the page has.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether the page has no link.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The `index`-th link (from 0, in document order).
    pub fn get(&self, index: usize) -> Option<Link<'_>> {
        self.spans.get(index).map(|spans| self.link(spans))
    }

    /// The links in document order.
    pub fn iter(&self) -> LinksIter<'_> {
        LinksIter {
            links: self,
            spans: self.spans.iter(),
        }
    }

    fn link(&self, spans: &LinkSpans) -> Link<'_> {
        let piece = |(start, end): (usize, usize)| self.strings.get(start..end).unwrap_or("");
        Link {
            href: piece(spans.href),
            text: piece(spans.text),
            in_footer: spans.in_footer,
            text_pos: spans.text_pos,
        }
    }

    /// Adds a link with `href`, its text to come ([`Links::set_text`]); returns its index.
    fn push(&mut self, href: &str, in_footer: bool, text_pos: usize) -> usize {
        let href = self.append(href);
        self.spans.push(LinkSpans {
            href,
            text: (href.1, href.1),
            in_footer,
            text_pos,
        });
        self.spans.len() - 1
    }

    /// Sets the text of the `index`-th link.
    fn set_text(&mut self, index: usize, text: &str) {
        if index < self.spans.len() {
            let text = self.append(text);
            self.spans[index].text = text;
        }
    }

    /// Appends `piece` to the strings, and gives its span.
    fn append(&mut self, piece: &str) -> (usize, usize) {
        let start = self.strings.len();
        self.strings.push_str(piece);
        (start, self.strings.len())
    }
}

/// The links of [`Links::iter`].
#[derive(Clone)]
pub struct LinksIter<'d> {
    links: &'d Links,
    spans: std::slice::Iter<'d, LinkSpans>,
}

impl<'d> Iterator for LinksIter<'d> {
    type Item = Link<'d>;

    fn next(&mut self) -> Option<Link<'d>> {
        self.spans.next().map(|spans| self.links.link(spans))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.spans.size_hint()
    }
}

impl ExactSizeIterator for LinksIter<'_> {}

impl<'d> IntoIterator for &'d Links {
    type Item = Link<'d>;
    type IntoIter = LinksIter<'d>;

    fn into_iter(self) -> LinksIter<'d> {
        self.iter()
    }
}

/// Longest captured anchor or property text, in characters.
pub const MAX_CAPTURE_CHARS: usize = 300;
/// Most text bytes a link or property capture reads (the longest [`MAX_CAPTURE_CHARS`]
/// characters can be): a capture of all the text after a nested element made crafted pages
/// quadratic (60 000 nested `itemprop`s: over 110 s of CPU).
const MAX_CAPTURE_BYTES: usize = MAX_CAPTURE_CHARS * 4;
/// Most values kept per kind of marked-up field (microdata / microformat emails, phones,
/// organisation names, addresses) per page: far above real pages, which mark up a handful.
pub const MAX_MARKED_VALUES: usize = 200;
/// Most links kept per page.
const MAX_LINKS: usize = 5_000;
/// Units of work (`PageBudget::work`) an element costs the walk, besides its text's bytes.
const ELEMENT_UNITS: usize = 32;

/// Parses `html` and collects a [`Document`], charged to the budget of a page of `html`'s
/// size. Never fails: any input yields a document.
pub fn parse(html: &str) -> Document {
    parse_reusing(
        html,
        &mut ParseBuffers::default(),
        &PageBudget::for_page(html.len()),
    )
}

/// The vectors a parse builds in (the names the prescan lower-cased, the copy of the page `tl`
/// parses, its nodes and attributes),
/// kept by a caller that parses page after page (`extract-dir` keeps one per worker): their
/// capacity carries over, so later pages neither grow nor allocate them anew. They hold
/// nothing between parses (but stale bytes of the names, which nothing reads); their capacity
/// is that of the largest page parsed.
#[derive(Debug, Default)]
pub struct ParseBuffers {
    names: Vec<u8>,
    tree: TreeInput,
    facts: Vec<ElementFacts>,
}

/// [`parse`], building in `buffers`, charged to the page's `budget` (docs/security.md,
/// "Reading a page"): the walk a unit of work per byte of text and [`ELEMENT_UNITS`] per
/// element, and every copy of the page's content it keeps (text, links, metas, microdata
/// values) by its bytes. Once the work is spent the walk ends; a copy the budget refuses is
/// left out. Either way the document holds what was read.
pub fn parse_reusing(html: &str, buffers: &mut ParseBuffers, budget: &PageBudget) -> Document {
    let pre = prescan_reusing(
        html,
        std::mem::take(&mut buffers.names),
        std::mem::take(&mut buffers.tree),
        walker_passes_through,
    );
    let mut walker = Walker::new(
        Document {
            json_ld: pre.json_ld,
            state: pre.state,
            ..Document::default()
        },
        budget,
    );
    let markup = Markup::parse(
        &pre.names,
        html,
        &pre.tree,
        std::mem::take(&mut buffers.facts),
    );
    walker.walk(&markup);
    buffers.facts = markup.into_facts();
    buffers.tree = pre.tree;
    buffers.tree.clear();
    // Not emptied: it stays as long as the longest page (see `Prescanned::names`).
    buffers.names = pre.names;
    walker.finish()
}

/// Digits the text of an element must open with for a number it is glued to to be read
/// apart from it (class `text.glued_numbers`, [`Walker::push_text`]).
const MIN_GLUED_NUMBER_DIGITS: usize = 3;

struct Walker<'b> {
    doc: Document,
    /// What the walk may still do and copy.
    budget: &'b PageBudget,
    hidden_depth: usize,
    /// Open `<template>`s. Their content is inert until a script clones it into the page,
    /// which is how some sites build their footer (an online shop's socials, contact and
    /// imprint links): its links are kept, as a hidden element's are, but not its text, microdata,
    /// metas or placeholders (`{{name}}`).
    template_depth: usize,
    head_depth: usize,
    footer_depth: usize,
    footer_start: usize,
    /// Where the open heading's text starts and its rank (`<h1>`–`<h6>` do not nest in
    /// practice; an inner one ends the outer's range).
    heading_start: Option<(usize, u8)>,
    /// Where the text of the open `<address>` element starts.
    address_start: Option<usize>,
    /// Whether an element started since the last text was written: the texts of two elements
    /// that meet with no white space between them may need one (see [`Walker::push_text`]).
    element_since_text: bool,
    /// Open `<a>` captures: (index in `doc.links`, text start, where the link's texts in
    /// `link_extras` start).
    link_captures: Vec<(usize, usize, usize)>,
    /// The `title` and image `alt` texts of the open captures' links, read so far (they go
    /// after each link's text), one capture's after another's: a capture's run from its start
    /// to the next capture's, the innermost's to the end, where an image's `alt` is added.
    link_extras: String,
    /// An attribute's text collapsed ([`collapse_into`]), kept for its capacity.
    collapsed: String,
    /// The text of the link being left, built here before it is copied to `doc.links` (kept
    /// for its capacity).
    link_text: String,
    /// Open property captures: (target, text start).
    prop_captures: Vec<(Prop, usize)>,
    /// Open item scopes (microdata `itemscope` and microformat roots).
    scopes: Vec<Scope>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prop {
    Country,
    Email,
    Locality,
    OrgName,
    PostalCode,
    Region,
    Street,
    Telephone,
}

#[derive(Debug)]
enum Scope {
    Address(MarkedAddress),
    /// An organisation, with the address parts marked on it directly (microdata or RDFa
    /// `streetAddress` on a `LocalBusiness` without a `PostalAddress` item between them).
    Organization(MarkedAddress),
    Other,
}

/// What to undo when leaving an element.
#[derive(Default, PartialEq, Eq)]
struct Exit {
    block: bool,
    heading: bool,
    hidden: bool,
    template: bool,
    head: bool,
    footer: bool,
    link: bool,
    prop: bool,
    scope: bool,
    address: bool,
}

impl<'b> Walker<'b> {
    fn new(doc: Document, budget: &'b PageBudget) -> Self {
        Walker {
            doc,
            budget,
            hidden_depth: 0,
            template_depth: 0,
            head_depth: 0,
            footer_depth: 0,
            footer_start: 0,
            heading_start: None,
            address_start: None,
            element_since_text: false,
            link_captures: Vec::new(),
            link_extras: String::new(),
            collapsed: String::new(),
            link_text: String::new(),
            prop_captures: Vec::new(),
            scopes: Vec::new(),
        }
    }

    /// Whether a copy of `bytes` bytes may be kept (charged to the page's budget).
    fn may_copy(&self, bytes: usize) -> bool {
        self.budget.copy(bytes)
    }

    /// Visits the nodes in document order, leaving each element after its descendants.
    fn walk(&mut self, markup: &Markup<'_>) {
        // Entered elements not yet left, innermost last: (index past their subtree, exit).
        let mut open: Vec<(usize, Exit)> = Vec::new();
        let mut index = 0;
        while let Some(node) = markup.node(index) {
            while let Some((_, exit)) = open.pop_if(|(end, _)| *end <= index) {
                self.leave(exit);
            }
            // The page's budget (which also paces the work, `crate::pace`): a node counts as
            // `ELEMENT_UNITS`, text as its length too; a spent budget or a stopped page ends
            // the walk here.
            if !self.budget.work(ELEMENT_UNITS) {
                return;
            }
            match node {
                Node::Text(text) => {
                    if !self.budget.work(text.len()) {
                        return;
                    }
                    self.push_text(text);
                    index += 1;
                }
                Node::Element(element) => match self.enter_after_text(markup, index, &element) {
                    Some(exit) => {
                        // Leaving an element with nothing to undo does nothing (most inline
                        // elements): it is not kept open. Subtrees nest, so the elements
                        // kept open still leave in the same order.
                        if exit != Exit::default() {
                            open.push((element.subtree_end(), exit));
                        }
                        index += 1;
                    }
                    None => index = element.subtree_end().max(index + 1),
                },
            }
        }
        while let Some((_, exit)) = open.pop() {
            self.leave(exit);
        }
    }

    /// [`Walker::enter`], noting that an element started since the last text was written.
    fn enter_after_text(
        &mut self,
        markup: &Markup<'_>,
        index: usize,
        element: &Element<'_>,
    ) -> Option<Exit> {
        self.element_since_text = true;
        self.enter(markup, index, element)
    }

    /// Handles the start tag of `element`, node `index` of `markup`; returns `None` when its
    /// subtree is not to be visited.
    // Its one call is `enter_after_text`'s, in the walk's loop. Fat LTO inlined it there
    // until the class names came handed over; then it left it out of line, which cost more
    // time (perf) than the names the walker no longer reads.
    #[inline(always)]
    fn enter(&mut self, markup: &Markup<'_>, index: usize, element: &Element<'_>) -> Option<Exit> {
        let name = element.name;
        let attrs = Attrs::read_with_class(
            markup.attribute_values(element),
            name,
            ClassNames::handed_over(element.class_read()),
        );
        // An element the page never closed spans the rest of the page (`markup.rs`), so
        // effects that last for an element's extent (hidden text, a link's text, a footer)
        // apply only to closed ones.
        let closed = element.closed();
        let mut exit = Exit::default();
        if name == b"template" {
            exit.template = true;
            self.template_depth += 1;
            return Some(exit);
        }
        if self.template_depth > 0 && !matches!(name, b"a" | b"area") {
            // Inside a `<template>` only links count (see `template_depth`).
            return Some(exit);
        }
        match name {
            b"script" | b"style" | b"textarea" | b"select" | b"svg" | b"iframe" | b"noscript"
            | b"object" | b"datalist" => {
                self.push_cfemail(attrs.cfemail);
                if let Some(src) = attrs.src.filter(|src| self.may_copy(src.len())) {
                    if self.doc.frame_sources.len() < MAX_MARKED_VALUES {
                        self.doc.frame_sources.push(decoded_trimmed(src));
                    }
                }
                return None;
            }
            b"title" => {
                if self.doc.title.is_none() {
                    let inner = markup.inner_text(index);
                    if !self.budget.work(inner.len()) || !self.may_copy(2 * inner.len()) {
                        return None;
                    }
                    let text = collapse(&entities::decode(&inner));
                    if !text.is_empty() {
                        self.doc.title = Some(text);
                    }
                }
                return None;
            }
            b"meta" => {
                if let (Some(key), Some(content)) = (attrs.meta_key, attrs.content) {
                    if self.may_copy(key.len() + content.len()) {
                        self.doc
                            .metas
                            .push((key.trim().to_ascii_lowercase(), decoded_trimmed(content)));
                    }
                }
                return None;
            }
            b"base" => {
                if self.doc.base_href.is_none() {
                    self.doc.base_href = attrs.href.map(decoded_trimmed);
                }
                return None;
            }
            b"link" => {
                if attrs.rel_canonical && self.doc.canonical.is_none() {
                    self.doc.canonical = attrs.href.map(decoded_trimmed);
                }
                return None;
            }
            b"html" if self.doc.lang.is_none() => {
                self.doc.lang = attrs.lang.map(|l| l.trim().to_ascii_lowercase());
            }
            b"head" => {
                exit.head = closed;
                self.head_depth += usize::from(exit.head);
            }
            b"br" => {
                self.newline();
                return None;
            }
            b"img" => {
                if let (Some(alt), Some(&(_, _, from))) = (attrs.alt, self.link_captures.last()) {
                    collapse_into(&mut self.collapsed, &entities::decode_attribute(alt));
                    append_capped_from(&mut self.link_extras, from, &self.collapsed);
                }
                return None;
            }
            b"a" | b"area" => {
                let href = attrs.href.filter(|href| self.may_copy(href.len()));
                if let Some(href) = href.map(decoded_trimmed_piece) {
                    let cf_hex = href_cfemail(&href).map(str::to_string);
                    if self.doc.links.len() < MAX_LINKS {
                        let from = self.link_extras.len();
                        if let Some(title) = attrs.title {
                            collapse_into(&mut self.collapsed, &entities::decode_attribute(title));
                            append_capped_from(&mut self.link_extras, from, &self.collapsed);
                        }
                        let index =
                            self.doc
                                .links
                                .push(&href, self.footer_depth > 0, self.doc.text.len());
                        if name == b"a" && closed {
                            // The text is set when the link is left (or the walk ends).
                            self.link_captures.push((index, self.doc.text.len(), from));
                            exit.link = true;
                        } else {
                            self.doc.links.set_text(index, &self.link_extras[from..]);
                            self.link_extras.truncate(from);
                        }
                    }
                    self.push_cfemail(cf_hex.as_deref());
                }
            }
            _ => {}
        }
        self.push_cfemail(attrs.cfemail);
        if attrs.hidden && closed {
            exit.hidden = true;
            self.hidden_depth += 1;
        }
        if is_block(name) {
            exit.block = true;
            self.newline();
            self.block_boundary();
        }
        if closed && matches!(name, b"h1" | b"h2" | b"h3" | b"h4" | b"h5" | b"h6") {
            exit.heading = true;
            self.heading_start = Some((self.doc.text.len(), name[1] - b'0'));
        }
        if closed && name == b"address" && self.address_start.is_none() {
            exit.address = true;
            self.address_start = Some(self.doc.text.len());
        }
        if self.footer_depth == 0 && (name == b"footer" || attrs.footer_like) && closed {
            exit.footer = true;
            self.footer_depth = 1;
            self.footer_start = self.doc.text.len();
        } else if self.footer_depth > 0 && exit.block {
            // Nested blocks inside the footer do not change it.
        }
        self.enter_item(&attrs, &mut exit);
        Some(exit)
    }

    /// Opens microdata / microformat scopes and property captures for one element.
    fn enter_item(&mut self, attrs: &Attrs<'_>, exit: &mut Exit) {
        let prop = attrs.item_prop.and_then(|p| self.prop_target(p, true));
        let class_prop = attrs.class_prop.and_then(|p| self.prop_target(p, false));
        if let Some(prop) = prop.or(class_prop) {
            match attrs.content {
                Some(content) if attrs.item_prop.is_some() => {
                    if self.may_copy(content.len()) {
                        self.store_prop(prop, &decoded_trimmed(content))
                    }
                }
                _ => {
                    self.prop_captures.push((prop, self.doc.text.len()));
                    exit.prop = true;
                }
            }
        }
        let scope = if let Some(item_type) = attrs.item_type {
            Some(scope_for_type(item_type))
        } else if attrs.itemscope {
            Some(Scope::Other)
        } else if attrs.class_adr {
            Some(Scope::Address(MarkedAddress::default()))
        } else if attrs.class_vcard {
            Some(Scope::Organization(MarkedAddress::default()))
        } else {
            None
        };
        if let Some(scope) = scope {
            self.scopes.push(scope);
            exit.scope = true;
        }
    }

    /// The capture target of a property, given the innermost scope.
    fn prop_target(&self, prop: Prop, microdata: bool) -> Option<Prop> {
        let scope = self.scopes.last();
        match prop {
            Prop::Street | Prop::Locality | Prop::Region | Prop::PostalCode | Prop::Country => {
                // On an organisation, only as microdata or RDFa: classic hCard puts them in
                // an `adr`, and a `street-address` right in a `vcard` holds the name too.
                match scope {
                    Some(Scope::Address(_)) => Some(prop),
                    Some(Scope::Organization(_)) if microdata => Some(prop),
                    _ => None,
                }
            }
            Prop::OrgName => match scope {
                Some(Scope::Organization(_)) => Some(prop),
                _ => None,
            },
            Prop::Telephone | Prop::Email => (microdata || scope.is_some()).then_some(prop),
        }
    }

    fn store_prop(&mut self, prop: Prop, raw: &str) {
        if !self.may_copy(raw.len()) {
            return;
        }
        let mut value = collapse(raw);
        if value.is_empty() {
            return;
        }
        truncate_chars(&mut value, MAX_CAPTURE_CHARS);
        let address = match self.scopes.last_mut() {
            Some(Scope::Address(address) | Scope::Organization(address)) => Some(address),
            _ => None,
        };
        let capped_push = |values: &mut Vec<String>, value: String| {
            if values.len() < MAX_MARKED_VALUES {
                values.push(value);
            }
        };
        match prop {
            Prop::OrgName => capped_push(&mut self.doc.marked_org_names, value),
            Prop::Telephone => capped_push(&mut self.doc.marked_phones, value),
            Prop::Email => capped_push(&mut self.doc.marked_emails, value),
            Prop::Street => {
                if let Some(a) = address {
                    match &mut a.street {
                        Some(street) if street.chars().count() < MAX_CAPTURE_CHARS => {
                            street.push_str(", ");
                            append_chars(street, &value, MAX_CAPTURE_CHARS);
                        }
                        Some(_) => {}
                        None => a.street = Some(value),
                    }
                }
            }
            Prop::Locality => set_once(address.map(|a| &mut a.locality), value),
            Prop::Region => set_once(address.map(|a| &mut a.region), value),
            Prop::PostalCode => set_once(address.map(|a| &mut a.postal_code), value),
            Prop::Country => set_once(address.map(|a| &mut a.country), value),
        }
    }

    /// The text captured since byte `start` of the document text (see [`captured`]).
    fn captured(&self, start: usize) -> &str {
        captured(&self.doc.text, start)
    }

    fn leave(&mut self, exit: Exit) {
        if exit.prop {
            if let Some((prop, start)) = self.prop_captures.pop() {
                let text = self.captured(start).replace('\n', ", ");
                self.store_prop(prop, &text);
            }
        }
        if exit.link {
            if let Some((index, start, from)) = self.link_captures.pop() {
                // The anchor text, then the link's `title` and image `alt` texts.
                let text = &mut self.link_text;
                text.clear();
                push_one_line(text, captured(&self.doc.text, start));
                truncate_chars(text, MAX_CAPTURE_CHARS);
                append_capped(text, self.link_extras.get(from..).unwrap_or_default());
                self.link_extras.truncate(from);
                self.doc.links.set_text(index, text);
            }
        }
        if exit.scope {
            if let Some(Scope::Address(address) | Scope::Organization(address)) = self.scopes.pop()
            {
                if (address.street.is_some() || address.postal_code.is_some())
                    && self.doc.marked_addresses.len() < MAX_MARKED_VALUES
                {
                    self.doc.marked_addresses.push(address);
                }
            }
        }
        if exit.block {
            self.newline();
            self.block_boundary();
        }
        if exit.hidden {
            self.hidden_depth = self.hidden_depth.saturating_sub(1);
        }
        if exit.template {
            self.template_depth = self.template_depth.saturating_sub(1);
        }
        if exit.head {
            self.head_depth = self.head_depth.saturating_sub(1);
        }
        if exit.heading {
            if let Some((start, level)) = self.heading_start.take() {
                let range = start..self.doc.text.len();
                if !self.doc.text[range.clone()].trim().is_empty() {
                    self.doc.heading_ranges.push(range);
                    self.doc.heading_levels.push(level);
                }
            }
        }
        if exit.address {
            if let Some(start) = self.address_start.take() {
                if start < self.doc.text.len() && self.doc.address_ranges.len() < MAX_MARKED_VALUES
                {
                    self.doc.address_ranges.push(start..self.doc.text.len());
                }
            }
        }
        if exit.footer {
            self.footer_depth = 0;
            let range = self.footer_start..self.doc.text.len();
            if !range.is_empty() {
                self.doc.footer_ranges.push(range);
            }
        }
    }

    fn push_text(&mut self, raw: &str) {
        if self.hidden_depth > 0 || self.head_depth > 0 || self.template_depth > 0 {
            return;
        }
        let decoded = entities::decode(raw);
        if self.may_copy(decoded.len()) {
            // Numbers of two elements written with nothing between them (class
            // `text.glued_numbers`: `<span>Sample Street 12</span><span>0150 Oslo</span>`,
            // laid out as two lines by the page's style) are two numbers, not one, when the
            // second has three digits or more (a postcode's); a pager's `1`, `2` … `10` stays
            // as it is written.
            let leading_digits = decoded.bytes().take_while(u8::is_ascii_digit).count();
            if std::mem::take(&mut self.element_since_text)
                && leading_digits >= MIN_GLUED_NUMBER_DIGITS
                && self.doc.text.ends_with(|c: char| c.is_ascii_digit())
            {
                self.doc.text.push(' ');
            }
            push_collapsed(&mut self.doc.text, &decoded);
        }
    }

    /// Keeps a Cloudflare email-protection payload found at the current text position (a
    /// copy charged to the budget). Asked at every element, which seldom has one: inlined,
    /// that costs a test, not a call.
    #[inline(always)]
    fn push_cfemail(&mut self, hex: Option<&str>) {
        if let Some(hex) = hex {
            self.keep_cfemail(hex);
        }
    }

    /// [`Walker::push_cfemail`] for a payload there is.
    fn keep_cfemail(&mut self, hex: &str) {
        let hex = hex.trim();
        if self.may_copy(hex.len()) {
            self.doc
                .cf_emails
                .push((self.doc.text.len(), hex.to_string()));
        }
    }

    /// Records that a block's text starts at the end of the text so far.
    fn block_boundary(&mut self) {
        let at = self.doc.text.len();
        if self.doc.block_starts.last().is_none_or(|last| *last < at) {
            self.doc.block_starts.push(at);
        }
    }

    fn newline(&mut self) {
        let text = &mut self.doc.text;
        if text.ends_with(' ') {
            text.pop();
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
    }

    fn finish(mut self) -> Document {
        // Links whose capture a spent budget left open have the texts read so far (the
        // innermost's run ends the extras).
        while let Some((index, _, from)) = self.link_captures.pop() {
            let extras = self.link_extras.get(from..).unwrap_or_default();
            self.doc.links.set_text(index, extras);
            self.link_extras.truncate(from);
        }
        // Scopes left open by unclosed markup still hold data.
        while let Some(scope) = self.scopes.pop() {
            if let Scope::Address(address) | Scope::Organization(address) = scope {
                if (address.street.is_some() || address.postal_code.is_some())
                    && self.doc.marked_addresses.len() < MAX_MARKED_VALUES
                {
                    self.doc.marked_addresses.push(address);
                }
            }
        }
        self.doc
    }
}

/// Whether the walker reads an element named `name` whatever its attributes: one it skips
/// with its subtree, or one whose name alone it acts on (links, images, metas, headings, the
/// footer, `<address>`): the list [`StartName::READ_BY_NAME`] is held to.
#[cfg(test)]
pub(crate) fn read_by_name(name: &[u8]) -> bool {
    walker_skips(name)
        || matches!(
            name,
            b"template"
                | b"title"
                | b"meta"
                | b"base"
                | b"link"
                | b"html"
                | b"head"
                | b"br"
                | b"img"
                | b"a"
                | b"area"
                | b"footer"
                | b"address"
                | b"h1"
                | b"h2"
                | b"h3"
                | b"h4"
                | b"h5"
                | b"h6"
        )
}

/// What [`Walker::enter`] and [`Walker::leave`] do with an element named `name` with
/// `attributes`, wherever it is and whatever it holds: nothing ([`Passage::Through`]) for an
/// element that is not a block element nor one the walker reads by its name (links, images,
/// metas, titles, skipped elements, headings, `<html>`, `<head>`, `<template>`, `<footer>`,
/// `<br>`…), with no attribute the walker reads on any element (`data-cfemail`, `hidden` or a
/// hiding `style`, a footer's class or id, microdata, RDFa and microformat properties and
/// scopes); only the line breaks and block starts of a block element
/// ([`Passage::BreakingLines`]) for such a block element. The copy for `tl` leaves the first
/// out, and the second where the walker's text is at a block boundary (`markup.rs`,
/// `TreeWriter::start`): their children are read as they would be inside them.
pub(crate) fn walker_passes_through(
    name: StartName,
    attributes: &[AttributeSpan],
    names: &[u8],
    page: &str,
) -> (Passage, ClassRead) {
    if name.is(StartName::READ_BY_NAME) {
        return (Passage::Reading, ClassRead::default());
    }
    // The attributes as `Attrs::read` reads them for such an element (none of its arms for
    // links, images, metas, `<html>` or iframes applies), looking only at those that decide
    // whether the walker reads it, and stopping at the first that does: one pass with no
    // `Attrs` to fill (this runs for most start tags of a page; tested against
    // `walker_passes_through_by_attrs`). Only the first of each name counts, as there.
    let mut seen = Seen::default();
    // Microdata and RDFa properties: a later `itemprop` replaces what an earlier `property`
    // found, so they are known at the end only.
    let mut item_prop = None;
    // The class names, once read, go to the walker with the element if it is kept.
    let mut class_read = ClassRead::default();
    for attribute in attributes {
        let value = || page.get(attribute.value.range()).unwrap_or("");
        let reads = match names.get(attribute.name.range()).unwrap_or_default() {
            b"class" if seen.first(Seen::CLASS) => {
                let class = ClassNames::read(value().as_bytes());
                class_read = class.to_hand_over();
                class.any()
            }
            b"id" if seen.first(Seen::ID) => names_footer(value().as_bytes()),
            b"style" if seen.first(Seen::STYLE) => style_hides(value().as_bytes()),
            b"hidden" | b"itemscope" => true,
            b"data-cfemail" => true,
            b"itemtype" => true,
            // An `itemtype` is read whenever it comes; the first `typeof` when it names a
            // type.
            b"typeof" if seen.first(Seen::TYPEOF) => {
                value().split_ascii_whitespace().next().is_some()
            }
            b"property" if seen.first(Seen::PROPERTY) => {
                if item_prop.is_none() {
                    item_prop = value().split_ascii_whitespace().find_map(rdfa_prop);
                }
                false
            }
            b"itemprop" if seen.first(Seen::ITEMPROP) => {
                item_prop = value().split_ascii_whitespace().find_map(microdata_prop);
                false
            }
            _ => false,
        };
        if reads {
            return (Passage::Reading, class_read);
        }
    }
    (
        passage_without_attributes_read(item_prop.is_some(), name.block()),
        class_read,
    )
}

/// The [`Passage`] of an element not read by its name: [`Passage::Reading`] when an attribute
/// the walker reads is on it (`reads`), else the line breaks of a block element (`block`),
/// else nothing.
fn passage_without_attributes_read(reads: bool, block: bool) -> Passage {
    if reads {
        Passage::Reading
    } else if block {
        Passage::BreakingLines
    } else {
        Passage::Through
    }
}

/// [`walker_passes_through`] as it was first written, from all the attributes
/// [`Attrs::read`] reads: the reference the new one is held to.
#[cfg(test)]
fn walker_passes_through_by_attrs(
    name: &[u8],
    attributes: &[AttributeSpan],
    names: &[u8],
    page: &str,
) -> Passage {
    if read_by_name(name) {
        return Passage::Reading;
    }
    let attributes = attributes.iter().map(|a| {
        (
            names.get(a.name.range()).unwrap_or_default(),
            page.get(a.value.range()).unwrap_or(""),
        )
    });
    let attrs = Attrs::read(attributes, name);
    let reads_none = attrs.cfemail.is_none()
        && !attrs.hidden
        && !attrs.footer_like
        && attrs.item_prop.is_none()
        && attrs.class_prop.is_none()
        && attrs.item_type.is_none()
        && !attrs.itemscope
        && !attrs.class_adr
        && !attrs.class_vcard;
    passage_without_attributes_read(!reads_none, is_block(name))
}

/// [`walker_passes_through`] held to its reference.
#[cfg(test)]
mod walker_passes_through_tests {
    use super::{walker_passes_through, walker_passes_through_by_attrs, ClassNames};
    use crate::extract::markup::{AttributeSpan, Span, StartName};

    #[test]
    fn class_names_handed_over_are_those_packed() {
        assert_eq!(ClassNames::handed_over(Default::default()), None);
        let props = std::iter::once(None).chain(ClassNames::PROPS.map(Some));
        for prop in props {
            for bits in 0..8u8 {
                let names = ClassNames {
                    adr: bits & 1 != 0,
                    vcard: bits & 2 != 0,
                    footer: bits & 4 != 0,
                    prop,
                };
                assert_eq!(ClassNames::handed_over(names.to_hand_over()), Some(names));
            }
        }
    }

    /// Both readings of an element named `name` with `attributes` (names as the prescan
    /// writes them, values as written).
    fn both(name: &str, attributes: &[(&str, &str)]) {
        let mut names = String::new();
        let mut page = String::new();
        let spans: Vec<AttributeSpan> = attributes
            .iter()
            .map(|(key, value)| {
                let key_at = names.len();
                names.push_str(key);
                let value_at = page.len();
                page.push_str(value);
                page.push(' ');
                AttributeSpan {
                    name: Span::new(key_at..names.len()),
                    value: Span::new(value_at..value_at + value.len()),
                }
            })
            .collect();
        let name = name.as_bytes();
        let (passage, class_read) =
            walker_passes_through(StartName::of(name), &spans, names.as_bytes(), &page);
        assert_eq!(
            passage,
            walker_passes_through_by_attrs(name, &spans, names.as_bytes(), &page),
            "{:?} {attributes:?}",
            String::from_utf8_lossy(name)
        );
        // The class names handed to the walker are those of the first `class`, as it reads
        // them.
        if let Some(handed) = ClassNames::handed_over(class_read) {
            let first_class = attributes.iter().find(|(key, _)| *key == "class");
            assert_eq!(
                Some(handed),
                first_class.map(|(_, value)| ClassNames::read(value.as_bytes())),
                "{attributes:?}"
            );
        }
    }

    const NAMES: [&str; 12] = [
        "div", "span", "p", "li", "a", "meta", "section", "b", "img", "svg", "footer", "x-y",
    ];
    const KEYS: [&str; 19] = [
        "class",
        "id",
        "style",
        "hidden",
        "itemscope",
        "data-cfemail",
        "itemtype",
        "typeof",
        "property",
        "itemprop",
        "href",
        "content",
        "name",
        "rel",
        "src",
        "title",
        "alt",
        "lang",
        "data-x",
    ];
    const VALUES: [&str; 16] = [
        "",
        " ",
        "btn big",
        "adr",
        "x h-card",
        "site-Footer",
        "footerWrap x",
        "p-street-address",
        "display: none",
        "color:red",
        "streetAddress",
        "schema:postalCode",
        "name",
        "x streetAddress",
        "Thing",
        "e@example.com",
    ];

    #[test]
    fn elements_are_read_as_by_the_reference() {
        both("div", &[]);
        both("span", &[("class", "btn")]);
        both("span", &[("class", "btn"), ("class", "adr")]);
        both("span", &[("property", "streetAddress"), ("itemprop", "x")]);
        both("span", &[("itemprop", "x"), ("property", "streetAddress")]);
        both("span", &[("itemprop", "streetAddress"), ("property", "x")]);
        both("div", &[("typeof", " "), ("typeof", "Thing")]);
        both("div", &[("typeof", " "), ("itemtype", "")]);
        both("p", &[("id", "x"), ("id", "footer")]);
        both("p", &[("style", "color:red"), ("style", "display:none")]);
        both("li", &[("data-cfemail", "")]);
        both("b", &[("title", "t"), ("hidden", "")]);
    }

    proptest::proptest! {
        /// Generated elements: names and attributes the walker reads or not, in any order,
        /// repeated.
        #[test]
        fn generated_elements_are_read_as_by_the_reference(
            name in proptest::sample::select(NAMES.to_vec()),
            attributes in proptest::collection::vec(
                (
                    proptest::sample::select(KEYS.to_vec()),
                    proptest::sample::select(VALUES.to_vec()),
                ),
                0..6,
            ),
        ) {
            both(name, &attributes);
        }
    }
}

/// The attributes the walker reads, from one pass over a tag's attributes.
#[derive(Default)]
struct Attrs<'s> {
    href: Option<&'s str>,
    alt: Option<&'s str>,
    title: Option<&'s str>,
    content: Option<&'s str>,
    lang: Option<&'s str>,
    meta_key: Option<&'s str>,
    cfemail: Option<&'s str>,
    src: Option<&'s str>,
    item_type: Option<&'s str>,
    item_prop: Option<Prop>,
    class_prop: Option<Prop>,
    itemscope: bool,
    class_adr: bool,
    class_vcard: bool,
    rel_canonical: bool,
    hidden: bool,
    footer_like: bool,
}

impl<'s> Attrs<'s> {
    /// Reads the attributes of an element named `name` in one pass, keeping the values this
    /// element needs as written (the walker decodes the few it uses). A repeated attribute is
    /// ignored, as HTML5 does (§13.2.5.33: the first one counts). (The walker itself uses
    /// [`Attrs::read_with_class`]; the tests' references read this way.)
    #[cfg(test)]
    fn read(attributes: impl Iterator<Item = (&'s [u8], &'s str)>, name: &[u8]) -> Attrs<'s> {
        let values = attributes.map(|(key, value)| (key, AttributeValue::whole(value)));
        Attrs::read_with_class(values, name, None)
    }

    /// [`Attrs::read`], where the names of the first `class` attribute may have been read
    /// already (`class`, by the prescan's pass-through test): they are not read again.
    fn read_with_class(
        attributes: impl Iterator<Item = (&'s [u8], AttributeValue<'s>)>,
        name: &[u8],
        class: Option<ClassNames>,
    ) -> Attrs<'s> {
        let mut attrs = Attrs::default();
        let wants_href = matches!(name, b"a" | b"area" | b"base" | b"link");
        let is_link = matches!(name, b"a" | b"area");
        let mut seen = Seen::default();
        for (key, raw) in attributes {
            match key {
                b"href" if wants_href && seen.first(Seen::HREF) => attrs.href = Some(raw.text()),
                b"alt" if name == b"img" && seen.first(Seen::ALT) => attrs.alt = Some(raw.text()),
                b"title" if is_link && seen.first(Seen::TITLE) => attrs.title = Some(raw.text()),
                b"content" if seen.first(Seen::CONTENT) => attrs.content = Some(raw.text()),
                b"lang" if name == b"html" && seen.first(Seen::LANG) => {
                    attrs.lang = Some(raw.text())
                }
                b"name"
                    if name == b"meta" && seen.first(Seen::NAME) && attrs.meta_key.is_none() =>
                {
                    attrs.meta_key = Some(raw.text());
                }
                b"property" if name == b"meta" && seen.first(Seen::PROPERTY) => {
                    attrs.meta_key = Some(raw.text())
                }
                // RDFa (Lite 1.1 §2: `property` names the property, `typeof` the type) read
                // as microdata: `property="streetAddress"` or `schema:streetAddress`.
                b"property" if seen.first(Seen::PROPERTY) && attrs.item_prop.is_none() => {
                    attrs.item_prop = raw.text().split_ascii_whitespace().find_map(rdfa_prop);
                }
                b"typeof" if seen.first(Seen::TYPEOF) && attrs.item_type.is_none() => {
                    attrs.item_type = raw.text().split_ascii_whitespace().next();
                }
                b"data-cfemail" if seen.first(Seen::CFEMAIL) => attrs.cfemail = Some(raw.text()),
                b"src" if name == b"iframe" && seen.first(Seen::SRC) => {
                    attrs.src = Some(raw.text())
                }
                b"itemscope" => attrs.itemscope = true,
                b"itemtype" if seen.first(Seen::ITEMTYPE) => attrs.item_type = Some(raw.text()),
                b"itemprop" if seen.first(Seen::ITEMPROP) => {
                    attrs.item_prop = raw.text().split_ascii_whitespace().find_map(microdata_prop);
                    if attrs.meta_key.is_none() && name == b"meta" {
                        attrs.meta_key = Some(raw.text());
                    }
                }
                b"rel" if seen.first(Seen::REL) => {
                    attrs.rel_canonical = raw
                        .text()
                        .split_ascii_whitespace()
                        .any(|r| r.eq_ignore_ascii_case("canonical"))
                }
                b"hidden" => attrs.hidden = true,
                b"style" if seen.first(Seen::STYLE) => {
                    attrs.hidden |= style_hides(raw.text().as_bytes())
                }
                b"class" if seen.first(Seen::CLASS) => attrs
                    .take_class(class.unwrap_or_else(|| ClassNames::read(raw.text().as_bytes()))),
                b"id" if seen.first(Seen::ID) => {
                    attrs.footer_like |= names_footer(raw.text().as_bytes())
                }
                _ => {}
            }
        }
        attrs
    }

    /// Takes what the class names of a `class` attribute tell: microformat roots and
    /// properties, and names that mark a footer ([`ClassNames::read`]).
    fn take_class(&mut self, names: ClassNames) {
        self.class_adr |= names.adr;
        self.class_vcard |= names.vcard;
        if self.class_prop.is_none() {
            self.class_prop = names.prop;
        }
        self.footer_like |= names.footer;
    }
}

/// What the class names of one `class` attribute tell the walker: small enough to be returned
/// in registers, where reading into an [`Attrs`] made the pass-through test
/// (`walker_passes_through`) fill a whole one first.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct ClassNames {
    /// `adr` or `h-adr`.
    adr: bool,
    /// `vcard` or `h-card`.
    vcard: bool,
    /// The first microformat property named.
    prop: Option<Prop>,
    /// A name that marks a footer ([`names_footer`]).
    footer: bool,
}

impl ClassNames {
    /// The class names of `class`.
    fn read(class: &[u8]) -> ClassNames {
        // Class names are split at ASCII white space (HTML's "set of space-separated
        // tokens"). Class attributes hold about a sixteenth of a page's bytes, so the names
        // are found eight bytes at a time rather than with `split`, byte by byte.
        let mut names = ClassNames::default();
        let mut at = 0;
        while at < class.len() {
            if class[at].is_ascii_whitespace() {
                at += 1;
                continue;
            }
            let end = class_name_end(class, at);
            let name = &class[at..end];
            match microformat_class(name) {
                Some(MicroformatClass::Adr) => names.adr = true,
                Some(MicroformatClass::Vcard) => names.vcard = true,
                Some(MicroformatClass::Prop(prop)) => {
                    names.prop.get_or_insert(prop);
                }
                None => {}
            }
            names.footer |= names_footer(name);
            at = end;
        }
        names
    }

    /// Whether any name tells the walker something.
    fn any(self) -> bool {
        self.adr || self.vcard || self.footer || self.prop.is_some()
    }

    /// The properties in the order of their discriminants, for [`ClassNames::handed_over`].
    const PROPS: [Prop; 8] = [
        Prop::Country,
        Prop::Email,
        Prop::Locality,
        Prop::OrgName,
        Prop::PostalCode,
        Prop::Region,
        Prop::Street,
        Prop::Telephone,
    ];

    /// These names packed in a byte to go with an element from the prescan to the walker:
    /// bit 0 set (read), then `adr`, `vcard` and `footer`, and the property's discriminant
    /// plus one (0: none) in the high four bits.
    fn to_hand_over(self) -> ClassRead {
        let prop = self.prop.map_or(0, |prop| prop as u8 + 1);
        ClassRead(
            1 | u8::from(self.adr) << 1
                | u8::from(self.vcard) << 2
                | u8::from(self.footer) << 3
                | prop << 4,
        )
    }

    /// The names [`ClassNames::to_hand_over`] packed, if they were read.
    fn handed_over(read: ClassRead) -> Option<ClassNames> {
        let bits = read.0;
        (bits & 1 != 0).then(|| ClassNames {
            adr: bits & 2 != 0,
            vcard: bits & 4 != 0,
            footer: bits & 8 != 0,
            prop: (bits >> 4)
                .checked_sub(1)
                .and_then(|index| Self::PROPS.get(usize::from(index)))
                .copied(),
        })
    }
}

/// The text of `text` from byte `start`, at most [`MAX_CAPTURE_BYTES`] of it (cut at a
/// character boundary).
fn captured(text: &str, start: usize) -> &str {
    let text = text.get(start..).unwrap_or("");
    let mut end = text.len().min(MAX_CAPTURE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A piece of [`Document::text`] as one line: its line breaks as spaces, trimmed; what
/// [`collapse`] makes of it, without reading it character by character. The text is built by
/// `push_collapsed` and `Walker::newline` only, so its white space is single spaces and line
/// breaks, never two next to each other, and it holds no other white space, control or
/// zero-width character (tested against `collapse`).
#[cfg(test)]
fn one_line(text: &str) -> String {
    let mut line = String::new();
    push_one_line(&mut line, text);
    line
}

/// Appends [`one_line`] of `text` to `target`.
fn push_one_line(target: &mut String, text: &str) {
    // The ends are trimmed as bytes (both are ASCII), and the line breaks found by `memchr`:
    // `trim_matches` decoded characters, and most link texts are one line already.
    let bytes = text.as_bytes();
    let start = bytes
        .iter()
        .position(|&b| b != b' ' && b != b'\n')
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b != b' ' && b != b'\n')
        .map_or(start, |last| last + 1);
    let piece = text.get(start..end).unwrap_or_default();
    // A line break is one byte (ASCII): the pieces around it are whole characters.
    let mut rest = piece;
    while let Some(at) = memchr::memchr(b'\n', rest.as_bytes()) {
        target.push_str(&rest[..at]);
        target.push(' ');
        rest = &rest[at + 1..];
    }
    target.push_str(rest);
}

/// An attribute value as written, entities decoded and white space trimmed.
fn decoded_trimmed(raw: &str) -> String {
    decoded_trimmed_piece(raw).into_owned()
}

/// [`decoded_trimmed`], borrowed from `raw` when it has no entity to decode.
fn decoded_trimmed_piece(raw: &str) -> Cow<'_, str> {
    match entities::decode_attribute(raw) {
        Cow::Borrowed(decoded) => Cow::Borrowed(decoded.trim()),
        // Most decoded values have nothing to trim: kept, not copied again.
        Cow::Owned(decoded) if decoded.trim().len() == decoded.len() => Cow::Owned(decoded),
        Cow::Owned(decoded) => Cow::Owned(decoded.trim().to_string()),
    }
}

/// The attributes [`Attrs::read`] has seen in one tag, one bit each.
#[derive(Default)]
struct Seen(u16);

impl Seen {
    const HREF: u16 = 1;
    const ALT: u16 = 1 << 1;
    const TITLE: u16 = 1 << 2;
    const CONTENT: u16 = 1 << 3;
    const LANG: u16 = 1 << 4;
    const NAME: u16 = 1 << 5;
    const PROPERTY: u16 = 1 << 6;
    const CFEMAIL: u16 = 1 << 7;
    const ITEMTYPE: u16 = 1 << 8;
    const ITEMPROP: u16 = 1 << 9;
    const REL: u16 = 1 << 10;
    const STYLE: u16 = 1 << 11;
    const CLASS: u16 = 1 << 12;
    const ID: u16 = 1 << 13;
    const SRC: u16 = 1 << 14;
    const TYPEOF: u16 = 1 << 15;

    /// Whether `bit` is seen for the first time (and marks it seen).
    fn first(&mut self, bit: u16) -> bool {
        let first = self.0 & bit == 0;
        self.0 |= bit;
        first
    }
}

/// Where the class name that starts at `at` in `class` ends: at the next ASCII white space
/// byte, or the end.
fn class_name_end(class: &[u8], mut at: usize) -> usize {
    // Eight bytes at a time while none is a space or a control (white space is among them).
    const ONES: u64 = 0x0101_0101_0101_0101;
    while let Some(word) = load(class, at) {
        // The high bit of each byte below `!` (`words8::any_byte_below`): a byte below it
        // borrows into its high bit, and a false bit only ever sits above a true one, so the
        // lowest bit set marks the first such byte exactly.
        let below = word.wrapping_sub(ONES * u64::from(b' ' + 1)) & !word & (ONES << 7);
        if below != 0 {
            let first = at + (below.trailing_zeros() / 8) as usize;
            if class[first].is_ascii_whitespace() {
                return first;
            }
            // A control that is not white space: byte by byte from it.
            at = first;
            break;
        }
        at += 8;
    }
    while class.get(at).is_some_and(|b| !b.is_ascii_whitespace()) {
        at += 1;
    }
    at
}

/// `footer`, `site-footer`, `footerWrap`… (ASCII case-insensitive).
fn names_footer(word: &[u8]) -> bool {
    // Six bytes as one number with bit 5 of each set: a byte with it set is `footer`'s
    // letter exactly when the byte is that letter in either case (the cases of an ASCII
    // letter differ in that bit alone, and every letter of `footer` has it set).
    fn is_footer(six: &[u8]) -> bool {
        let mut word = [0u8; 8];
        word[..6].copy_from_slice(six);
        u64::from_le_bytes(word) | 0x2020_2020_2020 == u64::from_le_bytes(*b"footer\0\0")
    }
    // Most names start with neither six bytes: a byte that is not `f` or `F` tells first.
    let starts_footer = |six: &[u8]| six[0] | 0x20 == b'f' && is_footer(six);
    word.len() >= 6 && (starts_footer(&word[..6]) || starts_footer(&word[word.len() - 6..]))
}

fn microdata_prop(name: &str) -> Option<Prop> {
    Some(match name {
        "streetAddress" | "postOfficeBoxNumber" => Prop::Street,
        "addressLocality" => Prop::Locality,
        "addressRegion" => Prop::Region,
        "postalCode" => Prop::PostalCode,
        "addressCountry" => Prop::Country,
        "name" | "legalName" => Prop::OrgName,
        "telephone" => Prop::Telephone,
        "email" => Prop::Email,
        _ => return None,
    })
}

/// An RDFa property (`streetAddress`, `schema:streetAddress`,
/// `http://schema.org/streetAddress`) as the microdata property of the same schema.org name.
fn rdfa_prop(name: &str) -> Option<Prop> {
    microdata_prop(name.rsplit(['/', '#', ':']).next().unwrap_or(name))
}

/// What a class name means to microformats (hCard, h-card): a root or a property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MicroformatClass {
    /// `adr`, `h-adr`: an address.
    Adr,
    /// `vcard`, `h-card`: a card (an organisation's, here).
    Vcard,
    /// A property (`street-address`, `p-tel`…).
    Prop(Prop),
}

/// The microformat meaning of class name `class`, as [`microformat_prop`] and the roots
/// `adr`/`h-adr`, `vcard`/`h-card` give it. Most class names mean nothing: the length, first
/// and last byte (which tell the names below apart) single out the one name `class` can be,
/// and only that one is compared, rather than every name of its length in turn.
fn microformat_class(class: &[u8]) -> Option<MicroformatClass> {
    use MicroformatClass::{Adr, Vcard};
    let (&first, &last) = (class.first()?, class.last()?);
    let (name, meaning): (&[u8], MicroformatClass) = match (class.len(), first, last) {
        (3, b'a', b'r') => (b"adr", Adr),
        (5, b'h', b'r') => (b"h-adr", Adr),
        (5, b'v', b'd') => (b"vcard", Vcard),
        (6, b'h', b'd') => (b"h-card", Vcard),
        (14, b's', b's') => (b"street-address", MicroformatClass::Prop(Prop::Street)),
        (16, b'p', b's') => (b"p-street-address", MicroformatClass::Prop(Prop::Street)),
        (16, b'e', b's') => (b"extended-address", MicroformatClass::Prop(Prop::Street)),
        (18, b'p', b's') => (b"p-extended-address", MicroformatClass::Prop(Prop::Street)),
        (15, b'p', b'x') => (b"post-office-box", MicroformatClass::Prop(Prop::Street)),
        (8, b'l', b'y') => (b"locality", MicroformatClass::Prop(Prop::Locality)),
        (10, b'p', b'y') => (b"p-locality", MicroformatClass::Prop(Prop::Locality)),
        (6, b'r', b'n') => (b"region", MicroformatClass::Prop(Prop::Region)),
        (8, b'p', b'n') => (b"p-region", MicroformatClass::Prop(Prop::Region)),
        (11, b'p', b'e') => (b"postal-code", MicroformatClass::Prop(Prop::PostalCode)),
        (13, b'p', b'e') => (b"p-postal-code", MicroformatClass::Prop(Prop::PostalCode)),
        (12, b'c', b'e') => (b"country-name", MicroformatClass::Prop(Prop::Country)),
        (14, b'p', b'e') => (b"p-country-name", MicroformatClass::Prop(Prop::Country)),
        (3, b'o', b'g') => (b"org", MicroformatClass::Prop(Prop::OrgName)),
        (5, b'p', b'g') => (b"p-org", MicroformatClass::Prop(Prop::OrgName)),
        (3, b't', b'l') => (b"tel", MicroformatClass::Prop(Prop::Telephone)),
        (5, b'p', b'l') => (b"p-tel", MicroformatClass::Prop(Prop::Telephone)),
        (5, b'e', b'l') => (b"email", MicroformatClass::Prop(Prop::Email)),
        (7, b'u', b'l') => (b"u-email", MicroformatClass::Prop(Prop::Email)),
        _ => return None,
    };
    (class == name).then_some(meaning)
}

/// The microformat property a class name names: the reference [`microformat_class`] is
/// tested against.
#[cfg(test)]
fn microformat_prop(class: &[u8]) -> Option<Prop> {
    Some(match class {
        b"street-address"
        | b"p-street-address"
        | b"extended-address"
        | b"p-extended-address"
        | b"post-office-box" => Prop::Street,
        b"locality" | b"p-locality" => Prop::Locality,
        b"region" | b"p-region" => Prop::Region,
        b"postal-code" | b"p-postal-code" => Prop::PostalCode,
        b"country-name" | b"p-country-name" => Prop::Country,
        b"org" | b"p-org" => Prop::OrgName,
        b"tel" | b"p-tel" => Prop::Telephone,
        b"email" | b"u-email" => Prop::Email,
        _ => return None,
    })
}

/// Microdata item types that describe an organisation (schema.org `Organization` and its
/// common `LocalBusiness` subtypes are recognised by exclusion of the non-organisation types).
fn scope_for_type(item_type: &str) -> Scope {
    let last = item_type
        .trim()
        .trim_end_matches('/')
        .rsplit(['/', '#', ':'])
        .next()
        .unwrap_or("");
    match last {
        "PostalAddress" => Scope::Address(MarkedAddress::default()),
        "Person"
        | "WebPage"
        | "WebSite"
        | "Product"
        | "Offer"
        | "AggregateOffer"
        | "Review"
        | "Rating"
        | "AggregateRating"
        | "ImageObject"
        | "VideoObject"
        | "BreadcrumbList"
        | "ListItem"
        | "Event"
        | "Article"
        | "BlogPosting"
        | "NewsArticle"
        | "GeoCoordinates"
        | "Place"
        | "SiteNavigationElement"
        | "WPHeader"
        | "WPFooter"
        | "WPSideBar"
        | "Thing"
        | "CreativeWork"
        | "SearchAction"
        | "Brand"
        | "OpeningHoursSpecification"
        | "ContactPoint"
        | "Comment"
        | "Question"
        | "Answer"
        | "Recipe"
        | "" => Scope::Other,
        _ => Scope::Organization(MarkedAddress::default()),
    }
}

/// Whether an inline `style` hides the element (`display: none`, `visibility:hidden`): the
/// style with its ASCII white space left out, in lower case, holds `display:none` or
/// `visibility:hidden`. Read in place, from each `:` (found by `memchr`): the bytes before it
/// that are not white space must spell the property, those after it the value. A compact copy
/// and two searchers built for every style cost more than the reading (styles can be long,
/// with `url(data:…)` images).
fn style_hides(style: &[u8]) -> bool {
    memchr::memchr_iter(b':', style).any(|colon| {
        let (before, after) = (&style[..colon], &style[colon + 1..]);
        (spelled_before(before, b"display") && spelled_after(after, b"none"))
            || (spelled_before(before, b"visibility") && spelled_after(after, b"hidden"))
    })
}

/// Whether `bytes`, ASCII white space left out, start with `word` (lower case) in either case.
fn spelled_after(bytes: &[u8], word: &[u8]) -> bool {
    let mut letters = bytes
        .iter()
        .filter(|b| !b.is_ascii_whitespace())
        .map(u8::to_ascii_lowercase);
    word.iter().all(|&wanted| letters.next() == Some(wanted))
}

/// Whether `bytes`, ASCII white space left out, end with `word` (lower case) in either case.
fn spelled_before(bytes: &[u8], word: &[u8]) -> bool {
    let mut letters = bytes
        .iter()
        .rev()
        .filter(|b| !b.is_ascii_whitespace())
        .map(u8::to_ascii_lowercase);
    word.iter()
        .rev()
        .all(|&wanted| letters.next() == Some(wanted))
}

/// Cloudflare's link form `/cdn-cgi/l/email-protection#<hex>`.
fn href_cfemail(href: &str) -> Option<&str> {
    const PATH: &[u8] = b"/cdn-cgi/l/email-protection";
    let bytes = href.as_bytes();
    // The mark's one `#` is its last byte, so its first occurrence ends at the first `#` that
    // the path comes right before. Most links have no `#` (a `memchr` answers for them), and
    // one too short for the mark and a payload is not read at all.
    if bytes.len() <= PATH.len() + 1 {
        return None;
    }
    let hash = memchr::memchr_iter(b'#', bytes)
        .find(|&hash| hash >= PATH.len() && &bytes[hash - PATH.len()..hash] == PATH)?;
    let hex = href.get(hash + 1..)?;
    (!hex.is_empty()).then_some(hex)
}

/// [`href_cfemail`] as first written, with a searcher for the whole mark: its reference.
#[cfg(test)]
fn href_cfemail_model(href: &str) -> Option<&str> {
    const MARK: &str = "/cdn-cgi/l/email-protection#";
    let at = memchr::memmem::find(href.as_bytes(), MARK.as_bytes())?;
    let hex = href.get(at + MARK.len()..)?;
    (!hex.is_empty()).then_some(hex)
}

fn set_once(slot: Option<&mut Option<String>>, value: String) {
    if let Some(slot) = slot {
        if slot.is_none() {
            *slot = Some(value);
        }
    }
}

/// Cuts `text` to its first `max` characters.
fn truncate_chars(text: &mut String, max: usize) {
    let end = first_chars(text, max).len();
    text.truncate(end);
}

/// Appends characters of `extra` to `target` until it holds `cap` characters.
fn append_chars(target: &mut String, extra: &str, cap: usize) {
    let room = cap.saturating_sub(target.chars().count());
    target.push_str(first_chars(extra, room));
}

/// Appends `extra`, trimmed, to `target` (after a space when `target` has text), at most
/// [`MAX_CAPTURE_CHARS`] characters of it; nothing once `target` holds that many.
fn append_capped(target: &mut String, extra: &str) {
    append_capped_from(target, 0, extra);
}

/// [`append_capped`] to the text of `target` from byte `from` on (a run of it that ends it).
fn append_capped_from(target: &mut String, from: usize, extra: &str) {
    let extra = extra.trim();
    let run = target.get(from..).unwrap_or_default();
    // A character is at least one byte: a run of fewer bytes than the cap is under it,
    // without counting its characters.
    if extra.is_empty()
        || (run.len() >= MAX_CAPTURE_CHARS && run.chars().count() >= MAX_CAPTURE_CHARS)
    {
        return;
    }
    if !run.is_empty() {
        target.push(' ');
    }
    target.push_str(first_chars(extra, MAX_CAPTURE_CHARS));
}

/// The first `count` characters of `text` (all of it if it has fewer).
fn first_chars(text: &str, count: usize) -> &str {
    // A character is at least one byte: a text of at most `count` bytes is whole.
    if text.len() <= count {
        return text;
    }
    let end = text
        .char_indices()
        .nth(count)
        .map_or(text.len(), |(at, _)| at);
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(doc: &Document) -> Vec<&str> {
        doc.text.lines().collect()
    }

    #[test]
    fn parsing_in_kept_buffers_gives_what_a_fresh_parse_gives() {
        let pages = [
            format!(
                "<ul>{}</ul><p>Call <a href='tel:+1'>+1 555</a></p>",
                "<li><a href='/x' title=t>x</a>".repeat(500)
            ),
            "<p>short <b>page</b></p><script>var x = '<p>no</p>';</script>".to_string(),
            String::new(),
            "<div class='vcard'><span class='org'>Acme</span><!-- c --></div>".to_string(),
        ];
        let mut buffers = ParseBuffers::default();
        for page in &pages {
            let kept = parse_reusing(page, &mut buffers, &PageBudget::for_page(page.len()));
            assert_eq!(format!("{kept:?}"), format!("{:?}", parse(page)));
        }
        // Between pages the buffers hold nothing, only capacity (the names keep stale bytes
        // that nothing reads).
        assert!(buffers.names.len() >= pages[0].len());
        assert!(buffers.tree.text.is_empty() && buffers.tree.attributes.is_empty());
    }

    /// Pieces of markup for [`white_space_left_out_of_the_copy_shows_nothing`]: block,
    /// inline, skipped and opaque elements (`<title>`, `<template>`), void and self-closing
    /// tags, implied end tags, comments, white space and text; elements the walker reads
    /// nothing from and others of the same names that it reads, and text an element between
    /// them keeps apart (`&amp` `;`).
    #[rustfmt::skip]
    const PIECES: &[&str] = &[
        "<div>", "</div>", "<p>", "</p>", "<span>", "</span>", "<a href=x>", "</a>", "<ul>",
        "</ul>", "<li>", "</li>", "<h1>", "</h1>", "<b>", "</b>", "<title>", "</title>",
        "<template>", "</template>", "<script>s</script>", "<style>s</style>", "<svg>", "</svg>",
        "<noscript>n</noscript>", "<xmp>m</xmp>", "<br>", "<img alt=i>", "<div/>",
        "<span class=\"c\"/>", "<script src=s />", "<!-- c -->", "<!DOCTYPE html>", "<head>",
        "</head>", "<body>", "<table>", "<tr>", "<td>", "<div hidden>", "<p class=footer>",
        "<i itemprop=telephone>", "<a.b>", "</a.b>", "<long-custom-element>",
        "</long-custom-element>", "<b title=\"</svg><i>\">", "</ x>", "<script>", "<textarea>",
        "</textarea>", "<select><option>o</select>", "&lt;", "<", " ", " ", "\n  ", "\t", "\u{1}",
        "x", "y z", "<link rel=stylesheet href=s>", "<link rel=\"x Canonical\" href=c>",
        "<meta charset=u>", "<meta name=n content=c>", "<meta itemprop=og:url content=d>",
        "<meta property=\" Geo.Region\" content=e>",
        "<script data-cfemail=6a0b>", "<svg data-cfemail=6a0b></svg>", "</script>", "&amp", ";",
        "<i></i>", "<span class=\"fa x\"></span>", "<div></div>", "<p class=c></p>", "<li></li>",
        "<h2></h2>", "<footer></footer>", "<td></td>", "<i hidden></i>", "<a href=y></a>",
        "<html lang=de></html>", "<span data-cfemail=6a0b></span>", "<div data-cfemail=6a0b></div>",
        "<span itemprop=telephone content=\"+1 2\"></span>", "<div class=adr>",
        "<span class=street-address></span>", "<span class=\"vcard\"></span>",
        "<span itemprop=streetAddress></span>", "<b style=\"display:none\"></b>",
        "<div itemscope itemtype=https://schema.org/PostalAddress></div>", "<p><span></span></p>",
        "<em>", "</em>", "<span class=x>", "<input name=q>", "<small/>", "<i>", "</i>", "&#6", "4;",
        "&", "lt;", "<span id=footer-x>", "<b class=tel>", "<span property=telephone>",
        "<em style=display:none>", "<xmp>", "</xmp>",
    ];

    proptest::proptest! {
        /// The white space, blanks and elements the copy for `tl` leaves out (`markup.rs`,
        /// `TreeWriter::before_tag` and `TreeWriter::start`) change nothing the walker reads
        /// (but metas whose keys the extraction never looks up).
        #[test]
        fn white_space_left_out_of_the_copy_shows_nothing(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..40)
        ) {
            let page: String = pieces.concat();
            let read = |mut doc: Document| {
                let keys = crate::extract::markup::META_KEYS_READ;
                doc.metas.retain(|(key, _)| keys.contains(&key.as_str()));
                format!("{doc:?}")
            };
            let left_out = read(parse(&page));
            crate::extract::markup::KEEP_WHITE_SPACE.set(true);
            let kept = read(parse(&page));
            crate::extract::markup::KEEP_WHITE_SPACE.set(false);
            proptest::prop_assert_eq!(left_out, kept, "{:?}", page);
        }
    }

    proptest::proptest! {
        /// Every piece of a document text built as the walker builds it (text and line
        /// breaks) reads as one line the same through [`one_line`] as through [`collapse`].
        #[test]
        fn one_line_is_collapse_on_document_text(
            parts in proptest::collection::vec(
                proptest::option::of("([a.~]{1,3}|[ \t\n\r\u{1}\u{7f}\u{85}\u{a0}\u{ad}é\u{200b}\u{2028}\u{3000}\u{feff}]){0,6}"),
                0..8,
            )
        ) {
            // `None` is a line break.
            let budget = PageBudget::for_page(0);
            let mut walker = Walker::new(Document::default(), &budget);
            for part in &parts {
                match part {
                    Some(text) => push_collapsed(&mut walker.doc.text, text),
                    None => walker.newline(),
                }
            }
            let text = &walker.doc.text;
            let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            for (k, &start) in bounds.iter().enumerate() {
                for &end in &bounds[k..] {
                    let piece = &text[start..end];
                    proptest::prop_assert_eq!(one_line(piece), collapse(piece), "{:?}", piece);
                }
            }
        }
    }

    /// [`one_line`] as first written.
    fn one_line_model(text: &str) -> String {
        text.trim_matches([' ', '\n']).replace('\n', " ")
    }

    proptest::proptest! {
        /// [`one_line`] reads any text as its model does.
        #[test]
        fn one_line_follows_its_model(text in "[ \na\u{e9}\u{2028}\t]{0,12}") {
            proptest::prop_assert_eq!(one_line(&text), one_line_model(&text));
        }

        /// A link's texts kept as runs of one string read as a string each did: a text
        /// collapsed into a used buffer is [`collapse`]'s, and [`append_capped_from`] appends
        /// to the run from `from` as [`append_capped`] to a string of its own.
        #[test]
        fn link_texts_in_runs_read_as_strings_of_their_own(
            before in "[a ]{0,5}",
            run in "([aé]{0,3} ?){0,120}",
            extra in "[ \ta\u{200b}é]{0,400}",
            dirty in "[x ]{0,4}",
        ) {
            let mut collapsed = dirty;
            collapse_into(&mut collapsed, &extra);
            proptest::prop_assert_eq!(&collapsed, &collapse(&extra));
            let mut own = run.clone();
            append_capped(&mut own, &collapsed);
            let mut runs = format!("{before}{run}");
            append_capped_from(&mut runs, before.len(), &collapsed);
            proptest::prop_assert_eq!(&runs[before.len()..], own.as_str());
            proptest::prop_assert_eq!(&runs[..before.len()], before.as_str());
        }
    }

    /// [`style_hides`] as first written: a compact lower-case copy searched for the words.
    fn style_hides_model(style: &[u8]) -> bool {
        let compact: Vec<u8> = style
            .iter()
            .filter(|b| !b.is_ascii_whitespace())
            .map(u8::to_ascii_lowercase)
            .collect();
        memchr::memmem::find(&compact, b"display:none").is_some()
            || memchr::memmem::find(&compact, b"visibility:hidden").is_some()
    }

    #[test]
    fn styles_hide_as_their_model_says() {
        for style in [
            "display:none",
            "DISPLAY : None ;",
            "color:red; display: block",
            "d isplay:n one",
            "ddisplay:none",
            "visibility: hidden",
            "Visibility:Hidden!important",
            "visibility:visible",
            "display:\u{b}none",
            "display:non",
            "",
            "v",
            "d",
            "display:nonevisibility:hidde",
            "x:display\t:\nnone",
        ] {
            assert_eq!(
                style_hides(style.as_bytes()),
                style_hides_model(style.as_bytes()),
                "{style:?}"
            );
        }
        assert!(style_hides(b"width:0; DISPLAY :\tNONE"));
        assert!(!style_hides(b"display:block; visibility:visible"));
    }

    proptest::proptest! {
        /// [`style_hides`] reads styles as its model does.
        #[test]
        fn style_hides_follows_its_model(
            style in "(display|visibility|none|hidden|DISPLAY|Hidden|[dDvV:; \t\n\u{b}\u{c}aeiNn-]){0,12}"
        ) {
            proptest::prop_assert_eq!(
                style_hides(style.as_bytes()),
                style_hides_model(style.as_bytes()),
                "{:?}", style
            );
        }
    }

    /// [`Attrs::read_class`] as first written: names split at ASCII white space, byte by byte.
    fn read_class_model(class: &[u8]) -> (bool, bool, Option<Prop>, bool) {
        let (mut adr, mut vcard, mut prop, mut footer) = (false, false, None, false);
        for name in class
            .split(u8::is_ascii_whitespace)
            .filter(|c| !c.is_empty())
        {
            adr |= matches!(name, b"adr" | b"h-adr");
            vcard |= matches!(name, b"vcard" | b"h-card");
            prop = prop.or_else(|| microformat_prop(name));
            footer |= name.len() >= 6
                && (name[..6].eq_ignore_ascii_case(b"footer")
                    || name[name.len() - 6..].eq_ignore_ascii_case(b"footer"));
        }
        (adr, vcard, prop, footer)
    }

    proptest::proptest! {
        /// Class names read eight bytes at a time are those read byte by byte.
        #[test]
        fn class_names_follow_their_model(
            names in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec![
                        "adr", "h-adr", "vcard", "h-card", "tel", "p-org", "u-email",
                        "street-address", "country-name", "footer", "FOOTER", "site-Footer",
                        "footerWrap", "fooder", "f\u{f6}oter", "FOOTER\u{b}", "ADR", "footer\u{0}",
                    ].into_iter().map(String::from).collect::<Vec<_>>()),
                    "[a-zA-Z\u{1}\u{b}\u{0} -]{0,20}",
                ],
                0..6,
            ),
            separators in proptest::collection::vec("[ \t\n\u{c}\r\u{b}]{1,3}", 6),
        ) {
            let mut class = String::new();
            for (name, separator) in names.iter().zip(&separators) {
                class.push_str(name);
                class.push_str(separator);
            }
            for class in [class.trim_end(), class.as_str()] {
                let mut attrs = Attrs::default();
                attrs.take_class(ClassNames::read(class.as_bytes()));
                proptest::prop_assert_eq!(
                    (attrs.class_adr, attrs.class_vcard, attrs.class_prop, attrs.footer_like),
                    read_class_model(class.as_bytes()),
                    "{:?}", class
                );
            }
        }
    }

    /// What a class name means as first read: the roots by name, then
    /// [`microformat_prop`]; the reference [`microformat_class`] is held to.
    fn microformat_class_model(name: &[u8]) -> Option<MicroformatClass> {
        match name {
            b"adr" | b"h-adr" => Some(MicroformatClass::Adr),
            b"vcard" | b"h-card" => Some(MicroformatClass::Vcard),
            _ => microformat_prop(name).map(MicroformatClass::Prop),
        }
    }

    /// Every name [`microformat_class`] knows.
    const MICROFORMAT_NAMES: &[&str] = &[
        "adr",
        "h-adr",
        "vcard",
        "h-card",
        "street-address",
        "p-street-address",
        "extended-address",
        "p-extended-address",
        "post-office-box",
        "locality",
        "p-locality",
        "region",
        "p-region",
        "postal-code",
        "p-postal-code",
        "country-name",
        "p-country-name",
        "org",
        "p-org",
        "tel",
        "p-tel",
        "email",
        "u-email",
    ];

    #[test]
    fn microformat_classes_are_those_of_the_model() {
        for name in MICROFORMAT_NAMES {
            let name = name.as_bytes();
            assert!(microformat_class(name).is_some(), "{name:?}");
            assert_eq!(microformat_class(name), microformat_class_model(name));
            // Every name one byte off (changed, left out, added), and its other case.
            for at in 0..name.len() {
                for byte in [b'-', b'a', b'x', b'E', 0, 0xc3] {
                    let mut changed = name.to_vec();
                    changed[at] = byte;
                    let mut added = name.to_vec();
                    added.insert(at, byte);
                    let mut left_out = name.to_vec();
                    left_out.remove(at);
                    for variant in [changed, added, left_out] {
                        assert_eq!(
                            microformat_class(&variant),
                            microformat_class_model(&variant),
                            "{variant:?}"
                        );
                    }
                }
            }
            let upper = name.to_ascii_uppercase();
            assert_eq!(microformat_class(&upper), None);
        }
        assert_eq!(microformat_class(b""), None);
    }

    proptest::proptest! {
        /// [`microformat_class`] reads any name as its model does.
        #[test]
        fn microformat_class_follows_its_model(
            name in proptest::prop_oneof![
                "[-a-z]{0,19}",
                "[-acdeghlnoprstvxy]{1,18}",
                proptest::strategy::Strategy::prop_map(
                    proptest::sample::select(MICROFORMAT_NAMES),
                    String::from
                ),
            ]
        ) {
            proptest::prop_assert_eq!(
                microformat_class(name.as_bytes()),
                microformat_class_model(name.as_bytes()),
                "{:?}", name
            );
        }
    }

    proptest::proptest! {
        /// [`href_cfemail`] finds the payload its model finds, in links built of pieces of the
        /// mark.
        #[test]
        fn href_cfemail_follows_its_model(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "/cdn-cgi/l/email-protection", "/cdn-cgi/l/email-protection#", "#", "0a63",
                "/", "x", "https://a.example", "-protection#", "/cdn-cgi", "\u{e9}", "?q=1",
            ]), 0..6)
        ) {
            let href = pieces.concat();
            proptest::prop_assert_eq!(href_cfemail(&href), href_cfemail_model(&href), "{:?}", href);
        }
    }

    #[test]
    fn cloudflare_links_are_read_as_the_model_reads_them() {
        for href in [
            "/cdn-cgi/l/email-protection#0a63",
            "/cdn-cgi/l/email-protection#",
            "https://a.example/cdn-cgi/l/email-protection#0a63646c",
            "/x#y/cdn-cgi/l/email-protection#ab",
            "/cdn-cgi/l/email-protection#ab/cdn-cgi/l/email-protection#cd",
            "cdn-cgi/l/email-protection#ab",
            "#/cdn-cgi/l/email-protection",
            "",
        ] {
            assert_eq!(href_cfemail(href), href_cfemail_model(href), "{href:?}");
        }
        assert_eq!(
            href_cfemail("/cdn-cgi/l/email-protection#0a63"),
            Some("0a63")
        );
    }

    /// [`names_footer`] as first written: the first or last six bytes are `footer` in either
    /// case.
    fn names_footer_model(name: &[u8]) -> bool {
        name.len() >= 6
            && (name[..6].eq_ignore_ascii_case(b"footer")
                || name[name.len() - 6..].eq_ignore_ascii_case(b"footer"))
    }

    proptest::proptest! {
        /// [`names_footer`] reads any name as its model does.
        #[test]
        fn names_footer_follows_its_model(name in "([fF]|[oO]|[tT]|[eE]|[rR]|footer|FOOTER|-|x|é){0,9}") {
            proptest::prop_assert_eq!(
                names_footer(name.as_bytes()),
                names_footer_model(name.as_bytes()),
                "{:?}", name
            );
        }
    }

    #[test]
    fn first_chars_counts_characters_not_bytes() {
        assert_eq!(first_chars("abc", 0), "");
        assert_eq!(first_chars("abc", 2), "ab");
        assert_eq!(first_chars("abc", 5), "abc");
        assert_eq!(first_chars("éé€x", 2), "éé");
        assert_eq!(first_chars("éé€x", 3), "éé€");
        assert_eq!(first_chars("éé€x", 4), "éé€x");
        let mut text = String::from("ü€ab");
        truncate_chars(&mut text, 2);
        assert_eq!(text, "ü€");
    }

    #[test]
    fn blocks_break_lines_and_inline_elements_join() {
        let doc = parse(
            "<div>000 000</div><a href='mailto:eva@x.com'>eva@x.com</a>\
             <p>Call <span>623-889-60</span><span>00</span><br>Fax 1</p>",
        );
        assert_eq!(
            lines(&doc),
            ["000 000", "eva@x.com", "Call 623-889-6000", "Fax 1"]
        );
        assert_eq!(doc.links.get(0).unwrap().href, "mailto:eva@x.com");
        assert_eq!(doc.links.get(0).unwrap().text, "eva@x.com");
    }

    #[test]
    fn hidden_and_script_text_is_not_visible_but_links_are_kept() {
        let doc = parse(
            "<ul style='display: none'><li><a href='/contact'>Contact</a></li></ul>\
             <script>document.write('<p>x@y.com</p>')</script><p>shown</p><!-- a@b.com -->",
        );
        assert_eq!(lines(&doc), ["shown"]);
        assert_eq!(doc.links.len(), 1);
        assert_eq!(doc.links.get(0).unwrap().href, "/contact");
    }

    /// Class `text.glued_numbers`: numbers of two elements written with nothing between
    /// them are read apart when the second has three digits or more (a postcode after a house
    /// number); a pager's `1`, `2` … `10` and a number split for its style stay as written.
    #[test]
    fn numbers_of_elements_with_nothing_between_them() {
        let doc = parse("<p><span>Sample Street 12</span><span>0150 Oslo</span></p>");
        assert_eq!(doc.text.trim(), "Sample Street 12 0150 Oslo");
        let pager: String = (1..=10)
            .map(|n| format!("<a rel=\"{n}\">{n}</a>"))
            .collect();
        let doc = parse(&format!("<div>{pager}</div>"));
        assert_eq!(doc.text.trim(), "12345678910");
        let doc = parse("<p>Sample Street 12<b>0150</b> Oslo</p><p>12<span>34</span></p>");
        assert_eq!(doc.text.trim(), "Sample Street 12 0150 Oslo\n1234");
    }

    #[test]
    fn unclosed_hidden_element_does_not_swallow_the_page() {
        let doc = parse("<div hidden><p>secret<div>page</div><p>more");
        // The outer div is never closed, so it cannot be trusted to hide the rest.
        assert!(doc.text.contains("more"));
    }

    #[test]
    fn collects_head_data() {
        let doc = parse(
            "<HTML LANG='en-US'><head><title>Acme &amp; Co | Home</title>\
             <meta property='og:site_name' content='Acme'><base href='http://acme.com/'>\
             <link rel='canonical' href='http://acme.com/contact'></head><body>x</body></html>",
        );
        assert_eq!(doc.lang.as_deref(), Some("en-us"));
        assert_eq!(doc.title.as_deref(), Some("Acme & Co | Home"));
        assert_eq!(
            doc.metas,
            [("og:site_name".to_string(), "Acme".to_string())]
        );
        assert_eq!(doc.base_href.as_deref(), Some("http://acme.com/"));
        assert_eq!(doc.canonical.as_deref(), Some("http://acme.com/contact"));
        assert_eq!(lines(&doc), ["x"]);
    }

    #[test]
    fn an_unclosed_head_ends_where_the_body_starts() {
        // No `</head>`: the body and everything after it is visible, with `</html>` at the end
        // or not, `<body>` written or not; a `<noscript>` in the head changes nothing.
        for page in [
            "<html><head><title>T</title><body><p>Tel 076 815 52 47</p></body></html>",
            "<html><head><title>T</title><!-- <style> --><body><p>Tel 076 815 52 47</p></body></html>",
            "<html><head><title>T</title><body><p>Tel 076 815 52 47</p></body>",
            "<html><head><meta charset=utf-8><p>Tel 076 815 52 47</p></html>",
            "<html><head><noscript><link rel=x></noscript><body><p>Tel 076 815 52 47</p></html>",
        ] {
            let doc = parse(page);
            assert_eq!(lines(&doc), ["Tel 076 815 52 47"], "{page}");
            assert_eq!(doc.title.as_deref().unwrap_or("T"), "T", "{page}");
        }
    }

    #[test]
    fn reads_microdata_and_hcard() {
        let doc = parse(
            r#"<div itemscope itemtype="http://schema.org/LocalBusiness"><span itemprop="name">Acme</span>
            <div itemprop="address" itemscope itemtype="http://schema.org/PostalAddress">
            <span itemprop="streetAddress">1 Main St</span> <span itemprop="addressLocality">Town</span>,
            <span itemprop="addressRegion">CO</span> <span itemprop="postalCode">80202</span></div>
            <span itemprop="telephone">303-555-0100</span></div>
            <div class="vcard"><span class="org">Beta LLC</span><div class="adr">
            <div class="street-address">2 Side Rd</div><span class="postal-code">80120</span></div></div>"#,
        );
        assert_eq!(doc.marked_org_names, ["Acme", "Beta LLC"]);
        assert_eq!(doc.marked_phones, ["303-555-0100"]);
        assert_eq!(doc.marked_addresses.len(), 2);
        assert_eq!(doc.marked_addresses[0].street.as_deref(), Some("1 Main St"));
        assert_eq!(
            doc.marked_addresses[0].postal_code.as_deref(),
            Some("80202")
        );
        assert_eq!(doc.marked_addresses[1].street.as_deref(), Some("2 Side Rd"));
    }

    #[test]
    fn reads_address_parts_marked_on_the_organisation() {
        // Microdata parts on a LocalBusiness with no PostalAddress item (German), RDFa parts
        // on one (French); a classic hCard's street-address outside an adr is not read.
        let doc = parse(
            r#"<div itemscope itemtype="https://schema.org/LocalBusiness"><span itemprop="name">Beispiel GmbH</span>
            <p><span itemprop="streetAddress">Musterweg 12</span>, <span itemprop="postalCode">10115</span>
            <span itemprop="addressLocality">Berlin</span></p></div>
            <div vocab="https://schema.org/" typeof="Dentist"><span property="name">Exemple SARL</span>
            <span property="streetAddress">12 rue Exemple</span> <span property="postalCode">69002</span>
            <span property="addressLocality">Lyon</span></div>
            <div class="vcard"><div class="street-address">Autre Nom<br>3 Other Road</div></div>"#,
        );
        let parts: Vec<_> = doc
            .marked_addresses
            .iter()
            .map(|a| {
                (
                    a.street.as_deref(),
                    a.postal_code.as_deref(),
                    a.locality.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            parts,
            [
                (Some("Musterweg 12"), Some("10115"), Some("Berlin")),
                (Some("12 rue Exemple"), Some("69002"), Some("Lyon"))
            ]
        );
        assert_eq!(doc.marked_org_names, ["Beispiel GmbH", "Exemple SARL"]);
    }

    #[test]
    fn reads_rdfa_postal_addresses() {
        // Italian, RDFa Lite with a vocabulary; French, prefixed names. The parts sit in
        // separate elements.
        let doc = parse(
            r#"<div vocab="https://schema.org/" typeof="LocalBusiness"><span property="name">Esempio Srl</span>
            <div property="address" typeof="PostalAddress"><span property="streetAddress">Via Esempio 5</span>
            <p><span property="postalCode">20121</span> <span property="addressLocality">Milano</span></p></div></div>
            <div prefix="schema: http://schema.org/" typeof="schema:PostalAddress">
            <span property="schema:streetAddress">12 rue Exemple</span>
            <span property="schema:postalCode" content="69002">69 002</span>
            <span property="schema:addressLocality">Lyon</span></div>
            <p property="streetAddress">outside any address</p>"#,
        );
        assert_eq!(doc.marked_org_names, ["Esempio Srl"]);
        assert_eq!(doc.marked_addresses.len(), 2);
        let parts =
            |a: &MarkedAddress| (a.street.clone(), a.postal_code.clone(), a.locality.clone());
        let expected = |street: &str, postcode: &str, town: &str| {
            (
                Some(street.to_string()),
                Some(postcode.to_string()),
                Some(town.to_string()),
            )
        };
        assert_eq!(
            parts(&doc.marked_addresses[0]),
            expected("Via Esempio 5", "20121", "Milano")
        );
        assert_eq!(
            parts(&doc.marked_addresses[1]),
            expected("12 rue Exemple", "69002", "Lyon")
        );
    }

    #[test]
    fn self_closing_void_tags_in_skipped_elements_do_not_swallow_the_page() {
        // A page whose reCAPTCHA `<noscript>` held a `<br/>` lost its footer to it.
        for html in [
            "<div><noscript><iframe src=\"x\"></iframe><br/></noscript></div><p>after</p>",
            "<div><noscript><input type=\"hidden\"/><hr/></noscript></div><p>after</p>",
            "<div><noscript><input/></noscript></div><p>after</p>",
            "<div><select><option>A<option>B</select></div><p>after</p>",
            "<div><svg><path d=\"M0\"></svg></div><p>after</p>",
            "<div><template><li>x</template></div><p>after</p>",
            "<div><noscript><img src=\"x\"><p>js</noscript></div><p>after</p>",
            "<div><iframe><p>x</iframe></div><p>after</p>",
            "<div><datalist><option value=\"a\"></datalist></div><p>after</p>",
            "<div><select><optgroup label=\"g\"><option>A</select></div><p>after</p>",
        ] {
            assert_eq!(parse(html).text, "after\n", "{html}");
        }
    }

    #[test]
    fn templates_keep_their_links_and_nothing_else() {
        // An online shop's footer kept in a `<template>` holding tooltip `<template>`s; the
        // first inner `</template>` ended the skip and the rest of the template showed.
        let doc = parse(
            "<div><template><template>t<a href=\"/a\">a</a></template>u<a href=\"/b\">b</a><span itemprop=\"telephone\">{{phone}}</span></template>v</div>",
        );
        assert_eq!(doc.text, "v\n");
        // Their links count (a footer a script clones in), with no text; nothing else does.
        let hrefs: Vec<_> = doc.links.iter().map(|l| (l.href, l.text)).collect();
        assert_eq!(hrefs, [("/a", ""), ("/b", "")]);
        assert!(doc.marked_phones.is_empty());
        assert_eq!(
            parse("<svg><svg><path/></svg><text>t</text></svg><p>v</p>").text,
            "v\n"
        );
    }

    #[test]
    fn end_tags_with_spaces_or_attributes_close_their_element() {
        // A blog's archive list: `</li >` was ignored, so the next items fell into a hidden
        // `<li style="display:none">` and the hidden archive months showed.
        let html = "<ul><li>a<ul><li style=\"display:none\">b</li ></ul></li\n><li>c</li x=\"1>\"></ul><p>d</p >";
        assert_eq!(parse(html).text, "a\nc\nd\n");
    }

    #[test]
    fn a_less_than_sign_that_starts_no_tag_is_text() {
        // A blog's archive list: "My super sweet 18 <3</a>" opened an element `3` in `tl`
        // given the page as written, the `</a>` closed nothing and a hidden list swallowed the rest of the archive.
        let html = "<ul><li hidden><a>18 <3</a></li><li>x < 5 <= 6 <- <</li></ul><p>after</p>";
        assert_eq!(parse(html).text, "x < 5 <= 6 <- <\nafter\n");
    }

    #[test]
    fn only_an_attribute_named_hidden_hides() {
        // An AMP page: AMP's `[hidden]="expr"` (and Vue's `@x`, Angular's `(x)`,
        // `*x`, `#x`) read as `hidden` by `tl`'s own attribute reader, which splits names at
        // punctuation (the prescan reads attributes instead).
        for html in [
            "<p><i [hidden]=\"a\">x</i></p>",
            "<p><i @hidden=\"a\">x</i></p>",
            "<p><i (hidden)=\"a\">x</i></p>",
            "<p><i *hidden>x</i></p>",
            "<p><i #hidden>x</i></p>",
            "<p><i x.hidden>x</i></p>",
            "<p><i data|hidden>x</i></p>",
            "<p><i hidden]>x</i></p>",
            "<p><i \u{e9}hidden>x</i></p>",
        ] {
            assert_eq!(parse(html).text, "x\n", "{html}");
        }
        assert_eq!(parse("<p><i hidden>x</i>y</p>").text, "y\n");
    }

    #[test]
    fn attributes_are_read_as_html5_tokenizes_them() {
        // Unquoted values, an attribute without a value before another, a `/` between
        // attributes, quotes inside a name: read as written (no rewrite of the page).
        let doc = parse(
            "<A HREF=//x.com/a/b?c=1&amp;d=2 TITLE=T>t</A><a href\"\" class=x>f</a>\
             <div itemscope itemtype=https://schema.org/PostalAddress>\
             <span itemprop=postalCode>12345</span></div>\
             <p><span title=\"a\" / class=\"footer\">x</span>y</p>",
        );
        let hrefs: Vec<&str> = doc.links.iter().map(|l| l.href).collect();
        assert_eq!(hrefs, ["//x.com/a/b?c=1&d=2"]);
        assert_eq!(doc.links.get(0).unwrap().text, "t T");
        assert_eq!(doc.marked_addresses.len(), 1);
        assert_eq!(
            doc.marked_addresses[0].postal_code.as_deref(),
            Some("12345")
        );
        assert_eq!(doc.footer_ranges.len(), 1);
        assert_eq!(doc.text[doc.footer_ranges[0].clone()].trim(), "x");
    }

    #[test]
    fn a_repeated_attribute_is_ignored_as_html5_does() {
        // HTML5 (§13.2.5.33) keeps the first of two attributes with one name; `tl`'s own
        // attribute reader keeps the last (or, past two attributes, either, in hash order).
        let doc = parse(
            "<a href=\"/contact\" class=\"x\" href=\"/other\" title=\"T\" title=\"U\">Contact</a>\
             <div class=\"footer\" class=\"main\"><p>f</p></div>\
             <div class=\"main\" class=\"footer\"><p>g</p></div>",
        );
        assert_eq!(doc.links.len(), 1);
        assert_eq!(doc.links.get(0).unwrap().href, "/contact");
        assert_eq!(doc.links.get(0).unwrap().text, "Contact T");
        assert_eq!(doc.footer_ranges.len(), 1);
        assert_eq!(doc.text[doc.footer_ranges[0].clone()].trim(), "f");
    }

    #[test]
    fn nested_captures_stay_capped() {
        // Crafted pages: every open link or property captured all the text after it, so 60 000
        // nested `<a>` cost 3 s and 60 000 nested `itemprop` over 110 s, and nested
        // `street-address` built a street of quadratic length.
        let n = 3_000;
        let links = format!("{}{}", "<a href=\"/c\">w ".repeat(n), "</a>".repeat(n));
        let doc = parse(&links);
        assert_eq!(doc.links.len(), n);
        assert!(doc
            .links
            .iter()
            .all(|l| l.text.chars().count() <= MAX_CAPTURE_CHARS));
        let props = format!(
            "<div itemscope itemtype=\"http://schema.org/Organization\">{}{}</div>",
            "<span itemprop=\"telephone\">1 ".repeat(n),
            "</span>".repeat(n)
        );
        let doc = parse(&props);
        assert_eq!(doc.marked_phones.len(), MAX_MARKED_VALUES);
        assert!(doc
            .marked_phones
            .iter()
            .all(|p| p.chars().count() <= MAX_CAPTURE_CHARS));
        let streets = format!(
            "{}{}",
            "<div class=\"adr\"><span class=\"street-address\">1 Main St ".repeat(n),
            "</span></div>".repeat(n)
        );
        let doc = parse(&streets);
        assert!(doc.marked_addresses.len() <= MAX_MARKED_VALUES);
        assert!(doc.marked_addresses.iter().all(|a| a
            .street
            .as_ref()
            .is_some_and(|s| s.chars().count() <= MAX_CAPTURE_CHARS)));
    }

    #[test]
    fn cloudflare_payloads_and_image_alt_in_links() {
        let doc = parse(
            r#"<a href="/cdn-cgi/l/email-protection#0a63646c654a6f726b677a666f24696567"><span class="__cf_email__" data-cfemail="0a63">[email&#160;protected]</span></a>
            <a href="https://facebook.com/acme"><img alt="Facebook"></a>"#,
        );
        assert_eq!(doc.cf_emails.len(), 2);
        assert_eq!(doc.links.get(1).unwrap().text, "Facebook");
    }

    #[test]
    fn a_links_text_is_its_anchor_text_then_its_title_and_image_alt_texts() {
        let doc = parse(
            r#"<a href="/c" title="Write to us"><img alt="Envelope"> Contact</a>
            <area href="/map" title="Map"><a href="/n">No title</a>"#,
        );
        let texts: Vec<(&str, &str)> = doc.links.iter().map(|l| (l.href, l.text)).collect();
        assert_eq!(
            texts,
            [
                ("/c", "Contact Write to us Envelope"),
                ("/map", "Map"),
                ("/n", "No title")
            ]
        );
    }

    #[test]
    fn a_link_left_open_when_the_budget_is_spent_keeps_its_title_and_alt_texts() {
        let page = format!(
            r#"<a href="/c" title="Write to us"><img alt="Envelope">{}</a>"#,
            "word ".repeat(2_000)
        );
        let budget = PageBudget::for_page(0);
        // Room for the elements, not for the link's text.
        assert!(budget.work(budget.work_left() - 8 * ELEMENT_UNITS));
        let doc = parse_reusing(&page, &mut ParseBuffers::default(), &budget);
        assert!(budget.spent());
        assert_eq!(doc.links.len(), 1);
        assert_eq!(doc.links.get(0).unwrap().href, "/c");
        assert_eq!(doc.links.get(0).unwrap().text, "Write to us Envelope");
    }

    #[test]
    fn footer_ranges_cover_footer_text() {
        let doc = parse("<p>body</p><div id='footer'><p>Website by Agency</p></div>");
        assert_eq!(doc.footer_ranges.len(), 1);
        assert!(doc.text[doc.footer_ranges[0].clone()].contains("Website by Agency"));
    }

    #[test]
    fn blocks_start_at_block_elements_not_at_line_breaks() {
        let doc = parse(
            "<h2>Host</h2><p>Name<br>Street 1<br>Town</p><ul><li>a <b>b</b></li><li>c</li></ul>\
             <h4>Sub</h4>",
        );
        let blocks: Vec<&str> = doc
            .block_starts
            .iter()
            .zip(doc.block_starts.iter().skip(1).chain([&doc.text.len()]))
            .map(|(start, end)| doc.text[*start..*end].trim_end())
            .filter(|block| !block.is_empty())
            .collect();
        assert_eq!(blocks, ["Host", "Name\nStreet 1\nTown", "a b", "c", "Sub"]);
        assert_eq!(doc.heading_levels, [2, 4]);
        assert_eq!(doc.heading_levels.len(), doc.heading_ranges.len());
    }
}
