//! `contact-runtime-common`: the runtime-neutral half of contact-extract's runtimes — what a
//! smol or a tokio runtime needs alike and that is not IO-free enough for the core:
//!
//! - [`log`]: the access, audit and operational lines on stderr (batched, never blocking a
//!   request; audit lines written at once);
//! - [`metrics`]: the Prometheus metrics served on `METRICS_ADDR`;
//! - [`tls`]: the rustls client configuration (webpki roots) and its failure mapping;
//! - [`batch`]: `extract-batch` (list, politeness, records, resume, progress, summary);
//! - [`cli`]: the command-line settings (`serve`, and the fetch/log settings shared with
//!   `extract`);
//! - [`offline`]: the offline commands `extract-html` and `extract-dir`;
//! - [`ordered`]: a parallel map that keeps input order (`extract-dir --jobs`);
//! - [`own_addrs`]: the host's outward addresses, for the SSRF block list;
//! - [`redis_store`]: the shared store in Redis (`REDIS_URL`): the core's store operations as
//!   Lua scripts, on store threads;
//! - [`report`]: the core's access and audit events to metrics and log lines;
//! - [`service`]: `serve`'s start-up (server, settings, own addresses), the metrics answer and
//!   the system resolver;
//! - [`workers`]: the pool that runs the core's CPU work, paced and under its CPU budget.
//!
//! The IO-free driver rules (answers owed, the timer rule, client reads, writes that outlive a
//! deadline) are `contact_core::driver::Driver`.

#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod batch;
pub mod cli;
pub mod log;
pub mod metrics;
pub mod offline;
pub mod ordered;
pub mod own_addrs;
pub mod redis_store;
pub mod report;
pub mod service;
pub mod tls;
pub mod workers;
