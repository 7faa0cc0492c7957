//! The `PAYMENT-*` header codec (docs/payments.md "x402 v2 in practice"): compact UTF-8 JSON in standard base64 with
//! `=` padding; decoding also accepts missing padding, never the URL-safe alphabet.

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Longest header value decoded, in bytes (the official client's is ~1.4 KB).
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// Why a header value could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderError {
    /// Not standard base64.
    NotBase64,
    /// Decoded, but not the expected JSON.
    NotJson(String),
    /// Longer than [`MAX_HEADER_BYTES`].
    TooLong,
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotBase64 => write!(f, "payment header is not base64"),
            Self::NotJson(detail) => write!(f, "payment header is not valid JSON: {detail}"),
            Self::TooLong => write!(f, "payment header is too long"),
        }
    }
}

impl std::error::Error for HeaderError {}

/// Encodes `value` as a header value: compact JSON, standard padded base64.
pub fn encode<T: Serialize>(value: &T) -> String {
    // Serialising these plain structs cannot fail (no maps with non-string keys).
    let json = serde_json::to_vec(value).unwrap_or_default();
    STANDARD.encode(json)
}

/// Decodes a header value into `T`.
///
/// # Errors
/// [`HeaderError`] when the value is too long, not base64 or not the expected JSON.
pub fn decode<T: DeserializeOwned>(value: &str) -> Result<T, HeaderError> {
    let value = value.trim();
    if value.len() > MAX_HEADER_BYTES {
        return Err(HeaderError::TooLong);
    }
    let lenient = GeneralPurpose::new(
        &alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let bytes = lenient.decode(value).map_err(|_| HeaderError::NotBase64)?;
    serde_json::from_slice(&bytes).map_err(|e| HeaderError::NotJson(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payment::wire::{
        Eip712Extra, PaymentRequired, PaymentRequirements, ResourceInfo, SettleResponse,
    };
    use proptest::prelude::*;

    #[test]
    fn refuses_non_base64_non_json_and_oversized() {
        assert_eq!(
            decode::<SettleResponse>("not base64!"),
            Err(HeaderError::NotBase64)
        );
        assert_eq!(
            decode::<SettleResponse>("eyJ4IjoxfQ-_"),
            Err(HeaderError::NotBase64)
        );
        assert!(matches!(
            decode::<SettleResponse>("bm90IGpzb24="),
            Err(HeaderError::NotJson(_))
        ));
        assert_eq!(
            decode::<SettleResponse>(&"A".repeat(MAX_HEADER_BYTES + 4)),
            Err(HeaderError::TooLong)
        );
    }

    #[test]
    fn decodes_the_reference_payment_response() {
        let response: SettleResponse = decode("eyJzdWNjZXNzIjp0cnVlLCJ0cmFuc2FjdGlvbiI6IjB4YWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYmFiYWJhYiIsIm5ldHdvcmsiOiJlaXAxNTU6ODQ1MyIsInBheWVyIjoiMHhmMzlGZDZlNTFhYWQ4OEY2RjRjZTZhQjg4MjcyNzljZmZGYjkyMjY2In0=").unwrap();
        assert!(response.success);
        assert_eq!(response.network, "eip155:8453");
        assert_eq!(
            response.payer.as_deref(),
            Some("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
        );
    }

    proptest! {
        #[test]
        fn payment_required_round_trips(url in "\\PC{0,40}", error in proptest::option::of("\\PC{0,40}"), amount in "[0-9]{1,12}", timeout in any::<u64>()) {
            let value = PaymentRequired {
                x402_version: 2,
                error,
                resource: ResourceInfo { url, description: "d".into(), mime_type: "application/json".into(), service_name: None, tags: None, icon_url: None },
                accepts: vec![PaymentRequirements {
                    scheme: "exact".into(), network: "eip155:8453".into(), amount, asset: "0xA".into(),
                    pay_to: "0xB".into(), max_timeout_seconds: timeout,
                    extra: Eip712Extra { name: "USD Coin".into(), version: "2".into() },
                }],
                extensions: None,
            };
            let header = encode(&value);
            prop_assert!(header.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'='));
            prop_assert_eq!(decode::<PaymentRequired>(&header), Ok(value));
        }

        #[test]
        fn decoding_arbitrary_text_never_panics(text in "\\PC{0,200}") {
            let _ = decode::<crate::payment::wire::PaymentPayload>(&text);
        }
    }
}
