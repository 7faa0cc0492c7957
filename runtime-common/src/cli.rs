//! The command-line settings every runtime's binary takes: `serve`'s and the outbound fetch
//! and log settings (each an environment variable or the `--flag` of the same name), turned
//! into the map `contact_core::config::Config::from_env_map` reads.

/// `serve` settings (docs/configuration.md). `--help` shows each variable's value from the
/// environment except those that may carry a secret (`FACILITATOR_URL`, `CHAIN_RPC_URL`,
/// `REDIS_URL`: a key in a query or path, a password).
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Listen address (default 0.0.0.0:8080).
    #[arg(long, env = "BIND_ADDR")]
    pub bind_addr: Option<String>,
    /// Public https base URL of this service (resource URL of the 402 and the discovery documents;
    /// default unset: payments off).
    #[arg(long, env = "PUBLIC_BASE_URL")]
    pub public_base_url: Option<String>,
    /// Address that receives payments (default unset: payments off).
    #[arg(long, env = "PAY_TO")]
    pub pay_to: Option<String>,
    /// x402 facilitator base URL(s), comma-separated in order of preference (https; http only
    /// for loopback; default unset: payments off, but https://x402.org/facilitator on Base Sepolia).
    #[arg(long, env = "FACILITATOR_URL", hide_env_values = true)]
    pub facilitator_url: Option<String>,
    /// File holding one header line sent on every facilitator call (`X-API-Key: …`; a relative
    /// path is read from $CREDENTIALS_DIRECTORY when set; default unset).
    #[arg(long, env = "FACILITATOR_AUTH_HEADER_FILE")]
    pub facilitator_auth_header_file: Option<String>,
    /// Coinbase Developer Platform API key id (with CDP_API_KEY_SECRET_FILE; default unset).
    #[arg(long, env = "CDP_API_KEY_ID")]
    pub cdp_api_key_id: Option<String>,
    /// File holding the CDP API key's secret (PEM EC P-256, or base64 Ed25519; a relative path
    /// is read from $CREDENTIALS_DIRECTORY when set; default unset).
    #[arg(long, env = "CDP_API_KEY_SECRET_FILE")]
    pub cdp_api_key_secret_file: Option<String>,
    /// Price per request in USD (default 0.01).
    #[arg(long, env = "PRICE_USD")]
    pub price_usd: Option<String>,
    /// CAIP-2 network (default eip155:8453).
    #[arg(long, env = "X402_NETWORK")]
    pub x402_network: Option<String>,
    /// Token contract (default Base mainnet USDC).
    #[arg(long, env = "X402_ASSET")]
    pub x402_asset: Option<String>,
    /// EIP-712 domain name of the token (default "USD Coin").
    #[arg(long, env = "X402_ASSET_NAME")]
    pub x402_asset_name: Option<String>,
    /// EIP-712 domain version of the token (default "2").
    #[arg(long, env = "X402_ASSET_VERSION")]
    pub x402_asset_version: Option<String>,
    /// Seconds an authorization may stay valid (default 120).
    #[arg(long, env = "X402_MAX_TIMEOUT_SECONDS")]
    pub x402_max_timeout_seconds: Option<String>,
    /// Requests a minute per client (default 60).
    #[arg(long, env = "RATE_LIMIT_PER_MINUTE")]
    pub rate_limit_per_minute: Option<String>,
    /// Burst per client (default 20).
    #[arg(long, env = "RATE_LIMIT_BURST")]
    pub rate_limit_burst: Option<String>,
    /// Paid jobs in flight at once (default 256).
    #[arg(long, env = "MAX_CONCURRENT_JOBS")]
    pub max_concurrent_jobs: Option<String>,
    /// Open client connections at once; more are closed at accept (default 10000).
    #[arg(long, env = "MAX_CONNECTIONS")]
    pub max_connections: Option<String>,
    /// Open client connections from one address (default 256; trusted proxies exempt).
    #[arg(long, env = "MAX_CONNECTIONS_PER_IP")]
    pub max_connections_per_ip: Option<String>,
    /// Proxies whose X-Forwarded-For gives the client address (CIDR list; default none).
    #[arg(long, env = "TRUSTED_PROXIES")]
    pub trusted_proxies: Option<String>,
    /// Bytes of page data held at once across all jobs (default 512MiB).
    #[arg(long, env = "MAX_PAGE_MEMORY")]
    pub max_page_memory: Option<String>,
    /// Trusted proxies send the PROXY protocol header (v1/v2) first (default false).
    #[arg(long, env = "PROXY_PROTOCOL")]
    pub proxy_protocol: Option<String>,
    /// Address of the Prometheus `GET /metrics` listener (default off).
    #[arg(long, env = "METRICS_ADDR")]
    pub metrics_addr: Option<String>,
    /// JSON-RPC endpoint of the payment network, to read the chain after an unknown
    /// settlement outcome (default the network's public RPC on Base and Base Sepolia, else unset).
    #[arg(long, env = "CHAIN_RPC_URL", hide_env_values = true)]
    pub chain_rpc_url: Option<String>,
    /// Blocks per eth_getLogs call when the chain is read (default 10000).
    #[arg(long, env = "CHAIN_LOG_RANGE")]
    pub chain_log_range: Option<String>,
    /// The operator's contact address, in the OpenAPI document's `info.contact` (default unset).
    #[arg(long, env = "OPERATOR_EMAIL")]
    pub operator_email: Option<String>,
    /// An https icon for x402 catalogues (Bazaar `iconUrl`; default unset).
    #[arg(long, env = "ICON_URL")]
    pub icon_url: Option<String>,
    /// The Redis shared by several instances (`redis://host:port`; default unset: in-process).
    #[arg(long, env = "REDIS_URL", hide_env_values = true)]
    pub redis_url: Option<String>,
    /// PEM file of the CA that signed Redis's TLS certificate (with rediss://; default unset:
    /// the webpki roots).
    #[arg(long, env = "REDIS_CA_FILE")]
    pub redis_ca_file: Option<String>,
    /// The namespace of this service's keys in Redis (default contact-extract).
    #[arg(long, env = "REDIS_PREFIX")]
    pub redis_prefix: Option<String>,
    /// Redis Sentinel: the sentinels' host:port list, asked for the current primary (default
    /// none: REDIS_URL names the one node).
    #[arg(long, env = "REDIS_SENTINELS")]
    pub redis_sentinels: Option<String>,
    /// The name the sentinels watch the primary under (default none; needed with
    /// REDIS_SENTINELS).
    #[arg(long, env = "REDIS_SENTINEL_MASTER")]
    pub redis_sentinel_master: Option<String>,
    /// File holding the secp256k1 key (hex) that signs x402 offers and receipts (a relative path
    /// is read from $CREDENTIALS_DIRECTORY when set; default unset: off).
    #[arg(long, env = "RECEIPT_SIGNING_KEY_FILE")]
    pub receipt_signing_key_file: Option<String>,
    /// Keys that signed receipts before the current one, published so their receipts still
    /// verify: ADDRESS:VALID_FROM:VALID_UNTIL (unix seconds), comma-separated (default none).
    #[arg(long, env = "RECEIPT_PREVIOUS_SIGNERS")]
    pub receipt_previous_signers: Option<String>,
    /// File holding the Redis password, used instead of one in REDIS_URL (a relative path is
    /// read from $CREDENTIALS_DIRECTORY when set; default unset).
    #[arg(long, env = "REDIS_PASSWORD_FILE")]
    pub redis_password_file: Option<String>,
    /// File the audit lines (the record of every settlement) are appended to (default unset:
    /// stderr, with the other lines).
    #[arg(long, env = "AUDIT_LOG")]
    pub audit_log: Option<std::path::PathBuf>,
    /// Threads of the async runtime that do the IO (1–1024; default 1; SMOL_THREADS is read
    /// when unset).
    #[arg(long, env = "IO_THREADS")]
    pub io_threads: Option<String>,
    /// Threads that decode and extract pages and build results (1–1024; default the number of
    /// cores).
    #[arg(long, env = "WORKER_THREADS")]
    pub worker_threads: Option<String>,
    #[command(flatten)]
    pub fetch: FetchArgs,
}

/// Settings of outbound fetches and logging, shared by `serve` and `extract`.
#[derive(clap::Args, Debug)]
pub struct FetchArgs {
    /// Ports a target URL may use (default 80,443,8000,8080,8443).
    #[arg(long, env = "ALLOWED_PORTS")]
    pub allowed_ports: Option<String>,
    /// Ranges exempted from the SSRF block list (tests only; logged as a warning; default none).
    #[arg(long, env = "ALLOW_PRIVATE_CIDRS")]
    pub allow_private_cidrs: Option<String>,
    /// Static DNS answers, host=ip,… (like curl's --resolve; default none).
    #[arg(long, env = "RESOLVE")]
    pub resolve: Option<String>,
    /// Log line format: json or pretty (default json).
    #[arg(long, env = "LOG_FORMAT")]
    pub log_format: Option<String>,
}

impl FetchArgs {
    /// The settings as `(variable, value)` pairs.
    pub fn pairs(&self) -> [(&'static str, &Option<String>); 4] {
        [
            ("ALLOWED_PORTS", &self.allowed_ports),
            ("ALLOW_PRIVATE_CIDRS", &self.allow_private_cidrs),
            ("RESOLVE", &self.resolve),
            ("LOG_FORMAT", &self.log_format),
        ]
    }
}

/// Settings given as `(variable, value)`: the ones set, for `Config::from_env_map`.
pub fn to_map<'a>(
    pairs: impl IntoIterator<Item = (&'static str, &'a Option<String>)>,
) -> std::collections::BTreeMap<String, String> {
    pairs
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k.to_string(), v.clone())))
        .collect()
}

impl ServeArgs {
    /// The settings given, for `Config::from_env_map`.
    pub fn to_map(&self) -> std::collections::BTreeMap<String, String> {
        let pairs = [
            ("BIND_ADDR", &self.bind_addr),
            ("PUBLIC_BASE_URL", &self.public_base_url),
            ("PAY_TO", &self.pay_to),
            ("FACILITATOR_URL", &self.facilitator_url),
            (
                "FACILITATOR_AUTH_HEADER_FILE",
                &self.facilitator_auth_header_file,
            ),
            ("CDP_API_KEY_ID", &self.cdp_api_key_id),
            ("CDP_API_KEY_SECRET_FILE", &self.cdp_api_key_secret_file),
            ("PRICE_USD", &self.price_usd),
            ("X402_NETWORK", &self.x402_network),
            ("X402_ASSET", &self.x402_asset),
            ("X402_ASSET_NAME", &self.x402_asset_name),
            ("X402_ASSET_VERSION", &self.x402_asset_version),
            ("X402_MAX_TIMEOUT_SECONDS", &self.x402_max_timeout_seconds),
            ("RATE_LIMIT_PER_MINUTE", &self.rate_limit_per_minute),
            ("RATE_LIMIT_BURST", &self.rate_limit_burst),
            ("MAX_CONCURRENT_JOBS", &self.max_concurrent_jobs),
            ("MAX_CONNECTIONS", &self.max_connections),
            ("MAX_CONNECTIONS_PER_IP", &self.max_connections_per_ip),
            ("TRUSTED_PROXIES", &self.trusted_proxies),
            ("METRICS_ADDR", &self.metrics_addr),
            ("MAX_PAGE_MEMORY", &self.max_page_memory),
            ("PROXY_PROTOCOL", &self.proxy_protocol),
            ("CHAIN_RPC_URL", &self.chain_rpc_url),
            ("CHAIN_LOG_RANGE", &self.chain_log_range),
            ("OPERATOR_EMAIL", &self.operator_email),
            ("ICON_URL", &self.icon_url),
            ("REDIS_URL", &self.redis_url),
            ("REDIS_CA_FILE", &self.redis_ca_file),
            ("REDIS_PREFIX", &self.redis_prefix),
            ("REDIS_SENTINELS", &self.redis_sentinels),
            ("REDIS_SENTINEL_MASTER", &self.redis_sentinel_master),
            ("RECEIPT_SIGNING_KEY_FILE", &self.receipt_signing_key_file),
            ("RECEIPT_PREVIOUS_SIGNERS", &self.receipt_previous_signers),
        ];
        to_map(pairs.into_iter().chain(self.fetch.pairs()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    /// `serve --help` names the default of every setting (its flag's help says "default").
    #[test]
    fn every_serve_flag_names_its_default() {
        use clap::CommandFactory as _;
        let command = Cli::command();
        let mut flags = 0;
        for arg in command.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if long == "help" {
                continue;
            }
            flags += 1;
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            assert!(
                help.contains("default"),
                "--{long}: {help:?} names no default"
            );
        }
        assert!(flags > 30, "{flags}");
    }

    /// Every environment variable the code reads (a clap `env`, a `std::env::var`, or a
    /// variable of the configuration) is a row of docs/configuration.md's settings table.
    #[test]
    fn every_variable_the_code_reads_is_in_the_configuration_table() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let docs = std::fs::read_to_string(root.join("docs/configuration.md")).unwrap();
        let mut in_table = std::collections::BTreeSet::new();
        for row in docs.lines().filter(|l| l.starts_with("| `")) {
            // variable | `serve` flag | default | meaning
            let flag = row.split(" | ").nth(1).unwrap_or_default();
            assert!(
                flag.starts_with("`--") || flag.starts_with('—'),
                "a row without its serve flag column: {row}"
            );
            let first = row.split('|').nth(1).unwrap_or_default();
            for (n, part) in first.split('`').enumerate() {
                if n % 2 == 1 {
                    in_table.insert(part.to_string());
                }
            }
        }
        let mut read: std::collections::BTreeSet<String> = contact_core::config::VARIABLES
            .iter()
            .map(ToString::to_string)
            .collect();
        let mut files = Vec::new();
        for dir in [
            "core/src",
            "runtime-common/src",
            "runtime-smol/src",
            "runtime-tokio/src",
        ] {
            let mut stack = vec![root.join(dir)];
            while let Some(dir) = stack.pop() {
                for entry in std::fs::read_dir(&dir).unwrap() {
                    let path = entry.unwrap().path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if path.extension().is_some_and(|e| e == "rs") {
                        files.push(path);
                    }
                }
            }
        }
        assert!(files.len() > 50, "{}", files.len());
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for marker in ["env = \"", "env::var(\"", "env::var_os(\""] {
                for (n, piece) in text.split(marker).enumerate() {
                    if n > 0 {
                        let name: String = piece.chars().take_while(|c| *c != '"').collect();
                        read.insert(name);
                    }
                }
            }
        }
        for expected in [
            "IO_THREADS",
            "WORKER_THREADS",
            "SMOL_THREADS",
            "RUNTIME",
            "AUDIT_LOG",
        ] {
            assert!(read.contains(expected), "{expected} not found in the code");
        }
        let missing: Vec<_> = read.difference(&in_table).collect();
        assert!(
            missing.is_empty(),
            "not in docs/configuration.md's table: {missing:?}"
        );
    }

    /// Every variable the configuration reads is a `serve` setting (flag and environment), so
    /// none is silently ignored by the binary.
    #[test]
    fn every_configuration_variable_is_a_serve_setting() {
        for variable in contact_core::config::VARIABLES {
            let flag = format!("--{}", variable.to_ascii_lowercase().replace('_', "-"));
            let cli = Cli::try_parse_from(["serve", flag.as_str(), "value"])
                .unwrap_or_else(|e| panic!("{variable}: {e}"));
            assert_eq!(
                cli.serve.to_map().get(*variable).map(String::as_str),
                Some("value"),
                "{variable}"
            );
        }
    }
}
