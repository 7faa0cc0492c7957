//! Request ids (docs/contract.md): `req_` + 26 Crockford base32 characters, time-ordered like a
//! ULID — 48 bits of unix milliseconds, then 80 bits derived from the server's seed and a
//! counter (Keccak-256), so ids are unique per server and reproducible in tests. One
//! Keccak-256 block (32 bytes) yields the 80-bit parts of three ids.

use sha3::{Digest, Keccak256};

/// Crockford's base32 alphabet (no I, L, O, U).
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Hands out request ids.
#[derive(Debug, Clone)]
pub struct RequestIds {
    seed: [u8; 32],
    counter: u64,
    /// The current Keccak-256 block and how many of its 10-byte parts were used.
    block: [u8; 32],
    used: usize,
}

/// 10-byte parts in one 32-byte block.
const PARTS_PER_BLOCK: usize = 3;

impl RequestIds {
    /// A generator for a server started with `seed` (32 bytes of OS entropy in production).
    pub fn new(seed: [u8; 32]) -> RequestIds {
        RequestIds {
            seed,
            counter: 0,
            block: [0; 32],
            used: PARTS_PER_BLOCK,
        }
    }

    /// The next id at `unix_millis` (milliseconds since the epoch).
    pub fn next(&mut self, unix_millis: u64) -> String {
        if self.used == PARTS_PER_BLOCK {
            self.counter = self.counter.wrapping_add(1);
            self.block = Keccak256::new()
                .chain_update(self.seed)
                .chain_update(self.counter.to_be_bytes())
                .finalize()
                .into();
            self.used = 0;
        }
        let part = &self.block[self.used * 10..self.used * 10 + 10];
        self.used += 1;
        let random = part
            .iter()
            .fold(0u128, |acc, byte| (acc << 8) | u128::from(*byte));
        let value = (u128::from(unix_millis & 0xFFFF_FFFF_FFFF) << 80) | random;
        let mut text = String::with_capacity(30);
        text.push_str("req_");
        for i in (0..26).rev() {
            let index = ((value >> (i * 5)) & 0x1F) as usize;
            text.push(char::from(CROCKFORD[index]));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_order_and_uniqueness() {
        let mut ids = RequestIds::new([7; 32]);
        let a = ids.next(1_700_000_000_000);
        let b = ids.next(1_700_000_000_000);
        let c = ids.next(1_700_000_000_001);
        assert_eq!(a.len(), 30);
        assert!(a.starts_with("req_") && a[4..].bytes().all(|b| CROCKFORD.contains(&b)));
        assert_ne!(a, b);
        // Ids from one block and from the next differ too.
        let later: Vec<String> = (0..7).map(|_| ids.next(1_700_000_000_000)).collect();
        for (i, x) in later.iter().enumerate() {
            assert!(later[i + 1..].iter().all(|y| y != x) && *x != a && *x != b);
        }
        assert!(c[4..14] > a[4..14], "the time prefix orders ids");
        assert_eq!(a[4..14], b[4..14]);
        // The same seed gives the same ids (tests are reproducible); another seed does not.
        assert_eq!(RequestIds::new([7; 32]).next(1_700_000_000_000), a);
        assert_ne!(RequestIds::new([8; 32]).next(1_700_000_000_000), a);
        // The first character never exceeds 7 (128 bits in 130).
        assert!(b"01234567".contains(&a.as_bytes()[4]));
    }
}
