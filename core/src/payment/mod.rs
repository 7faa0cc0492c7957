//! x402 v2 payments, scheme `exact` on EVM (USDC, EIP-3009 `transferWithAuthorization`):
//! the wire types, the deterministic `PaymentRequirements`, the header codec, local signature
//! checks, the payment store (replay guard and kept results), the `payment-identifier`
//! extension, the facilitator endpoints with their credentials (CDP API keys: `cdp_jwt`), and the
//! facilitator bodies and replies.
//!
//! Protocol facts and vectors: `docs/payments.md`; the service's choices:
//! docs/payments.md.

pub mod cdp_jwt;
pub mod chain;
pub mod codec;
pub mod endpoint;
pub mod facilitator;
pub mod identifier;
pub mod judge_gate;
pub mod offer_receipt;
pub mod requirements;
pub mod store;
pub mod verify;
mod wire;

pub use wire::*;
