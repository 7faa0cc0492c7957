//! Addresses printed with the town and postcode before the street on one line, in any
//! country whose postcodes the data reads (docs/extraction.md, "Addresses"):
//! - the town, its postcode, then the street after a comma (class `postcode.town_zip_street`):
//!   `София 1000, ул. Примерна 12`, `Αθήνα 10558, Παραδείγματος 12`, `Budapest 1052, Minta
//!   utca 7.`;
//! - the postcode, the town and the street, the town set off by a comma (class
//!   `postcode.zip_town_street`, the order Russian and Ukrainian addresses are written in):
//!   `101000, г. Москва, ул. Примерная, д. 12`, `01001, м. Київ, вул. Прикладна, 12`; also
//!   `1052 Budapest, Minta utca 7. Adószám: …` with a labelled field after the street.
//!
//! A label may open the line (`Адрес: …`, `Székhely: …`), and other labelled fields may
//! follow the street (`… 7. Adószám: …`). The town may carry a town word before it (lexicon
//! `locality.mark`: `г.`, `гр.`, `м.`). The street must end with a house number and hold a
//! street word of the lexicon or a street name, so a year or a count between a capitalised word
//! and a comma is not read as a postcode.
//!
//! The address reader (`extract::address`) reads the layouts the data gives each country; the
//! reader of the other order (`extract::postcode_order`) calls this one on a postcode of the
//! page's region that it read nothing around.

use std::sync::OnceLock;

use crate::extract::address::{
    ends_with_house_number, has_street_name, has_street_word_in, is_place_name, zip_tokens,
    MarkedAddress,
};
use crate::extract::postcode;
use crate::lexicon;

/// Longest line read, in bytes: an address line, not a paragraph.
const MAX_LINE: usize = 200;
/// Longest street read after the town, in bytes.
const MAX_STREET: usize = 80;

/// The address whose postcode (one of the page region's) is `start..end` of `line`, in
/// either order of the module's doc; `None` if the line is not one. Called by the reader of
/// the other order (`extract::postcode_order`) on a postcode it read nothing around.
pub(crate) fn read_at(line: &str, start: usize, end: usize) -> Option<MarkedAddress> {
    if line.len() > MAX_LINE || !line.contains(',') {
        return None;
    }
    let before = after_label(&line[..start]).trim();
    // The postcode opening a field after another one (class `postcode.town_first_after_field`:
    // `Minta Kft. | 1052 Budapest, Minta utca 7.`, `ООО «Пример», 101000, г. Москва, …`): the
    // field before it is a name, not the town.
    let before = if ends_with_field_separator(before) {
        ""
    } else {
        before
    };
    let after = &line[end..];
    let (town, street_part) = if before.is_empty() {
        // `101000, г. Москва, ул. …`, `1052 Budapest, Minta utca 7.`: the town is the next
        // field, after a comma or a space.
        let after = after
            .strip_prefix(',')
            .or_else(|| after.strip_prefix([' ', '\u{a0}']))?;
        let (town, rest) = after.split_once(',')?;
        (town.trim(), rest)
    } else {
        // `София 1000, ул. …`: the town is all there is before the postcode.
        (before, after.trim_start().strip_prefix(',')?)
    };
    let town = without_town_mark(town);
    if !is_place_name(town) || town.split_whitespace().count() > 3 {
        return None;
    }
    let street = street_field(street_part)?;
    Some(MarkedAddress {
        street: Some(street.to_string()),
        locality: Some(town.to_string()),
        region: None,
        postal_code: Some(line[start..end].to_string()),
        country: None,
    })
}

/// The address whose postcode (one of the page region's) opens line `index` of `lines`
/// (`start..end`), when that line holds nothing but the postcode and its town and the street
/// is the line below (class `postcode.town_line_above_street`: `1052 Budapest` / `Minta utca
/// 7.`, `1000 София` / `ул. Примерна 12`, `101000, г. Москва,` / `ул. Примерная, д. 12`).
/// The line below must be a street as [`read_at`] reads one after the town, and the line
/// below it no postcode of the region: a list of addresses printed street, then town keeps
/// each street with its own town. Called by the reader of the other order
/// (`extract::postcode_order`) when nothing above or beside the postcode is a street.
pub(crate) fn read_above_street(
    lines: &[&str],
    index: usize,
    (start, end): (usize, usize),
    format: &postcode::Format,
) -> Option<MarkedAddress> {
    let line = lines.get(index)?;
    if line.len() > MAX_LINE || !after_label(&line[..start]).trim().is_empty() {
        return None;
    }
    let after = &line[end..];
    let town = after
        .strip_prefix(',')
        .unwrap_or(after)
        .trim()
        .trim_end_matches([',', ' ', '\u{a0}']);
    let town = without_town_mark(town);
    if !is_place_name(town) || town.split_whitespace().count() > 3 {
        return None;
    }
    let street_line = lines.get(index + 1)?.trim();
    if street_line.len() > MAX_LINE || holds_zip_of(street_line, format) {
        return None;
    }
    let street = street_field(after_label(street_line))?;
    if lines
        .get(index + 2)
        .is_some_and(|next| holds_zip_of(next, format))
    {
        return None;
    }
    Some(MarkedAddress {
        street: Some(street.to_string()),
        locality: Some(town.to_string()),
        region: None,
        postal_code: Some(line[start..end].to_string()),
        country: None,
    })
}

/// Whether `line` holds a postcode that validates for `format`'s country.
fn holds_zip_of(line: &str, format: &postcode::Format) -> bool {
    zip_tokens(line).any(|(start, ends)| {
        ends.into_iter()
            .any(|end| format.validates(&line[start..end]))
    })
}

/// `text` after its last label (`Адрес:`, `Székhely:`): the part after the last colon.
/// Whether `text` ends with a field separator: `|`, `•`, `·`, `;`, a comma, or a dash after
/// a space (`Minta Kft. -`).
fn ends_with_field_separator(text: &str) -> bool {
    text.ends_with(['|', '•', '·', ';', ','])
        || [" -", " –"].iter().any(|dash| text.ends_with(dash))
}

/// The text after the last label's colon of `text` (`Cím: `), all of it when it has none.
fn after_label(text: &str) -> &str {
    text.rfind(':').map_or(text, |at| &text[at + 1..])
}

/// The street at the start of `text` (the text after the town's comma): up to the first
/// field separator or labelled field (`Adószám: …`), trimmed; `None` unless it ends with a
/// house number and holds a street word or a street name, in at most [`MAX_STREET`] bytes.
fn street_field(text: &str) -> Option<&str> {
    let mut end = text.find(['|', '•', '·', ';']).unwrap_or(text.len());
    // A labelled field after the street: cut before its label word.
    if let Some(colon) = text[..end].find(':') {
        let label_start = text[..colon]
            .rfind(char::is_whitespace)
            .map_or(0, |at| at + 1);
        end = label_start;
    }
    let street = text[..end].trim().trim_end_matches([',', '.', ' ']).trim();
    // A street word (`ул.`, `utca`), or a street name that opens with a capital or a house
    // number: prose after a comma (`… 15 години опит`) opens with a lower-case word.
    let streetish = has_street_word_in(street)
        || (has_street_name(street)
            && street.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit()));
    (!street.is_empty()
        && street.len() <= MAX_STREET
        && ends_with_house_number(street)
        && streetish)
        .then_some(street)
}

/// `town` without a town word of the lexicon before it (`г. Москва` → `Москва`; class
/// `locality.mark`).
fn without_town_mark(town: &str) -> &str {
    static MARKS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    let marks = MARKS
        .get_or_init(|| lexicon::sorted_words(&[lexicon::Class::LocalityMark], str::to_lowercase));
    let town = town.trim();
    match town.split_once(char::is_whitespace) {
        Some((first, rest)) if lexicon::holds(marks, &first.to_lowercase()) => rest.trim(),
        _ => town,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (street, town, postcode) of the first postcode of `region` on `line` read as this
    /// module reads it.
    fn read_line(line: &str, region: &str) -> Vec<[Option<String>; 3]> {
        let Some(format) = postcode::format(region) else {
            return Vec::new();
        };
        zip_tokens(line)
            .filter_map(|(start, ends)| {
                let end = ends
                    .into_iter()
                    .find(|&end| format.validates(&line[start..end]))?;
                read_at(line, start, end)
            })
            .take(1)
            .map(|a| [a.street, a.locality, a.postal_code])
            .collect()
    }

    fn parts(street: &str, town: &str, zip: &str) -> [Option<String>; 3] {
        [street, town, zip].map(|p| Some(p.to_string()))
    }

    #[test]
    fn the_town_and_postcode_before_the_street() {
        // Bulgaria, Greece, Hungary (with a label and a labelled field after the street).
        for (line, region, want) in [
            (
                "София 1010, ул. Примерна 12",
                "BG",
                parts("ул. Примерна 12", "София", "1010"),
            ),
            (
                "Αθήνα 10559, Παραδείγματος 12",
                "GR",
                parts("Παραδείγματος 12", "Αθήνα", "10559"),
            ),
            (
                "Székhely: Budapest 1053, Minta utca 7. Adószám: 12345678-2-41",
                "HU",
                parts("Minta utca 7", "Budapest", "1053"),
            ),
        ] {
            assert_eq!(read_line(line, region), [want], "{line}");
        }
    }

    #[test]
    fn the_postcode_town_and_street_set_off_by_commas() {
        // Russia, Ukraine: a town word before the town.
        for (line, region, want) in [
            (
                "Адрес: 101010, г. Москва, ул. Примерная, д. 12",
                "RU",
                parts("ул. Примерная, д. 12", "Москва", "101010"),
            ),
            (
                "01010, м. Київ, вул. Прикладна, 12",
                "UA",
                parts("вул. Прикладна, 12", "Київ", "01010"),
            ),
            // Hungary: a labelled field after the street.
            (
                "Cégnév: Minta Kft. Székhely: 1053 Budapest, Minta utca 7. Adószám: 12345678-2-41",
                "HU",
                parts("Minta utca 7", "Budapest", "1053"),
            ),
        ] {
            assert_eq!(read_line(line, region), [want], "{line}");
        }
    }

    #[test]
    fn numbers_in_prose_prices_dates_and_hours_are_no_address() {
        for (line, region) in [
            ("Над 1200 клиенти, 15 години опит", "BG"),
            ("Τιμή 10559 ευρώ, δόσεις 12", "GR"),
            ("Από 10559, έως 12", "GR"),
            ("Работаем с 2005 года, Пн-Пт 9:00-18:00", "RU"),
            ("Ціна 1200, знижка 10", "UA"),
            ("Budapest 1053, minden nap 8-tól 18-ig", "HU"),
            ("Cégünk 2010, óta működik", "HU"),
        ] {
            assert_eq!(
                read_line(line, region),
                Vec::<[Option<String>; 3]>::new(),
                "{line}"
            );
        }
    }
}
