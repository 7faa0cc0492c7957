//! The reference x402 facilitator on a real (local) chain: anvil with chain id 8453, our own
//! EIP-3009 test token at the Base USDC address, the reference facilitator (`@x402/core` +
//! `@x402/evm` 2.27.0) on loopback, and the official TypeScript and Python clients paying the
//! real service for a real extraction of a fixture site. Money is read on chain: balances,
//! `Transfer` logs, receipts (`.ci/node/chain/lab.mjs` serves those reads).
//!
//! Needs Node.js + npm (and Python 3 for the Python client). `.ci/run` installs the pinned
//! packages into `.ci/node` and `.ci/python/venv`; elsewhere the tests install them on first use
//! and skip with a printed reason when that fails, unless `CI=true`, where they must run.
//! Everything listens on 127.0.0.1; every child process runs in its own process group, stopped
//! with the group when its test ends ([`contact_e2e::process`]).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use contact_core::payment::{codec, SettleResponse};
use contact_e2e::fixture::{header, request_path, response, service_vars_with, Fixture};
use contact_e2e::process::{Group, Grouped as _};
use contact_e2e::tools::skip;
use serde_json::{json, Value};

mod common;
use common::{fixture_pages, post, webpki, Service, CONTACT, HOME};

/// anvil's first development account: the payer of every scenario (1 USDC minted to it).
const PAYER: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
/// The service's `PAY_TO` in [`service_vars_with`].
const PAY_TO: &str = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
/// anvil's fourth development key: ether for gas, no USDC.
const UNFUNDED_KEY: &str = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";
/// The price in atomic USDC units ($0.01).
const PRICE: u64 = 10_000;
/// What the lab mints to the payer (1 USDC).
const MINTED: u64 = 1_000_000;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Whether these tests must run (CI) rather than skip when a tool cannot be installed.
fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Skips (returns `None` after saying why: [`skip`]) or, with `CI=true`, fails.
fn unavailable<T>(reason: &str) -> Option<T> {
    assert!(
        !required(),
        "CI=true and the real-chain test cannot run: {reason}"
    );
    skip(&format!("the real-chain test cannot run: {reason}"));
    None
}

/// `.ci/node` with the pinned packages (anvil, solc-js, the reference facilitator, the official
/// client), installed from the npm registry on first use.
fn node_tools() -> Option<PathBuf> {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _installing = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = repository().join(".ci/node");
    let packages = [
        "@foundry-rs/anvil",
        "solc",
        "@x402/core",
        "@x402/evm",
        "@x402/fetch",
        "@x402/extensions",
        "viem",
    ];
    let installed = || {
        packages
            .iter()
            .all(|p| dir.join("node_modules").join(p).is_dir())
    };
    if !installed() {
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status_in_group();
        if !matches!(status, Ok(s) if s.success()) || !installed() {
            return unavailable(&format!(
                "`npm install` in {} failed (needs Node.js, npm and the npm registry)",
                dir.display()
            ));
        }
    }
    Some(dir)
}

/// The Python interpreter of `.ci/python/venv` with the official `x402` client, installed
/// from PyPI on first use.
fn python_client() -> Option<PathBuf> {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _installing = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = repository().join(".ci/python");
    let python = dir.join("venv/bin/python");
    let ready = || {
        Command::new(&python)
            .args(["-c", "import x402, eth_account, httpx"])
            .output_in_group()
            .is_ok_and(|o| o.status.success())
    };
    if !ready() {
        let made = Command::new("python3")
            .args(["-m", "venv", "venv"])
            .current_dir(&dir)
            .status_in_group()
            .is_ok_and(|s| s.success())
            && Command::new(dir.join("venv/bin/pip"))
                .args(["install", "--quiet", "-r", "requirements.txt"])
                .current_dir(&dir)
                .status_in_group()
                .is_ok_and(|s| s.success());
        if !made || !ready() {
            return unavailable(&format!(
                "the Python client could not be installed in {}/venv (needs python3-venv and PyPI)",
                dir.display()
            ));
        }
    }
    Some(python)
}

/// A local chain (anvil, chain id 8453) with the test token and the reference facilitator.
struct Chain {
    rpc: String,
    lab: String,
    _lab_input: ChildStdin,
    _lab: Group,
    _anvil: Group,
}

impl Chain {
    /// Starts anvil with `anvil_args` and the lab beside it (the facilitator gives up waiting
    /// for a receipt after 5 s and answers `settlement_pending`).
    fn start(tools: &Path, anvil_args: &[&str]) -> Chain {
        let mut anvil = Command::new(tools.join("node_modules/.bin/anvil"))
            .args(["--host", "127.0.0.1", "--port", "0", "--chain-id", "8453"])
            .args(anvil_args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn_in_group()
            .expect("start anvil");
        let lines = BufReader::new(anvil.stdout.take().unwrap());
        let (rpc, rest) = first_line_with(lines, "Listening on ");
        let rpc = format!("http://{}", rpc.trim_start_matches("Listening on ").trim());
        // anvil logs every call: keep reading so it never blocks on a full pipe.
        std::thread::spawn(move || rest.for_each(drop));

        let mut lab = Command::new("node")
            .arg(tools.join("chain/lab.mjs"))
            .arg(&rpc)
            .current_dir(tools)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn_in_group()
            .expect("start the lab (node)");
        let input = lab.stdin.take().unwrap();
        let lines = BufReader::new(lab.stdout.take().unwrap());
        let (ready, _) = first_line_with(lines, "{\"port\"");
        let port = serde_json::from_str::<Value>(&ready).unwrap()["port"]
            .as_u64()
            .unwrap();
        Chain {
            rpc,
            lab: format!("http://127.0.0.1:{port}"),
            _lab_input: input,
            _lab: lab,
            _anvil: anvil,
        }
    }

    /// A JSON-RPC call to anvil; the `result`.
    fn rpc(&self, method: &str, params: Value) -> Value {
        let answer = http_json(
            &self.rpc,
            "POST",
            "/",
            Some(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})),
        );
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    fn lab(&self, path: &str) -> Value {
        http_json(&self.lab, "GET", path, None)
    }

    /// The USDC balance of `owner`, atomic units.
    fn balance(&self, owner: &str) -> u64 {
        self.lab(&format!("/lab/balance/{owner}"))["balance"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    }

    /// Every `Transfer` that is not a mint: `(from, to, value, transaction)`.
    fn transfers(&self) -> Vec<Value> {
        self.lab("/lab/transfers")["transfers"]
            .as_array()
            .unwrap()
            .clone()
    }

    fn mine(&self) {
        self.rpc("evm_mine", json!([]));
    }
}

/// Reads `lines` until one contains `marker` (at most 60 s: a slow solc-js compile on a busy
/// machine); returns that line and the rest of the reader.
fn first_line_with<R: BufRead + Send + 'static>(
    lines: R,
    marker: &str,
) -> (String, std::io::Lines<R>) {
    let marker = marker.to_string();
    let (found, wait) = std::sync::mpsc::channel();
    // The read blocks, so it runs on a thread and the wait has a deadline.
    let reader = std::thread::spawn(move || {
        let mut lines = lines.lines();
        for line in lines.by_ref() {
            let Ok(line) = line else { break };
            if line.contains(&marker) {
                let _ = found.send(line);
                return Some(lines);
            }
        }
        None
    });
    let line = wait
        .recv_timeout(Duration::from_secs(60))
        .expect("the child process did not become ready within 60 s");
    let rest = reader.join().unwrap().unwrap();
    (line, rest)
}

/// One HTTP/1.1 exchange with a loopback JSON endpoint at `base` (`http://127.0.0.1:port`);
/// the body of the answer, as JSON.
fn http_json(base: &str, method: &str, path: &str, body: Option<Value>) -> Value {
    let address = base.trim_start_matches("http://");
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    let (_, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The service wired to `site` and the chain's facilitator; `extra` settings added.
fn service(site: &Fixture, chain: &Chain, extra: &[(&'static str, String)]) -> Service {
    let mut vars = service_vars_with(site.addr, &chain.lab);
    vars.push(("LOG_FORMAT", "pretty".to_string()));
    vars.extend(extra.iter().cloned());
    Service::start_with_tls(&vars, webpki(), None)
}

fn target(site: &Fixture) -> String {
    format!("http://www.fixture-shop.com:{}/", site.addr.port())
}

fn endpoint(service: &Service) -> String {
    format!("http://{}/api/v1/extract-contact", service.addr)
}

/// Runs a client (`program` + `args`) and parses its one-line JSON report.
fn run_client(mut command: Command) -> Value {
    let output = command.output_in_group().expect("run the client");
    assert!(
        output.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON line")
}

/// The official TypeScript client (`.ci/node/pay.mjs`) pays once for an extraction of `site`
/// (with `--once`, no replay of its own), as the payer with `key` (`None`: the funded payer).
fn ts_client(
    tools: &Path,
    service: &Service,
    site: &Fixture,
    key: Option<&str>,
    once: bool,
) -> Value {
    let mut command = Command::new("node");
    command
        .arg(tools.join("pay.mjs"))
        .arg(endpoint(service))
        .arg(target(site));
    if once {
        command.arg("--once");
    }
    if let Some(key) = key {
        command.env("PAYER_KEY", key);
    }
    run_client(command)
}

/// The service's answer to the same `PAYMENT-SIGNATURE` again: `(status, head, body)`.
fn retry(service: &Service, site: &Fixture, signature: &str) -> (u16, String, String) {
    let body = format!(r#"{{"url":"{}"}}"#, target(site));
    service.call(&post(&body, Some(signature)))
}

/// The `PAYMENT-RESPONSE` of a response head, decoded.
fn payment_response(head: &str) -> SettleResponse {
    codec::decode(header(head, "PAYMENT-RESPONSE").expect("a PAYMENT-RESPONSE")).unwrap()
}

/// The authorization nonce inside a `PAYMENT-SIGNATURE` (base64 JSON of a PaymentPayload).
fn nonce_of(signature: &str) -> String {
    let payload: Value = codec::decode(signature).unwrap();
    payload["payload"]["authorization"]["nonce"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Asserts that exactly one transfer moved the price from the payer to `PAY_TO`, in
/// `transaction`, and that its receipt is a success with the `Transfer` log.
fn assert_paid_once(chain: &Chain, transaction: &str) {
    let transfers = chain.transfers();
    assert_eq!(transfers.len(), 1, "{transfers:?}");
    let transfer = &transfers[0];
    assert!(transfer["from"]
        .as_str()
        .unwrap()
        .eq_ignore_ascii_case(PAYER));
    assert!(transfer["to"]
        .as_str()
        .unwrap()
        .eq_ignore_ascii_case(PAY_TO));
    assert_eq!(transfer["value"], PRICE.to_string());
    assert_eq!(transfer["transaction"], transaction);
    let receipt = chain.lab(&format!("/lab/receipt/{transaction}"));
    assert_eq!(
        (receipt["status"].as_str(), receipt["transferLogs"].as_u64()),
        (Some("success"), Some(1))
    );
    assert_eq!(chain.balance(PAYER), MINTED - PRICE);
    assert_eq!(chain.balance(PAY_TO), PRICE);
}

/// Asserts that no money moved.
fn assert_unpaid(chain: &Chain) {
    assert_eq!(chain.transfers(), Vec::<Value>::new());
    assert_eq!(chain.balance(PAYER), MINTED);
    assert_eq!(chain.balance(PAY_TO), 0);
}

fn the_official_ts_client_pays_on_a_real_chain_and_its_replay_moves_no_money() {
    let Some(tools) = node_tools() else { return };
    let chain = Chain::start(&tools, &[]);
    let site = Fixture::start(fixture_pages);
    let service = service(&site, &chain, &[]);
    // The reference facilitator's `/supported` makes the service ready.
    let (status, body) = service.wait_ready();
    assert_eq!(status, 200, "{body}");
    let report = ts_client(&tools, &service, &site, None, false);
    assert_eq!(report["status"], 200, "{report}");
    assert_eq!(
        report["body"]["emails"][0]["value"],
        "info@fixture-shop.com"
    );
    assert_eq!(report["paymentResponse"]["success"], true);
    let transaction = report["paymentResponse"]["transaction"].as_str().unwrap();
    assert_eq!(transaction.len(), 66, "{transaction}");
    // The client's own retry with the same signature: the kept response, no second transfer.
    assert_eq!(report["replayStatus"], 200);
    assert_eq!(report["replayBodyText"], report["bodyText"]);
    assert_paid_once(&chain, transaction);
    assert_eq!((site.count("/"), site.count("/contact")), (1, 1));
}

fn the_official_python_client_pays_on_a_real_chain_and_a_replay_moves_no_money() {
    let Some(tools) = node_tools() else { return };
    let Some(python) = python_client() else {
        return;
    };
    let chain = Chain::start(&tools, &[]);
    let site = Fixture::start(fixture_pages);
    let service = service(&site, &chain, &[]);
    let mut command = Command::new(python);
    command
        .arg(repository().join(".ci/python/pay.py"))
        .arg(endpoint(&service))
        .arg(target(&site));
    let report = run_client(command);
    assert_eq!(report["status"], 200, "{report}");
    assert_eq!(report["body"]["phones"][0]["value"], "+442085516580");
    let transaction = report["paymentResponse"]["transaction"].as_str().unwrap();
    assert_paid_once(&chain, transaction);
    let signature = report["signature"].as_str().unwrap();
    let (status, head, body) = retry(&service, &site, signature);
    assert_eq!(status, 200, "{body}");
    assert_eq!(payment_response(&head).transaction, transaction);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        report["body"]
    );
    assert_paid_once(&chain, transaction);
    assert_eq!(site.count("/"), 1);
}

fn an_unfunded_payer_gets_a_402_and_no_crawl() {
    let Some(tools) = node_tools() else { return };
    let chain = Chain::start(&tools, &[]);
    let site = Fixture::start(fixture_pages);
    let service = service(&site, &chain, &[]);
    let report = ts_client(&tools, &service, &site, Some(UNFUNDED_KEY), true);
    assert_eq!(report["status"], 402, "{report}");
    assert_eq!(site.count("/"), 0);
    assert_unpaid(&chain);
}

fn with_automine_off_a_pending_settlement_is_a_503_then_the_same_signature_gets_the_200() {
    let Some(tools) = node_tools() else { return };
    let chain = Chain::start(&tools, &[]);
    chain.rpc("evm_setAutomine", json!([false]));
    let site = Fixture::start(fixture_pages);
    let service = service(&site, &chain, &[]);
    let report = ts_client(&tools, &service, &site, None, true);
    assert_eq!(report["status"], 503, "{report}");
    assert_unpaid(&chain);
    chain.mine();
    let signature = report["signature"].as_str().unwrap();
    let (status, head, body) = retry(&service, &site, signature);
    assert_eq!(status, 200, "{head}\n{body}");
    let transaction = payment_response(&head).transaction;
    assert_paid_once(&chain, &transaction);
    assert_eq!(site.count("/"), 1, "the retry is not a second crawl");
}

fn blocks_every_2_s_a_slow_homepage_and_an_endless_contact_page_settle_once() {
    let Some(tools) = node_tools() else { return };
    let chain = Chain::start(&tools, &["--block-time", "2"]);
    let site = Fixture::start(|raw| match request_path(raw).as_str() {
        "/" => {
            // A slow homepage is the behaviour under test, not synchronisation.
            std::thread::sleep(Duration::from_secs(3));
            response(200, "text/html", HOME)
        }
        "/contact" => {
            // Never answers within the crawl's deadline.
            std::thread::sleep(Duration::from_secs(50));
            response(200, "text/html", CONTACT)
        }
        _ => response(404, "text/html", ""),
    });
    let service = service(&site, &chain, &[]);
    let started = Instant::now();
    let report = ts_client(&tools, &service, &site, None, true);
    assert_eq!(report["status"], 200, "{report}");
    assert_eq!(
        report["body"]["emails"][0]["value"],
        "info@fixture-shop.com"
    );
    let transaction = report["paymentResponse"]["transaction"].as_str().unwrap();
    assert_paid_once(&chain, transaction);
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}

fn a_payer_that_cancels_while_the_settlement_is_pending_never_gets_a_200_and_keeps_its_money() {
    let Some(tools) = node_tools() else { return };
    let chain = Chain::start(&tools, &[]);
    chain.rpc("evm_setAutomine", json!([false]));
    let site = Fixture::start(fixture_pages);
    let service = service(&site, &chain, &[("CHAIN_RPC_URL", chain.rpc.clone())]);
    let report = ts_client(&tools, &service, &site, None, true);
    assert_eq!(report["status"], 503, "{report}");
    let signature = report["signature"].as_str().unwrap();
    // The payer cancels its authorization with a higher tip: the next block holds the
    // cancellation first, and the facilitator's transfer reverts.
    let cancel = http_json(
        &chain.lab,
        "POST",
        "/lab/cancel",
        Some(json!({"nonce": nonce_of(signature)})),
    );
    assert!(cancel["transaction"].is_string(), "{cancel}");
    chain.mine();
    // The retry reads the chain: AuthorizationCanceled, so a 402 that says so; after that the
    // authorization is spent for good.
    let (status, head, body) = retry(&service, &site, signature);
    assert_eq!(status, 402, "{head}\n{body}");
    assert!(body.contains("authorization cancelled"), "{body}");
    let (status, _, body) = retry(&service, &site, signature);
    assert_eq!(status, 402, "{body}");
    assert!(body.contains("already used"), "{body}");
    assert_eq!(site.count("/"), 1);
    assert_unpaid(&chain);
}

// Every test above, once on each runtime.
contact_e2e::both_runtimes!(
    the_official_ts_client_pays_on_a_real_chain_and_its_replay_moves_no_money,
    the_official_python_client_pays_on_a_real_chain_and_a_replay_moves_no_money,
    an_unfunded_payer_gets_a_402_and_no_crawl,
    with_automine_off_a_pending_settlement_is_a_503_then_the_same_signature_gets_the_200,
    blocks_every_2_s_a_slow_homepage_and_an_endless_contact_page_settle_once,
    a_payer_that_cancels_while_the_settlement_is_pending_never_gets_a_200_and_keeps_its_money,
);
