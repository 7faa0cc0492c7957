//! Character decoding of fetched bytes (docs/contract.md "Fetching": HTTP header, then
//! `<meta charset>` / `http-equiv`, then UTF-8), with `encoding_rs` (WHATWG Encoding).

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};

/// How far into the page a `<meta>` charset declaration is looked for, in bytes (the HTML
/// standard's prescan reads 1024; real pages put long scripts first, so we read further).
const META_PRESCAN_BYTES: usize = 4096;

/// Decodes `bytes` to text. The charset comes from a byte-order mark, then the `charset`
/// parameter of `content_type`, then a `<meta>` declaration near the start, then UTF-8; bytes
/// that are not valid UTF-8 with no declared charset are read as windows-1252, the web's legacy
/// default. Malformed sequences become U+FFFD; this never fails.
pub fn decode_page<'a>(content_type: Option<&str>, bytes: &'a [u8]) -> Cow<'a, str> {
    let declared = content_type
        .and_then(charset_param)
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .or_else(|| meta_charset(&bytes[..bytes.len().min(META_PRESCAN_BYTES)]));
    let encoding = match declared {
        Some(encoding) => encoding,
        None => match std::str::from_utf8(bytes) {
            // Valid UTF-8 is its own text: decoding would check it a second time. The only
            // byte-order mark valid UTF-8 can start with is UTF-8's, which decoding drops.
            Ok(text) => return Cow::Borrowed(text.strip_prefix('\u{FEFF}').unwrap_or(text)),
            Err(_) if Encoding::for_bom(bytes).is_some() => UTF_8,
            Err(_) => WINDOWS_1252,
        },
    };
    // `decode` sniffs a BOM first, which wins over any declaration (WHATWG Encoding §6).
    let (text, _, _) = encoding.decode(bytes);
    text
}

/// The `charset` parameter of a Content-Type value.
fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(['"', '\'']))
    })
}

/// A `<meta charset=…>` or `<meta http-equiv=content-type content="…; charset=…">` in `head`.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let finder = memchr::memmem::Finder::new(b"charset");
    let mut from = 0;
    while let Some(offset) = find_ascii_ci(&finder, head, from) {
        let at = from + offset;
        from = at + 7;
        // Only inside a <meta …> tag.
        let Some(tag_start) = head[..at].iter().rposition(|&b| b == b'<') else {
            continue;
        };
        if head[..at]
            .iter()
            .rposition(|&b| b == b'>')
            .is_some_and(|gt| gt > tag_start)
            || !head[tag_start + 1..]
                .get(..4)?
                .eq_ignore_ascii_case(b"meta")
        {
            continue;
        }
        let rest = &head[from..];
        let rest = rest.trim_ascii_start();
        let Some(rest) = rest.strip_prefix(b"=") else {
            continue;
        };
        let rest = rest.trim_ascii_start();
        let rest = rest
            .strip_prefix(b"\"")
            .or_else(|| rest.strip_prefix(b"'"))
            .unwrap_or(rest);
        let end = rest
            .iter()
            .position(|&b| {
                matches!(b, b'"' | b'\'' | b';' | b'>' | b'/') || b.is_ascii_whitespace()
            })
            .unwrap_or(rest.len());
        let encoding = Encoding::for_label(&rest[..end])?;
        // A page that says UTF-16 in its markup is ASCII-compatible, so it is really UTF-8.
        return Some(if encoding.is_ascii_compatible() {
            encoding
        } else {
            UTF_8
        });
    }
    None
}

/// Case-insensitive search for the lower-case ASCII `finder` needle.
fn find_ascii_ci(finder: &memchr::memmem::Finder<'_>, hay: &[u8], from: usize) -> Option<usize> {
    let hay = hay.get(from..)?;
    if let Some(found) = finder.find(hay) {
        return Some(found);
    }
    // Rare: an upper-case declaration.
    let lower = hay.to_ascii_lowercase();
    finder.find(&lower)
}

#[cfg(test)]
mod tests {
    use super::decode_page;

    #[test]
    fn header_charset_wins_over_meta() {
        let bytes = b"<meta charset=utf-8><p>Stra\xdfe</p>";
        assert_eq!(
            decode_page(Some("text/html; charset=ISO-8859-1"), bytes),
            "<meta charset=utf-8><p>Straße</p>"
        );
    }

    #[test]
    fn meta_charset_and_http_equiv() {
        let bytes = b"<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=windows-1252\"><p>caf\xe9</p>";
        assert!(decode_page(None, bytes).ends_with("café</p>"));
        let bytes = b"<meta charset='iso-8859-1'>\xe9";
        assert!(decode_page(Some("text/html"), bytes).ends_with('é'));
    }

    #[test]
    fn defaults_to_utf8_then_windows_1252() {
        assert_eq!(decode_page(None, "Köln".as_bytes()), "Köln");
        assert_eq!(decode_page(None, b"K\xf6ln"), "Köln");
        assert_eq!(decode_page(None, b"\xef\xbb\xbfhi"), "hi");
    }

    proptest::proptest! {
        /// Undeclared text that is valid UTF-8 is returned as it is (less a UTF-8 byte-order
        /// mark) without decoding: the same text as decoding it.
        #[test]
        fn undeclared_text_reads_as_decoding_reads_it(
            bom in proptest::sample::select(vec![&b""[..], b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"]),
            body in proptest::collection::vec(proptest::prop_oneof![
                proptest::sample::select(b"<p>aZ \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbb\xbf".to_vec()),
                proptest::num::u8::ANY,
            ], 0..40),
        ) {
            let bytes = [bom, &body[..]].concat();
            let expected = if std::str::from_utf8(&bytes).is_ok() || encoding_rs::Encoding::for_bom(&bytes).is_some() {
                encoding_rs::UTF_8.decode(&bytes).0
            } else {
                encoding_rs::WINDOWS_1252.decode(&bytes).0
            };
            proptest::prop_assert_eq!(decode_page(None, &bytes), expected);
        }
    }

    #[test]
    fn charset_outside_meta_is_ignored() {
        let bytes = b"<p>charset=iso-8859-7</p>\xc3\xa9";
        assert!(decode_page(None, bytes).ends_with('é'));
    }
}
