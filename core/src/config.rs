//! Service configuration, parsed once from environment-style variables (the runtime reads the
//! environment and passes the map in; the core never reads it).
//!
//! Invalid values stop start-up with a message naming the variable. Missing or invalid payment
//! settings (`PUBLIC_BASE_URL`, `PAY_TO`, `FACILITATOR_URL`) do not: the service starts, fails
//! closed (503 on the paid route), and `/api/ready` lists each problem (docs/contract.md
//! "Payment").

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};

use ipnet::IpNet;
use url::Url;

use crate::eth::parse_address;
use crate::net_policy::{NetPolicy, DEFAULT_ALLOWED_PORTS};
use crate::payment::requirements::{atomic_amount, PaymentTerms, BASE_MAINNET, BASE_MAINNET_USDC};

/// Base Sepolia (CAIP-2) and its USDC, whose EIP-712 name is `"USDC"`.
const BASE_SEPOLIA: &str = "eip155:84532";
/// Smallest `X402_MAX_TIMEOUT_SECONDS`: a payment must still be valid for 60 s when it arrives
/// ([`crate::budget::MIN_VALIDITY_SECONDS`]), plus 4 s for the client's signing,
/// the trip and clock skew.
pub const MIN_MAX_TIMEOUT_SECONDS: u64 = crate::budget::MIN_VALIDITY_SECONDS + 4;
const BASE_SEPOLIA_USDC: &str = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

/// A variable with an unusable value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The variable's name.
    pub variable: &'static str,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.variable, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// How logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// One JSON object per line.
    Json,
    /// Human-readable.
    Pretty,
}

/// Payment readiness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaymentConfig {
    /// Everything needed to take payments.
    Ready {
        /// The terms every 402 carries.
        terms: Box<PaymentTerms>,
        /// The facilitators, in the order of `FACILITATOR_URL` (at least one): new payments go
        /// to the first whose `GET /supported` check passes; an authorization stays with the
        /// one that first saw it (docs/payments.md, "Several facilitators").
        facilitators: Vec<Facilitator>,
    },
    /// Payments not configured: one human-readable problem per missing or invalid setting.
    Incomplete(Vec<String>),
}

pub use crate::payment::endpoint::{endpoint_label, Facilitator, FacilitatorCredentials};

/// How `Debug` shows an endpoint whose path may be its secret (JSON-RPC providers put the API
/// key in the path: `https://host/v2/<key>`): `scheme://host[:port]`, and `/[redacted]` when it
/// had a path, query or fragment.
fn origin_label(url: &Url) -> String {
    let origin = url.origin().ascii_serialization();
    let more = url.path() != "/" || url.query().is_some() || url.fragment().is_some();
    if more {
        format!("{origin}/[redacted]")
    } else {
        origin
    }
}

/// How `Debug` shows `REDIS_URL`: as given, with the password (if any) replaced by
/// `[redacted]`; a value that does not parse as a URL is not shown at all.
fn redis_label(raw: &str) -> String {
    match Url::parse(raw) {
        Ok(mut url) => {
            if url.password().is_some() {
                let _ = url.set_password(Some("redacted"));
            }
            url.to_string().replacen(":redacted@", ":[redacted]@", 1)
        }
        Err(_) => "[unparseable, not shown]".to_string(),
    }
}

/// The public x402.org facilitator: keyless, testnets only (Base Sepolia among them). The
/// default `FACILITATOR_URL` on Base Sepolia (`X402_NETWORK=eip155:84532`) and nowhere else.
pub const X402_ORG_TESTNET_FACILITATOR: &str = "https://x402.org/facilitator";

/// Coinbase's CDP facilitator (Base mainnet and Base Sepolia; every call authenticated with
/// a JWT made from a CDP API key), named in the start-up problem when mainnet has no
/// `FACILITATOR_URL`.
pub const CDP_FACILITATOR: &str = "https://api.cdp.coinbase.com/platform/v2/x402";

/// The whole configuration. Its `Debug` never shows a secret: `REDIS_URL`'s password and
/// `CHAIN_RPC_URL`'s path and query are redacted, facilitators are shown by
/// [`endpoint_label`] and [`FacilitatorCredentials::describe`], the signing key by its address.
#[derive(Clone, PartialEq, Eq)]
pub struct Config {
    /// Where to listen (`BIND_ADDR`, default `0.0.0.0:8080`).
    pub bind_addr: SocketAddr,
    /// Payment settings.
    pub payment: PaymentConfig,
    /// Requests a minute per client (`RATE_LIMIT_PER_MINUTE`, default 60).
    pub rate_limit_per_minute: u32,
    /// Burst per client (`RATE_LIMIT_BURST`, default 20).
    pub rate_limit_burst: u32,
    /// Paid jobs in flight at once (`MAX_CONCURRENT_JOBS`, default 256).
    pub max_concurrent_jobs: usize,
    /// Open client connections at once (`MAX_CONNECTIONS`, default 10 000); more are closed
    /// at accept.
    pub max_connections: usize,
    /// Open client connections from one peer address (`MAX_CONNECTIONS_PER_IP`, default
    /// 256; trusted proxies are exempt).
    pub max_connections_per_ip: usize,
    /// Bytes of fetched and decompressed pages held at once across all jobs
    /// (`MAX_PAGE_MEMORY`, default 512 MiB; a number of bytes, or with a `KiB`/`MiB`/`GiB`
    /// suffix; at least one page's reservation, 4 MiB). See [`crate::page_memory`].
    pub max_page_memory: usize,
    /// The operator's contact address for `/openapi.json`'s `info.contact.email`
    /// (`OPERATOR_EMAIL`, optional: `local@domain`, no white space, at most 254 bytes).
    pub operator_email: Option<String>,
    /// Where to serve `GET /metrics` in the Prometheus text format (`METRICS_ADDR`, default
    /// off): a separate listener, so metrics are never public by accident.
    pub metrics_addr: Option<SocketAddr>,
    /// Proxies whose `X-Forwarded-For` is believed (`TRUSTED_PROXIES`, CIDR list, default
    /// none): for a request from one of them, the client address (rate limiter, log) is the
    /// right-most forwarded address that is not itself trusted.
    pub trusted_proxies: Vec<IpNet>,
    /// Whether a trusted proxy sends the PROXY protocol header (v1 or v2) first on each
    /// connection (`PROXY_PROTOCOL`, default false): then the client address is the
    /// header's source address (the peer when the header names none), and a trusted peer
    /// without a valid header is refused.
    pub proxy_protocol: bool,
    /// Target ports and exempted ranges (`ALLOWED_PORTS`, `ALLOW_PRIVATE_CIDRS`).
    pub net_policy: NetPolicy,
    /// Static DNS answers (`RESOLVE=host=ip,…`, like curl's `--resolve`).
    pub resolve: BTreeMap<String, IpAddr>,
    /// Log format (`LOG_FORMAT`, `json` or `pretty`).
    pub log_format: LogFormat,
    /// JSON-RPC endpoint of the payment network, the judge (`CHAIN_RPC_URL`): the service
    /// reads the token contract itself on the rare paths — an unknown settlement outcome, a
    /// refusal or an expired authorization without a record (docs/payments.md, "The chain is
    /// the judge"). Unset: the network's public endpoint ([`public_chain_rpc`]); `none`: no
    /// judge (`None`). https, or http on loopback; fetched like the facilitator (a configured
    /// endpoint, exempt from the SSRF block list).
    pub chain_rpc: Option<Url>,
    /// Blocks per `eth_getLogs` call of the judge (`CHAIN_LOG_RANGE`, default
    /// [`DEFAULT_CHAIN_LOG_RANGE`], at least 1): the widest range the provider allows.
    pub chain_log_range: u64,
    /// The Redis shared by several instances (`REDIS_URL`, `redis://[user:password@]host:port[/db]`,
    /// or `rediss://` for TLS; unset: rate limits and payments live in this process, and a
    /// restart forgets them). docs/operations.md, "Running several instances".
    pub redis_url: Option<String>,
    /// A PEM file of the certificate authority that signed Redis's TLS certificate
    /// (`REDIS_CA_FILE`, with `rediss://`; unset: the webpki roots). Read by the runtime.
    pub redis_ca_file: Option<String>,
    /// The namespace of this service's keys in Redis (`REDIS_PREFIX`, default
    /// `contact-extract`; letters, digits, `-`, `_`, `.`, at most 64 bytes).
    pub redis_prefix: String,
    /// Redis Sentinel: the sentinels to ask for the current primary (`REDIS_SENTINELS`,
    /// comma-separated `host:port`; default none: `REDIS_URL` names the one node) and the
    /// name they watch it under (`REDIS_SENTINEL_MASTER`, required with them). With them
    /// `REDIS_URL`'s scheme (`rediss://`: TLS), user, password and database apply to the
    /// primary, and its host and port are not used (docs/operations.md, "Redis beyond one
    /// node").
    pub redis_sentinels: Vec<String>,
    /// See [`Config::redis_sentinels`].
    pub redis_sentinel_master: Option<String>,
    /// A file holding the service's secp256k1 key for signed offers and receipts
    /// (`RECEIPT_SIGNING_KEY_FILE`: 32 bytes in hex; unset: the `offer-receipt` extension is
    /// off). Read by the runtime, which sets [`Config::offer_signer`]; the key is never taken
    /// from the environment itself.
    pub receipt_signing_key_file: Option<String>,
    /// The key read from [`Config::receipt_signing_key_file`] (docs/payments.md, "Signed offers
    /// and receipts"). Its `Debug` shows the address only.
    pub offer_signer: Option<crate::payment::offer_receipt::OfferSigner>,
    /// Keys that signed receipts before the current one, with the unix seconds each signed in
    /// (`RECEIPT_PREVIOUS_SIGNERS`: `ADDRESS:VALID_FROM:VALID_UNTIL`, comma-separated; default
    /// none): published beside the current signer so that receipts handed out before a
    /// rotation still verify (docs/payments.md, "Rotating the signing key").
    pub receipt_previous_signers: Vec<crate::payment::offer_receipt::RetiredSigner>,
    /// Where each facilitator's credentials are, by position in `FACILITATOR_URL`
    /// (docs/configuration.md, "Facilitator credentials"; facilitators past the end of the
    /// list have none): read by the runtime, which sets each facilitator's
    /// [`FacilitatorCredentials`]; files only, a secret is never taken from the environment
    /// itself.
    pub facilitator_credentials: Vec<CredentialFiles>,
    /// Warnings to log at start-up (exempted ranges, plain-http facilitator).
    pub warnings: Vec<String>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Every field named, none left to `..`: a new field does not compile until someone
        // decides how it is shown.
        let Config {
            bind_addr,
            payment,
            rate_limit_per_minute,
            rate_limit_burst,
            max_concurrent_jobs,
            max_connections,
            max_connections_per_ip,
            max_page_memory,
            operator_email,
            metrics_addr,
            trusted_proxies,
            proxy_protocol,
            net_policy,
            resolve,
            log_format,
            chain_rpc,
            chain_log_range,
            redis_url,
            redis_ca_file,
            redis_prefix,
            redis_sentinels,
            redis_sentinel_master,
            receipt_signing_key_file,
            offer_signer,
            receipt_previous_signers,
            facilitator_credentials,
            warnings,
        } = self;
        f.debug_struct("Config")
            .field("bind_addr", bind_addr)
            .field("payment", payment)
            .field("rate_limit_per_minute", rate_limit_per_minute)
            .field("rate_limit_burst", rate_limit_burst)
            .field("max_concurrent_jobs", max_concurrent_jobs)
            .field("max_connections", max_connections)
            .field("max_connections_per_ip", max_connections_per_ip)
            .field("max_page_memory", max_page_memory)
            .field("operator_email", operator_email)
            .field("metrics_addr", metrics_addr)
            .field("trusted_proxies", trusted_proxies)
            .field("proxy_protocol", proxy_protocol)
            .field("net_policy", net_policy)
            .field("resolve", resolve)
            .field("log_format", log_format)
            .field("chain_rpc", &chain_rpc.as_ref().map(origin_label))
            .field("chain_log_range", chain_log_range)
            .field("redis_url", &redis_url.as_deref().map(redis_label))
            .field("redis_ca_file", redis_ca_file)
            .field("redis_prefix", redis_prefix)
            .field("redis_sentinels", redis_sentinels)
            .field("redis_sentinel_master", redis_sentinel_master)
            .field("receipt_signing_key_file", receipt_signing_key_file)
            .field("offer_signer", offer_signer)
            .field("receipt_previous_signers", receipt_previous_signers)
            .field("facilitator_credentials", facilitator_credentials)
            .field("warnings", warnings)
            .finish()
    }
}

/// Where a facilitator's credentials are: nothing (keyless), a header file, or a CDP API key.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CredentialFiles {
    /// A keyless facilitator.
    #[default]
    None,
    /// `FACILITATOR_AUTH_HEADER_FILE`: a file holding one header line, sent on every call.
    HeaderFile(String),
    /// `CDP_API_KEY_ID` and `CDP_API_KEY_SECRET_FILE`: a Coinbase Developer Platform key,
    /// a per-request JWT on every call.
    Cdp {
        /// The key id (not a secret: it names the key, as a user name does).
        key_id: String,
        /// The file of its private key (PEM EC P-256, or base64 Ed25519).
        secret_file: String,
    },
}

/// Blocks per `eth_getLogs` call when `CHAIN_LOG_RANGE` is unset: what common providers
/// allow (docs/configuration.md).
pub const DEFAULT_CHAIN_LOG_RANGE: u64 = 10_000;

/// The public JSON-RPC endpoint of a network, the judge when `CHAIN_RPC_URL` is unset
/// (docs/payments.md, "The chain is the judge"): Base (`eip155:8453`) and Base Sepolia
/// (`eip155:84532`), as Base's documentation names them; `None` for any other network.
pub fn public_chain_rpc(network: &str) -> Option<&'static str> {
    match network {
        BASE_MAINNET => Some("https://mainnet.base.org"),
        BASE_SEPOLIA => Some("https://sepolia.base.org"),
        _ => None,
    }
}

/// Every environment variable [`Config::from_env_map`] reads (docs/configuration.md).
pub const VARIABLES: &[&str] = &[
    "ALLOWED_PORTS",
    "ALLOW_PRIVATE_CIDRS",
    "BIND_ADDR",
    "CDP_API_KEY_ID",
    "CDP_API_KEY_SECRET_FILE",
    "CHAIN_LOG_RANGE",
    "CHAIN_RPC_URL",
    "FACILITATOR_AUTH_HEADER_FILE",
    "FACILITATOR_URL",
    "ICON_URL",
    "LOG_FORMAT",
    "MAX_CONCURRENT_JOBS",
    "MAX_CONNECTIONS",
    "MAX_CONNECTIONS_PER_IP",
    "MAX_PAGE_MEMORY",
    "METRICS_ADDR",
    "OPERATOR_EMAIL",
    "PAY_TO",
    "PRICE_USD",
    "PROXY_PROTOCOL",
    "PUBLIC_BASE_URL",
    "RATE_LIMIT_BURST",
    "RATE_LIMIT_PER_MINUTE",
    "RECEIPT_PREVIOUS_SIGNERS",
    "RECEIPT_SIGNING_KEY_FILE",
    "REDIS_CA_FILE",
    "REDIS_PREFIX",
    "REDIS_SENTINELS",
    "REDIS_SENTINEL_MASTER",
    "REDIS_URL",
    "RESOLVE",
    "TRUSTED_PROXIES",
    "X402_ASSET",
    "X402_ASSET_NAME",
    "X402_ASSET_VERSION",
    "X402_MAX_TIMEOUT_SECONDS",
    "X402_NETWORK",
];

impl Config {
    /// Parses the variables in `vars` (unset variables take their defaults).
    ///
    /// # Errors
    /// The first variable with an unusable value.
    pub fn from_env_map(vars: &BTreeMap<String, String>) -> Result<Config, ConfigError> {
        let get = |name: &str| var(vars, name);
        let mut warnings = Vec::new();
        let bind_addr = parse_or(
            "BIND_ADDR",
            get("BIND_ADDR"),
            "0.0.0.0:8080".parse().ok(),
            |v| v.parse().ok(),
        )?;
        let rate_limit_per_minute = parse_or(
            "RATE_LIMIT_PER_MINUTE",
            get("RATE_LIMIT_PER_MINUTE"),
            Some(60),
            positive,
        )?;
        let rate_limit_burst = parse_or(
            "RATE_LIMIT_BURST",
            get("RATE_LIMIT_BURST"),
            Some(20),
            positive,
        )?;
        let max_concurrent_jobs = parse_or(
            "MAX_CONCURRENT_JOBS",
            get("MAX_CONCURRENT_JOBS"),
            Some(256),
            positive::<usize>,
        )?;
        let max_connections = parse_or(
            "MAX_CONNECTIONS",
            get("MAX_CONNECTIONS"),
            Some(10_000),
            positive::<usize>,
        )?;
        let max_connections_per_ip = parse_or(
            "MAX_CONNECTIONS_PER_IP",
            get("MAX_CONNECTIONS_PER_IP"),
            Some(256),
            positive::<usize>,
        )?;
        let max_page_memory = parse_or(
            "MAX_PAGE_MEMORY",
            get("MAX_PAGE_MEMORY"),
            Some(512 * 1024 * 1024),
            |v| byte_size(v).filter(|n| *n >= crate::page_memory::PAGE_RESERVATION),
        )?;
        let proxy_protocol = match get("PROXY_PROTOCOL")
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("false" | "0" | "no") => false,
            Some("true" | "1" | "yes") => true,
            Some(_) => return Err(invalid("PROXY_PROTOCOL", "expected true or false")),
        };
        let operator_email = match get("OPERATOR_EMAIL") {
            None => None,
            Some(v) if is_plain_email(v) => Some(v.to_string()),
            Some(_) => {
                return Err(invalid(
                    "OPERATOR_EMAIL",
                    "expected an address such as ops@example.com",
                ))
            }
        };
        let metrics_addr = match get("METRICS_ADDR") {
            None => None,
            Some(v) => Some(v.parse::<SocketAddr>().map_err(|_| {
                invalid("METRICS_ADDR", "expected an address such as 127.0.0.1:9090")
            })?),
        };
        let trusted_proxies = cidr_list(get("TRUSTED_PROXIES"))
            .ok_or_else(|| invalid("TRUSTED_PROXIES", CIDR_LIST_EXPECTED))?;
        let allowed_ports = match get("ALLOWED_PORTS") {
            None => DEFAULT_ALLOWED_PORTS.to_vec(),
            Some(list) => list
                .split(',')
                .map(|p| p.trim().parse::<u16>().ok().filter(|p| *p > 0))
                .collect::<Option<Vec<u16>>>()
                .filter(|ports| !ports.is_empty())
                .ok_or_else(|| {
                    invalid(
                        "ALLOWED_PORTS",
                        "expected a comma-separated list of ports 1-65535",
                    )
                })?,
        };
        let allowed_private = cidr_list(get("ALLOW_PRIVATE_CIDRS"))
            .ok_or_else(|| invalid("ALLOW_PRIVATE_CIDRS", CIDR_LIST_EXPECTED))?;
        if !allowed_private.is_empty() {
            let ranges: Vec<String> = allowed_private.iter().map(ToString::to_string).collect();
            warnings.push(format!("ALLOW_PRIVATE_CIDRS exempts {} from the SSRF block list; never set it in production", ranges.join(", ")));
        }
        let mut resolve = BTreeMap::new();
        if let Some(list) = get("RESOLVE") {
            for entry in list.split(',') {
                let (host, ip) = entry
                    .split_once('=')
                    .and_then(|(h, ip)| {
                        Some((
                            h.trim().to_ascii_lowercase(),
                            ip.trim().parse::<IpAddr>().ok()?,
                        ))
                    })
                    .filter(|(h, _)| !h.is_empty())
                    .ok_or_else(|| {
                        invalid("RESOLVE", "expected host=ip pairs separated by commas")
                    })?;
                resolve.insert(host, ip);
            }
        }
        let log_format = match get("LOG_FORMAT").map(str::to_ascii_lowercase).as_deref() {
            None | Some("json") => LogFormat::Json,
            Some("pretty") => LogFormat::Pretty,
            Some(_) => return Err(invalid("LOG_FORMAT", "expected json or pretty")),
        };
        let payment = payment_config(vars, &mut warnings)?;
        let network = match &payment {
            PaymentConfig::Ready { terms, .. } => terms.requirements.network.clone(),
            PaymentConfig::Incomplete(_) => get("X402_NETWORK").unwrap_or(BASE_MAINNET).into(),
        };
        let chain_rpc = match get("CHAIN_RPC_URL") {
            Some(raw) if raw.trim().eq_ignore_ascii_case("none") => None,
            None => {
                let public = public_chain_rpc(&network).and_then(|url| Url::parse(url).ok());
                if let Some(url) = &public {
                    warnings.push(format!(
                        "CHAIN_RPC_URL is not set: the chain judge reads {network}'s public RPC {url} (rate-limited, asked only on rare paths); set CHAIN_RPC_URL to your own endpoint, or to none to turn the judge off"
                    ));
                }
                public
            }
            Some(raw) => {
                let (url, warning) =
                    endpoint_url("CHAIN_RPC_URL", raw).map_err(|message| ConfigError {
                        variable: "CHAIN_RPC_URL",
                        message,
                    })?;
                warnings.extend(warning);
                Some(url)
            }
        };
        let chain_log_range = match get("CHAIN_LOG_RANGE") {
            None => DEFAULT_CHAIN_LOG_RANGE,
            Some(raw) => raw
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| {
                    invalid("CHAIN_LOG_RANGE", "expected a number of blocks, 1 or more")
                })?,
        };
        let redis_url = match get("REDIS_URL") {
            None => None,
            Some(raw)
                if (raw.starts_with("redis://") || raw.starts_with("rediss://"))
                    && url::Url::parse(raw).is_ok() =>
            {
                Some(raw.to_string())
            }
            Some(_) => {
                return Err(invalid(
                    "REDIS_URL",
                    "expected redis://[user:password@]host:port[/db], or rediss:// for TLS",
                ))
            }
        };
        let redis_ca_file = get("REDIS_CA_FILE").map(str::to_string);
        if redis_ca_file.is_some()
            && !redis_url
                .as_deref()
                .is_some_and(|u| u.starts_with("rediss://"))
        {
            return Err(invalid(
                "REDIS_CA_FILE",
                "needs REDIS_URL with rediss:// (TLS)",
            ));
        }
        let redis_sentinels: Vec<String> = get("REDIS_SENTINELS")
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        if let Some(bad) = redis_sentinels.iter().find(|s| {
            s.rsplit_once(':').is_none_or(|(host, port)| {
                host.is_empty() || port.parse::<u16>().map_or(true, |p| p == 0)
            })
        }) {
            return Err(invalid(
                "REDIS_SENTINELS",
                &format!("{bad:?}: expected host:port, comma-separated"),
            ));
        }
        let redis_sentinel_master = get("REDIS_SENTINEL_MASTER")
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_string);
        match (redis_sentinels.is_empty(), &redis_sentinel_master) {
            (false, None) => {
                return Err(invalid(
                    "REDIS_SENTINEL_MASTER",
                    "needed with REDIS_SENTINELS: the name the sentinels watch the primary under",
                ))
            }
            (true, Some(_)) => {
                return Err(invalid(
                    "REDIS_SENTINELS",
                    "needed with REDIS_SENTINEL_MASTER: the sentinels' host:port list",
                ))
            }
            _ => {}
        }
        if !redis_sentinels.is_empty() && redis_url.is_none() {
            return Err(invalid(
                "REDIS_URL",
                "needed with REDIS_SENTINELS (its scheme, user, password and database apply to the primary; e.g. redis://)",
            ));
        }
        if !redis_sentinels.is_empty() && redis_ca_file.is_some() {
            return Err(invalid(
                "REDIS_CA_FILE",
                "not supported with REDIS_SENTINELS (rediss:// there trusts the webpki roots)",
            ));
        }
        let facilitator_credentials = credential_lists(
            get("FACILITATOR_AUTH_HEADER_FILE"),
            get("CDP_API_KEY_ID"),
            get("CDP_API_KEY_SECRET_FILE"),
        )?;
        if let PaymentConfig::Ready { facilitators, .. } = &payment {
            if facilitator_credentials.len() > facilitators.len() {
                let variable = [
                    "FACILITATOR_AUTH_HEADER_FILE",
                    "CDP_API_KEY_ID",
                    "CDP_API_KEY_SECRET_FILE",
                ]
                .into_iter()
                .max_by_key(|name| get(name).map_or(0, |v| v.split(',').count()))
                .unwrap_or("FACILITATOR_URL");
                return Err(invalid(
                    variable,
                    &format!(
                        "{} entries for {} facilitators in FACILITATOR_URL (one entry per facilitator, by position)",
                        facilitator_credentials.len(),
                        facilitators.len()
                    ),
                ));
            }
        }
        let redis_prefix = get("REDIS_PREFIX").unwrap_or("contact-extract").to_string();
        if redis_prefix.is_empty()
            || redis_prefix.len() > 64
            || !redis_prefix
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        {
            return Err(invalid(
                "REDIS_PREFIX",
                "expected 1 to 64 letters, digits, '-', '_' or '.'",
            ));
        }
        let receipt_previous_signers = crate::payment::offer_receipt::parse_retired_signers(
            get("RECEIPT_PREVIOUS_SIGNERS").unwrap_or(""),
        )
        .map_err(|why| invalid("RECEIPT_PREVIOUS_SIGNERS", &why))?;
        Ok(Config {
            bind_addr,
            payment,
            rate_limit_per_minute,
            rate_limit_burst,
            max_concurrent_jobs,
            max_connections,
            max_connections_per_ip,
            trusted_proxies,
            proxy_protocol,
            metrics_addr,
            operator_email,
            max_page_memory,
            net_policy: NetPolicy {
                allowed_ports,
                allowed_private,
                own_addrs: Some(bind_addr.ip())
                    .filter(|ip| !ip.is_unspecified())
                    .into_iter()
                    .collect(),
            },
            resolve,
            log_format,
            chain_rpc,
            chain_log_range,
            redis_url,
            redis_ca_file,
            redis_prefix,
            redis_sentinels,
            redis_sentinel_master,
            receipt_signing_key_file: get("RECEIPT_SIGNING_KEY_FILE")
                .filter(|path| !path.trim().is_empty())
                .map(str::to_string),
            offer_signer: None,
            receipt_previous_signers,
            facilitator_credentials,
            warnings,
        })
    }
}

/// A byte count: digits, optionally followed by `KiB`, `MiB` or `GiB` (or `K`, `M`, `G`,
/// binary multiples either way).
fn byte_size(value: &str) -> Option<usize> {
    let value = value.trim();
    let digits = value.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = value[digits.len()..].to_ascii_lowercase();
    let multiple: usize = match unit.as_str() {
        "" | "b" => 1,
        "k" | "kib" | "kb" => 1 << 10,
        "m" | "mib" | "mb" => 1 << 20,
        "g" | "gib" | "gb" => 1 << 30,
        _ => return None,
    };
    digits.trim().parse::<usize>().ok()?.checked_mul(multiple)
}

const CIDR_LIST_EXPECTED: &str =
    "expected a comma-separated list of CIDR ranges such as 127.0.0.0/8";

/// A comma-separated CIDR list (a bare address is its own /32 or /128); `None` if an entry
/// does not parse. Unset is the empty list.
fn cidr_list(value: Option<&str>) -> Option<Vec<IpNet>> {
    let Some(list) = value else {
        return Some(Vec::new());
    };
    list.split(',')
        .map(str::trim)
        .map(|c| {
            c.parse::<IpNet>()
                .ok()
                .or_else(|| c.parse::<IpAddr>().ok().map(IpNet::from))
        })
        .collect()
}

/// A set, non-blank variable, trimmed.
fn var<'a>(vars: &'a BTreeMap<String, String>, name: &str) -> Option<&'a str> {
    vars.get(name).map(|v| v.trim()).filter(|v| !v.is_empty())
}

fn payment_config(
    vars: &BTreeMap<String, String>,
    warnings: &mut Vec<String>,
) -> Result<PaymentConfig, ConfigError> {
    let get = |name: &str| var(vars, name);
    let price = get("PRICE_USD").unwrap_or("0.01");
    let amount = atomic_amount(price).map_err(|e| invalid("PRICE_USD", &e.to_string()))?;
    let network = get("X402_NETWORK").unwrap_or(BASE_MAINNET);
    if crate::eth::chain_id(network).is_none() {
        return Err(invalid(
            "X402_NETWORK",
            "expected a CAIP-2 EVM network such as eip155:8453",
        ));
    }
    let sepolia = network == BASE_SEPOLIA;
    let asset = get("X402_ASSET").unwrap_or(if sepolia {
        BASE_SEPOLIA_USDC
    } else {
        BASE_MAINNET_USDC
    });
    if parse_address(asset).is_none() {
        return Err(invalid(
            "X402_ASSET",
            "expected a 0x-prefixed 20-byte address",
        ));
    }
    let asset_name = get("X402_ASSET_NAME").unwrap_or(if sepolia { "USDC" } else { "USD Coin" });
    let asset_version = get("X402_ASSET_VERSION").unwrap_or("2");
    // At least 64 s: clients sign `validBefore = now + maxTimeoutSeconds`, and a payment must
    // leave 60 s for the job and its settlement when it arrives (docs/payments.md).
    let max_timeout = match get("X402_MAX_TIMEOUT_SECONDS") {
        None => 120,
        Some(v) => v
            .parse::<u64>()
            .ok()
            .filter(|s| (MIN_MAX_TIMEOUT_SECONDS..=3600).contains(s))
            .ok_or_else(|| {
                invalid(
                    "X402_MAX_TIMEOUT_SECONDS",
                    &format!("cannot use {v:?}: a number of seconds from {MIN_MAX_TIMEOUT_SECONDS} to 3600"),
                )
            })?,
    };
    // An icon for x402 catalogues (Bazaar `resource.iconUrl`), optional.
    let icon_url = match get("ICON_URL") {
        None => None,
        Some(raw) => match Url::parse(raw) {
            Ok(url) if matches!(url.scheme(), "https" | "http") => Some(url.to_string()),
            _ => return Err(invalid("ICON_URL", "expected an http(s) URL of an image")),
        },
    };

    let mut problems = Vec::new();
    let base = match get("PUBLIC_BASE_URL") {
        None => {
            problems.push(
                "PUBLIC_BASE_URL is not set (the public https URL of this service)".to_string(),
            );
            None
        }
        Some(raw) => match Url::parse(raw) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => {
                Some(url)
            }
            _ => {
                problems.push("PUBLIC_BASE_URL is not an http(s) URL".to_string());
                None
            }
        },
    };
    let pay_to = match get("PAY_TO") {
        None => {
            problems.push("PAY_TO is not set (the address that receives payments)".to_string());
            None
        }
        Some(address) if parse_address(address).is_none() => {
            problems.push("PAY_TO is not a 0x-prefixed 20-byte address".to_string());
            None
        }
        Some(address) if parse_address(address) == Some([0; 20]) => {
            problems.push("PAY_TO is the zero address".to_string());
            None
        }
        Some(address) => Some(address.to_string()),
    };
    let facilitators = match get("FACILITATOR_URL") {
        None if sepolia => {
            warnings.push(format!(
                "FACILITATOR_URL is not set: payments on Base Sepolia ({BASE_SEPOLIA}) go to the public testnet facilitator {X402_ORG_TESTNET_FACILITATOR} (keyless, testnets only)"
            ));
            let url = Url::parse(X402_ORG_TESTNET_FACILITATOR).ok();
            url.map(|url| {
                vec![Facilitator {
                    url,
                    credentials: FacilitatorCredentials::None,
                }]
            })
        }
        None => {
            problems.push(format!(
                "FACILITATOR_URL is not set: name the facilitator(s) that settle payments on {network}, comma-separated: Coinbase CDP {CDP_FACILITATOR} (with CDP_API_KEY_ID and CDP_API_KEY_SECRET_FILE), or a keyless facilitator"
            ));
            None
        }
        Some(raw) => match facilitator_list(raw) {
            Ok((list, warning)) => {
                warnings.extend(warning);
                Some(list)
            }
            Err(problem) => {
                problems.push(problem);
                None
            }
        },
    };
    match (base, pay_to, facilitators) {
        (Some(base), Some(pay_to), Some(facilitators)) if problems.is_empty() => {
            let resource = format!(
                "{}/api/v1/extract-contact",
                base.as_str().trim_end_matches('/')
            );
            let terms = PaymentTerms::new(
                resource,
                network,
                asset,
                asset_name,
                asset_version,
                &pay_to,
                amount,
                max_timeout,
            );
            let mut terms = terms;
            terms.resource.icon_url = icon_url;
            Ok(PaymentConfig::Ready {
                terms: Box::new(terms),
                facilitators,
            })
        }
        _ => Ok(PaymentConfig::Incomplete(problems)),
    }
}

/// The credential settings of each facilitator, by position in `FACILITATOR_URL`
/// (docs/configuration.md, "Facilitator credentials"): each variable is a comma-separated list
/// whose n-th entry belongs to the n-th facilitator, an empty or missing entry meaning none.
/// Entry n of the three settings obeys [`credential_files`]. Trailing facilitators without
/// credentials have no entry.
fn credential_lists(
    header_files: Option<&str>,
    key_ids: Option<&str>,
    secret_files: Option<&str>,
) -> Result<Vec<CredentialFiles>, ConfigError> {
    fn entries(value: Option<&str>) -> Vec<&str> {
        value.map_or_else(Vec::new, |v| v.split(',').map(str::trim).collect())
    }
    let (header_files, key_ids, secret_files) = (
        entries(header_files),
        entries(key_ids),
        entries(secret_files),
    );
    let count = header_files
        .len()
        .max(key_ids.len())
        .max(secret_files.len());
    let mut list = Vec::with_capacity(count);
    for n in 0..count {
        let files = credential_files(
            header_files.get(n).copied(),
            key_ids.get(n).copied(),
            secret_files.get(n).copied(),
        )
        .map_err(|mut error| {
            if count > 1 {
                error.message = format!("facilitator {}: {}", n + 1, error.message);
            }
            error
        })?;
        list.push(files);
    }
    while list.last() == Some(&CredentialFiles::None) {
        list.pop();
    }
    Ok(list)
}

/// One facilitator's credential settings: at most one kind; a CDP key needs both its id and
/// its file.
fn credential_files(
    header_file: Option<&str>,
    key_id: Option<&str>,
    secret_file: Option<&str>,
) -> Result<CredentialFiles, ConfigError> {
    fn set(v: Option<&str>) -> Option<&str> {
        v.map(str::trim).filter(|v| !v.is_empty())
    }
    match (set(header_file), set(key_id), set(secret_file)) {
        (None, None, None) => Ok(CredentialFiles::None),
        (Some(file), None, None) => Ok(CredentialFiles::HeaderFile(file.to_string())),
        (None, Some(key_id), Some(secret_file)) => Ok(CredentialFiles::Cdp {
            key_id: key_id.to_string(),
            secret_file: secret_file.to_string(),
        }),
        (Some(_), _, _) => Err(invalid(
            "FACILITATOR_AUTH_HEADER_FILE",
            "set either it or a CDP API key (CDP_API_KEY_ID, CDP_API_KEY_SECRET_FILE), not both",
        )),
        (None, Some(_), None) => Err(invalid(
            "CDP_API_KEY_SECRET_FILE",
            "CDP_API_KEY_ID is set: also set the file holding the key's secret",
        )),
        (None, None, Some(_)) => Err(invalid(
            "CDP_API_KEY_ID",
            "CDP_API_KEY_SECRET_FILE is set: also set the key's id",
        )),
    }
}

/// `FACILITATOR_URL`: one or more endpoints, comma-separated, in order of preference, each
/// once; each without credentials (the runtime gives the first its credentials from
/// [`Config::facilitator_credentials`]). At most one warning (plain http on
/// loopback).
fn facilitator_list(raw: &str) -> Result<(Vec<Facilitator>, Option<String>), String> {
    let mut list: Vec<Facilitator> = Vec::new();
    let mut warning = None;
    for entry in raw.split(',').map(str::trim) {
        if entry.is_empty() {
            return Err(
                "FACILITATOR_URL has an empty entry (a comma-separated list of URLs)".to_string(),
            );
        }
        let (url, loopback) = endpoint_url("FACILITATOR_URL", entry)?;
        if list.iter().any(|f| f.url == url) {
            return Err(format!("FACILITATOR_URL names {url} twice"));
        }
        warning = warning.or(loopback);
        list.push(Facilitator {
            url,
            credentials: FacilitatorCredentials::None,
        });
    }
    Ok((list, warning))
}

/// A configured endpoint (`FACILITATOR_URL`, `CHAIN_RPC_URL`): https, or http to a loopback
/// address (tests) with a warning.
fn endpoint_url(name: &str, raw: &str) -> Result<(Url, Option<String>), String> {
    let url = Url::parse(raw).map_err(|_| format!("{name} is not a URL"))?;
    if url.host().is_none() || !url.username().is_empty() {
        return Err(format!(
            "{name} must be an https URL with a host and no user name"
        ));
    }
    match url.scheme() {
        "https" => Ok((url, None)),
        "http" => {
            let loopback = match url.host() {
                Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
                Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
                Some(url::Host::Domain(name)) => name == "localhost",
                None => false,
            };
            if loopback {
                Ok((
                    url,
                    Some(format!(
                        "{name} uses plain http on loopback; use https in production"
                    )),
                ))
            } else {
                Err(format!(
                    "{name} must use https (http is allowed only for loopback)"
                ))
            }
        }
        _ => Err(format!("{name} must use https")),
    }
}

/// A count above zero.
fn positive<T: std::str::FromStr + PartialOrd + Default>(v: &str) -> Option<T> {
    v.parse::<T>().ok().filter(|n| *n > T::default())
}

fn parse_or<T>(
    variable: &'static str,
    value: Option<&str>,
    default: Option<T>,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, ConfigError> {
    match value {
        Some(v) => parse(v).ok_or_else(|| invalid(variable, &format!("cannot use {v:?}"))),
        None => default.ok_or_else(|| invalid(variable, "has no default")),
    }
}

fn invalid(variable: &'static str, message: &str) -> ConfigError {
    ConfigError {
        variable,
        message: message.to_string(),
    }
}

/// A contact address as discovery documents show it: one `@` with text on both sides, a dot in
/// the domain, no white space or control characters, at most 254 bytes (RFC 5321's path limit).
fn is_plain_email(value: &str) -> bool {
    let Some((local, domain)) = value.split_once('@') else {
        return false;
    };
    value.len() <= 254
        && !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains('@')
        && !value.chars().any(|c| c.is_whitespace() || c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const PAYMENT: [(&str, &str); 3] = [
        ("PUBLIC_BASE_URL", "https://contacts.example.com/"),
        ("PAY_TO", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
        ("FACILITATOR_URL", "https://facilitator.example.com"),
    ];

    #[test]
    fn variables_lists_every_variable_read() {
        let source = include_str!("config.rs");
        let mut read: Vec<&str> = source
            .split("get(\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .filter(|name| {
                name.bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            })
            .collect();
        read.sort_unstable();
        read.dedup();
        assert_eq!(read, VARIABLES);
    }

    #[test]
    fn defaults_and_ready_payments() {
        let config = Config::from_env_map(&vars(&PAYMENT)).unwrap();
        assert_eq!(config.bind_addr, "0.0.0.0:8080".parse().unwrap());
        assert_eq!(
            (
                config.rate_limit_per_minute,
                config.rate_limit_burst,
                config.max_concurrent_jobs
            ),
            (60, 20, 256)
        );
        assert_eq!(
            (config.max_connections, config.max_connections_per_ip),
            (10_000, 256)
        );
        assert!(config.trusted_proxies.is_empty());
        assert_eq!(config.max_page_memory, 512 << 20);
        assert_eq!(byte_size("64MiB"), Some(64 << 20));
        assert_eq!(byte_size("1g"), Some(1 << 30));
        assert_eq!(byte_size("4194304"), Some(4 << 20));
        assert_eq!(config.net_policy, NetPolicy::default());
        assert_eq!(config.log_format, LogFormat::Json);
        let PaymentConfig::Ready {
            terms,
            facilitators,
        } = config.payment
        else {
            panic!("ready")
        };
        assert_eq!(terms.requirements.amount, "10000");
        assert_eq!(terms.requirements.network, "eip155:8453");
        assert_eq!(terms.requirements.asset, BASE_MAINNET_USDC);
        assert_eq!(terms.requirements.extra.name, "USD Coin");
        assert_eq!(terms.requirements.max_timeout_seconds, 120);
        assert_eq!(
            terms.resource.url,
            "https://contacts.example.com/api/v1/extract-contact"
        );
        assert_eq!(facilitators.len(), 1);
        assert_eq!(
            facilitators[0].url.as_str(),
            "https://facilitator.example.com/"
        );
        assert_eq!(facilitators[0].credentials, FacilitatorCredentials::None);
    }

    #[test]
    fn debug_never_shows_a_secret_of_the_configuration() {
        let mut pairs = PAYMENT.to_vec();
        pairs.retain(|(name, _)| *name != "FACILITATOR_URL");
        pairs.extend([
            (
                "FACILITATOR_URL",
                "https://f.example.com/x402?api_key=facilitator-query-secret",
            ),
            (
                "CHAIN_RPC_URL",
                "https://rpc.example.net/v2/rpc-path-secret",
            ),
            (
                "REDIS_URL",
                "rediss://service:redis-password-secret@redis.example.net:6380/2",
            ),
        ]);
        let config = Config::from_env_map(&vars(&pairs)).unwrap();
        let shown = format!("{config:?} {config:#?}");
        for secret in [
            "facilitator-query-secret",
            "rpc-path-secret",
            "redis-password-secret",
        ] {
            assert!(!shown.contains(secret), "{secret} shown in {shown}");
        }
        // What an operator needs to recognise the settings stays.
        for kept in [
            "https://f.example.com/x402",
            "https://rpc.example.net/[redacted]",
            "rediss://service:[redacted]@redis.example.net:6380/2",
        ] {
            assert!(shown.contains(kept), "{kept} missing from {shown}");
        }
    }

    #[test]
    fn an_endpoint_label_leaves_out_query_and_fragment() {
        let url = Url::parse("https://f.example.com:8443/x402?key=secret#frag").unwrap();
        assert_eq!(endpoint_label(&url), "https://f.example.com:8443/x402");
    }

    #[test]
    fn facilitator_url_names_several_in_order() {
        let mut pairs = PAYMENT.to_vec();
        pairs.push((
            "FACILITATOR_URL",
            " https://a.example.com/x402 ,https://b.example.com ",
        ));
        let config = Config::from_env_map(&vars(&pairs)).unwrap();
        let PaymentConfig::Ready { facilitators, .. } = config.payment else {
            panic!("ready")
        };
        let urls: Vec<&str> = facilitators.iter().map(|f| f.url.as_str()).collect();
        assert_eq!(
            urls,
            ["https://a.example.com/x402", "https://b.example.com/"]
        );
        for bad in [
            "https://a.example.com,,https://b.example.com",
            "https://a.example.com,http://b.example.com",
            "https://a.example.com,https://a.example.com/",
        ] {
            let mut pairs = PAYMENT.to_vec();
            pairs.push(("FACILITATOR_URL", bad));
            let config = Config::from_env_map(&vars(&pairs)).unwrap();
            let PaymentConfig::Incomplete(problems) = config.payment else {
                panic!("{bad} is refused")
            };
            assert!(
                problems.len() == 1 && problems[0].starts_with("FACILITATOR_URL"),
                "{bad}: {problems:?}"
            );
        }
    }

    #[test]
    fn the_chain_judges_by_default_through_the_networks_public_rpc() {
        let base = [
            ("PUBLIC_BASE_URL", "https://contacts.example.com/"),
            ("PAY_TO", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
            ("FACILITATOR_URL", "https://facilitator.example.com"),
        ];
        let with = |extra: &[(&'static str, &'static str)]| {
            let mut pairs = base.to_vec();
            pairs.extend_from_slice(extra);
            Config::from_env_map(&vars(&pairs)).unwrap()
        };
        let mainnet = with(&[]);
        let url = mainnet.chain_rpc.as_ref().map(Url::as_str);
        assert_eq!(url, Some("https://mainnet.base.org/"));
        assert!(
            mainnet
                .warnings
                .iter()
                .any(|w| w.contains("CHAIN_RPC_URL is not set")
                    && w.contains("https://mainnet.base.org")),
            "said at start: {:?}",
            mainnet.warnings
        );
        let sepolia = with(&[("X402_NETWORK", "eip155:84532")]);
        let url = sepolia.chain_rpc.as_ref().map(Url::as_str);
        assert_eq!(url, Some("https://sepolia.base.org/"));
        // `none` turns the judge off; another network has no public default.
        for extra in [
            &[("CHAIN_RPC_URL", "none")][..],
            &[("CHAIN_RPC_URL", "NONE")][..],
            &[
                ("X402_NETWORK", "eip155:1"),
                ("X402_ASSET", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
            ][..],
        ] {
            assert_eq!(with(extra).chain_rpc, None, "{extra:?}");
        }
        let own = with(&[("CHAIN_RPC_URL", "http://127.0.0.1:8545")]);
        let url = own.chain_rpc.as_ref().map(Url::as_str);
        assert_eq!(url, Some("http://127.0.0.1:8545/"));
        // The log page: 10 000 blocks unless set; at least one block.
        assert_eq!(mainnet.chain_log_range, 10_000);
        assert_eq!(with(&[("CHAIN_LOG_RANGE", "50")]).chain_log_range, 50);
        for bad in ["0", "-1", "ten"] {
            let mut pairs = base.to_vec();
            pairs.push(("CHAIN_LOG_RANGE", bad));
            let error = Config::from_env_map(&vars(&pairs)).unwrap_err();
            assert_eq!(error.variable, "CHAIN_LOG_RANGE", "{bad}");
        }
    }

    #[test]
    fn base_sepolia_without_a_facilitator_uses_the_public_testnet_one() {
        let pairs = [
            ("PUBLIC_BASE_URL", "https://contacts.example.com/"),
            ("PAY_TO", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
            ("X402_NETWORK", "eip155:84532"),
        ];
        let config = Config::from_env_map(&vars(&pairs)).unwrap();
        let PaymentConfig::Ready {
            terms,
            facilitators,
        } = config.payment
        else {
            panic!("ready on Base Sepolia without FACILITATOR_URL")
        };
        assert_eq!(facilitators.len(), 1);
        assert_eq!(facilitators[0].url.as_str(), X402_ORG_TESTNET_FACILITATOR);
        assert_eq!(facilitators[0].credentials, FacilitatorCredentials::None);
        // The EIP-712 domain of Circle's USDC on Base Sepolia (chain 84532).
        assert_eq!(
            (
                terms.requirements.asset.as_str(),
                terms.requirements.extra.name.as_str(),
                terms.requirements.extra.version.as_str()
            ),
            ("0x036CbD53842c5426634e7929541eC2318f3dCF7e", "USDC", "2")
        );
        assert!(
            config
                .warnings
                .iter()
                .any(|w| w.contains("https://x402.org/facilitator") && w.contains("testnet")),
            "{:?}",
            config.warnings
        );
        // On mainnet FACILITATOR_URL stays required, and the problem names the choices.
        let mainnet = Config::from_env_map(&vars(&pairs[..2])).unwrap();
        let PaymentConfig::Incomplete(problems) = mainnet.payment else {
            panic!("mainnet needs FACILITATOR_URL")
        };
        assert_eq!(problems.len(), 1, "{problems:?}");
        for words in [
            "FACILITATOR_URL is not set",
            "https://api.cdp.coinbase.com/platform/v2/x402",
            "CDP_API_KEY_ID",
            "CDP_API_KEY_SECRET_FILE",
            "keyless",
        ] {
            assert!(problems[0].contains(words), "{words}: {}", problems[0]);
        }
    }

    #[test]
    fn icon_url_reaches_the_resource_and_is_checked() {
        let with = |icon: &str| {
            let vars: BTreeMap<String, String> = [
                ("PUBLIC_BASE_URL", "https://contacts.example.com"),
                ("PAY_TO", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
                ("FACILITATOR_URL", "https://facilitator.example.com"),
                ("ICON_URL", icon),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
            Config::from_env_map(&vars)
        };
        let PaymentConfig::Ready { terms, .. } = with("https://contacts.example.com/icon.png")
            .unwrap()
            .payment
        else {
            panic!("ready")
        };
        assert_eq!(
            terms.resource.icon_url.as_deref(),
            Some("https://contacts.example.com/icon.png")
        );
        assert_eq!(with("ftp://x/icon.png").unwrap_err().variable, "ICON_URL");
    }

    #[test]
    fn operator_email_is_optional_and_checked() {
        let with = |value: &str| {
            let vars: BTreeMap<String, String> =
                [("OPERATOR_EMAIL".to_string(), value.to_string())]
                    .into_iter()
                    .collect();
            Config::from_env_map(&vars)
        };
        assert_eq!(
            with("ops@example.com").unwrap().operator_email.as_deref(),
            Some("ops@example.com")
        );
        for bad in [
            "ops",
            "@example.com",
            "ops@example",
            "ops @example.com",
            "a@b@c.com",
        ] {
            assert_eq!(with(bad).unwrap_err().variable, "OPERATOR_EMAIL", "{bad}");
        }
        assert_eq!(
            Config::from_env_map(&BTreeMap::new())
                .unwrap()
                .operator_email,
            None
        );
    }

    #[test]
    fn missing_payment_settings_fail_closed_with_problems() {
        let config = Config::from_env_map(&vars(&[("PAY_TO", "0x123")])).unwrap();
        let PaymentConfig::Incomplete(problems) = config.payment else {
            panic!("incomplete")
        };
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems.iter().any(|p| p.starts_with("PAY_TO")));
        let config = Config::from_env_map(&vars(&[
            ("PUBLIC_BASE_URL", "https://x.example.com"),
            ("PAY_TO", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
            ("FACILITATOR_URL", "http://facilitator.example.com"),
        ]))
        .unwrap();
        assert!(
            matches!(config.payment, PaymentConfig::Incomplete(ref p) if p[0].contains("https"))
        );
    }

    #[test]
    fn invalid_values_name_the_variable() {
        for (name, value) in [
            ("BIND_ADDR", "nope"),
            ("PRICE_USD", "free"),
            ("RATE_LIMIT_PER_MINUTE", "0"),
            ("RATE_LIMIT_BURST", "-1"),
            ("MAX_CONCURRENT_JOBS", "x"),
            ("MAX_CONNECTIONS", "0"),
            ("MAX_CONNECTIONS_PER_IP", "many"),
            ("TRUSTED_PROXIES", "10.0.0.0/8, proxy.local"),
            ("METRICS_ADDR", "localhost"),
            ("MAX_PAGE_MEMORY", "1MiB"),
            ("MAX_PAGE_MEMORY", "lots"),
            ("PROXY_PROTOCOL", "maybe"),
            ("ALLOWED_PORTS", "80,http"),
            ("ALLOW_PRIVATE_CIDRS", "127.0.0.1/33"),
            ("RESOLVE", "example.com"),
            ("LOG_FORMAT", "xml"),
            ("X402_NETWORK", "base"),
            ("X402_ASSET", "0xnot"),
            ("X402_MAX_TIMEOUT_SECONDS", "5"),
            ("X402_MAX_TIMEOUT_SECONDS", "63"),
            ("REDIS_URL", "http://127.0.0.1:6379"),
            ("REDIS_PREFIX", "has spaces"),
            ("REDIS_CA_FILE", "/etc/redis/ca.pem"),
        ] {
            let mut pairs = PAYMENT.to_vec();
            pairs.push((name, value));
            let error = Config::from_env_map(&vars(&pairs)).unwrap_err();
            assert_eq!(error.variable, name);
            assert!(error.to_string().starts_with(name));
        }
    }

    /// Redis Sentinel: a `host:port` list and the primary's name together, with `REDIS_URL`
    /// for the credentials; each half alone, a bad address or `REDIS_CA_FILE` names its
    /// variable.
    #[test]
    fn sentinels_come_with_a_primary_name_and_a_url() {
        let with = |extra: &[(&'static str, &'static str)]| {
            let mut pairs = PAYMENT.to_vec();
            pairs.extend_from_slice(extra);
            Config::from_env_map(&vars(&pairs))
        };
        let config = with(&[
            ("REDIS_URL", "redis://:secret@primary/2"),
            (
                "REDIS_SENTINELS",
                " 10.0.0.11:26379, sentinel.internal:26379 ",
            ),
            ("REDIS_SENTINEL_MASTER", "contact-extract"),
        ])
        .unwrap();
        assert_eq!(
            config.redis_sentinels,
            ["10.0.0.11:26379", "sentinel.internal:26379"]
        );
        assert_eq!(
            config.redis_sentinel_master.as_deref(),
            Some("contact-extract")
        );
        assert!(with(&[]).unwrap().redis_sentinels.is_empty());
        for (extra, variable) in [
            (
                &[("REDIS_URL", "redis://h"), ("REDIS_SENTINELS", "h:26379")][..],
                "REDIS_SENTINEL_MASTER",
            ),
            (
                &[("REDIS_URL", "redis://h"), ("REDIS_SENTINEL_MASTER", "m")][..],
                "REDIS_SENTINELS",
            ),
            (
                &[
                    ("REDIS_SENTINELS", "h:26379"),
                    ("REDIS_SENTINEL_MASTER", "m"),
                ][..],
                "REDIS_URL",
            ),
            (
                &[
                    ("REDIS_URL", "redis://h"),
                    ("REDIS_SENTINELS", "h"),
                    ("REDIS_SENTINEL_MASTER", "m"),
                ][..],
                "REDIS_SENTINELS",
            ),
            (
                &[
                    ("REDIS_URL", "redis://h"),
                    ("REDIS_SENTINELS", "h:0"),
                    ("REDIS_SENTINEL_MASTER", "m"),
                ][..],
                "REDIS_SENTINELS",
            ),
            (
                &[
                    ("REDIS_URL", "rediss://h"),
                    ("REDIS_CA_FILE", "/ca.pem"),
                    ("REDIS_SENTINELS", "h:26379"),
                    ("REDIS_SENTINEL_MASTER", "m"),
                ][..],
                "REDIS_CA_FILE",
            ),
        ] {
            assert_eq!(with(extra).unwrap_err().variable, variable, "{extra:?}");
        }
    }

    #[test]
    fn credentials_of_several_facilitators_go_by_position() {
        let with = |extra: &[(&'static str, &'static str)]| {
            let mut pairs = PAYMENT.to_vec();
            pairs.push((
                "FACILITATOR_URL",
                "https://a.example.com,https://b.example.com,https://c.example.com",
            ));
            pairs.extend_from_slice(extra);
            Config::from_env_map(&vars(&pairs))
        };
        // The first keyless, the second with a CDP key, the third with a header file.
        let config = with(&[
            ("CDP_API_KEY_ID", ",kid"),
            ("CDP_API_KEY_SECRET_FILE", " , /run/secrets/cdp"),
            ("FACILITATOR_AUTH_HEADER_FILE", ",,/run/secrets/h"),
        ])
        .unwrap();
        assert_eq!(
            config.facilitator_credentials,
            [
                CredentialFiles::None,
                CredentialFiles::Cdp {
                    key_id: "kid".into(),
                    secret_file: "/run/secrets/cdp".into()
                },
                CredentialFiles::HeaderFile("/run/secrets/h".into()),
            ]
        );
        // Nothing for the last ones: keyless.
        let config = with(&[("FACILITATOR_AUTH_HEADER_FILE", "/h,")]).unwrap();
        assert_eq!(
            config.facilitator_credentials,
            [CredentialFiles::HeaderFile("/h".into())]
        );
        // Two kinds for one facilitator, half a key, or more entries than facilitators.
        for (extra, variable, words) in [
            (
                &[
                    ("FACILITATOR_AUTH_HEADER_FILE", ",/h"),
                    ("CDP_API_KEY_ID", ",kid"),
                    ("CDP_API_KEY_SECRET_FILE", ",/k"),
                ][..],
                "FACILITATOR_AUTH_HEADER_FILE",
                "facilitator 2",
            ),
            (
                &[
                    ("CDP_API_KEY_ID", "kid,kid2"),
                    ("CDP_API_KEY_SECRET_FILE", "/k"),
                ][..],
                "CDP_API_KEY_SECRET_FILE",
                "facilitator 2",
            ),
            (
                &[("FACILITATOR_AUTH_HEADER_FILE", "/1,/2,/3,/4")][..],
                "FACILITATOR_AUTH_HEADER_FILE",
                "4 entries for 3 facilitators",
            ),
        ] {
            let error = with(extra).unwrap_err();
            assert_eq!(error.variable, variable, "{error}");
            assert!(error.message.contains(words), "{error}");
        }
    }

    #[test]
    fn facilitator_credentials_are_one_kind_and_a_cdp_key_has_both_parts() {
        let with = |extra: &[(&'static str, &'static str)]| {
            let mut pairs = PAYMENT.to_vec();
            pairs.extend_from_slice(extra);
            Config::from_env_map(&vars(&pairs))
        };
        assert_eq!(
            with(&[("FACILITATOR_AUTH_HEADER_FILE", "/run/secrets/h")])
                .unwrap()
                .facilitator_credentials,
            [CredentialFiles::HeaderFile("/run/secrets/h".into())]
        );
        assert_eq!(
            with(&[
                ("CDP_API_KEY_ID", "kid"),
                ("CDP_API_KEY_SECRET_FILE", "/run/secrets/cdp")
            ])
            .unwrap()
            .facilitator_credentials,
            [CredentialFiles::Cdp {
                key_id: "kid".into(),
                secret_file: "/run/secrets/cdp".into()
            }]
        );
        for (extra, variable) in [
            (
                &[
                    ("FACILITATOR_AUTH_HEADER_FILE", "/h"),
                    ("CDP_API_KEY_ID", "kid"),
                    ("CDP_API_KEY_SECRET_FILE", "/k"),
                ][..],
                "FACILITATOR_AUTH_HEADER_FILE",
            ),
            (&[("CDP_API_KEY_ID", "kid")][..], "CDP_API_KEY_SECRET_FILE"),
            (&[("CDP_API_KEY_SECRET_FILE", "/k")][..], "CDP_API_KEY_ID"),
        ] {
            assert_eq!(with(extra).unwrap_err().variable, variable);
        }
    }

    #[test]
    fn a_specific_listening_address_is_on_the_block_list_and_proxies_parse() {
        let mut pairs = PAYMENT.to_vec();
        pairs.extend([
            ("BIND_ADDR", "93.184.216.34:8080"),
            ("TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.7"),
        ]);
        let config = Config::from_env_map(&vars(&pairs)).unwrap();
        assert_eq!(
            config.net_policy.own_addrs,
            ["93.184.216.34".parse::<IpAddr>().unwrap()]
        );
        assert!(!config.net_policy.permits("93.184.216.34".parse().unwrap()));
        let proxies: Vec<String> = config
            .trusted_proxies
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(proxies, ["10.0.0.0/8", "192.0.2.7/32"]);
    }

    #[test]
    fn test_settings() {
        let mut pairs = PAYMENT.to_vec();
        pairs.extend([
            ("FACILITATOR_URL", "http://127.0.0.1:9000"),
            ("ALLOW_PRIVATE_CIDRS", "127.0.0.0/8, ::1/128"),
            ("RESOLVE", "shop.test=127.0.0.1,Other.test=::1"),
            ("ALLOWED_PORTS", "80,443,18080"),
            ("X402_NETWORK", "eip155:84532"),
            ("PRICE_USD", "0.05"),
            ("LOG_FORMAT", "pretty"),
            ("CHAIN_RPC_URL", "none"),
        ]);
        let config = Config::from_env_map(&vars(&pairs)).unwrap();
        assert_eq!(config.warnings.len(), 2);
        assert_eq!(
            config.resolve.get("other.test"),
            Some(&"::1".parse().unwrap())
        );
        assert_eq!(config.net_policy.allowed_ports, [80, 443, 18080]);
        let PaymentConfig::Ready { terms, .. } = config.payment else {
            panic!("ready")
        };
        assert_eq!(
            (
                terms.requirements.asset.as_str(),
                terms.requirements.extra.name.as_str()
            ),
            (BASE_SEPOLIA_USDC, "USDC")
        );
        assert_eq!(terms.requirements.amount, "50000");
    }
}
