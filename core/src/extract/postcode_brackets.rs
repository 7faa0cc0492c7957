//! Postcodes printed in parentheses (class `postcode.in_parentheses`, docs/extraction.md,
//! "Addresses"): before the town, the Argentine way (`(B1846) Adrogué`, `(1846) Adrogué`,
//! `C.P. (1846) Adrogué`), or after it (`Rouen (76000)`, `Adrogué (1846) - Buenos Aires`).
//! The address readers read a postcode between spaces and separators; a line that prints one
//! in parentheses is handed to them without the parentheses, before its town (`B1846
//! Adrogué`, `76000 Rouen`: a town written before its postcode in parentheses is a listing's
//! way of naming the postcode's town, whatever the country's layout), and their rules (the
//! page's region, its postcode format, a street before or above) decide as for any postcode.

/// Fewest and most bytes between the parentheses (Argentina's `B1846ABC` has eight).
const INNER_BYTES: std::ops::RangeInclusive<usize> = 3..=10;
/// Fewest digits between them.
const MIN_DIGITS: usize = 3;

/// The lines of `lines` (the lines of `text`, starting at `line_starts`, or their own parts:
/// prefixes of them) that print a postcode in parentheses, by index, as [`unbracketed`] writes
/// them. One search of the text for `(` finds the lines to read (most lines hold none), and
/// only a `(` before a postcode-shaped token has its line read.
pub(crate) fn unbracketed_lines(
    text: &str,
    line_starts: &[usize],
    lines: &[&str],
) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut last_read = None;
    let bytes = text.as_bytes();
    for at in memchr::memchr_iter(b'(', bytes) {
        // Most `(` open words, counts or area codes: turned away before the line is looked up.
        if postcode_shaped(&bytes[at + 1..]).is_none() {
            continue;
        }
        let index = line_starts
            .partition_point(|start| *start <= at)
            .saturating_sub(1);
        if last_read == Some(index) {
            continue;
        }
        last_read = Some(index);
        if let Some(line) = lines.get(index).and_then(|line| unbracketed(line)) {
            found.push((index, line));
        }
    }
    found
}

/// `line` with each postcode-shaped token it prints in parentheses next to a place name
/// ([`is_bracketed_postcode`]) written without them before the town (`(B1846) Adrogué` →
/// `B1846 Adrogué`, `…, Rouen (76000)` → `…, 76000 Rouen`); `None` when it prints none (most
/// lines: no `(`).
pub(crate) fn unbracketed(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let mut out: Option<String> = None;
    // Where the text not yet copied to `out` starts.
    let mut copied = 0;
    let mut from = 0;
    while let Some(found) = memchr::memchr(b'(', &bytes[from..]) {
        let open = from + found;
        from = open + 1;
        let Some((close, town_side)) = is_bracketed_postcode(line, open) else {
            continue;
        };
        let out = out.get_or_insert_with(|| String::with_capacity(line.len()));
        let postcode = &line[open + 1..close];
        let town_first = match town_side {
            TownSide::Before => town_before(&line[copied..open]),
            TownSide::After => None,
        };
        match town_first {
            // `Rouen (76000)`: the postcode before the town.
            Some(town_start) => {
                let town_start = copied + town_start;
                out.push_str(&line[copied..town_start]);
                out.push_str(postcode);
                out.push(' ');
                out.push_str(line[town_start..open].trim_end());
            }
            None => {
                out.push_str(&line[copied..open]);
                out.push_str(postcode);
            }
        }
        copied = close + 1;
        from = close + 1;
    }
    out.map(|mut out| {
        out.push_str(&line[copied..]);
        out
    })
}

/// Where the town ending `before` (the text before a bracketed postcode) starts, when the
/// text after the last field separator (`,` `;` `|` `·` `•`, a spaced dash) is a place name
/// (`address::is_place_name`: `Rouen`, `Le Havre`, `Aix-en-Provence`); `None` otherwise (the
/// postcode follows no town, or `12 rue des Lilas Rouen` with no separator before the town).
fn town_before(before: &str) -> Option<usize> {
    let start = before
        .rmatch_indices([',', ';', '|', '·', '•'])
        .map(|(i, m)| i + m.len())
        .chain(before.rfind(" - ").map(|i| i + 3))
        .chain(before.rfind(" – ").map(|i| i + " – ".len()))
        .max()
        .unwrap_or(0);
    let town = before[start..].trim();
    let town_start = before.len() - before[start..].trim_start().len();
    (!town.is_empty() && crate::extract::address::is_place_name(town)).then_some(town_start)
}

/// Where the `)` is in `after` (the bytes after a `(`), when what stands before it is
/// postcode-shaped: three to ten ASCII letters, digits, spaces or hyphens, opening with a
/// letter or digit, three digits or more.
fn postcode_shaped(after: &[u8]) -> Option<usize> {
    let limit = (INNER_BYTES.end() + 1).min(after.len());
    let close = memchr::memchr(b')', &after[..limit])?;
    let inner = &after[..close];
    (INNER_BYTES.contains(&inner.len())
        && inner[0].is_ascii_alphanumeric()
        && inner
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b'-'))
        && inner.iter().filter(|b| b.is_ascii_digit()).count() >= MIN_DIGITS)
        .then_some(close)
}

/// Which side of a bracketed postcode its town is printed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TownSide {
    /// `Rouen (76000)`.
    Before,
    /// `(B1846) Adrogué`.
    After,
}

/// Where the `)` closing the `(` at `open` is, and the side of its town, when what they hold is postcode-shaped (three to
/// ten ASCII letters, digits, spaces or hyphens, opening with a letter or digit, three digits or
/// more) and a place name is beside it: after it (a space and a capital: `(B1846) Adrogué`),
/// with the `(` opening a field (the line's start, or after a space, comma or separator); or
/// before it (a capitalised word and a space: `Rouen (76000)`), with nothing after the `)` but
/// the field's end (the line's end, punctuation or a separator).
fn is_bracketed_postcode(line: &str, open: usize) -> Option<(usize, TownSide)> {
    let close = open + 1 + postcode_shaped(&line.as_bytes()[open + 1..])?;
    let before = &line[..open];
    let after = &line[close + 1..];
    let opens_field = before.is_empty()
        || before.ends_with([' ', ',', ';', '|', '·', '•', '\u{a0}'])
            && !before.trim_end().ends_with(|c: char| c.is_ascii_digit());
    let town_after = after
        .strip_prefix(' ')
        .is_some_and(|rest| rest.starts_with(char::is_uppercase));
    let town_before = before.strip_suffix(' ').is_some_and(|rest| {
        let word = rest
            .rsplit(|c: char| !c.is_alphabetic() && c != '-' && c != '\'')
            .next()
            .unwrap_or("");
        word.chars().count() >= 2 && word.starts_with(char::is_uppercase)
    });
    let field_ends = {
        let rest = after.trim_start_matches([' ', '\u{a0}']);
        rest.is_empty() || rest.starts_with([',', '.', ';', '|', '·', '•', '-', '–'])
    };
    if opens_field && town_after {
        Some((close, TownSide::After))
    } else if town_before && field_ends {
        Some((close, TownSide::Before))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_postcode_in_parentheses_beside_a_town_is_read_without_them() {
        for (line, want) in [
            (
                "(B1846) Adrogué, Buenos Aires",
                "B1846 Adrogué, Buenos Aires",
            ),
            (
                "Av. Ejemplo 1234, (1846) Adrogué",
                "Av. Ejemplo 1234, 1846 Adrogué",
            ),
            ("C.P. (C1043AAZ) Buenos Aires", "C.P. C1043AAZ Buenos Aires"),
            (
                "12 rue des Lilas, Rouen (76000)",
                "12 rue des Lilas, 76000 Rouen",
            ),
            (
                "Adrogué (1846) - Buenos Aires",
                "1846 Adrogué - Buenos Aires",
            ),
            ("Lyon (69003) · Paris (75008)", "69003 Lyon · 75008 Paris"),
            (
                "12 rue Haute - Le Havre (76600)",
                "12 rue Haute - 76600 Le Havre",
            ),
            // No separator before the town: the parentheses go, the order stays.
            (
                "12 rue des Lilas Rouen (76000)",
                "12 rue des Lilas Rouen 76000",
            ),
        ] {
            assert_eq!(unbracketed(line).as_deref(), Some(want), "{line}");
        }
    }

    #[test]
    fn the_lines_with_a_bracketed_postcode_are_found_by_index() {
        let text = "Sample (note)\n12 rue des Lilas, Rouen (76000)\nplain\n(1846) Adrogué";
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(
            unbracketed_lines(text, &line_starts, &lines),
            vec![
                (1, "12 rue des Lilas, 76000 Rouen".to_string()),
                (3, "1846 Adrogué".to_string())
            ]
        );
        // A line left out (a third party's: the empty string) is read as it is.
        let lines = ["Sample (note)", "", "plain", "(1846) Adrogué"];
        assert_eq!(
            unbracketed_lines(text, &line_starts, &lines),
            vec![(3, "1846 Adrogué".to_string())]
        );
    }

    #[test]
    fn other_numbers_in_parentheses_keep_them() {
        for line in [
            "Tel. (011) 4000-0000",
            "(0264) 123 456",
            "Reviews (12) Sort",
            "Sample (2019) winners",
            "Rouen (76)",
            "Rouen (76000) was founded",
            "Order(12345) Sample",
            "Av. Ejemplo 12 (1846) Adrogué",
            "(B1846 Adrogué",
            "no parentheses at all",
        ] {
            assert_eq!(unbracketed(line), None, "{line}");
        }
    }
}
