//! Bad timing as a property: a paid request under random DNS, connect, worker and facilitator
//! latencies, random reply splits, a client that leaves at a random point and sends its second
//! request at a random time (`testing::fuzz::exchange_timing`, also a cargo-fuzz target). Each
//! case is a whole deterministic simulation; the invariants are checked inside. The summaries
//! each case returns show the harness ran something: a property that did nothing fails here.

use contact_core::testing::fuzz::{exchange_timing, TimingRun};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};

/// Cases of the property.
const CASES: u32 = 300;

#[test]
fn any_timing_keeps_the_exchange_and_the_money_right() {
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(FileFailurePersistence::SourceParallel(
            "proptest-regressions",
        ))),
        ..Config::default()
    });
    let runs: std::cell::RefCell<Vec<TimingRun>> = std::cell::RefCell::new(Vec::new());
    let strategy = proptest::collection::vec(any::<u8>(), 0..16);
    let outcome = runner.run(&strategy, |data| {
        runs.borrow_mut().push(exchange_timing(&data));
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
    let runs = runs.into_inner();
    let verifies: usize = runs.iter().map(|r| r.verifies).sum();
    let settles: usize = runs.iter().map(|r| r.settles).sum();
    let paid = runs.iter().filter(|r| r.paid_ok()).count();
    eprintln!(
        "{} cases: {verifies} /verify, {settles} /settle, {paid} with a paid 200",
        runs.len()
    );
    // The runner counts persisted failures too: at least the asked-for cases ran.
    assert!(runs.len() >= CASES as usize, "{} cases ran", runs.len());
    // Loose floors (the cases are random): a harness that silently runs nothing has zeros.
    assert!(verifies >= 60, "too few /verify calls: {verifies}");
    assert!(settles >= 15, "too few /settle calls: {settles}");
    assert!(paid >= 10, "too few paid 200s: {paid}");
}

/// A fixed input whose run is known: the harness reaches the facilitator and settles.
#[test]
fn a_fixed_timing_pays_and_settles() {
    // All zero: no delays, `/settle` answers settled; the second request is the same payment,
    // answered from the kept result.
    let plain = exchange_timing(&[]);
    assert_eq!(plain.verifies, 1, "{plain:?}");
    assert_eq!(plain.settles, 1, "{plain:?}");
    assert_eq!(plain.statuses, [200, 200], "{plain:?}");
}
