//! The shared store in Redis (docs/operations.md, "Running several instances"): the core's
//! store operations ([`contact_core::store::StoreOp`]) each as one Lua script — all or
//! nothing, atomic against every other instance — with the same rules as the in-process
//! store ([`contact_core::store::LocalStore`]).
//!
//! Client: the `redis` crate's synchronous connection (the project's chosen Redis client; its
//! async API would need one integration per runtime), on a small pool of store threads, so
//! both runtimes share this code. `rediss://` is TLS through rustls, trusting the webpki roots
//! or the CA of `REDIS_CA_FILE`. Each command gets [`STORE_TIMEOUT`] to connect, write and
//! read; a connection that failed is dropped and a new one is opened for the next command.
//!
//! Keys, under `{REDIS_PREFIX}:{network}:{asset}` (`P`):
//!
//! | key | type | what |
//! |---|---|---|
//! | `P:auth:{from}:{nonce}` | hash | one record: `v` (value version, 1), `stage`, `fp`, `pid`, `vb`, `owner` (the lease id: every write is fenced by it), `lease` (its end, unix seconds), `exp`, `fac` (the base URL of the facilitator that first saw the authorization; absent in records of older versions), and with a result `body`, `rid`, `settlement`, `bc` (`1` when a `/settle` of ours may have broadcast, `0` when none was sent; absent in records of older versions, read as `1`), `fsb` (the head block number at which the authorization was first seen, when known); `EXAT exp` |
//! | `P:pid:{id}` | string | the record a payment identifier names; `EXAT exp` |
//! | `P:open`, `P:results` | sorted sets | records without a result / with one or in flight, scored by expiry (the store's bounds) |
//! | `P:sizes`, `P:kept_bytes` | hash, integer | kept response bytes per record, and their sum |
//! | `P:payer:{from}` | sorted set | the payer's records without a result and unknown outcomes, scored by expiry |
//! | `{REDIS_PREFIX}:rate:{client}` | string | the client's GCRA theoretical arrival time, in ms (`PX`) |
//!
//! Values are versioned (`v`): a reader takes version 1 and ignores fields it does not know,
//! so a rolling upgrade that adds fields reads both.

use std::net::IpAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use contact_core::limiter::ClientKey;
use contact_core::payment::store::{
    AuthorizationKey, Fingerprint, KeptResponse, Lease, Record, ReserveError, Stage, StoreLimits,
    RETENTION_SECONDS, UNKNOWN_RETENTION_SECONDS,
};
use contact_core::payment::SettleResponse;
use contact_core::store::{Admission, Admit, StoreFailure, StoreOp, StoreReply, STORE_TIMEOUT};
use redis::Value;

/// Threads that carry out store commands (each holds at most one connection).
pub const STORE_THREADS: usize = 16;
/// Most store operations queued for the store threads at once; beyond it an operation fails at
/// once (a Redis that hangs must not grow the queue without bound).
pub const STORE_QUEUE_LIMIT: usize = 4096;

/// Shared by every script: the key helpers, the bounds' bookkeeping and the record reader.
const PRELUDE: &str = r#"
local P = ARGV[1]
local NOW = tonumber(ARGV[2])
local function rkey(m) return P .. ':auth:' .. m end
local function payer_key(payer) return P .. ':payer:' .. payer end
-- Moves member m out of every bound, then into the ones its stage counts against.
local function account(m, payer, stage, exp, bytes)
  redis.call('ZREM', P .. ':open', m)
  redis.call('ZREM', payer_key(payer), m)
  if redis.call('ZREM', P .. ':results', m) == 1 then
    local old = tonumber(redis.call('HGET', P .. ':sizes', m) or '0')
    redis.call('HDEL', P .. ':sizes', m)
    redis.call('DECRBY', P .. ':kept_bytes', old)
  end
  if stage == 'reserved' or stage == 'spent' then
    redis.call('ZADD', P .. ':open', exp, m)
  end
  if stage == 'reserved' or stage == 'spent' or stage == 'unknown' then
    local pk = payer_key(payer)
    redis.call('ZADD', pk, exp, m)
    if redis.call('TTL', pk) < 0 then redis.call('EXPIREAT', pk, exp)
    else redis.call('EXPIREAT', pk, exp, 'GT') end
  end
  if stage == 'reserved' or stage == 'settling' or stage == 'settled' or stage == 'unknown' then
    redis.call('ZADD', P .. ':results', exp, m)
    redis.call('HSET', P .. ':sizes', m, bytes)
    redis.call('INCRBY', P .. ':kept_bytes', bytes)
  end
end
-- Drops expired members from the bounds (the records themselves expire by EXAT).
local function sweep()
  redis.call('ZREMRANGEBYSCORE', P .. ':open', '-inf', NOW)
  local due = redis.call('ZRANGEBYSCORE', P .. ':results', '-inf', NOW, 'LIMIT', 0, 256)
  for _, m in ipairs(due) do
    local old = tonumber(redis.call('HGET', P .. ':sizes', m) or '0')
    redis.call('HDEL', P .. ':sizes', m)
    redis.call('DECRBY', P .. ':kept_bytes', old)
    redis.call('ZREM', P .. ':results', m)
  end
end
local FIELDS = {'v', 'stage', 'fp', 'pid', 'vb', 'owner', 'lease', 'exp', 'body', 'rid', 'settlement', 'fac', 'bc', 'fsb'}
-- The record at m as a flat list (FIELDS order), or nil.
local function read(m)
  local r = redis.call('HMGET', rkey(m), unpack(FIELDS))
  if not r[2] then return nil end
  for i = 1, #FIELDS do if not r[i] then r[i] = '' end end
  return r
end
local function kept_size(body, rid) return string.len(body) + string.len(rid) + 256 end
"#;

/// `StoreOp::Admit`. ARGV: P, NOW, rate key, now ms, interval ms, tolerance ms, pid, member,
/// fp, owner, lease, tokens asked (without a recall).
const ADMIT: &str = r#"
local RK, NOW_MS = ARGV[3], tonumber(ARGV[4])
local T, TAU = tonumber(ARGV[5]), tonumber(ARGV[6])
local pid, m, fp, owner, lease = ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11]
local WANT = tonumber(ARGV[12] or '1')
-- GCRA: one token per T ms, bursts of TAU / T + 1. Takes up to `want` tokens, at least one and
-- at most those available divided by LEASE_SHARE, 8 (contact_core::limiter::grant); returns how
-- many were taken and 0, or 0 and the wait in seconds.
local function take_tokens(want)
  local tat = tonumber(redis.call('GET', RK) or '0')
  if tat < NOW_MS then tat = NOW_MS end
  local allow_at = tat - TAU
  if NOW_MS < allow_at then
    return 0, math.max(1, math.ceil((allow_at - NOW_MS) / 1000))
  end
  local available = 1 + math.floor((NOW_MS - allow_at) / T)
  local n = math.max(1, math.min(want, math.floor(available / 8)))
  local next_tat = tat + n * T
  redis.call('SET', RK, string.format('%.0f', next_tat), 'PX', math.ceil(next_tat - NOW_MS) + 1000)
  return n, 0
end
local function take_token()
  local _, wait = take_tokens(1)
  return wait
end
local function admitted(want)
  local n, wait = take_tokens(want)
  if wait > 0 then return {'limited', tostring(wait)} end
  return {'admitted', tostring(n)}
end
if fp == '' then return admitted(WANT) end
local by_id, found = '0', nil
if pid ~= '' then
  local named = redis.call('GET', P .. ':pid:' .. pid)
  if named then found, by_id = named, '1' end
end
if not found and m ~= '' then found = m end
if not found then return admitted(1) end
local r = read(found)
if not r then return admitted(1) end
local stage, same, r_lease = r[2], r[3] == fp, tonumber(r[7])
if same and stage == 'reserved' and r_lease < NOW then return admitted(1) end
local redo = same and (stage == 'unknown' or (stage == 'settling' and r_lease < NOW))
if same and not redo then return {'known', by_id, found, unpack(r)} end
local wait = take_token()
if wait > 0 then return {'limited', tostring(wait)} end
if not redo then return {'known', by_id, found, unpack(r)} end
redis.call('HSET', rkey(found), 'stage', 'settling', 'owner', owner, 'lease', lease)
-- Settling leaves its payer's budget (an unknown outcome counts against it).
redis.call('ZREM', payer_key(string.match(found, '^[^:]*')), found)
return {'claimed', by_id, found, unpack(r)}
"#;

// The admission script divides by the same share as the in-process limiter.
const _: () = assert!(contact_core::limiter::LEASE_SHARE == 8);

/// `StoreOp::Reserve`. ARGV: P, NOW, member, payer, fp, pid, vb, owner, lease, and the bounds:
/// open, per payer, results, kept bytes; the retention seconds, the facilitator, the first-seen
/// block (empty when unknown; a take-over sets it only on a record without one). Answers
/// `ok` with the facilitator the record is bound to (a take-over keeps the record's).
const RESERVE: &str = r#"
local m, payer, fp, pid = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local vb, owner, lease = tonumber(ARGV[7]), ARGV[8], ARGV[9]
local max_open, max_payer = tonumber(ARGV[10]), tonumber(ARGV[11])
local max_results, max_bytes = tonumber(ARGV[12]), tonumber(ARGV[13])
sweep()
local r = read(m)
if r then
  if r[2] == 'reserved' and r[3] == fp and tonumber(r[7]) < NOW then
    redis.call('HSET', rkey(m), 'owner', owner, 'lease', lease)
    if r[14] == '' and ARGV[16] ~= '' then redis.call('HSET', rkey(m), 'fsb', ARGV[16]) end
    return {'ok', r[12]}
  end
  return {'exists', '0', m, unpack(r)}
end
if pid ~= '' and redis.call('EXISTS', P .. ':pid:' .. pid) == 1 then return {'id_in_use'} end
local pk = payer_key(payer)
redis.call('ZREMRANGEBYSCORE', pk, '-inf', NOW)
if redis.call('ZCARD', pk) >= max_payer then
  local first = redis.call('ZRANGE', pk, 0, 0, 'WITHSCORES')
  return {'payer_busy', first[2]}
end
local kept = tonumber(redis.call('GET', P .. ':kept_bytes') or '0')
if redis.call('ZCARD', P .. ':open') >= max_open
  or redis.call('ZCARD', P .. ':results') >= max_results or kept >= max_bytes then
  local earliest = nil
  for _, set in ipairs({':open', ':results'}) do
    local first = redis.call('ZRANGE', P .. set, 0, 0, 'WITHSCORES')
    if first[2] and (not earliest or tonumber(first[2]) < earliest) then earliest = tonumber(first[2]) end
  end
  return {'full', tostring(earliest or NOW)}
end
local exp = vb + tonumber(ARGV[14])
local fac = ARGV[15]
redis.call('HSET', rkey(m), 'v', '1', 'stage', 'reserved', 'fp', fp, 'pid', pid, 'vb', vb,
  'owner', owner, 'lease', lease, 'exp', exp, 'fac', fac)
if ARGV[16] ~= '' then redis.call('HSET', rkey(m), 'fsb', ARGV[16]) end
redis.call('EXPIREAT', rkey(m), exp)
if pid ~= '' then redis.call('SET', P .. ':pid:' .. pid, m, 'EXAT', exp) end
account(m, payer, 'reserved', exp, 0)
return {'ok', fac}
"#;

/// `StoreOp::BeginSettle`. ARGV: P, NOW, member, payer, owner, lease, body, rid, settlement,
/// bc.
const BEGIN_SETTLE: &str = r#"
local m, payer, owner, lease = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local body, rid, settlement = ARGV[7], ARGV[8], ARGV[9]
local r = read(m)
if not r or r[2] ~= 'reserved' or r[6] ~= owner then return 0 end
redis.call('HSET', rkey(m), 'stage', 'settling', 'lease', lease, 'body', body, 'rid', rid,
  'settlement', settlement, 'bc', ARGV[10])
account(m, payer, 'settling', tonumber(r[8]), kept_size(body, rid))
return 1
"#;

/// `StoreOp::Release`. ARGV: P, NOW, member, payer, owner.
const RELEASE: &str = r#"
local m, payer, owner = ARGV[3], ARGV[4], ARGV[5]
local r = read(m)
if not r or (r[2] ~= 'reserved' and r[2] ~= 'settling') or r[6] ~= owner then return 0 end
redis.call('DEL', rkey(m))
if r[4] ~= '' then redis.call('DEL', P .. ':pid:' .. r[4]) end
account(m, payer, 'gone', 0, 0)
return 1
"#;

/// `StoreOp::Finish`. ARGV: P, NOW, member, payer, owner, stage, body, rid, settlement,
/// retention seconds, retention seconds of an unknown outcome, bc.
const FINISH: &str = r#"
local m, payer, owner, stage = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local body, rid, settlement = ARGV[7], ARGV[8], ARGV[9]
local r = read(m)
if not r or r[2] == 'settled' then return 0 end
local mine = (r[2] == 'reserved' or r[2] == 'settling') and r[6] == owner
if stage ~= 'settled' and not mine then return 0 end
local vb = tonumber(r[5])
local exp = vb
if stage == 'unknown' then exp = vb + tonumber(ARGV[11])
elseif stage ~= 'spent' then exp = math.max(vb + tonumber(ARGV[10]), tonumber(r[8])) end
local key = rkey(m)
if stage == 'spent' then
  redis.call('HDEL', key, 'body', 'rid', 'settlement', 'bc')
  redis.call('HSET', key, 'stage', stage, 'exp', exp)
  account(m, payer, stage, exp, 0)
else
  redis.call('HSET', key, 'stage', stage, 'exp', exp, 'body', body, 'rid', rid, 'settlement', settlement,
    'bc', ARGV[12])
  account(m, payer, stage, exp, kept_size(body, rid))
end
redis.call('EXPIREAT', key, exp)
if r[4] ~= '' then redis.call('EXPIREAT', P .. ':pid:' .. r[4], exp) end
return 1
"#;

/// The five scripts, compiled once (each sent as `EVALSHA`, and `EVAL` once per connection
/// when Redis does not know it yet).
struct Scripts {
    admit: redis::Script,
    reserve: redis::Script,
    begin_settle: redis::Script,
    release: redis::Script,
    finish: redis::Script,
}

impl Scripts {
    fn new() -> Scripts {
        let script = |body: &str| redis::Script::new(&format!("{PRELUDE}\n{body}"));
        Scripts {
            admit: script(ADMIT),
            reserve: script(RESERVE),
            begin_settle: script(BEGIN_SETTLE),
            release: script(RELEASE),
            finish: script(FINISH),
        }
    }
}

/// The shared store in Redis, for one service configuration.
pub struct RedisStore {
    client: redis::Client,
    /// With Redis Sentinel (`REDIS_SENTINELS`): asked for the current primary whenever a new
    /// connection is opened, instead of `client`'s fixed address.
    sentinel: Option<Mutex<redis::sentinel::SentinelClient>>,
    /// `{REDIS_PREFIX}`.
    prefix: String,
    /// The configured payment terms' CAIP-2 network and token (lower-case hex).
    network: String,
    asset: String,
    /// Idle connections, taken by a command and put back after a success.
    idle: Mutex<Vec<redis::Connection>>,
    scripts: Scripts,
    /// GCRA emission interval and tolerance, in ms (`RATE_LIMIT_PER_MINUTE`, `RATE_LIMIT_BURST`).
    interval_ms: f64,
    tolerance_ms: f64,
    /// Where the store's latest command ended (readiness and logs): `None` when it answered.
    problem: Mutex<Option<String>>,
    /// The store's command threads.
    queue: async_channel::Sender<Box<dyn FnOnce() + Send>>,
    /// Operations queued or running.
    pending: Arc<std::sync::atomic::AtomicUsize>,
    /// The store's bounds, enforced by the reservation script.
    limits: StoreLimits,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

static STORE: OnceLock<Arc<RedisStore>> = OnceLock::new();

/// The process's shared store, once [`RedisStore::install`] ran.
pub fn installed() -> Option<&'static Arc<RedisStore>> {
    STORE.get()
}

/// `Output::Store`: carries `op` out on the process's shared store and hands the answer to
/// `answer` (as `Input::Stored`); without one (it could not be set up), the answer is a
/// failure at once, so the paid route fails closed.
pub fn start(op: StoreOp, answer: impl FnOnce(Result<StoreReply, StoreFailure>) + Send + 'static) {
    match installed() {
        Some(store) => store.start(op, answer),
        None => answer(Err(StoreFailure::Unavailable(
            "the shared store (REDIS_URL) could not be set up; see the start-up log".into(),
        ))),
    }
}

impl RedisStore {
    /// A store for `config`'s `REDIS_URL` under its `REDIS_PREFIX`, with its rate limits
    /// (`None` without `REDIS_URL`). Connects lazily: an unreachable Redis is a readiness
    /// problem, not a start-up failure.
    ///
    /// # Errors
    /// The URL does not parse as a Redis URL, or the store threads do not start.
    pub fn for_config(config: &contact_core::config::Config) -> Result<Option<RedisStore>, String> {
        let Some(url) = &config.redis_url else {
            return Ok(None);
        };
        let (network, asset) = match &config.payment {
            contact_core::config::PaymentConfig::Ready { terms, .. } => (
                terms.requirements.network.clone(),
                terms.requirements.asset.to_ascii_lowercase(),
            ),
            contact_core::config::PaymentConfig::Incomplete(_) => (String::new(), String::new()),
        };
        let store = RedisStore::new(
            url,
            &config.redis_prefix,
            (&network, &asset),
            config.rate_limit_per_minute,
            config.rate_limit_burst,
        )?;
        if let Some(master) = &config.redis_sentinel_master {
            return store
                .through_sentinels(url, &config.redis_sentinels, master)
                .map(Some);
        }
        match &config.redis_ca_file {
            None => Ok(Some(store)),
            Some(path) => {
                let pem = std::fs::read(path).map_err(|e| format!("REDIS_CA_FILE {path}: {e}"))?;
                store.trusting(url, pem).map(Some)
            }
        }
    }

    /// The same store finding its primary through Redis Sentinel (docs/operations.md, "Redis
    /// beyond one node"): each new connection asks the `sentinels` (`host:port`, in order, the
    /// first that answers) for the address of the primary named `master`, and connects there
    /// with `url`'s scheme (`rediss://`: TLS with the webpki roots), user, password and
    /// database. After a failover the connections to the old primary fail (it is gone, or
    /// answers `READONLY` as a replica), are dropped, and the next ones go to the new primary.
    ///
    /// # Errors
    /// `url` or a sentinel address does not parse.
    pub fn through_sentinels(
        mut self,
        url: &str,
        sentinels: &[String],
        master: &str,
    ) -> Result<RedisStore, String> {
        use redis::sentinel::{SentinelClient, SentinelNodeConnectionInfo, SentinelServerType};
        use redis::IntoConnectionInfo as _;
        let info = url
            .into_connection_info()
            .map_err(|e| format!("REDIS_URL: {e}"))?;
        let tls = url.starts_with("rediss://");
        let mut node = SentinelNodeConnectionInfo::default()
            .set_redis_connection_info(info.redis_settings().clone());
        if tls {
            node = node.set_tls_mode(redis::TlsMode::Secure);
        }
        let scheme = if tls { "rediss" } else { "redis" };
        let addresses: Vec<String> = sentinels
            .iter()
            .map(|s| format!("{scheme}://{s}/"))
            .collect();
        let client =
            SentinelClient::build(addresses, master, Some(node), SentinelServerType::Master)
                .map_err(|e| format!("REDIS_SENTINELS: {e}"))?;
        self.sentinel = Some(Mutex::new(client));
        Ok(self)
    }

    /// A new connection to the primary: `REDIS_URL`'s node, or the one the sentinels name.
    fn connect(&self) -> redis::RedisResult<redis::Connection> {
        match &self.sentinel {
            None => self.client.get_connection_with_timeout(STORE_TIMEOUT),
            Some(sentinel) => {
                let primary = sentinel
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .get_client()?;
                primary.get_connection_with_timeout(STORE_TIMEOUT)
            }
        }
    }

    /// The same store connecting over TLS (`rediss://` `url`) with `ca_pem` (PEM) as its only
    /// trusted certificate authority, instead of the webpki roots: a Redis with its own CA.
    ///
    /// # Errors
    /// The URL or the PEM does not parse.
    pub fn trusting(mut self, url: &str, ca_pem: Vec<u8>) -> Result<RedisStore, String> {
        let certificates = redis::TlsCertificates {
            client_tls: None,
            root_cert: Some(ca_pem),
        };
        self.client = redis::Client::build_with_tls(url, certificates)
            .map_err(|e| format!("REDIS_CA_FILE: {e}"))?;
        Ok(self)
    }

    /// A store for `url` under `prefix`, for payments on `terms` (CAIP-2 network, token
    /// address), with the rate limits of `per_minute` requests a minute and bursts of `burst`.
    ///
    /// # Errors
    /// The URL does not parse as a Redis URL, or the store threads do not start.
    pub fn new(
        url: &str,
        prefix: &str,
        terms: (&str, &str),
        per_minute: u32,
        burst: u32,
    ) -> Result<RedisStore, String> {
        let client = redis::Client::open(url).map_err(|e| format!("REDIS_URL: {e}"))?;
        let interval_ms = 60_000.0 / f64::from(per_minute.max(1));
        let (queue, tasks) = async_channel::unbounded::<Box<dyn FnOnce() + Send>>();
        for n in 0..STORE_THREADS {
            let tasks = tasks.clone();
            std::thread::Builder::new()
                .name(format!("store-{n}"))
                .spawn(move || {
                    while let Ok(task) = tasks.recv_blocking() {
                        task();
                    }
                })
                .map_err(|e| format!("store threads: {e}"))?;
        }
        Ok(RedisStore {
            client,
            sentinel: None,
            prefix: prefix.to_string(),
            network: terms.0.to_string(),
            asset: terms.1.to_ascii_lowercase(),
            idle: Mutex::new(Vec::new()),
            scripts: Scripts::new(),
            interval_ms,
            tolerance_ms: interval_ms * f64::from(burst.max(1) - 1),
            problem: Mutex::new(Some("payment store (Redis) not checked yet".into())),
            queue,
            pending: Arc::new(std::sync::atomic::AtomicUsize::new(0)),
            limits: StoreLimits::default(),
        })
    }

    /// The same store with other bounds (the defaults are the in-process store's:
    /// [`StoreLimits::default`]); tests use small ones.
    #[must_use]
    pub fn with_limits(mut self, limits: StoreLimits) -> RedisStore {
        self.limits = limits;
        self
    }

    /// Makes `store` the process's shared store (once).
    pub fn install(store: RedisStore) -> &'static Arc<RedisStore> {
        STORE.get_or_init(|| Arc::new(store))
    }

    /// Carries `op` out on a store thread and hands its answer to `answer` (the runtime
    /// feeds it to the exchange as `Input::Stored`). An operation that sat in the queue past
    /// [`STORE_TIMEOUT`] and is moot by then (`StoreOp::moot_when_late`: the core has failed it
    /// closed already) is not carried out; beyond [`STORE_QUEUE_LIMIT`] queued operations, one
    /// fails at once.
    pub fn start(
        self: &Arc<Self>,
        op: StoreOp,
        answer: impl FnOnce(Result<StoreReply, StoreFailure>) + Send + 'static,
    ) {
        use std::sync::atomic::Ordering;
        if self.pending.fetch_add(1, Ordering::SeqCst) >= STORE_QUEUE_LIMIT {
            self.pending.fetch_sub(1, Ordering::SeqCst);
            crate::metrics::observe_store(op.name(), Duration::ZERO, false);
            return answer(Err(StoreFailure::Unavailable(
                "too many operations waiting for Redis".into(),
            )));
        }
        let store = Arc::clone(self);
        let queued = Instant::now();
        let task = move || {
            let result = if op.moot_when_late() && queued.elapsed() > STORE_TIMEOUT {
                Err(StoreFailure::Timeout)
            } else {
                store.run(op)
            };
            store.pending.fetch_sub(1, Ordering::SeqCst);
            answer(result);
        };
        if self.queue.try_send(Box::new(task)).is_err() {
            self.pending.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// What is wrong with the store, for `/api/ready` (`None`: its latest command answered).
    pub fn problem(&self) -> Option<String> {
        self.problem
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Sends `PING` (the readiness check, every second): records and returns the problem.
    pub fn check(&self) -> Option<String> {
        let result =
            self.command(|connection| redis::cmd("PING").query::<String>(connection).map(|_| ()));
        let problem = result.err().map(|e| e.to_string());
        self.note(problem.clone());
        problem
    }

    fn note(&self, problem: Option<String>) {
        *self
            .problem
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = problem;
    }

    /// Runs `command` on an idle connection (or a new one), within [`STORE_TIMEOUT`] for
    /// each step; the connection goes back to the pool only after a success.
    fn command<T>(
        &self,
        command: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, StoreFailure> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop();
        let mut connection = match idle {
            Some(connection) => connection,
            None => {
                let connection = self.connect().map_err(failure)?;
                connection
                    .set_read_timeout(Some(STORE_TIMEOUT))
                    .map_err(failure)?;
                connection
                    .set_write_timeout(Some(STORE_TIMEOUT))
                    .map_err(failure)?;
                connection
            }
        };
        let value = match command(&mut connection) {
            Ok(value) => value,
            Err(error) => {
                // A connection that failed is dropped; when the failure is the connection's
                // (Redis restarted, a failover), the idle ones are stale too: drop them all, so
                // the next commands connect afresh instead of each failing once.
                // A primary demoted to a replica by a failover answers writes with READONLY:
                // its connections are stale the same way.
                let demoted =
                    error.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::ReadOnly);
                if error.is_io_error()
                    || error.is_connection_dropped()
                    || error.is_timeout()
                    || demoted
                {
                    self.idle
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .clear();
                }
                return Err(failure(error));
            }
        };
        self.idle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(connection);
        Ok(value)
    }

    /// Carries `op` out now, on this thread (blocking, at most about three
    /// [`STORE_TIMEOUT`]s: connect, write, read).
    pub fn run(&self, op: StoreOp) -> Result<StoreReply, StoreFailure> {
        let started = Instant::now();
        let name = op.name();
        let result = self.run_op(op);
        crate::metrics::observe_store(name, started.elapsed(), result.is_ok());
        match &result {
            Ok(_) => self.note(None),
            Err(failure) => self.note(Some(failure.to_string())),
        }
        result
    }

    fn run_op(&self, op: StoreOp) -> Result<StoreReply, StoreFailure> {
        match op {
            StoreOp::Admit(admit) => self.admit(&admit),
            StoreOp::Reserve {
                key,
                fingerprint,
                payment_id,
                facilitator,
                valid_before,
                lease,
                unix_now,
                first_seen_block,
            } => {
                let mut call = self.scripts.reserve.prepare_invoke();
                call.arg(self.namespace(&key))
                    .arg(unix_now)
                    .arg(member(&key))
                    .arg(hex(&key.from))
                    .arg(fingerprint_hex(&fingerprint))
                    .arg(payment_id.unwrap_or_default())
                    .arg(valid_before)
                    .arg(lease.id.to_string())
                    .arg(lease.until)
                    .arg(self.limits.open)
                    .arg(self.limits.open_per_payer)
                    .arg(self.limits.results)
                    .arg(self.limits.kept_bytes)
                    .arg(RETENTION_SECONDS)
                    .arg(&facilitator)
                    .arg(first_seen_block.map(|b| b.to_string()).unwrap_or_default());
                let reply: Vec<Value> = self.command(|c| call.invoke(c))?;
                let words = strings(&reply);
                let retry = |at: &str| {
                    let at: f64 = at.parse().unwrap_or(0.0);
                    ((at as u64).saturating_sub(unix_now)).max(1)
                };
                match words.first().map(String::as_str) {
                    Some("ok") => Ok(StoreReply::Reserved(Ok(words
                        .get(1)
                        .cloned()
                        .unwrap_or_default()))),
                    Some("exists") => {
                        let record = parse_record(&reply[3..])?;
                        Ok(StoreReply::Exists(Box::new(record)))
                    }
                    Some("id_in_use") => Ok(StoreReply::Reserved(Err(ReserveError::IdInUse))),
                    Some("payer_busy") => Ok(StoreReply::Reserved(Err(ReserveError::PayerBusy {
                        retry_after: retry(words.get(1).map_or("", String::as_str)),
                    }))),
                    Some("full") => Ok(StoreReply::Reserved(Err(ReserveError::Full {
                        retry_after: retry(words.get(1).map_or("", String::as_str)),
                    }))),
                    _ => Err(garbled()),
                }
            }
            StoreOp::BeginSettle { key, kept, lease } => {
                let mut call = self.scripts.begin_settle.prepare_invoke();
                call.arg(self.namespace(&key))
                    .arg(0)
                    .arg(member(&key))
                    .arg(hex(&key.from))
                    .arg(lease.id.to_string())
                    .arg(lease.until)
                    .arg(&*kept.body)
                    .arg(&kept.request_id)
                    .arg(settlement_json(&kept))
                    .arg(broadcast_flag(&kept));
                let begun: i64 = self.command(|c| call.invoke(c))?;
                Ok(StoreReply::SettleBegun(begun == 1))
            }
            StoreOp::Release { key, lease } => {
                let mut call = self.scripts.release.prepare_invoke();
                call.arg(self.namespace(&key))
                    .arg(0)
                    .arg(member(&key))
                    .arg(hex(&key.from))
                    .arg(lease.to_string());
                self.command(|c| call.invoke::<i64>(c))?;
                Ok(StoreReply::Done)
            }
            StoreOp::Finish { key, lease, stage } => {
                let mut call = self.scripts.finish.prepare_invoke();
                let (body, rid, settlement, bc): (&[u8], &str, String, &str) = match &stage {
                    Stage::Settled(kept) | Stage::Unknown(kept) | Stage::Settling(kept) => (
                        &kept.body,
                        &kept.request_id,
                        settlement_json(kept),
                        broadcast_flag(kept),
                    ),
                    Stage::Reserved | Stage::Spent => (&[], "", String::new(), ""),
                };
                call.arg(self.namespace(&key))
                    .arg(0)
                    .arg(member(&key))
                    .arg(hex(&key.from))
                    .arg(lease.to_string())
                    .arg(stage.name())
                    .arg(body)
                    .arg(rid)
                    .arg(settlement)
                    .arg(RETENTION_SECONDS)
                    .arg(UNKNOWN_RETENTION_SECONDS)
                    .arg(bc);
                self.command(|c| call.invoke::<i64>(c))?;
                Ok(StoreReply::Done)
            }
        }
    }

    fn admit(&self, admit: &Admit) -> Result<StoreReply, StoreFailure> {
        let unix_now = admit.unix_ms / 1000;
        let namespace = self.namespace(&self.template_key());
        let (pid, m, fp, owner, lease) = match &admit.recall {
            Some(recall) => (
                recall.payment_id.clone().unwrap_or_default(),
                recall.key.as_ref().map(member).unwrap_or_default(),
                fingerprint_hex(&recall.fingerprint),
                recall.lease.id.to_string(),
                recall.lease.until,
            ),
            None => Default::default(),
        };
        let mut call = self.scripts.admit.prepare_invoke();
        call.arg(namespace)
            .arg(unix_now)
            .arg(self.rate_key(admit.client))
            .arg(admit.unix_ms)
            .arg(self.interval_ms)
            .arg(self.tolerance_ms)
            .arg(pid)
            .arg(m)
            .arg(fp)
            .arg(owner)
            .arg(lease)
            .arg(if admit.recall.is_some() {
                1
            } else {
                admit.tokens.max(1)
            });
        let reply: Vec<Value> = self.command(|c| call.invoke(c))?;
        let words = strings(&reply);
        let admission = match words.first().map(String::as_str) {
            Some("admitted") => Admission::Admitted {
                tokens: words.get(1).and_then(|w| w.parse().ok()).unwrap_or(1),
            },
            Some("limited") => Admission::Limited {
                retry_after: words.get(1).and_then(|w| w.parse().ok()).unwrap_or(1),
            },
            Some(kind @ ("known" | "claimed")) => {
                let Some(recall) = &admit.recall else {
                    return Err(garbled());
                };
                let by_id = words.get(1).is_some_and(|w| w == "1");
                let found = words.get(2).ok_or_else(garbled)?;
                let template = recall.key.clone().unwrap_or_else(|| self.template_key());
                let key = key_of_member(found, &template).ok_or_else(garbled)?;
                let record = parse_record(&reply[3..])?;
                if kind == "known" {
                    Admission::Known { key, record, by_id }
                } else {
                    let kept = match &record.stage {
                        Stage::Unknown(kept) | Stage::Settling(kept) => kept.clone(),
                        _ => return Err(garbled()),
                    };
                    Admission::Claimed { key, record, kept }
                }
            }
            _ => return Err(garbled()),
        };
        Ok(StoreReply::Admission(Box::new(admission)))
    }

    /// `{REDIS_PREFIX}:{network}:{asset}` for `key`.
    fn namespace(&self, key: &AuthorizationKey) -> String {
        format!("{}:{}:{}", self.prefix, key.network, key.asset)
    }

    /// An authorization key of the configured network and asset (from and nonce zero).
    fn template_key(&self) -> AuthorizationKey {
        AuthorizationKey {
            network: self.network.clone(),
            asset: self.asset.clone(),
            from: [0; 20],
            nonce: [0; 32],
        }
    }

    /// `{REDIS_PREFIX}:rate:{client}`: IPv4 clients by address, IPv6 by /64.
    fn rate_key(&self, client: IpAddr) -> String {
        match ClientKey::of(client) {
            ClientKey::V4(v4) => format!("{}:rate:4:{v4:08x}", self.prefix),
            ClientKey::V6Prefix(prefix) => format!("{}:rate:6:{prefix:016x}", self.prefix),
        }
    }
}

fn failure(error: impl std::fmt::Display) -> StoreFailure {
    let words = error.to_string();
    if words.contains("timed out")
        || words.contains("WouldBlock")
        || words.contains("Resource temporarily")
    {
        StoreFailure::Timeout
    } else {
        StoreFailure::Unavailable(format!("redis: {words}"))
    }
}

fn garbled() -> StoreFailure {
    StoreFailure::Unavailable("redis: an answer this version does not read".into())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// `{from}:{nonce}` in hex: a record's member name.
fn member(key: &AuthorizationKey) -> String {
    format!("{}:{}", hex(&key.from), hex(&key.nonce))
}

fn key_of_member(member: &str, template: &AuthorizationKey) -> Option<AuthorizationKey> {
    let (from, nonce) = member.split_once(':')?;
    Some(AuthorizationKey {
        from: unhex(from)?,
        nonce: unhex(nonce)?,
        ..template.clone()
    })
}

fn fingerprint_hex(fingerprint: &Fingerprint) -> String {
    format!("{}{}", hex(&fingerprint.payment), hex(&fingerprint.request))
}

fn settlement_json(kept: &KeptResponse) -> String {
    kept.settlement
        .as_ref()
        .and_then(|s| serde_json::to_string(s).ok())
        .unwrap_or_default()
}

/// A kept response's `bc` field: `1` when a `/settle` of ours may have broadcast.
fn broadcast_flag(kept: &KeptResponse) -> &'static str {
    if kept.may_have_broadcast {
        "1"
    } else {
        "0"
    }
}

fn strings(reply: &[Value]) -> Vec<String> {
    reply
        .iter()
        .map(|value| match value {
            Value::BulkString(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Value::SimpleString(text) => text.clone(),
            Value::Int(n) => n.to_string(),
            _ => String::new(),
        })
        .collect()
}

fn bytes_of(value: &Value) -> Vec<u8> {
    match value {
        Value::BulkString(bytes) => bytes.clone(),
        Value::SimpleString(text) => text.clone().into_bytes(),
        Value::Int(n) => n.to_string().into_bytes(),
        _ => Vec::new(),
    }
}

/// A record from the fields `read` returns (`v`, `stage`, `fp`, `pid`, `vb`, `owner`,
/// `lease`, `exp`, `body`, `rid`, `settlement`, `fac`, `bc`, `fsb`); `fac` is empty in a record
/// of an older version, `fsb` empty in one without a known head, and `bc` is empty or missing
/// in a record of an older version: such a record's `/settle` may have
/// broadcast (what every version before it assumed).
fn parse_record(fields: &[Value]) -> Result<Record, StoreFailure> {
    if fields.len() < 12 {
        return Err(garbled());
    }
    let text: Vec<String> = strings(&fields[..12]);
    if text[0] != "1" {
        return Err(garbled());
    }
    let number = |i: usize| text[i].parse::<u64>().map_err(|_| garbled());
    let fp = &text[2];
    let fingerprint = Fingerprint {
        payment: fp.get(..64).and_then(unhex).ok_or_else(garbled)?,
        request: fp.get(64..).and_then(unhex).ok_or_else(garbled)?,
    };
    let kept = || KeptResponse {
        body: bytes_of(&fields[8]).into(),
        request_id: text[9].clone(),
        settlement: serde_json::from_str::<SettleResponse>(&text[10]).ok(),
        may_have_broadcast: fields.get(12).is_none_or(|bc| bytes_of(bc) != b"0"),
    };
    let stage = match text[1].as_str() {
        "reserved" => Stage::Reserved,
        "settling" => Stage::Settling(kept()),
        "settled" => Stage::Settled(kept()),
        "unknown" => Stage::Unknown(kept()),
        "spent" => Stage::Spent,
        _ => return Err(garbled()),
    };
    Ok(Record {
        stage,
        fingerprint,
        payment_id: Some(text[3].clone()).filter(|id| !id.is_empty()),
        facilitator: text[11].clone(),
        valid_before: number(4)?,
        lease: Lease {
            id: number(5)?,
            until: number(6)?,
        },
        expires: number(7)?,
        first_seen_block: fields
            .get(13)
            .and_then(|fsb| String::from_utf8_lossy(&bytes_of(fsb)).parse().ok()),
    })
}

/// How long a runtime waits between readiness checks of the store.
pub const STORE_CHECK_INTERVAL: Duration = Duration::from_secs(1);
