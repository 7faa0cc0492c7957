//! Facilitator requests and replies (x402-notes §4): `POST {facilitator}/verify` and
//! `POST {facilitator}/settle` carry `{x402Version, paymentPayload, paymentRequirements}`;
//! replies are read from 2xx and non-2xx responses alike (facilitators disagree on statuses),
//! and their reason strings are passed through opaque.

use serde::Serialize;

use crate::payment::wire::{
    PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse, X402_VERSION,
};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FacilitatorRequest<'a> {
    x402_version: u32,
    payment_payload: &'a PaymentPayload,
    payment_requirements: &'a PaymentRequirements,
}

/// The JSON body of `/verify` and `/settle` (the same for both).
pub fn request_body(payment: &PaymentPayload, requirements: &PaymentRequirements) -> Vec<u8> {
    serde_json::to_vec(&FacilitatorRequest {
        x402_version: X402_VERSION,
        payment_payload: payment,
        payment_requirements: requirements,
    })
    .unwrap_or_default()
}

/// What a facilitator said, or that it said nothing usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply<T> {
    /// A well-formed answer (from any HTTP status).
    Answer(T),
    /// Not the expected JSON: the facilitator is treated as unavailable (decisions.md: 503,
    /// no result, the authorization stays consumed).
    Garbage,
}

/// Reads a `/verify` reply body (any status).
pub fn parse_verify(body: &[u8]) -> Reply<VerifyResponse> {
    serde_json::from_slice(body).map_or(Reply::Garbage, Reply::Answer)
}

/// Reads a `/settle` reply body (any status); a missing `transaction` is `""`.
pub fn parse_settle(body: &[u8]) -> Reply<SettleResponse> {
    serde_json::from_slice(body).map_or(Reply::Garbage, Reply::Answer)
}

/// The `errorReason` of the reference facilitator when it broadcast the transfer but did not
/// see it confirmed in its wait (`@x402/evm` 2.27; the answer carries the `transaction`).
pub const SETTLEMENT_PENDING: &str = "settlement_pending";

/// What one `/settle` call means for the money (decisions.md "Money safety").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettleOutcome {
    /// `success: true`: the transfer is done.
    Settled(SettleResponse),
    /// `success: false` with any reason but `settlement_pending`: no money moved.
    Refused(SettleResponse),
    /// `settlement_pending`, a timeout, or garbage: the money may move. Carries the
    /// facilitator's answer when there was one.
    Unknown(Option<SettleResponse>),
}

impl SettleOutcome {
    /// Classifies a `/settle` reply (`None`: no reply at all, e.g. a timeout).
    pub fn of(reply: Option<Reply<SettleResponse>>) -> SettleOutcome {
        match reply {
            Some(Reply::Answer(answer)) if answer.success => SettleOutcome::Settled(answer),
            Some(Reply::Answer(answer))
                if answer.error_reason.as_deref() == Some(SETTLEMENT_PENDING) =>
            {
                SettleOutcome::Unknown(Some(answer))
            }
            Some(Reply::Answer(answer)) => SettleOutcome::Refused(answer),
            Some(Reply::Garbage) | None => SettleOutcome::Unknown(None),
        }
    }

    /// The log word of the audit line: `settled`, `refused` or `unknown`.
    pub fn word(&self) -> &'static str {
        match self {
            SettleOutcome::Settled(_) => "settled",
            SettleOutcome::Refused(_) => "refused",
            SettleOutcome::Unknown(_) => "unknown",
        }
    }
}

/// Whether a refused settlement says the authorization was already used (the EIP-3009 nonce is
/// spent on chain). After an earlier unknown outcome for the same authorization this means our
/// own transfer went through: an authorization can only move money to its `to`, our `payTo`
/// (decisions.md "Money safety"). Reason strings of the reference facilitator
/// (`invalid_exact_evm_nonce_already_used`) and USDC's revert text ("authorization is used").
pub fn reports_already_used(answer: &SettleResponse) -> bool {
    let reason = answer.error_reason.as_deref().unwrap_or("");
    let message = answer.error_message.as_deref().unwrap_or("");
    reason.contains("nonce_already_used")
        || reason.contains("authorization_already_used")
        || message.contains("authorization is used")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_from_ts_and_x402_rs_shapes() {
        assert_eq!(
            parse_verify(br#"{"isValid":true,"payer":"0xf39F"}"#),
            Reply::Answer(VerifyResponse {
                is_valid: true,
                invalid_reason: None,
                invalid_message: None,
                payer: Some("0xf39F".into())
            })
        );
        let Reply::Answer(refused) = parse_verify(
            br#"{"isValid":false,"invalidReason":"invalid_signature","invalidReasonDetails":"x"}"#,
        ) else {
            panic!("a refusal is an answer");
        };
        assert_eq!(refused.invalid_reason.as_deref(), Some("invalid_signature"));
        let Reply::Answer(failed) =
            parse_settle(br#"{"success":false,"errorReason":"insufficient_funds","network":""}"#)
        else {
            panic!("a failed settlement is an answer");
        };
        assert_eq!((failed.success, failed.transaction.as_str()), (false, ""));
        assert_eq!(
            parse_settle(b"<html>502 Bad Gateway</html>"),
            Reply::Garbage
        );
        assert_eq!(parse_verify(b"{}"), Reply::Garbage);
    }

    #[test]
    fn settle_outcomes() {
        let pending = br#"{"success":false,"errorReason":"settlement_pending","transaction":"0xfeed","network":"eip155:8453"}"#;
        let SettleOutcome::Unknown(Some(answer)) = SettleOutcome::of(Some(parse_settle(pending)))
        else {
            panic!("pending is unknown");
        };
        assert_eq!(answer.transaction, "0xfeed");
        assert_eq!(
            SettleOutcome::of(Some(parse_settle(b"<html>"))),
            SettleOutcome::Unknown(None)
        );
        assert_eq!(SettleOutcome::of(None), SettleOutcome::Unknown(None));
        assert_eq!(
            SettleOutcome::of(Some(parse_settle(
                br#"{"success":true,"transaction":"0x1"}"#
            )))
            .word(),
            "settled"
        );
        let used = br#"{"success":false,"errorReason":"invalid_exact_evm_nonce_already_used"}"#;
        let SettleOutcome::Refused(answer) = SettleOutcome::of(Some(parse_settle(used))) else {
            panic!("a plain refusal");
        };
        assert!(reports_already_used(&answer));
        let funds = br#"{"success":false,"errorReason":"insufficient_funds"}"#;
        let SettleOutcome::Refused(answer) = SettleOutcome::of(Some(parse_settle(funds))) else {
            panic!("a plain refusal");
        };
        assert!(!reports_already_used(&answer));
    }

    #[test]
    fn request_body_shape() {
        let payment: PaymentPayload =
            serde_json::from_str(r#"{"x402Version":2,"accepted":{"a":1},"payload":{"b":2}}"#)
                .unwrap();
        let requirements = crate::payment::requirements::PaymentTerms::new(
            "https://x/api".into(),
            "eip155:8453",
            "0xA",
            "USD Coin",
            "2",
            "0xB",
            "10000".into(),
            120,
        )
        .requirements;
        let body: serde_json::Value =
            serde_json::from_slice(&request_body(&payment, &requirements)).unwrap();
        assert_eq!(body["x402Version"], 2);
        assert_eq!(body["paymentPayload"]["accepted"]["a"], 1);
        assert_eq!(body["paymentRequirements"]["payTo"], "0xB");
        assert_eq!(body["paymentRequirements"]["extra"]["name"], "USD Coin");
    }
}
