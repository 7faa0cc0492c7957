//! `contact-runtime-tokio`: reserved for the tokio runtime of contact-extract (the same
//! `Input`/`Output` contract as `runtime-smol`, driven with tokio sockets and timers).
//!
//! It holds no code yet: the request lifecycle it will drive is not in `contact-core` yet.
