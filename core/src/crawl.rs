//! The crawl planner: from the homepage's links, choose at most [`MAX_EXTRA_PAGES`] same-site
//! pages that look like contact, imprint/legal-notice, about or support pages, and list the
//! contact-like pages for the result's `contactPages` (docs/contract.md "Fetching";
//! keywords and pick rule from docs/extraction.md).
//!
//! Links are scored by anchor text (weighted double) and URL path tokens, against the
//! lexicon's page-type words (`page.contact`, `page.imprint`, … in every language of
//! `core/lexicon/`, docs/extraction.md "Lexicon"); deep paths and query strings lose points.
//! Pure functions: the caller fetches.

use std::borrow::Cow;
use std::collections::btree_map::{BTreeMap, Entry};
use std::collections::BTreeSet;
use std::sync::OnceLock;

use url::Url;

use crate::lexicon::{self, Class};
use crate::site::registrable_domain;

/// Extra pages fetched besides the homepage (docs/contract.md).
pub const MAX_EXTRA_PAGES: usize = 3;
/// Longest `contactPages` list (docs/contract.md "Result fields").
pub const MAX_CONTACT_PAGES: usize = 10;
/// Distinct crawl candidates (contact-like same-site pages) kept per page, in document order:
/// a bound on the planner's work for a page of crafted links (docs/operations.md, the per-page
/// caps).
pub const MAX_CRAWL_CANDIDATES: usize = 1_000;

/// A link of a fetched page, resolved to an absolute URL, with its anchor text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageLink {
    /// Absolute URL without fragment.
    pub url: Url,
    /// Anchor text, image alt text and title, white space collapsed.
    pub text: String,
    /// Whether the link sits in the page footer.
    pub in_footer: bool,
}

/// What a page is for, by its link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Intent {
    /// About, company, team pages.
    About,
    /// Contact, locations, directions pages.
    Contact,
    /// Imprint, legal notice.
    Legal,
    /// Privacy policy (names the data controller in the EU).
    Privacy,
    /// Support, help, customer service.
    Support,
    /// Terms and conditions, terms of use (they name the contracting party).
    Terms,
}

/// The order in which the planner spends its budget (docs/extraction.md, "Crawl plan"):
/// one page of each kind in this order, then the other candidates, tier by tier, best score
/// first. Contact pages first; then the pages that name the operator with its address
/// (imprint, legal notice) and about pages; then privacy policies and terms, which name the
/// data controller or contracting party; support pages last.
const PICK_ORDER: [Intent; 6] = [
    Intent::Contact,
    Intent::Legal,
    Intent::About,
    Intent::Privacy,
    Intent::Terms,
    Intent::Support,
];

/// The tier of an intent in [`PICK_ORDER`] (0 is fetched first).
fn tier(intent: Intent) -> u8 {
    match intent {
        Intent::Contact => 0,
        Intent::Legal | Intent::About => 1,
        Intent::Privacy | Intent::Terms => 2,
        Intent::Support => 3,
    }
}

/// A scored candidate page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The page URL.
    pub url: Url,
    /// Its intent.
    pub intent: Intent,
    /// Higher is better.
    pub score: i32,
}

/// The planner's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrawlPlan {
    /// Pages to fetch after the homepage, in priority order; at most [`MAX_EXTRA_PAGES`].
    pub fetch: Vec<Url>,
    /// Contact-like pages, best first; at most [`MAX_CONTACT_PAGES`].
    pub contact_pages: Vec<Url>,
}

/// Plans the extra fetches for the site whose homepage is `home` and has `links`: the best
/// candidate of each kind in [`PICK_ORDER`], then the remaining candidates by [`tier`] and
/// score, until [`MAX_EXTRA_PAGES`] are chosen. Whenever there are candidates the budget is
/// spent on them; a site without a contact page gets its imprint, about, privacy or terms
/// pages. `contact_pages` lists the candidates other than privacy and terms pages.
pub fn plan(home: &Url, links: &[PageLink]) -> CrawlPlan {
    let candidates = candidates(home, links);
    let mut fetch: Vec<Url> = Vec::new();
    for intent in PICK_ORDER {
        if fetch.len() >= MAX_EXTRA_PAGES {
            break;
        }
        if let Some(c) = candidates.iter().find(|c| c.intent == intent) {
            fetch.push(c.url.clone());
        }
    }
    // The rest, tier by tier; the sort is stable, so best score first within a tier.
    let mut rest: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| !fetch.contains(&c.url))
        .collect();
    rest.sort_by_key(|c| tier(c.intent));
    for c in rest {
        if fetch.len() >= MAX_EXTRA_PAGES {
            break;
        }
        fetch.push(c.url.clone());
    }
    let contact_pages = candidates
        .iter()
        .filter(|c| !matches!(c.intent, Intent::Privacy | Intent::Terms))
        .map(|c| c.url.clone())
        .take(MAX_CONTACT_PAGES)
        .collect();
    CrawlPlan {
        fetch,
        contact_pages,
    }
}

/// Every same-site link that looks like a contact/legal/about/support/privacy page, scored and
/// sorted best first (ties keep document order), one entry per URL.
pub fn candidates(home: &Url, links: &[PageLink]) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let Some(home_host) = home.host_str() else {
        return out;
    };
    let home_site = registrable_domain(home_host);
    // One entry per page (`page_key`), found in an ordered map: a page has up to 5 000 links.
    let mut seen: BTreeMap<PageKey, usize> = BTreeMap::new();
    // The links read so far, as (URL, text, in the footer): a page repeats its menus, and a
    // link read again changes nothing (same score, and its page is in `out` already or was
    // left out), so it is not scored again.
    let mut read: BTreeSet<(&str, &str, bool)> = BTreeSet::new();
    // The normalised words of a link, one buffer for every link.
    let mut words = Vec::new();
    for link in links {
        // Pacing (`crate::pace`): scoring a link is about a microsecond.
        if !crate::pace::work(link.url.as_str().len() + 256) {
            break;
        }
        if !read.insert((link.url.as_str(), link.text.as_str(), link.in_footer)) {
            continue;
        }
        let url = &link.url;
        let same_site = url
            .host_str()
            .is_some_and(|h| h == home_host || registrable_domain(h) == home_site);
        if !same_site || is_same_page(home, url) || is_excluded(url) {
            continue;
        }
        let Some((intent, mut score)) = score_link_with(url, &link.text, &mut words) else {
            continue;
        };
        if link.in_footer {
            score += 1;
        }
        match seen.entry(page_key(url)) {
            Entry::Occupied(at) => {
                let existing = &mut out[*at.get()];
                if score > existing.score {
                    existing.score = score;
                    existing.intent = intent;
                }
            }
            Entry::Vacant(slot) => {
                if out.len() < MAX_CRAWL_CANDIDATES {
                    slot.insert(out.len());
                    out.push(Candidate {
                        url: url.clone(),
                        intent,
                        score,
                    });
                }
            }
        }
    }
    out.sort_by_key(|c| std::cmp::Reverse(c.score));
    out
}

/// Scores one link: the best intent by keyword, with text weighted over path, minus depth and
/// query penalties. `None` when no keyword matches.
pub fn score_link(url: &Url, text: &str) -> Option<(Intent, i32)> {
    score_link_with(url, text, &mut Vec::new())
}

/// [`score_link`], the text and the path normalised into `words` (a buffer the caller keeps
/// for the next link; cleared first).
fn score_link_with(url: &Url, text: &str, words: &mut Vec<u8>) -> Option<(Intent, i32)> {
    let path = url.path();
    words.clear();
    words.reserve(text.len() + path.len() + 8);
    normalise_bytes_into(words, text);
    let text_len = words.len();
    normalise_bytes_into(words, path);
    let (text, path) = words.split_at(text_len);
    let in_text = words_intents(text);
    let in_path = words_intents(path);
    if !in_text.contains(&true) && !in_path.contains(&true) {
        return None;
    }
    // The same for every intent: depth and query penalties, and long anchor text (a sentence
    // or an article title, not a menu entry). The normalised text is words with one space
    // between two, and no other white space.
    let depth = url
        .path_segments()
        .map_or(0, |s| s.filter(|s| !s.is_empty()).count());
    let mut penalty = 2 * (depth.saturating_sub(1) as i32).min(4);
    if url.query().is_some() {
        penalty += 2;
    }
    let text_words = if text.is_empty() {
        0
    } else {
        1 + text.iter().filter(|&&b| b == b' ').count()
    };
    if text_words > 6 {
        penalty += 5;
    }
    let mut best: Option<(Intent, i32)> = None;
    for (index, (intent, weight, _)) in ROWS.iter().enumerate() {
        let (in_text, in_path) = (in_text[index], in_path[index]);
        if !in_text && !in_path {
            continue;
        }
        let score = weight * (2 * i32::from(in_text) + i32::from(in_path)) - penalty;
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((*intent, score));
        }
    }
    best.filter(|(_, s)| *s > 0)
}

/// The keyword rows: each intent with its weight and the lexicon class of its words
/// (docs/extraction.md, "Crawl plan" and "Lexicon"). A link's best row is its intent.
/// On a tie between rows the first wins (`Privacy Policy and Terms` is a privacy page).
const ROWS: [(Intent, i32, Class); 6] = [
    (Intent::Contact, 10, Class::PageContact),
    (Intent::Legal, 8, Class::PageImprint),
    (Intent::About, 6, Class::PageAbout),
    (Intent::Privacy, 5, Class::PagePrivacy),
    (Intent::Terms, 5, Class::PageTerms),
    (Intent::Support, 4, Class::PageSupport),
];

/// For each row of [`ROWS`], its phrases: the lexicon's entries of the row's class in every
/// language, [`normalise`]d (lower case, accents folded, words separated by one space),
/// without repeats. Built once.
fn keywords() -> &'static [Vec<String>; ROWS.len()] {
    static KEYWORDS: OnceLock<[Vec<String>; ROWS.len()]> = OnceLock::new();
    KEYWORDS.get_or_init(|| {
        ROWS.map(|(_, _, class)| {
            let mut phrases: Vec<String> = Vec::new();
            for word in lexicon::words(class) {
                let mut phrase = String::with_capacity(word.len());
                normalise_into(&mut phrase, word);
                if !phrase.is_empty() && !phrases.contains(&phrase) {
                    phrases.push(phrase);
                }
            }
            phrases
        })
    })
}

/// Whether `s` (a link's text, or the path its URL has) may hold a [`keywords`] phrase:
/// `false` only when [`score_link`] finds none in it, so a caller can leave such a link out
/// before resolving it. Some word of `s`, as [`normalise`] reads it, must be the longest word
/// of a phrase, or that word with `us` glued on. ASCII words are read in place; only a word
/// with a letter beyond ASCII is folded first.
pub(crate) fn may_hold_keyword(s: &str) -> bool {
    let index = LongestWords::get();
    let bytes = s.as_bytes();
    // The run of ASCII letters and digits read so far starts at `start`.
    let mut start = 0;
    // Eight ASCII bytes at a time: only their separators are visited (a link text is mostly
    // letters). A word with a byte other than ASCII is left to the byte loop below.
    let mut from = 0;
    while let Some(word) = eight_bytes(bytes, from).filter(|w| w & HIGHS == 0) {
        let mut separators = !alphanumeric_bytes(word) & HIGHS;
        while separators != 0 {
            let at = from + (separators.trailing_zeros() / 8) as usize;
            if at > start && index.holds(&bytes[start..at]) {
                return true;
            }
            start = at + 1;
            separators &= separators - 1;
        }
        from += 8;
    }
    // Then one byte at a time: a run of ASCII letters and digits and characters beyond ASCII
    // ends at another ASCII byte. A run with such characters (`folds`) is folded, and split
    // where a character `fold_non_ascii` drops stands, by `is_keyword_run`.
    let mut folds = false;
    let mut at = from;
    while let Some(&b) = bytes.get(at) {
        if !b.is_ascii() {
            folds = true;
            // `at` starts a character: its first byte tells its length.
            at += match b {
                0xF0.. => 4,
                0xE0.. => 3,
                _ => 2,
            };
            continue;
        }
        if SLOTS[usize::from(b)] < 36 {
            at += 1;
            continue;
        }
        if at > start && is_keyword_run(index, s, start..at, folds) {
            return true;
        }
        at += 1;
        start = at;
        folds = false;
    }
    bytes.len() > start && is_keyword_run(index, s, start..bytes.len(), folds)
}

/// Whether a word of `s[run]` (ASCII letters and digits, and when `folds`, characters beyond
/// ASCII) is one of `index`'s: an ASCII run is one word, read in place; another is folded
/// character by character as [`normalise`] folds it, a character it drops ending a word (at
/// most 64 bytes, longer than any keyword).
#[inline(always)]
fn is_keyword_run(index: &LongestWords, s: &str, run: std::ops::Range<usize>, folds: bool) -> bool {
    if !folds {
        return index.holds(&s.as_bytes()[run]);
    }
    let letters = s.get(run).unwrap_or_default().chars().map(|ch| {
        if ch.is_ascii() {
            Some(ch)
        } else {
            fold_non_ascii(ch)
        }
    });
    holds_folded_word(index, letters)
}

/// Whether a word of `letters` is one of `index`'s: each `Some` a folded letter of a word, each
/// `None` a character that ends one.
#[inline(always)]
fn holds_folded_word(index: &LongestWords, letters: impl Iterator<Item = Option<char>>) -> bool {
    let mut word = FoldedWord::default();
    for letter in letters {
        match letter {
            Some(letter) => word.push(letter),
            None => {
                if word.is_in(index) {
                    return true;
                }
                word.clear();
            }
        }
    }
    word.is_in(index)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = ONES * 0x80;

/// The eight bytes of `bytes` from `at` as one little-endian word, if there are eight.
#[inline(always)]
fn eight_bytes(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

/// The high bit of each byte of `word` (eight bytes, little-endian, all ASCII) that is an
/// ASCII letter or digit, and no other bit.
#[inline(always)]
fn alphanumeric_bytes(word: u64) -> u64 {
    // Per byte, with no carry or borrow between bytes (each is at most 0x7F): a byte at or
    // below `hi` keeps the high bit of `0x7F + hi + 1 - byte`, one at or above `lo` sets it in
    // `byte + 0x80 - lo`. Letters are read folded to lower case (`| 0x20` maps only
    // `A`–`Z` into `a`–`z`).
    let within = |byte: u64, lo: u64, hi: u64| {
        (ONES * (0x80 + hi)).wrapping_sub(byte) & byte.wrapping_add(ONES * (0x80 - lo))
    };
    (within(word, 0x30, 0x39) | within(word | (ONES * 0x20), 0x61, 0x7a)) & HIGHS
}

/// [`may_hold_keyword`] for text with characters other than ASCII as it was read before ASCII
/// words were read in place after the first such character (the tests' reference): each word
/// folded character by character as [`normalise`] folds it (at most 64 bytes, longer than any
/// keyword), looked up among the ASCII words or the others.
#[cfg(test)]
fn may_hold_keyword_folded(s: &str) -> bool {
    let letters = s.chars().map(|ch| {
        if ch.is_ascii() {
            Some(ch).filter(char::is_ascii_alphanumeric)
        } else {
            fold_non_ascii(ch)
        }
    });
    holds_folded_word(LongestWords::get(), letters)
}

/// A word being folded by [`may_hold_keyword`]: its folded characters as UTF-8 (ASCII
/// letters lower-cased), whether they are all ASCII, and whether they fit in 64 bytes (a
/// longer word is in no keyword).
struct FoldedWord {
    bytes: [u8; 64],
    len: usize,
    ascii: bool,
    fits: bool,
}

impl Default for FoldedWord {
    fn default() -> Self {
        FoldedWord {
            bytes: [0; 64],
            len: 0,
            ascii: true,
            fits: true,
        }
    }
}

impl FoldedWord {
    /// Empties the word (its bytes past `len` are never read).
    fn clear(&mut self) {
        (self.len, self.ascii, self.fits) = (0, true, true);
    }

    fn push(&mut self, letter: char) {
        let letter = letter.to_ascii_lowercase();
        match self.bytes.get_mut(self.len..self.len + letter.len_utf8()) {
            Some(slot) => {
                letter.encode_utf8(slot);
                self.len += letter.len_utf8();
                self.ascii &= letter.is_ascii();
            }
            None => self.fits = false,
        }
    }

    /// Whether the word is one of `index`'s.
    fn is_in(&self, index: &LongestWords) -> bool {
        let bytes = &self.bytes[..self.len];
        self.fits
            && if self.ascii {
                index.holds(bytes)
            } else {
                // As for ASCII words, `us` may be glued on.
                let bare = bytes.strip_suffix(b"us").unwrap_or(bytes);
                index.others.binary_search(&bytes).is_ok()
                    || index.others.binary_search(&bare).is_ok()
            }
    }
}

/// The longest word of each [`keywords`] phrase. Those of ASCII letters and digits (2 to 29
/// bytes) are grouped by their first two bytes, with a bit per length (the word's, and with
/// `us` glued on) for each group: most words of a text are turned away by that bit. The
/// others (Greek, Japanese, Hebrew, Latin letters without an ASCII fold) are a sorted list.
struct LongestWords {
    /// The ASCII words, sorted.
    words: Vec<&'static [u8]>,
    /// For each pair of leading bytes ([`LongestWords::group`]), the range of `words` that
    /// start with them, the lengths of those words and their last bytes ([`SLOTS`]; `s` for
    /// a word with `us` glued on), one bit each.
    groups: Vec<(u16, u16, u32, u64)>,
    /// One bit for the [`signature`] of each word, and of each word with `us` glued on: a run
    /// whose bit is clear is none of them, and its group's words are not read.
    signatures: Box<[u64; SIGNATURE_WORDS]>,
    /// The other words, folded as [`normalise`] folds them, sorted.
    others: Vec<&'static [u8]>,
}

impl LongestWords {
    fn get() -> &'static LongestWords {
        static INDEX: OnceLock<LongestWords> = OnceLock::new();
        INDEX.get_or_init(|| {
            let (mut words, mut others): (Vec<&'static [u8]>, Vec<&'static [u8]>) = keywords()
                .iter()
                .flatten()
                .map(|phrase| {
                    phrase
                        .split(' ')
                        .rev()
                        .max_by_key(|word| word.len())
                        .unwrap_or(phrase)
                        .as_bytes()
                })
                .partition(|word| word.is_ascii());
            for list in [&mut words, &mut others] {
                list.sort_unstable();
                list.dedup();
            }
            let mut groups = vec![(0u16, 0u16, 0u32, 0u64); 36 * 36];
            for (at, word) in words.iter().enumerate() {
                let Some(group) = LongestWords::group(word).and_then(|g| groups.get_mut(g)) else {
                    continue;
                };
                let at = u16::try_from(at).unwrap_or(u16::MAX);
                if group.0 == group.1 {
                    (group.0, group.1) = (at, at);
                }
                group.1 = at.saturating_add(1);
                for len in [word.len(), word.len() + 2] {
                    group.2 |= 1 << len.min(31);
                }
                for last in [word.last().copied().unwrap_or(0), b's'] {
                    group.3 |= 1 << SLOTS[usize::from(last)];
                }
            }
            let mut signatures = Box::new([0u64; SIGNATURE_WORDS]);
            for word in &words {
                let mut glued = word.to_vec();
                glued.extend_from_slice(b"us");
                for run in [word, glued.as_slice()] {
                    let key = signature(run);
                    signatures[key / 64] |= 1 << (key % 64);
                }
            }
            LongestWords {
                words,
                groups,
                signatures,
                others,
            }
        })
    }

    /// The group of a word by its first two bytes (ASCII letters and digits, any case).
    #[inline]
    fn group(word: &[u8]) -> Option<usize> {
        let (first, second) = (
            SLOTS[usize::from(*word.first()?)],
            SLOTS[usize::from(*word.get(1)?)],
        );
        (first < 36 && second < 36).then(|| usize::from(first) * 36 + usize::from(second))
    }

    /// Whether `run` (ASCII letters and digits) is one of the words, or one with `us` after
    /// it, in any ASCII case. Most runs are turned away by their group's lengths and last
    /// bytes, inline.
    #[inline(always)]
    fn holds(&self, run: &[u8]) -> bool {
        let Some(&(from, to, lengths, lasts)) =
            LongestWords::group(run).and_then(|g| self.groups.get(g))
        else {
            return false;
        };
        run.len() <= 31
            && lengths & (1 << run.len()) != 0
            && run
                .last()
                .is_some_and(|&last| lasts & (1 << SLOTS[usize::from(last)]) != 0)
            && {
                let key = signature(run);
                self.signatures[key / 64] & (1 << (key % 64)) != 0
            }
            && self.holds_in(from, to, run)
    }

    /// [`LongestWords::holds`] past the lengths: `run` against `words[from..to]`.
    #[inline(never)]
    fn holds_in(&self, from: u16, to: u16, run: &[u8]) -> bool {
        self.words
            .get(usize::from(from)..usize::from(to))
            .unwrap_or_default()
            .iter()
            .any(|word| match run.split_at_checked(word.len()) {
                Some((head, rest)) => {
                    (rest.is_empty() || rest.eq_ignore_ascii_case(b"us"))
                        && head.eq_ignore_ascii_case(word)
                }
                None => false,
            })
    }
}

/// The 64-bit words of [`LongestWords::signatures`]: 2^15 bits, a few hundred set.
const SIGNATURE_WORDS: usize = 512;

/// A run of ASCII letters and digits (two bytes or more) as one of 2^15 keys, from its
/// length, its first three bytes and its last, ASCII case ignored (`| 0x20` maps only
/// `A`–`Z` into `a`–`z` among letters and digits).
#[inline(always)]
fn signature(run: &[u8]) -> usize {
    let byte = |at: usize| u32::from(run.get(at).copied().unwrap_or(0) | 0x20);
    let last = run.last().copied().unwrap_or(0) | 0x20;
    let bits = ((run.len() as u32) << 24)
        ^ (byte(0) << 16)
        ^ (byte(1) << 8)
        ^ byte(2)
        ^ (u32::from(last) << 4);
    (bits.wrapping_mul(0x9E37_79B1) >> 17) as usize
}

/// ASCII letters (any case) to 0–25, digits to 26–35, other bytes to 36: a word's group in
/// [`LongestWords`], and the test for a letter or digit in [`may_hold_keyword`].
const SLOTS: [u8; 256] = {
    let mut slots = [36; 256];
    let mut b = 0;
    while b < 26 {
        slots[b'a' as usize + b] = b as u8;
        slots[b'A' as usize + b] = b as u8;
        b += 1;
    }
    let mut d = 0;
    while d < 10 {
        slots[b'0' as usize + d] = 26 + d as u8;
        d += 1;
    }
    slots
};

/// Lower-case, accents stripped, letters and digits only (others become spaces).
#[cfg(test)]
fn normalise(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    normalise_into(&mut out, s);
    out
}

/// [`normalise`], appended to `out` with no space before the first word of `s` (a caller
/// that appends two texts reads them as two slices). Runs of ASCII letters and digits are
/// copied whole, then lower-cased.
fn normalise_into(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    // A separator read since the last word character (written only between two words of `s`).
    let mut separated = false;
    let mut wrote = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let run_start = i;
        while bytes.get(i).is_some_and(u8::is_ascii_alphanumeric) {
            i += 1;
        }
        let folded = if i > run_start {
            None
        } else if b < 0x80 {
            i += 1;
            separated = true;
            continue;
        } else {
            let ch = s[i..].chars().next().unwrap_or(' ');
            i += ch.len_utf8();
            match fold_non_ascii(ch) {
                Some(folded) => Some(folded),
                None => {
                    separated = true;
                    continue;
                }
            }
        };
        if separated && wrote {
            out.push(' ');
        }
        separated = false;
        wrote = true;
        match folded {
            Some(ch) => out.push(ch),
            None => {
                let at = out.len();
                out.push_str(&s[run_start..i]);
                out[at..].make_ascii_lowercase();
            }
        }
    }
}

/// [`normalise_into`] as bytes, one table look-up per ASCII byte: each letter or digit
/// written lower-cased, a space written before a word that follows a separator (none before
/// the first word of `s`).
fn normalise_bytes_into(out: &mut Vec<u8>, s: &str) {
    /// An ASCII letter or digit lower-cased; 0 for the other ASCII bytes (separators).
    const LOWER: [u8; 128] = {
        let mut lower = [0; 128];
        let mut b = 0;
        while b < 128 {
            if (b as u8).is_ascii_alphanumeric() {
                lower[b] = (b as u8).to_ascii_lowercase();
            }
            b += 1;
        }
        lower
    };
    let bytes = s.as_bytes();
    let first = out.len();
    // A separator read since the last word character.
    let mut separated = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if let Some(&lower) = LOWER.get(usize::from(b)) {
            i += 1;
            if lower == 0 {
                separated = true;
                continue;
            }
            if separated && out.len() > first {
                out.push(b' ');
            }
            separated = false;
            out.push(lower);
            continue;
        }
        let ch = s[i..].chars().next().unwrap_or(' ');
        i += ch.len_utf8();
        match fold_non_ascii(ch) {
            Some(folded) => {
                if separated && out.len() > first {
                    out.push(b' ');
                }
                separated = false;
                out.extend_from_slice(folded.encode_utf8(&mut [0; 4]).as_bytes());
            }
            None => separated = true,
        }
    }
}

/// A non-ASCII character as [`normalise`] keeps it: lower-cased, the diacritics of the
/// Latin letters of the lexicon's languages stripped (`ç`, `ş`, `ř`, `ł`, `ő`, `ð`, dotless
/// `ı`, …: a URL path writes `iletisim` for `İletişim`), Greek tonos and final sigma folded
/// (`ΕΠΙΚΟΙΝΩΝΙΑ` is `επικοινωνία`); `None` for a separator (anything but a letter or digit).
fn fold_non_ascii(ch: char) -> Option<char> {
    // The Latin-1 letters (`À`–`ÿ`), most non-ASCII letters of link texts, from a table.
    if let Some(&folded) = LATIN1_FOLDED.get((u32::from(ch) as usize).wrapping_sub(0xC0)) {
        return folded;
    }
    fold_lower_case(ch.to_lowercase().next().unwrap_or(' '))
}

/// [`fold_non_ascii`] of `À` to `ÿ` (U+00C0 to U+00FF), from U+00C0 on: `×` and `÷` are
/// separators; a capital is its small letter less 0x20; the letters with a diacritic fold to
/// their ASCII letter, `ß` to `s`; `æ`, `þ` stay.
const LATIN1_FOLDED: [Option<char>; 64] = {
    let mut table = [None; 64];
    let mut at = 0;
    while at < 64 {
        // Capitals (`À`–`Þ`) to their small letters (`à`–`þ`).
        let small = if at < 0x1F { at + 0x20 } else { at } as u8;
        let folded = match small + 0xC0 {
            0xE0..=0xE5 => 'a',
            0xE7 => 'c',
            0xE8..=0xEB => 'e',
            0xEC..=0xEF => 'i',
            0xF0 => 'd',
            0xF1 => 'n',
            0xF2..=0xF6 | 0xF8 => 'o',
            0xF9..=0xFC => 'u',
            0xFD | 0xFF => 'y',
            0xDF => 's',
            // `æ`, `þ`, and `×`/`÷` (set apart below).
            other => other as char,
        };
        table[at as usize] = Some(folded);
        at += 1;
    }
    // `×` (U+00D7) and `÷` (U+00F7) are no letters.
    table[0x17] = None;
    table[0x37] = None;
    table
};

/// [`fold_non_ascii`] past the lower-casing: `lower` folded.
fn fold_lower_case(lower: char) -> Option<char> {
    match lower {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ă' | 'ą' | 'ā' => Some('a'),
        'ç' | 'č' | 'ć' => Some('c'),
        'ď' | 'đ' | 'ð' => Some('d'),
        'è' | 'é' | 'ê' | 'ë' | 'ě' | 'ę' | 'ē' | 'ė' => Some('e'),
        'ğ' => Some('g'),
        'ì' | 'í' | 'î' | 'ï' | 'ı' | 'ī' => Some('i'),
        'ľ' | 'ĺ' | 'ł' => Some('l'),
        'ñ' | 'ň' | 'ń' => Some('n'),
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ő' | 'ø' | 'ō' => Some('o'),
        'ř' | 'ŕ' => Some('r'),
        'ß' | 'š' | 'ş' | 'ś' | 'ș' => Some('s'),
        'ť' | 'ț' | 'ţ' => Some('t'),
        'ù' | 'ú' | 'û' | 'ü' | 'ů' | 'ű' | 'ū' => Some('u'),
        'ý' | 'ÿ' => Some('y'),
        'ž' | 'ź' | 'ż' => Some('z'),
        'ά' => Some('α'),
        'έ' => Some('ε'),
        'ή' => Some('η'),
        'ί' | 'ϊ' | 'ΐ' => Some('ι'),
        'ό' => Some('ο'),
        'ύ' | 'ϋ' | 'ΰ' => Some('υ'),
        'ώ' => Some('ω'),
        'ς' => Some('σ'),
        c if c.is_alphanumeric() => Some(c),
        _ => None,
    }
}

/// [`keywords`]' phrases, each with its first word and row, sorted; found by the first byte
/// and the length of their first word (a table of ranges), so that a word of a link is
/// compared only with the first words that have its first byte and length.
struct PhraseIndex {
    /// (first word, phrase, row), sorted by the first word's first byte and length.
    phrases: Vec<(&'static [u8], &'static [u8], usize)>,
    /// For each first byte and length (lengths of 31 bytes or more share the last slot), the
    /// range of `phrases` whose first word has them.
    ranges: Box<[[(u16, u16); 32]; 256]>,
}

impl PhraseIndex {
    fn get() -> &'static PhraseIndex {
        static INDEX: OnceLock<PhraseIndex> = OnceLock::new();
        INDEX.get_or_init(|| {
            let mut phrases: Vec<(&'static [u8], &'static [u8], usize)> = keywords()
                .iter()
                .enumerate()
                .flat_map(|(row, phrases)| {
                    phrases.iter().map(move |phrase| {
                        let phrase = phrase.as_bytes();
                        let first = phrase.split(|&b| b == b' ').next().unwrap_or(phrase);
                        (first, phrase, row)
                    })
                })
                .filter(|(first, _, _)| !first.is_empty())
                .collect();
            phrases.sort_unstable_by_key(|&(first, phrase, row)| {
                (PhraseIndex::slot(first), first, phrase, row)
            });
            let mut ranges = Box::new([[(0u16, 0u16); 32]; 256]);
            for (at, (first, _, _)) in phrases.iter().enumerate() {
                let Some((byte, len)) = PhraseIndex::slot(first) else {
                    continue;
                };
                let at = u16::try_from(at).unwrap_or(u16::MAX);
                let range = &mut ranges[byte][len];
                if range.0 == range.1 {
                    *range = (at, at);
                }
                range.1 = at.saturating_add(1);
            }
            PhraseIndex { phrases, ranges }
        })
    }

    /// A word's first byte and its length (at most 31).
    fn slot(word: &[u8]) -> Option<(usize, usize)> {
        let &byte = word.first()?;
        Some((usize::from(byte), word.len().min(31)))
    }

    /// The phrases whose first word is `word`, as (first word, phrase, row).
    fn starting_with<'i>(
        &'i self,
        word: &'i [u8],
    ) -> impl Iterator<Item = &'i (&'static [u8], &'static [u8], usize)> + 'i {
        let (from, to) =
            PhraseIndex::slot(word).map_or((0, 0), |(byte, len)| self.ranges[byte][len]);
        self.phrases
            .get(usize::from(from)..usize::from(to))
            .unwrap_or_default()
            .iter()
            .filter(move |(first, _, _)| *first == word)
    }
}

/// For each row of [`keywords`], whether one of its phrases occurs in `words` (a
/// [`normalise`]d word list) on word boundaries; the phrase's last word may carry `us`
/// (`contactus` counts as `contact`). Each word looks up the phrases it can start.
#[cfg(test)]
fn intents_in(words: &str) -> [bool; ROWS.len()] {
    words_intents(words.as_bytes())
}

/// [`intents_in`] of normalised words as bytes.
fn words_intents(words: &[u8]) -> [bool; ROWS.len()] {
    let index = PhraseIndex::get();
    let mut found = [false; ROWS.len()];
    let mut at = 0;
    for word in words.split(|&b| b == b' ') {
        let from = words.get(at..).unwrap_or_default();
        at += word.len() + 1;
        // A one-word phrase with `us` glued on is looked up without it.
        for key in [Some(word), word.strip_suffix(b"us")].into_iter().flatten() {
            for &(_, phrase, row) in index.starting_with(key) {
                let Some(rest) = from.strip_prefix(phrase) else {
                    continue;
                };
                if rest.is_empty()
                    || rest.starts_with(b" ")
                    || rest == b"us"
                    || rest.starts_with(b"us ")
                {
                    found[row] = true;
                }
            }
        }
    }
    found
}

/// Files, and site areas that are never contact pages (log-in, cart, search, feeds, tag and
/// category listings).
fn is_excluded(url: &Url) -> bool {
    const FILES: &[&str] = &[
        ".pdf", ".jpg", ".jpeg", ".png", ".gif", ".zip", ".doc", ".docx", ".xls", ".xlsx", ".mp4",
        ".mp3", ".svg", ".webp", ".ppt", ".pptx", ".rar", ".exe", ".dmg", ".xml", ".rss", ".ics",
        ".vcf",
    ];
    const AREAS: &[&str] = &[
        "login",
        "logout",
        "signin",
        "sign-in",
        "register",
        "cart",
        "checkout",
        "basket",
        "account",
        "my-account",
        "wp-admin",
        "wp-login.php",
        "feed",
        "tag",
        "category",
        "search",
        "wishlist",
        "cdn-cgi",
    ];
    if !matches!(url.scheme(), "http" | "https") {
        return true;
    }
    let path = url.path();
    // A path ends with one of `FILES` (a dot and letters) when what follows its last dot is
    // one: that suffix alone is compared with them.
    let is_file = memchr::memrchr(b'.', path.as_bytes()).is_some_and(|dot| {
        let extension = &path.as_bytes()[dot..];
        FILES
            .iter()
            .any(|f| extension.eq_ignore_ascii_case(f.as_bytes()))
    });
    // Split as bytes: paths are short, and `str::split` sets up a searcher per segment.
    is_file
        || path.as_bytes().split(|&b| b == b'/').any(|segment| {
            AREAS
                .iter()
                .any(|a| segment.eq_ignore_ascii_case(a.as_bytes()))
        })
}

/// Same page as the homepage (fragments, `index.html`, trailing slash ignored).
fn is_same_page(home: &Url, url: &Url) -> bool {
    same_page(home, url) || {
        let trimmed = url.path().trim_end_matches('/');
        url.query().is_none()
            && (trimmed.is_empty()
                || [
                    "/index.html",
                    "/index.htm",
                    "/index.php",
                    "/home",
                    "/default.aspx",
                    "/default.asp",
                ]
                .iter()
                .any(|home_path| trimmed.eq_ignore_ascii_case(home_path)))
    }
}

/// Same page: host (without `www.`), path (without trailing slash) and query equal; scheme
/// and fragment ignored. Compares in place: it runs for every same-site link of a page.
pub fn same_page(a: &Url, b: &Url) -> bool {
    fn host(u: &Url) -> Option<&str> {
        u.host_str().map(without_www)
    }
    let hosts_equal = match (host(a), host(b)) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        (None, None) => true,
        _ => false,
    };
    hosts_equal
        && a.path().trim_end_matches('/') == b.path().trim_end_matches('/')
        && a.query() == b.query()
}

/// What [`same_page`] compares (the key of the pages a plan has seen): the host without
/// `www.` (lower-case), the path without a trailing slash, the query. Borrowed from the URL
/// but for a host with a capital (an http(s) URL's host is lower-case already).
type PageKey<'u> = (Option<Cow<'u, str>>, &'u str, Option<&'u str>);

fn page_key(u: &Url) -> PageKey<'_> {
    let host = u.host_str().map(|h| {
        let h = without_www(h);
        if h.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(h.to_ascii_lowercase())
        } else {
            Cow::Borrowed(h)
        }
    });
    (host, u.path().trim_end_matches('/'), u.query())
}

/// `host` without its leading `www.` labels (as `trim_start_matches("www.")`, without the
/// substring searcher that sets up on every call).
fn without_www(mut host: &str) -> &str {
    while let Some(rest) = host.strip_prefix("www.") {
        host = rest;
    }
    host
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::strategy::Strategy;

    /// `normalise` one character at a time, as it was first written.
    fn normalise_model(s: &str) -> String {
        let mut out = String::new();
        let mut pending_space = false;
        for ch in s.chars() {
            let base = if ch.is_ascii() {
                let lower = ch.to_ascii_lowercase();
                if lower.is_ascii_alphanumeric() {
                    lower
                } else {
                    ' '
                }
            } else {
                fold_non_ascii(ch).unwrap_or(' ')
            };
            if base == ' ' {
                pending_space = !out.is_empty();
            } else {
                if pending_space {
                    out.push(' ');
                    pending_space = false;
                }
                out.push(base);
            }
        }
        out
    }

    /// `intents_in` as one overlapping Aho-Corasick pass over every phrase, keeping matches
    /// that start a word and end one (or end where only `us` is left of the word).
    fn intents_model(words: &str) -> [bool; ROWS.len()] {
        let (phrases, rows): (Vec<&str>, Vec<usize>) = keywords()
            .iter()
            .enumerate()
            .flat_map(|(row, phrases)| phrases.iter().map(move |p| (p.as_str(), row)))
            .unzip();
        let matcher = aho_corasick::AhoCorasick::new(phrases).unwrap();
        let mut found = [false; ROWS.len()];
        for m in matcher.find_overlapping_iter(words) {
            let before_ok = m.start() == 0 || words.as_bytes()[m.start() - 1] == b' ';
            let rest = &words[m.end()..];
            let after_ok =
                rest.is_empty() || rest.starts_with(' ') || rest == "us" || rest.starts_with("us ");
            if before_ok && after_ok {
                found[rows[m.pattern().as_usize()]] = true;
            }
        }
        found
    }

    /// [`score_link`] as it was before it normalised into bytes: the text and the path
    /// normalised into a `String` ([`normalise`]), their phrases found by [`intents_model`],
    /// the text's words counted by `split_whitespace`.
    fn score_link_model(url: &Url, text: &str) -> Option<(Intent, i32)> {
        let (text, path) = (normalise(text), normalise(url.path()));
        let (in_text, in_path) = (intents_model(&text), intents_model(&path));
        if !in_text.contains(&true) && !in_path.contains(&true) {
            return None;
        }
        let depth = url
            .path_segments()
            .map_or(0, |s| s.filter(|s| !s.is_empty()).count());
        let mut penalty = 2 * (depth.saturating_sub(1) as i32).min(4);
        if url.query().is_some() {
            penalty += 2;
        }
        if text.split_whitespace().count() > 6 {
            penalty += 5;
        }
        let mut best: Option<(Intent, i32)> = None;
        for (index, (intent, weight, _)) in ROWS.iter().enumerate() {
            let (in_text, in_path) = (in_text[index], in_path[index]);
            if !in_text && !in_path {
                continue;
            }
            let score = weight * (2 * i32::from(in_text) + i32::from(in_path)) - penalty;
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((*intent, score));
            }
        }
        best.filter(|(_, s)| *s > 0)
    }

    /// Link texts and paths of keywords (any case, `us` glued on), other words, separators
    /// and characters beyond ASCII.
    fn link_words() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            proptest::prop_oneof![
                proptest::sample::select(
                    keywords()
                        .iter()
                        .flatten()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                )
                .prop_map(str::to_string),
                proptest::sample::select(keyword_words()).prop_map(str::to_uppercase),
                proptest::sample::select(keyword_words()).prop_map(|w| format!("{w}us")),
                "[a-zA-Z0-9]{1,8}",
                "[ /_.,:?&=-]{1,3}",
                "(é|É|ß|İ|\u{212a}|Ü|ΕΠΙΚΟΙΝΩΝΙΑ|Σ|中文|😀|\u{a0})",
            ],
            0..12,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest::proptest! {
        #[test]
        fn normalising_into_bytes_writes_what_normalise_writes(
            before in "[a-z ]{0,4}",
            s in "[ a-zA-Z0-9/_.-é\u{c9}\u{df}\u{130}\u{212a}\u{3b1}\u{4e2d}\u{1f600}]{0,40}",
        ) {
            let mut bytes = before.clone().into_bytes();
            normalise_bytes_into(&mut bytes, &s);
            let mut string = before;
            normalise_into(&mut string, &s);
            proptest::prop_assert_eq!(bytes, string.into_bytes());
        }

        #[test]
        fn scoring_a_link_agrees_with_its_model(
            text in link_words(),
            path in link_words(),
            query in proptest::bool::ANY,
        ) {
            let mut url = Url::parse("https://acme.example/").unwrap();
            url.set_path(&path);
            if query {
                url.set_query(Some("a=1"));
            }
            let mut words = b"left over".to_vec();
            proptest::prop_assert_eq!(score_link_with(&url, &text, &mut words), score_link_model(&url, &text));
            proptest::prop_assert_eq!(score_link(&url, &text), score_link_model(&url, &text));
        }
    }

    #[test]
    fn scoring_hand_written_links_agrees_with_its_model() {
        for (path, text) in [
            ("/kontakt", "Kontakt"),
            ("/contact-us/", "Contact Us"),
            ("/about/us/team", "Über uns"),
            ("/x", "Privacy Policy and Terms"),
            (
                "/a/b/c/d/e/f/contact",
                "Read more about how to reach our team by mail",
            ),
            ("/impressum", ""),
            ("/", "ΕΠΙΚΟΙΝΩΝΙΑ"),
            ("/iletisim", "İletişim"),
            ("/produkte", "Produkte"),
            ("/contactus", "contactus us"),
        ] {
            let url = Url::parse("https://acme.example/")
                .unwrap()
                .join(path)
                .unwrap();
            assert_eq!(
                score_link(&url, text),
                score_link_model(&url, text),
                "{path} {text}"
            );
        }
    }

    /// [`is_excluded`]'s test of a file's path as it was first written: the path's end
    /// compared with each file ending.
    fn is_file_model(path: &str) -> bool {
        [
            ".pdf", ".jpg", ".jpeg", ".png", ".gif", ".zip", ".doc", ".docx", ".xls", ".xlsx",
            ".mp4", ".mp3", ".svg", ".webp", ".ppt", ".pptx", ".rar", ".exe", ".dmg", ".xml",
            ".rss", ".ics", ".vcf",
        ]
        .iter()
        .any(|f| {
            path.len() >= f.len()
                && path.as_bytes()[path.len() - f.len()..].eq_ignore_ascii_case(f.as_bytes())
        })
    }

    proptest::proptest! {
        #[test]
        fn a_file_is_excluded_as_by_a_comparison_of_the_paths_end(
            path in "(/[a-z0-9.]{0,8}){0,3}(\\.(pdf|PDF|Jpeg|docx|doc|x|mp3|vcf|ics\\.x))?",
        ) {
            let mut url = Url::parse("https://acme.example/").unwrap();
            url.set_path(&path);
            let area = url
                .path()
                .split('/')
                .any(|segment| ["tag", "feed", "cart", "search"].contains(&segment));
            proptest::prop_assert_eq!(is_excluded(&url), area || is_file_model(url.path()), "{}", url);
        }
    }

    /// Every word of every phrase.
    fn keyword_words() -> Vec<&'static str> {
        keywords()
            .iter()
            .flatten()
            .flat_map(|p| p.split(' '))
            .collect()
    }

    #[test]
    fn folding_a_character_agrees_with_its_lower_case_from_the_tables() {
        // Every character, against the folding of its lower case from the standard library's
        // tables (as every character was folded before the Latin-1 letters were read without
        // them).
        for ch in (0x80..=0x10_FFFF).filter_map(char::from_u32) {
            let model = fold_lower_case(ch.to_lowercase().next().unwrap_or(' '));
            assert_eq!(fold_non_ascii(ch), model, "{ch:?}");
        }
    }

    #[test]
    fn without_www_strips_every_leading_www_label() {
        for (host, bare) in [
            ("www.acme.com", "acme.com"),
            ("www.www.acme.com", "acme.com"),
            ("acme.com", "acme.com"),
            ("wwwacme.com", "wwwacme.com"),
            ("shop.www.acme.com", "shop.www.acme.com"),
            ("www.", ""),
        ] {
            assert_eq!(without_www(host), bare);
            assert_eq!(without_www(host), host.trim_start_matches("www."));
        }
    }

    #[test]
    fn every_page_word_of_the_lexicon_is_a_keyword_of_its_intent() {
        for (row, (intent, _, class)) in ROWS.iter().enumerate() {
            assert!(!keywords()[row].is_empty(), "{}", class.name());
            for entry in lexicon::entries(*class) {
                let phrase = normalise(entry.text);
                assert!(keywords()[row].contains(&phrase), "{entry:?}");
                assert!(intents_in(&phrase)[row], "{entry:?}");
                let url = Url::parse("https://acme.example/x").unwrap();
                let (best, _) = score_link(&url, entry.text).unwrap();
                // A phrase may hold a word of a stronger row (`nous contacter` is contact).
                assert!(
                    ROWS.iter().position(|r| r.0 == best).unwrap() <= row,
                    "{entry:?} {intent:?}"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn normalising_follows_its_model(
            s in "[ a-zA-Z0-9/_.-é\u{c9}\u{df}\u{130}\u{212a}\u{3b1}\u{4e2d}\u{1f600}]{0,30}"
        ) {
            proptest::prop_assert_eq!(normalise(&s), normalise_model(&s));
        }

        #[test]
        fn keyword_lookup_finds_what_a_full_scan_finds(
            words in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(keyword_words()).prop_map(str::to_string),
                    proptest::sample::select(
                        keywords().iter().flatten().map(String::as_str).collect::<Vec<_>>()
                    ).prop_map(|p| format!("{p}us")),
                    "(us|usus|x|contac|ontact|[a-z]{1,6})",
                ],
                0..8,
            )
        ) {
            let words = words.join(" ");
            proptest::prop_assert_eq!(intents_in(&words), intents_model(&words), "{}", words);
        }
    }

    #[test]
    fn every_phrase_may_hold_a_keyword_in_any_ascii_case() {
        for phrases in keywords() {
            for phrase in phrases {
                for written in [
                    phrase.to_string(),
                    phrase.to_ascii_uppercase(),
                    format!("/{}us/", phrase.replace(' ', "-")),
                ] {
                    assert!(may_hold_keyword(&written), "{written}");
                }
            }
        }
        assert!(LongestWords::get()
            .words
            .iter()
            .all(|w| (2..30).contains(&w.len()) && LongestWords::group(w).is_some()));
        assert!(!may_hold_keyword("/produkte/neu"));
        // Words count whole: `discover` holds `over`, `steam` holds `team`.
        assert!(!may_hold_keyword("Discover the steam engine"));
        assert!(!may_hold_keyword("Our products"));
        // Accents fold into keywords; other letters leave a word out of them.
        assert!(may_hold_keyword("Über uns"));
        assert!(may_hold_keyword("À propos"));
        assert!(may_hold_keyword("Kontaktformular, Anfahrt"));
        assert!(!may_hold_keyword("Zürich Schmökern Fútbol Русский"));
    }

    proptest::proptest! {
        #[test]
        fn text_without_a_possible_keyword_scores_nothing(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(keyword_words()).prop_map(str::to_string),
                    "[a-zA-Z0-9]{0,6}",
                    "[ /_.?=&%-]{1,2}",
                    "[éÉüÜßàÀñ\u{212a}\u{130}\u{4e2d}\u{a0}]{1,2}",
                    proptest::sample::select(vec!["Über", "über", "À", "Qui", "Contáct", "\u{212a}ontakt"])
                        .prop_map(str::to_string),
                ],
                0..10,
            )
        ) {
            let written = parts.concat();
            if !may_hold_keyword(&written) {
                proptest::prop_assert_eq!(intents_in(&normalise(&written)), [false; ROWS.len()]);
                let home = Url::parse("https://acme.com/").unwrap();
                proptest::prop_assert_eq!(score_link(&home, &written), None);
            }
        }
    }

    /// [`may_hold_keyword`] one byte at a time.
    fn may_hold_keyword_model(s: &str) -> bool {
        let index = LongestWords::get();
        let bytes = s.as_bytes();
        let mut start = 0;
        for (at, &b) in bytes.iter().enumerate() {
            if b.is_ascii_alphanumeric() {
                continue;
            }
            if !b.is_ascii() {
                return may_hold_keyword_folded(&s[start..]);
            }
            if at > start && index.holds(&bytes[start..at]) {
                return true;
            }
            start = at + 1;
        }
        bytes.len() > start && index.holds(&bytes[start..])
    }

    proptest::proptest! {
        #[test]
        fn keyword_scan_eight_bytes_at_a_time_agrees_with_one_at_a_time(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(keyword_words()).prop_map(str::to_string),
                    "[a-zA-Z0-9@\\[`{/:]{0,12}",
                    "[ /_.?=&%-]{1,2}",
                    "[éÜß\u{212a}\u{4e2d}\u{a0}]{1,2}",
                    proptest::sample::select(keyword_words()).prop_map(|w| w.to_uppercase()),
                    "(Über|über|İletişim|ΕΠΙΚΟΙΝΩΝΙΑ|Σ|επικοινωνία|お問い合わせ|Kontakt\u{212a})",
                ],
                0..12,
            )
        ) {
            let written = parts.concat();
            proptest::prop_assert_eq!(may_hold_keyword(&written), may_hold_keyword_model(&written), "{}", written);
        }

        #[test]
        fn longest_words_hold_a_run_as_a_search_of_every_word_says(
            word in proptest::sample::select(keyword_words()),
            cut in 0..4usize,
            tail in "(|us|US|Us|s|[a-z0-9]{1,3})",
            upper in proptest::bool::ANY,
        ) {
            // A keyword's word, cut short or not, with a tail, in either case: runs that
            // share a word's first bytes, length or last byte, and the words themselves.
            let index = LongestWords::get();
            let kept = word.len().saturating_sub(cut % 2 * cut);
            let mut run: String = word[..word.floor_char_boundary(kept)].to_owned() + tail.as_str();
            if upper {
                run = run.to_ascii_uppercase();
            }
            if run.bytes().all(|b| b.is_ascii_alphanumeric()) && !run.is_empty() {
                let bytes = run.as_bytes();
                let model = index.words.iter().any(|word| match bytes.split_at_checked(word.len()) {
                    Some((head, rest)) => {
                        (rest.is_empty() || rest.eq_ignore_ascii_case(b"us"))
                            && head.eq_ignore_ascii_case(word)
                    }
                    None => false,
                });
                proptest::prop_assert_eq!(index.holds(bytes), model, "{}", run);
            }
        }

        #[test]
        fn alphanumeric_bytes_marks_letters_and_digits(bytes in proptest::array::uniform8(0u8..0x80)) {
            let marks = alphanumeric_bytes(u64::from_le_bytes(bytes));
            for (i, b) in bytes.iter().enumerate() {
                proptest::prop_assert_eq!(marks >> (8 * i) & 0xff, if b.is_ascii_alphanumeric() { 0x80 } else { 0 });
            }
        }
    }

    /// [`candidates`] as it reads every link, repeats included: each link scored, and its
    /// page's entry kept at its best score.
    fn candidates_model(home: &Url, links: &[PageLink]) -> Vec<Candidate> {
        let home_host = home.host_str().unwrap();
        let mut out: Vec<Candidate> = Vec::new();
        for link in links {
            let url = &link.url;
            let host = url.host_str().unwrap();
            if !(host == home_host || registrable_domain(host) == registrable_domain(home_host))
                || is_same_page(home, url)
                || is_excluded(url)
            {
                continue;
            }
            let Some((intent, score)) = score_link(url, &link.text) else {
                continue;
            };
            let score = score + i32::from(link.in_footer);
            match out.iter_mut().find(|c| page_key(&c.url) == page_key(url)) {
                Some(existing) if score > existing.score => {
                    (existing.score, existing.intent) = (score, intent);
                }
                Some(_) => {}
                None => out.push(Candidate {
                    url: url.clone(),
                    intent,
                    score,
                }),
            }
        }
        out.sort_by_key(|c| std::cmp::Reverse(c.score));
        out
    }

    proptest::proptest! {
        #[test]
        fn a_link_read_again_changes_no_candidate(
            picks in proptest::collection::vec((0..8usize, 0..3usize, proptest::bool::ANY), 0..12)
        ) {
            let home = Url::parse("https://www.example.de/").unwrap();
            let hrefs = [
                "https://www.example.de/kontakt",
                "https://example.de/kontakt/",
                "https://www.example.de/impressum",
                "https://www.example.de/about/us/team?x=1",
                "https://other.de/kontakt",
                "https://www.example.de/produkte",
                "https://www.example.de/privacy",
                "https://www.example.de/",
            ];
            let texts = ["Kontakt", "Read more", ""];
            let links: Vec<PageLink> = picks
                .iter()
                .map(|&(href, text, in_footer)| PageLink {
                    in_footer,
                    ..link(hrefs[href], texts[text])
                })
                .collect();
            proptest::prop_assert_eq!(candidates(&home, &links), candidates_model(&home, &links));
        }
    }

    fn link(href: &str, text: &str) -> PageLink {
        PageLink {
            url: Url::parse(href).unwrap(),
            text: text.to_string(),
            in_footer: false,
        }
    }

    #[test]
    fn picks_contact_about_and_legal() {
        let home = Url::parse("https://www.acme.de/").unwrap();
        let links = [
            link("https://www.acme.de/produkte", "Produkte"),
            link("https://www.acme.de/ueber-uns", "Über uns"),
            link("https://acme.de/kontakt", "Kontakt"),
            link("https://www.acme.de/impressum", "Impressum"),
            link("https://www.acme.de/datenschutz", "Datenschutz"),
            link("https://other.de/kontakt", "Kontakt"),
            link("https://www.acme.de/#contact", "Contact"),
        ];
        let plan = plan(&home, &links);
        let paths: Vec<&str> = plan.fetch.iter().map(|u| u.path()).collect();
        assert_eq!(paths, ["/kontakt", "/impressum", "/ueber-uns"]);
        assert!(plan
            .contact_pages
            .iter()
            .all(|u| u.host_str() != Some("other.de")));
        assert_eq!(plan.contact_pages[0].path(), "/kontakt");
    }

    #[test]
    fn scores_text_over_path_and_penalises_depth_and_files() {
        let home = Url::parse("http://acme.com/").unwrap();
        let links = [
            link("http://acme.com/page.php?id=5", "Contact Us"),
            link(
                "http://acme.com/about/history/2010/news",
                "Our company news from 2010 and more words",
            ),
            link("http://acme.com/contact.pdf", "Contact form (PDF)"),
            link("http://www.acme.com/about-us/", "About"),
            link("http://acme.com/about-us", "About us"),
        ];
        let c = candidates(&home, &links);
        assert_eq!(c[0].url.as_str(), "http://acme.com/page.php?id=5");
        assert_eq!(
            c.iter()
                .filter(|c| c.url.path().starts_with("/about-us"))
                .count(),
            1
        );
        assert!(c.iter().all(|c| !c.url.path().ends_with(".pdf")));
    }

    /// The plan's paths for a home page at `home` with links `(path, text)`.
    fn planned(home: &str, links: &[(&str, &str)]) -> Vec<String> {
        let home = Url::parse(home).unwrap();
        let links: Vec<PageLink> = links
            .iter()
            .map(|(path, text)| link(home.join(path).unwrap().as_str(), text))
            .collect();
        plan(&home, &links)
            .fetch
            .iter()
            .map(|u| u.path().to_string())
            .collect()
    }

    #[test]
    fn without_a_contact_page_the_legal_pages_use_the_budget() {
        // English, outside the EU: privacy policy and terms name the operator; services and
        // cookies pages come after them.
        assert_eq!(
            planned(
                "https://acme.example.com/",
                &[
                    ("/services.html", "Service Details"),
                    ("/privacy.html", "Privacy Policy"),
                    ("/terms.html", "Terms of Service"),
                    ("/cookies.html", "Cookie Policy"),
                ]
            ),
            ["/privacy.html", "/terms.html", "/services.html"]
        );
        // Dutch, in the EU: the contact page, the privacy statement, then the rest.
        assert_eq!(
            planned(
                "https://www.schilder.example.nl/",
                &[
                    ("/diensten.html", "Diensten"),
                    ("/contact.html", "Contact"),
                    ("/privacyverklaring.html", "Privacyverklaring"),
                ]
            ),
            ["/contact.html", "/privacyverklaring.html"]
        );
        // Spanish: contact, legal notice and about before privacy and terms.
        assert_eq!(
            planned(
                "https://www.casa.example.es/",
                &[
                    ("/privacidad.html", "Privacidad"),
                    ("/terminos.html", "Términos y condiciones"),
                    ("/aviso-legal.html", "Aviso legal"),
                    ("/quienes-somos.html", "Quiénes somos"),
                    ("/contacto/", "Contacto"),
                ]
            ),
            ["/contacto/", "/aviso-legal.html", "/quienes-somos.html"]
        );
    }

    #[test]
    fn a_second_page_of_a_kind_comes_after_one_of_each_kind() {
        // German: two contact-like links; the imprint and the about page come first.
        assert_eq!(
            planned(
                "https://www.praxis.example.de/",
                &[
                    ("/kontakt", "Kontakt"),
                    ("/anfahrt", "Anfahrt"),
                    ("/ueber-uns", "Über uns"),
                    ("/impressum", "Impressum"),
                ]
            ),
            ["/kontakt", "/impressum", "/ueber-uns"]
        );
        // English: a second contact page before privacy, when there is room.
        assert_eq!(
            planned(
                "https://shop.example.com/",
                &[
                    ("/contact-us", "Contact us"),
                    ("/privacy", "Privacy"),
                    ("/locations", "Our locations"),
                ]
            ),
            ["/contact-us", "/privacy", "/locations"]
        );
    }

    #[test]
    fn page_words_of_more_languages() {
        let u = |p: &str| Url::parse(&format!("https://x.example{p}")).unwrap();
        let intent = |path: &str, text: &str| score_link(&u(path), text).map(|s| s.0);
        for (path, text, want) in [
            // Turkish
            ("/iletisim.html", "İletişim", Intent::Contact),
            ("/hakkimizda.html", "HAKKIMIZDA", Intent::About),
            ("/x", "Gizlilik Politikası", Intent::Privacy),
            // Japanese
            ("/x", "アクセス", Intent::Contact),
            ("/x", "お問い合わせ", Intent::Contact),
            ("/x", "会社概要", Intent::About),
            ("/x", "プライバシーポリシー", Intent::Privacy),
            // Icelandic
            ("/hafa-samband", "Hafa samband", Intent::Contact),
            ("/x", "Um okkur", Intent::About),
            // Czech and Slovak
            ("/x", "Ochrana osobních údajů", Intent::Privacy),
            (
                "/ochrana-osobnich-udaju",
                "ochrany osobních údajů",
                Intent::Privacy,
            ),
            ("/x", "Ochrana osobných údajov", Intent::Privacy),
            ("/x", "Podmínky použití", Intent::Terms),
            ("/x", "Kontaktujte nás", Intent::Contact),
            // Polish
            (
                "/polityka-prywatnosci.html",
                "Polityka prywatności",
                Intent::Privacy,
            ),
            ("/x", "O nas", Intent::About),
            // Danish
            (
                "/privatlivspolitik.html",
                "Privatlivspolitik",
                Intent::Privacy,
            ),
            ("/x", "Om os", Intent::About),
            // Portuguese
            ("/contactos/", "Contactos", Intent::Contact),
            ("/termos-e-condicoes/", "Termos e Condições", Intent::Terms),
            ("/x", "Política de Privacidade", Intent::Privacy),
            // Spanish
            ("/sucursales.html", "Sucursales", Intent::Contact),
            ("/x", "Acerca de nosotros", Intent::About),
            ("/x", "Términos y condiciones", Intent::Terms),
            // Greek
            ("/x", "ΕΠΙΚΟΙΝΩΝΙΑ", Intent::Contact),
            ("/x", "Επικοινωνία", Intent::Contact),
            // English
            ("/terms.html", "Terms of Service", Intent::Terms),
            ("/x", "Terms & Conditions", Intent::Terms),
        ] {
            assert_eq!(intent(path, text), Some(want), "{path} {text}");
            // Every one passes the filter links go through before they are resolved.
            assert!(
                may_hold_keyword(text) || may_hold_keyword(path),
                "{path} {text}"
            );
        }
    }

    #[test]
    fn multilingual_keywords() {
        let u = |p: &str| Url::parse(&format!("https://x.it{p}")).unwrap();
        assert_eq!(
            score_link(&u("/contatti"), "Contatti").map(|s| s.0),
            Some(Intent::Contact)
        );
        assert_eq!(
            score_link(&u("/chi-siamo"), "Chi siamo").map(|s| s.0),
            Some(Intent::About)
        );
        assert_eq!(
            score_link(&u("/x"), "Mentions légales").map(|s| s.0),
            Some(Intent::Legal)
        );
        assert_eq!(
            score_link(&u("/x"), "Neem contact op").map(|s| s.0),
            Some(Intent::Contact)
        );
        assert_eq!(score_link(&u("/produkte"), "Produkte"), None);
    }
}
