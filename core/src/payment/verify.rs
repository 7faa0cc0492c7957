//! Local verification of an `exact` EVM payment before any facilitator call (docs/contract.md
//! "Payment"): the `PAYMENT-SIGNATURE` must match our requirements by parsed value, and its
//! EIP-3009 `TransferWithAuthorization` must be signed by `authorization.from` (EIP-712 digest
//! with Keccak-256, ECDSA public-key recovery on secp256k1), pay exactly `amount` to `payTo`,
//! and be valid now and long enough: `validAfter <= now` and `validBefore` within
//! `[now + 60 s, now + maxTimeoutSeconds + 60 s]` (docs/payments.md, "The window").

use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
use serde_json::Value;

use crate::budget::{MIN_VALIDITY_SECONDS, VALIDITY_SLACK_SECONDS};
use crate::eth::{
    address_of, chain_id, keccak, pad_address, parse_address, parse_bytes32, parse_hex,
    parse_uint256, saturating_u64, Address,
};
use crate::payment::wire::{ExactEvmPayload, PaymentPayload, PaymentRequirements, X402_VERSION};

/// `keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")`.
const DOMAIN_TYPEHASH: &str =
    "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)";
/// EIP-3009 `TransferWithAuthorization` type string.
const TRANSFER_TYPE: &str =
    "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)";

/// Why a payment is refused locally; [`PaymentError::reason`] is the string put into the 402's
/// `error` (the x402 reference vocabulary where one exists).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PaymentError {
    /// `accepted` is not one of our requirements.
    NoMatchingRequirements,
    /// A field is not in the expected format.
    Malformed(&'static str),
    /// The signature does not recover to `authorization.from`.
    InvalidSignature,
    /// `authorization.to` is not our `payTo`.
    RecipientMismatch,
    /// `authorization.value` is not exactly `amount`.
    ValueMismatch,
    /// `validAfter` is in the future.
    NotYetValid,
    /// `validBefore` is less than [`MIN_VALIDITY_SECONDS`] away (or past).
    Expired,
    /// `validBefore` is more than `maxTimeoutSeconds` + [`VALIDITY_SLACK_SECONDS`] away.
    ValidTooLong,
    /// `x402Version` is not 2.
    UnsupportedVersion(u32),
}

impl PaymentError {
    /// The reason string for `PaymentRequired.error`.
    pub fn reason(&self) -> String {
        match self {
            Self::NoMatchingRequirements => "No matching payment requirements".to_string(),
            Self::Malformed(field) => format!("invalid_payload: malformed {field}"),
            Self::InvalidSignature => "invalid_exact_evm_signature".to_string(),
            Self::RecipientMismatch => "invalid_exact_evm_recipient_mismatch".to_string(),
            Self::ValueMismatch => {
                "invalid_exact_evm_payload_authorization_value_mismatch".to_string()
            }
            Self::NotYetValid => "invalid_exact_evm_payload_authorization_valid_after".to_string(),
            Self::Expired => format!(
                "invalid_exact_evm_payload_authorization_valid_before: validBefore must be at least {MIN_VALIDITY_SECONDS} s in the future (crawl 30 s + result build 5 s + settlement 15 s + 10 s margin)"
            ),
            Self::ValidTooLong => format!(
                "invalid_exact_evm_payload_authorization_valid_before: validBefore must be at most maxTimeoutSeconds + {VALIDITY_SLACK_SECONDS} s in the future"
            ),
            Self::UnsupportedVersion(v) => format!("Unsupported x402 version: {v}"),
        }
    }
}

impl std::fmt::Display for PaymentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason())
    }
}

impl std::error::Error for PaymentError {}

/// A payment that passed the local checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedPayment {
    /// The payer (`authorization.from`).
    pub payer: Address,
    /// The EIP-3009 nonce.
    pub nonce: [u8; 32],
    /// `validBefore`, unix seconds (saturated to `u64`).
    pub valid_before: u64,
    /// The payload's scheme-specific part, parsed.
    pub payload: ExactEvmPayload,
}

/// Runs every local check on `payment` against our `requirements` at `unix_now` (seconds).
///
/// # Errors
/// The first failing check, in the order of docs/contract.md.
pub fn verify_locally(
    payment: &PaymentPayload,
    requirements: &PaymentRequirements,
    unix_now: u64,
) -> Result<VerifiedPayment, PaymentError> {
    if payment.x402_version != X402_VERSION {
        return Err(PaymentError::UnsupportedVersion(payment.x402_version));
    }
    if !matches_requirements(&payment.accepted, requirements) {
        return Err(PaymentError::NoMatchingRequirements);
    }
    let payload: ExactEvmPayload = serde_json::from_value(payment.payload.clone())
        .map_err(|_| PaymentError::Malformed("payload"))?;
    let auth = &payload.authorization;
    let from = parse_address(&auth.from).ok_or(PaymentError::Malformed("authorization.from"))?;
    let to = parse_address(&auth.to).ok_or(PaymentError::Malformed("authorization.to"))?;
    let value = parse_uint256(&auth.value).ok_or(PaymentError::Malformed("authorization.value"))?;
    let valid_after = parse_uint256(&auth.valid_after)
        .ok_or(PaymentError::Malformed("authorization.validAfter"))?;
    let valid_before = parse_uint256(&auth.valid_before)
        .ok_or(PaymentError::Malformed("authorization.validBefore"))?;
    let nonce = parse_bytes32(&auth.nonce).ok_or(PaymentError::Malformed("authorization.nonce"))?;
    let signature = parse_hex(&payload.signature).ok_or(PaymentError::Malformed("signature"))?;
    let chain_id = chain_id(&requirements.network).ok_or(PaymentError::Malformed("network"))?;
    let asset = parse_address(&requirements.asset).ok_or(PaymentError::Malformed("asset"))?;
    let pay_to = parse_address(&requirements.pay_to).ok_or(PaymentError::Malformed("payTo"))?;
    let amount = parse_uint256(&requirements.amount).ok_or(PaymentError::Malformed("amount"))?;

    let domain = domain_separator(
        &requirements.extra.name,
        &requirements.extra.version,
        chain_id,
        &asset,
    );
    let message = TransferWithAuthorization {
        from,
        to,
        value,
        valid_after,
        valid_before,
        nonce,
    };
    let digest = typed_data_digest(&domain, &message.struct_hash());
    if recover_signer(&digest, &signature) != Some(from) {
        return Err(PaymentError::InvalidSignature);
    }
    if to != pay_to {
        return Err(PaymentError::RecipientMismatch);
    }
    if value != amount {
        return Err(PaymentError::ValueMismatch);
    }
    if saturating_u64(&valid_after) > unix_now {
        return Err(PaymentError::NotYetValid);
    }
    let valid_before = saturating_u64(&valid_before);
    if valid_before < unix_now.saturating_add(MIN_VALIDITY_SECONDS) {
        return Err(PaymentError::Expired);
    }
    let longest = unix_now
        .saturating_add(requirements.max_timeout_seconds)
        .saturating_add(VALIDITY_SLACK_SECONDS);
    if valid_before > longest {
        return Err(PaymentError::ValidTooLong);
    }
    Ok(VerifiedPayment {
        payer: from,
        nonce,
        valid_before,
        payload,
    })
}

/// The authorization of a payment that [`verify_locally`] refused with
/// [`PaymentError::Expired`] — which it does only after the signature recovered to
/// `authorization.from`, `to` was our `payTo`, the value our amount and `validAfter` past: the
/// authorization is genuine, only too late for a job of its own (docs/payments.md, "An expired
/// authorization without a record"). `None` when the payload does not parse. Never call it for
/// another refusal: it checks nothing itself.
pub fn expired_authorization(payment: &PaymentPayload) -> Option<VerifiedPayment> {
    let payload: ExactEvmPayload = serde_json::from_value(payment.payload.clone()).ok()?;
    let auth = &payload.authorization;
    let payer = parse_address(&auth.from)?;
    let nonce = parse_bytes32(&auth.nonce)?;
    let valid_before = saturating_u64(&parse_uint256(&auth.valid_before)?);
    Some(VerifiedPayment {
        payer,
        nonce,
        valid_before,
        payload,
    })
}

/// The payer and nonce an `exact` EVM payment *claims* (not verified): enough to find its
/// payment record before verification, where only an exact match of the whole payload counts.
pub fn claimed_authorization(payment: &PaymentPayload) -> Option<(Address, [u8; 32])> {
    let authorization = payment.payload.get("authorization")?;
    let from = parse_address(authorization.get("from")?.as_str()?)?;
    let nonce = parse_bytes32(authorization.get("nonce")?.as_str()?)?;
    Some((from, nonce))
}

/// Whether `accepted` equals our requirements as parsed JSON values (key order and
/// whitespace never matter; values must be exact).
pub fn matches_requirements(accepted: &Value, requirements: &PaymentRequirements) -> bool {
    serde_json::to_value(requirements).is_ok_and(|ours| &ours == accepted)
}

/// EIP-3009 `TransferWithAuthorization`, ABI-ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferWithAuthorization {
    /// Payer.
    pub from: Address,
    /// Recipient.
    pub to: Address,
    /// Amount (uint256, big-endian).
    pub value: [u8; 32],
    /// uint256, big-endian.
    pub valid_after: [u8; 32],
    /// uint256, big-endian.
    pub valid_before: [u8; 32],
    /// bytes32.
    pub nonce: [u8; 32],
}

impl TransferWithAuthorization {
    /// `hashStruct` of EIP-712: `keccak256(typeHash ‖ abi.encode(fields…))`.
    pub fn struct_hash(&self) -> [u8; 32] {
        keccak(&[
            &keccak(&[TRANSFER_TYPE.as_bytes()]),
            &pad_address(&self.from),
            &pad_address(&self.to),
            &self.value,
            &self.valid_after,
            &self.valid_before,
            &self.nonce,
        ])
    }
}

/// The EIP-712 domain separator of a token: name, version, chain id, verifying contract.
pub fn domain_separator(
    name: &str,
    version: &str,
    chain_id: u64,
    verifying_contract: &Address,
) -> [u8; 32] {
    let mut chain = [0u8; 32];
    chain[24..].copy_from_slice(&chain_id.to_be_bytes());
    keccak(&[
        &keccak(&[DOMAIN_TYPEHASH.as_bytes()]),
        &keccak(&[name.as_bytes()]),
        &keccak(&[version.as_bytes()]),
        &chain,
        &pad_address(verifying_contract),
    ])
}

/// `keccak256(0x19 0x01 ‖ domainSeparator ‖ structHash)` (EIP-712).
pub fn typed_data_digest(domain_separator: &[u8; 32], struct_hash: &[u8; 32]) -> [u8; 32] {
    keccak(&[&[0x19, 0x01], domain_separator, struct_hash])
}

/// Recovers the address that signed `digest` with a 65-byte `r ‖ s ‖ v` signature (`v` 27/28
/// or 0/1). High-`s` signatures are refused, as the USDC contract's `ecrecover` wrapper does
/// (EIP-2). `None` for anything else.
pub fn recover_signer(digest: &[u8; 32], signature: &[u8]) -> Option<Address> {
    let (rs, v) = match signature {
        [rs @ .., v] if rs.len() == 64 => (rs, *v),
        _ => return None,
    };
    let recovery = RecoveryId::from_byte(match v {
        27 | 28 => v - 27,
        0 | 1 => v,
        _ => return None,
    })?;
    let signature = Signature::from_slice(rs).ok()?;
    if signature.normalize_s().is_some() {
        return None;
    }
    let key = VerifyingKey::recover_from_prehash(digest, &signature, recovery).ok()?;
    Some(address_of(&key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eth::address_hex;
    use crate::payment::codec;
    use crate::payment::requirements::{PaymentTerms, BASE_MAINNET, BASE_MAINNET_USDC};
    use crate::payment::wire::Authorization;

    fn h32(s: &str) -> [u8; 32] {
        parse_bytes32(s).unwrap()
    }

    /// docs/payments.md "x402 v2 in practice", Base mainnet vector (hardhat key #0).
    fn mainnet_message() -> TransferWithAuthorization {
        TransferWithAuthorization {
            from: parse_address("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266").unwrap(),
            to: parse_address("0x70997970C51812dc3A010C7d01b50e0d17dc79C8").unwrap(),
            value: parse_uint256("10000").unwrap(),
            valid_after: parse_uint256("0").unwrap(),
            valid_before: parse_uint256("1900000000").unwrap(),
            nonce: h32("0x0000000000000000000000000000000000000000000000000000000000000001"),
        }
    }

    const MAINNET_SIGNATURE: &str = "0x5aa89bcef8688e5b8165d4364867fb2d85d3d200be38af913c77cb6a4723d1294be75619bae8785dd3d9a3f509e63a66e11f93ff78d5dccef89c2e68b14411621b";

    #[test]
    fn base_mainnet_vector_hashes_and_recovers() {
        let usdc = parse_address(BASE_MAINNET_USDC).unwrap();
        let domain = domain_separator("USD Coin", "2", 8453, &usdc);
        assert_eq!(
            domain,
            h32("0x02fa7265e7c5d81118673727957699e4d68f74cd74b7db77da710fe8a2c7834f")
        );
        let message = mainnet_message();
        assert_eq!(
            message.struct_hash(),
            h32("0x36046bbc9104db03656d87cab642930781baa9f3f64c278f432a6670ad9479c9")
        );
        let digest = typed_data_digest(&domain, &message.struct_hash());
        assert_eq!(
            digest,
            h32("0xfcd74b7a58f1783fc15f571d940e502e6440c7eeae996ede28fdf00c5a2bc96f")
        );
        let signature = parse_hex(MAINNET_SIGNATURE).unwrap();
        assert_eq!(recover_signer(&digest, &signature), Some(message.from));
        assert_eq!(
            address_hex(&message.from),
            "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
        );
    }

    #[test]
    fn another_domain_recovers_another_address() {
        let usdc = parse_address(BASE_MAINNET_USDC).unwrap();
        let message = mainnet_message();
        let signature = parse_hex(MAINNET_SIGNATURE).unwrap();
        for domain in [
            domain_separator("USDC", "2", 8453, &usdc),
            domain_separator("USD Coin", "2", 84532, &usdc),
        ] {
            let recovered = recover_signer(
                &typed_data_digest(&domain, &message.struct_hash()),
                &signature,
            );
            assert_ne!(recovered, Some(message.from));
        }
    }

    #[test]
    fn base_sepolia_spec_vector_hashes() {
        // docs/payments.md "x402 v2 in practice": the spec's example payload (Base Sepolia, domain name "USDC").
        let usdc = parse_address("0x036CbD53842c5426634e7929541eC2318f3dCF7e").unwrap();
        let domain = domain_separator("USDC", "2", 84532, &usdc);
        assert_eq!(
            domain,
            h32("0x71f17a3b2ff373b803d70a5a07c046c1a2bc8e89c09ef722fcb047abe94c9818")
        );
        let message = TransferWithAuthorization {
            from: parse_address("0x857b06519E91e3A54538791bDbb0E22373e36b66").unwrap(),
            to: parse_address("0x209693Bc6afc0C5328bA36FaF03C514EF312287C").unwrap(),
            value: parse_uint256("10000").unwrap(),
            valid_after: parse_uint256("1740672089").unwrap(),
            valid_before: parse_uint256("1740672154").unwrap(),
            nonce: h32("0xf3746613c2d920b5fdabc0856f2aeb2d4f88ee6037b8cc5d04a71a4462f13480"),
        };
        assert_eq!(
            message.struct_hash(),
            h32("0x49ad644555c7bdf3ea4fc022a4940ae5589b230b1dde0065c5504fa19bbe39a4")
        );
        assert_eq!(
            typed_data_digest(&domain, &message.struct_hash()),
            h32("0xf256992871671abcb27ff92885a7afa46218724e5fc0bac35d050115aa1d22e6")
        );
    }

    fn terms() -> PaymentTerms {
        let mut terms = PaymentTerms::new(
            "https://api.example.com/v1/quote".into(),
            BASE_MAINNET,
            BASE_MAINNET_USDC,
            "USD Coin",
            "2",
            "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
            "10000".into(),
            60,
        );
        terms.resource.description = "Paid JSON API".into();
        terms
    }

    /// The official client's header for the vector (docs/payments.md "x402 v2 in practice").
    const SIGNATURE_HEADER: &str = "eyJ4NDAyVmVyc2lvbiI6MiwicGF5bG9hZCI6eyJhdXRob3JpemF0aW9uIjp7ImZyb20iOiIweGYzOUZkNmU1MWFhZDg4RjZGNGNlNmFCODgyNzI3OWNmZkZiOTIyNjYiLCJ0byI6IjB4NzA5OTc5NzBDNTE4MTJkYzNBMDEwQzdkMDFiNTBlMGQxN2RjNzlDOCIsInZhbHVlIjoiMTAwMDAiLCJ2YWxpZEFmdGVyIjoiMCIsInZhbGlkQmVmb3JlIjoiMTkwMDAwMDAwMCIsIm5vbmNlIjoiMHgwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAxIn0sInNpZ25hdHVyZSI6IjB4NWFhODliY2VmODY4OGU1YjgxNjVkNDM2NDg2N2ZiMmQ4NWQzZDIwMGJlMzhhZjkxM2M3N2NiNmE0NzIzZDEyOTRiZTc1NjE5YmFlODc4NWRkM2Q5YTNmNTA5ZTYzYTY2ZTExZjkzZmY3OGQ1ZGNjZWY4OWMyZTY4YjE0NDExNjIxYiJ9LCJyZXNvdXJjZSI6eyJ1cmwiOiJodHRwczovL2FwaS5leGFtcGxlLmNvbS92MS9xdW90ZSIsImRlc2NyaXB0aW9uIjoiUGFpZCBKU09OIEFQSSIsIm1pbWVUeXBlIjoiYXBwbGljYXRpb24vanNvbiJ9LCJhY2NlcHRlZCI6eyJzY2hlbWUiOiJleGFjdCIsIm5ldHdvcmsiOiJlaXAxNTU6ODQ1MyIsImFtb3VudCI6IjEwMDAwIiwiYXNzZXQiOiIweDgzMzU4OWZDRDZlRGI2RTA4ZjRjN0MzMkQ0ZjcxYjU0YmRBMDI5MTMiLCJwYXlUbyI6IjB4NzA5OTc5NzBDNTE4MTJkYzNBMDEwQzdkMDFiNTBlMGQxN2RjNzlDOCIsIm1heFRpbWVvdXRTZWNvbmRzIjo2MCwiZXh0cmEiOnsibmFtZSI6IlVTRCBDb2luIiwidmVyc2lvbiI6IjIifX19";

    #[test]
    fn official_client_header_decodes_and_verifies() {
        let payment: PaymentPayload = codec::decode(SIGNATURE_HEADER).unwrap();
        let verified = verify_locally(&payment, &terms().requirements, 1_899_999_900).unwrap();
        assert_eq!(
            address_hex(&verified.payer),
            "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
        );
        assert_eq!(verified.valid_before, 1_900_000_000);
        assert_eq!(verified.nonce[31], 1);
        // Without padding, the same.
        let unpadded: PaymentPayload =
            codec::decode(SIGNATURE_HEADER.trim_end_matches('=')).unwrap();
        assert_eq!(unpadded, payment);
    }

    #[test]
    fn each_local_check_refuses() {
        let payment: PaymentPayload = codec::decode(SIGNATURE_HEADER).unwrap();
        let requirements = terms().requirements;
        // 100 s before the vector's validBefore (1 900 000 000; maxTimeoutSeconds 60).
        let now = 1_900_000_000 - 100;
        let with_auth = |edit: &dyn Fn(&mut Authorization)| {
            let mut p = payment.clone();
            let mut payload: ExactEvmPayload = serde_json::from_value(p.payload.clone()).unwrap();
            edit(&mut payload.authorization);
            p.payload = serde_json::to_value(payload).unwrap();
            p
        };
        // Any change to the signed message breaks the signature first.
        let p = with_auth(&|a| a.value = "10001".into());
        assert_eq!(
            verify_locally(&p, &requirements, now),
            Err(PaymentError::InvalidSignature)
        );
        let p = with_auth(&|a| a.nonce = "0x01".into());
        assert_eq!(
            verify_locally(&p, &requirements, now),
            Err(PaymentError::Malformed("authorization.nonce"))
        );
        // Requirements that differ from `accepted` do not match.
        let mut other = requirements.clone();
        other.amount = "20000".into();
        assert_eq!(
            verify_locally(&payment, &other, now),
            Err(PaymentError::NoMatchingRequirements)
        );
        // Time window: validBefore within [now + 60 s, now + maxTimeoutSeconds (60) + 60 s].
        assert_eq!(MIN_VALIDITY_SECONDS, 60);
        assert_eq!(
            verify_locally(&payment, &requirements, 1_900_000_000 - 59),
            Err(PaymentError::Expired)
        );
        assert!(verify_locally(&payment, &requirements, 1_900_000_000 - 60).is_ok());
        assert!(verify_locally(&payment, &requirements, 1_900_000_000 - 120).is_ok());
        assert_eq!(
            verify_locally(&payment, &requirements, 1_900_000_000 - 121),
            Err(PaymentError::ValidTooLong)
        );
        assert_eq!(
            verify_locally(&payment, &requirements, 1_800_000_000),
            Err(PaymentError::ValidTooLong),
            "three years ahead"
        );
        assert!(PaymentError::Expired.reason().contains("60 s"));
        // Version.
        let mut v1 = payment.clone();
        v1.x402_version = 1;
        assert_eq!(
            verify_locally(&v1, &requirements, now),
            Err(PaymentError::UnsupportedVersion(1))
        );
        // Key order in `accepted` does not matter.
        let mut reordered = payment.clone();
        reordered.accepted = serde_json::from_str(r#"{"extra":{"version":"2","name":"USD Coin"},"maxTimeoutSeconds":60,"payTo":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","amount":"10000","network":"eip155:8453","scheme":"exact"}"#).unwrap();
        assert!(verify_locally(&reordered, &requirements, now).is_ok());
    }

    /// docs/payments.md "x402 v2 in practice": the payload the official TS client (@x402/fetch 2.27) sent to a
    /// loopback server, as captured; and §7.2: the Python client's key order.
    const TS_CLIENT_PAYLOAD: &str = r#"{"x402Version":2,
 "payload":{"authorization":{"from":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","to":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","value":"10000","validAfter":"0","validBefore":"1795314712","nonce":"0x94e320976d5e52aeeab0bad07c6e4b36f6cd117d06cbd6c5cc1a68cd25794985"},
            "signature":"0xbcb7411588b6e00a07ac21cc3cc3108072ef6bf4a63c656d0ebefa27233fb987202602d9763dfa3f4f42110c87630f5ffdf4e66abf5d268ee88c21bbb1f921101c"},
 "resource":{"url":"http://127.0.0.1:4021/api/data?x=1","description":"Paid JSON API","mimeType":"application/json"},
 "accepted":{"scheme":"exact","network":"eip155:8453","amount":"10000","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","payTo":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","maxTimeoutSeconds":60,"extra":{"name":"USD Coin","version":"2"}}}"#;

    #[test]
    fn captured_official_client_payloads_verify() {
        let header = base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            TS_CLIENT_PAYLOAD,
        );
        let payment: PaymentPayload = codec::decode(&header).unwrap();
        let verified = verify_locally(&payment, &terms().requirements, 1_795_314_652).unwrap();
        assert_eq!(
            address_hex(&verified.payer),
            "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
        );
        // The Python client's order: payload, accepted, resource; asset before amount.
        let python = r#"{"x402Version":2,"payload":{"signature":"0xbcb7411588b6e00a07ac21cc3cc3108072ef6bf4a63c656d0ebefa27233fb987202602d9763dfa3f4f42110c87630f5ffdf4e66abf5d268ee88c21bbb1f921101c","authorization":{"nonce":"0x94e320976d5e52aeeab0bad07c6e4b36f6cd117d06cbd6c5cc1a68cd25794985","validBefore":"1795314712","validAfter":"0","value":"10000","to":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","from":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}},"accepted":{"scheme":"exact","network":"eip155:8453","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","amount":"10000","payTo":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","maxTimeoutSeconds":60,"extra":{"version":"2","name":"USD Coin"}},"resource":{"url":"http://127.0.0.1:4021/api/py"}}"#;
        let header = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, python);
        let payment: PaymentPayload = codec::decode(&header).unwrap();
        assert!(verify_locally(&payment, &terms().requirements, 1_795_314_652).is_ok());
        // Less than 45 s before validBefore it is refused.
        assert_eq!(
            verify_locally(&payment, &terms().requirements, 1_795_314_710),
            Err(PaymentError::Expired)
        );
    }

    #[test]
    fn signature_edge_cases() {
        let digest = [7u8; 32];
        assert_eq!(recover_signer(&digest, &[0u8; 64]), None);
        assert_eq!(recover_signer(&digest, &[0u8; 66]), None);
        let mut sig = parse_hex(MAINNET_SIGNATURE).unwrap();
        sig[64] = 29;
        assert_eq!(recover_signer(&digest, &sig), None);
        // High-s twin of a valid signature is refused (EIP-2).
        let usdc = parse_address(BASE_MAINNET_USDC).unwrap();
        let message = mainnet_message();
        let real = typed_data_digest(
            &domain_separator("USD Coin", "2", 8453, &usdc),
            &message.struct_hash(),
        );
        let sig = parse_hex(MAINNET_SIGNATURE).unwrap();
        let low = Signature::from_slice(&sig[..64]).unwrap();
        let (r, s) = low.split_scalars();
        let high = Signature::from_scalars(r, -*s).unwrap();
        let mut high_bytes = high.to_bytes().to_vec();
        high_bytes.push(28);
        assert_eq!(recover_signer(&real, &high_bytes), None);
    }
}
