//! Addresses printed in the other order than the one the address data gives their country
//! (class `postcode.order`, docs/extraction.md "Addresses"): Google's address metadata
//! (`extract::postcode`) records one layout per country, and the address reader
//! (`extract::address`) reads each country's postcode on the side of the locality its layout
//! puts it. Many countries print another order too: Hungary's layout is the locality, the
//! street, then the postcode on a line of its own, and its addresses are printed `1052
//! Budapest, Minta utca 7.`; six- and seven-digit postcodes printed before their town
//! (Romania's `400001 Cluj-Napoca`) are outside the hand-made patterns' three to five digits.
//!
//! A line the address reader found nothing on is read here when the page's region is known
//! and its postcodes are the data's (not the hand-read US, CA, AU, GB, IE): a whole postcode
//! of the region (Google's `zip`) with a place name right after it, or right before it where
//! the layout prints the town first or the postcode has six digits (`Cluj-Napoca 400001`) (a region name may follow where the layout prints one
//! after the postcode, `%C %Z%n%S`: `Chennai - 600017, Tamil Nadu`), and a
//! street with a street name and a house number or a street word (`extract::address`'s
//! street lexicon) before it on the line, on the lines above, or (postcode first) after the
//! town on the same line. Without such a street a number beside a capitalised word is not
//! read as an address (years, counts and prices are).

use crate::extract::address::{
    city_any_word, clean_city, country_after, ends_address, ends_with_house_number,
    has_street_name, has_street_word_in, is_copyright_mark, is_part_of_other_number, is_premise,
    name_run, next_word_end, opens_name, places_before, region_after_postcode, street_for,
    street_over_district, zip_tokens, MarkedAddress, TextAddress, HAND_READ,
};
use crate::extract::dates;
use crate::extract::page_budget::PageBudget;
use crate::extract::postcode;
use crate::extract::town_first;
use crate::extract::words8::first_ascii_digit;

/// Digits of a postcode read after its town in a layout that prints the postcode first:
/// six (Romania, Belarus, Central Asia), rarer after a name than counts and years.
const MIN_TOWN_FIRST_DIGITS: usize = 6;

/// Pacing units for a line with a postcode of the region: a few street look-ups.
const MATCHED_LINE_UNITS: usize = 512;

/// Addresses on the `lines` the address reader found none on (`found`: what it found), in
/// the other order than `page_region`'s layout, as described in the module's doc. Charged to
/// the page's `budget`: each line its length, each line holding a postcode of the region
/// more; once it is spent, what was found so far.
pub(crate) fn read(
    lines: &[&str],
    page_region: Option<&str>,
    found: &[TextAddress],
    budget: &PageBudget,
) -> Vec<TextAddress> {
    let Some(format) = page_region
        .filter(|r| !HAND_READ.contains(r))
        .and_then(postcode::format)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if !budget.work(line.len() + 16) {
            break;
        }
        if first_ascii_digit(line.as_bytes()).is_none() || found.iter().any(|a| a.line == index) {
            continue;
        }
        for (start, ends) in zip_tokens(line) {
            let Some(end) = ends
                .iter()
                .copied()
                .find(|&end| format.validates(&line[start..end]))
            else {
                continue;
            };
            if is_part_of_other_number(line, start, end)
                || is_copyright_mark(&line[..start])
                || dates::is_year_of_date(&line[..start], &line[start..end])
            {
                continue;
            }
            if !budget.work(MATCHED_LINE_UNITS) {
                return out;
            }
            // The town before the postcode only where the layout prints it so (`%C %Z`,
            // `%C%n%Z`), or where the postcode has six digits or more (class
            // `postcode.town_first`, Romania's `Cluj-Napoca 400001`, Belarus' `Минск
            // 220030`): where it puts a shorter postcode first, a number after a town's name
            // is as often something else, and the name before it is not reliably the town's.
            let long = end - start >= MIN_TOWN_FIRST_DIGITS
                && line[start..end].bytes().all(|b| b.is_ascii_digit());
            let parts = zip_then_town(lines, index, line, (start, end), format).or_else(|| {
                (long || format.layout() != postcode::Layout::ZipFirst)
                    .then(|| town_then_zip(lines, index, line, start, end, format))
                    .flatten()
            });
            // Town and postcode before the street (`extract::town_first`).
            // A date line read as the street of a year (class `date.month`) is none.
            let parts = parts
                .or_else(|| town_first::read_at(line, start, end))
                .or_else(|| town_first::read_above_street(lines, index, (start, end), format))
                .filter(|parts| {
                    !dates::reads_a_date(parts.street.as_deref(), parts.postal_code.as_deref())
                });
            if let Some(parts) = parts {
                out.push(TextAddress {
                    parts,
                    region: format.code,
                    line: index,
                });
                break;
            }
        }
    }
    out
}

/// `400001 Cluj-Napoca` below or after its street, `1052 Budapest, Minta utca 7.`: the
/// postcode at `start..end` of line `index`, a place name right after it.
fn zip_then_town(
    lines: &[&str],
    index: usize,
    line: &str,
    (start, end): (usize, usize),
    format: &postcode::Format,
) -> Option<MarkedAddress> {
    let after = &line[end..];
    let gap = after.len() - after.trim_start_matches([' ', '\u{a0}']).len();
    let town_start = end + gap;
    if gap == 0 || !line[town_start..].starts_with(opens_name) {
        return None;
    }
    // The town's later words are capitalised or short particles (`Cluj-Napoca`, `Alcalá de
    // Henares`): `Hotel opens its doors` is prose.
    let mut town_end = name_run(line, town_start);
    for _ in 0..4 {
        match next_word_end(line, town_end, city_any_word) {
            Some(next)
                if line[town_end + 1..next].starts_with(opens_name) || next - town_end <= 4 =>
            {
                town_end = next;
            }
            _ => break,
        }
    }
    let town = clean_city(&line[town_start..town_end]);
    if town.is_empty() || has_street_word_in(&town) {
        return None;
    }
    // A country's letters glued before the postcode (`RO-400001`) are not the street's.
    let before = line[..start].trim_end_matches('-');
    let before = before.trim_end_matches(|c: char| c.is_ascii_uppercase());
    // A label before the postcode (`Cím: 1052 Budapest, …`) opens the address.
    let before = if before.trim_end().ends_with(':') {
        ""
    } else {
        before
    };
    let rest = &line[town_end..];
    let street = street_for(lines, index, before)
        .or_else(|| {
            // The street after the town (`1052 Budapest, Minta utca 7.`).
            let segment = rest.strip_prefix(',')?;
            let segment = segment
                .split([',', ';', '|', '·', '•'])
                .next()?
                .trim()
                .trim_end_matches('.');
            (before.trim().is_empty() && ends_with_house_number_or_premise(segment))
                .then(|| segment.to_string())
        })
        .or_else(|| {
            // A district line between the street and the postcode (`Rua Sete, 77` /
            // `Jardim América` / `99025-030 Passo Fundo - RS`).
            before
                .trim()
                .is_empty()
                .then(|| street_over_district(lines, index, format))
                .flatten()
        })
        .filter(|street| is_strong_street(street))?;
    Some(MarkedAddress {
        street: Some(street),
        locality: Some(town),
        region: None,
        postal_code: Some(line[start..end].to_string()),
        country: country_after(rest),
    })
}

/// Whether `segment` ends with its house number, or with a premise after it (class
/// `address.premise` after the number: `Minta utca 7. 2. emelet`, `Strada Exemplu 10, bl. A`).
fn ends_with_house_number_or_premise(segment: &str) -> bool {
    ends_with_house_number(segment)
        || segment
            .match_indices(' ')
            .any(|(at, _)| ends_with_house_number(&segment[..at]) && is_premise(&segment[at..]))
}

/// `Str. Exemplu nr. 10, Cluj-Napoca 400001`: the postcode at `start..end` of line `index`
/// after its place name, nothing but a country or punctuation after it.
fn town_then_zip(
    lines: &[&str],
    index: usize,
    line: &str,
    start: usize,
    end: usize,
    format: &postcode::Format,
) -> Option<MarkedAddress> {
    let after = &line[end..];
    // After the postcode: nothing, a country, or the region the layout prints after it
    // (`%C %Z%n%S`: `Chennai - 600017, Tamil Nadu`, `Miraflores 15074, Lima`).
    if !ends_address(after, format) {
        return None;
    }
    let before = &line[..start];
    let (place_start, locality, region) = places_before(before, format);
    let locality = locality?;
    let region = region.or_else(|| region_after_postcode(after, format).map(str::to_string));
    let street =
        street_for(lines, index, &before[..place_start]).filter(|s| is_strong_street(s))?;
    Some(MarkedAddress {
        street: Some(street),
        locality: Some(locality),
        region,
        postal_code: Some(line[start..end].to_string()),
        country: country_after(after),
    })
}

/// Whether `street` is a street by more than its shape: at most eight words, and a street
/// word of the lexicon (`str`, `utca`, `calle`…) or a street name with a house number first
/// or last (`12`, `12a`, `12-14`, `156/3`; not an ordinal: `500th anniversary` is prose).
/// The premise chunks after the first (class `address.premise`: a block, staircase, floor
/// and flat, `Strada Exemplu 12, bl. A2, sc. 1, et. 3, ap. 5`, `ул. Примерна 12, бл. 5, вх.
/// А, ет. 3, ап. 7`) are not counted: each is short and holds a premise word.
fn is_strong_street(street: &str) -> bool {
    let counted_words: usize = street
        .split(',')
        .enumerate()
        .filter(|&(at, chunk)| at == 0 || !is_premise(chunk))
        .map(|(_, chunk)| chunk.split_whitespace().count())
        .sum();
    if counted_words > 8 {
        return false;
    }
    let words: Vec<&str> = street.split_whitespace().collect();
    let numbered =
        |word: Option<&&str>| word.is_some_and(|w| is_house_number(w.trim_end_matches([',', '.'])));
    has_street_word_in(street)
        || ((numbered(words.first()) || numbered(words.last())) && has_street_name(street))
}

/// `12`, `12a`, `12-14`, `156/3`: digits, then one letter or a dash or slash and more digits
/// and letters.
fn is_house_number(token: &str) -> bool {
    let rest = token.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.len() == token.len() || token.len() > 9 {
        return false;
    }
    let mut chars = rest.chars();
    match chars.next() {
        None => true,
        Some('-' | '/') => chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '/'),
        Some(c) => c.is_alphabetic() && chars.next().is_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_lines(lines: &[&str], region: &str) -> Vec<MarkedAddress> {
        let budget = PageBudget::for_page(lines.iter().map(|l| l.len()).sum());
        read(lines, Some(region), &[], &budget)
            .into_iter()
            .map(|a| a.parts)
            .collect()
    }

    fn postcodes(found: &[MarkedAddress]) -> Vec<Option<&str>> {
        found.iter().map(|a| a.postal_code.as_deref()).collect()
    }

    #[test]
    fn a_six_digit_postcode_after_its_town_where_the_layout_prints_it_first() {
        // Romania (`%Z %S %C`), Belarus (`%Z, %C`).
        for (lines, region, street, town, zip) in [
            (
                &["Str. Exemplu nr. 10, Cluj-Napoca 400001"][..],
                "RO",
                "Str. Exemplu nr. 10",
                "Cluj-Napoca",
                "400001",
            ),
            (
                &["Strada Exemplu 5", "București 010011"],
                "RO",
                "Strada Exemplu 5",
                "București",
                "010011",
            ),
            (
                &["ул. Примерная 5, Минск 220030"],
                "BY",
                "ул. Примерная 5",
                "Минск",
                "220030",
            ),
        ] {
            let found = read_lines(lines, region);
            assert_eq!(postcodes(&found), [Some(zip)], "{lines:?}: {found:?}");
            assert_eq!(found[0].street.as_deref(), Some(street), "{lines:?}");
            assert_eq!(found[0].locality.as_deref(), Some(town), "{lines:?}");
        }
        // Five digits after a name in a layout that prints them first: not read.
        assert!(read_lines(&["Strada Exemplu 5, Berlin 10115"], "DE").is_empty());
    }

    #[test]
    fn a_district_line_between_the_street_and_the_postcode_first_line() {
        // Brazil (bairro), South Africa (suburb): layouts with a district line (`%D`).
        for (lines, region, street, town) in [
            (
                &[
                    "Rua Sete, 77",
                    "Jardim América",
                    "99025-030 Passo Fundo - RS",
                ][..],
                "BR",
                "Rua Sete, 77",
                "Passo Fundo",
            ),
            (
                &["12 Sample Street", "Sandton", "2196 Johannesburg"],
                "ZA",
                "12 Sample Street",
                "Johannesburg",
            ),
        ] {
            let found = read_lines(lines, region);
            assert_eq!(found.len(), 1, "{lines:?}: {found:?}");
            assert_eq!(found[0].street.as_deref(), Some(street), "{lines:?}");
            assert_eq!(found[0].locality.as_deref(), Some(town), "{lines:?}");
        }
        // A name above the district line is no street.
        let lines = [
            "Exemplo Comércio Ltda",
            "Jardim América",
            "99025-030 Passo Fundo - RS",
        ];
        assert!(read_lines(&lines, "BR").is_empty());
    }

    #[test]
    fn a_six_digit_postcode_before_its_town() {
        // Romania (layout `%Z %S %C`, six digits), Colombia (six digits, layout after).
        let found = read_lines(&["Str. Exemplu nr. 10", "400001 Cluj-Napoca"], "RO");
        assert_eq!(postcodes(&found), [Some("400001")], "{found:?}");
        assert_eq!(found[0].street.as_deref(), Some("Str. Exemplu nr. 10"));
        assert_eq!(found[0].locality.as_deref(), Some("Cluj-Napoca"));
        let found = read_lines(&["Carrera 7 # 71-21, 110231 Bogotá"], "CO");
        assert_eq!(postcodes(&found), [Some("110231")], "{found:?}");
        assert_eq!(found[0].locality.as_deref(), Some("Bogotá"));
    }

    #[test]
    fn a_postcode_after_the_town_where_the_layout_puts_it_after() {
        // Hungary (layout: the postcode on its own line after the town), Israel (`%C %Z`,
        // seven digits).
        let found = read_lines(&["Minta utca 7., Budapest 1052"], "HU");
        assert_eq!(postcodes(&found), [Some("1052")], "{found:?}");
        assert_eq!(found[0].locality.as_deref(), Some("Budapest"));
        let found = read_lines(&["12 Example St., Tel Aviv 6473921, Israel"], "IL");
        assert_eq!(postcodes(&found), [Some("6473921")], "{found:?}");
        // Where the layout puts a postcode of five digits first (Germany `%Z %C`), not read
        // (six digits are: `a_six_digit_postcode_after_its_town_where_the_layout_prints_it_first`).
        let found = read_lines(&["Musterstraße 12, Berlin 10115"], "DE");
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn the_region_after_the_postcode_where_the_layout_prints_it_there() {
        // India and Peru (layout `%C %Z%n%S`), printed on one line.
        let found = read_lines(
            &["No. 12, Example Street, T. Nagar, Chennai - 600017, Tamil Nadu"],
            "IN",
        );
        assert_eq!(postcodes(&found), [Some("600017")], "{found:?}");
        assert_eq!(found[0].locality.as_deref(), Some("Chennai"));
        assert_eq!(found[0].region.as_deref(), Some("Tamil Nadu"));
        let found = read_lines(&["Av. Ejemplo 456, Miraflores 15074, Lima, Perú"], "PE");
        assert_eq!(postcodes(&found), [Some("15074")], "{found:?}");
        assert_eq!(found[0].region.as_deref(), Some("Lima"));
        // Venezuela (`%C %Z, %S`): the address reader's region after the postcode.
        let found = read_lines(&["Av. Ejemplo 12, Chacao 1060, Miranda"], "VE");
        assert_eq!(postcodes(&found), [Some("1060")], "{found:?}");
        assert_eq!(found[0].region.as_deref(), Some("Miranda"));
        // Not in a layout without a region after the postcode, unless the name carries a
        // region's mark (class `region.mark`).
        let found = read_lines(&["Minta utca 7., Budapest 1052, Belváros"], "HU");
        assert!(found.is_empty(), "{found:?}");
        let found = read_lines(&["Minta utca 7., Budapest 1052, Pest megye"], "HU");
        assert_eq!(postcodes(&found), [Some("1052")], "{found:?}");
        assert_eq!(found[0].locality.as_deref(), Some("Budapest"));
    }

    #[test]
    fn the_street_after_the_town() {
        // Hungary (`1052 Budapest, Minta utca 7.`), Romania.
        let found = read_lines(&["Cím: 1052 Budapest, Minta utca 7."], "HU");
        assert_eq!(postcodes(&found), [Some("1052")], "{found:?}");
        assert_eq!(found[0].street.as_deref(), Some("Minta utca 7"));
        assert_eq!(found[0].locality.as_deref(), Some("Budapest"));
        let found = read_lines(&["400001 Cluj-Napoca, Strada Exemplu 10"], "RO");
        assert_eq!(found[0].street.as_deref(), Some("Strada Exemplu 10"));
    }

    #[test]
    fn a_number_beside_a_word_without_a_street_is_no_address() {
        for (lines, region) in [
            (&["Founded in 1998 Budapest"][..], "HU"),
            (&["Over 1200 Clients", "trust us"][..], "HU"),
            (&["Cluj-Napoca 400001"][..], "RO"),
            (&["© 2024 Minta Kft.", "1052 Budapest"][..], "HU"),
            (&["Telefon: 0264 400001 Cluj"][..], "RO"),
            (
                &["On the 500th anniversary of that day, 1521 Guests came"][..],
                "PH",
            ),
        ] {
            let found = read_lines(lines, region);
            assert!(found.is_empty(), "{lines:?}: {found:?}");
        }
    }

    #[test]
    fn hand_read_regions_and_pages_of_no_region_are_not_read() {
        let budget = PageBudget::for_page(64);
        assert!(read(
            &["Str. Exemplu nr. 10", "400001 Cluj-Napoca"],
            None,
            &[],
            &budget
        )
        .is_empty());
        assert!(read(
            &["12 Example Street", "2000 Sydney"],
            Some("AU"),
            &[],
            &budget
        )
        .is_empty());
    }
}
