//! The offline CLI, run as a process.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_contact-extract"))
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
    let output = bin()
        .args(["extract-html", "--url", "http://www.caltronind.com/"])
        .arg(corpus_page("caltronind.com__home.html"))
        .arg("--page")
        .arg(format!(
            "http://www.caltronind.com/contact.html={}",
            corpus_page("caltronind.com__contact.html").display()
        ))
        .output()
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
        .output()
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
        let output = bin().args(&args).output().expect("run contact-extract");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(!output.stderr.is_empty());
    }
}

#[test]
fn extract_dir_prints_one_line_per_page_and_a_summary() {
    let dir = std::env::temp_dir().join(format!("contact-extract-cli-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).expect("temp dir");
    std::fs::write(
        dir.join("acme.nl.html"),
        "<p>Mail info@acme.nl, tel 0115 616 400</p>",
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
        .output()
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
    assert!(
        stderr.contains("pages: 3") && stderr.contains("MB/s"),
        "{stderr}"
    );
}

#[test]
fn serve_answers_then_drains_and_exits_zero_on_sigterm() {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut child = bin()
        .arg("serve")
        .env("BIND_ADDR", "127.0.0.1:0")
        .env("LOG_FORMAT", "pretty")
        .env_remove("PAY_TO")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start serve");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut address = None;
    for _ in 0..20 {
        let Some(Ok(line)) = lines.next() else { break };
        if let Some(rest) = line.strip_prefix("listening on ") {
            address = Some(rest.trim().to_string());
            break;
        }
    }
    let address = address.expect("the service logs its address");
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
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let started = std::time::Instant::now();
    let exit = loop {
        if let Some(exit) = child.try_wait().expect("wait") {
            break exit;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "did not stop after SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(exit.success(), "{exit:?}");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l.contains("draining")), "{rest:?}");
}
