//! `sign-payment NONCE`: prints a `PAYMENT-SIGNATURE` for the service configured by the same
//! environment variables as `contact-extract serve` (`PAY_TO`, `PUBLIC_BASE_URL`, `PRICE_USD`,
//! `X402_*`…), signed with the public hardhat test key #0 (x402-notes §6), valid from now for
//! 60 s, with `NONCE` (0–255) as the last byte of the EIP-3009 nonce. For the load scripts
//! (`benches/load/`) on loopback only: the key is public, the money is not real.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use contact_core::config::{Config, PaymentConfig};
use contact_core::testing::sim::payment_header;

fn main() -> ExitCode {
    let Some(Ok(nonce)) = std::env::args().nth(1).map(|n| n.parse::<u8>()) else {
        eprintln!("usage: sign-payment NONCE   (0-255; settings from the environment)");
        return ExitCode::from(2);
    };
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
    println!(
        "{}",
        payment_header(&terms.requirements, nonce, 0, now + 60)
    );
    ExitCode::SUCCESS
}
