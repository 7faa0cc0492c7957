//! Postcode patterns and address layouts of every country, from data: Google's address
//! metadata (the data of libaddressinput), vendored as `core/data/address-formats.tsv` (its
//! header names the source, version and licence; `benches/scripts/address_formats.py`
//! regenerates it). Read at build time (`include_str!`), parsed once on first use; each
//! country's postcode pattern is parsed on first use and matched without compiling it.
//!
//! What the address reader takes from it (docs/extraction.md, "Addresses"):
//! - [`Format::validates`]: whether a candidate is a whole postcode of the country (`zip`);
//! - [`Format::layout`]: whether the country prints its postcode before the locality
//!   (`%Z %C`, DE `10115 Berlin`, MX `50080 Toluca`) or after it (`%C %Z`, IN `Chennai
//!   600078`, SG `SINGAPORE 238881`) or on a line of its own after it (`%C%n%Z`, BR, ZA);
//! - [`label_country`]: the country a postcode's own name implies (`PIN` → IN, `Eircode` →
//!   IE: Google's `zip_name_type`, where one country has it).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// Where a layout `fmt` prints the postcode relative to the locality.
fn layout_of(fmt: &str) -> Layout {
    // `%Z %S` (PH `6000 Cebu`): a place name after the postcode all the same.
    if ["%Z %C", "%Z%n%C", "%Z%C", "%Z %S"]
        .iter()
        .any(|p| fmt.contains(p))
    {
        Layout::ZipFirst
    } else if fmt.contains("%n%Z") {
        Layout::ZipLine
    } else if fmt.contains("%Z") {
        Layout::ZipAfter
    } else {
        Layout::None
    }
}

/// The vendored data: `#` comment lines, then one tab-separated row per country with a
/// postcode: code, zip, fmt, require, postprefix, zip_name_type, name.
const DATA: &str = include_str!("../../data/address-formats.tsv");

/// Where a country prints its postcode relative to the locality (from `fmt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `%Z %C` (or `%Z%n%C`, `%Z %S`): postcode, then the locality (or region).
    ZipFirst,
    /// `%C %Z`, `%C, %S %Z`, `SINGAPORE %Z`: on the locality's line, after it.
    ZipAfter,
    /// `%C…%n%Z`: on a line of its own, after the locality's.
    ZipLine,
    /// No postcode in the layout.
    None,
}

/// One country's postcode pattern and address layout.
#[derive(Debug)]
pub struct Format {
    /// ISO 3166-1 alpha-2 code, upper-case.
    pub code: &'static str,
    /// The postcode pattern (a regular expression of a whole postcode, Google's `zip`).
    pub zip: &'static str,
    /// The address layout (Google's `fmt`: `%N` name, `%O` organisation, `%A` street lines,
    /// `%D` district, `%C` locality, `%S` region, `%Z` postcode, `%n` line break).
    pub fmt: &'static str,
    /// The postcode's name where it has its own (`pin`, `eircode`, `zip`), or empty.
    pub zip_name: &'static str,
    /// The country's English name, upper-case (`INDIA`).
    pub name: &'static str,
    /// [`Format::layout`], read with the data.
    layout: Layout,
    /// The postcode pattern, read on first use.
    pattern: OnceLock<Option<Pattern>>,
}

fn parse() -> Vec<Format> {
    DATA.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|line| {
            let mut f = line.split('\t');
            let code = f.next()?;
            let zip = f.next()?;
            let fmt = f.next()?;
            let _require = f.next()?;
            let _postprefix = f.next()?;
            let zip_name = f.next()?;
            let name = f.next()?;
            Some(Format {
                code,
                zip,
                fmt,
                zip_name,
                name,
                layout: layout_of(fmt),
                pattern: OnceLock::new(),
            })
        })
        .collect()
}

/// Every country of the data, in code order.
pub fn formats() -> &'static [Format] {
    static FORMATS: OnceLock<Vec<Format>> = OnceLock::new();
    FORMATS.get_or_init(parse)
}

/// The format of the country with ISO code `code` (upper-case), if the data gives it a
/// postcode.
pub fn format(code: &str) -> Option<&'static Format> {
    // Every code of the data is two upper-case ASCII letters (a test checks it): a table
    // indexed by the two letters, built once, holds each country's place in the data.
    static BY_CODE: OnceLock<[u8; 26 * 26]> = OnceLock::new();
    fn slot(code: &[u8]) -> Option<usize> {
        match code {
            [a @ b'A'..=b'Z', b @ b'A'..=b'Z'] => {
                Some(usize::from(a - b'A') * 26 + usize::from(b - b'A'))
            }
            _ => None,
        }
    }
    let all = formats();
    let by_code = BY_CODE.get_or_init(|| {
        let mut by_code = [u8::MAX; 26 * 26];
        for (i, f) in all.iter().enumerate() {
            if let (Some(slot), Ok(i)) = (slot(f.code.as_bytes()), u8::try_from(i)) {
                by_code[slot] = i;
            }
        }
        by_code
    });
    let i = by_code[slot(code.as_bytes())?];
    all.get(usize::from(i))
}

/// The code of the first country of the data whose English name ([`Format::name`]) is `name`
/// in any ASCII case (`India`, `SOUTH AFRICA`). A table built once: the address reader asks
/// this after every postcode candidate.
pub fn country_of_name(name: &str) -> Option<&'static str> {
    /// The longest name compared, in bytes.
    const LONGEST: usize = 64;
    /// Buckets: first letter (`a`–`z`, then any other first byte) × length (0 to [`LONGEST`]).
    const BUCKETS: usize = 27 * (LONGEST + 1);
    fn bucket(lower: &[u8]) -> usize {
        let first = lower
            .first()
            .filter(|b| b.is_ascii_lowercase())
            .map_or(26, |b| usize::from(b - b'a'));
        first * (LONGEST + 1) + lower.len()
    }
    /// The names (lower-case) and their codes in data order, sorted by bucket (stable, so
    /// the first of a bucket to match is the first of the data), with a bit per bucket that
    /// holds a name. Most words asked about are town names of an empty bucket: one bit of a
    /// 224-byte set answers them, where a table of a vector per bucket (42 KB, cold between
    /// the pages' lines) cost a cache miss per question.
    struct Names {
        held: [u64; BUCKETS.div_ceil(64)],
        /// (bucket, name, code), sorted by bucket.
        names: Vec<(usize, String, &'static str)>,
    }
    static NAMES: OnceLock<Names> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let mut held = [0u64; BUCKETS.div_ceil(64)];
        let mut names: Vec<(usize, String, &'static str)> = formats()
            .iter()
            .map(|f| (f.name.to_ascii_lowercase(), f.code))
            .filter(|(lower, _)| lower.len() <= LONGEST)
            .map(|(lower, code)| (bucket(lower.as_bytes()), lower, code))
            .collect();
        names.sort_by_key(|(bucket, _, _)| *bucket);
        for (bucket, _, _) in &names {
            held[bucket / 64] |= 1 << (bucket % 64);
        }
        Names { held, names }
    });
    // The names are ASCII: a longer `name` (in bytes) is none of them, whatever its case.
    if name.len() > LONGEST {
        return None;
    }
    // Lower-cased on the stack (ASCII lower-casing keeps UTF-8 valid).
    let mut buf = [0u8; LONGEST];
    let lower = &mut buf[..name.len()];
    lower.copy_from_slice(name.as_bytes());
    lower.make_ascii_lowercase();
    let key = bucket(lower);
    if names.held[key / 64] & 1 << (key % 64) == 0 {
        return None;
    }
    let from = names.names.partition_point(|(b, _, _)| *b < key);
    names.names[from..]
        .iter()
        .take_while(|(b, _, _)| *b == key)
        .find(|(_, n, _)| n.as_bytes() == &*lower)
        .map(|(_, _, code)| *code)
}

/// The one country whose postcode has the name `label` (lower-case: `pin`, `eircode`), if
/// exactly one has it.
pub fn label_country(label: &str) -> Option<&'static str> {
    // Each postcode name and its one country (`None` where several have it): a map built
    // once, as the address reader asks this before every postcode candidate.
    static BY_LABEL: OnceLock<BTreeMap<&'static str, Option<&'static str>>> = OnceLock::new();
    let by_label = BY_LABEL.get_or_init(|| {
        let mut by_label = BTreeMap::new();
        for f in formats() {
            by_label
                .entry(f.zip_name)
                .and_modify(|code| *code = None)
                .or_insert(Some(f.code));
        }
        by_label
    });
    by_label.get(label).copied().flatten()
}

impl Format {
    /// Where the postcode stands relative to the locality (read from [`Format::fmt`] once,
    /// with the data).
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The country's whole-postcode pattern (`^(?:zip)$`), read on first use; `None` if it
    /// is outside what [`Pattern`] reads (a test rules that out for every country).
    fn pattern(&self) -> Option<&Pattern> {
        self.pattern
            .get_or_init(|| {
                // Countries share patterns (`\d{5}` is 42 countries'): the first country of
                // the data with this one parses it, the others copy its tree.
                match formats().iter().find(|first| first.zip == self.zip) {
                    Some(first) if !std::ptr::eq(first, self) => first.pattern().cloned(),
                    _ => Pattern::new(&format!("^(?:{})$", self.zip)),
                }
            })
            .as_ref()
    }

    /// Whether `candidate` is a whole postcode of the country. A six-digit postcode printed
    /// as two groups of three (`600 078`, the way Indian PINs are often printed) is read
    /// without its space.
    pub fn validates(&self, candidate: &str) -> bool {
        let Some(pattern) = self.pattern() else {
            return false;
        };
        if pattern.is_match(candidate) {
            return true;
        }
        let b = candidate.as_bytes();
        let spaced_six = b.len() == 7
            && b[3] == b' '
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 3 || c.is_ascii_digit());
        if !spaced_six {
            return false;
        }
        let mut six = [0u8; 6];
        six[..3].copy_from_slice(&b[..3]);
        six[3..].copy_from_slice(&b[4..]);
        // Six ASCII digits: valid UTF-8.
        std::str::from_utf8(&six).is_ok_and(|six| pattern.is_match(six))
    }
}

/// What any format of a set may validate, from their patterns: the numbers of chars and the
/// first chars of their matches. A candidate it turns away is validated by none of them
/// ([`Format::validates`] would say `false` for each), so a reader trying many countries'
/// formats on each token asks this once instead of each format.
#[derive(Debug, Clone, Copy)]
pub struct AnyOf {
    /// Bit `n`: some format matches `n` chars.
    chars: u128,
    /// The ASCII chars some format's match may open with (one bit each); whether one may open
    /// with another char.
    first_ascii: u128,
    first_wide: bool,
}

/// [`AnyOf`] every format of the data: a candidate it turns away is a postcode of no country.
/// Built on first use (it reads every country's pattern).
pub fn any_format() -> &'static AnyOf {
    static ANY: OnceLock<AnyOf> = OnceLock::new();
    ANY.get_or_init(|| AnyOf::new(&formats().iter().collect::<Vec<_>>()))
}

impl AnyOf {
    /// The union of `formats` (a format whose pattern is unread validates nothing).
    pub fn new(formats: &[&Format]) -> AnyOf {
        let mut any = AnyOf {
            chars: 0,
            first_ascii: 0,
            first_wide: false,
        };
        for pattern in formats.iter().filter_map(|f| f.pattern()) {
            for n in pattern.min_chars..=pattern.max_chars.min(127) {
                any.chars |= 1 << n;
            }
            any.first_ascii |= pattern.first_ascii;
            any.first_wide |= pattern.first_wide;
        }
        any
    }

    /// `false` when no format of the set validates `candidate`; `true` when one may.
    pub fn may_validate(&self, candidate: &str) -> bool {
        let b = candidate.as_bytes();
        let chars = b.iter().filter(|b| *b & 0xC0 != 0x80).count();
        let opens = |first: Option<&u8>| match first {
            None => true,
            Some(&c) if c.is_ascii() => self.first_ascii & (1 << c) != 0,
            Some(_) => self.first_wide,
        };
        let whole = chars <= 127 && self.chars & (1 << chars) != 0 && opens(b.first());
        // `600 078`, validated as its six digits.
        let spaced_six = b.len() == 7
            && b[3] == b' '
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 3 || c.is_ascii_digit());
        whole || (spaced_six && self.chars & (1 << 6) != 0 && opens(b.first()))
    }
}

/// A whole-postcode pattern, read from its syntax tree (`regex_syntax`'s, the one `regex`
/// compiles) into a [`Node`] tree and matched by walking it over the candidate with the set of
/// byte offsets reached so far. That answers as `regex::Regex::is_match` does (a test compares
/// the two on every country's pattern) without compiling an automaton: compiling the 100-odd
/// patterns a run meets cost more than all their matching. Two tests from the tree come first
/// and answer for most candidates: the number of chars a match has, and the chars it may open
/// with.
#[derive(Debug, Clone)]
struct Pattern {
    node: Node,
    /// The fewest and most chars of a match.
    min_chars: usize,
    max_chars: usize,
    /// The ASCII chars a match may open with, one bit each; whether it may open with another.
    first_ascii: u128,
    first_wide: bool,
}

/// Byte offsets `0..=127` of a candidate, one bit each.
type Offsets = u128;

/// A pattern's syntax tree as [`ends`] walks it (groups dropped, classes split into their
/// ASCII chars and their other ranges).
#[derive(Debug, Clone)]
enum Node {
    /// Matches the empty text.
    Empty,
    /// These bytes (a whole number of chars).
    Literal(Box<[u8]>),
    /// One char: an ASCII char of `ascii` (one bit each), or one in a range of `wide` (chars
    /// above U+007F, sorted and disjoint).
    Class {
        ascii: u128,
        wide: Vec<(char, char)>,
    },
    /// An assertion of no width (the text's start or end, a word boundary).
    Look(Look),
    /// `sub` repeated `min` to `max` times (no `max`: no bound).
    Repeat {
        min: u32,
        max: Option<u32>,
        sub: Box<Node>,
    },
    Concat(Vec<Node>),
    Alternation(Vec<Node>),
}

impl Pattern {
    /// The longest match a pattern may have, in bytes: its offsets fit an [`Offsets`].
    const MAX_LEN: usize = 127;

    /// The pattern of `source`; `None` if it does not parse, may match more than
    /// [`Pattern::MAX_LEN`] bytes, or holds something [`Node`] does not read (an assertion
    /// other than the text's start and end and word boundaries, a class of non-ASCII bytes).
    fn new(source: &str) -> Option<Pattern> {
        let hir = regex_syntax::parse(source).ok()?;
        if hir.properties().maximum_len()? > Self::MAX_LEN {
            return None;
        }
        let node = Node::of(&hir)?;
        let (min_chars, max_chars) = node.chars();
        let (first_ascii, first_wide, _) = node.first();
        Some(Pattern {
            min_chars,
            max_chars: max_chars?,
            first_ascii,
            first_wide,
            node,
        })
    }

    /// Whether the pattern matches `text` from its start to its end.
    fn is_match(&self, text: &str) -> bool {
        // Chars: the bytes that open one.
        let chars = text.bytes().filter(|b| b & 0xC0 != 0x80).count();
        if chars < self.min_chars || chars > self.max_chars || text.len() > Self::MAX_LEN {
            return false;
        }
        let opens = match text.as_bytes().first() {
            None => true,
            Some(&b) if b.is_ascii() => self.first_ascii & (1 << b) != 0,
            Some(_) => self.first_wide,
        };
        opens && ends(&self.node, text, 1) & (1 << text.len()) != 0
    }
}

impl Node {
    /// The tree of `hir`; `None` where it holds what [`Pattern::new`] does not read.
    fn of(hir: &Hir) -> Option<Node> {
        Some(match hir.kind() {
            HirKind::Empty => Node::Empty,
            HirKind::Literal(lit) => Node::Literal(lit.0.clone()),
            HirKind::Class(Class::Unicode(class)) => {
                let mut ascii: u128 = 0;
                let mut wide = Vec::new();
                for r in class.ranges() {
                    for c in u32::from(r.start())..=u32::from(r.end()).min(0x7F) {
                        ascii |= 1 << c;
                    }
                    if u32::from(r.end()) > 0x7F {
                        wide.push((r.start().max('\u{80}'), r.end()));
                    }
                }
                Node::Class { ascii, wide }
            }
            HirKind::Class(Class::Bytes(class)) => {
                let mut ascii: u128 = 0;
                for r in class.ranges() {
                    if !r.end().is_ascii() {
                        return None;
                    }
                    for b in r.start()..=r.end() {
                        ascii |= 1 << b;
                    }
                }
                Node::Class {
                    ascii,
                    wide: Vec::new(),
                }
            }
            HirKind::Look(look) => match look {
                Look::Start | Look::End | Look::WordAscii | Look::WordUnicode => Node::Look(*look),
                _ => return None,
            },
            HirKind::Repetition(rep) => Node::Repeat {
                min: rep.min,
                max: rep.max,
                sub: Box::new(Node::of(&rep.sub)?),
            },
            HirKind::Capture(cap) => Node::of(&cap.sub)?,
            HirKind::Concat(subs) => {
                Node::Concat(subs.iter().map(Node::of).collect::<Option<_>>()?)
            }
            HirKind::Alternation(subs) => {
                Node::Alternation(subs.iter().map(Node::of).collect::<Option<_>>()?)
            }
        })
    }

    /// The fewest and most chars of a match (no most: no bound).
    fn chars(&self) -> (usize, Option<usize>) {
        match self {
            Node::Empty | Node::Look(_) => (0, Some(0)),
            Node::Literal(bytes) => {
                let n = bytes.iter().filter(|b| *b & 0xC0 != 0x80).count();
                (n, Some(n))
            }
            Node::Class { .. } => (1, Some(1)),
            Node::Repeat { min, max, sub } => {
                let (lo, hi) = sub.chars();
                let times = |n: u32| usize::try_from(n).unwrap_or(usize::MAX);
                (
                    lo.saturating_mul(times(*min)),
                    max.zip(hi).and_then(|(m, h)| h.checked_mul(times(m))),
                )
            }
            Node::Concat(subs) => subs.iter().fold((0, Some(0)), |(lo, hi), sub| {
                let (l, h) = sub.chars();
                (
                    lo.saturating_add(l),
                    hi.zip(h).and_then(|(a, b)| a.checked_add(b)),
                )
            }),
            Node::Alternation(subs) => subs
                .iter()
                .map(Node::chars)
                .reduce(|(lo, hi), (l, h)| (lo.min(l), hi.zip(h).map(|(a, b)| a.max(b))))
                .unwrap_or((0, Some(0))),
        }
    }

    /// The ASCII chars a match may open with (one bit each), whether it may open with another
    /// char, and whether it may be empty.
    fn first(&self) -> (u128, bool, bool) {
        match self {
            Node::Empty | Node::Look(_) => (0, false, true),
            Node::Literal(bytes) => match bytes.first() {
                None => (0, false, true),
                Some(&b) if b.is_ascii() => (1 << b, false, false),
                Some(_) => (0, true, false),
            },
            Node::Class { ascii, wide } => (*ascii, !wide.is_empty(), false),
            Node::Repeat { min, max, sub } => {
                if *max == Some(0) {
                    return (0, false, true);
                }
                let (ascii, wide, empty) = sub.first();
                (ascii, wide, empty || *min == 0)
            }
            Node::Concat(subs) => {
                let (mut ascii, mut wide) = (0, false);
                for sub in subs {
                    let (a, w, empty) = sub.first();
                    ascii |= a;
                    wide |= w;
                    if !empty {
                        return (ascii, wide, false);
                    }
                }
                (ascii, wide, true)
            }
            Node::Alternation(subs) => subs.iter().fold((0, false, false), |(a, w, e), sub| {
                let (a2, w2, e2) = sub.first();
                (a | a2, w || w2, e || e2)
            }),
        }
    }
}

/// The byte offsets of `text` at which a match of `node` starting at one of `starts` ends
/// (offsets at char boundaries only: every step consumes whole chars).
fn ends(node: &Node, text: &str, starts: Offsets) -> Offsets {
    let bytes = text.as_bytes();
    match node {
        Node::Empty => starts,
        Node::Literal(lit) => each(starts, |at| {
            bytes[at..].starts_with(lit).then_some(at + lit.len())
        }),
        Node::Class { ascii, wide } => each(starts, |at| class_step(*ascii, wide, text, at)),
        Node::Look(Look::Start) => starts & 1,
        Node::Look(Look::End) => starts & (1 << text.len()),
        Node::Look(look) => each(starts, |at| looks(*look, text, at).then_some(at)),
        Node::Concat(subs) => {
            let mut set = starts;
            for sub in subs {
                if set == 0 {
                    break;
                }
                set = ends(sub, text, set);
            }
            set
        }
        Node::Alternation(subs) => subs
            .iter()
            .fold(0, |set, sub| set | ends(sub, text, starts)),
        Node::Repeat { min, max, sub } if matches!(**sub, Node::Class { .. }) => {
            // A class repeated (`\d{5}`): one path of chars from each start, followed to
            // where the class stops or `max` is reached.
            let Node::Class { ascii, wide } = &**sub else {
                return 0;
            };
            each_all(starts, |at| {
                let mut out: Offsets = if *min == 0 { 1 << at } else { 0 };
                let (mut pos, mut count) = (at, 0u32);
                while max.is_none_or(|max| count < max) {
                    let Some(next) = class_step(*ascii, wide, text, pos) else {
                        break;
                    };
                    pos = next;
                    count += 1;
                    if count >= *min {
                        out |= 1 << pos;
                    }
                }
                out
            })
        }
        Node::Repeat { min, max, sub } => {
            // Offsets after `count` repetitions, for count = 1, 2, …; gathered from `min` on,
            // up to `max`; without a `max`, until a round reaches no offset not gathered yet.
            let mut out = if *min == 0 { starts } else { 0 };
            let mut current = starts;
            let mut count: u32 = 0;
            while max.is_none_or(|max| count < max) {
                current = ends(sub, text, current);
                count += 1;
                if current == 0 {
                    break;
                }
                if count >= *min {
                    let new = current & !out;
                    out |= current;
                    if max.is_none() && new == 0 {
                        break;
                    }
                }
            }
            out
        }
    }
}

/// The offset after the char at `at` of `text` if the class of ASCII chars `ascii` (one bit
/// each) and wider ranges `wide` (sorted, disjoint) holds it.
fn class_step(ascii: u128, wide: &[(char, char)], text: &str, at: usize) -> Option<usize> {
    let b = *text.as_bytes().get(at)?;
    if b.is_ascii() {
        return (ascii & (1 << b) != 0).then_some(at + 1);
    }
    let c = text[at..].chars().next()?;
    let i = wide.partition_point(|r| r.1 < c);
    wide.get(i)
        .is_some_and(|r| r.0 <= c)
        .then_some(at + c.len_utf8())
}

/// The union of the offsets `step` gives for each offset of `set`.
fn each_all(set: Offsets, step: impl Fn(usize) -> Offsets) -> Offsets {
    let mut out: Offsets = 0;
    let mut rest = set;
    while rest != 0 {
        let at = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        out |= step(at);
    }
    out
}

/// Each offset of `set` mapped to the offset `step` gives for it, if any.
fn each(set: Offsets, step: impl Fn(usize) -> Option<usize>) -> Offsets {
    each_all(set, |at| step(at).map_or(0, |end| 1 << end))
}

/// Whether word-boundary assertion `look` (ASCII or Unicode) holds at byte offset `at` of
/// `text`.
fn looks(look: Look, text: &str, at: usize) -> bool {
    let before = text[..at].chars().next_back();
    let after = text[at..].chars().next();
    let word = |c: Option<char>, unicode: bool| {
        c.is_some_and(|c| {
            if unicode {
                regex_syntax::is_word_character(c)
            } else {
                regex_syntax::is_word_byte(u8::try_from(c).unwrap_or(0))
            }
        })
    };
    match look {
        Look::WordAscii => word(before, false) != word(after, false),
        Look::WordUnicode => word(before, true) != word(after, true),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_is_read_and_the_data_is_sorted() {
        let all = formats();
        assert!(
            all.len() > 150 && all.len() < usize::from(u8::MAX),
            "{}",
            all.len()
        );
        for pair in all.windows(2) {
            assert!(pair[0].code < pair[1].code, "{}", pair[1].code);
        }
        for f in all {
            assert!(f.pattern().is_some(), "{}", f.code);
            assert!(
                f.code.len() == 2 && f.code.bytes().all(|b| b.is_ascii_uppercase()),
                "{}",
                f.code
            );
        }
    }

    #[test]
    fn a_country_reads_the_tree_of_its_own_pattern() {
        // A pattern copied from another country with the same source is the tree its source
        // parses to.
        let shared = formats()
            .iter()
            .filter(|f| formats().iter().any(|g| g.zip == f.zip && g.code < f.code))
            .count();
        assert!(shared > 50, "{shared}");
        for f in formats() {
            let own = Pattern::new(&format!("^(?:{})$", f.zip));
            assert_eq!(
                format!("{:?}", f.pattern()),
                format!("{:?}", own.as_ref()),
                "{}",
                f.code
            );
        }
    }

    /// `validates` as it was with `regex`: the pattern compiled, the six digits of `600 078`
    /// read without their space.
    fn validates_by_regex(re: &regex::Regex, candidate: &str) -> bool {
        re.is_match(candidate)
            || (candidate.len() == 7
                && candidate.as_bytes()[3] == b' '
                && candidate
                    .bytes()
                    .enumerate()
                    .all(|(i, b)| i == 3 || b.is_ascii_digit())
                && re.is_match(&candidate.replace(' ', "")))
    }

    /// A fixed-seed xorshift: the same candidates on every run.
    struct Draw(u64);

    impl Draw {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            usize::try_from(self.0 % n.max(1) as u64).unwrap_or(0)
        }
    }

    /// A text drawn from `hir`'s language (assertions skipped, so not always a match): the
    /// first range of a class more often than the others (ASCII digits and letters).
    fn draw(hir: &Hir, rng: &mut Draw, out: &mut String) {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(lit) => out.push_str(std::str::from_utf8(&lit.0).unwrap()),
            HirKind::Class(Class::Unicode(class)) => {
                let ranges = class.ranges();
                let r = if rng.below(3) == 0 {
                    ranges[rng.below(ranges.len())]
                } else {
                    ranges[0]
                };
                let (lo, hi) = (u32::from(r.start()), u32::from(r.end()));
                let c = lo + u32::try_from(rng.below((hi - lo + 1) as usize)).unwrap();
                out.push(char::from_u32(c).unwrap_or(r.start()));
            }
            HirKind::Class(Class::Bytes(class)) => {
                out.push(char::from(class.ranges()[0].start()));
            }
            HirKind::Repetition(rep) => {
                let max = rep.max.unwrap_or(rep.min + 3);
                let count = rep.min as usize + rng.below((max - rep.min + 1) as usize);
                for _ in 0..count {
                    draw(&rep.sub, rng, out);
                }
            }
            HirKind::Capture(cap) => draw(&cap.sub, rng, out),
            HirKind::Concat(subs) => subs.iter().for_each(|sub| draw(sub, rng, out)),
            HirKind::Alternation(subs) => draw(&subs[rng.below(subs.len())], rng, out),
        }
    }

    /// Candidates: texts drawn from every country's pattern, each also with one char
    /// replaced, dropped, doubled or added, cut short, or spaced; fixed ones of several
    /// shapes (digits, letters, both, with a space or a hyphen, of 1 to 12 bytes) and digits
    /// of other scripts.
    fn candidates() -> Vec<String> {
        let mut rng = Draw(0x9e37_79b9_7f4a_7c15);
        let others = [
            '0', '1', '5', '9', 'A', 'Q', 'Z', 'a', ' ', '-', '١', '５', 'é', '\u{a0}',
        ];
        let mut set = std::collections::BTreeSet::new();
        for f in formats() {
            let hir = &regex_syntax::parse(f.zip).unwrap();
            for _ in 0..12 {
                let mut text = String::new();
                draw(hir, &mut rng, &mut text);
                let chars: Vec<char> = text.chars().collect();
                let at = rng.below(chars.len());
                let other = others[rng.below(others.len())];
                let with = |i: usize, c: Option<char>, keep: bool| -> String {
                    let mut v = chars.clone();
                    match (c, keep) {
                        (Some(c), true) => v.insert(i.min(v.len()), c),
                        (Some(c), false) if i < v.len() => v[i] = c,
                        (None, _) if i < v.len() => {
                            v.remove(i);
                        }
                        _ => {}
                    }
                    v.into_iter().collect()
                };
                set.insert(with(at, Some(other), false));
                set.insert(with(at, None, false));
                set.insert(with(at, chars.get(at).copied(), true));
                set.insert(with(rng.below(chars.len() + 1), Some(other), true));
                set.insert(chars[..at].iter().collect());
                set.insert(format!(" {text}"));
                set.insert(format!("{text}{other}"));
                set.insert(text);
            }
        }
        for len in 1..=12 {
            set.insert("1".repeat(len));
            set.insert("A".repeat(len));
            set.insert("A1".repeat(len).chars().take(len).collect());
            set.insert("1A".repeat(len).chars().take(len).collect());
            for gap in [" ", "-"] {
                let half = len / 2;
                set.insert(format!(
                    "{}{gap}{}",
                    "1".repeat(half),
                    "2".repeat(len - half)
                ));
            }
        }
        for fixed in [
            "600 078",
            "400 001",
            "01310-100",
            "D02 X285",
            "SW1A 1AA",
            "AB12",
            "١٢٣٤",
            "١٢٣٤٥",
            "１２３４５",
            "12 345",
            "123 45",
            "",
            " ",
            "1234\n",
            "\u{a0}1234",
            "96799-1234",
        ] {
            set.insert(fixed.to_string());
        }
        set.into_iter().collect()
    }

    #[test]
    fn the_pattern_walk_answers_as_the_compiled_pattern_does() {
        // Every country's pattern on candidates drawn from every pattern (so each country's
        // postcodes, near misses and other countries' postcodes), against `regex`.
        let candidates = candidates();
        assert!(candidates.len() > 5000, "{}", candidates.len());
        let mut accepted = 0;
        for f in formats() {
            let re = regex::Regex::new(&format!("^(?:{})$", f.zip)).unwrap();
            for c in &candidates {
                let by_regex = validates_by_regex(&re, c);
                assert_eq!(f.validates(c), by_regex, "{} {c:?}", f.code);
                accepted += usize::from(by_regex);
            }
        }
        // The candidates are postcodes of many countries, and many are no postcode.
        let total = candidates.len() * formats().len();
        assert!(
            accepted > 20_000 && accepted < total / 2,
            "{accepted} of {total}"
        );
    }

    #[test]
    fn a_set_of_formats_turns_away_only_what_none_of_them_validates() {
        // Sets of formats (every country alone, runs of neighbours in the data, all of them)
        // on the candidates drawn from every pattern: whatever one validates, the set may.
        let candidates = candidates();
        let all: Vec<&Format> = formats().iter().collect();
        let mut sets: Vec<Vec<&Format>> = all.iter().map(|f| vec![*f]).collect();
        sets.extend(all.chunks(7).map(<[&Format]>::to_vec));
        sets.push(all.clone());
        let mut turned_away = 0;
        for set in &sets {
            let any = AnyOf::new(set);
            for c in &candidates {
                let valid = set.iter().any(|f| f.validates(c));
                let may = any.may_validate(c);
                assert!(
                    may || !valid,
                    "{:?} {c:?}",
                    set.iter().map(|f| f.code).collect::<Vec<_>>()
                );
                turned_away += usize::from(!may);
            }
        }
        // It answers for most candidates of a single country.
        assert!(
            turned_away > candidates.len() * all.len() / 2,
            "{turned_away}"
        );
    }

    #[test]
    fn the_pattern_walk_reads_repetitions_alternations_and_boundaries_as_regex() {
        // Syntax beyond the data's, so a change to the walk is held to `regex` on more than
        // the patterns of today's data.
        let sources = [
            r"\d{2,4}",
            r"a*b",
            r"(?:ab)+",
            r"(?:a|ab)(?:c|bcd)",
            r"(?:)*x",
            r"x(?:a?){3}y",
            r"\bA1\b",
            r"(?-u:\b)é",
            r"[[:alpha:]]{0,3}\d?",
            r"\w+-\w",
            r".\b.",
            r"\w(?-u:\b)\w",
            r"a?^b",
            r"a$b?",
        ];
        let texts = [
            "", "1", "12", "123", "1234", "12345", "b", "ab", "aab", "abab", "ababa", "abcd",
            "acd", "abbcd", "x", "xy", "xay", "xaaay", "xaaaay", "A1", " A1", "é", "ab1", "abc1",
            "abcd1", "a-b", "é-ü", "١٢", "1-", "éa", "-a", "aa", "a١", "ж-",
        ];
        for source in sources {
            // Some have no longest match: the walk itself, without `Pattern`'s length bound.
            let hir = regex_syntax::parse(&format!("^(?:{source})$")).unwrap();
            let node = Node::of(&hir).unwrap();
            let re = regex::Regex::new(&format!("^(?:{source})$")).unwrap();
            let pattern = Pattern::new(&format!("^(?:{source})$"));
            let (min_chars, max_chars) = node.chars();
            let (first_ascii, first_wide, _) = node.first();
            for text in texts {
                let matches = re.is_match(text);
                let walked = ends(&node, text, 1) & (1 << text.len()) != 0;
                assert_eq!(walked, matches, "{source} {text:?}");
                // The tests before the walk never turn a match away.
                if let Some(pattern) = &pattern {
                    assert_eq!(pattern.is_match(text), matches, "{source} {text:?}");
                }
                let chars = text.chars().count();
                let opens = text.chars().next().is_none_or(|c| {
                    u8::try_from(c)
                        .ok()
                        .filter(u8::is_ascii)
                        .map_or(first_wide, |b| first_ascii & (1 << b) != 0)
                });
                let fits = chars >= min_chars && max_chars.is_none_or(|max| chars <= max);
                assert!(!matches || (opens && fits), "{source} {text:?}");
            }
        }
    }

    #[test]
    fn postcodes_of_several_countries_validate_for_their_country_only() {
        let ok = |code: &str, zip: &str| format(code).is_some_and(|f| f.validates(zip));
        // India (PIN, also printed 3 + 3), Brazil (CEP), Ireland (Eircode), South Africa,
        // Denmark, Mexico, Singapore.
        assert!(ok("IN", "400001") && ok("IN", "400 001"));
        assert!(ok("BR", "01310-100") && ok("BR", "01310100"));
        assert!(ok("IE", "D02 X285"));
        assert!(ok("ZA", "8001") && ok("DK", "2100"));
        assert!(ok("MX", "06600") && ok("SG", "018956"));
        assert!(!ok("IN", "40001") && !ok("BR", "0131-100") && !ok("ZA", "80011"));
        assert!(!ok("DE", "1234") && !ok("SG", "12345") && !ok("IN", "40 0001"));
    }

    #[test]
    fn country_names_found_as_by_a_scan_of_the_data() {
        let scan = |name: &str| {
            formats()
                .iter()
                .find(|f| f.name.eq_ignore_ascii_case(name))
                .map(|f| f.code)
        };
        for f in formats() {
            // The map's length bound holds for every name of the data.
            assert!(f.name.len() <= 64, "{}", f.name);
            for name in [f.name.to_string(), f.name.to_ascii_lowercase()] {
                assert_eq!(country_of_name(&name), scan(&name), "{name}");
                assert!(country_of_name(&name).is_some());
            }
        }
        assert_eq!(country_of_name("South Africa"), Some("ZA"));
        assert_eq!(country_of_name("India"), Some("IN"));
        // Words of a name's first letter and length (its bucket) that are no name.
        for other in [
            "Indiana",
            "",
            "South  Africa",
            "Ĩndia",
            "Indio",
            "Spaim",
            "1ndia",
        ] {
            assert_eq!(country_of_name(other), scan(other), "{other}");
            assert_eq!(country_of_name(other), None);
        }
    }

    #[test]
    fn postcode_names_found_as_by_a_scan_of_the_data() {
        let scan = |label: &str| {
            let mut named = formats().iter().filter(|f| f.zip_name == label);
            match (named.next(), named.next()) {
                (Some(only), None) => Some(only.code),
                _ => None,
            }
        };
        let mut labels: Vec<&str> = formats().iter().map(|f| f.zip_name).collect();
        labels.extend(["", "Pin", "pincode", "postcode", "zip code"]);
        for label in labels {
            assert_eq!(label_country(label), scan(label), "{label}");
        }
    }

    #[test]
    fn layouts_follow_the_format() {
        let layout = |code: &str| format(code).map(Format::layout);
        assert_eq!(layout("DE"), Some(Layout::ZipFirst));
        assert_eq!(layout("MX"), Some(Layout::ZipFirst));
        assert_eq!(layout("PH"), Some(Layout::ZipFirst));
        assert_eq!(layout("IN"), Some(Layout::ZipAfter));
        assert_eq!(layout("SG"), Some(Layout::ZipAfter));
        assert_eq!(layout("BR"), Some(Layout::ZipLine));
        assert_eq!(layout("ZA"), Some(Layout::ZipLine));
        assert_eq!(format("IN").map(|f| f.zip_name), Some("pin"));
        assert_eq!(label_country("pin"), Some("IN"));
        assert_eq!(label_country("eircode"), Some("IE"));
        // `zip` names the postcodes of the US and its territories.
        assert_eq!(label_country("zip"), None);
    }
}
