//! Inbound HTTP/1.1: the request-head parser with hard limits (strict framing), routing, and
//! response serialisation.

pub mod proxy_protocol;
pub mod request;
pub mod response;
pub mod routes;
