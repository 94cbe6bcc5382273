//! The second factors' pages and paths, LemonLDAP::NG 2.16's: the page a login held by its
//! second factor shows (the factor's check form, or the choice of factors), `/2fchoice`,
//! `/<prefix>2fcheck` (the answer, with the pending login's `token`), `/upgradesession` (a
//! connected user raising the session's level for a service), and `/2fregisters`
//! with `/2fregisters/<prefix>[/<action>]` (registration and removal, for a connected user
//! or for a login that `sfRequired` sends there). The engine is `crate::second_factor`; each
//! factor's pages implement [`FactorPages`] and are listed in [`PAGES`].
//!
//! JSON clients (`Accept: application/json`) get, for a login held by its factor, status 401
//! and `{"result":0,"error":"-4","token":T,"factors":["totp"],"check":"/totp2fcheck"}` (one
//! factor) or `"check":"/2fchoice"` (several; post `token` and `sf=<prefix>`), or for a
//! registration `"register":"/2fregisters"`; then posting `token` and the factor's fields
//! (`code` for TOTP) to the check path answers like the login: `{"result":1,"id":..}` with
//! the SSO cookie, or `{"result":0,"error":"96"}`.
mod check;
mod register;
mod totp;
mod webauthn;

use crate::config::Conf;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Request, Response};
use crate::portal::session::{self, CookieState};
use crate::second_factor::pending::Pending;
use crate::second_factor::step::{self, Ask, Asked, Why};
use crate::second_factor::Factor;
use crate::web::{cookies, Page};
use maud::Markup;
use serde_json::{json, Value};

/// The cookie naming a login that `sfRequired` sent to registration.
pub const REGISTER_COOKIE: &str = "lemonldap2fregister";

/// A factor's pages.
pub trait FactorPages: Sync {
    /// The factor's prefix (`totp`).
    fn prefix(&self) -> &'static str;

    /// The fields of its check form (the portal adds the heading, the token, the button),
    /// given the factor's challenge data.
    fn check_fields(&self, page: &Page, data: Option<&Value>) -> Markup;

    /// `/2fregisters/<prefix>[/<action>]` for the registering user `reg`.
    fn register(&self, ctx: &Ctx, reg: &register::Registering, action: &str) -> Result<Response>;
}

/// The factors' pages, one per factor of `crate::second_factor::FACTORS`.
pub static PAGES: &[&dyn FactorPages] = &[&totp::TotpPages, &webauthn::WebAuthnPages];

/// The pages of the factor of that prefix.
fn pages_of(prefix: &str) -> Option<&'static dyn FactorPages> {
    PAGES.iter().copied().find(|p| p.prefix() == prefix)
}

/// Whether the path is one of this module's (the router sends them here).
pub fn owns(path: &str) -> bool {
    path == "/2fchoice"
        || path == "/upgradesession"
        || path == "/2fregisters"
        || path.starts_with("/2fregisters/")
        || check_prefix(path).is_some()
}

/// The prefix of a `/<prefix>2fcheck` path of a known factor.
fn check_prefix(path: &str) -> Option<&'static str> {
    let p = path.strip_prefix('/')?.strip_suffix("2fcheck")?;
    crate::second_factor::by_prefix(p).map(|f| f.prefix())
}

/// The paths of this module.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let path = ctx.req.path.as_str();
    if path == "/2fchoice" {
        return check::choice(ctx);
    }
    if path == "/upgradesession" {
        return upgrade(ctx);
    }
    if let Some(prefix) = check_prefix(path) {
        return check::answer(ctx, prefix);
    }
    if path == "/2fregisters" || path.starts_with("/2fregisters/") {
        return register::handle(ctx);
    }
    Err(Error::not_found("Not found"))
}

/// The answer of a login held by its second factor: the check form, the choice, or the
/// redirect to registration (HTML), or the JSON above; never an SSO cookie.
pub fn held_page(conf: &Conf, req: &Request, asked: Box<Asked>) -> Response {
    match *asked {
        Asked::Check(p, f, data) => {
            if req.wants_json() {
                let check = format!("/{}2fcheck", f.prefix());
                let resp = asked_json(&p, &[f], &check, None);
                // The factor's challenge (WebAuthn's request options), as `/2fchoice` gives it.
                return match data {
                    Some(d) => {
                        let mut body = resp.json_body();
                        body["data"] = d;
                        Response::json(401, &body)
                    }
                    None => resp,
                };
            }
            check::form_page(conf, req, &p, f, data.as_ref())
        }
        Asked::Choice(p, list) => {
            if req.wants_json() {
                return asked_json(&p, &list, "/2fchoice", None);
            }
            check::choice_page(conf, req, &p, &list)
        }
        Asked::Register(p) => {
            let cookie = cookies::portal_cookie(conf, REGISTER_COOKIE, &p.id, false);
            let resp = if req.wants_json() {
                asked_json(&p, &[], "", Some("/2fregisters"))
            } else {
                Response::redirect(&format!("{}2fregisters", slash(&conf.portal)))
            };
            resp.with_cookie(&cookie)
        }
    }
}

/// `/upgradesession?url=<base64>`: a connected user whose level is too low for the service
/// at `url` proves a second factor, and the session, raised to the factor's level, goes on
/// there (LemonLDAP::NG's `Upgrade` plugin with `sfOnlyUpgrade`).
fn upgrade(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let url = crate::portal::pending_url(conf, req);
    let CookieState::Valid(s) = session::from_request(app, conf, req)? else {
        return Ok(match url {
            Some(u) => crate::portal::login_redirect(conf, req, &u),
            None => Response::redirect(&conf.portal),
        });
    };
    Ok(
        match step::ask(app, conf, &s, url.as_deref(), Why::Upgrade)? {
            Ask::Asked(asked) => held_page(conf, req, asked),
            Ask::Refused(code) => crate::portal::login_page(conf, req, code, 403),
            Ask::Nothing => Response::redirect(url.as_deref().unwrap_or(&conf.portal)),
        },
    )
}

/// The JSON answer of a held login.
fn asked_json(p: &Pending, list: &[&dyn Factor], check: &str, register: Option<&str>) -> Response {
    let factors: Vec<&str> = list.iter().map(|f| f.prefix()).collect();
    let mut body = json!({"result": 0, "error": "-4", "token": p.id, "factors": factors});
    if !check.is_empty() {
        body["check"] = json!(check);
    }
    if let Some(r) = register {
        body["register"] = json!(r);
    }
    Response::json(401, &body)
}

/// The portal URL with one trailing slash.
fn slash(portal: &str) -> String {
    format!("{}/", portal.trim_end_matches('/'))
}
