//! Whose contact it is: the attribution step (docs/extraction.md, "Whose contact it is"). The
//! page's text is owned by the business except where another organisation owns it: a legal
//! notice's sections on the hosting provider ("Hébergeur", "Hosting"), the supervisory
//! authority and the professional chamber ("Zuständige Aufsichtsbehörde", "Kammer", "Ordre des
//! avocats"), dispute-resolution bodies ("Schlichtungsstelle"), the insurer, the bank, the
//! memberships, and the credits for the web agency, designer and photographer ("Konzept &
//! Design", "Réalisation", "Foto"); blocks that name an authority or another company and show
//! its own domain (a council's licensing office in a taxi firm's terms, the data protection
//! authority in a privacy policy, a processor); and credit phrases in a line ("Designed by …",
//! "Diseñado por …"). Their phones, emails and addresses are not the business's. The ways a
//! part is found are listed at [`third_party_ranges`]; it works on the blocks and heading
//! ranks the walker records (`html::Document::block_starts`, `heading_levels`).
//!
//! [`third_party_ranges`] gives the byte ranges; [`inside`] and [`own_part`] tell the field
//! extractors (and any other reader of the text, such as social links) what is left out.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::OnceLock;

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::nfa::contiguous;
use aho_corasick::{dfa, Anchored, Input, MatchKind, PatternID};

use crate::lexicon::{self, Class};

/// Most lines a third party's section spans (name, street, town, phone, email, web site).
pub const MAX_SECTION_LINES: usize = 6;

/// The lexicon's words the attribution step reads (`crate::lexicon`), lower-case, built once.
struct Words {
    /// `party.host`: a hosting provider's heading or label (on any page).
    host: Vec<String>,
    /// `party.authority`, `party.maker`, `party.other`: the other third parties' headings and
    /// labels (an authority's on any page, the others on a legal notice).
    other: Vec<String>,
    /// `party.bank`: the bank's headings and labels (bank details, on a legal notice).
    bank: Vec<String>,
    /// `label.phone`, `label.email`, `label.web`, `label.address`: the labels of a contact
    /// field (`Tél : …`, `E-Mail: …`).
    contact_fields: Vec<String>,
    /// `credit.maker`: credit phrases inside a line.
    credits: Vec<String>,
    /// `label.address`: address sub-headings.
    address: Vec<String>,
    /// `org.type` words of one word: an organisation's kind named in a block.
    org_types: Vec<String>,
    /// `legal.form`, dots left out, sorted.
    legal_forms: Vec<String>,
    /// `heading.legal`: headings and lines that mark a page as a legal notice.
    legal_markers: Vec<String>,
    /// `compound.authority`: heads of compounds that name an authority ("Rechtsanwaltskammer").
    authority_heads: Vec<String>,
    /// `compound.authority` and `compound.party`: heads of compounds that name a third party.
    party_heads: Vec<String>,
}

fn lexicon_words() -> &'static Words {
    static WORDS: OnceLock<Words> = OnceLock::new();
    WORDS.get_or_init(|| {
        let lower = |classes: &[Class]| -> Vec<String> {
            let mut words: Vec<String> = classes
                .iter()
                .flat_map(|class| lexicon::words(*class))
                .map(str::to_lowercase)
                .collect();
            words.sort_unstable();
            words.dedup();
            words
        };
        Words {
            host: lower(&[Class::PartyHost]),
            other: lower(&[Class::PartyAuthority, Class::PartyMaker, Class::PartyOther]),
            bank: lower(&[Class::PartyBank]),
            contact_fields: lower(&[
                Class::LabelPhone,
                Class::LabelEmail,
                Class::LabelWeb,
                Class::LabelAddress,
            ]),
            credits: lower(&[Class::CreditMaker]),
            address: lower(&[Class::LabelAddress]),
            org_types: lower(&[Class::OrgType])
                .into_iter()
                .filter(|w| !w.contains(' '))
                .collect(),
            legal_forms: {
                let mut forms: Vec<String> = lower(&[Class::LegalForm])
                    .into_iter()
                    .map(|w| w.replace('.', ""))
                    .collect();
                forms.sort_unstable();
                forms.dedup();
                forms
            },
            legal_markers: lower(&[Class::HeadingLegal]),
            authority_heads: lower(&[Class::CompoundAuthority]),
            party_heads: lower(&[Class::CompoundAuthority, Class::CompoundParty]),
        }
    })
}

// FILLERS and JOINERS stay here, not in the lexicon: they are the grammar of `party_of`'s
// rule (articles and conjunctions it steps over), not words that name a party.

/// Words before a label that do not change whom it names ("Zuständige Kammer", "L'hébergeur",
/// "Notre agence").
const FILLERS: &[&str] = &[
    "zuständige",
    "zuständiger",
    "zuständig",
    "die",
    "der",
    "das",
    "le",
    "la",
    "les",
    "l",
    "il",
    "lo",
    "el",
    "the",
    "het",
    "de",
    "angaben",
    "zur",
    "zum",
];

/// Words that join two labels in one heading ("Konzept & Design", "L'hébergeur et l'éditeur").
const JOINERS: &[&str] = &[
    "&", "+", "und", "and", "et", "e", "y", "i", "en", "och", "a",
];

/// Who a label names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Party {
    /// The hosting provider (a heading counts on any page).
    Host,
    /// An authority, chamber, dispute body, insurer, association or the site's makers.
    Other,
    /// The business's bank: its section is the account's lines, up to the first contact field
    /// ([`is_contact_field`]), which is the business's again.
    Bank,
}

/// Whom `text` (a heading, or a label before its colon) names, if a third party: any of its
/// parts joined by "&", "und", "et" … starts with a label, after filler words, or has a word
/// that ends in a compound head (lexicon classes `compound.authority`, `compound.party`: a rule
/// of German and Scandinavian word building, "Verbraucherschlichtungsstelle").
fn party_of(text: &str) -> Option<Party> {
    let text = text.trim();
    if text.is_empty() || more_chars_than(text, 60) || !may_name_a_party(text) {
        return None;
    }
    let lower = text.to_lowercase();
    // Words: letters, digits, `'` inside a word ("foto's"), `&` and `/` as their own words.
    let spaced = lower.replace(['’', '\''], "' ");
    let words: Vec<&str> = spaced
        .split(|c: char| {
            c.is_whitespace() || matches!(c, ',' | ':' | '(' | ')' | '-' | '–' | '/' | '|')
        })
        .map(|w| w.trim_matches(|c: char| matches!(c, '.' | ';' | '!' | '?' | '"' | '*')))
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() > 8 {
        return None;
    }
    let mut party = None;
    for part in words.split(|w| JOINERS.contains(w)) {
        let part: Vec<&str> = part
            .iter()
            .map(|w| w.trim_end_matches('\''))
            .skip_while(|w| FILLERS.contains(w) || w.is_empty())
            .collect();
        let phrase = part.join(" ");
        let starts = |labels: &[String]| starts_with_label(&phrase, labels);
        if starts(&lexicon_words().host) {
            return Some(Party::Host);
        }
        if starts(&lexicon_words().bank) {
            party = party.or(Some(Party::Bank));
        } else if starts(&lexicon_words().other)
            || part.iter().any(|w| {
                // A genitive `s` too ("des Versicherers").
                let w = w.strip_suffix('s').unwrap_or(w);
                lexicon_words()
                    .party_heads
                    .iter()
                    .any(|head| w.ends_with(head.as_str()))
            })
        {
            party = Some(Party::Other);
        }
    }
    party
}

/// Whether `text` has more than `most` characters: counted only when its length in bytes
/// (at least its characters, at most four times as many) does not tell.
fn more_chars_than(text: &str, most: usize) -> bool {
    text.len() > most && (text.len() > 4 * most || text.chars().count() > most)
}

/// Whether `phrase` starts with one of `labels` (sorted) followed by its end or a space. Such
/// a label is the phrase up to its end or a space: those few prefixes are looked up, rather
/// than each label compared with the phrase.
fn starts_with_label(phrase: &str, labels: &[String]) -> bool {
    memchr::memchr_iter(b' ', phrase.as_bytes())
        .chain(std::iter::once(phrase.len()))
        .any(|end| {
            labels
                .binary_search_by(|label| label.as_str().cmp(&phrase[..end]))
                .is_ok()
        })
}

/// Whether `text` holds the longest ASCII run of some label (`bergeur` of `hébergeur`, `kammer`),
/// ASCII case ignored: one pass that spares most labels ("Tel", "Mo–Fr") the lower-casing
/// and splitting of [`party_of`]. It looks at the first four bytes of every stem (three for a
/// stem of three: [`StemFilter`]): most labels hold none and are turned away at once, and
/// where some do, only the stems that start with them are compared.
fn may_name_a_party(text: &str) -> bool {
    static FILTER: OnceLock<Option<StemFilter>> = OnceLock::new();
    FILTER
        .get_or_init(|| StemFilter::new(&party_stems()))
        .as_ref()
        .is_none_or(|filter| filter.is_in(text.as_bytes()))
}

/// Whether `automaton` finds a match in `text` (an error, which the searches here cannot
/// meet, counts as one). The automata of this step are searched as their own types, not
/// through `AhoCorasick`, whose search asks its automaton for each byte's next state by a
/// call through a pointer: here each search is compiled for its automaton.
fn is_match(automaton: &impl Automaton, text: &str) -> bool {
    automaton
        .try_find(&Input::new(text).earliest(true))
        .map_or(true, |found| found.is_some())
}

/// The filter of [`may_name_a_party`]: the stems ([`party_stems`], ASCII case ignored) by
/// their first bytes. No automaton: building one cost more than the few labels whose first
/// bytes match a stem's take to compare.
struct StemFilter {
    /// One bit for the first bytes of each stem ([`StemStarts`]).
    starts: StemStarts,
    /// The stems of four bytes or more, each with the key of its first four ([`four_key`]),
    /// sorted by key.
    fours: Vec<(usize, &'static str)>,
    /// The stems of three bytes, each with its key ([`three_key`]), sorted by key.
    threes: Vec<(usize, &'static str)>,
}

impl StemFilter {
    /// The filter of `stems`, or `None` when one is shorter than three bytes (which
    /// [`party_stems`] leaves out: then every text counts).
    fn new(stems: &[&'static str]) -> Option<StemFilter> {
        let mut filter = StemFilter {
            starts: StemStarts {
                threes: Box::new([0; 512]),
                fours: Box::new([0; 1024]),
            },
            fours: Vec::new(),
            threes: Vec::new(),
        };
        for &stem in stems {
            match *stem.as_bytes() {
                [a, b, c, d, ..] => {
                    let key = four_key(a, b, c, d);
                    set_bit(&mut filter.starts.fours[..], key);
                    filter.fours.push((key, stem));
                }
                [a, b, c] => {
                    let key = three_key(a, b, c);
                    set_bit(&mut filter.starts.threes[..], key);
                    filter.threes.push((key, stem));
                }
                _ => return None,
            }
        }
        filter.fours.sort_unstable();
        filter.threes.sort_unstable();
        Some(filter)
    }

    /// Whether some stem is in `text`, ASCII case ignored: where three or four bytes in a row
    /// have their bit set ([`StemStarts`]), the stems with their key are compared there.
    fn is_in(&self, text: &[u8]) -> bool {
        // The low five bits of the last four bytes read, the last one lowest.
        let mut last = 0u32;
        for (at, &b) in text.iter().enumerate() {
            last = (last << 5 | u32::from(b & 0x1F)) & 0xF_FFFF;
            if at >= 2 {
                let key = (last & 0x7FFF) as usize;
                if has_bit(&self.starts.threes[..], key) && stem_at(&self.threes, key, text, at - 2)
                {
                    return true;
                }
            }
            if at >= 3 {
                let key = fold_four(last);
                if has_bit(&self.starts.fours[..], key) && stem_at(&self.fours, key, text, at - 3) {
                    return true;
                }
            }
        }
        false
    }
}

/// Whether one of the stems of `stems` (sorted by key) with key `key` is written at byte
/// `start` of `text`, ASCII case ignored.
fn stem_at(stems: &[(usize, &str)], key: usize, text: &[u8], start: usize) -> bool {
    let first = stems.partition_point(|(k, _)| *k < key);
    stems[first..]
        .iter()
        .take_while(|(k, _)| *k == key)
        .any(|(_, stem)| {
            text.get(start..start + stem.len())
                .is_some_and(|there| there.eq_ignore_ascii_case(stem.as_bytes()))
        })
}

/// The first bytes of the stems of [`party_stems`], one bit each: the first four of a
/// stem of four bytes or more ([`four_key`]), the three of a stem of three ([`three_key`]).
/// A stem starts with bytes whose bit is set, so a text in which no three or four bytes in a
/// row have their bit set holds no stem.
struct StemStarts {
    threes: Box<[u64; 512]>,
    fours: Box<[u64; 1024]>,
}

/// Three bytes as one of 32 768 keys: the low five bits of each, so that an ASCII letter and
/// its other case give one key (other bytes may share a key with it: the comparison with the
/// stems decides).
fn three_key(a: u8, b: u8, c: u8) -> usize {
    (usize::from(a & 0x1F) << 10) | (usize::from(b & 0x1F) << 5) | usize::from(c & 0x1F)
}

/// Four bytes as one of 65 536 keys: the low five bits of each as for [`three_key`], the
/// twenty bits folded to sixteen ([`fold_four`]).
fn four_key(a: u8, b: u8, c: u8, d: u8) -> usize {
    let bits = [a, b, c, d]
        .iter()
        .fold(0u32, |bits, &byte| bits << 5 | u32::from(byte & 0x1F));
    fold_four(bits)
}

/// Twenty bits to sixteen, by a multiplication that mixes them (Fibonacci hashing).
#[inline(always)]
fn fold_four(bits: u32) -> usize {
    (bits.wrapping_mul(0x9E37_79B1) >> 16) as usize
}

fn set_bit(bits: &mut [u64], key: usize) {
    bits[key / 64] |= 1 << (key % 64);
}

#[inline(always)]
fn has_bit(bits: &[u64], key: usize) -> bool {
    bits[key / 64] & (1 << (key % 64)) != 0
}

/// The stems of [`may_name_a_party`]: of each label of the classes `party.host`,
/// `party.authority`, `party.maker`, `party.other`, `party.bank` and each compound head, its
/// longest run of ASCII, trimmed, when that is three bytes or more.
fn party_stems() -> Vec<&'static str> {
    let words = lexicon_words();
    words
        .host
        .iter()
        .chain(&words.other)
        .chain(&words.bank)
        .chain(&words.party_heads)
        .map(String::as_str)
        .filter_map(|label| {
            label
                .split(|c: char| !c.is_ascii())
                .max_by_key(|run| run.len())
                .filter(|run| run.trim().len() >= 3)
                .map(str::trim)
        })
        .collect()
}

/// Whether `text` (a heading) names a legal notice: holds a `heading.legal` entry of the
/// lexicon, case ignored.
fn is_legal_marker(text: &str) -> bool {
    let text = text.trim();
    if text.is_ascii() {
        // ASCII text lower-cases byte by byte: a marker is in its lower-case copy exactly when
        // the marker is in it in any ASCII case, and only the ASCII markers can be. One
        // automaton pass instead of a copy and a search for each marker (a page has dozens
        // of headings). A contiguous NFA, not the DFA the builder would pick: building the
        // DFA cost about 850 page faults a run for a few instructions saved a heading.
        static ASCII_MARKERS: OnceLock<Option<contiguous::NFA>> = OnceLock::new();
        return text.len() <= 120
            && ASCII_MARKERS
                .get_or_init(|| {
                    contiguous::NFA::builder()
                        .ascii_case_insensitive(true)
                        .build(
                            lexicon_words()
                                .legal_markers
                                .iter()
                                .filter(|m| m.is_ascii()),
                        )
                        .ok()
                })
                .as_ref()
                .map_or_else(
                    || {
                        lexicon_words()
                            .legal_markers
                            .iter()
                            .any(|m| text.to_lowercase().contains(m.as_str()))
                    },
                    |markers| is_match(markers, text),
                );
    }
    let lower = text.to_lowercase();
    lower.len() <= 120 && {
        // One automaton pass over the lower-case copy instead of a search for each marker.
        static MARKERS: OnceLock<Option<contiguous::NFA>> = OnceLock::new();
        MARKERS
            .get_or_init(|| contiguous::NFA::new(&lexicon_words().legal_markers).ok())
            .as_ref()
            .map_or_else(
                || {
                    lexicon_words()
                        .legal_markers
                        .iter()
                        .any(|m| lower.contains(m.as_str()))
                },
                |markers| is_match(markers, &lower),
            )
    }
}

/// The positions in `text` where a credit phrase starts (at a word start): the matches of the
/// phrases' leftmost-longest automaton, ASCII case ignored, one after the other, that start a
/// word. Each is found by an anchored search where the text's four bytes at a multiple of four
/// may lie inside a phrase ([`CreditFilter`]): the automaton reads a few bytes there instead
/// of every byte of the footer and the page's end.
fn credit_phrases(text: &str) -> Vec<usize> {
    let Some(filter) = CreditFilter::get() else {
        return Vec::new();
    };
    let bytes = text.as_bytes();
    let mut starts = Vec::new();
    // Where the next match may start: after the last one.
    let mut next = 0;
    let mut at = 0;
    while let Some(quad) = bytes.get(at..at + 4) {
        let quad = u32::from_le_bytes([quad[0], quad[1], quad[2], quad[3]]);
        if has_bit(&filter.quads[..], quad_key(quad)) {
            // A phrase holding these four bytes starts at most three bytes before them.
            for start in at.saturating_sub(3).max(next)..=at {
                if start < next {
                    continue;
                }
                let input = Input::new(text).range(start..).anchored(Anchored::Yes);
                let Ok(Some(found)) = filter.automaton.try_find(&input) else {
                    continue;
                };
                next = found.end();
                let at_word_start = text[..start]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric());
                if at_word_start {
                    starts.push(start);
                }
            }
        }
        at += 4;
    }
    starts
}

/// The credit phrases (`credit.maker`) as [`credit_phrases`] reads them: their automaton,
/// anchored, leftmost-longest, ASCII case ignored; and a bit for each four bytes in a row of a
/// phrase from its first four to its fourth to seventh ([`quad_key`]). Every phrase has seven
/// bytes or more, so each place it is written holds one of these at a multiple of four bytes
/// from the text's start, no more than three bytes after its start. `None` when a phrase is
/// shorter or the automaton cannot be built.
struct CreditFilter {
    automaton: contiguous::NFA,
    quads: Box<[u64; 1024]>,
}

impl CreditFilter {
    fn get() -> Option<&'static CreditFilter> {
        static FILTER: OnceLock<Option<CreditFilter>> = OnceLock::new();
        FILTER
            .get_or_init(|| {
                let phrases = &lexicon_words().credits;
                let mut quads = Box::new([0u64; 1024]);
                for phrase in phrases {
                    let bytes = phrase.as_bytes();
                    if bytes.len() < 7 {
                        return None;
                    }
                    for quad in bytes.windows(4).take(4) {
                        let quad = u32::from_le_bytes([quad[0], quad[1], quad[2], quad[3]]);
                        set_bit(&mut quads[..], quad_key(quad));
                    }
                }
                // No prefilter: the searches are anchored. A contiguous NFA, not a DFA: the
                // searches start at a few places and read a few bytes each, and building the DFA
                // cost more than a run of them.
                let automaton = contiguous::NFA::builder()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::LeftmostLongest)
                    .prefilter(false)
                    .build(phrases)
                    .ok()?;
                Some(CreditFilter { automaton, quads })
            })
            .as_ref()
    }
}

/// Four bytes (little-endian) as one of 65 536 keys, an ASCII letter and its other case giving
/// one key: `| 0x20` lower-cases the letters (and maps a few other bytes onto others, which
/// only lets the automaton decide more often), then a multiplication mixes the bits
/// (Fibonacci hashing).
#[inline(always)]
fn quad_key(quad: u32) -> usize {
    ((quad | 0x2020_2020).wrapping_mul(0x9E37_79B1) >> 16) as usize
}

/// Whether `line` starts with a label and a colon (`Label : value`), as the fields of a legal
/// notice do.
fn is_labelled(line: &str) -> bool {
    line.split_once(':').is_some_and(|(label, _)| {
        let label = label.trim();
        !label.is_empty()
            && label.chars().count() <= 40
            && !label.chars().any(|c| c.is_ascii_digit())
    })
}

/// The end of the page where credit lines sit when no footer element holds them, in bytes
/// of text.
const PAGE_END_BYTES: usize = 3_000;

/// What the attribution step reads of a page: its text and the structure the walker kept
/// (`html::Document`), and whose site it is.
#[derive(Debug, Clone, Copy)]
pub struct Layout<'p> {
    /// The page's text, lines separated by `\n`.
    pub text: &'p str,
    /// Byte offset of each line of `text`.
    pub line_starts: &'p [usize],
    /// Heading ranges of `text`, in document order.
    pub headings: &'p [Range<usize>],
    /// The rank of each heading (1–6), at the same index as `headings`; a heading without one
    /// counts as rank 1.
    pub heading_levels: &'p [u8],
    /// Footer ranges of `text` (credit phrases are looked for there).
    pub footers: &'p [Range<usize>],
    /// Byte offsets of `text` where a block starts (`html::Document::block_starts`).
    pub block_starts: &'p [usize],
    /// The page's links as (href, byte offset of the link in `text`).
    pub links: &'p [(&'p str, usize)],
    /// The registrable domain of the page's host (`site::registrable_domain`).
    pub site: Option<&'p str>,
    /// Mail providers' registrable domains (`emails::MAIL_PROVIDERS`): an address there is
    /// no organisation's in particular.
    pub mail_providers: &'p [&'p str],
    /// The names the page's markup gives the business: JSON-LD organisation names,
    /// microdata/hCard names, `og:site_name`.
    pub business_names: &'p [&'p str],
}

impl<'p> Layout<'p> {
    /// A layout of `text` alone: lines, no headings, footers, blocks or links.
    pub fn of_text(text: &'p str, line_starts: &'p [usize]) -> Self {
        Layout {
            text,
            line_starts,
            headings: &[],
            heading_levels: &[],
            footers: &[],
            block_starts: &[],
            links: &[],
            site: None,
            mail_providers: &[],
            business_names: &[],
        }
    }
}

/// The byte ranges of the page's text that belong to another organisation than the business
/// (the attribution step; sorted by start). Each is found one of these ways:
/// - a heading that names a third party ([`party_of`]; a hosting heading, or one with an
///   authority's word, on any page, the others on a legal notice): its section runs over the headings of a lower rank and the
///   address sub-headings ("Adresse", "Dirección") under it, to the next heading of its rank
///   or higher, at most [`MAX_SECTION_LINES`] lines of text after the heading;
/// - a line labelled so (`Hébergeur : …`) and the contact lines after it, up to a block that
///   shows the site's own email ([`is_the_businesss_block`]);
/// - a block (`html::Document::block_starts`) that names another organisation — an
///   authority's, council's, regulator's or chamber's word ([`is_authority_word`]) or a name
///   with a legal form (lexicon class `legal.form`) that is not the site's — followed in the block by an
///   email, link or written web address on another registrable domain than the site's (a mail
///   provider's is no other organisation's), and by nothing on the site's domain: from the
///   name to the end of the block;
/// - a credit phrase in the footer or at the end of the page, to the end of its line.
pub fn third_party_ranges(layout: &Layout<'_>) -> Vec<Range<usize>> {
    let Layout {
        text,
        line_starts,
        headings,
        footers,
        ..
    } = *layout;
    let line_of = |pos: usize| {
        line_starts
            .partition_point(|start| *start <= pos)
            .saturating_sub(1)
    };
    let line_end = |index: usize| {
        line_starts
            .get(index + 1)
            .map_or(text.len(), |next| next - 1)
    };
    // Whether the page is a legal notice: asked only of a page with a heading that names a
    // third party other than the host (most pages have none), and then once.
    let is_legal_notice = || {
        headings.iter().any(|h| is_legal_marker(&text[h.clone()]))
            || line_starts.iter().take(2_000).any(|&start| {
                text.get(start..start + "angaben gemäß".len())
                    .is_some_and(|head| head.eq_ignore_ascii_case("angaben gemäß"))
            })
    };
    let mut legal = None;
    let mut ranges = Vec::new();
    for (index, heading) in headings.iter().enumerate() {
        let party = party_of(&text[heading.clone()]);
        let counts = match party {
            Some(Party::Host) => true,
            Some(Party::Other | Party::Bank) => {
                *legal.get_or_insert_with(is_legal_notice)
                    || names_an_authority(&text[heading.clone()])
            }
            None => false,
        };
        if counts {
            let end = heading_section_end(layout, index);
            let end = if party == Some(Party::Bank) {
                first_contact_field(layout, heading.end..end).unwrap_or(end)
            } else {
                end
            };
            ranges.push(heading.start..end);
        }
    }
    for (index, colon) in first_colons(text, line_starts) {
        let start = &line_starts[index];
        let label = &text[*start..colon];
        // Most lines are rejected here, before any lower-casing.
        if label.len() > 80 || more_chars_than(label, 40) {
            continue;
        }
        let Some(party) = party_of(label) else {
            continue;
        };
        let mut end = line_end(index);
        for next in index + 1..(index + MAX_SECTION_LINES).min(line_starts.len()) {
            let next_start = line_starts[next];
            let next_line = &text[next_start..line_end(next)];
            let heading_here = headings.iter().any(|h| h.start == next_start);
            let field = is_contact_field(next_line);
            if heading_here
                || (is_labelled(next_line) && !field)
                || (party == Party::Bank && field)
                || is_the_businesss_block(layout, next_start)
            {
                break;
            }
            end = line_end(next);
        }
        ranges.push(*start..end);
    }
    ranges.extend(other_organisations_blocks(layout, &ranges));
    // Credits sit in the footer or at the end of the page: only there is the text searched.
    let mut end_of_page = text.len().saturating_sub(PAGE_END_BYTES);
    while !text.is_char_boundary(end_of_page) {
        end_of_page -= 1;
    }
    let mut areas: Vec<Range<usize>> = footers
        .iter()
        .cloned()
        .chain(std::iter::once(end_of_page..text.len()))
        .collect();
    areas.sort_by_key(|area| area.start);
    let mut searched = 0;
    for area in areas {
        let start = area.start.max(searched);
        if start >= area.end || !text.is_char_boundary(start) || !text.is_char_boundary(area.end) {
            continue;
        }
        for at in credit_phrases(&text[start..area.end]) {
            ranges.push(start + at..line_end(line_of(start + at)));
        }
        searched = searched.max(area.end);
    }
    ranges.sort_by_key(|r| r.start);
    ranges
}

/// Whether `heading` is an address sub-heading (lexicon class `label.address`: "Adresse",
/// "Dirección"; a colon after it too).
fn is_address_heading(heading: &str) -> bool {
    let heading = heading.trim().trim_end_matches([':', '.']).trim_end();
    heading.len() <= 24 && {
        let lower = heading.to_lowercase();
        lexicon_words().address.contains(&lower)
    }
}

/// Where the section of third-party heading `index` of `layout` ends, in blocks
/// (`html::Document::block_starts`): the blocks under the heading are the third party's up to
/// the next heading of its rank or higher that is not an address sub-heading, or to the end of
/// the block on the [`MAX_SECTION_LINES`]th line of text (the heading's own and those of the
/// headings it runs over not counted; a block runs on at most [`MAX_SECTION_LINES`] lines
/// more), and never over a block after the first that is the business's
/// ([`is_the_businesss_block`]): that block and those after it are the business's again.
fn heading_section_end(layout: &Layout<'_>, index: usize) -> usize {
    let from = layout.headings[index].end;
    let (end, capped) = heading_window_end(layout, index);
    let Layout {
        text,
        line_starts,
        block_starts,
        ..
    } = *layout;
    if block_starts.is_empty() {
        return end;
    }
    // The block the line cap cut runs on to its end, within a bound.
    let mut end = end;
    if capped && end < text.len() {
        let next_block = block_starts
            .get(block_starts.partition_point(|start| *start <= end))
            .copied()
            .unwrap_or(text.len());
        let first_line = line_starts.partition_point(|start| *start < end);
        let bound = line_starts
            .get(first_line + MAX_SECTION_LINES)
            .copied()
            .unwrap_or(text.len());
        end = next_block.min(bound);
    }
    // The block right under the heading is the party's it names; from the next one on, the
    // first that is the business's ends the section.
    let first = block_starts.partition_point(|start| *start < from) + 1;
    block_starts
        .get(first..)
        .unwrap_or_default()
        .iter()
        .take_while(|start| **start < end)
        .find(|&&start| is_the_businesss_block(layout, start))
        .map_or(end, |&start| start.min(end))
}

/// Whether a block of `layout` starts at byte `start` and is the business's, whatever section
/// it follows: it shows the site's own email ([`shows_the_sites_email`]), or its first line
/// spells the site's name ([`spells_the_site`]), holds a name the page's markup gives the
/// business ([`names_the_business`]) or links to the site's homepage ([`is_home_link`]).
fn is_the_businesss_block(layout: &Layout<'_>, start: usize) -> bool {
    let blocks = layout.block_starts;
    let Ok(index) = blocks.binary_search(&start) else {
        return false;
    };
    let end = blocks.get(index + 1).copied().unwrap_or(layout.text.len());
    let first_line = layout.text[start..end].lines().next().unwrap_or("");
    let first_line_end = start + first_line.len();
    spells_the_site(first_line, layout.site)
        || names_the_business(first_line, layout.business_names)
        || layout.links.iter().any(|(href, pos)| {
            (start..=first_line_end).contains(pos) && is_home_link(href, layout.site)
        })
        || shows_the_sites_email(layout, start..end)
}

/// Whether `line` holds one of `names` (the names the page's markup gives the business) as
/// whole words, letter case aside. Names of fewer than four letters are not read (too many
/// lines hold them by chance), nor lines of over 200 bytes.
fn names_the_business(line: &str, names: &[&str]) -> bool {
    if names.is_empty() || line.len() > 200 {
        return false;
    }
    let line = line.to_lowercase();
    names.iter().any(|name| {
        let name = name.trim().to_lowercase();
        name.chars().filter(|c| c.is_alphabetic()).count() >= 4
            && line.match_indices(name.as_str()).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + name.len()..].chars().next();
                !before.is_some_and(char::is_alphanumeric)
                    && !after.is_some_and(char::is_alphanumeric)
            })
    })
}

/// Whether `href` (as written in the page) links to the homepage of `site` (a registrable
/// domain): a path `/` or `/index.…` with no query, relative (`/`, `./`) or on a host of the
/// site (`https://www.example.de/`).
fn is_home_link(href: &str, site: Option<&str>) -> bool {
    let href = href.trim();
    let href = href.split('#').next().unwrap_or("");
    if href.contains('?') {
        return false;
    }
    let is_home_path = |path: &str| path.is_empty() || path == "/" || path.starts_with("/index.");
    if matches!(href, "/" | "./") || href.starts_with("/index.") {
        return true;
    }
    let rest = ["https://", "http://", "//"].iter().find_map(|scheme| {
        href.get(..scheme.len())
            .filter(|head| head.eq_ignore_ascii_case(scheme))
            .map(|_| &href[scheme.len()..])
    });
    let (Some(rest), Some(site)) = (rest, site) else {
        return false;
    };
    let (host, path) = rest
        .find('/')
        .map_or((rest, ""), |slash| rest.split_at(slash));
    let host = host.split(':').next().unwrap_or("").trim_end_matches('.');
    is_home_path(path) && host.contains('.') && crate::site::registrable_domain(host) == site
}

/// Whether consecutive words of `line` spell the label of the site's registrable domain,
/// hyphens left out ("Tischlerei Muster" on `tischlerei-muster.de`, "Example Florist" on
/// `examplefloristexample.co.uk` no): the company name found is the domain's. Labels of fewer
/// than six letters are not read (too many words spell them by chance).
fn spells_the_site(line: &str, site: Option<&str>) -> bool {
    let Some(label) = site.and_then(|site| site.split('.').next()) else {
        return false;
    };
    let label: String = label.chars().filter(|c| *c != '-').collect();
    if label.len() < 6 || line.len() > 200 {
        return false;
    }
    let words: Vec<String> = line
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    (0..words.len()).any(|first| {
        let mut spelled = String::new();
        words[first..].iter().any(|word| {
            spelled.push_str(word);
            spelled == label
        })
    })
}

/// Whether the text of `block` of `layout`, or a `mailto:` link in it, shows an email on the
/// site's registrable domain.
fn shows_the_sites_email(layout: &Layout<'_>, block: Range<usize>) -> bool {
    let Some(site) = layout.site else {
        return false;
    };
    let body = &layout.text[block.clone()];
    let in_text = memchr::memchr_iter(b'@', body.as_bytes()).any(|at| {
        let start = body[..at]
            .rfind(|c: char| c.is_whitespace() || matches!(c, '<' | '(' | ':' | ','))
            .map_or(0, |i| i + 1);
        let end = body[at..]
            .find(|c: char| c.is_whitespace() || matches!(c, '>' | ')' | ','))
            .map_or(body.len(), |i| at + i);
        domain_of_token(&body[start..end]).as_deref() == Some(site)
    });
    in_text
        || layout.links.iter().any(|(href, pos)| {
            block.contains(pos)
                && href
                    .get(..7)
                    .is_some_and(|scheme| scheme.eq_ignore_ascii_case("mailto:"))
                && domain_of_token(href).as_deref() == Some(site)
        })
}

/// The end of heading `index`'s section counted in lines ([`heading_section_end`]), and
/// whether the line cap ended it.
fn heading_window_end(layout: &Layout<'_>, index: usize) -> (usize, bool) {
    let Layout {
        text,
        line_starts,
        headings,
        heading_levels,
        ..
    } = *layout;
    let level = |i: usize| heading_levels.get(i).copied().unwrap_or(1);
    let heading = &headings[index];
    let mut next = index + 1;
    let mut lines_left = MAX_SECTION_LINES - 1;
    let first_line = line_starts.partition_point(|start| *start <= heading.end);
    for &start in &line_starts[first_line.min(line_starts.len())..] {
        while headings.get(next).is_some_and(|h| h.end <= start) {
            next += 1;
        }
        if let Some(sub) = headings.get(next).filter(|h| h.start <= start) {
            if level(next) <= level(index) && !is_address_heading(&text[sub.clone()]) {
                return (sub.start.min(start), false);
            }
            continue;
        }
        if lines_left == 0 {
            return (start, true);
        }
        lines_left -= 1;
    }
    (text.len(), false)
}

/// Whether `text` (a heading) has an authority's word ([`is_authority_word`]).
fn names_an_authority(text: &str) -> bool {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .any(is_authority_word)
}

/// Whether the lower-case word `word` names a kind of organisation (lexicon class `org.type`:
/// authority, council, regulator, chamber …; the word starts with one: "authorities",
/// "úřadu"), or ends in an authority's compound head (`compound.authority`).
fn is_authority_word(word: &str) -> bool {
    starts_with_an_org_type(word)
        || lexicon_words()
            .authority_heads
            .iter()
            .any(|head| word.len() > head.len() && word.ends_with(head.as_str()))
}

/// Whether the lower-case word `word` starts with an `org.type` word: one anchored automaton
/// pass, built once, instead of a comparison with each word of the class (the attribution step
/// asks this of every word of every block that shows a domain).
fn starts_with_an_org_type(word: &str) -> bool {
    static KINDS: OnceLock<Option<contiguous::NFA>> = OnceLock::new();
    KINDS
        .get_or_init(|| contiguous::NFA::new(&lexicon_words().org_types).ok())
        .as_ref()
        .map_or_else(
            || {
                lexicon_words()
                    .org_types
                    .iter()
                    .any(|kind| word.starts_with(kind.as_str()))
            },
            |kinds| {
                kinds
                    .try_find(&Input::new(word).anchored(Anchored::Yes).earliest(true))
                    .is_ok_and(|found| found.is_some())
            },
        )
}

/// The registrable domain an email, URL or written web address names, if any: `who@host`,
/// `scheme://host/…`, `www.host…`.
fn domain_of_token(token: &str) -> Option<String> {
    host_of_token(token).map(crate::site::registrable_domain)
}

/// The host an email, URL or written web address names ([`domain_of_token`]), as written.
fn host_of_token<'t>(token: &'t str) -> Option<&'t str> {
    let token = token.trim_matches(|c: char| !c.is_alphanumeric());
    // Byte scans: the four ends of a host and `@` are ASCII.
    let host_end = |rest: &'t str| {
        let end = rest
            .bytes()
            .position(|b| matches!(b, b'/' | b'?' | b'#' | b':'))
            .unwrap_or(rest.len());
        &rest[..end]
    };
    let host = if let Some(at) = memchr::memrchr(b'@', token.as_bytes()) {
        &token[at + 1..]
    } else if let Some(rest) = crate::extract::ascii::after_web_scheme(token) {
        host_end(rest)
    } else if token
        .get(..4)
        .is_some_and(|head| head.eq_ignore_ascii_case("www."))
    {
        host_end(token)
    } else {
        return None;
    };
    let host = host.trim_end_matches('.');
    (host.contains('.') && !host.starts_with('.')).then_some(host)
}

/// Whose a domain is, seen from the page of `site`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DomainOwner {
    /// The site's own registrable domain.
    Site,
    /// A mail provider's (no organisation's in particular).
    Provider,
    /// Another organisation's.
    Other,
}

fn domain_owner(domain: &str, layout: &Layout<'_>) -> DomainOwner {
    if layout.site == Some(domain) {
        DomainOwner::Site
    } else if layout.mail_providers.contains(&domain) {
        DomainOwner::Provider
    } else {
        DomainOwner::Other
    }
}

/// Whose the domain a token names is ([`domain_of_token`], [`domain_owner`]), remembered per
/// host as written: a page links to its own host and a few others hundreds of times, and the
/// public-suffix look-up of [`crate::site::registrable_domain`] is the costly part.
struct Owners<'l, 'p> {
    layout: &'l Layout<'p>,
    by_host: BTreeMap<&'p str, DomainOwner>,
    /// The last [`RECENT_HOSTS`] hosts looked up in `by_host`, each with its owner and
    /// whether a link can be seen to be written with it ([`may_be_seen_in_a_link`]);
    /// `next_recent` is the slot the next one takes.
    recent: [Option<(&'p str, DomainOwner, bool)>; RECENT_HOSTS],
    next_recent: usize,
    /// The start of the last token answered by a recent host, up to the host's end
    /// (`https://www.example.com`), with the host's owner: a page writes most of its links
    /// so, and such a link is answered by one comparison, before its scheme is read.
    hot: Option<(&'p str, DomainOwner)>,
}

/// Hosts [`Owners`] compares a token with before it scans the token or searches its map: a
/// page's links alternate between its own host and a few others (its social profiles, a
/// booking service).
const RECENT_HOSTS: usize = 4;

impl<'l, 'p> Owners<'l, 'p> {
    fn new(layout: &'l Layout<'p>) -> Self {
        Owners {
            layout,
            by_host: BTreeMap::new(),
            recent: [None; RECENT_HOSTS],
            next_recent: 0,
            hot: None,
        }
    }

    /// The owner of the domain `token` names, if it names one.
    fn of_token(&mut self, token: &'p str) -> Option<DomainOwner> {
        // An `http(s)://` link written with a recent host is answered before the token is
        // scanned for its host ([`written_with_host`]); its `@` is looked for last (most links
        // have none, and most tokens are written with no recent host).
        // The hot start is a scheme `web_rest` reads and a recent host that may be seen in a
        // link: a token that starts with it, then ends or goes on with a byte that ends a
        // host, is answered as the recent host would answer it.
        if let Some((start, owner)) = self.hot {
            if token.as_bytes().starts_with(start.as_bytes())
                && token
                    .as_bytes()
                    .get(start.len())
                    .is_none_or(|b| matches!(b, b'/' | b'?' | b'#' | b':'))
                && memchr::memchr(b'@', token.as_bytes()).is_none()
            {
                return Some(owner);
            }
        }
        let rest = web_rest(token);
        let mut without_at = None;
        if let Some(rest) = rest {
            let recent = self
                .recent
                .iter()
                .flatten()
                .find(|(host, _, seen)| *seen && starts_with_host(rest, host));
            if let Some(&(host, owner, _)) = recent {
                let none = memchr::memchr(b'@', token.as_bytes()).is_none();
                if none {
                    self.hot = Some((&token[..token.len() - rest.len() + host.len()], owner));
                    return Some(owner);
                }
                without_at = Some(none);
            }
        }
        let host = match rest.and_then(|rest| {
            let written = written_host(rest)?;
            without_at
                .unwrap_or_else(|| memchr::memchr(b'@', token.as_bytes()).is_none())
                .then_some(written)
        }) {
            Some(written) => {
                (written.contains('.') && !written.starts_with('.')).then_some(written)?
            }
            None => host_of_token(token)?,
        };
        // Compared with the recent hosts before the map is searched.
        if let Some((_, owner, _)) = self.recent.iter().flatten().find(|(h, _, _)| *h == host) {
            return Some(*owner);
        }
        let layout = self.layout;
        let owner = *self
            .by_host
            .entry(host)
            .or_insert_with(|| domain_owner(&crate::site::registrable_domain(host), layout));
        self.recent[self.next_recent] = Some((host, owner, may_be_seen_in_a_link(host)));
        self.next_recent = (self.next_recent + 1) % RECENT_HOSTS;
        Some(owner)
    }
}

/// The host of an `http(s)://` link as written (`rest` is what follows the scheme; the link
/// holds no `@`): up to the first byte that ends a host, when that host ends in an ASCII
/// letter or digit. [`host_of_token`] reads the same host from such a link, or none when it
/// has no dot or starts with one; the trimming of the link's ends cannot reach into it.
fn written_host(rest: &str) -> Option<&str> {
    let end = rest
        .bytes()
        .position(|b| matches!(b, b'/' | b'?' | b'#' | b':'))
        .unwrap_or(rest.len());
    let host = &rest[..end];
    host.as_bytes()
        .last()
        .is_some_and(u8::is_ascii_alphanumeric)
        .then_some(host)
}

/// Whether [`host_of_token`] reads `host` (a host it has read before) from `token`: `token` is
/// `http://` or `https://` (any case) and `host` as written ([`web_rest_without_at`],
/// [`starts_with_host`]), and `host` is one [`may_be_seen_in_a_link`]. A `false` says
/// nothing: the caller reads the token. ([`Owners::of_token`] reads its two parts apart: the
/// token's once, the host's once per host.)
#[cfg(test)]
fn written_with_host(token: &str, host: &str) -> bool {
    may_be_seen_in_a_link(host)
        && web_rest_without_at(token).is_some_and(|rest| starts_with_host(rest, host))
}

/// What follows `http://` or `https://` (any case) at the start of `token`, when `token`
/// holds no `@` (from an `@` on, [`host_of_token`] reads the host after it).
#[cfg(test)]
fn web_rest_without_at(token: &str) -> Option<&str> {
    web_rest(token).filter(|_| memchr::memchr(b'@', token.as_bytes()).is_none())
}

/// What follows `http://` or `https://` (any case) at the start of `token`.
fn web_rest(token: &str) -> Option<&str> {
    let bytes = token.as_bytes();
    let scheme_end = match bytes.get(..5)? {
        [h, t1, t2, p, b':'] if [*h, *t1, *t2, *p].eq_ignore_ascii_case(b"http") => 4,
        [h, t1, t2, p, s] if [*h, *t1, *t2, *p, *s].eq_ignore_ascii_case(b"https") => 5,
        _ => return None,
    };
    bytes
        .get(scheme_end..scheme_end + 3)
        .filter(|sep| *sep == b"://")
        .map(|_| &token[scheme_end + 3..])
}

/// Whether `rest` starts with `host`, then ends or goes on with one of the bytes that end a
/// host in [`host_of_token`].
fn starts_with_host(rest: &str, host: &str) -> bool {
    rest.as_bytes().starts_with(host.as_bytes())
        && rest
            .as_bytes()
            .get(host.len())
            .is_none_or(|b| matches!(b, b'/' | b'?' | b'#' | b':'))
}

/// Whether `host` (read by [`host_of_token`]) is one that [`written_with_host`] can see in a
/// link: it ends in an ASCII letter or digit, so that the trimming of a token's ends cannot
/// reach into it, and holds none of the bytes that end a host (one read after an `@` may).
fn may_be_seen_in_a_link(host: &str) -> bool {
    host.as_bytes()
        .last()
        .is_some_and(u8::is_ascii_alphanumeric)
        && !host.bytes().any(|b| matches!(b, b'/' | b'?' | b'#' | b':'))
}

/// Whether the organisation name that ends before byte `end` of `block` (the words before a
/// legal form) is the site's: one of its words of four letters or more is in the site's
/// domain label, hyphens and dots left out.
fn names_the_site(block: &str, end: usize, site: Option<&str>) -> bool {
    let Some(site) = site else {
        return false;
    };
    let label: String = site
        .split('.')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect();
    block[..end]
        .split(|c: char| !c.is_alphanumeric())
        .rev()
        .filter(|w| !w.is_empty())
        .take(4)
        .any(|w| w.chars().count() >= 4 && label.contains(&w.to_lowercase()))
}

/// The blocks of `layout` (outside `found`) that another organisation owns, from where they
/// name it to their end (see [`third_party_ranges`]). Only blocks with evidence of another
/// registrable domain are read: an `@`, a link to another site, `www.` or `://` in the text.
/// Only links that may name a host ([`may_name_a_host`]) are looked up, and only blocks that
/// may name an organisation ([`may_mention`]) are read word by word.
fn other_organisations_blocks(layout: &Layout<'_>, found: &[Range<usize>]) -> Vec<Range<usize>> {
    let Layout {
        text,
        block_starts,
        links,
        site,
        ..
    } = *layout;
    let block_of = |pos: usize| block_around(block_starts, text.len(), pos);
    // Links in order of their positions (the walker records them so; checked, as a link's
    // position is the text's length when it was met): the links inside a block are found by
    // two binary searches rather than a pass over every link of the page for each block.
    let links_in_order = links.is_sorted_by_key(|(_, pos)| *pos);
    let mut owners_seen = Owners::new(layout);
    // Blocks holding evidence of another organisation's domain, each once: those with an
    // `@`, `www.` or `://` in the text, and those with a link to another organisation's
    // domain.
    let mut blocks: Vec<Range<usize>> = memchr::memchr_iter(b'@', text.as_bytes())
        .chain(memchr::memmem::find_iter(text.as_bytes(), "www."))
        .chain(memchr::memmem::find_iter(text.as_bytes(), "://"))
        .map(block_of)
        .collect();
    // Whose a link's domain is, is asked of each link that may name a host but sits outside
    // the block of the last link found to name another's: most such links are the site's
    // own, answered by the host read last ([`Owners::of_token`]), and most blocks with one
    // hold no organisation's name, which the automaton of [`may_mention`] would read.
    let mut last_linked: Option<Range<usize>> = None;
    for (href, pos) in links {
        if last_linked
            .as_ref()
            .is_some_and(|block| block.start <= *pos && *pos < block.end)
            || !may_name_a_host(href)
            || owners_seen.of_token(href) != Some(DomainOwner::Other)
        {
            continue;
        }
        let block = block_of(*pos);
        blocks.push(block.clone());
        last_linked = Some(block);
    }
    blocks.sort_by_key(|b| b.start);
    blocks.dedup();
    let mut owned = Vec::new();
    for block in blocks {
        if block.len() > 2_000 || inside(found, block.start) {
            continue;
        }
        let body = &text[block.clone()];
        if !may_mention(body) {
            continue;
        }
        let Some(mention) = other_organisation_mention(body, site, layout.business_names) else {
            continue;
        };
        // Domains named after the mention: in the text, and by the links there.
        let after = &body[mention..];
        let from = block.start + mention;
        let candidates = if links_in_order {
            let first = links.partition_point(|(_, pos)| *pos < from);
            let end = first + links[first..].partition_point(|(_, pos)| *pos < block.end);
            &links[first..end]
        } else {
            links
        };
        let link_tokens = candidates
            .iter()
            .filter(|(_, pos)| *pos >= from && *pos < block.end)
            .map(|(href, _)| *href);
        let owners: Vec<DomainOwner> = link_tokens
            .chain(after.split_whitespace())
            .filter_map(|token| owners_seen.of_token(token))
            .collect();
        if owners.contains(&DomainOwner::Other) && !owners.contains(&DomainOwner::Site) {
            owned.push(block.start + mention..block.end);
        }
    }
    owned
}

/// The block (byte range of a text of `len` bytes whose blocks start at `block_starts`,
/// sorted) that byte `pos` is in: from the last block start at or before it (or the text's
/// start) to the next block start (or the text's end).
fn block_around(block_starts: &[usize], len: usize, pos: usize) -> Range<usize> {
    let index = block_starts.partition_point(|start| *start <= pos);
    let start = index.checked_sub(1).map_or(0, |i| block_starts[i]);
    let end = block_starts.get(index).copied().unwrap_or(len);
    start..end
}

/// Whether [`host_of_token`] may find a host in `href`: `false` only when it finds none (a
/// relative link: no `@`, and no `http://`, `https://` or `www.` after its leading
/// punctuation), with no look-up.
fn may_name_a_host(href: &str) -> bool {
    // The heads first (a link written with a scheme starts with one), the `@` last. Leading
    // ASCII punctuation is stepped over byte by byte (`/`, `./`, `//`); from a character
    // beyond ASCII on, which may be a letter or not, character by character.
    let skipped = href
        .bytes()
        .position(|b| !b.is_ascii() || b.is_ascii_alphanumeric())
        .unwrap_or(href.len());
    let token = if href.as_bytes().get(skipped).is_some_and(|b| !b.is_ascii()) {
        href[skipped..].trim_start_matches(|c: char| !c.is_alphanumeric())
    } else {
        &href[skipped..]
    };
    ["https://", "http://", "www."]
        .iter()
        .any(|head| crate::extract::ascii::starts_with_ignore_ascii_case(token, head))
        || memchr::memchr(b'@', href.as_bytes()).is_some()
}

/// Whether [`other_organisation_mention`] may find a name in `block`: `false` only when it
/// finds none. A word it reads as an authority's holds an `org.type` word or
/// `compound.authority` head as [`authority_stems`] spells it; a legal form it reads is one
/// of the `legal.form` entries as a whole word with a capital, or a word with dots inside
/// that is one without them ([`dotted_word_may_be_a_legal_form`]). The two characters whose
/// lower case holds an ASCII letter (KELVIN SIGN, `İ`) always count.
fn may_mention(block: &str) -> bool {
    let Some(filter) = MentionFilter::get() else {
        return true;
    };
    let automaton = &filter.automaton;
    let Ok(start) = automaton.start_state(Anchored::No) else {
        return true;
    };
    let bytes = block.as_bytes();
    let any_counts = |state: StateID, end: usize| any_match_counts(filter, bytes, state, end);
    if automaton.is_match(start) && any_counts(start, 0) {
        return true;
    }
    // Two walks of the automaton side by side, over the block's two halves: each step waits
    // for the state the step before loaded from a table of a few hundred kilobytes, and two
    // independent walks wait at once. The second half starts `overlap` bytes early, so that
    // a match ending in it that starts in the first half is seen (a match is reported by the
    // walk that read all of it; one in the overlap, by both).
    // Under the standard match semantics an unanchored walk never meets the dead state (a
    // later match is never cut off by an earlier one), so the two walks see what one sees.
    let overlap = automaton.max_pattern_len().saturating_sub(1);
    if bytes.len() < overlap + TWO_WALKS_FROM || automaton.match_kind() != MatchKind::Standard {
        return may_mention_in_one_walk(filter, start, bytes);
    }
    let first_len = (bytes.len() + overlap) / 2;
    let second = first_len - overlap;
    let (mut first_state, mut second_state) = (start, start);
    for at in 0..first_len {
        match (
            mention_step(filter, bytes, &mut first_state, at),
            mention_step(filter, bytes, &mut second_state, second + at),
        ) {
            (Some(in_first), Some(in_second)) => {
                if in_first || in_second {
                    return true;
                }
            }
            _ => return may_mention_in_one_walk(filter, start, bytes),
        }
    }
    // The second half is one byte longer when the block's length and `overlap` differ in
    // parity.
    for at in second + first_len..bytes.len() {
        match mention_step(filter, bytes, &mut second_state, at) {
            Some(false) => {}
            Some(true) => return true,
            None => return may_mention_in_one_walk(filter, start, bytes),
        }
    }
    false
}

/// The shortest block (past the longest pattern's length) that [`may_mention`] reads in two
/// walks: in a shorter one, the overlap of its halves costs more than it saves.
const TWO_WALKS_FROM: usize = 16;

/// A step of a walk of [`may_mention`]'s automaton from `state` over the byte at `at` of
/// `bytes`: whether the block may mention a name by that byte, or `None` when the walk met
/// the dead state (after which the block is read in one walk).
#[inline(always)]
fn mention_step(
    filter: &MentionFilter,
    bytes: &[u8],
    state: &mut StateID,
    at: usize,
) -> Option<bool> {
    let automaton = &filter.automaton;
    let b = bytes[at];
    *state = automaton.next_state(Anchored::No, *state, b);
    if automaton.is_special(*state) {
        if automaton.is_dead(*state) {
            return None;
        }
        if automaton.is_match(*state) && any_match_counts(filter, bytes, *state, at + 1) {
            return Some(true);
        }
    }
    Some(b == b'.' && dotted_word_may_be_a_legal_form(bytes, at))
}

/// Whether a match of `filter`'s automaton ending at byte `end` of `bytes` in `state` counts
/// ([`Automaton::match_len`], every match ending there, as an overlapping search reports
/// them): a pattern that counts anywhere, or a legal form as a whole word with a capital.
#[inline(always)]
fn any_match_counts(filter: &MentionFilter, bytes: &[u8], state: StateID, end: usize) -> bool {
    let automaton = &filter.automaton;
    let word_byte = |b: u8| b.is_ascii_alphanumeric();
    let counts = |pattern: PatternID, start: usize, end: usize| {
        !filter.whole_word[pattern.as_usize()]
            || (!start
                .checked_sub(1)
                .is_some_and(|before| word_byte(bytes[before]))
                && !bytes.get(end).copied().is_some_and(word_byte)
                && bytes[start..end].iter().any(u8::is_ascii_uppercase))
    };
    (0..automaton.match_len(state)).any(|index| {
        let pattern = automaton.match_pattern(state, index);
        counts(pattern, end - automaton.pattern_len(pattern), end)
    })
}

/// [`may_mention`] in one walk of the automaton from `start` (its start state) over `bytes`:
/// a short block, or one where a walk met the dead state.
fn may_mention_in_one_walk(filter: &MentionFilter, start: StateID, bytes: &[u8]) -> bool {
    let automaton = &filter.automaton;
    // The automaton's states walked here, byte by byte, rather than by its overlapping
    // iterator: a block is read in one loop, with no search state kept between matches
    // (most blocks have none). A legal form written with dots ("S.A", "s.r.o"): the word
    // around each dot inside a word, its dots left out, is read in the same loop.
    let dotted = |at: usize| dotted_word_may_be_a_legal_form(bytes, at);
    let mut state = start;
    for (at, &b) in bytes.iter().enumerate() {
        state = automaton.next_state(Anchored::No, state, b);
        if automaton.is_special(state) {
            if automaton.is_dead(state) {
                // No match from here on (an unanchored search meets none): the dots only.
                return memchr::memchr_iter(b'.', &bytes[at..]).any(|dot| dotted(at + dot));
            }
            if automaton.is_match(state) && any_match_counts(filter, bytes, state, at + 1) {
                return true;
            }
        }
        if b == b'.' && dotted(at) {
            return true;
        }
    }
    false
}

/// Whether the word of [`other_organisation_mention`] around the `.` at byte `at` of `block`
/// may be a legal form: `false` when the dot is inside no word, or the word is ASCII and,
/// its dots left out and lower-cased, no `legal.form` entry. A character other than ASCII
/// next to it may be a letter: then it may be one.
fn dotted_word_may_be_a_legal_form(block: &[u8], at: usize) -> bool {
    let (Some(&before), Some(&after)) = (at.checked_sub(1).map(|i| &block[i]), block.get(at + 1))
    else {
        return false;
    };
    if !before.is_ascii() || !after.is_ascii() {
        return true;
    }
    // Inside a word: a letter or digit before it, a letter after it.
    if !before.is_ascii_alphanumeric() || !after.is_ascii_alphabetic() {
        return false;
    }
    // The word's start: back over letters, digits and dots inside the word.
    let mut start = at;
    while start > 0 {
        let b = block[start - 1];
        if b.is_ascii_alphanumeric() {
            start -= 1;
        } else if !b.is_ascii() {
            return true;
        } else if b == b'.' && block[start].is_ascii_alphabetic() && start >= 2 {
            let two_before = block[start - 2];
            if !two_before.is_ascii() {
                return true;
            }
            if !two_before.is_ascii_alphanumeric() {
                break;
            }
            start -= 1;
        } else {
            break;
        }
    }
    // Its end: on over letters, digits and dots before a letter.
    let mut end = at + 1;
    while let Some(&b) = block.get(end) {
        if b.is_ascii_alphanumeric() {
            end += 1;
        } else if !b.is_ascii() {
            return true;
        } else if b == b'.' {
            match block.get(end + 1) {
                Some(next) if !next.is_ascii() => return true,
                Some(next) if next.is_ascii_alphabetic() => end += 1,
                _ => break,
            }
        } else {
            break;
        }
    }
    let mut letters = [0u8; 16];
    let mut len = 0;
    for &b in block[start..end].iter().filter(|b| **b != b'.') {
        let Some(slot) = letters.get_mut(len) else {
            // Longer than any form the filter reads.
            return lexicon_words().legal_forms.iter().any(|f| f.len() >= 16);
        };
        *slot = b.to_ascii_lowercase();
        len += 1;
    }
    is_legal_form(&letters[..len])
}

/// Whether `letters` (lower-case, no dots) is a `legal.form` entry without its dots: one
/// binary search of the sorted forms.
fn is_legal_form(letters: &[u8]) -> bool {
    lexicon_words()
        .legal_forms
        .binary_search_by(|form| form.as_bytes().cmp(letters))
        .is_ok()
}

/// The automaton of [`may_mention`], built once from the lexicon.
struct MentionFilter {
    automaton: dfa::DFA,
    /// For each pattern, whether it counts only as a whole word with a capital (a legal
    /// form) rather than anywhere.
    whole_word: Vec<bool>,
}

impl MentionFilter {
    fn get() -> Option<&'static MentionFilter> {
        static FILTER: OnceLock<Option<MentionFilter>> = OnceLock::new();
        FILTER
            .get_or_init(|| {
                let words = lexicon_words();
                let mut patterns: Vec<String> = vec!["\u{212A}".into(), "\u{130}".into()];
                for word in words.org_types.iter().chain(&words.authority_heads) {
                    patterns.extend(authority_stems(word));
                }
                patterns.sort_unstable();
                patterns.dedup();
                let mut whole_word = vec![false; patterns.len()];
                for form in &words.legal_forms {
                    if form.contains(' ') || form.is_empty() {
                        // A word never holds a space: no word is this form.
                        continue;
                    }
                    if form.is_ascii() {
                        patterns.push(form.clone());
                        whole_word.push(true);
                    } else {
                        for stem in authority_stems(form) {
                            patterns.push(stem);
                            whole_word.push(false);
                        }
                    }
                }
                // No prefilter, as for `may_name_a_party`: blocks are short. A DFA, not the
                // contiguous NFA the builder picks for this many patterns, searched as its
                // own type ([`is_match`]): it costs a few instructions a byte, and every
                // block with a link that may name a host is read.
                let automaton = dfa::DFA::builder()
                    .ascii_case_insensitive(true)
                    .prefilter(false)
                    .build(&patterns)
                    .ok()?;
                Some(MentionFilter {
                    automaton,
                    whole_word,
                })
            })
            .as_ref()
    }
}

/// What a word whose lower case holds `entry` (lower-case) holds: the entry itself when it
/// is ASCII (ASCII case aside); else the entry in each case of its other letters
/// ([`cased_forms`]) when that makes at most 32 spellings; else its longest run of ASCII
/// letters if three or more; else its first two characters in each of their cases.
fn authority_stems(entry: &str) -> Vec<String> {
    if entry.is_ascii() {
        return vec![entry.to_owned()];
    }
    if let Some(whole) = spellings(entry.chars(), 32) {
        return whole;
    }
    if let Some(run) = entry
        .split(|c: char| !c.is_ascii())
        .max_by_key(|run| run.len())
        .filter(|run| run.len() >= 3)
    {
        return vec![run.to_owned()];
    }
    spellings(entry.chars().take(2), usize::MAX).unwrap_or_default()
}

/// `chars` spelled in each case of their letters other than ASCII ([`cased_forms`]; ASCII
/// letters are left to the automaton's ASCII case folding), if there are at most `most`
/// spellings.
fn spellings(chars: impl Iterator<Item = char>, most: usize) -> Option<Vec<String>> {
    let mut spelled = vec![String::new()];
    for c in chars {
        if c.is_ascii() {
            // One form: each spelling grows in place.
            for stem in &mut spelled {
                stem.push(c);
            }
            continue;
        }
        let forms = cased_forms(c);
        spelled = spelled
            .iter()
            .flat_map(|stem| {
                forms.iter().map(move |&form| {
                    let mut spelling = String::with_capacity(stem.len() + form.len_utf8());
                    spelling.push_str(stem);
                    spelling.push(form);
                    spelling
                })
            })
            .collect();
        if spelled.len() > most {
            return None;
        }
    }
    Some(spelled)
}

/// The ranges of code points holding every character whose lower case is not itself
/// (checked against the standard library's tables by a unit test).
const CASED: [(u32, u32); 16] = [
    (0x41, 0x24E),
    (0x370, 0x556),
    (0x10A0, 0x10CD),
    (0x13A0, 0x13F5),
    (0x1C89, 0x1CBF),
    (0x1E00, 0x1FFC),
    (0x2126, 0x2183),
    (0x24B6, 0x24CF),
    (0x2C00, 0x2CF2),
    (0xA640, 0xA7F5),
    (0xFF21, 0xFF3A),
    (0x10400, 0x10595),
    (0x10C80, 0x10D65),
    (0x118A0, 0x118BF),
    (0x16E40, 0x16EB8),
    (0x1E900, 0x1E921),
];

/// `lower` (a lower-case character) and every character whose lower case it is, as
/// `str::to_lowercase` maps them (`Σ` to `ς` at a word's end).
fn cased_forms(lower: char) -> Vec<char> {
    // Each character of [`CASED`] whose lower case is one other character, with it: one
    // pass over the ranges, whatever the number of letters asked about.
    // Sorted by lower case, then by the character: a letter's pairs are found by a binary
    // search, in the order of the characters (the order of a pass over the ranges).
    static PAIRS: OnceLock<Vec<(char, char)>> = OnceLock::new();
    let pairs = PAIRS.get_or_init(|| {
        let mut pairs: Vec<(char, char)> = CASED
            .iter()
            .flat_map(|&(from, to)| from..=to)
            .filter_map(char::from_u32)
            .filter_map(|upper| {
                let mut mapped = upper.to_lowercase();
                match (mapped.next(), mapped.next()) {
                    (Some(lower), None) if lower != upper => Some((lower, upper)),
                    _ => None,
                }
            })
            .collect();
        pairs.sort_unstable();
        pairs
    });
    let mut forms = vec![lower];
    let first = pairs.partition_point(|(of, _)| *of < lower);
    forms.extend(
        pairs[first..]
            .iter()
            .take_while(|(of, _)| *of == lower)
            .map(|(_, upper)| *upper),
    );
    if lower == 'ς' {
        forms.push('Σ');
    }
    forms
}

/// Where `block` first names an organisation that is not the site: an authority's word, or a
/// legal form after a name that is neither the site's nor one of `business_names` (the
/// names the page's markup gives the business; [`is_a_business_name`]); the name's first word
/// is where it starts.
fn other_organisation_mention(
    block: &str,
    site: Option<&str>,
    business_names: &[&str],
) -> Option<usize> {
    // Words with their byte offsets: letters and digits only.
    let mut words = Vec::new();
    let mut start = None;
    for (at, c) in block.char_indices().chain([(block.len(), ' ')]) {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(at),
            (false, Some(s))
                if c != '.' || !block[at + 1..].starts_with(|c: char| c.is_alphabetic()) =>
            {
                words.push((s, &block[s..at]));
                start = None;
            }
            _ => {}
        }
    }
    let mut ascii_lower = String::new();
    for (index, &(at, word)) in words.iter().enumerate() {
        if is_authority_word(lower_case(word, &mut ascii_lower).as_ref()) {
            return Some(at);
        }
        // A legal form, written as one (a capital or a dot: "GmbH", "AS", "s.r.o", not the
        // word "as"), after a capitalised name ("Beispiel Fonts GmbH"). The look-up in the
        // lexicon comes last: most words fail the cheaper tests.
        if index > 0
            && word.contains(|c: char| c.is_uppercase() || c == '.')
            && words[index - 1].1.starts_with(|c: char| c.is_uppercase())
            && lexicon_words()
                .legal_forms
                .contains(&word.to_lowercase().replace('.', ""))
            && !names_the_site(block, at, site)
            && !is_a_business_name(&words[index.saturating_sub(4)..index], word, business_names)
        {
            // The name starts at the first of the capitalised words before the form.
            let first = words[..index]
                .iter()
                .rev()
                .take(4)
                .take_while(|(_, w)| w.starts_with(|c: char| c.is_uppercase() || c.is_numeric()))
                .last()
                .map_or(at, |(s, _)| *s);
            return Some(first);
        }
    }
    None
}

/// Whether the last words of `name_words` (the words before the legal form `form`, up to
/// four) are one of `business_names`, with or without the form, letters and digits compared
/// lower-cased ("Glaserei Muster" before "GmbH", and the name "Glaserei Muster GmbH" or
/// "Glaserei Muster"); fewer than four letters never are.
fn is_a_business_name(name_words: &[(usize, &str)], form: &str, business_names: &[&str]) -> bool {
    if business_names.is_empty() {
        return false;
    }
    let squash = |text: &str| -> String {
        text.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let names: Vec<String> = business_names.iter().map(|name| squash(name)).collect();
    let form = squash(form);
    (0..name_words.len()).any(|first| {
        let name: String = name_words[first..]
            .iter()
            .map(|(_, word)| squash(word))
            .collect();
        name.chars().count() >= 4
            && names.iter().any(|known| {
                known
                    .strip_prefix(name.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest == form)
            })
    })
}

/// `word` lower-cased as `str::to_lowercase` does it, without a new string for an ASCII word:
/// the word itself when it has no capital, else `buffer` holding its ASCII lower-case (the
/// same for ASCII text).
fn lower_case<'w>(word: &'w str, buffer: &'w mut String) -> Cow<'w, str> {
    if !word.is_ascii() {
        return Cow::Owned(word.to_lowercase());
    }
    if !word.bytes().any(|b| b.is_ascii_uppercase()) {
        return Cow::Borrowed(word);
    }
    buffer.clear();
    buffer.push_str(word);
    buffer.make_ascii_lowercase();
    Cow::Borrowed(buffer.as_str())
}

/// The lines of `text` (starting at `line_starts`, each ending before the next one's start)
/// that hold a colon, in order, each as its index and the position of its first colon: one
/// search over the text instead of one per line (most lines have none).
fn first_colons<'t>(
    text: &'t str,
    line_starts: &'t [usize],
) -> impl Iterator<Item = (usize, usize)> + 't {
    let mut colons = memchr::memchr_iter(b':', text.as_bytes()).peekable();
    line_starts
        .iter()
        .enumerate()
        .filter_map(move |(index, &start)| {
            let end = line_starts
                .get(index + 1)
                .map_or(text.len(), |next| next - 1);
            while colons.next_if(|&colon| colon < start).is_some() {}
            colons
                .peek()
                .filter(|&&colon| colon < end)
                .map(|&colon| (index, colon))
        })
}

/// The start of the first line inside `range` of `layout`'s text that is a contact field
/// ([`is_contact_field`]), if any.
fn first_contact_field(layout: &Layout<'_>, range: Range<usize>) -> Option<usize> {
    let Layout {
        text, line_starts, ..
    } = *layout;
    let first = line_starts.partition_point(|start| *start < range.start);
    line_starts[first..]
        .iter()
        .take_while(|start| **start < range.end)
        .find(|&&start| {
            let end = text[start..].find('\n').map_or(text.len(), |at| start + at);
            is_contact_field(&text[start..end.min(range.end)])
        })
        .copied()
}

/// A labelled line that still belongs to the section before it: its phone, fax, email, site or
/// address ("Tél : …", "Adresse : …"; lexicon classes `label.phone`, `label.email`,
/// `label.web`, `label.address`).
fn is_contact_field(line: &str) -> bool {
    let lower = line.trim().to_lowercase();
    lexicon_words().contact_fields.iter().any(|field| {
        lower
            .strip_prefix(field.as_str())
            .is_some_and(|rest| rest.trim_start().starts_with([':', '.']) || rest.starts_with(' '))
    })
}

/// Whether byte `pos` of the text lies in one of `ranges` (sorted by start).
pub fn inside(ranges: &[Range<usize>], pos: usize) -> bool {
    ranges.iter().any(|range| range.contains(&pos))
}

/// Whether a link that starts at byte `pos` of `text` and reads `link_text` lies in one of
/// `ranges`. A link at the very start of a range counts only when its own text starts there:
/// a link without text of its own (an icon, text only in `alt`) sits at the position of the
/// text after it, which may open a section it does not belong to.
pub fn link_inside(ranges: &[Range<usize>], text: &str, pos: usize, link_text: &str) -> bool {
    ranges.iter().any(|range| {
        range.contains(&pos)
            && (pos > range.start
                || link_text.split_whitespace().next().is_some_and(|first| {
                    text.get(pos..)
                        .is_some_and(|there| there.trim_start().starts_with(first))
                }))
    })
}

/// The part of `line` (starting at byte `start` of the text) outside `ranges`: the whole line,
/// its beginning up to a section that starts inside it, or nothing when the line starts inside
/// one.
pub fn own_part<'t>(ranges: &[Range<usize>], line: &'t str, start: usize) -> &'t str {
    if inside(ranges, start) {
        return "";
    }
    let end = start + line.len();
    ranges
        .iter()
        .map(|r| r.start)
        .find(|&s| s > start && s < end)
        .map_or(line, |s| &line[..s - start])
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::AhoCorasick;

    /// [`starts_with_label`] as it was first written: each label compared with the phrase.
    fn starts_with_label_model(phrase: &str, labels: &[String]) -> bool {
        labels.iter().any(|label| {
            phrase
                .strip_prefix(label.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
        })
    }

    /// The lexicon's party labels and compound heads, and a few other words.
    fn party_words() -> Vec<String> {
        let words = lexicon_words();
        let mut all: Vec<String> = words
            .host
            .iter()
            .chain(&words.other)
            .chain(&words.bank)
            .chain(&words.party_heads)
            .flat_map(|label| label.split(' ').map(str::to_owned).chain([label.clone()]))
            .collect();
        all.extend(["", "der", "x", "ä", "hosting", "web"].map(str::to_owned));
        all
    }

    #[test]
    fn every_label_starts_a_phrase_of_it() {
        let words = lexicon_words();
        for labels in [&words.host, &words.other, &words.bank] {
            for label in labels {
                for phrase in [label.clone(), format!("{label} und mehr")] {
                    assert!(starts_with_label(&phrase, labels), "{phrase}");
                }
                assert!(
                    !starts_with_label(&format!("{label}x"), std::slice::from_ref(label))
                        || label.is_empty()
                );
            }
        }
        assert!(!starts_with_label("", &[]));
        assert!(starts_with_label("", &[String::new()]));
    }

    proptest::proptest! {
        #[test]
        fn labels_start_a_phrase_as_a_comparison_with_each_says(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(party_words()),
                    "[a-zäß ]{0,6}",
                ],
                0..5,
            ),
            class in 0..3usize,
        ) {
            let phrase = parts.join(" ");
            let words = lexicon_words();
            let labels = [&words.host, &words.other, &words.bank][class];
            proptest::prop_assert_eq!(
                starts_with_label(&phrase, labels),
                starts_with_label_model(&phrase, labels),
                "{}", phrase
            );
        }
    }

    /// The words [`may_mention`] is checked on: the lexicon's organisation types, authority
    /// heads and legal forms (as written and as read), and others.
    fn mention_words() -> Vec<String> {
        let words = lexicon_words();
        let mut all: Vec<String> = words
            .org_types
            .iter()
            .chain(&words.authority_heads)
            .chain(&words.legal_forms)
            .cloned()
            .chain(lexicon::words(Class::LegalForm).map(str::to_owned))
            .collect();
        all.extend(
            [
                "Beispiel",
                "as",
                "x",
                "Ω",
                "\u{212A}",
                "İ",
                "Σ",
                "ßtraße",
                "www",
                "a.b",
                "S.A.",
                "G.m.b.H",
                "x.y.z",
                "www.beispiel.de",
                "v1.2",
                ".Ag",
                "é.AG",
            ]
            .map(str::to_owned),
        );
        all
    }

    #[test]
    fn cased_forms_are_every_character_with_that_lower_case() {
        for lower in ['ö', 'ř', 'α', 'σ', 'ς', 'ω', 'å', 'ß', 'ı'] {
            let mut every: Vec<char> = (0..=0x10FFFF_u32)
                .filter_map(char::from_u32)
                .filter(|c| c.to_lowercase().eq([lower]) || *c == lower)
                .collect();
            if lower == 'ς' {
                every.push('Σ');
            }
            let mut forms = cased_forms(lower);
            every.sort_unstable();
            forms.sort_unstable();
            assert_eq!(forms, every, "{lower}");
        }
    }

    /// [`cased_forms`] as it read its pairs before they were sorted: a pass over every
    /// character of [`CASED`] for each letter asked about.
    fn cased_forms_by_a_pass(lower: char) -> Vec<char> {
        let mut forms = vec![lower];
        forms.extend(
            CASED
                .iter()
                .flat_map(|&(from, to)| from..=to)
                .filter_map(char::from_u32)
                .filter(|&upper| upper != lower && upper.to_lowercase().eq([lower])),
        );
        if lower == 'ς' {
            forms.push('Σ');
        }
        forms
    }

    /// [`spellings`] as it spelled before it grew the spellings in place: every spelling
    /// formatted again for every character.
    fn spellings_by_format(chars: impl Iterator<Item = char>, most: usize) -> Option<Vec<String>> {
        let mut spelled = vec![String::new()];
        for c in chars {
            let forms = if c.is_ascii() {
                vec![c]
            } else {
                cased_forms(c)
            };
            spelled = spelled
                .iter()
                .flat_map(|stem| forms.iter().map(move |form| format!("{stem}{form}")))
                .collect();
            if spelled.len() > most {
                return None;
            }
        }
        Some(spelled)
    }

    #[test]
    fn words_are_spelled_as_by_formatting_each_spelling() {
        let words = lexicon_words();
        let mut asked: Vec<&str> = vec!["", "straße", "öffentlich", "σσ", "åäöü", "ab", "ǆ"];
        asked.extend(
            words
                .org_types
                .iter()
                .chain(&words.authority_heads)
                .chain(&words.legal_forms)
                .map(String::as_str),
        );
        let mut spelled = 0;
        for word in asked {
            for most in [1, 4, 32, usize::MAX] {
                let ours = spellings(word.chars(), most);
                assert_eq!(
                    ours,
                    spellings_by_format(word.chars(), most),
                    "{word} {most}"
                );
                spelled += usize::from(ours.is_some_and(|s| s.len() > 1));
            }
        }
        assert!(spelled > 20, "{spelled}");
    }

    #[test]
    fn cased_forms_come_in_the_order_of_a_pass_over_the_ranges() {
        // Every lower case of a character of the ranges, and characters of no case.
        let mut asked: Vec<char> = CASED
            .iter()
            .flat_map(|&(from, to)| from..=to)
            .filter_map(char::from_u32)
            .flat_map(char::to_lowercase)
            .collect();
        asked.extend(['a', '1', ' ', 'ß', 'ς', 'ı', '\u{10FFFF}']);
        let with_others = asked.iter().filter(|&&c| cased_forms(c).len() > 2).count();
        assert!(with_others > 10, "{with_others}");
        for lower in asked {
            assert_eq!(
                cased_forms(lower),
                cased_forms_by_a_pass(lower),
                "{lower:?}"
            );
        }
    }

    #[test]
    fn cased_holds_every_character_with_another_lower_case() {
        let inside = |c: u32| CASED.iter().any(|&(from, to)| (from..=to).contains(&c));
        for c in (0..=0x10FFFF_u32)
            .filter(|c| !inside(*c))
            .filter_map(char::from_u32)
        {
            assert!(c.to_lowercase().eq([c]), "{c:?}");
        }
    }

    /// The entries of the classes the mention automaton is built from, as the lexicon
    /// writes them.
    fn mention_entries() -> Vec<&'static String> {
        let words = lexicon_words();
        words
            .org_types
            .iter()
            .chain(&words.authority_heads)
            .chain(&words.legal_forms)
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4_000))]
        #[test]
        fn a_block_may_mention_what_the_mention_reader_finds(
            parts in proptest::collection::vec(
                (0..1_000usize, 0..4u8, "( |\\.|\n|-|é|[a-zA-Z]{1,3}|,)"),
                0..4,
            )
        ) {
            let words = mention_words();
            let mut block = String::new();
            for (index, case, separator) in parts {
                let word = &words[index % words.len()];
                match case {
                    0 => block.push_str(word),
                    1 => block.push_str(&word.to_uppercase()),
                    2 => {
                        let mut chars = word.chars();
                        block.extend(chars.next().into_iter().flat_map(char::to_uppercase));
                        block.push_str(chars.as_str());
                    }
                    _ => block.extend(word.chars().enumerate().flat_map(|(at, c)| {
                        let upper = at % 2 == 0;
                        let mapped: Vec<char> = if upper {
                            c.to_uppercase().collect()
                        } else {
                            vec![c]
                        };
                        mapped
                    })),
                }
                block.push_str(&separator);
            }
            if other_organisation_mention(&block, None, &[]).is_some() {
                proptest::prop_assert!(may_mention(&block), "{}", block);
            }
        }

        #[test]
        fn a_link_may_name_a_host_as_the_at_and_heads_model_says(
            parts in proptest::collection::vec(
                "(https?://|HTTP://|Https://|www\\.|WwW\\.|//|/|/www\\.|-Http://|@|\\.|-|[a-z]{1,4}|é|»|#|\\?|:| )",
                0..6,
            )
        ) {
            let href = parts.concat();
            let token = href.trim_start_matches(|c: char| !c.is_alphanumeric());
            let model = href.contains('@')
                || ["https://", "http://", "www."].iter().any(|head| {
                    token.get(..head.len()).is_some_and(|start| start.eq_ignore_ascii_case(head))
                });
            proptest::prop_assert_eq!(may_name_a_host(&href), model, "{}", href);
        }

        #[test]
        fn a_link_written_with_the_last_host_is_read_as_that_host(
            first in proptest::collection::vec(
                "(https?://|HTTP://|www\\.|//|/|@|@[a-z]{1,2}\\.[a-z]{1,2}[/:#?-]|\\.|-|[a-z]{1,4}|é|#|\\?|:| )",
                0..6,
            ),
            second in proptest::collection::vec(
                "(https?://|HTTPS://|www\\.|/|@[a-z]{1,2}\\.[a-z]{1,2}|@|\\.|-|[a-z]{1,4}|é|#|\\?|:| )",
                0..6,
            ),
            reuse in proptest::bool::ANY,
        ) {
            let first = first.concat();
            // The second token often starts with the first's host, as a page's links do.
            let second = match host_of_token(&first) {
                Some(host) if reuse => format!("https://{host}{}", second.concat()),
                _ => second.concat(),
            };
            if let Some(host) = host_of_token(&first) {
                if written_with_host(&second, host) {
                    proptest::prop_assert_eq!(host_of_token(&second), Some(host), "{}", second);
                }
            }
        }

        #[test]
        fn a_links_scheme_is_read_as_by_a_comparison_of_its_heads(
            token in "(https?|HTTPS?|Http|hTTps|htp|ftp|)(:|://|:/|//|)([a-z]{1,3}|é|/|@|\\.){0,4}",
        ) {
            // The model: the scheme compared as `ascii::starts_with_ignore_ascii_case` does.
            let model = if crate::extract::ascii::starts_with_ignore_ascii_case(&token, "https://") {
                Some(&token[8..])
            } else if crate::extract::ascii::starts_with_ignore_ascii_case(&token, "http://") {
                Some(&token[7..])
            } else {
                None
            };
            proptest::prop_assert_eq!(web_rest(&token), model, "{}", token);
        }

        #[test]
        fn a_links_written_host_is_the_host_the_token_reader_finds(
            scheme in "(https?://|HTTP://|Https://)",
            parts in proptest::collection::vec(
                "([a-z]{1,4}|\\.|-|é|/|\\?|#|:|[0-9]|!|\\)| |\\.\\.)",
                0..8,
            ),
        ) {
            // An `http(s)://` link without `@`: its written host, when one is read, is the one
            // `host_of_token` reads, or it reads none (no dot, or a leading one).
            let token = format!("{scheme}{}", parts.concat());
            let rest = web_rest(&token).expect("a web scheme");
            if let Some(written) = written_host(rest) {
                let expected = (written.contains('.') && !written.starts_with('.')).then_some(written);
                proptest::prop_assert_eq!(host_of_token(&token), expected, "{}", token);
            }
        }

        #[test]
        fn more_chars_than_as_counted(text in "(a|é|€|\u{1F600}| ){0,90}", most in 0..70usize) {
            proptest::prop_assert_eq!(more_chars_than(&text, most), text.chars().count() > most);
        }

        #[test]
        fn owners_of_tokens_as_each_token_read_alone(
            tokens in proptest::collection::vec(
                (
                    "(https?://|HTTPS://|mailto:|www\\.|x@|)",
                    0..7usize,
                    "(|/|/seite|\\?a=1|#top|:8080/|\\.|@andere\\.example)",
                ),
                0..24,
            ),
            site in proptest::option::of(proptest::sample::select(vec!["beispiel.de", "muster.example"])),
        ) {
            // More hosts than are remembered, each written with the heads and tails that
            // change the host read: every answer of one `Owners` over the sequence is the
            // token's own domain's owner.
            const HOSTS: [&str; 7] = [
                "www.beispiel.de",
                "beispiel.de",
                "muster.example",
                "gmail.com",
                "andere.example",
                "sub.andere.example",
                "localhost",
            ];
            let tokens: Vec<String> = tokens
                .iter()
                .map(|(head, host, tail)| format!("{head}{}{tail}", HOSTS[*host]))
                .collect();
            let text = "";
            let layout = Layout {
                site,
                mail_providers: &["gmail.com"],
                ..Layout::of_text(text, &[])
            };
            let mut owners = Owners::new(&layout);
            for token in &tokens {
                let alone = domain_of_token(token).map(|domain| domain_owner(&domain, &layout));
                proptest::prop_assert_eq!(owners.of_token(token), alone, "{} in {:?}", token, tokens);
            }
        }

        #[test]
        fn a_block_may_mention_as_the_overlapping_iterator_finds(
            parts in proptest::collection::vec(
                (0..1_000usize, 0..4u8, "( |\\.|-|é|İ|\u{212A}|[a-zA-Z]{1,3}|\\.[a-zA-Z]|, )"),
                0..6,
            )
        ) {
            // Entries of the classes the automaton is built from, as written, in capitals,
            // capitalised or with a dot after each letter, between separators.
            let entries = mention_entries();
            let mut text = String::new();
            for (index, case, separator) in parts {
                let entry = entries[index % entries.len()];
                match case {
                    0 => text.push_str(entry),
                    1 => text.push_str(&entry.to_uppercase()),
                    2 => {
                        let mut chars = entry.chars();
                        text.extend(chars.next().into_iter().flat_map(char::to_uppercase));
                        text.push_str(chars.as_str());
                    }
                    _ => {
                        for c in entry.chars() {
                            text.push(c);
                            text.push('.');
                        }
                    }
                }
                text.push_str(&separator);
            }
            proptest::prop_assert_eq!(may_mention(&text), may_mention_by_the_iterator(&text), "{}", text);
        }

        #[test]
        fn a_long_block_may_mention_as_one_walk_and_the_iterator_find(
            before in "( |\\.|é|[a-z]{1,5}|[A-Z][a-z]{0,4}|\\.[a-z]|, ){0,40}",
            index in 0..1_000usize,
            case in 0..3u8,
            after in "( |\\.|é|[a-z]{1,5}|[A-Z][a-z]{0,4}|\\.[a-z]|, ){0,40}",
        ) {
            // One entry at any place of a block long enough for two walks: before, in or
            // after the overlap of its halves, or across where a half ends.
            let entries = mention_entries();
            let entry = entries[index % entries.len()];
            let entry = match case {
                0 => entry.clone(),
                1 => entry.to_uppercase(),
                _ => entry.chars().flat_map(|c| [c, '.']).collect(),
            };
            let text = format!("{before} {entry} {after}");
            let filter = MentionFilter::get().unwrap();
            let start = filter.automaton.start_state(Anchored::No).unwrap();
            let expected = may_mention_by_the_iterator(&text);
            proptest::prop_assert_eq!(may_mention(&text), expected, "{}", text);
            proptest::prop_assert_eq!(
                may_mention_in_one_walk(filter, start, text.as_bytes()),
                expected,
                "{}",
                text
            );
        }

        #[test]
        fn a_label_may_name_a_party_as_the_stems_automaton_finds(
            parts in proptest::collection::vec(
                (0..1_000usize, proptest::bool::ANY, "( |:|é|[a-zA-Z]{1,3}|-)"),
                0..4,
            )
        ) {
            let stems = party_stems();
            let mut text = String::new();
            for (index, upper, separator) in parts {
                // A piece of a stem (its whole, or from its second byte on), in either case.
                let stem = stems[index % stems.len()];
                let piece = if index % 3 == 0 { &stem[1..] } else { stem };
                if upper {
                    text.push_str(&piece.to_uppercase());
                } else {
                    text.push_str(piece);
                }
                text.push_str(&separator);
            }
            let automaton = AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&stems)
                .expect("stems build");
            proptest::prop_assert_eq!(may_name_a_party(&text), automaton.is_match(&text), "{}", text);
        }
    }

    proptest::proptest! {

        #[test]
        fn a_link_may_name_a_host_when_a_host_is_read_from_it(
            parts in proptest::collection::vec(
                "(https?://|HTTP://|www\\.|WWW\\.|//|/|@|\\.|-|[a-z]{1,4}|é|#|\\?|:| )",
                0..6,
            )
        ) {
            let href = parts.concat();
            if host_of_token(&href).is_some() {
                proptest::prop_assert!(may_name_a_host(&href), "{}", href);
            }
        }

        #[test]
        fn first_colons_are_those_of_each_line(text in "([a-z]{1,4}|:|\n| |é){0,30}") {
            let mut line_starts = vec![0];
            line_starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
            let lines: Vec<(usize, usize)> = text
                .split('\n')
                .zip(&line_starts)
                .enumerate()
                .filter_map(|(index, (line, start))| line.find(':').map(|at| (index, start + at)))
                .collect();
            proptest::prop_assert_eq!(first_colons(&text, &line_starts).collect::<Vec<_>>(), lines);
        }

        #[test]
        fn legal_markers_found_as_in_a_lower_case_copy(
            text in "( |[a-zA-Z]{1,6}|IMPRESSUM|Legal Notice|MENTIONS LÉGALES|Mentions légales|\u{212a}|İ|é){0,8}"
        ) {
            let lower = text.trim().to_lowercase();
            let model = lower.len() <= 120
                && lexicon_words().legal_markers.iter().any(|m| lower.contains(m.as_str()));
            proptest::prop_assert_eq!(is_legal_marker(&text), model);
        }

        #[test]
        fn words_lower_cased_as_by_to_lowercase(word in "([a-zA-Z0-9]{1,6}|Σ|É|\u{212a}|İ|ß){1,4}") {
            let mut buffer = String::from("left over");
            let lower = lower_case(&word, &mut buffer).into_owned();
            proptest::prop_assert_eq!(lower, word.to_lowercase());
        }

        #[test]
        fn org_type_prefixes_found_as_by_a_scan_of_the_class(
            word in "(autorit|behörde|úřad|αρχή|[a-zäöüé]{1,5}){1,3}"
        ) {
            let model = lexicon_words().org_types.iter().any(|kind| word.starts_with(kind.as_str()));
            proptest::prop_assert_eq!(starts_with_an_org_type(&word), model);
        }
    }

    /// [`may_mention`] as it read a block before the automaton's states were walked by hand:
    /// the automaton's overlapping iterator, then a search for each dot.
    #[test]
    fn a_legal_form_is_found_as_by_a_pass_over_every_form() {
        // Every form, and every form cut short, grown by a letter or changed in one byte:
        // the binary search answers as a comparison with each form does.
        let forms = &lexicon_words().legal_forms;
        let mut asked: Vec<Vec<u8>> = vec![Vec::new(), b"gmbh".to_vec(), b"zzzz".to_vec()];
        for form in forms {
            let bytes = form.as_bytes();
            asked.push(bytes.to_vec());
            asked.push(bytes[..bytes.len().saturating_sub(1)].to_vec());
            asked.push([bytes, b"x"].concat());
            if let Some((first, rest)) = bytes.split_first() {
                asked.push([&[first.wrapping_add(1)], rest].concat());
            }
        }
        for letters in &asked {
            let by_pass = forms
                .iter()
                .any(|form| form.as_bytes() == letters.as_slice());
            assert_eq!(
                is_legal_form(letters),
                by_pass,
                "{:?}",
                String::from_utf8_lossy(letters)
            );
        }
        assert!(is_legal_form(b"gmbh"));
    }

    fn may_mention_by_the_iterator(block: &str) -> bool {
        let Some(filter) = MentionFilter::get() else {
            return true;
        };
        let bytes = block.as_bytes();
        let word_byte = |b: u8| b.is_ascii_alphanumeric();
        let Ok(mut found) = filter
            .automaton
            .try_find_overlapping_iter(Input::new(block))
        else {
            return true;
        };
        let named = found.any(|found| {
            !filter.whole_word[found.pattern().as_usize()]
                || (!found
                    .start()
                    .checked_sub(1)
                    .is_some_and(|before| word_byte(bytes[before]))
                    && !bytes.get(found.end()).copied().is_some_and(word_byte)
                    && bytes[found.range()].iter().any(u8::is_ascii_uppercase))
        });
        named
            || memchr::memchr_iter(b'.', bytes).any(|at| dotted_word_may_be_a_legal_form(bytes, at))
    }

    /// [`other_organisations_blocks`] as it read a page before whose a link's domain is
    /// came last: every link that may name a host looked up first, its block then evidence.
    fn other_organisations_blocks_model(
        layout: &Layout<'_>,
        found: &[Range<usize>],
    ) -> Vec<Range<usize>> {
        let Layout {
            text,
            block_starts,
            links,
            site,
            ..
        } = *layout;
        let block_of = |pos: usize| block_around(block_starts, text.len(), pos);
        let mut owners_seen = Owners::new(layout);
        let mut evidence: Vec<usize> = links
            .iter()
            .filter(|(href, _)| {
                may_name_a_host(href) && owners_seen.of_token(href) == Some(DomainOwner::Other)
            })
            .map(|(_, pos)| *pos)
            .collect();
        evidence.extend(memchr::memchr_iter(b'@', text.as_bytes()));
        evidence.extend(memchr::memmem::find_iter(text.as_bytes(), "www."));
        evidence.extend(memchr::memmem::find_iter(text.as_bytes(), "://"));
        let mut blocks: Vec<Range<usize>> = evidence.into_iter().map(block_of).collect();
        blocks.sort_by_key(|b| b.start);
        blocks.dedup();
        let mut owned = Vec::new();
        for block in blocks {
            if block.len() > 2_000 || inside(found, block.start) {
                continue;
            }
            let body = &text[block.clone()];
            if !may_mention(body) {
                continue;
            }
            let Some(mention) = other_organisation_mention(body, site, layout.business_names)
            else {
                continue;
            };
            let after = &body[mention..];
            let from = block.start + mention;
            let owners: Vec<DomainOwner> = links
                .iter()
                .filter(|(_, pos)| *pos >= from && *pos < block.end)
                .map(|(href, _)| *href)
                .chain(after.split_whitespace())
                .filter_map(|token| owners_seen.of_token(token))
                .collect();
            if owners.contains(&DomainOwner::Other) && !owners.contains(&DomainOwner::Site) {
                owned.push(block.start + mention..block.end);
            }
        }
        owned
    }

    /// A text of lexicon `entries` for a proptest: for each part, an entry (its index taken
    /// modulo their number) as written, in capitals or its first half, then the separator.
    fn entries_text(entries: &[String], parts: &[(usize, u8, String)]) -> String {
        let mut text = String::new();
        for (index, case, separator) in parts {
            let entry = &entries[index % entries.len()];
            match case {
                0 => text.push_str(entry),
                1 => text.push_str(&entry.to_uppercase()),
                _ => text.push_str(&entry[..entry.floor_char_boundary(entry.len() / 2)]),
            }
            text.push_str(separator);
        }
        text
    }

    /// The pieces the layouts of the block proptest are made of: organisations' words,
    /// legal forms, names, emails and web addresses on the site's, a mail provider's and
    /// other domains, separators.
    const BLOCK_PIECES: &[&str] = &[
        "Behörde",
        "Aufsichtsbehörde",
        "Authority",
        "council",
        "GmbH",
        "S.A.",
        "Ltd",
        "AG",
        "Beispiel",
        "Muster",
        "Kanzlei",
        "info@beispiel.de",
        "post@muster.example",
        "kontakt@gmail.com",
        "www.muster.example",
        "WWW.MUSTER.EXAMPLE",
        "https://www.beispiel.de/",
        "https://andere.example/x",
        "Tel. 0123",
        "é",
        " ",
        " ",
        ". ",
        "\n",
        ", ",
    ];

    /// The hrefs of the block proptest's links.
    const BLOCK_HREFS: &[&str] = &[
        "/kontakt",
        "https://www.beispiel.de/",
        "https://www.beispiel.de/impressum",
        "http://beispiel.de",
        "https://andere.example/",
        "https://www.muster.example/seite",
        "mailto:info@beispiel.de",
        "mailto:post@muster.example",
        "mailto:kontakt@gmail.com",
        "www.muster.example",
        "#top",
        "tel:0123",
    ];

    #[test]
    fn credit_phrases_are_read_one_after_the_other_from_word_starts() {
        // A longer phrase that starts inside a word hides the shorter one at a word start
        // inside it, as in the builder's automaton's leftmost-longest reading; capitals, a
        // phrase at each offset from the text's start, and one at its very end (English,
        // German, French).
        let credits = &lexicon_words().credits;
        let model = |text: &str| -> Vec<usize> {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(credits)
                .expect("credits build")
                .find_iter(text)
                .map(|m| m.start())
                .filter(|&start| {
                    text[..start]
                        .chars()
                        .next_back()
                        .is_none_or(|c| !c.is_alphanumeric())
                })
                .collect()
        };
        for (text, expected) in [
            ("xweb design by Sample", vec![]),
            ("web design by Sample", vec![0]),
            ("WEB DESIGN BY Sample", vec![0]),
            ("a design by b, site by c", vec![2, 15]),
            ("Webdesign von Muster, erstellt von", vec![0, 22]),
            ("Réalisation : Exemple — réalisé par", vec![0, 27]),
            ("designed by", vec![0]),
            ("© Beispiel designed and developed by", vec![12]),
        ] {
            assert_eq!(credit_phrases(text), expected, "{text}");
            assert_eq!(model(text), expected, "{text}");
        }
        for pad in 0..9 {
            let text = format!("{}site by", "x ".repeat(pad));
            assert_eq!(credit_phrases(&text), model(&text), "{text}");
            assert_eq!(credit_phrases(&text), vec![2 * pad], "{text}");
        }
    }

    #[test]
    fn a_long_block_may_mention_a_name_in_either_half_or_across_them() {
        // An authority's word and a legal form moved byte by byte through a block read in two
        // walks: each place is found, and a block without one is not.
        let filler = "x ".repeat(40);
        for name in ["Licensing Authority", "Muster GmbH", "Beispiel S.A. x"] {
            for at in (0..=filler.len()).step_by(1) {
                let block = format!("{}{name} {}", &filler[..at], &filler[at..]);
                assert!(may_mention(&block), "{block}");
                assert_eq!(
                    may_mention(&block),
                    may_mention_by_the_iterator(&block),
                    "{block}"
                );
            }
        }
        assert!(!may_mention(&filler.repeat(3)));
        assert!(!may_mention(&"Home about Muster gmbh. ".repeat(5)));
    }

    #[test]
    fn a_block_may_mention_as_the_overlapping_iterator_finds_by_hand() {
        // A legal form as a whole word with a capital, in a word, in lower case, with dots;
        // an authority's word; a dot at the very start and end; an empty block.
        for (block, expected) in [
            ("Muster GmbH", Some(true)),
            ("Mustergmbhx", None),
            ("Beispiel S.A.", Some(true)),
            ("Licensing Authority", Some(true)),
            ("Zuständige Aufsichtsbehörde", Some(true)),
            (".", Some(false)),
            ("", Some(false)),
            ("x.", None),
            ("Home", Some(false)),
        ] {
            assert_eq!(
                may_mention(block),
                may_mention_by_the_iterator(block),
                "{block}"
            );
            if let Some(expected) = expected {
                assert_eq!(may_mention(block), expected, "{block}");
            }
        }
    }

    #[test]
    fn a_block_whose_only_link_is_the_sites_holds_no_evidence() {
        // A web address in capitals is no evidence in the text (`www.` is searched as
        // written), and the block's one link, after its words, is the site's own: the
        // block is no other organisation's, though the address read after the authority's
        // word is another domain (German and English).
        for text in [
            "Zuständige Aufsichtsbehörde WWW.MUSTER.EXAMPLE",
            "Licensing authority WWW.MUSTER.EXAMPLE",
        ] {
            let line_starts = starts(text);
            let links = [("https://www.beispiel.de/", text.len())];
            let layout = Layout {
                block_starts: &[0],
                links: &links,
                site: Some("beispiel.de"),
                ..Layout::of_text(text, &line_starts)
            };
            assert!(other_organisations_blocks_model(&layout, &[]).is_empty());
            assert!(
                other_organisations_blocks(&layout, &[]).is_empty(),
                "{text}"
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3_000))]
        #[test]
        fn other_organisations_blocks_as_when_every_link_was_looked_up_first(
            pieces in proptest::collection::vec(0..BLOCK_PIECES.len(), 0..40),
            breaks in proptest::collection::vec(0..200usize, 0..8),
            link_spots in proptest::collection::vec((0..BLOCK_HREFS.len(), 0..220usize), 0..10),
            in_order in proptest::bool::ANY,
            site in proptest::option::of(proptest::sample::select(vec!["beispiel.de", "muster.example"])),
            found_at in proptest::option::of((0..200usize, 0..60usize)),
            named in proptest::bool::ANY,
        ) {
            let text: String = pieces.iter().map(|&i| BLOCK_PIECES[i]).collect();
            let boundary = |at: usize| {
                let mut at = at.min(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                at
            };
            let mut block_starts: Vec<usize> = breaks.iter().map(|&b| boundary(b)).collect();
            block_starts.sort_unstable();
            block_starts.dedup();
            let mut links: Vec<(&str, usize)> = link_spots
                .iter()
                .map(|&(href, at)| (BLOCK_HREFS[href], boundary(at)))
                .collect();
            if in_order {
                links.sort_by_key(|(_, pos)| *pos);
            }
            let found: Vec<Range<usize>> = found_at
                .map(|(start, len)| boundary(start)..boundary(start + len))
                .into_iter()
                .collect();
            let names: &[&str] = if named { &["Beispiel GmbH"] } else { &[] };
            let line_starts = starts(&text);
            let layout = Layout {
                block_starts: &block_starts,
                links: &links,
                site,
                mail_providers: &["gmail.com"],
                business_names: names,
                ..Layout::of_text(&text, &line_starts)
            };
            proptest::prop_assert_eq!(
                other_organisations_blocks(&layout, &found),
                other_organisations_blocks_model(&layout, &found),
                "{:?} {:?} {:?}", text, block_starts, links
            );
        }

        #[test]
        fn credit_phrases_found_as_by_the_builders_automaton(
            parts in proptest::collection::vec(
                (0..1_000usize, 0..3u8, "( |\n|é|[a-zA-Z]{1,4}|: |-)"),
                0..6,
            )
        ) {
            let credits = &lexicon_words().credits;
            let text = entries_text(credits, &parts);
            let automaton = AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(credits)
                .expect("credits build");
            let model: Vec<usize> = automaton
                .find_iter(&text)
                .map(|m| m.start())
                .filter(|&start| {
                    text[..start].chars().next_back().is_none_or(|c| !c.is_alphanumeric())
                })
                .collect();
            proptest::prop_assert_eq!(credit_phrases(&text), model, "{}", text);
        }

        #[test]
        fn legal_markers_of_the_lexicon_found_as_in_a_lower_case_copy(
            parts in proptest::collection::vec(
                (0..1_000usize, 0..3u8, "( |é|İ|[a-zA-Z]{1,4}|-)"),
                0..4,
            )
        ) {
            let markers = &lexicon_words().legal_markers;
            let text = entries_text(markers, &parts);
            let lower = text.trim().to_lowercase();
            let model = lower.len() <= 120 && markers.iter().any(|m| lower.contains(m.as_str()));
            proptest::prop_assert_eq!(is_legal_marker(&text), model, "{}", text);
        }
    }

    fn starts(text: &str) -> Vec<usize> {
        std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect()
    }

    /// A layout of `text` with `headings`, all of rank 2.
    fn layout<'p>(
        text: &'p str,
        line_starts: &'p [usize],
        headings: &'p [Range<usize>],
    ) -> Layout<'p> {
        Layout {
            headings,
            heading_levels: &[2; 8][..headings.len()],
            ..Layout::of_text(text, line_starts)
        }
    }

    fn at(text: &str, word: &str) -> Range<usize> {
        let start = text.find(word).unwrap();
        start..start + word.len()
    }

    /// The phones, emails and postcodes `extract_page` returns for `html` served at `url`.
    fn found(url: &str, html: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
        let page = crate::extract::extract_page(
            &url::Url::parse(url).unwrap(),
            Some("text/html"),
            html.as_bytes(),
        );
        let postcodes = page
            .addresses
            .iter()
            .filter_map(|a| a.postal_code.clone())
            .collect();
        (page.phones, page.emails, postcodes)
    }

    #[test]
    fn an_authoritys_section_goes_on_under_its_address_sub_heading() {
        // German legal notice (class: supervisory authority, party heading with an address
        // sub-heading of a lower rank).
        let (phones, emails, postcodes) = found(
            "https://www.praxis-beispiel.de/impressum",
            "<h1>Impressum</h1><p>Praxis Beispiel<br>Lindenweg 4<br>10115 Berlin<br>\
             Telefon: 030 4471229<br>E-Mail: info@praxis-beispiel.de</p>\
             <h3>Zuständige Aufsichtsbehörde</h3><p>Landesamt für Gesundheit</p>\
             <h4>Adresse</h4><p>Amtsplatz 9<br>80331 München<br>Telefon: 089 7654321<br>\
             E-Mail: poststelle@landesamt-beispiel.de</p>",
        );
        assert_eq!(phones, ["+49304471229"]);
        assert_eq!(emails, ["info@praxis-beispiel.de"]);
        assert_eq!(postcodes, ["10115"]);
    }

    #[test]
    fn a_hosts_section_goes_on_under_its_address_sub_heading() {
        // French legal notice (class: hosting provider, address sub-heading of the same rank).
        let (phones, emails, postcodes) = found(
            "https://www.atelier-exemple.fr/mentions-legales",
            "<h1>Mentions légales</h1><h2>Éditeur</h2><p>Atelier Exemple SARL<br>\
             12 rue des Lilas<br>69003 Lyon<br>Tél : 04 72 00 00 01<br>\
             contact@atelier-exemple.fr</p><h2>Hébergeur</h2><p>Hébergement Exemple SAS</p>\
             <h2>Adresse</h2><p>5 avenue du Port<br>59100 Roubaix<br>Tél : 03 20 00 00 02</p>",
        );
        assert_eq!(phones, ["+33472000001"]);
        assert_eq!(emails, ["contact@atelier-exemple.fr"]);
        assert_eq!(postcodes, ["69003"]);
    }

    #[test]
    fn a_regulators_section_under_a_spanish_heading_is_left_out() {
        // Spanish legal notice (class: regulator, "Entidad reguladora" with a "Dirección"
        // sub-heading).
        let (phones, _, postcodes) = found(
            "https://www.clinica-ejemplo.es/aviso-legal",
            "<h1>Aviso legal</h1><p>Clínica Ejemplo S.L.<br>Calle Mayor 3<br>28013 Madrid<br>\
             Teléfono: 910 000 001</p><h3>Entidad reguladora</h3><p>Consejería de Sanidad</p>\
             <h4>Dirección</h4><p>Calle Alcalá 21<br>28014 Madrid<br>Teléfono: 910 000 002</p>",
        );
        assert_eq!(phones, ["+34910000001"]);
        assert_eq!(postcodes, ["28013"]);
    }

    #[test]
    fn an_authority_named_in_a_paragraph_with_its_own_domain_is_left_out() {
        // English terms (class: licensing authority named in a paragraph, its email on
        // another registrable domain).
        let (phones, emails, postcodes) = found(
            "https://www.example-cabs.co.uk/terms",
            "<h2>Complaints</h2><p>Please contact us at hello@example-cabs.co.uk or \
             01273 480123.</p><p>If you are not satisfied with our response, you may escalate \
             your complaint to our licensing authority: Exampleshire District Council, \
             Licensing Team, 1 Market Street, Exampletown, EX1 2AB. Telephone: 01273 480456. \
             Email: licensing@exampleshire.gov.uk.</p>",
        );
        assert_eq!(phones, ["+441273480123"]);
        assert_eq!(emails, ["hello@example-cabs.co.uk"]);
        assert!(postcodes.is_empty(), "{postcodes:?}");
    }

    #[test]
    fn a_data_protection_authority_named_in_a_paragraph_is_left_out() {
        // Polish privacy policy (class: data protection authority named in a paragraph, with
        // its web site).
        let (_, _, postcodes) = found(
            "https://www.pracownia-przyklad.pl/polityka-prywatnosci",
            "<h2>Administrator</h2><p>Pracownia Przykład, ul. Ogrodowa 5, 31-155 Kraków</p>\
             <h2>Prawo do skargi</h2><p>Masz prawo wnieść skargę do Prezesa Urzędu Ochrony \
             Danych Osobowych (ul. Przykładowa 2, 00-950 Warszawa, www.urzad-przyklad.gov.pl).</p>",
        );
        assert_eq!(postcodes, ["31-155"]);
    }

    #[test]
    fn a_processor_named_in_a_paragraph_is_left_out() {
        // German privacy policy (class: a service provider with a legal form named in a
        // paragraph, its policy on another registrable domain).
        let (_, _, postcodes) = found(
            "https://www.baeckerei-beispiel.de/datenschutz",
            "<h2>Verantwortlicher</h2><p>Bäckerei Beispiel, Kirchgasse 2, 50667 Köln</p>\
             <h2>Schriftarten</h2><p>Wir nutzen einen Dienst der Schriftdienst Nord GmbH, \
             Hafenstraße 7, 20457 Hamburg. \
             <a href=\"https://policies.fonts-beispiel.com/privacy\">Datenschutzerklärung</a></p>",
        );
        assert_eq!(postcodes, ["50667"]);
    }

    #[test]
    fn an_authoritys_heading_counts_on_a_privacy_policy_too() {
        // Privacy policies (class: supervisory authority under a heading of its own, on a
        // page that is no legal notice): German and English.
        let (phones, _, postcodes) = found(
            "https://www.tischlerei-beispiel.de/datenschutz",
            "<h1>Datenschutzerklärung</h1><h2>Verantwortliche Stelle</h2><p>Tischlerei \
             Beispiel<br>Werkstraße 3<br>04109 Leipzig<br>Telefon: 0341 5567012</p>\
             <h2>Zuständige Aufsichtsbehörde</h2><p>Landesbeauftragter für den Datenschutz<br>\
             Amtsweg 1<br>01097 Dresden<br>Telefon: 0351 8837410</p>",
        );
        assert_eq!(phones, ["+493415567012"]);
        assert_eq!(postcodes, ["04109"]);
        let (phones, _, _) = found(
            "https://www.example-bakery.ie/privacy",
            "<h1>Privacy policy</h1><p>Example Bakery, phone 021 486 2201.</p>\
             <h3>Supervisory authority</h3><p>Data Protection Office<br>\
             Phone: 01 765 0100</p>",
        );
        assert_eq!(phones, ["+353214862201"]);
    }

    #[test]
    fn the_businesss_own_paragraph_naming_an_authority_stays_in() {
        // The business's own sentence names its regulator: its phone and email stay (English,
        // Dutch).
        let (phones, emails, _) = found(
            "https://www.example-advice.co.uk/",
            "<p>Example Advice is authorised by the Financial Authority. Call 01273 480789 or \
             write to info@example-advice.co.uk, see www.example-advice.co.uk.</p>",
        );
        assert_eq!(phones, ["+441273480789"]);
        assert_eq!(emails, ["info@example-advice.co.uk"]);
        let (phones, _, _) = found(
            "https://www.adviesbureau-voorbeeld.nl/",
            "<p>Wij staan onder toezicht van de Autoriteit Financiële Markten. Bel ons: \
             020 481 7702.</p>",
        );
        assert_eq!(phones, ["+31204817702"]);
    }

    #[test]
    fn a_legal_form_name_the_markup_gives_the_business_is_no_other_organisation() {
        // The business's block (class: its name with a legal form, the domain not spelling
        // it, its email on another domain of its own; the page's JSON-LD or `og:site_name`
        // names it): its phone and email stay. German and Dutch.
        let (phones, emails, _) = found(
            "https://www.gm-glas.de/",
            "<script type=\"application/ld+json\">{\"@type\":\"Organization\",\
             \"name\":\"Glaserei Muster GmbH\"}</script>\
             <p>Glaserei Muster GmbH, Lindenweg 4, 10115 Berlin, Telefon 030 4471232, \
             E-Mail info@glaserei-muster.com</p>",
        );
        assert_eq!(phones, ["+49304471232"]);
        assert_eq!(emails, ["info@glaserei-muster.com"]);
        let (phones, emails, _) = found(
            "https://www.vb-schilders.nl/",
            "<meta property=\"og:site_name\" content=\"Voorbeeld Schilders\">\
             <p>Voorbeeld Schilders B.V., Dorpsstraat 4, 1234 AB Voorbeeld, tel. 020 481 7703, \
             info@voorbeeldschilders.com</p>",
        );
        assert_eq!(phones, ["+31204817703"]);
        assert_eq!(emails, ["info@voorbeeldschilders.com"]);
        // A name that only shares a word with the business's is still another organisation.
        let (phones, _, _) = found(
            "https://www.gm-glas.de/",
            "<meta property=\"og:site_name\" content=\"Muster Glas\">\
             <p>Muster Glas, Telefon 030 4471233</p>\
             <p>Muster Hosting GmbH, Telefon 030 4471299, www.hosting-beispiel.de</p>",
        );
        assert_eq!(phones, ["+49304471233"]);
    }

    #[test]
    fn an_authoritys_block_is_its_own_to_the_end() {
        // Legal notices (class: supervisory authority whose address block runs longer than a
        // few lines: department, street, town, phone, fax, email): German and English.
        let (phones, emails, _) = found(
            "https://www.zahnarzt-beispiel.de/impressum",
            "<h1>Impressum</h1><p>Zahnarztpraxis Beispiel<br>Lindenweg 4<br>10115 Berlin<br>\
             Telefon: 030 4471229</p><h3>Zuständige Aufsichtsbehörde</h3><p>Landesamt für \
             Gesundheit<br>Abteilung Berufsaufsicht<br>Referat 3<br>Amtsplatz 9<br>\
             80331 München<br>Telefon: 089 7654321<br>Telefax: 089 7654322<br>\
             E-Mail: aufsicht@landesamt-beispiel.de</p>",
        );
        assert_eq!(phones, ["+49304471229"]);
        assert!(emails.is_empty(), "{emails:?}");
        let (phones, emails, _) = found(
            "https://www.example-dental.co.uk/legal-notice",
            "<h1>Legal notice</h1><p>Example Dental Ltd<br>4 Linden Way<br>Exampletown<br>\
             Phone: 01273 480124</p><h3>Regulator</h3><p>Example Dental Council<br>\
             Registration Department<br>Unit 3<br>1 Market Street<br>Exampleborough<br>\
             Phone: 020 7946 0300<br>Fax: 020 7946 0301<br>\
             Email: registration@dental-council-example.org</p>",
        );
        assert_eq!(phones, ["+441273480124"]);
        assert!(emails.is_empty(), "{emails:?}");
    }

    #[test]
    fn a_block_with_the_sites_own_email_is_the_businesss() {
        // Legal notices (class: the business's contact block right after a maker's or
        // host's credit, with no heading of its own; it shows the site's own email): German
        // and French.
        let (phones, emails, _) = found(
            "https://www.tischlerei-muster.de/impressum",
            "<h1>Impressum</h1><h2>Webdesign</h2><p>Agentur Beispiel</p>\
             <p>Tischlerei Muster<br>Telefon: 0341 5567013<br>\
             E-Mail: info@tischlerei-muster.de</p>",
        );
        assert_eq!(phones, ["+493415567013"]);
        assert_eq!(emails, ["info@tischlerei-muster.de"]);
        let (phones, emails, _) = found(
            "https://www.boulangerie-exemple.fr/mentions-legales",
            "<h1>Mentions légales</h1><h2>Hébergeur</h2><p>Hébergement Exemple SAS</p>\
             <p>Boulangerie Exemple<br>Tél : 04 72 00 00 03<br>\
             contact@boulangerie-exemple.fr</p>",
        );
        assert_eq!(phones, ["+33472000003"]);
        assert_eq!(emails, ["contact@boulangerie-exemple.fr"]);
    }

    #[test]
    fn a_block_with_the_sites_own_email_after_a_labelled_line_is_the_businesss() {
        // Labelled third-party lines (class: a maker's or host's label line, then the
        // business's contact block with the site's own email): German and English.
        let (phones, emails, _) = found(
            "https://www.polsterei-muster.de/impressum",
            "<h1>Impressum</h1><p>Polsterei Muster, Gartenweg 7, 04109 Leipzig</p>\
             <p>Webdesign: Agentur Beispiel</p><p>Telefon: 0341 5567014<br>\
             E-Mail: info@polsterei-muster.de</p>",
        );
        assert_eq!(phones, ["+493415567014"]);
        assert_eq!(emails, ["info@polsterei-muster.de"]);
        let (phones, emails, _) = found(
            "https://www.example-florist.co.uk/legal",
            "<h1>Legal notice</h1><p>Example Florist, 5 Linden Way, Exampletown</p>\
             <p>Hosting: Example Hosting Ltd</p><p>Phone: 01273 480125<br>\
             Email: hello@example-florist.co.uk</p>",
        );
        assert_eq!(phones, ["+441273480125"]);
        assert_eq!(emails, ["hello@example-florist.co.uk"]);
    }

    #[test]
    fn a_block_that_spells_the_sites_name_is_the_businesss() {
        // Legal notices (class: the business's contact block right after a maker's or host's
        // section, without a heading or an email of its own; its first line is the company
        // name the domain spells): German and French.
        let (phones, _, _) = found(
            "https://www.glaserei-muster.de/impressum",
            "<h1>Impressum</h1><h2>Webdesign</h2><p>Agentur Beispiel</p>\
             <p>Glaserei Muster<br>Telefon: 0341 5567015</p>",
        );
        assert_eq!(phones, ["+493415567015"]);
        let (phones, _, _) = found(
            "https://www.fromagerie-exemple.fr/mentions-legales",
            "<h1>Mentions légales</h1><h2>Hébergeur</h2><p>Hébergement Exemple SAS</p>\
             <p>Fromagerie Exemple<br>Tél : 04 72 00 00 04</p>",
        );
        assert_eq!(phones, ["+33472000004"]);
    }

    #[test]
    fn a_block_naming_the_business_its_markup_names_is_the_businesss() {
        // Legal notices (class: the business's contact block right after a maker's or host's
        // section, without a heading or an email of its own, on a domain that does not spell
        // its name; the page's JSON-LD Organization or `og:site_name` names it): German and
        // French.
        let (phones, _, _) = found(
            "https://www.gm-glas.de/impressum",
            "<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\
             \"@type\":\"LocalBusiness\",\"name\":\"Glaserei Muster\"}</script>\
             <h1>Impressum</h1><h2>Webdesign</h2><p>Agentur Beispiel</p>\
             <p>Glaserei Muster GmbH<br>Telefon: 0341 5567016</p>",
        );
        assert_eq!(phones, ["+493415567016"]);
        let (phones, _, _) = found(
            "https://www.fx-lyon.fr/mentions-legales",
            "<meta property=\"og:site_name\" content=\"Fromagerie Exemple\">\
             <h1>Mentions légales</h1><h2>Hébergeur</h2><p>Hébergement Exemple SAS</p>\
             <p>Fromagerie Exemple<br>Tél : 04 72 00 00 05</p>",
        );
        assert_eq!(phones, ["+33472000005"]);
    }

    #[test]
    fn a_block_that_links_the_homepage_first_is_the_businesss() {
        // Legal notices (class: the business's contact block after a maker's or host's
        // section, its first line a link to the site's homepage, as a logo or name is):
        // German and English.
        let (phones, _, _) = found(
            "https://www.gm-glas.de/impressum",
            "<h1>Impressum</h1><h2>Webdesign</h2><p>Agentur Beispiel</p>\
             <p><a href=\"/\">Glaserei Muster</a><br>Telefon: 0341 5567017</p>",
        );
        assert_eq!(phones, ["+493415567017"]);
        let (phones, _, _) = found(
            "https://www.ef-shop.co.uk/legal",
            "<h1>Legal notice</h1><h2>Hosting</h2><p>Example Hosting Ltd</p>\
             <p><a href=\"https://www.ef-shop.co.uk/\">Example Florist</a><br>\
             Phone: 01273 480127</p>",
        );
        assert_eq!(phones, ["+441273480127"]);
    }

    #[test]
    fn a_third_partys_block_naming_a_word_of_the_site_stays_the_third_partys() {
        // A chamber's block whose town is a word of the site's domain is still the
        // chamber's (German, English).
        let (phones, _, _) = found(
            "https://www.berlin-dental.de/impressum",
            "<h1>Impressum</h1><p>Berlin Dental<br>Telefon: 030 4471231</p>\
             <h2>Zuständige Kammer</h2><p>Zahnärztekammer Berlin<br>Telefon: 030 4471299</p>",
        );
        assert_eq!(phones, ["+49304471231"]);
        let (phones, _, _) = found(
            "https://www.exampletown-dental.co.uk/legal",
            "<h1>Legal notice</h1><p>Exampletown Dental<br>Phone: 01273 480126</p>\
             <h2>Regulator</h2><p>Exampletown Dental Council<br>Phone: 01273 480199</p>",
        );
        assert_eq!(phones, ["+441273480126"]);
    }

    #[test]
    fn a_bank_line_does_not_hide_the_phone_after_it() {
        // German legal notice (class: a bank's label line, the business's phone and email on
        // the lines after it).
        let (phones, emails, _) = found(
            "https://www.malerbetrieb-beispiel.de/impressum",
            "<h1>Impressum</h1><p>Malerbetrieb Beispiel<br>Gartenweg 5<br>10115 Berlin</p>\
             <p>Bankverbindung: Sparkasse Beispielstadt<br>Telefon: 030 4471230<br>\
             E-Mail: info@malerbetrieb-beispiel.de</p>",
        );
        assert_eq!(phones, ["+49304471230"]);
        assert_eq!(emails, ["info@malerbetrieb-beispiel.de"]);
    }

    #[test]
    fn a_bank_heading_does_not_hide_the_phone_after_its_account() {
        // Dutch colofon (class: bank details under a heading of their own, the business's
        // phone in the next paragraph).
        let (phones, emails, _) = found(
            "https://www.schildersbedrijf-voorbeeld.nl/colofon",
            "<h1>Colofon</h1><p>Schildersbedrijf Voorbeeld<br>Dorpsstraat 12<br>\
             1234 AB Voorbeeldstad</p><h3>Bankgegevens</h3><p>IBAN: NL00 BANK 0000 0000 00</p>\
             <p>Telefoon: 020 481 7703<br>E-mail: info@schildersbedrijf-voorbeeld.nl</p>",
        );
        assert_eq!(phones, ["+31204817703"]);
        assert_eq!(emails, ["info@schildersbedrijf-voorbeeld.nl"]);
    }

    #[test]
    fn a_hosting_heading_runs_to_the_next_heading() {
        let text = "Éditeur\nAcme SARL\nTél : 01 42 68 53 00\nHébergeur\nOVH SAS\nTél : 09 72 10 10 07\nCrédits\nPhotos : X\n";
        let headings = [at(text, "Éditeur"), at(text, "Hébergeur")];
        let ranges = third_party_ranges(&layout(text, &starts(text), &headings));
        assert_eq!(ranges.len(), 2, "{ranges:?}");
        assert_eq!(ranges[0].start, headings[1].start);
        assert!(text[ranges[0].clone()].contains("09 72"));
        assert!(!text[..ranges[0].start].contains("09 72"));
    }

    #[test]
    fn a_labelled_line_and_its_contact_fields() {
        let text = "Hébergeur : OVH SAS\n2 rue Kellermann, 59100 Roubaix\nTél : 09 72 10 10 07\nDirecteur de la publication : Jean Dupont\nAcme, 1 rue X";
        let ranges = third_party_ranges(&Layout::of_text(text, &starts(text)));
        assert_eq!(ranges.len(), 1);
        let section = &text[ranges[0].clone()];
        assert!(section.ends_with("09 72 10 10 07"), "{section}");
        assert!(!section.contains("Directeur"));
    }

    #[test]
    fn whom_a_label_names() {
        for host in [
            "Hosting",
            "Hébergeur du site",
            "L'hébergeur et l'éditeur",
            "Host:",
        ] {
            assert_eq!(party_of(host), Some(Party::Host), "{host}");
        }
        for other in [
            "Zuständige Aufsichtsbehörde",
            "Zuständige Kammer",
            "Rechtsanwaltskammer Berlin",
            "Berufsrechtliche Regelungen",
            "Konzept & Design",
            "Webdesign",
            "Réalisation",
            "Foto",
            "Crédits photos",
            "Schlichtungsstelle",
            "Ordre des avocats de Paris",
            "Ordine degli Avvocati di Milano",
            "Colegio Oficial de Dentistas",
            "Name und Sitz des Versicherers",
        ] {
            assert_eq!(party_of(other), Some(Party::Other), "{other}");
        }
        for bank in ["Bankverbindung", "Bank details", "Bankgegevens"] {
            assert_eq!(party_of(bank), Some(Party::Bank), "{bank}");
        }
        for own in [
            "Hostinger deals",
            "Herberg De Linde",
            "Kontakt",
            "Angaben gemäß § 5 TMG",
            "Éditeur du site",
            "Telefon",
            "Ordini",
            "Inhaber",
        ] {
            assert_eq!(party_of(own), None, "{own}");
        }
    }

    #[test]
    fn other_parties_headings_count_only_on_a_legal_notice() {
        let text = "Design\nWe design kitchens. Call 030 1234567\nImpressum\n";
        let headings = [at(text, "Design")];
        assert!(third_party_ranges(&layout(text, &starts(text), &headings)).is_empty());
        let headings = [at(text, "Design"), at(text, "Impressum")];
        assert_eq!(
            third_party_ranges(&layout(text, &starts(text), &headings)).len(),
            1
        );
    }

    #[test]
    fn a_credit_phrase_cuts_its_line() {
        let text =
            "© 2026 Acme · Tel 0123 456789 · Diseñado por estudio-ejemplo.com, tel 0987 654321\nNext";
        let ranges = third_party_ranges(&Layout::of_text(text, &starts(text)));
        assert_eq!(ranges.len(), 1);
        let line = text.lines().next().unwrap();
        assert_eq!(
            own_part(&ranges, line, 0),
            "© 2026 Acme · Tel 0123 456789 · "
        );
        assert_eq!(own_part(&ranges, "Next", line.len() + 1), "Next");
    }

    #[test]
    fn an_icon_link_just_before_a_section_is_not_in_it() {
        let text = "Blog\nDesigned by X\nNext";
        let ranges = third_party_ranges(&Layout::of_text(text, &starts(text)));
        let pos = text.find("Designed").unwrap();
        assert!(!link_inside(&ranges, text, pos, "send email"));
        assert!(link_inside(&ranges, text, pos, "Designed by X"));
        assert!(link_inside(&ranges, text, pos + 12, "X"));
    }
}
