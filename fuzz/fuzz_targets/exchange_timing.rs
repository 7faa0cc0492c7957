#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    contact_core::testing::fuzz::exchange_timing(data);
});
