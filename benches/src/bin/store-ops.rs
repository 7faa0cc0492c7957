//! A paid request's store operations, timed: `store-ops STORE THREADS SECONDS`, where STORE is
//! `memory` (the in-process store behind one lock, as the service holds it) or a `redis://` URL
//! (the shared store, through the service's own Lua scripts). Each thread plays whole paid
//! requests — admission (rate limit and recall), reservation, the settlement stage with a
//! 1 KiB result, the settled outcome — on fresh authorizations, for SECONDS or 90 000 requests
//! (under the store's 100 000-record budget). Prints paid requests/s and each operation's p50
//! and p99 in microseconds. Used by `benches/load/redis.sh`.

use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use contact_core::limiter::RateLimiter;
use contact_core::payment::store::{AuthorizationKey, Fingerprint, KeptResponse, Lease, Stage};
use contact_core::store::{Admit, LocalStore, Recall, StoreOp, StoreReply};
use contact_runtime_common::redis_store::RedisStore;

const MAX_REQUESTS: usize = 90_000;
const ASSET: &str = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";

enum Store {
    Memory(Mutex<LocalStore>),
    Redis(Box<RedisStore>),
}

impl Store {
    fn run(&self, op: StoreOp) -> StoreReply {
        match self {
            Store::Memory(store) => store.lock().unwrap_or_else(|e| e.into_inner()).apply(op),
            Store::Redis(store) => store.run(op).unwrap_or_else(|e| {
                eprintln!("store-ops: {e}");
                std::process::exit(1)
            }),
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(which), Some(threads), Some(seconds)) = (
        args.get(1),
        args.get(2).and_then(|t| t.parse::<usize>().ok()),
        args.get(3).and_then(|s| s.parse::<u64>().ok()),
    ) else {
        eprintln!("usage: store-ops memory|redis://HOST:PORT/ THREADS SECONDS");
        std::process::exit(2);
    };
    let limiter = || RateLimiter::new(1_000_000_000, 1_000_000_000);
    let store = Arc::new(if which == "memory" {
        Store::Memory(Mutex::new(LocalStore::new(limiter())))
    } else {
        let prefix = format!("store-ops-{}-{}", std::process::id(), unix_ms());
        let store = RedisStore::new(
            which,
            &prefix,
            ("eip155:8453", ASSET),
            1_000_000_000,
            1_000_000_000,
        )
        .unwrap_or_else(|e| {
            eprintln!("store-ops: {e}");
            std::process::exit(2)
        });
        Store::Redis(Box::new(store))
    });
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let done = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..threads)
        .map(|thread| {
            let (store, done) = (store.clone(), done.clone());
            std::thread::spawn(move || {
                let mut times: [Vec<Duration>; 4] = Default::default();
                let mut n: u64 = 0;
                while Instant::now() < deadline
                    && done.fetch_add(1, Ordering::Relaxed) < MAX_REQUESTS
                {
                    n += 1;
                    play(&store, thread, n, &mut times);
                }
                times
            })
        })
        .collect();
    let mut all: [Vec<Duration>; 4] = Default::default();
    for handle in handles {
        let Ok(times) = handle.join() else { continue };
        for (into, from) in all.iter_mut().zip(times) {
            into.extend(from);
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let requests = all[0].len();
    let mut line = format!(
        "{:<8} {threads:>2} threads {:>9.0} paid requests/s",
        if which == "memory" { "memory" } else { "redis" },
        requests as f64 / elapsed
    );
    for (name, times) in ["admit", "reserve", "begin_settle", "finish"]
        .iter()
        .zip(all.iter_mut())
    {
        times.sort_unstable();
        line.push_str(&format!(
            "  {name} p50 {:.0} µs p99 {:.0} µs",
            percentile(times, 0.5),
            percentile(times, 0.99)
        ));
    }
    println!("{line}");
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// One paid request's four operations on a fresh authorization.
fn play(store: &Store, thread: usize, n: u64, times: &mut [Vec<Duration>; 4]) {
    let mut nonce = [0u8; 32];
    nonce[..8].copy_from_slice(&(thread as u64).to_be_bytes());
    nonce[8..16].copy_from_slice(&n.to_be_bytes());
    let mut from = [0u8; 20];
    from[..8].copy_from_slice(&n.to_be_bytes());
    let key = AuthorizationKey {
        network: "eip155:8453".into(),
        asset: ASSET.into(),
        from,
        nonce,
    };
    let fingerprint = Fingerprint {
        payment: nonce,
        request: [7; 32],
    };
    let now_ms = unix_ms();
    let now = now_ms / 1000;
    let lease = Lease {
        id: thread as u64 + 1,
        until: now + 45,
    };
    let kept = KeptResponse {
        body: vec![b'x'; 1024].into(),
        request_id: format!("req_{thread}_{n}"),
        settlement: None,
        may_have_broadcast: false,
    };
    let client = IpAddr::from([10, 0, (thread % 256) as u8, (n % 256) as u8]);
    let ops = [
        StoreOp::Admit(Admit {
            client,
            unix_ms: now_ms,
            recall: Some(Recall {
                payment_id: None,
                key: Some(key.clone()),
                fingerprint,
                lease,
            }),
            tokens: 1,
        }),
        StoreOp::Reserve {
            first_seen_block: None,
            key: key.clone(),
            fingerprint,
            payment_id: None,
            facilitator: "https://facilitator.example/".into(),
            valid_before: now + 120,
            lease,
            unix_now: now,
        },
        StoreOp::BeginSettle {
            key: key.clone(),
            kept: kept.clone(),
            lease,
        },
        StoreOp::Finish {
            key,
            lease: lease.id,
            stage: Stage::Settled(kept),
        },
    ];
    for (op, into) in ops.into_iter().zip(times.iter_mut()) {
        let at = Instant::now();
        let _ = store.run(op);
        into.push(at.elapsed());
    }
}
