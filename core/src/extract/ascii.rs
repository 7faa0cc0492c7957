//! ASCII comparisons the extractors share: a prefix compared case-insensitively (URL schemes and
//! hosts in links), a tag name as the prescan reads one (HTML5 §13.2.5.8: tag names are
//! compared ASCII case-insensitively; the prescan takes letters, digits, `-`, `_`, `:` and `.`),
//! and the searches for a byte that is usually near (`<`, a closing quote) and for a two-byte
//! delimiter (`</`, `--`).

use crate::extract::words8::{bytes_equal, load};

/// Whether `text` starts with `prefix`, ASCII letters compared case-insensitively.
pub(crate) fn starts_with_ignore_ascii_case(text: &str, prefix: &str) -> bool {
    text.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// What follows `https://`, `http://` (any case) or `//` at the start of `href`: the authority
/// and the rest of an absolute or scheme-relative http(s) URL as written (RFC 3986 §4.2);
/// `None` for any other href.
pub(crate) fn after_web_scheme(href: &str) -> Option<&str> {
    if starts_with_ignore_ascii_case(href, "https://") {
        Some(&href[8..])
    } else if starts_with_ignore_ascii_case(href, "http://") {
        Some(&href[7..])
    } else {
        href.strip_prefix("//")
    }
}

/// Bytes of a tag name as the prescan reads one.
pub(super) const fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.')
}

/// Whether `rest` starts with the tag name `name` (ASCII case-insensitive) as a whole name.
pub(super) fn starts_with_name(rest: &[u8], name: &[u8]) -> bool {
    rest.len() >= name.len()
        && rest[..name.len()].eq_ignore_ascii_case(name)
        && !rest.get(name.len()).copied().is_some_and(is_name_byte)
}

/// Where the first `byte` in `hay` is: the first sixteen bytes looked at eight at a time, then
/// `memchr` for the rest. Most of the prescan's searches end within a few bytes (the text
/// between two tags is mostly empty or indentation, most attribute values are short), where a
/// `memchr` call costs more in setup than the search (about 50 instructions a call, 1.5
/// million calls a run over `corpus-perf`).
pub(super) fn find_byte(byte: u8, hay: &[u8]) -> Option<usize> {
    for at in [0, 8] {
        let Some(word) = load(hay, at) else {
            // Fewer than eight bytes left.
            return hay
                .get(at..)?
                .iter()
                .position(|&b| b == byte)
                .map(|i| at + i);
        };
        let hits = bytes_equal(word, byte);
        if hits != 0 {
            // Little-endian: the first byte is the lowest.
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
    }
    memchr::memchr(byte, hay.get(16..)?).map(|i| 16 + i)
}

/// Whether `needle` occurs in `hay`: [`find_byte`] for its first byte and a comparison at
/// each. For a short haystack searched once (a script tag's attributes, looked at for
/// framework state at every `<script>`), where building a `memmem` searcher cost more than
/// the search (about 660 instructions a searcher, three searchers a script). Now the
/// reference reading of a script tag (`state::kind_by_tag`) only: `state::kind_by_attributes`
/// reads each name and value once for all three words.
#[cfg(test)]
pub(super) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let Some(&first) = needle.first() else {
        return true;
    };
    let mut at = 0;
    while let Some(offset) = hay.get(at..).and_then(|rest| find_byte(first, rest)) {
        let found = at + offset;
        if hay[found..].starts_with(needle) {
            return true;
        }
        at = found + 1;
    }
    false
}

/// Where the first `pair` (`</`, `--`) in `hay` starts: `memchr` for its first byte and a look
/// at the next one. A `memmem` searcher finds it as fast, but building one costs more than the
/// search itself on the short haystacks the prescan has tens of thousands of per run (script
/// bodies, comments).
pub(super) fn find_pair(hay: &[u8], pair: [u8; 2]) -> Option<usize> {
    let mut at = 0;
    while let Some(offset) = memchr::memchr(pair[0], hay.get(at..)?) {
        let found = at + offset;
        if hay.get(found + 1) == Some(&pair[1]) {
            return Some(found);
        }
        at = found + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{contains, find_byte, find_pair};

    proptest::proptest! {
        #[test]
        fn contains_finds_what_memmem_finds(hay in "[_ab]{0,30}", needle in "[_ab]{0,4}") {
            proptest::prop_assert_eq!(
                contains(hay.as_bytes(), needle.as_bytes()),
                memchr::memmem::find(hay.as_bytes(), needle.as_bytes()).is_some()
            );
        }

        #[test]
        fn find_byte_finds_what_memchr_finds(hay in proptest::collection::vec(proptest::prop_oneof![
            proptest::strategy::Just(b'<'),
            proptest::num::u8::ANY,
        ], 0..40), byte in proptest::prop_oneof![proptest::strategy::Just(b'<'), proptest::num::u8::ANY]) {
            proptest::prop_assert_eq!(find_byte(byte, &hay), memchr::memchr(byte, &hay));
        }

        #[test]
        fn find_pair_finds_what_memmem_finds(hay in "[</a! -]{0,40}", first in 0u8..3, second in 0u8..3) {
            let bytes = [b'<', b'-', b'/'];
            let pair = [bytes[usize::from(first)], bytes[usize::from(second)]];
            proptest::prop_assert_eq!(
                find_pair(hay.as_bytes(), pair),
                memchr::memmem::find(hay.as_bytes(), &pair)
            );
        }
    }
}
