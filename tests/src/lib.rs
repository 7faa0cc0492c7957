//! Whole-workspace tests of contact-extract (`tests/tests/*.rs`): the extractor swept over the
//! shared corpora, and the real server on loopback. This library holds what those tests
//! share: [`fixture`], loopback HTTP(S) responders for fixture sites and test facilitators, and
//! [`runtimes`], which runs each case on both runtimes.

pub mod fixture;
pub mod runtimes;
