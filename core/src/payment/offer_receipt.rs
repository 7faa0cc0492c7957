//! The x402 Offer and Receipt extension (`offer-receipt`, x402
//! `specs/extensions/extension-offer-and-receipt.md` v1), EIP-712 format, as the published
//! verifiers run it (npm `@x402/extensions` 2.27.0, `offer-receipt`; docs/payments.md, "Signed
//! offers and receipts"):
//!
//! - domains `{name: "x402 offer" | "x402 receipt", version: "1", chainId: 1}`, no verifying
//!   contract (`createOfferDomain`, `createReceiptDomain`);
//! - `Offer(uint256 version,string resourceUrl,string scheme,string network,string asset,string
//!   payTo,string amount,uint256 validUntil)` (`OFFER_TYPES`);
//! - `Receipt(uint256 version,string network,string resourceUrl,string payer,uint256 issuedAt,
//!   string transaction)` (`RECEIPT_TYPES`);
//! - a signed artifact is `{"format": "eip712", "payload": {…}, "signature": "0x" r‖s‖v}`, an
//!   offer with its `acceptIndex` into `accepts[]`.
//!
//! Signing is pure and deterministic: secp256k1 ECDSA with RFC 6979 nonces (`k256`), low-`s`,
//! `v` = 27/28 — the same bytes `viem`'s `signTypedData` gives for the same key and payload.
//! The key comes in as bytes at start-up; nothing here reads a file, a clock or an RNG.

use k256::ecdsa::SigningKey;
use serde_json::{json, Value};

use crate::eth::{address_hex, address_of, hex, keccak};
use crate::payment::PaymentRequirements;

/// The extension's key in `extensions` (x402 v2).
pub const EXTENSION_KEY: &str = "offer-receipt";
/// The payloads' `version` (extension v1).
pub const PAYLOAD_VERSION: u64 = 1;

const DOMAIN_TYPE: &str = "EIP712Domain(string name,string version,uint256 chainId)";
const OFFER_TYPE: &str = "Offer(uint256 version,string resourceUrl,string scheme,string network,string asset,string payTo,string amount,uint256 validUntil)";
const RECEIPT_TYPE: &str = "Receipt(uint256 version,string network,string resourceUrl,string payer,uint256 issuedAt,string transaction)";

/// What an offer commits to: one `accepts[]` entry of a resource, until `valid_until`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferPayload {
    /// The resource's URL (the 402's `resource.url`).
    pub resource_url: String,
    /// `exact`.
    pub scheme: String,
    /// CAIP-2 network.
    pub network: String,
    /// Token contract, as in `accepts[]`.
    pub asset: String,
    /// Recipient, as in `accepts[]`.
    pub pay_to: String,
    /// Price in atomic units, as in `accepts[]` (a decimal string).
    pub amount: String,
    /// Unix seconds until which the offer stands.
    pub valid_until: u64,
}

/// What a receipt states: `payer` paid for `resource_url` on `network`, in `transaction`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptPayload {
    /// CAIP-2 network.
    pub network: String,
    /// The resource's URL.
    pub resource_url: String,
    /// The payer's address.
    pub payer: String,
    /// Unix seconds the receipt was issued.
    pub issued_at: u64,
    /// The settlement's transaction hash (empty when there is none).
    pub transaction: String,
}

impl OfferPayload {
    /// The offer for `requirements` of the resource at `resource_url`, standing until
    /// `valid_until` (unix seconds).
    pub fn of(requirements: &PaymentRequirements, resource_url: &str, valid_until: u64) -> Self {
        OfferPayload {
            resource_url: resource_url.to_string(),
            scheme: requirements.scheme.clone(),
            network: requirements.network.clone(),
            asset: requirements.asset.clone(),
            pay_to: requirements.pay_to.clone(),
            amount: requirements.amount.clone(),
            valid_until,
        }
    }

    /// The EIP-712 digest that is signed (`hashOfferTypedData`).
    pub fn digest(&self) -> [u8; 32] {
        let struct_hash = keccak(&[
            &keccak(&[OFFER_TYPE.as_bytes()]),
            &uint(PAYLOAD_VERSION),
            &keccak(&[self.resource_url.as_bytes()]),
            &keccak(&[self.scheme.as_bytes()]),
            &keccak(&[self.network.as_bytes()]),
            &keccak(&[self.asset.as_bytes()]),
            &keccak(&[self.pay_to.as_bytes()]),
            &keccak(&[self.amount.as_bytes()]),
            &uint(self.valid_until),
        ]);
        typed_digest("x402 offer", &struct_hash)
    }

    fn json(&self) -> Value {
        json!({
            "version": PAYLOAD_VERSION,
            "resourceUrl": self.resource_url,
            "scheme": self.scheme,
            "network": self.network,
            "asset": self.asset,
            "payTo": self.pay_to,
            "amount": self.amount,
            "validUntil": self.valid_until,
        })
    }
}

impl ReceiptPayload {
    /// The EIP-712 digest that is signed (`hashReceiptTypedData`).
    pub fn digest(&self) -> [u8; 32] {
        let struct_hash = keccak(&[
            &keccak(&[RECEIPT_TYPE.as_bytes()]),
            &uint(PAYLOAD_VERSION),
            &keccak(&[self.network.as_bytes()]),
            &keccak(&[self.resource_url.as_bytes()]),
            &keccak(&[self.payer.as_bytes()]),
            &uint(self.issued_at),
            &keccak(&[self.transaction.as_bytes()]),
        ]);
        typed_digest("x402 receipt", &struct_hash)
    }

    fn json(&self) -> Value {
        json!({
            "version": PAYLOAD_VERSION,
            "network": self.network,
            "resourceUrl": self.resource_url,
            "payer": self.payer,
            "issuedAt": self.issued_at,
            "transaction": self.transaction,
        })
    }
}

/// The service's signing key for offers and receipts (`RECEIPT_SIGNING_KEY_FILE`). Its
/// `Debug` names the address only: the key never reaches a log.
#[derive(Clone)]
pub struct OfferSigner {
    key: SigningKey,
    address: [u8; 20],
}

impl std::fmt::Debug for OfferSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfferSigner")
            .field("address", &self.address())
            .finish_non_exhaustive()
    }
}

impl PartialEq for OfferSigner {
    fn eq(&self, other: &Self) -> bool {
        self.address == other.address
    }
}

impl Eq for OfferSigner {}

impl OfferSigner {
    /// A signer from a 32-byte secp256k1 private key written as hex (64 digits, an optional
    /// `0x`, white space around it ignored).
    ///
    /// # Errors
    /// A message saying what is wrong — never the key's bytes.
    pub fn from_hex(text: &str) -> Result<OfferSigner, String> {
        let text = text.trim();
        let digits = text.strip_prefix("0x").unwrap_or(text);
        if digits.len() != 64 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("not a 32-byte secp256k1 key in hex (64 hex digits)".to_string());
        }
        let bytes: Vec<u8> = (0..32)
            .filter_map(|i| u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).ok())
            .collect();
        let key = SigningKey::from_slice(&bytes).map_err(|_| {
            "not a valid secp256k1 private key (zero or over the order)".to_string()
        })?;
        let address = address_of(key.verifying_key());
        Ok(OfferSigner { key, address })
    }

    /// The signer's address, `0x` + 40 lower-case hex digits: what verifiers recover from
    /// every signature, published in `/.well-known/x402` and `/openapi.json`.
    pub fn address(&self) -> String {
        address_hex(&self.address)
    }

    /// `0x` r‖s‖v of `digest` (65 bytes, `v` 27 or 28), RFC 6979 deterministic.
    fn sign(&self, digest: &[u8; 32]) -> String {
        match self.key.sign_prehash_recoverable(digest) {
            Ok((signature, recovery)) => {
                let mut bytes = signature.to_bytes().to_vec();
                bytes.push(27 + recovery.to_byte());
                format!("0x{}", hex(&bytes))
            }
            // Only a digest that reduces to zero could fail; Keccak-256 never gives one in
            // practice. An empty signature fails every verifier, which is the truth.
            Err(_) => String::new(),
        }
    }

    /// The signed offer for `accepts[accept_index]` (`createOfferEIP712`'s shape).
    pub fn offer(&self, accept_index: usize, payload: &OfferPayload) -> Value {
        json!({
            "format": "eip712",
            "acceptIndex": accept_index,
            "payload": payload.json(),
            "signature": self.sign(&payload.digest()),
        })
    }

    /// The signed receipt (`createReceiptEIP712`'s shape).
    pub fn receipt(&self, payload: &ReceiptPayload) -> Value {
        json!({
            "format": "eip712",
            "payload": payload.json(),
            "signature": self.sign(&payload.digest()),
        })
    }
}

/// A key that signed receipts before the current one (`RECEIPT_PREVIOUS_SIGNERS`): its address
/// and the unix seconds during which it signed, `[valid_from, valid_until)`. Published beside
/// the current signer so that a receipt handed out before a rotation still verifies
/// (docs/payments.md, "Rotating the signing key"); the key itself is no longer needed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetiredSigner {
    /// `0x` + 40 lower-case hex digits.
    pub address: String,
    /// Unix seconds from which it signed (inclusive).
    pub valid_from: u64,
    /// Unix seconds until which it signed (exclusive): the rotation's time.
    pub valid_until: u64,
}

/// Reads `RECEIPT_PREVIOUS_SIGNERS`: comma-separated `ADDRESS:VALID_FROM:VALID_UNTIL` entries
/// (an address `0x` + 40 hex digits, unix seconds, `VALID_FROM < VALID_UNTIL`); empty: none.
///
/// # Errors
/// Which entry is wrong and why.
pub fn parse_retired_signers(text: &str) -> Result<Vec<RetiredSigner>, String> {
    let mut signers = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let bad =
            |why: &str| format!("{entry:?}: {why} (ADDRESS:VALID_FROM:VALID_UNTIL, unix seconds)");
        let mut parts = entry.split(':');
        let (Some(address), Some(from), Some(until), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad("not three fields"));
        };
        let digits = address.strip_prefix("0x").unwrap_or("");
        if digits.len() != 40 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad("the address is not 0x + 40 hex digits"));
        }
        let (Ok(valid_from), Ok(valid_until)) = (from.parse::<u64>(), until.parse::<u64>()) else {
            return Err(bad("the times are not unix seconds"));
        };
        if valid_from >= valid_until {
            return Err(bad("VALID_FROM is not before VALID_UNTIL"));
        }
        signers.push(RetiredSigner {
            address: address.to_ascii_lowercase(),
            valid_from,
            valid_until,
        });
    }
    Ok(signers)
}

/// Who signs this service's offers and receipts, as discovery publishes it (x402
/// offer-receipt, spec §4.5.1: the service's own key registry): `signer`, the current
/// address, and `signers`, every address with the unix seconds it signed in — the current one
/// from the end of the latest retired one (`validFrom`, absent without retired signers), the
/// retired ones with `validFrom` and `validUntil`. A verifier recovers the address from a
/// receipt's signature and accepts it when an entry of that address covers its `issuedAt`
/// ([`covers`]).
pub fn signer_declaration(current: &OfferSigner, retired: &[RetiredSigner]) -> Value {
    let mut now = json!({"address": current.address()});
    if let Some(since) = retired.iter().map(|r| r.valid_until).max() {
        now["validFrom"] = json!(since);
    }
    let mut signers = vec![now];
    signers.extend(retired.iter().map(
        |r| json!({"address": r.address, "validFrom": r.valid_from, "validUntil": r.valid_until}),
    ));
    json!({"format": "eip712", "signer": current.address(), "signers": signers})
}

/// Whether `declaration` (a [`signer_declaration`]) lists `address` (any case) as a signer at
/// `issued_at` (unix seconds): the check a verifier makes after recovering the address.
pub fn covers(declaration: &Value, address: &str, issued_at: u64) -> bool {
    let Some(signers) = declaration["signers"].as_array() else {
        return false;
    };
    signers.iter().any(|entry| {
        entry["address"]
            .as_str()
            .is_some_and(|a| a.eq_ignore_ascii_case(address))
            && entry["validFrom"]
                .as_u64()
                .is_none_or(|from| from <= issued_at)
            && entry["validUntil"]
                .as_u64()
                .is_none_or(|until| issued_at < until)
    })
}

/// The address that signed a receipt artifact (`{"format": "eip712", "payload": {…},
/// "signature": "0x…"}`, as in `PAYMENT-RESPONSE`'s `extensions["offer-receipt"].info.receipt`)
/// and its `issuedAt` (unix seconds): what a verifier checks against the published signers
/// with [`covers`]. `None` when a field is missing or the signature recovers to no address.
pub fn receipt_signer(receipt: &Value) -> Option<(String, u64)> {
    let payload = &receipt["payload"];
    let text = |name: &str| payload[name].as_str().map(str::to_string);
    let issued_at = payload["issuedAt"].as_u64()?;
    let signed = ReceiptPayload {
        network: text("network")?,
        resource_url: text("resourceUrl")?,
        payer: text("payer")?,
        issued_at,
        transaction: text("transaction")?,
    };
    let signature = crate::eth::parse_hex(receipt["signature"].as_str()?)?;
    let address = crate::payment::verify::recover_signer(&signed.digest(), &signature)?;
    Some((address_hex(&address), issued_at))
}

/// `keccak256(0x19 0x01 ‖ domainSeparator ‖ structHash)` under the extension's domain `name`
/// (EIP-712).
fn typed_digest(name: &str, struct_hash: &[u8; 32]) -> [u8; 32] {
    let domain = keccak(&[
        &keccak(&[DOMAIN_TYPE.as_bytes()]),
        &keccak(&[name.as_bytes()]),
        &keccak(&[b"1"]),
        &uint(1),
    ]);
    keccak(&[&[0x19, 0x01], &domain, struct_hash])
}

/// `n` as an EIP-712 `uint256` word (big-endian).
fn uint(n: u64) -> [u8; 32] {
    let mut word = [0u8; 32];
    word[24..].copy_from_slice(&n.to_be_bytes());
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    /// anvil's third development key (a well-known test key).
    const KEY: &str = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";

    fn offer() -> OfferPayload {
        OfferPayload {
            resource_url: "https://contacts.example.com/api/v1/extract-contact".into(),
            scheme: "exact".into(),
            network: "eip155:8453".into(),
            asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913".into(),
            pay_to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8".into(),
            amount: "10000".into(),
            valid_until: 1_900_000_000,
        }
    }

    fn receipt() -> ReceiptPayload {
        ReceiptPayload {
            network: "eip155:8453".into(),
            resource_url: "https://contacts.example.com/api/v1/extract-contact".into(),
            payer: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266".into(),
            issued_at: 1_899_999_950,
            transaction: "0x8fcb8eb54cf0d78cdd361ed0f665a776d9b4d5e56825709b7fda73ffa3d4507b"
                .into(),
        }
    }

    /// Vectors from `@x402/extensions` 2.27.0 (`hashOfferTypedData`, `hashReceiptTypedData`)
    /// and `viem` 2.57.20 (`privateKeyToAccount(KEY).signTypedData`) for these payloads;
    /// `verifyOfferSignatureEIP712` / `verifyReceiptSignatureEIP712` recover the address.
    #[test]
    fn digests_and_signatures_match_the_published_package() {
        assert_eq!(
            hex(&offer().digest()),
            "5fba68ec263ecec2571fb9ac3700fcabf7a71f3ba7332ce6645141c5e90152a9"
        );
        assert_eq!(
            hex(&receipt().digest()),
            "78e12d98c046c76ab509e1e9272009ccc3b998d5558c6c85243954f1ed635d74"
        );
        let signer = OfferSigner::from_hex(KEY).unwrap();
        assert_eq!(
            signer.address(),
            "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc"
        );
        let offer = signer.offer(0, &offer());
        assert_eq!(offer["signature"], "0xebaa4b01c26383cf8e57eaf4486a0f60347dcbec34ab1625d1f45877b7d110f30e8060d1f2b7d107b1f44f7dd00a60139ce4ec798c42e255a0f993f736a6172b1c");
        assert_eq!(offer["format"], "eip712");
        assert_eq!(offer["acceptIndex"], 0);
        assert_eq!(offer["payload"]["validUntil"], 1_900_000_000);
        assert_eq!(
            offer["payload"]["payTo"],
            "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
        );
        let receipt = signer.receipt(&receipt());
        assert_eq!(receipt["signature"], "0x76a90317daae578713d6cf6e2eca60b4a6fc63b17d903a5ff9d0690e1753f4592999939866d5ab85c15c9bea27b68ee82f8e7194262a5c2d62981cbb07128c151c");
        assert_eq!(receipt["payload"]["issuedAt"], 1_899_999_950);
    }

    #[test]
    fn a_signature_recovers_to_the_signer_and_a_changed_payload_does_not() {
        use crate::payment::verify::recover_signer;
        let signer = OfferSigner::from_hex(KEY).unwrap();
        let payload = receipt();
        let signed = signer.receipt(&payload);
        let signature = crate::eth::parse_hex(signed["signature"].as_str().unwrap()).unwrap();
        let recovered = recover_signer(&payload.digest(), &signature).unwrap();
        assert_eq!(address_hex(&recovered), signer.address());
        let tampered = ReceiptPayload {
            payer: "0x0000000000000000000000000000000000000001".into(),
            ..payload
        };
        let other = recover_signer(&tampered.digest(), &signature);
        assert_ne!(other.map(|a| address_hex(&a)), Some(signer.address()));
    }

    /// A rotation: receipts signed by the old key before the rotation still verify against
    /// the published registry, the new key's from the rotation on; neither outside its time.
    #[test]
    fn a_receipt_signed_before_a_rotation_verifies_against_the_published_signers() {
        let old = OfferSigner::from_hex(KEY).unwrap();
        let new = OfferSigner::from_hex(
            "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
        )
        .unwrap();
        let rotation = 1_900_000_000;
        let retired = parse_retired_signers(&format!(
            " {}:1800000000:{rotation} ",
            old.address().to_ascii_uppercase().replace("0X", "0x")
        ))
        .unwrap();
        let published = signer_declaration(&new, &retired);
        assert_eq!(published["signer"], new.address());
        assert_eq!(published["signers"][0]["validFrom"], rotation);
        let signed_by = |signer: &OfferSigner, issued_at: u64| {
            let payload = ReceiptPayload {
                issued_at,
                ..receipt()
            };
            let (address, at) = receipt_signer(&signer.receipt(&payload)).unwrap();
            assert_eq!(
                (address.as_str(), at),
                (signer.address().as_str(), issued_at)
            );
            covers(&published, &address, issued_at)
        };
        assert!(signed_by(&old, rotation - 60), "an old receipt");
        assert!(signed_by(&new, rotation), "a new receipt");
        assert!(!signed_by(&old, rotation), "the old key after the rotation");
        assert!(!signed_by(&new, rotation - 60), "the new key before it");
        assert!(
            !signed_by(&old, 1_700_000_000),
            "the old key before its time"
        );
        // Without retired signers: the current one, open-ended.
        let alone = signer_declaration(&new, &[]);
        assert_eq!(alone["signers"], json!([{"address": new.address()}]));
        assert!(covers(&alone, &new.address(), 0));
    }

    #[test]
    fn retired_signers_are_read_strictly() {
        assert_eq!(parse_retired_signers(" ").unwrap(), vec![]);
        let two = parse_retired_signers(
            "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc:1:2,0x70997970C51812dc3A010C7d01b50e0d17dc79C8:2:3",
        )
        .unwrap();
        assert_eq!(two.len(), 2);
        assert_eq!(two[1].address, "0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
        for bad in [
            "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc:1",
            "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc:2:1",
            "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc:1:2:3",
            "3c44cdddb6a900fa2b585dd299e03d12fa4293bc:1:2",
            "0x3c44:1:2",
            "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc:-1:2",
        ] {
            assert!(parse_retired_signers(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn keys_are_read_as_hex_and_never_shown() {
        assert!(OfferSigner::from_hex(&format!(" {}\n", &KEY[2..])).is_ok());
        for bad in ["", "0x12", &"0".repeat(64), &"g".repeat(64)] {
            let error = OfferSigner::from_hex(bad).unwrap_err();
            assert!(!error.contains(bad) || bad.is_empty(), "{error}");
        }
        let shown = format!("{:?}", OfferSigner::from_hex(KEY).unwrap());
        assert!(!shown.contains(&KEY[2..12]), "{shown}");
        assert!(shown.contains("0x3c44cddd"), "{shown}");
    }
}
