//! Bad timing as a property: a paid request under random DNS, connect, worker and facilitator
//! latencies, random reply splits, a client that leaves at a random point and sends its second
//! request at a random time (`testing::fuzz::exchange_timing`, also a cargo-fuzz target). Each
//! case is a whole deterministic simulation; the invariants are checked inside.

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_timing_keeps_the_exchange_and_the_money_right(
        data in proptest::collection::vec(any::<u8>(), 0..12)
    ) {
        contact_core::testing::fuzz::exchange_timing(&data);
    }
}
