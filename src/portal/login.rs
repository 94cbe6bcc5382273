//! The portal's login entry points: `POST /` and `POST /oauth2/` (the form and JSON login)
//! and `/notifback` (the answer to the notifications a login was held by); `answer` encodes
//! an outcome for them and for the second factor's check (`second_factor`). Each calls the
//! login pipeline (`crate::login`) and encodes what it decided: the login page with its error,
//! the lock's page, a hold's page, or the released login's cookie with its redirect or JSON.
use super::{login_page, pages, pending_url, session, session::CookieState};
use crate::app::App;
use crate::config::Conf;
use crate::ctx::Ctx;
use crate::error::{Error, PortalCode, Result};
use crate::http::{Method, Request, Response};
use crate::login::holds::{notifications as notices, Held};
use crate::login::{self, release::Released, Credentials, Outcome};
use crate::sso::pending;
use crate::web::cookies;
use serde_json::json;

/// `POST /` or `POST /oauth2/` with `user` and `password`.
pub fn post(app: &App, req: &Request, conf: &Conf) -> Result<Response> {
    let json = req.wants_json();
    // A JSON login carries no token: a browser that says it comes from elsewhere is refused
    // (login CSRF: the victim signed in as the attacker).
    if json && super::cross_site::refused(conf, req) {
        return Ok(super::cross_site_refusal(conf, req));
    }
    if let CookieState::Valid(_) = session::from_request(app, conf, req)? {
        // Already authenticated: LemonLDAP::NG refuses a second login on the same session.
        if json {
            return Err(Error::Portal {
                code: PortalCode::Error,
                status: 400,
            });
        }
        return Ok(Response::redirect(
            &pending_url(conf, req).unwrap_or_else(|| conf.portal.clone()),
        ));
    }
    if !json && conf.require_token {
        let token = req.form_param("token");
        if let Some(code) = login::identify::refuse_token(app, conf, token)? {
            return Ok(login_page(conf, req, code, 400));
        }
    }
    let (Some(user), Some(password)) = (req.form_param("user"), req.form_param("password")) else {
        return Ok(login_page(conf, req, PortalCode::Error, 401));
    };
    let url = pending_url(conf, req);
    let c = Credentials {
        user: &user,
        password: &password,
    };
    let outcome = login::run(app, conf, req, c, url.as_deref())?;
    Ok(answer(conf, req, outcome))
}

/// The answer of a login's outcome: the login page with its error, the lock's page, a hold's
/// page, or the released login's cookie with its redirect or JSON.
pub fn answer(conf: &Conf, req: &Request, outcome: Outcome) -> Response {
    match outcome {
        Outcome::Refused(code, status) => login_page(conf, req, code, status),
        Outcome::Locked(seconds) => locked_page(conf, req, seconds),
        Outcome::Held(held) => held_page(conf, req, held),
        Outcome::Released(r) => released(conf, req, &r),
    }
}

/// `/notifback`: the answer to the notifications form of a held login (`?cancel=1` gives up).
pub fn notifback(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    if req.path != "/notifback" || !conf.area::<crate::notifications::Settings>().enabled {
        return Err(Error::not_found("Not found"));
    }
    if req.has_query("cancel") || req.form_param("cancel").is_some() {
        return Ok(cancel(app, req, conf));
    }
    if req.method != Method::Post {
        return Err(Error::MethodNotAllowed);
    }
    let Some(p) = req
        .cookie(pending::COOKIE)
        .map(|id| pending::get(app, &id))
        .transpose()?
        .flatten()
    else {
        return Err(Error::Unauthenticated(
            "No pending login: please log in again".into(),
        ));
    };
    if !pending::check_token(conf, &p.id, &req.form_param("token").unwrap_or_default()) {
        return Err(Error::bad("Invalid form token"));
    }
    Ok(match notices::answer(app, conf, p, &req.form())? {
        notices::Answer::Incomplete(due, ticks) => notices_page(conf, req, &due, Some(&ticks)),
        notices::Answer::Twice => Response::redirect(&conf.portal),
        notices::Answer::Accepted(p) => {
            let r = login::release::release(app, conf, req, &p.session, p.url.as_deref())?;
            let clear = cookies::portal_cookie(conf, pending::COOKIE, "0", true);
            released(conf, req, &r).with_cookie(&clear)
        }
    })
}

/// The answer of a released login: JSON `{"result":1,"error":"0","id":..}`, else a redirect
/// to the pending URL or to the portal's landing page (post/redirect/get: the answer to a
/// posted form is never a page a reload would post again), with the SSO cookie; the cookie of
/// a session a re-authentication set aside is cleared.
fn released(conf: &Conf, req: &Request, r: &Released) -> Response {
    let resp = if req.wants_json() {
        Response::json(200, &json!({"result": 1, "error": "0", "id": r.id}))
    } else {
        Response::redirect(r.url.as_deref().unwrap_or(&conf.portal))
    };
    let state = crate::sso::browser_state(&conf.key, &r.id);
    let resp = resp.with_cookies(&cookies::sso(conf, &r.id, &state));
    if r.renewed {
        let clear = cookies::portal_cookie(conf, crate::sso::RENEW_COOKIE, "0", true);
        resp.with_cookie(&clear)
    } else {
        resp
    }
}

/// The answer of a held login: its page (HTML) or its portal error (JSON), with the cookie
/// naming the pending login; no SSO cookie either way.
fn held_page(conf: &Conf, req: &Request, held: Held) -> Response {
    match held {
        Held::Notifications(due) => {
            let cookie = cookies::portal_cookie(conf, pending::COOKIE, &due.pending.id, false);
            let resp = if req.wants_json() {
                let body = json!({"result": 0, "error": "36", "ciphered_id": due.pending.id});
                Response::json(400, &body)
            } else {
                notices_page(conf, req, &due, None)
            };
            resp.with_cookie(&cookie)
        }
        Held::SecondFactor(asked) => super::second_factor::held_page(conf, req, asked),
    }
}

/// The notifications form of a held login (with the ticks of an incomplete answer); the page
/// allows the URL the released login goes to (`form-action`).
fn notices_page(
    conf: &Conf,
    req: &Request,
    due: &notices::Due,
    ticks: Option<&[Vec<bool>]>,
) -> Response {
    let p = &due.pending;
    let frame = crate::notifications::portal::frame(conf, req, &p.session);
    let token = pending::token(conf, &p.id);
    let html = crate::notifications::form::page(&frame, &due.list, &token, ticks);
    let page = Response::html(200, html);
    match p.url.as_deref() {
        Some(u) => page.with_form_target(u),
        None => page,
    }
}

/// `/notifback?cancel=1`: the pending login given up, back to the login form, which says why.
fn cancel(app: &App, req: &Request, conf: &Conf) -> Response {
    if let Some(id) = req.cookie(pending::COOKIE) {
        let _ = pending::finish(app, &id);
    }
    Response::redirect(&format!("{}?notifcancelled=1", conf.portal))
        .with_cookie(&cookies::portal_cookie(conf, pending::COOKIE, "0", true))
        .with_cookies(&cookies::clear_sso(conf))
}

/// The answer to a login refused by the brute-force lock: portal error 86 and the seconds
/// left, on the page (without the form, as LemonLDAP::NG shows it) and in JSON (`lockTime`,
/// which LemonLDAP::NG 2.16 does not send, and `Retry-After`).
fn locked_page(conf: &Conf, req: &Request, seconds: i64) -> Response {
    let resp = if req.wants_json() {
        let body = json!({"result": 0, "error": PortalCode::Wait.as_str(), "lockTime": seconds});
        super::with_sso_challenge(Response::json(401, &body), 401, &conf.portal)
    } else {
        let page = pages::frame(conf, req, None);
        Response::html(200, pages::locked(&page, seconds))
    };
    resp.with_header("Retry-After", seconds.to_string())
}
