//! The OpenAPI document is the truth: schemathesis (pinned in `.ci/python/requirements.txt`)
//! generates requests for every operation of `/openapi.json` and checks every answer against
//! it (`--checks all`), with hooks (`.ci/python/schemathesis_hooks.py`) that pay each request
//! to the paid route and keep every schema-valid URL on the loopback fixture site — so the
//! paid 200s are checked too, and no generated host is resolved. Runs on both runtimes. With
//! `CI=true` a missing schemathesis is a failure; elsewhere the test installs it into
//! `.ci/python/venv` on first use or skips with a printed reason.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use contact_core::config::PaymentConfig;
use contact_e2e::fixture::{service_vars, Fixture};
use contact_e2e::process::Grouped as _;
use contact_e2e::tools::skip;

mod common;
use common::{fixture_pages, webpki, Service};

/// `.ci/python`, with the tool `bin` of its `requirements.txt` (schemathesis's `st`,
/// `openapi-spec-validator`) installed in its venv.
fn python_tool(bin: &str) -> Option<PathBuf> {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _installing = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/python");
    let tool = dir.join("venv/bin").join(bin);
    let ready = || {
        Command::new(&tool)
            .arg("--version")
            .output_in_group()
            .is_ok_and(|o| o.status.success())
    };
    if !ready() {
        let _ = Command::new("python3")
            .args(["-m", "venv", "venv"])
            .current_dir(&dir)
            .status_in_group();
        let _ = Command::new(dir.join("venv/bin/pip"))
            .args(["install", "--quiet", "-r", "requirements.txt"])
            .current_dir(&dir)
            .status_in_group();
    }
    if ready() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true and {bin} could not be installed in {}/venv",
        dir.display()
    );
    skip(&format!(
        "{bin} could not be installed (python3-venv and PyPI needed)"
    ));
    None
}

fn every_answer_matches_the_openapi_document() {
    let Some(python) = python_tool("st") else {
        return;
    };
    let site = Fixture::start(fixture_pages);
    let facilitator = Fixture::accepting_facilitator();
    let mut vars = service_vars(&site, &facilitator);
    vars.push(("RATE_LIMIT_BURST", "100000".to_string()));
    vars.push(("RATE_LIMIT_PER_MINUTE", "1000000".to_string()));
    vars.push(("LOG_FORMAT", "pretty".to_string()));
    let service = Service::start_with_tls(&vars, webpki(), None);
    let (status, body) = service.wait_ready();
    assert_eq!(status, 200, "{body}");
    let PaymentConfig::Ready { terms, .. } = &service.config.payment else {
        panic!("payments are configured")
    };
    let output = Command::new(python.join("venv/bin/st"))
        .args(["run", &format!("http://{}/openapi.json", service.addr)])
        .args(["--url", &format!("http://{}", service.addr)])
        .args([
            "--checks",
            "all",
            "--max-examples",
            "20",
            "--seed",
            "20261125",
        ])
        .env("SCHEMATHESIS_HOOKS", "schemathesis_hooks")
        .env("PYTHONPATH", &python)
        .env(
            "PAY_TARGET",
            format!("http://www.fixture-shop.com:{}/", site.addr.port()),
        )
        .env(
            "PAY_REQUIREMENTS",
            serde_json::to_string(&terms.requirements).unwrap(),
        )
        .env("NO_COLOR", "1")
        .output_in_group()
        .expect("run schemathesis");
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{said}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(said.contains("No issues found"), "{said}");
    // The paid route was really paid and answered 200 (the hooks' payments settled).
    assert!(facilitator.count("/settle") >= 1, "{said}");
    assert!(site.count("/") >= 1);
}

/// `/openapi.json` as served passes a code generator's validator (`openapi-spec-validator`,
/// pinned in `.ci/python/requirements.txt`: the OpenAPI 3.1 meta-schema and its reference
/// rules) in every configuration that changes it: payments configured or not, an operator
/// address (`OPERATOR_EMAIL`, `info.contact`) or none, a public base URL (`servers`) or none.
fn the_served_document_passes_the_openapi_validator() {
    let Some(python) = python_tool("openapi-spec-validator") else {
        return;
    };
    let site = Fixture::start(fixture_pages);
    let facilitator = Fixture::accepting_facilitator();
    let paid = service_vars(&site, &facilitator);
    let unpaid: Vec<(&str, String)> = paid
        .iter()
        .filter(|(name, _)| !matches!(*name, "PAY_TO" | "PUBLIC_BASE_URL"))
        .cloned()
        .collect();
    let mut with_contact = paid.clone();
    with_contact.push(("OPERATOR_EMAIL", "ops@example.com".to_string()));
    for (label, vars) in [
        ("paid", paid),
        ("paid, OPERATOR_EMAIL", with_contact),
        ("unpaid, no base URL", unpaid),
    ] {
        let service = Service::start_with_tls(&vars, webpki(), None);
        let (status, _, body) =
            service.call(b"GET /openapi.json HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert_eq!(status, 200, "{label}: {body}");
        let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "openapi-{}-{}.json",
            std::process::id(),
            contact_e2e::runtimes::runtime().name()
        ));
        std::fs::write(&file, &body).unwrap();
        let output = Command::new(python.join("venv/bin/openapi-spec-validator"))
            .arg(&file)
            .output_in_group()
            .expect("run openapi-spec-validator");
        let _ = std::fs::remove_file(&file);
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "{label}: {said}");
        assert!(said.contains("OK"), "{label}: {said}");
    }
}

contact_e2e::both_runtimes!(every_answer_matches_the_openapi_document);
contact_e2e::both_runtimes!(the_served_document_passes_the_openapi_validator);
