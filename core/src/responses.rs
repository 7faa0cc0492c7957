//! The responses the paid route and the free routes send, built from values only (no
//! exchange state): the free routes' documents, the 402 with our requirements, the paid 200 of
//! a kept result, JSON errors, and the messages of homepage failures.

use crate::api::Failure;
use crate::config::{Config, PaymentConfig};
use crate::discovery;
use crate::http::response::{preflight, Response};
use crate::http::routes::Route;
use crate::payment::codec;
use crate::payment::offer_receipt::{self, OfferSigner};
use crate::payment::requirements::PaymentTerms;
use crate::payment::store::KeptResponse;

/// The 200 of `/api/ready` with payments configured: the configuration's warnings, then
/// `more` (the problems of facilitators other than a healthy one).
pub(crate) fn ready_response(config: &Config, more: Vec<String>) -> Response {
    let warnings: Vec<String> = readiness_warnings(config)
        .into_iter()
        .map(str::to_string)
        .chain(more)
        .collect();
    let body = serde_json::json!({"status": "ready", "warnings": warnings});
    Response::json(200, serde_json::to_vec(&body).unwrap_or_default())
}

/// The answer of a free route (`None` for the paid one).
pub(crate) fn free_response(config: &Config, route: Route) -> Option<Response> {
    let payment = &config.payment;
    let terms = match payment {
        PaymentConfig::Ready { terms, .. } => Some(terms.as_ref()),
        PaymentConfig::Incomplete(_) => None,
    };
    let json = |value: serde_json::Value| {
        Response::json(200, serde_json::to_vec(&value).unwrap_or_default())
    };
    Some(match route {
        // HealthStatus (spec §2: `status` required, further fields allowed) with the version
        // of this build, for an operator checking what a rolling upgrade left running.
        Route::Health => json(serde_json::json!({"status": "ok", "version": crate::VERSION})),
        Route::Ready => match payment {
            PaymentConfig::Ready { .. } => ready_response(config, Vec::new()),
            PaymentConfig::Incomplete(problems) => Response::json(
                503,
                serde_json::to_vec(
                    &serde_json::json!({"status": "not ready", "problems": problems}),
                )
                .unwrap_or_default(),
            ),
        },
        Route::OpenApi => {
            let base = terms.map(|t| {
                t.resource
                    .url
                    .trim_end_matches(discovery::EXTRACT_PATH)
                    .to_string()
            });
            let email = config.operator_email.as_deref();
            let mut document = discovery::openapi_document(base.as_deref(), terms, email);
            if let Some(signer) = &config.offer_signer {
                document["info"]["x-x402-offer-receipt"] = offer_signer_declaration(config, signer);
            }
            json(document)
        }
        Route::X402Discovery => {
            let mut document = discovery::x402_document(terms);
            if let Some(signer) = &config.offer_signer {
                document["items"][0]["extensions"][offer_receipt::EXTENSION_KEY] =
                    serde_json::json!({"info": offer_signer_declaration(config, signer)});
            }
            json(document)
        }
        Route::X402Resources => {
            let mut document = discovery::x402_resources(terms);
            if let Some(signer) = &config.offer_signer {
                document["offerReceipt"] = offer_signer_declaration(config, signer);
            }
            json(document)
        }
        Route::McpDiscovery => json(discovery::mcp_document(terms)),
        Route::Preflight => preflight(),
        Route::ExtractContact => return None,
    })
}

/// Who signs this service's offers and receipts, now and before (x402 offer-receipt, spec
/// §4.5.1: the keys a verifier can check a signature against, published by the service
/// itself; `RECEIPT_PREVIOUS_SIGNERS`).
fn offer_signer_declaration(config: &Config, signer: &OfferSigner) -> serde_json::Value {
    offer_receipt::signer_declaration(signer, &config.receipt_previous_signers)
}

/// The `ApiError` message of a failed homepage. A homepage is fetched only after `/verify`:
/// a facilitator has seen the authorization, so the words say "this request changed nothing",
/// never "nothing was charged" (docs/payments.md, "Words match facts").
pub(crate) fn failure_message(failure: &Failure) -> String {
    match failure {
        Failure::BlockedResolution => {
            "the site resolves to a private or reserved address".to_string()
        }
        Failure::FetchFailed => {
            "the site could not be fetched (DNS, connection, TLS, HTTP status or redirects)"
                .to_string()
        }
        Failure::UnsupportedContentType => "the homepage is not HTML".to_string(),
        Failure::ResponseTooLarge => "the homepage is larger than 2 MiB".to_string(),
        Failure::TooCostly => format!(
            "the homepage was too costly to process (over the {} s work budget per page); \
             this request changed nothing",
            crate::budget::PAGE_WORK_BUDGET.as_secs()
        ),
        Failure::Timeout => "the site did not answer before the deadline".to_string(),
        Failure::Internal => {
            "an internal error occurred while extracting the page; this request changed nothing"
                .to_string()
        }
        _ => "the request failed".to_string(),
    }
}

/// A 402 carrying our requirements, with `reason` as the `error`.
pub fn payment_required_response(
    terms: &PaymentTerms,
    reason: &str,
    extensions: serde_json::Value,
) -> Response {
    let required = terms.payment_required(reason, Some(extensions));
    Response::json(402, serde_json::to_vec(&required).unwrap_or_default())
        .with_header("PAYMENT-REQUIRED", codec::encode(&required))
        .with_header("Cache-Control", "no-store")
}

/// The paid 200 of a kept response: the body as built before `/settle`, `PAYMENT-RESPONSE`
/// and `Cache-Control: private` (docs/payments.md).
pub(crate) fn paid_response(kept: &KeptResponse) -> Response {
    let mut response = Response::json(200, kept.body.to_vec())
        .with_header("Cache-Control", "private")
        .with_header("Content-Digest", content_digest(&kept.body));
    if let Some(answer) = &kept.settlement {
        response = response.with_header("PAYMENT-RESPONSE", codec::encode(answer));
    }
    response
}

/// The `Content-Digest` field of `body` (RFC 9530): `sha-256=:` base64 of its SHA-256 `:`,
/// so a receipt, the body and a log line can be tied together by a third party.
pub fn content_digest(body: &[u8]) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(body);
    format!(
        "sha-256=:{}:",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// A JSON response of `body`.
pub(crate) fn json_response<T: serde::Serialize>(status: u16, body: &T) -> Response {
    Response::json(status, serde_json::to_vec(body).unwrap_or_default())
}

/// What this configuration costs a payer or the operator on a bad day, for `/api/ready`'s
/// `warnings` (docs/payments.md, docs/operations.md): ready, but with less safety than it could
/// have.
pub(crate) fn readiness_warnings(config: &Config) -> Vec<&'static str> {
    let mut warnings = Vec::new();
    if config.chain_rpc.is_none() {
        warnings.push(
            "no chain judge (CHAIN_RPC_URL=none, or a network without a public RPC): an unknown settlement outcome stays unknown (503) until its record expires; \"already used\" after a /settle of ours that may have broadcast counts as paid, so a payer who cancels while our transfer is pending gets that result free; an authorization used on chain whose record was lost is answered 503 \"payment outcome unknown\" and left to the operator (audit: unreconciled), and its retry with less than the minimum window left is a 402 (x402 clients pay again)",
        );
    }
    if config.redis_url.is_none() {
        warnings.push(
            "REDIS_URL is not set: the payment store lives in this process, and a restart forgets kept results and unknown settlements",
        );
    }
    warnings
}
