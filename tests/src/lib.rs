//! Whole-workspace tests of contact-extract (`tests/tests/*.rs`). For now they sweep the
//! extractor over the shared corpora; the end-to-end server tests on loopback join them with
//! the runtimes.
