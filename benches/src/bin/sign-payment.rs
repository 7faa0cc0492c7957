//! `sign-payment NONCE [COUNT]`: prints a `PAYMENT-SIGNATURE` for the service configured by the
//! same environment variables as `contact-extract serve` (`PAY_TO`, `PUBLIC_BASE_URL`,
//! `PRICE_USD`, `X402_*`…), signed with the public hardhat test key #0 (docs/payments.md "x402 v2 in practice"), valid
//! from now for 60 s (`VALID_SECONDS` to change it), with `NONCE` (a 64-bit number) as the last
//! 8 bytes of the EIP-3009 nonce; with `COUNT`, one line each for `NONCE`, `NONCE + 1`, …. For the load scripts
//! (`benches/load/`) on loopback only: the key is public, the money is not real.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use contact_core::config::{Config, PaymentConfig};
use contact_core::testing::sim::payment_header_wide;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(Ok(nonce)), Ok(count)) = (
        args.first().map(|n| n.parse::<u64>()),
        args.get(1).map_or(Ok(1), |c| c.parse::<u64>()),
    ) else {
        eprintln!("usage: sign-payment NONCE [COUNT]   (settings from the environment)");
        return ExitCode::from(2);
    };
    let valid_seconds = std::env::var("VALID_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(60);
    let config = match Config::from_env_map(&std::env::vars().collect()) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("sign-payment: invalid configuration: {error}");
            return ExitCode::from(2);
        }
    };
    let PaymentConfig::Ready { terms, .. } = &config.payment else {
        eprintln!(
            "sign-payment: payments are not configured (PAY_TO, PUBLIC_BASE_URL, FACILITATOR_URL)"
        );
        return ExitCode::from(2);
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    for n in nonce..nonce.saturating_add(count) {
        println!(
            "{}",
            payment_header_wide(&terms.requirements, n, 0, now + valid_seconds)
        );
    }
    ExitCode::SUCCESS
}
