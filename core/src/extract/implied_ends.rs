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

use std::ops::Range;

/// What the prescan, [`OpenElements`], the copy's writer (`markup::TreeWriter::start`) and
/// the walker's pass-through test (`html.rs`) need to know of a start tag's name: its
/// [`name_key`] and one bit for each list of names it is in, looked up once per tag
/// ([`StartName::at`]) rather than compared with each list where it is needed. (Here, below
/// them all.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartName {
    /// [`name_key`] of the name.
    key: u64,
    /// The lists it is in: bits [`StartName::BLOCK`]…
    flags: u32,
}

impl StartName {
    /// A block element (`markup::is_block`).
    pub const BLOCK: u32 = 1;
    /// A void element (`is_void`).
    pub const VOID: u32 = 1 << 1;
    /// `<br>`.
    pub const BR: u32 = 1 << 2;
    /// An element whose subtree the walker skips (`markup::walker_skips`).
    pub const WALKER_SKIPS: u32 = 1 << 3;
    /// An element the walker reads whatever its attributes (`html.rs`, `read_by_name`).
    pub const READ_BY_NAME: u32 = 1 << 4;
    /// A raw-text element, whose contents are not markup (`prescan.rs`, `is_raw_text`).
    pub const RAW_TEXT: u32 = 1 << 5;
    /// An element whose contents the prescan blanks (`prescan.rs`, `is_skipped`).
    pub const SKIPPED: u32 = 1 << 6;
    /// A start tag that stays in an open `<head>` (`implied_ends.rs`, `is_head_content`).
    pub const HEAD_CONTENT: u32 = 1 << 7;
    /// A start tag that closes an open `<p>` (`implied_ends.rs`, `closes_p`), headings not
    /// included.
    pub const CLOSES_P: u32 = 1 << 8;
    /// `<h1>`…`<h6>` ([`is_heading`]).
    pub const HEADING: u32 = 1 << 9;
    /// `<li>`.
    pub const LI: u32 = 1 << 10;
    /// `<dd>`, `<dt>`.
    pub const DD_DT: u32 = 1 << 11;
    /// `<td>`, `<th>`.
    pub const TD_TH: u32 = 1 << 12;
    /// `<tr>`.
    pub const TR: u32 = 1 << 13;
    /// `<script>`.
    pub const SCRIPT: u32 = 1 << 14;
    /// `<title>`.
    pub const TITLE: u32 = 1 << 15;
    /// `<template>`.
    pub const TEMPLATE: u32 = 1 << 16;
    /// `<link>`.
    pub const LINK: u32 = 1 << 17;
    /// `<meta>`.
    pub const META: u32 = 1 << 18;
    /// `<iframe>`.
    pub const IFRAME: u32 = 1 << 19;

    /// The name written in `names` at `range` (lower-case, as the prescan writes names): its
    /// key read at once ([`name_key_at`]), its lists looked up once ([`name_list_flags`]).
    #[cfg(test)]
    pub fn at(names: &[u8], range: Range<usize>) -> StartName {
        let len = range.end.saturating_sub(range.start);
        let key = name_key_at(names, range.clone());
        StartName {
            key,
            flags: name_list_flags(key, len, || names.get(range).unwrap_or_default()),
        }
    }

    /// The name read from the page `bytes` at `range` and written lower-cased into `names`
    /// at the same positions (the prescan's [`read_name`](crate::extract::prescan)), its key
    /// taken from the page ([`lowered_name_key_at`]): read back from `names` right after its
    /// bytes were stored one at a time, the eight-byte load waited for those stores (no store
    /// forwarding from several narrow stores to one wide load; 9 % of the prescan's time).
    #[inline]
    pub fn read_at(bytes: &[u8], names: &[u8], range: Range<usize>) -> StartName {
        let len = range.end.saturating_sub(range.start);
        let key = lowered_name_key_at(bytes, range.clone());
        StartName {
            key,
            flags: name_list_flags(key, len, || names.get(range).unwrap_or_default()),
        }
    }

    /// The facts of the name `name` (lower-case).
    #[cfg(test)]
    pub fn of(name: &[u8]) -> StartName {
        StartName::at(name, 0..name.len())
    }

    /// The name's [`name_key`].
    #[inline]
    pub fn key(self) -> u64 {
        self.key
    }

    /// Whether the name is in the list of `flag` (one of [`StartName::BLOCK`]…).
    #[inline]
    pub fn is(self, flag: u32) -> bool {
        self.flags & flag != 0
    }

    /// A block element (`markup::is_block`).
    #[inline]
    pub fn block(self) -> bool {
        self.is(StartName::BLOCK)
    }

    /// A void element (`is_void`).
    #[inline]
    pub fn void(self) -> bool {
        self.is(StartName::VOID)
    }

    /// Whether the walker (`html.rs`) breaks the line of text when it enters such an
    /// element, whatever its attributes and state: a block element or `<br>`.
    #[inline]
    pub fn breaks_line(self) -> bool {
        self.is(StartName::BR | StartName::BLOCK)
    }
}

/// The multiplier of [`name_list_flags`]'s hash: the first odd number a search from a fixed
/// seed found that puts each name of [`LISTED_NAMES`] in a slot of its own among
/// `1 << NAME_SLOT_BITS` (the table is built at compile time, which fails on a shared slot).
const NAME_HASH: u64 = 0x6450_d5b2_ace2_114f;

/// Bits of a slot of [`NAME_SLOTS`]: 512 slots, where no multiplier was found for 256.
const NAME_SLOT_BITS: u32 = 9;

/// Every name of at most eight bytes in one of [`StartName`]'s lists, with its bits (a test
/// holds them to the lists). `blockquote`, `figcaption` and `plaintext`, the longer names
/// listed, are compared whole ([`name_list_flags`]).
const LISTED_NAMES: [(&[u8], u32); 81] = {
    const BLOCK_P: u32 = StartName::BLOCK | StartName::CLOSES_P;
    const VOID: u32 = StartName::VOID;
    const SKIPS: u32 = StartName::WALKER_SKIPS | StartName::READ_BY_NAME;
    const HEAD: u32 = StartName::HEAD_CONTENT;
    const READ: u32 = StartName::READ_BY_NAME;
    const HEADING: u32 = StartName::BLOCK | StartName::HEADING | READ;
    [
        (b"a", READ),
        (b"address", BLOCK_P | READ),
        (b"area", VOID | READ),
        (b"article", BLOCK_P),
        (b"aside", BLOCK_P),
        (b"base", VOID | HEAD | READ),
        (b"basefont", HEAD),
        (b"bgsound", HEAD),
        (b"body", StartName::BLOCK),
        (b"br", VOID | StartName::BR | READ),
        (b"caption", StartName::BLOCK),
        (b"center", BLOCK_P),
        (b"col", VOID),
        (b"datalist", SKIPS | StartName::SKIPPED),
        (b"dd", BLOCK_P | StartName::DD_DT),
        (b"details", BLOCK_P),
        (b"dialog", BLOCK_P),
        (b"dir", StartName::CLOSES_P),
        (b"div", BLOCK_P),
        (b"dl", BLOCK_P),
        (b"dt", BLOCK_P | StartName::DD_DT),
        (b"embed", VOID),
        (b"fieldset", BLOCK_P),
        (b"figure", BLOCK_P),
        (b"footer", BLOCK_P | READ),
        (b"form", BLOCK_P),
        (b"h1", HEADING),
        (b"h2", HEADING),
        (b"h3", HEADING),
        (b"h4", HEADING),
        (b"h5", HEADING),
        (b"h6", HEADING),
        (b"head", HEAD | READ),
        (b"header", BLOCK_P),
        (b"hgroup", StartName::CLOSES_P),
        (b"hr", BLOCK_P | VOID),
        (b"html", StartName::BLOCK | HEAD | READ),
        (b"iframe", SKIPS | StartName::SKIPPED | StartName::IFRAME),
        (b"img", VOID | READ),
        (b"input", VOID),
        (b"keygen", VOID),
        (b"legend", StartName::BLOCK),
        (b"li", BLOCK_P | StartName::LI),
        (b"link", VOID | HEAD | READ | StartName::LINK),
        (b"listing", StartName::CLOSES_P),
        (b"main", BLOCK_P),
        (b"menu", StartName::CLOSES_P),
        (b"meta", VOID | HEAD | READ | StartName::META),
        (b"nav", BLOCK_P),
        (b"noembed", StartName::RAW_TEXT),
        (b"noframes", StartName::RAW_TEXT | HEAD),
        (b"noscript", SKIPS | StartName::SKIPPED | HEAD),
        (b"object", SKIPS | StartName::SKIPPED),
        (b"ol", BLOCK_P),
        (b"p", BLOCK_P),
        (b"param", VOID),
        (b"pre", BLOCK_P),
        (
            b"script",
            SKIPS | StartName::RAW_TEXT | HEAD | StartName::SCRIPT,
        ),
        (b"search", StartName::CLOSES_P),
        (b"section", BLOCK_P),
        (b"select", SKIPS | StartName::SKIPPED),
        (b"source", VOID),
        (b"style", SKIPS | StartName::RAW_TEXT | HEAD),
        (b"summary", BLOCK_P),
        (b"svg", SKIPS | StartName::SKIPPED),
        (b"table", BLOCK_P),
        (b"tbody", StartName::BLOCK),
        (b"td", StartName::BLOCK | StartName::TD_TH),
        (b"template", HEAD | READ | StartName::TEMPLATE),
        (b"textarea", SKIPS | StartName::RAW_TEXT),
        (b"tfoot", StartName::BLOCK),
        (b"th", StartName::BLOCK | StartName::TD_TH),
        (b"thead", StartName::BLOCK),
        (b"title", HEAD | READ | StartName::TITLE),
        (b"tr", StartName::BLOCK | StartName::TR),
        (b"track", VOID),
        (b"ul", BLOCK_P),
        (b"wbr", VOID),
        (b"xmp", StartName::RAW_TEXT | StartName::CLOSES_P),
        // Listed for their bits above: none (special elements, `implied_ends.rs`, looked up
        // on the stack by name), kept so that the hash is checked to hold them apart.
        (b"applet", 0),
        (b"button", 0),
    ]
};

/// The slot of key `key` among `1 << NAME_SLOT_BITS`.
const fn name_slot(key: u64) -> usize {
    (key.wrapping_mul(NAME_HASH) >> (64 - NAME_SLOT_BITS)) as usize
}

/// For each slot, the index in [`NAME_ENTRIES`] of the listed name in it (0: none).
static NAME_SLOTS: [u8; 1 << NAME_SLOT_BITS] = {
    let mut slots = [0u8; 1 << NAME_SLOT_BITS];
    let mut i = 0;
    while i < LISTED_NAMES.len() {
        let slot = name_slot(const_name_key(LISTED_NAMES[i].0));
        assert!(
            slots[slot] == 0,
            "two listed names share a slot: change NAME_HASH"
        );
        slots[slot] = (i + 1) as u8;
        i += 1;
    }
    slots
};

/// [`LISTED_NAMES`] as (key, bits), after an entry with key 0 and no bits (which no
/// name's key is: names are not empty and hold no zero byte).
static NAME_ENTRIES: [(u64, u32); LISTED_NAMES.len() + 1] = {
    let mut entries = [(0u64, 0u32); LISTED_NAMES.len() + 1];
    let mut i = 0;
    while i < LISTED_NAMES.len() {
        entries[i + 1] = (const_name_key(LISTED_NAMES[i].0), LISTED_NAMES[i].1);
        i += 1;
    }
    entries
};

/// [`name_key`] at compile time.
const fn const_name_key(name: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < name.len() && i < 8 {
        key |= (name[i] as u64) << (8 * i);
        i += 1;
    }
    key
}

/// The [`StartName`] bits of a name of `len` bytes whose [`name_key`] is `key` (`name`
/// gives the whole name, looked at only when it is longer than eight bytes): a perfect hash
/// of the key to one slot, whose one listed name it is or is not.
#[inline]
fn name_list_flags<'n>(key: u64, len: usize, name: impl FnOnce() -> &'n [u8]) -> u32 {
    if len > 8 {
        return match name() {
            b"blockquote" | b"figcaption" => StartName::BLOCK | StartName::CLOSES_P,
            b"plaintext" => StartName::RAW_TEXT | StartName::CLOSES_P,
            _ => 0,
        };
    }
    let index = NAME_SLOTS[name_slot(key)];
    let (listed, flags) = NAME_ENTRIES[usize::from(index)];
    if listed == key {
        flags
    } else {
        0
    }
}

/// A name's first eight bytes as a number (zero bytes after a shorter name, which names never
/// hold): equal keys are equal names for names of at most eight bytes.
pub(crate) fn name_key(name: &[u8]) -> u64 {
    name.iter()
        .take(8)
        .enumerate()
        .fold(0, |key, (i, &b)| key | u64::from(b) << (8 * i))
}

/// [`name_key`] of the name written in `names` at `range`: its first eight bytes read as one
/// number where `names` holds eight bytes from its start, the bytes after the name masked off
/// (a look-up per tag, where [`name_key`] reads a byte at a time).
#[cfg(test)]
pub(crate) fn name_key_at(names: &[u8], range: Range<usize>) -> u64 {
    let len = range.end.saturating_sub(range.start);
    match names.get(range.start..range.start.saturating_add(8)) {
        Some(&[b0, b1, b2, b3, b4, b5, b6, b7]) => {
            let word = u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]);
            if len >= 8 {
                word
            } else {
                word & ((1u64 << (8 * len)) - 1)
            }
        }
        _ => name_key(names.get(range).unwrap_or_default()),
    }
}

/// [`name_key`] of the tag name at `range` of the page `bytes` lower-cased (ASCII letters),
/// as the prescan writes it into its names: the page's eight bytes from the name's start read
/// as one number where the page holds them, the bytes after the name masked off and the
/// capitals among the rest lower-cased together. `range` holds only name bytes
/// ([`is_name_byte`](crate::extract::ascii), all ASCII), so no byte carries into the next.
#[inline]
pub(crate) fn lowered_name_key_at(bytes: &[u8], range: Range<usize>) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let len = range.end.saturating_sub(range.start);
    match bytes.get(range.start..range.start.saturating_add(8)) {
        Some(&[b0, b1, b2, b3, b4, b5, b6, b7]) => {
            let word = u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]);
            let word = if len >= 8 {
                word
            } else {
                word & ((1u64 << (8 * len)) - 1)
            };
            // A byte's top bit set in `from_a` where it is at least `A`, in `past_z` where it
            // is past `Z` (bytes below 0x80 plus at most 0x3f stay below 0x100).
            let from_a = word.wrapping_add(ONES * (0x80 - u64::from(b'A')));
            let past_z = word.wrapping_add(ONES * (0x80 - u64::from(b'Z') - 1));
            let capitals = from_a & !past_z & (ONES * 0x80);
            word | (capitals >> 2)
        }
        _ => name_key(&bytes.get(range).unwrap_or_default().to_ascii_lowercase()),
    }
}

/// Elements that never have children (§13.1.2): the list [`StartName::VOID`] is held to.
#[cfg(test)]
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
/// `head` are ignored there): the list [`StartName::HEAD_CONTENT`] is held to.
#[cfg(test)]
pub(super) fn is_head_content(name: &[u8]) -> bool {
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

/// Start tags that close an open `<p>` (§13.2.6.4.7): the list [`StartName::CLOSES_P`] is
/// held to.
#[cfg(test)]
pub(super) fn closes_p(name: &[u8]) -> bool {
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

/// The bucket of a tag name ([`bucket_of_key`] of its [`name_key`]; for the names the rules
/// look for, written in the code, the compiler works it out).
fn bucket(name: &[u8]) -> usize {
    bucket_of_key(name_key(name))
}

/// The bucket of a tag name whose [`name_key`] is `key`: the key multiplied by a constant,
/// top eight bits. A shared bucket only costs a walk down the stack, but the names looked for
/// at every block start tag (`p`, `li`, …) must not share one with elements pages keep open:
/// an earlier mix (first and last byte, length, 64 buckets) put `ul` with `p`, and every block
/// start tag inside a list walked the stack for a `<p>`. The constant, found by a search, keeps
/// the names looked for apart from each other and from every name met over 50 times in
/// `corpus-perf` (a test holds the common ones apart). The key is read once per tag for the
/// name's lists ([`StartName::at`]), so the bucket costs a multiplication; mixing the first,
/// second and last byte and the length cost more.
fn bucket_of_key(key: u64) -> usize {
    (key.wrapping_mul(0x6b0d_549b_6f03_675b) >> 56) as usize
}

/// The stack of open elements, as byte ranges of their (lower-case) names in the page.
pub struct OpenElements {
    stack: Vec<(usize, usize)>,
    /// The [`name_key`] of each element of `stack`: an end tag's name is compared with the
    /// key of each open element it passes (the name itself only beyond eight bytes).
    keys: Vec<u64>,
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
            keys: Vec::new(),
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

    fn push(&mut self, name: (usize, usize), key: u64) {
        let b = bucket_of_key(key);
        self.open_in_bucket[b] += 1;
        self.stack.push(name);
        self.keys.push(key);
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
        self.keys.truncate(index);
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
    /// unless it is void (`is_void`): `start_name` tells, as the caller has looked it up.
    pub fn start(
        &mut self,
        bytes: &[u8],
        name: (usize, usize),
        start_name: StartName,
        out: &mut Vec<(usize, usize)>,
    ) {
        // A `<head>` left open ends at the first start tag that does not belong in it
        // (§13.2.6.4.4, "in head": anything else pops the head); inside a `<template>` it stays.
        // (The open elements are looked at first: a bucket's count, where the name is
        // compared with many.)
        if !self.none_open(&[b"head"]) && !start_name.is(StartName::HEAD_CONTENT) {
            if let Some(i) = self.innermost(bytes, &[b"head"], |_| false) {
                let only_noscript =
                    (i + 1..self.stack.len()).all(|j| self.name(bytes, j) == b"noscript");
                if only_noscript {
                    self.close_from(i, out);
                }
            }
        }
        if start_name.is(StartName::LI) {
            if let Some(i) = self.item_to_close(bytes, &[b"li"]) {
                self.close_from(i, out);
            }
        } else if start_name.is(StartName::DD_DT) {
            if let Some(i) = self.item_to_close(bytes, &[b"dd", b"dt"]) {
                self.close_from(i, out);
            }
        } else if start_name.is(StartName::TD_TH) {
            if let Some(i) = self.in_scope(bytes, &[b"td", b"th"], bounds_table_scope) {
                self.close_from(i, out);
            }
        } else if start_name.is(StartName::TR) {
            if let Some(i) = self.in_scope(bytes, &[b"td", b"th", b"tr"], bounds_table_scope) {
                // The row too, when a cell of it is open.
                let row = self
                    .in_scope(bytes, &[b"tr"], bounds_table_scope)
                    .unwrap_or(i);
                self.close_from(row.min(i), out);
            }
        }
        let heading = start_name.is(StartName::HEADING);
        if !self.none_open(&[b"p"]) && start_name.is(StartName::CLOSES_P | StartName::HEADING) {
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
        if !start_name.void() && self.stack.len() < MAX_DEPTH {
            self.push(name, start_name.key());
        }
    }

    /// [`OpenElements::start`] as first written, the name compared with each list where it is
    /// needed: the reference the start by [`StartName`] bits is held to. A start tag whose name
    /// is `bytes[name.0..name.1]`: appends to `out` the names (byte
    /// ranges in `bytes`) of the end tags implied before it, innermost first, and opens it
    /// unless `void` (the name is void: `is_void`, which the caller has looked up).
    #[cfg(test)]
    fn start_by_name(
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
            self.push(name, name_key(tag));
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
    /// `key` is the name's [`name_key`].
    pub fn end(&mut self, bytes: &[u8], name: &[u8], key: u64, out: &mut Vec<(usize, usize)>) {
        if self.open_in_bucket[bucket_of_key(key)] == 0 {
            return;
        }
        // Looked up once the walk passes an element: most end tags close the innermost one.
        let mut special = None;
        for index in (0..self.stack.len()).rev() {
            let open = self.name(bytes, index);
            // Equal keys are equal names up to eight bytes.
            if self.keys.get(index) == Some(&key) && (name.len() <= 8 || open == name) {
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

    /// [`OpenElements::end`] as first written, each open element's name compared whole: the
    /// reference the comparison by keys is held to. An end tag named `name`: appends to `out`
    /// the names (byte ranges in `bytes`) of the elements it closes implicitly (those opened
    /// inside it), innermost first: their end tags are implied before it. An end tag with no
    /// open element of its name, or one that would close through a special element (for an
    /// element that is not special itself) or through a `<template>`, changes nothing, as in
    /// HTML5.
    #[cfg(test)]
    fn end_by_name(&mut self, bytes: &[u8], name: &[u8], out: &mut Vec<(usize, usize)>) {
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
    use super::StartName;
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
                Some(name) => {
                    let key = super::name_key(name.as_bytes());
                    open.end(bytes, name.as_bytes(), key, &mut inserted)
                }
                None => {
                    let start_name = StartName::of(tag.as_bytes());
                    open.start(bytes, (at, at + tag.len()), start_name, &mut inserted)
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

    /// Tags the start by [`StartName`] bits and the end by keys are held to their references
    /// on: every name a rule looks for, and others.
    const TAGS: [&str; 44] = [
        "head",
        "meta",
        "link",
        "title",
        "noscript",
        "script",
        "style",
        "template",
        "html",
        "body",
        "div",
        "p",
        "span",
        "li",
        "ul",
        "dd",
        "dt",
        "dl",
        "td",
        "th",
        "tr",
        "table",
        "h1",
        "h3",
        "h6",
        "br",
        "img",
        "section",
        "xmp",
        "dir",
        "button",
        "a",
        "b",
        "menu",
        "basefont",
        "input",
        "hr",
        "address",
        "search",
        "x-y",
        // Longer than eight bytes, three with the same first eight.
        "blockquote",
        "custom-element",
        "custom-elements",
        "custom-elemenx",
    ];

    proptest::proptest! {
        /// [`OpenElements::start`] and [`OpenElements::end`] imply the end tags their
        /// references, which compare names with each list and with each open element's
        /// name, imply, on sequences of start and end tags.
        #[test]
        fn starts_by_bits_and_ends_by_keys_imply_what_their_references_do(
            tags in proptest::collection::vec(
                (proptest::sample::select(&TAGS[..]), proptest::bool::weighted(0.3)),
                0..60,
            ),
        ) {
            let text: String = tags.iter().map(|(tag, _)| format!("{tag} ")).collect();
            let bytes = text.as_bytes();
            let (mut by_bits, mut by_name) = (OpenElements::default(), OpenElements::default());
            let mut at = 0;
            for (tag, end) in &tags {
                let name = (at, at + tag.len());
                let (mut bits_out, mut name_out) = (Vec::new(), Vec::new());
                if *end {
                    // The key as the prescan reads it, with the bytes after the name.
                    let key = super::name_key_at(bytes, name.0..name.1);
                    by_bits.end(bytes, tag.as_bytes(), key, &mut bits_out);
                    by_name.end_by_name(bytes, tag.as_bytes(), &mut name_out);
                } else {
                    by_bits.start(bytes, name, StartName::of(tag.as_bytes()), &mut bits_out);
                    let void = super::is_void(tag.as_bytes());
                    by_name.start_by_name(bytes, name, void, &mut name_out);
                }
                proptest::prop_assert_eq!(&bits_out, &name_out, "{:?}", text);
                proptest::prop_assert_eq!(&by_bits.stack, &by_name.stack, "{:?}", text);
                at += tag.len() + 1;
            }
        }
    }
}

/// [`StartName`]'s bits held to the lists they replace, on the listed names, names near them
/// and generated ones.
#[cfg(test)]
mod start_name_tests {
    use super::{closes_p, is_head_content, is_heading, is_void, StartName, LISTED_NAMES};
    use crate::extract::html::read_by_name;
    use crate::extract::markup::{is_block, walker_skips};
    use crate::extract::prescan::{is_raw_text, is_skipped};

    /// The bits of `name` as the lists give them.
    fn bits_by_lists(name: &[u8]) -> u32 {
        let lists: [(bool, u32); 20] = [
            (is_block(name), StartName::BLOCK),
            (is_void(name), StartName::VOID),
            (name == b"br", StartName::BR),
            (walker_skips(name), StartName::WALKER_SKIPS),
            (read_by_name(name), StartName::READ_BY_NAME),
            (is_raw_text(name), StartName::RAW_TEXT),
            (is_skipped(name), StartName::SKIPPED),
            (is_head_content(name), StartName::HEAD_CONTENT),
            (closes_p(name), StartName::CLOSES_P),
            (is_heading(name), StartName::HEADING),
            (name == b"li", StartName::LI),
            (matches!(name, b"dd" | b"dt"), StartName::DD_DT),
            (matches!(name, b"td" | b"th"), StartName::TD_TH),
            (name == b"tr", StartName::TR),
            (name == b"script", StartName::SCRIPT),
            (name == b"title", StartName::TITLE),
            (name == b"template", StartName::TEMPLATE),
            (name == b"link", StartName::LINK),
            (name == b"meta", StartName::META),
            (name == b"iframe", StartName::IFRAME),
        ];
        lists
            .iter()
            .filter(|(listed, _)| *listed)
            .fold(0, |bits, (_, bit)| bits | bit)
    }

    /// `name`'s bits by [`StartName::of`] and by [`StartName::at`] inside a longer buffer
    /// (bytes after it that must not count), both held to the lists.
    fn check(name: &[u8]) {
        let expected = bits_by_lists(name);
        assert_eq!(
            StartName::of(name).flags,
            expected,
            "{:?}",
            String::from_utf8_lossy(name)
        );
        for tail in [&b""[..], b"a", b"iv>", b"abcdefghijk"] {
            let mut names = b"<".to_vec();
            names.extend_from_slice(name);
            names.extend_from_slice(tail);
            let at = StartName::at(&names, 1..1 + name.len());
            assert_eq!(
                at,
                StartName::of(name),
                "{:?}",
                String::from_utf8_lossy(&names)
            );
        }
    }

    /// Names longer than eight bytes in the lists, compared whole.
    const LONG_NAMES: [&[u8]; 3] = [b"blockquote", b"figcaption", b"plaintext"];

    #[test]
    fn listed_names_and_names_near_them_have_the_bits_of_the_lists() {
        let listed = LISTED_NAMES.iter().map(|(name, _)| *name);
        for name in listed
            .chain(LONG_NAMES)
            .chain([&b"br"[..], b"astro-island", b"x"])
        {
            check(name);
            // Near misses: one byte more or less, the last byte changed, upper case.
            check(&name[..name.len() - 1]);
            check(&name[1..]);
            for extra in [b'a', b's', b'1', b'-', b'.'] {
                let mut longer = name.to_vec();
                longer.push(extra);
                check(&longer);
                let mut changed = name.to_vec();
                *changed.last_mut().unwrap() = extra;
                check(&changed);
            }
            check(&name.to_ascii_uppercase());
        }
    }

    proptest::proptest! {
        /// Generated names (ASCII letters, digits and the other bytes of names, mixed case)
        /// have the bits of the lists.
        #[test]
        fn generated_names_have_the_bits_of_the_lists(name in "[a-zA-Z][a-zA-Z0-9:_.-]{0,11}") {
            check(name.as_bytes());
            check(name.to_ascii_lowercase().as_bytes());
        }

        /// So do names built from pieces of the listed names.
        #[test]
        fn names_from_pieces_of_listed_names_have_the_bits_of_the_lists(
            pieces in proptest::collection::vec(
                proptest::sample::select(
                    LISTED_NAMES.iter().map(|(name, _)| *name).chain(LONG_NAMES).collect::<Vec<_>>()
                ),
                1..3,
            ),
            cut in 0usize..12,
        ) {
            let name: Vec<u8> = pieces.concat();
            check(&name[..name.len().min(cut.max(1))]);
            check(&name);
        }
    }
}
