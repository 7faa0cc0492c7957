//! The CLI, run as a process: offline extraction, the live `extract` against a loopback
//! fixture site, and `serve` start-up and shutdown.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use contact_e2e::process::{Group, Grouped as _};
use contact_e2e::wait::{holds_within, wait_until};

/// The binary, on this test's runtime (`RUNTIME`; the cases at the end run on both).
fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_contact-extract"));
    command.env("RUNTIME", contact_e2e::runtimes::runtime().name());
    command
}

fn corpus_page(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pages")
        .join(name)
}

fn stdout_json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON document")
}

#[test]
fn extract_html_merges_a_site_in_page_order() {
    if contact_benches::shared_or_skip("corpus/pages", "extract_html_merges_a_site_in_page_order")
        .is_none()
    {
        return;
    }
    let output = bin()
        .args(["extract-html", "--url", "http://www.caltronind.com/"])
        .arg(corpus_page("caltronind.com__home.html"))
        .arg("--page")
        .arg(format!(
            "http://www.caltronind.com/contact.html={}",
            corpus_page("caltronind.com__contact.html").display()
        ))
        .output_in_group()
        .expect("run contact-extract");
    let json = stdout_json(&output);
    assert_eq!(json["success"], true);
    assert_eq!(json["inputUrl"], "http://www.caltronind.com/");
    assert_eq!(json["domain"], "caltronind.com");
    assert_eq!(json["emails"][0]["value"], "sales@caltronind.com");
    assert_eq!(json["emails"][0]["sourceUrl"], "http://www.caltronind.com/");
    assert_eq!(json["phones"][0]["value"], "+15104401800");
    assert_eq!(json["addresses"][0]["postalCode"], "94538");
    assert_eq!(
        json["pagesScanned"],
        serde_json::json!([
            "http://www.caltronind.com/",
            "http://www.caltronind.com/contact.html"
        ])
    );
    assert_eq!(json["meta"]["pagesFetched"], 2);
    for field in ["companyName", "socials", "contactPages", "requestId"] {
        assert!(json.get(field).is_some(), "missing {field}");
    }
    for network in ["linkedin", "facebook", "instagram", "x", "youtube"] {
        assert!(json["socials"][network].is_array(), "socials.{network}");
    }
}

#[test]
fn unreadable_file_is_a_clear_error() {
    let output = bin()
        .args([
            "extract-html",
            "--url",
            "https://a.example.com/",
            "/nonexistent/page.html",
        ])
        .output_in_group()
        .expect("run contact-extract");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot read /nonexistent/page.html"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn bad_arguments_are_refused() {
    for args in [
        vec!["extract-html", "--url", "ftp://x.example.com/", "f.html"],
        vec![
            "extract-html",
            "--url",
            "https://x.example.com/",
            "f.html",
            "--page",
            "no-equals-sign",
        ],
        vec!["extract-html", "f.html"],
        vec!["no-such-command"],
    ] {
        let output = bin()
            .args(&args)
            .output_in_group()
            .expect("run contact-extract");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(!output.stderr.is_empty());
    }
}

#[test]
fn extract_dir_prints_one_line_per_page_and_a_summary() {
    let dir = std::env::temp_dir().join(format!("contact-extract-cli-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).expect("temp dir");
    // 25 000 bytes of comment make the summary's size readable at two decimals.
    std::fs::write(
        dir.join("acme.nl.html"),
        format!(
            "<p>Mail info@acme.nl, tel 0115 616 400</p><!--{}-->",
            "x".repeat(25_000)
        ),
    )
    .expect("write");
    std::fs::write(
        dir.join("sub/page.html"),
        "<link rel=canonical href='https://www.shop.example.co.uk/contact'><p>T: 020 8551 6580</p>",
    )
    .expect("write");
    std::fs::write(dir.join("binary.html"), [0xff, 0xfe, 0x00, 0x3c, 0x80]).expect("write");
    std::fs::write(dir.join("notes.txt"), "not html").expect("write");
    let output = bin()
        .arg("extract-dir")
        .arg(&dir)
        .output_in_group()
        .expect("run contact-extract");
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 3);
    let by_file = |suffix: &str| {
        lines
            .iter()
            .find(|l| l["file"].as_str().is_some_and(|f| f.ends_with(suffix)))
            .expect(suffix)
    };
    let acme = by_file("acme.nl.html");
    assert_eq!(acme["result"]["inputUrl"], "https://acme.nl/");
    assert_eq!(acme["result"]["emails"][0]["value"], "info@acme.nl");
    assert_eq!(acme["result"]["phones"][0]["value"], "+31115616400");
    let page = by_file("page.html");
    assert_eq!(page["result"]["domain"], "shop.example.co.uk");
    assert_eq!(page["result"]["phones"][0]["value"], "+442085516580");
    assert_eq!(by_file("binary.html")["result"]["success"], true);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The size counts the bytes of the pages read (25 144: 0.03 MB).
    assert!(
        stderr.contains("pages: 3, MB: 0.03,") && stderr.contains("MB/s"),
        "{stderr}"
    );
}

fn serve_answers_then_drains_and_exits_zero_on_sigterm() {
    use std::io::{Read, Write};
    let (mut child, address, lines) = start_serve(&[]);
    let mut stream = std::net::TcpStream::connect(&address).expect("connect");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .expect("timeout");
    stream
        .write_all(b"GET /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n")
        .expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    assert!(
        response.starts_with("HTTP/1.1 503"),
        "not configured, so not ready: {response}"
    );
    assert!(response.contains("PAY_TO"));
    sigterm(&child);
    let exit = wait_exit(&mut child);
    assert!(exit.success(), "{exit:?}");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l.contains("draining")), "{rest:?}");
}

/// The start-up log of `serve` with `vars` (and no `PAY_TO` or `FACILITATOR_URL` from the
/// environment), up to the line that names its address; the service is stopped then.
fn start_up_lines(vars: &[(&str, &str)]) -> Vec<String> {
    use std::io::BufRead;
    let mut command = bin();
    command
        .arg("serve")
        .env("BIND_ADDR", "127.0.0.1:0")
        .env("LOG_FORMAT", "pretty")
        .env_remove("PAY_TO")
        .env_remove("FACILITATOR_URL")
        // The facilitator's name never reaches a real resolver: loopback, refused there.
        .env("RESOLVE", "x402.org=127.0.0.1")
        .stderr(std::process::Stdio::piped());
    for (name, value) in vars {
        command.env(name, value);
    }
    let mut child = command.spawn_in_group().expect("start serve");
    let stderr = child.stderr.take().expect("stderr");
    let mut seen = Vec::new();
    for line in std::io::BufReader::new(stderr).lines().take(40) {
        let Ok(line) = line else { break };
        let done = line.starts_with("listening on ");
        seen.push(line);
        if done {
            break;
        }
    }
    sigterm(&child);
    wait_exit(&mut child);
    seen
}

/// On Base Sepolia without `FACILITATOR_URL` the service says at start that it uses the public
/// x402.org testnet facilitator; on Base mainnet it names the choices instead.
fn the_start_up_log_names_the_testnet_facilitator_or_the_mainnet_choices() {
    let payments = [
        ("PUBLIC_BASE_URL", "http://127.0.0.1:8080"),
        ("PAY_TO", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
    ];
    let mut sepolia = payments.to_vec();
    sepolia.push(("X402_NETWORK", "eip155:84532"));
    let lines = start_up_lines(&sepolia);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("https://x402.org/facilitator")
                && l.contains("FACILITATOR_URL is not set")),
        "{lines:?}"
    );
    let lines = start_up_lines(&payments);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("FACILITATOR_URL is not set")
                && l.contains("https://api.cdp.coinbase.com/platform/v2/x402")
                && l.contains("keyless")),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("x402.org")), "{lines:?}");
}

/// A loopback site: a homepage linking to /contact (the phone) and /about (a 404).
fn live_site() -> contact_e2e::fixture::Fixture {
    use contact_e2e::fixture::{request_path, response, Fixture};
    Fixture::start(|raw| match request_path(raw).as_str() {
        "/" => response(
            200,
            "text/html",
            r#"<title>Fixture Shop | Home</title><a href="/contact">Contact</a><a href="/about">About</a>
            <a href="mailto:info@fixture-shop.com">Mail us</a>"#,
        ),
        "/contact" => response(200, "text/html", "<p>Phone: +44 20 8551 6580</p>"),
        _ => response(404, "text/html", ""),
    })
}

fn extract_crawls_a_live_site_without_payment() {
    let site = live_site();
    let url = format!("http://www.fixture-shop.com:{}/", site.addr.port());
    let output = bin()
        .args(["extract", &url])
        .env("ALLOW_PRIVATE_CIDRS", "127.0.0.0/8")
        .env("ALLOWED_PORTS", site.addr.port().to_string())
        .env("RESOLVE", "www.fixture-shop.com=127.0.0.1")
        .env_remove("PAY_TO")
        .output_in_group()
        .expect("run");
    let json = stdout_json(&output);
    assert_eq!(json["inputUrl"], url.as_str());
    assert_eq!(json["companyName"], "Fixture Shop");
    assert_eq!(json["emails"][0]["value"], "info@fixture-shop.com");
    assert_eq!(json["phones"][0]["value"], "+442085516580");
    assert_eq!(json["meta"]["pagesFetched"], 3);
    assert_eq!((site.count("/"), site.count("/contact")), (1, 1));
}

fn extract_applies_the_ssrf_rules_and_reports_an_api_error() {
    let site = live_site();
    // Loopback is refused unless the operator exempts it.
    let url = format!("http://127.0.0.1:{}/", site.addr.port());
    let output = bin()
        .args(["extract", &url])
        .env("ALLOWED_PORTS", site.addr.port().to_string())
        .env_remove("ALLOW_PRIVATE_CIDRS")
        .env_remove("RESOLVE")
        .output_in_group()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("ApiError JSON");
    assert_eq!(json["success"], false);
    assert_eq!(json["error"]["code"], "PRIVATE_ADDRESS");
    assert!(String::from_utf8_lossy(&output.stderr).contains("contact-extract:"));
    assert_eq!(site.count("/"), 0);
    // A site that refuses connections is FETCH_FAILED.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    let output = bin()
        .args(["extract", &format!("http://127.0.0.1:{port}/")])
        .env("ALLOW_PRIVATE_CIDRS", "127.0.0.0/8")
        .env("ALLOWED_PORTS", port.to_string())
        .output_in_group()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("ApiError JSON");
    assert_eq!(json["error"]["code"], "FETCH_FAILED");
}

/// Starts `contact-extract serve` on 127.0.0.1:0 with `vars`; returns the child, its address
/// and the rest of its stderr lines.
fn start_serve(
    vars: &[(&str, String)],
) -> (
    Group,
    String,
    std::io::Lines<std::io::BufReader<std::process::ChildStderr>>,
) {
    use std::io::BufRead;
    let mut command = bin();
    command
        .arg("serve")
        .env("BIND_ADDR", "127.0.0.1:0")
        .env("LOG_FORMAT", "pretty")
        .env_remove("PAY_TO")
        .stderr(std::process::Stdio::piped());
    for (name, value) in vars {
        command.env(name, value);
    }
    let mut child = command.spawn_in_group().expect("start serve");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = std::io::BufReader::new(stderr).lines();
    for _ in 0..20 {
        let Some(Ok(line)) = lines.next() else { break };
        if let Some(rest) = line.strip_prefix("listening on ") {
            return (child, rest.trim().to_string(), lines);
        }
    }
    child.kill();
    panic!("the service did not log its address");
}

/// Waits (at most 20 s) for the child to exit; a child still running is stopped when its
/// guard drops.
fn wait_exit(child: &mut Group) -> std::process::ExitStatus {
    contact_e2e::wait::wait_for(
        "the service to exit after SIGTERM",
        std::time::Duration::from_secs(20),
        || child.try_wait().expect("wait"),
    )
}

fn sigterm(child: &Group) {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status_in_group()
        .expect("kill");
    assert!(status.success());
}

fn sigterm_lets_an_in_flight_paid_request_finish_and_refuses_new_connections() {
    use contact_e2e::fixture::Fixture;
    use std::io::{Read, Write};
    use std::time::Duration;
    let site = slow_home_site(Duration::from_millis(1500));
    let facilitator = Fixture::accepting_facilitator();
    let vars = contact_e2e::fixture::service_vars(&site, &facilitator);
    let request = paid_request(&vars, &site, 50);
    let (mut child, address, lines) = start_serve(&vars);
    let in_flight = {
        let address = address.clone();
        std::thread::spawn(move || {
            let mut stream = std::net::TcpStream::connect(&address).expect("connect");
            stream
                .set_read_timeout(Some(Duration::from_secs(20)))
                .expect("timeout");
            stream.write_all(request.as_bytes()).expect("write");
            let mut out = String::new();
            let _ = stream.read_to_string(&mut out);
            out
        })
    };
    wait_until(
        "the job to fetch the (slow) homepage",
        Duration::from_secs(10),
        || site.count("/") > 0,
    );
    assert_eq!(site.count("/"), 1);
    sigterm(&child);
    // No longer accepting: while the paid request is still in flight, a new connection is
    // refused (not left waiting in the backlog until the process exits, nor served), so a
    // load balancer moves on. Until SIGTERM is handled a look connects and is dropped unsent.
    wait_until(
        "new connections to be refused while draining",
        Duration::from_secs(10),
        || {
            assert!(
                !in_flight.is_finished(),
                "the in-flight request ended before new connections were refused"
            );
            matches!(
                std::net::TcpStream::connect(&address).map_err(|e| e.kind()),
                Err(std::io::ErrorKind::ConnectionRefused)
            )
        },
    );
    let answer = in_flight.join().expect("client thread");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("info@fixture-shop.com"));
    assert_eq!(facilitator.count("/settle"), 1);
    let exit = wait_exit(&mut child);
    assert!(exit.success(), "{exit:?}");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l.contains("draining")), "{rest:?}");
    assert!(rest.iter().any(|l| l.contains("-> 200")), "{rest:?}");
}

/// SIGTERM while a paid job waits 8 s for its settlement, with a second request pipelined
/// behind it on the same keep-alive connection: the job settles and the client gets its 200
/// with `Connection: close`; the second request is never started (one `/verify`); the process
/// exits after (docs/operations.md, "Drain").
fn sigterm_during_a_slow_settlement_delivers_the_200_and_starts_no_new_request() {
    use contact_e2e::fixture::{request_path, response, Fixture};
    use std::io::{Read, Write};
    use std::time::Duration;
    let site = slow_home_site(Duration::from_millis(10));
    let facilitator = Fixture::start(|raw| {
        if request_path(raw) == "/verify" {
            response(200, "application/json", r#"{"isValid":true}"#)
        } else {
            // The slow settlement under test (SIGTERM lands inside it), not synchronisation.
            std::thread::sleep(Duration::from_secs(8));
            response(
                200,
                "application/json",
                r#"{"success":true,"transaction":"0xfeed","network":"eip155:8453"}"#,
            )
        }
    });
    let vars = contact_e2e::fixture::service_vars(&site, &facilitator);
    let keep_alive = |nonce| paid_request(&vars, &site, nonce).replace("Connection: close\r\n", "");
    let (first, second) = (keep_alive(60), keep_alive(61));
    let (mut child, address, lines) = start_serve(&vars);
    let client = std::thread::spawn(move || {
        let mut stream = std::net::TcpStream::connect(&address).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        stream.write_all(first.as_bytes()).expect("write");
        stream.write_all(second.as_bytes()).expect("write");
        let mut out = String::new();
        let _ = stream.read_to_string(&mut out);
        out
    });
    wait_until(
        "the settlement to be in flight",
        Duration::from_secs(15),
        || facilitator.count("/settle") > 0,
    );
    assert_eq!(facilitator.count("/settle"), 1);
    sigterm(&child);
    let answer = client.join().expect("client thread");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("Connection: close"), "{answer}");
    assert_eq!(answer.matches("HTTP/1.1 ").count(), 1, "{answer}");
    assert_eq!(
        facilitator.count("/verify"),
        1,
        "the pipelined request was not started"
    );
    let exit = wait_exit(&mut child);
    assert!(exit.success(), "{exit:?}");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l.contains("draining")), "{rest:?}");
}

/// A paying client that closes its socket right after sending its request (docs/contract.md
/// "Money safety"): the job runs on, the facilitator sees the settle, the audit and access
/// lines say the client had gone, and the same `PAYMENT-SIGNATURE` later gets the result
/// without a second crawl or charge.
fn a_client_that_leaves_after_paying_still_gets_its_result_on_retry() {
    use contact_e2e::fixture::Fixture;
    use std::io::{Read, Write};
    use std::time::Duration;
    let site = slow_home_site(Duration::from_millis(500));
    let facilitator = Fixture::accepting_facilitator();
    let vars = contact_e2e::fixture::service_vars(&site, &facilitator);
    let request = paid_request(&vars, &site, 51);
    let (mut child, address, lines) = start_serve(&vars);
    // Collect the service's stderr on a thread, so waiting for a line has a bound.
    let (line_tx, line_rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if line_tx.send(line).is_err() {
                break;
            }
        }
    });
    {
        let mut stream = std::net::TcpStream::connect(&address).expect("connect");
        stream.write_all(request.as_bytes()).expect("write");
        // Gone at once: the socket is closed before any answer.
    }
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !seen.iter().any(|l: &String| l.contains("-> 200")) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match line_rx.recv_timeout(left) {
            Ok(line) => seen.push(line),
            Err(_) => panic!("no access line for the paid request: {seen:?}"),
        }
    }
    assert_eq!(facilitator.count("/settle"), 1);
    let audit = seen
        .iter()
        .find(|l| l.starts_with("settlement "))
        .expect("an audit line for the settle");
    assert!(
        audit.contains("outcome=settled") && audit.contains("client gone"),
        "{audit}"
    );
    assert!(
        audit.contains(&format!("nonce=0x{}33", "0".repeat(62))),
        "{audit}"
    );
    let access = seen
        .iter()
        .find(|l| l.contains("-> 200"))
        .expect("access line");
    assert!(access.contains("client gone"), "{access}");

    // The same signature later: the kept 200.
    let mut stream = std::net::TcpStream::connect(&address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    stream.write_all(request.as_bytes()).expect("write");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("info@fixture-shop.com"));
    assert!(answer.contains("PAYMENT-RESPONSE: "));
    assert_eq!((site.count("/"), facilitator.count("/settle")), (1, 1));
    sigterm(&child);
    assert!(wait_exit(&mut child).success());
}

/// A site whose homepage (`info@fixture-shop.com`) answers after `delay`.
fn slow_home_site(delay: std::time::Duration) -> contact_e2e::fixture::Fixture {
    use contact_e2e::fixture::{request_path, response, Fixture};
    Fixture::start(move |raw| {
        if request_path(raw) == "/" {
            // A slow site is the behaviour under test (a job in flight), not synchronisation.
            std::thread::sleep(delay);
        }
        response(
            200,
            "text/html",
            "<title>Fixture Shop</title><p>info@fixture-shop.com</p>",
        )
    })
}

/// A paid extraction request (`Connection: close`) of `site`'s homepage, signed by the test key
/// for the terms of `vars` with `nonce`, valid for 100 s.
fn paid_request(
    vars: &[(&'static str, String)],
    site: &contact_e2e::fixture::Fixture,
    nonce: u8,
) -> String {
    let config = contact_core::config::Config::from_env_map(
        &vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
    .expect("config");
    let contact_core::config::PaymentConfig::Ready { terms, .. } = &config.payment else {
        panic!("payments configured")
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let signature =
        contact_core::testing::sim::payment_header(&terms.requirements, nonce, 0, now + 100);
    let body = format!(
        r#"{{"url":"http://www.fixture-shop.com:{}/"}}"#,
        site.addr.port()
    );
    format!("POST /api/v1/extract-contact HTTP/1.1\r\nContent-Type: application/json\r\nPAYMENT-SIGNATURE: {signature}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len())
}

/// The metrics listener's address, from the service's start-up lines (within the next five).
fn metrics_address(lines: &mut impl Iterator<Item = std::io::Result<String>>) -> String {
    (0..5)
        .find_map(|_| {
            let line = lines.next()?.ok()?;
            line.strip_prefix("metrics on ")
                .map(|a| a.trim().to_string())
        })
        .expect("the service logs its metrics address")
}

/// The metrics listener holds at most `METRICS_MAX_CONNECTIONS` connections: one more is closed
/// at once, without an answer, and a slot comes back when a connection ends (here: the
/// listener drops clients that send nothing within its 5 s limit).
fn the_metrics_listener_caps_its_connections() {
    use contact_e2e::fixture::Fixture;
    use contact_runtime_common::service::{METRICS_MAX_CONNECTIONS, METRICS_REQUEST_TIMEOUT};
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};
    let site = slow_home_site(Duration::from_millis(0));
    let facilitator = Fixture::accepting_facilitator();
    let mut vars = contact_e2e::fixture::service_vars(&site, &facilitator);
    vars.push(("METRICS_ADDR", "127.0.0.1:0".to_string()));
    let (_child, _address, mut lines) = start_serve(&vars);
    let metrics_address = metrics_address(&mut lines);
    let scrape = || {
        let mut stream = std::net::TcpStream::connect(&metrics_address).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        // A refused connection may be reset before the head is written.
        let _ = stream.write_all(b"GET /metrics HTTP/1.1\r\n\r\n");
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).to_string()
    };
    assert!(scrape().starts_with("HTTP/1.1 200"));
    // Connections that send nothing, as many as the cap allows.
    let opened = Instant::now();
    let idle: Vec<_> = (0..METRICS_MAX_CONNECTIONS)
        .map(|_| std::net::TcpStream::connect(&metrics_address).expect("connect"))
        .collect();
    // Give the listener time to accept all of them before the next one.
    std::thread::sleep(Duration::from_millis(300));
    let refused = scrape();
    assert!(
        refused.is_empty(),
        "one past the cap was answered: {refused}"
    );
    assert!(
        opened.elapsed() < METRICS_REQUEST_TIMEOUT,
        "the test was too slow to tell"
    );
    // The idle ones are dropped by the listener's limit; their slots come back.
    contact_e2e::wait::wait_until(
        "a scrape to be answered again",
        METRICS_REQUEST_TIMEOUT + Duration::from_secs(10),
        || scrape().starts_with("HTTP/1.1 200"),
    );
    drop(idle);
}

/// `METRICS_ADDR`: the Prometheus text on its own listener, counting what the public listener
/// answered; the public listener has no `/metrics`.
fn metrics_are_served_on_their_own_address_and_count_requests_payments_and_work() {
    use contact_e2e::fixture::Fixture;
    use std::io::{Read, Write};
    use std::time::Duration;
    let site = slow_home_site(Duration::from_millis(0));
    let facilitator = Fixture::accepting_facilitator();
    let mut vars = contact_e2e::fixture::service_vars(&site, &facilitator);
    vars.push(("METRICS_ADDR", "127.0.0.1:0".to_string()));
    let request = paid_request(&vars, &site, 52);
    let (mut child, address, mut lines) = start_serve(&vars);
    let metrics_address = metrics_address(&mut lines);
    let call = |address: &str, raw: &[u8]| {
        let mut stream = std::net::TcpStream::connect(address).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        stream.write_all(raw).expect("write");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    assert!(call(&address, request.as_bytes()).starts_with("HTTP/1.1 200"));
    let unpaid = request
        .lines()
        .filter(|l| !l.starts_with("PAYMENT-SIGNATURE"))
        .collect::<Vec<_>>()
        .join("\r\n");
    assert!(call(&address, unpaid.as_bytes()).starts_with("HTTP/1.1 402"));
    let public = call(
        &address,
        b"GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n",
    );
    assert!(public.starts_with("HTTP/1.1 404"), "{public}");
    let text = call(&metrics_address, b"GET /metrics HTTP/1.1\r\n\r\n");
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    for expected in [
        "contact_requests_total{route=\"extract_contact\",status=\"200\",code=\"\"} 1",
        "contact_requests_total{route=\"extract_contact\",status=\"402\",code=\"\"} 1",
        "contact_requests_total{route=\"other\",status=\"404\",code=\"INVALID_URL\"} 1",
        "contact_payments_total{outcome=\"verified\"} 1",
        "contact_payments_total{outcome=\"settled\"} 1",
        "contact_crawl_pages_fetched_count 1",
        "contact_paid_jobs_in_flight 0",
        "contact_work_seconds_count{kind=\"page\"}",
        "contact_open_connections 0",
    ] {
        assert!(text.contains(expected), "{expected} missing in:\n{text}");
    }
    // The build, and the money: one payment of the default price (0.01 USDC = 10000 atomic
    // units) on the configured network and asset.
    let runtime = contact_e2e::runtimes::runtime().name();
    let build = format!(
        "contact_build_info{{version=\"{}\",runtime=\"{runtime}\"}} 1",
        env!("CARGO_PKG_VERSION")
    );
    assert!(text.contains(&build), "{build} missing in:\n{text}");
    let settled = text
        .lines()
        .find(|l| l.starts_with("contact_settled_atomic_units_total{network=\"eip155:"))
        .unwrap_or_else(|| panic!("settled units missing in:\n{text}"));
    assert!(settled.ends_with(" 10000"), "{settled}");
    // Once the facilitator's check has passed: its gauge, the store's and readiness are 1.
    let mut scraped = String::new();
    wait_until(
        "the facilitator check to pass",
        Duration::from_secs(15),
        || {
            scraped = call(&metrics_address, b"GET /metrics HTTP/1.1\r\n\r\n");
            scraped.contains("\ncontact_ready 1\n")
        },
    );
    let facilitator_up = format!(
        "contact_facilitator_up{{facilitator=\"http://{}/\"}} 1",
        facilitator.addr
    );
    for expected in [facilitator_up.as_str(), "\ncontact_store_up 1\n"] {
        assert!(
            scraped.contains(expected),
            "{expected} missing in:\n{scraped}"
        );
    }
    let other = call(&metrics_address, b"GET / HTTP/1.1\r\n\r\n");
    assert!(other.starts_with("HTTP/1.1 404"), "{other}");
    sigterm(&child);
    assert!(wait_exit(&mut child).success());
}

/// `extract-dir --jobs N` prints the same bytes for any N, one line per page in path order.
#[test]
fn extract_dir_output_is_in_path_order_for_any_job_count() {
    let dir = std::env::temp_dir().join(format!("contact-extract-jobs-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("b")).expect("temp dir");
    for i in 0..60 {
        // Every seventh page is large, so pages finish out of order on several threads.
        let filler = if i % 7 == 0 {
            "<p>filler</p>".repeat(20_000)
        } else {
            String::new()
        };
        let page = format!("<title>Shop {i}</title>{filler}<p>info{i}@shop{i}.example.com</p>");
        let sub = if i % 2 == 0 { "b/" } else { "" };
        std::fs::write(dir.join(format!("{sub}{i:03}.html")), page).expect("write page");
    }
    let run = |jobs: &str| {
        let output = bin()
            .args(["extract-dir", "--jobs", jobs])
            .arg(&dir)
            .output_in_group()
            .expect("run contact-extract");
        assert!(output.status.success(), "--jobs {jobs}");
        output.stdout
    };
    let one = run("1");
    let four = run("4");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(one, four);
    let files: Vec<String> = String::from_utf8_lossy(&one)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON line");
            v["file"].as_str().expect("file").to_string()
        })
        .collect();
    assert_eq!(files.len(), 60);
    let mut sorted: Vec<std::path::PathBuf> = files.iter().map(Into::into).collect();
    sorted.sort();
    let sorted: Vec<String> = sorted.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(files, sorted);
    // Files of the directory come before its subdirectory `b/` ("001.html" < "b").
    assert!(files[0].ends_with("/001.html"), "{files:?}");
}

/// `extract-dir … | head -1`: a reader that closes stdout early ends the command quietly with
/// status 0, not a panic and a backtrace.
#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    use std::io::{BufRead, BufReader};
    let dir = std::env::temp_dir().join(format!("contact-extract-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for i in 0..400 {
        let page = format!("<title>Shop {i}</title><p>info{i}@shop{i}.example.com</p>");
        std::fs::write(dir.join(format!("{i:04}.html")), page).expect("write page");
    }
    let mut child = bin()
        .arg("extract-dir")
        .arg(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn_in_group()
        .expect("start");
    let stdout = child.stdout.take().expect("stdout");
    let mut first = String::new();
    BufReader::new(stdout)
        .read_line(&mut first)
        .expect("one line");
    // The reader leaves: stdout is closed with most of the output unwritten.
    let output = child.wait_with_output().expect("wait");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(first.contains("\"file\""), "{first}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.status.success(), "{:?}: {stderr}", output.status);
}

/// The Host header's name (without the port) of a raw request.
fn request_host(raw: &[u8]) -> String {
    let head = String::from_utf8_lossy(raw);
    contact_e2e::fixture::header(&head, "host")
        .map(|h| h.split(':').next().unwrap_or("").to_ascii_lowercase())
        .unwrap_or_default()
}

/// What the batch fixture saw: requests in flight and the most at once, per host.
#[derive(Default)]
struct HostLoad {
    now: std::collections::BTreeMap<String, usize>,
    most: std::collections::BTreeMap<String, usize>,
}

/// `extract-batch` over 1 010 inputs: 1 000 URLs on 20 loopback hosts (two answer 500, one a
/// PDF) and 10 invalid lines. The first run is killed mid-way (the site stops answering after
/// 300 homepages); `--resume` then finishes the list: every input has exactly one record, the
/// failures carry their codes, and no host ever had more than `--per-domain` crawls at once.
fn extract_batch_crawls_a_list_politely_and_resumes_after_a_kill() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    let load = Arc::new(Mutex::new(HostLoad::default()));
    let homepages = Arc::new(AtomicUsize::new(0));
    let hold = Arc::new(AtomicBool::new(true));
    // Requests of the first run held by the site and not answered yet: released when the
    // first run is dead, they are still counted in flight until they end.
    let held = Arc::new(AtomicUsize::new(0));
    let (fixture_load, fixture_homepages, fixture_hold, fixture_held) =
        (load.clone(), homepages.clone(), hold.clone(), held.clone());
    let site = contact_e2e::fixture::Fixture::start(move |raw| {
        use contact_e2e::fixture::{request_path, response};
        let host = request_host(raw);
        if host.is_empty() {
            // A connection the first run opened and was killed before sending its request on:
            // no crawl of any host.
            return Vec::new();
        }
        let path = request_path(raw);
        let shop: usize = host
            .strip_prefix("shop")
            .and_then(|h| h.split('-').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(99);
        let mut was_held = false;
        if !path.starts_with("/contact") {
            let seen = fixture_homepages.fetch_add(1, Ordering::SeqCst);
            if seen >= 300 && fixture_hold.load(Ordering::SeqCst) {
                // The site stops answering until the test lets it go (at most 20 s).
                was_held = true;
                fixture_held.fetch_add(1, Ordering::SeqCst);
                holds_within(Duration::from_secs(20), || {
                    !fixture_hold.load(Ordering::SeqCst)
                });
            }
        }
        {
            let mut load = fixture_load.lock().expect("lock");
            let now = load.now.entry(host.clone()).or_default();
            *now += 1;
            let now = *now;
            let most = load.most.entry(host.clone()).or_default();
            *most = (*most).max(now);
        }
        // Long enough for crawls of one host to overlap if the limit let them.
        std::thread::sleep(Duration::from_millis(3));
        let answer = match (shop, path.starts_with("/contact")) {
            (16 | 17, _) => response(500, "text/html", "down"),
            (18, _) => response(200, "application/pdf", "%PDF-1.4"),
            (_, false) => response(
                200,
                "text/html",
                &format!(
                    "<title>Shop {shop} | Home</title><a href=\"/contact\">Contact</a>\
                     <p>Mail: info@shop{shop}-fixture.com</p>"
                ),
            ),
            (_, true) => response(200, "text/html", "<p>Phone: +44 20 8551 6580</p>"),
        };
        *fixture_load
            .lock()
            .expect("lock")
            .now
            .entry(host)
            .or_default() -= 1;
        if was_held {
            fixture_held.fetch_sub(1, Ordering::SeqCst);
        }
        answer
    });
    let port = site.addr.port();
    let dir = std::env::temp_dir().join(format!(
        "contact-extract-batch-{}-{}",
        std::process::id(),
        contact_e2e::runtimes::runtime().name()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut list = String::from("# a list with a comment\n");
    let mut inputs = Vec::new();
    for i in 0..1000 {
        inputs.push(format!("http://shop{}-fixture.com:{port}/?n={i}", i % 20));
        if i % 100 == 0 {
            inputs.push(format!("not a url {i}"));
        }
    }
    for input in &inputs {
        list.push_str(input);
        list.push('\n');
    }
    let list_path = dir.join("list.txt");
    std::fs::write(&list_path, list).expect("write list");
    let out = dir.join("out.jsonl");
    let resolve: Vec<String> = (0..20)
        .map(|h| format!("shop{h}-fixture.com=127.0.0.1"))
        .collect();
    let batch = |resume: bool| {
        let mut command = bin();
        command
            .arg("extract-batch")
            .arg(&list_path)
            .arg("--output")
            .arg(&out)
            .args(["--per-domain", "2"])
            .env("ALLOW_PRIVATE_CIDRS", "127.0.0.0/8")
            .env("ALLOWED_PORTS", port.to_string())
            .env("RESOLVE", resolve.join(","))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        if resume {
            command.arg("--resume");
        }
        command
    };
    let lines_in = |path: &std::path::Path| {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .count()
    };
    // First run: killed once the site has stopped answering (a homepage past the 300th is
    // held) and 250 records are written.
    let mut first = batch(false).spawn_in_group().expect("start");
    wait_until(
        "the first run to write 250 records and reach the held homepages",
        Duration::from_secs(60),
        || lines_in(&out) >= 250 && homepages.load(Ordering::SeqCst) > 300,
    );
    first.kill();
    let written_first = lines_in(&out);
    assert!(
        (250..1000).contains(&written_first),
        "{written_first} records before the kill"
    );
    hold.store(false, Ordering::SeqCst);
    // The killed run's requests end before the second run starts: the limit is each run's,
    // and a released request of the dead run counted beside the second run's would read as
    // a third crawl of its host (on a loaded machine it can take a while to end).
    wait_until(
        "the killed run's requests to end",
        Duration::from_secs(20),
        || {
            held.load(Ordering::SeqCst) == 0
                && load.lock().expect("lock").now.values().all(|&n| n == 0)
        },
    );
    // Second run: resumes.
    let second = batch(true).output_in_group().expect("resume");
    let stderr = String::from_utf8_lossy(&second.stderr).to_string();
    assert!(second.status.success(), "{stderr}");
    let text = std::fs::read_to_string(&out).expect("output");
    let _ = std::fs::remove_dir_all(&dir);
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON record"))
        .collect();
    let mut by_input: std::collections::BTreeMap<String, &serde_json::Value> =
        std::collections::BTreeMap::new();
    for record in &records {
        let input = record["inputUrl"].as_str().expect("inputUrl").to_string();
        assert!(
            by_input.insert(input, record).is_none(),
            "a duplicate record"
        );
    }
    assert_eq!(records.len(), inputs.len());
    assert!(inputs.iter().all(|i| by_input.contains_key(i)));
    let code = |i: &str| {
        by_input[i]["error"]["code"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    for (n, input) in inputs.iter().enumerate() {
        if input.starts_with("not a url") {
            assert_eq!(code(input), "INVALID_URL", "{n}");
            continue;
        }
        let shop: usize = input["http://shop".len()..]
            .split('-')
            .next()
            .and_then(|s| s.parse().ok())
            .expect("shop number");
        match shop {
            16 | 17 => assert_eq!(code(input), "FETCH_FAILED", "{input}"),
            18 => assert_eq!(code(input), "UNSUPPORTED_CONTENT_TYPE", "{input}"),
            _ => {
                let record = by_input[input.as_str()];
                assert_eq!(record["success"], true, "{record}");
                assert_eq!(
                    record["emails"][0]["value"],
                    format!("info@shop{shop}-fixture.com")
                );
                assert_eq!(record["phones"][0]["value"], "+442085516580");
            }
        }
    }
    let skipped = format!("skipped: {written_first}");
    assert!(stderr.contains(&skipped), "{skipped} in {stderr}");
    let sites = format!("sites: {} (", inputs.len() - written_first);
    assert!(stderr.contains(&sites), "{sites} in {stderr}");
    let most = load.lock().expect("lock").most.clone();
    assert_eq!(most.len(), 20, "{most:?}");
    assert!(most.values().all(|&m| m <= 2), "{most:?}");
    assert!(
        most.values().any(|&m| m == 2),
        "crawls of a host never overlapped: {most:?}"
    );
}

/// `extract-batch` reads a CSV list by its `url` column and writes CSV: a header, then one
/// row per site with lists joined by "; ".
#[test]
fn extract_batch_reads_and_writes_csv() {
    let site = live_site();
    let port = site.addr.port();
    let dir = std::env::temp_dir().join(format!("contact-extract-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let list = dir.join("list.csv");
    std::fs::write(
        &list,
        format!("name,url\n\"Fixture, Ltd\",http://www.fixture-shop.com:{port}/\nBroken,ftp://x\n"),
    )
    .expect("write");
    let output = bin()
        .args(["extract-batch", "--format", "csv"])
        .arg(&list)
        .env("ALLOW_PRIVATE_CIDRS", "127.0.0.0/8")
        .env("ALLOWED_PORTS", port.to_string())
        .env("RESOLVE", "www.fixture-shop.com=127.0.0.1")
        .output_in_group()
        .expect("run");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout).to_string();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(
        rows[0].starts_with("input_url,success,error_code,"),
        "{text}"
    );
    let good = rows
        .iter()
        .find(|r| r.contains("fixture-shop"))
        .expect("row");
    assert!(
        good.contains(",true,,,fixture-shop.com,Fixture Shop,info@fixture-shop.com,+442085516580,"),
        "{good}"
    );
    let bad = rows.iter().find(|r| r.starts_with("ftp://x")).expect("row");
    assert!(bad.starts_with("ftp://x,false,INVALID_URL,"), "{bad}");
}

/// `--version` names the build's version, the one `/api/health` and `contact_build_info`
/// report (CHANGELOG.md's newest release).
#[test]
fn version_flag_names_the_release() {
    let output = bin().arg("--version").output_in_group().expect("run");
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("contact-extract {}\n", env!("CARGO_PKG_VERSION"))
    ); // The newest release in CHANGELOG.md is the one the binary reports.
    let changelog =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../CHANGELOG.md"))
            .expect("CHANGELOG.md");
    let newest = changelog
        .lines()
        .filter_map(|line| line.strip_prefix("## ["))
        .find(|rest| !rest.starts_with("Unreleased"))
        .and_then(|rest| rest.split(']').next())
        .expect("a released version in CHANGELOG.md");
    assert_eq!(newest, env!("CARGO_PKG_VERSION"));
}

/// `extract-batch -` reads the list from standard input.
#[test]
fn extract_batch_reads_its_list_from_stdin() {
    use std::io::Write as _;
    let mut child = bin()
        .args(["extract-batch", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn_in_group()
        .expect("start");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"not a url\nftp://x\n")
        .expect("write list");
    let output = child.wait_with_output().expect("wait");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout).to_string();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains("\"inputUrl\":\"ftp://x\""), "{text}");
}

// The commands that do network IO, once on each runtime.
contact_e2e::both_runtimes!(
    serve_answers_then_drains_and_exits_zero_on_sigterm,
    the_start_up_log_names_the_testnet_facilitator_or_the_mainnet_choices,
    extract_crawls_a_live_site_without_payment,
    extract_applies_the_ssrf_rules_and_reports_an_api_error,
    sigterm_lets_an_in_flight_paid_request_finish_and_refuses_new_connections,
    sigterm_during_a_slow_settlement_delivers_the_200_and_starts_no_new_request,
    a_client_that_leaves_after_paying_still_gets_its_result_on_retry,
    metrics_are_served_on_their_own_address_and_count_requests_payments_and_work,
    the_metrics_listener_caps_its_connections,
    extract_batch_crawls_a_list_politely_and_resumes_after_a_kill,
);
