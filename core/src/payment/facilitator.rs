//! Facilitator requests and replies (docs/payments.md "x402 v2 in practice"): `POST {facilitator}/verify` and
//! `POST {facilitator}/settle` carry `{x402Version, paymentPayload, paymentRequirements}`;
//! replies are read from 2xx and non-2xx responses alike (facilitators disagree on statuses),
//! and their reason strings are passed through opaque.

use serde::{Deserialize, Serialize};

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
    /// Not the expected JSON: the facilitator is treated as unavailable (503, no result; after
    /// `/verify` the reservation is released, after `/settle` the outcome is unknown:
    /// docs/payments.md).
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
/// Unknown, like every reason not in [`PRE_BROADCAST_REASONS`].
pub const SETTLEMENT_PENDING: &str = "settlement_pending";

/// `errorReason`s that a facilitator gives *before* it broadcasts a transfer: the checks of
/// `/verify`, re-run by `/settle` (x402 v2 spec §9; the TS/Go/Python reference's
/// `invalid_exact_evm_*` reasons; x402-rs's `ErrorReason`). Only these make a `/settle` answer
/// a refusal (docs/payments.md, "What is a refusal"). Reasons given after a broadcast
/// (`invalid_transaction_state`, `invalid_exact_evm_transaction_failed`,
/// `invalid_exact_evm_transfer_event_mismatch`, `unexpected_settle_error`, …) and unknown ones
/// are not in the list: the money may have moved. "Nonce already used" is a refusal too, read
/// by [`reports_already_used`].
pub const PRE_BROADCAST_REASONS: &[&str] = &[
    // x402 v2 spec §9
    "insufficient_funds",
    "invalid_exact_evm_payload_authorization_valid_after",
    "invalid_exact_evm_payload_authorization_valid_before",
    "invalid_exact_evm_payload_authorization_value_mismatch",
    "invalid_exact_evm_payload_signature",
    "invalid_exact_evm_payload_recipient_mismatch",
    "invalid_network",
    "invalid_payload",
    "invalid_payment_requirements",
    "invalid_scheme",
    "unsupported_scheme",
    "invalid_x402_version",
    // The TS/Go/Python reference (`exact/facilitator/errors`)
    "invalid_exact_evm_scheme",
    "invalid_exact_evm_missing_eip712_domain",
    "invalid_exact_evm_network_mismatch",
    "eip6492_factory_not_allowed",
    "invalid_exact_evm_signature",
    "invalid_exact_evm_failed_to_parse_signature",
    "invalid_exact_evm_recipient_mismatch",
    "invalid_exact_evm_authorization_value",
    "asset_not_deployed_contract",
    "invalid_exact_evm_eip3009_not_supported",
    "invalid_exact_evm_token_name_mismatch",
    "invalid_exact_evm_token_version_mismatch",
    "invalid_exact_evm_insufficient_balance",
    "invalid_exact_evm_transaction_simulation_failed",
    "invalid_exact_evm_nonce_already_used",
    "unsupported_payload_type",
    // x402-rs
    "invalid_format",
    "invalid_payment_amount",
    "invalid_payment_early",
    "invalid_payment_expired",
    "chain_id_mismatch",
    "recipient_mismatch",
    "asset_mismatch",
    "accepted_requirements_mismatch",
    "invalid_signature",
    "transaction_simulation",
    "permit2_allowance_required",
    "unsupported_chain",
];

/// What one `/settle` call means for the money (docs/payments.md, "What is a refusal").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettleOutcome {
    /// `success: true`: the transfer is done.
    Settled(SettleResponse),
    /// A refusal given before any broadcast: HTTP 200 or 4xx, `success: false`, no
    /// `transaction`, and a reason in [`PRE_BROADCAST_REASONS`]. No money moved.
    Refused(SettleResponse),
    /// Anything else (a 5xx whatever its body, a transaction hash, an unknown reason,
    /// `settlement_pending`, garbage, a timeout, a dropped connection): the money may move.
    /// Carries the facilitator's answer when there was one.
    Unknown(Option<SettleResponse>),
}

impl SettleOutcome {
    /// Classifies a `/settle` reply: its HTTP status and body (`None`: no reply at all, e.g.
    /// a timeout or a dropped connection).
    pub fn of(reply: Option<(u16, Reply<SettleResponse>)>) -> SettleOutcome {
        let Some((status, Reply::Answer(answer))) = reply else {
            return SettleOutcome::Unknown(None);
        };
        if answer.success && (200..300).contains(&status) {
            return SettleOutcome::Settled(answer);
        }
        let refusal_status = status == 200 || (400..500).contains(&status);
        let reason = answer.error_reason.as_deref().unwrap_or("");
        if refusal_status
            && !answer.success
            && answer.transaction.is_empty()
            && (PRE_BROADCAST_REASONS.contains(&reason) || reports_already_used(&answer))
        {
            SettleOutcome::Refused(answer)
        } else {
            SettleOutcome::Unknown(Some(answer))
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

/// One entry of a facilitator's `GET /supported` answer (x402 v2 spec, facilitator API:
/// `{"kinds": [{"x402Version": 2, "scheme": "exact", "network": "eip155:8453"}, …], …}`).
/// Other fields (`extra`, `extensions`, `signers`) are ignored.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SupportedKind {
    x402_version: u64,
    scheme: String,
    network: String,
}

#[derive(Debug, Deserialize)]
struct Supported {
    kinds: Vec<SupportedKind>,
}

/// Reads a `GET /supported` body: `Ok` when it lists x402 version 2, scheme `exact` and
/// `network` (a CAIP-2 id such as `eip155:8453`), the kind this service's PaymentRequirements
/// ask for (docs/operations.md, "Readiness").
///
/// # Errors
/// The readiness problem, worded for an operator: "facilitator does not support exact on
/// eip155:8453 (it lists …)", or that the answer is not a `/supported` document.
pub fn check_supported(body: &[u8], network: &str) -> Result<(), String> {
    let supported: Supported = serde_json::from_slice(body)
        .map_err(|e| format!("facilitator /supported answer is not a list of kinds ({e})"))?;
    let wanted =
        |k: &SupportedKind| k.x402_version == 2 && k.scheme == "exact" && k.network == network;
    if supported.kinds.iter().any(wanted) {
        return Ok(());
    }
    let listed: Vec<String> = supported
        .kinds
        .iter()
        .take(8)
        .map(|k| format!("v{} {} on {}", k.x402_version, k.scheme, k.network))
        .collect();
    Err(format!(
        "facilitator does not support exact on {network} (x402 v2); it lists: {}",
        if listed.is_empty() {
            "nothing".to_string()
        } else {
            listed.join(", ")
        }
    ))
}

/// Whether a refused settlement says the authorization was already used (the EIP-3009 nonce is
/// spent on chain). After an earlier unknown outcome for the same authorization this means our
/// own transfer went through: an authorization can only move money to its `to`, our `payTo`
/// (docs/payments.md). Reason strings of the reference facilitator
/// (`invalid_exact_evm_nonce_already_used`) and USDC's revert text ("authorization is used").
pub fn reports_already_used(answer: &SettleResponse) -> bool {
    says_already_used(
        answer.error_reason.as_deref(),
        answer.error_message.as_deref(),
    )
}

/// Whether a refused `/verify` says the authorization was already used: the reference
/// facilitator's `invalid_exact_evm_nonce_already_used` (it reads `authorizationState` through
/// Multicall3, as on Base), or, on a chain without Multicall3, its simulation of the transfer
/// reverting with USDC's "FiatTokenV2: authorization is used or canceled"
/// (`invalid_exact_evm_transaction_simulation_failed` with that `invalidMessage`). Such a
/// refusal is never a 402 by itself (docs/payments.md, "A used authorization with no record").
pub fn verify_reports_already_used(answer: &VerifyResponse) -> bool {
    !answer.is_valid
        && says_already_used(
            answer.invalid_reason.as_deref(),
            answer.invalid_message.as_deref(),
        )
}

fn says_already_used(reason: Option<&str>, message: Option<&str>) -> bool {
    let (reason, message) = (reason.unwrap_or(""), message.unwrap_or(""));
    reason.contains("nonce_already_used")
        || reason.contains("authorization_already_used")
        || message.contains("authorization is used")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supported_must_list_v2_exact_on_the_configured_network() {
        let reference = br#"{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:8453"}],"extensions":[],"signers":{"eip155:*":["0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"]}}"#;
        assert_eq!(check_supported(reference, "eip155:8453"), Ok(()));
        let problem = check_supported(reference, "eip155:84532").unwrap_err();
        assert!(
            problem.starts_with("facilitator does not support exact on eip155:84532"),
            "{problem}"
        );
        assert!(problem.contains("v2 exact on eip155:8453"), "{problem}");
        let v1 = br#"{"kinds":[{"x402Version":1,"scheme":"exact","network":"eip155:8453"}]}"#;
        assert!(check_supported(v1, "eip155:8453").is_err());
        let other = br#"{"kinds":[{"x402Version":2,"scheme":"upto","network":"eip155:8453"}]}"#;
        assert!(check_supported(other, "eip155:8453").is_err());
        let garbage = check_supported(b"<html>", "eip155:8453").unwrap_err();
        assert!(garbage.contains("not a list of kinds"), "{garbage}");
        let empty = check_supported(br#"{"kinds":[]}"#, "eip155:8453").unwrap_err();
        assert!(empty.ends_with("it lists: nothing"), "{empty}");
    }

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

    fn outcome(status: u16, body: &str) -> SettleOutcome {
        SettleOutcome::of(Some((status, parse_settle(body.as_bytes()))))
    }

    #[test]
    fn settle_outcomes() {
        let pending = r#"{"success":false,"errorReason":"settlement_pending","transaction":"0xfeed","network":"eip155:8453"}"#;
        let SettleOutcome::Unknown(Some(answer)) = outcome(200, pending) else {
            panic!("pending is unknown");
        };
        assert_eq!(answer.transaction, "0xfeed");
        assert_eq!(outcome(200, "<html>"), SettleOutcome::Unknown(None));
        assert_eq!(SettleOutcome::of(None), SettleOutcome::Unknown(None));
        assert_eq!(
            outcome(200, r#"{"success":true,"transaction":"0x1"}"#).word(),
            "settled"
        );
        let used = r#"{"success":false,"errorReason":"invalid_exact_evm_nonce_already_used"}"#;
        let SettleOutcome::Refused(answer) = outcome(200, used) else {
            panic!("a plain refusal");
        };
        assert!(reports_already_used(&answer));
        let funds = r#"{"success":false,"errorReason":"insufficient_funds"}"#;
        let SettleOutcome::Refused(answer) = outcome(400, funds) else {
            panic!("a plain refusal, from a 4xx too");
        };
        assert!(!reports_already_used(&answer));
    }

    #[test]
    fn verify_refusals_that_say_the_authorization_is_used() {
        let verify = |body: &str| match parse_verify(body.as_bytes()) {
            Reply::Answer(answer) => verify_reports_already_used(&answer),
            Reply::Garbage => panic!("parses: {body}"),
        };
        // The reference facilitator with Multicall3 (Base), and on a bare anvil.
        assert!(verify(
            r#"{"isValid":false,"invalidReason":"invalid_exact_evm_nonce_already_used"}"#
        ));
        assert!(verify(
            r#"{"isValid":false,"invalidReason":"invalid_exact_evm_transaction_simulation_failed","invalidMessage":"execution reverted: FiatTokenV2: authorization is used or canceled"}"#
        ));
        // A simulation that failed for another reason, any other refusal, and a valid answer.
        assert!(!verify(
            r#"{"isValid":false,"invalidReason":"invalid_exact_evm_transaction_simulation_failed","invalidMessage":"execution reverted: ERC20: transfer amount exceeds balance"}"#
        ));
        assert!(!verify(
            r#"{"isValid":false,"invalidReason":"insufficient_funds"}"#
        ));
        assert!(!verify(r#"{"isValid":true}"#));
    }

    #[test]
    fn only_a_pre_broadcast_refusal_with_a_refusal_status_and_no_transaction_is_a_refusal() {
        let funds = r#"{"success":false,"errorReason":"insufficient_funds","transaction":""}"#;
        assert_eq!(outcome(200, funds).word(), "refused");
        assert_eq!(outcome(422, funds).word(), "refused");
        // A 5xx is unknown whatever its body says (the transfer may have been broadcast
        // before the facilitator failed).
        assert_eq!(outcome(500, funds).word(), "unknown");
        assert_eq!(outcome(503, funds).word(), "unknown");
        let crashed =
            r#"{"success":false,"errorReason":"unexpected_settle_error","transaction":""}"#;
        assert_eq!(outcome(500, crashed).word(), "unknown");
        assert_eq!(
            outcome(200, crashed).word(),
            "unknown",
            "not a pre-broadcast reason"
        );
        // A transaction hash means a broadcast: whatever the reason, the money may move.
        let with_tx =
            r#"{"success":false,"errorReason":"insufficient_funds","transaction":"0xab"}"#;
        assert_eq!(outcome(200, with_tx).word(), "unknown");
        for after_broadcast in [
            "invalid_transaction_state",
            "invalid_exact_evm_transaction_failed",
            "invalid_exact_evm_transfer_event_mismatch",
            "some_reason_nobody_documented",
        ] {
            let body = format!(r#"{{"success":false,"errorReason":"{after_broadcast}"}}"#);
            assert_eq!(outcome(200, &body).word(), "unknown", "{after_broadcast}");
        }
        // A success from a non-2xx status is not taken as proof either.
        let odd = r#"{"success":true,"transaction":"0x1"}"#;
        assert_eq!(outcome(500, odd).word(), "unknown");
        // A redirect or other status outside 200 and 4xx is not a refusal.
        assert_eq!(outcome(302, funds).word(), "unknown");
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
