//! Signed offers and receipts (x402 `offer-receipt`, EIP-712) read by the official verifiers:
//! `@x402/extensions` 2.27.0 reads the 402's offers and, after the official client
//! (`@x402/fetch`) paid, the receipt in `PAYMENT-RESPONSE` (`.ci/node/offers.mjs`). Both
//! signatures must recover to the address the service publishes, the offer must match
//! `accepts[]`, the receipt the offer and the payer; a tampered receipt must not. Each case on
//! both runtimes. Needs Node.js with npm (`.ci/run` installs the pinned packages).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeMap;

use contact_e2e::fixture::{service_vars, Fixture};
use contact_e2e::process::Grouped as _;

mod common;
use common::{fixture_pages, Service};

/// anvil's third development key, as the service's signing key (a well-known test key).
const SIGNING_KEY: &str = "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
/// Its address, as `/.well-known/x402.json` publishes it.
const SIGNER: &str = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";

/// `.ci/node` with the pinned packages, or `None` (skipped) where Node.js or the npm registry
/// is missing (with `CI=true`: a failure).
fn node_tools() -> Option<std::path::PathBuf> {
    contact_e2e::tools::have("node", "Debian: nodejs npm")?;
    Some(contact_e2e::tools::node_packages(&[
        "@x402/fetch",
        "@x402/core",
        "@x402/evm",
        "@x402/extensions",
        "viem",
    ]))
}

fn the_official_utilities_verify_our_offers_and_receipts_and_refuse_a_tampered_receipt() {
    let Some(tools) = node_tools() else { return };
    let site = Fixture::start(fixture_pages);
    let facilitator = Fixture::accepting_facilitator();
    let key_file = std::env::temp_dir().join(format!(
        "contact-extract-offer-key-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&key_file, format!("0x{SIGNING_KEY}\n")).unwrap();
    let mut vars: BTreeMap<&str, String> = service_vars(&site, &facilitator).into_iter().collect();
    vars.insert(
        "RECEIPT_SIGNING_KEY_FILE",
        key_file.to_string_lossy().into_owned(),
    );
    let vars: Vec<(&str, String)> = vars.into_iter().collect();
    let service = Service::start_with_tls(&vars, Vec::new(), None);
    let _ = std::fs::remove_file(&key_file);
    // The published signer.
    let (status, _, discovery) =
        service.call(b"GET /.well-known/x402.json HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
    assert!(discovery.contains(SIGNER), "{discovery}");

    let endpoint = format!("http://{}/api/v1/extract-contact", service.addr);
    let target = format!("http://www.fixture-shop.com:{}/", site.addr.port());
    let output = std::process::Command::new("node")
        .arg(tools.join("offers.mjs"))
        .arg(&endpoint)
        .arg(&target)
        .output_in_group()
        .expect("run node");
    assert!(
        output.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON line");
    assert_eq!(report["unpaidStatus"], 402, "{report}");
    let offers = report["offers"].as_array().unwrap();
    assert_eq!(offers.len(), 1, "{report}");
    let offer = &offers[0];
    assert_eq!(offer["signer"].as_str().unwrap().to_lowercase(), SIGNER);
    assert_eq!(offer["matchesAccepts"], true, "{report}");
    assert_eq!(report["paidStatus"], 200, "{report}");
    assert!(report["contentDigest"]
        .as_str()
        .unwrap()
        .starts_with("sha-256=:"));
    let receipt = &report["receipt"];
    assert_eq!(receipt["signer"].as_str().unwrap().to_lowercase(), SIGNER);
    assert_eq!(receipt["matchesOffer"], true, "{report}");
    assert_eq!(receipt["payload"]["transaction"], "0xfeed");
    assert_eq!(
        receipt["payload"]["payer"].as_str().unwrap().to_lowercase(),
        report["payer"].as_str().unwrap().to_lowercase()
    );
    // The tampered receipt recovers to someone else: a verifier rejects it.
    let forged = report["tampered"]["signer"]
        .as_str()
        .unwrap()
        .to_lowercase();
    assert_ne!(forged, SIGNER, "{report}");
}

contact_e2e::both_runtimes!(
    the_official_utilities_verify_our_offers_and_receipts_and_refuse_a_tampered_receipt,
);
