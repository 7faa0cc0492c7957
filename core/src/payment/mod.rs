//! x402 v2 payments, scheme `exact` on EVM (USDC, EIP-3009 `transferWithAuthorization`):
//! the wire types, the deterministic `PaymentRequirements`, the header codec, local signature
//! checks, the replay reservation store and the facilitator bodies.
//!
//! Protocol facts and vectors: `../shared/x402-notes.md`; the service's choices:
//! `../shared/spec/decisions.md` ("Payment").

pub mod codec;
pub mod facilitator;
pub mod replay;
pub mod requirements;
pub mod verify;
mod wire;

pub use wire::*;
