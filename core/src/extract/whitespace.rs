//! White space as a page shows it: runs collapsed to one space, none at the start of a line,
//! zero-width characters removed (CSS `white-space: normal`, which is how the visible text of a
//! page reads). White space here is Unicode `White_Space` and the controls; zero-width
//! characters are U+200B–U+200D, U+2060, U+FEFF and U+00AD (soft hyphen).
//!
//! This runs over every byte of a page's visible text, so ordinary text is read eight bytes at
//! a time (a word of printable ASCII with single spaces is copied whole); anything else goes
//! one character at a time.

#[cfg(test)]
use crate::extract::words8::any_byte_below;
use crate::extract::words8::{any_byte_above, bytes_equal, load};

/// Collapses white space runs to one space and trims; removes zero-width characters.
pub fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    collapse_into(&mut out, s);
    out
}

/// [`collapse`] of `s` into `out`, cleared first (a buffer kept for its capacity).
pub fn collapse_into(out: &mut String, s: &str) {
    out.clear();
    push_collapsed(out, s);
    if out.ends_with(' ') {
        out.pop();
    }
}

/// Appends `s` to `out` with white space runs collapsed to one space (none at the start of
/// `out` or after a line break) and zero-width characters removed. Runs of kept characters are
/// copied as slices.
pub fn push_collapsed(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    // White space read and not written yet: it is written (if `out` allows) just before the
    // next kept character, or at the end.
    let mut space = false;
    let mut i = 0;
    while i < bytes.len() {
        let run_start = i;
        i = kept_run_end(s, i);
        if i > run_start {
            if space {
                push_space(out);
                space = false;
            }
            out.push_str(&s[run_start..i]);
        }
        // At a white space, control or zero-width character (or the end).
        i = skip_ascii_white_space(bytes, i, &mut space);
        if let Some(&b) = bytes.get(i) {
            if b >= 0x80 {
                if let Some((len, is_space)) = special_char(&s[i..]) {
                    space |= is_space;
                    i += len;
                }
            }
        }
    }
    if space {
        push_space(out);
    }
}

/// `s` without leading and trailing white space, as [`str::trim`]; a string that starts and
/// ends with printable ASCII (every href of a page, which is trimmed already and comes to
/// several link readers) is returned from a look at two bytes, without decoding characters
/// from both ends.
pub fn trim(s: &str) -> &str {
    if graphic(s.as_bytes().first()) && graphic(s.as_bytes().last()) {
        return s;
    }
    s.trim()
}

/// `s` without leading white space, as [`str::trim_start`], from a look at one byte when it
/// starts with printable ASCII (see [`trim`]).
pub fn trim_start(s: &str) -> &str {
    if graphic(s.as_bytes().first()) {
        return s;
    }
    s.trim_start()
}

/// Whether `b` is printable ASCII other than the space (`u8::is_ascii_graphic`: neither white
/// space nor the start of a multi-byte character).
fn graphic(b: Option<&u8>) -> bool {
    b.is_some_and(u8::is_ascii_graphic)
}

/// One space, unless `out` is empty or already ends with a space or a line break.
fn push_space(out: &mut String) {
    if !out.is_empty() && !out.ends_with([' ', '\n']) {
        out.push(' ');
    }
}

/// The end of the run of kept characters from `start`: printable ASCII, single spaces after a
/// kept character, and non-ASCII characters that are neither white space, controls nor
/// zero-width. A space ending the run is kept in it: a kept character is before it, so the
/// collapsed text has it too.
fn kept_run_end(s: &str, start: usize) -> usize {
    let bytes = s.as_bytes();
    let mut i = start;
    // Eight bytes at a time: the first byte that needs a closer look (a control, a space
    // that starts the run or follows a space, a non-ASCII byte) is found in the word, and
    // the bytes before it are passed at once. A failed check used to fall back to one byte
    // and load the word again from the next, up to eight times for one word with an accent.
    while let Some(word) = load(bytes, i) {
        let after_space = i == start || bytes[i - 1] == b' ';
        let care = bytes_needing_care(word, after_space);
        if care == 0 {
            i += 8;
            continue;
        }
        i += care.trailing_zeros() as usize / 8;
        let b = bytes[i];
        // Only a lead byte of a non-ASCII character can be kept here (a space or control
        // that needs care never is): one that cannot start white space, a control or a
        // zero-width character is kept without being decoded.
        if b < 0x80 || (may_start_special(b) && special_char(&s[i..]).is_some()) {
            return i;
        }
        i += utf8_len(b);
    }
    loop {
        match bytes.get(i) {
            None => return i,
            Some(&b) if b > b' ' && b < 0x7f => i += 1,
            Some(&b' ') if i > start && bytes[i - 1] != b' ' => i += 1,
            Some(&b) if b >= 0x80 && special_char(&s[i..]).is_none() => i += utf8_len(b),
            Some(_) => return i,
        }
    }
}

/// The high bit of each byte of `word` that [`kept_run_end`] must look at on its own: a
/// control (below 0x20 or 0x7F), a non-ASCII byte, or a space after a space (`after_space`:
/// whether the byte before the word is a space, or the run starts at the word). A false bit
/// only ever sits above a true one, so the lowest bit set is exact.
fn bytes_needing_care(word: u64, after_space: bool) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte below 0x20 borrows into its high bit (a borrow only marks bytes above it).
    let controls = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    let spaces = bytes_equal(word, b' ');
    // A space whose previous byte (8 bits down, little-endian) is a space.
    let doubled = spaces & ((spaces << 8) | u64::from(after_space) << 7);
    controls | (word & HIGHS) | bytes_equal(word, 0x7f) | doubled
}

/// Whether a UTF-8 lead byte `b` may start white space, a control or a zero-width character:
/// U+0080–U+00BF (C1 controls, U+0085, U+00A0, U+00AD) lead with 0xC2; U+1680 with 0xE1;
/// U+2000–U+206F with 0xE2; U+3000 with 0xE3; U+FEFF with 0xEF. No other lead byte starts
/// one.
fn may_start_special(b: u8) -> bool {
    matches!(b, 0xC2 | 0xE1 | 0xE2 | 0xE3 | 0xEF)
}

/// Skips ASCII white space and controls from `at` (eight bytes at a time), setting `space`
/// if there was any; returns where they end.
fn skip_ascii_white_space(bytes: &[u8], mut at: usize, space: &mut bool) -> usize {
    let start = at;
    while let Some(word) = load(bytes, at) {
        // All eight at most 0x20 (white space and controls).
        if any_byte_above(word, 0x20) {
            break;
        }
        at += 8;
    }
    while bytes.get(at).is_some_and(|&b| b <= b' ' || b == 0x7f) {
        at += 1;
    }
    *space |= at > start;
    at
}

/// The length of the UTF-8 sequence a leading byte starts (`s` is a `str`, so `b` leads one).
fn utf8_len(b: u8) -> usize {
    match b {
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    }
}

/// The first character of `s` when it is white space, a control or zero-width: its length in
/// bytes and whether it is white space (zero-width characters are removed, not spaces).
fn special_char(s: &str) -> Option<(usize, bool)> {
    let ch = s.chars().next()?;
    let zero_width = matches!(
        ch,
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{FEFF}' | '\u{AD}' | '\u{2060}'
    );
    let space = ch.is_whitespace() || ch.is_control();
    (space || zero_width).then_some((ch.len_utf8(), space))
}

/// Whether every byte of `word` is printable ASCII or a space (0x20–0x7E) and no two spaces
/// are next to each other (the check of [`tests::kept_run_end_reference`]).
#[cfg(test)]
fn printable_with_single_spaces(word: u64) -> bool {
    if any_byte_below(word, 0x20) || any_byte_above(word, 0x7e) {
        return false;
    }
    // A space whose next byte (8 bits up, little-endian) is a space too.
    let spaces = bytes_equal(word, b' ');
    spaces & (spaces >> 8) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `push_collapsed` as the module docs state it, one character at a time.
    fn push_collapsed_model(out: &mut String, s: &str) {
        for ch in s.chars() {
            let zero_width = matches!(
                ch,
                '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{FEFF}' | '\u{AD}' | '\u{2060}'
            );
            if ch.is_whitespace() || ch.is_control() {
                if !out.is_empty() && !out.ends_with([' ', '\n']) {
                    out.push(' ');
                }
            } else if !zero_width {
                out.push(ch);
            }
        }
    }

    /// `kept_run_end` as it was, falling back to one byte when a word of eight fails its check:
    /// the reference the new one is held to. The end of the run of kept characters from `start`: printable ASCII, single spaces after a
    /// kept character, and non-ASCII characters that are neither white space, controls nor
    /// zero-width. A space ending the run is kept in it: a kept character is before it, so the
    /// collapsed text has it too.
    pub(super) fn kept_run_end_reference(s: &str, start: usize) -> usize {
        let bytes = s.as_bytes();
        let mut i = start;
        loop {
            // Eight bytes at a time while they are printable ASCII with single spaces, and the
            // first is not a space that would start the run or follow a space.
            while let Some(word) = load(bytes, i) {
                let space_first = bytes[i] == b' ' && (i == start || bytes[i - 1] == b' ');
                if space_first || !printable_with_single_spaces(word) {
                    break;
                }
                i += 8;
            }
            match bytes.get(i) {
                None => return i,
                Some(&b) if b > b' ' && b < 0x7f => i += 1,
                Some(&b' ') if i > start && bytes[i - 1] != b' ' => i += 1,
                Some(&b) if b >= 0x80 && special_char(&s[i..]).is_none() => i += utf8_len(b),
                Some(_) => return i,
            }
        }
    }

    #[test]
    fn runs_collapse_and_zero_width_characters_go() {
        let mut out = String::new();
        push_collapsed(&mut out, "  Contact\u{a0}\u{200b}us  today,\n\t please ");
        assert_eq!(out, "Contact us today, please ");
        assert_eq!(collapse("\n  a  b\u{ad}c  "), "a bc");
        let mut out = String::from("line\n");
        push_collapsed(&mut out, "   next");
        assert_eq!(out, "line\nnext");
    }

    #[test]
    fn eight_byte_checks_agree_with_byte_by_byte_ones() {
        let samples: [&[u8; 8]; 8] = [
            b"abcdefgh",
            b"ab cd ef",
            b"ab  cdef",
            b" abcdefg",
            b"abcdefg ",
            b"abc\tdefg",
            b"abc~defg",
            b"abc\x7fdefg",
        ];
        for sample in samples {
            let word = u64::from_le_bytes(*sample);
            let printable = sample.iter().all(|b| (0x20..0x7f).contains(b));
            let single = !sample.windows(2).any(|w| w == b"  ");
            assert_eq!(
                printable_with_single_spaces(word),
                printable && single,
                "{sample:?}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn collapsing_follows_its_model(
            before in proptest::sample::select(vec!["", "x", "x ", "x\n", " "]),
            // Words long enough for the eight-byte path, between single characters of
            // every kind.
            s in "([a.~]{1,12}|[ \t\n\r\u{1}\u{7f}\u{85}\u{a0}\u{ad}é\u{200b}\u{2028}\u{3000}\u{feff}😀]){0,16}",
        ) {
            let mut fast = before.to_string();
            push_collapsed(&mut fast, &s);
            let mut model = before.to_string();
            push_collapsed_model(&mut model, &s);
            proptest::prop_assert_eq!(fast, model);
        }

        #[test]
        fn kept_runs_end_where_the_reference_ends_them(
            s in "([a.~]{1,12}|[ \t\n\r\u{1}\u{1f}\u{7f}\u{85}\u{a0}\u{ad}é\u{c0}\u{1680}\u{2000}\u{2060}\u{200b}\u{2028}\u{3000}\u{feff}\u{fffd}😀]){0,16}",
            start_at in 0usize..64,
        ) {
            // Every character boundary up to `start_at`, as `push_collapsed` may start a run
            // anywhere.
            for start in (0..=s.len().min(start_at)).filter(|&i| s.is_char_boundary(i)) {
                proptest::prop_assert_eq!(kept_run_end(&s, start), kept_run_end_reference(&s, start));
            }
        }

        #[test]
        fn the_care_mask_finds_the_first_byte_a_byte_by_byte_model_finds(
            bytes in crate::extract::words8::test_bytes(),
            after_space: bool,
        ) {
            let word = u64::from_le_bytes(bytes);
            let first = (0..8).find(|&i| {
                let b = bytes[i];
                let previous_space = if i == 0 { after_space } else { bytes[i - 1] == b' ' };
                !(0x20..0x7f).contains(&b) || (b == b' ' && previous_space)
            });
            let care = bytes_needing_care(word, after_space);
            proptest::prop_assert_eq!((care != 0).then(|| care.trailing_zeros() as usize / 8), first);
        }

        #[test]
        fn trims_are_str_trims(
            s in "[ \t\n\u{1}\u{1c}\u{7f}\u{85}\u{a0}\u{3000}ab~é]{0,6}",
        ) {
            proptest::prop_assert_eq!(trim(&s), s.trim());
            proptest::prop_assert_eq!(trim_start(&s), s.trim_start());
        }

        #[test]
        fn the_eight_byte_check_follows_its_byte_by_byte_model(
            bytes in crate::extract::words8::test_bytes()
        ) {
            let word = u64::from_le_bytes(bytes);
            let printable = bytes.iter().all(|b| (0x20..0x7f).contains(b));
            let single = !bytes.windows(2).any(|w| w == b"  ");
            proptest::prop_assert_eq!(printable_with_single_spaces(word), printable && single);
        }
    }
}
