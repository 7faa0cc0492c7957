//! Dates written in words (class `date.month`, docs/extraction.md "Addresses"): a
//! four-digit number after a month's name is a year, and a line that is a date is no street.
//! Postcodes of four digits (Austria, Switzerland, Belgium, Denmark, South Africa, Australia,
//! New Zealand, the Philippines…) take the values of years; these tests tell the year of a
//! date (`October 2019`, `20. Oktober 2013`, `January 14, 2015`) from a postcode.

use crate::lexicon;
use std::sync::OnceLock;

/// The month names of the lexicon (class `date.month`), lower-case, without dots (`Jan.` →
/// `jan`).
fn month_names() -> &'static lexicon::SortedWords {
    static NAMES: OnceLock<lexicon::SortedWords> = OnceLock::new();
    NAMES.get_or_init(|| {
        lexicon::sorted_words(&[lexicon::Class::DateMonth], |word| {
            word.replace('.', "").to_lowercase()
        })
    })
}

/// Whether `word` is a month's name or abbreviation (class `date.month`), a dot after it
/// allowed (`Apr.`).
fn is_month(word: &str) -> bool {
    let word = word.strip_suffix('.').unwrap_or(word);
    !word.is_empty() && lexicon::holds(month_names(), &word.to_lowercase())
}

/// Whether a day of the month (1–31) is written as `word` (`14`, `14.`, `3rd`, `1º`).
fn is_day(word: &str) -> bool {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    let suffix = &word[digits..];
    (1..=2).contains(&digits)
        && matches!(word[..digits].parse::<u8>(), Ok(1..=31))
        && ["", ".", "st", "nd", "rd", "th", "º", "er"].contains(&suffix)
}

/// Whether an address read from text (its `street` and `postcode`) is a date line and the
/// year of the next: its street a date and its postcode a year ([`date_and_year`]).
pub(crate) fn reads_a_date(street: Option<&str>, postcode: Option<&str>) -> bool {
    street
        .zip(postcode)
        .is_some_and(|(street, zip)| date_and_year(street, zip))
}

/// Whether `street` is a date and `zip` a year (1800–2099): a date line and the year of the
/// next, read as a street and a postcode (`April 21, 2022` / `2022 Sample Cup`); a street
/// named after a date keeps a postcode of no year's value (`8 Mai 1945` / `1000 Bruxelles`).
pub(crate) fn date_and_year(street: &str, zip: &str) -> bool {
    is_year(zip) && is_date(street)
}

/// Whether `word` (a comma after it allowed) is a year from 1800 to 2099, four digits.
pub(crate) fn is_year(word: &str) -> bool {
    let word = word.strip_suffix(',').unwrap_or(word);
    word.len() == 4 && matches!(word.parse::<u16>(), Ok(1800..=2099))
}

/// Whether `text` is a date and nothing else (class `date.month`): a month's name with a day
/// or a year (`April 21, 2022`, `08. September`, `March 2022`, `23 de abril`): one month,
/// at most one day and one year (1800–2099), and short lower-case words between them
/// ([`is_connector`]). A street named after a date has its street type or a house number of no day's or year's value (`Avenida
/// 9 de Julio`, `25 de Mayo 555`).
fn is_date(text: &str) -> bool {
    let (mut months, mut days, mut years, mut words) = (0, 0, 0, 0);
    for word in text.split_whitespace() {
        words += 1;
        if is_month(word) {
            months += 1;
        } else if is_day(word.strip_suffix(',').unwrap_or(word)) {
            days += 1;
        } else if is_year(word) {
            years += 1;
        } else if !is_connector(word) {
            return false;
        }
    }
    months == 1 && days <= 1 && years <= 1 && words <= 5
}

/// Whether `word` is a short lower-case word written between a date's parts (`de`, `del`,
/// `of`): at most three letters, all lower-case.
fn is_connector(word: &str) -> bool {
    word.chars().count() <= 3 && word.chars().all(char::is_lowercase)
}

/// Whether the four-digit token `zip`, written after `before`, is the year of a date (class
/// `date.month`): right after a month's name (`October 2019`, `20. Oktober 2013`, `Sat 14
/// Apr 2018`), or with one short lower-case word between (`23 de abril del 2022`, `May of
/// 2019`), or after a month's name, a day and a comma (`January 14, 2015`). A comma right
/// after the month parts it from the token (`Avenida de Mayo, 1002`: a postcode may follow).
pub(crate) fn is_year_of_date(before: &str, zip: &str) -> bool {
    if zip.len() != 4 || !zip.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let mut words = before.split_whitespace().rev();
    let Some(mut last) = words.next() else {
        return false;
    };
    if !is_month(last) && is_connector(last) {
        // One short lower-case word between the month and the year.
        match words.next() {
            Some(word) => last = word,
            None => return false,
        }
    }
    if is_month(last) {
        return true;
    }
    last.strip_suffix(',')
        .is_some_and(|day| is_day(day) && words.next().is_some_and(is_month))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_is_told_from_a_street_named_after_one() {
        for date in [
            "April 21, 2022",
            "08. September",
            "March 2022",
            "23 de abril de 2022",
            "14 janvier",
            "3. lokakuuta",
        ] {
            assert!(is_date(date), "{date}");
        }
        for street in [
            "Avenida 9 de Julio",
            "25 de Mayo 555",
            "Rue du 8 Mai 1945",
            "Sample Street 12",
            "April Lane 21",
            "1. Mai 12",
        ] {
            assert!(!is_date(street), "{street}");
        }
        assert!(is_year_of_date("Sat 14 Apr", "2018"));
        assert!(is_year_of_date("20. Oktober", "2013"));
        assert!(is_year_of_date("Sábado 23 de abril del", "2022"));
        assert!(is_year_of_date("January 14,", "2015"));
        assert!(!is_year_of_date("Avenida de Mayo,", "1002"));
        assert!(!is_year_of_date("Av. 25 de Mayo 555,", "1002"));
        assert!(!is_year_of_date("January", "20000"));
    }
}
