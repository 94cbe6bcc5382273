//! Where the authorization request's parameters come from, before `authorize` checks them:
//! the query (or form), a request object in it (`request_object`), or a pushed authorization
//! request (RFC 9126): `POST /oauth2/par` takes the parameters from an authenticated client,
//! checks them as `authorize` would, keeps them a minute and answers a `request_uri`
//! (`urn:ietf:params:oauth:request_uri:<id>`) that the client sends the browser to `authorize`
//! with, alone beside `client_id` (§4: the pushed parameters are the only ones used).
//!
//! A `request_uri` is single use (§4 SHOULD): the first `authorize` that presents it takes the
//! record from the store atomically (`grants::take`), so of two uses, concurrent or not,
//! exactly one gets the parameters. A second use, an expired or unknown one, or another
//! client's (which consumes it too: it leaked) is `invalid_request_uri`, redirected only when
//! the query itself names one of the presenting client's registered redirect URIs, else a
//! portal error (the record is gone: nothing in it can vouch for a redirect URI). When the
//! user must first sign in, the consumed request is kept again under a fresh single-use
//! `request_uri` (`again`) that only the login form's return URL carries: the parameters
//! never travel through the browser, and the real request_uri stays spent. The consent form
//! posts the checked parameters back, as for any request.
use super::request::check;
use super::request::Refusal;
use super::request_object;
use crate::app::App;
use crate::config::Conf;
use crate::ctx::Ctx;
use crate::error::{Error, OAuthCode, PortalCode, Result};
use crate::grants::{self as store, Record, RecordType};
use crate::http::Response;
use crate::oidc::base::{issuer, params, Params};
use crate::oidc::clients::client;
use crate::oidc::settings::{self, Settings};
use serde_json::json;
use std::time::Duration;

/// The prefix of a pushed request's `request_uri` (RFC 9126 §2.2).
pub const URN: &str = "urn:ietf:params:oauth:request_uri:";
/// How long a pushed request lives, seconds (§2.2: short, "5 to 600 seconds").
pub const LIFETIME: i64 = 60;

/// `POST /oauth2/par`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let p = params(req);
    if p.oversized() {
        return Err(Error::oauth(OAuthCode::InvalidRequest));
    }
    let oidc = conf.area::<Settings>();
    // §2.1: the client authenticates as at the token endpoint.
    let rp = client::request(app, conf, &oidc, req, &p, "par")?;
    // §2.1: a `request_uri` cannot be pushed; a `client_id` present is the client's.
    if p.get("request_uri").is_some() || p.get("client_id").is_some_and(|c| c != rp.client_id) {
        return Err(Error::oauth(OAuthCode::InvalidRequest));
    }
    let auth = ["client_secret", "client_assertion", "client_assertion_type"];
    let mut kept: Vec<(String, String)> =
        p.0.iter()
            .filter(|(k, _)| !auth.contains(&k.as_str()) && k != "client_id")
            .cloned()
            .collect();
    kept.push(("client_id".into(), rp.client_id.clone()));
    let now = crate::util::now();
    let kept = request_object::expand(rp, &issuer(conf), &Params(kept), now, |_| {
        Err("a pushed request carries its request object by value".into())
    })
    .map_err(Error::oauth)?;
    // §2.1: checked as the authorization endpoint would (redirect URI registered, response
    // type served, PKCE, scope...), errors answered here as JSON.
    if let Err(r) = check(&oidc, &kept) {
        let code = match r {
            Refusal::Portal(_) => OAuthCode::InvalidRequest,
            Refusal::Redirect(code) => code,
        };
        return Err(Error::oauth(code));
    }
    let rec = Record::pushed(&rp.client_id, &kept.0);
    let id = store::create(store::of(app), RecordType::Pushed, rec, LIFETIME)?;
    Ok(Response::json(
        201,
        &json!({"request_uri": format!("{URN}{id}"), "expires_in": LIFETIME}),
    ))
}

/// The parameters `authorize` works on: a pushed request's, a request object's applied to the
/// query, or the query's. A refusal before the redirect URI can be trusted is a portal error.
/// `fetch` gets a request object by reference (run off the worker pool: see [`reference`]).
pub fn expand(
    app: &App,
    conf: &Conf,
    p: &Params,
    fetch: impl FnOnce(&str) -> std::result::Result<String, String>,
) -> std::result::Result<Params, Refusal> {
    let oidc = conf.area::<Settings>();
    let rp = oidc
        .rp(p.get("client_id").unwrap_or(""))
        .ok_or(Refusal::Portal(PortalCode::UnknownPartner))?;
    if let Some(id) = p.get("request_uri").and_then(|u| u.strip_prefix(URN)) {
        // §4: single use. Taken atomically, whoever presents it: another client's use spends
        // it too (it leaked).
        let pushed = store::take(store::of(app), RecordType::Pushed, id)
            .map_err(|_| Refusal::Portal(PortalCode::Error))?;
        return match pushed {
            Some(rec) if rec.client_id() == Some(rp.client_id.as_str()) => {
                Ok(Params(rec.pushed_params()))
            }
            // Used, unknown, expired, or another client's: the record cannot vouch for a
            // redirect URI; the query's own may, when it is the client's.
            _ => {
                crate::log::notice(&format!(
                    "relying party {}: pushed request_uri used, expired or unknown",
                    rp.name
                ));
                Err(refused(rp, p, OAuthCode::InvalidRequestUri))
            }
        };
    }
    let now = crate::util::now();
    request_object::expand(rp, &issuer(conf), p, now, fetch).map_err(|code| refused(rp, p, code))
}

/// Whether the request names a pushed request (`request_uri` in [`URN`]).
pub fn is_pushed(p: &Params) -> bool {
    p.get("request_uri").is_some_and(|u| u.starts_with(URN))
}

/// The query the login form comes back to `authorize` with, for a pushed request already
/// consumed (`p`, its parameters): they are kept again under a fresh single-use `request_uri`
/// that lives as long as a login may take (`formTimeout`, at least [`LOGIN_LIFETIME`]), without
/// `prompt` and `max_age` (the login answers them, as for a request in the query).
pub fn again(app: &App, conf: &Conf, p: &Params) -> Result<String> {
    let client_id = p.get("client_id").unwrap_or_default();
    let kept: Vec<(String, String)> =
        p.0.iter()
            .filter(|(k, _)| !matches!(k.as_str(), "prompt" | "max_age" | "confirm" | "token"))
            .cloned()
            .collect();
    let ttl = conf.form_timeout.unwrap_or(0).max(LOGIN_LIFETIME);
    let rec = Record::pushed(client_id, &kept);
    let id = store::create(store::of(app), RecordType::Pushed, rec, ttl)?;
    let back = vec![
        ("client_id".to_string(), client_id.to_string()),
        ("request_uri".to_string(), format!("{URN}{id}")),
    ];
    Ok(Params(back).to_query(&[]))
}

/// Shortest life of a pushed request kept for the login round trip, seconds (a pending login
/// lives as long).
pub const LOGIN_LIFETIME: i64 = 600;

/// The client and the URL to fetch before `authorize` can go on: a request object by
/// reference at a `request_uri` the client registered; `None` when nothing is to be fetched.
pub fn reference(conf: &Conf, p: &Params) -> Option<(String, String)> {
    // A pushed request is read from the store, whatever the RP's patterns cover.
    if is_pushed(p) {
        return None;
    }
    let oidc = conf.area::<Settings>();
    let rp = oidc.rp(p.get("client_id").unwrap_or(""))?;
    let url = request_object::reference(rp, p)?;
    Some((rp.client_id.clone(), url))
}

/// The refusal when a `request_uri` cannot be fetched now (every fetcher, or the client's
/// share of them, busy): RFC 6749 4.1.2.1 `temporarily_unavailable`.
pub fn busy(conf: &Conf, p: &Params) -> Refusal {
    let oidc = conf.area::<Settings>();
    match oidc.rp(p.get("client_id").unwrap_or("")) {
        Some(rp) => refused(rp, p, OAuthCode::TemporarilyUnavailable),
        None => Refusal::Portal(PortalCode::UnknownPartner),
    }
}

/// A refusal of the request object: to the query's redirect URI when it is the client's (it
/// may carry the error), else a portal error.
fn refused(rp: &settings::Rp, p: &Params, code: OAuthCode) -> Refusal {
    let registered = p
        .get("redirect_uri")
        .is_some_and(|u| rp.redirect_uris.iter().any(|r| r == u));
    match registered {
        true => Refusal::Redirect(code),
        false => Refusal::Portal(PortalCode::Error),
    }
}

/// Longest a `request_uri` fetch may take, connection and whole answer included.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(2);

/// GETs a registered `request_uri` ([`FETCH_TIMEOUT`], no redirect, 200 only): at most one
/// byte more than `MAX_REQUEST_OBJECT` is read, and an answer that has it is refused whole,
/// never cut. Slow: callers run it off the worker pool.
pub fn fetch(uri: &str) -> std::result::Result<String, String> {
    let cap = request_object::MAX_REQUEST_OBJECT;
    let body = crate::upstream::get_capped(uri, FETCH_TIMEOUT, cap, "the request object")?;
    String::from_utf8(body).map_err(|_| "the request object is not text".into())
}
