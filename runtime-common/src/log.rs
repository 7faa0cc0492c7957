//! The access log and operational lines, on stderr.
//!
//! A request never waits for the log: its line is appended to an in-memory buffer (no system
//! call, no thread wake-up) and a writer thread writes the buffer every
//! `FLUSH_INTERVAL`. Operational lines ([`log_line`]) are rare and written at once, after
//! whatever is buffered, so the order of lines is kept. If stderr blocks, requests go on and
//! lines beyond `MAX_BUFFERED_BYTES` are counted and dropped, never queued without bound.

use std::io::Write as _;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use contact_core::api::ErrorCode;
use contact_core::config::LogFormat;
use contact_core::io::{RequestEvent, SettlementEvent};
use serde::Serialize;

/// How often buffered request lines are written.
const FLUSH_INTERVAL: Duration = Duration::from_millis(50);
/// Buffered log bytes beyond which request lines are dropped (and counted).
const MAX_BUFFERED_BYTES: usize = 16 * 1024 * 1024;

/// Lines not yet written, and how many were dropped since the last write.
struct Pending {
    bytes: Vec<u8>,
    dropped: u64,
}

fn pending() -> MutexGuard<'static, Pending> {
    static PENDING: Mutex<Pending> = Mutex::new(Pending {
        bytes: Vec::new(),
        dropped: 0,
    });
    PENDING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Held while writing to stderr, so lines leave in the order they were logged.
fn writing() -> MutexGuard<'static, ()> {
    static WRITING: Mutex<()> = Mutex::new(());
    WRITING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Starts the writer thread once.
fn start_writer() {
    static WRITER: OnceLock<()> = OnceLock::new();
    WRITER.get_or_init(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(FLUSH_INTERVAL);
            flush_logs();
        });
    });
}

/// Writes every buffered line now.
pub fn flush_logs() {
    let _order = writing();
    let (bytes, dropped) = {
        let mut pending = pending();
        (
            std::mem::take(&mut pending.bytes),
            std::mem::take(&mut pending.dropped),
        )
    };
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(&bytes);
    if dropped > 0 {
        let _ = writeln!(
            stderr,
            "{{\"message\":\"log buffer full: {dropped} request line(s) dropped\"}}"
        );
    }
    let _ = stderr.flush();
}

/// One access-log line (JSON).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AccessLine<'a> {
    request_id: &'a str,
    client: std::net::IpAddr,
    method: &'a str,
    path: &'a str,
    status: u16,
    error_code: Option<ErrorCode>,
    duration_ms: u64,
    pages_fetched: u32,
    payer: Option<&'a str>,
    transaction: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    client_gone: bool,
    #[serde(skip_serializing_if = "is_zero")]
    pages_too_costly: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<&'a str>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Whether [`log_event`] writes access lines (on unless a command turns them off).
static ACCESS_LINES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Turns the per-request access lines off for the rest of the process: `extract-batch`, whose
/// records already say how each crawl ended and whose stderr carries the progress bar.
/// Warnings, audit and operational lines are still written.
pub fn disable_access_lines() {
    ACCESS_LINES.store(false, std::sync::atomic::Ordering::Relaxed);
}

/// One line per request: request id, method, path, status, error code, duration in
/// milliseconds, pages fetched, payer and transaction when paid, `clientGone: true` when the
/// client had left (nothing was sent), and the `cause` of a homepage that could not be read.
pub fn log_event(format: LogFormat, event: &RequestEvent) {
    if !ACCESS_LINES.load(std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    start_writer();
    let mut pending = pending();
    if pending.bytes.len() >= MAX_BUFFERED_BYTES {
        pending.dropped += 1;
        return;
    }
    let bytes = &mut pending.bytes;
    let _ = match format {
        LogFormat::Json => serde_json::to_writer(
            &mut *bytes,
            &AccessLine {
                request_id: &event.request_id,
                client: event.client,
                method: &event.method,
                path: &event.path,
                status: event.status,
                error_code: event.error_code,
                duration_ms: event.duration_ms,
                pages_fetched: event.pages_fetched,
                payer: event.payer.as_deref(),
                transaction: event.transaction.as_deref(),
                client_gone: event.client_gone,
                pages_too_costly: event.pages_too_costly,
                cause: event.cause.as_deref(),
            },
        )
        .map_err(std::io::Error::other),
        LogFormat::Pretty => write!(
            bytes,
            "{} {} {} {} -> {} {:?} {} ms pages={} too-costly={} payer={:?} tx={:?}{}{}",
            event.request_id,
            event.client,
            event.method,
            event.path,
            event.status,
            event.error_code,
            event.duration_ms,
            event.pages_fetched,
            event.pages_too_costly,
            event.payer,
            event.transaction,
            if event.client_gone {
                " client gone"
            } else {
                ""
            },
            event
                .cause
                .as_deref()
                .map(|cause| format!(" cause={cause:?}"))
                .unwrap_or_default()
        ),
    };
    bytes.push(b'\n');
}

/// The audit line of one `/settle` attempt (docs/payments.md).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SettlementLine<'a> {
    audit: &'static str,
    request_id: &'a str,
    payer: &'a str,
    nonce: &'a str,
    outcome: &'static str,
    reason: Option<&'a str>,
    transaction: Option<&'a str>,
    attempt: u8,
    facilitator: &'a str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    client_gone: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    extension_responses: Option<&'a str>,
}

/// Writes the audit line of one `/settle` attempt at once, like an operational line: money
/// lines are never buffered behind a full buffer nor dropped.
pub fn log_settlement(format: LogFormat, event: &SettlementEvent) {
    let line = match format {
        LogFormat::Json => serde_json::to_string(&SettlementLine {
            audit: "settlement",
            request_id: &event.request_id,
            payer: &event.payer,
            nonce: &event.nonce,
            outcome: event.outcome,
            reason: event.reason.as_deref(),
            transaction: event.transaction.as_deref(),
            attempt: event.attempt,
            facilitator: &event.facilitator,
            client_gone: event.client_gone,
            extension_responses: event.extension_responses.as_deref(),
        })
        .unwrap_or_default(),
        LogFormat::Pretty => format!(
            "settlement {} payer={} nonce={} outcome={} reason={:?} tx={:?} attempt={} facilitator={}{}{}",
            event.request_id,
            event.payer,
            event.nonce,
            event.outcome,
            event.reason,
            event.transaction,
            event.attempt,
            event.facilitator,
            if event.client_gone {
                " client gone"
            } else {
                ""
            },
            event
                .extension_responses
                .as_deref()
                .map(|value| format!(" extension-responses={value}"))
                .unwrap_or_default()
        ),
    };
    log_line_raw(&line);
}

/// A free-form operational line (start-up, warnings, shutdown), written at once.
pub fn log_line(format: LogFormat, message: &str) {
    let line = match format {
        LogFormat::Json => serde_json::json!({ "message": message }).to_string(),
        LogFormat::Pretty => message.to_string(),
    };
    log_line_raw(&line);
}

/// Appends `line` after whatever is buffered and writes everything now.
fn log_line_raw(line: &str) {
    {
        let mut pending = pending();
        pending.bytes.extend_from_slice(line.as_bytes());
        pending.bytes.push(b'\n');
    }
    flush_logs();
}
