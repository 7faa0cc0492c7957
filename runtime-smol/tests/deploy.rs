//! The deployment in `deploy/`, tested: the official x402 client pays through Caddy (the Debian
//! package, TLS with its internal CA) in front of the service on loopback, and the service's
//! access line names the client address Caddy forwarded; the systemd unit passes
//! `systemd-analyze verify`. With `CI=true` a missing tool is a failure; elsewhere these tests
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
        .arg(repository().join("deploy/Caddyfile"))
        .env("SITE", &public)
        .env("CADDY_TLS", "internal")
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
