//! The request lifecycle without sockets: the unpaid 402 path through a whole `Exchange`
//! (requests/s per core), local payment verification (EIP-712 digest + ECDSA recovery), and
//! request-head parsing.
//!
//! `cargo bench -p contact-benches --bench lifecycle`

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use contact_core::config::{Config, PaymentConfig};
use contact_core::http::request::try_parse;
use contact_core::io::{Input, Output};
use contact_core::payment::{codec, verify, PaymentPayload};
use contact_core::server::Server;
use divan::counter::ItemsCount;
use divan::Bencher;

fn main() {
    divan::main();
}

fn server() -> Server {
    server_with(None)
}

/// A server whose 402s carry signed offers (x402 offer-receipt), signed with a test key.
fn server_signing_offers() -> Server {
    let signer = contact_core::payment::offer_receipt::OfferSigner::from_hex(
        "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    server_with(Some(signer))
}

fn server_with(signer: Option<contact_core::payment::offer_receipt::OfferSigner>) -> Server {
    let vars: BTreeMap<String, String> = [
        ("PUBLIC_BASE_URL", "https://contacts.example.com"),
        ("PAY_TO", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
        ("FACILITATOR_URL", "https://facilitator.example.com"),
        ("X402_MAX_TIMEOUT_SECONDS", "64"),
        ("RATE_LIMIT_PER_MINUTE", "1000000000"),
        ("RATE_LIMIT_BURST", "1000000000"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let mut config = Config::from_env_map(&vars).unwrap_or_else(|e| panic!("{e}"));
    config.offer_signer = signer;
    Server::new(
        config,
        [1; 32],
        Instant::now(),
        Duration::from_secs(1_800_000_000),
    )
}

const UNPAID: &[u8] = b"POST /api/v1/extract-contact HTTP/1.1\r\nHost: contacts.example.com\r\nContent-Type: application/json\r\nContent-Length: 35\r\n\r\n{\"url\":\"https://www.example.com/a\"}";

/// One keep-alive request answered with a 402 (head parse, routing, rate limit, body and URL
/// checks, requirements, base64 header, JSON body, access-log event).
#[divan::bench(sample_count = 20, sample_size = 1000)]
fn unpaid_402(bencher: Bencher) {
    unpaid_402_of(bencher, &server());
}

/// The same with signed offers in every 402 (signed once per server, not per request).
#[divan::bench(sample_count = 20, sample_size = 1000)]
fn unpaid_402_with_signed_offers(bencher: Bencher) {
    unpaid_402_of(bencher, &server_signing_offers());
}

fn unpaid_402_of(bencher: Bencher, server: &Server) {
    let now = Instant::now();
    let peer = "203.0.113.9:5000"
        .parse()
        .unwrap_or_else(|_| unreachable!());
    let mut exchange = contact_core::exchange::Exchange::accept(server, peer, now);
    bencher.counter(ItemsCount::new(1usize)).bench_local(|| {
        exchange.handle_input(Input::ClientData(UNPAID), now);
        let mut bytes = 0;
        while let Some(output) = exchange.poll_output() {
            if let Output::SendToClient(b) = output {
                bytes += b.len();
            }
        }
        assert!(bytes > 1000);
    });
}

const OFFICIAL_HEADER: &str = include_str!("../../fuzz/corpus/payment_header/official");

/// Decoding the official client's `PAYMENT-SIGNATURE` and verifying it locally.
#[divan::bench]
fn verify_payment(bencher: Bencher) {
    let server = server();
    let PaymentConfig::Ready { terms, .. } = &server.config().payment else {
        unreachable!()
    };
    // The official vector was signed for `maxTimeoutSeconds` 60 (below today's configurable
    // minimum): requirements are matched by value.
    let mut requirements = terms.requirements.clone();
    requirements.max_timeout_seconds = 60;
    bencher.bench_local(|| {
        let payment: PaymentPayload =
            codec::decode(OFFICIAL_HEADER).unwrap_or_else(|e| panic!("{e}"));
        verify::verify_locally(&payment, &requirements, 1_899_999_900)
            .unwrap_or_else(|e| panic!("{e}"))
    });
}

/// Parsing a request head.
#[divan::bench]
fn parse_head(bencher: Bencher) {
    bencher.bench(|| try_parse(divan::black_box(UNPAID)));
}
