//! Checks on eight bytes at once, read as one little-endian 64-bit word ("SWAR"): the text
//! scans that run over every byte of a page (white space collapsing, postcode shapes) skip
//! ordinary bytes eight at a time with them. Each answers "is there any byte such that…"
//! exactly; none says which byte.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = ONES * 0x7f;

/// The eight bytes of `bytes` from `at` as a word, if there are eight.
pub fn load(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

/// Whether some byte of `word` is above `limit` (at most 0x7F).
pub fn any_byte_above(word: u64, limit: u8) -> bool {
    // Adding 0x7F - limit sets a byte's high bit when it is above `limit`; a byte with its
    // high bit set already is above. A carry only leaves a byte of 0xFF, itself above.
    (word.wrapping_add(ONES * u64::from(0x7f - limit.min(0x7f))) | word) & HIGHS != 0
}

/// Whether some byte of `word` is below `limit` (at most 0x80).
pub fn any_byte_below(word: u64, limit: u8) -> bool {
    // A byte below `limit` borrows into its high bit; a false bit only ever sits above a
    // true one, so "any" is exact.
    word.wrapping_sub(ONES * u64::from(limit.min(0x80))) & !word & HIGHS != 0
}

/// Whether some byte of `word` is an ASCII digit.
pub fn any_ascii_digit(word: u64) -> bool {
    ascii_digits(word) != 0
}

/// The high bit of each byte of `word` that is an ASCII digit, and no other bit.
fn ascii_digits(word: u64) -> u64 {
    // Per byte (high bit aside, no carries or borrows between bytes): below 0x3A and above
    // 0x2F, and the high bit clear.
    let low = word & LOW7;
    let below = (ONES * (0x7f + 0x3a)).wrapping_sub(low);
    let above = low.wrapping_add(ONES * (0x7f - 0x2f));
    below & above & !word & HIGHS
}

/// Whether `bytes` holds at least `n` ASCII digits; counts eight bytes at a time (the phone
/// reader asks it of every line of a page's text) and stops once it has seen `n`.
pub fn has_ascii_digits(bytes: &[u8], n: usize) -> bool {
    let mut count = 0;
    let mut at = 0;
    while let Some(word) = load(bytes, at) {
        count += ascii_digits(word).count_ones() as usize;
        if count >= n {
            return true;
        }
        at += 8;
    }
    count + bytes[at..].iter().filter(|b| b.is_ascii_digit()).count() >= n
}

/// The offset of the first ASCII digit of `bytes` (as `bytes.iter().position(u8::is_ascii_digit)`),
/// eight bytes at a time: the postcode readers ask it of every line.
pub fn first_ascii_digit(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(word) = load(bytes, at) {
        let digits = ascii_digits(word);
        if digits != 0 {
            // Little-endian: the lowest set high bit is the first digit's byte.
            return Some(at + digits.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    bytes[at..]
        .iter()
        .position(u8::is_ascii_digit)
        .map(|p| at + p)
}

/// The high bit of each byte of `word` equal to `byte`, and no other bit.
pub fn bytes_equal(word: u64, byte: u8) -> u64 {
    let diff = word ^ (ONES * u64::from(byte));
    // A zero byte is the only one whose low seven bits plus 0x7F leave the high bit clear
    // and whose own high bit is clear; the addition never carries between bytes.
    !((diff & LOW7).wrapping_add(LOW7) | diff | LOW7)
}

/// Eight bytes for property tests of word checks: any byte, often one near the edges the
/// checks draw (spaces and controls, digits, the end of ASCII).
#[cfg(test)]
pub fn test_bytes() -> impl proptest::strategy::Strategy<Value = [u8; 8]> {
    proptest::array::uniform8(proptest::prop_oneof![
        proptest::strategy::Just(b' '),
        0x1fu8..0x22,
        0x2eu8..0x3c,
        0x7du8..0x81,
        proptest::num::u8::ANY,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn word_checks_follow_their_byte_by_byte_models(
            bytes in test_bytes(),
            limit in 0u8..=0x80,
        ) {
            let word = u64::from_le_bytes(bytes);
            proptest::prop_assert_eq!(
                any_byte_above(word, limit.min(0x7f)),
                bytes.iter().any(|&b| b > limit.min(0x7f))
            );
            proptest::prop_assert_eq!(any_byte_below(word, limit), bytes.iter().any(|&b| b < limit));
            proptest::prop_assert_eq!(any_ascii_digit(word), bytes.iter().any(u8::is_ascii_digit));
            for (i, b) in bytes.iter().enumerate() {
                let digit = if b.is_ascii_digit() { 0x80 } else { 0 };
                proptest::prop_assert_eq!(ascii_digits(word) >> (8 * i) & 0xff, digit);
            }
            let spaces = bytes_equal(word, b' ');
            for (i, b) in bytes.iter().enumerate() {
                proptest::prop_assert_eq!(spaces >> (8 * i) & 0xff, if *b == b' ' { 0x80 } else { 0 });
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn digit_counts_follow_their_byte_by_byte_model(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![0x2eu8..0x3c, proptest::num::u8::ANY],
                0..40,
            ),
            n in 0usize..24,
        ) {
            proptest::prop_assert_eq!(
                has_ascii_digits(&bytes, n),
                bytes.iter().filter(|b| b.is_ascii_digit()).count() >= n
            );
            proptest::prop_assert_eq!(
                first_ascii_digit(&bytes),
                bytes.iter().position(u8::is_ascii_digit)
            );
        }
    }

    #[test]
    fn load_reads_eight_bytes_little_endian() {
        assert_eq!(
            load(b"abcdefghi", 1),
            Some(u64::from_le_bytes(*b"bcdefghi"))
        );
        assert_eq!(load(b"abcdefgh", 1), None);
        assert_eq!(load(b"abc", usize::MAX), None);
    }
}
