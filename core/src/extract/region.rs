//! Which country a page is in: one decision per page from weighted evidence
//! (docs/extraction.md "Which country the page is in"), used to read the numbers printed
//! without a country code.
//!
//! Each kind of evidence ([`Source`]) gives each region it names a weight once; the region
//! with the largest sum wins, ties going to the region named first by the stronger kind.
//! Weights: a JSON-LD or microdata `addressCountry` 8; a printed address whose postcode
//! pattern belongs to a country 7 with a state or province (US, CA, AU), otherwise 5; the
//! ccTLD 4; the calling code of an international number on the page (`tel:+…`, WhatsApp
//! links, JSON-LD `telephone`, `+…` in the text) 3, one more when two or more numbers share
//! it; `geo.region` 3; a currency that belongs to one country (`₹`, `R$`, `MXN`…) 2; the
//! region subtag of `<html lang>` 2, the main country of its language alone 1. So `lang`
//! alone (at most 3) never outvotes a printed address (5 or more) or a structured country.
//! Printed international numbers and currencies, which cost a pass over the text, are read
//! only when nothing of weight 4 or more (a structured country, a printed address, the ccTLD)
//! was found.

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
    /// The country-code top-level domain of the page's host.
    Tld,
    /// The calling code of an international number on the page.
    CallingCode,
    /// `<meta name="geo.region">`.
    GeoMeta,
    /// A currency sign or code used by one country.
    Currency,
    /// The region subtag of `<html lang>` (`en-IN`).
    LangRegion,
    /// The main country of `<html lang>`'s language alone (`nl` → NL).
    Language,
}

impl Source {
    /// The weight of one region named by this kind of evidence.
    pub const fn weight(self) -> u32 {
        match self {
            Source::Structured => 8,
            Source::PrintedWithState => 7,
            Source::Printed => 5,
            Source::Tld => 4,
            Source::CallingCode | Source::GeoMeta => 3,
            Source::Currency | Source::LangRegion => 2,
            Source::Language => 1,
        }
    }

    /// Whether the evidence says where the page is published from rather than where the
    /// business is (`lang`, `geo.region`: templates leave them at their defaults).
    const fn is_weak(self) -> bool {
        matches!(
            self,
            Source::GeoMeta | Source::LangRegion | Source::Language
        )
    }
}

/// The evidence of one page: (region, kind) pairs in any order, repeats allowed.
#[derive(Debug, Default, Clone)]
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
    use aho_corasick::AhoCorasick;
    use std::sync::OnceLock;
    static SEARCH: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    let Some(search) = SEARCH
        .get_or_init(|| AhoCorasick::new(CURRENCIES.iter().map(|(s, _)| *s)).ok())
        .as_ref()
    else {
        return Vec::new();
    };
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
