//! The deployment in `deploy/`, tested: the official x402 client pays through Caddy (the Debian
//! package, with the local variant `Caddyfile.local`: TLS from Caddy's internal CA) in front of
//! the service on loopback, and the service's access line names the client address Caddy
//! forwarded; the shipped `Caddyfile` asks a public CA for its certificate; the systemd unit
//! passes `systemd-analyze verify`; the Prometheus rules pass `promtool check rules` and their
//! own tests. With `CI=true` a missing tool is a failure; elsewhere these tests
//! skip with a printed reason. Loopback only (the client comes in over ::1, so the forwarded
//! address differs from the proxy's 127.0.0.1).

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use contact_e2e::fixture::{request_path, response, service_vars, Fixture};
use contact_e2e::process::Grouped as _;
use contact_e2e::tools::{free_port, have, skip};
use contact_e2e::wait::wait_until;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn the_official_client_pays_through_caddy_and_the_access_line_names_the_forwarded_client() {
    if have("caddy", "apt-get install caddy").is_none()
        || have("node", "apt-get install nodejs npm").is_none()
    {
        return;
    }
    let client_dir = repository().join(".ci/node");
    if !client_dir.join("node_modules/@x402/fetch").is_dir() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true and the official client is not installed in .ci/node"
        );
        skip("the official client is not installed (npm install in .ci/node)");
        return;
    }
    let site = Fixture::start(|raw| match request_path(raw).as_str() {
        "/" => response(
            200,
            "text/html",
            r#"<title>Fixture Shop</title><a href="mailto:info@fixture-shop.com">Mail</a>"#,
        ),
        _ => response(404, "text/html", ""),
    });
    let facilitator = Fixture::accepting_facilitator();
    let https_port = free_port();
    let public = format!("https://[::1]:{https_port}");

    // The service, trusting the proxy on 127.0.0.1.
    let mut service = Command::new(env!("CARGO_BIN_EXE_contact-extract"));
    service
        .arg("serve")
        .envs(service_vars(&site, &facilitator))
        .env("BIND_ADDR", "127.0.0.1:0")
        .env("PUBLIC_BASE_URL", &public)
        .env("TRUSTED_PROXIES", "127.0.0.1/32")
        .env("LOG_FORMAT", "json")
        .stderr(Stdio::piped());
    let mut service = service.spawn_in_group().expect("start the service");
    let mut lines = BufReader::new(service.stderr.take().unwrap()).lines();
    let upstream = lines
        .by_ref()
        .take(20)
        .map_while(Result::ok)
        .find_map(|line| {
            let value: serde_json::Value = serde_json::from_str(&line).ok()?;
            value["message"]
                .as_str()?
                .strip_prefix("listening on ")
                .map(str::to_string)
        })
        .expect("the service logs its address");
    let (log_lines, logged) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if log_lines.send(line).is_err() {
                return;
            }
        }
    });

    // Caddy with the shipped Caddyfile, its state in a scratch folder.
    let state = std::env::temp_dir().join(format!("contact-extract-caddy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state).unwrap();
    let _caddy = Command::new("caddy")
        .args(["run", "--adapter", "caddyfile", "--config"])
        .arg(repository().join("deploy/Caddyfile.local"))
        .env("SITE", &public)
        .env("UPSTREAM", &upstream)
        .env("HTTPS_PORT", https_port.to_string())
        .env("HTTP_PORT", free_port().to_string())
        .env("CADDY_STORAGE", &state)
        .env("XDG_CONFIG_HOME", &state)
        .env("XDG_DATA_HOME", &state)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn_in_group()
        .expect("start caddy");
    let root = state.join("pki/authorities/local/root.crt");
    wait_until(
        "caddy to make its CA and listen for https",
        Duration::from_secs(20),
        || root.is_file() && std::net::TcpStream::connect(("::1", https_port)).is_ok(),
    );

    // The official client pays through Caddy over https.
    let output = Command::new("node")
        .arg(client_dir.join("pay.mjs"))
        .arg(format!("{public}/api/v1/extract-contact"))
        .arg(format!("http://www.fixture-shop.com:{}/", site.addr.port()))
        .arg("--once")
        .env("NODE_EXTRA_CA_CERTS", &root)
        .output_in_group()
        .expect("run node");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["status"], 200, "{report}");
    assert_eq!(
        report["body"]["emails"][0]["value"],
        "info@fixture-shop.com"
    );
    assert_eq!(report["paymentResponse"]["success"], true);
    assert_eq!(facilitator.count("/settle"), 1);

    // The access line of the paid request names the forwarded client (::1), not the proxy.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut paid_line = None;
    while paid_line.is_none() && Instant::now() < deadline {
        let Ok(line) = logged.recv_timeout(Duration::from_millis(200)) else {
            continue;
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if value["path"] == "/api/v1/extract-contact" && value["status"] == 200 {
            paid_line = Some(value);
        }
    }
    let paid_line = paid_line.expect("an access line for the paid request");
    assert_eq!(paid_line["client"], "::1", "{paid_line}");
    drop(service);
    let _ = std::fs::remove_dir_all(&state);
}

#[test]
fn the_systemd_unit_verifies() {
    if have("systemd-analyze", "apt-get install systemd").is_none() {
        return;
    }
    // A scratch root with the unit's binary and environment file where it expects them, and
    // the host's unit library (the targets it names).
    let root = std::env::temp_dir().join(format!("contact-extract-unit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for dir in [
        "usr/local/bin",
        "etc/contact-extract",
        "etc/systemd/system",
        "usr/lib/systemd",
    ] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    std::fs::copy(
        env!("CARGO_BIN_EXE_contact-extract"),
        root.join("usr/local/bin/contact-extract"),
    )
    .unwrap();
    std::fs::copy(
        repository().join("deploy/env.example"),
        root.join("etc/contact-extract/env"),
    )
    .unwrap();
    std::fs::copy(
        repository().join("deploy/contact-extract.service"),
        root.join("etc/systemd/system/contact-extract.service"),
    )
    .unwrap();
    let copied = Command::new("cp")
        .args(["-a", "/usr/lib/systemd/system"])
        .arg(root.join("usr/lib/systemd/"))
        .status_in_group()
        .is_ok_and(|s| s.success());
    assert!(copied, "copy the unit library");
    let output = Command::new("systemd-analyze")
        .arg(format!("--root={}", root.display()))
        .args(["verify", "contact-extract.service"])
        .output_in_group()
        .expect("run systemd-analyze");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let _ = std::fs::remove_dir_all(&root);
    assert!(output.status.success(), "{said}");
    assert!(!said.contains("contact-extract.service"), "{said}");
}

/// The shipped Caddyfile gets a public certificate (Caddy's automatic HTTPS: no `internal`
/// issuer), so paying clients trust it as shipped; the local variant uses Caddy's own CA.
#[test]
fn the_shipped_caddyfile_asks_a_public_ca_and_the_local_one_caddys_own() {
    if have("caddy", "apt-get install caddy").is_none() {
        return;
    }
    let state = std::env::temp_dir().join(format!("contact-extract-adapt-{}", std::process::id()));
    let adapt = |file: &str| {
        let output = Command::new("caddy")
            .args(["adapt", "--adapter", "caddyfile", "--config"])
            .arg(repository().join("deploy").join(file))
            .env("SITE", "contacts.example.com")
            .env("XDG_CONFIG_HOME", &state)
            .env("XDG_DATA_HOME", &state)
            .output_in_group()
            .expect("run caddy adapt");
        assert!(
            output.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let config: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        config
    };
    let public = adapt("Caddyfile");
    let text = public.to_string();
    assert!(text.contains("\"contacts.example.com\""), "{text}");
    assert!(!text.contains("internal"), "{text}");
    let local = adapt("Caddyfile.local");
    assert_eq!(
        local["apps"]["tls"]["automation"]["policies"][0]["issuers"][0]["module"], "internal",
        "{local}"
    );
    let _ = std::fs::remove_dir_all(&state);
}

/// `deploy/prometheus-rules.yml` is a valid rule file (`promtool check rules`, as CI runs it)
/// and its alerts fire on the series they are written for (`promtool test rules`).
#[test]
fn the_prometheus_rules_check_and_pass_their_tests() {
    if have("promtool", "apt-get install prometheus").is_none() {
        return;
    }
    for args in [
        ["check", "rules", "prometheus-rules.yml"],
        ["test", "rules", "prometheus-rules.test.yml"],
    ] {
        let output = Command::new("promtool")
            .args(args)
            .current_dir(repository().join("deploy"))
            .output_in_group()
            .expect("run promtool");
        assert!(
            output.status.success(),
            "promtool {}: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
