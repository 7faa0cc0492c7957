//! The access log and operational lines, on stderr, and the audit lines (the record of money),
//! on stderr or in their own file (`AUDIT_LOG`, [`set_audit_log`]).
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

/// The audit line of one `/settle` attempt (docs/payments.md, "Audit"; its fields are listed
/// in docs/operations.md, "The audit log").
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SettlementLine<'a> {
    time: &'a str,
    audit: &'static str,
    request_id: &'a str,
    payer: &'a str,
    nonce: &'a str,
    outcome: &'static str,
    amount: &'a str,
    network: &'a str,
    asset: &'a str,
    pay_to: &'a str,
    reason: Option<&'a str>,
    transaction: Option<&'a str>,
    attempt: u8,
    facilitator: &'a str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    client_gone: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    extension_responses: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    from_chain: bool,
}

/// Where audit lines go: `None` for stderr (with the other lines), or the `AUDIT_LOG` file.
static AUDIT_LOG: Mutex<Option<std::path::PathBuf>> = Mutex::new(None);

/// Sends the audit lines to the file at `path` (`AUDIT_LOG`; docs/operations.md, "The audit
/// log") instead of stderr, or back to stderr with `None`. The file is created if missing
/// (mode 0640) and opened for appending for each line, so renaming it (log rotation) needs no
/// signal: the next line starts a new file.
///
/// # Errors
/// `AUDIT_LOG: <path>: <why>` when the file cannot be opened for appending now.
pub fn set_audit_log(path: Option<&std::path::Path>) -> Result<(), String> {
    if let Some(path) = path {
        open_audit_log(path).map_err(|error| format!("AUDIT_LOG: {}: {error}", path.display()))?;
    }
    *AUDIT_LOG.lock().unwrap_or_else(PoisonError::into_inner) =
        path.map(std::path::Path::to_path_buf);
    Ok(())
}

fn open_audit_log(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o640)
        .open(path)
}

/// Writes one audit `line` where [`set_audit_log`] said: to the file with one `write` (an
/// append of the whole line, so lines of several threads never interleave), or to stderr.
/// A file that cannot be written gets the line on stderr instead, after a line saying why:
/// a money line is never lost.
fn write_audit_line(line: &str) {
    let path = AUDIT_LOG
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let Some(path) = path else {
        log_line_raw(line);
        return;
    };
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    let written = open_audit_log(&path).and_then(|mut file| file.write_all(&bytes));
    if let Err(error) = written {
        let why = format!(
            "AUDIT_LOG: {}: {error}; this audit line goes to stderr",
            path.display()
        );
        log_line_raw(&serde_json::json!({ "message": why }).to_string());
        log_line_raw(line);
    }
}

/// `unix` (time since the Unix epoch) as an RFC 3339 UTC timestamp with milliseconds,
/// `2026-11-29T05:12:03.042Z` (the proleptic Gregorian calendar; days to a civil date as in
/// Howard Hinnant's `civil_from_days`).
pub fn rfc3339(unix: std::time::Duration) -> String {
    let secs = unix.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX / 2);
    let of_day = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3_600,
        of_day / 60 % 60,
        of_day % 60,
        unix.subsec_millis()
    )
}

/// Writes the audit line of one `/settle` attempt at once, like an operational line, with the
/// wall-clock time it is written: money lines are never buffered behind a full buffer nor
/// dropped. They go to `AUDIT_LOG` when set ([`set_audit_log`]), else to stderr.
pub fn log_settlement(format: LogFormat, event: &SettlementEvent) {
    let time = rfc3339(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default(),
    );
    let line = match format {
        LogFormat::Json => serde_json::to_string(&SettlementLine {
            time: &time,
            audit: "settlement",
            request_id: &event.request_id,
            payer: &event.payer,
            nonce: &event.nonce,
            outcome: event.outcome,
            amount: &event.amount,
            network: &event.network,
            asset: &event.asset,
            pay_to: &event.pay_to,
            reason: event.reason.as_deref(),
            transaction: event.transaction.as_deref(),
            attempt: event.attempt,
            facilitator: &event.facilitator,
            client_gone: event.client_gone,
            extension_responses: event.extension_responses.as_deref(),
            from_chain: event.from_chain,
        })
        .unwrap_or_default(),
        LogFormat::Pretty => format!(
            "settlement {} time={time} payer={} nonce={} outcome={} amount={} network={} asset={} pay-to={} reason={:?} tx={:?} attempt={} facilitator={}{}{}",
            event.request_id,
            event.payer,
            event.nonce,
            event.outcome,
            event.amount,
            event.network,
            event.asset,
            event.pay_to,
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
    write_audit_line(&line);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_rfc3339_utc_with_milliseconds() {
        for (unix, text) in [
            (Duration::ZERO, "1970-01-01T00:00:00.000Z"),
            // 2000-02-29 (a leap day in a year divisible by 400), one millisecond in.
            (
                Duration::from_millis(951_782_400_001),
                "2000-02-29T00:00:00.001Z",
            ),
            (
                Duration::from_secs(1_795_000_000),
                "2026-11-18T11:06:40.000Z",
            ),
            (
                Duration::from_secs(4_107_542_399),
                "2100-02-28T23:59:59.000Z",
            ),
            (
                Duration::from_secs(4_107_542_400),
                "2100-03-01T00:00:00.000Z",
            ),
        ] {
            assert_eq!(rfc3339(unix), text, "{unix:?}");
        }
    }
}
