#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| contact_core::testing::html5_oracle::fuzz_page(data));
