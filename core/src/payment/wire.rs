//! x402 v2 JSON shapes (docs/payments.md "x402 v2 in practice"), serialised camelCase exactly as the official clients
//! and facilitators expect, and read leniently (unknown fields ignored).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version this service speaks.
pub const X402_VERSION: u32 = 2;

/// `ResourceInfo`: what is being paid for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    /// The paid resource's public URL (`{PUBLIC_BASE_URL}/api/v1/extract-contact`).
    pub url: String,
    /// Human description.
    #[serde(default)]
    pub description: String,
    /// Media type of the paid response.
    #[serde(default)]
    pub mime_type: String,
    /// A short name for catalogues (Bazaar: at most 32 ASCII characters).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub service_name: Option<String>,
    /// Catalogue tags (Bazaar: at most 5).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tags: Option<Vec<String>>,
    /// An icon for catalogues (Bazaar), from `ICON_URL`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub icon_url: Option<String>,
}

/// The EIP-712 domain name and version of the asset (`extra` of an EVM requirement).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Eip712Extra {
    /// Domain name (`"USD Coin"` on Base mainnet, `"USDC"` on Base Sepolia).
    pub name: String,
    /// Domain version (`"2"`).
    pub version: String,
}

/// One `accepts` entry: how to pay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequirements {
    /// `"exact"`.
    pub scheme: String,
    /// CAIP-2 network, e.g. `"eip155:8453"`.
    pub network: String,
    /// Price in atomic units of the asset (USDC: 6 decimals), decimal string.
    pub amount: String,
    /// Token contract address.
    pub asset: String,
    /// Recipient address.
    pub pay_to: String,
    /// Seconds an authorization may stay valid (clients set `validBefore = now + this`).
    pub max_timeout_seconds: u64,
    /// EIP-712 domain name and version.
    pub extra: Eip712Extra,
}

/// The `PAYMENT-REQUIRED` content (and the 402 body).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequired {
    /// Always [`X402_VERSION`].
    pub x402_version: u32,
    /// Why payment is (still) required.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    /// The paid resource.
    pub resource: ResourceInfo,
    /// Accepted ways to pay.
    pub accepts: Vec<PaymentRequirements>,
    /// Extensions (`bazaar` discovery metadata).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub extensions: Option<Value>,
}

/// EIP-3009 `TransferWithAuthorization` fields, as decimal / hex strings on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Authorization {
    /// Payer address.
    pub from: String,
    /// Recipient address (must equal `payTo`).
    pub to: String,
    /// Atomic amount, decimal string (must equal `amount`).
    pub value: String,
    /// Unix seconds, decimal string.
    pub valid_after: String,
    /// Unix seconds, decimal string.
    pub valid_before: String,
    /// `0x` + 64 hex characters.
    pub nonce: String,
}

/// The `exact` EVM payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExactEvmPayload {
    /// `0x` + 130 hex characters (r ‖ s ‖ v) for externally owned accounts.
    pub signature: String,
    /// The signed authorization.
    pub authorization: Authorization,
}

/// The `PAYMENT-SIGNATURE` content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentPayload {
    /// Must be [`X402_VERSION`].
    pub x402_version: u32,
    /// Copied from the 402 by official clients.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub resource: Option<ResourceInfo>,
    /// The chosen requirement, verbatim; matched by parsed value.
    pub accepted: Value,
    /// Scheme-specific payload (parsed as [`ExactEvmPayload`] for `exact` on EVM).
    pub payload: Value,
    /// Extensions echoed by the client.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub extensions: Option<Value>,
}

/// A facilitator's `/verify` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyResponse {
    /// Whether the payment is valid.
    pub is_valid: bool,
    /// Machine reason (opaque; implementations differ).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub invalid_reason: Option<String>,
    /// Human detail.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub invalid_message: Option<String>,
    /// Payer address.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub payer: Option<String>,
}

/// A facilitator's `/settle` answer, also the `PAYMENT-RESPONSE` content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettleResponse {
    /// Whether the transfer was settled.
    pub success: bool,
    /// Machine reason when it failed (opaque).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error_reason: Option<String>,
    /// Human detail when it failed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error_message: Option<String>,
    /// Payer address.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub payer: Option<String>,
    /// Transaction hash; `""` when it failed (some facilitators omit it).
    #[serde(default)]
    pub transaction: String,
    /// CAIP-2 network.
    #[serde(default)]
    pub network: String,
    /// x402 v2 extension data: the service adds `offer-receipt`'s signed receipt to a paid
    /// `PAYMENT-RESPONSE` (docs/payments.md, "Signed offers and receipts").
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub extensions: Option<serde_json::Value>,
}
