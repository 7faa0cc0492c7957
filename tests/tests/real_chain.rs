//! The reference x402 facilitator on a real (local) chain: anvil with chain id 8453, our own
//! EIP-3009 test token at the Base USDC address, the reference facilitator (`@x402/core` +
//! `@x402/evm` 2.27.0) on loopback, and the official TypeScript and Python clients paying the
//! real service for a real extraction of a fixture site. Money is read on chain: balances,
//! `Transfer` logs, receipts (`.ci/node/chain/lab.mjs` serves those reads, and counts the
//! facilitator's `/verify` and `/settle` calls). Where a test kills the service or reads its
//! audit lines, the service runs in a process of its own ([`ServiceProcess`]); a Redis case
//! starts `redis-server` (Debian); a lagging chain node, or a provider that limits the block
//! range of `eth_getLogs`, is a proxy in front of anvil ([`RpcProxy`]).
//!
//! Needs Node.js + npm (and Python 3 for the Python client). `.ci/run` installs the pinned
//! packages into `.ci/node` and `.ci/python/venv`; elsewhere the tests install them on first use
//! and skip with a printed reason when that fails, unless `CI=true`, where they must run.
//! Everything listens on 127.0.0.1; every child process runs in its own process group, stopped
//! with the group when its test ends ([`contact_e2e::process`]).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use contact_core::payment::{codec, SettleResponse};
use contact_e2e::fixture::{
    header, read_request, request_path, response, service_vars_with, Fixture,
};
use contact_e2e::process::{Group, Grouped as _};
use contact_e2e::runtimes::{runtime, set_runtime, Runtime};
use contact_e2e::tools::{free_port, have, skip};
use serde_json::{json, Value};

mod common;
use common::{call_at, fixture_pages, post, wait_ready_at, webpki, Service, CONTACT, HOME};

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
        let answer = rpc_call(&self.rpc, method, params);
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

    /// How many `/verify` and `/settle` calls the lab's facilitator received.
    fn calls(&self) -> (u64, u64) {
        let calls = self.lab("/lab/calls");
        (
            calls["verify"].as_u64().unwrap(),
            calls["settle"].as_u64().unwrap(),
        )
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

fn endpoint(service: SocketAddr) -> String {
    format!("http://{service}/api/v1/extract-contact")
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
/// (with `--once`, no replay of its own) from the service at `service`, as the payer with `key`
/// (`None`: the funded payer).
fn ts_client(
    tools: &Path,
    service: SocketAddr,
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

/// The answer of the service at `service` to the same `PAYMENT-SIGNATURE` again:
/// `(status, head, body)`.
fn retry(service: SocketAddr, site: &Fixture, signature: &str) -> (u16, String, String) {
    let body = format!(r#"{{"url":"{}"}}"#, target(site));
    call_at(service, &post(&body, Some(signature)))
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

/// The settings that hand [`the_service_in_a_process_of_its_own`] its configuration (a JSON
/// object of variables).
const SERVICE_SETTINGS: &str = "REAL_CHAIN_SERVICE_SETTINGS";
/// The variable that names its runtime (`smol` or `tokio`).
const SERVICE_RUNTIME: &str = "REAL_CHAIN_SERVICE_RUNTIME";
/// What that process prints once it listens, before its address.
const LISTENING: &str = "service listening on ";

/// The message of a 503 for an unknown settlement (docs/payments.md, "Once unknown, never 402").
const PENDING: &str = "settlement pending: retry with the same PAYMENT-SIGNATURE";
/// The message of a 503 for an authorization used without a record (docs/payments.md, "A used
/// authorization with no record").
const UNRECONCILED: &str = "payment outcome unknown: this authorization is already used and the service holds no record of it";

/// The service in a process of its own, so that a test can SIGKILL it (the in-process payment
/// store dies with it) and read its log (JSON lines on stderr, the audit lines among them):
/// this test binary run again for its test [`the_service_in_a_process_of_its_own`], on this
/// test's runtime. Stopped with its process group when dropped.
struct ServiceProcess {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<String>>>,
    /// Closed first when dropped: the process then stops its service.
    _input: ChildStdin,
    group: Group,
}

impl ServiceProcess {
    /// Starts it with `vars` and waits until it listens and `/api/ready` answers 200.
    fn start(vars: &[(&'static str, String)]) -> ServiceProcess {
        let settings: serde_json::Map<String, Value> = vars
            .iter()
            .map(|(name, value)| ((*name).to_string(), Value::String(value.clone())))
            .collect();
        let mut group = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "the_service_in_a_process_of_its_own",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(SERVICE_SETTINGS, Value::Object(settings).to_string())
            .env(SERVICE_RUNTIME, runtime().name())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn_in_group()
            .expect("start the service process");
        let input = group.stdin.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (lines, stderr) = (log.clone(), BufReader::new(group.stderr.take().unwrap()));
        // Read to its end, so the service never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        });
        let stdout = BufReader::new(group.stdout.take().unwrap());
        let (line, rest) = first_line_with(stdout, LISTENING);
        std::thread::spawn(move || rest.for_each(drop));
        let addr = line
            .split(LISTENING)
            .nth(1)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let (status, body) = wait_ready_at(addr);
        assert_eq!(status, 200, "{body}");
        ServiceProcess {
            addr,
            log,
            _input: input,
            group,
        }
    }

    /// SIGKILL: the process dies at once, and whatever it held in memory with it.
    fn kill(&mut self) {
        self.group.kill();
    }

    /// The audit lines it wrote so far (docs/payments.md, "Audit"), parsed.
    fn audit(&self) -> Vec<Value> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|line| line.get("audit").is_some())
            .collect()
    }

    /// The outcomes of its audit lines from the `since`-th on, in order, once `last` is among
    /// them: the line and the response leave the service apart, so this waits for it (at most
    /// 5 s).
    fn outcomes_since(&self, since: usize, last: &str) -> Vec<String> {
        let started = Instant::now();
        loop {
            let outcomes: Vec<String> = self
                .audit()
                .iter()
                .skip(since)
                .map(|line| line["outcome"].as_str().unwrap_or_default().to_string())
                .collect();
            if outcomes.iter().any(|o| o == last) {
                return outcomes;
            }
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "no audit line {last:?} after the first {since}: {outcomes:?}\n{}",
                self.log.lock().unwrap().join("\n")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The last audit line with `outcome` (after [`ServiceProcess::outcomes_since`]).
    fn audit_line(&self, outcome: &str) -> Value {
        self.audit()
            .into_iter()
            .rev()
            .find(|line| line["outcome"] == outcome)
            .unwrap()
    }
}

/// The child half of [`ServiceProcess`], not a test: with `REAL_CHAIN_SERVICE_SETTINGS` set,
/// serves with those settings on the runtime `REAL_CHAIN_SERVICE_RUNTIME` names, prints where it
/// listens and stops when its standard input closes (or after 10 minutes). Ignored, so a test
/// run neither runs nor counts it; [`ServiceProcess::start`] runs it by name with `--ignored`.
/// Run without its settings, it fails.
#[test]
#[ignore = "the child process of ServiceProcess, run by it with --ignored"]
fn the_service_in_a_process_of_its_own() {
    let settings = std::env::var(SERVICE_SETTINGS).unwrap_or_else(|_| {
        panic!("{SERVICE_SETTINGS} is not set: ServiceProcess::start runs this, not a test run")
    });
    set_runtime(match std::env::var(SERVICE_RUNTIME).as_deref() {
        Ok("smol") => Runtime::Smol,
        Ok("tokio") => Runtime::Tokio,
        other => panic!("{SERVICE_RUNTIME}: {other:?}"),
    });
    let settings: BTreeMap<String, String> = serde_json::from_str(&settings).unwrap();
    let vars: Vec<(&str, String)> = settings
        .iter()
        .map(|(name, value)| (name.as_str(), value.clone()))
        .collect();
    let service = Service::start_with_tls(&vars, webpki(), None);
    println!("{LISTENING}{}", service.addr);
    std::io::stdout().flush().unwrap();
    let (closed, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        let _ = closed.send(());
    });
    let _ = wait.recv_timeout(Duration::from_secs(600));
    drop(service);
}

/// The settings of a [`ServiceProcess`] wired to `site` and the chain's facilitator, logging
/// JSON lines; `extra` settings added (a later one wins).
fn process_vars(
    site: &Fixture,
    chain: &Chain,
    extra: &[(&'static str, String)],
) -> Vec<(&'static str, String)> {
    let mut vars = service_vars_with(site.addr, &chain.lab);
    vars.push(("LOG_FORMAT", "json".to_string()));
    vars.extend(extra.iter().cloned());
    vars
}

/// `redis-server` (Debian) on a free loopback port without persistence (`--save ''
/// --appendonly no`): `FLUSHALL` loses every record, as a failover to a replica that never got
/// the writes, or an eviction, would. Stopped when dropped.
struct Redis {
    port: u16,
    _group: Group,
}

impl Redis {
    /// Starts it and waits (at most 10 s) for its `PONG`. `None` when `redis-server` is not
    /// installed: the test skips ([`have`]), or with `CI=true` fails.
    fn start() -> Option<Redis> {
        have("redis-server", "Debian package redis-server")?;
        let port = free_port();
        let group = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn_in_group()
            .expect("start redis-server");
        let redis = Redis {
            port,
            _group: group,
        };
        let started = Instant::now();
        while redis.try_command("PING").as_deref() != Some("+PONG") {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "redis-server did not answer within 10 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(redis)
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Sends `name`, a command without arguments (RESP), and returns the first line of the
    /// reply; `None` when the server cannot be reached.
    fn try_command(&self, name: &str) -> Option<String> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        write!(stream, "*1\r\n${}\r\n{name}\r\n", name.len()).ok()?;
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line).ok()?;
        Some(line.trim_end().to_string())
    }

    /// How many keys it holds (`DBSIZE`).
    fn keys(&self) -> u64 {
        let answer = self.try_command("DBSIZE").expect("redis-server answers");
        answer.trim_start_matches(':').parse().unwrap()
    }

    /// Forgets everything (`FLUSHALL`).
    fn flush(&self) {
        assert_eq!(self.try_command("FLUSHALL").as_deref(), Some("+OK"));
    }
}

/// What an [`RpcProxy`] in front of anvil answers like.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Provider {
    /// A node one block behind the head, while it lags: `eth_getBlockByNumber "latest"` and
    /// everything else pass through (the head it names is fresh), but `eth_call` at a block above
    /// the real head − 1 (by number, or by the hash of such a block: EIP-1898) is the error
    /// `-32000 "header not found"`, and `eth_call` at `"latest"` reads head − 1. Once caught up
    /// ([`RpcProxy::catch_up`]) it passes everything.
    Lagging,
    /// A provider that serves `eth_getLogs` over at most this many blocks, as public RPC
    /// endpoints do: a wider range (`"latest"` read as the head, a missing `fromBlock` as
    /// `"latest"`) is the error `-32005 "query exceeds max block range N"`. Everything else passes.
    LogRange(u64),
}

/// A JSON-RPC endpoint in front of anvil that answers as a [`Provider`]. One request per
/// connection, answered with `Connection: close`; it stops when dropped (or after 3 minutes).
struct RpcProxy {
    url: String,
    lagging: Arc<AtomicBool>,
    counts: Arc<ProxyCounts>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// What an [`RpcProxy`] saw.
#[derive(Default)]
struct ProxyCounts {
    /// Requests it refused (its [`Provider`]'s error).
    refused: AtomicUsize,
    /// `eth_getLogs` requests it passed on.
    log_reads: AtomicUsize,
}

impl RpcProxy {
    /// Starts it in front of the JSON-RPC endpoint `upstream` (`http://127.0.0.1:port`).
    fn start(upstream: &str, provider: Provider) -> RpcProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let lagging = Arc::new(AtomicBool::new(provider == Provider::Lagging));
        let counts = Arc::new(ProxyCounts::default());
        let stop = Arc::new(AtomicBool::new(false));
        let upstream = upstream.to_string();
        let shared = (lagging.clone(), counts.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let (lagging, counts, stop) = shared;
            let started = Instant::now();
            while !stop.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(180) {
                let Ok((mut stream, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                let (upstream, lagging, counts) =
                    (upstream.clone(), lagging.clone(), counts.clone());
                std::thread::spawn(move || {
                    stream.set_nonblocking(false).unwrap();
                    stream
                        .set_read_timeout(Some(Duration::from_secs(5)))
                        .unwrap();
                    let raw = read_request(&mut stream);
                    let text = String::from_utf8_lossy(&raw);
                    let Some(request) = text
                        .split_once("\r\n\r\n")
                        .and_then(|(_, body)| serde_json::from_str::<Value>(body).ok())
                    else {
                        return;
                    };
                    let provider = match provider {
                        Provider::Lagging if !lagging.load(Ordering::SeqCst) => None,
                        other => Some(other),
                    };
                    let answer = proxy_answer(&upstream, request, provider, &counts);
                    let _ =
                        stream.write_all(&response(200, "application/json", &answer.to_string()));
                });
            }
        });
        RpcProxy {
            url,
            lagging,
            counts,
            stop,
            thread: Some(thread),
        }
    }

    /// How many requests it refused.
    fn refused(&self) -> usize {
        self.counts.refused.load(Ordering::SeqCst)
    }

    /// How many `eth_getLogs` requests it passed on.
    fn log_reads(&self) -> usize {
        self.counts.log_reads.load(Ordering::SeqCst)
    }

    /// A [`Provider::Lagging`] node passes every request unchanged from now on.
    fn catch_up(&self) {
        self.lagging.store(false, Ordering::SeqCst);
    }
}

impl Drop for RpcProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One JSON-RPC call to `upstream`; the whole answer.
fn rpc_call(upstream: &str, method: &str, params: Value) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    http_json(upstream, "POST", "/", Some(request))
}

/// A JSON-RPC error answer to `request`.
fn rpc_error(request: &Value, code: i64, message: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": request["id"],
        "error": {"code": code, "message": message},
    })
}

/// [`RpcProxy`]'s answer to one JSON-RPC `request` as `provider` (`None`: pass it on), asking
/// `upstream` for the head and for everything it passes on.
fn proxy_answer(
    upstream: &str,
    mut request: Value,
    provider: Option<Provider>,
    counts: &ProxyCounts,
) -> Value {
    let head = || quantity(&rpc_call(upstream, "eth_blockNumber", json!([]))["result"]);
    match (provider, request["method"].as_str()) {
        (Some(Provider::Lagging), Some("eth_call")) => {
            let behind = head().saturating_sub(1);
            let block = request["params"][1].clone();
            // EIP-1898: a block named by its hash is read at that block's number (a hash anvil
            // does not know, as a block this node has not seen).
            let number = match &block["blockHash"] {
                Value::String(hash) => {
                    let found = rpc_call(upstream, "eth_getBlockByHash", json!([hash, false]));
                    let number = &found["result"]["number"];
                    Some(if number.is_string() {
                        quantity(number)
                    } else {
                        u64::MAX
                    })
                }
                _ => block
                    .as_str()
                    .filter(|tag| tag.starts_with("0x"))
                    .map(|_| quantity(&block)),
            };
            if block == "latest" {
                request["params"][1] = json!(format!("{behind:#x}"));
            } else if number.is_some_and(|n| n > behind) {
                counts.refused.fetch_add(1, Ordering::SeqCst);
                return rpc_error(&request, -32000, "header not found");
            }
        }
        (Some(Provider::LogRange(widest)), Some("eth_getLogs")) => {
            let filter = &request["params"][0];
            let bound = |tag: &Value| match tag.as_str() {
                Some(number) if number.starts_with("0x") => quantity(tag),
                Some("earliest") => 0,
                _ => head(),
            };
            let single_block = filter["blockHash"].is_string();
            let (from, to) = (bound(&filter["fromBlock"]), bound(&filter["toBlock"]));
            if !single_block && to.saturating_sub(from).saturating_add(1) > widest {
                counts.refused.fetch_add(1, Ordering::SeqCst);
                let message = format!("query exceeds max block range {widest}");
                return rpc_error(&request, -32005, &message);
            }
        }
        _ => {}
    }
    if request["method"] == "eth_getLogs" {
        counts.log_reads.fetch_add(1, Ordering::SeqCst);
    }
    http_json(upstream, "POST", "/", Some(request))
}

/// A JSON-RPC quantity (`"0x1a"`) as a number.
fn quantity(value: &Value) -> u64 {
    let hex = value.as_str().unwrap().trim_start_matches("0x");
    u64::from_str_radix(hex, 16).unwrap()
}

/// The `validBefore` (unix seconds) inside a `PAYMENT-SIGNATURE`.
fn valid_before_of(signature: &str) -> u64 {
    let payload: Value = codec::decode(signature).unwrap();
    payload["payload"]["authorization"]["validBefore"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// The local clock, unix seconds.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The error of a JSON error body: `(code, message)`.
fn error_of(body: &str) -> (String, String) {
    let body: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    let text = |field: &str| {
        body["error"][field]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    (text("code"), text("message"))
}

/// The 503's message while another request holds the authorization's reservation.
const IN_PROGRESS: &str =
    "a request with this payment is still in progress; retry with the same PAYMENT-SIGNATURE";

/// [`retry`] until the answer is not 503 "in progress" (at most 5 s), asserting that each such
/// answer carries no `PAYMENT-REQUIRED`; the last answer. With Redis the release of a
/// reservation is a write of its own, which may still be on its way when the answer that
/// released it arrives.
fn retry_while_in_progress(
    service: SocketAddr,
    site: &Fixture,
    signature: &str,
) -> (u16, String, String) {
    let started = Instant::now();
    loop {
        let answer = retry(service, site, signature);
        if answer.0 != 503 || error_of(&answer.2).1 != IN_PROGRESS {
            return answer;
        }
        assert_503_without_payment_required(&answer, IN_PROGRESS);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "still in progress after 5 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Asserts a 503 `INTERNAL_ERROR` with `message` and no `PAYMENT-REQUIRED` header: a client must
/// not read it as a request to pay (again).
fn assert_503_without_payment_required(answer: &(u16, String, String), message: &str) {
    let (status, head, body) = answer;
    assert_eq!(*status, 503, "{head}\n{body}");
    assert_eq!(
        error_of(body),
        ("INTERNAL_ERROR".to_string(), message.to_string()),
        "{body}"
    );
    assert_eq!(header(head, "PAYMENT-REQUIRED"), None, "{head}");
}

fn the_official_ts_client_pays_on_a_real_chain_and_its_replay_moves_no_money() {
    let Some(tools) = node_tools() else { return };
    let chain = Chain::start(&tools, &[]);
    let site = Fixture::start(fixture_pages);
    let service = service(&site, &chain, &[]);
    // The reference facilitator's `/supported` makes the service ready.
    let (status, body) = service.wait_ready();
    assert_eq!(status, 200, "{body}");
    let report = ts_client(&tools, service.addr, &site, None, false);
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
    let Some(python) = contact_e2e::tools::python_client() else {
        return;
    };
    let chain = Chain::start(&tools, &[]);
    let site = Fixture::start(fixture_pages);
    let service = service(&site, &chain, &[]);
    let mut command = Command::new(python);
    command
        .arg(repository().join(".ci/python/pay.py"))
        .arg(endpoint(service.addr))
        .arg(target(&site));
    let report = run_client(command);
    assert_eq!(report["status"], 200, "{report}");
    assert_eq!(report["body"]["phones"][0]["value"], "+442085516580");
    let transaction = report["paymentResponse"]["transaction"].as_str().unwrap();
    assert_paid_once(&chain, transaction);
    let signature = report["signature"].as_str().unwrap();
    let (status, head, body) = retry(service.addr, &site, signature);
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
    let report = ts_client(&tools, service.addr, &site, Some(UNFUNDED_KEY), true);
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
    let report = ts_client(&tools, service.addr, &site, None, true);
    assert_eq!(report["status"], 503, "{report}");
    assert_unpaid(&chain);
    chain.mine();
    let signature = report["signature"].as_str().unwrap();
    let (status, head, body) = retry(service.addr, &site, signature);
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
    let report = ts_client(&tools, service.addr, &site, None, true);
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
    let report = ts_client(&tools, service.addr, &site, None, true);
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
    let (status, head, body) = retry(service.addr, &site, signature);
    assert_eq!(status, 402, "{head}\n{body}");
    assert!(body.contains("authorization cancelled"), "{body}");
    let (status, _, body) = retry(service.addr, &site, signature);
    assert_eq!(status, 402, "{body}");
    assert!(body.contains("already used"), "{body}");
    assert_eq!(site.count("/"), 1);
    assert_unpaid(&chain);
}

/// The official TS client pays once (`--once`) for an extraction of `site` from the service at
/// `service`: a 200 and one transfer to `PAY_TO`; its report, the transaction and the
/// `PAYMENT-SIGNATURE` it sent.
fn pay_once(
    tools: &Path,
    chain: &Chain,
    site: &Fixture,
    service: SocketAddr,
) -> (Value, String, String) {
    let report = ts_client(tools, service, site, None, true);
    assert_eq!(report["status"], 200, "{report}");
    let transaction = report["paymentResponse"]["transaction"]
        .as_str()
        .unwrap()
        .to_string();
    let signature = report["signature"].as_str().unwrap().to_string();
    assert_paid_once(chain, &transaction);
    (report, transaction, signature)
}

/// How a test loses the service's record of a payment.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Loss {
    /// The in-process store: SIGKILL, then a new process with the same settings.
    Crash,
    /// Redis without persistence: `FLUSHALL`, as a failover to a replica that never got the
    /// writes would.
    Flush,
}

/// The official TS client pays once (200, one transfer); the service loses its record (`loss`);
/// the same `PAYMENT-SIGNATURE` again finds the reference facilitator's `/verify` saying "nonce
/// already used". With `judge` (`CHAIN_RPC_URL` = anvil) the chain shows the transfer: the job
/// runs again without a `/settle` and answers 200 naming the original transaction. Without it:
/// 503 "payment outcome unknown", no `PAYMENT-REQUIRED`, audit `unreconciled` — never a 402, and
/// the money moves once whatever the answer.
fn a_lost_record(loss: Loss, judge: bool) {
    let Some(tools) = node_tools() else { return };
    let redis = match loss {
        Loss::Crash => None,
        Loss::Flush => match Redis::start() {
            Some(redis) => Some(redis),
            None => return,
        },
    };
    let chain = Chain::start(&tools, &[]);
    let site = Fixture::start(fixture_pages);
    let mut extra = Vec::new();
    if let Some(redis) = &redis {
        extra.push(("REDIS_URL", redis.url()));
    }
    if judge {
        extra.push(("CHAIN_RPC_URL", chain.rpc.clone()));
    }
    let vars = process_vars(&site, &chain, &extra);
    let mut service = ServiceProcess::start(&vars);
    let (report, transaction, signature) = pay_once(&tools, &chain, &site, service.addr);
    let signature = signature.as_str();
    assert_eq!(chain.calls(), (1, 1));
    assert_eq!(service.outcomes_since(0, "settled"), ["settled"]);
    let before = service.audit().len();
    match &redis {
        None => {
            service.kill();
            service = ServiceProcess::start(&vars);
        }
        Some(redis) => {
            assert!(redis.keys() > 0, "the record is in Redis");
            redis.flush();
            assert_eq!(redis.keys(), 0);
        }
    }
    let since = if loss == Loss::Crash { 0 } else { before };
    let answer = retry(service.addr, &site, signature);
    if judge {
        let (status, head, body) = &answer;
        assert_eq!(*status, 200, "{head}\n{body}");
        let settled = payment_response(head);
        assert!(settled.success, "{head}");
        assert_eq!(
            (settled.transaction.as_str(), settled.network.as_str()),
            (transaction.as_str(), "eip155:8453")
        );
        let result: Value = serde_json::from_str(body).unwrap();
        assert_eq!(result["emails"], report["body"]["emails"]);
        assert_eq!(result["phones"], report["body"]["phones"]);
        let outcomes = service.outcomes_since(since, "confirmed_on_chain_without_record");
        assert_eq!(outcomes, ["confirmed_on_chain_without_record"]);
        let line = service.audit_line("confirmed_on_chain_without_record");
        assert_eq!(line["transaction"], transaction.as_str());
        assert_eq!(line["requestId"], header(head, "X-Request-Id").unwrap());
        // The job ran again (the result was lost with the record); no second `/settle`.
        assert_eq!(chain.calls(), (2, 1));
        assert_eq!(site.count("/"), 2);
        // Now recorded again: the same signature gets the kept 200, no facilitator call.
        let (again, again_head, again_body) = retry(service.addr, &site, signature);
        assert_eq!((again, &again_body), (200, body), "{again_head}");
        assert_eq!(chain.calls(), (2, 1));
    } else {
        assert_503_without_payment_required(&answer, UNRECONCILED);
        let outcomes = service.outcomes_since(since, "unreconciled");
        assert_eq!(outcomes, ["unreconciled"]);
        let line = service.audit_line("unreconciled");
        assert_eq!(line["nonce"], nonce_of(signature));
        assert!(line["payer"].as_str().unwrap().eq_ignore_ascii_case(PAYER));
        assert_eq!(
            line["requestId"],
            header(&answer.1, "X-Request-Id").unwrap()
        );
        // The reservation was released: judged again, the same answer.
        let again = retry_while_in_progress(service.addr, &site, signature);
        assert_503_without_payment_required(&again, UNRECONCILED);
        assert_eq!(chain.calls(), (3, 1));
        assert_eq!(site.count("/"), 1);
    }
    assert_paid_once(&chain, &transaction);
}

fn a_record_lost_in_a_crash_without_a_chain_rpc_is_a_503_unreconciled_never_a_402() {
    a_lost_record(Loss::Crash, false);
}

fn a_record_lost_in_a_crash_with_the_chain_rpc_is_a_200_naming_the_original_transaction() {
    a_lost_record(Loss::Crash, true);
}

fn a_record_flushed_from_redis_without_a_chain_rpc_is_a_503_unreconciled_never_a_402() {
    a_lost_record(Loss::Flush, false);
}

fn a_record_flushed_from_redis_with_the_chain_rpc_is_a_200_naming_the_original_transaction() {
    a_lost_record(Loss::Flush, true);
}

/// Automine off, `CHAIN_RPC_URL` set: the facilitator's receipt wait times out and the chain
/// shows the authorization unused before `validBefore` (503 "settlement pending"); once the block
/// is mined, the same signature gets the 200 with that transaction, one transfer.
fn with_the_chain_rpc_a_pending_settlement_mined_later_is_the_200_once() {
    let Some(tools) = node_tools() else { return };
    let chain = Chain::start(&tools, &[]);
    chain.rpc("evm_setAutomine", json!([false]));
    let site = Fixture::start(fixture_pages);
    let vars = process_vars(&site, &chain, &[("CHAIN_RPC_URL", chain.rpc.clone())]);
    let service = ServiceProcess::start(&vars);
    let report = ts_client(&tools, service.addr, &site, None, true);
    assert_eq!(report["status"], 503, "{report}");
    assert_eq!(report["body"]["error"]["message"], PENDING, "{report}");
    let pending = report["paymentResponse"]["transaction"].as_str().unwrap();
    assert_unpaid(&chain);
    // The facilitator answered `settlement_pending` (every attempt), then the chain read showed
    // the authorization unused at a head before `validBefore`: unknown, not expired.
    let audit = service.audit();
    assert!(
        audit.iter().all(|line| line["outcome"] == "unknown"),
        "{audit:?}"
    );
    assert_eq!(audit[0]["reason"], "settlement_pending");
    let last = audit.last().unwrap()["reason"].as_str().unwrap();
    assert!(
        last.starts_with("authorization not used at block"),
        "{audit:?}"
    );
    let (_, settles) = chain.calls();
    chain.mine();
    let signature = report["signature"].as_str().unwrap();
    let (status, head, body) = retry(service.addr, &site, signature);
    assert_eq!(status, 200, "{head}\n{body}");
    let transaction = payment_response(&head).transaction;
    assert_eq!(transaction, pending);
    assert_paid_once(&chain, &transaction);
    // The retry's `/settle` finds the mined transaction: the reference facilitator answers
    // success with it, and the service records it settled.
    let outcomes = service.outcomes_since(audit.len(), "settled");
    assert_eq!(outcomes, ["settled"]);
    assert_eq!(service.audit_line("settled")["transaction"], pending);
    assert_eq!(chain.calls(), (1, settles + 1));
    assert_eq!(site.count("/"), 1, "the retry is not a second crawl");
}

/// `CHAIN_RPC_URL` is a node one block behind ([`Provider::Lagging`]); automine off. The settlement is
/// pending (503), the local clock passes `validBefore`, then the transfer is mined in a block
/// stamped inside the window. The retry (too late for a `/settle`) reads the chain at the head,
/// which the node refuses: 503 "settlement pending", never a 402; once the node catches up, the
/// 200 with the transaction (audit `confirmed_on_chain`). One transfer throughout.
fn behind_a_lagging_chain_node_a_payment_mined_past_its_window_is_a_503_never_a_402() {
    let Some(tools) = node_tools() else { return };
    let chain = Chain::start(&tools, &[]);
    chain.rpc("evm_setAutomine", json!([false]));
    let node = RpcProxy::start(&chain.rpc, Provider::Lagging);
    let site = Fixture::start(fixture_pages);
    // The shortest window the service allows: the client signs `validBefore` = now + 64 s.
    let vars = process_vars(
        &site,
        &chain,
        &[
            ("CHAIN_RPC_URL", node.url.clone()),
            ("X402_MAX_TIMEOUT_SECONDS", "64".to_string()),
        ],
    );
    let service = ServiceProcess::start(&vars);
    let report = ts_client(&tools, service.addr, &site, None, true);
    assert_eq!(report["status"], 503, "{report}");
    assert_eq!(report["body"]["error"]["message"], PENDING, "{report}");
    assert_unpaid(&chain);
    let signature = report["signature"].as_str().unwrap();
    let valid_before = valid_before_of(signature);
    // The local clock passes `validBefore`: a service that trusted it over the chain would call
    // the authorization expired unused.
    let deadline = Instant::now() + Duration::from_secs(90);
    while unix_now() <= valid_before {
        assert!(
            Instant::now() < deadline,
            "validBefore {valid_before} never passed"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // The transfer's block, stamped just inside the window (USDC takes it) and mined now: the
    // head holds the transfer, a node one block behind has not seen it.
    chain.rpc("evm_setNextBlockTimestamp", json!([valid_before - 1]));
    chain.mine();
    let transfers = chain.transfers();
    assert_eq!(transfers.len(), 1, "{transfers:?}");
    let transaction = transfers[0]["transaction"].as_str().unwrap().to_string();
    assert_paid_once(&chain, &transaction);
    let (refused, calls) = (node.refused(), chain.calls());
    let seen = service.audit().len();
    let answer = retry(service.addr, &site, signature);
    assert_503_without_payment_required(&answer, PENDING);
    assert!(
        node.refused() > refused,
        "the service read the chain at the head"
    );
    // Unknown, for the node's reason: neither "expired unused" nor "settlement failed".
    let outcomes = service.outcomes_since(seen, "unknown");
    let audit = service.audit();
    assert_eq!(outcomes, ["unknown"], "{audit:?}");
    assert_eq!(
        audit[seen]["reason"], "chain rpc: eth_call: header not found",
        "{audit:?}"
    );
    assert_eq!(chain.calls(), calls, "past the window: no facilitator call");
    assert_paid_once(&chain, &transaction);
    // The node catches up: the chain confirms the transfer.
    node.catch_up();
    let (status, head, body) = retry(service.addr, &site, signature);
    assert_eq!(status, 200, "{head}\n{body}");
    assert_eq!(payment_response(&head).transaction, transaction);
    let outcomes = service.outcomes_since(seen + 1, "confirmed_on_chain");
    assert_eq!(outcomes, ["confirmed_on_chain"]);
    assert_eq!(
        service.audit_line("confirmed_on_chain")["transaction"],
        transaction.as_str()
    );
    assert_eq!(chain.calls(), calls);
    assert_paid_once(&chain, &transaction);
    assert_eq!(site.count("/"), 1);
}

/// The chain judge's setting (docs/configuration.md): with `judge`, `CHAIN_RPC_URL` = `rpc`;
/// without it `none`, which turns the judge off.
fn judge_setting(judge: bool, rpc: &str) -> (&'static str, String) {
    let url = if judge { rpc } else { "none" };
    ("CHAIN_RPC_URL", url.to_string())
}

/// The payer cancels its authorization (FiatTokenV2's `cancelAuthorization(authorizer, nonce,
/// v, r, s)`, mined at once) as soon as the reference facilitator's `/verify` has answered it
/// valid, while the service waits 3 s for the site's homepage; the service's `/settle` then
/// hears "already used" though nothing of ours was broadcast (docs/payments.md, "Only evidence
/// delivers"). The client's answer and two retries with the same `PAYMENT-SIGNATURE` are never
/// a 200 and no money moves: with `judge` (`CHAIN_RPC_URL` = anvil) the chain shows
/// `AuthorizationCanceled`, a 402 each time; without it (`CHAIN_RPC_URL=none`) a 503 "payment
/// outcome unknown" without `PAYMENT-REQUIRED` each time (audit `unreconciled`), never a 402.
fn a_payer_that_cancels_after_verify(judge: bool) {
    let Some(tools) = node_tools() else { return };
    let chain = Chain::start(&tools, &[]);
    let site = Fixture::start(|raw| match request_path(raw).as_str() {
        "/" => {
            // A slow homepage is the behaviour under test: the payer's window to cancel.
            std::thread::sleep(Duration::from_secs(3));
            response(200, "text/html", HOME)
        }
        "/contact" => response(200, "text/html", CONTACT),
        _ => response(404, "text/html", ""),
    });
    let vars = process_vars(&site, &chain, &[judge_setting(judge, &chain.rpc)]);
    let service = ServiceProcess::start(&vars);
    let armed = http_json(
        &chain.lab,
        "POST",
        "/lab/cancel-after-verify",
        Some(json!({})),
    );
    assert_eq!(armed["armed"], true, "{armed}");
    let report = ts_client(&tools, service.addr, &site, None, true);
    let signature = report["signature"].as_str().unwrap().to_string();
    // The cancellation is on chain; the facilitator's transfer never happened.
    let cancelled = chain.lab("/lab/cancelled");
    assert_eq!(
        cancelled["nonces"],
        json!([nonce_of(&signature)]),
        "{report}"
    );
    let first = (
        report["status"].as_u64().unwrap(),
        report["bodyText"].as_str().unwrap().to_string(),
    );
    let retries = [
        retry(service.addr, &site, &signature),
        retry_while_in_progress(service.addr, &site, &signature),
    ];
    let mut answers = vec![first];
    answers.extend(retries.iter().map(|(s, _, b)| (u64::from(*s), b.clone())));
    let statuses: Vec<u64> = answers.iter().map(|(status, _)| *status).collect();
    let expected = if judge { 402 } else { 503 };
    assert_eq!(statuses, [expected; 3], "{answers:?}");
    for (status, head, _) in &retries {
        if let Some(raw) = header(head, "PAYMENT-RESPONSE") {
            let settled: SettleResponse = codec::decode(raw).unwrap();
            assert!(!settled.success, "{status}: {head}");
        }
        // A 503 never asks to pay again; a 402 does.
        assert_eq!(header(head, "PAYMENT-REQUIRED").is_some(), judge, "{head}");
    }
    if !judge {
        for (_, body) in &answers {
            let (code, message) = error_of(body);
            assert_eq!(code, "INTERNAL_ERROR", "{body}");
            assert!(message.starts_with("payment outcome unknown"), "{body}");
        }
        let outcomes = service.outcomes_since(0, "unreconciled");
        assert!(outcomes.iter().all(|o| o != "settled"), "{outcomes:?}");
    }
    let audit = service.audit();
    let delivered = [
        "settled",
        "confirmed_on_chain",
        "confirmed_on_chain_without_record",
    ];
    assert!(
        audit
            .iter()
            .all(|line| !delivered.contains(&line["outcome"].as_str().unwrap_or_default())),
        "{audit:?}"
    );
    assert_unpaid(&chain);
}

fn with_the_chain_rpc_a_payer_that_cancels_after_verify_gets_a_402_three_times_and_pays_nothing() {
    a_payer_that_cancels_after_verify(true);
}

fn without_the_chain_rpc_a_payer_that_cancels_after_verify_gets_a_503_three_times_and_pays_nothing()
{
    a_payer_that_cancels_after_verify(false);
}

/// The official TS client pays (200) a service whose `X402_MAX_TIMEOUT_SECONDS` is 64, so it
/// signs `validBefore` = now + 64 s; the service is SIGKILLed and started again (its in-process
/// record lost); the same `PAYMENT-SIGNATURE` comes back once less than 55 s of its window are
/// left, so the local window check (60 s) fails (docs/payments.md, "An expired authorization
/// without a record"). With `judge` the chain is asked first — used, with the transfer to
/// `payTo` — and the answer is a 200 naming the original transaction (audit
/// `confirmed_on_chain_without_record`), no second `/settle`; with the judge off
/// (`CHAIN_RPC_URL=none`), the documented 402 with `PAYMENT-REQUIRED`. One transfer either way.
fn a_lost_record_and_a_late_retry(judge: bool) {
    let Some(tools) = node_tools() else { return };
    let chain = Chain::start(&tools, &[]);
    let site = Fixture::start(fixture_pages);
    let extra = [
        ("X402_MAX_TIMEOUT_SECONDS", "64".to_string()),
        judge_setting(judge, &chain.rpc),
    ];
    let vars = process_vars(&site, &chain, &extra);
    let mut service = ServiceProcess::start(&vars);
    let (report, transaction, signature) = pay_once(&tools, &chain, &site, service.addr);
    let signature = signature.as_str();
    service.kill();
    service = ServiceProcess::start(&vars);
    // Wait (at most 70 s) until less than 55 s of the authorization's window are left.
    let valid_before = valid_before_of(signature);
    let deadline = Instant::now() + Duration::from_secs(70);
    while unix_now() + 55 <= valid_before {
        assert!(Instant::now() < deadline, "validBefore − 55 s never came");
        std::thread::sleep(Duration::from_millis(200));
    }
    let (status, head, body) = retry(service.addr, &site, signature);
    if judge {
        assert_eq!(status, 200, "{head}\n{body}");
        let settled = payment_response(&head);
        assert!(settled.success, "{head}");
        assert_eq!(settled.transaction, transaction);
        let result: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(result["emails"], report["body"]["emails"]);
        let outcomes = service.outcomes_since(0, "confirmed_on_chain_without_record");
        assert_eq!(outcomes, ["confirmed_on_chain_without_record"]);
        let line = service.audit_line("confirmed_on_chain_without_record");
        assert_eq!(line["transaction"], transaction.as_str());
        // The job ran again (the result was lost with the record); no second `/settle`.
        assert_eq!(chain.calls().1, 1);
        assert_eq!(site.count("/"), 2);
    } else {
        assert_eq!(status, 402, "{head}\n{body}");
        assert!(header(&head, "PAYMENT-REQUIRED").is_some(), "{head}");
        assert_eq!(site.count("/"), 1);
    }
    assert_paid_once(&chain, &transaction);
}

fn with_the_chain_rpc_a_late_retry_after_a_lost_record_is_a_200_naming_the_original_transaction() {
    a_lost_record_and_a_late_retry(true);
}

fn without_the_chain_rpc_a_late_retry_after_a_lost_record_is_the_documented_402() {
    a_lost_record_and_a_late_retry(false);
}

/// `CHAIN_RPC_URL` is a provider that serves `eth_getLogs` over at most 50 blocks
/// ([`Provider::LogRange`]) and `CHAIN_LOG_RANGE` says so; 300 blocks are mined before the
/// payment and 300 after, so the transfer lies several log pages from either end of any search.
/// The official TS client pays (200); the record is lost (SIGKILL); the retry hears "already
/// used" from `/verify` and the chain, searched page by page, finds the transfer: a 200 naming
/// the original transaction, more than one `eth_getLogs`, none refused.
fn a_chain_search_past_one_log_page_finds_the_original_transaction() {
    let Some(tools) = node_tools() else { return };
    let chain = Chain::start(&tools, &[]);
    let node = RpcProxy::start(&chain.rpc, Provider::LogRange(50));
    let site = Fixture::start(fixture_pages);
    let extra = [
        ("CHAIN_RPC_URL", node.url.clone()),
        ("CHAIN_LOG_RANGE", "50".to_string()),
    ];
    let vars = process_vars(&site, &chain, &extra);
    let mut service = ServiceProcess::start(&vars);
    // Blocks stamped now (interval 0): the authorization's window is real time.
    chain.rpc("anvil_mine", json!(["0x12c", "0x0"]));
    let (_, transaction, signature) = pay_once(&tools, &chain, &site, service.addr);
    let signature = signature.as_str();
    chain.rpc("anvil_mine", json!(["0x12c", "0x0"]));
    service.kill();
    service = ServiceProcess::start(&vars);
    let (refused, reads) = (node.refused(), node.log_reads());
    let (status, head, body) = retry(service.addr, &site, signature);
    let refusals = node.refused() - refused;
    assert_eq!(status, 200, "{head}\n{body}\n{refusals} log reads refused");
    assert_eq!(payment_response(&head).transaction, transaction);
    let outcomes = service.outcomes_since(0, "confirmed_on_chain_without_record");
    assert_eq!(outcomes, ["confirmed_on_chain_without_record"]);
    assert_eq!(refusals, 0, "every log read within 50 blocks");
    assert!(
        node.log_reads() > reads + 1,
        "{} log reads",
        node.log_reads() - reads
    );
    assert_eq!(chain.calls().1, 1, "no second /settle");
    assert_paid_once(&chain, &transaction);
}

// Every test above, once on each runtime.
contact_e2e::both_runtimes!(
    the_official_ts_client_pays_on_a_real_chain_and_its_replay_moves_no_money,
    the_official_python_client_pays_on_a_real_chain_and_a_replay_moves_no_money,
    an_unfunded_payer_gets_a_402_and_no_crawl,
    with_automine_off_a_pending_settlement_is_a_503_then_the_same_signature_gets_the_200,
    blocks_every_2_s_a_slow_homepage_and_an_endless_contact_page_settle_once,
    a_payer_that_cancels_while_the_settlement_is_pending_never_gets_a_200_and_keeps_its_money,
    a_record_lost_in_a_crash_without_a_chain_rpc_is_a_503_unreconciled_never_a_402,
    a_record_lost_in_a_crash_with_the_chain_rpc_is_a_200_naming_the_original_transaction,
    a_record_flushed_from_redis_without_a_chain_rpc_is_a_503_unreconciled_never_a_402,
    a_record_flushed_from_redis_with_the_chain_rpc_is_a_200_naming_the_original_transaction,
    with_the_chain_rpc_a_pending_settlement_mined_later_is_the_200_once,
    behind_a_lagging_chain_node_a_payment_mined_past_its_window_is_a_503_never_a_402,
    with_the_chain_rpc_a_payer_that_cancels_after_verify_gets_a_402_three_times_and_pays_nothing,
    without_the_chain_rpc_a_payer_that_cancels_after_verify_gets_a_503_three_times_and_pays_nothing,
    with_the_chain_rpc_a_late_retry_after_a_lost_record_is_a_200_naming_the_original_transaction,
    without_the_chain_rpc_a_late_retry_after_a_lost_record_is_the_documented_402,
    a_chain_search_past_one_log_page_finds_the_original_transaction,
);
