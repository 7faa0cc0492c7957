//! The README's "Try it on Base Sepolia", offline: the service configured for Base Sepolia
//! (`X402_NETWORK=eip155:84532`) with a loopback test facilitator in place of the public
//! x402.org one, and `examples/pay.py` — the official x402 Python client, as a newcomer runs
//! it — paying one extraction of a loopback site. The default facilitator of that
//! configuration is checked in `core/src/config.rs`. Needs python3 with venv and PyPI (the
//! client is installed on first use; `.ci/run` installs it beforehand).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::process::Command;

use contact_e2e::fixture::{request_path, response, service_vars, Fixture};
use contact_e2e::process::Grouped as _;

mod common;
use common::{fixture_pages, Service};

/// What a facilitator lists for Base Sepolia.
const SEPOLIA_SUPPORTED: &str =
    r#"{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:84532"}]}"#;

/// A transaction hash for the test facilitator's settlements.
const TRANSACTION: &str = "0x7e57000000000000000000000000000000000000000000000000000000000001";

/// A test facilitator for Base Sepolia that verifies and settles everything.
fn sepolia_facilitator() -> Fixture {
    Fixture::start(|raw| match request_path(raw).as_str() {
        "/supported" => response(200, "application/json", SEPOLIA_SUPPORTED),
        "/verify" => response(200, "application/json", r#"{"isValid":true}"#),
        _ => response(
            200,
            "application/json",
            &format!(
                r#"{{"success":true,"transaction":"{TRANSACTION}","network":"eip155:84532"}}"#
            ),
        ),
    })
}

fn repository() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// `examples/pay.py` pays one request on the Base Sepolia configuration: the service's local
/// checks accept its signature over Base Sepolia USDC's EIP-712 domain (`USDC`, version 2,
/// chain 84532), the facilitator is asked about that network, and the script prints the
/// contact data and the transaction with its explorer link.
fn the_base_sepolia_example_pays_one_request() {
    let Some(python) = contact_e2e::tools::python_client() else {
        return;
    };
    let site = Fixture::start(fixture_pages);
    let facilitator = sepolia_facilitator();
    let mut vars = service_vars(&site, &facilitator);
    vars.push(("X402_NETWORK", "eip155:84532".to_string()));
    let service = Service::start_with_tls(&vars, Vec::new(), None);
    let (status, body) = service.wait_ready();
    assert_eq!(status, 200, "{body}");

    let output = Command::new(python)
        .arg(repository().join("examples/pay.py"))
        // anvil's first development key: a test wallet.
        .env(
            "PAYER_PRIVATE_KEY",
            "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        )
        .env("SERVICE_URL", format!("http://{}", service.addr))
        .env(
            "TARGET_URL",
            format!("http://www.fixture-shop.com:{}/", site.addr.port()),
        )
        .output_in_group()
        .expect("run examples/pay.py");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let result: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["emails"][0]["value"], "info@fixture-shop.com");
    assert!(
        stderr.contains(&format!(
            "transaction {TRANSACTION} (https://sepolia.basescan.org/tx/{TRANSACTION})"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("paying from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"));
    let requests = facilitator.requests.lock().unwrap();
    let verify = requests
        .iter()
        .map(|r| String::from_utf8_lossy(r).to_string())
        .find(|r| r.starts_with("POST /verify"))
        .expect("a /verify");
    for words in [
        r#""network":"eip155:84532""#,
        r#""asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e""#,
        r#""name":"USDC""#,
    ] {
        assert!(verify.contains(words), "{words} in {verify}");
    }
    assert_eq!(site.count("/"), 1);
}

contact_e2e::both_runtimes!(the_base_sepolia_example_pays_one_request);

/// The README's testnet section names the example and the settings it reads, so that it stays
/// true to them.
#[test]
fn the_readme_testnet_section_names_the_example_and_its_settings() {
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    let section = readme
        .split("## Try it on Base Sepolia")
        .nth(1)
        .expect("a section \"Try it on Base Sepolia\"");
    let section = section.split("\n## ").next().unwrap();
    let example = std::fs::read_to_string(repository().join("examples/pay.py")).unwrap();
    for words in [
        "X402_NETWORK=eip155:84532",
        "examples/pay.py",
        "examples/requirements.txt",
        "PAYER_PRIVATE_KEY",
        "faucet.circle.com",
        "https://x402.org/facilitator",
    ] {
        assert!(section.contains(words), "{words} in the README's section");
    }
    for setting in ["PAYER_PRIVATE_KEY", "SERVICE_URL", "TARGET_URL"] {
        assert!(example.contains(setting), "{setting} in examples/pay.py");
    }
}
