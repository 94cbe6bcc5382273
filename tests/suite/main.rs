//! The integration tests, one binary: each area's tests are a module of it (`cargo test --test
//! suite <area>::` runs one area), so the suite is linked once and its tests share the test
//! threads (`make test` sets how many: the browser and Python checks mostly wait, and the rest
//! runs beside them). The hostile tests, which measure latencies under attack, are the one
//! exception: `make test` runs them in a pass of their own (`--skip hostile::`, then
//! `hostile::`), so that no other test shares the cores while they measure. `tests/common` is
//! the shared harness that starts the real binary; `python` finds the tests' Python. Test files
//! that are not Rust (Python scripts, fixtures) stay in their folders under `tests/`.
#[path = "../common/mod.rs"]
mod common;
mod python;

mod access;
mod audit;
mod bridge;
mod browser;
mod cluster;
mod config;
mod console;
mod dist;
mod docs;
mod first_start;
mod foundation;
mod fuzz_corpus;
mod hostile;
mod layers;
mod logout_checks;
mod notif_login;
mod notifications;
mod oidc;
mod portal;
mod second_factor;
mod sessions;
mod tls;
