//! Postcodes of the other countries of the page's language (class `postcode.language`,
//! docs/extraction.md "Addresses"): a page on a host without a country-code domain (`.com`,
//! `.org`, `.io`) has its postcodes read with the main country of its `<html lang>`
//! (`region::main_country`: `de` → DE), but German is written in Austria and Switzerland too,
//! Portuguese in Brazil, Spanish in Argentina and Chile, French in Belgium: `1060 Wien`,
//! `01310-100`, `C1043AAZ`, `1000 Bruxelles` are no postcodes of the main country, and were not
//! read.
//!
//! A line the address reader found nothing on is read here when it holds a token that is no
//! whole postcode of the page's region but is one (Google's `zip`, `extract::postcode`) of
//! another country of the language ([`region::language_regions`]). The countries tried, in
//! order: the one named in the line (`…, Argentina`), then the others whose pattern the token
//! validates, most populous first; the first whose reading of the lines around it
//! ([`address::from_lines`], then [`postcode_order::read`]) gives an address with that
//! postcode on that line gives it. The address reader's own rules (a street before or above,
//! a place name beside the postcode) decide, as on a page of that country.
//!
//! Read in the other order than the country's layout (`extract::postcode_order`) only when the
//! postcode is that country's alone.
//!
//! Languages of many countries without a main one (English: India, Nigeria, South Africa,
//! Kenya… on `.com` hosts with national numbers only, which give the region decision
//! nothing) are read the same way (class `postcode.language_of_many`): the first of the
//! language's countries, most populous first, whose reading gives a street and postcode gives
//! the address. At most [`MAX_READS`] readings a page, and only tokens beside a place name or
//! alone on their line.
//!
//! A postcode that several countries' patterns validate must open or end its line or a
//! comma-separated part of it.
//!
//! A postcode that validates for one of the countries only (or for the one the line names) is
//! evidence of the page's country ([`Choice::unique`]); one that several validate (`1060`:
//! Austria, Switzerland, Luxembourg) is read but says nothing of the country.

use crate::extract::address::{
    self, country_in_line, is_copyright_mark, is_part_of_other_number, opens_name, zip_tokens,
};
use crate::extract::address::{TextAddress, HAND_READ};
use crate::extract::dates::{is_year, is_year_of_date, reads_a_date};
use crate::extract::page_budget::PageBudget;
use crate::extract::words8::first_ascii_digit;
use crate::extract::{postcode, postcode_order, region};

/// Lines above the postcode's line read with it (street lines, a locality line above a
/// postcode on its own line).
const LINES_ABOVE: usize = 5;
/// Longest line examined, in bytes (the address reader's bound).
const MAX_LINE: usize = 400;
/// Longest token tried as a postcode, in bytes (`C1043AAZ`, `01310-100`, `LV-1010`).
const MAX_TOKEN: usize = 10;
/// Most countries whose reading is tried for one token.
const MAX_TRIES: usize = 3;
/// Most readings of the lines around a postcode per page (each a read of a few lines).
const MAX_READS: usize = 6;
/// Pacing units (`crate::pace`) for a token tried in one country: a read of a few lines.
const TRY_UNITS: usize = 2048;

/// An address read with another country of the page's language.
#[derive(Debug, Clone)]
pub(crate) struct Choice {
    /// The address (its `line` an index of the page's lines).
    pub address: TextAddress,
    /// Whether its postcode validates for that country alone among the candidates, or the
    /// line names that country: evidence of the page's country.
    pub unique: bool,
}

/// The addresses on `lines` that the reader found none on (`found`) whose postcode belongs to
/// another country of `language` (an ISO 639-1 code) than `page_region` (the region the reader
/// used; `None` on a page of no region). Charged to the page's `budget`: each line its length,
/// each country tried more; once spent, what was found so far.
pub(crate) fn read(
    lines: &[&str],
    language: &str,
    page_region: Option<&str>,
    found: &[TextAddress],
    budget: &PageBudget,
) -> Vec<Choice> {
    let candidates: Vec<&postcode::Format> = region::language_regions(language)
        .iter()
        .filter(|r| Some(**r) != page_region && !HAND_READ.contains(r))
        .filter_map(|r| postcode::format(r))
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let page_format = page_region.and_then(postcode::format);
    let any_candidate = postcode::AnyOf::new(&candidates);
    let mut out: Vec<Choice> = Vec::new();
    let mut reads = 0;
    for (index, line) in lines.iter().enumerate() {
        if !budget.work(line.len() + 16) {
            break;
        }
        if line.len() > MAX_LINE
            || first_ascii_digit(line.as_bytes()).is_none()
            || found.iter().any(|a| a.line == index)
        {
            continue;
        }
        'tokens: for (start, ends) in zip_tokens(line) {
            for end in ends {
                let zip = &line[start..end];
                // The tests are pure: the cheapest first (most tokens are no postcode of any
                // candidate country, and the lower-casing tests of the text before the token
                // cost the most).
                if zip.len() > MAX_TOKEN
                    || !any_candidate.may_validate(zip)
                    || !candidates.iter().any(|f| f.validates(zip))
                    || !beside_name(line, start, end)
                    || is_year_of_date(&line[..start], zip)
                    || page_format.is_some_and(|f| f.validates(zip))
                    || is_part_of_other_number(line, start, end)
                    || is_copyright_mark(&line[..start])
                {
                    continue;
                }
                let mut valid: Vec<&postcode::Format> = candidates
                    .iter()
                    .copied()
                    .filter(|f| f.validates(zip))
                    .collect();
                let named = country_in_line(line, start);
                if let Some(i) = valid.iter().position(|f| Some(f.code) == named) {
                    let first = valid.remove(i);
                    valid.insert(0, first);
                }
                let unique = valid.len() == 1 || named == Some(valid[0].code);
                // A postcode of several countries opens its line or a comma-separated part
                // of it (`Musterstraße 5, 1060 Wien`) or ends it (`Auckland 1010`): between
                // two words it is as often a year (`Jubiläum 2024 Feier`).
                let before = line[..start].trim_end();
                let after = line[end..].trim_start();
                let opens = before.is_empty() || before.ends_with(',');
                let ends = after.is_empty() || after.starts_with([',', '.', ';', '|', '·', '•']);
                if !unique && !opens && !ends {
                    continue;
                }
                for format in valid.into_iter().take(MAX_TRIES) {
                    reads += 1;
                    if reads > MAX_READS || !budget.work(TRY_UNITS) {
                        return out;
                    }
                    if let Some(address) = read_in(lines, index, zip, format.code, unique, budget) {
                        out.push(Choice { address, unique });
                        break 'tokens;
                    }
                }
            }
        }
    }
    out
}

/// Whether the token at `start..end` of `line` stands beside a place name (a word opening
/// with a capital or a letter of a script without case right after it, `1060 Wien`; a word
/// right before it that is not all lower-case letters, `Auckland 1010`, `Curitiba - PR
/// 80020-310`, not `in 2015`, `of 2014`, `seit 1998`: a place name is no lower-case word) or
/// alone on its line (`80020-310` below its town).
fn beside_name(line: &str, start: usize, end: usize) -> bool {
    let after = line[end..].trim_start_matches([' ', '\u{a0}']);
    let before = line[..start].trim_end_matches([' ', ',', '-', '–', '\u{a0}']);
    after.starts_with(opens_name)
        || (before.ends_with(char::is_alphabetic) && !is_lower_case_word(last_word(before)))
        || (line[..start].trim().is_empty() && after.trim().is_empty())
}

/// The last word of `text` (after its last white space).
fn last_word(text: &str) -> &str {
    text.rsplit(char::is_whitespace).next().unwrap_or(text)
}

/// Whether every letter of `word` is a lower-case one (`in`, `für`, `de`); a word with a
/// capital or a letter of a script without case is not.
fn is_lower_case_word(word: &str) -> bool {
    word.chars().all(|c| !c.is_alphabetic() || c.is_lowercase())
}

/// The address with postcode `zip` on line `index`, read from the lines around it as on a
/// page of `code`'s country; in the other order than its layout's (`postcode_order`) only
/// when `other_order` (the postcode is that country's alone: a four-digit number after a
/// street line, `Springfield 2024 Award`, is one of several countries' and as often a year).
fn read_in(
    lines: &[&str],
    index: usize,
    zip: &str,
    code: &'static str,
    other_order: bool,
    budget: &PageBudget,
) -> Option<TextAddress> {
    let from = index.saturating_sub(LINES_ABOVE);
    let to = (index + 2).min(lines.len());
    let window = &lines[from..to];
    let at = index - from;
    // With a street: a postcode and town alone (which the reader takes beside contact
    // details on a page of their country) are too weak a sign of another country.
    // A postcode of several countries with a year's value (`Sydney NSW 2000`, and as often
    // `Fashion Week 2014`) needs a street word in its street (`2 concerts` is none); a date
    // read as the street of a year is none either (`April 21, 2022` / `2022 Sample Cup`).
    let street_fits =
        |street: &str| other_order || !is_year(zip) || address::has_street_word_in(street);
    let ours = |a: &TextAddress| {
        a.line == at
            && a.parts.postal_code.as_deref() == Some(zip)
            && a.parts.street.as_deref().is_some_and(street_fits)
            && !reads_a_date(a.parts.street.as_deref(), Some(zip))
    };
    let mut read = address::from_lines(window, Some(code), budget);
    read.retain(|a| a.line == at);
    if other_order && !read.iter().any(ours) {
        read = postcode_order::read(window, Some(code), &read, budget);
    }
    let mut address = read.into_iter().find(ours)?;
    address.line = index;
    Some(address)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn postcodes(lines: &[&str], language: &str, page: Option<&str>) -> Vec<(String, bool)> {
        let budget = PageBudget::for_page(lines.iter().map(|l| l.len()).sum());
        let found = address::from_lines(lines, page, &budget);
        read(lines, language, page, &found, &budget)
            .into_iter()
            .map(|c| {
                let zip = c.address.parts.postal_code.unwrap_or_default();
                (format!("{}:{zip}", c.address.region), c.unique)
            })
            .collect()
    }

    #[test]
    fn postcodes_of_the_other_countries_of_the_language() {
        // German on a generic domain: Austria and Switzerland (four digits: several
        // countries, no evidence).
        assert_eq!(
            postcodes(
                &["Beispiel GmbH, Musterstraße 5, 1060 Wien"],
                "de",
                Some("DE")
            ),
            [("AT:1060".to_string(), false)]
        );
        // (Switzerland's too: the first of them that reads the address gives it.)
        assert_eq!(
            postcodes(
                &["Beispiel AG", "Bahnhofstrasse 12", "8001 Zürich"],
                "de",
                Some("DE")
            ),
            [("AT:8001".to_string(), false)]
        );
        // Portuguese: a Brazilian CEP on its own line (Brazil's alone).
        assert_eq!(
            postcodes(
                &[
                    "Rua das Palmeiras, 210 - Centro",
                    "Curitiba - PR",
                    "80020-310"
                ],
                "pt",
                Some("PT")
            ),
            [("BR:80020-310".to_string(), true)]
        );
        // Spanish: an Argentine CPA, a Chilean seven-digit code.
        assert_eq!(
            postcodes(
                &["Av. Corrientes 1234, C1043AAZ Buenos Aires"],
                "es",
                Some("ES")
            ),
            [("AR:C1043AAZ".to_string(), true)]
        );
        assert_eq!(
            postcodes(
                &["Av. Providencia 1234, 7500000 Santiago"],
                "es",
                Some("ES")
            ),
            [("CL:7500000".to_string(), true)]
        );
        // French: Belgium, named in the line.
        assert_eq!(
            postcodes(
                &["Rue de la Loi 16, 1000 Bruxelles, Belgique"],
                "fr",
                Some("FR")
            ),
            [("BE:1000".to_string(), true)]
        );
    }

    #[test]
    fn postcodes_of_the_page_region_and_numbers_that_are_no_address_are_left() {
        // The main country's own postcode is the reader's to judge.
        assert!(postcodes(&["Musterstraße 5, 10115 Berlin"], "de", Some("DE")).is_empty());
        // Counts, years and prices beside words, without a street.
        for line in [
            "Über 1200 Kunden vertrauen uns",
            "Seit 1998 Ihr Partner",
            "Preis 1500 Euro pro Monat",
            "Mais de 20000 clientes satisfeitos",
        ] {
            assert!(postcodes(&[line], "de", Some("DE")).is_empty(), "{line}");
            assert!(postcodes(&[line], "pt", Some("PT")).is_empty(), "{line}");
        }
        // A year after a street line, in English (four digits: the Philippines, South Africa,
        // New Zealand…) and German (Austria, Switzerland…), the other order.
        assert!(postcodes(&["1200 Main Street", "Springfield 2024 Award"], "en", None).is_empty());
        assert!(postcodes(&["Hauptstraße 12", "Jubiläum 2024 Feier"], "de", Some("DE")).is_empty());
        // A language without other countries.
        assert!(postcodes(&["Storgata 5, 0155 Oslo"], "nb", Some("NO")).is_empty());
        // English prose, prices and hours with numbers on a page of no region.
        for line in [
            "Serving 1200 Happy Customers since 2004",
            "Plans from 4999 Rupees, 12 months",
            "Open Monday to Friday 0900 - 1700",
        ] {
            assert!(postcodes(&[line], "en", None).is_empty(), "{line}");
        }
    }

    #[test]
    fn years_are_no_postcodes_of_the_other_countries() {
        let none = |lines: &[&str], language: &str, page: Option<&str>| {
            assert!(postcodes(lines, language, page).is_empty(), "{lines:?}");
        };
        // Class `date.month`: the year of a date, after a month's name (and a day).
        none(
            &["Sample Street 5", "Sample Business January 14, 2015 Sample"],
            "en",
            None,
        );
        none(
            &["Calle Ejemplo 5", "Noticias Ejemplo Abril 2019"],
            "es",
            Some("ES"),
        );
        // A date line read as the street of the year on the next line.
        none(
            &["April 21, 2022", "2022 Sample City Softball tournament"],
            "en",
            None,
        );
        none(
            &["23 de abril de 2022", "2022 Ejemplo Ciudad Torneo"],
            "es",
            Some("ES"),
        );
        none(&["23. Juni 2021 Beispielrennen 2021"], "de", Some("DE"));
        // After a lower-case word: no place name.
        none(
            &["Sample Road 5", "Our Favourite Gadgets of 2014"],
            "en",
            None,
        );
        none(
            &["Calle Ejemplo 5", "Las mejores Ofertas de 2019"],
            "es",
            Some("ES"),
        );
        // A year's value, several countries', without a street word in the street.
        none(
            &["Sample Awards 2016", "Sample Fashion Week 2014"],
            "en",
            None,
        );
        none(&["2 concerts", "Touring History 2017"], "en", None);
        none(
            &["Premios Ejemplo 2016", "Semana Ejemplo 2014"],
            "es",
            Some("ES"),
        );
        none(
            &["12 Ejemplos", "Feria Ejemplo Madrid 2019"],
            "es",
            Some("ES"),
        );
        // With a street word, a postcode of a year's value is read; a street named after a
        // date keeps a postcode of no year's value.
        assert_eq!(
            postcodes(
                &["12 Sample Road, Sampleton, Johannesburg, 2001"],
                "en",
                None
            ),
            [("ZA:2001".to_string(), false)]
        );
        assert_eq!(
            postcodes(&["Hauptstraße 5, 2000 Beispielort"], "de", Some("DE")),
            [("AT:2000".to_string(), false)]
        );
        assert_eq!(
            postcodes(&["Av. 25 de Mayo 555, 1002 Buenos Aires"], "es", Some("ES")),
            [("AR:1002".to_string(), false)]
        );
    }

    #[test]
    fn postcodes_of_a_language_of_many_countries_without_a_main_one() {
        // English on a generic domain without a region: India (six digits: several
        // countries, no evidence), South Africa (four digits), Kenya (a box's post office).
        assert_eq!(
            postcodes(
                &[
                    "12 Sample Road, Sample Layout",
                    "Bengaluru, Karnataka 560035"
                ],
                "en",
                None
            ),
            [("IN:560035".to_string(), false)]
        );
        assert_eq!(
            postcodes(
                &["12 Sample Street, Sampleton, Cape Town, 8002"],
                "en",
                None
            ),
            [("ZA:8002".to_string(), false)]
        );
    }
}
