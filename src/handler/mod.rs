//! The handler endpoint: LemonLDAP::NG's handler as an authorization server a web server asks
//! before each request to a protected application, with the virtual hosts of `locationRules`,
//! `exportedHeaders` and `vhostOptions` a LemonLDAP::NG site already has. `/lmauth` answers
//! nginx's `auth_request`; `/lmauth/forward` answers Traefik's ForwardAuth and Caddy's
//! `forward_auth` (`wire`). Only the web servers of `handlerAllowFrom` may ask (loopback by
//! default; the answer holds the user's exported attributes). The request's body is never read (its limit is zero,
//! `router::body_limit`). Sessions come from a short per-node cache (`sso::cache`,
//! `handlerInternalCache` seconds) before the store. `settings` compiles the configuration,
//! `decide` decides, `wire` reads and answers; docs/protect-an-application.md is the guide.
pub mod decide;
pub mod settings;
pub mod vhost;
pub mod wire;

pub use settings::Settings;

use crate::config::access::Server;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::Response;
use crate::sso::{cache, SsoSession};
use decide::{Ask, Verdict};
use std::sync::Arc;
use wire::Shape;

/// The path nginx's `auth_request` asks (LemonLDAP::NG's examples name theirs `/lmauth`).
pub const PATH: &str = "/lmauth";

/// Answers the web server.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let shape = match ctx.req.path.as_str() {
        "/lmauth" => Shape::Nginx,
        "/lmauth/forward" => Shape::Forward,
        _ => return Err(Error::not_found("Not found")),
    };
    // The asker is the web server: its rule is on the socket peer, not the client it
    // forwards for.
    let peer = ctx.req.remote.map(|p| p.ip());
    if !ctx.app.local.access.rule(Server::Handler).allows(peer) {
        crate::log::warn("/lmauth: asked from outside handlerAllowFrom: refused");
        return Err(Error::Forbidden(
            "Access refused from this address (handlerAllowFrom)".into(),
        ));
    }
    let asked = wire::read(ctx.req, shape)?;
    let settings = ctx.conf.area::<Settings>();
    let ask = Ask {
        host: &asked.host,
        uri: &asked.uri,
        env: &asked.env,
    };
    let verdict = decide::decide(
        &settings,
        &ask,
        || session(ctx, &settings),
        crate::util::now(),
    )?;
    match &verdict {
        Verdict::Forbidden(why) => crate::log::info(&format!("handler: {why}")),
        Verdict::Logout(s, _) => {
            crate::sso::logout(ctx.app, s, crate::app::Reach::ServerOnly)?;
        }
        _ => {}
    }
    Ok(wire::answer(
        ctx.conf, &settings, ctx.req, &asked, shape, verdict,
    ))
}

/// The live session the request's cookie names: from the cache when it was read within the
/// TTL (and has not expired since), else from the store (then kept).
fn session(ctx: &Ctx, settings: &Settings) -> Result<Option<Arc<SsoSession>>> {
    let Some(id) = crate::web::cookies::sso_id(ctx.conf, ctx.req) else {
        return Ok(None);
    };
    if let Some(s) = cache::get(&id, settings.cache_ttl) {
        if !crate::sso::is_expired(ctx.conf, &s, crate::util::now()) {
            return Ok(Some(s));
        }
        cache::forget(&id);
    }
    let Some(s) = crate::sso::lookup(ctx.app, ctx.conf, &id)? else {
        return Ok(None);
    };
    let s = Arc::new(s);
    if !settings.cache_ttl.is_zero() {
        cache::put(&id, s.clone(), settings.cache_ttl);
    }
    Ok(Some(s))
}
