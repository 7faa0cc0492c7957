//! The README's "Try it on Base Sepolia", offline: the service configured for Base Sepolia
//! (`X402_NETWORK=eip155:84532`) with a loopback test facilitator in place of the public
//! x402.org one, and the two caller examples — `examples/pay.py` (the official x402 Python
//! client) and `examples/pay.ts` (the official TypeScript client, `@x402/fetch`, compiled by
//! the pinned `tsc`), as a newcomer runs them — paying one extraction of a loopback site; and
//! their recovery path: after a lost answer or a 503 with `Retry-After`, the same
//! `PAYMENT-SIGNATURE` is sent again and the kept result comes back, settled once. The default
//! facilitator of that configuration is checked in `core/src/config.rs`. Needs python3 with
//! venv and PyPI, Node.js and npm (the clients are installed on first use; `.ci/run` installs
//! them beforehand).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use contact_e2e::fixture::{request_path, response, service_vars, Fixture};
use contact_e2e::process::Grouped as _;

mod common;
use common::{fixture_pages, Service};

/// What a facilitator lists for Base Sepolia.
const SEPOLIA_SUPPORTED: &str =
    r#"{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:84532"}]}"#;

/// A transaction hash for the test facilitator's settlements.
const TRANSACTION: &str = "0x7e57000000000000000000000000000000000000000000000000000000000001";

/// A Base Sepolia settlement with [`TRANSACTION`].
fn settled() -> Vec<u8> {
    response(
        200,
        "application/json",
        &format!(r#"{{"success":true,"transaction":"{TRANSACTION}","network":"eip155:84532"}}"#),
    )
}

/// A test facilitator for Base Sepolia that verifies everything and answers the `n`th
/// `/settle` (from 1) with `settle(n)`.
fn sepolia_facilitator_with(settle: impl Fn(usize) -> Vec<u8> + Send + Sync + 'static) -> Fixture {
    let settles = AtomicUsize::new(0);
    Fixture::start(move |raw| match request_path(raw).as_str() {
        "/supported" => response(200, "application/json", SEPOLIA_SUPPORTED),
        "/verify" => response(200, "application/json", r#"{"isValid":true}"#),
        _ => settle(settles.fetch_add(1, Ordering::SeqCst) + 1),
    })
}

/// A test facilitator for Base Sepolia that verifies and settles everything.
fn sepolia_facilitator() -> Fixture {
    sepolia_facilitator_with(|_| settled())
}

fn repository() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The two caller examples.
#[derive(Debug, Clone, Copy)]
enum Example {
    /// `examples/pay.py`, the official x402 Python client.
    Python,
    /// `examples/pay.ts`, the official x402 TypeScript client (`@x402/fetch`).
    TypeScript,
}

impl Example {
    /// The command that runs the example; `None` when the Python client cannot be installed
    /// here (the test skips, or fails with `CI=true`).
    fn command(self) -> Option<Command> {
        match self {
            Example::Python => {
                let mut command = Command::new(contact_e2e::tools::python_client()?);
                command.arg(repository().join("examples/pay.py"));
                Some(command)
            }
            Example::TypeScript => {
                let mut command = Command::new("node");
                command.arg(contact_e2e::tools::typescript_example());
                Some(command)
            }
        }
    }
}

/// A Base Sepolia service paid through `facilitator`, with the fixture site.
fn sepolia_service(site: &Fixture, facilitator: &Fixture) -> Service {
    let mut vars = service_vars(site, facilitator);
    vars.push(("X402_NETWORK", "eip155:84532".to_string()));
    let service = Service::start_with_tls(&vars, Vec::new(), None);
    let (status, body) = service.wait_ready();
    assert_eq!(status, 200, "{body}");
    service
}

/// Runs `example` against `service` for the fixture site, with `env`, and checks that it paid:
/// exit status 0, the site's contact data on standard output, the settlement's transaction on
/// standard error; its standard error. `None` when the example cannot run here (skipped).
fn run_paid(
    example: Example,
    service: &Service,
    site: &Fixture,
    env: &[(&str, &str)],
) -> Option<String> {
    let mut command = example.command()?;
    let output = command
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
        .envs(env.iter().copied())
        .output_in_group()
        .unwrap_or_else(|e| panic!("run {example:?}: {e}"));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{example:?}: {stdout}\n{stderr}");
    let result: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["emails"][0]["value"], "info@fixture-shop.com");
    assert!(
        stderr.contains(&format!(
            "transaction {TRANSACTION} (https://sepolia.basescan.org/tx/{TRANSACTION})"
        )),
        "{example:?}: {stderr}"
    );
    Some(stderr.to_string())
}

/// Each example pays one request on the Base Sepolia configuration: the service's local
/// checks accept its signature over Base Sepolia USDC's EIP-712 domain (`USDC`, version 2,
/// chain 84532), the facilitator is asked about that network, and the script prints the
/// contact data and the transaction with its explorer link.
fn the_base_sepolia_example_pays_one_request() {
    for example in [Example::Python, Example::TypeScript] {
        let site = Fixture::start(fixture_pages);
        let facilitator = sepolia_facilitator();
        let service = sepolia_service(&site, &facilitator);
        let Some(stderr) = run_paid(example, &service, &site, &[]) else {
            continue;
        };
        assert!(
            stderr.contains("paying from 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),
            "{example:?}: {stderr}"
        );
        assert!(!stderr.contains("again"), "{example:?}: no retry: {stderr}");
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
            assert!(verify.contains(words), "{example:?}: {words} in {verify}");
        }
        assert_eq!(site.count("/"), 1);
    }
}

/// The answer to the paid request is lost: the first `/settle` takes 3 s and the example waits
/// 1 s (`PAID_CALL_TIMEOUT_SECONDS`). It sends the same `PAYMENT-SIGNATURE` again, is told
/// the payment is still in progress (503, `Retry-After: 2`), waits, sends it again and gets
/// the kept result: one `/verify`, one `/settle`, one crawl — one charge.
fn after_a_lost_answer_the_example_sends_the_same_signature_again() {
    for example in [Example::Python, Example::TypeScript] {
        let site = Fixture::start(fixture_pages);
        let facilitator = sepolia_facilitator_with(|n| {
            if n == 1 {
                std::thread::sleep(Duration::from_secs(3));
            }
            settled()
        });
        let service = sepolia_service(&site, &facilitator);
        let env = [("PAID_CALL_TIMEOUT_SECONDS", "1")];
        let Some(stderr) = run_paid(example, &service, &site, &env) else {
            continue;
        };
        for words in [
            "the answer was lost",
            "sending the same PAYMENT-SIGNATURE again",
        ] {
            assert!(stderr.contains(words), "{example:?}: {words} in {stderr}");
        }
        assert_eq!(facilitator.count("/verify"), 1, "{example:?}: {stderr}");
        assert_eq!(facilitator.count("/settle"), 1, "{example:?}: {stderr}");
        assert_eq!(site.count("/"), 1, "{example:?}");
    }
}

/// The settlement's outcome is unknown (the facilitator answers `settlement_pending` to the
/// job's two attempts): the service answers 503 "settlement pending: retry with the same
/// PAYMENT-SIGNATURE" with `Retry-After: 5`; the example waits that long, sends the same
/// signature again, and the retry's `/settle` succeeds: the kept result, no second crawl or
/// `/verify`.
fn after_settlement_pending_the_example_sends_the_same_signature_again() {
    for example in [Example::Python, Example::TypeScript] {
        let site = Fixture::start(fixture_pages);
        let facilitator = sepolia_facilitator_with(|n| {
            if n <= 2 {
                response(
                    200,
                    "application/json",
                    r#"{"success":false,"errorReason":"settlement_pending","transaction":"","network":"eip155:84532"}"#,
                )
            } else {
                settled()
            }
        });
        let service = sepolia_service(&site, &facilitator);
        let Some(stderr) = run_paid(example, &service, &site, &[]) else {
            continue;
        };
        for words in [
            r#"503 "settlement pending: retry with the same PAYMENT-SIGNATURE": waiting 5 s"#,
            "sending the same PAYMENT-SIGNATURE again",
        ] {
            assert!(stderr.contains(words), "{example:?}: {words} in {stderr}");
        }
        assert!(
            !stderr.contains("the answer was lost"),
            "{example:?}: {stderr}"
        );
        assert_eq!(facilitator.count("/verify"), 1, "{example:?}: {stderr}");
        assert_eq!(facilitator.count("/settle"), 3, "{example:?}: {stderr}");
        assert_eq!(site.count("/"), 1, "{example:?}");
    }
}

contact_e2e::both_runtimes!(
    the_base_sepolia_example_pays_one_request,
    after_a_lost_answer_the_example_sends_the_same_signature_again,
    after_settlement_pending_the_example_sends_the_same_signature_again,
);

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
