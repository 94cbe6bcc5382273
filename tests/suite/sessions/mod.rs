//! The sessions area over HTTP: the REST session server (every row of the contract's session
//! section), LemonLDAP::NG's `__secret` protocol (with openssl as an independent cipher), the
//! connected user's endpoints, `/mysession`, two instances sharing sessions through REST, one
//! node on another's configuration and sessions (the shared `key`), LemonLDAP::NG's own Perl
//! session client against Limette, and the `limette sessions` command.
use crate::common;

mod expiry;
mod macros;
mod my;
mod remote;
mod rest;
mod secret;
mod shared_key;

/// The header of a JSON client.
pub const JSON: (&str, &str) = ("Accept", "application/json");

/// Now, as the server sees it.
pub fn now() -> i64 {
    limette::util::now()
}
