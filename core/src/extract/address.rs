//! Postal addresses in visible text, anchored on a postcode pattern (docs/extraction.md and
//! §6 rule 9): the line with the postcode gives postcode, locality and region; the street is
//! what precedes it on that line, or the address-like lines right above it. Nothing is guessed:
//! parts the page does not show stay empty.
//!
//! Patterns (each needs the shape of a whole postcode line, not a bare number):
//! - US `City, ST 12345(-6789)`, CA `City, ON A1A 1A1`, AU `City NSW 2000` (state or province
//!   by code or full name);
//! - GB outward + inward postcode (`NW3 9ZZ`), NL `1234 AB City`, PT `1234-567 City`,
//!   SE `123 45 City`, IE Eircode;
//! - `12345 City` / `1234 City` for DE, AT, CH, FR, IT, ES, BE, DK, NO, LU only when the page's
//!   region is one of those (too ambiguous otherwise).

use std::cmp::Ordering;
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;
use regex_syntax::hir::{Class, Hir, HirKind};

use crate::extract::dates;
use crate::extract::page_budget::PageBudget;
use crate::extract::postcode::{self, Layout};
use crate::extract::postcode_places;
use crate::extract::words8::{any_ascii_digit, first_ascii_digit, load};
use crate::lexicon::{self, Class as Words};

/// Address parts found in markup, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkedAddress {
    /// `streetAddress` / `street-address` (+ `extended-address`, `postOfficeBoxNumber`).
    pub street: Option<String>,
    /// `addressLocality` / `locality`.
    pub locality: Option<String>,
    /// `addressRegion` / `region`.
    pub region: Option<String>,
    /// `postalCode` / `postal-code`.
    pub postal_code: Option<String>,
    /// `addressCountry` / `country-name`.
    pub country: Option<String>,
}

/// The address parts of a page's contact metas (class `meta.address`): the Open Graph contact
/// properties (`og:street-address`, `og:locality`, `og:region`, `og:postal-code`,
/// `og:country-name`, ogp.me's original contact metadata) and those of the Open Graph
/// `business.business` type (`business:contact_data:street_address`, `…:locality`, `…:region`,
/// `…:postal_code`, `…:country_name`), read like the parts of a schema.org `PostalAddress`. Keys
/// are lower-case, as the walker keeps them.
pub const META_ADDRESS_KEYS: [(&str, MetaPart); 10] = [
    ("og:street-address", MetaPart::Street),
    ("og:locality", MetaPart::Locality),
    ("og:region", MetaPart::Region),
    ("og:postal-code", MetaPart::PostalCode),
    ("og:country-name", MetaPart::Country),
    ("business:contact_data:street_address", MetaPart::Street),
    ("business:contact_data:locality", MetaPart::Locality),
    ("business:contact_data:region", MetaPart::Region),
    ("business:contact_data:postal_code", MetaPart::PostalCode),
    ("business:contact_data:country_name", MetaPart::Country),
];

/// Which part of an address a contact meta gives ([`META_ADDRESS_KEYS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaPart {
    /// `streetAddress`.
    Street,
    /// `addressLocality`.
    Locality,
    /// `addressRegion`.
    Region,
    /// `postalCode`.
    PostalCode,
    /// `addressCountry`.
    Country,
}

/// The address a page's contact metas give ([`META_ADDRESS_KEYS`]; `metas` are (key, content)
/// pairs, keys lower-case): the first content of each part. `None` without a street and a
/// postcode (a town alone is no address).
pub fn from_metas<'a>(
    metas: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Option<MarkedAddress> {
    let mut found = MarkedAddress::default();
    for (key, content) in metas {
        let Some((_, part)) = META_ADDRESS_KEYS.iter().find(|(k, _)| *k == key) else {
            continue;
        };
        let content = content.trim();
        if content.is_empty() || content.len() > MAX_LINE {
            continue;
        }
        let slot = match part {
            MetaPart::Street => &mut found.street,
            MetaPart::Locality => &mut found.locality,
            MetaPart::Region => &mut found.region,
            MetaPart::PostalCode => &mut found.postal_code,
            MetaPart::Country => &mut found.country,
        };
        slot.get_or_insert_with(|| content.to_string());
    }
    (found.street.is_some() || found.postal_code.is_some()).then_some(found)
}

/// Longest line examined, in bytes; longer lines are prose.
const MAX_LINE: usize = 400;
/// Most lines above the postcode line read as street lines.
const MAX_STREET_LINES: usize = 3;

/// An address found in text, with the region its postcode pattern implies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextAddress {
    /// The parts.
    pub parts: MarkedAddress,
    /// ISO 3166-1 alpha-2 code of the pattern that matched (`US`, `GB`…).
    pub region: &'static str,
    /// Index of the line holding the postcode.
    pub line: usize,
}

const US_STATES: &str = "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR|Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming";
const IE_COUNTIES: &str = "Antrim|Armagh|Carlow|Cavan|Clare|Cork|Derry|Donegal|Down|Dublin|Fermanagh|Galway|Kerry|Kildare|Kilkenny|Laois|Leitrim|Limerick|Longford|Louth|Mayo|Meath|Monaghan|Offaly|Roscommon|Sligo|Tipperary|Tyrone|Waterford|Westmeath|Wexford|Wicklow";
const CA_PROVINCES: &str = "AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT|Alberta|British Columbia|Manitoba|New Brunswick|Newfoundland(?: and Labrador)?|Nova Scotia|Northwest Territories|Nunavut|Ontario|Prince Edward Island|Quebec|Québec|Saskatchewan|Yukon";
const AU_STATES: &str = "NSW|VIC|Vic|QLD|Qld|SA|WA|TAS|Tas|NT|ACT|New South Wales|Victoria|Queensland|South Australia|Western Australia|Tasmania|Northern Territory|Australian Capital Territory";
/// A place name: capitalised words (letters, apostrophes, dots, hyphens), up to five. Read in
/// code ([`with_city`], [`city_first`]), not compiled: its letter class, five times over, is
/// most of what compiling a pattern holding it costs.
#[cfg(test)]
const CITY: &str = r"[A-Z][\p{L}'’.\-]*(?:[ \-][A-Za-z][\p{L}'’.\-]*){0,4}";
/// [`CITY`] with Latin capitals beyond ASCII (`Štěpánov`, `Łódź`, `Óbuda`: Latin-1 and
/// Latin Extended-A), for the patterns of regions that write them. Not `\p{Lu}`: building
/// its automaton cost about as many instructions as extracting 3 MB of pages.
#[cfg(test)]
const CITY_ANY: &str = r"[A-ZÀ-ÖØ-ÞĀ-ž][\p{L}'’.\-]*(?:[ \-][A-Za-zÀ-ÖØ-öø-ž][\p{L}'’.\-]*){0,4}";
/// The first letter of [`CITY`].
const CITY_FIRST: &str = "[A-Z]";
/// The first letter of [`CITY_ANY`].
const CITY_ANY_FIRST: &str = "[A-ZÀ-ÖØ-ÞĀ-ž]";

/// The first letter of a later word of [`CITY`].
fn city_word(c: char) -> bool {
    c.is_ascii_alphabetic()
}

/// The first letter of a later word of [`CITY_ANY`].
pub(crate) fn city_any_word(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, 'À'..='Ö' | 'Ø'..='ö' | 'ø'..='ž')
}

/// The matches in `line` of `re`, a pattern whose group `city` is the first letter of a place
/// name and ends it, each with the byte range of the whole name as [`CITY`] (`word`:
/// [`city_word`]) or [`CITY_ANY`] ([`city_any_word`]) would match it there: a run of letters,
/// apostrophes, dots and hyphens, then up to four words, each a space or hyphen, a letter
/// `word` accepts and such a run. That tail is greedy and nothing follows it, so it ends where
/// the whole pattern's match would, and each search starts where the whole pattern's would:
/// the matches are the whole pattern's, without compiling its Unicode letter class five times
/// over.
fn with_city<'h>(
    re: &Regex,
    line: &'h str,
    word: fn(char) -> bool,
) -> Vec<(regex::Captures<'h>, Range<usize>)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(caps) = re.captures_at(line, from) {
        let Some(first) = caps.name("city") else {
            break;
        };
        let mut end = name_run(line, first.end());
        for _ in 0..4 {
            match next_word_end(line, end, word) {
                Some(next) => end = next,
                None => break,
            }
        }
        let name = first.start()..end;
        out.push((caps, name));
        from = end;
    }
    out
}

/// The end of the next word of a place name after byte `end` of `line` (where a word ended):
/// a space or hyphen, a letter `word` accepts and a [`name_run`]; `None` if none starts there.
pub(crate) fn next_word_end(line: &str, end: usize, word: fn(char) -> bool) -> Option<usize> {
    let mut next = line[end..].chars();
    match (next.next(), next.next()) {
        (Some(' ' | '-'), Some(c)) if word(c) => Some(name_run(line, end + 1 + c.len_utf8())),
        _ => None,
    }
}

/// A match of a pattern whose place name comes before its region ([`Pattern::Us`],
/// [`Pattern::Ca`], [`Pattern::Au`]), as byte ranges of `line`.
struct CityFirst {
    city: Option<Range<usize>>,
    region: Range<usize>,
    zip: Range<usize>,
    end: usize,
}

/// The matches in `line` of `(?:^|[^\p{L}])(?P<city>CITY)?` followed by `tail` (a pattern
/// with groups `region` and `zip` and no look-behind), found as the regex crate finds those of
/// the whole pattern, without compiling [`CITY`]:
/// - a match starts at the leftmost byte where one can (`^`, or a character that is not a
///   letter), the next search where the last match ended;
/// - at a start, `^` is tried before that character, a place name before none, and a longer
///   place name before a shorter one. A place name ends only where a run of its letters ends
///   (the tail starts with a comma or a space, neither of which a run holds), so its possible
///   ends are the end of its first word and of each of up to four words after it; splitting a
///   hyphenated word into two reaches no other end. The longest whose end the tail matches at
///   wins, as greedy repetition tried first would have it.
fn city_first(tail: &Regex, line: &str) -> Vec<CityFirst> {
    let step = |at: usize| at + line[at..].chars().next().map_or(1, char::len_utf8);
    // Every byte the tail matches from, with that match (a leftmost match from there is the
    // match anchored there).
    let mut tails: Vec<(usize, CityFirst)> = Vec::new();
    let mut at = 0;
    while at <= line.len() {
        let Some(caps) = tail.captures_at(line, at) else {
            break;
        };
        let (Some(all), Some(region), Some(zip)) =
            (caps.get(0), caps.name("region"), caps.name("zip"))
        else {
            break;
        };
        let found = CityFirst {
            city: None,
            region: region.range(),
            zip: zip.range(),
            end: all.end(),
        };
        tails.push((all.start(), found));
        at = step(all.start());
    }
    let tail_at = |from: usize, city: Option<Range<usize>>| {
        tails
            .iter()
            .find(|(start, _)| *start == from)
            .map(|(_, t)| CityFirst {
                city,
                region: t.region.clone(),
                zip: t.zip.clone(),
                end: t.end,
            })
    };
    let match_at = |s: usize| {
        let after_mark = line[s..]
            .chars()
            .next()
            .filter(|&c| !is_letter(c))
            .map(|c| s + c.len_utf8());
        for start in [(s == 0).then_some(0), after_mark].into_iter().flatten() {
            if line[start..].starts_with(|c: char| c.is_ascii_uppercase()) {
                let mut ends = [0usize; 5];
                ends[0] = name_run(line, start + 1);
                let mut count = 1;
                while count < 5 {
                    match next_word_end(line, ends[count - 1], city_word) {
                        Some(end) => ends[count] = end,
                        None => break,
                    }
                    count += 1;
                }
                let longest = ends[..count]
                    .iter()
                    .rev()
                    .find_map(|&end| tail_at(end, Some(start..end)));
                if longest.is_some() {
                    return longest;
                }
            }
            if let Some(found) = tail_at(start, None) {
                return Some(found);
            }
        }
        None
    };
    let mut out = Vec::new();
    let last = tails.last().map_or(0, |(start, _)| *start);
    let mut s = 0;
    while !tails.is_empty() && s <= last {
        match match_at(s) {
            Some(found) => {
                s = found.end;
                out.push(found);
            }
            None => s = step(s),
        }
    }
    out
}

/// The end of the run of `[\p{L}'’.\-]` in `line` from byte `from`.
pub(crate) fn name_run(line: &str, from: usize) -> usize {
    line[from..]
        .char_indices()
        .find(|&(_, c)| !(is_letter(c) || matches!(c, '\'' | '’' | '.' | '-')))
        .map_or(line.len(), |(at, _)| from + at)
}

/// Whether `c` is a letter (`\p{L}`, Unicode General_Category L), by the tables the regular
/// expressions are built from.
fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    static LETTERS: OnceLock<Vec<(char, char)>> = OnceLock::new();
    let letters = LETTERS.get_or_init(|| match regex_syntax::parse(r"\p{L}").map(Hir::into_kind) {
        Ok(HirKind::Class(Class::Unicode(class))) => class
            .ranges()
            .iter()
            .map(|r| (r.start(), r.end()))
            .collect(),
        _ => Vec::new(),
    });
    letters
        .binary_search_by(|&(start, end)| {
            if end < c {
                Ordering::Less
            } else if start > c {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        })
        .is_ok()
}

/// The postcode patterns, each compiled on first use: a page of one region needs only a few
/// of them, and compiling the ones with Unicode letter classes costs milliseconds.
#[derive(Clone, Copy)]
enum Pattern {
    Us,
    Ca,
    Au,
    Gb,
    Nl,
    Pt,
    Se,
    Pl,
    Ie,
    IeCounty,
    Eu,
    /// The postcode of [`Pattern::Ca`] alone.
    CaZip,
    /// The state and postcode of [`Pattern::Au`] alone.
    AuStateZip,
}

impl Pattern {
    /// The compiled pattern (`None` only if it failed to compile, which tests rule out); for
    /// [`Pattern::Us`], [`Pattern::Ca`] and [`Pattern::Au`], the part after the place name
    /// ([`Pattern::city_first`] reads the rest).
    fn regex(self) -> Option<&'static Regex> {
        static COMPILED: [OnceLock<Option<Regex>>; 13] = [const { OnceLock::new() }; 13];
        COMPILED[self as usize]
            .get_or_init(|| Regex::new(&self.source()).ok())
            .as_ref()
    }

    /// Whether the pattern matches in `line`. A pattern with a part that matches wherever it
    /// does and costs a tenth to compile (no place name: [`Pattern::CaZip`],
    /// [`Pattern::AuStateZip`]) tries that part first, so pages without such a postcode never
    /// compile the whole pattern.
    fn is_match(self, line: &str) -> bool {
        match self {
            Pattern::Us | Pattern::Ca | Pattern::Au => !self.city_first(line).is_empty(),
            _ => self.regex().is_some_and(|re| re.is_match(line)),
        }
    }

    /// The matches in `line` of [`Pattern::Us`], [`Pattern::Ca`] or [`Pattern::Au`] (the place
    /// name, then the compiled part: [`city_first`]); none if the part tried first (see
    /// [`Pattern::is_match`]) or the compiled part is not in the line.
    fn city_first(self, line: &str) -> Vec<CityFirst> {
        let part = match self {
            Pattern::Ca => Some(Pattern::CaZip),
            Pattern::Au => Some(Pattern::AuStateZip),
            _ => None,
        };
        if !part.is_none_or(|part| part.regex().is_some_and(|re| re.is_match(line))) {
            return Vec::new();
        }
        match self.regex() {
            Some(tail) if tail.is_match(line) => city_first(tail, line),
            _ => Vec::new(),
        }
    }

    /// The pattern's source. Those that end with a place name (NL, PT, SE, PL and the `12345
    /// City` form) match only its first letter, as group `city`: [`with_city`] reads the
    /// rest of it. Those with a place name before the region (US, CA, AU) are here without
    /// the start `(?:^|[^\p{L}])(?P<city>CITY)?`: [`city_first`] reads it.
    fn source(self) -> String {
        match self {
            Pattern::Us => {
                format!(r",?\s+(?P<region>{US_STATES})\.?,?\s*(?P<zip>\d{{5}}(?:-\d{{4}})?)\b")
            }
            // The province in parentheses is Canada Post's French form (`Montréal (Québec)
            // H2X 1Y4`, `Ottawa (Ontario) K1A 0B1`).
            Pattern::Ca => format!(
                r",?\s+\(?(?P<region>{CA_PROVINCES})\)?\.?,?\s+(?P<zip>[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d)\b"
            ),
            Pattern::Au => {
                format!(r",?\s+(?P<region>{AU_STATES}),?\s+(?P<zip>\d{{4}})\b")
            }
            // Outward codes A9, A99, AA9, AA99, A9A (ABCDEFGHJKPSTUW) and AA9A
            // (ABEHMNPRVWXY: `EC4Y 1AA`, which the A9A letters alone missed).
            Pattern::Gb => {
                r"\b(?P<zip>(?:[A-PR-UWYZ][A-HK-Y]?\d[A-HJKMNPR-Y\d]?) ?\d[ABD-HJLNP-UW-Z]{2})\b"
                    .to_string()
            }
            Pattern::Nl => {
                format!(r"\b(?P<zip>[1-9]\d{{3}} ?[A-Z]{{2}})\b,?\s+(?P<city>{CITY_FIRST})")
            }
            Pattern::Pt => format!(r"\b(?P<zip>\d{{4}}-\d{{3}})\s+(?P<city>{CITY_ANY_FIRST})"),
            // `123 45 City`: Sweden, Czechia, Slovakia, Greece (`SE-`, `CZ-`… optional).
            Pattern::Se => {
                format!(r"\b(?:[A-Z]{{2}}-)?(?P<zip>\d{{3}} \d{{2}})\s+(?P<city>{CITY_ANY_FIRST})")
            }
            Pattern::Pl => {
                format!(r"\b(?:PL-)?(?P<zip>\d{{2}}-\d{{3}})\s+(?P<city>{CITY_ANY_FIRST})")
            }
            Pattern::Ie => {
                r"\b(?P<zip>[AC-FHKNPRTV-Y]\d{2}|D6W) ?[AC-FHKNPRTV-Y0-9]{4}\b".to_string()
            }
            // An Irish county (`Co. Mayo`, `County Cork`) or a Dublin postal district
            // (`Dublin 2`, `Dublin 6W`): Irish addresses often carry no Eircode.
            Pattern::IeCounty => format!(
                r"\b(?P<county>(?:Co\.?|County)\s+(?:{IE_COUNTIES})|Dublin\s+(?:[1-9]|1[0-9]|2[0-4]|6W))\b"
            ),
            // A dash between the postcode and the town (`00184 - Roma`, `28013 – Madrid`) is
            // the Italian and Spanish way of setting them apart (class
            // `postcode.dash_before_town`).
            Pattern::Eu => format!(
                r"(?:^|[\s,])(?:[A-Z]{{1,2}}-)?(?P<zip>\d{{3,5}})\s+(?:[-–]\s+)?(?P<city>{CITY_ANY_FIRST})"
            ),
            Pattern::CaZip => {
                r"[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d".to_string()
            }
            Pattern::AuStateZip => format!(r"(?:{AU_STATES}),?\s+\d{{4}}"),
        }
    }
}

/// Whether a postcode after `before` opens a field of its line: nothing but white space and
/// a CEPT country prefix (`I-`) before it, or a separator (`,` `.` `-` `–` `|` `·` `•`).
fn opens_field(before: &str) -> bool {
    let before = before.trim_end_matches([' ', '\u{a0}']);
    let prefix = before.strip_suffix('-').map_or(0, |rest| {
        rest.len()
            - rest
                .trim_end_matches(|c: char| c.is_ascii_uppercase())
                .len()
    });
    let before = if (1..=2).contains(&prefix) {
        before[..before.len() - 1 - prefix].trim_end_matches([' ', '\u{a0}'])
    } else {
        before
    };
    before.is_empty() || before.ends_with([',', '.', '-', '–', '|', '·', '•'])
}

/// Pacing units (`crate::pace`) for a line the postcode patterns run on: tens of
/// microseconds of regular expressions and street look-ups, against a few nanoseconds a byte
/// for lines without a postcode's shape.
const MATCHED_LINE_UNITS: usize = 2048;

/// Finds addresses in the visible `lines` of a page. `page_region` is the ISO code implied by
/// the page (ccTLD or `lang`), which enables the ambiguous European patterns and the
/// GB/NL/PT/SE/IE patterns on pages of other regions. Charged to the page's `budget`; once
/// it is spent the addresses found so far are returned.
pub fn from_lines(
    lines: &[&str],
    page_region: Option<&str>,
    budget: &PageBudget,
) -> Vec<TextAddress> {
    let mut out: Vec<TextAddress> = Vec::new();
    // Regions whose postcodes are three digits (Iceland, the Faroes): their lines are read
    // on their pages only (three digits and a word are common elsewhere).
    let three_digit_zips = page_region
        .and_then(postcode::format)
        .is_some_and(|f| f.validates("101"));
    let takes_seven_digits = |region: Option<&str>| {
        region
            .and_then(postcode::format)
            .is_some_and(|f| f.validates("3100000"))
    };
    let seven_digit_zips = takes_seven_digits(page_region);
    let region_first_page = page_region.is_none_or(|r| REGION_FIRST.contains(&r));
    for (index, line) in lines.iter().enumerate() {
        // The page's budget (which also paces, `crate::pace`): a line costs its length; one
        // the patterns run on, more.
        if !budget.work(line.len() + 16) {
            break;
        }
        if region_first_page && may_be_region_first(line) {
            if let Some(found) = region_first(lines, index, page_region) {
                // The postcode alone on the line above is this address's.
                out.retain(|a| {
                    !(a.line + 1 == index
                        && a.parts.street.is_none()
                        && a.parts.postal_code == found.parts.postal_code)
                });
                out.push(found);
                continue;
            }
        }
        let irish_county = page_region == Some("IE")
            && Pattern::IeCounty
                .regex()
                .is_some_and(|re| re.is_match(line));
        let shapes = Shapes::of(line.as_bytes());
        let shaped = shapes.any()
            || (three_digit_zips && shapes.three_word)
            || (shapes.seven
                && (seven_digit_zips || takes_seven_digits(country_in_line(line, line.len()))));
        if line.len() > MAX_LINE || !(irish_county || shaped) {
            if let Some(found) = labelled_street(line, index, page_region) {
                out.push(found);
            }
            continue;
        }
        if !budget.work(MATCHED_LINE_UNITS) {
            break;
        }
        let mut found = match_line(lines, index, line, shapes, index, page_region);
        // A line of fields is one address read field by field, unless the line holds more
        // addresses than that reading gives (class `address.list_on_one_line`: branches
        // written `Street 1, 12345 Town | Street 2, 23456 Town | …`).
        if let Some(fields) = read_as_field_lines(lines, index, line, page_region) {
            if fields.len() >= found.len() {
                found = fields;
            }
        }
        // A postcode on a line of its own belongs to the town line above it
        // (`Edmonton, Alberta` / `T6E 5Z9`); only a postcode inside this line counts.
        if found.is_empty() && line.len() <= 24 && index > 0 {
            let joined = format!("{} {}", lines[index - 1].trim_end(), line.trim());
            let joined_shapes = Shapes::of(joined.as_bytes());
            found = match_line(lines, index, &joined, joined_shapes, index - 1, page_region);
            found.retain(|a| {
                a.parts
                    .postal_code
                    .as_deref()
                    .is_some_and(|z| line.contains(z))
            });
        }
        // A date line read as the street of a year (class `date.month`: `08. September` /
        // `2021 Sample Fair`): no address.
        found.retain(|a| {
            !dates::reads_a_date(a.parts.street.as_deref(), a.parts.postal_code.as_deref())
        });
        for a in &mut found {
            merge_read_without_postcode(&mut out, a, index);
        }
        out.extend(found);
    }
    out
}

/// Lines above a postcode line on which the same address may have been read without its
/// postcode ([`merge_read_without_postcode`]).
const MERGE_LINES: usize = 2;

/// One address read twice (class `address.read_twice`): first without its postcode on a line
/// above (a labelled street line `Dirección: Calle Mayor 5, Madrid`, an Irish county or
/// postal-district line `Co. Cork` / `Dublin 2`), then with the postcode line below it
/// (`28001 Madrid`, an Eircode). The earlier reading (in `out`, up to [`MERGE_LINES`] above
/// line `index`) whose street the postcode's reading `found` holds, equal or followed by more
/// (the town the label's line carried), is dropped, and `found` keeps the shorter street.
fn merge_read_without_postcode(out: &mut Vec<TextAddress>, found: &mut TextAddress, index: usize) {
    if found.parts.postal_code.is_none() {
        return;
    }
    let Some(street) = found.parts.street.clone() else {
        return;
    };
    out.retain(|a| {
        let earlier =
            a.parts.postal_code.is_none() && a.line < index && a.line + MERGE_LINES >= index;
        let Some(alone) = a.parts.street.as_deref().filter(|_| earlier) else {
            return true;
        };
        let holds = street == alone
            || street
                .strip_prefix(alone)
                .is_some_and(|rest| rest.starts_with(','));
        if !holds {
            return true;
        }
        found.parts.street = Some(alone.to_string());
        if found.parts.region.is_none() && a.parts.region != found.parts.locality {
            found.parts.region.clone_from(&a.parts.region);
        }
        false
    });
}

/// Field separators of a line of fields (`Acme Ltd | Unit 3 Mill House | 12 Quay Street |
/// Seabridge | EX1 9ZZ`, the footer way of writing an address on one line).
const FIELD_SEPARATORS: [char; 5] = ['|', '•', '·', '♦', '■'];

/// The address of a line of fields (two separators or more, [`FIELD_SEPARATORS`]) read with
/// each field as a line of its own, the postcode's field last: the address lines before the
/// postcode are then read the way printed lines are (premise, street, dependent locality,
/// town). `None` when the line is no line of fields or no field gives an address with a
/// street.
fn read_as_field_lines(
    lines: &[&str],
    index: usize,
    line: &str,
    page_region: Option<&str>,
) -> Option<Vec<TextAddress>> {
    // Three fields need two separators, and each separator holds `|` or the first byte of
    // its UTF-8 (0xC2 for `·`, 0xE2 for the others): a line with fewer than two such bytes
    // (most lines) is not split.
    memchr::memchr3_iter(b'|', 0xC2, 0xE2, line.as_bytes()).nth(1)?;
    let fields: Vec<&str> = line
        .split(FIELD_SEPARATORS)
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .collect();
    if !(3..=12).contains(&fields.len()) {
        return None;
    }
    // The postcode's field, from the last: the fields after it are other fields (phone,
    // email).
    for end in (1..fields.len()).rev() {
        let shapes = Shapes::of(fields[end].as_bytes());
        if !shapes.any() {
            continue;
        }
        let above = &lines[index.saturating_sub(MAX_STREET_LINES + 2)..index];
        let mut virtual_lines: Vec<&str> = above.to_vec();
        virtual_lines.extend_from_slice(&fields[..=end]);
        let at = virtual_lines.len() - 1;
        let mut found = match_line(&virtual_lines, at, fields[end], shapes, at, page_region);
        if found.is_empty() && fields[end].len() <= 24 {
            let joined = format!("{} {}", fields[end - 1], fields[end]);
            let joined_shapes = Shapes::of(joined.as_bytes());
            found = match_line(
                &virtual_lines,
                at,
                &joined,
                joined_shapes,
                at - 1,
                page_region,
            );
            found.retain(|a| {
                a.parts
                    .postal_code
                    .as_deref()
                    .is_some_and(|z| fields[end].contains(z))
            });
        }
        if found.is_empty() {
            continue;
        }
        if found.iter().any(|a| a.parts.street.is_none()) {
            return None;
        }
        for a in &mut found {
            a.line = index;
        }
        return Some(found);
    }
    None
}

/// Matches the postcode patterns on `line` (line `index`, or a join of it with the line above);
/// street lines are looked for above `street_index`. `shapes` is `Shapes::of(line)`, which
/// the caller has read already to decide whether the line is worth matching.
fn match_line(
    lines: &[&str],
    index: usize,
    line: &str,
    shapes: Shapes,
    street_index: usize,
    page_region: Option<&str>,
) -> Vec<TextAddress> {
    debug_assert_eq!(shapes, Shapes::of(line.as_bytes()));
    let allows = |code: &str| page_region.is_none_or(|r| r == code);
    let mut found: Vec<TextAddress> = Vec::new();
    for (pattern, region, shaped) in [
        (Pattern::Us, "US", shapes.zip_after_state),
        (Pattern::Ca, "CA", shapes.letter_digit_letter),
        (Pattern::Au, "AU", shapes.postcode_after_au_state),
    ] {
        if !shaped || (region == "AU" && !allows("AU")) {
            continue;
        }
        for CityFirst {
            city,
            region: state,
            zip,
            ..
        } in pattern.city_first(line)
        {
            let after = &line[zip.end..];
            // `PR 80020-310` is a Brazilian state and CEP: a ZIP code goes on with `-` and four
            // digits or not at all.
            if after.starts_with('-') && after[1..].starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            // `1234 Main Street Springfield, IL`: the street's end inside the place name.
            let street_end = city.clone().and_then(|c| street_end_in_town(line, c));
            let city = match (city, street_end) {
                (Some(c), Some(end)) => {
                    Some(end + line[end..].len() - line[end..].trim_start().len()..c.end)
                }
                (city, _) => city,
            };
            let city_start = street_end.unwrap_or(city.as_ref().map_or(state.start, |c| c.start));
            let city = city.map(|c| clean_city(&line[c]));
            let parts = MarkedAddress {
                street: street_for(lines, street_index, &line[..city_start]),
                locality: city.filter(|c| !c.is_empty()),
                region: Some(line[state].to_string()),
                postal_code: Some(line[zip].to_string()),
                country: country_after(after),
            };
            found.push(TextAddress {
                parts,
                region,
                line: index,
            });
        }
    }
    if found.is_empty() && allows("GB") && shapes.digit_letters {
        let all = Pattern::Gb
            .regex()
            .into_iter()
            .flat_map(|re| re.captures_iter(line));
        for caps in all {
            let Some(zip) = caps.name("zip") else {
                continue;
            };
            let before = &line[..zip.start()];
            if !plausible_gb_context(before, &line[zip.end()..], page_region == Some("GB")) {
                continue;
            }
            let (street_prefix, locality) = split_locality(before);
            let (mut street, mut locality, mut county) =
                gb_town_and_county(lines, street_index, street_prefix, locality);
            // A postcode alone on its line: the town (and county) on the line above, the
            // street above that (`2 Quarry Road` / `Kirkbrae, Fife` / `KY16 …`).
            if street.is_none() && locality.is_none() && street_index > 0 {
                let (above_prefix, above_locality) = split_locality(lines[street_index - 1]);
                let read =
                    gb_town_and_county(lines, street_index - 1, above_prefix, above_locality);
                if read.0.is_some() && read.1.is_some() {
                    (street, locality, county) = read;
                }
            }
            let parts = MarkedAddress {
                street,
                locality,
                region: county,
                postal_code: Some(zip.as_str().to_string()),
                country: country_after(&line[zip.end()..]),
            };
            found.push(TextAddress {
                parts,
                region: "GB",
                line: index,
            });
        }
    }
    // Eircodes on Irish pages, and on pages of no region after an Irish county or Dublin
    // postal district (class `postcode.eircode_after_county`: `…, Co. Clare, V95 K7P3`: the
    // county names the country).
    // On a page of no region the Eircode is read only after a county or district on its line
    // (below), so a line without the `Co`/`County` or `Dublin` that opens one is not searched:
    // most lines of most pages.
    let may_name_irish_district = || {
        memchr::memmem::find(line.as_bytes(), b"Co").is_some()
            || memchr::memmem::find(line.as_bytes(), b"Dublin").is_some()
    };
    if found.is_empty()
        && allows("IE")
        && (page_region == Some("IE") || (page_region.is_none() && may_name_irish_district()))
    {
        let all = Pattern::Ie
            .regex()
            .into_iter()
            .flat_map(|re| re.find_iter(line));
        for m in all {
            let before = &line[..m.start()];
            // A postcode label before the Eircode (`Co. Clare. Eircode: V95 K7P3`) is no part
            // of the town (class `postcode.label`).
            let before = postcode_label(before).map_or(before, |(at, _)| &before[..at]);
            let before = before.trim_end_matches([' ', '\u{a0}', '.']);
            if page_region.is_none() && district_at_end(before.trim_end_matches(',')).is_none() {
                continue;
            }
            let (street_prefix, mut locality) = split_locality(before);
            let mut street = match locality {
                Some(_) => street_or_dependent_locality(lines, street_index, street_prefix),
                None => street_for(lines, street_index, street_prefix),
            };
            // An Eircode after a Dublin postal district or a county, on its line or alone
            // below it (`Dublin 2` / `D02 X285`): the district or county is the town, the
            // street is above it or before it.
            let district_above = street_prefix.trim().is_empty() && street_index > 0;
            let district = if district_above {
                whole_district(lines[street_index - 1]).map(|d| (d, street_index - 1, ""))
            } else {
                district_at_end(street_prefix)
                    .map(|(at, d)| (d, street_index, &street_prefix[..at]))
            };
            if let (Some((district, at, prefix)), None) = (district, &locality) {
                street = street_or_dependent_locality(lines, at, prefix);
                locality = Some(district.to_string());
            }
            // An Eircode alone on its line: the town on the line above, the street above it.
            if street.is_none() && locality.is_none() && street_index > 0 {
                let (above_prefix, above_locality) = split_locality(lines[street_index - 1]);
                if above_locality.is_some() {
                    street = street_or_dependent_locality(lines, street_index - 1, above_prefix);
                    locality = above_locality;
                }
            }
            let (street, locality, county) = town_before_marked_region(street, locality);
            let parts = MarkedAddress {
                street,
                locality,
                region: county,
                postal_code: Some(m.as_str().to_string()),
                country: country_after(&line[m.end()..]),
            };
            found.push(TextAddress {
                parts,
                region: "IE",
                line: index,
            });
        }
    }
    if found.is_empty() && page_region == Some("IE") {
        let all = Pattern::IeCounty
            .regex()
            .into_iter()
            .flat_map(|re| re.captures_iter(line));
        for caps in all {
            let Some(county) = caps.name("county") else {
                continue;
            };
            let (street_prefix, locality) = split_locality(&line[..county.start()]);
            // Without a postcode the street is what makes it an address: "Co. Mayo" alone is
            // common in prose.
            let Some(street) = street_for(lines, street_index, street_prefix) else {
                continue;
            };
            let parts = MarkedAddress {
                street: Some(street),
                locality,
                region: Some(county.as_str().to_string()),
                postal_code: None,
                country: country_after(&line[county.end()..]),
            };
            found.push(TextAddress {
                parts,
                region: "IE",
                line: index,
            });
        }
    }
    // `123 45` postcodes are Swedish on a page of no region.
    let three_two_region = THREE_TWO
        .iter()
        .find(|r| Some(**r) == page_region)
        .copied()
        .unwrap_or("SE");
    for (pattern, region, shaped, word) in [
        (
            Pattern::Nl,
            "NL",
            shapes.four && shapes.digit_letters,
            city_word as fn(char) -> bool,
        ),
        (Pattern::Pt, "PT", shapes.four_dash_three, city_any_word),
        (
            Pattern::Se,
            three_two_region,
            shapes.three_two,
            city_any_word,
        ),
        (Pattern::Pl, "PL", shapes.two_dash_three, city_any_word),
    ] {
        if !shaped || !found.is_empty() || !allows(region) {
            continue;
        }
        let Some(re) = pattern.regex() else {
            continue;
        };
        if !re.is_match(line) {
            continue;
        }
        for (caps, city) in with_city(re, line, word) {
            let Some(zip) = caps.name("zip") else {
                continue;
            };
            let letters = zip
                .as_str()
                .get(zip.as_str().len().saturating_sub(2)..)
                .unwrap_or("");
            // SA, SD and SS are not used in Dutch postcodes; compass points and street
            // abbreviations after a house number (`3140 SW Kelly Avenue`) are US streets.
            let not_dutch = matches!(letters, "SA" | "SD" | "SS")
                || (page_region != Some("NL")
                    && matches!(
                        letters,
                        "SW" | "NW" | "NE" | "SE" | "ST" | "RD" | "TH" | "ND" | "AM" | "PM"
                    ));
            if region == "NL" && not_dutch {
                continue;
            }
            let before = &line[..zip.start()];
            // `© 2026 KL Schilderwerken` is a year and a name.
            if is_copyright_mark(before) {
                continue;
            }
            // `SE-123 45`, `PL-45-835`: the country letters are not the street's.
            let street = street_for(lines, street_index, without_country_letters(before));
            if street.is_none() && page_region != Some(region) {
                continue;
            }
            let parts = MarkedAddress {
                street,
                locality: Some(clean_city(&line[city.clone()])).filter(|c| !c.is_empty()),
                region: None,
                postal_code: Some(zip.as_str().to_string()),
                country: country_after(&line[city.end..]),
            };
            found.push(TextAddress {
                parts,
                region,
                line: index,
            });
        }
    }
    // `12345 City` / `1234 City`: on pages of a region that writes postcodes so, or on pages
    // of no known region when the address itself tells its country (`A-1010`, `rue`, `Via`).
    let eu_region = page_region
        .and_then(postcode::format)
        .filter(|f| f.layout() == Layout::ZipFirst)
        .map(|f| f.code);
    let eu = Pattern::Eu
        .regex()
        .filter(|_| found.is_empty() && (eu_region.is_some() || page_region.is_none()))
        .filter(|re| re.is_match(line));
    if let Some(re) = eu {
        for (caps, city) in with_city(re, line, city_any_word) {
            let Some(zip) = caps.name("zip") else {
                continue;
            };
            // A dash before the town (class `postcode.dash_before_town`) only on pages of a
            // region that writes the postcode first, and only at a line's start or after a
            // separator (`Via Roma 14, 00184 - Roma`): `Friday 20 February 2015 – Sunday` is
            // a date.
            if line[zip.end()..].trim_start().starts_with(['-', '–'])
                && (eu_region.is_none() || !opens_field(&line[..zip.start()]))
            {
                continue;
            }
            let before = &line[..zip.start()];
            // `© 2025 Studio Noord` is a year and a name.
            if is_copyright_mark(before) {
                continue;
            }
            // A postcode label before the postcode (`… Col. Centro C.P. 06000 Ciudad`) is
            // no part of the street (class `postcode.label_glued`).
            let before = postcode_label(before).map_or(before, |(at, _)| &before[..at]);
            let lettered = country_letters_region(before);
            // A district between the street and the postcode on one line, in the layouts that
            // have one (`%D`: `Jalan Kenari 5, Bandar Puchong Jaya, 47100 Puchong`): neither
            // street nor town.
            let line_format = eu_region.or_else(|| {
                country_in_line(line, zip.start())
                    .and_then(postcode::format)
                    .filter(|f| f.layout() == Layout::ZipFirst)
                    .map(|f| f.code)
            });
            let before = if line_format
                .and_then(postcode::format)
                .is_some_and(|f| f.fmt.contains("%D"))
            {
                without_district(before.trim_end_matches([',', ' ', '\u{a0}']))
            } else {
                before
            };
            // Text before the postcode on its line must be a street (`Musterstraße 12,`,
            // `12 rue Victor Hugo`, `Amsterdamer Str.192`, `Avenida Salvador Joan, 17 bajos.`),
            // not a sentence with a number in it (`Über 1200 Kunden vertrauen uns seit 2004
            // Jahren`, `28. Juni 2016 um 20:41 Uhr`).
            let same_line = without_country_letters(before)
                .trim_end_matches([',', ' ', '-', '–', '·', '•', '|', '\u{a0}']);
            let same_line = last_segment(same_line).trim();
            let same_line = strip_label(same_line);
            // A word after the house number is a floor or door (`24 bajo`, `5 links`).
            let numbered = ends_with_house_number(same_line)
                || ends_with_house_number(same_line.trim_end_matches(char::is_alphabetic));
            if !same_line.is_empty()
                && !numbered
                && !same_line.starts_with(|c: char| c.is_ascii_digit())
                && !has_street_word_in(same_line)
            {
                continue;
            }
            // A street with a house number: above the postcode line or before the postcode on
            // it, or (`77652 Offenburg` / `Lindenstrasse 14`) on the line below.
            let street = street_for(lines, street_index, without_country_letters(before))
                .or_else(|| {
                    if same_line.is_empty() {
                        street_below(lines, index)
                    } else {
                        None
                    }
                })
                .or_else(|| {
                    // A district line (`%D`: `Colonia …`, `Taman …`) between the street and the
                    // postcode line, in the countries whose layout has one; in the others a
                    // place line (a hamlet, `Località …`, an industrial estate) below a street
                    // with its street word and house number (class `address.place_line`:
                    // `Via Campione 14` / `Località Sample` / `00184 Roma`).
                    let district = eu_region
                        .and_then(postcode::format)
                        .is_some_and(|f| f.fmt.contains("%D"));
                    let above = street_index.checked_sub(1).and_then(|i| lines.get(i))?;
                    (same_line.is_empty() && is_place_name(above.trim().trim_end_matches(',')))
                        .then(|| street_for(lines, street_index - 1, ""))
                        .flatten()
                        .filter(|street| district || is_named_numbered_street(street))
                        .map(|street| without_district(&street).to_string())
                });
            // A country printed in the line (`…, 50450 Kuala Lumpur, Malaysia`) whose layout
            // puts the postcode first counts like the page's region.
            let region = lettered.or(line_format).or_else(|| {
                street
                    .as_deref()
                    .and_then(|s| street_language_region(&s.to_lowercase()))
            });
            let Some(region) = region else {
                continue;
            };
            // The postcode must be one of the region's (Google's `zip`): `1234 City` is no
            // German address, three digits only an Icelandic or Faroese one.
            if !postcode::format(region).is_none_or(|f| f.validates(zip.as_str())) {
                continue;
            }
            let after_city = &line[city.end..];
            let street = match street {
                Some(street) => Some(street),
                // A postcode and town alone on their line (`47051 Duisburg` in a footer) are an
                // address when contact details stand next to them; bare "1234 Words" is too
                // common elsewhere (counters, prices).
                None if same_line.is_empty()
                    && eu_region.is_some()
                    && town_only(after_city)
                    && contact_nearby(lines, index) =>
                {
                    None
                }
                None => continue,
            };
            let (street, locality, province) =
                province_after_postcode(region, street, clean_city(&line[city]));
            let parts = MarkedAddress {
                street,
                locality: Some(locality),
                region: province,
                postal_code: Some(zip.as_str().to_string()),
                country: country_after(after_city),
            };
            found.push(TextAddress {
                parts,
                region,
                line: index,
            });
        }
    }
    if found.is_empty() {
        found = data_postcodes(lines, index, line, street_index, page_region);
    }
    found
}

/// Whether a marked-up address (JSON-LD, microdata, RDFa, Open Graph) locates the business:
/// it has a postcode, or a street with a digit (a house number, a plot, an office) or a street
/// word of the lexicon (class `address.marked-place-name`). Markup that puts only a district,
/// town or building name in `streetAddress` (`"streetAddress":"Westlands"`) and gives no
/// postcode names a place, not a postal address (schema.org `streetAddress`: "the street
/// address"); the addresses of countries without postcodes keep their street.
pub(crate) fn locates(a: &MarkedAddress) -> bool {
    a.postal_code
        .as_deref()
        .is_some_and(|c| !c.trim().is_empty())
        || a.street.as_deref().is_some_and(|street| {
            street.bytes().any(|b| b.is_ascii_digit()) || has_street_word_in(street)
        })
}

/// A marked-up address (JSON-LD, microdata, Open Graph) with its street cut to the street:
/// markup often puts more in `streetAddress` than schema.org's "the street address" (a line
/// break `<br>` between street lines, read as `, `; the postcode and what follows it
/// `Lindenweg 3, 12345 Berlin`; the town or region given in their own parts, at its end
/// `1234 Main St, Springfield`; the business's name with its legal form before it, `Acme
/// Ltd, 12 High Street`). A part is cut only when a street with a house number or a street
/// word is left.
pub(crate) fn with_marked_street(a: MarkedAddress) -> MarkedAddress {
    let Some(street) = a.street.as_deref() else {
        return a;
    };
    let mut text = street.to_string();
    for br in ["<br>", "<br/>", "<br />", "<BR>", "<BR/>", "<BR />"] {
        text = text.replace(br, ", ");
    }
    let street_left = |s: &str| {
        let s = s.trim();
        !s.is_empty()
            && is_streetish(s)
            && (s.bytes().any(|b| b.is_ascii_digit())
                || (has_street_word_in(s) && s.split_whitespace().count() >= 2))
    };
    let separators = [',', ' ', '-', '–', '\u{a0}'];
    // The postcode, where a street is printed before it, and all that follows.
    if let Some(code) = a.postal_code.as_deref().filter(|c| c.len() >= 3) {
        let cut = text.match_indices(code).map(|(i, _)| i).find(|&i| {
            let end = i + code.len();
            let whole = !text[..i].ends_with(|c: char| c.is_alphanumeric())
                && !text[end..].starts_with(|c: char| c.is_alphanumeric());
            // Set off from the street by a comma, the region or the town before it, or the
            // town after it (not `Calle Madrid 28013`, a house number).
            let before = text[..i].trim_end();
            let named = [a.region.as_deref(), a.locality.as_deref()]
                .into_iter()
                .flatten()
                .any(|part| {
                    before.len() > part.len()
                        && before
                            .get(before.len() - part.len()..)
                            .is_some_and(|tail| tail.eq_ignore_ascii_case(part))
                });
            whole && (before.ends_with(',') || named || !text[end..].trim().is_empty())
        });
        if let Some(i) = cut {
            let before = text[..i].trim_end_matches(separators);
            if street_left(before) {
                text.truncate(before.len());
            }
        }
    }
    // The region, then the town, at the end, after a comma or a space.
    for (part, is_region) in [(a.region.as_deref(), true), (a.locality.as_deref(), false)]
        .into_iter()
        .filter_map(|(part, is_region)| Some((part?, is_region)))
    {
        let part = part.trim();
        let end = text.trim_end_matches(separators).len();
        let Some(start) = end.checked_sub(part.len()) else {
            continue;
        };
        let ends_with_part = text
            .get(start..end)
            .is_some_and(|tail| tail.eq_ignore_ascii_case(part));
        if part.is_empty() || !ends_with_part {
            continue;
        }
        let before = &text[..start];
        let set_off = before.trim_end_matches(' ').ends_with(',') || {
            // Without a comma the region (`Brookvale NSW`), and the town only after a street
            // word or a house number (`12 Sample Rd Brookvale`), not inside the street's name
            // (`Berliner Straße`).
            let last = before.split_whitespace().last().unwrap_or("");
            let word = last.trim_end_matches('.').to_lowercase().replace('.', "");
            before.ends_with(' ')
                && (is_region
                    || last.bytes().any(|b| b.is_ascii_digit())
                    || has_word(&street_words().words, &word))
        };
        let before = before.trim_end_matches(separators);
        if set_off && street_left(before) {
            text.truncate(before.len());
        }
    }
    let cut = without_glued_name(text.trim()).to_string();
    MarkedAddress {
        street: Some(cut),
        ..a
    }
}

/// Where a street glued to its town ends inside the place name `town` (a byte range of `line`)
/// read before a state or province with no comma between them (`1234 Main Street
/// Springfield, IL`, `12 Sample Rd Brookvale NSW`): after the first street word (lexicon
/// `street.type`, `address.word`) that is neither the name's first word nor its last, and a
/// compass letter after it (`Trl E`), when the text before the name ends with a house number.
/// `None` otherwise (the whole name is the town).
fn street_end_in_town(line: &str, town: Range<usize>) -> Option<usize> {
    let before = line[..town.start].trim_end();
    let numbered = before
        .rsplit(char::is_whitespace)
        .next()
        .is_some_and(|last| last.bytes().any(|b| b.is_ascii_digit()));
    if !numbered {
        return None;
    }
    let text = &line[town.clone()];
    let words: Vec<(usize, &str)> = text
        .split(' ')
        .scan(0, |at, word| {
            let start = *at;
            *at += word.len() + 1;
            Some((start, word))
        })
        .filter(|(_, word)| !word.is_empty())
        .collect();
    let last = words.len().checked_sub(1)?;
    let is_type = |word: &str| {
        let word = word
            .trim_end_matches(['.', ','])
            .to_lowercase()
            .replace('.', "");
        has_word(&street_words().words, &word)
    };
    let at = (1..last).find(|&i| is_type(words[i].1))?;
    let compass = |word: &str| {
        matches!(
            word.trim_end_matches('.'),
            "N" | "S" | "E" | "W" | "NE" | "NW" | "SE" | "SW"
        )
    };
    let end_word = if at + 1 < last && compass(words[at + 1].1) {
        at + 1
    } else {
        at
    };
    let (start, word) = words[end_word];
    Some(town.start + start + word.len())
}

/// Whether `place` is a state's or province's name (lexicon `region.name`), case ignored, or
/// a region named with its mark ([`is_marked_region`]).
pub(crate) fn is_region_name(place: &str) -> bool {
    static NAMES: OnceLock<lexicon::SortedWords> = OnceLock::new();
    let names =
        NAMES.get_or_init(|| lexicon::sorted_words(&[Words::RegionName], str::to_lowercase));
    has_word(names, &place.trim().to_lowercase()) || is_marked_region(place)
}

/// Whether `field` (one comma-separated field or a line) is a region named with its mark
/// (lexicon `region.mark`, class `region.mark`: Irish `Co. Clare`, Romanian `jud. Cluj`,
/// Hungarian `Pest megye`, Ukrainian `Львівська область`, Estonian `Harju maakond`): two to
/// four words without a digit, one of them a mark, the others capitalised names.
pub(crate) fn is_marked_region(field: &str) -> bool {
    static MARKS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    let marks =
        MARKS.get_or_init(|| lexicon::sorted_words(&[Words::RegionMark], str::to_lowercase));
    let field = field.trim().trim_end_matches(['.', ',']);
    let words = field.split_whitespace().count();
    if !(2..=4).contains(&words) || field.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    // The mark opens the field, words of letters after it (`Co. Clare`, Polish `woj.
    // małopolskie`), or ends it after names (`Pest megye`, `Львівська область`).
    let is_mark = |word: &str| with_lowercase(word, |lower| has_word(marks, lower));
    let mut words = field.split_whitespace();
    if words.next().is_some_and(is_mark) {
        return words.all(|word| word.chars().all(|c| c.is_alphabetic() || c == '-'));
    }
    field.split_whitespace().last().is_some_and(is_mark)
        && field
            .split_whitespace()
            .all(|word| is_mark(word) || word.starts_with(opens_name))
}

/// The start of the town, the town and the state in `text` (the text before a postcode)
/// when its last field is a state's code of two or three capitals set off by a comma, a
/// slash or a spaced dash (`Curitiba, PR`, `São Paulo/SP`, `Curitiba - PR`, `Bengaluru,
/// KA`) and the field before it is a place name. `None` otherwise.
fn town_before_state_code(text: &str) -> Option<(usize, Option<String>, Option<String>)> {
    let field_start = |s: &str| {
        [
            s.rfind(',').map(|i| i + 1),
            s.rfind('/').map(|i| i + 1),
            s.rfind(" - ").map(|i| i + 3),
            s.rfind(" – ").map(|i| i + " – ".len()),
        ]
        .into_iter()
        .flatten()
        .max()
    };
    // `Vila Exemplo (RS)`: `extract::postcode_places`.
    if let Some((start, town, code)) = postcode_places::town_with_state_code(text, is_place_name) {
        return Some((start, Some(town), Some(code)));
    }
    let code_start = field_start(text)?;
    let code = text[code_start..].trim();
    let is_code = (2..=3).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_uppercase());
    if !is_code {
        return None;
    }
    let rest = text[..code_start].trim_end_matches([' ', ',', '-', '–', '/', '\u{a0}']);
    let town_start = field_start(rest).unwrap_or(0);
    let town = rest[town_start..].trim();
    is_place_name(town).then(|| (town_start, Some(town.to_string()), Some(code.to_string())))
}

/// Regions whose postcodes the hand-made patterns above read (with their states, provinces
/// and counties); the data's patterns ([`data_postcodes`]) read the others.
pub(crate) const HAND_READ: &[&str] = &["US", "CA", "AU", "GB", "IE"];

/// Labels printed before a postcode (class `label.postcode`), lower-case, each with the
/// country it implies on a page of no known region (`None`: any). A label ends a word: `cp`
/// does not match in `bcp`.
const POSTCODE_LABELS: &[(&str, Option<&str>)] = &[
    // Mexico: `C.P. 06600`.
    ("c.p.", Some("MX")),
    ("c.p", Some("MX")),
    ("cp", Some("MX")),
    // Brazil: `CEP 01310-100`.
    ("cep", Some("BR")),
    // India: `Pincode: 400 001`, `PIN code 400001` (`PIN` alone, `Eircode`: the data's
    // postcode names, `postcode::label_country`).
    ("pin code", Some("IN")),
    ("pincode", Some("IN")),
    ("código postal", None),
    ("codigo postal", None),
    ("cod. postal", None),
    ("postcode", None),
    ("post code", None),
    ("postal code", None),
    ("zip code", None),
    ("psč", None),
    ("〒", Some("JP")),
    // Israel: `מיקוד 6100000`; Romania: `cod poștal 030167`; French: `code postal`.
    ("מיקוד", Some("IL")),
    ("cod poștal", Some("RO")),
    ("cod postal", Some("RO")),
    ("code postal", None),
];

/// The postcode label that ends `before` (after trimming spaces, colons, dots and dashes):
/// its start in `before` and the country it implies.
fn postcode_label(before: &str) -> Option<(usize, Option<&'static str>)> {
    let trimmed = label_text(before);
    label_of_trimmed(trimmed, Lowering::of(trimmed))
}

/// `before` without the spaces, colons and dashes between a label and its postcode
/// ([`postcode_label`]).
fn label_text(before: &str) -> &str {
    before.trim_end_matches([' ', ':', '-', '–', '\u{a0}'])
}

/// How a text lower-cases, read over the whole of it ([`postcode_label`] needs the whole
/// text's, its label only the end's): whether it is ASCII, the length in bytes of its
/// lower case, and whether each character lower-cases to one of its own length (a capital
/// sigma never does). A fold over the characters, so a line's prefixes are read in one pass
/// ([`LabelReader`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lowering {
    ascii: bool,
    lower_len: usize,
    aligned: bool,
}

impl Lowering {
    /// The lowering of the empty text.
    const EMPTY: Lowering = Lowering {
        ascii: true,
        lower_len: 0,
        aligned: true,
    };

    /// The lowering of `text`.
    fn of(text: &str) -> Lowering {
        if text.is_ascii() {
            return Lowering {
                ascii: true,
                lower_len: text.len(),
                aligned: true,
            };
        }
        let mut lowering = Lowering::EMPTY;
        for c in text.chars() {
            lowering.push(c);
        }
        lowering
    }

    /// The lowering of the text read so far followed by `c`.
    fn push(&mut self, c: char) {
        if c.is_ascii() {
            self.lower_len += 1;
            return;
        }
        self.ascii = false;
        let mut lower = c.to_lowercase();
        let (first, more) = (lower.next(), lower.next());
        match (first, more) {
            (Some(l), None) if l.len_utf8() == c.len_utf8() && c != 'Σ' => {
                self.lower_len += l.len_utf8()
            }
            _ => {
                self.aligned = false;
                self.lower_len += c.to_lowercase().map(char::len_utf8).sum::<usize>();
            }
        }
    }
}

/// [`postcode_label`] of the texts before each of a line's tokens, in the order of the
/// tokens: the whole text's [`Lowering`] is read on from where the token before left it,
/// not from the line's start again for each token.
struct LabelReader<'a> {
    line: &'a str,
    /// The byte the lowering has been read to, and the lowering of `line[..read]`.
    read: usize,
    lowering: Lowering,
}

impl<'a> LabelReader<'a> {
    fn new(line: &'a str) -> Self {
        LabelReader {
            line,
            read: 0,
            lowering: Lowering::EMPTY,
        }
    }

    /// [`postcode_label`] of `line[..start]`.
    fn label(&mut self, start: usize) -> Option<(usize, Option<&'static str>)> {
        let trimmed = label_text(&self.line[..start]);
        if trimmed.len() < self.read {
            // A token before the last one asked for: read from the line's start.
            self.read = 0;
            self.lowering = Lowering::EMPTY;
        }
        let rest = &self.line[self.read..trimmed.len()];
        if rest.is_ascii() {
            self.lowering.lower_len += rest.len();
        } else {
            for c in rest.chars() {
                self.lowering.push(c);
            }
        }
        self.read = trimmed.len();
        label_of_trimmed(trimmed, self.lowering)
    }
}

/// [`postcode_label`] of `trimmed` (a [`label_text`]) whose [`Lowering`] is `lowering`.
fn label_of_trimmed(trimmed: &str, lowering: Lowering) -> Option<(usize, Option<&'static str>)> {
    debug_assert_eq!(lowering, Lowering::of(trimmed));
    if lowering.ascii {
        // ASCII text keeps its length lower-cased, and only its end is read: the last word,
        // and the longest label with the byte before it. That end alone is lower-cased.
        let longest = POSTCODE_LABELS
            .iter()
            .map(|(l, _)| l.len())
            .max()
            .unwrap_or(0);
        let word_start = trimmed
            .bytes()
            .rposition(|b| !b.is_ascii_alphanumeric())
            .map_or(0, |i| i + 1);
        let tail_start = word_start.min(trimmed.len().saturating_sub(longest + 1));
        let tail = &trimmed.as_bytes()[tail_start..];
        // Lower-cased on the stack when it fits (ASCII lower-casing keeps UTF-8 valid).
        let mut buf = [0u8; 64];
        let found = match buf.get_mut(..tail.len()) {
            Some(lower) => {
                lower.copy_from_slice(tail);
                lower.make_ascii_lowercase();
                label_ending(std::str::from_utf8(lower).ok()?)
            }
            None => label_ending(&trimmed[tail_start..].to_ascii_lowercase()),
        };
        return found.map(|(start, country)| (tail_start + start, country));
    }
    // Text beyond ASCII: lower-cased it must keep its length in bytes (else no label is
    // read). When each character lower-cases to one of its own length (and none is a
    // capital sigma, whose lower case depends on the letters around it), the lower-cased
    // text is the text's character for character, and only its end is lower-cased: the
    // last word and the longest label with the character before it.
    if lowering.lower_len != trimmed.len() {
        return None;
    }
    if lowering.aligned {
        let word_start = trimmed
            .rfind(|c: char| !c.is_alphanumeric())
            .map_or(0, |i| {
                i + trimmed[i..].chars().next().map_or(1, char::len_utf8)
            });
        let longest = POSTCODE_LABELS
            .iter()
            .map(|(l, _)| l.len())
            .max()
            .unwrap_or(0);
        // The character before the last word, and a character's width of room (up to four
        // bytes) before the longest label.
        let mut tail_start = word_start
            .saturating_sub(1)
            .min(trimmed.len().saturating_sub(longest + 4));
        while !trimmed.is_char_boundary(tail_start) {
            tail_start -= 1;
        }
        let lower = trimmed[tail_start..].to_lowercase();
        // The lower-cased word must start inside the end read (a letter's case alone never
        // makes a word longer; if it did, the whole text is read).
        let starts_inside =
            tail_start == 0 || lower.rfind(|c: char| !c.is_alphanumeric()).is_some();
        if starts_inside {
            return label_ending(&lower).map(|(start, country)| (tail_start + start, country));
        }
    }
    label_ending(&trimmed.to_lowercase())
}

/// The postcode label that ends `lower` (lower-case text, [`postcode_label`]): its start and
/// the country it implies.
fn label_ending(lower: &str) -> Option<(usize, Option<&'static str>)> {
    /// Bit `n` (63 for 63 bytes or more): a postcode name of the data has `n` bytes; the
    /// last bytes of [`POSTCODE_LABELS`]. A word or text that has no such length or last
    /// byte is looked up in neither.
    struct LabelShapes {
        name_lengths: u64,
        label_ends: [bool; 256],
    }
    static SHAPES: OnceLock<LabelShapes> = OnceLock::new();
    let shapes = SHAPES.get_or_init(|| {
        let mut label_ends = [false; 256];
        for (label, _) in POSTCODE_LABELS {
            if let Some(&last) = label.as_bytes().last() {
                label_ends[usize::from(last)] = true;
            }
        }
        LabelShapes {
            name_lengths: postcode::formats()
                .iter()
                .fold(0, |bits, f| bits | 1 << f.zip_name.len().min(63)),
            label_ends,
        }
    });
    let word_start = lower.rfind(|c: char| !c.is_alphanumeric()).map_or(0, |i| {
        i + lower[i..].chars().next().map_or(1, char::len_utf8)
    });
    let word = &lower[word_start..];
    if shapes.name_lengths & 1 << word.len().min(63) != 0 {
        let named = postcode::label_country(word);
        if named.is_some() {
            return Some((word_start, named));
        }
    }
    let last = lower.as_bytes().last().copied();
    if !last.is_some_and(|b| shapes.label_ends[usize::from(b)]) {
        return None;
    }
    POSTCODE_LABELS.iter().find_map(|(label, country)| {
        let start = lower.strip_suffix(label).map(str::len)?;
        let glued = lower[..start].ends_with(char::is_alphanumeric);
        (!glued).then_some((start, *country))
    })
}

/// A place name: letters (and the combining marks written on them), spaces, dots,
/// apostrophes and hyphens, up to five words, opening with a capital or a letter of a script
/// without case (`Cape Town`, `Toluca de Lerdo`, `תל אביב`, `เชียงใหม่`: [`opens_name`]).
pub(crate) fn is_place_name(text: &str) -> bool {
    let text = text.trim();
    !text.is_empty()
        && text.split_whitespace().count() <= 5
        && text.starts_with(opens_name)
        && text.chars().all(|c| {
            c.is_alphabetic() || is_name_mark(c) || matches!(c, ' ' | '.' | '\'' | '’' | '-')
        })
        && !has_street_word_in(text)
}

/// Whether `c` may open a name: a capital, or a letter of a script without case (Thai,
/// Hebrew, Arabic, Han, kana, Hangul), whose town names have no capital to open them.
pub(crate) fn opens_name(c: char) -> bool {
    c.is_uppercase() || (c.is_alphabetic() && !c.is_lowercase())
}

/// Whether `c` is a combining mark written on the letters of a name that `char::is_alphabetic`
/// leaves out: Latin, Greek and Cyrillic combining diacritics (decomposed text), Thai vowel
/// and tone marks, Hebrew points.
fn is_name_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{0E31}' | '\u{0E34}'..='\u{0E3A}' | '\u{0E47}'..='\u{0E4E}' | '\u{0591}'..='\u{05C7}')
}

/// The street, locality and region of an address whose postcode `name` follows, in the
/// layouts of `region` that print the region there (`%Z %S` ending the line, Philippines:
/// `12 Mango Avenue, Sample City, 6015 Cebu` → street `12 Mango Avenue`, locality `Sample
/// City`, region `Cebu`): the name after the postcode is the region, the street's last comma
/// part the locality when it is a place name. In the layouts that print the region after the
/// town (`%Z %C %S`: Italy, Spain, Estonia, Lithuania, Uruguay), a last word of two or three
/// capitals after a place name is the region's code (class `postcode.region_code_after_town`:
/// `20121 Milano MI` → locality `Milano`, region `MI`). Otherwise `name` is the locality.
fn province_after_postcode(
    region: &str,
    street: Option<String>,
    name: String,
) -> (Option<String>, String, Option<String>) {
    if let Some((town, code)) = region_code_after_town(region, &name) {
        return (street, town.to_string(), Some(code.to_string()));
    }
    let province_last = postcode::format(region)
        .is_some_and(|f| f.fmt.contains("%n%Z %S") && !f.fmt.contains("%Z %S %C"));
    let Some(full) = street.as_deref().filter(|_| province_last) else {
        return (street, name, None);
    };
    match full.rsplit_once(',') {
        Some((head, tail)) if is_place_name(tail) && !head.trim().is_empty() => (
            Some(head.trim().to_string()),
            tail.trim().to_string(),
            Some(name),
        ),
        _ => (street, name, None),
    }
}

/// The town and the region's code of `name` (the text after a postcode) in the layouts of
/// `region` that print the region after the town (Google's `fmt` `%Z %C %S`), when its last
/// word is two or three capital letters after a place name: `Milano MI` → (`Milano`, `MI`).
fn region_code_after_town<'a>(region: &str, name: &'a str) -> Option<(&'a str, &'a str)> {
    let name = name.trim();
    let (town, code) = name.rsplit_once(' ')?;
    let is_code = (2..=3).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_uppercase());
    // A province named like its capital, written after it (`50001 Zaragoza Zaragoza`,
    // `11000 Montevideo Montevideo`): the name twice.
    let half = name.len() / 2;
    let twice = name.len() % 2 == 1
        && name.is_char_boundary(half)
        && name.as_bytes()[half] == b' '
        && name[..half] == name[half + 1..]
        && is_place_name(&name[..half]);
    if !((is_code && is_place_name(town)) || twice)
        || !postcode::format(region).is_some_and(|f| f.fmt.contains("%Z %C %S"))
    {
        return None;
    }
    Some(if twice {
        (&name[..half], &name[half + 1..])
    } else {
        (town.trim(), code)
    })
}

/// The postcode-shaped tokens of `line`: from a character that follows no letter or digit, one
/// to three runs of ASCII letters and digits joined by one space or hyphen, holding a digit,
/// followed by no letter or digit; as byte ranges, longest first from each start.
///
/// Read as an iterator, without an allocation: the postcode readers ask it of most lines
/// that hold a digit.
pub(crate) fn zip_tokens(line: &str) -> ZipTokens<'_> {
    let bytes = line.as_bytes();
    // No digit, no token: most lines have none.
    let first_digit = first_ascii_digit(bytes);
    ZipTokens {
        line,
        i: if first_digit.is_some() {
            0
        } else {
            bytes.len()
        },
        next_digit: first_digit.unwrap_or(0),
        reach: first_digit.map_or(0, |digit| chain_start(bytes, digit)),
    }
}

/// The iterator of [`zip_tokens`].
pub(crate) struct ZipTokens<'a> {
    line: &'a str,
    /// The byte the scan is at.
    i: usize,
    /// The next ASCII digit at or after the scan's byte (or before it: then it is searched
    /// again), and the start of the earliest token that can reach it ([`chain_start`]).
    next_digit: usize,
    reach: usize,
}

/// Where the run of ASCII letters and digits holding byte `at` of `bytes` starts.
fn run_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rposition(|b| !b.is_ascii_alphanumeric())
        .map_or(0, |p| p + 1)
}

/// Where the run of ASCII letters and digits from byte `from` of `bytes` ends.
fn run_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|b| !b.is_ascii_alphanumeric())
        .map_or(bytes.len(), |p| from + p)
}

/// The start of the earliest token that can reach the digit at `digit`: its run's start, or up
/// to two runs before it joined by one space or hyphen.
fn chain_start(bytes: &[u8], digit: usize) -> usize {
    let mut start = run_start(bytes, digit);
    for _ in 0..2 {
        let joined = start >= 2
            && matches!(bytes[start - 1], b' ' | b'-')
            && bytes[start - 2].is_ascii_alphanumeric();
        if !joined {
            break;
        }
        start = run_start(bytes, start - 1);
    }
    start
}

impl Iterator for ZipTokens<'_> {
    type Item = (usize, ZipEnds);

    fn next(&mut self) -> Option<(usize, ZipEnds)> {
        let line = self.line;
        let bytes = line.as_bytes();
        // A char before `i` that is alphanumeric: an ASCII byte is read as it is, the last
        // char of the text before otherwise.
        let after_alphanumeric = |i: usize| match i.checked_sub(1).map(|j| bytes[j]) {
            None => false,
            Some(b) if b.is_ascii() => b.is_ascii_alphanumeric(),
            Some(_) => line[..i].ends_with(char::is_alphanumeric),
        };
        // Tokens starting before the earliest token that can reach the next digit hold no
        // digit: the scan jumps to it.
        while self.i < bytes.len() {
            if self.next_digit < self.i {
                let Some(p) = first_ascii_digit(&bytes[self.i..]) else {
                    self.i = bytes.len();
                    break;
                };
                self.next_digit = self.i + p;
                self.reach = chain_start(bytes, self.next_digit);
            }
            let i = self.i.max(self.reach);
            self.i = i;
            // Bytes of a char beyond ASCII are no ASCII letters or digits: skipped one by one.
            if !bytes[i].is_ascii_alphanumeric() || after_alphanumeric(i) {
                self.i = i + 1;
                continue;
            }
            let mut ends = [0usize; 3];
            ends[0] = run_end(bytes, i);
            let mut count = 1;
            while count < 3 {
                let end = ends[count - 1];
                let joined = matches!(bytes.get(end), Some(b' ' | b'-'))
                    && bytes.get(end + 1).is_some_and(u8::is_ascii_alphanumeric);
                if !joined {
                    break;
                }
                ends[count] = run_end(bytes, end + 1);
                count += 1;
            }
            // A token glued to a letter beyond ASCII (`Ø`) is part of a word.
            let mut kept = [0usize; 3];
            let mut kept_count = 0;
            for &end in &ends[..count] {
                if !line[end..].starts_with(char::is_alphanumeric) {
                    kept[kept_count] = end;
                    kept_count += 1;
                }
            }
            let last = if kept_count == 0 {
                i
            } else {
                kept[kept_count - 1]
            };
            self.i = ends[0];
            if bytes[i..last].iter().any(u8::is_ascii_digit) {
                kept[..kept_count].reverse();
                return Some((
                    i,
                    ZipEnds {
                        ends: kept,
                        len: kept_count,
                    },
                ));
            }
        }
        None
    }
}

/// The ends of the tokens [`zip_tokens`] reads from one start, longest first: up to three
/// byte offsets, held without an allocation; read as a slice.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ZipEnds {
    ends: [usize; 3],
    len: usize,
}

impl std::ops::Deref for ZipEnds {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        &self.ends[..self.len]
    }
}

impl IntoIterator for ZipEnds {
    type Item = usize;
    type IntoIter = std::iter::Take<std::array::IntoIter<usize, 3>>;

    fn into_iter(self) -> Self::IntoIter {
        self.ends.into_iter().take(self.len)
    }
}

impl<'a> IntoIterator for &'a ZipEnds {
    type Item = &'a usize;
    type IntoIter = std::slice::Iter<'a, usize>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Whether the number at `start..end` of `line` is part of something else: a longer number
/// (a digit group one space, dash, dot or slash away), a phone (`+`), a house number (`#12`,
/// `No. 12`), an amount or a share (`$`, `€`, `%`).
pub(crate) fn is_part_of_other_number(line: &str, start: usize, end: usize) -> bool {
    is_number_continued_after(line, end) || is_number_continued_before(line, start)
}

/// The half of [`is_part_of_other_number`] that reads only the text after the number ending
/// at `end`: a `%`, `€` or `$`, a digit group one space, dash, dot, slash or comma after it, or
/// a currency's name.
fn is_number_continued_after(line: &str, end: usize) -> bool {
    let after = &line[end..];
    let mut ahead = after.chars();
    let joined = match (ahead.next(), ahead.next()) {
        (Some('%' | '€' | '$'), _) => true,
        (Some(' ' | '-' | '.' | '/' | ','), Some(c)) => c.is_ascii_digit(),
        _ => false,
    };
    joined || currency_after(after)
}

/// The half of [`is_part_of_other_number`] that reads only the text before the number at
/// `start`: a digit group one space, dash, dot or slash before it, a `+`, `#`, `№` or currency
/// sign, or a house number's mark. When it holds, every token from `start` is part of another
/// number, whatever its end.
pub(crate) fn is_number_continued_before(line: &str, start: usize) -> bool {
    let before = &line[..start];
    let mut back = before.chars().rev();
    let joined_before = match (back.next(), back.next()) {
        (Some('+' | '#' | '№' | '$' | '€' | '£' | '₹'), _) => true,
        (Some(' ' | '-' | '.' | '/'), Some(c)) => c.is_ascii_digit(),
        (Some(c), _) => c.is_ascii_digit(),
        _ => false,
    };
    joined_before || ends_with_number_mark(before)
}

/// The marks of a house number before it (`No. 12`, `Nr 5`, `nº 7`), lower-case.
const NUMBER_MARKS: [&str; 9] = ["no", "no.", "no:", "nº", "n°", "nr", "nr.", "núm.", "num."];

/// Whether `before` (the text before a number) ends with a house number's mark
/// ([`NUMBER_MARKS`], case ignored) that is not the end of a longer word.
fn ends_with_number_mark(before: &str) -> bool {
    let before = before.trim_end();
    // Every mark ends in one of these characters lower-cased (only `O` and `R` lower to `o`
    // and `r`): most texts end in none, and are not lower-cased.
    if !before.ends_with(['o', 'O', 'r', 'R', '.', ':', 'º', '°']) {
        return false;
    }
    // The marks have at most five bytes: eight characters lower-cased end as the whole
    // text does, with the character before the mark.
    with_lowered_end(before, 8, |lower| {
        NUMBER_MARKS.iter().any(|m| {
            lower
                .strip_suffix(m)
                .is_some_and(|rest| !rest.ends_with(char::is_alphanumeric))
        })
    })
}

/// Whether the word right after a number (`after`: the line after it) is a currency's name
/// or abbreviation (class `amount.currency`: `12345 Euro`, `10559 ευρώ`, `2500 Ft`): the
/// number is an amount.
fn currency_after(after: &str) -> bool {
    /// The longest entry compared, in bytes (`złotych`, `гривень`).
    const LONGEST: usize = 16;
    static WORDS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    let rest = after.trim_start_matches([' ', '\u{a0}']);
    let end = rest
        .find(|c: char| !c.is_alphabetic())
        .unwrap_or(rest.len());
    let word = &rest[..end];
    if word.is_empty() || word.len() > LONGEST {
        return false;
    }
    let words =
        WORDS.get_or_init(|| lexicon::sorted_words(&[Words::AmountCurrency], str::to_lowercase));
    with_lowercase(word, |word| lexicon::holds(words, word))
}

/// The country named right after a postcode (`, México.`, `India`): by the data's English
/// names and [`region_of_country`].
fn country_named(after: &str) -> Option<&'static str> {
    country_words(after).and_then(country_of_words)
}

/// The country `name` names when it is a country's name and nothing else (`Perú`, `Romania`,
/// `Suomi`): the data's English names and the names in the countries' own languages of
/// [`region_of_country`], case and accents ignored.
pub(crate) fn country_of_whole_name(name: &str) -> Option<&'static str> {
    let words = country_words(name).filter(|words| *words == name)?;
    country_of_words(words)
}

/// The words [`country_named`] reads after a postcode: the run of letters and spaces after
/// spaces and punctuation, without the spaces at its end; `None` when it is empty or longer
/// than any country's name.
fn country_words(after: &str) -> Option<&str> {
    let rest = after.trim_start_matches([' ', ',', '.', '-', '(', '\u{a0}']);
    // The run of letters and spaces, read no further than a name's length: a run of more
    // characters (spaces at its end left out) names no country. Lower-casing keeps or adds
    // characters, accents are folded one for one, and the data's names are ASCII of at most
    // `COUNTRY_NAME_BYTES` bytes ([`postcode::country_of_name`]). ASCII bytes are read as
    // bytes; from the first byte beyond ASCII the run is read by characters.
    let bytes = rest.as_bytes();
    let mut word_end = rest.len();
    let mut ascii_end = 0;
    while let Some(&b) = bytes.get(ascii_end).filter(|b| b.is_ascii()) {
        if !(b.is_ascii_alphabetic() || b == b' ') {
            word_end = ascii_end;
            break;
        }
        ascii_end += 1;
        if b != b' ' && ascii_end > COUNTRY_NAME_BYTES {
            return None;
        }
    }
    if ascii_end < rest.len() && word_end == rest.len() {
        let mut chars = ascii_end;
        for (at, c) in rest[ascii_end..].char_indices() {
            if !(c.is_alphabetic() || c == ' ') {
                word_end = ascii_end + at;
                break;
            }
            chars += 1;
            if c != ' ' && chars > COUNTRY_NAME_BYTES {
                return None;
            }
        }
    }
    let words = rest[..word_end].trim().trim_end_matches('.');
    (!words.is_empty()).then_some(words)
}

/// The country the words [`country_words`] read name (the second half of
/// [`country_named`]).
fn country_of_words(words: &str) -> Option<&'static str> {
    // ASCII words (most): lower-cased once, on the stack; the same look-ups as below (an
    // ASCII name has no accents to fold, and no name of either is longer than the buffer).
    if words.is_ascii() && words.len() <= 64 {
        let mut buf = [0u8; 64];
        let lower = &mut buf[..words.len()];
        lower.copy_from_slice(words.as_bytes());
        lower.make_ascii_lowercase();
        let lower = std::str::from_utf8(lower).ok()?;
        return region_of_lower_case_country(lower.trim())
            .or_else(|| postcode::country_of_name(lower));
    }
    // Lower-cased and folded on the stack, character by character (a capital sigma lowers to
    // `σ` here and to `σ` or `ς` in `str::to_lowercase`: no name holds either).
    let mut lower = [0u8; 4 * COUNTRY_NAME_BYTES];
    let mut folded = [0u8; 4 * COUNTRY_NAME_BYTES];
    let (mut lower_len, mut folded_len) = (0, 0);
    for c in words.chars() {
        for l in c.to_lowercase() {
            lower_len += l.encode_utf8(&mut lower[lower_len..]).len();
        }
        folded_len += fold_accent(c).encode_utf8(&mut folded[folded_len..]).len();
    }
    let lower = std::str::from_utf8(&lower[..lower_len]).ok()?;
    let folded = std::str::from_utf8(&folded[..folded_len]).ok()?;
    region_of_lower_case_country(lower).or_else(|| postcode::country_of_name(folded))
}

/// The longest country name [`country_named`] reads, in bytes (and characters): the
/// longest that [`postcode::country_of_name`] compares; [`region_of_country`]'s names are
/// shorter.
const COUNTRY_NAME_BYTES: usize = 64;

/// `text` with the accents of Latin letters dropped (`México` → `Mexico`), for comparing with
/// the data's English names.
#[cfg(test)]
fn fold_accents(text: &str) -> String {
    text.chars().map(fold_accent).collect()
}

/// `c` without its accent when it is a Latin letter with one ([`fold_accents`]).
fn fold_accent(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' => 'a',
        'Á' | 'À' | 'Â' | 'Ä' | 'Ã' | 'Å' => 'A',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'É' | 'È' | 'Ê' | 'Ë' => 'E',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'Í' | 'Ì' | 'Î' | 'Ï' => 'I',
        'ó' | 'ò' | 'ô' | 'ö' | 'õ' => 'o',
        'Ó' | 'Ò' | 'Ô' | 'Ö' | 'Õ' => 'O',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'Ú' | 'Ù' | 'Û' | 'Ü' => 'U',
        'ç' => 'c',
        'Ç' => 'C',
        'ñ' => 'n',
        'Ñ' => 'N',
        other => other,
    }
}

/// Whether the text after a postcode ends its address: nothing, punctuation, a field
/// separator or a country name; in the layouts of `format` that print the region after the
/// postcode, also that region, alone or followed by one of those ([`region_after_postcode`]).
pub(crate) fn ends_address(after: &str, format: &postcode::Format) -> bool {
    nothing_after(after) || region_after_postcode(after, format).is_some()
}

/// Whether `after` (the text after a postcode, or after the region that follows it) holds
/// nothing more of the address: nothing, punctuation, a field separator or a country name.
pub(crate) fn nothing_after(after: &str) -> bool {
    let rest = after.trim_start_matches([' ', ',', '.', ')', ';', '\u{a0}']);
    rest.is_empty()
        || rest.starts_with(['|', '•', '·', '/', '('])
        || rest.starts_with(" - ")
        || country_named(after).is_some()
        || marked_region_then_nothing(rest)
        || opens_with_field_label(rest)
}

/// The first words of the labels of the fields that follow an address on its line, lower-case
/// without a closing `.` or `:` (lexicon classes `label.phone`, `label.email`, `label.fax`,
/// `label.web`, `label.registration`: `tel`, `e-mail`, `cui`, `p.iva`, `org.nr`), sorted.
fn field_label_heads() -> &'static lexicon::SortedWords {
    static HEADS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    HEADS.get_or_init(|| {
        lexicon::sorted_words(
            &[
                Words::LabelPhone,
                Words::LabelEmail,
                Words::LabelFax,
                Words::LabelWeb,
                Words::LabelRegistration,
            ],
            |label| label_head(&label.to_lowercase()).to_string(),
        )
    })
}

/// The first word of `text` up to white space, a colon or a digit, without a closing `.`
/// (`P.IVA 0123` → `P.IVA`, `Tel.: …` → `Tel`).
fn label_head(text: &str) -> &str {
    let end = text
        .find(|c: char| c.is_whitespace() || c == ':' || c == '#' || c.is_ascii_digit())
        .unwrap_or(text.len());
    text[..end].trim_end_matches('.')
}

/// Whether `rest` (the text after a postcode and its separators) opens with the label of
/// another field (class `address.field_after`: `…, Cluj-Napoca 400001, CUI RO…`, `…, 20121
/// Milano, Tel. 02 …`): the address ended before it.
fn opens_with_field_label(rest: &str) -> bool {
    if !rest.starts_with(char::is_alphabetic) {
        return false;
    }
    label_head(rest).len() <= 24 && is_field_label(rest)
}

/// Whether `text` opens with the label of another field than an address ([`label_head`]
/// looked up in [`field_label_heads`], case ignored): `Tel.:`, `Org.nr`, `CUI`.
fn is_field_label(text: &str) -> bool {
    lexicon::holds(field_label_heads(), &label_head(text).to_lowercase())
}

/// The street, town and region of an address read with a region named with its mark as its
/// locality (class `region.mark`, Google's `%C%n%S`: Irish `14 Main Street` / `Kilkenny` /
/// `Co. Kilkenny` / Eircode, `14 Main Street, Ennis, Co. Clare, V95 …`): where the street's
/// last comma part is a place name, it is the town and the marked name the region.
/// Otherwise the parts as they are, without a region.
fn town_before_marked_region(
    street: Option<String>,
    locality: Option<String>,
) -> (Option<String>, Option<String>, Option<String>) {
    let county = locality.as_deref().filter(|l| is_marked_region(l));
    let split = street.as_deref().zip(county).and_then(|(street, county)| {
        let (head, town) = street.rsplit_once(',')?;
        (is_place_name(town) && !head.trim().is_empty()).then(|| {
            (
                Some(head.trim().to_string()),
                Some(town.trim().to_string()),
                Some(county.trim().to_string()),
            )
        })
    });
    split.unwrap_or((street, locality, None))
}

/// Whether `rest` opens with a region named with its mark (`jud. Cluj`, `Co. Clare`,
/// [`is_marked_region`]) up to a comma, a field separator (`|`, `•`, `·`, `;`: `…, jud. Cluj ·
/// Tel. …`) or the end, and nothing more of the address follows it.
fn marked_region_then_nothing(rest: &str) -> bool {
    let end = rest.find([',', '|', '•', '·', ';']).unwrap_or(rest.len());
    is_marked_region(&rest[..end]) && nothing_after(&rest[end..])
}

/// The region printed after a postcode where the layout of `format` prints it there
/// (`%C %Z%n%S`, `%C %Z, %S`, `%C %Z %S`: India `Pune 411001, Maharashtra`, Peru `Miraflores
/// 15074, Lima.`, Nigeria, Venezuela, Papua New Guinea), when it ends the address: a place
/// name of at most three words (no street word in it), then what [`nothing_after`] accepts.
/// Shared by the address reader and the reader of the other order (`extract::postcode_order`).
pub(crate) fn region_after_postcode<'a>(
    after: &'a str,
    format: &postcode::Format,
) -> Option<&'a str> {
    let prints_region_after = ["%Z%n%S", "%Z, %S", "%Z %S"]
        .iter()
        .any(|p| format.fmt.contains(p));
    if !prints_region_after {
        return None;
    }
    let rest = after.trim_start_matches([' ', ',', '\u{a0}']);
    let region_end = rest
        .find([',', '|', '•', '·', '(', ';'])
        .unwrap_or(rest.len());
    let region = rest[..region_end].trim().trim_end_matches('.');
    // A country's name there is the country, not a region (`Cluj-Napoca 400001, România`).
    (is_place_name(region)
        && region.split_whitespace().count() <= 3
        && country_of_whole_name(region).is_none()
        && nothing_after(&rest[region_end..]))
    .then_some(region)
}

/// The country a postcode line names other than right after the postcode: in its last
/// comma-separated part (`…, Selangor, Malaysia`), or as the place right before the
/// postcode at `zip_start` (a city-state: `Singapore 049123`).
pub(crate) fn country_in_line(line: &str, zip_start: usize) -> Option<&'static str> {
    let last = line.rsplit(',').next().unwrap_or("");
    country_named(last).or_else(|| country_before(line, zip_start))
}

/// The country named as the place right before the postcode at `zip_start` of `line` (the
/// second half of [`country_in_line`]).
fn country_before(line: &str, zip_start: usize) -> Option<&'static str> {
    country_named(part_before(line, zip_start))
}

/// The comma-separated part of `line` right before `zip_start` ([`country_before`]).
fn part_before(line: &str, zip_start: usize) -> &str {
    let before = line[..zip_start].trim_end_matches([' ', ',', '\u{a0}']);
    before.rsplit(',').next().unwrap_or("")
}

/// The countries named in one line, each run of words looked up once
/// ([`country_named`] of texts of the line: the tokens of a line share their ends and the
/// parts before them).
struct LineCountries<'a> {
    line: &'a str,
    /// (the words' byte offset in `line`, their length, the country).
    seen: Vec<(usize, usize, Option<&'static str>)>,
}

impl<'a> LineCountries<'a> {
    fn new(line: &'a str) -> Self {
        LineCountries {
            line,
            seen: Vec::new(),
        }
    }

    /// [`country_named`] of `text`, a slice of the line.
    fn named(&mut self, text: &'a str) -> Option<&'static str> {
        let words = country_words(text)?;
        let key = (
            words.as_ptr() as usize - self.line.as_ptr() as usize,
            words.len(),
        );
        if let Some(&(_, _, country)) = self.seen.iter().find(|(at, len, _)| (*at, *len) == key) {
            return country;
        }
        let country = country_of_words(words);
        self.seen.push((key.0, key.1, country));
        country
    }
}

/// `text` without the comma part that ends it when that part is a country's name alone
/// ([`country_of_whole_name`]) and the part before it a place name (`Lima, Perú` → `Lima`);
/// `text` otherwise (`Rue Exemple 12, Luxembourg` keeps its one place).
fn without_country_after_place(text: &str) -> &str {
    let Some((rest, last)) = text.rsplit_once(',') else {
        return text;
    };
    let rest = rest.trim_end_matches([' ', '\u{a0}']);
    let place_before = rest.rsplit(',').next().is_some_and(is_place_name);
    if place_before && country_of_whole_name(last.trim()).is_some() {
        rest
    } else {
        text
    }
}

/// The place names right before a postcode (comma-separated chunks that are place names,
/// at most two, the last first cut of a ` - ` or `-` state code: `Curitiba - PR`): the
/// locality, the region when the country's layout prints one between locality and
/// postcode (`%C, %S %Z`, `%C-%S`), and where the text before them ends.
pub(crate) fn places_before(
    before: &str,
    format: &postcode::Format,
) -> (usize, Option<String>, Option<String>) {
    let text = before.trim_end_matches([' ', ',', '-', '–', '\u{a0}']);
    // The country's name between the town and the postcode (class `address.country_before_
    // postcode`: `…, Bogotá, Colombia, 110221`, `…, Cluj-Napoca, România, 400001`): not a
    // place of the address, when a place name comes before it and the layout prints a town
    // (`%C`; Singapore's prints the country's name as its town: `…, Singapore 049321`).
    let text = if format.fmt.contains("%C") {
        without_country_after_place(text)
    } else {
        text
    };
    if format.fmt.contains("%S") {
        if let Some(found) = town_before_state_code(text) {
            return found;
        }
    }
    let mut end = text.len();
    // (chunk start, place), last first.
    let mut places: Vec<(usize, &str)> = Vec::new();
    while places.len() < 2 && end > 0 {
        let chunk_start = text[..end].rfind(',').map_or(0, |i| i + 1);
        let chunk = text[chunk_start..end].trim();
        // `Curitiba - PR`: a locality and its state code in one chunk.
        let split = chunk.rsplit_once('-').filter(|(_, state)| {
            let state = state.trim();
            (2..=3).contains(&state.len()) && state.chars().all(|c| c.is_ascii_uppercase())
        });
        if let Some((city, state)) = split.filter(|(city, _)| is_place_name(city)) {
            if places.is_empty() {
                return (
                    chunk_start,
                    Some(city.trim().to_string()),
                    Some(state.trim().to_string()),
                );
            }
            break;
        }
        // A region named with its mark may open with a lower-case mark (`jud. Cluj`).
        if !is_place_name(chunk) && !is_marked_region(chunk) {
            break;
        }
        places.push((chunk_start, chunk));
        end = chunk_start.saturating_sub(1);
    }
    let region_between = format.fmt.contains("%C, %S") || format.fmt.contains("%C-%S");
    match places.as_slice() {
        [(_, last), (start, first)] if region_between || is_region_name(last) => {
            (*start, Some(first.to_string()), Some(last.to_string()))
        }
        [(start, last), ..] => (*start, Some(last.to_string()), None),
        [] => (text.len(), None, None),
    }
}

/// Addresses whose postcode the data reads (Google's `zip` and `fmt`, `extract::postcode`):
/// a postcode after its label (`C.P. 06600`, `CEP 01310-100`, `PIN: 400001`) in any country
/// the label, the country named after it or the page's region allows, and on pages of a
/// region whose layout puts the postcode after the locality (`Chennai 600 042`, `Singapore
/// 049321`) or on a line of its own below it (`Curitiba - PR` / `80020-310`). A postcode
/// without a label needs the locality before it, nothing but a country after it and a street
/// above or before it.
fn data_postcodes(
    lines: &[&str],
    index: usize,
    line: &str,
    street_index: usize,
    page_region: Option<&str>,
) -> Vec<TextAddress> {
    let page_format = page_region
        .filter(|r| !HAND_READ.contains(r))
        .and_then(postcode::format);
    let mut found = Vec::new();
    let mut tokens = zip_tokens(line).peekable();
    if tokens.peek().is_none() {
        return found;
    }
    // The country the line's last comma-separated part names: the same for every candidate,
    // read when one first needs it.
    let mut last_part = None;
    let mut last_part_country =
        || *last_part.get_or_insert_with(|| country_named(line.rsplit(',').next().unwrap_or("")));
    let countries = std::cell::RefCell::new(LineCountries::new(line));
    // Every reading below needs an end of the token that some country's format validates
    // (most tokens are counts, times, prices and phone numbers of no postcode's length or
    // opening): a token with none is passed before its label and countries are looked up.
    let any_format = postcode::any_format();
    let mut labels = LabelReader::new(line);
    for (start, ends) in tokens {
        // Bit `i`: some format may validate the token to its `i`th end (a token has at most
        // three ends).
        let may_validate = ends.iter().enumerate().fold(0u8, |bits, (i, &end)| {
            bits | u8::from(any_format.may_validate(&line[start..end])) << i
        });
        if may_validate == 0 {
            continue;
        }
        if let Some(boxed) = box_postcode(lines, index, line, start, &ends, page_format) {
            found.push(boxed);
            continue;
        }
        // A token that continues a number before it is part of that number whatever its end
        // ([`is_part_of_other_number`] below): passed before its label and countries are read
        // (phone numbers' digit groups, most of the tokens of a line with a phone).
        if is_number_continued_before(line, start) {
            continue;
        }
        let before = &line[..start];
        let label = labels.label(start);
        let labelled_country = label.and_then(|(_, c)| c).and_then(postcode::format);
        // The country named elsewhere in the line ([`country_in_line`]), read only when the
        // formats before it in the order below validate nothing.
        let mut in_line_country = None;
        let mut in_line = || {
            *in_line_country.get_or_insert_with(|| {
                last_part_country()
                    .or_else(|| countries.borrow_mut().named(part_before(line, start)))
                    .and_then(postcode::format)
            })
        };
        let valid = |f: Option<&postcode::Format>, zip: &str| f.is_some_and(|f| f.validates(zip));
        // The longest token that is a postcode of the page's region, of the country named
        // after it, of one named in the line or of its label's.
        let mut chosen = None;
        for (i, &end) in ends.iter().enumerate() {
            if may_validate & 1 << i == 0 {
                continue;
            }
            let zip = &line[start..end];
            // The country named after the token is asked only when the page's format does
            // not validate it: the format chosen below is then the page's, whatever it names.
            let page_validates = valid(page_format, zip);
            let named = if page_validates {
                None
            } else {
                countries
                    .borrow_mut()
                    .named(&line[end..])
                    .and_then(postcode::format)
            };
            if page_validates
                || valid(named, zip)
                || valid(in_line(), zip)
                || valid(labelled_country, zip)
            {
                chosen = Some((end, named));
                break;
            }
        }
        let Some((end, named)) = chosen else {
            continue;
        };
        let zip = &line[start..end];
        // The text before the token was read above (`is_number_continued_before`).
        if is_number_continued_after(line, end) {
            continue;
        }
        let after = &line[end..];
        let Some(format) = [page_format, named, labelled_country]
            .into_iter()
            .flatten()
            .find(|f| f.validates(zip))
            .or_else(|| in_line().filter(|f| f.validates(zip)))
        else {
            continue;
        };
        let layout = format.layout();
        // Without a label, only the layouts that print the postcode after the locality (the
        // other layout is read by the patterns above).
        if label.is_none() && !matches!(layout, Layout::ZipAfter | Layout::ZipLine) {
            continue;
        }
        // A label before the postcode and the town after it (`C.P. 06000, Ciudad Ejemplo,
        // CDMX`): `extract::postcode_places`.
        let town_after = label
            .filter(|_| !ends_address(after, format))
            .and_then(|_| postcode_places::places_after(after, PLACE_TESTS));
        let sentence_end = || postcode_places::ends_sentence(after);
        if town_after.is_none() && !ends_address(after, format) && !sentence_end() {
            continue;
        }
        let before = label.map_or(before, |(label_start, _)| &before[..label_start]);
        let alone = before.trim().is_empty();
        // `80020-310` or `CEP 80020-310` on its line: the locality is the line above, the
        // street above it (or above a district line, [`street_over_district`]).
        // A region named with its mark on the line between (`Львів` / `Львівська область` /
        // `79000`, Google's `%C%n%S%n%Z`): the town is on the line above it.
        let region_line = index
            .checked_sub(1)
            .and_then(|i| lines.get(i))
            .filter(|line| alone && street_index >= 2 && is_marked_region(line));
        let skip = usize::from(region_line.is_some());
        let above = index
            .checked_sub(1 + skip)
            .and_then(|i| lines.get(i))
            .filter(|_| alone && street_index > skip)
            .map(|above| (above, places_before(above, format)))
            .filter(|(_, (_, locality, _))| locality.is_some());
        let (street, locality, region) = if let Some((town, state)) = town_after {
            (street_for(lines, street_index, before), Some(town), state)
        } else if let Some((above, (place_start, locality, region))) = above {
            let street_at = street_index - 1 - skip;
            let street = street_for(lines, street_at, &above[..place_start]).or_else(|| {
                (above[..place_start].trim().is_empty())
                    .then(|| street_over_district(lines, street_at, format))
                    .flatten()
            });
            let region = region.or_else(|| region_line.map(|r| r.trim().to_string()));
            (street, locality, region)
        } else if alone && label.is_none() {
            continue;
        } else {
            let (place_start, locality, region) = places_before(before, format);
            match town_above_state(lines, street_index, before, place_start, &locality, format) {
                Some((street, town)) if region.is_none() => (street, Some(town), locality),
                _ => {
                    let street =
                        street_for(lines, street_index, &before[..place_start]).or_else(|| {
                            (locality.is_some() && before[..place_start].trim().is_empty())
                                .then(|| street_over_district(lines, street_index, format))
                                .flatten()
                        });
                    (street, locality, region)
                }
            }
        };
        if label.is_none() && (street.is_none() || locality.is_none()) {
            continue;
        }
        let (street, locality, region) = match region {
            None => town_before_marked_region(street, locality),
            region => (street, locality, region),
        };
        found.push(TextAddress {
            parts: MarkedAddress {
                street,
                locality,
                region,
                postal_code: Some(zip.to_string()),
                country: country_after(after),
            },
            region: format.code,
            line: index,
        });
    }
    found
}

/// The street and the town of an address whose postcode line holds a state and the postcode
/// alone, the town ending the line above (class `address.state_line_below_town`: Indian
/// `Sample Nagar` / `Pune` / `Maharashtra 411001`, `MG Road, Bengaluru,` / `Karnataka -
/// 560001`; Brazilian `São Paulo` / `SP 01001-000`): the place before the postcode
/// (`locality`, read from `before[place_start..]`) is a state's name of the lexicon or a
/// two-letter state code, nothing precedes it, and the line above ends with a place name that
/// is neither. `None` otherwise (the place is the town).
fn town_above_state(
    lines: &[&str],
    street_index: usize,
    before: &str,
    place_start: usize,
    locality: &Option<String>,
    format: &postcode::Format,
) -> Option<(Option<String>, String)> {
    let is_state = |place: &str| {
        is_region_name(place) || (place.len() == 2 && place.bytes().all(|b| b.is_ascii_uppercase()))
    };
    if !before[..place_start].trim().is_empty() || !locality.as_deref().is_some_and(is_state) {
        return None;
    }
    let above_index = street_index.checked_sub(1)?;
    let above = lines.get(above_index)?.trim_end().trim_end_matches(',');
    let (town_start, town, town_region) = places_before(above, format);
    let town = town.filter(|town| town_region.is_none() && !is_state(town))?;
    let street = street_for(lines, above_index, &above[..town_start]);
    Some((street, town))
}

/// The tests of a place name and of an address's end, for `extract::postcode_places`.
const PLACE_TESTS: postcode_places::Tests = postcode_places::Tests {
    is_place_name,
    nothing_after,
};

/// The post-office box words of the lexicon (class `address.box`), lower-case, letters and
/// digits only (`P.O. Box` → `pobox`, `S.L.P.` → `slp`).
fn box_words() -> &'static lexicon::SortedWords {
    static WORDS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    WORDS.get_or_init(|| {
        lexicon::sorted_words(&[Words::AddressBox], |word| {
            word.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect()
        })
    })
}

/// Where the post-office box word ending `text` starts (class `address.box`: `P.O. Box`,
/// `PO Box`, `S.L.P.`), read with dots and spaces left out and case folded; the word must not
/// be glued to a letter or digit before it.
fn box_word_start(text: &str) -> Option<usize> {
    let text = text.trim_end_matches([' ', '\u{a0}', ':', '#']);
    box_words().iter().find_map(|word| {
        let mut wanted = word.chars().rev().peekable();
        let mut start = None;
        for (at, c) in text.char_indices().rev() {
            if wanted.peek().is_none() {
                break;
            }
            if matches!(c, '.' | ' ' | '\u{a0}') {
                continue;
            }
            let mut lower = c.to_lowercase();
            if lower.next() != wanted.next() || lower.next().is_some() {
                return None;
            }
            start = Some(at);
        }
        let start = start.filter(|_| wanted.peek().is_none())?;
        (!text[..start].ends_with(char::is_alphanumeric)).then_some(start)
    })
}

/// A postcode joined to a post-office box number by a dash, the box's post office's code
/// (class `address.box`, the Kenyan way: `P.O. Box 12345-00100, Nairobi`, Swahili `S.L.P.
/// 12345-00100 Nairobi`): the token at `start` (`ends`: its ends, longest first) of line
/// `index`, a whole postcode of the page's region or of the country the line or the line below
/// names. The box is the street; the town is the place name after the postcode on its line, or
/// alone on the line below (`P.O. Box 12345-00100` / `Nairobi, Kenya`). `None` when no box
/// number and dash come before the token, or no town follows.
fn box_postcode(
    lines: &[&str],
    index: usize,
    line: &str,
    start: usize,
    ends: &[usize],
    page_format: Option<&'static postcode::Format>,
) -> Option<TextAddress> {
    let number_end = line[..start]
        .trim_end_matches([' ', '\u{a0}'])
        .strip_suffix(['-', '–'])?
        .trim_end_matches([' ', '\u{a0}']);
    let number_start = number_end
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .len();
    if number_start == number_end.len() {
        return None;
    }
    let box_start = box_word_start(&number_end[..number_start])?;
    let below = lines.get(index + 1).copied().unwrap_or("");
    let (end, format) = ends.iter().find_map(|&end| {
        let zip = &line[start..end];
        [
            page_format,
            country_in_line(line, line.len()).and_then(postcode::format),
            country_in_line(below, below.len()).and_then(postcode::format),
        ]
        .into_iter()
        .flatten()
        .find(|f| f.validates(zip))
        .map(|f| (end, f))
    })?;
    // The town: the first comma part after the postcode, else the line below's. The box's
    // post office may be named before it (`City Square, Nairobi`, `GPO, Nairobi`): a part of
    // words alone followed by a town gives way to the town.
    let town_in = |text: &str| {
        let rest = text.trim_start_matches([' ', ',', '\u{a0}']);
        let mut parts = rest
            .split([',', '|', '•', '·', ';'])
            .map(|part| part.trim().trim_end_matches('.'));
        let is_town = |part: &str| is_place_name(part) && country_named(part).is_none();
        let first = parts.next().unwrap_or("");
        let second = parts.next().unwrap_or("");
        if is_post_office_name(first) && is_town(second) {
            return Some(second.to_string());
        }
        is_town(first).then(|| first.to_string())
    };
    let after = &line[end..];
    let locality = match after.trim_start_matches([' ', ',', '\u{a0}']) {
        "" => town_in(below),
        rest => town_in(rest),
    }?;
    Some(TextAddress {
        parts: MarkedAddress {
            street: Some(number_end[box_start..].to_string()),
            locality: Some(locality),
            region: None,
            postal_code: Some(line[start..end].to_string()),
            country: country_after(after),
        },
        region: format.code,
        line: index,
    })
}

/// Whether `part` may name a post office before the town of a box address (`City Square`,
/// `GPO`, `Sarit Centre`; class `address.box`): at most four words of letters, opening with a
/// capital, and no country.
fn is_post_office_name(part: &str) -> bool {
    part.starts_with(opens_name)
        && part.split_whitespace().count() <= 4
        && part
            .chars()
            .all(|c| c.is_alphabetic() || matches!(c, ' ' | '.' | '\'' | '-'))
        && country_named(part).is_none()
}

/// The Irish county or Dublin postal district (`Co. Cork`, `Dublin 6W`, [`Pattern::IeCounty`])
/// that ends `text` (commas and spaces trimmed): where it starts and the district.
fn district_at_end(text: &str) -> Option<(usize, &str)> {
    let text = text.trim_end_matches([',', ' ', '\u{a0}']);
    let found = Pattern::IeCounty.regex()?.find_iter(text).last()?;
    (found.end() == text.len()).then(|| (found.start(), found.as_str()))
}

/// The Irish county or Dublin postal district that is the whole of `line` (commas and spaces
/// trimmed).
fn whole_district(line: &str) -> Option<&str> {
    let line = line.trim().trim_end_matches([',', '.']);
    district_at_end(line)
        .filter(|(start, _)| *start == 0)
        .map(|(_, d)| d)
}

/// The street above a district line, in the layouts that print one between the street and
/// the locality (class `address.district_line`, Google's `%D`: Brazil's bairro `Rua Sete, 77`
/// / `Jardim América` / `Passo Fundo - RS`, Mexico's colonia, Malaysia's taman): the line
/// right above line `index` (the locality's) is a place name, the street line is above it.
/// In the other layouts the street line must open with its house number (class
/// `address.area_line`: `#12, 1st Floor, 5th Cross` / `Sample Nagar` / `Bengaluru,
/// Karnataka 560034`). `None` without such lines.
pub(crate) fn street_over_district(
    lines: &[&str],
    index: usize,
    format: &postcode::Format,
) -> Option<String> {
    // Layouts without `%D`: an area line the Indian way, below a street that opens with its
    // house number (`extract::postcode_places`).
    let district_layout = format.fmt.contains("%D");
    let district_at = index.checked_sub(1)?;
    let district = lines.get(district_at)?.trim().trim_end_matches([',', '.']);
    if !is_place_name(district) {
        return None;
    }
    street_for(lines, district_at, "").filter(|street| {
        if !district_layout {
            return postcode_places::opens_with_house_number(street, has_street_word_in);
        }
        // The first part that is no premise or unit (`Level 3, 12 Sample Street`).
        let first = street
            .split(',')
            .map(str::trim)
            .find(|part| !is_premise_or_unit(part))
            .unwrap_or("");
        has_street_word_in(first)
            || (ends_with_house_number(first) && has_street_name(first))
            || first.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Whether the first comma part of `street` is a whole street: a street word and a house
/// number after the name (`Via Campione 14`, `Calle Muestra, 5`: the number may be the next
/// part) or before it (`12 rue des Lilas`).
fn is_named_numbered_street(street: &str) -> bool {
    let mut parts = street.split(',').map(str::trim);
    let first = parts.next().unwrap_or("");
    has_street_word_in(first)
        && (ends_with_house_number(first)
            || first.starts_with(|c: char| c.is_ascii_digit())
            || parts.next().is_some_and(|next| {
                ends_with_house_number(next) && next.split_whitespace().count() == 1
            }))
}

/// Whether `text` ends with a house number: digits with an optional letter or range
/// (`12`, `12a`, `12-14`, `12 b`).
pub(crate) fn ends_with_house_number(text: &str) -> bool {
    let mut tokens = text.split_whitespace().rev();
    let last = tokens.next().unwrap_or("");
    // A door letter or word after the floor (`2º B`, `3º izq.`) is left out.
    let last = if (last.len() == 1 && last.chars().all(char::is_alphabetic)) || is_door_word(last) {
        tokens.next().unwrap_or("")
    } else {
        last
    };
    // An ordinal's mark after a floor's number (class `address.floor_and_door`: `2º B`, `1.ª`,
    // `3° izq.` written after the house number) reads as `2o`, `1a` do.
    let last = without_number_mark(last.trim_end_matches([',', '.']))
        .trim_end_matches(['º', 'ª', '°'])
        .trim_end_matches('.');
    last.starts_with(|c: char| c.is_ascii_digit())
        && last.len() <= 9
        && last
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '/')
}

/// Whether `token` is a door word of the lexicon (class `address.door`: `izq.`, `dcha.`,
/// `esq.`, `dto.`), its full stop or comma left out and case folded.
fn is_door_word(token: &str) -> bool {
    static WORDS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    let token = token.trim_end_matches([',', '.']);
    (2..=9).contains(&token.len())
        && token.bytes().all(|b| b.is_ascii_alphabetic())
        && has_word(
            WORDS.get_or_init(|| lexicon::sorted_words(&[Words::AddressDoor], str::to_lowercase)),
            &token.to_ascii_lowercase(),
        )
}

/// A house number without the mark glued before it (class `house.number`): `No:8`, `No.8`
/// (TR, ES), `Nº371`, `N°5` (PT, FR), `#1098` (MX, US). Unchanged without a mark.
fn without_number_mark(token: &str) -> &str {
    for mark in ["No:", "No.", "Nº", "N°", "nº", "n°", "#"] {
        if let Some(rest) = token.strip_prefix(mark) {
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                return rest;
            }
        }
    }
    token
}

/// `text` without the prose that opens it before the street (`con domicilio en Calle …`,
/// `so sídlom Lipová 12`, `located at 12 …`, `Our registered address is 4 …`): two or more
/// lower-case words (a capitalised first word of a sentence among them; a street word only
/// when another lower-case word follows it), before a word that starts with a capital or a
/// digit. Unchanged otherwise. Outside a paragraph (`in_paragraph` false) a capitalised
/// first word counts as prose only before a house number or a street type (`Located at 12
/// …`, `Domicilio social en Calle …`): before a name it is the street's (`Rua das
/// Palmeiras`, `Paseo de los Pinos`).
fn without_prose(text: &str, in_paragraph: bool) -> &str {
    let mut prose = 0;
    let is_lower = |word: &str| word.chars().all(|c| c.is_alphabetic() && c.is_lowercase());
    let mut words = text
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .peekable();
    let mut first = true;
    let mut capital_opener = false;
    while let Some((at, word)) = words.next() {
        let next_lower = words.peek().is_some_and(|(_, next)| is_lower(next));
        // A street type opening the text is the street's, not a sentence's first word (class
        // `street.type_then_article`: `Rue du 4 Septembre 5`, `Platz des 17. Juni 3`).
        let sentence_start = first
            && next_lower
            && word.chars().all(char::is_alphabetic)
            && word.starts_with(char::is_uppercase)
            && !has_street_word_in(word);
        first = false;
        let lower_word = is_lower(word);
        if sentence_start || (lower_word && (!has_word(&street_words().words, word) || next_lower))
        {
            capital_opener |= sentence_start;
            prose += 1;
            continue;
        }
        let opens = if capital_opener && !in_paragraph {
            word.starts_with(|c: char| c.is_ascii_digit()) || has_street_word_in(word)
        } else {
            word.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit())
        };
        return if prose >= 2 && opens {
            &text[at..]
        } else {
            text
        };
    }
    text
}

/// `street` without a place name after its house number (`Calle Encino 210, Centro` →
/// `Calle Encino 210`): in a layout with a district line (`%D`), that is the district.
fn without_district(street: &str) -> &str {
    match street.rsplit_once(',') {
        Some((head, tail)) if is_place_name(tail) && ends_with_house_number(head) => head.trim(),
        _ => street,
    }
}

/// `before` without the CEPT country letters glued to the postcode after it (`D-` of
/// `D-10115`, `CH-` of `CH-8001`); a field separator (`Lilas - 69003`) is no prefix.
fn without_country_letters(before: &str) -> &str {
    let Some(head) = before.strip_suffix('-') else {
        return before;
    };
    let rest = head.trim_end_matches(|c: char| c.is_ascii_uppercase());
    let letters = head.len() - rest.len();
    if (1..=2).contains(&letters) && !rest.ends_with(char::is_alphanumeric) {
        rest
    } else {
        before
    }
}

/// Whether `before` ends with a copyright mark (`©`, `(c)`, `Copyright`), so the number after
/// it is a year.
pub(crate) fn is_copyright_mark(before: &str) -> bool {
    // `copyright`: the end of nine characters lower-cased ends as the whole text does.
    with_lowered_end(before.trim_end(), 9, |end| {
        end.ends_with('©') || end.ends_with("(c)") || end.ends_with("copyright")
    })
}

/// The end of `text.to_lowercase()` from the last `chars` characters of `text` (all of it
/// when it has no more): lower-casing goes character by character except for a capital
/// sigma (its lower case depends on the letters around it), so an end without one
/// lower-cases as it does in the whole text; with one, the whole text is lower-cased. The
/// result has at least `chars` bytes or is the whole text lower-cased, so a test of the
/// last `chars` bytes or fewer reads it as the whole text's.
#[cfg(test)]
pub(crate) fn lowered_end(text: &str, chars: usize) -> String {
    with_lowered_end(text, chars, str::to_string)
}

/// Calls `f` with [`lowered_end`] of `text` and `chars`, lower-cased on the stack when that
/// end is ASCII of at most 64 bytes ([`with_lowercase`]).
fn with_lowered_end<R>(text: &str, chars: usize, f: impl FnOnce(&str) -> R) -> R {
    let start = text
        .char_indices()
        .rev()
        .nth(chars.saturating_sub(1))
        .map_or(0, |(at, _)| at);
    if start > 0 && text[start..].contains('Σ') {
        return f(&text.to_lowercase());
    }
    with_lowercase(&text[start..], f)
}

/// Calls `f` with `text.to_lowercase()`, lower-cased on the stack when `text` is ASCII of
/// at most 64 bytes (for the look-up of a word or a label), else in a copy.
pub(crate) fn with_lowercase<R>(text: &str, f: impl FnOnce(&str) -> R) -> R {
    let mut buf = [0u8; 64];
    match buf.get_mut(..text.len()).filter(|_| text.is_ascii()) {
        Some(lower) => {
            lower.copy_from_slice(text.as_bytes());
            lower.make_ascii_lowercase();
            // ASCII lower-cased is UTF-8.
            f(std::str::from_utf8(lower).unwrap_or_default())
        }
        None => f(&text.to_lowercase()),
    }
}

/// Regions whose postcodes are three digits, a space and two digits (`123 45 City`).
const THREE_TWO: &[&str] = &["SE", "CZ", "SK", "GR"];

/// The region of the country letters written before a postcode (`A-1010`, `CH-8001`,
/// `D-10115`, `F-75001`, `I-00100`), the old European vehicle codes.
fn country_letters_region(before: &str) -> Option<&'static str> {
    let letters = before.strip_suffix('-')?;
    let start = letters
        .rfind(|c: char| !c.is_ascii_uppercase())
        .map_or(0, |i| i + 1);
    if start > 0 && !letters[..start].ends_with([' ', ',', '(', '\u{a0}']) {
        return None;
    }
    Some(match &letters[start..] {
        "A" => "AT",
        "CH" => "CH",
        "D" => "DE",
        "F" => "FR",
        "I" => "IT",
        "E" => "ES",
        "B" => "BE",
        "L" => "LU",
        "DK" => "DK",
        "N" => "NO",
        "FL" => "CH",
        "H" => "HU",
        "HR" => "HR",
        _ => return None,
    })
}

/// The region a street word of one language implies (`rue` → FR, `Straße` → DE, `via` → IT,
/// `calle` → ES), for an address on a page of no known region; `lower` is lower-case.
fn street_language_region(lower: &str) -> Option<&'static str> {
    for word in lower.split(|c: char| !c.is_alphanumeric()) {
        let region = match word {
            "rue" | "chemin" | "impasse" | "allée" | "quai" | "bd" => "FR",
            "str" | "straße" | "strasse" | "gasse" | "platz" | "weg" => "DE",
            "via" | "viale" | "piazza" | "piazzale" | "corso" | "vicolo" | "largo" => "IT",
            "calle" | "avenida" | "avda" | "paseo" | "carrer" => "ES",
            _ => {
                if ["straße", "strasse", "gasse", "platz"]
                    .iter()
                    .any(|suffix| word.ends_with(suffix) && word.len() > suffix.len() + 2)
                {
                    "DE"
                } else {
                    continue;
                }
            }
        };
        return Some(region);
    }
    None
}

/// The street on the line below a postcode line that starts with its postcode (an address
/// printed town first): a street word and a house number, not another postcode line.
fn street_below(lines: &[&str], index: usize) -> Option<String> {
    let line = strip_label(lines.get(index + 1)?.trim());
    let line = line.trim_end_matches([',', '.']);
    let usable = line.len() <= 60
        && is_streetish(line)
        && has_street_word_in(line)
        && ends_with_house_number(line)
        && !Shapes::of(line.as_bytes()).any();
    usable.then(|| line.to_string())
}

/// Labels that open a line holding the business's address: the lexicon's `label.address`
/// entries lower-cased, each with a colon after it (`address:`, `domicilio social:`), and the
/// first bytes a line opening with one of them may have (either case), for a cheap refusal.
struct AddressLabels {
    labels: lexicon::SortedWords,
    initials: [bool; 256],
}

fn address_labels() -> &'static AddressLabels {
    static LABELS: OnceLock<AddressLabels> = OnceLock::new();
    LABELS.get_or_init(|| {
        let labels = lexicon::sorted_words(&[lexicon::Class::LabelAddress], |label| {
            format!("{}:", label.to_lowercase())
        });
        let mut initials = [false; 256];
        for label in &labels {
            for form in [label.clone(), label.to_uppercase()] {
                if let Some(&first) = form.as_bytes().first() {
                    initials[usize::from(first)] = true;
                }
            }
        }
        AddressLabels { labels, initials }
    })
}

/// An address without postcode on a line that an address label opens (`Domicilio: AVENIDA
/// MONEGROS 24, TAUSTE, ZARAGOZA`): the street is the text up to its house number (a street
/// word is needed), then the town and the province or region, when they are place names.
fn labelled_street(line: &str, index: usize, page_region: Option<&str>) -> Option<TextAddress> {
    // Cheap refusal (most lines come here): a colon near the start of a short line, then the
    // first letter of a label (the labels' table is not read for a line without the colon).
    let head = line.trim_start();
    let bytes = head.as_bytes();
    if head.len() > 160 || !bytes[..bytes.len().min(24)].contains(&b':') {
        return None;
    }
    let labels = address_labels();
    if !bytes
        .first()
        .is_some_and(|first| labels.initials[usize::from(*first)])
    {
        return None;
    }
    let lower = head.to_lowercase();
    let label = labels
        .labels
        .iter()
        .find(|l| lower.starts_with(l.as_str()))?;
    let rest = head.get(label.len()..)?.trim();
    if rest.contains('@') || rest.contains("http") {
        return None;
    }
    let chunks: Vec<&str> = rest.split(',').map(str::trim).collect();
    // The street: the chunks up to the first that ends with a house number.
    let number_at = chunks.iter().position(|c| {
        ends_with_house_number(c) || c.chars().all(|ch| ch.is_ascii_digit()) && !c.is_empty()
    })?;
    let street = chunks[..=number_at].join(", ");
    let street_lower = street.to_lowercase();
    if !has_street_word(&street_lower) || street.len() > 80 || !has_street_name(&street) {
        return None;
    }
    let place = |i: usize| {
        chunks
            .get(i)
            .filter(|c| {
                !c.is_empty()
                    && c.split_whitespace().count() <= 4
                    && c.chars().all(|ch| {
                        ch.is_alphabetic() || matches!(ch, ' ' | '-' | '\'' | '.' | '(' | ')')
                    })
            })
            .map(|c| c.to_string())
    };
    let locality = place(number_at + 1)?;
    let region_name = place(number_at + 2);
    let region = street_language_region(&street_lower)
        .or_else(|| page_region.and_then(postcode::format).map(|f| f.code))?;
    Some(TextAddress {
        parts: MarkedAddress {
            street: Some(street),
            locality: Some(locality),
            region: region_name,
            postal_code: None,
            country: None,
        },
        region,
        line: index,
    })
}

/// Regions whose addresses are written region first, without spaces (class
/// `layout.region-first`; Google's `fmt` puts `%S` before `%A`: JP `〒%Z%n%S%n%A`, CN and TW
/// `%Z%n%S%C…%n%A`): `大阪府東大阪市本町1丁目2-3`, `广东省深圳市南山区科技路1号`,
/// `台北市中正區重慶南路一段12號`.
const REGION_FIRST: &[&str] = &["JP", "CN", "TW"];

/// Most characters of each unit of a region-first address (prefecture or province, locality,
/// street).
const MAX_REGION_CHARS: usize = 4;
const MAX_LOCALITY_CHARS: usize = 8;
const MAX_STREET_CHARS: usize = 32;

/// A Han character (with the iteration mark `々` and the small `ヶ` of place names).
fn is_han(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '々' | 'ヶ' | 'ケ')
}

/// A hiragana or katakana character (the long-vowel mark included).
fn is_kana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{309F}' | '\u{30A0}'..='\u{30FF}')
}

/// An ASCII or full-width digit.
fn is_any_digit(c: char) -> bool {
    c.is_ascii_digit() || matches!(c, '０'..='９')
}

/// Whether `line` may hold a region-first address: a byte of a CJK character (lead bytes
/// `E3`–`E9`: kana and the unified ideographs) and a digit. ASCII is skipped eight bytes at a
/// time (`words8`), so a line of Latin text costs a fraction of a pass.
fn may_be_region_first(line: &str) -> bool {
    let bytes = line.as_bytes();
    let mut at = 0;
    while let Some(word) = load(bytes, at) {
        if crate::extract::words8::any_byte_above(word, 0x7f) {
            break;
        }
        at += 8;
    }
    bytes[at.min(bytes.len())..]
        .iter()
        .any(|b| (0xE3..=0xE9).contains(b))
        && (bytes.iter().any(u8::is_ascii_digit) || line.contains(|c| matches!(c, '０'..='９')))
}

/// A region-first address at the start of `text` (`[〒postcode] [region] locality street`):
/// the region (prefecture, province: a unit of at most four characters ending in `都`, `道`,
/// `府`, `県` or `省`), the locality (a run of Han or kana ending in `市`, `区`/`區`, `町`,
/// `村`, `郡`…`町`/`村`, `县`/`縣`, with a ward after a city), then the street: Han, kana,
/// digits and dashes up to the end of the run, holding a digit and ending in a number or a
/// block mark (`丁目`, `番地`, `番`, `号`/`號`). The run must end there: an address that
/// prose goes on from (`…2-3にあります`) is not read. Returns (postcode, region, locality,
/// street) as written.
fn region_first_parts(text: &str) -> Option<(Option<&str>, Option<&str>, &str, &str)> {
    let mut rest = text.trim_start();
    let mut postcode = None;
    if let Some(after) = rest.strip_prefix('〒') {
        let after = after.trim_start();
        let end = after
            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .unwrap_or(after.len());
        let zip = &after[..end];
        if !postcode::format("JP").is_some_and(|f| f.validates(zip)) {
            return None;
        }
        postcode = Some(zip);
        rest = after[end..].trim_start();
    }
    let chars: Vec<(usize, char)> = rest.char_indices().take(64).collect();
    let char_at = |i: usize| chars.get(i).map(|(_, c)| *c);
    let byte_at = |i: usize| chars.get(i).map_or(rest.len(), |(b, _)| *b);
    // The region: the last region unit among the first four characters (`京都府`, not `京都`).
    let region_len = (1..MAX_REGION_CHARS)
        .rev()
        .find(|&i| {
            matches!(char_at(i), Some('都' | '道' | '府' | '県' | '省'))
                && (0..i).all(|j| char_at(j).is_some_and(is_han))
        })
        .map_or(0, |i| i + 1);
    // The locality: the first locality unit after at least one other character.
    let is_unit = |c: char| matches!(c, '市' | '区' | '區' | '町' | '村' | '郡' | '县' | '縣');
    let from = region_len;
    let mut end = None;
    for i in from + 1..from + MAX_LOCALITY_CHARS {
        let c = char_at(i)?;
        if !(is_han(c) || is_kana(c)) {
            return None;
        }
        if is_unit(c) {
            end = Some(i + 1);
            break;
        }
    }
    let mut end = end?;
    // `大町市`: a unit right after a unit; `…郡…町`: a district, then its town.
    if char_at(end).is_some_and(is_unit) {
        end += 1;
    }
    if char_at(end - 1) == Some('郡') {
        end = (end + 1..end + 5)
            .find(|&i| matches!(char_at(i - 1), Some('町' | '村')))
            .filter(|&i| (end..i).all(|j| char_at(j).is_some_and(is_han)))?;
    }
    // A ward after a city (`横浜市中区`).
    if char_at(end - 1) == Some('市') {
        if let Some(ward_end) = (end + 1..end + 4).find(|&i| {
            matches!(char_at(i - 1), Some('区' | '區'))
                && (end..i).all(|j| char_at(j).is_some_and(is_han))
        }) {
            end = ward_end;
        }
    }
    let street_start = end;
    let mut street_end = street_start;
    while let Some(c) = char_at(street_end) {
        let part =
            is_han(c) || is_kana(c) || is_any_digit(c) || matches!(c, '-' | '－' | '‐' | '−' | '―');
        if !part || street_end - street_start >= MAX_STREET_CHARS {
            break;
        }
        street_end += 1;
    }
    let street = &rest[byte_at(street_start)..byte_at(street_end)];
    let last = street.chars().next_back()?;
    let ends_in_number = is_any_digit(last) || matches!(last, '号' | '號' | '番' | '地' | '目');
    let next_is_text = char_at(street_end).is_some_and(char::is_alphanumeric)
        && !char_at(street_end).is_some_and(|c| c.is_ascii_uppercase());
    if !ends_in_number || !street.chars().any(is_any_digit) || next_is_text {
        return None;
    }
    let region = (region_len > 0).then(|| &rest[..byte_at(region_len)]);
    let locality = &rest[byte_at(region_len)..byte_at(street_start)];
    Some((postcode, region, locality, street))
}

/// The country of a region-first address: the page's region when it writes addresses so;
/// on a page of no region, Japan for kana, a prefecture (`都道府県`) or a block mark (`丁目`,
/// `番地`), Taiwan for the traditional `區`, `縣`, `號`, else China for a province (`省`) or
/// the simplified `区`, `县`, `号`.
fn region_first_country(page_region: Option<&str>, address: &str) -> Option<&'static str> {
    if let Some(page) = page_region {
        return REGION_FIRST.iter().find(|r| **r == page).copied();
    }
    let japanese = address.chars().any(is_kana)
        || address.contains(['都', '道', '府', '県'])
        || address.contains("丁目")
        || address.contains("番地");
    if japanese {
        Some("JP")
    } else if address.contains(['區', '縣', '號']) {
        Some("TW")
    } else if address.contains(['省', '区', '县', '号']) {
        Some("CN")
    } else {
        None
    }
}

/// A region-first address (see [`region_first_parts`]) on line `index`: at its start, after a
/// label (`住所：`) or after a space, with a Japanese postcode (`〒123-4567`) before it or
/// alone on the line above.
fn region_first(lines: &[&str], index: usize, page_region: Option<&str>) -> Option<TextAddress> {
    let line = lines[index].trim();
    if line.len() > MAX_LINE / 2 {
        return None;
    }
    let starts = std::iter::once(0)
        .chain(
            line.char_indices()
                .filter(|(_, c)| c.is_whitespace() || matches!(c, ':' | '：'))
                .map(|(i, c)| i + c.len_utf8()),
        )
        .take(6);
    for start in starts {
        let Some((zip, region, locality, street)) = region_first_parts(&line[start..]) else {
            continue;
        };
        let whole = format!("{}{locality}{street}", region.unwrap_or(""));
        let Some(code) = region_first_country(page_region, &whole) else {
            continue;
        };
        // `〒123-4567` alone on the line above.
        let zip = zip.or_else(|| {
            let above = lines.get(index.checked_sub(1)?)?.trim();
            let zip = above.strip_prefix('〒').unwrap_or(above).trim();
            (code == "JP" && postcode::format("JP").is_some_and(|f| f.validates(zip)))
                .then_some(zip)
        });
        return Some(TextAddress {
            parts: MarkedAddress {
                street: Some(street.to_string()),
                locality: Some(locality.to_string()),
                region: region.map(str::to_string),
                postal_code: zip.map(str::to_string),
                country: None,
            },
            region: code,
            line: index,
        });
    }
    None
}

/// Whether the text after a town ends the line (or names a country only).
fn town_only(after_city: &str) -> bool {
    let mut rest = after_city.trim().trim_start_matches([',', '.']).trim();
    // A province in parentheses (`(León)`).
    if let Some(inner) = rest.strip_prefix('(') {
        match inner.split_once(')') {
            Some((province, tail)) if is_place_name(province) => {
                rest = tail.trim().trim_start_matches([',', '.']).trim();
            }
            _ => return false,
        }
    }
    let rest = rest.trim_end_matches('.');
    rest.is_empty()
        || country_after(rest).is_some_and(|c| c.len() == rest.len())
        || country_named(rest).is_some()
}

/// Whether contact details (an `@`, or a number of seven digits or more) are within three
/// lines of line `index`.
fn contact_nearby(lines: &[&str], index: usize) -> bool {
    let from = index.saturating_sub(3);
    let to = (index + 4).min(lines.len());
    (from..to).filter(|&i| i != index).any(|i| {
        let line = lines[i];
        line.len() <= 200
            && (line.contains('@') || line.bytes().filter(u8::is_ascii_digit).count() >= 7)
    })
}

/// Postcode shapes present in a line, from one pass over its bytes: the regular expressions
/// run only where their postcode can be (most lines with digits hold none).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Shapes {
    /// A run of exactly four digits (AU, NL, PT, CH, AT…).
    four: bool,
    /// A run of exactly five digits (US, DE, FR, IT, ES…).
    five: bool,
    /// Three digits, a space, two digits (SE).
    three_two: bool,
    /// A digit, an optional space, then two capital letters (GB inward code, NL).
    digit_letters: bool,
    /// Capital letter, digit, capital letter (CA).
    letter_digit_letter: bool,
    /// Five digits right after a US state (`CO 80202`, `Colorado 80202`).
    zip_after_state: bool,
    /// Four digits right after an Australian state (`NSW 2067`).
    postcode_after_au_state: bool,
    /// Four digits, a dash, three digits (PT).
    four_dash_three: bool,
    /// Two digits, a dash, three digits (PL).
    two_dash_three: bool,
    /// A run of exactly six digits (IN, SG, CN…).
    six: bool,
    /// A run of exactly three digits, then a space and a letter (IS `101 Reykjavík`): read
    /// only on pages of a region with three-digit postcodes.
    three_word: bool,
    /// A run of exactly seven digits (IL): read only on pages of a region with seven-digit
    /// postcodes or on lines that name such a country (seven digits are common in phones).
    seven: bool,
}

/// The word (ASCII letters) ending just before `end`, skipping spaces, commas and dots.
fn word_before(line: &[u8], end: usize) -> &[u8] {
    let mut j = end;
    while j > 0 && matches!(line[j - 1], b' ' | b',' | b'.') {
        j -= 1;
    }
    let word_end = j;
    while j > 0 && line[j - 1].is_ascii_alphabetic() {
        j -= 1;
    }
    &line[j..word_end]
}

/// Last words of the US state names and codes of [`US_STATES`].
const US_STATE_WORDS: &[&[u8]] = &[
    b"AL",
    b"AK",
    b"AZ",
    b"AR",
    b"CA",
    b"CO",
    b"CT",
    b"DE",
    b"DC",
    b"FL",
    b"GA",
    b"HI",
    b"ID",
    b"IL",
    b"IN",
    b"IA",
    b"KS",
    b"KY",
    b"LA",
    b"ME",
    b"MD",
    b"MA",
    b"MI",
    b"MN",
    b"MS",
    b"MO",
    b"MT",
    b"NE",
    b"NV",
    b"NH",
    b"NJ",
    b"NM",
    b"NY",
    b"NC",
    b"ND",
    b"OH",
    b"OK",
    b"OR",
    b"PA",
    b"RI",
    b"SC",
    b"SD",
    b"TN",
    b"TX",
    b"UT",
    b"VT",
    b"VA",
    b"WA",
    b"WV",
    b"WI",
    b"WY",
    b"PR",
    b"Alabama",
    b"Alaska",
    b"Arizona",
    b"Arkansas",
    b"California",
    b"Colorado",
    b"Connecticut",
    b"Delaware",
    b"Florida",
    b"Georgia",
    b"Hawaii",
    b"Idaho",
    b"Illinois",
    b"Indiana",
    b"Iowa",
    b"Kansas",
    b"Kentucky",
    b"Louisiana",
    b"Maine",
    b"Maryland",
    b"Massachusetts",
    b"Michigan",
    b"Minnesota",
    b"Mississippi",
    b"Missouri",
    b"Montana",
    b"Nebraska",
    b"Nevada",
    b"Hampshire",
    b"Jersey",
    b"Mexico",
    b"York",
    b"Carolina",
    b"Dakota",
    b"Ohio",
    b"Oklahoma",
    b"Oregon",
    b"Pennsylvania",
    b"Island",
    b"Tennessee",
    b"Texas",
    b"Utah",
    b"Vermont",
    b"Virginia",
    b"Washington",
    b"Wisconsin",
    b"Wyoming",
];

/// Last words of the Australian state names and codes of [`AU_STATES`].
const AU_STATE_WORDS: &[&[u8]] = &[
    b"NSW",
    b"VIC",
    b"Vic",
    b"QLD",
    b"Qld",
    b"SA",
    b"WA",
    b"TAS",
    b"Tas",
    b"NT",
    b"ACT",
    b"Wales",
    b"Victoria",
    b"Queensland",
    b"Australia",
    b"Tasmania",
    b"Territory",
];

impl Shapes {
    fn of(line: &[u8]) -> Shapes {
        // Every shape holds a digit: bytes before the first eight that hold one change
        // nothing (most lines have no digit at all).
        let mut from = 0;
        while load(line, from).is_some_and(|word| !any_ascii_digit(word)) {
            from += 8;
        }
        Shapes::read_from(line, from, true)
    }

    /// The shapes of `line`, read from byte `from` on (the bytes before hold no digit); with
    /// `skip`, eight bytes at a time where they hold no digit, else byte by byte.
    fn read_from(line: &[u8], from: usize, skip: bool) -> Shapes {
        let mut shapes = Shapes::default();
        let mut run = 0usize;
        let mut next = from;
        while next <= line.len() {
            let i = next;
            next += 1;
            let b = line.get(i).copied().unwrap_or(b' ');
            if b.is_ascii_digit() {
                run += 1;
                let upper = |j: usize| line.get(j).is_some_and(u8::is_ascii_uppercase);
                if upper(i + 1) && upper(i + 2)
                    || line.get(i + 1) == Some(&b' ') && upper(i + 2) && upper(i + 3)
                {
                    shapes.digit_letters = true;
                }
                if i > 0 && upper(i - 1) && upper(i + 1) {
                    shapes.letter_digit_letter = true;
                }
                continue;
            }
            let state_word = || word_before(line, i - run);
            match run {
                4 => {
                    shapes.four = true;
                    shapes.postcode_after_au_state |= AU_STATE_WORDS.contains(&state_word());
                    shapes.four_dash_three |= b == b'-'
                        && line
                            .get(i + 1..i + 4)
                            .is_some_and(|d| d.iter().all(u8::is_ascii_digit));
                }
                6 => shapes.six = true,
                7 => shapes.seven = true,
                3 if b == b' '
                    && line
                        .get(i + 1)
                        .is_some_and(|c| c.is_ascii_uppercase() || *c >= 0x80) =>
                {
                    shapes.three_word = true;
                }
                5 => {
                    shapes.five = true;
                    shapes.zip_after_state |= US_STATE_WORDS.contains(&state_word());
                }
                2 if b == b'-'
                    && line
                        .get(i + 1..i + 4)
                        .is_some_and(|d| d.iter().all(u8::is_ascii_digit)) =>
                {
                    shapes.two_dash_three = true;
                }
                3 if b == b' '
                    && line
                        .get(i + 1..i + 3)
                        .is_some_and(|d| d.iter().all(u8::is_ascii_digit)) =>
                {
                    shapes.three_two = true;
                }
                _ => {}
            }
            run = 0;
            // Between runs, bytes that hold no digit change nothing: eight at a time.
            while skip && load(line, next).is_some_and(|word| !any_ascii_digit(word)) {
                next += 8;
            }
        }
        shapes
    }

    fn any(self) -> bool {
        self.four
            || self.five
            || self.three_two
            || self.two_dash_three
            || self.digit_letters
            || self.letter_digit_letter
            || self.six
    }
}

/// A GB postcode needs address context: a locality word before it on the line, or a UK page.
fn plausible_gb_context(before: &str, after: &str, uk_page: bool) -> bool {
    let before = before.trim_end();
    if after.starts_with(|c: char| c.is_alphanumeric()) {
        return false;
    }
    let lower = before.to_lowercase();
    uk_page
        || before.ends_with(|c: char| c.is_alphabetic() || c == ',')
        || ["postcode:", "post code:", "postcode", "postal code:"]
            .iter()
            .any(|l| lower.ends_with(l))
}

/// Counties of the United Kingdom (class `region.name`, GB): printed between the post town
/// and the postcode (`Lewes, East Sussex, BN7 …`), they are the region, not the locality.
const GB_COUNTIES: &[&str] = &[
    "Aberdeenshire",
    "Anglesey",
    "Angus",
    "Antrim",
    "Argyll",
    "Armagh",
    "Avon",
    "Ayrshire",
    "Bedfordshire",
    "Berkshire",
    "Buckinghamshire",
    "Caerphilly",
    "Cambridgeshire",
    "Carmarthenshire",
    "Ceredigion",
    "Cheshire",
    "Cleveland",
    "Clwyd",
    "Conwy",
    "Cornwall",
    "County Antrim",
    "County Down",
    "County Durham",
    "Co. Durham",
    "Cumbria",
    "Denbighshire",
    "Derbyshire",
    "Devon",
    "Dorset",
    "Dumfriesshire",
    "Dunbartonshire",
    "Dyfed",
    "East Lothian",
    "East Riding of Yorkshire",
    "East Sussex",
    "East Yorkshire",
    "Essex",
    "Fermanagh",
    "Fife",
    "Flintshire",
    "Glamorgan",
    "Gloucestershire",
    "Greater London",
    "Greater Manchester",
    "Gwent",
    "Gwynedd",
    "Hampshire",
    "Herefordshire",
    "Hertfordshire",
    "Isle of Wight",
    "Kent",
    "Lanarkshire",
    "Lancashire",
    "Leicestershire",
    "Lincolnshire",
    "Londonderry",
    "Merseyside",
    "Mid Glamorgan",
    "Middlesex",
    "Midlothian",
    "Monmouthshire",
    "Moray",
    "Norfolk",
    "North Yorkshire",
    "Northamptonshire",
    "Northumberland",
    "Nottinghamshire",
    "Oxfordshire",
    "Pembrokeshire",
    "Perthshire",
    "Powys",
    "Renfrewshire",
    "Rutland",
    "Shropshire",
    "Somerset",
    "South Glamorgan",
    "South Yorkshire",
    "Staffordshire",
    "Stirlingshire",
    "Suffolk",
    "Surrey",
    "Tyne and Wear",
    "Tyrone",
    "Warwickshire",
    "West Glamorgan",
    "West Lothian",
    "West Midlands",
    "West Sussex",
    "West Yorkshire",
    "Wiltshire",
    "Worcestershire",
];

/// Whether `name` is a county of [`GB_COUNTIES`] (case ignored).
fn is_gb_county(name: &str) -> bool {
    let name = name.trim().trim_end_matches('.');
    GB_COUNTIES.iter().any(|c| c.eq_ignore_ascii_case(name))
}

/// The street, post town and county of a British address whose `locality` (the place before
/// the postcode) may be a county: then the town is the place before it, on the postcode line
/// (`…, Anytown, Cheshire CW9 …`), ending the street lines above (`…, Stroud` /
/// `Gloucestershire GL5 …`) or alone on the line above. Otherwise as read.
fn gb_town_and_county(
    lines: &[&str],
    street_index: usize,
    street_prefix: &str,
    locality: Option<String>,
) -> (Option<String>, Option<String>, Option<String>) {
    let Some(county) = locality.clone().filter(|l| is_gb_county(l)) else {
        let street = match locality {
            Some(_) => street_or_dependent_locality(lines, street_index, street_prefix),
            None => street_for(lines, street_index, street_prefix),
        };
        return (street, locality, None);
    };
    let prefix = street_prefix.trim().trim_end_matches(',').trim();
    let (head, town) = match prefix.rsplit_once(',') {
        Some((head, town)) => (head, town.trim()),
        None => ("", prefix),
    };
    if is_place_name(town) {
        return (
            street_for(lines, street_index, head),
            Some(town.to_string()),
            Some(county),
        );
    }
    if prefix.is_empty() {
        // The town alone on the line above.
        let above = street_index.checked_sub(1).and_then(|i| lines.get(i));
        if let Some(town) = above
            .map(|l| l.trim().trim_end_matches(','))
            .filter(|t| is_place_name(t))
        {
            let street = street_for(lines, street_index - 1, "");
            return (street, Some(town.to_string()), Some(county));
        }
    }
    let street = street_for(lines, street_index, prefix);
    // The town closing the street lines above.
    if let Some((head, town)) = street.as_deref().and_then(|s| s.rsplit_once(", ")) {
        if is_place_name(town) && !head.is_empty() {
            return (Some(head.to_string()), Some(town.to_string()), Some(county));
        }
    }
    (street, None, Some(county))
}

/// The street of a British or Irish address whose post town is known ([`street_for`]), or,
/// when the line above the post town's line (line `index`, or the town before the postcode on
/// it) is a place name with the street lines above it, those lines and the
/// place: a dependent locality (a village or district) printed on a line of its own between
/// the street and the post town is part of the street (the Royal Mail's and An Post's address
/// lines: `12 Mill Lane` / `Northfield` / `Seabridge` / `EX1 9ZZ`).
fn street_or_dependent_locality(lines: &[&str], index: usize, prefix: &str) -> Option<String> {
    let street = street_for(lines, index, prefix);
    if street.is_some() || !prefix.trim().is_empty() || index == 0 {
        return street;
    }
    let place = lines.get(index - 1)?.trim().trim_end_matches(',');
    if !is_place_name(place) || is_premise(place) {
        return None;
    }
    let above = street_for(lines, index - 1, "")?;
    Some(format!("{above}, {place}"))
}

/// Splits the text before a postcode into (street part, locality): the locality is the last
/// comma-separated chunk when it is a place name (no digits).
fn split_locality(before: &str) -> (&str, Option<String>) {
    let before = before
        .trim_end()
        .trim_end_matches([',', '-', '–'])
        .trim_end();
    let whole = before;
    let before = last_segment(whole);
    match before.rfind(',') {
        Some(comma) => {
            let candidate = before[comma + 1..].trim();
            if !candidate.is_empty() && !candidate.bytes().any(|b| b.is_ascii_digit()) {
                (&before[..comma], Some(candidate.to_string()))
            } else {
                (before, None)
            }
        }
        None => {
            // "Gloucester GL3 1DL": the whole chunk is the locality when it has no digit; the
            // street is then the field before it (`12 High Street · Bristol BS1 4DJ`).
            if !before.is_empty()
                && !before.bytes().any(|b| b.is_ascii_digit())
                && before.split_whitespace().count() <= 3
            {
                // The segment ends where `whole` does (its end is trimmed already).
                let field_start = whole.len() - before.len();
                (&whole[..field_start], Some(before.to_string()))
            } else {
                (before, None)
            }
        }
    }
}

/// The part of a line after its last field separator (`|`, `•`, `·`, `♦`, ` - `, `:`, `/`).
/// A slash inside a street is no separator: between two house numbers or a door number
/// (`Salzgriesberg 3/II/4-5`, `12/14`) or after a house number (`Morzinplatz 4 /
/// Salzgriesberg 3`, a corner address).
fn last_segment(s: &str) -> &str {
    let in_street = |i: usize| {
        let before = &s[..i];
        let glued_before = before.ends_with(|c: char| c.is_alphanumeric());
        let glued_after = s[i + 1..].starts_with(|c: char| c.is_alphanumeric());
        // `C/ Mayor`: a street type abbreviated as one letter and a slash.
        let abbreviation = before
            .rsplit(|c: char| !c.is_alphanumeric())
            .next()
            .is_some_and(|word| matches!(word, "C" | "c"))
            && !before[..before.len() - 1].ends_with(|c: char| c.is_alphanumeric());
        (glued_before && glued_after)
            || abbreviation
            || before.trim_end().ends_with(|c: char| c.is_ascii_digit())
    };
    let cut = s
        .rmatch_indices(['|', '•', '·', '♦', '■', '/'])
        .find(|(i, m)| *m != "/" || !in_street(*i))
        .map(|(i, m)| i + m.len())
        .into_iter()
        .chain(label_end(s))
        .chain(dash_field_start(s))
        .max()
        .unwrap_or(0);
    s[cut..].trim()
}

/// Where the text after the last label of `s` (`Adresse: `) starts; a house number's mark
/// with a colon (`No: 12`, `Nº: 4`) is no label.
fn label_end(s: &str) -> Option<usize> {
    let i = s.rfind(": ")?;
    let word = s[..i]
        .rsplit(|c: char| c.is_whitespace() || c == ',')
        .next()
        .unwrap_or("");
    let mark = ["no", "nº", "n°", "nr", "no.", "nr."]
        .iter()
        .any(|m| word.eq_ignore_ascii_case(m));
    (!mark).then_some(i + 2)
}

/// Where the last field of `s` starts after a spaced dash used as a field separator
/// (`Exemple SARL - 12 rue des Lilas`): the text after it is a street with its number and the
/// text before it does not end with a number (`Rua das Flores, 123 - Centro` and `1 – 6 Place`
/// are one field).
fn dash_field_start(s: &str) -> Option<usize> {
    let (i, _) = s.rmatch_indices(['-', '–']).find(|(i, m)| {
        s[..*i].ends_with(' ')
            && s[i + m.len()..].starts_with(' ')
            && !s[..*i].trim_end().ends_with(|c: char| c.is_ascii_digit())
    })?;
    let after = i + s[i..].chars().next().map_or(1, char::len_utf8);
    let field = s[after..].trim();
    (is_streetish(field)
        && (field.starts_with(|c: char| c.is_ascii_digit()) || ends_with_house_number(field)))
    .then_some(after)
}

/// The street: the address chunk before the locality on the postcode line, else the street
/// lines above it.
pub(crate) fn street_for(lines: &[&str], index: usize, prefix: &str) -> Option<String> {
    let whole = prefix
        .trim()
        .trim_end_matches([',', '-', '–', '·', '•', '|'])
        .trim_end();
    let segment = last_segment(whole);
    let labelled =
        follows_address_label(&whole[..segment.as_ptr() as usize - whole.as_ptr() as usize]);
    let prefix = last_sentence(segment);
    // Inside a paragraph, a sentence may open with a capitalised word of prose.
    let in_paragraph = segment.len() > PARAGRAPH_BYTES;
    let unlabelled = without_glued_label(strip_label(prefix).trim_matches([',', ' ']));
    let prefix = without_glued_name(without_prose(
        if labelled && places_then_street(unlabelled) {
            unlabelled
        } else {
            without_leading_name(unlabelled)
        },
        in_paragraph,
    ));
    // A street with its house number on the postcode line is the whole street: `12 Main
    // Street` or, the European way, `Szirom u. 27`, `Via G. Verdi, 12`, also with a district
    // or unit after the number (`Rua Sete, 77 - Centro`, `Av. Brasil, 1500 - Sala 2`).
    if is_streetish(prefix)
        && (prefix.starts_with(|c: char| c.is_ascii_digit())
            || (ends_with_house_number(prefix) && has_street_name(prefix))
            || numbered_street_then_more(prefix))
    {
        // The whole line is the street (and town): a premise line above it is part of it.
        let above = (prefix == whole)
            .then(|| index.checked_sub(1).and_then(|i| lines.get(i)))
            .flatten()
            .map(|line| line.trim().trim_end_matches([',', '.']))
            .filter(|line| is_premise_or_unit(line) && !holds_postcode(line));
        return Some(match above {
            Some(premise) => format!("{premise}, {prefix}"),
            None => prefix.to_string(),
        });
    }
    let mut collected: Vec<&str> = Vec::new();
    let mut street_seen = false;
    for back in 1..=MAX_STREET_LINES + 1 {
        let Some(line) = index.checked_sub(back).and_then(|i| lines.get(i)) else {
            break;
        };
        let raw = line.trim();
        let line = strip_label(raw);
        // Above the street line only a premise line (`3rd Floor …`, `Unit 3 …`, `Tour …`)
        // belongs to the street; the business name, a town or a label do not.
        if street_seen {
            let line = line.trim_end_matches([',', '.']);
            if is_premise_or_unit(line) && !holds_postcode(line) {
                collected.push(line);
            }
            break;
        }
        if back > MAX_STREET_LINES {
            break;
        }
        // A bare label line between the street and the postcode (`Postcode:`).
        if line.ends_with(':') && line.len() <= 20 && collected.is_empty() {
            continue;
        }
        if line.is_empty()
            || !is_streetish(line)
            || line.len() > 80
            || holds_postcode(line)
            || ends_with_postcode_and_town(line)
            || is_registration_line(line)
        {
            break;
        }
        collected.push(without_prose(street_line_end(line), false));
        // An address label opens the address (`Adres: Kerkstraat 5`): above it are other
        // fields (opening hours, the name).
        if line.len() < raw.len() {
            break;
        }
        // A line starting with a house number (`12 Main Street`; floor lines such as `6th
        // Floor` also start with a number) or ending with one after a street name
        // (`Kerkstraat 5`) is the street line itself; above it is usually the business name.
        street_seen = (line.starts_with(|c: char| c.is_ascii_digit()) && !is_floor_line(line))
            || (ends_with_house_number(line.trim_end_matches([',', '.'])) && has_street_name(line));
    }
    collected.reverse();
    if is_streetish(prefix) || (!prefix.is_empty() && !collected.is_empty() && prefix.len() < 60) {
        collected.push(prefix);
    }
    (!collected.is_empty()).then(|| collected.join(", "))
}

/// `line` without the commas and full stops that end it, but for the full stop of a street
/// type's abbreviation of the lexicon (class `street.type_abbreviation_dot`: `1234 Sample
/// St.`, `12 Mill Rd.,`, `Örnek Cad.`): pages print it as part of the street, and a street on
/// the postcode's line keeps it.
fn street_line_end(line: &str) -> &str {
    let trimmed = line.trim_end_matches([',', '.']);
    let with_stop = &line[..(trimmed.len() + 1).min(line.len())];
    let last_word = with_stop.rsplit(' ').next().unwrap_or(with_stop);
    if with_stop.ends_with('.')
        && dotted_street_types()
            .iter()
            .any(|t| t.eq_ignore_ascii_case(last_word))
    {
        with_stop
    } else {
        trimmed
    }
}

/// The street types of the lexicon written with a full stop (`St.`, `Rd.`, `Cad.`, `ul.`).
fn dotted_street_types() -> &'static [&'static str] {
    static TYPES: OnceLock<Vec<&'static str>> = OnceLock::new();
    TYPES.get_or_init(|| {
        lexicon::words(lexicon::Class::StreetType)
            .filter(|word| word.ends_with('.'))
            .collect()
    })
}

/// Whether `prefix` opens with a street (class `street.numbered_then_more`): its first
/// comma or dash part holds a street word (`Rua Sete`, `Av. Brasil`), the next part or the
/// same one ends with a house number (`77`, `nº 77`), and a district or unit may follow (`-
/// Centro`, `- Sala 2`). Such a line is the street line itself: the line above it is not
/// read (a name or a registration number there is no part of the street).
fn numbered_street_then_more(prefix: &str) -> bool {
    let mut parts = prefix
        .split([',', '–'])
        .flat_map(|p| p.split(" - "))
        .map(str::trim);
    let Some(first) = parts.next() else {
        return false;
    };
    if !has_street_word_in(first) || is_premise(first) {
        return false;
    }
    let numbered = |part: &str| {
        let part = part.trim_end_matches(['.', ',']);
        ends_with_house_number(part) && part.len() <= 40
    };
    numbered(first)
        || parts.next().is_some_and(|second| {
            let second = second
                .trim_start_matches(['n', 'N', 'º', '°', 'o', '.', ' '])
                .trim();
            !second.is_empty()
                && numbered(second)
                && second.starts_with(|c: char| c.is_ascii_digit())
        })
}

/// Text before a postcode longer than this, in bytes, is a paragraph (a street is shorter).
const PARAGRAPH_BYTES: usize = 80;

/// The last sentence of a long `text` (more than 80 bytes: an address inside a paragraph,
/// `… trading as Acme. Our registered address is 4 …`): the text after the last full stop
/// that ends a word of four letters or more (not an abbreviation: `Av.`, `Str.`, `St.`) and
/// is followed by a space and a capital. Unchanged when shorter or without one.
fn last_sentence(text: &str) -> &str {
    if text.len() <= PARAGRAPH_BYTES {
        return text;
    }
    let cut = text.match_indices(". ").filter_map(|(i, _)| {
        let word = text[..i]
            .rsplit(|c: char| !c.is_alphabetic())
            .next()
            .unwrap_or("");
        let after = text[i + 2..].trim_start();
        (word.chars().count() >= 4 && after.starts_with(char::is_uppercase))
            .then(|| text.len() - after.len())
    });
    cut.last().map_or(text, |at| &text[at..])
}

/// Whether `before` (the text of a line before its last field) ends with an address label of
/// the lexicon and its colon (`Adres:`, `📍 Address:`, `Dirección:`): the field is the address.
fn follows_address_label(before: &str) -> bool {
    let before = before.trim_end();
    if !before.ends_with(':') {
        return false;
    }
    let tail_start = before.char_indices().rev().nth(24).map_or(0, |(i, _)| i);
    let tail = before[tail_start..].to_lowercase();
    address_labels().labels.iter().any(|label| {
        tail.strip_suffix(label.as_str())
            .is_some_and(|head| !head.ends_with(char::is_alphanumeric))
    })
}

/// Whether `prefix` (an address field after its label) is place names, then a street chunk
/// (class `address.district_before_street`: `Deniz, Örnek Cad No:15/1`,
/// `Samplenagar, 100 Feet Road`): the places are a neighbourhood or district printed before the
/// street, part of the street as the page prints it. A chunk with a legal form is the
/// business's name ([`without_leading_name`] reads it).
fn places_then_street(prefix: &str) -> bool {
    let mut places = 0;
    for chunk in prefix.split(',').map(str::trim) {
        if is_place_name(chunk) && !holds_legal_form(chunk) && places < 2 {
            places += 1;
            continue;
        }
        return places > 0 && is_street_chunk(chunk);
    }
    false
}

/// Whether a comma-separated chunk is a street: it opens with a number (`12 Main Street`),
/// holds a street word (`Calle Mayor`) or ends with a house number after a street name
/// (`Lindenweg 3`). Shared by [`without_leading_name`] and [`places_then_street`].
fn is_street_chunk(chunk: &str) -> bool {
    chunk.starts_with(|c: char| c.is_ascii_digit())
        || has_street_word_in(chunk)
        || (ends_with_house_number(chunk) && has_street_name(chunk))
}

/// Whether a word of `text` ends a legal form of the lexicon (`GmbH`, `Ltd.`, `S.L.`).
fn holds_legal_form(text: &str) -> bool {
    let words: Vec<FormWord> = text.split_whitespace().map(FormWord::of).collect();
    (0..words.len()).any(|i| ends_legal_form(&words[..=i]))
}

/// `prefix` without the comma-separated chunks before its first street chunk (one that
/// starts with a number or holds a street word), and without a legal form that opens it:
/// "Schreinerei Vogel GmbH, Lindenweg 3" → "Lindenweg 3", "Clare Bikes, 12 Main Street" →
/// "12 Main Street", "Quillmark Tooling, Inc. 730 North Lock 7 Road" → "730 North Lock 7
/// Road" — an Impressum or contact line names the business first. Unchanged when no chunk is
/// a street.
fn without_leading_name(prefix: &str) -> &str {
    let mut start = 0;
    // The chunk before the current one: its start, and the premise it ends with if any.
    let mut premise: Option<usize> = None;
    let chunks = prefix.split(',').count();
    for (n, chunk) in prefix.split(',').enumerate() {
        let trimmed = chunk.trim();
        // Digits alone, six or more of them, are a registration or tax number, as is a
        // labelled one (`Org.nr 123 456 789`).
        let number = (trimmed.chars().all(|c| c.is_ascii_digit() || c == ' ')
            && trimmed.bytes().filter(u8::is_ascii_digit).count() >= 6)
            || is_registration_line(trimmed);
        // `No. 5`, `Nº 12`: a house number after its mark opens the street.
        let marked = ["no. ", "no ", "nº ", "n° ", "#"].iter().any(|m| {
            trimmed
                .get(..m.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(m))
                && trimmed[m.len()..].starts_with(|c: char| c.is_ascii_digit())
        });
        let street = !number && (marked || is_street_chunk(trimmed));
        if street {
            // A house number alone names no street: the chunks before it do (`Paraje Los
            // Olivos, 7`), also with a floor after it as the last chunk (`San Isidro, 12 bajo`).
            // A marked house number with more chunks after it opens the street the Indian
            // way (`Sample Clinic, #45, 1st Cross, …`, `…, No. 12, Main Road`).
            // A unit or premise word with its number (`Unit 4, Sample Business Park`) opens
            // the street as a premise does (class `address.name_before_premise`: the name
            // before it is the business's); a number and a floor (`24 bajo`) do not.
            let opens_unit =
                !trimmed.starts_with(|c: char| c.is_ascii_digit()) && is_premise_or_unit(trimmed);
            let last = n + 1 == chunks;
            if !has_street_name(trimmed)
                && !opens_unit
                && (!marked || last)
                && (ends_with_house_number(trimmed)
                    || (last && trimmed.starts_with(|c: char| c.is_ascii_digit())))
            {
                return prefix;
            }
            // A premise before the street is part of it (`Tour Horizon, 8 avenue …`); a
            // sentence before the street in its chunk is not.
            let tail = sentence_end(chunk);
            let tail_is_street = tail > 0 && {
                let rest = chunk[tail..].trim();
                rest.starts_with(|c: char| c.is_ascii_digit())
                    || has_street_word_in(rest)
                    || is_premise(rest)
            };
            let from = premise.unwrap_or(start + if tail_is_street { tail } else { 0 });
            let rest = prefix[from..].trim_start();
            return without_legal_form(rest);
        }
        // The premise that ends this chunk, after a sentence before it (`© 2026 Acme. 3rd
        // Floor Mill House`).
        let tail = sentence_end(chunk);
        premise = is_premise_or_unit(&chunk[tail..]).then_some(start + tail);
        start += chunk.len() + 1;
    }
    prefix
}

/// `text` without the business's name or a registration number glued before its street
/// with no comma (`Muster GmbH Lindenweg 3` → `Lindenweg 3`, `KvK 12345678 Kerkstraat 5`,
/// `SIRET 123 456 789 00012 - 12 rue des Lilas`): cut after the last word that ends a legal
/// form (lexicon `legal.form`: `GmbH`, `B.V.`, `s.r.o.`, `S.L.`) or is a number of five
/// digits or more (an identifier, not a house number), when what follows is a street with
/// its house number (`12 rue …`, `Lindenweg 3`). Unchanged otherwise.
fn without_glued_name(text: &str) -> &str {
    let words: Vec<(usize, &str)> = text
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .collect();
    // Each word as the legal forms are compared with it, made once for all the tails.
    let form_words: Vec<FormWord> = words
        .iter()
        .take(words.len().saturating_sub(1))
        .map(|(_, word)| FormWord::of(word))
        .collect();
    for i in (0..words.len().saturating_sub(1)).rev() {
        let (at, word) = words[i];
        if !(is_identifier(word) || ends_legal_form(&form_words[..=i])) {
            continue;
        }
        let rest = text[at + word.len()..]
            .trim_start_matches([' ', ',', ';', '-', '–', '·', '|', ':'])
            .trim_start();
        // (class `street.numbered_then_more` after a name: `Exemplo Ltda - Rua das Flores,
        // 123 - Centro`.)
        let numbered = rest.starts_with(|c: char| c.is_ascii_digit())
            || ends_with_house_number(rest.trim_end_matches([',', '.']))
            || numbered_street_then_more(rest);
        if numbered && is_streetish(rest) && has_street_name(rest) {
            return rest;
        }
    }
    // A street that starts with its house number and has its type within the next words
    // (`12 place de la Mairie`, `1234 Main St`, `12 High Street`) after words that are no
    // premise or unit (`Cabinet Exemple`, `Mon-Fri 9am-5pm`; not `Suite 200`, `Bâtiment B`).
    let is_type = |word: &str| {
        let word = word
            .trim_end_matches([',', '.'])
            .to_lowercase()
            .replace('.', "");
        has_word(&street_words().words, &word)
    };
    let opens = (1..words.len()).find(|&i| {
        let (_, word) = words[i];
        word.bytes().all(|b| b.is_ascii_digit())
            && words[i + 1..].iter().take(3).any(|(_, w)| is_type(w))
    });
    if let Some(i) = opens {
        let (at, _) = words[i];
        let before = text[..at].trim_end();
        let rest = &text[at..];
        // Text that opens with a house number is the street already (`410 North Lake 9 Road`).
        let numbered = before.starts_with(|c: char| c.is_ascii_digit());
        if !numbered && !before.ends_with(',') && !is_premise(before) && has_street_name(rest) {
            // A unit marked with `#` right before the house number is part of the street.
            return match marked_unit_start(before) {
                Some(unit) => &text[unit..],
                None => rest,
            };
        }
    }
    text
}

/// Whether `word` is an identifier (a registration, tax or phone number: `12345678`,
/// `B12345678`, `DE123456789`, `12.345.678/0001-90`): five digits or more with nothing but
/// letters and `.`, `/`, `-` between them.
fn is_identifier(word: &str) -> bool {
    let word = word.trim_end_matches([',', ';', ':']);
    word.bytes().filter(u8::is_ascii_digit).count() >= 5
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '-'))
}

/// Whether the last words of `words` (byte offset, word) are a legal form (lexicon
/// `legal.form`), compared without dots and case (`B.V.` is `BV`, `s.r.o.` is `S.R.O.`); a
/// short form written without dots (`AB`, `AS`, `SA`) only as the lexicon or in capitals.
fn ends_legal_form(words: &[FormWord]) -> bool {
    // Each form's words without dots, lower-case, and its spelling when it is a short one
    // without dots (compared as written or in capitals).
    type Form = (Vec<String>, Option<(&'static str, String)>);
    static FORMS: OnceLock<Vec<Form>> = OnceLock::new();
    let forms = FORMS.get_or_init(|| {
        lexicon::words(Words::LegalForm)
            .map(|form| {
                let parts = form
                    .split_whitespace()
                    .map(|w| w.replace('.', "").to_lowercase())
                    .collect::<Vec<_>>();
                let short = !form.contains(['.', ' ']) && form.len() <= 3;
                (parts, short.then(|| (form, form.to_uppercase())))
            })
            .collect()
    });
    forms.iter().any(|(parts, short)| {
        let Some(tail) = words.len().checked_sub(parts.len()).map(|at| &words[at..]) else {
            return false;
        };
        tail.iter().zip(parts).all(|(word, part)| match short {
            Some((form, upper)) if !word.dotted => word.written == *form || word.written == upper,
            _ => word.folded == part.as_str(),
        })
    })
}

/// A word as [`ends_legal_form`] compares it with the legal forms: without the `,` and `;`
/// at its end, whether it holds a dot, and without dots lower-cased.
struct FormWord<'a> {
    written: &'a str,
    dotted: bool,
    folded: std::borrow::Cow<'a, str>,
}

impl<'a> FormWord<'a> {
    fn of(word: &'a str) -> Self {
        let written = word.trim_end_matches([',', ';']);
        let dotted = written.contains('.');
        // Lower-case ASCII without dots is its own folding: no copy.
        let folded = if !dotted
            && written
                .bytes()
                .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
        {
            std::borrow::Cow::Borrowed(written)
        } else {
            std::borrow::Cow::Owned(written.replace('.', "").to_lowercase())
        };
        FormWord {
            written,
            dotted,
            folded,
        }
    }
}

/// Where the last sentence of `chunk` starts (`© 2026 Acme. 3rd Floor …`): after the last
/// full stop that ends a word of four letters or more that is no street word (not `St.`,
/// `Str.`, `Blvd.`), followed by a space and a capital or a digit; 0 without one.
fn sentence_end(chunk: &str) -> usize {
    chunk
        .match_indices(". ")
        .filter(|(i, _)| {
            let word = chunk[..*i]
                .rsplit(|c: char| !c.is_alphabetic())
                .next()
                .unwrap_or("");
            let after = &chunk[i + 2..];
            word.chars().count() >= 4
                && !has_street_word_in(word)
                && after.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit())
        })
        .last()
        .map_or(0, |(i, _)| i + 2)
}

/// `text` without a legal form that opens it (`Inc. 730 North …`, `Inc. Full 7th Floor, …`): the
/// end of the business name before it.
fn without_legal_form(text: &str) -> &str {
    let Some((first, rest)) = text.split_once(' ') else {
        return text;
    };
    let form = first.trim_end_matches([',', '.']).to_lowercase();
    let is_form = matches!(
        form.as_str(),
        "inc" | "llc" | "ltd" | "gmbh" | "bv" | "b.v" | "sarl" | "sas" | "ag" | "plc" | "corp"
    );
    if is_form && !rest.trim().is_empty() {
        rest.trim_start()
    } else {
        text
    }
}

/// Whether a line holds a postcode of its own (then it ends an address above, it is not part
/// of the street of the address below).
fn holds_postcode(line: &str) -> bool {
    let shapes = Shapes::of(line.as_bytes());
    // Each pattern only where its shape is in the line, as [`match_line`] reads them: the
    // shapes are read in one pass, a pattern's regex is slow.
    [
        (Pattern::Us, shapes.zip_after_state),
        (Pattern::Ca, shapes.letter_digit_letter),
        (Pattern::Au, shapes.postcode_after_au_state),
        (Pattern::Gb, shapes.digit_letters),
        (Pattern::Nl, shapes.four && shapes.digit_letters),
    ]
    .into_iter()
    .any(|(pattern, shaped)| shaped && pattern.is_match(line))
}

/// Whether `line` is a whole address that ends with its postcode and town (class
/// `address.complete_line_above`): a street part, a comma, and a last comma part that is a
/// number of four digits or more and a place name (`Prøvevegen 12, 0150 Oslo`, `Provgatan 3,
/// 411 05 Göteborg`, `…, FI-00100 Helsinki`: one space or hyphen may split the number, a CEPT
/// country prefix may open it), or a place name and a number of five digits or more (`…,
/// Nairobi 00100`). The street of the address below such a line starts below it
/// (`Postboks 123 Sentrum, 0102 Oslo`). A street line alone (`2204 Sample Ave`, no comma) or a
/// unit after the street (`…, Suite 12101`) is none.
fn ends_with_postcode_and_town(line: &str) -> bool {
    let line = line.trim().trim_end_matches([',', '.']);
    let Some((street, last)) = line.rsplit_once(',') else {
        return false;
    };
    let last = last.trim();
    if !last.bytes().any(|b| b.is_ascii_digit()) || !is_streetish(street) || is_premise(last) {
        return false;
    }
    let (digits, rest) = leading_number(last);
    if digits >= 4 && rest.starts_with(' ') && is_place_name(rest) {
        return true;
    }
    last.rsplit_once(' ').is_some_and(|(town, number)| {
        number.len() >= 5 && number.bytes().all(|b| b.is_ascii_digit()) && is_place_name(town)
    })
}

/// The number opening `s` (a CEPT country prefix, `FI-`, skipped; one inner space or hyphen
/// between digit groups allowed: `411 05`): how many digits it has and the text after it.
fn leading_number(s: &str) -> (usize, &str) {
    let letters = s.bytes().take_while(u8::is_ascii_uppercase).count();
    let s = match s.as_bytes().get(letters) {
        Some(b'-') if (1..=3).contains(&letters) => &s[letters + 1..],
        _ => s,
    };
    let first = s.bytes().take_while(u8::is_ascii_digit).count();
    let mut end = first;
    let mut digits = first;
    if first > 0 && matches!(s.as_bytes().get(first), Some(b' ' | b'-')) {
        let more = s[first + 1..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        if more > 0 {
            end = first + 1 + more;
            digits += more;
        }
    }
    (digits, &s[end..])
}

/// Whether `text` holds a word of three letters or more besides its numbers that is not a
/// unit word (the lexicon's `address.unit`: a street name: not a bare number, `Nr. 5` or `Suite 12`).
pub(crate) fn has_street_name(text: &str) -> bool {
    let mut words = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 3);
    words.next().is_some_and(|first| {
        let first = first.to_lowercase();
        !has_word(&street_words().units, &first) && !is_premise_word(&first)
    })
}

/// The lexicon's premise words (class `address.premise`: `floor`, `unit`, `Gebäude`,
/// `étage`, `piso`), lower-case, sorted; built once.
fn premise_words() -> &'static lexicon::SortedWords {
    static WORDS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    WORDS.get_or_init(|| lexicon::sorted_words(&[Words::AddressPremise], str::to_lowercase))
}

/// Whether lower-case `word` is a premise word (class `address.premise`).
fn is_premise_word(word: &str) -> bool {
    has_word(premise_words(), word)
}

/// Whether `text` names a premise written beside a street (class `address.premise`: `3rd
/// Floor The Foundry`, `Unit 3 Palace Court`, `Tour Horizon`, `Gebäude B`, `Edificio Sol`): a
/// short line or chunk (six words at most) holding a premise word, and no label, email or
/// other field.
pub(crate) fn is_premise(text: &str) -> bool {
    let text = text.trim();
    !text.is_empty()
        && text.len() <= 60
        && text.split_whitespace().count() <= 6
        && !text.ends_with(':')
        && !text.contains(['@', ':'])
        && text
            .split(|c: char| !c.is_alphabetic())
            .any(|word| !word.is_empty() && is_premise_word(&word.to_lowercase()))
}

/// Whether `printed` is the street `first` with a premise before or after it, set off by a
/// comma (`600 Main Street` → `600 Main Street, Suite 200`; `6 avenue des Tilleuls` → `Tour
/// Horizon, 6 avenue des Tilleuls`), case ignored: markup often gives the first street line
/// only, the page prints the whole street.
pub(crate) fn adds_premise(first: &str, printed: &str) -> bool {
    let (first, printed) = (first.trim(), printed.trim());
    if printed.len() <= first.len() {
        return false;
    }
    let starts = printed
        .get(..first.len())
        .filter(|head| head.eq_ignore_ascii_case(first))
        .map(|_| &printed[first.len()..]);
    let ends = printed
        .get(printed.len() - first.len()..)
        .filter(|tail| tail.eq_ignore_ascii_case(first))
        .map(|_| &printed[..printed.len() - first.len()]);
    let after = starts.and_then(|rest| rest.trim_start().strip_prefix(','));
    let before = ends.and_then(|rest| rest.trim_end().strip_suffix(','));
    after.or(before).is_some_and(is_premise)
}

/// Whether `line` is a registration or tax number (`ABN 12 345 678 901`, `VAT GB 123 4567
/// 89`, `KvK 12345678`): seven digits or more, a short label at most and no street word. It
/// ends the street lines above a postcode.
fn is_registration_line(line: &str) -> bool {
    let digits = line.bytes().filter(u8::is_ascii_digit).count();
    let letters = line.chars().filter(|c| c.is_alphabetic()).count();
    digits >= 7 && letters <= 12 && !has_street_word_in(line)
}

/// `6th Floor`, `2nd floor`, `3rd Floor The Foundry Rooms`; with another language's ordinal
/// and a premise word (lexicon `address.premise`): `2ème étage`, `1er étage`, `2. Stock`,
/// `2º piso`.
fn is_floor_line(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("").to_lowercase();
    let ordinal = first.trim_start_matches(|c: char| c.is_ascii_digit());
    first.len() > ordinal.len()
        && (matches!(ordinal, "st" | "nd" | "rd" | "th")
            || (matches!(
                ordinal,
                "." | "e" | "er" | "re" | "ème" | "eme" | "è" | "º" | "ª" | "°"
            ) && is_premise(line)))
}

/// `s` without the address label opening it (lexicon class `label.address`, with a colon after
/// it, a space before the colon allowed: `Dirección: Calle Mayor 5`, `Adresse : 3 rue Haute`,
/// `Registered office: 4 Mill Street`); unchanged without one.
fn strip_label(s: &str) -> &str {
    let labels = &address_labels().labels;
    let Some(&first) = s.as_bytes().first() else {
        return s;
    };
    if !address_labels().initials[usize::from(first)] || !s.contains(':') {
        return s;
    }
    for label in labels {
        let word = &label[..label.len() - 1];
        // Case folded char by char: the label's bytes in `s` (its length may differ).
        let mut at = 0;
        let mut wanted = word.chars();
        let mut matched = true;
        for c in s.chars() {
            let Some(w) = wanted.clone().next() else {
                break;
            };
            let mut lower = c.to_lowercase();
            if lower.next() != Some(w) || lower.next().is_some() {
                matched = false;
                break;
            }
            wanted.next();
            at += c.len_utf8();
        }
        if !matched || wanted.next().is_some() {
            continue;
        }
        if let Some(rest) = s[at..].trim_start().strip_prefix(':') {
            return rest.trim();
        }
    }
    s
}

/// A line that can be (part of) a street address: a house number or a street word, and no
/// email, phone label or long prose.
fn is_streetish(s: &str) -> bool {
    let s = s.trim();
    if s.is_empty() || s.len() > 120 || s.contains('@') || s.contains("http") {
        return false;
    }
    let lower = s.to_lowercase();
    // Labels of other fields; those that are also the start of a street word (`call` in
    // `Calle`, `open`) only as whole words.
    let other_field = ["tel", "email", "e-mail", "copyright", "©"]
        .iter()
        .any(|w| lower.starts_with(w))
        || ["phone", "fax", "call", "open", "hours"].iter().any(|w| {
            lower
                .strip_prefix(w)
                .is_some_and(|rest| !rest.starts_with(char::is_alphabetic))
        });
    if other_field {
        return false;
    }
    let has_number = s.bytes().any(|b| b.is_ascii_digit());
    let words = s.split_whitespace().count();
    (has_number && words <= 12) || (words <= 8 && has_street_word(&lower))
}

/// Whether lower-case `lower` holds a street word (`road`, `str`, `avenida`…) or a word with a
/// street suffix (`Musterstraße`, `Keizersgracht`): a piece between characters that are not
/// letters or digits that is a `street.type` or `address.word` of the lexicon, or a word
/// between white space (`,` and `.` at its end dropped) that ends in a `street.suffix` with
/// at least three bytes before it. One pass over `lower`, no allocation.
pub(crate) fn has_street_word(lower: &str) -> bool {
    street_words().in_text(lower)
}

/// [`has_street_word`] of `text` lower-cased (`has_street_word(&text.to_lowercase())`): an
/// ASCII `text` is compared with its letters folded, without the lower-cased copy.
pub(crate) fn has_street_word_in(text: &str) -> bool {
    if text.is_ascii() {
        street_words().in_ascii(text)
    } else {
        street_words()
            .in_lowered(text)
            .unwrap_or_else(|| has_street_word(&text.to_lowercase()))
    }
}

/// The longest text, in bytes, [`StreetWords::in_lowered`] lower-cases on the stack.
const LOWERED_BYTES: usize = 256;

/// The marks of an abbreviation, left out of the lexicon's street words ([`street_words`]):
/// dots (`Str.`) and apostrophes, the geresh of Hebrew abbreviations included (`רח'`, `רח׳`).
/// The text is read in pieces between such marks.
const ABBREVIATION_MARKS: [char; 4] = ['.', '\'', '’', '\u{5f3}'];

/// The lexicon's street words as the address rules compare them (docs/extraction.md,
/// "Lexicon"), lower-case without the marks of an abbreviation (`Str.` → `str`, `רח'` →
/// `רח`), sorted; built once.
struct StreetWords {
    /// `street.type` and `address.word`: the words of a street or address line (`street`,
    /// `rue`, `Sok.`; `suite`, `PO`, `Postbus`).
    words: lexicon::SortedWords,
    /// `address.unit`: words of a unit, floor or box (`suite`, `Etage`, `Postfach`).
    units: lexicon::SortedWords,
    /// The lengths of `words` by first byte: bit `n` (63 for 63 bytes or more) of entry `b`
    /// is set when a word of `n` bytes starts with byte `b`; a piece whose bit is clear is
    /// not looked up.
    word_shapes: [u64; 256],
    /// Whether `words` holds the empty word (a lexicon entry of dots only).
    empty_word: bool,
    /// The first byte, last byte and length of `words` ([`word_key`]): a piece whose bit is
    /// clear is none of them and is not looked up.
    word_keys: BitSet,
    /// `street.suffix` (`Kerkstraat`, `Storgatan`), each written backwards into a trie.
    suffixes: SuffixTrie,
    /// The length in bytes of the shortest suffix (`None` without suffixes): a word shorter
    /// than it and the three bytes before it ends in none.
    shortest_suffix: Option<usize>,
    /// The last two bytes of the suffixes ([`pair_key`]), when every suffix has two or more:
    /// a word whose last two bytes (ASCII letters lower-cased) have their bit clear ends in
    /// none, and the trie is not walked.
    suffix_ends: Option<BitSet>,
}

/// A set of 16-bit keys, a bit each.
struct BitSet(Box<[u64; 1024]>);

impl BitSet {
    fn new() -> Self {
        BitSet(Box::new([0; 1024]))
    }

    fn insert(&mut self, key: u16) {
        self.0[usize::from(key >> 6)] |= 1 << (key & 63);
    }

    fn contains(&self, key: u16) -> bool {
        self.0[usize::from(key >> 6)] & (1 << (key & 63)) != 0
    }
}

/// The key of a street word or a piece of a line in [`StreetWords::word_keys`]: its first and
/// last bytes with their ASCII letters lower-cased, and its length; pieces equal to a word
/// (as written or with ASCII letters lower-cased) have the word's key.
fn word_key(piece: &[u8]) -> u16 {
    let first = piece.first().map_or(0, u8::to_ascii_lowercase);
    let last = piece.last().map_or(0, u8::to_ascii_lowercase);
    let key = u32::from(first) << 8 ^ u32::from(last) ^ (piece.len() as u32).wrapping_mul(0x9e37);
    (key ^ key >> 16) as u16
}

/// The key of the last two bytes `(last, before_last)` of a word or suffix in
/// [`StreetWords::suffix_ends`], ASCII letters lower-cased.
fn pair_key(last: u8, before_last: u8) -> u16 {
    u16::from(last.to_ascii_lowercase()) << 8 | u16::from(before_last.to_ascii_lowercase())
}

/// What the street-word scan does at a character ([`StreetWords::scan`]): a letter or digit
/// goes on with the piece and the word, white space ends both, any other character ends the
/// piece only.
const PIECE: u8 = 0;
/// See [`PIECE`].
const SPACE: u8 = 1;
/// See [`PIECE`].
const OTHER: u8 = 2;

/// [`PIECE`], [`SPACE`] or [`OTHER`] of each ASCII byte, as `char::is_alphanumeric` and
/// `char::is_whitespace` read it (the vertical tab, 0x0B, is white space); the bytes above
/// ASCII open a character the scan classes on its own.
const ASCII_CLASSES: [u8; 128] = {
    let mut classes = [OTHER; 128];
    let mut b = 0;
    while b < 128 {
        let byte = b as u8;
        if byte.is_ascii_alphanumeric() {
            classes[b] = PIECE;
        } else if matches!(byte, b' ' | b'\t'..=b'\r') {
            classes[b] = SPACE;
        }
        b += 1;
    }
    classes
};

/// [`PIECE`], [`SPACE`] or [`OTHER`] of a character.
fn class_of(c: char) -> u8 {
    if c.is_alphanumeric() {
        PIECE
    } else if c.is_whitespace() {
        SPACE
    } else {
        OTHER
    }
}

impl StreetWords {
    /// [`has_street_word`] of `text`.
    fn in_text(&self, text: &str) -> bool {
        self.scan(text, false)
    }

    /// [`Self::in_text`] of `text` lower-cased (`str::to_lowercase`), lower-cased into a
    /// buffer on the stack: `None` (read the lower-cased copy instead) for a text longer
    /// than [`LOWERED_BYTES`] or one holding a character whose lower case is not one
    /// character of its own length, or a capital sigma (whose lower case depends on the
    /// letters around it). ASCII bytes are lower-cased as they are; only the other
    /// characters are decoded.
    fn in_lowered(&self, text: &str) -> Option<bool> {
        let mut buf = [0u8; LOWERED_BYTES];
        let bytes = text.as_bytes();
        let lowered = buf.get_mut(..bytes.len())?;
        let mut at = 0;
        while let Some(&b) = bytes.get(at) {
            if b.is_ascii() {
                lowered[at] = b.to_ascii_lowercase();
                at += 1;
                continue;
            }
            let c = text[at..].chars().next()?;
            let width = c.len_utf8();
            let mut lower = c.to_lowercase();
            match (lower.next(), lower.next()) {
                (Some(l), None) if l.len_utf8() == width && c != 'Σ' => {
                    l.encode_utf8(&mut lowered[at..at + width]);
                }
                _ => return None,
            }
            at += width;
        }
        let lowered = std::str::from_utf8(lowered).ok()?;
        Some(self.scan(lowered, false))
    }

    /// [`Self::in_text`] of an ASCII `text` compared as if lower-cased.
    fn in_ascii(&self, text: &str) -> bool {
        self.scan(text, true)
    }

    /// Whether a piece of `text` is one of `words` or a word of it ends in a suffix (its
    /// ASCII letters lower-cased when `fold`): `text` split at every character that is not a
    /// letter or digit (empty pieces included) and at white space, in one pass. ASCII bytes
    /// are classed by a table; a piece or word is looked up only when its first byte and
    /// length, or its length and last two bytes, can be a word's or a suffix's.
    #[inline(always)]
    fn scan(&self, text: &str, fold: bool) -> bool {
        let bytes = text.as_bytes();
        let mut piece = 0;
        // The start of the word the scan is in: the word so far is `word..at`, none when
        // empty.
        let mut word = 0;
        let mut at = 0;
        while let Some(&b) = bytes.get(at) {
            let (class, width) = match ASCII_CLASSES.get(usize::from(b)) {
                Some(&class) => (class, 1),
                None => match text[at..].chars().next() {
                    Some(c) => (class_of(c), c.len_utf8()),
                    None => break,
                },
            };
            if class != PIECE {
                if self.may_hold_word(&bytes[piece..at], fold) {
                    return true;
                }
                piece = at + width;
                if class == SPACE {
                    if at > word && self.may_end_in_suffix(&bytes[word..at], fold) {
                        return true;
                    }
                    word = at + width;
                }
            }
            at += width;
        }
        self.may_hold_word(&bytes[piece..], fold)
            || (bytes.len() > word && self.may_end_in_suffix(&bytes[word..], fold))
    }

    /// [`Self::holds_word`] of `piece`, its first byte and length tested inline first: most
    /// pieces of a line are turned away there.
    #[inline(always)]
    fn may_hold_word(&self, piece: &[u8], fold: bool) -> bool {
        match piece.first() {
            None => self.empty_word,
            Some(&first) => {
                let first = if fold {
                    first.to_ascii_lowercase()
                } else {
                    first
                };
                self.word_shapes[usize::from(first)] & (1 << piece.len().min(63)) != 0
                    && self.holds_word(piece, fold)
            }
        }
    }

    /// [`Self::ends_in_suffix`] of `word`, its length and last two bytes (`,` and `.` at its
    /// end dropped) tested inline first: most words of a line are turned away there.
    #[inline(always)]
    fn may_end_in_suffix(&self, word: &[u8], fold: bool) -> bool {
        let mut len = word.len();
        while len > 0 && matches!(word[len - 1], b',' | b'.') {
            len -= 1;
        }
        let Some(shortest) = self.shortest_suffix else {
            return false;
        };
        if len < shortest + 3 {
            return false;
        }
        if let (Some(ends), [.., before_last, last]) = (&self.suffix_ends, &word[..len]) {
            if !ends.contains(pair_key(*last, *before_last)) {
                return false;
            }
        }
        self.ends_in_suffix(word, fold)
    }

    /// Whether `piece` is one of `words` (its ASCII letters lower-cased when `fold`).
    #[inline(never)]
    fn holds_word(&self, piece: &[u8], fold: bool) -> bool {
        let Some(&first) = piece.first() else {
            return self.empty_word;
        };
        let first = if fold {
            first.to_ascii_lowercase()
        } else {
            first
        };
        if self.word_shapes[usize::from(first)] & (1 << piece.len().min(63)) == 0
            || !self.word_keys.contains(word_key(piece))
        {
            return false;
        }
        self.words
            .binary_search_by(|probe| {
                if fold {
                    probe.bytes().cmp(piece.iter().map(u8::to_ascii_lowercase))
                } else {
                    probe.as_bytes().cmp(piece)
                }
            })
            .is_ok()
    }

    /// Whether `word` without the `,` and `.` at its end ends in a suffix with at least three
    /// bytes before it (its ASCII letters lower-cased when `fold`).
    #[inline(never)]
    fn ends_in_suffix(&self, word: &[u8], fold: bool) -> bool {
        // `Storgt.`: a suffix abbreviated with a dot.
        let cut = word.iter().rposition(|b| !matches!(b, b',' | b'.'));
        let word = &word[..cut.map_or(0, |last| last + 1)];
        // A suffix needs three bytes before it; the last two bytes of a word that ends in one
        // are the suffix's.
        match self.shortest_suffix {
            Some(shortest) if word.len() >= shortest + 3 => {}
            _ => return false,
        }
        if let (Some(ends), [.., before_last, last]) = (&self.suffix_ends, word) {
            if !ends.contains(pair_key(*last, *before_last)) {
                return false;
            }
        }
        let mut node = 0;
        let mut depth = 0;
        // The shortest suffix of `word` in the trie is the first met; only one with at least
        // three bytes before it counts.
        while depth + 2 < word.len() {
            if self.suffixes.nodes[node].end {
                return true;
            }
            let byte = word[word.len() - 1 - depth];
            let byte = if fold {
                byte.to_ascii_lowercase()
            } else {
                byte
            };
            match self.suffixes.next(node, byte) {
                Some(next) => node = next,
                None => return false,
            }
            depth += 1;
        }
        false
    }
}

/// Words written backwards into a trie: a suffix test reads a word from its last byte and
/// stops at the first byte no suffix has there.
struct SuffixTrie {
    /// The root first.
    nodes: Vec<SuffixNode>,
}

/// A node of a [`SuffixTrie`].
#[derive(Default)]
struct SuffixNode {
    /// Whether the bytes from the root to here, read backwards, are a whole suffix.
    end: bool,
    /// The byte before and the node it leads to.
    next: Vec<(u8, usize)>,
}

impl SuffixTrie {
    fn new<'a>(suffixes: impl IntoIterator<Item = &'a str>) -> Self {
        let mut nodes = vec![SuffixNode::default()];
        for suffix in suffixes {
            let mut node = 0;
            for &byte in suffix.as_bytes().iter().rev() {
                node = match nodes[node].next.iter().find(|(b, _)| *b == byte) {
                    Some(&(_, next)) => next,
                    None => {
                        nodes.push(SuffixNode::default());
                        let next = nodes.len() - 1;
                        nodes[node].next.push((byte, next));
                        next
                    }
                };
            }
            nodes[node].end = true;
        }
        SuffixTrie { nodes }
    }

    /// The node `byte` leads to from `node`.
    fn next(&self, node: usize, byte: u8) -> Option<usize> {
        self.nodes[node]
            .next
            .iter()
            .find(|(b, _)| *b == byte)
            .map(|&(_, next)| next)
    }
}

fn street_words() -> &'static StreetWords {
    static WORDS: OnceLock<StreetWords> = OnceLock::new();
    WORDS.get_or_init(|| {
        let read = |classes: &[lexicon::Class]| {
            lexicon::sorted_words(classes, |word| {
                word.to_lowercase().replace(ABBREVIATION_MARKS, "")
            })
        };
        let words = read(&[lexicon::Class::StreetType, lexicon::Class::AddressWord]);
        let mut word_shapes = [0u64; 256];
        let mut word_keys = BitSet::new();
        for word in &words {
            if let Some(&first) = word.as_bytes().first() {
                word_shapes[usize::from(first)] |= 1 << word.len().min(63);
                word_keys.insert(word_key(word.as_bytes()));
            }
        }
        let suffixes = read(&[lexicon::Class::StreetSuffix]);
        let shortest_suffix = suffixes.iter().map(String::len).min();
        let suffix_ends = shortest_suffix.filter(|&n| n >= 2).map(|_| {
            let mut ends = BitSet::new();
            for suffix in &suffixes {
                if let [.., before_last, last] = suffix.as_bytes() {
                    ends.insert(pair_key(*last, *before_last));
                }
            }
            ends
        });
        StreetWords {
            empty_word: words.iter().any(String::is_empty),
            word_shapes,
            word_keys,
            words,
            suffixes: SuffixTrie::new(suffixes.iter().map(String::as_str)),
            shortest_suffix,
            suffix_ends,
            units: read(&[lexicon::Class::AddressUnit]),
        }
    })
}

/// Whether the sorted `words` hold `word` ([`lexicon::holds`]).
fn has_word(words: &lexicon::SortedWords, word: &str) -> bool {
    lexicon::holds(words, word)
}

/// `text` without an address label glued before the street without a colon (`Adresse
/// Lindenweg 3`, `Address 4 Mill Street`: lexicon class `label.address`, one word). Unchanged
/// otherwise, and when the label is also a unit word (`address.unit`: `Office`) with its
/// number alone before a comma (class `address.unit_not_label`: `Office 4, Sample House, …`,
/// `Office No. 301, …`): that is the unit, part of the street.
fn without_glued_label(text: &str) -> &str {
    static LABELS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    let labels = LABELS.get_or_init(|| {
        lexicon::SortedWords::from_words(
            lexicon::words(Words::LabelAddress)
                .filter(|w| !w.contains(' '))
                .map(str::to_lowercase)
                .collect(),
        )
    });
    match text.split_once(' ') {
        Some((first, rest))
            if !rest.trim().is_empty()
                && labels.binary_search(&first.to_lowercase()).is_ok()
                && !is_unit_number(first, rest) =>
        {
            rest.trim_start()
        }
        _ => text,
    }
}

/// Where the unit number marked with `#` that ends `text` starts, a dash after it or not
/// (class `address.marked_unit`, the Canadian way of printing a suite before the house
/// number: `#200 - 1234 Sample Street`, `Sample Clinic #200 1234 Sample Street`, `#5 - 1234 rue
/// Exemple`). `None` when `text` does not end with one.
fn marked_unit_start(text: &str) -> Option<usize> {
    let text = text.trim_end_matches(['-', '–', ' ']);
    let start = text.rfind(' ').map_or(0, |space| space + 1);
    let number = text[start..].strip_prefix('#')?;
    (number.starts_with(|c: char| c.is_ascii_digit())
        && number.len() <= 6
        && number.bytes().all(|b| b.is_ascii_alphanumeric()))
    .then_some(start)
}

/// Whether `text` is a premise ([`is_premise`]) or a unit word with its number alone (class
/// `address.unit_not_label`: `Office 4`, `Office No. 301`; `Office` alone heads a block, as
/// in `Head Office`, and is no premise).
fn is_premise_or_unit(text: &str) -> bool {
    is_premise(text)
        || text
            .trim()
            .split_once(' ')
            .is_some_and(|(word, rest)| is_unit_number(word, rest))
}

/// Whether `word` is a unit word (`address.unit`: `Office`, `Suite`) and `rest` opens with its
/// number alone before a comma or the end (`4, Sample House`, `No. 301, Sample Tower`).
fn is_unit_number(word: &str, rest: &str) -> bool {
    let number = rest.split(',').next().unwrap_or("").trim();
    let number = ["no.", "no", "nº", "n°", "#"]
        .iter()
        .find_map(|mark| {
            number
                .get(..mark.len())
                .filter(|head| head.eq_ignore_ascii_case(mark))
                .map(|_| number[mark.len()..].trim_start())
        })
        .unwrap_or(number);
    has_word(&street_words().units, &word.to_lowercase())
        && number.starts_with(|c: char| c.is_ascii_digit())
        && number
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '/'))
}

pub(crate) fn clean_city(city: &str) -> String {
    let city = city.trim().trim_matches([',', '.', ' ']);
    // `Berlin Telefon`: a phone or email label glued after the town ends it, as does the
    // label of another field after a full stop (class `address.field_after`: `Stockholm.
    // Org.nr …`).
    let city = match city.split_whitespace().position(is_field_label) {
        Some(0) | None => city,
        Some(i) => {
            let cut = city
                .split_whitespace()
                .nth(i)
                .map_or(city.len(), |w| w.as_ptr() as usize - city.as_ptr() as usize);
            city[..cut].trim_end_matches([',', '.', ' '])
        }
    };
    // "Suite 7 Concord" → "Concord": keep the words after the last digit-bearing word.
    let words: Vec<&str> = city.split_whitespace().collect();
    let start = words
        .iter()
        .rposition(|w| w.bytes().any(|b| b.is_ascii_digit()))
        .map_or(0, |i| i + 1);
    words[start..].join(" ")
}

/// A country printed right after the postcode (`94539 USA`).
pub(crate) fn country_after(after: &str) -> Option<String> {
    let after = after
        .trim_start()
        .trim_start_matches([',', '.'])
        .trim_start();
    for country in [
        "United States of America",
        "United States",
        "USA",
        "U.S.A.",
        "United Kingdom",
        "UK",
        "England",
        "Scotland",
        "Wales",
        "Canada",
        "Australia",
        "Nederland",
        "The Netherlands",
        "Netherlands",
        "Deutschland",
        "Germany",
        "Ireland",
        "France",
        "Italia",
        "Italy",
        "Schweiz",
        "Switzerland",
        "Sverige",
        "Sweden",
        "Portugal",
        "España",
        "Spain",
        "Belgium",
        "België",
        "Belgique",
        "Österreich",
        "Austria",
    ] {
        if let Some(rest) = after.strip_prefix(country) {
            if !rest.starts_with(|c: char| c.is_alphanumeric()) {
                return Some(country.to_string());
            }
        }
    }
    None
}

/// The ISO region an address's country field names, if it is recognisable.
pub fn region_of_country(country: &str) -> Option<&'static str> {
    region_of_lower_case_country(&country.trim().to_lowercase())
}

/// [`region_of_country`] of a name already trimmed and lower-cased.
fn region_of_lower_case_country(c: &str) -> Option<&'static str> {
    Some(match c {
        "us" | "usa" | "u.s.a." | "united states" | "united states of america" => "US",
        "gb" | "uk" | "united kingdom" | "england" | "scotland" | "wales" | "great britain" => "GB",
        "ca" | "canada" => "CA",
        "au" | "australia" => "AU",
        "nl" | "nederland" | "netherlands" | "the netherlands" => "NL",
        "de" | "deutschland" | "germany" => "DE",
        "ie" | "ireland" => "IE",
        "fr" | "france" => "FR",
        "it" | "italia" | "italy" => "IT",
        "ch" | "schweiz" | "switzerland" | "suisse" => "CH",
        "se" | "sverige" | "sweden" => "SE",
        "pt" | "portugal" => "PT",
        "es" | "españa" | "spain" => "ES",
        "be" | "belgium" | "belgië" | "belgique" => "BE",
        "at" | "österreich" | "austria" => "AT",
        "nz" | "new zealand" => "NZ",
        // Names in the countries' own languages that differ from the English names of the
        // address data (which `country_named` also reads).
        "brasil" => "BR",
        "méxico" => "MX",
        "danmark" => "DK",
        "norge" => "NO",
        "suomi" => "FI",
        "polska" => "PL",
        "česká republika" | "česko" => "CZ",
        "slovensko" => "SK",
        "türkiye" => "TR",
        "ísland" => "IS",
        "bharat" | "india" => "IN",
        "singapore" => "SG",
        "uae" | "u.a.e." => "AE",
        "south africa" => "ZA",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    #[test]
    fn every_field_separator_opens_with_a_byte_the_line_of_fields_prefilter_counts() {
        for separator in FIELD_SEPARATORS {
            let mut utf8 = [0u8; 4];
            let first = separator.encode_utf8(&mut utf8).as_bytes()[0];
            assert!([b'|', 0xC2, 0xE2].contains(&first), "{separator}");
        }
        // Lines of fields with each kind of separator still reach the reader.
        for separator in FIELD_SEPARATORS {
            let line =
                format!("Beispiel GmbH {separator} Beispielweg 14 {separator} 04109 Leipzig");
            let read = read_as_field_lines(&[&line], 0, &line, Some("DE"));
            assert!(read.is_some_and(|found| found.len() == 1), "{line}");
        }
    }

    /// [`has_street_word`] read the plain way, to hold the one-pass reading to: every piece
    /// looked up in the sorted words, every word compared with every suffix.
    fn has_street_word_plain(lower: &str) -> bool {
        static TABLES: OnceLock<(lexicon::SortedWords, lexicon::SortedWords)> = OnceLock::new();
        let (words, suffixes) = TABLES.get_or_init(|| {
            let read = |classes: &[Words]| {
                lexicon::sorted_words(classes, |word| {
                    word.to_lowercase().replace(ABBREVIATION_MARKS, "")
                })
            };
            (
                read(&[Words::StreetType, Words::AddressWord]),
                read(&[Words::StreetSuffix]),
            )
        });
        lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| lexicon::holds(words, w))
            || lower.split_whitespace().any(|w| {
                let w = w.trim_end_matches([',', '.']);
                suffixes
                    .iter()
                    .any(|suf| w.ends_with(suf.as_str()) && w.len() > suf.len() + 2)
            })
    }

    /// Asserts the one-pass street-word test of `text`, lower-cased and as written, equals the
    /// plain reading of `text` lower-cased.
    fn assert_street_word_as_plain(text: &str) {
        let lower = text.to_lowercase();
        let plain = has_street_word_plain(&lower);
        assert_eq!(has_street_word(&lower), plain, "{lower:?}");
        assert_eq!(has_street_word_in(text), plain, "{text:?}");
    }

    /// The street.type, address.word and street.suffix entries of the lexicon, as written.
    fn street_entries() -> Vec<&'static str> {
        [Words::StreetType, Words::AddressWord, Words::StreetSuffix]
            .iter()
            .flat_map(|class| lexicon::words(*class))
            .collect()
    }

    #[test]
    fn the_street_word_test_reads_every_entry_in_every_context_as_the_plain_reading() {
        let before = [
            "", "a", "ab", "abc", "Muster", "12 ", "x-", "é", "Ö", "ab.", " ",
        ];
        let after = [
            "", ".", ",", ".,", " 12", "-x", "s", "ß", " ", "\u{a0}", "\u{b}",
        ];
        let mut cases = 0;
        for entry in street_entries() {
            let spellings = [
                entry.to_string(),
                entry.to_uppercase(),
                entry.replace('.', ""),
                entry.chars().rev().collect(),
            ];
            for spelling in &spellings {
                for (b, a) in before
                    .iter()
                    .flat_map(|b| after.iter().map(move |a| (b, a)))
                {
                    assert_street_word_as_plain(&format!("{b}{spelling}{a}"));
                    cases += 1;
                }
            }
        }
        assert!(cases > 1_000, "{cases}");
    }

    #[test]
    fn the_street_word_test_reads_long_and_accented_lines_as_the_plain_reading() {
        // Beyond the stack buffer's length, with letters beyond ASCII before and after the
        // entry, and with punctuation beyond ASCII (`’`, `–`, a no-break space) around it.
        let pads = [
            "x ".repeat(140),
            "é ".repeat(90),
            "Ö,".repeat(70),
            "Ünter ".to_string(),
            "’–\u{a0}".to_string(),
            "\u{2003}".to_string(),
        ];
        for entry in street_entries() {
            for pad in &pads {
                assert_street_word_as_plain(&format!("{pad}{entry}"));
                assert_street_word_as_plain(&format!("{entry}{pad}"));
                assert_street_word_as_plain(&format!("Ä{entry} {pad}"));
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn the_street_word_test_reads_any_line_as_the_plain_reading(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(street_entries()).prop_map(str::to_string),
                    "[a-zA-Z0-9ßẞİΣσäÄ .,:/'\\-\u{b}\u{a0}\u{3000}]{0,5}",
                ],
                0..8,
            ),
            upper in proptest::bool::ANY,
        ) {
            let line = parts.concat();
            let line = if upper { line.to_uppercase() } else { line };
            assert_street_word_as_plain(&line);
        }
    }

    /// [`country_named`] as it read before its run of letters was bounded: the whole run,
    /// to hold the bounded reading to.
    fn country_named_plain(after: &str) -> Option<&'static str> {
        let rest = after.trim_start_matches([' ', ',', '.', '-', '(', '\u{a0}']);
        let word_end = rest
            .find(|c: char| !(c.is_alphabetic() || c == ' '))
            .unwrap_or(rest.len());
        let words = rest[..word_end].trim().trim_end_matches('.');
        if words.is_empty() {
            return None;
        }
        region_of_country(words).or_else(|| postcode::country_of_name(&fold_accents(words)))
    }

    /// Every country name of the data and of [`region_of_lower_case_country`], as written,
    /// in capitals and with a long run of letters before or after it.
    fn country_name_cases() -> Vec<String> {
        let mut names: Vec<String> = postcode::formats()
            .iter()
            .map(|f| f.name.to_string())
            .collect();
        names.extend(
            [
                "united states of america",
                "česká republika",
                "méxico",
                "türkiye",
                "españa",
            ]
            .map(String::from),
        );
        let long = "Sample words of a long sentence running on ".repeat(2);
        let mut cases = Vec::new();
        for name in names {
            for spelling in [name.clone(), name.to_uppercase(), name.to_lowercase()] {
                for (before, after) in [
                    ("", ""),
                    (", ", "."),
                    (" ", "   "),
                    ("(", " 12"),
                    ("", &*long),
                    (&*long, ""),
                    ("- ", "ß"),
                ] {
                    cases.push(format!("{before}{spelling}{after}"));
                }
            }
        }
        cases
    }

    #[test]
    fn country_names_read_within_their_length_as_the_whole_run() {
        let cases = country_name_cases();
        for case in &cases {
            assert_eq!(country_named(case), country_named_plain(case), "{case:?}");
        }
        let named = cases.iter().filter(|c| country_named(c).is_some()).count();
        assert!(named > 500, "{named}");
    }

    /// [`ends_legal_form`] as it read before its words were folded once: every form compared
    /// with the words as written.
    fn ends_legal_form_plain(words: &[(usize, &str)]) -> bool {
        lexicon::words(Words::LegalForm).any(|form| {
            let parts = form
                .split_whitespace()
                .map(|w| w.replace('.', "").to_lowercase())
                .collect::<Vec<_>>();
            let short = (!form.contains(['.', ' ']) && form.len() <= 3).then_some(form);
            let Some(tail) = words.len().checked_sub(parts.len()).map(|at| &words[at..]) else {
                return false;
            };
            tail.iter().zip(&parts).all(|((_, word), part)| {
                let word = word.trim_end_matches([',', ';']);
                match short {
                    Some(form) if !word.contains('.') => {
                        word == form || word == form.to_uppercase()
                    }
                    _ => word.replace('.', "").to_lowercase() == *part,
                }
            })
        })
    }

    /// Asserts [`ends_legal_form`] of every tail of the words of `text` is the plain reading.
    fn assert_legal_form_as_plain(text: &str) -> usize {
        let words: Vec<(usize, &str)> = text
            .split_whitespace()
            .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
            .collect();
        let form_words: Vec<FormWord> = words.iter().map(|(_, w)| FormWord::of(w)).collect();
        let mut found = 0;
        for i in 0..words.len() {
            let plain = ends_legal_form_plain(&words[..=i]);
            assert_eq!(ends_legal_form(&form_words[..=i]), plain, "{text:?} {i}");
            found += usize::from(plain);
        }
        found
    }

    #[test]
    fn legal_forms_read_from_words_folded_once_as_from_the_words() {
        let mut found = 0;
        for form in lexicon::words(Words::LegalForm) {
            for spelling in [
                form.to_string(),
                form.to_uppercase(),
                form.to_lowercase(),
                form.replace('.', ""),
                form.replace('.', "").to_uppercase(),
                format!("{form},"),
                format!("{form};"),
                format!("x{form}"),
            ] {
                for text in [
                    spelling.clone(),
                    format!("Muster {spelling} Lindenweg 3"),
                    format!("Ejemplo {spelling}, 12 rue des Lilas"),
                ] {
                    found += assert_legal_form_as_plain(&text);
                }
            }
        }
        assert!(found > 300, "{found}");
    }

    #[test]
    fn postcode_labels_of_text_beyond_ascii_read_from_the_end_as_from_the_whole_text() {
        let long = "Ünïcödé wörds of a long line before it ".repeat(3);
        for before in [
            "Código postal ",
            "CÓDIGO POSTAL: ",
            "Calle Ñandú 4, C.P. ",
            "Praha, PSČ ",
            "PSČ",
            "〒",
            "東京都〒",
            "Straße 5, Postcode ",
            "Straße 5, xpostcode ",
            "ΟΔΟΣ 5, ",
            "Σ postcode ",
            "İstanbul ",
            "İ postcode ",
            "K postcode ",
            "Ω cep ",
            "ẞ pin code ",
            "Ölstraße ",
            "Überlangeswortohneende",
            "é",
            "",
        ] {
            for text in [
                before.to_string(),
                format!("{long}{before}"),
                format!("{before}{long}"),
            ] {
                let whole = text
                    .trim_end_matches([' ', ':', '-', '–', '\u{a0}'])
                    .to_lowercase();
                let plain = if whole.len()
                    == text.trim_end_matches([' ', ':', '-', '–', '\u{a0}']).len()
                {
                    label_ending_plain(&whole)
                } else {
                    None
                };
                assert_eq!(postcode_label(&text), plain, "{text}");
            }
        }
    }

    /// [`label_ending`] without its tables of lengths and last bytes: every postcode name
    /// and label compared.
    fn label_ending_plain(lower: &str) -> Option<(usize, Option<&'static str>)> {
        let word_start = lower.rfind(|c: char| !c.is_alphanumeric()).map_or(0, |i| {
            i + lower[i..].chars().next().map_or(1, char::len_utf8)
        });
        let named = postcode::label_country(&lower[word_start..]);
        if named.is_some() {
            return Some((word_start, named));
        }
        POSTCODE_LABELS.iter().find_map(|(label, country)| {
            let start = lower.strip_suffix(label).map(str::len)?;
            let glued = lower[..start].ends_with(char::is_alphanumeric);
            (!glued).then_some((start, *country))
        })
    }

    /// [`is_copyright_mark`] with the whole text lower-cased.
    fn is_copyright_mark_plain(before: &str) -> bool {
        let end = before.trim_end().to_lowercase();
        end.ends_with('©') || end.ends_with("(c)") || end.ends_with("copyright")
    }

    /// [`ends_with_number_mark`] with the whole text lower-cased.
    fn ends_with_number_mark_plain(before: &str) -> bool {
        let lower = before.trim_end().to_lowercase();
        NUMBER_MARKS.iter().any(|m| {
            lower
                .strip_suffix(m)
                .is_some_and(|rest| !rest.ends_with(char::is_alphanumeric))
        })
    }

    #[test]
    fn house_number_marks_and_copyright_marks_read_from_the_end_as_from_the_whole_text() {
        let long = "Ünïcödé wörds of a long line ".repeat(3);
        let mut marked = 0;
        for before in [
            "No. ",
            "NO ",
            "Nr.",
            "nº ",
            "N° ",
            "Núm. ",
            "NÚM. ",
            "xno ",
            "Calle 5 nr ",
            "©",
            "(C) ",
            "Copyright ",
            "COPYRIGHT",
            "xcopyright ",
            "Σno ",
            "ΣNo. ",
            "İno ",
            "\u{212a}nr ",
            "ẞ(c) ",
            "",
            "12 ",
        ] {
            for text in [
                before.to_string(),
                format!("{long}{before}"),
                format!("Σ{before}"),
            ] {
                assert_eq!(
                    is_copyright_mark(&text),
                    is_copyright_mark_plain(&text),
                    "{text}"
                );
                let plain = ends_with_number_mark_plain(&text);
                assert_eq!(ends_with_number_mark(&text), plain, "{text}");
                marked += usize::from(plain);
            }
        }
        assert!(marked >= 20, "{marked}");
        // Every mark, in either case, after a word and alone.
        for mark in NUMBER_MARKS {
            for text in [
                mark.to_string(),
                mark.to_uppercase(),
                format!("Calle 5 {} ", mark.to_uppercase()),
            ] {
                assert!(ends_with_number_mark_plain(&text), "{text}");
                assert!(ends_with_number_mark(&text), "{text}");
            }
        }
    }

    /// [`data_postcodes`] as it read before its tokens were passed by what no country's
    /// format validates (and its look-ups were made cheaper): every token's label and
    /// countries read, to hold the faster reading to.
    fn data_postcodes_plain(
        lines: &[&str],
        index: usize,
        line: &str,
        street_index: usize,
        page_region: Option<&str>,
    ) -> Vec<TextAddress> {
        let page_format = page_region
            .filter(|r| !HAND_READ.contains(r))
            .and_then(postcode::format);
        let mut found = Vec::new();
        let tokens: Vec<_> = zip_tokens(line).collect();
        if tokens.is_empty() {
            return found;
        }
        // The country the line's last comma-separated part names: the same for every candidate.
        let last_part_country = country_named(line.rsplit(',').next().unwrap_or(""));
        let countries = std::cell::RefCell::new(LineCountries::new(line));
        for (start, ends) in tokens {
            if let Some(boxed) = box_postcode(lines, index, line, start, &ends, page_format) {
                found.push(boxed);
                continue;
            }
            let before = &line[..start];
            let label = postcode_label(before);
            let labelled_country = label.and_then(|(_, c)| c).and_then(postcode::format);
            // The country named elsewhere in the line ([`country_in_line`]), read only when the
            // formats before it in the order below validate nothing.
            let mut in_line_country = None;
            let mut in_line = || {
                *in_line_country.get_or_insert_with(|| {
                    last_part_country
                        .or_else(|| countries.borrow_mut().named(part_before(line, start)))
                        .and_then(postcode::format)
                })
            };
            let valid =
                |f: Option<&postcode::Format>, zip: &str| f.is_some_and(|f| f.validates(zip));
            // The longest token that is a postcode of the page's region, of the country named
            // after it, of one named in the line or of its label's.
            let mut chosen = None;
            for &end in &ends {
                let zip = &line[start..end];
                let named = countries
                    .borrow_mut()
                    .named(&line[end..])
                    .and_then(postcode::format);
                if valid(page_format, zip)
                    || valid(named, zip)
                    || valid(in_line(), zip)
                    || valid(labelled_country, zip)
                {
                    chosen = Some((end, named));
                    break;
                }
            }
            let Some((end, named)) = chosen else {
                continue;
            };
            let zip = &line[start..end];
            if is_part_of_other_number(line, start, end) {
                continue;
            }
            let after = &line[end..];
            let Some(format) = [page_format, named, labelled_country]
                .into_iter()
                .flatten()
                .find(|f| f.validates(zip))
                .or_else(|| in_line().filter(|f| f.validates(zip)))
            else {
                continue;
            };
            let layout = format.layout();
            // Without a label, only the layouts that print the postcode after the locality (the
            // other layout is read by the patterns above).
            if label.is_none() && !matches!(layout, Layout::ZipAfter | Layout::ZipLine) {
                continue;
            }
            // A label before the postcode and the town after it (`C.P. 06000, Ciudad Ejemplo,
            // CDMX`): `extract::postcode_places`.
            let town_after = label
                .filter(|_| !ends_address(after, format))
                .and_then(|_| postcode_places::places_after(after, PLACE_TESTS));
            let sentence_end = || postcode_places::ends_sentence(after);
            if town_after.is_none() && !ends_address(after, format) && !sentence_end() {
                continue;
            }
            let before = label.map_or(before, |(label_start, _)| &before[..label_start]);
            let alone = before.trim().is_empty();
            // `80020-310` or `CEP 80020-310` on its line: the locality is the line above, the
            // street above it (or above a district line, [`street_over_district`]).
            // A region named with its mark on the line between (`Львів` / `Львівська область` /
            // `79000`, Google's `%C%n%S%n%Z`): the town is on the line above it.
            let region_line = index
                .checked_sub(1)
                .and_then(|i| lines.get(i))
                .filter(|line| alone && street_index >= 2 && is_marked_region(line));
            let skip = usize::from(region_line.is_some());
            let above = index
                .checked_sub(1 + skip)
                .and_then(|i| lines.get(i))
                .filter(|_| alone && street_index > skip)
                .map(|above| (above, places_before(above, format)))
                .filter(|(_, (_, locality, _))| locality.is_some());
            let (street, locality, region) = if let Some((town, state)) = town_after {
                (street_for(lines, street_index, before), Some(town), state)
            } else if let Some((above, (place_start, locality, region))) = above {
                let street_at = street_index - 1 - skip;
                let street = street_for(lines, street_at, &above[..place_start]).or_else(|| {
                    (above[..place_start].trim().is_empty())
                        .then(|| street_over_district(lines, street_at, format))
                        .flatten()
                });
                let region = region.or_else(|| region_line.map(|r| r.trim().to_string()));
                (street, locality, region)
            } else if alone && label.is_none() {
                continue;
            } else {
                let (place_start, locality, region) = places_before(before, format);
                let street =
                    street_for(lines, street_index, &before[..place_start]).or_else(|| {
                        (locality.is_some() && before[..place_start].trim().is_empty())
                            .then(|| street_over_district(lines, street_index, format))
                            .flatten()
                    });
                (street, locality, region)
            };
            if label.is_none() && (street.is_none() || locality.is_none()) {
                continue;
            }
            let (street, locality, region) = match region {
                None => town_before_marked_region(street, locality),
                region => (street, locality, region),
            };
            found.push(TextAddress {
                parts: MarkedAddress {
                    street,
                    locality,
                    region,
                    postal_code: Some(zip.to_string()),
                    country: country_after(after),
                },
                region: format.code,
                line: index,
            });
        }
        found
    }

    /// Lines around postcodes of the layouts [`data_postcodes`] reads, with labels, countries
    /// named before and after, boxes and numbers that are no postcode.
    const DATA_POSTCODE_LINES: &[&str] = &[
        "Exemplo Comercial Ltda",
        "Rua Exemplo, 123 - Sala 4",
        "Centro, Curitiba - PR",
        "80020-310",
        "CEP 80020-310",
        "Plot 12, Sample Road, Chennai 600 042, India",
        "Door 5, Example Street, Chennai 600042",
        "Col. Centro C.P. 06000, Ciudad Ejemplo, CDMX",
        "Calle Ejemplo 45, Col. Centro, 06600 Ciudad de México, México",
        "P.O. Box 12345-00100, Nairobi",
        "S.L.P. 12345-00100",
        "Nairobi, Kenya",
        "10 Example Road, Singapore 049321",
        "Call 0123 456 789 or 2026 from 9-17, 12 items for 1500",
        "PIN: 400001, Mumbai",
        "Вулиця Прикладна, 10",
        "Львів",
        "Львівська область",
        "79000",
        "Ünïcödé straße 5, 12345 Ort, Deutschland",
        "İstanbul Cad. 10, 34000 İstanbul, Türkiye",
        "Tel. +43 1 234 56 78, ab 12 cd 3456 7890123 1234567890",
        "Unit 7, Sample Lane, Example Town 1234, Philippines",
        "Block 3, Jalan Contoh 5, 47100 Puchong, Selangor, Malaysia",
        "Eircode: A65 F4E2",
        "〒100-0001 東京都千代田区1-2-3",
    ];

    /// Regions [`data_postcodes`] is read on in the tests: none, hand-read ones and data ones
    /// of each layout.
    const DATA_POSTCODE_REGIONS: &[Option<&str>] = &[
        None,
        Some("BR"),
        Some("IN"),
        Some("MX"),
        Some("KE"),
        Some("SG"),
        Some("UA"),
        Some("DE"),
        Some("US"),
        Some("PH"),
        Some("JP"),
    ];

    /// Holds [`data_postcodes`] to [`data_postcodes_plain`] on every line of `lines` (and on
    /// the line read with a street above it).
    fn assert_data_postcodes_as_plain(lines: &[&str]) -> usize {
        let mut found = 0;
        for region in DATA_POSTCODE_REGIONS {
            for index in 0..lines.len() {
                for street_index in [index, index.saturating_sub(1)] {
                    let read = data_postcodes(lines, index, lines[index], street_index, *region);
                    let plain =
                        data_postcodes_plain(lines, index, lines[index], street_index, *region);
                    assert_eq!(read, plain, "{:?} {region:?}", lines[index]);
                    found += read.len();
                }
            }
        }
        found
    }

    #[test]
    fn data_postcodes_read_as_the_plain_reading() {
        let found = assert_data_postcodes_as_plain(DATA_POSTCODE_LINES);
        // The lines hold addresses: the comparison is not of empty readings only.
        assert!(found > 20, "{found}");
        for window in DATA_POSTCODE_LINES.windows(3) {
            assert_data_postcodes_as_plain(window);
        }
    }

    /// Holds [`LabelReader`] to [`postcode_label`] on `line`: every char boundary asked in
    /// order, then the token starts of the line in order, then backwards.
    fn assert_label_reader_as_postcode_label(line: &str) {
        let starts: Vec<usize> = (0..=line.len())
            .filter(|&i| line.is_char_boundary(i))
            .collect();
        let tokens: Vec<usize> = zip_tokens(line).map(|(start, _)| start).collect();
        for order in [starts.clone(), tokens, starts.into_iter().rev().collect()] {
            let mut reader = LabelReader::new(line);
            for start in order {
                assert_eq!(
                    reader.label(start),
                    postcode_label(&line[..start]),
                    "{line:?} {start}"
                );
            }
        }
    }

    #[test]
    fn labels_read_along_a_line_are_those_of_the_text_before() {
        for line in DATA_POSTCODE_LINES.iter().chain(&[
            "İİİ CEP 80020-310, ẞtraße PIN 400001 Σ c.p. 06000",
            "ΣΑΣ: Pincode - 400001 código postal 28001 〒100-0001",
            "Ünïcödé: PLZ 12345, psč 811 01, Eircode A65 F4E2",
        ]) {
            assert_label_reader_as_postcode_label(line);
        }
        // The lines hold labels the reader finds.
        let mut reader = LabelReader::new("É CEP 80020-310");
        assert_eq!(reader.label(7), Some((3, Some("BR"))));
    }

    proptest::proptest! {
        #[test]
        fn data_postcodes_read_any_line_as_the_plain_reading(
            line in "([A-Z][a-z]{1,6}|[a-z]{1,6}|[0-9]{1,7}|[ ,.:-]|[ ,]|é|İ|ẞ|日|\u{a0}|C\\.P\\.|CEP|PIN|Pincode|India|México|Kenya|Singapore|Brasil|P\\.O\\. Box|Chennai 600 042|80020-310|A65 F4E2|-00100){0,14}",
            above in "([A-Z][a-z]{1,6}|[a-z]{1,6}|[0-9]{1,4}|[ ,-]|Rua|Road|Street){0,8}",
        ) {
            assert_label_reader_as_postcode_label(&line);
            let lines = [above.as_str(), line.as_str()];
            for region in DATA_POSTCODE_REGIONS {
                for street_index in [0, 1] {
                    let read = data_postcodes(&lines, 1, &line, street_index, *region);
                    let plain = data_postcodes_plain(&lines, 1, &line, street_index, *region);
                    proptest::prop_assert_eq!(read, plain);
                }
            }
        }
    }

    /// [`super::from_lines`] with the budget of a page of the lines' size.
    fn from_lines(lines: &[&str], page_region: Option<&str>) -> Vec<TextAddress> {
        let bytes = lines.iter().map(|line| line.len() + 1).sum();
        super::from_lines(lines, page_region, &PageBudget::for_page(bytes))
    }

    /// [`zip_tokens`] read the plain way (a vector of ends for every word), to check the
    /// scan without allocations against.
    fn zip_tokens_plain(line: &str) -> Vec<(usize, Vec<usize>)> {
        let bytes = line.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if !bytes[i].is_ascii_alphanumeric() || line[..i].ends_with(char::is_alphanumeric) {
                i += line[i..].chars().next().map_or(1, char::len_utf8);
                continue;
            }
            let run_end = |from: usize| {
                bytes[from..]
                    .iter()
                    .position(|b| !b.is_ascii_alphanumeric())
                    .map_or(bytes.len(), |p| from + p)
            };
            let mut ends = vec![run_end(i)];
            while ends.len() < 3 {
                let end = ends[ends.len() - 1];
                let joined = matches!(bytes.get(end), Some(b' ' | b'-'))
                    && bytes.get(end + 1).is_some_and(u8::is_ascii_alphanumeric);
                if !joined {
                    break;
                }
                ends.push(run_end(end + 1));
            }
            ends.retain(|&end| !line[end..].starts_with(char::is_alphanumeric));
            if bytes[i..ends.last().copied().unwrap_or(i)]
                .iter()
                .any(u8::is_ascii_digit)
            {
                ends.reverse();
                out.push((i, ends));
            }
            i = run_end(i);
        }
        out
    }

    /// [`zip_tokens`] with each token's ends as a vector.
    fn zip_tokens_as_vectors(line: &str) -> Vec<(usize, Vec<usize>)> {
        zip_tokens(line)
            .map(|(start, ends)| (start, ends.to_vec()))
            .collect()
    }

    #[test]
    fn postcode_labels_read_from_the_end_as_from_the_whole_text() {
        let long = "Visit our showroom and workshop open on weekdays ".repeat(3);
        for before in [
            "C.P. ",
            "Col. Centro, C.P.",
            "Rua Exemplo 10, CEP ",
            "Pincode: ",
            "Main Road, PIN code ",
            "PIN ",
            "Eircode: ",
            "Postal Code -",
            "Codigo postal ",
            "ABCP ",
            "xcep ",
            "",
            "12, ",
            "zip code",
        ] {
            for text in [before.to_string(), format!("{long}{before}")] {
                let whole = text
                    .trim_end_matches([' ', ':', '-', '–', '\u{a0}'])
                    .to_lowercase();
                assert_eq!(postcode_label(&text), label_ending_plain(&whole), "{text}");
            }
        }
        assert_eq!(postcode_label("Col. Centro, C.P. "), Some((13, Some("MX"))));
    }

    #[test]
    fn zip_tokens_are_those_of_the_plain_scan() {
        for line in [
            "",
            "no digits at all here",
            "Musterstraße 12, 10115 Berlin, Deutschland",
            "SW1A 1AA London",
            "A-1010 Wien · Tel. +43 1 234 56 78",
            "ØK12 3456 Ålesund 1234Ø 12 ab-34 cd",
            "Rua Exemplo 45, 01310-100 São Paulo - SP",
            "〒100-0001 東京都千代田区1-2-3",
            "x9 y8-z7 w6 v5 u4-t3-s2-r1",
            "éa1 1é 12é3 ab12",
            "words and more words then ab cd ef 12 and ab-cd ef-12 gh",
            "x y z w 1, long text without any digit at all, then q-r s-9",
            "Ünïcödé wörds ÿ ab 12 cd, straße 5a-b ćd 7",
            "9",
            "a 1",
        ] {
            assert_eq!(
                zip_tokens_as_vectors(line),
                zip_tokens_plain(line),
                "{line}"
            );
        }
    }

    /// The matches of `pattern` with [`with_city`], as (zip, city) byte ranges, and those of the
    /// same pattern with the whole place name in it (`CITY` or `CITY_ANY` for its first letter).
    fn city_matches(pattern: Pattern, line: &str) -> [Vec<(Range<usize>, Range<usize>)>; 2] {
        let (first, whole, word): (&str, &str, fn(char) -> bool) = match pattern {
            Pattern::Nl => (CITY_FIRST, CITY, city_word),
            _ => (CITY_ANY_FIRST, CITY_ANY, city_any_word),
        };
        static WHOLE: [OnceLock<Regex>; 13] = [const { OnceLock::new() }; 13];
        let short = pattern.regex().unwrap();
        let full = WHOLE[pattern as usize].get_or_init(|| {
            let source = pattern.source();
            let city = format!("(?P<city>{first})");
            assert!(source.contains(&city));
            Regex::new(&source.replace(&city, &format!("(?P<city>{whole})"))).unwrap()
        });
        let zip = |caps: &regex::Captures| caps.name("zip").unwrap().range();
        [
            with_city(short, line, word)
                .iter()
                .map(|(caps, city)| (zip(caps), city.clone()))
                .collect(),
            full.captures_iter(line)
                .map(|caps| (zip(&caps), caps.name("city").unwrap().range()))
                .collect(),
        ]
    }

    #[test]
    fn the_parts_tried_first_match_wherever_their_patterns_do() {
        for line in [
            "123 Main St, Toronto, ON M5V 2T6",
            "Edmonton, Alberta T6E 5Z9, Canada",
            "Level 3, 100 George St, Sydney NSW 2000",
            "Hobart, Tas. 7000",
            "Perth,  Western Australia, 6000",
            "Sydney NSW\u{a0}2000",
        ] {
            for (pattern, part) in [
                (Pattern::Ca, Pattern::CaZip),
                (Pattern::Au, Pattern::AuStateZip),
            ] {
                let whole = city_first_whole(pattern).is_match(line);
                assert_eq!(pattern.is_match(line), whole, "{line}");
                assert!(!whole || part.regex().unwrap().is_match(line), "{line}");
            }
        }
        assert!(Pattern::Ca.is_match("Toronto, ON M5V 2T6"));
        assert!(Pattern::Au.is_match("Sydney NSW 2000"));
        assert!(!Pattern::Au.is_match("Sydney NSW 200"));
    }

    /// The whole pattern of [`Pattern::Us`], [`Pattern::Ca`] or [`Pattern::Au`], place name
    /// included.
    fn city_first_whole(pattern: Pattern) -> &'static Regex {
        static WHOLE: [OnceLock<Regex>; 13] = [const { OnceLock::new() }; 13];
        WHOLE[pattern as usize].get_or_init(|| {
            let source = format!(r"(?:^|[^\p{{L}}])(?P<city>{CITY})?{}", pattern.source());
            Regex::new(&source).unwrap()
        })
    }

    /// The matches of `pattern` (US, CA or AU) with [`Pattern::city_first`], and those of its
    /// whole pattern, as (city, region, zip) byte ranges.
    #[allow(clippy::type_complexity)]
    fn city_first_matches(
        pattern: Pattern,
        line: &str,
    ) -> [Vec<(Option<Range<usize>>, Range<usize>, Range<usize>)>; 2] {
        let part_matches = match pattern {
            Pattern::Ca => Pattern::CaZip.regex().unwrap().is_match(line),
            Pattern::Au => Pattern::AuStateZip.regex().unwrap().is_match(line),
            _ => true,
        };
        [
            pattern
                .city_first(line)
                .into_iter()
                .map(|m| (m.city, m.region, m.zip))
                .collect(),
            city_first_whole(pattern)
                .captures_iter(line)
                // The part tried first (`Pattern::is_match`) matches wherever the whole does.
                .filter(|_| part_matches)
                .map(|caps| {
                    (
                        caps.name("city").map(|c| c.range()),
                        caps.name("region").unwrap().range(),
                        caps.name("zip").unwrap().range(),
                    )
                })
                .collect(),
        ]
    }

    const CITY_FIRST_PATTERNS: [Pattern; 3] = [Pattern::Us, Pattern::Ca, Pattern::Au];

    #[test]
    fn place_names_before_the_region_read_where_the_whole_pattern_reads_them() {
        for line in [
            "123 Main St, Springfield, IL 62704",
            "Kansas City Kansas 66101, Kansas City, MO 64105-1234",
            "We Love Visiting Downtown Portland Today OR 97201",
            "1 Rue St-Jean-Baptiste, Québec, QC G1R 4S8",
            "Edmonton, Alberta T6E 5Z9, Canada",
            "Level 3, 100 George St, Sydney NSW 2000",
            "Perth,  Western Australia, 6000",
            "Sydney NSW\u{a0}2000 and Hobart, Tas 7000",
            "fooBar, IL 62704; 9Bar, IL 62704",
            ", IL 62704",
            " CA 90210",
            "O’Fallon-East St. Louis Park, MO 63366",
            "Ünter Ab-Cd Ef, NY 10001",
            "A-B-C-D-E-F G H I J K, TX 75001",
        ] {
            for pattern in CITY_FIRST_PATTERNS {
                let [read, whole] = city_first_matches(pattern, line);
                assert_eq!(read, whole, "{line}");
            }
        }
        assert_eq!(
            city_first_matches(Pattern::Us, "123 Main St, Springfield, IL 62704")[0],
            [(Some(13..24), 26..28, 29..34)]
        );
    }

    const CITY_PATTERNS: [Pattern; 5] = [
        Pattern::Nl,
        Pattern::Pt,
        Pattern::Se,
        Pattern::Pl,
        Pattern::Eu,
    ];

    #[test]
    fn place_names_read_after_the_pattern_end_where_the_whole_pattern_ends() {
        for line in [
            "Hauptstraße 5, 10115 Berlin",
            "Postbus 12, 2500 AA Den Haag-Centrum Zuid, Nederland",
            "1234 AB Foo 5678 CD Bar-Baz  Qux",
            "Rua Augusta 1, 1100-053 Lisboa l’Église St. Jean-Pierre Über Ärger Ende Extra Mehr",
            "Vodičkova 20, 110 00 Praha 1, 114 55 Stockholm",
            "ul. Marszałkowska 1, 00-950 Warszawa - Śródmieście",
            "D-10115 Berlin-Mitte, A-1010 Wien, CH-8001 Zürich",
            "12345 Étretat ßtraße -Ost- x",
            "12345 Foo\u{301}bar Baz\u{2019}s Qux.",
            "12345 Ab 日本 Cd",
            "12345 XⅣ Ab\u{345}cd",
            "12345 Ab- Cd -Ef - Gh",
            ",12345 Ab\u{a0}Cd 54321 Ef",
        ] {
            for pattern in CITY_PATTERNS {
                let [read, whole] = city_matches(pattern, line);
                assert_eq!(read, whole, "{line}");
            }
        }
        assert!(!city_matches(Pattern::Eu, "10115 Berlin-Mitte Ost")[0].is_empty());
    }

    proptest::proptest! {
        #[test]
        fn place_names_read_as_the_whole_pattern_would(
            line in "([0-9]{2,5}|[A-Z]{1,2}|[a-z]{1,4}|[ -]|[’'.,]|[ÀÖØÞĀžéßøĲⅣ]|Ab|\u{301}|\u{345}|日|\u{a0}){0,14}"
        ) {
            for pattern in CITY_PATTERNS {
                let [read, whole] = city_matches(pattern, &line);
                proptest::prop_assert_eq!(read, whole);
            }
        }

        #[test]
        fn place_names_before_the_region_read_as_the_whole_pattern_would(
            line in "([0-9]{1,5}|[A-Z]{1,2}|[a-z]{1,4}|[ -]|[’'.,]|[ÀéßⅣ]|Ab|\u{301}|日|\u{a0}|IL|NY|New York|ON|QC|M5V 2T6|NSW|Vic|Western Australia|, IL 62704| ON M5V 2T6| NSW 2000){0,14}"
        ) {
            for pattern in CITY_FIRST_PATTERNS {
                let [read, whole] = city_first_matches(pattern, &line);
                proptest::prop_assert_eq!(read, whole);
            }
        }

        #[test]
        fn zip_tokens_agree_with_the_plain_scan(
            line in "([a-z]{1,6}|[A-Z]{1,2}|[0-9]{1,5}|[ -]|[ ,.]|é|Ø|日|\u{a0}){0,16}"
        ) {
            proptest::prop_assert_eq!(zip_tokens_as_vectors(&line), zip_tokens_plain(&line));
        }

        #[test]
        fn postcode_labels_read_as_from_the_whole_text(
            text in "([a-zA-Z]{1,6}|[0-9]{1,3}|[ ,.:-]|é|Ö|ẞ|İ|Σ|\u{212a}|日|〒|c\\.p\\.|CEP|psč|PSČ|pin code|código postal|Eircode|PIN|zip|Postcode){0,10}"
        ) {
            let trimmed = text.trim_end_matches([' ', ':', '-', '–', '\u{a0}']);
            let whole = trimmed.to_lowercase();
            let plain = (whole.len() == trimmed.len()).then(|| label_ending_plain(&whole)).flatten();
            proptest::prop_assert_eq!(postcode_label(&text), plain);
        }

        #[test]
        fn country_names_read_as_from_the_whole_run(
            after in "([a-zA-Z]{1,12}|[ ,.(-]|é|ñ|Σ|\u{212a}|日|[0-9]|India|MEXICO|México|south africa|United States of America){0,12}"
        ) {
            proptest::prop_assert_eq!(country_named(&after), country_named_plain(&after));
        }

        #[test]
        fn the_countries_of_a_line_read_once_as_each_read_alone(
            line in "([a-zA-Z]{1,8}|[0-9]{1,5}|[ ,.(-]|é|Σ|India|Mexico|México|South Africa|Brasil){0,14}"
        ) {
            let mut countries = LineCountries::new(&line);
            // Twice over: the second pass answers from what the first one read.
            for _ in 0..2 {
                for at in (0..=line.len()).filter(|&at| line.is_char_boundary(at)) {
                    proptest::prop_assert_eq!(countries.named(&line[at..]), country_named(&line[at..]));
                    proptest::prop_assert_eq!(
                        countries.named(part_before(&line, at)),
                        country_before(&line, at)
                    );
                }
            }
        }

        #[test]
        fn legal_forms_read_as_from_the_words(
            text in "([a-zA-Z]{1,5}|[0-9]{1,6}|[ ,;.]|GmbH|B\\.V\\.|s\\.r\\.o\\.|S\\.L\\.|AB|ab|Ltd|SA|Sp\\. z o\\.o\\.|ẞ|é){0,12}"
        ) {
            assert_legal_form_as_plain(&text);
        }

        #[test]
        fn lowered_ends_read_as_the_whole_text_lower_cased(
            text in "([a-zA-Z]{1,4}|[0-9]{1,3}|[ .,:#($€]|©|Σ|σ|İ|ẞ|\u{212a}|ú|º|°|No|NR|Núm\\.|nº|copyright|COPYRIGHT|\\(C\\)){0,8}",
            chars in 1usize..12,
            after in "( ?[0-9]{0,3}| Euro| kr|%|)",
        ) {
            let whole = text.to_lowercase();
            let end = lowered_end(&text, chars);
            proptest::prop_assert!(whole.ends_with(&end), "{:?} {:?}", whole, end);
            proptest::prop_assert!(end.len() >= chars || end == whole);
            proptest::prop_assert_eq!(is_copyright_mark(&text), is_copyright_mark_plain(&text));
            proptest::prop_assert_eq!(
                ends_with_number_mark(&format!("{text}{after}")),
                ends_with_number_mark_plain(&format!("{text}{after}"))
            );
        }

        #[test]
        fn holds_postcode_tries_the_patterns_of_the_line_s_shapes_only(
            line in "([A-Z]{1,3}|[a-z]{1,12}|[0-9]{1,6}|[ ,.-]|NSW |CO |Colorado |Ontario |\
                      [A-Z][0-9][A-Z] [0-9][A-Z][0-9]|[A-Z]{1,2}[0-9]{1,2} [0-9][A-Z]{2}|\
                      [1-9][0-9]{3} ?[A-Z]{2}){0,10}"
        ) {
            proptest::prop_assert_eq!(holds_postcode(&line), holds_postcode_plain(&line));
        }

        #[test]
        fn shapes_skip_digitless_words_without_missing_any(
            line in "([A-Z]{1,3}|[a-z]{1,12}|[0-9]{1,6}|[ ,.-]|NSW |CO |Colorado ){0,12}"
        ) {
            proptest::prop_assert_eq!(
                Shapes::of(line.as_bytes()),
                Shapes::read_from(line.as_bytes(), 0, false)
            );
        }
    }

    /// [`holds_postcode`] as it was first written: every pattern on any line with a shape.
    fn holds_postcode_plain(line: &str) -> bool {
        Shapes::of(line.as_bytes()).any()
            && [
                Pattern::Us,
                Pattern::Ca,
                Pattern::Au,
                Pattern::Gb,
                Pattern::Nl,
            ]
            .into_iter()
            .any(|pattern| pattern.is_match(line))
    }

    #[test]
    fn holds_postcode_reads_each_country_s_postcode_line() {
        for line in [
            "Springfield, IL 62704",
            "Ottawa, ON K1A 0B1",
            "Sydney NSW 2000",
            "London W1A 1AA",
            "1012 AB Amsterdam",
        ] {
            assert!(holds_postcode(line), "{line}");
            assert_eq!(holds_postcode(line), holds_postcode_plain(line), "{line}");
        }
        assert!(!holds_postcode("12 Sample Street"));
    }

    fn one(lines: &[&str], region: Option<&str>) -> MarkedAddress {
        let found = from_lines(lines, region);
        assert_eq!(found.len(), 1, "{found:?}");
        found[0].parts.clone()
    }

    /// The address patterns seen missed or invented on unseen sites.
    #[test]
    fn a_street_type_abbreviated_with_a_slash_is_part_of_the_street() {
        // Class: `C/` (calle, carrer) before the street's name, a slash that is no field
        // separator; Spain (Spanish and Catalan).
        let a = one(&["C/ Mayor 12, 28013 Madrid"], Some("ES"));
        assert_eq!(a.street.as_deref(), Some("C/ Mayor 12"));
        let a = one(&["Dirección: C/ Mayor, 12 - 28013 Madrid"], Some("ES"));
        assert_eq!(a.street.as_deref(), Some("C/ Mayor, 12"));
        let a = one(&["c/ Major 5, 08001 Barcelona"], Some("ES"));
        assert_eq!(a.street.as_deref(), Some("c/ Major 5"));
        // A slash between fields stays a separator.
        let a = one(&["Exemple SL / Calle Mayor 12, 28013 Madrid"], Some("ES"));
        assert_eq!(a.street.as_deref(), Some("Calle Mayor 12"));
    }

    #[test]
    fn a_state_name_before_the_postcode_is_the_region_not_the_town() {
        // Class: the state's name printed between the town and the postcode in layouts that
        // put it after the postcode (`%C %Z%n%S`: `Gurugram, Haryana 122015`, `Ikeja, Lagos
        // 100001`): the town is the field before it, not part of the street; India, Nigeria.
        let a = one(
            &["Plot No. 45, Sector 18, Gurugram, Haryana 122015"],
            Some("IN"),
        );
        assert_eq!(a.street.as_deref(), Some("Plot No. 45, Sector 18"));
        assert_eq!(a.locality.as_deref(), Some("Gurugram"));
        assert_eq!(a.region.as_deref(), Some("Haryana"));
        let a = one(&["12 Example Road", "Kochi, Kerala 682001"], Some("IN"));
        assert_eq!(a.street.as_deref(), Some("12 Example Road"));
        assert_eq!(a.locality.as_deref(), Some("Kochi"));
        let a = one(
            &["12 Example Street, Ikeja, Lagos State 100001"],
            Some("NG"),
        );
        assert_eq!(a.street.as_deref(), Some("12 Example Street"));
        assert_eq!(a.locality.as_deref(), Some("Ikeja"));
        // A town that is no state stays the town.
        let a = one(
            &["12, Example Street, T. Nagar, Chennai 600017"],
            Some("IN"),
        );
        assert_eq!(a.street.as_deref(), Some("12, Example Street, T. Nagar"));
        assert_eq!(a.locality.as_deref(), Some("Chennai"));
    }

    #[test]
    fn a_state_code_of_its_own_before_the_postcode_is_the_region_not_the_town() {
        // Class: a state's code as a field of its own between the town and the postcode
        // (`Curitiba, PR - 80010-000`, `São Paulo/SP`, `Bengaluru, KA 560001`): the town is
        // the field before it, not part of the street; Brazil, India.
        let a = one(&["Av. Brasil, 1234 - Curitiba, PR - 80010-000"], Some("BR"));
        assert_eq!(a.street.as_deref(), Some("Av. Brasil, 1234"));
        assert_eq!(a.locality.as_deref(), Some("Curitiba"));
        assert_eq!(a.region.as_deref(), Some("PR"));
        let a = one(
            &["Rua Augusta, 123 - Consolação, São Paulo/SP, 01305-000"],
            Some("BR"),
        );
        assert_eq!(a.street.as_deref(), Some("Rua Augusta, 123 - Consolação"));
        assert_eq!(a.locality.as_deref(), Some("São Paulo"));
        let a = one(&["12, MG Road, Bengaluru, KA 560001"], Some("IN"));
        assert_eq!(a.street.as_deref(), Some("12, MG Road"));
        assert_eq!(a.locality.as_deref(), Some("Bengaluru"));
    }

    #[test]
    fn norwegian_street_types_abbreviated_or_glued_and_floors_are_read() {
        // Class: Norwegian street types glued to the name or abbreviated with a dot
        // (`Storgata`, `Storgt.`, `Kongens gt.`), after a sentence (`Vi holder til i …`), and
        // floors (`3. etasje`); Norway (Bokmål and Nynorsk spellings).
        let a = one(&["Storgt. 12, 0155 Oslo"], Some("NO"));
        assert_eq!(a.street.as_deref(), Some("Storgt. 12"));
        let a = one(&["Kongens gt. 12, 7011 Trondheim"], Some("NO"));
        assert_eq!(a.street.as_deref(), Some("Kongens gt. 12"));
        let a = one(&["Vi holder til i Storgata 12, 0155 Oslo"], Some("NO"));
        assert_eq!(a.street.as_deref(), Some("Storgata 12"));
        let a = one(&["Vi held til i Fjordvegen 12, 6100 Volda"], Some("NO"));
        assert_eq!(a.street.as_deref(), Some("Fjordvegen 12"));
        let a = one(&["Storgata 12", "3. etasje", "0155 Oslo"], Some("NO"));
        assert_eq!(a.street.as_deref(), Some("Storgata 12, 3. etasje"));
    }

    #[test]
    fn a_floor_line_between_the_street_and_the_postcode_is_not_the_street() {
        // Class: a floor written with another language's ordinal (`2ème étage`, `2. Stock`,
        // `2º piso`) on its line between the street and the postcode line; France, Germany,
        // Spain.
        let a = one(
            &["12 rue de Paris", "2ème étage", "93160 Noisy-le-Grand"],
            Some("FR"),
        );
        assert_eq!(a.street.as_deref(), Some("12 rue de Paris, 2ème étage"));
        let a = one(&["Lindenweg 3", "2. Stock", "12345 Berlin"], Some("DE"));
        assert_eq!(a.street.as_deref(), Some("Lindenweg 3, 2. Stock"));
        let a = one(&["Calle Mayor 12", "2º piso", "28013 Madrid"], Some("ES"));
        assert_eq!(a.street.as_deref(), Some("Calle Mayor 12, 2º piso"));
        // A street named after a premise word is a street.
        let a = one(&["Acme", "3 Tower Road", "12345 Berlin"], Some("DE"));
        assert_eq!(a.street.as_deref(), Some("3 Tower Road"));
    }

    #[test]
    fn words_glued_before_a_house_number_and_its_street_type_are_not_the_street() {
        // Class: a name, a phrase or opening hours glued before a street that starts with its
        // house number and type (`12 place de la Mairie`, `1234 Main St`), with no comma;
        // France, United States, United Kingdom.
        let a = one(
            &["Cabinet Exemple 12 place de la Mairie 84000 Avignon"],
            Some("FR"),
        );
        assert_eq!(a.street.as_deref(), Some("12 place de la Mairie"));
        let a = one(
            &["Retrouvez-nous au 12 rue des Lilas 75011 Paris"],
            Some("FR"),
        );
        assert_eq!(a.street.as_deref(), Some("12 rue des Lilas"));
        let a = one(
            &["Mon-Fri 9am-5pm 1234 Main St, Springfield, IL 62701"],
            None,
        );
        assert_eq!(a.street.as_deref(), Some("1234 Main St"));
        let a = one(&["Open daily 12 High Street, Bristol BS1 4DJ"], Some("GB"));
        assert_eq!(a.street.as_deref(), Some("12 High Street"));
        // A premise or unit before the number stays with it.
        let a = one(&["Suite 200 1234 Main St, Springfield, IL 62701"], None);
        assert_eq!(a.street.as_deref(), Some("Suite 200 1234 Main St"));
        let a = one(&["Unit 5/12 Sample Rd, Brookvale NSW 2100"], Some("AU"));
        assert_eq!(a.street.as_deref(), Some("Unit 5/12 Sample Rd"));
        let a = one(&["Bâtiment B 12 rue des Lilas, 75011 Paris"], Some("FR"));
        assert_eq!(a.street.as_deref(), Some("Bâtiment B 12 rue des Lilas"));
        let a = one(&["410 North Lake 9 Road, Springfield, IL 62701"], None);
        assert_eq!(a.street.as_deref(), Some("410 North Lake 9 Road"));
    }

    #[test]
    fn a_nordic_street_type_written_as_its_own_word_is_part_of_the_street() {
        // Class: the street type as a word of its own after the name (`Kongens gate`,
        // `Eksempel vei`, `Norra vägen`, `Gammel vej`), not glued to it; Norway, Sweden,
        // Denmark.
        let a = one(&["Kongens gate 12, 7011 Trondheim"], Some("NO"));
        assert_eq!(a.street.as_deref(), Some("Kongens gate 12"));
        let a = one(&["Eksempel vei 12, 5003 Bergen"], Some("NO"));
        assert_eq!(a.street.as_deref(), Some("Eksempel vei 12"));
        let a = one(&["Norra vägen 12, 123 45 Stockholm"], Some("SE"));
        assert_eq!(a.street.as_deref(), Some("Norra vägen 12"));
        let a = one(&["Gammel vej 12, 6580 Vamdrup"], Some("DK"));
        assert_eq!(a.street.as_deref(), Some("Gammel vej 12"));
    }

    #[test]
    fn a_registration_number_chunk_before_the_street_is_not_the_street() {
        // Class: a labelled registration number with spaced digit groups as a comma-separated
        // chunk before the street (`Org.nr 123 456 789, Storgata 12`); Norway, Denmark,
        // Australia.
        let a = one(
            &["Eksempel AS, Org.nr 123 456 789, Storgata 12, 0155 Oslo"],
            Some("NO"),
        );
        assert_eq!(a.street.as_deref(), Some("Storgata 12"));
        let a = one(
            &["CVR 12 34 56 78, Nørregade 12, 1165 København K"],
            Some("DK"),
        );
        assert_eq!(a.street.as_deref(), Some("Nørregade 12"));
        let a = one(
            &["ABN 12 345 678 901, 12 Sample Rd, Brookvale NSW 2100"],
            Some("AU"),
        );
        assert_eq!(a.street.as_deref(), Some("12 Sample Rd"));
    }

    #[test]
    fn a_marked_up_street_holding_other_parts_keeps_the_street() {
        // Class: a structured `streetAddress` (JSON-LD, microdata) that also holds the
        // postcode, town or region given in their own parts, a line break, or the business's
        // name with its legal form; Germany, United States, Australia, United Kingdom.
        let marked = |street: &str, locality: &str, region: Option<&str>, postcode: &str| {
            let a = MarkedAddress {
                street: Some(street.to_string()),
                locality: Some(locality.to_string()),
                region: region.map(str::to_string),
                postal_code: Some(postcode.to_string()),
                country: None,
            };
            with_marked_street(a).street
        };
        let street = marked("Lindenweg 3, 12345 Berlin", "Berlin", None, "12345");
        assert_eq!(street.as_deref(), Some("Lindenweg 3"));
        let street = marked(
            "1234 Main St, Suite 200, Springfield, IL 62701",
            "Springfield",
            Some("IL"),
            "62701",
        );
        assert_eq!(street.as_deref(), Some("1234 Main St, Suite 200"));
        let street = marked(
            "12 Sample Rd Brookvale NSW 2100",
            "Brookvale",
            Some("NSW"),
            "2100",
        );
        assert_eq!(street.as_deref(), Some("12 Sample Rd"));
        let street = marked(
            "1234 Main St, Springfield",
            "Springfield",
            Some("IL"),
            "62701",
        );
        assert_eq!(street.as_deref(), Some("1234 Main St"));
        let street = marked("Lindenweg 3<br>2. OG", "Berlin", None, "12345");
        assert_eq!(street.as_deref(), Some("Lindenweg 3, 2. OG"));
        let street = marked("Acme Ltd, 12 High Street", "Bristol", None, "BS1 4DJ");
        assert_eq!(street.as_deref(), Some("12 High Street"));
        // A street named like its town, or a house number equal to the postcode's digits, stays.
        let street = marked("Berliner Straße 12", "Berlin", None, "12345");
        assert_eq!(street.as_deref(), Some("Berliner Straße 12"));
        let street = marked("Calle Madrid, 28013 Madrid", "Madrid", None, "28013");
        assert_eq!(street.as_deref(), Some("Calle Madrid"));
    }

    #[test]
    fn a_name_or_number_glued_before_the_street_is_not_the_street() {
        // Class: the business's name with its legal form, or a registration or tax number,
        // printed before the street on the postcode's line with no comma between them;
        // Germany, Netherlands, Sweden, Czechia, Italy, Spain, France, Portugal.
        let a = one(&["Muster GmbH Lindenweg 3 12345 Berlin"], Some("DE"));
        assert_eq!(a.street.as_deref(), Some("Lindenweg 3"));
        let a = one(
            &["Voorbeeld B.V. Kerkstraat 5 1234 AB Amsterdam"],
            Some("NL"),
        );
        assert_eq!(a.street.as_deref(), Some("Kerkstraat 5"));
        let a = one(&["Exempel AB Storgatan 12 123 45 Stockholm"], Some("SE"));
        assert_eq!(a.street.as_deref(), Some("Storgatan 12"));
        let a = one(&["Příklad s.r.o. Dlouhá 12 110 00 Praha 1"], Some("CZ"));
        assert_eq!(a.street.as_deref(), Some("Dlouhá 12"));
        let a = one(&["Esempio S.r.l. Via Roma, 12 00184 Roma"], Some("IT"));
        assert_eq!(a.street.as_deref(), Some("Via Roma, 12"));
        let a = one(
            &["KvK 12345678 Kerkstraat 5, 1234 AB Amsterdam"],
            Some("NL"),
        );
        assert_eq!(a.street.as_deref(), Some("Kerkstraat 5"));
        let a = one(
            &["Ejemplo S.L. CIF B12345678 Calle Mayor 12, 28013 Madrid"],
            Some("ES"),
        );
        assert_eq!(a.street.as_deref(), Some("Calle Mayor 12"));
        let a = one(
            &["SIRET 123 456 789 00012 - 12 rue des Lilas 75011 Paris"],
            Some("FR"),
        );
        assert_eq!(a.street.as_deref(), Some("12 rue des Lilas"));
        let a = one(
            &["NIF 123456789 - Rua das Flores 12 - 4050-262 Porto"],
            Some("PT"),
        );
        assert_eq!(a.street.as_deref(), Some("Rua das Flores 12"));
        // A five-digit house number opens the street; a street name holding a legal form's
        // letters in lower case is one street.
        let a = one(&["12345 Main St, Springfield, IL 62701"], None);
        assert_eq!(a.street.as_deref(), Some("12345 Main St"));
        let a = one(&["Via della Ag 12, 00184 Roma"], Some("IT"));
        assert_eq!(a.street.as_deref(), Some("Via della Ag 12"));
    }

    #[test]
    fn a_street_with_no_comma_before_its_town_ends_at_its_street_type() {
        // Class: street and town on one line with no comma between them, the street ending
        // with its type (`Street`, `Rd`, `Avenue`) before the town and the state or province;
        // United States, Australia, Canada.
        let a = one(&["1234 Main Street Springfield, IL 62701"], None);
        assert_eq!(a.street.as_deref(), Some("1234 Main Street"));
        assert_eq!(a.locality.as_deref(), Some("Springfield"));
        let a = one(&["Visit us: 55 Park Avenue Green Bay, WI 54301"], None);
        assert_eq!(a.street.as_deref(), Some("55 Park Avenue"));
        assert_eq!(a.locality.as_deref(), Some("Green Bay"));
        let a = one(&["12 Sample Rd Brookvale NSW 2100"], Some("AU"));
        assert_eq!(a.street.as_deref(), Some("12 Sample Rd"));
        assert_eq!(a.locality.as_deref(), Some("Brookvale"));
        let a = one(&["Level 2, 100 Sample Street Sydney NSW 2000"], Some("AU"));
        assert_eq!(a.street.as_deref(), Some("Level 2, 100 Sample Street"));
        let a = one(&["300 Sample Trl E Naples, FL 34112"], None);
        assert_eq!(a.street.as_deref(), Some("300 Sample Trl E"));
        assert_eq!(a.locality.as_deref(), Some("Naples"));
        let a = one(&["123 Sample Street Toronto ON M5V 2T6"], Some("CA"));
        assert_eq!(a.street.as_deref(), Some("123 Sample Street"));
        assert_eq!(a.locality.as_deref(), Some("Toronto"));
        // A town whose name holds a street word, after a comma, stays the town.
        let a = one(&["12 Lake Road, Park City, UT 84060"], None);
        assert_eq!(a.street.as_deref(), Some("12 Lake Road"));
        assert_eq!(a.locality.as_deref(), Some("Park City"));
    }

    #[test]
    fn canadian_postcode_after_a_province() {
        let a = one(
            &["1200 Bay Street, Suite 400", "Toronto, Ontario M5R 2A5"],
            None,
        );
        assert_eq!(a.street.as_deref(), Some("1200 Bay Street, Suite 400"));
        assert_eq!(a.locality.as_deref(), Some("Toronto"));
        assert_eq!(a.postal_code.as_deref(), Some("M5R 2A5"));
        let a = one(&["88 Main St", "Halifax NS B3H1A1"], None);
        assert_eq!(a.postal_code.as_deref(), Some("B3H1A1"));
    }

    #[test]
    fn country_letters_before_a_three_two_or_polish_postcode_are_not_the_street() {
        // Class: a postcode printed with its CEPT country prefix on the line below the street;
        // Sweden, Poland.
        let a = one(&["Exempelgatan 12", "SE-123 45 Stockholm"], Some("SE"));
        assert_eq!(a.street.as_deref(), Some("Exempelgatan 12"));
        assert_eq!(a.postal_code.as_deref(), Some("123 45"));
        let a = one(&["ul. Przykładowa 5", "PL-45-835 Opole"], Some("PL"));
        assert_eq!(a.street.as_deref(), Some("ul. Przykładowa 5"));
        assert_eq!(a.postal_code.as_deref(), Some("45-835"));
    }

    #[test]
    fn canadian_province_in_parentheses() {
        // Class: Canada Post's French form, the province in parentheses between the town and
        // the postcode; Quebec and Ontario.
        let a = one(
            &["1234, rue Exemple, bureau 5", "Montréal (Québec) H2X 1Y4"],
            Some("CA"),
        );
        assert_eq!(a.street.as_deref(), Some("1234, rue Exemple, bureau 5"));
        assert_eq!(a.locality.as_deref(), Some("Montréal"));
        assert_eq!(a.region.as_deref(), Some("Québec"));
        assert_eq!(a.postal_code.as_deref(), Some("H2X 1Y4"));
        let a = one(&["45, promenade Exemple, Ottawa (Ontario) K1A 0B1"], None);
        assert_eq!(a.locality.as_deref(), Some("Ottawa"));
        assert_eq!(a.postal_code.as_deref(), Some("K1A 0B1"));
    }

    #[test]
    fn us_street_and_city_lines_from_separate_elements() {
        // `<span>742 Evergreen Terrace</span><span>Springfield, IL 62704</span>` inside a
        // block: the walker gives one line; inside separate blocks, two.
        let a = one(&["742 Evergreen Terrace Springfield, IL 62704"], None);
        assert_eq!(a.postal_code.as_deref(), Some("62704"));
        let a = one(
            &["Visit us", "742 Evergreen Terrace", "Springfield, IL 62704"],
            None,
        );
        assert_eq!(a.street.as_deref(), Some("742 Evergreen Terrace"));
        assert_eq!(a.locality.as_deref(), Some("Springfield"));
    }

    #[test]
    fn two_offices_on_one_page() {
        let found = from_lines(
            &[
                "London office",
                "10 Fleet Street",
                "London EC4Y 1AA",
                "Manchester office",
                "5 Deansgate",
                "Manchester M3 2BW",
            ],
            Some("GB"),
        );
        let codes: Vec<Option<&str>> = found
            .iter()
            .map(|a| a.parts.postal_code.as_deref())
            .collect();
        assert_eq!(codes, [Some("EC4Y 1AA"), Some("M3 2BW")]);
    }

    #[test]
    fn a_street_before_a_postcode_on_its_line_in_other_languages() {
        let a = one(
            &["Avenida Salvador Joan, 17 bajos. 07500 Manacor."],
            Some("ES"),
        );
        assert_eq!(a.postal_code.as_deref(), Some("07500"));
        let a = one(
            &["Neven DuMont-Haus, Amsterdamer Str.192, 50735 Köln"],
            Some("DE"),
        );
        assert_eq!(a.locality.as_deref(), Some("Köln"));
    }

    #[test]
    fn a_postcode_like_number_in_a_sentence_is_not_an_address() {
        for line in [
            "Over 1200 Kunden vertrauen uns seit 2004 Jahren",
            "Order 30 units at 12345 Express shipping",
        ] {
            let found = from_lines(&["Willkommen", line], Some("DE"));
            assert!(found.is_empty(), "{line}: {found:?}");
        }
    }

    /// (street, locality, postcode) of each address found on `lines`.
    fn street_town_zip(lines: &[&str], region: Option<&str>) -> Vec<[Option<String>; 3]> {
        from_lines(lines, region)
            .into_iter()
            .map(|a| [a.parts.street, a.parts.locality, a.parts.postal_code])
            .collect()
    }

    /// Asserts that `lines` on a page of `region` give one address, with `street`.
    fn assert_one_street(lines: &[&str], region: &str, street: &str) {
        let found = street_town_zip(lines, Some(region));
        assert_eq!(found.len(), 1, "{lines:?}: {found:?}");
        assert_eq!(found[0][0].as_deref(), Some(street), "{lines:?}");
    }

    /// Asserts that `lines` on a page of `region` give one address, with this street, town
    /// and postcode.
    fn assert_one_address(lines: &[&str], region: &str, [street, town, zip]: [&str; 3]) {
        assert_eq!(
            street_town_zip(lines, Some(region)),
            [parts(street, town, zip)],
            "{lines:?}"
        );
    }

    fn parts(street: &str, town: &str, zip: &str) -> [Option<String>; 3] {
        [street, town, zip].map(|p| Some(p.to_string()))
    }

    #[test]
    fn a_postcode_joined_to_a_box_number_is_the_box_s_post_office_s() {
        // Kenya, English: the town after the postcode, or on the line below.
        assert_eq!(
            street_town_zip(&["P.O. Box 12345-00100, Nairobi"], Some("KE")),
            [parts("P.O. Box 12345", "Nairobi", "00100")]
        );
        assert_eq!(
            street_town_zip(
                &["Sample Traders Ltd", "PO Box 678 - 80100", "Mombasa"],
                Some("KE")
            ),
            [parts("PO Box 678", "Mombasa", "80100")]
        );
        // A page of no region: the country named on the line below.
        assert_eq!(
            street_town_zip(&["P.O. Box 4321-00200", "Nairobi, Kenya"], None),
            [parts("P.O. Box 4321", "Nairobi", "00200")]
        );
        // Swahili.
        assert_eq!(
            street_town_zip(&["S.L.P. 9876-40100 Kisumu"], Some("KE")),
            [parts("S.L.P. 9876", "Kisumu", "40100")]
        );
        // No box word, no town, or a box word glued to a word: no address.
        for lines in [
            &["Invoice 12345-00100, Nairobi"][..],
            &["P.O. Box 12345-00100"],
            &["SHIPPO Box 12-00100 Nairobi"],
        ] {
            assert!(street_town_zip(lines, Some("KE")).is_empty(), "{lines:?}");
        }
    }

    #[test]
    fn an_address_read_without_and_with_its_postcode_is_one_address() {
        // Ireland: a postal district or a county line above the Eircode, or before it.
        for lines in [
            &["12 Sample Street", "Dublin 2", "D02 XY45"][..],
            &["12 Sample Street", "Dublin 2 D02 XY45"],
            &["12 Sample Street, Dublin 2, D02 XY45"],
        ] {
            assert_eq!(
                street_town_zip(lines, Some("IE")),
                [parts("12 Sample Street", "Dublin 2", "D02 XY45")],
                "{lines:?}"
            );
        }
        assert_eq!(
            street_town_zip(&["12 Sample Street", "Co. Cork", "T12 X2Y4"], Some("IE")),
            [parts("12 Sample Street", "Co. Cork", "T12 X2Y4")]
        );
        // Spain: a labelled street line with its town, the postcode line below.
        assert_eq!(
            street_town_zip(
                &["Dirección: Calle Mayor 5, Madrid", "28001 Madrid"],
                Some("ES")
            ),
            [parts("Calle Mayor 5", "Madrid", "28001")]
        );
    }

    #[test]
    fn an_address_label_above_the_postcode_line_is_no_part_of_the_street() {
        // Labels of the lexicon (`label.address`), a space before the colon allowed.
        for (lines, region, street) in [
            (
                &["Domicilio: Calle Mayor 5", "28001 Madrid"][..],
                "ES",
                "Calle Mayor 5",
            ),
            (
                &["Adresse : 3 rue Haute", "75001 Paris"],
                "FR",
                "3 rue Haute",
            ),
            (
                &["Indirizzo: Via Roma 12", "20121 Milano"],
                "IT",
                "Via Roma 12",
            ),
        ] {
            assert_one_street(lines, region, street);
        }
    }

    #[test]
    fn a_district_line_between_the_street_and_the_locality_line() {
        // Brazil: the bairro line, the postcode alone below the town (with its label or
        // without); New Zealand: the suburb line above `Town 1234`.
        for (lines, region, street, town, zip) in [
            (
                &[
                    "Exemplo Ltda",
                    "Rua das Flores, 123",
                    "Centro",
                    "Porto Alegre - RS",
                    "CEP 90010-150",
                ][..],
                "BR",
                "Rua das Flores, 123",
                "Porto Alegre",
                "90010-150",
            ),
            (
                &[
                    "Rua Exemplo, 45",
                    "Jardim América",
                    "Passo Fundo - RS",
                    "99010-000",
                ],
                "BR",
                "Rua Exemplo, 45",
                "Passo Fundo",
                "99010-000",
            ),
            (
                &["12 Sample Road", "Ponsonby", "Auckland 1011"],
                "NZ",
                "12 Sample Road",
                "Auckland",
                "1011",
            ),
        ] {
            assert_one_address(lines, region, [street, town, zip]);
        }
        // A name above the district line is no street.
        let lines = ["Sample Builders Ltd", "Ponsonby", "Auckland 1011"];
        assert!(street_town_zip(&lines, Some("NZ")).is_empty());
    }

    #[test]
    fn a_labelled_postcode_alone_below_the_town_line() {
        // Brazil (`CEP`), India (`PIN`): the town line above, the street above it.
        for (lines, region, street, town, zip) in [
            (
                &[
                    "Rua das Flores, 123 - Centro",
                    "Porto Alegre - RS",
                    "CEP 90010-150",
                ][..],
                "BR",
                "Rua das Flores, 123 - Centro",
                "Porto Alegre",
                "90010-150",
            ),
            (
                &["12, 5th Main Road", "Bengaluru, Karnataka", "PIN: 560034"],
                "IN",
                "12, 5th Main Road",
                "Bengaluru",
                "560034",
            ),
        ] {
            assert_one_address(lines, region, [street, town, zip]);
        }
    }

    #[test]
    fn a_visiting_address_label_of_the_nordic_languages_is_no_part_of_the_street() {
        for (lines, region, street) in [
            (&["Besøksadresse: Gata 1", "0155 Oslo"][..], "NO", "Gata 1"),
            (
                &["Besöksadress: Storgatan 5", "111 22 Stockholm"],
                "SE",
                "Storgatan 5",
            ),
            (
                &["Käyntiosoite: Esimerkkikatu 3", "00100 Helsinki"],
                "FI",
                "Esimerkkikatu 3",
            ),
        ] {
            assert_one_street(lines, region, street);
        }
    }

    #[test]
    fn a_numbered_street_with_a_district_after_it_is_the_whole_street_line() {
        // Brazil (`- Centro`), Mexico (`- Local 4`): the line above (a name, a registration
        // number) is no part of the street.
        assert_one_street(
            &[
                "Exemplo Ltda - CNPJ 12.345.678/0001-90",
                "Rua Sete, 77 - Centro, Passo Fundo - RS, 99025-030",
            ],
            "BR",
            "Rua Sete, 77 - Centro",
        );
        assert_one_street(
            &[
                "Ejemplo S.A. de C.V. - RFC EJE010101AB1",
                "Av. Juárez, 123 - Local 4, 06000 Ciudad de México",
            ],
            "MX",
            "Av. Juárez, 123 - Local 4",
        );
        // A unit first is no street: the street line above is read.
        assert_one_street(
            &["3900 Sample Avenue", "Suite 500, Sampleville, CO 80210"],
            "US",
            "3900 Sample Avenue, Suite 500",
        );
    }

    #[test]
    fn a_name_before_a_marked_house_number_is_no_part_of_the_street() {
        // India (`#45`), Nigeria (`No. 12`): the house number's mark opens the street, the
        // chunks after it belong to it.
        assert_one_street(
            &["Sample Clinic, #45, 1st Cross, Sample Layout, Bengaluru 560034"],
            "IN",
            "#45, 1st Cross, Sample Layout",
        );
        assert_one_street(
            &["Sample Ventures, No. 12, Sample Street, Ikeja 100001"],
            "NG",
            "No. 12, Sample Street",
        );
    }

    #[test]
    fn irish_addresses_without_an_eircode() {
        let a = one(
            &["O'Connor Hardware", "12 Main Street, Ballina, Co. Mayo"],
            Some("IE"),
        );
        assert_eq!(a.street.as_deref(), Some("12 Main Street"));
        assert_eq!(a.locality.as_deref(), Some("Ballina"));
        assert_eq!(a.region.as_deref(), Some("Co. Mayo"));
        assert_eq!(a.postal_code, None);
        let a = one(
            &["Unit 4, Sandyford Business Park", "Dublin 18"],
            Some("IE"),
        );
        assert_eq!(a.region.as_deref(), Some("Dublin 18"));
        assert!(a.street.is_some());
        // A county in prose is not an address.
        assert!(from_lines(&["We deliver all over Co. Mayo and beyond"], Some("IE")).is_empty());
    }

    #[test]
    fn german_impressum_block() {
        let a = one(
            &[
                "Impressum",
                "Beispiel GmbH",
                "Musterstraße 12",
                "10115 Berlin",
            ],
            Some("DE"),
        );
        assert_eq!(a.street.as_deref(), Some("Musterstraße 12"));
        assert_eq!(a.postal_code.as_deref(), Some("10115"));
        assert_eq!(a.locality.as_deref(), Some("Berlin"));
    }

    #[test]
    fn swedish_street_and_postcode_on_one_line() {
        for region in [Some("SE"), None] {
            let a = one(&["Kontakt", "Storgatan 50, 114 55 Stockholm"], region);
            assert_eq!(a.street.as_deref(), Some("Storgatan 50"), "{region:?}");
            assert_eq!(a.postal_code.as_deref(), Some("114 55"));
            assert_eq!(a.locality.as_deref(), Some("Stockholm"));
        }
    }

    #[test]
    fn a_copyright_year_is_not_a_postcode() {
        for line in [
            "© 2025 Studio Noord",
            "Copyright 2024 Studio Noord",
            "(c) 2023 Studio Noord",
        ] {
            let found = from_lines(&["Keizerstraat 12", line], Some("BE"));
            assert!(found.is_empty(), "{line}: {found:?}");
        }
        let a = one(&["Keizerstraat 12", "2000 Antwerpen"], Some("BE"));
        assert_eq!(a.postal_code.as_deref(), Some("2000"));
        // A Dutch-looking postcode after a copyright mark.
        let found = from_lines(
            &["info@schilder.nl", "© 2026 KL Schilderwerken. Privacy"],
            Some("NL"),
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn postcodes_with_country_letters() {
        let a = one(&["Stephansplatz 3, A-1010 Wien"], Some("AT"));
        assert_eq!(a.postal_code.as_deref(), Some("1010"));
        assert_eq!(a.locality.as_deref(), Some("Wien"));
        assert_eq!(a.street.as_deref(), Some("Stephansplatz 3"));
        // The letters tell the country on a page of none.
        let found = from_lines(&["Bahnhofstrasse 10", "CH-8001 Zürich"], None);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].region, "CH");
        assert_eq!(found[0].parts.postal_code.as_deref(), Some("8001"));
        assert_eq!(found[0].parts.street.as_deref(), Some("Bahnhofstrasse 10"));
    }

    #[test]
    fn italian_and_abbreviated_street_names() {
        let a = one(&["Via G. Verdi, 12 - 00100 Roma (RM)"], Some("IT"));
        assert_eq!(a.street.as_deref(), Some("Via G. Verdi, 12"));
        assert_eq!(a.postal_code.as_deref(), Some("00100"));
        assert_eq!(a.locality.as_deref(), Some("Roma"));
        let a = one(
            &["Studio Budapest: Szirom u. 27, 1116 Budapest"],
            Some("AT"),
        );
        assert_eq!(a.street.as_deref(), Some("Szirom u. 27"));
        // A street with its house number on the postcode line does not take the line above.
        let found = from_lines(
            &[
                "Studio Wien: Morzinplatz 4 / Salzgriesberg 3/II/4-5, 1010 Wien, Österreich",
                "Studio Budapest: Szirom u. 27, 1116 Budapest, Ungarn",
            ],
            Some("AT"),
        );
        let streets: Vec<Option<&str>> = found.iter().map(|a| a.parts.street.as_deref()).collect();
        assert_eq!(
            streets,
            [
                Some("Morzinplatz 4 / Salzgriesberg 3/II/4-5"),
                Some("Szirom u. 27")
            ]
        );
    }

    #[test]
    fn the_country_of_a_street_word_on_a_page_of_no_region() {
        let found = from_lines(
            &["Café des Arts", "7 rue des tanneurs", "53000 Laval"],
            None,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].region, "FR");
        assert_eq!(found[0].parts.street.as_deref(), Some("7 rue des tanneurs"));
        // English street words give no country: no European pattern on such pages.
        assert!(from_lines(&["Corporate Park", "1234 Main Street"], None).is_empty());
    }

    #[test]
    fn postcodes_of_other_shapes() {
        // Czech `123 45`, Polish `12-345`, town names with capitals outside ASCII.
        let a = one(&["Horní Lhota 42,", "783 13 Štěpánov"], Some("CZ"));
        assert_eq!(a.postal_code.as_deref(), Some("783 13"));
        assert_eq!(a.locality.as_deref(), Some("Štěpánov"));
        let a = one(&["Polna 12B", "98-235 Błaszki"], Some("PL"));
        assert_eq!(a.postal_code.as_deref(), Some("98-235"));
        assert_eq!(a.street.as_deref(), Some("Polna 12B"));
        assert!(from_lines(&["Tel. 12-345 678"], Some("PL")).is_empty());
    }

    /// Asserts that each (lines, region) holds one address, with that postcode, locality
    /// and street.
    fn addresses(cases: &[(&[&str], &str, [&str; 3])]) {
        for (lines, region, [postcode, locality, street]) in cases {
            let a = one(lines, Some(region));
            let got = [a.postal_code, a.locality, a.street];
            let want = [postcode, locality, street].map(|p| Some(p.to_string()));
            assert_eq!(got, want, "{lines:?}");
        }
    }

    /// Postcodes before the locality in countries the data writes so (`%Z %C`): Mexico,
    /// Turkey, Iceland (three digits).
    #[test]
    fn postcodes_before_the_locality_from_the_data() {
        addresses(&[
            (
                &[
                    "Av. de los Almendros 314, Col. Jardines",
                    "45040 Zapopan, Jal.",
                ],
                "MX",
                [
                    "45040",
                    "Zapopan",
                    "Av. de los Almendros 314, Col. Jardines",
                ],
            ),
            (
                &["Lale Sok. No:8, 06420 Çankaya/Ankara"],
                "TR",
                ["06420", "Çankaya", "Lale Sok. No:8"],
            ),
            (
                &["Hafnargata 7", "230 Reykjanesbær"],
                "IS",
                ["230", "Reykjanesbær", "Hafnargata 7"],
            ),
        ]);
        // A postcode that does not validate for the page's country is not one.
        assert!(from_lines(&["Hauptstraße 4", "1234 Berlin"], Some("DE")).is_empty());
    }

    /// Postcodes after the locality (`%C %Z`): an Indian PIN (also printed 3 + 3) and a
    /// Singapore postcode after the country's name.
    #[test]
    fn postcodes_after_the_locality_from_the_data() {
        addresses(&[
            (
                &["14 Lotus Garden Road, Velachery", "Chennai 600 042"],
                "IN",
                ["600 042", "Chennai", "14 Lotus Garden Road, Velachery"],
            ),
            (
                &["No. 5, Third Cross Road, Pune - 411001"],
                "IN",
                ["411001", "Pune", "No. 5, Third Cross Road"],
            ),
            (
                &[
                    "80 Kingfisher Quay Road, #12-04",
                    "Harbour Point, Singapore 049321",
                ],
                "SG",
                [
                    "049321",
                    "Singapore",
                    "80 Kingfisher Quay Road, #12-04, Harbour Point",
                ],
            ),
        ]);
        // Six digits inside a phone number or an amount are not a PIN.
        for line in ["Call +91 98400 123456 today", "Fees from 250000 per year"] {
            assert!(from_lines(&[line], Some("IN")).is_empty(), "{line}");
        }
    }

    /// Postcodes on a line of their own after the locality's (`%C%n%Z`): a Brazilian CEP
    /// after `City - ST` (its state kept as the region), a four-digit South African code.
    #[test]
    fn postcodes_on_their_own_line_from_the_data() {
        let a = one(
            &["Rua das Palmeiras, 210", "Curitiba - PR", "80020-310"],
            Some("BR"),
        );
        assert_eq!(a.region.as_deref(), Some("PR"));
        addresses(&[
            (
                &[
                    "Rua das Palmeiras, 210 - Centro",
                    "Curitiba - PR",
                    "80020-310",
                ],
                "BR",
                ["80020-310", "Curitiba", "Rua das Palmeiras, 210 - Centro"],
            ),
            (
                &["22 Protea Lane, Rondebosch", "Cape Town", "7700"],
                "ZA",
                ["7700", "Cape Town", "22 Protea Lane, Rondebosch"],
            ),
        ]);
        // A year or a count alone on its line is not a postcode.
        assert!(from_lines(&["Since", "1998"], Some("ZA")).is_empty());
    }

    /// The one address of `line` on a page of `page` region, asserting its
    /// `[street, locality, postcode]`.
    fn assert_parts(line: &str, page: Option<&str>, parts: [&str; 3]) -> TextAddress {
        let found = from_lines(&[line], page);
        assert_eq!(found.len(), 1, "{line}: {found:?}");
        let a = &found[0].parts;
        let got = [&a.street, &a.locality, &a.postal_code].map(|p| p.as_deref());
        assert_eq!(got, parts.map(Some), "{line}");
        found[0].clone()
    }

    /// A house number after its mark and a colon (`No: 12`, `Nº: 4`) is the street's, not a
    /// field after a label: Turkey, Spain.
    #[test]
    fn a_house_number_mark_with_a_colon_stays_in_the_street() {
        for (line, page, street, locality, postcode) in [
            (
                "Bağdat Cad. No: 12, 34728 Kadıköy",
                "TR",
                "Bağdat Cad. No: 12",
                "Kadıköy",
                "34728",
            ),
            (
                "Calle Mayor Nº: 4, 28013 Madrid",
                "ES",
                "Calle Mayor Nº: 4",
                "Madrid",
                "28013",
            ),
        ] {
            assert_parts(line, Some(page), [street, locality, postcode]);
        }
    }

    /// Street types of Czech and Slovak (`náměstí`, `třída`, `námestie`, `ulica`) keep the
    /// street's name before its house number.
    #[test]
    fn czech_and_slovak_street_types() {
        for (line, page, street, locality, postcode) in [
            (
                "Husovo náměstí 12, 602 00 Brno",
                "CZ",
                "Husovo náměstí 12",
                "Brno",
                "602 00",
            ),
            (
                "Hlavné námestie 7, 811 01 Bratislava",
                "SK",
                "Hlavné námestie 7",
                "Bratislava",
                "811 01",
            ),
        ] {
            assert_parts(line, Some(page), [street, locality, postcode]);
        }
    }

    /// Fields of a footer line separated by ` - `, ` · ` or ` | ` (name, street, postcode and
    /// town): the street is its own field, not the name before it nor half of it.
    #[test]
    fn separated_fields_of_a_footer_line() {
        for (line, page, street, locality, postcode) in [
            (
                "Exemple SARL - 12 rue des Lilas - 69003 Lyon",
                "FR",
                "12 rue des Lilas",
                "Lyon",
                "69003",
            ),
            (
                "Esempio Srl - Via Roma 12 - 20121 Milano",
                "IT",
                "Via Roma 12",
                "Milano",
                "20121",
            ),
            (
                "Example Ltd · 12 High Street · Bristol BS1 4DJ",
                "GB",
                "12 High Street",
                "Bristol",
                "BS1 4DJ",
            ),
            (
                "Beispiel GmbH | Lindenstraße 40 | 10115 Berlin",
                "DE",
                "Lindenstraße 40",
                "Berlin",
                "10115",
            ),
        ] {
            assert_parts(line, Some(page), [street, locality, postcode]);
        }
    }

    /// A country printed in the address line (its last part, or a city-state's name before
    /// the postcode) gives the postcode's country on a page of no known region (a `.com`
    /// site): Malaysia (postcode before the town), Singapore, Israel (seven digits), India.
    #[test]
    fn a_country_printed_in_the_address_line_gives_its_postcode_format() {
        for (line, region, street, locality, postcode) in [
            (
                "Lot 12, Jalan Cempaka 3, 50450 Kuala Lumpur, Malaysia",
                "MY",
                "Lot 12, Jalan Cempaka 3",
                "Kuala Lumpur",
                "50450",
            ),
            (
                "25 Example Road, #04-11, Singapore 049123",
                "SG",
                "25 Example Road, #04-11",
                "Singapore",
                "049123",
            ),
            (
                "14 Oren Street, Haifa 3303123, Israel",
                "IL",
                "14 Oren Street",
                "Haifa",
                "3303123",
            ),
            (
                "12, Station Road, Pune 411001, Maharashtra, India",
                "IN",
                "12, Station Road",
                "Pune",
                "411001",
            ),
        ] {
            let found = assert_parts(line, None, [street, locality, postcode]);
            assert_eq!(found.region, region, "{line}");
        }
        // A country's name alone does not make a number a postcode.
        assert!(from_lines(&["Over 25000 customers in Malaysia"], None).is_empty());
        assert!(from_lines(&["Founded 1998, Singapore 2000 award"], None).is_empty());
    }

    /// The region printed after the postcode in the layouts that put it there (`%C %Z%n%S`:
    /// Peru, India, Nigeria) ends the address like a country does.
    #[test]
    fn the_region_after_the_postcode_ends_the_address() {
        for (line, page, street, locality, postcode) in [
            (
                "Av. Los Olivos 1234, Miraflores 15074, Lima",
                "PE",
                "Av. Los Olivos 1234",
                "Miraflores",
                "15074",
            ),
            (
                "12, Station Road, Pune 411001, Maharashtra",
                "IN",
                "12, Station Road",
                "Pune",
                "411001",
            ),
            (
                "8 Example Crescent, Ikeja 100271, Lagos State",
                "NG",
                "8 Example Crescent",
                "Ikeja",
                "100271",
            ),
        ] {
            assert_parts(line, Some(page), [street, locality, postcode]);
        }
        // A sentence after the number is no region.
        assert!(from_lines(&["Miraflores 15074, we deliver everywhere"], Some("PE")).is_empty());
    }

    /// Every one-word phone and email label of the lexicon, as written, with a colon or a dot
    /// after it, is a field label (`Berlin Telefon`, `Berlin Tel.:` end the town).
    #[test]
    fn every_one_word_phone_and_email_label_is_a_field_label() {
        let labels = lexicon::words(Words::LabelPhone).chain(lexicon::words(Words::LabelEmail));
        for label in labels.filter(|l| !l.contains(char::is_whitespace)) {
            for written in [label.to_string(), format!("{label}:"), format!("{label}.:")] {
                assert!(is_field_label(&written), "{written}");
            }
        }
    }

    /// [`region_after_postcode`] alone: the region in the layouts that print it after the
    /// postcode (India and Peru `%C %Z%n%S`, Venezuela `%C %Z, %S`), then nothing, a field
    /// separator or a country; never in other layouts, never a sentence, a street or a name
    /// of more than three words.
    #[test]
    fn the_region_printed_after_the_postcode() {
        let format = |code: &str| postcode::format(code).unwrap();
        let region = |after: &'static str, code: &str| region_after_postcode(after, format(code));
        assert_eq!(region(", Tamil Nadu", "IN"), Some("Tamil Nadu"));
        assert_eq!(region(", Lima, Perú", "PE"), Some("Lima"));
        assert_eq!(region(" Lima.", "PE"), Some("Lima"));
        assert_eq!(region(", Miranda | Tel. 0212", "VE"), Some("Miranda"));
        assert_eq!(region(", Pest megye", "HU"), None);
        assert_eq!(region(", we deliver everywhere", "PE"), None);
        assert_eq!(region(", Calle Principal", "VE"), None);
        assert_eq!(region(", San Juan de Lurigancho", "PE"), None);
        assert_eq!(region(", Lima, open daily", "PE"), None);
        // A country's name there is no region (the address ends with it).
        assert_eq!(region(", România", "RO"), None);
        assert_eq!(region(", Perú", "PE"), None);
        assert_eq!(region(", India", "IN"), None);
        // `ends_address` takes the region where the layout has one, a country everywhere.
        let ends = |after: &str, code: &str| ends_address(after, postcode::format(code).unwrap());
        assert!(ends(", Maharashtra", "IN") && !ends(", Maharashtra", "HU"));
        assert!(ends(", India", "IN") && ends(", Austria", "HU") && ends(" | Tel", "HU"));
    }

    /// A district between the street and the postcode on one line, in the countries whose
    /// layout has one (`%D`): Malaysia's taman/bandar, Mexico's colonia.
    #[test]
    fn a_district_before_the_postcode_on_the_street_line() {
        for (line, page, street, locality, postcode) in [
            (
                "No. 8, Jalan Kenari 5, Bandar Puchong Jaya, 47100 Puchong, Selangor",
                "MY",
                "No. 8, Jalan Kenari 5",
                "Puchong",
                "47100",
            ),
            (
                "Calle Robles 45, Colonia Centro, 44100 Guadalajara, Jalisco",
                "MX",
                "Calle Robles 45",
                "Guadalajara",
                "44100",
            ),
        ] {
            assert_parts(line, Some(page), [street, locality, postcode]);
        }
    }

    /// A postcode after its label (`C.P.`, `CEP`, `PIN`) tells the country on a page of no
    /// known region (a `.com` site): Mexico, Brazil, India.
    #[test]
    fn labelled_postcodes_name_their_country() {
        let found = from_lines(
            &[
                "con domicilio en Calle Naranjos 52, Col. Las Flores,",
                "Puebla, Puebla, C.P. 72160, México.",
            ],
            None,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].region, "MX");
        let a = &found[0].parts;
        assert_eq!(a.postal_code.as_deref(), Some("72160"));
        assert_eq!(a.locality.as_deref(), Some("Puebla"));
        assert_eq!(
            a.street.as_deref(),
            Some("Calle Naranjos 52, Col. Las Flores")
        );
        let found = from_lines(
            &["Av. Ipê Amarelo, 455, Porto Alegre - RS, CEP 90480-001"],
            None,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].region, "BR");
        assert_eq!(found[0].parts.postal_code.as_deref(), Some("90480-001"));
        let found = from_lines(&["Plot 9, Sector 4, Noida, PIN: 201301"], None);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].region, "IN");
        assert_eq!(found[0].parts.locality.as_deref(), Some("Noida"));
    }

    /// Asserts that each (lines, region) holds one address, with that street.
    fn streets(cases: &[(&[&str], &str, &str)]) {
        for (lines, region, street) in cases {
            let a = one(lines, Some(region));
            assert_eq!(a.street.as_deref(), Some(*street), "{lines:?}");
        }
    }

    /// A separator between street and postcode (`·`, `•`) and a province in parentheses
    /// after the town (Spain, France).
    #[test]
    fn a_separator_before_the_postcode_and_a_province_after_the_town() {
        streets(&[
            (
                &["Domicilio: Camino Real, 4 · 28310 Villaverde (Madrid), España."],
                "ES",
                "Camino Real, 4",
            ),
            (
                &["Siège : 3 rue des Lilas • 69003 Lyon (Rhône)"],
                "FR",
                "3 rue des Lilas",
            ),
        ]);
    }

    /// A registration number and the words that introduce the seat are not the street
    /// (Slovakia, Czechia).
    #[test]
    fn a_registration_number_before_the_street_is_not_the_street() {
        streets(&[
            (&["Spoločnosť Vzor, s.r.o., IČO: 35 123 456 , so sídlom Lipová 12, 917 01 Trnava, zapísaná"], "SK", "Lipová 12"),
            (&["Firma Vzor s.r.o., IČ: 27 123 456, se sídlem Polní 8, 779 00 Olomouc"], "CZ", "Polní 8"),
        ]);
    }

    /// A district line (`%D`: colonia, taman) between the street and the postcode line
    /// (Mexico, Malaysia).
    #[test]
    fn a_district_line_between_street_and_postcode() {
        streets(&[
            (
                &[
                    "Paseo de los Pinos 45,",
                    "Fraccionamiento Las Lomas,",
                    "62250 Cuernavaca, Mor.",
                ],
                "MX",
                "Paseo de los Pinos 45",
            ),
            (
                &[
                    "12 Jalan Mawar 3",
                    "Taman Bunga Raya",
                    "43000 Kajang, Selangor",
                ],
                "MY",
                "12 Jalan Mawar 3",
            ),
        ]);
    }

    /// The country after a labelled postcode, then the next field (`México. Contacto:`).
    #[test]
    fn a_country_then_the_next_field_after_a_labelled_postcode() {
        let found = from_lines(
            &["Calle Olmo 9, Toluca, C.P. 50120, México. Contacto:"],
            None,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].region, "MX");
        let found = from_lines(
            &["Rua Ipê 45, Recife - PE, CEP 50030-230, Brasil. Fone:"],
            None,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].region, "BR");
    }

    /// An address label opens the address: the line above it is another field (Dutch,
    /// German opening hours).
    #[test]
    fn an_address_label_opens_the_address() {
        streets(&[
            (
                &[
                    "Zaterdag",
                    "08:00 - 17:00",
                    "Adres: Kerkstraat 5",
                    "1234 AB Dorpveld",
                ],
                "NL",
                "Kerkstraat 5",
            ),
            (
                &[
                    "Samstag",
                    "09:00 - 13:00",
                    "Adresse: Lindenweg 3",
                    "10115 Berlin",
                ],
                "DE",
                "Lindenweg 3",
            ),
        ]);
    }

    /// A house number alone names no street: the chunks before it are the street (Spain,
    /// Italy).
    #[test]
    fn a_house_number_chunk_takes_the_chunks_before_it() {
        streets(&[
            (
                &["Domicilio: Paraje Los Olivos, 7 · 04200 Tabernas (Almería)"],
                "ES",
                "Paraje Los Olivos, 7",
            ),
            (
                &["Sede: Località Poggio Alto, 12 - 53100 Siena"],
                "IT",
                "Località Poggio Alto, 12",
            ),
        ]);
    }

    /// In the countries whose layout has a district (`%D`), a place name after the house
    /// number on the street line is the district, not the street (Mexico, Malaysia).
    #[test]
    fn a_district_after_the_house_number_is_not_the_street() {
        streets(&[
            (
                &[
                    "Calle Encino 210, Centro,",
                    "Barrio Alto,",
                    "50100 Toluca, Méx.",
                ],
                "MX",
                "Calle Encino 210",
            ),
            (
                &[
                    "Lot 8 Jalan Cempaka 2, Seri Kembangan",
                    "Taman Mewah",
                    "43300 Serdang",
                ],
                "MY",
                "Lot 8 Jalan Cempaka 2",
            ),
        ]);
    }

    /// A street word that starts like another field's label (`Calle`, `call`) is a street
    /// (Spain, Mexico).
    #[test]
    fn a_street_word_that_starts_like_a_label() {
        streets(&[
            (&["Calle Mayor 5", "28013 Madrid"], "ES", "Calle Mayor 5"),
            (
                &["Calle Encino 210", "50100 Toluca, Méx."],
                "MX",
                "Calle Encino 210",
            ),
        ]);
    }

    /// A state code before a longer number (`PR 86010-190`, a Brazilian state and CEP) is
    /// no US state and ZIP code; a ZIP+4 code still is.
    #[test]
    fn a_zip_code_does_not_go_on_with_other_digits() {
        assert!(from_lines(&["Av. Higienópolis 100", "Londrina - PR 86010-190"], None).is_empty());
        let a = one(&["1 Calle Luna", "San Juan, PR 00901-1234"], None);
        assert_eq!(a.postal_code.as_deref(), Some("00901-1234"));
    }

    #[test]
    fn a_labelled_street_without_postcode() {
        let a = one(
            &["Domicilio: AVENIDA MONEGROS 24, TAUSTE, ZARAGOZA"],
            Some("ES"),
        );
        assert_eq!(a.street.as_deref(), Some("AVENIDA MONEGROS 24"));
        assert_eq!(a.locality.as_deref(), Some("TAUSTE"));
        assert_eq!(a.region.as_deref(), Some("ZARAGOZA"));
        assert_eq!(a.postal_code, None);
        let a = one(&["Adresse: Hauptstraße 5, Graz"], Some("AT"));
        assert_eq!(a.street.as_deref(), Some("Hauptstraße 5"));
        // Without a label, a street word, a house number or a town: no address.
        for line in [
            "AVENIDA MONEGROS 24, TAUSTE, ZARAGOZA",
            "Domicilio: el que figura en el registro, 16",
            "Adresse: Hauptstraße, Graz",
            "Adresse: Hauptstraße 5",
            "Address: info@acme.com",
        ] {
            assert!(from_lines(&[line], Some("ES")).is_empty(), "{line}");
        }
    }

    #[test]
    fn a_town_line_before_its_street() {
        let a = one(
            &[
                "Ingenieurbüro für Vermessung",
                "77652 Offenburg",
                "Lindenstrasse 14",
                "fon 0781 123456",
            ],
            Some("DE"),
        );
        assert_eq!(a.postal_code.as_deref(), Some("77652"));
        assert_eq!(a.street.as_deref(), Some("Lindenstrasse 14"));
    }

    #[test]
    fn a_postcode_and_town_without_a_street() {
        // Next to contact details: an address with no street.
        let a = one(
            &[
                "Kontakt",
                "47051 Duisburg",
                "Impressum",
                "+49 176 123 456 78",
            ],
            Some("DE"),
        );
        assert_eq!(a.postal_code.as_deref(), Some("47051"));
        assert_eq!(a.locality.as_deref(), Some("Duisburg"));
        assert_eq!(a.street, None);
        // Alone, or followed by more words: a counter, not an address.
        for lines in [
            &["Unsere Zahlen", "12000 Kunden", "Seit 1998"][..],
            &[
                "Kontakt",
                "47051 Duisburg und Umgebung sind unser Gebiet",
                "+49 176 123 456 78",
            ],
        ] {
            assert!(from_lines(lines, Some("DE")).is_empty(), "{lines:?}");
        }
    }

    #[test]
    fn us_single_line_footer() {
        let a = one(
            &["sales@x.com | phone: 510-555-0100 | 2750 Mariner Court, Fremont CA 94539 USA"],
            None,
        );
        assert_eq!(a.street.as_deref(), Some("2750 Mariner Court"));
        assert_eq!(a.locality.as_deref(), Some("Fremont"));
        assert_eq!(a.region.as_deref(), Some("CA"));
        assert_eq!(a.postal_code.as_deref(), Some("94539"));
        assert_eq!(a.country.as_deref(), Some("USA"));
    }

    #[test]
    fn us_multi_line_block_with_business_name_above() {
        let a = one(
            &[
                "Quillmark Tooling, Inc.",
                "730 North Lock 7 Road",
                "Greenwood, IN 46143",
                "Phone: 317-555-0142",
            ],
            None,
        );
        assert_eq!(a.street.as_deref(), Some("730 North Lock 7 Road"));
        assert_eq!(a.locality.as_deref(), Some("Greenwood"));
        assert_eq!(a.postal_code.as_deref(), Some("46143"));
    }

    #[test]
    fn canada_suite_on_town_line() {
        let a = one(&["95 Millway Pkwy", "Suite 7 Concord, ON L4K 5Z9"], None);
        assert_eq!(a.locality.as_deref(), Some("Concord"));
        assert_eq!(a.postal_code.as_deref(), Some("L4K 5Z9"));
        assert_eq!(a.street.as_deref(), Some("95 Millway Pkwy, Suite 7"));
    }

    #[test]
    fn gb_and_nl_and_au() {
        let a = one(
            &["Unit 5 Heron Court, 312 Aldwick Road, Hampstead, London NW3 9ZZ"],
            Some("GB"),
        );
        assert_eq!(a.postal_code.as_deref(), Some("NW3 9ZZ"));
        assert_eq!(a.locality.as_deref(), Some("London"));
        assert_eq!(
            a.street.as_deref(),
            Some("Unit 5 Heron Court, 312 Aldwick Road, Hampstead")
        );
        let a = one(&["Molenstraat 48", "4531 XB Terneuzen"], Some("NL"));
        assert_eq!(
            (
                a.street.as_deref(),
                a.postal_code.as_deref(),
                a.locality.as_deref()
            ),
            (Some("Molenstraat 48"), Some("4531 XB"), Some("Terneuzen"))
        );
        let a = one(&["Lvl2 917 Pacific Hwy", "Gordon NSW 2072"], Some("AU"));
        assert_eq!(a.postal_code.as_deref(), Some("2072"));
    }

    #[test]
    fn postcode_on_its_own_line() {
        let a = one(
            &[
                "Northfield Valve Supply",
                "4410 - Parsons Road",
                "Edmonton, Alberta",
                "T6E 5Z9",
                "Canada",
            ],
            None,
        );
        assert_eq!(a.postal_code.as_deref(), Some("T6E 5Z9"));
        assert_eq!(a.locality.as_deref(), Some("Edmonton"));
        assert_eq!(a.street.as_deref(), Some("4410 - Parsons Road"));
        let a = one(&["17 Chandlers Place, Isle of Dogs,", "E14 8ZZ."], None);
        assert_eq!(a.postal_code.as_deref(), Some("E14 8ZZ"));
    }

    #[test]
    fn labelled_lines_and_floor_lines() {
        let a = one(
            &[
                "Address:",
                "17 Chandlers Place, Isle of Dogs.",
                "Postcode:",
                "E14 8ZZ.",
            ],
            None,
        );
        assert_eq!(a.postal_code.as_deref(), Some("E14 8ZZ"));
        assert_eq!(
            a.street.as_deref(),
            Some("17 Chandlers Place, Isle of Dogs")
        );
        let a = one(
            &["1432 Vermont Ave., NW", "6th Floor", "Washington, DC 20005"],
            None,
        );
        assert_eq!(
            a.street.as_deref(),
            Some("1432 Vermont Ave., NW, 6th Floor")
        );
    }

    #[test]
    fn a_postcode_line_is_not_the_street_of_the_next_address() {
        let found = from_lines(
            &[
                "Markt 87c",
                "5701 XK HELMOND",
                "Postbus 412",
                "5700 AB HELMOND",
            ],
            Some("NL"),
        );
        assert_eq!(found.len(), 2);
        assert_eq!(found[1].parts.street.as_deref(), Some("Postbus 412"));
    }

    #[test]
    fn us_directionals_are_not_dutch_postcodes() {
        let found = from_lines(
            &[
                "(503) 555-0147",
                "3140 SW Kelly Avenue, Suite 210",
                "Portland, OR 97239",
            ],
            None,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].parts.postal_code.as_deref(), Some("97239"));
    }

    #[test]
    fn no_address_without_postcode_shape() {
        assert!(from_lines(&["We serve Denver, Littleton and Aurora"], None).is_empty());
        assert!(from_lines(&["Open 9 to 5, call 0800 123 4567"], Some("GB")).is_empty());
        assert!(from_lines(&["KvK 17123456"], Some("NL")).is_empty());
    }

    /// Region-first addresses (Japan, China, Taiwan) without a postcode, or with the Japanese
    /// `〒` before them or alone on the line above, on pages of their region or of none.
    #[test]
    fn region_first_addresses_of_east_asia() {
        let parts = |a: &TextAddress| {
            [
                a.parts.postal_code.clone(),
                a.parts.region.clone(),
                a.parts.locality.clone(),
                a.parts.street.clone(),
            ]
        };
        let some = |p: [Option<&str>; 4]| p.map(|p| p.map(str::to_string));
        for (lines, page, region, want) in [
            (
                &["診療時間 9:00-19:00", "大阪府堺市北区本町3丁目4-5"][..],
                None,
                "JP",
                [None, Some("大阪府"), Some("堺市北区"), Some("本町3丁目4-5")],
            ),
            (
                &["住所：〒160-0023 東京都新宿区西新宿2丁目8番1号 見本ビル3F"],
                Some("JP"),
                "JP",
                [
                    Some("160-0023"),
                    Some("東京都"),
                    Some("新宿区"),
                    Some("西新宿2丁目8番1号"),
                ],
            ),
            (
                &["〒600-8001", "京都府京都市下京区四条通1-2"],
                None,
                "JP",
                [
                    Some("600-8001"),
                    Some("京都府"),
                    Some("京都市下京区"),
                    Some("四条通1-2"),
                ],
            ),
            (
                &["地址：广东省深圳市南山区科技路18号"],
                None,
                "CN",
                [
                    None,
                    Some("广东省"),
                    Some("深圳市南山区"),
                    Some("科技路18号"),
                ],
            ),
            (
                &["地址：台北市中正區重慶南路一段12號"],
                Some("TW"),
                "TW",
                [None, None, Some("台北市中正區"), Some("重慶南路一段12號")],
            ),
        ] {
            let found = from_lines(lines, page);
            assert_eq!(found.len(), 1, "{lines:?}: {found:?}");
            assert_eq!(found[0].region, region, "{lines:?}");
            assert_eq!(parts(&found[0]), some(want), "{lines:?}");
        }
        // Prose that names a place, an address prose goes on from, a number without a
        // locality, and a page of another region.
        for (line, page) in [
            ("大阪府東大阪市にある整骨院です", None),
            ("当院は大阪府堺市北区本町3丁目4-5にあります", None),
            ("2019年に東京都で開業、3店舗", None),
            ("東京都内に12店舗", Some("JP")),
            ("東京都新宿区西新宿2丁目8番1号", Some("DE")),
        ] {
            assert!(from_lines(&[line], page).is_empty(), "{line}");
        }
    }

    /// A British county between the post town and the postcode is the region: England,
    /// Scotland and Wales, on the postcode line, as the line above it, and with the town
    /// closing the street lines.
    #[test]
    fn a_county_before_a_british_postcode_is_no_locality() {
        let parts = |lines: &[&str]| {
            let a = one(lines, Some("GB"));
            [a.street, a.locality, a.region]
        };
        let some = |p: [&str; 3]| p.map(|p| Some(p.to_string()));
        assert_eq!(
            parts(&["Unit 4, Mill Lane, Market Harbury, Hampshire, SO21 9ZZ"]),
            some(["Unit 4, Mill Lane", "Market Harbury", "Hampshire"])
        );
        assert_eq!(
            parts(&["Acme Ltd", "2 Quarry Road", "Kirkbrae, Fife", "KY16 9ZZ"]),
            some(["2 Quarry Road", "Kirkbrae", "Fife"])
        );
        assert_eq!(
            parts(&["Unit 7, Dyffryn Business Park, Llanfach", "Powys LD1 9ZZ"]),
            some(["Unit 7, Dyffryn Business Park", "Llanfach", "Powys"])
        );
        assert_eq!(
            parts(&["9 Harbour Walk", "Seabridge", "Devon", "EX1 9ZZ"]),
            some(["9 Harbour Walk", "Seabridge", "Devon"])
        );
        // A town is still the locality.
        let a = one(&["12 High Street, Oxford OX1 9ZZ"], Some("GB"));
        assert_eq!(a.locality.as_deref(), Some("Oxford"));
        assert_eq!(a.region, None);
    }

    /// An address inside a paragraph: the street is in its own sentence, not a line above
    /// (English, Spanish).
    #[test]
    fn an_address_inside_a_paragraph_takes_its_street_from_its_sentence() {
        let a = one(
            &[
                "Last updated: March 2026",
                "Harbour Cabs is a sole trader business run by its owner, trading as Harbour Cabs. Our registered business address is 4 Mill Street, Seabridge, Devon, EX1 9ZZ.",
            ],
            Some("GB"),
        );
        assert_eq!(a.street.as_deref(), Some("4 Mill Street"));
        assert_eq!(a.locality.as_deref(), Some("Seabridge"));
        let a = one(
            &[
                "Actualizado: marzo de 2026",
                "Talleres Ejemplo es una empresa familiar con treinta años de oficio. Nuestra empresa tiene su domicilio en Calle Mayor 5, 28013 Madrid.",
            ],
            Some("ES"),
        );
        assert_eq!(a.street.as_deref(), Some("Calle Mayor 5"));
        assert_eq!(a.locality.as_deref(), Some("Madrid"));
    }

    /// Field labels glued into the address line without a colon: the address label before
    /// the street, a phone label after the town (German, English, Dutch).
    #[test]
    fn labels_glued_into_the_address_line_are_not_street_or_town() {
        let a = one(
            &["Adresse Lindenweg 3, 10115 Berlin Telefon +49 30 1234567"],
            Some("DE"),
        );
        assert_eq!(a.street.as_deref(), Some("Lindenweg 3"));
        assert_eq!(a.locality.as_deref(), Some("Berlin"));
        let a = one(&["Address 4 Mill Street, Seabridge EX1 9ZZ"], Some("GB"));
        assert_eq!(a.street.as_deref(), Some("4 Mill Street"));
        let a = one(
            &["Adres Kerkstraat 5, 1234 AB Zandvoort Telefoon 023 1234567"],
            Some("NL"),
        );
        assert_eq!(a.street.as_deref(), Some("Kerkstraat 5"));
        assert_eq!(a.locality.as_deref(), Some("Zandvoort"));
    }

    /// Premise lines above the street line (class `address.premise`: floor, unit, building,
    /// tower …) are part of the street; a town line above the street line is not (English
    /// (GB), German, Spanish, Dutch).
    #[test]
    fn a_premise_line_above_the_street_line_belongs_to_the_street() {
        let a = one(
            &[
                "Harbour Design Ltd",
                "2nd Floor Mill House",
                "24 Quay Street",
                "Seabridge EX1 9ZZ",
            ],
            Some("GB"),
        );
        assert_eq!(
            a.street.as_deref(),
            Some("2nd Floor Mill House, 24 Quay Street")
        );
        let a = one(
            &[
                "Muster Werkstatt GmbH",
                "Gebäude B",
                "Lindenweg 3",
                "10115 Berlin",
            ],
            Some("DE"),
        );
        assert_eq!(a.street.as_deref(), Some("Gebäude B, Lindenweg 3"));
        let a = one(
            &[
                "Talleres Ejemplo",
                "Edificio Sol",
                "Calle Mayor 5",
                "28013 Madrid",
            ],
            Some("ES"),
        );
        assert_eq!(a.street.as_deref(), Some("Edificio Sol, Calle Mayor 5"));
        // The town printed above the street line is no part of it.
        let a = one(
            &[
                "Openingstijden",
                "St. Annadorp",
                "Kerkstraat 5",
                "1234 AB, St. Annadorp",
            ],
            Some("NL"),
        );
        assert_eq!(a.street.as_deref(), Some("Kerkstraat 5"));
        let a = one(&["St. Marien", "Lindenweg 3", "10115 Berlin"], Some("DE"));
        assert_eq!(a.street.as_deref(), Some("Lindenweg 3"));
        // A premise line above a street on the postcode line.
        let a = one(
            &[
                "Harbour Design Ltd",
                "Unit 4 Riverside Court",
                "12 Mill Lane, Seabridge EX1 9ZZ",
            ],
            Some("GB"),
        );
        assert_eq!(
            a.street.as_deref(),
            Some("Unit 4 Riverside Court, 12 Mill Lane")
        );
    }

    /// After an address label, the place chunks before the street are the address's (class
    /// `address.district_before_street`: a neighbourhood or district printed before the street,
    /// Turkish `Deniz, Örnek Cad No:15/1`, Indian `Samplenagar, 100 Feet Road`, Spanish
    /// `Polígono Norte, Calle A 12`); a name with a legal form there is still the business's,
    /// and without a label a chunk before the street is its name.
    #[test]
    fn a_district_before_the_street_after_an_address_label_is_the_streets() {
        let a = one(
            &["Adres: Deniz, Örnek Cad No:15/1, 35310 Güzelbahçe/İzmir"],
            Some("TR"),
        );
        assert_eq!(a.street.as_deref(), Some("Deniz, Örnek Cad No:15/1"));
        let a = one(
            &["Address: Samplenagar, 100 Feet Road, Bengaluru 560038"],
            Some("IN"),
        );
        assert_eq!(a.street.as_deref(), Some("Samplenagar, 100 Feet Road"));
        let a = one(
            &["Dirección: Polígono Norte, Calle A 12, 28001 Madrid"],
            Some("ES"),
        );
        assert_eq!(a.street.as_deref(), Some("Polígono Norte, Calle A 12"));
        // A legal form names the business, label or not.
        let a = one(
            &["Adresse: Muster GmbH, Lindenweg 3, 10115 Berlin"],
            Some("DE"),
        );
        assert_eq!(a.street.as_deref(), Some("Lindenweg 3"));
        // Without a label the chunk before the street is the business's name.
        let a = one(&["Clare Bikes, 12 Main Street, Ennis V95 T2K3"], Some("IE"));
        assert_eq!(a.street.as_deref(), Some("12 Main Street"));
    }

    /// A street line that ends with a street type's abbreviation keeps its full stop, as the
    /// page prints it and as it is kept when the street shares the postcode's line (class
    /// `street.type_abbreviation_dot`; US, GB, AU, Turkish); a full stop after any other word
    /// or a house number ends the line and is dropped.
    #[test]
    fn a_street_line_ending_in_an_abbreviated_street_type_keeps_its_full_stop() {
        let a = one(
            &["Sample Lofts", "1234 Sample St.", "Springfield, OH 45501"],
            Some("US"),
        );
        assert_eq!(a.street.as_deref(), Some("1234 Sample St."));
        let a = one(
            &["Sample Ltd", "12 Mill Rd.,", "Seabridge EX1 9ZZ"],
            Some("GB"),
        );
        assert_eq!(a.street.as_deref(), Some("12 Mill Rd."));
        let a = one(
            &["Sample IT", "Unit 3", "12 Harbour Ave.", "Hobart TAS 7000"],
            Some("AU"),
        );
        assert_eq!(a.street.as_deref(), Some("Unit 3, 12 Harbour Ave."));
        let a = one(
            &["Örnek Havuz", "Deneme Mah. Örnek Cad.", "35310 Güzelbahçe"],
            Some("TR"),
        );
        assert_eq!(a.street.as_deref(), Some("Deneme Mah. Örnek Cad."));
        // On the postcode's line the abbreviation's full stop was already kept.
        let a = one(&["1234 Sample St., Springfield, OH 45501"], Some("US"));
        assert_eq!(a.street.as_deref(), Some("1234 Sample St."));
        // Any other final full stop goes.
        let a = one(
            &["Sample Ltd", "24 Quay Street.", "Seabridge EX1 9ZZ"],
            Some("GB"),
        );
        assert_eq!(a.street.as_deref(), Some("24 Quay Street"));
        let a = one(&["Muster GmbH", "Lindenweg 3.", "10115 Berlin"], Some("DE"));
        assert_eq!(a.street.as_deref(), Some("Lindenweg 3"));
    }

    /// A premise chunk before the street on the postcode line stays with the street (French,
    /// English (GB), Spanish); the business name before it does not.
    #[test]
    fn a_premise_chunk_before_the_street_belongs_to_the_street() {
        let a = one(
            &["Tour Horizon, 8 avenue des Tilleuls, 92400 Courbevoie"],
            Some("FR"),
        );
        assert_eq!(
            a.street.as_deref(),
            Some("Tour Horizon, 8 avenue des Tilleuls")
        );
        let a = one(
            &["© 2026 Harbour Design. 3rd Floor Mill House, 24 Quay Street, Seabridge EX1 9ZZ."],
            Some("GB"),
        );
        assert_eq!(
            a.street.as_deref(),
            Some("3rd Floor Mill House, 24 Quay Street")
        );
        let a = one(
            &["Talleres Ejemplo SL, Edificio Sol, Calle Mayor 5, 28013 Madrid"],
            Some("ES"),
        );
        assert_eq!(a.street.as_deref(), Some("Edificio Sol, Calle Mayor 5"));
        // A street abbreviation's full stop ends no sentence.
        let a = one(
            &["Ruben Muster", "Lindenstr. Nr. 1 I-39040 Kastelruth"],
            Some("IT"),
        );
        assert_eq!(a.street.as_deref(), Some("Lindenstr. Nr. 1"));
    }

    /// A house number with only a floor after it (`12 bajo`, `12 piano 2`) names no street:
    /// the chunk before it does (Spanish, Italian).
    #[test]
    fn a_house_number_with_a_floor_keeps_the_street_name_before_it() {
        let a = one(
            &["Domicilio: San Isidro, 12 bajo, 28013 Madrid"],
            Some("ES"),
        );
        assert_eq!(a.street.as_deref(), Some("San Isidro, 12 bajo"));
        let a = one(&["Borgo Nuovo, 12 piano 2, 20121 Milano"], Some("IT"));
        assert_eq!(a.street.as_deref(), Some("Borgo Nuovo, 12 piano 2"));
    }

    /// A registration or tax number line above the street (`ABN …`, `VAT …`) ends the street
    /// lines (Australia, GB).
    #[test]
    fn a_registration_number_line_is_no_street_line() {
        let a = one(
            &[
                "Harbour Finance Pty Ltd",
                "ABN 12 345 678 901",
                "PO Box 123",
                "Seabridge NSW 2999",
            ],
            Some("AU"),
        );
        assert_eq!(a.street.as_deref(), Some("PO Box 123"));
        let a = one(
            &[
                "Harbour Design Ltd",
                "VAT GB 123 4567 89",
                "PO Box 12",
                "Seabridge EX1 9ZZ",
            ],
            Some("GB"),
        );
        assert_eq!(a.street.as_deref(), Some("PO Box 12"));
    }

    /// A line of fields (`… | … | …`, `… · … · …`) reads like the lines it stands for: the
    /// premise and the dependent locality stay with the street (English (GB), German).
    #[test]
    fn a_line_of_fields_reads_as_lines() {
        let a = one(
            &[
                "57",
                "Harbour Design Ltd | Unit 3 Mill House | 12 Quay Street | Northfield | Seabridge | EX1 9ZZ",
            ],
            Some("GB"),
        );
        assert_eq!(
            a.street.as_deref(),
            Some("Unit 3 Mill House, 12 Quay Street, Northfield")
        );
        assert_eq!(a.locality.as_deref(), Some("Seabridge"));
        let a = one(
            &["Muster Werkstatt GmbH · Gebäude B · Lindenweg 3 · 10115 Berlin · Tel. 030 123456"],
            Some("DE"),
        );
        assert_eq!(a.street.as_deref(), Some("Gebäude B, Lindenweg 3"));
        assert_eq!(a.locality.as_deref(), Some("Berlin"));
    }

    /// A dependent locality on a line of its own between the street and the post town is
    /// part of a British or Irish street (the Royal Mail's and An Post's address lines).
    #[test]
    fn a_dependent_locality_line_belongs_to_the_street() {
        let a = one(
            &[
                "Harbour Design Ltd",
                "12 Mill Lane",
                "Northfield",
                "Seabridge",
                "EX1 9ZZ",
            ],
            Some("GB"),
        );
        assert_eq!(a.street.as_deref(), Some("12 Mill Lane, Northfield"));
        assert_eq!(a.locality.as_deref(), Some("Seabridge"));
        let a = one(
            &[
                "Harbour Design Ltd",
                "12 Mill Lane",
                "Northfield",
                "Seabridge EX1 9ZZ",
            ],
            Some("GB"),
        );
        assert_eq!(a.street.as_deref(), Some("12 Mill Lane, Northfield"));
        assert_eq!(a.locality.as_deref(), Some("Seabridge"));
        let a = one(
            &[
                "Ceardlann Teoranta",
                "4 Main Street",
                "Ballybeg",
                "Ennis",
                "V95 T2K4",
            ],
            Some("IE"),
        );
        assert_eq!(a.street.as_deref(), Some("4 Main Street, Ballybeg"));
    }

    /// `(lines, region, [street, locality, region, postcode])`: each read as one address
    /// with those parts.
    type PartsCase<'a> = (&'a [&'a str], &'a str, [Option<&'a str>; 4]);

    fn parts_are(cases: &[PartsCase<'_>]) {
        for (lines, region, want) in cases {
            let a = one(lines, Some(region));
            let got = [&a.street, &a.locality, &a.region, &a.postal_code].map(|p| p.as_deref());
            assert_eq!(got, *want, "{lines:?}");
        }
    }

    #[test]
    fn towns_in_scripts_without_case_before_the_postcode() {
        // Class: a town written in a script without capitals (Thai, Hebrew) before the
        // postcode, in the layouts that print it so (`%C %Z`, `%S %Z`).
        parts_are(&[
            (
                &["บริษัท ตัวอย่าง จำกัด", "99 ถนนตัวอย่าง, เชียงใหม่ 50200"],
                "TH",
                [Some("99 ถนนตัวอย่าง"), Some("เชียงใหม่"), None, Some("50200")],
            ),
            (
                &["רחוב הדוגמה 12, חיפה 3303112"],
                "IL",
                [Some("רחוב הדוגמה 12"), Some("חיפה"), None, Some("3303112")],
            ),
        ]);
    }

    #[test]
    fn the_province_after_the_postcode_in_a_postcode_then_province_layout() {
        // Class: `%Z %S` (Philippines): the name after the postcode is the province, the
        // place before it the city; English and Filipino street names.
        parts_are(&[
            (
                &["Sample Corp, 12 Mango Avenue, Sample City, 6015 Cebu"],
                "PH",
                [
                    Some("12 Mango Avenue"),
                    Some("Sample City"),
                    Some("Cebu"),
                    Some("6015"),
                ],
            ),
            (
                &["45 Kalye Mabini, Bayan Halimbawa, 4027 Laguna"],
                "PH",
                [
                    Some("45 Kalye Mabini"),
                    Some("Bayan Halimbawa"),
                    Some("Laguna"),
                    Some("4027"),
                ],
            ),
        ]);
    }
}
