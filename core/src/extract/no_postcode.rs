//! Addresses printed without a postcode (class `address.no-postcode`): in countries that
//! have none or where it is often left out (Ghana, the Gulf states, Hong Kong; a Polish or
//! Irish contact card that gives the street and the town only). The postcode readers
//! (`address.rs`, `postcode_order.rs`) need one, so these are read here, and only on strong
//! evidence (docs/extraction.md, "Addresses"):
//!
//! - the text of an `<address>` element (HTML Living Standard §4.3.10: the contact
//!   information of the page), or
//! - the lines under an address label (lexicon `label.address`) alone on its line
//!   (`Adres`, `Address:`, a heading or a bold label), or the rest of a line it opens
//!   (`Address: 12 Sample Road, Sampletown`),
//!
//! and in that text a street: a chunk (a line, or a part of it between commas) with a street
//! word of the lexicon (`street.type`, `street.suffix`) and a street name; under a label, a
//! house number as well (a label's lines are more often prose than an `<address>`'s).
//! Premises (`Flat A`, `3rd Floor`, `Sample Building`) before or after the street are part of
//! it; the place names after it are the town and the region; a country name may end it. The
//! page must have a region (its ccTLD or the region its evidence decides) that a printed
//! country agrees with, or print the country. Read only on pages where no address with a
//! postcode (text or structured) was found: a page that prints its postcode address gives it
//! there.

use std::ops::Range;
use std::sync::OnceLock;

use crate::extract::address::{self, MarkedAddress};
use crate::extract::page_budget::PageBudget;
use crate::extract::postcode;
use crate::lexicon::{self, Class};

/// Most lines of one address (under a label or in an `<address>` element).
const MAX_LINES: usize = 5;
/// Most comma-separated chunks of one address.
const MAX_CHUNKS: usize = 8;
/// Longest chunk, in bytes.
const MAX_CHUNK: usize = 80;
/// Longest line an address label opens (`Address: …`), in bytes.
const MAX_LABELLED_LINE: usize = 160;
/// Most words of a town, region or country chunk.
const MAX_PLACE_WORDS: usize = 4;

/// Where the page's text is divided: the byte offset where each line starts
/// ([`crate::extract::html::Document::text`] split at `\n`), the offsets where its blocks
/// start (`Document::block_starts`) and the byte ranges of its `<address>` elements
/// (`Document::address_ranges`).
pub(crate) struct Layout<'a> {
    pub(crate) line_starts: &'a [usize],
    pub(crate) block_starts: &'a [usize],
    pub(crate) address_ranges: &'a [Range<usize>],
}

impl Layout<'_> {
    /// The index of the block of line `line` (the count of block starts at or before its
    /// start); a line past the end is in a block of its own.
    pub(crate) fn block_of(&self, line: usize) -> usize {
        let start = self.line_starts.get(line).copied().unwrap_or(usize::MAX);
        self.block_starts.partition_point(|s| *s <= start)
    }
}

/// The addresses without a postcode of a page's `lines` (its text, third parties' parts
/// blanked), `region` the page's ISO 3166-1 region (ccTLD, else the one its evidence decides;
/// `None`: only an address that prints its country is read). Charged to `budget` (a unit a
/// byte of each line looked at); once it is spent the addresses found so far are returned.
pub(crate) fn read(
    lines: &[&str],
    layout: &Layout<'_>,
    region: Option<&str>,
    budget: &PageBudget,
) -> Vec<MarkedAddress> {
    let mut found: Vec<MarkedAddress> = Vec::new();
    let line_of = |offset: usize| {
        layout
            .line_starts
            .partition_point(|start| *start <= offset)
            .saturating_sub(1)
    };
    for range in layout.address_ranges {
        let (first, last) = (line_of(range.start), line_of(range.end.saturating_sub(1)));
        let texts: Vec<&str> = (first..=last.min(first + MAX_LINES - 1))
            .filter_map(|i| lines.get(i))
            .map(|line| line.trim())
            .filter(|line| !line.is_empty())
            .collect();
        if !budget.work(texts.iter().map(|t| t.len()).sum::<usize>() + 16) {
            return found;
        }
        found.extend(parse(&texts, Evidence::Element, region));
    }
    let block_of = |line: usize| layout.block_of(line);
    for (index, line) in lines.iter().enumerate() {
        if !budget.work(line.len() + 16) {
            break;
        }
        let Some(rest) = after_label(line) else {
            continue;
        };
        // The lines of the label's block after it; a label alone in its block (a heading)
        // labels the next block.
        let mut texts: Vec<&str> = Vec::new();
        if !rest.is_empty() {
            texts.push(rest);
        }
        let block = if rest.is_empty() && block_of(index + 1) != block_of(index) {
            block_of(index + 1)
        } else {
            block_of(index)
        };
        texts.extend(
            (index + 1..lines.len())
                .take_while(|i| block_of(*i) == block)
                .map(|i| lines[i].trim())
                .filter(|line| !line.is_empty())
                .take(MAX_LINES),
        );
        texts.truncate(MAX_LINES);
        found.extend(parse(&texts, Evidence::Label, region));
    }
    found
}

/// What shows that a text is an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Evidence {
    /// An `<address>` element holds it.
    Element,
    /// An address label opens it or stands above it.
    Label,
    /// Nothing but its shape (`extract::unlabelled_address`): every chunk is read as a part
    /// of the address, and the street is no sentence.
    Unlabelled,
}

/// The lexicon's address labels (`label.address`), lower-case, sorted; built once.
fn labels() -> &'static lexicon::SortedWords {
    static LABELS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    LABELS.get_or_init(|| lexicon::sorted_words(&[Class::LabelAddress], str::to_lowercase))
}

/// The shapes of [`labels`]: for each first byte, a bit for each length in bytes (63 for
/// 63 and more). An ASCII text lower-cases to one of its own length and first byte lower-
/// cased, so one whose shape is not here is no label, known before it is lower-cased and
/// looked up (most short lines of a page open with no label).
fn label_shapes() -> &'static [u64; 256] {
    static SHAPES: OnceLock<[u64; 256]> = OnceLock::new();
    SHAPES.get_or_init(|| {
        let mut shapes = [0u64; 256];
        for label in labels() {
            if let Some(&first) = label.as_bytes().first() {
                shapes[usize::from(first)] |= 1 << label.len().min(63);
            }
        }
        shapes
    })
}

/// Whether `head` is one of [`labels`], case ignored.
fn is_label(head: &str) -> bool {
    if let Some(&first) = head.as_bytes().first().filter(|_| head.is_ascii()) {
        let lengths = label_shapes()[usize::from(first.to_ascii_lowercase())];
        if lengths & 1 << head.len().min(63) == 0 {
            return false;
        }
    }
    address::with_lowercase(head, |head| lexicon::holds(labels(), head))
}

/// The labels of other fields (`label.phone`, `label.email`), lower-case, sorted; built once.
fn other_labels() -> &'static lexicon::SortedWords {
    static LABELS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    LABELS.get_or_init(|| {
        lexicon::sorted_words(&[Class::LabelPhone, Class::LabelEmail], str::to_lowercase)
    })
}

/// What follows an address label that opens `line`: `Some("")` for a label alone on its line
/// (`Adres`, `Address:`), `Some(rest)` for `Address: rest`; `None` when no label opens it.
fn after_label(line: &str) -> Option<&str> {
    let line = line.trim();
    if line.is_empty() || line.len() > MAX_LABELLED_LINE {
        return None;
    }
    // A colon after the first 33 bytes opens no label: only they are searched.
    let (head, rest) = match memchr::memchr(b':', &line.as_bytes()[..line.len().min(33)]) {
        Some(colon) if colon <= 32 => (&line[..colon], line[colon + 1..].trim()),
        _ if line.len() <= 32 => (line, ""),
        _ => return None,
    };
    let head = head.trim();
    if head.is_empty() || head.len() > 32 || !head.starts_with(char::is_alphabetic) {
        return None;
    }
    is_label(head).then_some(rest)
}

/// The address of `texts` (an address's lines), when it holds a street; see the module's
/// documentation. With [`Evidence::Unlabelled`] every chunk must be a premise, the street, a
/// place or the country, and at least one place or the country must follow the street; a
/// place on the street's line before the town is the street's district.
pub(crate) fn parse(
    texts: &[&str],
    evidence: Evidence,
    region: Option<&str>,
) -> Option<MarkedAddress> {
    let mut texts = texts;
    // A first line without a digit or street word above the others is a name (`Acme Ltd`).
    if texts.len() >= 2
        && !texts[0].bytes().any(|b| b.is_ascii_digit())
        && !address::has_street_word_in(texts[0])
        && !address::is_premise(texts[0])
    {
        texts = &texts[1..];
    }
    // The chunks, and the index of the line of each.
    let (chunk_lines, chunks): (Vec<usize>, Vec<&str>) = texts
        .iter()
        .enumerate()
        .flat_map(|(i, t)| t.split(',').map(move |c| (i, c)))
        .map(|(i, c)| (i, c.trim().trim_end_matches('.').trim()))
        .filter(|(_, c)| !c.is_empty())
        .unzip();
    if chunks.is_empty() || chunks.len() > MAX_CHUNKS * 2 {
        return None;
    }
    // Without a label, the street with a house number: a building named with a street word
    // may come before it (`Sample Plaza, 3rd Floor, 12 Example Road`).
    let numbered = (evidence == Evidence::Unlabelled)
        .then(|| {
            chunks
                .iter()
                .position(|c| digits(c) > 0 && is_street(c, evidence))
        })
        .flatten();
    let unit = |c: &str| c.len() <= 12 && c.split_whitespace().count() <= 2 && digits(c) > 0;
    // Under a label, a street without a house number after a numbered premise or unit: the
    // number is the premise's (class `address.numbered_premise`, the Gulf's and East Africa's
    // way: `Office 1401, Sample Tower, Sample Road`, `Sample Plaza, 2nd Floor, Sample Road`).
    let premise_numbered = (evidence == Evidence::Label)
        .then(|| {
            chunks.iter().enumerate().position(|(i, c)| {
                digits(c) == 0
                    && is_street(c, Evidence::Element)
                    && chunks[..i]
                        .iter()
                        .any(|p| digits(p) > 0 && (address::is_premise(p) || unit(p)))
            })
        })
        .flatten();
    // Under a label, a street whose house number stands in the next chunk (class
    // `street.number_after_comma`: `Travessa das Flores, 45`, `Calle Mayor, 5`).
    let comma_numbered = (evidence == Evidence::Label)
        .then(|| {
            chunks.windows(2).position(|pair| {
                digits(pair[0]) == 0
                    && is_street(pair[0], Evidence::Element)
                    && is_bare_house_number(pair[1])
            })
        })
        .flatten();
    let street_at = numbered
        .or_else(|| chunks.iter().position(|c| is_street(c, evidence)))
        .or(premise_numbered)
        .or(comma_numbered)?;
    // Premises and unit numbers (`10/F`, `No. 4`) before the street belong to it, and so do
    // buildings before a numbered street or a premise's number; anything else before it is
    // no address.
    let building = |c: &str| {
        (numbered.is_some() && is_street(c, evidence))
            || (premise_numbered == Some(street_at) && is_street(c, Evidence::Element))
    };
    if !chunks[..street_at]
        .iter()
        .all(|c| address::is_premise(c) || unit(c) || building(c))
    {
        return None;
    }
    let mut end = street_at + 1 + usize::from(comma_numbered == Some(street_at));
    // After a numbered premise, the chunk read as the street may be a building named with an
    // address word (`Shop 5, Sample Building, Sample Street`): the streets after it without
    // a number are part of the street too (class `address.numbered_premise`).
    let more_street = |c: &str| {
        premise_numbered == Some(street_at) && digits(c) == 0 && is_street(c, Evidence::Element)
    };
    while end < chunks.len() && (address::is_premise(chunks[end]) || more_street(chunks[end])) {
        end += 1;
    }
    // A number after the street is a postcode the readers could not place (or a phone):
    // not an address without one.
    if chunks[end..].iter().any(|c| digits(c) > 0) {
        return None;
    }
    let mut street = chunks[..end].join(", ");
    if street.len() > MAX_CHUNK * 2 || end > MAX_CHUNKS {
        return None;
    }
    // Then the town and the region, place names, and the country.
    let mut places: Vec<&str> = Vec::new();
    let mut country: Option<(&str, &'static str)> = None;
    let mut read = end;
    for chunk in &chunks[end..] {
        if let Some(code) = country_code(chunk) {
            country = Some((chunk, code));
            read += 1;
            break;
        }
        // Without a label, a district may come before the town and the region.
        let most = if evidence == Evidence::Unlabelled {
            3
        } else {
            2
        };
        if places.len() == most || !is_place(chunk) {
            break;
        }
        places.push(chunk);
        read += 1;
    }
    if evidence == Evidence::Unlabelled && (read < chunks.len() || read == end) {
        return None;
    }
    match (country, region) {
        (Some((_, code)), Some(region)) if code != region => return None,
        (None, None) => return None,
        _ => {}
    }
    // Without a label, a place on the street's line before the town is the street's district
    // or neighbourhood, written with it (`No. 14 Sample Street, East Legon` / `Accra`).
    if evidence == Evidence::Unlabelled
        && places.len() >= 2
        && chunk_lines.get(end) == chunk_lines.get(end - 1)
    {
        street = format!("{street}, {}", places.remove(0));
    }
    // An `<address>` element without a label is read in countries without postcodes only
    // (none in the address data): elsewhere its address has one the readers missed.
    let code = country.map(|(_, code)| code).or(region);
    if evidence == Evidence::Element && code.and_then(postcode::format).is_some() {
        return None;
    }
    Some(MarkedAddress {
        street: Some(street),
        locality: places.first().map(|p| p.to_string()),
        region: places.get(1).map(|p| p.to_string()),
        postal_code: None,
        country: country.map(|(name, _)| name.to_string()),
    })
}

/// Whether `chunk` is a street: a street word and a street name, no other field; under a
/// label, a house number too; without a label or element, no sentence ([`is_sentence`]), and
/// the street word may be left out ([`is_typeless_street`]).
fn is_street(chunk: &str, evidence: Evidence) -> bool {
    chunk.len() <= MAX_CHUNK
        && !chunk.contains(['@', ':'])
        && !chunk.contains("http")
        && longest_digit_group(chunk) < MIN_PHONE_DIGITS
        && (evidence != Evidence::Label || digits(chunk) > 0)
        && (address::has_street_word_in(chunk)
            || (evidence == Evidence::Unlabelled && is_typeless_street(chunk)))
        && address::has_street_name(chunk)
        && (evidence != Evidence::Unlabelled || !is_sentence(chunk))
}

/// Most words of a street without a street word, its house number included.
const MAX_TYPELESS_WORDS: usize = 3;

/// Whether `chunk` is a street whose type is not written (class `address.typeless-street`:
/// `Vzorová 12`, `Sample de Sample 12`, a village and its house number `Vzorovice 21`): a name
/// of one or two words of letters, then a house number (a digit first, at most four digits:
/// `12`, `12a`, `156a/306`).
pub(crate) fn is_typeless_street(chunk: &str) -> bool {
    // The words without a vector: the unlabelled reader asks this of every line's parts.
    let mut words = [""; MAX_TYPELESS_WORDS + 1];
    let mut count = 0;
    for word in chunk.split_whitespace() {
        let Some(slot) = words.get_mut(count) else {
            return false;
        };
        *slot = word;
        count += 1;
    }
    let Some((number, name)) = words[..count].split_last() else {
        return false;
    };
    (2..=MAX_TYPELESS_WORDS).contains(&count)
        && number.starts_with(|c: char| c.is_ascii_digit())
        && number.len() <= 8
        && digits(number) <= 4
        && name.iter().all(|word| {
            word.chars()
                .all(|c| c.is_alphabetic() || matches!(c, '.' | '-' | '\''))
        })
}

/// Most words of a street read without a label or element.
const MAX_STREET_WORDS: usize = 7;

/// Whether `chunk` reads as (part of) a sentence rather than a street: more than
/// [`MAX_STREET_WORDS`] words, a sentence's punctuation (`!`, `?`, `;`), or a lower-case word of
/// four letters or more that is no street or premise word (`We are located at 12 Sample
/// Road`: a street's name is capitalised, its type and small joiners `de`, `la`, `van` are
/// not).
fn is_sentence(chunk: &str) -> bool {
    chunk.split_whitespace().count() > MAX_STREET_WORDS
        || chunk.contains(['!', '?', ';'])
        || chunk
            .split(|c: char| !c.is_alphabetic())
            .filter(|w| w.chars().count() >= 4 && w.starts_with(char::is_lowercase))
            .any(|w| !address::has_street_word(w) && !address::is_premise(w))
}

/// Whether `chunk` is a place name: letters (and spaces, `-`, `'`, `.`, parentheses), a few
/// words, not a label of another field.
fn is_place(chunk: &str) -> bool {
    let lower = chunk.to_lowercase();
    chunk.split_whitespace().count() <= MAX_PLACE_WORDS
        && chunk.starts_with(char::is_alphabetic)
        && chunk
            .chars()
            .all(|c| c.is_alphabetic() || matches!(c, ' ' | '-' | '\'' | '.' | '(' | ')'))
        && !lower
            .split(|c: char| !c.is_alphabetic())
            .any(|w| lexicon::holds(other_labels(), w) || lexicon::holds(labels(), w))
        && !address::has_street_word(&lower)
}

/// The region a country name (`Ghana`, `Polska`, `UAE`) names.
fn country_code(chunk: &str) -> Option<&'static str> {
    address::region_of_country(chunk)
        .or_else(|| postcode::country_of_name(chunk))
        .or_else(|| country_without_postcode(chunk))
}

/// Longest line [`country_ending_address_line`] reads, in bytes.
const MAX_ADDRESS_LINE_BYTES: usize = 160;
/// Longest country name [`country_ending_address_line`] reads, in bytes.
const MAX_COUNTRY_NAME_BYTES: usize = 64;

/// The country an address line names in its last comma-separated part, that part being the
/// name alone (`…, Miraflores 15074, Lima, Perú`, `…, Bogotá, Colombia`, `…, Dubai, United
/// Arab Emirates`), with a digit (a house number or a postcode) before it: evidence of the
/// page's country (class `region.printed_country`, `extract::region`): the names
/// [`address::country_of_whole_name`] reads, and the countries without a postcode.
pub(crate) fn country_ending_address_line(line: &str) -> Option<&'static str> {
    // An address line, not a paragraph listing places (`… Danang, Vietnam, …, Germany.`).
    if line.len() > MAX_ADDRESS_LINE_BYTES {
        return None;
    }
    let (before, last) = line.rsplit_once(',')?;
    let last = last.trim().trim_end_matches('.').trim_end();
    if last.is_empty()
        || last.len() > MAX_COUNTRY_NAME_BYTES
        || !before.bytes().any(|b| b.is_ascii_digit())
    {
        return None;
    }
    address::country_of_whole_name(last).or_else(|| country_without_postcode(last))
}

/// The countries without a postcode and their English names, from Google's address metadata
/// (the data of libaddressinput, Apache-2.0), vendored as
/// `core/data/countries-without-postcodes.tsv` with its source and version
/// (`benches/scripts/countries_without_postcodes.py` regenerates it): the names of
/// `core/data/address-formats.tsv` ([`postcode::country_of_name`]) cover the others.
const WITHOUT_POSTCODES: &str = include_str!("../../data/countries-without-postcodes.tsv");

/// The code of the country without a postcode that `name` names (`Ghana`, `QATAR`, `Panamá`),
/// case and the accents of Latin letters ignored.
fn country_without_postcode(name: &str) -> Option<&'static str> {
    static NAMES: OnceLock<Vec<(String, &'static str)>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let mut names: Vec<(String, &'static str)> = WITHOUT_POSTCODES
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| line.split_once('\t'))
            .map(|(code, name)| (fold(name), code))
            .collect();
        names.sort_unstable();
        names
    });
    let name = fold(name.trim());
    names
        .binary_search_by(|(probe, _)| probe.as_str().cmp(&name))
        .ok()
        .map(|at| names[at].1)
}

/// `text` lower-case with the accents of Latin vowels and `ç`, `ñ` taken off (`Panamá` →
/// `panama`).
fn fold(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ã' | 'ä' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'õ' | 'ö' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            other => other,
        })
        .collect()
}

/// Whether `chunk` is a house number alone (`45`, `12a`, `nº 45`, `nr. 14`): at most two
/// words, ending in a number of at most five digits.
fn is_bare_house_number(chunk: &str) -> bool {
    let words = chunk.split_whitespace().count();
    // `nº 45`: a mark, then the number; `45`, `12a`: the number alone.
    let alone_or_marked = words == 1 || !chunk.starts_with(|c: char| c.is_ascii_digit());
    words <= 2
        && alone_or_marked
        && (1..=5).contains(&digits(chunk))
        && address::ends_with_house_number(chunk)
}

fn digits(text: &str) -> usize {
    text.bytes().filter(u8::is_ascii_digit).count()
}

/// Digits of a phone number written in groups: a chunk with a group of this many is a phone,
/// not a street.
const MIN_PHONE_DIGITS: usize = 7;

/// The most digits of one group of `text`: a run of digits and the single spaces, dots, dashes
/// and slashes between them, as phone numbers are grouped (`601 234 5678`, `601-234-5678`).
/// A street's numbers are set apart by words or marks (class `address.grid_street`: `Calle 100
/// # 15-20`, the street, then the crossing street's number and the distance from it; `12345
/// Sample Highway Suite 1200`), so their digits together may be as many as a phone's.
fn longest_digit_group(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut longest, mut current) = (0, 0);
    for (at, &b) in bytes.iter().enumerate() {
        if b.is_ascii_digit() {
            current += 1;
            longest = longest.max(current);
        } else {
            let joins = matches!(b, b' ' | b'.' | b'-' | b'/')
                && at > 0
                && bytes[at - 1].is_ascii_digit()
                && bytes.get(at + 1).is_some_and(u8::is_ascii_digit);
            if !joins {
                current = 0;
            }
        }
    }
    longest
}

/// Calls `read` with the layout of `lines` read as a page's text whose blocks start at the
/// lines `blocks`, with `<address>` elements over the lines `elements` (first line, line
/// after the last): the readers' tests build their pages so.
#[cfg(test)]
pub(crate) fn with_layout<T>(
    lines: &[&str],
    blocks: &[usize],
    elements: &[(usize, usize)],
    read: impl FnOnce(&Layout<'_>) -> T,
) -> T {
    let line_starts: Vec<usize> = lines
        .iter()
        .scan(0, |pos, line| {
            let start = *pos;
            *pos += line.len() + 1;
            Some(start)
        })
        .collect();
    let block_starts: Vec<usize> = blocks.iter().map(|b| line_starts[*b]).collect();
    let address_ranges: Vec<Range<usize>> = elements
        .iter()
        .map(|(first, end)| line_starts[*first]..line_starts[end - 1] + lines[end - 1].len())
        .collect();
    read(&Layout {
        line_starts: &line_starts,
        block_starts: &block_starts,
        address_ranges: &address_ranges,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`after_label`] as first written: the whole line searched for its colon, every head
    /// lower-cased and looked up.
    fn after_label_plain(line: &str) -> Option<&str> {
        let line = line.trim();
        if line.is_empty() || line.len() > MAX_LABELLED_LINE {
            return None;
        }
        let (head, rest) = match line.find(':') {
            Some(colon) if colon <= 32 => (&line[..colon], line[colon + 1..].trim()),
            _ if line.len() <= 32 => (line, ""),
            _ => return None,
        };
        let head = head.trim();
        if head.is_empty() || head.len() > 32 || !head.starts_with(char::is_alphabetic) {
            return None;
        }
        address::with_lowercase(head, |head| lexicon::holds(labels(), head)).then_some(rest)
    }

    /// Lines that open with a label of the lexicon in any case, a near miss or other words,
    /// a colon near the 33rd byte or none.
    fn labelled_line() -> impl Strategy<Value = String> {
        let head = prop_oneof![
            proptest::sample::select(labels().to_vec()),
            proptest::sample::select(labels().to_vec()).prop_map(|l| l.to_uppercase()),
            proptest::sample::select(labels().to_vec()).prop_map(|l| format!("{l}s")),
            "[A-Za-zÀ-ÿİ ]{0,36}",
        ];
        (head, "( ?: ?)?", "[ -~é]{0,40}")
            .prop_map(|(head, colon, rest)| format!("{head}{colon}{rest}"))
    }

    proptest! {
        #[test]
        fn after_label_reads_as_the_plain_reading(line in labelled_line()) {
            prop_assert_eq!(after_label(&line), after_label_plain(&line));
        }
    }

    #[test]
    fn address_labels_open_lines_in_two_languages_whatever_their_case() {
        assert_eq!(after_label("Address: 1 Sample Road"), Some("1 Sample Road"));
        assert_eq!(after_label("ADRESSE"), Some(""));
        assert_eq!(after_label("Addresses: 1 Sample Road"), None);
        assert_eq!(after_label("Opening hours: 9–17"), None);
    }

    proptest::proptest! {
        #[test]
        fn a_typeless_street_is_read_as_its_words_say(chunk in "[A-Za-zé0-9 .'-]{0,24}") {
            // The reading the function spares its vector of: every word collected first.
            let words: Vec<&str> = chunk.split_whitespace().collect();
            let by_vector = words.split_last().is_some_and(|(number, name)| {
                (2..=MAX_TYPELESS_WORDS).contains(&words.len())
                    && number.starts_with(|c: char| c.is_ascii_digit())
                    && number.len() <= 8
                    && digits(number) <= 4
                    && name.iter().all(|word| {
                        word.chars()
                            .all(|c| c.is_alphabetic() || matches!(c, '.' | '-' | '\''))
                    })
            });
            proptest::prop_assert_eq!(is_typeless_street(&chunk), by_vector, "{:?}", chunk);
        }
    }

    /// Reads `lines` as a page's text whose blocks start at the lines `blocks`, with the
    /// `<address>` elements over the lines `elements` (first line, line after the last).
    fn read_lines(
        lines: &[&str],
        blocks: &[usize],
        elements: &[(usize, usize)],
        region: Option<&str>,
    ) -> Vec<MarkedAddress> {
        with_layout(lines, blocks, elements, |layout| {
            read(lines, layout, region, &PageBudget::for_page(1 << 20))
        })
    }

    fn street_and_town(a: &MarkedAddress) -> (Option<&str>, Option<&str>) {
        (a.street.as_deref(), a.locality.as_deref())
    }

    #[test]
    fn a_sentence_before_an_unlabelled_street_is_no_building() {
        // Without a label, a chunk before the numbered street is a building only when it is
        // read as a street would be: a sentence with a street word is not one.
        let texts = [
            "Visit our new showroom on the main road",
            "12 Sample Road",
            "Accra",
        ];
        assert_eq!(parse(&texts, Evidence::Unlabelled, Some("GH")), None);
        let texts = ["Sample Plaza", "12 Sample Road", "Accra"];
        let found = parse(&texts, Evidence::Unlabelled, Some("GH")).expect("an address");
        assert_eq!(
            found.street.as_deref(),
            Some("Sample Plaza, 12 Sample Road")
        );
    }

    #[test]
    fn a_label_heading_labels_the_block_under_it() {
        // Polish contact card: heading `Adres`, then street and town in one paragraph.
        let lines = [
            "Adres",
            "ul. Przykładowa 12a/3",
            "Opole",
            "Godziny otwarcia",
        ];
        let found = read_lines(&lines, &[0, 1, 3], &[], Some("PL"));
        assert_eq!(found.len(), 1);
        assert_eq!(
            street_and_town(&found[0]),
            (Some("ul. Przykładowa 12a/3"), Some("Opole"))
        );
        // English (Nigeria): a bold label over the lines in the same block.
        let lines = ["Address:", "15 Sample Crescent", "Ikeja", "Lagos"];
        let found = read_lines(&lines, &[0], &[], Some("NG"));
        assert_eq!(found.len(), 1);
        assert_eq!(
            (
                found[0].street.as_deref(),
                found[0].locality.as_deref(),
                found[0].region.as_deref()
            ),
            (Some("15 Sample Crescent"), Some("Ikeja"), Some("Lagos"))
        );
    }

    #[test]
    fn a_label_opening_a_line_gives_the_rest_of_it() {
        // Hong Kong: premises before the street, the district, the territory as country.
        let lines =
            ["Address: Flat A, 10/F, Sample Building, 88 Example Road, Wan Chai, Hong Kong"];
        let found = read_lines(&lines, &[0], &[], Some("HK"));
        assert_eq!(found.len(), 1);
        assert_eq!(
            street_and_town(&found[0]),
            (
                Some("Flat A, 10/F, Sample Building, 88 Example Road"),
                Some("Wan Chai")
            )
        );
        // The territory is a country of the address data without postcodes.
        assert_eq!(found[0].country.as_deref(), Some("Hong Kong"));
        // Spanish (Chile): an office after the street is part of it.
        let lines = ["Dirección: Av. Ejemplo 1234, Oficina 56, Providencia, Santiago"];
        let found = read_lines(&lines, &[0], &[], Some("CL"));
        assert_eq!(found.len(), 1);
        assert_eq!(
            street_and_town(&found[0]),
            (Some("Av. Ejemplo 1234, Oficina 56"), Some("Providencia"))
        );
    }

    #[test]
    fn an_address_element_needs_no_label_or_number() {
        // Ghana: a road between two towns, no house number.
        let lines = ["Visit Us", "Tema - Sample Rd", "Near the Mall"];
        let found = read_lines(&lines, &[0, 1, 2], &[(1, 2)], Some("GH"));
        assert_eq!(found.len(), 1);
        assert_eq!(street_and_town(&found[0]), (Some("Tema - Sample Rd"), None));
        // UAE: a name line, the street with its tower, the emirate, the country.
        let lines = [
            "Sample Trading LLC",
            "Office 1204, Sample Tower, Sheikh Zayed Road",
            "Dubai, United Arab Emirates",
        ];
        let found = read_lines(&lines, &[0], &[(0, 3)], Some("AE"));
        assert_eq!(found.len(), 1);
        assert_eq!(
            street_and_town(&found[0]),
            (
                Some("Office 1204, Sample Tower, Sheikh Zayed Road"),
                Some("Dubai")
            )
        );
    }

    /// The page's addresses, read by [`crate::extract::extract_page`] from `html` at `url`.
    fn page_addresses(url: &str, html: &str) -> Vec<MarkedAddress> {
        let url = url::Url::parse(url).unwrap();
        crate::extract::extract_page(&url, None, html.as_bytes()).addresses
    }

    #[test]
    fn pages_give_their_address_without_a_postcode() {
        // Ghana: an `<address>` element in a card.
        let found = page_addresses(
            "https://example.com.gh/contact",
            "<html lang=en><body><div><h4>Visit Us</h4><address>Tema - Sample Rd</address>\
             <address>Near the Mall</address></div></body></html>",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].street.as_deref(), Some("Tema - Sample Rd"));
        // Polish: a heading label over a paragraph.
        let found = page_addresses(
            "https://example.pl/kontakt",
            "<html lang=pl><body><h3>Adres</h3><p>ul. Przykładowa 12a/3<br>Opole</p>\
             <h3>Rejestracja</h3><p>Pon — Pt</p></body></html>",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(
            street_and_town(&found[0]),
            (Some("ul. Przykładowa 12a/3"), Some("Opole"))
        );
        // A page with a postcode address gives that one only.
        let found = page_addresses(
            "https://example.pl/kontakt",
            "<html lang=pl><body><h3>Adres</h3><p>ul. Przykładowa 12a/3<br>Opole</p>\
             <footer><p>ul. Przykładowa 12a/3, 45-001 Opole</p></footer></body></html>",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].postal_code.as_deref(), Some("45-001"));
    }

    #[test]
    fn weak_or_contradicted_evidence_reads_nothing() {
        // An `<address>` element in a country of postcodes: its postcode was missed.
        let lines = ["Sample Trading GmbH", "Musterweg 12", "Musterstadt"];
        assert!(read_lines(&lines, &[0], &[(0, 3)], Some("DE")).is_empty());
        // A number after the street: a postcode of an unknown form, or a phone.
        let lines = ["Office 12, Sample Road", "Dubai 04 123"];
        assert!(read_lines(&lines, &[0], &[(0, 2)], Some("AE")).is_empty());
        // A label over prose, a street word without a number under a label, another field.
        for lines in [
            &["Address", "We deliver to every town in the region"][..],
            &["Address:", "Main Street"][..],
            &["Adresse : contact@example.fr"][..],
            &["Address", "Call 020 1234 5678 for directions"][..],
        ] {
            assert!(
                read_lines(lines, &[0], &[], Some("GB")).is_empty(),
                "{lines:?}"
            );
        }
        // An `<address>` element with an email and a phone only.
        let lines = ["info@example.com", "+233 30 000 0000"];
        assert!(read_lines(&lines, &[0], &[(0, 2)], Some("GH")).is_empty());
        // A country other than the page's, or no region and no country.
        let lines = ["Address: 12 Sample Road, Sampletown, Kenya"];
        assert!(read_lines(&lines, &[0], &[], Some("GH")).is_empty());
        let lines = ["Address: 12 Sample Road, Sampletown"];
        assert!(read_lines(&lines, &[0], &[], None).is_empty());
        assert_eq!(read_lines(&lines, &[0], &[], Some("NG")).len(), 1);
    }
}
