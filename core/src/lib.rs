//! `contact-core`: the sans-IO core of contact-extract.
//!
//! Everything that *decides* lives here, with no sockets, files, clocks or randomness (a
//! clippy `disallowed-methods` list in `core/clippy.toml` enforces it):
//!
//! - [`extract`]: page bytes → contact data (emails, E.164 phones, social profiles, schema.org
//!   `PostalAddress` values, company name, links), and [`extract::merge`] of a site's pages
//!   into the spec's [`api::ContactExtractionResult`];
//! - [`crawl`]: which ≤ 3 same-site pages to fetch after the homepage, and `contactPages`;
//! - [`site`]: registrable domains (Public Suffix List) and the result's `domain`.
//!
//! The request lifecycle (HTTP/1.1, x402 payment, SSRF policy, fetch state machine) joins this
//! crate as the `Server`/`Exchange` state machines of `../shared/design/architecture.md`.
//!
//! Offline use, as the CLI does it:
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

pub mod api;
pub mod config;
pub mod crawl;
pub mod discovery;
pub mod exchange;
pub mod extract;
pub mod fetch;
pub mod http;
pub mod ids;
pub mod io;
pub mod limiter;
pub mod net_policy;
pub mod payment;
pub mod server;
pub mod site;
#[cfg(feature = "testing")]
pub mod testing;
