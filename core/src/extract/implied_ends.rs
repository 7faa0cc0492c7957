//! The end tags HTML5 implies, found for the element tree (part of the prescan).
//!
//! `tl`, which builds the tree from the prescan's copy (`markup.rs`), nests elements as they are written and
//! ignores an end tag that does not match the innermost open element, so on its own
//! `<div><p>text</div><p>more` would keep the `<div>` open around everything after it, and a
//! hidden or skipped element's extent, a link's text or a footer range would grow to the end
//! of the page. HTML5's tree builder (§13.2.6.4.7, "in body") closes elements instead: a block
//! start tag closes an open `<p>`, `<li>` closes the previous `<li>`, `<td>`/`<tr>` close the
//! previous cell or row, and an end tag closes the elements opened inside it.
//! [`OpenElements`] keeps the stack of open elements the way HTML5 does for these rules and
//! says which end tags are implied where; written into the copy, `tl` builds the same nesting. Left
//! out: the adoption agency for misnested formatting elements, foster parenting in tables,
//! and the head/body insertion modes.

/// Elements that never have children (§13.1.2).
pub(super) fn is_void(name: &[u8]) -> bool {
    matches!(
        name,
        b"area"
            | b"base"
            | b"br"
            | b"col"
            | b"embed"
            | b"hr"
            | b"img"
            | b"input"
            | b"link"
            | b"meta"
            | b"param"
            | b"source"
            | b"track"
            | b"wbr"
            | b"keygen"
    )
}

/// Start tags that stay in an open `<head>` (§13.2.6.4.4, "in head"; `html` and a second
/// `head` are ignored there).
fn is_head_content(name: &[u8]) -> bool {
    matches!(
        name,
        b"base"
            | b"basefont"
            | b"bgsound"
            | b"link"
            | b"meta"
            | b"title"
            | b"noscript"
            | b"noframes"
            | b"style"
            | b"script"
            | b"template"
            | b"html"
            | b"head"
    )
}

/// Start tags that close an open `<p>` (§13.2.6.4.7).
fn closes_p(name: &[u8]) -> bool {
    matches!(
        name,
        b"address"
            | b"article"
            | b"aside"
            | b"blockquote"
            | b"center"
            | b"details"
            | b"dialog"
            | b"dir"
            | b"div"
            | b"dl"
            | b"fieldset"
            | b"figcaption"
            | b"figure"
            | b"footer"
            | b"header"
            | b"hgroup"
            | b"main"
            | b"menu"
            | b"nav"
            | b"ol"
            | b"p"
            | b"search"
            | b"section"
            | b"summary"
            | b"ul"
            | b"pre"
            | b"listing"
            | b"form"
            | b"table"
            | b"hr"
            | b"xmp"
            | b"li"
            | b"dd"
            | b"dt"
            | b"plaintext"
    )
}

/// The "special" category (§13.2.4.2), shortened to what pages use: an end tag of another
/// element does not close through one of these.
fn is_special_listed(name: &[u8]) -> bool {
    matches!(
        name,
        b"address"
            | b"applet"
            | b"area"
            | b"article"
            | b"aside"
            | b"base"
            | b"blockquote"
            | b"body"
            | b"br"
            | b"button"
            | b"caption"
            | b"center"
            | b"col"
            | b"colgroup"
            | b"dd"
            | b"details"
            | b"dir"
            | b"div"
            | b"dl"
            | b"dt"
            | b"embed"
            | b"fieldset"
            | b"figcaption"
            | b"figure"
            | b"footer"
            | b"form"
            | b"frameset"
            | b"head"
            | b"header"
            | b"hgroup"
            | b"hr"
            | b"html"
            | b"iframe"
            | b"img"
            | b"input"
            | b"li"
            | b"link"
            | b"listing"
            | b"main"
            | b"marquee"
            | b"menu"
            | b"meta"
            | b"nav"
            | b"noembed"
            | b"noframes"
            | b"noscript"
            | b"object"
            | b"ol"
            | b"p"
            | b"plaintext"
            | b"pre"
            | b"script"
            | b"search"
            | b"section"
            | b"select"
            | b"style"
            | b"summary"
            | b"table"
            | b"tbody"
            | b"td"
            | b"template"
            | b"textarea"
            | b"tfoot"
            | b"th"
            | b"thead"
            | b"title"
            | b"tr"
            | b"ul"
            | b"wbr"
            | b"xmp"
            | b"svg"
    )
}

/// `h1`…`h6`: they close an open `<p>` and are special, like the elements of the lists above.
/// `<h1>`–`<h6>`.
pub(super) fn is_heading(name: &[u8]) -> bool {
    matches!(name, b"h1" | b"h2" | b"h3" | b"h4" | b"h5" | b"h6")
}

fn is_special(name: &[u8]) -> bool {
    is_special_listed(name) || is_heading(name)
}

/// Boundaries of "button scope" (§13.2.4.2): a `<p>` outside them is not closed from inside.
fn bounds_button_scope(name: &[u8]) -> bool {
    matches!(
        name,
        b"applet"
            | b"caption"
            | b"html"
            | b"table"
            | b"td"
            | b"th"
            | b"marquee"
            | b"object"
            | b"template"
            | b"button"
            | b"svg"
    )
}

/// Boundaries of "table scope".
fn bounds_table_scope(name: &[u8]) -> bool {
    matches!(name, b"html" | b"table" | b"template")
}

/// Most elements tracked; deeper markup is laid out as written. It bounds each walk down
/// the stack (real pages nest a few dozen deep; 4 096 let a crafted page of 200 000 unclosed
/// `<div><span>` cost 2 s of CPU in these walks).
const MAX_DEPTH: usize = 512;

/// Buckets of [`OpenElements::open_in_bucket`].
const BUCKETS: usize = 256;

/// The bucket of a tag name: its first, second and last byte and its length, mixed by a
/// multiplication (the constant of MurmurHash3's finaliser), top eight bits. A shared bucket
/// only costs a walk down the stack, but the names looked for at every block start tag (`p`,
/// `li`, …) must not share one with elements pages keep open: the earlier mix (first and last
/// byte, length, 64 buckets) put `ul` with `p`, and every block start tag inside a list walked
/// the stack for a `<p>`. This mix keeps the names looked for apart from every name met over
/// 50 times in `corpus-perf` (a test holds the common ones apart); the first eight bytes as
/// the key did as well but cost more to read than the walks it saved.
fn bucket(name: &[u8]) -> usize {
    let byte = |i: usize| u64::from(name.get(i).copied().unwrap_or(0));
    let last = u64::from(name.last().copied().unwrap_or(0));
    let key = byte(0) | byte(1) << 8 | last << 16 | (name.len() as u64) << 24;
    (key.wrapping_mul(0xC4CE_B9FE_1A85_EC53) >> 56) as usize
}

/// The stack of open elements, as byte ranges of their (lower-case) names in the page.
pub struct OpenElements {
    stack: Vec<(usize, usize)>,
    /// The [`bucket`] of each element of `stack`, kept so that closing one does not look its
    /// name up again.
    buckets: Vec<u8>,
    /// How many open elements have a name in each [`bucket`]: a query for names none of
    /// which is open (the common case: no `<p>` open when a `<div>` starts, no `</li>` to
    /// match) answers without walking the stack.
    open_in_bucket: [u32; BUCKETS],
}

impl Default for OpenElements {
    fn default() -> OpenElements {
        OpenElements {
            stack: Vec::new(),
            buckets: Vec::new(),
            open_in_bucket: [0; BUCKETS],
        }
    }
}

impl OpenElements {
    fn name<'a>(&self, bytes: &'a [u8], index: usize) -> &'a [u8] {
        let (start, end) = self.stack[index];
        &bytes[start..end]
    }

    /// Whether no open element is named like any of `names` (false means: maybe).
    fn none_open(&self, names: &[&[u8]]) -> bool {
        names.iter().all(|n| self.open_in_bucket[bucket(n)] == 0)
    }

    fn push(&mut self, bytes: &[u8], name: (usize, usize)) {
        let b = bucket(&bytes[name.0..name.1]);
        self.open_in_bucket[b] += 1;
        self.stack.push(name);
        // (A bucket is the top eight bits of a product: below 256.)
        self.buckets.push(b as u8);
    }

    /// Pops the elements from `index` up.
    fn truncate(&mut self, index: usize) {
        for &b in self.buckets.get(index..).unwrap_or_default() {
            let b = usize::from(b);
            self.open_in_bucket[b] = self.open_in_bucket[b].saturating_sub(1);
        }
        self.stack.truncate(index);
        self.buckets.truncate(index);
    }

    /// The index of the innermost open element named like one of `targets`, walking down the
    /// stack until an element for which `stops` holds, if any.
    fn innermost(
        &self,
        bytes: &[u8],
        targets: &[&[u8]],
        stops: impl Fn(&[u8]) -> bool,
    ) -> Option<usize> {
        if self.none_open(targets) {
            return None;
        }
        for index in (0..self.stack.len()).rev() {
            let name = self.name(bytes, index);
            if targets.contains(&name) {
                return Some(index);
            }
            if stops(name) {
                return None;
            }
        }
        None
    }

    /// The index of the innermost open `target` before any of `boundaries`, if any.
    fn in_scope(&self, bytes: &[u8], target: &[&[u8]], bounds: fn(&[u8]) -> bool) -> Option<usize> {
        self.innermost(bytes, target, bounds)
    }

    /// Pops the elements from `index` up and appends the byte ranges of their names (the end
    /// tags HTML5 implies), innermost first.
    fn close_from(&mut self, index: usize, out: &mut Vec<(usize, usize)>) {
        if index >= self.stack.len() {
            // Nothing to close (an end tag of the innermost element).
            return;
        }
        out.extend(self.stack[index.min(self.stack.len())..].iter().rev());
        self.truncate(index);
    }

    /// A start tag whose name is `bytes[name.0..name.1]`: appends to `out` the names (byte
    /// ranges in `bytes`) of the end tags implied before it, innermost first, and opens it
    /// unless `void` (the name is void: [`is_void`], which the caller has looked up).
    pub fn start(
        &mut self,
        bytes: &[u8],
        name: (usize, usize),
        void: bool,
        out: &mut Vec<(usize, usize)>,
    ) {
        let tag = &bytes[name.0..name.1];
        // A `<head>` left open ends at the first start tag that does not belong in it
        // (§13.2.6.4.4, "in head": anything else pops the head); inside a `<template>` it stays.
        // (The open elements are looked at first: a bucket's count, where the name is
        // compared with many.)
        if !self.none_open(&[b"head"]) && !is_head_content(tag) {
            if let Some(i) = self.innermost(bytes, &[b"head"], |_| false) {
                let only_noscript =
                    (i + 1..self.stack.len()).all(|j| self.name(bytes, j) == b"noscript");
                if only_noscript {
                    self.close_from(i, out);
                }
            }
        }
        match tag {
            b"li" => {
                if let Some(i) = self.item_to_close(bytes, &[b"li"]) {
                    self.close_from(i, out);
                }
            }
            b"dd" | b"dt" => {
                if let Some(i) = self.item_to_close(bytes, &[b"dd", b"dt"]) {
                    self.close_from(i, out);
                }
            }
            b"td" | b"th" => {
                if let Some(i) = self.in_scope(bytes, &[b"td", b"th"], bounds_table_scope) {
                    self.close_from(i, out);
                }
            }
            b"tr" => {
                if let Some(i) = self.in_scope(bytes, &[b"td", b"th", b"tr"], bounds_table_scope) {
                    // The row too, when a cell of it is open.
                    let row = self
                        .in_scope(bytes, &[b"tr"], bounds_table_scope)
                        .unwrap_or(i);
                    self.close_from(row.min(i), out);
                }
            }
            _ => {}
        }
        let heading = is_heading(tag);
        if !self.none_open(&[b"p"]) && (closes_p(tag) || heading) {
            if let Some(i) = self.in_scope(bytes, &[b"p"], bounds_button_scope) {
                self.close_from(i, out);
            }
        }
        if heading {
            let top = self.stack.len().checked_sub(1);
            if let Some(top) = top.filter(|&t| is_heading(self.name(bytes, t))) {
                self.close_from(top, out);
            }
        }
        if !void && self.stack.len() < MAX_DEPTH {
            self.push(bytes, name);
        }
    }

    /// `li` (or `dd`/`dt`) closes the previous item (§13.2.6.4.7): walking down the stack,
    /// an item is closed; a special element other than `address`, `div` and `p` stops.
    fn item_to_close(&self, bytes: &[u8], items: &[&[u8]]) -> Option<usize> {
        self.innermost(bytes, items, |name| {
            is_special(name) && !matches!(name, b"address" | b"div" | b"p")
        })
    }

    /// An end tag named `name`: appends to `out` the names (byte ranges in `bytes`) of the
    /// elements it closes implicitly (those opened inside it), innermost first: their end tags
    /// are implied before it. An end tag with no open
    /// element of its name, or one that would close through a special element (for an
    /// element that is not special itself) or through a `<template>`, changes nothing, as
    /// in HTML5.
    pub fn end(&mut self, bytes: &[u8], name: &[u8], out: &mut Vec<(usize, usize)>) {
        if self.none_open(&[name]) {
            return;
        }
        // Looked up once the walk passes an element: most end tags close the innermost one.
        let mut special = None;
        for index in (0..self.stack.len()).rev() {
            let open = self.name(bytes, index);
            if open == name {
                self.close_from(index + 1, out);
                self.truncate(index);
                return;
            }
            // A `<template>` bounds every scope (§13.2.4.2): an end tag inside one never
            // closes what was opened outside it.
            let special = *special.get_or_insert_with(|| is_special(name));
            if (!special && is_special(open)) || open == b"template" {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{bucket, OpenElements};

    #[test]
    fn the_names_looked_for_share_no_bucket_with_common_open_elements() {
        // Looked for at start tags (`OpenElements::start`): each in its own bucket, and none
        // in the bucket of an element pages often keep open around many start tags.
        let looked_for: [&[u8]; 8] = [b"p", b"li", b"dd", b"dt", b"td", b"th", b"tr", b"head"];
        let common: [&[u8]; 30] = [
            b"html",
            b"body",
            b"div",
            b"span",
            b"a",
            b"ul",
            b"ol",
            b"nav",
            b"section",
            b"header",
            b"footer",
            b"main",
            b"article",
            b"form",
            b"table",
            b"tbody",
            b"button",
            b"strong",
            b"b",
            b"i",
            b"em",
            b"label",
            b"h1",
            b"h2",
            b"h3",
            b"h4",
            b"figure",
            b"picture",
            b"template",
            b"small",
        ];
        for (i, name) in looked_for.iter().enumerate() {
            for other in &looked_for[i + 1..] {
                assert_ne!(bucket(name), bucket(other), "{name:?} {other:?}");
            }
            for other in common {
                assert_ne!(bucket(name), bucket(other), "{name:?} {other:?}");
            }
        }
    }

    /// Runs `tags` (`"div"` opens, `"/div"` closes) and returns the insertions per tag.
    fn run(tags: &[&str]) -> Vec<String> {
        let text: String = tags.join(" ");
        let bytes = text.as_bytes();
        let mut open = OpenElements::default();
        let mut at = 0;
        let mut out = Vec::new();
        for tag in tags {
            let mut inserted = Vec::new();
            match tag.strip_prefix('/') {
                Some(name) => open.end(bytes, name.as_bytes(), &mut inserted),
                None => {
                    let void = super::is_void(tag.as_bytes());
                    open.start(bytes, (at, at + tag.len()), void, &mut inserted)
                }
            }
            let ends: String = inserted
                .iter()
                .map(|&(start, end)| format!("</{}>", &text[start..end]))
                .collect();
            out.push(ends);
            at += tag.len() + 1;
        }
        out
    }

    #[test]
    fn a_block_closes_an_open_paragraph_and_an_end_tag_what_was_opened_inside() {
        assert_eq!(
            run(&["div", "p", "span", "div", "/div", "/div"]),
            ["", "", "", "</span></p>", "", ""]
        );
        assert_eq!(run(&["div", "p", "b", "/div"]), ["", "", "", "</b></p>"]);
    }

    #[test]
    fn items_rows_and_cells_close_their_predecessors() {
        assert_eq!(run(&["ul", "li", "li", "/ul"]), ["", "", "</li>", "</li>"]);
        assert_eq!(
            run(&["table", "tr", "td", "td", "tr", "td", "/table"]),
            ["", "", "", "</td>", "</td></tr>", "", "</td></tr>"]
        );
        // A list inside an item does not close the outer item.
        assert_eq!(
            run(&["ul", "li", "ul", "li", "/ul", "li"]),
            ["", "", "", "", "</li>", "</li>"]
        );
    }

    #[test]
    fn stray_end_tags_change_nothing() {
        assert_eq!(run(&["div", "/span", "/div"]), ["", "", ""]);
        // An inline end tag does not close through a block.
        assert_eq!(run(&["span", "div", "/span", "/div"]), ["", "", "", ""]);
        // Void elements are never open.
        assert_eq!(run(&["p", "br", "img", "/p"]), ["", "", "", ""]);
        // An end tag inside a template does not close what was opened outside it.
        assert_eq!(
            run(&["ul", "template", "/ul", "/template", "/ul"]),
            ["", "", "", "", ""]
        );
        assert_eq!(
            run(&["div", "template", "li", "/template"]),
            ["", "", "", "</li>"]
        );
    }
}
