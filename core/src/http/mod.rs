//! Inbound HTTP/1.1: the request-head parser with hard limits (strict framing).

pub mod request;
