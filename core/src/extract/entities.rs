//! HTML character references (HTML Living Standard §13.2.5.72–80), decoded for text and for
//! attribute values with the `htmlize` crate, which follows the WHATWG algorithm and carries
//! its whole table of named references (2 231 names, `&rsaquo;`, `&larr;`, the legacy names
//! without a semicolon, …) and the Windows-1252 mapping of numeric references 0x80–0x9F.
//!
//! The two contexts differ as browsers do: in an attribute value a legacy name without `;`
//! followed by `=` or an alphanumeric stays as written (`?u=1&quote=2` is a query string, not
//! `"e=2`).

use std::borrow::Cow;

use crate::extract::words8::{bytes_equal, load};

/// Decodes character references in text content; borrows when there is none.
pub fn decode(input: &str) -> Cow<'_, str> {
    if !holds_ampersand(input.as_bytes()) {
        return Cow::Borrowed(input);
    }
    match decode_common(input) {
        Some(decoded) => Cow::Owned(decoded),
        None => htmlize::unescape(input),
    }
}

/// Decodes character references in an attribute value (see the module docs); borrows when
/// there is none.
pub fn decode_attribute(input: &str) -> Cow<'_, str> {
    if !holds_ampersand(input.as_bytes()) {
        return Cow::Borrowed(input);
    }
    match decode_common(input) {
        Some(decoded) => Cow::Owned(decoded),
        None => htmlize::unescape_attribute(input),
    }
}

/// The references most pages write (`&amp;` in links' query strings above all), each with
/// its `;`, and what each stands for. A reference with its `;` is decoded alike in text and
/// in an attribute value, whatever follows it (the `;` ends the name).
const COMMON_REFERENCES: [(&[u8], char); 6] = [
    (b"amp;", '&'),
    (b"quot;", '"'),
    (b"nbsp;", '\u{a0}'),
    (b"#39;", '\''),
    (b"lt;", '<'),
    (b"gt;", '>'),
];

/// `input` decoded when every `&` in it starts one of [`COMMON_REFERENCES`] (`None`
/// otherwise: `htmlize` decodes it). Each reference is decoded on its own, so a text holding
/// only these is decoded as `htmlize` decodes it (tested against it), without its look-up of
/// each name in the table of 2 231 (the entity decoders were 1 % of a run's time).
fn decode_common(input: &str) -> Option<String> {
    let bytes = input.as_bytes();
    let mut decoded = String::with_capacity(input.len());
    let mut copied = 0;
    while let Some(offset) = memchr::memchr(b'&', &bytes[copied..]) {
        let amp = copied + offset;
        let rest = &bytes[amp + 1..];
        let &(name, char) = COMMON_REFERENCES
            .iter()
            .find(|(name, _)| rest.starts_with(name))?;
        decoded.push_str(&input[copied..amp]);
        decoded.push(char);
        copied = amp + 1 + name.len();
    }
    decoded.push_str(&input[copied..]);
    Some(decoded)
}

/// Whether `bytes` hold a `&`, which starts every character reference. Most texts and values
/// are short: eight bytes at a time they are read in fewer instructions than `memchr` takes
/// to set up; longer ones go to `memchr`.
fn holds_ampersand(bytes: &[u8]) -> bool {
    if bytes.len() > 64 {
        return memchr::memchr(b'&', bytes).is_some();
    }
    let mut at = 0;
    while let Some(word) = load(bytes, at) {
        if bytes_equal(word, b'&') != 0 {
            return true;
        }
        at += 8;
    }
    bytes.get(at..).unwrap_or_default().contains(&b'&')
}

#[cfg(test)]
mod tests {
    use super::{decode, decode_attribute, holds_ampersand};

    proptest::proptest! {
        /// [`holds_ampersand`] finds a `&` wherever `memchr` does.
        #[test]
        fn holds_ampersand_is_memchr(bytes in proptest::collection::vec(
            proptest::prop_oneof![proptest::strategy::Just(b'&'), proptest::num::u8::ANY],
            0..90,
        )) {
            proptest::prop_assert_eq!(
                holds_ampersand(&bytes),
                memchr::memchr(b'&', &bytes).is_some()
            );
        }
    }

    proptest::proptest! {
        /// The common references are decoded as `htmlize` decodes them, in text and in
        /// attribute values, among other references, broken ones and text.
        #[test]
        fn common_references_are_decoded_as_htmlize_decodes_them(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "&amp;", "&quot;", "&nbsp;", "&#39;", "&lt;", "&gt;", "&amp", "&ampx", "&amp=",
                "&quot", "&nbsp", "&lt", "&gt=", "&#39", "&#3", "&amp;amp;", "&", "&&", "&#x27;",
                "&rsquo;", "&copy", "&copy;", "&unknown;", "a", "=", ";", " ", "é", "1",
            ]), 0..12),
        ) {
            let input = pieces.concat();
            proptest::prop_assert_eq!(decode(&input), htmlize::unescape(&input));
            proptest::prop_assert_eq!(
                decode_attribute(&input),
                htmlize::unescape_attribute(&input)
            );
        }
    }

    #[test]
    fn decodes_numeric_and_named_references() {
        assert_eq!(decode("info&#64;a.nl"), "info@a.nl");
        assert_eq!(decode("info&#x40;a.nl"), "info@a.nl");
        assert_eq!(decode("info&commat;a.nl"), "info@a.nl");
        assert_eq!(decode("A&amp;J&rsquo;s"), "A&J’s");
        assert_eq!(decode("a&nbsp;b"), "a\u{A0}b");
        assert_eq!(decode("&#150;"), "–");
        // Names outside the old hand-written table, and a legacy name without `;`.
        assert_eq!(
            decode("&larr; &rsaquo; &or; &copysr; &raquo x"),
            "← › ∨ ℗ » x"
        );
    }

    #[test]
    fn leaves_unknown_or_broken_references() {
        assert_eq!(decode("R&D &unknown; &#; &"), "R&D &unknown; &#; &");
        assert_eq!(decode("a&ampb"), "a&b");
        assert_eq!(decode("&#xFFFFFFFFF;"), "\u{FFFD}");
    }

    #[test]
    fn attribute_values_keep_query_strings() {
        assert_eq!(
            decode_attribute("sharer.php?u=&quote=Hi&amp;x=1"),
            "sharer.php?u=&quote=Hi&x=1"
        );
        assert_eq!(decode("u=&quote=Hi"), "u=\"e=Hi");
    }
}
