//! The sessions area over HTTP: the REST session server (every row of the contract's session
//! section), LemonLDAP::NG's `__secret` protocol (with openssl as an independent cipher), the
//! connected user's endpoints, `/mysession`, two instances sharing sessions through REST, and
//! the `limette sessions` command.
#[path = "../common/mod.rs"]
mod common;

mod macros;
mod my;
mod remote;
mod rest;
mod secret;

/// The header of a JSON client.
pub const JSON: (&str, &str) = ("Accept", "application/json");

/// Now, as the server sees it.
pub fn now() -> i64 {
    limette::util::now()
}
