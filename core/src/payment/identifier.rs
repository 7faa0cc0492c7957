//! The x402 `payment-identifier` extension (x402 spec `specs/extensions/payment_identifier.md`;
//! docs/payments.md "x402 v2 in practice"; docs/payments.md): the service advertises it with
//! `required: false`; a client may put an idempotency id (16–128 characters of
//! `[A-Za-z0-9_-]`) into `extensions["payment-identifier"].info.id` of its `PaymentPayload`
//! and reuse it on retries. Same id + same payload → the kept response; same id + different
//! payload → 409.

use serde_json::{json, Value};

use crate::payment::wire::PaymentPayload;

/// The extension's key in `extensions`.
pub const EXTENSION: &str = "payment-identifier";
/// Shortest id, in characters.
pub const MIN_ID_CHARS: usize = 16;
/// Longest id, in characters.
pub const MAX_ID_CHARS: usize = 128;

/// The declaration put into the 402's `extensions` and `/.well-known/x402.json`: the same
/// object as `declarePaymentIdentifierExtension(false)` of `@x402/extensions` 2.27.
pub fn declaration() -> Value {
    json!({
        "info": {"required": false},
        "schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "required": {"type": "boolean"},
                "id": {"type": "string", "minLength": MIN_ID_CHARS, "maxLength": MAX_ID_CHARS,
                       "pattern": "^[a-zA-Z0-9_-]+$"}
            },
            "required": ["required"]
        }
    })
}

/// An id that is present but malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidId;

impl std::fmt::Display for InvalidId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid payment identifier: the payment-identifier id must be {MIN_ID_CHARS}-{MAX_ID_CHARS} characters of A-Z, a-z, 0-9, '-' and '_'"
        )
    }
}

impl std::error::Error for InvalidId {}

/// The payment's id, if it carries one.
///
/// # Errors
/// [`InvalidId`] when `info.id` is present but not a string of the allowed form.
pub fn payment_id(payment: &PaymentPayload) -> Result<Option<&str>, InvalidId> {
    let Some(id) = payment
        .extensions
        .as_ref()
        .and_then(|extensions| extensions.get(EXTENSION))
        .and_then(|extension| extension.get("info"))
        .and_then(|info| info.get("id"))
    else {
        return Ok(None);
    };
    match id.as_str() {
        Some(id) if is_valid_id(id) => Ok(Some(id)),
        _ => Err(InvalidId),
    }
}

/// Whether `id` has the form the extension allows.
pub fn is_valid_id(id: &str) -> bool {
    (MIN_ID_CHARS..=MAX_ID_CHARS).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payment(extensions: Option<Value>) -> PaymentPayload {
        PaymentPayload {
            x402_version: 2,
            resource: None,
            accepted: json!({}),
            payload: json!({}),
            extensions,
        }
    }

    #[test]
    fn ids_are_read_and_checked() {
        assert_eq!(payment_id(&payment(None)), Ok(None));
        let mut declared = json!({ EXTENSION: declaration(), "bazaar": {} });
        assert_eq!(payment_id(&payment(Some(declared.clone()))), Ok(None));
        declared[EXTENSION]["info"]["id"] = json!("pay_7d5d747be160e280504c099d984bcfe0");
        assert_eq!(
            payment_id(&payment(Some(declared.clone()))),
            Ok(Some("pay_7d5d747be160e280504c099d984bcfe0"))
        );
        for bad in [
            json!("short_id"),
            json!("a".repeat(129)),
            json!("pay_7d5d747be160e280!"),
            json!("pay_7d5d747be160é280"),
            json!(12345678901234567_u64),
        ] {
            declared[EXTENSION]["info"]["id"] = bad.clone();
            assert_eq!(
                payment_id(&payment(Some(declared.clone()))),
                Err(InvalidId),
                "{bad}"
            );
        }
        assert!(is_valid_id(&"a".repeat(16)) && is_valid_id(&"-".repeat(128)));
    }
}
