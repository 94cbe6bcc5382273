//! The OpenID Connect provider over HTTP: every row of the contract's "OpenID Connect"
//! section, the login answers it relies on, the REST directory bridge, and an external
//! relying-party library completing the flow.
use crate::common;

mod access;
mod authorize;
mod channels;
mod check_session;
mod claims;
mod claims_param;
mod clients;
mod consent;
mod directory;
mod file_processes;
mod flows;
mod grant_checks;
mod grants;
mod hygiene;
mod jwks_uri;
mod keys;
mod lifetimes;
mod logout;
mod outbound;
mod register_limits;
mod request_uri;
mod requests;
mod resources;
mod rp;
mod stale_pages;
mod token;

/// Standard base64 of a string (the login form's `url` field).
pub fn b64_url(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}

/// Status, `error` and `WWW-Authenticate` of an OAuth error answer.
pub fn oauth_err(r: &common::Resp) -> (u16, String, Option<String>) {
    (
        r.status,
        r.json()["error"].as_str().unwrap_or("").to_string(),
        r.header("www-authenticate").map(str::to_string),
    )
}
