//! `GET|POST /oauth2/authorize` (OIDC Core 3.1.2). The request is checked in two stages, as
//! the contract fixes it: an unknown client or an unregistered/missing redirect_uri is never
//! redirected (portal error 107/108/24 as a page or JSON 400); every later error goes back to
//! the client per RFC 6749 4.1.2.1. Then the user: no session -> the login form, which comes
//! back here (a pushed request, spent, under a fresh single-use `request_uri`: `pushed`);
//! `prompt=login` or an old authentication (`max_age`) -> a fresh login;
//! `prompt=none` without a session -> `login_required`. Then what may be granted ([`decide`]: the
//! provider's rule, the RP's rule and authentication level, the scope after its scope rules;
//! a refusal is a portal error page, never a redirect), the `claims` parameter settled
//! (`claims_request`), then consent, then the code.
//!
//! The folder is the authorization endpoint's: the checked request (`request`), consent
//! (`consent`), the tokens the implicit and hybrid flows issue here (`implicit`, through
//! `token`), pushed requests (`pushed`) and request objects (`request_object`). It imports
//! `token`, `logout` (for `session_state`), `clients` and the shared modules; none of them
//! imports it.
pub mod consent;
pub mod implicit;
pub mod pushed;
pub mod request;
pub mod request_object;

pub use request::{check, AuthRequest, Refusal};

use crate::app::App;
use crate::config::Conf;
use crate::ctx::Ctx;
use crate::error::{Error, OAuthCode, PortalCode, Result};
use crate::grants::{self as store, RecordType};
use crate::http::response::Task;
use crate::http::{Request, Response};
use crate::log;
use crate::oidc::base::access::{decide, Grant, Refusal as Denied};
use crate::oidc::base::response::{deliver, Mode};
use crate::oidc::base::{params, subject, Params};
use crate::oidc::claims;
use crate::oidc::clients;
use crate::oidc::clients::keys_first::object;
use crate::oidc::logout;
use crate::oidc::settings::{self, Rp};
use crate::sso::CookieState;
use crate::storage::Session;
use crate::util;
use base64::Engine;
use request::grant_record;
use serde_json::Value;
use std::sync::Arc;

/// `/oauth2/authorize`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app, ctx.req, ctx.conf);
    let query = params(req);
    // A request object by reference is fetched off the worker pool, and the request answered
    // there: a slow or silent URL holds one of the few fetchers (refused at once when they or
    // this client's share are busy), never a worker.
    if let Some((client, url)) = pushed::reference(conf, &query) {
        let (key, conf2) = (client.clone(), conf.clone());
        let fetch = move || {
            let body = pushed::fetch(&url);
            // The object may be signed with keys the client publishes: fetched here too.
            if let Some(keys) = body.as_ref().ok().and_then(|b| object(&conf2, &client, b)) {
                keys.run();
            }
            body
        };
        return Ok(off_the_pool(app, req, conf, query, key, fetch));
    }
    // A request object by value signed with keys the client publishes at its jwks_uri: those
    // are fetched off the worker pool in the same way, when not cached.
    if let Some(keys) = clients::keys_first::pending(conf, &query) {
        let key = keys.client_id.clone();
        let fetch = move || {
            keys.run();
            Err("nothing to fetch".into())
        };
        return Ok(off_the_pool(app, req, conf, query, key, fetch));
    }
    answer(app, req, conf, &query, |_| Err("nothing to fetch".into()))
}

/// The request handed to a fetcher (keyed by its client): `fetch` runs there, then the request
/// is answered with what it got; `temporarily_unavailable` when no fetcher can take it.
fn off_the_pool(
    app: &Arc<App>,
    req: &Request,
    conf: &Arc<Conf>,
    query: Params,
    key: String,
    fetch: impl FnOnce() -> std::result::Result<String, String> + Send + 'static,
) -> Response {
    let (app, req, conf2, q) = (app.clone(), req.clone(), conf.clone(), query.clone());
    let run: Task = Box::new(move || {
        let body = fetch();
        answer(&app, &req, &conf2, &q, |_| body)
    });
    let conf = conf.clone();
    let busy: Task = Box::new(move || refusal(pushed::busy(&conf, &query), &query));
    Response::later(key, run, busy)
}

/// The request answered, its request object by reference got by `fetch`.
fn answer(
    app: &App,
    req: &Request,
    conf: &Conf,
    query: &Params,
    fetch: impl FnOnce(&str) -> std::result::Result<String, String>,
) -> Result<Response> {
    // A pushed request's parameters, or a request object's over the query's (RFC 9126, OIDC
    // Core 6), before anything is checked.
    let p = match pushed::expand(app, conf, query, fetch) {
        Ok(p) => p,
        Err(r) => return refusal(r, query),
    };
    let oidc = conf.area::<settings::Settings>();
    let (rp, ar) = match check(&oidc, &p) {
        Ok(v) => v,
        Err(r) => return refusal(r, &p),
    };
    // Where the login form comes back to: this request again (a pushed one, consumed, under
    // a fresh request_uri: `pushed::again`), without the parameters that asked for it.
    let back = || -> Result<String> {
        let q = match pushed::is_pushed(query) {
            true => pushed::again(app, conf, &p)?,
            false => params(req).to_query(&["prompt", "max_age", "confirm", "token"]),
        };
        Ok(format!("{}oauth2/authorize?{q}", conf.portal))
    };
    let session = match user_session(app, conf, req, &ar, &back)? {
        Ok(s) => s,
        Err(LoginRequired) => {
            return Ok(refuse(
                &ar.redirect_uri,
                ar.mode,
                OAuthCode::LoginRequired,
                ar.state.as_deref(),
            ))
        }
    };
    // What may be granted (access::decide: the provider's rule, the RP's rule and level, the
    // scope after its rules); a refusal is a portal error page, never a redirect. Consent
    // and the code are for the granted scope.
    let mut ar = ar;
    ar.scope = match decide(
        &oidc,
        rp,
        &session,
        Grant::Authorize(ar.flow.as_str()),
        &ar.scope,
    ) {
        Ok(scope) => scope,
        // A level too low, with a second factor to raise it: the portal asks for it
        // (`/upgradesession`) and comes back here, instead of portal error 102.
        Err(Denied::Level) if crate::second_factor::can_upgrade(conf) && !req.wants_json() => {
            let b64 = base64::engine::general_purpose::STANDARD.encode(back()?);
            let url = format!(
                "{}upgradesession?url={}",
                conf.portal,
                crate::util::url_encode(&b64)
            );
            return Ok(Response::redirect(&url));
        }
        Err(refusal) => {
            let code = refusal.portal_code();
            log::notice(&format!(
                "user {} is not authorized to access relying party {} (portal error {})",
                subject(&session),
                rp.name,
                code.as_str()
            ));
            return Err(Error::portal(code, 403));
        }
    };
    // The subject this RP knows the user by (oidcRPMetaDataOptionsUserIDAttr); a user
    // without one gets nothing rather than an empty or shared `sub`.
    let data = claims::data_for(&session, &rp.client_id, &rp.name, &ar.scope);
    let Some(sub) = rp.release.sub(&data) else {
        log::error(&format!(
            "relying party {}: user {} has no value for its subject attribute",
            rp.name,
            subject(&session)
        ));
        return Err(Error::portal(PortalCode::Error, 403));
    };
    // The claims parameter (OIDC Core 5.5), narrowed; the user consents to the scopes its
    // claims come from too.
    let ignore = conf
        .area::<crate::oidc::settings::Settings>()
        .ignore_scope_for_claims;
    let acr = crate::oidc::base::acr::of(conf, &session);
    let settled = match ar.claims.take() {
        Some(c) => c.settle(rp, &session, &ar.scope, ignore, (&acr, &sub)),
        None => Ok((None, ar.scope.clone())),
    };
    let asked = match settled {
        Ok((claims, scope)) => {
            ar.claims = claims;
            AuthRequest {
                scope,
                ..ar.clone()
            }
        }
        Err(code) => return Ok(refuse(&ar.redirect_uri, ar.mode, code, ar.state.as_deref())),
    };
    let ar = &ar;
    match consent::decide(app, conf, req, rp, &asked, &session, &p)? {
        consent::Outcome::Granted => grant(app, conf, rp, ar, &session),
        consent::Outcome::Ask(page) => Ok(page),
        consent::Outcome::Refused(code) => {
            Ok(refuse(&ar.redirect_uri, ar.mode, code, ar.state.as_deref()))
        }
    }
}

/// A refused request: portal error (logged, not redirected) or an error back to the client.
fn refusal(r: Refusal, p: &Params) -> Result<Response> {
    match r {
        Refusal::Portal(code) => {
            let client = printable(p.get("client_id"));
            log::notice(&format!(
                "authorize refused (portal error {}) for client {client}",
                code.as_str()
            ));
            Err(Error::portal(code, 400))
        }
        // Stage 2: the redirect URI is registered, so the error may go there, in the mode
        // the request asked for as far as it could be read.
        Refusal::Redirect(code) => Ok(refuse(
            p.get("redirect_uri").unwrap_or_default(),
            Mode::for_error(p.get("response_type"), p.get("response_mode")),
            code,
            p.state(),
        )),
    }
}

/// Issues what the response type asks for (a code, an access token, an ID token: OpenID
/// Connect Core 3.1.2.5, 3.2.2.5, 3.3.2.5) and answers with them, `session_state` and `state`.
fn grant(app: &App, conf: &Conf, rp: &Rp, ar: &AuthRequest, session: &Session) -> Result<Response> {
    let code = match ar.response_type.code {
        true => Some(issue_code(app, conf, rp, ar, session)?),
        false => None,
    };
    let issued = implicit::issue(app, conf, rp, ar, session, code.as_deref())?;
    // The session now has a relying party to tell when it ends (`channels`).
    crate::sso::record_rp(app, session, &rp.name)?;
    let id = session
        .get("_session_id")
        .and_then(Value::as_str)
        .unwrap_or("");
    let ss = logout::check_session::session_state(&conf.key, &ar.client_id, &ar.redirect_uri, id);
    let mut q: Vec<(&str, &str)> = Vec::new();
    if let Some(c) = &code {
        q.push(("code", c));
    }
    q.extend(issued.iter().map(|(k, v)| (*k, v.as_str())));
    q.push(("session_state", &ss));
    if let Some(s) = &ar.state {
        q.push(("state", s));
    }
    Ok(deliver(&ar.redirect_uri, ar.mode, &q))
}

/// A request that must not show a login form (`prompt=none`) and has no usable session.
struct LoginRequired;

/// The user's SSO session, `LoginRequired` (`prompt=none`), or `Error::SignIn`: the login form
/// coming back here (the cookie of a session it names no more cleared; for a fresh login, the
/// live session set aside for the login to end once the new one exists).
fn user_session(
    app: &App,
    conf: &Conf,
    req: &Request,
    ar: &AuthRequest,
    back: &dyn Fn() -> Result<String>,
) -> Result<std::result::Result<Session, LoginRequired>> {
    let state =
        crate::sso::from_cookie(app, conf, crate::web::cookies::sso_id(conf, req).as_deref())?;
    let none = ar.prompt.iter().any(|p| p == "none");
    let session = match state {
        CookieState::Valid(s) => s,
        _ if none => return Ok(Err(LoginRequired)),
        CookieState::Unknown => return Err(sign_in(back()?, true, None)),
        CookieState::Absent => return Err(sign_in(back()?, false, None)),
    };
    let auth_time = session.auth_time().unwrap_or(0);
    let too_old = ar.max_age.is_some_and(|m| util::now() - auth_time > m);
    if ar.prompt.iter().any(|p| p == "login") || too_old {
        if none {
            return Ok(Err(LoginRequired));
        }
        // A fresh login: the browser drops its cookie, so the form really authenticates; the
        // old session's id is set aside for the login to end it once the new one exists.
        return Err(sign_in(back()?, true, Some(session.id().to_string())));
    }
    Ok(Ok(session.into_map()))
}

/// The login form that comes back to `back` (the portal renders it: `Error::SignIn`).
fn sign_in(back: String, clear: bool, aside: Option<String>) -> Error {
    Error::SignIn(Box::new(crate::error::SignIn {
        code: PortalCode::FirstAccess,
        back: Some(back),
        clear,
        aside,
    }))
}

/// Stores the code with what the token endpoint needs.
fn issue_code(app: &App, conf: &Conf, rp: &Rp, ar: &AuthRequest, s: &Session) -> Result<String> {
    // OIDC Core 11 as LemonLDAP::NG: offline_access needs AllowOffline and consent.
    let consented = rp.bypass_consent || ar.prompt.iter().any(|p| p == "consent");
    let (scope, offline) = store::offline::requested(&ar.scope, rp.allow_offline, consented);
    let grant = grant_record(conf, rp, ar, s, &scope, offline);
    store::create(store::of(app), RecordType::Code, grant, rp.code_ttl)
}

/// A client-sent value fit for a log line.
fn printable(v: Option<&str>) -> String {
    v.unwrap_or("")
        .chars()
        .filter(|c| !c.is_control())
        .take(64)
        .collect()
}

/// RFC 6749 4.1.2.1, 4.2.2.1: the error goes back to the client, in the answer's mode.
fn refuse(redirect_uri: &str, mode: Mode, code: OAuthCode, state: Option<&str>) -> Response {
    let mut q = vec![("error", code.as_str())];
    if let Some(s) = state {
        q.push(("state", s));
    }
    deliver(redirect_uri, mode, &q)
}
