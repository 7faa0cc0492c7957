//! Reading the payment network to settle an unknown settlement outcome (docs/payments.md,
//! "The chain is the judge"). With `CHAIN_RPC_URL` set, the service asks the token contract
//! itself — over Ethereum JSON-RPC, as fetches the core plans and the runtime carries out like
//! any other — whether an EIP-3009 authorization was used, cancelled, or can never be used:
//!
//! ```text
//! eth_call authorizationState(from, nonce) ──false──▶ validBefore + margin passed? ExpiredUnused
//!         │ true (used or cancelled: USDC keeps one flag)          └─ else ──────▶ Undetermined
//!         ▼
//! eth_blockNumber ─▶ eth_getLogs AuthorizationUsed | AuthorizationCanceled (from, nonce)
//!         │ Canceled ─▶ Cancelled           │ none ─▶ Undetermined
//!         ▼ Used in transaction T
//! eth_getTransactionReceipt T ── status 0x1 and Transfer(from, payTo, amount) ─▶ Settled(T)
//!                              └─ otherwise ─▶ Undetermined
//! ```
//!
//! Event topics and the selector are Keccak-256 of their signatures (USDC FiatTokenV2, EIP-3009).
//! Every answer is parsed here, with `serde_json`; a transport failure, a JSON-RPC error or an
//! answer of the wrong shape is [`ChainVerdict::Undetermined`]: the outcome stays unknown,
//! never a refusal.

use serde_json::{json, Value};
use sha3::{Digest, Keccak256};

use crate::payment::verify::{parse_address, parse_hex};

/// `AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)` (EIP-3009).
pub const AUTHORIZATION_USED: &str = "AuthorizationUsed(address,bytes32)";
/// `AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)` (EIP-3009).
pub const AUTHORIZATION_CANCELED: &str = "AuthorizationCanceled(address,bytes32)";
/// `Transfer(address indexed from, address indexed to, uint256 value)` (ERC-20).
pub const TRANSFER: &str = "Transfer(address,address,uint256)";
/// `authorizationState(address authorizer, bytes32 nonce) returns (bool)` (EIP-3009): true for
/// used *and* cancelled nonces.
pub const AUTHORIZATION_STATE: &str = "authorizationState(address,bytes32)";
/// Blocks `eth_getLogs` looks back from the latest one: an authorization lives at most
/// `maxTimeoutSeconds` (≤ 3600) + 60 s and its record 10 min more, about 2 200 blocks of Base's
/// 2 s; 10 000 leaves room for slower chains and stays inside common providers' range limits.
pub const LOG_LOOKBACK_BLOCKS: u64 = 10_000;
/// Seconds after `validBefore` before an unused authorization counts as unusable for good:
/// USDC compares `validBefore` with the block's timestamp, which may trail our clock.
pub const EXPIRY_MARGIN_SECONDS: u64 = 30;

/// `0x` + hex of Keccak-256 of `signature` (an event topic).
pub fn topic(signature: &str) -> String {
    format!("0x{}", hex(&Keccak256::digest(signature.as_bytes())))
}

/// `0x` + hex of the first four bytes of Keccak-256 of `signature` (a function selector).
pub fn selector(signature: &str) -> String {
    format!("0x{}", hex(&Keccak256::digest(signature.as_bytes())[..4]))
}

/// The authorization to look for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainQuery {
    /// The token contract (the requirements' `asset`).
    pub token: [u8; 20],
    /// The payer (`authorization.from`).
    pub from: [u8; 20],
    /// The EIP-3009 nonce.
    pub nonce: [u8; 32],
    /// Our `payTo`.
    pub pay_to: [u8; 20],
    /// The price, in atomic units, big-endian.
    pub amount: [u8; 32],
    /// The authorization's `validBefore`, unix seconds.
    pub valid_before: u64,
}

/// What the chain says about an authorization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainVerdict {
    /// `AuthorizationUsed` exists and its transaction moved `amount` from the payer to `payTo`:
    /// the payment is made, in this transaction.
    Settled {
        /// The transaction hash.
        transaction: String,
    },
    /// The payer cancelled the authorization (`AuthorizationCanceled`): never a payment.
    Cancelled,
    /// `validBefore` (+ [`EXPIRY_MARGIN_SECONDS`]) has passed and the nonce is unused: the
    /// transfer can never happen.
    ExpiredUnused,
    /// Nothing certain (not used yet and still valid, the RPC failed, an unexpected answer):
    /// the outcome stays unknown. Says why, for the audit line.
    Undetermined(String),
}

impl ChainVerdict {
    /// The audit word: `confirmed_on_chain`, `cancelled`, `expired_unused` or `unknown`.
    pub fn word(&self) -> &'static str {
        match self {
            ChainVerdict::Settled { .. } => "confirmed_on_chain",
            ChainVerdict::Cancelled => "cancelled",
            ChainVerdict::ExpiredUnused => "expired_unused",
            ChainVerdict::Undetermined(_) => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    State,
    BlockNumber,
    Logs { from_block: u64 },
    Receipt { transaction: String },
}

/// One reading of the chain for one authorization: a sequence of JSON-RPC calls. Send
/// [`ChainCheck::request_body`] to the RPC endpoint (`POST`, `application/json`), feed the
/// answer to [`ChainCheck::on_reply`], and repeat until it gives a verdict (at most four calls).
#[derive(Debug, Clone)]
pub struct ChainCheck {
    query: ChainQuery,
    step: Step,
}

impl ChainCheck {
    /// A reading that starts with `authorizationState`.
    pub fn new(query: ChainQuery) -> ChainCheck {
        ChainCheck {
            query,
            step: Step::State,
        }
    }

    /// The JSON-RPC request of the current step.
    pub fn request_body(&self) -> Vec<u8> {
        let q = &self.query;
        let (method, params) = match &self.step {
            Step::State => {
                let data = format!(
                    "{}{}{}",
                    selector(AUTHORIZATION_STATE),
                    hex(&word_of_address(&q.from)),
                    hex(&q.nonce)
                );
                (
                    "eth_call",
                    json!([{"to": address(&q.token), "data": data}, "latest"]),
                )
            }
            Step::BlockNumber => ("eth_blockNumber", json!([])),
            Step::Logs { from_block } => (
                "eth_getLogs",
                json!([{
                    "address": address(&q.token),
                    "topics": [
                        [topic(AUTHORIZATION_USED), topic(AUTHORIZATION_CANCELED)],
                        format!("0x{}", hex(&word_of_address(&q.from))),
                        format!("0x{}", hex(&q.nonce)),
                    ],
                    "fromBlock": format!("0x{from_block:x}"),
                    "toBlock": "latest",
                }]),
            ),
            Step::Receipt { transaction } => ("eth_getTransactionReceipt", json!([transaction])),
        };
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        serde_json::to_vec(&request).unwrap_or_default()
    }

    /// Reads the answer to the current step (`None`: no answer at all — a timeout or a failed
    /// connection) at unix time `unix_now`. `Some(verdict)` ends the reading; `None` means the
    /// next request ([`ChainCheck::request_body`]) is due.
    pub fn on_reply(&mut self, reply: Option<&[u8]>, unix_now: u64) -> Option<ChainVerdict> {
        let undetermined = |why: &str| Some(ChainVerdict::Undetermined(why.to_string()));
        let Some(body) = reply else {
            return undetermined("chain rpc: no answer");
        };
        let result = match rpc_result(body) {
            Ok(result) => result,
            Err(why) => return Some(ChainVerdict::Undetermined(why)),
        };
        match &self.step {
            Step::State => match result.as_str().and_then(parse_word) {
                Some(word) if word == [0; 32] => {
                    let final_at = self
                        .query
                        .valid_before
                        .saturating_add(EXPIRY_MARGIN_SECONDS);
                    if unix_now >= final_at {
                        Some(ChainVerdict::ExpiredUnused)
                    } else {
                        undetermined("authorization not used yet")
                    }
                }
                Some(_) => {
                    self.step = Step::BlockNumber;
                    None
                }
                None => undetermined("chain rpc: authorizationState answer is not a word"),
            },
            Step::BlockNumber => match result.as_str().and_then(parse_quantity) {
                Some(latest) => {
                    let from_block = latest.saturating_sub(LOG_LOOKBACK_BLOCKS);
                    self.step = Step::Logs { from_block };
                    None
                }
                None => undetermined("chain rpc: eth_blockNumber answer is not a quantity"),
            },
            Step::Logs { .. } => {
                let Some(logs) = result.as_array() else {
                    return undetermined("chain rpc: eth_getLogs answer is not a list");
                };
                let (used, canceled) = (topic(AUTHORIZATION_USED), topic(AUTHORIZATION_CANCELED));
                let mut used_in = None;
                for log in logs.iter().filter(|log| self.is_ours(log)) {
                    let first = log["topics"][0].as_str().unwrap_or("");
                    if first.eq_ignore_ascii_case(&canceled) {
                        return Some(ChainVerdict::Cancelled);
                    }
                    if first.eq_ignore_ascii_case(&used) {
                        used_in = log["transactionHash"].as_str().map(str::to_string);
                    }
                }
                match used_in {
                    Some(transaction) => {
                        self.step = Step::Receipt { transaction };
                        None
                    }
                    None => undetermined("authorization state set but no event in range"),
                }
            }
            Step::Receipt { transaction } => {
                if result["status"].as_str() != Some("0x1") {
                    return undetermined("the authorization's transaction did not succeed");
                }
                let logs = result["logs"].as_array().map_or(&[][..], Vec::as_slice);
                if logs.iter().any(|log| self.is_our_transfer(log)) {
                    Some(ChainVerdict::Settled {
                        transaction: transaction.clone(),
                    })
                } else {
                    undetermined("no Transfer(from, payTo, amount) in the transaction")
                }
            }
        }
    }

    /// A log of our token about our authorization (not removed by a reorganisation).
    fn is_ours(&self, log: &Value) -> bool {
        let q = &self.query;
        log["removed"].as_bool() != Some(true)
            && log["address"].as_str().and_then(parse_address) == Some(q.token)
            && log["topics"][1].as_str().and_then(parse_word) == Some(word_of_address(&q.from))
            && log["topics"][2].as_str().and_then(parse_word) == Some(q.nonce)
    }

    /// `Transfer(from, payTo, amount)` emitted by our token.
    fn is_our_transfer(&self, log: &Value) -> bool {
        let q = &self.query;
        log["removed"].as_bool() != Some(true)
            && log["address"].as_str().and_then(parse_address) == Some(q.token)
            && log["topics"][0]
                .as_str()
                .is_some_and(|t| t.eq_ignore_ascii_case(&topic(TRANSFER)))
            && log["topics"][1].as_str().and_then(parse_word) == Some(word_of_address(&q.from))
            && log["topics"][2].as_str().and_then(parse_word) == Some(word_of_address(&q.pay_to))
            && log["data"].as_str().and_then(parse_word) == Some(q.amount)
    }
}

/// The `result` of a JSON-RPC answer, or why there is none.
fn rpc_result(body: &[u8]) -> Result<Value, String> {
    let answer: Value =
        serde_json::from_slice(body).map_err(|_| "chain rpc: not JSON".to_string())?;
    if let Some(error) = answer.get("error") {
        let message = error["message"].as_str().unwrap_or("error");
        return Err(format!(
            "chain rpc: {}",
            message.chars().take(120).collect::<String>()
        ));
    }
    match answer.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err("chain rpc: no result".to_string()),
    }
}

/// A 32-byte word from `0x` + 64 hex digits (an ABI word, a topic, a log's data).
fn parse_word(s: &str) -> Option<[u8; 32]> {
    parse_hex(s)?.try_into().ok()
}

/// A JSON-RPC quantity (`0x` + hex, no leading zeros required).
fn parse_quantity(s: &str) -> Option<u64> {
    let digits = s.strip_prefix("0x")?;
    u64::from_str_radix(digits, 16).ok()
}

fn word_of_address(address: &[u8; 20]) -> [u8; 32] {
    let mut word = [0; 32];
    word[12..].copy_from_slice(address);
    word
}

fn address(bytes: &[u8; 20]) -> String {
    format!("0x{}", hex(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: [u8; 20] = [0x83; 20];
    const FROM: [u8; 20] = [0xf3; 20];
    const PAY_TO: [u8; 20] = [0x70; 20];

    fn query() -> ChainQuery {
        let mut amount = [0; 32];
        amount[30..].copy_from_slice(&10_000u16.to_be_bytes());
        ChainQuery {
            token: TOKEN,
            from: FROM,
            nonce: [0x11; 32],
            pay_to: PAY_TO,
            amount,
            valid_before: 1_000,
        }
    }

    fn result(value: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "result": value})).unwrap()
    }

    fn word(tail: &str) -> String {
        format!("0x{tail:0>64}")
    }

    fn log(first: &str, tx: &str) -> Value {
        json!({
            "address": address(&TOKEN),
            "topics": [topic(first), word(&hex(&FROM)), format!("0x{}", hex(&[0x11; 32]))],
            "transactionHash": tx,
            "removed": false,
        })
    }

    fn transfer(to: &[u8; 20], amount: u64) -> Value {
        json!({
            "address": address(&TOKEN),
            "topics": [topic(TRANSFER), word(&hex(&FROM)), word(&hex(to))],
            "data": word(&format!("{amount:x}")),
        })
    }

    #[test]
    fn signatures_hash_to_usdc_s_topics_and_selector() {
        assert_eq!(
            topic(AUTHORIZATION_USED),
            "0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5"
        );
        assert_eq!(
            topic(AUTHORIZATION_CANCELED),
            "0x1cdd46ff242716cdaa72d159d339a485b3438398348d68f09d7c8c0a59353d81"
        );
        assert_eq!(
            topic(TRANSFER),
            "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
        );
        assert_eq!(selector(AUTHORIZATION_STATE), "0xe94a0102");
    }

    #[test]
    fn a_used_authorization_whose_transaction_paid_us_is_settled() {
        let mut check = ChainCheck::new(query());
        let first: Value = serde_json::from_slice(&check.request_body()).unwrap();
        assert_eq!(first["method"], "eth_call");
        assert_eq!(
            first["params"][0]["data"],
            format!("0xe94a0102{}{}", &word(&hex(&FROM))[2..], hex(&[0x11; 32]))
        );
        assert_eq!(check.on_reply(Some(&result(json!(word("1")))), 10), None);
        let second: Value = serde_json::from_slice(&check.request_body()).unwrap();
        assert_eq!(second["method"], "eth_blockNumber");
        assert_eq!(check.on_reply(Some(&result(json!("0x271a"))), 10), None);
        let third: Value = serde_json::from_slice(&check.request_body()).unwrap();
        assert_eq!(third["method"], "eth_getLogs");
        assert_eq!(third["params"][0]["fromBlock"], "0xa");
        let logs = json!([log(AUTHORIZATION_USED, "0xabc")]);
        assert_eq!(check.on_reply(Some(&result(logs)), 10), None);
        let fourth: Value = serde_json::from_slice(&check.request_body()).unwrap();
        assert_eq!(fourth["method"], "eth_getTransactionReceipt");
        assert_eq!(fourth["params"][0], "0xabc");
        let receipt = json!({"status": "0x1", "logs": [transfer(&PAY_TO, 10_000)]});
        assert_eq!(
            check.on_reply(Some(&result(receipt)), 10),
            Some(ChainVerdict::Settled {
                transaction: "0xabc".into()
            })
        );
    }

    fn at_receipt() -> ChainCheck {
        let mut check = ChainCheck::new(query());
        check.on_reply(Some(&result(json!(word("1")))), 10);
        check.on_reply(Some(&result(json!("0x10"))), 10);
        let logs = json!([log(AUTHORIZATION_USED, "0xabc")]);
        assert_eq!(check.on_reply(Some(&result(logs)), 10), None);
        check
    }

    #[test]
    fn a_receipt_without_our_transfer_or_reverted_proves_nothing() {
        for receipt in [
            json!({"status": "0x0", "logs": [transfer(&PAY_TO, 10_000)]}),
            json!({"status": "0x1", "logs": [transfer(&[9; 20], 10_000)]}),
            json!({"status": "0x1", "logs": [transfer(&PAY_TO, 9_999)]}),
            json!({"status": "0x1", "logs": []}),
            json!(null),
        ] {
            let verdict = at_receipt().on_reply(Some(&result(receipt.clone())), 10);
            assert!(
                matches!(verdict, Some(ChainVerdict::Undetermined(_))),
                "{receipt}: {verdict:?}"
            );
        }
    }

    #[test]
    fn a_cancelled_authorization_is_never_a_payment() {
        let mut check = ChainCheck::new(query());
        check.on_reply(Some(&result(json!(word("1")))), 10);
        check.on_reply(Some(&result(json!("0x10"))), 10);
        let logs = json!([log(AUTHORIZATION_CANCELED, "0xdef")]);
        assert_eq!(
            check.on_reply(Some(&result(logs)), 10),
            Some(ChainVerdict::Cancelled)
        );
        // A removed (reorganised) log or another nonce's is not ours.
        let mut check = ChainCheck::new(query());
        check.on_reply(Some(&result(json!(word("1")))), 10);
        check.on_reply(Some(&result(json!("0x10"))), 10);
        let mut removed = log(AUTHORIZATION_CANCELED, "0xdef");
        removed["removed"] = json!(true);
        let mut other = log(AUTHORIZATION_CANCELED, "0xdef");
        other["topics"][2] = json!(word("22"));
        assert!(matches!(
            check.on_reply(Some(&result(json!([removed, other]))), 10),
            Some(ChainVerdict::Undetermined(_))
        ));
    }

    #[test]
    fn an_unused_authorization_is_refused_for_good_only_after_valid_before() {
        let unused = result(json!(word("0")));
        let mut check = ChainCheck::new(query());
        assert!(matches!(
            check.on_reply(Some(&unused), 1_000 + EXPIRY_MARGIN_SECONDS - 1),
            Some(ChainVerdict::Undetermined(_))
        ));
        let mut check = ChainCheck::new(query());
        assert_eq!(
            check.on_reply(Some(&unused), 1_000 + EXPIRY_MARGIN_SECONDS),
            Some(ChainVerdict::ExpiredUnused)
        );
    }

    #[test]
    fn rpc_failures_leave_the_outcome_unknown() {
        for reply in [
            None,
            Some(b"<html>502</html>".to_vec()),
            Some(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom"}}"#.to_vec()),
            Some(result(json!(42))),
            Some(result(json!("0x1"))),
        ] {
            let mut check = ChainCheck::new(query());
            let verdict = check.on_reply(reply.as_deref(), 5_000);
            assert!(
                matches!(verdict, Some(ChainVerdict::Undetermined(_))),
                "{verdict:?}"
            );
        }
    }
}
