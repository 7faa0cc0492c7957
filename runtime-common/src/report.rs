//! What a runtime does with the core's `Output::Event` and `Output::Settlement`: count it in the
//! metrics and write its log line (audit lines at once, never dropped).

use contact_core::config::LogFormat;
use contact_core::io::{RequestEvent, SettlementEvent};

use crate::{log, metrics};

/// A finished request: metrics, then its access line.
pub fn report_event(format: LogFormat, event: &RequestEvent) {
    metrics::observe_request(event);
    log::log_event(format, event);
}

/// One `/settle` attempt or chain verdict: metrics, then its audit line.
pub fn report_settlement(format: LogFormat, event: &SettlementEvent) {
    metrics::observe_settlement(event);
    log::log_settlement(format, event);
}
