//! Requests whose JWTs a client signs with the keys it publishes at its `jwks_uri`: client
//! assertions (`private_key_jwt`) at the token, introspection, revocation and pushed
//! authorization endpoints, request objects at those and at authorize. When `rp_jwks` says
//! the keys must be fetched first, the request is handed to a fetcher (`Response::later`, keyed
//! by the client, so one client's silent URL holds its own share of the fetchers and never a
//! worker), which fetches them and then answers as the endpoint does; when every fetcher, or
//! the client's share, is busy, the answer is the endpoint's `temporarily_unavailable`.
use super::assertion;
use super::rp_jwks::{self, Fetch};
use crate::config::Conf;
use crate::ctx::{Ctx, Handler};
use crate::error::{Error, OAuthCode, Result};
use crate::http::response::Task;
use crate::http::Response;
use crate::oidc::base::{params, Params};
use crate::oidc::settings::Settings;

/// Answers with `then`, after fetching a client's keys off the worker pool when a client
/// assertion or a request object of the request needs them.
pub fn first(ctx: &Ctx, then: Handler) -> Result<Response> {
    let Some(fetch) = pending(ctx.conf, &params(ctx.req)) else {
        return then(ctx);
    };
    let key = fetch.client_id.clone();
    let (app, req, conf) = (ctx.app.clone(), ctx.req.clone(), ctx.conf.clone());
    let run: Task = Box::new(move || {
        fetch.run();
        then(&Ctx::new(&app, &conf, &req))
    });
    // RFC 6749 5.2 has no such code; 4.1.2.1's, with 503, says "try again" best.
    let busy: Task = Box::new(|| {
        Err(Error::OAuth {
            code: OAuthCode::TemporarilyUnavailable,
            status: 503,
            basic: false,
        })
    });
    Ok(Response::later(key, run, busy))
}

/// The fetch the request's client assertion or request object (by value) needs first, if any.
pub fn pending(conf: &Conf, p: &Params) -> Option<Fetch> {
    let oidc = conf.area::<Settings>();
    let client_id = p.get("client_id");
    let asserted = p.get("client_assertion").and_then(|jwt| {
        let claimed = assertion::claimed_client(jwt);
        let rp = oidc.rp(client_id.or(claimed.as_deref())?)?;
        rp_jwks::needs_fetch(rp, jwt)
    });
    asserted.or_else(|| object(conf, client_id?, p.get("request")?))
}

/// The fetch a request object `jwt` of the client `client_id` needs first, if any.
pub fn object(conf: &Conf, client_id: &str, jwt: &str) -> Option<Fetch> {
    let oidc = conf.area::<Settings>();
    rp_jwks::needs_fetch(oidc.rp(client_id)?, jwt.trim())
}
