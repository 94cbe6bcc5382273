//! The OpenID Connect provider: discovery, authorize (code, implicit and hybrid flows), token
//! (with its `client_credentials` and `password` grants), userinfo, introspection, revocation,
//! RP-initiated logout, the check-session page, JWKS, and the logout channels (`channels`) run
//! when a session ends. `handle` only dispatches; each endpoint owns its file, the security
//! pieces (`keys::jwt`, `base::pkce`, `clients::client`) take plain values and never see HTTP.
//! The codes and tokens the endpoints issue are typed records of the domain (`crate::grants`).
//!
//! A folder per concern, each importing only the ones listed after it, never one before:
//! `authorize` (the authorization endpoint, consent, the implicit and hybrid flows, pushed
//! requests and request objects), `token` (the token endpoint and its grants, introspection,
//! revocation, userinfo), `logout` (RP-initiated logout, the front and back channels, the
//! check-session page), `clients` (client authentication, the RPs' keys, registration, the
//! console's RP editor), `discovery`, `base` (parameters, issuer, signing for an RP, what may
//! be granted), `settings` (the configuration, parsed once), `keys` (algorithms, JWTs, the
//! provider's keys and their rotation), then `options` and `claims`, the tables they share.
pub mod authorize;
pub mod base;
pub mod claims;
pub mod clients;
pub mod discovery;
pub mod keys;
pub mod logout;
pub mod options;
pub mod settings;
pub mod token;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Method, Response};

pub use clients::rp_edit;
pub use keys::{jwt, keygen};
pub use logout::channels;
pub use settings::{DisabledRp, Rp, Settings};

/// Serves `/oauth2/...` and `/.well-known/openid-configuration`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (req, conf) = (ctx.req, ctx.conf);
    if !conf.area::<Settings>().enabled {
        return Err(Error::not_found("Not found"));
    }
    let endpoint = req
        .path
        .strip_prefix("/oauth2/")
        .unwrap_or(&req.path)
        .trim_end_matches('/');
    // RFC 6749 3.2: the token endpoint takes POST only (a GET would put the client secret
    // and the code in URLs, logs and Referer headers); so do revocation (RFC 7009 2.1) and
    // pushed authorization requests (RFC 9126 2.1).
    if matches!(endpoint, "token" | "revoke" | "par") && req.method != Method::Post {
        return Err(Error::OnlyMethods("POST"));
    }
    let read_or_post = matches!(req.method, Method::Get | Method::Head | Method::Post);
    if !read_or_post {
        return Err(Error::MethodNotAllowed);
    }
    match endpoint {
        "/.well-known/openid-configuration" => Ok(discovery::configuration(conf)),
        "jwks" => Ok(discovery::jwks(conf)),
        "authorize" => authorize::handle(ctx),
        "checksession.html" => logout::check_session::page(ctx),
        // A client assertion or a request object may need the client's keys fetched first.
        "token" => clients::keys_first::first(ctx, token::handle),
        "revoke" => clients::keys_first::first(ctx, token::revoke::handle),
        "par" => clients::keys_first::first(ctx, authorize::pushed::handle),
        "userinfo" => token::userinfo::handle(ctx),
        "introspect" => clients::keys_first::first(ctx, token::introspect::handle),
        "logout" => logout::handle(ctx),
        "register" => clients::register::handle(ctx),
        _ => Err(Error::not_found("Not found")),
    }
}
