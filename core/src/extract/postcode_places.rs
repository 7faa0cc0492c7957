//! Place names around a postcode in the layouts that a country's format (Google's address
//! metadata, `fmt`) does not give, read in any country (docs/extraction.md, "Addresses"):
//! - the postcode's label opening the postcode line, the town and state after it (class
//!   `postcode.label_first`): `C.P. 06000, Ciudad Ejemplo, CDMX`, `CEP 99010-000, Vila
//!   Exemplo, RS`, `C.P. 44160 Villa Ejemplo, Jalisco` ([`places_after`]);
//! - the state's code in parentheses after the town (class `postcode.state_in_parentheses`):
//!   `Vila Exemplo (RS)` above or before a CEP, `Borgo Esempio (MI)` ([`town_with_state_code`]);
//! - an area line between the street and the town in the layouts whose format has no district
//!   (class `address.area_line`, India: `#12, 1st Floor, 5th Cross` / `Sample Nagar` /
//!   `Bengaluru, Karnataka 560034`): the street line must open with its house number
//!   ([`opens_with_house_number`]).

/// The address reader's tests that these readings use, passed in by it (`extract::address`
/// calls this module, so this module does not call it back).
#[derive(Clone, Copy)]
pub(crate) struct Tests {
    /// Whether a text is a place name (letters, up to five words, capitalised, no street word).
    pub is_place_name: fn(&str) -> bool,
    /// Whether the text after a postcode or a place holds nothing more of the address
    /// (nothing, punctuation, a field separator or a country name).
    pub nothing_after: fn(&str) -> bool,
}

/// At most this many bytes of place names are read after the postcode.
const MAX_PLACES_BYTES: usize = 80;

/// The town and state printed after a labelled postcode (`after` is the text after the
/// postcode): one or two comma-separated place names (`tests.is_place_name`; the first may follow
/// the postcode after a space or a comma), then nothing more of the address (nothing,
/// punctuation, a field separator or a country name). Returns (town, state); `None` when
/// `after` holds anything else (a street, a sentence, a number).
pub(crate) fn places_after(after: &str, tests: Tests) -> Option<(String, Option<String>)> {
    let Tests {
        is_place_name,
        nothing_after,
    } = tests;
    let rest = after.trim_start_matches([' ', ',', '-', '–', '\u{a0}']);
    if rest.len() == after.len() && !rest.is_empty() {
        // Glued to the postcode: not a separate field.
        return None;
    }
    // A field ends at a comma, a slash, a spaced dash or a separator of other fields.
    let field_end = |s: &str| {
        let mark = s
            .find([',', '/', '|', '•', '·', '(', ';'])
            .unwrap_or(s.len());
        s.find(" - ").map_or(mark, |dash| dash.min(mark))
    };
    let town_end = field_end(rest);
    if town_end > MAX_PLACES_BYTES {
        return None;
    }
    let town = rest[..town_end].trim().trim_end_matches('.');
    if !is_place_name(town) {
        return None;
    }
    let tail = &rest[town_end..];
    let state = tail
        .strip_prefix([',', '/'])
        .or_else(|| tail.strip_prefix(" - "))
        .map(|part| part.trim_start_matches([' ', '\u{a0}']))
        .and_then(|part| {
            let end = field_end(part);
            let state = part[..end].trim().trim_end_matches('.');
            (is_place_name(state) && nothing_after(&part[end..])).then_some(state)
        });
    match state {
        Some(state) => Some((town.to_string(), Some(state.to_string()))),
        None => nothing_after(tail).then(|| (town.to_string(), None)),
    }
}

/// The start of the town, the town and the state's code when the last field of `text` (the
/// text before a postcode, or the line above a postcode alone on its line) is a place name
/// followed by a state's code of two or three capitals in parentheses (`…, Vila Exemplo
/// (RS)`, `Rua Exemplo, 12 - Vila Exemplo (SP)`). Fields are set off by commas, slashes and
/// spaced dashes. `None` otherwise.
pub(crate) fn town_with_state_code(
    text: &str,
    is_place_name: fn(&str) -> bool,
) -> Option<(usize, String, String)> {
    let inner = text.trim_end().strip_suffix(')')?;
    let open = inner.rfind('(')?;
    let code = inner[open + 1..].trim();
    let is_code = (2..=3).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_uppercase());
    if !is_code {
        return None;
    }
    let town_part = inner[..open].trim_end();
    let town_start = [
        town_part.rfind(',').map(|i| i + 1),
        town_part.rfind('/').map(|i| i + 1),
        town_part.rfind(" - ").map(|i| i + 3),
        town_part.rfind(" – ").map(|i| i + " – ".len()),
    ]
    .into_iter()
    .flatten()
    .max()
    .unwrap_or(0);
    let town = town_part[town_start..].trim();
    is_place_name(town).then(|| (town_start, town.to_string(), code.to_string()))
}

/// Whether the street line `text` opens with its house number: a number mark (`#`, `No.`,
/// `No`, `Nº`, `N°`) and a digit (`#12, 1st Floor`, `No. 5, Sample Road`), or a house number
/// (digits, then letters, slashes or dashes: `12`, `12/A`, `4-1`) set off by a comma or
/// followed by a street that `street_word` finds (`12, 5th Cross`, `12 Sample Road`; not `10
/// years of service`).
pub(crate) fn opens_with_house_number(text: &str, street_word: fn(&str) -> bool) -> bool {
    let text = text.trim_start();
    let marked = ["#", "no. ", "no.", "no ", "nº ", "nº", "n° ", "n°"]
        .iter()
        .any(|mark| {
            text.get(..mark.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(mark))
                && text[mark.len()..]
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_digit())
        });
    if marked {
        return true;
    }
    let number_end = text
        .find(|c: char| c.is_whitespace() || c == ',')
        .unwrap_or(text.len());
    let number = &text[..number_end];
    let is_number = number.starts_with(|c: char| c.is_ascii_digit())
        && number.len() <= 8
        && number
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-'));
    is_number && (text[number_end..].starts_with(',') || street_word(text))
}

/// Whether the text after a postcode ends its sentence (class `postcode.sentence_end`: `…,
/// Sampletown 560038. Call us …`): a full stop, then the end or white space and a capitalised
/// word. The address ends with the sentence.
pub(crate) fn ends_sentence(after: &str) -> bool {
    after.strip_prefix('.').is_some_and(|rest| {
        rest.trim().is_empty()
            || (rest.starts_with(char::is_whitespace)
                && rest.trim_start().starts_with(char::is_uppercase))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::address::{is_place_name, nothing_after};

    fn read(after: &str) -> Option<(String, Option<String>)> {
        let tests = Tests {
            is_place_name,
            nothing_after,
        };
        places_after(after, tests)
    }

    fn town_with_state(text: &str) -> Option<(usize, String, String)> {
        town_with_state_code(text, is_place_name)
    }

    #[test]
    fn town_and_state_after_the_postcode() {
        // Mexico: town, then the state's abbreviation.
        assert_eq!(
            read(", Ciudad Ejemplo, CDMX"),
            Some(("Ciudad Ejemplo".into(), Some("CDMX".into())))
        );
        // Brazil: town, then the state's code, then the country.
        assert_eq!(
            read(" Vila Exemplo, RS, Brasil"),
            Some(("Vila Exemplo".into(), Some("RS".into())))
        );
        // Brazil: after a spaced dash, the state after a slash.
        assert_eq!(
            read(" - Vila Exemplo/SP"),
            Some(("Vila Exemplo".into(), Some("SP".into())))
        );
        // Spain: the town alone, ending the line.
        assert_eq!(read(" Villaejemplo."), Some(("Villaejemplo".into(), None)));
    }

    #[test]
    fn a_state_code_in_parentheses_after_the_town() {
        // Brazil: the town and its state's code alone, and after the street.
        assert_eq!(
            town_with_state("Vila Exemplo (RS)"),
            Some((0, "Vila Exemplo".into(), "RS".into()))
        );
        let text = "Rua Exemplo, 12 - Centro - Vila Exemplo (SP)";
        let (start, town, code) = town_with_state(text).unwrap_or_default();
        assert_eq!(
            (&text[..start], town.as_str(), code.as_str()),
            ("Rua Exemplo, 12 - Centro - ", "Vila Exemplo", "SP")
        );
        // Italy: the province's code after the town.
        assert_eq!(
            town_with_state("Via Esempio 5, Borgo Esempio (MI)"),
            Some((14, "Borgo Esempio".into(), "MI".into()))
        );
    }

    #[test]
    fn a_house_number_opens_the_street() {
        let street_word = |text: &str| crate::extract::address::has_street_word_in(text);
        for text in [
            "#12, 1st Floor",
            "# 12",
            "No. 5",
            "NO 7, Sample Lane",
            "Nº 3",
            "12 Sample Road",
            "4/1, Sample Layout",
            "12/A Sample Street",
        ] {
            assert!(opens_with_house_number(text, street_word), "{text}");
        }
        for text in [
            "Sample Nagar",
            "Nova Vila",
            "No parking",
            "#tag",
            "Floor 2",
            "10 years of service",
            "24x7 support",
            "2024 Sample Awards",
        ] {
            assert!(!opens_with_house_number(text, street_word), "{text}");
        }
    }

    #[test]
    fn a_full_stop_and_a_new_sentence_end_the_address() {
        for after in [".", ". Call us today.", ".  Llámenos al 55 5555 0123"] {
            assert!(ends_sentence(after), "{after:?}");
        }
        for after in ["", ".5 km away", ". and more", " Sample Street", ".com"] {
            assert!(!ends_sentence(after), "{after:?}");
        }
    }

    #[test]
    fn other_parentheses_are_no_state() {
        for text in [
            "Horário (seg-sex)",
            "Preço (R$)",
            "Rua Exemplo (fundos)",
            "Telefone (11)",
            "Sample Town (sede)",
        ] {
            assert_eq!(town_with_state(text), None, "{text}");
        }
    }

    #[test]
    fn other_text_after_the_postcode_is_no_town() {
        for after in [
            "",
            "5 Calle Ejemplo",
            ", Calle Ejemplo 12",
            " pesos al mes",
            " personas, 12 meses",
            "abc, Ciudad",
            ", Lunes a Viernes 9:00 - 18:00",
        ] {
            assert_eq!(read(after), None, "{after:?}");
        }
    }
}
