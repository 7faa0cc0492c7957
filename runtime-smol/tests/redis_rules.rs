//! The shared store keeps the in-process store's rules: random sequences of store operations
//! (admissions with recall and claim, reservations with take-overs, settlement stages, releases
//! and outcomes from several instances, payment identifiers, the per-payer and global bounds)
//! are played on `LocalStore` and on `RedisStore` (a Debian `redis-server` on a loopback port),
//! and every answer must be the same. And the rate limit: a client's burst, its refill, IPv6 by
//! /64. With `CI=true` a missing `redis-server` is a failure; elsewhere the tests skip.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::net::IpAddr;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use contact_core::limiter::RateLimiter;
use contact_core::payment::store::{
    AuthorizationKey, Fingerprint, KeptResponse, Lease, MemoryStore, Stage, StoreLimits,
};
use contact_core::store::{Admission, Admit, LocalStore, Recall, StoreOp, StoreReply};
use contact_e2e::process::{Group, Grouped as _};
use contact_e2e::tools::{free_port, have};
use contact_e2e::wait::wait_until;
use contact_runtime_common::redis_store::RedisStore;
use proptest::prelude::*;

const ASSET: &str = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";

/// One `redis-server` for the whole file, on a `--port` nobody else uses. Kept in a `static`,
/// it is never dropped: the process guard's watchdog stops it when the test binary exits.
struct Server {
    port: u16,
    _child: Group,
}

fn redis() -> Option<&'static Server> {
    static SERVER: OnceLock<Option<Server>> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            have("redis-server", "apt-get install redis-server")?;
            let port = free_port();
            Some(Server {
                port,
                _child: spawn_plain_redis(port),
            })
        })
        .as_ref()
}

/// `redis-server` on 127.0.0.1, without persistence, with `extra` arguments (its port among
/// them); returns once `port` accepts connections (at most 10 s).
fn spawn_redis(port: u16, extra: &[&std::ffi::OsStr]) -> Group {
    let child = Command::new("redis-server")
        .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn_in_group()
        .expect("start redis-server");
    wait_until("redis-server to listen", Duration::from_secs(10), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    child
}

/// [`spawn_redis`] listening in plain text on `port`.
fn spawn_plain_redis(port: u16) -> Group {
    let port_text = port.to_string();
    spawn_redis(port, &["--port".as_ref(), port_text.as_ref()])
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A Redis store in a namespace of its own.
fn redis_store(server: &Server, limits: StoreLimits, rate: (u32, u32)) -> RedisStore {
    static CASE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let case = CASE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let prefix = format!("rules-{}-{case}", std::process::id());
    RedisStore::new(
        &format!("redis://127.0.0.1:{}/", server.port),
        &prefix,
        ("eip155:8453", ASSET),
        rate.0,
        rate.1,
    )
    .unwrap()
    .with_limits(limits)
}

fn key(payer: u8, nonce: u8) -> AuthorizationKey {
    AuthorizationKey {
        network: "eip155:8453".into(),
        asset: ASSET.into(),
        from: [payer; 20],
        nonce: [nonce; 32],
    }
}

fn print(n: u8) -> Fingerprint {
    Fingerprint {
        payment: [n; 32],
        request: [n.wrapping_add(1); 32],
    }
}

fn kept(n: u8) -> KeptResponse {
    KeptResponse {
        body: vec![b'a' + n; 40 + usize::from(n)].into(),
        request_id: format!("req_{n}"),
        settlement: None,
        // Odd results were kept after a `/settle` that may have broadcast, even ones after
        // attempts that were never sent: the record must say which.
        may_have_broadcast: n % 2 == 1,
    }
}

/// A generated step: which operation, on which of a few authorizations, by which instance,
/// how far the clock moved first.
#[derive(Debug, Clone)]
struct Step {
    op: u8,
    payer: u8,
    nonce: u8,
    print: u8,
    owner: u64,
    id: u8,
    stage: u8,
    wait: u64,
}

fn step() -> impl Strategy<Value = Step> {
    (
        0u8..6,
        0u8..2,
        0u8..3,
        0u8..2,
        1u64..3,
        0u8..3,
        0u8..3,
        prop_oneof![Just(0u64), Just(1), Just(30), Just(40), Just(41)],
    )
        .prop_map(|(op, payer, nonce, print, owner, id, stage, wait)| Step {
            op,
            payer,
            nonce,
            print,
            owner,
            id,
            stage,
            wait,
        })
}

/// The operation a step stands for, at `now` (unix seconds; validBefore is far ahead so no
/// record expires during a case: Redis expires keys by its own clock).
fn operation(step: &Step, now: u64, valid_before: u64) -> StoreOp {
    let key = key(step.payer, step.nonce);
    let payment_id = match step.id {
        0 => None,
        1 => Some("pay_aaaaaaaaaaaaaaaa".to_string()),
        _ => Some(format!("pay_bbbbbbbbbbbbbbb{}", step.nonce)),
    };
    let lease = Lease {
        id: step.owner,
        until: now + 40,
    };
    match step.op {
        0 => StoreOp::Admit(Admit {
            client: IpAddr::from([192, 0, 2, 1]),
            unix_ms: now * 1000,
            recall: Some(Recall {
                payment_id,
                key: Some(key),
                fingerprint: print(step.print),
                lease,
            }),
            tokens: 1,
        }),
        5 => StoreOp::Admit(Admit {
            client: IpAddr::from([192, 0, 2, 1 + step.nonce]),
            unix_ms: now * 1000,
            recall: None,
            tokens: 1 + u32::from(step.stage) * 4,
        }),
        1 => StoreOp::Reserve {
            key,
            fingerprint: print(step.print),
            payment_id,
            // Each owner its facilitator: a take-over must keep the first one's.
            facilitator: format!("https://facilitator-{}.example/", step.owner),
            valid_before,
            lease,
            unix_now: now,
            // Some reservations know the head block (a take-over keeps the first one's).
            first_seen_block: (step.stage > 0).then(|| 1_000 * u64::from(step.stage) + step.owner),
        },
        2 => StoreOp::BeginSettle {
            key,
            kept: kept(step.nonce),
            lease,
        },
        3 => StoreOp::Release {
            key,
            lease: step.owner,
        },
        _ => StoreOp::Finish {
            key,
            lease: step.owner,
            stage: match step.stage {
                0 => Stage::Settled(kept(step.nonce)),
                // Whether a `/settle` may have broadcast changes from one outcome to the next.
                1 => Stage::Unknown(KeptResponse {
                    may_have_broadcast: step.owner.is_multiple_of(2),
                    ..kept(step.nonce)
                }),
                _ => Stage::Spent,
            },
        },
    }
}

const LIMITS: StoreLimits = StoreLimits {
    open: 5,
    open_per_payer: 2,
    results: 5,
    kept_bytes: 1 << 20,
};

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn redis_answers_every_operation_as_the_in_process_store_does(
        steps in proptest::collection::vec(step(), 1..40)
    ) {
        let Some(server) = redis() else { return Ok(()) };
        let limiter = || RateLimiter::new(1_000_000, 1_000_000);
        let mut local = LocalStore {
            payments: Box::new(MemoryStore::with_limits(LIMITS)),
            limiter: limiter(),
        };
        let shared = redis_store(server, LIMITS, (1_000_000, 1_000_000));
        let mut now = unix_now();
        let valid_before = now + 3_000;
        for (n, step) in steps.iter().enumerate() {
            now += step.wait;
            let op = operation(step, now, valid_before);
            let expected = local.apply(op.clone());
            let got = shared.run(op.clone()).unwrap();
            prop_assert_eq!(got, expected, "step {} of {:?}: {:?}", n, steps, op);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Batches drawn for a lease (`Admit::tokens`): Redis's GCRA takes as many tokens as the
    /// in-process bucket does (at least one, at most half of those available), and limits at
    /// the same moments, for real limits (60 a minute, bursts of 20 or 400; 120 a minute,
    /// bursts of 5).
    #[test]
    fn redis_draws_the_same_batches_as_the_in_process_limiter(
        rate in prop_oneof![Just((60u32, 20u32)), Just((120, 5)), Just((60, 400))],
        steps in proptest::collection::vec((0u8..3, 1u32..40, prop_oneof![Just(0u64), Just(0), Just(1), Just(3), Just(10)]), 1..60)
    ) {
        let Some(server) = redis() else { return Ok(()) };
        let mut local = LocalStore {
            payments: Box::new(MemoryStore::with_limits(LIMITS)),
            limiter: RateLimiter::new(rate.0, rate.1),
        };
        let shared = redis_store(server, LIMITS, rate);
        let mut now = unix_now();
        for (n, (client, tokens, wait)) in steps.iter().enumerate() {
            now += wait;
            let op = StoreOp::Admit(Admit {
                client: IpAddr::from([198, 51, 100, *client]),
                unix_ms: now * 1000,
                recall: None,
                tokens: *tokens,
            });
            let expected = local.apply(op.clone());
            let got = shared.run(op.clone()).unwrap();
            prop_assert_eq!(got, expected, "step {} of {:?}", n, steps);
        }
    }
}

#[test]
fn the_rate_limit_is_a_burst_then_one_per_interval_per_client_and_ipv6_slash_64() {
    let Some(server) = redis() else { return };
    // 60 a minute, bursts of 3: three at once, then one a second.
    let store = redis_store(server, StoreLimits::default(), (60, 3));
    let admit = |client: &str, ms: u64| {
        let op = StoreOp::Admit(Admit {
            client: client.parse().unwrap(),
            unix_ms: ms,
            recall: None,
            tokens: 1,
        });
        match store.run(op).unwrap() {
            StoreReply::Admission(admission) => *admission,
            other => panic!("{other:?}"),
        }
    };
    let t = unix_now() * 1000;
    for _ in 0..3 {
        assert_eq!(admit("203.0.113.7", t), Admission::Admitted { tokens: 1 });
    }
    assert_eq!(
        admit("203.0.113.7", t),
        Admission::Limited { retry_after: 1 }
    );
    assert_eq!(
        admit("203.0.113.7", t + 1_000),
        Admission::Admitted { tokens: 1 }
    );
    assert_eq!(
        admit("203.0.113.7", t + 1_000),
        Admission::Limited { retry_after: 1 }
    );
    assert_eq!(
        admit("203.0.113.8", t),
        Admission::Admitted { tokens: 1 },
        "another client"
    );
    // IPv6 by /64; IPv4-mapped IPv6 as IPv4.
    for _ in 0..3 {
        assert_eq!(
            admit("2001:db8:1:2::1", t),
            Admission::Admitted { tokens: 1 }
        );
    }
    assert!(matches!(
        admit("2001:db8:1:2:ffff::9", t),
        Admission::Limited { .. }
    ));
    assert_eq!(
        admit("2001:db8:1:3::1", t),
        Admission::Admitted { tokens: 1 }
    );
    assert!(matches!(
        admit("::ffff:203.0.113.7", t + 1_000),
        Admission::Limited { .. }
    ));
    // Slow limits: 6 a minute, burst 1: the next token in 10 s.
    let slow = redis_store(server, StoreLimits::default(), (6, 1));
    let op = |ms| {
        StoreOp::Admit(Admit {
            client: "198.51.100.1".parse().unwrap(),
            unix_ms: ms,
            recall: None,
            tokens: 1,
        })
    };
    assert!(matches!(
        slow.run(op(t)).unwrap(),
        StoreReply::Admission(a) if *a == Admission::Admitted { tokens: 1 }
    ));
    assert!(matches!(
        slow.run(op(t)).unwrap(),
        StoreReply::Admission(a) if *a == Admission::Limited { retry_after: 10 }
    ));
}

#[test]
fn an_unreachable_redis_is_a_failure_within_the_deadline_and_the_store_heals() {
    let Some(_) = redis() else { return };
    let port = free_port();
    let store = RedisStore::new(
        &format!("redis://127.0.0.1:{port}/"),
        "heal",
        ("eip155:8453", ASSET),
        60,
        20,
    )
    .unwrap();
    let admit = StoreOp::Admit(Admit {
        client: "192.0.2.1".parse().unwrap(),
        unix_ms: unix_now() * 1000,
        recall: None,
        tokens: 1,
    });
    let started = Instant::now();
    assert!(store.run(admit.clone()).is_err());
    assert!(started.elapsed() < Duration::from_millis(1_000));
    assert!(store.check().is_some());
    assert!(store.problem().is_some());
    // Redis comes up on that port: the next command answers, no restart.
    let mut child = spawn_plain_redis(port);
    wait_until(
        "the store to see Redis back",
        Duration::from_secs(10),
        || store.check().is_none(),
    );
    assert!(store.run(admit).is_ok());
    assert_eq!(store.problem(), None);
    child.kill();
}

/// After Redis restarts, the pooled connections are all stale: one failed command drops them
/// all, so the next commands connect afresh instead of each failing once.
#[test]
fn after_a_redis_restart_one_command_fails_not_one_per_pooled_connection() {
    let Some(_) = redis() else { return };
    let port = free_port();
    let mut first = spawn_plain_redis(port);
    let store = RedisStore::new(
        &format!("redis://127.0.0.1:{port}/"),
        "pool",
        ("eip155:8453", ASSET),
        1_000_000,
        1_000_000,
    )
    .unwrap();
    let admit = || {
        StoreOp::Admit(Admit {
            client: "192.0.2.9".parse().unwrap(),
            unix_ms: unix_now() * 1000,
            recall: None,
            tokens: 1,
        })
    };
    // Eight connections in the pool: eight commands at once.
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                for _ in 0..20 {
                    store.run(admit()).unwrap();
                }
            });
        }
    });
    first.kill();
    let mut second = spawn_plain_redis(port);
    let failures: Vec<String> = (0..8)
        .filter_map(|_| store.run(admit()).err().map(|e| e.to_string()))
        .collect();
    assert!(
        failures.len() <= 1,
        "{} of 8 commands failed after the restart: {failures:?}",
        failures.len()
    );
    second.kill();
}

/// Redis over TLS (`rediss://`): with the CA that signed its certificate (`REDIS_CA_FILE`) the
/// store answers; with the webpki roots alone a self-managed CA is refused, and so is plain
/// `redis://` to a TLS port.
#[test]
fn redis_over_tls_with_its_own_certificate_authority() {
    if have("redis-server", "apt-get install redis-server").is_none() {
        return;
    }
    let dir =
        std::env::temp_dir().join(format!("contact-extract-redis-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(dir.join("cert.pem"), cert.pem()).unwrap();
    std::fs::write(dir.join("key.pem"), key.serialize_pem()).unwrap();
    let port = free_port();
    let (tls_port, cert_file, key_file, ca_file) = (
        port.to_string(),
        dir.join("cert.pem"),
        dir.join("key.pem"),
        dir.join("ca.pem"),
    );
    let mut child = spawn_redis(
        port,
        &[
            "--port".as_ref(),
            "0".as_ref(),
            "--tls-port".as_ref(),
            tls_port.as_ref(),
            "--tls-cert-file".as_ref(),
            cert_file.as_os_str(),
            "--tls-key-file".as_ref(),
            key_file.as_os_str(),
            "--tls-ca-cert-file".as_ref(),
            ca_file.as_os_str(),
            "--tls-auth-clients".as_ref(),
            "no".as_ref(),
        ],
    );
    let admit = StoreOp::Admit(Admit {
        client: "192.0.2.1".parse().unwrap(),
        unix_ms: unix_now() * 1000,
        recall: None,
        tokens: 1,
    });
    let url = format!("rediss://localhost:{port}/");
    let store = |url: &str| RedisStore::new(url, "tls", ("eip155:8453", ASSET), 60, 20).unwrap();
    let trusted = store(&url).trusting(&url, ca.pem().into_bytes()).unwrap();
    assert!(
        matches!(trusted.run(admit.clone()), Ok(StoreReply::Admission(_))),
        "{:?}",
        trusted.run(admit.clone())
    );
    let webpki_only = store(&url);
    assert!(
        webpki_only.run(admit.clone()).is_err(),
        "a private CA is not trusted by default"
    );
    let plain = store(&format!("redis://localhost:{port}/"));
    assert!(plain.run(admit).is_err(), "plain text to a TLS port");
    child.kill();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A record written by an older version has no `bc` field: its `/settle` may have broadcast
/// (what that version assumed), so a retry that claims it treats "already used" as before; a
/// record of this version that says none was sent is read back as such.
#[test]
fn a_record_without_the_broadcast_field_reads_as_may_have_broadcast() {
    let Some(server) = redis() else { return };
    let prefix = format!("old-{}", std::process::id());
    let store = RedisStore::new(
        &format!("redis://127.0.0.1:{}/", server.port),
        &prefix,
        ("eip155:8453", ASSET),
        1_000_000,
        1_000_000,
    )
    .unwrap();
    let now = unix_now();
    let claim = |nonce: u8, owner: u64| {
        let op = StoreOp::Admit(Admit {
            client: IpAddr::from([192, 0, 2, 9]),
            unix_ms: now * 1000,
            recall: Some(Recall {
                payment_id: None,
                key: Some(key(1, nonce)),
                fingerprint: print(nonce),
                lease: Lease {
                    id: owner,
                    until: now + 40,
                },
            }),
            tokens: 1,
        });
        match store.run(op).unwrap() {
            StoreReply::Admission(admission) => match *admission {
                Admission::Claimed { kept, .. } => kept.may_have_broadcast,
                other => panic!("not claimed: {other:?}"),
            },
            other => panic!("{other:?}"),
        }
    };
    for nonce in [4, 5] {
        let lease = Lease {
            id: 7,
            until: now + 40,
        };
        let reserve = StoreOp::Reserve {
            key: key(1, nonce),
            fingerprint: print(nonce),
            payment_id: None,
            facilitator: "https://facilitator.example/".into(),
            valid_before: now + 3_000,
            lease,
            unix_now: now,
            first_seen_block: None,
        };
        store.run(reserve).unwrap();
        let unsent = KeptResponse {
            may_have_broadcast: false,
            ..kept(nonce)
        };
        let begin = StoreOp::BeginSettle {
            key: key(1, nonce),
            kept: unsent.clone(),
            lease,
        };
        assert_eq!(store.run(begin).unwrap(), StoreReply::SettleBegun(true));
        let finish = StoreOp::Finish {
            key: key(1, nonce),
            lease: 7,
            stage: Stage::Unknown(unsent),
        };
        store.run(finish).unwrap();
    }
    // Nonce 5's record as an older version wrote it: no `bc`.
    let member = format!("{}:{}", "01".repeat(20), "05".repeat(32));
    let record = format!("{prefix}:eip155:8453:{ASSET}:auth:{member}");
    let deleted = Command::new("redis-cli")
        .args(["-p", &server.port.to_string(), "HDEL", &record, "bc"])
        .output_in_group()
        .expect("run redis-cli");
    assert_eq!(String::from_utf8_lossy(&deleted.stdout).trim(), "1");
    assert!(!claim(4, 8), "this version's record: none was sent");
    assert!(claim(5, 9), "an older version's record: may have broadcast");
}
