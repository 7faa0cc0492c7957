//! Nothing here: the package is its test, `tests/heap_bound.rs` (the heap and work bound of
//! extraction, with a counting global allocator that must affect no other test binary).
