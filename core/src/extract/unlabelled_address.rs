//! Addresses printed without a postcode and without a label (class `address.unlabelled`):
//! a footer column, a contact card, a list item or the lines under an `Office` or `Visit us`
//! heading that hold a street and its town (`No. 14 Sample Street, East Legon / Accra`), in
//! countries where the postcode is often left out. Read only on pages where no other address
//! was found (not with a postcode, not under a label: `extract::no_postcode`), and only from
//! a short run of lines that is nothing but an address (docs/extraction.md, "Addresses"):
//!
//! - a line with a street (a street word of the lexicon and a street name, no sentence), the
//!   premise lines above it in its block, and the lines after it in its block up to another
//!   field (a phone, an email, a label): every chunk of them a premise, the street, a place
//!   or the country ([`no_postcode::parse`] with [`Evidence::Unlabelled`]), at least one
//!   place or the country after the street;
//! - scored by its evidence: a country the page's region agrees with, a state's name
//!   (lexicon `region.name`), a town, a house number, a heading of the business's place above
//!   it (lexicon `label.location`: office, head office, branch, showroom, visit us), another
//!   contact field (a phone, an email) right after it. Kept at [`MIN_SCORE`] or more; at most
//!   [`MAX_FOUND`] per page, the best first.

use crate::extract::address::{self, MarkedAddress};
use crate::extract::no_postcode::{self, Evidence, Layout};
use crate::extract::page_budget::PageBudget;
use crate::lexicon::{self, Class};
use std::sync::OnceLock;

/// Longest line read as a part of an unlabelled address, in bytes.
const MAX_LINE: usize = 120;
/// Most non-empty lines of the block an unlabelled address is read in: a longer block is
/// prose or a list of something else.
const MAX_BLOCK_LINES: usize = 8;
/// Most lines of one unlabelled address.
const MAX_LINES: usize = 4;
/// Most premise lines above the street line.
const MAX_PREMISE_LINES: usize = 2;
/// Lines above an address searched for a `label.location` heading, and after it for another
/// contact field.
const NEAR_LINES: usize = 3;
/// Least score an address is kept with (see [`score`]).
pub(crate) const MIN_SCORE: u32 = 3;
/// Least score an address whose street has no street word is kept with: a town and a house
/// number, and no phone after it (see [`read`]).
pub(crate) const MIN_TYPELESS_SCORE: u32 = 2;
/// Most unlabelled addresses of one page.
pub(crate) const MAX_FOUND: usize = 2;

/// The unlabelled addresses of a page's `lines` (its text, third parties' parts blanked),
/// `region` the page's ISO 3166-1 region (`None`: only an address that prints its country is
/// read). At most [`MAX_FOUND`], the best scored first (ties in page order). Charged to
/// `budget` (a unit a byte of each line looked at); once it is spent the addresses found so
/// far are weighed.
pub(crate) fn read(
    lines: &[&str],
    layout: &Layout<'_>,
    region: Option<&str>,
    budget: &PageBudget,
) -> Vec<MarkedAddress> {
    let mut found: Vec<(u32, MarkedAddress)> = Vec::new();
    let mut next = 0;
    let blocks = blocks_of_lines(lines.len(), layout);
    // Whether line `i` is in the block of line `of` and holds text.
    let text_beside =
        |i: usize, of: usize| blocks.get(i) == blocks.get(of) && !lines[i].trim().is_empty();
    for (index, line) in lines.iter().enumerate() {
        if !budget.work(line.len() + 16) {
            break;
        }
        if index < next {
            continue;
        }
        let (heading, text) = after_location(line.trim());
        // A line without a comma and with no text beside it in its block (most lines of a
        // page: a heading, a paragraph) is read alone, as one chunk, which is never a street
        // and a place after it: `parse` would give nothing. Tested before the street words,
        // which cost more.
        let alone = (index == 0 || !text_beside(index - 1, index))
            && (index + 1 >= lines.len() || !text_beside(index + 1, index));
        if text.is_empty()
            || text.len() > MAX_LINE
            || (alone && memchr::memchr(b',', text.as_bytes()).is_none())
            || !(address::has_street_word_in(text)
                // A typeless street ends in a house number: a line without a digit has none.
                || (text.bytes().any(|b| b.is_ascii_digit())
                    && text.split(',').any(no_postcode::is_typeless_street)))
        {
            continue;
        }
        let in_block = |i: usize| blocks.get(i) == blocks.get(index);
        let (mut lo, mut hi) = (index, index + 1);
        while lo > 0 && index - lo <= 2 * MAX_BLOCK_LINES && in_block(lo - 1) {
            lo -= 1;
        }
        while hi < lines.len() && hi - index <= 2 * MAX_BLOCK_LINES && in_block(hi) {
            hi += 1;
        }
        if (lo..hi).filter(|i| !lines[*i].trim().is_empty()).count() > MAX_BLOCK_LINES {
            continue;
        }
        // Premise lines above the street in its block, the place lines after it.
        let mut first = index;
        while first > 0
            && index - first < MAX_PREMISE_LINES
            && in_block(first - 1)
            && address::is_premise(lines[first - 1].trim())
        {
            first -= 1;
        }
        let mut end = index + 1;
        while end < lines.len()
            && end - first < MAX_LINES
            && in_block(end)
            && !lines[end].trim().is_empty()
            && !is_other_field(lines[end].trim())
        {
            end += 1;
        }
        let texts: Vec<&str> = (first..end)
            .map(|i| if i == index { text } else { lines[i].trim() })
            .collect();
        let Some(found_here) = no_postcode::parse(&texts, Evidence::Unlabelled, region) else {
            continue;
        };
        next = end;
        let heading = heading
            || (first.saturating_sub(NEAR_LINES)..first).any(|i| is_location(lines[i].trim()));
        let near = end..(end + NEAR_LINES).min(lines.len());
        let contact = near.clone().any(|i| is_other_field(lines[i].trim()));
        let points = score(&found_here, heading, contact);
        // A street without a street word (`Vzorová 12, Vzorovo`) needs a town; its line
        // followed by a phone is as often a name and a number in a list of people or products.
        let typeless = found_here
            .street
            .as_deref()
            .is_some_and(|street| !address::has_street_word_in(street));
        let enough = if typeless {
            found_here.locality.is_some()
                && points >= MIN_TYPELESS_SCORE
                && !near.clone().any(|i| is_phone_field(lines[i].trim()))
        } else {
            points >= MIN_SCORE
        };
        if enough && !found.iter().any(|(_, a)| a.street == found_here.street) {
            found.push((points, found_here));
        }
    }
    // The best first; the sort is stable, so ties stay in page order.
    found.sort_by_key(|(points, _)| std::cmp::Reverse(*points));
    found
        .into_iter()
        .take(MAX_FOUND)
        .map(|(_, address)| address)
        .collect()
}

/// The block of each of `count` lines (`layout.block_of`), in one walk: the line starts rise,
/// so the count of block starts at or before each never falls.
fn blocks_of_lines(count: usize, layout: &Layout<'_>) -> Vec<usize> {
    let mut block = 0;
    (0..count)
        .map(|line| {
            let start = layout.line_starts.get(line).copied().unwrap_or(usize::MAX);
            while layout.block_starts.get(block).is_some_and(|s| *s <= start) {
                block += 1;
            }
            block
        })
        .collect()
}

/// Whether `street` is part of one of `streets` or holds one, letters and digits compared
/// case ignored (`Calle Ejemplo 12` and `Km 4, Calle Ejemplo 12`): the same address printed
/// twice, once in part.
pub(crate) fn repeats<'a>(street: Option<&str>, streets: impl Iterator<Item = &'a str>) -> bool {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let parts: Vec<String> = street
        .unwrap_or("")
        .split(',')
        .map(squash)
        .filter(|part| !part.is_empty())
        .collect();
    let street = parts.concat();
    streets.map(squash).any(|other| {
        !other.is_empty() && (other.contains(street.as_str()) || street.contains(other.as_str()))
    })
}

/// The evidence that `found` is the business's address: 2 for a printed country (`parse`
/// made sure the page's region agrees), 2 for a state's name among its places, 1 for a town,
/// 1 for a number in its street, 1 for a `label.location` heading above it (such headings —
/// office, branch, location — head other branches' and other organisations' blocks too), 1
/// for another contact field after it.
fn score(found: &MarkedAddress, heading: bool, contact: bool) -> u32 {
    let places = [found.locality.as_deref(), found.region.as_deref()];
    let state = places.iter().flatten().any(|p| address::is_region_name(p));
    let number = found
        .street
        .as_deref()
        .is_some_and(|s| s.bytes().any(|b| b.is_ascii_digit()));
    2 * u32::from(found.country.is_some())
        + 2 * u32::from(state)
        + u32::from(found.locality.is_some())
        + u32::from(number)
        + u32::from(heading)
        + u32::from(contact)
}

/// The lexicon's words of a heading over the business's place (`label.location`: office,
/// head office, branch, showroom, visit us), lower-case, sorted; built once.
fn locations() -> &'static lexicon::SortedWords {
    static WORDS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    WORDS.get_or_init(|| lexicon::sorted_words(&[Class::LabelLocation], str::to_lowercase))
}

/// Whether `line` is a location heading alone on its line (`Head Office`, `Visit us:`).
fn is_location(line: &str) -> bool {
    let head = line.trim_end_matches([':', ' ']);
    head.len() <= 40
        && !head.is_empty()
        && address::with_lowercase(head, |head| lexicon::holds(locations(), head))
}

/// `line` without a location heading that opens it (`Head Office: 12 Sample Road, Accra`),
/// and whether one did.
fn after_location(line: &str) -> (bool, &str) {
    // Every line of a page comes here: the colon found by `memchr`, not a `char` searcher.
    match memchr::memchr(b':', line.as_bytes()) {
        Some(colon) if is_location(&line[..colon]) => (true, line[colon + 1..].trim()),
        _ => (false, line),
    }
}

/// Whether `line` holds another contact field than an address and an email: a phone, a web
/// address or a label ([`is_other_field`]).
fn is_phone_field(line: &str) -> bool {
    !line.contains('@') && is_other_field(line)
}

/// Whether `line` holds another contact field than an address: an email, a web address, a
/// phone (a `+` or at least seven digits), or opens with a label (`label.phone`,
/// `label.email`, `label.web`, `label.fax`).
fn is_other_field(line: &str) -> bool {
    static LABELS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    let labels = LABELS.get_or_init(|| {
        lexicon::sorted_words(
            &[
                Class::LabelPhone,
                Class::LabelEmail,
                Class::LabelWeb,
                Class::LabelFax,
            ],
            |w| w.to_lowercase().trim_end_matches([':', '.']).to_string(),
        )
    });
    let lower = line.to_lowercase();
    let head = lower
        .split(|c: char| !c.is_alphabetic() && c != '-')
        .next()
        .unwrap_or("");
    line.contains('@')
        || lower.contains("http")
        || lower.contains("www.")
        || line.trim_start().starts_with('+')
        || line.bytes().filter(u8::is_ascii_digit).count() >= 7
        || (!head.is_empty() && lexicon::holds(labels, head))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `lines` as a page's text whose blocks start at the lines `blocks`.
    fn read_lines(lines: &[&str], blocks: &[usize], region: Option<&str>) -> Vec<MarkedAddress> {
        no_postcode::with_layout(lines, blocks, &[], |layout| {
            read(lines, layout, region, &PageBudget::for_page(1 << 20))
        })
    }

    /// [`read`] as it read before lines alone in their block without a comma were turned
    /// away first and the lines' blocks were walked once: every line's street words, a
    /// binary search for each block asked; to hold the new reading to.
    fn read_before(
        lines: &[&str],
        layout: &Layout<'_>,
        region: Option<&str>,
        budget: &PageBudget,
    ) -> Vec<MarkedAddress> {
        let mut found: Vec<(u32, MarkedAddress)> = Vec::new();
        let mut next = 0;
        for (index, line) in lines.iter().enumerate() {
            if !budget.work(line.len() + 16) {
                break;
            }
            if index < next {
                continue;
            }
            let (heading, text) = after_location(line.trim());
            if text.is_empty()
                || text.len() > MAX_LINE
                || !(address::has_street_word_in(text)
                    // A typeless street ends in a house number: a line without a digit has none.
                    || (text.bytes().any(|b| b.is_ascii_digit())
                        && text.split(',').any(no_postcode::is_typeless_street)))
            {
                continue;
            }
            let block = layout.block_of(index);
            let in_block = |i: usize| layout.block_of(i) == block;
            let (mut lo, mut hi) = (index, index + 1);
            while lo > 0 && index - lo <= 2 * MAX_BLOCK_LINES && in_block(lo - 1) {
                lo -= 1;
            }
            while hi < lines.len() && hi - index <= 2 * MAX_BLOCK_LINES && in_block(hi) {
                hi += 1;
            }
            if (lo..hi).filter(|i| !lines[*i].trim().is_empty()).count() > MAX_BLOCK_LINES {
                continue;
            }
            // Premise lines above the street in its block, the place lines after it.
            let mut first = index;
            while first > 0
                && index - first < MAX_PREMISE_LINES
                && in_block(first - 1)
                && address::is_premise(lines[first - 1].trim())
            {
                first -= 1;
            }
            let mut end = index + 1;
            while end < lines.len()
                && end - first < MAX_LINES
                && in_block(end)
                && !lines[end].trim().is_empty()
                && !is_other_field(lines[end].trim())
            {
                end += 1;
            }
            let texts: Vec<&str> = (first..end)
                .map(|i| if i == index { text } else { lines[i].trim() })
                .collect();
            let Some(found_here) = no_postcode::parse(&texts, Evidence::Unlabelled, region) else {
                continue;
            };
            next = end;
            let heading = heading
                || (first.saturating_sub(NEAR_LINES)..first).any(|i| is_location(lines[i].trim()));
            let near = end..(end + NEAR_LINES).min(lines.len());
            let contact = near.clone().any(|i| is_other_field(lines[i].trim()));
            let points = score(&found_here, heading, contact);
            // A street without a street word (`Vzorová 12, Vzorovo`) needs a town; its line
            // followed by a phone is as often a name and a number in a list of people or products.
            let typeless = found_here
                .street
                .as_deref()
                .is_some_and(|street| !address::has_street_word_in(street));
            let enough = if typeless {
                found_here.locality.is_some()
                    && points >= MIN_TYPELESS_SCORE
                    && !near.clone().any(|i| is_phone_field(lines[i].trim()))
            } else {
                points >= MIN_SCORE
            };
            if enough && !found.iter().any(|(_, a)| a.street == found_here.street) {
                found.push((points, found_here));
            }
        }
        // The best first; the sort is stable, so ties stay in page order.
        found.sort_by_key(|(points, _)| std::cmp::Reverse(*points));
        found
            .into_iter()
            .take(MAX_FOUND)
            .map(|(_, address)| address)
            .collect()
    }

    /// Lines of contact cards, prose and other fields, and parts to join with commas.
    const CARD_LINES: [&str; 24] = [
        "",
        "12 Sample Road",
        "Sample Road",
        "No. 14 Sample Street",
        "East Legon",
        "Accra",
        "Ghana",
        "Nairobi",
        "Kenya",
        "Head Office",
        "Oficina: Calle Ejemplo 12",
        "Bella Vista",
        "Panamá",
        "Tel: +233 30 000 1234",
        "info@example.com",
        "Vzorová 12",
        "Vzorovo",
        "Sample Plaza",
        "3rd Floor",
        "We are located at 12 Sample Road",
        "Branch",
        "Open every day from nine",
        "Office 1204",
        "Westlands",
    ];

    proptest::proptest! {
        #[test]
        fn any_page_is_read_as_before(
            lines in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(&CARD_LINES[..]), 1..4),
                0..14,
            ),
            block_gaps in proptest::collection::vec(1usize..4, 0..8),
            region in proptest::sample::select(&[Some("GH"), Some("KE"), Some("PA"), Some("SK"), None][..]),
        ) {
            let lines: Vec<String> = lines.iter().map(|parts| parts.join(", ")).collect();
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            let blocks: Vec<usize> = block_gaps
                .iter()
                .scan(0, |at, gap| {
                    *at += gap;
                    Some(*at)
                })
                .filter(|at| *at < lines.len())
                .collect();
            let (now, before) = no_postcode::with_layout(&lines, &blocks, &[], |layout| {
                (
                    read(&lines, layout, region, &PageBudget::for_page(1 << 20)),
                    read_before(&lines, layout, region, &PageBudget::for_page(1 << 20)),
                )
            });
            proptest::prop_assert_eq!(now, before, "{:?} {:?}", lines, blocks);
        }
    }

    fn streets(found: &[MarkedAddress]) -> Vec<&str> {
        found.iter().filter_map(|a| a.street.as_deref()).collect()
    }

    #[test]
    fn a_location_heading_over_a_card() {
        // Ghana: `Head Office` over the street and the district, the town, the country.
        let lines = [
            "Head Office",
            "No. 14 Sample Street, East Legon",
            "Accra, Ghana",
            "Tel: +233 30 000 1234",
        ];
        let found = read_lines(&lines, &[0, 1, 3], Some("GH"));
        assert_eq!(streets(&found), ["No. 14 Sample Street, East Legon"]);
        assert_eq!(found[0].locality.as_deref(), Some("Accra"));
        // Spanish (Panama): `Oficina:` opens the line.
        let lines = ["Oficina: Calle Ejemplo 12, Bella Vista, Panamá"];
        let found = read_lines(&lines, &[0], Some("PA"));
        assert_eq!(streets(&found), ["Calle Ejemplo 12"]);
    }

    #[test]
    fn a_footer_column_with_a_contact_field() {
        // Kenya: a building, the street, the town, then an email.
        let lines = [
            "Sample Plaza, 3rd Floor",
            "12 Example Road, Westlands",
            "Nairobi",
            "info@example.co.ke",
        ];
        let found = read_lines(&lines, &[0, 3], Some("KE"));
        assert_eq!(
            streets(&found),
            ["Sample Plaza, 3rd Floor, 12 Example Road, Westlands"]
        );
        assert_eq!(found[0].locality.as_deref(), Some("Nairobi"));
        // UAE: one list item, the office before the street, the emirate and the country.
        let lines = [
            "Office 1204, Sample Tower, Sheikh Zayed Road, Dubai, UAE",
            "+971 4 000 0000",
        ];
        let found = read_lines(&lines, &[0, 1], Some("AE"));
        assert_eq!(
            streets(&found),
            ["Office 1204, Sample Tower, Sheikh Zayed Road"]
        );
    }

    #[test]
    fn a_street_without_a_street_word_and_its_town() {
        // Slovak: the street's name and its number, the village, alone in a footer line.
        let found = read_lines(&["Vzorová 12, Vzorovo"], &[0], Some("SK"));
        assert_eq!(streets(&found), ["Vzorová 12"]);
        assert_eq!(found[0].locality.as_deref(), Some("Vzorovo"));
        // Dutch: a name with its article, a number with a letter, the town on the next line.
        let found = read_lines(&["De Voorbeeld 4a", "Voorbeeldstad"], &[0], Some("NL"));
        assert_eq!(streets(&found), ["De Voorbeeld 4a"]);
        // Without a town, or followed by a phone (a name and a number in a list), or longer
        // than a name of two words and a number: nothing.
        for lines in [
            &["Vzorová 12"][..],
            &["Model Sample 12, Vzorovo", "", "Tel. 0900 123 456"][..],
            &["Sample Product Line 12, Vzorovo"][..],
        ] {
            assert!(read_lines(lines, &[0], Some("SK")).is_empty(), "{lines:?}");
        }
    }

    /// The page's addresses, read by [`crate::extract::extract_page`] from `html` at `url`.
    fn page_streets(url: &str, html: &str) -> Vec<String> {
        let url = url::Url::parse(url).unwrap();
        crate::extract::extract_page(&url, None, html.as_bytes())
            .addresses
            .into_iter()
            .filter_map(|a| a.street)
            .collect()
    }

    #[test]
    fn pages_give_their_unlabelled_address() {
        // Ghana: a card under a `Showroom` heading (no address label), the phone in the next paragraph.
        let found = page_streets(
            "https://example.com.gh/contact",
            "<html lang=en><body><h1>Contact us</h1><p>We would love to hear from you.</p>\
             <div><h4>Showroom</h4><p>No. 14 Sample Street, East Legon<br>Accra, Ghana</p>\
             <p>Tel: +233 30 000 1234</p></div></body></html>",
        );
        assert_eq!(found, ["No. 14 Sample Street, East Legon"]);
        // Kenya: a footer column, the email under it.
        let found = page_streets(
            "https://example.co.ke/",
            "<html lang=en><body><main><h1>Welcome</h1><p>Serving the city since 2001.</p>\
             </main><footer><div><p>Sample Plaza, 3rd Floor<br>12 Example Road, Westlands<br>\
             Nairobi</p><p>info@example.co.ke</p></div></footer></body></html>",
        );
        assert_eq!(
            found,
            ["Sample Plaza, 3rd Floor, 12 Example Road, Westlands"]
        );
        // Spanish (Panama): a list item opened by `Oficina:`.
        let found = page_streets(
            "https://example.com.pa/",
            "<html lang=es><body><footer><ul><li>Oficina: Calle Ejemplo 12, Bella Vista, \
             Panamá</li><li>info@example.com.pa</li></ul></footer></body></html>",
        );
        assert_eq!(found, ["Calle Ejemplo 12"]);
    }

    #[test]
    fn beside_another_address_only_one_that_prints_its_country() {
        // The structured address `structured`, the footer's line `street, place`, a phone.
        let page = |country: &str, structured: &str, street: &str, place: &str| {
            format!(
                "<html><head><script type=\"application/ld+json\">{{\"@type\":\"LocalBusiness\",\
                 \"address\":{{\"@type\":\"PostalAddress\",\"streetAddress\":\"{structured}\",\
                 \"addressLocality\":\"Sampletown\",\"addressCountry\":\"{country}\"}}}}</script>\
                 </head><body><footer><p>{street}, {place}</p><p>Tel: +000 00 000 0000</p>\
                 </footer></body></html>",
            )
        };
        // Ghana, Panama: a branch printed with its country beside the structured address.
        for (domain, country, street, district, place) in [
            (
                "example.com.gh",
                "GH",
                "No. 14 Sample Street",
                ", East Legon",
                "Accra, Ghana",
            ),
            (
                "example.com.pa",
                "PA",
                "Calle Ejemplo 12",
                "",
                "Bella Vista, Panamá",
            ),
        ] {
            let url = format!("https://{domain}/");
            let printed = format!("{street}{district}");
            let html = page(country, "1 Sample Lane", &printed, place);
            assert_eq!(page_streets(&url, &html).len(), 2, "{html}");
            // Without its country, the structured address only.
            let town = place.rsplit_once(", ").map_or(place, |(before, _)| before);
            let html = page(country, "1 Sample Lane", &printed, town);
            assert_eq!(page_streets(&url, &html), ["1 Sample Lane"]);
            // The structured address printed again, a part of its street left out.
            let structured = format!("Km 4, {printed}");
            let html = page(country, &structured, &printed, place);
            assert_eq!(page_streets(&url, &html).len(), 1, "{html}");
        }
    }

    #[test]
    fn sentences_and_weak_evidence_read_nothing() {
        for lines in [
            // A sentence that mentions a street.
            &["We are located at 12 Sample Road, Accra, Ghana."][..],
            // Directions.
            &["Turn left after the bridge onto Sample Road, Accra"][..],
            // A testimonial.
            &["\"Great service!\" Ama, 12 Sample Road, Accra"][..],
            // A street and a town only: no country, heading or other field.
            &["12 Sample Road", "Accra"][..],
            // A street and a sentence after it.
            &["12 Sample Road", "Open every day from nine", "Ghana"][..],
        ] {
            assert!(read_lines(lines, &[0], Some("GH")).is_empty(), "{lines:?}");
        }
        // A heading such as `Branch` over a street without a number and a town: such headings
        // head other branches' and organisations' blocks too.
        let lines = ["Branch", "Sample Road, Accra"];
        assert!(read_lines(&lines, &[0, 1], Some("GH")).is_empty());
        let lines = ["Sucursal", "Calle Ejemplo, Bella Vista"];
        assert!(read_lines(&lines, &[0, 1], Some("PA")).is_empty());
        // A country other than the page's.
        let lines = ["Head Office", "12 Sample Road, Nairobi, Kenya"];
        assert!(read_lines(&lines, &[0, 1], Some("GH")).is_empty());
        // A long block: a list of something else.
        let lines = [
            "12 Sample Road, Accra, Ghana",
            "a",
            "b",
            "c",
            "d",
            "e",
            "f",
            "g",
            "h",
        ];
        assert!(read_lines(&lines, &[0], Some("GH")).is_empty());
    }
}
