//! Inbound HTTP/1.1: the request-head parser with hard limits (strict framing), the chunked
//! body decoder, routing, and response serialisation.

pub mod chunked;
pub mod proxy_protocol;
pub mod request;
pub mod response;
pub mod routes;
