//! Fuzz target `http_head` (body in ../targets.rs).
#![no_main]
#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::http_head(data));
