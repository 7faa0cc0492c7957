//! HTML character references (HTML Living Standard §13.5), decoded for text and attribute values.
//!
//! Covers every numeric reference and the named references that carry contact data on real
//! pages (punctuation, Latin-1 letters, `&commat;`, typographic quotes and dashes). An unknown
//! name is left as written, which is what browsers do for names outside their table.

use std::borrow::Cow;

/// Decodes character references in `input`; borrows when there is none.
pub fn decode(input: &str) -> Cow<'_, str> {
    let Some(first) = memchr::memchr(b'&', input.as_bytes()) else {
        return Cow::Borrowed(input);
    };
    let mut out = String::with_capacity(input.len());
    out.push_str(&input[..first]);
    let mut rest = &input[first..];
    while let Some(pos) = memchr::memchr(b'&', rest.as_bytes()) {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        match decode_one(rest) {
            Some((ch, used)) => {
                out.push(ch);
                rest = &rest[used..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Decodes one reference at the start of `s` (which starts with `&`): the character and the
/// number of bytes used, or `None` when `s` does not start with a known reference.
fn decode_one(s: &str) -> Option<(char, usize)> {
    let bytes = s.as_bytes();
    if bytes.get(1) == Some(&b'#') {
        let (radix, digits_start) = match bytes.get(2) {
            Some(b'x' | b'X') => (16, 3),
            _ => (10, 2),
        };
        let digits_len = bytes[digits_start..]
            .iter()
            .take(8)
            .take_while(|b| b.is_ascii_hexdigit() && (radix == 16 || b.is_ascii_digit()))
            .count();
        if digits_len == 0 {
            return None;
        }
        let digits = &s[digits_start..digits_start + digits_len];
        let value = u32::from_str_radix(digits, radix).ok()?;
        let ch = match value {
            0 => '\u{FFFD}',
            // Windows-1252 code points that pages write as numeric references (HTML §13.2.5.80).
            0x80..=0x9F => windows_1252_c1(value),
            _ => char::from_u32(value).unwrap_or('\u{FFFD}'),
        };
        let mut used = digits_start + digits_len;
        if bytes.get(used) == Some(&b';') {
            used += 1;
        }
        return Some((ch, used));
    }
    let name_len = bytes[1..]
        .iter()
        .take(12)
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    if name_len == 0 {
        return None;
    }
    let name = &s[1..1 + name_len];
    if bytes.get(1 + name_len) == Some(&b';') {
        return named(name).map(|ch| (ch, name_len + 2));
    }
    // Without a semicolon only the legacy names count, and they may run into following text
    // (`&ampb` is `&` + `b`), as in browsers.
    LEGACY_WITHOUT_SEMICOLON
        .iter()
        .filter(|legacy| name.starts_with(**legacy))
        .max_by_key(|legacy| legacy.len())
        .and_then(|legacy| named(legacy).map(|ch| (ch, 1 + legacy.len())))
}

/// Names that browsers also accept without the trailing semicolon.
const LEGACY_WITHOUT_SEMICOLON: &[&str] = &["amp", "lt", "gt", "quot", "nbsp", "copy", "reg"];

fn windows_1252_c1(value: u32) -> char {
    match value {
        0x80 => '€',
        0x82 => '‚',
        0x84 => '„',
        0x85 => '…',
        0x91 => '‘',
        0x92 => '’',
        0x93 => '“',
        0x94 => '”',
        0x95 => '•',
        0x96 => '–',
        0x97 => '—',
        0x99 => '™',
        _ => '\u{FFFD}',
    }
}

fn named(name: &str) -> Option<char> {
    Some(match name {
        "amp" | "AMP" => '&',
        "lt" | "LT" => '<',
        "gt" | "GT" => '>',
        "quot" | "QUOT" => '"',
        "apos" => '\'',
        "nbsp" => '\u{A0}',
        "commat" => '@',
        "period" => '.',
        "colon" => ':',
        "comma" => ',',
        "semi" => ';',
        "sol" => '/',
        "lowbar" => '_',
        "hyphen" | "dash" => '-',
        "plus" => '+',
        "num" => '#',
        "lpar" => '(',
        "rpar" => ')',
        "lsqb" | "lbrack" => '[',
        "rsqb" | "rbrack" => ']',
        "excl" => '!',
        "quest" => '?',
        "equals" => '=',
        "percnt" => '%',
        "ast" => '*',
        "copy" | "COPY" => '©',
        "reg" | "REG" => '®',
        "trade" => '™',
        "ndash" => '–',
        "mdash" => '—',
        "hellip" => '…',
        "lsquo" => '‘',
        "rsquo" => '’',
        "sbquo" => '‚',
        "ldquo" => '“',
        "rdquo" => '”',
        "bdquo" => '„',
        "laquo" => '«',
        "raquo" => '»',
        "bull" => '•',
        "middot" => '·',
        "diams" => '♦',
        "deg" => '°',
        "sect" => '§',
        "para" => '¶',
        "times" => '×',
        "divide" => '÷',
        "euro" => '€',
        "pound" => '£',
        "yen" => '¥',
        "cent" => '¢',
        "shy" => '\u{AD}',
        "zwj" => '\u{200D}',
        "zwnj" => '\u{200C}',
        "ensp" => '\u{2002}',
        "emsp" => '\u{2003}',
        "thinsp" => '\u{2009}',
        "iexcl" => '¡',
        "iquest" => '¿',
        "ordf" => 'ª',
        "ordm" => 'º',
        "sup1" => '¹',
        "sup2" => '²',
        "sup3" => '³',
        "frac12" => '½',
        "frac14" => '¼',
        "frac34" => '¾',
        "Agrave" => 'À',
        "Aacute" => 'Á',
        "Acirc" => 'Â',
        "Atilde" => 'Ã',
        "Auml" => 'Ä',
        "Aring" => 'Å',
        "AElig" => 'Æ',
        "Ccedil" => 'Ç',
        "Egrave" => 'È',
        "Eacute" => 'É',
        "Ecirc" => 'Ê',
        "Euml" => 'Ë',
        "Igrave" => 'Ì',
        "Iacute" => 'Í',
        "Icirc" => 'Î',
        "Iuml" => 'Ï',
        "Ntilde" => 'Ñ',
        "Ograve" => 'Ò',
        "Oacute" => 'Ó',
        "Ocirc" => 'Ô',
        "Otilde" => 'Õ',
        "Ouml" => 'Ö',
        "Oslash" => 'Ø',
        "Ugrave" => 'Ù',
        "Uacute" => 'Ú',
        "Ucirc" => 'Û',
        "Uuml" => 'Ü',
        "Yacute" => 'Ý',
        "szlig" => 'ß',
        "agrave" => 'à',
        "aacute" => 'á',
        "acirc" => 'â',
        "atilde" => 'ã',
        "auml" => 'ä',
        "aring" => 'å',
        "aelig" => 'æ',
        "ccedil" => 'ç',
        "egrave" => 'è',
        "eacute" => 'é',
        "ecirc" => 'ê',
        "euml" => 'ë',
        "igrave" => 'ì',
        "iacute" => 'í',
        "icirc" => 'î',
        "iuml" => 'ï',
        "ntilde" => 'ñ',
        "ograve" => 'ò',
        "oacute" => 'ó',
        "ocirc" => 'ô',
        "otilde" => 'õ',
        "ouml" => 'ö',
        "oslash" => 'ø',
        "ugrave" => 'ù',
        "uacute" => 'ú',
        "ucirc" => 'û',
        "uuml" => 'ü',
        "yacute" => 'ý',
        "yuml" => 'ÿ',
        "OElig" => 'Œ',
        "oelig" => 'œ',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decodes_numeric_and_named_references() {
        assert_eq!(decode("info&#64;a.nl"), "info@a.nl");
        assert_eq!(decode("info&#x40;a.nl"), "info@a.nl");
        assert_eq!(decode("info&commat;a.nl"), "info@a.nl");
        assert_eq!(decode("A&amp;J&rsquo;s"), "A&J’s");
        assert_eq!(decode("a&nbsp;b"), "a\u{A0}b");
        assert_eq!(decode("&#150;"), "–");
    }

    #[test]
    fn leaves_unknown_or_broken_references() {
        assert_eq!(decode("R&D &unknown; &#; &"), "R&D &unknown; &#; &");
        assert_eq!(decode("a&ampb"), "a&b");
        assert_eq!(decode("&#xFFFFFFFFF;"), "\u{FFFD}F;");
    }
}
