//! Postcode patterns and address layouts of every country, from data: Google's address
//! metadata (the data of libaddressinput), vendored as `core/data/address-formats.tsv` (its
//! header names the source, version and licence; `benches/scripts/address_formats.py`
//! regenerates it). Read at build time (`include_str!`), parsed once on first use; each
//! country's postcode pattern is compiled on first use.
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

use regex::Regex;

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
    let all = formats();
    all.binary_search_by(|f| f.code.cmp(code))
        .ok()
        .map(|i| &all[i])
}

/// The code of the first country of the data whose English name ([`Format::name`]) is `name`
/// in any ASCII case (`India`, `SOUTH AFRICA`). A map built once: the address reader asks this
/// after every postcode candidate.
pub fn country_of_name(name: &str) -> Option<&'static str> {
    /// The names by lower-case name, and per first letter (`a`–`z`) a bit per length in
    /// bytes of the names starting with it: most words asked about are no name, and a bit
    /// test answers for most of them without a look-up.
    struct Names {
        by_name: BTreeMap<String, &'static str>,
        lengths: [u128; 26],
    }
    static NAMES: OnceLock<Names> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let mut by_name = BTreeMap::new();
        let mut lengths = [0u128; 26];
        for f in formats() {
            let lower = f.name.to_ascii_lowercase();
            if let Some(first) = lower.bytes().next().filter(u8::is_ascii_lowercase) {
                lengths[usize::from(first - b'a')] |= 1 << lower.len().min(127);
            }
            by_name.entry(lower).or_insert(f.code);
        }
        Names { by_name, lengths }
    });
    // The names are ASCII: a longer `name` (in bytes) is none of them, whatever its case.
    if name.len() > 64 {
        return None;
    }
    // Lower-cased on the stack (ASCII lower-casing keeps UTF-8 valid).
    let mut buf = [0u8; 64];
    let lower = &mut buf[..name.len()];
    lower.copy_from_slice(name.as_bytes());
    lower.make_ascii_lowercase();
    if let Some(first) = lower.first().filter(|b| b.is_ascii_lowercase()) {
        if names.lengths[usize::from(first - b'a')] & (1 << name.len()) == 0 {
            return None;
        }
    }
    names.by_name.get(std::str::from_utf8(lower).ok()?).copied()
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
    /// Where the postcode stands relative to the locality.
    pub fn layout(&self) -> Layout {
        let fmt = self.fmt;
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

    /// The country's whole-postcode pattern (`^(?:zip)$`): its byte lengths, read on first
    /// use, and the pattern compiled when a candidate first has one of them.
    fn pattern(&self) -> Option<&'static Pattern> {
        static PATTERNS: OnceLock<Vec<OnceLock<Pattern>>> = OnceLock::new();
        let all = formats();
        let slots = PATTERNS.get_or_init(|| all.iter().map(|_| OnceLock::new()).collect());
        // The data is sorted by code (a test checks it): a binary search, not a scan of every
        // country's code for each candidate.
        let index = all.binary_search_by(|f| f.code.cmp(self.code)).ok()?;
        Some(slots[index].get_or_init(|| Pattern::new(format!("^(?:{})$", self.zip))))
    }

    /// Whether `candidate` is a whole postcode of the country. A six-digit postcode printed
    /// as two groups of three (`600 078`, the way Indian PINs are often printed) is read
    /// without its space.
    pub fn validates(&self, candidate: &str) -> bool {
        let Some(pattern) = self.pattern() else {
            return false;
        };
        let b = candidate.as_bytes();
        let spaced_six = b.len() == 7
            && b[3] == b' '
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 3 || c.is_ascii_digit());
        let whole = pattern.fits(candidate.len());
        let without_space = spaced_six && pattern.fits(6);
        // A candidate of no length the pattern matches needs no compiled pattern.
        if !whole && !without_space {
            return false;
        }
        let Some(re) = pattern.regex() else {
            return false;
        };
        (whole && re.is_match(candidate))
            || (without_space && re.is_match(&candidate.replace(' ', "")))
    }
}

/// A whole-postcode pattern: the byte lengths of what it matches (from its syntax, far
/// cheaper to read than compiling it), and the pattern, compiled on first use.
struct Pattern {
    source: String,
    /// The shortest and longest match in bytes (`None`: no bound, or the syntax unread).
    min_len: usize,
    max_len: Option<usize>,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    fn new(source: String) -> Pattern {
        let (min_len, max_len) = match regex_syntax::parse(&source) {
            Ok(hir) => (
                hir.properties().minimum_len().unwrap_or(0),
                hir.properties().maximum_len(),
            ),
            Err(_) => (0, None),
        };
        Pattern {
            source,
            min_len,
            max_len,
            compiled: OnceLock::new(),
        }
    }

    /// Whether a text of `len` bytes may match.
    fn fits(&self, len: usize) -> bool {
        len >= self.min_len && self.max_len.is_none_or(|max| len <= max)
    }

    /// The compiled pattern; `None` if it did not compile (a test rules that out for every
    /// country).
    fn regex(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| Regex::new(&self.source).ok())
            .as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles_and_the_data_is_sorted() {
        let all = formats();
        assert!(all.len() > 150, "{}", all.len());
        for pair in all.windows(2) {
            assert!(pair[0].code < pair[1].code, "{}", pair[1].code);
        }
        for f in all {
            assert!(f.pattern().and_then(Pattern::regex).is_some(), "{}", f.code);
        }
    }

    #[test]
    fn the_length_test_answers_as_the_pattern_does() {
        // Candidates of every length from 1 to 12 bytes, of digits, letters and both, with
        // a space or a hyphen: `validates` (the lengths first) against the pattern alone.
        let mut candidates: Vec<String> = Vec::new();
        for len in 1..=12 {
            candidates.push("1".repeat(len));
            candidates.push("A".repeat(len));
            candidates.push("A1".repeat(len).chars().take(len).collect());
            candidates.push("1A".repeat(len).chars().take(len).collect());
            if len > 2 {
                for gap in [" ", "-"] {
                    let half = len / 2;
                    candidates.push(format!(
                        "{}{gap}{}",
                        "1".repeat(half),
                        "1".repeat(len - half - 1)
                    ));
                    candidates.push(format!(
                        "{}{gap}{}",
                        "A1".repeat(half).chars().take(half).collect::<String>(),
                        "1A".repeat(len)
                            .chars()
                            .take(len - half - 1)
                            .collect::<String>()
                    ));
                }
            }
        }
        candidates.extend(
            [
                "600 078",
                "400 001",
                "01310-100",
                "D02 X285",
                "SW1A 1AA",
                "AB12",
            ]
            .map(String::from),
        );
        let mut accepted = 0;
        for f in formats() {
            let re = f.pattern().and_then(Pattern::regex).unwrap();
            for c in &candidates {
                let plain = re.is_match(c)
                    || (c.len() == 7
                        && c.as_bytes()[3] == b' '
                        && c.bytes()
                            .enumerate()
                            .all(|(i, b)| i == 3 || b.is_ascii_digit())
                        && re.is_match(&c.replace(' ', "")));
                assert_eq!(f.validates(c), plain, "{} {c:?}", f.code);
                accepted += usize::from(plain);
            }
        }
        // The candidates are postcodes of many countries, not of none.
        assert!(accepted > 100, "{accepted}");
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
        for other in ["Indiana", "", "South  Africa", "Ĩndia"] {
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
