//! Several instances, one truth (docs/operations.md, "Running several instances"): three
//! `contact-extract serve` processes share one `redis-server` (Debian) and sit behind nginx
//! (Debian) round-robin, each trusting nginx's `X-Forwarded-For`, one of them on the smol
//! runtime and the others on tokio (a mixed fleet shares one store). One signature spread over
//! them buys one crawl and one settlement; a kept result outlives its instance (SIGKILL and a
//! restart); a client's rate limit is one for all; an instance killed while its `/settle` is in
//! flight is taken over by another, with one transfer in all; Redis stopped fails the paid
//! route closed on every instance while free routes answer, and Redis back heals them without a
//! restart; with several facilitators, a retry through another instance settles with the
//! facilitator the Redis record names. Beyond one node: a Sentinel failover (a primary, its
//! replica and `redis-sentinel`) keeps the results and takes new payments; and a receipt signed
//! before a key rotation still verifies after a restart; a CDP key rotated by a restart and
//! changed `PAY_TO` / price keep the kept results. With `CI=true` a missing tool is a
//! failure; elsewhere the tests skip with a reason.
//! Loopback only.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use contact_core::config::{Config, PaymentConfig};
use contact_core::payment::offer_receipt;
use contact_core::payment::PaymentRequirements;
use contact_core::testing::sim::payment_header;
use contact_e2e::fixture::{request_path, response, service_vars, Fixture, SUPPORTED};
use contact_e2e::process::{Group, Grouped as _};
use contact_e2e::tools::{free_port, have};
use contact_e2e::wait::{wait_for, wait_for_every, wait_until};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "contact-extract-{name}-{}-{}",
        std::process::id(),
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `redis-server` on a loopback port, with AOF (`appendfsync everysec`) in a scratch folder
/// and `maxmemory-policy noeviction`, as docs/operations.md asks; killed when dropped.
struct Redis {
    port: u16,
    dir: PathBuf,
    child: Option<Group>,
}

impl Redis {
    fn start() -> Redis {
        let mut redis = Redis {
            port: free_port(),
            dir: scratch("redis"),
            child: None,
        };
        redis.resume();
        redis
    }

    fn resume(&mut self) {
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
            ])
            .args(["--maxmemory-policy", "noeviction"])
            // `DEBUG SLEEP` from loopback: a Redis that hangs.
            .args(["--enable-debug-command", "local"])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn_in_group()
            .expect("start redis-server");
        self.child = Some(child);
        let port = self.port;
        wait_until("redis", Duration::from_secs(10), || {
            let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
                return false;
            };
            let _ = stream.write_all(b"PING\r\n");
            let mut answer = [0u8; 7];
            stream.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
        });
    }

    /// Stops it (SIGKILL): the service sees connections refused.
    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill();
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Whether it hangs: a `PING` on a new connection gets no answer within 100 ms (Redis runs
    /// one command at a time, so a `DEBUG SLEEP` holds every other client).
    fn hangs(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
        if stream.write_all(b"PING\r\n").is_err() {
            return false;
        }
        let mut answer = [0u8; 7];
        matches!(
            stream.read_exact(&mut answer).map_err(|e| e.kind()),
            Err(std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)
        )
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One `contact-extract serve` process on a fixed loopback port; killed when dropped.
struct Instance {
    port: u16,
    vars: Vec<(&'static str, String)>,
    child: Option<Group>,
    log: Arc<Mutex<Vec<String>>>,
}

impl Instance {
    fn start(vars: Vec<(&'static str, String)>) -> Instance {
        let mut instance = Instance {
            port: free_port(),
            vars,
            child: None,
            log: Arc::new(Mutex::new(Vec::new())),
        };
        instance.restart();
        instance
    }

    /// Starts the service on this instance's port and waits until it logs that it listens.
    /// Between a kill and this restart another socket may take the port for a moment: the
    /// kernel hands the freed port to the next outgoing connection (another instance's, or
    /// nginx's to an upstream) as its local port, and a listener cannot bind beside it. So a
    /// start that fails with "Address already in use" is tried again, at most 50 times over
    /// about 10 s; any other exit fails the test at once.
    /// Kills the instance (SIGKILL: nothing flushed), starts it again with `vars` on the same
    /// address and waits until it is ready.
    fn restart_with(&mut self, vars: Vec<(&'static str, String)>) {
        self.kill();
        self.vars = vars;
        self.restart();
        wait_ready(&[self]);
    }

    fn restart(&mut self) {
        for attempt in 1..=50 {
            if self.spawn_and_wait() {
                return;
            }
            let log = self.log.lock().unwrap().clone();
            let port_taken = log.iter().any(|l| l.contains("Address already in use"));
            assert!(port_taken && attempt < 50, "the instance exited: {log:?}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// One start: `true` once it logs that it listens, `false` if it exits first (its lines
    /// are in `self.log`).
    fn spawn_and_wait(&mut self) -> bool {
        let mut command = Command::new(env!("CARGO_BIN_EXE_contact-extract"));
        command
            .arg("serve")
            .envs(self.vars.iter().map(|(k, v)| (*k, v.as_str())))
            .env("BIND_ADDR", format!("127.0.0.1:{}", self.port))
            .env("LOG_FORMAT", "json")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn_in_group().expect("start the service");
        let stderr = child.stderr.take().unwrap();
        // This run's lines only.
        self.log = Arc::new(Mutex::new(Vec::new()));
        let log = self.log.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                log.lock().unwrap().push(line);
            }
        });
        // Its own line, not a port that accepts: a port that accepts may be another
        // process's (a free port handed out again) while this one failed to bind.
        let listening = format!("listening on {}", self.addr());
        let log = self.log.clone();
        let mut exited = false;
        wait_until(
            "the instance to log that it listens, or to exit",
            Duration::from_secs(20),
            || {
                exited = child.try_wait().unwrap().is_some();
                exited || log.lock().unwrap().iter().any(|l| l.contains(&listening))
            },
        );
        if exited {
            // Its stderr is closed: the reader ends once it has read every line.
            let _ = reader.join();
            return false;
        }
        self.child = Some(child);
        true
    }

    /// SIGKILL: nothing is flushed, nothing recorded.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill();
        }
    }

    fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.kill();
    }
}

/// nginx round-robin in front of `upstreams`, adding `X-Forwarded-For` and naming the instance
/// that answered in `X-Upstream`; stopped when dropped.
struct Nginx {
    port: u16,
    dir: PathBuf,
    child: Group,
}

impl Nginx {
    fn start(upstreams: &[SocketAddr]) -> Nginx {
        let dir = scratch("nginx");
        let port = free_port();
        let servers: String = upstreams
            .iter()
            .map(|addr| format!("    server {addr} max_fails=0;\n"))
            .collect();
        let d = dir.display();
        let conf = format!(
            "daemon off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
             events {{ worker_connections 256; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
               fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
               upstream service {{\n{servers}  }}\n\
               server {{\n    listen 127.0.0.1:{port};\n    location / {{\n\
                 proxy_pass http://service;\n      proxy_http_version 1.1;\n\
                 proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n\
                 proxy_next_upstream off;\n      proxy_read_timeout 120s;\n\
                 add_header X-Upstream $upstream_addr always;\n    }}\n  }}\n}}\n"
        );
        std::fs::write(dir.join("nginx.conf"), conf).unwrap();
        let child = Command::new("nginx")
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .arg("-p")
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn_in_group()
            .expect("start nginx");
        wait_until("nginx", Duration::from_secs(10), || {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        Nginx { port, dir, child }
    }

    fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.child.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A response: status, head, body.
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        contact_e2e::fixture::header(&self.head, name)
    }
}

/// One request on a new connection; the whole response (the service closes it).
fn send(addr: SocketAddr, request: &[u8]) -> Answer {
    try_send(addr, request).unwrap()
}

/// [`send`], or the error connecting or writing.
fn try_send(addr: SocketAddr, request: &[u8]) -> std::io::Result<Answer> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(90)))?;
    stream.write_all(request)?;
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Ok(Answer {
        status,
        head: head.to_string(),
        body: body.to_string(),
    })
}

fn get(addr: SocketAddr, path: &str) -> Answer {
    send(
        addr,
        format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// An extraction request for the fixture site at `site`, paid with `header` when given.
fn paid(site: &Fixture, header: Option<&str>) -> Vec<u8> {
    let body = format!(
        r#"{{"url":"http://www.fixture-shop.com:{}/"}}"#,
        site.addr.port()
    );
    let payment = header
        .map(|h| format!("PAYMENT-SIGNATURE: {h}\r\n"))
        .unwrap_or_default();
    format!(
        "POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{payment}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn requirements(vars: &[(&'static str, String)]) -> PaymentRequirements {
    let map: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    match Config::from_env_map(&map).unwrap().payment {
        PaymentConfig::Ready { terms, .. } => terms.requirements,
        PaymentConfig::Incomplete(problems) => panic!("{problems:?}"),
    }
}

/// A signed payment with `nonce`, valid for the next 150 s.
fn signature(vars: &[(&'static str, String)], nonce: u8) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    payment_header(&requirements(vars), nonce, 0, now + 150)
}

const PAGE: &str = r#"<title>Fixture Shop</title><a href="mailto:info@fixture-shop.com">Mail</a>"#;

fn site() -> Fixture {
    Fixture::start(|raw| match request_path(raw).as_str() {
        "/" => response(200, "text/html", PAGE),
        _ => response(404, "text/html", ""),
    })
}

fn tools_missing() -> bool {
    have("redis-server", "apt-get install redis-server").is_none()
        || have("nginx", "apt-get install nginx-light").is_none()
}

/// A facilitator that verifies after `verify_delay` (so concurrent requests overlap) and
/// settles each authorization (the `nonce` of the payload) once: the first `/settle` of a nonce
/// is its transfer; a later one answers "already used", as the reference facilitator does for
/// a nonce the chain has seen. With `hold_first_settle`, the answer to the first `/settle` is
/// held until the connection's peer is gone (the transfer is done all the same).
struct Facilitator {
    fixture: Fixture,
    transfers: Arc<AtomicUsize>,
}

impl Facilitator {
    fn start(verify_delay: Duration, hold_first_settle: bool) -> Facilitator {
        let transfers = Arc::new(AtomicUsize::new(0));
        let settled: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
        let held = Arc::new(AtomicBool::new(!hold_first_settle));
        let counted = transfers.clone();
        let fixture = Fixture::start(move |raw| {
            let path = request_path(raw);
            if path == "/supported" {
                return response(200, "application/json", SUPPORTED);
            }
            if path == "/verify" {
                // Pacing, not synchronisation: a slow /verify makes concurrent requests overlap.
                std::thread::sleep(verify_delay);
                return response(200, "application/json", r#"{"isValid":true}"#);
            }
            let text = String::from_utf8_lossy(raw);
            let nonce = text
                .split("\"nonce\":\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or("")
                .to_string();
            let first = {
                let mut settled = settled.lock().unwrap();
                let first = !settled.contains(&nonce);
                if first {
                    settled.push(nonce);
                    counted.fetch_add(1, Ordering::SeqCst);
                }
                first
            };
            if first && !held.swap(true, Ordering::SeqCst) {
                // The transfer is done; the answer never comes (its instance is killed): the
                // behaviour under test, not synchronisation.
                std::thread::sleep(Duration::from_secs(50));
            }
            if first {
                response(
                    200,
                    "application/json",
                    r#"{"success":true,"transaction":"0xfeed","network":"eip155:8453"}"#,
                )
            } else {
                response(
                    200,
                    "application/json",
                    r#"{"success":false,"errorReason":"invalid_exact_evm_payload_authorization_nonce_already_used","transaction":"","network":"eip155:8453"}"#,
                )
            }
        });
        Facilitator { fixture, transfers }
    }
}

fn vars_for(site: &Fixture, facilitator: &Fixture, redis: &Redis) -> Vec<(&'static str, String)> {
    let mut vars = service_vars(site, facilitator);
    vars.push(("REDIS_URL", redis.url()));
    vars.push(("TRUSTED_PROXIES", "127.0.0.1/32".into()));
    vars.push(("RATE_LIMIT_PER_MINUTE", "1".into()));
    vars.push(("RATE_LIMIT_BURST", "60".into()));
    vars
}

fn wait_ready(instances: &[&Instance]) {
    for instance in instances {
        let addr = instance.addr();
        let ready = b"GET /api/ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        wait_until("readiness", Duration::from_secs(20), || {
            try_send(addr, ready).is_ok_and(|answer| answer.status == 200)
        });
    }
}

#[test]
fn three_instances_behind_nginx_share_one_payment_store_and_one_rate_limit() {
    if tools_missing() {
        return;
    }
    let mut redis = Redis::start();
    let site = site();
    let facilitator = Facilitator::start(Duration::from_millis(300), false);
    let vars = vars_for(&site, &facilitator.fixture, &redis);
    // A mixed fleet: the first instance on smol, the others on tokio (the default); they share
    // one store whatever runtime carries out its operations.
    let mut instances: Vec<Instance> = ["smol", "tokio", "tokio"]
        .iter()
        .map(|runtime| {
            let mut vars = vars.clone();
            vars.push(("RUNTIME", (*runtime).to_string()));
            Instance::start(vars)
        })
        .collect();
    wait_ready(&instances.iter().collect::<Vec<_>>());
    let nginx = Nginx::start(&instances.iter().map(Instance::addr).collect::<Vec<_>>());

    // 20 uses of one signature at once, spread by nginx over the three instances.
    let header = signature(&vars, 1);
    let request = paid(&site, Some(&header));
    let answers: Vec<Answer> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..20)
            .map(|_| scope.spawn(|| send(nginx.addr(), &request)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let upstreams: std::collections::BTreeSet<&str> = answers
        .iter()
        .filter_map(|a| a.header("X-Upstream"))
        .collect();
    assert_eq!(upstreams.len(), 3, "nginx spread them: {upstreams:?}");
    let kept: Vec<&Answer> = answers.iter().filter(|a| a.status == 200).collect();
    assert!(
        answers.iter().all(|a| a.status == 200 || a.status == 503),
        "only the kept 200 or 503 in progress: {:?}",
        answers
            .iter()
            .filter(|a| a.status != 200 && a.status != 503)
            .map(|a| (a.status, a.head.as_str()))
            .collect::<Vec<_>>()
    );
    assert!(!kept.is_empty());
    assert!(kept.iter().all(|a| a.body == kept[0].body));
    for refused in answers.iter().filter(|a| a.status == 503) {
        assert!(refused.body.contains("in progress"), "{}", refused.body);
    }
    assert_eq!(site.count("/"), 1, "one crawl");
    assert_eq!(facilitator.fixture.count("/verify"), 1, "one /verify");
    assert_eq!(facilitator.fixture.count("/settle"), 1, "one /settle");
    let result = kept[0].body.clone();

    // The kept result through each instance (the settled outcome is written before its 200).
    for instance in &instances {
        let again = send(instance.addr(), &request);
        assert_eq!((again.status, &again.body), (200, &result));
    }
    // ...and after the instance that served it is killed and restarted.
    let served = kept[0].header("X-Upstream").unwrap().to_string();
    let instance = instances
        .iter_mut()
        .find(|i| i.addr().to_string() == served)
        .unwrap();
    instance.kill();
    instance.restart();
    wait_ready(&[instance]);
    let again = send(instance.addr(), &request);
    assert_eq!((again.status, &again.body), (200, &result));
    assert_eq!(facilitator.fixture.count("/settle"), 1);
    assert_eq!(facilitator.transfers.load(Ordering::SeqCst), 1);

    // Redis stops: the paid route is 503 with Retry-After on every instance before any
    // facilitator call; free routes answer; readiness names the store.
    redis.stop();
    let verifies = facilitator.fixture.count("/verify");
    let fresh = paid(&site, Some(&signature(&vars, 2)));
    for instance in &instances {
        let refused = send(instance.addr(), &fresh);
        assert_eq!(refused.status, 503, "{}", refused.body);
        assert!(refused.header("Retry-After").is_some());
        assert!(refused.body.contains("payment store"), "{}", refused.body);
        assert_eq!(get(instance.addr(), "/api/health").status, 200);
        let addr = instance.addr();
        wait_until("readiness to name Redis", Duration::from_secs(5), || {
            let ready = get(addr, "/api/ready");
            ready.status == 503 && ready.body.contains("payment store")
        });
    }
    assert_eq!(facilitator.fixture.count("/verify"), verifies);

    // Redis back (its AOF kept the records): paid requests succeed without a restart.
    redis.resume();
    wait_ready(&instances.iter().collect::<Vec<_>>());

    // Redis hangs for 2 s: the paid route gives up after 200 ms, 503 before any facilitator
    // call, nothing charged.
    let mut hang = Command::new("redis-cli")
        .args(["-p", &redis.port.to_string(), "DEBUG", "SLEEP", "2"])
        .stdout(Stdio::null())
        .spawn_in_group()
        .unwrap();
    wait_until(
        "Redis to hang in DEBUG SLEEP",
        Duration::from_secs(5),
        || {
            assert!(
                hang.try_wait().unwrap().is_none(),
                "redis-cli DEBUG SLEEP ended before Redis was seen hanging"
            );
            redis.hangs()
        },
    );
    let started = Instant::now();
    let slow = send(instances[2].addr(), &fresh);
    assert_eq!(slow.status, 503, "{}", slow.body);
    assert!(
        slow.body.contains("no answer within 200 ms"),
        "{}",
        slow.body
    );
    assert!(started.elapsed() < Duration::from_millis(1_500));
    assert_eq!(facilitator.fixture.count("/verify"), verifies);
    let _ = hang.wait();
    let back = send(nginx.addr(), &fresh);
    assert_eq!(back.status, 200, "{}", back.body);
    let kept_before = send(instances[1].addr(), &request);
    assert_eq!((kept_before.status, &kept_before.body), (200, &result));

    // One rate limit for all: the client (127.0.0.1) spends its burst on instance 0; the
    // others limit it too.
    let unpaid = paid(&site, None);
    let mut spent = 0;
    while send(instances[0].addr(), &unpaid).status == 402 {
        spent += 1;
        assert!(spent <= 60, "the burst is 60");
    }
    for instance in &instances {
        let limited = send(instance.addr(), &unpaid);
        assert_eq!(limited.status, 429, "{}", limited.body);
        assert!(limited.header("Retry-After").is_some());
    }

    // With leases (docs/operations.md, "Rate limits across instances"): a fresh client sending
    // round robin through nginx passes at most its burst of 60 (every request spends a token
    // drawn from the shared limit; one more may refill in the meantime) and loses at most
    // 3 × (largest_batch − 1) = 18 to tokens leased to the instances it did not reach again; then
    // every instance limits it.
    let text = String::from_utf8(unpaid.clone()).unwrap();
    let forwarded = text
        .replacen(
            "Host: x\r\n",
            "Host: x\r\nX-Forwarded-For: 198.51.100.7\r\n",
            1,
        )
        .into_bytes();
    let started = Instant::now();
    let mut passed = 0;
    for _ in 0..150 {
        match send(nginx.addr(), &forwarded).status {
            402 => passed += 1,
            429 => {}
            other => panic!("{other}"),
        }
    }
    let refilled = 1 + started.elapsed().as_secs() / 60;
    let tolerance = 3 * (u64::from(contact_core::limiter::largest_batch(60)) - 1);
    assert!(passed <= 60 + refilled, "{passed} passed: over the limit");
    assert!(
        passed + tolerance >= 60,
        "{passed} passed: beyond the tolerance"
    );
    for instance in &instances {
        let limited = send(instance.addr(), &forwarded);
        assert_eq!(limited.status, 429, "{}", limited.body);
    }
}

#[test]
fn an_instance_killed_while_its_settle_is_in_flight_is_taken_over_with_one_transfer() {
    if tools_missing() {
        return;
    }
    let redis = Redis::start();
    let site = site();
    let facilitator = Facilitator::start(Duration::ZERO, true);
    let vars = vars_for(&site, &facilitator.fixture, &redis);
    // The instance that dies runs on smol, the one that takes over on tokio.
    let mut on_smol = vars.clone();
    on_smol.push(("RUNTIME", "smol".to_string()));
    let mut first = Instance::start(on_smol);
    let metrics = SocketAddr::from(([127, 0, 0, 1], free_port()));
    let mut with_metrics = vars.clone();
    with_metrics.push(("METRICS_ADDR", metrics.to_string()));
    let second = Instance::start(with_metrics);
    wait_ready(&[&first, &second]);
    let request = paid(&site, Some(&signature(&vars, 3)));

    // The first instance crawls and calls /settle; the facilitator transfers and holds the
    // answer; the instance is killed then.
    let addr = first.addr();
    let client = std::thread::spawn({
        let request = request.clone();
        move || send(addr, &request)
    });
    wait_until("the first /settle", Duration::from_secs(20), || {
        facilitator.fixture.count("/settle") == 1
    });
    first.kill();
    let _ = client.join();
    assert_eq!(facilitator.transfers.load(Ordering::SeqCst), 1);

    // Through the other instance: "in progress" while the dead one's lease runs, then its
    // settlement is taken over: the facilitator says the authorization is used, which after an
    // unknown outcome means it paid; the kept 200, no second crawl, one transfer in all.
    // Every 500 ms: each look is a paid request through the store.
    let recovered = wait_for_every(
        "the dead instance's lease to run out (it ran out long ago)",
        Duration::from_secs(45),
        Duration::from_millis(500),
        || {
            let answer = send(second.addr(), &request);
            if answer.status != 503 {
                return Some(answer);
            }
            // "In progress", or a store round trip that missed its 200 ms on a loaded machine
            // (retry shortly, nothing charged): both say look again.
            assert!(
                answer.body.contains("in progress")
                    || answer.body.contains("payment store gave no answer"),
                "{}",
                answer.body
            );
            None
        },
    );
    assert_eq!(recovered.status, 200, "{}", recovered.body);
    assert!(recovered.body.contains("info@fixture-shop.com"));
    assert_eq!(site.count("/"), 1, "no second crawl");
    assert_eq!(facilitator.fixture.count("/verify"), 1);
    assert_eq!(facilitator.fixture.count("/settle"), 2);
    assert_eq!(facilitator.transfers.load(Ordering::SeqCst), 1);
    let again = send(second.addr(), &request);
    assert_eq!((again.status, again.body), (200, recovered.body));
    // The store's round trips are in the metrics, by operation.
    let scraped = get(metrics, "/metrics").body;
    for op in ["admit", "finish"] {
        let line = format!("contact_store_seconds_count{{op=\"{op}\"}}");
        assert!(scraped.contains(&line), "{line} in {scraped}");
    }
}

/// Several facilitators, one store (docs/payments.md, "Several facilitators"): the first
/// facilitator fails after `/verify` (its `/settle` answers 500: the outcome is unknown, 503,
/// the result kept in Redis); another instance, started while the first facilitator fails its
/// check (so its new payments go to the second), takes the retry with the same
/// `PAYMENT-SIGNATURE` to the first facilitator — the one the Redis record names — never to
/// the second.
#[test]
fn a_retry_through_another_instance_settles_with_the_facilitator_recorded_in_redis() {
    if tools_missing() {
        return;
    }
    let redis = Redis::start();
    let site = site();
    // The first facilitator: healthy, its /settle failing, until `recovered`; then its
    // /supported fails and its /settle succeeds.
    let recovered = Arc::new(AtomicBool::new(false));
    let first = Fixture::start({
        let recovered = recovered.clone();
        move |raw| {
            let later = recovered.load(Ordering::SeqCst);
            match request_path(raw).as_str() {
                "/supported" if later => response(503, "application/json", r#"{"error":"down"}"#),
                "/supported" => response(200, "application/json", SUPPORTED),
                "/verify" => response(200, "application/json", r#"{"isValid":true}"#),
                _ if later => response(
                    200,
                    "application/json",
                    r#"{"success":true,"transaction":"0xfeed","network":"eip155:8453"}"#,
                ),
                _ => response(500, "application/json", r#"{"error":"boom"}"#),
            }
        }
    });
    let second = Fixture::accepting_facilitator();
    let mut vars = vars_for(&site, &first, &redis);
    vars.retain(|(name, _)| *name != "FACILITATOR_URL");
    vars.push((
        "FACILITATOR_URL",
        format!("http://{},http://{}", first.addr, second.addr),
    ));
    let a = Instance::start(vars.clone());
    wait_ready(&[&a]);
    let request = paid(&site, Some(&signature(&vars, 9)));
    let unknown = send(a.addr(), &request);
    assert_eq!(unknown.status, 503, "{}", unknown.body);
    assert_eq!(first.count("/verify"), 1);
    assert!(first.count("/settle") >= 1);

    recovered.store(true, Ordering::SeqCst);
    let b = Instance::start(vars.clone());
    wait_ready(&[&b]);
    let ready = get(b.addr(), "/api/ready");
    assert!(
        ready
            .body
            .contains(&format!("http://{}/: facilitator unreachable", first.addr)),
        "{}",
        ready.body
    );
    let paid_answer = send(b.addr(), &request);
    assert_eq!(paid_answer.status, 200, "{}", paid_answer.body);
    assert!(paid_answer.body.contains("info@fixture-shop.com"));
    assert_eq!(site.count("/"), 1, "no second crawl");
    assert_eq!(
        (second.count("/verify"), second.count("/settle")),
        (0, 0),
        "the second facilitator never sees the authorization"
    );
}

/// A restart after a kill finds its port taken for a moment (the kernel hands a freed port to
/// the next outgoing connection): the instance is started again until it can listen.
#[test]
fn a_restart_waits_for_its_port_while_another_socket_holds_it() {
    if tools_missing() {
        return;
    }
    let redis = Redis::start();
    let site = site();
    let facilitator = Fixture::accepting_facilitator();
    let mut instance = Instance::start(vars_for(&site, &facilitator, &redis));
    wait_ready(&[&instance]);
    instance.kill();
    let holder = std::net::TcpListener::bind(instance.addr()).expect("hold the freed port");
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1500));
        drop(holder);
    });
    instance.restart();
    release.join().unwrap();
    wait_ready(&[&instance]);
    assert!(
        instance
            .log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("listening on")),
        "the instance listens on its own port again"
    );
}

/// The receipt inside a paid answer's `PAYMENT-RESPONSE`: its signer's address and `issuedAt`.
fn receipt_of(answer: &Answer) -> (String, u64) {
    let header = answer.header("PAYMENT-RESPONSE").expect("PAYMENT-RESPONSE");
    let settlement: serde_json::Value = contact_core::payment::codec::decode(header).unwrap();
    let receipt = &settlement["extensions"][offer_receipt::EXTENSION_KEY]["info"]["receipt"];
    offer_receipt::receipt_signer(receipt).expect("a signed receipt")
}

/// Rotating the receipt signing key (docs/payments.md, "Rotating the signing key"): an
/// instance signs a receipt with key A; it restarts with key B and A in
/// `RECEIPT_PREVIOUS_SIGNERS` (valid until the rotation). A retry of the first payment gets
/// the kept answer — the receipt signed by A, byte for byte — and A's receipt still verifies
/// against the signers discovery publishes (`/.well-known/x402`, `/.well-known/x402.json`,
/// `/openapi.json`); a new payment gets a receipt signed by B, which verifies too.
#[test]
fn a_receipt_signed_before_a_key_rotation_still_verifies() {
    if have("redis-server", "apt-get install redis-server").is_none() {
        return;
    }
    let redis = Redis::start();
    let site = site();
    let facilitator = Fixture::accepting_facilitator();
    let keys = scratch("receipt-keys");
    // anvil's third and fourth development keys (well-known test keys).
    let (a, b) = (keys.join("a.hex"), keys.join("b.hex"));
    std::fs::write(
        &a,
        "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a\n",
    )
    .unwrap();
    std::fs::write(
        &b,
        "7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6\n",
    )
    .unwrap();
    let signer_a = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";
    let signer_b = "0x90f79bf6eb2c4f870365e785982e1f101e93b906";
    let vars = vars_for(&site, &facilitator, &redis);
    let mut with_a = vars.clone();
    with_a.push(("RECEIPT_SIGNING_KEY_FILE", a.display().to_string()));
    let mut instance = Instance::start(with_a);
    wait_ready(&[&instance]);
    let first = paid(&site, Some(&signature(&vars, 1)));
    let before = send(instance.addr(), &first);
    assert_eq!(before.status, 200, "{}", before.body);
    let (signed_by, issued_at) = receipt_of(&before);
    assert_eq!(signed_by, signer_a);

    // The rotation: B signs from now on; A is published as signing until now.
    let rotation = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 1;
    instance.kill();
    let mut with_b = vars.clone();
    with_b.push(("RECEIPT_SIGNING_KEY_FILE", b.display().to_string()));
    with_b.push((
        "RECEIPT_PREVIOUS_SIGNERS",
        format!("{signer_a}:{}:{rotation}", issued_at - 3600),
    ));
    instance.vars = with_b;
    std::thread::sleep(Duration::from_secs(1));
    instance.restart();
    wait_ready(&[&instance]);

    let again = send(instance.addr(), &first);
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(
        again.header("PAYMENT-RESPONSE"),
        before.header("PAYMENT-RESPONSE"),
        "the kept answer keeps the receipt it was signed with"
    );
    let json = |path: &str| -> serde_json::Value {
        serde_json::from_str(&get(instance.addr(), path).body).unwrap()
    };
    let published = [
        json("/.well-known/x402")["offerReceipt"].clone(),
        json("/.well-known/x402.json")["items"][0]["extensions"][offer_receipt::EXTENSION_KEY]
            ["info"]
            .clone(),
        json("/openapi.json")["info"]["x-x402-offer-receipt"].clone(),
    ];
    let fresh = send(instance.addr(), &paid(&site, Some(&signature(&vars, 2))));
    assert_eq!(fresh.status, 200, "{}", fresh.body);
    let (new_signer, new_issued_at) = receipt_of(&fresh);
    assert_eq!(new_signer, signer_b);
    for declaration in &published {
        assert_eq!(declaration["signer"], signer_b, "{declaration}");
        assert!(
            offer_receipt::covers(declaration, &signed_by, issued_at),
            "the receipt signed before the rotation verifies: {declaration}"
        );
        assert!(
            offer_receipt::covers(declaration, &new_signer, new_issued_at),
            "{declaration}"
        );
        assert!(
            !offer_receipt::covers(declaration, &signed_by, new_issued_at),
            "A signs nothing after the rotation: {declaration}"
        );
    }
    assert_eq!(facilitator.count("/settle"), 2);
    let _ = std::fs::remove_dir_all(&keys);
}

/// One command in Redis's inline form to the server at `port` on loopback; its raw reply
/// (empty when nothing answers within 2 s).
fn redis_command(port: u16, command: &str) -> String {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return String::new();
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    if stream
        .write_all(format!("{command}\r\n").as_bytes())
        .is_err()
    {
        return String::new();
    }
    // `INFO replication` of a replica is about 600 bytes.
    let mut reply = [0u8; 4096];
    let n = stream.read(&mut reply).unwrap_or(0);
    String::from_utf8_lossy(&reply[..n]).to_string()
}

/// The replication offset (bytes of the replication stream) that the node on `port` reports
/// as `field` in `INFO replication`: `master_repl_offset` on a primary (written), and
/// `slave_repl_offset` on a replica (applied). `None` when the node does not answer or the
/// field is missing.
fn replication_offset(port: u16, field: &str) -> Option<u64> {
    let info = redis_command(port, "INFO replication");
    info.lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|value| value.trim().parse().ok())
}

/// `redis-server` on `port` without persistence, a replica of `primary` when given, working in
/// `dir` (a replica writes the primary's snapshot there); killed when dropped.
fn redis_node(port: u16, primary: Option<u16>, dir: &std::path::Path) -> Group {
    let mut command = Command::new("redis-server");
    command
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .args(["--save", "", "--appendonly", "no"])
        .args(["--maxmemory-policy", "noeviction"])
        // A replica's first full sync starts at once (Redis 7 waits 5 s by default).
        .args(["--repl-diskless-sync-delay", "0"])
        .arg("--dir")
        .arg(dir);
    if let Some(primary) = primary {
        command.args(["--replicaof", "127.0.0.1", &primary.to_string()]);
    }
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn_in_group()
        .expect("start redis-server");
    wait_until("redis", Duration::from_secs(10), || {
        redis_command(port, "PING").starts_with("+PONG")
    });
    child
}

/// Redis beyond one node (docs/operations.md, "Redis beyond one node"): a primary, its replica
/// and one `redis-sentinel` watching them (Debian), the service given the sentinel and the
/// primary's name. A paid request is served through the primary; the primary is killed
/// (SIGKILL) and the sentinel promotes the replica; the retry with the same
/// `PAYMENT-SIGNATURE` gets the kept result from the new primary (no second crawl or
/// `/settle`), and a new payment is stored there.
#[test]
fn a_sentinel_failover_keeps_the_results_and_takes_new_payments() {
    if have("redis-server", "apt-get install redis-server").is_none()
        || have("redis-sentinel", "apt-get install redis-sentinel").is_none()
    {
        return;
    }
    let (primary_port, replica_port, sentinel_port) = (free_port(), free_port(), free_port());
    let dir = scratch("sentinel");
    let (primary_dir, replica_dir) = (dir.join("primary"), dir.join("replica"));
    std::fs::create_dir_all(&primary_dir).unwrap();
    std::fs::create_dir_all(&replica_dir).unwrap();
    let mut primary = redis_node(primary_port, None, &primary_dir);
    let _replica = redis_node(replica_port, Some(primary_port), &replica_dir);
    let conf = dir.join("sentinel.conf");
    std::fs::write(
        &conf,
        format!(
            "bind 127.0.0.1\nport {sentinel_port}\ndir {}\n\
             sentinel monitor primary 127.0.0.1 {primary_port} 1\n\
             sentinel down-after-milliseconds primary 1000\n\
             sentinel failover-timeout primary 10000\n",
            dir.display()
        ),
    )
    .unwrap();
    let _sentinel = Command::new("redis-sentinel")
        .arg(&conf)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn_in_group()
        .expect("start redis-sentinel");
    let names = |port: u16| {
        let reply = redis_command(sentinel_port, "SENTINEL get-master-addr-by-name primary");
        reply.contains(&format!("\r\n{port}\r\n"))
    };
    wait_until(
        "the sentinel to watch the primary",
        Duration::from_secs(10),
        || {
            names(primary_port)
                && redis_command(primary_port, "INFO replication").contains("state=online")
        },
    );

    let site = site();
    let facilitator = Fixture::accepting_facilitator();
    let mut vars = service_vars(&site, &facilitator);
    // Only its scheme, credentials and database count: nothing listens on port 1.
    vars.push(("REDIS_URL", "redis://127.0.0.1:1/0".into()));
    vars.push(("REDIS_SENTINELS", format!("127.0.0.1:{sentinel_port}")));
    vars.push(("REDIS_SENTINEL_MASTER", "primary".into()));
    let instance = Instance::start(vars.clone());
    wait_ready(&[&instance]);
    let request = paid(&site, Some(&signature(&vars, 1)));
    let before = send(instance.addr(), &request);
    assert_eq!(before.status, 200, "{}", before.body);
    // Replication is asynchronous: the record must be on the replica before the primary dies.
    // `WAIT` cannot tell: it counts only the writes of the connection that sends it (none of
    // the service's). And a replica just synced gets no writes until its first `REPLCONF ACK`,
    // up to a second later, though `INFO` calls it online. So wait until the replica has
    // applied everything the primary had written when the 200 came back.
    let written = wait_for(
        "the primary's replication offset",
        Duration::from_secs(5),
        || replication_offset(primary_port, "master_repl_offset"),
    );
    wait_until(
        "the replica to apply the primary's writes",
        Duration::from_secs(10),
        || replication_offset(replica_port, "slave_repl_offset").is_some_and(|at| at >= written),
    );

    primary.kill();
    wait_until(
        "the sentinel to promote the replica",
        Duration::from_secs(30),
        || names(replica_port),
    );
    wait_ready(&[&instance]);
    let again = send(instance.addr(), &request);
    assert_eq!((again.status, &again.body), (200, &before.body));
    assert_eq!(site.count("/"), 1, "one crawl");
    assert_eq!(facilitator.count("/settle"), 1, "one /settle");
    let fresh = send(instance.addr(), &paid(&site, Some(&signature(&vars, 2))));
    assert_eq!(fresh.status, 200, "{}", fresh.body);
    assert!(
        redis_command(replica_port, "DBSIZE").starts_with(":")
            && !redis_command(replica_port, "DBSIZE").starts_with(":0"),
        "the new primary holds the records"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Changing the payment terms while records are live (docs/payments.md, "Changing the payment
/// terms"), with Redis: a payment made under `PAY_TO` A is settled; the instance restarts with
/// `PAY_TO` B, then with a doubled `PRICE_USD`. Under the new terms the retry of the settled
/// payment still gets its kept result (the record is found before the terms are compared), a
/// new payment signed for the old terms is a 402 before any facilitator call, and a payment
/// for the new terms is served. Back on the old terms, the retry gets the kept result too. One
/// `/settle` per payment, never a second one for the first.
#[test]
fn changed_terms_keep_old_results_and_refuse_old_payments() {
    if have("redis-server", "apt-get install redis-server").is_none() {
        return;
    }
    let redis = Redis::start();
    let site = site();
    let facilitator = Fixture::accepting_facilitator();
    let old_terms = vars_for(&site, &facilitator, &redis);
    let mut instance = Instance::start(old_terms.clone());
    wait_ready(&[&instance]);
    let first = paid(&site, Some(&signature(&old_terms, 1)));
    let before = send(instance.addr(), &first);
    assert_eq!(before.status, 200, "{}", before.body);

    let other_pay_to = (
        "PAY_TO",
        "0x90F79bf6EB2c4f870365E785982E1f101E93b906".to_string(),
    );
    let doubled_price = ("PRICE_USD", "0.02".to_string());
    for change in [other_pay_to, doubled_price] {
        let mut new_terms: Vec<(&'static str, String)> = old_terms
            .iter()
            .filter(|(name, _)| *name != change.0)
            .cloned()
            .collect();
        new_terms.push(change.clone());
        instance.restart_with(new_terms.clone());
        let verifies = facilitator.count("/verify");
        let retry = send(instance.addr(), &first);
        assert_eq!(
            (retry.status, &retry.body),
            (200, &before.body),
            "{change:?}"
        );
        let stale = send(
            instance.addr(),
            &paid(&site, Some(&signature(&old_terms, 2))),
        );
        assert_eq!(stale.status, 402, "{change:?}: {}", stale.body);
        assert_eq!(
            facilitator.count("/verify"),
            verifies,
            "{change:?}: refused locally"
        );
        let nonce = if change.0 == "PAY_TO" { 3 } else { 4 };
        let fresh = send(
            instance.addr(),
            &paid(&site, Some(&signature(&new_terms, nonce))),
        );
        assert_eq!(fresh.status, 200, "{change:?}: {}", fresh.body);
    }

    instance.restart_with(old_terms);
    let again = send(instance.addr(), &first);
    assert_eq!((again.status, &again.body), (200, &before.body));
    assert_eq!(
        facilitator.count("/settle"),
        3,
        "the first payment and the two new ones"
    );
}

/// Changing `X402_NETWORK` while records are live (docs/payments.md, "Changing the payment
/// terms"): records are kept per network and asset, so after a restart on Base Sepolia the
/// retry of a Base payment is checked against the new terms and refused locally (402, no
/// facilitator call), new payments on the new network are served, and a restart back on Base
/// finds the first payment's kept result again (no second `/settle`).
#[test]
fn a_changed_network_keeps_old_records_apart_and_refuses_old_payments() {
    if have("redis-server", "apt-get install redis-server").is_none() {
        return;
    }
    let redis = Redis::start();
    let site = site();
    // A facilitator for both networks: `/settle` names the network the request names.
    let facilitator = Fixture::start(|raw| match request_path(raw).as_str() {
        "/supported" => response(
            200,
            "application/json",
            r#"{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:8453"},{"x402Version":2,"scheme":"exact","network":"eip155:84532"}],"extensions":[],"signers":{"eip155:*":["0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"]}}"#,
        ),
        "/verify" => response(200, "application/json", r#"{"isValid":true}"#),
        _ => {
            let network = if String::from_utf8_lossy(raw).contains("eip155:84532") {
                "eip155:84532"
            } else {
                "eip155:8453"
            };
            let body =
                format!(r#"{{"success":true,"transaction":"0xfeed","network":"{network}"}}"#);
            response(200, "application/json", &body)
        }
    });
    let base_terms = vars_for(&site, &facilitator, &redis);
    let mut instance = Instance::start(base_terms.clone());
    wait_ready(&[&instance]);
    let first = paid(&site, Some(&signature(&base_terms, 1)));
    let before = send(instance.addr(), &first);
    assert_eq!(before.status, 200, "{}", before.body);

    let mut sepolia_terms: Vec<(&'static str, String)> = base_terms
        .iter()
        .filter(|(name, _)| *name != "X402_NETWORK")
        .cloned()
        .collect();
    sepolia_terms.push(("X402_NETWORK", "eip155:84532".to_string()));
    instance.restart_with(sepolia_terms.clone());
    let verifies = facilitator.count("/verify");
    let retry = send(instance.addr(), &first);
    assert_eq!(retry.status, 402, "{}", retry.body);
    assert_eq!(facilitator.count("/verify"), verifies, "refused locally");
    let fresh = send(
        instance.addr(),
        &paid(&site, Some(&signature(&sepolia_terms, 2))),
    );
    assert_eq!(fresh.status, 200, "{}", fresh.body);

    instance.restart_with(base_terms);
    let again = send(instance.addr(), &first);
    assert_eq!((again.status, &again.body), (200, &before.body));
    assert_eq!(
        facilitator.count("/settle"),
        2,
        "the first payment and the one on the new network"
    );
}

/// The `kid` of the CDP JWT in a raw facilitator request's `Authorization: Bearer` header.
fn cdp_kid(raw: &[u8]) -> Option<String> {
    use base64::Engine as _;
    let text = String::from_utf8_lossy(raw);
    let token = text.lines().find_map(|l| {
        l.strip_prefix("authorization: Bearer ")
            .or_else(|| l.strip_prefix("Authorization: Bearer "))
    })?;
    let header = token.split('.').next()?;
    let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header)
        .ok()?;
    let header: serde_json::Value = serde_json::from_slice(&json).ok()?;
    header["kid"].as_str().map(str::to_string)
}

/// Rotating the CDP API key (docs/configuration.md, "Facilitator credentials"): with Redis a
/// restart forgets nothing, so the new key is put in by restarting with it. The instance pays
/// with key A; it restarts with key B; the retry of the first payment gets its kept result
/// (no new facilitator call), and the next payment's facilitator calls carry B's JWT only.
#[test]
fn a_cdp_key_rotated_by_a_restart_with_redis_keeps_the_results() {
    use base64::Engine as _;
    if have("redis-server", "apt-get install redis-server").is_none() {
        return;
    }
    let redis = Redis::start();
    let site = site();
    let facilitator = Fixture::accepting_facilitator();
    let keys = scratch("cdp-keys");
    let key_file = |name: &str, seed: u8| {
        let key = ed25519_dalek::SigningKey::from_bytes(&[seed; 32]);
        let mut pair = key.to_bytes().to_vec();
        pair.extend_from_slice(&key.verifying_key().to_bytes());
        let path = keys.join(name);
        std::fs::write(
            &path,
            base64::engine::general_purpose::STANDARD.encode(&pair),
        )
        .unwrap();
        path.display().to_string()
    };
    let vars = vars_for(&site, &facilitator, &redis);
    let with_key = |id: &str, file: String| {
        let mut with = vars.clone();
        with.push(("CDP_API_KEY_ID", id.to_string()));
        with.push(("CDP_API_KEY_SECRET_FILE", file));
        with
    };
    let (key_a, key_b) = (
        "organizations/test/apiKeys/a",
        "organizations/test/apiKeys/b",
    );
    let mut instance = Instance::start(with_key(key_a, key_file("a.b64", 7)));
    wait_ready(&[&instance]);
    let first = paid(&site, Some(&signature(&vars, 1)));
    let before = send(instance.addr(), &first);
    assert_eq!(before.status, 200, "{}", before.body);
    let seen = facilitator.requests.lock().unwrap().len();

    instance.restart_with(with_key(key_b, key_file("b.b64", 9)));
    let again = send(instance.addr(), &first);
    assert_eq!((again.status, &again.body), (200, &before.body));
    let fresh = send(instance.addr(), &paid(&site, Some(&signature(&vars, 2))));
    assert_eq!(fresh.status, 200, "{}", fresh.body);
    let requests = facilitator.requests.lock().unwrap();
    let kids =
        |range: &[Vec<u8>]| -> Vec<Option<String>> { range.iter().map(|r| cdp_kid(r)).collect() };
    assert!(kids(&requests[..seen])
        .iter()
        .all(|k| k.as_deref() == Some(key_a)));
    let after = kids(&requests[seen..]);
    assert!(
        after.len() >= 3,
        "/supported, /verify and /settle: {after:?}"
    );
    assert!(
        after.iter().all(|k| k.as_deref() == Some(key_b)),
        "{after:?}"
    );
    drop(requests);
    assert_eq!(facilitator.count("/settle"), 2, "the retry settled nothing");
    let _ = std::fs::remove_dir_all(&keys);
}
