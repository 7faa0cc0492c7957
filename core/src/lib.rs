//! `contact-core`: the sans-IO core of contact-extract.
//!
//! Everything that *decides* lives here, with no sockets, files, clocks or randomness (a
//! clippy `disallowed-methods` list in `core/clippy.toml` enforces it). Runtimes only move
//! bytes, resolve names, dial the addresses the core approved, and read the clock.
//!
//! # The runtime contract
//!
//! A [`server::Server`] holds the shared state (cloned into every exchange; its small mutable
//! part is locked by the core itself, for microseconds); it hands out one
//! [`exchange::Exchange`] per accepted connection. The runtime holds no lock around core calls
//! and drives each exchange with one loop:
//!
//! ```text
//! loop {
//!     // 1. Drain: carry out every output before waiting.
//!     while let Some(out) = ex.poll_output() {
//!         match out {
//!             SendToClient(bytes)            => write to the client,
//!             CloseClient                    => close it (after the writes),
//!             Resolve { fetch, host, port }  => resolve off the executor → Input::Resolved,
//!             Connect { fetch, addr, tls }   => dial exactly `addr` (+ TLS, SNI = tls) → Input::Connected,
//!             SendToFetch { fetch, data }    => write to that connection,
//!             CloseFetch { fetch }           => drop it (and cancel its DNS/connect),
//!             Work { id, work }              => run work.run() on a worker pool → Input::WorkDone,
//!             CancelWork { id }              => forget it (do not feed its answer),
//!             Event(e) / Settlement(e)       => log one line (settlement lines at once),
//!         }
//!     }
//!     if ex.is_finished() { break }
//!     // 2. Wait for one thing: client bytes, fetch bytes/EOF, a DNS/connect result, a
//!     //    worker's answer, or the deadline `ex.poll_timeout()`.
//!     // 3. Feed it with the `Instant` read once for this turn:
//!     //    ex.handle_input(input, now) or ex.handle_timeout(now).
//! }
//! ```
//!
//! Invariants: outputs are carried out in order; each `Resolve`/`Connect`/`Work` is answered
//! exactly once, unless cancelled first by `CloseFetch`/`CancelWork` — and an answer that comes
//! after its cancellation is ignored by the core (it never changes the state); bytes of a
//! closed fetch are not fed; `poll_timeout` may change after any `handle_*` call, and a
//! `handle_timeout` before the deadline (or an extra one) is harmless; `handle_*` never
//! returns an error — every failure becomes an HTTP response (an `ApiError`, a 402 or a 503)
//! or a close. CPU work (page decoding and extraction, the result build) only ever comes as
//! `Work`: the runtime runs it off its IO threads, so one heavy page delays no other
//! connection. The [`net_policy::ApprovedAddr`] in `Connect` can only be built inside the
//! core: by the SSRF policy after the DNS answer was checked (there is no second lookup), or
//! for the operator's configured facilitator URL.
//!
//! # Modules
//!
//! - [`exchange`], [`server`], [`io`], [`effects`]: the lifecycle state machine, its contract
//!   and the outputs it carries;
//! - [`eth`], [`budget`]: Ethereum primitives (addresses, hex, uint256, CAIP-2 chain ids); the
//!   request's time budget;
//! - [`http`], [`api`], [`discovery`]: inbound HTTP/1.1, the JSON contract, the discovery
//!   documents;
//! - [`payment`]: x402 v2 (requirements, header codec, EIP-712 + ECDSA verification, replay
//!   store, facilitator bodies);
//! - [`net_policy`], [`fetch`]: SSRF policy, the outbound HTTP/1.1 codec, decoding, redirects;
//! - [`extract`], [`crawl`], [`site`]: contact extraction, page choice, registrable domains;
//! - [`lexicon`]: the words extraction and page choice look for, one file per language;
//! - [`config`], [`limiter`], [`ids`]: configuration, rate limiting, request ids;
//! - [`work`], [`driver`]: CPU work as effects; the IO-free bookkeeping of runtime drivers;
//! - [`pace`]: checkpoints in long CPU work, where a runtime's pacer yields or stops it;
//! - `testing` (feature): fuzz entry points and the deterministic network simulation.
//!
//! They stand in layers, each importing only from its own layer and those below it
//! (docs/architecture.md, "Layers").
//!
//! Offline extraction, as the CLI does it:
//!
//! ```
//! use contact_core::{crawl, extract};
//! let home = url::Url::parse("https://acme.example.com/").unwrap();
//! let html = br#"<title>Acme Ltd | Home</title><a href="/contact">Contact</a>
//!     <p>Mail <a href="mailto:info@acme.co.uk">info@acme.co.uk</a></p>"#;
//! let page = extract::extract_page(&home, Some("text/html"), html);
//! let plan = crawl::plan(&home, &page.links);
//! assert_eq!(plan.fetch[0].path(), "/contact");
//! assert_eq!(page.emails, ["info@acme.co.uk"]);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

/// The version of this build (the workspace's `version`, e.g. `0.2.0`; semantic versioning,
/// each release a section of CHANGELOG.md): `GET /api/health` reports it, and so do the
/// binary's `--version` and the `contact_build_info` metric.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod api;
pub mod budget;
pub mod client_ip;
pub mod config;
pub mod connections;
pub mod crawl;
pub mod discovery;
pub mod driver;
pub mod effects;
pub mod eth;
pub mod exchange;
pub mod extract;
pub mod fetch;
pub mod http;
pub mod ids;
pub mod io;
pub mod lexicon;
pub mod limiter;
pub mod net_policy;
pub mod pace;
pub mod page_memory;
pub mod payment;
mod responses;
pub mod server;
pub mod site;
pub mod store;
#[cfg(feature = "testing")]
pub mod testing;
pub mod work;
