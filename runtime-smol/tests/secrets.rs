//! Secrets stay out of everything the service writes (docs/payments.md, "Authenticated
//! facilitators"): the binary serves with a CDP API key (Ed25519, then EC P-256 PKCS#8) and with
//! a header file, answers readiness and a paid request — against a facilitator that accepts,
//! and one that refuses the credentials (401) — and stops; none of the secret material, the
//! header value or any JWT appears in its standard output or error. On both runtimes.

use std::io::{Read as _, Write as _};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use contact_e2e::fixture::{accepting_answer, response, service_vars, Fixture};
use contact_e2e::process::Grouped as _;
use sha2::Digest as _;

/// Unpredictable test bytes (a fresh secret per run, so a hit cannot be a coincidence).
fn fresh(label: &str) -> [u8; 32] {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_nanos();
    sha2::Sha256::digest(format!("{label}/{nanos}/{}", std::process::id())).into()
}

/// A facilitator that accepts everything, or (`refuse`) answers 401 to everything.
fn facilitator(refuse: bool) -> Fixture {
    Fixture::start(move |raw| {
        if refuse {
            return response(401, "application/json", r#"{"errorType":"unauthorized"}"#);
        }
        accepting_answer(raw)
    })
}

/// One request to `addr` (`Connection: close`): the whole answer.
fn exchange(addr: &str, raw: &[u8]) -> String {
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(40)))
        .expect("timeout");
    stream.write_all(raw).expect("write");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

/// Serves with `vars` (JSON logs), asks `/api/ready` until it says `ready_word` (at most 5 s),
/// pays one request, stops with SIGTERM; returns (ready answer, paid answer, all it wrote).
fn serve_once(vars: &[(&'static str, String)], ready_word: &str) -> (String, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_contact-extract"));
    command
        .arg("serve")
        .env("RUNTIME", contact_e2e::runtimes::runtime().name())
        .env("BIND_ADDR", "127.0.0.1:0")
        .env("LOG_FORMAT", "json")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in vars {
        command.env(name, value);
    }
    let mut child = command.spawn_in_group().expect("start serve");
    let written = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    let mut readers = Vec::new();
    for mut pipe in [
        Box::new(child.stdout.take().expect("stdout")) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().expect("stderr")),
    ] {
        let (written, tx) = (written.clone(), tx.clone());
        readers.push(std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buf[..n]).to_string();
                written.lock().expect("log").push_str(&text);
                let _ = tx.send(());
            }
        }));
    }
    let address =
        contact_e2e::wait::wait_for("the listening line", Duration::from_secs(10), || {
            let _ = rx.recv_timeout(Duration::from_millis(50));
            let log = written.lock().expect("log").clone();
            log.split("listening on ")
                .nth(1)
                .and_then(|rest| rest.split(['\n', '"']).next())
                .map(|a| a.trim().to_string())
        });
    let ready_request = b"GET /api/ready HTTP/1.1\r\nConnection: close\r\n\r\n";
    let mut ready = exchange(&address, ready_request);
    for _ in 0..250 {
        if ready.contains(ready_word) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        ready = exchange(&address, ready_request);
    }
    let paid = exchange(&address, &paid_request(vars));
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status_in_group()
        .expect("kill");
    assert!(status.success());
    contact_e2e::wait::wait_for("the service to exit", Duration::from_secs(20), || {
        child.try_wait().expect("wait")
    });
    for reader in readers {
        let _ = reader.join();
    }
    let log = written.lock().expect("log").clone();
    (ready, paid, log)
}

/// A paid request for the fixture site, signed by the test key for the terms of `vars`.
fn paid_request(vars: &[(&'static str, String)]) -> Vec<u8> {
    let map = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let config = contact_core::config::Config::from_env_map(&map).expect("config");
    let contact_core::config::PaymentConfig::Ready { terms, .. } = &config.payment else {
        panic!("payments configured")
    };
    let unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let nonce = fresh("nonce")[0];
    let signature =
        contact_core::testing::sim::payment_header(&terms.requirements, nonce, 0, unix + 100);
    let port = vars
        .iter()
        .find(|(k, _)| *k == "ALLOWED_PORTS")
        .map(|(_, v)| v.clone())
        .expect("the site's port");
    let body = format!(r#"{{"url":"http://www.fixture-shop.com:{port}/"}}"#);
    format!("POST /api/v1/extract-contact HTTP/1.1\r\nContent-Type: application/json\r\nPAYMENT-SIGNATURE: {signature}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).into_bytes()
}

/// The site: one page with an address on it.
fn site() -> Fixture {
    Fixture::start(|_| {
        response(
            200,
            "text/html",
            "<title>Fixture Shop</title><p>info@fixture-shop.com</p>",
        )
    })
}

/// The `Authorization` / `X-API-Key` values the facilitator received.
fn credentials_sent(facilitator: &Fixture) -> Vec<String> {
    facilitator
        .requests
        .lock()
        .expect("requests")
        .iter()
        .filter_map(|raw| {
            let text = String::from_utf8_lossy(raw).to_string();
            text.lines().find_map(|line| {
                let (name, value) = line.split_once(':')?;
                ["authorization", "x-api-key"]
                    .contains(&name.to_ascii_lowercase().as_str())
                    .then(|| value.trim().to_string())
            })
        })
        .collect()
}

/// `text` holds none of `secrets`.
fn assert_clean(text: &str, secrets: &[String]) {
    for secret in secrets {
        assert!(secret.len() >= 16, "a secret worth searching for: {secret}");
        assert!(
            !text.contains(secret.as_str()),
            "{secret:?} was written:\n{text}"
        );
    }
}

fn no_secret_is_ever_written() {
    let scratch = std::env::temp_dir().join(format!(
        "contact-extract-secrets-{}-{}",
        std::process::id(),
        contact_e2e::runtimes::runtime().name()
    ));
    std::fs::create_dir_all(&scratch).expect("scratch");
    let path = |name: &str| scratch.join(name).to_string_lossy().into_owned();

    // An Ed25519 key as CDP issues it, and an EC P-256 key in PKCS#8 PEM.
    let ed = ed25519_dalek::SigningKey::from_bytes(&fresh("ed25519"));
    let mut pair = ed.to_bytes().to_vec();
    pair.extend_from_slice(&ed.verifying_key().to_bytes());
    let ed_secret = base64::engine::general_purpose::STANDARD.encode(&pair);
    std::fs::write(path("ed25519"), format!("{ed_secret}\n")).expect("key file");
    let ec = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("P-256 key");
    let ec_pem = ec.serialize_pem();
    std::fs::write(path("p256.pem"), &ec_pem).expect("key file");
    let header_value = format!("hv-{}", hex(&fresh("header")));
    std::fs::write(path("header"), format!("X-API-Key: {header_value}\n")).expect("header file");

    let mut secrets: Vec<String> = vec![
        ed_secret.clone(),
        ed_secret[..24].to_string(),
        base64::engine::general_purpose::STANDARD.encode(ed.to_bytes()),
        hex(&ed.to_bytes()),
        header_value.clone(),
    ];
    secrets.extend(
        ec_pem
            .lines()
            .filter(|l| !l.starts_with("-----") && l.len() >= 16)
            .map(str::to_string),
    );
    secrets.push(hex(&ec.serialize_der()));

    let key_id = "organizations/o-1/apiKeys/k-1".to_string();
    for (credentials, refuse) in [
        (
            vec![
                ("CDP_API_KEY_ID", key_id.clone()),
                ("CDP_API_KEY_SECRET_FILE", path("ed25519")),
            ],
            false,
        ),
        (
            vec![
                ("CDP_API_KEY_ID", key_id.clone()),
                ("CDP_API_KEY_SECRET_FILE", path("p256.pem")),
            ],
            true,
        ),
        (
            vec![("FACILITATOR_AUTH_HEADER_FILE", path("header"))],
            false,
        ),
        (vec![("FACILITATOR_AUTH_HEADER_FILE", path("header"))], true),
    ] {
        let (site, facilitator) = (site(), facilitator(refuse));
        let mut vars = service_vars(&site, &facilitator);
        vars.extend(credentials);
        let ready_word = if refuse {
            "refuses our credentials"
        } else {
            "\"ready\""
        };
        let (ready, paid, log) = serve_once(&vars, ready_word);
        let sent = credentials_sent(&facilitator);
        if refuse {
            assert!(ready.starts_with("HTTP/1.1 503"), "{ready}");
            assert!(paid.starts_with("HTTP/1.1 503"), "{paid}");
        } else {
            assert!(ready.starts_with("HTTP/1.1 200"), "{ready}");
            assert!(paid.starts_with("HTTP/1.1 200"), "{paid}");
        }
        assert!(sent.len() >= 2, "credentials on every call: {sent:?}");
        assert!(log.contains("facilitator "), "the start-up line: {log}");
        let mut all = secrets.clone();
        all.extend(sent);
        assert_clean(&ready, &all);
        assert_clean(&paid, &all);
        assert_clean(&log, &all);
        // No JWT in the log at all (a compact JWS starts with base64url of `{"`; the log holds
        // no base64 JSON of its own).
        assert!(!log.is_empty(), "the service wrote nothing");
        assert!(!log.contains("eyJ"), "a JWT in the log:\n{log}");
        assert!(!log.contains("Bearer"), "a bearer token in the log:\n{log}");
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Under systemd (`LoadCredential=`), the secrets are in `$CREDENTIALS_DIRECTORY` and the
/// settings name them by relative paths (docs/configuration.md, "Secrets and systemd
/// credentials"); the audit lines go to their own file with `AUDIT_LOG` (docs/operations.md,
/// "The audit log"), not to stderr.
fn secrets_are_read_from_the_credentials_directory_and_audit_lines_go_to_their_file() {
    let scratch = std::env::temp_dir().join(format!(
        "contact-extract-credentials-{}-{}",
        std::process::id(),
        contact_e2e::runtimes::runtime().name()
    ));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("scratch");
    let header_value = format!("hv-{}", hex(&fresh("credential header")));
    std::fs::write(
        scratch.join("facilitator-header"),
        format!("X-API-Key: {header_value}\n"),
    )
    .expect("header file");
    std::fs::write(
        scratch.join("receipt-key"),
        format!("{}\n", hex(&fresh("receipt key"))),
    )
    .expect("key file");
    let audit = scratch.join("audit.log");
    let (site, facilitator) = (site(), facilitator(false));
    let mut vars = service_vars(&site, &facilitator);
    vars.extend([
        (
            "CREDENTIALS_DIRECTORY",
            scratch.to_string_lossy().into_owned(),
        ),
        (
            "FACILITATOR_AUTH_HEADER_FILE",
            "facilitator-header".to_string(),
        ),
        ("RECEIPT_SIGNING_KEY_FILE", "receipt-key".to_string()),
        ("AUDIT_LOG", audit.to_string_lossy().into_owned()),
    ]);
    let (ready, paid, log) = serve_once(&vars, "\"ready\"");
    assert!(ready.starts_with("HTTP/1.1 200"), "{ready}\n{log}");
    assert!(paid.starts_with("HTTP/1.1 200"), "{paid}\n{log}");
    let sent = credentials_sent(&facilitator);
    assert!(sent.len() >= 2, "{sent:?}");
    assert!(sent.iter().all(|value| *value == header_value), "{sent:?}");
    assert!(
        log.contains("offers and receipts signed (x402 offer-receipt, EIP-712) by 0x"),
        "{log}"
    );
    // The audit line is in its file, with its time and the money, and not on stderr.
    let text = std::fs::read_to_string(&audit).expect("the audit file");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    let line = &lines[0];
    assert_eq!(line["audit"], "settlement", "{line}");
    assert_eq!(line["outcome"], "settled", "{line}");
    assert_eq!(line["amount"], "10000", "{line}");
    assert_eq!(line["network"], "eip155:8453", "{line}");
    assert_eq!(
        line["payTo"], "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "{line}"
    );
    let time = line["time"].as_str().expect("a time field");
    assert!(
        time.len() == 24 && time.ends_with('Z') && time.as_bytes()[10] == b'T',
        "{time}"
    );
    assert!(
        !log.contains("\"audit\":"),
        "an audit line on stderr:\n{log}"
    );
    assert_clean(&log, &[header_value]);
    let _ = std::fs::remove_dir_all(&scratch);
}

/// An `AUDIT_LOG` that cannot be opened stops start-up (exit status 2) naming the setting.
#[test]
fn an_audit_log_that_cannot_be_written_stops_start_up() {
    let output = Command::new(env!("CARGO_BIN_EXE_contact-extract"))
        .arg("serve")
        .env("BIND_ADDR", "127.0.0.1:0")
        .env("AUDIT_LOG", "/nonexistent-contact-extract-dir/audit.log")
        .output_in_group()
        .expect("run serve");
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("AUDIT_LOG: /nonexistent-contact-extract-dir/audit.log"),
        "{said}"
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

contact_e2e::both_runtimes!(
    no_secret_is_ever_written,
    secrets_are_read_from_the_credentials_directory_and_audit_lines_go_to_their_file,
);

/// `serve --help` shows the values clap reads from the environment; the settings that may
/// carry a secret (a key in `FACILITATOR_URL`'s query or `CHAIN_RPC_URL`'s path, `REDIS_URL`'s
/// password) are named without their values.
#[test]
fn help_never_shows_a_secret_from_the_environment() {
    let secret = hex(&fresh("help"));
    let output = Command::new(env!("CARGO_BIN_EXE_contact-extract"))
        .args(["serve", "--help"])
        .env(
            "FACILITATOR_URL",
            format!("https://f.example.com/x402?key=q{secret}"),
        )
        .env(
            "CHAIN_RPC_URL",
            format!("https://rpc.example.net/v2/p{secret}"),
        )
        .env("REDIS_URL", format!("redis://:r{secret}@127.0.0.1:6379"))
        .env("BIND_ADDR", "127.0.0.1:9")
        .output_in_group()
        .expect("run contact-extract");
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(!help.contains(&secret), "{help}");
    for name in ["FACILITATOR_URL", "CHAIN_RPC_URL", "REDIS_URL"] {
        assert!(help.contains(&format!("[env: {name}]")), "{name}: {help}");
    }
    // Settings without secrets still show what the environment says.
    assert!(help.contains("[env: BIND_ADDR=127.0.0.1:9]"), "{help}");
}
