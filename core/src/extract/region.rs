//! Which country a page is in: one decision per page from weighted evidence
//! (docs/extraction.md "Which country the page is in"), used to read the numbers printed
//! without a country code.
//!
//! Each kind of evidence ([`Source`]) gives each region it names a weight once; the region
//! with the largest sum wins, ties going to the region named first by the stronger kind.
//! Weights: a JSON-LD or microdata `addressCountry` 8; a printed address whose postcode
//! pattern belongs to a country 7 with a state or province (US, CA, AU), otherwise 5; a
//! country's name ending a printed address line 4 (read, like the evidence below, only when
//! nothing of weight 4 or more was found first); the ccTLD 4; the calling code of an international number on the page (`tel:+…`, WhatsApp
//! links, JSON-LD `telephone`, `+…` in the text) 3, one more when two or more numbers share
//! it; `geo.region` 3; a currency that belongs to one country (`₹`, `R$`, `MXN`…) 2; the
//! region subtag of `<html lang>` 2, the main country of its language alone 1; a writing
//! system of one country 1; a national number valid in exactly one candidate region 3. So
//! `lang` alone (at most 3) never outvotes a printed address (5 or more) or a structured
//! country. Printed international numbers, currencies, scripts and national numbers, which
//! cost a pass over the text or parses, are read only when nothing of weight 4 or more (a
//! structured country, a printed address, the ccTLD) was found. A site's decision is the
//! decision on its pages' ballots together ([`Ballot::absorb`]).

use aho_corasick::AhoCorasick;
use rlibphonenumber::Region;

use crate::extract::phones::RegionHint;

/// A kind of evidence for the page's country, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// JSON-LD or microdata `addressCountry` / `country-name`.
    Structured,
    /// A printed address with a state or province (US, CA, AU patterns).
    PrintedWithState,
    /// A printed address whose postcode pattern belongs to one country.
    Printed,
    /// A country's name ending a printed address line (`…, Lima, Perú`).
    PrintedCountry,
    /// The country-code top-level domain of the page's host.
    Tld,
    /// The calling code of an international number on the page.
    CallingCode,
    /// A national number (`tel:` link, JSON-LD `telephone`) valid in exactly one candidate
    /// region (the regions named so far and the countries of the page's language).
    NationalNumber,
    /// `<meta name="geo.region">`.
    GeoMeta,
    /// A currency sign or code used by one country.
    Currency,
    /// The region subtag of `<html lang>` (`en-IN`).
    LangRegion,
    /// The main country of `<html lang>`'s language alone (`nl` → NL).
    Language,
    /// A writing system used by one country (Japanese kana → JP, Hangul → KR, Greek → GR …).
    Script,
}

impl Source {
    /// The weight of one region named by this kind of evidence.
    pub const fn weight(self) -> u32 {
        match self {
            Source::Structured => 8,
            Source::PrintedWithState => 7,
            Source::Printed => 5,
            Source::PrintedCountry | Source::Tld => 4,
            Source::CallingCode | Source::NationalNumber | Source::GeoMeta => 3,
            Source::Currency | Source::LangRegion => 2,
            Source::Language | Source::Script => 1,
        }
    }

    /// Whether the evidence says where the page is published from rather than where the
    /// business is (`lang`, `geo.region`: templates leave them at their defaults; the script,
    /// which the language's diaspora writes too).
    const fn is_weak(self) -> bool {
        matches!(
            self,
            Source::GeoMeta | Source::LangRegion | Source::Language | Source::Script
        )
    }
}

/// The evidence of one page (or, absorbed, of a site's pages): (region, kind) pairs in any
/// order, repeats allowed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Ballot {
    votes: Vec<(String, Source)>,
}

impl Ballot {
    /// Records that `source` names the region with ISO 3166-1 alpha-2 code `code` (any case);
    /// codes libphonenumber does not know are ignored.
    pub fn vote(&mut self, code: &str, source: Source) {
        let code = code.trim().to_ascii_uppercase();
        if code.len() == 2 && code.parse::<Region>().is_ok() {
            self.votes.push((code, source));
        }
    }

    /// Adds another page's evidence: the site's decision is the decision on its pages' evidence
    /// together (each kind still counted once per region, so the home page's printed address
    /// decides for a contact page that prints none, and `lang` on every page stays weak).
    pub fn absorb(&mut self, other: &Ballot) {
        self.votes.extend(other.votes.iter().cloned());
    }

    /// The regions named so far, each once, in order of first naming.
    pub fn regions(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for (region, _) in &self.votes {
            if !out.contains(&region.as_str()) {
                out.push(region);
            }
        }
        out
    }

    /// The largest weight of one piece of evidence that is not weak (`lang`, `geo.region`)
    /// recorded so far; 0 when none.
    pub fn strongest(&self) -> u32 {
        self.votes
            .iter()
            .filter(|(_, source)| !source.is_weak())
            .map(|(_, source)| source.weight())
            .max()
            .unwrap_or(0)
    }

    /// The region with the largest sum of weights (each kind counted once per region; a
    /// calling code one more time when two or more numbers carry it); ties go to the region
    /// whose strongest evidence is stronger, then to the one named first. `confident` when the
    /// winner's sum is at least 4 and not all of it is weak evidence (`lang`, `geo.region`);
    /// `weak` when all of it is.
    pub fn decide(&self) -> RegionHint {
        // (region, sum, strongest kind, first position, strong sum)
        let mut tally: Vec<(&str, u32, Source, usize, u32)> = Vec::new();
        let mut counted: Vec<(&str, Source)> = Vec::new();
        let mut calling: Vec<(&str, usize)> = Vec::new();
        for (position, (region, source)) in self.votes.iter().enumerate() {
            let region = region.as_str();
            if *source == Source::CallingCode {
                match calling.iter_mut().find(|(r, _)| *r == region) {
                    Some((_, n)) => *n += 1,
                    None => calling.push((region, 1)),
                }
            }
            if counted.contains(&(region, *source)) {
                continue;
            }
            counted.push((region, *source));
            let strong = if source.is_weak() { 0 } else { source.weight() };
            match tally.iter_mut().find(|t| t.0 == region) {
                Some(t) => {
                    t.1 += source.weight();
                    t.2 = t.2.min(*source);
                    t.4 += strong;
                }
                None => tally.push((region, source.weight(), *source, position, strong)),
            }
        }
        for (region, numbers) in calling {
            if numbers >= 2 {
                if let Some(t) = tally.iter_mut().find(|t| t.0 == region) {
                    t.1 += 1;
                    t.4 += 1;
                }
            }
        }
        let Some(best) = tally
            .iter()
            .min_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)).then(a.3.cmp(&b.3)))
        else {
            return RegionHint::default();
        };
        let Some(hint) = RegionHint::from_code(best.0) else {
            return RegionHint::default();
        };
        RegionHint {
            confident: best.4 > 0 && best.1 >= 4,
            weak: best.4 == 0,
            ..hint
        }
    }
}

/// A page's region evidence, kept for the site's decision ([`crate::extract::merge`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PageRegion {
    /// The page's evidence.
    pub ballot: Ballot,
    /// Whether the page's own decision was confident (its numbers were read with it).
    pub confident: bool,
    /// Up to [`MAX_UNREAD`] lines (at most [`MAX_UNREAD_LINE`] bytes each) that hold digits a
    /// region could make a phone number of, kept when the page's decision was not confident;
    /// a `tel:` link's national number as `tel: <number>`.
    pub unread: Vec<String>,
}

/// Most lines a page keeps for the site's decision.
pub const MAX_UNREAD: usize = 8;
/// Longest line kept for the site's decision, in bytes.
pub const MAX_UNREAD_LINE: usize = 256;

/// Writing systems used by one country each: (first, last code point, region).
const SCRIPTS: &[(char, char, &str)] = &[
    ('\u{3040}', '\u{30FF}', "JP"), // Hiragana, Katakana
    ('\u{AC00}', '\u{D7A3}', "KR"), // Hangul syllables
    ('\u{1100}', '\u{11FF}', "KR"), // Hangul jamo
    ('\u{0370}', '\u{03FF}', "GR"), // Greek
    ('\u{1F00}', '\u{1FFF}', "GR"), // Greek extended
    ('\u{0590}', '\u{05FF}', "IL"), // Hebrew
    ('\u{0E00}', '\u{0E7F}', "TH"), // Thai
    ('\u{0E80}', '\u{0EFF}', "LA"), // Lao
    ('\u{10A0}', '\u{10FF}', "GE"), // Georgian
    ('\u{0530}', '\u{058F}', "AM"), // Armenian
    ('\u{1780}', '\u{17FF}', "KH"), // Khmer
    ('\u{0D80}', '\u{0DFF}', "LK"), // Sinhala
    ('\u{1000}', '\u{109F}', "MM"), // Myanmar
];

/// Letters of one script a text needs before it names the script's country (a `π` or `µ` in
/// Latin text names none).
const MIN_SCRIPT_LETTERS: usize = 3;
/// Bytes of text read for scripts.
const MAX_SCRIPT_BYTES: usize = 256 * 1024;

/// The countries of the writing systems used in `text` ([`SCRIPTS`]), at least
/// [`MIN_SCRIPT_LETTERS`] letters each, in order of reaching it; at most `limit`. Only the
/// first [`MAX_SCRIPT_BYTES`] bytes are read; ASCII bytes are skipped.
pub fn scripts(text: &str, limit: usize) -> Vec<&'static str> {
    let mut tally = ScriptTally::new(limit);
    let end = (MAX_SCRIPT_BYTES.min(text.len())..=text.len())
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(text.len());
    let bytes = &text.as_bytes()[..end];
    let mut at = 0;
    while at < bytes.len() {
        // Every script of [`SCRIPTS`] starts at U+0370 or above, whose UTF-8 lead bytes are
        // `SCRIPT_LEAD` and above: a run of bytes below it (ASCII, Latin letters with
        // accents, continuation bytes) holds no letter of one and is passed a chunk at a time.
        let chunk_end = (at + SCRIPT_CHUNK).min(bytes.len());
        if bytes[at..chunk_end].iter().fold(0, |most, &b| most.max(b)) < SCRIPT_LEAD {
            at = chunk_end;
            continue;
        }
        if bytes[at] < SCRIPT_LEAD {
            at += 1;
            continue;
        }
        // A lead byte: `at` is a char boundary of `text`.
        let Some(c) = text[at..end].chars().next() else {
            break;
        };
        at += c.len_utf8();
        if tally.count(c) {
            break;
        }
    }
    tally.regions
}

/// The letters of each script [`scripts`] has read, and the countries of the scripts that
/// have reached [`MIN_SCRIPT_LETTERS`], in order.
struct ScriptTally {
    letters: [usize; SCRIPTS.len()],
    regions: Vec<&'static str>,
    limit: usize,
}

impl ScriptTally {
    fn new(limit: usize) -> Self {
        ScriptTally {
            letters: [0; SCRIPTS.len()],
            regions: Vec::new(),
            limit,
        }
    }

    /// Counts `c` if it is a letter of a script; whether that made `limit` countries.
    fn count(&mut self, c: char) -> bool {
        let Some(i) = SCRIPTS
            .iter()
            .position(|(lo, hi, _)| (*lo..=*hi).contains(&c))
        else {
            return false;
        };
        self.letters[i] += 1;
        let region = SCRIPTS[i].2;
        if self.letters[i] >= MIN_SCRIPT_LETTERS && !self.regions.contains(&region) {
            self.regions.push(region);
            return self.regions.len() >= self.limit;
        }
        false
    }
}

/// The smallest UTF-8 lead byte of a letter of [`SCRIPTS`] (U+0340 to U+037F start with it;
/// the first script, Greek, at U+0370).
const SCRIPT_LEAD: u8 = 0xCD;
/// Bytes [`scripts`] tests at once for a lead byte of a script's letter.
const SCRIPT_CHUNK: usize = 32;

/// The main country of `language` (an ISO 639-1 code, any case; the ISO 639-2 `fil` and the
/// withdrawn `iw`, `in` too): the one country where most of its speakers live and where it is
/// the national language (`nl` → NL, `nb`/`nn`/`no` → NO, `ko` → KR, `uk` → UA). `None` for
/// a language spread over several countries with no main one (`en`, `ar`, `zh`, `sw`), whose
/// region only a subtag or other evidence tells. A region from this alone is the weakest
/// evidence ([`Source::Language`]).
pub fn main_country(language: &str) -> Option<&'static str> {
    let main = match language.to_ascii_lowercase().as_str() {
        // Western and northern Europe.
        "nl" => "NL",
        "de" => "DE",
        "fr" => "FR",
        "it" => "IT",
        "es" | "ca" | "eu" | "gl" => "ES",
        "pt" => "PT",
        "sv" => "SE",
        "da" => "DK",
        "nb" | "nn" | "no" => "NO",
        "fi" => "FI",
        "is" => "IS",
        "fo" => "FO",
        "lb" => "LU",
        "mt" => "MT",
        "ga" => "IE",
        "cy" => "GB",
        // Central, eastern and south-eastern Europe.
        "pl" => "PL",
        "cs" => "CZ",
        "sk" => "SK",
        "hu" => "HU",
        "sl" => "SI",
        "hr" => "HR",
        "bs" => "BA",
        "sr" => "RS",
        "mk" => "MK",
        "sq" => "AL",
        "bg" => "BG",
        "ro" => "RO",
        "el" => "GR",
        "et" => "EE",
        "lv" => "LV",
        "lt" => "LT",
        "uk" => "UA",
        "be" => "BY",
        "ru" => "RU",
        // Western and central Asia.
        "tr" => "TR",
        "he" | "iw" => "IL",
        "ka" => "GE",
        "hy" => "AM",
        "az" => "AZ",
        "kk" => "KZ",
        "uz" => "UZ",
        "fa" => "IR",
        // South, east and south-east Asia.
        "hi" => "IN",
        "ur" => "PK",
        "bn" => "BD",
        "ne" => "NP",
        "si" => "LK",
        "ja" => "JP",
        "ko" => "KR",
        "mn" => "MN",
        "th" => "TH",
        "lo" => "LA",
        "km" => "KH",
        "my" => "MM",
        "vi" => "VN",
        "id" | "in" => "ID",
        "ms" => "MY",
        "tl" | "fil" => "PH",
        // Africa.
        "am" => "ET",
        "af" => "ZA",
        _ => return None,
    };
    Some(main)
}

/// The countries where `language` (an ISO 639-1 code, any case) is a national language and
/// businesses print national numbers, most populous first: the candidates a national number
/// is tried in ([`Source::NationalNumber`]). Empty for other languages.
pub fn language_regions(language: &str) -> &'static [&'static str] {
    match language.to_ascii_lowercase().as_str() {
        "en" => &[
            "US", "IN", "NG", "PH", "GB", "ZA", "KE", "CA", "GH", "AU", "MY", "SG", "IE", "NZ",
        ],
        "es" => &[
            "MX", "CO", "ES", "AR", "PE", "VE", "CL", "GT", "EC", "BO", "CU", "DO", "HN", "PY",
            "SV", "NI", "CR", "PA", "UY",
        ],
        "pt" => &["BR", "AO", "MZ", "PT"],
        "fr" => &["FR", "CD", "CA", "CI", "CM", "BE", "SN", "CH", "MA", "LU"],
        "de" => &["DE", "AT", "CH", "LU", "LI"],
        "it" => &["IT", "CH", "SM"],
        "nl" => &["NL", "BE", "SR"],
        "ar" => &[
            "EG", "SA", "DZ", "IQ", "MA", "AE", "JO", "LB", "TN", "QA", "KW", "OM",
        ],
        "sv" => &["SE", "FI"],
        "ru" => &["RU", "KZ", "BY", "KG"],
        "ro" => &["RO", "MD"],
        "sr" => &["RS", "BA", "ME"],
        "hr" => &["HR", "BA"],
        "el" => &["GR", "CY"],
        "tr" => &["TR", "CY"],
        "sq" => &["AL", "MK"],
        "ms" => &["MY", "BN", "SG"],
        "bn" => &["BD", "IN"],
        "ca" => &["ES", "AD"],
        _ => &[],
    }
}

/// Currency signs and codes used by one country each, and that country. Three-letter codes
/// count only as whole upper-case words; signs anywhere. Signs shared by several countries
/// (`$`, `€`, `kr`, `¥`) are not here.
const CURRENCIES: &[(&str, &str)] = &[
    ("₹", "IN"),
    ("INR", "IN"),
    ("Rs.", "IN"),
    ("R$", "BR"),
    ("BRL", "BR"),
    ("MXN", "MX"),
    ("MX$", "MX"),
    ("ZAR", "ZA"),
    ("£", "GB"),
    ("GBP", "GB"),
    ("円", "JP"),
    ("JPY", "JP"),
    ("₺", "TR"),
    ("zł", "PL"),
    ("PLN", "PL"),
    ("Kč", "CZ"),
    ("CZK", "CZ"),
    ("A$", "AU"),
    ("AUD", "AU"),
    ("NZ$", "NZ"),
    ("NZD", "NZ"),
    ("S$", "SG"),
    ("SGD", "SG"),
    ("AED", "AE"),
    ("KES", "KE"),
    ("KSh", "KE"),
    ("GH₵", "GH"),
    ("GHS", "GH"),
    ("₦", "NG"),
    ("NGN", "NG"),
    ("₪", "IL"),
    ("ILS", "IL"),
    ("ARS", "AR"),
    ("CLP", "CL"),
    ("HUF", "HU"),
    ("DKK", "DK"),
    ("SEK", "SE"),
    ("NOK", "NO"),
    ("CHF", "CH"),
    ("ISK", "IS"),
    ("RON", "RO"),
    ("MYR", "MY"),
    ("₱", "PH"),
    ("IDR", "ID"),
    ("THB", "TH"),
    ("฿", "TH"),
    ("VND", "VN"),
    ("₫", "VN"),
    ("KRW", "KR"),
    ("₩", "KR"),
];

/// The countries of the currencies written in `text` ([`CURRENCIES`]), each once, in order
/// of first appearance; at most `limit`. A code or a sign of letters counts only when no
/// letter touches it (`RON` in `RONDO` is no currency), a sign of symbols anywhere.
pub fn currencies(text: &str, limit: usize) -> Vec<&'static str> {
    use std::sync::OnceLock;
    static SEARCH: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    // No sign is part of another (a test holds the list to it), so the leftmost-first matches
    // are the standard ones, each the first to end; leftmost-first lets the search skip to
    // candidates with a vectorised prefilter instead of walking the automaton over every byte.
    let Some(search) = SEARCH
        .get_or_init(|| {
            AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                .build(CURRENCIES.iter().map(|(s, _)| *s))
                .ok()
        })
        .as_ref()
    else {
        return Vec::new();
    };
    currencies_found_by(search, text, limit)
}

/// [`currencies`] with the signs' matches found by `search` (an automaton of [`CURRENCIES`]'
/// signs, in their order).
fn currencies_found_by(search: &AhoCorasick, text: &str, limit: usize) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for found in search.find_iter(text) {
        let (sign, region) = CURRENCIES[found.pattern().as_usize()];
        let letters = sign.chars().next().is_some_and(char::is_alphabetic);
        let touches = |c: Option<char>| c.is_some_and(char::is_alphabetic);
        if letters
            && (touches(text[..found.start()].chars().next_back())
                || touches(text[found.end()..].chars().next()))
        {
            continue;
        }
        if !out.contains(&region) {
            out.push(region);
            if out.len() >= limit {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`scripts`] as first written: every character of the text read.
    fn scripts_every_char(text: &str, limit: usize) -> Vec<&'static str> {
        let mut tally = ScriptTally::new(limit);
        let end = (MAX_SCRIPT_BYTES.min(text.len())..=text.len())
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(text.len());
        for c in text[..end].chars().filter(|c| !c.is_ascii()) {
            if tally.count(c) {
                break;
            }
        }
        tally.regions
    }

    /// [`currencies`] as first written: the standard matches of the signs (each the first
    /// to end).
    fn currencies_standard(text: &str, limit: usize) -> Vec<&'static str> {
        let search = AhoCorasick::new(CURRENCIES.iter().map(|(s, _)| *s)).unwrap();
        currencies_found_by(&search, text, limit)
    }

    #[test]
    fn no_currency_sign_is_part_of_another() {
        for (a, _) in CURRENCIES {
            for (b, _) in CURRENCIES {
                assert!(a == b || !b.contains(a), "{a} is part of {b}");
            }
        }
    }

    /// Text made of the pieces that decide the two readers: signs, letters touching them,
    /// letters of the scripts and just below them, accents, ASCII.
    fn region_text() -> impl Strategy<Value = String> {
        let signs: Vec<String> = CURRENCIES.iter().map(|(s, _)| s.to_string()).collect();
        let piece = prop_oneof![
            proptest::sample::select(signs),
            proptest::sample::select(vec![
                " ", "a", "Z", "$", "1", ".", "é", "ł", "č", "\u{36f}", "\u{370}", "α", "Ω", "ש",
                "ก", "ა", "ա", "あ", "カ", "한", "ᄀ", "ក", "ක", "က", "ລ", "中", "€", "😀",
            ])
            .prop_map(str::to_string),
            "[ -~]{0,40}",
        ];
        proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn scripts_read_as_every_char_does(text in region_text(), limit in 1usize..4) {
            prop_assert_eq!(scripts(&text, limit), scripts_every_char(&text, limit));
        }

        #[test]
        fn currencies_read_as_the_standard_matches(text in region_text(), limit in 1usize..4) {
            prop_assert_eq!(currencies(&text, limit), currencies_standard(&text, limit));
        }
    }

    #[test]
    fn scripts_read_past_the_byte_limit_as_every_char_does() {
        // A text longer than the bytes read, with a letter of a script straddling the limit
        // and the chunks.
        let mut text = "é".repeat(MAX_SCRIPT_BYTES / 2 - 4);
        text.push_str("aαβγ");
        text.push_str(&"ש".repeat(10));
        let shifted = format!("a{text}");
        for limit in 1..4 {
            assert_eq!(scripts(&text, limit), scripts_every_char(&text, limit));
            assert_eq!(
                scripts(&shifted, limit),
                scripts_every_char(&shifted, limit)
            );
        }
        assert_eq!(scripts(&text, 4), ["GR"]);
        assert_eq!(scripts(&shifted, 4), ["GR"]);
    }

    fn decide(votes: &[(&str, Source)]) -> RegionHint {
        let mut ballot = Ballot::default();
        for (code, source) in votes {
            ballot.vote(code, *source);
        }
        ballot.decide()
    }

    fn region(hint: RegionHint) -> Option<String> {
        hint.region.map(|r| format!("{r:?}"))
    }

    #[test]
    fn lang_alone_never_outvotes_a_printed_address() {
        let hint = decide(&[("GB", Source::LangRegion), ("IN", Source::Printed)]);
        assert_eq!(region(hint), region(RegionHint::from_code("IN").unwrap()));
        assert!(hint.confident && !hint.weak);
    }

    #[test]
    fn a_dot_com_site_gets_its_country_from_calling_codes_and_currency() {
        // India: two `+91` numbers and rupees; Mexico: one `+52` number and pesos.
        let india = decide(&[
            ("IN", Source::CallingCode),
            ("IN", Source::CallingCode),
            ("IN", Source::Currency),
            ("US", Source::LangRegion),
        ]);
        assert_eq!(region(india), region(RegionHint::from_code("IN").unwrap()));
        assert!(india.confident);
        let mexico = decide(&[
            ("US", Source::LangRegion),
            ("MX", Source::CallingCode),
            ("MX", Source::Currency),
        ]);
        assert_eq!(region(mexico), region(RegionHint::from_code("MX").unwrap()));
        assert!(mexico.confident);
    }

    #[test]
    fn one_calling_code_alone_is_a_hint_but_not_confident() {
        let hint = decide(&[("ZA", Source::CallingCode)]);
        assert_eq!(region(hint), region(RegionHint::from_code("ZA").unwrap()));
        assert!(!hint.confident && !hint.weak);
        let lang = decide(&[("DE", Source::Language)]);
        assert!(lang.weak && !lang.confident);
        assert_eq!(decide(&[]).region, None);
        assert_eq!(decide(&[("Brazil", Source::Tld)]).region, None);
    }

    #[test]
    fn ties_go_to_the_stronger_kind() {
        // A ccTLD (4) against a calling code and a number of it (3 + 1): the ccTLD.
        let hint = decide(&[
            ("BR", Source::CallingCode),
            ("BR", Source::CallingCode),
            ("PT", Source::Tld),
        ]);
        assert_eq!(region(hint), region(RegionHint::from_code("PT").unwrap()));
    }

    #[test]
    fn a_script_of_one_country_names_it() {
        // Class: writing systems used by one country (Japanese kana, Korean Hangul, Greek,
        // Hebrew, Thai); Latin, Cyrillic, Arabic and Han alone name none.
        assert_eq!(scripts("東大阪市の整骨院です。ご予約はこちら", 4), ["JP"]);
        assert_eq!(scripts("서울특별시 강남구 테헤란로 오시는 길", 4), ["KR"]);
        assert_eq!(scripts("Ταβέρνα στο λιμάνι, τηλέφωνο", 4), ["GR"]);
        assert_eq!(scripts("צור קשר עם המכון בגדרה", 4), ["IL"]);
        assert_eq!(scripts("ติดต่อเรา กรุงเทพมหานคร", 4), ["TH"]);
        assert!(scripts("Kontakt, Привет, 東京都, مرحبا, 10 µm, π", 4).is_empty());
    }

    #[test]
    fn site_evidence_is_the_sum_of_its_pages() {
        // Class: the region of a site's pages together: the home page's address decides for
        // the contact page that has none, and `lang` alone never outvotes it (India, Brazil).
        let mut home = Ballot::default();
        home.vote("IN", Source::Printed);
        let mut contact = Ballot::default();
        contact.vote("GB", Source::LangRegion);
        let mut site = Ballot::default();
        site.absorb(&home);
        site.absorb(&contact);
        let hint = site.decide();
        assert_eq!(region(hint), region(RegionHint::from_code("IN").unwrap()));
        assert!(hint.confident);
        let mut home = Ballot::default();
        home.vote("BR", Source::Currency);
        home.vote("BR", Source::CallingCode);
        let mut contact = Ballot::default();
        contact.vote("PT", Source::Language);
        let mut site = Ballot::default();
        site.absorb(&home);
        site.absorb(&contact);
        assert_eq!(
            region(site.decide()),
            region(RegionHint::from_code("BR").unwrap())
        );
    }

    #[test]
    fn currencies_are_read_as_signs_and_whole_codes() {
        assert_eq!(
            currencies("Consulta ₹ 500 · Preço R$ 120,00 · 300 MXN", 4),
            ["IN", "BR", "MX"]
        );
        assert_eq!(currencies("RONDO PLNX Ftw", 4), Vec::<&str>::new());
        assert_eq!(currencies("Cena 120 zł, 99 Kč", 4), ["PL", "CZ"]);
        assert_eq!(currencies("£5 £6 ₺7", 1), ["GB"]);
    }
}
