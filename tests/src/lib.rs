//! Whole-workspace tests of contact-extract (`tests/tests/*.rs`): the extractor swept over the
//! shared corpora, and the real server on loopback. This library holds what those tests
//! share: [`fixture`], loopback HTTP(S) responders for fixture sites and test facilitators,
//! [`runtimes`], which runs each case on both runtimes, [`tools`], outside tools and ports,
//! [`process`], the guard that stops every process a test starts, and [`wait`], bounded waits
//! on an observable condition.

pub mod fixture;
pub mod process;
pub mod runtimes;
pub mod tools;
pub mod wait;
