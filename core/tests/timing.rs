//! Bad timing as a property: a paid request under random DNS, connect, worker and facilitator
//! latencies, random reply splits, a scripted facilitator whose `/settle` answers are settled,
//! refused or unknown (pending, garbage, HTTP 500, a stall) call by call over a chain that
//! uses a nonce once, a client that leaves at a random point and sends its second
//! request at a random time (`testing::fuzz::exchange_timing`, also a cargo-fuzz target). Each
//! case is a whole deterministic simulation; the invariants are checked inside. The summaries
//! each case returns show the harness ran something: a property that did nothing fails here.

use contact_core::testing::fuzz::{exchange_timing, TimingRun};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};

/// Cases of each property.
const CASES: u32 = 300;

/// Runs `exchange_timing` on [`CASES`] inputs from `strategy` (failures shrink and persist
/// next to this file, as `proptest!` does); returns every case's summary.
fn run_cases(strategy: impl Strategy<Value = Vec<u8>>) -> Vec<TimingRun> {
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(FileFailurePersistence::SourceParallel(
            "proptest-regressions",
        ))),
        ..Config::default()
    });
    let runs = std::cell::RefCell::new(Vec::new());
    let outcome = runner.run(&strategy, |data| {
        runs.borrow_mut().push(exchange_timing(&data));
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
    let runs = runs.into_inner();
    // The runner counts persisted failures too: at least the asked-for cases ran.
    assert!(runs.len() >= CASES as usize, "{} cases ran", runs.len());
    runs
}

/// Sums over the cases of one property.
#[derive(Debug)]
struct Totals {
    verifies: usize,
    settles: usize,
    paid: usize,
    transfers: usize,
    unknowns: usize,
    /// Cases where an unknown outcome was followed by another settlement attempt or by an
    /// answer to the client's retry with the same payment.
    retried: usize,
}

fn totals(runs: &[TimingRun]) -> Totals {
    let sum = |field: fn(&TimingRun) -> usize| runs.iter().map(field).sum();
    let totals = Totals {
        verifies: sum(|r| r.verifies),
        settles: sum(|r| r.settles),
        paid: runs.iter().filter(|r| r.paid_ok()).count(),
        transfers: sum(|r| r.transfers),
        unknowns: sum(|r| r.unknowns),
        retried: runs
            .iter()
            .filter(|r| r.retries_after_unknown > 0 || r.answers_after_unknown > 1)
            .count(),
    };
    eprintln!("{} cases: {totals:?}", runs.len());
    totals
}

#[test]
fn any_timing_keeps_the_exchange_and_the_money_right() {
    let sum = totals(&run_cases(proptest::collection::vec(any::<u8>(), 0..16)));
    // Loose floors (the cases are random): a harness that silently runs nothing has zeros.
    assert!(sum.verifies >= 60, "too few /verify calls: {sum:?}");
    assert!(sum.settles >= 15, "too few /settle calls: {sum:?}");
    assert!(sum.paid >= 10, "too few paid 200s: {sum:?}");
    assert!(sum.transfers >= 10, "too few transfers: {sum:?}");
}

/// As above with short latencies, so nearly every case reaches the settlement and the
/// scripted `/settle` answers (bytes 4 and 12 on) decide: unknown outcomes, retries, refusals
/// after them.
#[test]
fn any_settlement_script_keeps_the_money_right() {
    let strategy = proptest::collection::vec(any::<u8>(), 16).prop_map(|mut data| {
        data[0] %= 2; // DNS: 0 or 0.5 s
        data[1] %= 2; // connect
        data[2] %= 4; // worker: up to 1.5 s
        data[6] %= 12; // each /settle answer: up to 5.5 s
        data[9] %= 24; // the second request: up to 11.5 s after the first
        data[10] %= 4; // writes: up to 1.5 s
        data
    });
    let sum = totals(&run_cases(strategy));
    assert!(sum.settles >= 150, "too few /settle calls: {sum:?}");
    assert!(sum.unknowns >= 50, "too few unknown outcomes: {sum:?}");
    assert!(
        sum.retried >= 20,
        "too few retries after an unknown outcome: {sum:?}"
    );
}

/// Fixed inputs whose runs are known: the harness reaches the facilitator and settles, and an
/// unknown outcome is followed by a retry (the job's own, and the client's).
#[test]
fn fixed_timings_settle_and_retry_after_an_unknown_outcome() {
    // All zero: no delays, `/settle` answers settled; the second request is the same payment,
    // answered from the kept result.
    let plain = exchange_timing(&[]);
    assert_eq!(plain.verifies, 1, "{plain:?}");
    assert_eq!(plain.settles, 1, "{plain:?}");
    assert_eq!(plain.transfers, 1, "{plain:?}");
    assert_eq!(plain.statuses, [200, 200], "{plain:?}");

    // The first `/settle` answers `settlement_pending` without moving the money (byte 4), the
    // job's retry 2 s later settles (byte 12): one unknown outcome, a second audit event, and
    // a paid 200.
    let mut retried = [0u8; 13];
    retried[4] = 1;
    let run = exchange_timing(&retried);
    assert_eq!(run.settles, 2, "{run:?}");
    assert_eq!(run.unknowns, 1, "{run:?}");
    assert_eq!(run.retries_after_unknown, 1, "{run:?}");
    assert_eq!(run.transfers, 1, "{run:?}");
    assert_eq!(run.statuses, [200, 200], "{run:?}");

    // `settlement_pending`, then the retry hears `insufficient_funds`: a refusal after an
    // unknown outcome leaves it unknown — 503, never 402.
    let mut refused = [0u8; 13];
    refused[4] = 1;
    refused[12] = 4;
    // The client's retry (the same payment) claims the kept result and settles again: 503.
    let run = exchange_timing(&refused);
    assert!(run.unknowns >= 1, "{run:?}");
    assert!(run.retries_after_unknown >= 1, "{run:?}");
    assert_eq!(run.transfers, 0, "{run:?}");
    assert_eq!(run.statuses, [503, 503], "{run:?}");

    // Garbage, then HTTP 500 (its transfer going through), then the client's retry 5 s later
    // (the same payment) hears a refusal: "already used" — never a 402.
    let mut failing = [0u8; 16];
    failing[4] = 2; // garbage, no transfer
    failing[9] = 10; // the second request 5 s after the first
    failing[12] = 5 + 7; // HTTP 500; the transfer went through
    failing[13..].fill(4); // insufficient funds (the nonce being used: "already used")
    let run = exchange_timing(&failing);
    assert!(run.unknowns >= 2, "{run:?}");
    assert!(run.answers_after_unknown >= 2, "{run:?}");
    assert_eq!(run.transfers, 1, "{run:?}");
    assert!(run.statuses.contains(&503), "{run:?}");
    assert!(!run.statuses.contains(&402), "{run:?}");
}
