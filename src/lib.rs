//! Limette: a small single sign-on portal that speaks LemonLDAP::NG's wire interfaces.
//!
//! The request path is one straight line: `server` (the reading stage and the worker pool)
//! reads each request whole into our own `http::Request` and hands it to `router`, which picks
//! the area module (oidc, sessions, config_proxy, notifications, portal, status, handler, and the
//! console, `manager`, which sits at the top beside the command line). Areas read the running
//! configuration and the stores through `app::App`, and their own settings from the
//! configuration (`config::Conf::area`). Errors travel as `error::Error` and become responses
//! in exactly one place, `router::errors`.
//!
//! Modules sit in layers, every import pointing down (README, "How it is built";
//! `tests/suite/layers/` checks it): top (`cli`, `router`, `server`, `manager`), areas, domain
//! (`app`, `sso`, `grants`, `directory`, `rules`), storage, base (`error`, `log`, `util`,
//! `crypto`, `http`, `web`, `upstream`, `config`, `pause`, `metrics`).
#![forbid(unsafe_code)]

// `pub` only for what the binary, the integration tests, the example and the fuzz targets use;
// every other module is the crate's own.

pub(crate) mod account;
pub(crate) mod app;
pub mod cli;
pub mod config;
pub(crate) mod config_proxy;
pub mod crypto;
pub(crate) mod ctx;
pub(crate) mod directory;
pub mod error;
pub(crate) mod findings;
pub(crate) mod grants;
pub(crate) mod handler;
pub mod http;
pub(crate) mod log;
pub(crate) mod login;
pub(crate) mod manager;
pub(crate) mod metrics;
pub mod notifications;
pub mod oidc;
pub(crate) mod password;
pub(crate) mod pause;
pub(crate) mod portal;
pub(crate) mod router;
pub mod rules;
pub(crate) mod second_factor;
pub mod server;
pub(crate) mod sessions;
pub(crate) mod sso;
pub(crate) mod status;
pub mod storage;
pub(crate) mod upstream;
pub mod util;
pub(crate) mod web;

/// The DBI user store's password schemes (`parse`, `hash_new`, `verify`), for the example that
/// times each scheme's check alone (the floor of `make bench`'s DBI login rows).
pub use directory::dbi::scheme::Hashing;
/// The redirect-target check's origin parser, for the fuzz targets.
pub use portal::Origin;
