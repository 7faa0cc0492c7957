//! Discovery documents (docs/contract.md): `/openapi.json` (OpenAPI 3.1),
//! `/.well-known/x402.json` (payment metadata; docs/payments.md "x402 v2 in practice") and `/.well-known/mcp.json`
//! (metadata-only description of the `contact.extract` capability), plus the `bazaar`
//! extension carried in every 402 (docs/payments.md "x402 v2 in practice"). All are built from configuration only,
//! so they are identical on every request.

use serde_json::{json, Value};

use crate::payment::identifier;
use crate::payment::requirements::{usd_price, PaymentTerms};

/// The interface description version (docs/contract.md).
pub const API_VERSION: &str = "0.1.0";
/// The paid route.
pub const EXTRACT_PATH: &str = "/api/v1/extract-contact";

/// JSON Schema of `ExtractContactRequest`.
pub fn request_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "url": {"type": "string", "maxLength": 2048, "format": "uri",
                    "description": "Public http or https business website URL"}
        },
        "required": ["url"],
        "additionalProperties": false
    })
}

/// JSON Schema of `ContactExtractionResult` (docs/contract.md).
pub fn result_schema() -> Value {
    let sourced = json!({
        "type": "object",
        "properties": {"value": {"type": "string"}, "sourceUrl": {"type": "string"}},
        "required": ["value", "sourceUrl"]
    });
    let strings = json!({"type": "array", "items": {"type": "string"}});
    json!({
        "type": "object",
        "properties": {
            "success": {"type": "boolean"},
            "inputUrl": {"type": "string"},
            "domain": {"type": "string"},
            "companyName": {"type": ["string", "null"]},
            "emails": {"type": "array", "items": sourced},
            "phones": {"type": "array", "items": sourced, "description": "E.164 numbers"},
            "socials": {
                "type": "object",
                "properties": {"linkedin": strings, "facebook": strings, "instagram": strings, "x": strings, "youtube": strings},
                "required": ["linkedin", "facebook", "instagram", "x", "youtube"]
            },
            "addresses": {"type": "array", "items": {
                "type": "object",
                "description": "schema.org PostalAddress",
                "properties": {
                    "streetAddress": {"type": "string"}, "addressLocality": {"type": "string"},
                    "addressRegion": {"type": "string"}, "postalCode": {"type": "string"},
                    "addressCountry": {"type": "string"}, "sourceUrl": {"type": "string"}
                },
                "required": ["sourceUrl"]
            }},
            "contactPages": strings,
            "pagesScanned": strings,
            "meta": {
                "type": "object",
                "properties": {"pagesFetched": {"type": "number"}, "durationMs": {"type": "number", "description": "milliseconds"}},
                "required": ["pagesFetched", "durationMs"]
            },
            "requestId": {"type": "string"}
        },
        "required": ["success", "inputUrl", "domain", "companyName", "emails", "phones", "socials",
                     "addresses", "contactPages", "pagesScanned", "meta", "requestId"]
    })
}

fn api_error_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "success": {"type": "boolean", "const": false},
            "error": {"type": "object", "properties": {
                "code": {"type": "string", "enum": ["INVALID_URL", "PRIVATE_ADDRESS", "FETCH_FAILED",
                    "UNSUPPORTED_CONTENT_TYPE", "RESPONSE_TOO_LARGE", "TIMEOUT", "RATE_LIMITED", "INTERNAL_ERROR"]},
                "message": {"type": "string"}
            }, "required": ["code", "message"]},
            "requestId": {"type": "string"}
        },
        "required": ["success", "error", "requestId"]
    })
}

fn example_result() -> Value {
    json!({
        "success": true, "inputUrl": "https://www.example.com", "domain": "example.com",
        "companyName": "Example Ltd",
        "emails": [{"value": "info@example.com", "sourceUrl": "https://www.example.com/contact"}],
        "phones": [{"value": "+442085516580", "sourceUrl": "https://www.example.com/"}],
        "socials": {"linkedin": ["https://linkedin.com/company/example"], "facebook": [], "instagram": [], "x": [], "youtube": []},
        "addresses": [{"streetAddress": "1 High Street", "addressLocality": "London", "postalCode": "NW3 6DN", "sourceUrl": "https://www.example.com/contact"}],
        "contactPages": ["https://www.example.com/contact"],
        "pagesScanned": ["https://www.example.com/", "https://www.example.com/contact"],
        "meta": {"pagesFetched": 2, "durationMs": 840},
        "requestId": "req_01JD6Z8K3Q4W5E6R7T8Y9U0I1O"
    })
}

/// The `bazaar` extension of the 402 (docs/payments.md "x402 v2 in practice").
pub fn bazaar_extension() -> Value {
    json!({
        "bazaar": {
            "info": {
                "input": {"type": "http", "method": "POST", "bodyType": "json", "body": {"url": "https://www.example.com"}},
                "output": {"type": "json", "example": example_result()}
            },
            "schema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "input": {
                        "type": "object",
                        "properties": {
                            "type": {"type": "string", "const": "http"},
                            "method": {"type": "string", "enum": ["POST"]},
                            "bodyType": {"type": "string", "enum": ["json"]},
                            "body": request_schema()
                        },
                        "required": ["type", "method", "bodyType", "body"],
                        "additionalProperties": false
                    },
                    "output": {
                        "type": "object",
                        "properties": {"type": {"type": "string"}, "example": {"type": "object"}},
                        "required": ["type"]
                    }
                },
                "required": ["input"]
            }
        }
    })
}

/// The `extensions` of every 402 and of `/.well-known/x402.json`: `bazaar` and
/// `payment-identifier` with `required: false` (docs/payments.md "x402 v2 in practice").
pub fn payment_extensions() -> Value {
    let mut extensions = bazaar_extension();
    extensions[identifier::EXTENSION] = identifier::declaration();
    extensions
}

/// `/.well-known/x402.json`: the paid resource, its `accepts` (empty while payments are not
/// configured), description and input/output schemas.
pub fn x402_document(terms: Option<&PaymentTerms>) -> Value {
    json!({
        "x402Version": 2,
        "items": [{
            "resource": terms.map_or_else(|| EXTRACT_PATH.to_string(), |t| t.resource.url.clone()),
            "type": "http",
            "description": terms.map(|t| t.resource.description.clone()),
            "accepts": terms.map(|t| vec![t.requirements.clone()]).unwrap_or_default(),
            "input": {"method": "POST", "bodyType": "json", "schema": request_schema()},
            "output": {"mimeType": "application/json", "schema": result_schema()},
            "extensions": payment_extensions()
        }]
    })
}

/// `/.well-known/mcp.json`: a metadata-only description of the capability `contact.extract`,
/// which is invoked through the paid HTTP endpoint (not a second execution route).
pub fn mcp_document(terms: Option<&PaymentTerms>) -> Value {
    json!({
        "name": "contact-extract",
        "version": API_VERSION,
        "capabilities": [{
            "name": "contact.extract",
            "description": "Fetch a public business website (homepage and up to 3 contact/about/support pages) and return its public contact data: company name, emails, E.164 phones, social profiles, postal addresses, contact pages.",
            "inputSchema": request_schema(),
            "outputSchema": result_schema(),
            "price": terms.map(|t| json!({
                "amount": t.requirements.amount, "asset": t.requirements.asset,
                "network": t.requirements.network, "decimals": 6, "currency": "USDC"
            })),
            "invocation": {
                "transport": "http",
                "method": "POST",
                "url": terms.map_or_else(|| EXTRACT_PATH.to_string(), |t| t.resource.url.clone()),
                "payment": {"protocol": "x402", "x402Version": 2, "scheme": "exact",
                            "requestHeader": "PAYMENT-SIGNATURE", "challengeHeader": "PAYMENT-REQUIRED",
                            "receiptHeader": "PAYMENT-RESPONSE"}
            }
        }]
    })
}

/// How an agent should call the service: `info.x-guidance` of `/openapi.json` (the layout
/// x402scan reads).
pub const GUIDANCE: &str = "POST /api/v1/extract-contact with {\"url\": \"https://www.example.com/\"} (a public http(s) business website). The first answer is 402 with PAYMENT-REQUIRED (x402 v2, scheme exact, USDC on Base): sign it with an x402 client and send the same request again with PAYMENT-SIGNATURE. The 200 is ContactExtractionResult (emails, E.164 phones, socials, schema.org PostalAddress, contact pages) with PAYMENT-RESPONSE. A failure before settlement (400, 422, 5xx) is never charged. On 503 \"settlement pending\", retry with the same PAYMENT-SIGNATURE after Retry-After: it never charges twice.";

/// The paid operation's `x-payment-info` (x402scan's layout): a fixed price in USD and the x402
/// protocol, plus the exact `accepts` for clients that read them.
fn payment_info(terms: &PaymentTerms) -> Value {
    json!({
        "price": {"mode": "fixed", "currency": "USD", "amount": usd_price(&terms.requirements.amount)},
        "protocols": [{"x402": {}}],
        "x402Version": 2,
        "accepts": [terms.requirements]
    })
}

/// `/.well-known/x402` (no extension): the x402 discovery format of a resource server
/// (`{x402Version, kind: "resource-server", resources: [{url, method, description}]}`; x402
/// foundation draft). `/.well-known/x402.json` keeps the fuller document.
pub fn x402_resources(terms: Option<&PaymentTerms>) -> Value {
    let resources: Vec<Value> = terms
        .map(|t| {
            vec![json!({
                "url": t.resource.url,
                "method": "POST",
                "description": t.resource.description
            })]
        })
        .unwrap_or_default();
    json!({"x402Version": 2, "kind": "resource-server", "resources": resources})
}

/// `/openapi.json`: every route, request and response schema, every status, and the 402 with
/// its headers; `info.contact.email` is the operator's address (`OPERATOR_EMAIL`), and
/// `info.contact` is absent when none is set (OpenAPI 3.1 §4.8.2).
pub fn openapi_document(
    base_url: Option<&str>,
    terms: Option<&PaymentTerms>,
    contact_email: Option<&str>,
) -> Value {
    let error = |description: &str| {
        json!({
            "description": description,
            "headers": {"X-Request-Id": {"$ref": "#/components/headers/X-Request-Id"}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ApiError"}}}
        })
    };
    let health = json!({
        "description": "The service is up",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/HealthStatus"}}}
    });
    let json_doc = |description: &str| json!({"description": description, "content": {"application/json": {"schema": {"type": "object"}}}});
    let mut document = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "contact-extract",
            "version": API_VERSION,
            "description": "Pay-per-request extraction of public business contact data from a website. The extraction endpoint is paid with x402 v2 (scheme exact, USDC on Base); health, readiness and discovery routes are free. Every GET route also answers HEAD (its status and headers, no body; RFC 9110 §9.3.2). A request body may come with Content-Length or in the chunked transfer coding (RFC 9112 §7.1).",
            "x-guidance": GUIDANCE
        },
        "servers": base_url.map(|url| vec![json!({"url": url})]).unwrap_or_default(),
        "paths": {
            EXTRACT_PATH: {"post": {
                "operationId": "extractContact",
                "summary": "Extract public contact data from a business website (paid)",
                "x-payment-info": terms.map(payment_info),
                "parameters": [{"name": "PAYMENT-SIGNATURE", "in": "header", "required": false,
                                "description": "base64 of the x402 v2 PaymentPayload (the paid retry)", "schema": {"type": "string"}}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ExtractContactRequest"}}}},
                "responses": {
                    "200": {
                        "description": "Extracted contact data; the payment was settled. The same PAYMENT-SIGNATURE sent again (until validBefore + 10 min) gets this same response again, without a new crawl or charge",
                        "headers": {
                            "PAYMENT-RESPONSE": {"description": "base64 of the x402 SettleResponse", "schema": {"type": "string"}},
                            "X-Request-Id": {"$ref": "#/components/headers/X-Request-Id"}
                        },
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ContactExtractionResult"}}}
                    },
                    "400": error("Invalid body or URL (INVALID_URL), or a private/reserved target (PRIVATE_ADDRESS); never charged"),
                    "402": {
                        "description": "Payment required, or the payment was refused (invalid, replayed, verification or settlement failed, authorization cancelled). The authorization's validBefore must lie at least 60 s ahead when the request arrives (crawl 30 s + result build 5 s + settlement 15 s + 10 s margin) and at most maxTimeoutSeconds + 60 s; the body holds the same PaymentRequired as the header",
                        "headers": {
                            "PAYMENT-REQUIRED": {"description": "base64 of the x402 v2 PaymentRequired", "schema": {"type": "string"}},
                            "PAYMENT-RESPONSE": {"description": "base64 SettleResponse with success=false, after a refused settlement", "schema": {"type": "string"}},
                            "X-Request-Id": {"$ref": "#/components/headers/X-Request-Id"}
                        },
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PaymentRequired"}}}
                    },
                    "404": error("Unknown path (INVALID_URL)"),
                    "405": error("Wrong method (INVALID_URL); see the Allow header"),
                    "409": error("The payment-identifier id was already used with a different payment or request (INVALID_URL)"),
                    "413": error("Request body over 16 KiB (decoded bytes, for a chunked body)"),
                    "422": error("The site could not be fetched or read (FETCH_FAILED, UNSUPPORTED_CONTENT_TYPE, RESPONSE_TOO_LARGE, TIMEOUT); never charged"),
                    "429": {
                        "description": "Rate limited (RATE_LIMITED)",
                        "headers": {"Retry-After": {"description": "seconds", "schema": {"type": "integer"}}},
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ApiError"}}}
                    },
                    "431": error("Request head over 32 KiB or 100 headers"),
                    "500": error("Internal error (INTERNAL_ERROR); never charged"),
                    "501": error("A transfer coding other than chunked (INVALID_URL)"),
                    "503": {
                        "description": "INTERNAL_ERROR: payments not configured, overloaded, too many unfinished payments from one payer, the service shutting down, facilitator unavailable, a request with the same payment still in progress (never charged; see Retry-After); or the settlement is pending (message \"settlement pending: retry with the same PAYMENT-SIGNATURE\"): once a settlement's outcome is unknown the money may have moved, so no later answer for that authorization is a 402 unless the chain shows it was never used or was cancelled; the result is kept, and a retry with the same PAYMENT-SIGNATURE gets the 200 once the facilitator (or the chain) confirms",
                        "headers": {
                            "Retry-After": {"description": "seconds", "schema": {"type": "integer"}},
                            "PAYMENT-RESPONSE": {"description": "base64 of the facilitator's pending SettleResponse (with its transaction), when the settlement is pending", "schema": {"type": "string"}},
                            "X-Request-Id": {"$ref": "#/components/headers/X-Request-Id"}
                        },
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ApiError"}}}
                    }
                }
            }},
            "/api/health": {"get": {"operationId": "health", "security": [], "responses": {"200": health}}},
            "/api/healthz": {"get": {"operationId": "healthCheck", "security": [], "responses": {"200": health}}},
            "/api/ready": {"get": {"operationId": "readinessCheck", "security": [], "responses": {
                "200": {"description": "Ready for paid traffic", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ReadinessStatus"}}}},
                "503": {"description": "Not ready: payment configuration incomplete, the facilitator unreachable or without x402 v2 exact on the network (its /supported is read at start and every 60 s), draining, or at a cap; problems lists each, one line per problem", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ReadinessStatus"}}}}
            }}},
            "/openapi.json": {"get": {"operationId": "openapi", "security": [], "responses": {"200": json_doc("This document")}}},
            "/.well-known/x402.json": {"get": {"operationId": "x402Discovery", "security": [], "responses": {"200": json_doc("x402 payment metadata")}}},
            "/.well-known/x402": {"get": {"operationId": "x402Resources", "security": [], "responses": {"200": json_doc("x402 discovery: the resource server's paid resources")}}},
            "/.well-known/mcp.json": {"get": {"operationId": "mcpDiscovery", "security": [], "responses": {"200": json_doc("Metadata-only description of the contact.extract capability")}}}
        },
        "components": {
            "headers": {"X-Request-Id": {"description": "Equal to the body's requestId (req_ + 26 Crockford base32 characters)", "schema": {"type": "string"}}},
            "schemas": {
                "ExtractContactRequest": request_schema(),
                "ContactExtractionResult": result_schema(),
                "ApiError": api_error_schema(),
                "HealthStatus": {"type": "object", "properties": {"status": {"type": "string"}, "version": {"type": "string", "description": "The version of the running build (semantic versioning; the binary's --version)"}}, "required": ["status"]},
                "PaymentRequired": {
                    "type": "object",
                    "description": "x402 v2 PaymentRequired (the body repeats the PAYMENT-REQUIRED header)",
                    "properties": {
                        "x402Version": {"type": "integer", "const": 2},
                        "error": {"type": "string"},
                        "resource": {"type": "object", "properties": {"url": {"type": "string"}, "description": {"type": "string"}, "mimeType": {"type": "string"}}, "required": ["url"]},
                        "accepts": {"type": "array", "items": {"type": "object", "properties": {
                            "scheme": {"type": "string"}, "network": {"type": "string"}, "amount": {"type": "string"},
                            "asset": {"type": "string"}, "payTo": {"type": "string"}, "maxTimeoutSeconds": {"type": "integer"},
                            "extra": {"type": "object"}
                        }, "required": ["scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds"]}},
                        "extensions": {"type": "object"}
                    },
                    "required": ["x402Version", "resource", "accepts"]
                },
                "ReadinessStatus": {"type": "object", "properties": {"status": {"type": "string", "enum": ["ready", "not ready", "shedding"]}, "problems": {"type": "array", "items": {"type": "string"}, "description": "Why the service takes no paid traffic now (503)"}, "warnings": {"type": "array", "items": {"type": "string"}, "description": "Ready, but what this configuration costs on a bad day (no CHAIN_RPC_URL, no shared store)"}}, "required": ["status"]}
            }
        }
    });
    // A Contact Object when there is an address, no field otherwise: `null` is not an object
    // (OpenAPI 3.1 §4.8.2), and validators and code generators reject it.
    if let Some(email) = contact_email {
        document["info"]["contact"] = json!({"email": email});
    }
    document
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ContactExtractionResult, ErrorCode};
    use crate::http::routes::{route, Route};

    fn terms() -> PaymentTerms {
        crate::payment::requirements::example_terms()
    }

    #[test]
    fn openapi_describes_every_route_and_status() {
        let doc = openapi_document(
            Some("https://contacts.example.com"),
            Some(&terms()),
            Some("ops@example.com"),
        );
        assert_eq!(doc["openapi"], "3.1.0");
        let paths = doc["paths"].as_object().unwrap();
        for (path, operations) in paths {
            for method in operations.as_object().unwrap().keys() {
                assert!(
                    route(&method.to_uppercase(), path).is_ok(),
                    "{method} {path} is routed"
                );
            }
        }
        assert_eq!(paths.len(), 8);
        let statuses: Vec<&String> = paths[EXTRACT_PATH]["post"]["responses"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        for status in [
            "200", "400", "402", "404", "405", "409", "413", "422", "429", "431", "500", "501",
            "503",
        ] {
            assert!(statuses.contains(&&status.to_string()), "{status}");
        }
        assert!(
            paths[EXTRACT_PATH]["post"]["responses"]["402"]["headers"]["PAYMENT-REQUIRED"]
                .is_object()
        );
        assert_eq!(doc["servers"][0]["url"], "https://contacts.example.com");
        assert_eq!(route("GET", "/openapi.json"), Ok(Route::OpenApi));
    }

    /// The layout x402scan reads: `info.x-guidance`, `info.contact.email`, a fixed USD price and
    /// the x402 protocol on the paid operation, the 402's PaymentRequired schema, free routes
    /// with `security: []`; and `/.well-known/x402` in the discovery format.
    #[test]
    fn discovery_layouts_for_crawlers_and_agents() {
        let doc = openapi_document(None, Some(&terms()), Some("ops@example.com"));
        assert!(doc["info"]["x-guidance"]
            .as_str()
            .unwrap()
            .contains("PAYMENT-SIGNATURE"));
        assert_eq!(doc["info"]["contact"]["email"], "ops@example.com");
        let paid = &doc["paths"][EXTRACT_PATH]["post"];
        assert_eq!(
            paid["x-payment-info"]["price"],
            json!({"mode": "fixed", "currency": "USD", "amount": "0.01"})
        );
        assert_eq!(paid["x-payment-info"]["protocols"], json!([{"x402": {}}]));
        assert_eq!(paid["x-payment-info"]["accepts"][0]["amount"], "10000");
        assert_eq!(
            paid["responses"]["402"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/PaymentRequired"
        );
        for (path, operations) in doc["paths"].as_object().unwrap() {
            if path != EXTRACT_PATH {
                assert_eq!(operations["get"]["security"], json!([]), "{path}");
            }
        }
        let anonymous = openapi_document(None, Some(&terms()), None);
        assert!(
            anonymous["info"].get("contact").is_none(),
            "no OPERATOR_EMAIL: no info.contact (OpenAPI 3.1 §4.8.2: an object when present)"
        );
        let resources = x402_resources(Some(&terms()));
        assert_eq!(
            resources,
            json!({"x402Version": 2, "kind": "resource-server", "resources": [{
                "url": "https://contacts.example.com/api/v1/extract-contact",
                "method": "POST",
                "description": terms().resource.description
            }]})
        );
        assert_eq!(x402_resources(None)["resources"], json!([]));
        assert_eq!(route("GET", "/.well-known/x402"), Ok(Route::X402Resources));
    }

    /// Where OpenAPI 3.1 gives a field a type, `null` is not it (`info.contact` is a Contact
    /// Object, §4.8.2); only specification extensions (`x-…`, any JSON value, §4.9) may be
    /// `null`. Every configuration: with and without payments, base URL and operator address.
    #[test]
    fn no_null_outside_extensions() {
        fn nulls(value: &Value, at: &str, found: &mut Vec<String>) {
            match value {
                Value::Null => found.push(at.to_string()),
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        nulls(item, &format!("{at}/{i}"), found);
                    }
                }
                Value::Object(fields) => {
                    for (key, field) in fields {
                        if !key.starts_with("x-") {
                            nulls(field, &format!("{at}/{key}"), found);
                        }
                    }
                }
                _ => {}
            }
        }
        let terms = terms();
        for base_url in [None, Some("https://contacts.example.com")] {
            for paid in [None, Some(&terms)] {
                for email in [None, Some("ops@example.com")] {
                    let mut found = Vec::new();
                    nulls(&openapi_document(base_url, paid, email), "", &mut found);
                    assert!(found.is_empty(), "{base_url:?} {email:?}: {found:?}");
                }
            }
        }
    }

    #[test]
    fn schemas_agree_with_the_types() {
        let example: ContactExtractionResult = serde_json::from_value(example_result()).unwrap();
        let serialised = serde_json::to_value(&example).unwrap();
        let schema = result_schema();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for field in &required {
            assert!(serialised.get(*field).is_some(), "{field}");
        }
        assert_eq!(required.len(), serialised.as_object().unwrap().len());
        let codes = api_error_schema()["properties"]["error"]["properties"]["code"]["enum"].clone();
        for code in [
            ErrorCode::InvalidUrl,
            ErrorCode::PrivateAddress,
            ErrorCode::Timeout,
            ErrorCode::InternalError,
        ] {
            assert!(codes
                .as_array()
                .unwrap()
                .contains(&serde_json::to_value(code).unwrap()));
        }
    }

    #[test]
    fn x402_and_mcp_documents() {
        let terms = terms();
        let x402 = x402_document(Some(&terms));
        assert_eq!(x402["x402Version"], 2);
        assert_eq!(
            x402["items"][0]["resource"],
            "https://contacts.example.com/api/v1/extract-contact"
        );
        assert_eq!(
            x402["items"][0]["accepts"][0],
            serde_json::to_value(&terms.requirements).unwrap()
        );
        assert!(x402["items"][0]["extensions"]["bazaar"]["schema"].is_object());
        assert_eq!(
            x402["items"][0]["extensions"]["payment-identifier"]["info"]["required"],
            false
        );
        let unconfigured = x402_document(None);
        assert_eq!(unconfigured["items"][0]["accepts"], json!([]));
        let mcp = mcp_document(Some(&terms));
        assert_eq!(mcp["capabilities"][0]["name"], "contact.extract");
        assert_eq!(mcp["capabilities"][0]["price"]["amount"], "10000");
        assert_eq!(mcp["capabilities"][0]["invocation"]["method"], "POST");
        assert_eq!(
            openapi_document(None, Some(&terms), None),
            openapi_document(None, Some(&terms), None),
            "deterministic"
        );
    }
}
