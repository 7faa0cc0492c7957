//! Reading the payment network to judge what the facilitator leaves uncertain (docs/payments.md,
//! "The chain is the judge"): an unknown settlement outcome, "already used" with nothing of
//! ours broadcast, a refusal or an expired authorization without a record. Through
//! `CHAIN_RPC_URL`, or the network's public RPC when it is unset, the service asks the token
//! contract itself — over Ethereum JSON-RPC, as fetches the core plans and the runtime carries
//! out like any other — whether an EIP-3009 authorization was used, cancelled, or can never be
//! used.
//!
//! The chain is read at one block: the head block B is read first, and the state is read at B
//! by its hash (EIP-1898 `{"blockHash": …}`, so a load-balanced provider cannot answer from
//! another fork's block of the same number), and the logs up to B's number. The local clock
//! only says whether B is too old to judge by.
//!
//! ```text
//! eth_getBlockByNumber "latest" ─▶ head block B (number, timestamp, hash)
//!         │ B.timestamp + 60 s < local clock ─▶ Undetermined (stale head)
//!         ▼
//! eth_call authorizationState(from, nonce) at {"blockHash": B.hash}
//!         │ false ─▶ B.timestamp ≥ validBefore ─▶ ExpiredUnused
//!         │          ├─ B not newer than the refusal being judged ─▶ Undetermined
//!         │          └─ else ─▶ Unused (not used yet, or the node lags)
//!         ▼ true (used or cancelled: USDC keeps one flag)
//! the start block S: the record's first-seen block − FIRST_SEEN_MARGIN_BLOCKS when the
//! query has one (a /settle of ours, sent after the record was written); else the transfer
//! can only be in a block stamped at or after max(validAfter, validBefore − window) − margin,
//! found by its timestamp (eth_getBlockByNumber probes, interpolation and bisection)
//!         ▼
//! eth_getLogs AuthorizationUsed | AuthorizationCanceled (from, nonce), from S to B in pages of
//! CHAIN_LOG_RANGE blocks, until one holds the event
//!         │ Canceled ─▶ Cancelled
//!         │ none up to B, or a JSON-RPC error (the range refused) ─▶ Undetermined
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

use crate::eth::{hex, parse_address, parse_hex};

/// `AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)` (EIP-3009).
pub const AUTHORIZATION_USED: &str = "AuthorizationUsed(address,bytes32)";
/// `AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)` (EIP-3009).
pub const AUTHORIZATION_CANCELED: &str = "AuthorizationCanceled(address,bytes32)";
/// `Transfer(address indexed from, address indexed to, uint256 value)` (ERC-20).
pub const TRANSFER: &str = "Transfer(address,address,uint256)";
/// `authorizationState(address authorizer, bytes32 nonce) returns (bool)` (EIP-3009): true for
/// used *and* cancelled nonces.
pub const AUTHORIZATION_STATE: &str = "authorizationState(address,bytes32)";
/// Seconds before the earliest moment a transfer could have been made that the log search
/// starts anyway: room for a `maxTimeoutSeconds` lowered between the payment and its retry, and
/// for block timestamps a little off.
pub const LOOKBACK_MARGIN_SECONDS: u64 = 600;
/// Blocks before a record's first-seen block ([`ChainQuery::first_seen_block`]) that the log
/// search starts at: 10 minutes of Base's 2 s blocks, room for a provider's nodes that disagree
/// about the head and for a short reorganisation.
pub const FIRST_SEEN_MARGIN_BLOCKS: u64 = 300;
/// Most `eth_getBlockByNumber` probes made to find the start block; past them the search
/// starts at the best lower bound found (more pages, never a missed block).
pub const MAX_START_PROBES: u32 = 40;
/// Most `eth_getLogs` pages read in one reading; past them the outcome is undetermined.
pub const MAX_LOG_PAGES: u32 = 64;
/// Times a reading reads the head again, [`HEAD_WAIT_SECONDS`] apart, when the authorization
/// is unused at a head not stamped after the refusal being judged (Base stamps a block every
/// 2 s): then the verdict is undetermined.
pub const MAX_HEAD_WAITS: u32 = 3;
/// Seconds between those reads of the head.
pub const HEAD_WAIT_SECONDS: u64 = 1;
/// Seconds the head block's timestamp may trail the local clock: an older head (a node that
/// stopped following the chain) is not read at all, the outcome stays unknown. The one use of
/// the local clock in a reading.
pub const HEAD_MAX_AGE_SECONDS: u64 = 60;

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
    /// The authorization's `validAfter`, unix seconds (0 when it names none).
    pub valid_after: u64,
    /// Seconds before `validBefore` that a payment we accepted can have been made at the
    /// earliest: `maxTimeoutSeconds` + the window's slack (docs/payments.md, "The window").
    pub window_seconds: u64,
    /// Blocks per `eth_getLogs` page (`CHAIN_LOG_RANGE`, at least 1).
    pub log_range: u64,
    /// The head block number at which the authorization's record was first seen, when the
    /// transfer looked for can only be later (a `/settle` of ours, sent after the record was
    /// written): the log search starts at this block less [`FIRST_SEEN_MARGIN_BLOCKS`], with no
    /// search by timestamps. `None`: the start block is found by its timestamp.
    pub first_seen_block: Option<u64>,
    /// The unix second at which the refusal being judged arrived, if one is: "unused" at a
    /// head block not stamped after it is undetermined (docs/payments.md, "\"Unused\" needs
    /// a fresh head").
    pub fresh_after: Option<u64>,
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
    /// The nonce is unused at a block whose timestamp is at or past `validBefore`: the transfer
    /// can never happen. USDC (FiatTokenV2, as EIP-3009's reference) accepts a transfer only in
    /// a block with `require(now < validBefore, "FiatTokenV2: authorization is expired")`, `now`
    /// being `block.timestamp`, and every later block has a greater timestamp (the Ethereum
    /// yellow paper's header rule; Base makes a block every 2 s). The local clock never decides
    /// this: a node that lags behind the block with the transfer still shows an early head.
    ExpiredUnused,
    /// The nonce is unused at the head block, whose timestamp is still before `validBefore`:
    /// not used yet (or used in a block this node has not seen). For a settlement the outcome
    /// stays unknown; for a `/verify` refusal, the refusal stands. Says why, for the audit line.
    Unused(String),
    /// Nothing certain (the RPC failed, a stale head, an unexpected answer): the outcome stays
    /// unknown. Says why, for the audit line.
    Undetermined(String),
}

impl ChainVerdict {
    /// The audit word: `confirmed_on_chain`, `cancelled`, `expired_unused` or `unknown`.
    pub fn word(&self) -> &'static str {
        match self {
            ChainVerdict::Settled { .. } => "confirmed_on_chain",
            ChainVerdict::Cancelled => "cancelled",
            ChainVerdict::ExpiredUnused => "expired_unused",
            ChainVerdict::Unused(_) | ChainVerdict::Undetermined(_) => "unknown",
        }
    }
}

/// The head block a reading is made at (`eth_getBlockByNumber`, Ethereum JSON-RPC).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Head {
    /// The block number.
    number: u64,
    /// The block's timestamp, unix seconds (what the token compares `validBefore` with).
    timestamp: u64,
    /// The block's hash (`0x` + 64 hex digits), for reads at it (EIP-1898).
    hash: String,
}

/// The search for the start block: `lo` is stamped at or before the target (its timestamp
/// once read), `hi` after it, `probe` the block being read.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seek {
    target: u64,
    lo: u64,
    lo_time: Option<u64>,
    hi: u64,
    hi_time: u64,
    probe: u64,
    probes: u32,
    /// The last probe shrank `hi − lo` by less than half: bisect next.
    bisect: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Head,
    State(Head),
    Start(Head, Seek),
    /// A page of logs from this block (to the page's end or the head), the pages read so far.
    Logs(Head, u64, u32),
    Receipt(Head, String),
}

impl Step {
    fn method(&self) -> &'static str {
        match self {
            Step::Head | Step::Start(..) => "eth_getBlockByNumber",
            Step::State(_) => "eth_call",
            Step::Logs(..) => "eth_getLogs",
            Step::Receipt(..) => "eth_getTransactionReceipt",
        }
    }
}

/// One reading of the chain for one authorization, at one block: a sequence of JSON-RPC calls
/// (Ethereum JSON-RPC). Send [`ChainCheck::request_body`] to the RPC endpoint (`POST`,
/// `application/json`), feed the answer to [`ChainCheck::on_reply`], and repeat until it gives
/// a verdict: the head block, `authorizationState`, the start block's search (at most
/// [`MAX_START_PROBES`]), pages of logs (at most [`MAX_LOG_PAGES`]), a receipt.
#[derive(Debug, Clone)]
pub struct ChainCheck {
    query: ChainQuery,
    step: Step,
    /// Heads read again for a fresher one ([`MAX_HEAD_WAITS`]).
    head_waits: u32,
    /// The next request is due only after [`HEAD_WAIT_SECONDS`] ([`ChainCheck::take_pause`]).
    pause: bool,
}

impl ChainCheck {
    /// A reading that starts with the head block (`eth_getBlockByNumber ["latest", false]`).
    pub fn new(query: ChainQuery) -> ChainCheck {
        ChainCheck {
            query,
            step: Step::Head,
            head_waits: 0,
            pause: false,
        }
    }

    /// After [`ChainCheck::on_reply`] gave no verdict: whether the next request must wait
    /// [`HEAD_WAIT_SECONDS`] (the head is read again for a fresher one). Cleared by the call.
    pub fn take_pause(&mut self) -> bool {
        std::mem::take(&mut self.pause)
    }

    /// The JSON-RPC request of the current step. The state is read at the head block's hash
    /// (EIP-1898), logs up to its number, never `"latest"`.
    pub fn request_body(&self) -> Vec<u8> {
        let q = &self.query;
        let params = match &self.step {
            Step::Head => json!(["latest", false]),
            Step::State(head) => {
                let data = format!(
                    "{}{}{}",
                    selector(AUTHORIZATION_STATE),
                    hex(&word_of_address(&q.from)),
                    hex(&q.nonce)
                );
                json!([{"to": address(&q.token), "data": data}, {"blockHash": head.hash}])
            }
            Step::Start(_, seek) => json!([quantity(seek.probe), false]),
            Step::Logs(head, from, _) => json!([{
                "address": address(&q.token),
                "topics": [
                    [topic(AUTHORIZATION_USED), topic(AUTHORIZATION_CANCELED)],
                    format!("0x{}", hex(&word_of_address(&q.from))),
                    format!("0x{}", hex(&q.nonce)),
                ],
                "fromBlock": quantity(*from),
                "toBlock": quantity(self.page_end(head, *from)),
            }]),
            Step::Receipt(_, transaction) => json!([transaction]),
        };
        let method = self.step.method();
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        serde_json::to_vec(&request).unwrap_or_default()
    }

    /// Reads the answer to the current step (`None`: no answer at all — a timeout or a failed
    /// connection). With no verdict, ask [`ChainCheck::take_pause`] before the next request. `unix_now` (the local clock, unix seconds) is used for one thing: a head
    /// block more than [`HEAD_MAX_AGE_SECONDS`] older than it is not read. `Some(verdict)` ends
    /// the reading; `None` means the next request ([`ChainCheck::request_body`]) is due.
    pub fn on_reply(&mut self, reply: Option<&[u8]>, unix_now: u64) -> Option<ChainVerdict> {
        let undetermined = |why: String| Some(ChainVerdict::Undetermined(why));
        let method = self.step.method();
        let Some(body) = reply else {
            return undetermined(format!("chain rpc: {method}: no answer"));
        };
        let result = match rpc_result(body) {
            Ok(result) => result,
            Err(why) => return undetermined(format!("chain rpc: {method}: {why}")),
        };
        match self.step.clone() {
            Step::Head => {
                let Some(Head {
                    number,
                    timestamp,
                    hash,
                }) = head_of(&result)
                else {
                    return undetermined(format!(
                        "chain rpc: {method}: no block number, timestamp and hash"
                    ));
                };
                if timestamp.saturating_add(HEAD_MAX_AGE_SECONDS) < unix_now {
                    return undetermined(format!(
                        "chain rpc: head block is stale (block {number}, {} s behind the clock)",
                        unix_now - timestamp
                    ));
                }
                self.step = Step::State(Head {
                    number,
                    timestamp,
                    hash,
                });
                None
            }
            Step::State(head) => match result.as_str().and_then(parse_word) {
                Some(word) if word == BOOL_FALSE => {
                    if head.timestamp >= self.query.valid_before {
                        Some(ChainVerdict::ExpiredUnused)
                    } else if let Some(refused) =
                        self.query.fresh_after.filter(|at| head.timestamp <= *at)
                    {
                        if self.head_waits < MAX_HEAD_WAITS {
                            // Wait for a block stamped after the refusal, then read again.
                            self.head_waits += 1;
                            self.pause = true;
                            self.step = Step::Head;
                            return None;
                        }
                        undetermined(format!(
                            "authorization not used at block {}, but its timestamp {} is not after the refusal ({refused}): the node may not have seen a transfer yet",
                            head.number, head.timestamp
                        ))
                    } else {
                        Some(ChainVerdict::Unused(format!(
                            "authorization not used at block {} (timestamp {} < validBefore {})",
                            head.number, head.timestamp, self.query.valid_before
                        )))
                    }
                }
                Some(word) if word == BOOL_TRUE => {
                    self.step = self.start_search(head);
                    None
                }
                _ => undetermined(format!("chain rpc: {method}: answer is not a bool")),
            },
            Step::Start(head, mut seek) => {
                let Some(time) = result["timestamp"].as_str().and_then(parse_quantity) else {
                    return undetermined(format!("chain rpc: {method}: no block timestamp"));
                };
                let (width, had_lo) = (seek.hi - seek.lo, seek.lo_time.is_some());
                if time <= seek.target {
                    (seek.lo, seek.lo_time) = (seek.probe, Some(time));
                } else {
                    (seek.hi, seek.hi_time) = (seek.probe, time);
                }
                seek.bisect = had_lo && (seek.hi - seek.lo) * 2 > width;
                seek.probes += 1;
                self.step = self.next_probe(head, seek);
                None
            }
            Step::Logs(head, from, pages) => {
                let Some(logs) = result.as_array() else {
                    return undetermined(format!("chain rpc: {method}: answer is not a list"));
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
                let to = self.page_end(&head, from);
                match used_in {
                    Some(transaction) => {
                        self.step = Step::Receipt(head, transaction);
                        None
                    }
                    None if to < head.number && pages + 1 < MAX_LOG_PAGES => {
                        self.step = Step::Logs(head, to + 1, pages + 1);
                        None
                    }
                    None => undetermined(format!(
                        "authorization state set at block {} but no event up to block {to}",
                        head.number
                    )),
                }
            }
            // The receipt's own block is not compared with the head: a receipt is what one
            // node says happened in its chain, and its block may be past the head another node
            // gave (a provider's nodes disagree by a block or two, or the transaction was
            // mined again after a reorganisation). Status 0x1 with our Transfer is the payment
            // wherever it is; the reorganisation risk of a recent block is the same either way.
            Step::Receipt(_, transaction) => {
                if result["status"].as_str() != Some("0x1") {
                    return undetermined(
                        "the authorization's transaction did not succeed".to_string(),
                    );
                }
                let logs = result["logs"].as_array().map_or(&[][..], Vec::as_slice);
                if logs.iter().any(|log| self.is_our_transfer(log)) {
                    Some(ChainVerdict::Settled { transaction })
                } else {
                    undetermined("no Transfer(from, payTo, amount) in the transaction".to_string())
                }
            }
        }
    }

    /// The last block of the log page starting at `from`: a page is `log_range` blocks, and
    /// never past the head.
    fn page_end(&self, head: &Head, from: u64) -> u64 {
        from.saturating_add(self.query.log_range.max(1) - 1)
            .min(head.number)
    }

    /// Where the log search starts, once the authorization is known used or cancelled at
    /// `head`: the record's first-seen block less the margin, when the query has one.
    /// Otherwise by time: a transfer we accepted was made at or after `validBefore` − the window (our
    /// window check refused a later `validBefore`) and after `validAfter`; less the margin,
    /// that is the target time. Block timestamps grow by at least a second a block, so block
    /// `head − (head.timestamp − target)` is stamped at or before it: the search for the start
    /// block begins there, unless that is within a page of the head already.
    fn start_search(&self, head: Head) -> Step {
        let q = &self.query;
        if let Some(first_seen) = q.first_seen_block {
            // The record's own block: no probes (docs/payments.md, "The look-back covers
            // every record").
            let from = first_seen
                .saturating_sub(FIRST_SEEN_MARGIN_BLOCKS)
                .min(head.number);
            return Step::Logs(head, from, 0);
        }
        let target = q
            .valid_after
            .max(q.valid_before.saturating_sub(q.window_seconds))
            .saturating_sub(LOOKBACK_MARGIN_SECONDS);
        let lo = head
            .number
            .saturating_sub(head.timestamp.saturating_sub(target));
        if head.number - lo < q.log_range.max(1) {
            return Step::Logs(head, lo, 0);
        }
        let seek = Seek {
            target,
            lo,
            lo_time: None,
            hi: head.number,
            hi_time: head.timestamp,
            probe: lo,
            probes: 0,
            bisect: false,
        };
        Step::Start(head, seek)
    }

    /// The next probe of the start block's search, or the first page of logs once `lo` is
    /// within a page of the first block after the target (or the probes are spent: `lo` is a
    /// lower bound all the same). Interpolation on the timestamps read (a chain with a steady
    /// block time is found in a few probes), bisection when it stops halving the range.
    fn next_probe(&self, head: Head, mut seek: Seek) -> Step {
        let Some(lo_time) = seek.lo_time else {
            // The first probe was stamped after the target (timestamps that grew by less than
            // a second a block): look from block 0.
            if seek.lo == 0 || seek.probes >= MAX_START_PROBES {
                return Step::Logs(head, 0, 0);
            }
            seek.lo = 0;
            seek.probe = 0;
            return Step::Start(head, seek);
        };
        if seek.hi - seek.lo <= self.query.log_range.max(1) || seek.probes >= MAX_START_PROBES {
            return Step::Logs(head, seek.lo, 0);
        }
        let span = seek.hi - seek.lo;
        let probe = if seek.bisect || seek.hi_time <= lo_time {
            seek.lo + span / 2
        } else {
            let ahead = u128::from(seek.target.saturating_sub(lo_time)) * u128::from(span)
                / u128::from(seek.hi_time - lo_time);
            seek.lo + u64::try_from(ahead).unwrap_or(span)
        };
        seek.probe = probe.clamp(seek.lo + 1, seek.hi - 1);
        Step::Start(head, seek)
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

/// The head block of an `eth_getBlockByNumber` result, if it names its number, timestamp
/// and hash.
fn head_of(result: &Value) -> Option<Head> {
    Some(Head {
        number: result["number"].as_str().and_then(parse_quantity)?,
        timestamp: result["timestamp"].as_str().and_then(parse_quantity)?,
        hash: result["hash"]
            .as_str()
            .filter(|h| parse_word(h).is_some())?
            .to_ascii_lowercase(),
    })
}

/// The JSON-RPC request of the periodic head read: `eth_getBlockByNumber ["latest", false]`
/// (Ethereum JSON-RPC).
pub fn head_request_body() -> Vec<u8> {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "eth_getBlockByNumber", "params": ["latest", false]});
    serde_json::to_vec(&request).unwrap_or_default()
}

/// The head block's number and timestamp (unix seconds) in the answer to
/// [`head_request_body`].
///
/// # Errors
/// Why there is none: not JSON, a JSON-RPC error, no block number, timestamp and hash.
pub fn read_head(body: &[u8]) -> Result<(u64, u64), String> {
    let result = rpc_result(body)?;
    let head = head_of(&result).ok_or("no block number, timestamp and hash")?;
    Ok((head.number, head.timestamp))
}

/// The ABI words of `false` and `true` (a `bool` return value).
const BOOL_FALSE: [u8; 32] = [0; 32];
const BOOL_TRUE: [u8; 32] = {
    let mut word = [0; 32];
    word[31] = 1;
    word
};

/// The `result` of a JSON-RPC answer, or why there is none (a JSON-RPC error: its message, as
/// the provider wrote it, at most 120 characters).
fn rpc_result(body: &[u8]) -> Result<Value, String> {
    let answer: Value = serde_json::from_slice(body).map_err(|_| "not JSON".to_string())?;
    if let Some(error) = answer.get("error") {
        let message = error["message"].as_str().unwrap_or("error");
        return Err(message.chars().take(120).collect());
    }
    match answer.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err("no result".to_string()),
    }
}

/// A 32-byte word from `0x` + 64 hex digits (an ABI word, a topic, a log's data).
fn parse_word(s: &str) -> Option<[u8; 32]> {
    parse_hex(s)?.try_into().ok()
}

/// A JSON-RPC quantity: `0x` and 1 to 16 hex digits (the spec writes no leading zeros; they are
/// accepted). Anything else — no prefix, no digits, a sign, more than 64 bits — is `None`.
fn parse_quantity(s: &str) -> Option<u64> {
    let digits = s.strip_prefix("0x")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

/// A JSON-RPC quantity: `0x` + hex without leading zeros.
fn quantity(n: u64) -> String {
    format!("0x{n:x}")
}

fn word_of_address(address: &[u8; 20]) -> [u8; 32] {
    let mut word = [0; 32];
    word[12..].copy_from_slice(address);
    word
}

fn address(bytes: &[u8; 20]) -> String {
    format!("0x{}", hex(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: [u8; 20] = [0x83; 20];
    const FROM: [u8; 20] = [0xf3; 20];
    const PAY_TO: [u8; 20] = [0x70; 20];
    /// The query's `validBefore`.
    const VALID_BEFORE: u64 = 1_000;
    /// A head block number (0x2710).
    const HEAD: u64 = 10_000;

    fn query() -> ChainQuery {
        let mut amount = [0; 32];
        amount[30..].copy_from_slice(&10_000u16.to_be_bytes());
        ChainQuery {
            token: TOKEN,
            from: FROM,
            nonce: [0x11; 32],
            pay_to: PAY_TO,
            amount,
            valid_before: VALID_BEFORE,
            valid_after: 0,
            window_seconds: 180,
            log_range: 10_000,
            fresh_after: None,
            first_seen_block: None,
        }
    }

    fn result(value: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "result": value})).unwrap()
    }

    fn block(number: u64, timestamp: u64) -> Vec<u8> {
        result(json!({
            "number": quantity(number),
            "timestamp": quantity(timestamp),
            "hash": word("b10c"),
        }))
    }

    fn word(tail: &str) -> String {
        format!("0x{tail:0>64}")
    }

    fn request(check: &ChainCheck) -> Value {
        serde_json::from_slice(&check.request_body()).unwrap()
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

    /// A reading past the head block `number` with `timestamp`, the local clock at `timestamp`.
    fn at_head(number: u64, timestamp: u64) -> ChainCheck {
        let mut check = ChainCheck::new(query());
        assert_eq!(
            check.on_reply(Some(&block(number, timestamp)), timestamp),
            None
        );
        check
    }

    fn is_undetermined(verdict: &Option<ChainVerdict>) -> bool {
        matches!(verdict, Some(ChainVerdict::Undetermined(_)))
    }

    /// Unused at a head still before `validBefore`: never "expired unused".
    fn is_unused(verdict: &Option<ChainVerdict>) -> bool {
        matches!(verdict, Some(ChainVerdict::Unused(_)))
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
        let first = request(&check);
        assert_eq!(first["method"], "eth_getBlockByNumber");
        assert_eq!(first["params"], json!(["latest", false]));
        assert_eq!(check.on_reply(Some(&block(0x271a, 990)), 1_000), None);
        let second = request(&check);
        assert_eq!(second["method"], "eth_call");
        assert_eq!(
            second["params"][0]["data"],
            format!("0xe94a0102{}{}", &word(&hex(&FROM))[2..], hex(&[0x11; 32]))
        );
        assert_eq!(check.on_reply(Some(&result(json!(word("1")))), 1_000), None);
        let third = request(&check);
        assert_eq!(third["method"], "eth_getLogs");
        let logs = json!([log(AUTHORIZATION_USED, "0xabc")]);
        assert_eq!(check.on_reply(Some(&result(logs)), 1_000), None);
        let fourth = request(&check);
        assert_eq!(fourth["method"], "eth_getTransactionReceipt");
        assert_eq!(fourth["params"][0], "0xabc");
        // The receipt's block may be past the head read: it is not compared.
        let receipt = json!({
            "status": "0x1",
            "blockNumber": "0x271b",
            "logs": [transfer(&PAY_TO, 10_000)],
        });
        assert_eq!(
            check.on_reply(Some(&result(receipt)), 1_000),
            Some(ChainVerdict::Settled {
                transaction: "0xabc".into()
            })
        );
    }

    #[test]
    fn every_read_is_made_at_the_head_block() {
        let mut check = at_head(0x271a, 990);
        let state = request(&check);
        assert_eq!(state["method"], "eth_call");
        assert_eq!(
            state["params"][1],
            json!({"blockHash": word("b10c")}),
            "EIP-1898, not a number nor \"latest\""
        );
        check.on_reply(Some(&result(json!(word("1")))), 990);
        let logs = request(&check);
        assert_eq!(logs["method"], "eth_getLogs");
        // From the block stamped at validBefore − window − margin at the latest (timestamps
        // grow by at least 1 s a block): 990 − (1 000 − 180 − 600) = 770 blocks back.
        assert_eq!(logs["params"][0]["fromBlock"], quantity(0x271a - 770));
        assert_eq!(logs["params"][0]["toBlock"], "0x271a", "not \"latest\"");
        // Near genesis the range starts at block 0.
        let mut check = at_head(5, 990);
        check.on_reply(Some(&result(json!(word("1")))), 990);
        assert_eq!(request(&check)["params"][0]["fromBlock"], "0x0");
        assert_eq!(request(&check)["params"][0]["toBlock"], "0x5");
    }

    /// A block of a chain stamped every 2 s, block 0 at `genesis`.
    fn steady(number: u64, genesis: u64) -> Vec<u8> {
        block(number, genesis + 2 * number)
    }

    #[test]
    fn a_payment_far_behind_the_head_is_found_in_a_few_probes_and_pages() {
        // Head 1 000 000 blocks (2 s each) after genesis at 0; validBefore at block 400 000.
        let genesis = 0;
        let head = 1_000_000;
        let mut q = query();
        q.valid_before = 800_000;
        q.log_range = 50;
        let mut check = ChainCheck::new(q);
        let now = genesis + 2 * head;
        assert_eq!(check.on_reply(Some(&steady(head, genesis)), now), None);
        assert_eq!(check.on_reply(Some(&result(json!(word("1")))), now), None);
        let target = 800_000 - 180 - 600;
        let mut probes = 0;
        while request(&check)["method"] == "eth_getBlockByNumber" {
            let asked = parse_quantity(request(&check)["params"][0].as_str().unwrap()).unwrap();
            probes += 1;
            assert_eq!(check.on_reply(Some(&steady(asked, genesis)), now), None);
        }
        assert!(probes <= 6, "{probes} probes");
        let logs = request(&check);
        let from = parse_quantity(logs["params"][0]["fromBlock"].as_str().unwrap()).unwrap();
        let to = parse_quantity(logs["params"][0]["toBlock"].as_str().unwrap()).unwrap();
        assert!(2 * from <= target && target < 2 * (from + 50), "{from}");
        assert_eq!(to, from + 49, "one page");
        // The event is three pages on.
        for page in 0..3 {
            assert_eq!(
                check.on_reply(Some(&result(json!([]))), now),
                None,
                "{page}"
            );
        }
        let logs = request(&check);
        assert_eq!(logs["params"][0]["fromBlock"], quantity(from + 150));
        let used = json!([log(AUTHORIZATION_USED, "0xabc")]);
        assert_eq!(check.on_reply(Some(&result(used)), now), None);
        assert_eq!(request(&check)["method"], "eth_getTransactionReceipt");
    }

    #[test]
    fn no_event_up_to_the_head_is_undetermined() {
        let mut check = ChainCheck::new(query());
        check.on_reply(Some(&block(1_000, 990)), 990);
        check.on_reply(Some(&result(json!(word("1")))), 990);
        // From 230 (770 blocks back) to the head 1 000, one page.
        let logs = request(&check);
        assert_eq!(logs["params"][0]["fromBlock"], quantity(230));
        assert_eq!(logs["params"][0]["toBlock"], quantity(1_000));
        let verdict = check.on_reply(Some(&result(json!([]))), 990);
        assert!(is_undetermined(&verdict), "{verdict:?}");
    }

    #[test]
    fn unused_at_a_head_not_after_the_refusal_is_undetermined() {
        let unused = result(json!(word("0")));
        let mut q = query();
        q.fresh_after = Some(500);
        // Stamped after the refusal: unused.
        let mut check = ChainCheck::new(q.clone());
        check.on_reply(Some(&block(HEAD, 501)), 501);
        assert!(is_unused(&check.on_reply(Some(&unused), 501)));
        // Not after it: the head is read again, a pause apart, MAX_HEAD_WAITS times; then
        // undetermined.
        let mut check = ChainCheck::new(q);
        for wait in 0..MAX_HEAD_WAITS {
            assert_eq!(check.on_reply(Some(&block(HEAD, 500)), 500), None);
            assert_eq!(check.on_reply(Some(&unused), 500), None, "{wait}");
            assert!(check.take_pause());
            assert!(!check.take_pause(), "cleared");
            assert_eq!(request(&check)["method"], "eth_getBlockByNumber");
        }
        check.on_reply(Some(&block(HEAD, 500)), 500);
        let verdict = check.on_reply(Some(&unused), 500);
        assert!(is_undetermined(&verdict), "{verdict:?}");
    }

    #[test]
    fn a_lagging_node_never_makes_an_unused_authorization_expired_whatever_the_local_clock() {
        // The node's head is one block before the transfer: unused there, and its timestamp is
        // before validBefore. The local clock is long past validBefore (but the head is fresh
        // enough by it: 59 s).
        let unused = result(json!(word("0")));
        let mut check = ChainCheck::new(query());
        let unix_now = VALID_BEFORE + 58;
        assert_eq!(
            check.on_reply(Some(&block(HEAD, VALID_BEFORE - 1)), unix_now),
            None
        );
        let verdict = check.on_reply(Some(&unused), unix_now);
        assert!(is_unused(&verdict), "{verdict:?}");
        // Whatever the clock says when the answer comes.
        let mut check = at_head(HEAD, VALID_BEFORE - 1);
        assert!(is_unused(&check.on_reply(Some(&unused), u64::MAX)));
    }

    #[test]
    fn unused_at_a_block_at_or_past_valid_before_is_expired_unused() {
        let unused = result(json!(word("0")));
        for timestamp in [VALID_BEFORE, VALID_BEFORE + 1, VALID_BEFORE + 3_600] {
            // The local clock may even be behind the block's.
            let mut check = ChainCheck::new(query());
            assert_eq!(check.on_reply(Some(&block(HEAD, timestamp)), 0), None);
            assert_eq!(
                check.on_reply(Some(&unused), 0),
                Some(ChainVerdict::ExpiredUnused),
                "block timestamp {timestamp}"
            );
        }
        let mut check = at_head(HEAD, VALID_BEFORE - 1);
        assert!(is_unused(&check.on_reply(Some(&unused), VALID_BEFORE)));
    }

    #[test]
    fn a_stale_head_is_not_read() {
        let unix_now = 5_000;
        let mut check = ChainCheck::new(query());
        let verdict = check.on_reply(Some(&block(HEAD, unix_now - 61)), unix_now);
        match verdict {
            Some(ChainVerdict::Undetermined(why)) => {
                assert!(why.starts_with("chain rpc: head block is stale"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        // 60 s behind is still read.
        let mut check = ChainCheck::new(query());
        assert_eq!(
            check.on_reply(Some(&block(HEAD, unix_now - 60)), unix_now),
            None
        );
        assert_eq!(request(&check)["method"], "eth_call");
    }

    #[test]
    fn a_head_block_without_number_or_timestamp_leaves_the_outcome_unknown() {
        for head in [
            json!(null),
            json!({"number": "0x10"}),
            json!({"timestamp": "0x3e8"}),
            json!({"number": 16, "timestamp": "0x3e8"}),
            json!({"number": "0x10", "timestamp": "1000"}),
            json!({"number": "0x", "timestamp": "0x3e8"}),
            json!({"number": "0x10", "timestamp": "0x+3e8"}),
            json!({"number": "0x10", "timestamp": "0x10000000000000000"}),
        ] {
            let mut check = ChainCheck::new(query());
            let verdict = check.on_reply(Some(&result(head.clone())), 1_000);
            assert!(is_undetermined(&verdict), "{head}: {verdict:?}");
        }
    }

    #[test]
    fn a_provider_that_refuses_the_log_range_leaves_the_outcome_unknown_and_says_why() {
        for message in [
            "query returned more than 10000 results",
            "block range is too wide",
        ] {
            let mut check = at_head(HEAD, 990);
            check.on_reply(Some(&result(json!(word("1")))), 990);
            let refusal = json!({
                "jsonrpc": "2.0",
                "id": 1,
                "error": {"code": -32005, "message": message},
            });
            let verdict = check.on_reply(Some(&serde_json::to_vec(&refusal).unwrap()), 990);
            match verdict {
                Some(ChainVerdict::Undetermined(why)) => {
                    assert_eq!(why, format!("chain rpc: eth_getLogs: {message}"));
                }
                other => panic!("{other:?}"),
            }
        }
    }

    fn at_receipt() -> ChainCheck {
        let mut check = at_head(0x10, 990);
        check.on_reply(Some(&result(json!(word("1")))), 990);
        let logs = json!([log(AUTHORIZATION_USED, "0xabc")]);
        assert_eq!(check.on_reply(Some(&result(logs)), 990), None);
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
            let verdict = at_receipt().on_reply(Some(&result(receipt.clone())), 990);
            assert!(is_undetermined(&verdict), "{receipt}: {verdict:?}");
        }
    }

    #[test]
    fn a_cancelled_authorization_is_never_a_payment() {
        let mut check = at_head(0x10, 990);
        check.on_reply(Some(&result(json!(word("1")))), 990);
        let logs = json!([log(AUTHORIZATION_CANCELED, "0xdef")]);
        assert_eq!(
            check.on_reply(Some(&result(logs)), 990),
            Some(ChainVerdict::Cancelled)
        );
        // A removed (reorganised) log or another nonce's is not ours.
        let mut check = at_head(0x10, 990);
        check.on_reply(Some(&result(json!(word("1")))), 990);
        let mut removed = log(AUTHORIZATION_CANCELED, "0xdef");
        removed["removed"] = json!(true);
        let mut other = log(AUTHORIZATION_CANCELED, "0xdef");
        other["topics"][2] = json!(word("22"));
        assert!(is_undetermined(
            &check.on_reply(Some(&result(json!([removed, other]))), 990)
        ));
    }

    #[test]
    fn rpc_failures_leave_the_outcome_unknown() {
        let answers = [
            None,
            Some(b"<html>502</html>".to_vec()),
            Some(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom"}}"#.to_vec()),
            Some(result(json!(42))),
            Some(result(json!("0x1"))),
            Some(result(json!(word("2")))),
        ];
        // At the first step and at authorizationState (the head fresh and past validBefore:
        // only a clear `false` is expired unused).
        for reply in &answers {
            let mut check = ChainCheck::new(query());
            let verdict = check.on_reply(reply.as_deref(), 5_000);
            assert!(is_undetermined(&verdict), "{verdict:?}");
            let mut check = at_head(HEAD, 5_000);
            let verdict = check.on_reply(reply.as_deref(), 5_000);
            assert!(is_undetermined(&verdict), "{reply:?}: {verdict:?}");
        }
    }
}
