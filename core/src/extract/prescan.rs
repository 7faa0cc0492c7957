//! A byte-level pass over the decoded page that reads its tags as HTML5 tokenizes them and
//! writes the canonical copy `tl` builds the element tree from (`markup.rs`). `tl` nests
//! elements as they are written and ignores an end tag that does not match the innermost open
//! element; without this pass one `"</div>"` inside a script string, an unclosed `<option>` in a
//! `<select>` or a `<div><p>a</div>` would swallow the rest of the page. A single memchr-driven
//! scan:
//! - tag and attribute names are written, ASCII letters lower-cased, into a buffer of names
//!   ([`Prescanned::names`]), which element and attribute names are ranges of;
//! - the contents of raw-text elements (`script`, `style`, `textarea`, `xmp`, `plaintext`,
//!   `noembed`, `noframes`) are not read as markup: once `application/ld+json` blocks and
//!   framework state have been copied out they are one space in the copy (or nothing where
//!   the walker skips the element);
//! - the contents of elements the walker skips (`noscript`, `select`, `datalist`, `iframe`,
//!   `object`, `svg`) are left out of the copy as well (the scan still looks inside them for
//!   JSON-LD): an unclosed child inside them would otherwise swallow the rest of the page;
//! - a `/` right after a tag name is ignored: HTML5 ignores it on a non-void element
//!   (`<div/>` opens a `<div>`), and a tag that ends in `/>` is written childless;
//! - comments are left out whole, delimiters included, where HTML5 ends them (the first `-->`
//!   or `--!>`; `<!-->` and `<!--->` are empty; an unclosed one runs to the end): `tl` 0.7
//!   misreads `<!-- Footer Logo --->` and `<!---->`, and everything after them vanishes;
//! - doctypes and bogus comments (`<!…>`, `<?…>`) are left out to their `>`;
//! - an end tag with anything after its name (`</li >`, `</p class=x>`) is written `</name>`
//!   (`tl` takes all up to `>` as the name);
//! - skipped elements that nest (`<svg>` in `<svg>`) are skipped to their own end tag, not
//!   the first of their name (`skipped_ends.rs`, which finds every end in O(log n));
//! - the end tags HTML5 implies are found (`implied_ends.rs`) and written into the copy, so
//!   `<div><p>a</div>` closes the `<p>` and then the `<div>`.
//!
//! The page itself is only read. A pass that rewrites a copy of it in place (names
//! lower-cased, comments blanked), a copy as long as the page that only names are read from
//! again, costs 2.5 % of a run's instructions (the tests hold the pass to that reading,
//! `reference`). Now only the names are written, each at its own position in a buffer kept
//! from page to page, so element and attribute names are still ranges of the page. Attribute values are recorded as ranges of the page (read as HTML5
//! reads valueless and unquoted ones), and so is a `<` that starts no tag (`18 <3`: text,
//! written `&lt;` into the copy).

use crate::extract::ascii::{find_byte, find_pair, is_name_byte};
use crate::extract::implied_ends::{lowered_name_key_at, OpenElements};
use crate::extract::markup::{
    AttributeSpan, PassesThrough, Span, StartName, TreeInput, TreeWriter, MAX_SOURCE_BYTES,
};
use crate::extract::skipped_ends::{first_end_tag, SkippedEnds};
use crate::extract::state;
use crate::pace;

/// The canonical copy of the page, the lower-cased names of its tags and attributes, and what
/// is copied out of its raw-text elements.
pub struct Prescanned {
    /// The names of the tags and their attributes, lower-cased, each at its own position in
    /// the page: [`Prescanned::tree`]'s attribute names are ranges of it
    /// ([`Markup`](crate::extract::markup::Markup)), as their values are ranges of the page.
    /// At least as long as the page; its other bytes are left from earlier pages (the buffer
    /// is kept from page to page, so it is not filled anew for each) and nothing reads them.
    pub names: Vec<u8>,
    /// The copy of the page `tl` parses and the attributes of its start tags (`markup.rs`),
    /// written during the pass.
    pub tree: TreeInput,
    /// The text of every `<script type="application/ld+json">` element, in document order.
    pub json_ld: Vec<String>,
    /// Framework state (`state.rs`): Next.js, Nuxt and SvelteKit scripts, Astro island props.
    pub state: Vec<state::Script>,
    /// The page given (tests read it as the reference rewrote it, [`Prescanned::html`]).
    #[cfg(test)]
    input: String,
}

/// Where the comment starting at `lt` (its `<!--`) ends, delimiters included: where scanning
/// goes on. HTML5 (§13.2.5.43–52): `<!-->` and `<!--->` are empty comments; else the first
/// `-->` or `--!>` ends one; an unclosed comment runs to the end of the page (a browser shows
/// nothing after it). Comments show nothing, so nothing visible is lost when the copy holds
/// none; `tl` 0.7 never sees one, as it misread several (`<!-- Footer Logo --->`, `<!---->`:
/// everything after them vanished).
fn comment_end_at(bytes: &[u8], lt: usize) -> usize {
    let body = lt + 4;
    let rest = bytes.get(body..).unwrap_or_default();
    if rest.starts_with(b">") {
        body + 1
    } else if rest.starts_with(b"->") {
        body + 2
    } else {
        comment_end(rest).map_or(bytes.len(), |(end, len)| body + end + len)
    }
}

/// Where the declaration starting at `lt` (`<!DOCTYPE …>`, `<![CDATA[…]>`, `<!x>`,
/// `<?xml …?>`) ends, its `>` included: where scanning goes on. HTML5 (§13.2.5.6, .41, .42)
/// reads `<!DOCTYPE` to the next `>` and any other `<!…`/`<?…` as a bogus comment to the next
/// `>` (or the end); `tl` 0.7 stopped at the first space, so `PUBLIC "-//W3C//DTD …"` of an
/// XHTML doctype became visible text. Nothing in one is visible, so leaving it out of the copy
/// loses nothing.
fn declaration_end(bytes: &[u8], lt: usize) -> usize {
    memchr::memchr(b'>', bytes.get(lt..).unwrap_or_default()).map_or(bytes.len(), |gt| lt + gt + 1)
}

/// The offset and length of the first `-->` or `--!>` in `rest`. One forward pass over the
/// `--` pairs: searching for each ending to the end of the page cost a page of 150 000 comments
/// seconds (`benches/src/pathological.rs`, "comments").
fn comment_end(rest: &[u8]) -> Option<(usize, usize)> {
    let mut at = 0;
    while let Some(offset) = find_pair(&rest[at..], *b"--") {
        let dash = at + offset;
        match rest.get(dash + 2) {
            Some(b'>') => return Some((dash, 3)),
            Some(b'!') if rest.get(dash + 3) == Some(&b'>') => return Some((dash, 4)),
            _ => at = dash + 1,
        }
    }
    None
}

/// Most start tags read per page; the page is cut before the next one. `tl` holds 168 bytes
/// per node (and more for an element with over two children), so a 2 MiB page of 300 000
/// `<br>` took 317 MB to parse; real pages have far fewer (at most 5 535 on the 460 pages of
/// `shared/corpus` and `corpus-perf`).
pub const MAX_START_TAGS: usize = 50_000;

/// Largest number of JSON-LD blocks kept per page; more is not a real page.
const MAX_JSON_LD_BLOCKS: usize = 64;

/// Runs the pass over `input` (see the module docs). Input longer than
/// [`MAX_SOURCE_BYTES`] (512 MiB; pages are at most 2 MiB) is cut there.
#[cfg(test)]
pub fn prescan(input: &str) -> Prescanned {
    prescan_reusing(
        input,
        Vec::new(),
        TreeInput::default(),
        walker::walker_passes_through,
    )
}

/// The walker's test of the elements it passes through, for tests of the prescan as the
/// walker runs it (`html.rs` stands above this module).
#[cfg(test)]
mod walker {
    pub(crate) use crate::extract::html::walker_passes_through;
}

/// [`prescan`], building the names and the copy for `tl` in `names` and `tree` (`tree`
/// cleared first, `names` lengthened to the page if shorter): vectors kept from an earlier
/// page, so a run over many pages does not grow or fill new ones. The copy leaves out the
/// elements the walker passes through (`passes_through` tells them, [`PassesThrough`]).
pub fn prescan_reusing(
    input: &str,
    names: Vec<u8>,
    tree: TreeInput,
    passes_through: PassesThrough,
) -> Prescanned {
    let input = cut_to(input, MAX_SOURCE_BYTES);
    let writer = TreeWriter::reusing(input, tree).leaving_out(passes_through);
    let (first, conflicted) = prescan_with(input, names, writer);
    if !conflicted {
        return first;
    }
    // The copy came to hold tags the pass did not read while an element it left out was
    // open (`TreeWriter::conflicted`, rare): the page is read again, writing every element.
    let writer = TreeWriter::reusing(input, first.tree);
    prescan_with(input, first.names, writer).0
}

/// [`prescan_reusing`] on `input` (cut already) with `writer`; and whether its copy is not to
/// be used ([`TreeWriter::conflicted`]).
fn prescan_with<'p>(
    input: &'p str,
    mut names: Vec<u8>,
    mut writer: TreeWriter<'p>,
) -> (Prescanned, bool) {
    let bytes = input.as_bytes();
    if names.len() < bytes.len() {
        names.resize(bytes.len(), 0);
    }
    let mut json_ld = Vec::new();
    let mut state: Vec<state::Script> = Vec::new();
    let mut state_bytes = 0usize;
    // The names of the end tags implied before one tag (reused).
    let mut ends: Vec<(usize, usize)> = Vec::new();
    let mut open = OpenElements::default();
    let mut skipped_ends = SkippedEnds::default();
    // Start tags seen, and where the page is cut once there are too many of them. This also
    // bounds the end tags implied: each closes an element a start tag opened, once.
    let mut start_tags = 0usize;
    let mut cut = None;
    // Tags inside a skipped element (left out of the copy) make no node and leave the open
    // elements alone.
    let mut skip_until = 0;
    let mut pos = 0;
    let mut last_lt = 0;
    while let Some(offset) = find_byte(b'<', &bytes[pos..]) {
        let lt = pos + offset;
        // Pacing (`crate::pace`): the bytes since the last tag; a stopped page ends here (its
        // result is thrown away).
        if !pace::work(lt - last_lt + 1) {
            break;
        }
        last_lt = lt;
        let outside_skipped = lt >= skip_until;
        let next = bytes.get(lt + 1).copied();
        ends.clear();
        pos = match next {
            Some(b'!') if bytes[lt..].starts_with(b"<!--") => {
                let end = comment_end_at(bytes, lt);
                writer.blank(lt, end);
                end
            }
            Some(b'!' | b'?') => {
                let end = declaration_end(bytes, lt);
                writer.blank(lt, end);
                end
            }
            Some(b'/') => {
                let name_end = read_name(bytes, lt + 2, &mut names);
                if name_end == lt + 2 {
                    // `</>`, `</ x>`: no tag name, a bogus comment for HTML5 (§13.2.5.7),
                    // which shows nothing up to its `>`.
                    let gt = memchr::memchr(b'>', &bytes[lt..]).map(|gt| lt + gt + 1);
                    if outside_skipped {
                        writer.before_tag(&names, lt, &ends, None, None);
                        match gt {
                            Some(tag_end) => writer.skip(tag_end),
                            None => writer.stop(),
                        }
                    }
                    gt.unwrap_or(bytes.len())
                } else {
                    let (tag_end, complete) = if bytes.get(name_end) == Some(&b'>') {
                        (name_end + 1, true)
                    } else {
                        end_tag_end(bytes, name_end, &mut names)
                    };
                    if outside_skipped {
                        let end_name = &names[lt + 2..name_end];
                        // Read once, for the stack of open elements and for the writer.
                        let key = lowered_name_key_at(bytes, lt + 2..name_end);
                        open.end(&names, end_name, key, &mut ends);
                        let name = complete.then_some(end_name);
                        writer.before_tag(&names, lt, &ends, None, name);
                        if complete {
                            writer.end(&names, end_name, key, tag_end);
                        } else {
                            writer.stop();
                        }
                    }
                    tag_end
                }
            }
            Some(c) if c.is_ascii_alphabetic() => {
                start_tags += 1;
                if start_tags > MAX_START_TAGS {
                    cut = Some(lt);
                    break;
                }
                let name_end = read_name(bytes, lt + 1, &mut names);
                let name_range = lt + 1..name_end;
                // Looked up once, for the stack of open elements, the writer and the tests
                // below.
                let facts = StartName::read_at(bytes, &names, name_range.clone());
                if outside_skipped {
                    open.start(&names, (lt + 1, name_end), facts, &mut ends);
                }
                let first_attribute = writer.attribute_list().len();
                let tag = scan_attributes(bytes, name_end, writer.attribute_list(), &mut names);
                let is_script = facts.is(StartName::SCRIPT);
                let state_room =
                    state_bytes < state::MAX_STATE_BYTES && state.len() < state::MAX_STATE_SCRIPTS;
                // Framework state (`state.rs`) known by the script's attributes, read while
                // they are listed (a tag that makes no element drops them).
                let script_kind = if is_script
                    && state_room
                    && !(tag.json_ld && json_ld.len() < MAX_JSON_LD_BLOCKS)
                {
                    let attributes = &writer.attribute_list()[first_attribute..];
                    state::kind_by_attributes(&names, bytes, attributes)
                } else {
                    None
                };
                if outside_skipped && tag.complete {
                    let line_break_tag = facts.breaks_line().then_some(first_attribute);
                    writer.before_tag(&names, lt, &ends, line_break_tag, None);
                    writer.start(
                        &names,
                        (name_range.clone(), facts),
                        first_attribute,
                        tag.self_closing,
                        tag.end,
                    );
                } else {
                    writer.discard_attributes(first_attribute);
                    if outside_skipped {
                        writer.before_tag(&names, lt, &ends, None, None);
                        writer.stop();
                    }
                }
                let name = &names[name_range];
                if facts.is(StartName::RAW_TEXT) {
                    let close = first_end_tag(bytes, name, tag.end).unwrap_or(bytes.len());
                    if tag.json_ld && json_ld.len() < MAX_JSON_LD_BLOCKS {
                        json_ld.push(owned_text(input, tag.end, close));
                    } else if is_script && state_room {
                        // Framework state (`state.rs`): known by the script's attributes or its
                        // first bytes; only scripts pay for the look.
                        let content = &bytes[tag.end..close];
                        let kind = script_kind.or_else(|| state::kind_by_content(content));
                        if let Some(kind) = kind {
                            state_bytes += content.len();
                            state.push(state::Script {
                                kind,
                                text: owned_text(input, tag.end, close),
                            });
                        }
                    }
                    // The contents are not read as markup: the scan goes on after them.
                    if outside_skipped && facts.is(StartName::WALKER_SKIPS) {
                        writer.blank_skipped_contents(tag.end, close);
                    } else if outside_skipped {
                        writer.blank(tag.end, close);
                    }
                    close
                } else {
                    if name == b"astro-island" && state_room {
                        let attributes = &writer.attribute_list()[first_attribute..];
                        if let Some(props) = state::astro_props(&names, bytes, attributes) {
                            state_bytes += props.text.len();
                            state.push(props);
                        }
                    }
                    if outside_skipped && facts.is(StartName::SKIPPED) {
                        if let Some(close) = skipped_ends.end_of(bytes, name, lt, tag.end) {
                            skip_until = skip_until.max(close);
                            writer.blank_skipped_contents(tag.end, close);
                        }
                    }
                    tag.end
                }
            }
            // HTML5 (§13.2.5.6): a `<` before anything but a letter, `/`, `!` or `?` is text
            // (`18 <3`).
            _ => {
                writer.bare_less_than();
                lt + 1
            }
        };
        if !outside_skipped && pos > skip_until {
            // Read past the end of the skipped element: the text from there on is copied as
            // written, tags and all.
            writer.unread();
        }
    }
    let conflicted = writer.conflicted();
    let tree = writer.finish(cut.unwrap_or(bytes.len()));
    let prescanned = Prescanned {
        names,
        tree,
        json_ld,
        state,
        #[cfg(test)]
        input: input.to_string(),
    };
    (prescanned, conflicted)
}

#[cfg(test)]
impl Prescanned {
    /// The page as the prescan first rewrote it, in place ([`rewritten_page`]).
    pub fn html(&self) -> String {
        rewritten_page(&self.input)
    }
}

/// `input` as the prescan first rewrote it, in place (`reference`): tag and attribute names
/// lower-cased, comments, declarations and the contents of skipped elements blanked, end tags
/// tidied. Tests that read tags again read them there.
#[cfg(test)]
pub fn rewritten_page(input: &str) -> String {
    String::from_utf8_lossy(&reference::prescan_in_place(input).page).into_owned()
}

/// The text of `input` from `from` to `to`, owned. The prescan's raw-text contents run from
/// just past a `>` to a `<` or the end of the page (ASCII bytes or its ends), so they are
/// slices of the `str` and are copied without a second UTF-8 validation (`from_utf8_lossy`
/// read every byte of a page's JSON-LD and framework state again); bytes not cut at character
/// boundaries, which cannot occur, would be read as `from_utf8_lossy` reads them.
fn owned_text(input: &str, from: usize, to: usize) -> String {
    match input.get(from..to) {
        Some(text) => text.to_owned(),
        None => {
            String::from_utf8_lossy(input.as_bytes().get(from..to).unwrap_or_default()).into_owned()
        }
    }
}

/// The longest prefix of `input` of at most `max` bytes that ends on a character boundary.
fn cut_to(input: &str, max: usize) -> &str {
    let mut end = input.len().min(max);
    // At most three steps back: a UTF-8 character is at most four bytes.
    while !input.is_char_boundary(end) {
        end -= 1;
    }
    &input[..end]
}

/// Raw-text elements, whose contents are not markup: the list [`StartName::RAW_TEXT`] is held
/// to, and the reference prescan's.
#[cfg(test)]
pub(crate) fn is_raw_text(name: &[u8]) -> bool {
    matches!(
        name,
        b"script" | b"style" | b"textarea" | b"xmp" | b"plaintext" | b"noembed" | b"noframes"
    )
}

/// Elements whose subtree the walker skips (`html.rs`). Their contents are blanked too: `tl`
/// ignores a closing tag that does not match the innermost open element, so an unclosed child
/// (`<select><option>A<option>B</select>`, `<noscript><p>…</noscript>`, `<svg><path></svg>`)
/// kept the element open and the rest of the page fell into the skipped subtree. The list
/// [`StartName::SKIPPED`] is held to, and the reference prescan's.
#[cfg(test)]
pub(crate) fn is_skipped(name: &[u8]) -> bool {
    matches!(
        name,
        b"noscript" | b"select" | b"datalist" | b"iframe" | b"object" | b"svg"
    )
}

/// Reads the tag name starting at `start`, writing it lower-cased into `names` at the same
/// positions (`names` is at least as long as `bytes`); returns the index just past it. One
/// table look-up a byte ([`TAG_NAME_LOWER`]).
///
/// Both are cut to the shorter length first, so that one comparison bounds both in the loop
/// (through `get` and `get_mut` each byte cost two bounds checks).
fn read_name(bytes: &[u8], start: usize, names: &mut [u8]) -> usize {
    let len = bytes.len().min(names.len());
    let (bytes, names) = (&bytes[..len], &mut names[..len]);
    let mut i = start;
    while i < len {
        let lower = TAG_NAME_LOWER[usize::from(bytes[i])];
        if lower == 0 {
            break;
        }
        names[i] = lower;
        i += 1;
    }
    i
}

/// [`read_name`] as it was first written, through `get` and `get_mut`: the reference it is
/// held to.
#[cfg(test)]
fn read_name_by_get(bytes: &[u8], start: usize, names: &mut [u8]) -> usize {
    let mut i = start;
    while let (Some(&b), Some(name)) = (bytes.get(i), names.get_mut(i)) {
        let lower = TAG_NAME_LOWER[usize::from(b)];
        if lower == 0 {
            break;
        }
        *name = lower;
        i += 1;
    }
    i
}

/// Each byte of a tag name ([`is_name_byte`]) lower-cased; zero for every other byte (zero is
/// not one).
static TAG_NAME_LOWER: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if is_name_byte(byte) {
            table[b] = byte.to_ascii_lowercase();
        }
        b += 1;
    }
    table
};

/// Each byte lower-cased (ASCII letters; any other byte is itself).
static LOWER: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).to_ascii_lowercase();
        b += 1;
    }
    table
};

/// Where a start tag ends, as [`scan_attributes`] read it.
#[derive(Debug, PartialEq, Eq)]
struct TagEnd {
    /// Index just past the tag's `>`, or the end of the page when it has none.
    end: usize,
    /// Whether the tag has its `>` (HTML5 drops a tag the page ends inside).
    complete: bool,
    /// Whether a `/` came right before the `>` (not the one right after the name).
    self_closing: bool,
    /// Whether the tag declares `type="application/ld+json"`.
    json_ld: bool,
}

/// Walks the attributes of a start tag from `start` (just past its name) as HTML5 tokenizes
/// them (§13.2.5.32–40): names run to white space, `/`, `>` or `=`; a value is quoted, or
/// unquoted up to white space or `>`; a `/` not right before `>` is ignored, and so is one
/// right after the tag's name, also before `>` (HTML5 reads `<div/>` as an open `<div>`:
/// the `/` of a non-void element is ignored). Writes each attribute's name, lower-cased, into
/// `names` at the same positions (`names` is at least as long as `bytes`), and appends its
/// range and its value's to `attributes` (the caller drops them if the tag makes no element).
///
/// `names` is cut to the length of `bytes` first, so that one comparison with that length
/// bounds both in the loops (attributes are 6 % of a run's instructions; read through
/// `get` and `get_mut`, each byte of a name cost two bounds checks and an `Option`).
fn scan_attributes(
    bytes: &[u8],
    start: usize,
    attributes: &mut Vec<AttributeSpan>,
    names: &mut [u8],
) -> TagEnd {
    // (`names` is never shorter: the prescan lengthens it to the page. Nor is the page longer
    // than `MAX_SOURCE_BYTES`, where the prescan cuts it: positions fit `Span::in_page`.)
    let bytes = bytes
        .get(..names.len().min(MAX_SOURCE_BYTES))
        .unwrap_or(bytes);
    let len = bytes.len();
    let names = &mut names[..len];
    let class = |b: u8| BYTE_CLASS[usize::from(b)];
    // The first byte from `i` on that is not of `class` (or the end).
    let skip = |mut i: usize, wanted: u8| {
        while i < len && class(bytes[i]) & wanted != 0 {
            i += 1;
        }
        i
    };
    let mut i = start;
    let mut json_ld = false;
    loop {
        let gap = i;
        i = skip(i, SPACE | SLASH);
        if i >= len {
            return TagEnd {
                end: len,
                complete: false,
                self_closing: false,
                json_ld,
            };
        }
        if bytes[i] == b'>' {
            return TagEnd {
                end: i + 1,
                complete: true,
                self_closing: i > gap && bytes[i - 1] == b'/' && i - 1 != start,
                json_ld,
            };
        }
        // The name; a leading `=` belongs to it (§13.2.5.32).
        // Read and lower-cased in one pass.
        let name_start = i;
        names[i] = LOWER[usize::from(bytes[i])];
        i += 1;
        while i < len {
            let b = bytes[i];
            if class(b) & NAME == 0 {
                break;
            }
            names[i] = LOWER[usize::from(b)];
            i += 1;
        }
        let name = Span::in_page(name_start, i);
        // Compared as read from the page, not as just written into `names`: a load of the
        // bytes just stored one at a time waits for those stores (no store forwarding).
        let is_type = bytes[name_start..i].eq_ignore_ascii_case(b"type");
        i = skip(i, SPACE);
        if i >= len || bytes[i] != b'=' {
            attributes.push(AttributeSpan {
                name,
                value: Span::in_page(i, i),
            });
            continue;
        }
        i = skip(i + 1, SPACE);
        let (value_start, value_end) = match bytes.get(i) {
            Some(&quote @ (b'"' | b'\'')) => {
                let value_start = i + 1;
                let value_end =
                    find_byte(quote, &bytes[value_start..]).map_or(len, |end| value_start + end);
                // Past the end when the value is not closed: the next look ends the tag.
                i = value_end + 1;
                (value_start, value_end)
            }
            _ => {
                let value_start = i;
                i = skip(i, UNQUOTED);
                (value_start, i)
            }
        };
        attributes.push(AttributeSpan {
            name,
            value: Span::in_page(value_start, value_end),
        });
        if is_type
            && bytes[value_start..value_end]
                .trim_ascii()
                .eq_ignore_ascii_case(b"application/ld+json")
        {
            json_ld = true;
        }
    }
}

#[cfg(test)]
/// [`scan_attributes`] as it was first written, every byte read and written through a
/// checked index (two bounds checks a byte of a name): the reference the new one is held to.
/// Walks the attributes of a start tag from `start` (just past its name) as HTML5 tokenizes
/// them (§13.2.5.32–40): names run to white space, `/`, `>` or `=`; a value is quoted, or
/// unquoted up to white space or `>`; a `/` not right before `>` is ignored, and so is one
/// right after the tag's name, also before `>` (HTML5 reads `<div/>` as an open `<div>`:
/// the `/` of a non-void element is ignored). Writes each attribute's name, lower-cased, into
/// `names` at the same positions (`names` is at least as long as `bytes`), and appends its
/// range and its value's to `attributes` (the caller drops them if the tag makes no element).
fn scan_attributes_by_index(
    bytes: &[u8],
    start: usize,
    attributes: &mut Vec<AttributeSpan>,
    names: &mut [u8],
) -> TagEnd {
    let at = |i: usize| bytes.get(i).copied();
    // The first byte from `i` on that is not of `class` (or the end).
    let skip = |i: usize, class: u8| {
        bytes.get(i..).map_or(i, |rest| {
            i + rest
                .iter()
                .position(|&b| BYTE_CLASS[usize::from(b)] & class == 0)
                .unwrap_or(rest.len())
        })
    };
    let mut i = start;
    let mut json_ld = false;
    loop {
        let gap = i;
        i = skip(i, SPACE | SLASH);
        match at(i) {
            None => {
                return TagEnd {
                    end: bytes.len(),
                    complete: false,
                    self_closing: false,
                    json_ld,
                }
            }
            Some(b'>') => {
                return TagEnd {
                    end: i + 1,
                    complete: true,
                    self_closing: i > gap && bytes[i - 1] == b'/' && i - 1 != start,
                    json_ld,
                }
            }
            Some(_) => {}
        }
        // The name; a leading `=` belongs to it (§13.2.5.32).
        // Read and lower-cased in one pass.
        let name_start = i;
        if let Some(name) = names.get_mut(i) {
            *name = LOWER[usize::from(bytes[i])];
        }
        i += 1;
        while let (Some(&b), Some(name)) = (bytes.get(i), names.get_mut(i)) {
            if BYTE_CLASS[usize::from(b)] & NAME == 0 {
                break;
            }
            *name = LOWER[usize::from(b)];
            i += 1;
        }
        let name = Span::new(name_start..i);
        let is_type = names.get(name_start..i) == Some(b"type".as_slice());
        i = skip(i, SPACE);
        if at(i) != Some(b'=') {
            attributes.push(AttributeSpan {
                name,
                value: Span::new(i..i),
            });
            continue;
        }
        i = skip(i + 1, SPACE);
        let (value_start, value_end) = match at(i) {
            Some(quote @ (b'"' | b'\'')) => {
                let value_start = i + 1;
                let value_end = find_byte(quote, &bytes[value_start..])
                    .map_or(bytes.len(), |end| value_start + end);
                i = value_end + 1;
                (value_start, value_end)
            }
            _ => {
                let value_start = i;
                i = skip(i, UNQUOTED);
                (value_start, i)
            }
        };
        attributes.push(AttributeSpan {
            name,
            value: Span::new(value_start..value_end),
        });
        if is_type
            && bytes[value_start..value_end.min(bytes.len())]
                .trim_ascii()
                .eq_ignore_ascii_case(b"application/ld+json")
        {
            json_ld = true;
        }
    }
}

/// Byte classes of a start tag's attributes (HTML5 §13.2.5.32–40), one bit each in
/// [`BYTE_CLASS`]: ASCII white space; `/`; bytes an attribute name runs over (all but white
/// space, `/`, `>` and `=`); bytes an unquoted value runs over (all but white space and `>`).
const SPACE: u8 = 1;
const SLASH: u8 = 2;
const NAME: u8 = 4;
const UNQUOTED: u8 = 8;

/// The classes of each byte: one table look-up per byte in the attribute scan.
static BYTE_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        let space = byte.is_ascii_whitespace();
        let mut class = 0;
        if space {
            class |= SPACE;
        }
        if byte == b'/' {
            class |= SLASH;
        }
        if !space && !matches!(byte, b'/' | b'>' | b'=') {
            class |= NAME;
        }
        if !space && byte != b'>' {
            class |= UNQUOTED;
        }
        table[b] = class;
        b += 1;
    }
    table
};

/// Where the end tag whose name ends at `name_end` (not at a `>`) ends, and whether it has its
/// `>`. HTML5 (§13.2.5.8) reads an end tag's name to white space, `/` or `>` and ignores what
/// follows up to its `>` (attributes included, quoted values may hold a `>`); the copy holds
/// it as `</name>` (`tl` takes everything up to the first `>` as the name, so `</li >` would
/// close nothing and the items after it fall into a hidden `<li style="display:none">`, a
/// blog's archive list). An end tag the page ends inside ends the copy (HTML5 drops it, and
/// shows nothing after it). Scanning goes on at the end returned: after the tag, or the end of
/// the page (so a page of unterminated `</a x="` is not read to its end once per tag).
fn end_tag_end(bytes: &[u8], name_end: usize, names: &mut [u8]) -> (usize, bool) {
    // An end tag's attributes are read only to find its end (rare: no allocation otherwise).
    let tag = scan_attributes(bytes, name_end, &mut Vec::new(), names);
    (tag.end, tag.complete)
}

/// The prescan as first written, on a copy of the page it rewrote in place (names
/// lower-cased, comments, declarations and the contents of skipped elements blanked, end tags
/// tidied): the reference the prescan is held to (`tests`), now that it leaves the page as it
/// is and writes the names apart. Names are lower-cased a byte at a time.
#[cfg(test)]
mod reference {
    use crate::extract::ascii::{find_byte, is_name_byte};
    use crate::extract::implied_ends::{name_key, OpenElements};
    use crate::extract::markup::{
        walker_skips, AttributeSpan, Span, StartName, TreeInput, TreeWriter, MAX_SOURCE_BYTES,
    };
    use crate::extract::skipped_ends::{first_end_tag, SkippedEnds};
    use crate::extract::state;
    use crate::pace;

    use super::{
        comment_end, cut_to, is_raw_text, is_skipped, TagEnd, BYTE_CLASS, MAX_JSON_LD_BLOCKS,
        MAX_START_TAGS, NAME, SLASH, SPACE, UNQUOTED,
    };

    /// What [`prescan_in_place`] made of a page: the page rewritten, whose ranges the
    /// attribute names of `tree` are, and the rest as [`super::Prescanned`].
    pub struct Reference {
        pub page: Vec<u8>,
        pub tree: TreeInput,
        pub json_ld: Vec<String>,
        pub state: Vec<state::Script>,
    }

    /// Lower-cases the name starting at `start`; returns the index just past it.
    pub(super) fn lowercase_name(bytes: &mut [u8], start: usize) -> usize {
        let mut i = start;
        while i < bytes.len() && is_name_byte(bytes[i]) {
            bytes[i] = bytes[i].to_ascii_lowercase();
            i += 1;
        }
        i
    }

    /// Blanks the comment starting at `lt` (its `<!--`), delimiters included, and returns where
    /// scanning goes on. HTML5 (§13.2.5.43–52): `<!-->` and `<!--->` are empty comments; else the
    /// first `-->` or `--!>` ends one; an unclosed comment runs to the end of the page (a browser
    /// shows nothing after it). Comments show nothing, so nothing visible is lost; `tl` 0.7 never
    /// sees one, as it misread several (`<!-- Footer Logo --->`, `<!---->`: everything after
    /// them vanished).
    pub(super) fn blank_comment(bytes: &mut [u8], lt: usize) -> usize {
        let body = lt + 4;
        let rest = &bytes[body..];
        let end = if rest.starts_with(b">") {
            body + 1
        } else if rest.starts_with(b"->") {
            body + 2
        } else {
            comment_end(rest).map_or(bytes.len(), |(end, len)| body + end + len)
        };
        bytes[lt..end].fill(b' ');
        end
    }

    /// Blanks the declaration starting at `lt` (`<!DOCTYPE …>`, `<![CDATA[…]>`, `<!x>`, `<?xml …?>`)
    /// through its `>` and returns where scanning goes on. HTML5 (§13.2.5.6, .41, .42) reads
    /// `<!DOCTYPE` to the next `>` and any other `<!…`/`<?…` as a bogus comment to the next `>`
    /// (or the end); `tl` 0.7 stopped at the first space, so `PUBLIC "-//W3C//DTD …"` of an XHTML
    /// doctype became visible text. Nothing in one is visible, so blanking loses nothing.
    pub(super) fn blank_declaration(bytes: &mut [u8], lt: usize) -> usize {
        let end = memchr::memchr(b'>', &bytes[lt..]).map_or(bytes.len(), |gt| lt + gt + 1);
        bytes[lt..end].fill(b' ');
        end
    }

    /// The prescan as first written, on a copy of the page whose names it lower-cases in place
    /// (read again writing every element where the copy conflicted, as the prescan does).
    pub fn prescan_in_place(input: &str) -> Reference {
        let input = cut_to(input, MAX_SOURCE_BYTES);
        let writer = TreeWriter::reusing(input, TreeInput::default())
            .leaving_out(super::walker::walker_passes_through);
        let (reference, conflicted) = prescan_in_place_with(input, writer);
        if !conflicted {
            return reference;
        }
        let writer = TreeWriter::reusing(input, TreeInput::default());
        prescan_in_place_with(input, writer).0
    }

    /// [`prescan_in_place`] with `writer`; and whether its copy conflicted.
    fn prescan_in_place_with<'p>(input: &'p str, mut writer: TreeWriter<'p>) -> (Reference, bool) {
        let mut page = Vec::new();
        page.clear();
        page.extend_from_slice(input.as_bytes());
        let mut bytes = page;
        let mut json_ld = Vec::new();
        let mut state: Vec<state::Script> = Vec::new();
        let mut state_bytes = 0usize;
        // The names of the end tags implied before one tag (reused).
        let mut ends: Vec<(usize, usize)> = Vec::new();
        let mut open = OpenElements::default();
        let mut skipped_ends = SkippedEnds::default();
        // Start tags seen, and where the page is cut once there are too many of them. This also
        // bounds the end tags implied: each closes an element a start tag opened, once.
        let mut start_tags = 0usize;
        let mut cut = None;
        // Tags inside a skipped element (blanked afterwards) make no node and leave the open
        // elements alone.
        let mut skip_until = 0;
        // Contents of skipped elements, blanked after the scan (which still looks inside them for
        // JSON-LD).
        let mut skipped: Vec<(usize, usize)> = Vec::new();
        let mut pos = 0;
        let mut last_lt = 0;
        while let Some(offset) = find_byte(b'<', &bytes[pos..]) {
            let lt = pos + offset;
            // Pacing (`crate::pace`): the bytes since the last tag; a stopped page ends here (its
            // result is thrown away).
            if !pace::work(lt - last_lt + 1) {
                break;
            }
            last_lt = lt;
            let outside_skipped = lt >= skip_until;
            let next = bytes.get(lt + 1).copied();
            ends.clear();
            pos = match next {
                Some(b'!') if bytes[lt..].starts_with(b"<!--") => {
                    let end = blank_comment(&mut bytes, lt);
                    writer.blank(lt, end);
                    end
                }
                Some(b'!' | b'?') => {
                    let end = blank_declaration(&mut bytes, lt);
                    writer.blank(lt, end);
                    end
                }
                Some(b'/') => {
                    let name_end = lowercase_name(&mut bytes, lt + 2);
                    if name_end == lt + 2 {
                        // `</>`, `</ x>`: no tag name, a bogus comment for HTML5 (§13.2.5.7),
                        // which shows nothing up to its `>`.
                        let gt = memchr::memchr(b'>', &bytes[lt..]).map(|gt| lt + gt + 1);
                        if outside_skipped {
                            writer.before_tag(&bytes, lt, &ends, None, None);
                            match gt {
                                Some(tag_end) => writer.skip(tag_end),
                                None => writer.stop(),
                            }
                        }
                        gt.unwrap_or(bytes.len())
                    } else {
                        let mut tag_end = name_end + 1;
                        if bytes.get(name_end) != Some(&b'>') {
                            tag_end = tidy_end_tag(&mut bytes, name_end);
                        }
                        if outside_skipped {
                            let name = &bytes[lt + 2..name_end];
                            open.end(&bytes, name, name_key(name), &mut ends);
                            let complete = bytes.get(name_end) == Some(&b'>');
                            writer.before_tag(&bytes, lt, &ends, None, complete.then_some(name));
                            if complete {
                                writer.end(&bytes, name, name_key(name), tag_end);
                            } else {
                                writer.stop();
                            }
                        }
                        tag_end
                    }
                }
                Some(c) if c.is_ascii_alphabetic() => {
                    start_tags += 1;
                    if start_tags > MAX_START_TAGS {
                        cut = Some(lt);
                        break;
                    }
                    let name_end = lowercase_name(&mut bytes, lt + 1);
                    // HTML5 reads `<div/>` as an open `<div>` (the `/` of a non-void element is
                    // ignored); a space keeps it from being written self-closing.
                    if bytes.get(name_end) == Some(&b'/') {
                        bytes[name_end] = b' ';
                    }
                    // Looked up once, for the stack of open elements and for the writer.
                    let facts = StartName::of(&bytes[lt + 1..name_end]);
                    if outside_skipped {
                        open.start(&bytes, (lt + 1, name_end), facts, &mut ends);
                    }
                    let first_attribute = writer.attribute_list().len();
                    let tag = scan_attributes(&mut bytes, name_end, writer.attribute_list());
                    if outside_skipped && tag.complete {
                        let line_break_tag = facts.breaks_line().then_some(first_attribute);
                        writer.before_tag(&bytes, lt, &ends, line_break_tag, None);
                        writer.start(
                            &bytes,
                            (lt + 1..name_end, facts),
                            first_attribute,
                            tag.self_closing,
                            tag.end,
                        );
                    } else {
                        writer.discard_attributes(first_attribute);
                        if outside_skipped {
                            writer.before_tag(&bytes, lt, &ends, None, None);
                            writer.stop();
                        }
                    }
                    let name = &bytes[lt + 1..name_end];
                    if is_raw_text(name) {
                        let close = first_end_tag(&bytes, name, tag.end).unwrap_or(bytes.len());
                        if tag.json_ld && json_ld.len() < MAX_JSON_LD_BLOCKS {
                            json_ld
                                .push(String::from_utf8_lossy(&bytes[tag.end..close]).into_owned());
                        } else if name == b"script"
                            && state_bytes < state::MAX_STATE_BYTES
                            && state.len() < state::MAX_STATE_SCRIPTS
                        {
                            // Framework state (`state.rs`): known by the script's attributes or its
                            // first bytes; only scripts pay for the look.
                            let content = &bytes[tag.end..close];
                            let kind =
                                crate::extract::state::kind_by_tag(&bytes[name_end..tag.end])
                                    .or_else(|| state::kind_by_content(content));
                            if let Some(kind) = kind {
                                state_bytes += content.len();
                                state.push(state::Script {
                                    kind,
                                    text: String::from_utf8_lossy(content).into_owned(),
                                });
                            }
                        }
                        let skips = walker_skips(name);
                        // The contents stay as written in `bytes`: the scan goes on after them and
                        // never reads back.
                        if outside_skipped && skips {
                            writer.blank_skipped_contents(tag.end, close);
                        } else if outside_skipped {
                            writer.blank(tag.end, close);
                        }
                        close
                    } else {
                        if name == b"astro-island"
                            && state_bytes < state::MAX_STATE_BYTES
                            && state.len() < state::MAX_STATE_SCRIPTS
                        {
                            let attributes = &writer.attribute_list()[first_attribute..];
                            if let Some(props) = state::astro_props(&bytes, &bytes, attributes) {
                                state_bytes += props.text.len();
                                state.push(props);
                            }
                        }
                        if outside_skipped && is_skipped(name) {
                            if let Some(close) = skipped_ends.end_of(&bytes, name, lt, tag.end) {
                                skipped.push((tag.end, close));
                                skip_until = skip_until.max(close);
                                writer.blank_skipped_contents(tag.end, close);
                            }
                        }
                        tag.end
                    }
                }
                // HTML5 (§13.2.5.6): a `<` before anything but a letter, `/`, `!` or `?` is text
                // (`18 <3`).
                _ => {
                    writer.bare_less_than();
                    lt + 1
                }
            };
            if !outside_skipped && pos > skip_until {
                // Read past the end of the skipped element: the text from there on is copied as
                // written, tags and all.
                writer.unread();
            }
        }
        if let Some(cut) = cut {
            bytes.truncate(cut);
            for range in &mut skipped {
                range.1 = range.1.min(cut);
            }
        }
        // No node starts inside a range blanked here: they only stay text.
        for &(start, end) in &skipped {
            bytes[start..end.max(start)].fill(b' ');
        }
        let conflicted = writer.conflicted();
        let tree = writer.finish(bytes.len());
        let reference = Reference {
            page: bytes,
            tree,
            json_ld,
            state,
        };
        (reference, conflicted)
    }

    /// Walks the attributes of a start tag from `start` as HTML5 tokenizes them (§13.2.5.32–40):
    /// names run to white space, `/`, `>` or `=` and are lower-cased; a value is quoted, or
    /// unquoted up to white space or `>`; a `/` not right before `>` is ignored. Appends each
    /// attribute's name and value ranges to `attributes` (the caller drops them if the tag makes
    /// no element).
    pub(super) fn scan_attributes(
        bytes: &mut [u8],
        start: usize,
        attributes: &mut Vec<AttributeSpan>,
    ) -> TagEnd {
        let at = |bytes: &[u8], i: usize| bytes.get(i).copied();
        // The first byte from `i` on that is not of `class` (or the end).
        let skip = |bytes: &[u8], i: usize, class: u8| {
            bytes.get(i..).map_or(i, |rest| {
                i + rest
                    .iter()
                    .position(|&b| BYTE_CLASS[usize::from(b)] & class == 0)
                    .unwrap_or(rest.len())
            })
        };
        let mut i = start;
        let mut json_ld = false;
        loop {
            let gap = i;
            i = skip(bytes, i, SPACE | SLASH);
            match at(bytes, i) {
                None => {
                    return TagEnd {
                        end: bytes.len(),
                        complete: false,
                        self_closing: false,
                        json_ld,
                    }
                }
                Some(b'>') => {
                    return TagEnd {
                        end: i + 1,
                        complete: true,
                        self_closing: i > gap && bytes[i - 1] == b'/',
                        json_ld,
                    }
                }
                Some(_) => {}
            }
            // The name; a leading `=` belongs to it (§13.2.5.32).
            // Read and lower-cased in one pass.
            let name_start = i;
            bytes[i] = bytes[i].to_ascii_lowercase();
            i += 1;
            while let Some(b) = bytes.get_mut(i) {
                if BYTE_CLASS[usize::from(*b)] & NAME == 0 {
                    break;
                }
                *b = b.to_ascii_lowercase();
                i += 1;
            }
            let name = Span::new(name_start..i);
            let is_type = &bytes[name_start..i] == b"type";
            i = skip(bytes, i, SPACE);
            if at(bytes, i) != Some(b'=') {
                attributes.push(AttributeSpan {
                    name,
                    value: Span::new(i..i),
                });
                continue;
            }
            i = skip(bytes, i + 1, SPACE);
            let (value_start, value_end) = match at(bytes, i) {
                Some(quote @ (b'"' | b'\'')) => {
                    let value_start = i + 1;
                    let value_end = find_byte(quote, &bytes[value_start..])
                        .map_or(bytes.len(), |end| value_start + end);
                    i = value_end + 1;
                    (value_start, value_end)
                }
                _ => {
                    let value_start = i;
                    i = skip(bytes, i, UNQUOTED);
                    (value_start, i)
                }
            };
            attributes.push(AttributeSpan {
                name,
                value: Span::new(value_start..value_end),
            });
            if is_type
                && bytes[value_start..value_end.min(bytes.len())]
                    .trim_ascii()
                    .eq_ignore_ascii_case(b"application/ld+json")
            {
                json_ld = true;
            }
        }
    }

    /// Rewrites the end tag whose name ends at `name_end` (not at a `>`) as `</name>` followed by
    /// spaces. HTML5 (§13.2.5.8) reads an end tag's name to white space, `/` or `>` and ignores
    /// what follows up to its `>` (attributes included, quoted values may hold a `>`); the
    /// copy's reader, `tl`, takes everything up to the first `>` as the name, so `</li >`
    /// would close nothing and the items after it fall into a hidden `<li style="display:none">`
    /// (a blog's archive list). An end tag the page ends inside is left alone (HTML5 drops it, and shows
    /// nothing after it; nor is anything written after it). Returns where scanning goes on: after the tag, or the end of the page (so a
    /// page of unterminated `</a x="` is not read to its end once per tag).
    pub(super) fn tidy_end_tag(bytes: &mut [u8], name_end: usize) -> usize {
        // An end tag's attributes are read only to find its end (rare: no allocation otherwise).
        let tag = scan_attributes(bytes, name_end, &mut Vec::new());
        if tag.complete {
            bytes[name_end] = b'>';
            bytes[name_end + 1..tag.end].fill(b' ');
        }
        tag.end
    }
}

#[cfg(test)]
mod tests {
    use super::{cut_to, prescan};
    use crate::extract::markup::tests::outline;
    use crate::extract::markup::REFERENCE_WRITE_NAME;
    use crate::extract::markup::{AttributeSpan, Span};
    use proptest::strategy::Strategy as _;

    /// [`super::scan_attributes`] and its reference on the same tag: what each returns, the
    /// attributes it lists and the names it writes (the rest of `names` is left alone by both).
    fn attributes_read_both_ways(tag: &[u8], start: usize, names_len: usize) {
        let read = |scan: fn(&[u8], usize, &mut Vec<AttributeSpan>, &mut [u8]) -> super::TagEnd| {
            let mut names = vec![0u8; names_len];
            let mut attributes = vec![AttributeSpan {
                name: Span::new(0..1),
                value: Span::new(1..2),
            }];
            let end = scan(tag, start, &mut attributes, &mut names);
            (end, attributes, names)
        };
        assert_eq!(
            read(super::scan_attributes),
            read(super::scan_attributes_by_index),
            "{:?} from {start}",
            String::from_utf8_lossy(tag)
        );
    }

    proptest::proptest! {
        /// Tag names are read as by their reference, names buffer shorter or longer.
        #[test]
        fn names_are_read_as_by_their_reference(
            page in "[a-zA-Z0-9.:_ <>/-]{0,24}",
            start in 0usize..30,
            names_len in 0usize..30,
        ) {
            let page = page.as_bytes();
            let mut fast = vec![0u8; names_len];
            let mut reference = vec![0u8; names_len];
            proptest::prop_assert_eq!(
                super::read_name(page, start, &mut fast),
                super::read_name_by_get(page, start, &mut reference)
            );
            proptest::prop_assert_eq!(fast, reference);
        }
    }

    /// The key of the name `read_name` reads at `start` of `page`, taken from the page, is
    /// the key of the name it writes (`name_key_at`, the reading it replaces), and so are the
    /// name's facts.
    fn name_key_read_both_ways(page: &[u8], start: usize) {
        use crate::extract::implied_ends::{lowered_name_key_at, name_key_at, StartName};
        let mut names = vec![0u8; page.len()];
        let end = super::read_name(page, start, &mut names);
        let written = name_key_at(&names, start..end);
        assert_eq!(
            lowered_name_key_at(page, start..end),
            written,
            "{:?} from {start}",
            String::from_utf8_lossy(page)
        );
        let read = StartName::read_at(page, &names, start..end);
        let at = StartName::at(&names, start..end);
        assert_eq!(read, at);
    }

    #[test]
    fn name_keys_are_read_from_the_page_as_from_the_names_written() {
        for page in [
            "<DIV>",
            "<Div class=x>",
            "<ScRiPt>",
            "</P>",
            "<BLOCKQUOTE>",
            "<Astro-Island>",
            "<a:B.c_D-9zZ@[`{>",
            "<AZaz@[`{>",
            "<H1>",
            "<TEXTAREA",
            "<x",
            "<\u{e9}A>",
            "<A\u{e9}",
            "<abcdefgh\u{e9}\u{e9}\u{e9}\u{e9}",
        ] {
            let page = page.as_bytes();
            for start in 0..=page.len() {
                name_key_read_both_ways(page, start);
            }
        }
    }

    proptest::proptest! {
        /// As above, on generated pages (every byte around the letters' edges).
        #[test]
        fn name_keys_are_read_from_the_page_as_written_on_generated_pages(
            page in "[@A-Z\\[`a-z{0-9.:_ <>/\u{e9}-]{0,24}",
            start in 0usize..26,
        ) {
            let page = page.as_bytes();
            name_key_read_both_ways(page, start.min(page.len()));
        }
    }

    #[test]
    fn attributes_are_scanned_as_by_their_reference() {
        for tag in [
            "<a>",
            "<a",
            "<a/>",
            "<a />",
            "<a/ >",
            "<div/>",
            "<p a>",
            "<p a=>",
            "<p a=",
            "<p a='",
            "<p a=\"x",
            "<p a=\"x\"",
            "<p =x>",
            "<p A=\"1\"B='2'C=3/ D>",
            "<p TYPE=' Application/LD+JSON '>",
            "<script type=application/ld+json>",
            "<p type=\"x\" type=application/ld+json/>",
            "<p a = b c\t=\n'd' / >",
            "<p data-X=it's>",
            "<p \u{e9}=\u{e9}>",
        ] {
            let name_end = 1 + tag[1..]
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(tag.len() - 1);
            attributes_read_both_ways(tag.as_bytes(), name_end, tag.len());
            attributes_read_both_ways(tag.as_bytes(), name_end, tag.len() + 5);
        }
    }

    proptest::proptest! {
        /// The attribute scan reads every tag as its reference, which read and wrote each byte
        /// through a checked index.
        #[test]
        fn attributes_are_scanned_as_by_their_reference_on_generated_tags(
            tag in "[a-zA-Z@\\[`{ =\"'/>\t\n.\u{e9}-]{0,40}",
            start in 0usize..6,
            spare in 0usize..3,
        ) {
            let tag = tag.as_bytes();
            attributes_read_both_ways(tag, start.min(tag.len()), tag.len() + spare);
        }
    }

    #[test]
    fn byte_tables_are_the_byte_functions() {
        // Exhaustive: the tables the name readers look bytes up in against the functions
        // they replace.
        for b in 0..=255u8 {
            assert_eq!(super::LOWER[usize::from(b)], b.to_ascii_lowercase(), "{b}");
            let name_byte = crate::extract::ascii::is_name_byte(b);
            let lower = super::TAG_NAME_LOWER[usize::from(b)];
            assert_eq!(lower != 0, name_byte, "{b}");
            if name_byte {
                assert_eq!(lower, b.to_ascii_lowercase(), "{b}");
            }
        }
    }

    /// Pieces of pages as the web writes them and breaks them: tags in any case, with
    /// attributes quoted, unquoted and valueless, comments, declarations, raw text and skipped
    /// elements, entities, bare `<`, tags the page ends inside.
    const PIECES: &[&str] = &[
        "<DIV CLASS=\"Foo Bar\">",
        "</DIV>",
        "<div>",
        "</div >",
        "<P>",
        "</p>",
        "<li>",
        "<Li>",
        "</LI x=\">\">",
        "<ul>",
        "</ul>",
        "<BR/>",
        "<br>",
        "<hr/>",
        "<IMG SRC=a.png ALT='A b'>",
        "<a HREF=\"/x?a=1&amp;b=2\" Title=t>",
        "</A>",
        "<a.b>",
        "</a.b>",
        "<x.Y-z:w_1>",
        "</X.y-Z:w_1>",
        "<Long-Custom-Element data-X=1>",
        "</long-custom-element>",
        "<script>var a = \"</div><p>\";</script>",
        "<SCRIPT type=application/ld+json>{\"a\":1}</SCRIPT>",
        "<script TYPE=\"Application/LD+JSON\">{}</script>",
        "<script id=__NEXT_DATA__ type=application/json>{\"p\":1}</script>",
        "<style>p{}</style>",
        "<textarea><b></textarea>",
        "<noscript><p>n</noscript>",
        "<select><option>A<option>B</select>",
        "<SVG><path d=M0/></SVG>",
        "<svg><svg></svg></svg>",
        "<iframe src=m></iframe>",
        "<template><a href=t>t</a></template>",
        "<title>T &amp; U</title>",
        "<!-- c -->",
        "<!---->",
        "<!-- a --!>",
        "<!-->",
        "<!DOCTYPE html>",
        "<?xml v?>",
        "<![CDATA[x]]>",
        "</>",
        "</ x>",
        "<",
        "<3",
        "a < b",
        "&lt;",
        "&amp",
        "&#x41;",
        " ",
        "\n  ",
        "\t",
        "\u{1}",
        "x",
        "Straße",
        "y z",
        "<meta NAME=og:url CONTENT=u>",
        "<link REL=Canonical href=c>",
        "<span data-cfemail=6a0b></span>",
        "<i></i>",
        "<td>",
        "<tr>",
        "<table>",
        "<h2>",
        "</h2>",
        "<input disabled/>",
        "<p/>",
        "<b =x>",
        "<b a=\"1\"b='2'c=3/ d>",
        "<b a='",
        "</b z=\"",
        "<astro-island props=\"{}\"></astro-island>",
        "<html lang=DE>",
        "<head>",
        "</head>",
    ];

    /// The prescan's output, its attribute names read from the buffers they are ranges of.
    fn read(tree: &crate::extract::markup::TreeInput, names: &[u8]) -> String {
        let attributes: Vec<(String, std::ops::Range<usize>)> = tree
            .attributes
            .iter()
            .map(|a| {
                let name = names.get(a.name.range()).unwrap_or_default();
                (String::from_utf8_lossy(name).into_owned(), a.value.range())
            })
            .collect();
        format!("{:?} {:?} {:?}", tree.text, attributes, tree.start_tags)
    }

    proptest::proptest! {
        /// The prescan's output (the copy `tl` parses, its attributes' names and values,
        /// JSON-LD, framework state) is the same as the reference's, which rewrote a copy of
        /// the page in place and read names a byte at a time, with names written into the copy
        /// a character at a time.
        #[test]
        fn the_prescan_reads_as_its_in_place_reference(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(PIECES).prop_map(str::to_string),
                    "<[a-zA-Z][a-zA-Z0-9.:_-]{0,9}( [a-zA-Z=\"'/ .-]{0,14})?/?>?",
                    "</[a-zA-Z.][a-zA-Z0-9.-]{0,9} ?>?",
                    "<(script|SVG|svg|astro-island|link|meta)( [a-zA-Z_=\"'/ -]{0,24})?/?>?",
                ],
                0..40,
            )
        ) {
            let page: String = pieces.concat();
            let fast = prescan(&page);
            let fast = format!("{} {:?} {:?}", read(&fast.tree, &fast.names), fast.json_ld, fast.state);
            REFERENCE_WRITE_NAME.set(true);
            let reference = super::reference::prescan_in_place(&page);
            REFERENCE_WRITE_NAME.set(false);
            let reference = format!(
                "{} {:?} {:?}",
                read(&reference.tree, &reference.page),
                reference.json_ld,
                reference.state
            );
            proptest::prop_assert_eq!(fast, reference, "{:?}", page);
        }
    }

    #[test]
    fn the_prescan_reads_as_its_reference_on_framework_state_and_nested_skipped_elements() {
        // Written out: cases the generated pages rarely reach.
        for page in [
            "<SCRIPT ID=__NEXT_DATA__ TYPE=application/json>{}</SCRIPT>",
            "<script __NEXT_DATA__>{}</script><script x__NUXT_DATA__=1>{}</script>",
            "<script DATA-SVELTEKIT-FETCHED data-url=/a>{}</script>",
            "<script data-x='data-sveltekit-fetched'>{}</script><script id=\"__NUXT_DATA__\">[]</script>",
            "<script id=__NEXT_DATA__",
            "<ASTRO-ISLAND PROPS=\"{&quot;a&quot;:[0,1]}\"></ASTRO-ISLAND>",
            "<svg/><svg><g></g></svg></svg><p>a</p><svg/><svg></svg></svg><p>b</p>",
            "<SVG/><p>a</p></svg><p>b</p>",
            "<svg a/><svg></svg><p>c</p>",
            "<object/><object></object></object><p>d</p>",
            "<LINK REL=Canonical HREF=/c><link rel=stylesheet href=s><META NAME=OG:URL CONTENT=u>",
        ] {
            let fast = prescan(page);
            let reference = super::reference::prescan_in_place(page);
            assert_eq!(
                format!("{} {:?} {:?}", read(&fast.tree, &fast.names), fast.json_ld, fast.state),
                format!(
                    "{} {:?} {:?}",
                    read(&reference.tree, &reference.page),
                    reference.json_ld,
                    reference.state
                ),
                "{page}"
            );
        }
        // Upper-case attribute names are read as lower-case.
        assert_eq!(
            prescan("<script DATA-SVELTEKIT-FETCHED>{}</script>")
                .state
                .len(),
            1
        );
        assert_eq!(prescan("<ASTRO-ISLAND PROPS=\"{}\">").state.len(), 1);
    }

    proptest::proptest! {
        /// A raw-text element's contents are copied as `from_utf8_lossy` read them, on any
        /// range: the ends the prescan gives and ranges that cut a character.
        #[test]
        fn raw_text_is_copied_as_read_lossily(
            text in "[a<>é😀\u{2028}]{0,12}",
            from in 0usize..40,
            to in 0usize..40,
        ) {
            let (from, to) = (from.min(text.len()), to.min(text.len()));
            let (from, to) = (from.min(to), from.max(to));
            proptest::prop_assert_eq!(
                super::owned_text(&text, from, to),
                String::from_utf8_lossy(&text.as_bytes()[from..to]).into_owned()
            );
        }
    }

    #[test]
    fn input_is_cut_on_a_character_boundary() {
        // `é` is two bytes, `€` three: a cut inside one falls back to its start.
        assert_eq!(cut_to("aé€b", 0), "");
        assert_eq!(cut_to("aé€b", 2), "a");
        assert_eq!(cut_to("aé€b", 3), "aé");
        assert_eq!(cut_to("aé€b", 5), "aé");
        assert_eq!(cut_to("aé€b", 6), "aé€");
        assert_eq!(cut_to("aé€b", 7), "aé€b");
        assert_eq!(cut_to("aé€b", usize::MAX), "aé€b");
    }

    #[test]
    fn lowercases_names_but_not_values_or_text() {
        let p = prescan(r#"<DIV CLASS="Foo">Hello <BR><A HREF="/X">Y</A></DIV>"#);
        assert_eq!(
            p.html(),
            r#"<div class="Foo">Hello <br><a href="/X">Y</a></div>"#
        );
    }

    #[test]
    fn scripts_and_styles_are_not_read_as_markup_and_json_ld_is_kept() {
        let input = r#"<script>var a = "</div><p>";</script><p>x</p>y<script type="application/ld+json">{"name":"A"}</SCRIPT>z<style>p{}</style>"#;
        let p = prescan(input);
        assert_eq!(p.tree.text, "<p>x</p>y<script></script>z<style></style>");
        assert_eq!(p.json_ld, vec![r#"{"name":"A"}"#.to_string()]);
        // The page keeps them as written (nothing reads them there again).
        assert!(p.html().contains(r#"var a = "</div><p>";"#) && p.html().contains("p{}"));
    }

    #[test]
    fn comments_end_as_html5_says_and_are_blanked_whole() {
        let blank = |n: usize| " ".repeat(n);
        let p = prescan("<!-- Footer Logo ---><P>a</P><!--- START --><B>b</B><!-- x --!><I>c</I>");
        assert_eq!(
            p.html(),
            format!(
                "{}<p>a</p>{}<b>b</b>{}<i>c</i>",
                blank(21),
                blank(15),
                blank(11)
            )
        );
        let p = prescan("<!--><A>d</A><!---><A>e</A><!----><A>f</A>");
        assert_eq!(
            p.html(),
            format!(
                "{}<a>d</a>{}<a>e</a>{}<a>f</a>",
                blank(5),
                blank(6),
                blank(7)
            )
        );
        let p = prescan("<!-- a - b -- c ---- d --!--><I>g</I>");
        assert_eq!(p.html(), format!("{}<i>g</i>", blank(29)));
        let p = prescan("<!-- x --!--!><I>h</I>");
        assert_eq!(p.html(), format!("{}<i>h</i>", blank(14)));
        let p = prescan("<p>f</p><!-- never closed <b>");
        assert_eq!(p.html(), format!("<p>f</p>{}", blank(21)));
    }

    #[test]
    fn doctypes_and_bogus_comments_are_blanked_to_their_end() {
        let p = prescan(
            "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0//EN\"><?xml version=\"1.0\"?><P>a</P><![CDATA[x]]><!x y><B>b</B>",
        );
        // `<![CDATA[x]]>` and `<!x y>`: 19 bytes of blanks between the paragraphs.
        assert_eq!(
            p.html().trim_start(),
            format!("<p>a</p>{}<b>b</b>", " ".repeat(19))
        );
        assert_eq!(
            prescan("<p>c</p><!DOCTYPE never closed").html().trim_end(),
            "<p>c</p>"
        );
    }

    #[test]
    fn skips_comments_and_survives_truncation() {
        let p = prescan("<!-- <SCRIPT> --><B>x</B><script>unterminated");
        assert_eq!(p.html(), "                 <b>x</b><script>unterminated");
        // (`<b>`, which the walker passes through, is left out: `markup.rs`.)
        assert_eq!(p.tree.text, "x<script>");
        let p = prescan("<a href='x");
        assert_eq!(p.html(), "<a href='x");
    }

    #[test]
    fn attributes_are_left_as_written_but_for_their_names() {
        // `markup.rs` reads valueless and unquoted attributes as HTML5 does; they are not
        // rewritten (`=""`, quotes) for `tl`.
        let p = prescan(
            "<A HREF=//x.com/a/b?c=1&d=2 class = big DATA-X=it's ITEMSCOPE>t</A><script type=application/ld+json>{}</script>",
        );
        assert_eq!(
            p.html(),
            "<a href=//x.com/a/b?c=1&d=2 class = big data-x=it's itemscope>t</a><script type=application/ld+json>{}</script>"
        );
        assert_eq!(p.json_ld, ["{}"]);
    }

    #[test]
    fn skipped_elements_are_blanked_but_their_json_ld_is_kept() {
        let p = prescan(
            r#"<select><option>A<option>B</select><noscript><script type="application/ld+json">{"a":1}</script></noscript><p>x</p>"#,
        );
        assert_eq!(p.json_ld, [r#"{"a":1}"#]);
        assert!(p.html().starts_with("<select>"));
        assert!(p.html().ends_with("</noscript><p>x</p>"));
        assert!(!p.html().contains("option") && !p.html().contains("<script"));
        // Without a closing tag nothing is blanked.
        assert_eq!(
            prescan("<svg><path d=\"M0\">").html(),
            "<svg><path d=\"M0\">"
        );
    }

    #[test]
    fn a_slash_right_after_a_tag_name_becomes_a_space() {
        assert_eq!(
            prescan("<br/><HR/><img src=\"a\"/><p>x</p>").html(),
            "<br ><hr ><img src=\"a\"/><p>x</p>"
        );
    }

    #[test]
    fn an_end_tag_the_page_ends_inside_ends_the_scan() {
        // HTML5 shows nothing after it; the scan stops there instead of reading the rest of
        // the page once per such tag (`benches/src/pathological.rs`, "end-tags").
        assert_eq!(
            prescan("<P>a</P></B Z=\"w<P>b").html(),
            "<p>a</p></b z=\"w<P>b"
        );
        assert_eq!(prescan("</LI Z=\">\"><P>b").html(), "</li>      <p>b");
    }

    #[test]
    fn a_page_is_cut_before_its_start_tag_over_the_cap() {
        let page = "<b>x</b>".repeat(super::MAX_START_TAGS + 10);
        let html = prescan(&page).html();
        assert_eq!(html.matches("<b>").count(), super::MAX_START_TAGS);
        assert!(html.ends_with("x</b>"));
        // A skipped element open at the cut is blanked to the cut.
        let page = format!(
            "{}<noscript>abc{}</noscript>",
            "<i></i>".repeat(super::MAX_START_TAGS - 1),
            "<p>a</p>".repeat(5)
        );
        let html = prescan(&page).html();
        assert!(
            html.ends_with("<i></i><noscript>   "),
            "{}",
            &html[html.len() - 40..]
        );
    }

    #[test]
    fn implied_end_tags_never_outnumber_start_tags() {
        // Each implied end tag closes an element a start tag opened, so the cut on start
        // tags bounds them too: 60 000 items of one list, each closed by the next.
        let page = format!("<ul>{}", "<li>x".repeat(60_000));
        let outline = outline(&page);
        let elements: Vec<&String> = outline.iter().filter(|node| node.contains('[')).collect();
        assert_eq!(elements.len(), super::MAX_START_TAGS);
        let closed = elements.iter().filter(|e| e.ends_with('+')).count();
        assert_eq!(closed, super::MAX_START_TAGS - 2);
        // The copy `tl` parses holds one `</li>` per closed item.
        let p = prescan(&page);
        assert_eq!(p.tree.text.matches("</li>").count(), closed);
    }

    #[test]
    fn bare_less_than_signs_are_text() {
        // 2 million `<` held 125 MB when each rewrite was kept apart until the page was
        // rebuilt; now they are written as `&lt;` into the copy as it is built: four bytes each.
        let page = format!("<p>{}</p><p>info@example.com</p>", "<".repeat(200_000));
        // (Every element written: the paragraphs are what the test counts.)
        crate::extract::markup::KEEP_EVERY_ELEMENT.set(true);
        let p = prescan(&page);
        assert_eq!(p.html(), page);
        assert_eq!(p.tree.text.len(), page.len() + 3 * 200_000);
        // Two paragraphs, their text, nothing else.
        let outline = outline(&page);
        assert_eq!(outline.len(), 4);
        assert_eq!(outline[1].len(), 4 * 200_000);
        assert_eq!(outline[3], "info@example.com");
        crate::extract::markup::KEEP_EVERY_ELEMENT.set(false);
    }

    #[test]
    fn tags_inside_skipped_elements_make_no_nodes_and_imply_no_end_tags() {
        // The `<li>` inside `<noscript>` neither makes a node nor closes the first item (every
        // element written: the items are what the test looks at).
        crate::extract::markup::KEEP_EVERY_ELEMENT.set(true);
        let shape: Vec<String> = outline("<ul><li>a<noscript><li>b</noscript><li>c</ul>")
            .into_iter()
            .map(|node| node.trim().to_string())
            .collect();
        assert_eq!(
            shape,
            ["ul[6]+", "li[4]+", "a", "noscript[4]+", "li[6]+", "c"]
        );
        crate::extract::markup::KEEP_EVERY_ELEMENT.set(false);
    }

    #[test]
    fn hidden_bytes_are_one_space_in_the_copy_or_nothing_where_the_walker_skips_them() {
        let p = prescan(
            "x<!DOCTYPE html><p>a<!-- x -->b</p>s<script>var s = '<b>';</script>t<svg><path/></svg>c<xmp>d</xmp>",
        );
        // (After text: an element the walker skips after a tag is left out, and `<xmp>`, which
        // it passes through, is left out with its tags, see `markup.rs`.)
        assert_eq!(p.tree.text, "x <p>a b</p>s<script></script>t<svg></svg>c ");
        // A `<script/>` is written childless: what HTML5 reads as its text follows it.
        assert_eq!(
            prescan("a<script src=x />b</script>c").tree.text,
            "a<script /> </script>c"
        );
    }

    #[test]
    fn multibyte_text_stays_intact() {
        let p = prescan("<P>Straße 1 – Köln</P><script>ü</script>");
        assert!(p.html().starts_with("<p>Straße 1 – Köln</p>"));
    }
}
