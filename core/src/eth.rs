//! Ethereum primitives and their wire formats, shared by the payment checks, the chain reader
//! and the configuration: 20-byte addresses (`0x` + 40 hex digits), `0x`-hex byte strings,
//! decimal `uint256` values as 32-byte big-endian words, CAIP-2 `eip155:<id>` chain ids, and
//! Keccak-256 (the Ethereum Yellow Paper's hash; EIP-55 checksums are not required on input).

use k256::ecdsa::VerifyingKey;
use sha3::{Digest, Keccak256};

/// A 20-byte EVM address.
pub type Address = [u8; 20];

/// The chain id of a CAIP-2 `eip155:<id>` network.
pub fn chain_id(network: &str) -> Option<u64> {
    network.strip_prefix("eip155:")?.parse().ok()
}

/// `0x` + 40 hex digits, any case (checksums are not required).
pub fn parse_address(s: &str) -> Option<Address> {
    let bytes = parse_hex(s)?;
    bytes.try_into().ok()
}

/// `0x` + 64 hex digits as 32 bytes.
pub(crate) fn parse_bytes32(s: &str) -> Option<[u8; 32]> {
    let bytes = parse_hex(s)?;
    bytes.try_into().ok()
}

/// `0x` + an even number of hex digits (at most 2 048 bytes) as bytes.
pub(crate) fn parse_hex(s: &str) -> Option<Vec<u8>> {
    let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    if digits.len() % 2 != 0 || digits.len() > 4096 {
        return None;
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(digits.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A decimal uint256 (no sign, no exponent, at most 78 digits) as 32 big-endian bytes.
pub fn parse_uint256(s: &str) -> Option<[u8; 32]> {
    if s.is_empty() || s.len() > 78 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut out = [0u8; 32];
    for digit in s.bytes().map(|b| b - b'0') {
        let mut carry = u16::from(digit);
        for byte in out.iter_mut().rev() {
            let value = u16::from(*byte) * 10 + carry;
            *byte = (value & 0xff) as u8;
            carry = value >> 8;
        }
        if carry != 0 {
            return None;
        }
    }
    Some(out)
}

/// A uint256 word as a `u64`, `u64::MAX` when it is larger.
pub(crate) fn saturating_u64(word: &[u8; 32]) -> u64 {
    if word[..24].iter().any(|b| *b != 0) {
        return u64::MAX;
    }
    let mut low = [0u8; 8];
    low.copy_from_slice(&word[24..]);
    u64::from_be_bytes(low)
}

/// The address of a public key: the last 20 bytes of `keccak256(uncompressed point without the
/// 0x04 prefix)`.
pub fn address_of(key: &VerifyingKey) -> Address {
    let point = key.to_encoded_point(false);
    let hash = keccak(&[&point.as_bytes()[1..]]);
    let mut address = [0u8; 20];
    address.copy_from_slice(&hash[12..]);
    address
}

/// `0x`-prefixed lower-case hex of an address.
pub fn address_hex(address: &Address) -> String {
    format!("0x{}", hex(address))
}

/// Lower-case hex digits of `bytes`, two per byte, without a prefix.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Keccak-256 of the concatenation of `parts`.
pub(crate) fn keccak(parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = Keccak256::new();
    for part in parts {
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// An address as a 32-byte ABI word (left-padded with zeros).
pub(crate) fn pad_address(address: &Address) -> [u8; 32] {
    let mut word = [0u8; 32];
    word[12..].copy_from_slice(address);
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uint256_parsing() {
        assert_eq!(parse_uint256("0"), Some([0u8; 32]));
        let max = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        assert_eq!(parse_uint256(max), Some([0xff; 32]));
        assert_eq!(
            parse_uint256(
                "115792089237316195423570985008687907853269984665640564039457584007913129639936"
            ),
            None
        );
        for bad in ["", "-1", "1e3", "0x10", " 1"] {
            assert_eq!(parse_uint256(bad), None, "{bad}");
        }
        assert_eq!(saturating_u64(&parse_uint256(max).unwrap()), u64::MAX);
    }
}
