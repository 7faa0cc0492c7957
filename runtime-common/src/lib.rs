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
//! - [`own_addrs`]: the host's outward addresses, for the SSRF block list.
//!
//! The IO-free driver bookkeeping (answers owed, the timer rule) is in
//! `contact_core::driver`.

#![forbid(unsafe_code)]

pub mod batch;
pub mod cli;
pub mod log;
pub mod metrics;
pub mod offline;
pub mod ordered;
pub mod own_addrs;
pub mod tls;
